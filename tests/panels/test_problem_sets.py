"""Problem sets (issue 41, item 4): each kind's checker accepts the right answer and refuses the tempting wrong ones,
no widget holds a solution (or a teaching note) before an attempt, the browser may send only what a learner can
enter, and each kind has class buckets the class view accepts."""

from __future__ import annotations

import math
import warnings

import ipywidgets as W
import plotly.graph_objects as go
import pytest

from dpviz.panels import Choice, Panel, Slider, View
from dpviz.panels import counting as C
from dpviz.panels.classfeed import plain_title
from dpviz.panels.exercises import (
    ChoiceProblem,
    FindSetting,
    NumericAnswer,
    ProblemSet,
    ProofIdea,
    TeachingNotes,
    teacher_entries,
    teacher_html,
)
from dpviz.panels.guard import descendants

SOLUTION = "WORKED-SOLUTION-TEXT"
NOTE = "TEACHING-NOTE-TEXT"


def _notes(tag: str) -> TeachingNotes:
    return TeachingNotes(timing=f"{NOTE} {tag} timing", wrong=(f"{NOTE} {tag} wrong",), ask=f"{NOTE} {tag} ask")


class _Toy(Panel):
    controls = {"x": Slider("x", 1.0, 0.5, 3.0, step=0.5), "k": Choice("k", ["a", "b"], "a")}
    exercises = {"set": ProblemSet("A toy set", {
        "num": NumericAnswer("Two plus two?", 4.0, abs_tol=0.1, rel_tol=0.01, traps=[(5.0, "TRAP-five")],
                             solution=f"{SOLUTION} num", notes=_notes("num")),
        "rel": NumericAnswer("A thousand?", 1000.0, rel_tol=0.02, solution=f"{SOLUTION} rel", notes=_notes("rel")),
        "pick": ChoiceProblem("Which?", [("right one", True, "EXPLAIN-right"), ("tempting", False, "WHY-tempting"),
                                         ("other", False, "WHY-other")], solution=f"{SOLUTION} pick",
                              notes=_notes("pick")),
        "find": FindSetting("Set x to 2 and k to b.", lambda p, v: v.x == 2.0 and v.k == "b", hint="HINT-move-x",
                            solution=f"{SOLUTION} find", notes=_notes("find")),
        "idea": ProofIdea("Why?", f"{SOLUTION} idea", steps=[("key", True, "STEP-right"),
                                                             ("mean zero", False, "STEP-tempting")],
                          notes=_notes("idea")),
        "free": ProofIdea("Why, in words?", f"{SOLUTION} free", notes=_notes("free")),
    })}

    def render(self, v):
        if v.x == 3.0:
            raise ValueError("x = 3 is refused by this toy")
        return View([go.Figure()])


def _panel():
    return _Toy().refresh()


def _texts(widget) -> list[str]:
    """Every string a widget tree holds that a page shows: HTML values, labels, descriptions, options, text values."""
    out = []
    for w in descendants(widget):
        for attr in ("value", "description", "placeholder", "tooltip"):
            v = getattr(w, attr, None)
            if isinstance(v, str):
                out.append(v)
        for o in getattr(w, "options", ()) or ():
            out.append(str(o[0] if isinstance(o, tuple) else o))
    return out


def _from_browser(widget: W.Widget, state: dict) -> None:
    widget._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
                        "buffers": []})


# ---- the checkers -----------------------------------------------------------------------------------------------

def test_a_numeric_answer_is_right_within_its_tolerance_only():
    p = _panel()
    num = p.set["num"]
    tol = max(0.1, 0.01 * 4.0)
    for guess in (4.0, 4.0 + 0.99 * tol, 4.0 - 0.99 * tol):
        assert num.accepts(guess)
    for guess in (4.0 + 1.01 * tol, 4.0 - 1.01 * tol, 5.0, math.nan, math.inf):
        assert not num.accepts(guess)
    rel = p.set["rel"]
    assert rel.accepts(1019.9) and rel.accepts(980.1) and not rel.accepts(1020.1) and not rel.accepts(979.9)
    # a wrong attempt says which way, names the trap, never the answer, and may be retried
    num.guess.value = 5.0
    shown = plain_title(num.feedback.value)
    assert "too high" in shown and "TRAP-five" in shown and "4" not in shown
    assert not num.solved and num.attempts == 1
    num.guess.value = 4.05
    assert "✅" in num.feedback.value and num.solved and num.attempts == 2


