"""Local differential privacy: each respondent randomizes their own answer before anyone sees it.

Two frequency-oracle protocols over an alphabet of k possible answers (the lessons write this size K, the course's
symbol for a domain size; the code keeps the papers' k), each with its release, its unbiased estimator and the
exact variance of that estimator:

* k-ary randomized response (k-RR; Kairouz, Oh & Viswanath 2014; Warner 1965 for k = 2; analysed as "direct
  encoding" by Wang et al. 2017, §4.1): a value v ∈ {0, …, k−1} is reported truthfully with probability
  p = e^ε/(e^ε + k − 1), and as each other value with probability q = 1/(e^ε + k − 1). For k = 2 it is binary
  randomized response (:class:`dpviz.mechanisms.RandomizedResponse`, whose keep probability is the same p).
* optimised unary encoding (OUE; Wang et al. 2017, §4.3): the value is one-hot encoded in k bits; the true bit is
  kept at 1 with probability p = ½, every other bit is set to 1 with probability q = 1/(e^ε + 1).

(p and q are Wang et al.'s names; they are not the course's sampling rate q.) For both, the estimator of the
fraction f_v of respondents holding v is f̂_v = (c_v/n − q)/(p − q), with c_v the number of reports supporting v.
For a fixed data set (n f_v people hold v), c_v is a sum of n f_v Bernoulli(p) and n(1 − f_v) Bernoulli(q) draws,
so E f̂_v = f_v and, exactly,

    Var f̂_v = [q(1 − q) + f_v (p − q)(1 − p − q)] / (n (p − q)²)        (Wang et al. 2017, Thm 2 for k-RR)

The same derivation gives OUE's variance 4e^ε/(n(e^ε − 1)²) + f_v/n = 1/(n sinh²(ε/2)) + f_v/n (Wang et al. 2017,
§4.3 states the f = 0 term).

Central DP is the comparison point: a trusted curator adds Laplace noise of scale 1/ε to the exact count (ε-DP by
Dwork & Roth 2014, Thm 3.6; Lap(b) has variance 2b², Def. 3.3), a count error of standard deviation √2/ε whatever
n; the local count error grows like √n/ε.

Numerics: p − q = (1 − e^{−ε})/(1 + (k − 1)e^{−ε}) is computed with expm1 and 1 − p − q as (k − 2)q, so nothing
cancels at small ε; the estimators use q = (1 − (p − q))/k (k-RR) and q = ½ − (p − q) (OUE) for the same reason.
A result beyond the double range (a variance at ε ≈ 10⁻¹⁶⁰) is refused with a ValueError naming ε, never
returned as inf or NaN.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz._validation import (
    MAX_SAMPLES,
    Interval,
    as_rng,
    check_choice,
    check_in_range,
    check_positive,
    check_real_array,
)
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

#: The domain size k of a local protocol: 2 to 10⁶.
K = Interval(2, 1_000_000, integer=True)
#: The number of respondents: at most a trillion (beyond any survey, and exact in a double).
N = Interval(1, 10**12, integer=True)


def _k(k) -> int:
    return K.check(k, "k")


def _eps(epsilon) -> float:
    return check_positive(epsilon, "epsilon")


def _n(n, name: str = "n") -> int:
    return N.check(n, name)


def _freq(frequency) -> float:
    return check_in_range(frequency, "frequency", 0.0, 1.0)


def _finite(value: float, epsilon, what: str) -> float:
    """``value`` if it is a finite double; else refuse, naming ε (the only argument that can push it out)."""
    if not math.isfinite(value):
        raise ValueError(f"epsilon = {epsilon!r} is not allowed here: {what} must be a finite double (it exceeds "
                         "about 1.8e+308 at this ε).")
    return value


def krr_probabilities(k: int, epsilon: float) -> tuple[float, float]:
    """(p, q) of k-RR: p = e^ε/(e^ε + k − 1) (the truth), q = 1/(e^ε + k − 1) (each other value).

    Computed as 1/(1 + (k−1)e^{−ε}) and e^{−ε}/(1 + (k−1)e^{−ε}) so that large ε does not overflow.
    """
    k, eps = _k(k), _eps(epsilon)
    p, q, _ = _krr_pq(k, eps)
    return p, q


def _krr_pq(k: int, eps: float) -> tuple[float, float, float]:
    """p, q and p − q = (1 − e^{−ε})/(1 + (k − 1)e^{−ε}) (with expm1: exact to the last digits at tiny ε)."""
    em = math.exp(-eps)
    denom = 1.0 + (k - 1) * em
    return 1.0 / denom, em / denom, -math.expm1(-eps) / denom


def _integers(values, name: str, k: int) -> np.ndarray:
    arr = check_real_array(values, name, ndim=1)
    if arr.size > MAX_SAMPLES:
        raise ValueError(f"{name} has {arr.size} entries, which is not allowed: must hold at most {MAX_SAMPLES}.")
    if np.any(arr != np.floor(arr)) or np.any(arr < 0) or np.any(arr > k - 1):
        bad = arr[(arr != np.floor(arr)) | (arr < 0) | (arr > k - 1)][0]
        raise ValueError(f"{name} contains {bad!r}, which is not allowed: must be integers in 0..{k - 1} (k = {k}).")
    return arr.astype(np.int64)


def _values(values, k: int) -> np.ndarray:
    return _integers(values, "values", k)


def krr_release(values, k: int, epsilon: float, rng=None) -> np.ndarray:
    """Each respondent's k-RR report: value v kept with probability p = e^ε/(e^ε + k − 1), else replaced by one of
    the k − 1 other values chosen uniformly (Kairouz, Oh & Viswanath 2014; Wang et al. 2017, §4.1). ε-LDP: the
    ratio of any two reports' probabilities is at most p/q = e^ε.

    Parameters
    ----------
    values : 1-D array of integers in 0..k−1, one per respondent (at most 10⁷; complex input is refused).
    k : int ≥ 2, the number of possible answers.
    epsilon : float > 0.
    rng : numpy Generator, int seed or None.
    """
    k, eps = _k(k), _eps(epsilon)
    v = _values(values, k)
    g = as_rng(rng)
    if k == 2:  # binary randomized response: the same p = e^ε/(e^ε + 1), one home for it
        return RandomizedResponse(eps).release(v, rng=g)
    p, _, _ = _krr_pq(k, eps)
    keep = g.random(v.size) < p
    # another value, uniform over the k − 1 others: shift by 1..k−1 modulo k
    other = (v + g.integers(1, k, size=v.size)) % k
    return np.where(keep, v, other)


def _reports(reports, k: int) -> np.ndarray:
    return _integers(reports, "reports", k)


def _estimate(fractions: np.ndarray, base: float, gap: float, epsilon) -> np.ndarray:
    """(c/n − q)/(p − q) written as (c/n − base)/gap + base/(…): see the callers; refused if it leaves the range."""
    out = None
    if gap > 0.0:
        with np.errstate(over="ignore"):
            out = (fractions - base) / gap
    if out is None or not np.all(np.isfinite(out)):
        raise ValueError(f"epsilon = {epsilon!r} is not allowed here: the estimates (c/n − q)/(p − q) must be finite "
                         "doubles, and p − q is too small at this ε for them to be.")
    return out


def krr_estimate(reports, k: int, epsilon: float) -> np.ndarray:
    """Unbiased frequency estimates from k-RR reports: f̂_v = (c_v/n − q)/(p − q) for v = 0..k−1 (Wang et al.
    2017, §4.1). Estimates may be negative or exceed 1 (unbiasedness needs that; clamping is post-processing).

    Computed as (c_v/n − 1/k)/(p − q) + 1/k (the same number, since q = (1 − (p − q))/k), which keeps its digits
    when p − q is tiny."""
    k, eps = _k(k), _eps(epsilon)
    r = _reports(reports, k)
    _, _, gap = _krr_pq(k, eps)
    counts = np.bincount(r, minlength=k).astype(float)
    return _estimate(counts / r.size, 1.0 / k, gap, epsilon) + 1.0 / k


def _variance(n: int, q: float, gap: float, rest: float, f: float) -> float:
    # c_v/n: n f Bernoulli(p) + n(1 − f) Bernoulli(q), divided by n; f̂ = (c_v/n − q)/(p − q); rest = 1 − p − q.
    # Divided by gap twice (not by gap²) so that a tiny gap overflows to inf instead of gap² underflowing to 0.
    if gap == 0.0:  # ε below the smallest double's reach: the variance is beyond the range (callers refuse inf)
        return math.inf
    return (q * (1.0 - q) / gap / gap + f * rest / gap) / n


def _krr_v(n: int, k: int, eps: float, f: float) -> float:
    _, q, gap = _krr_pq(k, eps)
    return _variance(n, q, gap, (k - 2) * q, f)  # 1 − p − q = (k − 2)q exactly


def krr_variance(n: int, k: int, epsilon: float, frequency: float = 0.0) -> float:
    """Exact Var f̂_v of the k-RR estimate when a fraction ``frequency`` of the n respondents hold v:

        [q(1 − q) + f(p − q)(1 − p − q)] / (n(p − q)²)      (Wang et al. 2017, Thm 2)

    n ≤ 10¹²; for large ε it tends to 0 (q → 0); at tiny ε it grows like (k − 1)/(nε²) and is refused once that
    leaves the double range (ε below about 10⁻¹⁵⁴).
    """
    n, k, eps, f = _n(n), _k(k), _eps(epsilon), _freq(frequency)
    return _finite(_krr_v(n, k, eps, f), epsilon, "the variance (about (k − 1)/(nε²) at small ε)")


def _oue_q(eps: float) -> float:
    em = math.exp(-eps)
    return em / (1.0 + em)  # 1/(e^ε + 1) without overflow


def oue_probabilities(epsilon: float) -> tuple[float, float]:
    """(p, q) of optimised unary encoding: p = ½ (the true bit stays 1), q = 1/(e^ε + 1) (another bit becomes 1)."""
    return 0.5, _oue_q(_eps(epsilon))


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
    q = _oue_q(eps)
    g = as_rng(rng)
    u = g.random((v.size, k))
    onehot = np.zeros((v.size, k), dtype=bool)
    onehot[np.arange(v.size), v] = True
    return np.where(onehot, u < 0.5, u < q).astype(np.int64)


def oue_estimate(reports, epsilon: float) -> np.ndarray:
    """Unbiased frequency estimates from OUE reports (n × k bits): f̂_v = (c_v/n − q)/(p − q), c_v the number of
    reports with bit v set (Wang et al. 2017, §4.3).

    p − q = ½ − 1/(e^ε + 1) = ½·tanh(ε/2) exactly, and the estimate is computed as (c_v/n − ½)/(p − q) + 1 (the same
    number, since q = ½ − (p − q)), so that it keeps its digits at tiny ε; an ε so small that the estimates leave
    the double range is refused."""
    eps = _eps(epsilon)
    r = check_real_array(reports, "reports", ndim=2)
    if r.size > MAX_SAMPLES:
        raise ValueError(f"reports has {r.size} bits, which is not allowed: must hold at most {MAX_SAMPLES}.")
    if np.any((r != 0) & (r != 1)):
        raise ValueError("reports contains a value other than 0 or 1, which is not allowed: must be bits.")
    if r.shape[1] < 2:
        raise ValueError(f"reports has {r.shape[1]} column, which is not allowed: must have k >= 2 columns (one bit "
                         "per possible answer).")
    gap = 0.5 * math.tanh(0.5 * eps)
    return _estimate(r.sum(axis=0) / r.shape[0], 0.5, gap, epsilon) + 1.0


def _oue_v1_term(eps: float) -> float:
    """4e^ε/(e^ε − 1)² = 1/sinh²(ε/2), as (2e^{−ε/2}/(1 − e^{−ε}))² for ε ≥ 1 (no overflow), else 1/sinh/sinh."""
    if eps >= 1.0:
        t = 2.0 * math.exp(-0.5 * eps) / -math.expm1(-eps)
        return t * t
    s = math.sinh(0.5 * eps)
    return 1.0 / s / s if s > 0.0 else math.inf


def oue_variance(n: int, epsilon: float, frequency: float = 0.0) -> float:
    """Exact Var f̂_v of the OUE estimate when a fraction ``frequency`` of the n respondents hold v:

        [f p(1 − p) + (1 − f) q(1 − q)] / (n(p − q)²) = 4e^ε/(n(e^ε − 1)²) + f/n = 1/(n sinh²(ε/2)) + f/n

    (p = ½, q = 1/(e^ε + 1); Wang et al. 2017, §4.3 gives the f = 0 term; the f/n term follows the same way.) n ≤
    10¹²; refused when the first term leaves the double range (ε below about 10⁻¹⁵⁴).
    """
    n, eps, f = _n(n), _eps(epsilon), _freq(frequency)
    return _finite(_oue_v1_term(eps) / n + f / n, epsilon, "the variance (about 4/(nε²) at small ε)")


def _v1(protocol: str, k: int, eps: float, f: float) -> float:
    """V₁ = n·Var f̂ (independent of n at fixed f); may be inf at tiny ε (callers refuse it)."""
    return _krr_v(1, k, eps, f) if protocol == "krr" else _oue_v1_term(eps) + f


def local_variance(protocol: str, n: int, k: int, epsilon: float, frequency: float = 0.0) -> float:
    """Var f̂_v of ``protocol`` ("krr" or "oue"): :func:`krr_variance` or :func:`oue_variance`."""
    _protocol(protocol)
    if protocol == "krr":
        return krr_variance(n, k, epsilon, frequency)
    _k(k)
    return oue_variance(n, epsilon, frequency)


def _protocol(protocol) -> str:
    if not isinstance(protocol, str):
        raise ValueError(f"protocol = {protocol!r} is not allowed: must be one of " + ", ".join(map(repr, PROTOCOLS))
                         + ".")
    return check_choice(protocol, "protocol", PROTOCOLS)


def central_count_std(epsilon: float) -> float:
    """Standard deviation of a central Laplace count, √2·b with b = 1/ε (the count's sensitivity is 1; ε-DP by
    Dwork & Roth 2014, Thm 3.6, and Lap(b) has variance 2b², Def. 3.3): the error does not depend on n. Refused
    when √2/ε leaves the double range (ε below about 8·10⁻³⁰⁹)."""
    eps = _eps(epsilon)
    b = _finite(1.0 / eps, epsilon, "the Laplace scale 1/ε")
    return _finite(math.sqrt(2.0) * Laplace(scale=b).scale, epsilon, "the standard deviation √2/ε")


def local_count_std(protocol: str, n, k: int, epsilon: float, frequency: float = 0.0):
    """Standard deviation of the local estimate of a count, n·f̂_v: √(n² Var f̂_v) = √(n·V₁), which grows like
    √n/ε.

    ``n`` may be an array of real numbers in [1, 10¹²] (a curve over n); the variance is exactly proportional to
    1/n at fixed f, so the array case scales V₁ = n·Var f̂ (the n = 1 variance)."""
    _protocol(protocol)
    k, eps, f = _k(k), _eps(epsilon), _freq(frequency)
    v1 = _finite(_v1(protocol, k, eps, f), epsilon, "the variance n·Var f̂ (about (k − 1)/ε² at small ε)")
    if np.ndim(n) == 0:
        return _finite(math.sqrt(_n(n) * v1), epsilon, "the standard deviation")
    arr = check_real_array(n, "n", ndim=1)
    if np.any((arr < N.low) | (arr > N.high)):
        bad = float(arr[(arr < N.low) | (arr > N.high)][0])
        raise ValueError(f"n contains {bad!r}, which is not allowed: must be numbers in [{N.low}, {N.high:.0e}].")
    with np.errstate(over="ignore"):
        out = np.sqrt(arr * v1)
    if not np.all(np.isfinite(out)):
        _finite(math.inf, epsilon, "the standard deviation")
    return out


def _v1_eps2(protocol: str, k: int, eps: float, f: float) -> float:
    """V₁·ε², finite for every ε > 0: → k − 1 (k-RR) or 4 (OUE) as ε → 0, written with the ratio ε/(p − q)."""
    if protocol == "krr":
        em = math.exp(-eps)
        denom = 1.0 + (k - 1) * em
        q = em / denom
        if q == 0.0:  # e^{−ε} = 0 in double precision: every report is the truth, V₁ = 0
            return 0.0
        t = eps / -math.expm1(-eps) * denom  # ε/(p − q): → k as ε → 0 (ε/(1 − e^{−ε}) → 1, exactly 1 at tiny ε)
        return (q * t) * t * (1.0 - q) + f * (k - 2) * (q * t) * eps
    # OUE: ε²/sinh²(ε/2) + f ε²; ε/sinh(ε/2) = 2ε e^{−ε/2}/(1 − e^{−ε}) → 2 as ε → 0
    r = 2.0 * eps * math.exp(-0.5 * eps) / -math.expm1(-eps) if eps > 1e-300 else 2.0
    return r * r + f * eps * eps


def people_needed_local(protocol: str, n_central: int, k: int, epsilon: float, frequency: float = 0.0) -> float:
    """How many respondents the local protocol needs to estimate a fraction as precisely as the central Laplace
    count does with ``n_central`` people. The central fraction has variance (√2/ε)²/n_central², the local one
    V₁/n with V₁ = n·Var f̂ (exact, independent of n): equal when n = V₁ (ε n_central)²/2. A real number (round up
    for a head count).

    Computed from V₁ε², which stays finite as ε → 0: the answer tends to (k − 1)·n_central²/2 for k-RR (n²/2 for
    binary randomized response) and 2·n_central² for OUE. n_central ≤ 10¹²; an answer beyond the double range (OUE
    with f > 0 at a huge ε, where V₁ → f while the central error → 0) is refused, naming ε."""
    _protocol(protocol)
    nc = _n(n_central, "n_central")
    k, eps, f = _k(k), _eps(epsilon), _freq(frequency)
    g = _v1_eps2(protocol, k, eps, f)
    return _finite(g * (nc * 0.5) * nc if math.isfinite(g) else math.inf, epsilon, "the number of people needed")
