"""Tests of dpviz.mean.winsorized and dpviz.mean.hadamard (004: Levy et al.; digest learning-user-level.md)."""

import math

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz.mean import (
    C0,
    HadamardRotation,
    advanced_composition_epsilon,
    answer_adaptive_queries,
    crossover_m,
    fwht,
    highd_parameters,
    hoeffding_flattening_bound,
    lemma2_flattening_bound,
    private_range,
    private_range_probabilities,
    random_rotation,
    range_bins,
    subgaussian_mean,
    tau_oracle,
    tau_paper,
    tau_safe,
    theorem1_beta,
    theorem8_floor,
    theorem8_mean_floor,
    theorem10_budget,
    user_level_mean,
    user_level_mean_1d,
    winsorized_mean_1d,
    winsorized_mean_1d_result,
    winsorized_mean_highd,
    wme_1d_noise_variance,
    wme_highd_noise_variance,
)

# ------------------------------------------------------------------------------------- PrivateRange


def _brute_probs(values, eps, tau, B):
    """Independent oracle: loop over bins exactly as Algorithm 6 is written (argmin to the nearest midpoint)."""
    ell = math.ceil(B / tau - 1e-9)
    edges = [-B + 2 * tau * j for j in range(ell)] + [B]
    mids = [(edges[j] + min(edges[j + 1], B)) / 2 for j in range(ell)]
    xp = [min(mids, key=lambda t: (abs(t - x), t)) for x in values]
    c = [max(sum(v < t for v in xp), sum(v > t for v in xp)) for t in mids]
    w = [math.exp(-eps * ci / 2) for ci in c]
    s = sum(w)
    return np.array(mids), np.array([x / s for x in w])


@pytest.mark.parametrize("tau,B", [(0.25, 1.0), (0.3, 1.0), (0.1, 2.0), (1.0, 1.0)])
def test_private_range_probabilities_match_brute_force(tau, B):
    rng = np.random.default_rng(3)
    vals = rng.uniform(-B * 0.95, B * 0.95, size=7)
    mids, p = private_range_probabilities(vals, 1.3, tau, B)
    bm, bp = _brute_probs(vals, 1.3, tau, B)
    np.testing.assert_allclose(mids, bm, atol=1e-12)
    np.testing.assert_allclose(p, bp, rtol=1e-12)


def test_private_range_hand_example():
    # bins [-1,-.5],[-.5,0],[0,.5],[.5,1]; X' = .25,.25,.75; costs 3,3,1,2
    _, p = private_range_probabilities([0.1, 0.2, 0.9], 2.0, 0.25, 1.0)
    w = np.exp(-np.array([3, 3, 1, 2.0]))
    np.testing.assert_allclose(p, w / w.sum(), rtol=1e-14)


def test_last_bin_shorter():
    b = range_bins(0.3, 1.0)  # edges -1, -.4, .2, .8, 1 → last bin [.8, 1], midpoint .9
    assert b.count == 4
    np.testing.assert_allclose(b.midpoints, [-0.7, -0.1, 0.5, 0.9])
    assert b.index(np.array([1.0]))[0] == 3 and b.index(np.array([-1.0]))[0] == 0
    # step 2 of Algorithm 6 is X′ = argmin_t |t − X| (nearest midpoint), not "the value's own bin": 0.75 lies in
    # bin [.2, .8] but is nearer to .9 than to .5 (split at (.5 + .9)/2 = .7)
    np.testing.assert_array_equal(b.index(np.array([0.69, 0.7, 0.71, 0.75, 0.79, 0.8])), [2, 2, 3, 3, 3, 3])


@pytest.mark.slow
@pytest.mark.parametrize("vals", [[0.75, 0.1, -0.5], [0.79, 0.75, 0.71, 0.72, -0.9]])
def test_private_range_probabilities_nearest_midpoint_in_short_last_bin(vals):
    """Values in the top of the second-to-last bin: the law must use the nearest midpoint (brute-force oracle)."""
    mids, p = private_range_probabilities(vals, 1.3, 0.3, 1.0)
    bm, bp = _brute_probs(vals, 1.3, 0.3, 1.0)
    np.testing.assert_allclose(p, bp, rtol=1e-12)
    # sampling (segment path and dense path) uses the same X′: empirical frequencies follow the exact law
    g = np.random.default_rng(4)
    T = 4000
    draws = np.array([private_range(vals, 1.3, 0.3, 1.0, rng=g)[0] + 0.6 for _ in range(T)])
    obs = np.array([np.mean(np.isclose(draws, t)) for t in mids])
    assert np.all(np.abs(obs - p) <= 5 * np.sqrt(p * (1 - p) / T))


