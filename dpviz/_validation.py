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

A public function declares its parameters' specs beside its signature, size caps included, and
:func:`checked` applies them once at the call (sklearn's ``validate_params`` pattern; private kernels trust
their callers):

>>> @checked(n=Interval(1, 10**6, integer=True), epsilon=Interval(0, None, open_low=True))
... def noisy_count(n, epsilon=1.0):
...     return n, epsilon
>>> noisy_count(3.0)
(3, 1.0)
>>> noisy_count(10**6 + 1)
Traceback (most recent call last):
...
ValueError: n = 1000001 is not allowed: must be an integer >= 1 and <= 1000000.

The specs: :class:`Interval` (a number or an integer, ends open or closed), :class:`Options` (one of a few
values), :class:`ArrayOf` (a real array, optionally bounded), :class:`InstanceOf`, and :class:`Cap` (a cap on a
size computed from several parameters, such as the n·m·d entries of a task). Each renders the message template
above; the ``check_*`` functions below are their implementations.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "ArrayOf",
    "Cap",
    "InstanceOf",
    "Interval",
    "Options",
    "checked",
    "specs_of",
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


# ============================================================================================ declarative specs


class _Spec:
    """A parameter's spec: ``spec.check(value, name)`` returns the value converted, or raises the template's
    ValueError (TypeError for a wrong kind of object)."""

    __slots__ = ()

    def check(self, value: Any, name: str) -> Any:  # pragma: no cover - every spec overrides it
        raise NotImplementedError

    __call__ = check


_INT_AS_FLOAT = 2**1023  # ints of smaller magnitude convert to a finite float


@dataclasses.dataclass(frozen=True, slots=True)
class Interval(_Spec):
    """A real number in the interval from ``low`` to ``high`` (None: unbounded; ends closed unless ``open_low`` /
    ``open_high``), or with ``integer=True`` an integer in [low, high]. With ``integer=True`` the upper end is a
    size cap: ``Interval(1, 10**6, integer=True)``.

    >>> Interval(0, 1, open_low=True).check(1.5, "rate")
    Traceback (most recent call last):
    ...
    ValueError: rate = 1.5 is not allowed: must be a number in (0, 1].
    """

    low: float | None = None
    high: float | None = None
    integer: bool = False
    open_low: bool = False
    open_high: bool = False

    def check(self, value: Any, name: str) -> Any:
        low, high = self.low, self.high
        # fast path for the common exact types; anything else (and every refusal) goes through check_* below
        kind = type(value)
        if kind is int if self.integer else kind is float or kind is int:
            ok_low = low is None or (value > low if self.open_low else value >= low)
            ok_high = high is None or (value < high if self.open_high else value <= high)
            if ok_low and ok_high and (math.isfinite(value) if kind is float else self.integer or -_INT_AS_FLOAT
                                       <= value <= _INT_AS_FLOAT):  # (an int beyond the float range is refused below)
                return value if self.integer else float(value)
        if self.integer:
            return check_integer(value, name, minimum=low, maximum=high)
        if high is None:
            if low == 0:
                return check_positive(value, name, allow_zero=not self.open_low)
            x = _as_float(value, name, self._allowed())
            if low is not None and (x < low or (x == low and self.open_low)):
                raise _fail(name, value, self._allowed())
            return x
        if low is None:
            low = -float(np.finfo(float).max)
        return check_in_range(value, name, low, high, low_inclusive=not self.open_low,
                              high_inclusive=not self.open_high)

    __call__ = check

    def _allowed(self) -> str:
        return f"a finite number {'>' if self.open_low else '>='} {self.low:g}"


@dataclasses.dataclass(frozen=True, slots=True, init=False)
class Options(_Spec):
    """One of a few values, of the same kind as the one it equals (:func:`check_choice`)."""

    choices: tuple

    def __init__(self, *choices: Any):
        object.__setattr__(self, "choices", tuple(choices))

    def check(self, value: Any, name: str) -> Any:
        return check_choice(value, name, self.choices)

    __call__ = check


@dataclasses.dataclass(frozen=True, slots=True)
class ArrayOf(_Spec):
    """A real, finite float array (complex refused, :func:`check_real_array`) of ``ndim`` dimensions, empty only with
    ``allow_empty``, whose entries satisfy |x| ≤ ``max_abs`` if given."""

    ndim: int | tuple[int, ...] | None = None
    max_abs: float | None = None
    allow_empty: bool = False

    def check(self, value: Any, name: str) -> np.ndarray:
        arr = check_real_array(value, name, ndim=self.ndim, allow_empty=self.allow_empty)
        if self.max_abs is not None and arr.size:
            top = float(np.max(np.abs(arr)))
            if top > self.max_abs:
                raise ValueError(f"{name} has an entry of magnitude {top:.4g}, which is not allowed: entries must lie "
                                 f"in [-{self.max_abs:g}, {self.max_abs:g}].")
        return arr

    __call__ = check


