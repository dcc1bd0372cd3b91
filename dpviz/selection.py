"""Private selection: report-noisy-max (Gumbel, Laplace or exponential noise) and the sparse vector technique.

* :func:`report_noisy_max` adds independent noise to each candidate's score and reports the index of the largest
  noisy score (never the score). :func:`selection_probabilities` gives P[candidate i is reported], exactly:

  - ``noise="gumbel"``: Gumbel noise of scale b makes P[i] = softmax(u/b): with b = 2Δ/ε this IS the exponential
    mechanism (McSherry & Talwar 2007; Dwork & Roth 2014, Def. 3.4), ε-DP (Dwork & Roth 2014, Thm 3.10);
  - ``noise="laplace"``: Laplace noise of scale b = 2Δ/ε is ε-DP (Dwork & Roth 2014, Claim 3.9 proves scale Δ/ε for
    monotonic scores such as counts); P[i] = ∫ f_i(y) Π_{j≠i} F_j(y) dy, a one-dimensional integral computed
    piecewise (see :func:`selection_probabilities`);
  - ``noise="exponential"``: exponential noise of scale b = 2Δ/ε is the permute-and-flip mechanism (McKenna &
    Sheldon 2020, Alg. 1), as Ding et al. 2021 showed; P[i] = p_i ∫₀¹ Π_{j≠i} (1 − p_j s) ds with
    p_j = exp((u_j − max u)/b), a polynomial integrated exactly.

  ``monotonic=True`` (every score moves in the same direction between neighbours, e.g. counts) halves every scale
  to Δ/ε, with the same ε-DP guarantee. The law of the reported index depends on the scores only through
  (u_i − max u)/b = (u_i − max u)·ε/(2Δ); every function here works with that ratio (mantissas and exponents
  combined separately), so it gives the right law at every ε > 0 a float can hold, even where b itself overflows.

* :func:`above_threshold` is the sparse vector technique (Dwork & Roth 2014, Alg. 1 for one positive; Lyu, Su & Li
  2017, Alg. 1 for c positives): it answers "is query i above the threshold T?" for a stream of queries and pays only
  for the (at most c) positives. The threshold noise is Z_T ~ Lap(2Δ/ε), drawn once; each query gets fresh noise
  Z_i ~ Lap(4cΔ/ε). :func:`sparse_vector_pattern_probabilities` computes the probability of every output pattern on
  given query answers (a numerical integral over the threshold noise), and :func:`sparse_vector_privacy_loss` /
  :func:`sparse_vector_privacy_check` the largest |ln P[o | x]/P[o | x′]| over patterns and neighbours: ≤ ε for the
  correct algorithm, larger (or ∞) for the broken variants Lyu, Su & Li list.

Neighbouring inputs: each score (each query answer) moves by at most the sensitivity Δ.
"""

from __future__ import annotations

import itertools
import math
import sys
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dpviz._validation import (
    Cap,
    Interval,
    as_rng,
    check_choice,
    check_integer,
    check_positive,
    check_probability,
    check_real_array,
)
from dpviz.mechanisms.exponential import _gumbel_argmax, exponential_mechanism_probabilities

__all__ = [
    "NOISES",
    "SVT_VARIANTS",
    "EXAMPLE_STREAM_LENGTH",
    "noise_scale",
    "report_noisy_max",
    "selection_probabilities",
    "expected_gap",
    "gap_quantile",
    "gap_tail_bound",
    "SparseVectorResult",
    "above_threshold",
    "example_query_stream",
    "sparse_vector_scales",
    "sparse_vector_pattern_probabilities",
    "sparse_vector_privacy_loss",
    "SparseVectorCheck",
    "sparse_vector_privacy_check",
]

#: The noises of report-noisy-max.
NOISES = ("gumbel", "laplace", "exponential")
#: Candidates :func:`selection_probabilities` (and the other exact selection laws) accept. At this size a call takes
#: seconds and tens of MB: the Laplace integrals cost O((k + 16·number of pieces)·64) (series over the scores, not a
#: k × nodes table), the permute-and-flip polynomial O(k²/2), computed in blocks.
CANDIDATES = Cap(10_000, "the candidates of an exact selection law")
#: Queries of the exact sparse-vector computations (they enumerate up to 2ⁿ output patterns and 3ⁿ neighbours).
SVT_EXACT_QUERIES = Cap(8, "the queries of an exact sparse-vector computation, which enumerates 2ⁿ output patterns")
#: Queries one :func:`above_threshold` run accepts (its result holds one answer and one noisy value per query).
SVT_QUERIES = Cap(1_000_000, "the queries of one sparse-vector run")
#: The cutoff c of the sparse-vector functions (the query noise scale 4cΔ/ε grows with c).
SVT_POSITIVES = Interval(1, 1_000_000, integer=True)
#: The length of :func:`example_query_stream`'s stream (a lesson's stream is a prefix of it)
EXAMPLE_STREAM_LENGTH = 60

_GL_NODES = 16  # Gauss–Legendre nodes per piece of the piecewise integrals
_SERIES_TERMS = 64  # terms of the series of ln(1 − y) and y/(1 − y) for y ≤ ½: truncation error below k·2⁻⁶⁴
_SHIFT = 600.0  # the Laplace integrands are summed as e^{S + 600} (no underflow down to S ≈ −1300), then scaled back
_CHUNK = 2_000_000  # most entries of one block of the permute-and-flip table (16 MB)
_FLOAT_MAX = sys.float_info.max
#: Candidates more than this many noise scales below the best are set aside by the Laplace and permute-and-flip
#: integrals: their probability is below e^{−1990} (0 in a float), and their factor F_l = 1 − ½e^{−(y − u_l)/b}
#: (Laplace; p_l = 0 in permute-and-flip) is 1 in a float wherever the others' integrands are evaluated.
_FAR = 2000.0
_LAPLACE_DRAW_MAX = 37.0  # |numpy's standard Laplace draw| ≤ 53·ln 2 ≈ 36.7 (it uses log(2U) with U ≥ 2⁻⁵³)


@lru_cache(maxsize=16)
def _legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    x, w = np.polynomial.legendre.leggauss(n)
    return (x + 1.0) / 2.0, w / 2.0  # on [0, 1]


