"""dpviz.deployments: every record cites the bibliography, unknown values say so, the census conversion is checked
against an independent evaluation of the zCDP → (ε, δ) bound, the one census story (lessons 09 and 15) against its
parts, and RAPPOR's ε∞ against a brute-force ratio over the permanent randomized response's outputs."""

from __future__ import annotations

import itertools
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
    assert "Tang et al. 2017 found" in by_key["tang2017privacy"].says  # their analysis, not Apple's statement
    assert "not a guarantee Apple states" in by_key["tang2017privacy"].says
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


def test_the_census_story_composes_in_zcdp_and_beats_adding_epsilons():
    c = D.census_2020()
    assert (c["rho_persons"], c["rho_units"]) == (2.56, 0.07) and c["rho_total"] == pytest.approx(2.63, abs=1e-15)
    # the Bureau's published per-file values, and their sum by basic composition
    assert (c["bureau_persons"], c["bureau_units"], c["bureau_sum"]) == (17.14, 2.47, 19.61)
    # each ε is the CKS conversion: δ(ε) ≤ 10⁻¹⁰ there and not 0.01 below (independent grid evaluation)
    for part in ("persons", "units", "total"):
        rho, eps = c[f"rho_{part}"], c[f"eps_{part}"]
        assert _cks_delta(rho, eps) <= 1e-10 * (1 + 1e-6) < _cks_delta(rho, eps - 0.01)
    # composing ρ first, then converting, beats adding the two ε: ρ + 2√(ρL) is concave in ρ
    assert c["eps_total"] < c["eps_sum"] < c["bureau_sum"]
    assert c["eps_total"] < c["bureau_persons"] + c["bureau_units"]
    rp, ru, lid = 2.56, 0.07, math.log(1e10)
    assert math.sqrt((rp + ru) * lid) < math.sqrt(rp * lid) + math.sqrt(ru * lid)
    # the Gaussian reading μ = √(2ρ) and the advantage 2Φ(μ/2) − 1
    assert c["mu_persons"] == pytest.approx(math.sqrt(5.12), rel=1e-15)
    assert c["advantage_persons"] == pytest.approx(0.7421009647, abs=1e-10)
    assert c["loss_sd_persons"] == pytest.approx((c["eps_persons"] - 2.56) / math.sqrt(5.12), rel=1e-14)
    # at another δ the Bureau states nothing
    other = D.census_2020(1e-6)
    assert other["bureau_sum"] is None and other["eps_total"] == pytest.approx(13.79, abs=0.005)


def test_the_census_records_are_the_census_story():
    c = D.census_2020()
    recs = [d for d in D.DEPLOYMENTS if d.key == "abowd2022topdown"]
    assert [r.epsilon for r in recs] == [c["eps_persons"], c["eps_total"]]
    assert [r.rho for r in recs] == [c["rho_persons"], c["rho_total"]]
    assert "17.14" in recs[0].says and "19.61" in recs[1].says


def _rappor_prr_epsilon_brute_force(h: int, f: float) -> float:
    """max over outputs of ln P[B′ | v]/P[B′ | v′] for two values whose Bloom filters differ in 2h bits (v sets h
    bits, v′ another h): each bit is kept with probability 1 − f and replaced by a fair coin with probability f."""
    one_if_one, one_if_zero = 1 - f / 2, f / 2
    best = -math.inf
    for out in itertools.product((0, 1), repeat=2 * h):
        pv = pv2 = 1.0
        for i, b in enumerate(out):
            bit_v, bit_v2 = (1, 0) if i < h else (0, 1)
            pv *= (one_if_one if bit_v else one_if_zero) if b else (1 - (one_if_one if bit_v else one_if_zero))
            pv2 *= (one_if_one if bit_v2 else one_if_zero) if b else (1 - (one_if_one if bit_v2 else one_if_zero))
        best = max(best, math.log(pv / pv2))
    return best


@pytest.mark.parametrize("h, f", [(1, 0.5), (2, 0.5), (2, 0.25), (4, 0.75), (3, 1.0)])
def test_rappor_epsilon_infinity_is_the_worst_output_ratio(h, f):
    assert D.rappor_epsilon_infinity(h, f) == pytest.approx(_rappor_prr_epsilon_brute_force(h, f), rel=1e-12,
                                                            abs=1e-15)


def test_rappor_record_is_computed_at_chromes_setting():
    (rec,) = [d for d in D.DEPLOYMENTS if d.key == "erlingsson2014rappor"]
    assert D.RAPPOR_CHROME == (2, 0.5)
    assert rec.epsilon == pytest.approx(4 * math.log(3), rel=1e-14) and rec.local and rec.delta == 0.0
    assert "Thm 1" in rec.says and "h = 2" in rec.says


@pytest.mark.parametrize("field, value", [("organisation", math.nan), ("product", ""), ("unit", None),
                                          ("says", 1.0), ("local", 1), ("key", ["dwork2014algorithmic"])])
def test_records_refuse_fields_of_the_wrong_kind(field, value):
    base = dict(organisation="X", product="Y", epsilon=1.0, delta=0.0, unit="user", horizon="day", says="s",
                key="dwork2014algorithmic")
    base[field] = value
    with pytest.raises(ValueError, match=field):
        D.Deployment(**base)


def test_rappor_at_a_subnormal_f_is_finite_not_a_math_domain_error():
    # f/2 underflowed to 0 and ln(0) raised "math domain error"
    assert D.rappor_epsilon_infinity(1, 5e-324) == pytest.approx(2 * (math.log(2) - math.log(5e-324)), rel=1e-14)
