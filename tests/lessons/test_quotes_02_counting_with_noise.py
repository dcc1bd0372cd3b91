"""Lesson-quote tests of ``notebooks/02_counting_with_noise.ipynb``: every number and formula the lesson's prose
states about post-processing, consistency and local DP is recomputed here, with the library and with an independent
exact oracle (rational arithmetic, mpmath, brute force), and the prose must state it as computed."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from _lesson_text import flat, prose

from dpviz import local as L
from dpviz import sensitivity as S

TEXT = flat(prose("02_counting_with_noise"))
SLIDER = np.round(np.arange(0.1, 4.0 + 1e-9, 0.05), 2)  # the ε slider of the lesson's panels


def _rounded_mse_mp(b):
    """E[(round(N))²] for N ~ Lap(b) by summing the series Σ 2j²·P[round(N) = j] at 50 digits (no closed form)."""
    mpmath.mp.dps = 50
    b = mpmath.mpf(b)
    return mpmath.nsum(lambda j: 2 * j**2 * (mpmath.exp(-(j - 0.5) / b) - mpmath.exp(-(j + 0.5) / b)) / 2,
                       [1, mpmath.inf])


# ------------------------------------------------------------------------------------------ Laplace and clamping
def test_the_variance_of_laplace_is_cited_to_its_definition_not_to_the_privacy_theorem():
    assert "variance is 2b² (Dwork & Roth 2014, Def. 3.3)" in TEXT
    assert "(2b² is the variance of Lap(b); Dwork & Roth 2014, Def. 3.3)" in TEXT
    assert "noise variance of Laplace; Dwork & Roth 2014, Thm 3.6" not in TEXT
    mpmath.mp.dps = 30
    b = mpmath.mpf(3) / 7
    assert mpmath.quad(lambda y: y * y * mpmath.exp(-abs(y) / b) / (2 * b), [-mpmath.inf, 0, mpmath.inf]) \
        == pytest.approx(float(2 * b * b), rel=1e-25)


def test_clamping_formula_and_its_value_at_zero():
    assert "2b² − e<sup>−t/b</sup>·b(t + b): at t = 0 it is b², half the 2b² of the raw answer" in TEXT
    for b in (0.25, 1.0, 10.0):
        assert S.clamped_laplace_mse(0.0, b) == pytest.approx(b * b, rel=1e-15)
        for t in (0.5, 3.0):  # the formula against E[(max(t + N, 0) − t)²] by quadrature
            mpmath.mp.dps = 30
            bb, tt = mpmath.mpf(b), mpmath.mpf(t)
            def integrand(y, tt=tt, bb=bb):
                return (max(tt + y, 0) - tt) ** 2 * mpmath.exp(-abs(y) / bb) / (2 * bb)

            exact = mpmath.quad(integrand, [-mpmath.inf, -tt, 0, mpmath.inf])
            assert S.clamped_laplace_mse(t, b) == pytest.approx(float(exact), rel=1e-12)


# ------------------------------------------------------------------------------------------ rounding
def test_rounding_raises_the_error_at_every_epsilon_of_the_slider():
    """"Rounding a count to an integer raises it at every ε from 0.1 to 4"; the exercise asks it first."""
    assert "Rounding a count to an integer raises it at every ε from 0.1 to 4" in TEXT
    assert "Does rounding ever help here?" in TEXT and "Where does clamping stop helping?" in TEXT
    for eps in SLIDER:
        b = 1.0 / eps
        assert S.rounded_laplace_mse(b) > 2 * b * b, eps


def test_rounding_percentages_at_epsilon_one_and_four():
    """"by 3.8 % at ε = 1 and by 14 % at ε = 4", from the library and from the series at 50 digits."""
    assert "(by 3.8 % at ε = 1 and by 14 % at ε = 4)" in TEXT
    for eps, shown, digits in ((1.0, "3.8", 1), (4.0, "14", 0)):
        b = 1.0 / eps
        lib = 100 * (S.rounded_laplace_mse(b) / (2 * b * b) - 1)
        oracle = 100 * (float(_rounded_mse_mp(b)) / (2 * b * b) - 1)
        assert lib == pytest.approx(oracle, rel=1e-12)
        assert f"{lib:.{digits}f}" == shown


def test_rounding_helps_only_above_the_breakeven_epsilon():
    """"it helps only for ε above 5.35": the root of rounded MSE = 2b² in b = 1/ε, by mpmath on the series."""
    assert "it helps only for ε above 5.35" in TEXT
    eps_star = 1.0 / S.rounding_breakeven_scale()
    assert f"{eps_star:.2f}" == "5.35"
    mpmath.mp.dps = 30
    root = mpmath.findroot(lambda e: _rounded_mse_mp(1 / e) - 2 / e**2, 5.35)
    assert eps_star == pytest.approx(float(root), rel=1e-10)
    for eps in np.linspace(eps_star * 1.001, 60.0, 200):
        b = 1.0 / eps
        assert S.rounded_laplace_mse(b) < 2 * b * b
    for eps in np.linspace(0.01, eps_star * 0.999, 200):
        b = 1.0 / eps
        assert S.rounded_laplace_mse(b) > 2 * b * b


# ------------------------------------------------------------------------------------------ the consistent histogram
def _hierarchy_delta(bins, relation):
    """Brute-force L1 sensitivity of (total, bin counts) over data sets of ≤ 3 records with values in 0..bins−1."""
    best = 0
    for n in range(0, 4):
        for x in itertools.product(range(bins), repeat=n):
            nbs = []
            if relation == "add_remove":
                nbs += [x + (y,) for y in range(bins)] + [x[:i] + x[i + 1:] for i in range(n)]
            else:
                nbs += [x[:i] + (y,) + x[i + 1:] for i in range(n) for y in range(bins)]
            for nb in nbs:
                a = [len(x)] + [x.count(v) for v in range(bins)]
                c = [len(nb)] + [nb.count(v) for v in range(bins)]
                best = max(best, sum(abs(u - w) for u, w in zip(a, c)))
    return best


def test_the_hierarchy_needs_delta_two_under_add_remove():
    """"each person is counted in the total and in one bin, so Δ = 2"; the bins alone have Δ = 1; under replace the
    total does not move (n is public) and the bins have Δ = 2."""
    assert "so Δ = 2 and each of the B + 1 counts gets Lap(2/ε)" in TEXT
    assert "then Δ = 1, each bin gets Lap(1/ε), and a range of r bins has variance 2r/ε²" in TEXT
    for bins in (2, 3):
        assert _hierarchy_delta(bins, "add_remove") == 2
        assert S.histogram_sensitivity("add_remove") == 1.0 and S.histogram_sensitivity("replace") == 2.0


def _inverse_exact(m):
    n = len(m)
    a = [list(row) + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(m)]
    for c in range(n):
        piv = next(i for i in range(c, n) if a[i][c] != 0)
        a[c], a[piv] = a[piv], a[c]
        a[c] = [v / a[c][c] for v in a[c]]
        for i in range(n):
            if i != c and a[i][c] != 0:
                a[i] = [vi - a[i][c] * vc for vi, vc in zip(a[i], a[c])]
    return [row[n:] for row in a]


@pytest.mark.parametrize("bins", range(1, 13))
def test_consistent_variance_and_where_it_beats_the_bins_alone_exactly(bins):
    """8r(B + 1 − r)/((B + 1)ε²) from (AᵀA)⁻¹·8/ε² in rational arithmetic (ε = 1: the formulas scale as 1/ε²),
    against 2r/ε²: worse exactly when r < ¾(B + 1), equal at r = ¾(B + 1)."""
    assert "After least squares it is 8r(B + 1 − r)/((B + 1)ε²)" in TEXT
    assert "The consistent hierarchy is *worse* whenever r < ¾(B + 1)" in TEXT
    ata = [[Fraction(1 + (i == j)) for j in range(bins)] for i in range(bins)]  # 11ᵀ + I
    cov = [[8 * v for v in row] for row in _inverse_exact(ata)]  # each count Lap(2/ε): variance 8/ε²
    for r in range(1, bins + 1):
        hier = sum(cov[i][j] for i in range(r) for j in range(r))
        assert hier == Fraction(8 * r * (bins + 1 - r), bins + 1)
        alone = Fraction(2 * r)
        assert (hier > alone) == (r < Fraction(3, 4) * (bins + 1))
        assert (hier == alone) == (r == Fraction(3, 4) * (bins + 1))
        assert S.hierarchy_range_variance(bins, r, 8.0) == pytest.approx(float(hier), rel=1e-14)
        assert S.raw_range_variance(bins, r, 2.0) == float(alone)


def test_with_eight_bins_the_hierarchy_wins_only_for_seven_or_eight():
    assert "with B = 8 bins it wins only for ranges of 7 or 8 bins" in TEXT
    eps = 0.7
    r = np.arange(1, 9)
    hier = S.hierarchy_range_variance(8, r, 2 * S.laplace_scale(2.0, eps) ** 2)
    alone = S.raw_range_variance(8, r, 2 * S.laplace_scale(1.0, eps) ** 2)
    assert r[hier < alone].tolist() == [7, 8]


@pytest.mark.parametrize("bins", range(1, 9))
def test_with_a_public_total_least_squares_lowers_every_range(bins):
    """"least squares lowers every range's variance, to 8r(B − r)/(Bε²) from 8r/ε²": the projection onto Σx = n
    (public), I − 11ᵀ/B, in rational arithmetic; its covariance times 8/ε² (ε = 1)."""
    assert "least squares lowers every range's variance, to 8r(B − r)/(Bε²) from 8r/ε²" in TEXT
    proj = [[Fraction(int(i == j)) - Fraction(1, bins) for j in range(bins)] for i in range(bins)]
    cov = [[8 * sum(proj[i][t] * proj[j][t] for t in range(bins)) for j in range(bins)] for i in range(bins)]
    for r in range(1, bins + 1):
        exact = sum(cov[i][j] for i in range(r) for j in range(r))
        assert exact == Fraction(8 * r * (bins - r), bins) and exact <= 8 * r
        assert S.hierarchy_range_variance(bins, r, 8.0, 0.0) == pytest.approx(float(exact), abs=1e-13)


def test_the_summary_restricts_the_consistency_claim():
    assert "only for ranges of more than ¾(B + 1) bins, unless the total is public, as under replace-one" in TEXT
    assert "a consistent histogram answers range queries more precisely" not in TEXT
    assert "never more than either raw answer of the *same* release" in TEXT


# ------------------------------------------------------------------------------------------ local against central
def _people_mp(k, eps, f, n):
    mpmath.mp.dps = 50
    e = mpmath.exp(mpmath.mpf(eps))
    p, q = e / (e + k - 1), 1 / (e + k - 1)
    v1 = (q * (1 - q) + f * (p - q) * (1 - p - q)) / (p - q) ** 2
    return v1 * (mpmath.mpf(eps) * n) ** 2 / 2


@pytest.mark.parametrize("eps,shown", [(1.0, "460,337 people for n = 1,000 at ε = 1"),
                                       (0.1, "499,584 at ε = 0.1"), (4.0, "(152,044 at ε = 4)")])
def test_people_needed_with_binary_randomized_response(eps, shown):
    """The panel rounds up (a head count); binary RR's variance does not depend on f (1 − p − q = 0)."""
    assert shown in TEXT
    need = L.people_needed_local("krr", 1000, 2, eps, 0.1)
    assert need == pytest.approx(float(_people_mp(2, eps, 0.1, 1000)), rel=1e-13)
    assert need == L.people_needed_local("krr", 1000, 2, eps, 0.0)
    assert f"{math.ceil(need):,}" in shown


