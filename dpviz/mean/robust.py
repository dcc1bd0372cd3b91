"""Private ball-finding with a garbage bucket (003: Esfandiari, Mirrokni & Narayanan, "Tight and Robust Private
Mean Estimation with Few Users", 2022).

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
from dataclasses import dataclass

import numpy as np
from scipy import special

from dpviz._validation import (
    as_rng,
    check_array,
    check_choice,
    check_delta,
    check_in_range,
    check_integer,
    check_positive,
    check_probability,
)
from dpviz.mean.hadamard import next_power_of_two, random_rotation

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
]


def _log_vol_ball(d: int, R: float) -> float:
    """log Vol(B_d(R)) = (d/2)·log π + d·log R − log Γ(d/2 + 1)."""
    return 0.5 * d * math.log(math.pi) + d * math.log(R) - special.gammaln(d / 2 + 1)


def _algorithm_1_parameters(eps: float, delta: float) -> tuple[float, float]:
    """Pseudocode parameters (ε₁, δ₁) = (ε/5, δ/4) at which Algorithm 1 of 003 runs so that it is (ε, δ)-DP.

    Proof of Theorem 4 of 003 (weak composition) with dpviz's corrected Prop. 15: the G2 bit is (3ε₁, 3δ₁)-DP
    (Lemma 18) and a stopped round is a draw of Algorithm A at exponent ε₁, which is (2ε₁, δ₁)-DP (not (ε₁, δ₁) as
    Prop. 15 states); total (5ε₁, 4δ₁) = (ε, δ).
    """
    return eps / 5.0, delta / 4.0


# --------------------------------------------------------------------------------------------- Algorithm A, 1-D


@dataclass(frozen=True)
class AlgorithmA1D:
    """Exact output law of Algorithm A (003, Thm 2) in 1-D: piecewise-constant density + garbage atom.

    ``edges`` (K+1,) sorted breakpoints; ``counts`` f on each of the K segments; ``density`` the normalised density
    on each segment (0 where f = 0); ``garbage`` = P[G] = (4/δ)V_B / (Z + (4/δ)V_B).
    """

    edges: np.ndarray
    counts: np.ndarray
    density: np.ndarray
    garbage: float

    def __post_init__(self):
        check_probability(self.garbage, "garbage")

    @property
    def segment_probabilities(self) -> np.ndarray:
        return self.density * np.diff(self.edges)

    def pdf(self, y) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        j = np.searchsorted(self.edges, y, side="right") - 1
        inside = (j >= 0) & (j < len(self.density))
        return np.where(inside, self.density[np.clip(j, 0, len(self.density) - 1)], 0.0)

    def sample(self, size: int | None = None, *, rng=None) -> np.ndarray:
        """Draws; the garbage outcome is returned as NaN (a data-independent symbol ⊥)."""
        g = as_rng(rng)
        k = 1 if size is None else check_integer(size, "size", minimum=1)
        probs = np.append(self.segment_probabilities, self.garbage)
        probs = probs / probs.sum()
        seg = g.choice(len(probs), size=k, p=probs)
        out = np.full(k, np.nan)
        ok = seg < len(self.density)
        lo, hi = self.edges[seg[ok]], self.edges[seg[ok] + 1]
        out[ok] = lo + (hi - lo) * g.random(ok.sum())
        return out[0] if size is None else out


def algorithm_a_1d(points, r: float, epsilon: float, delta: float, *, ball_radius: float | None = None) -> AlgorithmA1D:
    """Algorithm A of 003 (Theorem 2), exact in 1-D, run so that it is (ε, δ)-DP: exponent ε/2.

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
        R; default r (= r√d with d = 1). Pitfall 15 of the digest: in low dimension use r(√d + 1) = 2r, so that
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
    x = check_array(points, "points", ndim=1)
    r = check_positive(r, "r")
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    R = r if ball_radius is None else check_positive(ball_radius, "ball_radius")
    return _algorithm_a_1d_law(x, R, eps / 2.0, delta)


