"""Boundary checks of dpviz.partial beyond :mod:`dpviz._validation`, and the package's caps.

* :func:`real_array` — :func:`dpviz._validation.check_real_array` (complex input refused, not cast to real) plus a
  range and an integer check;
* :func:`check_eps` / :func:`check_rho` / :func:`check_count` — privacy parameters and counts in ranges where every
  formula of the package stays inside the float range;
* small field checks used by the ``__post_init__`` of the result records.

Caps (issue 12, finding 7: one call from a classroom client must not run for minutes or allocate gigabytes). The
lesson-07 panels use at most n = 8·10⁴ records of d = 32 bits for heavy hitters, n = 10⁶ records of d = 8 bits for
the projection mechanism, T_max = 2·10⁵ for the MWEM bound; the caps sit above that.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from dpviz._validation import check_choice, check_in_range, check_integer, check_real_array

MAX_RECORDS = 4_000_000
"""Cap on the number of records n of a dataset (the panels use ≤ 10⁶)."""

MAX_RECORD_ENTRIES = 20_000_000
"""Cap on n·d, the bits of a dataset (160 MB as the int64 codes are formed; the panels use ≤ 8·10⁶)."""

MAX_HH_SORT = 20_000_000
"""Cap on n·(D − 1), the record codes PrivHeavyHitter sorts (one pass per tree node; the panels use ≤ 2.5·10⁶)."""

MAX_HH_CANDIDATES = 4_000_000
"""Cap on the candidates PrivHeavyHitter examines over the whole tree (100 MB of node arrays)."""

MAX_WORK = 2_000_000_000
"""Cap on the work units (≈ 1–2 ns each) of one call: the projection mechanism (size·(2·iterations·2^d·m + SVD)),
:func:`project_onto_hull` (2·iterations·N·m + SVD), partial MWEM (T·(2^d·(m + ℓ) + |sets|)), :func:`graph_metric`
(N·(3·edges + 20·N·log₂N), Dijkstra from every node), :func:`diameters_brute_force` (N²·m) and
:func:`zcdp_epsilon_curve` (4·1600 per ρ value)."""

MAX_T_SEARCH = 10_000_000
"""Cap on T_max of :func:`mwem_best_T` (the panels use 2·10⁵)."""

MAX_NET = 200_000
"""Cap on the ν-net of the robust halfspace learner (its documented default)."""

MAX_HALFSPACE_ENTRIES = 10_000_000
"""Cap on H·n·d, the (hypotheses × samples × coordinates) array of :func:`halfspace_dec` (80 MB)."""

MAX_GRAPH_ENTRIES = 250_000_000
"""Cap on |X|²·d, the pairwise comparison of :func:`hamming_graph_weights` (|X| = 4096 = 2¹² records of 12 bits
fit: ~0.6 GB at the peak, ~3 s)."""

MAX_COUNT = 10**15
"""Cap on counts that only enter formulas (d, k, n, m, ℓ): products of a few of them stay exact enough and finite."""

MAX_EPS = 1e8
"""Cap on ε, ε0 and similar privacy parameters (the panels use ≤ 15; a test drives MWEM at 10⁷ to make its noise
negligible): (d·ε0)² stays finite."""

MIN_EPS = 1e-12
"""Smallest positive ε or ε0 accepted where a formula divides by it."""

MAX_RHO = 1e12
"""Cap on a zCDP parameter ρ."""

MAX_SCALE = 1e12
"""Cap on scales (σ, λ, μ, τ, Δ, diameters, sensitivities) and on log|X|; scales below 1/MAX_SCALE are refused too."""


def real_array(value: Any, name: str, *, ndim=None, allow_empty: bool = False, low: float | None = None,
               high: float | None = None, integer: bool = False) -> np.ndarray:
    """:func:`dpviz._validation.check_real_array` (float, finite, complex refused), optionally also refusing entries
    outside [low, high] or non-integers; the message names ``name`` and the allowed range."""
    arr = check_real_array(value, name, ndim=ndim, allow_empty=allow_empty)
    if arr.size:
        lo = float(arr.min())
        hi = float(arr.max())
        if (low is not None and lo < low) or (high is not None and hi > high):
            bad = lo if (low is not None and lo < low) else hi
            rng = f"[{'-inf' if low is None else f'{low:g}'}, {'inf' if high is None else f'{high:g}'}]"
            what = "negative values" if low == 0 and bad < 0 else "values outside the range"
            raise ValueError(f"{name} contains {what} (e.g. {bad!r}), which is not allowed: values must lie in {rng}.")
        if integer and not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} contains non-integer values, which is not allowed: must hold integers.")
    return arr


def check_eps(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """A privacy parameter ε or ε0 in [MIN_EPS, MAX_EPS] = [1e-12, 1e8] (or [0, MAX_EPS] where it only multiplies),
    so that 1/ε and (d·ε)² stay finite."""
    if allow_zero:
        return check_in_range(value, name, 0.0, MAX_EPS)
    return check_in_range(value, name, MIN_EPS, MAX_EPS)


def check_rho(value: Any, name: str = "rho") -> float:
    """A zCDP parameter ρ in [0, MAX_RHO]."""
    return check_in_range(value, name, 0.0, MAX_RHO)


def check_scale(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """A scale in [1/MAX_SCALE, MAX_SCALE] (or [0, MAX_SCALE])."""
    if allow_zero:
        return check_in_range(value, name, 0.0, MAX_SCALE)
    return check_in_range(value, name, 1.0 / MAX_SCALE, MAX_SCALE)


def check_count(value: Any, name: str, *, minimum: int = 1, maximum: int = MAX_COUNT) -> int:
    return check_integer(value, name, minimum=minimum, maximum=maximum)


def check_name(value: Any, name: str, choices) -> str:
    """A string option: one of ``choices`` (anything else, arrays included, is refused with the choices listed)."""
    if not isinstance(value, str):
        raise ValueError(f"{name} = {value!r} is not allowed: must be one of " + ", ".join(repr(c) for c in choices)
                         + ".")
    return check_choice(value, name, choices)


def check_work(work: int, what: str) -> None:
    if work > MAX_WORK:
        raise ValueError(f"{what} is not allowed: its work ({work:.3g} multiply-adds) must be <= {MAX_WORK:.0e} "
                         "(MAX_WORK).")


# ----------------------------------------------------------------------------------------------- record fields


def field_array(obj, name: str, *, ndim: int, integer: bool = False, low: float | None = None,
                dtype=None) -> None:
    """Validate the field ``name`` of a frozen dataclass as a real, finite array (stored as ``dtype`` if given)."""
    value = getattr(obj, name)
    if isinstance(value, np.ndarray) and value.dtype == bool:
        if value.ndim != ndim:
            raise ValueError(f"{name} has shape {value.shape} which is not allowed: must be {ndim}-D.")
        return
    arr = real_array(value, name, ndim=ndim, allow_empty=True, low=low, integer=integer)
    if dtype is not None:
        arr = arr.astype(dtype)
    elif isinstance(value, np.ndarray) and value.dtype.kind in "iu" and integer:
        arr = value
    object.__setattr__(obj, name, arr)


def field_float(obj, name: str, *, low: float | None = None) -> None:
    value = getattr(obj, name)
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise ValueError(f"{name} = {value!r} is not allowed: must be a real number.")
    try:
        x = float(value)
    except OverflowError:
        raise ValueError(f"{name} = {value!r} is not allowed: must be a finite number.") from None
    if not math.isfinite(x) or (low is not None and x < low):
        raise ValueError(f"{name} = {value!r} is not allowed: must be a finite number"
                         + (f" >= {low:g}." if low is not None else "."))
    object.__setattr__(obj, name, x)


def field_int(obj, name: str, *, minimum: int = 0) -> None:
    object.__setattr__(obj, name, check_integer(getattr(obj, name), name, minimum=minimum))


def field_instance(obj, name: str, cls) -> None:
    value = getattr(obj, name)
    if not isinstance(value, cls):
        raise TypeError(f"{name} = {type(value).__name__} is not allowed: must be a {cls.__name__}.")
