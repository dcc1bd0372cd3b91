"""dpviz.release against exact oracles: closed forms recomputed here, brute-force canonical decompositions, numpy's
least squares for the consistent tree and its covariance, brute force over active sets and scipy for the projection,
and seeded Monte Carlo with tolerances of 5 standard errors for the samplers."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import optimize

from dpviz import release as R
from dpviz.mechanisms import DiscreteGaussian, exponential_mechanism_probabilities
from dpviz.partial.marginals import _project_simplex

HIST = R.example_age_histogram(10_000, 64)
SMALL_TREES = [(2, 3), (3, 2), (4, 2), (2, 4)]


def all_ranges(n):
    return np.array([(lo, hi) for lo in range(n) for hi in range(lo + 1, n + 1)])


# ---------------------------------------------------------------------------------------------- the data
def test_example_data_follow_their_formulas():
    a = np.arange(128)
    w = np.exp(-0.005 * a) * np.exp(-(3e-5 / 0.1) * (np.exp(0.1 * a) - 1.0))
    h = R.example_age_histogram(10_000, 128)
    assert h.sum() == 10_000 and np.all(h == np.round(h)) and np.all(h >= 0)
    assert np.max(np.abs(h - 10_000 * w / w.sum())) < 1.0  # largest remainders: each within one of its share
    t = R.example_age_table(10_000, 128)
    assert t.shape == (128, 2) and np.array_equal(t.sum(axis=1), h)
    assert t[30, 1] == round(h[30] / (1 + math.exp((63 - 30) / 3)))
    g = R.example_geography()
    assert g.shape == (4, 6) and g[0, 0] == 50_000 and g[3, 5] == round(1500 * 0.35**5)


# ---------------------------------------------------------------------------------------------- 1. k queries
@pytest.mark.parametrize("k, eps", [(1, 1.0), (10, 0.5), (250, 2.0)])
def test_composition_variance_is_two_k_squared_over_eps_squared(k, eps):
    scale = 1.0 / (eps / k)  # each query: sensitivity 1, budget ε/k
    assert R.composition_variance(k, eps) == pytest.approx(2 * scale**2, rel=1e-14)


def test_histogram_variance_is_two_width_over_eps_squared_and_beats_composition_below_k_squared():
    w = np.arange(1, 65)
    assert R.histogram_range_variance(64, w, 0.5) == pytest.approx(w * 2 / 0.25, rel=1e-14)
    k = 5
    better = R.histogram_range_variance(64, w, 1.0) < R.composition_variance(k, 1.0)
    assert np.array_equal(better, w < k * k)


def test_samplers_of_part_one_have_the_closed_form_variances():
    """20 000 draws each; the sample variance of a Laplace-noised answer has standard error √(20/m)·b² (μ₄ = 24b⁴)."""
    m = 20_000
    ranges = np.array([[0, 1], [3, 40], [0, 64]])
    truth = R.range_answers(HIST, ranges)
    comp = R.answer_by_composition(HIST, ranges, 1.5, size=m, rng=1)
    b = 3 / 1.5
    assert comp.shape == (m, 3)
    for j in range(3):
        assert abs(comp[:, j].mean() - truth[j]) < 5 * math.sqrt(2 * b * b / m)
        assert abs(comp[:, j].var() - 2 * b * b) < 5 * math.sqrt(20 / m) * b**2
    noisy = R.noisy_histogram(HIST, 1.5, size=m, rng=2)
    ans = R.range_answers(noisy, ranges)
    widths = ranges[:, 1] - ranges[:, 0]
    for j, w in enumerate(widths):
        var = 2 * w / 1.5**2
        # a sum of w i.i.d. Laplace variables has excess kurtosis 3/w: μ₄ = (3 + 3/w)σ⁴ ≤ 6σ⁴, so SE(s²) ≤ √(5/m)·σ²
        assert abs(ans[:, j].var() - var) < 5 * math.sqrt(5 / m) * var


def test_noisy_histogram_is_eps_dp_at_the_scale_it_uses():
    """Neighbours (one record added to any cell): the log density ratio of an output under Laplace(b) noise is at most
    ‖h − h′‖₁/b. The scale b the sampler uses is read off its draws (median absolute deviation b·ln 2) and must be
    1/ε; the L1 distance of neighbouring histograms is 1 for every cell, by brute force."""
    eps = 0.7
    draws = R.noisy_histogram(np.zeros(64), eps, size=2000, rng=5)
    b_hat = np.median(np.abs(draws)) / math.log(2)
    assert b_hat == pytest.approx(1 / eps, rel=0.02)
    for i in range(64):
        nb = HIST.copy()
        nb[i] += 1
        assert np.abs(nb - HIST).sum() == 1
        out = HIST + draws[i]
        ratio = (np.abs(out - nb).sum() - np.abs(out - HIST).sum()) * eps
        assert abs(ratio) <= eps + 1e-9


# ---------------------------------------------------------------------------------------------- 2. trees
def tree_matrix(b, L):
    """A (nodes × cells): row = one node in level order, 1 on its cells."""
    n = b**L
    rows = []
    for level in range(L + 1):
        s = b ** (L - level)
        for j in range(b**level):
            row = np.zeros(n)
            row[j * s:(j + 1) * s] = 1
            rows.append(row)
    return np.array(rows)


def level_of_nodes(b, L):
    return np.concatenate([np.full(b**level, level) for level in range(L + 1)])


def brute_decomposition(lo, hi, b, L):
    """Levels of the nodes of the canonical decomposition, by recursive descent from the root."""
    used = []

    def visit(level, j):
        s = b ** (L - level)
        a, e = j * s, (j + 1) * s
        if lo <= a and e <= hi:
            used.append(level)
        elif a < hi and lo < e:
            for c in range(b):
                visit(level + 1, j * b + c)

    visit(0, 0)
    return used


def test_tree_counts_and_sensitivity_one_per_level():
    b, L = 2, 6
    t = R.tree_counts(HIST, b)
    A = tree_matrix(b, L)
    assert np.array_equal(t, A @ HIST)
    lev = level_of_nodes(b, L)
    for i in range(HIST.size):  # one record added to cell i moves exactly one node of every level by 1
        nb = HIST.copy()
        nb[i] += 1
        diff = R.tree_counts(nb, b) - t
        assert set(np.unique(diff)) == {0.0, 1.0}
        assert np.array_equal(np.bincount(lev[diff == 1], minlength=L + 1), np.ones(L + 1))


@pytest.mark.parametrize("split", [None, [1.0, 2.0, 3.0, 4.0, 5.0]])
def test_level_epsilons_add_up_to_epsilon(split):
    e = R.tree_level_epsilons(2.0, 4, split)
    assert e.sum() == pytest.approx(2.0, rel=1e-14)
    if split is None:
        assert np.allclose(e, 2.0 / 5)
    else:
        assert np.allclose(e, 2.0 * np.array(split) / 15)


@pytest.mark.parametrize("b, L", SMALL_TREES)
@pytest.mark.parametrize("split", [None, "increasing"])
def test_canonical_decomposition_variance_and_answers_against_brute_force(b, L, split):
    n = b**L
    w = None if split is None else np.arange(1.0, L + 2)
    eps = 1.3
    eps_l = eps * (np.full(L + 1, 1 / (L + 1)) if w is None else w / w.sum())
    ranges = all_ranges(n)
    var = R.tree_range_variance(ranges, eps, L, b, split=w)
    tree = np.random.default_rng(0).normal(size=(b ** (L + 1) - 1) // (b - 1))
    ans = R.tree_answer(tree, ranges, b)
    A = tree_matrix(b, L)
    lev = level_of_nodes(b, L)
    for (lo, hi), v, a in zip(ranges, var, ans):
        used = brute_decomposition(lo, hi, b, L)
        assert v == pytest.approx(sum(2 / eps_l[level] ** 2 for level in used), rel=1e-13)
        assert len(used) <= max(1, 2 * (b - 1) * L)
        # the answer sums exactly the nodes that tile [lo, hi) without overlap
        chosen = [j for j in range(len(tree)) if A[j, lo:hi].sum() == A[j].sum() and A[j].sum() > 0]
        maximal = [j for j in chosen if not any(A[p, lo:hi].sum() == A[p].sum() and np.all(A[p] >= A[j])
                                                and p != j for p in chosen)]
        assert sorted(lev[maximal].tolist()) == sorted(used)
        assert a == pytest.approx(tree[maximal].sum(), abs=1e-12)


@pytest.mark.parametrize("b, L", SMALL_TREES)
@pytest.mark.parametrize("split", [None, [3.0, 1.0, 2.0, 1.0, 0.5]])
def test_consistent_tree_is_the_least_squares_fit(b, L, split):
    """Hay et al.'s two passes against numpy's (weighted) least squares min Σ_v (ỹ_v − (Ax)_v)²/v_ℓ."""
    w = None if split is None else np.array(split[:L + 1])
    shares = np.full(L + 1, 1 / (L + 1)) if w is None else w / w.sum()
    v_level = 1 / shares**2
    A = tree_matrix(b, L)
    sw = 1 / np.sqrt(v_level[level_of_nodes(b, L)])
    g = np.random.default_rng(1)
    for _ in range(5):
        y = g.normal(0, 10, size=A.shape[0])
        x, *_ = np.linalg.lstsq(A * sw[:, None], y * sw, rcond=None)
        assert np.allclose(R.consistent_tree(y, b, split=w), A @ x, atol=1e-9)
    Y = g.normal(0, 10, size=(3, A.shape[0]))  # several trees at once
    assert np.allclose(R.consistent_tree(Y, b, split=w)[1], R.consistent_tree(Y[1], b, split=w))


def test_consistent_tree_uses_hay_weights_for_equal_noise():
    """Equal noise: z_v = (b^h − b^{h−1})/(b^h − 1)·ỹ_v + (b^{h−1} − 1)/(b^h − 1)·Σ z_children (height h, cells h = 1).
    A root with two cells (b = 2, h = 2): z = 2/3·ỹ_root + 1/3·(ỹ₁ + ỹ₂); the cells then share the surplus."""
    y = np.array([10.0, 3.0, 4.0])
    z = 2 / 3 * 10 + 1 / 3 * 7
    surplus = (z - 7) / 2
    assert np.allclose(R.consistent_tree(y), [z, 3 + surplus, 4 + surplus])
    assert np.allclose(R.consistent_tree(R.tree_counts(HIST)), R.tree_counts(HIST))  # a consistent tree is kept


@pytest.mark.parametrize("b, L", SMALL_TREES)
@pytest.mark.parametrize("split", [None, "decreasing"])
def test_consistent_variance_is_the_least_squares_estimators(b, L, split):
    """The estimator x̂ = E·ỹ, E from numpy's least squares; Var(range) = a E diag(v) Eᵀ aᵀ."""
    w = None if split is None else np.arange(L + 1, 0, -1.0)
    eps = 0.8
    shares = np.full(L + 1, 1 / (L + 1)) if w is None else w / w.sum()
    v_node = (2 / (eps * shares) ** 2)[level_of_nodes(b, L)]
    A = tree_matrix(b, L)
    sw = 1 / np.sqrt(v_node)
    E, *_ = np.linalg.lstsq(A * sw[:, None], np.diag(sw), rcond=None)  # x̂ = E ỹ
    cov = E @ np.diag(v_node) @ E.T
    ranges = all_ranges(b**L)
    got = R.tree_range_variance(ranges, eps, L, b, split=w, consistent=True)
    for (lo, hi), v in zip(ranges, got):
        assert v == pytest.approx(cov[lo:hi, lo:hi].sum(), rel=1e-10)
    raw = R.tree_range_variance(ranges, eps, L, b, split=w)
    assert np.all(got <= raw * (1 + 1e-12))  # least squares never loses to one unbiased decomposition


