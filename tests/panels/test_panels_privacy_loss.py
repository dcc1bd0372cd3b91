"""Headless tests of the lesson-03 panels: controls drive the figures, errors stay in the panel, the exercise works."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest
from _figure_checks import watch_updates_for_nan

from dpviz import mechanisms as M
from dpviz.panels import privacy_loss as PL
from dpviz.panels.panel import PANEL_REGISTRY

PANELS = [PL.OutputDistributionsPanel, PL.PrivacyLossPanel, PL.PrivacyProfilePanel, PL.TradeoffPanel,
          PL.VectorReleasePanel]


def _data(fig) -> str:
    return str([t.to_plotly_json() for t in fig.data])


@pytest.mark.parametrize("cls", PANELS)
def test_builds_with_defaults_registered_and_themed(cls):
    p = cls().refresh()
    assert p.last_error is None and p.figures and cls.__name__ in PANEL_REGISTRY
    assert p.figures[0].layout.template.layout.font.family.startswith("Inter")  # the shared template
    assert p.readout.value


@pytest.mark.parametrize("cls", PANELS)
def test_first_control_is_a_slider_that_changes_the_first_figure(cls):
    p = cls().refresh()
    first_name, first = next(iter(p.controls.items()))
    assert type(first).__name__ in ("FloatSlider", "IntSlider", "FloatLogSlider")
    before, readout = _data(p.figures[0]), p.readout.value
    first.value = first.max if first.value != first.max else first.min
    assert p.last_error is None
    assert _data(p.figures[0]) != before
    assert p.readout.value != readout
    # the template survives the fast sync
    assert p.figures[0].layout.template.layout.font.family.startswith("Inter")


@pytest.mark.parametrize("cls", [PL.OutputDistributionsPanel, PL.PrivacyLossPanel, PL.TradeoffPanel])
def test_every_mechanism_renders_and_discrete_ones_draw_bars_or_atoms(cls):
    p = cls().refresh()
    for _, key in PL.MECHANISM_OPTIONS:
        p.controls["mechanism"].value = key
        assert p.last_error is None, (key, p.last_error)
        m = PL.build_mechanism(key, p.controls["scale"].value, p.controls["sensitivity"].value,
                               p.controls["mech_epsilon"].value)
        assert PL.P.mechanism_label(m) in p.readout.value + str(p.figures[0].layout.title.text)
        if cls is PL.OutputDistributionsPanel:
            discrete = key in ("rr", "dlaplace", "dgaussian", "tdlap")
            assert isinstance(p.figures[0].data[0], go.Bar) == discrete


def test_output_panel_readout_is_exact_delta():
    p = PL.OutputDistributionsPanel().refresh()
    p.controls["mechanism"].value = "laplace"
    p.controls["scale"].value = 0.5
    p.controls["epsilon"].value = 1.0
    d = M.Laplace(0.5, 1.0).delta(1.0)
    assert f"{d:.4g}" in p.readout.value
    p.controls["sensitivity"].value = 2
    assert f"{M.Laplace(0.5, 2.0).delta(1.0):.4g}" in p.readout.value


@pytest.mark.parametrize("cls", [PL.OutputDistributionsPanel, PL.PrivacyLossPanel, PL.TradeoffPanel])
def test_sliders_a_mechanism_does_not_read_are_hidden(cls):
    # issue 18: the ε_RR slider stayed visible for Gaussian and Laplace, σ/b and Δ for randomized response
    p = cls().refresh()
    shown = {"gaussian": {"scale", "sensitivity"}, "laplace": {"scale", "sensitivity"}, "rr": {"mech_epsilon"},
             "tdlap": {"mech_epsilon"}}
    for kind, visible in shown.items():
        p.controls["mechanism"].value = kind
        for name in ("scale", "sensitivity", "mech_epsilon"):
            assert (p.controls[name].layout.display != "none") == (name in visible), (kind, name)
    p.controls["mechanism"].value = "tdlap"
    assert "Ghazi et al. 2023, Def 8" in p.hint.value and "ε<sub>RR</sub>" in p.hint.value
    assert "ε₀" not in p.controls["mech_epsilon"].description


@pytest.mark.parametrize("cls", [PL.OutputDistributionsPanel, PL.PrivacyLossPanel, PL.TradeoffPanel])
def test_bad_value_is_reported_in_the_panel_and_panel_recovers(cls):
    p = cls().refresh()
    p.controls["mechanism"].value = "laplace"
    p.controls["scale"].min = 0.0  # make an invalid value reachable
    p.controls["scale"].value = 0.0
    assert p.last_error is not None and "scale" in p.last_error
    assert "scale" in p.status.value and "Traceback" not in p.status.value
    before = _data(p.figures[0])
    p.controls["scale"].value = 2.0
    assert p.last_error is None and p.status.value == ""
    assert _data(p.figures[0]) != before


def _learner_text(p) -> str:
    figs = " ".join(str(f.to_plotly_json()) for f in p.figures)
    return " ".join([figs, p.readout.value, p.hint.value, p.exercise.question.value, p.exercise.feedback.value])


def test_profile_panel_exercise_hides_the_exact_epsilon_until_reveal():
    p = PL.PrivacyProfilePanel().refresh()
    truth = M.Gaussian(1.0).epsilon(1e-5)
    text = _learner_text(p)
    assert f"{truth:.4g}" not in text and f"{truth:.3g}" not in text  # nowhere before the reveal
    assert "?" in p.readout.value
    p.exercise.guess.value = 5.0
    p.exercise.button.click()
    assert f"{truth:.4g}" in p.readout.value
    assert p.figures[0].data[-1].x[0] == pytest.approx(truth)


def test_profile_panel_exercise_judges_direction_then_size():
    p = PL.PrivacyProfilePanel().refresh()
    truth = M.Gaussian(1.0).epsilon(1e-5)  # 4.377 < classic √(2 ln(1.25·10⁵)) = 4.845
    classic = np.sqrt(2 * np.log(1.25e5))
    assert truth < classic
    # guess 4 answers "smaller" correctly (it was marked ❌ before: issue 18), though it is 9% off in size
    p.exercise.guess.value = 4.0
    p.exercise.button.click()
    fb = p.exercise.feedback.value
    assert "✅" in fb and "smaller" in fb and f"{truth:.4g}" in fb and "off by 9%" in fb and "Dwork & Roth 2014" in fb
    p.exercise.guess.value = 5.0  # larger than the classic value: the wrong direction
    p.exercise.button.click()
    assert "❌" in p.exercise.feedback.value and "Wrong direction" in p.exercise.feedback.value
    # moving a slider hides the answer again and updates the question
    p.controls["sigma"].value = 2.0
    assert "?" in p.readout.value and "σ = 2" in p.exercise.question.value
    p.exercise.guess.value = M.Gaussian(2.0).epsilon(1e-5)
    p.exercise.button.click()
    assert "✅" in p.exercise.feedback.value and "close" in p.exercise.feedback.value


def test_tradeoff_panel_misconception_exercise_on_randomized_response():
    p = PL.TradeoffPanel().refresh()
    labels = [lbl for lbl, _, _ in p.exercise.options]
    assert p.exercise.feedback.value == ""
    p.exercise.choice.index = next(i for i, lbl in enumerate(labels) if "most private" in lbl)
    p.exercise.button.click()
    assert "❌" in p.exercise.feedback.value and "Tempting" in p.exercise.feedback.value
    p.exercise.choice.index = next(i for i, lbl in enumerate(labels) if "least private" in lbl)
    assert p.exercise.feedback.value == ""
    p.exercise.button.click()
    assert "✅" in p.exercise.feedback.value and "Kairouz, Oh & Viswanath 2015" in p.exercise.feedback.value
    # the claim itself, checked on the panel's own figure: RR with ε_RR = ε sits on the (ε, 0) boundary
    p.controls["mechanism"].value = "rr"
    p.controls["mech_epsilon"].value = 1.0
    p.controls["epsilon"].value = 1.0
    p.controls["delta"].value = 1e-8
    boundary, curve = np.asarray(p.figures[0].data[0].y), np.asarray(p.figures[0].data[2].y)
    alpha = np.asarray(p.figures[0].data[0].x)
    e = np.e
    np.testing.assert_allclose(curve, np.maximum.reduce([np.zeros_like(alpha), 1 - e * alpha, (1 - alpha) / e]),
                               atol=1e-7)
    assert np.all(curve >= boundary - 1e-7)


def test_profile_panel_flags_wrong_classic_formula():
    p = PL.PrivacyProfilePanel().refresh()
    p.controls["sigma"].value = 0.2
    p.controls["delta"].value = 1e-2
    # classic ε = √(2 ln 125)/0.2 ≈ 15.5: independently, the exact δ at that ε exceeds 1e-2
    e_classic = np.sqrt(2 * np.log(1.25 / 1e-2)) / 0.2
    assert M.Gaussian(0.2).delta(e_classic) > 1e-2
    assert "WRONG" in p.readout.value


def test_tradeoff_panel_verdict_follows_delta():
    p = PL.TradeoffPanel().refresh()
    p.controls["mechanism"].value = "gaussian"
    p.controls["epsilon"].value = 1.0
    need = M.Gaussian(1.0).delta(1.0)
    p.controls["delta"].value = 10 ** -0.5  # far above δ(1)
    assert "holds" in p.readout.value and "NOT" not in p.figures[0].layout.title.text
    p.controls["delta"].value = 1e-4  # far below δ(1) ≈ 0.127
    assert need > 1e-4
    assert "fails" in p.readout.value and "NOT" in p.figures[0].layout.title.text


def test_build_mechanism_rejects_unknown():
    with pytest.raises(ValueError, match="kind = 'cauchy' is not allowed"):
        PL.build_mechanism("cauchy")


@pytest.mark.parametrize("call,name", [
    # before: the factory's names, "sigma = -1.0" / "epsilon = -1.0" / "delta = 2.0", for this function's scale,
    # mech_epsilon and tdlap_delta
    (lambda: PL.build_mechanism("gaussian", -1.0), "scale"),
    (lambda: PL.build_mechanism("rr", mech_epsilon=-1.0), "mech_epsilon"),
    (lambda: PL.build_mechanism("tdlap", tdlap_delta=2.0), "tdlap_delta"),
    (lambda: PL.build_mechanism("laplace", 1.0, math.inf), "sensitivity"),
])
def test_build_mechanism_names_its_own_parameters(call, name):
    with pytest.raises(ValueError, match=rf"^{name} = "):
        call()


@pytest.mark.parametrize("cls", [PL.OutputDistributionsPanel, PL.PrivacyLossPanel, PL.TradeoffPanel])
def test_figure_updates_sent_to_the_browser_contain_no_bare_nan(cls):
    # NaN is not JSON: the front end drops such an update and the figure stops following the sliders
    p = cls().refresh()
    found = watch_updates_for_nan(p)
    for kind in [k for _, k in PL.MECHANISM_OPTIONS] + ["gaussian"]:
        p.controls["mechanism"].value = kind
        p.controls["epsilon"].value = 2.0 if p.controls["epsilon"].value != 2.0 else 0.3
    assert p.last_error is None and not found, found[:5]


# ------------------------------------------------------------------------------------------------ vector release


def test_vector_panel_starts_at_d_1_where_laplace_needs_less_and_hides_the_curves_beyond():
    p = PL.VectorReleasePanel().refresh()
    assert round(p.controls["dimension"].value) == 1
    lap = p.figures[0].data[0]
    assert list(lap.x) == [1]  # drawn up to the learner's d only, before the reveal
    # at d = 1: Laplace sd √2/ε = 1.414 < σ(1, 10⁻⁵) = 3.731 (Balle & Wang 2018, Thm 8)
    sigma = M.analytic_gaussian_sigma(1.0, 1e-5)
    assert f"{sigma:.4g}" in p.readout.value and "1.414" in p.readout.value
    assert "Laplace needs less noise" in p.hint.value
    p.controls["dimension"].value = 10**3
    assert p.last_error is None and max(p.figures[0].data[0].x) == 1000 and p.hint.value == ""
    assert f"{np.sqrt(2000) / sigma:.3g}×" in p.readout.value


def test_vector_panel_exercise_reveals_the_ratio_and_then_every_curve():
    p = PL.VectorReleasePanel().refresh()
    truth = np.sqrt(2 * 100) / M.analytic_gaussian_sigma(1.0, 1e-5)  # √2·Δ₁/ε over σ, Δ₁ = √100·C
    assert p.exercise.answer() == pytest.approx(truth, rel=1e-12)
    assert f"{truth:.3g}" not in _learner_text_vector(p)
    p.exercise.guess.value = 10.0
    p.exercise.button.click()
    fb = p.exercise.feedback.value
    assert "❌" in fb and f"{truth:.4g}" in fb and "up to d = 6" in fb and "Balle & Wang 2018, Thm 8" in fb
    assert max(p.figures[0].data[0].x) == 10_000  # after the reveal the curves run over the whole axis
    p.exercise.guess.value = 3.8
    p.exercise.button.click()
    assert "✅" in p.exercise.feedback.value


def _learner_text_vector(p) -> str:
    figs = " ".join(str(f.to_plotly_json()) for f in p.figures)
    return " ".join([figs, p.readout.value, p.hint.value, p.exercise.question.value, p.exercise.feedback.value])


def test_vector_panel_classic_sigma_row_follows_its_proven_range():
    p = PL.VectorReleasePanel().refresh()
    p.controls["epsilon"].value = 0.5
    want = M.classic_gaussian_sigma(0.5, 1e-5, 1.0)  # Dwork & Roth 2014, Thm A.1, valid for ε < 1
    assert f"{want:.4g}·C (valid, ε < 1, but loose)" in p.readout.value
    p.controls["epsilon"].value = 2.0
    assert "not proven for ε ≥ 1" in p.readout.value
