"""Adversarial-input sweep of :mod:`dpviz.selection` (the shared contract of ``tests/_adversarial.py``).

Every public callable of ``dpviz.selection.__all__`` gets one valid baseline call; each positional argument in turn
is replaced by 16 hostile values (0, −1, −0.0, NaN, ±inf, 1e308, 5e-324, 10**400, True, None, "1", 1+1j, [], an
empty array, a ragged list) with warnings raised as errors; only a ValueError/TypeError with a message, or a NaN-free
result, passes. The keyword-only arguments that matter (noise, sensitivity, monotonic, size, max_positives,
variant) are swept through small named wrappers that take them positionally.
"""

from __future__ import annotations

from _adversarial import contract_tests

import dpviz.selection as S


def _named(fn, name):
    fn.__name__ = name
    return fn


_RESULT = S.above_threshold([0.0, 90.0, 10.0], 50.0, 1.0, rng=0)

BASELINES = {
    "noise_scale": ((1.0, 1.0, False), {}),
    "report_noisy_max": (([0.0, 1.0, 0.5], 1.0), {"rng": 0}),
    "selection_probabilities": (([0.0, 1.0, 0.5], 1.0), {"noise": "laplace"}),
    "expected_gap": (([0.0, 1.0, 0.5], 1.0), {"noise": "exponential"}),
    "gap_quantile": (([0.0, 1.0, 0.5], 1.0, 0.1), {}),
    "gap_tail_bound": ((10, 1.0, 0.05), {}),
    "SparseVectorResult": (((False, True), (1,), True, 1.5, (0.2, 3.0), 1.0, 1.0, 1), {}),
    "example_query_stream": ((5,), {"rng": 0}),
    "above_threshold": (([0.0, 90.0, 10.0], 50.0, 1.0), {"rng": 0}),
    "sparse_vector_scales": ((1.0, 1.0, 2, "correct"), {}),
    "sparse_vector_pattern_probabilities": (([0.0, 1.0], 0.5, 1.0), {}),
    "sparse_vector_privacy_loss": (([0.0, 1.0], [1.0, 0.0], 0.5, 1.0), {}),
    "SparseVectorCheck": ((0.4, (False, True), (1.0, 0.0), 1.0), {}),
    "sparse_vector_privacy_check": (([0.0, 1.0], 0.5, 1.0), {}),
}

METHODS = {
    "report_noisy_max(noise, sensitivity, monotonic, size)": (
        _named(lambda scores, eps, noise, sens, mono, size: S.report_noisy_max(
            scores, eps, noise=noise, sensitivity=sens, monotonic=mono, size=size, rng=0), "report_noisy_max_kw"),
        ([0.0, 1.0, 0.5], 1.0, "laplace", 1.0, False, 5), {}),
    "selection_probabilities(noise, sensitivity, monotonic)": (
        _named(lambda scores, eps, noise, sens, mono: S.selection_probabilities(
            scores, eps, noise=noise, sensitivity=sens, monotonic=mono), "selection_probabilities_kw"),
        ([0.0, 1.0, 0.5], 1.0, "exponential", 1.0, True), {}),
    "expected_gap(noise, sensitivity, monotonic)": (
        _named(lambda scores, eps, noise, sens, mono: S.expected_gap(
            scores, eps, noise=noise, sensitivity=sens, monotonic=mono), "expected_gap_kw"),
        ([0.0, 1.0, 0.5], 1.0, "laplace", 1.0, False), {}),
    "gap_quantile(noise, sensitivity, monotonic)": (
        _named(lambda scores, eps, beta, noise, sens, mono: S.gap_quantile(
            scores, eps, beta, noise=noise, sensitivity=sens, monotonic=mono), "gap_quantile_kw"),
        ([0.0, 1.0, 0.5], 1.0, 0.2, "gumbel", 1.0, False), {}),
    "gap_tail_bound(sensitivity, monotonic)": (
        _named(lambda k, eps, beta, sens, mono: S.gap_tail_bound(k, eps, beta, sensitivity=sens, monotonic=mono),
               "gap_tail_bound_kw"),
        (10, 1.0, 0.05, 2.0, True), {}),
    "above_threshold(sensitivity, max_positives)": (
        _named(lambda q, t, eps, sens, c: S.above_threshold(q, t, eps, sensitivity=sens, max_positives=c, rng=0),
               "above_threshold_kw"),
        ([0.0, 90.0, 10.0, 80.0], 50.0, 1.0, 1.0, 2), {}),
    "sparse_vector_pattern_probabilities(sensitivity, max_positives, variant)": (
        _named(lambda q, t, eps, sens, c, variant: S.sparse_vector_pattern_probabilities(
            q, t, eps, sensitivity=sens, max_positives=c, variant=variant), "pattern_probabilities_kw"),
        ([0.0, 1.0, 0.0], 0.5, 1.0, 1.0, 2, "no_cutoff"), {}),
    "sparse_vector_privacy_loss(sensitivity, max_positives, variant)": (
        _named(lambda q, q2, t, eps, sens, c, variant: S.sparse_vector_privacy_loss(
            q, q2, t, eps, sensitivity=sens, max_positives=c, variant=variant), "privacy_loss_kw"),
        ([0.0, 1.0], [1.0, 0.0], 0.5, 1.0, 1.0, 1, "no_query_noise"), {}),
    "sparse_vector_privacy_check(sensitivity, max_positives, variant)": (
        _named(lambda q, t, eps, sens, c, variant: S.sparse_vector_privacy_check(
            q, t, eps, sensitivity=sens, max_positives=c, variant=variant), "privacy_check_kw"),
        ([0.0, 1.0], 0.5, 1.0, 1.0, 1, "correct"), {}),
}

globals().update(contract_tests(S, BASELINES, methods=METHODS))


def test_the_baseline_result_is_the_run_it_describes():
    # the dataclass baselines above are valid results, the kind above_threshold returns
    assert isinstance(_RESULT, S.SparseVectorResult) and _RESULT.epsilon_spent <= _RESULT.epsilon
