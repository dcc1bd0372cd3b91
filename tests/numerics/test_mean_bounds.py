"""Closed forms of 004 in :mod:`dpviz.mean.bounds` against mpmath oracles, and their one home (issue 13).

The Theorem 1 MSE map of the fixed-budget panel (lesson 12) used to be re-derived inside the panel; it is now
:func:`dpviz.mean.wme_mse_bound`, checked here against the formula evaluated in 50-digit arithmetic on the panel's own
(non-integer) grid, and against the scalar functions at integers.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import dpviz.mechanisms
from dpviz import mean as MM
from dpviz.accountants import advanced

mp.mp.dps = 50


def _oracle_mse(variance, n, m, eps, bound, gamma):
    """Var/(nm) + 128τ²/(n²ε²) + min{1, γ + (B/τ)e^{−nε/8}}·(2B)², τ = B√(2 ln(2n/γ)/m) (004 Thm 1, Hoeffding τ)."""
    n, m, eps, bound, gamma, variance = (mp.mpf(x) for x in (n, m, eps, bound, gamma, variance))
    tau = bound * mp.sqrt(2 * mp.log(2 * n / gamma) / m)
    beta = mp.mpf(1) if gamma + bound / tau * mp.exp(-n * eps / 8) >= 1 else gamma + bound / tau * mp.exp(-n * eps / 8)
    return variance / (n * m) + 128 * tau ** 2 / (n * eps) ** 2 + beta * (2 * bound) ** 2


def test_theorem_calculators_live_in_bounds_and_sigma_in_mechanisms():
    for name in ("tau_paper", "tau_safe", "theorem1_beta", "theorem2_beta", "theorem8_floor", "theorem10_budget",
                 "theorem10_variance_bound", "corollary1_mse_bound", "highd_parameters", "crossover_m",
                 "advanced_composition_epsilon", "wme_mse_bound"):
        assert getattr(MM, name).__module__ == "dpviz.mean.bounds", name
    # the textbook σ has one home: dpviz.mean re-exports the mechanisms' function, it is not a copy
    assert MM.classic_gaussian_sigma is dpviz.mechanisms.classic_gaussian_sigma


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_wme_mse_bound_on_the_panel_grid_matches_the_oracle(eps):
    log_n = np.linspace(1, 5, 17)
    log_m = np.linspace(0, 4, 13)
    got = MM.wme_mse_bound(0.96, 10.0 ** log_n[None, :], 10.0 ** log_m[:, None], eps, 1.0, 0.01)
    assert got.shape == (13, 17)
    for i, lm in enumerate(log_m):
        for j, ln in enumerate(log_n):
            want = float(_oracle_mse(0.96, mp.mpf(10) ** ln, mp.mpf(10) ** lm, eps, 1.0, 0.01))
            assert got[i, j] == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("n,m,eps,bound,gamma", [(10, 1, 0.1, 1.0, 0.01), (1000, 100, 1.0, 1.0, 0.01),
                                                 (50, 7, 2.0, 3.0, 0.2), (10**6, 10**4, 0.5, 1e-3, 1e-9)])
def test_wme_mse_bound_at_integers_is_the_scalar_path(n, m, eps, bound, gamma):
    tau = MM.tau_safe(bound, m, n, gamma)
    scalar = (MM.wme_mse(0.5, n, m, eps, tau) + MM.theorem1_beta(n, eps, tau, bound, gamma) * (2 * bound) ** 2)
    assert MM.wme_mse_bound(0.5, n, m, eps, bound, gamma) == pytest.approx(scalar, rel=1e-14)
    assert MM.wme_mse_bound(0.5, n, m, eps, bound, gamma) == pytest.approx(
        float(_oracle_mse(0.5, n, m, eps, bound, gamma)), rel=1e-12)


@pytest.mark.parametrize("budget", [1e3, 1e5, 1e7])
@pytest.mark.parametrize("eps", [0.1, 1.0, 10.0])
def test_best_budget_split_is_the_oracle_argmin_on_its_line(budget, eps):
    ln = np.linspace(1.0, 5.0, 400)
    lm = math.log10(budget) - ln
    ok = (lm >= 0.0) & (lm <= 4.0)
    vals = [_oracle_mse(0.96, mp.mpf(10) ** a, mp.mpf(10) ** b, eps, 1.0, 0.01) for a, b in zip(ln[ok], lm[ok])]
    k = min(range(len(vals)), key=vals.__getitem__)
    assert MM.best_budget_split(budget, 0.96, eps) == (pytest.approx(ln[ok][k], abs=0), pytest.approx(lm[ok][k], abs=0))


def test_best_budget_split_outside_the_box_and_bad_ranges():
    assert MM.best_budget_split(1e10, 0.96, 1.0) is None  # n·m = 10¹⁰ misses [10, 10⁵] × [1, 10⁴]
    with pytest.raises(ValueError, match="log_n_range"):
        MM.best_budget_split(1e5, 0.96, 1.0, log_n_range=(5.0, 1.0))
    with pytest.raises(ValueError, match="budget"):
        MM.best_budget_split(-1.0, 0.96, 1.0)


def test_wme_mse_bound_refuses_counts_below_one_and_results_beyond_the_double_range():
    with pytest.raises(ValueError, match="n = 0.5"):
        MM.wme_mse_bound(0.96, [10.0, 0.5], 10.0, 1.0)
    with pytest.raises(ValueError, match="double range"):
        MM.wme_mse_bound(0.96, 10.0, 10.0, 5e-324)


@pytest.mark.parametrize("e0", [1e-6, 1e-3, 0.1, 1.0, 5.0])
@pytest.mark.parametrize("k", [1, 10, 10**4])
@pytest.mark.parametrize("dp", [1e-300, 1e-10, 1e-5, 0.5])
def test_advanced_composition_epsilon_matches_the_drv_oracle(e0, k, dp):
    # ε̄ = k ε₀ (e^{ε₀} − 1) + √(2k ln(1/δ′)) ε₀ (Dwork, Rothblum & Vadhan 2010, Thm III.3), 50 digits
    want = k * mp.mpf(e0) * mp.expm1(e0) + mp.sqrt(2 * k * mp.log(1 / mp.mpf(dp))) * mp.mpf(e0)
    assert MM.advanced_composition_epsilon(e0, k, dp) == pytest.approx(float(want), rel=1e-13)
    # one implementation: the accountants' function with (ε₀, k) as lists gives the same number
    assert MM.advanced_composition_epsilon(e0, k, dp) == advanced.drv_epsilon([e0], [k], dp)


def test_advanced_composition_epsilon_beyond_the_double_range_is_a_value_error():
    with pytest.raises(ValueError, match="double range"):
        MM.advanced_composition_epsilon(800.0, 1, 1e-5)  # e^{800} − 1 overflows


# ----------------------------------------------------------------------------------------------- 003's closed forms


@pytest.mark.parametrize("n", [1.0, 3.5, 10.0, 1e3, 1e5])
@pytest.mark.parametrize("d,eps,a,r", [(1, 1.0, 0.1, 1.0), (100, 0.3, 0.03, 2.0), (10**4, 5.0, 0.3, 0.5)])
def test_corollary8_samples_solves_each_term_of_corollary8_for_m(n, d, eps, a, r):
    # r√d/(εn√m) = a ⇔ m = r²d/(ε²n²a²); r/√(mn) = a ⇔ m = r²/(na²); at least one sample
    want = max(mp.mpf(r) ** 2 * d / (mp.mpf(eps) ** 2 * mp.mpf(n) ** 2 * mp.mpf(a) ** 2),
               mp.mpf(r) ** 2 / (mp.mpf(n) * mp.mpf(a) ** 2), 1)
    assert MM.corollary8_samples(n, d, eps, a, r) == pytest.approx(float(want), rel=1e-14)
    if float(n).is_integer() and float(want).is_integer() is False and want > 1:
        # the Cor 8 error at ⌈m⌉ samples is at most 2a (each term ≤ a)
        assert MM.corollary8_error(int(n), math.ceil(float(want)), d, eps, r) <= 2 * a * (1 + 1e-12)


def test_corollary8_samples_broadcasts_like_the_scalar_calls():
    ns = np.logspace(0, 5, 11)
    assert MM.corollary8_samples(ns, 50, 1.0, 0.1).tolist() == [MM.corollary8_samples(x, 50, 1.0, 0.1) for x in ns]


@pytest.mark.parametrize("n,eps,delta", [(10, 1.0, 1e-6), (1000, 0.1, 1e-10), (3, 2.0, 0.5)])
def test_levy_max_dimension_inverts_levy_users_required(n, eps, delta):
    want = (mp.mpf(eps) * n / -mp.log(mp.mpf(delta))) ** 2
    d_star = MM.levy_max_dimension(n, eps, delta)
    assert d_star == pytest.approx(float(want), rel=1e-13)
    if d_star >= 1:  # the largest integer d is still inside 004's regime, the next one is not
        assert MM.levy_users_required(math.floor(d_star), eps, delta) <= n * (1 + 1e-12)
    assert MM.levy_users_required(math.floor(d_star) + 1, eps, delta) > n


@pytest.mark.parametrize("m,d,r,c", [(100, 2, 1.0, 10.0), (25, 16, 0.3, 1.0), (1, 1, 2.0, 10.0)])
def test_theorem7_guarantee(m, d, r, c):
    want = mp.mpf(c) * r / mp.sqrt(m) * (1 + mp.sqrt(d))
    assert MM.theorem7_guarantee(m, d, r, c) == pytest.approx(float(want), rel=1e-14)


@pytest.mark.parametrize("n,m,eps,delta,bound,d", [(10_000, 10, 1.0, 1e-6, 1.0, 16), (7, 3, 0.1, 0.3, 5.0, 1),
                                                   (1, 1, 1e-3, 5e-324, 1e-100, 2)])
def test_naive_gaussian_mse_is_the_textbook_sigma_squared(n, m, eps, delta, bound, d):
    # Var/(nm) + d·σ², σ = (2B/n)√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1), 50 digits
    want = (mp.mpf(0.5) / (n * m)
            + d * 8 * mp.mpf(bound) ** 2 * mp.log(mp.mpf(1.25) / mp.mpf(delta)) / (n * mp.mpf(eps)) ** 2)
    assert MM.naive_gaussian_mse(0.5, n, m, eps, delta, bound, d) == pytest.approx(float(want), rel=1e-13)


@pytest.mark.parametrize("reading, divisor", [("printed", 8.0), ("worst_case", 16.0), (8.0, 8.0), (16, 16.0)])
def test_theorem1_beta_has_the_printed_and_the_worst_case_exponent(reading, divisor):
    import math

    from dpviz.mean.bounds import theorem1_beta

    n, eps, tau, bound, gamma = 200, 0.5, 0.05, 1.0, 0.001
    expected = min(1.0, gamma + (bound / tau) * math.exp(-n * eps / divisor))  # Levy et al. 2021, Thm 1 / erratum P3
    assert theorem1_beta(n, eps, tau, bound, gamma, beta_exponent=reading) == pytest.approx(expected, rel=1e-12)


def test_the_worst_case_exponent_raises_the_mse_bound_where_beta_matters():
    from dpviz.mean.bounds import wme_mse_bound

    printed = wme_mse_bound(0.96, 60, 10, 0.5)
    worst = wme_mse_bound(0.96, 60, 10, 0.5, beta_exponent="worst_case")
    assert worst > printed
    assert wme_mse_bound(0.96, 1e5, 10, 1.0, beta_exponent="worst_case") == pytest.approx(
        wme_mse_bound(0.96, 1e5, 10, 1.0), rel=1e-12)  # n large: e^(−nε/16) is negligible either way


@pytest.mark.parametrize("bad", ["typo", 12.0, None])
def test_beta_exponent_refuses_other_readings(bad):
    from dpviz.mean.bounds import theorem1_beta

    with pytest.raises(ValueError, match="beta_exponent"):
        theorem1_beta(100, 1.0, 0.1, 1.0, 0.01, beta_exponent=bad)


@pytest.mark.parametrize("n, eps", [(3, 0.1), (12, 1.0), (30, 1.0), (1000, 3.0)])
def test_wme_safe_curve_is_the_one_m_at_a_time_formulas(n, eps):
    """The vectorised curve lesson 12's fixed-n panel draws gives what tau_safe, wme_mse and theorem1_beta give one
    m at a time (the same kernels, validated once; to one unit in the last place: numpy squares arrays and scalars by
    different routines), and τ is Hoeffding's radius written out (mpmath)."""
    ms = np.logspace(0, 5, 40).astype(int)
    c = MM.wme_safe_curve(1.0, n, ms, eps, 1.0, 0.01)
    taus = [MM.tau_safe(1.0, int(m), n, 0.01) for m in ms]
    assert c["tau"].tolist() == taus
    assert c["mse"].tolist() == pytest.approx([MM.wme_mse(1.0, n, int(m), eps, t) for m, t in zip(ms, taus)],
                                              rel=3e-16, abs=0)
    assert c["beta"].tolist() == pytest.approx([MM.theorem1_beta(n, eps, t, 1.0, 0.01) for t in taus], rel=3e-16,
                                               abs=0)
    with mp.workdps(30):
        want = [float(mp.sqrt(2 * mp.log(2 * mp.mpf(n) / mp.mpf("0.01")) / int(m))) for m in ms]
    assert c["tau"] == pytest.approx(want, rel=1e-14, abs=0)


@pytest.mark.parametrize("ms", [[], [0, 1], [1.5], [[1, 2]], [1, float("nan")], [2e15], ["a"]])
def test_wme_safe_curve_refuses_ms_that_are_not_counts(ms):
    with pytest.raises(ValueError, match="ms = .* must be a non-empty 1-D array of integers in"):
        MM.wme_safe_curve(1.0, 10, ms, 1.0, 1.0, 0.01)


def test_wme_safe_curve_checks_its_scalars_like_the_one_m_functions():
    with pytest.raises(ValueError, match="epsilon"):
        MM.wme_safe_curve(1.0, 10, [1, 2], -1.0, 1.0, 0.01)
    with pytest.raises(ValueError, match="gamma"):
        MM.wme_safe_curve(1.0, 10, [1, 2], 1.0, 1.0, 1.5)
