"""dpviz.learning.experiments: the lesson-06 experiment helpers (cached tasks, heterogeneity formula)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpviz.learning import experiments as X
from dpviz.learning import make_linear_task


def test_lesson_task_is_the_seeded_generator_and_cached():
    t = X.lesson_task("linear", 30, 4, 3, 0.2, 1)
    ref = make_linear_task(30, 4, 3, heterogeneity=0.2, rng=1)
    np.testing.assert_array_equal(t.sigma_x, ref.sigma_x)
    assert X.lesson_task("linear", 30, 4, 3, 0.2, 1) is t


@pytest.mark.parametrize("h", [0.1, 0.3, 1.0])
def test_m_star_is_where_drift_equals_the_statistical_term(h):
    # oracle: s²d/(2nm) = h²·tr Σ/(2nd) solved for m by hand, with tr Σ read from the generator
    tr = float(np.trace(make_linear_task(2, 1, 5, rng=0).sigma_x))
    m_star = X.heterogeneity_m_star(h)
    assert m_star == pytest.approx(0.25 * 25 / (h * h * tr), rel=1e-14)
    formula, floor = X.heterogeneity_formula(200, [m_star], h)
    assert floor == pytest.approx(h * h * tr / (2 * 200 * 5), rel=1e-14)
    assert formula[0] == pytest.approx(2 * floor, rel=1e-12)  # the two terms are equal at m*
    assert X.heterogeneity_m_star(0.0) == math.inf
