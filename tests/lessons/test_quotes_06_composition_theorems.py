"""Lesson-quote tests of lesson 06 "Composition theorems": every number the prose states in the part written for review
finding G-2 (amplification by subsampling as a theorem, stated and drawn) is computed here with the library's one
home of the formula (:func:`dpviz.accountants.amplify_poisson`) and must appear in the prose as printed; the claims
that are not numbers (the statement, the tightness example, which accountant uses the theorem how) are checked
against the code or an exact computation.
"""

from __future__ import annotations

import math

import pytest
from _lesson_text import flat, prose

from dpviz import accountants as A
from dpviz import mechanisms as M
from dpviz.accountants import compare as C
from dpviz.panels import composition as PC

LESSON = "06_composition_theorems"
TEXT = flat(prose(LESSON))


def _says(fragment: str) -> None:
    assert flat(fragment) in TEXT, f"lesson 06 does not say: {fragment!r}"


def _section(title: str) -> str:
    start = TEXT.index(title)
    nxt = TEXT.find(" ## ", start + len(title))
    return TEXT[start:nxt if nxt >= 0 else len(TEXT)]


AMP = _section("## Amplification by subsampling")


def test_the_theorem_is_stated_with_its_source_and_relation():
    assert "**Theorem** (Balle, Barthe & Gaboardi 2018, Thm 8; first shown by Li, Qardaji & Su 2012)" in AMP
    assert "ε′ = ln(1 + q(e<sup>ε</sup> − 1)), δ′ = qδ." in AMP and "under add/remove neighbours" in AMP
    # the formula the lesson states is the library's, at any (ε, δ, q)
    for eps, delta, q in ((0.3, 1e-6, 0.2), (2.0, 0.0, 0.05)):
        e2, d2 = A.amplify_poisson(eps, delta, q)
        assert e2 == pytest.approx(math.log(1 + q * math.expm1(eps)), rel=1e-14) and d2 == q * delta


def test_the_proof_idea_adds_up_to_the_theorem():
    assert ("P[M(sample of x′) ∈ S] ≤ (1 − q)P + q(e<sup>ε</sup>P + δ) = (1 + q(e<sup>ε</sup> − 1))·P + qδ." in AMP)
    # the algebra of the mixture step, at a few values
    for eps, q, p, d in ((1.0, 0.1, 0.3, 1e-3), (4.0, 0.5, 0.01, 0.0)):
        assert (1 - q) * p + q * (math.exp(eps) * p + d) == pytest.approx((1 + q * math.expm1(eps)) * p + q * d)


def test_the_tightness_example_reaches_the_bound():
    assert "randomized response with parameter ε on the bit \"is r in the sample?\"" in AMP
    for eps, q in ((1.0, 0.01), (0.2, 0.7)):
        rr = M.RandomizedResponse(eps)
        without = float(rr.pmf(1, value=0))
        with_r = q * float(rr.pmf(1, value=1)) + (1 - q) * without
        assert math.log(with_r / without) == pytest.approx(A.amplify_poisson(eps, 0.0, q)[0], rel=1e-12)


def test_the_regime_numbers():
    small = A.amplify_poisson(0.1, 0.0, 0.01)[0]
    above = small / (0.01 * 0.1) - 1
    _says(f"At ε = 0.1 and q = 0.01, ε′ = {small:.3g}, {above * 100:.0f} % above q·ε: the step is about "
          f"{0.1 / small:.0f} times cheaper, close to 1/q = 100.")
    large = A.amplify_poisson(10.0, 0.0, 0.01)[0]
    _says(f"At ε = 10 and q = 0.01, ε′ = {large:.2f}, not {0.01 * 10:g}.")
    # "ε′ ≈ ε − ln(1/q) once q·e^ε ≫ 1": at ε = 10, q = 0.01, q·e^ε = 220
    assert 0.01 * math.exp(10) > 100 and large == pytest.approx(10 - math.log(100), abs=0.01)
    _says("once q·e<sup>ε</sup> ≫ 1, ε′ ≈ ε − ln(1/q)")


def test_replace_one_and_the_lab_agree():
    _says("The replace-one analogue draws m of the n records without replacement, with the same formula at q = m/n "
          "(Balle, Barthe & Gaboardi 2018, Thm 9).")
    assert A.amplify_without_replacement(1.0, 1e-6, 10, 100) == A.amplify_poisson(1.0, 1e-6, 0.1)
    # "the lab samples no Poisson subset under replace-one (its q slider hides)"
    p = PC.CompositionLabPanel().refresh()
    p.controls["neighboring"].value = "replace_one"
    assert p.controls["rate"].layout.display == "none"


def test_which_accountant_uses_the_theorem_how():
    _says("zCDP cannot express amplification and charges every step in full.")
    # zCDP charges a subsampled Gaussian step in full: the same ε at q = 0.01 as at q = 1
    full = C.epsilon_result("zcdp", "gaussian", 4.0, 10, 1.0, 1e-5).epsilon
    sampled = C.epsilon_result("zcdp", "gaussian", 4.0, 10, 0.01, 1e-5).epsilon
    assert sampled == pytest.approx(full, rel=1e-12)
    _says("For Laplace and randomized response steps, every accountant but PLD uses this theorem's ε′.")
    # basic composition of k subsampled Laplace steps is k times the amplified ε of one (Laplace: pure ε = 1/b)
    basic = C.epsilon_result("basic", "laplace", 10.0, 10, 0.01, 1e-5).epsilon
    assert basic == pytest.approx(10 * A.amplify_poisson(0.1, 0.0, 0.01)[0], rel=1e-12)


def test_the_exercise_values_and_the_answer_not_in_the_prose():
    truth = PC._answer_amplification()
    assert truth == A.amplify_poisson(5.0, 0.0, 0.01)[0]
    for form in (f"{truth:.3g}", f"{truth:.2f}", f"{truth:.4g}"):
        assert form not in TEXT, form
    _says("**Predict, then reveal**: answer the exercise under the panel before you move the sliders.")


def test_objectives_symbols_and_summary():
    _says("3. state amplification by subsampling, ε′ = ln(1 + q(e<sup>ε</sup> − 1)) and δ′ = qδ")
    _says("ε′ and δ′ are the guarantee after subsampling, δ<sub>slack</sub> the extra δ of advanced composition.")
    assert "ln(1/δ′)" not in TEXT  # δ′ is the amplified δ only (the advanced slack has its own name)
    summary = _section("## Summary")
    assert ("(ln(1 + q(e<sup>ε</sup> − 1)), qδ)-DP under add/remove neighbours (Balle, Barthe & Gaboardi 2018, Thm 8)"
            in summary)
    assert "Li, Qardaji & Su 2012" in summary
