"""Heavy hitters and histograms under per-attribute DP (Section 5 of Ghazi, Kumar, Manurangsi & Steinke 2023:
Algorithm 2, Lemmas 28–30, Theorems 15–16) and the canonical noisy histogram they are compared with (Section 5).

Data are binary records x_i ∈ {0,1}^d, one attribute per bit; ``eps0`` is the **per-attribute** parameter (the
paper writes ε in Section 5). Records are stored internally as integer codes with attribute 1 as the most
significant bit, so a substring on an interval of attributes is a shift and a mask.

Corrections of the printed text applied, each also stated where it is used:

* Algorithm 2 line 3 initialises **all d leaves** (the paper prints "for j ∈ [log d]");
* clamping is max{f, τ_ℓ − μ} and thresholds increase by μ per level (the proof of Lemma 29 swaps min and max);
* Theorem 15 uses **λ = (4/ε0)(1 + 1/(1 − ν/16))**, not the printed 3/ε0 (with 3/ε0 Lemma 28 certifies only
  ≈1.34ε0), so that Lemma 28 certifies the 0.5ε0 share; the count step is **Laplace(4/ε0)**, not the printed 2/ε0,
  because a replace-one count vector has L1 sensitivity 2. ``constants="paper"`` reproduces the printed values for
  comparison and is labelled not private at ε0.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from functools import lru_cache
from typing import Any

import numpy as np

from dpviz._validation import Cap, Interval, as_rng, check_choice, check_in_range, check_integer, check_real_array

MIN_FRACTION = 1e-9
"""Smallest error / failure fraction (ν, η, α, γ) accepted: 1/ν and ln(1/ν) then stay far inside the float range."""


def check_fraction(value, name: str, high: float = 1.0) -> float:
    """A fraction such as ν or η in [MIN_FRACTION, high]."""
    return check_in_range(value, name, MIN_FRACTION, high)

__all__ = [
    "is_power_of_two",
    "as_binary_records",
    "pad_to_power_of_two",
    "lemma28_epsilon",
    "theorem15_lambda",
    "HeavyHitterParams",
    "heavy_hitter_params",
    "HeavyHitterNode",
    "HeavyHitterResult",
    "priv_heavy_hitter",
    "HistogramResult",
    "priv_histogram",
    "canonical_histogram",
    "canonical_histogram_epsilons",
    "histogram_counts",
    "theorem15_sample_size",
    "lemma30_conditions",
    "theorem16_lower_bound",
    "standard_dp_histogram_sample_size",
    "laplace_log_sf",
    "level_privacy_loss",
    "level_privacy_loss_bound",
    "heavy_hitter_privacy_loss",
    "heavy_hitter_path_loss",
    "heavy_hitter_worst_case_loss",
]

#: Attributes d of a record (records are packed into int64 codes).
ATTRIBUTES = Interval(1, 62, integer=True)

# Parameter specs shared by dpviz.partial (this is its lowest module). One call from a classroom client must not run
# for minutes or allocate gigabytes: the lesson-07 panels use at most n = 8·10⁴ records of d = 32 bits for heavy
# hitters, n = 10⁶ records of d = 8 bits for the projection mechanism, T_max = 2·10⁵ for the MWEM bound; the caps sit
# above that.

#: Records n of a dataset (the panels use ≤ 10⁶).
RECORDS = Interval(1, 4_000_000, integer=True)
#: n·d, the bits of a dataset (160 MB as the int64 codes are formed; the panels use ≤ 8·10⁶).
RECORD_ENTRIES = Cap(20_000_000, "the bits n·d of a dataset")
#: The work units (≈ 1–2 ns each) of one call: the projection mechanism (size·(2·iterations·2^d·m + SVD)),
#: :func:`~dpviz.partial.marginals.project_onto_hull` (2·iterations·N·m + SVD), partial MWEM
#: (T·(2^d·(m + ℓ) + |sets|)), :func:`~dpviz.partial.accounting.graph_metric` (N·(3·edges + 20·N·log₂N), Dijkstra
#: from every node), :func:`~dpviz.partial.marginals.diameters_brute_force` (N²·m) and
#: :func:`~dpviz.partial.accounting.zcdp_epsilon_curve` (4·1600 per ρ value).
WORK = Cap(2_000_000_000, "the work units (multiply-adds) of one call")
#: Counts that only enter formulas (d, k, n, m, ℓ): products of a few of them stay exact enough and finite.
COUNT = Interval(1, 10**15, integer=True)
#: ε, ε0 and similar privacy parameters in [1e-12, 1e8] (the panels use ≤ 15; a test drives MWEM at 10⁷ to make its
#: noise negligible), so that 1/ε and (d·ε0)² stay finite; :data:`EPS_OR_ZERO` where ε only multiplies.
EPS = Interval(1e-12, 1e8)
EPS_OR_ZERO = Interval(0.0, EPS.high)
#: A zCDP parameter ρ.
RHO = Interval(0.0, 1e12)
#: Scales (σ, λ, μ, τ, Δ, diameters, sensitivities) and log|X|: in [1e-12, 1e12] (:data:`SCALE_OR_ZERO`: [0, 1e12]).
SCALE = Interval(1e-12, 1e12)
SCALE_OR_ZERO = Interval(0.0, SCALE.high)
#: n·(D − 1), the record codes PrivHeavyHitter sorts (one pass per tree node; the panels use ≤ 2.5·10⁶).
HH_SORT = Cap(20_000_000, "the record codes n·(D − 1) PrivHeavyHitter sorts, once per tree node")
#: The candidates PrivHeavyHitter examines over the whole tree (100 MB of node arrays).
HH_CANDIDATES = Cap(4_000_000, "the candidates PrivHeavyHitter examines over the tree")


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


def check_name(value: Any, name: str, choices) -> str:
    """A string option: one of ``choices`` (anything else, arrays included, is refused with the choices listed)."""
    if not isinstance(value, str):
        raise ValueError(f"{name} = {value!r} is not allowed: must be one of " + ", ".join(repr(c) for c in choices)
                         + ".")
    return check_choice(value, name, choices)



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


# ----------------------------------------------------------------------------------------------- data helpers

def is_power_of_two(d: int) -> bool:
    """True iff d = 2^k for an integer k ≥ 0.

    >>> is_power_of_two(16), is_power_of_two(12)
    (True, False)
    """
    return isinstance(d, (int, np.integer)) and d >= 1 and (int(d) & (int(d) - 1)) == 0


def as_binary_records(X, name: str = "X") -> np.ndarray:
    """Validate an (n, d) array of 0/1 attributes (n ≥ 1, 1 ≤ d ≤ 62) and return it as uint8.

    Caps: n ≤ :data:`RECORDS` (4·10⁶) and n·d ≤ :data:`RECORD_ENTRIES` (2·10⁷), checked on the shape before anything is
    converted or copied."""
    if isinstance(X, np.ndarray) and X.dtype.kind in "biuf":
        arr = X  # a numeric array is checked as it is: no float copy of a large dataset
        if arr.ndim != 2:
            raise ValueError(f"{name} has shape {arr.shape} ({arr.ndim}-D) which is not allowed: must be 2-D.")
        if arr.size == 0 and arr.shape[1] != 0:
            raise ValueError(f"{name} is empty, which is not allowed: must hold at least one value.")
    else:  # lists, object arrays, complex input (refused, not cast to real)
        arr = check_real_array(X, name, ndim=2, allow_empty=True)
        if arr.size == 0 and arr.shape[1] != 0:
            raise ValueError(f"{name} is empty, which is not allowed: must hold at least one value.")
    n, d = arr.shape
    if d == 0:
        raise ValueError(f"{name} has d = 0 attributes, which is not allowed: must have at least one attribute.")
    if d > ATTRIBUTES.high:
        raise ValueError(f"{name} has d = {d} attributes, which is not allowed: must be <= {ATTRIBUTES.high}.")
    RECORDS.check(n, f"n (the records of {name})")
    RECORD_ENTRIES.check(n * d, f"n·d = {n}·{d} (the bits of {name})")
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} contains values other than 0 and 1, which is not allowed: attributes must be bits.")
    return arr.astype(np.uint8)


def pad_to_power_of_two(X) -> np.ndarray:
    """Append constant-0 attributes until d is a power of two. Constant attributes never differ between
    neighbours, so padding costs no privacy (Section 5.1 takes d a power of two without loss of generality).

    >>> pad_to_power_of_two([[1, 0, 1]]).tolist()
    [[1, 0, 1, 0]]
    """
    A = as_binary_records(X)
    d = A.shape[1]
    D = 1 << (d - 1).bit_length()
    if D == d:
        return A
    return np.hstack([A, np.zeros((A.shape[0], D - d), dtype=np.uint8)])


def _codes(A: np.ndarray) -> np.ndarray:
    d = A.shape[1]
    weights = (np.int64(1) << np.arange(d - 1, -1, -1, dtype=np.int64))
    return A.astype(np.int64) @ weights


def _bits(codes: np.ndarray, d: int) -> np.ndarray:
    codes = np.asarray(codes, dtype=np.int64)
    shifts = np.arange(d - 1, -1, -1, dtype=np.int64)
    return ((codes[:, None] >> shifts[None, :]) & 1).astype(np.uint8)


def histogram_counts(X) -> tuple[np.ndarray, np.ndarray]:
    """Exact (non-private) histogram of the records: ``(strings, counts)`` with strings as an (m, d) 0/1 array,
    sorted lexicographically. For displays and tests."""
    A = as_binary_records(X)
    u, c = np.unique(_codes(A), return_counts=True)
    return _bits(u, A.shape[1]), c


# ----------------------------------------------------------------------------------------------- parameters

def lemma28_epsilon(lam: float, mu: float) -> float:
    """Privacy certificate of PrivHeavyHitter: ε0 = (2/λ)(1 + 1/(1 − e^{−μ/λ})), valid when μ > 1 (Lemma 28 of Ghazi,
    Kumar, Manurangsi & Steinke 2023; Lemma 29 extends it to releasing every list L_I). Returns ∞ when μ ≤ 1 (no
    certificate).

    >>> round(lemma28_epsilon(3.0, 3.0 * math.log(160)), 4)   # λ = 3/ε at ε = 1, ν = 0.1: 1.3375 ε, not 0.5 ε
    1.3375
    """
    lam = SCALE.check(lam, "lam")
    mu = SCALE.check(mu, "mu")
    return _lemma28_epsilon(lam, mu)


def _lemma28_epsilon(lam: float, mu: float) -> float:
    if mu <= 1:
        return math.inf
    return (2.0 / lam) * (1.0 + 1.0 / (-math.expm1(-mu / lam)))


def theorem15_lambda(eps0: float, nu: float, constants: str = "corrected") -> float:
    """Laplace scale λ of the heavy-hitter step of the ε0-∇0DP histogram (Theorem 15 of Ghazi, Kumar,
    Manurangsi & Steinke 2023).

    ``"corrected"``: λ = (4/ε0)(1 + 1/(1 − ν/16)), so that with μ = λ ln(16/ν) Lemma 28 gives exactly 0.5ε0.
    ``"paper"``: the printed λ = 3/ε0, which Lemma 28 certifies only at (3/2)(1 + 16/(16 − ν))/3·ε0 ≈ 1.34ε0
    for ν = 0.1.

    >>> round(theorem15_lambda(1.0, 0.1), 4)
    8.0252
    """
    e0 = EPS.check(eps0, "eps0")
    nu = check_fraction(nu, "nu")
    check_name(constants, "constants", ("corrected", "paper"))
    return _theorem15_lambda(e0, nu, constants)


def _theorem15_lambda(e0: float, nu: float, constants: str) -> float:
    if constants == "paper":
        return 3.0 / e0
    return (4.0 / e0) * (1.0 + 1.0 / (1.0 - nu / 16.0))


@dataclasses.dataclass(frozen=True)
class HeavyHitterParams:
    """Parameters (λ, τ, μ) of PrivHeavyHitter (Algorithm 2 of Ghazi, Kumar, Manurangsi & Steinke 2023); thresholds
    τ_ℓ = τ + (ℓ−1)μ."""

    lam: float
    tau: float
    mu: float

    def __post_init__(self):
        object.__setattr__(self, "lam", SCALE.check(self.lam, "lam"))
        object.__setattr__(self, "tau", SCALE_OR_ZERO.check(self.tau, "tau"))
        object.__setattr__(self, "mu", SCALE.check(self.mu, "mu"))

    @property
    def epsilon_certificate(self) -> float:
        """Lemma 28: the per-attribute ε0 this parameter set is certified for (∞ if μ ≤ 1)."""
        return _lemma28_epsilon(self.lam, self.mu)

    def threshold(self, level):
        """τ_ℓ = τ + (ℓ−1)μ (Algorithm 2 line 3 of Ghazi, Kumar, Manurangsi & Steinke 2023): increases with the level
        (ℓ ≥ 1, integers)."""
        lev = real_array(level, "level", ndim=(0, 1), low=1.0, high=COUNT.high, integer=True)
        out = self.tau + (lev - 1) * self.mu
        return float(out) if out.ndim == 0 else out


def heavy_hitter_params(eps0: float, nu: float, n: int, *, share: float = 0.5,
                        constants: str = "corrected") -> HeavyHitterParams:
    """Parameters used by Theorem 15 of Ghazi, Kumar, Manurangsi & Steinke 2023 for a ``share``·ε0 heavy-hitter step: λ
    from :func:`theorem15_lambda` (scaled by 0.5/share), μ = λ ln(16/ν), τ = 0.5νn. Raises if μ ≤ 1 (Lemma 28 needs
    μ > 1; fails for very large ε0).

    >>> p = heavy_hitter_params(1.0, 0.1, 20000)
    >>> round(p.lam, 3), round(p.mu, 2), p.tau, round(p.epsilon_certificate, 6)
    (8.025, 40.73, 1000.0, 0.5)
    """
    e0 = EPS.check(eps0, "eps0")
    nu = check_fraction(nu, "nu")
    n = RECORDS.check(n, "n")
    share = check_fraction(share, "share")
    check_name(constants, "constants", ("corrected", "paper"))
    lam = _theorem15_lambda(e0, nu, constants) * (0.5 / share)
    mu = lam * math.log(16.0 / nu)
    if mu <= 1:
        raise ValueError(f"eps0 = {eps0!r} is too large for these constants: μ = λ ln(16/ν) = {mu:.3g} must be > 1 "
                         "(Ghazi, Kumar, Manurangsi & Steinke 2023, Lemma 28).")
    return HeavyHitterParams(lam=lam, tau=0.5 * nu * n, mu=mu)


# ----------------------------------------------------------------------------------------------- Algorithm 2

@dataclasses.dataclass(frozen=True)
class HeavyHitterNode:
    """One node I = {start..stop} (1-indexed, inclusive) of the PrivHeavyHitter tree at ``level`` (interval length
    2^level). ``candidates`` are substring codes (attribute ``start`` is the most significant bit), ``noisy`` the
    clamped noisy counts, ``accepted`` whether each went into L_I. ``true_counts`` are the exact counts: they are
    **not private** and are kept only for teaching displays."""

    level: int
    start: int
    stop: int
    threshold: float
    candidates: np.ndarray
    noisy: np.ndarray
    accepted: np.ndarray
    true_counts: np.ndarray

    def __post_init__(self):
        field_int(self, "level", minimum=1)
        field_int(self, "start", minimum=1)
        field_int(self, "stop", minimum=self.start)
        field_float(self, "threshold")
        field_array(self, "candidates", ndim=1, integer=True, low=0, dtype=np.int64)
        field_array(self, "noisy", ndim=1)
        acc = self.accepted
        if not (isinstance(acc, np.ndarray) and acc.dtype == bool and acc.ndim == 1):
            raise ValueError(f"accepted = {acc!r} is not allowed: must be a 1-D boolean array.")
        field_array(self, "true_counts", ndim=1, integer=True, low=0, dtype=np.int64)
        k = len(self.candidates)
        if not (len(self.noisy) == len(self.accepted) == len(self.true_counts) == k):
            raise ValueError("candidates, noisy, accepted and true_counts are not allowed: must have equal lengths.")

    @property
    def accepted_codes(self) -> np.ndarray:
        return self.candidates[self.accepted]


@dataclasses.dataclass(frozen=True)
class HeavyHitterResult:
    """Output of :func:`priv_heavy_hitter`: ``found`` is L_[d] as an (m, d) 0/1 array over the original d
    attributes (strings that only differ in padding are impossible; strings with a 1 in a padding position have
    true count 0 and are dropped, which is post-processing). ``nodes`` is the whole tree (Lemma 29: all lists are
    private; the ``true_counts`` inside are not)."""

    d: int
    d_padded: int
    params: HeavyHitterParams
    found: np.ndarray
    nodes: tuple

    def __post_init__(self):
        field_int(self, "d", minimum=1)
        field_int(self, "d_padded", minimum=self.d)
        if not is_power_of_two(self.d_padded) or self.d_padded > 2 * self.d:
            raise ValueError(f"d_padded = {self.d_padded} is not allowed: must be the power of two in [d, 2d).")
        field_instance(self, "params", HeavyHitterParams)
        field_array(self, "found", ndim=2, integer=True, low=0, dtype=np.uint8)
        if self.found.size and (self.found.max() > 1 or self.found.shape[1] != self.d):
            raise ValueError(f"found has shape {self.found.shape} which is not allowed: must be (m, {self.d}) bits.")
        if not isinstance(self.nodes, tuple) or not all(isinstance(nd, HeavyHitterNode) for nd in self.nodes):
            raise ValueError("nodes is not allowed: must be a tuple of HeavyHitterNode.")
        levels = int(round(math.log2(self.d_padded)))
        if any(nd.level > levels for nd in self.nodes):
            raise ValueError(f"nodes contains a level above log₂(d_padded) = {levels}, which is not allowed.")

    @property
    def levels(self) -> int:
        return int(round(math.log2(self.d_padded)))

    def level_sizes(self) -> np.ndarray:
        """|L_I| for every node, as a (levels, nodes-per-level…) ragged list flattened per level: max per level."""
        out = np.zeros(self.levels, dtype=int)
        for nd in self.nodes:
            out[nd.level - 1] = max(out[nd.level - 1], int(nd.accepted.sum()))
        return out


def _laplace_sf(t: np.ndarray, lam: float) -> np.ndarray:
    return np.where(t >= 0, 0.5 * np.exp(-np.abs(t) / lam), 1.0 - 0.5 * np.exp(-np.abs(t) / lam))


def priv_heavy_hitter(X, lam: float, tau: float, mu: float, *, pad: bool = False, rng=None) -> HeavyHitterResult:
    """PrivHeavyHitter (Algorithm 2 of Ghazi, Kumar, Manurangsi & Steinke 2023), bottom-up over a binary tree of
    attribute intervals.

    For every level ℓ = 1..log₂ d and interval I of length 2^ℓ, every candidate s ∈ L_{I_left} ∘ L_{I_right}
    (including strings with count 0: skipping unseen strings would break privacy) gets
    f̂ = max{f^I_s, τ_ℓ − μ} + Laplace(λ) and is kept iff f̂ > τ_ℓ, with τ_ℓ = τ + (ℓ−1)μ. Leaves start as
    L_{{j}} = {0, 1} for **all** j ∈ [d] (the paper prints "for j ∈ [log d]"). Privacy (Lemma 28): ε0-∇0DP with
    ε0 = (2/λ)(1 + 1/(1 − e^{−μ/λ})) if μ > 1.
    No list is capped or truncated (that would change the output distribution).

    Parameters
    ----------
    X : array (n, d) of 0/1
        One record per person; d must be a power of two unless ``pad=True`` (then constant-0 attributes are added,
        which costs no privacy).
    lam, tau, mu : float
        Laplace scale λ, base threshold τ and per-level threshold step / clamp margin μ.
    rng : numpy Generator or int seed, optional

    Returns
    -------
    HeavyHitterResult

    Raises
    ------
    ValueError
        Empty data, non-binary entries, d not a power of two (without ``pad``), non-positive λ or μ; n·(D − 1)
        > :data:`HH_SORT` (the codes sorted once per node); more than :data:`HH_CANDIDATES` candidates over the tree.
        The last is a resource guard, raised while the tree grows: whether it is raised depends on the data, so a run
        stopped by it must be treated as not private (with Theorem 15's parameters E|L_I| ≤ 8/ν and it does not
        happen).

    References
    ----------
    Ghazi, Kumar, Manurangsi, Steinke, Algorithm 2, Lemmas 28–30 (Ghazi, Kumar, Manurangsi & Steinke 2023); PrivTree
    (Zhang, Xiao & Xie 2016).
    """
    A = as_binary_records(X)
    params = HeavyHitterParams(lam=lam, tau=tau, mu=mu)
    d = A.shape[1]
    if not is_power_of_two(d):
        if not pad:
            raise ValueError(f"d = {d} is not allowed: PrivHeavyHitter needs d to be a power of two "
                             "(pass pad=True to append constant-0 attributes, which costs no privacy).")
        A = pad_to_power_of_two(A)
    return _priv_heavy_hitter(A, d, params, as_rng(rng))


#: Widths (bits) up to which a node counts its strings in a table of 2^width (one pass over the records) rather
#: than by sorting them (n log n): lesson 15's d = 16 stays in tables.
_COUNT_TABLE_BITS = 16


def _counts_of(sub: np.ndarray, cands: np.ndarray, width: int) -> np.ndarray:
    """How many of the codes ``sub`` (each < 2^width) equal each candidate string: exact counts, by a table of all
    2^width strings when that is small, else by sorting the codes."""
    if width <= _COUNT_TABLE_BITS:
        return np.bincount(sub, minlength=1 << width)[cands]
    u, c = np.unique(sub, return_counts=True)
    pos = np.searchsorted(u, cands)
    pos_c = np.minimum(pos, max(len(u) - 1, 0))
    hit = (pos < len(u)) & (u[pos_c] == cands) if len(u) else np.zeros(len(cands), bool)
    return np.where(hit, c[pos_c], 0)


def _priv_heavy_hitter(A: np.ndarray, d: int, params: HeavyHitterParams, g) -> HeavyHitterResult:
    """Algorithm 2 on validated records A (n, D), D a power of two, d ≤ D the original attributes."""
    n, D = A.shape
    HH_SORT.check(n * (D - 1), f"n·(D − 1) = {n}·{D - 1}")
    codes = _codes(A)
    examined = 0
    levels = int(round(math.log2(D)))
    # lists of the current level, per interval index t (level 0: all d leaves get {0, 1})
    lists = [np.array([0, 1], dtype=np.int64) for _ in range(D)]
    nodes = []
    for lev in range(1, levels + 1):
        width = 1 << lev
        half = width >> 1
        thr = float(params.threshold(lev))
        floor = thr - params.mu
        mask = (np.int64(1) << np.int64(width)) - 1
        new_lists = []
        for t in range(D // width):
            left, right = lists[2 * t], lists[2 * t + 1]
            examined += len(left) * len(right)
            if examined > HH_CANDIDATES.limit:
                raise ValueError(f"lam = {params.lam!r}, tau = {params.tau!r}, mu = {params.mu!r} are not allowed for "
                                 f"this data: the candidate lists grow past {HH_CANDIDATES.limit:.0e} strings "
                                 f"(the cap on {HH_CANDIDATES.what}); raise tau or mu, or lower lam (resource "
                                 "guard: this run is stopped, not truncated, and is not private).")
            cands = ((left[:, None] << np.int64(half)) | right[None, :]).ravel()
            stop = (t + 1) * width  # 1-indexed last attribute
            sub = (codes >> np.int64(D - stop)) & mask
            f = _counts_of(sub, cands, width)
            noisy = np.maximum(f, floor) + g.laplace(0.0, params.lam, size=len(cands))
            acc = noisy > thr
            nodes.append(HeavyHitterNode(level=lev, start=t * width + 1, stop=stop, threshold=thr,
                                         candidates=cands, noisy=noisy, accepted=acc, true_counts=f))
            new_lists.append(cands[acc])
        lists = new_lists
    top = np.sort(lists[0])
    if D != d:
        pad_mask = (np.int64(1) << np.int64(D - d)) - 1
        top = top[(top & pad_mask) == 0] >> np.int64(D - d)
    return HeavyHitterResult(d=d, d_padded=D, params=params, found=_bits(top, d), nodes=tuple(nodes))


@dataclasses.dataclass(frozen=True)
class HistogramResult:
    """The ε0-∇0DP histogram of Theorem 15 of Ghazi, Kumar, Manurangsi & Steinke 2023: strings (m, d) with noisy counts;
    every other string's estimate is 0. ``true_counts`` are exact and **not private** (teaching only)."""

    strings: np.ndarray
    noisy_counts: np.ndarray
    true_counts: np.ndarray
    eps0: float
    count_scale: float
    heavy_hitters: HeavyHitterResult
    constants: str

    def __post_init__(self):
        field_instance(self, "heavy_hitters", HeavyHitterResult)
        d = self.heavy_hitters.d
        field_array(self, "strings", ndim=2, integer=True, low=0, dtype=np.uint8)
        if self.strings.size and (self.strings.max() > 1 or self.strings.shape[1] != d):
            raise ValueError(f"strings has shape {self.strings.shape} which is not allowed: must be (m, {d}) bits.")
        field_array(self, "noisy_counts", ndim=1)
        field_array(self, "true_counts", ndim=1, integer=True, low=0, dtype=np.int64)
        if not (len(self.strings) == len(self.noisy_counts) == len(self.true_counts)):
            raise ValueError("strings, noisy_counts and true_counts are not allowed: must have one row each.")
        object.__setattr__(self, "eps0", EPS.check(self.eps0, "eps0"))
        object.__setattr__(self, "count_scale", SCALE.check(self.count_scale, "count_scale"))
        check_name(self.constants, "constants", ("corrected", "paper"))

    def max_error(self, X) -> float:
        """max_y |f̂_y − f_y| over all y ∈ {0,1}^d (the error of Definition 14 of Ghazi, Kumar,
        Manurangsi & Steinke 2023, which prints y ∈ {0,1}^n for {0,1}^d), exact. ``X`` is the dataset the histogram was
        computed on (same d)."""
        A = as_binary_records(X)
        if A.shape[1] != self.heavy_hitters.d:
            raise ValueError(f"X has d = {A.shape[1]} attributes, which is not allowed: must be "
                             f"{self.heavy_hitters.d} like the histogram.")
        u, c = np.unique(_codes(A), return_counts=True)
        mine = _codes(self.strings) if len(self.strings) else np.zeros(0, np.int64)
        err = np.abs(self.noisy_counts - self.true_counts) if len(mine) else np.zeros(0)
        missing = c[~np.isin(u, mine)]
        return float(max(err.max(initial=0.0), missing.max(initial=0)))


