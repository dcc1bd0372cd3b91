"""Tests of dpviz.audit: the Clopper–Pearson bound against an independent binomial oracle, the coverage of the
ε lower bound by simulation at the stated confidence, the planted bugs caught (and the correct mechanisms not
flagged) at fixed seeds, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from dpviz.audit import AUDIT_CASES, audit_case, audit_mechanism, clopper_pearson_upper, epsilon_lower_bound


def _cp_upper_oracle(k: int, n: int, alpha: float) -> float:
    """The p with P[Bin(n, p) ≤ k] = α, found by root finding on the binomial cdf (not on the Beta quantile)."""
    if k == n:
        return 1.0
    return optimize.brentq(lambda p: stats.binom.cdf(k, n, p) - alpha, 1e-15, 1 - 1e-15, xtol=1e-15, rtol=1e-13)


@pytest.mark.parametrize("k,n,alpha", [(0, 10, 0.025), (3, 10, 0.05), (50, 1000, 0.025), (999, 1000, 0.01),
                                       (1, 5000, 0.025)])
def test_clopper_pearson_matches_binomial_oracle(k, n, alpha):
    assert float(clopper_pearson_upper(k, n, alpha)) == pytest.approx(_cp_upper_oracle(k, n, alpha), rel=1e-8)


def test_clopper_pearson_all_successes_is_one():
    assert float(clopper_pearson_upper(7, 7, 0.05)) == 1.0


@pytest.mark.parametrize("tp,fp,pos,neg,delta,conf", [(900, 100, 1000, 1000, 0.0, 0.95),
                                                      (2400, 10, 2500, 2500, 1e-5, 0.95),
                                                      (300, 20, 400, 600, 0.01, 0.9),
                                                      (10, 400, 1000, 1000, 0.0, 0.95)])
def test_bound_matches_formula_with_oracle_rates(tp, fp, pos, neg, delta, conf):
    a = (1 - conf) / 2  # Bonferroni split, as documented
    fpr, fnr = _cp_upper_oracle(fp, neg, a), _cp_upper_oracle(pos - tp, pos, a)
    cands = [0.0]
    for num, den in [(1 - delta - fnr, fpr), (1 - delta - fpr, fnr)]:
        if num > 0:
            cands.append(math.log(num / den))
    assert epsilon_lower_bound(tp, fp, pos, neg, delta=delta, confidence=conf) == pytest.approx(max(cands),
                                                                                            rel=1e-7, abs=1e-12)


def test_bound_is_symmetric_in_the_two_error_types():
    # swapping which dataset is called "positive" swaps FPR and FNR: the bound must not change
    assert epsilon_lower_bound(800, 50, 1000, 1000) == pytest.approx(epsilon_lower_bound(950, 200, 1000, 1000))


def test_bound_zero_for_useless_test_and_monotone_in_counts():
    assert epsilon_lower_bound(100, 100, 1000, 1000) == 0.0  # guesses x′ at random 10% of the time
    assert epsilon_lower_bound(900, 50, 1000, 1000) > epsilon_lower_bound(900, 100, 1000, 1000)
    assert epsilon_lower_bound(950, 100, 1000, 1000) > epsilon_lower_bound(900, 100, 1000, 1000)
    # larger δ explains more of the tests' success: a smaller bound
    assert epsilon_lower_bound(990, 10, 1000, 1000, delta=0.1) < epsilon_lower_bound(990, 10, 1000, 1000)


def _exceed_tolerance(m: int, level: float) -> float:
    # If P[bound > ε] ≤ 1 − confidence =: a, the count of exceedances in m independent audits is stochastically
    # below Bin(m, a): its mean plus 3 standard deviations is exceeded with probability < 0.3% (normal
    # approximation; m·a ≥ 15 in every use here).
    return m * level + 3.0 * math.sqrt(m * level * (1 - level))


@pytest.mark.parametrize("confidence", [0.95, 0.8])
def test_coverage_fixed_test_randomized_response(confidence):
    # ε_RR-randomized response on x = 0, x′ = 1: the test "guess x′ iff output = 1" has FPR = FNR = 1/(1 + e^ε)
    # exactly, and it is the optimal test, so the bound is close to ε: its coverage is really tested.
    eps, n, m = 1.0, 400, 3000
    p_flip = 1 / (1 + math.exp(eps))
    g = np.random.default_rng(20260101)
    tp = n - g.binomial(n, p_flip, size=m)
    fp = g.binomial(n, p_flip, size=m)
    bounds = np.array([epsilon_lower_bound(int(a), int(b), n, n, confidence=confidence) for a, b in zip(tp, fp)])
    assert np.count_nonzero(bounds > eps) <= _exceed_tolerance(m, 1 - confidence)
    assert np.median(bounds) > 0.5 * eps  # not trivially valid: the bound is informative


def test_coverage_full_audit_laplace_and_rr():
    # the whole pipeline (test chosen on one half, counted on the other) at a known exact ε
    m = 200
    g = np.random.default_rng(7)
    for sampler, x, xp, eps in [
        (lambda d, size, rng: d + rng.laplace(0.0, 1.0, size), 0.0, 1.0, 1.0),
        (lambda d, size, rng: np.where(rng.random(size) < math.e / (1 + math.e), d, 1 - d), 0.0, 1.0, 1.0),
    ]:
        bounds = np.array([audit_mechanism(sampler, x, xp, trials=2000, rng=g).epsilon_lower for _ in range(m)])
        assert np.count_nonzero(bounds > eps) <= _exceed_tolerance(m, 0.05)
        assert np.median(bounds) > 0.3


def test_audit_approaches_claim_when_tight():
    # Laplace with b = 1, Δ = 1 is exactly 1-DP; with 200 000 runs the bound should come close to 1 (within 0.15:
    # the Clopper–Pearson slack at ~10⁴ errors per class is a few per cent of each rate)
    r = audit_mechanism(lambda d, size, rng: d + rng.laplace(0.0, 1.0, size), 0.0, 1.0, trials=200_000, rng=3)
    assert 0.85 < r.epsilon_lower <= 1.0
    assert r.positives + r.negatives == 100_000


@pytest.mark.parametrize("key", sorted(AUDIT_CASES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_planted_bug_caught_and_no_correct_one_flagged(key, seed):
    case = AUDIT_CASES[key]
    r = audit_case(key, trials=10_000, confidence=0.95, rng=seed)
    flagged = r.epsilon_lower > case.claimed_epsilon
    assert flagged == case.buggy, (key, r.epsilon_lower, case.claimed_epsilon)
    assert r.confidence == 0.95 and r.delta == case.claimed_delta


def test_catalogue_has_correct_and_buggy_cases():
    bugs = [c for c in AUDIT_CASES.values() if c.buggy]
    assert len(bugs) >= 4 and len(AUDIT_CASES) - len(bugs) >= 4
    assert all(c.exact_epsilon > c.claimed_epsilon for c in bugs)


def test_counts_are_consistent():
    r = audit_case("laplace_ok", trials=1001, rng=0)
    # 500 runs on x, 501 on x′; the first half of each (250, 250) selects the test, the rest is counted
    assert (r.negatives, r.positives) == (250, 251)
    assert 0 <= r.true_positives <= r.positives and 0 <= r.false_positives <= r.negatives
    assert r.epsilon_lower == pytest.approx(epsilon_lower_bound(r.true_positives, r.false_positives, r.positives,
                                                                r.negatives, delta=r.delta))


def test_audit_is_reproducible_with_a_seed():
    assert audit_case("svt_ok", rng=5) == audit_case("svt_ok", rng=5)


@pytest.mark.parametrize("kwargs,name", [
    (dict(true_positives=-1), "true_positives"), (dict(true_positives=11), "true_positives"),
    (dict(false_positives=2.5), "false_positives"), (dict(positives=0), "positives"),
    (dict(negatives=True), "negatives"), (dict(delta=1.0), "delta"), (dict(delta=-0.1), "delta"),
    (dict(confidence=1.0), "confidence"), (dict(confidence=0.0), "confidence"),
    (dict(confidence=float("nan")), "confidence"),
])
def test_bound_bad_input(kwargs, name):
    args = dict(true_positives=5, false_positives=5, positives=10, negatives=10)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        epsilon_lower_bound(**args)


def _lap(d, size, rng):
    return d + rng.laplace(0.0, 1.0, size)


@pytest.mark.parametrize("kwargs,name", [(dict(trials=4), "trials"), (dict(trials=10**9), "trials"),
                                         (dict(delta=2.0), "delta"), (dict(confidence=1.5), "confidence"),
                                         (dict(rng="seed"), "rng")])
def test_audit_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        audit_mechanism(_lap, 0.0, 1.0, **kwargs)


def test_audit_bad_sampler():
    with pytest.raises(ValueError, match="mechanism_factory"):
        audit_mechanism(lambda d, size, rng: np.zeros(3), 0.0, 1.0, trials=100)
    with pytest.raises(ValueError, match="mechanism_factory"):
        audit_mechanism(lambda d, size, rng: np.full(size, np.nan), 0.0, 1.0, trials=100)
    with pytest.raises(ValueError, match="mechanism_factory"):
        audit_mechanism(3, 0.0, 1.0, trials=100)
    with pytest.raises(ValueError, match="key"):
        audit_case("nope")


def _plug_in(tp, fp, pos, neg, delta):
    a, b = fp / neg, 1 - tp / pos
    vals = [0.0]
    for num, den in [(1 - delta - b, a), (1 - delta - a, b)]:
        if num > 0:
            vals.append(math.inf if den == 0 else math.log(num / den))
    return max(vals)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 500), st.integers(1, 500), st.data(), st.sampled_from([0.0, 1e-5, 0.05]),
       st.sampled_from([0.5, 0.9, 0.95, 0.999]))
def test_bound_below_plug_in_estimate_and_monotone_in_confidence(pos, neg, data, delta, conf):
    tp = data.draw(st.integers(0, pos))
    fp = data.draw(st.integers(0, neg))
    b = epsilon_lower_bound(tp, fp, pos, neg, delta=delta, confidence=conf)
    # the Clopper–Pearson upper bounds are at least the observed rates, so the bound never beats the plug-in value
    assert 0.0 <= b <= _plug_in(tp, fp, pos, neg, delta) + 1e-9
    # more confidence, wider intervals: never a larger bound
    assert epsilon_lower_bound(tp, fp, pos, neg, delta=delta, confidence=min(conf + 0.0009, 0.9999)) <= b + 1e-12
