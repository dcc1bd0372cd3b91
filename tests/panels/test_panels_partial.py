"""Headless tests of the lesson-07 panels (dpviz.panels.partial)."""

import math

import numpy as np
import pytest
from _figure_checks import watch_updates_for_nan

from dpviz.panels import Values
from dpviz.panels.panel import PANEL_REGISTRY
from dpviz.panels.partial import (
    AttributeUsersNeededPanel,
    CanonicalHistogramPanel,
    CensusPanel,
    HeavyHitterPanel,
    InterpretationPanel,
    MarginalsPanel,
    MisconceptionPanel,
    RecordEpsilonPanel,
)

ALL = [RecordEpsilonPanel, InterpretationPanel, CensusPanel, CanonicalHistogramPanel, HeavyHitterPanel,
       AttributeUsersNeededPanel, MarginalsPanel, MisconceptionPanel]


@pytest.mark.slow
@pytest.mark.parametrize("cls", ALL)
def test_builds_at_defaults_and_is_registered(cls):
    p = cls().refresh()
    assert p.last_error is None and p.figures
    assert PANEL_REGISTRY[cls.__name__] is cls
    # every figure keeps the shared template after an update (fast sync path)
    first = next(iter(p.controls))
    vals = p.bench_values()[first]
    p.controls[first].value = vals[len(vals) // 2]
    assert p.figures[0].layout.template.layout.font.family


def test_first_slider_changes_first_figure():
    p = RecordEpsilonPanel().refresh()
    name = next(iter(p.controls))
    assert name == "eps0"
    before = np.array(p.figures[0].data[0].y)
    p.controls[name].value = 0.2
    assert not np.allclose(before, p.figures[0].data[0].y)
    np.testing.assert_allclose(p.figures[0].data[0].y, 0.2 * np.asarray(p.figures[0].data[0].x))


def test_record_panel_bad_combination_then_recovers():
    # issue 18: the g slider reaches only g ≤ d (it used to go to 100 and refuse above d)
    p = RecordEpsilonPanel().refresh()
    assert p.controls["k"].max == p.controls["d"].value == 20
    p.controls["k"].value = 50
    assert p.controls["k"].value == 20 and p.last_error is None
    p.controls["d"].value = 5
    assert p.controls["k"].max == 5 and p.controls["k"].value == 5 and p.last_error is None
    # client input beyond the range still gets a friendly message, and the panel recovers
    with pytest.raises(ValueError, match="g = 50"):
        p.render(Values({**p.values(), "k": 50}))
    p.controls["k"].value = 3
    assert p.last_error is None and p.status.value == ""
    assert "g = 3" in p.readout.value


def test_census_checkboxes():
    p = CensusPanel().refresh()
    assert "7.85" in p.readout.value  # race + ethnicity by default: (7.856, 1e-6)
    assert "μ = √(2ρ) = 1.43" in p.readout.value and "μ = 2.29" in p.readout.value  # the reading of lesson 09
    p.controls["attr_race"].value = False
    p.controls["attr_ethnicity"].value = False
    p.controls["attr_occupancy"].value = True
    assert "0.07" in p.readout.value
    for a in ("geography", "hhgq", "voting_age", "ethnicity", "race"):
        p.controls[f"attr_{a}"].value = True
    assert "13.79" in p.readout.value


def test_heavy_hitter_panel_and_constants():
    p = HeavyHitterPanel().refresh()
    assert "5 of 5" in p.readout.value
    p.controls["constants"].value = "paper"
    assert p.hint.value and "1.34" in p.hint.value
    p.controls["constants"].value = "corrected"
    assert p.hint.value == ""


def test_marginals_panel_bad_ell():
    # issue 18: ℓ's slider reaches only ℓ ≤ ⌊d/w⌋, w's only w ≤ d
    p = MarginalsPanel().refresh()
    assert p.controls["ell"].max == 10 // 2
    p.controls["ell"].value = 30
    assert p.controls["ell"].value == 5 and p.last_error is None
    p.controls["k"].value = 4
    assert p.controls["ell"].max == 2 and p.controls["ell"].value == 2 and p.last_error is None
    p.controls["d"].value = 3
    assert p.controls["k"].max == 3 and p.last_error is None
    with pytest.raises(ValueError, match="ℓ"):
        p.render(Values({**p.values(), "ell": 30}))
    p.controls["d"].value = 10
    p.controls["k"].value = 2
    p.controls["ell"].value = 2
    assert p.last_error is None
    p.controls["simulate"].value = True
    assert p.last_error is None and any("simulated" in (t.name or "") for t in p.figures[0].data)


def test_misconception_exercise_reveal():
    p = MisconceptionPanel().refresh()
    p.exercise.guess.value = 9.1
    text = p.exercise.reveal()
    assert "Close" in text and "9.1" in text
    p.controls["eps_other"].value = 0.5
    p.exercise.guess.value = 0.1
    assert "too low" in p.exercise.reveal()


def test_canonical_panel_changes():
    p = CanonicalHistogramPanel().refresh()
    assert "0.99326" in p.readout.value
    p.controls["eps"].value = 1.0
    assert "0.39347" in p.readout.value


def test_misconception_panel_hides_the_answer_until_revealed():
    p = MisconceptionPanel().refresh()
    assert "9.1" not in p.figures[0].layout.title.text  # the figure would give the answer away
    p.exercise.guess.value = 5.0
    p.exercise.button.click()
    assert "9.1" in p.figures[0].layout.title.text and "too low" in p.exercise.feedback.value
    p.controls["d"].value = 12  # a new question: hidden again
    assert "11.1" not in p.figures[0].layout.title.text


def test_two_figure_panels_stack_figures_at_full_width():
    for cls in (RecordEpsilonPanel, CensusPanel, CanonicalHistogramPanel, HeavyHitterPanel):
        assert cls().refresh()._figbox.layout.flex_flow == "column"


def test_census_controls_and_table_use_readable_attribute_names():
    p = CensusPanel().refresh()
    assert "race (CENRACE) changes" == p.controls["attr_race"].description
    assert "voting_age" not in p.readout.value and "voting age" in p.readout.value


def test_marginals_query_order_moves_across_its_range_without_error():
    # the lesson asks learners to move k from 1 to 4 and watch the projection curve: no ℓ error may block it
    p = MarginalsPanel().refresh()
    for k in range(p.controls["k"].min, p.controls["k"].max + 1):
        p.controls["k"].value = k
        assert p.last_error is None, p.last_error
        assert f"{k}-way" in p.figures[0].layout.title.text


@pytest.mark.parametrize("cls,control", [(HeavyHitterPanel, "d"), (HeavyHitterPanel, "eps0"),
                                         (RecordEpsilonPanel, "eps0"), (MarginalsPanel, "k")])
def test_figure_updates_sent_to_the_browser_contain_no_bare_nan(cls, control):
    # NaN is not JSON: the front end drops such an update and the figure stops following the sliders
    p = cls().refresh()
    found = watch_updates_for_nan(p)
    for v in p.bench_values()[control][:4]:
        p.controls[control].value = v
    assert p.last_error is None and not found, found[:5]


def test_users_needed_theorem16_toggle_printed_and_corrected():
    # Theorem 16 as printed: n ≥ 0.05·ln d/(εν); corrected (its proof's points are ⌈3νn⌉ changes apart):
    # n ≥ (ln(d/10)/ε − 1)/(3ν). Both apply only for d ≥ 10e^{1.1ε}; the corrected one is ≤ 0 for small d —
    # no guarantee there, drawn as a gap, never as 0
    p = AttributeUsersNeededPanel().refresh()
    fig = p.figures[0]
    lb = next(t for t in fig.data if "lower bound" in t.name)
    assert "corrected" in lb.name
    d = np.asarray(lb.x, dtype=float)
    y = np.array([np.nan if v is None else v for v in lb.y], dtype=float)
    expect = (np.log(d / 10) / 1.0 - 1) / (3 * 0.1)
    ok = (d >= 10 * math.exp(1.1)) & (expect > 0)
    np.testing.assert_allclose(y[ok], expect[ok], rtol=1e-12)
    assert np.all(np.isnan(y[~ok])) and (~ok).any()
    p.controls["thm16"].value = False
    lb = next(t for t in p.figures[0].data if "lower bound" in t.name)
    y = np.array([np.nan if v is None else v for v in lb.y], dtype=float)
    printed = 0.05 * np.log(d) / 0.1
    ok = d >= 10 * math.exp(1.1)
    np.testing.assert_allclose(y[ok], printed[ok], rtol=1e-12)
    assert "as printed" in lb.name
    # at d = 16 < 10e^{1.1} ≈ 30 the readout says the bound gives no guarantee
    assert "no guarantee" in p.readout.value


def test_misconception_panel_clears_the_previous_answer_under_a_new_question():
    p = MisconceptionPanel().refresh()
    p.exercise.guess.value = 9.1
    p.exercise.button.click()
    assert p.exercise.feedback.value  # revealed: verdict and answer
    p.controls["d"].value = 12  # a new question
    assert p.exercise.feedback.value == ""
    # the explanation names sequential composition, not Lemma 10 as parallel composition
    text = p.exercise.reveal()
    assert "sequential" in text and "not parallel composition" in text


def test_record_panel_choice_exercise_parallel_vs_sequential():
    p = RecordEpsilonPanel().refresh()
    ex = p.misconception
    assert ex.feedback.value == ""
    ex.choice.index = 0
    ex.reveal()
    assert "❌" in ex.feedback.value and "disjoint <i>records</i>" in ex.feedback.value
    ex.choice.index = 1
    ex.reveal()
    assert "✅" in ex.feedback.value
    # per-column releases are sequential composition in the readout too; course notation, no ε0 / CKS alias
    assert "sequential composition" in p.readout.value and "Lemma 10" in p.readout.value
    texts = p.readout.value + p.intro_html if hasattr(p, "intro_html") else p.readout.value
    assert "ε0" not in texts and "CKS 2020" not in texts
