"""User-complexity calculators: Theorems 4, 10, 11, Corollary 3, Tables 1–2, breakpoints and crossovers
(Ghazi et al. 2023).

All of these are asymptotic statements with hidden constants and polylog factors. dpviz evaluates the printed
formulas with every hidden constant set to one multiplicative knob ``constant`` (default 1) and natural logs, so
the SHAPE (exponents, slopes, crossovers) is faithful while **absolute user counts are illustrative only**.
The exceptions are exact: ε′ of Theorem 10, group privacy, amplification and the Algorithm 1 parameters.

Inputs are kept where every formula stays finite: ε in [1e-9, 500], δ in (0, 1) (ln(1/δ) is evaluated as −ln δ, so
even δ = 5e-324 is exact), α in [1e-9, 1], m in [1, 1e18], dimensions and constants in (0, 1e12], c in [0, 10]
(caps in :mod:`dpviz.userlevel.data`); anything else is a ValueError naming the parameter and the range.

Every user count is clamped to the trivial bounds of Observation 28: ⌈n₁/m⌉ ≤ n_m ≤ n₁ (n₁ the item-level
complexity at the same (ε, δ) and the same constant, rounded up to an integer); pass ``clamp=False`` to see the raw
formula.

References
----------
Ghazi et al. 2023 (NeurIPS 2023): Corollary 3, Theorems 4, 10, 11, Observation 28, Appendix A (Tables 1 and 2),
Conclusion.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import brentq

from dpviz._validation import check_choice, check_delta, check_in_range
from dpviz.accountants.group import _log_item_delta

from .data import (
    BOUND_M,
    EPSILON,
    EPSILON_DIVIDES,
    LOG_POWER,
    check_alpha,
    check_epsilon,
    check_scale,
    real_array,
)

__all__ = [
    "theorem10_item_epsilon",
    "theorem10_item_delta",
    "conjectured_item_epsilon",
    "item_level_users",
    "observation28_bounds",
    "theorem10_users",
    "theorem11_users",
    "corollary3_users",
    "group_privacy_users",
    "theorem4_users",
    "breakpoints",
    "crossover_group_privacy",
    "regime_breakpoints",
    "BoundRow",
    "TABLE1_ROWS",
    "TABLE2_ROWS",
]


def _m_array(m: Any) -> np.ndarray:
    arr = real_array(m, "m")
    if np.any(arr < 1) or np.any(arr > BOUND_M.high):
        raise ValueError(
            f"m = {m!r} is not allowed: must be a number in [1, {BOUND_M.high:g}] (examples per user; BOUND_M.high)."
        )
    return arr


def _out(arr: np.ndarray, scalar: bool) -> Any:
    return float(arr) if scalar else arr


def _is_scalar(m: Any) -> bool:
    return np.ndim(m) == 0


def _eps_delta(epsilon: Any, delta: Any) -> tuple[float, float]:
    """ε in [EPSILON_DIVIDES.low, EPSILON.high] (it divides), δ in (0, 1)."""
    return check_epsilon(epsilon, divides=True), check_delta(delta, "delta", allow_zero=False)


def _knobs(n_priv: Any, n_stat: Any, c: Any, constant: Any) -> tuple[float, float, float, float]:
    """n_priv, n_stat in [0, SCALE.high], c in [0, LOG_POWER.high], constant in (0, SCALE.high]."""
    return (
        check_scale(n_priv, "n_priv", allow_zero=True),
        check_scale(n_stat, "n_stat", allow_zero=True),
        check_in_range(c, "c", 0.0, LOG_POWER.high),
        check_scale(constant, "constant"),
    )


def _log_inv_item_delta(mm: np.ndarray, eps: float, dl: float) -> np.ndarray:
    """ln(1/δ′) for δ′ = δε/(m ln(1/δ)) (Theorem 10/11, Θ constant 1), in log space (δ′ may underflow).

    δ′ must be < 1 for the log power ln(1/δ′)^c to mean anything; otherwise ValueError.
    """
    L = -math.log(dl)
    out = np.log(mm) + math.log(L) - math.log(dl) - math.log(eps)
    if np.any(out <= 0):
        worst = float(np.exp(-out.min()))
        raise ValueError(
            f"delta = {dl!r} is not allowed with epsilon = {eps!r} and m >= {float(mm.min()):g}: the item-level "
            f"δ′ = δε/(m·ln(1/δ)) = {worst:.4g} must be < 1 (use a smaller δ or ε)."
        )
    return out


def theorem10_item_epsilon(m: Any, epsilon: float, delta: float) -> Any:
    """ε′(m) = ε² / (ln(1/δ)·√(m·ln(m/δ))): the item-level budget of Theorem 10 of Ghazi et al. 2023 (exact, no hidden
    constant).

    Natural logs pinned (the paper writes "log" without a base, immaterial inside its Õ). Quadratic in ε, with m
    inside the second log, as Theorem 10 prints it. Vectorised over ``m`` (≥ 1).

    >>> round(theorem10_item_epsilon(1, 1.0, math.exp(-1)), 12)
    1.0
    """
    eps, dl = _eps_delta(epsilon, delta)
    mm = _m_array(m)
    L = -math.log(dl)
    return _out(eps**2 / (L * np.sqrt(mm * (np.log(mm) - math.log(dl)))), _is_scalar(m))


def theorem10_item_delta(m: Any, epsilon: float, delta: float, *, constant: float = 1.0) -> Any:
    """δ′(m) = C·δε/(m·ln(1/δ)): Theorem 10/11's item-level δ′ = Θ(δε/(m log(1/δ))) with the Θ constant C."""
    eps, dl = _eps_delta(epsilon, delta)
    C = check_scale(constant, "constant")
    mm = _m_array(m)
    return _out(C * dl * eps / (mm * -math.log(dl)), _is_scalar(m))