def _algorithm_a_1d_law(x: np.ndarray, R: float, lam: float, delta: float) -> AlgorithmA1D:
    """Algorithm A's output law as printed in 003, with exponent ``lam`` (density ∝ e^{lam·min(f, 2n/3)})."""
    n = x.size
    edges = np.unique(np.concatenate([x - R, x + R]))
    mids = 0.5 * (edges[:-1] + edges[1:])
    xs = np.sort(x)
    f = np.searchsorted(xs, mids + R, side="right") - np.searchsorted(xs, mids - R, side="left")
    lengths = np.diff(edges)
    with np.errstate(divide="ignore"):
        logw = np.where(f > 0, lam * np.minimum(f, 2 * n / 3) + np.log(lengths), -np.inf)
    log_g = math.log(4 / delta) + math.log(2 * R)
    top = max(float(np.max(logw)), log_g)
    w = np.exp(logw - top)
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
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    edges = np.union1d(a.edges, b.edges)
    mids = 0.5 * (edges[:-1] + edges[1:])
    lengths = np.diff(edges)
    pa, pb = a.pdf(mids), b.pdf(mids)
    e = np.exp(eps)[:, None]
    cont = np.sum(np.maximum(0.0, pa[None, :] - e * pb[None, :]) * lengths[None, :], axis=1)
    out = cont + np.maximum(0.0, a.garbage - np.exp(eps) * b.garbage)
    return out if np.ndim(epsilon) else out[0]


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
    grid = check_array(eps_grid, "eps_grid", ndim=1)
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


def algorithm_a_2d(points, r: float, epsilon: float, delta: float, *, ball_radius: float | None = None,
                   resolution: int = 120) -> AlgorithmA2D:
    """Algorithm A of 003 in 2-D on a ``resolution``² grid over the bounding box of ∪B_i (approximate).

    Balls of radius R = r√2 (paper) around each point; density ∝ e^{(ε/2)·min(f, 2n/3)} on f > 0; garbage mass
    (4/δ)·πR². The grid integral is a midpoint rule (error O(cell size) at ball boundaries).

    The exponent is ε/2 so that the mechanism is (ε, δ)-DP: with the printed exponent ε it is only (2ε, δ)-DP, not
    the (ε, δ) claimed by Esfandiari, Mirrokni & Narayanan 2022, Prop. 15 (dpviz's own erratum; see
    :func:`algorithm_a_1d`).

    >>> A = algorithm_a_2d([[0, 0], [0.2, 0]], 1.0, 1.0, 0.1, resolution=50)
    >>> int(A.counts.max())
    2
    """
    x = check_array(points, "points", ndim=2)
    if x.shape[1] != 2:
        raise ValueError(f"points has shape {x.shape}, which is not allowed: must be (n, 2).")
    r = check_positive(r, "r")
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    res = check_integer(resolution, "resolution", minimum=10, maximum=1000)
    R = r * math.sqrt(2) if ball_radius is None else check_positive(ball_radius, "ball_radius")
    n = x.shape[0]
    lo, hi = x.min(axis=0) - R, x.max(axis=0) + R
    xs = np.linspace(lo[0], hi[0], res + 1)
    ys = np.linspace(lo[1], hi[1], res + 1)
    cx, cy = 0.5 * (xs[1:] + xs[:-1]), 0.5 * (ys[1:] + ys[:-1])
    cell = (xs[1] - xs[0]) * (ys[1] - ys[0])
    f = np.zeros((res, res), dtype=int)
    for p in x:  # n small in the teaching widget
        f += ((cx[None, :] - p[0]) ** 2 + (cy[:, None] - p[1]) ** 2 <= R * R)
    logw = np.where(f > 0, (eps / 2.0) * np.minimum(f, 2 * n / 3), -np.inf)  # exponent ε/2 (erratum to Prop. 15)
    log_g = math.log(4 / delta) + math.log(math.pi * R * R) - math.log(cell)
    top = max(float(logw.max()), log_g)
    w = np.exp(logw - top)
    wg = math.exp(log_g - top)
    Z = w.sum() + wg
    return AlgorithmA2D(cx, cy, f, w / Z / cell, float(wg / Z), R)


# --------------------------------------------------------------------------------------------- Algorithm 1


