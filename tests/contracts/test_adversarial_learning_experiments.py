"""Adversarial-input sweep of :mod:`dpviz.learning.experiments` (the seeded, cached experiments of lesson 13's
panels), with the values the panels send as baselines; separate tests pin the caps and the defects the sweep found.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _adversarial import contract_tests

from dpviz.learning import experiments as X


def _progress(fraction):
    return None


BASELINES = {
    "lesson_task": (("linear", 30, 4, 10, 0.3, 0), {}),
    "heterogeneity_point": ((40, 3, 0.3, 0), {"progress": _progress}),
    "heterogeneity_formula": ((200, np.array([1.0, 3.0, 10.0, 30.0]), 0.3), {}),
    "heterogeneity_m_star": ((0.3,), {}),
}

globals().update(contract_tests(X, BASELINES))


def test_cap_values_are_the_documented_ones():
    assert X.LESSON_TASK_MAX_ENTRIES == 2_000_000
    assert (X.HETERO_MAX_USERS, X.HETERO_MAX_EXAMPLES) == (20_000, 400_000)


def test_lesson_task_size_is_capped():
    # the cache keeps 8 tasks: at 10⁷ entries each (the generators' own cap) that was 640 MB held by one panel
    with pytest.raises(ValueError, match=r"n·m·d = 10000·30·10 = 3000000 .*LESSON_TASK_MAX_ENTRIES = 2000000"):
        X.lesson_task("linear", 10_000, 30, 10, 0.0, 0)
    task = X.lesson_task("logistic", 1000, 200, 10, 0.5, 0)  # the live-training panel's largest task
    assert task.X.shape == (1000, 200, 10)


def test_heterogeneity_point_size_is_capped():
    # n = 4·10⁵, m = 1 took 14 s (per-user work); the panel's sliders reach n ≈ 2000 and n·m ≤ 4·10⁵
    with pytest.raises(ValueError, match=r"n = 20001 .*<= 20000"):
        X.heterogeneity_point(20_001, 1, 0.3, 0)
    with pytest.raises(ValueError, match=r"n·m = 2000·201 = 402000 .*HETERO_MAX_EXAMPLES = 400000"):
        X.heterogeneity_point(2000, 201, 0.3, 0)
    erm, user, naive = X.heterogeneity_point(20_000, 20, 0.3, 0)  # at both caps: about a second
    assert 0 < erm < user and 0 < naive


def test_cached_experiments_refuse_a_seed_that_is_not_reproducible():
    # seed = None gave a task (and a point) drawn from fresh entropy, then kept under the key None: the next call
    # with seed = None returned the same "random" draw
    with pytest.raises(ValueError, match="seed = None"):
        X.lesson_task("linear", 30, 4, 3, 0.2, None)
    with pytest.raises(ValueError, match="seed = None"):
        X.heterogeneity_point(30, 2, 0.2, None)


def test_lesson_task_refuses_an_unknown_kind():
    # any kind other than "linear" (a typo such as "Linear") silently built a logistic task
    with pytest.raises(ValueError, match="kind = 'Linear'"):
        X.lesson_task("Linear", 30, 4, 3, 0.2, 0)


def test_formula_refuses_values_that_overflowed_or_divided_by_zero():
    # h = 1e308 raised OverflowError (h²), n = 0 ZeroDivisionError, ms = 0 a division warning and ∞
    with pytest.raises(ValueError, match="h = 1e"):
        X.heterogeneity_formula(200, [1.0], 1e308)
    with pytest.raises(ValueError, match="n = 0"):
        X.heterogeneity_formula(0, [1.0], 0.3)
    with pytest.raises(ValueError, match=r"ms = 0.0 .*\[1, "):
        X.heterogeneity_formula(200, [0.0, 1.0], 0.3)
    with pytest.raises(ValueError, match="h = 1e"):
        X.heterogeneity_m_star(1e308)
    formula, floor = X.heterogeneity_formula(200, [], 0.3)
    assert formula.size == 0 and floor > 0 and math.isfinite(X.heterogeneity_m_star(1e-12))
