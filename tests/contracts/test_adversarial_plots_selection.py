"""Adversarial-input sweep of :mod:`dpviz.plots.selection` (the shared contract of ``tests/_adversarial.py``).

Every figure builder of ``dpviz.plots.selection.__all__`` gets one valid baseline call; each positional argument in
turn is replaced by 16 hostile values with warnings raised as errors: only a ValueError/TypeError with a message, or
a normal return, passes. The keyword-only arguments that matter (sensitivity, monotonic, the hidden bars, the
precomputed probabilities, the marked ε and k) are swept through small named wrappers.
"""

from __future__ import annotations

import numpy as np
from _adversarial import contract_tests

import dpviz.plots.selection as P
from dpviz import selection as S


def _named(fn, name):
    fn.__name__ = name
    return fn


_Q = [10.0, 80.0, 20.0, 90.0, 5.0]
_RESULT = S.above_threshold(_Q, 50.0, 1.0, max_positives=2, rng=3)
_LOSSES = S.sparse_vector_privacy_loss([0.0, 1.0], [1.0, 0.0], 0.5, 1.0, variant="no_query_noise")

BASELINES = {
    "selection_probabilities_figure": (([3.0, 2.0, 2.0, 0.0], 1.0), {}),
    "utility_against_epsilon_figure": ((3, 2.0, 0.05), {}),
    "utility_against_k_figure": ((1.0, 2.0, 0.05), {}),
    "sparse_vector_stream_figure": ((_Q, 50.0, _RESULT), {}),
    "sparse_vector_budget_figure": ((_RESULT, 5), {}),
    "sparse_vector_check_figure": ((_LOSSES, 1.0, "no_query_noise"), {}),
    "pattern_label": (((False, True),), {}),
}

METHODS = {
    "selection_probabilities_figure(sensitivity, monotonic, show_gumbel, probabilities)": (
        _named(lambda u, eps, sens, mono, show, probs: P.selection_probabilities_figure(
            u, eps, sensitivity=sens, monotonic=mono, show_gumbel=show, probabilities=probs),
            "selection_probabilities_figure_kw"),
        ([3.0, 2.0, 0.0], 1.0, 1.0, True, False, {"laplace": np.array([0.6, 0.3, 0.1])}), {}),
    "utility_against_epsilon_figure(sensitivity, epsilon_mark)": (
        _named(lambda k, d, beta, sens, mark: P.utility_against_epsilon_figure(k, d, beta, sensitivity=sens,
                                                                               epsilon_mark=mark),
               "utility_against_epsilon_figure_kw"),
        (3, 2.0, 0.05, 1.0, 1.0), {}),
    "utility_against_k_figure(sensitivity, k_mark)": (
        _named(lambda eps, d, beta, sens, mark: P.utility_against_k_figure(eps, d, beta, sensitivity=sens,
                                                                           k_mark=mark),
               "utility_against_k_figure_kw"),
        (1.0, 2.0, 0.05, 1.0, 10), {}),
}

globals().update(contract_tests(P, BASELINES, methods=METHODS))
