"""Pure user-level DP learners built on the exponential mechanism (Section 4 and Appendix E of Ghazi et al. 2023).

Scores here are LOSSES (lower is better), as in the paper's SELECT problem: the output H has probability
∝ exp(−ε·scr_H/(2Δ)) (Theorem 9 of Ghazi et al. 2023). dpviz's ``exponential_mechanism`` takes UTILITIES (P ∝
exp(ε·u/(2Δ)), McSherry & Talwar 2007), so every learner passes u = −scr: the same distribution.

* :func:`realizable_pac_learner` (Theorem 4) — score = number of users with at least one mistake (Δ = 1), m ≤ 1/α
  truncation.
* :class:`ClippedPairwiseEM` (Appendix E.1, Theorem 37) — per-user summed pairwise score clipped to [−τ, τ], Δ = 2τ,
  exponent −ε·scr/(4τ).
* :func:`agnostic_pac_learner` (Theorem 40) — ψ_{c,c′}(x, y) = 1[c(x)≠y] − 1[c′(x)≠y] (sign corrected to agree with
  eq. (14)).
* :func:`scheffe_selection` (Theorem 41) — Scheffé comparisons W = {P > P′}, ψ = P(W) − 1[z ∈ W].
* :func:`learn_distribution_cover` (Theorems 42–43) — Scheffé selection over a 0.1α-cover of distributions on k
  symbols.

References
----------
Ghazi et al. 2023 (NeurIPS 2023): Theorem 4, Lemma 22, Theorems 37, 40, 41, 43.
McSherry & Talwar, "Mechanism Design via Differential Privacy", FOCS 2007 (the exponential mechanism).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from typing import Any

import numpy as np
from scipy import special

from dpviz._validation import (
    as_rng,
    check_choice,
    check_in_range,
    check_integer,
    check_positive,
    check_probability,
)
from dpviz.mechanisms.exponential import _exponential_logits, _gumbel_argmax

from .data import (
    CELLS,
    COVER,
    DOMAIN,
    GRID_SIZE,
    ITEMS,
    PAIRWISE_M,
    TRIALS,
    USERS,
    WORK,
    UserDataset,
    check_epsilon,
    check_scale,
    real_array,
)

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
    "paper_tau",
    "pairwise_sum_pmf",
    "ClippingTradeoff",
    "clipping_tradeoff",
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

    def __post_init__(self) -> None:
        scores = real_array(self.scores, "scores", ndim=1)
        probs = real_array(self.probabilities, "probabilities", ndim=1)
        if probs.shape != scores.shape:
            raise ValueError(
                f"probabilities has shape {probs.shape} which is not allowed: must match scores' shape {scores.shape}."
            )
        if np.any(probs < 0) or np.any(probs > 1):
            raise ValueError("probabilities is not allowed: entries must lie in [0, 1].")
        object.__setattr__(self, "index", check_integer(self.index, "index", minimum=0, maximum=scores.size - 1))
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "probabilities", probs)
        object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    @classmethod
    def _trusted(cls, index: int, scores: np.ndarray, probabilities: np.ndarray, sensitivity: float,
                 epsilon: float) -> Selection:
        """A selection made by this module's exponential mechanism from validated inputs: not checked again."""
        obj = object.__new__(cls)
        for name, value in (("index", index), ("scores", scores), ("probabilities", probabilities),
                            ("sensitivity", sensitivity), ("epsilon", epsilon)):
            object.__setattr__(obj, name, value)
        return obj


def _em_selection(losses: np.ndarray, epsilon: float, sensitivity: float, rng: Any) -> Selection:
    """Exponential mechanism over LOSSES: P(i) ∝ exp(−ε·scr_i/(2Δ)) (Theorem 9 of Ghazi et al. 2023).

    The exponential mechanism's own kernels (:mod:`dpviz.mechanisms.exponential`: the logits ε·u/(2Δ) and
    Gumbel-max), which take UTILITIES, with u = −scr: the same probabilities and the same draw as
    ``exponential_mechanism(_probabilities)``, without re-validating what the callers (every public learner here)
    validated once (``epsilon`` > 0, ``sensitivity`` > 0, finite losses).
    """
    losses = np.asarray(losses, dtype=float)
    logits = _em_logits(losses, epsilon, sensitivity)
    idx = int(_gumbel_argmax(logits, as_rng(rng)))
    return Selection._trusted(idx, losses, special.softmax(logits), float(sensitivity), float(epsilon))


