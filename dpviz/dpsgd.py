"""DP-SGD at the item level (Abadi et al. 2016, Alg. 1) on a small logistic regression, vectorised numpy.

Each step: keep every example independently with probability q (Poisson sampling), compute the per-example
gradients of the logistic loss, clip each to ℓ₂ norm ≤ C, sum them, add N(0, σ²C²·I) noise, divide by the expected
batch size q·n and take a gradient step. One step is the Poisson-subsampled Gaussian mechanism with noise
multiplier σ under add/remove-one neighbours (the sum of clipped gradients has sensitivity C; noise σC), so T
steps compose T such mechanisms; :func:`dpsgd_epsilon` asks the accountants of :mod:`dpviz.accountants` (RDP:
Mironov, Talwar & Zhang 2019; PLD: Koskela, Jälkö & Honkela 2020 / Zhu, Dong & Wang 2022) for their ε.

The unit of privacy is one example (record); lesson 10's user-level training is the same with users as the unit.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Callable, Iterator

import numpy as np

from dpviz._validation import as_rng, check_delta, check_in_range, check_integer, check_positive
from dpviz.accountants.compare import epsilon_result
from dpviz.learning.training import clip_rows

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
    "dpsgd_epsilon",
    "lesson_data",
    "lesson_reference_run",
    "MAX_EXAMPLES",
    "MAX_STEPS",
]

MAX_EXAMPLES = 100_000
MAX_STEPS = 10_000


def make_dataset(n: int = 1000, *, separation: float = 2.0, rng=0) -> tuple[np.ndarray, np.ndarray]:
    """A synthetic 2-D binary classification set: two Gaussian clouds N(±(s/2)·(1, 1)/√2, I), labels 0/1 with
    probability ½ each. Returns (X of shape (n, 2), y of shape (n,)); the same ``rng`` seed gives the same data."""
    n = check_integer(n, "n", minimum=2, maximum=MAX_EXAMPLES)
    s = check_positive(separation, "separation", allow_zero=True)
    g = as_rng(rng)
    y = (g.random(n) < 0.5).astype(float)
    centre = (s / 2.0) * np.array([1.0, 1.0]) / np.sqrt(2.0)
    X = g.standard_normal((n, 2)) + np.where(y[:, None] > 0, centre, -centre)
    return X, y


def _features(X: np.ndarray) -> np.ndarray:
    return np.column_stack([X, np.ones(X.shape[0])])  # a bias feature


def per_example_gradients(theta, X, y) -> np.ndarray:
    """Gradients of the logistic loss ℓ(θ; x, y) = ln(1 + e^{z}) − y·z, z = θ·(x, 1), one row per example:
    (σ(z) − y)·(x, 1), σ the logistic function. Shape (n, 3)."""
    F = _features(np.asarray(X, dtype=float))
    z = F @ np.asarray(theta, dtype=float)
    p = 0.5 * (1.0 + np.tanh(0.5 * z))  # the logistic function, without overflow
    return (p - np.asarray(y, dtype=float))[:, None] * F


def clip_gradients(grads, clip_norm: float) -> tuple[np.ndarray, np.ndarray]:
    """Scale each row to ℓ₂ norm ≤ C: g·min(1, C/‖g‖) (Abadi et al. 2016, Alg. 1). Returns (clipped, was_clipped)."""
    # the one home of row clipping is dpviz.learning (user-level DP-SGD, lesson 10)
    return clip_rows(np.asarray(grads, dtype=float), float(clip_norm))


def noisy_gradient_sum(grads, clip_norm: float, noise_multiplier: float, rng) -> np.ndarray:
    """Σᵢ clip(gᵢ) + N(0, σ²C²·I): the privatised sum of one DP-SGD step (Abadi et al. 2016, Alg. 1)."""
    c = check_positive(clip_norm, "clip_norm")
    s = check_positive(noise_multiplier, "noise_multiplier", allow_zero=True)
    clipped, _ = clip_gradients(grads, c)
    g = as_rng(rng)
    return clipped.sum(axis=0) + g.normal(0.0, s * c, size=clipped.shape[-1])


def accuracy(theta, X, y) -> float:
    """Fraction of examples the linear classifier 1[θ·(x, 1) > 0] labels correctly."""
    z = _features(np.asarray(X, dtype=float)) @ np.asarray(theta, dtype=float)
    return float(np.mean((z > 0) == (np.asarray(y) > 0.5)))


@dataclasses.dataclass(frozen=True)
class DPSGDRun:
    """The result of :func:`train_dpsgd`: final parameters and traces at the evaluated steps."""

    theta: np.ndarray
    steps: np.ndarray  # the step numbers t at which the traces were taken (0 = before training)
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray
    clipped_fraction: np.ndarray  # per evaluated step: fraction of the sampled examples whose gradient was clipped
    batch_sizes: np.ndarray  # all T Poisson batch sizes


def _check_training(clip_norm, noise_multiplier, sampling_rate, steps, learning_rate):
    return (check_positive(clip_norm, "clip_norm"),
            check_positive(noise_multiplier, "noise_multiplier", allow_zero=True),
            check_in_range(sampling_rate, "sampling_rate", 0.0, 1.0, low_inclusive=False),
            check_integer(steps, "steps", minimum=1, maximum=MAX_STEPS),
            check_positive(learning_rate, "learning_rate"))


def recorded_steps(steps: int, eval_every: int) -> np.ndarray:
    """The steps t at which :func:`train_dpsgd` records its traces: 0 (before training), every ``eval_every``-th
    step, and the last step T."""
    T = check_integer(steps, "steps", minimum=1, maximum=MAX_STEPS)
    every = check_integer(eval_every, "eval_every", minimum=1)
    return np.union1d(np.arange(0, T + 1, every), [T])


def train_dpsgd(X, y, *, clip_norm: float = 1.0, noise_multiplier: float = 1.0, sampling_rate: float = 0.05,
                steps: int = 200, learning_rate: float = 0.5, test: tuple | None = None, eval_every: int = 10,
                rng=None, progress: Callable[[float], None] | None = None) -> DPSGDRun:
    """Train a logistic regression with DP-SGD (Abadi et al. 2016, Alg. 1) from θ = 0.

    Step t: a Poisson sample B (each example kept with probability q = ``sampling_rate``), the clipped per-example
    gradients summed, N(0, σ²C²·I) added (σ = ``noise_multiplier``, C = ``clip_norm``), divided by the expected
    batch size q·n (not by |B|, which would leak |B|), and θ ← θ − η·(that). ``noise_multiplier = 0`` gives
    non-private clipped SGD (the reference curve). Accuracies are recorded every ``eval_every`` steps on the
    training set and on ``test`` = (X_test, y_test) (the training set when None). ``progress(f)`` is called with
    the fraction done.

    The last run :func:`iter_train_dpsgd` yields for the same arguments: the same draws in the same order.
    """
    *_, (_, run) = iter_train_dpsgd(X, y, clip_norm=clip_norm, noise_multiplier=noise_multiplier,
                                    sampling_rate=sampling_rate, steps=steps, learning_rate=learning_rate, test=test,
                                    eval_every=eval_every, rng=rng, progress=progress)
    return run


def iter_train_dpsgd(X, y, *, clip_norm: float = 1.0, noise_multiplier: float = 1.0, sampling_rate: float = 0.05,
                     steps: int = 200, learning_rate: float = 0.5, test: tuple | None = None, eval_every: int = 10,
                     rng=None, progress: Callable[[float], None] | None = None,
                     pause_at=()) -> Iterator[tuple[int, DPSGDRun]]:
    """:func:`train_dpsgd` as an iterator: after each step t in ``pause_at`` (t < T) it yields (t, the run so far),
    and at the end (T, the whole run), which is exactly what :func:`train_dpsgd` returns for the same arguments.

    The run so far holds θ after t steps, the traces at the recorded steps up to t (and at t itself), and the first
    t batch sizes. Arguments are validated here, before the first step.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2 or y.shape != (X.shape[0],) or X.shape[0] < 1:
        raise ValueError(f"X, y of shapes {X.shape}, {y.shape} are not allowed: must be (n, 2) and (n,)")
    if X.shape[0] > MAX_EXAMPLES:
        raise ValueError(f"n = {X.shape[0]} is not allowed: must be <= {MAX_EXAMPLES}")
    C, s, q, T, lr = _check_training(clip_norm, noise_multiplier, sampling_rate, steps, learning_rate)
    record = np.zeros(T + 1, dtype=bool)
    record[recorded_steps(T, eval_every)] = True
    if isinstance(pause_at, (str, bytes)) or not isinstance(pause_at, (tuple, list, range, np.ndarray)):
        raise ValueError(f"pause_at = {pause_at!r} is not allowed: must be a sequence of step counts >= 1.")
    pauses = np.zeros(T + 1, dtype=bool)
    for t in pause_at:
        pauses[min(check_integer(t, "pause_at entry", minimum=1), T)] = True
    Xt, yt = (X, y) if test is None else (np.asarray(test[0], dtype=float), np.asarray(test[1], dtype=float))
    return _dpsgd_loop(X, y, Xt, yt, C, s, q, T, lr, record, pauses, as_rng(rng), progress)


