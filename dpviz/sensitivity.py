"""Counting with noise in the central model: sensitivity, what clipping costs, post-processing and composition.

Small pure functions for lesson 02:

* global sensitivity Δ (Dwork & Roth 2014, Def. 3.1) of a count, a
  clipped sum, a clipped mean and a histogram, for the two neighbouring relations:
  ``"add_remove"`` (one record added or removed) and ``"replace"`` (one record changed);
* the clipping trade-off: the exact expected squared error bias² + 2b² of a clipped, Laplace-noised sum or mean on a
  given data set (b = Δ/ε makes it ε-DP by Dwork & Roth 2014, Thm 3.6; Lap(b) has variance 2b², Def. 3.3);
* post-processing (Dwork & Roth 2014, Prop. 2.1): exact mean squared error of a Laplace count clamped at 0 or
  rounded (rounding *raises* it unless b is below :func:`rounding_breakeven_scale`), and the exact variances of a
  hierarchy (total + bins) made consistent by least squares (the consistency step of Hay et al. 2010);
* sequential and parallel composition of pure ε (Dwork & Roth 2014, Thm 3.14; McSherry 2009, Thm 2 (parallel)).

The noise itself is :class:`dpviz.mechanisms.Laplace`; nothing here samples. Every function validates its input
once, here, and returns a finite, exact value or refuses with a ValueError naming the caller's parameter: values
that would leave the double range (a scale whose error 2b² overflows, an ε that small) are refused with their
limit, never returned as inf or NaN.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from dpviz._validation import (
    ArrayOf,
    Cap,
    Interval,
    check_choice,
    check_in_range,
    check_integer,
    check_positive,
    check_real_array,
    checked,
)
from dpviz.mechanisms import Laplace

__all__ = [
    "RELATIONS",
    "QUERIES",
    "count_sensitivity",
    "sum_sensitivity",
    "mean_sensitivity",
    "histogram_sensitivity",
    "query_sensitivity",
    "laplace_scale",
    "example_dataset",
    "clipping_error",
    "clamped_laplace_mse",
    "rounded_laplace_mse",
    "rounding_breakeven_scale",
    "hierarchy_range_variance",
    "raw_range_variance",
    "sequential_epsilon",
    "parallel_epsilon",
]

#: The neighbouring relations: one record added or removed, or one record replaced.
RELATIONS = ("add_remove", "replace")
#: The queries whose sensitivity :func:`query_sensitivity` knows.
QUERIES = ("count", "sum", "mean", "histogram")

#: A mean's n: at most a trillion records (beyond any data set, and exact in a double).
N = Interval(1, 10**12, integer=True)
#: Values of ``data`` :func:`clipping_error` takes (and the size of :func:`example_dataset`).
DATA_VALUES = Cap(1_000_000, "the values of data")
#: Upper bounds ``upper`` of one :func:`clipping_error` call.
BOUNDS = Cap(100_000, "the upper bounds of one call")
#: Data × bound pairs :func:`clipping_error` clips in one call.
PAIRS = Cap(100_000_000, "the value × bound pairs clipped in one call")
#: ``data``: |value| ≤ 10¹⁰⁰, so that a million such values sum, and their bias squares, far inside the double range.
DATA = ArrayOf(ndim=1, max_abs=1e100)
#: A Laplace scale b whose mean squared error (about 2b²) is computed: b ≤ 10¹⁵⁰ (2b² at 10¹⁵⁰ is 2·10³⁰⁰).
SCALE = Interval(0.0, 1e150, open_low=True)
#: The variance of one noisy count: at most 10³⁰⁰, so that a range over 10,000 bins stays below 10³⁰⁴.
VARIANCE = Interval(0.0, 1e300, open_low=True)
#: The variance of a noisy total (0: a public, exact total).
TOTAL_VARIANCE = Interval(0.0, 1e300)
#: The number of bins of a range query's histogram.
BINS = Interval(1, 10_000, integer=True)


def _choice(value, name: str, choices):
    """``value`` must be one of the strings ``choices`` (an array is refused here, before numpy compares it)."""
    if not isinstance(value, str):
        raise ValueError(f"{name} = {value!r} is not allowed: must be one of " + ", ".join(map(repr, choices)) + ".")
    return check_choice(value, name, choices)


def _relation(relation: str) -> str:
    return _choice(relation, "relation", RELATIONS)


def _bounds(lower, upper) -> tuple[float, float]:
    lo = check_in_range(lower, "lower", -1e12, 1e12)
    hi = check_in_range(upper, "upper", -1e12, 1e12)
    if hi < lo:
        raise ValueError(f"upper = {upper!r} is not allowed: must be >= lower = {lower!r} (clipping range [lower, "
                         "upper]).")
    return lo, hi


def count_sensitivity(relation: str = "add_remove") -> float:
    """Δ of a count of the records with some property: 1 under both relations (adding, removing or changing one
    record moves it by at most 1). (The plain size n of the data set has Δ = 0 under replace: n is public there.)"""
    _relation(relation)
    return 1.0


def sum_sensitivity(lower: float, upper: float, relation: str = "add_remove") -> float:
    """Δ of a sum of values clipped to [lower, upper]: max(|lower|, |upper|) under add/remove (the record added or
    removed), upper − lower under replace (one value moves across the whole range)."""
    lo, hi = _bounds(lower, upper)
    if _relation(relation) == "add_remove":
        return max(abs(lo), abs(hi))
    return hi - lo


def mean_sensitivity(lower: float, upper: float, n: int, relation: str = "replace") -> float:
    """Δ of the mean of n values clipped to [lower, upper], over data sets of n records and their neighbours.

    replace (n ≥ 1): (upper − lower)/n. add/remove (n ≥ 2, so the neighbour with one record fewer is not empty):
    removing a record y moves the mean by |y − mean of the rest|/n ≤ (upper − lower)/n, adding one moves it by at
    most (upper − lower)/(n + 1), so Δ = (upper − lower)/n. (Under add/remove n itself is private: a real release
    must not use the true n to scale the noise; the lesson uses a public n.)
    """
    lo, hi = _bounds(lower, upper)
    rel = _relation(relation)
    n = check_integer(n, "n", minimum=2 if rel == "add_remove" else 1, maximum=N.high)
    return (hi - lo) / n


def histogram_sensitivity(relation: str = "add_remove", norm: str = "l1") -> float:
    """Δ of a histogram (the vector of bin counts; bins fixed in advance, each record in exactly one bin).

    add/remove: one bin moves by 1 (L1 = L2 = 1). replace: one bin loses 1 and another gains 1 (L1 = 2, L2 = √2).
    """
    rel = _relation(relation)
    _choice(norm, "norm", ("l1", "l2"))
    if rel == "add_remove":
        return 1.0
    return 2.0 if norm == "l1" else math.sqrt(2.0)


def query_sensitivity(query: str, lower: float = 0.0, upper: float = 1.0, n: int = 100,
                      relation: str = "add_remove") -> float:
    """The L1 sensitivity of ``query`` ("count", "sum", "mean" or "histogram"): one entry point for the panel."""
    _choice(query, "query", QUERIES)
    if query == "count":
        return count_sensitivity(relation)
    if query == "sum":
        return sum_sensitivity(lower, upper, relation)
    if query == "mean":
        return mean_sensitivity(lower, upper, n, relation)
    return histogram_sensitivity(relation)


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """The scale b = Δ/ε that makes the Laplace mechanism ε-DP (Dwork & Roth 2014, Thm 3.6).

    Refused, naming both arguments, when Δ/ε leaves the double range (above about 1.8·10³⁰⁸, or below the
    smallest positive double)."""
    d = check_positive(sensitivity, "sensitivity")
    eps = check_positive(epsilon, "epsilon")
    b = d / eps
    if not (math.isfinite(b) and b > 0):
        raise ValueError(f"sensitivity = {sensitivity!r} and epsilon = {epsilon!r} are not allowed: the Laplace "
                         f"scale b = Δ/ε must be a finite double > 0 (here it is {b!r}).")
    return Laplace(scale=b, sensitivity=d).scale


@checked(n=Interval(1, DATA_VALUES.limit, integer=True))
def example_dataset(n: int = 1000, median: float = 30.0, spread: float = 0.9) -> np.ndarray:
    """A fixed synthetic data set (no randomness): the n quantiles (i + ½)/n of a log-normal law with the given
    median and log-scale ``spread``, e.g. weekly incomes in hundreds or hours online: skewed, with a long tail."""
    from scipy import stats

    median = check_in_range(median, "median", 0.0, 1e100, low_inclusive=False)
    spread = check_in_range(spread, "spread", 0.0, 10.0, low_inclusive=False)  # e^{10·4.9}: far inside the range
    u = (np.arange(n) + 0.5) / n
    return median * np.exp(spread * stats.norm.ppf(u))


def clipping_error(data, lower: float, upper, epsilon: float, query: str = "sum",
                   relation: str = "add_remove") -> dict[str, np.ndarray | float]:
    """Exact expected squared error of the clipped, Laplace-noised sum (or mean) of ``data``:

        E[(M(x) − true)²] = bias² + 2b²,   bias = Σ (clip(xᵢ) − xᵢ),   b = Δ(lower, upper)/ε

    (2b² is the variance of Lap(b), Dwork & Roth 2014, Def. 3.3; for the mean, both divided by n and Δ from
    :func:`mean_sensitivity`, so under add/remove ``data`` must hold at least 2 values). ``upper`` may be an array of
    upper bounds (one result per bound). Returns ``{"bias2", "noise_var", "total"}`` (arrays or floats).

    The bias sums the clipped amounts themselves (zero for every value inside the bounds), not the difference of
    two large sums. Caps: |values| ≤ 10¹⁰⁰, at most 10⁶ values, 10⁵ bounds and 10⁸ value × bound pairs; an ε so
    small that 2b² leaves the double range is refused.
    """
    x = check_real_array(data, "data", ndim=1)
    DATA_VALUES.check(x.size, "len(data)")
    x = DATA.check(x, "data")
    eps = check_positive(epsilon, "epsilon")
    query = _choice(query, "query", ("sum", "mean"))
    rel = _relation(relation)
    scalar = np.ndim(upper) == 0
    ups = np.atleast_1d(check_real_array(upper, "upper", ndim=(0, 1)))
    BOUNDS.check(ups.size, "len(upper)")
    PAIRS.check(x.size * ups.size, f"len(data)·len(upper) = {x.size}·{ups.size}")
    lo = check_in_range(lower, "lower", -1e12, 1e12)
    for hi in (float(np.min(ups)), float(np.max(ups))):
        _bounds(lo, hi)  # every bound within range and >= lower
    if query == "mean" and rel == "add_remove" and x.size < 2:
        raise ValueError(f"data has {x.size} value, which is not allowed: must hold at least 2 values for the mean "
                         "under add/remove (its neighbour with one record fewer must not be empty).")
    chunk = max(1, 2_000_000 // x.size)  # rows of the clipped matrix per step: at most ~16 MB at a time
    change = np.concatenate([(np.clip(x[None, :], lo, ups[i:i + chunk, None]) - x[None, :]).sum(axis=1)
                             for i in range(0, ups.size, chunk)])
    if query == "sum":
        bias2 = change**2
        d = np.array([sum_sensitivity(lo, float(hi), rel) for hi in ups])
    else:
        bias2 = (change / x.size) ** 2
        d = np.array([mean_sensitivity(lo, float(hi), x.size, rel) for hi in ups])
    with np.errstate(over="ignore"):
        b = d / eps
        noise = 2.0 * b * b
        total = bias2 + noise
    if not np.all(np.isfinite(total)):
        raise ValueError(f"epsilon = {epsilon!r} is not allowed here: the noise variance 2(Δ/ε)² = "
                         f"2·({float(np.max(d)):.6g}/ε)² must be a finite double (at most about 1.8e+308).")
    out = {"bias2": bias2, "noise_var": noise, "total": total}
    return {k: float(v[0]) for k, v in out.items()} if scalar else out


@checked(scale=SCALE)
def clamped_laplace_mse(true_count, scale: float):
    """Exact E[(max(x + N, 0) − x)²] for N ~ Lap(b) and a true count x ≥ 0 (scalar or array):

        2b² − e^{−x/b}·b(x + b)

    (split at N = −x: the clamped part costs x² instead of N², and E[N²; N ≤ −x] = ½e^{−x/b}(x² + 2bx + 2b²);
    2b² is the variance of Lap(b), Dwork & Roth 2014, Def. 3.3). At x = 0 it is b², half the unclamped 2b²:
    clamping is post-processing (Dwork & Roth 2014, Prop. 2.1), so it is free in privacy, and here it even lowers
    the error. For x/b beyond the double range the correction term is exactly 0 in double precision.
    """
    b = scale
    x = check_real_array(true_count, "true_count", ndim=(0, 1))
    if np.any(x < 0):
        raise ValueError(f"true_count = {float(np.min(x))!r} is not allowed: must be a count >= 0.")
    with np.errstate(over="ignore"):  # x/b = inf when b is subnormal: e^{−inf} = 0 is the right factor
        t = x / b
    # e^{−t}·(x + b) first: it is 0 whenever b(x + b) alone could overflow (t > 745 then)
    out = 2.0 * b * b - (np.exp(-t) * (x + b)) * b
    return float(out) if np.ndim(true_count) == 0 else out


def _rounded_mse(b: float) -> float:
    # u = e^{−1/(2b)}; 1 − u² = −expm1(−1/b) keeps its digits for large b; 1/b = inf for subnormal b gives 0
    inv = 1.0 / b if b > 1e-300 else math.inf
    u = math.exp(-0.5 * inv)
    d = -math.expm1(-inv)
    return u * (1.0 + u * u) / (d * d)


@checked(scale=SCALE)
def rounded_laplace_mse(scale: float) -> float:
    """Exact E[(round(x + N) − x)²] for an integer true count x and N ~ Lap(b): with u = e^{−1/(2b)},

        P[round(N) = ±j] = ½ u^{2j}(1/u − u) for j ≥ 1,  so  MSE = (1/u − u)·Σ j² u^{2j} = u(1 + u²)/(1 − u²)²

    (Σ j² r^j = r(1 + r)/(1 − r)³ with r = u²). Ties (probability 0) do not matter. Rounding is post-processing
    (Dwork & Roth 2014, Prop. 2.1), free in privacy, but it lowers the error below the raw 2b² only for b below
    :func:`rounding_breakeven_scale` (about 0.187); above it rounding *adds* error, up to 1/12 as b → ∞
    (MSE − 2b² → 1/12: the rounding error becomes uniform on [−½, ½]). As b → 0 the MSE is about e^{−1/(2b)}, 0 in
    double precision for b below about 7·10⁻⁴.
    """
    return _rounded_mse(scale)


def rounding_breakeven_scale() -> float:
    """The Laplace scale b* ≈ 0.18684 at which rounding a noisy integer count to the nearest integer leaves its mean
    squared error unchanged: the one root of u(1 + u²)/(1 − u²)² = 2b² (u = e^{−1/(2b)}; :func:`rounded_laplace_mse`).
    Rounding lowers the error for b < b* and raises it for b > b*; for a count (Δ = 1, b = 1/ε) it helps only at
    ε > 1/b* ≈ 5.352. Found by Brent's method on [0.1, 0.3] to 2·10⁻¹² (the difference is −0.017 at b = 0.1 and
    +0.05 at b = 0.3, with one sign change on (0, ∞)).
    """
    return brentq(lambda b: _rounded_mse(b) - 2.0 * b * b, 0.1, 0.3, xtol=1e-15)


def _bins_range(bins, width) -> tuple[int, np.ndarray, bool]:
    bins = BINS.check(bins, "bins")
    scalar = np.ndim(width) == 0
    r = np.atleast_1d(check_real_array(width, "width", ndim=(0, 1)))
    if np.any(r != np.floor(r)) or np.any(r < 1) or np.any(r > bins):
        raise ValueError(f"width = {width!r} is not allowed: must be integers in 1..bins = {bins}.")
    return bins, r, scalar


@checked(variance=VARIANCE)
def raw_range_variance(bins: int, width, variance: float = 1.0):
    """Variance of a range query over ``width`` adjacent bins answered from independently noised bins: each bin
    has variance ``variance`` (at most 10³⁰⁰), so the sum has width·variance (ignoring any noisy total)."""
    bins, r, scalar = _bins_range(bins, width)
    out = r * float(variance)
    return float(out[0]) if scalar else out


@checked(variance=VARIANCE)
def hierarchy_range_variance(bins: int, width, variance: float = 1.0, total_variance: float | None = None):
    """Exact variance of a range query over ``width`` of the ``bins`` bins after least-squares consistency of the
    two-level hierarchy: B = ``bins`` noisy bins of variance v = ``variance`` and a noisy total of variance
    v_T = ``total_variance`` (default v; 0 for a total that is public and exact), combined by weighted
    least squares (the consistency step of Hay et al. 2010; the variance derived here):

        the estimate's covariance is (AᵀΣ⁻¹A)⁻¹ = v·I − v²·11ᵀ/(B·v + v_T), so a range of width r has variance
        v·r·(1 − r/(B + v_T/v))

    (A stacks the all-ones row of the total over the identity of the bins; Sherman–Morrison). With v_T = v this is
    v·r(B + 1 − r)/(B + 1); with a public total (v_T = 0, the limit: least squares under the constraint that the
    bins add up to it) v·r(B − r)/B. Never more than the raw r·v of the same bins.
    """
    bins, r, scalar = _bins_range(bins, width)
    v = float(variance)
    vt = v if total_variance is None else TOTAL_VARIANCE.check(total_variance, "total_variance")
    t = vt / v  # may be inf (a useless total): then r/(B + t) = 0, the raw variance
    out = v * r * (1.0 - r / (bins + t))
    return float(out[0]) if scalar else out


def _epsilons(epsilons) -> np.ndarray:
    e = check_real_array(epsilons, "epsilons", ndim=1)
    if np.any(e < 0):
        raise ValueError(f"epsilons contains {float(e[e < 0][0])!r}, which is not allowed: must be numbers >= 0.")
    return e


def sequential_epsilon(epsilons) -> float:
    """Mechanisms run on the same data: the ε add up (Dwork & Roth 2014, Thm 3.14). A total beyond the double
    range is refused."""
    e = _epsilons(epsilons)
    with np.errstate(over="ignore"):
        total = float(np.sum(e))
    if not math.isfinite(total):
        raise ValueError("epsilons sum to more than the largest double, which is not allowed: must have a finite "
                         "total.")
    return total


def parallel_epsilon(epsilons) -> float:
    """Mechanisms run on disjoint parts of the data (each record in one part): the largest ε (McSherry 2009, Thm 2).
    A histogram whose bins each get ε-DP Laplace noise costs ε, not ε·bins (under add/remove; replace moves a record
    between two bins, so it costs 2ε)."""
    return float(np.max(_epsilons(epsilons)))
