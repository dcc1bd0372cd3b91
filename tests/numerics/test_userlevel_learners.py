"""Pure user-level DP learners (Section 4 / Appendix E of 000): exact scores, sensitivities, EM probabilities,
and simulated errors that fall with n and m."""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

from dpviz.userlevel import (
    ClippedPairwiseEM,
    ThresholdClass,
    UserDataset,
    agnostic_pac_learner,
    discrete_cover,
    learn_distribution_cover,
    pac_scores,
    pairwise_sum_pmf,
    paper_tau,
    realizable_pac_learner,
    scheffe_selection,
    simulate_threshold_learning,
)

mp.mp.dps = 40


def em_oracle(losses, eps, sens):
    w = [mp.e ** (-mp.mpf(eps) * mp.mpf(float(s)) / (2 * mp.mpf(sens))) for s in losses]
    Z = mp.fsum(w)
    return np.array([float(v / Z) for v in w])


# ------------------------------------------------------------------------------------------------ ALG-8
class TestRealizable:
    def test_score_is_number_of_users_with_a_mistake(self):
        rng = np.random.default_rng(0)
        P = rng.integers(0, 2, size=(6, 5))
        X = rng.integers(0, 5, size=(7, 4))
        Y = rng.integers(0, 2, size=(7, 4))
        want = [sum(any(P[h, X[i, j]] != Y[i, j] for j in range(4)) for i in range(7)) for h in range(6)]
        assert pac_scores(X, Y, P).tolist() == want

    def test_threshold_fast_scores_match(self):
        H = ThresholdClass(12)
        for seed in range(5):
            X, Y = H.sample(30, 6, target=seed * 2, label_noise=0.1 * (seed % 2), rng=seed)
            assert np.array_equal(H.realizable_scores(X, Y), pac_scores(X, Y, H.predictions()))
            M = H.mistake_counts(X, Y)
            brute = (H.predictions()[:, X] != Y[None]).sum(axis=2)
            assert np.array_equal(M, brute)

    def test_user_level_sensitivity_one(self):
        # every neighbour (one user's whole block of labelled examples replaced) moves every score by ≤ 1
        H = ThresholdClass(3)
        P = H.predictions()
        X = np.array([[0, 2], [1, 1], [2, 0]])
        Y = np.array([[0, 1], [1, 1], [1, 0]])
        base = pac_scores(X, Y, P)
        pairs = list(itertools.product(range(3), (0, 1)))
        worst = 0
        for i in range(3):
            for block in itertools.product(pairs, repeat=2):
                X2, Y2 = X.copy(), Y.copy()
                X2[i] = [b[0] for b in block]
                Y2[i] = [b[1] for b in block]
                worst = max(worst, int(np.abs(pac_scores(X2, Y2, P) - base).max()))
        assert worst == 1
        # the unclipped mistake count would move by m = 2
        raw = (P[:, X] != Y[None]).sum(axis=(1, 2))
        X2, Y2 = X.copy(), Y.copy()
        X2[1], Y2[1] = [0, 0], [1, 1]
        raw2 = (P[:, X2] != Y2[None]).sum(axis=(1, 2))
        assert np.abs(raw2 - raw).max() == 2

    def test_em_probabilities(self):
        H = ThresholdClass(8)
        X, Y = H.sample(10, 3, target=4, rng=3)
        sel = realizable_pac_learner(X, Y, H.predictions(), 0.7, rng=0)
        assert np.allclose(sel.probabilities, em_oracle(sel.scores, 0.7, 1.0), rtol=1e-12, atol=0)
        assert sel.sensitivity == 1.0 and sel.epsilon == 0.7

    def test_truncation_to_one_over_alpha(self):
        H = ThresholdClass(10)
        X, Y = H.sample(15, 12, target=5, rng=1)
        sel = realizable_pac_learner(X, Y, H.predictions(), 1.0, alpha=0.25, rng=0)  # keep ⌊1/α⌋ = 4
        assert np.array_equal(sel.scores, pac_scores(X[:, :4], Y[:, :4], H.predictions()))
        Y2 = Y.copy()
        Y2[:, 4:] = 1 - Y2[:, 4:]  # examples beyond the cut are disregarded
        sel2 = realizable_pac_learner(X, Y2, H.predictions(), 1.0, alpha=0.25, rng=0)
        assert np.array_equal(sel.probabilities, sel2.probabilities)
        full = realizable_pac_learner(X, Y, H.predictions(), 1.0, rng=0)
        assert np.array_equal(full.scores, pac_scores(X, Y, H.predictions()))

    def test_exact_errors(self):
        H = ThresholdClass(4)
        assert H.errors(1, 0.1).tolist() == pytest.approx([0.1 + 0.8 * d / 4 for d in (1, 0, 1, 2, 3)])

    @pytest.mark.parametrize(
        "call, name",
        [
            (lambda H: realizable_pac_learner([[0]], [[1]], H.predictions(), 0.0), "epsilon"),
            (lambda H: realizable_pac_learner([[0, 1]], [[1]], H.predictions(), 1.0), "Y"),
            (lambda H: realizable_pac_learner([[0]], [[2]], H.predictions(), 1.0), "Y"),
            (lambda H: realizable_pac_learner([[9]], [[1]], H.predictions(), 1.0), "X"),
            (lambda H: realizable_pac_learner(np.zeros((0, 2)), np.zeros((0, 2)), H.predictions(), 1.0), "X"),
            (lambda H: realizable_pac_learner([[0]], [[1]], H.predictions(), 1.0, alpha=0.0), "alpha"),
            (lambda H: H.sample(3, 0, 1), "m"),
            (lambda H: H.sample(0, 2, 1), "n_users"),
            (lambda H: ThresholdClass(0), "grid_size"),
            (lambda H: simulate_threshold_learning(10, 0, 1.0), "m"),
        ],
    )
    def test_bad_input(self, call, name):
        with pytest.raises(ValueError, match=name):
            call(ThresholdClass(4))


