"""dpviz.deployments: every record cites the bibliography, unknown values say so, the census conversion is checked
against an independent evaluation of the zCDP → (ε, δ) bound."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpviz import deployments as D
from dpviz.references import REFERENCES


def _cks_delta(rho: float, eps: float) -> float:
    """δ(ε) of ρ-zCDP by Canonne, Kamath & Steinke 2020, Cor. 13, minimised over a dense grid of orders α."""
    a = 1.0 + np.logspace(-4, 3, 200_001)
    log_d = (a - 1) * (a * rho - eps) + a * np.log1p(-1 / a) - np.log(a - 1)
    return float(np.exp(log_d.min()))


def test_records_cite_the_bibliography_and_say_see_the_source_when_unknown():
    assert len(D.DEPLOYMENTS) >= 6
    for d in D.DEPLOYMENTS:
        assert d.key in REFERENCES
        assert d.unit and d.horizon and d.says
        if d.epsilon is None:
            assert d.says.endswith("value: see the source.")
    orgs = {d.organisation for d in D.DEPLOYMENTS}
    assert {"US Census Bureau", "Apple", "Google", "Microsoft", "LinkedIn", "Wikimedia Foundation"} <= orgs
    assert set(D.published()) == {d for d in D.DEPLOYMENTS if d.epsilon is not None}


@pytest.mark.parametrize("rho", [2.56, 2.63])
def test_census_epsilon_is_the_zcdp_conversion_at_delta_1e_minus_10(rho):
    (rec,) = [d for d in D.DEPLOYMENTS if d.rho is not None and abs(d.rho - rho) < 1e-12]
    assert rec.delta == 1e-10 and rec.key == "abowd2022topdown"
    # independent grid evaluation: δ(ε) ≤ 10⁻¹⁰ at the recorded ε, and > 10⁻¹⁰ a little below it
    assert _cks_delta(rho, rec.epsilon) <= 1e-10 * (1 + 1e-6)
    assert _cks_delta(rho, rec.epsilon - 0.01) > 1e-10
    # and never above the simple bound ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3)
    assert rec.epsilon <= rho + 2 * math.sqrt(rho * math.log(1e10))


def test_stated_values_are_what_the_sources_say():
    by_key = {d.key: d for d in D.DEPLOYMENTS}
    assert by_key["tang2017privacy"].epsilon == 16.0 and "per day" in by_key["tang2017privacy"].says
    assert by_key["rogers2021linkedin"].epsilon == 34.9 and by_key["rogers2021linkedin"].delta == 7e-9
    assert by_key["rogers2021linkedin"].horizon == "one month"


@pytest.mark.parametrize("kwargs, name", [
    (dict(epsilon=-1.0), "epsilon"), (dict(delta=1.5), "delta"), (dict(key="nobody2099"), "key"),
    (dict(epsilon=None, says="unknown"), "says"), (dict(rho=0.0), "rho"),
])
def test_bad_records_are_refused(kwargs, name):
    base = dict(organisation="X", product="Y", epsilon=1.0, delta=0.0, unit="user", horizon="day", says="s",
                key="dwork2014algorithmic")
    base.update(kwargs)
    with pytest.raises(ValueError, match=name):
        D.Deployment(**base)
