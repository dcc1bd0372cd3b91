"""What a per-attribute guarantee means for an adversary (Section 7 of Ghazi, Kumar, Manurangsi & Steinke 2023,
Propositions 26–27).

All functions take the per-attribute parameter ``eps0`` (the paper writes ε there).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy import special

from dpviz.partial.histograms import COUNT, EPS, EPS_OR_ZERO, SCALE, real_array

__all__ = [
    "posterior_tv_bound",
    "mutual_information_bound",
    "bit_recovery_probability",
    "rounding_reveals_probability",
]


def posterior_tv_bound(eps0, s_size):
    """d_TV(posterior on X_s with person i present, with i removed) ≤ e^{2|s|ε0} − 1 (Proposition 26 of Ghazi, Kumar,
    Manurangsi & Steinke 2023, following Kasiviswanathan & Smith 2014), for an ε0-∇0DP mechanism and a prior that is a
    product over s and the other attributes. Values ≥ 1 are vacuous (a total-variation distance never exceeds 1); they
    are returned as computed, not clipped, and as +inf where e^{2|s|ε0} exceeds the float range. Vectorised over
    ``s_size``.

    >>> round(posterior_tv_bound(0.01, 2), 6)
    0.040811
    """
    e0 = EPS_OR_ZERO.check(eps0, "eps0")
    s = real_array(s_size, "s_size", ndim=(0, 1), low=0.0, high=float(COUNT.high), integer=True)
    with np.errstate(over="ignore"):  # beyond the float range the (vacuous) bound is +inf, as documented
        out = np.expm1(2.0 * s * e0)
    return float(out) if out.ndim == 0 else out


def mutual_information_bound(eps0: float, block_sizes: Sequence[int]) -> float:
    """I(X_i; M(X)) ≤ ½ε0²·Σ_j |s_j|² nats (Proposition 27 of Ghazi, Kumar, Manurangsi & Steinke 2023) for an ε0-∇0CDP
    mechanism, independent people, and person i's attributes split into independent blocks s_1, …, s_k. All singletons
    (d blocks) give ½ε0²d; one block gives ½ε0²d² = the whole-record zCDP bound ½ε² with ε = dε0 (Bun & Steinke 2016).

    >>> round(mutual_information_bound(0.1, [1, 1, 1, 1]), 10)
    0.02
    >>> round(mutual_information_bound(0.1, [4]), 10)
    0.08
    """
    e0 = EPS_OR_ZERO.check(eps0, "eps0")
    if isinstance(block_sizes, (str, bytes)) or not hasattr(block_sizes, "__iter__"):
        raise ValueError(f"block_sizes = {block_sizes!r} is not allowed: must list the block sizes (integers >= 1).")
    raw = list(block_sizes)
    if not raw:
        raise ValueError("block_sizes is empty, which is not allowed: must list at least one block.")
    b = real_array(raw, "block_sizes", ndim=1, low=1.0, high=float(COUNT.high), integer=True)
    return 0.5 * e0 * e0 * float(sum(int(x) * int(x) for x in b))


def bit_recovery_probability(eps0, k=1):
    """Worst-case probability that an adversary recovers a secret bit that is a function of k attributes:
    e^{kε0}/(1 + e^{kε0}) (randomized response is optimal for kε0-DP; Section 1 of Ghazi, Kumar,
    Manurangsi & Steinke 2023 quotes 99.995% at ε = 10). Vectorised over ``k`` and ``eps0``.

    >>> round(bit_recovery_probability(10.0, 1), 7)
    0.9999546
    """
    e0 = real_array(eps0, "eps0", ndim=(0, 1), low=0.0, high=EPS.high)
    kk = real_array(k, "k", ndim=(0, 1), low=0.0, high=float(COUNT.high))
    if e0.ndim and kk.ndim and e0.shape != kk.shape:
        raise ValueError(f"eps0 has shape {e0.shape} and k has shape {kk.shape}, which is not allowed: arrays must "
                         "have the same length (or one of them be a scalar).")
    out = special.expit(kk * e0)  # e^{z}/(1 + e^{z}) without overflow of e^{z}
    return float(out) if np.ndim(out) == 0 else out


def rounding_reveals_probability(eps, sensitivity: float = 1.0):
    """P[round(f + Lap(Δ/ε)) = f] = P[|ξ| < ½] = 1 − e^{−ε/(2Δ)}: the probability that rounding a Laplace-noised
    count returns the exact count (Section 5 of Ghazi, Kumar, Manurangsi & Steinke 2023: "at ε = 10 more than 99%").
    With replace-one neighbours a histogram has L1 sensitivity Δ = 2, i.e. Lap(2/ε): 1 − e^{−ε/4} (one person's change
    moves two counts, −1 and +1).

    >>> round(rounding_reveals_probability(10.0), 7)
    0.9932621
    """
    e = real_array(eps, "eps", ndim=(0, 1), low=0.0, high=EPS.high)
    s = SCALE.check(sensitivity, "sensitivity")
    out = -np.expm1(-e / (2.0 * s))
    return float(out) if out.ndim == 0 else out
