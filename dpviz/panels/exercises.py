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

Every exercise feeds the class (issue 39). Each has public :attr:`Exercise.buckets`, a
:class:`dpviz.classpoll.Buckets` fixed by the declaration (a choice's options; a numeric answer's declared ``bins``,
or by default five buckets of its relative error), so that the class's answers are a histogram over a public
domain. In a kernel started by ``dpviz serve`` with the class view on (:func:`dpviz.panels.classfeed.class_feed`),
a reveal sends the answer's bucket to the class tally (randomized in the kernel first in local privacy), a
one-line notice under the box says what is shared and how it is protected, a check box opts out, and after a
shared reveal the box shows "your class so far". Without a feed (JupyterLab, the tests) nothing of this is shown.
"""

from __future__ import annotations

import copy
import logging
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as W
from ipywidgets.widgets.widget_description import DescriptionStyle

from dpviz.classpoll import Buckets
from dpviz.panels.classfeed import ClassBox, ClassFeed, ClassFeedError, class_feed, plain_title, release_html
from dpviz.panels.controls import _STYLE, Values, button, html_widget, shared_style
from dpviz.panels.guard import Checks, index_checks, number_text_checks

if TYPE_CHECKING:  # pragma: no cover
    from dpviz.panels.panel import Panel

__all__ = ["Exercise", "PredictReveal", "ChoiceReveal"]

_FEEDBACK = "<div style='padding:4px 8px;background:#eef6fb'>{}</div>"

log = logging.getLogger("dpviz.panels")


class Exercise:
    """What every exercise has: a question, a Reveal button, a feedback line, and a revealed state."""

    prompt = ""  # the bold lead of the question ("Predict, then reveal.")
    kind = ""  # the class domain's kind: "predict" or "choice"
    #: the public domain of the answers (set by each kind of exercise from its declaration)
    buckets: Buckets

    def __init__(self, question: str | Callable[..., str], *, redraw: bool = False, sticky: bool = False):
        self._question = question
        self.redraw = redraw
        self.sticky = sticky
        self.panel: Panel | None = None
        self.name = ""
        self.widget: W.Widget | None = None
        self.feed: ClassFeed | None = None
        self.class_box: ClassBox | None = None

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
        widgets = ex._build()
        ex.feed = class_feed()
        ex.class_box = None
        if ex.feed is not None:  # in a class: the notice, the opt-out, the class so far
            ex._title = plain_title(ex._question_text())  # the question as first shown names the class's exercise
            ex.class_box = ClassBox(ex.feed)
            ex.class_box.update_button.on_click(ex.update_class)
            widgets += ex.class_box.widgets
        ex.widget = W.VBox(widgets)
        ex.widget.add_class("dpviz-exercise")
        return ex

    def _build(self) -> list[W.Widget]:  # pragma: no cover - abstract
        raise NotImplementedError

    def client_checks(self) -> dict[W.Widget, Checks]:
        """What the browser may send each of this exercise's widgets."""
        return self.class_box.client_checks() if self.class_box is not None else {}

    # -- the class ------------------------------------------------------------------------------------------
    @property
    def key(self) -> str:
        """The exercise's key in the class tally: ``<PanelClassName>.<name>``."""
        return f"{type(self.panel).__name__}.{self.name}"

    def correct_buckets(self, truth: Any = None) -> list[int]:  # pragma: no cover - abstract
        """The buckets of the right answer(s) (``truth``: a numeric exercise's answer at the reveal's settings)."""
        raise NotImplementedError

    def domain(self, truth: Any = None) -> dict[str, Any]:
        """The class domain sent with an answer: labels, title (the question as plain text), lesson (the panel's
        module), the correct buckets and the kind."""
        title = getattr(self, "_title", None) or plain_title(self._question_text())
        return {"labels": list(self.buckets.labels), "title": title,
                "lesson": type(self.panel).__module__.rsplit(".", 1)[-1], "correct": self.correct_buckets(truth),
                "kind": self.kind}

    def _share(self, bucket: int | None, truth: Any = None) -> None:
        """After a reveal: send the bucket to the class (unless the learner opted out) and show the class so far."""
        box = self.class_box
        if box is None:
            return
        if not box.sharing:
            box.show("<span style='color:#555'>Your answer was not shared (you opted out).</span>")
            return
        if bucket is None:
            box.show("<span style='color:#555'>This answer has no bucket in the class's domain: not shared.</span>")
            return
        try:
            release = self.feed.submit(self.key, bucket, self.buckets, self.domain(truth))
        except ClassFeedError as exc:
            box.problem(f"{exc}; your answer was not shared.")
            return
        except Exception:  # a bug: the learner reads one line, the server's log has the traceback
            log.exception("dpviz class submission of %s failed", self.key)
            box.problem("the class tally is not reachable right now; your answer was not shared.")
            return
        self._shared = True
        box.show(release_html(release, privacy=self.feed.privacy), update=True)

    def update_class(self, _button: Any = None) -> None:
        """The "update" button: fetch the class's latest release (only after a shared reveal)."""
        box = self.class_box
        if box is None or not getattr(self, "_shared", False):
            return
        try:
            release = self.feed.released(self.key)
        except ClassFeedError as exc:
            box.problem(f"{exc}.")
            box.update_button.layout.display = None
            return
        box.show(release_html(release, privacy=self.feed.privacy), update=True)

    def _clear_class(self) -> None:
        """The reveal no longer applies (a new pick, other settings): its class view goes with its feedback."""
        self._shared = False
        if self.class_box is not None:
            self.class_box.clear()

    # -- state ------------------------------------------------------------------------------------------------
    def _values(self) -> Values:
        return self.panel.values()

    def _call(self, fn: Callable, *args) -> Any:
        return fn(self.panel, self._values(), *args)

    def _question_text(self) -> str:
        q = self._question
        return self._call(q) if callable(q) else q

    def _question_html(self) -> str:
        return f"<b>{self.prompt}</b> {self._question_text()}"

    def refresh(self) -> None:
        """Called by the panel after each render: a question that depends on the settings follows them, and the
        feedback of a reveal made at other settings goes (it answered another question)."""
        if callable(self._question):
            self.question.value = self._question_html()
        if self.feedback.value and self._revealed_at is not None and not self.sticky and not self.revealed \
                and (self.redraw or callable(self._question)):
            self.feedback.value = ""
            self._clear_class()

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
    bins : sequence of float, optional
        The class's buckets for the guess, as absolute bins e₀ < e₁ < … < e_k (:meth:`dpviz.classpoll.Buckets.numeric`;
        a guess beyond the ends counts in an end bin); the correct bucket is the one holding the answer. By default
        the buckets are those of the guess's relative error (:meth:`bucket_of`).

    Notes
    -----
    The default buckets of the relative error r = (guess − truth)/|truth|, with t = ``rel_tol`` and
    f = max(0.5, 3t): far too low (r < −f), too low (−f ≤ r < −t), close (|r| ≤ t, the correct bucket, the same
    rule as :meth:`verdict`), too high (t < r ≤ f), far too high (r > f). For truth = 0 the absolute error (the
    guess) takes r's place, as in :meth:`verdict`.
    """

    prompt = "Predict, then reveal."
    kind = "predict"

    def __init__(self, question, answer: Callable[..., float], *, explain: Callable[..., str] | None = None,
                 rel_tol: float = 0.1, unit: str = "", guess_label: str = "Your guess:", redraw: bool = False,
                 sticky: bool = False, bins: Sequence[float] | None = None):
        super().__init__(question, redraw=redraw, sticky=sticky)
        self.answer = answer
        self.explain = explain
        self.rel_tol = rel_tol
        self.unit = unit
        self.guess_label = guess_label
        self.bins = None if bins is None else tuple(bins)
        if self.bins is not None:
            self.buckets = Buckets.numeric(self.bins)
        else:
            self.buckets = Buckets.categorical(_relative_labels(self.rel_tol, self._far))

    @property
    def _far(self) -> float:
        return max(0.5, 3.0 * self.rel_tol)

    def bucket_of(self, guess: float, truth: float) -> int | None:
        """The class bucket of ``guess`` when the answer is ``truth`` (see the class's Notes); None when either is
        not a finite number."""
        guess, truth = float(guess), float(truth)
        if not (math.isfinite(guess) and math.isfinite(truth)):
            return None
        if self.bins is not None:
            return self.buckets.bucket_of(guess)
        r = guess if truth == 0 else (guess - truth) / abs(truth)
        t, f = self.rel_tol, self._far
        if abs(r) <= t:
            return 2
        if r < 0:
            return 0 if r < -f else 1
        return 4 if r > f else 3

    def correct_buckets(self, truth: Any = None) -> list[int]:
        if self.bins is None:
            return [2]
        if truth is None or not math.isfinite(float(truth)):
            return []
        return [self.buckets.bucket_of(float(truth))]

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
        return {self.guess: number_text_checks(), **super().client_checks()}

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
        guess = float(self.guess.value)
        text = self.verdict(guess, truth)
        if self.explain is not None:
            text += " " + self._call(self.explain, truth)
        self._show(text)
        self._committed()
        if self.class_box is not None:
            self._share(self.bucket_of(guess, truth), truth)
        return text


def _pct(x: float) -> str:
    return f"{100 * x:.3g}%"


def _relative_labels(rel_tol: float, far: float) -> tuple[str, ...]:
    t, f = _pct(rel_tol), _pct(far)
    return (f"far too low: more than {f} below the answer", f"too low: {t} to {f} below the answer",
            f"close: within ±{t} of the answer", f"too high: {t} to {f} above the answer",
            f"far too high: more than {f} above the answer")


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
    kind = "choice"

    def __init__(self, question, options: Sequence[tuple[str, bool, str]], *, redraw: bool = False,
                 sticky: bool = False):
        if len(options) < 2:
            raise ValueError(f"options has {len(options)} entries; a choice needs at least 2")
        if not any(correct for _, correct, _ in options):
            raise ValueError("options: at least one option must be correct")
        super().__init__(question, redraw=redraw, sticky=sticky)
        self.options = [(str(label), bool(correct), str(feedback)) for label, correct, feedback in options]
        self.buckets = Buckets.categorical([label for label, _, _ in self.options])
        #: the indices of the correct options (the class domain's correct buckets)
        self.correct = [i for i, (_, ok, _) in enumerate(self.options) if ok]

    def correct_buckets(self, truth: Any = None) -> list[int]:
        return list(self.correct)

    def _build(self):
        self.choice = W.RadioButtons(options=[label for label, _, _ in self.options], value=None,
                                     style=shared_style(DescriptionStyle),
                                     layout=W.Layout(width="auto", max_width="100%"))
        self.choice.observe(self._clear, names="index")
        return [self.question, self.choice, self.button, self.feedback]

    def client_checks(self):
        return {self.choice: index_checks(self.choice), **super().client_checks()}

    def _clear(self, _change: Any = None) -> None:
        self.feedback.value = ""  # a new pick: the previous verdict no longer applies
        self._clear_class()

    def reveal(self, _button: Any = None) -> str:
        index = self.choice.index
        if index is None:
            return self._show("Pick the statement you believe first, then press Reveal.")
        _label, correct, feedback = self.options[index]
        text = self._show(f"{'✅ Right.' if correct else '❌ Not quite.'} {feedback}")
        self._committed()
        if self.class_box is not None:
            self._share(index)
        return text
