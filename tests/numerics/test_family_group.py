"""Group privacy, one home (issue 13): every public entry point against an mpmath oracle of Lemma 6.

Lemma 6 of Ghazi et al. 2023 ("User-Level Differential Privacy With Few Examples Per User", NeurIPS 2023): an
(ε, δ)-DP algorithm is (kε, δ·(e^{kε} − 1)/(e^{ε} − 1))-DP for datasets differing in k records. Oracles: the lemma
evaluated in mpmath at 60 digits (in logs, so that e^{kε} beyond the double range is exact too), exact rational
products for ε, and for the item budget (the lemma's inverse) the definition itself — the lift of (ε₀, δ₀) stays
within the target and the next larger double overshoots it — checked with ``math.nextafter``.

Public entry points covered: ``dpviz.accountants.group.{group_privacy, group_privacy_lift, group_privacy_item_budget,
group_privacy_curve, group_privacy_log_factor}`` and their re-exports ``dpviz.accountants.group_privacy``,
``dpviz.userlevel.group_privacy_lift``, ``dpviz.userlevel.group_privacy_item_budget``,
``dpviz.mean.group_privacy_item_budget`` (each must *be* the one implementation).
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

import dpviz.accountants as A
import dpviz.mean as MEAN
import dpviz.userlevel as U
from dpviz.accountants import group as G

TINY = 5e-324
EPSILONS = [0.0, TINY, 1e-300, 1e-12, 1e-6, 0.01, 0.5, 1.0, 3.0, 10.0, 100.0, 699.0, 700.0, 701.0, 1e4, 1e300]
DELTAS = [0.0, TINY, 1e-310, 1e-300, 1e-12, 1e-6, 0.1, 0.5, 1 - 2**-53]
KS = [1, 2, 3, 10, 100, 10_000, 10**6]


# ----------------------------------------------------------------------------------------------- oracles


def _mp_log_factor(eps: float, k: int) -> mp.mpf:
    """ln Σ_{j<k} e^{jε} = ln((e^{kε} − 1)/(e^{ε} − 1)), ln k at ε = 0 (60 digits)."""
    with mp.workdps(60):
        e = mp.mpf(eps)
        if e == 0:
            return mp.log(k)
        return mp.log(mp.expm1(k * e)) - mp.log(mp.expm1(e))


def _mp_group(eps: float, delta: float, k: int, cap: float = 1.0) -> tuple[float, float]:
    """Lemma 6: (kε, min(cap, δ·Σ_{j<k} e^{jε})), rounded once to doubles."""
    e_k = float(Fraction(eps) * k) if eps * k < math.inf else math.inf  # exact product, rounded once
    if delta == 0:
        return e_k, 0.0
    with mp.workdps(60):
        log_d = mp.log(mp.mpf(delta)) + _mp_log_factor(eps, k)
        return e_k, float(mp.exp(min(log_d, mp.log(cap))))


def _close(got: float, want: float, rel: float = 1e-12) -> bool:
    """Within ``rel`` relatively, or within a few subnormal steps (a subnormal result has few significant bits)."""
    return abs(got - want) <= max(rel * abs(want), 4 * TINY)


# ----------------------------------------------------------------------------------------------- one home


def test_every_public_name_is_the_one_implementation():
    assert A.group_privacy is G.group_privacy
    assert A.group_privacy_mechanism is G.group_privacy_mechanism
    assert U.group_privacy_lift is G.group_privacy_lift
    assert U.group_privacy_item_budget is G.group_privacy_item_budget
    assert MEAN.group_privacy_item_budget is G.group_privacy_item_budget


def test_lift_ranges_are_those_of_dpviz_userlevel():
    from dpviz.userlevel import data as _checks

    assert G.EXAMPLES_PER_USER.high == _checks.ITEMS.high
    assert G.LIFT_EPSILON.high == _checks.EPSILON.high


# ----------------------------------------------------------------------------------------------- Lemma 6


@pytest.mark.parametrize("fn", [G.group_privacy, G.group_privacy_lift], ids=["group_privacy", "group_privacy_lift"])
def test_lemma6_against_mpmath_over_the_whole_range(fn):
    max_eps = math.inf if fn is G.group_privacy else G.LIFT_EPSILON.high
    bad = []
    for eps, delta, k in itertools.product(EPSILONS, DELTAS, KS):
        if eps > max_eps:
            continue
        got = fn(eps, delta, k)
        want = _mp_group(eps, delta, k)
        assert isinstance(got[0], float) and isinstance(got[1], float)
        if got[0] != want[0] or not _close(got[1], want[1]):
            bad.append(((eps, delta, k), got, want))
    assert bad == []


def test_lemma6_delta_factor_is_geometric_not_k():
    # the δ factor at (ε, k) = (1, 10) is Σ_{j<10} e^j ≈ 12 807, not 10
    _, d = G.group_privacy(1.0, 1e-6, 10)
    assert d == pytest.approx(1e-6 * math.fsum(math.exp(j) for j in range(10)), rel=1e-14)
    assert d > 10 * 1e-6


def test_log_factor_against_mpmath():
    for eps, k in itertools.product(EPSILONS, KS):
        got = G.group_privacy_log_factor(eps, k)
        want = float(_mp_log_factor(eps, k))
        assert abs(got - want) <= 1e-13 * max(1.0, abs(want)), (eps, k, got, want)


def test_curve_against_mpmath_uncapped_at_one():
    cap = math.exp(700.0)
    for eps, delta in itertools.product(EPSILONS, DELTAS):
        e_k, d_k, loose = G.group_privacy_curve(eps, delta, KS)
        for k, ek, dk, dl in zip(KS, e_k, d_k, loose, strict=True):
            want_e, want_d = _mp_group(eps, delta, k, cap=cap)
            assert ek == want_e and _close(float(dk), want_d), (eps, delta, k, ek, dk, want_d)
            with mp.workdps(60):  # the paper's looser form k·e^{kε}·δ, capped at e^{700} like δ′
                want_l = 0.0 if delta == 0 else float(min(mp.mpf(k) * mp.exp(k * mp.mpf(eps)) * delta, cap))
            assert _close(float(dl), want_l), (eps, delta, k, dl, want_l)
            assert dl >= dk * (1 - 1e-12)


def test_curve_crosses_one_where_the_guarantee_becomes_vacuous():
    # lesson 11: at ε = 0.5, δ = 10⁻⁶ the smallest m with δ′ ≥ 1 (oracle: first k with ln δ + ln factor ≥ 0)
    k = np.arange(1, 100)
    _, d, _ = G.group_privacy_curve(0.5, 1e-6, k)
    want = next(j for j in range(1, 100) if mp.log(mp.mpf(1e-6)) + _mp_log_factor(0.5, j) >= 0)
    assert int(k[np.argmax(d >= 1)]) == want
    assert d.max() > 1  # not capped at 1


# ----------------------------------------------------------------------------------------------- broadcasting


def test_broadcasting_path_equals_scalar_path_elementwise():
    e = np.array(EPSILONS)[:, None, None]
    d = np.array(DELTAS)[None, :, None]
    k = np.array(KS)[None, None, :]
    ek, dk = G.group_privacy(e, d, k)
    assert ek.shape == dk.shape == (len(EPSILONS), len(DELTAS), len(KS))
    for (i, eps), (j, delta), (m, kk) in itertools.product(enumerate(EPSILONS), enumerate(DELTAS), enumerate(KS)):
        assert (ek[i, j, m], dk[i, j, m]) == G.group_privacy(eps, delta, kk), (eps, delta, kk)
    lifted = G.group_privacy_lift(np.minimum(e, G.LIFT_EPSILON.high), d, k)
    assert np.array_equal(lifted[1], G.group_privacy(np.minimum(e, G.LIFT_EPSILON.high), d, k)[1])
    # the curve is the same δ′ before the cap at 1
    _, d_curve, _ = G.group_privacy_curve(e, d, k)
    assert np.array_equal(np.minimum(d_curve, 1.0), dk)
    logs = G.group_privacy_log_factor(e, k)
    assert logs.shape == (len(EPSILONS), 1, len(KS))
    assert all(logs[i, 0, m] == G.group_privacy_log_factor(eps, kk)
               for (i, eps), (m, kk) in itertools.product(enumerate(EPSILONS), enumerate(KS)))


@pytest.mark.parametrize("call, match", [
    (lambda: G.group_privacy([1.0, -1.0], 1e-6, 3), r"^epsilon = -1\.0 is"),
    (lambda: G.group_privacy(1.0, [1e-6, 1.0], 3), r"^delta = 1\.0 .*\[0, 1\)"),
    (lambda: G.group_privacy(1.0, 1e-6, [2, 2.5]), r"^k = 2\.5 .*integer >= 1"),
    (lambda: G.group_privacy(1.0, 1e-6, [1, 10**6 + 1]), r"^k = 1000001 .*<= 1000000"),
    (lambda: G.group_privacy([1.0, 2.0], 1e-6, [1, 2, 3]), "epsilon, delta and k have shapes"),
    (lambda: G.group_privacy(1.0, np.array([True]), 3), "delta is a boolean array"),
    (lambda: G.group_privacy_lift(1.0, 1e-6, G.EXAMPLES_PER_USER.high + 1), r"^m = 10000001 .*<= 10000000"),
    (lambda: G.group_privacy_lift(501.0, 1e-6, 2), r"^epsilon = 501\.0 .*\[0, 500\]"),
    (lambda: G.group_privacy_item_budget(0.0, 1e-6, 2), "^epsilon = 0.0"),
    (lambda: G.group_privacy_item_budget(1.0, 1e-6, 0), "^m = 0"),
    (lambda: G.group_privacy_log_factor(1.0, [0, 1]), r"^k = 0 is"),
])
def test_bad_arguments_are_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ----------------------------------------------------------------------------------------------- the inverse


def _check_inverse(budget, eps: float, delta: float, m: int) -> None:
    """(ε₀, δ₀) = budget(ε, δ, m) must be the largest doubles whose lift by group_privacy stays within (ε, δ)."""
    e0, d0 = budget(eps, delta, m)
    ek, dk = G.group_privacy(e0, d0, m)
    assert ek <= eps and dk <= delta, "the lift exceeds the target"
    assert G.group_privacy(math.nextafter(e0, math.inf), d0, m)[0] > eps, "a larger ε₀ would still fit"
    d_next = math.nextafter(d0, 1.0)  # δ = 1 is no guarantee: a δ₀ just below 1 has no feasible successor
    assert d_next == 1.0 or G.group_privacy(e0, d_next, m)[1] > delta, "a larger δ₀ would still fit"
    # ... so the lift gives back the target to the last bit or one ulp below it (the lift is a staircase)
    assert ek >= math.nextafter(eps, 0.0)
    if d0 >= 2.2250738585072014e-308:  # δ₀ a normal double: δ′ = δ or its predecessor
        assert dk >= math.nextafter(delta, 0.0)
    # and δ₀ is the closed-form inverse of Lemma 6 at this ε₀ (mpmath), ε₀ = ε/m to within one rounding
    assert abs(Fraction(e0) - Fraction(eps) / m) <= Fraction(math.ulp(eps / m))
    with mp.workdps(60):
        want = float(mp.exp(mp.log(mp.mpf(delta)) - _mp_log_factor(e0, m))) if delta > 0 else 0.0
    assert _close(d0, want, rel=1e-12), (d0, want)


INVERSE_CASES = list(itertools.product(
    [1e-12, 1e-6, 0.01, 0.1, 1.0, 3.0, 10.0, 100.0, 1e4, 1e300],
    [0.0, TINY, 1e-310, 1e-300, 1e-12, 1e-6, 0.1, 0.5, 1 - 2**-53],
    [1, 2, 3, 10, 49, 1000, 10**6],
))


def test_item_budget_is_the_exact_inverse_of_lemma6():
    for eps, delta, m in INVERSE_CASES:
        _check_inverse(G.group_privacy_item_budget, eps, delta, m)


def test_item_budget_lesson_numbers():
    # (ε, δ, m) = (1, 10⁻⁶, 10): δ₀ = 10⁻⁶·(e^{0.1} − 1)/(e − 1) ≈ 6.12·10⁻⁸ (the looser m·e^{(m−1)ε/m} gave 4.07·10⁻⁸)
    e0, d0 = U.group_privacy_item_budget(1.0, 1e-6, 10)
    with mp.workdps(40):
        want = float(mp.mpf(1e-6) * mp.expm1(mp.mpf(0.1)) / mp.expm1(1))
        loose = float(mp.mpf(1e-6) / (10 * mp.exp(mp.mpf(0.9))))
    assert e0 == 0.1 and d0 == pytest.approx(want, rel=1e-15)
    assert f"{d0:.3g}" == "6.12e-08" and f"{loose:.3g}" == "4.07e-08"
    assert G.group_privacy(e0, d0, 10) == (1.0, 1e-6)


@pytest.mark.parametrize("lesson", ["11_items_to_users", "14_few_examples"])
def test_lessons_state_the_numbers_the_code_gives(lesson):
    """Lessons 11 and 14 quote the item budget at (1, 10⁻⁶, 10): the prose must show what the one definition gives
    (δ_item ≈ 6.12·10⁻⁸, not the looser 4.07·10⁻⁸, which lesson 11 names as such)."""
    nb = json.loads((Path(__file__).resolve().parents[2] / "notebooks" / f"{lesson}.ipynb").read_text("utf-8"))
    prose = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    e0, d0 = G.group_privacy_item_budget(1.0, 1e-6, 10)
    mant, exp = f"{d0:.2e}".split("e")
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    # the course notation (notebooks/notation.ipynb): ε_item, δ_item for the item-level budget
    assert f"δ<sub>item</sub> ≈ {mant}·10{str(int(exp)).translate(sup)}" in prose  # δ_item ≈ 6.12·10⁻⁸
    assert "δ<sub>item</sub> = δ·(e<sup>ε/m</sup> − 1)/(e<sup>ε</sup> − 1)" in prose and "Lemma 6" in prose
    if lesson == "11_items_to_users":
        assert f"ε<sub>item</sub> = {e0:g}" in prose and "δ<sub>item</sub> ≈ 4.07·10⁻⁸" in prose  # the looser form


def test_the_inverse_check_rejects_the_looser_form():
    """The oracle can fail: lesson 12's old δ₀ = δ/(m·e^{(m−1)ε/m}) is valid but not the largest δ₀."""
    def looser(eps, delta, m):
        e0 = eps / m
        return e0, delta / (m * math.exp((m - 1) * e0))

    _check_inverse(looser, 1.0, 1e-6, 1)  # m = 1: both forms are δ
    with pytest.raises(AssertionError, match="a larger δ₀ would still fit"):
        _check_inverse(looser, 1.0, 1e-6, 10)


def test_the_inverse_check_rejects_a_rounded_up_budget():
    def one_ulp_too_big(eps, delta, m):
        e0, d0 = G.group_privacy_item_budget(eps, delta, m)
        return e0, math.nextafter(d0, 1.0)

    with pytest.raises(AssertionError, match="the lift exceeds the target"):
        _check_inverse(one_ulp_too_big, 1.0, 1e-6, 10)


def test_log_item_delta_kernel_against_mpmath():
    """The unchecked closed-form inverse that dpviz.userlevel evaluates over whole axes of m (real m allowed)."""
    m = np.array([1.0, 2.0, 10.0, 37.5, 1e3, 1e6, 1e12])
    for eps, delta in itertools.product([1e-6, 0.5, 1.0, 10.0, 1e3], [TINY, 1e-300, 1e-6, 0.5]):
        got = G._log_item_delta(eps / m, delta, m)
        with mp.workdps(60):
            want = [mp.log(mp.mpf(delta)) - mp.log(mp.expm1(mp.mpf(eps))) + mp.log(mp.expm1(mp.mpf(eps / mm)))
                    for mm in m]
        assert np.allclose(got, [float(w) for w in want], rtol=1e-12, atol=1e-12), (eps, delta)
