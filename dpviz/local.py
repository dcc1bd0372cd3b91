"""Local differential privacy: each respondent randomizes their own answer before anyone sees it.

Two frequency-oracle protocols of Wang et al. 2017 ("Locally Differentially Private Protocols for Frequency
Estimation"), each with its release, its unbiased estimator and the exact variance of that estimator:

* k-ary randomized response (k-RR, "direct encoding"; Warner 1965 for k = 2; Wang et al. 2017, §4.1): a value
  v ∈ {0, …, k−1} is reported truthfully with probability p = e^ε/(e^ε + k − 1), and as each other value with
  probability q = 1/(e^ε + k − 1). For k = 2 it is binary randomized response
  (:class:`dpviz.mechanisms.RandomizedResponse`, whose keep probability is the same p).
* optimised unary encoding (OUE; Wang et al. 2017, §4.3): the value is one-hot encoded in k bits; the true bit is
  kept at 1 with probability p = ½, every other bit is set to 1 with probability q = 1/(e^ε + 1).

For both, the estimator of the fraction f_v of respondents holding v is f̂_v = (c_v/n − q)/(p − q), with c_v the
number of reports supporting v. For a fixed data set (n f_v people hold v), c_v is a sum of n f_v Bernoulli(p) and
n(1 − f_v) Bernoulli(q) draws, so E f̂_v = f_v and, exactly,

    Var f̂_v = [q(1 − q) + f_v (p − q)(1 − p − q)] / (n (p − q)²)        (Wang et al. 2017, Thm 2 for k-RR)

The same derivation gives OUE's variance 4e^ε/(n(e^ε − 1)²) + f_v/n (Wang et al. 2017, §4.3 states the f = 0 term).

Central DP is the comparison point: a trusted curator adds Laplace noise of scale 1/ε to the exact count (Dwork &
Roth 2014, Thm 3.6), a count error of standard deviation √2/ε whatever n; the local count error grows like √n/ε.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz._validation import as_rng, check_array, check_choice, check_in_range, check_integer, check_positive
from dpviz.mechanisms import Laplace, RandomizedResponse

__all__ = [
    "PROTOCOLS",
    "krr_probabilities",
    "krr_release",
    "krr_estimate",
    "krr_variance",
    "oue_probabilities",
    "oue_release",
    "oue_estimate",
    "oue_variance",
    "local_variance",
    "central_count_std",
    "local_count_std",
    "people_needed_local",
]

#: The local protocols of this module, by key.
PROTOCOLS = ("krr", "oue")

_MAX_K = 1_000_000


def _k(k) -> int:
    return check_integer(k, "k", minimum=2, maximum=_MAX_K)


def _eps(epsilon) -> float:
    return check_positive(epsilon, "epsilon")


def _n(n) -> int:
    return check_integer(n, "n", minimum=1)


def _freq(frequency) -> float:
    return check_in_range(frequency, "frequency", 0.0, 1.0)


def krr_probabilities(k: int, epsilon: float) -> tuple[float, float]:
    """(p, q) of k-RR: p = e^ε/(e^ε + k − 1) (the truth), q = 1/(e^ε + k − 1) (each other value).

    Computed as 1/(1 + (k−1)e^{−ε}) and e^{−ε}/(1 + (k−1)e^{−ε}) so that large ε does not overflow.
    """
    k, eps = _k(k), _eps(epsilon)
    return _krr_pq(k, eps)


def _krr_pq(k: int, eps: float) -> tuple[float, float]:
    em = math.exp(-eps)
    denom = 1.0 + (k - 1) * em
    return 1.0 / denom, em / denom


def _values(values, k: int) -> np.ndarray:
    arr = check_array(values, "values", ndim=1, dtype=float)
    if np.any(arr != np.floor(arr)) or np.any(arr < 0) or np.any(arr > k - 1):
        bad = arr[(arr != np.floor(arr)) | (arr < 0) | (arr > k - 1)][0]
        raise ValueError(f"values contains {bad!r}, which is not allowed: must be integers in 0..{k - 1} (k = {k}).")
    return arr.astype(np.int64)


def krr_release(values, k: int, epsilon: float, rng=None) -> np.ndarray:
    """Each respondent's k-RR report: value v kept with probability p = e^ε/(e^ε + k − 1), else replaced by one of
    the k − 1 other values chosen uniformly (Wang et al. 2017, §4.1). ε-LDP: the ratio of any two reports'
    probabilities is at most p/q = e^ε.

    Parameters
    ----------
    values : 1-D array of integers in 0..k−1, one per respondent.
    k : int ≥ 2, the number of possible answers.
    epsilon : float > 0.
    rng : numpy Generator, int seed or None.
    """
    k, eps = _k(k), _eps(epsilon)
    v = _values(values, k)
    g = as_rng(rng)
    if k == 2:  # binary randomized response: the same p = e^ε/(e^ε + 1), one home for it
        return RandomizedResponse(eps).release(v, rng=g)
    p, _ = _krr_pq(k, eps)
    keep = g.random(v.size) < p
    # another value, uniform over the k − 1 others: shift by 1..k−1 modulo k
    other = (v + g.integers(1, k, size=v.size)) % k
    return np.where(keep, v, other)


def _reports(reports, k: int) -> np.ndarray:
    arr = check_array(reports, "reports", ndim=1, dtype=float)
    if np.any(arr != np.floor(arr)) or np.any(arr < 0) or np.any(arr > k - 1):
        bad = arr[(arr != np.floor(arr)) | (arr < 0) | (arr > k - 1)][0]
        raise ValueError(f"reports contains {bad!r}, which is not allowed: must be integers in 0..{k - 1} (k = {k}).")
    return arr.astype(np.int64)


def krr_estimate(reports, k: int, epsilon: float) -> np.ndarray:
    """Unbiased frequency estimates from k-RR reports: f̂_v = (c_v/n − q)/(p − q) for v = 0..k−1 (Wang et al.
    2017, §4.1). Estimates may be negative or exceed 1 (unbiasedness needs that; clamping is post-processing)."""
    k, eps = _k(k), _eps(epsilon)
    r = _reports(reports, k)
    p, q = _krr_pq(k, eps)
    counts = np.bincount(r, minlength=k).astype(float)
    return (counts / r.size - q) / (p - q)


def _variance(n: int, p: float, q: float, f) -> float:
    # c_v/n: n f Bernoulli(p) + n(1 − f) Bernoulli(q), divided by n; f̂ = (c_v/n − q)/(p − q)
    return (q * (1.0 - q) + f * (p - q) * (1.0 - p - q)) / (n * (p - q) ** 2)


def krr_variance(n: int, k: int, epsilon: float, frequency: float = 0.0) -> float:
    """Exact Var f̂_v of the k-RR estimate when a fraction ``frequency`` of the n respondents hold v:

        [q(1 − q) + f(p − q)(1 − p − q)] / (n(p − q)²)      (Wang et al. 2017, Thm 2)
    """
    n, k, eps, f = _n(n), _k(k), _eps(epsilon), _freq(frequency)
    p, q = _krr_pq(k, eps)
    return _variance(n, p, q, f)


def oue_probabilities(epsilon: float) -> tuple[float, float]:
    """(p, q) of optimised unary encoding: p = ½ (the true bit stays 1), q = 1/(e^ε + 1) (another bit becomes 1)."""
    eps = _eps(epsilon)
    return 0.5, 1.0 / (1.0 + math.exp(eps)) if eps < 700 else 0.0


def oue_release(values, k: int, epsilon: float, rng=None) -> np.ndarray:
    """Each respondent's OUE report, an n × k array of bits: the one-hot encoding of the value, the true bit kept
    with probability ½ and every other bit set to 1 with probability 1/(e^ε + 1) (Wang et al. 2017, §4.3).
    ε-LDP: two values' encodings differ in two bits, and the report's probability ratio is at most
    p(1 − q)/((1 − p)q) = (1 − q)/q = e^ε."""
    k, eps = _k(k), _eps(epsilon)
    v = _values(values, k)
    if v.size * k > 10_000_000:
        raise ValueError(f"values has {v.size} entries and k = {k}, which is not allowed: the report matrix must hold "
                         "at most 10,000,000 bits.")
    p, q = oue_probabilities(eps)
    g = as_rng(rng)
    u = g.random((v.size, k))
    onehot = np.zeros((v.size, k), dtype=bool)
    onehot[np.arange(v.size), v] = True
    return np.where(onehot, u < p, u < q).astype(np.int64)


def oue_estimate(reports, epsilon: float) -> np.ndarray:
    """Unbiased frequency estimates from OUE reports (n × k bits): f̂_v = (c_v/n − q)/(p − q), c_v the number of
    reports with bit v set (Wang et al. 2017, §4.3)."""
    eps = _eps(epsilon)
    r = check_array(reports, "reports", ndim=2, dtype=float)
    if np.any((r != 0) & (r != 1)):
        raise ValueError("reports contains a value other than 0 or 1, which is not allowed: must be bits.")
    p, q = oue_probabilities(eps)
    return (r.sum(axis=0) / r.shape[0] - q) / (p - q)


def oue_variance(n: int, epsilon: float, frequency: float = 0.0) -> float:
    """Exact Var f̂_v of the OUE estimate when a fraction ``frequency`` of the n respondents hold v:

        [f p(1 − p) + (1 − f) q(1 − q)] / (n(p − q)²) = 4e^ε/(n(e^ε − 1)²) + f/n

    (p = ½, q = 1/(e^ε + 1); Wang et al. 2017, §4.3 gives the f = 0 term; the f/n term follows the same way.)
    """
    n, eps, f = _n(n), _eps(epsilon), _freq(frequency)
    em1 = math.expm1(eps)
    if eps > 700:
        return f / n
    return 4.0 * math.exp(eps) / (n * em1 * em1) + f / n


def local_variance(protocol: str, n: int, k: int, epsilon: float, frequency: float = 0.0) -> float:
    """Var f̂_v of ``protocol`` ("krr" or "oue"): :func:`krr_variance` or :func:`oue_variance`."""
    check_choice(protocol, "protocol", PROTOCOLS)
    if protocol == "krr":
        return krr_variance(n, k, epsilon, frequency)
    _k(k)
    return oue_variance(n, epsilon, frequency)


def central_count_std(epsilon: float) -> float:
    """Standard deviation of a central Laplace count, √2·b with b = 1/ε (Dwork & Roth 2014, Thm 3.6): the count's
    sensitivity is 1, so the error does not depend on n."""
    return math.sqrt(2.0) * Laplace(scale=1.0 / _eps(epsilon)).scale


def local_count_std(protocol: str, n, k: int, epsilon: float, frequency: float = 0.0):
    """Standard deviation of the local estimate of a count, n·f̂_v: √(n² Var f̂_v), which grows like √n/ε.

    ``n`` may be an array (integers ≥ 1); the variance is exactly proportional to 1/n at fixed f, so the
    array case scales the n = 1 variance."""
    v1 = local_variance(protocol, 1, k, epsilon, frequency)  # n·Var f̂ (exact, independent of n at fixed f)
    if np.ndim(n) == 0:
        return math.sqrt(_n(n) * v1)
    arr = check_array(n, "n", ndim=1)
    if np.any(arr < 1):
        raise ValueError(f"n contains {float(arr[arr < 1][0])!r}, which is not allowed: must be numbers >= 1.")
    return np.sqrt(arr * v1)


def people_needed_local(protocol: str, n_central: int, k: int, epsilon: float, frequency: float = 0.0) -> float:
    """How many respondents the local protocol needs to estimate a fraction as precisely as the central Laplace
    count does with ``n_central`` people. The central fraction has variance (√2/ε)²/n_central², the local one
    V₁/n with V₁ = n·Var f̂ (exact, independent of n): equal when n = V₁ (ε n_central)²/2. A real number (round up
    for a head count)."""
    nc = _n(n_central)
    v1 = local_variance(protocol, 1, k, epsilon, frequency)
    return v1 * (nc / central_count_std(epsilon)) ** 2
