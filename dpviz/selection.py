"""Private selection: report-noisy-max (Gumbel, Laplace or exponential noise) and the sparse vector technique.

* :func:`report_noisy_max` adds independent noise to each candidate's score and reports the index of the largest
  noisy score (never the score). :func:`selection_probabilities` gives P[candidate i is reported], exactly:

  - ``noise="gumbel"``: Gumbel noise of scale b makes P[i] = softmax(u/b): with b = 2Δ/ε this IS the exponential
    mechanism (McSherry & Talwar 2007; Dwork & Roth 2014, Def. 3.4), ε-DP (Dwork & Roth 2014, Thm 3.10);
  - ``noise="laplace"``: Laplace noise of scale b = 2Δ/ε is ε-DP (Dwork & Roth 2014, Claim 3.9 proves scale Δ/ε for
    monotonic scores such as counts); P[i] = ∫ f_i(x) Π_{j≠i} F_j(x) dx, a one-dimensional integral computed
    piecewise (see :func:`selection_probabilities`);
  - ``noise="exponential"``: exponential noise of scale b = 2Δ/ε is the permute-and-flip mechanism (McKenna &
    Sheldon 2020, Alg. 1), as Ding et al. 2021 showed; P[i] = p_i ∫₀¹ Π_{j≠i} (1 − p_j s) ds with
    p_j = exp((u_j − max u)/b), a polynomial integrated exactly.

  ``monotonic=True`` (every score moves in the same direction between neighbours, e.g. counts) halves every scale
  to Δ/ε, with the same ε-DP guarantee.

* :func:`above_threshold` is the sparse vector technique (Dwork & Roth 2014, Alg. 1 for one positive; Lyu, Su & Li
  2017, Alg. 1 for c positives): it answers "is query i above the threshold?" for a stream of queries and pays only
  for the (at most c) positives. :func:`sparse_vector_pattern_probabilities` computes the probability of every
  output pattern on given query answers (a numerical integral over the threshold noise), and
  :func:`sparse_vector_privacy_loss` / :func:`sparse_vector_privacy_check` the largest |ln P[o | D]/P[o | D′]| over
  patterns and neighbours: ≤ ε for the correct algorithm, larger (or ∞) for the broken variants Lyu, Su & Li list.

Neighbouring inputs: each score (each query answer) moves by at most the sensitivity Δ.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dpviz._validation import (
    as_rng,
    check_choice,
    check_integer,
    check_positive,
    check_probability,
    check_real_array,
)
from dpviz.mechanisms.exponential import _exponential_logits, _gumbel_argmax, exponential_mechanism_probabilities

__all__ = [
    "NOISES",
    "SVT_VARIANTS",
    "MAX_CANDIDATES",
    "noise_scale",
    "report_noisy_max",
    "selection_probabilities",
    "expected_gap",
    "gap_quantile",
    "gap_tail_bound",
    "SparseVectorResult",
    "above_threshold",
    "sparse_vector_scales",
    "sparse_vector_pattern_probabilities",
    "sparse_vector_privacy_loss",
    "sparse_vector_privacy_check",
]

#: The noises of report-noisy-max.
NOISES = ("gumbel", "laplace", "exponential")
#: Most candidates :func:`selection_probabilities` accepts (its integrals cost O(k) per distinct score).
MAX_CANDIDATES = 10_000
#: Most queries of the exact sparse-vector computations (they enumerate up to 2ⁿ output patterns and 3ⁿ neighbours).
MAX_SVT_EXACT_QUERIES = 8

_GL_NODES = 16  # Gauss–Legendre nodes per piece of the piecewise integrals


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


# ============================================================================================ report-noisy-max


def _check_scores(scores, *, maximum: int | None = None) -> np.ndarray:
    u = check_real_array(scores, "scores", ndim=1).astype(float)
    if maximum is not None and u.size > maximum:
        raise ValueError(f"scores has {u.size} candidates, which is not allowed here: must have at most {maximum}.")
    return u


def _check_common(epsilon, noise, sensitivity, monotonic) -> tuple[float, str, float, bool]:
    eps = check_positive(epsilon, "epsilon")
    check_choice(noise, "noise", NOISES)
    s = check_positive(sensitivity, "sensitivity")
    if not isinstance(monotonic, (bool, np.bool_)):
        raise ValueError(f"monotonic = {monotonic!r} is not allowed: must be True or False.")
    return eps, noise, s, bool(monotonic)


def noise_scale(epsilon: float, sensitivity: float = 1.0, monotonic: bool = False) -> float:
    """The noise scale of ε-DP report-noisy-max, the same for all three noises: b = 2Δ/ε, or Δ/ε for monotonic
    scores (Dwork & Roth 2014, Claim 3.9 and Thm 3.10; McKenna & Sheldon 2020, Thm 1; Ding et al. 2021).

    >>> noise_scale(0.5), noise_scale(0.5, monotonic=True)
    (4.0, 2.0)
    """
    eps, _, s, mono = _check_common(epsilon, "gumbel", sensitivity, monotonic)
    return (1.0 if mono else 2.0) * s / eps


def report_noisy_max(scores, epsilon: float, *, noise: str = "gumbel", sensitivity: float = 1.0,
                     monotonic: bool = False, rng=None, size=None):
    """Report-noisy-max: argmax_i (u_i + Z_i) with Z_i i.i.d. noise of scale b = 2Δ/ε (Δ/ε if ``monotonic``).
    ε-DP for every noise (see the module docstring for each one's source). Only the index is released.

    Parameters
    ----------
    scores : array of k real numbers, higher is better.
    epsilon : float > 0.
    noise : ``"gumbel"`` (= the exponential mechanism), ``"laplace"`` or ``"exponential"`` (= permute-and-flip).
    sensitivity : Δ > 0, the most any score moves between neighbouring inputs.
    monotonic : bool, True if all scores move in the same direction between neighbours (halves the scale).
    rng : numpy Generator, int seed or None.
    size : None (one index, an int) or a number of independent runs (an int array).

    >>> report_noisy_max([0.0, 100.0, 0.0], 1.0, rng=0)
    1
    """
    u = _check_scores(scores)
    eps, noise, s, mono = _check_common(epsilon, noise, sensitivity, monotonic)
    runs = None if size is None else check_integer(size, "size", minimum=0, maximum=10_000_000 // max(u.size, 1))
    b = (1.0 if mono else 2.0) * s / eps
    g = as_rng(rng)
    shape = (u.size,) if runs is None else (runs, u.size)
    if noise == "gumbel":
        logits = np.broadcast_to(_exponential_logits(u, 1.0 / b), shape)
        out = _gumbel_argmax(logits, g)
    else:
        z = g.laplace(0.0, b, size=shape) if noise == "laplace" else g.exponential(b, size=shape)
        out = np.argmax(u + z, axis=-1)
    return int(out) if runs is None else np.asarray(out, dtype=np.int64)


def _graded_breaks(vals: np.ndarray, counts: np.ndarray, b: float, step: float = 8.0) -> np.ndarray:
    """Break points on [min u, max u] such that the log of every integrand of :func:`_laplace_probabilities` moves by
    at most about ``step`` over each piece. Its log-slope is at most V′(x) = (1 + #scores above x)/b +
    Σ_{v_l < x} c_l e^{−(x − v_l)/b}/b (a factor ½e^{(x−u)/b} has slope 1/b, a factor 1 − ½e^{−(x−u)/b} at most
    e^{−(x−u)/b}/b); V is integrated in closed form on a fine grid and its levels step, 2·step, … become breaks."""
    grid = _refine(vals, (vals[-1] - vals[0]) / 1000.0)
    above = counts.sum() - np.cumsum(counts)  # candidates strictly above vals[l]
    seg = np.clip(np.searchsorted(vals, grid, side="right") - 1, 0, vals.size - 1)
    # ∫ (1 + #above)/b: piecewise linear; ∫ Σ_below c_l e^{−(x−v_l)/b}/b = Σ_{v_l ≤ x} c_l (1 − e^{−(x−v_l)/b})
    lin = np.concatenate([[0.0], np.cumsum((1.0 + above[:-1]) * np.diff(vals) / b)])
    V = lin[seg] + (1.0 + above[seg]) * (grid - vals[seg]) / b
    dz = np.maximum(grid[None, :] - vals[:, None], 0.0) / b
    V = V + counts @ np.where(grid[None, :] >= vals[:, None], -np.expm1(-dz), 0.0)
    levels = np.arange(step, V[-1], step)
    return np.union1d(vals, np.interp(levels, V, grid))


def _laplace_probabilities(vals: np.ndarray, counts: np.ndarray, b: float) -> np.ndarray:
    """P[a given candidate of each distinct score wins] for Laplace noise of scale b (distinct scores ``vals``,
    ascending, with multiplicities ``counts``). P = ∫ f_a F_a^{c_a−1} Π_{l≠a} F_l^{c_l} dx, in three parts:

    * x < min u: every factor is ½e^{(x−u)/b}: the integral is (1/(k 2^k)) exp(−Σ_j (u_j − min u)/b) (exact);
    * x > max u: with t = e^{−(x−max u)/b} the integrand is a polynomial of degree k − 1 in t on [0, 1]
      (Gauss–Legendre, exact for k ≤ 2·16 per piece, pieces of width ≤ 16/k otherwise);
    * between: the integrand is smooth between consecutive scores; composite 16-point Gauss–Legendre on pieces over
      which its logarithm moves by at most about 8 (:func:`_graded_breaks`).

    Computed in logs (no underflow for tiny probabilities). Accurate to ~1e-12 relative (tested against mpmath).
    """
    k = int(counts.sum())
    vmin, vmax = vals[0], vals[-1]
    m = vals.size
    # left tail, the same for every candidate
    left = math.exp(-k * math.log(2.0) - math.log(k) - float(np.dot(counts, vals - vmin)) / b)
    # right tail: polynomial in t
    pieces = max(1, math.ceil(k / (2 * _GL_NODES)))
    t, wt = _composite_nodes(np.linspace(0.0, 1.0, pieces + 1))
    a = 0.5 * np.exp((vals - vmax) / b)  # F_l = 1 − a_l t
    logF = np.log1p(-np.outer(a, t))  # (m, N)
    S = counts @ logF
    right = a * (np.exp(S[None, :] - logF) @ wt)
    # middle
    mid = np.zeros(m)
    if m > 1:
        x, wx = _composite_nodes(_graded_breaks(vals, counts, b))
        z = (x[None, :] - vals[:, None]) / b  # (m, N)
        below = z < 0
        logF = np.where(below, np.log(0.5) + np.minimum(z, 0.0), np.log1p(-0.5 * np.exp(-np.maximum(z, 0.0))))
        logf = np.log(0.5 / b) - np.abs(z)
        S = counts @ logF
        mid = np.exp(logf + S[None, :] - logF) @ wx
    return left + mid + right


def _pf_probabilities(vals: np.ndarray, counts: np.ndarray, b: float) -> np.ndarray:
    """Permute-and-flip (= report-noisy-max with exponential noise of scale b): P[a given candidate of score v_a]
    = p_a ∫₀¹ Π_l (1 − p_l s)^{c_l} / (1 − p_a s) ds with p_l = exp((v_l − max u)/b) (each candidate draws a uniform
    arrival time s and is accepted with probability p; the first accepted is output — McKenna & Sheldon 2020, Alg. 1).
    The integrand is a polynomial of degree k − 1: Gauss–Legendre is exact for k ≤ 32 (pieces of width ≤ 32/k beyond).
    """
    k = int(counts.sum())
    pieces = max(1, math.ceil(k / (2 * _GL_NODES)))
    s, ws = _composite_nodes(np.linspace(0.0, 1.0, pieces + 1))
    p = np.exp((vals - vals[-1]) / b)
    logF = np.log1p(-np.outer(p, s))  # the top group has p = 1: log1p(−s) is finite at the nodes (s < 1)
    S = counts @ logF
    return p * (np.exp(S[None, :] - logF) @ ws)


def selection_probabilities(scores, epsilon: float, *, noise: str = "gumbel", sensitivity: float = 1.0,
                            monotonic: bool = False) -> np.ndarray:
    """P[report-noisy-max reports candidate i], for each i, for the given noise at scale b = 2Δ/ε (Δ/ε monotonic).

    * ``"gumbel"``: softmax(u/b) — the exponential mechanism's probabilities
      (:func:`dpviz.mechanisms.exponential_mechanism_probabilities`), exact to rounding;
    * ``"laplace"``: ∫ f_i(x) Π_{j≠i} F_j(x) dx, a 1-D integral: exact closed form below the lowest score,
      Gauss–Legendre above the highest (exact for k ≤ 32) and between the scores (composite, pieces short enough
      that the integrand's log moves by ≤ 8 over each): ~1e-12 relative accuracy (tested against mpmath);
    * ``"exponential"``: permute-and-flip's p_i ∫₀¹ Π_{j≠i}(1 − p_j s) ds, p_j = e^{(u_j − max u)/b} (McKenna &
      Sheldon 2020; equal to exponential noise by Ding et al. 2021), a polynomial integrated by Gauss–Legendre
      (exact for k ≤ 32).

    Ties get equal probabilities; the result sums to 1 up to rounding (and is renormalised).

    >>> selection_probabilities([1.0, 1.0], 1.0, noise="laplace").tolist()
    [0.5, 0.5]
    """
    u = _check_scores(scores, maximum=MAX_CANDIDATES)
    eps, noise, s, mono = _check_common(epsilon, noise, sensitivity, monotonic)
    if noise == "gumbel":
        return exponential_mechanism_probabilities(u, 2.0 * eps if mono else eps, s)
    b = (1.0 if mono else 2.0) * s / eps
    vals, inverse, counts = np.unique(u, return_inverse=True, return_counts=True)
    if vals.size == 1:
        return np.full(u.size, 1.0 / u.size)
    with np.errstate(over="ignore"):
        spread = float(vals[-1] - vals[0]) / b
    if not math.isfinite(spread):
        raise ValueError(f"scores span {vals[-1] - vals[0]!r}, which is not allowed at epsilon = {epsilon!r}: the "
                         "spread divided by the noise scale must be a finite number.")
    if noise == "laplace":
        if spread * (1 + u.size) > 2_000_000:
            raise ValueError(f"scores span {vals[-1] - vals[0]:.4g} = {spread:.4g} noise scales with k = {u.size}: too "
                             "fine an integral here; must span at most 2000000/(k + 1) noise scales (lower epsilon "
                             "or the spread).")
        per = _laplace_probabilities(vals, counts.astype(float), b)
    else:
        per = _pf_probabilities(vals, counts.astype(float), b)
    p = per[inverse]
    return p / p.sum()


def expected_gap(scores, epsilon: float, *, noise: str = "gumbel", sensitivity: float = 1.0,
                 monotonic: bool = False) -> float:
    """E[max u − u_reported] = Σ_i P[i]·(max u − u_i), from the exact :func:`selection_probabilities`."""
    u = _check_scores(scores, maximum=MAX_CANDIDATES)
    p = selection_probabilities(u, epsilon, noise=noise, sensitivity=sensitivity, monotonic=monotonic)
    return float(np.dot(p, u.max() - u))


def gap_quantile(scores, epsilon: float, beta: float, *, noise: str = "gumbel", sensitivity: float = 1.0,
                 monotonic: bool = False) -> float:
    """The smallest gap g with P[max u − u_reported > g] ≤ β (from the exact probabilities)."""
    bt = check_probability(beta, "beta", open_low=True, open_high=True)
    u = _check_scores(scores, maximum=MAX_CANDIDATES)
    p = selection_probabilities(u, epsilon, noise=noise, sensitivity=sensitivity, monotonic=monotonic)
    gaps = u.max() - u
    order = np.argsort(gaps)
    g, q = gaps[order], p[order]
    tail = 1.0 - np.cumsum(q)  # P[gap > g_(i)] (exceeding the i-th smallest)
    ok = np.nonzero(tail <= bt * (1 + 1e-12))[0]
    return float(g[ok[0]]) if ok.size else float(g[-1])


def gap_tail_bound(k: int, epsilon: float, beta: float, *, sensitivity: float = 1.0, monotonic: bool = False) -> float:
    """(2Δ/ε)·ln(k/β): the exponential mechanism's gap exceeds it with probability at most β (Dwork & Roth 2014,
    Cor. 3.12: P[u(M) ≤ OPT − (2Δ/ε)(ln k + t)] ≤ e^{−t}, with β = e^{−t}); (Δ/ε)·ln(k/β) for monotonic scores.

    >>> round(gap_tail_bound(10, 1.0, 0.05), 4)
    10.5966
    """
    kk = check_integer(k, "k", minimum=1)
    bt = check_probability(beta, "beta", open_low=True, open_high=True)
    return noise_scale(epsilon, sensitivity, monotonic) * math.log(kk / bt)


# ============================================================================================ sparse vector

#: The sparse-vector variants of the exact check: (threshold-noise factor, query-noise factor, halts after c ⊤,
#: description). With ε₁ = ε₂ = ε/2: ρ ~ Lap(Δ/ε₁) = Lap(2Δ/ε); ν_i ~ Lap(query factor·Δ/ε₂·…) as listed.
SVT_VARIANTS = {
    "correct": "AboveThreshold: ρ ~ Lap(2Δ/ε), ν ~ Lap(4cΔ/ε), halt after c positives (Lyu, Su & Li 2017, Alg. 1; "
               "Dwork & Roth 2014, Alg. 1 for c = 1)",
    "no_query_noise": "no noise on the queries, ν = 0 (a broken variant: Lyu, Su & Li 2017, Alg. 5)",
    "no_cutoff": "query noise ν ~ Lap(2Δ/ε) and no halting: every query may be ⊤ (a broken variant: Lyu, Su & Li "
                 "2017, Alg. 6)",
}


def sparse_vector_scales(epsilon: float, sensitivity: float = 1.0, max_positives: int = 1,
                         variant: str = "correct") -> tuple[float, float, int | None]:
    """(threshold-noise scale, query-noise scale, cutoff c or None) of a variant, with ε₁ = ε₂ = ε/2
    (Lyu, Su & Li 2017, Alg. 1: ρ ~ Lap(Δ/ε₁), ν_i ~ Lap(2cΔ/ε₂), halt after c positives).

    >>> sparse_vector_scales(1.0)
    (2.0, 4.0, 1)
    """
    eps = check_positive(epsilon, "epsilon")
    s = check_positive(sensitivity, "sensitivity")
    c = check_integer(max_positives, "max_positives", minimum=1)
    check_choice(variant, "variant", tuple(SVT_VARIANTS))
    rho = 2.0 * s / eps
    if variant == "correct":
        return rho, 4.0 * c * s / eps, c
    if variant == "no_query_noise":
        return rho, 0.0, c
    return rho, 2.0 * s / eps, None


@dataclass(frozen=True)
class SparseVectorResult:
    """One run of :func:`above_threshold`.

    ``answers[i]`` is True (⊤, above) or False (⊥) for the queries processed; after the c-th ⊤ the algorithm halts
    and the later queries get no answer. ``noisy_threshold`` and ``noisy_queries`` are the algorithm's internal
    state, returned for teaching only: releasing them is NOT private. ``epsilon_spent`` = ε₁ + (#⊤)·ε₂/c: the
    threshold's share up front, then ε₂/c per positive — negatives cost nothing (Lyu, Su & Li 2017, Thm 2).
    """

    answers: tuple[bool, ...]
    positives: tuple[int, ...]
    halted: bool
    noisy_threshold: float
    noisy_queries: tuple[float, ...]
    epsilon: float
    epsilon_spent: float
    max_positives: int


def above_threshold(queries, threshold: float, epsilon: float, *, sensitivity: float = 1.0, max_positives: int = 1,
                    rng=None) -> SparseVectorResult:
    """The sparse vector technique: for each query answer q_i in turn, report ⊤ if q_i + ν_i ≥ T + ρ, else ⊥; halt
    after ``max_positives`` = c positives. ρ ~ Lap(2Δ/ε) is drawn once, ν_i ~ Lap(4cΔ/ε) afresh for each query
    (ε₁ = ε₂ = ε/2 in Lyu, Su & Li 2017, Alg. 1; for c = 1 this is Dwork & Roth 2014, Alg. 1, AboveThreshold).
    ε-DP however many queries are asked, when each query moves by at most Δ between neighbours.

    >>> r = above_threshold([0.0, 0.0, 1000.0, 0.0], 500.0, 1.0, rng=0)
    >>> r.answers, r.positives, r.halted
    ((False, False, True), (2,), True)
    """
    q = check_real_array(queries, "queries", ndim=1).astype(float)
    t = _check_threshold(threshold)
    eps = check_positive(epsilon, "epsilon")
    s = check_positive(sensitivity, "sensitivity")
    c = check_integer(max_positives, "max_positives", minimum=1, maximum=max(1, q.size))
    g = as_rng(rng)
    rho_scale, nu_scale, _ = sparse_vector_scales(eps, s, c)
    rho = float(g.laplace(0.0, rho_scale))
    nu = g.laplace(0.0, nu_scale, size=q.size)
    noisy_t = t + rho
    answers, pos, noisy = [], [], []
    for i, qi in enumerate(q):
        y = float(qi + nu[i])
        noisy.append(y)
        up = y >= noisy_t
        answers.append(bool(up))
        if up:
            pos.append(i)
            if len(pos) == c:
                break
    spent = eps / 2.0 + len(pos) * (eps / 2.0) / c
    return SparseVectorResult(tuple(answers), tuple(pos), len(pos) == c, noisy_t, tuple(noisy), eps, spent, c)


def _laplace_log_sf(x: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """(ln P[ν ≥ x], ln P[ν < x]) for ν ~ Lap(scale); scale 0 means ν = 0 (logs of 0/1 indicators)."""
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
    q = check_real_array(queries, "queries", ndim=1).astype(float)
    if q.size > MAX_SVT_EXACT_QUERIES:
        raise ValueError(f"queries has {q.size} values, which is not allowed here: must have at most "
                         f"{MAX_SVT_EXACT_QUERIES} (the exact computation enumerates 2ⁿ output patterns).")
    T = _check_threshold(threshold)
    rho, nu, c = sparse_vector_scales(epsilon, sensitivity, max_positives, variant)
    return q, T, rho, nu, c


def _check_threshold(threshold) -> float:
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(threshold)):
        raise ValueError(f"threshold = {threshold!r} is not allowed: must be a finite number.")
    return float(threshold)


def sparse_vector_pattern_probabilities(queries, threshold: float, epsilon: float, *, sensitivity: float = 1.0,
                                        max_positives: int = 1, variant: str = "correct") -> dict:
    """P[output pattern] for every pattern of a sparse-vector ``variant`` on the query answers ``queries``.

    Given the threshold noise ρ = z the answers are independent, so P[pattern] = ∫ f_ρ(z) Π_i P[a_i | z] dz with
    P[⊤_i | z] = P[ν_i ≥ T + z − q_i]. A numerical integral: 16-point Gauss–Legendre on pieces over which the
    integrand's log moves by at most 4, split at every kink (z = 0 and z = q_i − T), over the z-range where ρ has
    all but e^{−60} of its mass (the rest, < 1e-26, is dropped): accurate to ~1e-12 relative (tested against mpmath).

    Returns a dict {pattern (tuple of bools): probability}; the probabilities sum to 1.
    """
    q, T, rho, nu, c = _check_svt(queries, threshold, epsilon, sensitivity, max_positives, variant)
    return _svt_probs(q, T, rho, nu, c, _patterns(q.size, c))


def _svt_probs(q, T, rho, nu, c, patterns) -> dict:
    kinks = np.unique(np.concatenate([[0.0], q - T]))
    # the integrand's log-slope is at most 1/ρ + n/ν between kinks: pieces over which it moves by at most 4
    h = min(0.5 * rho * (1 + (q.size * rho / nu if nu > 0 else 0.0)), 4.0 / (1.0 / rho + (q.size / nu if nu > 0
                                                                                            else 0.0)))
    breaks = np.concatenate([[kinks[0] - 60.0 * rho], kinks, [kinks[-1] + 60.0 * rho]])
    if (breaks[-1] - breaks[0]) / h > 200_000:
        raise ValueError("queries span too many noise scales for the exact computation: must span at most "
                         f"100000 noise scales (they span {(breaks[-1] - breaks[0]) / (2 * h):.4g}).")
    z, w = _composite_nodes(_refine(breaks, h))
    log_f = math.log(0.5 / rho) - np.abs(z) / rho
    log_up, log_down = _laplace_log_sf(T + z[None, :] - q[:, None], nu)  # (n, N)
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


def sparse_vector_privacy_loss(queries, neighbour, threshold: float, epsilon: float, *, sensitivity: float = 1.0,
                               max_positives: int = 1, variant: str = "correct") -> dict:
    """ln(P[o | D]/P[o | D′]) for every output pattern o, D = ``queries``, D′ = ``neighbour`` (each answer moved
    by at most Δ): +inf where only D can output o, −inf where only D′ can. Exact up to the integral's ~1e-12."""
    q, T, rho, nu, c = _check_svt(queries, threshold, epsilon, sensitivity, max_positives, variant)
    q2 = check_real_array(neighbour, "neighbour", ndim=1).astype(float)
    if q2.shape != q.shape or np.any(np.abs(q2 - q) > sensitivity * (1 + 1e-12)):
        raise ValueError(f"neighbour = {q2.tolist()!r} is not allowed: must have the length of queries and differ "
                         f"from it by at most the sensitivity {sensitivity!r} in each query.")
    pats = _patterns(q.size, c)
    p1, p2 = _svt_probs(q, T, rho, nu, c, pats), _svt_probs(q2, T, rho, nu, c, pats)
    out = {}
    for o in pats:
        a, b = p1[o], p2[o]
        if a == 0 and b == 0:
            continue
        out[o] = math.inf if b == 0 else (-math.inf if a == 0 else math.log(a / b))
    return out


@dataclass(frozen=True)
class SparseVectorCheck:
    """The result of :func:`sparse_vector_privacy_check`: the largest |privacy loss|, where it occurs, and whether
    it stays within ε (with a 1e-9 allowance for the integral's rounding)."""

    max_loss: float
    pattern: tuple[bool, ...]
    neighbour: tuple[float, ...]
    epsilon: float

    @property
    def passes(self) -> bool:
        return self.max_loss <= self.epsilon * (1 + 1e-9)


def sparse_vector_privacy_check(queries, threshold: float, epsilon: float, *, sensitivity: float = 1.0,
                                max_positives: int = 1, variant: str = "correct") -> SparseVectorCheck:
    """max over patterns o and the 3ⁿ − 1 neighbours D′ = D + Δ·s (s ∈ {−1, 0, 1}ⁿ) of |ln P[o | D]/P[o | D′]|.
    ε-DP requires ≤ ε; the correct algorithm passes, the broken variants of :data:`SVT_VARIANTS` fail."""
    q, T, rho, nu, c = _check_svt(queries, threshold, epsilon, sensitivity, max_positives, variant)
    s = check_positive(sensitivity, "sensitivity")
    pats = _patterns(q.size, c)
    base = _svt_probs(q, T, rho, nu, c, pats)
    best = (-1.0, pats[0], tuple(q.tolist()))
    for shift in itertools.product((-1.0, 0.0, 1.0), repeat=q.size):
        if not any(shift):
            continue
        q2 = q + s * np.array(shift)
        other = _svt_probs(q2, T, rho, nu, c, pats)
        for o in pats:
            a, b = base[o], other[o]
            if a == 0 and b == 0:
                continue
            loss = math.inf if (a == 0 or b == 0) else abs(math.log(a / b))
            if loss > best[0]:
                best = (loss, o, tuple(q2.tolist()))
    return SparseVectorCheck(best[0], best[1], best[2], float(epsilon))