# ------------------------------------------------------------------------------------------------ ALG-9
def clipped_scores_for(psi_tab, blocks, tau):
    """Brute-force ALG-9 scores from a per-example comparison table psi_tab[a, b, z]."""
    u = np.stack([psi_tab[:, :, b].sum(axis=2) for b in blocks], axis=2)  # (K, K, n)
    return ClippedPairwiseEM(1.0, tau).scores(u)


class TestClippedPairwiseEM:
    @pytest.mark.parametrize("tau", [0.5, 1.0, 1.7, 3.0, 10.0])
    def test_sensitivity_at_most_2tau_brute_force(self, tau):
        rng = np.random.default_rng(int(tau * 10))
        K, Z, n, m = 3, 3, 3, 3
        worst = 0.0
        for _ in range(3):
            psi = rng.uniform(-1, 1, size=(K, K, Z))
            x = rng.integers(0, Z, size=(n, m))
            base = clipped_scores_for(psi, list(x), tau)
            for i in range(n):
                for block in itertools.product(range(Z), repeat=m):
                    x2 = x.copy()
                    x2[i] = block
                    worst = max(worst, float(np.abs(clipped_scores_for(psi, list(x2), tau) - base).max()))
        assert worst <= 2 * tau + 1e-12
        assert worst <= 2 * m + 1e-12  # |u| ≤ m: the real sensitivity is 2·min(τ, m)

    def test_bound_is_attained(self):
        # ψ = ±1 on two symbols: switching a user from all "+" to all "−" moves the clipped term by exactly 2τ
        psi = np.zeros((2, 2, 2))
        psi[0, 1] = [1, -1]
        psi[1, 0] = [-1, 1]
        tau = 2.0
        x = [np.zeros(3, dtype=int), np.zeros(3, dtype=int)]
        y = [np.ones(3, dtype=int), np.zeros(3, dtype=int)]
        d = np.abs(clipped_scores_for(psi, x, tau) - clipped_scores_for(psi, y, tau)).max()
        assert d == pytest.approx(2 * tau)

    def test_scores_exclude_self_and_probabilities(self):
        u = np.zeros((3, 3, 2))
        u[0, 1] = [5, 5]
        u[1, 0] = [-5, -5]
        u[2, 0] = [1, -1]
        u[0, 0] = [100, 100]  # b = a must be ignored
        em = ClippedPairwiseEM(0.8, 2.0)
        scr = em.scores(u)
        assert scr.tolist() == [4.0, 0.0, 0.0]
        assert np.allclose(em.probabilities(u), em_oracle(scr, 0.8, 4.0), rtol=1e-12)
        # exponent −ε·scr/(4τ)
        p = em.probabilities(u)
        assert p[1] / p[0] == pytest.approx(math.exp(0.8 * 4.0 / 8.0))

    def test_scores_from_differences(self):
        rng = np.random.default_rng(5)
        M = rng.integers(0, 6, size=(4, 9)).astype(float)
        u = M[:, None, :] - M[None, :, :]
        em = ClippedPairwiseEM(1.0, 1.5)
        assert np.allclose(em.scores_from_differences(M), em.scores(u))

    @pytest.mark.parametrize("tau", [0.0, -1.0])
    def test_bad_tau(self, tau):
        with pytest.raises(ValueError, match="tau"):
            ClippedPairwiseEM(1.0, tau)
        H = ThresholdClass(3)
        with pytest.raises(ValueError, match="tau"):
            agnostic_pac_learner([[0]], [[1]], H.predictions(), 1.0, tau=tau)

    def test_paper_tau(self):
        assert paper_tau(64, 0.05) == pytest.approx(0.05 * 64 + math.sqrt(64 * math.log(20)))
        assert paper_tau(64, 0.05, constant=3.0) == pytest.approx(3 * paper_tau(64, 0.05))

    def test_pairwise_sum_pmf_brute(self):
        m, pl, mi = 4, 0.3, 0.2
        want = np.zeros(2 * m + 1)
        for seq in itertools.product((-1, 0, 1), repeat=m):
            pr = math.prod({1: pl, -1: mi, 0: 1 - pl - mi}[s] for s in seq)
            want[sum(seq) + m] += pr
        assert np.allclose(pairwise_sum_pmf(m, pl, mi), want, rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------------------------------------ ALG-10
class TestAgnostic:
    def test_corrected_sign(self):
        # h0 perfect, h1 always wrong: ψ_{h0,h1} = 1[h0 wrong] − 1[h1 wrong] = −1 per example → h0 scores lower
        P = np.array([[0, 1], [1, 0]])
        X = np.array([[0, 1], [1, 1]])
        Y = np.array([[0, 1], [1, 1]])
        sel = agnostic_pac_learner(X, Y, P, 1.0, tau=1.5)
        assert sel.scores.tolist() == [-3.0, 3.0]
        assert sel.probabilities[0] > sel.probabilities[1]

    def test_matches_alg9_with_explicit_psi(self):
        H = ThresholdClass(5)
        X, Y = H.sample(6, 3, target=2, label_noise=0.2, rng=4)
        P = H.predictions()
        wrong = (P[:, X] != Y[None]).astype(float)  # (K, n, m)
        psi = wrong[:, None] - wrong[None, :]  # (K, K, n, m): 1[c wrong] − 1[c′ wrong]
        em = ClippedPairwiseEM(1.0, 2.0)
        sel = agnostic_pac_learner(X, Y, P, 1.0, tau=2.0)
        assert np.allclose(sel.scores, em.scores(ClippedPairwiseEM.user_sums(psi)))
        assert np.allclose(sel.probabilities, em_oracle(sel.scores, 1.0, 4.0), rtol=1e-12)

    def test_user_level_sensitivity_brute(self):
        H = ThresholdClass(2)
        P = H.predictions()
        X = np.array([[0, 1], [1, 1]])
        Y = np.array([[0, 0], [1, 0]])
        tau = 0.8
        base = agnostic_pac_learner(X, Y, P, 1.0, tau=tau).scores
        worst = 0.0
        pairs = list(itertools.product(range(2), (0, 1)))
        for i in range(2):
            for block in itertools.product(pairs, repeat=2):
                X2, Y2 = X.copy(), Y.copy()
                X2[i] = [b[0] for b in block]
                Y2[i] = [b[1] for b in block]
                s = agnostic_pac_learner(X2, Y2, P, 1.0, tau=tau).scores
                worst = max(worst, float(np.abs(s - base).max()))
        assert worst <= 2 * tau + 1e-12


# ------------------------------------------------------------------------------------------------ ALG-11, ALG-12
class TestScheffe:
    def test_user_sums_by_brute_force(self):
        C = np.array([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6], [0.1, 0.6, 0.3]])
        X = np.array([[0, 2, 2, 1], [1, 1, 0, 0]])
        tau = 1.3
        # per-example ψ_{P,P′}(z) = P(W) − 1[z ∈ W], W = {P > P′} strict
        K = 3
        psi = np.zeros((K, K, 2, 4))
        for a in range(K):
            for b in range(K):
                W = C[a] > C[b]
                for i in range(2):
                    for j in range(4):
                        psi[a, b, i, j] = C[a][W].sum() - float(W[X[i, j]])
        want = ClippedPairwiseEM(1.0, tau).scores(ClippedPairwiseEM.user_sums(psi))
        sel = scheffe_selection(X, C, 1.0, tau=tau)
        assert np.allclose(sel.scores, want)
        assert sel.sensitivity == 2 * tau

    def test_ragged_users_dataset(self):
        C = np.array([[0.7, 0.3], [0.3, 0.7]])
        x = UserDataset([[0, 0, 1], [1], [0, 0]])
        sel = scheffe_selection(x, C, 1.0, tau=5.0)
        # u[0,1,i] = c_i·0.7 − #zeros... W_{0,1} = {0}; scr[0] = Σ(c_i·0.7 − #0) = 0.7·6 − 4
        assert sel.scores[0] == pytest.approx(0.7 * 6 - 4)

    def test_sensitivity_brute(self):
        C = np.array([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5], [1 / 3, 1 / 3, 1 / 3]])
        X = np.array([[0, 1, 2], [2, 2, 0], [1, 1, 1]])
        tau = 1.2
        base = scheffe_selection(X, C, 1.0, tau=tau).scores
        worst = 0.0
        for i in range(3):
            for block in itertools.product(range(3), repeat=3):
                X2 = X.copy()
                X2[i] = block
                worst = max(worst, float(np.abs(scheffe_selection(X2, C, 1.0, tau=tau).scores - base).max()))
        assert worst <= 2 * tau + 1e-12

    def test_discrete_cover(self):
        k, alpha = 3, 1.0
        cov = discrete_cover(k, alpha)
        M = 30
        assert cov.shape == (math.comb(M + k - 1, k - 1), k)
        assert np.allclose(cov.sum(axis=1), 1) and np.allclose(cov * M, np.round(cov * M))
        assert len({tuple(r) for r in np.round(cov * M).astype(int)}) == len(cov)
        rng = np.random.default_rng(0)
        for p in rng.dirichlet(np.ones(k), size=20):
            tv = 0.5 * np.abs(cov - p).sum(axis=1).min()
            assert tv <= k / (2 * M) + 1e-12 and tv <= 0.1 * alpha / 2 + 1e-12
        # M = ⌊10k/α⌋ floored (k = 3, α = 0.7: M = 42): still a 0.1α-cover, though k/(2M) > α/20 here
        cov = discrete_cover(3, 0.7)
        assert cov.shape[0] == math.comb(44, 2)
        for p in rng.dirichlet(np.ones(3), size=200):
            assert 0.5 * np.abs(cov - p).sum(axis=1).min() < 0.1 * 0.7
        with pytest.raises(ValueError, match="alpha"):
            discrete_cover(5, 0.01)

    def test_learning_error_falls_with_n(self):
        # Fixed seeds: mean TV distance of the output falls significantly (3 standard errors) from n = 10 to 200.
        true = np.array([0.2, 0.5, 0.3])
        cover = discrete_cover(3, 0.5, resolution=10)
        res = {}
        for n in (10, 200):
            rng = np.random.default_rng(n)
            tvs = []
            for _ in range(30):
                X = rng.choice(3, size=(n, 5), p=true)
                pmf, _ = learn_distribution_cover(X, 3, 1.0, 0.5, cover=cover, rng=rng)
                tvs.append(0.5 * np.abs(pmf - true).sum())
            res[n] = (np.mean(tvs), np.std(tvs, ddof=1) / math.sqrt(30))
        (m1, s1), (m2, s2) = res[10], res[200]
        assert m2 < m1 - 3 * math.hypot(s1, s2)
        assert m2 <= 0.5  # Theorem 41 target α with this cover


