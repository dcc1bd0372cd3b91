"""Adversarial-input sweep of :mod:`dpviz.conversions` (the zCDP → (ε, δ) conversion of lessons 09 and 15), each
method of each conversion swept."""

from __future__ import annotations

from _adversarial import contract_tests

import dpviz.conversions as C

BASELINES = {
    "pure_to_zcdp": ((1.0,), {}),
    "zcdp_to_approx_dp": ((2.63, 1e-10, "cks"), {}),
    "zcdp_delta": ((2.63, [0.0, 17.0], "cks"), {}),
    "rdp_to_approx_dp": (([2.0, 4.0], [0.5, 1.0], 1e-5, "improved"), {}),
    "rdp_delta": (([2.0, 4.0], [0.5, 1.0], 1.0, "improved"), {}),
}

METHODS = {
    "zcdp_to_approx_dp(simple)": (C.zcdp_to_approx_dp, (2.63, 1e-6, "simple"), {}),
    "zcdp_delta(simple, scalar)": (C.zcdp_delta, (0.5, 4.7, "simple"), {}),
    "rdp_to_approx_dp(classic)": (C.rdp_to_approx_dp, ([2.0, 4.0], [0.5, 1.0], 1e-5, "classic"), {}),
    "rdp_delta(classic)": (C.rdp_delta, ([2.0, 4.0], [0.5, 1.0], 1.0, "classic"), {}),
}

globals().update(contract_tests(C, BASELINES, methods=METHODS))