def test_tolerances_are_declared_and_checked():
    with pytest.raises(ValueError, match="tolerance"):
        NumericAnswer("?", 1.0)
    with pytest.raises(ValueError, match="rel_tol"):
        NumericAnswer("?", 1.0, rel_tol=-0.1)
    with pytest.raises(ValueError, match="answer"):
        NumericAnswer("?", math.nan, abs_tol=1)


def test_a_choice_answers_each_wrong_option_with_its_own_feedback():
    p = _panel()
    pick = p.set["pick"]
    assert "Pick" in pick.check() and pick.attempts == 0  # nothing picked: not an attempt
    for index, why in ((1, "WHY-tempting"), (2, "WHY-other")):
        pick.choice.index = index
        text = pick.check()
        assert "❌" in text and why in text and "EXPLAIN-right" not in text and not pick.solved
    pick.choice.index = 0
    assert "✅" in pick.check() and "EXPLAIN-right" in pick.feedback.value and pick.solved


def test_find_a_setting_checks_the_panels_state_and_hints():
    p = _panel()
    find = p.set["find"]
    text = find.check()
    assert "❌" in text and "HINT-move-x" in text and not find.solved
    p.controls["x"].value = 2.0
    assert find.feedback.value == ""  # the verdict was about other settings
    assert "❌" in find.check()
    p.controls["k"].value = "b"
    assert "✅" in find.check() and find.solved
    # settings the panel refuses cannot be checked: a friendly line, not an attempt, no traceback
    q = _panel()
    q.controls["x"].value = 3.0
    assert q.last_error and "cannot be checked" in q.set["find"].check() and q.set["find"].attempts == 0


def test_a_live_find_a_setting_task_is_solved_by_moving_the_controls():
    p = C.CountingProblemsPanel().refresh()
    task = p.problems["setting"]
    assert task.live and task.feedback.value == ""
    p.controls["query"].value = "histogram"
    p.controls["relation"].value = "replace"
    for eps in (2.0, 1.0):  # replace-one: Δ = 2, no ε ≤ 2 gives a standard deviation below 1
        p.controls["epsilon"].value = eps
        assert not task.holds()
    p.controls["relation"].value = "add_remove"
    p.controls["epsilon"].value = 1.4  # √2/1.4 > 1
    assert not task.solved
    p.controls["epsilon"].value = 1.45  # √2/1.45 < 1
    assert task.solved and "✅" in task.feedback.value
    p.controls["epsilon"].value = 2.05  # above the ε the task allows
    assert not task.holds()


def test_a_live_task_is_not_solved_by_the_settings_the_panel_opens_with():
    class _Open(Panel):
        controls = {"x": Slider("x", 1.0, 0.5, 2.0, step=0.5)}
        exercises = {"s": ProblemSet("Open", [(f"p{i}", FindSetting("?", lambda p, v: v.x <= 1.5, live=True))
                                              for i in range(5)])}

        def render(self, v):
            return View([go.Figure()])

    p = _Open().refresh()
    assert not p.s["p0"].attempted and p.s["p0"].feedback.value == ""
    p.controls["x"].value = 1.5
    assert p.s["p0"].solved and p.s["p0"].attempts == 1


def test_a_failing_check_is_logged_and_shown_as_one_line(caplog):
    class _Bad(Panel):
        controls = {"x": Slider("x", 1.0, 0.5, 2.0, step=0.5)}
        exercises = {"s": ProblemSet("Bad", [(f"p{i}", FindSetting("?", lambda p, v: 1 / 0)) for i in range(5)])}

        def render(self, v):
            return View([go.Figure()])

    p = _Bad().refresh()
    caplog.set_level("ERROR", logger="dpviz.panels")
    text = p.s["p0"].check()
    assert "cannot be checked" in text and "Traceback" not in text and "ZeroDivision" not in text
    assert any("ZeroDivisionError" in (r.exc_text or "") for r in caplog.records)


def test_a_proof_idea_opens_its_solution_only_after_an_attempt():
    p = _panel()
    idea, free = p.set["idea"], p.set["free"]
    for ex in (idea, free):
        ex.idea.value = "   "
        assert "first" in ex.check() and ex.attempts == 0 and SOLUTION not in ex.solution_box.value
    idea.step.index = 1
    assert "STEP-tempting" in idea.check() and f"{SOLUTION} idea" in idea.solution_box.value
    free.idea.value = "the density ratio"
    free.check()
    assert f"{SOLUTION} free" in free.solution_box.value and free.assess.layout.display is None


