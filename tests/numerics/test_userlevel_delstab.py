"""DelStab (Algorithm 1 / Lemma 18 of 000) on the exact NoisySum toy: exactness, privacy on exact pmfs, sampling."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpviz.userlevel import BOTTOM, DelStab, NoisySum, UserDataset, approx_eq, hockey_stick, ptr, tdlap_pmf

TOL = 1e-12  # float64 round-off slack in the exact comparisons


def from_sums(sums, m):
    """Users with bit blocks whose per-user sums are ``sums``."""
    return UserDataset([[1] * s + [0] * (m - s) for s in sums], domain=(0, 1))


def type_neighbors(x: UserDataset, m: int):
    """All user-level neighbours up to symmetry: replace one user of each present sum a by a block of sum b ≠ a.

    DelStab on NoisySum depends only on the multiset of per-user sums, so these cover every neighbour.
    """
    sums = x.user_sums().astype(int).tolist()
    for a in sorted(set(sums)):
        i = sums.index(a)
        for b in range(m + 1):
            if b != a:
                yield x.replace_user(i, [1] * b + [0] * (m - b))


# 4κ = 24 users for (ε, δ) = (3, 0.1); 4κ = 16 for (12, 0.1).
CONFIGS = [
    # (epsilon, delta, epsilon0, m, n)
    (3.0, 0.1, 0.3, 2, 26),
    (3.0, 0.1, 0.8, 3, 26),
    (3.0, 0.1, 0.2, 3, 25),
    (12.0, 0.1, 4.0, 2, 17),
    (1.5, 0.3, 0.15, 2, 37),
]


def datasets_for(n, m):
    rng = np.random.default_rng(n * 31 + m)
    out = [UserDataset.bernoulli(n, m, p, rng=rng) for p in (0.2, 0.5)]
    # adversarial: o "outliers" with the maximal sum, the rest 0 — stability flips with one user's change
    for o in (1, 3, 6):
        out.append(from_sums([m] * o + [0] * (n - o), m))
    return out


class TestExactness:
    def test_pmf_normalised(self):
        ds = DelStab(3.0, 0.1, NoisySum(epsilon0=0.3, high=40))
        for x in datasets_for(26, 2):
            p = ds.output_pmf(x)
            assert len(p) == len(ds.outputs) and ds.outputs[-1] == BOTTOM
            assert np.all(p >= 0) and p.sum() == pytest.approx(1.0, abs=1e-12)

    @pytest.mark.slow
    @pytest.mark.parametrize("eps0, seed", [(3.0, 0), (4.0, 1), (4.5, 1), (1.0, 2)])
    def test_types_equal_brute_force(self, eps0, seed):
        # Brute force enumerates every S and every completion T with the inner pmf computed on the actual
        # sub-dataset: an oracle independent of the type-count enumeration.
        ds = DelStab(12.0, 0.1, NoisySum(epsilon0=eps0, high=10))
        x = UserDataset.bernoulli(17, 2, 0.5, rng=seed)
        a = ds.output_pmf(x)
        b = ds.output_pmf(x, method="brute")
        assert np.allclose(a, b, rtol=0, atol=1e-13)

    @pytest.mark.parametrize("eps0", [0.2, 0.5, 1.0])
    def test_extreme_pair_shortcut_equals_full_check(self, eps0, monkeypatch):
        # The fast path tests only the two extreme deletion sums, justified by the interval property it verifies on
        # the exact ≈ matrix; switching it off (full pairwise check over all achievable sums) must not change anything.
        ds = DelStab(3.0, 0.1, NoisySum(epsilon0=eps0, high=40))
        xs = datasets_for(26, 3)
        fast = [ds.output_pmf(x) for x in xs]
        monkeypatch.setattr(ptr, "_interval_ends", lambda close: None)
        ptr._cached_analysis.cache_clear()
        slow = [ds.output_pmf(x) for x in xs]
        ptr._cached_analysis.cache_clear()
        for a, b in zip(fast, slow):
            assert np.allclose(a, b, rtol=0, atol=1e-13)

    def test_direct_and_complement_sums_agree(self, monkeypatch):
        # Two exact ways to sum over the stable sets: directly, or all sets minus the unstable ones.
        ds = DelStab(3.0, 0.1, NoisySum(epsilon0=0.5, high=40))
        xs = datasets_for(26, 3)
        out = {}
        for frac in (0.0, 2.0):  # 0: always complement; 2: always direct
            monkeypatch.setattr(ptr, "_COMPLEMENT_FRACTION", frac)
            ptr._cached_analysis.cache_clear()
            out[frac] = [ds.output_pmf(x) for x in xs]
        ptr._cached_analysis.cache_clear()
        for a, b in zip(out[0.0], out[2.0]):
            assert np.allclose(a, b, rtol=0, atol=1e-12)

    def test_bottom_probability_matches_stability(self):
        ds = DelStab(3.0, 0.1, NoisySum(epsilon0=0.3, high=40))
        for x in datasets_for(26, 3):
            st = ds.stability(x)
            assert st["bottom_probability"] == pytest.approx(ds.output_pmf(x)[-1], abs=1e-14)
            assert np.all(st["n_stable"] <= st["n_subsets"])
            assert np.allclose(st["tdlap"], tdlap_pmf(1.0, st["parameters"].delta_bar))

    def test_all_stable_is_drop_4kappa_random_users(self):
        # When every S is stable for every r, DelStab's output is A on n − 4κ users chosen uniformly (A₀ of Lemma 19).
        ds = DelStab(3.0, 0.1, NoisySum(epsilon0=0.05, high=30))
        x = from_sums([0, 1, 2] * 9, 2)
        st = ds.stability(x)
        assert st["stable"].all()
        n, K4 = x.n_users, 24
        sums = x.user_sums().astype(int)
        acc = np.zeros(31)
        combos = list(itertools.combinations(range(n), K4))
        for T in combos:
            acc += ds.algorithm.pmf_of_sum(int(sums.sum() - sums[list(T)].sum()))
        assert np.allclose(ds.output_pmf(x)[:-1], acc / len(combos), atol=1e-13)


class TestPrivacy:
    @pytest.mark.parametrize("eps, delta, eps0, m, n", CONFIGS)
    def test_neighbours_satisfy_eps_delta_exactly(self, eps, delta, eps0, m, n):
        """Lemma 18: DelStab(x) ≈_{ε,δ} DelStab(x′) for every user-level neighbour, on exact pmfs."""
        ds = DelStab(eps, delta, NoisySum(epsilon0=eps0, high=n * m))
        eb, db, _ = ds.parameters
        checked = 0
        for x in datasets_for(n, m):
            p = ds.output_pmf(x)
            for y in type_neighbors(x, m):
                q = ds.output_pmf(y)
                assert approx_eq(p, q, eps, delta, tol=TOL)
                # eq. (7) of the proof: Pr[⊥ | x] ≤ δ̄ + e^{ε̄}·Pr[⊥ | x′]
                assert p[-1] <= db + math.exp(eb) * q[-1] + TOL
                checked += 1
        assert checked >= 10

    @pytest.mark.parametrize("eps, delta, eps0, m, n", CONFIGS[:2])
    def test_conditional_step_of_the_proof(self, eps, delta, eps0, m, n):
        """Appendix C.4: Pr[out ∈ U | x, R₁ = r] ≤ e^{2ε̄}·Pr[out ∈ U | x′, R₁ = r + 1] + (e^{ε̄}+1)·δ̄ whenever the test
        passes on x at r (and then, by Observation 36, on x′ at r + 1)."""
        ds = DelStab(eps, delta, NoisySum(epsilon0=eps0, high=n * m))
        eb, db, k = ds.parameters
        for x in datasets_for(n, m):
            for y in type_neighbors(x, m):
                for r in range(2 * k):
                    px = ds.output_pmf_given_r(x, r)
                    if px[-1] == 1.0:
                        continue
                    py = ds.output_pmf_given_r(y, r + 1)
                    assert py[-1] == 0.0
                    assert hockey_stick(px[:-1], py[:-1], 2 * eb) <= (math.exp(eb) + 1) * db + TOL

    def test_conditionals_mix_to_output_pmf(self):
        ds = DelStab(3.0, 0.1, NoisySum(epsilon0=0.5, high=40))
        x = datasets_for(26, 3)[1]
        p = tdlap_pmf(1.0, ds.parameters.delta_bar)
        mix = sum(p[r] * ds.output_pmf_given_r(x, r) for r in range(len(p)))
        assert np.allclose(mix, ds.output_pmf(x), atol=1e-14)

    def test_observation36(self):
        """If X^{r}_stable(x′) ≠ ∅ then X^{r+1}_stable(x) ≠ ∅ for x ≍ x′ (Observation 36, used by Lemma 18)."""
        ds = DelStab(3.0, 0.1, NoisySum(epsilon0=0.5, high=60))
        m = 3
        for x in datasets_for(26, m):
            sx = ds.stability(x)["stable"]
            for y in type_neighbors(x, m):
                sy = ds.stability(y)["stable"]
                assert np.all(~sy[:-1] | sx[1:])

    def test_the_test_is_what_makes_it_private(self):
        """Negative control: dropping 4κ random users WITHOUT the stability test (A₀) is not (ε, δ)-DP for a sharp
        inner algorithm, while DelStab on the same neighbours is — so the privacy check above can fail."""
        eps, delta, m, n = 3.0, 0.1, 3, 60
        ds = DelStab(eps, delta, NoisySum(epsilon0=3.0, high=n * m))
        x = from_sums([0] * n, m)
        y = from_sums([m] + [0] * (n - 1), m)
        # A₀ deletes a uniform 4κ-subset (4κ = 24): the outlier of y survives with probability (n − 24)/n.
        keep = (n - 24) / n
        pa = ds.algorithm.pmf_of_sum(0)
        qa = (1 - keep) * ds.algorithm.pmf_of_sum(0) + keep * ds.algorithm.pmf_of_sum(m)
        assert max(hockey_stick(pa, qa, eps), hockey_stick(qa, pa, eps)) > delta
        assert approx_eq(ds.output_pmf(x), ds.output_pmf(y), eps, delta, tol=TOL)


class TestRun:
    @pytest.mark.slow
    def test_frequencies_match_exact_pmf(self):
        ds = DelStab(3.0, 0.1, NoisySum(epsilon0=0.5, high=12))
        x = from_sums([1, 2] * 5 + [0] * 16, 2)
        p = ds.output_pmf(x)
        rng = np.random.default_rng(2024)
        N = 1500
        outs = [ds.run(x, rng=rng) for _ in range(N)]
        labels = ds.outputs
        freq = np.array([sum(o == lab for o in outs) for lab in labels]) / N
        se = np.sqrt(p * (1 - p) / N)
        # every output's frequency within 5 standard errors (plus a tiny floor for zero-mass outputs)
        assert np.all(np.abs(freq - p) <= 5 * se + 1e-9)
        assert 0.01 < p[-1] < 0.99  # both ⊥ and real outputs are exercised

    def test_run_returns_bottom_or_output(self):
        ds = DelStab(3.0, 0.1, NoisySum(epsilon0=2.0, high=12))
        x = from_sums([2] * 13 + [0] * 13, 2)
        vals = {ds.run(x, rng=s) for s in range(30)}
        assert vals <= set(ds.outputs)


class TestValidation:
    def test_too_few_users(self):
        ds = DelStab(3.0, 0.1, NoisySum(epsilon0=0.3, high=12))
        x = UserDataset.bernoulli(23, 2, rng=0)  # 4κ = 24
        for call in (ds.output_pmf, ds.stability, ds.run):
            with pytest.raises(ValueError, match="n_users = 23"):
                call(x)

    def test_exactly_4kappa_users(self):
        ds = DelStab(3.0, 0.1, NoisySum(epsilon0=0.3, high=12))
        x = UserDataset.bernoulli(24, 1, rng=0)
        p = ds.output_pmf(x)
        assert p.sum() == pytest.approx(1.0)
        # A sees 0 users: every non-⊥ output is the pmf of an empty sum
        if p[-1] < 1:
            assert np.allclose(p[:-1] / p[:-1].sum(), ds.algorithm.pmf_of_sum(0))

    @pytest.mark.parametrize(
        "kwargs, name",
        [
            (dict(epsilon=0.0), "epsilon"),
            (dict(delta=0.0), "delta"),
            (dict(delta=1.0), "delta"),
            (dict(algorithm=object()), "algorithm"),
            (dict(convention="html"), "convention"),
        ],
    )
    def test_bad_parameters(self, kwargs, name):
        base = dict(epsilon=3.0, delta=0.1, algorithm=NoisySum(epsilon0=0.3, high=12))
        with pytest.raises(ValueError, match=name):
            DelStab(**(base | kwargs))

    def test_noisy_sum_rejects_non_bits(self):
        ds = DelStab(3.0, 0.1, NoisySum(epsilon0=0.3, high=12))
        with pytest.raises(ValueError, match="item_max"):
            ds.output_pmf(UserDataset.from_array(np.full((30, 2), 2)))

    @pytest.mark.parametrize("kwargs, name", [(dict(epsilon0=0), "epsilon0"), (dict(high=0), "high")])
    def test_noisy_sum_bad(self, kwargs, name):
        with pytest.raises(ValueError, match=name):
            NoisySum(**(dict(epsilon0=1.0, high=5) | kwargs))


def test_subset_sum_counts_of_many_count_rows_equal_brute_force_enumeration():
    """The batched subset-sum DP (DelStab's removal law and stability test run it on every type vector at once)
    counts the q-subsets of each row's multiset by their sum, exactly, as enumeration does."""
    import itertools

    from dpviz.userlevel.ptr import _subset_sum_counts_many

    rng = np.random.default_rng(1)
    for _ in range(150):
        vals = np.sort(rng.choice(np.arange(0, 8), int(rng.integers(1, 5)), replace=False)).astype(float)
        counts = rng.integers(0, 4, size=(int(rng.integers(1, 6)), vals.size))
        q = int(rng.integers(0, 6))
        many = _subset_sum_counts_many(vals, counts, q)
        for row, got in zip(counts, many):
            items = np.repeat(vals, row)
            want = np.zeros(got.size)
            for subset in itertools.combinations(range(items.size), q):
                want[int(items[list(subset)].sum())] += 1
            assert np.array_equal(got, want)
