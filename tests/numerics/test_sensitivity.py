"""dpviz.sensitivity: sensitivities against brute force over small data sets, exact errors against integration."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate

from dpviz import sensitivity as S
from dpviz.mechanisms import Laplace


def brute_force_sensitivity(query, n, domain, relation):
    """max |query(x) − query(x′)|₁ over every data set x of n records from ``domain`` and every neighbour x′
    (add/remove: one record of the domain added, or one removed if a record remains; replace: one record changed)."""
    best = 0.0
    for x in itertools.product(domain, repeat=n):
        x = list(x)
        neighbours = []
        if relation == "add_remove":
            neighbours += [x + [y] for y in domain]
            if n >= 2:
                neighbours += [x[:i] + x[i + 1:] for i in range(n)]
        else:
            neighbours += [x[:i] + [y] + x[i + 1:] for i in range(n) for y in domain]
        qx = np.atleast_1d(query(x))
        for nb in neighbours:
            best = max(best, float(np.abs(qx - np.atleast_1d(query(nb))).sum()))
    return best


DOMAIN = [-3.0, -1.0, 0.0, 0.5, 2.0, 5.0]


@pytest.mark.parametrize("relation", S.RELATIONS)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_count_and_histogram_against_brute_force(relation, n):
    count = lambda x: sum(1 for v in x if v > 0)  # a count of the records with a property  # noqa: E731
    assert S.count_sensitivity(relation) == brute_force_sensitivity(count, n, DOMAIN, relation)
    hist = lambda x: np.array([sum(1 for v in x if v == d) for d in DOMAIN])  # noqa: E731
    assert S.histogram_sensitivity(relation) == brute_force_sensitivity(hist, n, DOMAIN, relation)


def test_histogram_l2_under_replace_is_sqrt2():
    assert S.histogram_sensitivity("replace", "l2") == pytest.approx(math.sqrt(2), rel=1e-15)
    assert S.histogram_sensitivity("add_remove", "l2") == 1.0


@pytest.mark.parametrize("relation", S.RELATIONS)
@pytest.mark.parametrize("lower,upper", [(-1.0, 2.0), (0.0, 5.0), (-3.0, -1.0), (0.5, 0.5), (-3.0, 5.0)])
def test_clipped_sum_against_brute_force(relation, lower, upper):
    query = lambda x: float(np.clip(x, lower, upper).sum()) if x else 0.0  # noqa: E731
    for n in (1, 2, 3):
        assert S.sum_sensitivity(lower, upper, relation) == pytest.approx(
            brute_force_sensitivity(query, n, DOMAIN, relation), abs=1e-12)


@pytest.mark.parametrize("relation", S.RELATIONS)
@pytest.mark.parametrize("lower,upper", [(-1.0, 2.0), (0.0, 5.0), (-3.0, 0.5)])
def test_clipped_mean_against_brute_force(relation, lower, upper):
    query = lambda x: float(np.clip(x, lower, upper).mean())  # noqa: E731
    for n in ((2, 3) if relation == "add_remove" else (1, 2, 3)):
        assert S.mean_sensitivity(lower, upper, n, relation) == pytest.approx(
            brute_force_sensitivity(query, n, DOMAIN, relation), rel=1e-12)


def test_query_sensitivity_dispatches():
    assert S.query_sensitivity("sum", -1, 2, relation="replace") == 3.0
    assert S.query_sensitivity("mean", 0, 10, 5, "replace") == 2.0
    assert S.query_sensitivity("histogram", relation="replace") == 2.0
    assert S.query_sensitivity("count") == 1.0
    assert S.laplace_scale(3.0, 0.5) == 6.0


def test_clipping_error_is_bias_squared_plus_laplace_variance():
    """The noise term against ∫ t² Lap(b)(t) dt by quadrature; the bias directly from the clipped data."""
    data = S.example_dataset(201)
    assert np.all(np.diff(data) > 0) and np.median(data) == pytest.approx(30.0, rel=1e-9)
    eps = 0.7
    for upper in (10.0, 60.0, 400.0):
        res = S.clipping_error(data, 0.0, upper, eps)
        b = upper / eps
        lap_var = 2 * integrate.quad(lambda t, b=b: t * t * Laplace(scale=b).pdf(t), 0, np.inf)[0]
        assert res["noise_var"] == pytest.approx(lap_var, rel=1e-7)
        assert res["bias2"] == pytest.approx(sum(max(v - upper, 0.0) for v in data) ** 2, rel=1e-12)
        mean = S.clipping_error(data, 0.0, upper, eps, query="mean", relation="replace")
        assert mean["bias2"] == pytest.approx(res["bias2"] / 201**2, rel=1e-12)
        assert mean["noise_var"] == pytest.approx(2 * (upper / 201 / eps) ** 2, rel=1e-12)
    arr = S.clipping_error(data, 0.0, np.array([10.0, 60.0]), eps)
    assert arr["total"][1] == pytest.approx(S.clipping_error(data, 0.0, 60.0, eps)["total"], rel=1e-15)


@pytest.mark.parametrize("b", [0.3, 1.0, 4.0])
def test_clamped_laplace_mse_against_quadrature(b):
    for x in (0.0, 0.5, 2.0, 10.0):
        def integrand(t, x=x):
            return (max(x + t, 0.0) - x) ** 2 * math.exp(-abs(t) / b) / (2 * b)
        exact = sum(integrate.quad(integrand, lo, hi, epsabs=0, epsrel=1e-12)[0]
                    for lo, hi in [(-np.inf, -x), (-x, 0.0), (0.0, np.inf)])
        assert S.clamped_laplace_mse(x, b) == pytest.approx(exact, rel=1e-8)
        assert S.clamped_laplace_mse(x, b) <= 2 * b * b  # post-processing never hurts here
    assert S.clamped_laplace_mse(0.0, b) == pytest.approx(b * b, rel=1e-14)


@pytest.mark.parametrize("b", [0.2, 1.0, 3.0])
def test_rounded_laplace_mse_against_the_series(b):
    def cdf(t):
        return 0.5 * math.exp(t / b) if t < 0 else 1 - 0.5 * math.exp(-t / b)
    series = sum(2 * j * j * (cdf(j + 0.5) - cdf(j - 0.5)) for j in range(1, 2000))
    assert S.rounded_laplace_mse(b) == pytest.approx(series, rel=1e-10)


@pytest.mark.parametrize("bins", [1, 2, 5, 16])
def test_hierarchy_variance_is_the_least_squares_covariance(bins):
    a = np.vstack([np.ones((1, bins)), np.eye(bins)])
    cov = np.linalg.inv(a.T @ a) * 2.5
    for r in range(1, bins + 1):
        w = np.zeros(bins)
        w[:r] = 1
        assert S.hierarchy_range_variance(bins, r, 2.5) == pytest.approx(w @ cov @ w, rel=1e-10)
        assert S.hierarchy_range_variance(bins, r, 2.5) <= S.raw_range_variance(bins, r, 2.5)


def test_hierarchy_least_squares_by_simulation():
    """np.linalg.lstsq on 4000 noisy hierarchies: the per-bin sample variance within 5 standard errors
    (Var·√(2/(R−1)), Gaussian noise so the sample variance's spread is exactly that to first order)."""
    bins, reps = 4, 4000
    rng = np.random.default_rng(1)
    a = np.vstack([np.ones((1, bins)), np.eye(bins)])
    truth = np.array([5.0, 1.0, 0.0, 3.0])
    y = a @ truth + rng.normal(size=(reps, bins + 1))
    est = np.linalg.lstsq(a, y.T, rcond=None)[0].T
    v = S.hierarchy_range_variance(bins, 1)
    assert abs(est[:, 0].var(ddof=1) - v) <= 5 * v * math.sqrt(2 / (reps - 1))


def _solve_exact(a, b):
    """Solve a·x = b (lists of Fractions; b a list of columns) by Gauss–Jordan elimination in exact arithmetic."""
    n = len(a)
    m = [list(row) + [col[i] for col in b] for i, row in enumerate(a)]
    for c in range(n):
        piv = next(i for i in range(c, n) if m[i][c] != 0)
        m[c], m[piv] = m[piv], m[c]
        m[c] = [v / m[c][c] for v in m[c]]
        for i in range(n):
            if i != c and m[i][c] != 0:
                m[i] = [vi - m[i][c] * vc for vi, vc in zip(m[i], m[c])]
    return [[m[i][n + j] for i in range(n)] for j in range(len(b))]  # one solution per column of b


def _range_variance_exact(cov, r):
    return sum(cov[i][j] for i in range(r) for j in range(r))


@pytest.mark.parametrize("bins", [1, 2, 3, 5, 7])
@pytest.mark.parametrize("ratio", [Fraction(1), Fraction(1, 3), Fraction(5)])
def test_weighted_least_squares_variance_is_exact(bins, ratio):
    """(AᵀΣ⁻¹A)⁻¹ in exact rational arithmetic, Σ = diag(v_T, v, …, v), v = 7/2, v_T = ratio·v: the range variance
    is v·r·(1 − r/(B + v_T/v)) for every r (Sherman–Morrison)."""
    v = Fraction(7, 2)
    vt = ratio * v
    info = [[(1 / vt) + (1 / v if i == j else 0) for j in range(bins)] for i in range(bins)]  # AᵀΣ⁻¹A
    cov = _solve_exact(info, [[Fraction(int(i == j)) for i in range(bins)] for j in range(bins)])
    for r in range(1, bins + 1):
        exact = _range_variance_exact(cov, r)
        assert exact == v * r * (1 - Fraction(r) / (bins + ratio))
        assert S.hierarchy_range_variance(bins, r, float(v), float(vt)) == pytest.approx(float(exact), rel=1e-14)


@pytest.mark.parametrize("bins", [1, 2, 4, 6])
def test_public_total_least_squares_variance_is_exact(bins):
    """Least squares under the constraint Σ x = T (T public and exact): the KKT system [[2I, 1], [1ᵀ, 0]] solved
    exactly for each unit observation gives the linear map M; the covariance v·MMᵀ has range variance v·r(B − r)/B."""
    n = bins + 1
    kkt = [[Fraction(2 if i == j else 0) for j in range(bins)] + [Fraction(1)] for i in range(bins)]
    kkt.append([Fraction(1)] * bins + [Fraction(0)])
    cols = _solve_exact(kkt, [[Fraction(2 * (i == j)) for i in range(bins)] + [Fraction(0)] for j in range(bins)])
    m = [[cols[j][i] for j in range(bins)] for i in range(bins)]  # x̂ = M y (T = 0: a constant shift)
    assert len(cols[0]) == n
    cov = [[sum(m[i][t] * m[j][t] for t in range(bins)) for j in range(bins)] for i in range(bins)]
    for r in range(1, bins + 1):
        assert _range_variance_exact(cov, r) == Fraction(r * (bins - r), bins)
        assert S.hierarchy_range_variance(bins, r, 1.0, 0.0) == pytest.approx(r * (bins - r) / bins, abs=1e-15)


def test_composition_sequential_adds_parallel_takes_the_largest():
    assert S.sequential_epsilon([0.5] * 10) == pytest.approx(5.0)
    assert S.parallel_epsilon([0.5] * 10) == 0.5
    # a histogram with Lap(1/ε) per bin: its privacy loss is Δ₁/b, Δ₁ by brute force
    eps = 0.5
    hist = lambda x: np.array([sum(1 for v in x if v == d) for d in DOMAIN[:3]])  # noqa: E731
    assert brute_force_sensitivity(hist, 2, DOMAIN[:3], "add_remove") * eps == S.parallel_epsilon([eps] * 3)


@pytest.mark.parametrize("call,name", [
    (lambda: S.count_sensitivity("swap"), "relation"),
    (lambda: S.sum_sensitivity(2.0, 1.0), "upper"),
    (lambda: S.sum_sensitivity(float("nan"), 1.0), "lower"),
    (lambda: S.mean_sensitivity(0, 1, 1, "add_remove"), "n"),
    (lambda: S.histogram_sensitivity("replace", "linf"), "norm"),
    (lambda: S.query_sensitivity("median"), "query"),
    (lambda: S.laplace_scale(1.0, 0.0), "epsilon"),
    (lambda: S.clamped_laplace_mse(-1.0, 1.0), "true_count"),
    (lambda: S.rounded_laplace_mse(-2.0), "scale"),
    (lambda: S.hierarchy_range_variance(4, 2, 1.0, -1.0), "total_variance"),
    (lambda: S.hierarchy_range_variance(4, 5), "width"),
    (lambda: S.sequential_epsilon([1.0, -1.0]), "epsilons"),
    (lambda: S.clipping_error([1.0, 2.0], 0.0, 5.0, 1.0, query="max"), "query"),
])
def test_bad_input_names_the_parameter_and_range(call, name):
    with pytest.raises(ValueError, match=name) as info:
        call()
    assert "must" in str(info.value)