def priv_histogram(X, eps0: float, nu: float = 0.1, eta: float = 0.1, *, constants: str = "corrected",
                   rng=None) -> HistogramResult:
    """The ε0-∇0DP histogram (Theorem 15 of Ghazi, Kumar, Manurangsi & Steinke 2023; proof in Appendix A.1.3).

    1. L ← PrivHeavyHitter with λ = (4/ε0)(1 + 1/(1 − ν/16)), μ = λ ln(16/ν), τ = 0.5νn (0.5ε0 by Lemma 28);
    2. f̂_y = f_y + Laplace(4/ε0) for y ∈ L (0.5ε0: L1 sensitivity 2 under replace-one neighbours);
    3. f̂_y = 0 for y ∉ L.
    Total ε0-∇0DP by basic composition. These are the **corrected** constants;
    ``constants="paper"`` uses the printed λ = 3/ε0 and Laplace(2/ε0), which are *not* ε0-∇0DP (≈1.34·ε0 + 1·ε0).
    d is padded to a power of two automatically. ``eta`` enters only the utility guarantee (sample size of
    :func:`theorem15_sample_size`), not the algorithm. (The proof's union bound prints "≤ νn" where "> νn" is
    meant; it does not affect the algorithm.)
    """
    A = as_binary_records(X)
    e0 = EPS.check(eps0, "eps0")
    nu = check_fraction(nu, "nu")
    check_fraction(eta, "eta")
    check_name(constants, "constants", ("corrected", "paper"))
    return _priv_histogram(A, e0, nu, constants, as_rng(rng))


