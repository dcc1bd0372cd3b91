"""Training with user-level DP: Algorithm 3 of Levy et al. 2021 and the baselines it is compared with.

Four ways to train on n users × m examples, all vectorised over users and driven by Algorithm 7
(:func:`dpviz.learning.optim.run_first_order`):

* :func:`train_user_level` — **Algorithm 3 of Levy et al. 2021 (Winsorized First-Order Optimization)**: at every step,
  each user's *average* gradient g_u = ∇L(θ_t; S_u), then one private user-level mean of the g_u.
  ``mode="paper"`` is the algorithm as printed: the mean is WinsorizedMeanHighD (Algorithm 2, from
  :mod:`dpviz.mean`) at the per-step budget ε′ = ε/(2√(2T log(2/δ))), δ′ = δ/(2T) (Thm 10 of Levy et al. 2021), with
  B = G. ``mode="practical"`` (ours, labelled as such everywhere) keeps the idea — clip user gradients to a ball of
  radius ∝ τ ∝ 1/√m around a *public* centre instead of to radius G around 0 — but makes it usable at n ≈ 10³:
  the centre is the previous step's released private gradient (free post-processing), the radius is
  r_t = τ + H‖θ_t − θ_{t−1}‖ + 2 s_{t−1}√d (drift of a user's gradient plus the centre's noise), capped at G, and
  the noise is Gaussian with the same noise multiplier as the naive baseline. The paper's constants make
  Algorithm 3 lose to the naive baseline until m is in the millions (derived here by comparing the two noise variances).
* :func:`train_naive` — clip each user's average gradient to ‖g_u‖ ≤ G, Gaussian noise with sensitivity 2G/n
  (replace-one; a baseline defined here): privacy cost independent of m.
* :func:`train_example_level` — example-level (item-level) DP-SGD: per-example clipping to C, Gaussian noise,
  full batch. Its guarantee protects one *example*; a user's m examples move the clipped sum by up to 2mC, so its
  exact user-level cost is the same Gaussian with m times the sensitivity.
* :func:`train_nonprivate` — the same optimiser with exact gradients.

Privacy of every run is reported as user-level (ε, δ) by composing the run's per-step events with
:mod:`dpviz.accountants` (:class:`PrivacySpent`). Neighbouring datasets differ in one user's whole data
(replace-one, Definition 1 of Levy et al. 2021).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import math
from typing import Callable, Iterator

import numpy as np

from dpviz import accountants as _acc
from dpviz._validation import (
    ArrayOf,
    as_rng,
    check_choice,
    check_delta,
    check_integer,
    check_positive,
    check_probability,
    check_progress,
    field_array,
    field_float,
    field_instance,
    field_str,
)
from dpviz.learning.optim import (
    MAGNITUDE,
    SCALE,
    SCALE_OR_ZERO,
    STEPS,
    FirstOrderMethod,
    OptimisationTrace,
    _first_order_steps,
)
from dpviz.learning.tasks import TASK, UserTask, check_work, concentration_radius
from dpviz.mechanisms import Gaussian, gaussian_mu

__all__ = [
    "PrivacySpent",
    "clip_rows",
    "TrainingRun",
    "train_nonprivate",
    "train_naive",
    "train_user_level",
    "train_example_level",
    "compare_training",
    "iter_compare_training",
    "algorithm3_budget",
    "step_size",
    "METHODS",
]

METHODS = ("user_level", "naive", "example_level", "nonprivate")


@dataclasses.dataclass(frozen=True)
class PrivacySpent:
    """The (ε, δ) one training run spends, at user level, as composed by an accountant.

    Attributes
    ----------
    epsilon, delta : float
        User-level (ε, δ): one user's entire data may change (replace-one).
    epsilon_item : float or None
        Item-level ε (only for example-level DP-SGD, which is calibrated to it).
    epsilon_paper : float or None
        The guarantee the paper's own analysis claims (Algorithm 3: the target ε, via Thm 10 of Levy et al. 2021, for
    ε ≤ 1). accountant : str
        Which accountant composed ``events``.
    events : tuple
        The per-run events ((kind, value), count): ``("gaussian", z)`` is a Gaussian mechanism with
        sensitivity 1 and σ = z; ``("pure", ε₀)`` an ε₀-DP mechanism. Anyone can recompose them.
    """

    epsilon: float
    delta: float
    accountant: str
    events: tuple
    epsilon_item: float | None = None
    epsilon_paper: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_positive(self.epsilon, "epsilon", allow_zero=True, allow_inf=True))
        object.__setattr__(self, "delta", check_delta(self.delta, "delta"))
        field_str(self, "accountant")
        object.__setattr__(self, "events", _check_events(self.events))
        field_float(self, "epsilon_item", optional=True, allow_inf=True, low=0.0)
        field_float(self, "epsilon_paper", optional=True, allow_inf=True, low=0.0)


def _check_events(events) -> tuple:
    """``events`` = ((kind, value), count), ...: kind "gaussian" (σ > 0), "pure" (ε₀ ≥ 0) or "approx" ((ε₀, δ₀)),
    count an integer >= 1."""
    allowed = "a sequence of ((kind, value), count) with kind 'gaussian', 'pure' or 'approx' and count >= 1"
    if isinstance(events, (str, bytes)) or not isinstance(events, (tuple, list)):
        raise ValueError(f"events = {events!r} is not allowed: must be {allowed}.")
    out = []
    for ev in events:
        try:
            (kind, value), count = ev
        except (TypeError, ValueError):
            raise ValueError(f"events contains {ev!r}, which is not allowed: must be {allowed}.") from None
        check_choice(kind, "event kind", ("gaussian", "pure", "approx"))
        if kind == "gaussian":
            value = check_positive(value, "gaussian noise multiplier")
        elif kind == "pure":
            value = check_positive(value, "pure event epsilon", allow_zero=True)
        else:
            try:
                e0, d0 = value
            except (TypeError, ValueError):
                raise ValueError(f"approx event value = {value!r} is not allowed: must be a pair (ε₀, δ₀).") from None
            value = (check_positive(e0, "approx event epsilon", allow_zero=True),
                     check_delta(d0, "approx event delta"))
        out.append(((kind, value), check_integer(count, "event count", minimum=1)))
    return tuple(out)


@dataclasses.dataclass(frozen=True, eq=False)
class TrainingRun:
    """One training run: the aggregate θ̂, every iterate, the loss curve and the privacy spent.

    ``losses[i]`` is the empirical loss L(θ_t; S) of iterate t = ``steps[i]`` (every step for linear tasks, ≤ 51
    evenly spaced steps otherwise); ``excess[i]`` the population excess risk of that iterate when the task knows
    its optimum. ``clip_fraction[t]`` (a non-private diagnostic for the lesson) is
    the share of users whose gradient was clipped at step t; ``noise_std[t]`` the per-coordinate noise std added
    to the mean gradient at step t.
    """

    method: str
    label: str
    theta: np.ndarray
    iterates: np.ndarray
    steps: np.ndarray
    losses: np.ndarray
    final_loss: float
    excess: np.ndarray | None
    final_excess: float | None
    privacy: PrivacySpent | None
    clip_fraction: np.ndarray
    noise_std: np.ndarray
    learning_rate: float
    params: dict

    def __post_init__(self):
        check_choice(self.method, "method", METHODS + ("algorithm_h",))
        field_str(self, "label")
        field_array(self, "theta", ndim=1)
        field_array(self, "iterates", ndim=2)
        field_array(self, "steps", ndim=1, integer=True, low=0)
        field_array(self, "losses", ndim=1)
        field_float(self, "final_loss")
        field_array(self, "excess", ndim=1, optional=True)
        field_float(self, "final_excess", optional=True)
        field_instance(self, "privacy", PrivacySpent, optional=True)
        field_array(self, "clip_fraction", ndim=1, optional=True, low=0.0, high=1.0)
        field_array(self, "noise_std", ndim=1, low=0.0)
        field_float(self, "learning_rate", low=0.0)
        if not isinstance(self.params, dict):
            raise ValueError(f"params = {self.params!r} is not allowed: must be a dict.")
        if self.iterates.shape[1:] != self.theta.shape or self.losses.shape != self.steps.shape:
            raise ValueError(f"theta {self.theta.shape}, iterates {self.iterates.shape}, steps {self.steps.shape} and "
                             f"losses {self.losses.shape} are not allowed: must be (d,), (T+1, d), (k,) and (k,).")


# --------------------------------------------------------------------------------------------- helpers


def step_size(task: UserTask, noise_norm: float, T: int, extra_curvature: float = 0.0) -> float:
    """η = 1/(H_eff + ν√T/R): a fixed step for Prop. 4(i) of Levy et al. 2021 (which gives none; this
    choice is dpviz's), R = diameter of Θ.

    H_eff is the population curvature λ_max(E∇²ℓ) when the task knows it (a public property of the synthetic
    distribution), else the smoothness bound H; ν is the norm of the gradient noise. ``extra_curvature`` adds the
    curvature λ of an ℓ₂ regulariser (Phased ERM).
    """
    TASK.check(task, "task")
    nu = SCALE_OR_ZERO.check(noise_norm, "noise_norm")
    T = STEPS.check(T, "T")
    lam = SCALE_OR_ZERO.check(extra_curvature, "extra_curvature")
    return _step_size(task, nu, T, lam)


def _step_size(task: UserTask, noise_norm: float, T: int, extra_curvature: float = 0.0) -> float:
    h_eff = _curvature(task) + extra_curvature
    return 1.0 / (h_eff + noise_norm * math.sqrt(T) / (2.0 * task.radius))


def _curvature(task: UserTask) -> float:
    if task.sigma_x is not None:
        lam = task._sigma_max()
        return lam if task.kind == "linear" else 0.25 * lam
    return task.smoothness


def algorithm3_budget(epsilon: float, delta: float, T: int) -> tuple[float, float]:
    """Per-step budget of Algorithm 3 of Levy et al. 2021: ε′ = ε/(2√(2T log(2/δ))), δ′ = δ/(2T) (step 2; Thm 10).

    >>> e, d = algorithm3_budget(1.0, 1e-5, 100)
    >>> round(e, 4), float(f"{d:.3g}")
    (0.0101, 5e-08)
    """
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    T = STEPS.check(T, "T")
    return eps / (2.0 * math.sqrt(2.0 * T * math.log(2.0 / delta))), delta / (2.0 * T)


def _common(task, T, epsilon=None, delta=None, learning_rate=None, *, private=True, progress=None,
            accountant="pld", strong_convexity=None, method="user_level"):
    """Validate the arguments every training run shares (once, at the public boundary)."""
    TASK.check(task, "task")
    T = STEPS.check(T, "T")
    if method is not None:
        check_work(T, task, method)
    if private:
        epsilon = check_positive(epsilon, "epsilon")
        delta = check_delta(delta, "delta", allow_zero=False)
        check_accountant(accountant)
    if learning_rate is not None:
        learning_rate = SCALE.check(learning_rate, "learning_rate")
    check_progress(progress)
    if strong_convexity is not None:
        SCALE.check(strong_convexity, "strong_convexity")
    return T, epsilon, delta, learning_rate


def _method(task, variant, lr, strong_convexity, extra_curvature=0.0):
    mu = strong_convexity
    if variant == "strongly_convex" and mu is None:
        mu = _curvature(task) / 10.0
    return FirstOrderMethod(variant, learning_rate=lr, radius=task.radius, strong_convexity=mu,
                            smoothness=_curvature(task) + extra_curvature)


def _eval_steps(task, T):
    """Steps at which the loss curve is evaluated: all for linear tasks, ≤ 51 evenly spaced otherwise."""
    if task.kind == "linear" or T <= 50:
        return np.arange(T + 1)
    return np.unique(np.linspace(0, T, 51).round().astype(int))


def _finish(task, method, label, trace, privacy, clip_frac, noise_std, lr, params):
    steps = _eval_steps(task, trace.iterates.shape[0] - 1)
    pts = trace.iterates[steps]
    losses = np.asarray(task._loss(pts), dtype=float)
    final_loss = float(task._loss(trace.output))
    excess = final_excess = None
    if _knows_excess(task):
        excess = np.asarray(task._excess_risk(pts), dtype=float)
        final_excess = float(task._excess_risk(trace.output))
    return TrainingRun(method=method, label=label, theta=trace.output, iterates=trace.iterates, steps=steps,
                       losses=losses,
                       final_loss=final_loss, excess=excess, final_excess=final_excess, privacy=privacy,
                       clip_fraction=None if clip_frac is None else np.asarray(clip_frac, dtype=float),
                       noise_std=np.asarray(noise_std, float), learning_rate=lr, params=params)


def _knows_excess(task: UserTask) -> bool:
    if task.theta_star is None:
        return False
    return task.sigma_x is not None if task.kind == "linear" else task.holdout is not None


def clip_rows(v, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Scale each row of v (last axis) to ℓ₂ norm ≤ radius: v·min(1, radius/‖v‖); returns (clipped, was_clipped).

    The one home of per-row clipping: user-level training here and item-level DP-SGD (:mod:`dpviz.dpsgd`) both
    clip with it (Abadi et al. 2016, Alg. 1).

    >>> clip_rows([[3.0, 4.0], [0.3, 0.4]], 1.0)[0].tolist()
    [[0.6000000000000001, 0.8], [0.3, 0.4]]
    """
    arr = ArrayOf(allow_empty=True).check(v, "v")
    if arr.ndim < 1:
        raise ValueError(f"v = {v!r} is not allowed: must be an array of rows (at least one dimension).")
    return _clip_rows(arr, SCALE.check(radius, "radius"))


def _clip_rows(v: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`clip_rows` unchecked (callers validate)."""
    nrm = np.linalg.norm(v, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        fac = np.where(nrm > radius, radius / np.where(nrm > 0, nrm, 1.0), 1.0)
    return v * fac, (nrm[..., 0] > radius)


def check_accountant(accountant) -> str:
    """``accountant`` must name one of :data:`dpviz.accountants.ACCOUNTANTS`."""
    return check_choice(accountant, "accountant", tuple(_acc.ACCOUNTANTS))


def accountant_epsilon(events, delta: float, accountant: str = "pld") -> tuple[float, str]:
    """Compose ``events`` [(event, count), ...] in a fresh :mod:`dpviz.accountants` accountant (replace-one
    neighbours, Definition 1 of Levy et al. 2021); return (ε, the accountant's class name).

    Events are given as tuples ``("gaussian", noise_multiplier)`` (a Gaussian mechanism with sensitivity 1 and
    σ = noise_multiplier), ``("pure", epsilon)`` or ``("approx", (epsilon, delta))``.
    """
    cls = _acc.ACCOUNTANTS[accountant]
    a = cls(neighboring="replace_one")
    for (kind, value), count in events:
        a.compose(_to_event(kind, value), count=int(count))
    return float(a.epsilon(delta)), cls.__name__


def _to_event(kind, value):
    if kind == "gaussian":
        return Gaussian(sigma=float(value), sensitivity=1.0)
    if kind == "pure":
        return _acc.PureDP(float(value))
    if kind == "approx":
        return _acc.ApproxDP(float(value[0]), float(value[1]))
    raise ValueError(f"event kind = {kind!r} is not allowed: must be 'gaussian', 'pure' or 'approx'.")


def _report(events, delta, accountant, **extra) -> PrivacySpent:
    eps, name = accountant_epsilon(events, delta, accountant)
    return PrivacySpent(epsilon=eps, delta=delta, accountant=name, events=tuple(events), **extra)


def _theta0(task, theta0):
    if theta0 is None:
        return np.zeros(task.d)
    th = ArrayOf(ndim=1, max_abs=MAGNITUDE).check(theta0, "theta0")
    if th.shape != (task.d,):
        raise ValueError(f"theta0 has shape {th.shape} which is not allowed: must be ({task.d},).")
    return th


def _regulariser(l2, l2_centre, d):
    """Gradient of the data-independent term (λ/2)‖θ − c‖², added after privatisation (post-processing)."""
    lam = SCALE_OR_ZERO.check(l2, "l2")
    c = np.zeros(d) if l2_centre is None else ArrayOf(ndim=1, max_abs=MAGNITUDE).check(l2_centre, "l2_centre")
    if c.shape != (d,):
        raise ValueError(f"l2_centre has shape {c.shape} which is not allowed: must be ({d},).")
    def reg(th):
        return lam * (th - c)

    reg.lam = lam
    return reg


# --------------------------------------------------------------------------------------------- streaming


@dataclasses.dataclass(frozen=True)
class Checkpoint:
    """A training run after ``t`` of its ``T`` steps; ``run()`` builds its :class:`TrainingRun`.

    Before the end (t < T) that run is partial: ``theta`` is the last iterate θ_t (the aggregate θ̂ needs all T
    steps, and the non-convex one draws from the run's generator), the curves stop at step t, ``privacy`` is what
    the whole run of T steps spends. At t = T it is exactly the run the batch function returns.
    """

    t: int
    T: int
    run: Callable[[], TrainingRun]

    @property
    def final(self) -> bool:
        return self.t >= self.T


def _streamed(steps):
    """Make the generator ``steps`` (one :class:`Checkpoint` per optimisation step) the batch training function:
    ``train(...)`` runs it to the end and returns the final run; ``train.steps(...)`` is the iterator variant (same
    arguments; validated when the first step is taken). One implementation, the same draws in the same order."""

    @functools.wraps(steps)
    def train(*args, **kwargs):
        return collections.deque(steps(*args, **kwargs), maxlen=1)[0].run()  # the last checkpoint: the whole run

    train.steps = steps
    return train


def _stream(task, method, label, oracle, theta0, T, meth, g, progress, privacy, clip_frac, noise_std, lr, params):
    """The optimisation loop of every method (Algorithm 7 via :func:`dpviz.learning.optim._first_order_steps`),
    one :class:`Checkpoint` per step; ``privacy()`` composes the whole run's events (once, when first asked)."""
    spent = functools.cache(privacy)
    for t, iterates in _first_order_steps(oracle, theta0, T, meth, progress):
        if t < T:
            yield Checkpoint(t, T, functools.partial(_partial, task, method, label, iterates, t, spent, clip_frac,
                                                     noise_std, lr, params))
    trace = OptimisationTrace(iterates=iterates, output=meth._aggregate(iterates, g))
    yield Checkpoint(T, T, functools.cache(lambda: _finish(task, method, label, trace, spent(), clip_frac, noise_std,
                                                           lr, params)))


def _partial(task, method, label, iterates, t, spent, clip_frac, noise_std, lr, params) -> TrainingRun:
    """The run after t steps (rows θ_0..θ_t of ``iterates`` are final once written): its curves on the evaluation
    steps of the whole run up to t (and t itself), θ_t as its current model."""
    steps = _eval_steps(task, iterates.shape[0] - 1)
    steps = np.union1d(steps[steps <= t], [t])
    pts = iterates[steps]
    theta = iterates[t].copy()
    losses = np.asarray(task._loss(pts), dtype=float)
    excess = final_excess = None
    if _knows_excess(task):
        excess = np.asarray(task._excess_risk(pts), dtype=float)
        final_excess = float(excess[-1])
    return TrainingRun(method=method, label=label, theta=theta, iterates=iterates[:t + 1].copy(), steps=steps,
                       losses=losses, final_loss=float(losses[-1]), excess=excess, final_excess=final_excess,
                       privacy=spent(), clip_fraction=None if clip_frac is None else np.array(clip_frac[:t], float),
                       noise_std=np.array(noise_std[:t], float), learning_rate=lr, params=params)


# --------------------------------------------------------------------------------------------- algorithms


@_streamed
def train_nonprivate(task: UserTask, T: int = 200, learning_rate: float | None = None, *, variant: str = "convex",
                     strong_convexity: float | None = None, theta0=None, rng=None,
                     progress: Callable[[float], None] | None = None) -> TrainingRun:
    """Full-batch projected gradient descent on L(θ; S) (Algorithm 7 of Levy et al. 2021 with the exact gradient
    oracle).

    >>> from dpviz.learning.tasks import make_linear_task
    >>> run = train_nonprivate(make_linear_task(200, 5, 3, rng=0), T=50)
    >>> bool(run.losses[-1] < run.losses[0]), run.privacy is None
    (True, True)
    """
    T, _, _, lr = _common(task, T, learning_rate=learning_rate, private=False, progress=progress,
                          strong_convexity=strong_convexity, method="nonprivate")
    lr = lr or _step_size(task, 0.0, T)
    meth = _method(task, variant, lr, strong_convexity)
    th0 = _theta0(task, theta0)
    yield from _stream(task, "nonprivate", "non-private", lambda th, t: task._full_gradient(th), th0, T, meth,
                       as_rng(rng), progress, lambda: None, np.zeros(T), np.zeros(T), lr, dict(T=T, variant=variant))


@_streamed
def train_naive(task: UserTask, epsilon: float = 1.0, delta: float = 1e-5, T: int = 200,
                learning_rate: float | None = None, *, clip: float | None = None, variant: str = "convex",
                strong_convexity: float | None = None, accountant: str = "pld", theta0=None, rng=None,
                progress: Callable[[float], None] | None = None) -> TrainingRun:
    """Naive user-level DP-SGD: clip each user's average gradient to norm C (default G), add N(0, s²I),
    s = z·2C/n (a baseline defined here; the privacy error does not fall with m).

    The noise multiplier z = √T/μ, with μ the exact GDP level spending (ε, δ) (:func:`dpviz.mechanisms.gaussian_mu`):
    T adaptive Gaussian steps of sensitivity 2C/n are exactly μ-GDP (Dong, Roth & Su 2022, Cor. 2).
    """
    T, eps, delta, lr = _common(task, T, epsilon, delta, learning_rate, progress=progress, accountant=accountant,
                                strong_convexity=strong_convexity, method="naive")
    C = task.lipschitz if clip is None else SCALE.check(clip, "clip")
    g = as_rng(rng)
    n, d = task.n, task.d
    z = math.sqrt(T) / gaussian_mu(eps, delta)
    s = z * 2.0 * C / n
    lr = lr or _step_size(task, s * math.sqrt(d), T)
    clip_frac = np.zeros(T)

    def oracle(th, t):
        v, was = _clip_rows(task._user_gradients(th), C)
        clip_frac[t] = was.mean()
        return v.mean(axis=0) + g.normal(0.0, s, size=d)

    yield from _stream(task, "naive", "naive (clip to G + Gaussian)", oracle, _theta0(task, theta0), T,
                       _method(task, variant, lr, strong_convexity), g, progress,
                       lambda: _report([(("gaussian", z), T)], delta, accountant), clip_frac, np.full(T, s), lr,
                       dict(T=T, epsilon=eps, delta=delta, clip=C, noise_multiplier=z, variant=variant))


@_streamed
def train_user_level(task: UserTask, epsilon: float = 1.0, delta: float = 1e-5, T: int = 200,
                     learning_rate: float | None = None, *, mode: str = "practical", tau: float | None = None,
                     gamma: float = 0.01, clip: float | None = None, variant: str = "convex",
                     strong_convexity: float | None = None, accountant: str = "pld", theta0=None, rng=None,
                     progress: Callable[[float], None] | None = None, l2: float = 0.0,
                     l2_centre=None) -> TrainingRun:
    """User-level DP-SGD: Algorithm 3 of Levy et al. 2021 (Winsorized First-Order Optimization).

    Every step uses all n users: g_u = ∇L(θ_t; S_u) (step 5), then a private user-level mean (step 6).

    Parameters
    ----------
    task : UserTask
    epsilon, delta : float
        Target user-level (ε, δ).
    T : int
        Number of steps, ≥ 1.
    learning_rate : float, optional
        Fixed step η > 0; default :func:`step_size` from this method's public noise level.
    mode : {"practical", "paper"}
        ``"paper"``: step 6 is WinsorizedMeanHighD (Alg. 2 of Levy et al. 2021,
        :func:`dpviz.mean.winsorized_mean_highd`) at (ε′, δ′) = :func:`algorithm3_budget`, γ/T per call (Thm 10), B = G.
        ``"practical"`` (ours): centre = previous private gradient, radius r_t (module docstring), Gaussian noise with
        noise multiplier z as in
        :func:`train_naive`, so both spend exactly the same (ε, δ).
    tau : float, optional
        Concentration radius of the user gradients (public); default :func:`concentration_radius`
        (G, m, n, γ) (γ/T in paper mode). Only utility depends on it.
    gamma : float
        Failure probability in τ.
    clip : float, optional
        Cap C on the practical radius (default G).
    l2, l2_centre : float, array, optional
        Adds the public regulariser (λ/2)‖θ − c‖² (its gradient is added after privatisation; Phased ERM, eq. (7)).

    Returns
    -------
    TrainingRun
        ``privacy.epsilon`` is the accountant's user-level ε; ``privacy.epsilon_paper`` the paper's claimed ε
        (paper mode; Theorem 3 states it for ε ≤ 1). Paper mode also reports ``params["beta"]``, the β of
        Thm 10 of Levy et al. 2021 (min{1, T·β of Thm 2 at (ε′, δ′, γ/T)}): Theorem 3's utility bound says nothing when
        β ≈ 1.

    Raises
    ------
    ValueError
        T < 1, learning_rate ≤ 0, ε ≤ 0, δ ∉ (0, 1), τ ≤ 0, unknown mode.
    """
    check_choice(mode, "mode", ("practical", "paper"))
    T, eps, delta, lr = _common(task, T, epsilon, delta, learning_rate, progress=progress, accountant=accountant,
                                strong_convexity=strong_convexity, method="paper" if mode == "paper" else "user_level")
    gamma = check_probability(gamma, "gamma", open_low=True, open_high=True)
    G = task.lipschitz
    C = G if clip is None else SCALE.check(clip, "clip")
    if tau is not None:
        tau = SCALE.check(tau, "tau")
    theta0 = _theta0(task, theta0)
    n, m, d = task.n, task.m, task.d
    g = as_rng(rng)
    reg = _regulariser(l2, l2_centre, d)
    if mode == "paper":
        yield from _train_paper(task, eps, delta, T, lr, tau, gamma, variant, strong_convexity, accountant, theta0,
                                g, progress, reg)
        return
    tau = concentration_radius(G, m, n, gamma) if tau is None else tau
    z = math.sqrt(T) / gaussian_mu(eps, delta)
    H = task.smoothness
    coef = 2.0 * z / n  # noise std per unit radius
    # stationary radius r* = τ/(1 − 2 coef √d) if the feedback is stable; used for the public step size
    loop = 2.0 * coef * math.sqrt(d)
    r_typ = min(C, tau / (1.0 - loop)) if loop < 1 else C
    lam = reg.lam
    lr = lr or _step_size(task, coef * r_typ * math.sqrt(d), T, lam)
    clip_frac = np.zeros(T)
    noise_std = np.zeros(T)
    state = {"centre": None, "prev_theta": None, "prev_s": 0.0}

    def oracle(th, t):
        grads = task._user_gradients(th)
        if state["centre"] is None:
            r, centre = C, np.zeros(d)
        else:
            r = tau + H * float(np.linalg.norm(th - state["prev_theta"])) + 2.0 * state["prev_s"] * math.sqrt(d)
            centre = state["centre"]
            if r >= C:
                r, centre = C, np.zeros(d)
        v, was = _clip_rows(grads - centre, r)
        s = coef * r
        est = centre + v.mean(axis=0) + g.normal(0.0, s, size=d)
        clip_frac[t] = was.mean()
        noise_std[t] = s
        state.update(centre=est, prev_theta=th.copy(), prev_s=s)
        return est + reg(th)

    yield from _stream(task, "user_level", "user-level (winsorized, practical)", oracle, theta0, T,
                       _method(task, variant, lr, strong_convexity, lam), g, progress,
                       lambda: _report([(("gaussian", z), T)], delta, accountant), clip_frac, noise_std, lr,
                       dict(T=T, epsilon=eps, delta=delta, mode=mode, tau=tau, clip=C, noise_multiplier=z,
                            variant=variant, gamma=gamma))


def _train_paper(task, eps, delta, T, lr, tau, gamma, variant, strong_convexity, accountant, theta0, g, progress,
                 reg):
    from dpviz.mean import highd_parameters, theorem2_beta, winsorized_mean_highd

    G, n, m, d = task.lipschitz, task.n, task.m, task.d
    gam = gamma / T  # Thm 10 of Levy et al. 2021 passes γ/K to each call
    tau = concentration_radius(G, m, n, gam) if tau is None else tau
    e1, d1 = algorithm3_budget(eps, delta, T)
    prm = highd_parameters(n, d, e1, d1, tau, G, gam)
    # β of Thm 10 of Levy et al. 2021 (= Thm 2's β per call at (ε′, δ′, γ/T), union bound over the T calls): the run
    # equals the ideal unbiased-oracle run except with probability β; β = 1 makes Thm 3 vacuous
    beta = min(1.0, T * theorem2_beta(n, prm.d_pad, e1, d1, tau, G, gam))
    lap_std = math.sqrt(2.0) * prm.noise_scale  # per rotated coordinate (Lap(b) has std √2·b)
    lam = reg.lam
    lr = lr or _step_size(task, lap_std * math.sqrt(prm.d_pad), T, lam)
    clip_frac = None  # not observed: the rotated per-coordinate clipping is internal to Algorithm 2

    def oracle(th, t):
        grads = task._user_gradients(th)
        return winsorized_mean_highd(grads, e1, d1, tau, G, gamma=gam, rng=g) + reg(th)

    yield from _stream(task, "user_level", "user-level (Algorithm 3, paper constants)", oracle, theta0, T,
                       _method(task, variant, lr, strong_convexity, lam), g, progress,
                       lambda: _report([(("pure", prm.epsilon_coord), T * prm.d_pad)], delta, accountant,
                                       epsilon_paper=eps),
                       clip_frac, np.full(T, lap_std), lr,
                       dict(T=T, epsilon=eps, delta=delta, mode="paper", tau=tau, epsilon_step=e1, delta_step=d1,
                            epsilon_coord=prm.epsilon_coord, d_pad=prm.d_pad, variant=variant, gamma=gamma,
                            beta=beta))


@_streamed
def train_example_level(task: UserTask, epsilon: float = 1.0, delta: float = 1e-5, T: int = 200,
                        learning_rate: float | None = None, *, clip: float | None = None, variant: str = "convex",
                        strong_convexity: float | None = None, accountant: str = "pld", theta0=None, rng=None,
                        progress: Callable[[float], None] | None = None) -> TrainingRun:
    """Example-level DP-SGD (full batch): clip every example's gradient to C, noise N(0, (2Cz)²) on the sum.

    Calibrated to **item-level** (ε, δ) (one example replaced: sensitivity 2C); z = √T/μ(ε, δ). Replacing one
    user moves the clipped sum by up to 2mC, so the same run is exactly (√T·m/z)-GDP at user level:
    ``privacy.epsilon`` is that user-level ε (much larger), ``privacy.epsilon_item`` the item-level one.
    Costs O(n·m·d) per step (per-example gradients).
    """
    T, eps, delta, lr = _common(task, T, epsilon, delta, learning_rate, progress=progress, accountant=accountant,
                                strong_convexity=strong_convexity, method="example_level")
    C = task.lipschitz if clip is None else SCALE.check(clip, "clip")
    g = as_rng(rng)
    n, m, d = task.n, task.m, task.d
    N = n * m
    z = math.sqrt(T) / gaussian_mu(eps, delta)
    s = z * 2.0 * C / N  # std on the mean over N examples
    lr = lr or _step_size(task, s * math.sqrt(d), T)
    clip_frac = np.zeros(T)

    def oracle(th, t):
        mean, frac = task._clipped_example_mean(th, C)
        clip_frac[t] = frac
        return mean + g.normal(0.0, s, size=d)

    def privacy():
        item = _report([(("gaussian", z), T)], delta, accountant)
        return _report([(("gaussian", z / m), T)], delta, accountant, epsilon_item=item.epsilon)

    yield from _stream(task, "example_level", "example-level noisy GD (full batch)", oracle, _theta0(task, theta0), T,
                       _method(task, variant, lr, strong_convexity), g, progress, privacy, clip_frac, np.full(T, s),
                       lr, dict(T=T, epsilon_item=eps, delta=delta, clip=C, noise_multiplier=z, variant=variant))


def compare_training(task: UserTask, epsilon: float = 1.0, delta: float = 1e-5, T: int = 200, *,
                     methods=METHODS, mode: str = "practical", variant: str = "convex", rng=None,
                     progress: Callable[[float], None] | None = None) -> dict[str, TrainingRun]:
    """Run several methods on the same task at the same (ε, δ) (example-level at item-level ε), fixed seeds.

    ``progress(fraction)`` advances over all methods together (example-level counts m times a user-level step).
    :func:`iter_compare_training` gives the same runs step by step.
    """
    steps = iter_compare_training(task, epsilon, delta, T, methods=methods, mode=mode, variant=variant, rng=rng,
                                  progress=progress)
    return collections.deque(steps, maxlen=1)[0][1]  # the last step: the finished runs


def iter_compare_training(task: UserTask, epsilon: float = 1.0, delta: float = 1e-5, T: int = 200, *,
                          methods=METHODS, mode: str = "practical", variant: str = "convex", rng=None,
                          progress: Callable[[float], None] | None = None,
                          pause_at=()) -> Iterator[tuple[int, dict[str, TrainingRun]]]:
    """:func:`compare_training` in lockstep: every method takes step t before any method takes step t + 1.

    Yields ``(t, runs)`` at each t of ``pause_at`` below T, with the partial runs after t steps
    (:class:`Checkpoint`), and last ``(T, runs)``: exactly the runs :func:`compare_training` returns (each method
    draws from its own seeded generator, so the order in which the methods take their steps changes no draw).
    Arguments are validated at the call, before any step.

    >>> from dpviz.learning.tasks import make_linear_task
    >>> steps = iter_compare_training(make_linear_task(50, 4, 3, rng=0), T=20, rng=0, pause_at=[5])
    >>> [(t, len(runs["naive"].iterates)) for t, runs in steps]
    [(5, 6), (20, 21)]
    """
    T, eps, delta, _ = _common(task, T, epsilon, delta, progress=progress, method=None)
    if isinstance(methods, str) or not isinstance(methods, (tuple, list)) or not methods:
        raise ValueError(f"methods = {methods!r} is not allowed: must be a non-empty sequence of {METHODS}.")
    for meth in methods:
        check_choice(meth, "method", METHODS)
    check_choice(mode, "mode", ("practical", "paper"))
    if isinstance(pause_at, (str, bytes)) or not isinstance(pause_at, (tuple, list, range, np.ndarray)):
        raise ValueError(f"pause_at = {pause_at!r} is not allowed: must be a sequence of step counts >= 1.")
    pauses = {check_integer(t, "pause_at entry", minimum=1) for t in pause_at}
    for meth in methods:  # every run's cap up front, so no run starts when a later one would be refused
        check_work(T, task, "paper" if (meth == "user_level" and mode == "paper") else meth)
    seeds = as_rng(rng).integers(0, 2**63 - 1, size=len(methods))
    weights = {"example_level": 2.0, "user_level": 1.0, "naive": 1.0, "nonprivate": 0.5}
    total = sum(weights[mm] for mm in methods)
    fractions = dict.fromkeys(methods, 0.0)
    streams = {}
    for meth, seed in zip(methods, seeds):

        def prog(f, _meth=meth):
            fractions[_meth] = f
            if progress is not None:
                progress(sum(weights[mm] * fractions[mm] for mm in methods) / total)

        if meth == "nonprivate":
            streams[meth] = train_nonprivate.steps(task, T, variant=variant, rng=seed, progress=prog)
        elif meth == "naive":
            streams[meth] = train_naive.steps(task, eps, delta, T, variant=variant, rng=seed, progress=prog)
        elif meth == "user_level":
            streams[meth] = train_user_level.steps(task, eps, delta, T, mode=mode, variant=variant, rng=seed,
                                                   progress=prog)
        else:
            streams[meth] = train_example_level.steps(task, eps, delta, T, variant=variant, rng=seed, progress=prog)
    return _lockstep(streams, T, pauses)


def _lockstep(streams: dict, T: int, pauses: set) -> Iterator[tuple[int, dict[str, TrainingRun]]]:
    while True:
        points = {meth: next(stream) for meth, stream in streams.items()}
        t = min(cp.t for cp in points.values())
        if t >= T:
            yield T, {meth: cp.run() for meth, cp in points.items()}
            return
        if t in pauses:
            yield t, {meth: cp.run() for meth, cp in points.items()}