def conjectured_item_epsilon(m: Any, epsilon: float, delta: float) -> Any:
    """ε/√(m·ln(1/δ)): the item-level budget the Conclusion of Ghazi et al. 2023 conjectures might suffice (open
    problem)."""
    eps, dl = _eps_delta(epsilon, delta)
    mm = _m_array(m)
    return _out(eps / np.sqrt(mm * -math.log(dl)), _is_scalar(m))


def item_level_users(
    epsilon: Any, delta: Any, *, n_priv: float = 1.0, n_stat: float = 0.0, c: float = 1.0, constant: float = 1.0
) -> Any:
    """n₁(ε, δ) = C·(ln(1/δ)^c·n_priv/ε + n_stat): the item-level complexity assumed by Corollary 3 of
    Ghazi et al. 2023.

    Vectorised over ``epsilon`` and ``delta`` (broadcast). ``n_priv``, ``n_stat``: the task's privacy and statistical
    complexities; ``c``: the power of log(1/δ).

    >>> item_level_users(0.5, math.exp(-2), n_priv=3.0, n_stat=10.0, c=1.0)
    22.0
    """

    eps = real_array(epsilon, "epsilon")
    dl = real_array(delta, "delta")
    if np.any(eps < EPSILON_DIVIDES.low) or np.any(eps > EPSILON.high):
        raise ValueError(
            f"epsilon = {epsilon!r} is not allowed: must be a number in [{EPSILON_DIVIDES.low:g}, {EPSILON.high:g}]."
        )
    if np.any((dl <= 0) | (dl >= 1)):
        raise ValueError(f"delta = {delta!r} is not allowed: must be a number in (0, 1).")
    n_priv, n_stat, c, C = _knobs(n_priv, n_stat, c, constant)
    out = C * ((-np.log(dl)) ** c * n_priv / eps + n_stat)
    return float(out) if out.ndim == 0 else out


def observation28_bounds(n1: Any, m: Any) -> tuple[Any, Any]:
    """(⌈N/m⌉, N) with N = ⌈n₁⌉: the trivial bounds ⌈n₁/m⌉ ≤ n_m ≤ n₁ of Observation 28 of Ghazi et al. 2023.

    Sample complexities are integers, so a real-valued formula n₁ is first rounded up to N = ⌈n₁⌉ (this keeps
    lower ≤ upper at m = 1).

    (Upper: keep one example per user. Lower: merge each user's m examples into one "super item". The printed proof
    reverses its last inequality; the statement is right.)

    >>> observation28_bounds(100.0, 7), observation28_bounds(99.5, 1)
    ((15.0, 100.0), (100.0, 100.0))
    """
    n1a = real_array(n1, "n1")
    if np.any(n1a < 0):
        raise ValueError(f"n1 = {n1!r} is not allowed: must be a number >= 0.")
    mm = _m_array(m)
    n1a = np.ceil(n1a)
    lo = np.ceil(n1a / mm)
    hi = np.broadcast_to(n1a, lo.shape).astype(float)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def _finish(terms: dict[str, np.ndarray], n1: Any, mm: np.ndarray, clamp: bool, want_terms: bool, scalar: bool):
    total = sum(terms.values())
    lo, hi = observation28_bounds(n1, mm)
    users = np.clip(total, lo, hi) if clamp else total
    if not want_terms:
        return _out(np.asarray(users, dtype=float), scalar)
    res = {k: _out(np.asarray(v, dtype=float) * np.ones_like(mm), scalar) for k, v in terms.items()}
    res["total"] = _out(np.asarray(total, dtype=float), scalar)
    res["lower"] = _out(np.asarray(lo, dtype=float), scalar)
    res["upper"] = _out(np.asarray(hi, dtype=float), scalar)
    res["users"] = _out(np.asarray(users, dtype=float), scalar)
    return res


