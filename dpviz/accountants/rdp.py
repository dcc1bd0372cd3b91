"""Rényi DP accounting: ε_α adds up at every order α (Mironov 2017, Proposition 1), then converts to (ε, δ).

The per-mechanism curves are module-level pure functions of a numpy array of orders α > 1 (integer or not).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from scipy import special

from dpviz import mechanisms as _m
from dpviz._validation import (
    Cap,
    Interval,
    check_delta,
    check_in_range,
    check_positive,
    check_real_array,
)
from dpviz.accountants._base import Accountant
from dpviz.accountants.amplification import _amplify
from dpviz.accountants.events import ZCDP, PoissonSampled, SampledWithoutReplacement
from dpviz.accountants.pld.laws import DLAP_SENSITIVITY, discrete_laplace_loss
from dpviz.accountants.profiles import event_pure_epsilon
from dpviz.conversions import _check_method, rdp_delta, rdp_to_approx_dp

__all__ = [
    "DEFAULT_ORDERS",
    "RDPAccountant",
    "rdp_gaussian",
    "rdp_laplace",
    "rdp_pure",
    "rdp_discrete_laplace",
    "rdp_poisson_gaussian",
    "event_rdp",
]

#: Default orders: 1.1, 1.2, …, 10.9 (fractional ones matter for small ε), 11 … 63, then 128 … 1024.
DEFAULT_ORDERS = np.concatenate([1.0 + np.arange(1, 100) / 10.0, np.arange(11.0, 64.0), [128.0, 256.0, 512.0, 1024.0]])


#: Largest Rényi order and most orders accepted (an integer order α costs a sum of α + 1 terms; the default orders
#: stop at 1024). Beyond them a ValueError names the cap.
ORDER = Interval(1.0, 4096.0, open_low=True)
ORDERS = Cap(100_000, "the Rényi orders of one accountant")


def _orders(orders) -> np.ndarray:
    a = check_real_array(orders, "orders", ndim=1)
    bad = a[(a <= ORDER.low) | (a > ORDER.high)]
    if bad.size:
        ORDER.check(float(bad[0]), "orders")  # the message names the first order outside (1, 4096]
    ORDERS.check(a.size, "the orders held")
    return a


def rdp_gaussian(orders, sigma: float, sensitivity: float = 1.0) -> np.ndarray:
    """ε_α = αΔ²/(2σ²) for the Gaussian mechanism (Mironov 2017, Proposition 7).

    >>> rdp_gaussian([2.0, 4.0], 1.0).tolist()
    [1.0, 2.0]
    """
    a = _orders(orders)
    s = check_positive(sigma, "sigma")
    d = check_positive(sensitivity, "sensitivity")
    mu = d / s  # Python floats: Δ/σ overflows to inf (ε_α = ∞) or underflows to 0, silently
    with np.errstate(over="ignore"):
        return a * (0.5 * mu * mu)


def rdp_laplace(orders, epsilon: float) -> np.ndarray:
    """Laplace mechanism with Δ/b = ε (Mironov 2017, Proposition 6):
    ε_α = 1/(α−1) · ln( α/(2α−1)·e^{(α−1)ε} + (α−1)/(2α−1)·e^{−αε} ).

    >>> round(float(rdp_laplace([2.0], 1.0)[0]), 12)
    0.619123629999
    """
    a = _orders(orders)
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    if eps == 0:
        return np.zeros_like(a)
    with np.errstate(over="ignore"):
        log_val = np.logaddexp(np.log(a / (2 * a - 1)) + (a - 1) * eps, np.log((a - 1) / (2 * a - 1)) - a * eps)
    # ε-DP bounds every Rényi divergence by ε (the formula overflows to ∞ for an astronomically large ε)
    return np.minimum(np.maximum(log_val / (a - 1), 0.0), eps)


def rdp_pure(orders, epsilon: float) -> np.ndarray:
    """The RDP curve of randomized response with parameter ε, which is also the exact worst case over all ε-DP
    mechanisms (Mironov 2017, Proposition 5 for RR; Bun & Steinke 2016, Proposition 3.3 for the bound):
    ε_α = 1/(α−1) · ln( (e^{αε} + e^{(1−α)ε}) / (1 + e^ε) ).

    >>> round(float(rdp_pure([2.0], 1.0)[0]), 12)
    0.735325664056
    """
    a = _orders(orders)
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    if eps == 0:
        return np.zeros_like(a)
    with np.errstate(over="ignore", invalid="ignore"):
        log_val = np.logaddexp(a * eps, (1 - a) * eps) - np.logaddexp(0.0, eps)
        val = log_val / (a - 1)
    # ∞ − ∞ (an astronomically large ε) is NaN: the bound ε_α ≤ ε holds there
    return np.minimum(np.maximum(np.where(np.isnan(val), eps, val), 0.0), eps)


def _rdp_finite(orders: np.ndarray, losses: np.ndarray, log_p: np.ndarray) -> np.ndarray:
    # D_α(P‖Q) = 1/(α−1) ln Σ_j p_j e^{(α−1) l_j}, l_j = ln(p_j/q_j): exact for finite output spaces.
    with np.errstate(over="ignore"):
        vals = special.logsumexp(log_p[None, :] + (orders[:, None] - 1.0) * losses[None, :], axis=1)
    return np.maximum(vals / (orders - 1.0), 0.0)


#: Largest sensitivity of :func:`rdp_discrete_laplace` (its loss law has Δ + 1 atoms): the cap of
#: :func:`dpviz.accountants.pld.laws.discrete_laplace_loss`, :data:`~dpviz.accountants.pld.laws.DLAP_SENSITIVITY`.


def rdp_discrete_laplace(orders, scale: float, sensitivity: int = 1) -> np.ndarray:
    """Exact RDP of the discrete Laplace mechanism, from its finite privacy-loss distribution
    (:func:`dpviz.accountants.pld.laws.discrete_laplace_loss`); with Δ = 1 it equals randomized response with ε = 1/b.

    >>> np.allclose(rdp_discrete_laplace([2.0, 3.5], 1.0), rdp_pure([2.0, 3.5], 1.0))
    True
    """
    a = _orders(orders)
    scale = check_positive(scale, "scale")
    sensitivity = DLAP_SENSITIVITY.check(sensitivity, "sensitivity")
    if 1.0 / scale == math.inf:  # the noise is a point mass: the neighbouring laws are disjoint
        return np.full(a.shape, math.inf)
    losses, log_p = discrete_laplace_loss(scale, sensitivity)
    return _rdp_finite(a, losses, log_p)


def _log_a_integer(alpha: int, q: float, sigma: float) -> float:
    # A_α = Σ_k C(α,k) (1−q)^{α−k} q^k exp((k²−k)/(2σ²))  (Mironov, Talwar & Zhang 2019, Section 3.3, integer α)
    k = np.arange(alpha + 1, dtype=float)
    log_c = special.gammaln(alpha + 1) - special.gammaln(k + 1) - special.gammaln(alpha - k + 1)
    c = 0.5 / (sigma * sigma)  # finite: the caller refuses a σ whose 1/σ² overflows
    with np.errstate(over="ignore"):
        terms = log_c + k * math.log(q) + (alpha - k) * math.log1p(-q) + (k * k - k) * c
        if np.isinf(terms).any():  # a term beyond the double range: A_α = ∞
            return math.inf
        return float(special.logsumexp(terms))


def _log_a_fractional(alphas: np.ndarray, q: float, sigma: float) -> np.ndarray:
    # A_α = ∫ N(z; 0, σ²) · (1 − q + q·exp((2z − 1)/(2σ²)))^α dz  (Mironov, Talwar & Zhang 2019, eq. (3) with Δ = 1),
    # integrated in log space with the trapezoid rule on a uniform grid of step σ/32 over [−14σ, α_max + 14σ].
    # The integrand is analytic and decays like a Gaussian, so the trapezoid rule converges geometrically
    # (Trefethen & Weideman 2014, Theorem 5.1); mpmath quadrature confirms ~1e-12 relative accuracy in the tests.
    # (Summing the binomial series of MTZ Section 3.3 needs the signs of C(α, k) for k > α; dropping them, as some
    # implementations do, gives an upper bound, not the value.)
    # A_α = 1 + Σ w_i (e^{x_i} − 1) is summed in that form (w_i: the trapezoid weights of the pdf, which alone sum
    # to 1 far below double precision), so that in the DP-SGD regime, A_α = 1 + O(q²), ε_α keeps its relative
    # precision (summing A_α itself loses it to the rounding of 1 + tiny: 5e-8 relative low at q = 0.001, σ = 0.6,
    # α = 1.1). Orders whose terms could overflow (x_i ≥ 700 or w_i e^{x_i} ≥ e^600, A_α astronomically large,
    # where that rounding is harmless) are summed in log space.
    hz = sigma / 32.0
    lo, hi = -14.0 * sigma, float(np.max(alphas)) + 14.0 * sigma
    z = np.arange(lo, hi + hz, hz)
    log_w = -0.5 * (z / sigma) ** 2 - math.log(sigma * math.sqrt(2 * math.pi)) + math.log(hz)
    u = (2.0 * z - 1.0) / (2.0 * sigma * sigma)
    # x/α = ln(1 − q + q e^u): log1p(q·expm1(u)) keeps its relative precision; logaddexp where e^u could overflow
    with np.errstate(over="ignore"):
        log_mix = np.where(u < 30.0, np.log1p(q * np.expm1(np.minimum(u, 30.0))),
                           np.logaddexp(math.log1p(-q), math.log(q) + u))
    x = alphas[:, None] * log_mix[None, :]
    vals = log_w[None, :] + x
    log_a = np.empty(alphas.shape)
    linear = (vals.max(axis=1) < 600.0) & (x.max(axis=1) < 700.0)
    if np.any(linear):
        log_a[linear] = np.log1p((np.exp(log_w)[None, :] * np.expm1(x[linear])).sum(axis=1))
    if not np.all(linear):
        log_a[~linear] = special.logsumexp(vals[~linear], axis=1)
    return log_a


#: Most values the trapezoid rule of :func:`_log_a_fractional` may evaluate (orders × grid points, the grid having
#: 32·(α_max + 28σ)/σ points); beyond it (σ below ~0.01 with the default orders, or σ above 1e6) the fractional
#: orders use the chord bound of :func:`_poisson_gaussian_cached` instead.
FRACTIONAL_GRID_CAP = 4_000_000


@functools.lru_cache(maxsize=256)
def _poisson_gaussian_cached(orders: tuple, q: float, sigma: float) -> tuple:
    """ε_α for the orders. Fractional orders by the trapezoid rule when its grid fits within
    :data:`FRACTIONAL_GRID_CAP`, else by the chord bound ln A_α ≤ (⌈α⌉ − α) ln A_⌊α⌋ + (α − ⌊α⌋) ln A_⌈α⌉, valid
    because ln A_α = ln E[X^α] is convex in α (Hölder's inequality) and exact at the integers (ln A_1 = 0)."""
    a = np.asarray(orders)
    out = np.empty_like(a)
    is_int = a == np.round(a)
    cache: dict[int, float] = {1: 0.0}

    def log_a_int(n: int) -> float:
        if n not in cache:
            cache[n] = _log_a_integer(n, q, sigma)
        return cache[n]

    for i in np.flatnonzero(is_int):
        out[i] = log_a_int(int(a[i]))
    frac = np.flatnonzero(~is_int)
    if frac.size:
        n_grid = 32.0 * (float(np.max(a[frac])) + 28.0 * sigma) / sigma
        if sigma <= 1e6 and frac.size * n_grid <= FRACTIONAL_GRID_CAP:
            out[frac] = _log_a_fractional(a[frac], q, sigma)
        else:
            for i in frac:
                lo_n = int(math.floor(a[i]))
                w = float(a[i]) - lo_n
                hi_v, lo_v = log_a_int(lo_n + 1), log_a_int(lo_n)
                out[i] = math.inf if math.inf in (hi_v, lo_v) else (1.0 - w) * lo_v + w * hi_v
    return tuple(np.maximum(out / (a - 1.0), 0.0))


def rdp_poisson_gaussian(orders, rate: float, sigma: float, sensitivity: float = 1.0) -> np.ndarray:
    """RDP of the Poisson-subsampled Gaussian mechanism (rate q, add/remove neighbours):
    ε_α = ln(A_α)/(α−1), A_α = E_{z∼N(0,σ²)}[(1 − q + q e^{(2zΔ − Δ²)/(2σ²)})^α]
    (Mironov, Talwar & Zhang 2019, Sections 3.1–3.3, who also show the reverse divergence is no larger).
    Integer α: exact binomial sum. Fractional α: the integral, by the trapezoid rule (see the source);
    both are checked against mpmath quadrature.

    >>> round(float(rdp_poisson_gaussian([2.0], 1.0, 1.0)[0]), 12)   # q = 1 is the Gaussian: α/(2σ²)
    1.0
    """
    a = _orders(orders)
    q = check_in_range(rate, "rate", 0.0, 1.0, low_inclusive=False)
    s = check_positive(sigma, "sigma") / check_positive(sensitivity, "sensitivity")
    if s == math.inf:  # Δ/σ rounds to 0: the laws coincide in double precision
        return np.zeros(a.shape)
    if s * s == 0.0 or 1.0 / (s * s) == math.inf:  # Δ/σ beyond ~1e154: A_α overflows, ε_α = ∞
        return np.full(a.shape, math.inf)
    if q == 1.0:
        with np.errstate(over="ignore"):
            return a * (0.5 / (s * s))
    return np.array(_poisson_gaussian_cached(tuple(a.tolist()), q, s))


def event_rdp(event: Any, orders) -> np.ndarray | None:
    """The RDP curve ε_α of one run of ``event`` at ``orders`` (None if unsupported).

    Gaussian: αΔ²/(2σ²); discrete Gaussian and ``ZCDP(ρ)``: ρα (an upper bound for the discrete Gaussian,
    Canonne, Kamath & Steinke 2020, Theorem 4); Laplace: Mironov's closed form; randomized response, ``PureDP`` and
    ``ApproxDP(ε, 0)``: the RR curve (exact worst case for pure DP); discrete Laplace: exact; Poisson-sampled
    Gaussian: Mironov, Talwar & Zhang 2019; a subsampled pure mechanism: the RR curve at the amplified
    ε′ = ln(1 + q(e^ε − 1)) (valid, not tight). Which events are pure, and their ε:
    :func:`~dpviz.accountants.profiles.event_pure_epsilon`. ``orders``: Rényi orders α > 1 (at most
    :data:`ORDERS` of them, each in :data:`ORDER`).
    """
    return _event_rdp(event, _orders(orders))


def _event_rdp(event: Any, a: np.ndarray) -> np.ndarray | None:
    """:func:`event_rdp` at checked orders ``a``."""
    if isinstance(event, _m.Gaussian):
        return rdp_gaussian(a, event.sigma, event.sensitivity)
    if isinstance(event, (_m.DiscreteGaussian, ZCDP)):
        with np.errstate(over="ignore"):
            return a * event.rho  # ρ = Δ²/(2σ²) for the discrete Gaussian (its .rho never overflows)
    if isinstance(event, _m.Laplace):
        return rdp_laplace(a, event.sensitivity / event.scale)
    if isinstance(event, _m.DiscreteLaplace):
        return rdp_discrete_laplace(a, event.scale, event.sensitivity)
    eps = event_pure_epsilon(event)  # randomized response, PureDP, ApproxDP(ε, 0)
    if eps is not None:
        return rdp_pure(a, eps)
    if isinstance(event, (PoissonSampled, SampledWithoutReplacement)):
        eta = event.rate if isinstance(event, PoissonSampled) else event.eta
        inner = event.mechanism
        if isinstance(event, PoissonSampled) and isinstance(inner, _m.Gaussian):
            return rdp_poisson_gaussian(a, eta, inner.sigma, inner.sensitivity)
        eps = event_pure_epsilon(inner)
        if eps is not None:
            return rdp_pure(a, _amplify(eps, 0.0, eta)[0])
    return None


class RDPAccountant(Accountant):
    """Rényi DP accountant: per order α, ε_α of the composition is the sum of the ε_α's (Mironov 2017,
    Proposition 1); (ε, δ) then follows by minimising a conversion over the orders:

    * ``method="improved"`` (default): ε = ε_α + ln((α−1)/α) − (ln δ + ln α)/(α−1) (Balle et al. 2020, Theorem 21;
      Canonne, Kamath & Steinke 2020, Proposition 12);
    * ``method="classic"``: ε = ε_α + ln(1/δ)/(α−1) (Mironov 2017, Proposition 3).

    Supported events: see :func:`event_rdp`. (ε, δ)-only events (``ApproxDP`` with δ > 0,
    ``TruncatedDiscreteLaplace``) are refused (an RDP curve cannot hold a δ). The Poisson-sampled Gaussian uses
    add/remove neighbours (as in dp-accounting); under ``"replace_one"`` only fixed-size sampling of pure mechanisms
    (Theorem 7 of Ghazi et al. 2023) is accepted.

    Parameters
    ----------
    neighboring : {"add_remove", "replace_one"}
    orders : array of floats > 1, optional
        Default :data:`DEFAULT_ORDERS` (fractional orders 1.1…10.9, integers 11…63, then 128…1024).

    Examples
    --------
    >>> from dpviz.accountants import RDPAccountant, ZCDP
    >>> acct = RDPAccountant().compose(ZCDP(0.5))
    >>> acct.epsilon(1e-5) < acct.epsilon(1e-5, method="classic")
    True
    """

    name = "rdp"

    def __init__(self, neighboring: str = "add_remove", orders=None):
        super().__init__(neighboring)
        self._orders = DEFAULT_ORDERS.copy() if orders is None else _orders(orders).copy()
        self._orders.setflags(write=False)
        self._cache = None

    @property
    def orders(self) -> np.ndarray:
        """The orders α used (read-only array)."""
        return self._orders

    def _reason(self, event: Any) -> str | None:
        if _event_rdp(event, np.array([2.0])) is None:
            return "it has no Rényi DP curve here (only pure DP, Gaussian-type, ZCDP and Poisson-sampled Gaussian)"
        return None

    def _changed(self) -> None:
        self._cache = None

    def rdp(self) -> np.ndarray:
        """The composed RDP curve ε_α at :attr:`orders`."""
        if self._cache is None:
            total = np.zeros_like(self._orders)
            with np.errstate(over="ignore"):  # an astronomically large ε_α adds up to ∞
                for ev, k in self._merged_ledger():
                    total = total + k * _event_rdp(ev, self._orders)
            self._cache = total
        return self._cache.copy()

    def epsilon(self, delta: float, method: str = "improved") -> float:
        """ε at δ ∈ (0, 1) by the ``"improved"`` (default) or ``"classic"`` conversion."""
        delta = check_delta(delta, allow_zero=False)
        _check_method(method, ("improved", "classic"))
        if not self._ledger:
            return 0.0
        return rdp_to_approx_dp(self._orders, self.rdp(), delta, method=method)[0]

    def delta(self, epsilon: float, method: str = "improved") -> float:
        """δ at ε ≥ 0 by the inverse of the ``"improved"`` (default) or ``"classic"`` conversion."""
        epsilon = check_positive(epsilon, "epsilon", allow_zero=True)
        _check_method(method, ("improved", "classic"))
        if not self._ledger:
            return 0.0
        return rdp_delta(self._orders, self.rdp(), epsilon, method=method)[0]

    def _epsilon(self, delta: float) -> float:
        return self.epsilon(delta)

    def _delta(self, epsilon: float) -> float:
        return self.delta(epsilon)