@pytest.mark.parametrize("consistent", [False, True])
@pytest.mark.parametrize("statistic", ["mean", "max"])
def test_width_variance_is_the_mean_or_max_over_positions(consistent, statistic):
    b, L = 2, 5
    n = b**L
    widths = np.array([1, 3, 16, 31, 32])
    got = R.tree_width_variance(widths, 1.0, L, b, consistent=consistent, statistic=statistic)
    for w, value in zip(widths, got):
        ranges = np.array([(lo, lo + w) for lo in range(n - w + 1)])
        v = R.tree_range_variance(ranges, 1.0, L, b, consistent=consistent)
        assert value == pytest.approx(v.mean() if statistic == "mean" else v.max(), rel=1e-12)


def test_the_tree_pays_on_wide_ranges_only_and_only_with_consistency():
    """b = 2, L = 10 (1024 cells, ε/11 a level): a single cell costs (L + 1)²·2/ε² from the canonical decomposition
    against 2/ε² flat. At width 512 the canonical answer (about 9 nodes of variance 242/ε²) still loses to the flat
    2·512/ε², and the consistent tree wins by half; the whole domain is the root alone: 242/ε² against 2048/ε²."""
    L = 10
    widths = np.array([1, 512, 1024])
    canon = R.tree_width_variance(widths, 1.0, L, 2)
    cons = R.tree_width_variance(widths, 1.0, L, 2, consistent=True)
    flat = R.histogram_range_variance(1024, widths, 1.0)
    assert canon[0] == pytest.approx(2 * (L + 1) ** 2, rel=1e-14) and canon[0] > 100 * flat[0]
    assert canon[1] > flat[1] and cons[1] < flat[1] / 1.9
    assert canon[2] == pytest.approx(2 * (L + 1) ** 2, rel=1e-14) and canon[2] < flat[2] / 8
    assert np.all(cons < canon)
    every = np.arange(1, 1025)  # the consistent tree wins from width 239 on; the canonical one only at 1024
    wins = R.tree_width_variance(every, 1.0, L, 2, consistent=True) < R.histogram_range_variance(1024, every, 1.0)
    assert np.array_equal(wins, every >= 239)
    canon_wins = R.tree_width_variance(every, 1.0, L, 2) < R.histogram_range_variance(1024, every, 1.0)
    assert np.array_equal(canon_wins, every == 1024)


