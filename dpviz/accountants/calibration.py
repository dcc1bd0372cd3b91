"""Noise calibration: the smallest noise whose composed ε does not exceed a target."""

from __future__ import annotations

import math
from typing import Callable

from dpviz import mechanisms as _m
from dpviz._validation import check_choice, check_delta, check_in_range, check_integer, check_positive
from dpviz.accountants.events import PoissonSampled

__all__ = ["calibrate_sigma", "calibrate_laplace_scale"]


def _bisect_noise(eps_of: Callable[[float], float], target: float, start: float, rtol: float) -> float:
    """Smallest s > 0 (to relative ``rtol``) with eps_of(s) ≤ target, for ε non-increasing in the noise s.
    Bisection on ln s that always keeps the feasible (upper) end, so the returned noise never overshoots the target."""
    hi = start
    n = 0
    while not eps_of(hi) <= target:
        hi *= 4.0
        n += 1
        if n > 60:
            raise ValueError(f"target_epsilon = {target!r} cannot be reached with any finite noise.")
    lo = hi / 4.0
    n = 0
    while eps_of(lo) <= target:
        hi = lo
        lo /= 4.0
        n += 1
        if n > 60:
            return hi
    # now eps_of(lo) > target ≥ eps_of(hi)
    while hi / lo - 1.0 > rtol:
        mid = math.sqrt(lo * hi)
        if eps_of(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi


def _accountant_cls(name: str):
    from dpviz.accountants import ACCOUNTANTS

    check_choice(name, "accountant", tuple(ACCOUNTANTS))
    return ACCOUNTANTS[name]


def calibrate_sigma(
    target_epsilon: float,
    delta: float,
    count: int = 1,
    sampling_rate: float | None = None,
    accountant: str = "pld",
    *,
    sensitivity: float = 1.0,
    neighboring: str = "add_remove",
    rtol: float = 1e-4,
) -> float:
    """Smallest Gaussian σ such that ``count`` runs of ``Gaussian(σ, sensitivity)`` (Poisson-subsampled at
    ``sampling_rate`` if given) have ε(δ) ≤ ``target_epsilon`` under the named accountant.

    Bisection on ln σ keeping the feasible end: the returned σ always satisfies the target (it is at most a factor
    1 + ``rtol`` above the exact smallest one), so it never overshoots the privacy budget.

    Parameters
    ----------
    target_epsilon : float > 0
    delta : float in (0, 1)
    count : int ≥ 1
    sampling_rate : float in (0, 1] or None
    accountant : one of :data:`dpviz.accountants.ACCOUNTANTS` ("basic", "advanced", "optimal", "rdp", "zcdp", "pld")
    sensitivity, neighboring : see :mod:`dpviz.accountants.events`
    rtol : relative precision of σ

    Examples
    --------
    >>> from dpviz.mechanisms import Gaussian
    >>> s = calibrate_sigma(1.0, 1e-5)
    >>> Gaussian(s).epsilon(1e-5) <= 1.0 < Gaussian(s / 1.001).epsilon(1e-5)
    True
    """
    target = check_positive(target_epsilon, "target_epsilon")
    delta = check_delta(delta, allow_zero=False)
    count = check_integer(count, "count", minimum=1)
    q = None if sampling_rate is None else check_in_range(sampling_rate, "sampling_rate", 0.0, 1.0, low_inclusive=False)
    sens = check_positive(sensitivity, "sensitivity")
    cls = _accountant_cls(accountant)
    rtol = check_positive(rtol, "rtol")

    def eps_of(sigma: float) -> float:
        ev = _m.Gaussian(sigma, sens)
        if q is not None:
            ev = PoissonSampled(ev, q)
        return cls(neighboring=neighboring).compose(ev, count).epsilon(delta)

    start = sens * math.sqrt(2.0 * math.log(1.25 / delta)) * math.sqrt(count) / target
    return _bisect_noise(eps_of, target, start, rtol)


def calibrate_laplace_scale(
    target_epsilon: float,
    delta: float = 0.0,
    count: int = 1,
    sampling_rate: float | None = None,
    accountant: str = "pld",
    *,
    sensitivity: float = 1.0,
    neighboring: str = "add_remove",
    rtol: float = 1e-4,
) -> float:
    """Smallest Laplace scale b such that ``count`` runs of ``Laplace(b, sensitivity)`` (Poisson-subsampled at
    ``sampling_rate`` if given) have ε(δ) ≤ ``target_epsilon``.

    With ``delta=0`` the answer is pure DP and exact in closed form, whatever the accountant: k runs of an
    ε₀-DP mechanism are exactly kε₀-DP (basic composition is tight for pure DP; Laplace attains it), and Poisson
    sampling gives ε₀′ = ln(1 + q(e^{ε₀} − 1)) (BBG18, Theorem 8); so b = Δ / ln(1 + (e^{ε/k} − 1)/q) (q = 1 without
    sampling). With ``delta > 0`` the named accountant is inverted by bisection keeping the feasible end.

    >>> calibrate_laplace_scale(2.0, count=4)
    2.0
    """
    target = check_positive(target_epsilon, "target_epsilon")
    delta = check_delta(delta)
    count = check_integer(count, "count", minimum=1)
    q = None if sampling_rate is None else check_in_range(sampling_rate, "sampling_rate", 0.0, 1.0, low_inclusive=False)
    sens = check_positive(sensitivity, "sensitivity")
    cls = _accountant_cls(accountant)
    rtol = check_positive(rtol, "rtol")
    if delta == 0.0:
        per = target / count
        eps0 = per if q is None or q == 1.0 else math.log1p(math.expm1(per) / q)
        return sens / eps0

    def eps_of(scale: float) -> float:
        ev = _m.Laplace(scale, sens)
        if q is not None:
            ev = PoissonSampled(ev, q)
        return cls(neighboring=neighboring).compose(ev, count).epsilon(delta)

    return _bisect_noise(eps_of, target, sens * count / target, rtol)
