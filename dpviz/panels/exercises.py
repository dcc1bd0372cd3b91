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
import html
import logging
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ipywidgets as W
from ipywidgets.widgets.widget_description import DescriptionStyle
from ipywidgets.widgets.widget_string import TextStyle

from dpviz.classpoll import Buckets
from dpviz.panels.classfeed import ClassBox, ClassFeed, ClassFeedError, class_feed, plain_title, release_html
from dpviz.panels.controls import _STYLE, Values, button, html_widget, number, shared_style
from dpviz.panels.guard import Checks, index_checks, number_text_checks, text_checks

if TYPE_CHECKING:  # pragma: no cover
    from dpviz.panels.panel import Panel

__all__ = ["Exercise", "PredictReveal", "ChoiceReveal", "Problem", "NumericAnswer", "ChoiceProblem", "FindSetting",
           "ProofIdea", "ProblemSet", "TeachingNotes", "TeacherEntry", "teacher_entries", "teacher_html"]

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


# ============================================================================================ problem sets
#
# A problem set (issue 41, item 4) groups 5 to 8 problems that the learner answers in the page and gets checked at
# once. Each problem is an Exercise like the reveals above (the same widgets, guard and class feed), with three
# differences: its button checks rather than reveals, a wrong answer can be tried again, and its worked solution
# is reachable only after an attempt ("Show solution", hidden until then; a proof idea's solution is shown by the
# attempt itself). Each problem carries optional :class:`TeachingNotes`, which only the teacher's edition prints
# (:func:`teacher_entries`, ``make export``): no widget ever holds them.

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,23}")
_SOLUTION = "<div class='dpviz-solution' style='padding:4px 8px;background:#f3f7ee;border-left:4px solid #009E73'>" \
            "<b>Solution.</b> {}</div>"
#: A proof idea without key steps to pick: after the worked solution, the learner compares it with their own idea.
_ASSESS = ("my idea had the key step", "my idea had part of it", "not yet: the solution showed me the step")
#: The longest text a learner may send as a proof idea.
IDEA_CHARS = 5000
#: An option of a problem that wraps on a narrow screen grows to its lines (ipywidgets gives each radio option one
#: line's height, so a wrapped label would run into the next one).
_SET_STYLE = ("<style>.dpviz-problem-set .widget-radio-box label{height:auto;min-height:1.6em;line-height:1.3;"
              "white-space:normal;margin-bottom:0.25em}</style>")
#: The class buckets of a find-a-setting task.
_FOUND = ("solved at the first check", "not solved at the first check")


@dataclass(frozen=True)
class TeachingNotes:
    """What the teacher's edition says about a problem, and no student page shows.

    ``timing``: how long the room needs ("3 min"); ``wrong``: the common wrong answers and what each reveals;
    ``ask``: what to ask the room (a question to discuss after the answers are in).
    """

    timing: str = ""
    wrong: tuple[str, ...] = ()
    ask: str = ""

    def __post_init__(self):
        if not isinstance(self.timing, str) or not isinstance(self.ask, str):
            raise TypeError("timing and ask are not allowed: must be str.")
        wrong = (self.wrong,) if isinstance(self.wrong, str) else self.wrong
        if not isinstance(wrong, (tuple, list)) or not all(isinstance(w, str) for w in wrong):
            raise TypeError(f"wrong = {self.wrong!r:.60} is not allowed: must be a sequence of str.")
        object.__setattr__(self, "wrong", tuple(wrong))


def _notes(notes: Any) -> TeachingNotes | None:
    if notes is None or isinstance(notes, TeachingNotes):
        return notes
    if isinstance(notes, Mapping):
        return TeachingNotes(**dict(notes))
    raise TypeError(f"notes = {notes!r:.60} is not allowed: must be TeachingNotes, a dict of its fields, or None.")


def _text(value: Any, name: str) -> Any:
    if not (isinstance(value, str) or callable(value)):
        raise TypeError(f"{name} = {value!r:.60} is not allowed: must be HTML text or a function (panel, v) -> str.")
    return value


def _finite(value: Any, name: str) -> float:
    x = number(value)
    if x is None or x < 0:
        raise ValueError(f"{name} = {value!r:.60} is not allowed: must be a finite number ≥ 0.")
    return x


