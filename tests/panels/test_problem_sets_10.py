"""Lesson 10's problem set (:class:`dpviz.panels.auditing.AuditingProblemsPanel`): every checker accepts the right
answer, computed here independently (mpmath closed forms; Google's dp_accounting PLD accountant for the
find-a-setting task, where no closed form exists), and refuses each tempting wrong value or option with its own
feedback; nothing of a solution is on the page before an attempt; the teacher's listing has every solution and note."""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import pytest

from dpviz.panels import auditing as AU
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

DELTA = 1e-5
NAMES = ("audit_bound", "noise_average", "denominator", "not_covered", "refute", "setting", "clip_proof")


def _panel():
    return AU.AuditingProblemsPanel().refresh()


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


def _pld_epsilon(z: float, q: float, T: int, delta: float = DELTA) -> float:
    """ε of T Poisson-subsampled Gaussian steps, add/remove one, from dp_accounting's PLD accountant: another
    library's implementation, not dpviz's accountant."""
    import dp_accounting
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
                                               value_discretization_interval=1e-4)
    acc.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(z)), T)
    return float(acc.get_epsilon(delta))


def _gaussian_epsilon(mu: float, delta: float) -> float:
    """The Gaussian mechanism's exact ε at δ for shift/σ = μ, from Balle & Wang 2018, Thm 8 in mpmath:
    δ = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)."""
    mp.mp.dps = 40
    mu = mp.mpf(mu)

    def excess(e):
        return mp.ncdf(mu / 2 - e / mu) - mp.exp(e) * mp.ncdf(-mu / 2 - e / mu) - delta

    return float(mp.findroot(excess, (mp.mpf("0.01"), mp.mpf(40)), solver="bisect"))


# ---- the set as a whole ------------------------------------------------------------------------------------------

def test_the_set_has_every_kind_and_notes_for_each_problem():
    p = _panel()
    ps = p.problems
    assert isinstance(ps, ProblemSet) and tuple(ps.problems) == NAMES
    assert {type(prob) for prob in ps.problems.values()} == {NumericAnswer, ChoiceProblem, FindSetting, ProofIdea}
    for prob in ps.problems.values():
        n = prob.notes
        assert n is not None and n.timing and n.ask and n.wrong, prob.name
    assert p.last_error is None


# ---- problem 1: the Kairouz–Oh–Viswanath bound ---------------------------------------------------------------------

def test_the_audit_bound_is_the_larger_of_the_two_inequalities():
    mp.mp.dps = 40
    a, b, d = mp.mpf("0.02"), mp.mpf("0.3"), mp.mpf("1e-5")
    right = float(max(mp.log((1 - d - b) / a), mp.log((1 - d - a) / b)))
    assert right == pytest.approx(3.5553, abs=1e-4)
    p = _panel()
    prob = p.problems["audit_bound"]
    assert prob.truth() == pytest.approx(right, rel=1e-12)
    traps = {float(mp.log((1 - d - a) / b)): "other inequality",  # 1.1838
             float(mp.log(1 / a)): "misses count too",  # 3.912
             float((1 - d - b) / a): "its logarithm"}  # 35.0
    _check_numeric(prob, right, traps)
    prob.show_solution()
    assert "3.555" in prob.solution_box.value and "1.184" in prob.solution_box.value


def _check_numeric(prob: NumericAnswer, right: float, traps: dict[float, str]) -> None:
    """The checker accepts the right value (and refuses just outside its tolerance); each trap is refused with its
    own feedback, which names neither the answer nor another trap's feedback."""
    assert [v for v, _ in prob.traps] == pytest.approx(list(traps))
    tol = prob.tolerance(right)
    assert prob.accepts(right) and prob.accepts(right + 0.99 * tol) and prob.accepts(right - 0.99 * tol)
    assert not prob.accepts(right + 1.01 * tol) and not prob.accepts(right - 1.01 * tol)
    feedbacks = dict(prob.traps)
    for value, phrase in traps.items():
        assert not prob.accepts(value)
        own = next(fb for v, fb in prob.traps if v == pytest.approx(value))
        assert phrase in own
        prob.guess.value = value
        shown = prob.feedback.value
        assert "❌" in shown and own in shown and not prob.solved
        assert all(fb not in shown for v, fb in feedbacks.items() if fb != own)
        assert f"{right:.4g}" not in shown  # never the answer
    prob.guess.value = right
    assert "✅" in prob.feedback.value and prob.solved


