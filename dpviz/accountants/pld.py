"""Privacy loss distribution (PLD) accounting: the privacy loss of a composition is the sum of the independent
losses, so its distribution is the convolution of the per-mechanism PLDs (Dwork & Rothblum 2016; Sommer, Meiser &
Mohammadi 2019; Koskela, Jälkö & Honkela 2020 for the FFT), and δ(ε) = E[(1 − e^{ε−L})₊] + P(L = ∞)."""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np
from scipy import fft as sfft
from scipy import special

from dpviz import mechanisms as _m
from dpviz._validation import check_delta, check_in_range, check_integer, check_positive
from dpviz.accountants._base import Accountant
from dpviz.accountants._laws import FiniteLaw, GaussianLaw, LaplaceLaw, SubsampledLaw, discretise
from dpviz.accountants.events import ApproxDP, PoissonSampled, PureDP, SampledWithoutReplacement, _amplify

__all__ = [
    "PLDAccountant",
    "DEFAULT_VALUE_DISCRETIZATION_INTERVAL",
    "DEFAULT_MAX_GRID_POINTS",
    "MAX_GRID_POINTS",
    "MAX_LOSS",
    "REFINE_LEVELS",
    "REFINE_MAX_POINTS",
    "REFINE_RTOL",
    "REFINE_STEPS",
    "atoms_epsilon",
    "binomial_loss_atoms",
]

#: Default grid step of the loss (see :class:`PLDAccountant`).
DEFAULT_VALUE_DISCRETIZATION_INTERVAL = 1e-4

#: Default grid-size budget of one composed privacy loss distribution (see :class:`PLDAccountant`).
DEFAULT_MAX_GRID_POINTS = 2**20

#: Largest grid-size budget accepted (2²⁴ points: a few hundred MB of FFT work arrays).
MAX_GRID_POINTS = 2**24

#: Refinement of a query's grid (see "Refinement" in :class:`PLDAccountant`): an ε below REFINE_STEPS grid steps,
#: or bounds further apart than REFINE_RTOL of the pessimistic value, ask for a grid 4× finer, at most REFINE_LEVELS
#: times (h/1024) and never beyond REFINE_MAX_POINTS points (nor max_grid_points).
REFINE_STEPS = 100.0
REFINE_RTOL = 0.01
REFINE_LEVELS = 5
REFINE_MAX_POINTS = 2**18

#: Largest privacy loss (nats) a single event's grid covers: a loss above it counts as +∞ (pessimistic: it changes
#: δ(ε) by at most P(L > MAX_LOSS)·e^{ε − MAX_LOSS}, nothing for ε ≤ 9000), a loss below −MAX_LOSS as −MAX_LOSS. Only
#: mechanisms with a pure ε₀ above 10⁴ (or Gaussians with Δ/σ above ~140) reach it; their ε is "no privacy" anyway.
MAX_LOSS = 1e4

_TAIL = 1e-30  # tail mass allowed outside an FFT window (bounded by Chernoff, accounted for pessimistically)


class _Pmf(NamedTuple):
    lo: int  # grid index of p[0]
    p: np.ndarray  # masses at (lo + i)·h
    inf: float  # mass at +∞
    err: float = 0.0  # optimistic: P-mass that may sit at a wrong place (FFT wrap-around), bounded
    pt: np.ndarray | None = None  # optimistic: Q-masses tilted by e^{index·h} (see _laws.discretise), times e^{−ls}
    ls: float = 0.0  # optimistic: ln of the scale factor of pt (kept apart: (Σ pt)^k underflows for long runs)


# -------------------------------------------------------------------------------------------------------------
# Laws of single events
# -------------------------------------------------------------------------------------------------------------


def _rr_law(eps: float, delta: float = 0.0) -> FiniteLaw:
    # randomized response / the canonical (ε, δ) pair (Kairouz, Oh & Viswanath 2015): +∞ w.p. δ, ±ε otherwise
    if eps == 0:
        return FiniteLaw([0.0], [1.0 - delta], inf_mass=delta)
    if eps == math.inf:
        return _blatant_law()
    hi = (1.0 - delta) * float(special.expit(eps))  # 1/(1 + e^{−ε}) without overflow of e^ε
    lo = (1.0 - delta) * float(special.expit(-eps))
    return FiniteLaw([-eps, eps], [lo, hi], inf_mass=delta)