@settings(max_examples=50, deadline=None)
@given(vals=st.lists(st.floats(-1, 1), min_size=1, max_size=12), new=st.floats(-1, 1),
       eps=st.floats(0.05, 5.0), tau=st.sampled_from([0.07, 0.2, 0.5]))
def test_private_range_is_epsilon_dp_exactly(vals, new, eps, tau):
    """Replace one value: every selection probability changes by at most a factor e^ε (exponential mechanism)."""
    _, p = private_range_probabilities(vals, eps, tau, 1.0)
    _, q = private_range_probabilities([new] + vals[1:], eps, tau, 1.0)
    assert np.all(np.abs(np.log(p) - np.log(q)) <= eps + 1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("tau", [0.2, 1e-4])  # dense path and the O(n log n) segment path
def test_private_range_sampling_frequencies_match_exact_law(tau):
    vals = np.array([-0.5, -0.1, 0.0, 0.05, 0.3])
    eps, B, T = 0.8, 1.0, 20_000
    mids, p = private_range_probabilities(vals, eps, tau, B)
    g = np.random.default_rng(11)
    draws = np.array([private_range(vals, eps, tau, B, rng=g)[0] + 2 * tau for _ in range(T)])
    ell = len(mids)  # B/τ is an integer here: all bins regular, midpoint j = -B + (2j+1)τ
    idx = np.rint((draws + B - tau) / (2 * tau)).astype(int)
    np.testing.assert_allclose(mids[idx], draws, atol=1e-9)
    groups = np.arange(ell) * 10 // ell  # aggregate into 10 groups of bins (10^4 bins when τ = 1e-4)
    exp = np.bincount(groups, weights=p, minlength=10)
    obs = np.bincount(idx * 10 // ell, minlength=10) / T
    se = np.sqrt(exp * (1 - exp) / T)
    assert np.all(np.abs(obs - exp) <= 5 * se + 1e-12)


def test_private_range_width_and_pitfall_p2_counterexample():
    # digest 004 pitfall P2: tau=1, B=100, 60 points at 1.5 and 40 at 3.2 -> [-1, 3] clips the 3.2's
    x = np.array([1.5] * 60 + [3.2] * 40)
    a, b = private_range(x, 50.0, 1.0, 100.0, rng=0)
    assert (a, b) == (-1.0, 3.0)
    res = winsorized_mean_1d_result(x, 100.0, 1.0, 100.0, rng=0)
    assert res.clipped_fraction == pytest.approx(0.4)
    res3 = winsorized_mean_1d_result(x, 100.0, 1.0, 100.0, rng=0, half_width_factor=3.0)
    assert res3.clipped_fraction == 0.0


@pytest.mark.slow
def test_theorem1_failure_probability_formula_not_exceeded():
    """Empirical P(range misses the data's bin) vs (B/τ)e^{-nε/8} (reproduced, not asserted strict: pitfall P3)."""
    n, eps, tau, B = 40, 0.6, 0.1, 1.0
    x = np.full(n, 0.33)
    g = np.random.default_rng(5)
    T = 4000
    miss = np.mean([not (lo <= 0.33 <= hi) for lo, hi in (private_range(x, eps / 2, tau, B, rng=g) for _ in range(T))])
    # exact probability of missing (the selected midpoint not within 2τ of the data) from the exact law:
    mids, p = private_range_probabilities(x, eps / 2, tau, B)
    exact = p[np.abs(mids - 0.33) > 2 * tau].sum()
    assert abs(miss - exact) <= 5 * math.sqrt(exact * (1 - exact) / T) + 1e-3
    assert theorem1_beta(n, eps, tau, B, 0.0) == pytest.approx(10 * math.exp(-n * eps / 8))


# ------------------------------------------------------------------------------------- WME 1-D


@pytest.mark.slow
def test_wme_1d_laplace_variance():
    """Constant data (no clipping once the range is found): the error is exactly Lap(8τ/(nε)), var 128τ²/(n²ε²)."""
    n, eps, tau, B, v = 500, 1.0, 0.1, 1.0, 0.33
    x = np.full(n, v)
    g = np.random.default_rng(1)
    K = 4000
    errs = np.array([winsorized_mean_1d(x, eps, tau, B, rng=g) - v for _ in range(K)])
    var = wme_1d_noise_variance(n, eps, tau)
    assert var == pytest.approx(128 * tau ** 2 / (n * eps) ** 2, rel=1e-14)
    # Laplace kurtosis 6: se(s²)/σ² = sqrt(5/K); allow 5 se
    assert abs(np.mean(errs ** 2) / var - 1) <= 5 * math.sqrt(5 / K)
    assert abs(np.mean(errs)) <= 5 * math.sqrt(var / K)


def test_wme_1d_result_consistent():
    x = np.linspace(-0.2, 0.2, 300)
    r = winsorized_mean_1d_result(x, 2.0, 0.1, 1.0, rng=4)
    assert r.high - r.low == pytest.approx(0.4)
    assert r.estimate == pytest.approx(r.clipped_mean + r.noise)
    assert r.noise_scale == pytest.approx(8 * 0.1 / (300 * 2.0))
    assert r.clipped_mean == pytest.approx(np.clip(x, r.low, r.high).mean())


def test_wme_seeded_reproducible():
    x = np.random.default_rng(0).uniform(-1, 1, 100)
    assert winsorized_mean_1d(x, 1.0, 0.2, 1.0, rng=7) == winsorized_mean_1d(x, 1.0, 0.2, 1.0, rng=7)


# ------------------------------------------------------------------------------------- Hadamard


@pytest.mark.parametrize("d", [1, 2, 3, 5, 8, 13, 64])
def test_rotation_orthogonal_and_inverse(d):
    U = random_rotation(d, rng=d)
    M = U.matrix()
    np.testing.assert_allclose(M @ M.T, np.eye(U.d_pad), atol=1e-12)
    H = scipy.linalg.hadamard(U.d_pad)
    np.testing.assert_allclose(M, H @ np.diag(U.signs) / math.sqrt(U.d_pad), atol=1e-12)
    x = np.random.default_rng(1).normal(size=(4, d))
    np.testing.assert_allclose(U.invert(U.apply(x)), x, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(U.apply(x), axis=1), np.linalg.norm(x, axis=1), rtol=1e-12)


def test_fwht_matches_scipy():
    x = np.random.default_rng(2).normal(size=(3, 32))
    np.testing.assert_allclose(fwht(x), x @ scipy.linalg.hadamard(32), atol=1e-10)
    with pytest.raises(ValueError, match="power of two"):
        fwht(np.ones(3))


@pytest.mark.slow
def test_flattening_bounds_hold_with_stated_probability():
    """Spiky worst case z = e_1: ‖Uz‖∞ ≤ bound in ≥ 1−α of draws (Lemma 2 of 004; Hoeffding form of 003 P3)."""
    d, alpha, T = 256, 0.05, 2000
    g = np.random.default_rng(9)
    z = np.zeros((1, d))
    z[0, 7] = 1.0
    z2 = np.random.default_rng(1).normal(size=(1, d))
    z2 /= np.linalg.norm(z2)
    for vec in (z, z2):
        sup = np.array([np.abs(random_rotation(d, rng=g).apply(vec)).max() for _ in range(T)])
        for bound in (lemma2_flattening_bound(1.0, 1, d, alpha), hoeffding_flattening_bound(1.0, 1, d, alpha)):
            fail = np.mean(sup > bound)
            assert fail <= alpha + 5 * math.sqrt(alpha * (1 - alpha) / T)
    # for e_1 every rotated coordinate is exactly ±1/√d (maximal flattening)
    assert np.allclose(np.abs(random_rotation(d, rng=0).apply(z)), 1 / math.sqrt(d))


def test_rotation_validation():
    with pytest.raises(ValueError, match="signs"):
        HadamardRotation(3, np.array([1.0, -1.0, 1.0]))
    with pytest.raises(ValueError, match="d"):
        random_rotation(0)


# ------------------------------------------------------------------------------------- WME high-D


def test_c0_is_exactly_the_laplace_variance():
    for n, d, eps, delta, tau, gamma in [(10_000, 16, 1.0, 1e-6, 0.269, 0.01), (500, 8, 0.3, 1e-3, 2.0, 0.1)]:
        v = wme_highd_noise_variance(n, d, eps, delta, tau, gamma)
        assert v == pytest.approx(C0 * d * tau ** 2 * math.log(d * n / gamma) * math.log(1 / delta) / (n * eps) ** 2,
                                  rel=1e-12)
    assert C0 == 128 * 100 * 8 == 102_400


def test_appendix_z_numbers():
    # digest 004 Appendix Z, row n=1e4, m=10, d=16
    tau = tau_paper(1.0, 10, 10_000, 0.01)
    p = highd_parameters(10_000, 16, 1.0, 1e-6, tau, 1.0, 0.01)
    assert round(tau, 3) == 0.852 and round(p.epsilon_coord, 5) == 0.02378 and round(p.tau_coord, 2) == 8.67
    assert wme_highd_noise_variance(10_000, 16, 1.0, 1e-6, tau, 0.01) == pytest.approx(2.72, rel=5e-3)
    # padded dimension used: d = 10 behaves as 16
    assert highd_parameters(100, 10, 1.0, 1e-6, 1.0, 1.0).d_pad == 16


@pytest.mark.slow
def test_wme_highd_empirical_noise_variance():
    """Identical users: the error is U⁻¹ξ, ‖error‖² = ‖ξ‖² with ξ_j iid Lap(8τ′/(nε′)) (Thm 2 of 004, exact)."""
    n, d, eps, delta, tau, gamma = 20_000, 4, 4.0, 1e-3, 0.05, 0.01
    x = np.tile(np.array([0.3, -0.2, 0.1, 0.0]), (n, 1))
    g = np.random.default_rng(21)
    K = 1000
    err2 = np.array([np.sum((winsorized_mean_highd(x, eps, delta, tau, 1.0, gamma=gamma, rng=g) - x[0]) ** 2)
                     for _ in range(K)])
    v = wme_highd_noise_variance(n, d, eps, delta, tau, gamma)
    # per draw: mean 2db², variance d·20b⁴ → relative se sqrt(20d)/(2d)/sqrt(K)
    rel_se = math.sqrt(20 * d) / (2 * d) / math.sqrt(K)
    assert abs(err2.mean() / v - 1) <= 5 * rel_se


def test_highd_composition_budget_at_most_epsilon():
    for eps, delta, d in [(1.0, 1e-6, 16), (2.0, 1e-5, 128), (0.5, 1e-9, 1)]:
        p = highd_parameters(100, d, eps, delta, 1.0, 1.0)
        total = eps / 2 + p.d_pad * p.epsilon_coord * math.expm1(p.epsilon_coord)
        assert advanced_composition_epsilon(p.epsilon_coord, p.d_pad, delta) <= total + 1e-12 <= eps


def test_user_level_mean_close_and_shapes():
    g = np.random.default_rng(0)
    data = g.choice([-1.0, 1.0], size=(3000, 200, 1)) * 0.5 + 0.25
    est = user_level_mean(data, 8.0, 1e-6, 1.0, rng=1)
    assert est.shape == (1,)
    data1 = data[:, :, 0]
    est1 = user_level_mean_1d(data1, 1.0, 1.0, rng=1)
    assert abs(est1 - 0.25) < 0.02


def test_user_level_mean_projects_onto_the_domain():
    """Digest 004 pitfall P12: with few users the Laplace noise is huge (β ≈ 1); projecting onto B₂(0, B) (free
    post-processing) keeps the error ≤ 2B, which the "+βB²" term of Corollary 1 assumes."""
    data = np.random.default_rng(2).uniform(-0.5, 0.5, size=(20, 5, 2))
    raw = [user_level_mean(data, 1.0, 1e-5, 1.0, rng=s, project=False) for s in range(20)]
    assert max(np.linalg.norm(e) for e in raw) > 1.0  # the noise really leaves the domain
    for s in range(20):
        est = user_level_mean(data, 1.0, 1e-5, 1.0, rng=s)
        assert np.linalg.norm(est) <= 1.0 + 1e-12
        # same coins: the projection of the raw estimate, nothing else
        r = raw[s]
        np.testing.assert_allclose(est, r / max(1.0, np.linalg.norm(r)), rtol=1e-12)
    e1 = [user_level_mean_1d(data[:, :, 0], 0.1, 1.0, rng=s) for s in range(20)]
    assert all(-1.0 <= e <= 1.0 for e in e1)
    assert max(abs(user_level_mean_1d(data[:, :, 0], 0.1, 1.0, rng=s, project=False)) for s in range(20)) > 1.0


def test_subgaussian_and_adaptive_queries_unbiased_on_constant_data():
    x = np.full((30_000, 2), 0.4)
    assert np.allclose(subgaussian_mean(x, 8.0, 1e-6, 0.01, 1.0, rng=0), 0.4, atol=0.05)
    answers = answer_adaptive_queries(x, lambda k, a: (lambda Z: Z * (0.5 if a else 1.0)), 2, 8.0, 1e-6, 0.01, 1.0,
                                      rng=0)
    assert np.allclose(answers[0], 0.4, atol=0.05) and np.allclose(answers[1], 0.2, atol=0.05)


def test_theorem10_budget_composes_to_about_half_epsilon():
    e0, d0 = theorem10_budget(1.0, 1e-5, 100)
    assert d0 * 100 + 1e-5 / 2 == pytest.approx(1e-5)
    assert advanced_composition_epsilon(e0, 100, 1e-5 / 2) == pytest.approx(0.51, abs=0.01)  # digest 004 §2.0


# ------------------------------------------------------------------------------------- τ presets, floors


def test_tau_paper_undercovers_and_safe_covers():
    """±B data, n = 10⁴, m = 100 (digest 004 pitfall P7): paper τ ≈ 0.27 < typical max deviation ≈ 0.4."""
    n, m, gamma = 10_000, 100, 0.01
    g = np.random.default_rng(0)
    tp, ts = tau_paper(1.0, m, n, gamma), tau_safe(1.0, m, n, gamma)
    assert ts == pytest.approx(2 * tp)
    runs = 20
    dev = np.array([tau_oracle(2 * g.binomial(m, 0.5, size=n) / m - 1, 0.0) for _ in range(runs)])
    assert np.all(dev > tp)
    assert np.mean(dev > ts) <= gamma + 5 * math.sqrt(gamma / runs)


def test_theorem8_floor_digest_values():
    for x, want in [(1, 0.0336), (2, 0.0149), (5, 8.4e-4), (10, 5.7e-6)]:
        assert theorem8_floor(x, 1.0) == pytest.approx(want, rel=0.02)
        assert theorem8_floor(1, float(x)) == pytest.approx(1 / (8 * (1 + math.exp(x))), rel=1e-12)
    assert theorem8_mean_floor(3, 0.5, bound=2.0) == pytest.approx(4.0 / (2 * (1 + math.exp(1.5))))


def test_crossover():
    assert crossover_m(10_000, 0.01) == pytest.approx(8 * math.log(2e6))
    tau = tau_paper(1.0, 116, 10_000, 0.01)
    assert wme_1d_noise_variance(100, 1.0, tau) == pytest.approx(8 / 100 ** 2, rel=0.01)


# ------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("kw,match", [
    (dict(tau=0.0), "tau"), (dict(tau=-1.0), "tau"), (dict(bound=0.0), "bound"), (dict(bound=-2.0), "bound"),
    (dict(epsilon=0.0), "epsilon"), (dict(epsilon=float("nan")), "epsilon"),
    (dict(values=[0.1, float("nan")]), "values"), (dict(values=[]), "values"), (dict(values=[[0.1, 0.2]]), "values"),
])
def test_bad_input_1d(kw, match):
    args = dict(values=[0.1, 0.2, 0.3], epsilon=1.0, tau=0.1, bound=1.0)
    args.update(kw)
    for fn in (winsorized_mean_1d, private_range):
        with pytest.raises(ValueError, match=match):
            fn(args["values"], args["epsilon"], args["tau"], args["bound"])


