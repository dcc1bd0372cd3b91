"""Privacy events: what an accountant composes (data only: the numerics of amplification are in
:mod:`dpviz.accountants.amplification`, the (ε, δ) descriptions in :mod:`dpviz.accountants.profiles`).

Mechanisms of :mod:`dpviz.mechanisms` (``Laplace``, ``Gaussian``, ``RandomizedResponse``, ``DiscreteLaplace``,
``DiscreteGaussian``, ``TruncatedDiscreteLaplace``) are events as they are. For everything else there are generic,
immutable descriptions:

* :class:`PureDP` (ε) — any ε-DP mechanism;
* :class:`ApproxDP` (ε, δ) — any (ε, δ)-DP mechanism;
* :class:`ZCDP` (ρ) — any ρ-zCDP mechanism (Bun & Steinke 2016, Definition 1.1);
* :class:`PoissonSampled` (mechanism, rate) — run the mechanism on a Poisson sample (each record kept independently
  with probability ``rate``); amplification is analysed for **add/remove** neighbours;
* :class:`SampledWithoutReplacement` (mechanism, sample_size, population) — run the mechanism on a uniformly random
  subset of exactly ``sample_size`` of the ``population`` records; amplification is analysed for **substitution**
  (replace-one) neighbours, Theorem 7 of Ghazi et al. 2023 (Balle, Barthe & Gaboardi 2018): ε′ = ln(1 + η(e^ε − 1)),
  δ′ = ηδ, η = n/n′.

Neighbouring relation (the ``neighboring`` argument of every accountant)
-------------------------------------------------------------------------
``"add_remove"`` (default): two datasets are neighbours when one is the other plus one record. It protects the
*presence* of a person in the data; the dataset size itself is not secret.
``"replace_one"``: neighbours have the same size and differ in one record. It protects the *value* of a person's
record, with the dataset size public. Add/remove implies replace-one with twice the parameters (group of 2), not
conversely.

**Sensitivity convention.** A mechanism's ``sensitivity`` is how much the query can move between neighbours *under
the relation you chose*; no accountant rescales it. Whether it doubles from add/remove to replace-one depends on the
query: a count has sensitivity 1 under both, a sum of values clipped to [−C, C] (or to norm C) has sensitivity C under
add/remove and 2C under replace-one, a mean over a public size n has 2C/n under replace-one. dp-accounting's
``GaussianDpEvent(noise_multiplier)`` hard-codes the clipped-sum case (its replace-one analysis uses sensitivity 2);
the dpviz equivalent is ``Gaussian(sigma, sensitivity=2.0)`` with ``neighboring="replace_one"``. Randomized response
answers one bit about a person; the bit flips between neighbours under either relation, so its analysis is the same.

Subsampling is where the relation really matters: Poisson subsampling is analysed for add/remove (a record is in or out
of the sample independently), sampling a fixed-size subset without replacement for replace-one (the dataset size must be
fixed and known). Accountants refuse the other combinations with a ValueError that says so (Poisson formulas do not hold
for substitution neighbours: Theorem 7 of Ghazi et al. 2023 is the fixed-size result).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from dpviz import mechanisms as _m
from dpviz._validation import check_delta, check_in_range, check_integer, check_positive

# amplification and the Gaussian inverse have their own homes; these names stay importable from here
from dpviz.accountants.amplification import (  # noqa: F401
    _amplify,
    amplify_poisson,
    amplify_without_replacement,
)
from dpviz.mechanisms.gaussian import gaussian_epsilon_many  # noqa: F401

__all__ = [
    "NEIGHBORING",
    "PureDP",
    "ApproxDP",
    "ZCDP",
    "PoissonSampled",
    "SampledWithoutReplacement",
    "amplify_poisson",
    "amplify_without_replacement",
    "is_event",
]

NEIGHBORING = ("add_remove", "replace_one")

MECHANISM_TYPES = (
    _m.Laplace,
    _m.Gaussian,
    _m.RandomizedResponse,
    _m.DiscreteLaplace,
    _m.DiscreteGaussian,
    _m.TruncatedDiscreteLaplace,
)


@dataclasses.dataclass(frozen=True)
class PureDP:
    """Any ε-DP mechanism: P[M(x) ∈ S] ≤ e^ε P[M(x′) ∈ S] for all neighbours x, x′ and sets S (Dwork & Roth 2014,
    Definition 2.4). Its worst case, for every accountant here, is randomized response with the same ε.

    >>> PureDP(1.0)
    PureDP(epsilon=1.0)
    """

    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_positive(self.epsilon, "epsilon", allow_zero=True))


@dataclasses.dataclass(frozen=True)
class ApproxDP:
    """Any (ε, δ)-DP mechanism: P[M(x) ∈ S] ≤ e^ε P[M(x′) ∈ S] + δ (Dwork & Roth 2014, Definition 2.4).
    Its worst case (Kairouz, Oh & Viswanath 2015) reveals everything with probability δ and otherwise runs
    randomized response with parameter ε.

    >>> ApproxDP(1.0, 1e-6).delta
    1e-06
    """

    epsilon: float
    delta: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_positive(self.epsilon, "epsilon", allow_zero=True))
        object.__setattr__(self, "delta", check_delta(self.delta))


@dataclasses.dataclass(frozen=True)
class ZCDP:
    """Any ρ-zCDP mechanism: D_α(M(x) ‖ M(x′)) ≤ ρα for every α > 1 (Bun & Steinke 2016, Definition 1.1).

    >>> ZCDP(0.5).rho
    0.5
    """

    rho: float

    def __post_init__(self):
        object.__setattr__(self, "rho", check_positive(self.rho, "rho", allow_zero=True))


def is_event(obj: Any) -> bool:
    """True for every object an accountant may be asked about (it may still not support it)."""
    return isinstance(obj, MECHANISM_TYPES + (PureDP, ApproxDP, ZCDP, PoissonSampled, SampledWithoutReplacement))


def _check_event(obj: Any, name: str) -> Any:
    if not is_event(obj):
        raise ValueError(
            f"{name} = {obj!r} is not allowed: must be a dpviz mechanism (Laplace, Gaussian, RandomizedResponse, "
            "DiscreteLaplace, DiscreteGaussian, TruncatedDiscreteLaplace) or an event (PureDP, ApproxDP, ZCDP, "
            "PoissonSampled, SampledWithoutReplacement)."
        )
    return obj


@dataclasses.dataclass(frozen=True)
class PoissonSampled:
    """Run ``mechanism`` on a Poisson sample of the data: each record is kept independently with probability
    ``rate`` (q). Analysed for add/remove neighbours, where the pair (M(x), M(x′)) of the subsampled mechanism is
    dominated by ((1−q)Q + qP, Q) when removing and (Q, (1−q)Q + qP) when adding, (P, Q) dominating the
    mechanism's own pair (Zhu, Dong & Wang 2022, Proposition 30; Balle, Barthe & Gaboardi 2018, Theorem 8 for the
    (ε, δ) form ε′ = ln(1 + q(e^ε − 1)), δ′ = qδ).

    >>> PoissonSampled(PureDP(1.0), 0.5).rate
    0.5
    >>> PoissonSampled(PureDP(1.0), 0.0)
    Traceback (most recent call last):
    ...
    ValueError: rate = 0.0 is not allowed: must be a number in (0, 1].
    """

    mechanism: Any
    rate: float

    def __post_init__(self):
        _check_event(self.mechanism, "mechanism")
        object.__setattr__(self, "rate", check_in_range(self.rate, "rate", 0.0, 1.0, low_inclusive=False))


@dataclasses.dataclass(frozen=True)
class SampledWithoutReplacement:
    """Run ``mechanism`` on ``sample_size`` (n) records drawn uniformly without replacement from the
    ``population`` (n′ ≥ n) records of the dataset. For substitution (replace-one) neighbours, an (ε, δ)-DP
    mechanism becomes (ln(1 + η(e^ε − 1)), ηδ)-DP with η = n/n′ (Theorem 7 of Ghazi et al. 2023, from Balle,
    Barthe & Gaboardi 2018: the fixed-size, substitution result, not the Poisson one).

    >>> SampledWithoutReplacement(PureDP(1.0), 10, 100).eta
    0.1
    """

    mechanism: Any
    sample_size: int
    population: int

    def __post_init__(self):
        _check_event(self.mechanism, "mechanism")
        n_pop = check_integer(self.population, "population", minimum=1)
        n = check_integer(self.sample_size, "sample_size", minimum=1, maximum=n_pop)
        object.__setattr__(self, "population", n_pop)
        object.__setattr__(self, "sample_size", n)

    @property
    def eta(self) -> float:
        """The sampling fraction η = n/n′."""
        return self.sample_size / self.population
