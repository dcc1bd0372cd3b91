"""Headless tests of the lesson-06 panels: controls drive the figures, nothing gives an answer away before Reveal,
the exercises work, errors stay in the panel."""

from __future__ import annotations

import math

import pytest
from _figure_checks import watch_updates_for_nan

from dpviz import interpret as I
from dpviz.deployments import DEPLOYMENTS
from dpviz.panels import choosing_epsilon as C
from dpviz.panels.panel import PANEL_REGISTRY

PANELS = [C.PosteriorBoundPanel, C.DeploymentsPanel, C.AccuracyCalibrationPanel, C.BudgetSplitPanel]


def _data(fig) -> str:
    return str([t.to_plotly_json() for t in fig.data])


@pytest.mark.parametrize("cls", PANELS)
def test_builds_registered_and_first_slider_changes_the_figure(cls):
    p = cls().refresh()
    assert p.last_error is None and p.figures and cls.__name__ in PANEL_REGISTRY
    assert p.figures[0].layout.template.layout.font.family.startswith("Inter")
    name, first = next(iter(p.controls.items()))
    before, readout = _data(p.figures[0]), p.readout.value
    first.value = 10 ** first.max if first.value != 10 ** first.max else 10 ** first.min
    assert p.last_error is None
    assert _data(p.figures[0]) != before
    assert p.readout.value != readout or cls is C.DeploymentsPanel  # the deployments table does not depend on p


def test_posterior_panel_hides_the_answer_until_reveal():
    p = C.PosteriorBoundPanel().refresh()
    eps, prior = p.controls["epsilon"].value, p.controls["prior"].value
    truth = 100 * math.exp(eps) * prior / (1 - prior + math.exp(eps) * prior)
    shown = p.readout.value + p.exercise.question.value + str([t.name for t in p.figures[0].data])
    assert f"{truth:.3g}" not in shown and "?" in p.readout.value
    assert not any(t.mode == "markers" for t in p.figures[0].data)
    p.exercise.guess.value = 10.0  # the prior itself: too low
    p.exercise.button.click()
    fb = p.exercise.feedback.value
    assert f"{truth:.4g}" in fb and "too low" in fb and "Kasiviswanathan & Smith 2014" in fb
    assert f"{truth:.3g}%" in p.readout.value
    assert any(t.mode == "markers" for t in p.figures[0].data)
    p.controls["epsilon"].value = 2.0  # a new setting: predict again
    assert "?" in p.readout.value and "ε = 2" in p.exercise.question.value


def test_posterior_panel_event_slider_only_with_delta():
    p = C.PosteriorBoundPanel().refresh()
    assert p.controls["event_probability"].layout.display == "none"
    p.controls["delta"].value = 1e-3
    assert p.controls["event_probability"].layout.display is None
    assert any(t.line and t.line.dash == "dash" for t in p.figures[0].data)
    assert "100%" in p.readout.value  # the worst case over outputs with δ > 0


def test_misconceptions_reveal_feedback_only_after_a_pick():
    p = C.PosteriorBoundPanel().refresh()
    ex = p.misconception
    assert ex.feedback.value == ""
    ex.button.click()
    assert "Pick" in ex.feedback.value
    ex.choice.index = 0
    ex.button.click()
    assert "Not quite" in ex.feedback.value and "Dwork & Roth 2014" in ex.feedback.value
    ex.choice.index = 1
    assert ex.feedback.value == ""
    ex.button.click()
    assert "Right" in ex.feedback.value
    d = C.DeploymentsPanel().refresh().misconception
    assert "Tang et al. 2017 found" in d.question.value  # their analysis, not Apple's guarantee
    d.choice.index = 0
    d.button.click()
    assert "5,840" in d.feedback.value  # 16 per day × 365 days
    d.choice.index = 1
    d.button.click()
    assert "loose upper bound by basic composition" in d.feedback.value and "local DP" in d.feedback.value
    d.choice.index = 2
    d.button.click()
    assert "factor of 14" in d.feedback.value and "ten" not in d.feedback.value  # 5,840 / 418.8 = 13.9


def test_smoking_study_exercise_says_what_dp_does_not_promise():
    ex = C.PosteriorBoundPanel().refresh().smoking
    assert ex.feedback.value == ""
    ex.choice.index = 1
    ex.button.click()
    fb = ex.feedback.value
    assert "Right" in fb and "Kifer & Machanavajjhala 2011" in fb and "Dwork & Roth 2014, §1" in fb


