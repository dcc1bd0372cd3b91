"""Every panel at its defaults, read as a learner reads it (issue 18, items 2 and 3).

* No raw TeX anywhere a learner reads: the panel's title, intro, readout, hint and messages, every control's label
  and option, every exercise's question and option, every figure's title, axis titles, annotations, legend entries
  and hover templates (Voilà does not typeset TeX in widgets or figures).
* No exercise shows its answer before Reveal: the value a :class:`PredictReveal` checks the guess against appears in
  no learner-visible text and in no number a figure draws (data, shapes, annotations), and no exercise's feedback is
  shown before the learner commits. After Reveal the answer is shown, which is also how these tests prove that the
  detector sees an answer where one is printed.
"""

from __future__ import annotations

import math
import re

import ipywidgets as W
import pytest
from _lesson_text import _raw_tex

from dpviz.panels.exercises import ChoiceReveal, Exercise
from dpviz.panels.panel import registered_panels

PANELS = {name: cls for name, cls in registered_panels().items()
          if cls.__module__.startswith("dpviz.panels.") and not name.startswith("_")}


def _exercises(panel) -> list[Exercise]:
    return [v for v in vars(panel).values() if isinstance(v, Exercise)]


def _extra(panel) -> list:
    return [ex.widget for ex in panel.exercise_list]


def _widget_texts(panel) -> list[str]:
    texts = [panel.title, panel.intro, panel.readout.value, panel.hint.value, panel.status.value]
    for c in panel.controls.values():
        texts.append(str(getattr(c, "description", "") or ""))
        for option in getattr(c, "options", ()) or ():
            texts.append(str(option[0] if isinstance(option, tuple) else option))
    for ex in _exercises(panel):
        texts.append(ex.question.value)
        texts.append(ex.feedback.value)
        if isinstance(ex, ChoiceReveal):
            texts += [label for label, _, _ in ex.options]
    for w in _extra(panel):
        stack = [w]
        while stack:
            x = stack.pop()
            if isinstance(x, W.HTML) or isinstance(x, W.Label):
                texts.append(x.value)
            stack += list(getattr(x, "children", ()))
    return [t for t in texts if t]


_FIGURE_TEXT_KEYS = {"text", "name", "hovertemplate", "texttemplate", "title"}


def _figure_texts_and_numbers(fig) -> tuple[list[str], list[float]]:
    texts: list[str] = []
    numbers: list[float] = []

    def walk(o, key: str = "") -> None:
        if isinstance(o, dict):
            for k, v in o.items():
                walk(v, k)
        elif isinstance(o, (list, tuple)):
            for v in o:
                walk(v, key)
        elif hasattr(o, "tolist"):
            walk(o.tolist(), key)
        elif isinstance(o, str):
            if key in _FIGURE_TEXT_KEYS or key in ("ticktext",):
                texts.append(o)
        elif isinstance(o, (int, float)) and not isinstance(o, bool):
            if key in ("x", "y", "z", "x0", "x1", "y0", "y1", "base") and math.isfinite(o):
                numbers.append(float(o))

    walk(fig.to_plotly_json())
    return texts, numbers


def _shown(panel) -> tuple[list[str], list[float]]:
    texts = _widget_texts(panel)
    numbers: list[float] = []
    for fig in panel.figures:
        t, n = _figure_texts_and_numbers(fig)
        texts += t
        numbers += n
    return texts, numbers


def _telling(answer: float) -> list[str]:
    """How the answer would be printed (3 or 4 significant digits, or a whole number, with or without thousands
    separators), when that says more than a round number does: an answer such as 1 or 0.5 also appears as an axis
    tick or a slider value and would prove nothing."""
    forms = {f"{answer:.3g}", f"{answer:.4g}"}
    if abs(answer) >= 100:
        forms |= {f"{answer:.0f}", f"{answer:,.0f}", f"{answer:,.0f}".replace(",", "\u202f")}
    return [f for f in forms if len(re.sub(r"[^0-9]", "", f).strip("0")) >= 3]


def _leaks(answer: float, texts: list[str], numbers: list[float]) -> list[str]:
    found = []
    for form in _telling(answer):
        pattern = re.compile(r"(?<![0-9.])" + re.escape(form) + r"(?![0-9])")
        found += [f"text {t[:120]!r}" for t in texts if pattern.search(t)]
    if _telling(answer):
        found += [f"a figure draws {x!r}" for x in numbers
                  if math.isclose(x, answer, rel_tol=1e-9, abs_tol=0.0)]
    return found


def test_the_answer_detector_sees_a_printed_answer_and_ignores_round_ones():
    assert _leaks(0.2718, ["the answer is 0.2718 here"], []) != []
    assert _leaks(0.2718, ["ε = 0.27"], [0.2718]) == ["a figure draws 0.2718"]
    assert _leaks(0.2718, ["10.2718"], []) == []  # another number that merely contains it
    assert _leaks(0.5, ["ε = 0.5"], [0.5]) == []  # round: proves nothing
    assert _leaks(460337.2, ["about 460,337 users"], []) != []


@pytest.mark.slow
def test_every_lesson_panel_is_swept():
    assert len(PANELS) >= 30, sorted(PANELS)
    with_exercise = [n for n, cls in PANELS.items() if _exercises(cls().refresh())]
    assert len(with_exercise) >= 20, with_exercise


@pytest.mark.parametrize("name", sorted(PANELS))
def test_panel_text_and_figures_have_no_raw_tex(name):
    panel = PANELS[name]().refresh()
    texts, _ = _shown(panel)
    found = [(hit, t[:100]) for t in texts for hit in _raw_tex(t)]
    assert not found, f"{name}: raw TeX {found[:5]} (use Unicode or <sup>/<sub>)"


@pytest.mark.parametrize("name", sorted(PANELS))
def test_no_exercise_shows_its_answer_before_reveal(name):
    panel = PANELS[name]().refresh()
    exercises = _exercises(panel)
    if not exercises:
        assert not any("reveal" in str(getattr(w, "value", "")).lower() for w in _extra(panel)), \
            f"{name}: an exercise widget that this sweep does not see"
        return
    texts, numbers = _shown(panel)
    for ex in exercises:
        assert ex.feedback.value == "", f"{name}: feedback shown before the learner committed"
        if hasattr(ex, "guess"):
            answer = ex.truth()
            leaks = _leaks(answer, texts, numbers)
            assert not leaks, f"{name}: the answer {answer:.4g} is visible before Reveal: {leaks[:3]}"
    # After Reveal the answer is on the page: the detector sees it (so a leak above would have been seen too).
    for ex in exercises:
        if hasattr(ex, "guess") and _telling(ex.truth()):
            ex.reveal()
            assert _leaks(ex.truth(), [ex.feedback.value], []), \
                f"{name}: Reveal does not print the answer as {_telling(ex.truth())}"
