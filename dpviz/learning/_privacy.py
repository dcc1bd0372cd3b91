"""Privacy bookkeeping for the training runs: exact Gaussian calibration and accountant reports.

Calibration (used to *set* the noise) is exact and closed form: T adaptively composed Gaussian mechanisms, each with
sensitivity/σ = 1/z, are exactly μ-GDP with μ = √T/z (Dong, Roth & Su 2022, Cor. 2), and a μ-GDP mechanism has the
exact profile δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8). We solve it for μ.

Reporting (what a run *spent*) goes through :mod:`dpviz.accountants` (``PLDAccountant`` by default), composing the
run's actual per-step events, so a learner sees the same number an accountant lesson would compute.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy import optimize, special

from dpviz._validation import check_delta, check_positive
from dpviz.learning._checks import check_name

__all__ = ["gdp_delta", "gdp_epsilon", "gdp_mu_for", "group_privacy"]


def gdp_delta(epsilon: float, mu: float) -> float:
    """δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) of a μ-GDP (Gaussian) mechanism (Balle & Wang 2018, Thm 8).

    >>> round(gdp_delta(0.0, 1.0), 6)   # = 2Φ(1/2) − 1
    0.382925
    """
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    mu = check_positive(mu, "mu", allow_zero=True)
    if mu == 0.0:
        return 0.0
    a = special.ndtr(-eps / mu + mu / 2.0)
    b = math.exp(eps + special.log_ndtr(-eps / mu - mu / 2.0))
    return max(0.0, float(a - b))


def gdp_epsilon(delta: float, mu: float) -> float:
    """Smallest ε ≥ 0 with δ(ε) ≤ delta for a μ-GDP mechanism (exact inverse of :func:`gdp_delta`).

    >>> round(gdp_epsilon(gdp_delta(1.3, 0.8), 0.8), 9)
    1.3
    """
    delta = check_delta(delta, "delta", allow_zero=False)
    mu = check_positive(mu, "mu", allow_zero=True)
    if gdp_delta(0.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while gdp_delta(hi, mu) > delta:
        hi *= 2.0
    return float(optimize.brentq(lambda e: gdp_delta(e, mu) - delta, 0.0, hi, xtol=1e-14, rtol=1e-13))


@lru_cache(maxsize=4096)
def gdp_mu_for(epsilon: float, delta: float) -> float:
    """Largest μ with δ_μ(ε) ≤ δ: the GDP level that spends exactly (ε, δ).

    >>> mu = gdp_mu_for(1.0, 1e-5)
    >>> abs(gdp_delta(1.0, mu) - 1e-5) < 1e-12
    True
    """
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    hi = 1.0
    while gdp_delta(eps, hi) < delta:
        hi *= 2.0
    return float(optimize.brentq(lambda mu: gdp_delta(eps, mu) - delta, 1e-12, hi, xtol=1e-15, rtol=1e-14))


def group_privacy(epsilon: float, delta: float, k: int) -> tuple[float, float]:
    """(kε, δ·(e^{kε} − 1)/(e^ε − 1)): an (ε, δ)-DP algorithm is this private for groups of k (Lemma 6 of 000;
    Dwork & Roth 2014, Thm 2.2 for δ = 0).

    >>> group_privacy(0.5, 0.0, 4)
    (2.0, 0.0)
    """
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    delta = check_delta(delta, "delta")
    if eps == 0.0:
        return 0.0, delta * k
    return k * eps, min(1.0, delta * math.expm1(k * eps) / math.expm1(eps))


ACCOUNTANT_NAMES = ("basic", "advanced", "optimal", "rdp", "zcdp", "pld")


def check_accountant(accountant) -> str:
    """``accountant`` must name one of :data:`dpviz.accountants.ACCOUNTANTS`."""
    return check_name(accountant, "accountant", ACCOUNTANT_NAMES)


def accountant_epsilon(events, delta: float, accountant: str = "pld") -> tuple[float, str]:
    """Compose ``events`` [(event, count), ...] in a fresh :mod:`dpviz.accountants` accountant; return (ε, name).

    Events are given as tuples ``("gaussian", noise_multiplier)`` (a Gaussian mechanism with sensitivity 1 and
    σ = noise_multiplier) or ``("pure", epsilon)``.
    """
    from dpviz import accountants as acc

    if not hasattr(acc, "ACCOUNTANTS"):
        raise ImportError("dpviz.accountants is not complete in this checkout")
    cls = acc.ACCOUNTANTS[accountant]
    a = cls(neighboring="replace_one")
    for (kind, value), count in events:
        a.compose(_to_event(acc, kind, value), count=int(count))
    return float(a.epsilon(delta)), cls.__name__


def _to_event(acc, kind, value):
    if kind == "gaussian":
        from dpviz.mechanisms import Gaussian

        return Gaussian(sigma=float(value), sensitivity=1.0)
    if kind == "pure":
        return acc.PureDP(float(value))
    if kind == "approx":
        return acc.ApproxDP(float(value[0]), float(value[1]))
    raise ValueError(f"event kind = {kind!r} is not allowed: must be 'gaussian', 'pure' or 'approx'.")


def reference_epsilon(events, delta: float) -> float:
    """Closed-form ε used when no accountant is available: Gaussians exactly (μ-GDP), pure events via zCDP.

    k pure ε₀ events are (kε₀²/2)-zCDP (Bun & Steinke 2016, Prop. 1.4), converted with
    ε = ρ + 2√(ρ ln(1/δ)) (Prop. 1.3) and capped by basic composition kε₀. Mixed lists combine both through zCDP.
    """
    if all(kind == "approx" for (kind, _), _c in events):
        # k (ε₀, δ₀) events: advanced composition (Dwork, Rothblum & Vadhan 2010, Thm III.3) with slack δ − Σδ₀,
        # or basic composition Σε₀ when that is smaller or no slack is left
        k = sum(c for _e, c in events)
        e0 = max(v[0] for (_k, v), _c in events)
        used = sum(c * v[1] for (_k, v), c in events)
        basic = sum(c * v[0] for (_k, v), c in events)
        if used >= delta * (1.0 - 1e-12):
            return basic if used <= delta * (1.0 + 1e-9) else math.inf
        slack = delta - used
        adv = k * e0 * math.expm1(e0) + math.sqrt(2.0 * k * math.log(1.0 / slack)) * e0
        return min(basic, adv)
    mu2 = 0.0
    rho_pure = 0.0
    basic = 0.0
    for (kind, value), count in events:
        if kind == "gaussian":
            mu2 += count / float(value) ** 2
        else:
            rho_pure += count * float(value) ** 2 / 2.0
            basic += count * float(value)
    if rho_pure == 0.0:
        return gdp_epsilon(delta, math.sqrt(mu2))
    rho = rho_pure + mu2 / 2.0
    zc = rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))
    return zc if mu2 > 0 else min(zc, basic)
