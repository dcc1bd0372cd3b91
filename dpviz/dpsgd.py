"""DP-SGD at the item level (Abadi et al. 2016, Alg. 1) on a small logistic regression, vectorised numpy.

Step t keeps every example independently with probability q (Poisson sampling), computes the per-example gradients
g_i of the logistic loss, clips each to ℓ₂ norm ≤ C, sums them, adds Gaussian noise of standard deviation σ = z·C
(z the *noise multiplier*), divides by a **fixed, public expected batch size L** and takes a gradient step:

    θ_{t+1} = θ_t − η·(Σ_{i ∈ B_t} g_i·min(1, C/‖g_i‖) + N(0, z²C²·I))/L.

**Unit of privacy and neighbours.** One example (one record), add/remove-one neighbours: x′ is x with one more
example. **L is public**: a hyperparameter fixed before the data are seen, as Abadi et al. 2016's lot size L (the
lessons use L = q·1000 for their data set of 1000 examples, a lesson constant). It must not be computed from the
private data: dividing by the drawn batch size |B_t|, or by q·|x| with the data set's own size |x|, makes the
denominator itself depend on whether the extra example is present, and the step is then not the Gaussian mechanism
the accountant analyses (:func:`private_denominator_epsilon` gives the exact ε of the first iterate on a
counterexample: 12.57 at n = 10, z = 1, δ = 10⁻⁵, where the accountant reports 4.38). With a public L, θ_{t+1} is
post-processing of θ_t and of a noisy sum of sensitivity C (add/remove one example moves the clipped sum by at most
C): one step is the Poisson-subsampled Gaussian mechanism with noise multiplier z, T steps compose T of them, and
:func:`dpsgd_epsilon` asks the accountants of :mod:`dpviz.accountants` (RDP: Mironov, Talwar & Zhang 2019; PLD:
Koskela, Jälkö & Honkela 2020) for their ε. The accounting assumes every iterate θ_1, …, θ_T is released.

Lesson 13 trains at user level with full-batch noisy gradient descent (no sampling); deployed user-level training,
DP-FedAvg (McMahan et al. 2018), samples users.

Caps: a call allocates O(n) memory per step (the Poisson masks are drawn one step at a time) and its work, n·T
example-steps plus one pass over the training and test sets per recorded step, is at most :data:`WORK`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Callable, Iterator

import numpy as np
from scipy import optimize, special

from dpviz._validation import (
    ArrayOf,
    Cap,
    Interval,
    Options,
    as_rng,
    check_in_range,
    check_integer,
    check_positive,
    check_real_array,
    checked,
)
from dpviz.accountants.compare import epsilon_result
from dpviz.learning.training import _clip_rows  # the one home of row clipping (unchecked kernel)
from dpviz.mechanisms.gaussian import Gaussian

__all__ = [
    "DPSGDRun",
    "make_dataset",
    "per_example_gradients",
    "clip_gradients",
    "noisy_gradient_sum",
    "accuracy",
    "train_dpsgd",
    "iter_train_dpsgd",
    "recorded_steps",
    "lesson_schedule",
    "dpsgd_epsilon",
    "gaussian_pair_epsilon",
    "private_denominator_epsilon",
    "lesson_data",
    "lesson_batch_size",
    "lesson_reference_run",
    "LESSON_EXAMPLES",
]

EXAMPLES = Interval(1, 100_000, integer=True)
"""The number of training (and of test) examples: at most 10⁵."""
STEPS = Interval(1, 10_000, integer=True)
"""The number of steps T (and the recording interval ``eval_every``, and the entries of ``pause_at``): at most 10⁴."""
WORK = Cap(100_000_000, "the work of one DP-SGD run, n·T example-steps plus (n + n_test) per recorded step; use "
                        "fewer steps, fewer examples or a larger eval_every")
"""The work of one run: n·T example-steps (each step draws n uniforms for its Poisson mask) plus (n + n_test) per
recorded or paused step (the accuracies), so that one call takes seconds, not minutes: n and T may each reach their
caps, but not together (n = 10⁵ with T = 10⁴ is 10⁹). The lesson's largest run (n = 1000, T = 1000, 21 recorded
steps) is 1.04·10⁶."""
FEATURES = ArrayOf(ndim=2, max_abs=1e6)
"""X: finite feature entries |x| ≤ 10⁶ (|θ·(x, 1)| stays far inside the float range)."""
THETA = ArrayOf(ndim=1, max_abs=1e30)
"""θ: finite entries |θ_j| ≤ 10³⁰ (a run within the caps stays below 10²³)."""
GRADIENTS = ArrayOf(ndim=2, max_abs=1e12, allow_empty=True)
"""Gradients given to the helpers: |entries| ≤ 10¹² (their squared norms stay finite)."""
GRADIENT_COLUMNS = Interval(0, 1000, integer=True)
"""Columns of the gradients given to the helpers."""
CLIP_NORM = Interval(1e-6, 1e6)
"""C in [10⁻⁶, 10⁶]: every product in a step stays far inside the float range (as for z and L)."""
NOISE_MULTIPLIER = Interval(0.0, 1e6)
"""z in [0, 10⁶]."""
BATCH_SIZE = Interval(1e-3, 1e6)
"""The public expected batch size L in [10⁻³, 10⁶]."""
SAMPLING_RATE = Interval(0.0, 1.0, open_low=True)
"""q in (0, 1]."""
LESSON_EXAMPLES = 1000
"""Lesson 10's data set size: public (a constant of the lesson, fixed before the data are drawn)."""


