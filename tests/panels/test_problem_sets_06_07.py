"""The problem sets of lessons 06 "Composition theorems" and 07 "Accounting in practice" (issue 41, item 4).

Every answer is recomputed here independently of dpviz (mpmath: the closed forms of advanced composition,
amplification by subsampling and group privacy's δ_g; the Gaussian's exact profile of Balle & Wang 2018, Thm 8, by root
finding; the exact composition of randomized responses by a binomial sum); each checker accepts the right answer and
refuses every tempting wrong value or option with its own feedback; each find-a-setting task is solved by one setting
and not by another; no widget holds a solution, a feedback or a teaching note before an attempt; and the teacher's
listing has every problem's solution and notes.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import mpmath as mp
import pytest

from dpviz.accountants import compare as C
from dpviz.panels import composition as PC
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

mp.mp.dps = 40
PANELS = (PC.CompositionProblemsPanel, PC.AccountingProblemsPanel)


# ---- independent computations -----------------------------------------------------------------------------------

def _advanced(k, eps, slack):
    """Dwork, Rothblum & Vadhan 2010, Thm III.3, in mpmath."""
    eps, slack = mp.mpf(eps), mp.mpf(slack)
    return mp.sqrt(2 * k * mp.log(1 / slack)) * eps + k * eps * (mp.exp(eps) - 1)


def _gaussian_delta(s, eps):
    """The exact δ(ε) of one Gaussian with σ/Δ = s (Balle & Wang 2018, Thm 8)."""
    s, eps = mp.mpf(s), mp.mpf(eps)
    return mp.ncdf(-eps * s + 1 / (2 * s)) - mp.exp(eps) * mp.ncdf(-eps * s - 1 / (2 * s))


def _gaussian_epsilon(s, delta):
    """The exact ε at δ of one Gaussian with σ/Δ = s: the root of δ(ε) = δ (δ(ε) decreases in ε)."""
    lo, hi = mp.mpf(0), mp.mpf(1)
    while _gaussian_delta(s, hi) > delta:
        hi *= 2
    return mp.findroot(lambda e: _gaussian_delta(s, e) - delta, (lo, hi), solver="bisect", tol=1e-30)


def _gaussian_sigma(eps, delta):
    """The σ (Δ = 1) at which one Gaussian is exactly (ε, δ)-DP: δ(ε) decreases in σ."""
    return mp.findroot(lambda s: _gaussian_delta(s, eps) - delta, (mp.mpf("0.1"), mp.mpf(100)), solver="bisect",
                       tol=1e-30)


def _rr_epsilon(eps0, k, delta):
    """The exact ε at δ of k randomized responses of ε0 each: the privacy loss is (2j − k)·ε0 with j ~ Bin(k, p),
    p = e^ε0/(1 + e^ε0), and δ(ε) = E[(1 − e^(ε − loss))₊]."""
    eps0 = mp.mpf(eps0)
    p = mp.exp(eps0) / (1 + mp.exp(eps0))
    terms = [(mp.binomial(k, j) * p ** j * (1 - p) ** (k - j), (2 * j - k) * eps0) for j in range(k + 1)]

    def d(e):
        return mp.fsum(w * (1 - mp.exp(e - loss)) for w, loss in terms if loss > e)

    return mp.findroot(lambda e: d(e) - delta, (mp.mpf(0), k * eps0), solver="bisect", tol=1e-25)


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


@pytest.fixture(scope="module")
def p06():
    return PC.CompositionProblemsPanel().refresh()


@pytest.fixture(scope="module")
def p07():
    return PC.AccountingProblemsPanel().refresh()


def _fresh(cls):
    return cls().refresh()


# ---- the sets' shape ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", PANELS)
def test_each_set_has_every_kind_and_notes(cls):
    p = _fresh(cls)
    assert p.last_error is None
    problems = p.problems.problems
    assert 5 <= len(problems) <= 8
    assert {type(x) for x in problems.values()} == {NumericAnswer, ChoiceProblem, FindSetting, ProofIdea}
    for name, prob in problems.items():
        n = prob.notes
        assert n is not None and n.timing and n.ask and n.wrong, name
        if isinstance(prob, NumericAnswer):
            assert 2 <= len(prob.traps) <= 3, name
        if isinstance(prob, ChoiceProblem):
            assert all(fb for _, _, fb in prob.options())
    # no raw TeX anywhere a learner or a teacher reads
    page = teacher_html(teacher_entries([cls]))
    for tex in ("\\frac", "\\epsilon", "\\delta", "$", "^{", "_{"):
        assert tex not in page, tex


# ---- lesson 06: the numbers ----------------------------------------------------------------------------------------

def _check_numeric(prob: NumericAnswer, truth, traps: dict) -> None:
    """The checker accepts the independent ``truth``, refuses each tempting value with its own feedback (and no
    other's), and a wrong attempt never prints the answer."""
    truth = float(truth)
    assert prob.truth() == pytest.approx(truth, rel=1e-9)
    assert sorted(v for v, _ in prob.traps) == pytest.approx(sorted(float(v) for v in traps))
    feedback = {round(v, 9): fb for v, fb in prob.traps}
    for value in traps:
        value = float(value)
        assert not prob.accepts(value), value
        prob.guess.value = value
        shown = prob.feedback.value
        own = feedback[round(value, 9)]
        assert "❌" in shown and own in shown, value
        assert all(fb not in shown for v, fb in prob.traps if round(v, 9) != round(value, 9))
        assert f"{truth:.4g}" not in shown.replace(own, "")
    tol = prob.tolerance(truth)
    assert not prob.accepts(truth + 1.01 * tol) and not prob.accepts(truth - 1.01 * tol)
    prob.guess.value = truth + 0.5 * tol
    assert "✅" in prob.feedback.value and prob.solved


def test_06_advanced_composition_of_100_steps():
    p = _fresh(PC.CompositionProblemsPanel)
    truth = _advanced(100, "0.1", "1e-5")
    assert truth == pytest.approx(5.850235, abs=1e-6)
    _check_numeric(p.problems["advanced"], truth,
                   {100 * 0.1: "basic", mp.sqrt(200 * mp.log(10 ** 5)) * mp.mpf("0.1"): "first term only",
                    mp.sqrt(100) * mp.mpf("0.1"): "sqrt(k)·eps"})
    assert "5.85" in p.problems["advanced"].show_solution()


def test_06_basic_beats_advanced_for_ten_steps_and_the_crossover():
    few = _advanced(10, "0.1", "1e-5")
    assert few > 10 * mp.mpf("0.1") and f"{float(few):.2f}" == "1.62"
    # "advanced composition wins from k = 29 on"
    assert _advanced(28, "0.1", "1e-5") > 28 * mp.mpf("0.1") and _advanced(29, "0.1", "1e-5") < 29 * mp.mpf("0.1")
    # the library's advanced accountant (randomized response steps of ε_step, δ_step = 0) says the same
    assert C.epsilon_result("advanced", "rr", 0.1, 10, 1.0, 1e-5).epsilon == pytest.approx(float(few), rel=1e-9)
    p = _fresh(PC.CompositionProblemsPanel)
    _check_choice(p.problems["few_steps"], right=0)


def _check_choice(prob: ChoiceProblem, right: int) -> None:
    opts = prob.options()
    assert [ok for _, ok, _ in opts] == [i == right for i in range(len(opts))]
    for i, (_label, ok, fb) in enumerate(opts):
        if ok:
            continue
        prob.choice.index = i
        text = prob.check()
        assert "❌" in text and fb in text and not prob.solved
        assert all(other not in text for j, (_, _, other) in enumerate(opts) if j != i)
    prob.choice.index = right
    assert "✅" in prob.check() and opts[right][2] in prob.feedback.value and prob.solved


def test_06_epsilon_grows_like_k_once_the_mean_loss_dominates():
    delta = mp.mpf("1e-5")
    rho = Fraction(1, 2 * 16)
    assert float(4 * mp.log(1 / delta)) == pytest.approx(46.05, abs=0.01)
    assert float(rho * 10 ** 4) == 312.5 and float(rho * 10 ** 5) == 3125
    # k Gaussians of σ are one of σ/√k (Dong, Roth & Su 2022, Cor 3.3): the exact ε at k = 10⁴ and 10⁵
    e4 = _gaussian_epsilon(4 / mp.sqrt(10 ** 4), delta)
    e5 = _gaussian_epsilon(4 / mp.sqrt(10 ** 5), delta)
    assert round(float(e4)) == 418 and round(float(e5)) == 3461 and f"{float(e5 / e4):.2g}" == "8.3"
    assert float(e4) == pytest.approx(C.exact_epsilon("gaussian", 4.0, 10 ** 4, 1.0, 1e-5), rel=1e-6)
    # the turn kρ = 4 ln(1/δ) "near k ≈ 1500"
    assert 1450 < 4 * math.log(1e5) * 32 < 1500
    _check_choice(_fresh(PC.CompositionProblemsPanel).problems["slope"], right=0)


def test_06_amplification_of_one_step():
    p = _fresh(PC.CompositionProblemsPanel)
    q, eps = mp.mpf("0.1"), mp.mpf(1)
    truth = mp.log(1 + q * (mp.exp(eps) - 1))
    assert truth == pytest.approx(0.158565, abs=1e-6)
    _check_numeric(p.problems["amplified"], truth, {q * eps: "q·ε", q * (mp.exp(eps) - 1): "no log", eps: "none"})
    assert "6.31 times cheaper" in p.problems["amplified"].show_solution()
    assert f"{float(eps / truth):.3g}" == "6.31"


def test_06_group_privacy_delta():
    p = _fresh(PC.CompositionProblemsPanel)
    eps1, delta1, g = mp.mpf("0.1"), mp.mpf("1e-6"), 10
    # the geometric sum δ₁(1 + e^ε₁ + … + e^((g−1)ε₁)), in units of 10⁻⁶
    truth = mp.fsum(mp.exp(i * eps1) for i in range(g))
    assert truth * delta1 == pytest.approx(1.63380e-5, rel=1e-5)
    _check_numeric(p.problems["group"], truth, {g: "g·δ₁", 1: "δ₁", mp.exp(g * eps1): "one term"})
    # the notes' "g = 15" at ε₁ = 1: the first g with δ_g ≥ 1
    sums = [mp.fsum(mp.exp(i) for i in range(n)) * delta1 for n in (14, 15)]
    assert sums[0] < 1 <= sums[1]
    assert "16.34·10⁻⁶" in p.problems["group"].show_solution()


def test_06_find_a_setting_where_sampling_barely_helps():
    p = _fresh(PC.CompositionProblemsPanel)
    task = p.problems["setting"]
    assert task.live and not task.holds()  # the defaults (ε = 1, q = 0.01): ε′ far below ε/2
    assert "❌" in task.check() and "Hint" in task.feedback.value and task.attempts == 1

    def solves(eps, q):  # independent: ε′ > ε/2 ⟺ ε > 2 ln((1 − q)/q), for q ≤ 0.1
        return q <= 0.1 and eps > 2 * math.log((1 - q) / q)

    for eps, q in ((1.0, 0.1), (4.35, 0.1), (5.0, 10 ** -0.7), (9.0, 0.01)):  # none solves it (q moved first)
        assert not solves(eps, q)
        p.controls["rate"].value = q
        p.controls["epsilon"].value = eps
        assert p.values().rate == pytest.approx(q) and not task.holds(), (eps, q)
    assert not task.solved
    p.controls["epsilon"].value = 4.5  # at q = 0.01: not yet
    assert not task.solved
    p.controls["rate"].value = 0.1  # 2 ln 9 ≈ 4.39 < 4.5
    assert solves(4.5, 0.1) and task.holds() and task.solved and "✅" in task.feedback.value
    q = _fresh(PC.CompositionProblemsPanel)
    q.controls["rate"].value = 0.01
    q.controls["epsilon"].value = 9.5  # 2 ln 99 ≈ 9.19
    assert solves(9.5, 0.01) and q.problems["setting"].solved


def test_06_proof_idea_of_basic_composition():
    p = _fresh(PC.CompositionProblemsPanel)
    proof = p.problems["proof"]
    steps = proof.options()
    assert [ok for _, ok, _ in steps] == [True, False, False, False]
    assert proof.solution_box.value == ""
    proof.step.index = 1
    text = proof.check()
    assert "❌" in text and steps[1][2] in text and "chain rule" in text
    assert "e<sup>k·ε<sub>step</sub></sup>" in proof.solution_box.value
    assert "Dwork &amp; Roth 2014, Thm 3.16" in proof.solution_box.value or "Dwork & Roth 2014, Thm 3.16" in \
        proof.solution_box.value
    proof.step.index = 0
    assert "✅" in proof.check() and proof.solved


# ---- lesson 07 ------------------------------------------------------------------------------------------------------

def test_07_calibrating_k_gaussians():
    p = _fresh(PC.AccountingProblemsPanel)
    s1 = _gaussian_sigma(1, mp.mpf("1e-5"))
    assert s1 == pytest.approx(3.730632, abs=1e-6)
    truth = mp.sqrt(100) * s1
    _check_numeric(p.problems["calibrate"], truth, {100 * s1: "k·σ₁", s1: "σ₁", s1 / 10: "σ₁/√k"})
    # the composed run is exactly (1, 10⁻⁵)-DP: 100 Gaussians of √k·σ₁ are one Gaussian of σ₁
    assert _gaussian_delta(truth / mp.sqrt(100), 1) == pytest.approx(1e-5, rel=1e-20)
    assert C.exact_epsilon("gaussian", float(truth), 100, 1.0, 1e-5) == pytest.approx(1.0, rel=1e-6)
    # the question prints σ₁ to 4 digits: the answer from the printed value is within the tolerance
    prob = p.problems["calibrate"]
    assert "σ₁ = 3.731" in prob._question_text() and prob.accepts(10 * 3.731)


def test_07_rho_of_100_gaussians():
    p = _fresh(PC.AccountingProblemsPanel)
    truth = Fraction(100, 2 * 4 ** 2)  # ρ = Δ²/(2σ²) per step, added over the steps
    assert truth == Fraction(25, 8)
    _check_numeric(p.problems["rho"], truth,
                   {Fraction(1, 32): "one step", Fraction(100, 16): "no ½", Fraction(100, 8): "σ not squared"})
    # the solution's conversion ρ + 2√(ρ ln(1/δ)) ≈ 15.12, and the lab's zCDP numbers of the proof idea
    simple = mp.mpf(25) / 8 + 2 * mp.sqrt(mp.mpf(25) / 8 * mp.log(10 ** 5))
    assert "15.12" in p.problems["rho"].show_solution() and f"{float(simple):.4g}" == "15.12"
    z = C.epsilon_result("zcdp", "gaussian", 4.0, 100, 1.0, 1e-5)
    assert z.alternative == pytest.approx(float(simple), rel=1e-9) and f"{z.epsilon:.3g}" == "14.1"
    assert f"{float(_gaussian_epsilon(4 / mp.mpf(10), mp.mpf('1e-5'))):.3g}" == "13.2"


def test_07_what_a_looser_accountant_costs_in_data():
    p = _fresh(PC.AccountingProblemsPanel)
    ratio = Fraction(3, 2)
    # the noise in a mean is σΔ/n: the same σΔ/n with σ × 3/2 needs n × 3/2
    sd = lambda sigma, n: Fraction(sigma) / n  # noqa: E731 (Δ = 1)
    assert sd(ratio * 2, ratio * 100) == sd(2, 100)
    _check_numeric(p.problems["more_data"], ratio, {ratio ** 2: "variance", mp.sqrt(mp.mpf(3) / 2): "√"})


def test_07_which_accountant_is_exact_for_randomized_response():
    exact = _rr_epsilon("0.1", 100, mp.mpf("1e-5"))
    assert exact == pytest.approx(4.306791, abs=1e-6)
    # the optimal (KOV) accountant and PLD land on it; KOV is loose for Gaussian and Laplace steps
    assert C.epsilon_result("optimal", "rr", 0.1, 100, 1.0, 1e-5).epsilon == pytest.approx(float(exact), rel=1e-9)
    assert C.epsilon_result("pld", "rr", 0.1, 100, 1.0, 1e-5).epsilon == pytest.approx(float(exact), rel=1e-9)
    kov = C.epsilon_result("optimal", "gaussian", 4.0, 100, 1.0, 1e-5).epsilon
    assert round(kov) == 104 and round(float(_gaussian_epsilon(mp.mpf("0.4"), mp.mpf("1e-5")))) == 13
    assert C.epsilon_result("pld", "laplace", 10.0, 100, 1.0, 1e-5).epsilon < \
        C.epsilon_result("optimal", "laplace", 10.0, 100, 1.0, 1e-5).epsilon
    _check_choice(_fresh(PC.AccountingProblemsPanel).problems["kov_exact"], right=0)


def test_07_two_libraries_numbers():
    _check_choice(_fresh(PC.AccountingProblemsPanel).problems["two_numbers"], right=0)


def test_07_find_a_setting_where_zcdp_cannot_amplify():
    p = _fresh(PC.AccountingProblemsPanel)
    task = p.problems["setting"]
    assert task.live and not task.holds()  # the defaults: q = 1, zCDP within 10 % of PLD
    z = C.epsilon_result("zcdp", "gaussian", 4.0, 100, 1.0, 1e-5).epsilon
    assert z < 1.1 * C.epsilon_result("pld", "gaussian", 4.0, 100, 1.0, 1e-5).epsilon
    p.controls["mechanism"].value = "laplace"
    p.controls["rate"].value = 0.01
    assert not task.holds() and not task.solved  # Laplace steps are not the task's
    p.controls["mechanism"].value = "gaussian"
    assert task.holds() and task.solved and "✅" in task.feedback.value
    # independent: zCDP charges the subsampled steps in full, 100 × 1/32 = 3.125, converted at δ = 10⁻⁵
    zs = C.epsilon_result("zcdp", "gaussian", 4.0, 100, 0.01, 1e-5)
    assert zs.alternative == pytest.approx(float(mp.mpf(25) / 8 + 2 * mp.sqrt(mp.mpf(25) / 8 * mp.log(10 ** 5))))
    pld = C.epsilon_result("pld", "gaussian", 4.0, 100, 0.01, 1e-5).epsilon
    assert pld <= 1 and zs.epsilon >= 10 * pld and f"{pld:.1g}" == "0.08" and round(zs.epsilon) == 14
    # k below 100, or replace-one (no sampling there): not solved
    for control, value in (("k", 50), ("neighboring", "replace_one")):
        q = _fresh(PC.AccountingProblemsPanel)
        q.controls["rate"].value = 0.01
        assert q.problems["setting"].holds()
        q.controls[control].value = value
        assert not q.problems["setting"].holds(), control


def test_07_proof_idea_of_gaussian_composition():
    p = _fresh(PC.AccountingProblemsPanel)
    proof = p.problems["proof"]
    assert [ok for _, ok, _ in proof.options()] == [True, False, False, False]
    # the key step's fact: one Gaussian step's privacy loss (Δ = 1, σ = 4) has mean ρ and variance 2ρ
    sigma, rho = mp.mpf(4), mp.mpf(1) / 32
    loss = lambda y: ((y - 1) ** 2 - y ** 2) / (2 * sigma ** 2)  # noqa: E731  ln p_x(y)/p_x′(y), x: N(0, σ²)
    pdf = lambda y: mp.npdf(y, 0, sigma)  # noqa: E731  (x′'s answer moved by Δ = 1)
    mean = mp.quad(lambda y: loss(y) * pdf(y), [-mp.inf, mp.inf])
    var = mp.quad(lambda y: (loss(y) - mean) ** 2 * pdf(y), [-mp.inf, mp.inf])
    assert mean == pytest.approx(rho, rel=1e-20) and var == pytest.approx(2 * rho, rel=1e-20)
    proof.idea.value = "the losses are Gaussian and add up"
    assert "Thank you" in proof.check() and "N(kρ, 2kρ)" in proof.solution_box.value
    q = _fresh(PC.AccountingProblemsPanel).problems["proof"]
    q.step.index = 1
    assert "❌" in q.check() and q.options()[1][2] in q.feedback.value


# ---- nothing before an attempt, and the teacher's listing ---------------------------------------------------------

@pytest.mark.parametrize("cls", PANELS)
def test_no_widget_holds_a_solution_or_a_note_before_an_attempt(cls):
    p = _fresh(cls)
    texts = _texts(p.widget)
    secrets = []
    for prob in p.problems.problems.values():
        secrets.append(prob.solution_html())
        secrets += [prob.notes.timing, prob.notes.ask, *prob.notes.wrong]
        secrets += [fb for _, _, fb in prob.options()]
        if isinstance(prob, NumericAnswer):
            secrets += [fb for _, fb in prob.traps]
            assert not prob.accepts(prob.guess.value)
        if isinstance(prob, FindSetting):
            secrets.append(prob.hint)
        assert prob.solution_box.value == "" and prob.feedback.value == ""
    found = [(s[:60], t[:60]) for s in secrets if s and len(s) > 12 for t in texts if s in t]
    assert not found, found
    # no numeric answer is printed, except where the question gives it (lesson 07's data ratio equals σ's ratio)
    answers = [f"{prob.truth():.4g}" for prob in p.problems.problems.values() if isinstance(prob, NumericAnswer)
               and f"{prob.truth():.4g}" not in prob._question_text()]
    assert len(answers) >= 2
    shown = " ".join(_texts(p.problems.widget))
    assert not [a for a in answers if a in shown]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        static = p.static_html()
    assert all(s not in static for s in secrets if s and len(s) > 12)
    assert all(prob._question_text() in static for prob in p.problems.problems.values())
    # Show solution waits for an attempt
    for prob in p.problems.problems.values():
        if not isinstance(prob, ProofIdea):
            assert prob.show_solution() == "" and prob.solution_box.value == ""


@pytest.mark.parametrize("cls", PANELS)
def test_the_teachers_listing_has_every_solution_and_note(cls):
    entries = [e for e in teacher_entries([cls]) if e.problem_set]
    p = _fresh(cls)
    (ps,) = [ex for ex in p.exercise_list if isinstance(ex, ProblemSet)]
    assert [e.key for e in entries] == [prob.key for prob in ps.problems.values()]
    page = teacher_html(entries)
    for e, prob in zip(entries, ps.problems.values()):
        assert e.solution and e.solution == prob.solution_html() and e.solution in page
        assert e.notes == prob.notes and prob.notes.timing in page and prob.notes.ask in page
        assert all(w in page for w in prob.notes.wrong)
        assert all(fb in page for _, _, fb in prob.options())
        if isinstance(prob, NumericAnswer):
            assert all(fb in page for _, fb in prob.traps) and e.answer.startswith(f"{prob.truth():.4g}")


def test_every_citation_of_the_sets_resolves():
    from dpviz.references import REFERENCES, label

    page = teacher_html(teacher_entries(list(PANELS)))
    for key in ("dwork2010boosting", "dwork2014algorithmic", "balle2018subsampling", "ghazi2023few", "dong2022gaussian",
                "balle2018gaussian", "bun2016concentrated", "kairouz2015composition", "koskela2020fft",
                "doroshenko2022connect"):
        assert key in REFERENCES and label(key).replace("&", "&") in page.replace("&amp;", "&"), key
