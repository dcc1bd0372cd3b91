"""Phased ERM (Algorithm 4), private selection (Algorithm 5), heterogeneity transfer (Theorem 9) of Levy et al. 2021,
and the ERM reduction of Esfandiari, Mirrokni & Narayanan 2022 (Algorithm H).

References
----------
Levy et al. 2021, "Learning with User-Level Privacy" (NeurIPS 2021): Algorithm 4 and Theorem 4 (§5.1),
Algorithm 5 and Theorem 6 (App. A), Theorem 9 (App. C).
Esfandiari, Mirrokni & Narayanan 2022, "Tight and Robust Private Mean Estimation with Few Users" (ICML 2022):
Appendix D, Theorems 29–30.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np

from dpviz._validation import (
    ArrayOf,
    Cap,
    Interval,
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
    field_int,
)
from dpviz.learning.optim import COUNT, MAGNITUDE, SCALE, STEPS, VARIANTS, FirstOrderMethod, _run_first_order
from dpviz.learning.tasks import TASK, UserTask, check_work, concentration_radius
from dpviz.learning.training import (
    PrivacySpent,
    TrainingRun,
    _curvature,
    _finish,
    _knows_excess,
    _report,
    _step_size,
    check_accountant,
    train_user_level,
)

__all__ = [
    "PhasedERMSchedule",
    "phased_erm_schedule",
    "PhasedERMRun",
    "phased_erm",
    "SelectionResult",
    "private_selection",
    "selection_tau",
    "algorithm_h_budget",
    "train_algorithm_h",
]


# --------------------------------------------------------------------------------------------- Algorithm 4


#: ε where a budget split evaluates e^ε (Algorithm H: strong composition); the panels use ε ≤ 10.
EPSILON = Interval(0.0, 1000.0, open_low=True)
#: Private selection (Algorithm 5): its expected number of draws 1/γ (each one WinsorizedMean1D call, ~0.1–0.5 ms)
#: and the user losses n/γ it reads.
SELECTION_DRAWS = Cap(5_000, "private selection's expected draws 1/γ")
SELECTION_WORK = Cap(20_000_000, "private selection's expected work n/γ")

@dataclasses.dataclass(frozen=True, eq=False)
class PhasedERMSchedule:
    """The schedule of Algorithm 4 of Levy et al. 2021: phases t = 1..T, users n_t = ⌊n/2^t⌋, regularisation λ_t = 4^t
    λ.

    Attributes
    ----------
    phases : int
        T = ⌈log₂(G n √m ε/(σ d))⌉ (at least 1).
    lam : float
        λ = √(G·G_/(nm) + σ²d²/(n²mε²))/R, G_ = min(G, σ√d).
    users : ndarray of int
        n_t = ⌊n/2^t⌋ for t = 1..T (disjoint groups, so Σ n_t < n users are used).
    lambdas : ndarray
        λ_t = 4^t λ.

    Erratum (derived here): the proof of Theorem 4 (App. F.1) states λ_{t−1}·n_{t−1}² = 2^{t−1}·λn;
    with this schedule it is λ_t·n_t² = λn² for every phase (up to the floor), which is what gives each phase the
    privacy term σ²d²/(λn²mε²) the proof then sums.
    """

    phases: int
    lam: float
    users: np.ndarray
    lambdas: np.ndarray

    def __post_init__(self):
        field_int(self, "phases", minimum=1)
        field_float(self, "lam", low=0.0)
        field_array(self, "users", ndim=1, integer=True, low=0)
        field_array(self, "lambdas", ndim=1, low=0.0)
        if self.users.shape != (self.phases,) or self.lambdas.shape != (self.phases,):
            raise ValueError(f"users {self.users.shape} and lambdas {self.lambdas.shape} are not allowed: must both "
                             f"have one entry per phase ({self.phases},).")

    @property
    def users_used(self) -> int:
        return int(self.users.sum())


def phased_erm_schedule(n: int, m: int, d: int, epsilon: float, *, G: float = 1.0, sigma: float = 1.0,
                        R: float = 1.0) -> PhasedERMSchedule:
    """Step 1 and 3 of Algorithm 4 of Levy et al. 2021; R is the diameter of Θ.

    >>> s = phased_erm_schedule(1000, 100, 10, 1.0)
    >>> s.phases, s.users.tolist()
    (10, [500, 250, 125, 62, 31, 15, 7, 3, 1, 0])

    A phase with n_t = 0 users cannot run: :func:`phased_erm` stops at the last phase with n_t ≥ 1 and says so.
    """
    n = check_integer(n, "n", minimum=2, maximum=COUNT.high)
    m = COUNT.check(m, "m")
    d = COUNT.check(d, "d")
    # bounded ranges keep T ≤ ~170 phases and every λ_t = 4^t λ inside the float range
    eps = Interval(1.0 / MAGNITUDE, EPSILON.high).check(epsilon, "epsilon")
    G = SCALE.check(G, "G")
    sigma = SCALE.check(sigma, "sigma")
    R = SCALE.check(R, "R")
    g_under = min(G, sigma * math.sqrt(d))
    T = max(1, math.ceil(math.log2(G * n * math.sqrt(m) * eps / (sigma * d))))
    lam = math.sqrt(G * g_under / (n * m) + sigma**2 * d**2 / (n**2 * m * eps**2)) / R
    t = np.arange(1, T + 1)
    users = np.array([n >> int(k) for k in t], dtype=np.int64)  # ⌊n/2^t⌋ exactly (n < 2^63)
    return PhasedERMSchedule(phases=T, lam=lam, users=users, lambdas=lam * 4.0**t)


@dataclasses.dataclass(frozen=True, eq=False)
class PhasedERMRun:
    """Result of :func:`phased_erm`: the phase outputs θ̂_1..θ̂_T', each phase's run, and the privacy spent."""

    theta: np.ndarray
    phase_thetas: np.ndarray
    phase_runs: tuple
    schedule: PhasedERMSchedule
    phases_run: int
    privacy: PrivacySpent
    excess: np.ndarray | None

    def __post_init__(self):
        field_array(self, "theta", ndim=1)
        field_array(self, "phase_thetas", ndim=2)
        if not isinstance(self.phase_runs, tuple) or not all(isinstance(r, TrainingRun) for r in self.phase_runs):
            raise ValueError(f"phase_runs = {self.phase_runs!r} is not allowed: must be a tuple of TrainingRun.")
        field_instance(self, "schedule", PhasedERMSchedule)
        field_int(self, "phases_run", minimum=1)
        field_instance(self, "privacy", PrivacySpent)
        field_array(self, "excess", ndim=1, optional=True)


def phased_erm(task: UserTask, epsilon: float = 1.0, delta: float = 1e-6, *, steps_per_phase: int = 100,
               sigma: float | None = None, mode: str = "practical", rng=None,
               progress: Callable[[float], None] | None = None) -> PhasedERMRun:
    """Algorithm 4 of Levy et al. 2021 (Phased ERM for SCO): regularised ERM on fresh, disjoint groups of users.

    Phase t minimises L(θ; S_t) + (λ_t/2)‖θ − θ̂_{t−1}‖² (eq. 7) with Algorithm 3 (:func:`train_user_level`,
    strongly convex variant, μ = λ_t) on n_t = ⌊n/2^t⌋ users not used before, starting from θ̂_{t−1} (θ̂_0 = 0,
    the centre of Θ). The paper asks for Corollary 2's accuracy; we run ``steps_per_phase`` steps (ours).
    Privacy: every phase is user-level (ε, δ)-DP on disjoint users, so the whole run is (ε, δ) (parallel
    composition); ``privacy.epsilon`` is the largest phase ε from the accountant. The paper assumes ε ≤ 1,
    δ ≤ 1/n² (Algorithm 4, "Require").

    Raises
    ------
    ValueError
        Bad ε, δ, steps_per_phase outside [1, 10⁴], a run whose work steps_per_phase·n·d·max(m, d) exceeds
        the cap on a training run's work (:data:`dpviz.learning.tasks.TRAINING_WORK`), or fewer than 2 users.
    """
    TASK.check(task, "task")
    eps = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    K = STEPS.check(steps_per_phase, "steps_per_phase")
    check_choice(mode, "mode", ("practical", "paper"))
    # the phases use disjoint groups, at most n users in all: the whole run is within one run's work on the task
    check_work(K, task, "paper" if mode == "paper" else "user_level", "steps_per_phase")
    check_progress(progress)
    g = as_rng(rng)
    n, m, d = task.n, task.m, task.d
    if n < 2:
        raise ValueError(f"task has n = {n} users, which is not allowed: Phased ERM needs n >= 2.")
    sig = task.lipschitz / math.sqrt(d) if sigma is None else SCALE.check(sigma, "sigma")
    sched = phased_erm_schedule(n, m, d, eps, G=task.lipschitz, sigma=sig, R=2.0 * task.radius)
    perm = g.permutation(n)
    start = 0
    theta = np.zeros(d)
    thetas, runs, eps_phase = [], [], []
    phases = [t for t in range(sched.phases) if sched.users[t] >= 1]
    for i, t in enumerate(phases):
        nt = int(sched.users[t])
        sub = task.subset(perm[start:start + nt])
        start += nt
        lam_t = float(sched.lambdas[t])

        def prog(f, _i=i):
            if progress is not None:
                progress((_i + f) / len(phases))

        run = train_user_level(sub, eps, delta, K, mode=mode, variant="strongly_convex",
                               strong_convexity=lam_t + 1e-12, l2=lam_t, l2_centre=theta, theta0=theta,
                               rng=g, progress=prog)
        theta = run.theta
        thetas.append(theta)
        runs.append(run)
        eps_phase.append(run.privacy.epsilon)
    phase_thetas = np.array(thetas)
    privacy = dataclasses.replace(runs[0].privacy, epsilon=max(eps_phase))
    excess = np.asarray(task._excess_risk(phase_thetas), dtype=float) if _knows_excess(task) else None
    return PhasedERMRun(theta=theta, phase_thetas=phase_thetas, phase_runs=tuple(runs), schedule=sched,
                        phases_run=len(phases), privacy=privacy, excess=excess)


# --------------------------------------------------------------------------------------------- Algorithm 5


@dataclasses.dataclass(frozen=True)
class SelectionResult:
    """Output of Algorithm 5: the chosen index J_{t*}, its noisy loss V_{t*}, the number of draws, and ε."""

    index: int
    value: float
    draws: int
    epsilon: float

    def __post_init__(self):
        field_int(self, "index", minimum=0)
        field_float(self, "value")
        field_int(self, "draws", minimum=1)
        object.__setattr__(self, "epsilon", check_positive(self.epsilon, "epsilon"))


def selection_tau(K: int, n: int, m: int, alpha: float, B: float = 1.0) -> float:
    """τ = (B/2)√((log(Kn) + log(10/α))/m) of Theorem 6 of Levy et al. 2021 (too small by a constant factor, derived
    here; privacy is unaffected).

    >>> round(selection_tau(10, 100, 25, 0.1), 4)
    0.3393
    """
    K = COUNT.check(K, "K")
    n = COUNT.check(n, "n")
    m = COUNT.check(m, "m")
    alpha = check_probability(alpha, "alpha", open_low=True)
    B = SCALE.check(B, "B")
    return _selection_tau(K, n, m, alpha, B)


def _selection_tau(K: int, n: int, m: int, alpha: float, B: float) -> float:
    return (B / 2.0) * math.sqrt((math.log(K * n) + math.log(10.0 / alpha)) / m)


def private_selection(user_losses, epsilon: float, m: int, *, bound: float = 1.0, alpha: float = 0.1,
                      stop_prob: float | None = None, tau: float | None = None, rng=None) -> SelectionResult:
    """Algorithm 5 of Levy et al. 2021: pure ε-user-level-DP choice among K parameters by repeated noisy loss estimates.

    Each draw picks J ~ Unif{1..K} and runs A_J = WinsorizedMean1D({L(θ^(J); S_u)}_u, ε/3, τ, B)
    (:func:`dpviz.mean.winsorized_mean_1d`, fresh randomness every draw); after each draw stop with probability γ;
    return the draw with the smallest noisy value. ε-DP by Liu & Talwar 2019, Thm 3.2 (each A_k is ε/3-DP).
    Default γ = α/(5K), as the proof of Theorem 6 uses (the statement says 1/K); the number of
    draws is Geometric(γ), mean 1/γ, never capped (a cap would break the privacy argument). What is capped is the
    *expected* work, before anything is drawn: 1/γ ≤ :data:`SELECTION_DRAWS` and n/γ ≤ :data:`SELECTION_WORK`,
    else ValueError (raise α or pass a larger ``stop_prob``).

    Parameters
    ----------
    user_losses : array_like, shape (K, n)
        L(θ^(k); S_u): user u's average loss under candidate k, in [−B, B].
    epsilon : float
    m : int
        Samples per user (sets the default τ, :func:`selection_tau`).

    >>> L = np.vstack([np.full(200, 0.8), np.full(200, 0.2), np.full(200, 0.5)])
    >>> private_selection(L, 5.0, 100, rng=0).index
    1
    """
    L = ArrayOf(ndim=2, max_abs=MAGNITUDE).check(user_losses, "user_losses")
    eps = EPSILON.check(epsilon, "epsilon")
    m = COUNT.check(m, "m")
    B = SCALE.check(bound, "bound")
    alpha = check_probability(alpha, "alpha", open_low=True)
    K, n = L.shape
    if stop_prob is None:
        gamma, why = alpha / (5.0 * K), f"alpha = {alpha!r} with K = {K} candidates (γ = α/(5K))"
    else:
        gamma = check_probability(stop_prob, "stop_prob", open_low=True)
        why = f"stop_prob = {stop_prob!r}"
    SELECTION_DRAWS.check(1.0 / gamma, f"the expected number of draws 1/γ at {why}")
    SELECTION_WORK.check(n / gamma, f"the expected work n/γ at {why} with n = {n} users")
    tau = _selection_tau(K, n, m, alpha, B) if tau is None else SCALE.check(tau, "tau")
    from dpviz.mean import winsorized_mean_1d

    g = as_rng(rng)
    draws = int(g.geometric(gamma))
    js = g.integers(0, K, size=draws)
    best_j, best_v = -1, math.inf
    for j in js:
        v = float(winsorized_mean_1d(L[j], eps / 3.0, tau, B, rng=g))
        if v < best_v:
            best_j, best_v = int(j), v
    return SelectionResult(index=best_j, value=best_v, draws=draws, epsilon=eps)


# --------------------------------------------------------------------------------------------- Algorithm H (Esfandiari,
# Mirrokni & Narayanan 2022)


def algorithm_h_budget(epsilon: float, delta: float, T: int) -> tuple[float, float]:
    """Per-step (ε_t, δ_t) of Algorithm H (Esfandiari, Mirrokni & Narayanan 2022, App. D): strong composition over T
    steps (Esfandiari, Mirrokni & Narayanan 2022, Thm 12) with δ′ = δ/2, δ_t = δ/(2T), ε_t solving √(2T log(2/δ))·ε_t +
    T ε_t(e^{ε_t} − 1) = ε, or the basic split if larger (:func:`dpviz.mean.robust.split_budget`).

    >>> e, d = algorithm_h_budget(1.0, 1e-6, 1)
    >>> (e, d)
    (1.0, 1e-06)

    ε ≤ 10³ (the split evaluates e^ε) and 1 ≤ T ≤ 10⁴.
    """
    from dpviz.mean.robust import split_budget

    eps = EPSILON.check(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    T = STEPS.check(T, "T")
    return split_budget(eps, delta, T)


def train_algorithm_h(task: UserTask, epsilon: float = 1.0, delta: float = 1e-5, T: int = 50,
                      learning_rate: float | None = None, *, radius: float | None = None, variant: str = "convex",
                      accountant: str = "pld", rng=None,
                      progress: Callable[[float], None] | None = None) -> TrainingRun:
    """Algorithm H: the ERM reduction of Esfandiari, Mirrokni & Narayanan 2022 (App. D; Thm 30): Algorithm 3's loop with
    Esfandiari, Mirrokni & Narayanan 2022's private mean.

    Each step averages every user's gradient and estimates their mean with Esfandiari, Mirrokni & Narayanan 2022's
    ball-finding estimator (:func:`dpviz.mean.robust.dp_estimate_blocks`, k = 1) at (ε_t,
    δ_t) = :func:`algorithm_h_budget`; ⊥ (garbage) becomes g_t = 0 (post-processing). It needs only n = Ω̃(√T/ε) users
    instead of Ω̃(√(dT)/ε) (Thm 30 vs 29 of Esfandiari, Mirrokni & Narayanan 2022), at the price of an O(r√d) error per
    step (r = ``radius`` of the user gradients, default
    :func:`concentration_radius`).
    """
    from dpviz.mean.robust import dp_estimate_blocks

    TASK.check(task, "task")
    T = STEPS.check(T, "T")
    check_work(T, task, "algorithm_h")
    eps = EPSILON.check(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    if learning_rate is not None:
        learning_rate = SCALE.check(learning_rate, "learning_rate")
    check_choice(variant, "variant", VARIANTS)
    check_accountant(accountant)
    check_progress(progress)
    g = as_rng(rng)
    r = concentration_radius(task.lipschitz, task.m, task.n) if radius is None else SCALE.check(radius, "radius")
    e_t, d_t = algorithm_h_budget(eps, delta, T)
    d = task.d
    lr = learning_rate or _step_size(task, r * math.sqrt(d), T)
    fails = np.zeros(T)

    def oracle(th, t):
        est = dp_estimate_blocks(task._user_gradients(th), r, e_t, d_t, k=1, rng=g)
        if est is None:
            fails[t] = 1.0
            return np.zeros(d)
        return np.asarray(est, dtype=float)

    meth = FirstOrderMethod(variant, learning_rate=lr, radius=task.radius, strong_convexity=_curvature(task) / 10,
                            smoothness=_curvature(task))
    trace = _run_first_order(oracle, np.zeros(d), T, meth, g, progress)
    privacy = _report([(("approx", (e_t, d_t)), T)], delta, accountant, epsilon_paper=eps)
    return _finish(task, "algorithm_h", "Algorithm 3 with the mean estimator of Esfandiari, Mirrokni & Narayanan 2022",
                   trace, privacy, fails,
                   np.full(T, r), lr, dict(T=T, epsilon=eps, delta=delta, epsilon_step=e_t, delta_step=d_t,
                                           radius=r, garbage_steps=int(fails.sum())))