def _composite_nodes(edges: np.ndarray, n: int = _GL_NODES) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of n-point Gauss–Legendre on each piece [edges[i], edges[i+1]]."""
    x, w = _legendre(n)
    lo, hi = edges[:-1, None], edges[1:, None]
    return (lo + (hi - lo) * x).ravel(), ((hi - lo) * w).ravel()


def _refine(breaks: np.ndarray, h: float) -> np.ndarray:
    """Sorted break points with each gap cut into equal pieces of length ≤ h."""
    out = [breaks[:1]]
    for a, c in zip(breaks[:-1], breaks[1:]):
        m = max(1, math.ceil((c - a) / h))
        out.append(np.linspace(a, c, m + 1)[1:])
    return np.concatenate(out)


def _times_ratio(x, num: float, den: float, exp2=0) -> np.ndarray:
    """x·(num/den)·2^exp2 for finite x and num, den > 0, without an intermediate overflow or underflow: the
    mantissas are multiplied and the exponents added (``np.frexp``/``np.ldexp``), so e.g. 1·(1e308/1e308) is 1, not
    inf/inf. A result beyond the float range is ±inf, one below it 0 or a subnormal (correctly signed)."""
    mx, ex = np.frexp(np.asarray(x, dtype=float))
    mn, en = math.frexp(num)
    md, ed = math.frexp(den)
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(mx * (mn / md), ex + (en - ed) + np.asarray(exp2, dtype=np.int64))


def _scaled_differences(x: np.ndarray, ref: float, num: float, den: float, exp2: int) -> np.ndarray:
    """(x − ref)·(num/den)·2^exp2 for finite x and ref: the difference is rounded once where it is a finite float,
    and taken from the halves x/2 − ref/2 where it overflows; then :func:`_times_ratio`."""
    with np.errstate(over="ignore"):
        d = x - ref
    fine = np.isfinite(d)
    if fine.all():
        return _times_ratio(d, num, den, exp2)
    return _times_ratio(np.where(fine, d, 0.5 * x - 0.5 * ref), num, den, exp2 + np.where(fine, 0, 1))


# ============================================================================================ report-noisy-max


def _check_scores(scores, *, cap: Cap | None = None) -> np.ndarray:
    u = check_real_array(scores, "scores", ndim=1).astype(float)
    if cap is not None:
        cap.check(u.size, "len(scores)")
    return u


def _check_common(epsilon, noise, sensitivity, monotonic) -> tuple[float, str, float, bool]:
    eps = check_positive(epsilon, "epsilon")
    check_choice(noise, "noise", NOISES)
    s = check_positive(sensitivity, "sensitivity")
    if not isinstance(monotonic, (bool, np.bool_)):
        raise ValueError(f"monotonic = {monotonic!r} is not allowed: must be True or False.")
    return eps, noise, s, bool(monotonic)


def _scaled_gaps(u: np.ndarray, eps: float, s: float, mono: bool) -> np.ndarray:
    """(u_i − max u)/b with b = 2Δ/ε (Δ/ε monotonic), ≤ 0, the maximum exactly 0; −inf where the true value is below
    −1.8e308 (those candidates have probability 0 in every noise, to rounding)."""
    return _scaled_differences(u, float(u.max()), eps, s, 0 if mono else -1)


def noise_scale(epsilon: float, sensitivity: float = 1.0, monotonic: bool = False) -> float:
    """The noise scale of ε-DP report-noisy-max, the same for all three noises: b = 2Δ/ε, or Δ/ε for monotonic
    scores (Dwork & Roth 2014, Claim 3.9 and Thm 3.10; McKenna & Sheldon 2020, Thm 1; Ding et al. 2021).

    A scale beyond the float range (e.g. ε = 5e-324) is refused with a ValueError; the mechanisms themselves work at
    such ε, since they only need the ratio ε/Δ.

    >>> noise_scale(0.5), noise_scale(0.5, monotonic=True)
    (4.0, 2.0)
    """
    eps, _, s, mono = _check_common(epsilon, "gumbel", sensitivity, monotonic)
    b = float(_times_ratio(1.0, s, eps, 0 if mono else 1))
    if not 0.0 < b < math.inf:
        raise ValueError(f"epsilon = {epsilon!r} is not allowed here with sensitivity = {sensitivity!r}: the noise "
                         f"scale {'Δ/ε' if mono else '2Δ/ε'} must be a positive float below {_FLOAT_MAX:.4g} (it "
                         "lies outside the float range).")
    return b


def report_noisy_max(scores, epsilon: float, *, noise: str = "gumbel", sensitivity: float = 1.0,
                     monotonic: bool = False, rng=None, size=None):
    """Report-noisy-max: argmax_i (u_i + Z_i) with Z_i i.i.d. noise of scale b = 2Δ/ε (Δ/ε if ``monotonic``).
    ε-DP for every noise (see the module docstring for each one's source). Only the index is released.

    Sampled as argmax_i ((u_i − max u)/b + Z⁰_i) with standard noise Z⁰ (the same index), the ratio computed without
    overflow: the law is right at every ε > 0, also where b = 2Δ/ε is beyond the float range.

    Parameters
    ----------
    scores : array of k real numbers, higher is better.
    epsilon : float > 0.
    noise : ``"gumbel"`` (= the exponential mechanism), ``"laplace"`` or ``"exponential"`` (= permute-and-flip).
    sensitivity : Δ > 0, the most any score moves between neighbouring inputs.
    monotonic : bool, True if all scores move in the same direction between neighbours (halves the scale).
    rng : numpy Generator, int seed or None.
    size : None (one index, an int) or a number of independent runs (an int array); at most 10⁷/k runs.

    >>> report_noisy_max([0.0, 100.0, 0.0], 1.0, rng=0)
    1
    """
    u = _check_scores(scores)
    eps, noise, s, mono = _check_common(epsilon, noise, sensitivity, monotonic)
    runs = None if size is None else check_integer(size, "size", minimum=0, maximum=10_000_000 // max(u.size, 1))
    g = _scaled_gaps(u, eps, s, mono)
    gen = as_rng(rng)
    shape = (u.size,) if runs is None else (runs, u.size)
    if noise == "gumbel":
        out = _gumbel_argmax(np.broadcast_to(g, shape), gen)
    else:
        z = gen.laplace(0.0, 1.0, size=shape) if noise == "laplace" else gen.exponential(1.0, size=shape)
        out = np.argmax(g + z, axis=-1)
    return int(out) if runs is None else np.asarray(out, dtype=np.int64)


def _em_probabilities(u: np.ndarray, eps: float, s: float, mono: bool) -> np.ndarray:
    """softmax(u/b), through the exponential mechanism's one home: on (u, ε, Δ) itself (ε doubled for monotonic
    scores) wherever its rate ε/(2Δ) is an ordinary float, else on the scores already divided by the scale
    (:func:`_scaled_gaps`, rate 1), which is the same law."""
    e, two_s = (2.0 * eps if mono else eps), 2.0 * s
    if math.isfinite(e) and math.isfinite(two_s) and sys.float_info.min <= e / two_s < math.inf:
        return exponential_mechanism_probabilities(u, e, s)
    return exponential_mechanism_probabilities(np.maximum(_scaled_gaps(u, eps, s, mono), -_FLOAT_MAX), 2.0, 1.0)


def _piece_offsets(lo: np.ndarray, hi: np.ndarray, slope: np.ndarray, A1: np.ndarray,
                   step: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cut each segment [lo_j, hi_j] (offsets from its left score, hi_j = its width) into pieces over which
    V_j(o) = slope_j·o − A1_j·e^{−o} moves by at most ``step`` (V_j increasing and concave; break points by
    bisection). Returns (segment index, piece start, piece end) of every piece."""
    total = slope * (hi - lo) + A1 * (np.exp(-lo) - np.exp(-hi))
    n = np.maximum(1, np.ceil(total / step)).astype(np.int64)
    seg = np.repeat(np.arange(lo.size), n)
    first = np.cumsum(n) - n
    idx = np.arange(seg.size) - first[seg]  # piece number within its segment
    target = total[seg] * idx / n[seg]  # V at each piece's start, relative to the segment's start
    a, b = lo[seg].copy(), hi[seg].copy()
    inner = idx > 0
    if inner.any():
        sl, A, base = slope[seg], A1[seg], np.exp(-lo[seg])
        x0, x1 = a.copy(), b.copy()
        for _ in range(60):
            mid = 0.5 * (x0 + x1)
            below = sl * (mid - lo[seg]) + A * (base - np.exp(-mid)) < target
            x0, x1 = np.where(below, mid, x0), np.where(below, x1, mid)
        a = np.where(inner, 0.5 * (x0 + x1), a)
    b = np.r_[a[1:], 0.0]
    last = np.r_[seg[1:] != seg[:-1], True]
    b = np.where(last, hi[seg], b)
    return seg, a, b