@dataclasses.dataclass(frozen=True, slots=True)
class InstanceOf(_Spec):
    """An instance of ``cls`` (a TypeError otherwise: a wrong kind of argument, not a value out of range); ``hint``
    says how to make one."""

    cls: type
    hint: str = ""
    optional: bool = False

    def check(self, value: Any, name: str) -> Any:
        if (value is None and self.optional) or isinstance(value, self.cls):
            return value
        how = f" ({self.hint})" if self.hint else ""
        raise TypeError(f"{name} = {type(value).__name__} is not allowed: must be a {self.cls.__name__}"
                        f"{' or None' if self.optional else ''}{how}.")

    __call__ = check


@dataclasses.dataclass(frozen=True, slots=True)
class Cap:
    """A size cap on a quantity computed from several parameters (the entries of an intermediate array, the work
    of one call): ``Cap(20_000_000, "entries of an intermediate array").check(n * m, "n·m")``. The message names
    the quantity, its value and the cap."""

    limit: int
    what: str

    def check(self, total: int, shown: str) -> int:
        if total > self.limit:
            got = total if isinstance(total, int) else f"{total:.4g}"
            raise ValueError(f"{shown} = {got} is not allowed: must be <= {self.limit} (the cap on {self.what}); "
                             "use smaller inputs.")
        return total

    __call__ = check


def checked(**specs: _Spec):
    """Decorator: validate the named parameters of a function with their specs at every call, and pass on the
    converted values (``3.0`` → ``3`` for an integer spec). Parameters left at their defaults are not checked (a
    default is trusted). On a (frozen) dataclass it checks and converts the named fields after ``__init__``,
    before the class's own ``__post_init__``. The specs stay readable as ``specs_of(f)``."""

    def decorate(target):
        if isinstance(target, type):
            return _checked_class(target, specs)
        params = list(inspect.signature(target).parameters)
        unknown = set(specs) - set(params)
        if unknown:
            raise TypeError(f"checked: {target.__qualname__} has no parameter(s) {sorted(unknown)}")
        positional = tuple((params.index(k), k, spec) for k, spec in specs.items())

        @functools.wraps(target)
        def wrapper(*args, **kwargs):
            if args:
                args = list(args)
                count = len(args)
                for i, key, spec in positional:
                    if i < count:
                        args[i] = spec.check(args[i], key)
            if kwargs:
                for key, value in kwargs.items():
                    spec = specs.get(key)
                    if spec is not None:
                        kwargs[key] = spec.check(value, key)
            return target(*args, **kwargs)

        wrapper.__dpviz_specs__ = dict(specs)
        return wrapper

    return decorate


def _checked_class(cls: type, specs: dict[str, _Spec]) -> type:
    fields = {f.name for f in dataclasses.fields(cls)}
    unknown = set(specs) - fields
    if unknown:
        raise TypeError(f"checked: {cls.__qualname__} has no field(s) {sorted(unknown)}")
    own = cls.__dict__.get("__post_init__")

    def __post_init__(self, *init_vars):
        for key, spec in specs.items():
            object.__setattr__(self, key, spec.check(getattr(self, key), key))
        if own is not None:
            own(self, *init_vars)

    cls.__post_init__ = __post_init__
    cls.__dpviz_specs__ = dict(specs)
    # dataclass's generated __init__ calls self.__post_init__ only if it existed when the class was built
    if own is None:
        init = cls.__init__

        @functools.wraps(init)
        def __init__(self, *args, **kwargs):
            init(self, *args, **kwargs)
            __post_init__(self)

        cls.__init__ = __init__
    return cls


def specs_of(obj: Any) -> dict[str, _Spec]:
    """The specs :func:`checked` declared for a function or dataclass (empty if none)."""
    return dict(getattr(obj, "__dpviz_specs__", {}))


# ============================================================================================ finite results
# A closed form whose value leaves the double range (ε = 5e-324 in 8B²/(nε)², say) is a ValueError naming its
# inputs, never inf, NaN, OverflowError or ZeroDivisionError.