# ---- problem 2: the noise on the averaged gradient ---------------------------------------------------------------

def test_the_noise_on_the_average_is_z_c_over_l():
    z, C, q = mp.mpf("1.5"), mp.mpf(2), mp.mpf("0.05")
    L = q * 1000
    right = float(z * C / L)
    assert right == pytest.approx(0.06, abs=1e-15)
    prob = _panel().problems["noise_average"]
    assert prob.truth() == pytest.approx(right, rel=1e-12)
    _check_numeric(prob, right, {float(z * C): "noise on the <i>sum</i>",  # σ = 3
                                 float(z / L): "C = 2 here",  # 0.03
                                 float(z * C / mp.sqrt(L)): "√L"})  # 0.424
    # the claim of the solution: on each coordinate of (sum + N(0, σ²I))/L the noise has standard deviation σ/L
    rng = np.random.default_rng(0)
    noise = rng.normal(0.0, float(z * C), size=(200_000, 2)) / float(L)
    assert noise.std(axis=0) == pytest.approx([right, right], rel=0.01)


# ---- problems 3 to 5: choices --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, right, phrases", [
    ("denominator", 0, ("n is a function of the data", "the reported ε is simply wrong", "twice the sensitivity")),
    ("not_covered", 0, ("weaker attack is not a proof", "one training example", "Poisson sampling")),
    ("refute", 0, ("It is a lower bound", "it can refute one", "at any number of runs")),
])
def test_each_wrong_option_answers_with_its_own_feedback(name, right, phrases):
    prob = _panel().problems[name]
    opts = prob.options()
    assert [ok for _, ok, _ in opts] == [i == right for i in range(len(opts))]
    wrong = [i for i in range(len(opts)) if i != right]
    assert len(wrong) == len(phrases)
    for i, phrase in zip(wrong, phrases):
        prob.choice.index = i
        text = prob.check()
        assert "❌" in text and phrase in text and "Tempting" in text and not prob.solved
        assert opts[right][2] not in text and all(opts[j][2] not in text for j in wrong if j != i)
    prob.choice.index = right
    assert "✅" in prob.check() and opts[right][2] in prob.feedback.value and prob.solved


def test_the_numbers_quoted_by_the_denominator_problem():
    """The accountant's reports quoted (4.38 at z = 1, δ = 10⁻⁵; 2.25 at z = 2, δ = 10⁻⁶) are one Gaussian step with
    μ = 1/z; the private-denominator bounds (12.57, 4.91) are the exact ε of the two Gaussians of unequal variance,
    checked here by the hockey-stick divergence integrated in mpmath on both sides of ε."""
    assert round(_gaussian_epsilon(1.0, 1e-5), 2) == 4.38
    assert round(_gaussian_epsilon(0.5, 1e-6), 2) == 2.25
    for n, z, delta, eps in ((10, 1.0, 1e-5, 12.57), (1000, 2.0, 1e-6, 4.91)):
        P = (mp.mpf(-1), mp.mpf(z) / n)
        Q = (-mp.mpf(n - 1) / (n + 1), mp.mpf(z) / (n + 1))
        lo, hi = _hockey_both(P, Q, eps - 0.005), _hockey_both(P, Q, eps + 0.005)
        assert lo > delta > hi, (n, lo, hi)
    text = " ".join(fb for _, _, fb in _panel().problems["denominator"].options())
    for number in ("12.57", "4.38", "4.91", "2.25"):
        assert number in text


