"""Adversarial-input sweep of :mod:`dpviz.dpsgd` (the shared contract of ``tests/_adversarial.py``).

Every public callable of ``dpviz.dpsgd.__all__`` gets one valid baseline call; the sweep replaces each positional
argument in turn by 16 hostile values (warnings are errors); only a ValueError/TypeError with a message, or a
NaN-free result, passes. The keyword-only arguments that size or scale a run (expected_batch_size, clip_norm,
noise_multiplier, sampling_rate, steps, learning_rate, eval_every, pause_at, separation, accountant) are swept
through small named wrappers that take them positionally; the iterator is consumed.
"""

from __future__ import annotations

import numpy as np
from _adversarial import contract_tests

import dpviz.dpsgd as D

X, Y = D.make_dataset(20, rng=0)
XT, YT = D.make_dataset(10, rng=1)
G = D.per_example_gradients(np.array([0.1, -0.2, 0.0]), X, Y)
RUN = D.train_dpsgd(X, Y, expected_batch_size=5.0, sampling_rate=0.25, steps=4, eval_every=2, rng=0)


def _named(fn, name):
    fn.__name__ = name
    return fn


train_positional = _named(
    lambda X, y, L, C, z, q, T, lr, every, test: D.train_dpsgd(
        X, y, expected_batch_size=L, clip_norm=C, noise_multiplier=z, sampling_rate=q, steps=T, learning_rate=lr,
        eval_every=every, test=test, rng=0), "train_dpsgd_positional")
iterate_positional = _named(
    lambda X, y, L, T, pauses: [t for t, _ in D.iter_train_dpsgd(
        X, y, expected_batch_size=L, sampling_rate=0.5, steps=T, eval_every=2, pause_at=pauses, rng=0)],
    "iter_train_dpsgd_positional")
dataset_positional = _named(lambda n, s: D.make_dataset(n, separation=s, rng=0), "make_dataset_positional")
epsilon_positional = _named(lambda z, q, T, d, acc: D.dpsgd_epsilon(z, q, T, d, accountant=acc),
                            "dpsgd_epsilon_positional")

BASELINES = {
    "DPSGDRun": ((RUN.theta, RUN.steps, RUN.train_accuracy, RUN.test_accuracy, RUN.clipped_fraction,
                  RUN.batch_sizes), {}),
    "make_dataset": ((20,), {"rng": 0}),
    "per_example_gradients": ((np.array([0.1, -0.2, 0.0]), X, Y), {}),
    "clip_gradients": ((G, 0.1), {}),
    "noisy_gradient_sum": ((G, 0.1, 1.0, 0), {}),
    "accuracy": ((np.array([0.1, -0.2, 0.0]), X, Y), {}),
    "train_dpsgd": ((X, Y), {"expected_batch_size": 5.0, "sampling_rate": 0.25, "steps": 3, "rng": 0}),
    "iter_train_dpsgd": ((X, Y), {"expected_batch_size": 5.0, "steps": 3, "rng": 0}),
    "recorded_steps": ((37, 5), {}),
    "lesson_schedule": ((200,), {}),
    "dpsgd_epsilon": ((1.0, 0.05, 10, 1e-5), {}),
    "gaussian_pair_epsilon": ((-1.0, 0.1, -0.8, 0.09, 1e-5), {}),
    "private_denominator_epsilon": ((10, 1.0, 1e-5), {}),
    "lesson_data": ((50, 7, 8), {}),
    "lesson_batch_size": ((0.05,), {}),
    "lesson_reference_run": ((1.0, 0.1, 5, 5), {}),
}

METHODS = {
    "train_dpsgd (keywords positional)": (train_positional, (X, Y, 5.0, 1.0, 1.0, 0.25, 3, 0.5, 1, (XT, YT)), {}),
    "iter_train_dpsgd (keywords positional)": (iterate_positional, (X, Y, 5.0, 4, [1, 3]), {}),
    "make_dataset (keywords positional)": (dataset_positional, (20, 2.0), {}),
    "dpsgd_epsilon (keywords positional)": (epsilon_positional, (1.0, 0.05, 10, 1e-5, "rdp"), {}),
}

globals().update(contract_tests(D, BASELINES, methods=METHODS))
