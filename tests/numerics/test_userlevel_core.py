"""Tests for dpviz.userlevel: data model, baselines, TDLap/κ, divergences, calculators (paper 000, digest §9)."""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz.userlevel import (
    TABLE1_ROWS,
    TABLE2_ROWS,
    NoisySum,
    UserDataset,
    approx_eq,
    bounding_tradeoff,
    breakpoints,
    contribution_bound,
    corollary3_users,
    crossover_group_privacy,
    delstab_parameters,
    group_privacy_item_budget,
    group_privacy_lift,
    group_privacy_users,
    hockey_stick,
    is_lddp,
    item_level_users,
    kappa,
    observation28_bounds,
    subsample_users,
    subsampling_amplification,
    swap_difference_pmf,
    tdlap_pmf,
    tdlap_sample,
    theorem4_users,
    theorem10_item_delta,
    theorem10_item_epsilon,
    theorem10_users,
    theorem11_users,
    truncation_bias,
)

mp.mp.dps = 40


# ------------------------------------------------------------------------------------------------ data model
class TestUserDataset:
    def test_rectangular_and_ragged(self):
        x = UserDataset.from_array(np.zeros((4, 3)))
        assert (x.n_users, x.m, x.n_items, x.is_rectangular) == (4, 3, 12, True)
        y = UserDataset.bernoulli(3, counts=[1, 4, 2], rng=0)
        assert y.counts.tolist() == [1, 4, 2] and not y.is_rectangular
        with pytest.raises(ValueError, match="ragged"):
            _ = y.m
        assert y.user_of_item().tolist() == [0, 1, 1, 1, 1, 2, 2]

    @pytest.mark.parametrize(
        "blocks, name",
        [([], "blocks"), ([[1.0], []], r"blocks\[1\]"), ([[1.0], [np.nan]], r"blocks\[1\]")],
    )
    def test_bad_blocks(self, blocks, name):
        with pytest.raises(ValueError, match=name):
            UserDataset(blocks)

    def test_bad_constructor_args(self):
        with pytest.raises(ValueError, match="^m = 0"):
            UserDataset.bernoulli(3, 0)
        with pytest.raises(ValueError, match="n_users"):
            UserDataset.bernoulli(0, 2)
        with pytest.raises(ValueError, match="counts"):
            UserDataset.bernoulli(2, counts=[1, 0])
        with pytest.raises(ValueError, match="m and counts"):
            UserDataset.bernoulli(2)

    def test_item_neighbor_differs_in_exactly_one_item(self):
        x = UserDataset.bernoulli(5, 4, rng=1)
        for seed in range(20):
            y = x.item_neighbor(rng=seed)
            assert y.n_users == x.n_users and (y.counts == x.counts).all()
            diff = np.abs(x.as_array() - y.as_array())
            assert diff.sum() == 1  # bits: exactly one example flipped

    def test_user_neighbor_keeps_others(self):
        x = UserDataset.bernoulli(6, 3, rng=2)
        for seed in range(20):
            y = x.user_neighbor(rng=seed)
            changed = [i for i in range(6) if not np.array_equal(x.blocks[i], y.blocks[i])]
            assert len(changed) == 1 and y.n_users == 6  # substitution, n fixed (Definition 1)

    def test_iter_user_neighbors_counts(self):
        x = UserDataset.from_array([[0, 1], [1, 1]], domain=(0, 1))
        nbs = list(x.iter_user_neighbors())
        assert len(nbs) == 2 * (2**2 - 1)

    def test_remove_users(self):
        x = UserDataset.from_array([[0], [1], [2]])
        assert x.remove_users([0, 2]).items().tolist() == [1]
        with pytest.raises(ValueError, match="users"):
            x.remove_users([0, 1, 2])


