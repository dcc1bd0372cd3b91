"""Integer-valued mechanisms: discrete Laplace, discrete Gaussian (Canonne, Kamath & Steinke 2020) and the
truncated discrete Laplace, with exact profiles summed over their loss atoms.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from dpviz._inverse import _inverse_profile, _snap_closed_form
from dpviz._validation import (
    _INT_LIMIT,
    Cap,
    Interval,
    _alpha_arg,
    _clip01,
    _grid_arg,
    _out,
    check_delta,
    check_integer,
    check_positive,
)
from dpviz.mechanisms._base import _CallableFloat, _Mechanism
from dpviz.mechanisms.gaussian import _rho, _zcdp_bracket
from dpviz.mechanisms.loss import PrivacyLossDistribution, _discrete_tradeoff
from dpviz.mechanisms.samplers import SAMPLER_SCALE, _rejection, sample_discrete_gaussian, sample_discrete_laplace

__all__ = [
    "DiscreteLaplace",
    "DiscreteGaussian",
    "tdlap_kappa",
    "TruncatedDiscreteLaplace",
]

#: The terms W + Δ of the exact discrete-Gaussian sums (per ε), W = ⌈σ·√(2 ln 10³⁰)⌉ + 1: beyond this (σ ≳ 1.7e5) the
#: exact sums are refused.
DG_TERMS = Cap(2_000_000, "the terms of the exact discrete-Gaussian sums, about 11.75·sigma + sensitivity (use "
                          "Gaussian for a continuous proxy)")

#: The integer sensitivity of the discrete mechanisms: 1 to 10⁶ (their exact profiles sum over Δ − 1 loss atoms).
DISCRETE_SENSITIVITY = Interval(1, 1_000_000, integer=True)


@dataclasses.dataclass(frozen=True)
class DiscreteLaplace(_Mechanism):
    """Discrete Laplace mechanism M(x) = x + Y, P[Y = k] = (1 − e^{−1/s})/(1 + e^{−1/s})·e^{−|k|/s} on ℤ
    (Ghosh, Roughgarden & Sundararajan 2012 "geometric mechanism"; Canonne, Kamath & Steinke 2020, Def. 2/Alg. 2).

    Integer sensitivity Δ; ``pure_epsilon`` ε₀ = Δ/s. Exact profile with t = 1/s (a finite sum, no truncation):

        δ(ε) = (1 − e^{ε−ε₀})_+ / (1 + e^{−t}) + Σ_{k=1}^{Δ−1} p(k)·(1 − e^{ε − t(Δ−2k)})_+

    (outputs k ≤ 0 have loss ε₀ and total mass 1/(1 + e^{−t}); 0 < k < Δ have loss t(Δ − 2k)). The inverse
    ``epsilon(delta)`` is a Brent root find on the continuous decreasing δ(ε) over [0, ε₀], to full precision.
    Sampler: :func:`sample_discrete_laplace` (CKS Algorithm 2).
    """

    scale: float
    sensitivity: int = 1
    _integer_valued = True

    def __post_init__(self):
        object.__setattr__(self, "scale", check_positive(self.scale, "scale"))
        object.__setattr__(self, "sensitivity", _discrete_sensitivity(self.sensitivity))

    @property
    def pure_epsilon(self) -> float:
        return self.sensitivity / self.scale  # +inf for scale < Δ/1.8e308: a point mass, disjoint neighbours

    def _delta(self, e):
        t = 1.0 / self.scale
        e0 = self.pure_epsilon
        with np.errstate(invalid="ignore"):  # e − e0 = inf − inf only if both are inf; minimum(nan, 0) is not used
            head = -np.expm1(np.where(e < e0, e - e0, 0.0)) / (1.0 + math.exp(-t))
        dlt = self.sensitivity
        if dlt > 1:
            k = np.arange(1, dlt)
            pk = self.pmf(k)
            keep = pk > 0  # with t = inf (point mass) no output 0 < k < Δ has mass, and t·0 would be NaN
            k, pk = k[keep], pk[keep]
            loss = _times(t, dlt - 2.0 * k)
            rows = max(1, 4_000_000 // max(1, k.size))  # e-chunks: the (len(e), Δ − 1) matrix stays ≤ 4e6 entries
            for i in range(0, e.size, rows):
                ei = e[i:i + rows, None]
                head[i:i + rows] += np.sum(pk[None, :] * -np.expm1(np.minimum(ei - loss[None, :], 0.0)), axis=1)
        return _clip01(head, 0.0, 1.0)

    def epsilon(self, delta: float) -> float:
        """Smallest ε ≥ 0 with δ(ε) ≤ delta (Brent root find on the exact finite-sum profile)."""
        d = check_delta(delta)
        e0 = self.pure_epsilon
        if d == 0.0:
            return e0
        if self._delta(np.array([0.0]))[0] <= d:
            return 0.0
        if e0 == math.inf:  # point mass: δ(ε) = 1 for every finite ε
            return math.inf
        return _inverse_profile(self._delta, d, 0.0, e0)

    def _sample(self, shape, rng):
        return sample_discrete_laplace(self.scale, size=shape, rng=rng)

    def pmf(self, k, value: int = 0):
        """P[M(value) = k] = (1 − e^{−1/s})/(1 + e^{−1/s})·e^{−|k − value|/s}."""
        v = _integer_value(value)
        t = 1.0 / self.scale
        c = -math.expm1(-t) / (1.0 + math.exp(-t))
        kk = _grid_arg(k, "k")
        with np.errstate(over="ignore", under="ignore"):
            return np.where(_integral(kk), c * np.exp(-_times(t, np.abs(kk - v))), 0.0)

    def privacy_loss(self) -> PrivacyLossDistribution:
        """Atoms: ε₀ (mass 1/(1+e^{−t}), outputs k ≤ 0), −ε₀ (mass e^{−ε₀}/(1+e^{−t}), k ≥ Δ) and t(Δ − 2k) with
        mass p(k) for 0 < k < Δ; x = 0, x′ = Δ. Exact (finitely many atoms)."""
        t = 1.0 / self.scale
        e0, dlt = self.pure_epsilon, self.sensitivity
        k = np.arange(1, dlt)
        atoms = [e0, -e0] + list(_times(t, dlt - 2.0 * k))
        masses = [1.0 / (1.0 + math.exp(-t)), math.exp(-e0) / (1.0 + math.exp(-t))] + list(self.pmf(k))
        return PrivacyLossDistribution(atoms=tuple(float(a) for a in atoms), masses=tuple(float(m) for m in masses),
                                       description="discrete Laplace: finitely many atoms")

    def tradeoff(self, alpha):
        """Exact Neyman–Pearson trade-off with randomisation (piecewise linear; Dong, Roth & Su 2022, Def. 2.1)."""
        a, scalar = _alpha_arg(alpha)
        return _out(_discrete_tradeoff(self.privacy_loss(), a), scalar)


def _times(t: float, x) -> np.ndarray:
    """t·x with inf·0 := 0 (a loss t(Δ − 2k) is 0 at k = Δ/2 also when t = 1/scale overflowed to inf)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(x == 0, 0.0, t * x)


