"""Exercises a panel declares: predict a number, or pick a statement, then reveal the answer.

A panel lists them as ``exercises = {"exercise": PredictReveal(question, answer=...), ...}``; the base builds one
copy per panel (``panel.exercise``), shows them under the figures, guards what the browser may send them, and
never shows an answer before the learner has committed (pressed Reveal).

The functions an exercise takes are called with the panel and its current :class:`~dpviz.panels.controls.Values`:
``answer(panel, v)``, ``explain(panel, v, truth)``, and a ``question`` that depends on the settings
``question(panel, v)``; functions defined in the class body above the declaration are exactly that.

``redraw=True``: a reveal draws the panel again, and the render asks ``self.revealed("exercise")`` to show what the
answer unlocks (a curve, a number). It stays revealed until a control moves (predict again), or for good with
``sticky=True``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as W
from ipywidgets.widgets.widget_description import DescriptionStyle

from dpviz.panels.controls import _STYLE, Values, button, html_widget, shared_style
from dpviz.panels.guard import Checks, index_checks, number_text_checks

if TYPE_CHECKING:  # pragma: no cover
    from dpviz.panels.panel import Panel

__all__ = ["Exercise", "PredictReveal", "ChoiceReveal"]

_FEEDBACK = "<div style='padding:4px 8px;background:#eef6fb'>{}</div>"


class Exercise:
    """What every exercise has: a question, a Reveal button, a feedback line, and a revealed state."""

    prompt = ""  # the bold lead of the question ("Predict, then reveal.")

    def __init__(self, question: str | Callable[..., str], *, redraw: bool = False, sticky: bool = False):
        self._question = question
        self.redraw = redraw
        self.sticky = sticky
        self.panel: Panel | None = None
        self.name = ""
        self.widget: W.Widget | None = None

    # -- built once per panel ---------------------------------------------------------------------------------
    def bind(self, panel: Panel, name: str) -> Exercise:
        """A copy of this declaration with its own widgets, for ``panel``."""
        ex = copy.copy(self)
        ex.panel, ex.name = panel, name
        ex._revealed_at: Values | None = None
        ex._revealed_ever = False
        ex.question = html_widget(ex._question_html())
        ex.button = button(description="Reveal", button_style="info")
        ex.feedback = html_widget("")
        ex.feedback.add_class("dpviz-feedback")
        ex.button.on_click(ex.reveal)
        ex.widget = W.VBox(ex._build())
        ex.widget.add_class("dpviz-exercise")
        return ex

    def _build(self) -> list[W.Widget]:  # pragma: no cover - abstract
        raise NotImplementedError

    def client_checks(self) -> dict[W.Widget, Checks]:
        """What the browser may send each of this exercise's widgets."""
        return {}

    # -- state ------------------------------------------------------------------------------------------------
    def _values(self) -> Values:
        return self.panel.values()

    def _call(self, fn: Callable, *args) -> Any:
        return fn(self.panel, self._values(), *args)

    def _question_html(self) -> str:
        q = self._question
        text = self._call(q) if callable(q) else q
        return f"<b>{self.prompt}</b> {text}"

    def refresh(self) -> None:
        """Called by the panel after each render: a question that depends on the settings follows them, and the
        feedback of a reveal made at other settings goes (it answered another question)."""
        if callable(self._question):
            self.question.value = self._question_html()
        if self.feedback.value and self._revealed_at is not None and not self.sticky and not self.revealed \
                and (self.redraw or callable(self._question)):
            self.feedback.value = ""

    @property
    def revealed(self) -> bool:
        """True once revealed (``sticky``), or while the settings are those it was revealed at."""
        if self.sticky:
            return self._revealed_ever
        return self._revealed_at is not None and self._revealed_at == self._values()

    def _show(self, text: str) -> str:
        self.feedback.value = _FEEDBACK.format(text)
        return text

    def _committed(self) -> None:
        self._revealed_at = self._values()
        self._revealed_ever = True
        if self.redraw:
            self.panel.update()

    def reveal(self, _button: Any = None) -> str:  # pragma: no cover - abstract
        raise NotImplementedError


