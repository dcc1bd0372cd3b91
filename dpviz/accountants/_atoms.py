"""Exact k-fold compositions of a two-atom privacy loss (randomized response, pure and (ε, δ) events, the discrete
Laplace with Δ = 1, …) and the exact ε(δ) of any finite set of loss atoms; no grid involved (Kairouz, Oh &
Viswanath 2015, Theorem 3.3). Used by the PLD accountant's exact path and by the optimal-composition accountant."""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from dpviz._validation import (
    Interval,
    check_in_range,
    check_positive,
    check_probability,
    check_real_array,
)

__all__ = ["atoms_epsilon", "binomial_loss_atoms"]


#: ln of the Hoeffding tail bound used to truncate exact binomial laws: e^{−700} ≈ 1e-304 per side, below every
#: probability a double can hold next to 1, so the truncation is invisible; it is still added back pessimistically.
_BINOM_LOG_TAIL = 700.0


@functools.lru_cache(maxsize=64)
def _log_binomial_coefficients(k: int) -> np.ndarray:
    """ln C(k, l) for l = 0 … k (read-only; cached: the KOV optimiser asks for the same k dozens of times)."""
    l = np.arange(k + 1, dtype=float)
    out = special.gammaln(k + 1.0) - special.gammaln(l + 1.0) - special.gammaln(k - l + 1.0)
    out.setflags(write=False)
    return out


def binomial_loss_atoms(loss: float, log_r_plus: float, log_r_minus: float, k: int, inf_single: float = 0.0):
    """The exact k-fold composition of a two-atom privacy loss: +∞ w.p. p_∞ = ``inf_single``, otherwise +``loss``
    w.p. r₊ and −``loss`` w.p. r₋ (r₊ + r₋ = 1, given as logs). With l runs at −loss and none at +∞ the total is
    (k − 2l)·loss, with probability (1 − p_∞)^k C(k, l) r₊^{k−l} r₋^l (a binomial law; Kairouz, Oh & Viswanath
    2015, proof of Theorem 3.3); the +∞ atom has mass 1 − (1 − p_∞)^k (exactly 0 when p_∞ = 0).

    Returns ``(losses, log_probs, inf_mass)`` with ``losses`` ascending. For large k only the l within
    √(k·700/2) of the mean are kept; by Hoeffding's inequality each side outside holds at most e^{−700} ≈ 1e-304,
    which is added pessimistically (the high-loss side to +∞, the low-loss side to the lowest kept atom), so
    δ(ε) computed from the atoms is never below the exact one and exceeds it by at most 2e-304.

    >>> losses, lp, inf = binomial_loss_atoms(1.0, math.log(0.75), math.log(0.25), 2)
    >>> losses.tolist(), np.round(np.exp(lp), 12).tolist(), inf
    ([-2.0, 0.0, 2.0], [0.0625, 0.375, 0.5625], 0.0)
    """
    loss = check_positive(loss, "loss", allow_zero=True)
    lp = _log_probability(log_r_plus, "log_r_plus")
    lm = _log_probability(log_r_minus, "log_r_minus")
    total = float(np.logaddexp(lp, lm))
    if abs(total) > 1e-9:
        raise ValueError(f"log_r_plus = {log_r_plus!r} and log_r_minus = {log_r_minus!r} are not allowed together: "
                         f"r₊ + r₋ = {math.exp(total)!r}, must be 1.")
    k = ATOMS_K.check(k, "k")
    inf_single = check_probability(inf_single, "inf_single", open_high=True)
    return _binomial_loss_atoms(loss, lp, lm, k, inf_single)


def _log_probability(value, name: str) -> float:
    """ln of a probability: a number ≤ 0, −∞ allowed (probability 0)."""
    if isinstance(value, float) and value == -math.inf:
        return -math.inf
    return check_in_range(value, name, -math.inf, 0.0)


#: Largest k of :func:`binomial_loss_atoms` (the accountants' :data:`dpviz.accountants.RUNS`): its
#: coefficients ln C(k, l) take k + 1 doubles.
ATOMS_K = Interval(1, 10**6, integer=True)


