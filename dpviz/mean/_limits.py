"""Caps on every size :mod:`dpviz.mean` allocates or computes with (issue 12, finding 7).

A panel once passed a client's request for arrays of many GiB straight through; every count that sizes an array
(users n, samples m, dimension d, trials, draws, copies, queries, bins) is now refused above these caps with a
ValueError that names the cap. Counts that only enter closed-form bounds get the looser :data:`MAX_COUNT`, which
keeps every product of them exact enough in floating point and far from the double range.

Radii, bounds and data values that get squared or differenced are held to |x| ≤ 1e150 (:data:`MAX_SCALE`), and a
closed form whose value leaves the double range (ε = 5e-324 in 8B²/(nε)², say) is a ValueError naming its inputs
(:func:`evaluate`, :func:`finite`), never inf, NaN, OverflowError or ZeroDivisionError.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpviz._validation import (
    check_delta,
    check_in_range,
    check_integer,
    check_positive,
    check_probability,
    check_real_array,
)

#: n, m, d, K, k in closed-form bounds (no allocation): ≤ 10¹⁵.
MAX_COUNT = 10**15

#: Values one call may allocate in one array (n·m, size·n, size·d, ...): 10⁷ doubles = 80 MB.
MAX_ELEMENTS = 10_000_000

#: Monte-Carlo trials of one simulation.
MAX_TRIALS = 100_000

#: Dimension d of a Hadamard rotation (its d_pad signs are allocated; d_pad = 2^⌈log₂ d⌉ ≤ 2²²).
MAX_DIMENSION = 2**22

#: d_pad of :meth:`HadamardRotation.matrix` (a d_pad × d_pad array).
MAX_MATRIX_DIMENSION = 4096

#: Bins ⌈B/τ⌉ of PrivateRange: sampled exactly by segments up to 2⁵² (integer bin indices stay exact).
MAX_BINS = 2**52

#: Bins listed one by one (:func:`private_range_probabilities`, :attr:`RangeBins.midpoints`).
MAX_DENSE_BINS = 10_000_000

#: Copies of DP-Estimate-1 (Algorithm 2 of Esfandiari, Mirrokni & Narayanan 2022) and adaptive queries (Theorem 10 of
#: Levy et al. 2021).
MAX_REPETITIONS = 10_000

#: Scale-type parameters that get squared or differenced (radii r and R, bounds B, data values): |x| ≤ 1e150, so
#: that squared distances and sums of squares of up to 10⁷ of them stay inside the double range, and ≥ 1e-150 for
#: radii (a ball of radius 5e-324 has a density beyond the double range).
MAX_SCALE = 1e150
MIN_RADIUS = 1e-150


def count(value: Any, name: str, *, minimum: int = 1, cap: int = MAX_COUNT) -> int:
    """An integer count in [minimum, cap] (the message names the cap)."""
    return check_integer(value, name, minimum=minimum, maximum=cap)


def scale(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """A radius / bound in [1e-150, 1e150] (or [0, 1e150] with ``allow_zero``)."""
    low = 0.0 if allow_zero else MIN_RADIUS
    return check_in_range(value, name, low, MAX_SCALE)


def _open_probability(value: Any, name: str) -> float:
    return check_probability(value, name, open_low=True, open_high=True)


#: The one meaning of each parameter name in the closed forms of :mod:`dpviz.mean` (review D8: the same seven
#: ``check_*`` lines were repeated function after function): counts are integers in [1, 10¹⁵], ε, τ, B, σ, r are
#: finite and > 0, δ, γ and α lie in (0, 1), a variance is ≥ 0.
_PARAMETERS = {
    **{k: count for k in ("n", "m", "d", "K", "k")},
    **{k: check_positive for k in ("epsilon", "tau", "bound", "sigma", "r")},
    "delta": lambda v, name: check_delta(v, name, allow_zero=False),
    "gamma": _open_probability,
    "alpha": _open_probability,
    "variance": lambda v, name: check_positive(v, name, allow_zero=True),
}


def checked(**params: Any) -> tuple:
    """Validate closed-form parameters by name, in the order given, and return them converted.

    ``n, d, eps = checked(n=n, d=d, epsilon=epsilon)``: one validator per name (:data:`_PARAMETERS`), so every
    function of :mod:`dpviz.mean` refuses the same values with the same message (name, value, allowed range).
    """
    return tuple(_PARAMETERS[name](value, name) for name, value in params.items())


def half_width(value: Any, name: str = "half_width_factor") -> float:
    """The half-width factor h of PrivateRange's interval [μ̂ − hτ, μ̂ + hτ] (Algorithm 6 of Levy et al. 2021): in
    (0, 10⁶]."""
    return check_in_range(value, name, 0.0, 1e6, low_inclusive=False)


def data(value: Any, name: str, *, ndim=None) -> np.ndarray:
    """A non-empty real finite array whose values satisfy |x| ≤ 1e150."""
    x = check_real_array(value, name, ndim=ndim)
    big = np.abs(x) > MAX_SCALE
    if np.any(big):
        raise ValueError(f"{name} contains {float(x[big].flat[0])!r}, which is not allowed: must hold numbers with "
                         f"|x| <= {MAX_SCALE:g} (squares and sums of squares must stay within the double range).")
    return x


def real_counts(value: Any, name: str) -> np.ndarray:
    """A float array of counts taken as real numbers in [1, 10¹⁵] (the continuous relaxation a map over (n, m)
    draws; integer counts are the same numbers)."""
    x = check_real_array(value, name)
    bad = (x < 1) | (x > MAX_COUNT)
    if np.any(bad):
        raise ValueError(f"{name} = {float(x[bad].flat[0])!r} is not allowed: must be numbers in [1, {MAX_COUNT}].")
    return x


def elements(total: int, what: str, cap: int = MAX_ELEMENTS) -> None:
    """Refuse an allocation of more than ``cap`` values, naming what would be allocated."""
    if total > cap:
        raise ValueError(f"{what} would hold {total} values, which is not allowed: must be <= {cap} "
                         "(reduce the sizes).")


def finite(value: float, what: str, **params: Any) -> float:
    """``value`` if it is finite; otherwise a ValueError naming the parameters whose result left the double range
    (a closed form at ε = 5e-324 or B = 1e308 is not returned as inf)."""
    if not math.isfinite(value):
        shown = ", ".join(f"{k} = {v!r}" for k, v in params.items())
        raise ValueError(f"{shown}: not allowed together, {what} exceeds the double range (must be <= 1.8e308); "
                         "use less extreme values.")
    return float(value)


def exp_or_inf(x: float) -> float:
    """e^x, +inf instead of OverflowError."""
    return math.exp(x) if x < 709.78 else math.inf


def expm1_or_inf(x: float) -> float:
    """e^x − 1, +inf instead of OverflowError."""
    return math.expm1(x) if x < 709.78 else math.inf


def evaluate(formula, what: str, **params: Any) -> float:
    """Evaluate a closed form ``formula()`` as written; if it overflows (OverflowError, ZeroDivisionError after
    an underflow, inf or NaN), a ValueError naming ``params`` instead of an exception or inf. The formula's own
    rounding is kept bit for bit wherever it was finite."""
    try:
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            value = float(formula())
    except (OverflowError, ZeroDivisionError):
        value = math.inf
    return finite(value, what, **params)
