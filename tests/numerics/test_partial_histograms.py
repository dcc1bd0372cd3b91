"""Tests of dpviz.partial.histograms: Algorithm 2 (PrivHeavyHitter), Theorem 15/16, the canonical histogram."""

import itertools
import math

import numpy as np
import pytest

from dpviz import partial as PD
from dpviz.partial import (
    canonical_histogram,
    heavy_hitter_params,
    heavy_hitter_path_loss,
    heavy_hitter_privacy_loss,
    heavy_hitter_worst_case_loss,
    lemma28_epsilon,
    lemma30_conditions,
    level_privacy_loss,
    level_privacy_loss_bound,
    pad_to_power_of_two,
    priv_heavy_hitter,
    priv_histogram,
    theorem15_lambda,
    theorem15_sample_size,
    theorem16_lower_bound,
)


# ------------------------------------------------------------------ fixtures of digest Appendix A
def test_lemma28_certificate_fixtures():
    nu = 0.1
    lam = 3.0
    assert lemma28_epsilon(lam, lam * math.log(16 / nu)) == pytest.approx(1.3375, abs=1e-4)
    lam = theorem15_lambda(1.0, nu)
    assert lam == pytest.approx(8.0252, abs=1e-4)
    assert lemma28_epsilon(lam, lam * math.log(16 / nu)) == pytest.approx(0.5, abs=1e-12)
    assert lemma28_epsilon(0.5, 0.9) == math.inf  # μ ≤ 1: no certificate


def test_theorem15_sample_size_fixtures():
    assert [round(theorem15_sample_size(d, 1.0, constants="paper")) for d in (16, 256, 4096)] == \
        [14901, 22986, 31071]
    # digest: 32,146; 53,774; 75,403 with λ = 8.025 (we use the exact 8.0252…)
    np.testing.assert_allclose(theorem15_sample_size(np.array([16, 256, 4096]), 1.0), [32146, 53774, 75403],
                               rtol=2e-4)


def test_theorem16_bound():
    assert theorem16_lower_bound(1024, 1.0, 0.1) == pytest.approx(0.05 * math.log(1024) / 0.1)
    assert theorem16_lower_bound(1024, 1.0, 0.1) == pytest.approx(3.47, abs=0.005)
    assert theorem16_lower_bound(1024, 1.0, 0.1, corrected=True) == pytest.approx((math.log(102.4) - 1) / 0.3)


@pytest.mark.parametrize("eps, expected", [(1.0, 0.917), (0.5, 0.476), (2.0, 1.73)])
def test_worst_case_loss_fixture_paper_lambda(eps, expected):
    lam = 3.0 / eps
    got = heavy_hitter_worst_case_loss(lam, 5.0, lam * math.log(160), 4, 40)
    # digest rounds the exact 0.9162… to 0.917
    assert got == pytest.approx(expected, abs=2e-3)
    # exact loss is well below the Lemma 28 certificate (the certificate is conservative)
    assert got <= lemma28_epsilon(lam, lam * math.log(160))


def test_worst_case_loss_recommended_lambda_within_half_eps():
    for eps in (0.5, 1.0, 2.0):
        lam = theorem15_lambda(eps, 0.1)
        got = heavy_hitter_worst_case_loss(lam, 3.0, lam * math.log(160), 4, 40)
        # digest: "0.36ε" (at ε = 1; integer counts make the ratio drift slightly with ε)
        assert got == pytest.approx(0.36 * eps, abs=0.02 * eps)
        assert got <= 0.5 * eps


# ------------------------------------------------------------------ exact loss against brute force
def _naive_counts(X, start, stop, s):
    return sum(1 for row in X if tuple(row[start:stop]) == s)


def _accept_prob(f, thr, mu, lam):
    t = thr - max(f, thr - mu)
    return 0.5 * math.exp(-t / lam) if t >= 0 else 1 - 0.5 * math.exp(t / lam)


def _brute_force_loss_d2(X, Xp, lam, tau, mu):
    """d = 2: the output is L_{12} ⊆ {00, 01, 10, 11}; enumerate all 16 outcomes."""
    cands = list(itertools.product([0, 1], repeat=2))
    worst = 0.0
    for acc in itertools.product([0, 1], repeat=4):
        lp = lq = 0.0
        for s, a in zip(cands, acc):
            p = _accept_prob(_naive_counts(X, 0, 2, s), tau, mu, lam)
            q = _accept_prob(_naive_counts(Xp, 0, 2, s), tau, mu, lam)
            lp += math.log(p if a else 1 - p)
            lq += math.log(q if a else 1 - q)
        worst = max(worst, abs(lp - lq))
    return worst


