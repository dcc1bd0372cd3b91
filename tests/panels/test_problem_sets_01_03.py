"""The problem sets of lesson 01 (:class:`~dpviz.panels.why_privacy.WhyPrivacyProblemsPanel`) and lesson 03
(:class:`~dpviz.panels.privacy_loss.PrivacyLossProblemsPanel`): every answer computed here independently (mpmath,
closed forms and quadrature), every checker accepting it and refusing each tempting wrong value or option with that
one's own feedback, the find-a-setting tasks against the panels' state, nothing of a solution on the page before an
attempt, and the teacher's listing complete. The notebooks show each set under "## Problems", just before the
summary."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import mpmath as mp
import pytest

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
from dpviz.panels.privacy_loss import PrivacyLossProblemsPanel
from dpviz.panels.why_privacy import WhyPrivacyProblemsPanel

mp.mp.dps = 30
NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PANELS = [WhyPrivacyProblemsPanel, PrivacyLossProblemsPanel]


def _set(panel) -> ProblemSet:
    (ps,) = [ex for ex in panel.exercise_list if isinstance(ex, ProblemSet)]
    return ps


def _texts(widget) -> list[str]:
    """Every string a widget tree holds that a page shows."""
    out = []
    for w in descendants(widget):
        for attr in ("value", "description", "placeholder", "tooltip"):
            v = getattr(w, attr, None)
            if isinstance(v, str):
                out.append(v)
        for o in getattr(w, "options", ()) or ():
            out.append(str(o[0] if isinstance(o, tuple) else o))
    return out


# ---- independent computations --------------------------------------------------------------------------------------

def _guess_bound(eps) -> float:
    """The most often a guess can be right from an eps-DP release, equal priors: e^ε/(1 + e^ε)."""
    e = mp.e ** mp.mpf(eps)
    return float(e / (1 + e))


def _differencing_success(eps) -> float:
    """§1's guess 'difference ≥ ½': the difference carries L₁ − L₂ with L_i ~ Lap(1/ε); by quadrature of its density
    (1 + |t|/b)e^(−|t|/b)/(4b), the guess errs when the noise passes ½ the wrong way."""
    b = 1 / mp.mpf(eps)

    def density(t):
        return (1 + abs(t) / b) * mp.e ** (-abs(t) / b) / (4 * b)

    return float(1 - mp.quad(density, [mp.mpf("0.5"), mp.inf]))


def _gaussian_tail_and_delta(sigma, eps, sens=1) -> tuple[float, float]:
    """P[L > ε] and δ(ε) of the Gaussian, by quadrature over the output o ~ N(0, σ²) against N(Δ, σ²): the loss is
    ln(p_x(o)/p_x′(o)), δ(ε) = ∫(p_x − e^ε p_x′)₊."""
    s, e, d = mp.mpf(sigma), mp.mpf(eps), mp.mpf(sens)

    def px(o):
        return mp.npdf(o, 0, s)

    def pxp(o):
        return mp.npdf(o, d, s)

    # ℓ(o) = (d² − 2od)/(2σ²) decreases in o: L > ε exactly for o < o*, and the excess is positive there too
    o_star = (d * d - 2 * s * s * e) / (2 * d)
    tail = mp.ncdf(o_star, 0, s)
    delta = mp.quad(lambda o: px(o) - mp.e ** e * pxp(o), [-mp.inf, o_star])
    return float(tail), float(delta)


def _phi(x) -> float:
    return float(mp.ncdf(x))


# ---- lesson 01 --------------------------------------------------------------------------------------------------

def _why():
    return WhyPrivacyProblemsPanel().refresh()


def _check_numeric(prob: NumericAnswer, truth: float, wrong: list[float]) -> None:
    """Accepts ``truth`` (computed here), refuses each trap (whose values are ``wrong``, in order) with its own
    feedback and no other's."""
    assert prob.truth() == pytest.approx(truth, rel=1e-9)
    assert [v for v, _ in prob.traps] == pytest.approx(wrong, rel=1e-9)
    assert prob.accepts(truth) and not prob.accepts(0.0 if truth else 1.0)
    tol = prob.tolerance(truth)
    assert prob.accepts(truth + 0.99 * tol) and not prob.accepts(truth + 1.01 * tol)
    for value, feedback in prob.traps:
        prob.guess.value = value
        prob.check()  # (a value equal to the box's 0 sends no change: checked as the button does)
        shown = prob.feedback.value
        assert "❌" in shown and feedback in shown, (value, shown[:200])
        assert all(other not in shown for v, other in prob.traps if v != value)
        assert str(f"{truth:.4g}") not in shown.replace(f"{value:.4g}", "")  # the answer is never said
        assert not prob.solved
    prob.guess.value = truth
    assert "✅" in prob.feedback.value and prob.solved


