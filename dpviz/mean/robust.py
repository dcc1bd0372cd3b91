"""Private ball-finding with a garbage bucket (Esfandiari, Mirrokni & Narayanan 2022, "Tight and Robust Private Mean
Estimation with Few Users", ICML 2022).

* :func:`algorithm_a_1d` — Algorithm A (Theorem 2) *exactly* in 1-D: density ∝ e^{(ε/2)·min(f(p), 2n/3)} on ∪B_i
  plus a garbage atom of mass (4/δ)·V_B; piecewise constant, so its output law and privacy profile are exact
  (:func:`algorithm_a_privacy_profile`).
* :func:`algorithm_a_2d` — the same on a 2-D grid (approximation: cell-centre rule; stated on figures).
* :func:`dp_estimate_1` — Algorithm 1 (Theorem 4): rejection sampling with a geometric number of rounds
  X ~ Geom(1/N), N fixed in advance and data-independent; the pseudocode runs at (ε/5, δ/4) so that the whole is
  (ε, δ)-DP (see the erratum below).
* :func:`dp_estimate_2` — Algorithm 2 (Corollary 5): coordinate-wise median of copies.
* :func:`dp_estimate_blocks` — Theorem 6: randomized Hadamard rotation + k² coordinate blocks.
* :func:`dp_estimate_user` — Algorithm 3 (Theorem 7): user averages, radius 10r/√m, robust to n/4 corrupted users.
* :func:`learn_discrete` — Corollary 8: discrete distributions via one-hot users.
* :func:`corrupt_users` — the adversary of Theorem 7 (sees the data, replaces up to κn users).
* bounds: Lemma 9 (:func:`users_lower_bound`), Proposition 14 (:func:`prop14_users`), Theorem 7, Proposition 27.

The paper adds no Laplace/Gaussian noise: all randomness is a uniform point in a ball around the data.

Every function here that takes a privacy parameter ε and runs a mechanism delivers (ε, δ)-DP for that ε (within
the ranges stated in its docstring).

Erratum (dpviz's own, not in the paper): Algorithm A with density e^{ε·min(f, 2n/3)}, as printed, is (2ε, δ)-DP,
not the (ε, δ) claimed by Esfandiari, Mirrokni & Narayanan 2022, Prop. 15. The proof bounds the ratio of the
*unnormalised* densities by e^{±ε} but forgets that the normalising total Z can move by a factor up to e^{∓ε} as well,
so normalised probabilities move by up to e^{±2ε}. Worst case: two clusters below the 2n/3 cap and one point moved
from one to the other. Exactly, with the printed exponent ε = 1/3 and δ = 10⁻⁶ (inside the paper's regime
ε, δ ≤ 1/3), ``[0]*97 + [10]*101`` vs ``[0]*98 + [10]*100`` gives δ(1/3) = 0.048 ≫ 10⁻⁶. dpviz therefore runs
Algorithm A with exponent ε/2 (:func:`algorithm_a_1d`, :func:`algorithm_a_2d`) and, following the proof of
Theorem 4 with the corrected Prop. 15 ((3ε₁, 3δ₁) for the G2 bit + (2ε₁, δ₁) for Algorithm A), runs Algorithm 1 at
(ε₁, δ₁) = (ε/5, δ/4) (:func:`dp_estimate_1` and everything built on it).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterator

import numpy as np
from scipy import special

from dpviz._cache import RecentResults
from dpviz._validation import (
    Interval,
    as_rng,
    check_choice,
    check_delta,
    check_in_range,
    check_integer,
    check_positive,
    check_probability,
    check_real_array,
    evaluate_finite,
    expm1_or_inf,
    finite_result,
)
from dpviz.mean.hadamard import (
    COUNT,
    DIMENSION,
    ELEMENTS,
    MAGNITUDE,
    REPETITIONS,
    SCALE,
    SCALE_OR_ZERO,
    SIZE,
    check_params,
    data_array,
    next_power_of_two,
    random_rotation,
    real_counts,
)

__all__ = [
    "AlgorithmA1D",
    "algorithm_a_1d",
    "AlgorithmA2D",
    "algorithm_a_2d",
    "hockey_stick_1d",
    "algorithm_a_privacy_profile",
    "acceptance_probability_valid",
    "round_acceptance_1d",
    "prob_g2",
    "paper_round_cap",
    "teaching_round_cap",
    "DPEstimate1Result",
    "dp_estimate_1",
    "split_budget",
    "dp_estimate_2",
    "dp_estimate_blocks",
    "dp_estimate_user",
    "learn_discrete",
    "corrupt_users",
    "uniform_in_ball",
    "users_lower_bound",
    "levy_users_required",
    "prop14_users",
    "lemma9_chain",
    "theorem7_error",
    "corollary8_error",
    "robust_floor",
    "theorem7_guarantee",
    "corollary8_samples",
    "levy_max_dimension",
    "algorithm_a_neighbours_2d",
    "robustness_curve",
    "iter_robustness_curve",
]


def _log_vol_ball(d: int, R: float) -> float:
    """log Vol(B_d(R)) = (d/2)·log π + d·log R − log Γ(d/2 + 1)."""
    return 0.5 * d * math.log(math.pi) + d * math.log(R) - special.gammaln(d / 2 + 1)


def _algorithm_1_parameters(eps: float, delta: float) -> tuple[float, float]:
    """Pseudocode parameters (ε₁, δ₁) = (ε/5, δ/4) at which Algorithm 1 of Esfandiari, Mirrokni & Narayanan 2022 runs so
    that it is (ε, δ)-DP.

    Proof of Theorem 4 of Esfandiari, Mirrokni & Narayanan 2022 (weak composition) with dpviz's corrected Prop. 15: the
    G2 bit is (3ε₁, 3δ₁)-DP (Lemma 18) and a stopped round is a draw of Algorithm A at exponent ε₁, which is (2ε₁,
    δ₁)-DP (not (ε₁, δ₁) as Prop. 15 states); total (5ε₁, 4δ₁) = (ε, δ).
    """
    return eps / 5.0, delta / 4.0


def _log_delta_1(delta: float) -> float:
    """ln δ₁ = ln δ − ln 4 (δ/4 underflows to 0 for δ < 2e-323; its logarithm does not)."""
    return math.log(delta) - math.log(4.0)


# --------------------------------------------------------------------------------------------- Algorithm A, 1-D


@dataclass(frozen=True)
class AlgorithmA1D:
    """Exact output law of Algorithm A (Esfandiari, Mirrokni & Narayanan 2022, Thm 2) in 1-D: piecewise-constant density
    + garbage atom.

    ``edges`` (K+1,) sorted breakpoints; ``counts`` f on each of the K segments; ``density`` the normalised density
    on each segment (0 where f = 0); ``garbage`` = P[G] = (4/δ)V_B / (Z + (4/δ)V_B).
    """

    edges: np.ndarray
    counts: np.ndarray
    density: np.ndarray
    garbage: float

    def __post_init__(self):
        edges = check_real_array(self.edges, "edges", ndim=1)
        if edges.size < 2 or np.any(np.diff(edges) <= 0):
            raise ValueError(f"edges has {edges.size} values, which is not allowed: must be at least 2 strictly "
                             "increasing breakpoints.")
        k = edges.size - 1
        counts = check_real_array(self.counts, "counts", ndim=1)
        if counts.size != k or np.any(counts < 0) or np.any(counts != np.floor(counts)):
            raise ValueError(f"counts has {counts.size} values, which is not allowed: must be {k} integers >= 0 "
                             "(one per segment).")
        density = check_real_array(self.density, "density", ndim=1)
        if density.size != k or np.any(density < 0):
            raise ValueError(f"density has {density.size} values, which is not allowed: must be {k} numbers >= 0 "
                             "(one per segment).")
        garbage = check_probability(self.garbage, "garbage")
        with np.errstate(over="ignore"):
            mass = density * np.diff(edges)
        total = float(np.sum(mass)) + garbage
        if not np.all(np.isfinite(mass)) or not 0.0 < total < math.inf:
            raise ValueError(f"density and garbage give total mass {total!r}, which is not allowed: must be a "
                             "positive finite number (a probability law).")
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "counts", counts.astype(int))
        object.__setattr__(self, "density", density)
        object.__setattr__(self, "garbage", garbage)

    @property
    def segment_probabilities(self) -> np.ndarray:
        return self.density * np.diff(self.edges)

    def pdf(self, y) -> np.ndarray:
        """Density at ``y`` (numbers, ±inf allowed: 0 there)."""
        y = check_real_array(y, "y", allow_empty=True, finite=False)
        if np.any(np.isnan(y)):
            raise ValueError("y contains NaN, which is not allowed: must be numbers (±inf allowed).")
        j = np.searchsorted(self.edges, y, side="right") - 1
        inside = (j >= 0) & (j < len(self.density))
        return np.where(inside, self.density[np.clip(j, 0, len(self.density) - 1)], 0.0)

    def sample(self, size: int | None = None, *, rng=None):
        """Draws. The garbage outcome ⊥ (a data-independent symbol) is not a number: with ``size`` the draws
        come as a masked array whose masked entries are ⊥ (``out.mask``; ``out.compressed()`` keeps the points);
        without ``size`` a single float, or None for ⊥ (as :func:`dp_estimate_1` and friends return None)."""
        k = 1 if size is None else SIZE.check(size, "size")
        g = as_rng(rng)
        probs = np.append(self.segment_probabilities, self.garbage)
        probs = probs / probs.sum()
        seg = g.choice(len(probs), size=k, p=probs)
        ok = seg < len(self.density)
        out = np.zeros(k)
        lo, hi = self.edges[seg[ok]], self.edges[seg[ok] + 1]
        out[ok] = lo + (hi - lo) * g.random(ok.sum())
        if size is None:
            return float(out[0]) if ok[0] else None
        return np.ma.masked_array(out, mask=~ok)


def algorithm_a_1d(points, r: float, epsilon: float, delta: float, *, ball_radius: float | None = None) -> AlgorithmA1D:
    """Algorithm A of Esfandiari, Mirrokni & Narayanan 2022 (Theorem 2), exact in 1-D, run so that it is (ε, δ)-DP:
    exponent ε/2.

    B_i = [x_i − R, x_i + R] with R = r·√d = r (paper); f(p) = #{i : p ∈ B_i}; unnormalised density
    e^{(ε/2)·min(f(p), 2n/3)} where f > 0, plus an atom G of mass (4/δ)·V_B, V_B = 2R. Computed in log space.

    Privacy: the paper prints the exponent ε and claims (ε, δ)-DP (Esfandiari, Mirrokni & Narayanan 2022,
    Prop. 15), but with exponent ε the mechanism is only (2ε, δ)-DP: the proof bounds the unnormalised density ratio
    by e^{±ε} and ignores that the normalising total moves by up to e^{±ε} as well (dpviz's own erratum; worst case
    two clusters below the 2n/3 cap with one point moved between them). With exponent ε/2: where f stays ≥ 1 (and on
    G) the unnormalised density moves by ≤ e^{±ε/2}, and so does the total Z except for the region where f switches
    1↔0 (volume ≤ V_B each way, unnormalised mass ≤ e^{ε/2}·V_B each); so P[S] − e^ε·P′[S] ≤
    2·e^{ε/2}·V_B/((4/δ)·V_B) = e^{ε/2}·δ/2 ≤ δ: (ε, δ)-DP for ε ≤ 2·ln 2 ≈ 1.39, which covers the paper's
    regime ε ≤ 1/3.

    Parameters
    ----------
    points : array_like, shape (n,)
    r : float
        Known radius r > 0 of the ball holding ≥ 2/3 of the points.
    epsilon : float
        Privacy parameter ε > 0 of the mechanism (the paper's exponent is ε/2).
    delta : float
        δ ∈ (0, 1).
    ball_radius : float, optional
        R; default r (= r√d with d = 1). Lemma 3 needs n and d large; in low dimension use r(√d + 1) = 2r, so that
        the intersection of the balls of points within r of x has positive length.

    Examples
    --------
    >>> A = algorithm_a_1d([0.0, 0.0, 0.0], 1.0, 1.0, 0.1)
    >>> A.edges.tolist(), A.counts.tolist()
    ([-1.0, 1.0], [3])
    >>> w = 2 * np.exp(1.0)  # (ε/2)·min(3, 2) = 1, length 2
    >>> bool(np.isclose(A.garbage, 2 * 40 / (w + 2 * 40)))
    True
    """
    x = data_array(points, "points", ndim=1)
    r = SCALE.check(r, "r")
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    R = r if ball_radius is None else SCALE.check(ball_radius, "ball_radius")
    return _algorithm_a_1d_law(x, R, eps / 2.0, math.log(delta))


def _algorithm_a_1d_terms(x: np.ndarray, R: float, lam: float):
    """Segments of ∪B_i and their log-weights relative to the top exponent: (edges, f, lengths, rel, c_max)
    with rel_j = lam·(min(f_j, 2n/3) − c_max) + ln(length_j) (−inf where f = 0), so the unnormalised weight of
    segment j is e^{lam·c_max + rel_j}. Shifting by lam·c_max first keeps ε = 1e308 from giving inf − inf (only
    the segments of largest f then keep weight)."""
    n = x.size
    edges = np.unique(np.concatenate([x - R, x + R]))
    mids = 0.5 * (edges[:-1] + edges[1:])
    xs = np.sort(x)
    f = np.searchsorted(xs, mids + R, side="right") - np.searchsorted(xs, mids - R, side="left")
    lengths = np.diff(edges)
    c = np.minimum(f, 2 * n / 3)
    cmax = float(np.max(c[f > 0]))
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        rel = np.where(f > 0, np.where(c == cmax, 0.0, lam * (c - cmax)) + np.log(lengths), -np.inf)
    return edges, f, lengths, rel, cmax


def _algorithm_a_1d_law(x: np.ndarray, R: float, lam: float, log_delta: float) -> AlgorithmA1D:
    """Algorithm A's output law as printed in Esfandiari, Mirrokni & Narayanan 2022, with exponent ``lam`` (density ∝
    e^{lam·min(f, 2n/3)}) and garbage mass (4/δ)·2R, δ = e^{log_delta}. Computed in log space."""
    edges, f, lengths, rel, cmax = _algorithm_a_1d_terms(x, R, lam)
    lam_cmax = lam * cmax  # Python floats: inf on overflow, no warning
    log_g = math.log(4.0) - log_delta + math.log(2 * R) - lam_cmax  # relative to the same shift; −inf if lam_cmax = inf
    top = max(float(np.max(rel)), log_g)
    with np.errstate(under="ignore"):
        w = np.exp(rel - top)
    wg = math.exp(log_g - top)
    Z = w.sum() + wg
    dens = np.where(lengths > 0, w / np.where(lengths > 0, lengths, 1.0), 0.0) / Z
    return AlgorithmA1D(edges, f.astype(int), dens, float(wg / Z))


def hockey_stick_1d(a: AlgorithmA1D, b: AlgorithmA1D, epsilon) -> np.ndarray:
    """δ_{a‖b}(ε) = ∫ max(0, p_a − e^ε p_b) + max(0, P_a[G] − e^ε P_b[G]), exactly (piecewise constant laws).

    >>> A = algorithm_a_1d([0.0, 0.1], 1.0, 0.5, 0.1)
    >>> float(hockey_stick_1d(A, A, 0.0))
    0.0
    """
    for name, law in (("a", a), ("b", b)):
        if not isinstance(law, AlgorithmA1D):
            raise TypeError(f"{name} = {law!r} is not allowed: must be an AlgorithmA1D (from algorithm_a_1d).")
    eps_in = check_real_array(epsilon, "epsilon", finite=False)
    if np.any(np.isnan(eps_in)):
        raise ValueError("epsilon contains NaN, which is not allowed: must be numbers (±inf allowed).")
    eps = np.atleast_1d(eps_in).ravel()
    edges = np.union1d(a.edges, b.edges)
    mids = 0.5 * (edges[:-1] + edges[1:])
    lengths = np.diff(edges)
    pa, pb = a.pdf(mids), b.pdf(mids)
    with np.errstate(over="ignore", invalid="ignore"):  # e^ε = inf for ε > 709: (p_a − inf·p_b)_+ is p_a if p_b = 0
        e = np.exp(eps)[:, None]
        diff = np.where(pb[None, :] > 0, pa[None, :] - e * pb[None, :], pa[None, :])
        cont = np.sum(np.maximum(0.0, diff) * lengths[None, :], axis=1)
        ge = np.where(b.garbage > 0, a.garbage - np.exp(eps) * b.garbage, a.garbage)
    out = cont + np.maximum(0.0, ge)
    return out if eps_in.ndim else out[0]


def algorithm_a_privacy_profile(points, points_prime, r: float, epsilon: float, delta: float, eps_grid, *,
                                ball_radius: float | None = None) -> np.ndarray:
    """Exact privacy profile δ(ε′) of :func:`algorithm_a_1d` (1-D) between two datasets, max over both directions.

    :func:`algorithm_a_1d` at (ε, δ) runs the paper's Algorithm A with exponent ε/2 and is (ε, δ)-DP: for neighbours
    (one point replaced) the profile at ε′ = ε is ≤ δ (for ε ≤ 2·ln 2). The paper's own claim — exponent ε gives
    (ε, δ)-DP (Esfandiari, Mirrokni & Narayanan 2022, Prop. 15) — is false; it is (2ε, δ) (dpviz's own erratum).
    Reproducer: with the printed exponent ε = 1/3 (this function at 2/3), ``[0]*97 + [10]*101`` vs
    ``[0]*98 + [10]*100`` has δ(1/3) = 0.048, not ≤ 10⁻⁶.

    >>> prof = algorithm_a_privacy_profile([0., .1, .2, .3, 5.], [0., .1, .2, .3, .4], 1.0, 0.5, 1e-3, [0.5])
    >>> bool(prof[0] <= 1e-3)
    True
    >>> x, xp = [0.] * 97 + [10.] * 101, [0.] * 98 + [10.] * 100
    >>> printed = algorithm_a_privacy_profile(x, xp, 1.0, 2 / 3, 1e-6, [1 / 3])  # exponent 1/3, as printed
    >>> round(float(printed[0]), 3)
    0.048
    >>> float(algorithm_a_privacy_profile(x, xp, 1.0, 1 / 3, 1e-6, [1 / 3])[0]) <= 1e-6
    True
    """
    a = algorithm_a_1d(points, r, epsilon, delta, ball_radius=ball_radius)
    b = algorithm_a_1d(points_prime, r, epsilon, delta, ball_radius=ball_radius)
    grid = check_real_array(eps_grid, "eps_grid", ndim=1)
    return np.maximum(hockey_stick_1d(a, b, grid), hockey_stick_1d(b, a, grid))


# --------------------------------------------------------------------------------------------- Algorithm A, 2-D grid


@dataclass(frozen=True)
class AlgorithmA2D:
    """Algorithm A in 2-D evaluated on a grid (cell-centre rule: an approximation of the integrals)."""

    xs: np.ndarray
    ys: np.ndarray
    counts: np.ndarray  # f at cell centres, shape (len(ys), len(xs))
    density: np.ndarray  # normalised density (per unit area)
    garbage: float
    radius: float

    def __post_init__(self):
        xs = check_real_array(self.xs, "xs", ndim=1)
        ys = check_real_array(self.ys, "ys", ndim=1)
        shape = (ys.size, xs.size)
        counts = check_real_array(self.counts, "counts", ndim=2)
        density = check_real_array(self.density, "density", ndim=2)
        for name, arr in (("counts", counts), ("density", density)):
            if arr.shape != shape or np.any(arr < 0):
                raise ValueError(f"{name} has shape {arr.shape}, which is not allowed: must be {shape} "
                                 "(len(ys), len(xs)) of numbers >= 0.")
        object.__setattr__(self, "garbage", check_probability(self.garbage, "garbage"))
        object.__setattr__(self, "radius", SCALE.check(self.radius, "radius"))

    def mass(self, where=None) -> float:
        """Probability of the grid cells (all of them, or those where the boolean array ``where`` is true):
        Σ density·cell area (the cell-centre rule of :func:`algorithm_a_2d`); the garbage atom is :attr:`garbage`.

        >>> A = algorithm_a_2d([[0, 0], [0.2, 0]], 1.0, 1.0, 0.1, resolution=50)
        >>> round(A.mass() + A.garbage, 12)
        1.0
        """
        cell = (self.xs[1] - self.xs[0]) * (self.ys[1] - self.ys[0]) if self.xs.size > 1 and self.ys.size > 1 else 1.0
        if where is None:
            return float(self.density.sum() * cell)
        w = np.asarray(where)
        if w.dtype != bool or w.shape != self.density.shape:
            raise ValueError(f"where has shape {w.shape} and dtype {w.dtype}, which is not allowed: must be a boolean "
                             f"array of shape {self.density.shape}.")
        return float(self.density[w].sum() * cell)


def algorithm_a_2d(points, r: float, epsilon: float, delta: float, *, ball_radius: float | None = None,
                   resolution: int = 120) -> AlgorithmA2D:
    """Algorithm A of Esfandiari, Mirrokni & Narayanan 2022 in 2-D on a ``resolution``² grid over the bounding box of
    ∪B_i (approximate).

    Balls of radius R = r√2 (paper) around each point; density ∝ e^{(ε/2)·min(f, 2n/3)} on f > 0; garbage mass
    (4/δ)·πR². The grid integral is a midpoint rule (error O(cell size) at ball boundaries).

    The exponent is ε/2 so that the mechanism is (ε, δ)-DP: with the printed exponent ε it is only (2ε, δ)-DP, not
    the (ε, δ) claimed by Esfandiari, Mirrokni & Narayanan 2022, Prop. 15 (dpviz's own erratum; see
    :func:`algorithm_a_1d`).

    >>> A = algorithm_a_2d([[0, 0], [0.2, 0]], 1.0, 1.0, 0.1, resolution=50)
    >>> int(A.counts.max())
    2
    """
    x = data_array(points, "points", ndim=2)
    if x.shape[1] != 2 or x.shape[0] > GRID_POINTS.high:
        raise ValueError(f"points has shape {x.shape}, which is not allowed: must be (n, 2) with n <= "
                         f"{GRID_POINTS.high} (each point is tested against every grid cell).")
    r = SCALE.check(r, "r")
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    res = check_integer(resolution, "resolution", minimum=10, maximum=1000)
    R = r * math.sqrt(2) if ball_radius is None else SCALE.check(ball_radius, "ball_radius")
    n = x.shape[0]
    lo, hi = x.min(axis=0) - R, x.max(axis=0) + R
    xs = np.linspace(lo[0], hi[0], res + 1)
    ys = np.linspace(lo[1], hi[1], res + 1)
    cx, cy = 0.5 * (xs[1:] + xs[:-1]), 0.5 * (ys[1:] + ys[:-1])
    cell = (xs[1] - xs[0]) * (ys[1] - ys[0])
    f = np.zeros((res, res), dtype=int)
    for p in x:  # n small in the teaching widget
        f += ((cx[None, :] - p[0]) ** 2 + (cy[:, None] - p[1]) ** 2 <= R * R)
    # exponent ε/2 (erratum to Prop. 15); weights relative to the top exponent (ε/2)·c_max, so that ε = 1e308
    # does not give inf − inf: as in _algorithm_a_1d_terms
    lam, c = eps / 2.0, np.minimum(f, 2 * n / 3)
    cmax = float(np.max(c[f > 0])) if np.any(f > 0) else 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        logw = np.where(f > 0, np.where(c == cmax, 0.0, lam * (c - cmax)), -np.inf)
        lam_cmax = lam * cmax
    log_g = math.log(4.0) - math.log(delta) + math.log(math.pi) + 2.0 * math.log(R) - math.log(cell) - lam_cmax
    top = max(float(logw.max()), log_g)
    with np.errstate(under="ignore"):
        w = np.exp(logw - top)
    wg = math.exp(log_g - top)
    Z = w.sum() + wg
    return AlgorithmA2D(cx, cy, f, w / Z / cell, float(wg / Z), R)


#: Points of the 2-D grid views (each point is tested against every grid cell).
GRID_POINTS = Interval(1, 10_000, integer=True)

# --------------------------------------------------------------------------------------------- Algorithm 1


def acceptance_probability_valid(n: int, epsilon: float) -> bool:
    """Prop 16 of Esfandiari, Mirrokni & Narayanan 2022, exact form: step 7's probability is ≤ ½ for every f iff
    e^x/x ≥ e^ε/ε, x = 2εn/3.

    Here ε is the *pseudocode* parameter ε₁ of Algorithm 1 (the exponent), not a privacy level:
    :func:`dp_estimate_1` at privacy (ε, δ) runs the pseudocode at ε₁ = ε/5. Equivalently (with c = 2n/3 > 1):
    ε₁ ≥ ln(c)/(c − 1).

    >>> (acceptance_probability_valid(2, 1.0), acceptance_probability_valid(10, 1/3),
    ...  acceptance_probability_valid(11, 1/3))
    (True, False, True)
    """
    n = COUNT.check(n, "n")
    eps = check_positive(epsilon, "epsilon")
    c = 2 * n / 3
    if c < 1:
        return False
    # (x − ln x) − (ε − ln ε) with x = cε is ε(c − 1) − ln c: no ε·c overflow, no ln of a subnormal
    return eps * (c - 1) - math.log(c) >= -1e-12


def paper_round_cap(n: int, alpha: float) -> float:
    """N = 18·e^{10√(log n)}/α (Esfandiari, Mirrokni & Narayanan 2022, Lemma 18 proof) — astronomically large (2.1e9/α
    at n = 100).

    Theorem 4 and Corollary 5 of Esfandiari, Mirrokni & Narayanan 2022 print the runtime as e^{√(10 log n)}; Algorithm 1
    (N = Θ(e^{10√(log n)}/α)) and Lemma 18 (q ≥ 1/(18e^{10√(log n)})) are taken as authoritative.

    >>> f"{paper_round_cap(100, 1.0):.2e}"
    '3.76e+10'
    """
    n = COUNT.check(n, "n")
    alpha = check_probability(alpha, "alpha", open_low=True)
    return evaluate_finite(lambda: 18.0 * math.exp(10.0 * math.sqrt(math.log(n))) / alpha, "N", n=n, alpha=alpha)


def teaching_round_cap(alpha: float) -> float:
    """N = 100/α: a data-independent teaching default chosen here, a deviation from the paper's
    N = Θ(e^{10√(log n)}/α)."""
    alpha = check_probability(alpha, "alpha", open_low=True)
    return evaluate_finite(lambda: 100.0 / alpha, "N", alpha=alpha)


def round_acceptance_1d(points, r: float, epsilon: float, delta: float, *, ball_radius: float | None = None) -> float:
    """Per-round stopping probability q of :func:`dp_estimate_1` at privacy (ε, δ) in 1-D, exactly.

    With the pseudocode parameters (ε₁, δ₁) = (ε/5, δ/4) that :func:`dp_estimate_1` uses:
    q = (n/(3W))·(Z/V_B + 4/δ₁), W = n·e^{2ε₁n/3} + 4n/δ₁ (derived here from Prop 17 of
    Esfandiari, Mirrokni & Narayanan 2022), Z the total of Algorithm A at exponent ε₁. Computed in log space.
    """
    x = data_array(points, "points", ndim=1)
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    r = SCALE.check(r, "r")
    R = r if ball_radius is None else SCALE.check(ball_radius, "ball_radius")
    n = x.size
    e1, _ = _algorithm_1_parameters(eps, delta)
    log_4_d1 = math.log(4.0) - _log_delta_1(delta)  # ln(4/δ₁): 4/δ₁ overflows for subnormal δ
    _, _, _, rel, cmax = _algorithm_a_1d_terms(x, R, e1)
    # Numerator and denominator divided by e^s, s = 2ε₁n/3 (possibly inf): W/e^s = n + (4n/δ₁)e^{−s} and
    # (Z/V_B + 4/δ₁)/e^s = e^{ε₁(c_max − 2n/3)}·Σ_j e^{rel_j}/V_B + (4/δ₁)e^{−s}, with Z = e^{ε₁c_max}·Σ_j e^{rel_j}
    s = 2 * e1 * n / 3
    gap = 0.0 if cmax == 2 * n / 3 else e1 * (cmax - 2 * n / 3)  # ≤ 0; −inf (no warning) if it overflows
    log_total = np.logaddexp(gap + float(special.logsumexp(rel)) - math.log(2 * R), log_4_d1 - s)
    log_w = np.logaddexp(math.log(n), math.log(n) + log_4_d1 - s)
    return float(math.exp(min(math.log(n / 3) + log_total - log_w, 0.0)))  # a probability (≤ 1 up to rounding)


def prob_g2(q: float, N: float) -> float:
    """P[Algorithm 1 returns G2] = (1 − q)/((N − 1)q + 1) for X ~ Geom(1/N) rounds (Esfandiari,
    Mirrokni & Narayanan 2022, Lemma 18 proof).

    >>> prob_g2(0.5, 1.0)
    0.5
    """
    q = check_probability(q, "q")
    N = check_in_range(N, "N", 1.0, 1.7976931348623157e308)  # X ~ Geom(1/N) needs N ≥ 1 (N < 1 divided by 0)
    return (1 - q) / ((N - 1) * q + 1)


def uniform_in_ball(center, radius: float, size: int, *, rng=None) -> np.ndarray:
    """Uniform points in B(c, R): c + R·u^{1/d}·g/‖g‖ (Esfandiari, Mirrokni & Narayanan 2022, footnote 3; the u^{1/d} is
    essential: with u the radius would not be uniform in volume).

    ``center``: one centre (d,) or one per point (size, d); at most 10⁷ coordinates are drawn."""
    c = np.atleast_2d(data_array(center, "center", ndim=(1, 2)))
    radius = SCALE_OR_ZERO.check(radius, "radius")
    size = check_integer(size, "size", minimum=0, maximum=ELEMENTS.limit)
    if c.shape[0] not in (1, size):
        raise ValueError(f"center has {c.shape[0]} rows, which is not allowed: must be one centre or size = {size}.")
    ELEMENTS.check(size * c.shape[1], "the points (size × d)")
    return _uniform_in_ball(c, radius, size, as_rng(rng))


def _uniform_in_ball(c: np.ndarray, radius: float, size: int, g) -> np.ndarray:
    """:func:`uniform_in_ball` on validated input (c of shape (1, d) or (size, d), d ≥ 1)."""
    d = c.shape[1]
    z = g.standard_normal((size, d))
    norm = np.linalg.norm(z, axis=1, keepdims=True)
    z /= np.where(norm > 0, norm, 1.0)  # ‖g‖ = 0 has probability 0; never a division by zero
    return c + radius * g.random((size, 1)) ** (1.0 / d) * z


@dataclass(frozen=True)
class DPEstimate1Result:
    """Outcome of :func:`dp_estimate_1`: ``point`` (None for garbage), ``outcome`` ∈ {"point", "G1", "G2"},
    rounds run."""

    point: np.ndarray | None
    outcome: str
    rounds: int
    cap: int

    def __post_init__(self):
        check_choice(self.outcome, "outcome", ("point", "G1", "G2"))
        if self.outcome == "point":
            object.__setattr__(self, "point", check_real_array(self.point, "point", ndim=1))
        elif self.point is not None:
            raise ValueError(f"point = {self.point!r} is not allowed with outcome = {self.outcome!r}: must be None "
                             "(garbage has no point).")
        cap = check_integer(self.cap, "cap", minimum=0)
        object.__setattr__(self, "rounds", check_integer(self.rounds, "rounds", minimum=0, maximum=cap))
        object.__setattr__(self, "cap", cap)


def dp_estimate_1(points, r: float, epsilon: float, delta: float, *, alpha: float = 1 / 3, N: float | str = "teaching",
                  ball_radius: float | None = None, rng=None) -> DPEstimate1Result:
    """Algorithm 1 of Esfandiari, Mirrokni & Narayanan 2022 (DP-Estimate-1, Theorem 4) at privacy (ε, δ): rejection
    sampling for Algorithm A.

    The pseudocode runs at (ε₁, δ₁) = (ε/5, δ/4):

    1. X ~ Geom(1/N) rounds (support {1, 2, …}, mean N), N FIXED IN ADVANCE and data-independent;
    2. each round: i = n+1 (garbage) w.p. expit(log(4/δ₁) − 2ε₁n/3), else i uniform on [n]; if garbage return G1
       w.p. 1/3; else p ~ Unif(B_i) (radius R = r√d), f(p) = #{j : ‖p − x_j‖ ≤ R} (including i) and return p
       w.p. (1/3)(n/f)·e^{ε₁(min(f, 2n/3) − 2n/3)};
    3. after X rounds return G2.

    Conditioned on stopping, one round is exactly Algorithm A with exponent ε₁ and garbage mass (4/δ₁)·V_B
    (Prop 17), i.e. :func:`algorithm_a_1d` at (2ε₁, δ₁). Guarantee: (ε, δ)-DP for any data. The proof of Thm 4 of
    Esfandiari, Mirrokni & Narayanan 2022 composes (3ε₁, 3δ₁) for the G2 bit (Lemma 18) with Algorithm A's privacy and
    concludes (4ε₁, 4δ₁); but Algorithm A with exponent ε₁ is (2ε₁, δ₁)-DP, not the (ε₁, δ₁) claimed by Esfandiari,
    Mirrokni & Narayanan 2022, Prop. 15 (dpviz's own erratum, see :func:`algorithm_a_1d`), so the corrected total is
    (5ε₁, 4δ₁) = (ε, δ). (The paper's proofs assume ε₁, δ₁ ≤ 1/3, i.e. ε ≤ 5/3 here.)

    Parameters
    ----------
    points : array_like, shape (n, d) or (n,)
    r : float
        Known radius r of a ball holding ≥ 2/3 of the points. (The printed signature of Algorithm 1 omits r,
        although its lines 5–6 use it.)
    epsilon, delta : float
        Privacy (ε, δ) of the whole mechanism; the pseudocode runs at (ε/5, δ/4).
    alpha : float
        Failure probability α.
    N : "teaching", "paper" or float
        Mean number of rounds. ``"teaching"`` = 100/α (default, a documented deviation: the paper's
        18·e^{10√(log n)}/α is astronomically large); ``"paper"`` = that value. Never chosen from the data.
    ball_radius : float, optional
        R; default r√d.

    Raises
    ------
    ValueError
        Bad parameters, or nε so small that step 7's probability could exceed ½ (Prop 16 fails at ε₁ = ε/5):
        clamping it would silently change the mechanism.
    """
    x = data_array(points, "points", ndim=(1, 2))
    if x.ndim == 1:
        x = x[:, None]
    n, d = x.shape
    r = SCALE.check(r, "r")
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    alpha = check_probability(alpha, "alpha", open_low=True)
    R = SCALE.check(r * math.sqrt(d), "r·√d") if ball_radius is None else SCALE.check(ball_radius, "ball_radius")
    if isinstance(N, str):
        check_choice(N, "N", ("teaching", "paper"))
        N = teaching_round_cap(alpha) if N == "teaching" else paper_round_cap(n, alpha)
    N = check_in_range(N, "N", 1.0, 1e15)
    e1, _ = _algorithm_1_parameters(eps, delta)
    if not acceptance_probability_valid(n, e1):
        c = 2 * n / 3
        need = f"≥ {5 * math.log(c) / (c - 1):.4g}" if c > 1 else "impossible with n = 1"
        raise ValueError(f"epsilon = {eps:.4g} is not allowed with n = {n} users: must be {need} "
                         "(Esfandiari, Mirrokni & Narayanan 2022, Algorithm 1, runs at ε₁ = ε/5, and Prop 16 needs "
                         "e^x/x ≥ e^ε₁/ε₁ with x = 2ε₁n/3, i.e. "
                         "ε₁ ≥ ln(2n/3)/(2n/3 − 1)); use more users or a larger epsilon.")
    g = as_rng(rng)
    X = int(g.geometric(1.0 / N))
    # ln(4/δ₁) = ln 4 − ln δ₁ (4/δ₁ overflows, δ₁ = δ/4 underflows, for subnormal δ); expit(−inf) = 0
    p_garbage = float(special.expit(math.log(4.0) - _log_delta_1(delta) - 2 * e1 * n / 3))
    cap = 2 * n / 3
    done = 0
    chunk_max = max(1, min(4096, 4_000_000 // max(1, n * d)))
    while done < X:
        c = min(chunk_max, X - done)
        garb = g.random(c) < p_garbage
        u = g.random(c)
        idx = g.integers(n, size=c)
        p = _uniform_in_ball(x[idx], R, c, g)
        dist2 = ((p[:, None, :] - x[None, :, :]) ** 2).sum(axis=2)
        f = np.maximum((dist2 <= R * R).sum(axis=1), 1)  # f ≥ 1 (own ball) up to rounding
        with np.errstate(over="ignore", invalid="ignore"):  # ε₁ near 1e308: e^{ε₁(min(f, c) − c)} is 0 or 1
            gap = np.minimum(f, cap) - cap
            log_acc = np.where(gap == 0, 0.0, e1 * gap) + np.log(n / (3.0 * f))
        acc = np.where(garb, u < 1 / 3, np.log(np.maximum(u, 1e-300)) < log_acc)
        hit = np.flatnonzero(acc)
        if hit.size:
            k = int(hit[0])
            if garb[k]:
                return DPEstimate1Result(None, "G1", done + k + 1, X)
            return DPEstimate1Result(p[k], "point", done + k + 1, X)
        done += c
    return DPEstimate1Result(None, "G2", X, X)


# --------------------------------------------------------------------------------------------- composition


def split_budget(epsilon: float, delta: float, k: int) -> tuple[float, float]:
    """Per-mechanism (e, d) so that k of them compose to (ε, δ): a split derived here from Thm 12
    of Esfandiari, Mirrokni & Narayanan 2022.

    Strong composition (Esfandiari, Mirrokni & Narayanan 2022, Thm 12): δ′ = δ/2, d = δ/(2k), e solves √(2k·log(2/δ))·e
    + k·e(e^e − 1) = ε (bisection); the weak split (ε/k, δ/k) is used instead when its e is larger.

    >>> e, dd = split_budget(1.0, 1e-6, 1)
    >>> e, dd
    (1.0, 1e-06)
    """
    eps, delta, k = check_params(epsilon=epsilon, delta=delta, k=k)
    if k == 1:
        return eps, delta
    L = math.sqrt(2 * k * (math.log(2.0) - math.log(delta)))  # 2/δ overflows for subnormal δ

    def total(e):
        return L * e + k * e * expm1_or_inf(e)  # inf, not OverflowError, for e > 709

    lo, hi = 0.0, eps
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if total(mid) <= eps else (lo, mid)
    strong = (lo, delta / (2 * k))
    weak = (eps / k, delta / k)
    return strong if strong[0] > weak[0] else weak


def dp_estimate_2(points, r: float, epsilon: float, delta: float, *, alpha: float = 0.05, copies: int | None = None,
                  N: float | str = "teaching", ball_radius: float | None = None, rng=None) -> np.ndarray | None:
    """Algorithm 2 of Esfandiari, Mirrokni & Narayanan 2022 (DP-Estimate-2, Corollary 5): coordinate-wise median of k
    copies of DP-Estimate-1.

    Overall (ε, δ)-DP: the budget is split over the k copies (:func:`split_budget`) and each copy is
    :func:`dp_estimate_1` at that per-copy (e, d) (its pseudocode runs at (e/5, d/4): Thm 4 of Esfandiari,
    Mirrokni & Narayanan 2022 with the corrected Prop. 15) with failure 1/3. Garbage copies are discarded; if all are
    garbage the result is None (⊥; the paper is silent).

    ``copies`` default ⌈8·log(1/α)⌉: a heuristic (Hoeffding would need 112.5·log(1/α), derived here).
    """
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    if copies is None:
        k = math.ceil(8 * -math.log(alpha))  # −ln α: 1/α overflows for subnormal α (k ≤ 5956 then)
    else:
        k = REPETITIONS.check(copies, "copies")
    e, dd = split_budget(epsilon, delta, k)
    g = as_rng(rng)
    outs = [dp_estimate_1(points, r, e, dd, alpha=1 / 3, N=N, ball_radius=ball_radius, rng=g) for _ in range(k)]
    good = [o.point for o in outs if o.point is not None]
    if not good:
        return None
    return np.median(np.array(good), axis=0)


def _blocks(points, r, epsilon, delta, alpha, k, N, g, ball_radius_factor=None):
    x = np.asarray(points, dtype=float)
    n, d = x.shape
    if k == 1:
        R = None if ball_radius_factor is None else ball_radius_factor * r
        res = dp_estimate_1(x, r, epsilon, delta, alpha=alpha, N=N, ball_radius=R, rng=g)
        return res.point
    dp = next_power_of_two(d)
    if k * k > dp or k & (k - 1):
        raise ValueError(f"k = {k} is not allowed: must be a power of two with k² ≤ {dp} (padded d).")
    U = random_rotation(d, rng=g)
    y = U.apply(x)
    e, dd = split_budget(epsilon, delta, k * k)
    rs = r * math.sqrt(2 * (math.log(2 * n * d) - math.log(alpha))) / k  # 2nd/α overflows for subnormal α
    size = dp // (k * k)
    parts = []
    for s in range(k * k):
        blk = y[:, s * size:(s + 1) * size]
        R = None if ball_radius_factor is None else ball_radius_factor * rs
        res = dp_estimate_1(blk, rs, e, dd, alpha=alpha / (k * k), N=N, ball_radius=R, rng=g)
        if res.point is None:
            return None
        parts.append(res.point)
    return U.invert(np.concatenate(parts))


def dp_estimate_blocks(points, r: float, epsilon: float, delta: float, *, k: int = 1, alpha: float = 0.05,
                       N: float | str = "teaching", rng=None) -> np.ndarray | None:
    """Theorem 6 of Esfandiari, Mirrokni & Narayanan 2022: interpolate to more users with k² blocks of a randomized
    Hadamard rotation.

    M = d^{-1/2}HD (fresh, data-independent, shared by all points); block s = coordinates s·d/k² … of M·x_i; each
    block runs DP-Estimate-1 at the strong-composition split of (ε, δ) over k² blocks (:func:`dp_estimate_1` then
    runs its pseudocode at (ε/5, δ/4) of that share: Thm 4 of Esfandiari, Mirrokni & Narayanan 2022 with the corrected
    Prop. 15) with radius r_s = r·√(2·log(2nd/α))/k (Hoeffding form of Lemma 20, derived here) and failure α/k²; return
    M⁻¹·concat. Error O(r√(d·log(dn/α))/k). k = 1: no rotation, DP-Estimate-1 on the points with radius r.
    Returns None if any block returns garbage (⊥).
    """
    x = data_array(points, "points", ndim=2)
    r = SCALE.check(r, "r")
    eps, delta, alpha = check_params(epsilon=epsilon, delta=delta, alpha=alpha)
    k = DIMENSION.check(k, "k")
    return _blocks(x, r, eps, delta, alpha, k, N, as_rng(rng))


def dp_estimate_user(data, r: float, epsilon: float, delta: float, *, k: int = 1, alpha: float = 0.05,
                     N: float | str = "teaching", markov_factor: float = 10.0, rng=None) -> np.ndarray | None:
    """Algorithm 3 of Esfandiari, Mirrokni & Narayanan 2022 (DP-Estimate-User, Theorem 7): user-level (ε, δ)-DP mean,
    robust to n/4 corrupted users.

    X̄_i = each user's average; effective radius r′ = 10r/√m (proof of Thm 7: E‖X̄_i − µ‖² ≤ 2r²/m and Markov gives
    ≥ 49/50 of users within 10r/√m; ≥ 11n/12 − n/4 = 2n/3 good users remain after n/4 corruptions); then
    :func:`dp_estimate_blocks` with r′ (k = 1: DP-Estimate-1 directly at (ε, δ), no composition; its pseudocode
    runs at (ε/5, δ/4), Thm 4 of Esfandiari, Mirrokni & Narayanan 2022 with dpviz's correction of Prop. 15, see
    :func:`dp_estimate_1`). Line 6 of the printed Algorithm 3 uses X_i (should be X̄_i) and line 8 uses n/k² (should be
    d/k²): corrected here.

    Parameters
    ----------
    data : array_like, shape (n, m, d) or (n, m)
        Users × samples (× dimension). Second-moment radius r: E‖X − µ‖² ≤ r².
    r : float
    epsilon, delta : float
        Target user-level (ε, δ).
    k : int
        Number of Hadamard block rows (power of two, k² ≤ d).
    markov_factor : float
        The 10 of r′ = 10r/√m (worst-case Markov constant of the proof of Theorem 7; inflates the error ~10× on
        Gaussian data).

    Returns
    -------
    np.ndarray of shape (d,), or None (⊥) when the mechanism returns garbage.
    """
    x = data_array(data, "data", ndim=(2, 3))
    if x.ndim == 2:
        x = x[:, :, None]
    r = SCALE.check(r, "r")
    c = check_in_range(markov_factor, "markov_factor", 0.0, 1e6, low_inclusive=False)
    m = x.shape[1]
    means = x.mean(axis=1)
    return dp_estimate_blocks(means, c * r / math.sqrt(m), epsilon, delta, k=k, alpha=alpha, N=N, rng=rng)


def learn_discrete(samples, d: int, epsilon: float, delta: float, *, alpha: float = 0.05, k: int = 1,
                   project: bool = True, rng=None) -> np.ndarray | None:
    """Corollary 8 of Esfandiari, Mirrokni & Narayanan 2022 (Algorithm G): learn a distribution on {0, …, d−1} from n
    users × m samples.

    Each sample becomes the one-hot vector e_ℓ (all in the unit ball around 0, so r = 1); the user-level mean
    estimator runs on the one-hot data; TV ≤ ½√d·‖·‖₂ = Õ(d/(εn√m) + √(d/(mn))). With ``project`` the estimate is
    clipped to ≥ 0 and renormalised (post-processing, DP-safe; not in the paper).
    """
    s = check_real_array(samples, "samples", ndim=2)
    d = check_integer(d, "d", minimum=2, maximum=DIMENSION.high)
    if np.any(s != np.round(s)) or s.min() < 0 or s.max() > d - 1:
        raise ValueError(f"samples contain values outside {{0, …, {d - 1}}}, which is not allowed.")
    n, m = s.shape
    ELEMENTS.check(n * d, "the one-hot user means (n × d)")
    # one-hot means by counting: (number of samples of user i equal to j)/m, as (s == j).mean(axis=1)
    counts = np.bincount((s.astype(np.int64) + d * np.arange(n)[:, None]).ravel(), minlength=n * d)
    onehot_means = counts.reshape(n, d) / m
    est = dp_estimate_blocks(onehot_means, 10.0 / math.sqrt(m), epsilon, delta, k=k, alpha=alpha, rng=rng)
    if est is None or not project:
        return est
    est = np.clip(est, 0.0, None)
    tot = est.sum()
    return est / tot if tot > 0 else np.full(d, 1.0 / d)


def corrupt_users(data, fraction: float, *, mode: str = "far", magnitude: float = 10.0, rng=None) -> np.ndarray:
    """The adversary of Theorem 7 (Esfandiari, Mirrokni & Narayanan 2022): after seeing the data, replace all data of
    ⌊κn⌋ users.

    Modes: ``"far"`` — corrupted users put every sample at µ̂ + magnitude·e₁ (µ̂ = the clean sample mean, which the
    adversary sees); ``"spread"`` — each corrupted user at an independent far random point; ``"shift"`` — all at
    the clean mean + magnitude·r-scale pull in one direction (a subtle bias). Axis 0 indexes users; the rest keeps
    its shape. Returns a copy.
    """
    x = data_array(data, "data", ndim=(1, 2, 3)).copy()
    kappa = check_in_range(fraction, "fraction", 0.0, 1.0)
    check_choice(mode, "mode", ("far", "spread", "shift"))
    mag = SCALE_OR_ZERO.check(magnitude, "magnitude")
    n = x.shape[0]
    c = int(math.floor(kappa * n + 1e-9))
    if c == 0:
        return x
    g = as_rng(rng)
    bad = g.choice(n, size=c, replace=False)
    flat = x.reshape(n, -1, x.shape[-1]) if x.ndim == 3 else x.reshape(n, -1, 1)
    center = flat.reshape(-1, flat.shape[-1]).mean(axis=0)
    e1 = np.zeros(flat.shape[-1])
    e1[0] = 1.0
    if mode == "far":
        flat[bad] = center + mag * e1
    elif mode == "shift":
        flat[bad] = center + 0.5 * mag * e1
    else:
        z = g.standard_normal((c, flat.shape[-1]))
        norm = np.linalg.norm(z, axis=1, keepdims=True)
        z /= np.where(norm > 0, norm, 1.0)
        flat[bad] = (center + mag * z)[:, None, :]
    return flat.reshape(x.shape)


# --------------------------------------------------------------------------------------------- bounds


def users_lower_bound(epsilon: float, delta: float) -> float:
    """Lemma 9 of Esfandiari, Mirrokni & Narayanan 2022: no user-level (ε, δ)-DP algorithm learns the ball to any
    accuracy w.p. 2/3 with n ≤ log(1/δ)/(3ε) users, even with m = ∞ (assumes δ ≤ ε²).

    >>> round(users_lower_bound(1.0, 1e-6), 2), round(users_lower_bound(0.1, 1e-6), 1)
    (4.61, 46.1)
    """
    eps, delta = check_params(epsilon=epsilon, delta=delta)
    return evaluate_finite(lambda: -math.log(delta) / (3 * eps), "log(1/δ)/(3ε)", epsilon=epsilon, delta=delta)


def levy_users_required(d: int, epsilon: float, delta: float) -> float:
    """The older requirement n ≳ √d·log(1/δ)/ε (Levy et al. 2021, Cor 1, constants and log factors
    dropped) that Esfandiari, Mirrokni & Narayanan 2022 removes; that paper prints it both as √d·log(1/δ)/ε and as
    √(d·log(1/δ))/ε, a difference inside Õ.

    >>> levy_users_required(100, 1.0, math.exp(-1))
    10.0
    """
    d, eps, delta = check_params(d=d, epsilon=epsilon, delta=delta)
    return evaluate_finite(lambda: math.sqrt(d) * -math.log(delta) / eps, "√d·log(1/δ)/ε", d=d, epsilon=epsilon,
                            delta=delta)


def prop14_users(epsilon: float, delta: float, alpha: float) -> int:
    """Smallest n with (2/3)εn − 10√(log n) ≥ log(16/(αδ)) and (1/3)εn − 11·log n ≥ log(4/α) (Esfandiari,
    Mirrokni & Narayanan 2022, Prop 14 proof).

    ε here is Algorithm A's exponent as printed in the paper, not a privacy level: :func:`algorithm_a_1d` at
    privacy ε uses exponent ε/2 (dpviz's erratum to Prop. 15), so pass ε/2 to size it.

    >>> prop14_users(1.0, 1e-6, 0.05)
    186
    """
    eps, delta, alpha = check_params(epsilon=epsilon, delta=delta, alpha=alpha)
    log_16_ad = math.log(16.0) - math.log(alpha) - math.log(delta)  # 16/(αδ) overflows for tiny α, δ
    log_4_a = math.log(4.0) - math.log(alpha)

    def ok(n):
        return (2 / 3 * eps * n - 10 * math.sqrt(math.log(n)) >= log_16_ad
                and eps * n / 3 - 11 * math.log(n) >= log_4_a)

    hi = 2
    while not ok(hi):
        hi *= 2
        if hi > COUNT.high:
            raise ValueError(f"epsilon = {epsilon!r}, delta = {delta!r}, alpha = {alpha!r} are not allowed together: "
                             f"Prop. 14 would need more than {COUNT.high} users (must need <= that many); "
                             "use a larger epsilon.")
    lo = hi // 2
    while lo + 1 < hi:  # ok is monotone for n past the minimum of εn/3 − 11 log n
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    n = hi
    while n > 2 and ok(n - 1):
        n -= 1
    return n


def lemma9_chain(n: int, epsilon: float, delta: float, p_n: float = 2 / 3) -> np.ndarray:
    """The hybrid chain of Lemma 9 (Esfandiari, Mirrokni & Narayanan 2022): smallest p_i allowed by p_{i+1} ≤ e^ε·p_i +
    δ from p_n (i = n … 0).

    p_i ≥ max(0, (p_{i+1} − δ)·e^{−ε}); returns [p_0, …, p_n].

    >>> lemma9_chain(2, math.log(2), 0.0, 1.0).tolist()
    [0.25, 0.5, 1.0]
    """
    n = check_integer(n, "n", minimum=0, maximum=ELEMENTS.limit - 1)
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta")
    p = np.empty(n + 1)
    p[n] = check_probability(p_n, "p_n")
    for i in range(n - 1, -1, -1):
        p[i] = max(0.0, (p[i + 1] - delta) * math.exp(-eps))
    return p


def theorem7_error(n: int, m: int, d: int, epsilon: float, delta: float, alpha: float, r: float = 1.0) -> float:
    """Theorem 7 of Esfandiari, Mirrokni & Narayanan 2022 (shape, O-constants set to 1): min{ r√(d/m),
    r√d·log(d/δ)·√log(1/δ)·√log(dn/α)/(εn√m) }."""
    n, m, d, eps, delta, alpha, r = check_params(n=n, m=m, d=d, epsilon=epsilon, delta=delta, alpha=alpha, r=r)
    a = r * math.sqrt(d / m)
    # logs of quotients as differences (d/δ, 1/δ, dn/α overflow for subnormal δ, α); b = inf just loses the min
    log_dd, log_1d, log_dna = math.log(d) - math.log(delta), -math.log(delta), math.log(d * n) - math.log(alpha)
    with np.errstate(over="ignore"):
        b = float(np.float64(r) * math.sqrt(d) * log_dd * math.sqrt(log_1d) * math.sqrt(log_dna)
                  / (eps * n * math.sqrt(m)))
    return finite_result(min(a, b), "the error bound", n=n, m=m, d=d, r=r)


def corollary8_error(n: int, m: int, d: int, epsilon: float, r: float = 1.0) -> float:
    """Corollary 8 of Esfandiari, Mirrokni & Narayanan 2022 (logs and constants dropped): r·(√d/(εn√m) + 1/√(mn))."""
    n, m, d, eps, r = check_params(n=n, m=m, d=d, epsilon=epsilon, r=r)
    return evaluate_finite(lambda: r * (math.sqrt(d) / (eps * n * math.sqrt(m)) + 1 / math.sqrt(m * n)),
                            "the error bound", n=n, m=m, d=d, epsilon=epsilon, r=r)


def robust_floor(kappa: float, m: int, r: float = 1.0) -> float:
    """Proposition 27 of Esfandiari, Mirrokni & Narayanan 2022: with a κ fraction of users corrupted no estimator beats
    r·κ/√m (up to constants), even without privacy.

    The proof's two laws (mass ½ ± κ/√m on ±v) have means 4κ/√m apart, not the printed "2κ/√m";
    the constant is dropped here either way.

    >>> robust_floor(0.25, 100)
    0.025
    """
    kappa = check_in_range(kappa, "kappa", 0.0, 1.0)
    m = COUNT.check(m, "m")
    r = check_positive(r, "r")
    return r * kappa / math.sqrt(m)


def theorem7_guarantee(m: int, d: int, r: float = 1.0, markov_factor: float = 10.0) -> float:
    """The error radius r′(1 + √d), r′ = c·r/√m, of DP-Estimate-User (Esfandiari, Mirrokni & Narayanan 2022, Theorem 7
    with Proposition 14; c = 10, the Markov constant of Theorem 7's proof, as in :func:`dp_estimate_user`).

    >>> round(theorem7_guarantee(100, 2), 4)
    2.4142
    """
    m, d, r = check_params(m=m, d=d, r=r)
    c = check_in_range(markov_factor, "markov_factor", 0.0, 1e6, low_inclusive=False)
    return evaluate_finite(lambda: c * r / math.sqrt(m) * (1.0 + math.sqrt(d)), "r′(1 + √d)", m=m, d=d, r=r)


def corollary8_samples(n, d: int, epsilon: float, error: float, r: float = 1.0):
    """Samples per user needed for ℓ₂ error a by Corollary 8 of Esfandiari, Mirrokni & Narayanan 2022 (constants and
    logs dropped), at least one: m = max{r²d/(ε²n²a²), r²/(na²), 1} — :func:`corollary8_error` solved for m term by
    term.

    ``n`` broadcasts (real numbers ≥ 1, for curves over n); a float for scalar n.

    >>> round(corollary8_samples(10, 100, 1.0, 0.1), 9)
    100.0
    >>> corollary8_samples([1e3, 1e5], 100, 1.0, 0.1).tolist()
    [1.0, 1.0]
    """
    d, eps, r = check_params(d=d, epsilon=epsilon, r=r)
    a = check_positive(error, "error")
    nn = real_counts(n, "n")
    eps, a, r = np.float64(eps), np.float64(a), np.float64(r)  # inf or 0 at the extremes, not OverflowError
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        m = np.maximum(np.maximum(r * r * d / (eps ** 2 * nn ** 2 * a ** 2), r * r / (nn * a ** 2)), 1.0)
    if not np.all(np.isfinite(m)):
        finite_result(math.inf, "the number of samples", d=d, epsilon=epsilon, error=error, r=r)
    return float(m) if m.ndim == 0 else m


def levy_max_dimension(n: int, epsilon: float, delta: float) -> float:
    """The largest d with n ≥ √d·log(1/δ)/ε (:func:`levy_users_required` solved for d): (εn/log(1/δ))².

    >>> levy_max_dimension(10, 1.0, math.exp(-1))
    100.0
    """
    n, eps, delta = check_params(n=n, epsilon=epsilon, delta=delta)
    return evaluate_finite(lambda: (eps * n / -math.log(delta)) ** 2, "(εn/log(1/δ))²", n=n, epsilon=epsilon,
                            delta=delta)


# --------------------------------------------------------------------------------------------- lesson 12 scenes
# Seeded, cached experiments behind the lesson-05 panels (the same numbers for every control value).


@dataclass(frozen=True)
class _NeighboursKey:
    n: int
    epsilon: float
    delta: float
    r: float
    resolution: int
    spread: float
    seed: int


@lru_cache(maxsize=8)
def _gaussian_points(n: int, spread: float, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).normal(0.0, spread, (n, 2))
    x.setflags(write=False)
    return x


@lru_cache(maxsize=64)
def _algorithm_a_original(key: _NeighboursKey) -> AlgorithmA2D:
    return algorithm_a_2d(_gaussian_points(key.n, key.spread, key.seed), key.r, key.epsilon, key.delta,
                          resolution=key.resolution)


def algorithm_a_neighbours_2d(n: int, move: float, epsilon: float, delta: float, *, r: float = 1.0,
                              resolution: int = 70, spread: float = 0.35, seed: int = 3):
    """Algorithm A (Esfandiari, Mirrokni & Narayanan 2022) in 2-D on n user means x_i ~ N(0, spread²I) (seeded) and on
    the neighbour x′ whose last user is moved by ``move`` along the first axis (lesson 12, "inside Algorithm A").

    Returns
    -------
    points, moved_points : np.ndarray, shape (n, 2)
    original, moved : AlgorithmA2D
        :func:`algorithm_a_2d` on x and on x′ (the one on x is cached: it does not depend on ``move``).

    >>> x, xp, A0, A = algorithm_a_neighbours_2d(12, 2.0, 0.5, 1e-3, resolution=30)
    >>> float(xp[-1, 0] - x[-1, 0]), A0 is algorithm_a_neighbours_2d(12, 3.0, 0.5, 1e-3, resolution=30)[2]
    (2.0, True)
    """
    n = GRID_POINTS.check(n, "n")
    move = check_in_range(move, "move", -MAGNITUDE, MAGNITUDE)
    spread = SCALE.check(spread, "spread")
    key = _NeighboursKey(n, check_positive(epsilon, "epsilon"), check_delta(delta, "delta", allow_zero=False),
                         SCALE.check(r, "r"), check_integer(resolution, "resolution", minimum=10, maximum=1000),
                         spread, int(seed))
    x = _gaussian_points(n, spread, key.seed)
    xp = x.copy()
    xp[-1, 0] += move
    return x, xp, _algorithm_a_original(key), algorithm_a_2d(xp, key.r, key.epsilon, key.delta,
                                                             resolution=key.resolution)


_ROBUSTNESS_CACHE = RecentResults(8)


def robustness_curve(kappas, m: int, epsilon: float, *, n: int = 150, d: int = 2, r: float = 1.0,
                     delta: float = 1e-6, runs: int = 3, center: float = 0.5, magnitude: float = 20.0,
                     seed: int = 27, progress: Callable[[float], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Median ℓ₂ error against the fraction κ of corrupted users: :func:`dp_estimate_user` (Esfandiari,
    Mirrokni & Narayanan 2022, Theorem 7) and the plain mean of user means (lesson 12, "corrupted users").

    For each κ, ``runs`` datasets of n exact Gaussian user means (centre ``center`` in every coordinate, covariance
    r²/(dm)·I, i.e. E‖X̄ − µ‖² = r²/m) are corrupted by :func:`corrupt_users` (``magnitude`` away); each user is
    given as its mean, so r′ = 10r/√m enters through ``markov_factor``. A ⊥ output counts as an infinite error.
    All draws come in order from one generator seeded with ``seed``; results are cached (read-only) and
    ``progress(fraction)`` is called after each κ when they are computed. :func:`iter_robustness_curve` gives the
    same numbers κ by κ.

    Returns
    -------
    robust, naive : np.ndarray over ``kappas``

    >>> rob, nai = robustness_curve([0.0, 0.25], 100, 1.0, n=60, runs=1)
    >>> rob.shape, bool(nai[1] > nai[0])
    ((2,), True)
    """
    steps = iter_robustness_curve(kappas, m, epsilon, n=n, d=d, r=r, delta=delta, runs=runs, center=center,
                                  magnitude=magnitude, seed=seed, progress=progress)
    _done, rob, nai = deque(steps, maxlen=1)[0]  # the last step: the whole curve
    return rob, nai


def iter_robustness_curve(kappas, m: int, epsilon: float, *, n: int = 150, d: int = 2, r: float = 1.0,
                          delta: float = 1e-6, runs: int = 3, center: float = 0.5, magnitude: float = 20.0,
                          seed: int = 27, progress: Callable[[float], None] | None = None
                          ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """:func:`robustness_curve` κ by κ: yields ``(j, robust, naive)`` after each of the first j values of
    ``kappas`` (arrays of length j), the last one (j = len(kappas)) the cached, read-only result of
    :func:`robustness_curve`; a cached result is yielded at once. Arguments are validated at the call.

    >>> [j for j, rob, nai in iter_robustness_curve([0.0, 0.1, 0.25], 100, 1.0, n=60, runs=1, seed=3)]
    [1, 2, 3]
    """
    ks = check_real_array(kappas, "kappas", ndim=1)
    if ks.size > 100 or np.any((ks < 0) | (ks > 1)):
        raise ValueError(f"kappas = {kappas!r} is not allowed: must be at most 100 fractions in [0, 1].")
    m, d, r, eps, delta = check_params(m=m, d=d, r=r, epsilon=epsilon, delta=delta)
    n = SIZE.check(n, "n")
    runs = REPETITIONS.check(runs, "runs")
    ELEMENTS.check(n * d, "the user means (n × d)")
    center = check_in_range(center, "center", -MAGNITUDE, MAGNITUDE)
    magnitude = SCALE_OR_ZERO.check(magnitude, "magnitude")
    if progress is not None and not callable(progress):
        raise ValueError(f"progress = {progress!r} is not allowed: must be a callable progress(fraction) or None.")
    key = (tuple(ks.tolist()), m, eps, n, d, r, delta, runs, center, magnitude, int(seed))
    return _robustness_steps(ks, key, progress)


def _robustness_steps(ks, key, progress) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    kept = _ROBUSTNESS_CACHE.get(key)
    if kept is not None:
        rob, nai = kept
        yield ks.size, rob, nai
        return
    _, m, eps, n, d, r, delta, runs, center, magnitude, seed = key
    g = np.random.default_rng(seed)
    rob, nai = [], []
    for j, kap in enumerate(ks):
        er, en = [], []
        for _ in range(runs):
            means = center + g.normal(0.0, r / math.sqrt(d * m), (n, d))  # exact law of Gaussian user means
            bad = corrupt_users(means[:, None, :], float(kap), magnitude=magnitude, rng=g)
            est = dp_estimate_user(bad, r, eps, delta, rng=g, markov_factor=10.0 / math.sqrt(m))
            er.append(np.inf if est is None else float(np.linalg.norm(est - center)))
            en.append(float(np.linalg.norm(bad.mean(axis=(0, 1)) - center)))
        rob.append(np.median(er))
        nai.append(np.median(en))
        if progress is not None:
            progress((j + 1) / ks.size)
        if j + 1 < ks.size:
            yield j + 1, np.array(rob), np.array(nai)
    out = (np.array(rob), np.array(nai))
    for a in out:
        a.setflags(write=False)
    _ROBUSTNESS_CACHE.put(key, out)
    yield ks.size, out[0], out[1]