def acceptance_probability_valid(n: int, epsilon: float) -> bool:
    """Prop 16 of 003, exact form: step 7's probability is ≤ ½ for every f iff e^x/x ≥ e^ε/ε, x = 2εn/3.

    Here ε is the *pseudocode* parameter ε₁ of Algorithm 1 (the exponent), not a privacy level:
    :func:`dp_estimate_1` at privacy (ε, δ) runs the pseudocode at ε₁ = ε/5. Equivalently (with c = 2n/3 > 1):
    ε₁ ≥ ln(c)/(c − 1).

    >>> acceptance_probability_valid(2, 1.0), acceptance_probability_valid(10, 1/3), acceptance_probability_valid(11, 1/3)
    (True, False, True)
    """
    n = check_integer(n, "n", minimum=1)
    eps = check_positive(epsilon, "epsilon")
    xx = 2 * eps * n / 3
    if 2 * n / 3 < 1:
        return False
    return xx - math.log(xx) >= eps - math.log(eps) - 1e-12


def paper_round_cap(n: int, alpha: float) -> float:
    """N = 18·e^{10√(log n)}/α (003, Lemma 18 proof) — astronomically large (2.1e9/α at n = 100).

    Theorem 4 and Corollary 5 of 003 print the runtime as e^{√(10 log n)}; Algorithm 1 (N = Θ(e^{10√(log n)}/α)) and
    Lemma 18 (q ≥ 1/(18e^{10√(log n)})) are taken as authoritative (digest 003 §7 item 1).

    >>> f"{paper_round_cap(100, 1.0):.2e}"
    '3.76e+10'
    """
    n = check_integer(n, "n", minimum=1)
    alpha = check_probability(alpha, "alpha", open_low=True)
    return 18.0 * math.exp(10.0 * math.sqrt(math.log(n))) / alpha


def teaching_round_cap(alpha: float) -> float:
    """N = 100/α: a data-independent teaching default (digest 003 pitfall 6 [ours]); a deviation from the paper."""
    alpha = check_probability(alpha, "alpha", open_low=True)
    return 100.0 / alpha


def round_acceptance_1d(points, r: float, epsilon: float, delta: float, *, ball_radius: float | None = None) -> float:
    """Per-round stopping probability q of :func:`dp_estimate_1` at privacy (ε, δ) in 1-D, exactly.

    With the pseudocode parameters (ε₁, δ₁) = (ε/5, δ/4) that :func:`dp_estimate_1` uses:
    q = (n/(3W))·(Z/V_B + 4/δ₁), W = n·e^{2ε₁n/3} + 4n/δ₁ (digest 003 §2.2, from Prop 17), Z the total of
    Algorithm A at exponent ε₁. Computed in log space.
    """
    x = check_array(points, "points", ndim=1)
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    r = check_positive(r, "r")
    R = r if ball_radius is None else check_positive(ball_radius, "ball_radius")
    n = x.size
    e1, d1 = _algorithm_1_parameters(eps, delta)
    A = _algorithm_a_1d_law(x, R, e1, d1)
    # Z/V_B + 4/δ₁ = (4/δ₁) / P[G]
    log_total = math.log(4 / d1) - math.log(A.garbage)
    log_w = np.logaddexp(math.log(n) + 2 * e1 * n / 3, math.log(4 * n / d1))
    return float(math.exp(math.log(n / 3) + log_total - log_w))


def prob_g2(q: float, N: float) -> float:
    """P[Algorithm 1 returns G2] = (1 − q)/((N − 1)q + 1) for X ~ Geom(1/N) rounds (003, Lemma 18 proof).

    >>> prob_g2(0.5, 1.0)
    0.5
    """
    q = check_probability(q, "q")
    N = check_positive(N, "N")
    return (1 - q) / ((N - 1) * q + 1)


def uniform_in_ball(center, radius: float, size: int, *, rng=None) -> np.ndarray:
    """Uniform points in B(c, R): c + R·u^{1/d}·g/‖g‖ (003 footnote 3; the u^{1/d} is essential, pitfall 2)."""
    c = np.atleast_2d(np.asarray(center, dtype=float))
    g = as_rng(rng)
    d = c.shape[1]
    z = g.standard_normal((size, d))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    return c + radius * g.random((size, 1)) ** (1.0 / d) * z


@dataclass(frozen=True)
class DPEstimate1Result:
    """Outcome of :func:`dp_estimate_1`: ``point`` (None for garbage), ``outcome`` ∈ {"point", "G1", "G2"}, rounds run."""

    point: np.ndarray | None
    outcome: str
    rounds: int
    cap: int


