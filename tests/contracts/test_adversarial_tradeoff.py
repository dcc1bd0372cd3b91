"""Adversarial-input sweep of :mod:`dpviz.tradeoff` (the (ε, δ)-DP region of lesson 03's hypothesis-testing view).

Every public callable of ``dpviz.tradeoff.__all__`` gets one valid baseline call; :func:`_adversarial.sweep` replaces
each positional argument in turn by 16 hostile values (warnings are errors); only a ValueError/TypeError with a
message, or a NaN-free result, passes. The tests after the sweep check the answers at extreme but valid values.
"""

from __future__ import annotations

from _adversarial import contract_tests

import dpviz.tradeoff as T

BASELINES = {
    "dp_region_lower_bound": (([0.0, 0.25, 1.0], 1.0, 1e-3), {}),
    "dp_region_kink": ((1.0, 1e-3), {}),
}

globals().update(contract_tests(T, BASELINES))


# ------------------------------------------------------------------------------------------------ answers at extremes


def test_the_region_at_extreme_epsilon_is_the_closed_form():
    import numpy as np

    # ε = 1e308: e^ε overflows, the region is β ≥ 0 except at α = 0, where β ≥ 1 − δ
    assert T.dp_region_lower_bound([0.0, 1e-300, 0.5, 1.0], 1e308, 0.25).tolist() == [0.75, 0.0, 0.0, 0.0]
    assert T.dp_region_kink(1e308, 0.25) == 0.0
    # ε = 5e-324 (e^ε = 1 in double precision): perfect privacy up to δ, β ≥ 1 − δ − α
    a = np.array([0.0, 0.3, 0.99])
    assert T.dp_region_lower_bound(a, 5e-324, 0.0).tolist() == (1.0 - a).tolist()
    assert T.dp_region_kink(5e-324, 0.0) == 0.5