def _brute_force_loss_d4(X, Xp, lam, tau, mu):
    """d = 4: enumerate both level-1 lists (16 × 16 outcomes); the root's candidates are independent given them,
    so the worst root outcome takes the worse of accept/reject per candidate."""
    pairs = list(itertools.product([0, 1], repeat=2))
    worst = 0.0
    for sign in (1, -1):
        for accL in itertools.product([0, 1], repeat=4):
            for accR in itertools.product([0, 1], repeat=4):
                total = 0.0
                lists = []
                for (start, acc) in ((0, accL), (2, accR)):
                    kept = []
                    for s, a in zip(pairs, acc):
                        p = _accept_prob(_naive_counts(X, start, start + 2, s), tau, mu, lam)
                        q = _accept_prob(_naive_counts(Xp, start, start + 2, s), tau, mu, lam)
                        total += sign * (math.log(p if a else 1 - p) - math.log(q if a else 1 - q))
                        if a:
                            kept.append(s)
                    lists.append(kept)
                for l_, r_ in itertools.product(*lists):
                    s = l_ + r_
                    p = _accept_prob(_naive_counts(X, 0, 4, s), tau + mu, mu, lam)
                    q = _accept_prob(_naive_counts(Xp, 0, 4, s), tau + mu, mu, lam)
                    total += max(sign * (math.log(p) - math.log(q)), sign * (math.log(1 - p) - math.log(1 - q)))
                worst = max(worst, total)
    return worst


def _neighbours(X):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            Y = X.copy()
            Y[i, j] ^= 1
            yield Y


@pytest.mark.slow
@pytest.mark.parametrize("tau", [0.5, 1.0, 2.0])
def test_exact_loss_matches_brute_force_d2(tau):
    lam, mu = 1.3, 1.7
    for rows in itertools.product(range(4), repeat=3):
        X = np.array([[r >> 1, r & 1] for r in rows], dtype=np.uint8)
        for Y in _neighbours(X):
            assert heavy_hitter_privacy_loss(X, Y, lam, tau, mu) == pytest.approx(
                _brute_force_loss_d2(X, Y, lam, tau, mu), abs=1e-10)


@pytest.mark.slow
def test_exact_loss_matches_brute_force_d4():
    rng = np.random.default_rng(7)
    lam, tau, mu = 1.1, 1.0, 1.5
    for _ in range(6):
        X = rng.integers(0, 2, size=(3, 4)).astype(np.uint8)
        X[1] = X[0]  # a repeated record makes counts 2 and the chain longer
        for Y in list(_neighbours(X))[:6]:
            assert heavy_hitter_privacy_loss(X, Y, lam, tau, mu) == pytest.approx(
                _brute_force_loss_d4(X, Y, lam, tau, mu), abs=1e-10)


@pytest.mark.slow
def test_exact_loss_within_eps0_on_all_tiny_instances():
    """Every dataset of n = 3 people with d = 4 bits, every one-attribute neighbour: loss ≤ the stated ε0."""
    eps0 = 1.0
    p = heavy_hitter_params(eps0, 0.1, 20, share=1.0)  # λ calibrated so Lemma 28 gives ε0 for the HH step alone
    assert p.epsilon_certificate == pytest.approx(eps0)
    worst = 0.0
    for rows in itertools.combinations_with_replacement(range(16), 3):
        X = np.array([[(r >> (3 - b)) & 1 for b in range(4)] for r in rows], dtype=np.uint8)
        for Y in _neighbours(X):
            worst = max(worst, heavy_hitter_privacy_loss(X, Y, p.lam, 1.0, p.mu))
    assert 0 < worst <= eps0
    # the count-profile search is an upper bound on every concrete instance with n ≤ 3
    assert worst <= heavy_hitter_worst_case_loss(p.lam, 1.0, p.mu, 2, 3) + 1e-12


def test_level_loss_and_bound():
    lam = 3.0
    M = np.arange(1, 40, dtype=float)
    exact = level_privacy_loss(M, lam)
    assert np.all(exact <= level_privacy_loss_bound(M, lam) + 1e-15)
    assert np.all(np.diff(exact) < 0)  # far above threshold costs less


def test_path_loss_zero_when_nothing_changes():
    assert heavy_hitter_path_loss([[5, 5], [3, 3]], [[2, 2], [1, 1]], 1.0, 1.0, 2.0) == 0.0


# ------------------------------------------------------------------ statistical: planted heavy hitters
def _planted(seed=0, n=20000, d=16, counts=(1200, 2500, 3500, 4500, 6000)):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, d)).astype(np.uint8)
    planted = np.unique(rng.integers(0, 2, size=(len(counts), d)), axis=0)
    i = 0
    for p, c in zip(planted, counts):
        X[i:i + c] = p
        i += c
    return X, planted