def test_about_half_n_squared_for_epsilon_up_to_one():
    """"about n²/2 people for ε ≤ 1: with binary randomized response between 0.46n² and 0.5n²": the ratio is
    ½((ε/2)/sinh(ε/2))², decreasing from ½ (ε → 0) to 0.4603 at ε = 1; ε cancels, unlike the old n²ε²."""
    assert "takes about n²/2 people for ε ≤ 1: with binary randomized response between 0.46n² and 0.5n²" in TEXT
    assert "n²ε²" not in TEXT
    ratios = [L.people_needed_local("krr", 1000, 2, e, 0.0) / 1000**2 for e in np.linspace(1e-6, 1.0, 400)]
    assert all(0.46 <= x < 0.5 for x in ratios) and np.all(np.diff(ratios) < 0)
    assert ratios[-1] == pytest.approx(0.5 * (0.5 / math.sinh(0.5)) ** 2, rel=1e-13)
    assert f"{ratios[-1]:.2f}" == "0.46"


def test_more_people_for_krr_with_many_values():
    assert "more for k-RR with many values (about 2.0·10⁷ at K = 100, ε = 1 and f = 0.1)" in TEXT
    need = L.people_needed_local("krr", 1000, 100, 1.0, 0.1)
    assert need == pytest.approx(float(_people_mp(100, 1.0, 0.1, 1000)), rel=1e-13)
    assert f"{need / 1e7:.1f}" == "2.0"