def test_noisy_tree_sampler_has_the_exact_variances():
    """Monte Carlo over 20 000 noisy trees (b = 4, L = 3, an uneven split): every level's noise variance is 2/ε_ℓ²
    (a wrong split fails here), and canonical and consistent answers have the exact variances, within 5 standard
    errors (a linear combination of Laplace noise has μ₄ ≤ 6σ⁴, so SE(s²) ≤ √(5/m)·σ²)."""
    b, L, eps, m = 4, 3, 2.0, 20_000
    split = np.array([1.0, 2.0, 3.0, 4.0])
    h = R.example_age_histogram(5000, 64)
    draws = R.noisy_tree(h, eps, b, split=split, size=m, rng=3)
    noise = draws - R.tree_counts(h, b)
    eps_l = eps * split / split.sum()
    lev = level_of_nodes(b, L)
    for level in range(L + 1):
        x = noise[:, lev == level].ravel()
        var = 2 / eps_l[level] ** 2
        assert abs(x.var() - var) < 5 * math.sqrt(20 / x.size) * var
    ranges = np.array([[0, 1], [5, 37], [1, 63], [0, 64]])
    truth = R.range_answers(h, ranges)
    for consistent, answers in ((False, R.tree_answer(draws, ranges, b)),
                                (True, R.tree_answer(R.consistent_tree(draws, b, split=split), ranges, b))):
        var = R.tree_range_variance(ranges, eps, L, b, split=split, consistent=consistent)
        err = answers - truth
        assert np.all(np.abs(err.mean(axis=0)) < 5 * np.sqrt(var / m))
        assert np.all(np.abs(err.var(axis=0) - var) < 5 * np.sqrt(5 / m) * var)