class PredictReveal(Exercise):
    """The learner commits to a number, then Reveal shows the answer, how far off the guess was, and why.

    Parameters
    ----------
    question : str or function (panel, v) -> str
        HTML of the question.
    answer : function (panel, v) -> float
        Evaluated at reveal time, from the panel's current settings.
    explain : function (panel, v, truth) -> str, optional
        HTML shown with the answer (the reasoning, with its citation).
    rel_tol : float
        Relative error counted as "close".
    unit : str
        Shown after numbers.
    """

    prompt = "Predict, then reveal."

    def __init__(self, question, answer: Callable[..., float], *, explain: Callable[..., str] | None = None,
                 rel_tol: float = 0.1, unit: str = "", guess_label: str = "Your guess:", redraw: bool = False,
                 sticky: bool = False):
        super().__init__(question, redraw=redraw, sticky=sticky)
        self.answer = answer
        self.explain = explain
        self.rel_tol = rel_tol
        self.unit = unit
        self.guess_label = guess_label

    def _build(self):
        # continuous_update=False: the value arrives when the learner presses Enter (or leaves the box), which
        # commits the guess and reveals, as the button does.
        self.guess = W.FloatText(value=0.0, description=self.guess_label,
                                 style=shared_style(DescriptionStyle, **_STYLE), continuous_update=False,
                                 layout=W.Layout(width="260px", max_width="100%"))
        if "<" in self.guess_label:
            self.guess.description_allow_html = True
        self.guess.observe(lambda _change: self.reveal(), names="value")
        return [self.question, W.HBox([self.guess, self.button], layout=W.Layout(flex_flow="row wrap")),
                self.feedback]

    def client_checks(self):
        return {self.guess: number_text_checks()}

    def verdict(self, guess: float, truth: float) -> str:
        """The first sentence of the feedback: close or not, and which way."""
        if truth == 0:
            close, rel = abs(guess) <= self.rel_tol, (math.inf if guess else 0.0)
        else:
            rel = abs(guess - truth) / abs(truth)
            close = rel <= self.rel_tol
        if close:
            return f"✅ Close: you said {guess:.4g}{self.unit}, the answer is {truth:.4g}{self.unit}."
        direction = "high" if guess > truth else "low"
        pct = f" (off by {rel:.0%})" if math.isfinite(rel) else ""
        return f"❌ Your guess {guess:.4g}{self.unit} is too {direction}{pct}; the answer is {truth:.4g}{self.unit}."

    def truth(self) -> float:
        """The answer at the panel's current settings."""
        return float(self._call(self.answer))

    def reveal(self, _button: Any = None) -> str:
        truth = self.truth()
        text = self.verdict(float(self.guess.value), truth)
        if self.explain is not None:
            text += " " + self._call(self.explain, truth)
        self._show(text)
        self._committed()
        return text


class ChoiceReveal(Exercise):
    """The learner picks one statement, then Reveal says whether it holds, and why.

    Made for misconceptions: each option carries its own feedback, so a tempting wrong answer is answered with what
    makes it tempting and why it fails.

    Parameters
    ----------
    question : str or function (panel, v) -> str
        HTML of the question.
    options : sequence of (label, correct, feedback)
        ``label`` is the option's text (plain text), ``correct`` whether it is a right answer, ``feedback`` the HTML
        shown when the learner reveals with this option picked.
    """

    prompt = "Think, then reveal."

    def __init__(self, question, options: Sequence[tuple[str, bool, str]], *, redraw: bool = False,
                 sticky: bool = False):
        if len(options) < 2:
            raise ValueError(f"options has {len(options)} entries; a choice needs at least 2")
        if not any(correct for _, correct, _ in options):
            raise ValueError("options: at least one option must be correct")
        super().__init__(question, redraw=redraw, sticky=sticky)
        self.options = [(str(label), bool(correct), str(feedback)) for label, correct, feedback in options]

    def _build(self):
        self.choice = W.RadioButtons(options=[label for label, _, _ in self.options], value=None,
                                     style=shared_style(DescriptionStyle),
                                     layout=W.Layout(width="auto", max_width="100%"))
        self.choice.observe(self._clear, names="index")
        return [self.question, self.choice, self.button, self.feedback]

    def client_checks(self):
        return {self.choice: index_checks(self.choice)}

    def _clear(self, _change: Any = None) -> None:
        self.feedback.value = ""  # a new pick: the previous verdict no longer applies

    def reveal(self, _button: Any = None) -> str:
        index = self.choice.index
        if index is None:
            return self._show("Pick the statement you believe first, then press Reveal.")
        _label, correct, feedback = self.options[index]
        text = self._show(f"{'✅ Right.' if correct else '❌ Not quite.'} {feedback}")
        self._committed()
        return text