def _priv_histogram(A: np.ndarray, e0: float, nu: float, constants: str, g) -> HistogramResult:
    """Theorem 15's histogram on validated records (the learners call this with their own derived ν)."""
    p = heavy_hitter_params(e0, nu, A.shape[0], constants=constants)
    d = A.shape[1]
    hh = _priv_heavy_hitter(pad_to_power_of_two(A) if not is_power_of_two(d) else A, d, p, g)
    b = 4.0 / e0 if constants == "corrected" else 2.0 / e0
    strings = hh.found
    if len(strings):
        u, c = np.unique(_codes(A), return_counts=True)
        mine = _codes(strings)
        pos = np.minimum(np.searchsorted(u, mine), len(u) - 1)
        f = np.where(u[pos] == mine, c[pos], 0)
    else:
        f = np.zeros(0, dtype=np.int64)
    noisy = f + g.laplace(0.0, b, size=len(f))
    return HistogramResult(strings=strings, noisy_counts=noisy, true_counts=f, eps0=e0, count_scale=b,
                           heavy_hitters=hh, constants=constants)


# ----------------------------------------------------------------------------------------------- baseline (Section 5)

def canonical_histogram(X, eps: float, *, rng=None) -> np.ndarray:
    """The canonical noisy histogram: every one of the 2^d counts plus independent Laplace(2/ε) noise (Section 5).

    Under replace-one neighbours one person moves two counts (−1, +1): L1 sensitivity 2, so Laplace(2/ε) gives
    ε-DP. Changing one attribute also moves two counts, so its per-attribute ε0 **equals** ε: the
    baseline gains nothing per attribute (see :func:`canonical_histogram_epsilons`). Returns the noisy count
    vector indexed by the record's integer code (attribute 1 most significant). d ≤ 20.
    """
    A = as_binary_records(X)
    e = EPS.check(eps, "eps")
    d = A.shape[1]
    if d > 20:
        raise ValueError(f"d = {d} is not allowed here: must be <= 20 (the canonical histogram has 2^d cells).")
    counts = np.bincount(_codes(A), minlength=1 << d).astype(float)
    return counts + as_rng(rng).laplace(0.0, 2.0 / e, size=counts.size)