def _binomial_loss_atoms(loss: float, log_r_plus: float, log_r_minus: float, k: int, inf_single: float = 0.0):
    """:func:`binomial_loss_atoms` without the checks."""
    k = int(k)
    log_keep = math.log1p(-inf_single)
    inf_mass = -math.expm1(k * log_keep)
    r = math.exp(log_r_minus) if math.isfinite(log_r_minus) else 0.0  # P(−loss | finite)
    t = math.sqrt(k * _BINOM_LOG_TAIL / 2.0)
    l_lo = max(0, math.floor(k * r - t))
    l_hi = min(k, math.ceil(k * r + t))
    l = np.arange(l_hi, l_lo - 1, -1, dtype=float)  # descending l = ascending loss
    # 0·(−∞) when r₊ or r₋ is 0: that factor is then exactly 1; l·ln r₋ may overflow to −∞ (probability 0)
    with np.errstate(invalid="ignore", over="ignore"):
        tp = np.where(k - l > 0, (k - l) * log_r_plus, 0.0)
        tm = np.where(l > 0, l * log_r_minus, 0.0)
        losses = (k - 2.0 * l) * loss
    log_p = _log_binomial_coefficients(k)[l_hi : (l_lo - 1 if l_lo > 0 else None) : -1] + tp + tm + k * log_keep
    tail = math.exp(-_BINOM_LOG_TAIL)
    if l_lo > 0:  # high losses (few −loss runs) beyond the window → +∞
        inf_mass += tail
    if l_hi < k:  # low losses beyond the window → moved up to the lowest kept atom
        log_p[0] = np.logaddexp(log_p[0], -_BINOM_LOG_TAIL)
    if not np.all(np.isfinite(losses)):
        # a total loss beyond the double range (k·loss > 1.8e308): +∞ for every finite ε, so its mass joins the
        # +∞ atom exactly; a total of −∞ never counts in δ(ε ≥ 0) and is dropped
        top = losses == np.inf
        with np.errstate(under="ignore"):
            inf_mass = min(1.0, inf_mass + float(np.sum(np.exp(log_p[top]))))
        keep = np.isfinite(losses)
        losses, log_p = losses[keep], log_p[keep]
    return losses, log_p, inf_mass


#: relative rounding allowance added to ε = ln(inf + A − δ) − ln B (a few ulps of each logarithm): near an atom,
#: δ(ε) has slope ≈ −A, so an ε a few ulps low could put δ(ε) above the target by ~1e-6 relative when δ ≪ A.
_ROUND = 8 * 2.0**-52


def _atoms_epsilon_scaled(losses, probs, inf_mass, delta):
    """Fast path of :func:`atoms_epsilon` for long grids: linear-space suffix sums, with B scaled by e^c at
    c = the (1 − δ)-quantile-type point q = min{l_j : inf + P(L > l_j) ≤ δ} ≥ ε (δ(ε) ≤ inf + P(L > ε)), over
    the atoms above c − 700 only, so e^{c − l_i} cannot overflow. Returns None when ε may lie below c − 700
    (the caller then uses the log-space version)."""
    a_suf = np.concatenate([np.cumsum(probs[::-1])[::-1], [0.0]])
    ok = np.flatnonzero(inf_mass + a_suf[1:] <= delta)
    if ok.size == 0:
        return None
    c = float(losses[ok[0]])
    start = int(np.searchsorted(losses, c - 700.0, side="right"))
    l, a = losses[start:], a_suf[start:]
    with np.errstate(under="ignore"):
        b_suf = np.concatenate([np.cumsum((probs[start:] * np.exp(c - l))[::-1])[::-1], [0.0]])  # e^c·B_j

    def d_at(i: int) -> float:
        # δ at ε = l_i: e^{l_i} B_{i+1} ≤ A_{i+1} ≤ 1, formed in logs (e^{l_i − c} alone may overflow)
        b = float(b_suf[i + 1])
        if b <= 0.0:
            return inf_mass + float(a[i + 1])
        return inf_mass + float(a[i + 1]) - math.exp(min(float(l[i]) - c + math.log(b), 0.0))

    pos = losses > 0
    d0 = inf_mass + float(np.sum(probs[pos] * -np.expm1(-losses[pos])))
    if d0 <= delta:
        return 0.0
    # first i with d_at(i) ≤ delta (d_at is non-increasing; the atom at c qualifies): binary search
    lo_i, hi_i = -1, ok[0] - start
    while hi_i - lo_i > 1:
        mid = (lo_i + hi_i) // 2
        if d_at(mid) <= delta:
            hi_i = mid
        else:
            lo_i = mid
    j = hi_i
    if j == 0 and start > 0:
        return None  # the answer may lie below the atoms kept
    lo = float(l[j - 1]) if j > 0 else -math.inf
    num = inf_mass + float(a[j]) - delta
    if num <= 0.0 or b_suf[j] <= 0.0:
        return max(0.0, lo)
    lb = math.log(float(b_suf[j])) - c
    eps = math.log(num) - lb
    eps += _ROUND * (abs(math.log(num)) + abs(lb) + abs(c))  # round up: never under-report ε
    eps = min(max(eps, lo), float(l[j]))
    return max(0.0, eps)