def test_lesson01_uniqueness():
    # (179/180)^(n−1): each of the other 199 people misses your one of 60 × 3 combinations
    truth = float(100 * (mp.mpf(179) / 180) ** 199)
    assert truth == pytest.approx(33.0008, abs=1e-4)
    _check_numeric(_why().problems["unique"], truth, [0.0, float(100 * (mp.mpf(179) / 180) ** 99), 90.0])


def test_lesson01_bound_on_every_guess():
    # two answers at ε = 0.25 are 0.5-DP together: e^0.5/(1 + e^0.5); traps: one answer, §1's own guess, a coin
    truth = 100 * _guess_bound(0.5)
    assert truth == pytest.approx(62.2459, abs=1e-4)
    exact = 100 * _differencing_success(0.25)
    assert exact == pytest.approx(float(100 * (1 - mp.e ** mp.mpf(-0.125) * (2 + mp.mpf(0.125)) / 4)), rel=1e-12)
    _check_numeric(_why().problems["bound"], truth, [100 * _guess_bound(0.25), exact, 50.0])


def _check_choice(prob: ChoiceProblem, right: list[int]) -> None:
    opts = prob.options()
    assert [i for i, (_, ok, _) in enumerate(opts) if ok] == right
    for i, (_label, ok, feedback) in enumerate(opts):
        prob.choice.index = i
        text = prob.check()
        assert (("✅" if ok else "❌") in text) and feedback in text
        assert all(fb not in text for j, (_, _, fb) in enumerate(opts) if j != i)
        if not ok:
            assert "Tempting" in feedback or "That is" in feedback or "That was" in feedback


def test_lesson01_choices():
    p = _why()
    _check_choice(p.problems["reconstruction"], [0])
    _check_choice(p.problems["membership"], [0])
    # the numbers the reconstruction feedback quotes: 2E/√(3(m − n)) at n = 400, m = 2000
    assert float(2 / mp.sqrt(3 * 1600)) == pytest.approx(1 / 34.6, rel=2e-3)
    assert float(2 / mp.sqrt(4800)) == pytest.approx(0.03, abs=5e-3)


def test_lesson01_find_a_setting():
    p = _why()
    task = p.problems["setting"]
    assert isinstance(task, FindSetting) and task.live and not task.holds()  # the defaults (ε = 1) do not do it
    for eps, ok in ((0.4, False), (0.45, True), (0.5, True), (0.55, False), (1.0, False), (0.1, False)):
        independent = 0.70 <= _guess_bound(2 * eps) <= 0.75
        assert independent == ok, eps
        p.controls["epsilon"].value = eps
        assert task.holds() is ok, eps
    p = _why()
    task = p.problems["setting"]
    task.check()
    assert "❌" in task.feedback.value and "Hint" in task.feedback.value
    p.controls["epsilon"].value = 0.5
    assert task.solved and "✅" in task.feedback.value  # live: solved by moving the slider
    assert _guess_bound(2 * 0.55) == pytest.approx(0.7503, abs=1e-4)  # the solution's "75.03 %, just over"