def canonical_histogram_epsilons(scale: float) -> dict:
    """Per-person and per-attribute ε of the Laplace(scale) canonical histogram: both 2/scale (replace-one L1
    sensitivity 2 for a whole record and for one attribute alike).

    >>> canonical_histogram_epsilons(2.0)
    {'eps': 1.0, 'eps0': 1.0}
    """
    s = SCALE.check(scale, "scale")
    return {"eps": 2.0 / s, "eps0": 2.0 / s}


# ----------------------------------------------------------------------------------------------- sample sizes

def theorem15_sample_size(d, eps0: float, nu: float = 0.1, eta: float = 0.1, *,
                          constants: str = "corrected"):
    """Explicit n from the proof of Theorem 15 of Ghazi, Kumar, Manurangsi & Steinke 2023 (Appendix A.1.3), natural logs
    throughout:

    n ≥ (16μ ln d + 16λ ln(d/(ην)))/ν + 100·ln(1/(ην))/(νε0),  μ = λ ln(16/ν),

    with λ from :func:`theorem15_lambda` (``"corrected"`` by default; ``"paper"`` uses 3/ε0). Vectorised over d.

    >>> round(float(theorem15_sample_size(16, 1.0, constants="paper")))
    14901
    """
    dd = real_array(d, "d", ndim=(0, 1), low=2.0, high=COUNT.high)
    e0 = EPS.check(eps0, "eps0")
    nu = check_fraction(nu, "nu")
    eta = check_fraction(eta, "eta")
    check_name(constants, "constants", ("corrected", "paper"))
    lam = _theorem15_lambda(e0, nu, constants)
    mu = lam * math.log(16.0 / nu)
    n = (16 * mu * np.log(dd) + 16 * lam * np.log(dd / (eta * nu))) / nu + 100 * math.log(1 / (eta * nu)) / (nu * e0)
    return float(n) if np.ndim(n) == 0 else n