# ------------------------------------------------------------------------------------------------ baselines
class TestBaselines:
    def test_contribution_bound_counts(self):
        x = UserDataset.bernoulli(4, counts=[1, 5, 3, 8], rng=0)
        for k in (1, 2, 4, 10):
            y = contribution_bound(x, k, rng=3)
            assert y.counts.tolist() == np.minimum(x.counts, k).tolist()
        with pytest.raises(ValueError, match="k"):
            contribution_bound(x, 0)

    def test_truncation_bias_exact_by_enumeration(self):
        # E over every equally likely kept subset, enumerated (oracle independent of the closed form).
        x = UserDataset([[3, 1, 4], [1, 5], [9]])
        k = 2
        means = []
        for keep0 in itertools.combinations(range(3), 2):
            for keep1 in itertools.combinations(range(2), 2):
                s = sum(x.blocks[0][list(keep0)]) + sum(x.blocks[1][list(keep1)]) + 9
                means.append(s)
        exp_sum = np.mean(means)
        assert truncation_bias(x, k, "sum") == pytest.approx(exp_sum - 23, abs=1e-12)
        assert truncation_bias(x, k, "count") == -1.0
        assert truncation_bias(x, k, "mean") == pytest.approx(exp_sum / 5 - 23 / 6, abs=1e-12)
        assert truncation_bias(x, 3, "sum") == 0.0

    def test_bounding_tradeoff_noise(self):
        x = UserDataset.bernoulli(10, counts=list(range(1, 11)), rng=0)
        t = bounding_tradeoff(x, [1, 2, 5], 0.5)
        assert t["noise_sd"] == pytest.approx(math.sqrt(2) * np.array([1, 2, 5]) / 0.5)
        assert np.all(np.diff(t["bias"]) >= 0)  # less truncation as k grows
        ti = bounding_tradeoff(x, [1, 2, 5], 0.5, level="item")
        assert np.all(ti["sensitivity"] == 1.0)

    @pytest.mark.parametrize("eps, delta, m", [(0.1, 1e-6, 10), (1.0, 1e-5, 3), (0.5, 0.0, 7), (2.0, 1e-9, 1)])
    def test_group_privacy_geometric_factor(self, eps, delta, m):
        em, dm = group_privacy_lift(eps, delta, m)
        factor = mp.fsum(mp.e ** (j * mp.mpf(eps)) for j in range(m))  # Σ_{j<m} e^{jε} (Lemma 6)
        assert em == pytest.approx(m * eps, rel=1e-14)
        assert dm == pytest.approx(float(min(1, factor * delta)), rel=1e-12, abs=0)
        if delta > 0 and m > 1:
            assert dm > m * delta  # not the linear factor m (pitfall 3)

    def test_group_privacy_item_budget_round_trip(self):
        # the exact inverse of Lemma 6 (Ghazi et al. 2023): the lift gives the target back to the last bit here,
        # and δ₀ is δ(e^{ε/m} − 1)/(e^{ε} − 1) (mpmath), not the looser δ/(m·e^{(m−1)ε/m})
        for m in (1, 4, 50):
            e0, d0 = group_privacy_item_budget(1.0, 1e-6, m)
            assert group_privacy_lift(e0, d0, m) == (1.0, 1e-6)
            assert d0 == pytest.approx(float(mp.mpf(1e-6) * mp.expm1(mp.mpf(1) / m) / mp.expm1(1)), rel=1e-14)

    def test_group_privacy_bad(self):
        with pytest.raises(ValueError, match="^m = 0"):
            group_privacy_lift(1.0, 1e-6, 0)