def finite_result(value: float, what: str, **params: Any) -> float:
    """``value`` if it is finite; otherwise a ValueError naming the parameters whose result left the double range
    (a closed form at ε = 5e-324 or B = 1e308 is not returned as inf).

    >>> finite_result(math.inf, "the MSE", epsilon=5e-324)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: epsilon = 5e-324: not allowed together, the MSE exceeds the double range (must be <= 1.8e308); ...
    """
    if not math.isfinite(value):
        shown = ", ".join(f"{k} = {v!r}" for k, v in params.items())
        raise ValueError(f"{shown}: not allowed together, {what} exceeds the double range (must be <= 1.8e308); "
                         "use less extreme values.")
    return float(value)


def evaluate_finite(formula, what: str, **params: Any) -> float:
    """Evaluate a closed form ``formula()`` as written; if it overflows (OverflowError, ZeroDivisionError after
    an underflow, inf or NaN), a ValueError naming ``params`` (:func:`finite_result`) instead of an exception or
    inf. The formula's own rounding is kept bit for bit wherever it was finite."""
    try:
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            value = float(formula())
    except (OverflowError, ZeroDivisionError):
        value = math.inf
    return finite_result(value, what, **params)


def exp_or_inf(x: float) -> float:
    """e^x, +inf instead of OverflowError."""
    return math.exp(x) if x < 709.78 else math.inf


def expm1_or_inf(x: float) -> float:
    """e^x − 1, +inf instead of OverflowError."""
    return math.expm1(x) if x < 709.78 else math.inf


# ============================================================================================ record fields
# Checks of a frozen dataclass's fields in its ``__post_init__`` (each stores the converted value).


def check_progress(progress: Any) -> None:
    """A ``progress`` argument must be a callable ``progress(fraction)`` or None (TypeError: a wrong kind of argument,
    not a value out of range)."""
    if progress is not None and not callable(progress):
        raise TypeError(f"progress = {progress!r} is not allowed: must be a callable progress(fraction) or None.")


def field_array(obj, name: str, *, ndim: int, optional: bool = False, integer: bool = False,
                low: float | None = None, high: float | None = None) -> None:
    """Validate (and store as a numpy array) the field ``name`` of a frozen dataclass."""
    value = getattr(obj, name)
    if value is None and optional:
        return
    arr = check_real_array(value, name, ndim=ndim, allow_empty=True)
    if integer:
        if not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} contains non-integer values, which is not allowed: must hold integers.")
        arr = arr.astype(np.int64)
    if low is not None and arr.size and float(arr.min()) < low:
        raise ValueError(f"{name} contains {float(arr.min())!r}, which is not allowed: values must be >= {low:g}.")
    if high is not None and arr.size and float(arr.max()) > high:
        raise ValueError(f"{name} contains {float(arr.max())!r}, which is not allowed: values must be <= {high:g}.")
    if not isinstance(value, np.ndarray) or value.dtype != arr.dtype:
        object.__setattr__(obj, name, arr)


def field_float(obj, name: str, *, optional: bool = False, allow_inf: bool = False, low: float | None = None) -> None:
    """Validate (and store as a float) the field ``name``: a finite real number (+inf with ``allow_inf``) >= ``low``."""
    value = getattr(obj, name)
    if value is None and optional:
        return
    if allow_inf and isinstance(value, (float, np.floating)) and value == math.inf:
        object.__setattr__(obj, name, math.inf)
        return
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise ValueError(f"{name} = {value!r} is not allowed: must be a real number.")
    try:
        x = float(value)
    except OverflowError:
        raise ValueError(f"{name} = {value!r} is not allowed: must be a finite number.") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} = {value!r} is not allowed: must be a finite number"
                         + (" or +inf." if allow_inf else "."))
    if low is not None and x < low:
        raise ValueError(f"{name} = {value!r} is not allowed: must be >= {low:g}.")
    object.__setattr__(obj, name, x)


def field_int(obj, name: str, *, minimum: int = 0) -> None:
    """Validate (and store as an int) the field ``name``: an integer >= ``minimum``."""
    object.__setattr__(obj, name, check_integer(getattr(obj, name), name, minimum=minimum))


def field_str(obj, name: str) -> None:
    """The field ``name`` must be a non-empty string."""
    value = getattr(obj, name)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} = {value!r} is not allowed: must be a non-empty string.")


def field_instance(obj, name: str, cls, *, optional: bool = False) -> None:
    """The field ``name`` must be an instance of ``cls`` (or None with ``optional``); a TypeError otherwise."""
    InstanceOf(cls, optional=optional).check(getattr(obj, name), name)


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