def lemma30_conditions(d: int, n: int, lam: float, mu: float, nu: float, eta: float) -> dict:
    """The hypotheses of Lemma 30 of Ghazi, Kumar, Manurangsi & Steinke 2023 (utility of PrivHeavyHitter), each as a
    bool: η, ν ∈ (0, 0.1]; τ = 0.5νn ≥ 8μ ln d + 8λ ln(d/(ην)); μ ≥ λ ln(16/ν). When all hold, every s with f_s ≥ νn
    is found with probability ≥ 1 − 0.5η and E|L_[d]| ≤ 8/ν."""
    d = check_integer(d, "d", minimum=2, maximum=COUNT.high)
    n = COUNT.check(n, "n")
    lam = SCALE.check(lam, "lam")
    mu = SCALE.check(mu, "mu")
    nu = check_fraction(nu, "nu")
    eta = check_fraction(eta, "eta")
    tau = 0.5 * nu * n
    need = 8 * mu * math.log(d) + 8 * lam * math.log(d / (eta * nu))
    return {
        "nu_eta_small": nu <= 0.1 and eta <= 0.1,
        "tau_large": tau >= need,
        "mu_large": mu >= lam * math.log(16.0 / nu) * (1 - 1e-12),
        "tau": tau,
        "tau_needed": need,
    }


