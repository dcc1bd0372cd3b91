"""Winsorized mean estimation (004: Levy et al., "Learning with User-Level Privacy", §3 and Appendix D).

* :func:`private_range` — Algorithm 6 (PrivateRange, after Feldman–Steinke 2017): an ε-DP exponential mechanism
  that picks a bin midpoint μ̂ near the median of the binned data and returns [μ̂ − 2τ, μ̂ + 2τ].
* :func:`winsorized_mean_1d` — Algorithm 1 (WME): PrivateRange at ε/2, clip to the range, add Lap(8τ/(nε)).
* :func:`winsorized_mean_highd` — Algorithm 2: randomized Hadamard rotation, then Algorithm 1 per rotated coordinate
  at ε′ = ε/√(8 d log(1/δ)), τ′ = 10τ√(log(dn/γ)/d), range √d·B; (ε, δ)-DP by advanced composition.
* :func:`user_level_mean` — Corollary 1 (user averages as items); :func:`subgaussian_mean` — Corollary 5;
  :func:`answer_adaptive_queries` — Theorem 10.
* τ presets :func:`tau_paper`, :func:`tau_safe`, :func:`tau_oracle` and the closed-form variances / β's of
  Theorems 1, 2, 10 and the fixed-n floor of Theorem 8.

Everything here is exact sampling (no Monte Carlo inside a privacy argument). Data outside the stated domain
([−B, B] resp. [−B, B]^d) is first projected onto it, coordinate by coordinate: a map applied to each user's
record separately, so the privacy guarantees are unchanged (and on in-domain data nothing happens).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from dpviz._validation import (
    as_rng,
    check_choice,
    check_delta,
    check_in_range,
    check_positive,
    check_probability,
    check_real_array,
)
from dpviz.mean import _limits
from dpviz.mean.hadamard import HadamardRotation, next_power_of_two, random_rotation

__all__ = [
    "C0",
    "RangeBins",
    "range_bins",
    "private_range_probabilities",
    "private_range",
    "WMEResult",
    "winsorized_mean_1d",
    "winsorized_mean_1d_result",
    "winsorized_mean_highd",
    "highd_parameters",
    "user_level_mean",
    "user_level_mean_1d",
    "subgaussian_mean",
    "answer_adaptive_queries",
    "theorem10_budget",
    "advanced_composition_epsilon",
    "tau_paper",
    "tau_safe",
    "tau_oracle",
    "tau_subgaussian",
    "tau_for",
    "TAU_PRESETS",
    "wme_1d_noise_variance",
    "wme_highd_noise_variance",
    "theorem1_beta",
    "theorem2_beta",
    "theorem10_variance_bound",
    "corollary1_mse_bound",
    "theorem8_floor",
    "theorem8_mean_floor",
    "crossover_m",
]

#: c₀ = 102,400 = 128·100·8 of Theorem 2 (004): exactly the Laplace variance of Algorithm 2 (digest 004, §2.3).
C0 = 102_400

TAU_PRESETS = ("safe", "paper", "oracle")


# ----------------------------------------------------------------------------------------------- bins


@dataclass(frozen=True)
class RangeBins:
    """The bins of Algorithm 6 (004): l = ⌈B/τ⌉ bins of width 2τ tiling [−B, B] (the last one shorter).

    Footnote 9 of 004 writes the last length as "2B − (t−1)τ"; the consistent reading is 2B − 2(l−1)τ
    (digest 004 §2.1). ``midpoints[j]`` is the centre of bin j.
    """

    tau: float
    bound: float

    def __post_init__(self):
        tau, bound = _limits.scale(self.tau, "tau"), _limits.scale(self.bound, "bound")
        if not bound / tau <= _limits.MAX_BINS:
            raise ValueError(f"tau = {self.tau!r} with bound = {self.bound!r} is not allowed: must have bound/tau <= "
                             f"2**52 (⌈B/τ⌉ bins with exact integer indices); use a larger tau.")
        object.__setattr__(self, "tau", tau)
        object.__setattr__(self, "bound", bound)

    @property
    def count(self) -> int:
        r = self.bound / self.tau
        return max(1, math.ceil(r * (1.0 - 1e-12)))

    @property
    def midpoints(self) -> np.ndarray:
        """All ℓ midpoints (ℓ ≤ 10⁷: they are allocated)."""
        ell = self.count
        if ell > _limits.MAX_DENSE_BINS:
            raise ValueError(f"tau = {self.tau!r} with bound = {self.bound!r} gives {ell} bins, which is not allowed "
                             f"here: must give <= {_limits.MAX_DENSE_BINS} bins to list them all.")
        lefts = -self.bound + 2.0 * self.tau * np.arange(ell)
        rights = np.minimum(lefts + 2.0 * self.tau, self.bound)
        rights[-1] = self.bound
        return 0.5 * (lefts + rights)

    def midpoint(self, j) -> np.ndarray:
        """Midpoint of bin j (integers in [0, ℓ − 1])."""
        jj = check_real_array(j, "j")
        bad = (jj != np.floor(jj)) | (jj < 0) | (jj > self.count - 1)
        if np.any(bad):
            raise ValueError(f"j = {float(jj[bad].flat[0])!r} is not allowed: must be bin indices, integers in "
                             f"[0, {self.count - 1}].")
        return self._midpoint(jj)

    def _midpoint(self, j: np.ndarray) -> np.ndarray:
        j = np.asarray(j)
        ell = self.count
        reg = -self.bound + (2.0 * j + 1.0) * self.tau
        last = 0.5 * (-self.bound + 2.0 * (ell - 1) * self.tau + self.bound)
        return np.where(j == ell - 1, last, reg)

    def index(self, x) -> np.ndarray:
        """Index of the midpoint nearest to each value (values already in [−B, B]): Algorithm 6 step 2, X′_i =
        argmin_{t∈T} |t − X_i| (the paper's "min" read as argmin; ties go to the lower midpoint).

        This is the value's own bin, except when the last bin is shorter (τ does not divide B): then the top part
        of the second-to-last bin is nearer to the last bin's midpoint (e.g. τ = 0.3, B = 1: 0.75 ↦ 0.9, not 0.5).
        Values outside [−B, B] are projected onto it first.
        """
        x = check_real_array(x, "x")
        return self._index(np.clip(x, -self.bound, self.bound))

    def _index(self, x: np.ndarray) -> np.ndarray:
        """:meth:`index` for a float array already in [−B, B]. (x/2 + B/2)/τ is (x + B)/(2τ) with the same
        rounding, without x + B overflowing near 1e308; it lies in [0, B/τ] ⊂ [0, 2^52]."""
        x = np.asarray(x, dtype=float)
        ell = self.count
        idx = np.clip(np.floor((0.5 * x + 0.5 * self.bound) / self.tau), 0, ell - 1).astype(np.int64)
        if ell >= 2:
            split = float(self._midpoint(np.array([ell - 2, ell - 1])).mean())
            idx = np.where((idx == ell - 2) & (x > split), ell - 1, idx)
        return idx


def range_bins(tau: float, bound: float) -> RangeBins:
    """The bins used by :func:`private_range` (Algorithm 6 of 004, step 1).

    >>> range_bins(0.3, 1.0).count
    4
    >>> range_bins(0.3, 1.0).midpoints.round(3).tolist()
    [-0.7, -0.1, 0.5, 0.9]
    """
    return RangeBins(tau, bound)


def _check_common(epsilon, tau, bound):
    eps = check_positive(epsilon, "epsilon")
    tau = _limits.scale(tau, "tau")
    bound = _limits.scale(bound, "bound")
    return eps, tau, bound


def _half_width(h) -> float:
    return check_in_range(h, "half_width_factor", 0.0, 1e6, low_inclusive=False)


def _values_1d(values, bound, name="values") -> np.ndarray:
    x = check_real_array(values, name, ndim=1)
    return np.clip(x, -bound, bound)


def _selection_logw(costs: np.ndarray, eps: float) -> np.ndarray:
    """−ε(c − c_min)/2 along the last axis: the exponential mechanism's log-weights shifted by the row maximum
    (exact in real arithmetic; no −inf − (−inf) when ε·c overflows, e.g. ε = 1e308: the min-cost bins win)."""
    c = costs.astype(float)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(c == c.min(axis=-1, keepdims=True), 0.0,
                        -0.5 * eps * (c - c.min(axis=-1, keepdims=True)))


def _costs(counts: np.ndarray) -> np.ndarray:
    """c(x_j) = max(#{X′ < x_j}, #{X′ > x_j}) for counts per bin along the last axis (Alg 6, step 3)."""
    n = counts.sum(axis=-1, keepdims=True)
    cum = np.cumsum(counts, axis=-1)
    below = cum - counts
    above = n - cum
    return np.maximum(below, above)


def private_range_probabilities(values, epsilon: float, tau: float, bound: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact selection law of Algorithm 6 (004): P(μ̂ = x) = exp(−ε c(x)/2) / Σ_{x′} exp(−ε c(x′)/2).

    c(x) = max(#{i : X′_i < x}, #{i : X′_i > x}) with X′_i the midpoint nearest to X_i; c has sensitivity 1 under
    replacing one X_i, so the selection is ε-DP (exponential mechanism, McSherry & Talwar 2007).

    Returns
    -------
    midpoints, probabilities : np.ndarray
        One entry per bin (l = ⌈B/τ⌉ of them; use only when l is moderate).

    Examples
    --------
    >>> mids, p = private_range_probabilities([0.1, 0.2, 0.9], 2.0, 0.25, 1.0)
    >>> mids.tolist()
    [-0.75, -0.25, 0.25, 0.75]
    >>> p.round(4).tolist()  # costs 3, 3, 1, 2 → weights e^-3, e^-3, e^-1, e^-2
    [0.0826, 0.0826, 0.6103, 0.2245]
    """
    eps, tau, bound = _check_common(epsilon, tau, bound)
    x = _values_1d(values, bound)
    bins = range_bins(tau, bound)
    mids = bins.midpoints  # refuses more than MAX_DENSE_BINS bins before anything of that size is allocated
    counts = np.bincount(bins._index(x), minlength=bins.count)
    with np.errstate(under="ignore"):
        w = np.exp(_selection_logw(_costs(counts), eps))
    return mids, w / w.sum()


def _sample_bins_dense(idx: np.ndarray, ell: int, eps: float, g: np.random.Generator) -> np.ndarray:
    """Rows of bin indices (T, n) → one sampled bin per row, by Gumbel-max over all ℓ bins (exact)."""
    T = idx.shape[0]
    flat = (idx + ell * np.arange(T)[:, None]).ravel()
    counts = np.bincount(flat, minlength=T * ell).reshape(T, ell)
    logw = _selection_logw(_costs(counts), eps)
    return np.argmax(logw + g.gumbel(size=logw.shape), axis=1)


def _sample_bin_segments(idx: np.ndarray, ell: int, eps: float, g: np.random.Generator) -> int:
    """One row: exact sampling in O(n log n) whatever ℓ, using that c is constant between occupied bins.

    Segments: each occupied bin (size 1), each gap between consecutive occupied bins, and the two outer gaps
    (cost n). Pick a segment with weight size·exp(−εc/2), then a uniform bin inside it (digest 004 §2.1 [impl]).
    """
    n = idx.shape[0]
    u, cnt = np.unique(idx, return_counts=True)
    S = np.cumsum(cnt)
    S_prev = S - cnt
    occ_cost = np.maximum(S_prev, n - S)
    gap_start = u[:-1] + 1
    gap_size = u[1:] - u[:-1] - 1
    gap_cost = np.maximum(S[:-1], n - S[:-1])
    starts = np.concatenate([[0], u, gap_start, [u[-1] + 1]])
    sizes = np.concatenate([[u[0]], np.ones_like(u), gap_size, [ell - 1 - u[-1]]])
    costs = np.concatenate([[n], occ_cost, gap_cost, [n]]).astype(float)
    with np.errstate(divide="ignore"):
        logw = np.log(sizes.astype(float)) + _selection_logw(costs, eps)
    k = int(np.argmax(logw + g.gumbel(size=logw.shape)))
    return int(starts[k] + g.integers(sizes[k]))


def _private_range_rows(rows: np.ndarray, eps: float, tau: float, bound: float, g) -> np.ndarray:
    """Sampled midpoint μ̂ for each row of ``rows`` (T, n), values already in [−B, B]."""
    bins = range_bins(tau, bound)
    ell = bins.count
    idx = bins._index(rows)
    if ell * rows.shape[0] <= 4_000_000 and ell <= 4 * rows.shape[1] + 64:
        j = _sample_bins_dense(idx, ell, eps, g)
    else:
        j = np.array([_sample_bin_segments(r, ell, eps, g) for r in idx])
    return bins._midpoint(j)


def private_range(values, epsilon: float, tau: float, bound: float, *, rng=None,
                  half_width_factor: float = 2.0) -> tuple[float, float]:
    """Algorithm 6 of 004 (PrivateRange): ε-DP interval [μ̂ − 2τ, μ̂ + 2τ] around an approximate median.

    Bins of width 2τ tile [−B, B] (l = ⌈B/τ⌉; footnote 9's last-bin length read as 2B − 2(l−1)τ); each value is
    replaced by the nearest midpoint X′_i (step 2: "min" read as argmin; with a short last bin this is not always
    the value's own bin, see :meth:`RangeBins.index`); μ̂ is drawn with
    P(μ̂ = x) ∝ exp(−ε·c(x)/2), c(x) = max(#{X′_i < x}, #{X′_i > x}) (see :func:`private_range_probabilities`).
    Sampling is exact in O(n log n) whatever l (segments of constant cost, digest 004 §2.1).

    Parameters
    ----------
    values : array_like, shape (n,)
        One value per user, in [−B, B] (values outside are projected onto it first: a per-user map).
    epsilon : float
        The budget PrivateRange itself spends (Algorithm 1 passes ε/2).
    tau : float
        Concentration radius τ > 0 (public).
    bound : float
        B > 0 (public).
    rng : Generator or int, optional
    half_width_factor : float
        Interval is [μ̂ − hτ, μ̂ + hτ]; the paper's h = 2 (width 4τ). h = 3 is the "safe" variant of digest 004
        pitfall P2 (width 4τ can clip data that is τ-concentrated).

    Returns
    -------
    (a, b) : tuple of float

    Raises
    ------
    ValueError
        ε ≤ 0, τ ≤ 0, B ≤ 0, non-1-D, empty or non-finite values.

    Notes
    -----
    Utility (004 Thm 1 proof, citing Feldman–Steinke Thm 3.1): outputs a (1/4, 3/4)-quantile of {X′_i} w.p.
    ≥ 1 − (B/τ)e^{−nε/8} — with the budget PrivateRange receives; see digest 004 pitfall P3 on this exponent.

    Examples
    --------
    >>> a, b = private_range([0.1, 0.12, 0.11, 0.13] * 50, 5.0, 0.1, 1.0, rng=1)
    >>> round(a, 6), round(b, 6)
    (-0.1, 0.3)
    """
    eps, tau, bound = _check_common(epsilon, tau, bound)
    h = _half_width(half_width_factor)
    x = _values_1d(values, bound)
    mu = float(_private_range_rows(x[None, :], eps, tau, bound, as_rng(rng))[0])
    return mu - h * tau, mu + h * tau


# ----------------------------------------------------------------------------------------------- WME 1-D


@dataclass(frozen=True)
class WMEResult:
    """Everything Algorithm 1 of 004 computes on one run (for figures and diagnostics)."""

    estimate: float
    low: float
    high: float
    clipped_mean: float
    noise: float
    noise_scale: float
    clipped_fraction: float

    def __post_init__(self):
        for f in ("estimate", "low", "high", "clipped_mean", "noise"):
            object.__setattr__(self, f, _finite_number(getattr(self, f), f))
        object.__setattr__(self, "noise_scale", check_positive(self.noise_scale, "noise_scale"))
        object.__setattr__(self, "clipped_fraction", check_probability(self.clipped_fraction, "clipped_fraction"))
        if not (self.low <= self.high):
            raise ValueError(f"low = {self.low!r} is not allowed: must be <= high = {self.high!r}.")


def _finite_number(value, name: str) -> float:
    return check_in_range(value, name, -math.inf, math.inf)


def _wme_rows(rows: np.ndarray, eps: float, tau: float, bound: float, g, h: float = 2.0):
    """Algorithm 1 on each row of ``rows`` (T, n) in one vectorised pass. Returns (estimates, mu_hat, noise).
    A ValueError if the Laplace scale 8τ/(nε) (for h = 2) leaves the double range (ε ≲ 1e-300)."""
    n = rows.shape[1]
    scale = _limits.evaluate(lambda: 2.0 * h * tau / n / (eps / 2.0), "the Laplace scale 2hτ/(n·ε/2)",
                             epsilon=eps, tau=tau, n=n)
    mu = _private_range_rows(rows, eps / 2.0, tau, bound, g)
    lo = (mu - h * tau)[:, None]
    hi = (mu + h * tau)[:, None]
    clipped = np.minimum(np.maximum(rows, lo), hi).mean(axis=1)
    noise = g.laplace(0.0, scale, size=rows.shape[0])
    return clipped + noise, mu, clipped, noise, scale


def winsorized_mean_1d(values, epsilon: float, tau: float, bound: float, *, rng=None,
                       half_width_factor: float = 2.0) -> float:
    """Algorithm 1 of 004 (WinsorizedMean1D, "WME"): ε-DP mean = clip to PrivateRange + Lap(8τ/(nε)).

    1. [a, b] = PrivateRange(X, ε/2, τ, B) (Algorithm 6), |b − a| = 4τ;
    2. μ̄ = (1/n)·Σ_i Π_[a,b](X_i) + ξ with ξ ~ Lap(8τ/(nε)) (scale; variance 128τ²/(n²ε²)).

    Privacy (Thm 1 of 004): ε-DP for any data — PrivateRange spends ε/2 and the clipped mean has sensitivity
    4τ/n, so Laplace with scale (4τ/n)/(ε/2) spends the other ε/2. Utility: if X is (τ, γ)-concentrated, the output
    is β-close to (1/n)ΣX_i + Lap(8τ/(nε)) with β = min{1, γ + (B/τ)e^{−nε/8}} (:func:`theorem1_beta`).

    Parameters
    ----------
    values : array_like, shape (n,)
        One value per user (e.g. each user's own average), in [−B, B]; values outside are projected first.
    epsilon, tau, bound : float
        ε > 0, concentration radius τ > 0, range B > 0 (all public).
    rng : Generator or int, optional
    half_width_factor : float
        2 (paper, interval width 4τ, Laplace scale 8τ/(nε)); 3 is the safe variant of digest 004 pitfall P2
        (Laplace scale 12τ/(nε)).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ε ≤ 0, τ ≤ 0, B ≤ 0, NaN, empty or non-1-D ``values``.

    Examples
    --------
    >>> x = np.full(1000, 0.25)
    >>> est = winsorized_mean_1d(x, 1.0, 0.05, 1.0, rng=0)
    >>> abs(est - 0.25) < 0.01
    True
    """
    return winsorized_mean_1d_result(values, epsilon, tau, bound, rng=rng,
                                     half_width_factor=half_width_factor).estimate


def winsorized_mean_1d_result(values, epsilon: float, tau: float, bound: float, *, rng=None,
                              half_width_factor: float = 2.0) -> WMEResult:
    """:func:`winsorized_mean_1d` returning all intermediate quantities as a :class:`WMEResult`."""
    eps, tau, bound = _check_common(epsilon, tau, bound)
    h = _half_width(half_width_factor)
    x = _values_1d(values, bound)
    est, mu, clipped, noise, scale = _wme_rows(x[None, :], eps, tau, bound, as_rng(rng), h)
    lo, hi = float(mu[0]) - h * tau, float(mu[0]) + h * tau
    frac = float(np.mean((x < lo) | (x > hi)))
    return WMEResult(float(est[0]), lo, hi, float(clipped[0]), float(noise[0]), float(scale), frac)


# ----------------------------------------------------------------------------------------------- WME high-D


@dataclass(frozen=True)
class HighDParameters:
    """Per-coordinate parameters of Algorithm 2 of 004 (with d the padded dimension, digest pitfall P5)."""

    d: int
    d_pad: int
    epsilon_coord: float
    tau_coord: float
    bound_coord: float
    noise_scale: float


def highd_parameters(n: int, d: int, epsilon: float, delta: float, tau: float, bound: float,
                     gamma: float = 0.01) -> HighDParameters:
    """ε′ = ε/√(8 d log(1/δ)), τ′ = 10τ√(log(dn/γ)/d), range √d·B, Laplace scale 8τ′/(nε′) (004, Algorithm 2).

    d is the padded dimension 2^⌈log₂ d⌉ throughout (digest 004 pitfall P5; the proof of Thm 2 writes
    τ′ = 10τ√log(nd/α)/d, a typo for /√d).

    >>> p = highd_parameters(10_000, 16, 1.0, 1e-6, 0.269, 1.0, gamma=0.01)
    >>> round(p.epsilon_coord, 5)
    0.02378
    """
    n = _limits.count(n, "n")
    d = _limits.count(d, "d")
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    tau = check_positive(tau, "tau")
    bound = check_positive(bound, "bound")
    gamma = check_probability(gamma, "gamma", open_low=True, open_high=True)
    dp = next_power_of_two(d)
    # −ln δ and ln d + ln n − ln γ: 1/δ and dn/γ overflow for subnormal δ, γ
    eps_c = eps / math.sqrt(8.0 * dp * -math.log(delta))
    tau_c = _limits.evaluate(lambda: 10.0 * tau * math.sqrt((math.log(dp) + math.log(n) - math.log(gamma)) / dp),
                             "τ′", tau=tau, n=n, d=d, gamma=gamma)
    bound_c = _limits.evaluate(lambda: math.sqrt(dp) * bound, "√d·B", bound=bound, d=d)
    scale = _limits.evaluate(lambda: 8.0 * tau_c / (n * eps_c), "the Laplace scale 8τ′/(nε′)",
                             epsilon=epsilon, delta=delta, tau=tau, n=n, d=d)
    return HighDParameters(d, dp, eps_c, tau_c, bound_c, scale)


def _points_2d(points, bound, name="points") -> np.ndarray:
    x = check_real_array(points, name, ndim=2)
    return np.clip(x, -bound, bound)


def winsorized_mean_highd(points, epsilon: float, delta: float, tau: float, bound: float, *,
                          gamma: float | None = None, rng=None, rotation: HadamardRotation | None = None,
                          half_width_factor: float = 2.0) -> np.ndarray:
    """Algorithm 2 of 004 (WinsorizedMeanHighD): (ε, δ)-DP mean of n vectors, error ∝ τ (ℓ₂ radius), not B.

    1. D = diag(ω), ω ~ Unif{±1}^d (fresh, data-independent); U = d^{-1/2}·H·D; Y_i = U·X_i (zero-padded to
       d = 2^⌈log₂ d⌉);
    2. ε′ = ε/√(8 d log(1/δ)), τ′ = 10τ√(log(dn/γ)/d);
    3. Ȳ(j) = WinsorizedMean1D({Y_i(j)}, ε′, τ′, √d·B) for each coordinate j (:func:`winsorized_mean_1d`);
    4. return U⁻¹·Ȳ (padded coordinates dropped).

    Privacy (Thm 2 of 004): (ε, δ)-DP by advanced composition (Dwork–Rothblum–Vadhan 2010, Thm III.3) over the d
    pure-ε′ coordinates: ε/2 + dε′(e^{ε′} − 1) ≤ ε roughly when ε ≤ 4 log(1/δ) (digest 004 §2.0). Utility: if X is
    (τ, γ)-concentrated in ℓ₂ the output is β-close (:func:`theorem2_beta`) to the sample mean plus isotropic
    Laplace noise of total variance c₀·dτ²log(dn/γ)log(1/δ)/(n²ε²), c₀ = 102,400 exactly
    (:func:`wme_highd_noise_variance`).

    Parameters
    ----------
    points : array_like, shape (n, d)
        One vector per user, in [−B, B]^d (entries outside are clipped to it first: a per-user map).
    epsilon : float
        ε > 0.
    delta : float
        δ ∈ (0, 1).
    tau : float
        ℓ₂ concentration radius τ > 0 (public).
    bound : float
        B > 0, the coordinate range.
    gamma : float, optional
        Failure probability γ ∈ (0, 1) entering τ′. Default 0.01.
    rng : Generator or int, optional
    rotation : HadamardRotation, optional
        A fixed data-independent rotation (tests, teaching); drawn from ``rng`` by default.
    half_width_factor : float
        Passed to every coordinate's Algorithm 1 (2 = paper).

    Returns
    -------
    np.ndarray, shape (d,)

    Raises
    ------
    ValueError
        ε ≤ 0, δ ∉ (0, 1), τ ≤ 0, B ≤ 0, γ ∉ (0, 1), points not 2-D, empty or non-finite.

    Examples
    --------
    >>> pts = np.tile([0.5, -0.25, 0.0], (20_000, 1))
    >>> est = winsorized_mean_highd(pts, 4.0, 1e-6, 0.01, 1.0, rng=0)
    >>> est.shape
    (3,)
    """
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    tau = _limits.scale(tau, "tau")
    bound = _limits.scale(bound, "bound")
    gamma = 0.01 if gamma is None else gamma
    h = _half_width(half_width_factor)
    x = _points_2d(points, bound)
    n, d = x.shape
    g = as_rng(rng)
    prm = highd_parameters(n, d, eps, delta, tau, bound, gamma)
    if rotation is None:
        rotation = random_rotation(d, rng=g)
    elif not isinstance(rotation, HadamardRotation) or rotation.d != d:
        raise ValueError(f"rotation = {rotation!r} is not allowed: must be a HadamardRotation for d = {d}.")
    y = rotation.apply(x)  # (n, d_pad)
    rows = np.clip(y.T, -prm.bound_coord, prm.bound_coord)
    est, *_ = _wme_rows(rows, prm.epsilon_coord, prm.tau_coord, prm.bound_coord, g, h)
    return rotation.invert(est)


# ----------------------------------------------------------------------------------------------- τ presets


def tau_paper(bound: float, m: int, n: int, gamma: float) -> float:
    """τ = B·√(log(2n/γ)/(2m)): the radius 004 uses for user averages (Corollary 1, proof in D.4).

    It is Hoeffding for data of range B (e.g. [0, B]); for data in [−B, B] (range 2B) it is too small by a factor
    2, so it can UNDER-COVER: for ±B data with n = 10⁴, m = 100 the max deviation of user means exceeds it in
    every run (digest 004 pitfall P7). Privacy never depends on τ; only utility does.

    >>> round(tau_paper(1.0, 100, 10_000, 0.01), 4)
    0.2693
    """
    bound = check_positive(bound, "bound")
    m = _limits.count(m, "m")
    n = _limits.count(n, "n")
    gamma = check_probability(gamma, "gamma", open_low=True, open_high=True)
    log_term = math.log(2 * n) - math.log(gamma)  # 2n/γ overflows for subnormal γ
    return _limits.evaluate(lambda: bound * math.sqrt(log_term / (2 * m)), "τ", bound=bound, m=m, n=n, gamma=gamma)


def tau_safe(bound: float, m: int, n: int, gamma: float, *, d: int = 1) -> float:
    """A radius that provably covers all n user averages w.p. ≥ 1 − γ (digest 004 pitfall P7 [impl]).

    * d = 1, samples in [−B, B]: Hoeffding + union bound, τ = B·√(2 log(2n/γ)/m);
    * d > 1, samples in the ℓ₂ ball B₂(0, B): McDiarmid, τ = (B/√m)·(1 + √(8 log(n/γ))).

    This is the default of :func:`user_level_mean`: it keeps the (τ, γ)-concentration premise of Theorems 1–2 true,
    at the price of a 2× larger radius (4× larger noise variance) than :func:`tau_paper` in 1-D.

    >>> round(tau_safe(1.0, 100, 10_000, 0.01), 4)
    0.5387
    """
    bound = check_positive(bound, "bound")
    m = _limits.count(m, "m")
    n = _limits.count(n, "n")
    gamma = check_probability(gamma, "gamma", open_low=True, open_high=True)
    d = _limits.count(d, "d")
    if d == 1:
        log_term = math.log(2 * n) - math.log(gamma)  # 2n/γ overflows for subnormal γ
        return _limits.evaluate(lambda: bound * math.sqrt(2.0 * log_term / m), "τ", bound=bound, m=m, n=n,
                                gamma=gamma)
    log_term = math.log(n) - math.log(gamma)
    return _limits.evaluate(lambda: bound / math.sqrt(m) * (1.0 + math.sqrt(8.0 * log_term)), "τ", bound=bound,
                            m=m, n=n, gamma=gamma)


def tau_oracle(user_means, center) -> float:
    """τ = max_i ‖X_i − x₀‖₂ computed FROM THE DATA with the true centre: NOT PRIVATE (digest 004 pitfall P8).

    The smallest radius for which the data is concentrated; a teaching reference only.

    >>> tau_oracle([0.1, 0.4, -0.2], 0.0)
    0.4
    """
    x = check_real_array(user_means, "user_means", ndim=(1, 2))
    c = check_real_array(center, "center", ndim=(0, 1))
    need = 1 if x.ndim == 1 else x.shape[1]
    if c.ndim == 1 and c.size != need:
        raise ValueError(f"center has shape {c.shape}, which is not allowed: must be a number or a vector of length "
                         f"{need} (the dimension of user_means).")
    with np.errstate(over="ignore"):  # differences near ±1e308 overflow: refused below, not returned as inf
        dev = np.abs(x - c.reshape(-1)[0] if x.ndim == 1 else x - c)
        tau = float(np.max(dev)) if x.ndim == 1 else _max_row_norm(dev)
    return _limits.finite(tau, "max_i ‖X_i − x₀‖₂", user_means="...", center=center)


def _max_row_norm(a: np.ndarray) -> float:
    """max_i ‖a_i‖₂, rescaled by the largest entry so that squares of entries near 1e308 do not overflow."""
    top = float(np.max(a))
    if top == 0.0 or not math.isfinite(top):
        return top
    return top * float(np.max(np.linalg.norm(a / top, axis=1)))


def tau_subgaussian(sigma: float, n: int, gamma: float, d: int = 1) -> float:
    """τ = σ·√(d·log(2n/γ)) for n iid σ²-sub-Gaussian vectors (004, Definition 2 example; Corollary 5).

    >>> round(tau_subgaussian(1.0, 100, 0.01, 4), 4)
    6.294
    """
    sigma = check_positive(sigma, "sigma")
    n = _limits.count(n, "n")
    gamma = check_probability(gamma, "gamma", open_low=True, open_high=True)
    d = _limits.count(d, "d")
    log_term = math.log(2 * n) - math.log(gamma)  # 2n/γ overflows for subnormal γ
    return _limits.evaluate(lambda: sigma * math.sqrt(d * log_term), "τ", sigma=sigma, n=n, gamma=gamma, d=d)


def tau_for(preset: str, bound: float, m: int, n: int, gamma: float, *, d: int = 1,
            user_means=None, center=None) -> float:
    """Dispatch on a preset name: ``"safe"`` (default everywhere), ``"paper"`` or ``"oracle"`` (needs the data)."""
    check_choice(preset, "tau", TAU_PRESETS)
    if preset == "paper":
        return tau_paper(bound, m, n, gamma)
    if preset == "safe":
        return tau_safe(bound, m, n, gamma, d=d)
    if user_means is None or center is None:
        raise ValueError("tau = 'oracle' is not allowed here: must pass user_means and center (non-private).")
    return max(tau_oracle(user_means, center), 1e-12)


# ----------------------------------------------------------------------------------------------- Cor 1, Cor 5


def _user_samples(data, ndim, name="data") -> np.ndarray:
    return check_real_array(data, name, ndim=ndim)


def _resolve_tau(tau, bound, m, n, gamma, d, means, center=None):
    if isinstance(tau, str):
        if tau == "oracle" and center is None:
            raise ValueError("tau = 'oracle' is not allowed here: must pass center= (the true mean; non-private).")
        return tau_for(tau, bound, m, n, gamma, d=d, user_means=means, center=center)
    return check_positive(tau, "tau")


def user_level_mean_1d(data, epsilon: float, bound: float, *, gamma: float = 0.01, tau="safe", rng=None,
                       center=None, half_width_factor: float = 2.0, project: bool = True) -> float:
    """User-level ε-DP mean in 1-D: each user's average, then Algorithm 1 of 004 with τ from a preset.

    The 1-D case of Corollary 1 (004) run with the pure-DP Algorithm 1 directly (no rotation, no δ needed).
    Noise variance 128τ²/(n²ε²) with τ ∝ B/√m: the privacy cost falls as 1/m in MSE.

    Parameters
    ----------
    data : array_like, shape (n, m)
        Row u = the m samples of user u, in [−B, B]. Ragged input is rejected.
    epsilon, bound : float
    gamma : float
        Failure probability γ in the radius formula.
    tau : {"safe", "paper", "oracle"} or float
        Default ``"safe"`` (:func:`tau_safe`, Hoeffding: it really covers the user means w.p. ≥ 1 − γ);
        ``"paper"`` is 004's formula (:func:`tau_paper`, can under-cover, pitfall P7); ``"oracle"`` uses the true
        ``center`` and the data (non-private, teaching only).
    project : bool
        Clip the estimate to [−B, B] (default; free post-processing, digest 004 pitfall P12: Laplace noise is
        unbounded, and Corollary 1's "+βB²" term assumes a bounded output).

    >>> data = np.random.default_rng(0).choice([-1.0, 1.0], size=(2000, 50))
    >>> abs(user_level_mean_1d(data, 1.0, 1.0, rng=1)) < 0.05
    True
    """
    x = _user_samples(data, 2)
    bound = _limits.scale(bound, "bound")
    n, m = x.shape
    means = np.clip(x, -bound, bound).mean(axis=1)
    t = _resolve_tau(tau, bound, m, n, gamma, 1, means, center)
    est = winsorized_mean_1d(means, epsilon, t, bound, rng=rng, half_width_factor=half_width_factor)
    return float(np.clip(est, -bound, bound)) if project else est


def corollary1_gamma(n: int, m: int, d: int, epsilon: float) -> float:
    """The paper's choice α = γ = c₀d/(3mn²ε²) in the proof of Corollary 1 (004, D.4), capped at 0.5."""
    try:
        return min(0.5, C0 * d / (3.0 * m * n * n * epsilon * epsilon))
    except ZeroDivisionError:  # n²ε² underflowed to 0: the quotient is huge, the cap applies
        return 0.5


def user_level_mean(data, epsilon: float, delta: float, bound: float, *, gamma: float | None = None,
                    tau="safe", rng=None, center=None, half_width_factor: float = 2.0,
                    project: bool = True) -> np.ndarray:
    """Corollary 1 of 004: user-level (ε, δ)-DP mean of an ℓ₂-bounded distribution.

    X_u = (1/m)Σ_j Z_j^(u) (each user's average is one item), then Algorithm 2 (:func:`winsorized_mean_highd`)
    with radius τ. With the paper's τ = B√(log(2n/γ)/(2m)):
    E‖A − μ‖² ≤ Var(P₀)/(mn) + c₀dB²log(2n/γ)log(dn/α)log(1/δ)/(mn²ε²) + βB² (:func:`corollary1_mse_bound`).

    Parameters
    ----------
    data : array_like, shape (n, m, d)
        User u's m samples of dimension d, each in B₂(0, B) ⊂ [−B, B]^d. Ragged input is rejected.
    epsilon, delta, bound : float
    gamma : float, optional
        Default: the paper's α = γ = c₀d/(3mn²ε²) (capped at 0.5).
    tau : {"safe", "paper", "oracle"} or float
        Default ``"safe"`` = McDiarmid (B/√m)(1 + √(8 log(n/γ))) for d > 1 (Hoeffding for d = 1): it makes the
        concentration premise true; 004's own radius under-covers (digest pitfall P7). ``"oracle"`` needs
        ``center`` and is not private.
    project : bool
        Project the estimate onto the domain B₂(0, B) (default; free post-processing). The "+βB²" term of the
        bound assumes a bounded output, but Algorithm 2's Laplace noise is not (digest 004 pitfall P12).

    Returns
    -------
    np.ndarray, shape (d,)
    """
    x = _user_samples(data, 3)
    bound = _limits.scale(bound, "bound")
    eps = check_positive(epsilon, "epsilon")
    n, m, d = x.shape
    means = np.clip(x, -bound, bound).mean(axis=1)
    gamma = corollary1_gamma(n, m, d, eps) if gamma is None else gamma
    t = _resolve_tau(tau, bound, m, n, gamma, d, means, center)
    est = winsorized_mean_highd(means, eps, delta, t, bound, gamma=gamma, rng=rng,
                                half_width_factor=half_width_factor)
    norm = float(np.linalg.norm(est))
    return est * (bound / norm) if project and norm > bound else est


def subgaussian_mean(points, epsilon: float, delta: float, sigma: float, bound: float, *,
                     gamma: float = 0.01, rng=None) -> np.ndarray:
    """Corollary 5 of 004: (ε, δ)-DP mean of n iid σ-sub-Gaussian vectors on [−B, B]^d.

    Algorithm 2 with τ = σ√(d·log(2n/γ)) (:func:`tau_subgaussian`); MSE Õ(dσ²/n + d²σ²/(n²ε²)) once
    n ≳ √(d log(1/δ))/ε·log(B(dn + n²ε²)/σ) (tight up to logs, Cai–Wang–Zhang).

    >>> pts = np.random.default_rng(0).normal(0.3, 0.1, size=(20_000, 2)).clip(-1, 1)
    >>> subgaussian_mean(pts, 4.0, 1e-6, 0.1, 1.0, rng=0).shape
    (2,)
    """
    x = check_real_array(points, "points", ndim=2)
    n, d = x.shape
    tau = tau_subgaussian(sigma, n, gamma, d)
    return winsorized_mean_highd(x, epsilon, delta, tau, bound, gamma=gamma, rng=rng)


# ----------------------------------------------------------------------------------------------- Thm 10


def advanced_composition_epsilon(epsilon0: float, k: int, delta_prime: float) -> float:
    """ε̄ = k·ε₀(e^{ε₀} − 1) + √(2k ln(1/δ′))·ε₀ (Dwork–Rothblum–Vadhan 2010, Thm III.3; as used in 004 D.6).

    >>> round(advanced_composition_epsilon(0.1, 10, 1e-5), 4)
    1.6226
    """
    e0 = check_positive(epsilon0, "epsilon0", allow_zero=True)
    k = _limits.count(k, "k")
    dp = check_delta(delta_prime, "delta_prime", allow_zero=False)
    # −ln δ′: 1/δ′ overflows for subnormal δ′; e^{ε₀} − 1 = inf (not OverflowError) for ε₀ > 709
    return _limits.evaluate(lambda: k * e0 * _limits.expm1_or_inf(e0) + math.sqrt(2.0 * k * -math.log(dp)) * e0,
                            "ε̄", epsilon0=epsilon0, k=k, delta_prime=delta_prime)


def theorem10_budget(epsilon: float, delta: float, K: int) -> tuple[float, float]:
    """Per-query budget of Theorem 10 (004, D.6): ε₀ = ε/(2√(2K log(2/δ))), δ₀ = δ/(2K).

    >>> e0, d0 = theorem10_budget(1.0, 1e-5, 100)
    >>> round(e0, 5), round(d0, 12)
    (0.01012, 5e-08)
    """
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    K = _limits.count(K, "K")
    log_term = math.log(2.0) - math.log(delta)  # 2/δ overflows for subnormal δ
    return eps / (2.0 * math.sqrt(2.0 * K * log_term)), delta / (2.0 * K)


def answer_adaptive_queries(data, choose_query: Callable[[int, Sequence[np.ndarray]], Callable], K: int,
                            epsilon: float, delta: float, tau: float, bound: float, *, gamma: float = 0.01,
                            rng=None) -> list[np.ndarray]:
    """Theorem 10 of 004: answer K adaptively chosen vector queries with (ε, δ)-DP overall.

    For k = 1..K: φ_k = choose_query(k, answers so far); v_k = WinsorizedMeanHighD({φ_k(Z_i)}, ε₀, δ₀, τ, B, γ/K)
    with (ε₀, δ₀) from :func:`theorem10_budget`; strong composition over the K calls gives (ε, δ).

    Parameters
    ----------
    data : array_like
        Per-user records, first axis = users (n). Only the queries read it.
    choose_query : callable
        ``choose_query(k, answers) -> phi`` with ``phi(data) -> array (n, d)`` of values in [−B, B]^d.
    K : int
    epsilon, delta, tau, bound, gamma : float
        τ is the uniform concentration radius of the query class (Definition 3 of 004), public.

    Returns
    -------
    list of np.ndarray, one answer per query.

    Examples
    --------
    >>> z = np.random.default_rng(0).uniform(-1, 1, size=(20_000, 1))
    >>> ans = answer_adaptive_queries(z, lambda k, a: (lambda Z: Z ** k), 2, 8.0, 1e-6, 0.05, 1.0, rng=0)
    >>> len(ans), ans[0].shape
    (2, (1,))
    """
    records = check_real_array(data, "data")
    if records.ndim == 0:
        raise ValueError(f"data = {data!r} is not allowed: must be per-user records with a first axis of users.")
    if not callable(choose_query):
        raise TypeError(f"choose_query = {choose_query!r} is not allowed: must be a callable (k, answers) -> phi.")
    K = _limits.count(K, "K", cap=_limits.MAX_REPETITIONS)
    e0, d0 = theorem10_budget(epsilon, delta, K)
    gamma = check_probability(gamma, "gamma", open_low=True, open_high=True)
    g = as_rng(rng)
    answers: list[np.ndarray] = []
    for k in range(1, K + 1):
        phi = choose_query(k, list(answers))
        vals = check_real_array(phi(records), f"the answer of query {k}", ndim=(1, 2))
        if vals.ndim == 1:
            vals = vals[:, None]
        answers.append(winsorized_mean_highd(vals, e0, d0, tau, bound, gamma=gamma / K, rng=g))
    return answers


# ----------------------------------------------------------------------------------------------- closed forms


def wme_1d_noise_variance(n: int, epsilon: float, tau: float, half_width_factor: float = 2.0) -> float:
    """Var of Algorithm 1's noise: 2·(8τ/(nε))² = 128τ²/(n²ε²) (004, Thm 1; Laplace variance 2b²).

    >>> wme_1d_noise_variance(100, 1.0, 1.0)
    0.0128
    """
    n = _limits.count(n, "n")
    eps = check_positive(epsilon, "epsilon")
    tau = check_positive(tau, "tau")
    h = _half_width(half_width_factor)
    return _limits.evaluate(lambda: 2.0 * (4.0 * h * tau / (n * eps)) ** 2, "the variance", n=n, epsilon=epsilon,
                            tau=tau, half_width_factor=half_width_factor)


def wme_highd_noise_variance(n: int, d: int, epsilon: float, delta: float, tau: float,
                             gamma: float = 0.01) -> float:
    """Exact total Laplace variance of Algorithm 2: d·2·(8τ′/(nε′))² = c₀·dτ²·log(dn/γ)·log(1/δ)/(n²ε²).

    d is the padded dimension; c₀ = 102,400 = 128·100·8 is this variance exactly, not a loose bound (004, Thm 2;
    digest 004 §2.3).

    >>> v = wme_highd_noise_variance(10_000, 16, 1.0, 1e-6, 0.269, 0.01)
    >>> round(v, 3)
    0.272
    """
    p = highd_parameters(n, d, epsilon, delta, tau, 1.0, gamma)
    return _limits.evaluate(lambda: p.d_pad * 2.0 * p.noise_scale ** 2, "the variance", n=n, d=d, epsilon=epsilon,
                            delta=delta, tau=tau)


def theorem1_beta(n: int, epsilon: float, tau: float, bound: float, gamma: float) -> float:
    """β = min{1, γ + (B/τ)·exp(−nε/8)} (004, Theorem 1; see digest pitfall P3 on the exponent).

    >>> round(theorem1_beta(1000, 1.0, 0.1, 1.0, 0.01), 6)
    0.01
    """
    n = _limits.count(n, "n")
    eps = check_positive(epsilon, "epsilon")
    tau = check_positive(tau, "tau")
    bound = check_positive(bound, "bound")
    gamma = check_probability(gamma, "gamma")
    return min(1.0, gamma + _coef_exp(bound / tau, math.log(bound) - math.log(tau), -n * eps / 8.0))


def theorem2_beta(n: int, d: int, epsilon: float, delta: float, tau: float, bound: float, gamma: float) -> float:
    """β = min{1, 2γ + (d²B√log(dn/γ)/τ)·exp(−nε/(24√(d log(1/δ))))} (004, Theorem 2, main-text exponent).

    >>> theorem2_beta(1000, 16, 1.0, 1e-6, 0.781, 1.0, 0.01)
    1.0
    """
    n = _limits.count(n, "n")
    d = _limits.count(d, "d")
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    tau = check_positive(tau, "tau")
    bound = check_positive(bound, "bound")
    gamma = check_probability(gamma, "gamma", open_low=True, open_high=True)
    log_dng = math.log(d) + math.log(n) - math.log(gamma)  # dn/γ overflows for subnormal γ
    with np.errstate(over="ignore"):
        pref = float(np.float64(d * d) * bound * math.sqrt(log_dng) / tau)
    log_pref = 2.0 * math.log(d) + math.log(bound) + 0.5 * math.log(log_dng) - math.log(tau)
    return min(1.0, 2 * gamma + _coef_exp(pref, log_pref, -n * eps / (24.0 * math.sqrt(d * -math.log(delta)))))


def _coef_exp(coef: float, log_coef: float, exponent: float) -> float:
    """coef·e^{exponent} for coef > 0 and exponent ≤ 0, as written when both factors are ordinary doubles, else in
    log space (coef may have overflowed to inf, or e^{exponent} underflowed although the product does not);
    capped at e (callers take min(1, ·))."""
    if math.isfinite(coef) and exponent > -700.0:
        return min(coef * math.exp(exponent), math.e)
    return math.exp(min(log_coef + exponent, 1.0))


def theorem10_variance_bound(n: int, d: int, K: int, epsilon: float, delta: float, tau: float,
                             gamma: float) -> float:
    """Var(v′_k) ≤ 8c₀·dKτ²·log(Kdn/γ)·log²(2K/δ)/(n²ε²) (004, Theorem 10)."""
    n = _limits.count(n, "n")
    d = _limits.count(d, "d")
    K = _limits.count(K, "K")
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    tau = check_positive(tau, "tau")
    gamma = check_probability(gamma, "gamma", open_low=True, open_high=True)
    log_kdn = math.log(K * d * n) - math.log(gamma)  # K·d·n/γ and 2K/δ overflow for subnormal γ, δ
    log_2k = math.log(2 * K) - math.log(delta)
    return _limits.evaluate(lambda: 8 * C0 * d * K * tau ** 2 * log_kdn * log_2k ** 2 / (n * eps) ** 2,
                            "the variance bound", n=n, d=d, K=K, epsilon=epsilon, delta=delta, tau=tau, gamma=gamma)


def corollary1_mse_bound(n: int, m: int, d: int, epsilon: float, delta: float, bound: float, variance: float,
                         gamma: float, alpha: float | None = None) -> float:
    """Explicit Cor 1 bound (004, D.4): Var/(mn) + c₀dB²log(2n/γ)log(dn/α)log(1/δ)/(mn²ε²) + βB²."""
    n = _limits.count(n, "n")
    m = _limits.count(m, "m")
    d = _limits.count(d, "d")
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    bound = check_positive(bound, "bound")
    variance = check_positive(variance, "variance", allow_zero=True)
    gamma = check_probability(gamma, "gamma", open_low=True, open_high=True)
    alpha = gamma if alpha is None else check_probability(alpha, "alpha", open_low=True, open_high=True)
    tau = tau_paper(bound, m, n, gamma)
    # logs of quotients as differences: dn/α, 2n/γ, 1/δ overflow for subnormal α, γ, δ
    log_dna, log_2ng, log_1d = math.log(d * n) - math.log(alpha), math.log(2 * n) - math.log(gamma), -math.log(delta)
    # β: tau_paper is ∝ B, so d²B√log(dn/α)/τ = d²√(2m·log(dn/α)/log(2n/γ)) (no B/τ overflow)
    coef = d * d * bound * math.sqrt(log_dna) / tau
    log_coef = 2.0 * math.log(d) + 0.5 * math.log(2.0 * m * log_dna / log_2ng)
    beta = min(1.0, gamma + alpha + _coef_exp(coef, log_coef, -n * eps / (24 * math.sqrt(d * log_1d))))
    return _limits.evaluate(
        lambda: variance / (m * n) + C0 * d * bound ** 2 * log_2ng * log_dna * log_1d / (m * n * n * eps * eps)
        + beta * bound ** 2, "the MSE bound", n=n, m=m, d=d, epsilon=epsilon, delta=delta, bound=bound,
        variance=variance)


def theorem8_floor(n: int, epsilon: float) -> float:
    """max_ϑ E(A − ϑ)² ≥ 1/(8(1 + e^{nε})) for every user-level (ε, δ)-DP A into [0, 1], whatever m.

    004, Theorem 8 (App. B), with the explicit constant from its proof (digest 004 §3.6 [derived]); needs
    δ < 1/(2n·e^{nε}).

    >>> round(theorem8_floor(1, 1.0), 4), round(theorem8_floor(5, 1.0), 6)
    (0.0336, 0.000837)
    """
    n = _limits.count(n, "n")
    eps = check_positive(epsilon, "epsilon")
    x = n * eps
    return 0.125 * math.exp(-x) / (1.0 + math.exp(-x)) if x > 0 else 0.0625


def theorem8_mean_floor(n: int, epsilon: float, bound: float = 1.0) -> float:
    """Mean estimation on {±B}: inf max E(μ̂ − μ)² ≥ B²/(2(1 + e^{nε})) (004, Thm 8 reduction μ = B(2ϑ − 1)).

    >>> round(theorem8_mean_floor(1, 1.0), 4)
    0.1345
    """
    bound = check_positive(bound, "bound")
    floor = theorem8_floor(n, epsilon)
    x = _limits.count(n, "n") * check_positive(epsilon, "epsilon")
    if math.isfinite(bound * bound) and x <= 700.0:
        value = 4.0 * bound * bound * floor
    else:  # B² overflows or e^{−nε} underflows: 4B²·e^{−x}/(8(1 + e^{−x})) = e^{2 ln B − x − ln 2 − ln(1 + e^{−x})}
        value = _limits.exp_or_inf(2.0 * math.log(bound) - x - math.log(2.0) - math.log1p(math.exp(-x)))
    return _limits.finite(value, "the floor B²/(2(1 + e^{nε}))", n=n, epsilon=epsilon, bound=bound)


def crossover_m(n: int, gamma: float, preset: str = "paper") -> float:
    """m at which WME's noise equals the naive Laplace noise 8B²/(n²ε²) in 1-D (digest 004 §5, W1 [derived]).

    128τ²/(n²ε²) = 8B²/(n²ε²) ⇔ τ = B/4: with the paper radius m* = 8·log(2n/γ); with the safe radius
    m* = 32·log(2n/γ).

    >>> round(crossover_m(10_000, 0.01))
    116
    """
    n = _limits.count(n, "n")
    gamma = check_probability(gamma, "gamma", open_low=True, open_high=True)
    check_choice(preset, "preset", ("paper", "safe"))
    return (8.0 if preset == "paper" else 32.0) * (math.log(2 * n) - math.log(gamma))  # 2n/γ overflows if γ tiny
