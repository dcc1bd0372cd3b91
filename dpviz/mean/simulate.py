"""Vectorised simulations: many trials of user-level mean estimators over synthetic user data.

Each user's average is drawn *exactly* from its sufficient statistic, so 200 trials × 10⁴ users × 100 samples
cost 2·10⁶ draws, not 2·10⁸:

* ``"bounded"`` — samples ±B with P(+B) = (1 + μ/B)/2 (the extremal bounded law; variance B² − μ²):
  user mean = B·(2·Bin(m, p)/m − 1);
* ``"bernoulli"`` — samples in {0, 1} with P(1) = μ: user mean = Bin(m, μ)/m;
* ``"gaussian"`` — samples N(μ, σ²): user mean ~ N(μ, σ²/m) (unbounded: estimators clip user means to [−B, B]);
* ``"heavy"`` — symmetric α-stable samples (α = 1.5, location μ, scale σ; infinite variance): the mean of m iid
  copies is α-stable with scale σ·m^{1/α − 1} (stability), drawn by Chambers–Mallows–Stuck (1976);
* ``"heterogeneous"`` — ±B samples, user u with its own P_u(+B) = p₀ + Δ·U_u, U_u ~ Unif(−1, 1) (clipped to
  [0, 1]), so ‖P_u − P₀‖_TV ≤ Δ (assumption A1 of Levy et al. 2021); the target is P₀'s mean μ.

:func:`simulate_errors` runs estimators on the same data and returns estimate − μ per trial.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from dpviz._validation import (
    Interval,
    as_rng,
    check_choice,
    check_delta,
    check_in_range,
    check_integer,
    check_positive,
    check_real_array,
    evaluate_finite,
)
from dpviz.mean.baselines import classic_gaussian_sigma, naive_laplace_mse, wme_mse
from dpviz.mean.bounds import _wme_noise_variance, crossover_m, tau_oracle, tau_paper, tau_safe
from dpviz.mean.hadamard import COUNT, ELEMENTS, MAGNITUDE, SCALE, SIZE
from dpviz.mean.winsorized import _dense_selection, _wme_grouped, _wme_rows, range_bins

__all__ = [
    "KINDS",
    "ESTIMATORS",
    "Population",
    "sample_user_means",
    "sample_users",
    "simulate_errors",
    "mse_table",
    "tau_sweep",
    "common_user_means",
    "mse_against_m",
    "tau_knob_sweep",
]

KINDS = ("bounded", "bernoulli", "gaussian", "heavy", "heterogeneous")
ESTIMATORS = ("nonprivate", "naive_laplace", "naive_gaussian", "group_laplace", "winsorized", "oracle_clip")
STABLE_ALPHA = 1.5
#: Monte-Carlo trials of one simulation.
TRIALS = Interval(1, 100_000, integer=True)


@dataclass(frozen=True)
class Population:
    """A synthetic user population (see the module docstring for each kind).

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    mean : float
        μ, the quantity to estimate (|μ| < B for bounded kinds; μ ∈ (0, 1) for Bernoulli).
    bound : float
        B: the public range of the data (samples in [−B, B]).
    scale : float
        σ for ``"gaussian"`` / ``"heavy"``.
    heterogeneity : float
        Δ ∈ [0, 1] for ``"heterogeneous"``.
    """

    kind: str = "bounded"
    mean: float = 0.2
    bound: float = 1.0
    scale: float = 0.5
    heterogeneity: float = 0.2

    def __post_init__(self):
        check_choice(self.kind, "kind", KINDS)
        SCALE.check(self.bound, "bound")
        SCALE.check(self.scale, "scale")
        check_in_range(self.heterogeneity, "heterogeneity", 0.0, 1.0)
        if self.kind == "bernoulli":
            check_in_range(self.mean, "mean", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
            if self.bound < 1.0:
                raise ValueError(f"bound = {self.bound!r} is not allowed: must be >= 1 for Bernoulli samples.")
        elif self.kind in ("bounded", "heterogeneous"):
            check_in_range(self.mean, "mean", -self.bound, self.bound, low_inclusive=False, high_inclusive=False)
        else:
            check_in_range(self.mean, "mean", -self.bound, self.bound)

    @property
    def variance(self) -> float:
        """Var(P₀) of one sample (math.inf for the α-stable kind)."""
        if self.kind in ("bounded", "heterogeneous"):
            return self.bound ** 2 - self.mean ** 2
        if self.kind == "bernoulli":
            return self.mean * (1 - self.mean)
        if self.kind == "gaussian":
            return self.scale ** 2
        return math.inf

    def user_mean_variance(self, m: int) -> float:
        """Var of one user's average (heterogeneous: includes the spread of the p_u, E Var + Var E)."""
        m = COUNT.check(m, "m")
        if self.kind == "heterogeneous":
            B, p0, D = self.bound, (1 + self.mean / self.bound) / 2, self.heterogeneity
            # p_u = clip(p0 + D U); computed numerically on a fine grid of U (exact up to quadrature)
            u = np.linspace(-1, 1, 20001)
            p = np.clip(p0 + D * u, 0, 1)
            mu_u = B * (2 * p - 1)
            ev = np.trapezoid(4 * B * B * p * (1 - p) / m, u) / 2
            ve = np.trapezoid((mu_u - self.mean) ** 2, u) / 2
            return float(ev + ve)
        return self.variance / m