def dp_estimate_1(points, r: float, epsilon: float, delta: float, *, alpha: float = 1 / 3, N: float | str = "teaching",
                  ball_radius: float | None = None, rng=None) -> DPEstimate1Result:
    """Algorithm 1 of 003 (DP-Estimate-1, Theorem 4) at privacy (ε, δ): rejection sampling for Algorithm A.

    The pseudocode runs at (ε₁, δ₁) = (ε/5, δ/4):

    1. X ~ Geom(1/N) rounds (support {1, 2, …}, mean N), N FIXED IN ADVANCE and data-independent;
    2. each round: i = n+1 (garbage) w.p. expit(log(4/δ₁) − 2ε₁n/3), else i uniform on [n]; if garbage return G1
       w.p. 1/3; else p ~ Unif(B_i) (radius R = r√d), f(p) = #{j : ‖p − x_j‖ ≤ R} (including i) and return p
       w.p. (1/3)(n/f)·e^{ε₁(min(f, 2n/3) − 2n/3)};
    3. after X rounds return G2.

    Conditioned on stopping, one round is exactly Algorithm A with exponent ε₁ and garbage mass (4/δ₁)·V_B
    (Prop 17), i.e. :func:`algorithm_a_1d` at (2ε₁, δ₁). Guarantee: (ε, δ)-DP for any data. The proof of Thm 4 of
    003 composes (3ε₁, 3δ₁) for the G2 bit (Lemma 18) with Algorithm A's privacy and concludes (4ε₁, 4δ₁); but
    Algorithm A with exponent ε₁ is (2ε₁, δ₁)-DP, not the (ε₁, δ₁) claimed by Esfandiari, Mirrokni & Narayanan
    2022, Prop. 15 (dpviz's own erratum, see :func:`algorithm_a_1d`), so the corrected total is (5ε₁, 4δ₁) = (ε, δ).
    (The paper's proofs assume ε₁, δ₁ ≤ 1/3, i.e. ε ≤ 5/3 here.)

    Parameters
    ----------
    points : array_like, shape (n, d) or (n,)
    r : float
        Known radius r of a ball holding ≥ 2/3 of the points. (The printed signature of Algorithm 1 omits r,
        although its lines 5–6 use it; digest 003 §7 item 3.)
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
        clamping it would silently change the mechanism (pitfall 4).
    """
    x = check_array(points, "points", ndim=(1, 2))
    if x.ndim == 1:
        x = x[:, None]
    n, d = x.shape
    r = check_positive(r, "r")
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    alpha = check_probability(alpha, "alpha", open_low=True)
    R = r * math.sqrt(d) if ball_radius is None else check_positive(ball_radius, "ball_radius")
    if isinstance(N, str):
        check_choice(N, "N", ("teaching", "paper"))
        N = teaching_round_cap(alpha) if N == "teaching" else paper_round_cap(n, alpha)
    N = check_in_range(N, "N", 1.0, 1e15)
    e1, d1 = _algorithm_1_parameters(eps, delta)
    if not acceptance_probability_valid(n, e1):
        c = 2 * n / 3
        need = f"≥ {5 * math.log(c) / (c - 1):.4g}" if c > 1 else "impossible with n = 1"
        raise ValueError(f"epsilon = {eps:.4g} is not allowed with n = {n} users: must be {need} (Algorithm 1 of 003 "
                         "runs at ε₁ = ε/5, and Prop 16 needs e^x/x ≥ e^ε₁/ε₁ with x = 2ε₁n/3, i.e. "
                         "ε₁ ≥ ln(2n/3)/(2n/3 − 1)); use more users or a larger epsilon.")
    g = as_rng(rng)
    X = int(g.geometric(1.0 / N))
    p_garbage = float(special.expit(math.log(4 / d1) - 2 * e1 * n / 3))
    cap = 2 * n / 3
    done = 0
    chunk_max = max(1, min(4096, 4_000_000 // max(1, n * d)))
    while done < X:
        c = min(chunk_max, X - done)
        garb = g.random(c) < p_garbage
        u = g.random(c)
        idx = g.integers(n, size=c)
        p = uniform_in_ball(x[idx], R, c, rng=g) if d > 0 else None
        dist2 = ((p[:, None, :] - x[None, :, :]) ** 2).sum(axis=2)
        f = np.maximum((dist2 <= R * R).sum(axis=1), 1)  # f ≥ 1 (own ball) up to rounding
        log_acc = e1 * (np.minimum(f, cap) - cap) + np.log(n / (3.0 * f))
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
    """Per-mechanism (e, d) so that k of them compose to (ε, δ) (digest 003 P4 [ours]).

    Strong composition (003 Thm 12): δ′ = δ/2, d = δ/(2k), e solves √(2k·log(2/δ))·e + k·e(e^e − 1) = ε
    (bisection); the weak split (ε/k, δ/k) is used instead when its e is larger.

    >>> e, dd = split_budget(1.0, 1e-6, 1)
    >>> e, dd
    (1.0, 1e-06)
    """
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    k = check_integer(k, "k", minimum=1)
    if k == 1:
        return eps, delta
    L = math.sqrt(2 * k * math.log(2 / delta))

    def total(e):
        return L * e + k * e * math.expm1(e)

    lo, hi = 0.0, eps
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if total(mid) <= eps else (lo, mid)
    strong = (lo, delta / (2 * k))
    weak = (eps / k, delta / k)
    return strong if strong[0] > weak[0] else weak


def dp_estimate_2(points, r: float, epsilon: float, delta: float, *, alpha: float = 0.05, copies: int | None = None,
                  N: float | str = "teaching", ball_radius: float | None = None, rng=None) -> np.ndarray | None:
    """Algorithm 2 of 003 (DP-Estimate-2, Corollary 5): coordinate-wise median of k copies of DP-Estimate-1.

    Overall (ε, δ)-DP: the budget is split over the k copies (:func:`split_budget`) and each copy is
    :func:`dp_estimate_1` at that per-copy (e, d) (its pseudocode runs at (e/5, d/4): Thm 4 of 003 with the
    corrected Prop. 15) with failure 1/3. Garbage copies are discarded; if all are garbage the result is None (⊥;
    the paper is silent — pitfall 16).

    ``copies`` default ⌈8·log(1/α)⌉: a heuristic (Hoeffding would need 112.5·log(1/α); digest 003 §2.3).
    """
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    k = math.ceil(8 * math.log(1 / alpha)) if copies is None else check_integer(copies, "copies", minimum=1)
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
    rs = r * math.sqrt(2 * math.log(2 * n * d / alpha)) / k
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
    """Theorem 6 of 003: interpolate to more users with k² blocks of a randomized Hadamard rotation.

    M = d^{-1/2}HD (fresh, data-independent, shared by all points); block s = coordinates s·d/k² … of M·x_i; each
    block runs DP-Estimate-1 at the strong-composition split of (ε, δ) over k² blocks (:func:`dp_estimate_1` then
    runs its pseudocode at (ε/5, δ/4) of that share: Thm 4 of 003 with the corrected Prop. 15) with radius
    r_s = r·√(2·log(2nd/α))/k (Hoeffding form of Lemma 20, digest [ours]) and failure α/k²; return M⁻¹·concat.
    Error O(r√(d·log(dn/α))/k). k = 1: no rotation, DP-Estimate-1 on the points with radius r.
    Returns None if any block returns garbage (⊥).
    """
    x = check_array(points, "points", ndim=2)
    r = check_positive(r, "r")
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    k = check_integer(k, "k", minimum=1)
    return _blocks(x, r, eps, delta, alpha, k, N, as_rng(rng))


def dp_estimate_user(data, r: float, epsilon: float, delta: float, *, k: int = 1, alpha: float = 0.05,
                     N: float | str = "teaching", markov_factor: float = 10.0, rng=None) -> np.ndarray | None:
    """Algorithm 3 of 003 (DP-Estimate-User, Theorem 7): user-level (ε, δ)-DP mean, robust to n/4 corrupted users.

    X̄_i = each user's average; effective radius r′ = 10r/√m (proof of Thm 7: E‖X̄_i − µ‖² ≤ 2r²/m and Markov gives
    ≥ 49/50 of users within 10r/√m; ≥ 11n/12 − n/4 = 2n/3 good users remain after n/4 corruptions); then
    :func:`dp_estimate_blocks` with r′ (k = 1: DP-Estimate-1 directly at (ε, δ), no composition; its pseudocode
    runs at (ε/5, δ/4), Thm 4 of 003 with dpviz's correction of Prop. 15, see :func:`dp_estimate_1`). Line 6 of the
    printed Algorithm 3 uses X_i (should be X̄_i) and line 8 uses n/k² (should be d/k²): corrected per digest §7.

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
        The 10 of r′ = 10r/√m (worst-case Markov constant; inflates the error ~10× on Gaussian data, pitfall 11).

    Returns
    -------
    np.ndarray of shape (d,), or None (⊥) when the mechanism returns garbage.
    """
    x = check_array(data, "data", ndim=(2, 3))
    if x.ndim == 2:
        x = x[:, :, None]
    r = check_positive(r, "r")
    c = check_positive(markov_factor, "markov_factor")
    m = x.shape[1]
    means = x.mean(axis=1)
    return dp_estimate_blocks(means, c * r / math.sqrt(m), epsilon, delta, k=k, alpha=alpha, N=N, rng=rng)


def learn_discrete(samples, d: int, epsilon: float, delta: float, *, alpha: float = 0.05, k: int = 1,
                   project: bool = True, rng=None) -> np.ndarray | None:
    """Corollary 8 of 003 (Algorithm G): learn a distribution on {0, …, d−1} from n users × m samples.

    Each sample becomes the one-hot vector e_ℓ (all in the unit ball around 0, so r = 1); the user-level mean
    estimator runs on the one-hot data; TV ≤ ½√d·‖·‖₂ = Õ(d/(εn√m) + √(d/(mn))). With ``project`` the estimate is
    clipped to ≥ 0 and renormalised (post-processing, DP-safe; not in the paper).
    """
    s = check_array(samples, "samples", ndim=2, dtype=float)
    d = check_integer(d, "d", minimum=2)
    if np.any(s != np.round(s)) or s.min() < 0 or s.max() > d - 1:
        raise ValueError(f"samples contain values outside {{0, …, {d - 1}}}, which is not allowed.")
    n, m = s.shape
    onehot_means = np.zeros((n, d))
    for j in range(d):
        onehot_means[:, j] = (s == j).mean(axis=1)
    est = dp_estimate_blocks(onehot_means, 10.0 / math.sqrt(m), epsilon, delta, k=k, alpha=alpha, rng=rng)
    if est is None or not project:
        return est
    est = np.clip(est, 0.0, None)
    tot = est.sum()
    return est / tot if tot > 0 else np.full(d, 1.0 / d)


def corrupt_users(data, fraction: float, *, mode: str = "far", magnitude: float = 10.0, rng=None) -> np.ndarray:
    """The adversary of Theorem 7 (003): after seeing the data, replace all data of ⌊κn⌋ users.

    Modes: ``"far"`` — corrupted users put every sample at µ̂ + magnitude·e₁ (µ̂ = the clean sample mean, which the
    adversary sees); ``"spread"`` — each corrupted user at an independent far random point; ``"shift"`` — all at
    the clean mean + magnitude·r-scale pull in one direction (a subtle bias). Axis 0 indexes users; the rest keeps
    its shape. Returns a copy.
    """
    x = check_array(data, "data", ndim=(1, 2, 3)).copy()
    kappa = check_in_range(fraction, "fraction", 0.0, 1.0)
    check_choice(mode, "mode", ("far", "spread", "shift"))
    mag = check_positive(magnitude, "magnitude", allow_zero=True)
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
        z /= np.linalg.norm(z, axis=1, keepdims=True)
        flat[bad] = (center + mag * z)[:, None, :]
    return flat.reshape(x.shape)


# --------------------------------------------------------------------------------------------- bounds


def users_lower_bound(epsilon: float, delta: float) -> float:
    """Lemma 9 of 003: no user-level (ε, δ)-DP algorithm learns the ball to any accuracy w.p. 2/3 with
    n ≤ log(1/δ)/(3ε) users, even with m = ∞ (assumes δ ≤ ε²).

    >>> round(users_lower_bound(1.0, 1e-6), 2), round(users_lower_bound(0.1, 1e-6), 1)
    (4.61, 46.1)
    """
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    return math.log(1 / delta) / (3 * eps)


def levy_users_required(d: int, epsilon: float, delta: float) -> float:
    """The older requirement n ≳ √d·log(1/δ)/ε (004 Cor 1 / Levy et al., constants and log factors dropped) that 003
    removes (digest 003 §7 item 12 on the ambiguous square-root extent).

    >>> levy_users_required(100, 1.0, math.exp(-1))
    10.0
    """
    d = check_integer(d, "d", minimum=1)
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    return math.sqrt(d) * math.log(1 / delta) / eps


def prop14_users(epsilon: float, delta: float, alpha: float) -> int:
    """Smallest n with (2/3)εn − 10√(log n) ≥ log(16/(αδ)) and (1/3)εn − 11·log n ≥ log(4/α) (003, Prop 14 proof).

    ε here is Algorithm A's exponent as printed in the paper, not a privacy level: :func:`algorithm_a_1d` at
    privacy ε uses exponent ε/2 (dpviz's erratum to Prop. 15), so pass ε/2 to size it.

    >>> prop14_users(1.0, 1e-6, 0.05)
    186
    """
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)

    def ok(n):
        return (2 / 3 * eps * n - 10 * math.sqrt(math.log(n)) >= math.log(16 / (alpha * delta))
                and eps * n / 3 - 11 * math.log(n) >= math.log(4 / alpha))

    hi = 2
    while not ok(hi):
        hi *= 2
    lo = hi // 2
    while lo + 1 < hi:  # ok is monotone for n past the minimum of εn/3 − 11 log n
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    n = hi
    while n > 2 and ok(n - 1):
        n -= 1
    return n


def lemma9_chain(n: int, epsilon: float, delta: float, p_n: float = 2 / 3) -> np.ndarray:
    """The hybrid chain of Lemma 9 (003): smallest p_i allowed by p_{i+1} ≤ e^ε·p_i + δ from p_n (i = n … 0).

    p_i ≥ max(0, (p_{i+1} − δ)·e^{−ε}); returns [p_0, …, p_n].

    >>> lemma9_chain(2, math.log(2), 0.0, 1.0).tolist()
    [0.25, 0.5, 1.0]
    """
    n = check_integer(n, "n", minimum=0)
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta")
    p = np.empty(n + 1)
    p[n] = check_probability(p_n, "p_n")
    for i in range(n - 1, -1, -1):
        p[i] = max(0.0, (p[i + 1] - delta) * math.exp(-eps))
    return p


def theorem7_error(n: int, m: int, d: int, epsilon: float, delta: float, alpha: float, r: float = 1.0) -> float:
    """Theorem 7 of 003 (shape, O-constants set to 1): min{ r√(d/m), r√d·log(d/δ)·√log(1/δ)·√log(dn/α)/(εn√m) }."""
    n = check_integer(n, "n", minimum=1)
    m = check_integer(m, "m", minimum=1)
    d = check_integer(d, "d", minimum=1)
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    r = check_positive(r, "r")
    a = r * math.sqrt(d / m)
    b = (r * math.sqrt(d) * math.log(d / delta) * math.sqrt(math.log(1 / delta)) * math.sqrt(math.log(d * n / alpha))
         / (eps * n * math.sqrt(m)))
    return min(a, b)


def corollary8_error(n: int, m: int, d: int, epsilon: float, r: float = 1.0) -> float:
    """Corollary 8 of 003 (logs and constants dropped): r·(√d/(εn√m) + 1/√(mn))."""
    n = check_integer(n, "n", minimum=1)
    m = check_integer(m, "m", minimum=1)
    d = check_integer(d, "d", minimum=1)
    eps = check_positive(epsilon, "epsilon")
    r = check_positive(r, "r")
    return r * (math.sqrt(d) / (eps * n * math.sqrt(m)) + 1 / math.sqrt(m * n))


def robust_floor(kappa: float, m: int, r: float = 1.0) -> float:
    """Proposition 27 of 003: with a κ fraction of users corrupted no estimator beats r·κ/√m (up to constants),
    even without privacy.

    The proof's two laws (mass ½ ± κ/√m on ±v) have means 4κ/√m apart, not the printed "2κ/√m" (digest 003 §7
    item 7); the constant is dropped here either way.

    >>> robust_floor(0.25, 100)
    0.025
    """
    kappa = check_in_range(kappa, "kappa", 0.0, 1.0)
    m = check_integer(m, "m", minimum=1)
    r = check_positive(r, "r")
    return r * kappa / math.sqrt(m)