# ============================================================================================ boundary checks


def _features(X: np.ndarray) -> np.ndarray:
    return np.column_stack([X, np.ones(X.shape[0])])  # a bias feature


def _check_data(X, y, xname: str = "X", yname: str = "y"):
    """X of shape (n, 2), n in :data:`EXAMPLES`, finite entries |x| ≤ 10⁶; y of shape (n,), labels 0 or 1."""
    X = FEATURES.check(X, xname)
    if X.shape[1] != 2:
        raise ValueError(f"{xname} has shape {X.shape}, which is not allowed: must be (n, 2), one row per example.")
    EXAMPLES.check(X.shape[0], f"the rows of {xname}")
    y = check_real_array(y, yname, ndim=1)
    if y.shape != (X.shape[0],):
        raise ValueError(f"{yname} has shape {y.shape}, which is not allowed: must be ({X.shape[0]},), one label per "
                         f"row of {xname}.")
    if not np.all((y == 0.0) | (y == 1.0)):
        bad = float(y[(y != 0.0) & (y != 1.0)][0])
        raise ValueError(f"{yname} contains {bad!r}, which is not allowed: labels must be 0 or 1.")
    return X, y


def _check_theta(theta) -> np.ndarray:
    t = THETA.check(theta, "theta")
    if t.shape != (3,):
        raise ValueError(f"theta has shape {t.shape}, which is not allowed: must be (3,) (two weights and a bias).")
    return t


def _check_grads(grads) -> np.ndarray:
    g = GRADIENTS.check(grads, "grads")
    EXAMPLES.check(max(g.shape[0], 1), "the rows of grads")
    GRADIENT_COLUMNS.check(g.shape[1], "the columns of grads")
    return g


# ============================================================================================ the model


@checked(n=Interval(2, EXAMPLES.high, integer=True))
def make_dataset(n: int = 1000, *, separation: float = 2.0, rng=0) -> tuple[np.ndarray, np.ndarray]:
    """A synthetic 2-D binary classification set: two Gaussian clouds N(±(s/2)·(1, 1)/√2, I), labels 0/1 with
    probability ½ each; s = ``separation`` in [0, 1000]. Returns (X of shape (n, 2), y of shape (n,)); the same
    ``rng`` seed gives the same data."""
    s = check_in_range(separation, "separation", 0.0, 1000.0)
    g = as_rng(rng)
    y = (g.random(n) < 0.5).astype(float)
    centre = (s / 2.0) * np.array([1.0, 1.0]) / np.sqrt(2.0)
    X = g.standard_normal((n, 2)) + np.where(y[:, None] > 0, centre, -centre)
    return X, y


