"""Advanced composition (Dwork, Rothblum & Vadhan 2010): k adaptive (ε_i, δ_i)-DP mechanisms are
(√(2 ln(1/δ′) Σε_i²) + Σ ε_i(e^{ε_i} − 1), Σ δ_i + δ′)-DP for every δ′ > 0."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special
from scipy.optimize import minimize_scalar

from dpviz._inverse import TINY_DELTA, delta_from_epsilon_function
from dpviz._validation import check_in_range, check_real_array
from dpviz.accountants._base import Accountant, feasible_total
from dpviz.accountants.profiles import eps_delta_profile

__all__ = ["AdvancedAccountant", "drv_epsilon"]

_SQRT2 = math.sqrt(2.0)


def drv_epsilon(epsilons, counts, delta_slack: float) -> float:
    """ε = √(2 ln(1/δ′) Σ k_i ε_i²) + Σ k_i ε_i (e^{ε_i} − 1) (Dwork, Rothblum & Vadhan 2010, Theorem III.3;
    Dwork & Roth 2014, Theorem 3.20 for k equal mechanisms; the heterogeneous form follows from the same Azuma
    argument with increments bounded by ε_i).

    ``epsilons``: the ε_i ≥ 0 (∞ allowed: then ε = ∞); ``counts``: the k_i ≥ 0, one per ε_i; ``delta_slack``: δ′ ∈
    (0, 1). A ValueError names the parameter otherwise; a sum beyond the double range is ∞ (no guarantee).

    >>> round(drv_epsilon([0.1], [100], 1e-6), 6)   # 0.1·√(200 ln 1e6) + 100·0.1·(e^0.1 − 1)
    6.308231
    """
    e = check_real_array(epsilons, "epsilons", ndim=1, allow_empty=True, finite=False).astype(float)
    if np.any(np.isnan(e) | (e < 0)):
        bad = float(e[np.isnan(e) | (e < 0)][0])
        raise ValueError(f"epsilons = {bad!r} is not allowed: every ε_i must be a number >= 0 (∞ allowed).")
    k = check_real_array(counts, "counts", ndim=1, allow_empty=True).astype(float)
    if k.shape != e.shape:
        raise ValueError(f"counts has {k.size} values and epsilons {e.size}, which is not allowed: must have one "
                         "count per ε_i.")
    if np.any(k < 0):
        raise ValueError(f"counts = {float(k[k < 0][0])!r} is not allowed: every count must be >= 0.")
    delta_slack = check_in_range(delta_slack, "delta_slack", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    run = k > 0  # mechanisms run 0 times add nothing (and 0·∞ must not enter the sums)
    e, k = e[run], k[run]
    if np.any(e == math.inf):
        return math.inf
    return _drv_epsilon(e, k, delta_slack)


def _drv_epsilon(e: np.ndarray, k: np.ndarray, delta_slack: float) -> float:
    """:func:`drv_epsilon` on checked arrays (finite ε_i)."""
    if e.size == 0:
        return 0.0
    root = _root_sum_sq(e, k)
    with np.errstate(over="ignore"):
        lin = float(np.sum(k * e * np.expm1(e)))
    if root == 0.0:  # every ε_i = 0: the √ term vanishes whatever δ′ (no 0·∞ at a tiny δ′)
        return lin
    return math.sqrt(2.0 * -math.log(delta_slack)) * root + lin  # −ln δ′: 1/δ′ overflows for subnormal δ′


def _root_sum_sq(e: np.ndarray, k: np.ndarray) -> float:
    """√(Σ k_i ε_i²) without underflow or overflow: m·√(Σ k_i (ε_i/m)²) with m = max ε_i (Σ k_i ε_i² itself is 0
    for every ε_i < ~1e-162, which dropped the √ term of :func:`drv_epsilon`, and ∞ above ~1e154)."""
    m = float(np.max(e)) if e.size else 0.0
    if m == 0.0 or m == math.inf:
        return m
    r = e / m
    with np.errstate(over="ignore"):  # Σ k_i (ε_i/m)² ≤ Σ k_i: ∞ only for counts near the double range
        return m * math.sqrt(float(np.sum(k * r * r)))


class AdvancedAccountant(Accountant):
    """Advanced composition of Dwork, Rothblum & Vadhan (2010), with the slack δ′ chosen optimally.

    For a target δ the accountant splits δ = Σ fixed δ_i + K·δ_c + δ′: events with a fixed (ε_i, δ_i) (pure
    mechanisms, ``ApproxDP``, …) keep it, the K runs of events with a privacy curve (Gaussian-type, ``ZCDP``) each
    get δ_c and use their exact ε(δ_c), and δ′ is the slack of the theorem; the split between δ′ and the curves is
    optimised numerically (a logistic-scale grid, then finer grids (10× each) around the best point, each evaluated
    in one vectorised call of the events' privacy curves, then Brent's method to 1e-10 on the split; any split is
    valid, so the answer is a valid bound). With pure
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
        if rest <= 0:  # the theorem needs δ′ > 0 (its limit as δ′ → 0 is in _limit_at_zero)
            return math.inf
        if any(math.isinf(e) for e in fixed_e):
            return math.inf
        if not curves:
            return _drv_epsilon(np.asarray(fixed_e, dtype=float), np.asarray(fixed_k, dtype=float), rest)
        n_runs = sum(k for _, k in curves)
        fe = np.asarray(fixed_e, dtype=float)
        fk = np.asarray(fixed_k, dtype=float)
        with np.errstate(over="ignore"):
            lin_f = float(np.sum(fk * fe * np.expm1(fe)))
        max_f = float(np.max(fe)) if fe.size else 0.0

        def eps_at(log_frac: np.ndarray) -> np.ndarray:
            # fraction of the rest given to the slack δ′ (a logistic of log_frac), the remainder split equally
            # between the runs of the curve events; vectorised over the candidate splits
            frac = special.expit(log_frac)
            slack = rest * frac
            share = rest * special.expit(-log_frac) / n_runs
            ces = [prof._eps_many(share) for prof, _ in curves]
            lin = np.full(frac.shape, lin_f)
            # √(Σ k_i ε_i²) scaled by m = max ε_i (the sum of squares underflows for ε_i < ~1e-162)
            m = np.full(frac.shape, max_f)
            for ce in ces:
                m = np.fmax(m, ce)
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                ms = np.where((m > 0) & (m < np.inf), m, 1.0)
                sq = np.sum(fk * (fe / ms[:, None]) ** 2, axis=1) if fe.size else np.zeros(frac.shape)
                for ce, (_, k) in zip(ces, curves):
                    sq = sq + k * (ce / ms) ** 2
                    lin = lin + k * ce * np.expm1(ce)
                root = np.where(m < np.inf, ms * np.sqrt(sq), np.inf)
                # −ln δ′ (1/δ′ overflows for a subnormal δ′); the √ term is 0 when every ε is 0, whatever δ′
                val = np.where(m > 0, np.sqrt(2.0 * -np.log(slack)) * root, 0.0) + lin
            return np.where((slack > 0) & np.isfinite(val), val, np.inf)

        # any split is valid, so the best of the candidates is a valid bound: a coarse grid, then finer ones (10× each)
        # around the best point (each vectorised: one call of the curves per grid)
        grid = np.linspace(-30.0, 30.0, 61)
        best, best_x = math.inf, None
        for _ in range(4):
            vals = eps_at(grid)
            i = int(np.argmin(vals))
            if not math.isfinite(vals[i]):
                break
            if vals[i] < best:
                best, best_x = float(vals[i]), float(grid[i])
            step = grid[1] - grid[0]
            grid = np.linspace(grid[i] - step, grid[i] + step, 21)
        if best_x is not None:
            # then Brent to 1e-10 around the best point: the objective has kinks (a discrete event's curve is
            # piecewise smooth), and a grid's best point moves with δ by a first-order amount, which made ε(δ)
            # non-monotone by ~1e-4 relative; any split is valid, so the smaller value is kept
            res = minimize_scalar(lambda x: min(float(eps_at(np.array([x]))[0]), 1e300),
                                  bounds=(best_x - 1e-3, best_x + 1e-3), method="bounded", options={"xatol": 1e-10})
            best = min(best, float(res.fun))
        return best

    def _limit_at_zero(self) -> float:
        """lim ε(δ) as δ → 0: finite (= Σ k_i ε_i(e^{ε_i} − 1), here 0) only when the ledger has no δ at all and
        every ε_i is 0 at δ → 0 (the √(2 ln(1/δ′)·Σ k_i ε_i²) term vanishes only then)."""
        fixed_e, _, delta_f, curves = self._parts()
        if delta_f > 0 or any(e > 0 for e in fixed_e) or any(prof.at_zero > 0 for prof, _ in curves):
            return math.inf
        return 0.0

    def _delta(self, epsilon: float) -> float:
        """Pure and (ε, δ) events only: the theorem inverts in closed form, δ = Σ δ_i + exp(−(ε − L)²/(2S)) with
        S = Σ k_i ε_i², L = Σ k_i ε_i(e^{ε_i} − 1) (1 when ε ≤ L). With curve events the split is optimised
        numerically, so δ(ε) is the smallest δ whose :meth:`_epsilon` is ≤ ε, by bisection
        (:func:`~dpviz.accountants._base.delta_from_epsilon_function`)."""
        fixed_e, fixed_k, delta_f, curves = self._parts()
        if not curves:
            if any(math.isinf(e) for e in fixed_e):
                return 1.0
            e = np.asarray(fixed_e, dtype=float)
            k = np.asarray(fixed_k, dtype=float)
            root = _root_sum_sq(e, k)  # √S, scaled: S itself underflows to 0 for ε_i < ~1e-162
            with np.errstate(over="ignore"):
                lin = float(np.sum(k * e * np.expm1(e)))
            if epsilon < lin or (epsilon == lin and root > 0.0):
                return 1.0
            if root == 0.0:  # ε(δ) = L for every δ > δ_f: the infimum δ_f (0 when there is none), not attained
                return 0.0 if delta_f == 0.0 else feasible_total(delta_f, 1, TINY_DELTA)
            z = (epsilon - lin) / root / _SQRT2
            slack = math.exp(-z * z) if z < 1e154 else 0.0
            # the theorem needs δ′ > 0: an underflowed δ′ is rounded up to the smallest double, never down to 0
            return feasible_total(delta_f, 1, max(slack, TINY_DELTA))
        return delta_from_epsilon_function(self._epsilon, epsilon, rtol=1e-8, eps_at_zero=self._limit_at_zero())