def _blatant_law() -> FiniteLaw:
    """A mechanism whose neighbouring output laws are disjoint (in double precision): L = +∞ with probability 1
    (a Gaussian or Laplace with Δ/scale = ∞, a discrete mechanism whose noise is a point mass)."""
    return FiniteLaw([0.0], [0.0], inf_mass=1.0)


def _dlap_law(scale: float, sensitivity: int) -> FiniteLaw:
    from dpviz.accountants.rdp import discrete_laplace_loss

    if 1.0 / scale == math.inf:  # e^{−|k|/scale} is a point mass at 0
        return _blatant_law()
    losses, log_p = discrete_laplace_loss(scale, sensitivity)
    with np.errstate(under="ignore"):
        return FiniteLaw(losses, np.exp(log_p))


def _dgauss_law(sigma: float, sensitivity: int) -> FiniteLaw:
    # P = DG(0, σ²), Q = DG(Δ, σ²): L(k) = (Δ² − 2kΔ)/(2σ²). Support truncated to |k| ≤ 12σ + Δ + 2 (mass outside
    # < 1e-31), normalised on the truncated support. For σ so small that 1/σ overflows the noise is a point mass
    # at 0 and the two laws are disjoint.
    if 1.0 / sigma == math.inf:
        return _blatant_law()
    d = int(sensitivity)
    kmax = int(math.ceil(12.0 * sigma)) + d + 2
    k = np.arange(-kmax, kmax + 1, dtype=float)
    with np.errstate(over="ignore", under="ignore"):
        logw = -0.5 * (k / sigma) ** 2
        p = np.exp(logw - special.logsumexp(logw))
        losses = 0.5 * (d / sigma) * ((d - 2.0 * k) / sigma)  # may overflow to ±∞ for a tiny σ: then p = 0 there
    return FiniteLaw(losses, p)


def _tdlap_law(eps: float, kappa: int) -> FiniteLaw:
    # Definition 8 of 000: P ∝ e^{−ε|x−κ|} on {0..2κ}, Q the same shifted by 1 (sensitivity 1).
    # L = +∞ at x = 0, +ε for 1 ≤ x ≤ κ, −ε for κ+1 ≤ x ≤ 2κ.
    x = np.arange(0, 2 * kappa + 1)
    with np.errstate(over="ignore", under="ignore"):
        w = np.exp(-eps * np.abs(x - kappa))
    w = w / w.sum()
    return FiniteLaw([eps, -eps], [w[1 : kappa + 1].sum(), w[kappa + 1 :].sum()], inf_mass=float(w[0]))


def _gaussian_law(rho: float):
    """The Gaussian law with loss mean ρ = Δ²/(2σ²) (ρ = ∞: disjoint laws; ρ = 0, Δ/σ underflowed: identical
    laws, L = 0)."""
    if rho == 0.0:
        return FiniteLaw([0.0], [1.0])
    return _blatant_law() if rho == math.inf else GaussianLaw(rho)


def _base_law(event: Any):
    """The symmetric law of one run of a non-subsampled event, or None."""
    if isinstance(event, _m.Gaussian):
        return _gaussian_law(event.rho)
    if isinstance(event, _m.Laplace):
        e0 = event.sensitivity / event.scale
        return _blatant_law() if e0 == math.inf else LaplaceLaw(e0)
    if isinstance(event, _m.RandomizedResponse):
        return _rr_law(float(event.epsilon))
    if isinstance(event, PureDP):
        return _rr_law(event.epsilon)
    if isinstance(event, ApproxDP):
        return _rr_law(event.epsilon, event.delta)
    if isinstance(event, _m.DiscreteLaplace):
        return _dlap_law(event.scale, event.sensitivity)
    if isinstance(event, _m.DiscreteGaussian):
        return _dgauss_law(event.sigma, event.sensitivity)
    if isinstance(event, _m.TruncatedDiscreteLaplace):
        return _tdlap_law(float(event.epsilon), int(event.kappa))
    return None


def _fixed_pair(event: Any):
    if isinstance(event, PureDP):
        return event.epsilon, 0.0
    if isinstance(event, ApproxDP):
        return event.epsilon, event.delta
    if isinstance(event, (_m.Laplace, _m.RandomizedResponse, _m.DiscreteLaplace)):
        return float(event.pure_epsilon), 0.0
    if isinstance(event, _m.TruncatedDiscreteLaplace):
        return float(event.epsilon), float(event.delta)
    return None