# ---------------------------------------------------------------------------------------------- 3. MWEM
def test_mwem_budget_adds_up_to_epsilon():
    for eps, T in [(1.0, 1), (0.3, 7), (5.0, 1000)]:
        budget = R.mwem_budget(eps, T)
        assert budget["select"] == budget["measure"] == pytest.approx(eps / (2 * T), rel=1e-15)
        assert budget["total"] == pytest.approx(eps, rel=1e-12)
    Q = R.range_query_matrix(all_ranges(16)[:40], 16)
    run = R.mwem(R.example_age_histogram(500, 16), Q, 0.9, 6, rng=0)
    spent = run.select_epsilons.sum() + run.measure_epsilons.sum()
    assert spent == pytest.approx(0.9, rel=1e-12) and run.epsilon == pytest.approx(0.9, rel=1e-12)
    assert run.select_epsilons.shape == run.measure_epsilons.shape == (6,)


def mwem_by_hand(h, Q, eps, T, seed, reuse=0):
    """Algorithm 1 of Hardt, Ligett & McSherry 2012 written out, drawing from the generator in the same order (a
    Gumbel per query for the exponential mechanism, then one Laplace)."""
    g = np.random.default_rng(seed)
    n = h.sum()
    A = np.full(h.size, n / h.size)
    qB = Q @ h
    avg = np.zeros(h.size)
    past = []
    for _ in range(T):
        score = np.abs(Q @ A - qB)
        pick = int(np.argmax(eps / (2 * T) * score / 2 + g.gumbel(size=len(score))))
        m = qB[pick] + g.laplace(0.0, 2 * T / eps)
        past.append((pick, m))
        steps = [(pick, m)] + past * reuse
        for j, mj in steps:
            A = A * np.exp(Q[j] * (mj - Q[j] @ A) / (2 * n))
            A = n * A / A.sum()
        avg += A / T
    return avg, A


