"""The Gaussian mechanism and THE Balle–Wang privacy profile: one home for every Gaussian formula of dpviz.

Notation. **μ = Δ/σ** throughout this module: sensitivity over noise standard deviation, the parameter of
μ-Gaussian differential privacy (Dong, Roth & Su 2022, Def. 2.6, Thm 2.7): N(0, σ²) noise on a query of
sensitivity Δ is exactly μ-GDP, and k adaptive uses compose to √(μ₁² + … + μ_k²)-GDP (their Cor. 3.3). (Not the
ρ = Δ²/(2σ²) = μ²/2 of zCDP, which ``accountants/_laws.GaussianLaw`` and the PLD accountant call "mu".)

* :func:`gaussian_delta` (``_gaussian_delta`` unchecked kernel): the exact profile δ(ε; μ) of Balle & Wang 2018,
  Theorem 8, cancellation-free for every μ (also μ = 1e-12) and broadcasting over ε and μ;
* :func:`gaussian_epsilon` / :func:`gaussian_epsilon_many`: its exact inverse ε(δ; μ);
* :func:`gaussian_mu`: the largest μ with δ(ε; μ) ≤ δ (the GDP level that spends exactly (ε, δ));
* :func:`analytic_gaussian_sigma`: the smallest σ with δ(ε; Δ/σ) ≤ δ (Balle & Wang's analytic calibration);
* :func:`classic_gaussian_sigma` / :func:`classic_gaussian_epsilon`: the textbook σ = Δ√(2 ln(1.25/δ))/ε
  (Dwork & Roth 2014, Thm A.1) and its solution for ε;
* :class:`Gaussian`: the mechanism object (profile, inverse, loss distribution, trade-off curve, sampling).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np
from scipy import special

from dpviz._inverse import _bisect_doubles, _inverse_profile
from dpviz._validation import (
    _alpha_arg,
    _array_arg,
    _clip01,
    _eps_arg,
    _no_nan,
    _out,
    _values_arg,
    check_delta,
    check_positive,
    check_real_array,
)
from dpviz.mechanisms._base import _Mechanism
from dpviz.mechanisms.loss import PrivacyLossDistribution

__all__ = [
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_epsilon_many",
    "gaussian_mu",
    "analytic_gaussian_sigma",
    "classic_gaussian_sigma",
    "classic_gaussian_epsilon",
    "classic_gaussian_delta",
    "Gaussian",
]

_SQRT2 = math.sqrt(2.0)


def gaussian_delta(epsilon, mu: float) -> np.ndarray:
    """Exact δ(ε) of the Gaussian mechanism with μ = Δ/σ (Balle & Wang 2018, Theorem 8):

        δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ).

    Evaluated without cancellation, negative values or NaN for every ε ≥ 0 and 0 < μ < ∞ (three branches, see
    :func:`_gaussian_delta`); relative rounding error ≲ 1e-16·(1 + x₁²), x₁ = ε/μ − μ/2 (a few ulps wherever δ is
    not deep in its Gaussian tail), also at μ = 1e-12; tests/numerics/test_family_gaussian.py compares with mpmath.
    Returns an array (also for scalar ε).

    >>> round(float(gaussian_delta(1.0, 1.0)[0]), 10)
    0.1269367375
    """
    e, _ = _eps_arg(epsilon)
    return _gaussian_delta(e, check_positive(mu, "mu"))


#: Gauss–Legendre nodes and weights on [0, 1] for the small-μ branch of :func:`_gaussian_delta` (10 points: the
#: integrand 1 − tM(t) is entire and the n-point remainder is ∝ μ^{2n+1} f^{(2n)}(ξ) (Abramowitz & Stegun 1964,
#: 25.4.30), so on an interval of length μ the rule's relative truncation error, evaluated in 50-digit mpmath over
#: x₁μ ∈ [0, 1], is ≤ 4e-22 at μ = 1 (9e-28 at μ = 1/2), but 8e-17 at μ = 2, 4e-12 at μ = 4, 1e-3 at μ = 30:
#: the branch is taken only for μ ≤ :data:`_GL_MAX_MU`; checked against mpmath in
#: tests/numerics/test_family_gaussian.py).
_GL_NODES, _GL_WEIGHTS = (0.5 * (v + 1.0) if i == 0 else 0.5 * v
                          for i, v in enumerate(np.polynomial.legendre.leggauss(10)))
_GL_MAX_MU = 1.0
_GL_SCALAR = tuple(zip(_GL_NODES.tolist(), _GL_WEIGHTS.tolist()))
_erfcx = special.erfcx
_SQRT_HALF_PI = math.sqrt(0.5 * math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _gaussian_delta(e, mu):
    """:func:`gaussian_delta` on validated ``e`` ≥ 0 and 0 < μ < inf, broadcasting ``e`` against ``mu`` (floats
    in, a numpy float out; arrays in, an array out), with no per-call validation: the inner loop of every inverse
    below and of the accountants. The caller need not set numpy's error state.

    With x₁ = ε/μ − μ/2, x₂ = ε/μ + μ/2 and M(x) = ∫₀^∞ e^{−xu−u²/2} du = √(π/2)·erfcx(x/√2) (Mills' ratio), the
    profile is δ = φ(x₁)(M(x₁) − M(x₂)) for x₁ > 0 (e^ε φ(x₂) = φ(x₁)). Three branches, none cancelling:

    * x₁ > 0 and (x₁μ ≥ 1 or μ > 1): ½e^{−x₁²/2}(erfcx(x₁/√2) − erfcx(x₂/√2)) (no overflow for large ε;
      underflows to 0 only where the true δ is below ~1e-308); the difference cancels by a factor
      M(x₁)/(M(x₁) − M(x₂)) ≲ 1 + x₂/μ, so the relative error is ≲ 1e-16·(1 + x₁/μ) ≤ 1e-16·(1 + x₁²) when
      x₁μ ≥ 1, and ≲ 1e-16·(2 + 1/μ) ≤ 3e-16 (a few ulps) when μ > 1 and x₁ < 1/μ < 1;
    * x₁ > 0, x₁μ < 1, μ ≤ 1: there the erfcx difference would lose ~log₁₀(1/μ) digits (relative error 1e-4 at
      μ = 1e-12), so M(x₁) − M(x₂) = ∫_{x₁}^{x₂} (1 − tM(t)) dt (M′ = tM − 1) by 10-point Gauss–Legendre on the
      interval of length μ; relative error ≲ 1e-16·(1 + x₁²) (1 − tM(t) ≈ 1/t² for large t) plus the rule's
      truncation error, ≤ 4e-22 for μ ≤ 1 (see :data:`_GL_NODES`; it grows like μ²⁰: 4e-12 at μ = 4, 1e-3 at
      μ = 30, which is why larger μ take the erfcx branch);
    * x₁ ≤ 0: Φ(−x₁) − Φ(−x₂) − (e^ε − 1)Φ(−x₂) = ½(erf(−x₁/√2) + erf(x₂/√2)) − ½e^{−x₁²/2} erfcx(x₂/√2)(1 − e^{−ε})
      (x₂² − x₁² = 2ε): a sum of non-negative terms minus one that is O(μ²) smaller; full relative precision at
      δ(0) ≈ μ/√(2π) however small μ is.
    """
    e, mu = np.broadcast_arrays(np.asarray(e, dtype=float), np.asarray(mu, dtype=float))
    scalar = e.ndim == 0
    e, mu = np.atleast_1d(e), np.atleast_1d(mu)
    out = np.empty(e.shape)
    with np.errstate(under="ignore", over="ignore"):
        # ε/μ overflows to +inf only for μ < ε/1.8e308, where δ(ε) < e^{−x₁²/2} is 0 in double precision (and
        # the formulas below give exactly 0 at x₁ = x₂ = +inf)
        x1 = e / mu - mu / 2.0
        x2 = e / mu + mu / 2.0
        g = np.exp(-0.5 * x1 * x1)
        pos = x1 > 0
        # where the quadrature's error x₁²·1e-16 beats erfcx's (x₁/μ)·1e-16 and the 10-point rule is exact to
        # rounding (interval length μ ≤ 1)
        quad = pos & (x1 * mu < 1.0) & (mu <= _GL_MAX_MU)
        big = pos & ~quad
        out[big] = 0.5 * g[big] * (special.erfcx(x1[big] / _SQRT2) - special.erfcx(x2[big] / _SQRT2))
        if np.any(quad):
            xq, mq = x1[quad][:, None], mu[quad]
            t = xq + mq[:, None] * _GL_NODES
            f = 1.0 - t * (_SQRT_HALF_PI * special.erfcx(t / _SQRT2))
            out[quad] = _INV_SQRT_2PI * g[quad] * mq * (f @ _GL_WEIGHTS)
        neg = ~pos
        xn1, xn2 = x1[neg], x2[neg]
        out[neg] = (0.5 * (special.erf(-xn1 / _SQRT2) + special.erf(xn2 / _SQRT2))
                    - 0.5 * g[neg] * special.erfcx(xn2 / _SQRT2) * -np.expm1(-e[neg]))
    out = _clip01(out, 0.0, 1.0)
    return out[0] if scalar else out


def _gaussian_delta_sigma(e, sigma, sensitivity) -> np.ndarray:
    """δ(ε) of N(0, σ²) noise at sensitivity Δ, μ = Δ/σ computed here (broadcasting): 0 where μ underflows to 0
    (identical outputs in double precision), 1 where it overflows (disjoint outputs)."""
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        mu = np.divide(sensitivity, sigma)
        inside = (mu > 0) & (mu < math.inf)
        return np.where(inside, _gaussian_delta(e, np.where(inside, mu, 1.0)), np.where(mu == math.inf, 1.0, 0.0))


def gaussian_epsilon(delta, mu):
    """Smallest ε ≥ 0 with δ(ε; μ) ≤ ``delta``: the exact inverse of :func:`gaussian_delta` (Balle & Wang 2018,
    Thm 8) for a μ-GDP mechanism (μ = Δ/σ), to the last bit (Brent's method, then ulp steps: the returned ε is
    feasible and its predecessor is not, as evaluated by :func:`gaussian_delta`). 0 where δ(0) ≤ delta (also
    μ = 0); ``math.inf`` for delta = 0 or when ε exceeds the double range. Broadcasts over ``delta`` and ``mu``.

    >>> round(gaussian_epsilon(1e-5, 1.0), 6)
    4.377178
    """
    d, sd = _array_arg(delta, "delta", 0.0, 1.0, low_inclusive=True, high_inclusive=False)
    m, sm = _array_arg(mu, "mu", 0.0, math.inf, low_inclusive=True, high_inclusive=False)
    d, m = np.broadcast_arrays(d, m)
    out = np.array([_gaussian_epsilon_exact(mi, di) for di, mi in zip(d.ravel().tolist(), m.ravel().tolist())],
                   dtype=float).reshape(d.shape)
    return float(out.ravel()[0]) if (sd and sm) else out


def _gaussian_epsilon_exact(mu: float, d: float) -> float:
    """:func:`gaussian_epsilon` for one validated pair (0 ≤ μ < inf, 0 ≤ d < 1)."""
    if d == 0.0:
        return 0.0 if mu == 0.0 else math.inf
    if mu == 0.0 or _gaussian_delta(0.0, mu) <= d:
        return 0.0
    profile = lambda e: _gaussian_delta(e, mu)  # noqa: E731
    hi = _zcdp_bracket(mu, d, profile)
    if hi == math.inf:
        return math.inf
    return _inverse_profile(profile, d, 0.0, hi, fast=lambda e: _gaussian_delta1(e, mu))


def gaussian_epsilon_many(mu: float, deltas, upper=None) -> np.ndarray:
    """ε(δ) of the Gaussian mechanism with μ = Δ/σ for an array of δ ∈ (0, 1): the exact inverse of the Balle–Wang
    profile (Balle & Wang 2018, Theorem 8; :func:`dpviz.mechanisms.gaussian_delta`) by a vectorised root search on
    [0, ρ + 2√(ρ ln(1/δ))] (the zCDP bound, Bun & Steinke 2016, Prop. 1.3, ρ = μ²/2) by safeguarded Newton steps on
    ln δ(ε) that keep a feasible upper end (bisection when a step leaves the bracket), run until the step is a
    few ulps (``upper``, an optional known ε ≥ the answer such as ε at a smaller δ, is used as the starting
    point when it is feasible): each ε returned satisfies δ(ε) ≤ δ and is within ~1e-15
    relative of :meth:`dpviz.mechanisms.Gaussian.epsilon` (tested), at a fraction of the cost of one root find per δ.

    >>> from dpviz.mechanisms import Gaussian
    >>> e = gaussian_epsilon_many(0.5, [1e-5, 1e-3])
    >>> bool(abs(e[0] - Gaussian(2.0).epsilon(1e-5)) < 1e-12), bool(abs(e[1] - Gaussian(2.0).epsilon(1e-3)) < 1e-12)
    (True, True)
    """
    m = check_positive(mu, "mu")
    d, _ = _array_arg(deltas, "deltas", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    up = None
    if upper is not None:
        up, _ = _array_arg(upper, "upper", 0.0, math.inf, high_inclusive=False)
    return _gaussian_epsilon_many(m, np.atleast_1d(d), up)


def _gaussian_delta1(e: float, mu: float) -> float:
    """:func:`_gaussian_delta` at one point, as a Python float: the same three branches in scalar arithmetic
    (``math`` and scipy's scalar ``erfcx``), about 20× faster than the array kernel on one number; the inner loop
    of the scalar inverses and of the accountants' root finding. Equal to the array kernel to rounding (tested)."""
    e, mu = float(e), float(mu)
    try:
        x1 = e / mu - mu / 2.0
        x2 = e / mu + mu / 2.0
    except OverflowError:  # pragma: no cover - floats divide to inf, they do not raise
        return 0.0
    if x1 == math.inf:
        return 0.0
    g = math.exp(-0.5 * x1 * x1)
    if x1 > 0:
        if x1 * mu < 1.0 and mu <= _GL_MAX_MU:
            acc = 0.0
            for node, weight in _GL_SCALAR:
                t = x1 + mu * node
                acc += weight * (1.0 - t * (_SQRT_HALF_PI * _erfcx(t / _SQRT2)))
            out = _INV_SQRT_2PI * g * mu * acc
        else:
            out = 0.5 * g * (_erfcx(x1 / _SQRT2) - _erfcx(x2 / _SQRT2))
    else:
        out = (0.5 * (math.erf(-x1 / _SQRT2) + math.erf(x2 / _SQRT2))
               - 0.5 * g * _erfcx(x2 / _SQRT2) * -math.expm1(-e))
    return float(min(max(out, 0.0), 1.0))


def _gaussian_epsilon_one(mu: float, d: float, upper=None) -> float:
    """Scalar version of :func:`_gaussian_epsilon_many` (same iteration, plain floats)."""
    if _gaussian_delta1(0.0, mu) <= d:
        return 0.0
    # ρ + 2√(ρ ln(1/δ)) as μ(μ/2 + √(2 ln(1/δ))): −ln d (1/d overflows for subnormal d), and no ρ = μ²/2 (it
    # underflows to 0 for μ < 1.5e-162)
    hi = max(mu * (mu / 2.0 + math.sqrt(2.0 * -math.log(d))), 5e-324)
    if upper is not None and upper < hi and _gaussian_delta1(float(upper), mu) <= d:
        hi = float(upper)
    d_hi = _gaussian_delta1(hi, mu)
    while d_hi > d and hi < math.inf:
        hi *= 2.0
        d_hi = _gaussian_delta1(hi, mu)
    lo, log_d = 0.0, math.log(d)
    for _ in range(200):
        x1, x2 = hi / mu - mu / 2.0, hi / mu + mu / 2.0
        slope = 0.5 * math.exp(-0.5 * x1 * x1) * float(special.erfcx(x2 / _SQRT2))
        x = hi + (math.log(d_hi) - log_d) * d_hi / slope if (d_hi > 0 and slope > 0) else math.nan
        newton_ok = math.isfinite(x) and lo < x <= hi
        if (newton_ok and hi - x <= 4e-15 * hi) or hi - lo <= 4e-15 * hi:
            break
        if newton_ok and hi - x <= 1e-7 * hi:
            x = min(x * (1.0 + 2e-15), hi)
        if not (newton_ok and x < hi):
            x = 0.5 * (lo + hi)
        d_x = _gaussian_delta1(x, mu)
        if d_x <= d:
            hi, d_hi = x, d_x
        else:
            lo = x
    return hi


def _gaussian_epsilon_many(mu: float, d: np.ndarray, upper=None) -> np.ndarray:
    """:func:`gaussian_epsilon_many` on validated input (0 < μ < inf, 0 < d < 1), no validation: the accountants'
    inner loop (``accountants/profiles.py``)."""
    with np.errstate(divide="ignore", invalid="ignore", under="ignore", over="ignore"):
        return _gaussian_epsilon_many_raw(mu, d, upper)


def _gaussian_epsilon_many_raw(mu: float, d: np.ndarray, upper=None) -> np.ndarray:
    if d.size == 1:
        u = None if upper is None else float(np.asarray(upper, dtype=float).ravel()[0])
        return np.array([_gaussian_epsilon_one(mu, float(d.ravel()[0]), u)]).reshape(d.shape)
    # ρ + 2√(ρ ln(1/δ)) written as μ(μ/2 + √(2 ln(1/δ))): ρ underflows to 0 for μ < 1.5e-162
    hi = np.maximum(mu * (mu / 2.0 + np.sqrt(2.0 * -np.log(d))), 5e-324)
    if upper is not None:  # a warm start, used only where it is feasible and tighter
        up = np.broadcast_to(np.asarray(upper, dtype=float), hi.shape)
        hi = np.where((up < hi) & (_gaussian_delta(up, mu) <= d), up, hi)
    d_hi = _gaussian_delta(hi, mu)
    while np.any((d_hi > d) & (hi < math.inf)):  # never needed in exact arithmetic; guards rounding
        hi = np.where(d_hi > d, 2.0 * hi, hi)
        d_hi = _gaussian_delta(hi, mu)
    lo = np.zeros_like(hi)
    zero = _gaussian_delta(lo, mu) <= d
    log_d = np.log(d)
    for _ in range(200):
        # Newton on ln δ(ε) from the feasible end: δ'(ε) = −e^ε Φ(−ε/μ − μ/2) = −½ e^{−x₁²/2} erfcx(x₂/√2)
        x1, x2 = hi / mu - mu / 2.0, hi / mu + mu / 2.0
        slope = 0.5 * np.exp(-0.5 * x1 * x1) * special.erfcx(x2 / _SQRT2)
        x = hi + (np.log(d_hi) - log_d) * d_hi / slope
        newton_ok = np.isfinite(x) & (x > lo) & (x <= hi)
        # done where the Newton step from the feasible end is below a few ulps, or the bracket is that narrow
        done = zero | (newton_ok & (hi - x <= 4e-15 * hi)) | (hi - lo <= 4e-15 * hi)
        if done.all():
            break
        # ln δ is concave, so Newton from the feasible end stays feasible; once converged (quadratically) the
        # point is the root up to rounding: nudge it 2e-15 up so that rounding cannot make it infeasible
        x = np.where(hi - x <= 1e-7 * hi, np.minimum(x * (1.0 + 2e-15), hi), x)
        x = np.where(newton_ok & (x < hi), x, 0.5 * (lo + hi))
        d_x = _gaussian_delta(x, mu)
        ok = d_x <= d
        hi, d_hi = np.where(ok, x, hi), np.where(ok, d_x, d_hi)
        lo = np.where(ok, lo, x)
    return np.where(zero, 0.0, hi)


def gaussian_mu(epsilon, delta):
    """The largest μ = Δ/σ with δ(ε; μ) ≤ ``delta`` (Balle & Wang 2018, Thm 8): the GDP level (Dong, Roth & Su
    2022) that spends exactly (ε, δ). Exact in double precision (δ(ε; μ) is increasing in μ; a vectorised
    bisection on the bit patterns of doubles returns the feasible μ whose successor is infeasible, as evaluated by
    :func:`gaussian_delta`). Broadcasts over ``epsilon`` and ``delta``; ε ≥ 0, δ ∈ (0, 1).

    >>> mu = gaussian_mu(1.0, 1e-5)
    >>> round(mu, 6), bool(gaussian_delta(1.0, mu)[0] <= 1e-5 < gaussian_delta(1.0, float(np.nextafter(mu, 2)))[0])
    (0.268051, True)
    """
    e, se = _eps_arg(epsilon)
    d, sd = _array_arg(delta, "delta", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    e, d = np.broadcast_arrays(e, d)
    # smallest μ with δ > target (δ(ε; +inf) = 1 > target; μ = 0 gives δ = 0), then its predecessor; the search is
    # started from μ²/2 − zμ = ε (z = Φ⁻¹(δ), as in analytic_gaussian_sigma) and steered by ln δ − ln δ(μ): the
    # same double as the plain 64-halving bisection (see _bisect_doubles) in ~15 evaluations
    def over_target(m):
        dl = _gaussian_delta_sigma(e, 1.0, m)
        with np.errstate(divide="ignore"):
            return dl > d, np.log(d) - np.log(dl)

    def guess():
        z = special.ndtri(d)
        return z + np.sqrt(z * z + 2.0 * e)

    over = _bisect_doubles(over_target, e.shape, 0.0, math.inf, gap=True, guess=guess)
    mu = np.nextafter(over, 0.0)
    return float(mu.ravel()[0]) if (se and sd) else mu


def analytic_gaussian_sigma(epsilon, delta, sensitivity=1.0):
    """Smallest σ for which the Gaussian mechanism x + N(0, σ²) with sensitivity Δ is (ε, δ)-DP: the analytic
    Gaussian calibration of Balle & Wang 2018 (Theorem 8 and Algorithm 1), i.e. the smallest σ with

        Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) ≤ δ,   μ = Δ/σ.

    Exact in double precision: δ(ε; Δ/σ) is non-increasing in σ, and a vectorised search on the bit patterns of
    the non-negative doubles (:func:`dpviz._inverse._bisect_doubles`, started from σ = Δ/μ with μ²/2 − Φ⁻¹(δ)μ = ε
    and steered by ln δ(σ) − ln δ: ~15 evaluations instead of 64 halvings, same result) returns, for each entry,
    the double σ with δ(ε; Δ/σ) ≤ δ whose predecessor is infeasible, both as evaluated by :func:`gaussian_delta`
    (so ``Gaussian(sigma, sensitivity).delta(epsilon) <= delta`` holds for
    the returned σ and fails one ulp below).

    For k-fold composition of the same Gaussian (GDP: μ_total = √k·Δ/σ; Dong, Roth & Su 2022, Cor. 3.3) pass
    ``sensitivity = √k·Δ``. Broadcasts over ``epsilon``, ``delta`` and ``sensitivity`` (scalars in, float out).

    Raises ``ValueError`` for ε < 0, δ ∉ (0, 1), Δ ≤ 0, or when σ exceeds the double range.

    >>> s = analytic_gaussian_sigma(1.0, 1e-5)
    >>> round(s, 6), bool(Gaussian(s).delta(1.0) <= 1e-5 < Gaussian(float(np.nextafter(s, 0))).delta(1.0))
    (3.730632, True)
    """
    e, se = _eps_arg(epsilon)
    d, sd = _array_arg(delta, "delta", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    s, ss = _array_arg(sensitivity, "sensitivity", 0.0, math.inf, low_inclusive=False, high_inclusive=False)
    e, d, s = np.broadcast_arrays(e, d, s)
    sigma = _analytic_gaussian_sigma(e, d, s)
    if not np.all(np.isfinite(sigma)):
        i = np.flatnonzero(~np.isfinite(sigma.ravel()))[0]
        raise ValueError(f"epsilon = {e.flat[i]!r}, delta = {d.flat[i]!r}, sensitivity = {s.flat[i]!r} are not "
                         "allowed together: the smallest σ exceeds the double range (must be <= 1.8e308); use a "
                         "larger epsilon or delta, or a smaller sensitivity.")
    return float(sigma.ravel()[0]) if (se and sd and ss) else sigma


def _analytic_gaussian_sigma(e: np.ndarray, d: np.ndarray, s: np.ndarray) -> np.ndarray:
    """:func:`analytic_gaussian_sigma` on validated arrays of one shape (ε ≥ 0, 0 < δ < 1, 0 < Δ < inf); +inf where
    no finite double σ is feasible. σ = 0 is infeasible (δ = 1 > δ), σ = +inf feasible (μ = 0, δ = 0)."""
    def feasible(sig):  # feasibility, and ln δ(σ) − ln δ to place the next try (the answer is decided by `ok`)
        dl = _gaussian_delta_sigma(e, sig, s)
        with np.errstate(divide="ignore"):
            return dl <= d, np.log(dl) - np.log(d)

    def guess():  # σ = Δ/μ with μ²/2 − zμ = ε, z = Φ⁻¹(δ): the first term of Balle–Wang's condition
        z = special.ndtri(d)
        return s * (np.sqrt(z * z + 2.0 * e) - z) / (2.0 * e)

    return _bisect_doubles(feasible, e.shape, 0.0, math.inf, gap=True, guess=guess)


def classic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """σ = Δ·√(2 ln(1.25/δ))/ε, the textbook calibration (Dwork & Roth 2014, Theorem A.1).

    Proven only for ε < 1 (for ε ≥ 1 it can fail to give (ε, δ)-DP; compare with :meth:`Gaussian.epsilon`);
    for ε < 1 it is valid but loose: the exact analytic σ (Balle & Wang 2018, Thm 8) is smaller.

    Raises ``ValueError`` for ε ≤ 0, δ ∉ (0, 1) or Δ ≤ 0.

    >>> round(classic_gaussian_sigma(0.5, 1e-5), 4)
    9.6896
    """
    eps = check_positive(epsilon, "epsilon")
    d = check_delta(delta, allow_zero=False)
    s = check_positive(sensitivity, "sensitivity")
    sigma = s * math.sqrt(2.0 * (math.log(1.25) - math.log(d))) / eps  # ln 1.25 − ln δ: 1.25/δ overflows for tiny δ
    if not math.isfinite(sigma):
        raise ValueError(f"epsilon = {epsilon!r}, delta = {delta!r}, sensitivity = {sensitivity!r} are not allowed "
                         f"together: σ = Δ·√(2 ln(1.25/δ))/ε exceeds the double range (must be <= 1.8e308); use a "
                         "larger epsilon or a smaller sensitivity.")
    return sigma


def classic_gaussian_epsilon(sigma, delta, sensitivity=1.0):
    """ε = Δ·√(2 ln(1.25/δ))/σ: the textbook calibration σ = Δ√(2 ln(1.25/δ))/ε of
    :func:`classic_gaussian_sigma` solved for ε (Dwork & Roth 2014, Theorem A.1). The theorem proves
    (ε, δ)-DP only for ε < 1; above that the value is what the formula claims, not a guarantee (compare with
    :meth:`Gaussian.epsilon`). Broadcasts over ``sigma``, ``delta`` and ``sensitivity`` (scalars in, float out).

    Raises ``ValueError`` for σ ≤ 0, δ ∉ (0, 1) or Δ ≤ 0.

    >>> round(classic_gaussian_epsilon(classic_gaussian_sigma(0.5, 1e-5), 1e-5), 12)
    0.5
    """
    g, sg = _array_arg(sigma, "sigma", 0.0, math.inf, low_inclusive=False, high_inclusive=False)
    d, sd = _array_arg(delta, "delta", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    s, ss = _array_arg(sensitivity, "sensitivity", 0.0, math.inf, low_inclusive=False, high_inclusive=False)
    with np.errstate(over="ignore", under="ignore"):
        eps = s * np.sqrt(2.0 * (math.log(1.25) - np.log(d))) / g  # ln 1.25 − ln δ: 1.25/δ overflows for tiny δ
    if not np.all(np.isfinite(eps)):
        raise ValueError(f"sigma = {sigma!r}, delta = {delta!r}, sensitivity = {sensitivity!r} are not allowed "
                         "together: ε = Δ·√(2 ln(1.25/δ))/σ exceeds the double range (must be <= 1.8e308).")
    return float(eps.ravel()[0]) if (sg and sd and ss) else eps


def classic_gaussian_delta(epsilon, sigma: float, sensitivity: float = 1.0) -> np.ndarray:
    """δ = min(1, 1.25·exp(−(εσ/Δ)²/2)): the textbook calibration σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth 2014,
    Thm A.1) solved for δ — the δ it *claims* for noise σ at ε. Proven only for ε < 1; above that it can claim a δ
    below the exact one (Balle & Wang 2018, §3), which lesson 03 shows. Inverse of
    :func:`dpviz.mechanisms.classic_gaussian_sigma` in δ; broadcasts over ``epsilon`` (≥ 0; scalar in, float out).

    >>> s = classic_gaussian_sigma(0.5, 1e-5)
    >>> round(float(classic_gaussian_delta(0.5, s)) / 1e-5, 12)
    1.0
    """
    eps, scalar = _eps_arg(epsilon)
    s = check_positive(sigma, "sigma")
    dl = check_positive(sensitivity, "sensitivity")
    with np.errstate(over="ignore", under="ignore"):  # (εσ/Δ)² → inf: δ = 0, as it should
        delta = np.minimum(1.25 * np.exp(-0.5 * (eps * s / dl) ** 2), 1.0)
    return float(delta[0]) if scalar else delta


def _rho(sensitivity: float, sigma: float) -> float:
    """Δ²/(2σ²) without OverflowError/ZeroDivisionError at extreme (valid) parameters."""
    try:
        return sensitivity**2 / (2.0 * sigma**2)
    except (OverflowError, ZeroDivisionError):
        mu = sensitivity / sigma
        return 0.5 * mu * mu


def _zcdp_bracket(mu: float, delta: float, profile: Callable[[np.ndarray], np.ndarray]) -> float:
    """An ε with profile(ε) ≤ delta: the zCDP bound ρ + 2√(ρ ln(1/δ)) = μ(μ/2 + √(2 ln(1/δ))) with ρ = μ²/2
    (Bun & Steinke 2016, Prop. 1.3), written so that it neither overflows early nor underflows to 0, then doubled
    while rounding leaves it infeasible. ``math.inf`` if it exceeds the double range."""
    hi = mu * (mu / 2.0 + math.sqrt(2.0 * -math.log(delta)))
    hi = max(hi, 5e-324)
    while hi < math.inf and profile(np.array([hi]))[0] > delta:  # never needed in exact arithmetic
        hi *= 2.0
    return hi


@dataclasses.dataclass(frozen=True)
class Gaussian(_Mechanism):
    """Gaussian mechanism M(x) = x + N(0, σ²) (Dwork & Roth 2014, Thm A.1; exact analysis Balle & Wang 2018).

    Exact profile with μ = Δ/σ (Balle & Wang 2018, "Improving the Gaussian mechanism…", Theorem 8):

        δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)

    (see :func:`gaussian_delta` for the cancellation-free evaluation). ``epsilon(delta)`` is its exact inverse by
    Brent's method on the strictly decreasing δ(ε) to full double precision (no closed form exists), bracketed by
    the zCDP bound ε ≤ ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3), ρ = Δ²/(2σ²) = ``rho``.
    ``pure_epsilon`` is ``math.inf``.

    Parameters
    ----------
    sigma : float
        σ > 0.
    sensitivity : float
        Δ > 0.
    """

    sigma: float
    sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_positive(self.sigma, "sigma"))
        object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))

    @property
    def mu(self) -> float:
        """μ = Δ/σ (Gaussian DP parameter, Dong, Roth & Su 2022, Thm 2.7)."""
        return self.sensitivity / self.sigma

    @property
    def rho(self) -> float:
        """ρ = Δ²/(2σ²): the mechanism is ρ-zCDP (Bun & Steinke 2016, Prop. 1.6)."""
        return _rho(self.sensitivity, self.sigma)

    @property
    def pure_epsilon(self) -> float:
        return math.inf

    def _delta(self, e):
        mu = self.mu
        if mu == 0.0 or mu == math.inf:  # Δ/σ under/overflowed: identical or disjoint outputs in double precision
            return np.full_like(e, 0.0 if mu == 0.0 else 1.0)
        return _gaussian_delta(e, mu)

    def epsilon(self, delta: float) -> float:
        """Smallest ε ≥ 0 with δ(ε) ≤ delta (exact inverse of Balle & Wang 2018, Thm 8; Brent root find).
        ``math.inf`` for delta = 0, and when the answer exceeds the double range (Δ/σ ≳ 1e154)."""
        d = check_delta(delta)
        if d == 0.0:
            return math.inf
        if self._delta(np.array([0.0]))[0] <= d:
            return 0.0
        mu = self.mu
        hi = _zcdp_bracket(mu, d, self._delta)
        if hi == math.inf:
            return math.inf
        return _inverse_profile(self._delta, d, 0.0, hi, fast=lambda e: _gaussian_delta1(e, mu))

    def _sample(self, shape, rng):
        return rng.normal(0.0, self.sigma, size=shape)

    def pdf(self, y, value: float = 0.0):
        """Density φ((y − value)/σ)/σ (+inf at y = value if 1/(σ√(2π)) exceeds the double range, σ ≲ 2e-309)."""
        y = check_real_array(y, "y")
        v, _ = _values_arg(value, integer=False)
        with np.errstate(over="ignore", under="ignore"):  # z² = inf far in the tails: density 0
            z = (y - v[0]) / self.sigma
            return np.exp(-0.5 * z * z) / (self.sigma * math.sqrt(2.0 * math.pi))

    def privacy_loss(self) -> PrivacyLossDistribution:
        """L ~ N(μ²/2, μ²) with μ = Δ/σ (Balle & Wang 2018, Lemma 3; Dong, Roth & Su 2022, §2.3)."""
        m = self.mu
        if m == 0.0 or m == math.inf:  # Δ/σ under/overflowed: L = 0, or L = +∞ (disjoint outputs), surely
            atom = 0.0 if m == 0.0 else math.inf
            return PrivacyLossDistribution(atoms=(atom,), masses=(1.0,), missing_mass=0.0 if m == 0.0 else 1.0,
                                           description="Gaussian with Δ/σ out of double range: a point mass")
        # z = (ℓ − μ²/2)/μ = ℓ/μ − μ/2: no μ² (it overflows for μ ≳ 1.3e154), and ±inf/μ = ±inf (no inf − inf)

        def dens(x):
            with np.errstate(over="ignore", under="ignore"):  # z² = inf far in the tails: density 0
                z = np.asarray(x, dtype=float) / m - m / 2.0
                return np.exp(-0.5 * z * z) / (m * math.sqrt(2.0 * math.pi))

        def csf(t):
            with np.errstate(over="ignore"):
                return special.ndtr(m / 2.0 - np.asarray(t, dtype=float) / m)

        return PrivacyLossDistribution(atoms=(), masses=(), density=dens, continuous_sf=csf,
                                       support=(-math.inf, math.inf), description="Gaussian: L ~ N(μ²/2, μ²)")

    def tradeoff(self, alpha):
        """β(α) = Φ(Φ⁻¹(1 − α) − μ), μ = Δ/σ (Dong, Roth & Su 2022, Def. 2.4 / Thm 2.7: G_μ)."""
        a, scalar = _alpha_arg(alpha)
        with np.errstate(invalid="ignore"):
            # Φ⁻¹(1 − α) as −Φ⁻¹(α) for α < ½: 1 − α rounds to 1 for α < 1.1e-16 (Φ⁻¹ = inf, β = 1 whatever μ)
            upper = np.where(a < 0.5, -special.ndtri(np.minimum(a, 0.5)), special.ndtri(1.0 - np.maximum(a, 0.5)))
            beta = special.ndtr(upper - self.mu)
        return _out(_no_nan(beta, "tradeoff(alpha)", "alpha", alpha), scalar)
