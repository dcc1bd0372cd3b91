"""Composition of privacy loss distributions on the grid {i·h}: FFT self-composition (Koskela, Jälkö & Honkela
2020) on a window sized by a Chernoff bound, FFT convolution of different events, FFT round-off accounted for on
both sides, and δ(ε) / ε(δ) of a composed grid PLD (pessimistic: connect-the-dots masses; optimistic: the
Neyman–Pearson tests of :func:`dpviz.accountants.pld.laws.discretise`)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import fft as sfft

from dpviz.accountants._atoms import _atoms_epsilon

__all__: list[str] = []  # the grid arithmetic of the PLD accountant: private, reached through dpviz.accountants.pld

_TAIL = 1e-30  # tail mass allowed outside an FFT window (bounded by Chernoff, accounted for pessimistically)


class _Pmf(NamedTuple):
    lo: int  # grid index of p[0]
    p: np.ndarray  # masses at (lo + i)·h
    inf: float  # mass at +∞
    err: float = 0.0  # optimistic: P-mass that may sit at a wrong place (FFT wrap-around), bounded
    pt: np.ndarray | None = None  # optimistic: Q-masses tilted by e^{index·h} (see laws.discretise), times e^{−ls}
    ls: float = 0.0  # optimistic: ln of the scale factor of pt (kept apart: (Σ pt)^k underflows for long runs)


def _chernoff_window(l: np.ndarray, p: np.ndarray, k: int) -> tuple[float, float]:
    """Loss interval [t_lo, t_hi] outside which the k-fold sum of the (sub-)probability atoms (l, p) has at most
    ``_TAIL`` mass on each side, by the Chernoff bound P(ΣL ≥ T) ≤ exp(k·K(λ) − λT), K(λ) = ln Σ p_i e^{λ l_i}
    (and its mirror for the lower tail), minimised over λ on a geometric grid around the Gaussian-approximation
    optimum λ₀ = √(2 ln(1/_TAIL)/(k·Var L)) (7 powers of 2 around it, then 2^{±1/4} around the best, searched
    on ≤ 2048 chunk sums), the bound then evaluated with exact sums over all atoms at the chosen λ (bounding the
    MGF on coarser chunks would cost a first-order k·(chunk width) in width).

    The window therefore has width ≈ 2√(2 ln(1/_TAIL)·k·Var L) ≈ 23.5 standard deviations of the sum, around the
    mean k·E[L] — it grows like √k, not like k·max|L|. Any λ > 0 gives a valid bound, so the grid only affects
    the width, never the validity."""
    tot = float(p.sum())
    mean = float(l @ p) / tot
    var = max(float(((l - mean) ** 2) @ p) / tot, 0.0)
    full_lo, full_hi = k * float(l[0]), k * float(l[-1])
    if var <= 0 or full_hi <= full_lo:
        return full_lo, full_hi
    log_tail = math.log(_TAIL)
    lam0 = math.sqrt(-2.0 * log_tail / (k * var))
    with np.errstate(divide="ignore"):
        log_p = np.log(p)
    # the λ search runs on ≤ 2048 chunk sums (it only picks λ); the bound itself is then evaluated exactly
    m_ch = -(-l.size // 2048)
    if m_ch > 1:
        pad = (-l.size) % m_ch
        pc = np.concatenate([p, np.zeros(pad)]).reshape(-1, m_ch).sum(axis=1)
        lc = np.concatenate([l, np.full(pad, l[-1])]).reshape(-1, m_ch).mean(axis=1)
        with np.errstate(divide="ignore"):
            log_pc = np.log(pc)
    else:
        lc, log_pc = l, log_p

    def bound(lams, sgn, ll, lp):  # the T with P(sgn·ΣL ≥ T) ≤ _TAIL, for each λ (log-sum-exp by hand)
        x = (sgn * lams)[:, None] * ll[None, :] + lp[None, :]
        mx = x.max(axis=1)
        kk = np.log(np.exp(x - mx[:, None]).sum(axis=1)) + mx
        return (k * kk - log_tail) / lams

    out = []
    for sgn in (1.0, -1.0):
        lams = lam0 * 2.0 ** np.arange(-3.0, 4.0)  # factors of 2 around λ₀, then 2^{±1/4} around the best
        best = lams[int(np.argmin(bound(lams, sgn, lc, log_pc)))]
        fine = best * 2.0 ** np.array([-0.25, 0.0, 0.25])
        if m_ch > 1:
            best = fine[int(np.argmin(bound(fine, sgn, lc, log_pc)))]
            fine = np.array([best])
        out.append(sgn * float(np.min(bound(fine, sgn, l, log_p))))
    t_hi, t_lo = out
    return max(full_lo, t_lo), min(full_hi, t_hi)


def _window(pmf: _Pmf, k: int, h: float) -> tuple[int, int]:
    """Grid-index window [w_lo, w_hi] holding all but ≤ _TAIL of the k-fold composition on each side
    (:func:`_chernoff_window`)."""
    nz = np.flatnonzero(pmf.p > 0)
    if nz.size == 0:  # every run's loss is +∞ (disjoint laws): nothing finite to compose
        return k * pmf.lo, k * pmf.lo
    l = (pmf.lo + nz) * h
    t_lo, t_hi = _chernoff_window(l, pmf.p[nz], k)
    full_lo, full_hi = k * pmf.lo, k * (pmf.lo + pmf.p.size - 1)
    w_lo = max(full_lo, math.floor(t_lo / h))
    w_hi = min(full_hi, math.ceil(t_hi / h))
    return w_lo, max(w_hi, w_lo)


def _denoise(r: np.ndarray, up: bool) -> np.ndarray:
    """Masses from an FFT result, with its round-off accounted for. The FFT leaves an absolute error of the same
    size in every bin (≈ k·2⁻⁵²·max r for a k-th power); summed over the ~10⁶ bins of a tail it can exceed a δ of
    1e-10 (it did: the pessimistic δ(ε) of 1000 discretised Gaussians came out 0.03 % *below* the exact one at
    δ = 1e-10). The error level η is estimated from the negative values the FFT leaves (true masses are ≥ 0):
    η = 2·max(−min r, 2⁻⁵²·max r); the upper side (pessimistic P-masses, optimistic Q-masses) uses r⁺ + η per
    bin, the lower side (optimistic P-masses) (r − η)⁺. An estimate, not a proof: the one non-rigorous step,
    shared with every FFT accountant, now made visible in the bracket instead of biasing one side."""
    eta = 2.0 * max(-float(r.min()), 2.0**-52 * float(r.max()), 0.0)
    if up:
        return np.maximum(r, 0.0) + eta
    return np.maximum(r - eta, 0.0)


def _int_power(z: np.ndarray, k: int) -> np.ndarray:
    """z**k for a complex array by repeated squaring (about twice as fast as the complex ``**``, same accuracy)."""
    out = None
    while k:
        if k & 1:
            out = z.copy() if out is None else out * z
        k >>= 1
        if k:
            z = z * z
    return out


def _self_compose(pmf: _Pmf, k: int, h: float, pessimistic: bool) -> _Pmf:
    """k-fold convolution power by ONE FFT: the characteristic function raised to the k-th power
    (Koskela, Jälkö & Honkela 2020), on a cyclic window sized by a Chernoff bound (:func:`_window`).

    Pessimistic: the ≤ 2·_TAIL of mass outside the window (which the cyclic FFT wraps onto the window) is added to
    +∞. Optimistic: the composed test statistic is restricted to the window (a valid test), the P-mass wrapped onto
    it (≤ 2·_TAIL) is recorded in ``err`` and subtracted from P(S); wrapped Q-mass only enlarges Q(S) (safe). The
    optimistic ``pt`` (tilted Q-masses) is composed with the same FFT."""
    if k == 1:
        return pmf
    inf_k = -math.expm1(k * math.log1p(-pmf.inf)) if pmf.inf < 1 else 1.0
    w_lo, w_hi = _window(pmf, k, h)
    n = sfft.next_fast_len(max(w_hi - w_lo + 1, pmf.p.size), real=True)
    shift = (w_lo - k * pmf.lo) % n

    def power(x):
        with np.errstate(all="ignore"):  # underflow of |φ|^k to 0 is expected
            spec = _int_power(sfft.rfft(x, n), k)
        return np.roll(sfft.irfft(spec, n), -shift)

    r = power(pmf.p)
    if pessimistic:
        return _Pmf(w_lo, _denoise(r, True), inf_k + 2 * _TAIL, 0.0)
    c = float(pmf.pt.sum())  # Σ pt ≈ e^{−h/2} < 1: normalise, or its k-th power underflows (k·h/2 ≫ 700)
    if c == 0.0:  # no Q-mass on the grid (every loss beyond the capped range): Q(S_τ) = 0 for every test
        return _Pmf(w_lo, _denoise(r, False), inf_k, pmf.err + 2 * _TAIL, np.zeros(r.size), -math.inf)
    rt = _denoise(power(pmf.pt / c), True)
    return _Pmf(w_lo, _denoise(r, False), inf_k, pmf.err + 2 * _TAIL, rt, k * (pmf.ls + math.log(c)))


def _trim_range(p: np.ndarray) -> tuple[int, int]:
    """[i0, i1]: the smallest index range outside which at most _TAIL of ``p`` lies on each side."""
    c = np.cumsum(p)
    total = c[-1]
    i0 = int(np.searchsorted(c, _TAIL, side="right"))
    i1 = int(np.searchsorted(c, total - _TAIL, side="left"))
    i0 = min(i0, p.size - 1)
    return i0, max(min(i1, p.size - 1), i0)


def _compose_two(a: _Pmf, b: _Pmf, pessimistic: bool) -> _Pmf:
    """Convolution of two grid PLDs by FFT, negligible tails trimmed: pessimistically the top goes to +∞ and the
    bottom up to the first kept point; optimistically the test statistic is restricted to the kept range (nothing
    needs moving: a test may ignore outcomes)."""
    n = a.p.size + b.p.size - 1
    nf = sfft.next_fast_len(n, real=True)

    def conv(x, y):
        return sfft.irfft(sfft.rfft(x, nf) * sfft.rfft(y, nf), nf)[:n]

    r = conv(a.p, b.p)
    inf = 1.0 - (1.0 - a.inf) * (1.0 - b.inf)
    if pessimistic:
        r = _denoise(r, True)
        i0, i1 = _trim_range(r)
        q = r[i0 : i1 + 1].copy()
        q[0] += float(np.sum(r[:i0]))
        inf += max(float(np.sum(r[i1 + 1 :])), 0.0)
        return _Pmf(a.lo + b.lo + i0, q, inf, a.err + b.err)
    r = _denoise(r, False)
    rt = _denoise(conv(a.pt, b.pt), True)
    i0, i1 = _trim_range(r)
    return _Pmf(a.lo + b.lo + i0, r[i0 : i1 + 1].copy(), inf, a.err + b.err, rt[i0 : i1 + 1].copy(), a.ls + b.ls)


def _test_tails(pmf: _Pmf, h: float):
    """For the optimistic PLD: (A_τ, ln B_τ) for τ = lo − 1 … hi, where A_τ = P(S_τ) (minus the wrap-around
    allowance ``err``) and B_τ = Q(S_τ) of the test S_τ = {some step at +∞, or Σ indices > τ}."""
    s = pmf.lo + np.arange(pmf.p.size)
    a = np.concatenate([np.cumsum(pmf.p[::-1])[::-1], [0.0]]) + pmf.inf - pmf.err
    with np.errstate(divide="ignore"):
        x = np.log(pmf.pt) - s * h + pmf.ls
    log_b = np.concatenate([np.logaddexp.accumulate(x[::-1])[::-1], [-np.inf]])
    return a, log_b


def _pmf_delta(pmf: _Pmf, h: float, eps: float, pessimistic: bool) -> float:
    """Pessimistic: δ(ε) = P(L = ∞) + Σ_{l_i > ε} p_i (1 − e^{ε − l_i}). Optimistic: max_τ A_τ − e^ε B_τ over
    the tests of :func:`_test_tails` (Neyman–Pearson: every test gives a lower bound)."""
    if not pessimistic:
        a, log_b = _test_tails(pmf, h)
        val = float(np.max(a - np.exp(np.minimum(eps + log_b, 700.0))))
        return min(1.0, max(0.0, val))
    l = (pmf.lo + np.arange(pmf.p.size)) * h
    m = l > eps
    val = pmf.inf + float(np.sum(pmf.p[m] * -np.expm1(eps - l[m])))
    return min(1.0, max(0.0, val))


class _DeltaTable:
    """Precomputed suffix sums of one composed grid PLD, so that each δ(ε) query (a privacy-profile curve asks for
    dozens) costs O(log n) instead of O(n).

    Pessimistic: δ(ε) = inf + A_j − e^ε B_j with A_j = Σ_{i≥j} p_i, B_j = Σ_{i≥j} p_i e^{−l_i} (in logs) and j the
    first grid point above ε — the same sum as :func:`_pmf_delta`. Optimistic: max_τ A_τ − e^ε B_τ over the tests
    of :func:`_test_tails`, restricted to thresholds τ·h ∈ [ε − (n_steps + 2)·h, ε + 2h]: rounding each of the
    ``n_steps`` losses down by < h shifts the statistic by less than n_steps·h below the loss, so the best test lies
    there (plus every 64th test over the whole range, refined around the best: far in the tail the FFT noise
    floor can move the best test up); any subset of tests still gives a valid lower bound."""

    def __init__(self, pmf: _Pmf, h: float, pessimistic: bool, n_steps: int):
        self.pess, self.h, self.lo, self.inf = pessimistic, h, pmf.lo, pmf.inf
        self.n_steps = int(n_steps)
        if pessimistic:
            p = pmf.p
            self.l = (pmf.lo + np.arange(p.size)) * h
            self.a = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])
            with np.errstate(divide="ignore"):
                x = np.log(p) - self.l
            self.log_b = np.concatenate([np.logaddexp.accumulate(x[::-1])[::-1], [-np.inf]])
            with np.errstate(divide="ignore"):
                self.log_a = np.log(self.a)
        else:
            self.a, self.log_b = _test_tails(pmf, h)

    def delta(self, eps: float) -> float:
        if self.pess:
            j = int(np.searchsorted(self.l, eps, side="right"))
            val = self.inf + self.a[j] - math.exp(min(eps + self.log_b[j], self.log_a[j]))
            return min(1.0, max(0.0, float(val)))
        # entry i of a/log_b is the test Σ indices > lo − 1 + i
        # (clipped to just outside the table, so that an ε far beyond the grid, up to 1e308, stays an integer index)
        c = min(max(eps / self.h - (self.lo - 1), -1.0), self.a.size + self.n_steps + 4.0)
        i0 = max(0, math.floor(c - self.n_steps - 2))
        i1 = min(self.a.size, math.ceil(c + 3))
        if i1 <= i0:
            i0, i1 = (0, 1) if c < 0 else (self.a.size - 1, self.a.size)
        val = self._best(eps, i0, i1, 1)
        # far in the tail the FFT noise floor can move the best test up: also scan every 64th test, then refine
        m = 64
        j = self._best_index(eps, 0, self.a.size, m)
        val = max(val, self._best(eps, max(0, j - m), min(self.a.size, j + m + 1), 1))
        return min(1.0, max(0.0, val))

    def _values(self, eps, i0, i1, step):
        a, lb = self.a[i0:i1:step], self.log_b[i0:i1:step]
        return a - np.exp(np.minimum(eps + lb, 700.0))

    def _best(self, eps, i0, i1, step) -> float:
        return float(np.max(self._values(eps, i0, i1, step)))

    def _best_index(self, eps, i0, i1, step) -> int:
        return i0 + step * int(np.argmax(self._values(eps, i0, i1, step)))


def _pmf_epsilon(pmf: _Pmf, h: float, delta: float, pessimistic: bool) -> float:
    """Smallest ε ≥ 0 with δ(ε) ≤ delta for the grid distribution. Optimistic side: δ(ε) ≤ delta for every test
    S_τ iff e^ε ≥ (A_τ − delta)/B_τ, so ε = max_τ ln(A_τ − delta) − ln B_τ over the τ with A_τ > delta."""
    if not pessimistic:
        a, log_b = _test_tails(pmf, h)
        m = a > delta
        if not np.any(m):
            return 0.0
        if np.any(np.isneginf(log_b[m])):
            return math.inf
        return max(0.0, float(np.max(np.log(a[m] - delta) - log_b[m])))
    if not np.any(pmf.p > 0):
        return 0.0 if pmf.inf <= delta else math.inf
    return _atoms_epsilon((pmf.lo + np.arange(pmf.p.size)) * h, pmf.p, pmf.inf, delta)
