"""Lessons 06 and 07 panels, headless: controls drive the figures, bad combinations are reported in the panel."""

import math

import ipywidgets as W
import mpmath as mp
import pytest

from dpviz.accountants import compare as M
from dpviz.panels.composition import (
    AmplificationPanel,
    CalibrationPanel,
    CompositionLabPanel,
    EpsilonVsCompositionsPanel,
    GroupPrivacyPanel,
    disagreement_table,
)
from dpviz.panels.panel import PANEL_REGISTRY
from dpviz.plots import composition as C

mp.mp.dps = 40


def gauss_eps(sigma, delta):
    """Exact ε(δ) of one Gaussian (sensitivity 1), Balle & Wang 2018 Thm 8, by bisection in mpmath."""
    mu = mp.mpf(1) / sigma

    def d(e):
        return mp.ncdf(mu / 2 - e / mu) - mp.e ** e * mp.ncdf(-mu / 2 - e / mu)

    lo, hi = mp.mpf(0), mp.mpf(100)
    for _ in range(120):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if d(mid) <= delta else (mid, hi)
    return float(hi)


def ys(fig, i=0):
    return [None if v is None else float(v) for v in fig.data[i].y]


def test_panels_are_registered_with_no_argument_constructors():
    for cls in (CompositionLabPanel, EpsilonVsCompositionsPanel, CalibrationPanel, GroupPrivacyPanel,
                AmplificationPanel):
        assert PANEL_REGISTRY[cls.__name__] is cls


def test_lab_first_control_is_a_slider_that_changes_the_first_figure():
    p = CompositionLabPanel().refresh()
    assert p.last_error is None
    first_name, first = next(iter(p.controls.items()))
    assert isinstance(first, (W.FloatSlider, W.FloatLogSlider, W.IntSlider))
    before = ys(p.figures[0])
    first.value = first.value * 10 ** first.step  # one keyboard step
    assert p.last_error is None
    assert ys(p.figures[0]) != before


def test_lab_mechanism_switch_shows_only_its_noise_slider_and_changes_the_bars():
    p = CompositionLabPanel().refresh()
    assert p.controls["scale"].layout.display == "none" and p.controls["sigma"].layout.display is None
    before = ys(p.figures[0])
    p.controls["mechanism"].value = "laplace"
    assert p.last_error is None
    assert p.controls["sigma"].layout.display == "none" and p.controls["scale"].layout.display is None
    assert p.controls["k"].layout.display is None and p.controls["delta"].layout.display is None  # others stay
    assert ys(p.figures[0]) != before
    i = C.ACCOUNTANT_ORDER.index("basic")
    k = round(p.controls["k"].value)
    assert ys(p.figures[0])[i] == pytest.approx(k / p.controls["scale"].value, rel=1e-9)  # k·ε₀, ε₀ = 1/b


def test_lab_readout_explains_every_accountant_with_ratio_and_source():
    p = CompositionLabPanel().refresh()
    html = p.readout.value
    for name in C.ACCOUNTANT_ORDER:
        assert C.ACCOUNTANT_INFO[name].label in html
    for cite in ("Dwork, Rothblum &amp; Vadhan 2010", "Kairouz, Oh &amp; Viswanath 2015", "Mironov 2017",
                 "Bun &amp; Steinke 2016", "Canonne, Kamath &amp; Steinke 2020", "Balle et al. 2020",
                 "Koskela", "Meiser", "Doroshenko"):
        assert cite in html, cite
    assert "× tightest" in html and "exact" in html
    assert "1.00×" not in html.split("Basic")[1].split("</tr>")[0]  # basic is not the tightest at k = 100


def test_disagreement_table_ratio_is_relative_to_the_exact_epsilon():
    html = disagreement_table("gaussian", 4.0, 100, 1.0, 1e-5, "add_remove")
    exact = M.exact_epsilon("gaussian", 4.0, 100, 1.0, 1e-5)
    basic = M.epsilon_result("basic", "gaussian", 4.0, 100, 1.0, 1e-5).epsilon
    assert f"{basic / exact:.2f}×" in html


def test_lab_hides_the_sampling_rate_under_replace_one_and_uses_q_1():
    """Poisson subsampling is analysed for add/remove neighbours only: under replace-one the q slider is hidden and
    q = 1 applies (a slider that could only produce a refusal would not mean what it shows)."""
    p = CompositionLabPanel().refresh()
    p.controls["rate"].value = 0.1
    assert p.last_error is None and p.controls["rate"].layout.display is None
    p.controls["neighboring"].value = "replace_one"
    assert p.last_error is None and p.status.value == ""
    assert p.controls["rate"].layout.display == "none"
    # replace-one doubles the clipped sum's sensitivity: the exact ε is that of σ/2
    line = [t for t in p.figures[0].data if t.type == "scatter"][0]
    k = round(p.controls["k"].value)
    assert line.y[0] == pytest.approx(gauss_eps(p.controls["sigma"].value / 2 / math.sqrt(k), 1e-5), rel=1e-6)


