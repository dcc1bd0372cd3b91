"""Adversarial-input sweep of dpviz.partial (issue 12, findings 6 and 7).

Every public callable gets one valid baseline call; :func:`_adversarial.sweep` then replaces each positional argument
in turn by 16 hostile values (warnings raised as errors). Classes are swept through their constructor and through
each public method of a valid instance. Separate tests check that every size / work cap is enforced with a ValueError
that names the cap, so a client of the classroom server cannot make one call run for minutes or allocate gigabytes.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from _adversarial import call_outcome, missing_baselines, register, sweep

import dpviz.partial as PD

# ----------------------------------------------------------------------------------------------- fixtures

_rng = np.random.default_rng(0)
X8 = _rng.integers(0, 2, size=(60, 8)).astype(np.uint8)
X8[:30] = [1, 0, 1, 1, 0, 0, 1, 0]
X4 = _rng.integers(0, 2, size=(40, 4)).astype(np.uint8)
X4b = X4.copy()
X4b[0, 1] ^= 1
Y60 = (_rng.random(60) < 0.5).astype(np.uint8)
PM = _rng.choice([-1.0, 1.0], size=(30, 2))
YPM = np.where(PM[:, 0] >= 0, 1.0, -1.0)
W3 = np.array([[1.0, 0.0], [-1.0, 0.0], [0.5, 0.5]])
Q4 = np.asarray(PD.kway_query_matrix(4, 2))
PARAMS = PD.heavy_hitter_params(1.0, 0.1, 60)
HH = PD.priv_heavy_hitter(X8, PARAMS.lam, PARAMS.tau, PARAMS.mu, rng=0)
HIST = PD.priv_histogram(X8, 5.0, 0.3, rng=0)
MWEM = PD.partial_mwem(X4, 1.0, 5, 2, rng=0)
GUAR = PD.PerAttributeGuarantee(0.5, 10, "pure")
LEDGER = PD.census_2020_example()
HALF = PD.robust_halfspace_learner(PM, YPM, 1.0, 0.6, 0.1, rng=0)


def _fields(obj) -> tuple:
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))


BASELINES: dict[str, tuple[tuple, dict]] = {
    # accounting
    "whole_record_pure_epsilon": ((0.5, 10), {}),
    "whole_record_rho": ((0.5, 10), {}),
    "whole_record_approx_dp": ((0.5, 10, 1e-6, "simple"), {}),
    "whole_record_delta": ((0.5, 10, 15.0, "simple"), {}),
    "targeted_pure_epsilon": ((0.1, 3), {}),
    "targeted_rho": ((1.0, 2), {}),
    "rho_from_eps": ((2.0,), {}),
    "eps_from_rho": ((2.0,), {}),
    "zcdp_epsilon_curve": ((np.array([0.1, 1.0]), 1e-6, "cks"), {}),
    "PerAttributeGuarantee": ((0.5, 10, "zcdp"), {}),
    "sequential_composition": (([3.0, 4.0], "zcdp"), {}),
    "parallel_composition": (([0.5, 0.5, 0.5], "zcdp"), {}),
    "attribute_weighted_epsilon": (([0, 1, 1], [1, 1, 0], [0.1, 0.2, 0.3]), {}),
    "graph_metric": (([[0, 1, 0], [1, 0, 2], [0, 2, 0]],), {}),
    "hamming_graph_weights": (([2, 3], [0.5, 1.0]), {}),
    "Release": (("Total", frozenset({"a"}), 0.5), {}),
    "ReleaseLedger": ((("a", "b"), (PD.Release("r", frozenset({"a"}), 0.3),)), {}),
    "census_2020_example": ((), {}),
    "check_eps0_le_eps": ((0.5, 1.0), {}),
    # histograms
    "is_power_of_two": ((16,), {}),
    "as_binary_records": ((X4,), {}),
    "pad_to_power_of_two": (([[1, 0, 1]],), {}),
    "lemma28_epsilon": ((3.0, 15.0), {}),
    "theorem15_lambda": ((1.0, 0.1, "corrected"), {}),
    "HeavyHitterParams": ((8.0, 3.0, 40.0), {}),
    "heavy_hitter_params": ((1.0, 0.1, 20000), {}),
    "HeavyHitterNode": (_fields(HH.nodes[0]), {}),
    "HeavyHitterResult": (_fields(HH), {}),
    "priv_heavy_hitter": ((X8, PARAMS.lam, PARAMS.tau, PARAMS.mu), {"rng": 0}),
    "HistogramResult": (_fields(HIST), {}),
    "priv_histogram": ((X8, 5.0, 0.3, 0.1), {"rng": 0}),
    "canonical_histogram": ((X8, 1.0), {"rng": 0}),
    "canonical_histogram_epsilons": ((2.0,), {}),
    "histogram_counts": ((X8,), {}),
    "theorem15_sample_size": ((16, 1.0, 0.1, 0.1), {}),
    "lemma30_conditions": ((16, 20000, 8.0, 40.0, 0.1, 0.1), {}),
    "theorem16_lower_bound": ((1024, 1.0, 0.1), {}),
    "standard_dp_histogram_sample_size": ((1024, 1.0, 0.1, "pure"), {}),
    "laplace_log_sf": ((np.array([-2.0, 0.0, 3.0]), 2.0), {}),
    "level_privacy_loss": ((np.array([0.0, 2.0, 5.0]), 2.0), {}),
    "level_privacy_loss_bound": ((np.array([0.0, 2.0, 5.0]), 2.0), {}),
    "heavy_hitter_privacy_loss": ((X4, X4b, 1.0, 1.0, 2.0), {}),
    "heavy_hitter_path_loss": (([[5, 4], [3, 2]], [[2, 3], [1, 2]], 1.0, 1.0, 2.0), {}),
    "heavy_hitter_worst_case_loss": ((1.0, 1.0, 2.0, 2, 5), {}),
    # interpretation
    "posterior_tv_bound": ((0.01, 2), {}),
    "mutual_information_bound": ((0.1, [1, 1, 2]), {}),
    "bit_recovery_probability": ((1.0, 2), {}),
    "rounding_reveals_probability": ((10.0, 2.0), {}),
    # marginals
    "kway_queries": ((4, 2), {}),
    "kway_query_matrix": ((4, 2, "parity"), {}),
    "diameters_brute_force": ((Q4, 4), {}),
    "kway_diameters": ((6, 2), {}),
    "projection_guarantees": ((0.1, 100, 2.0, 1.0), {}),
    "projection_sigma": ((100, 2.0), {"eps0": 1.0}),
    "projection_mse_bound": ((0.1, 2.0, 6, 4.0), {}),
    "kway_projection_mse_bounds": ((np.array([4, 10]), 2, 1000), {"eps0": 1.0}),
    "project_onto_hull": ((Q4, np.full(Q4.shape[1], 0.3)), {"iterations": 20}),
    "projection_mechanism": ((X4, 0.1), {"iterations": 20, "rng": 0}),
    "disjoint_query_sets": ((6, 2, 2), {}),
    "mwem_person_rho": ((1.0, 4, True), {}),
    "mwem_error_bound": ((100, 1000, 1.0, 4.0, 6, 2), {}),
    "mwem_best_T": ((1000, 1.0, 4.0, 6, 2, 1000), {}),
    "MWEMResult": (_fields(MWEM), {}),
    "partial_mwem": ((X4, 1.0, 5, 2), {"rng": 0}),
    "max_star_error": ((MWEM.answers, X4, 2), {}),
    # learners
    "point_learner": ((X8, Y60, 5.0, 0.5), {"rng": 0}),
    "polarization": ((X8, Y60, 2), {}),
    "longest_polarizing_prefix": ((X8, Y60, 5.0, 0.1), {"rng": 0}),
    "threshold_learner": ((X8, Y60, 5.0, 0.5), {"rng": 0}),
    "threshold_predict": ((X8[0], X8), {}),
    "distribution_estimate": ((X8, 5.0), {"nu": 0.3, "rng": 0}),
    "label_randomized_response": ((YPM, 0.5), {"rng": 0}),
    "rr_flip_probability": ((1.0,), {}),
    "rr_excess_factor": ((1.0,), {}),
    "rr_risk": ((0.1, 1.0), {}),
    "halfspace_dec": ((W3, PM, YPM), {}),
    "robust_loss": ((np.array([0.0, 1.0, 2.0]), 0.6, 0.1, 2), {}),
    "robust_erm": ((W3, PM, YPM, 1.0, 0.6, 0.1), {"rng": 0}),
    "halfspace_net": ((2, 0.2), {}),
    "robust_halfspace_learner": ((PM, YPM, 1.0, 0.6, 0.1), {"rng": 0}),
    "HalfspaceResult": (_fields(HALF), {}),
    # experiments (lesson 15's curves and seeded simulations)
    "record_epsilon_curves": ((0.1, 1e-6), {"d_max": 20, "k_way": 2}),
    "sparse_attack": ((2.0, 40, 3), {}),
    "planted_data": ((500, 8, 3, 0), {}),
    "projection_empirical_mse": ((2, 200, 1.0, 1), {}),
    "mwem_best_rounds": ((1000, 1.0, 10, 2, 3), {}),
    "mwem_ell_tradeoff": ((1.0, 1000, 10, 2), {}),
}

METHOD_BASELINES: dict[str, tuple[object, str, tuple, dict]] = {
    "PerAttributeGuarantee.change_epsilon": (GUAR, "change_epsilon", (3,), {}),
    "PerAttributeGuarantee.change_rho": (GUAR, "change_rho", (3,), {}),
    "PerAttributeGuarantee.record_epsilon": (GUAR, "record_epsilon", (), {}),
    "PerAttributeGuarantee.record_rho": (GUAR, "record_rho", (), {}),
    "PerAttributeGuarantee.change_approx_dp": (GUAR, "change_approx_dp", (3, 1e-6, "simple"), {}),
    "ReleaseLedger.touching": (LEDGER, "touching", ({"race"},), {}),
    "ReleaseLedger.change_rho": (LEDGER, "change_rho", ({"race", "ethnicity"},), {}),
    "ReleaseLedger.change_epsilon_zcdp": (LEDGER, "change_epsilon_zcdp", ("race",), {}),
    "ReleaseLedger.change_approx_dp": (LEDGER, "change_approx_dp", ({"race"}, 1e-6, "simple"), {}),
    "ReleaseLedger.whole_record_rho": (LEDGER, "whole_record_rho", (), {}),
    "ReleaseLedger.per_attribute_rho": (LEDGER, "per_attribute_rho", (), {}),
    "ReleaseLedger.incidence": (LEDGER, "incidence", (), {}),
    "HeavyHitterParams.threshold": (PARAMS, "threshold", (np.array([1, 2, 3]),), {}),
    "HeavyHitterResult.level_sizes": (HH, "level_sizes", (), {}),
    "HistogramResult.max_error": (HIST, "max_error", (X8,), {}),
}

EXEMPT = {}  # MAX_D_MARGINALS is a constant, not callable


# ----------------------------------------------------------------------------------------------- coverage


def test_every_public_callable_has_a_baseline():
    assert missing_baselines(PD, BASELINES, EXEMPT) == []


def test_every_public_method_has_a_baseline():
    """Public methods of the public classes (properties excluded) are swept too; a new method cannot escape."""
    missing = []
    for name in PD.__all__:
        cls = getattr(PD, name)
        if not isinstance(cls, type):
            continue
        for attr, member in vars(cls).items():
            if attr.startswith("_") or not callable(member):
                continue
            if f"{cls.__name__}.{attr}" not in METHOD_BASELINES:
                missing.append(f"{cls.__name__}.{attr}")
    assert missing == []


def test_baselines_are_valid_calls():
    """A baseline that fails on its own would make every sweep trivially pass: each must return normally."""
    bad = {}
    for name, (args, kwargs) in BASELINES.items():
        out = call_outcome(getattr(PD, name), args, kwargs)
        if out is not None:
            bad[name] = out
    for key, (obj, meth, args, kwargs) in METHOD_BASELINES.items():
        out = call_outcome(getattr(obj, meth), args, kwargs)
        if out is not None:
            bad[key] = out
    assert bad == {}


# ----------------------------------------------------------------------------------------------- the sweeps


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_sweep_public(name):
    args, kwargs = BASELINES[name]
    assert sweep(getattr(PD, name), args, kwargs) == []


@pytest.mark.parametrize("key", sorted(METHOD_BASELINES))
def test_sweep_methods(key):
    obj, meth, args, kwargs = METHOD_BASELINES[key]
    assert sweep(getattr(obj, meth), args, kwargs) == []


# ----------------------------------------------------------------------------------------------- caps (finding 7)
# Each cap is checked from both sides: a call past it is refused with a ValueError naming the cap (before the large
# allocation: inputs below are broadcast views that cost no memory), and the largest settings the lesson-07 panels
# send stay within it. The limits are written out here, not read from the code under test.

from dpviz.partial import accounting as ACC  # noqa: E402
from dpviz.partial import histograms as HIST  # noqa: E402
from dpviz.partial import learners as LRN  # noqa: E402
from dpviz.partial import marginals as MRG  # noqa: E402


def _refused(fn, *args, match, **kwargs):
    with pytest.raises(ValueError, match=match) as info:
        fn(*args, **kwargs)
    return str(info.value)


def _zeros(n, d):
    return np.broadcast_to(np.uint8(0), (n, d))


def test_cap_values_are_the_documented_ones():
    assert (HIST.RECORDS.high, HIST.RECORD_ENTRIES.limit, HIST.HH_SORT.limit, HIST.HH_CANDIDATES.limit) == (
        4_000_000, 20_000_000, 20_000_000, 4_000_000)
    assert (HIST.WORK.limit, MRG.T_SEARCH.high, LRN.NET.high, LRN.HALFSPACE_ENTRIES.limit) == (
        2e9, 10_000_000, 200_000, 10_000_000)
    assert (ACC.GRAPH_ENTRIES.limit, HIST.COUNT.high, HIST.EPS.high, HIST.RHO.high) == (
        250_000_000, 10**15, 1e8, 1e12)


def test_cap_records():
    """Heavy hitters with n = 8·10⁷ (the finding) are refused from the parameters alone, before any data exist."""
    _refused(PD.heavy_hitter_params, 1.0, 0.1, 8 * 10**7, match=r"n = 80000000 .*<= 4000000")
    _refused(PD.as_binary_records, _zeros(4_000_001, 1), match=r"n \(the records of X\) = 4000001 .*<= 4000000")
    _refused(PD.priv_heavy_hitter, _zeros(8 * 10**7, 32), 8.0, 1.0, 40.0, match=r"of X\) = 80000000 .*<= 4000000")
    _refused(PD.priv_histogram, _zeros(1_000_000, 21), 1.0, match=r"n·d = .* = 21000000 .*<= 20000000 \(the cap")
    _refused(PD.canonical_histogram, _zeros(1_000_000, 21), 1.0, match=r"<= 20000000 \(the cap on the bits n·d")
    _refused(PD.projection_mechanism, _zeros(3_000_000, 8), 0.1, match=r"<= 20000000 \(the cap on the bits n·d")
    # planted_data allocates n·d bits itself: refused from its arguments (4·10⁶ × 6 = 2.4·10⁷ bits)
    _refused(PD.planted_data, 4_000_000, 6, match=r"n·d = 4000000·6 .* = 24000000 .*<= 20000000 \(the cap on the bits")
    _refused(PD.planted_data, 4_000_001, 1, match=r"n = 4000001 .*<= 4000000")
    _refused(PD.planted_data, 100, 8, 6, match=r"n_heavy = 6 .*<= 5")


def test_cap_heavy_hitter_work():
    # d = 33 is padded to D = 64: n·(D − 1) = 2.5·10⁷ sorted codes although n·d = 1.3·10⁷ bits is allowed
    _refused(PD.priv_heavy_hitter, _zeros(400_000, 33), 8.0, 1.0, 40.0, pad=True,
             match=r"n·\(D − 1\) = .*<= 20000000 \(the cap on the record codes")
    # τ = 0, μ tiny: every substring present in the data survives and about half of the absent ones do, so at level 4
    # (16-bit halves) some 3·10⁴ strings survive per node and level 5 would pair them into ~10⁹ candidates; the run
    # stops before those arrays exist (a guard, not a truncation)
    X = np.random.default_rng(0).integers(0, 2, size=(2000, 32))
    _refused(PD.priv_heavy_hitter, X, 1.0, 0.0, 1e-3, rng=0, match=r"past 4e\+06 strings \(the cap on the candidates")


WORK_REFUSED = r"the work of .*<= 2000000000 \(the cap on the work units"


def test_cap_work():
    X12 = np.random.default_rng(0).integers(0, 2, size=(200, 12))
    Q = np.asarray(PD.kway_query_matrix(12, 6))  # 4096 records × 924 queries
    _refused(PD.projection_mechanism, X12, 0.1, k=2, iterations=100_000, match=WORK_REFUSED)
    _refused(PD.projection_mechanism, X12, 0.1, k=2, iterations=400, size=100, match=WORK_REFUSED)
    _refused(PD.project_onto_hull, Q, np.full(924, 0.1), iterations=400, match=WORK_REFUSED)
    _refused(PD.diameters_brute_force, Q, 12, match=WORK_REFUSED)
    _refused(PD.partial_mwem, X12, 1.0, 100_000, 2, match=WORK_REFUSED)
    dense = np.ones((2000, 2000)) - np.eye(2000)
    _refused(PD.graph_metric, dense, match=WORK_REFUSED)
    _refused(PD.zcdp_epsilon_curve, np.full(400_000, 0.1), 1e-6, match=WORK_REFUSED)
    _refused(PD.mwem_best_T, 1000, 1.0, 4.0, 6, 2, 10**7 + 1, match=r"T_max = 10000001 .*<= 10000000")


def test_cap_learners_and_graphs():
    _refused(PD.halfspace_net, 2, 0.1, max_size=200_001, match=r"max_size = 200001 .*<= 200000")
    _refused(PD.robust_halfspace_learner, PM, YPM, 1.0, 0.6, 0.1, max_net=200_001, match=r"max_net = 200001")
    W = np.ones((1000, 2))
    Xpm = np.ones((5001, 2))
    _refused(PD.halfspace_dec, W, Xpm, np.ones(5001), match=r"H·n·d = .* = 10002000 .*<= 10000000 \(the cap")
    _refused(PD.hamming_graph_weights, [2] * 12 + [1] * 4, [0.1] * 16, match=r"\|X\|²·d = .* .*<= 250000000 \(the cap")
    _refused(PD.hamming_graph_weights, [2] * 13, [0.1] * 13, match=r"\|X\| = 8192 .*<= 4096")


def test_cap_formula_ranges():
    _refused(PD.whole_record_rho, 0.5, 10**16, match=r"d = 10000000000000000 .*<= 1000000000000000")
    _refused(PD.rho_from_eps, 1e9, match=r"eps = 1000000000.0 .*1e\+08")
    _refused(PD.eps_from_rho, 1e13, match=r"rho = 10000000000000.0 .*1e\+12")
    _refused(PD.kway_diameters, 100_001, 2, match=r"d = 100001 .*<= 100000")
    _refused(PD.kway_diameters, 2000, 1000, match=r"C\(d, k\).*1e300")
    _refused(PD.heavy_hitter_worst_case_loss, 8.0, 1.0, 40.0, 9, 10, match=r"levels = 9 .*<= 8")


def test_panels_largest_settings_fit_under_the_caps():
    """Heavy hitters (n ≤ 80,000, d ≤ 32, ν ≥ 0.02), the projection panel (n ≤ 10⁶, d = 8, k ≤ 4, 4 releases of
    150 iterations), the MWEM bound (T_max = 2·10⁵) and the marginals plot (d ≤ 10⁴)."""
    for eps0 in (0.1, 5.0):
        PD.heavy_hitter_params(eps0, 0.02, 80_000)
    assert PD.as_binary_records(_zeros(80_000, 32)).shape == (80_000, 32)
    assert PD.as_binary_records(_zeros(1_000_000, 8)).shape == (1_000_000, 8)
    m = math.comb(8, 4)
    assert 4 * (2 * 150 * 256 * m + 256 * m * m) <= 2e9
    PD.mwem_best_T(10**6, 0.05, 40 * math.log(2), math.comb(40, 4), 10, T_max=200_000)
    PD.kway_projection_mse_bounds(np.array([4.0, 10_000.0]), 4, 10**6, eps0=0.05)
    PD.zcdp_epsilon_curve(np.linspace(0, 50, 200), 1e-10)

# the coverage test (test_adversarial_coverage.py) reads what these sweeps cover
register(PD, BASELINES)
register(PD, EXEMPT, "exempt")
