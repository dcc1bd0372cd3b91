"""Tests of dpviz.mean.baselines and dpviz.mean.simulate (statistical checks with fixed seeds, derived tolerances)."""

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from dpviz.accountants import group_privacy
from dpviz.mean import (
    Population,
    classic_gaussian_sigma,
    group_privacy_item_budget,
    group_privacy_mean,
    mse_table,
    naive_clipped_mean,
    naive_gaussian_mse,
    naive_laplace_mse,
    nonprivate_mean,
    nonprivate_mse,
    sample_user_means,
    sample_users,
    simulate_errors,
    tau_safe,
    wme_mse,
)


def test_closed_forms():
    assert naive_laplace_mse(0.5, 10, 5, 2.0, 3.0) == pytest.approx(0.5 / 50 + 8 * 9 / (20 ** 2))
    assert wme_mse(0.0, 10, 5, 1.0, 0.1) == pytest.approx(128 * 0.01 / 100)
    assert naive_gaussian_mse(0.0, 10_000, 10, 1.0, 1e-6, 1.0, d=16) == pytest.approx(1.80e-5, rel=2e-3)
    assert classic_gaussian_sigma(0.5, 1e-5, 2.0) == pytest.approx(2 * math.sqrt(2 * math.log(1.25e5)) / 0.5)
    assert nonprivate_mse(2.0, 4, 5) == 0.1


@pytest.mark.parametrize("eps,delta,m", [(1.0, 1e-6, 10), (0.1, 1e-5, 3), (5.0, 1e-9, 100), (1.0, 0.5, 1)])
def test_group_privacy_budget_is_the_exact_inverse_of_lemma6(eps, delta, m):
    # one definition for lessons 11, 12 and 14 (issue 13): ε₀ = ε/m, δ₀ = δ(e^{ε/m} − 1)/(e^{ε} − 1), the inverse of
    # group privacy (Ghazi et al. 2023, Lemma 6: (ε₀, δ₀) → (mε₀, δ₀·(e^{mε₀} − 1)/(e^{ε₀} − 1))), 50 digits
    mp.mp.dps = 50
    e0, d0 = group_privacy_item_budget(eps, delta, m)
    assert e0 == pytest.approx(eps / m, rel=1e-15)
    want = mp.mpf(delta) * mp.expm1(mp.mpf(eps) / m) / mp.expm1(mp.mpf(eps))
    assert d0 == pytest.approx(float(want), rel=1e-13)
    eps_m, delta_m = group_privacy(e0, d0, m)  # lifts back to the target, never above it
    assert eps_m <= eps and delta_m <= delta
    assert eps_m == pytest.approx(eps, rel=1e-15) and delta_m == pytest.approx(delta, rel=1e-13)
    if (eps, delta, m) == (1.0, 1e-6, 10):  # the number lessons 11 and 14 show; lesson 12's old looser one was 4.07e-8
        assert round(d0, 10) == pytest.approx(6.12e-8, abs=0)


@pytest.mark.parametrize("kind", ["bounded", "bernoulli", "gaussian", "heterogeneous"])
def test_user_means_exact_law_moments(kind):
    """Sufficient-statistic draws of user means have the mean and variance of an explicit n×m sample average."""
    P = Population(kind, 0.3, 1.0, scale=0.5, heterogeneity=0.2)
    m, N = 20, 200_000
    x = sample_user_means(P, N, m, rng=0)
    var = P.user_mean_variance(m)
    assert abs(x.mean() - 0.3) <= 5 * math.sqrt(var / N)
    assert abs(x.var() / var - 1) <= 5 * math.sqrt(3 / N)  # kurtosis ≤ 4 for these laws
    raw = sample_users(P, 20_000, m, rng=1).mean(axis=1)
    # same law: two-sample KS at the 1e-4 level
    assert stats.ks_2samp(np.round(raw, 9), np.round(x[:20_000], 9)).pvalue > 1e-4  # KS conservative on lattices


def test_heavy_stable_scaling():
    """α-stable: mean of m draws has scale m^{1/α−1}; compare medians of |X| (finite for α = 1.5)."""
    P = Population("heavy", 0.0, 1.0, scale=1.0)
    a = np.median(np.abs(sample_user_means(P, 100_000, 1, rng=0)))
    b = np.median(np.abs(sample_user_means(P, 100_000, 64, rng=1)))
    assert b / a == pytest.approx(64 ** (1 / 1.5 - 1), rel=0.05)
    raw = sample_users(P, 20_000, 16, rng=2).mean(axis=1)
    assert stats.ks_2samp(raw, sample_user_means(P, 20_000, 16, rng=3)).pvalue > 1e-4


