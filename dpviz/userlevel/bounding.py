"""Lesson 11's models: the cost of group privacy as m grows, and the n × m contribution-bounding explorer.

* :func:`sample_counts` — heavy-tailed per-user record counts (a seeded, discretised Pareto).
* :func:`bounding_curves` → :class:`BoundingTradeoff` — truncation bias, noise and RMSE of a user-level noisy sum
  for every contribution bound k at once (vectorised over k: no loop over k).
* :func:`int_log_grid` — distinct log-spaced integers (the m and k axes of lessons 11 and 14).

Pure numpy; no plotting. The figures of lesson 11 are in :mod:`dpviz.plots.items_to_users`; group privacy's cost
over an axis of m (Lemma 6) is :func:`dpviz.accountants.group.group_privacy_curve`, its one home.

References
----------
Ghazi, Kamath, Kumar, Manurangsi, Meka, Zhang, "User-Level Differential Privacy With Few Examples Per User",
NeurIPS 2023: Definition 1 (user-level neighbours), Lemma 6 (group privacy). Dwork & Roth 2014, Theorem 3.6 (Laplace
mechanism). Balle & Wang 2018, Theorem 8 (analytic Gaussian calibration).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from dpviz._validation import check_choice, check_delta, check_in_range, check_integer, check_positive
from dpviz.accountants.group import _log_item_delta
from dpviz.mechanisms import analytic_gaussian_sigma

__all__ = [
    "int_log_grid",
    "sample_counts",
    "BoundingTradeoff",
    "bounding_curves",
]


def int_log_grid(lo: int, hi: int, num: int) -> np.ndarray:
    """Distinct integers, log-spaced from ``lo`` to ``hi`` inclusive (at most ``num`` of them, sorted).

    >>> int_log_grid(1, 100, 5).tolist()
    [1, 3, 10, 32, 100]
    """
    lo = check_integer(lo, "lo", minimum=1, maximum=2**53)
    hi = check_integer(hi, "hi", minimum=lo, maximum=2**53)
    num = check_integer(num, "num", minimum=2, maximum=10**6)
    return _int_log_grid(lo, hi, num)


def _int_log_grid(lo: int, hi: int, num: int) -> np.ndarray:
    return np.unique(np.round(np.geomspace(lo, hi, num)).astype(np.int64))


def sample_counts(n_users: int, median: float, tail: float, cap: int, seed: int = 0) -> np.ndarray:
    """Heavy-tailed per-user record counts: a discretised Pareto with tail index ``tail``, capped at ``cap``.

    c_i = min(cap, max(1, ⌈x_min·U_i^{−1/a}⌉)) with x_min = median/2^{1/a} (so the continuous median is ``median``),
    U_i uniform from ``numpy.random.default_rng(seed)``. Smaller a = heavier tail (a ≤ 1: infinite mean before the
    cap). Sorted ascending; cached, so the array is read-only.

    >>> c = sample_counts(1000, 5.0, 2.0, 1000, seed=0)
    >>> c.size, int(c[0]) >= 1, int(c[-1]) <= 1000, bool(np.all(np.diff(c) >= 0))
    (1000, True, True, True)
    """
    n_users = check_integer(n_users, "n_users", minimum=1, maximum=10**6)
    median = check_in_range(median, "median", 1.0, 1e4)
    tail = check_in_range(tail, "tail", 0.5, 10.0)
    cap = check_integer(cap, "cap", minimum=1, maximum=10**5)
    seed = check_integer(seed, "seed", minimum=0)
    return _sample_counts(n_users, float(median), float(tail), cap, seed)


@functools.lru_cache(maxsize=64)
def _sample_counts(n_users: int, median: float, tail: float, cap: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    u = rng.random(n_users)
    x_min = median / 2.0 ** (1.0 / tail)
    with np.errstate(over="ignore"):
        c = np.ceil(x_min * u ** (-1.0 / tail))
    c = np.clip(np.nan_to_num(c, posinf=cap), 1, cap).astype(np.int64)
    c.sort()
    c.setflags(write=False)
    return c


@dataclasses.dataclass(frozen=True)
class BoundingTradeoff:
    """Error of a noisy sum with contribution bound k, for every k = 1 … cap (arrays indexed by k − 1).

    Built by :func:`bounding_curves`.

    Attributes
    ----------
    k : ndarray
        1 … cap.
    counts : ndarray
        Per-user record counts c_i (sorted).
    true_answer : float
        Σ_i c_i (every record has value 1 in this synthetic dataset; the mechanism must still protect any values
        in [0, 1]).
    bias : ndarray
        Truncation bias −Σ_i (c_i − k)_+ (records beyond the first k of each user are dropped).
    noise_user, noise_item, noise_group : ndarray
        Noise standard deviation for a user-level guarantee (sensitivity k), an item-level guarantee (sensitivity 1,
        protects one record only) and an item-level mechanism lifted to user level by group privacy (run at ε/k and
        δ·(e^{ε/k}−1)/(e^{ε}−1), see :func:`bounding_curves`); ``noise_group`` equals ``noise_user`` for Laplace.
    rmse_user, rmse_item, rmse_group : ndarray
        √(bias² + noise²).
    k_user, k_item, k_group : int
        The k minimising each RMSE (smallest such k).
    """

    k: np.ndarray
    counts: np.ndarray
    true_answer: float
    bias: np.ndarray
    noise_user: np.ndarray
    noise_item: np.ndarray
    noise_group: np.ndarray
    rmse_user: np.ndarray
    rmse_item: np.ndarray
    rmse_group: np.ndarray
    k_user: int
    k_item: int
    k_group: int
    mechanism: str
    epsilon: float
    delta: float

    def dropped_fraction(self, k: int) -> float:
        """Fraction of records dropped at bound k."""
        return float(-self.bias[k - 1] / self.true_answer)

    def users_truncated(self, k: int) -> float:
        """Fraction of users with more than k records."""
        return float(np.mean(self.counts > k))


@functools.lru_cache(maxsize=32)
def _group_sigma_curve(epsilon: float, delta: float, cap: int) -> np.ndarray:
    """σ of an item-level Gaussian (sensitivity 1) run at (ε/k, δ_k), δ_k = δ(e^{ε/k}−1)/(e^{ε}−1), for k = 1..cap:
    the item-level budget whose group-privacy lift (Lemma 6 of Ghazi et al. 2023) is exactly (ε, δ) for k records.

    Calibrated exactly (:func:`dpviz.mechanisms.analytic_gaussian_sigma`, one vectorised call) on ≤ 60 log-spaced k
    including k = 1 and k = cap, and interpolated in log–log between them (σ is smooth and monotone in k); at k = 1
    the factor is exactly 1, so entry 0 is σ₁(ε, δ) itself. Read-only.
    """
    ks = _int_log_grid(1, cap, 60).astype(float)
    eps_k = epsilon / ks
    # δ_k·(e^{k·ε/k} − 1)/(e^{ε/k} − 1) = δ: the group-privacy lift of (ε/k, δ_k) over k records is (ε, δ)
    delta_k = np.exp(_log_item_delta(eps_k, delta, ks))
    sig = analytic_gaussian_sigma(eps_k, delta_k)
    out = np.exp(np.interp(np.log(np.arange(1, cap + 1, dtype=float)), np.log(ks), np.log(sig)))
    out[ks.astype(np.int64) - 1] = sig  # exact at the calibrated k (exp∘log need not round-trip)
    out.setflags(write=False)
    return out


def bounding_curves(
    n_users: int = 1000,
    median: float = 5.0,
    tail: float = 1.2,
    epsilon: float = 1.0,
    *,
    mechanism: str = "laplace",
    delta: float = 1e-6,
    cap: int = 1000,
    seed: int = 0,
) -> BoundingTradeoff:
    """Truncation bias against noise against total error of a user-level noisy sum, for every bound k = 1 … cap.

    Each user i holds c_i records (:func:`sample_counts`); every record value lies in [0, 1]. Keeping at most k
    records per user (contribution bounding) gives

    * bias(k) = −Σ_i (c_i − k)_+ (the dropped records; every value is 1 here, the worst case for bias);
    * user-level sensitivity k (one user's block of ≤ k records replaced moves the sum by ≤ k), so
      Laplace noise std √2·k/ε, or Gaussian σ = k·σ₁(ε, δ) (analytic Gaussian, Balle & Wang 2018, Thm 8);
    * item-level sensitivity 1 (one record replaced): std √2/ε or σ₁(ε, δ), independent of k — but it protects
      one record, not a user (a user with c records gets only c·ε by Lemma 6 of Ghazi et al. 2023);
    * item-level mechanism lifted to user level by group privacy (Lemma 6): run at ε/k and δ·(e^{ε/k}−1)/(e^{ε}−1)
      so the user-level guarantee is (ε, δ). For Laplace this equals the user-level noise; for Gaussian it is worse.

    RMSE(k) = √(bias(k)² + noise(k)²) (exact: the bias is deterministic given the data, the noise has mean 0).
    All k at once from the sorted counts (Σ_i min(c_i, k) = Σ_{c_i ≤ k} c_i + k·#{c_i > k}); results are cached
    and their arrays read-only. For a :class:`~dpviz.userlevel.UserDataset` with real values see
    :func:`~dpviz.userlevel.bounding_tradeoff`.

    Parameters
    ----------
    n_users : int
        Number of users n (1 … 10⁶).
    median : float
        Median records per user (continuous Pareto median), in [1, 10⁴].
    tail : float
        Pareto tail index a in [0.5, 10]; smaller is heavier.
    epsilon : float
        Target ε > 0.
    mechanism : {"laplace", "gaussian"}
        Laplace: pure ε-DP; Gaussian: (ε, δ)-DP.
    delta : float
        δ in (0, 1) (Gaussian only).
    cap : int
        Public maximum records per user (the no-bounding sensitivity), 1 … 10⁵.
    seed : int
        Seed of the synthetic counts.

    Returns
    -------
    BoundingTradeoff

    Raises
    ------
    ValueError
        Any parameter out of its range.

    References
    ----------
    Ghazi et al. 2023, Definition 1 and Lemma 6; Dwork & Roth 2014, Thm 3.6 (Laplace mechanism); Balle & Wang 2018,
    Thm 8. The explorer itself is dpviz's own illustration, derived here (contribution bounding is a baseline, not a
    result of the paper).

    Examples
    --------
    >>> t = bounding_curves(100, 3.0, 1.5, 1.0, seed=1)
    >>> int(t.k[0]), bool(t.bias[-1] == 0), t.k_user <= t.k_item
    (1, True, True)
    """
    n_users = check_integer(n_users, "n_users", minimum=1, maximum=10**6)
    median = check_in_range(median, "median", 1.0, 1e4)
    tail = check_in_range(tail, "tail", 0.5, 10.0)
    epsilon = check_positive(epsilon, "epsilon")
    mechanism = check_choice(mechanism, "mechanism", ("laplace", "gaussian"))
    delta = check_delta(delta, "delta", allow_zero=False)
    cap = check_integer(cap, "cap", minimum=1, maximum=10**5)
    seed = check_integer(seed, "seed", minimum=0)
    return _bounding_curves(n_users, float(median), float(tail), float(epsilon), mechanism, float(delta), cap, seed)


@functools.lru_cache(maxsize=32)
def _bounding_curves(n_users: int, median: float, tail: float, epsilon: float, mechanism: str, delta: float,
                     cap: int, seed: int) -> BoundingTradeoff:
    """Cached body of :func:`bounding_curves` (validated arguments; arrays returned read-only)."""
    counts = _sample_counts(n_users, median, tail, cap, seed)
    k = np.arange(1, cap + 1)
    csum = np.concatenate([[0], np.cumsum(counts)])
    j = np.searchsorted(counts, k, side="right")
    kept = csum[j] + k * (n_users - j)
    true = float(csum[-1])
    bias = kept.astype(float) - true
    if mechanism == "laplace":
        unit = math.sqrt(2.0) / epsilon
        noise_user = unit * k
        noise_item = np.full(cap, unit)
        noise_group = noise_user.copy()
    else:
        noise_group = _group_sigma_curve(epsilon, delta, cap)
        s1 = float(noise_group[0])  # k = 1: the lift is the identity, σ₁ = analytic_gaussian_sigma(ε, δ) exactly
        noise_user = s1 * k
        noise_item = np.full(cap, s1)
    rm = [np.sqrt(bias**2 + nz**2) for nz in (noise_user, noise_item, noise_group)]
    opt = [int(np.argmin(r)) + 1 for r in rm]
    for arr in (k, bias, noise_user, noise_item, noise_group, *rm):
        arr.setflags(write=False)
    return BoundingTradeoff(k=k, counts=counts, true_answer=true, bias=bias, noise_user=noise_user,
                            noise_item=noise_item, noise_group=noise_group, rmse_user=rm[0], rmse_item=rm[1],
                            rmse_group=rm[2], k_user=opt[0], k_item=opt[1], k_group=opt[2], mechanism=mechanism,
                            epsilon=epsilon, delta=delta)
