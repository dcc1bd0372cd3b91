"""One validation helper, one message template, used at every public boundary of dpviz.

Every check raises :class:`ValueError` whose message names the parameter, the value given and the
allowed range, e.g. ``"epsilon = -1.0 is not allowed: must be a finite number > 0."``. Nothing in dpviz
returns NaN silently: non-finite input is rejected here.

>>> check_positive(0.5, "epsilon")
0.5
>>> check_positive(-1.0, "epsilon")
Traceback (most recent call last):
...
ValueError: epsilon = -1.0 is not allowed: must be a finite number > 0.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "as_rng",
    "check_array",
    "check_real_array",
    "check_in_range",
    "check_integer",
    "check_positive",
    "check_probability",
    "check_delta",
    "check_choice",
]


def _fail(name: str, value: Any, allowed: str) -> ValueError:
    return ValueError(f"{name} = {value!r} is not allowed: must be {allowed}.")


def _as_float(value: Any, name: str, allowed: str) -> float:
    # numbers.Real covers Python and numpy ints/floats, Fraction; not bool/np.bool_, complex, str, Decimal
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _fail(name, value, allowed)
    try:
        x = float(value)
    except OverflowError:  # an int beyond the float range, e.g. 10**400
        raise _fail(name, value, allowed) from None
    if not math.isfinite(x):
        raise _fail(name, value, allowed)
    return x


def check_positive(value: Any, name: str, *, allow_zero: bool = False, allow_inf: bool = False) -> float:
    """Return ``float(value)`` if it is a finite number > 0 (or >= 0 with ``allow_zero``)."""
    allowed = f"a {'non-negative' if allow_zero else 'finite'} number {'>= 0' if allow_zero else '> 0'}"
    if allow_inf and isinstance(value, float) and value == math.inf:  # float covers np.float64
        return math.inf
    x = _as_float(value, name, allowed)
    if x < 0 or (x == 0 and not allow_zero):
        raise _fail(name, value, allowed)
    return x


def check_in_range(
    value: Any,
    name: str,
    low: float,
    high: float,
    *,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
) -> float:
    """Return ``float(value)`` if it lies in the interval between ``low`` and ``high``.

    >>> check_in_range(1.5, "rate", 0, 1, low_inclusive=False)
    Traceback (most recent call last):
    ...
    ValueError: rate = 1.5 is not allowed: must be a number in (0, 1].
    """
    lb = "[" if low_inclusive else "("
    rb = "]" if high_inclusive else ")"
    allowed = f"a number in {lb}{low:g}, {high:g}{rb}"
    x = _as_float(value, name, allowed)
    ok_low = x >= low if low_inclusive else x > low
    ok_high = x <= high if high_inclusive else x < high
    if not (ok_low and ok_high):
        raise _fail(name, value, allowed)
    return x


def check_probability(value: Any, name: str, *, open_low: bool = False, open_high: bool = False) -> float:
    """A probability in [0, 1] (ends optionally open)."""
    return check_in_range(value, name, 0.0, 1.0, low_inclusive=not open_low, high_inclusive=not open_high)


def check_delta(value: Any, name: str = "delta", *, allow_zero: bool = True) -> float:
    """δ of an (ε, δ) guarantee: in [0, 1) (or (0, 1) with ``allow_zero=False``)."""
    return check_in_range(value, name, 0.0, 1.0, low_inclusive=allow_zero, high_inclusive=False)


def check_integer(value: Any, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``int(value)`` for an integral number within [minimum, maximum].

    Floats with an integral value (``3.0``) are accepted; ``2.5``, ``True``, NaN are not.

    >>> check_integer(2.5, "count", minimum=1)
    Traceback (most recent call last):
    ...
    ValueError: count = 2.5 is not allowed: must be an integer >= 1.
    """
    parts = []
    if minimum is not None:
        parts.append(f">= {minimum}")
    if maximum is not None:
        parts.append(f"<= {maximum}")
    allowed = "an integer" + (" " + " and ".join(parts) if parts else "")
    if isinstance(value, bool):
        raise _fail(name, value, allowed)
    if isinstance(value, (numbers.Integral, np.integer)):
        k = int(value)
    else:
        x = _as_float(value, name, allowed)
        if not x.is_integer():
            raise _fail(name, value, allowed)
        k = int(x)
    if (minimum is not None and k < minimum) or (maximum is not None and k > maximum):
        raise _fail(name, value, allowed)
    return k


def check_choice(value: Any, name: str, choices) -> Any:
    """``value`` must be one of ``choices``, and of the same type as the choice it equals: an array, or ``True``
    for a choice ``1``, is not a choice (``np.array(['sum']) == 'sum'`` would pass an ``in`` test elementwise)."""
    if not isinstance(value, np.ndarray) and any(_same_kind(value, c) and value == c for c in choices):
        return value
    raise _fail(name, value, "one of " + ", ".join(repr(c) for c in choices))


