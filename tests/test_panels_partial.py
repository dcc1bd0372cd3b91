"""Headless tests of the lesson-07 panels (dpviz.panels.partial)."""

import numpy as np
import pytest
from _figure_checks import watch_updates_for_nan

from dpviz.panels._base import PANEL_REGISTRY
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


@pytest.mark.parametrize("cls", ALL)
def test_builds_at_defaults_and_is_registered(cls):
    p = cls()
    assert p.last_error is None and p.figures
    assert PANEL_REGISTRY[cls.__name__] is cls
    # every figure keeps the shared template after an update (fast sync path)
    first = next(iter(p.controls))
    vals = p.bench_values()[first]
    p.controls[first].value = vals[len(vals) // 2]
    assert p.figures[0].layout.template.layout.font.family


def test_first_slider_changes_first_figure():
    p = RecordEpsilonPanel()
    name = next(iter(p.controls))
    assert name == "eps0"
    before = np.array(p.figures[0].data[0].y)
    p.controls[name].value = 0.2
    assert not np.allclose(before, p.figures[0].data[0].y)
    np.testing.assert_allclose(p.figures[0].data[0].y, 0.2 * np.asarray(p.figures[0].data[0].x))


def test_record_panel_bad_combination_then_recovers():
    p = RecordEpsilonPanel()
    p.controls["k"].value = 50
    assert p.last_error and "k = 50" in p.last_error and p.status.value
    p.controls["k"].value = 3
    assert p.last_error is None and p.status.value == ""
    assert "k = 3" in p.readout.value or "3 attributes" in p.readout.value


def test_census_checkboxes():
    p = CensusPanel()
    assert "7.85" in p.readout.value  # race + ethnicity by default: (7.856, 1e-6)
    p.controls["attr_race"].value = False
    p.controls["attr_ethnicity"].value = False
    p.controls["attr_occupancy"].value = True
    assert "0.07" in p.readout.value
    for a in ("geography", "hhgq", "voting_age", "ethnicity", "race"):
        p.controls[f"attr_{a}"].value = True
    assert "13.79" in p.readout.value


def test_heavy_hitter_panel_and_constants():
    p = HeavyHitterPanel()
    assert "5 of 5" in p.readout.value
    p.controls["constants"].value = "paper"
    assert p.hint.value and "1.34" in p.hint.value
    p.controls["constants"].value = "corrected"
    assert p.hint.value == ""


def test_marginals_panel_bad_ell():
    p = MarginalsPanel()
    p.controls["ell"].value = 30
    assert p.last_error and "ℓ" in p.last_error
    p.controls["ell"].value = 2
    assert p.last_error is None
    p.controls["simulate"].value = True
    assert p.last_error is None and any("simulated" in (t.name or "") for t in p.figures[0].data)


def test_misconception_exercise_reveal():
    p = MisconceptionPanel()
    p.exercise.guess.value = 9.1
    text = p.exercise.reveal()
    assert "Close" in text and "9.1" in text
    p.controls["eps_other"].value = 0.5
    p.exercise.guess.value = 0.1
    assert "too low" in p.exercise.reveal()


def test_canonical_panel_changes():
    p = CanonicalHistogramPanel()
    assert "0.99326" in p.readout.value
    p.controls["eps"].value = 1.0
    assert "0.39347" in p.readout.value


def test_misconception_panel_hides_the_answer_until_revealed():
    p = MisconceptionPanel()
    assert "9.1" not in p.figures[0].layout.title.text  # the figure would give the answer away
    p.exercise.guess.value = 5.0
    p.exercise.button.click()
    assert "9.1" in p.figures[0].layout.title.text and "too low" in p.exercise.feedback.value
    p.controls["d"].value = 12  # a new question: hidden again
    assert "11.1" not in p.figures[0].layout.title.text


def test_two_figure_panels_stack_figures_at_full_width():
    for cls in (RecordEpsilonPanel, CensusPanel, CanonicalHistogramPanel, HeavyHitterPanel):
        assert cls()._figbox.layout.flex_flow == "column"


def test_census_controls_and_table_use_readable_attribute_names():
    p = CensusPanel()
    assert "race (CENRACE) changes" == p.controls["attr_race"].description
    assert "voting_age" not in p.readout.value and "voting age" in p.readout.value


def test_marginals_query_order_moves_across_its_range_without_error():
    # the lesson asks learners to move k from 1 to 4 and watch the projection curve: no ℓ error may block it
    p = MarginalsPanel()
    for k in range(p.controls["k"].min, p.controls["k"].max + 1):
        p.controls["k"].value = k
        assert p.last_error is None, p.last_error
        assert f"{k}-way" in p.figures[0].layout.title.text


@pytest.mark.parametrize("cls,control", [(HeavyHitterPanel, "d"), (HeavyHitterPanel, "eps0"),
                                         (RecordEpsilonPanel, "eps0"), (MarginalsPanel, "k")])
def test_figure_updates_sent_to_the_browser_contain_no_bare_nan(cls, control):
    # NaN is not JSON: the front end drops such an update and the figure stops following the sliders
    p = cls()
    found = watch_updates_for_nan(p)
    for v in p.bench_values()[control][:4]:
        p.controls[control].value = v
    assert p.last_error is None and not found, found[:5]