def atoms_epsilon(losses: np.ndarray, probs: np.ndarray, inf_mass: float, delta: float, *,
                  log_probs: np.ndarray | None = None) -> float:
    """Smallest ε ≥ 0 with δ(ε) = inf_mass + Σ_{l_i > ε} p_i (1 − e^{ε − l_i}) ≤ delta, for atoms at sorted
    ``losses``; solved exactly: between consecutive atoms δ(ε) = inf_mass + A − e^ε B is explicit. ``math.inf`` if
    inf_mass > delta.

    All sums are taken in log space (A_j = Σ_{i≥j} p_i and B_j = Σ_{i≥j} p_i e^{−l_i} by a reversed
    ``logaddexp.accumulate``), so atoms with huge losses or tiny masses neither overflow nor underflow: B_j can be
    far below the smallest double (k-fold compositions with losses in the hundreds), and ε = ln(inf + A_j − δ) −
    ln B_j is formed as a difference of logarithms. Pass ``log_probs`` (ln p_i, may be −∞) to keep masses that
    would underflow as probabilities; ``probs`` is then ignored.

    >>> round(atoms_epsilon(np.array([-1.0, 1.0]), np.array([1 / (1 + math.e), math.e / (1 + math.e)]), 0.0, 1e-6), 6)
    0.999999
    """
    losses = check_real_array(losses, "losses", ndim=1, allow_empty=True).astype(float)
    if np.any(np.diff(losses) < 0):
        raise ValueError("losses is not sorted, which is not allowed: must be in ascending order.")
    inf_mass = check_probability(inf_mass, "inf_mass")
    delta = check_probability(delta, "delta")
    if log_probs is None:
        probs = _per_atom(probs, "probs", losses.size)
        if np.any((probs < 0) | (probs > 1)):
            bad = float(probs[(probs < 0) | (probs > 1)][0])
            raise ValueError(f"probs = {bad!r} is not allowed: every probability must be in [0, 1].")
    else:
        log_probs = _per_atom(log_probs, "log_probs", losses.size, finite=False)
        if np.any(np.isnan(log_probs) | (log_probs > 0)):
            bad = float(log_probs[np.isnan(log_probs) | (log_probs > 0)][0])
            raise ValueError(f"log_probs = {bad!r} is not allowed: every log-probability must be a number <= 0 "
                             "(−∞ allowed).")
    return _atoms_epsilon(losses, probs, inf_mass, delta, log_probs=log_probs)


def _per_atom(value, name: str, n: int, *, finite: bool = True) -> np.ndarray:
    arr = check_real_array(value, name, ndim=1, allow_empty=True, finite=finite).astype(float)
    if arr.size != n:
        raise ValueError(f"{name} has {arr.size} values and losses {n}, which is not allowed: must have one per loss.")
    return arr


def _atoms_epsilon(losses: np.ndarray, probs, inf_mass: float, delta: float, *,
                   log_probs: np.ndarray | None = None) -> float:
    """:func:`atoms_epsilon` without the checks."""
    losses = np.asarray(losses, dtype=float)
    if inf_mass > delta:  # (= δ is feasible: at ε ≥ the largest finite loss, δ(ε) is the +∞ mass alone)
        return math.inf
    if log_probs is None:
        probs = np.asarray(probs, dtype=float)
        if not np.all(probs > 0):
            keep = probs > 0
            losses, probs = losses[keep], probs[keep]
        if losses.size == 0:
            return 0.0
        if losses.size > 4096:
            fast = _atoms_epsilon_scaled(losses, probs, inf_mass, delta)
            if fast is not None:
                return fast
        with np.errstate(divide="ignore"):
            lp = np.log(probs)
    else:
        lp = np.asarray(log_probs, dtype=float)
        keep = np.isfinite(lp)
        losses, lp = losses[keep], lp[keep]
    if losses.size == 0:
        return 0.0
    n = losses.size
    # suffix log-sums: log A_j, log B_j for j = 0..n (index n: empty sum, −∞)
    log_a = np.full(n + 1, -np.inf)
    log_b = np.full(n + 1, -np.inf)
    log_a[:n] = np.logaddexp.accumulate(lp[::-1])[::-1]
    log_b[:n] = np.logaddexp.accumulate((lp - losses)[::-1])[::-1]
    # δ at ε = l_j (atoms with i > j count): inf + Σ_{i>j} p_i (1 − e^{l_j − l_i}) ≥ 0; non-increasing in j.
    # e^{l_j} B_{j+1} ≤ A_{j+1} ≤ 1 because l_i > l_j there, so the exponent below is ≤ 0 (up to rounding; a sum
    # that overflows for astronomically large losses is capped by the same minimum).
    with np.errstate(over="ignore"):
        d_at = inf_mass + np.exp(log_a[1:]) - np.exp(np.minimum(log_b[1:] + losses, log_a[1:]))
    pos = losses > 0
    d0 = inf_mass + float(np.sum(np.exp(lp[pos]) * -np.expm1(-losses[pos])))
    if d0 <= delta:
        return 0.0
    ok = np.flatnonzero(d_at <= delta)
    j = int(ok[0]) if ok.size else n - 1  # δ(l_j) ≤ delta < δ(l_{j−1})
    # on (l_{j−1}, l_j]: the atoms with l_i > ε are i ≥ j, so δ(ε) = inf + A_j − e^ε B_j
    lo = float(losses[j - 1]) if j > 0 else -math.inf
    num = inf_mass + math.exp(float(log_a[j])) - delta
    if num <= 0.0:  # rounding: δ(ε) ≤ delta already just above l_{j−1}
        return max(0.0, lo)
    eps = math.log(num) - float(log_b[j])
    eps += _ROUND * (abs(math.log(num)) + abs(float(log_b[j])))  # round up: never under-report ε
    eps = min(max(eps, lo), float(losses[j]))
    return max(0.0, eps)