class Problem(Exercise):
    """What every problem of a :class:`ProblemSet` has besides an exercise's question, button and feedback: a count
    of attempts, a "Show solution" button shown after the first attempt, the solution's box, and teaching notes.

    ``solution`` is HTML (or a function (panel, v) -> str); ``notes`` are :class:`TeachingNotes` (or a dict of
    their fields) for the teacher's edition. Only a problem's first attempt goes to the class tally (the room's
    first answer is what a teacher asks about, and a retry never sends a second report of the same learner).
    """

    check_label = "Check"
    #: a short name of the kind, for the teacher's edition
    kind_label = ""

    def __init__(self, question, *, solution: str | Callable[..., str] = "", notes: Any = None,
                 redraw: bool = False, sticky: bool = False):
        super().__init__(_text(question, "question"), redraw=redraw, sticky=sticky)
        self._solution = _text(solution, "solution")
        self.notes = _notes(notes)

    def bind(self, panel: Panel, name: str) -> Problem:
        ex = super().bind(panel, name)
        ex.attempts = 0
        ex.solved = False
        return ex

    def _build(self) -> list[W.Widget]:
        self.button.description = self.check_label
        self.solution_button = button(description="Show solution", layout=W.Layout(width="auto", display="none"))
        self.solution_button.on_click(self.show_solution)
        self.solution_box = html_widget("")
        self.solution_box.add_class("dpviz-solution")
        inputs = self._inputs()
        return [self.question, *inputs, W.HBox([self.button, self.solution_button],
                                               layout=W.Layout(flex_flow="row wrap")),
                self.feedback, self.solution_box]

    def _inputs(self) -> list[W.Widget]:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def attempted(self) -> bool:
        return self.attempts > 0

    def reveal(self, _button: Any = None) -> str:
        """The button: check the answer (every kind says what it checks)."""
        return self.check()

    def check(self, _button: Any = None) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def _attempt(self, right: bool, text: str, bucket: int | None = None, truth: Any = None) -> str:
        """One checked attempt: the verdict, the solution button, the class (the first attempt only)."""
        self.attempts += 1
        self.solved = self.solved or right
        if not right:
            text += " <i>Try again, or press Show solution.</i>"
        self._show(text)
        self.solution_button.layout.display = None
        self._committed()
        if self.attempts == 1 and self.class_box is not None:
            self._share(bucket, truth)
        return text

    def solution_html(self) -> str:
        """The worked solution at the panel's current settings (what Show solution shows)."""
        s = self._solution
        return self._call(s) if callable(s) else s

    def show_solution(self, _button: Any = None) -> str:
        """Show the worked solution, only after an attempt."""
        if not self.attempted:
            self._show("Try the problem first: the solution opens after your first attempt.")
            return ""
        text = self.solution_html()
        self.solution_box.value = _SOLUTION.format(text)
        return text

    def refresh(self) -> None:
        if callable(self._question):
            self.question.value = self._question_html()

    # -- the teacher's edition ----------------------------------------------------------------------------------
    def answer_html(self) -> str:
        """The answer in one line, for the teacher's edition."""
        return ""

    def options(self) -> list[tuple[str, bool, str]]:
        """(label, correct, feedback) of each option a learner may pick (none for most kinds)."""
        return []

    def teacher(self) -> dict[str, Any]:
        """This problem for the teacher's edition: kind, question, answer, solution, options, notes."""
        return {"kind": self.kind_label, "question": self._question_text(), "answer": self.answer_html(),
                "solution": self.solution_html(), "options": self.options(), "notes": self.notes}


