"""Adversarial-input sweep of :mod:`dpviz.attacks` (lesson 01's attacks), with the shared contract of
``tests/_adversarial.py``: every public callable (and every public method of its result records) gets one valid
baseline call, and each positional argument in turn is replaced by 16 hostile values (warnings are errors). Only a
ValueError/TypeError with a message, or a NaN-free return, passes. Keyword-only parameters that matter (sizes, noise
scales, ``trials``) reach the sweep through small named wrappers that take them positionally.

The targeted tests below pin each concrete defect the sweep found, and each size cap (the largest allowed call runs,
the next one is refused with a message naming the parameter and the cap).
"""

from __future__ import annotations

import dataclasses
import math
import tracemalloc

import numpy as np
import pytest
from _adversarial import call_outcome, contract_tests

import dpviz.attacks as A

TABLE = A.synthetic_table(8, 0)
POP = A.synthetic_table(60, 1)
ROLL = A.voter_roll(60, 0.5, 2)
DIFF = A.differencing_attack([1, 0, 1], 0)
REC = A.reconstruction_attack(10, 30, 1.0, 0)
CURVE = A.reconstruction_curve(10, 30, [0.0, 1.0], trials=2, rng=0)
MEM = A.membership_tradeoff(10, 0.3, noise="laplace", scale=1.0)
LINK = A.linkage_attack(POP.ages, POP.towns, POP.has_condition, ROLL, 10, True)


def _fields(obj) -> tuple:
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))


def synthetic_table_(n, rng, rate):
    return A.synthetic_table(n, rng, rate=rate)


def differencing_attack_(bits, target, noise_scale, rng):
    return A.differencing_attack(bits, target, noise_scale=noise_scale, rng=rng)


def reconstruction_curve_(n, m, noise_scales, trials, rng):
    return A.reconstruction_curve(n, m, noise_scales, trials=trials, rng=rng)


def membership_tradeoff_(n, p, noise, scale, num_points):
    return A.membership_tradeoff(n, p, noise=noise, scale=scale, num_points=num_points)


BASELINES = {
    "SyntheticTable": (_fields(TABLE), {}),
    "synthetic_table": ((8, 0), {"rate": 0.4}),
    "DifferencingResult": (_fields(DIFF), {}),
    "differencing_attack": (([1, 0, 1], 0), {"noise_scale": 1.0, "rng": 0}),
    "differencing_success_probability": ((1.0,), {}),
    "laplace_difference_pdf": (([0.0, 1.0], 1.0), {}),
    "quasi_identifier_classes": ((POP.ages, POP.towns, 10, True), {}),
    "k_anonymity": ((POP.ages, POP.towns, 10, True), {}),
    "expected_unique_fraction": ((100, 1, True), {}),
    "voter_roll": ((60, 0.5, 2), {}),
    "LinkageResult": (_fields(LINK), {}),
    "linkage_attack": ((POP.ages, POP.towns, POP.has_condition, ROLL, 10, True), {}),
    "linkage_by_generalisation": ((POP.ages, POP.towns, POP.has_condition, ROLL, A.GENERALISATIONS), {}),
    "ReconstructionResult": (_fields(REC), {}),
    "reconstruction_attack": ((10, 30, 1.0, 0), {}),
    "least_squares_error_sd": ((100, 500, 2.0), {}),
    "exact_least_squares_error_sd": ((REC.queries, 2.0), {}),
    "ReconstructionCurve": (_fields(CURVE), {}),
    "reconstruction_curve": ((10, 30, [0.0, 1.0]), {"trials": 2, "rng": 0}),
    "MembershipTradeoff": (_fields(MEM), {}),
    "membership_tradeoff": ((10, 0.3), {"noise": "laplace", "scale": 1.0}),
}

METHODS = {
    "synthetic_table[keywords]": (synthetic_table_, (30, 0, 0.4), {}),
    "differencing_attack[keywords]": (differencing_attack_, ([1, 0, 1], 0, 1.0, 0), {}),
    "reconstruction_curve[keywords]": (reconstruction_curve_, (10, 30, [0.0, 1.0], 2, 0), {}),
    "membership_tradeoff[laplace]": (membership_tradeoff_, (10, 0.3, "laplace", 1.0, 50), {}),
    "membership_tradeoff[gaussian]": (membership_tradeoff_, (10, 0.3, "gaussian", 1.0, 50), {}),
    "MembershipTradeoff.advantage": (MEM.advantage, (), {}),
}

globals().update(contract_tests(A, BASELINES, methods=METHODS))


# ---------------------------------------------------------------------------------- the defects the sweep found


def test_tiniest_noise_scale_gives_certainty_not_nan():
    # was NaN: r = 1/(2b) = inf and e^(−r)·(2 + r) = 0·inf
    assert A.differencing_success_probability(5e-324) == 1.0
    assert A.differencing_success_probability(1e-3) == 1.0  # e^(−500)·502/4 < 2^(−53): 1 to double precision


def test_laplace_difference_pdf_at_extreme_scales():
    # was an overflow warning (and NaN where (1 + |t|/b) = inf met e^(−|t|/b) = 0)
    with pytest.raises(ValueError, match=r"noise_scale = 5e-324 .*1e-300"):
        A.laplace_difference_pdf([0.0, 1.0], 5e-324)
    tiny = A.laplace_difference_pdf([0.0, 1e-300, 1.0], 1e-300)
    assert tiny[0] == pytest.approx(0.25e300, rel=1e-14) and tiny[1] == pytest.approx(2 * math.exp(-1) / 4e-300,
                                                                                         rel=1e-12)
    assert tiny[2] == 0.0
    assert A.laplace_difference_pdf([0.0], 1e308)[0] == pytest.approx(0.25e-308, rel=1e-10)


