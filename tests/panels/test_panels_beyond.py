"""Headless tests of the lesson-05 panels: every control moves the figure, bad settings show a message and no figure,
each exercise's answer is right by an independent computation, and no answer shows before Reveal."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpviz import beyond as B
from dpviz.panels import beyond as PB
from dpviz.panels.panel import PANEL_REGISTRY

PANELS = [PB.MedianSensitivityPanel, PB.LocalSensitivityLeakPanel, PB.SmoothSensitivityPanel,
          PB.ProposeTestReleasePanel, PB.SampleAggregatePanel, PB.QuantileClippingPanel]


def _state(p) -> str:
    return str([t.to_plotly_json() for f in p.figures for t in f.data]) + str(
        [f.layout.to_plotly_json() for f in p.figures]) + (p.readout.value or "")


def _other(control):
    """A value of the control's widget other than its current one (an end of a slider, another option)."""
    w = control
    if hasattr(w, "options") and not hasattr(w, "max"):
        values = [o[1] if isinstance(o, tuple) else o for o in w.options]
        return next(x for x in values if x != w.value)
    return w.max if w.value != w.max else w.min


@pytest.mark.parametrize("cls", PANELS)
def test_builds_registered_and_every_control_moves_the_figure(cls):
    p = cls().refresh()
    assert p.last_error is None and p.figures and cls.__name__ in PANEL_REGISTRY and p.readout.value
    for name, control in p.controls.items():
        if name == "delta" and getattr(p.controls.get("noise"), "value", "laplace") != "laplace":
            continue
        before = _state(p)
        old = control.value
        control.value = _other(control)
        assert p.last_error is None, (name, p.last_error)
        assert _state(p) != before, f"{cls.__name__}: moving {name} changed nothing"
        control.value = old


def _lesson_data(n):
    """The lesson's data, written out independently: the n quantiles (i + ½)/n of the log-normal law with median 30
    and log-scale 0.9 (dpviz.sensitivity.example_dataset)."""
    from scipy import stats

    return 30.0 * np.exp(0.9 * stats.norm.ppf((np.arange(n) + 0.5) / n))


def test_the_data_are_the_fixed_log_normal_quantiles():
    np.testing.assert_allclose(PB.data(51), _lesson_data(51), rtol=1e-14)


def test_median_exercise_answer_is_the_brute_force_local_sensitivity_and_hidden_until_reveal():
    p = PB.MedianSensitivityPanel(n=11, upper=100.0).refresh()
    x = _lesson_data(11)
    # brute force: replace each record by each value of a grid holding the data and the bounds
    grid = np.union1d(np.linspace(1.0, 100.0, 397), np.r_[x, 1.0, 100.0])
    med = np.sort(x)[5]
    ls = max(abs(np.sort(np.r_[np.delete(x, i), v])[5] - med) for i in range(11) for v in grid)
    assert p.exercise.truth() == pytest.approx(ls, rel=1e-12)
    assert "?" in p.readout.value and f"{ls:.4g}" not in p.readout.value
    assert len(p.figures[0].data[1].x) == 0  # the median's curve is hidden
    p.exercise.guess.value = 1.0  # commits, reveals, redraws
    assert f"{ls:.4g}" in p.exercise.feedback.value and f"{ls:.4g}" in p.readout.value
    assert len(p.figures[0].data[1].x) > 0
    p.controls["n"].value = 13  # a new setting: predict again
    assert len(p.figures[0].data[1].x) == 0 and "?" in p.readout.value


@pytest.mark.parametrize("cls, right", [(PB.MedianSensitivityPanel, 1), (PB.LocalSensitivityLeakPanel, 1),
                                        (PB.ProposeTestReleasePanel, 1), (PB.SampleAggregatePanel, 0)])
def test_misconception_exercises_reveal_feedback_only_after_a_pick(cls, right):
    ex = cls().misconception
    assert ex.feedback.value == "" and "Pick" in ex.reveal()
    ex.choice.index = right
    assert ex.reveal().startswith("✅")
    ex.choice.index = (right + 1) % len(ex.options)
    assert ex.reveal().startswith("❌")
    assert [ok for _, ok, _ in ex.options].count(True) == 1


def test_leak_panel_shows_the_exact_pair():
    p = PB.LocalSensitivityLeakPanel().refresh()
    # x′ = (0.125, 0.25, 0.5, 0.4375, 0.875): med 0.4375, LS(x′) = max(0.0625, 0.1875) ≠ LS(x) = 0.25
    assert "0.25, 0.1875" in p.readout.value and "∞" in p.readout.value and len(p.figures) == 2
    # the exact δ at ε = 1: ∫ (p − e·q)₊ and the reverse, by fine quadrature (the largest of the two)
    y = np.linspace(-12.0, 13.0, 2_000_001)
    pdf = lambda y, mu, b: np.exp(-np.abs(y - mu) / b) / (2 * b)  # noqa: E731
    px, qx = pdf(y, 0.5, 0.25), pdf(y, 0.4375, 0.1875)
    dy = y[1] - y[0]
    delta = max(np.sum(np.maximum(px - math.e * qx, 0)) * dy, np.sum(np.maximum(qx - math.e * px, 0)) * dy)
    assert f"{delta:.3g}" in p.readout.value
    p.controls["value"].value = 0.25  # x′ = (0.125, 0.25, 0.25, 0.5, 0.875): med 0.25, LS = 0.25 — equal scales
    assert p.last_error is None