# ---- lesson 03 --------------------------------------------------------------------------------------------------

def _loss():
    return PrivacyLossProblemsPanel().refresh()


def test_lesson03_tradeoff_bound():
    e = mp.mpf("0.5")  # ε = Δ/b = 1/2
    truth = float(1 - mp.e ** e * mp.mpf("0.05"))
    assert truth > float(mp.e ** -e * mp.mpf("0.95"))  # the binding branch of the max
    _check_numeric(_loss().problems["beta"], truth,
                   [float(mp.e ** -e * mp.mpf("0.95")), 0.95, float(1 - mp.e ** 2 * mp.mpf("0.05"))])


def test_lesson03_gaussian_profile():
    tail, delta = _gaussian_tail_and_delta(2, "0.5")
    # the Balle–Wang closed form agrees with the quadrature
    closed = _phi(mp.mpf("0.25") - 1) - float(mp.e ** mp.mpf("0.5")) * _phi(mp.mpf("-0.25") - 1)
    assert delta == pytest.approx(closed, rel=1e-12) and delta == pytest.approx(0.052440, abs=1e-6)
    # the tail P[L > ε] of L ~ N(μ²/2, μ²), μ = 1/2
    assert tail == pytest.approx(float(1 - mp.ncdf((mp.mpf("0.5") - mp.mpf("0.125")) / mp.mpf("0.5"))), rel=1e-12)
    no_factor = _phi(-0.75) - _phi(-1.25)
    classic = float(mp.mpf("1.25") * mp.e ** (-mp.mpf("0.5")))
    _check_numeric(_loss().problems["delta"], delta, [tail, no_factor, classic])


def test_lesson03_choices():
    p = _loss()
    _check_choice(p.problems["meaning"], [0])
    _check_choice(p.problems["vector"], [0])
    # √d·C at d = 10,000: the ℓ1 norm of C/100 in every coordinate, whose ℓ2 norm is C
    v = [mp.mpf(1) / 100] * 10_000
    assert float(mp.fsum(v)) == pytest.approx(100.0) and float(mp.sqrt(mp.fsum(x * x for x in v))) == pytest.approx(1)


def test_lesson03_find_a_setting():
    p = _loss()
    task = p.problems["setting"]
    assert task.live and not task.holds()  # σ = 1, ε = 1: ratio about 2.4
    checked = 0
    for sigma in (0.5, 1.0, 1.75, 1.8, 2.0, 3.0, 5.0):
        for eps in (0.0, 0.25, 0.5, 0.8, 1.0, 1.05, 1.1, 2.0):
            tail, delta = _gaussian_tail_and_delta(sigma, eps)
            margin = min(abs(delta - 0.01), abs(tail - 5 * delta))
            if margin < 1e-6:
                continue
            p.controls["sigma"].value = sigma
            p.controls["epsilon"].value = eps
            assert task.holds() is (delta >= 0.01 and tail >= 5 * delta), (sigma, eps)
            checked += 1
    assert checked > 40
    # the solution's example, σ = 2 and ε = 0.8, and the numbers it quotes
    tail, delta = _gaussian_tail_and_delta(2, "0.8")
    assert tail == pytest.approx(_phi(-1.35)) and round(tail, 4) == 0.0885 and round(delta, 4) == 0.0169
    assert round(tail / delta, 1) == 5.2
    p = _loss()
    p.controls["sigma"].value = 2.0
    p.controls["epsilon"].value = 0.8
    assert p.problems["setting"].solved


def test_lesson03_proof_opens_after_a_pick():
    p = _loss()
    proof = p.problems["proof"]
    assert isinstance(proof, ProofIdea)
    assert "first" in proof.check() and proof.solution_box.value == ""
    for i, (_label, ok, feedback) in enumerate(proof.options()):
        proof.step.index = i
        text = proof.check()
        assert feedback in text and (("✅" if ok else "❌") in text)
    assert "1[L &gt; ε]" in proof.solution_box.value or "1[L > ε]" in proof.solution_box.value


