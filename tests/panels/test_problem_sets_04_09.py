"""The problem sets of lessons 04 (choosing privately) and 09 (choosing ε): every checker accepts the right answer,
computed here independently (closed forms in mpmath), and refuses each tempting wrong value or option with its own
feedback; each find-a-setting task is solved by one setting and not by another; no solution shows before an
attempt; the teacher's edition lists every problem's solution and notes."""

from __future__ import annotations

import warnings

import mpmath as mp
import pytest

from dpviz.panels.choosing_epsilon import ChoosingProblemsPanel
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
from dpviz.panels.selection import SelectionProblemsPanel

mp.mp.dps = 30
E = mp.e


def _phi(x) -> float:
    return float(mp.ncdf(x))


def _posterior(p, eps, delta=0, q=None):
    """The largest posterior P[in | S] of an informed observer: for q = None the worst case over outputs of ε-DP
    (odds times e^ε), else the exact (ε, δ) maximum for an event of probability q under "out"."""
    p, eps = mp.mpf(p), mp.mpf(eps)
    if q is None:
        odds = mp.e ** eps * p / (1 - p)
        return float(odds / (1 + odds))
    q, delta = mp.mpf(q), mp.mpf(delta)
    a = min(mp.mpf(1), mp.e ** eps * q + delta, 1 - mp.e ** (-eps) * (1 - q - delta))
    return float(p * a / (p * a + (1 - p) * q))


#: problem name → (the right answer, the tempting wrong values in the order declared), all computed here
NUMERIC = {
    SelectionProblemsPanel: {
        # P[i] ∝ e^(ε·u_i/(2Δ)), u = (6, 4, 0), ε = 1, Δ = 1
        "softmax": (E ** 3 / (E ** 3 + E ** 2 + 1),
                    [E ** 6 / (E ** 6 + E ** 4 + 1), mp.mpf(6) / 10, mp.mpf(1) / 3]),
        # (2Δ/ε)·ln(k/β), k = 1000, β = 0.05
        "tail": (2 * mp.log(20000), [mp.log(20000), 2 * mp.log(1000), 2 * mp.log(50)]),
        # 4cΔ/ε with c = 2, ε = 0.5
        "svt_scale": (mp.mpf(16), [mp.mpf(4), mp.mpf(8), mp.mpf(1) / 16]),
    },
    ChoosingProblemsPanel: {
        "posterior": (100 * mp.mpf(_posterior("0.05", 2)),
                      [100 * E ** 2 * mp.mpf("0.05"), 100 * E ** 2 * mp.mpf("0.05") / mp.mpf("0.95"), mp.mpf(10)]),
        # ε = ln(1/β)/α, α = 5, β = 1%
        "laplace_eps": (mp.log(100) / 5, [mp.log(200) / 5, mp.log10(100) / 5, 5 * mp.log(100)]),
        # ρ = 0.32 + 0.18, μ = √(2ρ) = 1, 2Φ(μ/2) − 1
        "gdp": (2 * _phi(mp.sqrt(2 * (mp.mpf("0.32") + mp.mpf("0.18"))) / 2) - 1,
                [2 * _phi((mp.sqrt(mp.mpf("0.64")) + mp.sqrt(mp.mpf("0.36"))) / 2) - 1, 2 * _phi(1) - 1, 1.0]),
    },
}

#: problem name → the index of the right option (the others are tempting and wrong)
CHOICES = {SelectionProblemsPanel: {"histogram": 0, "monotonic": 0, "proof": 0},
           ChoosingProblemsPanel: {"split": 0, "proof": 0}}

PANELS = [SelectionProblemsPanel, ChoosingProblemsPanel]


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


@pytest.mark.parametrize("cls", PANELS)
def test_each_set_has_every_kind_and_notes(cls):
    p = cls().refresh()
    assert p.last_error is None
    problems = _set(p).problems
    assert 5 <= len(problems) <= 8
    assert {type(x) for x in problems.values()} == {NumericAnswer, ChoiceProblem, FindSetting, ProofIdea}
    for prob in problems.values():
        n = prob.notes
        assert n is not None and n.timing and n.ask and n.wrong, prob.key
        assert "\\" not in prob._question_text() + prob.solution_html(), prob.key  # no raw TeX
    for prob in problems.values():
        if isinstance(prob, NumericAnswer):
            assert 2 <= len(prob.traps) <= 3
        if isinstance(prob, (ChoiceProblem, ProofIdea)) and prob.options():
            assert all(fb for _, _, fb in prob.options())


@pytest.mark.parametrize("cls,name", [(c, n) for c in PANELS for n in NUMERIC[c]])
def test_a_numeric_answer_accepts_the_right_value_and_names_each_trap(cls, name):
    p = cls().refresh()
    prob = p.problems[name]
    right, wrong = NUMERIC[cls][name]
    right = float(right)
    assert prob.truth() == pytest.approx(right, rel=1e-12)
    assert prob.accepts(right)
    assert [v for v, _ in prob.traps] == pytest.approx([float(w) for w in wrong], rel=1e-12)
    for (value, feedback), w in zip(prob.traps, wrong):
        assert not prob.accepts(float(w))
        prob.guess.value = float(w)
        shown = prob.feedback.value
        assert "❌" in shown and feedback in shown
        # the trap's own feedback only: not another trap's
        assert all(fb not in shown for v, fb in prob.traps if v != value)
        assert not prob.solved
    prob.guess.value = right
    assert "✅" in prob.feedback.value and prob.solved


