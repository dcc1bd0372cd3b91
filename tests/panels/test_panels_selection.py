"""Headless tests of the lesson-04 panels: controls drive the figures, errors stay in the panel, the exercises hide
their answers until Reveal."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz import selection as S
from dpviz.panels import selection as PS
from dpviz.panels.panel import PANEL_REGISTRY

PANELS = [PS.NoisyMaxPanel, PS.SelectionUtilityPanel, PS.SparseVectorPanel, PS.SparseVectorCheckPanel]


def _data(fig) -> str:
    return str([t.to_plotly_json() for t in fig.data])


@pytest.mark.parametrize("cls", PANELS)
def test_builds_registered_and_first_slider_changes_the_figure(cls):
    p = cls().refresh()
    assert p.last_error is None and p.figures and cls.__name__ in PANEL_REGISTRY and p.readout.value
    name, first = next((n, c) for n, c in p.controls.items() if hasattr(c, "max"))
    before = _data(p.figures[0])
    first.value = first.max if first.value != first.max else first.min
    assert p.last_error is None and _data(p.figures[0]) != before


def test_noisy_max_hides_the_exponential_mechanism_until_reveal():
    p = PS.NoisyMaxPanel().refresh()
    u = [p.controls[f"u{i}"].value for i in range(1, p.controls["k"].value + 1)]
    truth = float(S.selection_probabilities(u, p.controls["epsilon"].value)[0])
    assert len(p.figures[0].data[0].y) == 0 and "?" in p.readout.value
    assert f"{truth:.4g}" not in p.readout.value
    p.exercise.guess.value = 0.2  # the guess commits (as Enter does): the reveal draws the panel again
    text = p.exercise.feedback.value
    assert f"{truth:.4g}" in text
    np.testing.assert_allclose(np.array(p.figures[0].data[0].y, dtype=float)[0], truth, rtol=1e-12)
    p.controls["epsilon"].value = 2.0  # a new setting: predict again
    assert len(p.figures[0].data[0].y) == 0


def test_noisy_max_reads_the_learners_scores_and_hides_unused_sliders():
    p = PS.NoisyMaxPanel().refresh()
    p.controls["k"].value = 3
    p.controls["u1"].value, p.controls["u2"].value, p.controls["u3"].value = 1.0, 5.0, 2.0
    assert p.last_error is None and len(p.figures[0].data[1].y) == 3
    np.testing.assert_allclose(np.array(p.figures[0].data[1].y, dtype=float),
                               S.selection_probabilities([1.0, 5.0, 2.0], 1.0, noise="laplace"))
    assert p.controls["u4"].layout.display == "none" and p.controls["u3"].layout.display is None


def test_misconception_exercises_reveal_feedback_only_after_a_pick():
    p = PS.NoisyMaxPanel().refresh()
    ex = p.misconception
    assert ex.feedback.value == ""
    assert "Pick" in ex.reveal()
    ex.choice.index = 1
    assert ex.reveal().startswith("✅")
    ex.choice.index = 0
    assert ex.reveal().startswith("❌")
    sv = PS.SparseVectorPanel().misconception
    sv.choice.index = 1
    assert sv.reveal().startswith("✅")


def test_utility_panel_switches_views_and_both_sliders_mean_what_they_show():
    """Against ε the k slider sets the curve and the ε slider the marked point and readout; against k the roles
    swap. Neither is hidden, and the readout is always at the sliders' (k, ε) (it once used a hidden k)."""
    p = PS.SelectionUtilityPanel().refresh()
    p.controls["k"].value = 100.0
    p.controls["epsilon"].value = 2.0
    assert p.controls["epsilon"].layout.display is None and p.controls["k"].layout.display is None
    assert "at k = 100, ε = 2" in p.readout.value
    assert p.figures[0].layout.shapes[0].x0 == pytest.approx(2.0)  # the marked ε
    p.controls["against"].value = "k"
    assert p.last_error is None and "number of candidates" in p.figures[0].layout.xaxis.title.text
    assert "at k = 100, ε = 2" in p.readout.value
    assert p.figures[0].layout.shapes[0].x0 == pytest.approx(100.0)  # the marked k