@pytest.mark.parametrize("reuse", [0, 2])
def test_mwem_is_algorithm_one(reuse):
    h = R.example_age_histogram(2000, 32)
    Q = R.range_query_matrix(all_ranges(32)[::7], 32)
    run = R.mwem(h, Q, 2.0, 5, reuse, rng=11)
    avg, last = mwem_by_hand(h, Q, 2.0, 5, 11, reuse)
    assert np.allclose(run.synthetic, avg, rtol=1e-10) and np.allclose(run.last, last, rtol=1e-10)
    assert run.synthetic.sum() == pytest.approx(h.sum(), rel=1e-12)
    assert run.max_errors[-1] == pytest.approx(np.max(np.abs(Q @ (last - h))), rel=1e-10)


def test_mwem_selection_follows_the_exponential_mechanism():
    """One round: the first pick is drawn with P ∝ exp((ε/2T)·score/2), score = |q(A₀) − q(B)|; 4000 seeded runs,
    each frequency within 5 binomial standard errors."""
    h = R.example_age_histogram(300, 8)
    Q = R.range_query_matrix(np.array([[0, 2], [2, 5], [5, 8], [0, 8], [3, 4]]), 8)
    eps = 40.0
    A0 = np.full(8, h.sum() / 8)
    p = exponential_mechanism_probabilities(np.abs(Q @ A0 - Q @ h), eps / 2)
    m = 4000
    picks = np.array([R.mwem(h, Q, eps, 1, rng=s).selected[0] for s in range(m)])
    freq = np.bincount(picks, minlength=5) / m
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / m) + 1e-12)


def test_mwem_learns_the_data_at_a_large_epsilon_and_max_error_is_exact():
    h = R.example_age_histogram(5000, 16)
    Q = R.range_query_matrix(all_ranges(16), 16)
    run = R.mwem(h, Q, 1e5, 60, 3, rng=0)
    start = np.max(np.abs(Q @ (np.full(16, h.sum() / 16) - h)))
    assert R.max_query_error(run.last, h, Q) < 0.05 * start
    s = run.synthetic
    brute = max(abs(sum(s[lo:hi]) - sum(h[lo:hi])) for lo, hi in all_ranges(16))
    assert R.max_query_error(s, h, Q) == pytest.approx(brute, rel=1e-12)


