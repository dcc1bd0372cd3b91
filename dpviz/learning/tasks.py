"""Toy learning tasks on synthetic user-partitioned data (for lesson 13 and the tests).

Every task holds n users with m examples each (the paper assumes |S_u| = m for all users, footnote 3 of
Levy et al. 2021 "Learning with User-Level Privacy", Levy et al. 2021). The empirical objective is eq. (3) of
Levy et al. 2021,

    L(θ; S) = (1/n) Σ_u L(θ; S_u),    L(θ; S_u) = (1/m) Σ_j ℓ(θ; z_j^(u)),

and user-level algorithms need the *per-user average gradients* ∇L(θ; S_u), computed here for all users at once
(vectorised over users, no Python loop).

Heterogeneity knob ``heterogeneity = h``: user u's parameter is θ*_u = θ* + h·v_u with v_u uniform on the unit
sphere, so users' distributions drift from the population (our parametric stand-in for assumption A1 of
Levy et al. 2021, which measures drift in total variation).

Linear regression (the problem with a known optimum used by the tests)
    x = D·s with s uniform on the unit sphere of R^d and D = diag(λ_1..λ_d) (λ_1 = 1 ≥ … ≥ λ_d = 1/√κ), so
    E[xxᵀ] = D²/d =: Σ exactly and ‖x‖ ≤ 1;  y = ⟨x, θ*_u⟩ + e, e uniform on [−√3·s_e, √3·s_e] (variance s_e²);
    ℓ(θ; (x, y)) = ½ (⟨x, θ⟩ − y)².
    The population risk of a fresh user (P₀ = the mixture over users) is minimised at θ*, with exact excess risk
    ½ (θ − θ*)ᵀ Σ (θ − θ*) (E v_u = 0 and v_u ⟂ x).
Logistic regression
    x as above, y ∈ {0, 1} with P(y = 1 | x) = 1/(1 + exp(−⟨x, θ*_u⟩)); ℓ = log(1 + e^{⟨x,θ⟩}) − y⟨x,θ⟩.
    Its population optimum has no closed form: excess risk there is estimated on a fixed held-out sample.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import numpy as np
from scipy import special

from dpviz._validation import (
    ArrayOf,
    Cap,
    InstanceOf,
    Interval,
    as_rng,
    check_choice,
    check_in_range,
    check_integer,
    check_probability,
)
from dpviz.learning.optim import COUNT, MAGNITUDE, SCALE, SCALE_OR_ZERO, safe_norm

__all__ = [
    "UserTask",
    "make_linear_task",
    "make_logistic_task",
    "user_task_from_arrays",
    "concentration_radius",
]

KINDS = ("linear", "logistic")

#: Size caps of a task. Feature entries n·m·d (80 MB), and n·d² per-user second moments of a linear task.
TASK_ENTRIES = Cap(10_000_000, "entries of a task: n·m·d, and n·d² for a linear task")
#: Dimension d (the d × d covariance of a task is eigendecomposed; the panels use d ≤ 10).
DIM = Interval(1, 1000, integer=True)
#: The held-out sample of a logistic task (the panels use 4000).
HOLDOUT = Interval(1, 1_000_000, integer=True)
#: Work units of one training run (:func:`training_work`; one unit ≈ 1 ns: runs at the cap took 2–13 s on the
#: 2-core reference machine). The panels' largest run (T = 500, n = 10⁴, m = 20, d = 10, logistic task, Algorithm 3
#: with the paper's constants) is 1.1·10¹⁰ units.
TRAINING_WORK = Cap(13_000_000_000, "work units of one training run, training_work")


@dataclasses.dataclass(frozen=True, eq=False)
class UserTask:
    """n users × m examples of a regression task, with the public constants the algorithms need.

    Attributes
    ----------
    kind : {"linear", "logistic"}
    X : ndarray, shape (n, m, d)
        Features; user u's examples are ``X[u]``.
    y : ndarray, shape (n, m)
        Labels.
    radius : float
        Θ is the ℓ₂ ball of this radius around 0 (the paper's diameter R is ``2 * radius``).
    lipschitz : float
        Public bound G on ‖∇ℓ(θ; z)‖₂ over θ ∈ Θ and every possible z (assumption of Levy et al. 2021, §2.1).
    smoothness : float
        Public bound H on the smoothness of ℓ (assumption A3 of Levy et al. 2021).
    theta_star : ndarray or None
        Population optimum θ* (known for synthetic data).
    sigma_x : ndarray or None, shape (d, d)
        E[xxᵀ] (linear task: exact).
    heterogeneity, label_noise : float
        The generating knobs (for display).
    user_thetas : ndarray or None, shape (n, d)
        θ*_u of every user.
    """

    kind: str
    X: np.ndarray
    y: np.ndarray
    radius: float = 1.0
    lipschitz: float = 1.0
    smoothness: float = 1.0
    theta_star: np.ndarray | None = None
    sigma_x: np.ndarray | None = None
    heterogeneity: float = 0.0
    label_noise: float = 0.0
    user_thetas: np.ndarray | None = None
    holdout: tuple[np.ndarray, np.ndarray] | None = None

    def __post_init__(self):
        check_choice(self.kind, "kind", KINDS)
        X = ArrayOf(ndim=3, allow_empty=True).check(self.X, "X")
        y = ArrayOf(ndim=2, allow_empty=True).check(self.y, "y")
        if X.shape[0] == 0 or X.shape[2] == 0:
            raise ValueError(f"X has shape {X.shape} which is not allowed: must hold n >= 1 users and d >= 1.")
        if X.shape[1] == 0:
            raise ValueError("X has users with no examples (m = 0), which is not allowed: "
                             "every user needs >= 1 example.")
        if y.shape != X.shape[:2]:
            raise ValueError(
                f"y has shape {y.shape} which is not allowed: must be (n, m) = {X.shape[:2]} to match X {X.shape}."
            )
        n, m, d = X.shape
        _check_task_size(n, m, d, self.kind)
        for name, arr in (("X", X), ("y", y)):
            big = float(np.max(np.abs(arr)))
            if big > MAGNITUDE:
                raise ValueError(f"{name} has an entry of magnitude {big:.4g}, which is not allowed: "
                                 f"entries must lie in [-{MAGNITUDE:g}, {MAGNITUDE:g}].")
        for name in ("radius", "lipschitz", "smoothness"):
            object.__setattr__(self, name, SCALE.check(getattr(self, name), name))
        for name in ("heterogeneity", "label_noise"):
            object.__setattr__(self, name, SCALE_OR_ZERO.check(getattr(self, name), name))
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "_xnorm", np.linalg.norm(X, axis=-1))
        if self.theta_star is not None:
            ts = ArrayOf(ndim=1, max_abs=MAGNITUDE).check(self.theta_star, "theta_star")
            if ts.shape != (d,):
                raise ValueError(f"theta_star has shape {ts.shape} which is not allowed: must be ({d},).")
            object.__setattr__(self, "theta_star", ts)
        if self.sigma_x is not None:
            sx = ArrayOf(ndim=2, max_abs=MAGNITUDE).check(self.sigma_x, "sigma_x")
            if sx.shape != (d, d):
                raise ValueError(f"sigma_x has shape {sx.shape} which is not allowed: must be ({d}, {d}).")
            object.__setattr__(self, "sigma_x", sx)
        if self.user_thetas is not None:
            ut = ArrayOf(ndim=2, max_abs=MAGNITUDE).check(self.user_thetas, "user_thetas")
            if ut.shape != (n, d):
                raise ValueError(f"user_thetas has shape {ut.shape} which is not allowed: must be ({n}, {d}).")
            object.__setattr__(self, "user_thetas", ut)
        if self.holdout is not None:
            if not isinstance(self.holdout, (tuple, list)) or len(self.holdout) != 2:
                raise ValueError("holdout is not allowed: must be a pair (X_holdout (k, d), y_holdout (k,)).")
            Xh = ArrayOf(ndim=2, max_abs=MAGNITUDE).check(self.holdout[0], "holdout X")
            yh = ArrayOf(ndim=1, max_abs=MAGNITUDE).check(self.holdout[1], "holdout y")
            if Xh.shape[1] != d or yh.shape != (Xh.shape[0],):
                raise ValueError(f"holdout has shapes {Xh.shape} and {yh.shape} which is not allowed: must be "
                                 f"(k, {d}) and (k,).")
            object.__setattr__(self, "holdout", (Xh, yh))
        if self.kind == "linear":
            # sufficient statistics: per-user A_u = X_uᵀX_u/m, b_u = X_uᵀy_u/m, c_u = ‖y_u‖²/m → O(n d²) gradients
            object.__setattr__(self, "_A", np.einsum("umi,umj->uij", X, X) / m)
            object.__setattr__(self, "_b", np.einsum("umi,um->ui", X, y) / m)
            object.__setattr__(self, "_c", np.einsum("um,um->u", y, y) / m)
            object.__setattr__(self, "_Abar", self._A.mean(axis=0))
            object.__setattr__(self, "_bbar", self._b.mean(axis=0))
            object.__setattr__(self, "_cbar", float(self._c.mean()))

    # -- shapes ----------------------------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def m(self) -> int:
        return int(self.X.shape[1])

    @property
    def d(self) -> int:
        return int(self.X.shape[2])

    def check_theta(self, theta) -> np.ndarray:
        """``theta`` as a float array of shape (d,) or a stack (k, d), finite, entries within ±MAGNITUDE."""
        th = ArrayOf(ndim=(1, 2), max_abs=MAGNITUDE).check(theta, "theta")
        if th.shape[-1] != self.d:
            raise ValueError(f"theta has shape {th.shape} which is not allowed: last axis must have d = {self.d}.")
        return th

    # -- objective (public methods validate θ once; the private kernels below are what the algorithms call) -----
    def loss(self, theta) -> np.ndarray | float:
        """Empirical loss L(θ; S) of eq. (3) of Levy et al. 2021; ``theta`` may be (d,) or a stack (k, d)."""
        return self._loss(self.check_theta(theta))

    def user_gradients(self, theta) -> np.ndarray:
        """Per-user average gradients ∇L(θ; S_u) = (1/m) Σ_j ∇ℓ(θ; z_j^(u)), shape (n, d) (Alg. 3 step 5 of
        Levy et al. 2021)."""
        return self._user_gradients(self._check_point(theta))

    def example_gradients(self, theta) -> np.ndarray:
        """Per-example gradients ∇ℓ(θ; z_j^(u)), shape (n, m, d) (for example-level DP-SGD)."""
        th = self._check_point(theta)
        r = self._residuals(th)
        return r[..., None] * self.X

    def clipped_example_mean(self, theta, clip: float) -> tuple[np.ndarray, float]:
        """Mean over all n·m examples of the per-example gradients clipped to ℓ₂ norm ≤ ``clip``.

        Both losses are generalised linear, ∇ℓ = r·x, so ‖∇ℓ‖ = |r|·‖x‖ and no (n, m, d) array is formed.
        Returns (mean, fraction of examples clipped).
        """
        return self._clipped_example_mean(self._check_point(theta), SCALE.check(clip, "clip"))

    def full_gradient(self, theta) -> np.ndarray:
        """∇L(θ; S) (non-private)."""
        return self._full_gradient(self._check_point(theta))

    def erm_solution(self) -> np.ndarray:
        """argmin over Θ of L(θ; S). Linear: closed form Ā⁻¹b̄ (projected-gradient refinement if it leaves Θ).

        The refinement runs up to 5000 full-gradient steps; on a logistic task whose 5000·n·m·d exceeds
        the cap on a training run's work (:data:`TRAINING_WORK`) it is refused (ValueError) rather than run for minutes.
        """
        if self.kind == "linear":
            th = np.linalg.lstsq(self._Abar, self._bbar, rcond=None)[0]
            if safe_norm(th) <= self.radius:
                return th
        else:
            work = 4 * _ERM_STEPS * self.n * self.m * self.d  # the work units of training_work
            TRAINING_WORK.check(work, f"the work of erm_solution's {_ERM_STEPS} gradient steps on n·m·d = "
                                      f"{self.n * self.m * self.d}")
        th = np.zeros(self.d)
        step = 1.0 / self.smoothness
        for _ in range(_ERM_STEPS):
            new = _project(th - step * self._full_gradient(th), self.radius)
            if safe_norm(new - th) < 1e-12:
                break
            th = new
        return th

    def excess_risk(self, theta) -> np.ndarray | float:
        """Population excess risk L(θ; P₀) − L(θ*; P₀) for a fresh user.

        Linear task: exact, ½ (θ − θ*)ᵀ Σ (θ − θ*). Logistic task: estimated on the task's held-out sample of
        fresh users (a Monte-Carlo estimate; say so where you plot it).
        """
        th = self.check_theta(theta)
        if self.theta_star is None:
            raise ValueError("excess_risk needs a task with a known population optimum theta_star.")
        if self.kind == "linear" and self.sigma_x is None:
            raise ValueError("excess_risk of a linear task needs sigma_x = E[xxᵀ].")
        if self.kind == "logistic" and self.holdout is None:
            raise ValueError("excess_risk of a logistic task needs a held-out sample (holdout).")
        return self._excess_risk(th)

    def subset(self, users) -> "UserTask":
        """The task restricted to some users (e.g. the disjoint groups of Phased ERM): indices in [0, n), or a
        boolean mask of length n."""
        if isinstance(users, np.ndarray) and users.dtype == bool:
            if users.shape != (self.n,):
                raise ValueError(f"users is a boolean mask of shape {users.shape}, which is not allowed: must be "
                                 f"({self.n},).")
            idx = np.flatnonzero(users)
        else:
            u = ArrayOf(ndim=1).check(users, "users")
            if not np.all(u == np.round(u)) or u.min() < 0 or u.max() > self.n - 1:
                raise ValueError(f"users contains values that are not user indices, which is not allowed: must be "
                                 f"integers in [0, {self.n - 1}].")
            idx = u.astype(np.int64)
        if idx.size == 0:
            raise ValueError("users selects no user, which is not allowed: must select at least one.")
        return self._subset(idx)

    # -- private kernels (θ already validated) -----------------------------------------------------------------
    def _check_point(self, theta) -> np.ndarray:
        th = self.check_theta(theta)
        if th.ndim != 1:
            raise ValueError(f"theta has shape {th.shape} which is not allowed: must be ({self.d},).")
        return th

    def _residuals(self, th: np.ndarray) -> np.ndarray:
        z = self.X @ th
        return (z - self.y) if self.kind == "linear" else (special.expit(z) - self.y)

    def _loss(self, th: np.ndarray) -> np.ndarray | float:
        if self.kind == "linear":
            if th.ndim == 1:
                return float(0.5 * th @ self._Abar @ th - self._bbar @ th + 0.5 * self._cbar)
            return 0.5 * np.einsum("ki,ij,kj->k", th, self._Abar, th) - th @ self._bbar + 0.5 * self._cbar
        Xf = self.X.reshape(-1, self.d)
        yf = self.y.reshape(-1)
        if th.ndim == 1:
            z = Xf @ th
            return float((np.logaddexp(0.0, z) - yf * z).mean())
        z = Xf @ th.T  # (N, k): one BLAS call for the whole stack
        return np.logaddexp(0.0, z).mean(axis=0) - (yf @ z) / yf.shape[0]

    def _user_gradients(self, th: np.ndarray) -> np.ndarray:
        if self.kind == "linear":
            return self._A @ th - self._b
        r = special.expit(self.X @ th) - self.y
        return np.einsum("um,umd->ud", r, self.X) / self.m

    def _clipped_example_mean(self, th: np.ndarray, clip: float) -> tuple[np.ndarray, float]:
        r = self._residuals(th)
        nrm = np.abs(r) * self._xnorm
        clipped = nrm > clip
        fac = np.ones_like(nrm)
        fac[clipped] = clip / nrm[clipped]  # nrm > clip > 0 there: no division by 0, factor < 1
        w = r * fac
        return np.einsum("um,umd->d", w, self.X) / (self.n * self.m), float(clipped.mean())

    def _full_gradient(self, th: np.ndarray) -> np.ndarray:
        if self.kind == "linear":
            return self._Abar @ th - self._bbar
        return self._user_gradients(th).mean(axis=0)

    def _excess_risk(self, th: np.ndarray) -> np.ndarray | float:
        if self.kind == "linear":
            diff = th - self.theta_star
            if th.ndim == 1:
                return float(0.5 * diff @ self.sigma_x @ diff)
            return 0.5 * np.einsum("ki,ij,kj->k", diff, self.sigma_x, diff)
        Xh, yh = self.holdout
        stack = np.atleast_2d(th)
        zt = Xh @ stack.T
        zs = Xh @ self.theta_star
        lt = (np.logaddexp(0.0, zt) - yh[:, None] * zt).mean(axis=0)
        ls = float((np.logaddexp(0.0, zs) - yh * zs).mean())
        out = lt - ls
        return float(out[0]) if th.ndim == 1 else out

    def _sigma_max(self) -> float:
        """λ_max(sigma_x), computed once per task (an O(d³) eigendecomposition)."""
        lam = self.__dict__.get("_sigma_max_value")
        if lam is None:
            lam = float(np.linalg.eigvalsh(self.sigma_x)[-1])
            object.__setattr__(self, "_sigma_max_value", lam)
        return lam

    def _subset(self, idx: np.ndarray) -> "UserTask":
        return dataclasses.replace(
            self, X=self.X[idx], y=self.y[idx],
            user_thetas=None if self.user_thetas is None else self.user_thetas[idx],
        )


_ERM_STEPS = 5000


def _check_task_size(n: int, m: int, d: int, kind: str) -> None:
    """Caps of a task: n·m·d feature entries; for the linear task also n·d² per-user second moments X_uᵀX_u
    (memory) and the n·m·d² work of computing them."""
    DIM.check(d, "d")
    TASK_ENTRIES.check(n * m * d, f"n·m·d = {n}·{m}·{d}")
    if kind == "linear":
        TASK_ENTRIES.check(n * d * d, f"n·d² = {n}·{d}²")
        TRAINING_WORK.check(n * m * d * d, "n·m·d² (the work of a linear task's per-user second moments)")


def _project(theta: np.ndarray, radius: float) -> np.ndarray:
    """Euclidean projection Π_Θ onto the ℓ₂ ball of the given radius (post-processing)."""
    nrm = safe_norm(theta)
    return theta if nrm <= radius else theta * (radius / nrm)


def _features(n: int, m: int, d: int, condition: float, rng: np.random.Generator):
    scales = np.geomspace(1.0, 1.0 / math.sqrt(condition), d) if d > 1 else np.ones(1)
    s = rng.standard_normal((n, m, d))
    s /= np.linalg.norm(s, axis=-1, keepdims=True)
    return s * scales, np.diag(scales**2 / d)


def _user_thetas(n: int, d: int, theta_star: np.ndarray, h: float, rng):
    v = rng.standard_normal((n, d))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return theta_star + h * v


def _theta_star(d: int, norm: float) -> np.ndarray:
    th = np.ones(d) / math.sqrt(d)
    return norm * th


def _validate_sizes(n, m, d, kind):
    n = check_integer(n, "n", minimum=1, maximum=TASK_ENTRIES.limit)
    m = check_integer(m, "m", minimum=1, maximum=TASK_ENTRIES.limit)
    d = DIM.check(d, "d")
    _check_task_size(n, m, d, kind)
    return n, m, d


def make_linear_task(n: int = 1000, m: int = 20, d: int = 10, *, heterogeneity: float = 0.0,
                     label_noise: float = 0.5, condition: float = 10.0, theta_norm: float = 0.5,
                     radius: float = 1.0, rng=None) -> UserTask:
    """Synthetic user-partitioned linear regression with a known optimum (see the module docstring).

    Public constants (valid for every dataset the generator can produce, as privacy analyses need):
    ‖x‖ ≤ 1, |e| ≤ √3·s_e and ‖θ*_u‖ ≤ ‖θ*‖ + h give G = radius + ‖θ*‖ + h + √3·s_e and H = 1.

    >>> task = make_linear_task(50, 4, 3, rng=0)
    >>> task.X.shape, task.y.shape
    ((50, 4, 3), (50, 4))
    """
    n, m, d = _validate_sizes(n, m, d, "linear")
    h = SCALE_OR_ZERO.check(heterogeneity, "heterogeneity")
    s_e = SCALE_OR_ZERO.check(label_noise, "label_noise")
    kappa = check_in_range(condition, "condition", 1.0, MAGNITUDE)
    r = SCALE.check(radius, "radius")
    tn = SCALE_OR_ZERO.check(theta_norm, "theta_norm")
    g = as_rng(rng)
    X, sigma_x = _features(n, m, d, kappa, g)
    ts = _theta_star(d, tn)
    thetas = _user_thetas(n, d, ts, h, g)
    e = g.uniform(-math.sqrt(3.0) * s_e, math.sqrt(3.0) * s_e, size=(n, m))
    y = np.einsum("umd,ud->um", X, thetas) + e
    G = r + tn + h + math.sqrt(3.0) * s_e
    return UserTask("linear", X, y, radius=r, lipschitz=G, smoothness=1.0, theta_star=ts, sigma_x=sigma_x,
                    heterogeneity=h, label_noise=s_e, user_thetas=thetas)


def make_logistic_task(n: int = 1000, m: int = 20, d: int = 10, *, heterogeneity: float = 0.0,
                       condition: float = 10.0, theta_norm: float = 3.0, radius: float = 5.0,
                       holdout: int = 5000, rng=None) -> UserTask:
    """Synthetic user-partitioned logistic regression (see the module docstring).

    ‖x‖ ≤ 1 gives G = 1 and H = 1/4 for every θ (ℓ'' ≤ 1/4). The held-out sample (``holdout`` fresh users,
    one example each) estimates the population excess risk.

    >>> make_logistic_task(20, 3, 2, rng=1).lipschitz
    1.0
    """
    n, m, d = _validate_sizes(n, m, d, "logistic")
    h = SCALE_OR_ZERO.check(heterogeneity, "heterogeneity")
    kappa = check_in_range(condition, "condition", 1.0, MAGNITUDE)
    r = SCALE.check(radius, "radius")
    tn = SCALE_OR_ZERO.check(theta_norm, "theta_norm")
    k = HOLDOUT.check(holdout, "holdout")
    TASK_ENTRIES.check(k * d, f"holdout·d = {k}·{d}")
    g = as_rng(rng)
    X, sigma_x = _features(n, m, d, kappa, g)
    ts = _theta_star(d, tn)
    thetas = _user_thetas(n, d, ts, h, g)
    p = special.expit(np.einsum("umd,ud->um", X, thetas))
    y = (g.random((n, m)) < p).astype(float)
    Xh, _ = _features(k, 1, d, kappa, g)
    Xh = Xh[:, 0, :]
    th_h = _user_thetas(k, d, ts, h, g)
    yh = (g.random(k) < special.expit(np.einsum("kd,kd->k", Xh, th_h))).astype(float)
    # θ* of the fresh-user population: for h > 0 it differs from ts; we keep ts as the reference point and the
    # excess risk is then measured relative to it (exact optimum only for h = 0).
    return UserTask("logistic", X, y, radius=r, lipschitz=1.0, smoothness=0.25, theta_star=ts, sigma_x=sigma_x,
                    heterogeneity=h, label_noise=0.0, user_thetas=thetas, holdout=(Xh, yh))


def user_task_from_arrays(kind: str, X: Sequence | np.ndarray, y: Sequence | np.ndarray, *, radius: float = 1.0,
                          lipschitz: float = 1.0, smoothness: float = 1.0) -> UserTask:
    """Build a task from real data: ``X`` either an (n, m, d) array or a list of per-user (m_u, d) arrays.

    Every user must hold the same number m ≥ 1 of examples (Levy et al. 2021 assumes |S_u| = m, footnote 3); a user with
    no examples or mismatched shapes raise ``ValueError``.

    >>> user_task_from_arrays("linear", [np.zeros((2, 3)), np.zeros((0, 3))], [np.zeros(2), np.zeros(0)])
    Traceback (most recent call last):
    ...
    ValueError: user 1 has no examples, which is not allowed: every user needs >= 1 example.
    """
    check_choice(kind, "kind", KINDS)
    if isinstance(X, np.ndarray) and X.ndim == 3:
        return UserTask(kind, X, y, radius=radius, lipschitz=lipschitz, smoothness=smoothness)
    for name, v in (("X", X), ("y", y)):
        if isinstance(v, (str, bytes)) or not hasattr(v, "__len__") or not hasattr(v, "__iter__"):
            raise ValueError(f"{name} = {v!r} is not allowed: must be an (n, m, d) array or a list of per-user arrays.")
    TASK_ENTRIES.check(max(len(X), len(y)), "the number of users of X, y")
    xs = [ArrayOf(ndim=2, allow_empty=True).check(x, f"X[{u}]") for u, x in enumerate(X)]
    ys = [ArrayOf(ndim=1, allow_empty=True).check(v, f"y[{u}]") for u, v in enumerate(y)]
    if len(xs) == 0:
        raise ValueError("X is empty, which is not allowed: must hold at least one user.")
    if len(xs) != len(ys):
        raise ValueError(f"X has {len(xs)} users but y has {len(ys)}, which is not allowed: must match.")
    for u, (xu, yu) in enumerate(zip(xs, ys)):
        if xu.shape[0] == 0:
            raise ValueError(f"user {u} has no examples, which is not allowed: every user needs >= 1 example.")
        if yu.shape[0] != xu.shape[0]:
            raise ValueError(f"user {u} has {xu.shape[0]} feature rows but {yu.shape[0]} labels, which is not "
                             "allowed: must match.")
    ms = {x.shape[0] for x in xs}
    ds = {x.shape[1] for x in xs}
    if len(ds) != 1:
        raise ValueError(f"users have feature dimensions {sorted(ds)}, which is not allowed: must all be equal.")
    if len(ms) != 1:
        raise ValueError(f"users hold {sorted(ms)} examples, which is not allowed: every user must hold the same m "
                         "(Levy et al. 2021 assume |S_u| = m, footnote 3).")
    return UserTask(kind, np.stack(xs), np.stack(ys), radius=radius, lipschitz=lipschitz, smoothness=smoothness)


def concentration_radius(lipschitz: float, m: int, n: int, gamma: float = 0.01) -> float:
    """Radius τ = (G/√m)·(1 + √(2 ln(n/γ))) holding every user's average gradient around the population mean.

    Derivation (ours; the paper's Prop. 1 of Levy et al. 2021 hides its constants in O(·)): for m i.i.d. vectors with
    ‖∇ℓ‖ ≤ G, E‖X̄ − μ‖ ≤ √(Var/m) ≤ G/√m, and ‖X̄ − μ‖ has bounded differences 2G/m, so McDiarmid gives
    ‖X̄ − μ‖ ≤ G/√m + G√(2 ln(n/γ)/m) for all n users with probability ≥ 1 − γ (union bound).
    Only utility depends on τ; privacy holds for any τ.

    >>> round(concentration_radius(1.0, 100, 1000, 0.01), 4)
    0.5799
    """
    G = SCALE.check(lipschitz, "lipschitz")
    m = COUNT.check(m, "m")
    n = COUNT.check(n, "n")
    gm = check_probability(gamma, "gamma", open_low=True, open_high=True)
    return G / math.sqrt(m) * (1.0 + math.sqrt(2.0 * math.log(n / gm)))


#: The ``task`` argument of the training functions.
TASK = InstanceOf(UserTask, "make_linear_task, make_logistic_task or user_task_from_arrays")


def training_work(T: int, task: UserTask, method: str = "user_level") -> int:
    """Work units of one run of ``method`` for T steps on ``task``: a cost model fitted to timings (1 unit ≈ 1 ns).

    Per step, the gradients: linear task 5·n·d² from the per-user second moments (memory-bound; 5·d² for the
    non-private full gradient), or 4·n·m·(d + 1) per example for example-level DP-SGD; logistic task 4·n·m·(d + 1).
    Plus a per-user overhead: 64 for clipping and noise, 250 more for the logistic per-user gradient, 60·d_pad more
    for WinsorizedMeanHighD over d_pad = 2^⌈log₂ d⌉ rotated coordinates (paper constants), 400 + 200·d more for the
    ball-finding estimator of Algorithm H. Then the loss curve and excess risk: 4·d² per iterate of a linear task,
    4·(n·m·d + holdout·d) for ≤ 51 iterates of a logistic task.
    """
    n, m, d = task.n, task.m, task.d
    logistic = task.kind == "logistic"
    if method == "example_level" or logistic:
        grads = 4 * n * m * (d + 1)
    else:
        grads = 5 * d * d if method == "nonprivate" else 5 * n * d * d
    per_user = 0 if method == "nonprivate" else 64
    if logistic and method != "example_level":
        per_user += 250
    if method == "paper":
        per_user += 60 * (1 << (d - 1).bit_length())
    elif method == "algorithm_h":
        per_user += 400 + 200 * d
    if logistic:
        k = 0 if task.holdout is None else len(task.holdout[1])
        evals = 4 * min(T + 1, 51) * (n * m * d + k * d)
    else:
        evals = 4 * (T + 1) * d * d
    return T * (grads + n * per_user) + evals


def check_work(T: int, task: UserTask, method: str = "user_level", what: str = "T") -> None:
    """Refuse a run whose :func:`training_work` exceeds :data:`TRAINING_WORK`."""
    TRAINING_WORK.check(training_work(T, task, method),
                        f"the work of a {method} run with {what} = {T} on n = {task.n} users × m = {task.m} "
                        f"examples × d = {task.d}")
