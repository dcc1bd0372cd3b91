"""Privacy events: what an accountant composes.

Mechanisms of :mod:`dpviz.mechanisms` (``Laplace``, ``Gaussian``, ``RandomizedResponse``, ``DiscreteLaplace``,
``DiscreteGaussian``, ``TruncatedDiscreteLaplace``) are events as they are. For everything else there are generic,
immutable descriptions:

* :class:`PureDP` (ε) — any ε-DP mechanism;
* :class:`ApproxDP` (ε, δ) — any (ε, δ)-DP mechanism;
* :class:`ZCDP` (ρ) — any ρ-zCDP mechanism (Bun & Steinke 2016, Definition 1.1);
* :class:`PoissonSampled` (mechanism, rate) — run the mechanism on a Poisson sample (each record kept independently
  with probability ``rate``); amplification is analysed for **add/remove** neighbours;
* :class:`SampledWithoutReplacement` (mechanism, sample_size, population) — run the mechanism on a uniformly random
  subset of exactly ``sample_size`` of the ``population`` records; amplification is analysed for **substitution**
  (replace-one) neighbours, Theorem 7 of 000_eed7e3c6d3636c79 ([BBG18]): ε′ = ln(1 + η(e^ε − 1)), δ′ = ηδ, η = n/n′.

Neighbouring relation (the ``neighboring`` argument of every accountant)
-------------------------------------------------------------------------
``"add_remove"`` (default): two datasets are neighbours when one is the other plus one record. It protects the
*presence* of a person in the data; the dataset size itself is not secret.
``"replace_one"``: neighbours have the same size and differ in one record. It protects the *value* of a person's
record, with the dataset size public. Add/remove implies replace-one with twice the parameters (group of 2), not
conversely.

**Sensitivity convention.** A mechanism's ``sensitivity`` is how much the query can move between neighbours *under
the relation you chose*; no accountant rescales it. Whether it doubles from add/remove to replace-one depends on the
query: a count has sensitivity 1 under both, a sum of values clipped to [−C, C] (or to norm C) has sensitivity C under
add/remove and 2C under replace-one, a mean over a public size n has 2C/n under replace-one. dp-accounting's
``GaussianDpEvent(noise_multiplier)`` hard-codes the clipped-sum case (its replace-one analysis uses sensitivity 2);
the dpviz equivalent is ``Gaussian(sigma, sensitivity=2.0)`` with ``neighboring="replace_one"``. Randomized response
answers one bit about a person; the bit flips between neighbours under either relation, so its analysis is the same.

Subsampling is where the relation really matters: Poisson subsampling is analysed for add/remove (a record is in or
out of the sample independently), sampling a fixed-size subset without replacement for replace-one (the dataset size
must be fixed and known). Accountants refuse the other combinations with a ValueError that says so (see digest
pitfall 10 of spec/user-level-few-examples.md: do not use Poisson formulas for substitution neighbours).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, Callable

import numpy as np
from scipy import special

from dpviz import mechanisms as _m
from dpviz._validation import check_delta, check_in_range, check_integer, check_positive
from dpviz.conversions import zcdp_delta, zcdp_to_approx_dp

__all__ = [
    "NEIGHBORING",
    "PureDP",
    "ApproxDP",
    "ZCDP",
    "PoissonSampled",
    "SampledWithoutReplacement",
    "amplify_poisson",
    "amplify_without_replacement",
    "is_event",
]

NEIGHBORING = ("add_remove", "replace_one")

MECHANISM_TYPES = (
    _m.Laplace,
    _m.Gaussian,
    _m.RandomizedResponse,
    _m.DiscreteLaplace,
    _m.DiscreteGaussian,
    _m.TruncatedDiscreteLaplace,
)


@dataclasses.dataclass(frozen=True)
class PureDP:
    """Any ε-DP mechanism: P[M(x) ∈ S] ≤ e^ε P[M(x′) ∈ S] for all neighbours x, x′ and sets S (Dwork & Roth 2014,
    Definition 2.4). Its worst case, for every accountant here, is randomized response with the same ε.

    >>> PureDP(1.0)
    PureDP(epsilon=1.0)
    """

    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_positive(self.epsilon, "epsilon", allow_zero=True))


@dataclasses.dataclass(frozen=True)
class ApproxDP:
    """Any (ε, δ)-DP mechanism: P[M(x) ∈ S] ≤ e^ε P[M(x′) ∈ S] + δ (Dwork & Roth 2014, Definition 2.4).
    Its worst case (Kairouz, Oh & Viswanath 2015) reveals everything with probability δ and otherwise runs
    randomized response with parameter ε.

    >>> ApproxDP(1.0, 1e-6).delta
    1e-06
    """

    epsilon: float
    delta: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_positive(self.epsilon, "epsilon", allow_zero=True))
        object.__setattr__(self, "delta", check_delta(self.delta))


@dataclasses.dataclass(frozen=True)
class ZCDP:
    """Any ρ-zCDP mechanism: D_α(M(x) ‖ M(x′)) ≤ ρα for every α > 1 (Bun & Steinke 2016, Definition 1.1).

    >>> ZCDP(0.5).rho
    0.5
    """

    rho: float

    def __post_init__(self):
        object.__setattr__(self, "rho", check_positive(self.rho, "rho", allow_zero=True))


def is_event(obj: Any) -> bool:
    """True for every object an accountant may be asked about (it may still not support it)."""
    return isinstance(obj, MECHANISM_TYPES + (PureDP, ApproxDP, ZCDP, PoissonSampled, SampledWithoutReplacement))


def _check_event(obj: Any, name: str) -> Any:
    if not is_event(obj):
        raise ValueError(
            f"{name} = {obj!r} is not allowed: must be a dpviz mechanism (Laplace, Gaussian, RandomizedResponse, "
            "DiscreteLaplace, DiscreteGaussian, TruncatedDiscreteLaplace) or an event (PureDP, ApproxDP, ZCDP, "
            "PoissonSampled, SampledWithoutReplacement)."
        )
    return obj


@dataclasses.dataclass(frozen=True)
class PoissonSampled:
    """Run ``mechanism`` on a Poisson sample of the data: each record is kept independently with probability
    ``rate`` (q). Analysed for add/remove neighbours, where the pair (M(x), M(x′)) of the subsampled mechanism is
    dominated by ((1−q)Q + qP, Q) when removing and (Q, (1−q)Q + qP) when adding, (P, Q) dominating the
    mechanism's own pair (Zhu, Dong & Wang 2022, Proposition 30; Balle, Barthe & Gaboardi 2018, Theorem 8 for the
    (ε, δ) form ε′ = ln(1 + q(e^ε − 1)), δ′ = qδ).

    >>> PoissonSampled(PureDP(1.0), 0.5).rate
    0.5
    >>> PoissonSampled(PureDP(1.0), 0.0)
    Traceback (most recent call last):
    ...
    ValueError: rate = 0.0 is not allowed: must be a number in (0, 1].
    """

    mechanism: Any
    rate: float

    def __post_init__(self):
        _check_event(self.mechanism, "mechanism")
        object.__setattr__(self, "rate", check_in_range(self.rate, "rate", 0.0, 1.0, low_inclusive=False))


@dataclasses.dataclass(frozen=True)
class SampledWithoutReplacement:
    """Run ``mechanism`` on ``sample_size`` (n) records drawn uniformly without replacement from the
    ``population`` (n′ ≥ n) records of the dataset. For substitution (replace-one) neighbours, an (ε, δ)-DP
    mechanism becomes (ln(1 + η(e^ε − 1)), ηδ)-DP with η = n/n′ (Theorem 7 of 000_eed7e3c6d3636c79, from [BBG18];
    digest pitfall 10: this is the fixed-size, substitution result, not the Poisson one).

    >>> SampledWithoutReplacement(PureDP(1.0), 10, 100).eta
    0.1
    """

    mechanism: Any
    sample_size: int
    population: int

    def __post_init__(self):
        _check_event(self.mechanism, "mechanism")
        n_pop = check_integer(self.population, "population", minimum=1)
        n = check_integer(self.sample_size, "sample_size", minimum=1, maximum=n_pop)
        object.__setattr__(self, "population", n_pop)
        object.__setattr__(self, "sample_size", n)

    @property
    def eta(self) -> float:
        """The sampling fraction η = n/n′."""
        return self.sample_size / self.population


def amplify_poisson(epsilon: float, delta: float, rate: float) -> tuple[float, float]:
    """(ε, δ) → (ln(1 + q(e^ε − 1)), qδ): Poisson subsampling with rate q under add/remove neighbours
    (Balle, Barthe & Gaboardi 2018, Theorem 8; Li, Qardaji & Su 2012).

    >>> eps, d = amplify_poisson(1.0, 1e-6, 0.1)
    >>> round(eps, 6), d
    (0.158565, 1e-07)
    """
    eps = check_positive(epsilon, "epsilon", allow_zero=True, allow_inf=True)
    delta = check_delta(delta)
    q = check_in_range(rate, "rate", 0.0, 1.0, low_inclusive=False)
    return _amplify(eps, delta, q)


def amplify_without_replacement(epsilon: float, delta: float, sample_size: int, population: int) -> tuple[float, float]:
    """(ε, δ) → (ln(1 + η(e^ε − 1)), ηδ) with η = n/n′: sampling n of n′ records without replacement, substitution
    neighbours (Theorem 7 of 000_eed7e3c6d3636c79).

    >>> eps, d = amplify_without_replacement(1.0, 1e-6, 10, 100)
    >>> round(eps, 6), d
    (0.158565, 1e-07)
    """
    eps = check_positive(epsilon, "epsilon", allow_zero=True, allow_inf=True)
    delta = check_delta(delta)
    n_pop = check_integer(population, "population", minimum=1)
    n = check_integer(sample_size, "sample_size", minimum=1, maximum=n_pop)
    return _amplify(eps, delta, n / n_pop)


def _amplify(eps: float, delta: float, eta: float) -> tuple[float, float]:
    if eta == 1.0 or eps == math.inf:
        return (eps if eta == 1.0 else math.inf), eta * delta
    return _amplified_eps(eps, eta), eta * delta


def _amplified_eps(eps: float, eta: float) -> float:
    """ln(1 + η(e^ε − 1)) without overflow: log1p(η·expm1(ε)) for ε ≤ 1 (stable for small ε and small η), and
    ε + ln(η + (1 − η)e^{−ε}) above (e^ε would overflow for ε > 709)."""
    if eps <= 1.0:
        return math.log1p(eta * math.expm1(eps))
    return eps + math.log(eta + (1.0 - eta) * math.exp(-eps))


def _deamplified_eps(eps_prime: float, eta: float) -> float:
    """The inverse of :func:`_amplified_eps`: the ε with ln(1 + η(e^ε − 1)) = ε′, i.e. ln(1 + (e^{ε′} − 1)/η),
    without overflow (ε′ + ln((1 − e^{−ε′}(1 − η))/η) for ε′ > 1)."""
    if eta == 1.0 or eps_prime == math.inf:
        return eps_prime
    if eps_prime <= 1.0:
        x = math.expm1(eps_prime) / eta
        return math.log1p(x) if x < 1e300 else math.log(math.expm1(eps_prime)) - math.log(eta)
    return eps_prime + math.log1p(-(1.0 - eta) * math.exp(-eps_prime)) - math.log(eta)


def _amplified_delta_curve(delta_of_eps: Callable[[float], float], eta: float) -> Callable[[float], float]:
    """δ′(ε′) = η·δ(ln(1 + (e^{ε′} − 1)/η)): the exact inverse of the amplified curve ε′(δ′) = ln(1 + η(e^{ε(δ′/η)} − 1))
    (the amplification theorems hold for every (ε, δ) pair the mechanism satisfies, so they transform the whole
    privacy profile)."""

    def curve(eps_prime: float) -> float:
        return min(1.0, eta * delta_of_eps(_deamplified_eps(eps_prime, eta)))

    return curve


def _amplified_many(eps_many: Callable[[np.ndarray], np.ndarray], eta: float, deltas: np.ndarray) -> np.ndarray:
    """ε′(δ′) = ln(1 + η(e^{ε(δ′/η)} − 1)) for an array of δ′ (0 where δ′/η ≥ 1)."""
    with np.errstate(over="ignore"):
        d = np.asarray(deltas, dtype=float) / eta
    out = np.zeros(d.shape)
    m = d < 1.0
    if np.any(m):
        e = eps_many(d[m])
        with np.errstate(over="ignore", under="ignore"):
            small = np.log1p(eta * np.expm1(np.minimum(e, 1.0)))
            large = e + np.log(eta + (1.0 - eta) * np.exp(-np.maximum(e, 1.0)))
            out[m] = np.where(np.isinf(e), np.inf, np.where(e <= 1.0, small, large))
    return out


def gaussian_epsilon_many(mu: float, deltas, upper=None) -> np.ndarray:
    """ε(δ) of the Gaussian mechanism with μ = Δ/σ for an array of δ ∈ (0, 1): the exact inverse of the Balle–Wang
    profile (Balle & Wang 2018, Theorem 8; :func:`dpviz.mechanisms.gaussian_delta`) by a vectorised root search on
    [0, ρ + 2√(ρ ln(1/δ))] (the zCDP bound, Bun & Steinke 2016, Prop. 1.3, ρ = μ²/2) by safeguarded Newton steps on
    ln δ(ε) that keep a feasible upper end (bisection when a step leaves the bracket), run until the step is a
    few ulps (``upper``, an optional known ε ≥ the answer such as ε at a smaller δ, is used as the starting
    point when it is feasible): each ε returned satisfies δ(ε) ≤ δ and is within ~1e-15
    relative of :meth:`dpviz.mechanisms.Gaussian.epsilon` (tested), at a fraction of the cost of one root find per δ.

    >>> from dpviz.mechanisms import Gaussian
    >>> e = gaussian_epsilon_many(0.5, [1e-5, 1e-3])
    >>> bool(abs(e[0] - Gaussian(2.0).epsilon(1e-5)) < 1e-12), bool(abs(e[1] - Gaussian(2.0).epsilon(1e-3)) < 1e-12)
    (True, True)
    """
    d = np.atleast_1d(np.asarray(deltas, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore", under="ignore", over="ignore"):
        return _gaussian_epsilon_many(float(mu), d, upper)


_SQRT2 = math.sqrt(2.0)


def _gdelta(e: np.ndarray, mu: float) -> np.ndarray:
    """The Balle–Wang δ(ε) exactly as :func:`dpviz.mechanisms.gaussian_delta` (same cancellation-free branches),
    without its per-call validation and error-state switching (the caller sets the error state once)."""
    x1 = e / mu - mu / 2.0
    x2 = e / mu + mu / 2.0
    g = 0.5 * np.exp(-0.5 * x1 * x1)
    c2 = special.erfcx(x2 / _SQRT2)
    out = np.where(x1 > 0, g * (special.erfcx(x1 / _SQRT2) - c2), special.ndtr(-x1) - g * c2)
    return np.clip(out, 0.0, 1.0)


def _gdelta1(e: float, mu: float) -> float:
    """Scalar :func:`_gdelta` (same branches), for the one-δ calls of an optimiser's inner loop."""
    x1 = e / mu - mu / 2.0
    x2 = e / mu + mu / 2.0
    g = 0.5 * math.exp(-0.5 * x1 * x1)
    c2 = float(special.erfcx(x2 / _SQRT2))
    out = g * (float(special.erfcx(x1 / _SQRT2)) - c2) if x1 > 0 else float(special.ndtr(-x1)) - g * c2
    return min(max(out, 0.0), 1.0)


