"""Adversarial sweep of the panels: what a library user (or a lesson) passes to a panel's constructor.

A panel is built as ``Panel(**initial_values)``, one keyword per control. Each control of every public panel gets
each hostile value of :data:`_adversarial.ADVERSARIAL` in turn: the panel must refuse it with a ValueError that names
the control, or (for a value inside the control's declared range) build and render with no error, no warning and no
friendly-error message. Browser input takes another road (``guard_client_input``,
tests/panels/test_panels_client_input.py).
"""

from __future__ import annotations

import importlib
import pkgutil
import warnings

import pytest
from _adversarial import ADVERSARIAL, ADVERSARIAL_IDS, contract_tests, register

import dpviz.panels as face
from dpviz.panels import landing
from dpviz.panels.panel import Panel

MODULES = [importlib.import_module(f"dpviz.panels.{m.name}") for m in pkgutil.iter_modules(face.__path__)
           if not m.name.startswith("_")]
PANELS = sorted({(module.__name__, name) for module in MODULES for name in module.__all__
                 if isinstance(getattr(module, name), type) and issubclass(getattr(module, name), Panel)})


def _panel(module_name: str, name: str) -> type:
    return getattr(importlib.import_module(module_name), name)


def test_every_public_panel_class_is_listed():
    assert len(PANELS) >= 50 and ("dpviz.panels.counting", "SensitivityPanel") in PANELS


@pytest.mark.parametrize("module_name,name", PANELS, ids=[n for _, n in PANELS])
def test_hostile_initial_values_are_refused_by_name_or_render_cleanly(module_name, name):
    cls = _panel(module_name, name)
    base = cls().refresh()
    base.background = False
    problems = []
    for control in base.controls:
        for value, vid in zip(ADVERSARIAL, ADVERSARIAL_IDS):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                try:
                    panel = cls(**{control: value}).refresh()
                except (ValueError, TypeError) as exc:
                    if control not in str(exc):
                        problems.append(f"{control} = {vid}: {type(exc).__name__} without the control's name: {exc}")
                    continue
                except Exception as exc:  # noqa: BLE001 — the point is to name what escaped
                    problems.append(f"{control} = {vid}: {type(exc).__name__}: {str(exc)[:160]}")
                    continue
            if panel.last_error is not None:
                problems.append(f"{control} = {vid}: accepted, then the panel showed an error: {panel.last_error}")
    assert problems == []


def test_an_out_of_range_value_is_refused_not_clamped():
    """A slider clamps what it is given; the constructor must refuse instead (it can fail: ipywidgets alone
    would build the panel at the slider's maximum)."""
    from dpviz.panels.counting import SensitivityPanel

    with pytest.raises(ValueError, match=r"epsilon = 1000.0 is not allowed for SensitivityPanel: .*\[0.1, 4\]"):
        SensitivityPanel(epsilon=1000.0)
    with pytest.raises(ValueError, match=r"query = 'median' .* must be one of \['count', 'sum', 'mean'"):
        SensitivityPanel(query="median")
    assert SensitivityPanel(epsilon=4.0).controls["epsilon"].value == 4.0


# every panel class is swept control by control above; the face's other names and the landing page are plain calls
for _module in MODULES:
    register(_module, [n for n in _module.__all__ if (_module.__name__, n) in PANELS])

globals().update(contract_tests(face, {
    "View": (([],), {}),
    "PredictReveal": (("How many?", lambda panel, v: 2.0), {}),
    "Step": ((1, 2, lambda: None), {}),
    "Values": (({"a": 1.0},), {}),
    "Slider": (("σ", 1.0, 0.5, 2.0, 0.5), {}),
    "IntSlider": (("k", 2, 1, 3), {}),
    "LogSlider": (("δ", 1e-5, 1e-10, 1e-1, 0.5), {}),
    "Choice": (("kind", ["a", "b"], "b"), {}),
    "Toggle": (("kind", [("A", "a"), ("B", "b")], "a"), {}),
    "Checkbox": (("on", True), {}),
    "Action": (("Play", lambda panel, v: None), {}),
    "ChoiceReveal": (("Which?", [("a", True, "right"), ("b", False, "wrong")]), {}),
    "registered_panels": ((), {}),
}, exempt={"Panel": "the abstract base of the panels swept above"}, suffix="face"))

globals().update(contract_tests(landing, {
    "LessonIndex": ((), {}),
    "lesson_index_html": ((), {}),
}, suffix="landing"))