_TERMS_DOC = """
    Returns the user count (clamped to Observation 28 unless ``clamp=False``), or with ``terms=True`` a dict with
    the separately drawn terms ``"floor"``, ``"privacy"``, ``"statistical"``, their raw sum ``"total"``, the
    Observation 28 bounds ``"lower"``/``"upper"`` and the clamped ``"users"``. Vectorised over ``m``.
    Hidden constants and polylogs are replaced by ``constant`` (illustrative counts)."""


def theorem10_users(
    m: Any,
    epsilon: float,
    delta: float,
    *,
    n_priv: float = 1.0,
    n_stat: float = 0.0,
    c: float = 1.0,
    constant: float = 1.0,
    clamp: bool = True,
    terms: bool = False,
) -> Any:
    """n_m = C·( ln(1/δ)/ε + n₁(ε′, δ′)/m ), Theorem 10 of Ghazi et al. 2023, with n₁ of Corollary 3's form.

    ε′ = ε²/(ln(1/δ)√(m ln(m/δ))) (:func:`theorem10_item_epsilon`), δ′ = δε/(m ln(1/δ)) (its Θ constant set to 1),
    n₁(ε′, δ′) = ln(1/δ′)^c·n_priv/ε′ + n_stat. Terms: floor ln(1/δ)/ε, privacy ln(1/δ′)^c n_priv/(ε′m),
    statistical n_stat/m.
    """
    eps, dl = _eps_delta(epsilon, delta)
    n_priv, n_stat, c, C = _knobs(n_priv, n_stat, c, constant)
    mm = _m_array(m)
    n1 = item_level_users(eps, dl, n_priv=n_priv, n_stat=n_stat, c=c, constant=C)
    return _finish(_theorem10_terms(mm, eps, dl, n_priv, n_stat, c, C), n1, mm, clamp, terms, _is_scalar(m))


theorem10_users.__doc__ += _TERMS_DOC


def _theorem10_terms(mm: np.ndarray, eps: float, dl: float, n_priv: float, n_stat: float, c: float, C: float
                     ) -> dict[str, np.ndarray]:
    """The terms of :func:`theorem10_users` for checked arguments (no validation: callers validate once)."""
    L = -math.log(dl)
    log_inv_dp = _log_inv_item_delta(mm, eps, dl)  # ln(1/δ′), δ′ = δε/(m ln(1/δ))
    inv_ep_m = L * np.sqrt(mm * (np.log(mm) - math.log(dl))) / (eps**2 * mm)  # 1/(ε′m), ε′ of theorem10_item_epsilon
    return {
        "floor": C * L / eps * np.ones_like(mm),
        "privacy": C * log_inv_dp**c * n_priv * inv_ep_m,
        "statistical": C * n_stat / mm,
    }


def theorem11_users(
    m: Any,
    epsilon: float,
    delta: float,
    *,
    n_priv: float = 1.0,
    n_stat: float = 0.0,
    c: float = 1.0,
    constant: float = 1.0,
    clamp: bool = True,
    terms: bool = False,
) -> Any:
    """n_m = C·( ln(1/δ)/ε + (ln(1/δ)^{1.5}/(ε√m))·n₁(ε, δ′) ), Theorem 11 of Ghazi et al. 2023 (same ε at item level).

    n₁(ε, δ′) = ln(1/δ′)^c·n_priv/ε + n_stat with δ′ = δε/(m ln(1/δ)). The WHOLE n₁, including n_stat, is multiplied
    by ln(1/δ)^{1.5}/(ε√m) (the caveat after Theorem 11). Terms: floor, privacy (the n_priv part), statistical (the
    n_stat part).
    """
    eps, dl = _eps_delta(epsilon, delta)
    n_priv, n_stat, c, C = _knobs(n_priv, n_stat, c, constant)
    mm = _m_array(m)
    L = -math.log(dl)
    log_inv_dp = _log_inv_item_delta(mm, eps, dl)
    n1 = item_level_users(eps, dl, n_priv=n_priv, n_stat=n_stat, c=c, constant=C)
    factor = L**1.5 / (eps * np.sqrt(mm))
    t = {
        "floor": C * L / eps * np.ones_like(mm),
        "privacy": C * factor * log_inv_dp**c * n_priv / eps,
        "statistical": C * factor * n_stat,
    }
    return _finish(t, n1, mm, clamp, terms, _is_scalar(m))