def _stable(alpha: float, size, g) -> np.ndarray:
    """Standard symmetric α-stable draws (Chambers, Mallows & Stuck 1976), α ≠ 1."""
    v = g.uniform(-math.pi / 2, math.pi / 2, size=size)
    w = g.exponential(1.0, size=size)
    return (np.sin(alpha * v) / np.cos(v) ** (1 / alpha)) * (np.cos(v - alpha * v) / w) ** ((1 - alpha) / alpha)


def sample_user_means(population: Population, n: int, m: int, *, size: int | None = None, rng=None) -> np.ndarray:
    """Exact draws of the n user averages, shape (n,) or (size, n) (see the module docstring).

    >>> x = sample_user_means(Population("bernoulli", 0.3), 5, 10, size=2, rng=0)
    >>> x.shape
    (2, 5)
    """
    _check_population(population)
    n = SIZE.check(n, "n")
    m = COUNT.check(m, "m")
    shape = (n,) if size is None else (SIZE.check(size, "size"), n)
    ELEMENTS.check(math.prod(shape), "the user means (size × n)")
    g = as_rng(rng)
    P, B, mu = population, population.bound, population.mean
    if P.kind == "bounded":
        return B * (2.0 * g.binomial(m, (1 + mu / B) / 2, size=shape) / m - 1.0)
    if P.kind == "bernoulli":
        return g.binomial(m, mu, size=shape) / m
    if P.kind == "gaussian":
        return mu + P.scale / math.sqrt(m) * g.standard_normal(shape)
    if P.kind == "heavy":
        return mu + P.scale * m ** (1 / STABLE_ALPHA - 1) * _stable(STABLE_ALPHA, shape, g)
    p = np.clip((1 + mu / B) / 2 + P.heterogeneity * g.uniform(-1, 1, size=shape), 0.0, 1.0)
    return B * (2.0 * g.binomial(m, p) / m - 1.0)


def sample_users(population: Population, n: int, m: int, *, rng=None) -> np.ndarray:
    """Raw samples, shape (n, m): user u's m samples (for figures and small examples).

    >>> sample_users(Population("bounded", 0.0), 3, 4, rng=0).shape
    (3, 4)
    """
    _check_population(population)
    n = SIZE.check(n, "n")
    m = SIZE.check(m, "m")
    ELEMENTS.check(n * m, "the samples (n × m)")
    g = as_rng(rng)
    P, B, mu = population, population.bound, population.mean
    if P.kind == "bounded":
        return B * np.where(g.random((n, m)) < (1 + mu / B) / 2, 1.0, -1.0)
    if P.kind == "bernoulli":
        return (g.random((n, m)) < mu).astype(float)
    if P.kind == "gaussian":
        return mu + P.scale * g.standard_normal((n, m))
    if P.kind == "heavy":
        return mu + P.scale * _stable(STABLE_ALPHA, (n, m), g)
    p = np.clip((1 + mu / B) / 2 + P.heterogeneity * g.uniform(-1, 1, size=(n, 1)), 0.0, 1.0)
    return B * np.where(g.random((n, m)) < p, 1.0, -1.0)