def _gaussian_epsilon_one(mu: float, d: float, upper=None) -> float:
    """Scalar version of :func:`_gaussian_epsilon_many` (same iteration, plain floats)."""
    if _gdelta1(0.0, mu) <= d:
        return 0.0
    rho = 0.5 * mu * mu
    hi = rho + 2.0 * math.sqrt(rho * -math.log(d))  # −ln d: 1/d overflows for subnormal d
    if upper is not None and upper < hi and _gdelta1(float(upper), mu) <= d:
        hi = float(upper)
    d_hi = _gdelta1(hi, mu)
    while d_hi > d:
        hi *= 2.0
        d_hi = _gdelta1(hi, mu)
    lo, log_d = 0.0, math.log(d)
    for _ in range(200):
        x1, x2 = hi / mu - mu / 2.0, hi / mu + mu / 2.0
        slope = 0.5 * math.exp(-0.5 * x1 * x1) * float(special.erfcx(x2 / _SQRT2))
        x = hi + (math.log(d_hi) - log_d) * d_hi / slope if (d_hi > 0 and slope > 0) else math.nan
        newton_ok = math.isfinite(x) and lo < x <= hi
        if (newton_ok and hi - x <= 4e-15 * hi) or hi - lo <= 4e-15 * hi:
            break
        if newton_ok and hi - x <= 1e-7 * hi:
            x = min(x * (1.0 + 2e-15), hi)
        if not (newton_ok and x < hi):
            x = 0.5 * (lo + hi)
        d_x = _gdelta1(x, mu)
        if d_x <= d:
            hi, d_hi = x, d_x
        else:
            lo = x
    return hi


