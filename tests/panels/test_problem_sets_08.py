"""The problem set of lesson 08 (releasing many answers): every checker accepts the right answer, computed here
independently (closed forms in mpmath), and refuses each tempting wrong value or option with its own feedback; the
find-a-setting task is solved by one setting and not by another; no solution shows before an attempt; the teacher's
edition lists every problem's solution and notes."""

from __future__ import annotations

import warnings

import mpmath as mp
import pytest

from dpviz.panels.classfeed import plain_title
from dpviz.panels.exercises import (
    ChoiceProblem,
    FindSetting,
    NumericAnswer,
    ProblemSet,
    ProofIdea,
    teacher_entries,
    teacher_html,
)
from dpviz.panels.guard import descendants
from dpviz.panels.release import ReleaseProblemsPanel

mp.mp.dps = 30
PANEL = ReleaseProblemsPanel


def _lap_var(scale):
    """The variance of Laplace(scale), 2·scale², by integrating x² against its density."""
    b = mp.mpf(scale)
    return 2 * mp.quad(lambda x: x ** 2 * mp.e ** (-x / b) / (2 * b), [0, mp.inf])


def _crossing(w):
    """The smallest k with 2w/ε² < 2k²/ε² (Laplace(1/ε) per cell against Laplace(k/ε) per query, ε = 1)."""
    k = 1
    while not _lap_var(1) * w < _lap_var(k):
        k += 1
    return k


#: problem name → (the right answer, the tempting wrong values in the order declared), all computed here
NUMERIC = {
    # w = 50: the histogram wins from k = 8 (k² = 64 > 50; 7² = 49 < 50); traps: w, ⌊√w⌋, w²
    "crossing": (mp.mpf(_crossing(50)), [mp.mpf(50), mp.floor(mp.sqrt(50)), mp.mpf(50) ** 2]),
    # L = 10, ε = 1: Laplace((L + 1)/ε) per node; traps: L levels, the whole ε, scale² without the 2
    "tree_node": (_lap_var(mp.mpf(11) / 1), [_lap_var(10), _lap_var(1), mp.mpf(11) ** 2]),
    # T = 20, ε = 1: ε/(2T) per measurement, scale 1/(ε/(2T)); traps: T/ε, 1/ε, ε/(2T)
    "mwem_scale": (1 / (mp.mpf(1) / (2 * 20)), [mp.mpf(20), mp.mpf(1), mp.mpf(1) / 40]),
}

#: problem name → the index of the right option (the others are tempting and wrong)
CHOICES = {"post": 0, "synthetic": 0, "proof": 0}


def _set(panel) -> ProblemSet:
    (ps,) = [ex for ex in panel.exercise_list if isinstance(ex, ProblemSet)]
    return ps


def _texts(widget) -> list[str]:
    out = []
    for w in descendants(widget):
        for attr in ("value", "description", "placeholder", "tooltip"):
            v = getattr(w, attr, None)
            if isinstance(v, str):
                out.append(v)
        for o in getattr(w, "options", ()) or ():
            out.append(str(o[0] if isinstance(o, tuple) else o))
    return out


def test_the_set_has_every_kind_and_notes():
    p = PANEL().refresh()
    assert p.last_error is None
    problems = _set(p).problems
    assert 5 <= len(problems) <= 8
    assert {type(x) for x in problems.values()} == {NumericAnswer, ChoiceProblem, FindSetting, ProofIdea}
    assert set(NUMERIC) | set(CHOICES) | {"setting"} == set(problems)
    for prob in problems.values():
        n = prob.notes
        assert n is not None and n.timing and n.ask and n.wrong, prob.key
        assert "\\" not in prob._question_text() + prob.solution_html(), prob.key  # no raw TeX
        if isinstance(prob, NumericAnswer):
            assert 2 <= len(prob.traps) <= 3
        if isinstance(prob, (ChoiceProblem, ProofIdea)):
            assert prob.options() and all(fb for _, _, fb in prob.options())


@pytest.mark.parametrize("name", NUMERIC)
def test_a_numeric_answer_accepts_the_right_value_and_names_each_trap(name):
    p = PANEL().refresh()
    prob = p.problems[name]
    right, wrong = NUMERIC[name]
    right = float(right)
    assert prob.truth() == pytest.approx(right, rel=1e-12)
    assert prob.accepts(right)
    assert [v for v, _ in prob.traps] == pytest.approx([float(w) for w in wrong], rel=1e-12)
    for (value, feedback), w in zip(prob.traps, wrong):
        assert not prob.accepts(float(w))
        prob.guess.value = float(w)
        shown = prob.feedback.value
        assert "❌" in shown and feedback in shown
        assert all(fb not in shown for v, fb in prob.traps if v != value)  # its own feedback only
        assert not prob.solved
    prob.guess.value = right
    assert "✅" in prob.feedback.value and prob.solved