# ---------------------------------------------------------------------------------------------- 4. synthetic data
def test_postprocess_clamps_and_normalises():
    assert np.allclose(R.postprocess_histogram([2.0, -3.0, 6.0, 0.0]), [0.25, 0.0, 0.75, 0.0])
    assert np.allclose(R.postprocess_histogram([-1.0, -2.0]), [0.5, 0.5])


def test_synthetic_records_answer_ranges_with_the_expected_counts():
    noisy = R.noisy_histogram(HIST, 0.5, rng=4)
    p = np.clip(noisy, 0, None) / np.clip(noisy, 0, None).sum()
    n_rec, reps = 3000, 400
    ranges = np.array([[0, 20], [60, 64], [18, 66 - 2]])
    expected = n_rec * np.array([p[lo:hi].sum() for lo, hi in ranges])
    counts = np.array([R.range_answers(np.bincount(R.sample_synthetic(noisy, n_rec, rng=s), minlength=64), ranges)
                       for s in range(reps)])
    q = expected / n_rec
    se = np.sqrt(n_rec * q * (1 - q) / reps)
    assert np.all(np.abs(counts.mean(axis=0) - expected) < 5 * se + 1e-12)


def test_synthetic_data_from_marginals_lose_the_correlation():
    table = R.example_age_table(10_000, 128)
    N = table.sum()
    lo, hi, col = 65, 128, 1
    truth = sum(table[a, col] for a in range(lo, hi))
    pa = sum(table[a].sum() for a in range(lo, hi)) / N
    pb = table[:, col].sum() / N
    got = R.correlation_lost(table, lo, hi, col)
    assert got["truth"] == truth and got["from_marginals"] == pytest.approx(N * pa * pb, rel=1e-12)
    assert got["marginal_a"] == pytest.approx(got["marginal_a_from_marginals"], rel=1e-12)
    assert got["truth"] > 4 * got["from_marginals"]  # most people over 65 are retired; the product says ~20 %
    # sampled from noisy marginals: the mean count of the joint query is its exact expectation given the releases
    na = R.noisy_histogram(table.sum(axis=1), 1.0, rng=1)
    nb = R.noisy_histogram(table.sum(axis=0), 1.0, rng=2)
    n_rec, reps = 2000, 300
    exp = R.marginal_synthesis_expectation(na, nb, lo, hi, col, n_rec)
    q = exp / n_rec
    hits = [np.sum((r[:, 0] >= lo) & (r[:, 0] < hi) & (r[:, 1] == col))
            for r in (R.sample_from_marginals(na, nb, n_rec, rng=s) for s in range(reps))]
    assert abs(np.mean(hits) - exp) < 5 * math.sqrt(n_rec * q * (1 - q) / reps)


# ---------------------------------------------------------------------------------------------- 5. TopDown
def projection_brute_force(v, total, w):
    """Every active set S: the weighted least squares on S with Σ_S x = total has x_S = v_S − λ/w_S; keep the
    feasible (x ≥ 0) candidate of least objective."""
    best, best_x = math.inf, None
    for k in range(1, v.size + 1):
        for S in itertools.combinations(range(v.size), k):
            S = list(S)
            lam = (v[S].sum() - total) / (1 / w[S]).sum()
            x = np.zeros_like(v)
            x[S] = v[S] - lam / w[S]
            if np.all(x >= -1e-12):
                obj = float(np.sum(w * (x - v) ** 2))
                if obj < best:
                    best, best_x = obj, x
    return best_x


