"""Adversarial sweep of :mod:`dpviz.plots.partial`, lesson 15's figures, with the shared contract: every builder
refuses a hostile argument by name (or draws without a NaN or a warning)."""

from __future__ import annotations

from _adversarial import contract_tests

import dpviz.partial as PD
import dpviz.plots.partial as P

LEDGER = PD.census_2020_example()
X, _PLANTED, _COUNTS = PD.planted_data(2000, 8, 5, 0)
_PARAMS = PD.heavy_hitter_params(1.0, 0.1, 2000)
HH = PD.priv_heavy_hitter(X, _PARAMS.lam, _PARAMS.tau, _PARAMS.mu, rng=0)

BASELINES = {
    "record_epsilon_figure": ((0.5, 10, 2, 1e-6), {}),
    "rho_growth_figure": ((0.5, 10), {}),
    "census_figure": ((LEDGER, {"race"}), {}),
    "census_compare_figure": ((LEDGER, {"race"}, 1e-6), {}),
    "rounding_figure": ((1.0,), {}),
    "sparse_attack_figure": ((1.0,), {}),
    "heavy_hitter_tree_figure": ((HH,), {}),
    "heavy_hitter_found_figure": ((X, HH, 0.1), {}),
    "users_needed_figure": ((1.0, 0.1, 0.1, 8), {}),
    "projection_error_figure": ((2, 1000, 1.0), {}),
    "mwem_tradeoff_figure": ((1.0, 1000, 8, 2, 4), {}),
    "mwem_T_figure": ((1.0, 1000, 8, 2, 4), {}),
    "misconception_figure": ((0.5, 2.0, 10), {}),
    "interpretation_figure": ((0.5, 10), {}),
    "planted_data": ((200, 8), {}),
}

globals().update(contract_tests(P, BASELINES))
