"""Tests of dpviz.partial.marginals: projection mechanism (Theorem 11 of 001) and partial MWEM (Algorithm 1,
Theorem 12 of 001)."""

import itertools
import math

import numpy as np
import pytest

from dpviz.partial import (
    diameters_brute_force,
    disjoint_query_sets,
    kway_diameters,
    kway_projection_mse_bounds,
    kway_queries,
    kway_query_matrix,
    max_star_error,
    mwem_best_T,
    mwem_error_bound,
    mwem_person_rho,
    partial_mwem,
    project_onto_hull,
    projection_guarantees,
    projection_mechanism,
    projection_mse_bound,
    projection_sigma,
)


def _naive_query(u, S, family):
    vals = [u[j] for j in S]
    return float(all(vals)) if family == "conjunction" else float(sum(vals) % 2)


@pytest.mark.parametrize("family", ["conjunction", "parity"])
def test_query_matrix_against_naive(family):
    d, k = 5, 2
    Q = kway_query_matrix(d, k, family)
    for code in range(1 << d):
        u = [(code >> (d - 1 - b)) & 1 for b in range(d)]
        for j, S in enumerate(kway_queries(d, k)):
            assert Q[code, j] == _naive_query(u, S, family)


def _naive_diameters(d, k, family):
    recs = list(itertools.product([0, 1], repeat=d))
    subsets = list(itertools.combinations(range(d), k))
    vec = {u: np.array([_naive_query(u, S, family) for S in subsets]) for u in recs}
    D = max(np.linalg.norm(vec[u] - vec[v]) for u in recs for v in recs)
    D0 = max(np.linalg.norm(vec[u] - vec[v]) for u in recs for v in recs if sum(a != b for a, b in zip(u, v)) == 1)
    return D, D0


@pytest.mark.parametrize("d, k", [(4, 1), (4, 2), (5, 2), (5, 3), (6, 2)])
@pytest.mark.parametrize("family", ["conjunction", "parity"])
def test_diameters_brute_force(d, k, family):
    got = diameters_brute_force(kway_query_matrix(d, k, family), d)
    want = _naive_diameters(d, k, family)
    assert got == pytest.approx(want, abs=1e-12)
    D, D0 = kway_diameters(d, k)
    assert got[1] == pytest.approx(D0, abs=1e-12)  # Δ0 = √C(d−1, k−1) always
    if family == "conjunction" or k % 2 == 1:
        assert got[0] == pytest.approx(D, abs=1e-12)  # Δ = √m exact
    else:
        assert got[0] <= D + 1e-12  # even-k parities: √m is only an upper bound (digest P13)


def test_diameter_fixtures():
    assert [round(kway_diameters(d, k)[1], 3) for d, k in [(6, 2), (6, 3), (8, 2)]] == [2.236, 3.162, 2.646]
    D, D0 = kway_diameters(100, 3)
    assert D / D0 == pytest.approx(5.7735, abs=1e-4)
    assert diameters_brute_force(kway_query_matrix(6, 2, "parity"), 6)[0] == pytest.approx(3.0)
    assert diameters_brute_force(kway_query_matrix(8, 2, "parity"), 8)[0] == pytest.approx(4.0)


def test_projection_guarantees_and_sigma():
    D, D0 = kway_diameters(10, 2)
    s = projection_sigma(1000, D0, eps0=0.5)
    g = projection_guarantees(s, 1000, D, D0)
    assert g["eps0"] == pytest.approx(0.5)
    assert g["eps"] / g["eps0"] == pytest.approx(math.sqrt(10 / 2))
    with pytest.raises(ValueError, match="exactly one"):
        projection_sigma(10, 1.0)


def test_projection_mse_bound_formulas():
    d, k, n, e0 = np.array([10.0, 20.0, 40.0]), 2, 100, 0.5
    m = np.array([math.comb(int(x), k) for x in d])
    want = np.minimum(m * k / (e0**2 * n**2 * d), math.sqrt(2 * k * math.log(2)) / (e0 * n))
    np.testing.assert_allclose(kway_projection_mse_bounds(d, k, n, eps0=e0), want)
    # for large d the fixed-ε0 bound is the d-free term; the fixed-ε bound grows like √d
    big = kway_projection_mse_bounds(np.array([200.0, 400.0]), k, n, eps0=e0)
    assert big[0] == pytest.approx(big[1])
    std = kway_projection_mse_bounds(np.array([200.0, 800.0]), k, n, eps=e0)
    assert std[1] / std[0] == pytest.approx(2.0)