def _hockey(P, Q, eps) -> mp.mpf:
    """∫ max(0, p − e^ε q) for P = N(m₁, s₁²), Q = N(m₂, s₂²): split at the roots of ln p − ln q = ε (a quadratic)."""
    mp.mp.dps = 40
    (m1, s1), (m2, s2) = P, Q
    # ln p − ln q − ε = A x² + B x + K
    A = -1 / (2 * s1 ** 2) + 1 / (2 * s2 ** 2)
    B = m1 / s1 ** 2 - m2 / s2 ** 2
    K = -m1 ** 2 / (2 * s1 ** 2) + m2 ** 2 / (2 * s2 ** 2) + mp.log(s2 / s1) - eps
    disc = B ** 2 - 4 * A * K  # A ≠ 0: the variances differ
    roots = sorted([(-B - mp.sqrt(disc)) / (2 * A), (-B + mp.sqrt(disc)) / (2 * A)]) if disc > 0 else []
    edges = [-mp.inf, *roots, mp.inf]
    total = mp.mpf(0)
    for a, b in zip(edges[:-1], edges[1:]):
        mid = (a + b) / 2 if mp.isfinite(a) and mp.isfinite(b) else (b - 1 if mp.isfinite(b) else a + 1)
        if A * mid ** 2 + B * mid + K > 0:  # p > e^ε q on this piece
            total += (mp.ncdf(b, m1, s1) - mp.ncdf(a, m1, s1)) - mp.exp(eps) * (mp.ncdf(b, m2, s2)
                                                                                 - mp.ncdf(a, m2, s2))
    return total


def _hockey_both(P, Q, eps) -> float:
    return float(max(_hockey(P, Q, mp.mpf(eps)), _hockey(Q, P, mp.mpf(eps))))


# ---- problem 6: find a setting -------------------------------------------------------------------------------------

def _set(p, z: float, exponent: float, T: int) -> None:
    p.controls["noise_multiplier"].value = z
    p.controls["sampling_rate"].value = 10.0 ** exponent
    p.controls["steps"].value = T


def test_the_find_a_setting_task_is_checked_against_the_panels_state():
    p = _panel()
    task = p.problems["setting"]
    assert task.live and not task.holds() and task.feedback.value == ""  # the defaults do not do it
    assert "❌" in task.check() and "z = 100·q" in task.feedback.value
    # a setting that does it: z = 5, q = 10^−1.3 ≈ 0.0501, T = 500
    _set(p, 5.0, -1.3, 500)
    v = p.values()
    q = float(v.sampling_rate)
    assert q == pytest.approx(10 ** -1.3)
    eps = _pld_epsilon(5.0, q, 500)
    assert eps <= 0.9 and 5.0 / (1000 * q) <= 0.1  # independently: the task's three conditions hold
    assert task.holds() and task.solved and "✅" in task.feedback.value


@pytest.mark.parametrize("z, exponent, T, why", [
    (5.0, -1.2, 500, "epsilon"),  # σ/L = 0.079, but ε ≈ 1.09 > 1
    (1.5, -2.0, 500, "noise"),  # ε ≈ 0.64, but σ/L = 0.15 > 0.1
    (5.0, -1.3, 490, "steps"),  # ε < 1 and σ/L < 0.1, but T < 500
])
def test_settings_that_miss_one_condition_do_not_solve_it(z, exponent, T, why):
    p = _panel()
    _set(p, z, exponent, T)
    q = float(p.values().sampling_rate)
    eps, noise = _pld_epsilon(z, q, T), z / (1000 * q)
    if why == "epsilon":
        assert eps > 1.05 and noise <= 0.1
    elif why == "noise":
        assert eps < 0.9 and noise > 0.1
    else:
        assert eps < 0.9 and noise <= 0.1 and T < 500
    task = p.problems["setting"]
    assert not task.holds() and not task.solved
    assert "❌" in task.check()


def test_the_solution_of_the_task_says_what_the_accountant_gives():
    """The numbers of the solution, from dp_accounting: ε ≈ 0.84 at z = 5, q = 10^−1.3, T = 500; 1.33 at z = 1,
    q = 0.01; at T = 1000 no setting of the sliders has ε ≤ 1 with σ/L ≤ 0.1 (ε falls with z, so the largest z the
    noise allows, min(5, 100·q) on the slider's grid, is the best; above q = 0.05 z is capped at 5 and ε grows with q,
    checked up to q = 0.1)."""
    assert round(_pld_epsilon(5.0, 10 ** -1.3, 500), 2) == 0.84
    assert round(_pld_epsilon(1.0, 0.01, 500), 2) == 1.33
    for k in range(11):
        q = 10.0 ** (-2 + 0.1 * k)
        z = min(5.0, math.floor(100 * q * 10 + 1e-9) / 10)
        assert _pld_epsilon(z, q, 1000) > 1.0, q
    p = _panel()
    task = p.problems["setting"]
    task.check()
    text = task.show_solution()
    assert "0.84" in text and "1.33" in text and "T = 1000 no setting" in text


