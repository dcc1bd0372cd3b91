"""Adversarial-input sweep of :mod:`dpviz.plots.auditing` (the shared contract of ``tests/_adversarial.py``).

Every figure builder gets one valid baseline call; the sweep replaces each positional argument in turn by 16
hostile values (warnings are errors); only a ValueError/TypeError with a message, or a figure, passes. The
keyword-only numbers the figures draw or print (noise multiplier, clip norm, sampling rate, δ, confidence, the
exact ε, the progress pair, threshold, direction) are swept through named wrappers that take them positionally.
"""

from __future__ import annotations

import numpy as np
from _adversarial import contract_tests

import dpviz.plots.auditing as P


def _named(fn, name):
    fn.__name__ = name
    return fn


_A = np.random.default_rng(0).normal(0.0, 1.0, 200)
_B = _A + 1.0

training_positional = _named(lambda t, a, b, z, c, q, progress: P.training_figure(
    t, a, b, noise_multiplier=z, clip_norm=c, sampling_rate=q, progress=progress), "training_figure_positional")
steps_positional = _named(lambda t, e, pld, T, d, progress: P.epsilon_steps_figure(t, e, pld, T, delta=d,
                                                                                  progress=progress),
                          "epsilon_steps_figure_positional")
tradeoff_positional = _named(lambda e, a, t, pld, apld, d, progress: P.accuracy_epsilon_figure(
    e, a, t, pld, apld, delta=d, progress=progress), "accuracy_epsilon_figure_positional")
game_positional = _named(lambda shift, s, o, r, b, claim, conf, truth: P.game_figure(
    shift, s, o, r, b, claim, confidence=conf, truth=truth), "game_figure_positional")
trials_positional = _named(lambda n, b, claim, conf, exact: P.audit_trials_figure(
    n, b, claim, confidence=conf, exact_epsilon=exact), "audit_trials_figure_positional")
outputs_positional = _named(lambda a, b, t, direction, discrete: P.audit_outputs_figure(
    a, b, threshold=t, direction=direction, discrete=discrete), "audit_outputs_figure_positional")

BASELINES = {
    "training_figure": (([0, 10, 20], [0.5, 0.7, 0.8], [0.5, 0.8, 0.85]),
                        {"noise_multiplier": 1.0, "clip_norm": 1.0, "sampling_rate": 0.05}),
    "epsilon_steps_figure": (([1, 2, 4], [0.5, 1.0, 2.0], 1.9, 4), {"delta": 1e-5}),
    "accuracy_epsilon_figure": (([0.5, 1.0, 2.0], [0.6, 0.7, 0.8], [10, 20, 40], 1.7, 0.8), {"delta": 1e-5}),
    "game_figure": ((0.8, 1.5, 0.3, [1, 2, 3], [0.0, 0.0, 0.4], 2.0), {"confidence": 0.95}),
    "audit_trials_figure": (([1000, 10000], [0.5, 1.8], 1.0), {"confidence": 0.95}),
    "audit_outputs_figure": ((_A, _B), {"threshold": 0.5, "direction": 1, "discrete": False}),
}

METHODS = {
    "training_figure (keywords positional)": (
        training_positional, ([0, 10, 20], [0.5, 0.7, 0.8], [0.5, 0.8, 0.85], 1.0, 1.0, 0.05, (10, 20)), {}),
    "epsilon_steps_figure (keywords positional)": (
        steps_positional, ([1, 2], [0.5, 1.0], None, 4, 1e-5, (2, 4)), {}),
    "accuracy_epsilon_figure (keywords positional)": (
        tradeoff_positional, ([0.5, 1.0], [0.6, 0.7], [10, 20], 1.7, 0.8, 1e-5, None), {}),
    "game_figure (keywords positional)": (
        game_positional, (0.8, 1.5, 0.3, [1, 2], [0.0, 0.4], 2.0, 0.95, "x′ — you were right"), {}),
    "audit_trials_figure (keywords positional)": (
        trials_positional, ([1000, 10000], [0.2, 0.35], 1.0, 0.95, 0.396), {}),
    "audit_outputs_figure (keywords positional)": (
        outputs_positional, ([0.0, 1.0, 2.0, 0.0], [1.0, 1.0, 2.0, 1.0], None, 1, True), {}),
}

globals().update(contract_tests(P, BASELINES, methods=METHODS))
