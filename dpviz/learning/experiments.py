"""The seeded, cached experiments behind lesson 13's panels (numbers only; the panels draw them).

* :func:`lesson_task` — the synthetic task a panel trains on (linear or logistic; cached: the panels re-render
  with the same task);
* :func:`heterogeneity_point` — ERM, user-level DP-SGD and naive DP-SGD excess risk at one (n, m, h);
* :func:`heterogeneity_formula` and :func:`heterogeneity_m_star` — the two terms of the linear task's excess risk,
  statistical s²d/(2nm) and user drift h²·tr Σ/(2nd), and where the second overtakes the first,
  m* = s²d²/(h² tr Σ) (the m-independent floor of Levy et al. 2021, Thm 9).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from dpviz._cache import RecentResults
from dpviz._validation import check_choice, check_integer, check_progress, check_real_array
from dpviz.learning.optim import COUNT, SCALE_OR_ZERO
from dpviz.learning.tasks import make_linear_task, make_logistic_task
from dpviz.learning.training import train_naive, train_user_level

__all__ = ["lesson_task", "heterogeneity_point", "heterogeneity_formula", "heterogeneity_m_star"]

#: the heterogeneity experiment's fixed settings: d = 5 features, label noise s = 0.5 (make_linear_task's default),
#: private runs at (ε, δ) = (1, 1e-5) with T = 60 steps
HETERO_D, HETERO_LABEL_NOISE, HETERO_EPSILON, HETERO_DELTA, HETERO_STEPS = 5, 0.5, 1.0, 1e-5, 60

#: Largest task :func:`lesson_task` builds and keeps, in feature entries n·m·d (about 20 MB each, 8 kept: the live
#: training panel's largest task, n·m = 2·10⁵ with d = 10, is at the cap).
LESSON_TASK_MAX_ENTRIES = 2_000_000

#: Largest experiment :func:`heterogeneity_point` runs: n ≤ 20 000 users and n·m ≤ 400 000 examples (about 1 s at
#: the caps; the panel's sliders stay below both).
HETERO_MAX_USERS, HETERO_MAX_EXAMPLES = 20_000, 400_000


def lesson_task(kind: str, n: int, m: int, d: int, heterogeneity: float, seed: int):
    """``make_linear_task`` / ``make_logistic_task`` (with a 4000-user holdout) at these settings, cached.

    ``kind`` is ``"linear"`` or ``"logistic"``, ``seed`` an integer ≥ 0 (a cached task must be reproducible: no
    fresh entropy), n·m·d at most :data:`LESSON_TASK_MAX_ENTRIES`; the generators check the rest."""
    check_choice(kind, "kind", ("linear", "logistic"))
    n = check_integer(n, "n", minimum=1, maximum=LESSON_TASK_MAX_ENTRIES)
    m = check_integer(m, "m", minimum=1, maximum=LESSON_TASK_MAX_ENTRIES)
    d = check_integer(d, "d", minimum=1, maximum=LESSON_TASK_MAX_ENTRIES)
    if n * m * d > LESSON_TASK_MAX_ENTRIES:
        raise ValueError(f"n·m·d = {n}·{m}·{d} = {n * m * d} is not allowed: must be at most LESSON_TASK_MAX_ENTRIES "
                         f"= {LESSON_TASK_MAX_ENTRIES}.")
    heterogeneity = SCALE_OR_ZERO.check(heterogeneity, "heterogeneity")
    seed = check_integer(seed, "seed", minimum=0)
    return _lesson_task(kind, n, m, d, heterogeneity, seed)


@lru_cache(maxsize=8)
def _lesson_task(kind: str, n: int, m: int, d: int, heterogeneity: float, seed: int):
    make = make_linear_task if kind == "linear" else make_logistic_task
    kw = dict(holdout=4000) if kind == "logistic" else {}
    return make(n, m, d, heterogeneity=heterogeneity, rng=seed, **kw)


#: heterogeneity_point's last results, by (n, m, h, seed): a slider moved back draws at once
_POINTS = RecentResults(32)


def heterogeneity_point(n: int, m: int, h: float, seed: int, *,
                        progress: Callable[[float], None] | None = None) -> tuple[float, float, float]:
    """Excess risk of (ERM, user-level DP-SGD, naive DP-SGD) on the d = 5 linear task with heterogeneity h.

    ``progress(fraction)``, if given, is called as the two trainings go (0 → ½ → 1); an exception it raises ends the
    computation there (a panel's stale update stops at once). The last 32 points are kept: one asked for again
    returns at once, without reports.

    ``n`` ≤ :data:`HETERO_MAX_USERS` and n·m ≤ :data:`HETERO_MAX_EXAMPLES`, ``h`` ≥ 0, ``seed`` an integer ≥ 0 (a
    kept point must be reproducible)."""
    check_progress(progress)
    n = check_integer(n, "n", minimum=1, maximum=HETERO_MAX_USERS)
    m = check_integer(m, "m", minimum=1, maximum=HETERO_MAX_EXAMPLES)
    if n * m > HETERO_MAX_EXAMPLES:
        raise ValueError(f"n·m = {n}·{m} = {n * m} is not allowed: must be at most HETERO_MAX_EXAMPLES = "
                         f"{HETERO_MAX_EXAMPLES}.")
    h = SCALE_OR_ZERO.check(h, "h")
    seed = check_integer(seed, "seed", minimum=0)
    key = (n, m, h, seed)
    kept = _POINTS.get(key)
    if kept is not None:
        return kept
    task = make_linear_task(n, m, HETERO_D, heterogeneity=h, rng=seed)
    erm = task.excess_risk(task.erm_solution())
    half = None if progress is None else (lambda f: progress(f / 2))
    rest = None if progress is None else (lambda f: progress(0.5 + f / 2))
    u = train_user_level(task, HETERO_EPSILON, HETERO_DELTA, HETERO_STEPS, rng=seed, progress=half).final_excess
    nv = train_naive(task, HETERO_EPSILON, HETERO_DELTA, HETERO_STEPS, rng=seed, progress=rest).final_excess
    point = (erm, u, nv)
    _POINTS.put(key, point)
    return point


def _trace_sigma() -> float:
    """tr Σ of the d = 5 linear task's feature covariance (a property of the generator, not of n, m, h)."""
    return float(np.trace(_lesson_task("linear", 2, 1, HETERO_D, 0.0, 0).sigma_x))


def heterogeneity_formula(n: int, ms, h: float) -> tuple[np.ndarray, float]:
    """(excess-risk formula s²d/(2nm) + h²·tr Σ/(2nd) over ``ms``, the drift floor h²·tr Σ/(2nd)).

    ``n`` an integer in [1, 10¹⁵], ``ms`` a 1-D array of m ≥ 1, ``h`` ∈ [0, 10¹²]."""
    n = COUNT.check(n, "n")
    ms = check_real_array(ms, "ms", ndim=1, allow_empty=True).astype(float)
    if np.any(ms < 1) or np.any(ms > COUNT.high):
        bad = float(ms[(ms < 1) | (ms > COUNT.high)][0])
        raise ValueError(f"ms = {bad!r} is not allowed: every m must be a number in [1, {COUNT.high:g}].")
    h = SCALE_OR_ZERO.check(h, "h")
    s2, d = HETERO_LABEL_NOISE**2, HETERO_D
    floor = h**2 * _trace_sigma() / (2 * n * d)
    return s2 * d / (2 * n * ms) + floor, floor


def heterogeneity_m_star(h: float) -> float:
    """m* = s²d²/(h² tr Σ): past it the excess risk is flat in m (``math.inf`` for h = 0, and where m* is beyond the
    double range: h² underflows to 0 below h ≈ 1.5e-162); ``h`` ∈ [0, 10¹²]."""
    h = SCALE_OR_ZERO.check(h, "h")
    return math.inf if h * h == 0 else HETERO_LABEL_NOISE**2 * HETERO_D**2 / (h**2 * _trace_sigma())
