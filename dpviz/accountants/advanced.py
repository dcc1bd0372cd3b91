"""Advanced composition (Dwork, Rothblum & Vadhan 2010): k adaptive (ε_i, δ_i)-DP mechanisms are
(√(2 ln(1/δ′) Σε_i²) + Σ ε_i(e^{ε_i} − 1), Σ δ_i + δ′)-DP for every δ′ > 0."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from dpviz.accountants._base import Accountant, delta_from_epsilon_function
from dpviz.accountants.events import eps_delta_profile

__all__ = ["AdvancedAccountant", "drv_epsilon"]


def drv_epsilon(epsilons, counts, delta_slack: float) -> float:
    """ε = √(2 ln(1/δ′) Σ k_i ε_i²) + Σ k_i ε_i (e^{ε_i} − 1) (Dwork, Rothblum & Vadhan 2010, Theorem III.3;
    Dwork & Roth 2014, Theorem 3.20 for k equal mechanisms; the heterogeneous form follows from the same Azuma
    argument with increments bounded by ε_i).

    >>> round(drv_epsilon([0.1], [100], 1e-6), 6)   # 0.1·√(200 ln 1e6) + 100·0.1·(e^0.1 − 1)
    6.308231
    """
    e = np.asarray(epsilons, dtype=float)
    k = np.asarray(counts, dtype=float)
    if e.size == 0:
        return 0.0
    return float(math.sqrt(2.0 * math.log(1.0 / delta_slack) * np.sum(k * e * e)) + np.sum(k * e * np.expm1(e)))


class AdvancedAccountant(Accountant):
    """Advanced composition of Dwork, Rothblum & Vadhan (2010), with the slack δ′ chosen optimally.

    For a target δ the accountant splits δ = Σ fixed δ_i + K·δ_c + δ′: events with a fixed (ε_i, δ_i) (pure
    mechanisms, ``ApproxDP``, …) keep it, the K runs of events with a privacy curve (Gaussian-type, ``ZCDP``) each
    get δ_c and use their exact ε(δ_c), and δ′ is the slack of the theorem; the split between δ′ and the curves is
    optimised numerically (a logistic-scale grid, then finer grids (10× each) around the best point, each evaluated
    in one vectorised call of the events' privacy curves; any split is valid, so the answer is a valid bound). With pure
    events only, all the remaining δ is slack.

    The theorem is asymptotic in spirit: for few compositions it is *worse* than basic composition (the √ term
    dominates) — the accountant reports it as it is, so learners can see where the crossover lies; both bounds are
    valid, so ``min(basic, advanced)`` is valid too. The neighbouring relation only decides which sampling events
    are accepted.

    Examples
    --------
    >>> from dpviz.accountants import AdvancedAccountant, PureDP
    >>> round(AdvancedAccountant().compose(PureDP(0.1), count=100).epsilon(1e-6), 6)
    6.308231
    """

    name = "advanced"

    def _reason(self, event: Any) -> str | None:
        if eps_delta_profile(event, self.neighboring) is None:
            return "it has no (epsilon, delta) description"
        return None

    def _parts(self):
        fixed_e, fixed_k, delta_f, curves = [], [], 0.0, []
        for ev, k in self._merged_ledger():
            prof = eps_delta_profile(ev, self.neighboring)
            if prof.fixed is not None:
                fixed_e.append(prof.fixed[0])
                fixed_k.append(k)
                delta_f += k * prof.fixed[1]
            else:
                curves.append((prof, k))
        return fixed_e, fixed_k, delta_f, curves

    def _epsilon(self, delta: float) -> float:
        fixed_e, fixed_k, delta_f, curves = self._parts()
        rest = delta - delta_f
        if rest <= 0:
            return math.inf
        if any(math.isinf(e) for e in fixed_e):
            return math.inf
        if not curves:
            return drv_epsilon(fixed_e, fixed_k, rest)
        n_runs = sum(k for _, k in curves)
        fe = np.asarray(fixed_e, dtype=float)
        fk = np.asarray(fixed_k, dtype=float)
        sq_f = float(np.sum(fk * fe * fe))
        lin_f = float(np.sum(fk * fe * np.expm1(fe)))

        def eps_at(log_frac: np.ndarray) -> np.ndarray:
            # fraction of the rest given to the slack δ′ (a logistic of log_frac), the remainder split equally
            # between the runs of the curve events; vectorised over the candidate splits
            frac = special.expit(log_frac)
            slack = rest * frac
            share = rest * special.expit(-log_frac) / n_runs
            sq = np.full(frac.shape, sq_f)
            lin = np.full(frac.shape, lin_f)
            for prof, k in curves:
                ce = prof.eps_many(share)
                with np.errstate(over="ignore", invalid="ignore"):
                    sq = sq + k * ce * ce
                    lin = lin + k * ce * np.expm1(ce)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                val = np.sqrt(2.0 * np.log(1.0 / slack) * sq) + lin
            return np.where((slack > 0) & (share > 0) & np.isfinite(val), val, np.inf)

        # any split is valid, so the best of the candidates is a valid bound: a coarse grid, then finer ones (10× each)
        # around the best point (each vectorised: one call of the curves per grid)
        grid = np.linspace(-30.0, 30.0, 61)
        best = math.inf
        for _ in range(4):
            vals = eps_at(grid)
            i = int(np.argmin(vals))
            if not math.isfinite(vals[i]):
                break
            best = min(best, float(vals[i]))
            step = grid[1] - grid[0]
            grid = np.linspace(grid[i] - step, grid[i] + step, 21)
        return best

    def _delta(self, epsilon: float) -> float:
        return delta_from_epsilon_function(self._epsilon, epsilon, rtol=1e-8)