def _logistic(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # the logistic function, without overflow


def per_example_gradients(theta, X, y) -> np.ndarray:
    """Gradients of the logistic loss ℓ(θ; x, y) = ln(1 + e^{θ·(x, 1)}) − y·θ·(x, 1), one row per example:
    (p − y)·(x, 1) with p = 1/(1 + e^{−θ·(x, 1)}). Shape (n, 3).

    ``theta``: 3 finite numbers, |θ_j| ≤ 10³⁰; ``X``: shape (n, 2), finite, |x| ≤ 10⁶, n in :data:`EXAMPLES`;
    ``y``: n labels 0 or 1."""
    t = _check_theta(theta)
    X, y = _check_data(X, y)
    F = _features(X)
    return (_logistic(F @ t) - y)[:, None] * F


@checked(clip_norm=CLIP_NORM)
def clip_gradients(grads, clip_norm: float) -> tuple[np.ndarray, np.ndarray]:
    """Scale each row to ℓ₂ norm ≤ C: g·min(1, C/‖g‖) (Abadi et al. 2016, Alg. 1). Returns (clipped, was_clipped).

    ``grads``: a 2-D array (rows may be 0), finite, |entries| ≤ 10¹²; ``clip_norm``: C in [10⁻⁶, 10⁶]."""
    g = _check_grads(grads)
    return _clip_rows(g, clip_norm)


@checked(clip_norm=CLIP_NORM, noise_multiplier=NOISE_MULTIPLIER)
def noisy_gradient_sum(grads, clip_norm: float, noise_multiplier: float, rng) -> np.ndarray:
    """Σᵢ clip_C(gᵢ) + N(0, σ²·I) with σ = z·C, z = ``noise_multiplier`` in [0, 10⁶]: the privatised sum of one
    DP-SGD step (Abadi et al. 2016, Alg. 1)."""
    g = _check_grads(grads)
    clipped, _ = _clip_rows(g, clip_norm)
    return clipped.sum(axis=0) + as_rng(rng).normal(0.0, noise_multiplier * clip_norm, size=clipped.shape[-1])


def accuracy(theta, X, y) -> float:
    """Fraction of examples the linear classifier 1[θ·(x, 1) > 0] labels correctly (inputs as in
    :func:`per_example_gradients`)."""
    t = _check_theta(theta)
    X, y = _check_data(X, y)
    return _accuracy(t, X, y)


def _accuracy(theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean((_features(X) @ theta > 0) == (y > 0.5)))


# ============================================================================================ training


@dataclasses.dataclass(frozen=True)
class DPSGDRun:
    """The result of :func:`train_dpsgd`: final parameters and traces at the evaluated steps.

    ``steps``: the step numbers t at which the traces were taken (0 = before training), strictly increasing;
    ``train_accuracy``, ``test_accuracy``: accuracies there; ``clipped_fraction``: per evaluated step, the fraction
    of the sampled examples whose gradient was clipped; ``batch_sizes``: the Poisson batch sizes |B_t| drawn so far
    (never used by the update: it divides by the public L)."""

    theta: np.ndarray
    steps: np.ndarray
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray
    clipped_fraction: np.ndarray
    batch_sizes: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "theta", _check_theta(self.theta))
        steps = check_real_array(self.steps, "steps", ndim=1)
        if np.any(steps != np.round(steps)) or np.any(steps < 0) or np.any(np.diff(steps) <= 0):
            raise ValueError("steps is not allowed: must be strictly increasing integers >= 0.")
        object.__setattr__(self, "steps", steps.astype(np.int64))
        for name in ("train_accuracy", "test_accuracy", "clipped_fraction"):
            a = check_real_array(getattr(self, name), name, ndim=1)
            if a.shape != steps.shape or np.any((a < 0) | (a > 1)):
                raise ValueError(f"{name} is not allowed: must hold {steps.size} fractions in [0, 1], one per step.")
            object.__setattr__(self, name, a)
        b = check_real_array(self.batch_sizes, "batch_sizes", ndim=1, allow_empty=True)
        if np.any(b != np.round(b)) or np.any(b < 0):
            raise ValueError("batch_sizes is not allowed: must hold integers >= 0.")
        object.__setattr__(self, "batch_sizes", b.astype(np.int64))


@checked(steps=STEPS, eval_every=STEPS)
def recorded_steps(steps: int, eval_every: int) -> np.ndarray:
    """The steps t at which :func:`train_dpsgd` records its traces: 0 (before training), every ``eval_every``-th
    step, and the last step T (``steps`` T and ``eval_every`` in :data:`STEPS`)."""
    return np.union1d(np.arange(0, steps + 1, eval_every), [steps])