def _dpsgd_loop(X, y, Xt, yt, C, s, q, T, lr, record, pauses, g, progress) -> Iterator[tuple[int, DPSGDRun]]:
    n = X.shape[0]
    theta = np.zeros(3)
    rec_t, tr, te, cf = [0], [accuracy(theta, X, y)], [accuracy(theta, Xt, yt)], [0.0]
    sizes = np.empty(T, dtype=int)
    masks = g.random((T, n)) < q  # all Poisson samples at once
    noise = g.normal(0.0, s * C, size=(T, 3))
    F = _features(X)
    fnorm = np.linalg.norm(F, axis=1)
    # g_i = (p_i − y_i)·F_i, so ‖g_i‖ = |p_i − y_i|·‖F_i‖ and Σ clip(g_i) = Fᵀ(r ⊙ min(1, C/‖g_i‖)): the same
    # numbers as clip_gradients(per_example_gradients(...)) without building the (|B|, 3) gradient array
    for t in range(T):
        idx = np.flatnonzero(masks[t])
        sizes[t] = idx.size
        Fi = F[idx]
        r = 0.5 * (1.0 + np.tanh(0.5 * (Fi @ theta))) - y[idx]
        nrm = np.abs(r) * fnorm[idx]
        was = nrm > C
        fac = np.where(was, C / np.where(was, nrm, 1.0), 1.0)
        theta = theta - lr * (Fi.T @ (r * fac) + noise[t]) / (q * n)
        clipped = float(was.mean()) if idx.size else 0.0
        if record[t + 1]:
            rec_t.append(t + 1)
            tr.append(accuracy(theta, X, y))
            te.append(accuracy(theta, Xt, yt))
            cf.append(clipped)
            if progress is not None:
                progress((t + 1) / T)
        if pauses[t + 1] and t + 1 < T:
            extra = ([], [], [], []) if record[t + 1] else \
                ([t + 1], [accuracy(theta, X, y)], [accuracy(theta, Xt, yt)], [clipped])
            yield t + 1, DPSGDRun(theta=theta.copy(), steps=np.array(rec_t + extra[0]),
                                  train_accuracy=np.array(tr + extra[1]), test_accuracy=np.array(te + extra[2]),
                                  clipped_fraction=np.array(cf + extra[3]), batch_sizes=sizes[:t + 1].copy())
    yield T, DPSGDRun(theta=theta, steps=np.array(rec_t), train_accuracy=np.array(tr), test_accuracy=np.array(te),
                      clipped_fraction=np.array(cf), batch_sizes=sizes)


