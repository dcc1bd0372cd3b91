"""Boundary checks of dpviz.userlevel beyond :mod:`dpviz._validation`, and the package's caps.

Caps (issue 12, finding 7): one call from a classroom client must not allocate gigabytes or run for minutes. Every
size the package allocates or loops over is checked against one of the caps below *before* the work starts, with a
ValueError that names the parameter, its value and the cap. The lessons' panels stay far below them (at most 40
users for DelStab, grids of 1000 points, 60 trials, m ≤ 10⁴ for the swap pmf).

Ranges that keep the closed forms finite: ε ≤ :data:`MAX_EPSILON` wherever e^{ε}, e^{mε} or ε·score appears,
ε ≥ :data:`MIN_EPSILON` and α ≥ :data:`MIN_ALPHA` where they divide (user-complexity formulas, noise scales),
scale-like knobs (τ, constants, n_priv, dimensions, value ranges) ≤ :data:`MAX_SCALE`, data values ≤
:data:`MAX_VALUE` in magnitude (integers stay exact in float64 and sums of :data:`MAX_ITEMS` of them stay finite).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpviz._validation import check_in_range, check_integer, check_real_array

MAX_USERS = 100_000
"""Cap on the number of users n of a :class:`~dpviz.userlevel.UserDataset` (the panels use ≤ 512)."""

MAX_ITEMS = 10_000_000
"""Cap on the total number of examples Σ c_i of a dataset, on examples per user m and on a contribution bound k."""

MAX_VALUE = 1e15
"""Bound on |example value| and on sums of examples (below 2⁵³, so integer data stay exact in float64)."""

MAX_CELLS = 20_000_000
"""Cap on the entries of any intermediate array (160 MB of float64): |ℋ|·n·m mistakes, n·K counts, K²·n sums, …"""

MAX_WORK = 1_000_000_000
"""Cap on the elementary operations of one call (pairwise scores K²·n, DelStab's closeness tests, simulations)."""

MAX_GRID_SIZE = 5_000
"""Cap on the grid size K of :class:`~dpviz.userlevel.ThresholdClass` (its (K+1)×K prediction matrix; panels ≤ 1000)."""

MAX_TRIALS = 10_000
"""Cap on simulation trials (panels use ≤ 60)."""

MAX_KAPPA = 1_000_000
"""Cap on κ where a TDLap pmf of 2κ + 1 points is built."""

MAX_OUTPUTS = 1_000_000
"""Cap on the output space {0, …, high} of :class:`~dpviz.userlevel.NoisySum`, and on its ``item_max``."""

MAX_COVER = 1_000_000
"""Cap on ``max_size`` of :func:`~dpviz.userlevel.discrete_cover` (default 20 Ghazi et al. 2023)."""

MAX_DOMAIN = 100_000
"""Cap on the number of distinct values of a dataset's ``domain`` and on the number of symbols k."""

MAX_SUBSETS = 5_000
"""Cap on the deletion sets C(n, r) of ``is_lddp`` (it compares all C(n, r)² pairs of pmfs)."""

MAX_BRUTE_VISITS = 2_000_000
"""Cap on the subsets visited by DelStab's ``output_pmf(method="brute")`` (a cross-check for tiny instances)."""

MAX_PAIRWISE_M = 1_000_000
"""Cap on m in :func:`~dpviz.userlevel.pairwise_sum_pmf` (an FFT on 2m + 1 points; panels use ≤ 3200)."""

MAX_SWAP_M = 1_000_000
"""Cap on m in :func:`~dpviz.userlevel.swap_difference_pmf` (panels use ≤ 10⁴)."""

MAX_EPSILON = 500.0
"""Cap on ε (and ε₀) wherever e^{ε} or ε·score is formed (e^{500} ≈ 1.4·10²¹⁷; panels use ε ≤ 10)."""

MIN_EPSILON = 1e-9
"""Smallest ε where ε divides (user-complexity formulas, Laplace noise scales)."""

MIN_ALPHA = 1e-9
"""Smallest accuracy α where α divides (user-complexity formulas, breakpoints)."""

MAX_SCALE = 1e12
"""Bound on scale-like knobs: τ, hidden constants, n_priv/n_stat, dimensions, value ranges, tolerances."""

MAX_BOUND_M = 1e18
"""Bound on m (examples per user) in the user-complexity formulas (plots go up to 10⁹; crossovers search to 10¹⁵)."""

MAX_LOG_POWER = 10.0
"""Bound on the power c of log(1/δ) in n₁ = ln(1/δ)^c·n_priv/ε + n_stat."""


def check_dataset(value: Any, name: str = "dataset"):
    """``value`` must be a :class:`~dpviz.userlevel.UserDataset` (TypeError otherwise)."""
    from .data import UserDataset

    if not isinstance(value, UserDataset):
        raise TypeError(
            f"{name} = {type(value).__name__} is not allowed: must be a UserDataset "
            "(e.g. UserDataset.from_array(x) or UserDataset(blocks))."
        )
    return value


def check_epsilon(value: Any, name: str = "epsilon", *, divides: bool = False, allow_zero: bool = False) -> float:
    """ε in (0, MAX_EPSILON] ([MIN_EPSILON, MAX_EPSILON] with ``divides``; [0, MAX_EPSILON] with ``allow_zero``)."""
    if divides:
        return check_in_range(value, name, MIN_EPSILON, MAX_EPSILON)
    return check_in_range(value, name, 0.0, MAX_EPSILON, low_inclusive=allow_zero)


def check_scale(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """A positive (or non-negative) scale-like knob, at most :data:`MAX_SCALE`."""
    return check_in_range(value, name, 0.0, MAX_SCALE, low_inclusive=allow_zero)


def check_alpha(value: Any, name: str = "alpha") -> float:
    """Accuracy α in [MIN_ALPHA, 1] for the user-complexity formulas."""
    return check_in_range(value, name, MIN_ALPHA, 1.0)


def check_finite(value: Any, name: str) -> float:
    """Any finite real number (e.g. the ε of a hockey-stick divergence, which may be negative)."""
    big = float(np.finfo(float).max)
    return check_in_range(value, name, -big, big)


def check_cells(cells: int, what: str, cap: int = MAX_CELLS, cap_name: str = "MAX_CELLS") -> None:
    """Refuse an intermediate array (or a loop) of ``cells`` entries above ``cap``."""
    if cells > cap:
        raise ValueError(
            f"{what} = {cells:.4g} is not allowed: must be <= {cap:.4g} ({cap_name}); use smaller inputs."
        )


def real_array(value: Any, name: str, *, ndim=None, allow_empty: bool = False, max_abs: float | None = None):
    """:func:`check_real_array` (float, finite, no complex) with entries bounded by ``max_abs`` in magnitude."""
    arr = check_real_array(value, name, ndim=ndim, allow_empty=allow_empty)
    if max_abs is not None and arr.size and float(np.max(np.abs(arr))) > max_abs:
        raise ValueError(
            f"{name} has an entry of magnitude {float(np.max(np.abs(arr))):.4g}, which is not allowed: entries must "
            f"lie in [-{max_abs:g}, {max_abs:g}]."
        )
    return arr


def index_list(value: Any, name: str, n: int) -> list[int]:
    """A sequence of user indices in [0, n − 1] (refuses a scalar, strings, non-integers)."""
    if isinstance(value, (str, bytes)) or np.ndim(value) != 1:
        raise TypeError(f"{name} = {value!r} is not allowed: must be a sequence of user indices in [0, {n - 1}].")
    return [check_integer(u, name, minimum=0, maximum=n - 1) for u in value]
