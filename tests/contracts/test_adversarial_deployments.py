"""Adversarial-input sweep of :mod:`dpviz.deployments` (lesson 09): the record class field by field, the census
story and RAPPOR's ε∞."""

from __future__ import annotations

from _adversarial import contract_tests

import dpviz.deployments as D

_FIELDS = ("organisation", "product", "epsilon", "delta", "unit", "horizon", "says", "key", "rho", "local")
_CENSUS = D.DEPLOYMENTS[0]

BASELINES = {
    "Deployment": (tuple(getattr(_CENSUS, f) for f in _FIELDS), {}),
    "census_2020": ((1e-10, "cks"), {}),
    "rappor_epsilon_infinity": ((2, 0.5), {}),
    "published": ((), {}),
}

METHODS = {"census_2020(simple)": (D.census_2020, (1e-6, "simple"), {})}

globals().update(contract_tests(D, BASELINES, methods=METHODS))
