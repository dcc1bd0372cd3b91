"""Differential privacy as hypothesis testing: the trade-off region that (ε, δ)-DP allows (lesson 03).

An adversary who sees one output tests "x" against "x′". A test with type I error α has type II error β ≥ T(α),
T = T(M(x), M(x′)) the mechanism's trade-off function (Dong, Roth & Su 2022, Def. 2.1; the mechanisms compute it
exactly, :meth:`dpviz.mechanisms.Gaussian.tradeoff` etc.). A mechanism is (ε, δ)-DP iff T(α) ≥ f_{ε,δ}(α) for
every α, with

    f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α))

(Kairouz, Oh & Viswanath 2015, Thm 2.1; Dong, Roth & Su 2022, Prop. 2.5). :func:`dp_region_lower_bound` evaluates
f_{ε,δ}; :func:`dp_region_kink` is the α where its two sloped pieces meet.

>>> dp_region_lower_bound(0.0, 1.0, 0.01), dp_region_lower_bound(1.0, 1.0, 0.01)
(0.99, 0.0)
"""

from __future__ import annotations

import math

import numpy as np

from dpviz._validation import _alpha_arg, check_delta, check_positive

__all__ = ["dp_region_lower_bound", "dp_region_kink"]


def dp_region_lower_bound(alpha, epsilon: float, delta: float):
    """f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)): the smallest type II error an (ε, δ)-DP mechanism
    allows at type I error α. A mechanism is (ε, δ)-DP iff its trade-off curve lies on or above it (Kairouz, Oh &
    Viswanath 2015, Thm 2.1; Dong, Roth & Su 2022, Prop. 2.5).

    Broadcasts over ``alpha`` (probabilities in [0, 1]; scalar in, float out); ε ≥ 0, δ ∈ [0, 1].
    Symmetric: f(f(α)) = α on [0, 1 − δ].

    >>> dp_region_lower_bound([0.0, 0.5, 1.0], 0.0, 0.0).tolist()   # ε = δ = 0: perfect privacy, β = 1 − α
    [1.0, 0.5, 0.0]
    """
    a, scalar = _alpha_arg(alpha)
    e = check_positive(epsilon, "epsilon", allow_zero=True)
    d = check_delta(delta)
    beta = _dp_region_lower_bound(a, e, d)
    return float(beta[0]) if scalar else beta


def _dp_region_lower_bound(a: np.ndarray, e: float, d: float) -> np.ndarray:
    """:func:`dp_region_lower_bound` on validated input. For ε > 700 (e^ε overflows) the steep piece is computed
    as 1 − δ − exp(ε + ln α), which is −∞ where that overflows and 1 − δ at α = 0."""
    if e <= 700.0:
        steep = 1 - d - math.exp(e) * a
    else:
        with np.errstate(over="ignore", divide="ignore"):
            steep = 1 - d - np.exp(e + np.log(a))
    return np.maximum.reduce([np.zeros_like(a), steep, math.exp(-e) * (1 - d - a)])


def dp_region_kink(epsilon: float, delta: float) -> float:
    """α* = (1 − δ)/(1 + e^ε): where the two sloped pieces 1 − δ − e^ε α and e^{−ε}(1 − δ − α) of
    :func:`dp_region_lower_bound` meet (the point of the boundary closest to the corner (0, 0), on the diagonal
    β = α). A figure that samples α on a grid adds it, so the drawn boundary keeps its corner.

    >>> dp_region_kink(0.0, 0.0), round(dp_region_kink(math.log(3.0), 0.2), 15)
    (0.5, 0.2)
    """
    e = check_positive(epsilon, "epsilon", allow_zero=True)
    d = check_delta(delta)
    return (1 - d) * math.exp(-e) / (1 + math.exp(-e))
