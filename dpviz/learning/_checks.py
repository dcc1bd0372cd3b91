"""Boundary checks of dpviz.learning beyond :mod:`dpviz._validation`, and the package's caps.

* :func:`real_array` — :func:`dpviz._validation.check_real_array` (which refuses complex input: numpy would cast
  it to real with a ComplexWarning and drop the imaginary part) and, optionally, entries beyond a magnitude bound;
* :func:`check_task` — the ``task`` argument must be a :class:`~dpviz.learning.tasks.UserTask`;
* :func:`check_work` — one training run's work (:func:`training_work`) must stay below :data:`MAX_TRAINING_WORK`;
* :func:`check_progress` — a ``progress`` argument must be a callable ``progress(fraction)`` or None;
* small field checks used by the ``__post_init__`` of the result records;
* :func:`safe_norm` — the ℓ₂ norm without overflow for entries near the float limit.

Caps (issue 12, finding 7: one call from a classroom client must not run for minutes or allocate gigabytes). The
lessons' panels use at most T = 500 steps, n·m = 2·10⁵ examples, d = 10 (work T·n·m·d = 10⁹, ~5 s for the
logistic task on the 2-core reference VM); the caps sit above that.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from dpviz._validation import check_choice, check_in_range, check_real_array

MAX_STEPS = 10_000
"""Cap on the number of optimisation steps T of one run (the panels use ≤ 500)."""

MAX_TASK_ENTRIES = 10_000_000
"""Cap on n·m·d (feature entries of a task, 80 MB) and on n·d² (per-user second moments of a linear task)."""

MAX_DIM = 1000
"""Cap on the dimension d of a task (its d × d covariance is eigendecomposed; the panels use d ≤ 10)."""

MAX_TRAINING_WORK = 13_000_000_000
"""Cap on the work units of one training run (:func:`training_work`; one unit ≈ 1 ns: runs at the cap took 2–13 s on
the 2-core reference VM). The panels' largest run (Train live: T = 500, n = 10⁴, m = 20, d = 10, logistic task,
Algorithm 3 with the paper's constants) is 1.1·10¹⁰ units, about 6.5 s."""

MAX_HOLDOUT = 1_000_000
"""Cap on the held-out sample of a logistic task (the panels use 4000)."""

MAX_MAGNITUDE = 1e12
"""Bound on scale parameters (radius, Lipschitz constant, step size, clip, noise level, ...) and on data entries, so
that squares and sums over up to :data:`MAX_TASK_ENTRIES` of them stay far inside the float range."""

MAX_COUNT = 10**15
"""Cap on counts (n, m, d, K) that only enter formulas (schedules, radii), so they convert to floats exactly enough
and products of a few of them stay finite."""

MAX_EPSILON = 1000.0
"""Cap on ε where a budget split evaluates e^ε (Algorithm H: strong composition); the panels use ε ≤ 10."""

MAX_SELECTION_DRAWS = 5_000
"""Cap on the expected number of draws 1/γ of private selection (Algorithm 5); each draw is one WinsorizedMean1D
call (~0.1–0.5 ms)."""

MAX_SELECTION_WORK = 20_000_000
"""Cap on n/γ, the expected number of user losses private selection reads."""


def real_array(value: Any, name: str, *, ndim=None, allow_empty: bool = False,
               max_abs: float | None = None) -> np.ndarray:
    """:func:`dpviz._validation.check_real_array` (float, finite, complex refused) that also refuses entries with
    |x| > ``max_abs``."""
    arr = check_real_array(value, name, ndim=ndim, allow_empty=allow_empty)
    if max_abs is not None and arr.size and float(np.max(np.abs(arr))) > max_abs:
        raise ValueError(f"{name} has an entry of magnitude {float(np.max(np.abs(arr))):.3g}, which is not allowed: "
                         f"entries must lie in [-{max_abs:g}, {max_abs:g}].")
    return arr


def check_name(value: Any, name: str, choices) -> str:
    """A string option: one of ``choices`` (anything else, arrays included, is refused with the choices listed)."""
    if not isinstance(value, str):
        raise ValueError(f"{name} = {value!r} is not allowed: must be one of " + ", ".join(repr(c) for c in choices)
                         + ".")
    return check_choice(value, name, choices)