def _em_logits(losses: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    """The exponential mechanism's logits −ε·scr/(2Δ) over losses (utilities u = −scr)."""
    return _exponential_logits(-losses, epsilon / (2.0 * sensitivity))


def _em_index(losses: np.ndarray, epsilon: float, sensitivity: float, gen: np.random.Generator) -> int:
    """The index :func:`_em_selection` picks, with the same draw, without its probabilities (a simulation needs
    only the pick)."""
    return int(_gumbel_argmax(_em_logits(losses, epsilon, sensitivity), gen))


def _labelled(X: Any, Y: Any, n_points: int) -> tuple[np.ndarray, np.ndarray]:
    Xa = real_array(X, "X", ndim=2)
    Ya = real_array(Y, "Y", ndim=2)
    ITEMS.check(Xa.size, "X.size (n users × m examples)")
    if Xa.shape != Ya.shape:
        raise ValueError(f"Y has shape {Ya.shape} which is not allowed: must match X's shape {Xa.shape}.")
    if np.any(Xa != np.round(Xa)) or Xa.min() < 0 or Xa.max() >= n_points:
        raise ValueError(f"X is not allowed: must hold integer point indices in [0, {n_points - 1}].")
    if not np.all((Ya == 0) | (Ya == 1)):
        raise ValueError("Y is not allowed: labels must be 0 or 1.")
    return Xa.astype(np.int64), Ya.astype(np.int8)


def _predictions(predictions: Any) -> np.ndarray:
    P = real_array(predictions, "predictions", ndim=2)
    CELLS.check(P.size, "predictions.size (hypotheses × points)")
    if not np.all((P == 0) | (P == 1)):
        raise ValueError("predictions is not allowed: must be a 0/1 matrix (hypotheses × points).")
    return P.astype(np.int8)


def _truncate(X: np.ndarray, Y: np.ndarray, alpha: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Keep ⌊1/α⌋ examples per user when m > 1/α (footnote 7 of Ghazi et al. 2023: Section 4 assumes m ≤ 1/α)."""
    if alpha is None:
        return X, Y
    a = check_in_range(alpha, "alpha", 0.0, 1.0, low_inclusive=False)
    inv = 1.0 / a  # may be inf for a subnormal α: then nothing is truncated
    if X.shape[1] <= inv:
        return X, Y
    keep = max(1, int(math.floor(inv + 1e-12)))
    if X.shape[1] > keep:
        return X[:, :keep], Y[:, :keep]
    return X, Y


def paper_tau(m: int, alpha: float, *, constant: float = 1.0) -> float:
    """τ = C·(αm + √(m·ln(1/α))): the clip threshold of Theorem 37's proof (C unspecified there; default 1).

    >>> round(paper_tau(100, 0.1), 6)
    25.174271
    """
    m = ITEMS.check(m, "m")
    a = check_in_range(alpha, "alpha", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    C = check_scale(constant, "constant")
    return C * (a * m + math.sqrt(m * math.log(1.0 / a)))


@dataclasses.dataclass(frozen=True)
class ThresholdClass:
    """1-D thresholds on the grid {0, …, K−1}: h_t(x) = 1[x ≥ t] for t = 0, …, K (K + 1 hypotheses, size ln(K+1)).

    A finite class is its own (0, 0) probabilistic representation (Definition 20 of Ghazi et al. 2023 with 𝒫 the point
    mass on the class), so the learners of Theorems 4 and 40 run on it directly
    with size(𝒫) = ln(K + 1). The data distribution used by the lessons: x uniform on the grid, y = h_target(x),
    flipped with probability ``label_noise`` (agnostic case).

    >>> H = ThresholdClass(4)
    >>> H.predictions().tolist()[1], H.errors(2).tolist()
    ([0, 1, 1, 1], [0.5, 0.25, 0.0, 0.25, 0.5])
    """

    grid_size: int

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "grid_size", GRID_SIZE.check(self.grid_size, "grid_size")
        )

    @property
    def n_hypotheses(self) -> int:
        """K + 1."""
        return self.grid_size + 1

    def predictions(self) -> np.ndarray:
        """(K+1, K) 0/1 matrix: row t is h_t on the grid points 0..K−1."""
        t = np.arange(self.n_hypotheses)[:, None]
        return (np.arange(self.grid_size)[None, :] >= t).astype(np.int8)

    def _target(self, target: int) -> int:
        return check_integer(target, "target", minimum=0, maximum=self.grid_size)

    def errors(self, target: int, label_noise: float = 0.0) -> np.ndarray:
        """Exact err_𝒟(h_t) for every t: η + (1 − 2η)·|t − target|/K (x uniform on the grid, labels flipped w.p. η)."""
        target = self._target(target)
        eta = check_in_range(label_noise, "label_noise", 0.0, 0.5)
        return self._errors(np.arange(self.n_hypotheses), target, eta)

    def _errors(self, t: Any, target: int, eta: float) -> Any:
        """err_𝒟(h_t) for thresholds ``t`` (an index or an array of them), inputs already checked."""
        return eta + (1.0 - 2.0 * eta) * (np.abs(t - target) / self.grid_size)

    def sample(
        self, n_users: int, m: int, target: int, *, label_noise: float = 0.0, rng: Any = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(X, Y), each (n_users, m): x uniform on the grid, y = h_target(x) flipped w.p. ``label_noise``."""
        n_users = ITEMS.check(n_users, "n_users")
        m = ITEMS.check(m, "m")
        ITEMS.check(n_users * m, "n_users·m")
        target = self._target(target)
        eta = check_in_range(label_noise, "label_noise", 0.0, 0.5)
        return self._sample(n_users, m, target, eta, as_rng(rng))

    def _sample(self, n_users: int, m: int, target: int, eta: float,
                gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`sample` with its inputs already checked (the same draws)."""
        X = gen.integers(self.grid_size, size=(n_users, m))
        Y = (X >= target).astype(np.int8)
        if eta > 0:
            Y ^= (gen.random((n_users, m)) < eta).astype(np.int8)
        return X, Y

    def realizable_scores(self, X: Any, Y: Any) -> np.ndarray:
        """Theorem 4 learner's scores for every threshold in O(nm + K): user i is consistent with h_t iff
        max{x : y = 0} < t ≤ min{x : y = 1}; scr_t = n − #consistent users. Same values as :func:`pac_scores`."""
        Xa, Ya = _labelled(X, Y, self.grid_size)
        return self._realizable_scores(Xa, Ya)

    def _realizable_scores(self, Xa: np.ndarray, Ya: np.ndarray) -> np.ndarray:
        """:meth:`realizable_scores` of labelled data already checked (or drawn by :meth:`sample`)."""
        K = self.grid_size
        neg = np.where(Ya == 0, Xa, -1).max(axis=1) + 1  # smallest consistent t
        pos = np.where(Ya == 1, Xa, K).min(axis=1)  # largest consistent t
        ok = neg <= pos
        # +1 where a user's consistent range starts, −1 just past its end (integer counts: exact in float)
        diff = np.bincount(neg[ok], minlength=K + 2) - np.bincount(pos[ok] + 1, minlength=K + 2)
        return Xa.shape[0] - np.cumsum(diff[: K + 1]).astype(float)

    def mistake_counts(self, X: Any, Y: Any) -> np.ndarray:
        """M[t, i] = number of mistakes of h_t on user i's examples, for every threshold, in O(n(m + K))."""
        Xa, Ya = _labelled(X, Y, self.grid_size)
        n, K = Xa.shape[0], self.grid_size
        CELLS.check(n * (K + 1), "n_users·(grid_size + 1)")
        pos = np.zeros((n, K))
        negc = np.zeros((n, K))
        rows = np.repeat(np.arange(n), Xa.shape[1])
        np.add.at(pos, (rows, Xa.ravel()), (Ya.ravel() == 1).astype(float))
        np.add.at(negc, (rows, Xa.ravel()), (Ya.ravel() == 0).astype(float))
        # h_t errs on positives with x < t and on negatives with x ≥ t
        pos_below = np.concatenate([np.zeros((n, 1)), np.cumsum(pos, axis=1)], axis=1)  # [:, t] = #pos with x < t
        neg_below = np.concatenate([np.zeros((n, 1)), np.cumsum(negc, axis=1)], axis=1)
        neg_at_or_above = neg_below[:, -1:] - neg_below
        return (pos_below + neg_at_or_above).T


def pac_scores(X: Any, Y: Any, predictions: Any) -> np.ndarray:
    """scr_h = Σ_i 1[user i's examples are not realizable by h] = #users with ≥ 1 mistake of h: the score of the
    learner of Theorem 4 (Section 4 of Ghazi et al. 2023).

    The per-user mistake count is clipped to {0, 1}, so one user moves every score by at most 1 (user-level
    sensitivity 1; summing raw mistakes would have sensitivity m, as Section 4 notes).

    Parameters
    ----------
    X : array_like, shape (n, m)
        Integer point indices into the columns of ``predictions``.
    Y : array_like, shape (n, m)
        Labels in {0, 1}.
    predictions : array_like, shape (|ℋ|, |𝒳|)
        0/1 predictions of every hypothesis on every point.

    >>> pac_scores([[0, 1], [1, 1]], [[0, 1], [1, 0]], [[0, 1], [1, 1]]).tolist()
    [1, 2]
    """
    P = _predictions(predictions)
    Xa, Ya = _labelled(X, Y, P.shape[1])
    CELLS.check(P.shape[0] * Xa.size, "hypotheses × n users × m examples")
    mist = P[:, Xa] != Ya[None, :, :]
    return mist.any(axis=2).sum(axis=1)


def realizable_pac_learner(
    X: Any, Y: Any, predictions: Any, epsilon: float, *, alpha: float | None = None, rng: Any = None
) -> Selection:
    """The learner of Theorem 4 (Section 4 of Ghazi et al. 2023): EM over ℋ with the clipped count of bad users;
    ε-user-level DP (pure).

    scr_h = #users whose examples are not all correctly labelled by h (Δ = 1); output h with probability
    ∝ exp(−ε·scr_h/2). With ``alpha`` given and m > 1/α, each user keeps only its first ⌊1/α⌋ examples (footnote 7;
    without it p_h = 1 − (1 − err)^m saturates and Lemma 22(ii) fails). Truncation is data independent, so privacy
    is unaffected.

    Returns
    -------
    Selection
        ``index`` of the chosen hypothesis (row of ``predictions``), its scores and exact probabilities.

    >>> H = ThresholdClass(20)
    >>> X, Y = H.sample(200, 5, target=7, rng=0)
    >>> realizable_pac_learner(X, Y, H.predictions(), 1.0, alpha=0.1, rng=1).index
    7
    """
    eps = check_epsilon(epsilon)
    P = _predictions(predictions)
    Xa, Ya = _labelled(X, Y, P.shape[1])
    Xa, Ya = _truncate(Xa, Ya, alpha)
    return _em_selection(pac_scores(Xa, Ya, P).astype(float), eps, 1.0, rng)


@dataclasses.dataclass(frozen=True)
class ClippedPairwiseEM:
    """ClippedPairwiseEM (Appendix E.1 of Ghazi et al. 2023, Theorem 37): the clipped pairwise-score exponential
    mechanism, ε-user-level DP.

    u[a, b, i] = Σ_j ψ_{H_a,H_b}(x_{i,j}) with ψ ∈ [−1, 1];  pscr[a, b] = Σ_i clip(u[a, b, i], −τ, τ);
    scr[a] = max_{b ≠ a} pscr[a, b] (b = a excluded);  P(a) ∝ exp(−ε·scr[a]/(4τ)).

    Changing one user's block moves each clipped term by at most 2τ, hence every pscr and every max by at most 2τ:
    user-level sensitivity Δ = 2τ (Appendix E.1). (Since |u| ≤ m, a τ ≥ m clips nothing.)

    Parameters
    ----------
    epsilon : float
        ε > 0.
    tau : float
        Clip threshold τ > 0 (paper: :func:`paper_tau`).

    Examples
    --------
    >>> em = ClippedPairwiseEM(1.0, 2.0)
    >>> u = np.array([[[0, 0], [-3, 1]], [[3, -1], [0, 0]]], dtype=float)
    >>> em.scores(u).tolist(), em.sensitivity
    ([-1.0, 1.0], 4.0)
    """

    epsilon: float
    tau: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "tau", check_scale(self.tau, "tau"))

    @property
    def sensitivity(self) -> float:
        """Δ = 2τ."""
        return 2.0 * self.tau

    @staticmethod
    def user_sums(psi: Any) -> np.ndarray:
        """u[a, b, i] = Σ_j ψ[a, b, i, j] from per-example comparisons ``psi`` of shape (K, K, n, m),
        values in [−1, 1]."""
        p = real_array(psi, "psi", ndim=4)
        if np.any(np.abs(p) > 1):
            raise ValueError("psi is not allowed: comparison values must lie in [-1, 1].")
        return p.sum(axis=3)

    def scores(self, user_sums: Any) -> np.ndarray:
        """scr[a] = max_{b≠a} Σ_i clip(u[a, b, i], −τ, τ) from ``user_sums`` of shape (K, K, n)."""
        u = real_array(user_sums, "user_sums", ndim=3, max_abs=ITEMS.high)
        K = u.shape[0]
        if u.shape[1] != K:
            raise ValueError(f"user_sums has shape {u.shape} which is not allowed: must be (K, K, n).")
        pscr = np.clip(u, -self.tau, self.tau).sum(axis=2)
        return _max_off_diagonal(pscr)

    def probabilities(self, user_sums: Any) -> np.ndarray:
        """Exact selection probabilities ∝ exp(−ε·scr/(4τ))."""
        return _em_selection(self.scores(user_sums), self.epsilon, self.sensitivity, 0).probabilities

    def select(self, user_sums: Any, *, rng: Any = None) -> Selection:
        """Run the mechanism on per-user pairwise sums of shape (K, K, n)."""
        return _em_selection(self.scores(user_sums), self.epsilon, self.sensitivity, rng)

    def scores_from_differences(self, M: Any) -> np.ndarray:
        """scr when u[a, b, i] = M[a, i] − M[b, i] (e.g. the mistake counts of Theorem 40), in O(K²n) time and O(Kn)
        memory."""
        Ma = real_array(M, "M", ndim=2, max_abs=ITEMS.high)
        K = Ma.shape[0]
        CELLS.check(K * K, "K² pairwise scores")
        WORK.check(K * K * Ma.shape[1], "K²·n pairwise user terms")
        pscr = np.empty((K, K))
        for a in range(K):
            pscr[a] = np.clip(Ma[a][None, :] - Ma, -self.tau, self.tau).sum(axis=1)
        return _max_off_diagonal(pscr)


def _max_off_diagonal(pscr: np.ndarray) -> np.ndarray:
    K = pscr.shape[0]
    if K == 1:
        return np.zeros(1)
    masked = pscr.copy()
    np.fill_diagonal(masked, -np.inf)
    return masked.max(axis=1)


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
    """The agnostic learner of Theorem 40 of Ghazi et al. 2023: ClippedPairwiseEM with
    ψ_{c,c′}((x, y)) = 1[c(x)≠y] − 1[c′(x)≠y].

    Sign corrected: the printed 1[c(x)=y] − 1[c′(x)=y] contradicts eq. (14); with this sign
    pscr_{c,c′}(𝒟) = err(c) − err(c′) and lower scores are better. Per user, u[a, b, i] = M[a, i] − M[b, i] with
    M the mistake counts. τ defaults to :func:`paper_tau` (C = 1) when ``alpha`` is given, else m (no clipping).
    ε-user-level DP with Δ = 2τ.

    m is the width of the rectangular (n, m) array X, a parameter of the data universe rather than a statistic of the
    data: a user-level neighbour replaces one row by another row of the same width. (With n = 1 the width itself can
    change, but then scr ∈ [−τ, τ] keeps every exponent −ε·scr/(4τ) in [−ε/4, ε/4], so the log-probabilities still
    move by at most ε; ``tests/numerics/test_userlevel_neighbours.py`` checks both cases exactly.)

    >>> H = ThresholdClass(10)
    >>> X, Y = H.sample(300, 4, target=3, label_noise=0.1, rng=0)
    >>> agnostic_pac_learner(X, Y, H.predictions(), 2.0, alpha=0.2, rng=0).index
    3
    """
    eps = check_epsilon(epsilon)
    P = _predictions(predictions)
    Xa, Ya = _labelled(X, Y, P.shape[1])
    CELLS.check(P.shape[0] * Xa.size, "hypotheses × n users × m examples")
    m = Xa.shape[1]
    t = _resolve_tau(tau, alpha, m)
    M = (P[:, Xa] != Ya[None, :, :]).sum(axis=2)
    em = ClippedPairwiseEM(eps, t)
    return _em_selection(em.scores_from_differences(M), eps, em.sensitivity, rng)


def _resolve_tau(tau: float | None, alpha: float | None, m: int) -> float:
    """τ from PUBLIC inputs only: ``tau`` if given, else :func:`paper_tau` (m, α) with ``alpha``, else m.

    ``m`` must be public (a parameter of the data universe: every user holds m examples), never a statistic of the
    private data such as the largest per-user count (issue 12, finding 2).
    """
    if tau is not None:
        return check_scale(tau, "tau")
    if alpha is not None:
        return paper_tau(m, alpha)
    return float(m)


def _symbol_counts(X: Any, k: int) -> np.ndarray:
    """(n, k) per-user symbol counts from an (n, m) integer array or a (possibly ragged) UserDataset."""
    blocks = X.blocks if isinstance(X, UserDataset) else list(real_array(X, "X", ndim=2))
    CELLS.check(len(blocks) * k, "n users × k symbols")
    out = np.zeros((len(blocks), k))
    for i, b in enumerate(blocks):
        b = np.asarray(b, dtype=float).ravel()
        if np.any(b != np.round(b)) or b.min() < 0 or b.max() >= k:
            raise ValueError(f"X is not allowed: must hold integer symbols in [0, {k - 1}].")
        out[i] = np.bincount(b.astype(np.int64), minlength=k)
    return out


def scheffe_selection(
    X: Any,
    candidates: Any,
    epsilon: float,
    *,
    alpha: float | None = None,
    tau: float | None = None,
    m: int | None = None,
    rng: Any = None,
) -> Selection:
    """Theorem 41 of Ghazi et al. 2023: user-level private hypothesis selection with the Scheffé comparison.

    For candidates P, P′ (pmfs on k symbols): W = {z : P(z) > P′(z)} (strict), ψ_{P,P′}(z) = P(W) − 1[z ∈ W]
    (sign as printed, so that pscr_{P*,P}(𝒟) ≤ d_tv(𝒟, P*)). Per user
    u[P, P′, i] = c_i·P(W) − #{j : x_{i,j} ∈ W}, then ClippedPairwiseEM with clip τ. ε-user-level DP.

    **τ must be public.** The paper fixes m (examples per user) before seeing the data, and τ = C(αm + √(m ln(1/α)))
    is a function of m and α only. τ is, in this order of precedence:

    * ``tau`` if given;
    * else :func:`paper_tau` (``m``, ``alpha``) — or ``m`` itself without ``alpha`` — for a PUBLIC ``m``;
    * else, only for rectangular data (every user holds the same count c): m = c. Rectangular data stay rectangular
      under user-level neighbours, so c is then a parameter of the data universe, not a statistic of the data.
      Ragged data without ``tau`` or ``m`` are refused: the largest per-user count is private (one user replacing
      2 samples by 30 would move τ and leak; issue 12, finding 2).

    With a public τ the selection is ε-user-level DP for ANY block sizes: each user's clipped term lies in [−τ, τ],
    so replacing one user's block (of any length) moves every pairwise score by at most Δ = 2τ.

    Parameters
    ----------
    X : array_like (n, m) of ints in [0, k) or UserDataset (ragged allowed with ``tau`` or ``m``)
    candidates : array_like, shape (K, k)
        Candidate pmfs (rows sum to 1).
    epsilon : float
        ε > 0.
    alpha : float, optional
        Target accuracy α in (0, 1): τ = :func:`paper_tau` (m, α).
    tau : float, optional
        Public clip threshold τ > 0 (overrides ``alpha``/``m``).
    m : int, optional
        Public number of examples per user (the paper's m), used for τ.

    >>> cands = np.array([[0.8, 0.2], [0.5, 0.5], [0.2, 0.8]])
    >>> X = np.random.default_rng(0).choice(2, size=(200, 10), p=[0.2, 0.8])
    >>> scheffe_selection(X, cands, 1.0, alpha=0.2, rng=0).index
    2
    >>> scheffe_selection(UserDataset([[0, 1], [1]]), cands, 1.0, alpha=0.2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: X is ragged (per-user counts 1..2), which is not allowed without a public tau or m: ... or tau.
    """
    eps = check_epsilon(epsilon)
    C = real_array(candidates, "candidates", ndim=2)
    if np.any(C < 0) or not np.allclose(C.sum(axis=1), 1.0, atol=1e-9):
        raise ValueError("candidates is not allowed: rows must be pmfs (non-negative, summing to 1).")
    K, k = C.shape
    CELLS.check(K * K * k, "K²·k Scheffé sets (candidates² × symbols)")
    n_users = X.n_users if isinstance(X, UserDataset) else np.shape(X)[0] if np.ndim(X) == 2 else 0
    WORK.check(K * K * (n_users + k), "K²·(n + k) pairwise Scheffé terms")
    counts = _symbol_counts(X, k)
    ci = counts.sum(axis=1)
    if tau is None:
        if m is not None:
            m_pub = ITEMS.check(m, "m")
        elif np.all(ci == ci[0]):
            m_pub = int(ci[0])
        else:
            raise ValueError(
                f"X is ragged (per-user counts {int(ci.min())}..{int(ci.max())}), which is not allowed without a "
                "public tau or m: τ would be read from the private data; pass m (examples per user) or tau."
            )
        t = _resolve_tau(None, alpha, m_pub)
    else:
        t = _resolve_tau(tau, alpha, 1)
    pscr = np.empty((K, K))
    for a in range(K):
        W = C[a][None, :] > C  # (K, k): W_{a,b}
        PaW = (W * C[a][None, :]).sum(axis=1)  # P_a(W_{a,b})
        u = ci[:, None] * PaW[None, :] - counts @ W.T  # (n, K)
        pscr[a] = np.clip(u, -t, t).sum(axis=0)
    em = ClippedPairwiseEM(eps, t)
    return _em_selection(_max_off_diagonal(pscr), eps, em.sensitivity, rng)


def discrete_cover(k: int, alpha: float, *, resolution: int | None = None, max_size: int = 20_000) -> np.ndarray:
    """All pmfs on k symbols whose masses are multiples of 1/M, M = ⌊10k/α⌋ (Theorem 43 of Ghazi et al. 2023; its
    proof prints "a multiple of ⌊10k/α⌋", a typo for 1/⌊10k/α⌋).

    A 0.1α-cover in TV: rounding any pmf to this grid moves it by < k/(2M) < α/10 (as M > 10k/α − 1 ≥ 5k/α).
    The count is C(M+k−1, k−1) (e.g. 5151 for k = 3, α = 0.3), so only tiny k and coarse α are feasible;
    ``resolution`` overrides M for demos (then the cover is only a k/(2·resolution)-cover). Raises ValueError if the
    cover would exceed ``max_size``.

    >>> discrete_cover(2, 0.5).shape
    (41, 2)
    """
    k = DOMAIN.check(k, "k")
    a = check_in_range(alpha, "alpha", 0.0, 1.0, low_inclusive=False)
    max_size = COVER.check(max_size, "max_size")
    if resolution is not None:
        resolution = COVER.check(resolution, "resolution")
    if k == 1:
        return np.ones((1, 1))  # the only pmf on one symbol, whatever the grid
    # For k ≥ 2 the cover holds C(M+k−1, k−1) ≥ max(M + 1, k) pmfs: refuse early, before M or the count get huge.
    M_real = 10 * k / a if resolution is None else float(resolution)
    if M_real + 1 > max_size or k > max_size:
        raise ValueError(
            f"alpha = {alpha!r} is not allowed with k = {k}: the cover would hold more than max_size = {max_size} "
            "distributions; use a larger alpha, smaller k or a coarser resolution."
        )
    M = int(math.floor(M_real)) if resolution is None else resolution
    size = 1
    for j in range(1, k):  # C(M+k−1, k−1) built up factor by factor, stopping once above max_size
        size = size * (M + j) // j
        if size > max_size:
            break
    if size > max_size:
        raise ValueError(
            f"alpha = {alpha!r} is not allowed with k = {k}: the cover would hold more than {max_size} distributions "
            f"(max_size = {max_size}); use a larger alpha, smaller k or a coarser resolution."
        )
    CELLS.check(size * k, "cover size × k")
    rows = []
    for bars in itertools.combinations(range(M + k - 1), k - 1):
        edges = (-1, *bars, M + k - 1)
        rows.append([edges[j + 1] - edges[j] - 1 for j in range(k)])
    return np.array(rows, dtype=float) / M


def learn_distribution_cover(
    X: Any,
    k: int,
    epsilon: float,
    alpha: float,
    *,
    cover: Any = None,
    tau: float | None = None,
    m: int | None = None,
    rng: Any = None,
) -> tuple[np.ndarray, Selection]:
    """Theorems 42–43 of Ghazi et al. 2023: Scheffé selection (:func:`scheffe_selection`) over a 0.1α-cover of
    distributions on k symbols.

    ``cover`` defaults to :func:`discrete_cover` (k, α). Returns (the selected pmf, the Selection). ε-user-level DP.
    τ comes from public inputs only, as in :func:`scheffe_selection`: ``tau``, else :func:`paper_tau` (``m``, α),
    else (rectangular data only) the common count m; ragged data need ``tau`` or ``m``.

    >>> X = np.random.default_rng(1).choice(2, size=(100, 8), p=[0.3, 0.7])
    >>> pmf, sel = learn_distribution_cover(X, 2, 2.0, 0.5, cover=discrete_cover(2, 0.5, resolution=10), rng=0)
    >>> pmf.tolist()
    [0.3, 0.7]
    """
    k = DOMAIN.check(k, "k")
    cv = discrete_cover(k, alpha) if cover is None else real_array(cover, "cover", ndim=2)
    if cv.shape[1] != k:
        raise ValueError(f"cover has shape {cv.shape} which is not allowed: must have k = {k} columns.")
    sel = scheffe_selection(X, cv, epsilon, alpha=alpha, tau=tau, m=m, rng=rng)
    return cv[sel.index], sel


def pairwise_sum_pmf(m: int, plus: float, minus: float) -> np.ndarray:
    """Exact pmf of u = Σ_{j≤m} ψ_j on {−m, …, m} for i.i.d. ψ_j ∈ {−1, 0, +1}, P(+1) = plus, P(−1) = minus.

    One user's pairwise sum in ClippedPairwiseEM when ψ takes values in {−1, 0, 1} (e.g. the mistake differences of
    Theorem 40). The law
    is the trinomial P(u) = Σ_{a−b=u} m!/(a! b! (m−a−b)!)·plus^a·minus^b·(1−plus−minus)^{m−a−b}, computed as the
    m-fold convolution of the one-example law by FFT on 2m + 1 points (no wrap-around: the support has exactly
    2m + 1 points), O(m log m); round-off (≤ 1e-15 absolute) is clipped at 0 and the result renormalised (the tests
    compare it with the trinomial sum). Index j of the result is u = j − m. Cached; the array is read-only.

    >>> [round(float(v), 12) for v in pairwise_sum_pmf(1, 0.3, 0.2)]
    [0.2, 0.5, 0.3]
    """
    m = PAIRWISE_M.check(m, "m")
    pl = check_probability(plus, "plus")
    mi = check_probability(minus, "minus")
    if 1.0 - pl - mi < -1e-12:
        raise ValueError(f"plus + minus = {pl + mi!r} is not allowed: must be <= 1.")
    return _pairwise_sum_pmf(m, float(pl), float(mi))


@functools.lru_cache(maxsize=128)
def _pairwise_sum_pmf(m: int, plus: float, minus: float) -> np.ndarray:
    """:func:`pairwise_sum_pmf` on validated arguments."""
    size = 2 * m + 1
    step = np.zeros(size)
    step[0] = max(1.0 - plus - minus, 0.0)
    step[1] = plus
    step[-1] = minus  # −1 wraps to the last index
    pmf = np.fft.irfft(np.fft.rfft(step) ** m, n=size)
    pmf = np.roll(pmf, m)  # index i ↔ u = i − m
    pmf = np.clip(pmf, 0.0, None)
    pmf /= pmf.sum()
    pmf.setflags(write=False)
    return pmf


@dataclasses.dataclass(frozen=True)
class ClippingTradeoff:
    """Clipping bias against EM noise for ClippedPairwiseEM (Ghazi et al. 2023, Appendix E.1), for a grid of τ.

    ``bias[τ] = n·|E[clip(u, −τ, τ)] − E[u]|`` (score units, exact), ``em_error[τ] = (2Δ/ε)·ln(|ℋ|/β)`` with Δ = 2τ
    (the standard exponential-mechanism bound, McSherry & Talwar 2007), ``signal = 0.2·α·n·m`` (the gap between the
    events E2 and E3 of the proof of Theorem 37). Built by :func:`clipping_tradeoff`.
    """

    tau: np.ndarray
    bias: np.ndarray
    em_error: np.ndarray
    signal: float
    tau_paper: float
    tau_best: float
    pmf: np.ndarray
    m: int


def clipping_tradeoff(m: int, alpha: float, disagree: float, epsilon: float, n_users: int, n_hyp: int,
                      *, beta: float = 0.1) -> ClippingTradeoff:
    """Per-user pairwise sums u_i = Σ_j ψ(x_{i,j}) for a pair (H, H′) whose comparison ψ ∈ {−1, 0, 1} has mean α
    (H worse by α) and P(ψ ≠ 0) = ``disagree``: the exact law of u (:func:`pairwise_sum_pmf`), and for 160
    log-spaced τ in [0.5, m] the clipping bias and the EM error.

    Paper's choice τ = αm + √(m·ln(1/α)) (Ghazi et al. 2023, proof of Theorem 37, constant C = 1). The EM error
    uses ``ClippedPairwiseEM(ε, τ).sensitivity`` = 2τ.

    >>> t = clipping_tradeoff(100, 0.1, 0.3, 1.0, 1000, 100)
    >>> t.tau.size, round(t.tau_paper, 4), bool(t.bias[0] > t.bias[-1])
    (160, 25.1743, True)
    """
    m = check_integer(m, "m", minimum=1, maximum=20_000)
    alpha = check_in_range(alpha, "alpha", 0.0, 0.5, low_inclusive=False)
    disagree = check_in_range(disagree, "disagree", 0.0, 1.0, low_inclusive=False)
    if alpha > disagree:
        raise ValueError(f"alpha = {alpha:g} is not allowed with disagree = {disagree:g}: the mean of ψ ∈ {{−1,0,1}} "
                         "cannot exceed the rate at which H and H′ disagree (choose alpha ≤ disagree).")
    epsilon = check_epsilon(epsilon, divides=True)
    n_users = USERS.check(n_users, "n_users")
    n_hyp = check_integer(n_hyp, "n_hyp", minimum=2, maximum=2**53)
    beta = check_in_range(beta, "beta", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    pmf = _pairwise_sum_pmf(m, (disagree + alpha) / 2, (disagree - alpha) / 2)
    u = np.arange(-m, m + 1, dtype=float)
    mean_u = float(np.dot(u, pmf))
    taus = np.geomspace(0.5, max(m, 1) * 1.0, 160)
    clipped_means = np.array([np.dot(np.clip(u, -t, t), pmf) for t in taus])
    bias = n_users * np.abs(clipped_means - mean_u)
    delta_sens = np.array([ClippedPairwiseEM(epsilon, float(t)).sensitivity for t in taus])
    em = 2 * delta_sens / epsilon * math.log(n_hyp / beta)
    tau_paper = alpha * m + math.sqrt(m * math.log(1 / alpha))
    best = float(taus[int(np.argmin(bias + em))])
    return ClippingTradeoff(tau=taus, bias=bias, em_error=em, signal=0.2 * alpha * n_users * m,
                            tau_paper=tau_paper, tau_best=best, pmf=pmf, m=m)


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
    target: int | None = None,
    return_se: bool = False,
    rng: Any = None,
) -> Any:
    """Mean TRUE error of the user-level learner on 1-D thresholds, for each (n, m) (broadcast), by simulation.

    Each trial draws a target threshold (uniform on 0..K unless ``target`` is given), n users × m examples
    (:meth:`ThresholdClass.sample`), runs the learner of Theorem 4 (``learner="realizable"``, with the m ≤ 1/α
    truncation when ``alpha`` is given) or that of Theorem 40 (``"agnostic"``, τ from ``alpha`` or m), and records
    the EXACT error err_𝒟(h) of the output (:meth:`ThresholdClass.errors`) — Monte-Carlo only over data and coins.
    For ``"agnostic"`` the excess error over the best threshold (= label_noise) is reported. Returns the mean over
    ``trials`` (array, shape of the broadcast of ``n_users`` and ``m``; a float for scalars), and with
    ``return_se=True`` also its standard error.

    Theory (Theorem 4 of Ghazi et al. 2023): error ≈ C·ln(K+1)/(ε·n·m) while m ≤ 1/α.

    >>> e = simulate_threshold_learning([20, 200], 4, 1.0, grid_size=50, trials=10, rng=0)
    >>> bool(e[1] < e[0])
    True
    """
    eps = check_epsilon(epsilon)
    H = ThresholdClass(grid_size)
    trials = TRIALS.check(trials, "trials")
    check_choice(learner, "learner", ("realizable", "agnostic"))
    eta = check_in_range(label_noise, "label_noise", 0.0, 0.5)
    if target is not None:
        target = H._target(target)
    if alpha is not None:
        check_in_range(alpha, "alpha", 0.0, 1.0, low_inclusive=False)
    n_arr = real_array(n_users, "n_users")
    m_arr = real_array(m, "m")
    try:
        nb, mb = np.broadcast_arrays(n_arr, m_arr)
    except ValueError:
        raise ValueError(
            f"n_users has shape {n_arr.shape} which is not allowed: must broadcast with m's shape {m_arr.shape}."
        ) from None
    ns = np.array([ITEMS.check(v, "n_users") for v in nb.ravel()])
    ms = np.array([ITEMS.check(v, "m") for v in mb.ravel()])
    # one trial reads n·m examples and, for the agnostic learner, n·K mistake counts and K²·n pairwise terms
    K1 = H.n_hypotheses
    per_trial = ns * ms + (ns * K1 * K1 if learner == "agnostic" else ns + K1)
    WORK.check(int(np.sum(per_trial.astype(float))) * trials, "simulation work trials·Σ(n·m + …)")
    gen = as_rng(rng)
    mean = np.empty(nb.shape)
    se = np.empty(nb.shape)
    for idx in np.ndindex(nb.shape):
        n_i = check_integer(nb[idx], "n_users", minimum=1)
        m_i = check_integer(mb[idx], "m", minimum=1)
        errs = np.empty(trials)
        # one trial: target, data, the learner's pick; on the private kernels of H.sample, the learners and
        # H.errors (validated above), with the same draws in the same order as calling the public ones
        em = ClippedPairwiseEM(eps, _resolve_tau(None, alpha, m_i)) if learner == "agnostic" else None
        for t in range(trials):
            tgt = int(gen.integers(H.n_hypotheses)) if target is None else target
            X, Y = H._sample(n_i, m_i, tgt, eta, gen)
            if em is None:
                Xt, Yt = _truncate(X, Y, alpha)
                pick = _em_index(H._realizable_scores(Xt, Yt), eps, 1.0, gen)
            else:
                pick = _em_index(em.scores_from_differences(H.mistake_counts(X, Y)), eps, em.sensitivity, gen)
            errs[t] = H._errors(pick, tgt, eta) - (eta if learner == "agnostic" else 0.0)
        mean[idx] = errs.mean()
        se[idx] = errs.std(ddof=1) / math.sqrt(trials) if trials > 1 else math.inf
    if mean.ndim == 0:
        return (float(mean), float(se)) if return_se else float(mean)
    return (mean, se) if return_se else mean
