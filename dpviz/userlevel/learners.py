"""Pure user-level DP learners built on the exponential mechanism (Section 4 and Appendix E of 000).

Scores here are LOSSES (lower is better), as in the paper's SELECT problem: the output H has probability
∝ exp(−ε·scr_H/(2Δ)) (Theorem 9 of 000). dpviz's ``exponential_mechanism`` takes UTILITIES (P ∝ exp(ε·u/(2Δ)),
McSherry & Talwar 2007), so every learner passes u = −scr: the same distribution (digest pitfall 11).

* ALG-8 :func:`realizable_pac_learner` — score = number of users with at least one mistake (Δ = 1), m ≤ 1/α truncation.
* ALG-9 :class:`ClippedPairwiseEM` — per-user summed pairwise score clipped to [−τ, τ], Δ = 2τ, exponent −ε·scr/(4τ).
* ALG-10 :func:`agnostic_pac_learner` — ψ_{c,c′}(x, y) = 1[c(x)≠y] − 1[c′(x)≠y] (sign corrected, digest pitfall 14).
* ALG-11 :func:`scheffe_selection` — Scheffé comparisons W = {P > P′}, ψ = P(W) − 1[z ∈ W].
* ALG-12 :func:`learn_distribution_cover` — ALG-11 over a 0.1α-cover of distributions on k symbols.

References
----------
Ghazi et al., NeurIPS 2023 (``000_eed7e3c6d3636c79.txt``): Theorem 4, Lemma 22, Theorems 37, 40, 41, 43.
McSherry & Talwar, "Mechanism Design via Differential Privacy", FOCS 2007 (the exponential mechanism).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from dpviz._validation import as_rng, check_array, check_integer, check_positive

__all__ = [
    "Selection",
    "ThresholdClass",
    "pac_scores",
    "realizable_pac_learner",
    "ClippedPairwiseEM",
    "agnostic_pac_learner",
    "scheffe_selection",
    "discrete_cover",
    "learn_distribution_cover",
    "simulate_threshold_learning",
]


@dataclasses.dataclass(frozen=True, eq=False)
class Selection:
    """Result of a user-level exponential-mechanism selection.

    Attributes
    ----------
    index : int
        The selected candidate.
    scores : numpy.ndarray
        The loss scores scr_H (lower is better), one per candidate.
    probabilities : numpy.ndarray
        The exact selection probabilities ∝ exp(−ε·scr/(2Δ)).
    sensitivity : float
        The user-level sensitivity Δ used.
    epsilon : float
        The privacy parameter: the selection is ε-user-level DP.
    """

    index: int
    scores: np.ndarray
    probabilities: np.ndarray
    sensitivity: float
    epsilon: float


@dataclasses.dataclass(frozen=True)
class ThresholdClass:
    """1-D thresholds on the grid {0, …, K−1}: h_t(x) = 1[x ≥ t] for t = 0, …, K (K + 1 hypotheses, size ln(K+1)).

    A finite class is its own (0, 0) probabilistic representation (digest §1.4), so ALG-8/ALG-10 run on it directly.
    """

    grid_size: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "grid_size", check_integer(self.grid_size, "grid_size", minimum=1))

    @property
    def n_hypotheses(self) -> int:
        """K + 1."""
        return self.grid_size + 1

    def predictions(self) -> np.ndarray:
        """(K+1, K) 0/1 matrix: row t is h_t on the grid points 0..K−1."""
        t = np.arange(self.n_hypotheses)[:, None]
        return (np.arange(self.grid_size)[None, :] >= t).astype(np.int8)

    def errors(self, target: int, label_noise: float = 0.0) -> np.ndarray:
        """Exact err_𝒟(h_t) for every t, 𝒟: x uniform on the grid, y = h_target(x) flipped w.p. ``label_noise``.

        err(h_t) = η + (1 − 2η)·|t − target|/K.
        """
        raise NotImplementedError

    def sample(
        self, n_users: int, m: int, target: int, *, label_noise: float = 0.0, rng: Any = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(X, Y), each (n_users, m): x uniform on the grid, y = h_target(x) flipped w.p. ``label_noise``."""
        raise NotImplementedError


