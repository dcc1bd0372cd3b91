"""dpviz._binomial.binomial_pmf against exact rational arithmetic (mpmath) and scipy.stats (independent code)."""

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpviz._binomial import binomial_pmf

CASES = [(1, 0.5), (5, 0.3), (16, 0.02), (40, 0.05), (250, 0.5), (2500, 0.1), (10_000, 0.5), (10_000, 0.98),
         (1000, 1e-4), (30, 0.999999), (17, 0.5)]


def _exact(n, k, p):
    p = mpmath.mpf(p)
    return mpmath.binomial(n, k) * p**k * (1 - p) ** (n - k)


@pytest.mark.parametrize("n, p", CASES)
def test_binomial_pmf_matches_exact_arithmetic(n, p):
    got = binomial_pmf(n, p)
    mode = int((n + 1) * p)
    for k in sorted({0, 1, n // 3, n // 2, max(mode - 1, 0), min(mode, n), n - 1, n}):
        exact = _exact(n, k, p)
        if exact < mpmath.mpf("1e-300"):
            assert got[k] == pytest.approx(float(exact), abs=1e-300)
            continue
        rel = abs(mpmath.mpf(float(got[k])) - exact) / exact
        near_mode = abs(k - n * p) <= 3 * max(1.0, (n * p * (1 - p)) ** 0.5)
        assert rel < (1e-14 if near_mode else 2e-12), (n, p, k, float(rel))


@pytest.mark.parametrize("n, p", CASES)
def test_binomial_pmf_agrees_with_scipy_and_sums_to_one(n, p):
    got = binomial_pmf(n, p)
    np.testing.assert_allclose(got, stats.binom.pmf(np.arange(n + 1), n, p), rtol=5e-12, atol=1e-300)
    assert got.sum() == pytest.approx(1.0, abs=1e-13)


def test_degenerate_probabilities_are_point_masses():
    assert binomial_pmf(4, 0.0).tolist() == [1, 0, 0, 0, 0]
    assert binomial_pmf(4, 1.0).tolist() == [0, 0, 0, 0, 1]
    assert binomial_pmf(0, 0.3).tolist() == [1.0]
