"""dpviz.selection: exact oracles (softmax, mpmath integrals, brute force over permutations), exact privacy checks,
samplers against the exact probabilities (fixed seeds, tolerances from the binomial variance), bad input."""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz import mechanisms as M
from dpviz import selection as S

mp.mp.dps = 20

CASES = [  # (scores, epsilon, sensitivity, monotonic)
    ([3.0, 1.0, 2.5, 0.0, 2.5], 1.3, 1.0, False),
    ([0.0, 0.0], 0.7, 1.0, False),
    ([10.0, 0.0, 5.0], 0.2, 2.0, True),
    ([1.0, -4.0, 0.5, 0.5], 3.0, 0.5, False),
    ([0.0, 40.0, 39.0], 1.0, 1.0, False),  # a wide spread: tiny probabilities
]


def _b(eps, sens, mono):
    return (1 if mono else 2) * sens / eps


def _laplace_mp(u, b):
    """P[i wins] = ∫ f_i Π_{j≠i} F_j for Laplace noise, by mpmath quadrature split at the scores."""
    b = mp.mpf(b)

    def F(x, c):
        return mp.e ** ((x - c) / b) / 2 if x < c else 1 - mp.e ** (-(x - c) / b) / 2

    pts = [-mp.inf] + sorted(set(u)) + [mp.inf]
    out = []
    for i in range(len(u)):
        out.append(mp.quad(lambda x, i=i: mp.e ** (-abs(x - u[i]) / b) / (2 * b)
                           * mp.fprod([F(x, u[j]) for j in range(len(u)) if j != i]), pts))
    return [float(p) for p in out]


def _exponential_noise_mp(u, b):
    """P[i wins] for exponential noise Z ~ Exp(scale b): ∫_{u_i}^∞ f_i Π_{j≠i} F_j (Ding et al. 2021's side)."""
    b = mp.mpf(b)
    out = []
    for i in range(len(u)):
        def g(x, i=i):
            return (mp.e ** (-(x - u[i]) / b) / b
                    * mp.fprod([(1 - mp.e ** (-(x - u[j]) / b)) if x > u[j] else 0 for j in range(len(u)) if j != i]))
        pts = [u[i]] + sorted(v for v in set(u) if v > u[i]) + [mp.inf]
        out.append(float(mp.quad(g, pts)))
    return out


def _pf_brute(u, b):
    """Permute-and-flip by brute force over all k! orders (McKenna & Sheldon 2020, Alg. 1)."""
    k, m = len(u), max(u)
    acc = [mp.e ** ((mp.mpf(x) - m) / b) for x in u]
    P = [mp.mpf(0)] * k
    for perm in itertools.permutations(range(k)):
        rest = mp.mpf(1)
        for r in perm:
            P[r] += rest * acc[r]
            rest *= 1 - acc[r]
    return [float(p / math.factorial(k)) for p in P]


@pytest.mark.parametrize("u,eps,sens,mono", CASES)
def test_gumbel_probabilities_are_the_exponential_mechanism(u, eps, sens, mono):
    rate = eps / ((1 if mono else 2) * sens)
    w = [mp.e ** (rate * mp.mpf(x)) for x in u]
    want = [float(x / mp.fsum(w)) for x in w]
    got = S.selection_probabilities(u, eps, noise="gumbel", sensitivity=sens, monotonic=mono)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    if not mono:
        np.testing.assert_array_equal(got, M.exponential_mechanism_probabilities(u, eps, sens))


@pytest.mark.slow
@pytest.mark.parametrize("u,eps,sens,mono", CASES)
def test_laplace_probabilities_match_mpmath(u, eps, sens, mono):
    got = S.selection_probabilities(u, eps, noise="laplace", sensitivity=sens, monotonic=mono)
    want = _laplace_mp(u, _b(eps, sens, mono))
    for g, w in zip(got, want):
        assert g == pytest.approx(w, rel=1e-10, abs=0)


@pytest.mark.slow
@pytest.mark.parametrize("u,eps,sens,mono", CASES)
def test_exponential_noise_is_permute_and_flip(u, eps, sens, mono):
    b = _b(eps, sens, mono)
    got = S.selection_probabilities(u, eps, noise="exponential", sensitivity=sens, monotonic=mono)
    for g, w in zip(got, _pf_brute(u, b)):  # McKenna & Sheldon 2020's mechanism, by brute force
        assert g == pytest.approx(w, rel=1e-10, abs=1e-300)
    for g, w in zip(got, _exponential_noise_mp(u, b)):  # report-noisy-max with exponential noise (Ding et al. 2021)
        assert g == pytest.approx(w, rel=1e-9, abs=1e-300)


