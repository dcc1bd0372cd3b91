"""Privacy loss distribution (PLD) accounting: the privacy loss of a composition is the sum of the independent
losses, so its distribution is the convolution of the per-mechanism PLDs (Dwork & Rothblum 2016; Sommer, Meiser &
Mohammadi 2019; Koskela, Jälkö & Honkela 2020 for the FFT), and δ(ε) = E[(1 − e^{ε−L})₊] + P(L = ∞)."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from scipy import fft as sfft
from scipy import special

from dpviz import mechanisms as _m
from dpviz._validation import check_delta, check_positive
from dpviz.accountants._base import Accountant
from dpviz.accountants._laws import FiniteLaw, GaussianLaw, LaplaceLaw, SubsampledLaw, discretise
from dpviz.accountants.events import ApproxDP, PoissonSampled, PureDP, SampledWithoutReplacement, _amplify

__all__ = ["PLDAccountant", "DEFAULT_VALUE_DISCRETIZATION_INTERVAL", "atoms_epsilon"]

#: Default grid step of the loss (see :class:`PLDAccountant`).
DEFAULT_VALUE_DISCRETIZATION_INTERVAL = 1e-4

_TAIL = 1e-30  # tail mass allowed outside an FFT window (bounded by Chernoff, accounted for pessimistically)
_LAMBDAS = np.array([0.25, 1.0, 4.0, 16.0, 64.0])


class _Pmf(NamedTuple):
    lo: int  # grid index of p[0]
    p: np.ndarray  # masses at (lo + i)·h
    inf: float  # mass at +∞
    err: float = 0.0  # mass that may sit at a wrong place (FFT wrap-around), bounded


# -------------------------------------------------------------------------------------------------------------
# Laws of single events
# -------------------------------------------------------------------------------------------------------------


def _rr_law(eps: float, delta: float = 0.0) -> FiniteLaw:
    # randomized response / the canonical (ε, δ) pair (Kairouz, Oh & Viswanath 2015): +∞ w.p. δ, ±ε otherwise
    if eps == 0:
        return FiniteLaw([0.0], [1.0 - delta], inf_mass=delta)
    hi = (1.0 - delta) / (1.0 + math.exp(-eps))
    lo = (1.0 - delta) / (1.0 + math.exp(eps))
    return FiniteLaw([-eps, eps], [lo, hi], inf_mass=delta)


def _dlap_law(scale: float, sensitivity: int) -> FiniteLaw:
    from dpviz.accountants.rdp import discrete_laplace_loss

    losses, log_p = discrete_laplace_loss(scale, sensitivity)
    return FiniteLaw(losses, np.exp(log_p))


def _dgauss_law(sigma: float, sensitivity: int) -> FiniteLaw:
    # P = DG(0, σ²), Q = DG(Δ, σ²): L(k) = (Δ² − 2kΔ)/(2σ²). Support truncated to |k| ≤ 12σ + Δ + 2 (mass outside
    # < 1e-31), normalised on the truncated support.
    d = int(sensitivity)
    kmax = int(math.ceil(12.0 * sigma)) + d + 2
    k = np.arange(-kmax, kmax + 1, dtype=float)
    logw = -(k * k) / (2.0 * sigma * sigma)
    p = np.exp(logw - special.logsumexp(logw))
    return FiniteLaw((d * d - 2.0 * k * d) / (2.0 * sigma * sigma), p)


def _tdlap_law(eps: float, kappa: int) -> FiniteLaw:
    # Definition 8 of 000: P ∝ e^{−ε|x−κ|} on {0..2κ}, Q the same shifted by 1 (sensitivity 1).
    # L = +∞ at x = 0, +ε for 1 ≤ x ≤ κ, −ε for κ+1 ≤ x ≤ 2κ.
    x = np.arange(0, 2 * kappa + 1)
    w = np.exp(-eps * np.abs(x - kappa))
    w = w / w.sum()
    return FiniteLaw([eps, -eps], [w[1 : kappa + 1].sum(), w[kappa + 1 :].sum()], inf_mass=float(w[0]))


def _base_law(event: Any):
    """The symmetric law of one run of a non-subsampled event, or None."""
    if isinstance(event, _m.Gaussian):
        return GaussianLaw(event.sensitivity**2 / (2.0 * event.sigma**2))
    if isinstance(event, _m.Laplace):
        return LaplaceLaw(event.sensitivity / event.scale)
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


def _event_laws(event: Any):
    """(law for the 'remove' direction, law for the 'add' direction), or None if unsupported."""
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


def _window(pmf: _Pmf, k: int, h: float) -> tuple[int, int]:
    """Grid-index window [w_lo, w_hi] holding all but ≤ _TAIL of the k-fold composition on each side, from the
    Chernoff bound P(ΣL ≥ T) ≤ exp(k·K(λ) − λT), K(λ) = ln Σ p_i e^{λ l_i}."""
    nz = np.flatnonzero(pmf.p > 0)
    l = (pmf.lo + nz) * h
    p = pmf.p[nz]
    log_tail = math.log(_TAIL)
    lam = _LAMBDAS[:, None]
    mp = np.max(l) * _LAMBDAS  # shifts so that exp() cannot overflow
    mm = -np.min(l) * _LAMBDAS
    kp = np.log(np.exp(lam * l[None, :] - mp[:, None]) @ p) + mp
    km = np.log(np.exp(-lam * l[None, :] - mm[:, None]) @ p) + mm
    t_hi = float(np.min((k * kp - log_tail) / _LAMBDAS))
    t_lo = float(np.max(-(k * km - log_tail) / _LAMBDAS))
    full_lo, full_hi = k * pmf.lo, k * (pmf.lo + pmf.p.size - 1)
    w_lo = max(full_lo, math.floor(t_lo / h))
    w_hi = min(full_hi, math.ceil(t_hi / h))
    return w_lo, max(w_hi, w_lo)


def _self_compose(pmf: _Pmf, k: int, h: float, pessimistic: bool) -> _Pmf:
    """k-fold convolution power by ONE FFT: the characteristic function raised to the k-th power
    (Koskela, Jälkö & Honkela 2020), on a cyclic window sized by a Chernoff bound."""
    if k == 1:
        return pmf
    inf_k = -math.expm1(k * math.log1p(-pmf.inf)) if pmf.inf < 1 else 1.0
    w_lo, w_hi = _window(pmf, k, h)
    n = sfft.next_fast_len(max(w_hi - w_lo + 1, pmf.p.size), real=True)
    with np.errstate(all="ignore"):
        spec = sfft.rfft(pmf.p, n) ** k
    r = sfft.irfft(spec, n)
    shift = (w_lo - k * pmf.lo) % n
    r = np.roll(r, -shift)
    r = np.maximum(r, 0.0)
    if pessimistic:
        return _Pmf(w_lo, r, inf_k + 2 * _TAIL, 0.0)
    return _Pmf(w_lo, r, inf_k, 2 * _TAIL)


def _trim(p: np.ndarray, lo: int, inf: float, pessimistic: bool) -> _Pmf:
    # drop/move negligible tails (≤ _TAIL each side): pessimistically the top goes to +∞ and the bottom up to the
    # first kept point; optimistically the top comes down to the last kept point and the bottom is dropped.
    c = np.cumsum(p)
    total = c[-1]
    i0 = int(np.searchsorted(c, _TAIL, side="right"))
    i1 = int(np.searchsorted(c, total - _TAIL, side="left"))
    i1 = max(min(i1, p.size - 1), i0)
    q = p[i0 : i1 + 1].copy()
    below = c[i0 - 1] if i0 > 0 else 0.0
    above = total - c[i1]
    if pessimistic:
        q[0] += below
        inf += max(above, 0.0)
    else:
        q[-1] += max(above, 0.0)
    return _Pmf(lo + i0, q, inf)


def _compose_two(a: _Pmf, b: _Pmf, pessimistic: bool) -> _Pmf:
    n = a.p.size + b.p.size - 1
    nf = sfft.next_fast_len(n, real=True)
    r = sfft.irfft(sfft.rfft(a.p, nf) * sfft.rfft(b.p, nf), nf)[:n]
    r = np.maximum(r, 0.0)
    inf = 1.0 - (1.0 - a.inf) * (1.0 - b.inf)
    out = _trim(r, a.lo + b.lo, inf, pessimistic)
    return out._replace(err=a.err + b.err)


def _pmf_delta(pmf: _Pmf, h: float, eps: float, pessimistic: bool) -> float:
    """δ(ε) = P(L = ∞) + Σ_{l_i > ε} p_i (1 − e^{ε − l_i})."""
    l = (pmf.lo + np.arange(pmf.p.size)) * h
    m = l > eps
    val = pmf.inf + float(np.sum(pmf.p[m] * -np.expm1(eps - l[m])))
    if not pessimistic:
        val -= pmf.err
    return min(1.0, max(0.0, val))


def atoms_epsilon(losses: np.ndarray, probs: np.ndarray, inf_mass: float, delta: float) -> float:
    """Smallest ε ≥ 0 with δ(ε) = inf_mass + Σ_{l_i > ε} p_i (1 − e^{ε − l_i}) ≤ delta, for atoms at sorted
    ``losses``; solved exactly: between consecutive atoms δ(ε) = inf_mass + A − e^ε B is explicit. ``math.inf`` if
    inf_mass ≥ delta."""
    if inf_mass >= delta:
        return math.inf
    keep = probs > 0
    losses, probs = losses[keep], probs[keep]
    if losses.size == 0:
        return 0.0
    # suffix sums (from the top, small terms first): A_j = Σ_{i ≥ j} p_i, B_j = Σ_{i ≥ j} p_i e^{−l_i}
    # (p_i e^{−l_i} is a Q-probability, so it cannot overflow for a valid distribution)
    a_suf = np.concatenate([np.cumsum(probs[::-1])[::-1], [0.0]])
    with np.errstate(over="ignore", divide="ignore"):
        b_suf = np.concatenate([np.cumsum(np.exp(np.log(probs) - losses)[::-1])[::-1], [0.0]])
        # δ at ε = l_j (atoms with i > j count): inf + A_{j+1} − e^{l_j} B_{j+1}; non-increasing in j
        d_at = inf_mass + a_suf[1:] - np.exp(np.log(b_suf[1:]) + losses)
    d0 = inf_mass + float(np.sum(np.where(losses > 0, probs * -np.expm1(np.minimum(-losses, 0.0)), 0.0)))
    if d0 <= delta:
        return 0.0
    ok = np.flatnonzero(d_at <= delta)
    j = int(ok[0]) if ok.size else losses.size - 1  # δ(l_j) ≤ delta < δ(l_{j−1})
    # on (l_{j−1}, l_j]: the atoms with l_i > ε are i ≥ j, so δ(ε) = inf + A_j − e^ε B_j
    if b_suf[j] <= 0:
        return max(0.0, float(losses[j - 1]) if j > 0 else 0.0)
    eps = math.log(max(inf_mass + a_suf[j] - delta, 1e-300) / b_suf[j])
    lo = float(losses[j - 1]) if j > 0 else -math.inf
    eps = min(max(eps, lo), float(losses[j]))
    return max(0.0, eps)


def _pmf_epsilon(pmf: _Pmf, h: float, delta: float, pessimistic: bool) -> float:
    """Smallest ε ≥ 0 with δ(ε) ≤ delta for the grid distribution (the optimistic side first removes the
    wrap-around allowance ``err``)."""
    target = delta + (0.0 if pessimistic else pmf.err)
    nz = np.flatnonzero(pmf.p > 0)
    if nz.size == 0:
        return 0.0 if pmf.inf < target else math.inf
    return atoms_epsilon((pmf.lo + nz) * h, pmf.p[nz], pmf.inf, target)


class PLDAccountant(Accountant):
    """Privacy loss distribution accountant: tight (ε, δ) for any composition, with its own error bar.

    Each event's privacy loss L = ln(P(o)/Q(o)) is put on the grid {i·h}, h = ``value_discretization_interval``,
    twice: a **pessimistic** PLD by "connect the dots" (Doroshenko et al. 2022; second-order error) and an
    **optimistic** one by rounding down ("privacy buckets", Meiser & Mohammadi 2018; first-order error, ≈ h/2 per
    composition). Runs of the same event are composed by ONE FFT self-composition (the characteristic function
    raised to the power k, on a window sized by a Chernoff bound), different events by FFT convolution (Koskela,
    Jälkö & Honkela 2020); δ(ε) = P(L = ∞) + E[(1 − e^{ε−L})₊] is then evaluated exactly on the grid.
    :meth:`epsilon` and :meth:`delta` return the pessimistic (upper) values; :meth:`epsilon_bounds` and
    :meth:`delta_bounds` return ``(optimistic, pessimistic)``, with the exact answer in between.

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
    value_discretization_interval : float, default 1e-4
        Grid step h of the loss (dp-accounting's default too). With connect-the-dots the pessimistic ε for 1000
        Poisson-subsampled Gaussian steps (q = 0.01, σ = 1.1, δ = 1e-5) is within 1e-5 relative of the exact
        value; h = 1e-3 is about ten times faster and still within 1e-3. The optimistic bound is first order,
        ≈ k·h/2 below (0.05 in that example); decrease h for a narrower error bar.

    Examples
    --------
    >>> from dpviz.mechanisms import Gaussian
    >>> from dpviz.accountants import PLDAccountant
    >>> a = PLDAccountant().compose(Gaussian(2.0), count=4)   # = one Gaussian with σ = 1
    >>> round(a.epsilon(1e-5), 6) == round(PLDAccountant().compose(Gaussian(1.0)).epsilon(1e-5), 6)
    True
    """

    name = "pld"

    def __init__(self, neighboring: str = "add_remove", value_discretization_interval: float = DEFAULT_VALUE_DISCRETIZATION_INTERVAL):
        super().__init__(neighboring)
        self._h = check_positive(value_discretization_interval, "value_discretization_interval")
        self._cache = None

    @property
    def value_discretization_interval(self) -> float:
        """The grid step h."""
        return self._h

    def _reason(self, event: Any) -> str | None:
        if _event_laws(event) is None:
            return (
                "it has no privacy loss distribution here (ZCDP has none; fixed-size sampling needs a pure or "
                "(epsilon, delta) mechanism)"
            )
        return None

    def _changed(self) -> None:
        self._cache = None

    # -- composition ------------------------------------------------------------------------------------------
    def _gaussian_only(self):
        """σ_eff if every event is a plain Gaussian, else None."""
        inv = 0.0
        for ev, k in self._ledger:
            if not isinstance(ev, _m.Gaussian):
                return None
            inv += k * (ev.sensitivity / ev.sigma) ** 2
        return 1.0 / math.sqrt(inv)

    def _composed(self, pessimistic: bool):
        """{direction: pmf} for the pessimistic or optimistic side (computed lazily, cached until the next
        compose); directions 'remove' and 'add', or only 'remove' when every event is symmetric."""
        if self._cache is None:
            self._cache = {}
        if pessimistic in self._cache:
            return self._cache[pessimistic]
        h = self._h
        gauss_mu = 0.0
        groups: list[tuple[Any, int]] = []
        for ev, k in self._merged_ledger():
            if isinstance(ev, _m.Gaussian):
                gauss_mu += k * ev.sensitivity**2 / (2.0 * ev.sigma**2)
            else:
                groups.append((ev, k))
        items = []  # (law_remove, law_add, count)
        if gauss_mu > 0:
            g = GaussianLaw(gauss_mu)
            items.append((g, g, 1))
        for ev, k in groups:
            lr, la = _event_laws(ev)
            items.append((lr, la, k))
        symmetric = all(lr is la for lr, la, _ in items)
        out = {}
        for direction in ("remove",) if symmetric else ("remove", "add"):
            acc = None
            for lr, la, k in items:
                law = lr if direction == "remove" else la
                pmf = _self_compose(_Pmf(*discretise(law, h, pessimistic)), k, h, pessimistic)
                acc = pmf if acc is None else _compose_two(acc, pmf, pessimistic)
            out[direction] = acc
        self._cache[pessimistic] = out
        return out

    # -- queries ----------------------------------------------------------------------------------------------
    def epsilon_bounds(self, delta: float) -> tuple[float, float]:
        """``(optimistic, pessimistic)`` ε at δ ∈ (0, 1): the exact ε lies in between."""
        delta = check_delta(delta, allow_zero=False)
        return self._eps_side(delta, False), self._eps_side(delta, True)

    def delta_bounds(self, epsilon: float) -> tuple[float, float]:
        """``(optimistic, pessimistic)`` δ at ε ≥ 0: the exact δ lies in between."""
        epsilon = check_positive(epsilon, "epsilon", allow_zero=True)
        return self._delta_side(epsilon, False), self._delta_side(epsilon, True)

    def _eps_side(self, delta: float, pessimistic: bool) -> float:
        if not self._ledger:
            return 0.0
        s = self._gaussian_only()
        if s is not None:
            return float(_m.Gaussian(s).epsilon(delta))
        comp = self._composed(pessimistic)
        return max(_pmf_epsilon(v, self._h, delta, pessimistic) for v in comp.values())

    def _delta_side(self, epsilon: float, pessimistic: bool) -> float:
        if not self._ledger:
            return 0.0
        s = self._gaussian_only()
        if s is not None:
            return float(_m.Gaussian(s).delta(epsilon))
        comp = self._composed(pessimistic)
        return max(_pmf_delta(v, self._h, epsilon, pessimistic) for v in comp.values())

    def _epsilon(self, delta: float) -> float:
        return self._eps_side(delta, True)

    def _delta(self, epsilon: float) -> float:
        return self._delta_side(epsilon, True)
