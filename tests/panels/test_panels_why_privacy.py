"""Headless tests of the lesson-01 panels: controls drive the figures, answers stay hidden until Reveal."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _figure_checks import watch_updates_for_nan

from dpviz import attacks as A
from dpviz.panels import ChoiceReveal, PredictReveal
from dpviz.panels import why_privacy as WP
from dpviz.panels.panel import PANEL_REGISTRY

PANELS = [WP.DifferencingPanel, WP.LinkagePanel, WP.ReconstructionPanel, WP.MembershipPanel]


def _data(fig) -> str:
    return str([t.to_plotly_json() for t in fig.data])


@pytest.mark.parametrize("cls", PANELS)
def test_builds_registered_themed_with_an_exercise(cls):
    p = cls().refresh()
    assert p.last_error is None and p.figures and cls.__name__ in PANEL_REGISTRY
    assert p.figures[0].layout.template.layout.font.family.startswith("Inter")
    assert p.readout.value
    assert isinstance(p.exercise, (PredictReveal, ChoiceReveal)) and p.exercise.widget in p.widget.children


def test_exact_differencing_reveals_each_target():
    p = WP.DifferencingPanel().refresh()
    assert p.controls["release"].value == "exact"
    assert p.controls["epsilon"].layout.display == "none" and p.controls["draw"].layout.display == "none"
    for i, name in enumerate(WP._TABLE.names):
        p.controls["target"].value = i
        bit = bool(WP._TABLE.has_condition[i])
        assert f"{name} {'HAS' if bit else 'does NOT have'} the condition — right" in p.readout.value
        marker = p.figures[0].data[-1]
        assert list(marker.x) == [float(bit)]


def test_noisy_differencing_hides_the_success_rate_until_reveal():
    p = WP.DifferencingPanel(release="laplace").refresh()
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
    p = WP.DifferencingPanel(release="laplace", epsilon=1.0).refresh()
    text = p.exercise.reveal()
    assert "62.1 %" in text and f"{100 / (1 + math.exp(-2)):.3g} %" in text and "Dwork & Roth 2014, Thm 3.16" in text


def test_reconstruction_is_slow_caches_its_curve_and_reads_the_first_draw(monkeypatch):
    assert WP.ReconstructionPanel.slow
    p = WP.ReconstructionPanel(n=60, ratio=4, draw=2).refresh()
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
    p = WP.ReconstructionPanel().refresh()
    ex = p.exercise
    assert ex.feedback.value == ""
    correct = [i for i, (_, ok, _) in enumerate(ex.options) if ok]
    assert len(correct) == 1 and "√n" in ex.options[correct[0]][0]
    ex.choice.index = correct[0]
    assert ex.feedback.value == "" and "Right" in ex.reveal()


def test_membership_noise_switch_and_readout():
    p = WP.MembershipPanel(n=100.0, p=0.05, scale=1.0).refresh()
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


@pytest.mark.slow
def test_reconstruction_feedback_and_readout_use_the_corrected_error():
    p = WP.ReconstructionPanel(n=400, ratio=5, noise=5.011872336272722).refresh()  # E = 10^0.7, on the slider's grid
    e = p.controls["noise"].value
    assert f"{A.least_squares_error_sd(400, 2000, e):.3g} (a bit flips past ½)" in p.readout.value
    texts = " ".join(feedback for _, _, feedback in p.exercise.options)
    # the exercise's numbers: n = 400 people, 2000 answers, errors up to ±5
    assert f"2·5/√4800 ≈ {A.least_squares_error_sd(400, 2000, 5.0):.2f}" in texts
    assert "pins the secrets down" in texts or "pin the secrets down" in texts
    assert "one solution" not in texts
    p.controls["ratio"].value = 1
    assert "no answers are left to average" in p.readout.value and p.last_error is None


def test_membership_feedback_says_membership_not_identification():
    texts = " ".join(feedback for _, _, feedback in WP.MembershipPanel().exercise.options)
    assert "whether a known person's DNA was in the mixture" in texts and "identified" not in texts


def _revealed_people(r):
    return int(r.disclosed.sum())


def test_linkage_panel_at_n_8_is_the_lesson_table():
    p = WP.LinkagePanel(n=8, draw=0).refresh()
    t = A.synthetic_table(8, WP._TABLE_SEED)
    assert t.names == WP._TABLE.names
    r = A.linkage_attack(t.ages, t.towns, t.has_condition, A.voter_roll(8, 0.6, (WP._ROLL_SEED, 0)))
    assert f"{int(r.unique.sum())} ({100 * r.unique_fraction:.3g} % of n)" in p.readout.value
    assert f"{int(r.reidentified.sum())} ({100 * r.reidentified_fraction:.3g} % of n)" in p.readout.value
    for i in np.flatnonzero(r.reidentified)[:2]:
        assert t.names[i] in p.readout.value


def test_linkage_panel_follows_its_controls_and_hides_disclosure_until_reveal():
    p = WP.LinkagePanel().refresh()
    found = watch_updates_for_nan(p)
    n, cov = p.controls["n"].value, p.controls["coverage"].value
    t = A.synthetic_table(n, WP._TABLE_SEED)
    res = A.linkage_by_generalisation(t.ages, t.towns, t.has_condition, A.voter_roll(n, cov, (WP._ROLL_SEED, 0)))
    bars = [tr for tr in p.figures[0].data if tr.type == "bar"]
    assert len(bars) == 2 and np.allclose(bars[0].y, [100 * r.unique_fraction for r in res])
    p.controls["release"].value = 2  # 10-year bands + town
    r = res[2]
    assert f"k = {r.k}" in p.readout.value and "answer the question below first" in p.readout.value
    assert r.k >= 2 and "no row is unique" in p.hint.value
    assert not any("revealed" in (tr.name or "") for tr in p.figures[0].data)
    shown = f"{_revealed_people(r)} ({100 * r.disclosed_fraction:.3g} % of n)"
    assert shown not in p.readout.value
    # pressing Reveal without a choice reveals nothing
    p.exercise.button.click()
    assert "answer the question below first" in p.readout.value
    right = [i for i, (_, ok, _) in enumerate(p.exercise.options) if ok]
    assert len(right) == 1
    p.exercise.choice.index = 0  # a wrong answer is a commitment too
    p.exercise.button.click()
    assert "Not quite" in p.exercise.feedback.value
    assert shown in p.readout.value and p.hint.value == ""
    assert any(tr.name == "condition revealed (on roll)" for tr in p.figures[0].data)
    assert r.disclosed.sum() > 0, "the lesson's example must show a disclosure without a unique row"
    before = str(p.figures[0].data[0].y)
    p.controls["n"].value = 200
    assert str(p.figures[0].data[0].y) != before and p.last_error is None
    assert found == []


@pytest.mark.slow
def test_linkage_exercise_cites_what_it_claims():
    text = " ".join(f for _, _, f in WP.LinkagePanel().exercise.options)
    for cite in ("Sweeney 2002, §4", "Dwork & Roth 2014, Thm 3.16", "Dwork & Roth 2014, §1"):
        assert cite in text
