"""Privacy amplification by subsampling: ε′ = ln(1 + η(e^ε − 1)), δ′ = ηδ, and its inverse.

Poisson subsampling with rate q = η under add/remove neighbours (Balle, Barthe & Gaboardi 2018, Theorem 8; Li,
Qardaji & Su 2012), and sampling n of n′ records without replacement, η = n/n′, under substitution neighbours
(Balle, Barthe & Gaboardi 2018, Theorem 9; Theorem 7 of Ghazi et al. 2023). The one home of the formula:
:func:`_amplified_eps` (scalar), :func:`_amplified_many` (whole privacy curves), :func:`_deamplified_eps` (the
inverse, used by noise calibration) and :func:`_amplified_delta_curve` (the amplified δ(ε)).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from dpviz._validation import check_delta, check_in_range, check_integer, check_positive

__all__ = ["amplify_poisson", "amplify_without_replacement"]


def amplify_poisson(epsilon: float, delta: float, rate: float) -> tuple[float, float]:
    """(ε, δ) → (ln(1 + q(e^ε − 1)), qδ): Poisson subsampling with rate q under add/remove neighbours
    (Balle, Barthe & Gaboardi 2018, Theorem 8; Li, Qardaji & Su 2012).

    Proof idea (lesson 06): on x′ = x plus a record r, the sample misses r with probability 1 − q and then has the
    law of a sample of x; with probability q it holds r and is a neighbour of one, so every event's probability is at
    most (1 − q)P + q(e^ε P + δ). Tight: randomized response on "is r in the sample?" reaches it. About q·ε for small
    ε; about ε − ln(1/q) once q·e^ε ≫ 1.

    >>> eps, d = amplify_poisson(1.0, 1e-6, 0.1)
    >>> round(eps, 6), d
    (0.158565, 1e-07)
    """
    eps = check_positive(epsilon, "epsilon", allow_zero=True, allow_inf=True)
    delta = check_delta(delta)
    q = check_in_range(rate, "rate", 0.0, 1.0, low_inclusive=False)
    return _amplify(eps, delta, q)


def amplify_without_replacement(epsilon: float, delta: float, sample_size: int, population: int) -> tuple[float, float]:
    """(ε, δ) → (ln(1 + η(e^ε − 1)), ηδ) with η = n/n′: sampling n of n′ records without replacement, substitution
    neighbours (Balle, Barthe & Gaboardi 2018, Theorem 9; Theorem 7 of Ghazi et al. 2023).

    >>> eps, d = amplify_without_replacement(1.0, 1e-6, 10, 100)
    >>> round(eps, 6), d
    (0.158565, 1e-07)
    """
    eps = check_positive(epsilon, "epsilon", allow_zero=True, allow_inf=True)
    delta = check_delta(delta)
    n_pop = check_integer(population, "population", minimum=1)
    n = check_integer(sample_size, "sample_size", minimum=1, maximum=n_pop)
    return _amplify(eps, delta, n / n_pop)


def _amplify(eps: float, delta: float, eta: float) -> tuple[float, float]:
    if eta == 1.0 or eps == math.inf:
        return (eps if eta == 1.0 else math.inf), eta * delta
    return _amplified_eps(eps, eta), eta * delta


def _amplified_eps(eps: float, eta: float) -> float:
    """ln(1 + η(e^ε − 1)) without overflow: log1p(η·expm1(ε)) for ε ≤ 1 (stable for small ε and small η), and
    ε + ln(η + (1 − η)e^{−ε}) above (e^ε would overflow for ε > 709)."""
    if eps <= 1.0:
        return math.log1p(eta * math.expm1(eps))
    return eps + math.log(eta + (1.0 - eta) * math.exp(-eps))


def _deamplified_eps(eps_prime: float, eta: float) -> float:
    """The inverse of :func:`_amplified_eps`: the ε with ln(1 + η(e^ε − 1)) = ε′, i.e. ln(1 + (e^{ε′} − 1)/η),
    without overflow (ε′ + ln((1 − e^{−ε′}(1 − η))/η) for ε′ > 1)."""
    if eta == 1.0 or eps_prime == math.inf:
        return eps_prime
    if eps_prime <= 1.0:
        x = math.expm1(eps_prime) / eta
        return math.log1p(x) if x < 1e300 else math.log(math.expm1(eps_prime)) - math.log(eta)
    return eps_prime + math.log1p(-(1.0 - eta) * math.exp(-eps_prime)) - math.log(eta)


def _amplified_delta_curve(delta_of_eps: Callable[[float], float], eta: float) -> Callable[[float], float]:
    """δ′(ε′) = η·δ(ln(1 + (e^{ε′} − 1)/η)): the exact inverse of the amplified curve
    ε′(δ′) = ln(1 + η(e^{ε(δ′/η)} − 1)) (the amplification theorems hold for every (ε, δ) pair the mechanism
    satisfies, so they transform the whole privacy profile)."""

    def curve(eps_prime: float) -> float:
        return min(1.0, eta * delta_of_eps(_deamplified_eps(eps_prime, eta)))

    return curve


def _amplified_many(eps_many: Callable[[np.ndarray], np.ndarray], eta: float, deltas: np.ndarray) -> np.ndarray:
    """ε′(δ′) = ln(1 + η(e^{ε(δ′/η)} − 1)) for an array of δ′ (0 where δ′/η ≥ 1)."""
    with np.errstate(over="ignore"):
        d = np.asarray(deltas, dtype=float) / eta
    out = np.zeros(d.shape)
    m = d < 1.0
    if np.any(m):
        e = eps_many(d[m])
        with np.errstate(over="ignore", under="ignore"):
            small = np.log1p(eta * np.expm1(np.minimum(e, 1.0)))
            large = e + np.log(eta + (1.0 - eta) * np.exp(-np.maximum(e, 1.0)))
            out[m] = np.where(np.isinf(e), np.inf, np.where(e <= 1.0, small, large))
    return out