def test_noise_sliders_have_their_own_layouts():
    # hiding the Laplace slider must not hide the Gaussian one (each control owns its Layout)
    p = GroupPrivacyPanel().refresh()
    layouts = [c.layout for c in p.controls.values()]
    assert len({id(x) for x in layouts}) == len(layouts)
    p.controls["mechanism"].value = "laplace"
    assert p.controls["sigma"].layout.display == "none" and p.controls["scale"].layout.display is None
    assert p.controls["delta"].layout.display == "none"  # Laplace is pure ε-DP: δ would change nothing
    p.controls["mechanism"].value = "gaussian"
    assert p.controls["delta"].layout.display is None and p.controls["sigma"].layout.display is None


def test_epsilon_vs_k_panel_updates_and_the_exercise_reveals_the_exact_answer():
    p = EpsilonVsCompositionsPanel().refresh()  # defaults (k up to 10⁴): also checks no accountant warning leaks
    assert p.last_error is None and p.slow
    before = ys(p.figures[0], -1)
    p.controls["sigma"].value = 8.0
    assert ys(p.figures[0], -1) != before
    truth = gauss_eps(1.0, 1e-5)  # 100 Gaussians of σ = 10 = one Gaussian of σ = 1
    p.exercise.guess.value = truth
    text = p.exercise.reveal()
    assert text.startswith("✅") and "Dong, Roth & Su 2022, Cor 3.3" in text
    p.exercise.guess.value = 100 * gauss_eps(10.0, 1e-5)  # the naive "ε adds up" guess
    assert p.exercise.reveal().startswith("❌")


def test_calibration_panel_bars_follow_the_target():
    p = CalibrationPanel(k=10).refresh()
    assert p.last_error is None
    before = ys(p.figures[0])
    p.controls["target"].value = 2.0
    after = ys(p.figures[0])
    assert after != before
    for a, b in zip(before, after, strict=True):
        if a is not None and b is not None:
            assert b < a  # a looser target needs less noise
    assert "variance" in p.readout.value
    # for a mean the noise's standard deviation is σΔ/n: c× the noise costs c× the data (not c²: issue 15)
    text = p.readout.value
    assert "× data" in text and "1/√n, does not depend on the noise" in text and "how many times more people" in text


def test_group_privacy_panel_and_exercise():
    p = GroupPrivacyPanel().refresh()
    assert p.last_error is None
    p.controls["group"].value = 10
    assert "g = 10" in p.readout.value
    truth = gauss_eps(0.4, 1e-5)  # σ = 4 with sensitivity 10 = σ/10 with sensitivity 1
    p.exercise.guess.value = truth
    assert p.exercise.reveal().startswith("✅")
    p.controls["mechanism"].value = "laplace"
    assert p.last_error is None and "exact" in p.readout.value


def test_group_exercise_values_are_reachable_and_hidden_before_reveal():
    p = GroupPrivacyPanel().refresh()
    truth = gauss_eps(0.4, 1e-5)
    # the exercise's σ = 4 and g = 10 are values the sliders can take (the log slider went 3.98 → 4.47)
    p.controls["sigma"].value = 4.0
    assert p.controls["sigma"].value == 4.0 and p.controls["sigma"].min <= 4.0 <= p.controls["sigma"].max
    p.controls["group"].value = 10
    assert p.controls["group"].value == 10
    # at the panel's defaults nothing shows the answer before Reveal
    q = GroupPrivacyPanel().refresh()
    shown = " ".join([str(f.to_plotly_json()) for f in q.figures] + [q.readout.value, q.exercise.question.value,
                                                                      q.concept.question.value])
    assert f"{truth:.4g}" not in shown and f"{truth:.3g}" not in shown and q.exercise.feedback.value == ""
    assert q.concept.feedback.value == ""