def test_leak_panel_with_equal_scales_has_a_bounded_loss_and_says_so():
    # x′ = (0.125, 0.25, 0.5, 0.75, 0.875): med 0.5, LS = max(0.25, 0.25) = LS(x): the loss is 0 everywhere
    p = PB.LocalSensitivityLeakPanel(value=0.75).refresh()
    leak = B.local_sensitivity_leak(PB.LEAK_DATA, [0.125, 0.25, 0.5, 0.75, 0.875], 1.0, 0.0, 1.0)
    assert leak.scale == leak.scale_neighbour == 0.25 and leak.max_privacy_loss == 0.0
    assert p.hint.value and "Equal scales" in p.hint.value


def test_smooth_panel_readout_matches_the_corollary():
    p = PB.SmoothSensitivityPanel().refresh()
    x = _lesson_data(201)
    beta = 1.0 / (2 * math.log(2 / 1e-6))
    z = np.r_[1.0, np.sort(x), 1000.0]
    m = 101
    s = max((z[i] - z[j]) * math.exp(-beta * (i - j - 1)) for j in range(m + 1) for i in range(m, 203) if j < i)
    assert f"{s:.4g}" in p.readout.value and f"{2 * s:.4g}" in p.readout.value
    p.controls["noise"].value = "cauchy"
    assert p.controls["delta"].layout.display == "none" and "δ = 0" in p.readout.value and p.hint.value


def test_ptr_exercise_answer_is_the_distance_and_hidden_until_reveal():
    p = PB.ProposeTestReleasePanel().refresh()
    x = _lesson_data(1001)
    z = np.r_[1.0, np.sort(x), 1000.0]
    m = 501

    def a_k(k):  # A^(k) = max over t of z_{m+t} − z_{m+t−k−1}, indices clamped to the padded array
        return max(z[min(m + t, 1002)] - z[max(m + t - k - 1, 0)] for t in range(k + 2))

    gamma = next(k for k in range(1002) if a_k(k) > 1.0)
    assert p.exercise.truth() == gamma == 14
    assert len(p.figures[0].data) == 1 and "? — predict" in p.readout.value  # no marker, no γ
    pass_p = 1 - math.exp(-gamma) / 2e-6
    assert f"{pass_p:.3g}" not in p.readout.value
    p.exercise.guess.value = 10.0
    assert len(p.figures[0].data) == 2 and f"{pass_p:.3g}" in p.readout.value
    assert p.figures[0].data[1].x[0] == gamma


def test_ptr_runs_follow_the_draw_and_the_guarantee_is_two_epsilon():
    p = PB.ProposeTestReleasePanel().refresh()
    assert "(2, 1e-06)-DP" in p.readout.value
    outcomes = set()
    for seed in range(0, 40, 3):
        p.controls["seed"].value = seed
        outcomes.add("⊥" in p.readout.value)
    assert outcomes == {True, False}  # both ⊥ and a release happen: P[pass] = 1 − e^{−14}/(2·10⁻⁶) = 0.584


def test_sample_aggregate_noise_scale_is_range_over_blocks_epsilon():
    p = PB.SampleAggregatePanel().refresh()
    assert "Lap(9.99)" in p.readout.value  # (1000 − 1)/(100·1)
    p.controls["blocks"].value = 1000.0
    assert "Lap(0.999)" in p.readout.value
    p.controls["aggregate"].value = "median"
    assert "exponential mechanism" in p.readout.value and p.last_error is None


def test_quantile_exercise_answer_is_the_tail_weight_and_hidden_until_reveal():
    p = PB.QuantileClippingPanel().refresh()
    x = np.sort(_lesson_data(201))
    z = np.r_[1.0, x, 1000.0]
    logw = np.log(np.diff(z)) - 0.5 * np.abs(np.arange(202) - 0.9 * 201)
    tail = math.exp(logw[-1] - np.logaddexp.reduce(logw))
    assert p.exercise.truth() == pytest.approx(tail, rel=1e-10)
    text = " ".join(a.text for a in p.figures[0].layout.annotations) + p.readout.value
    assert "above every value" not in text and f"{tail:.3g}" not in text
    p.exercise.guess.value = 0.5
    text = " ".join(a.text for a in p.figures[0].layout.annotations)
    assert f"{tail:.3g}" in text
    # the drawn bound is the core's draw at the panel's seed
    c = B.choose_clipping_bound(_lesson_data(201), 1.0, 0.9, 1.0, 1000.0, rng=0)
    assert f"{c:.4g}" in p.readout.value


def test_a_bad_setting_shows_a_message_and_no_figure_then_recovers(monkeypatch):
    # the controls cannot send a setting the core refuses, so the test makes one: fewer records than blocks
    p = PB.SampleAggregatePanel(blocks=1000.0).refresh()
    assert p.last_error is None
    real = PB.data
    monkeypatch.setattr(PB, "data", lambda n: real(n)[:10])
    p.controls["epsilon"].value = 2.0
    assert p.last_error and "blocks = 1000" in p.last_error and "Traceback" not in p.last_error
    assert p.status.value and "blocks" in p.status.value and p._figbox.layout.visibility == "hidden"
    monkeypatch.setattr(PB, "data", real)
    p.controls["epsilon"].value = 1.0
    assert p.last_error is None and p._figbox.layout.visibility == "visible"