def _gaussian_epsilon_many(mu: float, d: np.ndarray, upper=None) -> np.ndarray:
    if d.size == 1:
        u = None if upper is None else float(np.asarray(upper, dtype=float).ravel()[0])
        return np.array([_gaussian_epsilon_one(mu, float(d.ravel()[0]), u)]).reshape(d.shape)
    rho = 0.5 * mu * mu
    hi = rho + 2.0 * np.sqrt(rho * -np.log(d))
    if upper is not None:  # a warm start, used only where it is feasible and tighter
        up = np.broadcast_to(np.asarray(upper, dtype=float), hi.shape)
        hi = np.where((up < hi) & (_gdelta(up, mu) <= d), up, hi)
    d_hi = _gdelta(hi, mu)
    while np.any(d_hi > d):  # never needed in exact arithmetic; guards rounding
        hi = np.where(d_hi > d, 2.0 * hi, hi)
        d_hi = _gdelta(hi, mu)
    lo = np.zeros_like(hi)
    zero = _gdelta(lo, mu) <= d
    log_d = np.log(d)
    for _ in range(200):
        # Newton on ln δ(ε) from the feasible end: δ'(ε) = −e^ε Φ(−ε/μ − μ/2) = −½ e^{−x₁²/2} erfcx(x₂/√2)
        x1, x2 = hi / mu - mu / 2.0, hi / mu + mu / 2.0
        slope = 0.5 * np.exp(-0.5 * x1 * x1) * special.erfcx(x2 / _SQRT2)
        x = hi + (np.log(d_hi) - log_d) * d_hi / slope
        newton_ok = np.isfinite(x) & (x > lo) & (x <= hi)
        # done where the Newton step from the feasible end is below a few ulps, or the bracket is that narrow
        done = zero | (newton_ok & (hi - x <= 4e-15 * hi)) | (hi - lo <= 4e-15 * hi)
        if done.all():
            break
        # ln δ is concave, so Newton from the feasible end stays feasible; once converged (quadratically) the
        # point is the root up to rounding: nudge it 2e-15 up so that rounding cannot make it infeasible
        x = np.where(hi - x <= 1e-7 * hi, np.minimum(x * (1.0 + 2e-15), hi), x)
        x = np.where(newton_ok & (x < hi), x, 0.5 * (lo + hi))
        d_x = _gdelta(x, mu)
        ok = d_x <= d
        hi, d_hi = np.where(ok, x, hi), np.where(ok, d_x, d_hi)
        lo = np.where(ok, lo, x)
    return np.where(zero, 0.0, hi)