def test_central_error_is_sqrt2_over_epsilon():
    assert "error growing like √n/ε against √2/ε" in TEXT
    for eps in (0.1, 1.0, 4.0):
        assert L.central_count_std(eps) == pytest.approx(math.sqrt(2) / eps, rel=1e-15)


# ------------------------------------------------------------------------------------------ citations and notation
def test_krr_is_credited_to_kairouz_oh_viswanath_and_uses_the_course_K():
    assert "(k-RR; Kairouz, Oh & Viswanath 2014) answers one of K possible values" in TEXT
    assert "the k of its name is this K" in TEXT
    assert "p = e<sup>ε</sup>/(e<sup>ε</sup> + K − 1)" in TEXT and "k − 1" not in TEXT
    assert "who analyse k-RR as \"direct encoding\"" in TEXT
    assert "this q is not the sampling rate q of later lessons" in TEXT
    p, q = L.krr_probabilities(5, 1.2)
    assert p == pytest.approx(math.exp(1.2) / (math.exp(1.2) + 4), rel=1e-15)
    assert q == pytest.approx(1 / (math.exp(1.2) + 4), rel=1e-15)


def test_parallel_composition_is_mcsherry_2009():
    assert "(McSherry 2009, Thm 2)" in TEXT and "McSherry (2009), *Privacy Integrated Queries*, SIGMOD" in TEXT
    assert "McSherry 2010" not in TEXT and "McSherry (2010)" not in TEXT
