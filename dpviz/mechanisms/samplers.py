"""Exact samplers of Canonne, Kamath & Steinke 2020 ("The discrete Gaussian for differential privacy"),
Algorithms 1–3: Bernoulli(e^{−γ}), discrete Laplace and discrete Gaussian, vectorised.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

import numpy as np

from dpviz._validation import Interval, _size_arg, as_rng, check_positive, check_real_array

__all__ = ["bernoulli_exp_neg", "sample_discrete_laplace", "sample_discrete_gaussian"]


def bernoulli_exp_neg(gamma, rng=None) -> np.ndarray:
    """Bernoulli(exp(−γ)) for an array of γ ≥ 0, by Algorithm 1 of Canonne, Kamath & Steinke 2020 ("The discrete
    Gaussian for differential privacy"): for γ ∈ [0, 1] draw A_k ~ Bernoulli(γ/k) for k = 1, 2, … until the first
    A_k = 0 and return 1 iff that k is odd; for γ > 1 return 0 unless ⌊γ⌋ draws of Bernoulli(e^{−1}) (the same
    procedure) all give 1, then finish with Bernoulli(e^{−(γ−⌊γ⌋)}).

    Vectorised: every element runs its own rejection chain; numpy advances all unfinished chains together. The
    only floating-point step is ``U < γ/k`` with U uniform in [0, 1) (CKS use exact rationals; the algorithmic
    structure, and hence the distribution up to double rounding of γ/k, is theirs).
    """
    g = np.atleast_1d(check_real_array(gamma, "gamma"))
    if np.any(g < 0):
        raise ValueError(f"gamma = {float(g[g < 0][0])!r} is not allowed: must be >= 0.")
    return _bernoulli_exp_neg(g.astype(float), as_rng(rng))


def _bernoulli_exp_neg(g: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """:func:`bernoulli_exp_neg` on a validated float array γ ≥ 0; γ = +inf is allowed (the answer is then 0:
    γ is capped at 2^62, beyond which the answer is 0 w.p. 1 − e^{−2^62})."""
    flat = np.minimum(g.ravel(), 2.0**62)
    out = np.ones(flat.shape, dtype=bool)
    fl = np.floor(flat)
    whole = fl.astype(np.int64)
    frac = flat - fl
    # ⌊γ⌋ Bernoulli(e^{-1}) trials, all must succeed
    alive = np.nonzero(whole > 0)[0]
    j = 0
    while alive.size:
        j += 1
        ok = _bern_exp_small(np.ones(alive.size), rng)
        out[alive[~ok]] = False
        alive = alive[ok & (whole[alive] > j)]
    idx = np.nonzero(out)[0]
    if idx.size:
        out[idx] = _bern_exp_small(frac[idx], rng)
    return out.reshape(g.shape)


def _bern_exp_small(g: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """CKS Algorithm 1 for γ ∈ [0, 1], vectorised."""
    k = np.ones(g.shape, dtype=np.int64)
    active = np.arange(g.size)
    while active.size:
        a = rng.random(active.size) < g[active] / k[active]
        k[active[a]] += 1
        active = active[a]
    return (k % 2) == 1


def _geometric_exp1(n: int, rng) -> np.ndarray:
    """V ~ Geometric with P[V = v] = (1 − e^{−1}) e^{−v}: count Bernoulli(e^{−1}) successes before the first failure
    (Canonne, Kamath & Steinke 2020, Algorithm 2, step 6)."""
    v = np.zeros(n, dtype=np.int64)
    active = np.arange(n)
    while active.size:
        ok = _bern_exp_small(np.ones(active.size), rng)
        v[active[ok]] += 1
        active = active[ok]
    return v


def _dlap_batch(t: int, n: int, rng, s: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """One batch of CKS Algorithm 2 for the scale t/s (integers, t ≥ 1): U uniform on {0..t−1} kept with
    Bernoulli(e^{−U/t}), V ~ Geometric(1 − e^{−1}), X = U + tV, Y = ⌊X/s⌋, random sign B, reject (B = 1, Y = 0).
    Returns (candidates, accepted mask)."""
    u = rng.integers(0, t, size=n)
    d = _bern_exp_small(u / t, rng) if t > 1 else np.ones(n, dtype=bool)
    v = _geometric_exp1(n, rng)
    y = (u + t * v) // s
    b = rng.random(n) < 0.5
    return np.where(b, -y, y), d & ~(b & (y == 0))


def _scale_as_fraction(scale: float) -> tuple[int, int]:
    """scale = t/s exactly (a double is a dyadic rational); denominators beyond 2^55 (scales below ~2^−3) are
    replaced by the best rational with denominator ≤ 2^55, which differs from the double by far less than its own
    rounding (|error| < 2^−110)."""
    f = Fraction(scale)
    if f.denominator > 2**55:
        f = f.limit_denominator(2**55)
    return f.numerator, f.denominator


def _rejection(batch: Callable[[int], tuple[np.ndarray, np.ndarray]], n: int, rate: float) -> np.ndarray:
    """Batch rejection: draw candidates in batches sized by the running acceptance rate and keep the accepted ones
    in order (the first n accepted of an i.i.d. stream are i.i.d. from the target)."""
    got: list[np.ndarray] = []
    have = tried = 0
    while have < n:
        need = n - have
        m = int(need / rate * 1.1) + 16
        cand, ok = batch(m)
        acc = cand[ok]
        got.append(acc)
        have += acc.size
        tried += m
        rate = max(have / tried, 0.02)
    return np.concatenate(got)[:n] if got else np.zeros(0, dtype=np.int64)


#: The scale of an integer sampler: in (0, 10¹⁵], so that integer samples stay far inside int64 (tails beyond 9e18
#: have probability < e^-9000).
SAMPLER_SCALE = Interval(0.0, 1e15, open_low=True)


def _check_sampler_scale(value, name: str) -> float:
    x = check_positive(value, name)
    if x > SAMPLER_SCALE.high:
        raise ValueError(f"{name} = {value!r} is not allowed for integer sampling: must be a number in "
                         f"(0, {SAMPLER_SCALE.high:g}] (larger noise would overflow 64-bit integers).")
    return x


def sample_discrete_laplace(scale: float, size=None, rng=None):
    """Exact sample of the discrete Laplace law P[Y = y] ∝ e^{−|y|/scale} on ℤ.

    Canonne, Kamath & Steinke 2020, Algorithm 2, with the scale written as a fraction t/s (a double is a dyadic
    rational; s = 1 for an integer scale): U uniform on {0..t−1} accepted with Bernoulli(e^{−U/t}) (Algorithm 1),
    V ~ Geometric(1 − e^{−1}) (Algorithm 1), X = U + tV, Y = ⌊X/s⌋, random sign, reject −0. All of it is integer
    arithmetic except the comparison inside Algorithm 1 (see :func:`bernoulli_exp_neg`). Batch rejection in numpy.
    """
    s = _check_sampler_scale(scale, "scale")
    shape, scalar = _size_arg(size)
    rng = as_rng(rng)
    n = int(np.prod(shape))
    if s < _POINT_MASS_SCALE:
        # P[Y ≠ 0] = 2e^{−1/s}/(1 + e^{−1/s}) < 1e-434: below every double, the law is the point mass at 0
        # (and t/s would round to 0/1 for s < 2^−55, leaving Algorithm 2 nothing to draw from)
        out = np.zeros(shape, dtype=np.int64)
    else:
        t, q = _scale_as_fraction(s)
        out = _rejection(lambda m: _dlap_batch(t, m, rng, q), n, 0.5)
        out = out.astype(np.int64).reshape(shape)
    return int(out.ravel()[0]) if scalar else out


_POINT_MASS_SCALE = 1e-3


def sample_discrete_gaussian(sigma: float, size=None, rng=None):
    """Exact sample of the discrete Gaussian P[Y = y] ∝ e^{−y²/(2σ²)} on ℤ (Canonne, Kamath & Steinke 2020,
    Algorithm 3): t = ⌊σ⌋ + 1, Y ~ discrete Laplace(t) (Algorithm 2), accept with Bernoulli(exp(−γ)),
    γ = (|Y| − σ²/t)²/(2σ²) (Algorithm 1). γ is computed in floating point (CKS use rationals); the structure and
    the accept/reject logic are theirs. Batch rejection in numpy (expected acceptance ≥ ~0.5)."""
    sg = _check_sampler_scale(sigma, "sigma")
    shape, scalar = _size_arg(size)
    rng = as_rng(rng)
    n = int(np.prod(shape))
    t = int(math.floor(sg)) + 1
    s2 = sg * sg

    def batch(m):
        y, ok = _dlap_batch(t, m, rng)
        y = y[ok]
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            num = (np.abs(y) - s2 / t) ** 2
            # σ ≲ 1e-154: 2σ² is 0 or subnormal; γ = num/(2σ²) is then 0 at y = 0 (num = 0) and +inf elsewhere,
            # i.e. the point mass at 0 that the discrete Gaussian is at such σ
            gam = np.where(num == 0, 0.0, num / (2.0 * s2))
        return y, _bernoulli_exp_neg(gam, rng)

    out = _rejection(batch, n, 0.25).astype(np.int64).reshape(shape)
    return int(out.ravel()[0]) if scalar else out
