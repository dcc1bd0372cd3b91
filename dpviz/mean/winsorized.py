"""Winsorized mean estimation (Levy et al. 2021, "Learning with User-Level Privacy", §3 and Appendix D).

* :func:`private_range` — Algorithm 6 (PrivateRange, after Feldman & Steinke 2017): an ε-DP exponential mechanism
  that picks a bin midpoint μ̂ near the median of the binned data and returns [μ̂ − 2τ, μ̂ + 2τ].
* :func:`winsorized_mean_1d` — Algorithm 1 (WME): PrivateRange at ε/2, clip to the range, add Lap(8τ/(nε)).
* :func:`winsorized_mean_highd` — Algorithm 2: randomized Hadamard rotation, then Algorithm 1 per rotated coordinate
  at ε′ = ε/√(8 d log(1/δ)), τ′ = 10τ√(log(dn/γ)/d), range √d·B; (ε, δ)-DP by advanced composition.
* :func:`user_level_mean` — Corollary 1 (user averages as items); :func:`subgaussian_mean` — Corollary 5;
  :func:`answer_adaptive_queries` — Theorem 10.
The τ presets and every closed form of Levy et al. 2021 (variances, β's of Theorems 1, 2, 10, the Corollary 1 bound, the
fixed-n floor of Theorem 8) are in :mod:`dpviz.mean.bounds`.

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
    Cap,
    as_rng,
    check_in_range,
    check_positive,
    check_probability,
    check_real_array,
    evaluate_finite,
)
from dpviz.mean.bounds import corollary1_gamma, highd_parameters, tau_for, tau_subgaussian, theorem10_budget
from dpviz.mean.hadamard import (
    HALF_WIDTH,
    REPETITIONS,
    SCALE,
    HadamardRotation,
    check_params,
    random_rotation,
)
from dpviz.mechanisms.exponential import _gumbel_argmax

__all__ = [
    "RangeBins",
    "range_bins",
    "private_range_probabilities",
    "private_range",
    "WMEResult",
    "winsorized_mean_1d",
    "winsorized_mean_1d_result",
    "winsorized_mean_highd",
    "user_level_mean",
    "user_level_mean_1d",
    "subgaussian_mean",
    "answer_adaptive_queries",
]


# ----------------------------------------------------------------------------------------------- bins

#: Bins ⌈B/τ⌉ of PrivateRange: sampled exactly by segments up to 2⁵² (integer bin indices stay exact).
BINS = Cap(2**52, "bins ⌈B/τ⌉ of PrivateRange (exact integer bin indices)")
#: Bins listed one by one (:func:`private_range_probabilities`, :attr:`RangeBins.midpoints`).
DENSE_BINS = Cap(10_000_000, "bins listed one by one")


@dataclass(frozen=True)
class RangeBins:
    """The bins of Algorithm 6 (Levy et al. 2021): l = ⌈B/τ⌉ bins of width 2τ tiling [−B, B] (the last one shorter).

    Footnote 9 of Levy et al. 2021 writes the last length as "2B − (t−1)τ"; the consistent reading is 2B − 2(l−1)τ.
    ``midpoints[j]`` is the centre of bin j.
    """

    tau: float
    bound: float

    def __post_init__(self):
        tau, bound = SCALE.check(self.tau, "tau"), SCALE.check(self.bound, "bound")
        if not bound / tau <= BINS.limit:
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
        DENSE_BINS.check(ell, f"the bins ⌈B/τ⌉ at tau = {self.tau!r} with bound = {self.bound!r}")
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
    """The bins used by :func:`private_range` (Algorithm 6 of Levy et al. 2021, step 1).

    >>> range_bins(0.3, 1.0).count
    4
    >>> range_bins(0.3, 1.0).midpoints.round(3).tolist()
    [-0.7, -0.1, 0.5, 0.9]
    """
    return RangeBins(tau, bound)


def _check_common(epsilon, tau, bound):
    eps = check_positive(epsilon, "epsilon")
    tau = SCALE.check(tau, "tau")
    bound = SCALE.check(bound, "bound")
    return eps, tau, bound


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
    """Exact selection law of Algorithm 6 (Levy et al. 2021): P(μ̂ = x) = exp(−ε c(x)/2) / Σ_{x′} exp(−ε c(x′)/2).

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
    mids = bins.midpoints  # refuses more than DENSE_BINS bins before anything of that size is allocated
    counts = np.bincount(bins._index(x), minlength=bins.count)
    with np.errstate(under="ignore"):
        w = np.exp(_selection_logw(_costs(counts), eps))
    return mids, w / w.sum()


