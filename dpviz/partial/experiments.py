"""Lesson 15's models and simulated experiments, as numbers (the figures of :mod:`dpviz.plots.partial` draw them).

* :func:`record_epsilon_curves` — whole-record ε against d for a per-attribute ε0 (Proposition 8 of Ghazi, Kumar,
  Manurangsi & Steinke 2023, with the conversions of Bun & Steinke 2016 and Canonne, Kamath & Steinke 2020) and the
  per-person ε of specific mechanisms (Lemma 10, Theorems 11 and 12);
* :func:`sparse_attack` — an adversary rounding a sparse Laplace-noised histogram (Section 5);
* :func:`planted_data` — synthetic binary records with planted heavy hitters (for Algorithm 2 and Theorem 11);
* :func:`projection_empirical_mse` — simulated MSE of the projection mechanism at d = 4, 6, 8 (Theorem 11);
* :func:`mwem_best_rounds`, :func:`mwem_ell_tradeoff` — the best T of bound (3) and the ℓ trade-off (Theorem 12).

Every function validates its arguments and calls a cached kernel: the results are read-only arrays, and the same
seed gives the same draw (randomness enters only through ``seed``).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from dpviz._validation import Interval, check_delta, check_integer
from dpviz.partial.accounting import zcdp_epsilon_curve
from dpviz.partial.histograms import COUNT, EPS, RECORD_ENTRIES, RECORDS
from dpviz.partial.marginals import (
    QUERY_D,
    kway_diameters,
    kway_query_matrix,
    mwem_best_T,
    mwem_person_rho,
    projection_mechanism,
)

__all__ = [
    "record_epsilon_curves",
    "sparse_attack",
    "planted_data",
    "projection_empirical_mse",
    "mwem_best_rounds",
    "mwem_ell_tradeoff",
]

#: Most planted strings of :func:`planted_data`: their shares 6 % … 30 % of n (evenly spaced) must sum to ≤ 100 %.
PLANTED = Interval(1, 5, integer=True)

#: Most cells of :func:`sparse_attack` (the lesson draws 40).
SPARSE_CELLS = Interval(1, 1_000_000, integer=True)

#: Largest d_max of :func:`record_epsilon_curves` (the lesson draws d ≤ 100).
CURVE_D = Interval(1, 100_000, integer=True)

#: Rows × columns of the cached uniform background of :func:`planted_data` (one draw per seed, sliced).
_BACKGROUND = (100_000, 32)

#: T_max of the lesson's search for the best number of MWEM rounds.
_T_MAX = 200_000


def _readonly(*arrays):
    for a in arrays:
        a.setflags(write=False)
    return arrays


class RecordCurves(NamedTuple):
    """Whole-record and per-person ε against d = 1 … d_max (see :func:`record_epsilon_curves`)."""

    d: np.ndarray
    pure: np.ndarray  # d·ε0 (Prop 8)
    simple: np.ndarray  # ρ = ½(dε0)² → ε by ρ + 2√(ρ ln 1/δ) (Bun & Steinke 2016, Prop 1.3)
    cks: np.ndarray  # the same ρ → ε by Canonne, Kamath & Steinke 2020, Cor 13
    parallel: np.ndarray  # √d·ε0: parallel composition (Lemma 10), ½ε²-zCDP parametrisation
    projection: np.ndarray  # √(max(d, k)/k)·ε0: projection mechanism, k-way (Theorem 11)
    mwem: np.ndarray  # √(½(ℓ² + ℓ))·ε0, ℓ = max(⌊d/k⌋, 1): partial MWEM (Theorem 12, exact total)
    parallel_cks: np.ndarray  # parallel composition's ρ = ½dε0² → ε by CKS


def record_epsilon_curves(eps0: float, delta: float, *, d_max: int = 100, k_way: int = 2) -> RecordCurves:
    """Whole-record ε implied by ε0 per attribute for d = 1 … ``d_max`` (Proposition 8 of Ghazi, Kumar, Manurangsi
    & Steinke 2023): pure d·ε0 and ρ = ½(dε0)² converted at ``delta``; and the per-person ε of mechanisms with the
    same ε0 (``k_way``-way queries for the projection mechanism and partial MWEM). Cached, read-only arrays.

    >>> c = record_epsilon_curves(0.1, 1e-6, d_max=4)
    >>> c.pure.tolist(), c.parallel.round(4).tolist()
    ([0.1, 0.2, 0.30000000000000004, 0.4], [0.1, 0.1414, 0.1732, 0.2])
    """
    e0 = EPS.check(eps0, "eps0")
    delta = check_delta(delta, allow_zero=False)
    d_max = CURVE_D.check(d_max, "d_max")
    k_way = CURVE_D.check(k_way, "k_way")
    return _record_curves(e0, d_max, delta, k_way)


@lru_cache(maxsize=256)
def _record_curves(eps0: float, d_max: int, delta: float, k_way: int) -> RecordCurves:
    d = np.arange(1, d_max + 1, dtype=float)
    rho = 0.5 * (d * eps0) ** 2
    pure = d * eps0
    simple = zcdp_epsilon_curve(rho, delta, "simple")
    cks = zcdp_epsilon_curve(rho, delta, "cks")
    parallel = np.sqrt(d) * eps0  # ρ = ½dε0² (Lemma 10 + composition)
    proj = np.sqrt(np.maximum(d, k_way) / k_way) * eps0  # ε/ε0 = √(d/k) (Theorem 11)
    ell = np.maximum(np.floor(d / k_way), 1)
    mwem = np.sqrt(2 * 0.25 * (ell**2 + ell)) * eps0  # ¼(ℓ²+ℓ)ε0² (Theorem 12, exact total)
    par_dp = zcdp_epsilon_curve(0.5 * d * eps0**2, delta, "cks")
    return RecordCurves(*_readonly(d, pure, simple, cks, parallel, proj, mwem, par_dp))


def sparse_attack(eps: float, cells: int = 40, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An adversary against a sparse histogram (Section 5 of Ghazi, Kumar, Manurangsi & Steinke 2023): true counts
    f_y ∈ {0, 1} (each 1 with probability 0.3), noisy counts f_y + Laplace(1/ε), and the guess round(noisy), right
    with probability exactly 1 − e^{−ε/2} per cell (:func:`dpviz.partial.rounding_reveals_probability`; clipping
    the guess to {0, 1} would be right with probability 1 − ½e^{−ε/2} instead). Returns ``(f, noisy, guess)``,
    read-only; the same ``seed`` gives the same draw."""
    e = EPS.check(eps, "eps")
    cells = SPARSE_CELLS.check(cells, "cells")
    seed = check_integer(seed, "seed", minimum=0)
    return _sparse_attack(e, cells, seed)


