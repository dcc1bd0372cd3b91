"""Adversarial-input sweep of :mod:`dpviz.plots.choosing_epsilon` (lesson 09), with the keyword arguments that
matter (the marked prior, the largest release count) reached through named positional wrappers."""

from __future__ import annotations

from _adversarial import contract_tests

import dpviz.plots.choosing_epsilon as P
from dpviz.deployments import DEPLOYMENTS


def _named(fn, name):
    fn.__name__ = name
    return fn


posterior_figure_marked = _named(
    lambda epsilon, delta, q, prior: P.posterior_figure(epsilon, delta, q, marker_prior=prior),
    "posterior_figure_marked")
budget_figure_up_to = _named(
    lambda epsilon, delta, releases, max_releases: P.budget_figure(epsilon, delta, releases,
                                                                   max_releases=max_releases),
    "budget_figure_up_to")

BASELINES = {
    "posterior_figure": ((1.0, 1e-3, 1e-2), {}),
    "deployments_figure": ((0.01, DEPLOYMENTS), {}),
    "accuracy_figure": ((10.0, 0.05, 1e-6), {}),
    "budget_figure": ((1.0, 1e-6, 12), {}),
}

METHODS = {
    "posterior_figure(marker_prior=)": (posterior_figure_marked, (1.0, 1e-3, 1e-2, 0.1), {}),
    "budget_figure(max_releases=)": (budget_figure_up_to, (1.0, 1e-6, 12, 1000), {}),
}

globals().update(contract_tests(P, BASELINES, methods=METHODS))