# ---------------------------------------------------------------------------------------------------------------
# (ε, δ) descriptions used by the classic accountants (basic, advanced, optimal).
# ---------------------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class EpsDeltaProfile:
    """How an event enters an (ε, δ) composition theorem: either a ``fixed`` pair (ε_i, δ_i), or a privacy
    ``curve`` δ ↦ ε_i(δ) (the event satisfies (ε_i(δ), δ)-DP for every δ ∈ (0, 1)) together with its exact inverse
    ``delta_of`` ε ↦ δ_i(ε) and its limit ``at_zero`` = lim_{δ→0} ε_i(δ) (∞ for every curve with ρ > 0)."""

    fixed: tuple[float, float] | None = None
    curve: Callable[[float], float] | None = None
    curve_many: Callable[[np.ndarray], np.ndarray] | None = None
    delta_of: Callable[[float], float] | None = None
    at_zero: float = math.inf

    def eps_many(self, deltas, upper=None) -> np.ndarray:
        """ε_i(δ) for an array of δ (vectorised when the event provides it, else one call per δ): δ ≤ 0 (a share
        that underflowed) gives the limit ``at_zero``, δ ≥ 1 gives 0. ``upper`` (an ε known to be ≥ the answer) is
        a warm start for the plain Gaussian, ignored otherwise."""
        d = np.asarray(deltas, dtype=float)
        inside = (d > 0.0) & (d < 1.0)
        if not inside.all():
            out = np.where(d <= 0.0, self.at_zero, 0.0)
            if inside.any():
                out[inside] = self.eps_many(d[inside])
            return out
        if self.curve_many is not None:
            if upper is not None and isinstance(self.curve_many, functools.partial) \
                    and self.curve_many.func is gaussian_epsilon_many:
                return self.curve_many(d, upper)
            return self.curve_many(d)
        return np.array([self.curve(float(x)) for x in d.ravel()], dtype=float).reshape(d.shape)