class NumericAnswer(Problem):
    """A number, checked at once against the answer with a declared tolerance.

    Right when |guess − answer| ≤ max(``abs_tol``, ``rel_tol``·|answer|) (at least one tolerance > 0). A wrong
    guess says which way it is off, never the answer, and may be tried again; ``traps`` lists tempting wrong values
    with their own feedback (why they are tempting), given when a guess is within the same tolerance of one.

    The class buckets are ``bins`` (absolute, as :class:`PredictReveal`'s), or by default five buckets of the guess
    against the answer: far too low (relative error below −f), too low, right (within the tolerance, the correct
    bucket: the same rule as the check), too high, far too high (above f), with f = max(0.5, 3·rel_tol).
    """

    prompt = "Compute."
    kind = "predict"
    kind_label = "numeric answer"

    def __init__(self, question, answer: float | Callable[..., float], *, abs_tol: float = 0.0,
                 rel_tol: float = 0.0, unit: str = "", label: str = "Your answer:",
                 traps: Sequence[tuple[float, str]] = (), explain: str | Callable[..., str] = "",
                 solution: str | Callable[..., str] = "", notes: Any = None, bins: Sequence[float] | None = None,
                 redraw: bool = False, sticky: bool = False):
        super().__init__(question, solution=solution, notes=notes, redraw=redraw, sticky=sticky)
        if not callable(answer) and number(answer) is None:
            raise ValueError(f"answer = {answer!r:.60} is not allowed: must be a finite number or a function "
                             "(panel, v) -> float.")
        self.answer = answer
        self.abs_tol, self.rel_tol = _finite(abs_tol, "abs_tol"), _finite(rel_tol, "rel_tol")
        if self.abs_tol == 0 and self.rel_tol == 0:
            raise ValueError("abs_tol = rel_tol = 0 is not allowed: a typed number needs a tolerance > 0.")
        self.unit, self.label = str(unit), str(label)
        self.traps = []
        for value, feedback in traps:
            if number(value) is None or not isinstance(feedback, str):
                raise ValueError(f"traps: ({value!r:.30}, …) is not allowed: must be (finite number, HTML text).")
            self.traps.append((float(value), feedback))
        self.explain = _text(explain, "explain")
        self.bins = None if bins is None else tuple(bins)
        self.buckets = Buckets.numeric(self.bins) if self.bins is not None else \
            Buckets.categorical(_numeric_labels(self.rel_tol, self._far))

    @property
    def _far(self) -> float:
        return max(0.5, 3.0 * self.rel_tol)

    def truth(self) -> float:
        """The answer at the panel's current settings."""
        return float(self._call(self.answer)) if callable(self.answer) else float(self.answer)

    def tolerance(self, truth: float) -> float:
        return max(self.abs_tol, self.rel_tol * abs(truth))

    def accepts(self, guess: float, truth: float | None = None) -> bool:
        """Whether ``guess`` is right: within the tolerance of the answer."""
        truth = self.truth() if truth is None else truth
        guess = number(guess)
        return guess is not None and abs(guess - truth) <= self.tolerance(truth)

    def bucket_of(self, guess: float, truth: float) -> int | None:
        """The class bucket of ``guess`` (see the class docstring); None when either is not a finite number."""
        guess, truth = number(guess), number(truth)
        if guess is None or truth is None:
            return None
        if self.bins is not None:
            return self.buckets.bucket_of(guess)
        if self.accepts(guess, truth):
            return 2
        r = guess if truth == 0 else (guess - truth) / abs(truth)
        if r < 0:
            return 0 if r < -self._far else 1
        return 4 if r > self._far else 3

    def correct_buckets(self, truth: Any = None) -> list[int]:
        if self.bins is None:
            return [2]
        if truth is None or number(truth) is None:
            return []
        return [self.buckets.bucket_of(float(truth))]

    def _inputs(self):
        self.guess = W.FloatText(value=0.0, description=self.label, style=shared_style(DescriptionStyle, **_STYLE),
                                 continuous_update=False, layout=W.Layout(width="260px", max_width="100%"))
        self.guess.observe(lambda _change: self.check(), names="value")
        return [self.guess]

    def client_checks(self):
        return {self.guess: number_text_checks(), **super().client_checks()}

    def _tolerance_text(self) -> str:
        parts = ([f"±{self.abs_tol:g}{self.unit}"] if self.abs_tol else []) + (
            [f"±{_pct(self.rel_tol)}"] if self.rel_tol else [])
        return " or ".join(parts)

    def check(self, _button: Any = None) -> str:
        guess = number(self.guess.value)
        if guess is None:
            return self._show("Type a number, then press Check.")
        try:
            truth = self.truth()
        except ValueError as exc:  # the panel's settings have no answer
            return self._show(f"⚠ {html.escape(str(exc))}")
        if self.accepts(guess, truth):
            text = f"✅ Right: {guess:.4g}{self.unit} is within {self._tolerance_text()} of the answer."
            explain = self._call(self.explain) if callable(self.explain) else self.explain
            return self._attempt(True, text + (" " + explain if explain else ""), self.bucket_of(guess, truth),
                                 truth)
        trap = next((fb for value, fb in self.traps if abs(guess - value) <= self.tolerance(value)), None)
        way = "too high" if guess > truth else "too low"
        text = f"❌ Not within {self._tolerance_text()}: {guess:.4g}{self.unit} is {way}."
        return self._attempt(False, text + (" " + trap if trap else ""), self.bucket_of(guess, truth), truth)

    def solution_html(self) -> str:
        return f"The answer is {self.truth():.4g}{self.unit}. " + super().solution_html()

    def answer_html(self) -> str:
        return f"{self.truth():.4g}{self.unit} (right within {self._tolerance_text()})"

    def teacher(self):
        out = super().teacher()
        out["options"] = [(f"{value:.4g}{self.unit}", False, fb) for value, fb in self.traps]
        return out