@pytest.mark.slow
@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_many_candidates_against_mpmath_with_ties(noise):
    # 40 candidates in 3 groups: the grouped kernels and the composite rules beyond k = 32
    u = [0.0] + [-1.0] * 30 + [-3.0] * 9
    got = S.selection_probabilities(u, 1.0, noise=noise)
    b = 2.0
    bb = mp.mpf(b)
    if noise == "laplace":
        def F(x, c):
            return mp.e ** ((x - c) / bb) / 2 if x < c else 1 - mp.e ** (-(x - c) / bb) / 2

        def dens(x, c):
            return mp.e ** (-abs(x - c) / bb) / (2 * bb)
        pts = [-mp.inf, -3, -1, 0, mp.inf]
    else:
        def F(x, c):
            return 1 - mp.e ** (-(x - c) / bb) if x > c else 0

        def dens(x, c):
            return mp.e ** (-(x - c) / bb) / bb if x > c else 0
        pts = [-3, -1, 0, mp.inf]
    groups = {0.0: 1, -1.0: 30, -3.0: 9}
    for v in groups:
        want = mp.quad(lambda x, v=v: dens(x, v) * F(x, v) ** (groups[v] - 1)
                       * mp.fprod([F(x, w) ** c for w, c in groups.items() if w != v]), pts)
        i = u.index(v)
        assert got[i] == pytest.approx(float(want), rel=1e-9, abs=0)


@pytest.mark.parametrize("noise", S.NOISES)
@pytest.mark.parametrize("mono", [False, True])
def test_report_noisy_max_is_epsilon_dp_exactly(noise, mono):
    # exact probabilities on u and on every neighbour u + Δ·s (s ∈ {−1, 0, 1}^k; monotonic: s all ≥ 0 or all ≤ 0)
    u, eps, sens = np.array([1.0, 0.3, 0.0, 0.8]), 0.9, 0.5
    p = S.selection_probabilities(u, eps, noise=noise, sensitivity=sens, monotonic=mono)
    worst = 0.0
    for s in itertools.product((-1, 0, 1), repeat=u.size):
        if mono and min(s) < 0 < max(s):
            continue
        q = S.selection_probabilities(u + sens * np.array(s), eps, noise=noise, sensitivity=sens, monotonic=mono)
        worst = max(worst, float(np.max(np.abs(np.log(p / q)))))
    assert worst <= eps * (1 + 1e-9)
    assert worst > 0.5 * eps  # the check can see a loss (it is not trivially 0)


def test_monotonic_scale_breaks_privacy_for_non_monotonic_scores():
    # the halved scale is NOT ε-DP when scores move in opposite directions: the exact check sees it
    u, eps = np.array([0.0, 0.0]), 1.0
    p = S.selection_probabilities(u, eps, noise="gumbel", monotonic=True)
    q = S.selection_probabilities(u + np.array([1.0, -1.0]), eps, noise="gumbel", monotonic=True)
    assert np.max(np.abs(np.log(p / q))) > eps * 1.4  # ln(2/(1 + e^-2)) = 1.434


@pytest.mark.parametrize("noise", S.NOISES)
def test_sampler_matches_exact_probabilities(noise):
    u, eps, n = [2.0, 1.0, 1.0, -1.0, 0.5], 1.0, 40_000
    p = S.selection_probabilities(u, eps, noise=noise)
    draws = S.report_noisy_max(u, eps, noise=noise, rng=np.random.default_rng(11), size=n)
    counts = np.bincount(draws, minlength=len(u))
    # each count is Binomial(n, p_i): 5 standard deviations (a false alarm has probability < 3e-6 per cell)
    assert np.all(np.abs(counts - n * p) <= 5 * np.sqrt(n * p * (1 - p)) + 1)
    assert S.report_noisy_max(u, eps, noise=noise, rng=3) in range(len(u))