theorem11_users.__doc__ += _TERMS_DOC


def corollary3_users(
    m: Any,
    epsilon: float,
    delta: float,
    *,
    n_priv: float = 1.0,
    n_stat: float = 0.0,
    c: float = 1.0,
    constant: float = 1.0,
    clamp: bool = True,
    terms: bool = False,
) -> Any:
    """n_m = C·( ln(1/δ)^{c+3/2}·n_priv/(ε²√m) + n_stat/m + ln(1/δ)/ε ), Corollary 3 of Ghazi et al. 2023.

    Exponent c + 3/2 and denominator ε², as Corollary 3 prints them. Item-level reference
    n₁ = ln(1/δ)^c n_priv/ε + n_stat.

    >>> r = corollary3_users(4.0, 1.0, math.exp(-1), n_priv=2.0, n_stat=8.0, c=1.0, clamp=False, terms=True)
    >>> r["privacy"], r["statistical"], r["floor"]
    (1.0, 2.0, 1.0)
    """
    eps, dl = _eps_delta(epsilon, delta)
    n_priv, n_stat, c, C = _knobs(n_priv, n_stat, c, constant)
    mm = _m_array(m)
    L = -math.log(dl)
    n1 = item_level_users(eps, dl, n_priv=n_priv, n_stat=n_stat, c=c, constant=C)
    t = {
        "floor": C * L / eps * np.ones_like(mm),
        "privacy": C * L ** (c + 1.5) * n_priv / (eps**2 * np.sqrt(mm)),
        "statistical": C * n_stat / mm,
    }
    return _finish(t, n1, mm, clamp, terms, _is_scalar(m))


corollary3_users.__doc__ += _TERMS_DOC


def group_privacy_users(
    m: Any,
    epsilon: float,
    delta: float,
    *,
    n_priv: float = 1.0,
    n_stat: float = 0.0,
    c: float = 1.0,
    constant: float = 1.0,
    clamp: bool = True,
    terms: bool = False,
) -> Any:
    """Naive group privacy: n_m = n₁(ε/m, δ₀)/m = C·( ln(1/δ₀)^c·n_priv/ε + n_stat/m ) (derived here from the
    group privacy of Lemma 6 of Ghazi et al. 2023).

    Run the item-level algorithm on all nm items at ε₀ = ε/m, δ₀ = δ(e^{ε/m} − 1)/(e^{ε} − 1) (exactly (ε, δ) after the
    lift); it needs n₁(ε₀, δ₀) items, i.e. that many divided by m users. The privacy term does NOT shrink with m.
    Terms: floor (0), privacy, statistical.
    """
    eps, dl = _eps_delta(epsilon, delta)
    n_priv, n_stat, c, C = _knobs(n_priv, n_stat, c, constant)
    mm = _m_array(m)
    n1 = item_level_users(eps, dl, n_priv=n_priv, n_stat=n_stat, c=c, constant=C)
    return _finish(_group_privacy_terms(mm, eps, dl, n_priv, n_stat, c, C), n1, mm, clamp, terms, _is_scalar(m))


group_privacy_users.__doc__ += _TERMS_DOC


def _group_privacy_terms(mm: np.ndarray, eps: float, dl: float, n_priv: float, n_stat: float, c: float, C: float
                         ) -> dict[str, np.ndarray]:
    """The terms of :func:`group_privacy_users` for checked arguments (no validation: callers validate once)."""
    # ln(1/δ₀) with δ₀ = δ(e^{ε/m} − 1)/(e^{ε} − 1) ≤ δ, in log space (e^{ε} may overflow, δ₀ underflow)
    log_inv_d0 = -_log_item_delta(eps / mm, dl, mm)  # the inverse of Lemma 6, in accountants.group
    return {
        "floor": np.zeros_like(mm),
        "privacy": C * log_inv_d0**c * n_priv / eps,
        "statistical": C * n_stat / mm,
    }


