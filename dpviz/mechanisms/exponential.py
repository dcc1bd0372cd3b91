"""The exponential mechanism (McSherry & Talwar 2007; Dwork & Roth 2014, Def. 3.4).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from dpviz._validation import as_rng, check_positive, check_real_array

__all__ = ["exponential_mechanism_probabilities", "exponential_mechanism"]


def _gumbel_argmax(logits: np.ndarray, g: np.random.Generator, axis: int = -1):
    """Gumbel-max: ``argmax(logits + G)`` with G i.i.d. standard Gumbel, drawn in one call of shape ``logits.shape``.

    The index is distributed as ``softmax(logits)`` along ``axis``, exactly (the Gumbel-max trick: report-noisy-max
    with Gumbel noise is the exponential mechanism, as Ding et al. 2021 recall; a logit of −inf is never picked).
    dpviz's one home for Gumbel-max sampling: the exponential mechanism, report-noisy-max with Gumbel noise
    (:mod:`dpviz.selection`), the private range of :mod:`dpviz.mean.winsorized` and the MWEM selection of
    :mod:`dpviz.partial.marginals` call it. Unchecked kernel: ``logits`` is a float array without NaN or +inf.
    """
    return np.argmax(logits + g.gumbel(size=logits.shape), axis=axis)


def _exponential_logits(u: np.ndarray, rate: float) -> np.ndarray:
    """Logits rate·u of the exponential mechanism (rate = ε/(2Δ), or ε/Δ for monotonic scores), finite or −inf:
    where rate·u overflows, u is shifted by its maximum first (then 0·∞ := 0, and candidates infinitely far below
    the best get −inf, probability 0)."""
    with np.errstate(over="ignore", invalid="ignore"):
        logits = rate * u
        if not np.all(np.isfinite(logits)):
            z = u - u.max()  # ≤ 0 (−inf if the spread overflows: those get probability 0)
            logits = np.where(z == 0, 0.0, rate * z)
    return logits


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
    return special.softmax(_exponential_logits(u, (eps / s) * 0.5))


def exponential_mechanism(scores, epsilon: float, sensitivity: float = 1.0, rng=None) -> int:
    """Sample index i with probability :func:`exponential_mechanism_probabilities` (McSherry & Talwar 2007), exactly,
    by Gumbel-max on the logits ε u_i/(2Δ) (:func:`_gumbel_argmax`): one Gumbel draw per candidate, no CDF search.
    This is report-noisy-max with Gumbel noise of scale 2Δ/ε (:func:`dpviz.selection.report_noisy_max`)."""
    u = check_real_array(scores, "scores", ndim=1)
    eps = check_positive(epsilon, "epsilon")
    s = check_positive(sensitivity, "sensitivity")
    g = as_rng(rng)
    return int(_gumbel_argmax(_exponential_logits(u, (eps / s) * 0.5), g))
