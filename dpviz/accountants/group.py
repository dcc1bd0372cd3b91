"""Group privacy: what a guarantee for one record says about k records (one person with k rows).

The one home of group privacy in dpviz (issue 13). Every public name validates once and calls the unchecked
kernels :func:`_group_privacy`, :func:`_group_log_factor` and :func:`_log_item_delta`, which other dpviz modules
may import:

* :func:`group_privacy` — Lemma 6 of Ghazi et al. 2023, scalar or broadcast over arrays of ε, δ and k;
* :func:`group_privacy_lift` — the same lemma read at user level (k = m examples per user), lessons 11 and 14;
* :func:`group_privacy_item_budget` — its exact inverse: the item-level (ε₀, δ₀) that lifts to a user-level (ε, δ);
* :func:`group_privacy_curve` — ε′, δ′ and the looser bound k·e^{kε}·δ over a whole axis of k, not capped at 1
  (lesson 11 draws where δ′ crosses 1);
* :func:`group_privacy_log_factor` — ln of the δ factor, finite where the factor overflows a double;
* :func:`group_privacy_mechanism` — the exact answer for mechanisms with a sensitivity (not the generic bound).

References
----------
Ghazi, Kamath, Kumar, Manurangsi, Meka, Zhang, "User-Level Differential Privacy With Few Examples Per User",
NeurIPS 2023 (arXiv:2309.12500): Lemma 6 (group privacy), footnote 5 (a user-level neighbour is a chain of m
item-level neighbours). Dwork & Roth 2014, Theorem 2.2 (group privacy for pure DP). Bun & Steinke 2016,
Proposition 1.9 (zCDP).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from dpviz import mechanisms as _m
from dpviz._validation import Interval, check_delta, check_in_range, check_integer, check_positive, check_real_array
from dpviz.accountants._base import RUNS
from dpviz.accountants.events import ZCDP, ApproxDP, PureDP

__all__ = [
    "group_privacy",
    "group_privacy_lift",
    "group_privacy_item_budget",
    "group_privacy_curve",
    "group_privacy_log_factor",
    "group_privacy_mechanism",
]

#: Largest m (examples per user) of :func:`group_privacy_lift` and :func:`group_privacy_item_budget`: the cap of
#: :mod:`dpviz.userlevel` on examples per user (``dpviz.userlevel.data.ITEMS``; a test keeps them equal).
EXAMPLES_PER_USER = Interval(1, 10_000_000, integer=True)

#: Largest item-level ε of :func:`group_privacy_lift`: ``dpviz.userlevel``'s ``EPSILON`` (e^{500} ≈ 10²¹⁷).
LIFT_EPSILON = Interval(0.0, 500.0)

_LOG_SWITCH = 700.0  # above kε = 700, e^{kε} is near the double range: the factor is formed in logs


# ----------------------------------------------------------------------------------------------- kernels


def _group_log_factor(epsilon: Any, k: Any) -> np.ndarray:
    """ln Σ_{j<k} e^{jε} = ln((e^{kε} − 1)/(e^{ε} − 1)) (= ln k at ε = 0), elementwise, never overflowing.

    Unchecked: ε ≥ 0 and k ≥ 1 (k may be real here; :mod:`dpviz.userlevel.bounds` evaluates it at real m), both
    broadcastable; returns a float array of the broadcast shape. kε ≤ 700: the ratio of two ``expm1`` (a few ulps);
    beyond: (k − 1)ε + ln(1 − e^{−kε}) − ln(1 − e^{−ε}).
    """
    eps, kk = np.broadcast_arrays(np.asarray(epsilon, dtype=float), np.asarray(k, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ke = kk * eps
        direct = ke <= _LOG_SWITCH
        e_d = np.where(direct & (eps > 0), eps, 1.0)  # placeholders keep the unused branch finite
        ratio = np.log(np.expm1(np.where(direct & (eps > 0), ke, 1.0)) / np.expm1(e_d))
        e_l = np.where(direct, 1.0, eps)
        k_l = np.where(direct, 1.0, kk)
        logs = (k_l - 1.0) * e_l + np.log(-np.expm1(-k_l * e_l)) - np.log(-np.expm1(-e_l))
    return np.where(eps == 0, np.log(kk), np.where(direct, ratio, logs)) + 0.0


def _group_privacy(epsilon: Any, delta: Any, k: Any, *, cap: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(kε, δ·Σ_{j<k} e^{jε}) elementwise on validated ε ≥ 0, 0 ≤ δ < 1, k ≥ 1 (broadcast; float arrays).

    δ′ is capped at ``cap`` (1 for a guarantee: δ ≥ 1 says nothing; :func:`group_privacy_curve` passes e^{700}).
    kε ≤ 700: δ·((e^{kε} − 1)/(e^{ε} − 1)) with two ``expm1`` (ε = 0: δ·k); beyond, δ·e^{ln factor} while the
    factor is a double (ε alone large, k small; exact at k = 1), else exp(ln δ + ln factor).
    :func:`_group_privacy1` is the same branches on Python floats (tested equal elementwise).
    """
    eps, dl, kk = np.broadcast_arrays(np.asarray(epsilon, dtype=float), np.asarray(delta, dtype=float),
                                      np.asarray(k, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ke = kk * eps
        direct = (ke <= _LOG_SWITCH) & (eps > 0)
        factor = np.expm1(np.where(direct, ke, 1.0)) / np.expm1(np.where(direct, eps, 1.0))
        log_cap = math.log(cap)
        log_f = _group_log_factor(eps, kk)
        via_logs = np.where(log_f <= _LOG_SWITCH, dl * np.exp(np.minimum(log_f, _LOG_SWITCH)),
                            np.exp(np.minimum(np.log(np.where(dl > 0, dl, 1.0)) + log_f, log_cap)))
        d = np.where(eps == 0, dl * kk, np.where(direct, dl * factor, via_logs))
    d = np.where(dl == 0, 0.0, np.minimum(d, cap))
    return ke + 0.0, d + 0.0


def _group_privacy1(eps: float, delta: float, k: float) -> tuple[float, float]:
    """:func:`_group_privacy` (cap 1) on one validated (ε, δ, k) as Python floats: the same branches, with numpy's
    ``expm1``/``log``/``exp`` on scalars (the scalar path of :func:`group_privacy` is ~100 times faster than numpy on
    0-d arrays). Not ``math``: numpy's ``expm1(1)`` is one ulp from libm's, and the two paths must agree to the bit
    (tested)."""
    ke = k * eps  # ∞ beyond the double range (then no finite group ε)
    if delta == 0.0:
        return ke, 0.0
    if eps == 0.0:
        return 0.0, min(1.0, delta * k)
    if ke <= _LOG_SWITCH:
        return ke, min(1.0, delta * float(np.expm1(ke) / np.expm1(eps)))
    log_factor = float((k - 1.0) * eps + np.log(-np.expm1(-ke)) - np.log(-np.expm1(-eps)))
    if log_factor <= _LOG_SWITCH:  # ε alone is large (k small): the factor itself is a double (1 at k = 1)
        return ke, min(1.0, delta * float(np.exp(log_factor)))
    return ke, float(np.exp(min(float(np.log(delta)) + log_factor, 0.0)))


def _log_item_delta(epsilon0: Any, delta: Any, m: Any) -> np.ndarray:
    """ln δ₀ = ln δ − ln Σ_{j<m} e^{jε₀}: the item-level δ₀ whose lift over m records at ε₀ is δ (the closed-form
    inverse of Lemma 6, in logs so that it never underflows; elementwise, m may be real). Unchecked: ε₀ ≥ 0,
    0 < δ < 1, m ≥ 1. :func:`group_privacy_item_budget` starts from it and snaps δ₀ to the last bit; the user
    complexity of naive group privacy (:func:`dpviz.userlevel.group_privacy_users`, with ε₀ = ε/m) and the
    group-lifted Gaussian of lesson 11 use it directly (a few ulps from the snapped value)."""
    return np.log(np.asarray(delta, dtype=float)) - _group_log_factor(epsilon0, m)


# ----------------------------------------------------------------------------------------------- validation


def _array(value: Any, name: str, low: float, high: float, *, high_open: bool = False,
           integer: bool = False) -> tuple[Any, bool]:
    """``value`` in [low, high] (or [low, high)), integral if ``integer``: a float for a scalar (with the scalar
    checks' message), else a float array whose message names its first offending entry; (value, was_scalar)."""
    if isinstance(value, (float, int)) or np.ndim(value) == 0:  # the Python-number test first: np.ndim costs µs
        if integer:
            return float(check_integer(value, name, minimum=int(low), maximum=int(high))), True
        return check_in_range(value, name, low, high, high_inclusive=not high_open), True
    if isinstance(value, np.ndarray) and value.dtype.kind == "b":
        raise ValueError(f"{name} is a boolean array, which is not allowed: must hold numbers.")
    arr = check_real_array(value, name, allow_empty=True).astype(float)
    if integer:
        bad = (arr < low) | (arr > high) | (arr != np.floor(arr))
        allowed = f"an integer >= {int(low)} and <= {int(high)}"
    else:
        bad = (arr < low) | ((arr >= high) if high_open else (arr > high))
        allowed = f"a number in [{low:g}, {high:g}{')' if high_open else ']'}"
    if np.any(bad):
        first = float(arr[bad].flat[0])
        shown = int(first) if integer and first.is_integer() else first
        raise ValueError(f"{name} = {shown!r} is not allowed: must be {allowed}.")
    return arr, False


def _arguments(epsilon: Any, delta: Any, k: Any, *, k_name: str, k_max: int, eps_max: float) -> tuple[Any, ...]:
    """(ε, δ, k, all_scalar): floats if all three are scalars, else float arrays broadcast to one shape."""
    eps, s1 = _array(epsilon, "epsilon", 0.0, eps_max)
    dl, s2 = _array(delta, "delta", 0.0, 1.0, high_open=True)
    kk, s3 = _array(k, k_name, 1, k_max, integer=True)
    if s1 and s2 and s3:
        return eps, dl, kk, True
    try:
        eps, dl, kk = np.broadcast_arrays(eps, dl, kk)
    except ValueError:
        raise ValueError(f"epsilon, delta and {k_name} have shapes {np.shape(epsilon)}, {np.shape(delta)} and "
                         f"{np.shape(k)}, which is not allowed: must broadcast to one shape (numpy rules).") from None
    return eps, dl, kk, False


# ----------------------------------------------------------------------------------------------- public


def group_privacy(epsilon: Any, delta: Any, k: Any) -> tuple[Any, Any]:
    """(ε, δ)-DP for neighbours implies (kε, δ·(e^{kε} − 1)/(e^{ε} − 1))-DP for datasets differing in k records.

    Ghazi et al. 2023, Lemma 6. The δ factor is the geometric sum Σ_{j<k} e^{jε}, not k (it tends to k as ε → 0;
    the paper's looser form k·e^{kε}·δ is in :func:`group_privacy_curve`). δ′ is capped at 1 (a δ ≥ 1 says
    nothing); beyond kε = 700 the factor is formed in logs, and kε = ∞ (beyond the double range) gives (∞, 1).

    Parameters
    ----------
    epsilon : float or array_like
        ε ≥ 0 (finite).
    delta : float or array_like
        δ in [0, 1).
    k : int or array_like of int
        Group size, 1 ≤ k ≤ :data:`~dpviz.accountants.RUNS`.

    Returns
    -------
    (float, float), or two numpy arrays of the broadcast shape if any argument is an array.

    Examples
    --------
    >>> eps, d = group_privacy(1.0, 1e-6, 3)
    >>> eps, round(d / 1e-6, 9)    # 1 + e + e²
    (3.0, 11.107337927)
    >>> group_privacy(0.0, 1e-6, 3)
    (0.0, 3e-06)
    >>> e, d = group_privacy(0.5, 1e-6, [1, 2, 4])
    >>> e.tolist(), (d / 1e-6).round(6).tolist()
    ([0.5, 1.0, 2.0], [1.0, 2.648721, 9.848692])
    """
    eps, dl, kk, scalar = _arguments(epsilon, delta, k, k_name="k", k_max=RUNS.high, eps_max=math.inf)
    return _group_privacy1(eps, dl, kk) if scalar else _group_privacy(eps, dl, kk)


def group_privacy_lift(epsilon: Any, delta: Any, m: Any) -> tuple[Any, Any]:
    """(ε_m, δ_m) = (mε, δ·(e^{mε} − 1)/(e^{ε} − 1)): an item-level (ε, δ) lifted to users with m examples each.

    Ghazi et al. 2023, Lemma 6 with k = m: a user-level neighbour is a chain of m item-level neighbours (footnote 5).
    The same function as :func:`group_privacy` (one kernel), named as lessons 11 and 14 use it and with
    :mod:`dpviz.userlevel`'s ranges: ε ≤ :data:`LIFT_EPSILON`, m ≤ :data:`EXAMPLES_PER_USER`. δ_m is
    capped at 1. Broadcasts like :func:`group_privacy`.

    Examples
    --------
    >>> eps_m, delta_m = group_privacy_lift(0.1, 1e-6, 10)
    >>> round(eps_m, 12), round(delta_m / 1e-6, 6)
    (1.0, 16.337994)
    """
    eps, dl, mm, scalar = _arguments(epsilon, delta, m, k_name="m", k_max=EXAMPLES_PER_USER.high,
                                     eps_max=LIFT_EPSILON.high)
    return _group_privacy1(eps, dl, mm) if scalar else _group_privacy(eps, dl, mm)


def group_privacy_item_budget(epsilon: float, delta: float, m: int) -> tuple[float, float]:
    """The item-level budget (ε₀, δ₀) whose group-privacy lift to users with m examples is (ε, δ): the exact
    inverse of Lemma 6 of Ghazi et al. 2023, ε₀ = ε/m and δ₀ = δ·(e^{ε/m} − 1)/(e^{ε} − 1) = δ / Σ_{j<m} e^{jε/m}.

    This is the tightest valid answer, to the last bit: ε₀ is the largest double whose lift m·ε₀ is at most ε, and
    δ₀ the largest double whose lift ``group_privacy(ε₀, δ₀, m)`` is at most δ, both as :func:`group_privacy`
    computes them (the closed form, then a search over neighbouring doubles). So the lift gives back the target
    (exactly, wherever a double lifts to it) and the next larger double would overshoot it. The lift itself is
    within a few ulps of Lemma 6 evaluated exactly (tests/numerics/test_family_group.py checks both against mpmath).

    One definition for every lesson (issue 13): lesson 12 used to divide δ by the looser factor m·e^{(m−1)ε/m}
    (Vadhan 2017, Lemma 2.2), which is also valid but smaller (δ₀ = 4.07·10⁻⁸ instead of 6.12·10⁻⁸ at
    (ε, δ, m) = (1, 10⁻⁶, 10)), so lessons 11, 12 and 14 taught two numbers for one idea. The geometric sum is what
    Lemma 6 proves; the looser factor only bounds it from above.

    Parameters
    ----------
    epsilon : float
        User-level ε > 0 (finite).
    delta : float
        User-level δ in [0, 1); δ = 0 gives δ₀ = 0.
    m : int
        Examples per user, 1 ≤ m ≤ :data:`EXAMPLES_PER_USER`.

    Examples
    --------
    >>> eps0, delta0 = group_privacy_item_budget(1.0, 1e-6, 10)
    >>> eps0, round(delta0, 12)
    (0.1, 6.1207e-08)
    >>> group_privacy(eps0, delta0, 10)
    (1.0, 1e-06)
    >>> group_privacy_item_budget(1.0, 0.0, 4)
    (0.25, 0.0)
    """
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta")
    m = EXAMPLES_PER_USER.check(m, "m")
    eps0 = _largest_double(lambda x: m * x <= epsilon, epsilon / m, math.inf)
    if delta == 0.0:
        return eps0, 0.0
    guess = math.exp(float(_log_item_delta(eps0, delta, m)))  # δ / Σ_{j<m} e^{jε₀}
    return eps0, _largest_double(lambda y: _group_privacy1(eps0, y, m)[1] <= delta, guess, 1.0)


def _largest_double(feasible, guess: float, infeasible: float) -> float:
    """Largest double x ≥ 0 with ``feasible(x)``, for a predicate true at 0, false at ``infeasible`` and switching
    once in between (a non-decreasing function below a target): start at the closed-form ``guess``, gallop over the
    bit patterns of non-negative doubles (ordered like the integers) to a bracket, then bisect. A few evaluations
    when the guess is within a few ulps, at most ~130 whatever it is."""
    def ok(bits: int) -> bool:
        return bool(feasible(float(np.int64(bits).view(np.float64))))

    top = int(np.float64(infeasible).view(np.int64))
    g = min(int(np.float64(guess).view(np.int64)), top)
    step = 1
    if ok(g):  # invariant below: ok(lo) and not ok(hi)
        lo, hi = g, min(g + step, top)
        while ok(hi):
            lo, step = hi, step * 2
            hi = min(lo + step, top)
    else:
        hi, lo = g, max(g - step, 0)
        while not ok(lo):
            hi, step = lo, step * 2
            lo = max(hi - step, 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return float(np.int64(lo).view(np.float64))


def group_privacy_curve(epsilon: Any, delta: Any, k: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group privacy over a whole axis of group sizes: ε′ = kε, δ′ = δ·(e^{kε} − 1)/(e^{ε} − 1) and the looser
    k·e^{kε}·δ, the two forms of Ghazi et al. 2023, Lemma 6 (vectorised; lesson 11's figures and readout).

    Unlike :func:`group_privacy`, δ′ is *not* capped at 1: lesson 11 draws where it crosses 1 (the guarantee
    becomes vacuous) and how far beyond. Both δ arrays are capped at e^{700} instead (formed in logs, never
    overflowing). Arguments broadcast; the results have at least one dimension.

    Parameters
    ----------
    epsilon : float or array_like
        Item-level ε ≥ 0.
    delta : float or array_like
        Item-level δ in [0, 1).
    k : int or array_like of int
        Group size (for a user-level guarantee, k = m examples per user), 1 ≤ k ≤ ``RUNS.high``.

    Returns
    -------
    eps_k, delta_k, delta_loose : numpy.ndarray

    Examples
    --------
    >>> e, d, loose = group_privacy_curve(1.0, 1e-6, [1, 2])
    >>> e.tolist(), [round(float(v) * 1e6, 6) for v in d], [round(float(v) * 1e6, 6) for v in loose]
    ([1.0, 2.0], [1.0, 3.718282], [2.718282, 14.778112])
    """
    eps, dl, kk, _ = _arguments(epsilon, delta, k, k_name="k", k_max=RUNS.high, eps_max=math.inf)
    eps, dl, kk = np.atleast_1d(eps, dl, kk)
    e, d = _group_privacy(eps, dl, kk, cap=math.exp(_LOG_SWITCH))
    with np.errstate(divide="ignore", over="ignore"):
        log_loose = np.log(kk) + e + np.log(np.where(dl > 0, dl, 1.0))
        loose = np.where(dl == 0, 0.0, np.exp(np.minimum(log_loose, _LOG_SWITCH)))
    return e, d, loose + 0.0


def group_privacy_log_factor(epsilon: Any, k: Any) -> Any:
    """ln of group privacy's δ factor, ln((e^{kε} − 1)/(e^{ε} − 1)) = ln Σ_{j<k} e^{jε} (Ghazi et al. 2023,
    Lemma 6), without overflow (the factor itself overflows a double beyond kε ≈ 709). Broadcasts; ε = 0 gives ln k.

    >>> round(group_privacy_log_factor(1.0, 3), 12) == round(math.log(1 + math.e + math.e**2), 12)
    True
    >>> round(group_privacy_log_factor(3.0, 10_000) / math.log(10), 1)   # a number with 13 028 digits
    13027.6
    """
    eps, s1 = _array(epsilon, "epsilon", 0.0, math.inf)
    kk, s2 = _array(k, "k", 1, RUNS.high, integer=True)
    try:
        out = _group_log_factor(eps, kk)
    except ValueError:
        raise ValueError(f"epsilon and k have shapes {np.shape(epsilon)} and {np.shape(k)}, which is not allowed: "
                         "must broadcast to one shape (numpy rules).") from None
    return float(out) if s1 and s2 else out


def group_privacy_mechanism(mechanism: Any, k: int) -> Any:
    """The same mechanism seen by a group of k records: the exact answer, not the generic bound.

    A query with sensitivity Δ per record moves by at most kΔ when k records change, so Gaussian, Laplace, discrete
    Laplace and discrete Gaussian mechanisms become the same mechanism with sensitivity kΔ (exact: their privacy
    profiles at kΔ are attained). ``PureDP(ε)`` → ``PureDP(kε)`` (tight: randomized response on k bits), ``ZCDP(ρ)``
    → ``ZCDP(k²ρ)`` (Bun & Steinke 2016, Proposition 1.9), ``ApproxDP`` → :func:`group_privacy`.

    >>> from dpviz.mechanisms import Gaussian
    >>> group_privacy_mechanism(Gaussian(2.0, sensitivity=1.0), 3).sensitivity
    3.0

    Raises
    ------
    ValueError
        For randomized response and the truncated discrete Laplace (no sensitivity to scale: use
        :func:`group_privacy` on their (ε, δ)).
    """
    k = check_integer(k, "k", minimum=1, maximum=RUNS.high)
    if isinstance(mechanism, (_m.Gaussian, _m.Laplace)):
        return dataclasses.replace(mechanism, sensitivity=_scaled(k, mechanism.sensitivity, k, "sensitivity"))
    if isinstance(mechanism, (_m.DiscreteLaplace, _m.DiscreteGaussian)):
        return dataclasses.replace(mechanism, sensitivity=int(k * mechanism.sensitivity))
    if isinstance(mechanism, PureDP):
        return PureDP(_scaled(k, mechanism.epsilon, k, "epsilon"))
    if isinstance(mechanism, ZCDP):
        return ZCDP(_scaled(k * k, mechanism.rho, k, "rho"))
    if isinstance(mechanism, ApproxDP):
        e, d = group_privacy(mechanism.epsilon, mechanism.delta, k)
        _scaled(k, mechanism.epsilon, k, "epsilon")
        if d >= 1.0:
            raise ValueError(f"k = {k} is too large for {mechanism!r}: the group δ reaches 1 (no guarantee left).")
        return ApproxDP(e, d)
    raise ValueError(
        f"mechanism = {mechanism!r} is not allowed: must be Gaussian, Laplace, DiscreteLaplace, DiscreteGaussian, "
        "PureDP, ZCDP or ApproxDP (use group_privacy(epsilon, delta, k) for the generic bound)."
    )


def _scaled(factor: int, value: float, k: int, name: str) -> float:
    out = factor * value
    if not math.isfinite(out):
        raise ValueError(f"k = {k!r} is not allowed here: the group's {name} ({factor}·{value!r}) exceeds the double "
                         "range; use a smaller k.")
    return out