def theorem16_lower_bound(d, eps0: float, nu: float, *, corrected: bool = False):
    """Lower bound on n for any ε0-∇0DP histogram algorithm with error ν (Theorem 16 of Ghazi, Kumar,
    Manurangsi & Steinke 2023): printed n ≥ 0.05·ln d/(ε0ν) (valid for d ≥ 10e^{1.1ε0}); ``corrected=True`` gives the
    constant (ln(d/10)/ε0 − 1)/(3ν) re-derived here from its proof, whose x^(i) are ⌈3νn⌉ attribute changes from
    x^(0), not the ⌈2νn⌉ it uses. Vectorised over d.

    >>> round(theorem16_lower_bound(1024, 1.0, 0.1), 2)
    3.47
    """
    dd = real_array(d, "d", ndim=(0, 1), low=1.0, high=COUNT.high)
    e0 = EPS.check(eps0, "eps0")
    nu = check_fraction(nu, "nu")
    out = (np.log(dd / 10.0) / e0 - 1.0) / (3 * nu) if corrected else 0.05 * np.log(dd) / (e0 * nu)
    return float(out) if np.ndim(out) == 0 else out


def standard_dp_histogram_sample_size(d, eps: float, nu: float, kind: str = "pure"):
    """Shape only (constant set to 1): n ≈ d/(εν) for pure ε-DP and √d/(εν) for ½ε²-zCDP histograms under standard
    DP (Section 5 and footnote 5 of Ghazi, Kumar, Manurangsi & Steinke 2023; the true bounds are Θ(·) with unstated
    constants)."""
    dd = real_array(d, "d", ndim=(0, 1), low=1.0, high=COUNT.high)
    e = EPS.check(eps, "eps")
    nu = check_fraction(nu, "nu")
    check_name(kind, "kind", ("pure", "zcdp"))
    out = (dd if kind == "pure" else np.sqrt(dd)) / (e * nu)
    return float(out) if np.ndim(out) == 0 else out


# ----------------------------------------------------------------------------------------------- exact privacy loss

