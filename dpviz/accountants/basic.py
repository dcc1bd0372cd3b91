"""Basic composition: the k-fold adaptive composition of (ε_i, δ_i)-DP mechanisms is (Σ ε_i, Σ δ_i)-DP
(Dwork & Roth 2014, Theorem 3.16; Dwork, Kenthapadi, McSherry, Mironov & Naor 2006)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpviz._inverse import TINY_DELTA, delta_from_epsilon_function
from dpviz.accountants._base import Accountant, feasible_total
from dpviz.accountants.profiles import eps_delta_profile

__all__ = ["BasicAccountant"]


class BasicAccountant(Accountant):
    """Sum the ε's and the δ's: ε = Σ ε_i, δ = Σ δ_i (Dwork & Roth 2014, Theorem 3.16).

    Events with a fixed guarantee (pure mechanisms: Laplace, randomized response, discrete Laplace, ``PureDP``; and
    ``ApproxDP``, ``TruncatedDiscreteLaplace`` and their subsampled versions) enter with that pair. Events with a
    privacy *curve* (Gaussian, discrete Gaussian, ``ZCDP``, subsampled Gaussians) are (ε(δ_i), δ_i)-DP for every
    δ_i; the δ left after the fixed events is split **equally** between their runs, δ_i = (δ − Σ fixed δ)/K, and
    each contributes its exact ε(δ_i) (the textbook use of the theorem; any split is valid, the equal one is the
    natural default and is what :class:`~dpviz.accountants.AdvancedAccountant` optimises further).

    Neighbouring relation: basic composition holds for any relation; the relation only decides which subsampling
    events are accepted (Poisson for ``"add_remove"``, without replacement for ``"replace_one"``).

    Examples
    --------
    >>> from dpviz.accountants import BasicAccountant, PureDP, ApproxDP
    >>> acct = BasicAccountant().compose(PureDP(0.1), count=10).compose(ApproxDP(0.5, 1e-6))
    >>> round(acct.epsilon(1e-5), 12)
    1.5
    >>> acct.epsilon(1e-7)
    inf
    """

    name = "basic"

    def _reason(self, event: Any) -> str | None:
        if eps_delta_profile(event, self.neighboring) is None:
            return "it has no (epsilon, delta) description"
        return None

    def _split(self):
        eps_f = delta_f = 0.0
        curves = []
        for ev, k in self._merged_ledger():
            prof = eps_delta_profile(ev, self.neighboring)
            if prof.fixed is not None:
                eps_f += k * prof.fixed[0]
                delta_f += k * prof.fixed[1]
            else:
                curves.append((prof, k))
        return eps_f, delta_f, curves

    def _epsilon(self, delta: float) -> float:
        eps_f, delta_f, curves = self._split()
        if not curves:
            return eps_f if delta_f <= delta else math.inf
        rest = delta - delta_f
        if rest < 0:
            return math.inf
        n_runs = sum(k for _, k in curves)
        share = rest / n_runs  # may underflow to 0: each curve then gives its limit at δ → 0 (∞ for ρ > 0)
        return eps_f + sum(k * float(prof.eps_many(np.array([share]))[0]) for prof, k in curves)

    def _delta(self, epsilon: float) -> float:
        """Exact inverse of :meth:`_epsilon`: the fixed events need ε_f and δ_f; with ONE curve event run K times
        the remaining ε − ε_f is split equally, and δ = δ_f + K·δ_c((ε − ε_f)/K) with the event's exact δ_c(ε)
        (the equal δ split of ``_epsilon`` gives equal ε's); with several different curve events, the smallest
        feasible δ is found by bisection (:func:`~dpviz.accountants._base.delta_from_epsilon_function`)."""
        eps_f, delta_f, curves = self._split()
        if not curves:
            return delta_f if epsilon >= eps_f else 1.0
        if epsilon < eps_f:
            return 1.0
        if len(curves) == 1:
            prof, k = curves[0]
            budget = (epsilon - eps_f) / k
            share = prof.delta_of(budget)
            if share == 0.0 and prof.at_zero > budget:  # the exact δ_c underflowed: round it up, never down
                share = TINY_DELTA
            return feasible_total(delta_f, k, share)
        at_zero = eps_f + sum(k * prof.at_zero for prof, k in curves) if delta_f == 0 else math.inf
        return delta_from_epsilon_function(self._epsilon, epsilon, eps_at_zero=at_zero)
