"""Counting with noise in the central model: sensitivity, what clipping costs, post-processing and composition.

Small pure functions for lesson 02:

* global sensitivity Δ (Dwork & Roth 2014, Def. 3.1) of a count, a
  clipped sum, a clipped mean and a histogram, for the two neighbouring relations:
  ``"add_remove"`` (one record added or removed) and ``"replace"`` (one record changed);
* the clipping trade-off: the exact expected squared error bias² + 2b² of a clipped, Laplace-noised sum or mean on a
  given data set (b = Δ/ε; Dwork & Roth 2014, Thm 3.6);
* post-processing (Dwork & Roth 2014, Prop. 2.1): exact mean squared error of a Laplace count clamped at 0 or
  rounded, and the exact variances of a hierarchy (total + bins) made consistent by least squares (Hay et al. 2010);
* sequential and parallel composition of pure ε (Dwork & Roth 2014, Thm 3.14; McSherry 2009, Thm 2 (parallel)).

The noise itself is :class:`dpviz.mechanisms.Laplace`; nothing here samples.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz._validation import check_array, check_choice, check_in_range, check_integer, check_positive
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
    "hierarchy_range_variance",
    "raw_range_variance",
    "sequential_epsilon",
    "parallel_epsilon",
]

#: The neighbouring relations: one record added or removed, or one record replaced.
RELATIONS = ("add_remove", "replace")
#: The queries whose sensitivity :func:`query_sensitivity` knows.
QUERIES = ("count", "sum", "mean", "histogram")


def _relation(relation: str) -> str:
    return check_choice(relation, "relation", RELATIONS)


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
    n = check_integer(n, "n", minimum=2 if rel == "add_remove" else 1)
    return (hi - lo) / n


def histogram_sensitivity(relation: str = "add_remove", norm: str = "l1") -> float:
    """Δ of a histogram (the vector of bin counts; bins fixed in advance, each record in exactly one bin).

    add/remove: one bin moves by 1 (L1 = L2 = 1). replace: one bin loses 1 and another gains 1 (L1 = 2, L2 = √2).
    """
    rel = _relation(relation)
    check_choice(norm, "norm", ("l1", "l2"))
    if rel == "add_remove":
        return 1.0
    return 2.0 if norm == "l1" else math.sqrt(2.0)


def query_sensitivity(query: str, lower: float = 0.0, upper: float = 1.0, n: int = 100,
                      relation: str = "add_remove") -> float:
    """The L1 sensitivity of ``query`` ("count", "sum", "mean" or "histogram"): one entry point for the panel."""
    check_choice(query, "query", QUERIES)
    if query == "count":
        return count_sensitivity(relation)
    if query == "sum":
        return sum_sensitivity(lower, upper, relation)
    if query == "mean":
        return mean_sensitivity(lower, upper, n, relation)
    return histogram_sensitivity(relation)


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """The scale b = Δ/ε that makes the Laplace mechanism ε-DP (Dwork & Roth 2014, Thm 3.6)."""
    d = check_positive(sensitivity, "sensitivity")
    return Laplace(scale=d / check_positive(epsilon, "epsilon"), sensitivity=d).scale


def example_dataset(n: int = 1000, median: float = 30.0, spread: float = 0.9) -> np.ndarray:
    """A fixed synthetic data set (no randomness): the n quantiles (i + ½)/n of a log-normal law with the given
    median and log-scale ``spread``, e.g. weekly incomes in hundreds or hours online: skewed, with a long tail."""
    from scipy import stats

    n = check_integer(n, "n", minimum=1, maximum=1_000_000)
    median = check_positive(median, "median")
    spread = check_positive(spread, "spread")
    u = (np.arange(n) + 0.5) / n
    return median * np.exp(spread * stats.norm.ppf(u))


def clipping_error(data, lower: float, upper, epsilon: float, query: str = "sum",
                   relation: str = "add_remove") -> dict[str, np.ndarray | float]:
    """Exact expected squared error of the clipped, Laplace-noised sum (or mean) of ``data``:

        E[(M(x) − true)²] = bias² + 2b²,   bias = Σ clip(xᵢ) − Σ xᵢ,   b = Δ(lower, upper)/ε

    (for the mean, both divided by n and Δ from :func:`mean_sensitivity`). ``upper`` may be an array of upper
    bounds (one result per bound). Returns ``{"bias2", "noise_var", "total"}`` (arrays or floats).
    """
    x = check_array(data, "data", ndim=1)
    eps = check_positive(epsilon, "epsilon")
    check_choice(query, "query", ("sum", "mean"))
    scalar = np.ndim(upper) == 0
    ups = np.atleast_1d(check_array(upper, "upper", ndim=(0, 1)))
    lo = check_in_range(lower, "lower", -1e12, 1e12)
    for hi in (float(np.min(ups)), float(np.max(ups))):
        _bounds(lo, hi)  # every bound within range and >= lower
    chunk = max(1, 2_000_000 // x.size)  # rows of the clipped matrix per step: at most ~16 MB at a time
    change = np.concatenate([np.clip(x[None, :], lo, ups[i:i + chunk, None]).sum(axis=1) - x.sum()
                             for i in range(0, ups.size, chunk)])
    if query == "sum":
        bias2 = change**2
        d = np.array([sum_sensitivity(lo, float(hi), relation) for hi in ups])
    else:
        bias2 = (change / x.size) ** 2
        d = np.array([mean_sensitivity(lo, float(hi), x.size, relation) for hi in ups])
    noise = 2.0 * (d / eps) ** 2
    out = {"bias2": bias2, "noise_var": noise, "total": bias2 + noise}
    return {k: float(v[0]) for k, v in out.items()} if scalar else out


def _scale_arg(scale) -> float:
    return check_positive(scale, "scale")


def clamped_laplace_mse(true_count, scale: float):
    """Exact E[(max(x + N, 0) − x)²] for N ~ Lap(b) and a true count x ≥ 0 (scalar or array):

        2b² − e^{−x/b}·b(x + b)

    (split at N = −x: the clamped part costs x² instead of N², and E[N²; N ≤ −x] = ½e^{−x/b}(x² + 2bx + 2b²)).
    At x = 0 it is b², half the unclamped 2b²: clamping is post-processing (Dwork & Roth 2014, Prop. 2.1), so it is
    free in privacy, and here it even lowers the error.
    """
    b = _scale_arg(scale)
    x = check_array(true_count, "true_count", ndim=(0, 1))
    if np.any(x < 0):
        raise ValueError(f"true_count = {float(np.min(x))!r} is not allowed: must be a count >= 0.")
    out = 2.0 * b * b - np.exp(-x / b) * b * (x + b)
    return float(out) if np.ndim(true_count) == 0 else out


def rounded_laplace_mse(scale: float) -> float:
    """Exact E[(round(x + N) − x)²] for an integer true count x and N ~ Lap(b): with r = e^{−1/b},

        P[round(N) = ±j] = ½ r^j (e^{1/(2b)} − e^{−1/(2b)}) for j ≥ 1,  so  MSE = 2 sinh(1/(2b)) · r(1 + r)/(1 − r)³

    (Σ j² r^j = r(1 + r)/(1 − r)³). Ties (probability 0) do not matter.
    """
    b = _scale_arg(scale)
    r = math.exp(-1.0 / b)
    return 2.0 * math.sinh(0.5 / b) * r * (1.0 + r) / (-math.expm1(-1.0 / b)) ** 3


def _bins_range(bins, width) -> tuple[int, np.ndarray, bool]:
    bins = check_integer(bins, "bins", minimum=1, maximum=10_000)
    scalar = np.ndim(width) == 0
    r = np.atleast_1d(check_array(width, "width", ndim=(0, 1)))
    if np.any(r != np.floor(r)) or np.any(r < 1) or np.any(r > bins):
        raise ValueError(f"width = {width!r} is not allowed: must be integers in 1..bins = {bins}.")
    return bins, r, scalar


def raw_range_variance(bins: int, width, variance: float = 1.0):
    """Variance of a range query over ``width`` adjacent bins answered from independently noised bins: each bin
    has variance ``variance``, so the sum has width·variance (ignoring the noisy total)."""
    bins, r, scalar = _bins_range(bins, width)
    v = check_positive(variance, "variance")
    out = r * v
    return float(out[0]) if scalar else out


def hierarchy_range_variance(bins: int, width, variance: float = 1.0):
    """Exact variance of a range query over ``width`` of the ``bins`` bins after least-squares consistency of the
    two-level hierarchy (a noisy total and noisy bins, each with variance ``variance``; the consistency step of
    Hay et al. 2010, the variance derived here from ordinary least squares):

        the estimate's covariance is variance·(AᵀA)⁻¹ = variance·(I − 11ᵀ/(bins + 1)), so a range of width r has
        variance·r(bins + 1 − r)/(bins + 1)

    (A stacks the all-ones row of the total over the identity of the bins.) Never more than the raw r·variance.
    """
    bins, r, scalar = _bins_range(bins, width)
    v = check_positive(variance, "variance")
    out = v * r * (bins + 1 - r) / (bins + 1)
    return float(out[0]) if scalar else out


def _epsilons(epsilons) -> np.ndarray:
    e = check_array(epsilons, "epsilons", ndim=1)
    if np.any(e < 0):
        raise ValueError(f"epsilons contains {float(e[e < 0][0])!r}, which is not allowed: must be numbers >= 0.")
    return e


def sequential_epsilon(epsilons) -> float:
    """Mechanisms run on the same data: the ε add up (Dwork & Roth 2014, Thm 3.14)."""
    return float(np.sum(_epsilons(epsilons)))


def parallel_epsilon(epsilons) -> float:
    """Mechanisms run on disjoint parts of the data (each record in one part): the largest ε (McSherry 2009, Thm 2).
    A histogram whose bins each get ε-DP Laplace noise costs ε, not ε·bins (under add/remove; replace moves a record
    between two bins, so it costs 2ε)."""
    return float(np.max(_epsilons(epsilons)))