def test_sparse_vector_panel_budget_counts_only_positives():
    p = PS.SparseVectorPanel().refresh()
    p.controls["threshold"].value = 100.0  # nothing truly reaches 100: mostly ⊥, almost nothing spent
    p.controls["epsilon"].value = 5.0
    y = [v for v in p.figures[1].data[0].y if v is not None]
    assert y[0] == pytest.approx(2.5) and y[-1] <= 5.0 + 1e-12


def test_check_panel_verdicts():
    p = PS.SparseVectorCheckPanel().refresh()
    assert "within" in p.readout.value
    p.controls["variant"].value = "no_query_noise"
    assert "exceeds" in p.readout.value and "∞" in p.readout.value
    p.controls["variant"].value = "no_cutoff"
    p.controls["n_queries"].value = 6
    assert "exceeds" in p.readout.value


def test_cost_exercise_is_off_by_no_factor_two():
    # at scale 2Δ/ε each noisy score is an (ε/2)-DP Laplace release: publishing 100 of them costs 100·ε/2 = 50·ε
    # by basic composition (not 100·ε); the distractor and its feedback say so
    from dpviz.sensitivity import laplace_scale, sequential_epsilon

    b = S.noise_scale(1.0)
    per_score = 1.0 / b  # the ε of Lap(b) on a score of sensitivity 1: laplace_scale(1, ε) = b
    assert laplace_scale(1.0, per_score) == pytest.approx(b, rel=1e-15)
    assert sequential_epsilon([per_score] * 100) == pytest.approx(50.0, rel=1e-15)
    ex = PS.NoisyMaxPanel().misconception
    (wrong, _, feedback), (_, ok, right_feedback) = ex.options[0], ex.options[1]
    assert wrong.startswith("50·ε") and "(ε/2)-DP" in wrong and "50·ε" in feedback and "100·ε/2" in feedback
    assert ok and "histogram" in right_feedback and "100·ε" not in wrong


def test_panel_strings_use_the_course_symbols():
    # SVT noises are Z_T and Z_i (ρ and ν mean zCDP and TV drift in the course), neighbours are x and x′
    sv, chk = PS.SparseVectorPanel().refresh(), PS.SparseVectorCheckPanel().refresh()
    text = " ".join([sv.intro, sv.readout.value, chk.intro, chk.readout.value,
                     *(c.description for c in chk.controls.values())])
    assert "ρ" not in text and "ν" not in text and "D′" not in text
    assert not chk.controls["n_queries"].description.endswith(" n")  # n is the number of people in the course
    assert "Z<sub>T</sub>" in sv.readout.value and "x′" in chk.intro
    assert "ex post" in sv.readout.value


def test_sparse_vector_stream_is_the_cores_seeded_stream_and_a_prefix_of_the_longest():
    # the panel draws nothing itself: its answers are the core's stream at the lesson's seed, the same every time
    full = S.example_query_stream(S.EXAMPLE_STREAM_LENGTH, PS.STREAM_SEED)
    assert full.shape == (60,) and full.min() >= 0 and full.max() <= 100 and np.all(full == np.round(full))
    p = PS.SparseVectorPanel(n_queries=20).refresh()
    np.testing.assert_array_equal(np.array(p.figures[0].data[0].y, dtype=float), full[:20])
    np.testing.assert_array_equal(S.example_query_stream(20, PS.STREAM_SEED), full[:20])
    assert f"queries truly ≥ T (not released)</td><td><b>{int(np.sum(full[:20] >= 70.0))}</b>" in p.readout.value
    with pytest.raises(ValueError, match=r"n = 61 is not allowed"):
        S.example_query_stream(61, PS.STREAM_SEED)
