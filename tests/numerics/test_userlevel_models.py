"""Tests of lessons 11 and 14's models in dpviz.userlevel (bounding, bounds, ptr, learners), against oracles.

Oracles: mpmath high-precision group-privacy δ (Lemma 6 of Ghazi et al. 2023) and analytic-Gaussian δ (Balle & Wang
2018, Thm 8), brute-force truncation bias over every k, the library's ``bounding_tradeoff`` on a UserDataset, exact
Pareto survival probabilities for the synthetic counts (tolerance = 4 binomial standard errors), brute-force
enumeration of the swap and pairwise-sum laws, a trinomial closed form, a dense grid scan for the crossover.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpviz.userlevel as U

# Group privacy itself (Lemma 6: group_privacy, group_privacy_curve, group_privacy_log_factor) has its one home in
# dpviz.accountants.group and its oracle tests in tests/numerics/test_family_group.py.


# --------------------------------------------------------------------------------- Gaussian noise of the bounding model


def _mp_gauss_delta(sigma, eps):
    with mp.workdps(50):
        sigma, eps = mp.mpf(sigma), mp.mpf(eps)
        return +(mp.ncdf(1 / (2 * sigma) - eps * sigma) - mp.exp(eps) * mp.ncdf(-1 / (2 * sigma) - eps * sigma))


def _assert_smallest_sigma(sigma, eps, delta):
    """σ is feasible and σ·(1 − 1e-8) is not, by the mpmath oracle (sensitivity 1), up to the float evaluation of
    δ(ε) (relative error ≲ 1e-16·(1 + ε σ²), documented in :func:`dpviz.mechanisms.gaussian_delta`)."""
    assert _mp_gauss_delta(sigma, eps) <= delta * (1 + 1e-10)
    assert _mp_gauss_delta(sigma * (1 - 1e-8), eps) > delta


def test_sample_counts_follow_the_discretised_pareto():
    n, median, a, cap = 100_000, 5.0, 2.0, 10**5
    c = U.sample_counts(n, median, a, cap, 7)
    assert c.min() >= 1 and c.max() <= cap and np.all(np.diff(c) >= 0)
    x_min = median / 2 ** (1 / a)
    for q in [4, 5, 10, 30]:
        p = (x_min / q) ** a  # P(⌈x_min U^{-1/a}⌉ > q) = P(x_min U^{-1/a} > q) for integer q ≥ x_min
        se = math.sqrt(p * (1 - p) / n)
        assert abs(np.mean(c > q) - p) <= 4 * se


def test_sample_counts_respect_the_cap_and_are_read_only():
    c = U.sample_counts(1000, 5.0, 0.8, 50, 0)
    assert c.max() == 50
    with pytest.raises(ValueError):
        c[0] = 3


def test_bounding_curves_bias_brute_force_and_optimum():
    t = U.bounding_curves(200, 4.0, 1.5, 0.7, cap=300, seed=3)
    c = t.counts
    for k in [1, 2, 5, 17, 100, 300]:
        assert t.bias[k - 1] == -sum(max(int(ci) - k, 0) for ci in c)
    assert t.true_answer == c.sum()
    noise = math.sqrt(2) * np.arange(1, 301) / 0.7
    np.testing.assert_allclose(t.noise_user, noise)
    np.testing.assert_allclose(t.noise_item, math.sqrt(2) / 0.7)
    rmse = [math.sqrt(sum(max(int(ci) - k, 0) for ci in c) ** 2 + (math.sqrt(2) * k / 0.7) ** 2)
            for k in range(1, 301)]
    assert t.k_user == int(np.argmin(rmse)) + 1
    # item-level never needs truncation: its optimum keeps every record
    assert t.bias[t.k_item - 1] == 0


def test_bounding_curves_agree_with_library_bounding_tradeoff():
    from dpviz.userlevel import baselines
    from dpviz.userlevel.data import UserDataset

    t = U.bounding_curves(60, 3.0, 1.3, 1.0, cap=200, seed=5)
    x = UserDataset(tuple(np.ones(int(ci)) for ci in t.counts))
    ks = [1, 3, 10, 40, 200]
    for level, rmse in (("user", t.rmse_user), ("item", t.rmse_item)):
        lib = baselines.bounding_tradeoff(x, ks, 1.0, statistic="sum", level=level)
        np.testing.assert_allclose(lib["bias"], t.bias[np.array(ks) - 1])
        np.testing.assert_allclose(lib["rmse"], rmse[np.array(ks) - 1])


@pytest.mark.parametrize("eps,delta", [(1.0, 1e-6), (0.1, 1e-10), (3.0, 1e-3)])
def test_bounding_curves_gaussian_and_group_privacy_lift(eps, delta):
    t = U.bounding_curves(500, 5.0, 2.0, eps, mechanism="gaussian", delta=delta, cap=400, seed=1)
    s1 = t.noise_item[0]
    _assert_smallest_sigma(s1, eps, delta)  # the analytic Gaussian σ (Balle & Wang 2018, Thm 8), by mpmath
    np.testing.assert_allclose(t.noise_user, s1 * np.arange(1, 401), rtol=1e-15)
    # exact at the grid points of the lift: the smallest σ for (ε/k, δ(e^{ε/k}−1)/(e^{ε}−1))
    for k in [1, 400]:
        with mp.workdps(50):  # the (ε/k, δ_k) whose k-fold group lift (Lemma 6) is exactly (ε, δ)
            d_k = float(mp.mpf(delta) * mp.expm1(mp.mpf(eps) / k) / mp.expm1(mp.mpf(eps)))
        _assert_smallest_sigma(t.noise_group[k - 1], eps / k, d_k)
    # group privacy is lossy for the Gaussian: never better than calibrating to sensitivity k
    assert np.all(t.noise_group >= t.noise_user * (1 - 1e-9))
    assert t.noise_group[-1] > t.noise_user[-1]  # strictly lossy (only slightly, for the analytic Gaussian)


def test_bounding_curves_laplace_group_lift_equals_user_level():
    t = U.bounding_curves(100, 5.0, 2.0, 1.0, cap=100)
    np.testing.assert_array_equal(t.noise_group, t.noise_user)
    assert t.k_group == t.k_user


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 3000), median=st.floats(1, 50), tail=st.floats(0.6, 8), eps=st.floats(0.05, 5))
def test_bounding_curves_invariants(n, median, tail, eps):
    t = U.bounding_curves(n, median, tail, eps, cap=500)
    assert np.all(np.diff(t.bias) >= 0) and t.bias[-1] == 0 and np.all(t.bias <= 0)
    assert np.all(np.isfinite(t.rmse_user)) and 1 <= t.k_user <= 500
    assert t.rmse_user[t.k_user - 1] == t.rmse_user.min()
    assert 0 <= t.dropped_fraction(t.k_user) <= 1


@pytest.mark.parametrize("kw,match", [
    (dict(n_users=0), "n_users"), (dict(median=0.5), "median"), (dict(tail=0.1), "tail"),
    (dict(epsilon=-1.0), "epsilon"), (dict(mechanism="cauchy"), "mechanism"), (dict(delta=0.0), "delta"),
    (dict(cap=0), "cap"),
])
def test_bounding_curves_rejects_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        U.bounding_curves(**kw)


def test_int_log_grid_is_distinct_sorted_and_inclusive():
    g = U.int_log_grid(1, 1000, 200)
    assert g[0] == 1 and g[-1] == 1000 and np.all(np.diff(g) > 0) and g.size <= 200
    with pytest.raises(ValueError, match="hi"):
        U.int_log_grid(10, 5, 20)


# ------------------------------------------------------------------------------------------- lesson 14: bounds


def test_regime_breakpoints_match_closed_forms():
    from dpviz.userlevel import TABLE1_ROWS, breakpoints

    row = next(r for r in TABLE1_ROWS if r.key == "dd")
    for eps, alpha in [(0.5, 0.1), (0.2, 0.05), (0.9, 0.3)]:
        got = U.regime_breakpoints(row, eps, alpha, 7.0)
        m1, m2 = breakpoints(eps, alpha)  # ε²/α², 1/α²
        assert [b[0] for b in got] == pytest.approx([m1, m2], rel=1e-9)
        assert [(b[1], b[2]) for b in got] == [("statistical", "privacy"), ("privacy", "floor")]
    # for ε > 1, m₁ > m₂: the √m regime disappears and statistical hands over to the floor at L/(α²m) = L/ε
    (m_star, a, b), = U.regime_breakpoints(row, 1.5, 0.3, 7.0)
    assert m_star == pytest.approx(1.5 / 0.3**2, rel=1e-9) and (a, b) == ("statistical", "floor")
    pac = next(r for r in TABLE1_ROWS if r.key == "pac")
    (m_star, a, b), = U.regime_breakpoints(pac, 0.5, 0.02, 3.0)
    assert m_star == pytest.approx(1 / 0.02, rel=1e-9) and (a, b) == ("privacy", "floor")  # Theorem 4: m = 1/α


@pytest.mark.parametrize("eps,dl", [(1.0, 1e-6), (0.5, 1e-9), (2.0, 1e-3)])
def test_users_crossover_is_the_first_sign_change_on_a_dense_grid(eps, dl):
    kw = dict(n_priv=100.0, n_stat=1000.0, c=1.0, clamp=False)
    m_star = U.crossover_group_privacy(eps, dl, kind="users", n_priv=100, n_stat=1000, c=1, m_max=1e8)
    m = np.geomspace(1.0, 1e8, 200_001)
    g = U.theorem10_users(m, eps, dl, **kw) - U.group_privacy_users(m, eps, dl, **kw)
    first = int(np.nonzero(g < 0)[0][0])  # oracle: brute-force scan, 2·10⁵ points
    assert m[first - 1] <= m_star * (1 + 1e-9) and m_star <= m[first] * (1 + 1e-9)


def test_users_crossover_is_inf_without_a_crossing_below_m_max():
    assert U.crossover_group_privacy(1.0, 1e-6, kind="users", n_priv=100, n_stat=1000, c=1, m_max=10.0) == math.inf


# ------------------------------------------------------------------------------------------- lesson 14: exact pmfs


def test_swap_loss_pmf_brute_force_and_moments():
    from scipy import stats

    for m, p in [(1, 0.5), (7, 0.3), (40, 0.05)]:
        b = stats.binom.pmf(np.arange(m + 1), m, p)
        brute = np.zeros(m + 1)
        for s in range(m + 1):
            for t in range(m + 1):
                brute[abs(s - t)] += b[s] * b[t]
        np.testing.assert_allclose(U.swap_difference_pmf(m, p), brute, atol=1e-14)
    # E[(S − S′)²] = 2mp(1−p) exactly
    pmf = U.swap_difference_pmf(2000, 0.3)
    d = np.arange(2001)
    assert np.dot(d**2, pmf) == pytest.approx(2 * 2000 * 0.3 * 0.7, rel=1e-10)


def test_swap_difference_pmf_is_cached_and_read_only():
    a = U.swap_difference_pmf(30, 0.4)
    assert a is U.swap_difference_pmf(30, 0.4)
    with pytest.raises(ValueError):
        a[0] = 1.0


def test_pairwise_sum_pmf_brute_force():
    plus, minus, m = 0.3, 0.1, 5
    brute = np.zeros(2 * m + 1)
    law = {1: plus, -1: minus, 0: 1 - plus - minus}
    for combo in itertools.product([-1, 0, 1], repeat=m):
        brute[sum(combo) + m] += np.prod([law[c] for c in combo])
    np.testing.assert_allclose(U.pairwise_sum_pmf(m, plus, minus), brute, atol=1e-14)


def _trinomial(m, plus, minus):
    """P(u) = Σ_{a−b=u} m!/(a! b! (m−a−b)!)·plus^a·minus^b·zero^{m−a−b}, in mpmath."""
    out = np.zeros(2 * m + 1)
    with mp.workdps(40):
        pl, mi = mp.mpf(plus), mp.mpf(minus)
        zero = 1 - pl - mi
        for a in range(m + 1):
            for b in range(m + 1 - a):
                out[a - b + m] += float(mp.factorial(m) / (mp.factorial(a) * mp.factorial(b) * mp.factorial(m - a - b))
                                        * pl**a * mi**b * zero ** (m - a - b))
    return out


@pytest.mark.parametrize("m,pl,mi", [(4, 0.3, 0.2), (120, 0.25, 0.05), (60, 0.5, 0.5)])
def test_pairwise_sum_pmf_equals_the_trinomial_closed_form(m, pl, mi):
    np.testing.assert_allclose(U.pairwise_sum_pmf(m, pl, mi), _trinomial(m, pl, mi), rtol=0, atol=1e-14)


def test_swap_difference_pmf_equals_the_direct_correlation_at_large_m():
    from scipy import stats

    m, p = 2500, 0.1
    b = stats.binom.pmf(np.arange(m + 1), m, p)
    want = np.correlate(b, b, mode="full")[m:]
    want[1:] *= 2.0
    np.testing.assert_allclose(U.swap_difference_pmf(m, p), want, rtol=0, atol=1e-14)


def test_pmf_quantile_is_the_smallest_index_reaching_q():
    pmf = np.array([0.1, 0.2, 0.3, 0.4])
    assert [U.pmf_quantile(pmf, q) for q in (0.05, 0.1, 0.3, 0.31, 0.6, 1.0)] == [0, 0, 1, 2, 2, 3]
    with pytest.raises(ValueError, match="q"):
        U.pmf_quantile(pmf, 1.5)


def test_discard_curves_are_4_kappa_of_delstab():
    eps, curves = U.discard_curves("printed")
    assert eps.size == 120 and eps[0] == pytest.approx(0.05) and eps[-1] == pytest.approx(10.0)
    for d, four in curves:
        for i in (0, 57, 119):
            eb = eps[i] / 3
            db = d / (math.exp(2 * eb) + math.exp(eps[i]) + 2)  # the printed convention of Algorithm 1
            assert four[i] == 4 * (1 + math.ceil(math.log(1 / db) / eb))  # κ of Definition 8
    with pytest.raises(ValueError, match="convention"):
        U.discard_curves("other")


def test_clipping_tradeoff_exact_and_monotone():
    t = U.clipping_tradeoff(50, 0.1, 0.3, 1.0, 1000, 100)
    u = np.arange(-50, 51)
    assert np.dot(u, t.pmf) == pytest.approx(50 * 0.1, rel=1e-10)  # E[u] = mα
    # clipping at τ ≥ m changes nothing: zero bias; bias decreases in τ; EM error = 2·(2τ)/ε·ln(|ℋ|/β)
    assert t.bias[-1] == pytest.approx(0.0, abs=1e-9)
    assert np.all(np.diff(t.bias) <= 1e-9)
    np.testing.assert_allclose(t.em_error, 4 * t.tau / 1.0 * math.log(100 / 0.1))
    assert t.tau_paper == pytest.approx(0.1 * 50 + math.sqrt(50 * math.log(10)))
    with pytest.raises(ValueError, match="alpha"):
        U.clipping_tradeoff(50, 0.4, 0.3, 1.0, 1000, 100)