def _constant_profile(eps: float, delta: float) -> EpsDeltaProfile:
    """A curve that is flat: ε(δ) = ``eps`` for every δ ∈ (0, 1), δ(ε) = ``delta`` below ``eps`` and 0 from it on
    (used for a Gaussian whose Δ/σ under- or overflowed: 0 and ∞, as :class:`dpviz.mechanisms.Gaussian` does)."""
    return EpsDeltaProfile(curve=lambda d: eps, curve_many=lambda d: np.full(np.shape(d), eps),
                           delta_of=lambda e: 0.0 if e >= eps else delta, at_zero=eps)


#: Most loss atoms :func:`_dgauss_profile` tabulates (σ up to ~2500); beyond, ε(δ) is the mechanism's own root find.
_DG_ATOMS_CAP = 200_000


def _dgauss_profile(event) -> EpsDeltaProfile:
    """The discrete Gaussian's exact profile: δ(ε) from the mechanism (:meth:`dpviz.mechanisms.DiscreteGaussian.delta`),
    ε(δ) solved exactly between the loss atoms L(k) = (Δ² − 2kΔ)/(2σ²) with masses p(k) (the mechanism's
    ``pmf``) by :func:`dpviz.accountants.pld.atoms_epsilon` — the same sum, inverted in closed form, ~100× faster
    than a root find per δ (the advanced and optimal accountants ask for hundreds of δ's). Outputs k < −K,
    K = ⌈38.6σ⌉ + Δ + 2, carry less than e^{−745} of mass (below the smallest double); it is added to the +∞ atom
    as 5e-324, so the answer stays an upper bound. Outputs above the table have L < 0 and never count."""
    sigma, dlt = float(event.sigma), int(event.sensitivity)
    if 1.0 / sigma == math.inf:  # the noise is a point mass: disjoint laws
        return _constant_profile(math.inf, 1.0)
    delta_of = lambda e, m=event: float(m.delta(e))  # noqa: E731
    if 77.2 * sigma + 3 * dlt + 5 > _DG_ATOMS_CAP:  # (checked before ⌈38.6σ⌉, which σ = 1e308 would overflow)
        return EpsDeltaProfile(curve=lambda d, m=event: float(m.epsilon(d)), delta_of=delta_of)
    big_k = math.ceil(38.6 * sigma) + dlt + 2
    from dpviz.accountants.pld import atoms_epsilon  # (pld imports this module)

    k = np.arange(big_k + dlt, -big_k - 1, -1, dtype=float)  # descending k: ascending loss
    with np.errstate(over="ignore", under="ignore"):
        p = np.asarray(event.pmf(k), dtype=float)
        losses = 0.5 * (dlt / sigma) * ((dlt - 2.0 * k) / sigma)
    keep = (p > 0) & np.isfinite(losses)
    losses, p = losses[keep], p[keep]

    def many(d: np.ndarray) -> np.ndarray:
        d = np.asarray(d, dtype=float)
        out = [atoms_epsilon(losses, p, 5e-324, float(x)) for x in d.ravel()]
        return np.array(out, dtype=float).reshape(d.shape)

    return EpsDeltaProfile(curve=lambda d: float(many(np.array([d]))[0]), curve_many=many, delta_of=delta_of)


