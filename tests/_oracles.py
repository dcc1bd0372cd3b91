"""Shared mpmath oracles of the Gaussian mechanism for the tests (one copy, not one per test file)."""

import math

import mpmath as mp


def bw_delta(eps, mu):
    """Balle & Wang 2018, Thm 8: δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), μ = Δ/σ, at mpmath's working precision."""
    eps, mu = mp.mpf(eps), mp.mpf(mu)
    return mp.ncdf(mu / 2 - eps / mu) - mp.e ** eps * mp.ncdf(-mu / 2 - eps / mu)


def invert(delta_fn, target, hi=200.0):
    """Smallest ε ≥ 0 with delta_fn(ε) ≤ target, by bisection in mpmath."""
    if delta_fn(0) <= target:
        return 0.0
    lo, hi = mp.mpf(0), mp.mpf(hi)
    for _ in range(120):
        mid = (lo + hi) / 2
        if delta_fn(mid) <= target:
            hi = mid
        else:
            lo = mid
    return float(hi)


def exact_gauss_eps(sigma, k, delta, sens=1.0):
    """ε(δ) of k compositions of N(0, σ²) at sensitivity Δ (GDP: μ = √k·Δ/σ)."""
    return invert(lambda e: bw_delta(e, sens * math.sqrt(k) / sigma), delta)