def test_deployments_panel_reads_the_census_as_a_test():
    from dpviz.deployments import census_2020
    c = census_2020()
    text = C.DeploymentsPanel().refresh().readout.value
    assert f"μ = √(2ρ) = {c['mu_persons']:.3g}" in text and f"{c['advantage_persons']:.2f}" in text
    assert f"{c['loss_sd_persons']:.1f} standard deviations" in text


def test_halving_exercise_hides_its_answer_and_explains_the_factor_two():
    p = C.AccuracyCalibrationPanel().refresh()
    a, b = p.controls["alpha_acc"].value, p.controls["beta_fail"].value
    truth = math.log(1 / b) / (a / 2)
    assert f"{truth:.4g}" not in p.readout.value + p.exercise.question.value
    p.exercise.guess.value = truth
    p.exercise.button.click()
    assert "Close" in p.exercise.feedback.value and "twice" in p.exercise.feedback.value
    p.controls["alpha_acc"].value = 20.0  # a new setting: the old verdict is cleared
    assert p.exercise.feedback.value == ""


def test_budget_exercise_hides_the_daily_ratio_until_reveal():
    p = C.BudgetSplitPanel().refresh()
    p.controls["releases"].value = 365
    r = I.per_release_budget(p.controls["epsilon_total"].value, p.controls["delta_total"].value, 365)
    ratio = r["sigma_basic"] / r["sigma_exact"]
    assert f"{ratio:.3g}" not in p.readout.value and "?" in p.readout.value
    p.exercise.button.click()
    assert f"{ratio:.4g}" in p.exercise.feedback.value and f"{ratio:.3g}×" in p.readout.value
    assert ratio == pytest.approx(18.6, abs=0.05)


def test_deployments_table_lists_every_record_with_its_source():
    p = C.DeploymentsPanel().refresh()
    for d in DEPLOYMENTS:
        assert d.unit in p.readout.value
    assert p.readout.value.count("see the source") >= sum(d.epsilon is None for d in DEPLOYMENTS)
    assert "Abowd et al. 2022" in p.readout.value and "Tang et al. 2017" in p.readout.value


def test_accuracy_panel_readout_is_the_closed_form():
    p = C.AccuracyCalibrationPanel().refresh()
    p.controls["alpha_acc"].value = 10.0
    p.controls["beta_fail"].value = 0.01
    e = math.log(100) / 10.0
    assert f"ε = {e:.4g}" in p.readout.value
    p.controls["beta_fail"].value = 1e-3
    p.controls["alpha_acc"].value = 1.0  # needs ε = ln(1000) = 6.9 for Laplace, more for the Gaussian
    assert "ε &gt; 5" in p.hint.value or "ε > 5" in p.hint.value


def test_budget_panel_readout_matches_the_core():
    p = C.BudgetSplitPanel().refresh()
    p.controls["releases"].value = 52
    r = I.per_release_budget(p.controls["epsilon_total"].value, p.controls["delta_total"].value, 52)
    assert f"{r['eps_step_exact']:.4g}" in p.readout.value and f"{r['sigma_basic']:.4g}" in p.readout.value


def test_bad_value_is_reported_and_the_panel_recovers():
    p = C.AccuracyCalibrationPanel().refresh()
    p.controls["beta_fail"].max = 0.5  # exponent: 10^0.5 > 1 becomes reachable
    p.controls["beta_fail"].value = 10 ** 0.2
    assert p.last_error is not None and "beta_fail" in p.last_error
    p.controls["beta_fail"].value = 0.05
    assert p.last_error is None


@pytest.mark.slow
@pytest.mark.parametrize("cls", PANELS)
def test_updates_sent_to_the_browser_contain_no_bare_nan(cls):
    p = cls().refresh()
    found = watch_updates_for_nan(p)
    for name, c in p.controls.items():
        for v in p.bench_values()[name][:: 3]:
            c.value = v
    assert p.last_error is None and not found, found[:5]


def test_a_guess_entered_in_the_box_reveals_and_redraws_as_the_button_does():
    p = C.PosteriorBoundPanel().refresh()
    p.exercise.guess.value = 10.0  # Enter in the guess box commits the guess
    assert "too low" in p.exercise.feedback.value and "?" not in p.readout.value
    assert any(t.mode == "markers" for t in p.figures[0].data)


def test_budget_guess_label_shows_its_subscripts():
    p = C.BudgetSplitPanel()
    assert p.exercise.guess.description == "σ<sub>basic</sub>/σ<sub>exact</sub>:"
    assert p.exercise.guess.description_allow_html