def _check_population(population) -> None:
    if not isinstance(population, Population):
        raise TypeError(f"population = {population!r} is not allowed: must be a Population.")


def _tau_value(tau, B, m, n, gamma):
    if isinstance(tau, str):
        check_choice(tau, "tau", ("safe", "paper"))
        return tau_safe(B, m, n, gamma) if tau == "safe" else tau_paper(B, m, n, gamma)
    return check_positive(tau, "tau")


def simulate_errors(population: Population, n: int, m: int, epsilon: float, *, trials: int = 200,
                    estimators=("nonprivate", "naive_laplace", "winsorized"), delta: float = 1e-6,
                    tau="safe", gamma: float = 0.01, rng=None,
                    progress: Callable[[float], None] | None = None) -> dict[str, np.ndarray]:
    """Errors (estimate − μ) of each estimator over ``trials`` independent datasets, all on the same data.

    Estimators (user averages X_u first; B = ``population.bound``):

    * ``"nonprivate"`` — mean of the X_u (= mean of all samples);
    * ``"naive_laplace"`` — clip X_u to [−B, B], mean + Lap(2B/(nε)) (ε-DP);
    * ``"naive_gaussian"`` — same + N(0, σ²), σ = (2B/n)√(2ln(1.25/δ))/ε ((ε, δ)-DP, Dwork & Roth Thm A.1);
    * ``"group_laplace"`` — item-level Laplace at ε/m on the nm clipped samples (group privacy); same law as
      naive_laplace on bounded kinds (a different draw);
    * ``"winsorized"`` — Algorithm 1 of Levy et al. 2021 on the X_u with radius ``tau`` (``"safe"`` default, ``"paper"``
      or a number), ε-DP;
    * ``"oracle_clip"`` — clip X_u to [μ − τ, μ + τ] around the TRUE mean + Lap(2τ/(nε)): not private w.r.t. the
      centre (a baseline defined here, not in the paper), isolates the 1/√m effect.

    Returns
    -------
    dict name → np.ndarray of shape (trials,)

    Examples
    --------
    >>> e = simulate_errors(Population(), 1000, 50, 1.0, trials=20, rng=0)
    >>> sorted(e), e["winsorized"].shape
    (['naive_laplace', 'nonprivate', 'winsorized'], (20,))
    """
    _check_population(population)
    n = SIZE.check(n, "n")
    m = COUNT.check(m, "m")
    eps = check_positive(epsilon, "epsilon")
    trials = TRIALS.check(trials, "trials")
    if isinstance(estimators, str) or not hasattr(estimators, "__iter__"):
        raise TypeError(f"estimators = {estimators!r} is not allowed: must be a sequence of names from {ESTIMATORS}.")
    for name in estimators:
        check_choice(name, "estimators", ESTIMATORS)
    delta = check_delta(delta, "delta", allow_zero=False)
    gamma = check_in_range(gamma, "gamma", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    g = as_rng(rng)
    B, mu = population.bound, population.mean
    t = _tau_value(tau, B, m, n, gamma) if ("winsorized" in estimators or "oracle_clip" in estimators) else None
    # every Laplace/Gaussian scale below must be a double (ε = 5e-324 makes 2B/(nε) overflow)
    evaluate_finite(lambda: 2 * max(B, t or 0.0) / (n * eps), "the Laplace scale 2·max(B, τ)/(nε)",
                     n=n, epsilon=epsilon, bound=B, tau=t)
    if "naive_gaussian" in estimators:
        classic_gaussian_sigma(eps, delta, 2 * B / n)
    if "group_laplace" in estimators:
        evaluate_finite(lambda: 2 * B / (n * m) / (eps / m), "the noise scale 2B/(nm)/(ε/m)", n=n, m=m,
                         epsilon=epsilon, bound=B)
    out: dict[str, list[np.ndarray]] = {name: [] for name in estimators}
    chunk = max(1, min(trials, 2_000_000 // n))
    done = 0
    while done < trials:
        T = min(chunk, trials - done)
        X = sample_user_means(population, n, m, size=T, rng=g)
        clipped = None
        for name in estimators:
            if name == "nonprivate":
                est = X.mean(axis=1)
            elif name in ("naive_laplace", "naive_gaussian", "group_laplace"):
                if clipped is None:
                    clipped = np.clip(X, -B, B).mean(axis=1)
                if name == "naive_gaussian":
                    est = clipped + g.normal(0.0, classic_gaussian_sigma(eps, delta, 2 * B / n), size=T)
                elif name == "naive_laplace":
                    est = clipped + g.laplace(0.0, 2 * B / (n * eps), size=T)
                else:
                    est = clipped + g.laplace(0.0, 2 * B / (n * m) / (eps / m), size=T)
            elif name == "winsorized":
                est = _wme_rows(np.clip(X, -B, B), eps, t, B, g)[0]
            else:
                est = np.clip(X, mu - t, mu + t).mean(axis=1) + g.laplace(0.0, 2 * t / (n * eps), size=T)
            out[name].append(est - mu)
        done += T
        if progress is not None:
            progress(done / trials)
    return {k: np.concatenate(v) for k, v in out.items()}


def mse_table(population: Population, n: int, ms, epsilon: float, **kwargs) -> dict[str, np.ndarray]:
    """Empirical MSE of each estimator for every m in ``ms`` (one :func:`simulate_errors` call per m).

    >>> tab = mse_table(Population(), 500, [10, 100], 1.0, trials=20, rng=0)
    >>> tab["winsorized"].shape
    (2,)
    """
    _check_population(population)
    grid = check_real_array(ms, "ms")
    if grid.ndim > 1 or grid.size > 1000:
        raise ValueError(f"ms has shape {grid.shape}, which is not allowed: must be a number or a 1-D sequence of "
                         "at most 1000 values of m.")
    ms = [COUNT.check(m, "m") for m in np.atleast_1d(grid).tolist()]
    g = as_rng(kwargs.pop("rng", None))
    progress = kwargs.pop("progress", None)
    rows: dict[str, list[float]] = {}
    for i, m in enumerate(ms):
        errs = simulate_errors(population, n, m, epsilon, rng=g, **kwargs)
        for k, v in errs.items():
            rows.setdefault(k, []).append(float(np.mean(v ** 2)))
        if progress is not None:
            progress((i + 1) / len(ms))
    return {k: np.array(v) for k, v in rows.items()}


def tau_sweep(population: Population, n: int, m: int, epsilon: float, taus, *, trials: int = 100,
              rng=None) -> dict[str, np.ndarray]:
    """Bias², variance, MSE and clipped fraction of Algorithm 1 (Levy et al. 2021) as the radius τ varies (same data for
    all τ).

    Returns arrays over ``taus``: ``bias2`` (mean error)², ``variance`` (error variance), ``mse``, ``clipped``
    (average fraction of users clipped) and ``noise`` = 128τ²/(n²ε²) (the Laplace part, Thm 1 of Levy et al. 2021).
    Monte Carlo over ``trials`` datasets: an approximation (say so on figures).

    >>> out = tau_sweep(Population(), 200, 20, 1.0, [0.1, 1.0], trials=10, rng=0)
    >>> sorted(out)
    ['bias2', 'clipped', 'mse', 'noise', 'variance']
    """
    _check_population(population)
    n = SIZE.check(n, "n")
    m = COUNT.check(m, "m")
    eps = check_positive(epsilon, "epsilon")
    taus = check_real_array(taus, "taus", ndim=1)
    if taus.size > 1000 or np.any(taus < SCALE.low) or np.any(taus > MAGNITUDE):
        raise ValueError(f"taus = {taus!r} is not allowed: must be a 1-D array of at most 1000 numbers in "
                         f"[{SCALE.low:g}, {MAGNITUDE:g}].")
    trials = check_integer(trials, "trials", minimum=2, maximum=TRIALS.high)
    ELEMENTS.check(trials * n, "the simulated user means (trials × n)")
    g = as_rng(rng)
    B, mu = population.bound, population.mean
    X = np.clip(sample_user_means(population, n, m, size=trials, rng=g), -B, B)
    # Users with m samples in [−B, B] have few distinct means (at most m + 1 for ±B samples): then each τ runs on
    # the distinct values and their counts per trial, O(trials·V) instead of O(trials·n), with the same draws.
    values, inverse = np.unique(X, return_inverse=True)
    grouped = values.size <= n // 4
    if grouped:
        V = values.size
        counts = np.bincount((inverse.reshape(X.shape) + V * np.arange(trials)[:, None]).ravel(),
                             minlength=trials * V).reshape(trials, V)
    out = {k: np.empty(taus.size) for k in ("bias2", "variance", "mse", "clipped", "noise")}
    for i, t in enumerate(taus):
        t = float(t)
        if grouped and _dense_selection(range_bins(t, B).count, trials, n):
            est, mid, *_ = _wme_grouped(values, counts, n, eps, t, B, g)
            outside = (values[None, :] < (mid - 2 * t)[:, None]) | (values[None, :] > (mid + 2 * t)[:, None])
            out["clipped"][i] = (counts * outside).sum() / X.size
        else:
            est, mid, *_ = _wme_rows(X, eps, t, B, g)
            out["clipped"][i] = np.mean((X < (mid - 2 * t)[:, None]) | (X > (mid + 2 * t)[:, None]))
        err = est - mu
        out["bias2"][i] = err.mean() ** 2
        out["variance"][i] = err.var()
        out["mse"][i] = np.mean(err ** 2)
        out["noise"][i] = _wme_noise_variance(n, eps, t)
    return out


# ----------------------------------------------------------------------------------------------- lesson 12 scenes
# Seeded, cached experiments behind the lesson-05 panels (common random numbers: every control value sees the same
# data). The results are read-only: a cache must not be changed by its readers.


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _count_tuple(ms, name: str) -> tuple[int, ...]:
    grid = check_real_array(ms, name, ndim=1)
    if grid.size > 100:
        raise ValueError(f"{name} has {grid.size} values, which is not allowed: must hold at most 100 values of m.")
    return tuple(COUNT.check(m, name) for m in grid.tolist())


def common_user_means(population: Population, n: int, ms, *, trials: int = 60, seed: int = 505
                      ) -> tuple[np.ndarray, ...]:
    """One (trials, n) matrix of user means per m in ``ms``, clipped to [−B, B], drawn in order from one generator
    seeded with ``seed`` (common random numbers for a figure over m); cached, read-only.

    >>> X = common_user_means(Population(), 100, [1, 10], trials=5)
    >>> [x.shape for x in X], X[0] is common_user_means(Population(), 100, [1, 10], trials=5)[0]
    ([(5, 100), (5, 100)], True)
    """
    _check_population(population)
    n = SIZE.check(n, "n")
    trials = TRIALS.check(trials, "trials")
    ms = _count_tuple(ms, "ms")
    ELEMENTS.check(trials * n * len(ms), "the simulated user means (trials × n × len(ms))")
    return _common_user_means(population, n, ms, trials, int(seed))


@lru_cache(maxsize=32)
def _common_user_means(population: Population, n: int, ms: tuple[int, ...], trials: int, seed: int):
    g = np.random.default_rng(seed)
    B = population.bound
    return tuple(_frozen(np.clip(sample_user_means(population, n, m, size=trials, rng=g), -B, B)) for m in ms)


def mse_against_m(population: Population, n: int, ms, epsilon: float, *, tau="safe", gamma: float = 0.01,
                  trials: int = 60, seed: int = 505, noise_seed: int = 7) -> tuple[dict, dict, float]:
    """MSE against m of the non-private mean, naive Laplace (noise 2B/(nε)) and Algorithm 1 of Levy et al. 2021,
    simulated on
    :func:`common_user_means` and by formula (lesson 12, "winsorized vs naive").

    The noise of every estimator and m is drawn in order from one generator seeded with ``noise_seed``.

    Returns
    -------
    simulated : dict name → list of MSE over ``ms`` ("nonprivate", "naive_laplace", "winsorized")
    formulas : dict name → list (:func:`naive_laplace_mse`, :func:`wme_mse`; "nonprivate" = Var(user mean)/n
        when the variance is finite)
    crossover : float
        m* of :func:`crossover_m` for the preset.

    >>> sim, form, cross = mse_against_m(Population(), 300, [1, 100], 1.0, trials=5)
    >>> sorted(sim), sorted(form), round(cross)
    (['naive_laplace', 'nonprivate', 'winsorized'], ['naive_laplace', 'nonprivate', 'winsorized'], 352)
    """
    _check_population(population)
    eps = check_positive(epsilon, "epsilon")
    check_choice(tau, "tau", ("safe", "paper"))
    gamma = check_in_range(gamma, "gamma", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    data = common_user_means(population, n, ms, trials=trials, seed=seed)
    ms = _count_tuple(ms, "ms")
    P, B = population, population.bound
    evaluate_finite(lambda: 2 * B / (n * eps), "the Laplace scale 2B/(nε)", n=n, epsilon=epsilon, bound=B)
    g = np.random.default_rng(noise_seed)
    var = P.variance if math.isfinite(P.variance) else None
    sim: dict[str, list[float]] = {"nonprivate": [], "naive_laplace": [], "winsorized": []}
    form: dict[str, list[float]] = {"naive_laplace": [], "winsorized": []}
    for m, X in zip(ms, data):
        t = _tau_value(tau, B, m, n, gamma)
        means = X.mean(axis=1)
        sim["nonprivate"].append(float(np.mean((means - P.mean) ** 2)))
        lap = means + g.laplace(0.0, 2.0 * B / (n * eps), size=X.shape[0])
        sim["naive_laplace"].append(float(np.mean((lap - P.mean) ** 2)))
        est = _wme_rows(X, eps, t, B, g)[0]
        sim["winsorized"].append(float(np.mean((est - P.mean) ** 2)))
        v = P.user_mean_variance(m) * m if var is not None else 0.0
        form["naive_laplace"].append(naive_laplace_mse(v, n, m, eps, B))
        form["winsorized"].append(wme_mse(v, n, m, eps, t))
    if var is not None:
        form["nonprivate"] = [P.user_mean_variance(m) / n for m in ms]
    return sim, form, crossover_m(n, gamma, tau)


def tau_knob_sweep(population: Population, n: int, m: int, epsilon: float, ratios, *, gamma: float = 0.01,
                   trials: int = 60, seed: int = 11, data_seed: int = 12) -> dict:
    """:func:`tau_sweep` over τ = ratio·τ_safe, with the paper and oracle radii as multiples of τ_safe (lesson 12,
    "τ is a bias–variance knob"); cached, read-only.

    The oracle radius :func:`tau_oracle` is measured on one dataset drawn with ``data_seed`` around the true mean
    (not private: a teaching reference).

    Returns
    -------
    dict with ``sweep`` (the :func:`tau_sweep` arrays), ``tau_safe`` (τ_safe), ``paper`` and ``oracle``
    (τ_paper/τ_safe and τ_oracle/τ_safe).

    >>> out = tau_knob_sweep(Population(), 200, 20, 1.0, [0.5, 1.0], trials=5)
    >>> sorted(out), round(out["paper"], 3)
    (['oracle', 'paper', 'sweep', 'tau_safe'], 0.5)
    """
    _check_population(population)
    n = SIZE.check(n, "n")
    m = COUNT.check(m, "m")
    eps = check_positive(epsilon, "epsilon")
    r = check_real_array(ratios, "ratios", ndim=1)
    gamma = check_in_range(gamma, "gamma", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    trials = check_integer(trials, "trials", minimum=2, maximum=TRIALS.high)
    return _tau_knob_sweep(population, n, m, eps, tuple(r.tolist()), gamma, trials, int(seed), int(data_seed))


@lru_cache(maxsize=16)
def _tau_knob_sweep(population, n, m, eps, ratios, gamma, trials, seed, data_seed):
    B = population.bound
    ts = tau_safe(B, m, n, gamma)
    out = tau_sweep(population, n, m, eps, np.asarray(ratios) * ts, trials=trials, rng=seed)
    X = sample_user_means(population, n, m, rng=data_seed)
    return {"sweep": {k: _frozen(v) for k, v in out.items()}, "tau_safe": ts,
            "paper": tau_paper(B, m, n, gamma) / ts, "oracle": tau_oracle(X, population.mean) / ts}
