"""Adversarial-input sweep of :mod:`dpviz.beyond` (local and smooth sensitivity, PTR, sample-and-aggregate, DP
quantiles).

Every public callable of ``dpviz.beyond.__all__`` gets one valid baseline call with its optional arguments written
positionally, so that :func:`_adversarial.sweep` replaces each of them in turn by each of 16 hostile values (warnings
are errors); only a ValueError/TypeError with a message, or a NaN-free result, passes. The keyword-only arguments
(``rng``, ``size``, ``statistic``, ``aggregate``, ``shuffle``) and the methods of :class:`dpviz.beyond.QuantileLaw` are
swept through small named wrappers that take them positionally.

The tests after the sweep pin the caps and the refusals named in the module, with their messages.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _adversarial import contract_tests

import dpviz.beyond as B

X = [1.0, 2.0, 3.0, 7.0, 9.0]
X2 = [1.0, 2.0, 3.0, 7.5, 9.0]


def _named(fn, name):
    fn.__name__ = name
    return fn


LAW = B.dp_quantile_law(X, 0.5, 1.0, 0.0, 10.0)

BASELINES = {
    "local_sensitivity_median": ((X, 0.0, 10.0, "add_remove"), {}),
    "local_sensitivity_at_distance": ((X, 2, 0.0, 10.0), {}),
    "smooth_sensitivity_median": ((X, 0.5, 0.0, 10.0), {}),
    "SmoothSensitivityRelease": ((3.0, 4.0, 0.1, 8.0, 1.0, 1e-6, "laplace"), {}),
    "smooth_sensitivity_release_parameters": ((X, 1.0, 1e-6, 0.0, 10.0, "laplace"), {}),
    "smooth_sensitivity_release": ((X, 1.0, 0.0, 0.0, 10.0, "cauchy"), {"rng": 0, "size": 3}),
    "LocalSensitivityLeak": ((0.5, 0.45, 0.3, 0.25, 0.3, 0.25, 1.0, math.inf, 0.001), {}),
    "local_sensitivity_leak": ((X, X2, 1.0, 0.0, 10.0), {}),
    "local_sensitivity_privacy_loss": (([0.0, 5.0], X, X2, 1.0, 0.0, 10.0), {}),
    "ptr_distance_median": ((X, 5.0, 0.0, 10.0), {}),
    "ptr_pass_probability": (([0, 3, math.inf], 1.0, 1e-6), {}),
    "PTRResult": ((True, 3.5, 2.0, 1.0, 13.8, 0.5, 1.0, 1e-6), {}),
    "propose_test_release": ((X, 5.0, 1.0, 1e-3, 0.0, 10.0), {"rng": 0}),
    "SampleAggregateResult": ((np.array([0.5, 0.6]), 0.55, "mean", 0.5, 1.0), {}),
    "sample_and_aggregate": ((np.linspace(0.0, 1.0, 40), 4, 1.0, 0.0, 1.0), {"rng": 0}),
    "QuantileLaw": ((LAW.edges, LAW.log_probabilities), {}),
    "dp_quantile_law": ((X, 0.5, 1.0, 0.0, 10.0), {}),
    "dp_quantile": ((X, 0.5, 1.0, 0.0, 10.0), {"rng": 0, "size": 4}),
    "choose_clipping_bound": ((X, 1.0, 0.9, 0.0, 10.0), {"rng": 0}),
}

METHODS = {
    "smooth_sensitivity_release(rng, size)": (
        _named(lambda x, e, d, lo, hi, noise, rng, size: B.smooth_sensitivity_release(
            x, e, d, lo, hi, noise, rng=rng, size=size), "smooth_sensitivity_release_kw"),
        (X, 1.0, 1e-6, 0.0, 10.0, "laplace", 0, 3), {}),
    "propose_test_release(rng)": (
        _named(lambda x, b, e, d, lo, hi, rng: B.propose_test_release(x, b, e, d, lo, hi, rng=rng),
               "propose_test_release_kw"), (X, 5.0, 1.0, 1e-3, 0.0, 10.0, 0), {}),
    "sample_and_aggregate(statistic, aggregate, shuffle, rng)": (
        _named(lambda x, m, e, lo, hi, stat, agg, shuffle, rng: B.sample_and_aggregate(
            x, m, e, lo, hi, statistic=stat, aggregate=agg, shuffle=shuffle, rng=rng), "sample_and_aggregate_kw"),
        (np.linspace(0.0, 1.0, 41), 4, 1.0, 0.0, 1.0, "median", "median", True, 0), {}),
    "dp_quantile(rng, size)": (
        _named(lambda x, q, e, lo, hi, rng, size: B.dp_quantile(x, q, e, lo, hi, rng=rng, size=size),
               "dp_quantile_kw"), (X, 0.5, 1.0, 0.0, 10.0, 0, 4), {}),
    "choose_clipping_bound(rng)": (
        _named(lambda x, e, q, lo, hi, rng: B.choose_clipping_bound(x, e, q, lo, hi, rng=rng),
               "choose_clipping_bound_kw"), (X, 1.0, 0.9, 0.0, 10.0, 0), {}),
    "QuantileLaw.pdf": (LAW.pdf, ([0.5, 2.5, 10.0],), {}),
    "QuantileLaw.log_pdf": (LAW.log_pdf, ([0.5, 2.5, 10.0],), {}),
    "QuantileLaw.cdf": (LAW.cdf, ([-math.inf, 0.5, 2.5, 10.0, 11.0],), {}),
}

globals().update(contract_tests(B, BASELINES, methods=METHODS))


# ---------------------------------------------------------------------------------- caps and refusals
def test_sizes_are_capped_with_a_message_naming_the_cap():
    with pytest.raises(ValueError, match=r"len\(data\) = 10001 is not allowed: must be <= 10000 \(the cap on the "
                                         r"values of data whose smooth sensitivity"):
        B.smooth_sensitivity_median(np.zeros(10_001), 0.1, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"len\(data\) = 1000001 is not allowed: must be <= 1000000"):
        B.dp_quantile_law(np.zeros(1_000_001), 0.5, 1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"len\(data\) = 100001 is not allowed: must be <= 100000"):
        B.local_sensitivity_leak(np.zeros(100_001), np.zeros(100_001), 1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"^size = 10000001 is not allowed"):
        B.dp_quantile(X, 0.5, 1.0, 0.0, 10.0, size=10_000_001)


def test_bounds_epsilon_and_delta_are_refused_with_their_names():
    with pytest.raises(ValueError, match=r"^upper = 1.0 is not allowed: must be > lower = 1.0"):
        B.local_sensitivity_median(X, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"^epsilon = 101.0 is not allowed: must be a number in \(0, 100\]"):
        B.dp_quantile_law(X, 0.5, 101.0, 0.0, 10.0)
    with pytest.raises(ValueError, match=r"^delta = 0.0 is not allowed with noise = 'laplace'"):
        B.smooth_sensitivity_release_parameters(X, 1.0, 0.0, 0.0, 10.0, "laplace")
    with pytest.raises(ValueError, match=r"^delta = 0.1 is not allowed with noise = 'cauchy'"):
        B.smooth_sensitivity_release_parameters(X, 1.0, 0.1, 0.0, 10.0, "cauchy")
    with pytest.raises(ValueError, match=r"^data has 1 value, which is not allowed: must hold at least 2"):
        B.local_sensitivity_median([3.0], 0.0, 10.0, "add_remove")
    with pytest.raises(ValueError, match=r"^blocks = 6 is not allowed: must be <= len\(data\) = 5"):
        B.sample_and_aggregate(X, 6, 1.0, 0.0, 10.0)
    with pytest.raises(ValueError, match=r"^distance = -1.0 is not allowed: must be an integer >= 0 or \+inf"):
        B.ptr_pass_probability([0, -1], 1.0, 1e-6)
    with pytest.raises(ValueError, match=r"^distance = 0.5 is not allowed"):
        B.ptr_pass_probability(0.5, 1.0, 1e-6)


def test_a_leak_needs_neighbours():
    with pytest.raises(ValueError, match=r"^neighbour differs from data in 2 records, which is not allowed"):
        B.local_sensitivity_leak(X, [1.0, 2.0, 3.5, 7.5, 9.0], 1.0, 0.0, 10.0)
    with pytest.raises(ValueError, match=r"^neighbour has 4 values, which is not allowed"):
        B.local_sensitivity_leak(X, X[:4], 1.0, 0.0, 10.0)
    with pytest.raises(ValueError, match=r"^data has local sensitivity 0, which is not allowed here"):
        B.local_sensitivity_privacy_loss(0.5, [0.0, 0.5, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0], 1.0, 0.0, 1.0)


def test_result_objects_check_their_fields():
    with pytest.raises(ValueError, match=r"^value = None is not allowed with passed = True"):
        B.PTRResult(True, None, 2.0, 1.0, 13.8, 0.5, 1.0, 1e-6)
    with pytest.raises(ValueError, match=r"^distance = -1.0 is not allowed"):
        B.PTRResult(False, None, -1.0, 1.0, 13.8, 0.5, 1.0, 1e-6)
    with pytest.raises(ValueError, match=r"^noise = 'gauss' is not allowed: must be one of 'laplace', 'cauchy'"):
        B.SmoothSensitivityRelease(3.0, 4.0, 0.1, 8.0, 1.0, 1e-6, "gauss")
    with pytest.raises(ValueError, match=r"^log_probabilities is not allowed as given: must be a law"):
        B.QuantileLaw(np.array([0.0, 1.0, 2.0]), np.log([0.5, 0.4]))
    assert B.PTRResult(True, 1.0, math.inf, 1.0, 13.8, 1.0, 1.0, 1e-6).distance == math.inf


def test_tiny_smooth_sensitivity_is_rounded_up_never_to_zero():
    """10⁴ equal values in the middle of [0, 1] and β = 1: S* = ½e^{−β·5000}-ish is below the double range; the
    function returns the smallest positive double (an upper bound), so the release's noise is never zero."""
    x = np.full(10_000, 0.5)
    s = B.smooth_sensitivity_median(x, 1.0, 0.0, 1.0)
    assert s == 5e-324
    p = B.smooth_sensitivity_release_parameters(x, 10.0, 1e-6, 0.0, 1.0)
    assert p.scale > 0.0 and p.smooth_sensitivity > 0.0
