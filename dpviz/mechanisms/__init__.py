"""Core DP mechanisms with exact privacy profiles, exact privacy-loss distributions and exact samplers.

Neighbouring inputs: the query value moves by ``sensitivity`` (x versus x′ = x + sensitivity). The privacy profile of
a mechanism M is the hockey-stick divergence

    δ(ε) = max{ H_ε(M(x) ‖ M(x′)), H_ε(M(x′) ‖ M(x)) },   H_ε(P ‖ Q) = ∫ (p − e^ε q)_+

(Dwork & Roth 2014, Def. 2.4 rewritten as in Balle & Wang 2018, Thm 5 / Balle, Barthe & Gaboardi 2018). Every
mechanism here is symmetric under reflection, so both directions give the same value; the code computes one and the
tests check the other by brute force.

Each mechanism is a frozen dataclass validated in ``__post_init__`` with

* ``release(value, rng=None)`` and ``sample_noise(size=None, rng=None)``;
* ``delta(epsilon)`` (exact, vectorised) and ``epsilon(delta)`` (its exact inverse: the smallest ε ≥ 0 with
  δ(ε) ≤ delta, to the last bit; 0 if δ(0) ≤ delta; ``math.inf`` if none, or if it exceeds the double range);
* ``pure_epsilon`` (``math.inf`` when there is no finite pure ε);
* ``pdf``/``pmf``, ``privacy_loss()`` (a :class:`PrivacyLossDistribution`) and ``tradeoff(alpha)`` (the exact
  type-II error of the optimal test at type-I error α; Dong, Roth & Su 2022, Def. 2.1).

>>> round(Gaussian(sigma=1.0).epsilon(1e-5), 6)
4.377178
>>> round(Laplace(scale=1.0).delta(0.5), 6)
0.221199

Layout (one home per formula): :mod:`~dpviz.mechanisms.gaussian` (the Balle–Wang profile, its inverse and the
Gaussian calibrations), :mod:`~dpviz.mechanisms.laplace`, :mod:`~dpviz.mechanisms.randomized_response`,
:mod:`~dpviz.mechanisms.discrete` (discrete Laplace, discrete Gaussian, truncated discrete Laplace),
:mod:`~dpviz.mechanisms.samplers` (Canonne, Kamath & Steinke 2020 exact samplers), :mod:`~dpviz.mechanisms.exponential`,
:mod:`~dpviz.mechanisms.loss` (:class:`PrivacyLossDistribution`), :mod:`~dpviz.mechanisms._base`. Argument
helpers live in :mod:`dpviz._validation`, monotone inversion in :mod:`dpviz._inverse`.
"""

from __future__ import annotations

from dpviz._validation import MAX_SAMPLES
from dpviz.mechanisms._base import _CallableFloat, _Mechanism
from dpviz.mechanisms.discrete import (
    DISCRETE_SENSITIVITY,
    DiscreteGaussian,
    DiscreteLaplace,
    TruncatedDiscreteLaplace,
    tdlap_kappa,
)
from dpviz.mechanisms.exponential import exponential_mechanism, exponential_mechanism_probabilities
from dpviz.mechanisms.gaussian import (
    Gaussian,
    _analytic_gaussian_sigma,
    _gaussian_delta,
    analytic_gaussian_sigma,
    classic_gaussian_delta,
    classic_gaussian_epsilon,
    classic_gaussian_sigma,
    gaussian_delta,
    gaussian_epsilon,
    gaussian_epsilon_many,
    gaussian_mu,
)
from dpviz.mechanisms.laplace import Laplace
from dpviz.mechanisms.loss import PrivacyLossDistribution
from dpviz.mechanisms.randomized_response import RandomizedResponse
from dpviz.mechanisms.samplers import bernoulli_exp_neg, sample_discrete_gaussian, sample_discrete_laplace

__all__ = [
    "Laplace",
    "Gaussian",
    "RandomizedResponse",
    "DiscreteLaplace",
    "DiscreteGaussian",
    "TruncatedDiscreteLaplace",
    "PrivacyLossDistribution",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "classic_gaussian_sigma",
    "classic_gaussian_delta",
    "classic_gaussian_epsilon",
    "analytic_gaussian_sigma",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_epsilon_many",
    "gaussian_mu",
    "bernoulli_exp_neg",
    "sample_discrete_laplace",
    "sample_discrete_gaussian",
    "tdlap_kappa",
]

# the unchecked kernels and shared constants other dpviz modules use (not part of the public face)
_KERNELS = (_CallableFloat, _Mechanism, _gaussian_delta, _analytic_gaussian_sigma, MAX_SAMPLES,
            DISCRETE_SENSITIVITY)