def _numeric_labels(rel_tol: float, far: float) -> tuple[str, ...]:
    f = _pct(far)
    return (f"far too low: more than {f} below the answer", f"too low: up to {f} below the answer",
            "right: within the tolerance", f"too high: up to {f} above the answer",
            f"far too high: more than {f} above the answer")


def _options(options: Sequence[tuple[str, bool, str]], name: str = "options") -> list[tuple[str, bool, str]]:
    if isinstance(options, (str, bytes)) or not isinstance(options, Sequence) or len(options) < 2:
        raise ValueError(f"{name} is not allowed: must be a sequence of at least 2 (label, correct, feedback).")
    out = []
    for entry in options:
        if not isinstance(entry, (tuple, list)) or len(entry) != 3 or not isinstance(entry[0], str) \
                or not isinstance(entry[2], str):
            raise ValueError(f"{name}: {entry!r:.60} is not allowed: must be (label, correct, feedback HTML).")
        out.append((entry[0], bool(entry[1]), entry[2]))
    if not any(ok for _, ok, _ in out):
        raise ValueError(f"{name}: at least one option must be correct")
    return out


class ChoiceProblem(Problem):
    """One statement to pick, checked at once: each wrong option answers with its own feedback (why it is
    tempting, why it fails), the right one with its explanation. A wrong pick may be changed and checked again.
    The class buckets are the options."""

    prompt = "Choose."
    kind = "choice"
    kind_label = "choice"

    def __init__(self, question, options: Sequence[tuple[str, bool, str]], *, solution: str | Callable = "",
                 notes: Any = None, redraw: bool = False, sticky: bool = False):
        super().__init__(question, solution=solution, notes=notes, redraw=redraw, sticky=sticky)
        self._options = _options(options)
        self.buckets = Buckets.categorical([label for label, _, _ in self._options])
        self.correct = [i for i, (_, ok, _) in enumerate(self._options) if ok]

    def options(self):
        return list(self._options)

    def correct_buckets(self, truth: Any = None) -> list[int]:
        return list(self.correct)

    def _inputs(self):
        self.choice = W.RadioButtons(options=[label for label, _, _ in self._options], value=None,
                                     style=shared_style(DescriptionStyle),
                                     layout=W.Layout(width="auto", max_width="100%"))
        self.choice.observe(lambda _change: self._show("") and None, names="index")
        return [self.choice]

    def client_checks(self):
        return {self.choice: index_checks(self.choice), **super().client_checks()}

    def _show(self, text: str) -> str:
        self.feedback.value = _FEEDBACK.format(text) if text else ""
        return text

    def check(self, _button: Any = None) -> str:
        index = self.choice.index
        if index is None:
            return self._show("Pick the statement you believe first, then press Check.")
        _label, right, feedback = self._options[index]
        return self._attempt(right, f"{'✅ Right.' if right else '❌ Not quite.'} {feedback}", index)

    def solution_html(self) -> str:
        right = " ".join(f"“{html.escape(label)}”: {fb}" for label, ok, fb in self._options if ok)
        extra = super().solution_html()
        return right + (" " + extra if extra else "")

    def answer_html(self) -> str:
        return "; ".join(html.escape(label) for label, ok, _ in self._options if ok)


