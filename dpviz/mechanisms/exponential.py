"""The exponential mechanism (McSherry & Talwar 2007; Dwork & Roth 2014, Def. 3.4).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from dpviz._validation import as_rng, check_positive, check_real_array


def exponential_mechanism_probabilities(scores, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """P(i) = exp(ε u_i/(2Δ)) / Σ_j exp(ε u_j/(2Δ)) for utilities u (higher is better) (McSherry & Talwar 2007;
    Dwork & Roth 2014, Def. 3.4). Computed with a log-sum-exp (``scipy.special.softmax``), exact to rounding.
    (Theorem 9 of Ghazi et al. 2023 writes the same with losses: exp(−ε·scr/(2Δ)).)

    >>> exponential_mechanism_probabilities([0.0, 0.0], 1.0).tolist()
    [0.5, 0.5]
    """
    u = check_real_array(scores, "scores", ndim=1)
    eps = check_positive(epsilon, "epsilon")
    s = check_positive(sensitivity, "sensitivity")
    with np.errstate(over="ignore", invalid="ignore"):
        logits = eps * u / (2.0 * s)
        if not np.all(np.isfinite(logits)):  # ε u/(2Δ) overflowed: shift by max u first, then 0·∞ := 0
            z = u - u.max()  # ≤ 0 (−inf if the spread overflows: those get probability 0)
            logits = np.where(z == 0, 0.0, (eps / (2.0 * s)) * z)
    return special.softmax(logits)


def exponential_mechanism(scores, epsilon: float, sensitivity: float = 1.0, rng=None) -> int:
    """Sample index i with probability :func:`exponential_mechanism_probabilities` (McSherry & Talwar 2007)."""
    p = exponential_mechanism_probabilities(scores, epsilon, sensitivity)
    g = as_rng(rng)
    return int(min(np.searchsorted(np.cumsum(p), g.random(), side="right"), p.size - 1))
