"""Optimal composition of k copies of one (ε₀, δ₀)-DP mechanism (Kairouz, Oh & Viswanath 2015, Theorem 3.3)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar

from dpviz._inverse import delta_from_epsilon_function
from dpviz._validation import check_delta, check_integer, check_positive, check_probability
from dpviz.accountants._atoms import _atoms_epsilon, _binomial_loss_atoms
from dpviz.accountants._base import RUNS, Accountant
from dpviz.accountants.profiles import eps_delta_profile

__all__ = ["OptimalAccountant", "kov_delta", "kov_epsilon"]

#: Brent's tolerance on ln δ₀ when the accountant minimises over δ₀: tight enough that ε(δ) is monotone to rounding
#: (with 1e-3 the minimum moved with δ by ~1e-5 relative, which made δ(ε(δ)) exceed δ by 6e-5), at the cost of a
#: few more evaluations.
_XATOL = 1e-9


def _exp(x: float) -> float:
    return math.exp(x)  # math.exp underflows to 0.0 silently (np.exp would warn)


def _rr_k_atoms(eps0: float, k: int):
    # k-fold randomized response: loss (k − 2l)ε₀ with probability C(k, l) e^{(k−l)ε₀}/(1 + e^{ε₀})^k, as
    # (ascending losses, log-probabilities, pessimistic truncation mass) from the shared exact binomial law
    return _binomial_loss_atoms(eps0, -float(np.logaddexp(0.0, -eps0)), -float(np.logaddexp(0.0, eps0)), k)



def kov_delta(eps0: float, delta0: float, k: int, epsilon: float) -> float:
    """δ(ε) = 1 − (1 − δ₀)^k (1 − δ_RR(ε)), δ_RR(ε) = Σ_l C(k,l) [e^{(k−l)ε₀} − e^{ε+lε₀}]₊ / (1 + e^{ε₀})^k:
    the exact privacy profile of the k-fold composition of the worst (ε₀, δ₀)-DP mechanism, hence the optimal
    bound over all of them (Kairouz, Oh & Viswanath 2015, Theorem 3.3, written for every ε).

    ``eps0`` ≥ 0 (∞ allowed: each run reveals the bit), ``delta0`` ∈ [0, 1), ``k`` an integer in [1,
    :data:`~dpviz.accountants.RUNS`], ``epsilon`` ≥ 0 (∞ allowed); a ValueError names the parameter otherwise.

    >>> round(kov_delta(1.0, 0.0, 1, 0.0), 12)   # one RR: (e − 1)/(e + 1)
    0.46211715726
    """
    eps0, delta0, k = _kov_args(eps0, delta0, k)
    epsilon = check_positive(epsilon, "epsilon", allow_zero=True, allow_inf=True)
    return _kov_delta(eps0, delta0, k, epsilon)


def _kov_args(eps0, delta0, k) -> tuple[float, float, int]:
    return (check_positive(eps0, "eps0", allow_zero=True, allow_inf=True), check_delta(delta0, "delta0"),
            check_integer(k, "k", minimum=1, maximum=RUNS.high))


def _kov_delta(eps0: float, delta0: float, k: int, epsilon: float) -> float:
    """:func:`kov_delta` without the checks."""
    if eps0 == 0:
        d_rr = 0.0
    elif eps0 == math.inf:  # each run reveals the bit: δ_RR(ε) = 1 for every finite ε
        d_rr = 1.0
    else:
        losses, log_p, extra = _rr_k_atoms(eps0, k)
        m = losses > epsilon
        d_rr = extra + float(np.sum(np.exp(log_p[m]) * -np.expm1(epsilon - losses[m])))
    return min(1.0, -math.expm1(k * math.log1p(-delta0)) + math.exp(k * math.log1p(-delta0)) * d_rr)


def kov_epsilon(eps0: float, delta0: float, k: int, delta: float) -> float:
    """Smallest ε with :func:`kov_delta` ≤ δ, solved exactly (δ_RR is piecewise explicit in e^ε; Kairouz, Oh &
    Viswanath 2015, Theorem 3.3); ``math.inf`` when (1 − δ₀)^k ≤ 1 − δ (the δ₀'s alone exceed the target).

    With τ = (δ − (1 − (1 − δ₀)^k))/(1 − δ₀)^k (for k = 1: (δ − δ₀)/(1 − δ₀), δ − δ₀ exact when they are close) the
    condition is δ_RR(ε) ≤ τ. On the lattice of losses L_i = (k − 2l)ε₀ the profile is evaluated without
    cancellation (:func:`_kov_epsilon_lattice`), so ε keeps its relative precision also for a tiny ε₀ (one Gaussian
    with μ = 1e-12 in the optimal accountant gives ε₀ ≈ 5e-18): before issue 13 ε was formed as ln(A − τ) − ln B,
    whose absolute error ~1e-16 rounded every ε below ~1e-16 to 0 — under-reporting. For a large ε₀ (2ε₀·#atoms >
    600) or τ > 1/2 (where 1 − τ, not τ, carries the information and the lattice sums, accurate relative to τ, are
    not; a τ > 1/2 needs tanh(kε₀/2) > 1/2, so ε is not tiny) the log-space solver
    :func:`~dpviz.accountants.pld.atoms_epsilon` is used (absolute error ~1e-16·|ln B|, rounded up).

    ``eps0``, ``delta0`` and ``k`` as for :func:`kov_delta`, ``delta`` ∈ [0, 1].

    >>> round(kov_epsilon(0.1, 0.0, 1, 1e-6), 5)   # one RR(0.1): just below 0.1
    0.1
    """
    eps0, delta0, k = _kov_args(eps0, delta0, k)
    delta = check_probability(delta, "delta")
    return _kov_epsilon(eps0, delta0, k, delta)


def _kov_epsilon(eps0: float, delta0: float, k: int, delta: float) -> float:
    """:func:`kov_epsilon` without the checks."""
    log_keep = k * math.log1p(-delta0)
    spent = delta0 if k == 1 else -math.expm1(log_keep)  # 1 − (1 − δ₀)^k, what the δ₀'s alone cost
    if delta < spent:
        return math.inf
    if eps0 == 0:
        return 0.0
    # need δ_RR ≤ τ = 1 − (1 − δ)/(1 − δ₀)^k = (δ − spent)/(1 − δ₀)^k: the second form for a small τ (δ − spent
    # is exact when they are close), the first for τ near 1 (where (1 − δ)/(1 − δ₀)^k is the small part; the second
    # could round above 1)
    tau = (delta - spent) * math.exp(-log_keep)
    if tau > 0.5:
        tau = 1.0 if delta >= 1.0 else -math.expm1(math.log1p(-delta) - log_keep)
    if tau <= 0:  # δ = 1 − (1 − δ₀)^k: δ_RR must be 0, which only ε ≥ kε₀ (the largest loss) gives
        return k * eps0
    if eps0 == math.inf:
        return math.inf
    losses, log_p, extra = _rr_k_atoms(eps0, k)
    if tau <= 0.5 and 2.0 * eps0 * losses.size <= 600.0:
        return min(_kov_epsilon_lattice(eps0, losses, log_p, extra, tau), k * eps0)
    return min(_atoms_epsilon(losses, None, extra, tau, log_probs=log_p), k * eps0)


def _kov_epsilon_lattice(eps0: float, losses: np.ndarray, log_p: np.ndarray, extra: float, tau: float) -> float:
    """Smallest ε ≥ 0 with extra + Σ_{L_j > ε} p_j (1 − e^{ε − L_j}) ≤ τ for atoms on the lattice L_j = L_0 + 2jε₀
    (ascending, contiguous: :func:`_rr_k_atoms`), without cancellation. With q = e^{−2ε₀}, F_i = Σ_{j≥i} p_j q^{j−i}
    and D_i = Σ_{j>i} p_j (1 − q^{j−i}) = (1 − q)·Σ_{m>i} F_m (sums of positive terms, by reversed cumulative sums
    of p_j q^j, in range since 2ε₀·#atoms ≤ 600), the profile is δ(L_i) = extra + D_i at the atoms and
    δ(L_i − s) = extra + D_i + (1 − e^{−s}) F_i for 0 ≤ s ≤ 2ε₀ in between; so
    ε = L_i − s with s = −ln(1 − (τ − extra − D_i)/F_i) on the first atom with δ(L_i) ≤ τ, rounded up by a few ulps
    of the terms (never under-reports ε)."""
    if extra > tau:
        return math.inf
    n = losses.size
    one_q = -math.expm1(-2.0 * eps0)  # 1 − q
    j = np.arange(n, dtype=float)
    with np.errstate(under="ignore"):
        w = np.exp(log_p - 2.0 * eps0 * (j - (n - 1) / 2.0))  # p_j q^{j − c}, centred: |2ε₀(j − c)| ≤ 300
        tail_w = np.cumsum(w[::-1])[::-1]  # Σ_{j≥i} p_j q^{j−c}
        f = tail_w * np.exp(2.0 * eps0 * (j - (n - 1) / 2.0))  # F_i
    tail_f = np.append(np.cumsum(f[::-1])[::-1][1:], 0.0)  # Σ_{m>i} F_m
    d = one_q * tail_f  # D_i
    pos = np.flatnonzero(losses > 0)
    if pos.size == 0:  # no positive loss: δ_RR(0) = extra ≤ τ
        return 0.0
    i0 = int(pos[0])
    # ε = 0 lies in (L_{i0−1}, L_{i0}]: δ_RR(0) = extra + D_{i0} + (1 − e^{−L_{i0}}) F_{i0}
    if extra + d[i0] + -math.expm1(-float(losses[i0])) * f[i0] <= tau:
        return 0.0
    ok = np.flatnonzero(extra + d[i0:] <= tau)
    i = i0 + int(ok[0]) if ok.size else n - 1
    num = tau - extra - float(d[i])
    u = max(num, 0.0) / float(f[i])
    if u >= 1.0:  # rounding: cannot happen for exact inputs (δ(L_{i−1}) > τ means u < 1 − q)
        return max(0.0, float(losses[i - 1])) if i > 0 else 0.0
    s = -math.log1p(-u)
    li = float(losses[i])
    eps = li - s
    eps += 8.0 * 2.0**-52 * (li + s + (tau + extra + float(d[i])) / (float(f[i]) * (1.0 - u)))
    return max(0.0, eps)


class OptimalAccountant(Accountant):
    """The optimal (ε, δ) for k adaptive runs of ONE (ε₀, δ₀)-DP mechanism (Kairouz, Oh & Viswanath 2015,
    Theorem 3.3): no composition theorem that only knows (ε₀, δ₀) can do better, and randomized response attains it.

    The ledger must hold a single event (any count, in any number of ``compose`` calls); composing a different one
    raises ValueError — use :class:`~dpviz.accountants.PLDAccountant` for heterogeneous compositions. An event with a
    fixed guarantee (pure mechanisms, ``ApproxDP``, their subsampled versions) uses it. An event with a privacy curve
    (Gaussian-type, ``ZCDP``) satisfies (ε₀(δ₀), δ₀)-DP for every δ₀; the accountant minimises the KOV bound over δ₀
    (a grid in ln δ₀ evaluated with one vectorised call of the curve, then Brent to 1e-9 in ln δ₀ by the bounded
    :func:`scipy.optimize.minimize_scalar`), which is valid for every δ₀ but, knowing only one point of the curve per
    run, stays above the PLD answer — often far above: for 631 Gaussians with σ = 4 at δ = 1e-5 it gives
    ε ≈ 572.7 where the exact value is 45.7, because the worst (ε₀, δ₀)-mechanism (randomized response) has
    expected loss k·ε₀·tanh(ε₀/2), ≈ 450 at the best δ₀, whereas the Gaussian's is k/(2σ²) ≈ 20. The neighbouring
    relation only decides which sampling events are accepted.

    Examples
    --------
    >>> from dpviz.accountants import OptimalAccountant, BasicAccountant, PureDP
    >>> opt = OptimalAccountant().compose(PureDP(0.1), count=100).epsilon(1e-6)
    >>> opt < BasicAccountant().compose(PureDP(0.1), count=100).epsilon(1e-6)
    True
    """

    name = "optimal"

    def _reason(self, event: Any) -> str | None:
        if eps_delta_profile(event, self.neighboring) is None:
            return "it has no (epsilon, delta) description"
        if self._ledger and any(ev != event for ev, _ in self._ledger):
            return (
                f"OptimalAccountant composes copies of ONE mechanism (Kairouz, Oh & Viswanath 2015) and the ledger "
                f"already holds {self._ledger[0][0]!r}; use PLDAccountant for heterogeneous compositions"
            )
        return None

    def _single(self):
        (ev, k), = self._merged_ledger()
        return eps_delta_profile(ev, self.neighboring), k

    def _epsilon(self, delta: float) -> float:
        prof, k = self._single()
        if prof.fixed is not None:
            return _kov_epsilon(prof.fixed[0], prof.fixed[1], k, delta)

        def f(ts: np.ndarray, upper=None) -> np.ndarray:  # t = ln δ₀; the curve is evaluated for all δ₀ at once
            with np.errstate(under="ignore"):
                d0 = np.exp(ts)  # may underflow to 0: the curve then gives its limit (∞ for ρ > 0)
            e0 = prof._eps_many(d0, upper)
            return np.array([_kov_epsilon(float(e), float(d), k, delta) for e, d in zip(e0, d0)])

        # every δ₀ gives a valid bound, so the best candidate is valid: a grid over 30 nats of ln δ₀ below the
        # largest admissible one (1 − (1 − δ₀)^k ≤ δ is necessary: δ₀ ≤ 1 − (1 − δ)^{1/k}, slightly above δ/k; for
        # a tiny δ it is δ/k, taken as ln δ − ln k since δ/k underflows for subnormal δ), then a bounded Brent search
        # around the best point
        if delta > 1e-10:
            hi = math.log(-math.expm1(math.log1p(-delta) / k)) - 1e-12
        else:
            hi = math.log(delta) - math.log(k) - 1e-12
        grid = np.linspace(hi - 30.0, hi, 16)
        best = math.inf
        vals = f(grid)
        i = int(np.argmin(vals))
        best = float(vals[i])
        if math.isfinite(best):  # the objective is piecewise smooth (atoms switch): bounded Brent around the best
            a, b = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
            e_a = float(prof._eps_many(np.array([_exp(a)]))[0])  # ε₀ at the smallest δ₀: a warm start
            # δ₀ where no finite ε exists (∞) enters the optimiser as a huge finite value (∞ − ∞ inside Brent's
            # parabola would be NaN); the answer is the smaller of the grid's best and Brent's
            res = minimize_scalar(lambda t: min(float(f(np.array([t]), e_a)[0]), 1e300), bounds=(a, b),
                                  method="bounded", options={"xatol": _XATOL})
            best = min(best, float(res.fun))
        return best

    def _delta(self, epsilon: float) -> float:
        """Fixed (ε₀, δ₀): the exact KOV δ(ε) (:func:`kov_delta`). A curve: ε(δ) is a numerical minimisation over
        δ₀, so δ(ε) is the smallest δ whose :meth:`_epsilon` is ≤ ε, by bisection in ln δ
        (:func:`~dpviz.accountants._base.delta_from_epsilon_function`)."""
        prof, k = self._single()
        if prof.fixed is not None:
            return _kov_delta(prof.fixed[0], prof.fixed[1], k, epsilon)
        at_zero = 0.0 if prof.at_zero == 0.0 else math.inf
        return delta_from_epsilon_function(self._epsilon, epsilon, rtol=1e-6, eps_at_zero=at_zero)
