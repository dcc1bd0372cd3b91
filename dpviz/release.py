"""Releasing many answers: k queries by composition or from one histogram, tree histograms, MWEM, synthetic data
and the TopDown idea of the 2020 Census (issue 41, item 2).

The core numerics of the lesson "Releasing many answers", over a histogram of ``bins`` cells (a record falls in one
cell) and range queries [lo, hi) (0 ≤ lo < hi ≤ bins; their answer is the sum of the cells lo..hi−1). Neighbours
differ by one record added or removed, so one counting query and one histogram both have L1 sensitivity 1
(:func:`dpviz.sensitivity.count_sensitivity`, :func:`dpviz.sensitivity.histogram_sensitivity`).

1. k queries. Answered one by one, each gets ε/k (basic composition, Dwork & Roth 2014, Thm 3.14) and Laplace(k/ε)
   noise: variance 2k²/ε² whatever its width (:func:`composition_variance`). Answered from one noisy histogram
   (Laplace(1/ε) per cell, ε in all by parallel composition, Dwork & Roth 2014, §3.3 and McSherry 2009, Thm 2), a range
   of width w has variance 2w/ε² (:func:`histogram_range_variance`): the histogram wins for w < k².
2. Trees (Hay et al. 2010; the binary tree of Dwork et al. 2010): every node of a b-ary tree over b^L cells is a noisy
   count, ε split over the L + 1 levels. A range is answered from its canonical decomposition (at most 2(b − 1) nodes
   a level), or from the tree made consistent by least squares (Hay et al. 2010, §5: :func:`consistent_tree`); exact
   variances by counting and by linear algebra (:func:`tree_range_variance`, :func:`tree_width_variance`).
3. MWEM (Hardt, Ligett & McSherry 2012, Algorithm 1): :func:`mwem`, its budget (:func:`mwem_budget`) and its error.
4. Synthetic records drawn from a clamped, normalised noisy histogram (:func:`sample_synthetic`), and what they cannot
   answer: a joint query over an attribute the histogram left out (:func:`correlation_lost`).
5. TopDown (Abowd et al. 2022): discrete Gaussian counts at nation, state and county level, then each level made
   non-negative and consistent with its already post-processed parent by a least-squares projection
   (:func:`project_to_total`, :func:`topdown`).

Data: :func:`example_age_histogram` (a synthetic age pyramid from a stated formula), :func:`example_age_table` (the
same ages with a retired / not retired attribute), :func:`example_geography`; no downloads. Every public function
validates its input once, at the call (:func:`dpviz._validation.checked`); sizes are capped, each cap named in its
message; samplers take a keyword-only ``rng``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from dpviz._validation import (
    MAX_SAMPLES,
    ArrayOf,
    Cap,
    Interval,
    Options,
    _size_arg,
    as_rng,
    check_real_array,
    checked,
    field_array,
    field_float,
)
from dpviz.mechanisms.exponential import exponential_mechanism
from dpviz.mechanisms.samplers import sample_discrete_gaussian
from dpviz.sensitivity import (
    count_sensitivity,
    histogram_sensitivity,
    laplace_scale,
    raw_range_variance,
    sequential_epsilon,
)

__all__ = [
    "example_age_histogram",
    "example_age_table",
    "example_geography",
    "range_answers",
    "range_query_matrix",
    "noisy_histogram",
    "answer_by_composition",
    "composition_variance",
    "histogram_range_variance",
    "tree_counts",
    "tree_level_epsilons",
    "noisy_tree",
    "tree_answer",
    "consistent_tree",
    "tree_range_variance",
    "tree_width_variance",
    "MWEMRun",
    "mwem",
    "mwem_budget",
    "max_query_error",
    "postprocess_histogram",
    "sample_synthetic",
    "sample_from_marginals",
    "marginal_synthesis_expectation",
    "correlation_lost",
    "project_to_total",
    "TopDownResult",
    "topdown",
]

# ------------------------------------------------------------------------------------------------ specs and caps
#: ε of a release: in [1e-10, 1e6], so that every variance 2(k/ε)² and Laplace scale stays far inside the double range.
EPSILON = Interval(1e-10, 1e6)
#: ρ of a zCDP release (TopDown): σ² = 1/(2ρ) stays inside the discrete Gaussian sampler's range.
RHO = Interval(1e-8, 1e4)
#: Cells of a histogram.
BINS = Interval(1, 4096, integer=True)
#: Queries k answered in one call.
QUERIES = Interval(1, 10_000, integer=True)
#: Entries k·bins of a query matrix.
QUERY_ENTRIES = Cap(10_000_000, "the entries k·bins of a query matrix")
#: Counts of a histogram: |count| ≤ 10¹², so sums of 4096 of them and their noise stay exact enough.
COUNTS = ArrayOf(ndim=1, max_abs=1e12)
#: Branching b of a tree.
BRANCHING = Interval(2, 16, integer=True)
#: Depth L of a tree (L + 1 levels, the root at level 0).
DEPTH = Interval(1, 12, integer=True)
#: Cells b^L under a tree (the samplers and :func:`tree_answer`).
TREE_LEAVES = Cap(4096, "the cells b^L under a tree")
#: Cells under a tree whose consistent covariance (AᵀWA)⁻¹ is formed exactly (an n × n inverse).
CONSISTENT_LEAVES = Cap(1024, "the cells b^L of a tree whose least-squares covariance is formed")
#: Ranges × levels whose canonical decomposition one call counts (all positions of the widths asked).
RANGE_WORK = Cap(20_000_000, "the ranges × levels of one call")
#: Rounds T of MWEM.
ROUNDS = Interval(1, 1000, integer=True)
#: Passes over the past measurements per MWEM round (post-processing).
REUSE = Interval(0, 100, integer=True)
#: Work T·(k·bins) + reuse·T²·bins of one MWEM call.
MWEM_WORK = Cap(300_000_000, "the work units T·k·bins + reuse·T²·bins of one MWEM run")
#: Updates replayed from past measurements, reuse·T(T + 1)/2 (one short numpy step each, about 10 µs).
MWEM_REPLAYS = Cap(200_000, "the replayed updates reuse·T(T + 1)/2 of one MWEM run")
#: Records of a data set or a synthetic sample.
RECORDS = Interval(1, MAX_SAMPLES, integer=True)
#: Draws of one sampler call.
SIZE_ENTRIES = Cap(MAX_SAMPLES, "the values one sampler call draws")
#: States of a geography, and counties in each.
STATES = Cap(100, "the states of a geography")
COUNTIES = Cap(1000, "the counties of a state")
#: Values one :func:`project_to_total` call projects.
PROJECT_VALUES = Cap(1_000_000, "the values one projection takes")
_STATISTICS = ("mean", "max")


def _counts(hist, name: str = "hist", *, low: float = 0.0) -> np.ndarray:
    """A histogram of counts >= ``low`` (1-D, finite, |count| ≤ 10¹², at most :data:`BINS` cells)."""
    h = COUNTS.check(hist, name)
    if h.size > BINS.high:
        raise ValueError(f"{name} has {h.size} cells, which is not allowed: must have at most {BINS.high} (the cap on "
                         "the cells of a histogram).")
    if float(h.min()) < low:
        raise ValueError(f"{name} contains {float(h.min())!r}, which is not allowed: counts must be >= {low:g}.")
    return h.astype(float)


def _ranges(ranges, bins: int, name: str = "ranges") -> np.ndarray:
    """(k, 2) integer ranges [lo, hi) with 0 ≤ lo < hi ≤ bins, k ≤ :data:`QUERIES`."""
    r = check_real_array(ranges, name, ndim=2)
    if r.shape[1] != 2:
        raise ValueError(f"{name} has shape {r.shape} which is not allowed: must be (k, 2), one (lo, hi) per query.")
    if r.shape[0] > QUERIES.high:
        raise ValueError(f"{name} has {r.shape[0]} ranges, which is not allowed: must have at most {QUERIES.high} "
                         "(the cap on the queries of one call).")
    if not np.all(r == np.floor(r)) or np.any(r[:, 0] < 0) or np.any(r[:, 1] > bins) or np.any(r[:, 0] >= r[:, 1]):
        raise ValueError(f"{name} is not allowed: must hold integer pairs (lo, hi) with 0 <= lo < hi <= bins = "
                         f"{bins}.")
    return r.astype(np.int64)


def _sizes(size) -> tuple[tuple[int, ...], bool]:
    shape, scalar = _size_arg(size)
    return (() if scalar else shape), scalar


# ------------------------------------------------------------------------------------------------ example data
def _largest_remainder(x: np.ndarray, total: int) -> np.ndarray:
    """Integers y ≥ 0 with Σy = total, each ⌊x_i⌋ or ⌈x_i⌉, the ⌈⌉ going to the largest fractional parts (for x ≥ 0
    with Σx = total: the integer vector nearest to x in L1 and L2 among those with that sum)."""
    fl = np.floor(x)
    short = int(round(total - fl.sum()))
    order = np.argsort(-(x - fl), kind="stable")
    out = fl.copy()
    if short > 0:
        out[order[:short]] += 1.0
    return out


@checked(n=RECORDS, bins=Interval(1, BINS.high, integer=True))
def example_age_histogram(n: int = 10_000, bins: int = 128) -> np.ndarray:
    """A synthetic but realistic age histogram: single years 0..bins−1, n people, no randomness.

    The weight of age a is a stationary population's survival curve with Gompertz mortality and 0.5 % yearly growth,

        w(a) = e^{−0.005 a} · exp(−(B/c)(e^{c a} − 1)),   B = 3·10⁻⁵, c = 0.1

    (so about 41 % of a birth cohort reaches 80 and 0.14 % reaches 100), and the n people are shared in proportion
    to w by largest remainders (the counts are integers and add up to n exactly). Ages above about 105 are empty,
    which makes the tail a good test of clamping. A formula, not a survey: free of any licence.

    >>> h = example_age_histogram(1000, 128)
    >>> int(h.sum()), int(h[0]) > int(h[80]) > int(h[100])
    (1000, True)
    """
    a = np.arange(bins, dtype=float)
    w = np.exp(-0.005 * a - (3e-5 / 0.1) * np.expm1(0.1 * a))
    return _largest_remainder(n * w / w.sum(), n)


@checked(n=RECORDS, bins=Interval(1, BINS.high, integer=True))
def example_age_table(n: int = 10_000, bins: int = 128) -> np.ndarray:
    """The ages of :func:`example_age_histogram` with a second attribute, retired (column 1) or not (column 0):
    P(retired | age a) = 1/(1 + e^{−(a − 63)/3}), each age's count split by largest remainders. Shape (bins, 2),
    integer counts adding up to n. The two attributes are strongly dependent: a histogram of ages alone preserves
    the ages and loses who is retired (:func:`correlation_lost`)."""
    ages = example_age_histogram(n, bins)
    p = 1.0 / (1.0 + np.exp(-(np.arange(bins) - 63.0) / 3.0))
    retired = np.round(ages * p)
    return np.stack([ages - retired, retired], axis=1)


def example_geography() -> np.ndarray:
    """A nation of 4 states with 6 counties each, no randomness: county c of state s has
    round(A_s · 0.35^c) people, A = (50 000, 20 000, 8 000, 1 500), so counties range from 50 000 down to 8 people
    (small counties are where noise and non-negativity matter). Shape (4, 6)."""
    big = np.array([50_000.0, 20_000.0, 8_000.0, 1_500.0])
    return np.round(big[:, None] * 0.35 ** np.arange(6)[None, :])


# ------------------------------------------------------------------------------------------------ 1. k queries
def _range_sums(h: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Range sums along the last axis of ``h`` by prefix sums (unchecked kernel)."""
    c = np.concatenate([np.zeros(h.shape[:-1] + (1,)), np.cumsum(h, axis=-1)], axis=-1)
    return c[..., r[:, 1]] - c[..., r[:, 0]]