def _laplace_probabilities(vals: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """P[a given candidate of each distinct score wins] for Laplace noise of scale 1 (distinct scores ``vals`` in
    units of the scale, ascending, the largest 0, with multiplicities ``counts``; k = Σ counts, m distinct).

    P_a = ∫ (f_a/F_a)(y) e^{S(y)} dy with S = Σ_l c_l ln F_l (F_l, f_l: the law of score l plus noise). Then
    f_a/F_a = 1 below v_a and y/(1 − y) = Σ_{n≥1} yⁿ above it (y = ½e^{−(x − v_a)} ≤ ½), and between two scores
    S(x) = Σ_{l above} c_l(ln ½ − (v_l − x)) + Σ_{l below} c_l ln(1 − ½e^{−(x − v_l)}), the second sum by the series
    ln(1 − y) = −Σ yⁿ/n: every sum over candidates becomes a recurrence over the sorted scores (O(64·(m + nodes)),
    no m × nodes table). The quadrature is unchanged by the series (it is linear), only truncated at 64 terms
    (error < k·2⁻⁶⁴ in S):

    * x < min u: S(x) = S(min u) + k(x − min u), integrated exactly: (1/k)·e^{S(min u)};
    * between the scores: composite 16-point Gauss–Legendre, split at every score, on pieces over which the log of
      every integrand moves by at most about 8; where S < −(840 + ln 4k) the rest of the integral, ≤ e^{S} (S′ ≥ 1
      there), is dropped: at most e^{−40} of any P_a that a float can hold (P_a ≥ e^{v_a}/(4k));
    * x > max u: with t = e^{−x}, P_a gets a_a Σ_n a_aⁿ ∫₀¹ tⁿ Π_l(1 − a_l t)^{c_l} dt, a_l = ½e^{v_l}, Gauss–Legendre
      in t on pieces of width ≤ 32/k.

    Summed as e^{S + 600} (no underflow of small integrands) and scaled back. Accurate to ~1e-12 relative (tested
    against mpmath, and against the direct m × nodes evaluation on thousands of distinct scores).
    """
    k, m, NT = float(counts.sum()), vals.size, _SERIES_TERMS
    n = np.arange(1, NT + 1, dtype=float)
    coef_log, coef_frac = 0.5 ** n / n, 0.5 ** n
    ln_half = math.log(0.5)
    width = np.diff(vals)  # Δ_j = v_{j+1} − v_j > 0
    above = k - np.cumsum(counts)  # candidates strictly above v_j
    D = np.zeros(m)  # D_j = Σ_{l>j} c_l (v_l − v_j) = D_{j+1} + above_j·Δ_j
    D[:-1] = np.cumsum((above[:-1] * width)[::-1])[::-1]
    decay = np.exp(-np.outer(width, n))  # e^{−nΔ_j}
    A = np.empty((m, NT))  # A_j^{(n)} = Σ_{l≤j} c_l e^{−n(v_j − v_l)}
    A[0] = counts[0]
    for j in range(1, m):
        A[j] = A[j - 1] * decay[j - 1] + counts[j]
    S_at = above * ln_half - D - A @ coef_log  # S(v_j)
    cut = 840.0 + math.log(4.0 * k)
    low = np.nonzero(S_at < -cut)[0]
    J = int(low[-1]) if low.size else -1
    left = math.exp(S_at[0] + _SHIFT) / k if J < 0 else 0.0

    L = np.full(m, left)
    R = np.zeros(m)
    if J < m - 1:  # some of the middle is kept: segments J.., the first from where the "above" part of S is −cut
        segs = np.arange(max(J, 0), m - 1)
        lo = np.zeros(segs.size)
        if J >= 0:
            delta = (cut - D[J + 1]) / above[J] + ln_half  # S ≤ above-part = −cut at v_{J+1} − delta
            lo[0] = min(max(width[J] - delta, 0.0), width[J])
        seg_rel, a, b = _piece_offsets(lo, width[segs], 1.0 + above[segs], A[segs, 0], 8.0)
        seg = segs[seg_rel]
        t, wt = _legendre(_GL_NODES)
        o = (a[:, None] + (b - a)[:, None] * t).ravel()  # offsets from the segment's left score
        w = ((b - a)[:, None] * wt).ravel()
        seg = np.repeat(seg, _GL_NODES)
        S = above[seg] * (ln_half - (width[seg] - o)) - D[seg + 1]
        E = np.exp(-o)
        P = np.ones_like(o)
        for i in range(NT):
            P *= E
            S -= coef_log[i] * P * A[seg, i]
        W = w * np.exp(S + _SHIFT)
        L += np.r_[0.0, np.cumsum(np.bincount(seg, W, minlength=m - 1))]
        s_n = np.empty((m - 1, NT))  # Σ over the nodes of segment j of W·e^{−n·o}
        P = np.ones_like(o)
        for i in range(NT):
            P *= E
            s_n[:, i] = np.bincount(seg, W * P, minlength=m - 1)
        G = np.zeros((m, NT))
        for j in range(m - 2, -1, -1):
            G[j] = s_n[j] + decay[j] * G[j + 1]
        R = G @ coef_frac
    mid = (L + R) * math.exp(-_SHIFT)

    pieces = max(1, math.ceil(k / (2 * _GL_NODES)))
    t, wt = _composite_nodes(np.linspace(0.0, 1.0, pieces + 1))
    log_a = ln_half + vals
    powers = np.exp(np.outer(log_a, np.arange(1, NT + 2)))  # a_l^{n}, n = 1..NT+1
    p_n = counts @ powers[:, :NT]  # Σ_l c_l a_lⁿ
    tp = t[:, None] ** np.arange(0, NT + 1)  # tⁿ, n = 0..NT
    e_t = np.exp(-(tp[:, 1:] @ (p_n / n)))  # Π_l (1 − a_l t)^{c_l}
    moments = (wt * e_t) @ tp  # ∫ tⁿ Π(1 − a_l t)^{c_l} dt
    right = powers @ moments
    return mid + right


def _pf_probabilities(vals: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Permute-and-flip (= report-noisy-max with exponential noise of scale 1; ``vals`` in units of the scale, the
    largest 0): P[a given candidate of score v_a] = p_a ∫₀¹ e^{S(s)} / (1 − p_a s) ds with
    S(s) = Σ_l c_l ln(1 − p_l s) and p_l = exp(v_l) (each candidate draws a uniform arrival time s and is accepted
    with probability p; the first accepted is output — McKenna & Sheldon 2020, Alg. 1).

    The integrand is a polynomial of degree k − 1: Gauss–Legendre on pieces of width ≤ 32/k (exact for k ≤ 32).
    Candidates with p_l ≤ ½ enter through series, ln(1 − p s) = −Σ (ps)ⁿ/n and 1/(1 − p s) = Σ (ps)ⁿ (64 terms,
    truncation < 2⁻⁶⁴): power sums and moments ∫ sⁿ e^{S}, no k × nodes table; the others directly, in blocks of at
    most 2·10⁶ entries. Where S < −(40 + ln 2k) at an s ≤ ½ the rest of the integral is dropped: it is at most
    2k·e^{−40 − ln 2k}·p_a, below e^{−40} of P_a ≥ p_a/k (the chance that a comes first and is accepted).
    """
    k = float(counts.sum())
    NT = _SERIES_TERMS
    pieces = max(1, math.ceil(k / (2 * _GL_NODES)))
    edges = np.linspace(0.0, 1.0, pieces + 1)
    p = np.exp(vals)
    high = np.nonzero(p > 0.5)[0]
    low = np.nonzero(p <= 0.5)[0]
    orders = np.arange(1, NT + 1, dtype=float)
    powers = np.exp(np.outer(vals[low], np.arange(1, NT + 2)))  # p_lⁿ, n = 1..NT+1, low rows
    p_n = counts[low] @ powers[:, :NT]
    rows = max(1, _CHUNK // max(edges.size, 16 * pieces))
    blocks = [high[i:i + rows] for i in range(0, high.size, rows)]

    def S_of(s: np.ndarray) -> np.ndarray:
        out = -((s[:, None] ** orders) @ (p_n / orders))
        for blk in blocks:  # the top group has p = 1: log1p(−s) is finite for s < 1
            out += counts[blk] @ np.log1p(-np.outer(p[blk], s))
        return out

    inner = edges[1:-1][edges[1:-1] <= 0.5]
    if inner.size:
        below = np.nonzero(S_of(inner) < -(40.0 + math.log(2.0 * k)))[0]
        if below.size:
            edges = edges[:below[0] + 2]
    s, ws = _composite_nodes(edges)
    weight = ws * np.exp(S_of(s) + _SHIFT)
    out = np.empty(vals.size)
    for blk in blocks:
        out[blk] = p[blk] * ((1.0 / (1.0 - np.outer(p[blk], s))) @ weight)
    out[low] = powers @ (weight @ (s[:, None] ** np.arange(0, NT + 1)))  # p_a Σ_n p_aⁿ ∫ sⁿ e^{S}
    return out * math.exp(-_SHIFT)


def selection_probabilities(scores, epsilon: float, *, noise: str = "gumbel", sensitivity: float = 1.0,
                            monotonic: bool = False) -> np.ndarray:
    """P[report-noisy-max reports candidate i], for each i, for the given noise at scale b = 2Δ/ε (Δ/ε monotonic).

    * ``"gumbel"``: softmax(u/b) — the exponential mechanism's probabilities
      (:func:`dpviz.mechanisms.exponential_mechanism_probabilities`), exact to rounding;
    * ``"laplace"``: ∫ f_i(y) Π_{j≠i} F_j(y) dy, a 1-D integral: exact closed form below the lowest score,
      Gauss–Legendre above the highest and between the scores (composite, pieces short enough that the integrand's
      log moves by ≤ 8 over each), sums over the candidates as series recurrences (:func:`_laplace_probabilities`):
      ~1e-12 relative accuracy (tested against mpmath);
    * ``"exponential"``: permute-and-flip's p_i ∫₀¹ Π_{j≠i}(1 − p_j s) ds, p_j = e^{(u_j − max u)/b} (McKenna &
      Sheldon 2020; equal to exponential noise by Ding et al. 2021), a polynomial integrated by Gauss–Legendre
      (exact for k ≤ 32).

    All three work in units of the scale, (u_i − max u)/b, computed without overflow: right at every ε > 0 and every
    spread of the scores. At most :data:`CANDIDATES` candidates. Ties get equal probabilities; the result sums to
    1 up to rounding (and is renormalised).

    >>> selection_probabilities([1.0, 1.0], 1.0, noise="laplace").tolist()
    [0.5, 0.5]
    """
    u = _check_scores(scores, cap=CANDIDATES)
    eps, noise, s, mono = _check_common(epsilon, noise, sensitivity, monotonic)
    if noise == "gumbel":
        return _em_probabilities(u, eps, s, mono)
    g = _scaled_gaps(u, eps, s, mono)
    keep = g >= -_FAR  # farther below the best: probability < e^{−1990}, and no effect on the others' integrals
    vals, inverse, counts = np.unique(g[keep], return_inverse=True, return_counts=True)
    p = np.zeros(u.size)
    if vals.size == 1:
        p[keep] = 1.0 / np.count_nonzero(keep)
        return p
    kernel = _laplace_probabilities if noise == "laplace" else _pf_probabilities
    p[keep] = kernel(vals, counts.astype(float))[inverse.ravel()]
    return p / p.sum()


def _gaps_of(u: np.ndarray) -> tuple[np.ndarray, int]:
    """(max u − u, 0), or its halves (max u/2 − u/2, 1) where the difference overflows: gap = value·2^exponent."""
    with np.errstate(over="ignore"):
        gaps = u.max() - u
    if np.all(np.isfinite(gaps)):
        return gaps, 0
    return 0.5 * u.max() - 0.5 * u, 1


def _ldexp(x: float, e: int) -> float:
    """x·2^e, inf where that overflows (math.ldexp raises OverflowError)."""
    try:
        return math.ldexp(x, e)
    except OverflowError:
        return math.copysign(math.inf, x)


def _finite_result(value: float, what: str, scores: np.ndarray) -> float:
    if not math.isfinite(value):
        raise ValueError(f"scores spanning {float(scores.min())!r} to {float(scores.max())!r} are not allowed here: "
                         f"{what} must be a float below {_FLOAT_MAX:.4g} (it overflows).")
    return value


def expected_gap(scores, epsilon: float, *, noise: str = "gumbel", sensitivity: float = 1.0,
                 monotonic: bool = False) -> float:
    """E[max u − u_reported] = Σ_i P[i]·(max u − u_i), from the exact :func:`selection_probabilities`."""
    u = _check_scores(scores, cap=CANDIDATES)
    p = selection_probabilities(u, epsilon, noise=noise, sensitivity=sensitivity, monotonic=monotonic)
    gaps, e = _gaps_of(u)
    return _finite_result(_ldexp(float(np.dot(p, gaps)), e), "the expected gap", u)


def gap_quantile(scores, epsilon: float, beta: float, *, noise: str = "gumbel", sensitivity: float = 1.0,
                 monotonic: bool = False) -> float:
    """The smallest gap g with P[max u − u_reported > g] ≤ β (from the exact probabilities)."""
    bt = check_probability(beta, "beta", open_low=True, open_high=True)
    u = _check_scores(scores, cap=CANDIDATES)
    p = selection_probabilities(u, epsilon, noise=noise, sensitivity=sensitivity, monotonic=monotonic)
    gaps, e = _gaps_of(u)
    order = np.argsort(gaps, kind="stable")
    g, q = gaps[order], p[order]
    tail = 1.0 - np.cumsum(q)  # P[gap > g_(i)] (exceeding the i-th smallest)
    ok = np.nonzero(tail <= bt * (1 + 1e-12))[0]
    value = float(g[ok[0]]) if ok.size else float(g[-1])
    return _finite_result(_ldexp(value, e), "the gap quantile", u)


def gap_tail_bound(k: int, epsilon: float, beta: float, *, sensitivity: float = 1.0, monotonic: bool = False) -> float:
    """(2Δ/ε)·ln(k/β): the exponential mechanism's gap exceeds it with probability at most β (Dwork & Roth 2014,
    Cor. 3.12: P[u(M) ≤ OPT − (2Δ/ε)(ln k + t)] ≤ e^{−t}, with β = e^{−t}); (Δ/ε)·ln(k/β) for monotonic scores.
    Any integer k ≥ 1 (ln k is taken of the integer itself); a bound beyond the float range is refused.

    >>> round(gap_tail_bound(10, 1.0, 0.05), 4)
    10.5966
    """
    kk = check_integer(k, "k", minimum=1)
    bt = check_probability(beta, "beta", open_low=True, open_high=True)
    eps, _, s, mono = _check_common(epsilon, "gumbel", sensitivity, monotonic)
    value = float(_times_ratio(math.log(kk) - math.log(bt), s, eps, 0 if mono else 1))
    if not math.isfinite(value):
        raise ValueError(f"epsilon = {epsilon!r} is not allowed here with sensitivity = {sensitivity!r} and k = "
                         f"{kk}: the bound (2Δ/ε)·ln(k/β) must be a float below {_FLOAT_MAX:.4g} (it overflows).")
    return value


# ============================================================================================ sparse vector

#: The sparse-vector variants of the exact check, with their description as the lessons show it (ε₁ = ε₂ = ε/2 in
#: Lyu, Su & Li 2017: threshold noise Z_T ~ Lap(Δ/ε₁) = Lap(2Δ/ε), query noise Z_i as listed).
SVT_VARIANTS = {
    "correct": "AboveThreshold: Z<sub>T</sub> ~ Lap(2Δ/ε), Z<sub>i</sub> ~ Lap(4cΔ/ε), halt after c positives "
               "(Lyu, Su & Li 2017, Alg. 1; Dwork & Roth 2014, Alg. 1 for c = 1)",
    "no_query_noise": "no noise on the queries, Z<sub>i</sub> = 0 (a broken variant: Lyu, Su & Li 2017, Alg. 5)",
    "no_cutoff": "query noise Z<sub>i</sub> ~ Lap(2Δ/ε) and no halting: every query may be ⊤ (a broken variant: "
                 "Lyu, Su & Li 2017, Alg. 6)",
}
# the query noise scale of each variant in units of the threshold noise scale 2Δ/ε
_QUERY_NOISE_RATIO = {"correct": lambda c: 2.0 * c, "no_query_noise": lambda c: 0.0, "no_cutoff": lambda c: 1.0}


def _check_svt_common(epsilon, sensitivity, max_positives, variant) -> tuple[float, float, int]:
    eps = check_positive(epsilon, "epsilon")
    s = check_positive(sensitivity, "sensitivity")
    c = SVT_POSITIVES.check(max_positives, "max_positives")
    check_choice(variant, "variant", tuple(SVT_VARIANTS))
    return eps, s, c


def sparse_vector_scales(epsilon: float, sensitivity: float = 1.0, max_positives: int = 1,
                         variant: str = "correct") -> tuple[float, float, int | None]:
    """(threshold-noise scale, query-noise scale, cutoff c or None) of a variant, with ε₁ = ε₂ = ε/2
    (Lyu, Su & Li 2017, Alg. 1: Z_T ~ Lap(Δ/ε₁), Z_i ~ Lap(2cΔ/ε₂), halt after c positives). Scales beyond the float
    range are refused (the exact laws of this module work at any ε: they only need the ratio ε/Δ).

    >>> sparse_vector_scales(1.0)
    (2.0, 4.0, 1)
    """
    eps, s, c = _check_svt_common(epsilon, sensitivity, max_positives, variant)
    ratio = _QUERY_NOISE_RATIO[variant](c)
    t_scale = float(_times_ratio(2.0, s, eps))
    q_scale = float(_times_ratio(2.0 * ratio, s, eps))
    if not (0.0 < t_scale < math.inf) or not (ratio == 0.0 or 0.0 < q_scale < math.inf):
        raise ValueError(f"epsilon = {epsilon!r} is not allowed here with sensitivity = {sensitivity!r}: the noise "
                         f"scales 2Δ/ε and {'4cΔ/ε' if variant == 'correct' else '2Δ/ε'} must be positive floats "
                         f"below {_FLOAT_MAX:.4g} (they lie outside the float range).")
    return t_scale, q_scale, (None if variant == "no_cutoff" else c)


def _check_flags(value, name: str) -> tuple[bool, ...]:
    if not isinstance(value, (tuple, list)) or not all(isinstance(a, (bool, np.bool_)) for a in value):
        raise ValueError(f"{name} = {value!r} is not allowed: must be a tuple of True/False values.")
    return tuple(bool(a) for a in value)


def _check_finite_tuple(value, name: str) -> tuple[float, ...]:
    arr = check_real_array(list(value) if isinstance(value, tuple) else value, name, ndim=1, allow_empty=True)
    return tuple(float(v) for v in arr)


def _check_number(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} = {value!r} is not allowed: must be a finite number.")
    try:
        x = float(value)
    except OverflowError:
        x = math.inf
    if not math.isfinite(x):
        raise ValueError(f"{name} = {value!r} is not allowed: must be a finite number.")
    return x


@dataclass(frozen=True)
class SparseVectorResult:
    """One run of :func:`above_threshold`.

    ``answers[i]`` is True (⊤, above) or False (⊥) for the queries processed; after the c-th ⊤ the algorithm halts
    and the later queries get no answer. ``noisy_threshold`` (T + Z_T) and ``noisy_queries`` (q_i + Z_i) are the
    algorithm's internal state, returned for teaching only: releasing them is NOT private. ``epsilon_spent`` =
    ε/2 + (#⊤)·ε/(2c): the threshold's share, then ε/(2c) per positive, negatives free (Lyu, Su & Li 2017, Thm 2).
    That is an accounting after the run (ex post); the guarantee fixed before it is ε. The constructor checks every
    field.
    """

    answers: tuple[bool, ...]
    positives: tuple[int, ...]
    halted: bool
    noisy_threshold: float
    noisy_queries: tuple[float, ...]
    epsilon: float
    epsilon_spent: float
    max_positives: int

    def __post_init__(self):
        answers = _check_flags(self.answers, "answers")
        if not isinstance(self.positives, (tuple, list)) or any(
                isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) for i in self.positives):
            raise ValueError(f"positives = {self.positives!r} is not allowed: must be a tuple of query indices.")
        positives = tuple(int(i) for i in self.positives)
        if positives != tuple(i for i, a in enumerate(answers) if a):
            raise ValueError(f"positives = {positives!r} is not allowed: must list the indices of the True answers "
                             f"{answers!r}.")
        if not isinstance(self.halted, (bool, np.bool_)):
            raise ValueError(f"halted = {self.halted!r} is not allowed: must be True or False.")
        c = SVT_POSITIVES.check(self.max_positives, "max_positives")
        if len(positives) > c or bool(self.halted) != (len(positives) == c):
            raise ValueError(f"halted = {self.halted!r} is not allowed with {len(positives)} positives and "
                             f"max_positives = {c}: must be True exactly when the c-th positive was reached.")
        noisy = _check_finite_tuple(self.noisy_queries, "noisy_queries")
        if len(noisy) != len(answers):
            raise ValueError(f"noisy_queries has {len(noisy)} values, which is not allowed: must have one per answer "
                             f"({len(answers)}).")
        eps = check_positive(self.epsilon, "epsilon")
        spent = check_positive(self.epsilon_spent, "epsilon_spent", allow_zero=True)
        if spent > eps * (1 + 1e-12):
            raise ValueError(f"epsilon_spent = {spent!r} is not allowed: must be at most epsilon = {eps!r}.")
        for name, value in (("answers", answers), ("positives", positives), ("halted", bool(self.halted)),
                            ("noisy_threshold", _check_number(self.noisy_threshold, "noisy_threshold")),
                            ("noisy_queries", noisy), ("epsilon", eps), ("epsilon_spent", spent),
                            ("max_positives", c)):
            object.__setattr__(self, name, value)


def above_threshold(queries, threshold: float, epsilon: float, *, sensitivity: float = 1.0, max_positives: int = 1,
                    rng=None) -> SparseVectorResult:
    """The sparse vector technique: for each query answer q_i in turn, report ⊤ if q_i + Z_i ≥ T + Z_T, else ⊥; halt
    after ``max_positives`` = c positives. Z_T ~ Lap(2Δ/ε) is drawn once, Z_i ~ Lap(4cΔ/ε) afresh for each query
    (ε₁ = ε₂ = ε/2 in Lyu, Su & Li 2017, Alg. 1; for c = 1 this is Dwork & Roth 2014, Alg. 1, AboveThreshold).
    ε-DP however many queries are asked, when each query moves by at most Δ between neighbours.

    The comparisons are made in units of the threshold scale, (q_i − T)·ε/(2Δ) + 2c·Z⁰_i ≥ Z⁰_T with standard
    draws Z⁰ (the same decisions), so a tie q_i = T keeps its noise at every ε. At most :data:`SVT_QUERIES`
    queries; ε must leave the noisy values T + Z_T and q_i + Z_i inside the float range.

    >>> r = above_threshold([0.0, 0.0, 1000.0, 0.0], 500.0, 1.0, rng=0)
    >>> r.answers, r.positives, r.halted
    ((False, False, True), (2,), True)
    """
    q = check_real_array(queries, "queries", ndim=1).astype(float)
    SVT_QUERIES.check(q.size, "len(queries)")
    t = _check_threshold(threshold)
    eps = check_positive(epsilon, "epsilon")
    s = check_positive(sensitivity, "sensitivity")
    c = check_integer(max_positives, "max_positives", minimum=1, maximum=max(1, q.size))
    t_scale, q_scale, _ = sparse_vector_scales(eps, s, c)
    reach = max(abs(t) + _LAPLACE_DRAW_MAX * t_scale, float(np.max(np.abs(q))) + _LAPLACE_DRAW_MAX * q_scale)
    if not reach <= _FLOAT_MAX:
        raise ValueError(f"epsilon = {epsilon!r} is not allowed here with sensitivity = {sensitivity!r} and these "
                         f"queries: the noisy values T + Z_T and q_i + Z_i must stay below {_FLOAT_MAX:.4g} (the noise "
                         f"scale 4cΔ/ε = {q_scale:.4g} is too large).")
    g = as_rng(rng)
    z_t = float(g.laplace(0.0, 1.0))
    z = g.laplace(0.0, 1.0, size=q.size)
    up = _scaled_differences(q, t, eps, s, -1) + 2.0 * c * z >= z_t
    hits = np.nonzero(up)[0]
    n_done = int(hits[c - 1]) + 1 if hits.size >= c else q.size
    answers = tuple(bool(a) for a in up[:n_done])
    pos = tuple(int(i) for i in hits[hits < n_done])
    noisy = q[:n_done] + q_scale * z[:n_done]
    spent = eps / 2.0 + len(pos) * (eps / 2.0) / c
    return SparseVectorResult(answers, pos, len(pos) == c, t + t_scale * z_t, tuple(noisy.tolist()), eps,
                              min(spent, eps), c)


def example_query_stream(n: int, rng=None) -> np.ndarray:
    """A stream of ``n`` counting-query answers for a sparse-vector demonstration: counts between 0 and 100,
    round(N(45, 18²)) clipped, the first ``n`` of :data:`EXAMPLE_STREAM_LENGTH` drawn from ``rng`` (a seed gives the
    same stream every time, and a shorter stream is a prefix of a longer one). 1 ≤ n ≤ EXAMPLE_STREAM_LENGTH.

    >>> example_query_stream(5, 0).tolist()
    [47.0, 43.0, 57.0, 47.0, 35.0]
    """
    k = check_integer(n, "n", minimum=1, maximum=EXAMPLE_STREAM_LENGTH)
    g = as_rng(rng)
    return np.clip(np.round(g.normal(45.0, 18.0, size=EXAMPLE_STREAM_LENGTH)), 0, 100)[:k]


def _laplace_log_sf(x: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """(ln P[Z ≥ x], ln P[Z < x]) for Z ~ Lap(scale); scale 0 means Z = 0 (logs of 0/1 indicators)."""
    if scale == 0.0:
        up = x <= 0
        with np.errstate(divide="ignore"):
            return np.log(up.astype(float)), np.log((~up).astype(float))
    z = x / scale
    half = math.log(0.5)
    log_sf = np.where(z >= 0, half - np.maximum(z, 0.0), np.log1p(-0.5 * np.exp(np.minimum(z, 0.0))))
    log_cdf = np.where(z < 0, half + np.minimum(z, 0.0), np.log1p(-0.5 * np.exp(-np.maximum(z, 0.0))))
    return log_sf, log_cdf


def _patterns(n: int, c: int | None) -> list[tuple[bool, ...]]:
    """Every possible output: answer sequences that stop at the c-th ⊤ (or run to the end)."""
    out = []
    for bits in itertools.product((False, True), repeat=n):
        cut = None
        if c is not None:
            ones = np.nonzero(bits)[0]
            if ones.size >= c:
                cut = int(ones[c - 1]) + 1
        pat = bits if cut is None else bits[:cut]
        if pat not in out:
            out.append(pat)
    return out


def _check_svt(queries, threshold, epsilon, sensitivity, max_positives, variant):
    """Validated (queries, T, ε, Δ, query-noise ratio, cutoff) and the queries in units of the threshold noise scale
    2Δ/ε, measured from T: q′_i = (q_i − T)·ε/(2Δ) (then T′ = 0, Z_T ~ Lap(1), Z_i ~ Lap(ratio))."""
    q = check_real_array(queries, "queries", ndim=1).astype(float)
    SVT_EXACT_QUERIES.check(q.size, "len(queries)")
    T = _check_threshold(threshold)
    eps, s, c = _check_svt_common(epsilon, sensitivity, max_positives, variant)
    ratio = _QUERY_NOISE_RATIO[variant](c)
    return q, T, eps, s, ratio, (None if variant == "no_cutoff" else c)


def _check_threshold(threshold) -> float:
    return _check_number(threshold, "threshold")


def sparse_vector_pattern_probabilities(queries, threshold: float, epsilon: float, *, sensitivity: float = 1.0,
                                        max_positives: int = 1, variant: str = "correct") -> dict:
    """P[output pattern] for every pattern of a sparse-vector ``variant`` on the query answers ``queries``.

    Given the threshold noise Z_T = z the answers are independent, so P[pattern] = ∫ f_{Z_T}(z) Π_i P[a_i | z] dz
    with P[⊤_i | z] = P[Z_i ≥ T + z − q_i]. Computed in units of the threshold noise scale 2Δ/ε (so at any ε > 0). A
    numerical integral: 16-point Gauss–Legendre on pieces over which the integrand's log moves by at most 4, split at
    every kink (z = 0 and z = q_i − T), over the z-range where Z_T has all but e^{−60} of its mass (the rest,
    < 1e-26, is dropped): accurate to ~1e-12 relative (tested against mpmath).

    Returns a dict {pattern (tuple of bools): probability}; the probabilities sum to 1.
    """
    q, T, eps, s, ratio, c = _check_svt(queries, threshold, epsilon, sensitivity, max_positives, variant)
    return _svt_probs(_scaled_differences(q, T, eps, s, -1), ratio, c, _patterns(q.size, c))


def _svt_probs(q, nu, c, patterns) -> dict:
    """P[pattern] for queries q measured from the threshold in units of the threshold noise (Z_T ~ Lap(1)), query
    noise Lap(nu) (nu = 0: none)."""
    kinks = np.unique(np.concatenate([[0.0], q]))
    # the integrand's log-slope is at most 1 + n/(query noise scale) between kinks: pieces over which it moves by ≤ 4
    h = min(0.5 * (1 + (q.size / nu if nu > 0 else 0.0)), 4.0 / (1.0 + (q.size / nu if nu > 0 else 0.0)))
    with np.errstate(over="ignore", invalid="ignore"):
        span = (kinks[-1] - kinks[0] + 120.0) / h
    if not span <= 200_000:
        raise ValueError("queries span too many noise scales for the exact computation: (q_i − T)·ε/(2Δ) must span at "
                         "most 100000 (lower epsilon or the spread of the queries and the threshold).")
    breaks = np.concatenate([[kinks[0] - 60.0], kinks, [kinks[-1] + 60.0]])
    z, w = _composite_nodes(_refine(breaks, h))
    log_f = math.log(0.5) - np.abs(z)
    log_up, log_down = _laplace_log_sf(z[None, :] - q[:, None], nu)  # (n, N)
    floor = -1e300  # log 0 as a finite number, so that 0·log 0 = 0 in the products below
    A = np.zeros((len(patterns), q.size))
    B = np.zeros((len(patterns), q.size))
    for r, pat in enumerate(patterns):
        sel = np.array(pat, dtype=bool)
        A[r, :sel.size] = sel
        B[r, :sel.size] = ~sel
    tot = log_f[None, :] + A @ np.maximum(log_up, floor) + B @ np.maximum(log_down, floor)
    probs = np.exp(tot) @ w
    return {pat: float(p) for pat, p in zip(patterns, probs)}


def _loss(a: float, b: float) -> float:
    return math.inf if b == 0 else (-math.inf if a == 0 else math.log(a) - math.log(b))


def sparse_vector_privacy_loss(queries, neighbour, threshold: float, epsilon: float, *, sensitivity: float = 1.0,
                               max_positives: int = 1, variant: str = "correct") -> dict:
    """ln(P[o | x]/P[o | x′]) for every output pattern o, x = ``queries``, x′ = ``neighbour`` (each answer moved
    by at most Δ): +inf where only x can output o, −inf where only x′ can. Exact up to the integral's ~1e-12."""
    q, T, eps, s, ratio, c = _check_svt(queries, threshold, epsilon, sensitivity, max_positives, variant)
    q2 = check_real_array(neighbour, "neighbour", ndim=1).astype(float)
    with np.errstate(over="ignore"):
        far = q2.shape != q.shape or bool(np.any(np.abs(q2 - q) > s * (1 + 1e-12)))
    if far:
        raise ValueError(f"neighbour = {q2.tolist()!r} is not allowed: must have the length of queries and differ "
                         f"from it by at most the sensitivity {s!r} in each query.")
    pats = _patterns(q.size, c)
    p1 = _svt_probs(_scaled_differences(q, T, eps, s, -1), ratio, c, pats)
    p2 = _svt_probs(_scaled_differences(q2, T, eps, s, -1), ratio, c, pats)
    return {o: _loss(p1[o], p2[o]) for o in pats if p1[o] != 0 or p2[o] != 0}


@dataclass(frozen=True)
class SparseVectorCheck:
    """The result of :func:`sparse_vector_privacy_check`: the largest |privacy loss|, the pattern and the neighbour x′
    where it occurs, and whether it stays within ε (with a 1e-9 allowance for the integral's rounding). The
    constructor checks every field."""

    max_loss: float
    pattern: tuple[bool, ...]
    neighbour: tuple[float, ...]
    epsilon: float

    def __post_init__(self):
        loss = self.max_loss
        try:
            x = float(loss) if isinstance(loss, (int, float, np.integer, np.floating)) else math.nan
        except OverflowError:  # an int beyond the float range
            x = math.nan
        if isinstance(loss, (bool, np.bool_)) or math.isnan(x) or x < 0:
            raise ValueError(f"max_loss = {loss!r} is not allowed: must be a float >= 0 (inf allowed).")
        for name, value in (("max_loss", x), ("pattern", _check_flags(self.pattern, "pattern")),
                            ("neighbour", _check_finite_tuple(self.neighbour, "neighbour")),
                            ("epsilon", check_positive(self.epsilon, "epsilon"))):
            object.__setattr__(self, name, value)

    @property
    def passes(self) -> bool:
        return self.max_loss <= self.epsilon * (1 + 1e-9)


def sparse_vector_privacy_check(queries, threshold: float, epsilon: float, *, sensitivity: float = 1.0,
                                max_positives: int = 1, variant: str = "correct") -> SparseVectorCheck:
    """max over patterns o and the 3ⁿ − 1 neighbours x′ = x + Δ·s (s ∈ {−1, 0, 1}ⁿ) of |ln P[o | x]/P[o | x′]|.
    ε-DP requires ≤ ε; the correct algorithm passes, the broken variants of :data:`SVT_VARIANTS` fail."""
    q, T, eps, s, ratio, c = _check_svt(queries, threshold, epsilon, sensitivity, max_positives, variant)
    with np.errstate(over="ignore"):
        if not np.all(np.isfinite(np.abs(q) + s)):
            raise ValueError(f"sensitivity = {sensitivity!r} is not allowed with these queries: every neighbour "
                             f"q_i ± Δ must be a float below {_FLOAT_MAX:.4g}.")
    pats = _patterns(q.size, c)
    scaled = _scaled_differences(q, T, eps, s, -1)
    step = eps / 2.0  # Δ in units of the threshold noise scale 2Δ/ε
    base = _svt_probs(scaled, ratio, c, pats)
    best = (-1.0, pats[0], np.zeros(q.size))
    for shift in itertools.product((-1.0, 0.0, 1.0), repeat=q.size):
        if not any(shift):
            continue
        with np.errstate(over="ignore"):
            other = _svt_probs(scaled + step * np.array(shift), ratio, c, pats)
        for o in pats:
            a, b = base[o], other[o]
            if a == 0 and b == 0:
                continue
            loss = abs(_loss(a, b))
            if loss > best[0]:
                best = (loss, o, np.array(shift))
    return SparseVectorCheck(best[0], best[1], tuple((q + s * best[2]).tolist()), eps)
