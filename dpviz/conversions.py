"""Conversions between privacy representations, as plain functions.

* pure ε-DP → ρ-zCDP: ρ = ε²/2 (Bun & Steinke 2016, Proposition 1.4).
* ρ-zCDP → (ε, δ)-DP, two ways:
  - ``"simple"``: ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Proposition 1.3);
  - ``"cks"``: δ(ε) = inf_{α>1} exp((α−1)(αρ−ε)) · (1−1/α)^α / (α−1)
    (Canonne, Kamath & Steinke 2020, "The Discrete Gaussian for Differential Privacy", Corollary 13), the tighter one.
* Rényi DP (α, ε_α) → (ε, δ)-DP, two ways:
  - ``"classic"``: ε = ε_α + ln(1/δ)/(α−1) (Mironov 2017, Proposition 3);
  - ``"improved"``: ε = ε_α + ln((α−1)/α) − (ln δ + ln α)/(α−1)
    (Balle et al. 2020, "Hypothesis testing interpretations and Rényi DP", Theorem 21; Canonne, Kamath & Steinke 2020,
    Proposition 12).

The infimum over α is a one-dimensional minimisation of a smooth function; it is solved numerically (a log-spaced
grid, then a bounded Brent refinement), and the answer is an upper bound on the true ε whatever the optimiser's
accuracy, because every α gives a valid bound.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize_scalar

from dpviz._validation import check_choice, check_delta, check_positive, check_real_array

__all__ = [
    "pure_to_zcdp",
    "zcdp_to_approx_dp",
    "zcdp_delta",
    "rdp_to_approx_dp",
    "rdp_delta",
]


def _check_method(method, choices: tuple[str, ...]) -> str:
    """``method`` must be one of the strings ``choices`` (a non-string, e.g. an array, is refused before any
    comparison, so the message always names the parameter)."""
    if not isinstance(method, str):
        raise ValueError(f"method = {method!r} is not allowed: must be one of " + ", ".join(map(repr, choices)) + ".")
    return check_choice(method, "method", choices)


def pure_to_zcdp(epsilon: float) -> float:
    """ρ = ε²/2: ε-DP implies ρ-zCDP (Bun & Steinke 2016, Proposition 1.4).

    >>> pure_to_zcdp(1.0)
    0.5
    """
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    return 0.5 * eps * eps


def _minimise_over_alpha(f_vec, f_scalar, t_lo: float = -14.0, t_hi: float = 40.0) -> float:
    """min over α > 1 of a smooth function given in the variable t = ln(α − 1): a vectorised grid of step 0.05 over
    t ∈ [t_lo, t_hi], then a bounded Brent refinement around the best grid point. Any α gives a valid bound, so the
    result is valid whatever the optimiser's accuracy; the refinement makes it tight. Overflow to +inf (a useless
    α) and NaN are treated as +inf, silently."""
    grid = np.arange(t_lo, t_hi + 1e-9, 0.05)
    with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
        vals = f_vec(grid)
        vals = np.where(np.isnan(vals), np.inf, vals)
        i = int(np.argmin(vals))
        best = float(vals[i])
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]

        def g(t):
            v = float(f_scalar(t))
            return math.inf if math.isnan(v) else v

        res = minimize_scalar(g, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
    if np.isfinite(res.fun):
        best = min(best, float(res.fun))
    return best


def _log_delta_cks(t, rho: float, epsilon):
    # ln δ_α = (α−1)(αρ−ε) + α ln(1−1/α) − ln(α−1), with α = 1 + e^t (vectorised over t)
    # (ln(1 − 1/α) = −ln(1 + e^{−t}): finite as α → 1, where 1 − 1/α rounds to 0, and accurate for a huge α, where
    # t − ln(1 + e^t) cancels to 0 — the optimum sits at α ≈ 1/√(2ρ) ~ 1e161 for a subnormal ρ)
    am1 = np.exp(t)
    alpha = 1.0 + am1
    return am1 * (alpha * rho - epsilon) - alpha * np.logaddexp(0.0, -t) - t


def _log_delta_cks_min(rho: float, eps: np.ndarray) -> np.ndarray:
    """min over α > 1 of ln δ_α = (α−1)(αρ−ε) + α ln(1−1/α) − ln(α−1), for every ε of ``eps`` at once.

    Its derivative in α is g(α) = (2α−1)ρ − ε + ln(1−1/α) (the 1/(α−1) terms cancel), and g' = 2ρ + 1/(α(α−1)) > 0:
    ln δ_α is strictly convex with one minimiser, the root of g. The root is bracketed in t = ln(α−1) ∈ [−745, T]
    (g < 0 at the left end whenever the minimum is below ln 1 = 0; g(T) > 0 by the choice of T: (2e^T + 1)ρ ≥ ε + 2
    with T = ln((ε + 2)/ρ) + 1, formed in logs so that a subnormal ρ cannot overflow it) and found by 100 vectorised
    bisection steps (the bracket is at most ~1500 wide, so 2⁻¹⁰⁰ of it is far below double resolution); ln δ is then
    evaluated at that α. Every α gives a valid bound (Canonne, Kamath & Steinke 2020, Corollary 13), so the answer is an
    upper bound whatever the rounding."""
    lo = np.full(eps.shape, -745.0)
    hi = np.full(eps.shape, max(1.0, math.log(float(np.max(eps, initial=0.0)) + 2.0) - math.log(rho) + 1.0))
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for _ in range(100):
            t = 0.5 * (lo + hi)
            # ln(1 − 1/α) = −ln(1 + e^{−t}) for α = 1 + e^t
            g = (2.0 * np.exp(t) + 1.0) * rho - eps - np.logaddexp(0.0, -t)
            neg = g < 0
            lo = np.where(neg, t, lo)
            hi = np.where(neg, hi, t)
        out = _log_delta_cks(0.5 * (lo + hi), rho, eps)
    # NaN can only come from ∞ − ∞ at an astronomically large ε (e^t·ε overflowing): δ is 0 there
    return np.where(np.isnan(out), -np.inf, out)


def zcdp_delta(rho: float, epsilon, method: str = "cks"):
    """δ(ε) for a ρ-zCDP mechanism (``epsilon`` a number, or an array for a whole curve at once).

    ``method="cks"``: δ = inf_{α>1} exp((α−1)(αρ−ε))·(1−1/α)^α/(α−1) (Canonne, Kamath & Steinke 2020, Corollary 13); the
    infimum is found exactly as the root of its derivative in α (see ``_log_delta_cks_min``).
    ``method="simple"``: the inverse of ε = ρ + 2√(ρ ln(1/δ)), i.e. δ = exp(−(ε−ρ)²/(4ρ)) for ε ≥ ρ
    (Bun & Steinke 2016, Proposition 1.3); 1 for ε < ρ.

    >>> round(zcdp_delta(0.5, 0.5 + 2 * math.sqrt(0.5 * math.log(1e5)), method="simple"), 12)
    1e-05
    >>> zcdp_delta(0.5, [0.0, 4.728387]).round(6).tolist()
    [0.558836, 1e-05]
    """
    rho = check_positive(rho, "rho", allow_zero=True)
    _check_method(method, ("cks", "simple"))
    # not np.ndim: it raises on a ragged list before check_real_array could name the parameter
    scalar = not isinstance(epsilon, (list, tuple, np.ndarray)) or (isinstance(epsilon, np.ndarray)
                                                                     and epsilon.ndim == 0)
    if scalar:
        eps = np.array([check_positive(epsilon, "epsilon", allow_zero=True)])
    else:
        eps = check_real_array(epsilon, "epsilon", allow_empty=True)
        if eps.ndim > 1:
            raise ValueError(f"epsilon has shape {eps.shape} which is not allowed: must be a number or a 1-D array.")
        if np.any(eps < 0):
            raise ValueError(f"epsilon contains {float(eps[eps < 0][0])!r}, which is not allowed: must be >= 0.")
    if rho == 0:
        out = np.zeros(eps.shape)
    elif method == "simple":
        # (ε − ρ)²/(4ρ); where (ε − ρ)² and 4ρ both overflow (ρ ≈ 1e308: inf/inf) as ((ε − ρ)/(2√ρ))²
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            direct = (eps - rho) ** 2 / (4.0 * rho)
            z = np.maximum(eps - rho, 0.0) / (2.0 * math.sqrt(rho))
            out = np.where(eps <= rho, 1.0, np.exp(-np.where(np.isfinite(direct), direct, z * z)))
    else:
        with np.errstate(over="ignore", under="ignore"):
            out = np.exp(np.minimum(_log_delta_cks_min(rho, eps), 0.0))
    return float(out[0]) if scalar else out


def _eps_cks(t, rho: float, log_inv_delta: float):
    # ε_α = αρ + (ln(1/δ) − ln α)/(α−1) + ln(1 − 1/α), α = 1 + e^t: the improved RDP conversion at ε_α = αρ.
    # ln α = log1p(e^t) and ln(1 − 1/α) = −ln(1 + e^{−t}) keep their precision as α → 1, where the optimum lies
    # when δ is close to 1 (α − 1 ≈ ln(1/δ)), and for a huge α (ρ → 0).
    am1 = np.exp(t)
    alpha = 1.0 + am1
    return alpha * rho + (log_inv_delta - np.log1p(am1)) / am1 - np.logaddexp(0.0, -t)


def zcdp_to_approx_dp(rho: float, delta: float, method: str = "cks") -> float:
    """ε such that ρ-zCDP implies (ε, δ)-DP.

    ``"simple"``: ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Proposition 1.3).
    ``"cks"``: the smallest ε with :func:`zcdp_delta` (ρ, ε) ≤ δ (Canonne, Kamath & Steinke 2020, Corollary 13). For
    each α the bound exp((α−1)(αρ−ε))(1−1/α)^α/(α−1) ≤ δ solves in closed form for ε, so the answer is
    min_{α>1} αρ + (ln(1/δ) − ln α)/(α−1) + ln(1−1/α), minimised numerically over ln(α − 1) on a range that holds
    the optimum whatever ρ and δ (it sits near α − 1 ≈ ln(1/δ) when δ → 1 and near α ≈ √(ln(1/δ)/ρ) when ρ → 0);
    it is never larger than the simple one (clamped at 0).

    >>> round(zcdp_to_approx_dp(0.5, 1e-5, method="simple"), 6)
    5.298526
    """
    rho = check_positive(rho, "rho", allow_zero=True)
    delta = check_delta(delta, allow_zero=False)
    _check_method(method, ("cks", "simple"))
    if rho == 0:
        return 0.0
    lid = -math.log(delta)  # ln(1/δ): 1/δ overflows for subnormal δ
    simple = rho + 2.0 * math.sqrt(rho * lid)
    if method == "simple":
        return simple
    t_lo = min(-14.0, math.log(lid) - 8.0)
    t_hi = max(40.0, 0.5 * (math.log(lid + 1.0) - math.log(rho)) + 8.0)
    best = _minimise_over_alpha(lambda t: _eps_cks(t, rho, lid), lambda t: float(_eps_cks(np.float64(t), rho, lid)),
                                t_lo, t_hi)
    return float(min(max(best, 0.0), simple))


def _rdp_curve(orders, rdp) -> tuple[np.ndarray, np.ndarray]:
    """Validated (orders, rdp): 1-D real arrays of the same length, orders > 1 finite, rdp ≥ 0 (inf allowed)."""
    orders = check_real_array(orders, "orders", ndim=1)
    rdp = check_real_array(rdp, "rdp", ndim=1, finite=False)
    if orders.shape != rdp.shape:
        raise ValueError(f"orders and rdp have shapes {orders.shape} and {rdp.shape}: must have the same length.")
    if np.any(orders <= 1):
        raise ValueError(f"orders = {float(orders[orders <= 1][0])!r} is not allowed: every order must be > 1.")
    if np.any(np.isnan(rdp)) or np.any(rdp < 0):
        raise ValueError("rdp contains NaN or negative values, which is not allowed: must be >= 0 (inf allowed).")
    return orders, rdp


def rdp_to_approx_dp(orders, rdp, delta: float, method: str = "improved") -> tuple[float, float]:
    """Convert a Rényi DP curve (ε_α at the given orders α > 1) to (ε, δ)-DP; returns ``(epsilon, best_order)``.

    ``"classic"``: ε = min_α ε_α + ln(1/δ)/(α−1) (Mironov 2017, Proposition 3).
    ``"improved"``: ε = min_α ε_α + ln((α−1)/α) − (ln δ + ln α)/(α−1) (Balle et al. 2020, Theorem 21).

    >>> eps, a = rdp_to_approx_dp([2.0], [0.5], math.exp(-1.5), method="classic")
    >>> round(eps, 12), a
    (2.0, 2.0)
    """
    orders, rdp = _rdp_curve(orders, rdp)
    delta = check_delta(delta, allow_zero=False)
    _check_method(method, ("classic", "improved"))
    log_delta = math.log(delta)
    with np.errstate(over="ignore"):
        if method == "classic":
            eps = rdp - log_delta / (orders - 1.0)
        else:
            eps = rdp + np.log1p(-1.0 / orders) - (log_delta + np.log(orders)) / (orders - 1.0)
    eps = np.maximum(eps, 0.0)
    i = int(np.argmin(eps))
    return float(eps[i]), float(orders[i])


def rdp_delta(orders, rdp, epsilon: float, method: str = "improved") -> tuple[float, float]:
    """δ(ε) from a Rényi DP curve; returns ``(delta, best_order)``.

    ``"improved"`` (the inverse form of Balle et al. 2020, Theorem 21):
    δ = min_α exp((α−1)(ε_α−ε)) · (1−1/α)^α / (α−1).
    ``"classic"`` (the inverse of Mironov 2017, Proposition 3): δ = min_α exp((α−1)(ε_α−ε)).

    >>> d, a = rdp_delta([2.0], [0.5], 2.0, method="classic")
    >>> round(d, 12) == round(math.exp(-1.5), 12), a
    (True, 2.0)
    """
    orders, rdp = _rdp_curve(orders, rdp)
    epsilon = check_positive(epsilon, "epsilon", allow_zero=True)
    _check_method(method, ("classic", "improved"))
    with np.errstate(over="ignore", invalid="ignore"):
        logd = (orders - 1.0) * (rdp - epsilon)
        if method == "improved":
            logd = logd + orders * np.log1p(-1.0 / orders) - np.log(orders - 1.0)
    logd = np.where(np.isnan(logd), np.inf, logd)
    i = int(np.argmin(logd))
    return float(min(1.0, math.exp(min(logd[i], 0.0)))), float(orders[i])
