"""The Gaussian mechanism's privacy profile δ(ε) three ways, as lesson 03 compares them, and the vector Gaussian.

* exact: Balle & Wang 2018, Thm 8 (:meth:`dpviz.mechanisms.Gaussian.delta`);
* classic: the δ that the textbook calibration σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1, proven for
  ε < 1; :func:`dpviz.mechanisms.classic_gaussian_sigma`) assigns to σ at ε, :func:`classic_gaussian_delta`;
* zCDP: ρ = Δ²/(2σ²) (Bun & Steinke 2016, Prop. 1.6) converted to (ε, δ) by :func:`dpviz.conversions.zcdp_delta`
  (Canonne, Kamath & Steinke 2020, Cor. 13; Bun & Steinke 2016, Prop. 1.3).

:func:`gaussian_profile_curves` evaluates all of them on one ε grid (the numbers lesson 03's profile figure draws).

:func:`clipped_sum_noise` is lesson 03's vector release: the sum of d-dimensional vectors clipped to ℓ2 norm ≤ C,
released either with Laplace noise on every coordinate, calibrated by its ℓ1 sensitivity Δ₁ = √d·C (pure ε-DP by
Dwork & Roth 2014, Thm 3.6), or with N(0, σ²I), calibrated by its ℓ2 sensitivity Δ₂ = C. The privacy loss of
N(f(x), σ²I) against N(f(x′), σ²I) depends on the two means only through ‖f(x) − f(x′)‖₂ (the noise is rotation
invariant), so the d-dimensional Gaussian has exactly the one-dimensional profile with μ = Δ₂/σ (Balle & Wang 2018,
Thm 8, stated for ℓ2 sensitivity; Dwork & Roth 2014, §3.5.3 and Thm A.1 for the classic σ).
"""

from __future__ import annotations

import math

import numpy as np

from dpviz import mechanisms as _mech
from dpviz._validation import Cap, Interval, _array_arg, check_delta, check_positive, checked
from dpviz.conversions import zcdp_delta
from dpviz.mechanisms.gaussian import classic_gaussian_delta  # the textbook formula's home (re-exported here)
from dpviz.sensitivity import laplace_scale

__all__ = ["classic_gaussian_delta", "clipped_sum_noise", "gaussian_profile_curves"]

#: The ε values n :func:`gaussian_profile_curves` evaluates: a figure needs a few hundred; 10⁵ keep a call well under
#: a second.
POINTS = Interval(2, 100_000, integer=True)
#: Dimensions :func:`clipped_sum_noise` takes at once (as many as :data:`POINTS`).
DIMENSIONS = Cap(POINTS.high, "the dimensions of one call")
#: A dimension d of :func:`clipped_sum_noise`: 1 to 10¹² (far beyond any model; √d·C stays exact in a double).
DIMENSION = Interval(1, 10**12, integer=True)


@checked(n=POINTS)
def gaussian_profile_curves(sigma: float, sensitivity: float = 1.0, eps_max: float | None = None,
                            n: int = 121) -> dict[str, np.ndarray]:
    """The δ(ε) curves of the Gaussian mechanism N(0, σ²) with sensitivity Δ on a common grid of ``n`` values of
    ε from 0 to ``eps_max`` (default: 1.15 × the exact ε at δ = 10⁻¹², at least 1.5):

    * ``exact``: Balle & Wang 2018, Thm 8 (:meth:`dpviz.mechanisms.Gaussian.delta`);
    * ``classic``: :func:`classic_gaussian_delta` (Dwork & Roth 2014, Thm A.1; proven only for ε < 1);
    * ``cks`` and ``simple`` (on the same grid, ``eps_zcdp``): ρ-zCDP (ρ = Δ²/(2σ²), Bun & Steinke 2016, Prop. 1.6)
      converted by :func:`dpviz.conversions.zcdp_delta` (Canonne, Kamath & Steinke 2020, Cor. 13; Bun & Steinke 2016,
      Prop. 1.3).

    ``n`` is in :data:`POINTS`. Without ``eps_max``, a σ so small against Δ that the exact ε at
    δ = 10⁻¹² leaves the double range is refused (naming σ and Δ): pass ``eps_max`` to choose the ε range.

    >>> c = gaussian_profile_curves(1.0, n=3, eps_max=2.0)
    >>> c["eps"].tolist(), bool(np.all(c["exact"] <= c["cks"]))
    ([0.0, 1.0, 2.0], True)
    """
    s = check_positive(sigma, "sigma")
    dl = check_positive(sensitivity, "sensitivity")
    g = _mech.Gaussian(s, dl)
    if eps_max is None:
        reach = 1.15 * g.epsilon(1e-12)
        if not math.isfinite(reach):
            raise ValueError(f"sigma = {sigma!r} and sensitivity = {sensitivity!r} are not allowed together without "
                             "eps_max: μ = Δ/σ is so large that the exact ε at δ = 10⁻¹² exceeds the double range "
                             "(must be Δ/σ below about 1e154); pass eps_max to choose the ε range.")
        eps_max = max(1.5, reach)
    else:
        eps_max = check_positive(eps_max, "eps_max")
    eps = np.linspace(0.0, float(eps_max), n)
    rho = g.rho
    if math.isfinite(rho):
        cks, simple = zcdp_delta(rho, eps, method="cks"), zcdp_delta(rho, eps, method="simple")
    else:  # Δ/σ beyond the double range: ρ = ∞, and zCDP proves nothing (δ = 1), as the exact profile says
        cks = simple = np.ones_like(eps)
    return {"eps": eps, "exact": g.delta(eps), "classic": classic_gaussian_delta(eps, s, dl), "eps_zcdp": eps,
            "cks": cks, "simple": simple}