def _gaussian_profile(event) -> EpsDeltaProfile:
    mu = event.mu
    if mu == 0.0:
        return _constant_profile(0.0, 0.0)
    if mu == math.inf:
        return _constant_profile(math.inf, 1.0)
    return EpsDeltaProfile(curve=lambda d, m=event: float(m.epsilon(d)),
                           curve_many=functools.partial(gaussian_epsilon_many, mu),
                           delta_of=lambda e, m=event: float(m.delta(e)))


def unsupported_reason_subsampling(event: Any, neighboring: str) -> str | None:
    """Why ``event`` cannot be analysed under ``neighboring`` (None when it can): the subsampling/relation rule."""
    if isinstance(event, PoissonSampled):
        if neighboring != "add_remove":
            return (
                "Poisson subsampling is analysed for add/remove neighbours; with neighboring='replace_one' use "
                "SampledWithoutReplacement (Theorem 7 of 000_eed7e3c6d3636c79) or an add/remove accountant"
            )
        if isinstance(event.mechanism, (PoissonSampled, SampledWithoutReplacement)):
            return "nested subsampling is not supported"
    if isinstance(event, SampledWithoutReplacement):
        if neighboring != "replace_one":
            return (
                "sampling a fixed-size subset without replacement is analysed for substitution neighbours; use "
                "neighboring='replace_one', or PoissonSampled for add/remove"
            )
        if isinstance(event.mechanism, (PoissonSampled, SampledWithoutReplacement)):
            return "nested subsampling is not supported"
    return None


