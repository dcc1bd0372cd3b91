"""Core DP mechanisms with exact privacy profiles, exact privacy-loss distributions and exact samplers.

Neighbouring inputs: the query value moves by ``sensitivity`` (x versus x′ = x + sensitivity). The privacy profile of
a mechanism M is the hockey-stick divergence

    δ(ε) = max{ H_ε(M(x) ‖ M(x′)), H_ε(M(x′) ‖ M(x)) },   H_ε(P ‖ Q) = ∫ (p − e^ε q)_+

(Dwork & Roth 2014, Def. 2.4 rewritten as in Balle & Wang 2018, Thm 5 / Balle, Barthe & Gaboardi 2018). Every
mechanism here is symmetric under reflection, so both directions give the same value; the code computes one and the
tests check the other by brute force.

Each mechanism is a frozen dataclass validated in ``__post_init__`` with

* ``release(value, rng=None)`` and ``sample_noise(size=None, rng=None)``;
* ``delta(epsilon)`` (exact, vectorised) and ``epsilon(delta)`` (its exact inverse: the smallest ε ≥ 0 with
  δ(ε) ≤ delta, to the last bit; 0 if δ(0) ≤ delta; ``math.inf`` if none, or if it exceeds the double range);
* ``pure_epsilon`` (``math.inf`` when there is no finite pure ε);
* ``pdf``/``pmf``, ``privacy_loss()`` (a :class:`PrivacyLossDistribution`) and ``tradeoff(alpha)`` (the exact
  type-II error of the optimal test at type-I error α; Dong, Roth & Su 2022, Def. 2.1).

>>> round(Gaussian(sigma=1.0).epsilon(1e-5), 6)
4.377178
>>> round(Laplace(scale=1.0).delta(0.5), 6)
0.221199
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any, Callable

import numpy as np
from scipy import optimize, special

from dpviz._validation import (
    as_rng,
    check_delta,
    check_in_range,
    check_integer,
    check_positive,
    check_probability,
    check_real_array,
)

__all__ = [
    "Laplace",
    "Gaussian",
    "RandomizedResponse",
    "DiscreteLaplace",
    "DiscreteGaussian",
    "TruncatedDiscreteLaplace",
    "PrivacyLossDistribution",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "classic_gaussian_sigma",
    "classic_gaussian_epsilon",
    "analytic_gaussian_sigma",
    "gaussian_delta",
    "bernoulli_exp_neg",
    "sample_discrete_laplace",
    "sample_discrete_gaussian",
    "tdlap_kappa",
]

_SQRT2 = math.sqrt(2.0)
_MAX_DG_TERMS = 2_000_000  # per ε: beyond this the exact discrete-Gaussian sum is refused (σ ≳ 1.7e5)

#: Most values one call may draw (``size`` of ``sample_noise``/``sample``/the samplers, counted over all axes):
#: 10⁷ doubles are 80 MB; a larger request is refused with a ValueError naming this cap.
MAX_SAMPLES = 10_000_000

#: Largest integer sensitivity of the discrete mechanisms: their exact profiles sum over Δ − 1 loss atoms.
MAX_DISCRETE_SENSITIVITY = 1_000_000


# ============================================================================================ argument helpers


def _eps_arg(epsilon: Any) -> tuple[np.ndarray, bool]:
    """ε ≥ 0 (finite), scalar or array; returns (float array, was_scalar)."""
    if np.ndim(epsilon) == 0:
        e = check_positive(epsilon, "epsilon", allow_zero=True)
        return np.array([e]), True
    arr = check_real_array(epsilon, "epsilon")
    if np.any(arr < 0):
        bad = float(arr[arr < 0][0])
        raise ValueError(f"epsilon = {bad!r} is not allowed: must be a non-negative number >= 0.")
    return arr.astype(float), False


def _alpha_arg(alpha: Any) -> tuple[np.ndarray, bool]:
    if np.ndim(alpha) == 0:
        return np.array([check_probability(alpha, "alpha")]), True
    arr = check_real_array(alpha, "alpha")
    if np.any((arr < 0) | (arr > 1)):
        bad = float(arr[(arr < 0) | (arr > 1)][0])
        raise ValueError(f"alpha = {bad!r} is not allowed: must be a number in [0, 1].")
    return arr.astype(float), False


def _array_arg(value: Any, name: str, low: float, high: float, *, low_inclusive: bool = True,
               high_inclusive: bool = True) -> tuple[np.ndarray, bool]:
    """A number or array of numbers in an interval (NaN refused); returns (float array, was_scalar)."""
    if np.ndim(value) == 0:
        return np.array([check_in_range(value, name, low, high, low_inclusive=low_inclusive,
                                        high_inclusive=high_inclusive)]), True
    arr = check_real_array(value, name, finite=False).astype(float)
    ok = ((arr >= low) if low_inclusive else (arr > low)) & ((arr <= high) if high_inclusive else (arr < high))
    if not np.all(ok):
        lb, rb = "[" if low_inclusive else "(", "]" if high_inclusive else ")"
        bad = float(arr[~ok].flat[0])
        raise ValueError(f"{name} = {bad!r} is not allowed: must be a number in {lb}{low:g}, {high:g}{rb}.")
    return arr, False


def _nonneg(x: np.ndarray) -> np.ndarray:
    """max(x, 0) without negative zeros."""
    return np.where(x > 0, x, 0.0)


def _clip01(x, lo=0.0, hi=1.0):
    """Clip to [lo, hi] without negative zeros; NaN stays NaN (so :func:`_no_nan` can refuse it, never 0)."""
    return np.where(x > lo, np.minimum(x, hi), np.where(np.isnan(x), x, lo)) + 0.0


def _no_nan(arr: np.ndarray, what: str, name: str, value) -> np.ndarray:
    """Raise instead of returning NaN: every formula here is finite on its validated domain, so a NaN is a
    floating-point failure at extreme parameters and must not reach the caller as a number."""
    if np.any(np.isnan(arr)):
        raise ValueError(f"{what} could not be evaluated at {name} = {value!r}: the computation lost all precision "
                         "(extreme parameters); nothing is returned rather than NaN.")
    return arr


def _out(arr: np.ndarray, scalar: bool):
    return float(arr[0]) if scalar else arr


def _size_arg(size: Any) -> tuple[tuple[int, ...], bool]:
    """``size`` of a sampler: None (one scalar), an integer or a shape; at most :data:`MAX_SAMPLES` values."""
    if size is None:
        return (1,), True
    if np.ndim(size) == 0:
        return (check_integer(size, "size", minimum=0, maximum=MAX_SAMPLES),), False
    if isinstance(size, np.ndarray) and size.size == 0:
        return (), False
    try:
        parts = list(size)
    except TypeError:
        raise ValueError(f"size = {size!r} is not allowed: must be None, an integer or a tuple of integers.") from None
    if len(parts) > 32:
        raise ValueError(f"size has {len(parts)} axes, which is not allowed: must have at most 32 (numpy's limit).")
    shape = tuple(check_integer(s, "size", minimum=0, maximum=MAX_SAMPLES) for s in parts)
    if math.prod(shape) > MAX_SAMPLES:
        raise ValueError(f"size = {shape!r} is not allowed: must hold at most {MAX_SAMPLES} values in total "
                         f"(it holds {math.prod(shape)}).")
    return shape, False


_INT_LIMIT = 2**53  # integer query values: exact in float64, and value + noise stays far inside int64


def _values_arg(value: Any, *, integer: bool) -> tuple[np.ndarray, bool]:
    name = "value"
    if np.ndim(value) == 0:
        if integer:
            return np.array([check_integer(value, name, minimum=-_INT_LIMIT, maximum=_INT_LIMIT)],
                            dtype=np.int64), True
        from dpviz._validation import _as_float  # the same message template

        return np.array([_as_float(value, name, "a finite number")]), True
    arr = check_real_array(value, name)
    if integer:
        if not np.all(np.equal(np.mod(arr, 1), 0)):
            bad = arr[np.mod(arr, 1) != 0].flat[0]
            raise ValueError(f"value = {bad!r} is not allowed: must be an integer (discrete mechanism).")
        if np.any(np.abs(arr) > _INT_LIMIT):
            bad = arr[np.abs(arr) > _INT_LIMIT].flat[0]
            raise ValueError(f"value = {bad!r} is not allowed: must be an integer in [-2**53, 2**53].")
        return arr.astype(np.int64), False
    return arr.astype(float), False


def _inverse_profile(profile: Callable[[np.ndarray], np.ndarray], delta: float, lo: float, hi: float) -> float:
    """Smallest ε in [lo, hi] with profile(ε) ≤ delta, for a continuous non-increasing profile with
    profile(lo) > delta ≥ profile(hi): Brent's method to full double precision (xtol 1e-300, rtol 4·2⁻⁵²), then
    a few ulp steps so that the returned ε is feasible and its predecessor is not."""
    f = lambda e: float(profile(np.array([e]))[0]) - delta  # noqa: E731
    try:
        root = optimize.brentq(f, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    except RuntimeError:  # no convergence (e.g. delta among subnormals, where the profile is a staircase)
        root = _bisect_floats(f, lo, hi)
    return _snap(f, root, lo, hi)


def _bisect_floats(f: Callable[[float], float], lo: float, hi: float) -> float:
    """Smallest double in [lo, hi] with f ≤ 0 for a non-increasing f with f(hi) ≤ 0, by bisection on the bit
    patterns of non-negative doubles (at most 64 steps, whatever the scale)."""
    a, b = np.float64(lo).view(np.int64), np.float64(hi).view(np.int64)
    while b - a > 1:
        mid = a + (b - a) // 2
        if f(float(mid.view(np.float64))) > 0:
            a = mid
        else:
            b = mid
    return float(b.view(np.float64)) if f(lo) > 0 else lo


def _snap(f: Callable[[float], float], root: float, lo: float, hi: float) -> float:
    """Move ``root`` by a few ulps so that f(root) ≤ 0 and f(predecessor) > 0 (f = profile − delta, non-increasing):
    the returned ε is feasible and the smallest such double, not merely within rounding of the exact root."""
    steps = 0
    while f(root) > 0 and root < hi and steps < 64:
        root = float(np.nextafter(root, math.inf))
        steps += 1
    if f(root) > 0:
        root = hi
    while root > lo and steps < 128:
        prev = float(np.nextafter(root, -math.inf))
        if f(prev) > 0:
            break
        root = prev
        steps += 1
    return root


def _snap_closed_form(profile: Callable[[np.ndarray], np.ndarray], delta: float, eps: float, hi: float) -> float:
    """A closed-form ε(δ) rounded in floating point can sit an ulp or two on either side of the smallest feasible
    double; snap it (the closed forms are exact in real arithmetic, this only fixes their last bits)."""
    if not (math.isfinite(eps) and math.isfinite(hi)) or eps > hi:
        return eps
    return _snap(lambda e: float(profile(np.array([e]))[0]) - delta, eps, 0.0, hi)


class _CallableFloat(float):
    """A float parameter that is also callable.

    The API contract names both a parameter and a method ``epsilon`` (``RandomizedResponse(epsilon).epsilon`` and
    ``mech.epsilon(delta)``; likewise ``TruncatedDiscreteLaplace.delta``). The stored field is this float subclass:
    it compares, hashes, formats and computes as the parameter, and calling it evaluates the method.

    >>> RandomizedResponse(1.0).epsilon == 1.0, RandomizedResponse(1.0).epsilon(0.0)
    (True, 1.0)
    """

    def __new__(cls, value: float, fn: Callable):
        obj = super().__new__(cls, value)
        obj._fn = fn
        return obj

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __reduce__(self):
        return (float, (float(self),))


# ============================================================================================ privacy loss


@dataclasses.dataclass(frozen=True, eq=False)
class PrivacyLossDistribution:
    """Exact distribution of the privacy loss L = ln(p_x(O)/p_x′(O)), O ~ M(x) (Dwork & Roth 2014, §2.3;
    Balle & Wang 2018, Def. 2 and Thm 5).

    A mixture of atoms (``atoms`` with probabilities ``masses``; ``+inf`` is allowed: outputs that M(x′) never
    produces) and, for continuous mechanisms, an absolutely continuous part with density ``density`` and survival
    function ``continuous_sf`` (both already multiplied by the mass of the continuous part).

    ``missing_mass`` is M(x′)'s probability of outputs that M(x) never produces (the atom at −∞ of the loss seen
    from x′), needed for E[e^{−L}] = 1 − missing_mass and for the trade-off curve. ``truncated_mass`` bounds the
    probability left out when an infinite set of atoms is truncated (0 when exact).
    """

    atoms: tuple[float, ...]
    masses: tuple[float, ...]
    density: Callable[[np.ndarray], np.ndarray] | None = None
    continuous_sf: Callable[[np.ndarray], np.ndarray] | None = None
    support: tuple[float, float] = (0.0, 0.0)
    missing_mass: float = 0.0
    truncated_mass: float = 0.0
    description: str = ""

    def __post_init__(self):
        atoms = _grid_arg(self.atoms, "atoms")
        masses = check_real_array(self.masses, "masses", allow_empty=True)
        if atoms.ndim != 1 or masses.ndim != 1 or atoms.shape != masses.shape:
            raise ValueError(f"atoms has shape {atoms.shape} and masses {masses.shape}, which is not allowed: must be "
                             "two 1-D sequences of the same length.")
        if np.any((masses < 0) | (masses > 1)):
            bad = float(masses[(masses < 0) | (masses > 1)][0])
            raise ValueError(f"masses contains {bad!r}, which is not allowed: must be probabilities in [0, 1].")
        for name in ("density", "continuous_sf"):
            fn = getattr(self, name)
            if fn is not None and not callable(fn):
                raise TypeError(f"{name} = {fn!r} is not allowed: must be a callable or None.")
        support = _grid_arg(self.support, "support")
        if support.shape != (2,) or not support[0] <= support[1]:
            raise ValueError(f"support = {self.support!r} is not allowed: must be a pair (low, high) with "
                             "low <= high (±inf allowed).")
        for name in ("missing_mass", "truncated_mass"):
            object.__setattr__(self, name, check_probability(getattr(self, name), name))
        if not isinstance(self.description, str):
            raise TypeError(f"description = {self.description!r} is not allowed: must be a str.")
        object.__setattr__(self, "atoms", tuple(atoms.tolist()))
        object.__setattr__(self, "masses", tuple(masses.tolist()))
        object.__setattr__(self, "support", (float(support[0]), float(support[1])))

    def pdf(self, loss) -> np.ndarray:
        """Density of the continuous part at ``loss`` (0 for purely discrete losses)."""
        x = _grid_arg(loss, "loss")
        if self.density is None:
            return np.zeros_like(x)
        return self.density(x)

    def sf(self, t) -> np.ndarray | float:
        """P[L > t], exact (atoms at +inf included)."""
        scalar = np.ndim(t) == 0
        x = _grid_arg(np.atleast_1d(t) if scalar else t, "t")
        a = np.asarray(self.atoms)
        m = np.asarray(self.masses)
        out = (m[None, :] * (a[None, :] > x.ravel()[:, None])).sum(axis=1).reshape(x.shape)
        if self.continuous_sf is not None:
            out = out + self.continuous_sf(x)
        return float(out.ravel()[0]) if scalar else out

    def hockey_stick(self, epsilon) -> np.ndarray:
        """E[(1 − e^{ε−L})_+] for the atoms only (the continuous part is the caller's: used by tests).

        ``epsilon``: numbers (any sign, ±inf allowed), scalar or array; returns a 1-D array."""
        e = np.atleast_1d(_grid_arg(epsilon, "epsilon")).ravel()
        a = np.asarray(self.atoms, dtype=float)
        m = np.asarray(self.masses, dtype=float)
        with np.errstate(over="ignore", invalid="ignore"):  # inf − inf where ε and the atom are both +inf: w = 0
            w = np.where(a[None, :] > e[:, None], -np.expm1(np.minimum(e[:, None] - a[None, :], 0.0)), 0.0)
        return (w * m[None, :]).sum(axis=1)


def _grid_arg(x: Any, name: str) -> np.ndarray:
    """Points at which a pmf/pdf/sf is evaluated: numbers, ±inf allowed, NaN refused."""
    arr = check_real_array(x, name, allow_empty=True, finite=False)
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} contains NaN, which is not allowed: must be numbers (±inf allowed).")
    return arr


def _discrete_tradeoff(pld: PrivacyLossDistribution, alpha: np.ndarray) -> np.ndarray:
    """Neyman–Pearson trade-off T(M(x), M(x′)) from the loss atoms: reject H0 = "output of M(x)" on the outputs
    with the largest likelihood ratio p_x′/p_x = e^{−L} first, randomising on the boundary atom; the curve is the
    piecewise-linear interpolation of the vertices (Dong, Roth & Su 2022, Def. 2.1 and Prop. 2.2).

    The mass of an atom a under M(x′) is m·e^{−a} in exact arithmetic. Every mechanism here is symmetric (the loss
    seen from x′ is the mirror image of the loss seen from x), so that mass is also the x-mass of the atom −a: it
    is read from there when −a is an atom, which stays exact when m underflows to 0 or e^{−a} overflows
    (e.g. randomized response at ε = 800, where m·e^{−a} = 0·inf); otherwise e^{ln m − a} in log space."""
    a = np.asarray(pld.atoms, dtype=float)
    m = np.asarray(pld.masses, dtype=float)
    mirror = {}
    for ai, mi in zip(a.tolist(), m.tolist()):
        mirror[-ai] = mirror.get(-ai, 0.0) + mi  # x-mass at −a, keyed by a
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        q_log = np.where(m > 0, np.exp(np.log(np.where(m > 0, m, 1.0)) - a), 0.0)
    q = np.array([mirror.get(ai, qi) for ai, qi in zip(a.tolist(), q_log.tolist())])
    keep = (m > 0) | (q > 0)
    a, m, q = a[keep], m[keep], q[keep]
    order = np.argsort(a, kind="stable")
    m, q = m[order], q[order]
    xs = np.concatenate([[0.0], np.cumsum(m)])
    ys = np.concatenate([[1.0 - pld.missing_mass], 1.0 - pld.missing_mass - np.cumsum(q)])
    xs[-1] = max(xs[-1], 1.0)
    ys[-1] = 0.0  # rejecting every output: β(1) = 0 (the atoms carry all of M(x′)'s mass; DG: up to < 1e-29)
    # β on (xs[j−1], xs[j]] is the chord between vertices j−1 and j; at α = 0 only outputs M(x) never produces
    # can be rejected: β(0) = ys[0]. (Atoms of x-mass 0 give repeated xs; np.interp is undefined there.)
    j = np.clip(np.searchsorted(xs, alpha, side="left"), 1, xs.size - 1)
    x0, x1, y0, y1 = xs[j - 1], xs[j], ys[j - 1], ys[j]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(x1 > x0, (alpha - x0) / np.where(x1 > x0, x1 - x0, 1.0), 1.0)
    beta = np.where(alpha <= 0, ys[0], y0 + np.clip(t, 0.0, 1.0) * (y1 - y0))
    return _clip01(beta, 0.0, 1.0)


# ============================================================================================ Gaussian maths


def gaussian_delta(epsilon, mu: float) -> np.ndarray:
    """Exact δ(ε) of the Gaussian mechanism with μ = Δ/σ (Balle & Wang 2018, Theorem 8):

        δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ).

    Evaluated without cancellation to negative values or NaN: with x₁ = ε/μ − μ/2, x₂ = ε/μ + μ/2 and
    e^ε φ(x₂) = φ(x₁), the formula is δ = ½ e^{−x₁²/2} (erfcx(x₁/√2) − erfcx(x₂/√2)) for x₁ > 0 (no overflow for
    large ε: it underflows to 0 only where the true δ is below ~1e-308), and for x₁ ≤ 0
    ½(erf(−x₁/√2) + erf(x₂/√2)) − ½ e^{−x₁²/2} erfcx(x₂/√2)(1 − e^{−ε}) (as Φ(−x₁) − Φ(−x₂) − (e^ε − 1)Φ(−x₂), using
    x₂² − x₁² = 2ε), which keeps full relative precision also for tiny μ. Relative rounding error
    ≲ 1e-16·(1 + x₂/μ) (the erfcx difference); the tests compare with mpmath.

    >>> round(float(gaussian_delta(1.0, 1.0)[0]), 10)
    0.1269367375
    """
    e, _ = _eps_arg(epsilon)
    return _gaussian_delta(e, check_positive(mu, "mu"))


def _gaussian_delta(e, mu) -> np.ndarray:
    """:func:`gaussian_delta` on validated floats ``e`` ≥ 0 and 0 < μ < inf, broadcasting ``e`` against ``mu``
    (no per-call validation: the inner loop of ``Gaussian.epsilon`` and of :func:`analytic_gaussian_sigma`)."""
    e, mu = np.broadcast_arrays(np.asarray(e, dtype=float), np.asarray(mu, dtype=float))
    out = np.empty(e.shape)
    with np.errstate(under="ignore", over="ignore"):
        # ε/μ overflows to +inf only for μ < ε/1.8e308, where δ(ε) < e^{−x₁²/2} is 0 in double precision (and
        # the formulas below give exactly 0 at x₁ = x₂ = +inf)
        x1 = e / mu - mu / 2.0
        x2 = e / mu + mu / 2.0
        pos = x1 > 0
        g = np.exp(-0.5 * x1 * x1)
        out[pos] = 0.5 * g[pos] * (special.erfcx(x1[pos] / _SQRT2) - special.erfcx(x2[pos] / _SQRT2))
        neg = ~pos
        # x₁ ≤ 0: Φ(−x₁) − Φ(−x₂) = ½(erf(−x₁/√2) + erf(x₂/√2)) adds two non-negative terms, and
        # (e^ε − 1)Φ(−x₂) = ½ e^{−x₁²/2} erfcx(x₂/√2)(1 − e^{−ε}) since x₂² − x₁² = 2ε: no cancellation between
        # two values near ½ (which lost all digits of δ(0) ≈ μ/√(2π) for small μ)
        xn1, xn2 = x1[neg], x2[neg]
        out[neg] = (0.5 * (special.erf(-xn1 / _SQRT2) + special.erf(xn2 / _SQRT2))
                    - 0.5 * g[neg] * special.erfcx(xn2 / _SQRT2) * -np.expm1(-e[neg]))
    return _clip01(out, 0.0, 1.0)


def _gaussian_delta_sigma(e, sigma, sensitivity) -> np.ndarray:
    """δ(ε) of N(0, σ²) noise at sensitivity Δ, μ = Δ/σ computed here (broadcasting): 0 where μ underflows to 0
    (identical outputs in double precision), 1 where it overflows (disjoint outputs)."""
    e, sigma, sensitivity = np.broadcast_arrays(np.asarray(e, dtype=float), np.asarray(sigma, dtype=float),
                                                np.asarray(sensitivity, dtype=float))
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        mu = sensitivity / sigma
    inside = (mu > 0) & (mu < math.inf)
    out = np.where(mu == math.inf, 1.0, 0.0)
    if np.any(inside):
        out[inside] = _gaussian_delta(e[inside], mu[inside])
    return out


def analytic_gaussian_sigma(epsilon, delta, sensitivity=1.0):
    """Smallest σ for which the Gaussian mechanism x + N(0, σ²) with sensitivity Δ is (ε, δ)-DP: the analytic
    Gaussian calibration of Balle & Wang 2018 (Theorem 8 and Algorithm 1), i.e. the smallest σ with

        Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) ≤ δ,   μ = Δ/σ.

    Exact in double precision: δ(ε; Δ/σ) is non-increasing in σ, and a vectorised bisection on the bit patterns of
    the non-negative doubles (64 halvings of [0, +inf], whatever the scale) returns, for each entry, the double σ
    with δ(ε; Δ/σ) ≤ δ whose predecessor is infeasible, both as evaluated by :func:`gaussian_delta` (so
    ``Gaussian(sigma, sensitivity).delta(epsilon) <= delta`` holds for the returned σ and fails one ulp below).

    For k-fold composition of the same Gaussian (GDP: μ_total = √k·Δ/σ; Dong, Roth & Su 2022, Cor. 3.3) pass
    ``sensitivity = √k·Δ``. Broadcasts over ``epsilon``, ``delta`` and ``sensitivity`` (scalars in, float out).

    Raises ``ValueError`` for ε < 0, δ ∉ (0, 1), Δ ≤ 0, or when σ exceeds the double range.

    >>> s = analytic_gaussian_sigma(1.0, 1e-5)
    >>> round(s, 6), bool(Gaussian(s).delta(1.0) <= 1e-5 < Gaussian(float(np.nextafter(s, 0))).delta(1.0))
    (3.730632, True)
    """
    e, se = _eps_arg(epsilon)
    d, sd = _array_arg(delta, "delta", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    s, ss = _array_arg(sensitivity, "sensitivity", 0.0, math.inf, low_inclusive=False, high_inclusive=False)
    e, d, s = np.broadcast_arrays(e, d, s)
    sigma = _analytic_gaussian_sigma(e, d, s)
    if not np.all(np.isfinite(sigma)):
        i = np.flatnonzero(~np.isfinite(sigma.ravel()))[0]
        raise ValueError(f"epsilon = {e.flat[i]!r}, delta = {d.flat[i]!r}, sensitivity = {s.flat[i]!r} are not "
                         "allowed together: the smallest σ exceeds the double range (must be <= 1.8e308); use a "
                         "larger epsilon or delta, or a smaller sensitivity.")
    return float(sigma.ravel()[0]) if (se and sd and ss) else sigma


def _analytic_gaussian_sigma(e: np.ndarray, d: np.ndarray, s: np.ndarray) -> np.ndarray:
    """:func:`analytic_gaussian_sigma` on validated arrays of one shape (ε ≥ 0, 0 < δ < 1, 0 < Δ < inf); +inf where
    no finite double σ is feasible."""
    lo = np.zeros(e.shape, dtype=np.int64)                        # bits of σ = 0: infeasible (δ(ε; ∞) = 1 > δ)
    hi = np.full(e.shape, np.float64(math.inf).view(np.int64))    # bits of σ = +inf: feasible (μ = 0, δ = 0)
    while True:
        live = hi - lo > 1
        if not np.any(live):
            break
        mid = lo + (hi - lo) // 2
        ok = _gaussian_delta_sigma(e, mid.view(np.float64), s) <= d
        hi = np.where(live & ok, mid, hi)
        lo = np.where(live & ~ok, mid, lo)
    return hi.view(np.float64)


def classic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """σ = Δ·√(2 ln(1.25/δ))/ε, the textbook calibration (Dwork & Roth 2014, Theorem A.1).

    Proven only for ε < 1 (for ε ≥ 1 it can fail to give (ε, δ)-DP; compare with :meth:`Gaussian.epsilon`);
    for ε < 1 it is valid but loose: the exact analytic σ (Balle & Wang 2018, Thm 8) is smaller.

    Raises ``ValueError`` for ε ≤ 0, δ ∉ (0, 1) or Δ ≤ 0.

    >>> round(classic_gaussian_sigma(0.5, 1e-5), 4)
    9.6896
    """
    eps = check_positive(epsilon, "epsilon")
    d = check_delta(delta, allow_zero=False)
    s = check_positive(sensitivity, "sensitivity")
    sigma = s * math.sqrt(2.0 * (math.log(1.25) - math.log(d))) / eps  # ln 1.25 − ln δ: 1.25/δ overflows for tiny δ
    if not math.isfinite(sigma):
        raise ValueError(f"epsilon = {epsilon!r}, delta = {delta!r}, sensitivity = {sensitivity!r} are not allowed "
                         f"together: σ = Δ·√(2 ln(1.25/δ))/ε exceeds the double range (must be <= 1.8e308); use a "
                         "larger epsilon or a smaller sensitivity.")
    return sigma


def classic_gaussian_epsilon(sigma, delta, sensitivity=1.0):
    """ε = Δ·√(2 ln(1.25/δ))/σ: the textbook calibration σ = Δ√(2 ln(1.25/δ))/ε of
    :func:`classic_gaussian_sigma` solved for ε (Dwork & Roth 2014, Theorem A.1). The theorem proves
    (ε, δ)-DP only for ε < 1; above that the value is what the formula claims, not a guarantee (compare with
    :meth:`Gaussian.epsilon`). Broadcasts over ``sigma``, ``delta`` and ``sensitivity`` (scalars in, float out).

    Raises ``ValueError`` for σ ≤ 0, δ ∉ (0, 1) or Δ ≤ 0.

    >>> round(classic_gaussian_epsilon(classic_gaussian_sigma(0.5, 1e-5), 1e-5), 12)
    0.5
    """
    g, sg = _array_arg(sigma, "sigma", 0.0, math.inf, low_inclusive=False, high_inclusive=False)
    d, sd = _array_arg(delta, "delta", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    s, ss = _array_arg(sensitivity, "sensitivity", 0.0, math.inf, low_inclusive=False, high_inclusive=False)
    with np.errstate(over="ignore", under="ignore"):
        eps = s * np.sqrt(2.0 * (math.log(1.25) - np.log(d))) / g  # ln 1.25 − ln δ: 1.25/δ overflows for tiny δ
    if not np.all(np.isfinite(eps)):
        raise ValueError(f"sigma = {sigma!r}, delta = {delta!r}, sensitivity = {sensitivity!r} are not allowed "
                         "together: ε = Δ·√(2 ln(1.25/δ))/σ exceeds the double range (must be <= 1.8e308).")
    return float(eps.ravel()[0]) if (sg and sd and ss) else eps


# ============================================================================================ continuous mechanisms


def _rho(sensitivity: float, sigma: float) -> float:
    """Δ²/(2σ²) without OverflowError/ZeroDivisionError at extreme (valid) parameters."""
    try:
        return sensitivity**2 / (2.0 * sigma**2)
    except (OverflowError, ZeroDivisionError):
        mu = sensitivity / sigma
        return 0.5 * mu * mu


def _zcdp_bracket(mu: float, delta: float, profile: Callable[[np.ndarray], np.ndarray]) -> float:
    """An ε with profile(ε) ≤ delta: the zCDP bound ρ + 2√(ρ ln(1/δ)) = μ(μ/2 + √(2 ln(1/δ))) with ρ = μ²/2
    (Bun & Steinke 2016, Prop. 1.3), written so that it neither overflows early nor underflows to 0, then doubled
    while rounding leaves it infeasible. ``math.inf`` if it exceeds the double range."""
    hi = mu * (mu / 2.0 + math.sqrt(2.0 * -math.log(delta)))
    hi = max(hi, 5e-324)
    while hi < math.inf and profile(np.array([hi]))[0] > delta:  # never needed in exact arithmetic
        hi *= 2.0
    return hi


class _Mechanism:
    """Shared behaviour; subclasses implement ``_delta`` (array → array), ``_sample`` and the distributions."""

    _integer_valued = False

    def delta(self, epsilon):
        """Exact privacy profile δ(ε) ≥ 0 for ε ≥ 0 (scalar → float, array → array)."""
        e, scalar = _eps_arg(epsilon)
        return _out(_no_nan(self._delta(e), "delta(epsilon)", "epsilon", epsilon), scalar)

    def release(self, value, rng=None):
        """``value`` plus independent noise per entry (scalar in, scalar out)."""
        v, scalar = _values_arg(value, integer=self._integer_valued)
        noise = self._sample(v.shape, as_rng(rng))
        out = v + noise
        if scalar:
            return int(out[0]) if self._integer_valued else float(out[0])
        return out

    def sample_noise(self, size=None, rng=None):
        """The noise alone: a scalar for ``size=None``, else an array of shape ``size``."""
        shape, scalar = _size_arg(size)
        noise = self._sample(shape, as_rng(rng))
        if scalar:
            return int(noise[0]) if self._integer_valued else float(noise[0])
        return noise


@dataclasses.dataclass(frozen=True)
class Laplace(_Mechanism):
    """Laplace mechanism M(x) = x + Lap(b), density e^{−|y−x|/b}/(2b) (Dwork & Roth 2014, Def. 3.3, Thm 3.6).

    ``pure_epsilon`` ε₀ = Δ/b. Exact profile (hockey-stick of two shifted Laplace laws; e.g. Balle et al. 2018,
    "Privacy amplification by subsampling", §5; Koskela et al. 2021):

        δ(ε) = max(0, 1 − e^{(ε−ε₀)/2}),   inverse ε(δ) = max(0, ε₀ + 2 ln(1 − δ)).

    Parameters
    ----------
    scale : float
        b > 0.
    sensitivity : float
        Δ > 0 (the neighbour's value is x + Δ).
    """

    scale: float
    sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "scale", check_positive(self.scale, "scale"))
        object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))

    @property
    def pure_epsilon(self) -> float:
        return self.sensitivity / self.scale

    def _delta(self, e):
        return _nonneg(-np.expm1(np.minimum(e - self.pure_epsilon, 0.0) / 2.0))

    def epsilon(self, delta: float) -> float:
        """ε(δ) = max(0, ε₀ + 2 ln(1 − δ)) (closed-form inverse of the profile)."""
        d = check_delta(delta)
        e = max(0.0, self.pure_epsilon + 2.0 * math.log1p(-d))
        return _snap_closed_form(self._delta, d, e, self.pure_epsilon)

    def _sample(self, shape, rng):
        return rng.laplace(0.0, self.scale, size=shape)

    def pdf(self, y, value: float = 0.0):
        """Density e^{−|y−value|/b}/(2b) (+inf at y = value if 1/(2b) exceeds the double range, b ≲ 3e-309)."""
        y = check_real_array(y, "y")
        v, _ = _values_arg(value, integer=False)
        with np.errstate(over="ignore", under="ignore"):  # |y − v|/b = inf: density 0
            r = np.abs(y - v[0]) / self.scale
            return np.exp(-r) / (2.0 * self.scale)

    def privacy_loss(self) -> PrivacyLossDistribution:
        """L for x = 0, x′ = Δ: atom +ε₀ with mass ½ (O ≤ 0), atom −ε₀ with mass ½e^{−ε₀} (O ≥ Δ), and density
        ¼ e^{(ℓ−ε₀)/2} on (−ε₀, ε₀) (from O ∈ (0, Δ), L = ε₀ − 2O/b)."""
        e0 = self.pure_epsilon

        def dens(x):
            x = np.asarray(x, dtype=float)
            inside = (x > -e0) & (x < e0)
            with np.errstate(over="ignore", under="ignore"):  # x − ε₀ → −inf for ε₀ near 1e308: density 0
                return np.where(inside, 0.25 * np.exp((np.where(inside, x, 0.0) - e0) / 2.0), 0.0)

        def csf(t):
            # ∫_t^{ε₀} ¼ e^{(ℓ−ε₀)/2} dℓ = ½(1 − e^{(t−ε₀)/2}) on (−ε₀, ε₀); ½(1 − e^{−ε₀}) below, 0 above
            t = np.maximum(np.asarray(t, dtype=float), -e0)
            with np.errstate(over="ignore", under="ignore"):  # t − ε₀ → −inf when ε₀ = inf or near 1e308
                return np.where(t < e0, 0.5 * -np.expm1((np.where(t < e0, t, 0.0) - e0) / 2.0), 0.0)

        return PrivacyLossDistribution(atoms=(e0, -e0), masses=(0.5, 0.5 * math.exp(-e0)), density=dens,
                                       continuous_sf=csf, support=(-e0, e0),
                                       description="Laplace: atoms ±ε₀ and a density on (−ε₀, ε₀)")

    def tradeoff(self, alpha):
        """β(α) = 1 − e^{ε₀}α for α < e^{−ε₀}/2, e^{−ε₀}/(4α) for α ≤ ½, e^{−ε₀}(1 − α) above
        (threshold tests are Neyman–Pearson optimal: the likelihood ratio is monotone; Dong, Roth & Su 2022, §A)."""
        a, scalar = _alpha_arg(alpha)
        e0 = self.pure_epsilon
        em = math.exp(-e0)  # e^{ε₀} may overflow (ε₀ > 709); e^{−ε₀} only underflows to 0
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            mid = em / (4.0 * np.where(a > 0, a, 1.0))
            ee = math.exp(e0) if e0 < 709.0 else math.inf
            first = np.where(a > 0, 1.0 - ee * a, 1.0)  # 1 − e^{ε₀}α; β(0) = 1 (also when e^{ε₀} = inf)
        out = np.where((a < 0.5 * em) | (a == 0), first, np.where(a <= 0.5, mid, em * (1.0 - a)))
        return _out(_no_nan(_clip01(out, 0.0, 1.0), "tradeoff(alpha)", "alpha", alpha), scalar)


@dataclasses.dataclass(frozen=True)
class Gaussian(_Mechanism):
    """Gaussian mechanism M(x) = x + N(0, σ²) (Dwork & Roth 2014, Thm A.1; exact analysis Balle & Wang 2018).

    Exact profile with μ = Δ/σ (Balle & Wang 2018, "Improving the Gaussian mechanism…", Theorem 8):

        δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)

    (see :func:`gaussian_delta` for the cancellation-free evaluation). ``epsilon(delta)`` is its exact inverse by
    Brent's method on the strictly decreasing δ(ε) to full double precision (no closed form exists), bracketed by
    the zCDP bound ε ≤ ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3), ρ = Δ²/(2σ²) = ``rho``.
    ``pure_epsilon`` is ``math.inf``.

    Parameters
    ----------
    sigma : float
        σ > 0.
    sensitivity : float
        Δ > 0.
    """

    sigma: float
    sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_positive(self.sigma, "sigma"))
        object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))

    @property
    def mu(self) -> float:
        """μ = Δ/σ (Gaussian DP parameter, Dong, Roth & Su 2022, Thm 2.7)."""
        return self.sensitivity / self.sigma

    @property
    def rho(self) -> float:
        """ρ = Δ²/(2σ²): the mechanism is ρ-zCDP (Bun & Steinke 2016, Prop. 1.6)."""
        return _rho(self.sensitivity, self.sigma)

    @property
    def pure_epsilon(self) -> float:
        return math.inf

    def _delta(self, e):
        mu = self.mu
        if mu == 0.0 or mu == math.inf:  # Δ/σ under/overflowed: identical or disjoint outputs in double precision
            return np.full_like(e, 0.0 if mu == 0.0 else 1.0)
        return _gaussian_delta(e, mu)

    def epsilon(self, delta: float) -> float:
        """Smallest ε ≥ 0 with δ(ε) ≤ delta (exact inverse of Balle & Wang 2018, Thm 8; Brent root find).
        ``math.inf`` for delta = 0, and when the answer exceeds the double range (Δ/σ ≳ 1e154)."""
        d = check_delta(delta)
        if d == 0.0:
            return math.inf
        if self._delta(np.array([0.0]))[0] <= d:
            return 0.0
        hi = _zcdp_bracket(self.mu, d, self._delta)
        if hi == math.inf:
            return math.inf
        return _inverse_profile(self._delta, d, 0.0, hi)

    def _sample(self, shape, rng):
        return rng.normal(0.0, self.sigma, size=shape)

    def pdf(self, y, value: float = 0.0):
        """Density φ((y − value)/σ)/σ (+inf at y = value if 1/(σ√(2π)) exceeds the double range, σ ≲ 2e-309)."""
        y = check_real_array(y, "y")
        v, _ = _values_arg(value, integer=False)
        with np.errstate(over="ignore", under="ignore"):  # z² = inf far in the tails: density 0
            z = (y - v[0]) / self.sigma
            return np.exp(-0.5 * z * z) / (self.sigma * math.sqrt(2.0 * math.pi))

    def privacy_loss(self) -> PrivacyLossDistribution:
        """L ~ N(μ²/2, μ²) with μ = Δ/σ (Balle & Wang 2018, Lemma 3; Dong, Roth & Su 2022, §2.3)."""
        m = self.mu
        if m == 0.0 or m == math.inf:  # Δ/σ under/overflowed: L = 0, or L = +∞ (disjoint outputs), surely
            atom = 0.0 if m == 0.0 else math.inf
            return PrivacyLossDistribution(atoms=(atom,), masses=(1.0,), missing_mass=0.0 if m == 0.0 else 1.0,
                                           description="Gaussian with Δ/σ out of double range: a point mass")
        # z = (ℓ − μ²/2)/μ = ℓ/μ − μ/2: no μ² (it overflows for μ ≳ 1.3e154), and ±inf/μ = ±inf (no inf − inf)

        def dens(x):
            with np.errstate(over="ignore", under="ignore"):  # z² = inf far in the tails: density 0
                z = np.asarray(x, dtype=float) / m - m / 2.0
                return np.exp(-0.5 * z * z) / (m * math.sqrt(2.0 * math.pi))

        def csf(t):
            with np.errstate(over="ignore"):
                return special.ndtr(m / 2.0 - np.asarray(t, dtype=float) / m)

        return PrivacyLossDistribution(atoms=(), masses=(), density=dens, continuous_sf=csf,
                                       support=(-math.inf, math.inf), description="Gaussian: L ~ N(μ²/2, μ²)")

    def tradeoff(self, alpha):
        """β(α) = Φ(Φ⁻¹(1 − α) − μ), μ = Δ/σ (Dong, Roth & Su 2022, Def. 2.4 / Thm 2.7: G_μ)."""
        a, scalar = _alpha_arg(alpha)
        with np.errstate(invalid="ignore"):
            # Φ⁻¹(1 − α) as −Φ⁻¹(α) for α < ½: 1 − α rounds to 1 for α < 1.1e-16 (Φ⁻¹ = inf, β = 1 whatever μ)
            upper = np.where(a < 0.5, -special.ndtri(np.minimum(a, 0.5)), special.ndtri(1.0 - np.maximum(a, 0.5)))
            beta = special.ndtr(upper - self.mu)
        return _out(_no_nan(beta, "tradeoff(alpha)", "alpha", alpha), scalar)


# ============================================================================================ randomized response


@dataclasses.dataclass(frozen=True)
class RandomizedResponse(_Mechanism):
    """Binary randomized response: report the true bit with probability p = e^ε/(1 + e^ε), else flip it
    (Warner 1965; Dwork & Roth 2014, §3.2). Neighbours are the two bits 0 and 1. ``pure_epsilon`` = ε.

    Exact profile (the sum over the two outputs of (p_x − e^{ε′}p_x′)_+):

        δ(ε′) = (e^ε − e^{ε′})_+ / (1 + e^ε),   inverse ε′(δ) = max(0, ε + ln(1 − δ(1 + e^{−ε}))).

    ``sample_noise`` returns the flip indicators (1 = the bit was flipped).
    """

    epsilon: float
    _integer_valued = True

    def __post_init__(self):
        eps = check_positive(self.epsilon, "epsilon")
        object.__setattr__(self, "epsilon", _CallableFloat(eps, self._inverse))

    @property
    def keep_probability(self) -> float:
        """p = e^ε/(1 + e^ε) = 1/(1 + e^{−ε})."""
        return 1.0 / (1.0 + math.exp(-float(self.epsilon)))

    @property
    def _flip_probability(self) -> float:
        """1 − p = 1/(1 + e^ε), computed directly (1 − p rounds to 0 for ε ≳ 37, losing the flip mass)."""
        return float(special.expit(-float(self.epsilon)))

    @property
    def pure_epsilon(self) -> float:
        return float(self.epsilon)

    def _delta(self, e):
        eps = float(self.epsilon)
        # (e^ε − e^{ε′})/(1 + e^ε) = (1 − e^{ε′−ε})/(1 + e^{−ε})
        return _nonneg(-np.expm1(np.minimum(e - eps, 0.0)) / (1.0 + math.exp(-eps)))

    def _inverse(self, delta: float = 0.0) -> float:
        """Smallest ε′ with δ(ε′) ≤ delta: max(0, ε + ln(1 − δ(1 + e^{−ε}))) (closed form)."""
        d = check_delta(delta)
        eps = float(self.epsilon)
        arg = d * (1.0 + math.exp(-eps))
        if arg >= 1.0:
            return 0.0
        return _snap_closed_form(self._delta, d, max(0.0, eps + math.log1p(-arg)), eps)

    def release(self, value, rng=None):
        """The reported bit(s): ``value`` (0/1, scalar or array) flipped with probability 1 − p each."""
        v, scalar = _values_arg(value, integer=True)
        if np.any((v != 0) & (v != 1)):
            bad = int(v[(v != 0) & (v != 1)].flat[0])
            raise ValueError(f"value = {bad!r} is not allowed: must be a bit, 0 or 1.")
        out = v ^ self._sample(v.shape, as_rng(rng))
        return int(out[0]) if scalar else out

    def _sample(self, shape, rng):
        return (rng.random(size=shape) >= self.keep_probability).astype(np.int64)

    def pmf(self, k, value: int = 0):
        """P[output = k | true bit = value] on k ∈ {0, 1}."""
        kk = _grid_arg(k, "k")
        v = check_integer(value, "value", minimum=0, maximum=1)
        p, flip = self.keep_probability, self._flip_probability
        return np.where(kk == v, p, np.where((kk == 0) | (kk == 1), flip, 0.0))

    def privacy_loss(self) -> PrivacyLossDistribution:
        """Atoms +ε (mass p, output = true bit) and −ε (mass 1 − p)."""
        eps, p = float(self.epsilon), self.keep_probability
        return PrivacyLossDistribution(atoms=(eps, -eps), masses=(p, self._flip_probability),
                                       description="RR: atoms ±ε")

    def tradeoff(self, alpha):
        """β(α) = max(0, 1 − e^ε α, e^{−ε}(1 − α)): Neyman–Pearson with randomisation, i.e. f_{ε,0} of
        Kairouz, Oh & Viswanath 2015 (Dong, Roth & Su 2022, eq. (5)); vertex at α = β = 1 − p."""
        a, scalar = _alpha_arg(alpha)
        return _out(_discrete_tradeoff(self.privacy_loss(), a), scalar)


# ============================================================================================ exact samplers (CKS 2020)


def bernoulli_exp_neg(gamma, rng=None) -> np.ndarray:
    """Bernoulli(exp(−γ)) for an array of γ ≥ 0, by Algorithm 1 of Canonne, Kamath & Steinke 2020 ("The discrete
    Gaussian for differential privacy"): for γ ∈ [0, 1] draw A_k ~ Bernoulli(γ/k) for k = 1, 2, … until the first
    A_k = 0 and return 1 iff that k is odd; for γ > 1 return 0 unless ⌊γ⌋ draws of Bernoulli(e^{−1}) (the same
    procedure) all give 1, then finish with Bernoulli(e^{−(γ−⌊γ⌋)}).

    Vectorised: every element runs its own rejection chain; numpy advances all unfinished chains together. The
    only floating-point step is ``U < γ/k`` with U uniform in [0, 1) (CKS use exact rationals; the algorithmic
    structure, and hence the distribution up to double rounding of γ/k, is theirs).
    """
    g = np.atleast_1d(check_real_array(gamma, "gamma"))
    if np.any(g < 0):
        raise ValueError(f"gamma = {float(g[g < 0][0])!r} is not allowed: must be >= 0.")
    return _bernoulli_exp_neg(g.astype(float), as_rng(rng))


def _bernoulli_exp_neg(g: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """:func:`bernoulli_exp_neg` on a validated float array γ ≥ 0; γ = +inf is allowed (the answer is then 0:
    γ is capped at 2^62, beyond which the answer is 0 w.p. 1 − e^{−2^62})."""
    flat = np.minimum(g.ravel(), 2.0**62)
    out = np.ones(flat.shape, dtype=bool)
    fl = np.floor(flat)
    whole = fl.astype(np.int64)
    frac = flat - fl
    # ⌊γ⌋ Bernoulli(e^{-1}) trials, all must succeed
    alive = np.nonzero(whole > 0)[0]
    j = 0
    while alive.size:
        j += 1
        ok = _bern_exp_small(np.ones(alive.size), rng)
        out[alive[~ok]] = False
        alive = alive[ok & (whole[alive] > j)]
    idx = np.nonzero(out)[0]
    if idx.size:
        out[idx] = _bern_exp_small(frac[idx], rng)
    return out.reshape(g.shape)


def _bern_exp_small(g: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """CKS Algorithm 1 for γ ∈ [0, 1], vectorised."""
    k = np.ones(g.shape, dtype=np.int64)
    active = np.arange(g.size)
    while active.size:
        a = rng.random(active.size) < g[active] / k[active]
        k[active[a]] += 1
        active = active[a]
    return (k % 2) == 1


def _geometric_exp1(n: int, rng) -> np.ndarray:
    """V ~ Geometric with P[V = v] = (1 − e^{−1}) e^{−v}: count Bernoulli(e^{−1}) successes before the first failure
    (CKS 2020, Algorithm 2, step 6)."""
    v = np.zeros(n, dtype=np.int64)
    active = np.arange(n)
    while active.size:
        ok = _bern_exp_small(np.ones(active.size), rng)
        v[active[ok]] += 1
        active = active[ok]
    return v


def _dlap_batch(t: int, n: int, rng, s: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """One batch of CKS Algorithm 2 for the scale t/s (integers, t ≥ 1): U uniform on {0..t−1} kept with
    Bernoulli(e^{−U/t}), V ~ Geometric(1 − e^{−1}), X = U + tV, Y = ⌊X/s⌋, random sign B, reject (B = 1, Y = 0).
    Returns (candidates, accepted mask)."""
    u = rng.integers(0, t, size=n)
    d = _bern_exp_small(u / t, rng) if t > 1 else np.ones(n, dtype=bool)
    v = _geometric_exp1(n, rng)
    y = (u + t * v) // s
    b = rng.random(n) < 0.5
    return np.where(b, -y, y), d & ~(b & (y == 0))


def _scale_as_fraction(scale: float) -> tuple[int, int]:
    """scale = t/s exactly (a double is a dyadic rational); denominators beyond 2^55 (scales below ~2^−3) are
    replaced by the best rational with denominator ≤ 2^55, which differs from the double by far less than its own
    rounding (|error| < 2^−110)."""
    f = Fraction(scale)
    if f.denominator > 2**55:
        f = f.limit_denominator(2**55)
    return f.numerator, f.denominator


def _rejection(batch: Callable[[int], tuple[np.ndarray, np.ndarray]], n: int, rate: float) -> np.ndarray:
    """Batch rejection: draw candidates in batches sized by the running acceptance rate and keep the accepted ones
    in order (the first n accepted of an i.i.d. stream are i.i.d. from the target)."""
    got: list[np.ndarray] = []
    have = tried = 0
    while have < n:
        need = n - have
        m = int(need / rate * 1.1) + 16
        cand, ok = batch(m)
        acc = cand[ok]
        got.append(acc)
        have += acc.size
        tried += m
        rate = max(have / tried, 0.02)
    return np.concatenate(got)[:n] if got else np.zeros(0, dtype=np.int64)


_MAX_SAMPLER_SCALE = 1e15  # integer samples stay far inside int64 (tails beyond 9e18 have probability < e^-9000)


def _check_sampler_scale(value, name: str) -> float:
    x = check_positive(value, name)
    if x > _MAX_SAMPLER_SCALE:
        raise ValueError(f"{name} = {value!r} is not allowed for integer sampling: must be a number in "
                         f"(0, {_MAX_SAMPLER_SCALE:g}] (larger noise would overflow 64-bit integers).")
    return x


def sample_discrete_laplace(scale: float, size=None, rng=None):
    """Exact sample of the discrete Laplace law P[Y = y] ∝ e^{−|y|/scale} on ℤ.

    Canonne, Kamath & Steinke 2020, Algorithm 2, with the scale written as a fraction t/s (a double is a dyadic
    rational; s = 1 for an integer scale): U uniform on {0..t−1} accepted with Bernoulli(e^{−U/t}) (Algorithm 1),
    V ~ Geometric(1 − e^{−1}) (Algorithm 1), X = U + tV, Y = ⌊X/s⌋, random sign, reject −0. All of it is integer
    arithmetic except the comparison inside Algorithm 1 (see :func:`bernoulli_exp_neg`). Batch rejection in numpy.
    """
    s = _check_sampler_scale(scale, "scale")
    shape, scalar = _size_arg(size)
    rng = as_rng(rng)
    n = int(np.prod(shape))
    if s < _POINT_MASS_SCALE:
        # P[Y ≠ 0] = 2e^{−1/s}/(1 + e^{−1/s}) < 1e-434: below every double, the law is the point mass at 0
        # (and t/s would round to 0/1 for s < 2^−55, leaving Algorithm 2 nothing to draw from)
        out = np.zeros(shape, dtype=np.int64)
    else:
        t, q = _scale_as_fraction(s)
        out = _rejection(lambda m: _dlap_batch(t, m, rng, q), n, 0.5)
        out = out.astype(np.int64).reshape(shape)
    return int(out.ravel()[0]) if scalar else out


_POINT_MASS_SCALE = 1e-3


def sample_discrete_gaussian(sigma: float, size=None, rng=None):
    """Exact sample of the discrete Gaussian P[Y = y] ∝ e^{−y²/(2σ²)} on ℤ (Canonne, Kamath & Steinke 2020,
    Algorithm 3): t = ⌊σ⌋ + 1, Y ~ discrete Laplace(t) (Algorithm 2), accept with Bernoulli(exp(−γ)),
    γ = (|Y| − σ²/t)²/(2σ²) (Algorithm 1). γ is computed in floating point (CKS use rationals); the structure and
    the accept/reject logic are theirs. Batch rejection in numpy (expected acceptance ≥ ~0.5)."""
    sg = _check_sampler_scale(sigma, "sigma")
    shape, scalar = _size_arg(size)
    rng = as_rng(rng)
    n = int(np.prod(shape))
    t = int(math.floor(sg)) + 1
    s2 = sg * sg

    def batch(m):
        y, ok = _dlap_batch(t, m, rng)
        y = y[ok]
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            num = (np.abs(y) - s2 / t) ** 2
            # σ ≲ 1e-154: 2σ² is 0 or subnormal; γ = num/(2σ²) is then 0 at y = 0 (num = 0) and +inf elsewhere,
            # i.e. the point mass at 0 that the discrete Gaussian is at such σ
            gam = np.where(num == 0, 0.0, num / (2.0 * s2))
        return y, _bernoulli_exp_neg(gam, rng)

    out = _rejection(batch, n, 0.25).astype(np.int64).reshape(shape)
    return int(out.ravel()[0]) if scalar else out


# ============================================================================================ discrete mechanisms


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
    return check_integer(value, "sensitivity", minimum=1, maximum=MAX_DISCRETE_SENSITIVITY)


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
    2020, Def. 1). ρ = Δ²/(2σ²)-zCDP (CKS 2020, Thm 14); ``pure_epsilon`` = inf; integer sensitivity Δ.

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
        """ρ = Δ²/(2σ²): the mechanism is ρ-zCDP (CKS 2020, Thm 14)."""
        return _rho(self.sensitivity, self.sigma)

    @property
    def pure_epsilon(self) -> float:
        return math.inf

    @property
    def _window(self) -> int:
        return int(math.ceil(self.sigma * math.sqrt(2.0 * math.log(1e30)))) + 1

    def _check_size(self) -> int:
        """The window W, after refusing (σ, Δ) whose exact sums would need more than ``_MAX_DG_TERMS`` terms."""
        c = math.sqrt(2.0 * math.log(1e30))
        dlt = self.sensitivity
        w = self._window if self.sigma * c < _MAX_DG_TERMS else _MAX_DG_TERMS  # no ceil(inf) for σ near 1e308
        if w + dlt > _MAX_DG_TERMS:
            raise ValueError(f"sigma = {self.sigma!r} with sensitivity = {dlt!r} is too large for the exact "
                             f"discrete-Gaussian sums: must have {c:.4g}·sigma + sensitivity <= {_MAX_DG_TERMS - 2:g} "
                             "(use Gaussian for a continuous proxy).")
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
        zCDP bound ρ + 2√(ρ ln(1/δ)), CKS 2020 Thm 14 + Bun & Steinke 2016 Prop. 1.3)."""
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
    """κ(ε, δ) = 1 + ⌈ln(1/δ)/ε⌉ (natural log; Definition 8 of 000_eed7e3c6d3636c79, "User-level DP with few
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
    """Shifted truncated discrete Laplace TDLap(ε, δ) (Definition 8 of 000_eed7e3c6d3636c79.txt): support
    {0, 1, …, 2κ} (2κ + 1 points, inclusive), pmf ∝ e^{−ε|r − κ|}, κ = 1 + ⌈ln(1/δ)/ε⌉ (natural log).

    **κ convention.** κ is computed from the (ε, δ) *given to this class*. Algorithm 1 (DelStab) of 000 calls it with
    ε̄ = ε/3 and δ̄ = δ/(e^{2ε̄} + e^{ε̄} + 2), the value the privacy proof (Lemma 18) needs; the printed
    δ/(e^{2ε̄} + e^{ε} + 2) mixes ε̄ and ε and is smaller, hence also valid (digest pitfall 6). So the caller passes
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
        if 1.0 / e > _MAX_SAMPLER_SCALE:
            raise ValueError(f"epsilon = {e!r} is not allowed for sampling TDLap: must be >= "
                             f"{1 / _MAX_SAMPLER_SCALE:g} (κ and the noise would overflow 64-bit integers).")

        def batch(m):
            y = sample_discrete_laplace(1.0 / e, size=m, rng=rng)
            return y, np.abs(y) <= k

        return _rejection(batch, n, 0.5).astype(np.int64).reshape(shape)

    def sample(self, size=None, rng=None):
        """R ~ TDLap(ε, δ) on {0, …, 2κ} (ALG-1 of the digest), i.e. ``sample_noise + κ``."""
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


# ============================================================================================ exponential mechanism


def exponential_mechanism_probabilities(scores, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """P(i) = exp(ε u_i/(2Δ)) / Σ_j exp(ε u_j/(2Δ)) for utilities u (higher is better) (McSherry & Talwar 2007;
    Dwork & Roth 2014, Def. 3.4). Computed with a log-sum-exp (``scipy.special.softmax``), exact to rounding.
    (000's Theorem 9 writes the same with losses: exp(−ε·scr/(2Δ)).)

    >>> exponential_mechanism_probabilities([0.0, 0.0], 1.0).tolist()
    [0.5, 0.5]
    """
    u = check_real_array(scores, "scores", ndim=1)
    eps = check_positive(epsilon, "epsilon")
    s = check_positive(sensitivity, "sensitivity")
    with np.errstate(over="ignore", invalid="ignore"):
        logits = eps * u / (2.0 * s)
        if not np.all(np.isfinite(logits)):  # ε u/(2Δ) overflowed: shift by max u first, then 0·∞ := 0
            z = u - u.max()  # ≤ 0 (−inf if the spread overflows: those get probability 0)
            logits = np.where(z == 0, 0.0, (eps / (2.0 * s)) * z)
    return special.softmax(logits)


def exponential_mechanism(scores, epsilon: float, sensitivity: float = 1.0, rng=None) -> int:
    """Sample index i with probability :func:`exponential_mechanism_probabilities` (McSherry & Talwar 2007)."""
    p = exponential_mechanism_probabilities(scores, epsilon, sensitivity)
    g = as_rng(rng)
    return int(min(np.searchsorted(np.cumsum(p), g.random(), side="right"), p.size - 1))