class FindSetting(Problem):
    """"Find a setting of the panel that …": ``check(panel, v)`` says whether the panel's current control values
    ``v`` (:class:`~dpviz.panels.controls.Values`) do it. Checked when the learner presses Check, and with
    ``live=True`` also after every render once a control has moved (a success found by moving the controls counts
    as an attempt; the settings the panel opens with never do). A miss
    shows ``hint``; Show solution (after an attempt) shows ``solution``, a setting that works and why. The class
    buckets: solved, or not, at the first check."""

    prompt = "Find a setting."
    kind = "choice"
    kind_label = "find a setting of the panel"

    def __init__(self, question, check: Callable[..., bool], *, hint: str | Callable = "",
                 solution: str | Callable = "", live: bool = False, notes: Any = None, redraw: bool = False,
                 sticky: bool = False):
        super().__init__(question, solution=solution, notes=notes, redraw=redraw, sticky=sticky)
        if not callable(check):
            raise TypeError(f"check = {check!r:.60} is not allowed: must be a function (panel, v) -> bool.")
        self.predicate = check
        self.hint = _text(hint, "hint")
        self.live = bool(live)
        self.buckets = Buckets.categorical(list(_FOUND))

    def correct_buckets(self, truth: Any = None) -> list[int]:
        return [0]

    def bind(self, panel: Panel, name: str) -> FindSetting:
        ex = super().bind(panel, name)
        ex._opened_at = panel.values()
        return ex

    def _inputs(self):
        return []

    def holds(self) -> bool | None:
        """Whether the panel's current settings solve the task; None when they cannot be checked (the panel shows
        a problem with them, or the check itself failed: logged, never shown as a traceback)."""
        if self.panel.last_error is not None:
            return None
        try:
            return bool(self._call(self.predicate))
        except Exception:  # the declaration's bug: the learner reads one line, the log has the traceback
            log.exception("dpviz find-a-setting check %s failed", self.key)
            return None

    def check(self, _button: Any = None) -> str:
        ok = self.holds()
        if ok is None:
            return self._show("These settings cannot be checked right now (see the message above the figure); "
                              "change a control, then press Check.")
        if ok:
            return self._attempt(True, "✅ Solved: the panel's current settings do it.", 0)
        hint = self._call(self.hint) if callable(self.hint) else self.hint
        return self._attempt(False, "❌ Not yet: these settings do not do it." + (f" Hint: {hint}" if hint else ""),
                             1)

    def refresh(self) -> None:
        super().refresh()
        if self.panel is None or self.widget is None:
            return
        # live: a success counts once the learner has moved a control (settings that solve the task as the panel
        # opens are not the learner's answer)
        if self.live and not self.solved and self._values() != self._opened_at and self.holds():
            self.check()
        elif self.feedback.value and getattr(self, "_checked_at", None) != self._values():
            self.feedback.value = ""  # the verdict was about other settings

    def _attempt(self, right, text, bucket=None, truth=None):
        self._checked_at = self._values()
        return super()._attempt(right, text, bucket, truth)

    def answer_html(self) -> str:
        return "a setting the check accepts (see the solution)"

    def teacher(self):
        out = super().teacher()
        hint = self.hint(self.panel, self._values()) if callable(self.hint) else self.hint
        if hint:
            out["answer"] = f"hint given after a miss: {hint}"
        return out


