"""What a per-attribute guarantee means for an adversary (Section 7 of 001, Propositions 26–27).

All functions take the per-attribute parameter ``eps0`` (the paper writes ε there).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from dpviz._validation import check_array, check_integer, check_positive

__all__ = [
    "posterior_tv_bound",
    "mutual_information_bound",
    "bit_recovery_probability",
    "rounding_reveals_probability",
]


def posterior_tv_bound(eps0, s_size):
    """d_TV(posterior on X_s with person i present, with i removed) ≤ e^{2|s|ε0} − 1 (Proposition 26 of 001,
    following Kasiviswanathan & Smith 2014), for an ε0-∇0DP mechanism and a prior that is a product over s and the
    other attributes. Values ≥ 1 are vacuous (a total-variation distance never exceeds 1); they are returned as
    computed, not clipped. Vectorised over ``s_size``.

    >>> round(posterior_tv_bound(0.01, 2), 6)
    0.040811
    """
    e0 = check_positive(eps0, "eps0", allow_zero=True)
    s = check_array(s_size, "s_size", ndim=(0, 1))
    if np.any(s < 0) or np.any(s != np.round(s)):
        raise ValueError("s_size contains values that are not non-negative integers, which is not allowed.")
    out = np.expm1(2.0 * s * e0)
    return float(out) if out.ndim == 0 else out


def mutual_information_bound(eps0: float, block_sizes: Sequence[int]) -> float:
    """I(X_i; M(X)) ≤ ½ε0²·Σ_j |s_j|² nats (Proposition 27 of 001) for an ε0-∇0CDP mechanism, independent people,
    and person i's attributes split into independent blocks s_1, …, s_k. All singletons (d blocks) give ½ε0²d;
    one block gives ½ε0²d² = the whole-record zCDP bound ½ε² with ε = dε0 (Bun & Steinke 2016).

    >>> round(mutual_information_bound(0.1, [1, 1, 1, 1]), 10)
    0.02
    >>> round(mutual_information_bound(0.1, [4]), 10)
    0.08
    """
    e0 = check_positive(eps0, "eps0", allow_zero=True)
    b = [check_integer(x, "block_sizes", minimum=1) for x in block_sizes]
    if not b:
        raise ValueError("block_sizes is empty, which is not allowed: must list at least one block.")
    return 0.5 * e0 * e0 * float(sum(x * x for x in b))


def bit_recovery_probability(eps0, k=1):
    """Worst-case probability that an adversary recovers a secret bit that is a function of k attributes:
    e^{kε0}/(1 + e^{kε0}) (randomized response is optimal for kε0-DP; Section 1 of 001 quotes 99.995% at ε = 10).
    Vectorised over ``k`` and ``eps0``.

    >>> round(bit_recovery_probability(10.0, 1), 7)
    0.9999546
    """
    e0 = check_array(eps0, "eps0", ndim=(0, 1))
    kk = check_array(k, "k", ndim=(0, 1))
    if np.any(e0 < 0):
        raise ValueError("eps0 contains negative values, which is not allowed: must be >= 0.")
    if np.any(kk < 0):
        raise ValueError("k contains negative values, which is not allowed: must be >= 0.")
    z = kk * e0
    out = 1.0 / (1.0 + np.exp(-z))
    return float(out) if np.ndim(out) == 0 else out


def rounding_reveals_probability(eps, sensitivity: float = 1.0):
    """P[round(f + Lap(Δ/ε)) = f] = P[|ξ| < ½] = 1 − e^{−ε/(2Δ)}: the probability that rounding a Laplace-noised
    count returns the exact count (Section 5 of 001: "at ε = 10 more than 99%"). With replace-one neighbours a
    histogram has L1 sensitivity Δ = 2, i.e. Lap(2/ε): 1 − e^{−ε/4} (digest A5, pitfall P1).

    >>> round(rounding_reveals_probability(10.0), 7)
    0.9932621
    """
    e = check_array(eps, "eps", ndim=(0, 1))
    if np.any(e < 0):
        raise ValueError("eps contains negative values, which is not allowed: must be >= 0.")
    s = check_positive(sensitivity, "sensitivity")
    out = -np.expm1(-e / (2.0 * s))
    return float(out) if out.ndim == 0 else out
