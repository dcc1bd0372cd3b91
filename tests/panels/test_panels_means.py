"""Headless tests of the lesson-05 panels: controls change the figures, bad combinations show a message."""

import math

import numpy as np
import pytest

from dpviz.panels.means import (
    BallFindingPanel,
    FixedBudgetPanel,
    FixedNFloorPanel,
    IsoAccuracyPanel,
    RobustnessPanel,
    TauKnobPanel,
    WinsorizedVsNaivePanel,
)

ALL = [WinsorizedVsNaivePanel, TauKnobPanel, FixedBudgetPanel, IsoAccuracyPanel, BallFindingPanel, RobustnessPanel,
       FixedNFloorPanel]


def _ys(p, i=0):
    return [None if t.y is None else np.asarray(t.y, dtype=float).copy() for t in p.figures[i].data
            if hasattr(t, "y")]


def _changed(a, b):
    return any(x is not None and y is not None and (x.shape != y.shape or not np.allclose(x, y, equal_nan=True))
               for x, y in zip(a, b)) or len(a) != len(b)


@pytest.mark.parametrize("cls", ALL)
def test_builds_with_defaults(cls):
    p = cls().refresh()
    assert p.last_error is None and p.figures and p.readout.value


@pytest.mark.parametrize("cls", ALL)
def test_first_slider_changes_first_figure(cls):
    p = cls().refresh()
    name = next(iter(p.controls))
    c = p.controls[name]
    assert hasattr(c, "min")  # the first control is a slider (browser test moves it with the keyboard)
    before_fig = p.figures[0].to_plotly_json()
    c.value = p.bench_values()[name][-2] if c.value != p.bench_values()[name][-2] else p.bench_values()[name][1]
    assert p.last_error is None
    assert p.figures[0].to_plotly_json() != before_fig


def test_winsorized_panel_epsilon_moves_naive_noise_and_exercise():
    p = WinsorizedVsNaivePanel().refresh()
    before = _ys(p)
    p.controls["epsilon"].value = 3.0
    assert _changed(before, _ys(p))
    p.exercise.guess.value = 116
    assert "Close" in p.exercise.reveal()
    p.controls["kind"].value = "heavy"
    assert p.last_error is None and "infinite variance" in p.readout.value


def test_panel_errors_are_shown_and_panel_recovers(monkeypatch):
    p = FixedNFloorPanel().refresh()
    import dpviz.panels.means as mod

    def boom(*a, **k):
        raise ValueError("n = 0 is not allowed: must be an integer >= 1.")

    monkeypatch.setattr(mod, "theorem8_mean_floor", boom)
    p.controls["n"].value = 7
    assert p.last_error and "not allowed" in p.status.value
    monkeypatch.undo()
    p.controls["n"].value = 8
    assert p.last_error is None and p.status.value == ""


def test_ball_panel_garbage_reacts_to_delta_and_robust_panel_kappa():
    p = BallFindingPanel().refresh()
    g0 = p.figures[1].data[0].y[-1]
    p.controls["delta"].value = 1e-6
    assert p.figures[1].data[0].y[-1] > g0  # smaller δ → heavier garbage atom (4/δ)·V_B
    r = RobustnessPanel().refresh()
    x0 = [s.x0 for s in r.figures[0].layout.shapes]
    r.controls["kappa"].value = 0.1
    assert [s.x0 for s in r.figures[0].layout.shapes] != x0
    # the robust estimator beats the plain mean at κ = 1/4
    k = list(r._KAPPAS).index(0.25)
    assert r.figures[0].data[0].y[k] < r.figures[0].data[1].y[k]


def test_ball_panel_shows_the_count_f():
    """Issue 5: the 2-D view shows the count f(p), not only the density built from it."""
    p = BallFindingPanel().refresh()
    p.controls["move"].value = 3.0
    p.controls["show"].value = "count"
    assert p.last_error is None
    z = np.asarray(p.figures[0].data[0].z, dtype=float)
    from dpviz.mean import algorithm_a_2d, algorithm_a_neighbours_2d

    x = algorithm_a_neighbours_2d(12, 0.0, 0.5, 1e-3)[0].copy()  # the panel's 12 seeded user means
    x[-1, 0] += 3.0
    A = algorithm_a_2d(x, 1.0, 0.5, 1e-3, resolution=70)
    np.testing.assert_array_equal(np.nan_to_num(z), A.counts)
    assert np.nanmax(z) == A.counts.max() and "f(p)" in p.figures[0].data[0].colorbar.title.text
    p.controls["show"].value = "density"
    assert np.nanmax(np.asarray(p.figures[0].data[0].z, dtype=float)) < 0  # log₁₀ of a density below 1


def test_iso_accuracy_needs_at_least_one_sample_and_budget_map_is_not_flat():
    p = IsoAccuracyPanel().refresh()
    for t in p.figures[0].data:
        y = np.asarray(t.y, dtype=float)
        assert np.nanmin(y) >= 1.0  # every user holds at least one sample
    b = FixedBudgetPanel().refresh()
    z = np.asarray(b.figures[0].data[0].z, dtype=float)
    # with the common γ(2B)² floor left out, the map spans many decades (it was one flat colour beyond n ≈ 100)
    assert np.nanmax(z) - np.nanmin(z) > 5