# ------------------------------------------------------------------------------------------------ TDLap and κ
class TestTDLap:
    @pytest.mark.parametrize("eps, delta", [(1.0, 1e-6), (0.3, 0.01), (2.0, 0.4), (0.05, 1e-9)])
    def test_kappa_oracle(self, eps, delta):
        want = 1 + int(mp.ceil(mp.log(1 / mp.mpf(delta)) / mp.mpf(eps)))
        assert kappa(eps, delta) == want

    @pytest.mark.parametrize("eps, delta", [(1.0, 1e-6), (0.3, 0.01), (2.0, 0.4), (0.05, 1e-4)])
    def test_pmf_support_endmass_and_closed_form(self, eps, delta):
        p = tdlap_pmf(eps, delta)
        k = kappa(eps, delta)
        assert len(p) == 2 * k + 1
        w = [mp.e ** (-mp.mpf(eps) * abs(r - k)) for r in range(2 * k + 1)]
        Z = mp.fsum(w)
        assert np.allclose(p, [float(v / Z) for v in w], rtol=1e-12, atol=0)
        assert p[0] == p[-1] and p[0] <= math.exp(-eps) * delta * (1 + 1e-12) and p[0] <= delta
        ratios = p[1:] / p[:-1]
        assert np.all(ratios <= math.exp(eps) * (1 + 1e-12)) and np.all(ratios >= math.exp(-eps) * (1 - 1e-12))

    def test_matches_shared_mechanism(self):
        import dpviz.mechanisms as mech
        t = mech.TruncatedDiscreteLaplace(0.7, 1e-3)
        assert t.kappa == kappa(0.7, 1e-3)

    def test_sampler_frequencies(self):
        eps, delta = 0.8, 0.05
        p = tdlap_pmf(eps, delta)
        n = 40000
        r = tdlap_sample(eps, delta, size=n, rng=12345)
        freq = np.bincount(r, minlength=len(p)) / n
        se = np.sqrt(p * (1 - p) / n)
        assert np.all(np.abs(freq - p) <= 5 * se + 1e-12)  # 5 standard errors per bin
        assert isinstance(tdlap_sample(eps, delta, rng=0), int)

    @pytest.mark.parametrize("bad", [dict(epsilon=0.0), dict(delta=0.0), dict(delta=1.0)])
    def test_bad(self, bad):
        kw = dict(epsilon=1.0, delta=0.1) | bad
        with pytest.raises(ValueError, match=next(iter(bad))):
            kappa(**kw)

    @settings(max_examples=50, deadline=None)
    @given(st.floats(0.01, 5.0), st.floats(1e-12, 0.9))
    def test_kappa_property(self, eps, delta):
        k = kappa(eps, delta)
        # κ − 1 is the least integer ≥ ln(1/δ)/ε, so e^{−ε(κ−1)} ≤ δ (end-mass argument of Lemma 18).
        assert math.exp(-eps * (k - 1)) <= delta * (1 + 1e-9)
        assert math.exp(-eps * (k - 2)) > delta * (1 - 1e-9)


class TestDelStabParameters:
    # Digest §7.4: (ε, δ) → κ with the proof's denominator (pinned) and the printed one.
    @pytest.mark.parametrize(
        "eps, delta, k_proof, k_printed, dbar_printed",
        [(1, 1e-6, 48, 49, 1.500e-7), (1, 1e-3, 27, 28, 1.500e-4), (3, 0.1, 6, 7, 3.393e-3),
         (0.5, 1e-5, 80, 80, 1.982e-6)],
    )
    def test_table(self, eps, delta, k_proof, k_printed, dbar_printed):
        p = delstab_parameters(eps, delta)
        eb = mp.mpf(eps) / 3
        db = mp.mpf(delta) / (mp.e ** (2 * eb) + mp.e**eb + 2)
        assert p.epsilon_bar == pytest.approx(float(eb), rel=1e-15)
        assert p.delta_bar == pytest.approx(float(db), rel=1e-13)
        assert p.kappa == k_proof and p.discarded == 4 * k_proof
        q = delstab_parameters(eps, delta, convention="printed")
        assert q.kappa == k_printed
        assert q.delta_bar == pytest.approx(dbar_printed, rel=1e-3)
        # The proof needs (e^{2ε̄}+e^{ε̄}+2)·δ̄ ≤ δ (Appendix C.4); both conventions satisfy it.
        for par in (p, q):
            e = par.epsilon_bar
            assert (math.exp(2 * e) + math.exp(e) + 2) * par.delta_bar <= delta * (1 + 1e-12)

    def test_unpacks(self):
        eb, db, k = delstab_parameters(3.0, 0.1)
        assert k == 6 and eb == 1.0


