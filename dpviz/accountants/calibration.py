"""Noise calibration: the smallest noise whose composed ε does not exceed a target."""

from __future__ import annotations

import math

from dpviz import mechanisms as _m
from dpviz._inverse import _bisect_noise_steps, _run_steps
from dpviz._validation import check_choice, check_delta, check_in_range, check_integer, check_positive
from dpviz.accountants._base import RUNS
from dpviz.accountants.amplification import _deamplified_eps
from dpviz.accountants.events import PoissonSampled
from dpviz.accountants.factory import ACCOUNTANTS

__all__ = ["calibrate_sigma", "calibrate_laplace_scale", "calibrate_sigma_steps", "calibrate_laplace_scale_steps"]


def _accountant_cls(name: str):
    if not isinstance(name, str):  # refused before any comparison (an array would not compare to a name)
        raise ValueError(f"accountant = {name!r} is not allowed: must be one of " + ", ".join(map(repr, ACCOUNTANTS))
                         + ".")
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
    accountant_options: dict | None = None,
) -> float:
    """Smallest Gaussian σ such that ``count`` runs of ``Gaussian(σ, sensitivity)`` (Poisson-subsampled at
    ``sampling_rate`` if given) have ε(δ) ≤ ``target_epsilon`` under the named accountant: the search of
    :func:`calibrate_sigma_steps` (same parameters), run to its end.

    Examples
    --------
    >>> from dpviz.mechanisms import Gaussian
    >>> s = calibrate_sigma(1.0, 1e-5)
    >>> Gaussian(s).epsilon(1e-5) <= 1.0 < Gaussian(s / 1.001).epsilon(1e-5)
    True
    """
    return _run_steps(calibrate_sigma_steps(
        target_epsilon, delta, count, sampling_rate, accountant, sensitivity=sensitivity, neighboring=neighboring,
        rtol=rtol, accountant_options=accountant_options))


def calibrate_sigma_steps(
    target_epsilon: float,
    delta: float,
    count: int = 1,
    sampling_rate: float | None = None,
    accountant: str = "pld",
    *,
    sensitivity: float = 1.0,
    neighboring: str = "add_remove",
    rtol: float = 1e-4,
    accountant_options: dict | None = None,
) -> float:
    """:func:`calibrate_sigma` as a generator, for a caller on an event loop (a streamed panel): it yields None after
    each accountant evaluation (a pause; typically 4–8 of them) and returns σ. The arguments are checked at once,
    before the first step.

    Smallest Gaussian σ such that ``count`` runs of ``Gaussian(σ, sensitivity)`` (Poisson-subsampled at
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
    accountant_options : dict, optional
        Extra keyword arguments for the accountant's constructor (e.g. ``{"max_grid_points": 2**16}`` for PLD).

    >>> def run(steps):
    ...     pauses = 0
    ...     while True:
    ...         try:
    ...             next(steps)
    ...         except StopIteration as done:
    ...             return done.value, pauses
    ...         pauses += 1
    >>> sigma, pauses = run(calibrate_sigma_steps(1.0, 1e-5))
    >>> sigma == calibrate_sigma(1.0, 1e-5) and pauses >= 2
    True
    """
    target = check_positive(target_epsilon, "target_epsilon")
    delta = check_delta(delta, allow_zero=False)
    count = check_integer(count, "count", minimum=1, maximum=RUNS.high)
    q = None if sampling_rate is None else check_in_range(sampling_rate, "sampling_rate", 0.0, 1.0, low_inclusive=False)
    sens = check_positive(sensitivity, "sensitivity")
    cls = _accountant_cls(accountant)
    rtol = check_positive(rtol, "rtol")
    opts = dict(accountant_options or {})

    def eps_of(sigma: float) -> float:
        ev = _m.Gaussian(sigma, sens)
        if q is not None:
            ev = PoissonSampled(ev, q)
        return cls(neighboring=neighboring, **opts).compose(ev, count).epsilon(delta)

    # first guess: the textbook σ (Dwork & Roth 2014, Thm A.1) of the √k-fold sensitivity; ×Δ√k/ε may overflow to
    # inf, which the search caps at 1e300
    start = _m.classic_gaussian_sigma(1.0, delta) * sens * math.sqrt(count) / target
    return _bisect_noise_steps(eps_of, target, start, rtol)


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
    ``sampling_rate`` if given) have ε(δ) ≤ ``target_epsilon``: :func:`calibrate_laplace_scale_steps` (same
    parameters) run to its end.

    >>> calibrate_laplace_scale(2.0, count=4)
    2.0
    """
    return _run_steps(calibrate_laplace_scale_steps(
        target_epsilon, delta, count, sampling_rate, accountant, sensitivity=sensitivity, neighboring=neighboring,
        rtol=rtol))


def calibrate_laplace_scale_steps(
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
    """:func:`calibrate_laplace_scale` as a generator (see :func:`calibrate_sigma_steps`): it yields None after each
    accountant evaluation and returns b; the arguments are checked at once.

    Smallest Laplace scale b such that ``count`` runs of ``Laplace(b, sensitivity)`` (Poisson-subsampled at
    ``sampling_rate`` if given) have ε(δ) ≤ ``target_epsilon``.

    With ``delta=0`` the answer is pure DP and exact in closed form, whatever the accountant: k runs of an
    ε₀-DP mechanism are exactly kε₀-DP (basic composition is tight for pure DP; Laplace attains it), and Poisson
    sampling gives ε₀′ = ln(1 + q(e^{ε₀} − 1)) (Balle, Barthe & Gaboardi 2018, Theorem 8); so b = Δ / ln(1 + (e^{ε/k}
    − 1)/q) (q = 1 without sampling). With ``delta > 0`` the named accountant is inverted by bisection keeping the
    feasible end.
    """
    target = check_positive(target_epsilon, "target_epsilon")
    delta = check_delta(delta)
    count = check_integer(count, "count", minimum=1, maximum=RUNS.high)
    q = None if sampling_rate is None else check_in_range(sampling_rate, "sampling_rate", 0.0, 1.0, low_inclusive=False)
    sens = check_positive(sensitivity, "sensitivity")
    cls = _accountant_cls(accountant)
    rtol = check_positive(rtol, "rtol")
    if delta == 0.0:
        per = target / count
        eps0 = per if q is None else _deamplified_eps(per, q)  # ln(1 + (e^{ε/k} − 1)/q), without overflow
        scale = sens / eps0 if eps0 > 0 else math.inf
        if not math.isfinite(scale):
            raise ValueError(f"target_epsilon = {target_epsilon!r} is not allowed with count = {count} "
                             f"and sensitivity = {sensitivity!r}: the Laplace scale Δ·k/ε exceeds the double range "
                             "(must be <= 1.8e308).")
        return _closed_form(scale)

    def eps_of(scale: float) -> float:
        ev = _m.Laplace(scale, sens)
        if q is not None:
            ev = PoissonSampled(ev, q)
        return cls(neighboring=neighboring).compose(ev, count).epsilon(delta)

    return _bisect_noise_steps(eps_of, target, sens * count / target, rtol)


def _closed_form(value: float):
    """A generator with no pause that returns ``value`` (a calibration that needs no search)."""
    return value
    yield  # pragma: no cover - makes this a generator