@pytest.mark.slow
def test_exponential_mechanism_sampling_matches_its_probabilities():
    u, eps, sens, n = [0.0, 1.0, 3.0, 2.5], 0.8, 1.0, 20_000
    p = M.exponential_mechanism_probabilities(u, eps, sens)
    g = np.random.default_rng(5)
    counts = np.bincount([M.exponential_mechanism(u, eps, sens, rng=g) for _ in range(n)], minlength=4)
    assert np.all(np.abs(counts - n * p) <= 5 * np.sqrt(n * p * (1 - p)) + 1)  # binomial, 5σ as above


def test_gumbel_noisy_max_at_a_seed_is_the_exponential_mechanism():
    # one kernel: the same seed gives the same index (the Gumbel draws are the same)
    u = [0.3, 1.0, 0.7, 0.2]
    for seed in range(20):
        assert S.report_noisy_max(u, 1.5, rng=seed) == M.exponential_mechanism(u, 1.5, rng=seed)


@pytest.mark.parametrize("k,eps,beta", [(2, 1.0, 0.1), (10, 0.5, 0.05), (100, 2.0, 0.01), (1000, 1.0, 0.2)])
def test_tail_bound_holds_exactly_on_worst_like_instances(k, eps, beta):
    # one best candidate, k − 1 tied a bit below the bound's reach: P[gap ≥ bound] ≤ β (Dwork & Roth 2014, Cor 3.12)
    bound = S.gap_tail_bound(k, eps, beta)
    assert bound == pytest.approx(2 / eps * math.log(k / beta), rel=1e-15)
    for d in (0.5 * bound, bound, 1.0001 * bound):
        u = np.r_[0.0, np.full(k - 1, -d)]
        p = S.selection_probabilities(u, eps)
        tail = float(p[1:].sum()) if d >= bound else 0.0
        assert tail <= beta
        assert S.gap_quantile(u, eps, beta) <= bound + 1e-12
    # the bound is not vacuous: at d slightly below ln(k)·2/ε the tail is large
    u = np.r_[0.0, np.full(k - 1, -0.5 * 2 / eps * math.log(k))]
    assert S.selection_probabilities(u, eps)[1:].sum() > 0.3


def test_expected_gap_and_quantile_by_hand():
    u = [1.0, 0.0]
    p = S.selection_probabilities(u, 2.0)  # softmax(u): e/(1+e)
    assert p[0] == pytest.approx(math.e / (1 + math.e), rel=1e-14)
    assert S.expected_gap(u, 2.0) == pytest.approx(1 / (1 + math.e), rel=1e-14)
    assert S.gap_quantile(u, 2.0, 0.5) == 0.0 and S.gap_quantile(u, 2.0, 0.2) == 1.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-20, 20), min_size=1, max_size=12), st.floats(0.05, 10), st.sampled_from(S.NOISES))
def test_probabilities_sum_to_one_and_order_follows_scores(u, eps, noise):
    p = S.selection_probabilities(u, eps, noise=noise)
    assert p.sum() == pytest.approx(1.0, abs=1e-12) and np.all(p >= 0)
    order = np.argsort(u, kind="stable")
    assert np.all(np.diff(p[order]) >= -1e-12 * p.max())  # a higher score is never less likely


# ============================================================================================ sparse vector