@pytest.mark.slow
def test_naive_laplace_and_gaussian_variances():
    g = np.random.default_rng(0)
    K, n = 4000, 50
    x = np.zeros(n)
    lap = np.array([naive_clipped_mean(x, 1.0, 2.0, rng=g) for _ in range(K)])
    assert abs(np.mean(lap ** 2) / (8 * 4 / n ** 2) - 1) <= 5 * math.sqrt(5 / K)
    gau = np.array([naive_clipped_mean(x, 0.5, 1.0, noise="gaussian", delta=1e-5, rng=g) for _ in range(K)])
    s2 = classic_gaussian_sigma(0.5, 1e-5, 2.0 / n) ** 2
    assert abs(np.mean(gau ** 2) / s2 - 1) <= 5 * math.sqrt(2 / K)
    v = naive_clipped_mean(np.full((n, 3), 5.0), 1.0, 1.0, noise="gaussian", delta=1e-5, rng=0)
    assert v.shape == (3,)
    gp = np.array([group_privacy_mean(np.zeros((n, 7)), 1.0, 2.0, rng=g) for _ in range(K)])
    assert abs(np.mean(gp ** 2) / (8 * 4 / n ** 2) - 1) <= 5 * math.sqrt(5 / K)


@pytest.mark.slow
def test_wme_mse_slope_minus_one_naive_not():
    """MSE vs m on log-log: winsorized slope ≈ −1 (privacy term ∝ τ² ∝ 1/m); naive flattens (8B²/(n²ε²) floor)."""
    P = Population("bounded", 0.2, 1.0)
    n, eps, T = 1000, 1.0, 2000
    ms = np.array([10, 100, 1000])
    tab = mse_table(P, n, ms, eps, trials=T, estimators=("naive_laplace", "winsorized"), rng=0)
    slope_w = np.polyfit(np.log(ms), np.log(tab["winsorized"]), 1)[0]
    slope_n = np.log(tab["naive_laplace"][2] / tab["naive_laplace"][1]) / np.log(10)
    # relative se of an MSE from T Laplace-ish errors ≤ sqrt(5/T) = 0.05; slope se ≤ 0.05·√2/ln(100) ≈ 0.015
    assert slope_w == pytest.approx(-1.0, abs=0.1)
    expect_n = math.log(naive_laplace_mse(P.variance, n, 1000, eps, 1.0)
                        / naive_laplace_mse(P.variance, n, 100, eps, 1.0))
    assert slope_n == pytest.approx(expect_n / math.log(10), abs=0.1)
    assert slope_n > -0.6
    # and the winsorized MSE matches the formula Var/(nm) + 128τ²/(n²ε²) (ideal estimator of Thm 1)
    for i, m in enumerate(ms):
        f = wme_mse(P.variance, n, int(m), eps, tau_safe(1.0, int(m), n, 0.01))
        assert tab["winsorized"][i] / f == pytest.approx(1.0, abs=5 * math.sqrt(5 / T))


def test_simulate_progress_and_validation():
    seen = []
    e = simulate_errors(Population(), 100, 5, 1.0, trials=30, rng=0, progress=seen.append,
                        estimators=("nonprivate", "naive_gaussian", "group_laplace", "oracle_clip", "winsorized"))
    assert seen[-1] == 1.0 and all(v.shape == (30,) for v in e.values())
    assert nonprivate_mean([[1.0, 2.0], [3.0, 4.0]]) == 2.5
    with pytest.raises(ValueError, match="kind"):
        Population("weird")
    with pytest.raises(ValueError, match="mean"):
        Population("bounded", 1.0, 1.0)
    with pytest.raises(ValueError, match="estimators"):
        simulate_errors(Population(), 10, 2, 1.0, estimators=("bogus",))
    with pytest.raises(ValueError, match="tau"):
        simulate_errors(Population(), 10, 2, 1.0, tau=0.0)
    with pytest.raises(ValueError, match="user_values"):
        naive_clipped_mean([0.1, float("nan")], 1.0, 1.0)
    with pytest.raises(ValueError, match="delta"):
        naive_clipped_mean([0.1], 1.0, 1.0, noise="gaussian")
    with pytest.raises(ValueError, match="data"):
        group_privacy_mean([[0.1, 0.2], [0.3]], 1.0, 1.0)
