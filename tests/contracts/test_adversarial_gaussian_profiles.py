"""Adversarial-input sweep of :mod:`dpviz.gaussian_profiles` (lesson 03: the Gaussian's δ(ε) three ways).

Every public callable of ``dpviz.gaussian_profiles.__all__`` gets one valid baseline call; :func:`_adversarial.sweep`
replaces each positional argument in turn by 16 hostile values (warnings are errors); only a ValueError/TypeError
with a message, or a NaN-free result, passes. The size argument ``n`` is capped; the tests after the sweep check it.
"""

from __future__ import annotations

from _adversarial import contract_tests

import dpviz.gaussian_profiles as G

BASELINES = {
    "classic_gaussian_delta": (([0.0, 0.5, 2.0], 1.0, 1.0), {}),
    "gaussian_profile_curves": ((1.0, 1.0, 3.0, 7), {}),
    "clipped_sum_noise": ((100, 1.0, 1e-5, 1.0), {}),
}

METHODS = {
    "clipped_sum_noise[many]": (G.clipped_sum_noise, ([1, 10, 100], 1.0, 1e-5, 2.0), {}),
    "gaussian_profile_curves[default range]": (G.gaussian_profile_curves, (1.0, 1.0), {}),
}

globals().update(contract_tests(G, BASELINES, methods=METHODS))


# ------------------------------------------------------------------------------------------------ answers at extremes


def test_the_largest_dimension_and_extreme_epsilons_give_exact_answers():
    import math

    import dpviz.mechanisms as M

    big = G.clipped_sum_noise(G.DIMENSION.high, 1.0, 1e-5)
    assert big["l1_sensitivity"] == 1e6 and big["laplace_sd"] == math.sqrt(2.0) * 1e6
    # a huge ε: σ and b are both tiny, and the crossover stays the exact integer (capped at the largest dimension)
    r = G.clipped_sum_noise(10, 1e300, 1e-5)
    assert r["gaussian_sigma"] == M.analytic_gaussian_sigma(1e300, 1e-5)
    k = r["crossover"]
    assert 0 <= k <= G.DIMENSION.high
    assert k == G.DIMENSION.high or math.sqrt(2.0) * (math.sqrt(k + 1) / 1e300) > r["gaussian_sigma"]
    tiny_c = G.clipped_sum_noise(10, 1.0, 1e-5, 1e-300)
    assert tiny_c["l2_sensitivity"] == 1e-300 and tiny_c["crossover"] == G.clipped_sum_noise(10, 1.0, 1e-5)["crossover"]
