"""Adversarial-input sweep of :mod:`dpviz.interpret` (lesson 09): every public callable, with the keyword-only
arguments that matter (the event probability q) reached through named positional wrappers."""

from __future__ import annotations

from _adversarial import contract_tests

import dpviz.interpret as I


def _named(fn, name):
    fn.__name__ = name
    return fn


posterior_bound_at_event = _named(
    lambda prior, epsilon, delta, q: I.posterior_bound(prior, epsilon, delta, event_probability=q),
    "posterior_bound_at_event")

BASELINES = {
    "posterior_bound": ((0.1, 1.0, 1e-3), {}),
    "epsilon_for_posterior": ((0.1, 0.5), {}),
    "gaussian_reading": ((2.56, 17.0), {}),
    "laplace_epsilon_for_accuracy": ((10.0, 0.05, 1.0), {}),
    "gaussian_sigma_for_accuracy": ((10.0, 0.05), {}),
    "gaussian_epsilon_for_accuracy": ((10.0, 0.05, 1e-6, 1.0), {}),
    "accuracy_crossover_alpha": ((0.05, 1e-3, 1.0), {}),
    "accuracy_crossover_beta": ((10.0, 1e-3, 1.0), {}),
    "per_release_budget": ((1.0, 1e-6, 12), {}),
    "per_release_epsilon": ((1.0, 1e-6, [1, 12]), {}),
    "accuracy_curves": (([1.0, 10.0], 0.05, 1e-6, 1.0), {}),
}

METHODS = {
    "posterior_bound(event_probability=q)": (posterior_bound_at_event, (0.1, 1.0, 1e-3, 1e-2), {}),
    "posterior_bound(arrays)": (I.posterior_bound, ([0.01, 0.1], [[0.5], [2.0]], 0.0), {}),
    "per_release_budget(array)": (I.per_release_budget, (1.0, 1e-6, [1, 12, 365]), {}),
}

globals().update(contract_tests(I, BASELINES, methods=METHODS))
