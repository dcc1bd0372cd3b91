"""Headless tests of the lesson-10 panels: controls change figures, bad combinations show a message."""


import numpy as np
import pytest

from dpviz.panels import Values
from dpviz.panels.learning import (
    ERMUsersPanel,
    HeterogeneityPanel,
    LearningRatesPanel,
    PhasedERMPanel,
    TrainLivePanel,
)


def _ys(panel, k=0):
    return [None if t.y is None else np.asarray(t.y, dtype=float).copy() for t in panel.figures[k].data]


def _changed(a, b):
    return len(a) != len(b) or any((x is None) != (y is None) or (x is not None and (x.shape != y.shape or
                                   not np.allclose(x, y))) for x, y in zip(a, b))


@pytest.mark.parametrize("cls", [LearningRatesPanel, ERMUsersPanel, PhasedERMPanel])
def test_first_control_changes_first_figure(cls):
    p = cls().refresh()
    assert p.last_error is None
    name, ctrl = next(iter(p.controls.items()))
    before = _ys(p)
    ctrl.value = p.bench_values()[name][-2]
    assert p.last_error is None and _changed(before, _ys(p))


def test_rates_panel_naive_flat_in_m():
    p = LearningRatesPanel().refresh()
    naive_before = np.asarray(p.figures[0].data[3].y).copy()
    upper_before = np.asarray(p.figures[0].data[0].y).copy()
    p.controls["m"].value = 1000
    ns = np.asarray(p.figures[0].data[3].x)
    # the naive privacy term √d/(nε) does not move with m; only the statistical 1/√(nm) term does
    np.testing.assert_allclose(np.asarray(p.figures[0].data[3].y) - 1 / np.sqrt(ns * 1000),
                               naive_before - 1 / np.sqrt(ns * 100), rtol=1e-9)
    assert np.all(np.asarray(p.figures[0].data[0].y) < upper_before)


def test_train_live_panel_runs_and_reports_epsilon():
    p = TrainLivePanel(n=300, T=30).refresh()
    assert p.last_error is None
    assert len(p.figures[0].data) == 4
    assert "ε = " in p.readout.value and "item-level" in p.readout.value
    before = _ys(p)
    p.controls["m"].value = 100
    assert p.last_error is None and _changed(before, _ys(p))
    # issue 18: the sliders reach only what a live run accepts (n·m ≤ 2·10⁵), so no setting shows a refusal
    # above a stale figure; the largest corner runs
    n_max, m_max = p.controls["n"].max, p.controls["m"].max
    assert 10 ** n_max * 10 ** m_max <= 200_000
    # the render still refuses client input beyond the cap with a friendly message
    with pytest.raises(ValueError, match="n·m"):
        next(p.render(Values({**p.values(), "n": 10 ** 4, "m": 10 ** 3})))


def test_train_live_logistic_task():
    p = TrainLivePanel(n=200, T=20, task="logistic").refresh()
    assert p.last_error is None and p.figures[0].layout.yaxis.type != "log"
    # the logistic excess risk is a Monte-Carlo estimate that can read below 0: the table shows the training loss,
    # like the figure
    assert "final training loss" in p.readout.value and "excess" not in p.readout.value


def test_phased_panel_hint_when_users_run_out():
    p = PhasedERMPanel(n=200, m=1000).refresh()
    assert p.last_error is None
    assert "only" in p.hint.value  # the schedule asks for more phases than there are users


@pytest.mark.slow
def test_heterogeneity_panel_and_exercise():
    p = HeterogeneityPanel(n=100).refresh()
    assert p.last_error is None
    before = _ys(p)
    p.controls["heterogeneity"].value = 0.6
    assert _changed(before, _ys(p))
    truth = 0.25 * 25 / (0.09 * float(np.sum(np.geomspace(1, 0.1, 5)) / 5))
    p.controls["heterogeneity"].value = 0.3
    # issue 18: before Reveal, m* is neither drawn nor printed
    assert "m*" not in " ".join(a.text for a in p.figures[0].layout.annotations)
    assert f"{truth:.0f}" not in p.readout.value and "Reveal" in p.readout.value
    p.exercise.guess.value = 160
    p.exercise.button.click()
    text = p.exercise.feedback.value
    assert f"{truth:.4g}" in text
    assert f"{truth:.0f}" in p.readout.value
    assert any("m*" in a.text for a in p.figures[0].layout.annotations)
    p.controls["heterogeneity"].value = 0.0
    assert p.last_error is None and "∞" in p.readout.value


def test_train_live_paper_mode_shows_nominal_and_spent_epsilon():
    p = TrainLivePanel(n=300, T=20, mode="paper").refresh()
    assert p.last_error is None
    assert "claims ε = 1" in p.readout.value and "Paper constants" in p.hint.value
    # digest 004 pitfall P13: say β, and that β = 1 leaves Theorem 3 vacuous
    assert "β<sub>fail</sub> = 1" in p.hint.value and "says nothing" in p.hint.value


def test_train_live_non_private_run_reads_epsilon_infinity():
    p = TrainLivePanel(n=200, T=10).refresh()
    names = [t.name for t in p.figures[0].data]
    assert any("non-private" in s and "∞" in s for s in names)
    assert "ε = 0" not in p.readout.value and "10⁻⁵" in p.readout.value


def test_rates_panel_misconception_exercise_answers_the_matching_condition():
    p = LearningRatesPanel().refresh()
    ex = p.misconception
    assert ex.feedback.value == ""  # nothing before a pick and Reveal
    ex.choice.index = 0
    ex.reveal()
    assert "❌" in ex.feedback.value and "G = Θ(σ√d)" in ex.feedback.value
    # the right option's reason (the factor 10 = √100) is not printed anywhere before Reveal
    ex.choice.index = 1
    assert ex.feedback.value == ""  # a new pick clears the previous verdict
    ex.reveal()
    assert "✅" in ex.feedback.value
    p2 = LearningRatesPanel().refresh()
    assert "√(G/(σ√d))" not in p2.readout.value + p2.status.value
