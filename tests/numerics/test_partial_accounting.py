"""Tests of dpviz.partial.accounting and .interpretation (paper 001, digest spec/partial-dp.md)."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz.conversions import zcdp_to_approx_dp
from dpviz.partial import (
    PerAttributeGuarantee,
    Release,
    ReleaseLedger,
    attribute_weighted_epsilon,
    bit_recovery_probability,
    census_2020_example,
    check_eps0_le_eps,
    graph_metric,
    hamming_graph_weights,
    mutual_information_bound,
    parallel_composition,
    posterior_tv_bound,
    rounding_reveals_probability,
    sequential_composition,
    targeted_pure_epsilon,
    targeted_rho,
    whole_record_approx_dp,
    whole_record_delta,
    whole_record_pure_epsilon,
    whole_record_rho,
    zcdp_epsilon_curve,
)


# ------------------------------------------------------------------ Proposition 8 (digest Appendix A fixtures)
def test_prop8_fixtures():
    assert whole_record_pure_epsilon(0.5, 10) == 5.0
    assert whole_record_rho(0.5, 10) == 12.5
    # δ̃ = exp(−(ε̃ − ρ)²/(2 d² ε0²)) written out independently
    for eps_t, expected in [(15, 0.8825), (20, 0.3247), (25, 0.04394)]:
        closed = math.exp(-((eps_t - 12.5) ** 2) / (2 * 100 * 0.25))
        assert whole_record_delta(0.5, 10, eps_t) == pytest.approx(closed, rel=1e-12)
        assert whole_record_delta(0.5, 10, eps_t) == pytest.approx(expected, rel=5e-4)
    # CKS is never looser than the simple conversion
    assert whole_record_delta(0.5, 10, 20, method="cks") <= whole_record_delta(0.5, 10, 20)


def test_group_privacy_squares_for_zcdp():
    # ρ for k attributes is ½(kε0)²: doubling k quadruples ρ but doubles the pure ε (pitfall P2)
    assert targeted_rho(0.3, 4) == pytest.approx(4 * targeted_rho(0.3, 2))
    assert targeted_pure_epsilon(0.3, 4) == pytest.approx(2 * targeted_pure_epsilon(0.3, 2))
    g = PerAttributeGuarantee(0.2, 8, "pure")
    assert g.record_epsilon() == pytest.approx(1.6)
    assert g.record_rho() == pytest.approx(0.5 * 1.6**2)
    # pure guarantee: (ε,δ) never worse than the pure k·ε0
    assert g.change_approx_dp(8, 1e-6) <= 1.6 + 1e-12
    with pytest.raises(ValueError, match="k"):
        g.change_rho(9)
    with pytest.raises(ValueError, match="zcdp"):
        PerAttributeGuarantee(0.2, 8, "zcdp").change_epsilon(1)


def test_whole_record_approx_dp_both_methods():
    simple = whole_record_approx_dp(0.5, 10, 1e-6, method="simple")
    assert simple == pytest.approx(12.5 + 2 * math.sqrt(12.5 * math.log(1e6)), rel=1e-12)
    assert whole_record_approx_dp(0.5, 10, 1e-6, method="cks") < simple


@settings(max_examples=50, deadline=None)
@given(st.floats(0.01, 2.0), st.integers(1, 100))
def test_prop8_relations(eps0, d):
    assert whole_record_rho(eps0, d) == pytest.approx(0.5 * whole_record_pure_epsilon(eps0, d) ** 2)
    assert whole_record_rho(eps0, d + 1) > whole_record_rho(eps0, d)


def test_eps_curve_matches_exact_conversion():
    rho = np.array([0.01, 0.5, 1.02, 2.63, 12.5, 80.0])
    for method in ("cks", "simple"):
        curve = zcdp_epsilon_curve(rho, 1e-6, method=method)
        exact = np.array([zcdp_to_approx_dp(r, 1e-6, method=method) for r in rho])
        # the grid version is an upper bound on the exact CKS ε, within 1e-3 relative
        assert np.all(curve >= exact - 1e-9)
        assert np.allclose(curve, exact, rtol=1e-3)
    assert zcdp_epsilon_curve(np.array([0.0]), 1e-6)[0] == 0.0


# ------------------------------------------------------------------ Census (Section 7 of 001)
def test_census_numbers():
    led = census_2020_example()
    assert led.whole_record_rho() == pytest.approx(2.63, abs=1e-12)
    assert led.change_rho({"race", "ethnicity"}) == pytest.approx(1.02, abs=1e-12)
    e_all = led.change_approx_dp(led.attributes, 1e-6)
    e_re = led.change_approx_dp({"race", "ethnicity"}, 1e-6)
    # the paper prints (13.8, 1e-6) and (7.85, 1e-6); digest: 13.792 and 7.856 (CKS)
    assert round(e_all, 1) == 13.8 and e_all == pytest.approx(13.792, abs=1e-3)
    assert math.floor(e_re * 100) / 100 == 7.85 and e_re == pytest.approx(7.856, abs=1e-3)
    # the simple conversion gives 14.69 and 8.53 (digest §4): why the paper's numbers need CKS (pitfall P3)
    assert led.change_approx_dp(led.attributes, 1e-6, method="simple") == pytest.approx(14.69, abs=0.01)
    assert led.change_approx_dp({"race", "ethnicity"}, 1e-6, method="simple") == pytest.approx(8.53, abs=0.01)


def test_census_ledger_totals_are_the_one_census_story():
    # lessons 09 and 15 tell one story: the ledger's totals are those of dpviz.deployments.census_2020
    from dpviz.deployments import CENSUS_RHO_PERSONS, CENSUS_RHO_UNITS, census_2020
    led = census_2020_example()
    units = [r for r in led.releases if "occupancy" in r.attributes]
    assert [r.rho for r in units] == [CENSUS_RHO_UNITS]
    assert math.fsum(r.rho for r in led.releases if r not in units) == pytest.approx(CENSUS_RHO_PERSONS, abs=1e-14)
    story = census_2020(1e-6)
    assert led.change_approx_dp(led.attributes, 1e-6) == pytest.approx(story["eps_total"], rel=1e-12)


def test_ledger_matches_brute_force_over_all_subsets():
    led = census_2020_example()
    inc = led.incidence()
    rhos = np.array([r.rho for r in led.releases])
    attrs = led.attributes
    for k in range(len(attrs) + 1):
        for S in itertools.combinations(range(len(attrs)), k):
            touched = inc[:, list(S)].any(axis=1) if S else np.zeros(len(rhos), bool)
            assert led.change_rho({attrs[j] for j in S}) == pytest.approx(rhos[touched].sum(), abs=1e-12)
    # monotone and subadditive
    a, b = {"race"}, {"hhgq"}
    assert led.change_rho(a | b) <= led.change_rho(a) + led.change_rho(b) + 1e-12
    assert led.change_rho(a) <= led.change_rho(a | b)
    assert led.change_epsilon_zcdp(a) == pytest.approx(math.sqrt(2 * led.change_rho(a)))


def test_ledger_disjoint_releases_per_attribute_cost_is_max():
    led = ReleaseLedger(("a", "b", "c"), (Release("A", {"a"}, 0.3), Release("B", {"b"}, 0.5),
                                         Release("C", {"c"}, 0.2)))
    assert max(led.per_attribute_rho().values()) == pytest.approx(0.5)
    assert led.whole_record_rho() == pytest.approx(1.0)


@pytest.mark.parametrize("bad, match", [
    (lambda: census_2020_example().change_rho({"shoe size"}), "shoe size"),
    (lambda: ReleaseLedger(("a",), (Release("A", {"b"}, 0.1),)), "attributes"),
    (lambda: Release("A", set(), 0.1), "attributes"),
    (lambda: Release("A", {"a"}, -0.1), "rho"),
    (lambda: ReleaseLedger((), ()), "attributes"),
    (lambda: check_eps0_le_eps(2.0, 1.0), "eps0"),
    (lambda: whole_record_rho(0.5, 0), "d"),
    (lambda: whole_record_rho(-0.5, 3), "eps0"),
    (lambda: whole_record_approx_dp(0.5, 3, 0.0), "delta"),
    (lambda: sequential_composition([1.0, -1.0]), "negative"),
    (lambda: PerAttributeGuarantee(0.5, 3, "approx"), "kind"),
])
def test_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        bad()


def test_eps0_le_eps_accepts_valid_pairs():
    assert check_eps0_le_eps(0.5, 1.0) is None and check_eps0_le_eps(1.0, 1.0) is None
    with pytest.raises(ValueError, match="eps0 = 1.0001"):
        check_eps0_le_eps(1.0001, 1.0)


# ------------------------------------------------------------------ Lemmas 7, 9, 10
def test_sequential_and_parallel():
    assert sequential_composition([0.3, 0.4], "zcdp") == pytest.approx(0.5)
    assert sequential_composition([0.3, 0.4], "pure") == pytest.approx(0.7)
    r = parallel_composition([0.1, 0.2, 0.3], "pure")
    assert (r.eps0, r.record, r.prop8_record) == (0.3, pytest.approx(0.6), pytest.approx(0.9))
    z = parallel_composition([0.5] * 16, "zcdp")
    # ρ_record = ½·d·ε0² (ε = √d·ε0) versus Proposition 8's ½d²ε0²
    assert z.record == pytest.approx(0.5 * 16 * 0.25) and z.prop8_record == pytest.approx(0.5 * 256 * 0.25)


def test_lemma7_graph_metric_equals_weighted_hamming():
    sizes, w = (2, 3, 2), [0.1, 0.7, 0.25]
    recs, W = hamming_graph_weights(sizes, w)
    M = graph_metric(W)
    for u in range(len(recs)):
        for v in range(len(recs)):
            assert M[u, v] == pytest.approx(attribute_weighted_epsilon(recs[u], recs[v], w), abs=1e-12)
    # triangle inequality of the metric
    for u, v, x in itertools.product(range(len(recs)), repeat=3):
        assert M[u, v] <= M[u, x] + M[x, v] + 1e-12


def test_lemma7_shortcut_edge_is_used():
    # a heavy direct edge is bypassed by a cheaper two-edge path
    W = np.array([[0, 5, 1], [5, 0, 1], [1, 1, 0]], dtype=float)
    assert graph_metric(W)[0, 1] == 2.0
    with pytest.raises(ValueError, match="symmetric"):
        graph_metric([[0, 1], [2, 0]])


# ------------------------------------------------------------------ interpretation (Section 7)
def test_interpretation_fixtures():
    assert bit_recovery_probability(10.0) == pytest.approx(0.9999546, abs=1e-7)
    assert rounding_reveals_probability(10.0) == pytest.approx(0.9932621, abs=1e-7)
    assert rounding_reveals_probability(10.0, sensitivity=2.0) == pytest.approx(1 - math.exp(-2.5))
    assert posterior_tv_bound(0.05, 3) == pytest.approx(math.exp(0.3) - 1)
    np.testing.assert_allclose(bit_recovery_probability(0.5, np.arange(4)),
                               [math.exp(k * 0.5) / (1 + math.exp(k * 0.5)) for k in range(4)])


def test_mutual_information_granularity():
    e0, d = 0.2, 6
    singles = mutual_information_bound(e0, [1] * d)
    one_block = mutual_information_bound(e0, [d])
    assert singles == pytest.approx(0.5 * e0**2 * d)
    assert one_block == pytest.approx(0.5 * (d * e0) ** 2)  # = the whole-record zCDP bound
    assert mutual_information_bound(e0, [2, 2, 2]) == pytest.approx(0.5 * e0**2 * 12)
    with pytest.raises(ValueError, match="block_sizes"):
        mutual_information_bound(e0, [0, 2])