# ------------------------------------------------------------------------------------------------ divergences
class TestDivergences:
    def test_hockey_stick_hand(self):
        assert hockey_stick([0.5, 0.5], [0.25, 0.75], 0.0) == pytest.approx(0.25)
        a, b = [0.7, 0.3], [0.3, 0.7]
        assert hockey_stick(a, b, math.log(0.7 / 0.3)) == pytest.approx(0.0, abs=1e-15)
        assert hockey_stick(a, b, 0.5) == pytest.approx(0.7 - math.exp(0.5) * 0.3)

    def test_randomized_response_is_eps_dp(self):
        e = 1.3
        p = math.exp(e) / (1 + math.exp(e))
        a, b = [p, 1 - p], [1 - p, p]
        assert hockey_stick(a, b, e) <= 1e-15 and hockey_stick(a, b, e - 0.1) > 0

    def test_approx_eq_is_two_sided(self):
        a, b = [1.0, 0.0], [0.5, 0.5]
        assert hockey_stick(b, a, 0.0) == 0.5 and hockey_stick(a, b, 0.0) == 0.5
        # d_ε(a‖b) = 1 − e^ε/2 small for ε near ln 2, but d_ε(b‖a) = 0.5 (mass where a = 0) stays.
        e = math.log(2) - 1e-3
        assert hockey_stick(a, b, e) < 0.01
        assert not approx_eq(a, b, e, 0.01)
        assert approx_eq(a, b, e, 0.5)

    @settings(max_examples=50, deadline=None)
    @given(
        st.lists(st.floats(0.0, 1.0), min_size=2, max_size=6),
        st.lists(st.floats(0.0, 1.0), min_size=2, max_size=6),
        st.floats(0.0, 3.0),
    )
    def test_hockey_stick_properties(self, a, b, eps):
        k = min(len(a), len(b))
        a, b = np.array(a[:k]) + 1e-3, np.array(b[:k]) + 1e-3
        a, b = a / a.sum(), b / b.sum()
        d0 = hockey_stick(a, b, 0.0)
        assert d0 == pytest.approx(0.5 * np.abs(a - b).sum(), abs=1e-12)  # d_0 = total variation
        d = hockey_stick(a, b, eps)
        assert -1e-15 <= d <= d0 + 1e-15  # non-increasing in ε, non-negative
        assert approx_eq(a, b, eps, max(d, hockey_stick(b, a, eps)))

    def test_shape_mismatch(self):
        with pytest.raises(ValueError, match="shape"):
            hockey_stick([0.5, 0.5], [1.0], 0.0)

    def test_is_lddp_against_definition(self):
        toy = NoisySum(epsilon0=0.7, high=8)
        x = UserDataset.from_array([[0, 1], [1, 1], [0, 0], [1, 0]])
        for r in (1, 2):
            for eps in (0.5, 1.0, 1.5, 2.0):
                want = all(
                    approx_eq(toy.pmf(x.remove_users(S)), toy.pmf(x.remove_users(T)), eps, 0.01)
                    for S in itertools.combinations(range(4), r)
                    for T in itertools.combinations(range(4), r)
                )
                assert is_lddp(toy.pmf, x, r, eps, 0.01) == want

    def test_noisy_sum_pmf_exact(self):
        toy = NoisySum(epsilon0=0.6, high=5)
        q = mp.e ** mp.mpf(-0.6)
        for s in (0, 2, 5, 7):
            want = []
            for o in range(6):
                if o == 0:
                    v = mp.nsum(lambda z: (1 - q) / (1 + q) * q ** abs(z), [-mp.inf, -s])
                elif o == 5:
                    v = mp.nsum(lambda z: (1 - q) / (1 + q) * q ** abs(z), [5 - s, mp.inf])
                else:
                    v = (1 - q) / (1 + q) * q ** abs(o - s)
                want.append(float(v))
            assert np.allclose(toy.pmf_of_sum(s), want, rtol=1e-12, atol=1e-300)