def _svt_mp(q, T, eps, c=1, variant="correct"):
    """P[pattern] by mpmath: ∫ f_ρ(z) Π_i P[answer_i | z] dz, split at the kinks."""
    rho, nu, cut = S.sparse_vector_scales(eps, 1.0, c, variant)

    def up(z, qi):
        x = T + z - qi
        if nu == 0:
            return mp.mpf(1) if x <= 0 else mp.mpf(0)
        return mp.e ** (-x / nu) / 2 if x >= 0 else 1 - mp.e ** (x / nu) / 2

    pts = [-mp.inf] + sorted(set([0.0] + [qi - T for qi in q])) + [mp.inf]
    out = {}
    for pat in S._patterns(len(q), cut):
        out[pat] = float(mp.quad(lambda z, pat=pat: mp.e ** (-abs(z) / rho) / (2 * rho) * mp.fprod(
            [up(z, q[i]) if a else 1 - up(z, q[i]) for i, a in enumerate(pat)]), pts))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("q,T,eps,c,variant", [
    ([0.0, 1.0, 0.0], 0.5, 1.0, 1, "correct"),
    ([2.0, -1.0, 3.0], 1.0, 0.5, 2, "correct"),
    ([0.0, 1.0, 0.0], 0.5, 1.0, 1, "no_query_noise"),
    ([0.0, 1.0, 1.0], 0.5, 2.0, 1, "no_cutoff"),
])
def test_pattern_probabilities_match_mpmath(q, T, eps, c, variant):
    got = S.sparse_vector_pattern_probabilities(q, T, eps, max_positives=c, variant=variant)
    want = _svt_mp(q, T, eps, c, variant)
    assert set(got) == set(want)
    assert sum(got.values()) == pytest.approx(1.0, abs=1e-12)
    for o in got:
        assert got[o] == pytest.approx(want[o], rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("q,T,eps,c", [([0.0, 1.0, 0.0], 0.5, 1.0, 1), ([0.0, 0.0, 0.0], 0.0, 0.5, 1),
                                       ([1.0, 0.0, 2.0, 1.0], 1.0, 2.0, 2), ([3.0, -2.0], 0.0, 0.3, 1)])
def test_correct_sparse_vector_passes_the_exact_check(q, T, eps, c):
    chk = S.sparse_vector_privacy_check(q, T, eps, max_positives=c)
    assert chk.passes and chk.max_loss > 0.2 * eps  # within ε, and the check does measure a loss


@pytest.mark.parametrize("variant", ["no_query_noise", "no_cutoff"])
def test_broken_variants_fail_the_same_check(variant):
    chk = S.sparse_vector_privacy_check([0.0, 1.0, 0.0], 0.5, 1.0, variant=variant)
    assert not chk.passes
    if variant == "no_query_noise":
        assert chk.max_loss == math.inf  # some pattern is impossible on one neighbour only
        loss = S.sparse_vector_privacy_loss([0.0, 1.0], [1.0, 0.0], 0.5, 1.0, variant=variant)
        assert loss[(False, True)] == math.inf
    else:
        assert 1.0 < chk.max_loss < math.inf
    # the loss of the no-cutoff variant grows with the number of queries: 4 queries lose more than 2
    if variant == "no_cutoff":
        two = S.sparse_vector_privacy_check([0.0] * 2, 0.0, 1.0, variant=variant).max_loss
        four = S.sparse_vector_privacy_check([0.0] * 4, 0.0, 1.0, variant=variant).max_loss
        assert four > two + 0.3 and four > 1.5


@pytest.mark.slow
def test_above_threshold_matches_the_exact_pattern_probabilities():
    q, T, eps, c, n = [0.0, 1.0, 0.5, 2.0], 1.0, 1.5, 2, 20_000
    exact = S.sparse_vector_pattern_probabilities(q, T, eps, max_positives=c)
    g = np.random.default_rng(7)
    counts: dict = {}
    for _ in range(n):
        r = S.above_threshold(q, T, eps, max_positives=c, rng=g)
        counts[r.answers] = counts.get(r.answers, 0) + 1
    assert set(counts) <= set(exact)
    for o, p in exact.items():  # Binomial(n, p) per pattern: 5σ (+1 for the rare ones)
        assert abs(counts.get(o, 0) - n * p) <= 5 * math.sqrt(n * p * (1 - p)) + 1


def test_above_threshold_pays_only_for_positives():
    r = S.above_threshold([0.0] * 50 + [1e6], 100.0, 1.0, max_positives=3, rng=1)
    assert r.answers[-1] and len(r.answers) == 51 and r.positives == (50,) and not r.halted
    assert r.epsilon_spent == pytest.approx(0.5 + 0.5 / 3)  # ε₁ + 1·ε₂/c, the 50 negatives cost nothing
    r = S.above_threshold([1e6] * 5, 0.0, 1.0, max_positives=2, rng=1)
    assert r.answers == (True, True) and r.halted and r.epsilon_spent == pytest.approx(1.0)


# ============================================================================================ bad input


@pytest.mark.parametrize("call,name", [
    (lambda: S.report_noisy_max([1.0, 2.0], 0.0), "epsilon"),
    (lambda: S.report_noisy_max([1.0, 2.0], 1.0, noise="cauchy"), "noise"),
    (lambda: S.report_noisy_max([1.0, float("nan")], 1.0), "scores"),
    (lambda: S.report_noisy_max([], 1.0), "scores"),
    (lambda: S.report_noisy_max([1.0], 1.0, sensitivity=-1), "sensitivity"),
    (lambda: S.report_noisy_max([1.0], 1.0, monotonic="yes"), "monotonic"),
    (lambda: S.report_noisy_max([1.0], 1.0, size=-2), "size"),
    (lambda: S.selection_probabilities([[1.0, 2.0]], 1.0), "scores"),
    (lambda: S.selection_probabilities(np.zeros(S.CANDIDATES.limit + 1), 1.0), "scores"),
    (lambda: S.gap_tail_bound(0, 1.0, 0.1), "k"),
    (lambda: S.gap_tail_bound(3, 1.0, 1.0), "beta"),
    (lambda: S.gap_quantile([1.0, 2.0], 1.0, 0.0), "beta"),
    (lambda: S.above_threshold([1.0, 2.0], 0.0, -1.0), "epsilon"),
    (lambda: S.above_threshold([1.0, 2.0], float("inf"), 1.0), "threshold"),
    (lambda: S.above_threshold([1.0, 2.0], 0.0, 1.0, max_positives=0), "max_positives"),
    (lambda: S.above_threshold([1.0, 2.0], 0.0, 1.0, max_positives=3), "max_positives"),
    (lambda: S.above_threshold([1.0, 2.0], 0.0, 1.0, rng="seed"), "rng"),
    (lambda: S.sparse_vector_pattern_probabilities(np.zeros(9), 0.0, 1.0), "queries"),
    (lambda: S.sparse_vector_pattern_probabilities([0.0], 0.0, 1.0, variant="alg7"), "variant"),
    (lambda: S.sparse_vector_privacy_loss([0.0], [2.0], 0.0, 1.0), "neighbour"),
    (lambda: S.noise_scale(5e-324), "epsilon"),  # the scale 2Δ/ε is beyond the float range (it used to be inf)
    (lambda: S.noise_scale(1.0, 1e308), "epsilon"),
    (lambda: S.sparse_vector_scales(5e-324), "epsilon"),
    (lambda: S.sparse_vector_scales(1.0, max_positives=S.SVT_POSITIVES.high + 1), "max_positives"),
    (lambda: S.above_threshold([1.0, 2.0], 0.0, 5e-324), "epsilon"),
    (lambda: S.above_threshold([1.7e308, 2.0], 0.0, 1e-306), "epsilon"),  # q + Z could overflow
    (lambda: S.above_threshold(np.zeros(S.SVT_QUERIES.limit + 1), 0.0, 1.0), "queries"),
    (lambda: S.gap_tail_bound(10, 1e-320, 0.05), "epsilon"),  # the bound itself overflows
    (lambda: S.expected_gap([-1.7e308, -1.7e308, 1.7e308], 1e-320), "scores"),  # E[gap] ≈ ⅔·3.4e308
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_gumbel_max_has_one_home():
    # issue 13: every Gumbel draw of dpviz goes through mechanisms.exponential._gumbel_argmax
    import pathlib

    import dpviz

    root = pathlib.Path(dpviz.__file__).parent
    users = sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if ".gumbel(" in p.read_text(encoding="utf-8"))
    assert users == ["mechanisms/exponential.py"]
    for mod in ("mean/winsorized.py", "partial/marginals.py", "selection.py"):
        assert "_gumbel_argmax(" in (root / mod).read_text(encoding="utf-8"), mod


# ============================================================================================ extreme parameters
# Each test below failed on the code before the input audit (checked against a copy of that code kept outside the
# repository): the noise scale 2Δ/ε overflowed to inf, ln(k/β) overflowed for huge k, the sparse-vector laws divided
# by an underflowed scale, a tie q_i = T lost its noise, and the Laplace integral built a k × nodes table.


def _binomial_ok(count: int, n: int, p: float, z: float = 5.0) -> bool:
    """count ~ Binomial(n, p) within z standard deviations (a false alarm has probability < 6e-7 at z = 5)."""
    return abs(count - n * p) <= z * math.sqrt(n * p * (1 - p)) + 1


@pytest.mark.parametrize("noise", S.NOISES)
@pytest.mark.parametrize("eps", [1e-310, 5e-324])
def test_law_at_a_subnormal_epsilon_is_uniform_for_close_scores(noise, eps):
    # the exact law: P[0] = ½ − O(ε) (Laplace: (2 + d)e^{−d}/4 with d = ε/2 noise scales); it used to sample
    # [3001, 999] (Laplace) and [4000, 0] (exponential) in 4000 draws, because the scale 2Δ/ε was inf
    p = S.selection_probabilities([0.0, 1.0], eps, noise=noise)
    assert p.tolist() == pytest.approx([0.5, 0.5], abs=1e-15)
    n = 4000
    for seed in (0, 1, 2):
        draws = S.report_noisy_max([0.0, 1.0], eps, noise=noise, rng=seed, size=n)
        assert _binomial_ok(int(np.sum(draws == 0)), n, 0.5)


def _two_candidate_law(noise: str, d: float) -> float:
    """P[the lower of two candidates wins] with the scores d noise scales apart, by closed forms: Gumbel
    1/(1 + e^d) (softmax), Laplace P[Z₁ − Z₂ > d] = (2 + d)e^{−d}/4, exponential (permute-and-flip) e^{−d}/2."""
    return {"gumbel": 1.0 / (1.0 + math.exp(d)), "laplace": (2.0 + d) * math.exp(-d) / 4.0,
            "exponential": math.exp(-d) / 2.0}[noise]


@pytest.mark.parametrize("noise", S.NOISES)
@pytest.mark.parametrize("scores,eps,sens,mono,d", [
    ([0.0, 1e308], 1e-308, 1.0, False, 0.5),  # b = 2e308 overflows; the scores are 0.5 noise scales apart
    ([0.0, 3.0], 1e308, 1e308, False, 1.5),  # 2Δ overflows, the ratio ε/Δ is 1
    ([0.0, 1.0], 2e-308, 1e-308, True, 2.0),  # Δ/ε = 0.5 from subnormal-range inputs
    ([-1e308, 1e308], 5e-309, 1.0, False, 0.5),  # the spread 2e308 itself overflows
])
def test_law_where_the_scale_overflows_matches_closed_forms(noise, scores, eps, sens, mono, d):
    want = _two_candidate_law(noise, d)
    p = S.selection_probabilities(scores, eps, noise=noise, sensitivity=sens, monotonic=mono)
    assert p[0] == pytest.approx(want, rel=1e-10, abs=0) and p[1] == pytest.approx(1 - want, rel=1e-12)
    n = 20_000
    draws = S.report_noisy_max(scores, eps, noise=noise, sensitivity=sens, monotonic=mono, rng=7, size=n)
    assert _binomial_ok(int(np.sum(draws == 0)), n, want)


@pytest.mark.parametrize("noise", S.NOISES)
def test_scores_too_far_apart_get_probability_zero_not_an_error(noise):
    # (1e300 − 0)·ε/(2Δ) = 5e309 noise scales: P[low] = 0 to rounding (the Laplace integral used to refuse this)
    assert S.selection_probabilities([0.0, 1e300], 1e10, noise=noise).tolist() == [0.0, 1.0]
    assert S.expected_gap([-1e308, 1e308], 1.0, noise=noise) == 0.0  # 0·inf used to give NaN


def test_expected_gap_and_quantile_when_the_gap_overflows_a_difference():
    # gaps of 2e308 do not fit in a float, their mean does: at ε = 1e-320 the choice is uniform, E[gap] = 1e308
    u = [-1e308, 1e308]
    assert S.expected_gap(u, 1e-320) == pytest.approx(1e308, rel=1e-12)
    assert S.gap_quantile(u, 1e-320, 0.9) == 0.0
    with pytest.raises(ValueError, match="scores"):
        S.gap_quantile(u, 1e-320, 0.1)  # the quantile is the gap 2e308 itself


def test_noise_scale_uses_the_ratio():
    assert S.noise_scale(1e308, 1e308) == 2.0 and S.noise_scale(1e308, 1e308, monotonic=True) == 1.0
    assert S.noise_scale(2e-308, 1e-308) == 1.0
    assert S.sparse_vector_scales(1e308, 1e308, 3) == (2.0, 12.0, 3)


def test_gap_tail_bound_for_a_huge_number_of_candidates():
    # ln(10**400/0.1) = 401·ln 10, taken of the integer itself (10**400/0.1 used to raise OverflowError)
    assert S.gap_tail_bound(10**400, 1.0, 0.1) == pytest.approx(2 * 401 * math.log(10), rel=1e-15)
    assert S.gap_tail_bound(10, 1e308, 0.05, sensitivity=1e308) == pytest.approx(2 * math.log(200), rel=1e-15)


def test_sparse_vector_laws_at_a_subnormal_epsilon():
    # (q_i − T)·ε/(2Δ) is 0 to rounding at ε = 5e-324: the law of queries sitting on the threshold (it used to
    # raise ZeroDivisionError: the threshold scale 2Δ/ε was inf and 0.5/inf underflowed to 0)
    tiny = S.sparse_vector_pattern_probabilities([0.0, 1.0, 0.0], 0.5, 5e-324)
    on_t = S.sparse_vector_pattern_probabilities([0.5, 0.5, 0.5], 0.5, 1.0)
    assert tiny.keys() == on_t.keys()
    for o in tiny:
        assert tiny[o] == pytest.approx(on_t[o], rel=1e-12, abs=0)
    loss = S.sparse_vector_privacy_loss([0.0, 1.0], [1.0, 0.0], 0.5, 5e-324)
    assert max(abs(v) for v in loss.values()) < 1e-12
    # the broken variant stays broken at tiny ε: ⊥⊤ (T + Z_T between q_1 and q_2) has probability ≈ ε/4 on x, 0 on x′
    loss = S.sparse_vector_privacy_loss([0.0, 1.0], [1.0, 0.0], 0.5, 1e-300, variant="no_query_noise")
    assert loss[(False, True)] == math.inf
    p = S.sparse_vector_pattern_probabilities([0.0, 1.0], 0.5, 1e-300, variant="no_query_noise")
    assert p[(False, True)] == pytest.approx(-math.expm1(-1e-300 / 4), rel=1e-9)  # P[−½ < Z_T ≤ ½], Z_T ~ Lap(2/ε)


def test_sparse_vector_laws_where_two_delta_overflows():
    # Δ = ε = 1e308: the same law as Δ = ε = 1 (2Δ used to overflow to inf)
    big = S.sparse_vector_pattern_probabilities([0.0, 1.0, 0.0], 0.5, 1e308, sensitivity=1e308, max_positives=2)
    ref = S.sparse_vector_pattern_probabilities([0.0, 1.0, 0.0], 0.5, 1.0, max_positives=2)
    for o in ref:
        assert big[o] == pytest.approx(ref[o], rel=1e-12, abs=1e-300)


@pytest.mark.slow
def test_above_threshold_keeps_the_noise_of_a_tie_at_a_tiny_scale():
    # q_1 = T, noise scales 2e-308 and 4e-308: ⊤ iff Z_1 ≥ Z_T, probability ½ by symmetry (2c·Z⁰_1 and Z⁰_T are
    # symmetric and independent). In plain arithmetic 0.5 + 4e-308·Z rounds to 0.5 and every run said ⊤.
    n = 4000
    g = np.random.default_rng(3)
    tops = sum(S.above_threshold([0.5], 0.5, 1e298, sensitivity=1e-10, rng=g).answers[0] for _ in range(n))
    assert _binomial_ok(tops, n, 0.5)
    exact = S.sparse_vector_pattern_probabilities([0.5], 0.5, 1e298, sensitivity=1e-10)
    assert exact[(True,)] == pytest.approx(0.5, rel=1e-12)


def _laplace_direct(u: np.ndarray, b: float, idx, lo: float, hi: float, width: float) -> np.ndarray:
    """P[candidate i wins] for the candidates ``idx`` by the plain formula ∫ f_i Π_{j≠i} F_j over [lo, hi]: 16-point
    Gauss–Legendre on pieces split at every score and no wider than ``width``, the product over all k candidates
    evaluated directly (in blocks of nodes). An independent oracle for large k (no series, no recurrences)."""
    cuts = np.unique(np.r_[lo, hi, u[(u > lo) & (u < hi)]])
    edges = [cuts[:1]]
    for a, c in zip(cuts[:-1], cuts[1:]):
        edges.append(np.linspace(a, c, max(1, int(np.ceil((c - a) / width))) + 1)[1:])
    edges = np.concatenate(edges)
    t, w = np.polynomial.legendre.leggauss(16)
    x = ((edges[:-1, None] + edges[1:, None]) / 2 + (edges[1:, None] - edges[:-1, None]) / 2 * t).ravel()
    wx = ((edges[1:, None] - edges[:-1, None]) / 2 * w).ravel()
    out = np.zeros(len(idx))
    for start in range(0, x.size, 400):
        xs = x[start:start + 400]
        z = (xs[None, :] - u[:, None]) / b
        logF = np.where(z < 0, np.log(0.5) + np.minimum(z, 0), np.log1p(-0.5 * np.exp(-np.maximum(z, 0))))
        S_ = logF.sum(axis=0)
        zi = z[idx]
        out += (np.exp(np.log(0.5 / b) - np.abs(zi) + S_[None, :] - logF[idx]) @ wx[start:start + 400])
    return out


@pytest.mark.slow
def test_laplace_probabilities_of_ten_thousand_spread_scores_fit_in_memory_and_match_the_direct_sum():
    # 10⁴ distinct scores 0.05 noise scales apart (500 in all). The former k × nodes tables took tens of GiB here
    # (about 5·10⁵ nodes for 10⁴ candidates: 50 GiB at uniform(0, 100)); now the sums over candidates are series
    # recurrences. Oracle: the direct product for the 30 best candidates, over [max u − 45b, max u + 45b] (outside
    # it their integrands carry less than e^{−40} of their mass).
    import tracemalloc

    u = np.linspace(0.0, 1000.0, 10_000)
    tracemalloc.start()
    p = S.selection_probabilities(u, 1.0, noise="laplace")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 200 * 2**20
    assert p.sum() == pytest.approx(1.0, abs=1e-12) and np.all(np.diff(p) >= 0)
    idx = np.arange(u.size - 30, u.size)
    want = _laplace_direct(u, 2.0, idx, 1000.0 - 90.0, 1000.0 + 90.0, 0.5)
    np.testing.assert_allclose(p[idx], want, rtol=1e-11)


@pytest.mark.slow
def test_laplace_probabilities_of_two_thousand_random_scores_match_the_direct_sum():
    # random distinct scores (ties of groups too) within 30 noise scales: every candidate against the oracle
    g = np.random.default_rng(4)
    u = np.r_[np.round(g.uniform(0.0, 60.0, 1500), 1), g.uniform(50.0, 60.0, 500)]
    p = S.selection_probabilities(u, 1.0, noise="laplace")
    idx = np.argsort(u)[::97]
    want = _laplace_direct(u, 2.0, idx, u.min() - 90.0, u.max() + 90.0, 1.0)
    np.testing.assert_allclose(p[idx], want, rtol=1e-10)


@pytest.mark.slow
@pytest.mark.parametrize("u", [np.linspace(0.0, 10.0, 10_000), np.r_[np.zeros(5000), -np.arange(1.0, 5001.0)]])
def test_permute_and_flip_of_ten_thousand_scores_matches_the_direct_product(u):
    # the permute-and-flip integral p_a ∫₀¹ Π_{l≠a}(1 − p_l s) ds evaluated plainly for a few candidates (Gauss–
    # Legendre on 313 pieces of width < 32/k over all of [0, 1], all 10⁴ factors multiplied as logs): the series
    # of the candidates with p ≤ ½ and the truncation where S < −(40 + ln 2k) change nothing
    p = S.selection_probabilities(u, 1.0, noise="exponential")
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    pl = np.exp((u - u.max()) / 2.0)
    t, w = np.polynomial.legendre.leggauss(16)
    e = np.linspace(0.0, 1.0, 314)
    s = ((e[:-1, None] + e[1:, None]) / 2 + (e[1:, None] - e[:-1, None]) / 2 * t).ravel()
    ws = ((e[1:, None] - e[:-1, None]) / 2 * w).ravel()
    logF_all = np.zeros(s.size)
    for start in range(0, u.size, 500):
        logF_all += np.log1p(-np.outer(pl[start:start + 500], s)).sum(axis=0)
    for i in [int(np.argmax(u)), int(np.argmin(u)), u.size // 3, 7]:
        want = pl[i] * (np.exp(logF_all - np.log1p(-pl[i] * s)) @ ws)
        assert p[i] == pytest.approx(want, rel=1e-10, abs=0)
