"""Baselines for user-level DP: contribution bounding and the group-privacy lift.

* **Contribution bounding** keeps at most k examples per user; an item-level mechanism on the bounded data is then
  user-level private with its sensitivity multiplied by k (one user moves at most k items). The price is a
  *truncation bias* (the examples thrown away), traded against the noise, which grows with k.
* **Group privacy** (Lemma 6 of 000): an (ε, δ)-item-level DP algorithm run on all items is, for user-level
  neighbours with m examples each (m-neighbours at item level),
  (mε, δ·(e^{mε} − 1)/(e^{ε} − 1))-user-level DP. The δ factor is a geometric sum, not m (digest pitfall 3).

References
----------
Ghazi et al., NeurIPS 2023 (``000_eed7e3c6d3636c79.txt``): Lemma 6 (group privacy), Section 1 (naive conversion).
Dwork & Roth, "The Algorithmic Foundations of Differential Privacy", 2014, Theorem 2.2 (group privacy, pure DP).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dpviz._validation import as_rng, check_choice, check_delta, check_integer

from ._checks import MAX_ITEMS, MAX_WORK, check_cells, check_dataset, check_epsilon, check_scale, log_expm1
from .data import UserDataset

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
    k = check_integer(k, "k", minimum=1, maximum=MAX_ITEMS)
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
    k = check_integer(k, "k", minimum=1, maximum=MAX_ITEMS)
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
    check_cells(len(klist) * dataset.n_users, "len(ks)·n_users", MAX_WORK, "MAX_WORK")
    karr = np.array([check_integer(k, "ks", minimum=1, maximum=MAX_ITEMS) for k in klist], dtype=np.int64)
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


def _local_group_privacy(epsilon: float, delta: float, k: int) -> tuple[float, float]:
    factor = float(k) if epsilon == 0 else math.expm1(k * epsilon) / math.expm1(epsilon)
    return k * epsilon, min(1.0, factor * delta) if delta > 0 else 0.0


def group_privacy_lift(epsilon: float, delta: float, m: int) -> tuple[float, float]:
    """(ε_m, δ_m) = (mε, δ·(e^{mε} − 1)/(e^{ε} − 1)): item-level (ε, δ) lifted to users of m examples.

    Lemma 6 of 000 (group privacy) with k = m: a user-level neighbour is an item-level m-neighbour. The δ factor is
    the geometric sum Σ_{j<m} e^{jε} (digest pitfall 3); it is m at ε = 0. δ_m is capped at 1 (a δ ≥ 1 says nothing).
    Delegates to ``dpviz.accountants.group_privacy`` when that module is available.

    Parameters
    ----------
    epsilon : float
        Item-level ε in [0, 500] (MAX_EPSILON).
    delta : float
        Item-level δ in [0, 1).
    m : int
        Examples per user (group size), in [1, 10⁷] (MAX_ITEMS). When e^{mε} exceeds the float range the factor is
        evaluated in log space (δ_m is then 1 unless δ is astronomically small).

    Returns
    -------
    (float, float)

    Examples
    --------
    >>> eps_m, delta_m = group_privacy_lift(0.1, 1e-6, 10)
    >>> round(eps_m, 12), round(delta_m / 1e-6, 6)
    (1.0, 16.337994)
    """
    epsilon = check_epsilon(epsilon, allow_zero=True)
    delta = check_delta(delta, "delta")
    m = check_integer(m, "m", minimum=1, maximum=MAX_ITEMS)
    if m * epsilon > 700.0:  # e^{mε} beyond the float range: the geometric factor in log space
        if delta == 0.0:
            return m * epsilon, 0.0
        log_factor = log_expm1(m * epsilon) - log_expm1(epsilon)
        return m * epsilon, min(1.0, math.exp(min(0.0, math.log(delta) + log_factor)))
    try:
        from dpviz.accountants import group_privacy  # type: ignore[attr-defined]
    except ImportError:
        return _local_group_privacy(epsilon, delta, m)
    eps_m, delta_m = group_privacy(epsilon, delta, m)
    return float(eps_m), min(1.0, float(delta_m))


def group_privacy_item_budget(epsilon: float, delta: float, m: int) -> tuple[float, float]:
    """Item-level budget (ε₀, δ₀) = (ε/m, δ·(e^{ε/m} − 1)/(e^{ε} − 1)) whose group-privacy lift is exactly (ε, δ).

    The inverse of :func:`group_privacy_lift` (Lemma 6 of 000): the naive way to reach (ε, δ)-user-level DP.

    >>> eps0, delta0 = group_privacy_item_budget(1.0, 1e-6, 10)
    >>> [round(v, 12) for v in group_privacy_lift(eps0, delta0, 10)]
    [1.0, 1e-06]
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, "delta")
    m = check_integer(m, "m", minimum=1, maximum=MAX_ITEMS)
    eps0 = epsilon / m
    return eps0, delta * math.expm1(eps0) / math.expm1(epsilon)