@pytest.mark.parametrize("cls,name", [(c, n) for c in PANELS for n in CHOICES[c]])
def test_a_choice_accepts_the_right_option_and_answers_each_wrong_one(cls, name):
    p = cls().refresh()
    prob = p.problems[name]
    options = prob.options()
    right = CHOICES[cls][name]
    assert [ok for _, ok, _ in options] == [i == right for i in range(len(options))]
    widget = prob.step if isinstance(prob, ProofIdea) else prob.choice
    for i, (_label, _ok, feedback) in enumerate(options):
        if i == right:
            continue
        widget.index = i
        text = prob.check()
        assert "❌" in text and feedback in text and options[right][2] not in text
    widget.index = right
    text = prob.check()
    assert "✅" in text and options[right][2] in text and prob.solved


def test_lesson_04_find_a_setting_checks_the_panel():
    p = SelectionProblemsPanel().refresh()
    task = p.problems["setting"]
    assert task.live and not task.holds()  # the defaults: k = 10, d = 2, ε = 0.5

    def p_best(eps, k, d, mono=False):  # the exponential mechanism's P[best], Δ = 1
        w = mp.e ** (mp.mpf(eps) * d / (1 if mono else 2))
        return w / (w + k - 1)

    c = p.controls
    c["k"].value, c["epsilon"].value, c["d"].value = 10, 1.0, 8.5
    assert p_best(1.0, 10, 8.5) < 0.9 and not task.holds()
    c["d"].value = 9.0
    assert p_best(1.0, 10, 9.0) >= 0.9
    assert task.solved and "✅" in task.feedback.value
    c["monotonic"].value = True  # the task asks for scores that may move either way
    assert not task.holds()
    c["monotonic"].value = False
    c["epsilon"].value = 1.05  # above the ε allowed
    assert not task.holds()
    c["epsilon"].value, c["k"].value = 1.0, 9  # fewer candidates than allowed
    assert not task.holds()
    # monotonic scores need only d ≥ ln 81 ≈ 4.39, but the task's scores may move either way
    q = SelectionProblemsPanel().refresh()
    q.controls["epsilon"].value, q.controls["d"].value, q.controls["monotonic"].value = 1.0, 4.5, True
    assert p_best(1.0, 10, 4.5, mono=True) >= 0.9 and p_best(1.0, 10, 4.5) < 0.9
    assert not q.problems["setting"].holds()
    text = q.problems["setting"].check()
    assert "❌" in text and "Hint" in text


def test_lesson_09_find_a_setting_checks_the_panel():
    p = ChoosingProblemsPanel().refresh()
    task = p.problems["setting"]
    assert task.live and not task.holds()  # δ = 0: about 1.6%
    assert _posterior("0.01", 0.5) < 0.5
    c = p.controls
    c["delta"].value = 1e-3
    c["event_probability"].value = 1e-3  # a common-enough output: not enough
    assert _posterior("0.01", 0.5, 1e-3, 1e-3) < 0.5 and not task.holds()
    c["event_probability"].value = 1e-6
    assert _posterior("0.01", 0.5, 1e-3, 1e-6) == pytest.approx(0.9100530459, abs=1e-9)
    assert task.solved and "✅" in task.feedback.value
    c["epsilon"].value = 0.55  # above the ε allowed, though the posterior is still high
    assert _posterior("0.01", 0.55, 1e-3, 1e-6) > 0.5 and not task.holds()
    q = ChoosingProblemsPanel().refresh()
    q.controls["delta"].value = 1e-9
    q.controls["event_probability"].value = 1e-10  # δ/q = 10: never enough
    assert _posterior("0.01", 0.5, 1e-9, 1e-10) < 0.5 and not q.problems["setting"].holds()


@pytest.mark.parametrize("cls", PANELS)
def test_no_solution_or_note_is_shown_before_an_attempt(cls):
    p = cls().refresh()
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


@pytest.mark.parametrize("cls", PANELS)
def test_a_wrong_numeric_attempt_never_prints_the_answer(cls):
    p = cls().refresh()
    for name in NUMERIC[cls]:
        prob = p.problems[name]
        right = prob.truth()
        prob.guess.value = float(right) * 3 + 1
        shown = plain_title(prob.feedback.value)
        assert f"{right:.4g}" not in shown and f"{right:.3g}" not in shown, (name, shown)
        assert f"{right:.4g}" in prob.show_solution()


@pytest.mark.parametrize("cls", PANELS)
def test_the_teachers_edition_lists_every_solution_and_note(cls):
    entries = teacher_entries([cls])
    ps = _set(cls().refresh())
    assert [e.key for e in entries] == [f"{cls.__name__}.problems.{n}" for n in ps.problems]
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