def test_projection_onto_hull_is_a_projection():
    Q = kway_query_matrix(4, 2)
    rng = np.random.default_rng(0)
    inside = rng.dirichlet(np.ones(16)) @ Q
    assert np.allclose(project_onto_hull(Q, inside, iterations=3000), inside, atol=1e-4)
    Y = rng.normal(0.3, 1.0, size=Q.shape[1])
    P = project_onto_hull(Q, Y, iterations=3000)
    # optimality: ⟨Y − P, v − P⟩ ≤ 0 for every vertex v of the hull (variational inequality)
    assert np.max((Q - P) @ (Y - P)) <= 1e-6


@pytest.mark.slow
def test_projection_error_flat_in_d_at_fixed_eps0():
    """Theorem 11: MSE ≤ min{σ², σΔ√(2 ln|X|)/m}; at fixed ε0 this is ≤ √(2k ln 2)/(ε0 n), which does not depend
    on d; at a fixed per-person ε the noise σ = Δ/(εn) is √(d/k) times larger. Tolerance: 5 standard errors of
    the mean over R releases."""
    k, eps0, n, R = 2, 0.1, 100, 40
    rng = np.random.default_rng(0)
    flat = math.sqrt(2 * k * math.log(2)) / (eps0 * n)
    for d in (4, 6, 8):
        X = (rng.random((n, d)) < 0.3).astype(int)
        Q = kway_query_matrix(d, k)
        qx = np.bincount(X @ (1 << np.arange(d - 1, -1, -1)), minlength=1 << d) / n @ Q
        D, D0 = kway_diameters(d, k)
        errs = {}
        for label, sigma in (("eps0", D0 / (eps0 * n)), ("eps", D / (eps0 * n))):
            out = projection_mechanism(X, sigma, k=k, rng=d, size=R)
            e = np.mean((out - qx) ** 2, axis=1)
            errs[label] = (e.mean(), e.std(ddof=1) / math.sqrt(R))
            assert e.mean() <= projection_mse_bound(sigma, D, Q.shape[1], d * math.log(2)) + 5 * errs[label][1]
        assert errs["eps0"][0] <= flat
        assert errs["eps"][0] > errs["eps0"][0] - 5 * math.hypot(errs["eps"][1], errs["eps0"][1])


# ------------------------------------------------------------------ partial MWEM
def test_disjoint_sets_counts():
    # k = 2, ℓ = d/2: perfect matchings of d points, (d − 1)!! of them (digest P12)
    assert len(disjoint_query_sets(8, 2, 4)) == 7 * 5 * 3
    assert len(disjoint_query_sets(10, 2, 5)) == 9 * 7 * 5 * 3
    sets = disjoint_query_sets(6, 2, 2)
    subsets = kway_queries(6, 2)
    brute = [c for c in itertools.combinations(range(15), 2) if not set(subsets[c[0]]) & set(subsets[c[1]])]
    assert sorted(map(tuple, sets)) == sorted(brute)
    with pytest.raises(ValueError, match="ell"):
        disjoint_query_sets(6, 2, 4)


def test_mwem_privacy_accounting():
    for ell in (1, 2, 5):
        assert mwem_person_rho(0.3, ell) == pytest.approx(0.25 * (ell**2 + ell) * 0.09)
        assert mwem_person_rho(0.3, ell) <= mwem_person_rho(0.3, ell, exact=False) + 1e-15
    assert mwem_person_rho(0.3, 1) == pytest.approx(0.5 * 0.09)  # ℓ = 1 is standard MWEM


def test_mwem_bound_and_best_T():
    n, e0, logX, m, ell = 5000, 1.0, 8 * math.log(2), 28, 4
    T, b = mwem_best_T(n, e0, logX, m, ell, T_max=20000)
    assert b == pytest.approx(mwem_error_bound(T, n, e0, logX, m, ell))
    assert b <= mwem_error_bound(T - 1, n, e0, logX, m, ell) and b <= mwem_error_bound(T + 1, n, e0, logX, m, ell)
    # against a full scan over every integer T, for several settings
    for nn, ee, ll in [(5000, 1.0, 4), (200, 0.1, 1), (10**5, 2.0, 2), (50, 0.05, 3)]:
        full = mwem_error_bound(np.arange(1, 20001), nn, ee, logX, m, ll)
        assert mwem_best_T(nn, ee, logX, m, ll, T_max=20000) == (int(np.argmin(full)) + 1, pytest.approx(full.min()))
    # larger ℓ improves the partial bound (Theorem 12)
    assert mwem_best_T(n, e0, logX, m, 4)[1] < mwem_best_T(n, e0, logX, m, 1)[1]