class ProofIdea(Problem):
    """A proof idea: the learner writes their idea in a text area (and, with ``steps``, may pick the key step among
    (label, correct, feedback) options); the worked ``solution`` is shown only after an attempt, a non-empty idea
    or a pick. Without steps, a self-check under the solution ("my idea had the key step", …) is the class's
    answer; with steps, the pick is."""

    prompt = "Proof idea."
    kind = "choice"
    kind_label = "proof idea"
    check_label = "Submit my idea"

    def __init__(self, question, solution: str | Callable[..., str], *, steps: Sequence | None = None,
                 notes: Any = None, redraw: bool = False, sticky: bool = False):
        super().__init__(question, solution=solution, notes=notes, redraw=redraw, sticky=sticky)
        if not solution:
            raise ValueError("solution is not allowed empty: a proof idea reveals a worked solution.")
        self.steps = None if steps is None else _options(steps, "steps")
        labels = [label for label, _, _ in self.steps] if self.steps else list(_ASSESS)
        self.buckets = Buckets.categorical(labels)

    def correct_buckets(self, truth: Any = None) -> list[int]:
        return [i for i, (_, ok, _) in enumerate(self.steps) if ok] if self.steps else [0]

    def options(self):
        return list(self.steps or [])

    def _inputs(self):
        self.idea = W.Textarea(value="", description="Your idea:", placeholder="the key step, in a sentence or two",
                               continuous_update=False, rows=3, style=shared_style(TextStyle, **_STYLE),
                               layout=W.Layout(width="100%", max_width="560px"))
        inputs = [self.idea]
        self.step = None
        if self.steps:
            self.step = W.RadioButtons(options=[label for label, _, _ in self.steps], value=None,
                                       description="or pick the key step:",
                                       style=shared_style(DescriptionStyle, **_STYLE),
                                       layout=W.Layout(width="auto", max_width="100%"))
            inputs.append(self.step)
        self.assess = None
        if not self.steps:
            self.assess = W.RadioButtons(options=list(_ASSESS), value=None, description="Compare with yours:",
                                         style=shared_style(DescriptionStyle, **_STYLE),
                                         layout=W.Layout(width="auto", max_width="100%", display="none"))
            self.assess.observe(self._assessed, names="index")
        return inputs

    def _build(self):
        widgets = super()._build()
        return widgets + ([self.assess] if self.assess is not None else [])

    def client_checks(self):
        checks = {self.idea: text_checks(IDEA_CHARS), **super().client_checks()}
        for w in (self.step, self.assess):
            if w is not None:
                checks[w] = index_checks(w)
        return checks

    def check(self, _button: Any = None) -> str:
        idea = self.idea.value.strip() if isinstance(self.idea.value, str) else ""
        pick = self.step.index if self.step is not None else None
        if not idea and pick is None:
            what = "Write your idea (or pick the key step)" if self.step is not None else "Write your idea"
            return self._show(f"{what} first: the worked solution opens after your attempt.")
        if pick is not None:
            _label, right, feedback = self.steps[pick]
            text = f"{'✅ Right: that is the key step.' if right else '❌ Not the key step.'} {feedback}"
        else:
            right, text = True, "Thank you: compare your idea with the worked solution below."
        share = self.class_box is not None and self.attempts == 0 and pick is not None
        self.attempts += 1
        self.solved = self.solved or right
        self._show(text)
        self.show_solution()
        if self.assess is not None:
            self.assess.layout.display = None
        self._committed()
        if share:
            self._share(pick)
        return text

    def _assessed(self, _change: Any = None) -> None:
        """The self-check under the solution: the class's answer of a proof idea without steps (its first pick)."""
        if self.assess.index is None or getattr(self, "_assessed_once", False) or not self.attempted:
            return
        self._assessed_once = True
        if self.class_box is not None:
            self._share(self.assess.index)

    def answer_html(self) -> str:
        if self.steps:
            return "key step: " + "; ".join(html.escape(label) for label, ok, _ in self.steps if ok)
        return "the worked solution below"


