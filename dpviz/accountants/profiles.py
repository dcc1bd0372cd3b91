"""How an event enters an (ε, δ) composition theorem (basic, advanced, optimal accountants): a fixed pair
(ε_i, δ_i) or a whole privacy curve δ ↦ ε_i(δ) with its exact inverse (:class:`EpsDeltaProfile`), computed for every
event by :func:`eps_delta_profile`, and the subsampling/neighbouring-relation rule
(:func:`unsupported_reason_subsampling`).

The one home of "the (ε, δ) guarantee an event has on its own" (:func:`event_fixed_pair`) and of "its pure ε"
(:func:`event_pure_epsilon`): every accountant (the three above, RDP, zCDP, PLD) asks these two.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, Callable

import numpy as np

from dpviz import mechanisms as _m
from dpviz._validation import check_choice, check_positive, check_probability, check_real_array
from dpviz.accountants._atoms import _atoms_epsilon
from dpviz.accountants.amplification import _amplified_delta_curve, _amplified_many, _amplify
from dpviz.accountants.events import NEIGHBORING, ZCDP, ApproxDP, PoissonSampled, PureDP, SampledWithoutReplacement
from dpviz.conversions import zcdp_delta, zcdp_to_approx_dp
from dpviz.mechanisms.gaussian import _gaussian_epsilon_many

__all__ = [
    "EpsDeltaProfile",
    "eps_delta_profile",
    "event_fixed_pair",
    "event_pure_epsilon",
    "unsupported_reason_subsampling",
]


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

    def __post_init__(self):
        if self.fixed is not None:
            try:
                eps, delta = self.fixed
            except (TypeError, ValueError):
                raise ValueError(f"fixed = {self.fixed!r} is not allowed: must be None or a pair (ε, δ).") from None
            pair = (check_positive(eps, "fixed[0] (ε)", allow_zero=True, allow_inf=True),
                    check_probability(delta, "fixed[1] (δ)"))
            object.__setattr__(self, "fixed", pair)
        for name in ("curve", "curve_many", "delta_of"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                raise TypeError(f"{name} = {value!r} is not allowed: must be None or a function.")
        if self.fixed is None and self.curve is None:
            raise ValueError("fixed = None and curve = None are not allowed together: a profile is a fixed (ε, δ) "
                             "pair or a privacy curve δ ↦ ε(δ).")
        object.__setattr__(self, "at_zero", check_positive(self.at_zero, "at_zero", allow_zero=True, allow_inf=True))

    def eps_many(self, deltas, upper=None) -> np.ndarray:
        """ε_i(δ) for an array of δ (vectorised when the event provides it, else one call per δ): δ ≤ 0 (a share
        that underflowed) gives the limit ``at_zero``, δ ≥ 1 gives 0. ``upper`` (an ε known to be ≥ the answer) is
        a warm start for the plain Gaussian, used only where it is feasible, ignored otherwise. A fixed profile
        has no curve: a TypeError says so."""
        if self.curve is None:
            raise TypeError(f"eps_many is not allowed on a fixed profile {self.fixed!r}: it has no privacy curve.")
        d = check_real_array(deltas, "deltas", allow_empty=True, finite=False).astype(float)
        if np.any(np.isnan(d)):
            raise ValueError("deltas contains NaN, which is not allowed: must be numbers (δ ≤ 0 gives the limit "
                             "at δ → 0, δ ≥ 1 gives 0).")
        if upper is not None:
            upper = check_positive(upper, "upper", allow_zero=True, allow_inf=True)
        return self._eps_many(d, upper)

    def _eps_many(self, deltas, upper=None) -> np.ndarray:
        """:meth:`eps_many` without the checks."""
        d = np.asarray(deltas, dtype=float)
        inside = (d > 0.0) & (d < 1.0)
        if not inside.all():
            out = np.where(d <= 0.0, self.at_zero, 0.0)
            if inside.any():
                out[inside] = self._eps_many(d[inside])
            return out
        if self.curve_many is not None:
            if upper is not None and isinstance(self.curve_many, functools.partial) \
                    and self.curve_many.func is _gaussian_epsilon_many:
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
    k = np.arange(big_k + dlt, -big_k - 1, -1, dtype=float)  # descending k: ascending loss
    with np.errstate(over="ignore", under="ignore"):
        p = np.asarray(event.pmf(k), dtype=float)
        losses = 0.5 * (dlt / sigma) * ((dlt - 2.0 * k) / sigma)
    keep = (p > 0) & np.isfinite(losses)
    losses, p = losses[keep], p[keep]

    def many(d: np.ndarray) -> np.ndarray:
        d = np.asarray(d, dtype=float)
        out = [_atoms_epsilon(losses, p, 5e-324, float(x)) for x in d.ravel()]
        return np.array(out, dtype=float).reshape(d.shape)

    return EpsDeltaProfile(curve=lambda d: float(many(np.array([d]))[0]), curve_many=many, delta_of=delta_of)


def _gaussian_profile(event) -> EpsDeltaProfile:
    mu = event.mu
    if mu == 0.0:
        return _constant_profile(0.0, 0.0)
    if mu == math.inf:
        return _constant_profile(math.inf, 1.0)
    return EpsDeltaProfile(curve=lambda d, m=event: float(m.epsilon(d)),
                           curve_many=functools.partial(_gaussian_epsilon_many, mu),
                           delta_of=lambda e, m=event: float(m.delta(e)))


def event_fixed_pair(event: Any) -> tuple[float, float] | None:
    """The (ε, δ) guarantee one run of ``event`` has on its own, as a fixed pair, or None when it has none (a
    privacy-curve event: Gaussian-type, ``ZCDP``; a subsampled event; anything else).

    * ``PureDP(ε)``: (ε, 0); ``ApproxDP(ε, δ)``: (ε, δ) (Dwork & Roth 2014, Definition 2.4);
    * Laplace, randomized response, discrete Laplace: (``pure_epsilon``, 0) (Dwork & Roth 2014, Theorem 3.6 and
      §3.2; Ghosh, Roughgarden & Sundararajan 2012 for the discrete Laplace);
    * ``TruncatedDiscreteLaplace(ε, δ)``: (ε, δ) (Ghazi et al. 2023, Definition 8).

    >>> event_fixed_pair(ApproxDP(1.0, 1e-6)), event_fixed_pair(_m.Laplace(2.0))
    ((1.0, 1e-06), (0.5, 0.0))
    >>> event_fixed_pair(_m.Gaussian(1.0)) is None
    True
    """
    if isinstance(event, PureDP):
        return float(event.epsilon), 0.0
    if isinstance(event, ApproxDP):
        return float(event.epsilon), float(event.delta)
    if isinstance(event, (_m.Laplace, _m.RandomizedResponse, _m.DiscreteLaplace)):
        return float(event.pure_epsilon), 0.0
    if isinstance(event, _m.TruncatedDiscreteLaplace):
        return float(event.epsilon), float(event.delta)
    return None


def event_pure_epsilon(event: Any) -> float | None:
    """The pure ε of one run of ``event``: the ε of :func:`event_fixed_pair` when its δ is 0 (so ``ApproxDP(ε, 0)``
    is pure too), else None.

    >>> event_pure_epsilon(ApproxDP(0.5, 0.0)), event_pure_epsilon(ApproxDP(0.5, 1e-6))
    (0.5, None)
    """
    pair = event_fixed_pair(event)
    return pair[0] if pair is not None and pair[1] == 0.0 else None


def unsupported_reason_subsampling(event: Any, neighboring: str) -> str | None:
    """Why ``event`` cannot be analysed under ``neighboring`` (None when it can): the subsampling/relation rule.
    ``neighboring`` is one of :data:`dpviz.accountants.NEIGHBORING`."""
    check_choice(neighboring, "neighboring", NEIGHBORING)
    if isinstance(event, PoissonSampled):
        if neighboring != "add_remove":
            return (
                "Poisson subsampling is analysed for add/remove neighbours; with neighboring='replace_one' use "
                "SampledWithoutReplacement (Ghazi et al. 2023, Thm 7) or an add/remove accountant"
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
    relation). Pure mechanisms give (pure ε, 0); Gaussian-type ones give their exact privacy curve ε(δ).
    ``neighboring`` is one of :data:`dpviz.accountants.NEIGHBORING`."""
    check_choice(neighboring, "neighboring", NEIGHBORING)
    return _eps_delta_profile(event, neighboring)


def _eps_delta_profile(event: Any, neighboring: str) -> EpsDeltaProfile | None:
    if unsupported_reason_subsampling(event, neighboring) is not None:
        return None
    pair = event_fixed_pair(event)
    if pair is not None:
        return EpsDeltaProfile(fixed=pair)
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
        inner = _eps_delta_profile(event.mechanism, neighboring)
        if inner is None:
            return None
        if inner.fixed is not None:
            return EpsDeltaProfile(fixed=_amplify(inner.fixed[0], inner.fixed[1], eta))
        many = functools.partial(_amplified_many, inner._eps_many, eta)
        return EpsDeltaProfile(curve=lambda d: float(many(np.array([d]))[0]), curve_many=many,
                               delta_of=_amplified_delta_curve(inner.delta_of, eta),
                               at_zero=_amplify(inner.at_zero, 0.0, eta)[0])
    return None