# ------------------------------------------------------------------------------------------------ subsampling
class TestSubsampling:
    @pytest.mark.parametrize("eps, delta, n, N", [(1.0, 1e-6, 10, 100), (0.1, 0.0, 3, 7), (3.0, 1e-3, 5, 5)])
    def test_amplification_formula(self, eps, delta, n, N):
        e2, d2 = subsampling_amplification(eps, delta, n, N)
        eta = mp.mpf(n) / N
        assert e2 == pytest.approx(float(mp.log(1 + eta * (mp.e ** mp.mpf(eps) - 1))), rel=1e-13)
        assert d2 == pytest.approx(float(eta * delta), rel=1e-13, abs=0)

    def test_matches_accountants(self):
        import dpviz.accountants.events as ev
        assert subsampling_amplification(0.7, 1e-5, 3, 11) == pytest.approx(
            ev.amplify_without_replacement(0.7, 1e-5, 3, 11), rel=1e-14
        )

    @pytest.mark.parametrize("eps0, n, N", [(1.0, 3, 10), (0.3, 1, 4), (2.0, 2, 5)])
    def test_amplification_exact_on_enumerated_subsamples(self, eps0, n, N):
        """Theorem 7 checked on exact pmfs: A0 = ε₀-DP noisy count run on a uniform n-subset (without replacement) of
        N bits, every neighbour (one bit flipped) of several datasets. The hockey-stick at the formula's ε′ is 0
        (up to round-off) and positive just below it, and the naive η·ε₀ fails: the formula is tight."""
        A = NoisySum(epsilon0=eps0, high=N + 12)
        subsets = list(itertools.combinations(range(N), n))

        def pmf(bits):
            return sum(A.pmf_of_sum(sum(bits[i] for i in S)) for S in subsets) / len(subsets)

        e2, d2 = subsampling_amplification(eps0, 0.0, n, N)
        assert d2 == 0.0
        rng = np.random.default_rng(7)
        below = naive = 0.0
        for _ in range(4):
            bits = rng.integers(0, 2, size=N).tolist()
            p = pmf(bits)
            for j in range(N):
                q = pmf(bits[:j] + [1 - bits[j]] + bits[j + 1:])
                assert max(hockey_stick(p, q, e2), hockey_stick(q, p, e2)) <= 1e-15
                below = max(below, hockey_stick(p, q, e2 - 1e-6), hockey_stick(q, p, e2 - 1e-6))
                naive = max(naive, hockey_stick(p, q, n / N * eps0), hockey_stick(q, p, n / N * eps0))
        assert below > 0 and naive > 1e-4

    @pytest.mark.slow
    def test_subsample_users_is_uniform_without_replacement(self):
        x = UserDataset.from_array(np.arange(5).reshape(5, 1))
        rng = np.random.default_rng(11)
        T = 6000
        seen = {}
        for _ in range(T):
            key = tuple(int(b[0]) for b in subsample_users(x, 2, rng=rng).blocks)
            seen[key] = seen.get(key, 0) + 1
        assert set(seen) == set(itertools.combinations(range(5), 2))  # every 2-subset, no repeats
        se = math.sqrt(0.1 * 0.9 / T)
        assert all(abs(c / T - 0.1) <= 5 * se for c in seen.values())

    def test_subsample_users(self):
        x = UserDataset.from_array(np.arange(20).reshape(10, 2))
        y = subsample_users(x, 4, rng=0)
        firsts = [int(b[0]) for b in y.blocks]
        assert len(set(firsts)) == 4 and all(f % 2 == 0 for f in firsts)
        with pytest.raises(ValueError, match="size"):
            subsample_users(x, 11)


class TestSwapDifference:
    @pytest.mark.parametrize("m, p", [(1, 0.3), (4, 0.5), (7, 0.9)])
    def test_brute_force(self, m, p):
        want = np.zeros(m + 1)
        for s in range(m + 1):
            for t in range(m + 1):
                want[abs(s - t)] += (math.comb(m, s) * p**s * (1 - p) ** (m - s)
                                     * math.comb(m, t) * p**t * (1 - p) ** (m - t))
        assert np.allclose(swap_difference_pmf(m, p), want, rtol=1e-12, atol=1e-15)

    def test_fft_branch_and_sqrt_m_scale(self):
        m, p = 5000, 0.5
        d = swap_difference_pmf(m, p)
        assert d.sum() == pytest.approx(1.0) and np.all(d >= 0)
        mean = float(np.dot(np.arange(m + 1), d))
        # E|S − S′| → √(2mp(1−p))·√(2/π) (normal limit), far below the worst case m
        assert mean == pytest.approx(math.sqrt(2 * m * p * (1 - p)) * math.sqrt(2 / math.pi), rel=1e-3)