class ProblemSet(Exercise):
    """A problem set: a title and 5 to 8 problems (:class:`NumericAnswer`, :class:`ChoiceProblem`,
    :class:`FindSetting`, :class:`ProofIdea`), declared as one exercise of a panel::

        exercises = {"problems": ProblemSet("Problems: counting with noise", {"scale": NumericAnswer(...), ...})}

    Each problem is bound as ``<set name>.<problem name>`` (its class key ``<Panel>.<set>.<problem>``), numbered,
    and shown under the set's title; ``panel.problems["scale"]`` is the bound problem. The set itself sends nothing
    to the class and has no solution of its own; a static export shows its title and its questions only.
    """

    MIN_PROBLEMS, MAX_PROBLEMS = 5, 8
    kind = "set"

    def __init__(self, title: str, problems: Mapping[str, Problem] | Sequence[tuple[str, Problem]], *,
                 intro: str = ""):
        if not isinstance(title, str) or not title.strip() or not isinstance(intro, str):
            raise ValueError(f"title = {title!r:.60} is not allowed: must be a non-empty str (and intro a str).")
        items = list(problems.items()) if isinstance(problems, Mapping) else list(problems)
        if not self.MIN_PROBLEMS <= len(items) <= self.MAX_PROBLEMS:
            raise ValueError(f"problems has {len(items)} entries, which is not allowed: a problem set holds "
                             f"{self.MIN_PROBLEMS} to {self.MAX_PROBLEMS} problems.")
        for entry in items:
            if not isinstance(entry, tuple) or len(entry) != 2 or not isinstance(entry[0], str) \
                    or not _NAME.fullmatch(entry[0]) or not isinstance(entry[1], Problem):
                raise ValueError(f"problems: {entry!r:.60} is not allowed: must be (name, Problem) with a name of "
                                 "1 to 24 letters, digits or '_', starting with a letter.")
        if len({name for name, _ in items}) != len(items):
            raise ValueError("problems: the names must be distinct.")
        super().__init__(title)
        self.title, self.intro = title, intro
        self._items = items

    def bind(self, panel: Panel, name: str) -> ProblemSet:
        ex = copy.copy(self)
        ex.panel, ex.name = panel, name
        n = len(self._items)
        ex.problems = {}
        for i, (pname, problem) in enumerate(self._items, 1):
            numbered = copy.copy(problem)
            numbered.prompt = f"Problem {i} of {n}. {problem.prompt}"
            ex.problems[pname] = numbered.bind(panel, f"{name}.{pname}")
        head = _SET_STYLE + f"<h4 style='margin:0.4em 0'>{html.escape(self.title)}</h4>" + (
            f"<p style='margin:0.2em 0'>{self.intro}</p>" if self.intro else "")
        ex.header = html_widget(head)
        ex.widget = W.VBox([ex.header] + [p.widget for p in ex.problems.values()])
        ex.widget.add_class("dpviz-problem-set")
        # What a static export shows (the title and the questions), and the empty feedback every exercise has; not
        # widgets: nothing of these is sent to a page.
        ex.question = _Text(ex._static_html())
        ex.feedback = _Text("")
        ex.button, ex.feed, ex.class_box = None, None, None
        return ex

    def __getitem__(self, name: str) -> Problem:
        return self.problems[name]

    def _static_html(self) -> str:
        questions = "".join(f"<li>{p._question_text()}</li>" for p in self.problems.values())
        return f"<b>{html.escape(self.title)}</b><ol>{questions}</ol>"

    def client_checks(self):
        checks: dict[W.Widget, Checks] = {}
        for p in self.problems.values():
            checks.update(p.client_checks())
        return checks

    def refresh(self) -> None:
        for p in self.problems.values():
            p.refresh()
        self.question.value = self._static_html()

    @property
    def revealed(self) -> bool:
        """True once every problem has been attempted."""
        return all(p.attempted for p in self.problems.values())

    def correct_buckets(self, truth: Any = None) -> list[int]:
        return []

    def reveal(self, _button: Any = None) -> str:
        return ""


class _Text:
    """A text that is not a widget: ``.value`` (a problem set's question and feedback, read by the static export)."""

    __slots__ = ("value",)

    def __init__(self, value: str):
        self.value = value


# ============================================================================================ the teacher's edition


@dataclass(frozen=True)
class TeacherEntry:
    """One exercise or problem of a lesson, with everything the teacher's edition prints (HTML fields)."""

    panel: str  # the panel's class name
    panel_title: str
    key: str  # the class key, <Panel>.<name>
    kind: str
    question: str
    answer: str
    solution: str
    options: tuple[tuple[str, bool, str], ...] = ()
    notes: TeachingNotes | None = None
    problem_set: str = ""  # the set's title, for a problem of a set
    number: int = 0  # its number in the set


def _plain_number(x: float) -> str:
    """A number as a teacher reads it aloud: 460,337 rather than 4.603e+05."""
    return f"{x:,.0f}" if math.isfinite(x) and 1e4 <= abs(x) < 1e15 else f"{x:.4g}"


def _reveal_entry(ex: Exercise) -> dict[str, Any]:
    """An existing reveal (PredictReveal, ChoiceReveal) for the teacher's edition, at the panel's defaults."""
    if isinstance(ex, PredictReveal):
        truth = ex.truth()
        explain = ex._call(ex.explain, truth) if ex.explain is not None else ""
        return {"kind": "predict, then reveal", "question": ex._question_text(),
                "answer": f"{_plain_number(truth)}{ex.unit} at the panel's default settings (close within "
                          f"±{_pct(ex.rel_tol)})",
                "solution": explain, "options": [], "notes": None}
    if isinstance(ex, ChoiceReveal):
        return {"kind": "think, then reveal", "question": ex._question_text(),
                "answer": "; ".join(html.escape(label) for label, ok, _ in ex.options if ok), "solution": "",
                "options": list(ex.options), "notes": None}
    return {"kind": type(ex).__name__, "question": ex._question_text(), "answer": "", "solution": "",
            "options": [], "notes": None}