def dpsgd_epsilon(noise_multiplier: float, sampling_rate: float, steps: int, delta: float = 1e-5, *,
                  accountant: str = "pld") -> float:
    """The ε after ``steps`` DP-SGD steps (Poisson rate q, noise multiplier σ) at ``delta``, add/remove-one
    neighbours, from :mod:`dpviz.accountants` (via :func:`dpviz.accountants.compare.epsilon_result`, cached):
    ``"rdp"`` — the RDP accountant of the sampled Gaussian (Mironov, Talwar & Zhang 2019) with the improved
    conversion; ``"pld"`` — the PLD accountant's pessimistic (upper) end (Koskela, Jälkö & Honkela 2020).
    σ = 0 is not private: ε = ∞."""
    s = check_positive(noise_multiplier, "noise_multiplier", allow_zero=True)
    q = check_in_range(sampling_rate, "sampling_rate", 0.0, 1.0, low_inclusive=False)
    T = check_integer(steps, "steps", minimum=1, maximum=MAX_STEPS)
    d = check_delta(delta, allow_zero=False)
    if accountant not in ("rdp", "pld"):
        raise ValueError(f"accountant = {accountant!r} is not allowed: must be one of 'rdp', 'pld'.")
    if s == 0.0:
        return float("inf")
    r = epsilon_result(accountant, "gaussian", s, T, q, d, "add_remove")
    if r.epsilon is None:
        raise ValueError(f"the {accountant} accountant cannot analyse this setting: {r.error}")
    return float(r.epsilon)


def _read_only(*arrays: np.ndarray) -> None:
    for a in arrays:
        a.setflags(write=False)


@functools.lru_cache(maxsize=4)
def lesson_data(n: int = 1000, train_seed: int = 7, test_seed: int = 8):
    """Lesson 07's fixed data: ((X, y), (X_test, y_test)) from :func:`make_dataset` with fixed seeds; cached and
    read-only (the panels share it)."""
    (X, y), (Xt, yt) = make_dataset(n, rng=train_seed), make_dataset(n, rng=test_seed)
    _read_only(X, y, Xt, yt)
    return (X, y), (Xt, yt)


@functools.lru_cache(maxsize=64)
def lesson_reference_run(clip_norm: float, sampling_rate: float, steps: int, eval_every: int) -> DPSGDRun:
    """The noise-free reference (σ = 0, same Poisson batches' rate, seed 1) on :func:`lesson_data`; cached, since
    it does not depend on σ (a lesson's σ slider reuses it)."""
    (X, y), test = lesson_data()
    run = train_dpsgd(X, y, clip_norm=clip_norm, noise_multiplier=0.0, sampling_rate=sampling_rate, steps=steps,
                      test=test, eval_every=eval_every, rng=1)
    _read_only(run.theta, run.steps, run.train_accuracy, run.test_accuracy, run.clipped_fraction, run.batch_sizes)
    return run