@pytest.mark.parametrize("kw,match", [
    (dict(tau=0.0), "tau"), (dict(bound=-1.0), "bound"), (dict(delta=0.0), "delta"), (dict(delta=1.0), "delta"),
    (dict(points=[[0.1, 0.2], [0.3]]), "points"), (dict(points=[0.1, 0.2]), "points"),
    (dict(points=[[0.1, float("nan")]]), "points"), (dict(gamma=0.0), "gamma"),
])
def test_bad_input_highd(kw, match):
    args = dict(points=[[0.1, 0.2], [0.3, 0.4]], epsilon=1.0, delta=1e-5, tau=0.1, bound=1.0, gamma=0.01)
    args.update(kw)
    with pytest.raises(ValueError, match=match):
        winsorized_mean_highd(args["points"], args["epsilon"], args["delta"], args["tau"], args["bound"],
                              gamma=args["gamma"])


def test_bad_input_user_level():
    with pytest.raises(ValueError, match="data is ragged"):
        user_level_mean_1d([[0.1, 0.2], [0.3]], 1.0, 1.0)
    with pytest.raises(ValueError, match="tau"):
        user_level_mean_1d([[0.1, 0.2], [0.3, 0.1]], 1.0, 1.0, tau="bogus")
    with pytest.raises(ValueError, match="tau"):
        user_level_mean_1d([[0.1, 0.2], [0.3, 0.1]], 1.0, 1.0, tau=-0.1)
    with pytest.raises(ValueError, match="oracle"):
        user_level_mean_1d([[0.1, 0.2], [0.3, 0.1]], 1.0, 1.0, tau="oracle")
    with pytest.raises(ValueError, match="data"):
        user_level_mean(np.ones((3, 2)), 1.0, 1e-5, 1.0)
