"""Headless tests of the lesson-01 panels: controls drive the figures, answers stay hidden until Reveal."""

from __future__ import annotations

import math

import pytest
from _figure_checks import watch_updates_for_nan

from dpviz import attacks as A
from dpviz.panels import why_privacy as WP
from dpviz.panels._base import PANEL_REGISTRY, ChoiceReveal, PredictReveal

PANELS = [WP.DifferencingPanel, WP.ReconstructionPanel, WP.MembershipPanel]


def _data(fig) -> str:
    return str([t.to_plotly_json() for t in fig.data])


@pytest.mark.parametrize("cls", PANELS)
def test_builds_registered_themed_with_an_exercise(cls):
    p = cls()
    assert p.last_error is None and p.figures and cls.__name__ in PANEL_REGISTRY
    assert p.figures[0].layout.template.layout.font.family.startswith("Inter")
    assert p.readout.value
    assert isinstance(p.exercise, (PredictReveal, ChoiceReveal)) and p.exercise.widget in p._extra_widgets()


def test_exact_differencing_reveals_each_target():
    p = WP.DifferencingPanel()
    assert p.controls["release"].value == "exact"
    assert p.controls["epsilon"].layout.display == "none" and p.controls["draw"].layout.display == "none"
    for i, name in enumerate(WP._TABLE.names):
        p.controls["target"].value = i
        bit = bool(WP._TABLE.has_condition[i])
        assert f"{name} {'HAS' if bit else 'does NOT have'} the condition — right" in p.readout.value
        marker = p.figures[0].data[-1]
        assert list(marker.x) == [float(bit)]


def test_noisy_differencing_hides_the_success_rate_until_reveal():
    p = WP.DifferencingPanel(release="laplace")
    assert p.controls["epsilon"].layout.display is None
    found = watch_updates_for_nan(p)
    p.controls["epsilon"].value = 2.0
    exact = 100 * A.differencing_success_probability(0.5)
    shown = f"{exact:.3g} %"
    assert "predict it below" in p.readout.value and shown not in p.readout.value
    assert shown not in p.exercise.question.value + p.exercise.feedback.value
    p.exercise.guess.value = 80.0
    p.exercise.button.click()
    assert shown in p.readout.value and f"{exact:.4g}" in p.exercise.feedback.value
    # the released answers are the Laplace mechanism's, from the draw seed
    r = A.differencing_attack(WP._TABLE.has_condition, p.controls["target"].value, noise_scale=0.5,
                              rng=p.controls["draw"].value)
    assert list(p.figures[0].data[-1].x) == pytest.approx([r.difference])
    p.controls["draw"].value = 3  # a new setting: predict again
    assert shown not in p.readout.value
    assert found == []


def test_differencing_explanation_states_the_dp_bound():
    p = WP.DifferencingPanel(release="laplace", epsilon=1.0)
    text = p.exercise.reveal()
    assert "62.1 %" in text and f"{100 / (1 + math.exp(-2)):.3g} %" in text and "Dwork & Roth 2014, Thm 3.16" in text


def test_reconstruction_is_slow_caches_its_curve_and_reads_the_first_draw(monkeypatch):
    assert WP.ReconstructionPanel.slow
    p = WP.ReconstructionPanel(n=60, ratio=4, draw=2)
    calls = []
    real = WP.reconstruction_curve

    def counting(*a, **k):
        calls.append(a)
        return real(*a, **k)

    monkeypatch.setattr(WP, "reconstruction_curve", counting)
    for e in (0.5, 3.1622776601683795, 20.0, 100.0):
        p.controls["noise"].value = e
        assert p.last_error is None
        r = A.reconstruction_attack(60, 240, p.controls["noise"].value, 2)
        assert f"{r.recovered_fraction:.1%};" in p.readout.value
        assert list(p.figures[0].data[-1].x) == pytest.approx([p.controls["noise"].value])
    assert calls == []  # moving E reuses the curve
    p.controls["n"].value = 80
    assert len(calls) == 1 and p.progress.layout.visibility == "hidden"
    assert "n = 80 people, m = 320" in p.figures[0].layout.title.text


def test_reconstruction_choice_exercise_hides_until_reveal():
    p = WP.ReconstructionPanel()
    ex = p.exercise
    assert ex.feedback.value == ""
    correct = [i for i, (_, ok, _) in enumerate(ex.options) if ok]
    assert len(correct) == 1 and "√n" in ex.options[correct[0]][0]
    ex.choice.index = correct[0]
    assert ex.feedback.value == "" and "Right" in ex.reveal()


def test_membership_noise_switch_and_readout():
    p = WP.MembershipPanel(n=100.0, p=0.05, scale=1.0)
    found = watch_updates_for_nan(p)
    assert "ε = 1/b = 1" in p.readout.value and "ε = 1-DP" in p.figures[0].data[0].name
    raw = A.membership_tradeoff(100, 0.05)
    assert f"{raw.advantage():.3f} /" in p.readout.value
    p.controls["noise"].value = "gaussian"
    assert "μ = 1/σ = 1" in p.readout.value and "GDP" in p.figures[0].data[0].name
    before = _data(p.figures[0])
    p.controls["p"].value = 0.4
    assert _data(p.figures[0]) != before and p.last_error is None
    assert found == []