def test_projection_against_brute_force_scipy_and_the_simplex_projection():
    g = np.random.default_rng(7)
    for trial in range(60):
        size = 1 + trial % 6
        v = g.normal(2, 3, size=size)
        total = float(g.uniform(0.1, 10))
        w = g.uniform(0.2, 5, size=size) if trial % 2 else np.ones(size)
        x = R.project_to_total(v, total, w)
        assert np.all(x >= 0) and x.sum() == pytest.approx(total, rel=1e-12)
        assert np.allclose(x, projection_brute_force(v, total, w), atol=1e-9)
        res = optimize.minimize(lambda z, w=w, v=v: np.sum(w * (z - v) ** 2), np.full(size, total / size),
                                method="SLSQP", bounds=[(0, None)] * size,
                                constraints=[{"type": "eq", "fun": lambda z, t=total: z.sum() - t}],
                                options={"ftol": 1e-14, "maxiter": 500})
        assert np.sum(w * (x - v) ** 2) <= res.fun + 1e-7
        if trial % 2 == 0:
            assert np.allclose(x, total * _project_simplex(v / total), atol=1e-9)
    assert np.array_equal(R.project_to_total([1.0, 2.0], 0.0), [0.0, 0.0])


def test_topdown_is_non_negative_consistent_and_accounts_its_budget():
    counties = R.example_geography()
    for seed in range(20):
        res = R.topdown(counties, 0.01, split=[1.0, 2.0, 5.0], rng=seed)
        nation, states, cty = res.estimates
        assert nation >= 0 and np.all(states >= 0) and np.all(cty >= 0)
        assert states.sum() == nation and np.array_equal(cty.sum(axis=1), states)
        assert np.all(cty == np.round(cty)) and np.all(states == np.round(states))
        assert res.level_rho.sum() == pytest.approx(0.01, rel=1e-12)
        assert np.allclose(res.level_rho, 0.01 * np.array([1, 2, 5]) / 8)
        assert np.allclose(res.level_sigma, np.sqrt(1 / (2 * res.level_rho)))
        assert np.all(res.noisy_counts[2] == np.round(res.noisy_counts[2]))  # discrete Gaussian: integers
        for level in range(3):
            err = np.sqrt(np.mean((np.asarray(res.estimates[level]) - res.true_counts[level]) ** 2))
            assert res.topdown_rmse[level] == pytest.approx(err, rel=1e-12, abs=1e-12)


def test_topdown_real_valued_steps_are_the_projections():
    res = R.topdown(R.example_geography(), 0.05, integer=False, rng=3)
    nation = max(float(res.noisy_counts[0]), 0.0)
    assert float(res.estimates[0]) == nation
    assert np.allclose(res.estimates[1], R.project_to_total(res.noisy_counts[1].astype(float), nation))
    for s in range(4):
        assert np.allclose(res.estimates[2][s], R.project_to_total(res.noisy_counts[2][s].astype(float),
                                                                   float(res.estimates[1][s])))


def test_topdown_noise_has_the_discrete_gaussian_variance():
    """The noisy county counts over 300 runs (7200 values): their mean squared error is the discrete Gaussian's
    exact variance Σ k² p(k) (pmf from dpviz.mechanisms.DiscreteGaussian), within 5 standard errors."""
    counties = R.example_geography()
    rho = 0.02
    runs = [R.topdown(counties, rho, rng=s) for s in range(300)]
    sq = np.concatenate([((r.noisy_counts[2] - counties) ** 2).ravel() for r in runs])
    sigma = math.sqrt(1 / (2 * rho / 3))
    k = np.arange(-int(40 * sigma), int(40 * sigma) + 1)
    var = float(np.sum(k**2 * DiscreteGaussian(sigma).pmf(k)))
    assert abs(sq.mean() - var) < 5 * sq.std() / math.sqrt(sq.size)
    assert np.mean([r.noisy_rmse[2] ** 2 for r in runs]) == pytest.approx(sq.mean(), rel=1e-12)


def test_topdown_at_a_huge_rho_returns_the_truth():
    counties = R.example_geography()
    res = R.topdown(counties, 1e4, rng=0)
    assert np.array_equal(res.estimates[2], counties) and np.all(res.topdown_rmse == 0)