def theorem4_users(
    m: Any, epsilon: float, alpha: float, d: float, *, constant: float = 1.0, clamp: bool = True, terms: bool = False
) -> Any:
    """n_m = C·( d/ε + d/(εαm) ): pure-DP realizable PAC learning, Theorem 4 of Ghazi et al. 2023 (tight up to
    polylogs).

    Item-level reference n₁ = C·d/(εα) (Beimel, Nissim & Stemmer 2019). For m > 1/α the learner of Theorem 4
    discards the extra examples (footnote 7), so the curve flattens at the floor d/ε. Terms: floor d/ε, privacy
    d/(εαm), statistical 0.
    """
    eps = check_epsilon(epsilon, divides=True)
    a = check_alpha(alpha)
    d = check_scale(d, "d")
    C = check_scale(constant, "constant")
    mm = _m_array(m)
    t = {"floor": C * d / eps * np.ones_like(mm), "privacy": C * d / (eps * a * mm), "statistical": np.zeros_like(mm)}
    return _finish(t, C * d / (eps * a), mm, clamp, terms, _is_scalar(m))


theorem4_users.__doc__ += _TERMS_DOC


def breakpoints(epsilon: float, alpha: float) -> tuple[float, float]:
    """(m₁, m₂) = (ε²/α², 1/α²): regime boundaries of the three-term law L/ε + L/(αε√m) + L/(α²m) (derived here).

    For m < m₁ the statistical term L/(α²m) dominates the privacy term; between m₁ and m₂ the √m privacy term
    dominates the floor; beyond m₂ the floor L/ε dominates and more examples per user stop helping.

    >>> [round(v, 9) for v in breakpoints(0.5, 0.1)]
    [25.0, 100.0]
    """
    eps = check_epsilon(epsilon)
    a = check_alpha(alpha)
    return eps**2 / a**2, 1.0 / a**2


def crossover_group_privacy(
    epsilon: float,
    delta: float,
    *,
    kind: str = "budget",
    n_priv: float = 1.0,
    n_stat: float = 0.0,
    c: float = 1.0,
    m_max: float = 1e15,
) -> float:
    """Smallest m beyond which the Theorem 10 transformation beats naive group privacy (derived here).

    ``kind="budget"``: where Theorem 10's item budget ε′(m) = ε²/(L√(m ln(m/δ))) overtakes group privacy's ε/m
    (L = ln(1/δ)), i.e. the root m* > (L/ε)² of m = (L/ε)²·ln(m/δ) (hidden constants ignored).
    ``kind="users"``: the first m ≥ 1 where :func:`theorem10_users` (unclamped) falls below
    :func:`group_privacy_users` (same n_priv, n_stat, c; constant cancels), ``math.inf`` if none below ``m_max``.

    >>> round(crossover_group_privacy(1.0, 1e-6), -2)
    4200.0
    """
    eps, dl = _eps_delta(epsilon, delta)
    check_choice(kind, "kind", ("budget", "users"))
    m_max = check_in_range(m_max, "m_max", 1.0, BOUND_M.high)
    if kind == "users":
        n_priv, n_stat, c, _ = _knobs(n_priv, n_stat, c, 1.0)
    L = -math.log(dl)
    if kind == "budget":
        A = (L / eps) ** 2

        def f(m: float) -> float:
            return m - A * (math.log(m) - math.log(dl))

        lo = max(A, 1.0)
        hi = lo * 2.0
        while f(hi) <= 0:
            hi *= 2.0
        if f(lo) > 0:  # only when A < 1 and the transformation already wins at m = 1
            return 1.0
        return float(brentq(f, lo, hi, xtol=1e-9, rtol=1e-13))

    def g(logm: Any) -> Any:  # the raw totals (clamp=False) of the two bounds, arguments checked above
        m = np.exp(np.asarray(logm, dtype=float))
        return (sum(_theorem10_terms(m, eps, dl, n_priv, n_stat, c, 1.0).values())
                - sum(_group_privacy_terms(m, eps, dl, n_priv, n_stat, c, 1.0).values()))

    grid = np.linspace(0.0, math.log(m_max), 400)
    vals = g(grid)  # the bounds broadcast over m: one vectorised evaluation of the whole grid
    if vals[0] < 0:
        return 1.0
    idx = np.nonzero(vals < 0)[0]
    if idx.size == 0:
        return math.inf
    i = int(idx[0])
    return float(math.exp(brentq(lambda x: float(g(x)), grid[i - 1], grid[i], xtol=1e-12)))


