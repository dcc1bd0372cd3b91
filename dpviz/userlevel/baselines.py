"""Baselines for user-level DP: contribution bounding and the group-privacy lift.

* **Contribution bounding** keeps at most k examples per user; an item-level mechanism on the bounded data is then
  user-level private with its sensitivity multiplied by k (one user moves at most k items). The price is a
  *truncation bias* (the examples thrown away), traded against the noise, which grows with k.
* **Group privacy** (Ghazi et al. 2023, Lemma 6): an (ε, δ)-item-level DP algorithm run on all items is, for
  user-level neighbours with m examples each (m-neighbours at item level), (mε, δ·(e^{mε} − 1)/(e^{ε} − 1))-user-level
  DP. The δ factor is a geometric sum, not m. :func:`group_privacy_lift` and its exact inverse
  :func:`group_privacy_item_budget` live in :mod:`dpviz.accountants.group` (the one home of group privacy) and are
  re-exported here, so ``dpviz.userlevel.group_privacy_lift`` keeps working.

References
----------
Ghazi, Kamath, Kumar, Manurangsi, Meka, Zhang, "User-Level Differential Privacy With Few Examples Per User",
NeurIPS 2023: Lemma 6 (group privacy), Section 1 (naive conversion).
Dwork & Roth, "The Algorithmic Foundations of Differential Privacy", 2014, Theorem 2.2 (group privacy, pure DP).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dpviz._validation import as_rng, check_choice
from dpviz.accountants.group import group_privacy_item_budget, group_privacy_lift

from .data import ITEMS, WORK, UserDataset, check_dataset, check_epsilon, check_scale

__all__ = [
    "contribution_bound",
    "truncation_bias",
    "bounding_tradeoff",
    "group_privacy_lift",
    "group_privacy_item_budget",
]


def contribution_bound(dataset: UserDataset, k: int, rng: Any = None) -> UserDataset:
    """Keep at most ``k`` examples per user (contribution bounding).

    Users with c_i ≤ k keep everything; the others keep a uniformly random subset of k examples (or the first k
    when ``rng is None``; the choice is data-independent either way).

    Parameters
    ----------
    dataset : UserDataset
    k : int
        Contribution bound, ``k ≥ 1``.
    rng : numpy Generator, int seed or None
        Randomness for the choice of kept examples; ``None`` keeps the first k (deterministic).

    Returns
    -------
    UserDataset
        Same users, ``counts = min(c_i, k)``.

    Examples
    --------
    >>> x = UserDataset([[1, 2, 3], [4]])
    >>> contribution_bound(x, 2).counts.tolist()
    [2, 1]
    """
    check_dataset(dataset)
    k = ITEMS.check(k, "k")
    blocks = []
    gen = None if rng is None else as_rng(rng)
    for b in dataset.blocks:
        if b.shape[0] <= k:
            blocks.append(b)
        elif gen is None:
            blocks.append(b[:k])
        else:
            idx = np.sort(gen.choice(b.shape[0], size=k, replace=False))
            blocks.append(b[idx])
    return UserDataset(tuple(blocks), domain=dataset.domain)


def _kept_sums(dataset: UserDataset, k: int) -> tuple[float, float]:
    """(E[bounded sum], bounded count) for uniformly random choice of kept examples (exact expectation)."""
    c = dataset.counts.astype(float)
    kept = np.minimum(c, k)
    sums = dataset.user_sums().astype(float)
    return float(np.sum(kept / c * sums)), float(kept.sum())


def truncation_bias(dataset: UserDataset, k: int, statistic: str = "sum") -> float:
    """Exact bias of the bounded statistic: E[statistic of ``contribution_bound(x, k)``] − statistic of x.

    The expectation is over the uniformly random choice of the kept examples: user i keeps a fraction
    min(c_i, k)/c_i of its examples, so E[bounded sum] = Σ_i (min(c_i,k)/c_i)·S_i with S_i = Σ_j x_{i,j}.

    * ``"count"``: Σ_i min(c_i, k) − Σ_i c_i (always ≤ 0);
    * ``"sum"``: Σ_i (min(c_i,k)/c_i − 1)·S_i;
    * ``"mean"``: E[bounded sum]/Σ_i min(c_i,k) − Σ S_i/Σ c_i (the bounded count is deterministic, so this is exact).

    Examples
    --------
    >>> x = UserDataset([[1, 1, 1, 1], [0]])
    >>> truncation_bias(x, 2, "count"), truncation_bias(x, 2, "sum"), truncation_bias(x, 2, "mean")
    (-2.0, -2.0, -0.13333333333333341)
    """
    check_dataset(dataset)
    k = ITEMS.check(k, "k")
    check_choice(statistic, "statistic", ("count", "sum", "mean"))
    exp_sum, kept = _kept_sums(dataset, k)
    total_sum = float(dataset.user_sums().sum())
    total_count = float(dataset.n_items)
    if statistic == "count":
        return kept - total_count
    if statistic == "sum":
        return exp_sum - total_sum
    return exp_sum / kept - total_sum / total_count


def bounding_tradeoff(
    dataset: UserDataset,
    ks: Sequence[int] | np.ndarray,
    epsilon: float,
    *,
    statistic: str = "sum",
    value_range: float = 1.0,
    level: str = "user",
) -> dict[str, np.ndarray]:
    """Bias, noise and total error of a Laplace-noised bounded count/sum as the contribution bound k moves.

    For each k: the data are bounded to ≤ k examples per user and the count or sum (items in [0, value_range]) is
    released with Laplace noise of scale Δ/ε, where

    * ``level="user"``: Δ = k·value_range (one user moves at most k bounded items) → ε-user-level DP;
    * ``level="item"``: Δ = value_range → only ε-item-level DP (what you pay without bounding is group privacy).

    Returns a dict of arrays over ``ks``: ``"k"``, ``"bias"`` (exact, see :func:`truncation_bias`),
    ``"noise_sd"`` = √2·Δ/ε (Laplace standard deviation), ``"rmse"`` = √(bias² + noise_sd²) (exact root mean squared
    error over the noise, for the expected bounded statistic), and ``"sensitivity"``.
    For ``statistic="count"`` the value range is 1.

    Examples
    --------
    >>> x = UserDataset([[1, 1, 1, 1], [0]])
    >>> t = bounding_tradeoff(x, [1, 4], 1.0)
    >>> t["bias"].tolist(), t["sensitivity"].tolist()
    ([-3.0, 0.0], [1.0, 4.0])
    """
    check_dataset(dataset)
    epsilon = check_epsilon(epsilon, divides=True)
    value_range = check_scale(value_range, "value_range")
    check_choice(statistic, "statistic", ("count", "sum"))
    check_choice(level, "level", ("user", "item"))
    if isinstance(ks, (str, bytes)) or np.ndim(ks) > 1:
        raise TypeError(f"ks = {ks!r} is not allowed: must be an integer or a 1-D sequence of integers >= 1.")
    klist = list(np.atleast_1d(np.asarray(ks, dtype=object)))
    if not klist:
        raise ValueError("ks is empty, which is not allowed: must hold at least one contribution bound k >= 1.")
    WORK.check(len(klist) * dataset.n_users, "len(ks)·n_users")
    karr = np.array([ITEMS.check(k, "ks") for k in klist], dtype=np.int64)
    vr = 1.0 if statistic == "count" else value_range
    bias = np.array([truncation_bias(dataset, int(k), statistic) for k in karr])
    sens = karr * vr if level == "user" else np.full(karr.shape, vr, dtype=float)
    sens = sens.astype(float)
    noise_sd = math.sqrt(2.0) * sens / epsilon
    return {
        "k": karr,
        "bias": bias,
        "noise_sd": noise_sd,
        "rmse": np.sqrt(bias**2 + noise_sd**2),
        "sensitivity": sens,
    }