@checked(steps=STEPS)
def lesson_schedule(steps: int) -> tuple[int, list[int], list[int], list[int]]:
    """Lesson 10's recording schedule for a run of T = ``steps`` steps: (the recording interval max(1, ⌊T/20⌋), the
    recorded steps (:func:`recorded_steps`), the indices into them of up to four steps near T/4, T/2, 3T/4 and T
    (the ε checkpoints), the steps after which a streamed run shows itself: one early (about 50 steps in, at most
    T/4), then each checkpoint before T)."""
    T = steps
    every = max(1, T // 20)
    recorded = [int(t) for t in recorded_steps(T, every)]
    picks = sorted({min(range(1, len(recorded)), key=lambda i, k=k: abs(recorded[i] - T * k / 4))
                    for k in (1, 2, 3, 4)})
    early = min(recorded[1:], key=lambda r: abs(r - min(50, T / 4)))
    pauses = sorted({early, *(recorded[i] for i in picks)} - {T})
    return every, recorded, picks, pauses


def train_dpsgd(X, y, *, expected_batch_size: float, clip_norm: float = 1.0, noise_multiplier: float = 1.0,
                sampling_rate: float = 0.05, steps: int = 200, learning_rate: float = 0.5, test: tuple | None = None,
                eval_every: int = 10, rng=None, progress: Callable[[float], None] | None = None) -> DPSGDRun:
    """Train a logistic regression with DP-SGD (Abadi et al. 2016, Alg. 1) from θ = 0, add/remove-one neighbours.

    Step t: a Poisson sample B_t (each example kept with probability q = ``sampling_rate``), the clipped
    per-example gradients summed, N(0, z²C²·I) added (z = ``noise_multiplier``, C = ``clip_norm``; the noise's
    standard deviation is σ = z·C), divided by L = ``expected_batch_size`` and θ ← θ − η·(that), η =
    ``learning_rate``.

    L must be **public**: fixed before the data are seen, the same for x and for x′ = x plus one example
    (Abadi et al. 2016's lot size; e.g. q times a publicly known approximate data set size). Never pass |B_t| or
    q·len(X): a denominator computed from the private data breaks the guarantee :func:`dpsgd_epsilon` reports
    (see :func:`private_denominator_epsilon`). It is keyword-only and has no default for that reason.

    ``noise_multiplier = 0`` gives non-private clipped SGD (the reference curve). Accuracies are recorded every
    ``eval_every`` steps on the training set and on ``test`` = (X_test, y_test) (the training set when None).
    ``progress(f)`` is called with the fraction done.

    Ranges: L in [10⁻³, 10⁶], C in [10⁻⁶, 10⁶], z in [0, 10⁶], q in (0, 1], T in :data:`STEPS`, η in
    (0, 100]; X, y as in :func:`per_example_gradients`; the run's work at most :data:`WORK`.

    The last run :func:`iter_train_dpsgd` yields for the same arguments: the same draws in the same order.
    """
    *_, (_, run) = iter_train_dpsgd(X, y, expected_batch_size=expected_batch_size, clip_norm=clip_norm,
                                    noise_multiplier=noise_multiplier, sampling_rate=sampling_rate, steps=steps,
                                    learning_rate=learning_rate, test=test, eval_every=eval_every, rng=rng,
                                    progress=progress)
    return run


@checked(expected_batch_size=BATCH_SIZE, clip_norm=CLIP_NORM, noise_multiplier=NOISE_MULTIPLIER,
         sampling_rate=SAMPLING_RATE, steps=STEPS, learning_rate=Interval(0.0, 100.0, open_low=True), eval_every=STEPS)
def iter_train_dpsgd(X, y, *, expected_batch_size: float, clip_norm: float = 1.0, noise_multiplier: float = 1.0,
                     sampling_rate: float = 0.05, steps: int = 200, learning_rate: float = 0.5,
                     test: tuple | None = None, eval_every: int = 10, rng=None,
                     progress: Callable[[float], None] | None = None, pause_at=()) -> Iterator[tuple[int, DPSGDRun]]:
    """:func:`train_dpsgd` as an iterator: after each step t in ``pause_at`` (t < T) it yields (t, the run so far),
    and at the end (T, the whole run), which is exactly what :func:`train_dpsgd` returns for the same arguments.

    The run so far holds θ after t steps, the traces at the recorded steps up to t (and at t itself), and the first
    t batch sizes. Arguments are validated here, before the first step. Each step draws its Poisson mask (n
    uniforms) and then its noise (3 normals) from ``rng``, so memory stays O(n) at any T.
    """
    X, y = _check_data(X, y)
    L, C, z, q, T, lr = (float(expected_batch_size), float(clip_norm), float(noise_multiplier), float(sampling_rate),
                         steps, float(learning_rate))
    if test is None:
        Xt, yt = X, y
    else:
        if not isinstance(test, (tuple, list)) or len(test) != 2:
            raise ValueError(f"test = {test!r} is not allowed: must be a pair (X_test, y_test) or None.")
        Xt, yt = _check_data(test[0], test[1], "test[0]", "test[1]")
    record = np.zeros(T + 1, dtype=bool)
    record[recorded_steps(T, eval_every)] = True
    if isinstance(pause_at, (str, bytes)) or not isinstance(pause_at, (tuple, list, range, np.ndarray)):
        raise ValueError(f"pause_at = {pause_at!r} is not allowed: must be a sequence of step counts >= 1.")
    STEPS.check(max(len(pause_at), 1), "the entries of pause_at")
    pauses = np.zeros(T + 1, dtype=bool)
    for t in pause_at:
        pauses[min(check_integer(t, "pause_at entry", minimum=1), T)] = True
    if progress is not None and not callable(progress):
        raise TypeError(f"progress = {progress!r} is not allowed: must be a callable progress(fraction) or None.")
    n = X.shape[0]
    work = n * T + int(np.count_nonzero(record | pauses)) * (n + Xt.shape[0])
    WORK.check(work, f"the work of steps = {T} on n = {n} examples")
    return _dpsgd_loop(X, y, Xt, yt, L, C, z, q, T, lr, record, pauses, as_rng(rng), progress)


def _dpsgd_loop(X, y, Xt, yt, L, C, z, q, T, lr, record, pauses, g, progress) -> Iterator[tuple[int, DPSGDRun]]:
    n = X.shape[0]
    theta = np.zeros(3)
    rec_t, tr, te, cf = [0], [_accuracy(theta, X, y)], [_accuracy(theta, Xt, yt)], [0.0]
    sizes = np.empty(T, dtype=np.int64)
    F = _features(X)
    fnorm = np.linalg.norm(F, axis=1)
    # g_i = (p_i − y_i)·F_i, so ‖g_i‖ = |p_i − y_i|·‖F_i‖ and Σ clip(g_i) = Fᵀ(r ⊙ min(1, C/‖g_i‖)): the same
    # numbers as clip_gradients(per_example_gradients(...)) without building the (|B|, 3) gradient array
    for t in range(T):
        idx = np.flatnonzero(g.random(n) < q)  # this step's Poisson sample, then its noise: O(n) memory
        noise = g.normal(0.0, z * C, size=3)
        sizes[t] = idx.size
        Fi = F[idx]
        r = _logistic(Fi @ theta) - y[idx]
        nrm = np.abs(r) * fnorm[idx]
        was = nrm > C
        fac = np.where(was, C / np.where(was, nrm, 1.0), 1.0)
        theta = theta - lr * (Fi.T @ (r * fac) + noise) / L  # L public: never |B_t|, never q·n of the private data
        clipped = float(was.mean()) if idx.size else 0.0
        if record[t + 1]:
            rec_t.append(t + 1)
            tr.append(_accuracy(theta, X, y))
            te.append(_accuracy(theta, Xt, yt))
            cf.append(clipped)
            if progress is not None:
                progress((t + 1) / T)
        if pauses[t + 1] and t + 1 < T:
            extra = ([], [], [], []) if record[t + 1] else \
                ([t + 1], [_accuracy(theta, X, y)], [_accuracy(theta, Xt, yt)], [clipped])
            yield t + 1, DPSGDRun(theta=theta.copy(), steps=np.array(rec_t + extra[0]),
                                  train_accuracy=np.array(tr + extra[1]), test_accuracy=np.array(te + extra[2]),
                                  clipped_fraction=np.array(cf + extra[3]), batch_sizes=sizes[:t + 1].copy())
    yield T, DPSGDRun(theta=theta, steps=np.array(rec_t), train_accuracy=np.array(tr), test_accuracy=np.array(te),
                      clipped_fraction=np.array(cf), batch_sizes=sizes)


# ============================================================================================ privacy


@checked(noise_multiplier=NOISE_MULTIPLIER, sampling_rate=SAMPLING_RATE, steps=STEPS,
         delta=Interval(0.0, 1.0, open_low=True, open_high=True), accountant=Options("rdp", "pld"))
def dpsgd_epsilon(noise_multiplier: float, sampling_rate: float, steps: int, delta: float = 1e-5, *,
                  accountant: str = "pld") -> float:
    """The ε after T = ``steps`` DP-SGD steps (Poisson rate q, noise multiplier z, public denominator L: see
    :func:`train_dpsgd`) at ``delta``, add/remove-one neighbours, every iterate released, from
    :mod:`dpviz.accountants` (via :func:`dpviz.accountants.compare.epsilon_result`, cached): ``"rdp"`` — the RDP
    accountant of the sampled Gaussian (Mironov, Talwar & Zhang 2019) with the improved conversion; ``"pld"`` — the
    PLD accountant's pessimistic (upper) end (Koskela, Jälkö & Honkela 2020).

    z in [0, 10⁶] (z = 0 is not private: ε = ∞), q in (0, 1], T in :data:`STEPS`, δ in (0, 1)."""
    z, q, T, d = float(noise_multiplier), float(sampling_rate), steps, float(delta)
    if z == 0.0:
        return math.inf
    r = epsilon_result(accountant, "gaussian", z, T, q, d, "add_remove")
    if r.epsilon is None:
        raise ValueError(f"noise_multiplier = {z!r} is not allowed with sampling_rate = {q!r}, steps = {T}: the "
                         f"{accountant} accountant cannot analyse this setting ({r.error}).")
    return float(r.epsilon)


# --------------------------------------------------------------- the exact ε of two Gaussians of unequal variance


def _log_diff(la: float, lb: float) -> float:
    """ln(e^{la} − e^{lb}) (−∞ when lb ≥ la)."""
    if lb == -math.inf:
        return la
    if lb >= la:
        return -math.inf
    return la + math.log1p(-math.exp(lb - la))


def _log_mass(lo: float, hi: float, m: float, s: float) -> float:
    """ln P[lo < X < hi] for X ~ N(m, s²), from the nearer tails (no cancellation in the far tails)."""
    a, b = (lo - m) / s, (hi - m) / s
    if a >= 0:
        return _log_diff(float(special.log_ndtr(-a)), float(special.log_ndtr(-b)))
    if b <= 0:
        return _log_diff(float(special.log_ndtr(b)), float(special.log_ndtr(a)))
    return math.log1p(-(float(special.ndtr(a)) + float(special.ndtr(-b))))


def _loss_region(mu: float, r: float, eps: float) -> list[tuple[float, float]]:
    """{x : ℓ(x) > ε} for ℓ(x) = ln φ(x) − ln(φ((x − μ)/r)/r) = a x² + b x + c, as open intervals: between the two
    roots when a < 0 (Q wider), outside them when a > 0 (Q narrower), a half-line when a = 0 (equal variances).
    Roots by the cancellation-free form t₁ = q/a, t₂ = (c − ε)/q, q = −(b + sign(b)√(b² − 4a(c − ε)))/2."""
    a = 0.5 * (1.0 / (r * r) - 1.0)
    b = -mu / (r * r)
    c = 0.5 * mu * mu / (r * r) + math.log(r) - eps
    if a == 0.0:
        if b == 0.0:
            return [(-math.inf, math.inf)] if c > 0 else []
        t = -c / b
        return [(t, math.inf)] if b > 0 else [(-math.inf, t)]
    disc = b * b - 4.0 * a * c
    if disc <= 0.0:
        return [(-math.inf, math.inf)] if a > 0 else []
    qq = -0.5 * (b + math.copysign(math.sqrt(disc), b))
    t1, t2 = qq / a, c / qq
    lo, hi = min(t1, t2), max(t1, t2)
    return [(lo, hi)] if a < 0 else [(-math.inf, lo), (hi, math.inf)]


def _log_hockey(mu: float, r: float, eps: float) -> float:
    """ln H_ε(P‖Q) for P = N(0, 1), Q = N(μ, r²): H_ε = P[ℓ > ε] − e^ε·Q[ℓ > ε], ℓ = ln(p/q) (Balle & Wang 2018,
    Thm 5), evaluated in log space (no overflow of e^ε, no underflow of the tail masses)."""
    iv = _loss_region(mu, r, eps)
    if not iv:
        return -math.inf
    lp = float(np.logaddexp.reduce([_log_mass(lo, hi, 0.0, 1.0) for lo, hi in iv]))
    lq = float(np.logaddexp.reduce([_log_mass(lo, hi, mu, r) for lo, hi in iv]))
    return -math.inf if lp == -math.inf else _log_diff(lp, eps + lq)


def _pair_epsilon(m1: float, s1: float, m2: float, s2: float, delta: float) -> float:
    """:func:`gaussian_pair_epsilon` on validated input."""
    mu, r = (m2 - m1) / s1, s2 / s1  # P standardised: P = N(0, 1), Q = N(μ, r²)
    mu2, r2 = (m1 - m2) / s2, s1 / s2  # the other direction, Q standardised
    ld = math.log(delta)

    def excess(e: float) -> float:
        return max(_log_hockey(mu, r, e), _log_hockey(mu2, r2, e)) - ld

    if excess(0.0) <= 0.0:
        return 0.0
    hi = 1.0
    while excess(hi) > 0.0:  # H_ε → 0 as ε → ∞: terminates (ε < 10¹⁸ on the validated domain)
        hi *= 2.0
    return float(optimize.brentq(excess, 0.5 * hi if hi > 1.0 else 0.0, hi, xtol=1e-300, rtol=1e-15))


def gaussian_pair_epsilon(mean_x: float, sd_x: float, mean_x_prime: float, sd_x_prime: float,
                          delta: float) -> float:
    """The exact ε at δ between two one-dimensional Gaussian output laws P = N(m, s²) (on x) and Q = N(m′, s′²) (on
    x′), with different means **and variances** allowed: the smallest ε ≥ 0 with H_ε(P‖Q) ≤ δ and H_ε(Q‖P) ≤ δ, where
    H_ε(P‖Q) = P[ℓ > ε] − e^ε·Q[ℓ > ε] and ℓ = ln(p/q) is the privacy loss (Balle & Wang 2018, Thm 5; both
    directions, as (ε, δ)-DP requires both).

    ℓ is quadratic in the output, so {ℓ > ε} is an interval, the complement of one, or a half-line (equal
    variances), and both masses are normal probabilities: a closed form in Φ, evaluated in log space, inverted in ε
    by Brent's method (relative error below 10⁻¹² against 50-digit mpmath over the lesson's range). With s = s′ it
    is the Gaussian mechanism's ε with μ = |m − m′|/s (Balle & Wang 2018, Thm 8).

    Ranges: means finite with |m − m′| ≤ 10⁶·min(s, s′); s, s′ > 0 with 10⁻⁶ ≤ s′/s ≤ 10⁶; δ in [10⁻³⁰⁰, 1).

    >>> round(gaussian_pair_epsilon(0.0, 1.0, 1.0, 1.0, 1e-5), 4)  # the Gaussian mechanism, μ = 1
    4.3772
    """
    m1 = check_in_range(mean_x, "mean_x", -1e300, 1e300)
    s1 = check_positive(sd_x, "sd_x")
    m2 = check_in_range(mean_x_prime, "mean_x_prime", -1e300, 1e300)
    s2 = check_positive(sd_x_prime, "sd_x_prime")
    d = check_in_range(delta, "delta", 1e-300, 1.0, high_inclusive=False)
    ratio = s2 / s1
    if not 1e-6 <= ratio <= 1e6:
        raise ValueError(f"sd_x_prime = {sd_x_prime!r} is not allowed with sd_x = {sd_x!r}: the ratio sd_x_prime/sd_x "
                         "must lie in [1e-06, 1e+06].")
    gap = abs(m2 - m1)
    if not gap <= 1e6 * min(s1, s2):
        raise ValueError(f"mean_x_prime = {mean_x_prime!r} is not allowed with mean_x = {mean_x!r}: |mean_x_prime − "
                         "mean_x| must be at most 1e6 times the smaller standard deviation.")
    if s1 == s2:
        return 0.0 if gap == 0.0 else float(Gaussian(s1, gap).epsilon(d))  # Balle & Wang 2018, Thm 8
    return _pair_epsilon(m1, s1, m2, s2, d)


def private_denominator_epsilon(n: int, noise_multiplier: float, delta: float = 1e-5) -> float:
    """The exact ε at δ of the first iterate when DP-SGD divides by the private data set's own size, on the
    counterexample that shows the pitfall (q = 1, T = 1, η = 1, θ₀ = 0, add/remove-one neighbours):

    x holds n examples whose clipped gradients all equal C·u (u a unit vector), x′ = x plus one example whose
    gradient clips to −C·u. Dividing the noisy sum by q·|x| (n on x, n + 1 on x′) gives the u-coordinate of θ₁

        on x: N(−C, (zC/n)²),   on x′: N(−C(n − 1)/(n + 1), (zC/(n + 1))²),

    two Gaussians with different means and variances (:func:`gaussian_pair_epsilon`; C cancels). The coordinate is
    post-processing of θ₁, so θ₁'s ε is at least this. With a public L the same pair is N(−nC/L, (zC/L)²) and
    N(−(n − 1)C/L, (zC/L)²): the Gaussian mechanism with μ = 1/z, whose ε is ``dpsgd_epsilon(z, 1, 1, δ)``.

    For large n the means differ by 2C/(n + 1) against a noise zC/n: dividing by the data set's own size acts like
    sensitivity 2C (the average moves by up to 2C/(n + 1) when one example joins), and the unequal variances add more
    at small n. Ranges: n in :data:`EXAMPLES`, z in [0.01, 100], δ in [10⁻³⁰⁰, 1).

    >>> round(private_denominator_epsilon(10, 1.0, 1e-5), 2), round(dpsgd_epsilon(1.0, 1.0, 1, 1e-5), 3)
    (12.57, 4.377)
    """
    n = EXAMPLES.check(n, "n")
    z = check_in_range(noise_multiplier, "noise_multiplier", 0.01, 100.0)
    d = check_in_range(delta, "delta", 1e-300, 1.0, high_inclusive=False)
    return _pair_epsilon(-1.0, z / n, -(n - 1) / (n + 1), z / (n + 1), d)


# ============================================================================================ lesson 10's data


def _read_only(*arrays: np.ndarray) -> None:
    for a in arrays:
        a.setflags(write=False)


@functools.lru_cache(maxsize=4)
def lesson_data(n: int = LESSON_EXAMPLES, train_seed: int = 7, test_seed: int = 8):
    """Lesson 10's fixed data: ((X, y), (X_test, y_test)) from :func:`make_dataset` with fixed seeds (lesson
    constants); cached and read-only (the panels share it)."""
    (X, y), (Xt, yt) = make_dataset(n, rng=train_seed), make_dataset(n, rng=test_seed)
    _read_only(X, y, Xt, yt)
    return (X, y), (Xt, yt)


def lesson_batch_size(sampling_rate: float) -> float:
    """Lesson 10's public expected batch size L = q·1000 (:data:`LESSON_EXAMPLES`): fixed by the lesson before the
    data are drawn, and the same for x and for x′ = x plus one example (q in (0, 1])."""
    q = check_in_range(sampling_rate, "sampling_rate", 0.0, 1.0, low_inclusive=False)
    return q * LESSON_EXAMPLES


@functools.lru_cache(maxsize=64)
def lesson_reference_run(clip_norm: float, sampling_rate: float, steps: int, eval_every: int) -> DPSGDRun:
    """The noise-free reference (z = 0, same Poisson rate, L = :func:`lesson_batch_size`, seed 1) on
    :func:`lesson_data`; cached, since it does not depend on z (a lesson's z slider reuses it)."""
    (X, y), test = lesson_data()
    run = train_dpsgd(X, y, expected_batch_size=lesson_batch_size(sampling_rate), clip_norm=clip_norm,
                      noise_multiplier=0.0, sampling_rate=sampling_rate, steps=steps, test=test,
                      eval_every=eval_every, rng=1)
    _read_only(run.theta, run.steps, run.train_accuracy, run.test_accuracy, run.clipped_fraction, run.batch_sizes)
    return run