def check_scale(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """A scale parameter in [1/MAX_MAGNITUDE, MAX_MAGNITUDE] = [1e-12, 1e12] (or 0 with ``allow_zero``), so that its
    reciprocal, square and products with data stay finite."""
    if allow_zero:
        return check_in_range(value, name, 0.0, MAX_MAGNITUDE)
    return check_in_range(value, name, 1.0 / MAX_MAGNITUDE, MAX_MAGNITUDE)


def check_task(task: Any, name: str = "task"):
    from dpviz.learning.tasks import UserTask

    if not isinstance(task, UserTask):
        raise TypeError(f"{name} = {type(task).__name__} is not allowed: must be a UserTask "
                        "(make_linear_task, make_logistic_task or user_task_from_arrays).")
    return task


def training_work(T: int, task, method: str = "user_level") -> int:
    """Work units of one run of ``method`` for T steps on ``task``: a cost model fitted to timings (1 unit ≈ 1 ns).

    Per step, the gradients: linear task 5·n·d² from the per-user second moments (memory-bound; 5·d² for the
    non-private full gradient), or 4·n·m·(d + 1) per example for example-level DP-SGD; logistic task 4·n·m·(d + 1).
    Plus a per-user overhead: 64 for clipping and noise, 250 more for the logistic per-user gradient, 60·d_pad more
    for WinsorizedMeanHighD over d_pad = 2^⌈log₂ d⌉ rotated coordinates (paper constants), 400 + 200·d more for the
    ball-finding estimator of Algorithm H. Then the loss curve and excess risk: 4·d² per iterate of a linear task,
    4·(n·m·d + holdout·d) for ≤ 51 iterates of a logistic task.
    """
    n, m, d = task.n, task.m, task.d
    logistic = task.kind == "logistic"
    if method == "example_level" or logistic:
        grads = 4 * n * m * (d + 1)
    else:
        grads = 5 * d * d if method == "nonprivate" else 5 * n * d * d
    per_user = 0 if method == "nonprivate" else 64
    if logistic and method != "example_level":
        per_user += 250
    if method == "paper":
        per_user += 60 * (1 << (d - 1).bit_length())
    elif method == "algorithm_h":
        per_user += 400 + 200 * d
    if logistic:
        k = 0 if task.holdout is None else len(task.holdout[1])
        evals = 4 * min(T + 1, 51) * (n * m * d + k * d)
    else:
        evals = 4 * (T + 1) * d * d
    return T * (grads + n * per_user) + evals


def check_progress(progress: Any) -> None:
    """A ``progress`` argument must be a callable ``progress(fraction)`` or None (TypeError: a wrong kind of argument,
    not a value out of range)."""
    if progress is not None and not callable(progress):
        raise TypeError(f"progress = {progress!r} is not allowed: must be a callable progress(fraction) or None.")


def check_work(T: int, task, method: str = "user_level", what: str = "T") -> None:
    """Refuse a run whose :func:`training_work` exceeds :data:`MAX_TRAINING_WORK`."""
    work = training_work(T, task, method)
    if work > MAX_TRAINING_WORK:
        raise ValueError(
            f"{what} = {T} is not allowed for a {method} run on n = {task.n} users × m = {task.m} examples × "
            f"d = {task.d}: its work ({work:.3g} units, training_work) must be <= {MAX_TRAINING_WORK:.0e} "
            "(MAX_TRAINING_WORK); use fewer steps or a smaller task.")


def safe_norm(v: np.ndarray) -> float:
    """‖v‖₂ computed as s·‖v/s‖₂ with s = max|v_i|, so entries near the float limit do not overflow."""
    s = float(np.max(np.abs(v))) if v.size else 0.0
    if s == 0.0:
        return 0.0
    return s * math.sqrt(float(np.dot(v / s, v / s)))


# ----------------------------------------------------------------------------------------------- record fields


def field_array(obj, name: str, *, ndim: int, optional: bool = False, integer: bool = False,
                low: float | None = None, high: float | None = None) -> None:
    """Validate (and store as a numpy array) the field ``name`` of a frozen dataclass."""
    value = getattr(obj, name)
    if value is None and optional:
        return
    arr = real_array(value, name, ndim=ndim, allow_empty=True)
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
    from dpviz._validation import check_integer

    object.__setattr__(obj, name, check_integer(getattr(obj, name), name, minimum=minimum))


def field_str(obj, name: str) -> None:
    value = getattr(obj, name)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} = {value!r} is not allowed: must be a non-empty string.")


def field_instance(obj, name: str, cls, *, optional: bool = False) -> None:
    value = getattr(obj, name)
    if value is None and optional:
        return
    if not isinstance(value, cls):
        raise TypeError(f"{name} = {type(value).__name__} is not allowed: must be a {cls.__name__}"
                        + (" or None." if optional else "."))