def regime_breakpoints(row: BoundRow, epsilon: float, alpha: float, dim: float, *, m_max: float = 1e9
                       ) -> list[tuple[float, str, str]]:
    """Where the dominant term of a Table 1/2 bound changes, as (m, from-term, to-term), m in [1, m_max].

    Found on a log grid of 400 points and refined by Brent's method on ln term_a(m) = ln term_b(m) (exact for the
    drawn formulas; the constant C cancels). For Table 1's three-term law these are m₁ = ε²/α² and m₂ = 1/α² (see
    :func:`breakpoints`); for Theorem 4 the single m = 1/α. Derived here from the rows of Ghazi et al. 2023, Tables 1–2.

    >>> [round(b[0], 6) for b in regime_breakpoints(TABLE1_ROWS[1], 0.5, 0.1, 10.0)]
    [25.0, 100.0]
    """
    if not isinstance(row, BoundRow):
        raise TypeError(f"row = {type(row).__name__} is not allowed: must be a BoundRow (from TABLE1_ROWS or "
                        "TABLE2_ROWS).")
    m_max = check_in_range(m_max, "m_max", 1.0, BOUND_M.high)
    m = np.geomspace(1.0, m_max, 400)
    terms = row.user_level_terms(m, epsilon, alpha, dim)
    names = [k for k in ("floor", "privacy", "statistical") if k in terms]
    stack = np.vstack([np.asarray(terms[k], dtype=float) for k in names])
    dom = np.argmax(stack, axis=0)
    out = []
    for i in np.nonzero(np.diff(dom))[0]:
        a, b = names[dom[i]], names[dom[i + 1]]

        def f(logm: float, a=a, b=b) -> float:
            t = row.user_level_terms(math.exp(logm), epsilon, alpha, dim)
            return math.log(t[a]) - math.log(t[b])

        root = brentq(f, math.log(m[i]), math.log(m[i + 1]), xtol=1e-13)
        out.append((math.exp(root), a, b))
    return out


# ---------------------------------------------------------------------------------------------- Tables 1 and 2
TermFn = Callable[[np.ndarray, float, float, float], np.ndarray]