def _capped(laws):
    """Restrict the laws' ranges to [−MAX_LOSS, MAX_LOSS]: :func:`~dpviz.accountants._laws.discretise` then moves
    the mass above the range to +∞ and rounds the mass below it up to −MAX_LOSS on the pessimistic side, and keeps it
    at the range ends on the optimistic side, so both bounds stay valid."""
    if laws is None:
        return None
    for law in {id(x): x for x in laws}.values():
        law.lo = min(max(law.lo, -MAX_LOSS), MAX_LOSS)
        law.hi = min(max(law.hi, law.lo), MAX_LOSS)
    return laws


def _event_laws(event: Any):
    """(law for the 'remove' direction, law for the 'add' direction), or None if unsupported; ranges capped at
    ±MAX_LOSS (:func:`_capped`)."""
    return _capped(_uncapped_laws(event))


def _uncapped_laws(event: Any):
    if isinstance(event, PoissonSampled):
        base = _base_law(event.mechanism)
        if base is None:
            return None
        if event.rate == 1.0:
            return base, base
        return SubsampledLaw(base, event.rate, "remove"), SubsampledLaw(base, event.rate, "add")
    if isinstance(event, SampledWithoutReplacement):
        pair = _fixed_pair(event.mechanism)
        if pair is None:
            return None
        eps, d = _amplify(pair[0], pair[1], event.eta)
        law = _rr_law(eps, d)
        return law, law
    law = _base_law(event)
    return None if law is None else (law, law)


# -------------------------------------------------------------------------------------------------------------
# Composition on the grid
# -------------------------------------------------------------------------------------------------------------


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
    return atoms_epsilon((pmf.lo + np.arange(pmf.p.size)) * h, pmf.p, pmf.inf, delta)


def _gauss(mu: float):
    """The Gaussian mechanism with Δ/σ = μ (written with σ = 1, Δ = μ, so that every μ ∈ (0, ∞) is representable;
    μ = 0: identical laws, μ = ∞: disjoint ones)."""
    if mu == 0.0:
        return _m.Gaussian(1.0, 5e-324)  # Δ/σ rounds to 0: the mechanism answers ε = 0, δ = 0
    if mu == math.inf:
        return _m.Gaussian(5e-324, 1.0)  # Δ/σ = ∞: ε = ∞, δ = 1
    return _m.Gaussian(1.0, mu)


