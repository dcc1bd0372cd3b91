"""Adversarial-input sweep of :mod:`dpviz.classpoll` (the class view's numerics: buckets, local and central
releases, the class budget, the game's pooled bound).

Every public callable of ``dpviz.classpoll.__all__`` and every method that takes input gets one valid baseline
call with its optional arguments written positionally (``rng`` included), so that :func:`_adversarial.sweep`
replaces each by each of 16 hostile values (warnings are errors); only a ValueError/TypeError with a message, or a
NaN-free result, passes. The tests after the sweep pin the limits of the declared ranges.
"""

from __future__ import annotations

import numpy as np
import pytest
from _adversarial import contract_tests

import dpviz.classpoll as C

_CHOICE = C.Buckets.categorical(["a", "b", "c"])
_NUMERIC = C.Buckets.numeric([0.0, 1.0, 2.0, 3.0])
_RELEASE = C.central_release([3, 1, 4], 1.0, 0)
_LOCAL = C.local_estimate([0, 1, 2, 2], _CHOICE, 1.0)
_BUDGET = C.ClassBudget(4.0, (1.0,))

BASELINES = {
    "Buckets": ((("a", "b"), None), {}),
    "randomize": ((1, _CHOICE, 1.0, 0), {}),
    "report_law": ((1, _CHOICE, 1.0), {}),
    "LocalEstimate": (((1.0, 2.0), (0.5, 0.5), 3, 1.0, "k-RR"), {}),
    "local_estimate": ((np.array([0, 1, 2, 2]), _CHOICE, 1.0), {}),
    "CentralRelease": (((1, -2), 3, 1.0, "dlap"), {}),
    "central_release": ((np.array([3, 1, 4]), 1.0, 0), {}),
    "central_scale": ((1.0,), {}),
    "noise_halfwidth": ((2.0, 0.95), {}),
    "ClassBudget": ((4.0, (1.0, 0.5)), {}),
    "BudgetOutcome": ((_BUDGET, _RELEASE, False, ""), {}),
    "pooled_epsilon_bound": ((25, 30, 28, 31), {}),
    "pooled_bound_ceiling": ((30,), {}),
}

METHODS = {
    "Buckets.categorical": (C.Buckets.categorical, (["x", "y"],), {}),
    "Buckets.numeric": (C.Buckets.numeric, ([0.0, 1.0, 2.0], ("lo", "hi")), {}),
    "Buckets.bucket_of[categorical]": (_CHOICE.bucket_of, ("b",), {}),
    "Buckets.bucket_of[numeric]": (_NUMERIC.bucket_of, (1.5,), {}),
    "LocalEstimate.interval": (_LOCAL.interval, (0.95,), {}),
    "CentralRelease.interval": (_RELEASE.interval, (0.95,), {}),
    "ClassBudget.accountant": (_BUDGET.accountant, (0.5,), {}),
    "ClassBudget.allows": (_BUDGET.allows, (1.0,), {}),
    "ClassBudget.charge": (_BUDGET.charge, (1.0,), {}),
    "ClassBudget.release": (_BUDGET.release, (np.array([3, 1, 4]), 1.0, 0, _RELEASE), {}),
    "pooled_epsilon_bound[delta, confidence]": (
        lambda delta, confidence: C.pooled_epsilon_bound(25, 30, 28, 31, delta=delta, confidence=confidence),
        (1e-5, 0.9), {}),
    "pooled_bound_ceiling[delta, confidence]": (
        lambda delta, confidence: C.pooled_bound_ceiling(30, delta=delta, confidence=confidence), (1e-5, 0.9), {}),
}

globals().update(contract_tests(C, BASELINES, methods=METHODS))


# ---------------------------------------------------------------------------------- the declared limits
@pytest.mark.parametrize("eps", [0.0009, 100.1, 1e308, 5e-324])
def test_epsilon_is_refused_outside_its_declared_range_naming_it(eps):
    for call in (lambda: C.randomize(0, _CHOICE, eps, 0), lambda: C.report_law(0, _CHOICE, eps),
                 lambda: C.local_estimate([0, 1], _CHOICE, eps), lambda: C.central_release([1, 2], eps, 0),
                 lambda: C.central_scale(eps), lambda: _BUDGET.charge(eps)):
        with pytest.raises(ValueError, match=r"^epsilon = .* is not allowed: must be a number in \[0.001, 100\]"):
            call()


def test_the_extreme_allowed_epsilons_give_finite_answers():
    """ε = 0.001: scale 2000, half-width about 2000·ln(40) = 7.4e3; ε = 100: the noise is almost surely 0."""
    assert C.noise_halfwidth(C.central_scale(0.001), 0.95) == pytest.approx(2000 * np.log(2 / 0.05 / 2), rel=1e-3)
    assert C.noise_halfwidth(C.central_scale(100.0), 0.95) == 0
    est = C.local_estimate([0, 1, 2], _CHOICE, 0.001)
    assert np.all(np.isfinite(est.counts)) and np.all(np.isfinite(est.standard_errors))
    assert C.local_estimate([0, 1, 2], _CHOICE, 100.0).counts == pytest.approx((1.0, 1.0, 1.0), rel=1e-12)


def test_noise_halfwidth_at_the_extreme_levels():
    """level → 1: the tail 2r^{m+1}/(1 + r) must fall below 1 − level ≈ 1.1e-16: m ≈ scale·ln(2/1.1e-16)."""
    m = C.noise_halfwidth(2000.0, 1 - 2**-53)
    assert 2000 * 36 < m < 2000 * 38
    assert C.noise_halfwidth(2.0, 5e-324) == 0
    with pytest.raises(ValueError, match=r"^scale = 2001.0 is not allowed"):
        C.noise_halfwidth(2001.0, 0.95)


def test_the_size_caps_are_named():
    with pytest.raises(ValueError, match=r"^counts contains 1000001.0, which is not allowed: must be integers in "
                                         r"0..1000000"):
        C.central_release([1_000_001, 0], 1.0, 0)
    with pytest.raises(ValueError, match=r"^rounds_per_world = 1000001 is not allowed"):
        C.pooled_bound_ceiling(1_000_001)
    with pytest.raises(ValueError, match=r"^n = 1000001 is not allowed"):
        C.LocalEstimate((1.0, 2.0), (0.5, 0.5), 1_000_001, 1.0)
    with pytest.raises(ValueError, match=r"^standard_errors has 3 entries.*must hold 2"):
        C.LocalEstimate((1.0, 2.0), (0.5, 0.5, 0.5), 3, 1.0)
    with pytest.raises(ValueError, match=r"^counts is not allowed: must hold integers"):
        C.CentralRelease((1.5, 2), 3, 1.0)