def laplace_log_sf(t, lam: float):
    """ln P[Laplace(λ) > t], computed stably: ln ½ − t/λ for t ≥ 0, ln(1 − ½e^{t/λ}) for t < 0.

    ``t`` (scalar or array) in [−10¹⁵, 10¹⁵], ``lam`` in [10⁻¹², 10¹²]."""
    tt = real_array(t, "t", low=-float(COUNT.high), high=float(COUNT.high))
    out = _laplace_log_sf(tt, SCALE.check(lam, "lam"))
    return float(out) if out.ndim == 0 else out


def _laplace_log_sf(t, lam: float):
    t = np.asarray(t, dtype=float)
    return np.where(t >= 0, math.log(0.5) - np.abs(t) / lam, np.log1p(-0.5 * np.exp(-np.abs(t) / lam)))


def _laplace_log_cdf(t, lam):
    return _laplace_log_sf(-np.asarray(t, dtype=float), lam)


def _terms(f, f_prime, thr, mu, lam):
    """ln P_x[accept]/P_x'[accept] and ln P_x[reject]/P_x'[reject] for one candidate at one level."""
    a = thr - np.maximum(f, thr - mu)
    b = thr - np.maximum(f_prime, thr - mu)
    acc = _laplace_log_sf(a, lam) - _laplace_log_sf(b, lam)
    rej = _laplace_log_cdf(a, lam) - _laplace_log_cdf(b, lam)
    return float(acc), float(rej)


def heavy_hitter_path_loss(old_counts, new_counts, lam: float, tau: float, mu: float) -> float:
    """Exact max over outputs of ln(P_x[out]/P_x'[out]) of PrivHeavyHitter when one attribute of one person changes.

    ``old_counts[ℓ−1] = (f, f')``: counts under x and x' of the person's *old* substring on the level-ℓ interval that
    contains the changed attribute; ``new_counts`` likewise for the *new* substring (so f' = f − 1 and f' = f + 1
    respectively for a genuine neighbour pair). Only these two candidates per level differ in distribution
    (Lemma 28's proof); every other candidate and node has the same law under x and x'. Both strings sit in the
    leaf lists; at each level, a string is a candidate iff it was accepted one level below and the unchanged half
    is in the sibling list (an event of equal, positive probability under x and x', so the adversary may pick it
    or not). A dynamic programme over the levels with state (old ∈ L, new ∈ L) then gives the exact maximum.
    Outputs are discrete, so this maximum is D∞ in this direction; call twice with swapped roles for both.
    """
    oc = _count_pairs(old_counts, "old_counts")
    nc = _count_pairs(new_counts, "new_counts")
    if oc.shape != nc.shape:
        raise ValueError("old_counts and new_counts must have one (f, f') pair per level each.")
    lam = SCALE.check(lam, "lam")
    tau = SCALE_OR_ZERO.check(tau, "tau")
    mu = SCALE.check(mu, "mu")
    return _path_loss(oc, nc, lam, tau, mu)


def _count_pairs(counts, name: str) -> np.ndarray:
    """(f, f') count pairs, one per level (at most 64 levels), as an (L, 2) float array of integers in [0, n]."""
    c = real_array(counts, name, low=0.0, high=float(RECORDS.high), integer=True)
    if c.size % 2 or c.size == 0 or c.size > 128:
        raise ValueError(f"{name} has {c.size} values, which is not allowed: must be 1 to 64 pairs (f, f').")
    return c.reshape(-1, 2)


def _path_loss(oc: np.ndarray, nc: np.ndarray, lam: float, tau: float, mu: float) -> float:
    # best[(in_old, in_new)] = best log ratio so far
    best = {(1, 1): 0.0}
    for lev in range(1, len(oc) + 1):
        thr = tau + (lev - 1) * mu
        to = _terms(oc[lev - 1, 0], oc[lev - 1, 1], thr, mu, lam)
        tn = _terms(nc[lev - 1, 0], nc[lev - 1, 1], thr, mu, lam)
        nxt: dict = {}

        def put(state, val, nxt=nxt):
            if val > nxt.get(state, -math.inf):
                nxt[state] = val

        for (io, inn), val in best.items():
            put((0, 0), val)  # sibling half absent: neither string is a candidate from here on
            opts_o = [(1, to[0]), (0, to[1])] if io else [(0, 0.0)]
            opts_n = [(1, tn[0]), (0, tn[1])] if inn else [(0, 0.0)]
            for ao, vo in opts_o:
                for an, vn in opts_n:
                    put((ao, an), val + vo + vn)
        best = nxt
    return max(best.values())


def _substring_counts(data: np.ndarray, rec: np.ndarray, j: int, D: int) -> list:
    """Counts in ``data`` of ``rec``'s substring on the level-ℓ interval containing attribute j (0-indexed)."""
    codes = _codes(data)
    rc = int(_codes(rec[None, :])[0])
    out = []
    for lev in range(1, int(round(math.log2(D))) + 1):
        width = 1 << lev
        t = (j) // width
        stop = (t + 1) * width
        mask = (1 << width) - 1
        s = (rc >> (D - stop)) & mask
        out.append(int(np.count_nonzero(((codes >> np.int64(D - stop)) & np.int64(mask)) == s)))
    return out


def heavy_hitter_privacy_loss(X, X_prime, lam: float, tau: float, mu: float) -> float:
    """Exact privacy loss max_out |ln(P_X[out]/P_X'[out])| of PrivHeavyHitter (whole tree of lists, Lemma 29 of Ghazi,
    Kumar, Manurangsi & Steinke 2023) for a pair of datasets that differ in **exactly one attribute of one person**
    (Definition 5). Exact: the output is discrete and the maximum is computed by :func:`heavy_hitter_path_loss` in both
    directions. d must be a power of two (or is padded: padding never differs)."""
    lam = SCALE.check(lam, "lam")
    tau = SCALE_OR_ZERO.check(tau, "tau")
    mu = SCALE.check(mu, "mu")
    A = as_binary_records(X, "X")
    B = as_binary_records(X_prime, "X_prime")
    if A.shape != B.shape:
        raise ValueError(f"X and X_prime have shapes {A.shape} and {B.shape}: must have the same shape.")
    diff = np.argwhere(A != B)
    if len(diff) != 1:
        raise ValueError(f"X and X_prime differ in {len(diff)} entries: must differ in exactly one attribute of one "
                         "person (Ghazi, Kumar, Manurangsi & Steinke 2023, Def 5).")
    A, B = pad_to_power_of_two(A), pad_to_power_of_two(B)
    D = A.shape[1]
    i, j = int(diff[0, 0]), int(diff[0, 1])
    old_x = _substring_counts(A, A[i], j, D)
    old_xp = _substring_counts(B, A[i], j, D)
    new_x = _substring_counts(A, B[i], j, D)
    new_xp = _substring_counts(B, B[i], j, D)
    oc = np.column_stack([old_x, old_xp])
    nc = np.column_stack([new_x, new_xp])
    fwd = _path_loss(oc.astype(float), nc.astype(float), lam, tau, mu)
    bwd = _path_loss(oc[:, ::-1].astype(float), nc[:, ::-1].astype(float), lam, tau, mu)
    return max(fwd, bwd)