def teacher_entries(panels: Iterable[Any]) -> list[TeacherEntry]:
    """Every exercise and problem of ``panels`` (panel classes, or panels), in order, with its answer, solution,
    options (each with its feedback) and teaching notes: what the teacher's edition prints.

    A panel class is built at its defaults (no render): answers and questions that follow the settings are given
    at the default settings. Nothing is shown or sent anywhere.
    """
    from dpviz.panels.panel import Panel

    if isinstance(panels, (str, bytes)):
        raise TypeError(f"panels = {panels!r:.60} is not allowed: must be a sequence of Panel classes or panels.")
    out: list[TeacherEntry] = []
    for item in panels:
        if not (isinstance(item, Panel) or (isinstance(item, type) and issubclass(item, Panel))):
            raise TypeError(f"panels: {item!r:.60} is not allowed: must be a Panel class or a panel.")
        panel = item() if isinstance(item, type) else item
        cls = type(panel)
        for ex in panel.exercise_list:
            if isinstance(ex, ProblemSet):
                for i, p in enumerate(ex.problems.values(), 1):
                    t = p.teacher()
                    out.append(TeacherEntry(cls.__name__, cls.title, p.key, t["kind"], t["question"], t["answer"],
                                            t["solution"], tuple(t["options"]), t["notes"], ex.title, i))
            else:
                t = _reveal_entry(ex)
                out.append(TeacherEntry(cls.__name__, cls.title, ex.key, t["kind"], t["question"], t["answer"],
                                        t["solution"], tuple(t["options"]), t["notes"]))
    return out


def teacher_html(entries: Sequence[TeacherEntry]) -> str:
    """The teacher's edition of ``entries`` as an HTML fragment: per panel, each exercise and problem with its
    answer, solution, the feedback of every option (the right ones marked) and the teaching notes."""
    if isinstance(entries, (str, bytes)) or not all(isinstance(e, TeacherEntry) for e in entries):
        raise TypeError(f"entries = {entries!r:.60} is not allowed: must be a sequence of TeacherEntry.")
    parts: list[str] = []
    panel = None
    problem_set = None
    for e in entries:
        if e.panel != panel:
            panel, problem_set = e.panel, None
            parts.append(f"<h2 class='dpviz-teacher-panel'>{html.escape(e.panel_title or e.panel)}</h2>")
        if e.problem_set and e.problem_set != problem_set:
            problem_set = e.problem_set
            parts.append(f"<h3 class='dpviz-teacher-set'>{html.escape(e.problem_set)}</h3>")
        head = f"Problem {e.number}" if e.number else "Exercise"
        rows = [f"<h4>{head} <span class='kind'>({html.escape(e.kind)})</span></h4>",
                f"<p class='question'>{e.question}</p>"]
        if e.answer:
            rows.append(f"<p class='answer'><b>Answer:</b> {e.answer}</p>")
        if e.options:
            items = "".join(f"<li class='{'right' if ok else 'wrong'}'>{'✓' if ok else '✗'} "
                            f"<b>{html.escape(label)}</b>: {fb}</li>" for label, ok, fb in e.options)
            rows.append(f"<p><b>{'Options' if e.kind != 'numeric answer' else 'Tempting wrong answers'}:"
                        f"</b></p><ul class='options'>{items}</ul>")
        if e.solution:
            rows.append(f"<div class='solution'><b>Solution:</b> {e.solution}</div>")
        n = e.notes
        if n is not None:
            notes = []
            if n.timing:
                notes.append(f"<li><b>Timing:</b> {n.timing}</li>")
            if n.wrong:
                notes.append("<li><b>Common wrong answers:</b><ul>" + "".join(f"<li>{w}</li>" for w in n.wrong)
                             + "</ul></li>")
            if n.ask:
                notes.append(f"<li><b>Ask the room:</b> {n.ask}</li>")
            rows.append("<div class='notes'><b>Teaching notes</b><ul>" + "".join(notes) + "</ul></div>")
        parts.append("<section class='dpviz-teacher-entry'>" + "".join(rows) + "</section>")
    return "".join(parts)
