"""Adversarial-input sweep of :mod:`dpviz.release` (the lesson "Releasing many answers": k queries, tree histograms,
MWEM, synthetic data, TopDown).

Every public callable of ``dpviz.release.__all__`` gets one valid baseline call with its optional arguments written
positionally, so that :func:`_adversarial.sweep` replaces each of them in turn by each of 16 hostile values (warnings
are errors); only a ValueError/TypeError with a message, or a NaN-free result, passes. The tests after the sweep pin
the size caps: each names its cap instead of running out of memory or time.
"""

from __future__ import annotations

import numpy as np
import pytest
from _adversarial import contract_tests

import dpviz.release as R

HIST = R.example_age_histogram(1000, 16)
RANGES = np.array([[0, 4], [2, 11], [0, 16]])
QUERIES = R.range_query_matrix(RANGES, 16)
TREE = R.tree_counts(HIST)
RUN = R.mwem(HIST, QUERIES, 1.0, 3, rng=0)
TD = R.topdown(R.example_geography(), 1.0, rng=0)

BASELINES = {
    "example_age_histogram": ((500, 32), {}),
    "example_age_table": ((500, 32), {}),
    "example_geography": ((), {}),
    "range_answers": ((HIST, RANGES), {}),
    "range_query_matrix": ((RANGES, 16), {}),
    "noisy_histogram": ((HIST, 1.0), {"size": 3, "rng": 0}),
    "answer_by_composition": ((HIST, RANGES, 1.0), {"size": 2, "rng": 0}),
    "composition_variance": ((5, 0.5), {}),
    "histogram_range_variance": ((16, np.array([1, 4, 16]), 0.5), {}),
    "tree_counts": ((HIST, 2), {}),
    "tree_level_epsilons": ((1.0, 3, [1.0, 2.0, 3.0, 4.0]), {}),
    "noisy_tree": ((HIST, 1.0, 4), {"split": [1.0, 1.0, 2.0], "size": 2, "rng": 0}),
    "tree_answer": ((TREE, RANGES, 2), {}),
    "consistent_tree": ((TREE, 2), {"split": [1.0, 1.0, 1.0, 1.0, 2.0]}),
    "tree_range_variance": ((RANGES, 1.0, 4, 2), {"consistent": True}),
    "tree_width_variance": ((np.array([1, 5, 16]), 1.0, 4, 2), {"statistic": "max"}),
    "MWEMRun": ((RUN.synthetic, RUN.last, RUN.selected, RUN.measurements, RUN.select_epsilons,
                 RUN.measure_epsilons, RUN.max_errors, RUN.epsilon), {}),
    "mwem": ((HIST, QUERIES, 1.0, 3, 1), {"rng": 0}),
    "mwem_budget": ((1.0, 4), {}),
    "max_query_error": ((RUN.synthetic, HIST, QUERIES), {}),
    "postprocess_histogram": ((HIST - 30.0,), {}),
    "sample_synthetic": ((HIST - 30.0, 50), {"rng": 0}),
    "sample_from_marginals": ((HIST, np.array([3.0, -1.0, 2.0]), 50), {"rng": 0}),
    "marginal_synthesis_expectation": ((HIST, np.array([3.0, 1.0]), 2, 9, 1, 100), {}),
    "correlation_lost": ((R.example_age_table(1000, 16), 3, 12, 1), {}),
    "project_to_total": ((np.array([3.0, -1.0, 2.5]), 4.0, np.array([1.0, 2.0, 0.5])), {}),
    "TopDownResult": ((TD.true_counts, TD.noisy_counts, TD.estimates, TD.level_rho, TD.level_sigma, TD.noisy_rmse,
                       TD.topdown_rmse), {}),
    "topdown": ((R.example_geography(), 0.5), {"split": [1.0, 2.0, 3.0], "rng": 0}),
}

globals().update(contract_tests(R, BASELINES))


