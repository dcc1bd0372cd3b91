"""The composition lab's model (lesson 07): every accountant of :mod:`dpviz.accountants` on one setting.

A *setting* composes ``count`` copies of one mechanism — ``"gaussian"`` (noise σ), ``"laplace"`` (scale b) or
``"rr"`` (randomized response with parameter ε₀) — answering a sum of values clipped to [−1, 1]
(:func:`query_sensitivity`), optionally Poisson-subsampled at ``rate`` < 1, under the neighbouring relation
``neighboring`` of :data:`dpviz.accountants.NEIGHBORING`. This module asks every accountant for its (ε, δ) answer:

* :func:`epsilon_result` / :func:`compare_accountants` — ε at δ from one / every accountant, PLD with its bracket;
* :func:`exact_epsilon`, :func:`exact_profile` — the exact answer when a closed form exists (k Gaussians);
* :func:`epsilon_vs_count` — ε against the number of compositions k (:func:`count_grid`);
* :func:`privacy_profile` — an accountant's δ(ε) curve of the composition;
* :func:`calibrated_noise`, :func:`exact_gaussian_sigma` — the smallest noise meeting a target ε;
* :func:`group_privacy_curves` — generic group privacy against the exact sensitivity-k answer.

Pure numerics (no plotting): a script gets the lab's numbers without importing plotly. The functions are memoised
with :func:`functools.lru_cache` on their hashable arguments, so a panel update that repeats a setting costs nothing.
An accountant that does not support a setting (e.g. the optimal composition theorem for a subsampled mechanism) is
reported with its own error message (:class:`EpsilonResult`), never silently dropped.

Accountants are named and ordered as in :data:`dpviz.accountants.ACCOUNTANTS`; functions that return one answer
per accountant take ``accountants=`` (a sequence of names) to choose which and in what order.

References
----------
* Basic composition: Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Theorem 3.16.
* Advanced composition: Dwork, Rothblum & Vadhan 2010, Theorem III.3.
* Optimal composition: Kairouz, Oh & Viswanath 2015, Theorem 3.3.
* Rényi DP: Mironov 2017, Prop. 1 and 3; improved conversion: Balle et al. 2020, Theorem 21.
* zCDP: Bun & Steinke 2016, Lemma 2.3 / Prop. 1.3; conversion: Canonne, Kamath & Steinke 2020, Cor. 13.
* Privacy loss distributions: Meiser & Mohammadi 2018; Koskela, Jälkö & Honkela 2020; Doroshenko et al. 2022.
* Exact Gaussian profile: Balle & Wang 2018, Theorem 8; k Gaussians of noise σ compose exactly to one Gaussian of
  noise σ/√k (Dong, Roth & Su 2022, Corollary 3.3).
* Group privacy: Ghazi et al. 2023, Lemma 6; Dwork & Roth 2014, Theorem 2.2.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import math
from collections.abc import Callable, Sequence

import numpy as np

from dpviz import mechanisms as _mech
from dpviz._inverse import _run_steps
from dpviz._validation import (
    Cap,
    check_choice,
    check_delta,
    check_in_range,
    check_integer,
    check_positive,
    check_real_array,
)
from dpviz.accountants import (
    ACCOUNTANTS,
    NEIGHBORING,
    RUNS,
    PoissonSampled,
    calibrate_laplace_scale_steps,
    calibrate_sigma_steps,
    group_privacy,
    group_privacy_mechanism,
)
from dpviz.accountants.factory import NOISE_PARAMETER, make_mechanism

__all__ = [
    "LAB_MECHANISMS",
    "NOISE_PARAMETER",
    "PLD_FINEST_STEP",
    "PLD_GRID_BUDGET",
    "PROFILE_DIRECTION",
    "PROFILE_POINT_ONLY",
    "PROFILE_DELTAS",
    "EpsilonResult",
    "check_setting",
    "query_sensitivity",
    "make_event",
    "pld_grid_step",
    "epsilon_result",
    "compare_accountants",
    "exact_epsilon",
    "exact_profile",
    "reference_epsilon",
    "count_grid",
    "epsilon_vs_count",
    "privacy_profile",
    "calibrated_noise",
    "exact_gaussian_sigma",
    "group_privacy_curves",
]

#: The mechanisms of the lab (keys of :func:`dpviz.accountants.factory.make_mechanism`).
LAB_MECHANISMS = ("gaussian", "laplace", "rr")

#: Finest PLD grid step (dpviz.accountants' default) and the grid-size budget of the lab's PLD accountant (the
#: accountant coarsens its step only when a composition would need more points; the bracket shows the cost).
PLD_FINEST_STEP = 1e-4
PLD_GRID_BUDGET = 2 ** 16

#: Most points one call evaluates; more is refused with a ValueError naming the cap. ``COUNTS``: the values of
#: ``n`` in :func:`count_grid` and of ``counts`` in :func:`epsilon_vs_count` (each point asks every accountant, up
#: to ~0.5 s each for 10⁶ subsampled Gaussian steps: ~10 s at the cap); ``PROFILE_POINTS``: the values of
#: ``epsilons`` in :func:`privacy_profile` / :func:`exact_profile` (one δ(ε) each, ~4 s at the cap for the optimal
#: accountant). The lab draws 11 counts and 40 values of ε.
COUNTS = Cap(25, "the counts of one call")
PROFILE_POINTS = Cap(200, "the values of ε of one profile")
#: The number of counts as a plain integer, for dpviz.plots.composition (until it reads ``COUNTS.limit``).

#: What an accountant may raise for a setting it cannot handle: reported in :class:`EpsilonResult`, not raised.
_EXPECTED = (ValueError, NotImplementedError, TypeError, KeyError, OverflowError, ZeroDivisionError)


@dataclasses.dataclass(frozen=True)
class EpsilonResult:
    """One accountant's answer for one setting.

    ``epsilon`` is the guarantee it certifies (for PLD the pessimistic end), ``lower`` the PLD optimistic end,
    ``alternative`` the other conversion (RDP classic, zCDP simple), ``error`` why the accountant does not apply.
    """

    accountant: str
    epsilon: float | None
    lower: float | None = None
    alternative: float | None = None
    error: str | None = None

    def __post_init__(self):
        check_choice(self.accountant, "accountant", tuple(ACCOUNTANTS))
        for name in ("epsilon", "lower", "alternative"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, check_positive(value, name, allow_zero=True, allow_inf=True))
        if self.error is not None and not isinstance(self.error, str):
            raise TypeError(f"error = {self.error!r} is not allowed: must be None or a message (str).")

    @property
    def available(self) -> bool:
        return self.epsilon is not None


def _names(accountants: Sequence[str] | None) -> tuple[str, ...]:
    if accountants is None:
        return tuple(ACCOUNTANTS)
    if isinstance(accountants, str) or not isinstance(accountants, Sequence):
        raise TypeError(f"accountants = {accountants!r} is not allowed: must be None or a sequence of accountant "
                        f"names from {tuple(ACCOUNTANTS)}.")
    names = tuple(accountants)
    for n in names:
        check_choice(n, "accountant", tuple(ACCOUNTANTS))
    return names


def check_setting(mechanism: str, noise: float, count: int, rate: float,
                  neighboring: str) -> tuple[float, int, float]:
    """Validate a lab setting; returns ``(noise, count, rate)`` as float, int, float.

    ``mechanism`` ∈ :data:`LAB_MECHANISMS`, ``noise`` > 0 (named by :data:`NOISE_PARAMETER`, e.g. σ), ``count`` an
    integer in [1, :data:`~dpviz.accountants.RUNS`] (the accountants' ledger cap), ``rate`` ∈ (0, 1],
    ``neighboring`` ∈ :data:`dpviz.accountants.NEIGHBORING`; a ValueError names the offending parameter, its value and
    the allowed range.

    >>> check_setting("gaussian", 4, 100.0, 1, "add_remove")
    (4.0, 100, 1.0)
    """
    check_choice(mechanism, "mechanism", LAB_MECHANISMS)
    noise = check_positive(noise, NOISE_PARAMETER[mechanism])
    count = check_integer(count, "count", minimum=1, maximum=RUNS.high)
    rate = check_in_range(rate, "rate", 0.0, 1.0, low_inclusive=False)
    check_choice(neighboring, "neighboring", NEIGHBORING)
    return noise, count, rate


def query_sensitivity(mechanism: str, neighboring: str = "add_remove") -> float:
    """Sensitivity of the lab's query under the chosen neighbouring relation.

    The Gaussian and Laplace steps of the lab answer a **sum of values clipped to [−1, 1]**: adding or removing one
    person moves it by at most 1, replacing one person's value by at most 2. Randomized response reports one bit
    about a person, which flips between neighbours under either relation (sensitivity 1 both ways). Accountants never
    rescale sensitivity themselves (see :mod:`dpviz.accountants.events`).

    >>> query_sensitivity("gaussian", "replace_one"), query_sensitivity("rr", "replace_one")
    (2.0, 1.0)
    """
    check_choice(mechanism, "mechanism", LAB_MECHANISMS)
    check_choice(neighboring, "neighboring", NEIGHBORING)
    return 2.0 if (neighboring == "replace_one" and mechanism != "rr") else 1.0


def make_event(mechanism: str, noise: float, rate: float = 1.0, neighboring: str = "add_remove"):
    """The event one step of the lab composes: the mechanism (:func:`dpviz.accountants.factory.make_mechanism`)
    with the query's sensitivity under ``neighboring`` (:func:`query_sensitivity`), Poisson-subsampled when
    ``rate < 1``.

    >>> make_event("laplace", 2.0, 0.5, "add_remove")
    PoissonSampled(mechanism=Laplace(scale=2.0, sensitivity=1.0), rate=0.5)
    """
    rate = check_in_range(rate, "rate", 0.0, 1.0, low_inclusive=False)
    m = make_mechanism(mechanism, noise, query_sensitivity(mechanism, neighboring))
    return m if rate >= 1.0 else PoissonSampled(m, rate)


def pld_grid_step(mechanism: str, noise: float, count: int, neighboring: str = "add_remove",
                  rate: float = 1.0) -> float:
    """The PLD grid step h the lab's accountant actually uses for this setting (its
    :attr:`~dpviz.accountants.PLDAccountant.effective_interval`): 0.0 when the answer is exact without a grid
    (Gaussians only: closed form; randomized response without sampling: exact binomial law), else the default 1e-4
    or the coarser step the accountant chose so that the composed loss window (≈ 23.5 standard deviations of the
    summed privacy loss, growing like √k) fits in :data:`PLD_GRID_BUDGET` points.

    A coarser grid never makes the answer wrong: PLD's pessimistic end stays an upper bound and its optimistic end a
    lower bound; only the bracket between them widens.

    >>> pld_grid_step("gaussian", 4.0, 10), pld_grid_step("rr", 0.5, 100_000)
    (0.0, 0.0)
    >>> pld_grid_step("laplace", 10.0, 10)
    0.0001
    """
    noise, count, rate = check_setting(mechanism, noise, count, rate, neighboring)
    acct, _ = _composed("pld", mechanism, noise, rate, count, neighboring)
    return float(acct.effective_interval) if acct is not None else PLD_FINEST_STEP


@functools.lru_cache(maxsize=1024)
def _composed(name: str, mechanism: str, noise: float, rate: float, count: int, neighboring: str):
    """(accountant after composing ``count`` steps, None) or (None, the reason it does not apply); cached."""
    cls = ACCOUNTANTS[name]
    try:
        if name == "pld":
            acct = cls(neighboring=neighboring, value_discretization_interval=PLD_FINEST_STEP,
                       max_grid_points=PLD_GRID_BUDGET)
        else:
            acct = cls(neighboring=neighboring)
        acct = acct.compose(make_event(mechanism, noise, rate, neighboring), count=count)
    except _EXPECTED as exc:
        return None, str(exc) or type(exc).__name__
    return acct, None


def _finite_or_inf(x) -> float:
    x = float(x)
    if math.isnan(x):
        raise ValueError("an accountant returned NaN")
    return x


def epsilon_result(name: str, mechanism: str, noise: float, count: int, rate: float, delta: float,
                   neighboring: str = "add_remove") -> EpsilonResult:
    """ε of accountant ``name`` after ``count`` steps of the lab setting, at ``delta``; cached.

    PLD reports its bracket (``lower`` = optimistic, ``epsilon`` = pessimistic); RDP uses the improved
    conversion (Balle et al. 2020, Thm 21) with the classic one (Mironov 2017, Prop. 3) as ``alternative``;
    zCDP uses the CKS conversion (Canonne, Kamath & Steinke 2020, Cor. 13) with the simple ρ + 2√(ρ ln(1/δ)) as
    ``alternative``. An accountant that cannot handle the setting yields ``epsilon=None`` and its error message.

    >>> epsilon_result("basic", "rr", 0.1, 50, 1.0, 1e-5).epsilon  # pure DP: ε adds up, 50 × 0.1
    5.0
    """
    noise, count, rate = check_setting(mechanism, noise, count, rate, neighboring)
    check_choice(name, "accountant", tuple(ACCOUNTANTS))
    delta = check_delta(delta, allow_zero=False)
    return _epsilon_result(name, mechanism, noise, count, rate, delta, neighboring)


@functools.lru_cache(maxsize=8192)
def _epsilon_result(name: str, mechanism: str, noise: float, count: int, rate: float, delta: float,
                    neighboring: str) -> EpsilonResult:
    """:func:`epsilon_result` on a checked setting; cached."""
    acct, err = _composed(name, mechanism, noise, rate, count, neighboring)
    if acct is None:
        return EpsilonResult(name, None, error=err)
    try:
        if name == "pld":
            lo, hi = acct.epsilon_bounds(delta)
            return EpsilonResult(name, _finite_or_inf(hi), lower=_finite_or_inf(lo))
        if name == "rdp":
            return EpsilonResult(name, _finite_or_inf(acct.epsilon(delta, method="improved")),
                                 alternative=_finite_or_inf(acct.epsilon(delta, method="classic")))
        if name == "zcdp":
            return EpsilonResult(name, _finite_or_inf(acct.epsilon(delta, method="cks")),
                                 alternative=_finite_or_inf(acct.epsilon(delta, method="simple")))
        return EpsilonResult(name, _finite_or_inf(acct.epsilon(delta)))
    except _EXPECTED as exc:
        return EpsilonResult(name, None, error=str(exc) or type(exc).__name__)


def compare_accountants(mechanism: str = "gaussian", noise: float = 4.0, count: int = 100, rate: float = 1.0,
                        delta: float = 1e-5, neighboring: str = "add_remove", *,
                        accountants: Sequence[str] | None = None) -> tuple[EpsilonResult, ...]:
    """Every accountant's :class:`EpsilonResult` for one setting, in the order of ``accountants`` (default: all of
    :data:`dpviz.accountants.ACCOUNTANTS`, in its order)."""
    names = _names(accountants)
    noise, count, rate = check_setting(mechanism, noise, count, rate, neighboring)
    delta = check_delta(delta, allow_zero=False)
    return tuple(_epsilon_result(n, mechanism, noise, count, rate, delta, neighboring) for n in names)


def exact_epsilon(mechanism: str, noise: float, count: int, rate: float, delta: float,
                  neighboring: str = "add_remove") -> float | None:
    """The exact ε(δ) of the composition when a closed form exists, else ``None``.

    Only for ``count`` Gaussians of noise σ without subsampling: they compose exactly to one Gaussian of noise
    σ/√k (Dong, Roth & Su 2022, Cor. 3.3), whose profile is exact (Balle & Wang 2018, Thm 8), with the query's
    sensitivity under ``neighboring`` (:func:`query_sensitivity`).

    >>> exact_epsilon("gaussian", 10.0, 100, 1.0, 1e-5) == make_mechanism("gaussian", 1.0).epsilon(1e-5)
    True
    """
    noise, count, rate = check_setting(mechanism, noise, count, rate, neighboring)
    delta = check_delta(delta, allow_zero=False)
    return _exact_epsilon(mechanism, noise, count, rate, delta, neighboring)


@functools.lru_cache(maxsize=2048)
def _exact_epsilon(mechanism: str, noise: float, count: int, rate: float, delta: float,
                   neighboring: str) -> float | None:
    if mechanism != "gaussian" or rate < 1.0:
        return None
    sens = query_sensitivity(mechanism, neighboring)
    return float(_mech.Gaussian(noise / math.sqrt(count), sensitivity=sens).epsilon(delta))


def exact_profile(mechanism: str, noise: float, count: int, rate: float, neighboring: str,
                  epsilons) -> np.ndarray | None:
    """The exact privacy profile δ(ε) of the composition at ``epsilons`` when a closed form exists, else ``None``:
    the Balle–Wang profile (2018, Thm 8) of one Gaussian of noise σ/√k (Dong, Roth & Su 2022, Cor. 3.3), as for
    :func:`exact_epsilon`.

    >>> exact_profile("gaussian", 2.0, 4, 1.0, "add_remove", [0.0]) == make_mechanism("gaussian", 1.0).delta([0.0])
    array([ True])
    """
    noise, count, rate = check_setting(mechanism, noise, count, rate, neighboring)
    eps = _epsilon_grid(epsilons)
    if mechanism != "gaussian" or rate < 1.0:
        return None
    g = _mech.Gaussian(noise / math.sqrt(count), sensitivity=query_sensitivity(mechanism, neighboring))
    return np.asarray(g.delta(eps), dtype=float) if eps.size else np.zeros(0)


def _epsilon_grid(epsilons) -> np.ndarray:
    """``epsilons`` of :func:`exact_profile` / :func:`privacy_profile`: at most :data:`PROFILE_POINTS` finite
    ε ≥ 0."""
    eps = check_real_array(epsilons, "epsilons", ndim=1, allow_empty=True).astype(float)
    PROFILE_POINTS.check(eps.size, "the values epsilons holds")
    if np.any(eps < 0):
        raise ValueError(f"epsilons = {float(eps[eps < 0][0])!r} is not allowed: every ε must be a number >= 0.")
    return eps + 0.0  # (−0.0 → 0.0)


def reference_epsilon(results: Sequence[EpsilonResult], exact: float | None = None) -> float | None:
    """The tightest valid ε: the exact one if known, else the smallest certified upper bound among ``results``.

    >>> reference_epsilon([EpsilonResult("basic", 2.0), EpsilonResult("rdp", 1.5), EpsilonResult("optimal", None)])
    1.5
    """
    if isinstance(results, (str, bytes)) or not isinstance(results, Sequence) \
            or not all(isinstance(r, EpsilonResult) for r in results):
        raise TypeError(f"results = {results!r} is not allowed: must be a sequence of EpsilonResult.")
    if exact is not None:
        return check_positive(exact, "exact", allow_zero=True, allow_inf=True)
    vals = [r.epsilon for r in results if r.available and math.isfinite(r.epsilon)]
    return min(vals) if vals else None


def count_grid(max_count: int, n: int = 13) -> tuple[int, ...]:
    """A modest log-spaced grid of compositions 1 … ``max_count`` (about ``n`` distinct integers); ``max_count`` at
    most :data:`~dpviz.accountants.RUNS`, ``n`` in [2, :data:`COUNTS`].

    >>> count_grid(100, 5)
    (1, 3, 10, 32, 100)
    """
    max_count = check_integer(max_count, "max_count", minimum=1, maximum=RUNS.high)
    n = check_integer(n, "n", minimum=2, maximum=COUNTS.limit)
    grid = np.unique(np.round(np.logspace(0.0, math.log10(max_count), n)).astype(int))
    return tuple(int(g) for g in grid)


def epsilon_vs_count(mechanism: str, noise: float, rate: float, delta: float, neighboring: str,
                     counts: Sequence[int], *, progress: Callable[[float], object] | None = None,
                     accountants: Sequence[str] | None = None) -> dict[str, list[EpsilonResult]]:
    """ε for every accountant (``accountants``, default all, in order) at every count in ``counts`` (each point
    cached by :func:`epsilon_result`).

    ``progress(fraction)`` is called as points complete (for a panel's progress bar). ``counts``: at most
    :data:`COUNTS` integers in [1, :data:`~dpviz.accountants.RUNS`].
    """
    names = _names(accountants)
    noise, _, rate = check_setting(mechanism, noise, 1, rate, neighboring)
    delta = check_delta(delta, allow_zero=False)
    if isinstance(counts, (str, bytes)) or not isinstance(counts, (Sequence, np.ndarray)) or np.ndim(counts) != 1:
        raise TypeError(f"counts = {counts!r} is not allowed: must be a sequence of integers.")
    COUNTS.check(len(counts), "the values counts holds")
    ks = [check_integer(k, "counts", minimum=1, maximum=RUNS.high) for k in counts]
    if progress is not None and not callable(progress):
        raise TypeError(f"progress = {progress!r} is not allowed: must be None or a function of the fraction done.")
    out: dict[str, list[EpsilonResult]] = {n: [] for n in names}
    total = len(names) * len(ks)
    done = 0
    for name in names:
        for k in ks:
            out[name].append(_epsilon_result(name, mechanism, noise, k, rate, delta, neighboring))
            done += 1
            if progress is not None:
                progress(done / total)
    return out


#: How each accountant's profile is traced: "eps" = ε(δ) on a δ grid (cheap for accountants that are naturally
#: stated as ε(δ)), "delta" = δ(ε) on an ε grid (cheap for divergence- and distribution-based accountants).
PROFILE_DIRECTION = {"basic": "eps", "advanced": "eps", "optimal": "eps", "rdp": "delta", "zcdp": "delta",
                     "pld": "delta"}

#: Accountants to show as one point (at the learner's δ) rather than a curve for Gaussian steps: their ε(δ) is a
#: numerical optimisation per δ there (~0.25 s), too slow for a full curve in an interactive update.
PROFILE_POINT_ONLY = ("advanced", "optimal")

#: δ grid for the accountants traced through ε(δ) (basic uses every second point, advanced/optimal every third).
PROFILE_DELTAS = tuple(float(d) for d in np.logspace(-14.0, -0.5, 28))


@functools.lru_cache(maxsize=512)
def _profile(name, mechanism, noise, count, rate, neighboring, eps_grid):
    acct, err = _composed(name, mechanism, noise, rate, count, neighboring)
    if acct is None:
        return None, None, None, err
    try:
        if PROFILE_DIRECTION[name] == "eps":
            deltas = PROFILE_DELTAS[::2] if name == "basic" else PROFILE_DELTAS[::3]
            eps = np.array([float(acct.epsilon(d)) for d in deltas], dtype=float)
            dl = np.array(deltas, dtype=float)
            keep = np.isfinite(eps)  # drops inf (unreachable) and any NaN
            order = np.argsort(eps[keep], kind="stable")
            return eps[keep][order], dl[keep][order], None, None
        grid = np.array(eps_grid, dtype=float)
        if name == "pld":
            pairs = [acct.delta_bounds(e) for e in eps_grid]
            lo = np.array([p[0] for p in pairs], dtype=float)
            hi = np.array([p[1] for p in pairs], dtype=float)
            return grid, hi, lo, None
        vals = np.asarray(acct._deltas(grid), dtype=float)
        if np.any(np.isnan(vals)):
            raise ValueError("the accountant returned NaN for δ(ε)")
        return grid, vals, None, None
    except _EXPECTED as exc:
        return None, None, None, str(exc) or type(exc).__name__


def privacy_profile(name: str, mechanism: str, noise: float, count: int, rate: float, neighboring: str,
                    epsilons: Sequence[float]):
    """The privacy profile δ(ε) of the composition by accountant ``name``, as points; cached.

    Returns ``(eps, delta, delta_lower, error)``. Accountants in :data:`PROFILE_DIRECTION` marked ``"delta"`` are
    evaluated as δ(ε) on the grid ``epsilons``; those marked ``"eps"`` as ε(δ) on :data:`PROFILE_DELTAS` (the same
    curve, traced from the other axis, because their ε(δ) is the cheap direction), sorted by ε, infinite ε dropped.
    ``delta_lower`` is PLD's optimistic profile (else None); ``error`` is the reason when not applicable.
    ``epsilons``: at most :data:`PROFILE_POINTS` finite values ≥ 0.
    """
    noise, count, rate = check_setting(mechanism, noise, count, rate, neighboring)
    check_choice(name, "accountant", tuple(ACCOUNTANTS))
    grid = tuple(_epsilon_grid(epsilons).tolist())
    eps, delta, lower, err = _profile(name, mechanism, noise, count, rate, neighboring, grid)
    return _copy(eps), _copy(delta), _copy(lower), err  # copies: a caller's change must not reach the cache


def _copy(arr):
    return None if arr is None else np.array(arr, dtype=float)


def calibrated_noise(name: str, mechanism: str, target_epsilon: float, delta: float, count: int,
                     rate: float) -> tuple[float | None, str | None]:
    """The smallest noise (σ or Laplace scale b) for which accountant ``name`` certifies ``target_epsilon``.

    Calls :func:`dpviz.accountants.calibrate_sigma` / :func:`~dpviz.accountants.calibrate_laplace_scale`; returns
    ``(noise, None)`` or ``(None, reason)`` when that accountant cannot calibrate this setting. Remembers the last
    512 settings (shared with :func:`calibrated_noise_steps`).
    """
    return _run_steps(calibrated_noise_steps(name, mechanism, target_epsilon, delta, count, rate))


def calibrated_noise_steps(name: str, mechanism: str, target_epsilon: float, delta: float, count: int, rate: float):
    """:func:`calibrated_noise` as a generator for a streamed panel: it yields None after each accountant evaluation
    of the search (:func:`dpviz.accountants.calibrate_sigma_steps`), none when the setting is remembered, and returns
    ``(noise, None)`` or ``(None, reason)``. The arguments are checked at once."""
    check_choice(mechanism, "mechanism", ("gaussian", "laplace"))
    check_choice(name, "accountant", tuple(ACCOUNTANTS))
    target_epsilon = check_positive(target_epsilon, "target_epsilon")
    delta = check_delta(delta, allow_zero=False)
    count = check_integer(count, "count", minimum=1, maximum=RUNS.high)
    rate = check_in_range(rate, "rate", 0.0, 1.0, low_inclusive=False)
    return _calibrated_noise_steps((name, mechanism, target_epsilon, delta, count, rate))


#: (accountant, mechanism, ε, δ, k, q) → (noise, reason), the last :data:`_CALIBRATED_SIZE` settings used.
_CALIBRATED: collections.OrderedDict = collections.OrderedDict()
_CALIBRATED_SIZE = 512


def _calibrated_noise_steps(key: tuple):
    if key in _CALIBRATED:
        _CALIBRATED.move_to_end(key)
        return _CALIBRATED[key]
    name, mechanism, target_epsilon, delta, count, rate = key
    try:
        q = None if rate >= 1.0 else rate
        if mechanism == "gaussian":
            opts = {"max_grid_points": PLD_GRID_BUDGET} if name == "pld" else None
            val = yield from calibrate_sigma_steps(target_epsilon, delta, count=count, sampling_rate=q,
                                                   accountant=name, accountant_options=opts)
        else:
            val = yield from calibrate_laplace_scale_steps(target_epsilon, delta, count=count, sampling_rate=q,
                                                           accountant=name)
        val = float(val)
        result = (val, None) if math.isfinite(val) else (None, "no finite noise reaches this target")
    except _EXPECTED as exc:
        result = (None, str(exc) or type(exc).__name__)
    _CALIBRATED[key] = result
    while len(_CALIBRATED) > _CALIBRATED_SIZE:
        _CALIBRATED.popitem(last=False)
    return result


def exact_gaussian_sigma(target_epsilon: float, delta: float, count: int) -> float:
    """Smallest σ with ε(δ) ≤ ``target_epsilon`` for ``count`` unsampled Gaussians of sensitivity 1, exact in double
    precision: k Gaussians of noise σ are one Gaussian of noise σ/√k (Dong, Roth & Su 2022, Cor. 3.3), i.e. one
    Gaussian of noise σ and sensitivity √k, calibrated by the analytic Gaussian mechanism
    (:func:`dpviz.mechanisms.analytic_gaussian_sigma`; Balle & Wang 2018, Thm 8 and Algorithm 1).

    >>> s = exact_gaussian_sigma(1.0, 1e-5, 1)
    >>> _mech.Gaussian(s).epsilon(1e-5) <= 1.0 < _mech.Gaussian(s * (1 - 1e-12)).epsilon(1e-5)
    True
    """
    target_epsilon = check_positive(target_epsilon, "target_epsilon")
    delta = check_delta(delta, allow_zero=False)
    count = check_integer(count, "count", minimum=1, maximum=RUNS.high)
    return _exact_gaussian_sigma(target_epsilon, delta, count)


@functools.lru_cache(maxsize=512)
def _exact_gaussian_sigma(target_epsilon: float, delta: float, count: int) -> float:
    return float(_mech.analytic_gaussian_sigma(target_epsilon, delta, math.sqrt(count)))


def group_privacy_curves(mechanism: str, noise: float, delta: float, max_group: int) -> dict[str, np.ndarray]:
    """Group privacy for groups of size 1 … ``max_group``, two ways.

    * generic: from the mechanism's single-person guarantee (ε₁, δ₁) — pure (ε₁, 0) for Laplace, (ε(δ), δ) for a
      Gaussian — the group guarantee (kε₁, δ₁(e^{kε₁}−1)/(e^{ε₁}−1)) of :func:`dpviz.accountants.group_privacy`
      (Ghazi et al. 2023, Lemma 6; Dwork & Roth 2014, Thm 2.2 for δ = 0), δ
      capped at 1;
    * exact: the same mechanism when the group (a user with k records) moves the query by k, i.e. sensitivity k
      (:func:`dpviz.accountants.group_privacy_mechanism`), at the generic δ_k (same δ, fairer ε comparison) and at
      the single-person δ.

    Returns arrays ``k``, ``eps_generic``, ``delta_generic`` (1 where the generic bound is vacuous),
    ``eps_exact_same_delta`` (0 where δ_k ≥ 1 makes any ε trivially valid) and ``eps_exact``, and the floats
    ``eps1``, ``delta1``.

    >>> c = group_privacy_curves("laplace", 10.0, 1e-5, 3)
    >>> c["eps_generic"].tolist(), c["eps_exact"].tolist(), c["delta_generic"].tolist()
    ([0.1, 0.2, 0.30000000000000004], [0.1, 0.2, 0.3], [0.0, 0.0, 0.0])
    """
    check_choice(mechanism, "mechanism", ("gaussian", "laplace"))
    noise = check_positive(noise, NOISE_PARAMETER[mechanism])
    delta = check_delta(delta, allow_zero=False)
    max_group = check_integer(max_group, "max_group", minimum=1, maximum=1000)
    cached = _group_privacy_curves(mechanism, noise, delta, max_group)
    return {key: np.array(v) if isinstance(v, np.ndarray) else v for key, v in cached.items()}  # copies (the cache)


@functools.lru_cache(maxsize=512)
def _group_privacy_curves(mechanism: str, noise: float, delta: float, max_group: int) -> dict[str, np.ndarray]:
    m = make_mechanism(mechanism, noise)
    if math.isfinite(m.pure_epsilon):
        eps1, delta1 = float(m.pure_epsilon), 0.0
    else:
        eps1, delta1 = float(m.epsilon(delta)), delta
    ks = np.arange(1, max_group + 1)
    eg, dg = group_privacy(eps1, delta1, ks)
    eg, dg = np.asarray(eg, dtype=float), np.asarray(dg, dtype=float)
    es, ee = [], []
    for k, dk in zip(ks.tolist(), dg.tolist(), strict=True):
        mk = group_privacy_mechanism(m, k)
        if math.isfinite(mk.pure_epsilon):
            es.append(float(mk.pure_epsilon))
            ee.append(float(mk.pure_epsilon))
        else:
            es.append(float(mk.epsilon(dk)) if dk < 1.0 else 0.0)
            ee.append(float(mk.epsilon(delta)))
    return {"k": ks, "eps_generic": eg, "delta_generic": dg,
            "eps_exact_same_delta": np.array(es), "eps_exact": np.array(ee), "eps1": eps1, "delta1": delta1}