def test_planted_heavy_hitters_found():
    X, planted = _planted()
    n, d = X.shape
    p = heavy_hitter_params(1.0, 0.1, n)
    # derived miss probability: a string with count ≥ 2τ exceeds every threshold τ_ℓ ≤ τ + 3μ by at least
    # m = τ − 3μ, so P[miss] ≤ Σ over the 2d − 1 nodes of ½e^{−m/λ} (proof of Lemma 30(i))
    m = p.tau - 3 * p.mu
    assert (2 * d - 1) * 0.5 * math.exp(-m / p.lam) < 1e-40
    res = priv_heavy_hitter(X, p.lam, p.tau, p.mu, rng=1)
    found = {tuple(r) for r in res.found}
    assert {tuple(r) for r in planted} <= found
    # anything else found is not a heavy hitter (count < νn)
    for r in found - {tuple(r) for r in planted}:
        assert np.sum(np.all(X == np.array(r), axis=1)) < 0.1 * n
    # thresholds increase by μ per level; leaves → root
    thr = sorted({nd.threshold for nd in res.nodes})
    np.testing.assert_allclose(np.diff(thr), p.mu)
    assert res.levels == 4 and len(res.nodes) == 8 + 4 + 2 + 1


def test_histogram_counts_and_error():
    X, planted = _planted(seed=3)
    h = priv_histogram(X, 1.0, rng=5)
    assert h.count_scale == 4.0  # corrected Laplace(4/ε0) (erratum E6)
    assert {tuple(r) for r in planted} <= {tuple(r) for r in h.strings}
    # error ≤ νn w.p. ≥ 1 − η (Theorem 15); Laplace(4) errors on ≤ 40 strings exceed 60 with prob ≤ 40·e^{−15}
    assert h.max_error(X) <= 0.1 * X.shape[0]
    assert np.max(np.abs(h.noisy_counts - h.true_counts)) < 60


def test_lemma30_conditions_report():
    c = lemma30_conditions(16, 200000, 8.0252, 8.0252 * math.log(160), 0.1, 0.1)
    assert c["tau_large"] and c["mu_large"] and c["nu_eta_small"]
    assert not lemma30_conditions(16, 20000, 8.0252, 8.0252 * math.log(160), 0.1, 0.1)["tau_large"]


def test_padding_and_power_of_two():
    X = np.array([[1, 0, 1], [1, 0, 1], [0, 0, 0]])
    assert pad_to_power_of_two(X).shape == (3, 4)
    with pytest.raises(ValueError, match="power of two"):
        priv_heavy_hitter(X, 1.0, 1.0, 2.0, rng=0)
    res = priv_heavy_hitter(X, 0.3, 0.5, 2.0, pad=True, rng=0)
    assert res.d == 3 and res.d_padded == 4 and res.found.shape[1] == 3


@pytest.mark.parametrize("X, match", [
    (np.zeros((0, 4)), "empty"),
    (np.array([[0, 2, 1, 0]]), "0 and 1"),
    (np.zeros(4), "2-D"),
])
def test_bad_data(X, match):
    with pytest.raises(ValueError, match=match):
        priv_heavy_hitter(X, 1.0, 1.0, 2.0)


@pytest.mark.parametrize("call", [
    lambda E: priv_histogram(E, 1.0),
    lambda E: canonical_histogram(E, 1.0),
    lambda E: PD.projection_mechanism(E, 0.1),
    lambda E: PD.point_learner(E, np.zeros(0), 1.0, 0.2),
    lambda E: PD.threshold_learner(E, np.zeros(0), 1.0, 0.2),
    lambda E: PD.distribution_estimate(E, 1.0, nu=0.1),
    lambda E: PD.robust_halfspace_learner(E, np.zeros(0), 1.0, 0.6, 0.1),
], ids=["histogram", "canonical", "projection", "point", "threshold", "distribution", "halfspace"])
def test_empty_data_is_rejected_everywhere(call):
    with pytest.raises(ValueError, match="X is empty"):
        call(np.zeros((0, 4)))


def test_bad_parameters():
    X = np.zeros((4, 4))
    with pytest.raises(ValueError, match="lam"):
        priv_heavy_hitter(X, 0.0, 1.0, 2.0)
    with pytest.raises(ValueError, match="nu"):
        priv_histogram(X, 1.0, nu=0.0)
    with pytest.raises(ValueError, match="eps0"):
        heavy_hitter_params(-1.0, 0.1, 10)
    with pytest.raises(ValueError, match="exactly one"):
        heavy_hitter_privacy_loss(X, np.ones((4, 4)), 1.0, 1.0, 2.0)


