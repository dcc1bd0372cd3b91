"""kov_delta / kov_epsilon (Kairouz, Oh & Viswanath 2015, Theorem 3.3, written for every ε) against a brute-force
mpmath oracle: δ(ε) = 1 − (1 − δ₀)^k (1 − Σ_l C(k,l)[e^{(k−l)ε₀} − e^{ε+lε₀}]₊/(1 + e^{ε₀})^k) summed term by term
in 60-digit arithmetic (plus the digits a tiny ε₀ needs), and ε(δ) its root by 400 bisection steps on [0, kε₀]
(δ(ε) is continuous and decreasing).

The returned ε must never be below the exact root (an under-reported ε is unsafe) and be within a relative
1e-12 of it (the cases below are well conditioned). Before issue 13 ``kov_epsilon`` formed ε = ln(A − τ) − ln B,
whose absolute error ~1e-16 rounded every ε below ~1e-16 to 0: with k = 1 and δ₀ < δ < δ₀ + (1 − δ₀)tanh(ε₀/2) at
a tiny ε₀ (one Gaussian with μ = 1e-12 in the optimal accountant: ε₀ ≈ 4.6e-18) it returned 0.
"""

from __future__ import annotations

import math

import mpmath as mp
import pytest

from dpviz.accountants import OptimalAccountant
from dpviz.accountants.optimal import kov_delta, kov_epsilon
from dpviz.mechanisms import Gaussian

mp.mp.dps = 60


def _dps(eps0):
    """60 digits beyond those that e^{ε₀} = 1 + ε₀ + … needs to resolve ε₀ (350 more at ε₀ = 1e-300)."""
    return 60 + max(0, int(-math.log10(eps0)) if eps0 > 0 else 0)


def mp_kov_delta(eps0, delta0, k, eps):
    with mp.workdps(_dps(eps0)):
        return +_mp_kov_delta(eps0, delta0, k, eps)


def _mp_kov_delta(eps0, delta0, k, eps):
    e0, d0, e = mp.mpf(eps0), mp.mpf(delta0), mp.mpf(eps)
    rr = mp.fsum(mp.binomial(k, l) * max(mp.e ** ((k - l) * e0) - mp.e ** (e + l * e0), 0) for l in range(k + 1))
    rr /= (1 + mp.e**e0) ** k
    return 1 - (1 - d0) ** k * (1 - rr)


def mp_kov_epsilon(eps0, delta0, k, delta):
    with mp.workdps(_dps(eps0)):
        return +_mp_kov_epsilon(eps0, delta0, k, delta)


def _mp_kov_epsilon(eps0, delta0, k, delta):
    d = mp.mpf(delta)
    if mp_kov_delta(eps0, delta0, k, 0) <= d:
        return mp.mpf(0)
    lo, hi = mp.mpf(0), k * mp.mpf(eps0)
    for _ in range(400):
        mid = (lo + hi) / 2
        if mp_kov_delta(eps0, delta0, k, mid) <= d:
            hi = mid
        else:
            lo = mid
    return hi


def _k1_deltas(eps0, delta0):
    """δ in (δ₀, δ₀ + (1 − δ₀)tanh(ε₀/2)): where ε(δ) ∈ (0, ε₀) for k = 1."""
    t = math.tanh(eps0 / 2)
    return [delta0 + (1 - delta0) * t * f for f in (0.01, 0.1, 0.5, 0.9)]


# (δ − δ₀ must be representable far above the rounding of δ₀: τ ≫ 1e-10·δ₀, else δ rounds to δ₀ or to δ(0))
CASES = [(e0, d0, 1, d) for e0 in (1e-300, 1e-17, 1e-12, 1e-3, 0.7, 5.0) for d0 in (0.0, 1e-13, 0.01)
         if 0.005 * math.tanh(e0 / 2) > 1e-10 * d0 for d in _k1_deltas(e0, d0)]
CASES += [(e0, d0, k, d) for e0 in (1e-300, 1e-17, 1e-9, 0.05, 1.0) for k in (2, 3, 7) for d0 in (0.0, 1e-8)
          if 1e-3 * e0 > 1e-10 * k * d0 for d in (d0 * k + 1e-3 * e0, d0 * k + 0.1 * e0)]


@pytest.mark.slow
@pytest.mark.parametrize("eps0, delta0, k, delta", CASES)
def test_kov_epsilon_against_brute_force_mpmath(eps0, delta0, k, delta):
    want = mp_kov_epsilon(eps0, delta0, k, delta)
    got = kov_epsilon(eps0, delta0, k, delta)
    assert want > 0  # the cases are chosen inside the δ range where ε > 0
    assert mp.mpf(got) >= want * (1 - mp.mpf(10) ** -40), (got, want)  # never under-reported
    assert mp.mpf(got) <= want * (1 + mp.mpf(1e-12)), (got, float(want), float(mp.mpf(got) / want - 1))


@pytest.mark.parametrize("eps0, delta0, k", [(1e-17, 0.0, 1), (1e-12, 1e-13, 1), (0.7, 0.01, 1), (0.05, 1e-8, 3),
                                             (1.0, 0.0, 7)])
def test_kov_delta_against_brute_force_mpmath(eps0, delta0, k):
    for f in (0.0, 0.1, 0.5, 0.99, 1.0, 1.5):
        e = f * k * eps0
        want = mp_kov_delta(eps0, delta0, k, e)
        assert mp.almosteq(mp.mpf(kov_delta(eps0, delta0, k, e)), want, rel_eps=1e-13, abs_eps=0), (e, float(want))


def test_kov_epsilon_edges():
    assert kov_epsilon(0.5, 0.01, 1, 0.005) == math.inf  # δ below what δ₀ alone costs
    assert kov_epsilon(0.5, 0.01, 1, 0.01) == 0.5  # δ = δ₀: δ_RR must be 0, only ε ≥ ε₀ gives it
    t = math.tanh(0.25)
    assert kov_epsilon(0.5, 0.0, 1, t) == 0.0 and kov_epsilon(0.5, 0.0, 1, 1.0) == 0.0
    assert kov_epsilon(0.0, 0.0, 3, 1e-9) == 0.0


def test_one_gaussian_at_tiny_mu_in_the_optimal_accountant():
    # μ = 1e-12: δ(0) = μ/√(2π) ≈ 3.98942e-13; at δ = 3.9894e-13 the exact ε is ≈ 4.56e-18 (it reported 0)
    g = Gaussian(1e12, 1.0)
    exact = g.epsilon(3.9894e-13)
    got = OptimalAccountant().compose(g).epsilon(3.9894e-13)
    assert 4e-18 < exact <= got <= exact * (1 + 1e-9), (got, exact)