def test_group_readout_says_no_guarantee_instead_of_zero():
    # σ = 1: the generic δ_g passes 1 within g ≤ 20 (δ_g = δ(e^{gε₁} − 1)/(e^{ε₁} − 1))
    p = GroupPrivacyPanel().refresh()
    p.controls["sigma"].value = 1.0
    eps1 = gauss_eps(1.0, 1e-5)
    g = next(g for g in range(1, 21) if 1e-5 * math.expm1(g * eps1) / math.expm1(eps1) >= 1)
    p.controls["group"].value = g
    row = p.readout.value.split("same δ")[1].split("</tr>")[0]
    assert "no guarantee" in row and ">0<" not in row
    p.controls["group"].value = g - 1
    assert "no guarantee" not in p.readout.value.split("same δ")[1].split("</tr>")[0]


def test_group_misconception_exercise_explains_why_the_smaller_epsilon_tempts():
    p = GroupPrivacyPanel().refresh()
    labels = [lbl for lbl, _, _ in p.concept.options]
    p.concept.choice.index = next(i for i, lbl in enumerate(labels) if "smaller ε" in lbl)
    p.concept.button.click()
    assert "❌" in p.concept.feedback.value and "Tempting" in p.concept.feedback.value
    p.concept.choice.index = next(i for i, c in enumerate(p.concept.options) if c[1])
    p.concept.button.click()
    assert "✅" in p.concept.feedback.value
    # the claim of the right option, checked independently at σ = 4, g = 10, δ = 10⁻⁵ (mpmath oracle):
    eps1 = gauss_eps(4.0, 1e-5)
    dg = 1e-5 * math.expm1(10 * eps1) / math.expm1(eps1)
    exact_at_dg = gauss_eps(0.4, dg)
    assert exact_at_dg < 10 * eps1 < gauss_eps(0.4, 1e-5)


def test_neighbour_toggle_labels_are_not_cut():
    for cls in (CompositionLabPanel, EpsilonVsCompositionsPanel):
        t = cls().refresh().controls["neighboring"]
        assert t.style.button_width == "auto"


def test_epsilon_vs_k_exercise_answer_is_not_shown_at_the_defaults():
    p = EpsilonVsCompositionsPanel().refresh()
    truth = gauss_eps(1.0, 1e-5)  # 100 Gaussians of σ = 10 = one Gaussian of σ = 1
    shown = " ".join([str(f.to_plotly_json()) for f in p.figures] + [p.readout.value, p.exercise.question.value])
    assert f"{truth:.4g}" not in shown and f"{truth:.3g}" not in shown and p.exercise.feedback.value == ""



# ------------------------------------------------------------------------------------------------ amplification


def amplified(eps, q):
    """ln(1 + q(e^ε − 1)) in mpmath (Balle, Barthe & Gaboardi 2018, Thm 8)."""
    return float(mp.log(1 + mp.mpf(q) * mp.expm1(mp.mpf(eps))))


def test_amplification_panel_reads_out_the_theorem_at_the_learners_setting():
    p = AmplificationPanel().refresh()
    assert p.last_error is None and p.exercise.feedback.value == ""
    want = amplified(1.0, 0.01)
    assert f"{want:.4g}" in p.readout.value and f"{1.0 / want:.3g}×" in p.readout.value
    assert "Balle, Barthe & Gaboardi 2018, Thm 8" in p.readout.value
    p.controls["epsilon"].value = 0.1
    p.controls["rate"].value = 1e-3
    small = amplified(0.1, 1e-3)
    assert f"{small:.4g}" in p.readout.value and p.figures[0].data[-1].y[0] == pytest.approx(small, rel=1e-13)


def test_amplification_exercise_answer_is_hidden_then_revealed_with_the_regime():
    p = AmplificationPanel().refresh()
    truth = amplified(5.0, 0.01)  # 0.906: 18 times q·ε = 0.05
    shown = " ".join([str(f.to_plotly_json()) for f in p.figures] + [p.readout.value, p.exercise.question.value])
    assert f"{truth:.3g}" not in shown and f"{truth:.4g}" not in shown
    p.exercise.guess.value = 0.05  # the q·ε guess
    text = p.exercise.reveal()
    assert text.startswith("❌") and f"{truth:.4g}" in text and "q·ε = 0.05" in text
    assert f"{truth / 0.05:.3g} times q·ε" in text
    # the exercise's ε = 5 and q = 0.01 are values the sliders take
    p.controls["epsilon"].value = 5.0
    p.controls["rate"].value = 0.01
    assert p.controls["epsilon"].value == 5.0 and p.controls["rate"].value == pytest.approx(0.01, rel=1e-15)
    assert f"{truth:.4g}" in p.readout.value