def _same_kind(value: Any, choice: Any) -> bool:
    if isinstance(choice, str):
        return isinstance(value, str)
    if isinstance(choice, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(choice, bool)
    if isinstance(choice, numbers.Number):
        return isinstance(value, numbers.Number) and not isinstance(value, complex)
    return type(value) is type(choice)


def check_array(
    value: Any,
    name: str,
    *,
    ndim: int | tuple[int, ...] | None = None,
    dtype=float,
    allow_empty: bool = False,
    finite: bool = True,
) -> np.ndarray:
    """Convert to a numpy array, rejecting NaN/inf, wrong dimensionality and (by default) empty input."""
    try:
        raw = np.asarray(value)
    except ValueError as exc:  # numpy refuses nested sequences of different lengths
        if "inhomogeneous" in str(exc):
            raise ValueError(
                f"{name} is ragged (its rows have different lengths), which is not allowed here: must be a "
                f"rectangular array, e.g. n users × m samples each (truncate or pad users to a common m)."
            ) from None
        raise ValueError(f"{name} could not be read as a numeric array (got {type(value).__name__}).") from None
    try:
        if raw.dtype.kind in "USO" and not _all_numbers(raw):  # strings are refused, not parsed ("1.5")
            raise TypeError
        arr = raw.astype(dtype, copy=False)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} could not be read as a numeric array (got {type(value).__name__}).") from None
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            dims = " or ".join(str(d) for d in allowed)
            raise ValueError(
                f"{name} has shape {arr.shape} ({arr.ndim}-D) which is not allowed: must be {dims}-D."
            )
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} is empty, which is not allowed: must hold at least one value.")
    if finite and arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
        bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s), which is not allowed: must be finite.")
    return arr


def check_real_array(value: Any, name: str, **kwargs) -> np.ndarray:
    """:func:`check_array` that also refuses complex input.

    ``check_array`` casts a complex array to real (numpy drops the imaginary part with a ``ComplexWarning``); this
    variant refuses it instead, with the usual template. Keyword arguments are those of :func:`check_array`.

    >>> check_real_array([1.0, 2.0], "scores").tolist()
    [1.0, 2.0]
    >>> check_real_array([1 + 1j], "scores")
    Traceback (most recent call last):
    ...
    ValueError: scores = [(1+1j)] is not allowed: must be real numbers (complex input is not cast to real).
    """
    allowed = "real numbers (complex input is not cast to real)"
    if isinstance(value, (complex, np.complexfloating)):
        raise _fail(name, value, allowed)
    if isinstance(value, (np.ndarray, list, tuple)):
        try:
            raw = np.asarray(value)
        except (ValueError, TypeError):  # ragged etc.: check_array gives the message
            raw = None
        if raw is not None and raw.dtype.kind == "c":
            raise _fail(name, _Shown(raw), allowed)
    return check_array(value, name, **kwargs)


class _Shown:
    """An array as shown in a message: its first values only (a message must not print a whole data set)."""

    def __init__(self, arr: np.ndarray):
        self.arr = arr

    def __repr__(self) -> str:
        flat = self.arr.ravel()
        head = ", ".join(repr(complex(v)) if self.arr.dtype.kind == "c" else repr(v) for v in flat[:3].tolist())
        return f"[{head}]" if flat.size <= 3 else f"[{head}, ... ({flat.size} values)]"


def _all_numbers(value: np.ndarray) -> bool:
    """True if every element of an object array is a real number (not a string, bytes or None)."""
    return all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value.ravel())


def as_rng(rng: Any = None) -> np.random.Generator:
    """Normalise ``rng`` (None, an int seed, a SeedSequence or a Generator) to a numpy Generator.

    ``None`` gives fresh OS entropy; there is no global random state anywhere in dpviz.
    A legacy ``RandomState`` is refused so old code cannot silently share global state.
    """
    if isinstance(rng, np.random.RandomState):
        raise ValueError("rng = RandomState(...) is not allowed: must be a numpy Generator, an int seed or None.")
    if isinstance(rng, bool):
        raise _fail("rng", rng, "a numpy Generator, an int seed or None")
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError):
        raise _fail("rng", rng, "a numpy Generator, an int seed or None") from None


# ============================================================================================ array arguments
# Scalar-or-array argument helpers of the numerical core (formerly in dpviz/mechanisms.py): each returns
# (float array, was_scalar) so that a function validates once at its public boundary, computes on arrays, and
# hands back a float for scalar input (:func:`_out`).

#: Most values one call may draw (``size`` of ``sample_noise``/``sample``/the samplers, counted over all axes):
#: 10⁷ doubles are 80 MB; a larger request is refused with a ValueError naming this cap.
MAX_SAMPLES = 10_000_000


def _eps_arg(epsilon: Any) -> tuple[np.ndarray, bool]:
    """ε ≥ 0 (finite), scalar or array; returns (float array, was_scalar)."""
    if np.ndim(epsilon) == 0:
        e = check_positive(epsilon, "epsilon", allow_zero=True)
        return np.array([e]), True
    arr = check_real_array(epsilon, "epsilon")
    if np.any(arr < 0):
        bad = float(arr[arr < 0][0])
        raise ValueError(f"epsilon = {bad!r} is not allowed: must be a non-negative number >= 0.")
    return arr.astype(float), False