@dataclasses.dataclass(frozen=True)
class BoundRow:
    """One row of Table 1 (pure DP) or Table 2 (approximate DP) of Ghazi et al. 2023 (Appendix A), as evaluable
    formulas.

    Formulas take (m, ε, α, L) where L is the row's dimension parameter (``dimension`` names it: d = PRDim, k, kd,
    d², d_L — Table 1 uses PRDim, Table 2 the Littlestone dimension, as their captions say). Every hidden constant and
    polylog is one knob ``constant``; counts are illustrative.

    Attributes
    ----------
    key, problem, table, dimension, source : str / int
        Identifier, problem name, table number (1 or 2), dimension symbol, theorem giving "our" bound.
    item_formula, prior_formula, ours_formula : str
        The printed formulas (``prior_formula`` is ``None`` where the paper shows "–").
    """

    key: str
    problem: str
    table: int
    dimension: str
    source: str
    item_formula: str
    prior_formula: str | None
    ours_formula: str
    item_terms: tuple[tuple[str, TermFn], ...]
    ours_terms: tuple[tuple[str, TermFn], ...]
    prior_terms: tuple[tuple[str, TermFn], ...] | None = None
    prior_min_m: Callable[[float, float, float], float] | None = None

    def __post_init__(self) -> None:
        for name in ("key", "problem", "dimension", "source", "item_formula", "ours_formula"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} = {getattr(self, name)!r} is not allowed: must be a str.")
        if self.prior_formula is not None and not isinstance(self.prior_formula, str):
            raise TypeError(f"prior_formula = {self.prior_formula!r} is not allowed: must be a str or None.")
        if isinstance(self.table, bool) or self.table not in (1, 2):
            raise ValueError(f"table = {self.table!r} is not allowed: must be 1 or 2.")
        for name in ("item_terms", "ours_terms", "prior_terms"):
            terms = getattr(self, name)
            if terms is None and name == "prior_terms":
                continue
            if (
                not isinstance(terms, tuple)
                or not terms
                or not all(isinstance(t, tuple) and len(t) == 2 and isinstance(t[0], str) and callable(t[1])
                           for t in terms)
            ):
                raise TypeError(
                    f"{name} = {terms!r} is not allowed: must be a non-empty tuple of (name, formula) pairs."
                )
        if self.prior_min_m is not None and not callable(self.prior_min_m):
            raise TypeError(f"prior_min_m = {self.prior_min_m!r} is not allowed: must be callable or None.")

    def _args(self, m, epsilon, alpha, dim, constant):
        """m in [1, BOUND_M.high], ε in [EPSILON_DIVIDES.low, EPSILON.high], α in [ALPHA.low, 1], dim and constant in
        (0, SCALE.high]: every row's formula stays finite there (the largest, d_L¹²/(ε²α⁴), stays below 1e200)."""
        return (
            _m_array(m),
            check_epsilon(epsilon, divides=True),
            check_alpha(alpha),
            check_scale(dim, "dim"),
            check_scale(constant, "constant"),
        )

    def item_level(self, epsilon: float, alpha: float, dim: float, *, constant: float = 1.0) -> float:
        """Item-level sample complexity n₁ (the row's first column)."""
        _, e, a, L, C = self._args(1.0, epsilon, alpha, dim, constant)
        one = np.ones(1)
        return float(C * sum(f(one, e, a, L) for _, f in self.item_terms)[0])

    def user_level_terms(
        self, m: Any, epsilon: float, alpha: float, dim: float, *, constant: float = 1.0
    ) -> dict[str, Any]:
        """The "our work" bound's terms (``"floor"``, ``"privacy"``, ``"statistical"`` as present), plus
        ``"total"``, Observation 28's ``"lower"``/``"upper"`` and the clamped ``"users"``."""
        mm, e, a, L, C = self._args(m, epsilon, alpha, dim, constant)
        t = {name: C * f(mm, e, a, L) * np.ones_like(mm) for name, f in self.ours_terms}
        return _finish(t, self.item_level(e, a, L, constant=C), mm, True, True, _is_scalar(m))

    def user_level(
        self, m: Any, epsilon: float, alpha: float, dim: float, *, constant: float = 1.0, clamp: bool = True
    ) -> Any:
        """The "our work" user complexity (clamped to ⌈n₁/m⌉ ≤ n_m ≤ n₁ unless ``clamp=False``)."""
        r = self.user_level_terms(m, epsilon, alpha, dim, constant=constant)
        return r["users"] if clamp else r["total"]

    def prior_user_level(self, m: Any, epsilon: float, alpha: float, dim: float, *, constant: float = 1.0) -> Any:
        """Previous user-level bound; ``math.inf`` where it does not apply (m below its required size, or "–")."""
        mm, e, a, L, C = self._args(m, epsilon, alpha, dim, constant)
        if self.prior_terms is None:
            val = np.full(mm.shape, np.inf)
        else:
            val = C * sum(f(mm, e, a, L) for _, f in self.prior_terms) * np.ones_like(mm)
            if self.prior_min_m is not None:
                val = np.where(mm >= self.prior_min_m(e, a, L), val, np.inf)
        return _out(val, _is_scalar(m))


def _floor(m, e, a, L):
    return L / e


def _one_over_eps(m, e, a, L):
    return 1.0 / e + 0.0 * m


def _three_term(power: float = 1.0, eps_power: float = 1.0):
    """(floor, privacy, statistical) of L^p/ε^q-style three-term laws."""
    return (
        ("floor", lambda m, e, a, L: L**power / e + 0.0 * m),
        ("privacy", lambda m, e, a, L: L**power / (e**eps_power * a * np.sqrt(m))),
        ("statistical", lambda m, e, a, L: L**power / (a**2 * m)),
    )


def _item_two(m, e, a, L):
    return L / (e * a) + L / a**2 + 0.0 * m


_PURE_ROWS = []
for _key, _problem, _dim, _src in (
    ("dd", "Learning discrete distribution", "K", "Theorem 43"),
    ("pd", "Learning product distribution", "Kd", "Theorem 44"),
    ("gauss_known", "Learning Gaussian (known covariance)", "d", "Theorem 45"),
    ("gauss_bounded", "Learning Gaussian (bounded covariance)", "d²", "Theorem 46"),
):
    _PURE_ROWS.append(
        BoundRow(
            key=_key,
            problem=_problem,
            table=1,
            dimension=_dim,
            source=_src,
            item_formula=f"Θ̃({_dim}/(εα<sub>acc</sub>) + {_dim}/α<sub>acc</sub>²)",
            prior_formula=None,
            ours_formula=f"Θ̃({_dim}/ε + {_dim}/(εα<sub>acc</sub>√m) + {_dim}/(α<sub>acc</sub>²m))",
            item_terms=(("item", _item_two),),
            ours_terms=_three_term(),
        )
    )