def test_show_solution_waits_for_an_attempt():
    p = _panel()
    for name in ("num", "rel", "pick", "find"):
        ex = p.set[name]
        assert ex.solution_button.layout.display == "none"
        assert ex.show_solution() == "" and SOLUTION not in ex.solution_box.value
    num = p.set["num"]
    num.guess.value = 3.0
    assert num.solution_button.layout.display is None
    assert f"{SOLUTION} num" in num.show_solution() and "The answer is 4" in num.solution_box.value


# ---- what the page holds before an attempt --------------------------------------------------------------------

@pytest.mark.parametrize("cls", [_Toy, C.CountingProblemsPanel])
def test_no_widget_holds_a_solution_or_a_note_before_an_attempt(cls):
    p = cls().refresh()
    (ps,) = [ex for ex in p.exercise_list if isinstance(ex, ProblemSet)]
    texts = _texts(p.widget)
    secrets = [NOTE]
    for prob in ps.problems.values():
        secrets.append(prob.solution_html())
        if prob.notes is not None:
            secrets += [prob.notes.timing, prob.notes.ask, *prob.notes.wrong]
        for _label, _ok, feedback in prob.options():
            secrets.append(feedback)
        if isinstance(prob, NumericAnswer):
            secrets += [fb for _, fb in prob.traps]
            assert prob.guess.value == 0.0 and not prob.accepts(0.0)
    found = [(s[:60], t[:60]) for s in secrets if s for t in texts if s in t]
    assert not found, found
    assert p.problems.feedback.value == "" if cls is C.CountingProblemsPanel else True
    # the static export shows the questions, no solution
    with warnings.catch_warnings():  # plotly's warning about a config key of the figures
        warnings.simplefilter("ignore")
        static = p.static_html()
    assert all(s not in static for s in secrets if s)
    assert all(prob._question_text() in static for prob in ps.problems.values())


def test_the_lessons_numeric_answer_is_not_printed_before_the_solution():
    p = C.CountingProblemsPanel().refresh()
    sd = p.problems["histogram_sd"]
    assert not any("2.83" in t or "2√2" in t for t in _texts(p.widget))
    sd.guess.value = 2.0
    assert "2.83" not in sd.feedback.value and "2√2" not in sd.feedback.value  # nor after a wrong attempt
    assert "2.83" in sd.show_solution() and "2.83" in sd.solution_box.value


# ---- the browser is untrusted -----------------------------------------------------------------------------------

def test_the_browser_may_send_only_what_a_learner_enters(caplog):
    caplog.set_level("WARNING", logger="dpviz.panels")
    p = _panel()
    s = p.set
    for w in descendants(p.widget):
        assert getattr(w, "_dpviz_guarded", False), type(w).__name__
    for w in (s["num"].guess, s["rel"].guess):
        for bad in (math.nan, math.inf, "4", None, [4.0], 1e308 * 10, True):
            _from_browser(w, {"value": bad})
            assert w.value == 0.0
    for w in (s["pick"].choice, s["idea"].step, s["free"].assess):
        for bad in (len(w.options), -1, "0", 1.5, None, True):
            _from_browser(w, {"index": bad})
            assert w.index is None
    for bad in ("x" * 5001, 5, None, ["a"]):
        _from_browser(s["free"].idea, {"value": bad})
        assert s["free"].idea.value == ""
    # the solution box, the buttons and the question take nothing from the browser
    _from_browser(s["num"].solution_box, {"value": "<b>fake</b>"})
    _from_browser(s["num"].solution_button, {"layout": None, "description": "x"})
    assert s["num"].solution_box.value == "" and s["num"].solution_button.description == "Show solution"
    assert sum("refused a browser update" in r.getMessage() for r in caplog.records) >= 20
    # what a learner can enter still arrives, and is checked at once
    _from_browser(s["num"].guess, {"value": 4.0})
    assert s["num"].solved
    _from_browser(s["pick"].choice, {"index": 1})
    assert s["pick"].choice.index == 1
    _from_browser(s["free"].idea, {"value": "my idea"})
    assert s["free"].idea.value == "my idea"
    assert p.last_error is None


def test_a_declaration_outside_the_rules_is_refused():
    probs = {f"p{i}": ChoiceProblem("?", [("a", True, "y"), ("b", False, "n")]) for i in range(9)}
    with pytest.raises(ValueError, match="5 to 8"):
        ProblemSet("T", dict(list(probs.items())[:4]))
    with pytest.raises(ValueError, match="5 to 8"):
        ProblemSet("T", probs)
    with pytest.raises(ValueError, match="name"):
        ProblemSet("T", [("bad name", p) for p in list(probs.values())[:5]])
    with pytest.raises(ValueError, match="correct"):
        ChoiceProblem("?", [("a", False, "n"), ("b", False, "n")])
    with pytest.raises(ValueError, match="solution"):
        ProofIdea("?", "")
    with pytest.raises(TypeError, match="check"):
        FindSetting("?", check=True)
    with pytest.raises(TypeError, match="notes"):
        NumericAnswer("?", 1.0, abs_tol=1, notes=3)


