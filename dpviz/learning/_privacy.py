"""The GDP calibration names lesson 10 and its tests use, as thin re-exports of their one home.

T adaptively composed Gaussian mechanisms with Δ/σ = 1/z are exactly μ-GDP with μ = √T/z (Dong, Roth & Su 2022,
Cor. 3.3), with the exact profile of Balle & Wang 2018, Thm 8: the formulas live in
:mod:`dpviz.mechanisms.gaussian` (μ = Δ/σ there too); group privacy lives in :mod:`dpviz.accountants.group`; the
accountant reports of a training run in :mod:`dpviz.learning.training`.
"""

from __future__ import annotations

from dpviz._validation import check_positive
from dpviz.accountants.group import group_privacy
from dpviz.mechanisms.gaussian import _gaussian_delta, gaussian_epsilon, gaussian_mu

__all__ = ["gdp_delta", "gdp_epsilon", "gdp_mu_for", "group_privacy"]

#: ε(δ) of a μ-GDP mechanism: :func:`dpviz.mechanisms.gaussian_epsilon`.
gdp_epsilon = gaussian_epsilon
#: The largest μ whose profile spends at most (ε, δ): :func:`dpviz.mechanisms.gaussian_mu`.
gdp_mu_for = gaussian_mu


def gdp_delta(epsilon: float, mu: float) -> float:
    """δ(ε) of a μ-GDP mechanism as a float (:func:`dpviz.mechanisms.gaussian_delta`, Balle & Wang 2018, Thm 8),
    also for μ = 0 (δ = 0).

    >>> round(gdp_delta(0.0, 1.0), 6)   # = 2Φ(1/2) − 1
    0.382925
    """
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    mu = check_positive(mu, "mu", allow_zero=True)
    return 0.0 if mu == 0.0 else float(_gaussian_delta(eps, mu))