# ---------------------------------------------------------------------------------- the caps name themselves
@pytest.mark.parametrize("call, message", [
    (lambda: R.noisy_histogram(np.zeros(4097), 1.0), r"hist has 4097 cells, which is not allowed: must have at most "
                                                     r"4096"),
    (lambda: R.noisy_histogram(np.zeros(4096), 1.0, size=5000), r"size·bins = 20480000 is not allowed: must be <= "
                                                                r"10000000"),
    (lambda: R.range_query_matrix(np.tile([0, 1], (10_001, 1)), 10), r"ranges has 10001 ranges, which is not "
                                                                     r"allowed: must have at most 10000"),
    (lambda: R.tree_width_variance(1, 1.0, 13), r"depth = 13 is not allowed: must be an integer >= 1 and <= 12"),
    (lambda: R.tree_width_variance(1, 1.0, 12, 3), r"b\^L = 3\^12 = 531441 is not allowed: must be <= 4096"),
    (lambda: R.tree_range_variance([[0, 1]], 1.0, 11, consistent=True), r"the cells b\^L = 2048 is not allowed: "
                                                                        r"must be <= 1024"),
    (lambda: R.mwem(np.ones(4096), np.ones((1000, 4096)), 1.0, 1000), r"the work of rounds = 1000 .* must be <= "
                                                                      r"300000000"),
    (lambda: R.mwem(np.ones(4), np.ones((1, 4)), 1.0, 1001), r"rounds = 1001 is not allowed: must be an integer >= 1 "
                                                             r"and <= 1000"),
    (lambda: R.sample_synthetic(np.ones(4), 10**7 + 1), r"n_records = 10000001 is not allowed"),
    (lambda: R.topdown(np.ones((101, 2)), 1.0), r"the states of counties = 101 is not allowed: must be <= 100"),
])
def test_size_caps_name_their_cap(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_shapes_that_are_not_a_tree_are_refused_with_the_rule():
    with pytest.raises(ValueError, match=r"hist has 12 cells, which is not allowed: must be a power b\^L"):
        R.tree_counts(np.ones(12))
    with pytest.raises(ValueError, match=r"noisy has 8 nodes, which is not allowed: must be \(b\^\(L\+1\) − 1\)"):
        R.consistent_tree(np.ones(8))
    with pytest.raises(ValueError, match=r"split = .* must be 4 numbers"):
        R.noisy_tree(np.ones(8), 1.0, split=[1.0, 1.0])


def test_bad_ranges_and_queries_name_the_parameter():
    with pytest.raises(ValueError, match=r"^ranges is not allowed: must hold integer pairs \(lo, hi\) with "
                                         r"0 <= lo < hi"):
        R.range_answers(np.ones(4), [[2, 2]])
    with pytest.raises(ValueError, match=r"^queries is not allowed: entries must lie in \[0, 1\]"):
        R.mwem(np.ones(4), [[2.0, 0.0, 0.0, 0.0]], 1.0, 2)
    with pytest.raises(ValueError, match=r"^hist is not allowed: its counts must add up to n > 0"):
        R.mwem(np.zeros(4), [[1.0, 0.0, 0.0, 0.0]], 1.0, 2)


# ---------------------------------------------------------------------------------- keyword arguments (not swept)
GEO = R.example_geography()


@pytest.mark.parametrize("call, message", [
    (lambda: R.noisy_tree(HIST, 1.0, split=[np.nan] * 5), r"^split contains 5 NaN"),
    (lambda: R.consistent_tree(TREE, split=[0.0, 1.0, 1.0, 1.0, 1.0]), r"^split = .* must be 5 numbers in \(0, 1e"),
    (lambda: R.topdown(GEO, 1.0, split=[1.0, 1.0]), r"^split = .* must be 3 numbers"),
    (lambda: R.tree_range_variance(RANGES, 1.0, 4, consistent="yes"), r"^consistent = 'yes' is not allowed"),
    (lambda: R.tree_width_variance(1, 1.0, 4, consistent=1), r"^consistent = 1 is not allowed"),
    (lambda: R.tree_width_variance(1, 1.0, 4, statistic="median"), r"^statistic = 'median' is not allowed"),
    (lambda: R.noisy_histogram(HIST, 1.0, size=-1), r"^size = -1 is not allowed"),
    (lambda: R.answer_by_composition(HIST, RANGES, 1.0, size=1e308), r"^size = 1e\+308 is not allowed"),
    (lambda: R.sample_synthetic(HIST, 3, rng="x"), r"^rng = 'x' is not allowed"),
    (lambda: R.mwem(HIST, QUERIES, 1.0, 2, rng=np.random.RandomState(0)), r"^rng = RandomState"),
    (lambda: R.topdown(GEO, 1.0, integer="no"), r"^integer = 'no' is not allowed"),
])
def test_keyword_arguments_are_validated_and_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()
