"""dpviz.partial.experiments — lesson 15's curves and seeded simulations — against closed forms and brute force
(the figures of dpviz.plots.partial only draw these numbers; tests of the figures are in test_plots_partial.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpviz import partial as PD


def test_record_epsilon_curves_closed_forms():
    eps0, delta, k_way = 0.3, 1e-6, 3
    c = PD.record_epsilon_curves(eps0, delta, d_max=30, k_way=k_way)
    d = np.arange(1, 31)
    rho = 0.5 * (d * eps0) ** 2
    np.testing.assert_allclose(c.d, d)
    np.testing.assert_allclose(c.pure, d * eps0, rtol=1e-15)
    np.testing.assert_allclose(c.simple, rho + 2 * np.sqrt(rho * math.log(1 / delta)), rtol=1e-13)
    np.testing.assert_allclose(c.parallel, np.sqrt(d) * eps0, rtol=1e-15)
    np.testing.assert_allclose(c.projection, np.sqrt(np.maximum(d, k_way) / k_way) * eps0, rtol=1e-15)
    ell = np.maximum(d // k_way, 1)
    np.testing.assert_allclose(c.mwem, np.sqrt(0.5 * (ell**2 + ell)) * eps0, rtol=1e-15)
    # CKS is never worse than the simple conversion, and is an upper bound on the exact (ε, δ) of ρ-zCDP
    assert np.all(c.cks <= c.simple * (1 + 1e-12))
    assert not c.pure.flags.writeable


def test_sparse_attack_rounding_is_right_with_the_closed_form_probability():
    # P[round(f + Lap(1/ε)) = f] = P[|Lap(1/ε)| < ½] = 1 − e^{−ε/2}; 200 seeds × 200 cells, 5 standard errors
    eps, cells, seeds = 1.5, 200, 200
    right = 0
    for s in range(seeds):
        f, noisy, guess = PD.sparse_attack(eps, cells, s)
        assert set(np.unique(f)) <= {0, 1}
        np.testing.assert_array_equal(guess, np.round(noisy))
        right += int(np.sum(guess == f))
    p = 1 - math.exp(-eps / 2)
    assert abs(right / (cells * seeds) - p) < 5 * math.sqrt(p * (1 - p) / (cells * seeds))
    a, b = PD.sparse_attack(eps, cells, 7), PD.sparse_attack(eps, cells, 7)
    np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.parametrize("n, d, n_heavy, seed", [(1000, 8, 3, 0), (5000, 20, 5, 2), (200_000, 4, 2, 1)])
def test_planted_data_counts_and_background(n, d, n_heavy, seed):
    X, planted, counts = PD.planted_data(n, d, n_heavy, seed)
    assert X.shape == (n, d) and X.dtype == np.uint8 and set(np.unique(X)) <= {0, 1}
    assert not X.flags.writeable
    # planted counts ⌊f·n⌋ for shares f evenly spaced over [0.06, 0.30], in the first rows
    want = np.floor(np.linspace(0.06, 0.30, len(planted)) * n).astype(int)
    np.testing.assert_array_equal(counts, want)
    i = 0
    for p, c in zip(planted, counts, strict=True):
        assert np.all(X[i:i + c] == p)
        i += c
    # the rest is uniform bits: mean ½ within 6 standard errors
    rest = X[i:].astype(float)
    assert abs(rest.mean() - 0.5) < 6 * 0.5 / math.sqrt(rest.size)
    assert PD.planted_data(n, d, n_heavy, seed)[0] is X  # cached


def _bound3(T, n, e0, d, k, ell):
    # Theorem 12, eq. (3): √(2T/(n²ε0²) + 4 ln|X|/(Tℓ)) + (√(2T)/(ε0 n)) ln m, |X| = 2^d, m = C(d, k)
    return np.sqrt(2 * T / (n * n * e0 * e0) + 4 * d * math.log(2) / (T * ell)) + np.sqrt(2 * T) / (e0 * n) * math.log(
        math.comb(d, k))


@pytest.mark.parametrize("n, e0, d, k, ell", [(1000, 1.0, 10, 2, 3), (10**5, 0.3, 40, 4, 7), (50, 2.0, 6, 1, 6)])
def test_mwem_best_rounds_is_the_brute_force_minimiser(n, e0, d, k, ell):
    T = np.arange(1, 200_001, dtype=float)
    b = _bound3(T, n, e0, d, k, ell)
    t_star, val = PD.mwem_best_rounds(n, e0, d, k, ell)
    assert val == pytest.approx(float(b.min()), rel=1e-12)
    assert b[t_star - 1] == pytest.approx(float(b.min()), rel=1e-12)


def test_mwem_ell_tradeoff():
    ells, person, bounds = PD.mwem_ell_tradeoff(1.0, 1000, 10, 2)
    np.testing.assert_array_equal(ells, np.arange(1, 6))
    np.testing.assert_allclose(person, np.sqrt(0.5 * (ells**2 + ells)), rtol=1e-15)  # √(2·¼(ℓ²+ℓ)ε0²)
    T = np.arange(1, 200_001, dtype=float)
    np.testing.assert_allclose(bounds, [_bound3(T, 1000, 1.0, 10, 2, int(e)).min() for e in ells], rtol=1e-12)


def test_projection_empirical_mse_rows():
    emp = PD.projection_empirical_mse(3, 500, 1.0, reps=2)
    np.testing.assert_array_equal(emp[:, 0], [4, 6, 8])  # the d ≥ k of (4, 6, 8)
    assert np.all(emp[:, 1:] >= 0) and not emp.flags.writeable
    assert PD.projection_empirical_mse(5, 500, 1.0, reps=2)[:, 0].tolist() == [6, 8]
    # fixed per-person ε (σ = Δ/(ε0 n)) adds more noise than fixed ε0 (σ = Δ0/(ε0 n)) when the noise dominates
    noisy = PD.projection_empirical_mse(2, 50, 0.2, reps=4)
    assert np.all(noisy[:, 2] > noisy[:, 1])
