"""The problem set of lesson 05 (beyond global sensitivity): every checker accepts the right answer, computed here
independently (brute force over neighbours, closed forms in mpmath), and refuses each tempting wrong value or option
with its own feedback; the find-a-setting task is solved by one setting and not by another; no solution shows before
an attempt; the teacher's edition lists every problem's solution and notes."""

from __future__ import annotations

import warnings

import mpmath as mp
import pytest

from dpviz.panels.beyond import BeyondProblemsPanel
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
from dpviz.panels.panel import View

mp.mp.dps = 30
E = mp.e


def _median(values) -> mp.mpf:
    s = sorted(values)
    return s[(len(s) - 1) // 2]  # odd n: the middle value


def _local_sensitivity(x, lower, upper, steps=400):
    """max |med(x) − med(x′)| over neighbours x′ (one record replaced by any v on a fine grid of [L, U], which
    holds L, U and every data value)."""
    grid = [mp.mpf(lower) + (mp.mpf(upper) - lower) * j / steps for j in range(steps + 1)] + [mp.mpf(v) for v in x]
    m = _median(x)
    return max(abs(_median(x[:i] + [v] + x[i + 1:]) - m) for i in range(len(x)) for v in grid)


def _laplace_above(t, eps):
    """P[Lap(1/ε) > t]."""
    t, eps = mp.mpf(t), mp.mpf(eps)
    return E ** (-eps * t) / 2 if t >= 0 else 1 - E ** (eps * t) / 2


def _ptr_pass(gamma, eps, delta):
    """P[γ + Lap(1/ε) > ln(1/δ)/ε], from the Laplace tail (not the piecewise formula)."""
    eps, delta = mp.mpf(eps), mp.mpf(delta)
    return _laplace_above(mp.log(1 / delta) / eps - gamma, eps)


def _em_quantile(x, q, eps, lower, upper, half=True):
    """The exponential-mechanism quantile's interval probabilities: length·e^{−ε|i − qn|/2} (``half=False``: without
    the ½), normalised."""
    z = [mp.mpf(lower)] + sorted(mp.mpf(v) for v in x) + [mp.mpf(upper)]
    n = len(x)
    w = [(z[i + 1] - z[i]) * E ** (-mp.mpf(eps) * abs(i - mp.mpf(q) * n) / (2 if half else 1)) for i in range(n + 1)]
    return [wi / sum(w) for wi in w]


X1, L1, U1 = [mp.mpf(v) for v in (2, 3, 7, 8, 20)], 0, 100
X6 = [2, 4, 6]
DELTA = mp.mpf("1e-6")

#: problem name → (the right answer, the tempting wrong values in the order declared), all computed here
NUMERIC = {
    "local": (_local_sensitivity(X1, L1, U1),
              [mp.mpf(U1 - L1), mp.mpf(8 - 7), mp.mpf(U1 - L1) / len(X1)]),
    # β_smooth = ε/(2 ln(2/δ)), ε = 1 (Nissim, Raskhodnikova & Smith 2007, Cor. 2.4)
    "beta": (1 / (2 * mp.log(2 / DELTA)), [1 / (2 * mp.log(1 / DELTA)), mp.mpf(1) / 6, 1 / mp.log(2 / DELTA)]),
    "ptr_pass": (_ptr_pass(10, 1, DELTA), [DELTA * E ** 10, _laplace_above(-10, 1), _ptr_pass(0, 1, DELTA)]),
    "em_quantile": (_em_quantile(X6, "0.5", 2, 0, 10)[1],
                    [E ** mp.mpf("-0.5") / (2 * E ** mp.mpf("-0.5") + 2 * E ** mp.mpf("-1.5")),
                     _em_quantile(X6, "0.5", 2, 0, 10, half=False)[1], mp.mpf(2) / 10]),
}

#: problem name → the index of the right option (the others are tempting and wrong)
CHOICES = {"leak": 0, "proof": 0}


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


def test_the_independent_answers_are_the_lessons_numbers():
    assert NUMERIC["local"][0] == 4
    assert float(NUMERIC["beta"][0]) == pytest.approx(0.0345, abs=5e-5)  # the lesson's 0.0345
    assert float(_ptr_pass(0, 1, DELTA)) == pytest.approx(5e-7, rel=1e-12)  # the lesson's δ/2 at γ = 0
    assert float(NUMERIC["ptr_pass"][0]) == pytest.approx(float(DELTA * E ** 10 / 2), rel=1e-20)  # ½δe^{εγ}
    assert float(_em_quantile(X6, "0.5", 2, 0, 10)[3]) == pytest.approx(0.23706, abs=1e-5)  # the solution's tail


def test_the_set_has_every_kind_and_notes():
    p = BeyondProblemsPanel().refresh()
    assert p.last_error is None
    assert isinstance(p.render(p.values()), View)  # a plain panel: its render returns a View
    problems = _set(p).problems
    assert 5 <= len(problems) <= 8
    assert {type(x) for x in problems.values()} == {NumericAnswer, ChoiceProblem, FindSetting, ProofIdea}
    for prob in problems.values():
        n = prob.notes
        assert n is not None and n.timing and n.ask and n.wrong, prob.key
        assert "\\" not in prob._question_text() + prob.solution_html(), prob.key  # no raw TeX
        if isinstance(prob, NumericAnswer):
            assert 2 <= len(prob.traps) <= 3
        if isinstance(prob, (ChoiceProblem, ProofIdea)) and prob.options():
            assert all(fb for _, _, fb in prob.options())


@pytest.mark.parametrize("name", list(NUMERIC))
def test_a_numeric_answer_accepts_the_right_value_and_names_each_trap(name):
    p = BeyondProblemsPanel().refresh()
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


@pytest.mark.parametrize("name", list(CHOICES))
def test_a_choice_accepts_the_right_option_and_answers_each_wrong_one(name):
    p = BeyondProblemsPanel().refresh()
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
    widget.index = right
    text = prob.check()
    assert "✅" in text and options[right][2] in text and prob.solved


def test_the_proof_idea_opens_its_solution_after_a_written_attempt():
    p = BeyondProblemsPanel().refresh()
    prob = p.problems["proof"]
    assert "first" in prob.check() and not prob.attempted  # nothing written, nothing picked
    prob.idea.value = "a data set k changes from x′ is k + 1 changes from x"
    prob.check()
    assert prob.attempted and "γ(x) ≤ γ(x′) + 1" in prob.show_solution()


def test_the_find_a_setting_task_checks_the_panel():
    p = BeyondProblemsPanel().refresh()
    task = p.problems["setting"]
    assert task.live and not task.holds()  # the defaults: ε = 1, δ = 10⁻⁶, γ = 10
    c = p.controls
    c["epsilon"].value, c["delta"].value, c["gamma"].value = 0.5, 1e-6, 35
    assert _ptr_pass(35, "0.5", DELTA) < mp.mpf("0.99") and not task.holds()
    c["gamma"].value = 36
    assert _ptr_pass(36, "0.5", DELTA) >= mp.mpf("0.99")
    assert task.solved and "✅" in task.feedback.value
    c["epsilon"].value = 0.55  # above the ε allowed, though the test then passes more often
    assert _ptr_pass(36, "0.55", DELTA) >= mp.mpf("0.99") and not task.holds()
    c["epsilon"].value, c["delta"].value = 0.5, 10 ** -5.5  # above the δ allowed
    assert _ptr_pass(36, "0.5", mp.mpf(10) ** mp.mpf("-5.5")) >= mp.mpf("0.99") and not task.holds()
    q = BeyondProblemsPanel().refresh()
    q.controls["epsilon"].value, q.controls["gamma"].value = 0.5, 28  # just past the threshold 27.6: about ½
    assert _ptr_pass(28, "0.5", DELTA) < mp.mpf("0.99") and not q.problems["setting"].holds()
    text = q.problems["setting"].check()
    assert "❌" in text and "Hint" in text


def test_no_solution_or_note_is_shown_before_an_attempt():
    p = BeyondProblemsPanel().refresh()
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
    p = BeyondProblemsPanel().refresh()
    for name in NUMERIC:
        prob = p.problems[name]
        right = prob.truth()
        prob.guess.value = float(right) * 3 + 1
        shown = plain_title(prob.feedback.value)
        assert f"{right:.4g}" not in shown and f"{right:.3g}" not in shown, (name, shown)
        assert f"{right:.4g}" in prob.show_solution()


def test_the_teachers_edition_lists_every_solution_and_note():
    entries = teacher_entries([BeyondProblemsPanel])
    ps = _set(BeyondProblemsPanel().refresh())
    assert [e.key for e in entries] == [f"BeyondProblemsPanel.problems.{n}" for n in ps.problems]
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