# ------------------------------------------------------------------ canonical histogram (A5)
def test_canonical_histogram_noise_scale():
    rng = np.random.default_rng(11)
    X = rng.integers(0, 2, size=(500, 10))
    counts = np.bincount(X @ (1 << np.arange(9, -1, -1)), minlength=1024)
    eps = 1.0
    noise = np.concatenate([canonical_histogram(X, eps, rng=s) - counts for s in range(20)])
    var = 2 * (2 / eps) ** 2  # Laplace(2/ε): replace-one L1 sensitivity 2
    se = var * math.sqrt(5 / noise.size)  # Laplace excess kurtosis 3 → Var(s²) ≈ (κ − 1)σ⁴/N with κ = 6
    assert abs(noise.var() - var) < 5 * se
    assert abs(noise.mean()) < 5 * math.sqrt(var / noise.size)


def test_rounding_reveals_exact_counts_monte_carlo():
    eps = 4.0
    rng = np.random.default_rng(2)
    xi = rng.laplace(0, 1 / eps, size=200000)
    p = 1 - math.exp(-eps / 2)
    assert abs(np.mean(np.abs(xi) < 0.5) - p) < 5 * math.sqrt(p * (1 - p) / xi.size)


# ------------------------------------------------------------------ the sampler follows Algorithm 2's exact law
@pytest.mark.slow
def test_sampler_matches_exact_output_law_d4():
    """d = 4, n = 3: under Algorithm 2 a string s = s_L s_R is in L_[4] iff s_L ∈ L_{12}, s_R ∈ L_{34} and s is
    accepted at the root, three independent events, so P[s ∈ L_[4]] = p_1(s_L)·p_1(s_R)·p_2(s) with
    p_ℓ(s) = P[max{f_s, τ_ℓ − μ} + Lap(λ) > τ_ℓ], τ_ℓ = τ + (ℓ−1)μ. Every candidate counts, including the many
    strings with count 0 (P9); all four leaves start as {0, 1} (E3). Frequencies over R runs within 5 binomial
    standard errors of the exact probabilities (28 comparisons)."""
    X = np.array([[1, 0, 1, 1], [1, 0, 1, 1], [0, 1, 1, 0]], dtype=np.uint8)
    lam, tau, mu, R = 1.1, 1.5, 1.0, 4000  # τ_ℓ − μ > 0: the clamp binds at both levels (P10)
    pairs = list(itertools.product([0, 1], repeat=2))
    p1 = {(start, s): _accept_prob(_naive_counts(X, start, start + 2, s), tau, mu, lam) for start in (0, 2)
          for s in pairs}
    exact_root = {sl + sr: p1[(0, sl)] * p1[(2, sr)] * _accept_prob(_naive_counts(X, 0, 4, sl + sr), tau + mu, mu, lam)
                  for sl in pairs for sr in pairs}
    root = dict.fromkeys(exact_root, 0)
    level1 = dict.fromkeys(p1, 0)
    for seed in range(R):
        res = priv_heavy_hitter(X, lam, tau, mu, rng=seed)
        for r in res.found:
            root[tuple(int(b) for b in r)] += 1
        for nd in res.nodes:
            if nd.level == 1:
                for c in nd.accepted_codes:
                    level1[(nd.start - 1, (int(c) >> 1, int(c) & 1))] += 1
    for table, exact in ((root, exact_root), (level1, p1)):
        for key, p in exact.items():
            assert abs(table[key] / R - p) <= 5 * math.sqrt(p * (1 - p) / R) + 1e-12, (key, table[key] / R, p)
    assert min(exact_root.values()) > 0.005  # zero-count strings are real candidates with a real chance


@pytest.mark.parametrize("width", [1, 3, 8, 16, 17, 24])
def test_a_nodes_string_counts_are_exact_by_table_and_by_sorting(width):
    """PrivHeavyHitter counts each candidate string of a node by a table of all 2^width strings (up to 16 bits) or
    by sorting (wider): both are the brute-force counts, candidates absent from the data included (count 0)."""
    from dpviz.partial.histograms import _counts_of

    g = np.random.default_rng(width)
    bits = min(width - 1, 6)  # 3000 codes among 2^bits values, spread over the width: repeats, and gaps
    sub = g.integers(0, 1 << bits, size=3000).astype(np.int64) << (width - bits)
    cands = np.unique(np.concatenate([sub[:40], g.integers(0, 1 << width, size=40)])).astype(np.int64)
    got = _counts_of(sub, cands, width)
    assert got.tolist() == [int(np.sum(sub == c)) for c in cands]
    assert (got == 0).any() and (got > 1).any()