def _alpha_arg(alpha: Any) -> tuple[np.ndarray, bool]:
    if np.ndim(alpha) == 0:
        return np.array([check_probability(alpha, "alpha")]), True
    arr = check_real_array(alpha, "alpha")
    if np.any((arr < 0) | (arr > 1)):
        bad = float(arr[(arr < 0) | (arr > 1)][0])
        raise ValueError(f"alpha = {bad!r} is not allowed: must be a number in [0, 1].")
    return arr.astype(float), False


def _array_arg(value: Any, name: str, low: float, high: float, *, low_inclusive: bool = True,
               high_inclusive: bool = True) -> tuple[np.ndarray, bool]:
    """A number or array of numbers in an interval (NaN refused); returns (float array, was_scalar)."""
    if np.ndim(value) == 0:
        return np.array([check_in_range(value, name, low, high, low_inclusive=low_inclusive,
                                        high_inclusive=high_inclusive)]), True
    arr = check_real_array(value, name, finite=False).astype(float)
    ok = ((arr >= low) if low_inclusive else (arr > low)) & ((arr <= high) if high_inclusive else (arr < high))
    if not np.all(ok):
        lb, rb = "[" if low_inclusive else "(", "]" if high_inclusive else ")"
        bad = float(arr[~ok].flat[0])
        raise ValueError(f"{name} = {bad!r} is not allowed: must be a number in {lb}{low:g}, {high:g}{rb}.")
    return arr, False


def _nonneg(x: np.ndarray) -> np.ndarray:
    """max(x, 0) without negative zeros."""
    return np.where(x > 0, x, 0.0)


def _clip01(x, lo=0.0, hi=1.0):
    """Clip to [lo, hi] without negative zeros; NaN stays NaN (so :func:`_no_nan` can refuse it, never 0)."""
    return np.where(x > lo, np.minimum(x, hi), np.where(np.isnan(x), x, lo)) + 0.0


def _no_nan(arr: np.ndarray, what: str, name: str, value) -> np.ndarray:
    """Raise instead of returning NaN: every formula here is finite on its validated domain, so a NaN is a
    floating-point failure at extreme parameters and must not reach the caller as a number."""
    if np.any(np.isnan(arr)):
        raise ValueError(f"{what} could not be evaluated at {name} = {value!r}: the computation lost all precision "
                         "(extreme parameters); nothing is returned rather than NaN.")
    return arr


def _out(arr: np.ndarray, scalar: bool):
    return float(arr[0]) if scalar else arr


def _size_arg(size: Any) -> tuple[tuple[int, ...], bool]:
    """``size`` of a sampler: None (one scalar), an integer or a shape; at most :data:`MAX_SAMPLES` values."""
    if size is None:
        return (1,), True
    if np.ndim(size) == 0:
        return (check_integer(size, "size", minimum=0, maximum=MAX_SAMPLES),), False
    if isinstance(size, np.ndarray) and size.size == 0:
        return (), False
    try:
        parts = list(size)
    except TypeError:
        raise ValueError(f"size = {size!r} is not allowed: must be None, an integer or a tuple of integers.") from None
    if len(parts) > 32:
        raise ValueError(f"size has {len(parts)} axes, which is not allowed: must have at most 32 (numpy's limit).")
    shape = tuple(check_integer(s, "size", minimum=0, maximum=MAX_SAMPLES) for s in parts)
    if math.prod(shape) > MAX_SAMPLES:
        raise ValueError(f"size = {shape!r} is not allowed: must hold at most {MAX_SAMPLES} values in total "
                         f"(it holds {math.prod(shape)}).")
    return shape, False


_INT_LIMIT = 2**53  # integer query values: exact in float64, and value + noise stays far inside int64


def _values_arg(value: Any, *, integer: bool) -> tuple[np.ndarray, bool]:
    name = "value"
    if np.ndim(value) == 0:
        if integer:
            return np.array([check_integer(value, name, minimum=-_INT_LIMIT, maximum=_INT_LIMIT)],
                            dtype=np.int64), True
        return np.array([_as_float(value, name, "a finite number")]), True
    arr = check_real_array(value, name)
    if integer:
        if not np.all(np.equal(np.mod(arr, 1), 0)):
            bad = arr[np.mod(arr, 1) != 0].flat[0]
            raise ValueError(f"value = {bad!r} is not allowed: must be an integer (discrete mechanism).")
        if np.any(np.abs(arr) > _INT_LIMIT):
            bad = arr[np.abs(arr) > _INT_LIMIT].flat[0]
            raise ValueError(f"value = {bad!r} is not allowed: must be an integer in [-2**53, 2**53].")
        return arr.astype(np.int64), False
    return arr.astype(float), False


def _grid_arg(x: Any, name: str) -> np.ndarray:
    """Points at which a pmf/pdf/sf is evaluated: numbers, ±inf allowed, NaN refused."""
    arr = check_real_array(x, name, allow_empty=True, finite=False)
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} contains NaN, which is not allowed: must be numbers (±inf allowed).")
    return arr