def eps_delta_profile(event: Any, neighboring: str) -> EpsDeltaProfile | None:
    """The (ε, δ) description of ``event`` (None if it has none, e.g. a subsampled event under the wrong
    relation). Pure mechanisms give (pure ε, 0); Gaussian-type ones give their exact privacy curve ε(δ)."""
    if unsupported_reason_subsampling(event, neighboring) is not None:
        return None
    if isinstance(event, PureDP):
        return EpsDeltaProfile(fixed=(event.epsilon, 0.0))
    if isinstance(event, ApproxDP):
        return EpsDeltaProfile(fixed=(event.epsilon, event.delta))
    if isinstance(event, _m.TruncatedDiscreteLaplace):
        return EpsDeltaProfile(fixed=(float(event.epsilon), float(event.delta)))
    if isinstance(event, (_m.Laplace, _m.RandomizedResponse, _m.DiscreteLaplace)):
        return EpsDeltaProfile(fixed=(float(event.pure_epsilon), 0.0))
    if isinstance(event, _m.Gaussian):
        return _gaussian_profile(event)
    if isinstance(event, _m.DiscreteGaussian):
        return _dgauss_profile(event)
    if isinstance(event, ZCDP):
        return EpsDeltaProfile(curve=lambda d, r=event.rho: zcdp_to_approx_dp(r, d, method="cks"),
                               delta_of=lambda e, r=event.rho: zcdp_delta(r, e, method="cks"),
                               at_zero=math.inf if event.rho > 0 else 0.0)
    if isinstance(event, (PoissonSampled, SampledWithoutReplacement)):
        eta = event.rate if isinstance(event, PoissonSampled) else event.eta
        inner = eps_delta_profile(event.mechanism, neighboring)
        if inner is None:
            return None
        if inner.fixed is not None:
            return EpsDeltaProfile(fixed=_amplify(inner.fixed[0], inner.fixed[1], eta))
        many = functools.partial(_amplified_many, inner.eps_many, eta)
        return EpsDeltaProfile(curve=lambda d: float(many(np.array([d]))[0]), curve_many=many,
                               delta_of=_amplified_delta_curve(inner.delta_of, eta),
                               at_zero=_amplify(inner.at_zero, 0.0, eta)[0])
    return None