def _integral(k: np.ndarray) -> np.ndarray:
    """Mask of the finite integers in ``k`` (±inf are not integers; no warning from np.mod(inf, 1))."""
    return np.isfinite(k) & (np.floor(k) == k)


def _integer_value(value) -> int:
    """``value`` of a pmf: an integer in [−2**53, 2**53], as for ``release``."""
    return check_integer(value, "value", minimum=-_INT_LIMIT, maximum=_INT_LIMIT)


def _discrete_sensitivity(value) -> int:
    return DISCRETE_SENSITIVITY.check(value, "sensitivity")


def _over(num, den):
    """num/den with 0/0 := 0: for σ ≲ 1e-154, 2σ² underflows to 0 and the discrete Gaussian is a point mass (its
    exponents are 0 at the centre and −∞ elsewhere), instead of NaN."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # over: x/subnormal → inf, as x/0
        return np.where(np.asarray(num) == 0, 0.0, np.asarray(num, dtype=float) / den)


def _dg_log_normaliser(sigma: float) -> float:
    """ln Z, Z = Σ_{k∈ℤ} e^{−k²/(2σ²)}.

    σ ≥ 1: Poisson summation (exact identity) Z = σ√(2π)·Σ_{n∈ℤ} e^{−2π²σ²n²}, kept to |n| ≤ 4 (the next term is
    < e^{−985} relative). σ < 1: direct sum over |k| ≤ K, K = ⌈σ√(2 ln 1e40)⌉ + 1, whose neglected tail is
    ≤ 2e^{−(K+1)²/(2σ²)}/(1 − e^{−(K+1)/σ²}) < 1e-40 (Z ≥ 1)."""
    if sigma >= 1.0:
        n = np.arange(1, 5)
        # σ ≥ 10: the first correction term e^{−2π²σ²} < e^{−1973} is 0 in double precision (σ² may overflow)
        corr = 1.0 if sigma >= 10.0 else 1.0 + 2.0 * float(np.sum(np.exp(-2.0 * math.pi**2 * sigma**2 * n * n)))
        return math.log(sigma) + 0.5 * math.log(2.0 * math.pi) + math.log(corr)
    kmax = int(math.ceil(sigma * math.sqrt(2.0 * math.log(1e40)))) + 1
    k = np.arange(-kmax, kmax + 1)
    with np.errstate(under="ignore"):
        return math.log(float(np.sum(np.exp(-_over(k * k, 2.0 * sigma**2)))))


@dataclasses.dataclass(frozen=True)
class DiscreteGaussian(_Mechanism):
    """Discrete Gaussian mechanism M(x) = x + Y, P[Y = k] = e^{−k²/(2σ²)}/Z on ℤ (Canonne, Kamath & Steinke
    2020, Def. 1). ρ = Δ²/(2σ²)-zCDP (Canonne, Kamath & Steinke 2020, Thm 14); ``pure_epsilon`` = inf; integer
    sensitivity Δ.

    Exact profile: with loss L(k) = (Δ² − 2Δk)/(2σ²) of output k (x = 0, x′ = Δ),

        δ(ε) = Σ_{k ≤ k*} p(k)·(1 − e^{ε − L(k)}),   k* = ⌊Δ/2 − εσ²/Δ⌋

    a sum of non-negative terms (no cancellation). It is truncated at k ≥ min(k*, 0) − W with
    W = ⌈σ√(2 ln 1e30)⌉ + 1: for k ≤ m ≤ 0, p(k) ≤ p(m)e^{−(m−k)²/(2σ²)}, so the neglected mass is
    < 1e-30·p(min(k*,0))·(1 + σ²) — below double rounding of any δ the sum can resolve. Z is exact
    (:func:`_dg_log_normaliser`). ``epsilon(delta)``: Brent root find on the continuous decreasing δ(ε).
    Sampler: :func:`sample_discrete_gaussian` (CKS Algorithm 3).
    """

    sigma: float
    sensitivity: int = 1
    _integer_valued = True

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_positive(self.sigma, "sigma"))
        object.__setattr__(self, "sensitivity", _discrete_sensitivity(self.sensitivity))

    @property
    def rho(self) -> float:
        """ρ = Δ²/(2σ²): the mechanism is ρ-zCDP (Canonne, Kamath & Steinke 2020, Thm 14)."""
        return _rho(self.sensitivity, self.sigma)

    @property
    def pure_epsilon(self) -> float:
        return math.inf

    @property
    def _window(self) -> int:
        return int(math.ceil(self.sigma * math.sqrt(2.0 * math.log(1e30)))) + 1

    def _check_size(self) -> int:
        """The window W, after refusing (σ, Δ) whose exact sums would need more than :data:`DG_TERMS` terms."""
        c = math.sqrt(2.0 * math.log(1e30))
        dlt = self.sensitivity
        w = self._window if self.sigma * c < DG_TERMS.limit else DG_TERMS.limit  # no ceil(inf) for σ near 1e308
        DG_TERMS.check(w + dlt, f"the terms for sigma = {self.sigma!r}, sensitivity = {dlt!r}")
        return w

    def _delta(self, e):
        w = self._check_size()
        s2, dlt = self.sigma**2, self.sensitivity
        lz = _dg_log_normaliser(self.sigma)
        with np.errstate(over="ignore"):
            kstar = np.floor(dlt / 2.0 - e * s2 / dlt)
        # every term has k ≤ k*; if k* < −(40σ + 1) then Σ_{k≤k*} p(k) < e^{−800}(1 + σ²/40) < 1e-330, which
        # rounds to 0 (σ ≤ 1.7e5 here): δ = 0 exactly, and k* (possibly −inf) is never used as an arange bound
        negligible = kstar < -(40.0 * self.sigma + 1.0)
        out = np.zeros_like(e)
        for i, (ks, ei) in enumerate(zip(kstar, e)):
            if negligible[i]:
                continue
            lo = min(ks, 0.0) - w
            k = np.arange(lo, ks + 1.0)
            loss = _over(dlt * dlt - 2.0 * dlt * k, 2.0 * s2)
            with np.errstate(under="ignore"):
                terms = np.exp(-_over(k * k, 2.0 * s2) - lz) * -np.expm1(np.minimum(ei - loss, 0.0))
            out[i] = float(np.sum(terms[::-1]))  # from the largest terms first is irrelevant; all >= 0
        return _clip01(out, 0.0, 1.0)

    def epsilon(self, delta: float) -> float:
        """Smallest ε ≥ 0 with δ(ε) ≤ delta (Brent root find on the exact profile; bracket doubled from the
        zCDP bound ρ + 2√(ρ ln(1/δ)), Canonne, Kamath & Steinke 2020 Thm 14 + Bun & Steinke 2016 Prop. 1.3)."""
        d = check_delta(delta)
        if d == 0.0:
            return math.inf
        if self._delta(np.array([0.0]))[0] <= d:
            return 0.0
        hi = _zcdp_bracket(self.sensitivity / self.sigma, d, self._delta)
        if hi == math.inf:
            return math.inf
        return _inverse_profile(self._delta, d, 0.0, hi)

    def _sample(self, shape, rng):
        return sample_discrete_gaussian(self.sigma, size=shape, rng=rng)

    def pmf(self, k, value: int = 0):
        """P[M(value) = k] = e^{−(k−value)²/(2σ²)}/Z."""
        v = _integer_value(value)
        kk = _grid_arg(k, "k")
        with np.errstate(under="ignore", over="ignore"):
            # (k − v)²/(2σ²) as z²/2 with z = (k − v)/σ: neither (k − v)² nor σ² can overflow into inf/inf
            z = (kk - v) / self.sigma
            p = np.exp(-0.5 * z * z - _dg_log_normaliser(self.sigma))
        return np.where(_integral(kk), p, 0.0)

    def privacy_loss(self) -> PrivacyLossDistribution:
        """Atoms L(k) = (Δ² − 2Δk)/(2σ²) with mass p(k), for |k| ≤ W + Δ (W as in the class docstring); the
        omitted atoms carry mass ``truncated_mass`` < 1e-29."""
        w = self._check_size() + self.sensitivity
        dlt, s2 = self.sensitivity, self.sigma**2
        k = np.arange(-w, w + 1, dtype=float)
        p = self.pmf(k)
        loss = _over(dlt * dlt - 2.0 * dlt * k, 2.0 * s2)
        return PrivacyLossDistribution(atoms=tuple(loss.tolist()), masses=tuple(p.tolist()),
                                       truncated_mass=max(0.0, 1.0 - float(np.sum(p))),
                                       description="discrete Gaussian: atoms (Δ² − 2Δk)/(2σ²)")

    def tradeoff(self, alpha):
        """Exact Neyman–Pearson trade-off with randomisation over the (truncated, < 1e-29) loss atoms."""
        a, scalar = _alpha_arg(alpha)
        return _out(_discrete_tradeoff(self.privacy_loss(), a), scalar)


def tdlap_kappa(epsilon: float, delta: float) -> int:
    """κ(ε, δ) = 1 + ⌈ln(1/δ)/ε⌉ (natural log; Definition 8 of Ghazi et al. 2023, "User-level DP with few
    examples per user").

    >>> tdlap_kappa(1.0, 1e-5)
    13
    """
    eps = check_positive(epsilon, "epsilon")
    d = check_delta(delta, allow_zero=False)
    ratio = -math.log(d) / eps  # −ln δ, not ln(1/δ): 1/δ overflows for subnormal δ; +inf for subnormal ε
    if not ratio <= _MAX_KAPPA - 1:
        raise ValueError(f"epsilon = {epsilon!r} with delta = {delta!r} is not allowed: κ = 1 + ⌈ln(1/δ)/ε⌉ must be "
                         f"<= 2**53 (an exact integer support), i.e. epsilon >= ln(1/delta)/(2**53 - 1) = "
                         f"{-math.log(d) / (_MAX_KAPPA - 1):.4g}.")
    return 1 + int(math.ceil(ratio))


_MAX_KAPPA = 2**53


@dataclasses.dataclass(frozen=True)
class TruncatedDiscreteLaplace(_Mechanism):
    """Shifted truncated discrete Laplace TDLap(ε, δ) (Definition 8 of Ghazi et al. 2023): support
    {0, 1, …, 2κ} (2κ + 1 points, inclusive), pmf ∝ e^{−ε|r − κ|}, κ = 1 + ⌈ln(1/δ)/ε⌉ (natural log).

    **κ convention.** κ is computed from the (ε, δ) *given to this class*. Algorithm 1 (DelStab) of Ghazi et al. 2023
    calls it with ε̄ = ε/3 and δ̄ = δ/(e^{2ε̄} + e^{ε̄} + 2), the value the privacy proof (Lemma 18) needs; the printed
    δ/(e^{2ε̄} + e^{ε} + 2) mixes ε̄ and ε and is smaller, hence also valid. So the caller passes
    ``TruncatedDiscreteLaplace(eps_bar, delta_bar)``; nothing here rescales.

    As a mechanism on integers with sensitivity 1, ``release(x) = x + (R − κ)``, R ~ TDLap, so the noise is
    R − κ ∈ {−κ, …, κ}. Its exact profile (closed form from the loss atoms ±ε and +∞):

        δ(ε′) = p_end + A·(1 − e^{ε′−ε})_+,   p_end = e^{−εκ}/Z,   A = Σ_{j=0}^{κ−1} e^{−εj}/Z,

    Z = 1 + 2e^{−ε}(1 − e^{−εκ})/(1 − e^{−ε}). p_end ≤ e^{−ε}δ < δ (the endpoint mass), so TDLap is (ε, δ)-DP;
    ``pure_epsilon`` = inf and ``epsilon(d)`` = inf for d < p_end. The sampler draws the CKS discrete Laplace
    (scale 1/ε) and rejects values outside [−κ, κ] (acceptance ≥ 1 − δ).
    """

    epsilon: float
    delta: float
    _integer_valued = True

    def __post_init__(self):
        eps = check_positive(self.epsilon, "epsilon")
        d = check_delta(self.delta, allow_zero=False)
        tdlap_kappa(eps, d)  # refuses (ε, δ) whose support {0, …, 2κ} is beyond exact integers
        object.__setattr__(self, "epsilon", _CallableFloat(eps, self._inverse))
        object.__setattr__(self, "delta", _CallableFloat(d, self._profile))
    sensitivity = 1

    @property
    def kappa(self) -> int:
        return tdlap_kappa(float(self.epsilon), float(self.delta))

    @property
    def pure_epsilon(self) -> float:
        return math.inf

    def _parts(self) -> tuple[float, float, float, float]:
        """(p_end, A, B, Z): endpoint mass, P[N ∈ {−κ+1..0}], P[N ∈ {1..κ}] for the centred noise N, and the
        normaliser Z = Σ_{|j|≤κ} e^{−ε|j|}."""
        e, k = float(self.epsilon), self.kappa
        r = math.exp(-e)
        geo = -math.expm1(-e * k) / -math.expm1(-e)  # Σ_{j=0}^{κ−1} e^{−εj}
        z = 1.0 + 2.0 * r * geo
        return math.exp(-e * k) / z, geo / z, r * geo / z, z

    def _profile(self, epsilon):
        """Exact privacy profile δ(ε′) (closed form above); scalar → float, array → array."""
        return _Mechanism.delta(self, epsilon)

    def _delta(self, e):
        p_end, a, _, _ = self._parts()
        return _clip01(p_end + a * -np.expm1(np.minimum(e - float(self.epsilon), 0.0)), 0.0, 1.0)

    def _inverse(self, delta: float) -> float:
        """Closed-form inverse: inf if delta < p_end, else max(0, ε + ln(1 − (delta − p_end)/A))."""
        d = check_delta(delta)
        p_end, a, _, _ = self._parts()
        if d < p_end:
            return math.inf
        frac = (d - p_end) / a
        if frac >= 1.0:
            return 0.0
        e = max(0.0, float(self.epsilon) + math.log1p(-frac))
        return _snap_closed_form(self._delta, d, e, float(self.epsilon))

    def _sample(self, shape, rng):
        k = self.kappa
        n = int(np.prod(shape))
        e = float(self.epsilon)
        if 1.0 / e > SAMPLER_SCALE.high:
            raise ValueError(f"epsilon = {e!r} is not allowed for sampling TDLap: must be >= "
                             f"{1 / SAMPLER_SCALE.high:g} (κ and the noise would overflow 64-bit integers).")

        def batch(m):
            y = sample_discrete_laplace(1.0 / e, size=m, rng=rng)
            return y, np.abs(y) <= k

        return _rejection(batch, n, 0.5).astype(np.int64).reshape(shape)

    def sample(self, size=None, rng=None):
        """R ~ TDLap(ε, δ) on {0, …, 2κ} (Definition 8 of Ghazi et al. 2023), i.e. ``sample_noise + κ``."""
        noise = self.sample_noise(size=size, rng=rng)
        return noise + self.kappa

    def pmf(self, k, value: int = 0):
        """P[value + N = k] for the centred noise N = R − κ ∈ {−κ..κ}: e^{−ε|k − value|}/Z (0 outside)."""
        v = _integer_value(value)
        kk = _grid_arg(k, "k")
        e, kap = float(self.epsilon), self.kappa
        z = self._parts()[3]
        inside = (np.abs(kk - v) <= kap) & _integral(kk)
        with np.errstate(over="ignore", under="ignore"):
            return np.where(inside, np.exp(-_times(e, np.abs(kk - v))) / z, 0.0)

    def privacy_loss(self) -> PrivacyLossDistribution:
        """Atoms +inf (mass p_end: output −κ, impossible under x′ = 1), +ε (mass A: outputs −κ+1..0) and −ε
        (mass B: outputs 1..κ); ``missing_mass`` = p_end (output κ+1 under x′). E[e^{−L}] = 1 − p_end."""
        p_end, a, b, _ = self._parts()
        e = float(self.epsilon)
        return PrivacyLossDistribution(atoms=(math.inf, e, -e), masses=(p_end, a, b), missing_mass=p_end,
                                       description="TDLap: atoms +∞, ±ε")

    def tradeoff(self, alpha):
        """Exact Neyman–Pearson trade-off with randomisation (Dong, Roth & Su 2022, Def. 2.1)."""
        a, scalar = _alpha_arg(alpha)
        return _out(_discrete_tradeoff(self.privacy_loss(), a), scalar)