def test_lesson01_proof_opens_after_an_idea():
    p = _why()
    proof = p.problems["proof"]
    assert proof.solution_box.value == ""
    proof.idea.value = "use the definition on S and on its complement"
    proof.check()
    assert "2e<sup>ε</sup>/(1 + e<sup>ε</sup>)" in proof.solution_box.value
    assert [ok for _, ok, _ in proof.options()] == [True, False, False]


# ---- both sets ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", PANELS)
def test_the_set_is_well_formed(cls):
    ps = _set(cls().refresh())
    kinds = {type(prob) for prob in ps.problems.values()}
    assert kinds == {NumericAnswer, ChoiceProblem, FindSetting, ProofIdea}
    assert 5 <= len(ps.problems) <= 8
    for prob in ps.problems.values():
        n = prob.notes
        assert n is not None and n.timing and n.ask and n.wrong
        if isinstance(prob, NumericAnswer):
            assert 2 <= len(prob.traps) <= 3
        if isinstance(prob, ChoiceProblem):
            assert all(fb for _, _, fb in prob.options())
        assert "$" not in prob._question_text() + prob.solution_html() and "\\" not in prob.solution_html()


@pytest.mark.parametrize("cls", PANELS)
def test_no_solution_is_on_the_page_before_an_attempt(cls):
    p = cls().refresh()
    ps = _set(p)
    texts = _texts(p.widget)
    secrets = []
    for prob in ps.problems.values():
        secrets.append(prob.solution_html())
        secrets += [prob.notes.timing, prob.notes.ask, *prob.notes.wrong]
        secrets += [fb for _, _, fb in prob.options()]
        secrets += [fb for _, fb in getattr(prob, "traps", ())]
        if isinstance(prob, NumericAnswer):
            assert not prob.accepts(prob.guess.value)
            assert not any(f"{prob.truth():.4g}" in t for t in texts if "dpviz" not in t[:0])  # the answer unsaid
    found = [(s[:60], t[:60]) for s in secrets if s for t in texts if s in t]
    assert not found, found
    for prob in ps.problems.values():
        assert prob.solution_box.value == "" and prob.show_solution() == ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        static = p.static_html()
    assert all(s not in static for s in secrets if s)
    assert all(prob._question_text() in static for prob in ps.problems.values())


@pytest.mark.parametrize("cls", PANELS)
def test_the_teachers_listing_has_every_solution_and_note(cls):
    entries = [e for e in teacher_entries([cls]) if e.problem_set]
    ps = _set(cls())
    assert [e.key for e in entries] == [f"{cls.__name__}.problems.{n}" for n in ps.problems]
    page = teacher_html(entries)
    for e, prob in zip(entries, ps.problems.values()):
        assert e.solution and e.solution in page and e.answer in page
        assert e.notes is prob.notes and e.notes.timing in page and e.notes.ask in page
        assert all(w in page for w in e.notes.wrong)
        for _label, _ok, feedback in e.options:
            assert feedback in page


@pytest.mark.parametrize("notebook, panel", [("01_why_privacy.ipynb", "WhyPrivacyProblemsPanel"),
                                             ("03_privacy_loss.ipynb", "PrivacyLossProblemsPanel")])
def test_the_lesson_shows_its_problems_just_before_its_summary(notebook, panel):
    cells = json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells]
    (i,) = [k for k, s in enumerate(sources) if s.startswith("## Problems")]
    assert sources[i + 1] == f"{panel}()" and cells[i + 1]["cell_type"] == "code"
    assert sources[i + 2].startswith("## Summary")
    assert any(f"import {panel}" in s or f", {panel}" in s or f"import {panel}," in s for s in sources[:i])