@lru_cache(maxsize=64)
def _sparse_attack(eps: float, cells: int, seed: int):
    rng = np.random.default_rng(seed)
    f = (rng.random(cells) < 0.3).astype(int)
    noisy = f + rng.laplace(0.0, 1.0 / eps, size=cells)
    guess = np.round(noisy)
    return _readonly(f, noisy, guess)


@lru_cache(maxsize=4)
def _uniform_bits(seed: int) -> np.ndarray:
    out = np.random.default_rng(seed).integers(0, 2, size=_BACKGROUND).astype(np.uint8)
    out.setflags(write=False)
    return out


def planted_data(n: int, d: int, n_heavy: int = 5, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Synthetic binary records for the heavy-hitter and marginal experiments: ``n_heavy`` planted strings (distinct
    after deduplication) with counts ⌊f·n⌋ for shares f evenly spaced over 6 % … 30 %, the other records uniform
    bits. Returns ``(X, planted, planted_counts)`` — X of shape (n, d), uint8 — as read-only cached arrays. For
    n ≤ 100,000 and d ≤ 32 the uniform background is a slice of one cached draw per seed, so moving a slider does
    not redraw it.

    Caps: n ≤ :data:`RECORDS` (4·10⁶), n·d ≤ :data:`RECORD_ENTRIES` (2·10⁷, the bits of one data set), d ≤ 62
    (records are coded as int64 by the algorithms), n_heavy ≤ :data:`PLANTED` (5).

    >>> X, planted, counts = planted_data(100, 4, 2, 0)
    >>> X.shape, counts.tolist()
    ((100, 4), [6, 30])
    """
    n = check_integer(n, "n", minimum=1, maximum=RECORDS.high)
    d = check_integer(d, "d", minimum=1, maximum=62)
    RECORD_ENTRIES.check(n * d, f"n·d = {n}·{d} (the bits of the data set)")
    n_heavy = PLANTED.check(n_heavy, "n_heavy")
    seed = check_integer(seed, "seed", minimum=0)
    return _planted_data(n, d, n_heavy, seed)


@lru_cache(maxsize=32)
def _planted_data(n: int, d: int, n_heavy: int, seed: int):
    rng = np.random.default_rng(seed + 1)
    if n <= _BACKGROUND[0] and d <= _BACKGROUND[1]:
        X = _uniform_bits(seed)[:n, :d].copy()
    else:
        X = np.random.default_rng(seed).integers(0, 2, size=(n, d)).astype(np.uint8)
    planted = np.unique(rng.integers(0, 2, size=(n_heavy, d)), axis=0).astype(np.uint8)
    fr = np.linspace(0.06, 0.30, len(planted))
    counts = np.floor(fr * n).astype(int)
    i = 0
    for p, c in zip(planted, counts, strict=True):
        X[i:i + c] = p
        i += c
    return _readonly(X, planted, counts)


def projection_empirical_mse(k: int, n: int, eps0: float, reps: int = 4) -> np.ndarray:
    """Simulated mean squared error per k-way query of the projection mechanism (Theorem 11 of Ghazi, Kumar,
    Manurangsi & Steinke 2023) on :func:`planted_data` (3 planted strings, seed 1) for d = 4, 6, 8 (those ≥ k),
    with σ = Δ0/(ε0 n) (fixed per-attribute ε0) and σ = Δ/(ε0 n) (fixed per-person ε = ε0). Rows
    ``[d, mse_fixed_eps0, mse_fixed_eps]``, averaged over ``reps`` releases of 150 projection iterations (seeded by
    d); cached, read-only."""
    k = check_integer(k, "k", minimum=1, maximum=5)
    n = check_integer(n, "n", minimum=1, maximum=RECORDS.high)
    e0 = EPS.check(eps0, "eps0")
    reps = check_integer(reps, "reps", minimum=1, maximum=64)
    return _projection_empirical(k, n, e0, reps)


@lru_cache(maxsize=64)
def _projection_empirical(k: int, n: int, eps0: float, reps: int) -> np.ndarray:
    out = []
    for d in (4, 6, 8):
        if d < k:
            continue
        X, _, _ = planted_data(n, d, 3, 1)
        Q = kway_query_matrix(d, k)
        qx = np.bincount(X @ (1 << np.arange(d - 1, -1, -1)), minlength=1 << d) / n @ Q
        D, D0 = kway_diameters(d, k)
        row = [d]
        for sigma in (D0 / (eps0 * n), D / (eps0 * n)):
            est = projection_mechanism(X, sigma, k=k, rng=d, size=reps, iterations=150)
            row.append(float(np.mean((est - qx) ** 2)))
        out.append(row)
    arr = np.array(out)
    arr.setflags(write=False)
    return arr


def mwem_best_rounds(n: int, eps0: float, d: int, k: int, ell: int) -> tuple[int, float]:
    """The number of rounds T ∈ [1, 200000] minimising bound (3) of Theorem 12 (Ghazi, Kumar, Manurangsi & Steinke
    2023) for partial MWEM on |X| = 2^d records and m = C(d, k) k-way queries, and the bound there
    (:func:`dpviz.partial.mwem_best_T`, which also caps m); cached."""
    n = check_integer(n, "n", minimum=1, maximum=COUNT.high)
    e0 = EPS.check(eps0, "eps0")
    d = check_integer(d, "d", minimum=1, maximum=QUERY_D.high)
    k = check_integer(k, "k", minimum=1, maximum=d)
    ell = check_integer(ell, "ell", minimum=1, maximum=max(d // k, 1))
    return _best_T(n, e0, d, k, ell)


@lru_cache(maxsize=512)
def _best_T(n: int, e0: float, d: int, k: int, ell: int) -> tuple[int, float]:
    return mwem_best_T(n, e0, d * math.log(2), math.comb(d, k), ell, T_max=_T_MAX)


def mwem_ell_tradeoff(eps0: float, n: int, d: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Partial MWEM's ℓ trade-off (Theorem 12 of Ghazi, Kumar, Manurangsi & Steinke 2023): for ℓ = 1 … ⌊d/k⌋,
    the per-person ε = √(2ρ) with ρ = ¼(ℓ² + ℓ)ε0² (:func:`dpviz.partial.mwem_person_rho`) and bound (3) at the
    best T (:func:`mwem_best_rounds`). Returns ``(ells, person_eps, bounds)``."""
    e0 = EPS.check(eps0, "eps0")
    n = check_integer(n, "n", minimum=1, maximum=COUNT.high)
    d = check_integer(d, "d", minimum=2, maximum=QUERY_D.high)
    k = check_integer(k, "k", minimum=1, maximum=d)
    ells = np.arange(1, d // k + 1)
    bounds = np.array([_best_T(n, e0, d, k, int(l_))[1] for l_ in ells])
    person = np.array([math.sqrt(2 * mwem_person_rho(e0, int(l_))) for l_ in ells])
    return ells, person, bounds