@pytest.mark.slow
def test_mwem_error_within_bound():
    rng = np.random.default_rng(0)
    n, d, k = 3000, 6, 2
    X = (rng.random((n, d)) < np.linspace(0.1, 0.9, d)).astype(int)
    logX, m = d * math.log(2), math.comb(d, k)
    for ell in (1, 3):
        T, bound = mwem_best_T(n, 1.0, logX, m, ell)
        errs = [max_star_error(partial_mwem(X, 1.0, T, ell, rng=s).answers, X, ell) for s in range(3)]
        # the bound is on the expectation; Markov: P[err > 3·bound] ≤ 1/3 per run, all three runs fail w.p. ≤ 1/27
        assert min(errs) <= bound
        assert np.all(np.array(errs) <= 3 * bound)


def test_mwem_bad_input():
    X = np.zeros((5, 6))
    with pytest.raises(ValueError, match="ell"):
        partial_mwem(X, 1.0, 10, ell=4)
    with pytest.raises(ValueError, match="eps0"):
        partial_mwem(X, 0.0, 10)
    with pytest.raises(ValueError, match="empty"):
        partial_mwem(np.zeros((0, 6)), 1.0, 10)


def _mwem_data():
    # n = 20 records on d = 4 attributes: the six 2-way conjunctions have answers 0.7 (attrs 1,2), 0.55 (3,4) and
    # 0.4 (the other four), so under the uniform A_1 (answers ¼) the errors are 0.45, 0.3 and 0.15
    return np.array([[1, 1, 1, 1]] * 8 + [[1, 1, 0, 0]] * 6 + [[0, 0, 1, 1]] * 3 + [[0, 0, 0, 0]] * 3)


def _conj_answers(X, d=4, k=2):
    return (np.bincount(X @ (1 << np.arange(d - 1, -1, -1)), minlength=1 << d) / len(X)) @ kway_query_matrix(d, k)


@pytest.mark.slow
@pytest.mark.parametrize("ell", [1, 2])
def test_mwem_selection_is_the_zcdp_exponential_mechanism(ell):
    """Round 1 of Algorithm 1 (A_1 uniform) picks an attribute-disjoint ℓ-set S with
    P[S] ∝ exp(ε_T·n·Σ_{q∈S} |q(A_1) − q(x)|), ε_T = ε0/√(2T), with **no ½** (digest P12). Exact probabilities
    against the frequencies over R seeds, within 5 binomial standard errors."""
    X, eps0, R = _mwem_data(), 0.5, 1500
    n = len(X)
    err = np.abs(0.25 - _conj_answers(X))
    sets = disjoint_query_sets(4, 2, ell)
    w = np.exp(eps0 / math.sqrt(2) * n * err[sets].sum(axis=1))
    exact = w / w.sum()
    counts = np.zeros(len(sets))
    for s in range(R):
        pick = sorted(partial_mwem(X, eps0, 1, ell, rng=s).selected[0])
        counts[[i for i, S in enumerate(sets) if sorted(S) == pick][0]] += 1
    np.testing.assert_array_less(np.abs(counts / R - exact), 5 * np.sqrt(exact * (1 - exact) / R) + 1e-12)


def test_mwem_output_averages_A1_to_AT_and_updates_with_half():
    """T = 1: the output is the average of A_1 alone, the uniform distribution, so every 2-way conjunction is ¼
    exactly (not A_2). T = 2 with a huge ε0 (noise sd 1/(nε_T) ≈ 10⁻⁸): A_2(u) ∝ exp(½·Σ_i q_i(u)(q_i(x) − ¼)) over
    the selected set (Lemma 13 with q(A_1) = ¼, erratum E2), and the output answers (A_1 + A_2)/2."""
    X = _mwem_data()
    np.testing.assert_array_equal(partial_mwem(X, 1.0, 1, 2, rng=0).answers, np.full(6, 0.25))
    Q = kway_query_matrix(4, 2)
    qx = _conj_answers(X)
    res = partial_mwem(X, 1e7, 2, 2, rng=0)
    pick = list(res.selected[0])
    A1 = np.full(16, 1 / 16)
    A2 = A1 * np.exp(0.5 * Q[:, pick] @ (qx[pick] - 0.25))
    A2 /= A2.sum()
    np.testing.assert_allclose(res.distribution, (A1 + A2) / 2, atol=1e-7)
    np.testing.assert_allclose(res.answers, (A1 + A2) / 2 @ Q, atol=1e-7)