def test_the_amplification_bound_is_tight_for_randomized_response_on_being_sampled():
    """The lesson's tightness claim: randomized response with parameter ε on the bit "is r in the sample?" is ε-DP,
    and on a Poisson sample its output "yes" is 1 + q(e^ε − 1) times more likely with r than without (the library's
    exact randomized response, mixed by hand)."""
    from dpviz.mechanisms import RandomizedResponse

    for eps, q in ((1.0, 0.01), (5.0, 0.3), (0.1, 0.5)):
        rr = RandomizedResponse(eps)
        without = float(rr.pmf(1, value=0))  # r never sampled: the bit is 0
        with_r = q * float(rr.pmf(1, value=1)) + (1 - q) * without
        assert math.log(with_r / without) == pytest.approx(amplified(eps, q), rel=1e-12)



# ------------------------------------------------------------------------------------------------ disagreement table
# (its adversarial sweep: tests/contracts/test_adversarial_plots_composition.py, with the figures it explains)


@pytest.mark.parametrize("args,name", [
    # before: "b = -1.0" (the model's symbol), and no cap on k or floor on q (the bar chart it explains has both)
    (("laplace", -1.0, 3, 1.0, 1e-5, "add_remove"), "noise"),
    (("laplace", 10.0, C.COUNT.high + 1, 1.0, 1e-5, "add_remove"), "count"),
    (("laplace", 10.0, 3, 5e-324, 1e-5, "add_remove"), "rate"),
])
def test_disagreement_table_names_the_parameter_and_keeps_to_the_figures_range(args, name):
    with pytest.raises(ValueError, match=rf"^{name} = "):
        disagreement_table(*args)


# ------------------------------------------------------------------------------------------------ streamed renders
# The three streamed panels, driven as in a kernel (background = True; outside a loop wait() steps the generator).


def _figure_state(panel) -> list:
    out = []
    for fig in panel.figures:
        d = fig.to_plotly_json()
        out.append([{k: (list(v) if hasattr(v, "__len__") and not isinstance(v, str) else v)
                     for k, v in t.items() if k != "uid"} for t in d["data"]])
    return [out, panel.readout.value]


STREAMED = {  # panel, settings that keep it quick, the control moved and its new value
    "CompositionLabPanel": (CompositionLabPanel, {"k": 10}, "k", 1000.0),
    "EpsilonVsCompositionsPanel": (EpsilonVsCompositionsPanel, {"max_k": 100}, "sigma", 8.0),
    "CalibrationPanel": (CalibrationPanel, {"k": 10}, "target", 2.0),
}


@pytest.mark.parametrize("name", STREAMED)
def test_a_change_streams_a_partial_view_first_and_ends_on_the_synchronous_render(name):
    cls, settings, control, value = STREAMED[name]
    p = cls(**settings).refresh()
    p.background = True
    drawn = []
    apply = p._apply

    def recording(view):
        apply(view)
        drawn.append(_figure_state(p))

    p._apply = recording
    p.controls[control].value = value  # the first step is drawn at once, the rest wait for the loop
    assert len(drawn) == 1 and p.note.value != "" and p.stop_button.layout.visibility == "visible"
    assert p.wait()
    ref = cls(**{**settings, control: value}).refresh()
    assert len(drawn) >= 2 and drawn[0] != drawn[-1], "nothing streamed"
    assert drawn[-1] == _figure_state(ref)  # the last view is exactly the synchronous render
    assert p.last_error is None and p.note.value == "" and p.stop_button.layout.visibility == "hidden"
    first = str(drawn[0])
    if name == "CompositionLabPanel":  # the first profile is on the coarse ε grid (the exact curve: one point each)
        exact = [len(t["x"]) for t in drawn[0][0][1] if t["name"].startswith("exact")]
        assert exact == [CompositionLabPanel.COARSE_PROFILE_POINTS] and "computing" not in first
        assert [len(t.x) for t in p.figures[1].data if t.name.startswith("exact")] == [40]
    else:  # the advanced and optimal accountants come last, marked "computing…" until then
        assert "computing" in first and "computing" not in str(drawn[-1])


def test_stop_keeps_the_partial_view_and_a_new_change_computes_to_the_end():
    p = EpsilonVsCompositionsPanel(max_k=100).refresh()
    p.background = True
    p.controls["sigma"].value = 8.0
    p.stop()
    assert "Stopped after 1 of 3 passes" in p.note.value and "computing" in str(p.figures[0].to_plotly_json())
    p.controls["sigma"].value = 6.0
    assert p.wait() and p.note.value == ""
    assert _figure_state(p) == _figure_state(EpsilonVsCompositionsPanel(max_k=100, sigma=6.0).refresh())