# ------------------------------------------------------------------------------------------------ calculators
class TestBounds:
    @pytest.mark.parametrize("m, eps, delta", [(1, 1.0, 1e-6), (10, 0.5, 1e-5), (1000, 2.0, 1e-9)])
    def test_theorem10_item_epsilon(self, m, eps, delta):
        L = mp.log(1 / mp.mpf(delta))
        want = mp.mpf(eps) ** 2 / (L * mp.sqrt(m * mp.log(m / mp.mpf(delta))))
        assert theorem10_item_epsilon(m, eps, delta) == pytest.approx(float(want), rel=1e-13)

    def test_theorem10_item_epsilon_vectorised_slope(self):
        m = np.logspace(2, 8, 7)
        e = theorem10_item_epsilon(m, 1.0, 1e-6)
        slopes = np.diff(np.log(e)) / np.diff(np.log(m))
        assert np.all(slopes < -0.5) and np.all(slopes > -0.6)  # −1/2 up to the slowly varying √ln(m/δ)

    def test_theorem10_item_delta(self):
        assert theorem10_item_delta(10, 0.5, math.exp(-2)) == pytest.approx(math.exp(-2) * 0.5 / 20)

    def test_corollary3_terms(self):
        L = math.log(1e6)
        r = corollary3_users(9.0, 0.5, 1e-6, n_priv=2.0, n_stat=30.0, c=2.0, clamp=False, terms=True)
        assert r["privacy"] == pytest.approx(L**3.5 * 2.0 / (0.25 * 3.0))
        assert r["statistical"] == pytest.approx(30.0 / 9.0)
        assert r["floor"] == pytest.approx(L / 0.5)
        assert r["total"] == pytest.approx(r["privacy"] + r["statistical"] + r["floor"])

    def test_theorem11_keeps_stat_term_multiplied(self):
        L = math.log(1e3)
        r = theorem11_users(16.0, 1.0, 1e-3, n_priv=0.0, n_stat=10.0, clamp=False, terms=True)
        assert r["statistical"] == pytest.approx(L**1.5 / 4.0 * 10.0)  # not 10/m (pitfall 5)

    def test_theorem10_users_uses_eps_prime(self):
        m, eps, delta = 50.0, 0.8, 1e-4
        r = theorem10_users(m, eps, delta, n_priv=3.0, n_stat=0.0, c=1.0, clamp=False, terms=True)
        ep = theorem10_item_epsilon(m, eps, delta)
        dp = eps * delta / (m * math.log(1 / delta))
        assert r["privacy"] == pytest.approx(math.log(1 / dp) * 3.0 / ep / m)

    @pytest.mark.parametrize("fn", [theorem10_users, theorem11_users, corollary3_users, group_privacy_users])
    def test_observation28_clamp(self, fn):
        m = np.logspace(0, 6, 40)
        kw = dict(n_priv=5.0, n_stat=200.0, c=1.0)
        u = fn(m, 1.0, 1e-5, **kw)
        n1 = math.ceil(item_level_users(1.0, 1e-5, **kw))
        assert np.all(u <= n1) and np.all(u >= np.ceil(n1 / m))
        assert u[0] == n1  # at m = 1 user level is item level

    def test_observation28_bounds(self):
        lo, hi = observation28_bounds(100.0, np.array([1, 3, 200]))
        assert lo.tolist() == [100, 34, 1] and hi.tolist() == [100, 100, 100]
        assert observation28_bounds(7.2, 2) == (4.0, 8.0)

    def test_group_privacy_users_floor_does_not_shrink(self):
        u = group_privacy_users(np.array([10.0, 1e4]), 1.0, 1e-6, n_priv=1.0, n_stat=0.0, clamp=False)
        assert u[1] > u[0]  # ln(1/δ₀) grows with m: the privacy term does not shrink

    @pytest.mark.parametrize(
        "eps, delta, want",
        [(1, 1e-6, 4.2e3), (1, 1e-3, 6.4e2), (0.5, 1e-6, 1.8e4), (2, 1e-5, 5.9e2), (0.1, 1e-6, 5.1e5)],
    )
    def test_crossover_table(self, eps, delta, want):
        m = crossover_group_privacy(eps, delta)
        assert m == pytest.approx(want, rel=0.03)  # digest's 2-significant-figure table
        # at the crossover ε′(m) = ε/m exactly
        assert theorem10_item_epsilon(m, eps, delta) == pytest.approx(eps / m, rel=1e-9)

    def test_crossover_users(self):
        m = crossover_group_privacy(1.0, 1e-6, kind="users", n_priv=1.0)
        kw = dict(n_priv=1.0, clamp=False)
        assert theorem10_users(m * 1.01, 1.0, 1e-6, **kw) < group_privacy_users(m * 1.01, 1.0, 1e-6, **kw)
        assert theorem10_users(m * 0.99, 1.0, 1e-6, **kw) > group_privacy_users(m * 0.99, 1.0, 1e-6, **kw)

    @pytest.mark.parametrize("eps, delta, n_priv, n_stat, c", [
        (1.0, 1e-6, 100.0, 1e3, 1.0), (0.3, 1e-9, 10.0, 0.0, 2.0), (2.0, 1e-3, 1e4, 1e6, 0.5)])
    def test_crossover_users_is_where_the_public_bounds_cross(self, eps, delta, n_priv, n_stat, c):
        """The root found on the bounds' private kernels is where the public functions (checked, independent of
        the root finder) change order, to 10⁻⁶ relative."""
        m = crossover_group_privacy(eps, delta, kind="users", n_priv=n_priv, n_stat=n_stat, c=c, m_max=1e8)
        assert 1.0 < m < 1e8
        kw = dict(n_priv=n_priv, n_stat=n_stat, c=c, clamp=False)
        for factor, sign in ((1 + 1e-6, -1), (1 - 1e-6, 1)):
            gap = theorem10_users(m * factor, eps, delta, **kw) - group_privacy_users(m * factor, eps, delta, **kw)
            assert gap * sign > 0, (factor, gap)

    def test_breakpoints_balance_terms(self):
        eps, alpha = 0.5, 0.05
        m1, m2 = breakpoints(eps, alpha)
        row = next(r for r in TABLE1_ROWS if r.key == "dd")
        t1 = row.user_level_terms(m1, eps, alpha, 10.0)
        assert t1["privacy"] == pytest.approx(t1["statistical"])
        t2 = row.user_level_terms(m2, eps, alpha, 10.0)
        assert t2["privacy"] == pytest.approx(t2["floor"])

    def test_theorem4(self):
        r = theorem4_users(np.array([1.0, 10.0]), 0.5, 0.1, 3.0, clamp=False, terms=True)
        assert r["floor"].tolist() == pytest.approx([6.0, 6.0]) and r["privacy"].tolist() == pytest.approx([60.0, 6.0])

    def test_table_rows(self):
        assert {r.key for r in TABLE1_ROWS} == {"pac", "agnostic", "dd", "pd", "gauss_known", "gauss_bounded"}
        assert {r.key for r in TABLE2_ROWS} == {"pac", "dd", "pd"}
        m = np.logspace(0, 8, 50)
        for row in TABLE1_ROWS + TABLE2_ROWS:
            u = row.user_level(m, 0.5, 0.05, 4.0)
            n1 = math.ceil(row.item_level(0.5, 0.05, 4.0))
            assert np.all(np.diff(u) <= 1e-9)  # more examples per user never hurt
            assert np.all(u <= n1) and np.all(u >= np.ceil(n1 / m))
            assert u[-1] > 0  # floors never vanish (pitfall 22)
            c2 = row.user_level(m, 0.5, 0.05, 4.0, constant=2.0, clamp=False)
            assert c2 == pytest.approx(2 * row.user_level(m, 0.5, 0.05, 4.0, clamp=False))
        pac = TABLE1_ROWS[0]
        need = 4.0**2 / (0.5**2 * 0.05**2)
        prior = pac.prior_user_level(np.array([need / 2, need * 2]), 0.5, 0.05, 4.0)
        assert prior[0] == math.inf and prior[1] == pytest.approx(8.0)
        # Table 2 discrete: ours has ε² where [NME22] has ε in the √m term
        dd = TABLE2_ROWS[1]
        t = dd.user_level_terms(100.0, 0.5, 0.1, 8.0)
        assert t["privacy"] == pytest.approx(8.0 / (0.25 * 0.1 * 10.0))

    @pytest.mark.parametrize(
        "call, name",
        [
            (lambda: theorem10_users(0.5, 1.0, 1e-6), "^m = 0.5"),
            (lambda: corollary3_users(2, -1.0, 1e-6), "epsilon"),
            (lambda: theorem11_users(2, 1.0, 0.0), "delta"),
            (lambda: theorem4_users(2, 1.0, 0.1, 3, constant=0.0), "constant"),
            (lambda: breakpoints(1.0, 0.0), "alpha"),
        ],
    )
    def test_bad_input(self, call, name):
        with pytest.raises(ValueError, match=name):
            call()
