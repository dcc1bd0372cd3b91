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


def test_heterogeneity_point_reports_progress_through_both_trainings_and_stops_when_it_raises():
    X._POINTS.clear()
    plain = X.heterogeneity_point(50, 3, 0.3, 0)
    X._POINTS.clear()
    seen: list[float] = []
    assert X.heterogeneity_point(50, 3, 0.3, 0, progress=seen.append) == plain  # reporting changes no draw
    assert seen and all(0 <= a <= b <= 1 for a, b in zip(seen, seen[1:]))  # from 0 to 1, never backwards
    assert min(seen) <= 0.5 < max(seen) and max(seen) == pytest.approx(1.0)  # both trainings report

    class Stop(Exception):
        pass

    calls = []

    def stop(fraction):
        calls.append(fraction)
        raise Stop

    with pytest.raises(Stop):
        X.heterogeneity_point(50, 4, 0.3, 0, progress=stop)
    assert len(calls) == 1
    assert (50, 4, 0.3, 0) not in X._POINTS  # a point cut short is not kept
    # a point computed before is kept: asked again, it returns at once (no reports), whatever progress is passed
    assert X.heterogeneity_point(50, 3, 0.3, 0, progress=stop) == plain and len(calls) == 1
    with pytest.raises(TypeError, match="progress = 3 is not allowed"):
        X.heterogeneity_point(50, 3, 0.3, 0, progress=3)