def clipped_sum_noise(dimension, epsilon: float, delta: float, clip: float = 1.0) -> dict:
    """The noise a sum of d-dimensional vectors, each clipped to ℓ2 norm ≤ C, needs for (ε, δ)-DP under add/remove
    neighbours, with Laplace noise on every coordinate against the Gaussian N(0, σ²I).

    One person moves the sum by their clipped vector v (‖v‖₂ ≤ C), so

    * ``l2_sensitivity`` Δ₂ = max ‖v‖₂ = C, whatever d (Dwork & Roth 2014, §3.5.3);
    * ``l1_sensitivity`` Δ₁ = max ‖v‖₁ = √d·C, reached by v = (C/√d, …, C/√d) (Cauchy–Schwarz: ‖v‖₁ ≤ √d‖v‖₂;
      Dwork & Roth 2014, Def 3.1);
    * ``laplace_scale`` b = Δ₁/ε (:func:`dpviz.sensitivity.laplace_scale`: pure ε-DP by Dwork & Roth 2014, Thm 3.6;
      it spends no δ) and ``laplace_sd`` √2·b, the standard deviation of Lap(b) per coordinate;
    * ``gaussian_sigma``: the exact smallest σ with (ε, δ)-DP (:func:`dpviz.mechanisms.analytic_gaussian_sigma` at
      Δ₂: the d-dimensional Gaussian's privacy loss depends only on ‖v‖₂, so its profile is the one-dimensional one
      with μ = Δ₂/σ; Balle & Wang 2018, Thm 8), the same for every d;
    * ``ratio`` = laplace_sd/gaussian_sigma (> 1: the Gaussian needs less noise per coordinate);
    * ``crossover``: the largest d at which Laplace needs no more noise than the Gaussian (0 if none), i.e. the
      largest d with √(2d)·C/ε ≤ σ.

    ``dimension``: an integer in :data:`DIMENSION`, or a sequence of at most :data:`DIMENSIONS` of them (then
    the per-d entries are arrays). ε > 0, δ ∈ (0, 1), C > 0.

    >>> r = clipped_sum_noise(100, 1.0, 1e-5)
    >>> r["l1_sensitivity"], r["l2_sensitivity"], round(r["gaussian_sigma"], 4), round(r["ratio"], 3), r["crossover"]
    (10.0, 1.0, 3.7306, 3.791, 6)
    """
    d, scalar = _array_arg(dimension, "dimension", DIMENSION.low, DIMENSION.high)
    DIMENSIONS.check(d.size, "len(dimension)")
    if not np.all(d == np.floor(d)):
        DIMENSION.check(float(d[d != np.floor(d)][0]), "dimension")
    eps = check_positive(epsilon, "epsilon")
    dl = check_delta(delta, allow_zero=False)
    c = check_positive(clip, "clip")
    try:
        sigma = float(_mech.analytic_gaussian_sigma(eps, dl, c))
    except ValueError:
        raise ValueError(f"epsilon = {epsilon!r}, delta = {delta!r} and clip = {clip!r} are not allowed together: "
                         "the Gaussian's σ exceeds the double range (must be <= 1.8e308); use a larger epsilon or "
                         "delta, or a smaller clip.") from None
    l1 = np.sqrt(d) * c
    if not np.all(np.isfinite(l1)):
        raise ValueError(f"clip = {clip!r} is not allowed with dimension up to {int(d.max())}: Δ₁ = √d·C exceeds the "
                         "double range (must be <= 1.8e308).")
    try:
        b = np.array([laplace_scale(float(x), eps) for x in l1])
    except ValueError:
        raise ValueError(f"epsilon = {epsilon!r} and clip = {clip!r} are not allowed together: the Laplace scale "
                         "b = √d·C/ε exceeds the double range (must be <= 1.8e308); use a larger epsilon or a "
                         "smaller clip.") from None
    with np.errstate(over="ignore"):
        sd = math.sqrt(2.0) * b
    if not np.all(np.isfinite(sd)):
        raise ValueError(f"epsilon = {epsilon!r} and clip = {clip!r} are not allowed together: the Laplace noise's "
                         "standard deviation √2·b exceeds the double range (must be <= 1.8e308).")
    crossover = _crossover(eps, c, sigma)

    def out(a):
        return float(a[0]) if scalar else a

    return {"dimension": out(d), "l1_sensitivity": out(l1), "l2_sensitivity": c, "laplace_scale": out(b),
            "laplace_sd": out(sd), "gaussian_sigma": sigma, "ratio": out(sd / sigma), "crossover": crossover}


def _crossover(eps: float, clip: float, sigma: float) -> int:
    """The largest integer d ≥ 0 with √2·(√d·C/ε) ≤ σ, evaluated in the same arithmetic as :func:`clipped_sum_noise`
    (so the answer agrees with its ``laplace_sd`` at d and d + 1): start from ⌊(σε/C)²/2⌋, then step."""
    def laplace_sd(k: int) -> float:
        return math.sqrt(2.0) * (math.sqrt(k) * clip / eps)

    guess = (sigma * eps / clip) ** 2 / 2.0 if math.isfinite(sigma * eps / clip) else math.inf
    k = int(min(guess, DIMENSION.high))
    while k > 0 and laplace_sd(k) > sigma:
        k -= 1
    while k < DIMENSION.high and laplace_sd(k + 1) <= sigma:
        k += 1
    return k