def _sample_bins_dense(idx: np.ndarray, ell: int, eps: float, g: np.random.Generator,
                       weights: np.ndarray | None = None) -> np.ndarray:
    """Rows of bin indices (T, n) → one sampled bin per row, by Gumbel-max over all ℓ bins (exact). With
    ``weights`` (T, V), ``idx`` is the bin of each of V distinct values (shape (V,)) and row t holds value v
    weights[t, v] times (the same bin counts, the same draws)."""
    T = idx.shape[0] if weights is None else weights.shape[0]
    flat = (idx + ell * np.arange(T)[:, None]).ravel()
    counts = np.bincount(flat, weights=None if weights is None else weights.ravel(),
                         minlength=T * ell).reshape(T, ell)
    logw = _selection_logw(_costs(counts), eps)
    return _gumbel_argmax(logw, g, axis=1)


def _sample_bin_segments(idx: np.ndarray, ell: int, eps: float, g: np.random.Generator) -> int:
    """One row: exact sampling in O(n log n) whatever ℓ, using that c is constant between occupied bins.

    Segments: each occupied bin (size 1), each gap between consecutive occupied bins, and the two outer gaps
    (cost n). Pick a segment with weight size·exp(−εc/2), then a uniform bin inside it (derived here).
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
    k = int(_gumbel_argmax(logw, g))
    return int(starts[k] + g.integers(sizes[k]))


def _dense_selection(ell: int, trials: int, n: int) -> bool:
    """Whether PrivateRange samples ``trials`` rows of ``n`` users over ℓ bins densely (Gumbel-max over every bin)
    rather than by segments."""
    return ell * trials <= 4_000_000 and ell <= 4 * n + 64


def _private_range_rows(rows: np.ndarray, eps: float, tau: float, bound: float, g) -> np.ndarray:
    """Sampled midpoint μ̂ for each row of ``rows`` (T, n), values already in [−B, B]."""
    bins = range_bins(tau, bound)
    ell = bins.count
    idx = bins._index(rows)
    if _dense_selection(ell, rows.shape[0], rows.shape[1]):
        j = _sample_bins_dense(idx, ell, eps, g)
    else:
        j = np.array([_sample_bin_segments(r, ell, eps, g) for r in idx])
    return bins._midpoint(j)


def private_range(values, epsilon: float, tau: float, bound: float, *, rng=None,
                  half_width_factor: float = 2.0) -> tuple[float, float]:
    """Algorithm 6 of Levy et al. 2021 (PrivateRange): ε-DP interval [μ̂ − 2τ, μ̂ + 2τ] around an approximate median.

    Bins of width 2τ tile [−B, B] (l = ⌈B/τ⌉; footnote 9's last-bin length read as 2B − 2(l−1)τ); each value is
    replaced by the nearest midpoint X′_i (step 2: "min" read as argmin; with a short last bin this is not always
    the value's own bin, see :meth:`RangeBins.index`); μ̂ is drawn with
    P(μ̂ = x) ∝ exp(−ε·c(x)/2), c(x) = max(#{X′_i < x}, #{X′_i > x}) (see :func:`private_range_probabilities`).
    Sampling is exact in O(n log n) whatever l (segments of constant cost).

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
        Interval is [μ̂ − hτ, μ̂ + hτ]; the paper's h = 2 (width 4τ). h = 3 is dpviz's "safe" variant (width 4τ
        can clip data that is τ-concentrated: the last step of the proof of Thm 1 needs radius 3τ).

    Returns
    -------
    (a, b) : tuple of float

    Raises
    ------
    ValueError
        ε ≤ 0, τ ≤ 0, B ≤ 0, non-1-D, empty or non-finite values.

    Notes
    -----
    Utility (Levy et al. 2021, Thm 1 proof, citing Feldman & Steinke 2017 Thm 3.1): outputs a (1/4, 3/4)-quantile of
    {X′_i} w.p. ≥ 1 − (B/τ)e^{−nε/8} — with the budget PrivateRange receives. Theorem 1 writes
    e^{−nε/8} with Algorithm 1's ε, although PrivateRange there receives ε/2: a worst-case analysis then gives only
    e^{−nε/16} (derived here); dpviz reproduces the paper's formula.

    Examples
    --------
    >>> a, b = private_range([0.1, 0.12, 0.11, 0.13] * 50, 5.0, 0.1, 1.0, rng=1)
    >>> round(a, 6), round(b, 6)
    (-0.1, 0.3)
    """
    eps, tau, bound = _check_common(epsilon, tau, bound)
    h = HALF_WIDTH.check(half_width_factor, "half_width_factor")
    x = _values_1d(values, bound)
    mu = float(_private_range_rows(x[None, :], eps, tau, bound, as_rng(rng))[0])
    return mu - h * tau, mu + h * tau


# ----------------------------------------------------------------------------------------------- WME 1-D


@dataclass(frozen=True)
class WMEResult:
    """Everything Algorithm 1 of Levy et al. 2021 computes on one run (for figures and diagnostics)."""

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


def _wme_scale(n: int, eps: float, tau: float, h: float) -> float:
    """The Laplace scale of Algorithm 1, 2hτ/(n·ε/2) (8τ/(nε) for h = 2); a ValueError if it leaves the double
    range."""
    return evaluate_finite(lambda: 2.0 * h * tau / n / (eps / 2.0), "the Laplace scale 2hτ/(n·ε/2)",
                            epsilon=eps, tau=tau, n=n)


def _wme_rows(rows: np.ndarray, eps: float, tau: float, bound: float, g, h: float = 2.0):
    """Algorithm 1 on each row of ``rows`` (T, n) in one vectorised pass. Returns (estimates, mu_hat, noise).
    A ValueError if the Laplace scale 8τ/(nε) (for h = 2) leaves the double range (ε ≲ 1e-300)."""
    n = rows.shape[1]
    scale = _wme_scale(n, eps, tau, h)
    mu = _private_range_rows(rows, eps / 2.0, tau, bound, g)
    lo = (mu - h * tau)[:, None]
    hi = (mu + h * tau)[:, None]
    clipped = np.minimum(np.maximum(rows, lo), hi).mean(axis=1)
    noise = g.laplace(0.0, scale, size=rows.shape[0])
    return clipped + noise, mu, clipped, noise, scale


def _wme_grouped(values: np.ndarray, counts: np.ndarray, n: int, eps: float, tau: float, bound: float, g,
                 h: float = 2.0):
    """:func:`_wme_rows` for T rows given as V distinct ``values`` (sorted, already in [−B, B]) and ``counts``
    (T, V): row t holds values[v] counts[t, v] times, n values in all. The same algorithm and the same random
    draws as on the expanded rows (equal up to the rounding of the row sums), in O(T·V) instead of O(T·n): a
    simulation of users with m samples in [−B, B] has at most m + 1 distinct means. PrivateRange must be dense
    here (:func:`_dense_selection`). Returns (estimates, mu_hat, clipped mean, noise, scale)."""
    scale = _wme_scale(n, eps, tau, h)
    bins = range_bins(tau, bound)
    mu = bins._midpoint(_sample_bins_dense(bins._index(values), bins.count, eps / 2.0, g, weights=counts))
    clipped = (counts * np.minimum(np.maximum(values, (mu - h * tau)[:, None]), (mu + h * tau)[:, None])).sum(
        axis=1) / n
    noise = g.laplace(0.0, scale, size=counts.shape[0])
    return clipped + noise, mu, clipped, noise, scale


def winsorized_mean_1d(values, epsilon: float, tau: float, bound: float, *, rng=None,
                       half_width_factor: float = 2.0) -> float:
    """Algorithm 1 of Levy et al. 2021 (WinsorizedMean1D, "WME"): ε-DP mean = clip to PrivateRange + Lap(8τ/(nε)).

    1. [a, b] = PrivateRange(X, ε/2, τ, B) (Algorithm 6), |b − a| = 4τ;
    2. μ̄ = (1/n)·Σ_i Π_[a,b](X_i) + ξ with ξ ~ Lap(8τ/(nε)) (scale; variance 128τ²/(n²ε²)).

    Privacy (Thm 1 of Levy et al. 2021): ε-DP for any data — PrivateRange spends ε/2 and the clipped mean has
    sensitivity 4τ/n, so Laplace with scale (4τ/n)/(ε/2) spends the other ε/2. Utility: if X is (τ, γ)-concentrated, the
    output is β-close to (1/n)ΣX_i + Lap(8τ/(nε)) with β = min{1, γ + (B/τ)e^{−nε/8}} (:func:`theorem1_beta`).

    Parameters
    ----------
    values : array_like, shape (n,)
        One value per user (e.g. each user's own average), in [−B, B]; values outside are projected first.
    epsilon, tau, bound : float
        ε > 0, concentration radius τ > 0, range B > 0 (all public).
    rng : Generator or int, optional
    half_width_factor : float
        2 (paper, interval width 4τ, Laplace scale 8τ/(nε)); 3 is dpviz's safe variant (Laplace scale 12τ/(nε);
        see :func:`private_range`).

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
    h = HALF_WIDTH.check(half_width_factor, "half_width_factor")
    x = _values_1d(values, bound)
    est, mu, clipped, noise, scale = _wme_rows(x[None, :], eps, tau, bound, as_rng(rng), h)
    lo, hi = float(mu[0]) - h * tau, float(mu[0]) + h * tau
    frac = float(np.mean((x < lo) | (x > hi)))
    return WMEResult(float(est[0]), lo, hi, float(clipped[0]), float(noise[0]), float(scale), frac)


# ----------------------------------------------------------------------------------------------- WME high-D


def _points_2d(points, bound, name="points") -> np.ndarray:
    x = check_real_array(points, name, ndim=2)
    return np.clip(x, -bound, bound)


def winsorized_mean_highd(points, epsilon: float, delta: float, tau: float, bound: float, *,
                          gamma: float | None = None, rng=None, rotation: HadamardRotation | None = None,
                          half_width_factor: float = 2.0) -> np.ndarray:
    """Algorithm 2 of Levy et al. 2021 (WinsorizedMeanHighD): (ε, δ)-DP mean of n vectors, error ∝ τ (ℓ₂ radius), not B.

    1. D = diag(ω), ω ~ Unif{±1}^d (fresh, data-independent); U = d^{-1/2}·H·D; Y_i = U·X_i (zero-padded to
       d = 2^⌈log₂ d⌉);
    2. ε′ = ε/√(8 d log(1/δ)), τ′ = 10τ√(log(dn/γ)/d);
    3. Ȳ(j) = WinsorizedMean1D({Y_i(j)}, ε′, τ′, √d·B) for each coordinate j (:func:`winsorized_mean_1d`);
    4. return U⁻¹·Ȳ (padded coordinates dropped).

    Privacy (Thm 2 of Levy et al. 2021): (ε, δ)-DP by advanced composition (Dwork, Rothblum & Vadhan 2010, Thm III.3)
    over the d pure-ε′ coordinates: ε/2 + dε′(e^{ε′} − 1) ≤ ε roughly when ε ≤ 4 log(1/δ) (derived
    here). Utility: if X is (τ, γ)-concentrated in ℓ₂ the output is β-close (:func:`theorem2_beta`) to
    the sample mean plus isotropic Laplace noise of total variance c₀·dτ²log(dn/γ)log(1/δ)/(n²ε²), c₀ = 102,400 exactly
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
    eps, delta = check_params(epsilon=epsilon, delta=delta)
    tau = SCALE.check(tau, "tau")
    bound = SCALE.check(bound, "bound")
    gamma = 0.01 if gamma is None else gamma
    h = HALF_WIDTH.check(half_width_factor, "half_width_factor")
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
    """User-level ε-DP mean in 1-D: each user's average, then Algorithm 1 of Levy et al. 2021 with τ from a preset.

    The 1-D case of Corollary 1 (Levy et al. 2021) run with the pure-DP Algorithm 1 directly (no rotation, no δ needed).
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
        ``"paper"`` is Levy et al. 2021's formula (:func:`tau_paper`, which can under-cover); ``"oracle"`` uses
        the true ``center`` and the data (non-private, teaching only).
    project : bool
        Clip the estimate to [−B, B] (default; free post-processing: Laplace noise is unbounded, and Corollary 1's
        "+βB²" term assumes a bounded output).

    >>> data = np.random.default_rng(0).choice([-1.0, 1.0], size=(2000, 50))
    >>> abs(user_level_mean_1d(data, 1.0, 1.0, rng=1)) < 0.05
    True
    """
    x = _user_samples(data, 2)
    bound = SCALE.check(bound, "bound")
    n, m = x.shape
    means = np.clip(x, -bound, bound).mean(axis=1)
    t = _resolve_tau(tau, bound, m, n, gamma, 1, means, center)
    est = winsorized_mean_1d(means, epsilon, t, bound, rng=rng, half_width_factor=half_width_factor)
    return float(np.clip(est, -bound, bound)) if project else est


def user_level_mean(data, epsilon: float, delta: float, bound: float, *, gamma: float | None = None,
                    tau="safe", rng=None, center=None, half_width_factor: float = 2.0,
                    project: bool = True) -> np.ndarray:
    """Corollary 1 of Levy et al. 2021: user-level (ε, δ)-DP mean of an ℓ₂-bounded distribution.

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
        concentration premise true; Levy et al. 2021's own radius under-covers (:func:`tau_paper`). ``"oracle"`` needs
        ``center`` and is not private.
    project : bool
        Project the estimate onto the domain B₂(0, B) (default; free post-processing). The "+βB²" term of the
        bound assumes a bounded output, but Algorithm 2's Laplace noise is not.

    Returns
    -------
    np.ndarray, shape (d,)
    """
    x = _user_samples(data, 3)
    bound = SCALE.check(bound, "bound")
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
    """Corollary 5 of Levy et al. 2021: (ε, δ)-DP mean of n iid σ-sub-Gaussian vectors on [−B, B]^d.

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


def answer_adaptive_queries(data, choose_query: Callable[[int, Sequence[np.ndarray]], Callable], K: int,
                            epsilon: float, delta: float, tau: float, bound: float, *, gamma: float = 0.01,
                            rng=None) -> list[np.ndarray]:
    """Theorem 10 of Levy et al. 2021: answer K adaptively chosen vector queries with (ε, δ)-DP overall.

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
        τ is the uniform concentration radius of the query class (Definition 3 of Levy et al. 2021), public.

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
    K = REPETITIONS.check(K, "K")
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