@pytest.mark.parametrize("name", CHOICES)
def test_a_choice_accepts_the_right_option_and_answers_each_wrong_one(name):
    p = PANEL().refresh()
    prob = p.problems[name]
    options = prob.options()
    right = CHOICES[name]
    assert [ok for _, ok, _ in options] == [i == right for i in range(len(options))]
    widget = prob.step if isinstance(prob, ProofIdea) else prob.choice
    for i, (_label, _ok, feedback) in enumerate(options):
        if i == right:
            continue
        widget.index = i
        text = prob.check()
        assert "❌" in text and feedback in text and options[right][2] not in text
        assert all(fb not in text for j, (_, _, fb) in enumerate(options) if j != i)
    widget.index = right
    text = prob.check()
    assert "✅" in text and options[right][2] in text and prob.solved


def test_the_find_a_setting_task_checks_the_panel():
    p = PANEL().refresh()
    task = p.problems["setting"]
    assert task.live and not task.holds()  # the defaults: k = 10, w = 16: the histogram wins

    def composition_wins(eps, k, w):  # Laplace(k/ε) per query against w cells of Laplace(1/ε)
        return _lap_var(mp.mpf(k) / eps) < w * _lap_var(1 / mp.mpf(eps))

    c = p.controls
    c["k"].value, c["width"].value = 5, 25  # k² = w: a tie, not strictly better
    assert not composition_wins(1, 5, 25) and not task.holds()
    c["width"].value = 26
    assert composition_wins(1, 5, 26)
    assert task.solved and "✅" in task.feedback.value
    c["epsilon"].value = 0.1  # ε cancels: still solved
    assert composition_wins(0.1, 5, 26) and task.holds()
    c["k"].value, c["width"].value = 4, 128  # composition wins, but fewer queries than the task asks
    assert composition_wins(0.1, 4, 128) and not task.holds()
    q = PANEL().refresh()
    q.controls["k"].value, q.controls["width"].value = 12, 128  # 144 > 128: no range is wide enough
    assert not composition_wins(1, 12, 128) and not q.problems["setting"].holds()
    text = q.problems["setting"].check()
    assert "❌" in text and "Hint" in text


def test_no_solution_or_note_is_shown_before_an_attempt():
    p = PANEL().refresh()
    ps = _set(p)
    texts = _texts(p.widget)
    secrets = []
    for prob in ps.problems.values():
        secrets.append(prob.solution_html())
        n = prob.notes
        secrets += [n.timing, n.ask, *n.wrong]
        secrets += [fb for _, _, fb in prob.options()]
        if isinstance(prob, NumericAnswer):
            secrets += [fb for _, fb in prob.traps]
        if isinstance(prob, FindSetting) and isinstance(prob.hint, str):
            secrets.append(prob.hint)
    found = [(s[:60], t[:60]) for s in secrets if s for t in texts if s in t]
    assert not found, found
    for prob in ps.problems.values():
        assert prob.show_solution() == "" and prob.solution_box.value == ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        static = p.static_html()
    assert all(s not in static for s in secrets if s)
    assert all(prob._question_text() in static for prob in ps.problems.values())


def test_a_wrong_numeric_attempt_never_prints_the_answer():
    p = PANEL().refresh()
    for name in NUMERIC:
        prob = p.problems[name]
        right = prob.truth()
        prob.guess.value = float(right) * 3 + 1
        shown = plain_title(prob.feedback.value)
        assert f"{right:.4g}" not in shown and f"{right:.3g}" not in shown, (name, shown)
        assert f"{right:.4g}" in prob.show_solution()


def test_the_teachers_edition_lists_every_solution_and_note():
    entries = teacher_entries([PANEL])
    ps = _set(PANEL().refresh())
    assert [e.key for e in entries] == [f"{PANEL.__name__}.problems.{n}" for n in ps.problems]
    page = teacher_html(entries)
    for e, prob in zip(entries, ps.problems.values()):
        assert e.solution and e.solution in page
        assert e.notes is prob.notes
        for part in (prob.notes.timing, prob.notes.ask, *prob.notes.wrong):
            assert part in page
        for _, _, fb in prob.options():
            assert fb in page
        if isinstance(prob, NumericAnswer):
            assert all(fb in page for _, fb in prob.traps)
            assert f"{prob.truth():.4g}" in e.answer
        if isinstance(prob, FindSetting):
            assert prob.hint in page