# ---- problem 7: the proof idea -------------------------------------------------------------------------------------

def test_the_proof_idea_checks_its_key_step_and_opens_the_solution_after():
    p = _panel()
    prob = p.problems["clip_proof"]
    solution = prob.solution_html()
    assert "min(‖g<sub>i</sub>‖, C) ≤ C" in solution and "2C" in solution
    assert prob.check().startswith("Write") and prob.attempts == 0 and solution not in prob.solution_box.value
    steps = prob.options()
    assert [ok for _, ok, _ in steps] == [True, False, False, False]
    for i in (1, 2, 3):
        prob.step.index = i
        text = prob.check()
        assert "❌" in text and steps[i][2] in text and steps[0][2] not in text
    assert solution in prob.solution_box.value
    prob.step.index = 0
    assert "✅" in prob.check() and prob.solved


def test_the_proof_claim_holds_on_random_gradients():
    """The claim itself: add one example, with the same sampling of the others, and the clipped sum moves by the
    extra example's clipped gradient, of norm min(‖g‖, C) ≤ C; replace one, and it moves by at most 2C."""
    rng = np.random.default_rng(3)
    C = 1.5

    def clipped_sum(G):
        norms = np.linalg.norm(G, axis=1, keepdims=True)
        return (G * np.minimum(1.0, C / np.maximum(norms, 1e-300))).sum(axis=0)

    for _ in range(200):
        G = rng.standard_cauchy((rng.integers(1, 30), 3)) * 10
        extra = rng.standard_cauchy(3) * 10
        moved = np.linalg.norm(clipped_sum(np.vstack([G, extra])) - clipped_sum(G))
        assert moved == pytest.approx(min(np.linalg.norm(extra), C), rel=1e-9) and moved <= C * (1 + 1e-12)
        swapped = np.linalg.norm(clipped_sum(np.vstack([G[1:], extra])) - clipped_sum(G))
        assert swapped <= 2 * C * (1 + 1e-12)


# ---- nothing before an attempt; the teacher's listing --------------------------------------------------------------

def test_no_solution_or_note_is_on_the_page_before_an_attempt():
    p = _panel()
    ps = p.problems
    texts = _texts(p.widget)
    secrets = []
    for prob in ps.problems.values():
        secrets.append(prob.solution_html())
        secrets += [prob.notes.timing, prob.notes.ask, *prob.notes.wrong]
        secrets += [fb for _, _, fb in prob.options()]
        if isinstance(prob, NumericAnswer):
            secrets += [fb for _, fb in prob.traps]
            assert prob.guess.value == 0.0 and not prob.accepts(0.0)
        if isinstance(prob, FindSetting):
            secrets.append(prob.hint)
        assert prob.solution_button.layout.display == "none" and prob.solution_box.value == ""
        assert prob.show_solution() == "" and prob.solution_box.value == ""
    found = [(s[:60], t[:60]) for s in secrets if s for t in texts if s in t]
    assert not found, found
    # the answers themselves are not printed either
    for answer in ("3.555", "0.06"):
        assert not any(answer in t for t in texts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        static = p.static_html()
    assert all(s not in static for s in secrets if s)
    assert all(prob._question_text() in static for prob in ps.problems.values())


def test_the_teachers_listing_has_every_solution_and_note():
    entries = [e for e in teacher_entries([AU.AuditingProblemsPanel]) if e.problem_set]
    assert [e.key for e in entries] == [f"AuditingProblemsPanel.problems.{n}" for n in NAMES]
    page = teacher_html(entries)
    p = _panel()
    for e, prob in zip(entries, p.problems.problems.values()):
        assert e.notes == prob.notes and e.solution == prob.solution_html() and e.solution
        n = prob.notes
        for text in (n.timing, n.ask, *n.wrong):
            assert text in page
        for _, _, fb in prob.options():
            assert fb in page
        if isinstance(prob, NumericAnswer):
            for _, fb in prob.traps:
                assert fb in page
    assert "3.555 (right within ±1%)" in page and "0.06 (right within ±2%)" in page
    assert p.problems["setting"].hint in page
