"""Why anonymisation fails (lesson 01): three attacks on aggregate statistics, on synthetic data from a seed.

* **Differencing** (:func:`differencing_attack`): two counts that differ by one person reveal that person's bit;
  with Laplace noise on each count (:class:`dpviz.mechanisms.Laplace`) the attacker's guess is right with the exact
  probability :func:`differencing_success_probability`.
* **Reconstruction** (:func:`reconstruction_attack`, :func:`reconstruction_curve`; Dinur & Nissim 2003): many noisy
  subset-sum queries on a secret bit vector of n people let a decoder recover most bits when the noise is well
  below √n, and fail (≈ 50 %, chance) when it is well above.
* **Membership inference on a released count/mean** (:func:`membership_tradeoff`): the exact trade-off (type I error
  α, type II error β) of the most powerful test of "is the target in the data?", without noise and with Laplace or
  Gaussian noise, comparable with the (ε, δ)-DP region of lesson 03 (:mod:`dpviz.tradeoff`).

Everything here is a pure function of its arguments; randomness comes from ``rng`` (a numpy Generator or an int
seed). No data set is downloaded: the data are generated here.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np
from scipy import special

from dpviz._binomial import binomial_pmf
from dpviz._validation import (
    as_rng,
    check_choice,
    check_in_range,
    check_integer,
    check_positive,
    check_probability,
    check_real_array,
)
from dpviz.mechanisms import Laplace

__all__ = [
    "SyntheticTable",
    "synthetic_table",
    "DifferencingResult",
    "differencing_attack",
    "differencing_success_probability",
    "laplace_difference_pdf",
    "ReconstructionResult",
    "reconstruction_attack",
    "ReconstructionCurve",
    "reconstruction_curve",
    "MAX_RECONSTRUCTION_CELLS",
    "MembershipTradeoff",
    "membership_tradeoff",
    "MEMBERSHIP_NOISES",
]


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


# =============================================================================================== differencing

#: Fictional first names for the synthetic table (no real person is meant).
_NAMES = ("Ada", "Bram", "Chloé", "Dev", "Elif", "Femi", "Greta", "Hiro", "Ines", "Jonas", "Kofi", "Lena",
          "Mateo", "Noor", "Olek", "Priya", "Quinn", "Rosa", "Sami", "Tuva", "Umar", "Vera", "Wen", "Yara")
_TOWNS = ("Ashford", "Brook", "Calder")


@dataclasses.dataclass(frozen=True)
class SyntheticTable:
    """A small synthetic table of people: ``names``, ``ages``, ``towns`` (quasi-identifiers) and the sensitive
    yes/no attribute ``has_condition`` (e.g. "has diabetes"). Arrays are read-only."""

    names: tuple[str, ...]
    ages: np.ndarray
    towns: tuple[str, ...]
    has_condition: np.ndarray

    @property
    def n(self) -> int:
        return len(self.names)


def synthetic_table(n: int = 8, rng=0, *, rate: float = 0.4) -> SyntheticTable:
    """``n`` (2 ≤ n ≤ 24) fictional people, each with the sensitive attribute independently with probability
    ``rate``; names, ages (20–79) and towns are drawn from ``rng`` too. The same seed gives the same table."""
    n = check_integer(n, "n", minimum=2, maximum=len(_NAMES))
    rate = check_probability(rate, "rate")
    g = as_rng(rng)
    idx = np.sort(g.choice(len(_NAMES), size=n, replace=False))
    ages = g.integers(20, 80, size=n)
    towns = g.integers(0, len(_TOWNS), size=n)
    cond = g.random(n) < rate
    return SyntheticTable(names=tuple(_NAMES[i] for i in idx), ages=_frozen(ages),
                          towns=tuple(_TOWNS[t] for t in towns), has_condition=_frozen(cond))


@dataclasses.dataclass(frozen=True)
class DifferencingResult:
    """The two released answers of a differencing attack and what the attacker concludes.

    ``answer_all``: "how many people have the condition?"; ``answer_without``: the same count over everyone but the
    target; ``difference`` = answer_all − answer_without; ``guess``: the attacker's conclusion "the target has it"
    (difference ≥ ½); ``truth``: the target's real value; ``noise_scale``: the Laplace scale b of each answer (0: exact
    answers)."""

    answer_all: float
    answer_without: float
    difference: float
    guess: bool
    truth: bool
    noise_scale: float

    @property
    def correct(self) -> bool:
        return self.guess == self.truth


def differencing_attack(has_attribute, target: int, *, noise_scale: float = 0.0, rng=None) -> DifferencingResult:
    """Ask "how many have the attribute?" over everyone and over everyone but ``target``; the difference is the
    target's bit (Dwork & Roth 2014, §1; Dwork et al. 2017, §2).

    Each count has sensitivity 1; with ``noise_scale`` b > 0 each answer is released with independent Laplace(b)
    noise by :class:`dpviz.mechanisms.Laplace` (each is then (1/b)-DP, the pair (2/b)-DP by composition). The
    attacker guesses "has it" when the difference is ≥ ½.

    Parameters
    ----------
    has_attribute : array of bool or 0/1
        The sensitive attribute of each person (at least 2 people).
    target : int
        Index of the person attacked, 0 ≤ target < n.
    noise_scale : float
        Laplace scale b ≥ 0 of each answer; 0 releases exact counts.
    rng : numpy Generator or int seed
    """
    bits = check_real_array(has_attribute, "has_attribute", ndim=1)
    if bits.size < 2 or np.any((bits != 0) & (bits != 1)):
        raise ValueError("has_attribute is not allowed: must be at least 2 values, each 0/1 or False/True.")
    t = check_integer(target, "target", minimum=0, maximum=bits.size - 1)
    b = check_positive(noise_scale, "noise_scale", allow_zero=True)
    total = float(bits.sum())
    without = total - float(bits[t])
    if b > 0:
        a1, a2 = Laplace(b).release(np.array([total, without]), rng=as_rng(rng))
    else:
        a1, a2 = total, without
    diff = float(a1) - float(a2)
    return DifferencingResult(answer_all=float(a1), answer_without=float(a2), difference=diff, guess=diff >= 0.5,
                              truth=bool(bits[t]), noise_scale=b)


def laplace_difference_pdf(t, noise_scale: float):
    """Density of L₁ − L₂ for independent L₁, L₂ ~ Laplace(b): (1 + |t|/b)·e^{−|t|/b}/(4b) (the convolution of two
    Laplace densities, Dwork & Roth 2014, Def. 3.3). Arrays in, array out."""
    b = check_positive(noise_scale, "noise_scale")
    x = np.abs(check_real_array(t, "t", allow_empty=True)) / b
    return (1.0 + x) * np.exp(-x) / (4.0 * b)


def differencing_success_probability(noise_scale: float) -> float:
    """P[the differencing attacker's guess is right] with Laplace(b) noise on each answer, exactly:

        1 − e^{−1/(2b)}·(2 + 1/(2b))/4

    (the difference is bit + L₁ − L₂; the guess "difference ≥ ½" errs when the noise L₁ − L₂ crosses ½ the wrong
    way; the tail of L₁ − L₂ is ∫_t^∞ (1 + s/b)e^{−s/b}/(4b) ds = e^{−t/b}(2 + t/b)/4). The same for a target with and
    without the attribute. b = 0 gives 1 (exact counts reveal the bit)."""
    b = check_positive(noise_scale, "noise_scale", allow_zero=True)
    if b == 0:
        return 1.0
    r = 0.5 / b
    return 1.0 - math.exp(-r) * (2.0 + r) / 4.0


# =============================================================================================== reconstruction

#: Largest query matrix (n · num_queries entries) the reconstruction attack builds: 4·10⁶ doubles are 32 MB.
MAX_RECONSTRUCTION_CELLS = 4_000_000
_MAX_N = 2000


def _check_reconstruction(n, num_queries) -> tuple[int, int]:
    n = check_integer(n, "n", minimum=1, maximum=_MAX_N)
    m = check_integer(num_queries, "num_queries", minimum=1, maximum=MAX_RECONSTRUCTION_CELLS)
    if n * m > MAX_RECONSTRUCTION_CELLS:
        raise ValueError(f"num_queries = {m!r} is not allowed with n = {n}: must be an integer <= "
                         f"{MAX_RECONSTRUCTION_CELLS // n} (n · num_queries <= {MAX_RECONSTRUCTION_CELLS:,}).")
    return n, m


def _draw(n: int, m: int, g: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One instance, in this order: the secret bits s (n), the query matrix A (m × n, each person in each query
    with probability ½) and the noise pattern u (m values uniform on [−1, 1]); the noise is E·u."""
    secret = g.integers(0, 2, size=n).astype(np.int8)
    queries = g.integers(0, 2, size=(m, n)).astype(np.int8)
    pattern = g.uniform(-1.0, 1.0, size=m)
    return secret, queries, pattern


def _least_squares(queries: np.ndarray, answers: np.ndarray) -> np.ndarray:
    """x̂ = argmin ‖A x − y‖₂ for one or several right-hand sides y.

    With m ≥ n and A of full column rank (checked by a Cholesky factorisation of AᵀA) it solves the normal equations
    AᵀA x = Aᵀy: AᵀA of a 0/1 matrix has integer entries ≤ m < 2²⁴, so it is computed exactly in single precision
    (half the time of double), and the solve is ~5x faster than ``numpy.linalg.lstsq``'s SVD at n = 500, m = 2500.
    Otherwise (m < n, or a rank-deficient A) ``numpy.linalg.lstsq`` gives the minimum-norm least-squares solution.
    """
    m, n = queries.shape
    if m >= n:
        a32 = queries.astype(np.float32)
        gram = (a32.T @ a32).astype(float)
        try:
            np.linalg.cholesky(gram)
        except np.linalg.LinAlgError:
            pass
        else:
            rhs = (np.asarray(answers, dtype=float).T @ queries.astype(float)).T
            return np.linalg.solve(gram, rhs)
    return np.linalg.lstsq(queries.astype(float), answers, rcond=None)[0]


def _round_bits(x: np.ndarray) -> np.ndarray:
    return (x >= 0.5).astype(np.int8)


@dataclasses.dataclass(frozen=True)
class ReconstructionResult:
    """One run of the reconstruction attack (arrays are read-only).

    Attributes
    ----------
    secret : (n,) array of 0/1
        The secret bit of each of the n people.
    queries : (num_queries, n) array of 0/1
        Row j is the subset asked in query j ("how many people in this subset have bit 1?").
    true_answers : (num_queries,) array
        The exact subset sums A·s.
    noisy_answers : (num_queries,) array
        The release: A·s plus independent noise uniform on [−E, E], E = ``noise_scale``.
    estimate : (n,) array of 0/1
        The decoder's reconstruction (least squares, rounded at ½).
    recovered_fraction : float
        Fraction of people whose bit the attack got right (½ is chance).
    noise_scale : float
        E, the bound on each answer's noise.
    """

    secret: np.ndarray
    queries: np.ndarray
    true_answers: np.ndarray
    noisy_answers: np.ndarray
    estimate: np.ndarray
    recovered_fraction: float
    noise_scale: float

    @property
    def n(self) -> int:
        return int(self.secret.size)

    @property
    def num_queries(self) -> int:
        return int(self.true_answers.size)


def reconstruction_attack(n: int, num_queries: int, noise_scale: float, rng=None) -> ReconstructionResult:
    """The reconstruction attack of Dinur & Nissim 2003 on a random secret bit vector, with a least-squares decoder.

    Data: a secret s ∈ {0, 1}ⁿ, each bit a fair coin. Queries: ``num_queries`` random subsets (each person in each
    subset independently with probability ½), answered as subset sums with **bounded noise**: each answer is
    A·s plus an independent draw uniform on [−E, E], E = ``noise_scale`` (Dinur & Nissim bound the noise magnitude
    by E; they show that E = o(√n) lets a polynomial-time attacker with O(n log² n) random queries recover all but
    o(n) bits by LP decoding: Dinur & Nissim 2003, the polynomial-time attack; Dwork & Roth 2014, §8.1).

    Decoder: least squares, x̂ = argmin ‖A x − y‖₂ (normal equations, or ``numpy.linalg.lstsq`` when A has rank
    < n), rounded at ½. This is a practical,
    fast stand-in for Dinur & Nissim's linear-programming decoder; its error per bit is about 2E/√(3m) (m =
    ``num_queries``), so it succeeds when E is well below √m and falls to chance (½) when E is well above.
    With m < n the queries cannot determine every bit, whatever the noise.

    Parameters
    ----------
    n : int
        Number of people, 1 ≤ n ≤ 2000.
    num_queries : int
        Number of subset-sum queries m ≥ 1, with n · m ≤ :data:`MAX_RECONSTRUCTION_CELLS`.
    noise_scale : float
        E ≥ 0: each answer is off by at most E.
    rng : numpy Generator or int seed
        Draws, in this order, the secret, the queries and the noise.

    Returns
    -------
    ReconstructionResult
    """
    n, m = _check_reconstruction(n, num_queries)
    e = check_positive(noise_scale, "noise_scale", allow_zero=True)
    secret, queries, pattern = _draw(n, m, as_rng(rng))
    true = queries.astype(float) @ secret.astype(float)  # integer sums ≤ m: exact in double
    noisy = true + e * pattern
    estimate = _round_bits(_least_squares(queries, noisy))
    return ReconstructionResult(secret=_frozen(secret), queries=_frozen(queries), true_answers=_frozen(true),
                                noisy_answers=_frozen(noisy), estimate=_frozen(estimate),
                                recovered_fraction=float(np.mean(estimate == secret)), noise_scale=e)


@dataclasses.dataclass(frozen=True)
class ReconstructionCurve:
    """Fraction of bits recovered against the noise bound E (Monte Carlo over ``trials`` draws; see
    :func:`reconstruction_curve`). ``per_trial`` has shape (trials, len(noise_scales))."""

    noise_scales: np.ndarray
    recovered_fraction: np.ndarray
    per_trial: np.ndarray
    n: int
    num_queries: int
    trials: int

    @property
    def sqrt_n(self) -> float:
        return math.sqrt(self.n)


def reconstruction_curve(n: int, num_queries: int, noise_scales, *, trials: int = 4, rng=None,
                         progress: Callable[[float], None] | None = None) -> ReconstructionCurve:
    """Mean fraction of bits the attack of :func:`reconstruction_attack` recovers, at each noise bound E.

    **Monte Carlo**: ``trials`` independent draws of (secret, queries, noise pattern u) from ``rng``; within a draw
    the noise at bound E is E·u (the same pattern at every E: common random numbers, so the curve is smooth and
    monotone in the trend). For a fixed draw the fraction is computed exactly at every E, because the least-squares
    estimate is linear in the answers: x̂(E) = A⁺(A s) + E·A⁺u (one solve per draw). Draw t uses the generator
    exactly as the t-th consecutive call ``reconstruction_attack(n, num_queries, E, g)`` would.

    ``progress(fraction)`` is called after each draw (for a progress bar).
    """
    n, m = _check_reconstruction(n, num_queries)
    t = check_integer(trials, "trials", minimum=1, maximum=100)
    es = check_real_array(noise_scales, "noise_scales", ndim=1)
    if np.any(es < 0):
        raise ValueError(f"noise_scales = {float(es[es < 0][0])!r} is not allowed: must be numbers >= 0.")
    g = as_rng(rng)
    per = np.empty((t, es.size))
    for k in range(t):
        secret, queries, pattern = _draw(n, m, g)
        true = queries.astype(float) @ secret.astype(float)
        base, slope = _least_squares(queries, np.column_stack([true, pattern])).T
        est = _round_bits(base[None, :] + es[:, None] * slope[None, :])
        per[k] = np.mean(est == secret[None, :], axis=1)
        if progress is not None:
            progress((k + 1) / t)
    return ReconstructionCurve(noise_scales=_frozen(es), recovered_fraction=_frozen(per.mean(axis=0)),
                               per_trial=_frozen(per), n=n, num_queries=m, trials=t)


# =============================================================================================== membership

#: Noise options of :func:`membership_tradeoff`.
MEMBERSHIP_NOISES = ("none", "laplace", "gaussian")


@dataclasses.dataclass(frozen=True)
class MembershipTradeoff:
    """The most powerful membership test's errors: ``alpha`` (type I error = false-positive rate, saying "member"
    when the target is absent) and ``beta`` (type II error = 1 − true-positive rate), both sorted by α from 0 to 1.
    ``epsilon`` is the pure-DP ε = 1/b of the Laplace release (∞ without noise, None for Gaussian); ``mu`` the GDP
    parameter 1/σ of the Gaussian release (None otherwise). The released count has sensitivity 1 (replace one)."""

    alpha: np.ndarray
    beta: np.ndarray
    n: int
    p: float
    noise: str
    scale: float
    epsilon: float | None
    mu: float | None

    @property
    def tpr(self) -> np.ndarray:
        return 1.0 - self.beta

    def advantage(self) -> float:
        """max over tests of TPR − FPR = max(1 − β − α): 0 for a coin flip, 1 for certainty."""
        return float(np.max(1.0 - self.beta - self.alpha))


def _laplace_sf(x: np.ndarray, b: float) -> np.ndarray:
    """P[Lap(b) > x]: ½e^{−x/b} for x ≥ 0, 1 − ½e^{x/b} below (Dwork & Roth 2014, Def. 3.3 integrated)."""
    z = np.minimum(np.abs(x) / b, 745.0)
    half = 0.5 * np.exp(-z)
    return np.where(x >= 0, half, 1.0 - half)


def membership_tradeoff(n: int, p: float, *, noise: str = "none", scale: float = 1.0,
                        num_points: int = 400) -> MembershipTradeoff:
    """Exact errors of the optimal membership test against a released count (equivalently the mean) of n bits.

    Model (replace-one neighbours): the target has bit 1. H₀ "not in the data": the n people are drawn from a
    population where a bit is 1 with probability p, so the count S ~ Bin(n, p). H₁ "in the data": the target plus
    n − 1 drawn people, S ~ 1 + Bin(n − 1, p). The release is S, S + Lap(b) (``noise="laplace"``, ``scale`` = b;
    (1/b)-DP) or S + N(0, σ²) (``"gaussian"``, ``scale`` = σ; μ-GDP with μ = 1/σ by Dong, Roth & Su 2022, Thm 2.7).

    The likelihood ratio P₁(s)/P₀(s) = s/(np) grows with s, and adding Laplace or Gaussian noise (log-concave
    densities) keeps it monotone, so the most powerful tests are thresholds on the release (Neyman–Pearson lemma;
    randomised at the threshold for the noiseless, discrete release). Without noise the curve is exact: the
    vertices of the randomised tests joined by straight lines. With noise, α and β are exact (binomial pmfs of
    :func:`dpviz._binomial.binomial_pmf` times the noise tail) at ``num_points`` thresholds spanning ±9 standard
    deviations, plus the end points (0, 1) and (1, 0); joining them by chords (randomised tests) lies at most a
    hair above the true convex curve.

    Parameters
    ----------
    n : int
        People in the released statistic, 1 ≤ n ≤ 10000.
    p : float
        Population rate of the bit, 0 < p < 1.
    noise : {"none", "laplace", "gaussian"}
    scale : float
        b (Laplace) or σ (Gaussian) of the noise on the count, 0 < scale ≤ 10⁴; ignored for ``"none"``.
    num_points : int
        Thresholds for a noisy release, 10 ≤ num_points ≤ 10000.
    """
    n = check_integer(n, "n", minimum=1, maximum=10_000)
    p = check_probability(p, "p", open_low=True, open_high=True)
    noise = check_choice(noise, "noise", MEMBERSHIP_NOISES)
    k = check_integer(num_points, "num_points", minimum=10, maximum=10_000)
    s = np.arange(n + 1)
    p0 = binomial_pmf(n, p)
    p1 = np.zeros(n + 1)
    p1[1:] = binomial_pmf(n - 1, p)
    if noise == "none":
        # reject H₀ when S ≥ t, t = n + 1, n, …, 0: α = P₀(S ≥ t), β = P₁(S < t)
        alpha = np.concatenate([[0.0], np.cumsum(p0[::-1])])
        beta = 1.0 - np.concatenate([[0.0], np.cumsum(p1[::-1])])
        return MembershipTradeoff(alpha=_frozen(np.clip(alpha, 0, 1)), beta=_frozen(np.clip(beta, 0, 1)), n=n, p=p,
                                  noise=noise, scale=0.0, epsilon=math.inf, mu=None)
    sc = check_in_range(scale, "scale", 0.0, 1e4, low_inclusive=False)
    keep = (p0 > 1e-300) | (p1 > 1e-300)
    keep &= (p0 + p1) > 1e-18 * max(p0.max(), p1.max())
    ss, q0, q1 = s[keep].astype(float), p0[keep], p1[keep]
    var = n * p * (1 - p) + (2 * sc * sc if noise == "laplace" else sc * sc)
    sd = math.sqrt(var)
    t = np.linspace(n * p - 9 * sd, n * p + 1 + 9 * sd, k)
    x = t[:, None] - ss[None, :]
    if noise == "laplace":
        sf = _laplace_sf(x, sc)
    else:
        sf = special.ndtr(-x / sc)
    alpha = sf @ q0
    beta = 1.0 - sf @ q1
    # thresholds ascend: α falls; present α ascending, with the exact end points
    alpha = np.concatenate([[0.0], alpha[::-1], [1.0]])
    beta = np.concatenate([[1.0], beta[::-1], [0.0]])
    return MembershipTradeoff(alpha=_frozen(np.clip(alpha, 0, 1)), beta=_frozen(np.clip(beta, 0, 1)), n=n, p=p,
                              noise=noise, scale=sc, epsilon=1.0 / sc if noise == "laplace" else None,
                              mu=1.0 / sc if noise == "gaussian" else None)