class PLDAccountant(Accountant):
    """Privacy loss distribution accountant: tight (ε, δ) for any composition, with its own error bar.

    Each event's privacy loss L = ln(P(o)/Q(o)) is put on the grid {i·h} twice: a **pessimistic** PLD by "connect
    the dots" (Doroshenko et al. 2022; a dominating pair, second-order error in h) and an **optimistic** one from a
    hypothesis test: outcomes are bucketed by their loss rounded down, the exact P- and Q-masses of each bucket are
    composed, and δ(ε) ≥ max_τ P(S_τ) − e^ε Q(S_τ) for the tests S_τ = {Σ bucket indices > τ} (Neyman–Pearson;
    see :func:`dpviz.accountants._laws.discretise`). The threshold τ absorbs the rounding shift, so this bound is
    also second order — unlike rounding the losses down ("privacy buckets", Meiser & Mohammadi 2018), which is
    ≈ k·h/2 low after k compositions. Runs of the same event are composed by ONE FFT self-composition (the
    characteristic function raised to the power k; Koskela, Jälkö & Honkela 2020) on a window sized by a Chernoff
    bound optimised over λ (≈ 23.5 standard deviations of the summed loss around its mean k·E[L]: it grows like
    √k, not like k·max|L|); different events by FFT convolution. FFT round-off (an absolute error of the same size
    in every bin, estimated from the negative values it leaves) is added to the upper side and removed from the lower
    side. :meth:`epsilon` and :meth:`delta` return the pessimistic (upper) values; :meth:`epsilon_bounds` and
    :meth:`delta_bounds` return ``(optimistic, pessimistic)``, with the exact answer in between, both from the
    same grid (so every query computes both sides: that is how it knows its error).

    **Grid budget.** The grid step is h = ``value_discretization_interval`` unless the composed window (or the loss
    range of one event) would need more than ``max_grid_points`` points; then h is coarsened to
    (width)/``max_grid_points`` (:attr:`effective_interval`), so one ε query stays well under a second for any
    k ≤ 10⁵. Both bounds stay valid; the bracket widens, roughly quadratically in h. Measured at δ = 1e-5 with the default budget 2²⁰: 10⁵
    Laplace(b = 10) steps (h ≈ 7e-4): 615.327 … 615.334; 10⁵ Poisson-subsampled Gaussians (q = 0.01, σ = 1.1):
    21.0894 … 21.0897; 1000 of them (h = 1e-4): 1.51536 … 1.51537. With a budget of 2¹⁶ the first bracket is
    615.27 … 615.57 (0.05 %).

    **Refinement.** The grid is refined per query, so that a small answer is not dominated by the grid: while the
    ε involved (the pessimistic answer of an ε query, the ε asked about for a δ query) is below
    :data:`REFINE_STEPS` = 100 grid steps, or the two bounds differ by more than :data:`REFINE_RTOL` = 1 % of the
    pessimistic one, the query is answered again on a grid 4× finer (straight to h ≤ ε/100 when ε is the reason).
    Refinement stops after :data:`REFINE_LEVELS` = 5 levels (h/1024), before a grid would exceed
    min(``max_grid_points``, :data:`REFINE_MAX_POINTS` = 2¹⁸) points, and as soon as a level fails to halve the gap
    between the bounds (FFT round-off or the truncated tails set it, not the grid). Every level is cached, so a
    curve of queries pays for each level once, and typical queries (ε ≫ 100 h, bounds within 1 %) are never
    refined. Example: 50 Poisson-subsampled Gaussians (q = 0.001, σ = 2.654) at δ = 1e-3 have ε = 2.1256e-4, about
    two steps of the default grid, whose bounds 2.0592e-4 … 2.2562e-4 are 9.6 % apart; refined to h = 1.5625e-6 they
    are 2.125540e-4 … 2.125588e-4. :attr:`last_interval` reports the step the last query used.

    **Very large losses.** A single event's loss range is capped at ±:data:`MAX_LOSS` = 10⁴ nats: mass above it
    counts as +∞ and mass below it as −10⁴ (pessimistic; δ(ε) changes by at most P(L > 10⁴)·e^{ε − 10⁴}). Only
    mechanisms with ε₀ > 10⁴ reach it; neighbouring laws that are disjoint in double precision (Δ/σ = ∞) give L = +∞.

    **Exact answers without a grid.** A ledger of Gaussians only is answered in closed form (below). A ledger of k
    runs of ONE two-atom mechanism — randomized response, ``PureDP``, ``ApproxDP`` (plus its +∞ atom), the discrete
    Laplace with Δ = 1, the truncated discrete Laplace, fixed-size sampling of a pure/approximate event — is answered
    from its exact binomial law (:func:`binomial_loss_atoms`); both bounds are then equal to the exact value.

    All Gaussian mechanisms of the ledger are merged exactly first: k Gaussians are one Gaussian with
    σ_eff = (Σ Δ_i²/σ_i²)^{−1/2} (Dong, Roth & Su 2022, Corollary 3.3), so a ledger of Gaussians only is answered
    in closed form, δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), μ = 1/σ_eff (Balle & Wang 2018, Theorem 8), with
    no discretisation at all (both bounds equal the exact value).

    Supported events: Gaussian, Laplace, randomized response, discrete Laplace, discrete Gaussian, truncated
    discrete Laplace (exact loss laws); ``PureDP`` and ``ApproxDP`` through their worst case (randomized response,
    plus an atom δ at +∞; Kairouz, Oh & Viswanath 2015); ``PoissonSampled`` of any of these (add/remove; the
    dominating pairs ((1−q)Q + qP, Q) and (Q, (1−q)Q + qP), both directions tracked, the larger δ reported, as in
    dp-accounting); ``SampledWithoutReplacement`` of a pure or (ε, δ) event (replace-one; Theorem 7 of 000 gives an
    (ε′, δ′) pair, composed through its worst case). ``ZCDP`` has no PLD and is refused.

    Neighbouring relation: the mechanisms' sensitivity is that of the chosen relation (see
    :mod:`dpviz.accountants.events`), so e.g. dp-accounting's replace-one ``GaussianDpEvent(σ)`` is
    ``Gaussian(σ, sensitivity=2)`` here. The relation decides which sampling events are accepted.

    Parameters
    ----------
    neighboring : {"add_remove", "replace_one"}
    value_discretization_interval : float in (0, 1], default 1e-4
        Finest grid step h of the loss before refinement (dp-accounting's default too). With connect-the-dots the
        pessimistic ε for 1000 Poisson-subsampled Gaussian steps (q = 0.01, σ = 1.1, δ = 1e-5) is within 1e-5
        relative of the exact value; h = 1e-3 is several times faster and still within 1e-3.
    max_grid_points : int in [1024, :data:`MAX_GRID_POINTS` = 2**24], default 2**20
        Grid-size budget of one composed distribution (see "Grid budget").

    Examples
    --------
    >>> from dpviz.mechanisms import Gaussian
    >>> from dpviz.accountants import PLDAccountant
    >>> a = PLDAccountant().compose(Gaussian(2.0), count=4)   # = one Gaussian with σ = 1
    >>> round(a.epsilon(1e-5), 6) == round(PLDAccountant().compose(Gaussian(1.0)).epsilon(1e-5), 6)
    True
    """

    name = "pld"

    def __init__(self, neighboring: str = "add_remove",
                 value_discretization_interval: float = DEFAULT_VALUE_DISCRETIZATION_INTERVAL, *,
                 max_grid_points: int = DEFAULT_MAX_GRID_POINTS):
        super().__init__(neighboring)
        self._h = check_in_range(value_discretization_interval, "value_discretization_interval", 0.0, 1.0,
                                 low_inclusive=False)
        self._max_points = check_integer(max_grid_points, "max_grid_points", minimum=1024, maximum=MAX_GRID_POINTS)
        self._cache = None
        self._h_eff = None
        self._span = 0.0
        self._h_last = 0.0

    @property
    def value_discretization_interval(self) -> float:
        """The requested grid step h (the finest one used; see :attr:`effective_interval`)."""
        return self._h

    @property
    def max_grid_points(self) -> int:
        """The grid-size budget of one composition (see the class docstring)."""
        return self._max_points

    @property
    def effective_interval(self) -> float:
        """The grid step actually used for the current ledger: h, or the coarser step that keeps the composed
        loss window within :attr:`max_grid_points` points; 0.0 when the ledger is answered exactly (Gaussians
        only, or one two-atom mechanism such as randomized response) and no grid is used."""
        if not self._ledger or self._gaussian_only() is not None or self._binomial() is not None:
            return 0.0
        return self._grid_step()

    def _reason(self, event: Any) -> str | None:
        if _event_laws(event) is None:
            return (
                "it has no privacy loss distribution here (ZCDP has none; fixed-size sampling needs a pure or "
                "(epsilon, delta) mechanism)"
            )
        return None

    def _changed(self) -> None:
        self._cache = None
        self._h_eff = None

    # -- composition ------------------------------------------------------------------------------------------
    def _gaussian_only(self):
        """μ_eff = (Σ k_i Δ_i²/σ_i²)^{1/2} if every event is a plain Gaussian (0 and ∞ included, when the ratios
        under- or overflow), else None."""
        mu2 = 0.0
        for ev, k in self._ledger:
            if not isinstance(ev, _m.Gaussian):
                return None
            mu2 += k * ev.mu * ev.mu
        return math.sqrt(mu2)

    def _binomial(self):
        """(loss, ln r₊, ln r₋, k, p_∞) when the ledger is k runs of ONE event whose privacy loss takes two values ±loss
        (plus possibly +∞), in both directions: randomized response, ``PureDP``, ``ApproxDP``, discrete Laplace
        with Δ = 1, the truncated discrete Laplace, fixed-size sampling of a pure/approximate event. Its k-fold
        composition is an exact binomial law (:func:`binomial_loss_atoms`). Else None."""
        merged = self._merged_ledger()
        if len(merged) != 1:
            return None
        ev, k = merged[0]
        laws = _event_laws(ev)
        if laws is None or laws[0] is not laws[1] or not isinstance(laws[0], FiniteLaw):
            return None
        law = laws[0]
        if law.losses.size != 2 or law.losses[0] != -law.losses[1]:
            return None
        with np.errstate(divide="ignore"):
            lm, lp = np.log(law.masses) - math.log(float(np.sum(law.masses)))  # conditional on a finite loss
        return float(law.losses[1]), float(lp), float(lm), k, law.inf_mass

    def _items(self):
        """[(law_remove, law_add, count)] with all Gaussians merged into one (count 1), and the directions."""
        gauss_rho = 0.0
        groups: list[tuple[Any, int]] = []
        for ev, k in self._merged_ledger():
            if isinstance(ev, _m.Gaussian):
                gauss_rho += k * ev.rho
            else:
                groups.append((ev, k))
        items = []
        if gauss_rho > 0:
            (g,) = _capped((_gaussian_law(gauss_rho),))
            items.append((g, g, 1))
        for ev, k in groups:
            lr, la = _event_laws(ev)
            items.append((lr, la, k))
        symmetric = all(lr is la for lr, la, _ in items)
        return items, (("remove",) if symmetric else ("remove", "add"))

    def _grid_step(self) -> float:
        """h, or the step S / max_grid_points when the span S would need more points than the budget: S is the
        larger of the composed window (sum of the Chernoff windows of the k-fold compositions,
        :func:`_chernoff_window`, estimated on a coarse pessimistic grid) and the widest single-event loss range
        (each event's own grid covers its range). The span also caps the refinement (:meth:`_levels`)."""
        if self._h_eff is None:
            items, directions = self._items()
            width = span = 0.0
            for direction in directions:
                w = 0.0
                for lr, la, k in items:
                    law = lr if direction == "remove" else la
                    span = max(span, law.hi - law.lo)
                    hc = max(self._h, (law.hi - law.lo) / 2048.0, 1e-12)
                    lo, p, _ = discretise(law, hc, True)
                    nz = np.flatnonzero(p > 0)
                    if nz.size == 0:
                        continue
                    l = (lo + nz) * hc
                    if k == 1:
                        w += float(l[-1] - l[0]) + 2 * hc
                    else:
                        t_lo, t_hi = _chernoff_window(l, p[nz], k)
                        w += t_hi - t_lo + 2 * hc
                width = max(width, w)
            self._span = max(width, span)  # a single event's grid is as long as its (capped) loss range
            self._h_eff = max(self._h, self._span / self._max_points)
        return self._h_eff

    def _levels(self) -> list[float]:
        """The grid steps a query may use: h_eff, h_eff/4, h_eff/16, … — at most :data:`REFINE_LEVELS` refinements
        (h_eff/1024), and only while the finer grid keeps the composed window and every single-event range within
        min(max_grid_points, :data:`REFINE_MAX_POINTS`) points."""
        h0 = self._grid_step()
        cap = min(self._max_points, REFINE_MAX_POINTS)
        out = [h0]
        for _ in range(REFINE_LEVELS):
            h = out[-1] / 4.0
            if self._span == 0.0 or h == 0.0 or self._span / h > cap:  # (span 0: nothing to resolve)
                break
            out.append(h)
        return out

    def _composed(self, pessimistic: bool, h: float | None = None):
        """{direction: pmf} for the pessimistic or optimistic side on the grid of step ``h`` (default: the base
        step :meth:`_grid_step`; computed lazily, cached until the next compose); directions 'remove' and 'add',
        or only 'remove' when every event is symmetric."""
        if self._cache is None:
            self._cache = {}
        if h is None:
            h = self._grid_step()
        key = (pessimistic, h)
        if key in self._cache:
            return self._cache[key]
        items, directions = self._items()
        out = {}
        for direction in directions:
            acc = None
            for lr, la, k in items:
                law = lr if direction == "remove" else la
                d = discretise(law, h, pessimistic)
                pmf = _Pmf(d[0], d[1], d[2]) if pessimistic else _Pmf(d[0], d[1], d[2], 0.0, d[3])
                pmf = _self_compose(pmf, k, h, pessimistic)
                acc = pmf if acc is None else _compose_two(acc, pmf, pessimistic)
            out[direction] = acc
        self._cache[key] = out
        return out

    # -- queries ----------------------------------------------------------------------------------------------
    @property
    def last_interval(self) -> float:
        """The grid step used by the most recent ε/δ query: :attr:`effective_interval`, or a finer one when that
        query was refined (see "Refinement" in the class docstring); 0.0 before any query and for exact ledgers."""
        return self._h_last

    def epsilon_bounds(self, delta: float) -> tuple[float, float]:
        """``(optimistic, pessimistic)`` ε at δ ∈ (0, 1): the exact ε lies in between."""
        delta = check_delta(delta, allow_zero=False)
        return self._eps_pair(delta)

    def delta_bounds(self, epsilon: float) -> tuple[float, float]:
        """``(optimistic, pessimistic)`` δ at ε ≥ 0: the exact δ lies in between."""
        epsilon = check_positive(epsilon, "epsilon", allow_zero=True)
        return self._delta_pair(epsilon)

    def _exact_atoms(self):
        if self._cache is None:
            self._cache = {}
        if "binomial" not in self._cache:
            b = self._binomial()
            self._cache["binomial"] = None if b is None else binomial_loss_atoms(*b)
        return self._cache["binomial"]

    def _exact_eps(self, delta: float) -> float | None:
        """ε without a grid (Gaussians only, or one two-atom mechanism), else None."""
        mu = self._gaussian_only()
        if mu is not None:
            return _gauss(mu).epsilon(delta)
        atoms = self._exact_atoms()
        if atoms is not None:
            losses, log_p, inf = atoms
            return atoms_epsilon(losses, None, inf, delta, log_probs=log_p)
        return None

    def _exact_delta(self, epsilon: float) -> float | None:
        mu = self._gaussian_only()
        if mu is not None:
            return float(_gauss(mu).delta(epsilon))
        atoms = self._exact_atoms()
        if atoms is not None:
            losses, log_p, inf = atoms
            m = losses > epsilon
            return min(1.0, inf + float(np.sum(np.exp(log_p[m]) * -np.expm1(epsilon - losses[m]))))
        return None

    def _refined(self, query, value: float) -> tuple[float, float]:
        """(optimistic, pessimistic) answer of ``query(value, pessimistic, h)`` on the coarsest grid of
        :meth:`_levels` that is fine enough: a query is refined (h → h/4, or straight to the level with
        h ≤ ε/100) while ε < 100·h (ε the pessimistic answer of an ε query, or the ε asked about) or the two bounds
        differ by more than :data:`REFINE_RTOL` of the pessimistic one; it stops at the last level, or when a
        refinement did not at least halve the gap between the bounds (then FFT round-off or the truncated tails,
        not the grid, set it)."""
        levels = self._levels()
        j, prev_gap = 0, math.inf
        while True:
            h = levels[j]
            pess, opt = query(value, True, h), query(value, False, h)
            opt = min(opt, pess)
            self._h_last = h
            eps = pess if query == self._eps_at else value
            coarse = 0.0 < eps < REFINE_STEPS * h
            gap = pess - opt
            loose = math.isfinite(pess) and gap > REFINE_RTOL * pess
            if j + 1 >= len(levels) or not (coarse or loose) or (not coarse and gap > 0.5 * prev_gap):
                return opt, pess
            prev_gap = gap
            if coarse:  # straight to the first level with ε ≥ 100 h (at least one level down)
                steps = math.log(min(REFINE_STEPS * h / eps, 4.0 ** len(levels)), 4.0)
                j = max(j + 1, min(len(levels) - 1, j + math.ceil(steps)))
            else:
                j += 1

    def _eps_pair(self, delta: float) -> tuple[float, float]:
        if not self._ledger:
            return 0.0, 0.0
        exact = self._exact_eps(delta)
        if exact is not None:
            self._h_last = 0.0
            return exact, exact
        return self._refined(self._eps_at, delta)

    def _delta_pair(self, epsilon: float) -> tuple[float, float]:
        if not self._ledger:
            return 0.0, 0.0
        exact = self._exact_delta(epsilon)
        if exact is not None:
            self._h_last = 0.0
            return exact, exact
        return self._refined(self._delta_at, epsilon)

    def _eps_at(self, delta: float, pessimistic: bool, h: float) -> float:
        comp = self._composed(pessimistic, h)
        return max(_pmf_epsilon(v, h, delta, pessimistic) for v in comp.values())

    def _delta_at(self, epsilon: float, pessimistic: bool, h: float) -> float:
        comp = self._composed(pessimistic, h)
        key = ("tables", pessimistic, h)
        if key not in self._cache:
            n_steps = sum(k for _, _, k in self._items()[0])
            self._cache[key] = [_DeltaTable(v, h, pessimistic, n_steps) for v in comp.values()]
        return max(t.delta(epsilon) for t in self._cache[key])

    def _eps_side(self, delta: float, pessimistic: bool) -> float:
        return self._eps_pair(delta)[1 if pessimistic else 0]

    def _delta_side(self, epsilon: float, pessimistic: bool) -> float:
        return self._delta_pair(epsilon)[1 if pessimistic else 0]

    def _epsilon(self, delta: float) -> float:
        return self._eps_pair(delta)[1]

    def _delta(self, epsilon: float) -> float:
        return self._delta_pair(epsilon)[1]