def pac_scores(X: Any, Y: Any, predictions: Any) -> np.ndarray:
    """ALG-8 score: scr_h = Σ_i 1[user i's examples are not realizable by h] = #users with ≥ 1 mistake of h.

    ``X`` (n, m) int grid indices, ``Y`` (n, m) labels in {0, 1}, ``predictions`` (|ℋ|, |𝒳|) 0/1.
    """
    raise NotImplementedError


def realizable_pac_learner(
    X: Any, Y: Any, predictions: Any, epsilon: float, *, alpha: float | None = None, rng: Any = None
) -> Selection:
    """ALG-8 (Section 4 of 000, Theorem 4): EM over ℋ with the clipped count of bad users (Δ = 1), ε-user-level DP.

    With ``alpha`` given and m > 1/α, each user is truncated to its first ⌊1/α⌋ examples (footnote 7; digest
    pitfall 13). Selection probabilities ∝ exp(−ε·scr/2).
    """
    raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class ClippedPairwiseEM:
    """ALG-9 (Appendix E.1 of 000, Theorem 37): clipped pairwise-score exponential mechanism.

    u[a, b, i] = Σ_j ψ_{H_a,H_b}(x_{i,j}) (ψ ∈ [−1, 1]); pscr[a, b] = Σ_i clip(u[a, b, i], −τ, τ);
    scr[a] = max_{b ≠ a} pscr[a, b]; output a with probability ∝ exp(−ε·scr[a]/(4τ)) (user-level sensitivity 2τ).
    ε-user-level DP.

    Parameters
    ----------
    epsilon : float
        ε > 0.
    tau : float
        Clip threshold τ > 0.
    """

    epsilon: float
    tau: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_positive(self.epsilon, "epsilon"))
        object.__setattr__(self, "tau", check_positive(self.tau, "tau"))

    @property
    def sensitivity(self) -> float:
        """Δ = 2τ."""
        return 2.0 * self.tau

    def scores(self, user_sums: Any) -> np.ndarray:
        """scr[a] from per-user pairwise sums ``user_sums`` of shape (K, K, n)."""
        raise NotImplementedError

    def probabilities(self, user_sums: Any) -> np.ndarray:
        """Exact selection probabilities ∝ exp(−ε·scr/(4τ))."""
        raise NotImplementedError

    def select(self, user_sums: Any, *, rng: Any = None) -> Selection:
        """Run the mechanism."""
        raise NotImplementedError


def agnostic_pac_learner(
    X: Any,
    Y: Any,
    predictions: Any,
    epsilon: float,
    *,
    alpha: float | None = None,
    tau: float | None = None,
    rng: Any = None,
) -> Selection:
    """ALG-10 (Theorem 40 of 000): ALG-9 with ψ_{c,c′}((x,y)) = 1[c(x)≠y] − 1[c′(x)≠y] (sign corrected)."""
    raise NotImplementedError


def scheffe_selection(
    X: Any, candidates: Any, epsilon: float, *, alpha: float | None = None, tau: float | None = None, rng: Any = None
) -> Selection:
    """ALG-11 (Theorem 41 of 000): user-level private hypothesis selection with the Scheffé score."""
    raise NotImplementedError


def discrete_cover(k: int, alpha: float) -> np.ndarray:
    """All pmfs on k symbols with masses multiples of 1/⌊10k/α⌋ (Theorem 43 of 000; typo corrected, pitfall 17)."""
    raise NotImplementedError


def learn_distribution_cover(
    X: Any,
    k: int,
    epsilon: float,
    alpha: float,
    *,
    cover: Any = None,
    tau: float | None = None,
    rng: Any = None,
) -> tuple[np.ndarray, Selection]:
    """ALG-12 (Theorems 42–43 of 000): Scheffé selection over a 0.1α-cover of distributions on k symbols."""
    raise NotImplementedError


def simulate_threshold_learning(
    n_users: Any,
    m: Any,
    epsilon: float,
    *,
    grid_size: int = 100,
    alpha: float | None = None,
    trials: int = 20,
    label_noise: float = 0.0,
    learner: str = "realizable",
    rng: Any = None,
) -> np.ndarray:
    """Mean exact true error of the learner on 1-D thresholds, for each (n, m) pair (Monte-Carlo over data and coins)."""
    raise NotImplementedError
