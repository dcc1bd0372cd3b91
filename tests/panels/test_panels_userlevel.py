"""Headless tests of the panels of lessons 11 and 14: build, move controls, check changes and error messages."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpviz.panels import items_to_users as L3


def _titles(panel, fig=0):
    """Figure title plus subplot titles (side-by-side figures carry their panel titles as annotations)."""
    f = panel.figures[fig]
    return " | ".join([f.layout.title.text or ""] + [a.text or "" for a in f.layout.annotations])


def _ys(panel, fig=0, trace=0):
    return np.asarray(panel.figures[fig].data[trace].y, dtype=float)


def _first_slider_changes_first_figure(panel):
    """The browser test moves the FIRST control with the keyboard: it must be a slider that changes figure 0."""
    name, ctrl = next(iter(panel.controls.items()))
    assert hasattr(ctrl, "min") and hasattr(ctrl, "max"), f"first control {name} is not a slider"
    before = panel.figures[0].to_plotly_json()
    step = getattr(ctrl, "step", 1)
    if type(ctrl).__name__ == "FloatLogSlider":
        ctrl.value = ctrl.base ** (np.log10(ctrl.value) + step)
    else:
        ctrl.value = min(ctrl.value + step, ctrl.max)
    assert panel.last_error is None
    assert panel.figures[0].to_plotly_json() != before
    # and back down (keyboard "left")
    before = panel.figures[0].to_plotly_json()
    if type(ctrl).__name__ == "FloatLogSlider":
        ctrl.value = ctrl.base ** (np.log10(ctrl.value) - 2 * step)
    else:
        ctrl.value = max(ctrl.value - 2 * step, ctrl.min)
    assert panel.last_error is None
    assert panel.figures[0].to_plotly_json() != before


# ------------------------------------------------------------------------------------------------ lesson 11


@pytest.mark.parametrize("cls", [L3.NeighboursPanel, L3.GroupPrivacyCostPanel, L3.BoundingExplorerPanel])
def test_lesson08_panels_build_and_first_slider_works(cls):
    p = cls().refresh()
    assert p.last_error is None and p.figures
    _first_slider_changes_first_figure(p)


def test_neighbours_panel_switches_between_item_and_user():
    p = L3.NeighboursPanel().refresh()
    a0, b0 = np.asarray(p.figures[0].data[0].z), np.asarray(p.figures[0].data[1].z)
    assert (a0 != b0).sum() == 5  # user-level: the whole row of m = 5
    p.controls["kind"].value = "item"
    a1, b1 = np.asarray(p.figures[0].data[0].z), np.asarray(p.figures[0].data[1].z)
    assert (a1 != b1).sum() == 1
    assert "Item-level" in p.readout.value
    # the sliders reach only users and examples that exist: n = 3 moves user 3's slider to its top, 3
    p.controls["user"].value = 6
    p.controls["n_users"].value = 3
    assert p.controls["user"].max == 3 and p.controls["user"].value == 3 and p.last_error is None
    p.controls["m"].value = 2
    assert p.controls["example"].max == 2 and p.controls["example"].value == 2


def test_group_privacy_panel_readout_tracks_m():
    p = L3.GroupPrivacyCostPanel().refresh()
    p.controls["epsilon"].value = 1.0
    p.controls["m"].value = 10
    assert "10" in p.readout.value and "meaningful" in p.readout.value
    p.controls["m"].value = 100
    # δ = 1e-6·(e^100−1)/(e−1) ≫ 1: marked "no guarantee", never printed as a number (issue 18)
    assert "no guarantee" in p.readout.value and "vacuous" not in p.readout.value
    # ε′ and δ′ side by side in ONE figure widget; the right panel's traces use the second legend
    assert len(p.figures) == 1 and any(t.legend == "legend2" for t in p.figures[0].data)


def test_group_privacy_blow_up_factor_is_printed_beyond_float_range_without_warnings():
    import warnings

    import mpmath

    p = L3.GroupPrivacyCostPanel().refresh()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning would reach the page as stderr under Voila
        p.controls["epsilon"].value = 3.0
        p.controls["m_max"].value = 10000
        p.controls["m"].value = 10000
    assert p.last_error is None
    exact = (mpmath.e ** 30000 - 1) / (mpmath.e ** 3 - 1)  # 3.57893…e13027, far beyond a float
    exponent = int(mpmath.floor(mpmath.log10(exact)))
    assert f"{float(exact / mpmath.mpf(10) ** exponent):.3f} × 10<sup>{exponent}</sup>" in p.readout.value
    p.controls["epsilon"].value = 0.5
    p.controls["m"].value = 20
    assert f"{float((mpmath.e ** 10 - 1) / (mpmath.e ** 0.5 - 1)):.4g}" in p.readout.value


def _learner_text(p):
    """Everything a learner can read on the panel before pressing a button: figures, readout, hint, status."""
    return " ".join([str(f.to_plotly_json()) for f in p.figures] + [p.readout.value, p.hint.value, p.status.value]
                    + ([p.exercise.feedback.value] if hasattr(p, "exercise") else []))


def test_bounding_explorer_shows_the_optimum_only_after_reveal_and_hides_it_for_a_new_question():
    p = L3.BoundingExplorerPanel().refresh()
    k_star = int(p.exercise.truth())
    assert k_star != round(p.controls["c"].value)
    text = _learner_text(p)
    assert "c*" not in text and "best c" not in text and "optimum" not in text  # issue 18: nothing gives it away
    assert not any(tr.x is not None and list(tr.x) == [k_star] for tr in p.figures[0].data)
    p.exercise.guess.value = k_star
    p.exercise.button.click()
    assert "✅" in p.exercise.feedback.value
    assert f"optimum c* = {k_star}" in [tr.name for tr in p.figures[0].data] and f"c* = {k_star}" in p.readout.value
    p.controls["epsilon"].value = 0.5  # a new question: the star, the printed optimum and the verdict go
    assert p.exercise.feedback.value == "" and "c*" not in _learner_text(p)


def test_bounding_explorer_delta_slider_only_for_the_gaussian():
    p = L3.BoundingExplorerPanel().refresh()
    assert p.controls["delta"].layout.display == "none"
    p.controls["mechanism"].value = "gaussian"
    assert p.controls["delta"].layout.display is None
    p.controls["mechanism"].value = "laplace"
    assert p.controls["delta"].layout.display == "none"


def test_neighbours_panel_hides_the_example_control_for_user_level():
    p = L3.NeighboursPanel().refresh()
    assert p.controls["kind"].value == "user" and p.controls["example"].layout.display == "none"
    p.controls["kind"].value = "item"
    assert p.controls["example"].layout.display is None


def test_lesson08_choice_exercises_judge_the_pick():
    g = L3.GroupPrivacyCostPanel().refresh()
    assert g.exercise.feedback.value == ""
    g.exercise.choice.index = 0  # the m·δ mistake
    assert "❌" in g.exercise.reveal() and "geometric" in g.exercise.feedback.value
    g.exercise.choice.index = 1
    assert "✅" in g.exercise.reveal()
    b = L3.BoundingExplorerPanel().refresh()
    b.source_exercise.choice.index = 0  # the largest count observed
    assert "❌" in b.source_exercise.reveal()
    b.source_exercise.choice.index = 1
    assert "✅" in b.source_exercise.reveal()


def test_lesson08_panel_texts_have_no_raw_tex_or_internal_keys():
    for cls in (L3.NeighboursPanel, L3.GroupPrivacyCostPanel, L3.BoundingExplorerPanel):
        p = cls().refresh()
        text = _learner_text(p) + p.widget.children[0].value + " ".join(
            c.description for c in p.controls.values())
        for bad in ("^{", "_{", "\\frac", "Source: 000", "of 000", "δ′", "ε′"):
            assert bad not in text, (cls.__name__, bad)


def test_bounding_explorer_updates_and_exercise_reveals_the_optimum():
    p = L3.BoundingExplorerPanel().refresh()
    y0 = _ys(p, 0, 2)  # total RMSE user-level
    p.controls["epsilon"].value = 0.3
    y1 = _ys(p, 0, 2)
    assert np.all(y1 > y0 * 0.999) and not np.allclose(y0, y1)  # less ε ⇒ more error everywhere
    p.controls["tail"].value = 1.2
    assert p.last_error is None
    k_star = int(p.exercise.truth())
    p.exercise.guess.value = k_star
    assert "✅" in p.exercise.reveal()
    p.exercise.guess.value = max(1, k_star // 10)
    assert "❌" in p.exercise.reveal()
    p.controls["mechanism"].value = "gaussian"
    assert p.last_error is None and len(p.figures[0].data) == 6  # + the group-privacy lift curve (no star)
    assert "group privacy" in p.readout.value


def test_bounding_explorer_extreme_settings_do_not_error():
    p = L3.BoundingExplorerPanel().refresh()
    for name, vals in p.bench_values().items():
        for v in (vals[0], vals[-1]):
            p.controls[name].value = v
            assert p.last_error is None, (name, v, p.last_error)


# ------------------------------------------------------------------------------------------------ lesson 14

from dpviz.panels import few_examples as L4  # noqa: E402

FAST4 = [L4.UsersNeededPanel, L4.GenericTransformationPanel, L4.PTRPricePanel, L4.SqrtMPanel, L4.ClippingPanel]


@pytest.mark.parametrize("cls", FAST4 + [L4.DelStabToyPanel])
def test_lesson11_panels_build_and_first_slider_works(cls):
    p = cls().refresh()
    assert p.last_error is None and p.figures
    _first_slider_changes_first_figure(p)


def test_users_needed_panel_presets_switch_rows():
    p = L4.UsersNeededPanel().refresh()
    t0 = p.figures[0].layout.title.text
    p.controls["row"].value = "t2:dd"
    assert p.last_error is None and "Table 2" in p.figures[0].layout.title.text and p.figures[0].layout.title.text != t0
    assert "illustrative" in p.readout.value and "Littlestone" in p.hint.value
    p.controls["row"].value = "t1:pac"
    assert "Theorem 4" in p.readout.value


def test_ptr_panel_readout_pins_kappa():
    p = L4.PTRPricePanel().refresh()
    p.controls["epsilon"].value = 1.0
    p.controls["delta"].value = 1e-6
    assert "κ = 1 + ⌈ln(1/δ̄)/ε̄⌉</td><td><b>48 (other convention: 49)" in p.readout.value
    p.controls["convention"].value = "printed"
    assert "49 (other convention: 48)" in p.readout.value


def test_delstab_panel_check_passes_and_the_n_slider_starts_at_the_minimum():
    # Issue 18: a slider position inside the range is never refused (the old error left a stale figure on screen).
    p = L4.DelStabToyPanel().refresh()
    assert "✓" in _titles(p)
    before = p.figures[0].to_plotly_json()
    p.controls["epsilon"].value = 3.0
    p.controls["delta"].value = 10 ** -1.5  # κ = 1 + ⌈ln(1/δ̄)/ε̄⌉ = 7 here: 4κ = 28 > n = 20
    # the n slider starts at 4κ + 1 = 29 for these (ε, δ): 20 cannot be set, the panel runs at 29
    assert p.controls["n_users"].min == 29
    p.controls["n_users"].value = 20
    assert p.controls["n_users"].value == 29 and p.last_error is None and "29 users ×" in p.readout.value
    assert "✓" in _titles(p) and p.figures[0].to_plotly_json() != before
    p.controls["epsilon"].value = 6.0  # a smaller κ: the slider reaches down again
    assert p.controls["n_users"].min < 29
    p.controls["n_users"].value = 40
    assert p.last_error is None and "needs n" not in p.hint.value and "40 users ×" in p.readout.value


def test_clipping_panel_alpha_follows_the_disagreement_rate_and_exercise():
    p = L4.ClippingPanel().refresh()
    # α_acc ≤ P(disagree) on the slider: α = 0.1 > 0.05 cannot stay, it follows down to 0.05 (issue 18)
    p.controls["disagree"].value = 0.05
    assert p.controls["alpha"].max == pytest.approx(0.05) and p.controls["alpha"].value == pytest.approx(0.05)
    assert p.last_error is None
    # the paper's τ is computed at α = 0.05 (m = 100)
    assert f"{0.05 * 100 + np.sqrt(100 * np.log(1 / 0.05)):.3g} (proof of Theorem 37" in p.readout.value
    p.controls["disagree"].value = 0.5
    assert p.last_error is None and "shown with" not in p.hint.value
    p.exercise.guess.value = p.exercise.truth()
    assert "✅" in p.exercise.reveal()


def test_sqrt_m_panel_readout():
    p = L4.SqrtMPanel().refresh()
    p.controls["m"].value = 1000
    assert "99% of swaps" in p.readout.value
    y = np.asarray(p.figures[0].data[0].y)
    assert y.sum() == pytest.approx(1.0, abs=1e-9)


def test_threshold_learner_panel_runs():
    p = L4.ThresholdLearnerPanel().refresh()
    assert p.last_error is None
    names = [t.name for t in p.figures[0].data]
    assert "simulation, m = 1 (item-level)" in names and "simulation, m = 8" in names
    _first_slider_changes_first_figure(p)


def test_lesson11_readouts_do_not_cite_the_internal_digest():
    # Learners read the paper; dpviz's implementation digest is not theirs to look up.
    for cls in (L4.GenericTransformationPanel, L4.PTRPricePanel):
        p = cls().refresh()
        assert p.last_error is None and "digest" not in p.readout.value


def test_clipping_panel_draws_the_best_tau_only_after_reveal():
    p = L4.ClippingPanel().refresh()
    best = p.exercise.truth()
    assert not any("best" in (tr.name or "") for tr in p.figures[0].data)  # issue 18: no "best τ ≈ …" legend
    assert f"{best:.3g}" not in _learner_text(p)
    p.exercise.guess.value = best
    p.exercise.button.click()
    assert "✅" in p.exercise.feedback.value and f"best τ ≈ {best:.3g}" in [tr.name for tr in p.figures[0].data]
    p.controls["m"].value = 400  # a new question: verdict and star go
    assert p.exercise.feedback.value == "" and not any("best" in (tr.name or "") for tr in p.figures[0].data)


def test_sqrt_m_choice_exercise():
    p = L4.SqrtMPanel().refresh()
    assert p.exercise.feedback.value == ""
    p.exercise.choice.index = 2  # "group privacy was loose": the worst case really costs m·ε_item
    assert "❌" in p.exercise.reveal()
    p.exercise.choice.index = 1
    assert "✅" in p.exercise.reveal() and "Theorem 17" in p.exercise.feedback.value


@pytest.mark.parametrize("cls", FAST4 + [L4.DelStabToyPanel])
def test_lesson11_panel_texts_have_no_raw_tex_nor_internal_labels(cls):
    p = cls().refresh()
    text = _learner_text(p) + p.widget.children[0].value + " ".join(c.description for c in p.controls.values())
    text += " ".join(w.value for w in p.widget.children if hasattr(w, "value") and isinstance(w.value, str))
    for bad in ("^{", "_{", "\\frac", "Source: 000", "of 000", "ALG-", "[derived]", "ε₀", "d_L"):
        assert bad not in text, (cls.__name__, bad)


def test_clipping_tau_slider_never_passes_m():
    """No user's summed score exceeds m, so τ > m means nothing: the τ/√m slider's top follows m (τ ≤ m) and the
    readout never reports a τ beyond m (it once read "your τ 316" at m = 100, with the statistics of τ = 100)."""
    p = L4.ClippingPanel().refresh()
    for m in (1.0, 10.0, 100.0, 1000.0, 10 ** 3.5):
        p.controls["m"].value = m
        s = p.controls["tau_rel"]
        s.value = s.base ** s.max
        mm = round(p.controls["m"].value)
        assert s.value * math.sqrt(mm) <= mm * (1 + 1e-9), (m, s.value)
        assert p.last_error is None
    p.controls["m"].value = 100.0
    p.controls["tau_rel"].value = p.controls["tau_rel"].base ** p.controls["tau_rel"].max
    assert "100: bias" in p.readout.value  # τ = m = 100 at the slider's top


def test_group_privacy_cost_m_slider_ends_where_the_chosen_axis_does():
    """The "m axis up to" choice is never overridden: m's slider ends at it (m = 1000 on an axis to 10² once
    silently stretched the axis to 10³)."""
    p = L3.GroupPrivacyCostPanel().refresh()
    p.controls["m"].value = 1000
    p.controls["m_max"].value = 100
    assert p.controls["m"].value == pytest.approx(100) and p.last_error is None
    p.controls["m_max"].value = 10000
    p.controls["m"].value = 10000
    assert p.controls["m"].value == pytest.approx(10000)


def _threshold_state(p):
    figs = [f.to_plotly_json() for f in p.figures]
    figs = [{**f, "data": [{k: x for k, x in t.items() if k != "uid"} for t in f["data"]]} for f in figs]
    return str(figs) + p.readout.value


def test_threshold_learner_streams_partial_views_and_ends_on_the_synchronous_one():
    """A change in a kernel draws the first partial view at once (two values of n) and refines one n per step; the
    last view is exactly what a synchronous update draws."""
    ref = L4.ThresholdLearnerPanel(trials=10, grid_size=100).refresh()
    ref.controls["epsilon"].value = 2.0
    p = L4.ThresholdLearnerPanel(trials=10, grid_size=100).refresh()
    p.background = True  # as in a kernel; without a running loop, wait() steps the job
    p.controls["epsilon"].value = 2.0
    assert "Partial result, after 2 of 9 values of n" in p.note.value
    partial = _threshold_state(p)
    assert p.wait() and p.last_error is None and p.note.value == ""
    assert _threshold_state(p) == _threshold_state(ref) != partial


def test_threshold_learner_partial_views_draw_the_theory_over_the_whole_grid():
    """Every view draws the closed-form theory over the final n grid (the axes stand still while it refines); the
    simulated points fill in along it, one n per step."""
    p = L4.ThresholdLearnerPanel(trials=10, grid_size=100)
    steps = list(p.render(p.values()))
    assert [s.done for s in steps] == list(range(L4.ThresholdLearnerPanel.FIRST_DRAW, len(p.N_GRID) + 1))

    def curves(step):
        (fig,) = step.draw().figures
        theory = {t.name: (list(t.x), list(t.y)) for t in fig.data if t.name.startswith("theory,")}
        sim = {t.name: list(t.x) for t in fig.data if not t.name.startswith("theory,")}
        return theory, sim

    final_theory, final_sim = curves(steps[-1])
    assert final_theory and final_sim
    for step in steps[:-1]:
        theory, sim = curves(step)
        assert theory == final_theory and sim.keys() == final_sim.keys()
        assert all(len(x) == step.done and x == final_sim[k][:len(x)] for k, x in sim.items())