def heavy_hitter_worst_case_loss(lam: float, tau: float, mu: float, levels: int, n_max: int) -> float:
    """Worst case of :func:`heavy_hitter_privacy_loss` over all datasets with at most ``n_max`` people, by exact
    search over the per-level count profiles of the two substrings that can differ: the old string's counts
    a_1 ≥ a_2 ≥ … ≥ 1 (x) and a_ℓ − 1 (x'), the new string's b_1 ≥ b_2 ≥ … ≥ 0 (x) and b_ℓ + 1 (x'), with
    a_ℓ + b_ℓ ≤ n_max. Exact dynamic programme over levels (state: counts and membership flags); O(levels·n_max⁴),
    meant for small n_max (≤ 60)."""
    lam = SCALE.check(lam, "lam")
    tau = SCALE_OR_ZERO.check(tau, "tau")
    mu = SCALE.check(mu, "mu")
    levels = check_integer(levels, "levels", minimum=1, maximum=8)
    n_max = check_integer(n_max, "n_max", minimum=1, maximum=60)
    return _worst_case_loss(lam, tau, mu, levels, n_max)


@lru_cache(maxsize=256)
def _worst_case_loss(lam: float, tau: float, mu: float, levels: int, n_max: int) -> float:
    best_dir = -math.inf
    for sign in (1, -1):
        a = np.arange(1, n_max + 1)
        b = np.arange(0, n_max)
        # DP value V[flags][ia, ib] for counts (a, b) at the current level
        NEG = -np.inf
        V = None
        for lev in range(1, levels + 1):
            thr = tau + (lev - 1) * mu
            # terms as arrays over a (old) and b (new)
            fa, fpa = (a, a - 1) if sign == 1 else (a - 1, a)
            fb, fpb = (b, b + 1) if sign == 1 else (b + 1, b)
            ta = thr - np.maximum(fa, thr - mu)
            tpa = thr - np.maximum(fpa, thr - mu)
            tb = thr - np.maximum(fb, thr - mu)
            tpb = thr - np.maximum(fpb, thr - mu)
            acc_o = _laplace_log_sf(ta, lam) - _laplace_log_sf(tpa, lam)
            rej_o = _laplace_log_cdf(ta, lam) - _laplace_log_cdf(tpa, lam)
            acc_n = _laplace_log_sf(tb, lam) - _laplace_log_sf(tpb, lam)
            rej_n = _laplace_log_cdf(tb, lam) - _laplace_log_cdf(tpb, lam)
            feasible = (a[:, None] + b[None, :]) <= n_max
            if V is None:
                prev = {(1, 1): np.where(feasible, 0.0, NEG)}
            else:
                # counts are non-increasing going up: best over a' >= a, b' >= b of the previous level
                prev = {}
                for k, M in V.items():
                    P = np.maximum.accumulate(M[::-1, :], axis=0)[::-1, :]
                    P = np.maximum.accumulate(P[:, ::-1], axis=1)[:, ::-1]
                    prev[k] = np.where(feasible, P, NEG)
            new = {}
            zero = max(float(np.max(M)) for M in prev.values())
            new[(0, 0)] = np.where(feasible, zero, NEG)
            for (io, inn), M in prev.items():
                oo = [(1, acc_o[:, None]), (0, rej_o[:, None])] if io else [(0, 0.0)]
                nn = [(1, acc_n[None, :]), (0, rej_n[None, :])] if inn else [(0, 0.0)]
                for ao, vo in oo:
                    for an, vn in nn:
                        cand = M + vo + vn
                        key = (ao, an)
                        new[key] = np.maximum(new[key], cand) if key in new else cand
            V = new
        best_dir = max(best_dir, max(float(np.max(M)) for M in V.values()))
    return best_dir


def level_privacy_loss(margin, lam: float):
    """Exact per-level loss ln(P[Lap(λ) > −M]/P[Lap(λ) > −(M−1)]) of an accepted string whose count is M above the
    threshold under x and M − 1 under x' (proof of Lemma 28 of Ghazi, Kumar, Manurangsi & Steinke 2023). Vectorised."""
    M = real_array(margin, "margin", low=-float(COUNT.high), high=float(COUNT.high))
    lam = SCALE.check(lam, "lam")
    out = _laplace_log_sf(-M, lam) - _laplace_log_sf(-(M - 1.0), lam)
    return float(out) if out.ndim == 0 else out


def level_privacy_loss_bound(margin, lam: float):
    """The bound (1/λ)·e^{(1−M)/λ} on :func:`level_privacy_loss` used in Lemma 28 of Ghazi, Kumar,
    Manurangsi & Steinke 2023 (after Zhang, Xiao & Xie 2016, Lemma 2.1): far-above-threshold levels cost almost nothing.
    Far below the threshold the bound exceeds the float range and is returned as +inf (it is vacuous there)."""
    M = real_array(margin, "margin", low=-float(COUNT.high), high=float(COUNT.high))
    lam = SCALE.check(lam, "lam")
    with np.errstate(over="ignore"):  # e^{(1−M)/λ} beyond the float range: the bound is +inf, stated above
        out = np.exp((1.0 - M) / lam) / lam
    return float(out) if out.ndim == 0 else out