def test_robustness_floor_has_a_gap_at_kappa_zero():
    r = RobustnessPanel().refresh()
    floor = r.figures[0].data[2].y
    assert floor[0] is None and all(v > 0 for v in floor[1:])


def test_robustness_floor_toggle_shows_printed_and_corrected_proof_gap():
    # Prop 27's proof: two laws with mass ½ ± η/√m on ±v are indistinguishable after corruption, so some estimate
    # errs by half their mean gap; the gap is 4rη/√m (corrected), printed as 2rη/√m: the floor doubles
    r = RobustnessPanel().refresh()
    corrected = np.asarray(r.figures[0].data[2].y[1:], dtype=float)
    kappas = RobustnessPanel._KAPPAS[1:]
    np.testing.assert_allclose(corrected, 2 * kappas / np.sqrt(100), rtol=1e-12)
    assert "corrected" in r.figures[0].data[2].name
    r.controls["floor"].value = 1.0
    printed = np.asarray(r.figures[0].data[2].y[1:], dtype=float)
    np.testing.assert_allclose(printed, kappas / np.sqrt(100), rtol=1e-12)
    assert "printed" in r.figures[0].data[2].name
    # corruption fraction is η (the course notation), κ is propose-test-release's parameter
    assert "η" in r.figures[0].layout.xaxis.title.text and "κ" not in r.readout.value


def test_floor_panel_conceptual_exercise_says_a_lower_bound_is_not_sufficiency():
    p = FixedNFloorPanel().refresh()
    ex = p.misconception
    assert ex.feedback.value == ""
    ex.choice.index = 0  # "9 users suffice": the tempting reading of a lower bound
    ex.reveal()
    assert "❌" in ex.feedback.value and "upper bound" in ex.feedback.value
    ex.choice.index = 1
    ex.reveal()
    assert "✅" in ex.feedback.value and "6.9·10⁻⁶" in ex.feedback.value
    # the numeric exercise's explanation no longer reads the lower bound as sufficiency
    p.exercise.guess.value = 9
    text = p.exercise.reveal()
    assert "does not say 9 users suffice" in text and "matching" not in text


def test_budget_map_caption_surfaces_the_beta_exponent_erratum():
    b = FixedBudgetPanel().refresh()
    cap = " ".join(a.text for a in b.figures[0].layout.annotations)
    assert "nε/16" in cap and "as printed" in cap


def test_ball_panel_says_when_epsilon_leaves_the_papers_regime():
    p = BallFindingPanel().refresh()  # ε = 0.5 by default: above the paper's ε ≤ 1/3
    assert "1/3" in p.hint.value and "2 ln 2" in p.hint.value
    p.controls["epsilon"].value = 0.1
    assert p.hint.value == ""


def test_winsorized_exercise_answer_is_not_shown_before_reveal():
    # issue 18: the exercise asks for m* at n = 10⁴ with the paper's radius; no setting of the panel prints or draws
    # it (its n dropdown stops at 3,000), so the answer first appears in the Reveal feedback
    p = WinsorizedVsNaivePanel().refresh()
    answer = f"{8 * np.log(2 * 10_000 / 0.01):.0f}"  # 8·ln(2n/γ) = 116
    p.controls["tau"].value = "paper"
    for n in (300, 1000, 3000):
        p.controls["n"].value = n
        shown = p.readout.value + " ".join(a.text or "" for a in p.figures[0].layout.annotations)
        assert answer not in shown
    assert 10_000 not in [v for _, v in p.controls["n"].options]


def test_fixed_budget_panel_toggles_the_printed_and_the_worst_case_beta_exponent():
    p = FixedBudgetPanel().refresh()
    source = lambda: " ".join(a.text for a in p.figures[0].layout.annotations if "Source" in (a.text or ""))  # noqa: E731
    z_printed = np.array(p.figures[0].data[0].z, dtype=float)
    assert "nε/8</sup>" in source() and "worst-case exponent is nε/16" in source()
    p.controls["exponent"].value = "worst_case"
    assert p.last_error is None and "nε/16</sup>" in source() and "the paper prints nε/8" in source()
    z_worst = np.array(p.figures[0].data[0].z, dtype=float)
    assert np.all(z_worst >= z_printed - 1e-12) and np.any(z_worst > z_printed + 1e-6)  # β can only grow


def test_robustness_simulates_every_eta_its_slider_reaches():
    """The readout reports the errors at the slider's η: every value the slider can take is simulated (0.35 and
    0.45 were missing, and the readout then printed η = 0.3's errors under η = 0.35)."""
    s = RobustnessPanel().controls["kappa"]  # the slider, before any render
    reachable = np.round(np.arange(s.min, s.max + s.step / 2, s.step), 10)
    assert set(reachable) <= set(np.round(RobustnessPanel._KAPPAS, 10))


def test_tau_knob_readout_is_at_the_sliders_tau():
    """Every position of the τ slider is a point of the simulated sweep, so the readout's statistics belong to the
    τ it prints (the grid was once 28 log-spaced points under a 0.05-decade slider, up to ~10 % apart)."""
    p = TauKnobPanel().refresh()
    s = p.controls["ratio"]
    positions = s.base ** np.arange(s.min, s.max + s.step / 2, s.step)
    nearest = [np.min(np.abs(np.log(TauKnobPanel._RATIOS) - math.log(r))) for r in positions]
    assert max(nearest) < 1e-9