# ---- the class view -----------------------------------------------------------------------------------------------

def test_every_kind_has_buckets_the_class_view_accepts():
    p = _panel()
    s = p.set
    for prob in s.problems.values():
        assert prob.kind in ("predict", "choice")  # the kinds the class server takes
        assert 2 <= prob.buckets.k <= 100 and prob.correct_buckets(prob.truth() if hasattr(prob, "truth") else None)
        assert prob.key.startswith("_Toy.set.") and len(prob.key) <= 64
        d = prob.domain(4.0)
        assert d["labels"] == list(prob.buckets.labels) and d["kind"] == prob.kind
    num = s["num"]
    assert num.bucket_of(4.05, 4.0) == 2 and num.bucket_of(4.2, 4.0) == 3 and num.bucket_of(10.0, 4.0) == 4
    assert num.bucket_of(3.8, 4.0) == 1 and num.bucket_of(1.0, 4.0) == 0 and num.bucket_of(math.nan, 4.0) is None
    assert s["pick"].buckets.labels == ("right one", "tempting", "other") and s["pick"].correct_buckets() == [0]
    assert s["find"].buckets.k == 2 and s["find"].correct_buckets() == [0]
    assert s["idea"].buckets.labels == ("key", "mean zero") and s["idea"].correct_buckets() == [0]
    assert s["free"].buckets.k == 3 and s["free"].correct_buckets() == [0]
    binned = NumericAnswer("?", 2.0, abs_tol=0.1, bins=[0, 1, 3, 5])
    assert binned.buckets.labels == ("< 1", "[1, 3)", "≥ 3") and binned.correct_buckets(2.0) == [1]


# ---- the teacher's edition -------------------------------------------------------------------------------------

def test_teacher_entries_list_every_solution_and_note_of_a_panel():
    entries = teacher_entries([_Toy])
    assert [e.key for e in entries] == [f"_Toy.set.{n}" for n in ("num", "rel", "pick", "find", "idea", "free")]
    page = teacher_html(entries)
    for tag in ("num", "rel", "pick", "find", "idea", "free"):
        assert f"{SOLUTION} {tag}" in page
        for part in ("timing", "wrong", "ask"):
            assert f"{NOTE} {tag} {part}" in page
    for feedback in ("EXPLAIN-right", "WHY-tempting", "WHY-other", "TRAP-five", "STEP-tempting", "HINT-move-x"):
        assert feedback in page
    assert "4 (right within ±0.1 or ±1%)" in page


def test_the_lessons_problem_set_is_well_formed():
    p = C.CountingProblemsPanel().refresh()
    kinds = {type(prob) for prob in p.problems.problems.values()}
    assert kinds == {NumericAnswer, ChoiceProblem, FindSetting, ProofIdea}
    assert 5 <= len(p.problems.problems) <= 8
    assert all(prob.notes is not None and prob.notes.timing and prob.notes.ask
               for prob in p.problems.problems.values())
    assert p.problems["scale"].truth() == 2.0  # b = Δ/ε = 1/0.5
    assert p.problems["histogram_sd"].truth() == pytest.approx(2 * math.sqrt(2))  # √2·(2/1)
    for name, wrong in (("scale", (0.5, 1.0, 8.0)), ("histogram_sd", (math.sqrt(2), 2.0, 8.0))):
        prob = p.problems[name]
        assert prob.accepts(prob.truth()) and not any(prob.accepts(w) for w in wrong)
        assert [v for v, _ in prob.traps] == list(wrong)
        t, tol = prob.truth(), prob.tolerance(prob.truth())
        assert not prob.accepts(t + 1.01 * tol) and not prob.accepts(t - 1.01 * tol) and prob.accepts(t + 0.99 * tol)
    clip = p.problems["clip"]
    assert [ok for _, ok, _ in clip.options()] == [True, False, False]
    from dpviz import sensitivity as S
    assert S.query_sensitivity("sum", -50.0, 100.0, 2, "add_remove") == 100.0
    assert S.query_sensitivity("sum", -50.0, 100.0, 2, "replace") == 150.0