# ------------------------------------------------------------------------------------------- simulated learning curves
class TestSimulation:
    def test_error_falls_with_n_and_m(self):
        """Theorem 4: error ≈ C·ln(K+1)/(ε n m) while m ≤ 1/α. For thresholds with EM, a direct computation with the
        expected score n·(1 − (1 − d/K)^m) ≈ n·m·d/K gives P(d) ∝ e^{−εnm·d/(2K)}, i.e. error ≈ 2/(ε n m) when
        εnm ≪ 2K [derived]. Checks: significant decreases (3 standard errors) in n and in m, and error·n·m within a
        factor 2 of 2/ε (the factor covers the score's random fluctuations, which the derivation ignores)."""
        K, eps, T = 400, 1.0, 300
        ns, ms = np.array([10, 20, 40]), np.array([1, 4])
        mean, se = simulate_threshold_learning(
            ns[:, None], ms[None, :], eps, grid_size=K, trials=T, target=K // 2, return_se=True, rng=7
        )
        assert mean.shape == (3, 2)
        for j in range(2):
            for i in range(2):
                assert mean[i + 1, j] < mean[i, j] - 3 * math.hypot(se[i, j], se[i + 1, j])
        for i in range(3):
            assert mean[i, 1] < mean[i, 0] - 3 * math.hypot(se[i, 0], se[i, 1])
        scaled = mean * ns[:, None] * ms[None, :] * eps
        assert np.all(scaled > 1.0) and np.all(scaled < 4.0)

    def test_agnostic_excess_error_falls(self):
        mean, se = simulate_threshold_learning(
            [30, 240], 4, 2.0, grid_size=50, trials=60, label_noise=0.1, learner="agnostic", alpha=0.2,
            return_se=True, rng=3,
        )
        assert mean[1] < mean[0] - 3 * math.hypot(se[0], se[1])
        assert np.all(mean >= 0)

    @pytest.mark.parametrize("n, m, K, trials, eta, learner, alpha, target", [
        (7, 3, 20, 12, 0.0, "realizable", None, None),
        (5, 9, 30, 10, 0.0, "realizable", 0.25, None),  # m > 1/α: truncated to 4 examples
        (4, 2, 12, 15, 0.0, "realizable", None, 5),
        (6, 4, 15, 8, 0.1, "agnostic", 0.3, None),
        (3, 2, 10, 8, 0.2, "agnostic", None, 4),  # τ = m: no clipping
    ])
    def test_equals_the_public_learners_trial_by_trial(self, n, m, K, trials, eta, learner, alpha, target):
        """The simulation runs on private kernels; trial by trial it must equal the public pieces called in the same
        order with the same generator (H.sample, the public learner on brute-force scores, H.errors): same draws,
        so the same picks and the same mean and standard error, exactly."""
        H = ThresholdClass(K)
        gen = np.random.default_rng(11)
        errs = []
        for _ in range(trials):
            tgt = int(gen.integers(K + 1)) if target is None else target
            X, Y = H.sample(n, m, tgt, label_noise=eta, rng=gen)
            if learner == "realizable":
                pick = realizable_pac_learner(X, Y, H.predictions(), 0.8, alpha=alpha, rng=gen).index
            else:
                pick = agnostic_pac_learner(X, Y, H.predictions(), 0.8, alpha=alpha, rng=gen).index
            errs.append(H.errors(tgt, eta)[pick] - (eta if learner == "agnostic" else 0.0))
        mean, se = simulate_threshold_learning(n, m, 0.8, grid_size=K, trials=trials, label_noise=eta,
                                               learner=learner, alpha=alpha, target=target, return_se=True,
                                               rng=np.random.default_rng(11))
        assert mean == float(np.mean(errs))
        assert se == float(np.std(errs, ddof=1) / math.sqrt(trials))

    def test_scalar_returns_float(self):
        e = simulate_threshold_learning(10, 2, 1.0, grid_size=20, trials=3, rng=0)
        assert isinstance(e, float)
        with pytest.raises(ValueError, match="learner"):
            simulate_threshold_learning(10, 2, 1.0, learner="magic")


def test_the_learners_exponential_mechanism_is_the_public_one_draw_for_draw():
    """The learners' selection runs the exponential mechanism's unchecked kernels (validated once by each learner):
    the same probabilities and the same index, draw for draw, as dpviz.mechanisms.exponential_mechanism."""
    from dpviz.mechanisms import exponential_mechanism, exponential_mechanism_probabilities
    from dpviz.userlevel.learners import _em_selection

    rng = np.random.default_rng(4)
    for _ in range(50):
        losses = rng.integers(0, 40, size=int(rng.integers(2, 30))).astype(float)
        eps, sens = float(rng.uniform(0.05, 5)), float(rng.choice([1.0, 2.0, 7.5]))
        seed = int(rng.integers(1 << 30))
        sel = _em_selection(losses, eps, sens, np.random.default_rng(seed))
        assert sel.index == exponential_mechanism(-losses, eps, sens, rng=np.random.default_rng(seed))
        assert np.array_equal(sel.probabilities, exponential_mechanism_probabilities(-losses, eps, sens))
        assert sel.epsilon == eps and sel.sensitivity == sens and np.array_equal(sel.scores, losses)