def test_noise_bounds_beyond_the_cap_are_refused_by_name():
    # was an overflow warning in the least-squares matmul at E = 1e308
    with pytest.raises(ValueError, match=r"noise_scale = 1e\+308 is not allowed: must be a number in \[0, 1e\+15\]"):
        A.reconstruction_attack(10, 30, 1e308, 0)
    with pytest.raises(ValueError, match=r"noise_scales = 1e\+308 is not allowed: must be a number in \[0, 1e\+15\]"):
        A.reconstruction_curve(10, 30, [0.0, 1e308])
    r = A.reconstruction_attack(10, 30, A.NOISE_BOUND.high, 0)
    assert 0 <= r.recovered_fraction <= 1


def test_tiny_membership_noise_is_the_noiseless_curve():
    # was an overflow warning in |x|/b for b = 5e-324; the curve must tend to the exact release's
    raw = A.membership_tradeoff(20, 0.2)
    alphas = np.linspace(0, 1, 41)
    for noise in ("laplace", "gaussian"):
        t = A.membership_tradeoff(20, 0.2, noise=noise, scale=5e-324, num_points=4000)
        assert not np.any(np.isnan(t.beta))
        # the noisy thresholds only reach the vertices; chords between them lie above the exact curve
        assert np.all(np.interp(alphas, t.alpha, t.beta) >= np.interp(alphas, raw.alpha, raw.beta) - 1e-12)


def test_records_refuse_nan_fields():
    # the result records accepted any field (a NaN field was "returned"); each now checks its fields by name
    for cls, obj, name in [(A.SyntheticTable, TABLE, "ages"), (A.DifferencingResult, DIFF, "difference"),
                           (A.ReconstructionResult, REC, "recovered_fraction"),
                           (A.ReconstructionCurve, CURVE, "recovered_fraction"),
                           (A.MembershipTradeoff, MEM, "p"), (A.LinkageResult, LINK, "class_size")]:
        fields = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
        fields[name] = math.nan
        with pytest.raises(ValueError, match=name):
            cls(**fields)
        assert cls(**{f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}) is not None


def test_complex_input_is_refused_not_cast():
    with pytest.raises(ValueError, match="has_attribute"):
        A.differencing_attack([1 + 1j, 0], 0)
    with pytest.raises(ValueError, match="ages"):
        A.linkage_attack([30 + 1j, 40], ["a", "b"], [0, 1], [1, 1])
    with pytest.raises(ValueError, match="t = "):
        A.laplace_difference_pdf([1j], 1.0)


# ---------------------------------------------------------------------------------- caps: largest call, next refused


def test_reconstruction_work_cap():
    # was: trials up to 100 at n = num_queries = 2000, about 100 × 7 s of normal equations
    n = m = 2000
    with pytest.raises(ValueError, match=r"trials·n·num_queries·min\(n, num_queries\) = 2·2000·2000·2000 = "
                                         r"16000000000 is not allowed: must be <= 8000000000"):
        A.reconstruction_curve(n, m, [0.0], trials=2)
    assert 1 * n * m * min(n, m) <= A.RECONSTRUCTION_WORK.limit


@pytest.mark.parametrize("n, m", [(2000, 1999), (2000, 2000)])
def test_largest_reconstruction_fits(n, m):
    # the largest allowed attacks finish within the sweep's own per-call limit (m just below n was numpy's SVD
    # solve, ~50 s on this machine: "no answer" here), and allocate no more than the matrices their cap allows
    # (A as int8, float32 and float64, and one n × n Gram matrix: about 100 MB at n = m = 2000)
    tracemalloc.start()
    outcome = call_outcome(A.reconstruction_attack, (n, m, 1.0, 0), {})
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert outcome is None
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MB"
    with pytest.raises(ValueError, match=r"n·num_queries = 2000·2001 = 4002000 is not allowed: must be <= 4000000"):
        A.reconstruction_attack(2000, 2001, 1.0, 0)


def test_membership_memory_stays_small_at_the_caps():
    # was: one (num_points × counts) block, ~10⁴ × 10³ doubles and its temporaries (≈ 400 MB resident)
    tracemalloc.start()
    t = A.membership_tradeoff(10_000, 0.5, noise="laplace", scale=1e4, num_points=10_000)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert t.alpha.size == 10_002 and peak < 40 * 2**20, f"peak {peak / 2**20:.0f} MB"
    with pytest.raises(ValueError, match="num_points"):
        A.membership_tradeoff(10, 0.5, noise="laplace", num_points=10_001)


def test_linkage_caps():
    with pytest.raises(ValueError, match=r"len\(ages\) = 1000001 is not allowed: must be <= 1000000 \(the cap on the"):
        A.k_anonymity(np.zeros(A.LINKAGE_PEOPLE.limit + 1), np.zeros(A.LINKAGE_PEOPLE.limit + 1, dtype=int))
    g = np.random.default_rng(0)
    n = A.LINKAGE_PEOPLE.limit
    ages, towns = g.integers(0, 100, n), g.integers(0, 50, n)
    r = A.linkage_attack(ages, towns, g.integers(0, 2, n), A.voter_roll(n, 0.5, 0), 1, True)
    assert r.n == n and r.k >= 1
    with pytest.raises(ValueError, match=r"n = 1001 .*<= 1000"):
        A.synthetic_table(1001)
    assert A.synthetic_table(A.TABLE_PEOPLE.high, 0).n == A.TABLE_PEOPLE.high