#: Table 1 of Ghazi et al. 2023 (pure DP): PAC (Theorem 4), agnostic PAC (Theorem 40), distributions (Theorems 43–46).
TABLE1_ROWS: tuple[BoundRow, ...] = (
    BoundRow(
        key="pac",
        problem="PAC learning",
        table=1,
        dimension="d",
        source="Theorem 4",
        item_formula="Θ̃(d/(εα<sub>acc</sub>))",
        prior_formula="Θ̃(d/ε) when m ≥ Θ̃(d²/(ε²α<sub>acc</sub>²))",
        ours_formula="Θ̃(d/ε + d/(εα<sub>acc</sub>m))",
        item_terms=(("item", lambda m, e, a, L: L / (e * a) + 0.0 * m),),
        ours_terms=(("floor", _floor), ("privacy", lambda m, e, a, L: L / (e * a * m))),
        prior_terms=(("floor", _floor),),
        prior_min_m=lambda e, a, L: L**2 / (e**2 * a**2),
    ),
    BoundRow(
        key="agnostic",
        problem="Agnostic PAC learning",
        table=1,
        dimension="d",
        source="Theorem 40",
        item_formula="Θ̃(d/α<sub>acc</sub>² + d/(εα<sub>acc</sub>))",
        prior_formula=None,
        ours_formula="Õ(d/ε + d/(εα<sub>acc</sub>√m) + d/(α<sub>acc</sub>²m))",
        item_terms=(("item", _item_two),),
        ours_terms=_three_term(),
    ),
    *_PURE_ROWS,
)


def _t2_three(m_dim: str):
    return (
        ("floor", lambda m, e, a, L: 1.0 / e + 0.0 * m),
        ("privacy", lambda m, e, a, L: L / (e**2 * a * np.sqrt(m))),
        ("statistical", lambda m, e, a, L: L / (a**2 * m)),
    )


#: Table 2 of Ghazi et al. 2023 (approximate DP; Õ also hides polylog(1/δ)): PAC, discrete and product distributions
#: (Theorem 10).
TABLE2_ROWS: tuple[BoundRow, ...] = (
    BoundRow(
        key="pac",
        problem="PAC learning",
        table=2,
        dimension="d<sub>L</sub>",
        source="Theorem 10",
        item_formula="Õ(d<sub>L</sub>⁶/(εα<sub>acc</sub>²))",
        prior_formula="Õ(1/ε) when m ≥ Θ̃(d<sub>L</sub>¹²/(ε²α<sub>acc</sub>⁴))",
        ours_formula="Õ(1/ε + d<sub>L</sub>⁶/(ε²α<sub>acc</sub>²√m))",
        item_terms=(("item", lambda m, e, a, L: L**6 / (e * a**2) + 0.0 * m),),
        ours_terms=(
            ("floor", _one_over_eps),
            ("privacy", lambda m, e, a, L: L**6 / (e**2 * a**2 * np.sqrt(m))),
        ),
        prior_terms=(("floor", _one_over_eps),),
        prior_min_m=lambda e, a, L: L**12 / (e**2 * a**4),
    ),
    BoundRow(
        key="dd",
        problem="Learning discrete distribution",
        table=2,
        dimension="K",
        source="Theorem 10",
        item_formula="Θ̃(K/(εα<sub>acc</sub>) + K/α<sub>acc</sub>²)",
        prior_formula="Θ̃(1/ε + K/(εα<sub>acc</sub>√m) + K/(α<sub>acc</sub>²m)) (Esfandiari, Mirrokni & Narayanan 2022)",
        ours_formula="Õ(1/ε + K/(ε²α<sub>acc</sub>√m) + K/(α<sub>acc</sub>²m))",
        item_terms=(("item", _item_two),),
        ours_terms=_t2_three("k"),
        prior_terms=(
            ("floor", _one_over_eps),
            ("privacy", lambda m, e, a, L: L / (e * a * np.sqrt(m))),
            ("statistical", lambda m, e, a, L: L / (a**2 * m)),
        ),
    ),
    BoundRow(
        key="pd",
        problem="Learning product distribution",
        table=2,
        dimension="Kd",
        source="Theorem 10",
        item_formula="Õ(Kd/(εα<sub>acc</sub>) + Kd/α<sub>acc</sub>²)",
        prior_formula=None,
        ours_formula="Õ(1/ε + Kd/(ε²α<sub>acc</sub>√m) + Kd/(α<sub>acc</sub>²m))",
        item_terms=(("item", _item_two),),
        ours_terms=_t2_three("kd"),
    ),
)
