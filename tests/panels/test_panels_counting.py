"""Headless tests of the lesson-02 panels: controls drive figures and readouts, controls that do not apply are
hidden, and the exercises reveal nothing before Reveal."""

from __future__ import annotations

import math

import pytest

from dpviz import local as LOC
from dpviz import sensitivity as S
from dpviz.panels import counting as C
from dpviz.panels.panel import PANEL_REGISTRY

PANELS = [C.SensitivityPanel, C.PostProcessingPanel, C.CompositionPanel, C.LocalCentralPanel]


def _data(fig) -> str:
    return str([t.to_plotly_json() for t in fig.data])


@pytest.mark.parametrize("cls", PANELS)
def test_builds_registered_themed_and_epsilon_changes_the_figure(cls):
    p = cls().refresh()
    assert p.last_error is None and p.figures and cls.__name__ in PANEL_REGISTRY
    assert p.figures[0].layout.template.layout.font.family.startswith("Inter")
    before, readout = _data(p.figures[0]), p.readout.value
    p.controls["epsilon"].value = 2.5
    assert p.last_error is None
    assert _data(p.figures[0]) != before and p.readout.value != readout


def test_sensitivity_panel_readout_and_hidden_controls():
    p = C.SensitivityPanel().refresh()
    p.controls["relation"].value = "replace"
    p.controls["lower"].value = -50.0
    assert "150" in p.readout.value  # Δ = U − L = 100 − (−50)
    p.controls["query"].value = "count"
    assert p.controls["upper"].layout.display == "none" and p.controls["n"].layout.display == "none"
    assert "<b>1</b>" in p.readout.value
    p.controls["query"].value = "histogram"
    assert "<b>2</b>" in p.readout.value and "two bins" in p.hint.value
    p.controls["query"].value = "mean"
    assert p.controls["n"].layout.display is None and p.controls["upper"].layout.display is None
    p.controls["query"].value = "sum"
    p.controls["upper"].value = 1.0
    p.controls["lower"].value = 50.0
    # U < L cannot be set: U's slider starts at L, so U follows it up
    assert p.last_error is None and p.controls["upper"].value == pytest.approx(50.0)
    assert p.controls["upper"].base ** p.controls["upper"].min == pytest.approx(50.0)
    p.controls["lower"].value = 0.0
    assert p.last_error is None and p.controls["upper"].min == 0.0


def test_postprocessing_panel_switches_step_and_hides_bins_for_clamping():
    p = C.PostProcessingPanel().refresh()
    assert p.controls["bins"].layout.display == "none" and "b²" in p.readout.value
    assert p.figures[0].data[1].y[0] == pytest.approx(1.0)  # ε = 1: b = 1, clamped MSE at 0 is b²
    p.controls["step"].value = "consistency"
    assert p.last_error is None and p.controls["bins"].layout.display is None
    # 8 bins, each count Lap(2/ε): variance 8; one bin after least squares 8·8/9
    assert f"{8 * 8 / 9:.3g}" in p.readout.value
    before = _data(p.figures[0])
    p.controls["bins"].value = 20
    assert _data(p.figures[0]) != before


def test_postprocessing_exercise_reveals_only_after_a_pick():
    p = C.PostProcessingPanel().refresh()
    ex = p.exercise
    assert ex.feedback.value == ""
    assert "Pick" in ex.reveal()
    ex.choice.index = 1
    assert "Right" in ex.reveal() and "Prop. 2.1" in ex.feedback.value
    ex.choice.index = 0
    assert ex.feedback.value == ""  # a new pick clears the verdict
    assert "Not quite" in ex.reveal()


def test_rounding_is_hidden_until_the_learner_answers_then_shown_exactly():
    p = C.PostProcessingPanel().refresh()
    assert len(p.figures[0].data) == 2 and "round" not in str(p.figures[0].layout.annotations)
    assert "? — answer" in p.readout.value and p.rounding.feedback.value == ""
    p.rounding.button.click()  # no pick yet: still hidden
    assert len(p.figures[0].data) == 2
    p.rounding.choice.index = 0
    p.rounding.button.click()
    assert "Not quite" in p.rounding.feedback.value
    assert len(p.figures[0].data) == 3 and "+3.8 %" in p.readout.value  # ε = 1: 2.0764/2
    b_star = S.rounding_breakeven_scale()
    assert f"{1 / b_star:.2f}" in p.rounding.feedback.value and "+14 %" in p.rounding.feedback.value
    p.controls["step"].value = "consistency"
    assert p.rounding.widget.layout.display == "none"
    p.controls["step"].value = "clamp"
    assert p.rounding.widget.layout.display is None and len(p.figures[0].data) == 3


def test_consistency_readout_compares_with_the_bins_alone_and_the_public_total():
    p = C.PostProcessingPanel(step="consistency").refresh()
    assert p.controls["relation"].layout.display is None
    # ε = 1, B = 8: bins alone 2/ε² = 2 per bin; consistent 8·8/9; crossover ¾·9 = 6.75
    assert "6.75" in p.readout.value and f"{8 * 8 / 9:.3g}" in p.readout.value and "bins alone" in p.readout.value
    p.controls["relation"].value = "replace"
    assert p.last_error is None and "public total" in p.readout.value
    assert f"{8 * 7 / 8:.3g}" in p.readout.value  # one bin: 8·(B − 1)/B
    p.controls["step"].value = "clamp"
    assert p.controls["relation"].layout.display == "none"


def test_composition_panel_hides_the_parallel_answer_until_reveal():
    p = C.CompositionPanel().refresh()
    assert len(p.figures[0].data) == 1 and "?" in p.readout.value
    assert p.controls["relation"].layout.display == "none"  # it changes only the hidden answer
    p.exercise.button.click()  # no pick yet: still hidden
    assert len(p.figures[0].data) == 1
    p.exercise.choice.index = 0
    p.exercise.button.click()
    assert len(p.figures[0].data) == 2 and "10×" in p.readout.value and "?" not in p.readout.value
    assert p.controls["relation"].layout.display is None


def test_local_central_panel_hides_the_answer_until_reveal_and_reveal_is_exact():
    p = C.LocalCentralPanel().refresh()
    p.controls["frequency"].value = 0.0
    assert "predict" in p.readout.value
    p.exercise.guess.value = 460_000
    text = p.exercise.reveal()
    p.exercise.button.click()
    expected = LOC.people_needed_local("krr", 1000, 2, 1.0, 0.0)
    # independent: V₁ = q(1−q)/(p−q)² for binary RR at ε = 1, n_local = V₁(ε n)²/2
    e = math.e
    q, pp = 1 / (e + 1), e / (e + 1)
    assert expected == pytest.approx(q * (1 - q) / (pp - q) ** 2 * 1000**2 / 2, rel=1e-12)
    assert "Close" in text
    assert "460,337" in p.readout.value
    p.controls["epsilon"].value = 2.0  # a new setting: predict again
    assert "predict" in p.readout.value


def test_bench_values_cover_each_control():
    for cls in PANELS:
        p = cls().refresh()
        for name, values in p.bench_values().items():
            assert values, (cls.__name__, name)