def range_answers(hist, ranges) -> np.ndarray:
    """The answers Σ_{lo ≤ i < hi} hist[i] of the ranges [lo, hi) (``ranges`` of shape (k, 2)), exact sums of the
    given (true, noisy or synthetic) counts; ``hist`` may also be (m, bins), m histograms at once (≤ 10⁷ entries).

    >>> range_answers([1.0, 2.0, 3.0, 4.0], [[0, 2], [1, 4]]).tolist()
    [3.0, 9.0]
    """
    h = check_real_array(hist, "hist", ndim=(1, 2))
    if h.shape[-1] > BINS.high:
        raise ValueError(f"hist has shape {h.shape} which is not allowed: must have at most {BINS.high} cells.")
    SIZE_ENTRIES.check(h.size, "the entries of hist")
    if np.max(np.abs(h)) > COUNTS.max_abs:
        raise ValueError(f"hist has an entry of magnitude {float(np.max(np.abs(h))):.4g}, which is not allowed: "
                         f"entries must lie in [-{COUNTS.max_abs:g}, {COUNTS.max_abs:g}].")
    r = _ranges(ranges, h.shape[-1])
    QUERY_ENTRIES.check(h.size // h.shape[-1] * r.shape[0], "the answers of one call")
    return _range_sums(h, r)


def range_query_matrix(ranges, bins: int) -> np.ndarray:
    """The 0/1 matrix Q (k, bins) of the ranges: Q[j, i] = 1 iff lo_j ≤ i < hi_j, so that Q @ hist are their
    answers (linear queries with entries in [0, 1], as MWEM takes them). k·bins ≤ 10⁷."""
    bins = BINS.check(bins, "bins")
    r = _ranges(ranges, bins)
    QUERY_ENTRIES.check(r.shape[0] * bins, f"k·bins = {r.shape[0]}·{bins}")
    i = np.arange(bins)
    return ((i[None, :] >= r[:, :1]) & (i[None, :] < r[:, 1:])).astype(float)


@checked(epsilon=EPSILON)
def noisy_histogram(hist, epsilon: float, *, size=None, rng=None) -> np.ndarray:
    """hist + Laplace(1/ε) in every cell: ε-DP for the whole histogram (L1 sensitivity 1 under add/remove,
    :func:`dpviz.sensitivity.histogram_sensitivity`; Laplace mechanism, Dwork & Roth 2014, Thm 3.6; equivalently one
    ε-DP count per cell, composed in parallel, Dwork & Roth 2014, §3.3). ``size`` m draws m histograms, shape (m, bins).
    """
    h = _counts(hist)
    shape, _ = _sizes(size)
    SIZE_ENTRIES.check(math.prod(shape) * h.size, "size·bins")
    b = laplace_scale(histogram_sensitivity("add_remove", "l1"), epsilon)
    return h + as_rng(rng).laplace(0.0, b, size=shape + h.shape)


@checked(epsilon=EPSILON)
def answer_by_composition(hist, ranges, epsilon: float, *, size=None, rng=None) -> np.ndarray:
    """Each of the k ranges answered on its own with ε/k: answer + Laplace(k/ε) (a count has sensitivity 1; the k
    answers are ε-DP by basic composition, Dwork & Roth 2014, Thm 3.14). Shape (k,), or (m, k) for ``size`` m."""
    h = _counts(hist)
    r = _ranges(ranges, h.size)
    shape, _ = _sizes(size)
    SIZE_ENTRIES.check(math.prod(shape) * r.shape[0], "size·k")
    k = r.shape[0]
    b = laplace_scale(count_sensitivity("add_remove"), epsilon / k)
    return _range_sums(h, r) + as_rng(rng).laplace(0.0, b, size=shape + (k,))


@checked(k=QUERIES, epsilon=EPSILON)
def composition_variance(k: int, epsilon: float) -> float:
    """Variance of one of k counting queries answered each with ε/k (basic composition, Dwork & Roth 2014, Thm 3.14):

        Var = 2b², b = Δ/(ε/k) = k/ε   →   2k²/ε²

    (Laplace(b) has variance 2b², Dwork & Roth 2014, Def. 3.3). It does not depend on the width of the range.

    >>> composition_variance(10, 1.0)
    200.0
    """
    b = laplace_scale(count_sensitivity("add_remove"), epsilon / k)
    return 2.0 * b * b


@checked(bins=BINS, epsilon=EPSILON)
def histogram_range_variance(bins: int, width, epsilon: float):
    """Variance of a range of ``width`` cells answered from one noisy histogram (Laplace(1/ε) per cell, ε-DP in all):

        Var = width · 2/ε²

    (:func:`dpviz.sensitivity.raw_range_variance` with the cell variance 2b², b = 1/ε). Against
    :func:`composition_variance` the histogram is better for every width < k², whatever the number of queries.

    >>> histogram_range_variance(128, 10, 1.0)
    20.0
    """
    b = laplace_scale(histogram_sensitivity("add_remove", "l1"), epsilon)
    return raw_range_variance(bins, width, 2.0 * b * b)


# ------------------------------------------------------------------------------------------------ 2. trees
def _depth_of(cells: int, b: int, name: str) -> int:
    L, n = 0, 1
    while n < cells:
        n *= b
        L += 1
    if n != cells or L < DEPTH.low or L > DEPTH.high:
        raise ValueError(f"{name} has {cells} cells, which is not allowed: must be a power b^L of the branching "
                         f"b = {b} with 1 <= L <= {int(DEPTH.high)}.")
    return L


def _nodes(b: int, L: int) -> int:
    return (b ** (L + 1) - 1) // (b - 1)


def _offsets(b: int, L: int) -> list[int]:
    return [(b**level - 1) // (b - 1) for level in range(L + 2)]


def _weights(split, L: int) -> np.ndarray:
    """The budget shares of the L + 1 levels (root first), normalised to add up to 1; None: equal shares."""
    if split is None:
        return np.full(L + 1, 1.0 / (L + 1))
    w = check_real_array(split, "split", ndim=1)
    if w.shape != (L + 1,) or np.any(w <= 0) or np.any(w > 1e12):
        raise ValueError(f"split = {split!r} is not allowed: must be {L + 1} numbers in (0, 1e12], one budget "
                         "share per level (root first).")
    return w / w.sum()


def _tree_of(hist: np.ndarray, b: int, L: int) -> np.ndarray:
    levels = [hist]
    for _ in range(L):
        levels.append(levels[-1].reshape(levels[-1].shape[:-1] + (-1, b)).sum(axis=-1))
    return np.concatenate(levels[::-1], axis=-1)


@checked(branching=BRANCHING)
def tree_counts(hist, branching: int = 2) -> np.ndarray:
    """The exact counts of every node of the b-ary tree over ``hist`` (b^L cells), in level order: the root (the
    total) first, then its b children, …, the cells last ((b^{L+1} − 1)/(b − 1) values). A node's count is the sum
    of its children's (the hierarchical query H of Hay et al. 2010's universal histograms, §5).

    >>> tree_counts([1.0, 2.0, 3.0, 4.0]).tolist()
    [10.0, 3.0, 7.0, 1.0, 2.0, 3.0, 4.0]
    """
    h = _counts(hist, low=-COUNTS.max_abs)
    L = _depth_of(h.size, branching, "hist")
    return _tree_of(h, branching, L)


@checked(epsilon=EPSILON, depth=DEPTH)
def tree_level_epsilons(epsilon: float, depth: int, split=None) -> np.ndarray:
    """ε_ℓ of the L + 1 levels (root first): ε·w_ℓ/Σw for budget shares ``split`` (None: ε/(L + 1) each, as Hay et
    al. 2010 and the binary tree of Dwork et al. 2010 use). One record adds 1 to one node of each level, so level ℓ
    with Laplace(1/ε_ℓ) noise is ε_ℓ-DP, and the tree is Σε_ℓ = ε-DP by basic composition (Dwork & Roth 2014,
    Thm 3.14; within a level, parallel composition, §3.3).

    >>> tree_level_epsilons(1.0, 3).tolist()
    [0.25, 0.25, 0.25, 0.25]
    """
    return epsilon * _weights(split, depth)


def _level_scales(epsilon: float, b: int, L: int, split) -> np.ndarray:
    eps = epsilon * _weights(split, L)
    return np.repeat([laplace_scale(histogram_sensitivity("add_remove", "l1"), float(e)) for e in eps],
                     [b**level for level in range(L + 1)])


@checked(epsilon=EPSILON, branching=BRANCHING)
def noisy_tree(hist, epsilon: float, branching: int = 2, *, split=None, size=None, rng=None) -> np.ndarray:
    """Every node of the b-ary tree over ``hist`` (:func:`tree_counts`) plus Laplace(1/ε_ℓ) noise at level ℓ
    (:func:`tree_level_epsilons`): ε-DP in all (Hay et al. 2010, §5; Dwork et al. 2010 for the binary tree). Level
    order, root first; shape (nodes,), or (m, nodes) for ``size`` m."""
    h = _counts(hist)
    L = _depth_of(h.size, branching, "hist")
    TREE_LEAVES.check(h.size, "the cells of hist")
    shape, _ = _sizes(size)
    nodes = _nodes(branching, L)
    SIZE_ENTRIES.check(math.prod(shape) * nodes, "size·nodes")
    scales = _level_scales(epsilon, branching, L, split)
    return _tree_of(h, branching, L) + as_rng(rng).laplace(0.0, 1.0, size=shape + (nodes,)) * scales


def _tree_arg(tree, b: int, name: str = "tree") -> tuple[np.ndarray, int]:
    t = check_real_array(tree, name, ndim=(1, 2))
    n = t.shape[-1]
    L, size = 0, 1
    while size < n:
        L += 1
        size = _nodes(b, L)
    if size != n or L < 1 or L > DEPTH.high:
        raise ValueError(f"{name} has {n} nodes, which is not allowed: must be (b^(L+1) − 1)/(b − 1) for the branching "
                         f"b = {b} and 1 <= L <= {int(DEPTH.high)} (a tree in level order).")
    TREE_LEAVES.check(b**L, "the cells under the tree")
    SIZE_ENTRIES.check(t.size, f"the entries of {name}")
    if np.max(np.abs(t)) > 1e15:
        raise ValueError(f"{name} has an entry of magnitude {float(np.max(np.abs(t))):.4g}, which is not allowed: "
                         "entries must lie in [-1e+15, 1e+15].")
    return t, L


def _canonical(lo: np.ndarray, hi: np.ndarray, b: int, L: int):
    """Per level ℓ (root first) the node intervals of the canonical decomposition of [lo, hi): the level-ℓ nodes
    inside the range whose parent is not inside. They are [a, e) minus the children [b·pa, b·pe) of the inside
    parents, i.e. [a, b·pa) ∪ [b·pe, e) (or [a, e) when no parent is inside). Unchecked kernel."""
    out = []
    for level in range(L + 1):
        s = b ** (L - level)  # cells under a node of this level
        a = -(-lo // s)
        e = np.maximum(hi // s, a)
        if level == 0:
            pa = pe = np.zeros_like(a)
        else:
            pa = -(-lo // (s * b))
            pe = np.maximum(hi // (s * b), pa)
        inside = pe > pa
        left_end = np.where(inside, b * pa, e)
        right_start = np.where(inside, b * pe, e)
        out.append((a, left_end, right_start, e))
    return out


@checked(branching=BRANCHING)
def tree_answer(tree, ranges, branching: int = 2) -> np.ndarray:
    """The answers of the ranges from a (noisy or consistent) tree in level order, each as the sum of its canonical
    decomposition: the fewest nodes whose cells make up [lo, hi), at most 2(b − 1) per level (Hay et al. 2010, §5).
    For a consistent tree (:func:`consistent_tree`) every decomposition gives the same answer, the sum of its cells.
    ``tree`` may be (m, nodes): answers (m, k)."""
    t, L = _tree_arg(tree, branching)
    r = _ranges(ranges, branching**L)
    QUERY_ENTRIES.check(t.size // t.shape[-1] * r.shape[0] * (L + 1), "the answers × levels of one call")
    off = _offsets(branching, L)
    total = np.zeros(t.shape[:-1] + (r.shape[0],))
    for level, (a, le, rs, e) in enumerate(_canonical(r[:, 0], r[:, 1], branching, L)):
        row = t[..., off[level]:off[level + 1]]
        c = np.concatenate([np.zeros(row.shape[:-1] + (1,)), np.cumsum(row, axis=-1)], axis=-1)
        total = total + (c[..., le] - c[..., a]) + (c[..., e] - c[..., rs])
    return total


def _consistent(t: np.ndarray, b: int, L: int, v: np.ndarray) -> np.ndarray:
    """Hay et al. 2010's two passes with level variances v (root first), on (..., nodes). Unchecked kernel."""
    off = _offsets(b, L)
    y = [t[..., off[level]:off[level + 1]] for level in range(L + 1)]
    z = [None] * (L + 1)
    var = [0.0] * (L + 1)
    z[L], var[L] = y[L], float(v[L])
    for level in range(L - 1, -1, -1):  # upward: weighted average of the node and its children's sum
        s = z[level + 1].reshape(z[level + 1].shape[:-1] + (-1, b)).sum(axis=-1)
        vs = b * var[level + 1]
        wy = (1.0 / v[level]) / (1.0 / v[level] + 1.0 / vs)
        z[level] = wy * y[level] + (1.0 - wy) * s
        var[level] = 1.0 / (1.0 / v[level] + 1.0 / vs)
    x = [z[0]]
    for level in range(1, L + 1):  # downward: share the parent's surplus equally among its b children
        s = z[level].reshape(z[level].shape[:-1] + (-1, b)).sum(axis=-1)
        x.append(z[level] + np.repeat((x[level - 1] - s) / b, b, axis=-1))
    return np.concatenate(x, axis=-1)


@checked(branching=BRANCHING)
def consistent_tree(noisy, branching: int = 2, *, split=None) -> np.ndarray:
    """Hay et al. 2010's consistent tree (§5, the universal histogram's constrained inference: the least-squares
    estimate of a noisy hierarchy): with the
    noisy counts ỹ in level order and ℓ counted from the root. Upward (weighted averaging): z_v = ỹ_v at a cell,
    and z_v = α ỹ_v + (1 − α) Σ_{children u} z_u with α = (1/v_ℓ)/(1/v_ℓ + 1/(b V_{ℓ+1})) and
    V_ℓ = 1/(1/v_ℓ + 1/(b V_{ℓ+1})) (V_L = v_L). Downward (mean consistency): x̄_root = z_root and
    x̄_u = z_u + (x̄_parent − Σ_{siblings w} z_w)/b.

    With equal level variances v_ℓ (``split`` None) α at height h (cells at h = 1) is (b^h − b^{h−1})/(b^h − 1),
    Hay et al.'s weights, and x̄ is the ordinary least-squares fit of a consistent tree (every node the sum of its
    children) to ỹ. With budget shares ``split`` (as given to :func:`noisy_tree`), v_ℓ ∝ 1/ε_ℓ² and the same two passes
    give the weighted least-squares fit (the tests compare both with numpy's least squares). Post-processing: free
    in privacy (Dwork & Roth 2014, Prop. 2.1). ``noisy`` may be (m, nodes)."""
    t, L = _tree_arg(noisy, branching, "noisy")
    w = _weights(split, L)
    return _consistent(t, branching, L, 1.0 / (w * w))


def _level_variances(epsilon: float, L: int, split) -> np.ndarray:
    eps = epsilon * _weights(split, L)
    return np.array([2.0 * laplace_scale(histogram_sensitivity("add_remove", "l1"), float(e)) ** 2 for e in eps])


def _canonical_variance(lo, hi, b: int, L: int, v: np.ndarray) -> np.ndarray:
    out = np.zeros(lo.shape)
    for level, (a, le, rs, e) in enumerate(_canonical(lo, hi, b, L)):
        out += ((le - a) + (e - rs)) * v[level]
    return out


def _consistent_covariance(b: int, L: int, v: np.ndarray) -> np.ndarray:
    """(AᵀWA)⁻¹ over the n = b^L cells: A has one row per node (a 1 for each of its cells), W = diag(1/v_ℓ)."""
    n = b**L
    M = np.zeros((n, n))
    for level in range(L + 1):
        s = b ** (L - level)
        block = np.arange(n) // s
        M += (block[:, None] == block[None, :]) / v[level]
    return np.linalg.inv(M)


def _range_variances(lo, hi, epsilon, b, L, split, consistent: bool) -> np.ndarray:
    v = _level_variances(epsilon, L, split)
    if not consistent:
        return _canonical_variance(lo, hi, b, L, v)
    CONSISTENT_LEAVES.check(b**L, "the cells b^L")
    C = _consistent_covariance(b, L, v)
    S = np.zeros((C.shape[0] + 1, C.shape[0] + 1))
    S[1:, 1:] = C.cumsum(axis=0).cumsum(axis=1)
    return S[hi, hi] - S[lo, hi] - S[hi, lo] + S[lo, lo]


@checked(epsilon=EPSILON, depth=DEPTH, branching=BRANCHING)
def tree_range_variance(ranges, epsilon: float, depth: int, branching: int = 2, *, split=None,
                        consistent: bool = False) -> np.ndarray:
    """Exact variance of each range [lo, hi) answered from the noisy tree (b^L cells, level ℓ with Laplace(1/ε_ℓ),
    :func:`tree_level_epsilons`):

    * canonical decomposition (``consistent=False``): Σ_ℓ c_ℓ · 2/ε_ℓ², c_ℓ the number of level-ℓ nodes of the
      decomposition (:func:`tree_answer`; at most 2(b − 1) a level, so O(b L³/ε²) with ε_ℓ = ε/(L + 1));
    * consistent tree (``consistent=True``, :func:`consistent_tree`): 1ᵀ(AᵀWA)⁻¹1 over the range's cells, the
      variance of the (weighted) least-squares estimate (Hay et al. 2010, §5), formed exactly for b^L ≤ 1024.

    Compare :func:`histogram_range_variance` (2·width/ε²): the flat histogram wins for narrow ranges; the tree only for
    wide ones. At b = 2, L = 10 (1024 cells, ε/11 a level; averaged over positions) the canonical answer loses to the
    flat histogram at every width but the whole domain (2174.7/ε² against 1024/ε² at width 512), while the consistent
    tree wins at every width from 239 on (526.3/ε² at width 512): consistency is what makes the tree pay there."""
    TREE_LEAVES.check(branching**depth, f"b^L = {branching}^{depth}")
    r = _ranges(ranges, branching**depth)
    if not isinstance(consistent, (bool, np.bool_)):
        raise ValueError(f"consistent = {consistent!r} is not allowed: must be True or False.")
    return _range_variances(r[:, 0], r[:, 1], epsilon, branching, depth, split, bool(consistent))


@checked(epsilon=EPSILON, depth=DEPTH, branching=BRANCHING, statistic=Options(*_STATISTICS))
def tree_width_variance(width, epsilon: float, depth: int, branching: int = 2, *, split=None,
                        consistent: bool = False, statistic: str = "mean"):
    """The variance of a range of each ``width`` answered from the tree (:func:`tree_range_variance`), averaged over
    (``statistic="mean"``) or maximised over (``"max"``) all its b^L − width + 1 positions: the curve "error as the
    range grows" to set against the flat histogram's 2·width/ε² (:func:`histogram_range_variance`). Exact."""
    n = branching**depth
    TREE_LEAVES.check(n, f"b^L = {branching}^{depth}")
    scalar = np.ndim(width) == 0
    w = np.atleast_1d(check_real_array(width, "width", ndim=(0, 1)))
    if np.any(w != np.floor(w)) or np.any(w < 1) or np.any(w > n):
        raise ValueError(f"width = {width!r} is not allowed: must be integers in 1..b^L = {n}.")
    if not isinstance(consistent, (bool, np.bool_)):
        raise ValueError(f"consistent = {consistent!r} is not allowed: must be True or False.")
    w = w.astype(np.int64)
    RANGE_WORK.check(int(np.sum(n - w + 1)) * (depth + 1), "the ranges × levels of the widths asked")
    lo = np.concatenate([np.arange(n - x + 1) for x in w])
    hi = lo + np.repeat(w, n - w + 1)
    var = _range_variances(lo, hi, epsilon, branching, depth, split, bool(consistent))
    starts = np.concatenate([[0], np.cumsum(n - w + 1)[:-1]])
    reduce = np.add if statistic == "mean" else np.maximum
    out = reduce.reduceat(var, starts)
    if statistic == "mean":
        out = out / (n - w + 1)
    return float(out[0]) if scalar else out


# ------------------------------------------------------------------------------------------------ 3. MWEM
@dataclasses.dataclass(frozen=True)
class MWEMRun:
    """Output and trace of :func:`mwem` (Hardt, Ligett & McSherry 2012, Algorithm 1).

    ``synthetic`` is the released histogram A = avg_{i ≤ T} A_i (scaled to n records), ``last`` is A_T; per round i:
    ``selected`` (the query index the exponential mechanism chose), ``measurements`` (its noisy answer m_i),
    ``select_epsilons`` and ``measure_epsilons`` (ε/(2T) each), and ``max_errors``, the largest query error of A_i
    on the data: a teaching trace computed from the private data, not part of the private output. ``epsilon`` is the
    total by basic composition."""

    synthetic: np.ndarray
    last: np.ndarray
    selected: np.ndarray
    measurements: np.ndarray
    select_epsilons: np.ndarray
    measure_epsilons: np.ndarray
    max_errors: np.ndarray
    epsilon: float

    def __post_init__(self):
        for name in ("synthetic", "last", "measurements", "select_epsilons", "measure_epsilons", "max_errors"):
            field_array(self, name, ndim=1)
        field_array(self, "selected", ndim=1, integer=True, low=0)
        field_float(self, "epsilon", low=0.0)


def _queries(queries, bins: int) -> np.ndarray:
    Q = check_real_array(queries, "queries", ndim=2)
    if Q.shape[1] != bins:
        raise ValueError(f"queries has shape {Q.shape} which is not allowed: must be (k, {bins}), one row per query "
                         "over the cells of hist.")
    if Q.shape[0] > QUERIES.high:
        raise ValueError(f"queries has {Q.shape[0]} rows, which is not allowed: must have at most {QUERIES.high}.")
    if np.any(Q < 0) or np.any(Q > 1):
        raise ValueError("queries is not allowed: entries must lie in [0, 1] (linear queries of sensitivity 1).")
    return Q


@checked(epsilon=EPSILON, rounds=ROUNDS)
def mwem_budget(epsilon: float, rounds: int) -> dict:
    """MWEM's budget (Hardt, Ligett & McSherry 2012, Algorithm 1 and Theorem 2.1): each of the T rounds spends ε/(2T)
    on selecting a query (exponential mechanism) and ε/(2T) on measuring it (Laplace), so the total by basic
    composition (Dwork & Roth 2014, Thm 3.14) is 2T · ε/(2T) = ε. Returns ``{"select", "measure", "total"}``.

    >>> mwem_budget(1.0, 5)
    {'select': 0.1, 'measure': 0.1, 'total': 1.0}
    """
    share = epsilon / (2.0 * rounds)
    return {"select": share, "measure": share, "total": sequential_epsilon(np.full(2 * rounds, share))}


def _mw_update(logA: np.ndarray, A: np.ndarray, q: np.ndarray, m: float, n: float) -> tuple[np.ndarray, np.ndarray]:
    logA = logA + q * (m - float(q @ A)) / (2.0 * n)
    logA = logA - logA.max()
    p = np.exp(logA)
    return logA, n * p / p.sum()


@checked(epsilon=EPSILON, rounds=ROUNDS, reuse=REUSE)
def mwem(hist, queries, epsilon: float, rounds: int, reuse: int = 0, *, rng=None) -> MWEMRun:
    """MWEM (Hardt, Ligett & McSherry 2012, Algorithm 1) over the cells of ``hist`` (n = Σ hist records, taken as
    public, as there) and linear queries ``queries`` (k, bins) with entries in [0, 1] (e.g.
    :func:`range_query_matrix`). A_0 is n times the uniform distribution; in round i = 1..T:

    1. select q_i by the exponential mechanism with ε/(2T) and score |q(A_{i−1}) − q(B)| (sensitivity 1;
       :func:`dpviz.mechanisms.exponential_mechanism`);
    2. measure m_i = q_i(B) + Laplace(2T/ε);
    3. multiplicative weights: A_i(x) ∝ A_{i−1}(x) · exp(q_i(x)(m_i − q_i(A_{i−1}))/(2n)), scaled to n records.

    The output is A = avg_{i ≤ T} A_i. With ``reuse`` p > 0 each round then also applies the update again, p times
    over, for every measurement so far (the refinement the paper suggests after Algorithm 1: it uses only released
    values, so it is post-processing and costs nothing). ε-DP in all (Theorem 2.1; :func:`mwem_budget`)."""
    h = _counts(hist)
    n = float(h.sum())
    if n <= 0:
        raise ValueError("hist is not allowed: its counts must add up to n > 0 records.")
    Q = _queries(queries, h.size)
    k, bins = Q.shape
    MWEM_WORK.check(rounds * k * bins + reuse * rounds * (rounds + 1) // 2 * bins,
                    f"the work of rounds = {rounds} and reuse = {reuse} on {k} queries × {bins} cells")
    MWEM_REPLAYS.check(reuse * rounds * (rounds + 1) // 2, f"the replays of rounds = {rounds} and reuse = {reuse}")
    g = as_rng(rng)
    budget = mwem_budget(epsilon, rounds)
    b = laplace_scale(count_sensitivity("add_remove"), budget["measure"])
    qB = Q @ h
    A = np.full(bins, n / bins)
    logA = np.zeros(bins)
    acc = np.zeros(bins)
    picks = np.empty(rounds, dtype=np.int64)
    meas = np.empty(rounds)
    errs = np.empty(rounds)
    for i in range(rounds):
        pick = exponential_mechanism(np.abs(Q @ A - qB), budget["select"], 1.0, rng=g)
        picks[i] = pick
        meas[i] = qB[pick] + g.laplace(0.0, b)
        logA, A = _mw_update(logA, A, Q[pick], meas[i], n)
        for _ in range(reuse):
            for j in range(i + 1):
                logA, A = _mw_update(logA, A, Q[picks[j]], meas[j], n)
        acc += A
        errs[i] = float(np.max(np.abs(Q @ A - qB)))
    return MWEMRun(synthetic=acc / rounds, last=A, selected=picks, measurements=meas,
                   select_epsilons=np.full(rounds, budget["select"]),
                   measure_epsilons=np.full(rounds, budget["measure"]), max_errors=errs, epsilon=budget["total"])


def max_query_error(synthetic, hist, queries) -> float:
    """max_j |q_j(synthetic) − q_j(hist)|: the largest error of a released histogram over the linear queries
    (the error that Hardt, Ligett & McSherry 2012 bound and plot for MWEM)."""
    s = _counts(synthetic, "synthetic", low=-COUNTS.max_abs)
    h = _counts(hist, low=-COUNTS.max_abs)
    if s.shape != h.shape:
        raise ValueError(f"synthetic has shape {s.shape} which is not allowed: must be {h.shape}, like hist.")
    Q = _queries(queries, h.size)
    return float(np.max(np.abs(Q @ (s - h))))


# ------------------------------------------------------------------------------------------------ 4. synthetic data
def _postprocess(h: np.ndarray) -> np.ndarray:
    p = np.where(h > 0, h, 0.0)
    total = p.sum()
    return np.full(h.size, 1.0 / h.size) if total <= 0 else p / total


def postprocess_histogram(noisy) -> np.ndarray:
    """The noisy histogram clamped at 0 and normalised to a probability vector p (uniform if every cell is ≤ 0):
    post-processing, free in privacy (Dwork & Roth 2014, Prop. 2.1), and biased upwards in empty cells.

    >>> postprocess_histogram([3.0, -1.0, 1.0]).tolist()
    [0.75, 0.0, 0.25]
    """
    return _postprocess(_counts(noisy, "noisy", low=-COUNTS.max_abs))


@checked(n_records=RECORDS)
def sample_synthetic(noisy, n_records: int, *, rng=None) -> np.ndarray:
    """n' synthetic records (cell indices) drawn i.i.d. from :func:`postprocess_histogram` of ``noisy``: as private as
    the noisy histogram (post-processing). Their counts np.bincount(records, minlength=bins) answer any range with
    expectation n'·p(range) (:func:`range_answers`)."""
    p = postprocess_histogram(noisy)
    return as_rng(rng).choice(p.size, size=n_records, p=p)


@checked(n_records=RECORDS)
def sample_from_marginals(noisy_a, noisy_b, n_records: int, *, rng=None) -> np.ndarray:
    """n' synthetic records (a, b) from two released one-attribute histograms: a from
    :func:`postprocess_histogram` of ``noisy_a``, b independently from that of ``noisy_b``. Shape (n', 2). What
    linked a and b in the data is not in the release, so the records cannot have it (:func:`correlation_lost`)."""
    pa = postprocess_histogram(noisy_a)
    pb = _postprocess(_counts(noisy_b, "noisy_b", low=-COUNTS.max_abs))
    g = as_rng(rng)
    return np.stack([g.choice(pa.size, size=n_records, p=pa), g.choice(pb.size, size=n_records, p=pb)], axis=1)


def _joint_query(lo, hi, col, rows: int, cols: int) -> tuple[int, int, int]:
    lo = Interval(0, rows - 1, integer=True).check(lo, "lo")
    hi = Interval(lo + 1, rows, integer=True).check(hi, "hi")
    col = Interval(0, cols - 1, integer=True).check(col, "col")
    return lo, hi, col


@checked(n_records=RECORDS)
def marginal_synthesis_expectation(noisy_a, noisy_b, lo: int, hi: int, col: int, n_records: int) -> float:
    """Exact expected number of records of :func:`sample_from_marginals` with a in [lo, hi) and b = col, given the
    releases: n'·p_a([lo, hi))·p_b(col), p the post-processed histograms (the two attributes are drawn
    independently). Against the truth Σ_{lo ≤ a < hi} joint[a, col] this misses the dependence of a and b."""
    pa = postprocess_histogram(noisy_a)
    pb = _postprocess(_counts(noisy_b, "noisy_b", low=-COUNTS.max_abs))
    lo, hi, col = _joint_query(lo, hi, col, pa.size, pb.size)
    return float(n_records * pa[lo:hi].sum() * pb[col])


def correlation_lost(joint, lo: int, hi: int, col: int) -> dict:
    """What synthetic data from the two one-attribute histograms answer, even without noise (ε → ∞), to the joint
    query "a in [lo, hi) and b = col" of a (rows, cols) table of counts: N·P_a([lo, hi))·P_b(col) (the product of the
    exact marginals, N the total) against the truth Σ_{lo ≤ a < hi} joint[a, col]. Each marginal is preserved
    exactly; the correlation, which no released statistic carried, is not. Returns ``{"truth", "from_marginals",
    "marginal_a", "marginal_a_from_marginals"}`` (the last two agree: the released marginal is kept).

    >>> r = correlation_lost(example_age_table(10_000), 65, 128, 1)
    >>> r["truth"] > 2 * r["from_marginals"]
    True
    """
    J = check_real_array(joint, "joint", ndim=2)
    if J.shape[0] > BINS.high or J.shape[1] > BINS.high:
        raise ValueError(f"joint has shape {J.shape} which is not allowed: must have at most {BINS.high} rows and "
                         "columns.")
    if np.any(J < 0) or np.max(J) > COUNTS.max_abs or J.sum() <= 0:
        raise ValueError("joint is not allowed: must hold counts in [0, 1e12] with a positive total.")
    lo, hi, col = _joint_query(lo, hi, col, *J.shape)
    N = float(J.sum())
    pa, pb = J.sum(axis=1) / N, J.sum(axis=0) / N
    return {"truth": float(J[lo:hi, col].sum()), "from_marginals": N * float(pa[lo:hi].sum()) * float(pb[col]),
            "marginal_a": float(J[lo:hi].sum()), "marginal_a_from_marginals": N * float(pa[lo:hi].sum())}


# ------------------------------------------------------------------------------------------------ 5. TopDown
def _project(v: np.ndarray, total: float, w: np.ndarray) -> np.ndarray:
    """argmin Σ w_i (x_i − v_i)² over x ≥ 0, Σx = total (total ≥ 0, w > 0). KKT: x_i = max(0, v_i − λ/w_i) with λ
    such that the x add up to total. g(λ) = Σ max(0, v_i − λ/w_i) is piecewise linear and decreasing, with kinks at
    λ_i = w_i v_i: sort them, find the piece where g crosses total, solve it. Unchecked kernel."""
    if total <= 0:
        return np.zeros_like(v)
    order = np.argsort(-(w * v), kind="stable")  # kinks from the largest: cell i is active for λ < w_i v_i
    lam_k = (w * v)[order]
    inv_w = (1.0 / w)[order]
    cv = np.cumsum(v[order])
    cw = np.cumsum(inv_w)
    # with the first j cells active, g(λ) = cv_j − λ cw_j; choose the largest j whose λ_j = (cv_j − total)/cw_j is
    # at most the j-th kink (then the j-th cell is active at λ_j and the (j+1)-th is not)
    lam = (cv - total) / cw
    ok = np.nonzero(lam <= lam_k)[0]  # j = 1 always qualifies in exact arithmetic (total > 0); keep it if rounding
    j = int(ok[-1]) if ok.size else 0  # ties it (total below the spacing of w_1 v_1)
    x = np.maximum(v - lam[j] / w, 0.0)
    s = x.sum()
    return x * (total / s) if s > 0 else x  # rounding: make the sum exact to the last bits


@checked(total=Interval(0.0, 1e15))
def project_to_total(values, total: float, weights=None) -> np.ndarray:
    """The weighted least-squares projection of ``values`` onto {x ≥ 0, Σx = total}:

        x = argmin Σ w_i (x_i − v_i)²,   x_i = max(0, v_i − λ/w_i),   λ with Σx = total

    solved exactly by sorting the kinks λ_i = w_i v_i (water-filling; with equal weights the Euclidean projection onto
    a scaled simplex, Duchi et al. 2008, which :func:`dpviz.partial.marginals.project_onto_hull` uses for the
    simplex itself). TopDown's post-processing of the children of one parent (Abowd et al. 2022: non-negative
    children that add up to the parent), here with weights w_i = 1/Var of each noisy child (None: equal weights).
    ``total`` = 0 gives zeros.

    >>> project_to_total([5.0, 1.0, -2.0], 3.0).tolist()
    [3.0, 0.0, 0.0]
    >>> project_to_total([2.0, 2.0, -1.0], 3.0).tolist()
    [1.5, 1.5, 0.0]
    """
    v = check_real_array(values, "values", ndim=1)
    PROJECT_VALUES.check(v.size, "len(values)")
    if np.max(np.abs(v)) > 1e15:
        raise ValueError(f"values has an entry of magnitude {float(np.max(np.abs(v))):.4g}, which is not allowed: "
                         "entries must lie in [-1e+15, 1e+15].")
    if weights is None:
        w = np.ones(v.size)
    else:
        w = check_real_array(weights, "weights", ndim=1)
        if w.shape != v.shape or np.any(w < 1e-12) or np.any(w > 1e12):
            raise ValueError(f"weights is not allowed: must be {v.size} numbers in [1e-12, 1e12], one per value.")
    return _project(v, total, w)


@dataclasses.dataclass(frozen=True)
class TopDownResult:
    """Output of :func:`topdown`: for each of the three levels (nation, states, counties) the true, noisy and
    post-processed counts, the level's ρ and σ, and the root mean squared errors of the noisy and of the
    post-processed counts at that level (``noisy_rmse``, ``topdown_rmse``, nation first)."""

    true_counts: tuple
    noisy_counts: tuple
    estimates: tuple
    level_rho: np.ndarray
    level_sigma: np.ndarray
    noisy_rmse: np.ndarray
    topdown_rmse: np.ndarray

    def __post_init__(self):
        for name in ("true_counts", "noisy_counts", "estimates"):
            value = getattr(self, name)
            if not isinstance(value, tuple) or len(value) != 3:
                raise ValueError(f"{name} = {type(value).__name__} is not allowed: must be a tuple (nation, states, "
                                 "counties).")
            object.__setattr__(self, name, tuple(check_real_array(a, f"{name}[{i}]", ndim=(0, 1, 2))
                                                 for i, a in enumerate(value)))
        for name in ("level_rho", "level_sigma", "noisy_rmse", "topdown_rmse"):
            field_array(self, name, ndim=1, low=0.0)


def _rmse(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((np.asarray(a, float) - np.asarray(b, float)) ** 2)))


@checked(rho=RHO)
def topdown(counties, rho: float, *, split=None, integer: bool = True, rng=None) -> TopDownResult:
    """The TopDown idea (Abowd et al. 2022) on a nation → states → counties geography (``counties`` (S, C) counts:
    S states of C counties each, e.g. :func:`example_geography`).

    Measure: every count of each level plus discrete Gaussian noise N_ℤ(0, σ_ℓ²), σ_ℓ² = 1/(2ρ_ℓ), ρ_ℓ = ρ·w_ℓ
    (``split`` w, None: ρ/3 each): one person changes one count per level by 1, so level ℓ is ρ_ℓ-zCDP (Canonne,
    Kamath & Steinke 2020, Thm 14) and the three levels ρ-zCDP (Bun & Steinke 2016, Lemma 1.7), as the 2020 Census
    measured with discrete Gaussian noise under zCDP. Then post-process top down: the nation is clamped at 0; the
    states are projected onto {≥ 0, Σ = the estimated nation} (:func:`project_to_total`, equal weights: equal noise
    within a level), then each state's counties onto {≥ 0, Σ = that state's estimate}; with ``integer`` each level
    is then rounded to integers that keep the sum (largest remainders: the nearest integer vector, each count
    rounded down or up, as TopDown's rounder does). Every estimate is non-negative and consistent with its parent.
    Post-processing costs no privacy (Dwork & Roth 2014, Prop. 2.1). The errors at each level are returned.

    Simplified from the production system: there the nation's and each state's total population were invariants
    (published exactly, not noised), every geographic unit had many measured queries (a detailed histogram of
    age × sex × race × … and marginals of it), the least-squares step weighted all of them by their variances, and
    the rounder solved an integer program; here each unit has one count, so the least-squares step is the
    projection of :func:`project_to_total` and the rounder is largest remainders."""
    C = check_real_array(counties, "counties", ndim=2)
    STATES.check(C.shape[0], "the states of counties")
    COUNTIES.check(C.shape[1], "the counties of a state")
    if np.any(C < 0) or np.max(C) > 1e12 or np.any(C != np.floor(C)):
        raise ValueError("counties is not allowed: must hold integer counts in [0, 1e12].")
    if not isinstance(integer, (bool, np.bool_)):
        raise ValueError(f"integer = {integer!r} is not allowed: must be True or False.")
    w = _weights(split, 2)
    rhos = rho * w
    sig = np.sqrt(1.0 / (2.0 * rhos))
    g = as_rng(rng)
    truth = (np.array(C.sum()), C.sum(axis=1), C)
    noisy = tuple(t + sample_discrete_gaussian(float(s), size=np.shape(t), rng=g) for t, s in zip(truth, sig))
    nation = max(float(noisy[0]), 0.0)
    states = _project(noisy[1].astype(float), nation, np.ones(C.shape[0]))
    if integer:
        states = _largest_remainder(states, int(round(nation)))
    counts = np.empty(C.shape)
    for s in range(C.shape[0]):
        row = _project(noisy[2][s].astype(float), float(states[s]), np.ones(C.shape[1]))
        counts[s] = _largest_remainder(row, int(round(states[s]))) if integer else row
    est = (np.array(nation), states, counts)
    return TopDownResult(true_counts=truth, noisy_counts=noisy, estimates=est, level_rho=rhos, level_sigma=sig,
                         noisy_rmse=np.array([_rmse(a, b) for a, b in zip(noisy, truth)]),
                         topdown_rmse=np.array([_rmse(a, b) for a, b in zip(est, truth)]))
