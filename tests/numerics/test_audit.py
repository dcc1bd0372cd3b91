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


@pytest.mark.slow
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


@pytest.mark.slow
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


# ------------------------------------------------------------------ claims and exact values of the catalogue
import mpmath as mp  # noqa: E402

from dpviz.audit import (  # noqa: E402
    AuditCase,
    AuditResult,
    NeighbourGame,
    audit_case_curve,
    epsilon_from_rates,
    gaussian_witness_alpha,
)


def _mp_gaussian_epsilon(mu, delta):
    """ε with Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) = δ (Balle & Wang 2018, Thm 8), bisection in 40-digit mpmath."""
    mp.mp.dps = 40
    mu = mp.mpf(mu)

    def d(e):
        return mp.ncdf(mu / 2 - e / mu) - mp.e ** e * mp.ncdf(-mu / 2 - e / mu)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while d(hi) > delta:
        lo, hi = hi, 2 * hi
    for _ in range(120):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
    return float(hi)


def _mp_svt_first_above(threshold, answers, eps):
    """P[first query above the noisy threshold = i] for i = 0, …, len(answers), sparse vector with c = 1:
    threshold + Lap(2/ε), each query + Lap(4/ε) (Lyu, Su & Li 2017, Alg. 1), by mpmath quadrature over the
    threshold noise ρ."""
    mp.mp.dps = 30
    b_rho, b_nu = mp.mpf(2) / eps, mp.mpf(4) / eps

    def up(x):  # P[ν ≥ x], ν ~ Lap(b_nu)
        return mp.e ** (-x / b_nu) / 2 if x >= 0 else 1 - mp.e ** (x / b_nu) / 2

    def prob(i):
        def f(r):
            dens = mp.e ** (-abs(r) / b_rho) / (2 * b_rho)
            p = dens
            for a in answers[:i]:
                p *= 1 - up(threshold + r - a)
            return p * (up(threshold + r - answers[i]) if i < len(answers) else 1)
        kinks = sorted({0.0} | {a - threshold for a in answers})
        return mp.quad(f, [-mp.inf] + kinks + [mp.inf])
    return [prob(i) for i in range(len(answers) + 1)]


def test_exact_epsilon_of_the_unclipped_step_is_finite_on_its_pair_and_matches_the_closed_form():
    """Before: true_epsilon = ∞. On its own pair the unclipped step is a Gaussian of shift 25 and noise σ = z·C = 2.4:
    ε = 97.84 at δ = 10⁻⁵, far above the claim 1.63 but finite."""
    case = AUDIT_CASES["dpsgd_no_clip"]
    assert case.exact_epsilon == pytest.approx(_mp_gaussian_epsilon(25 / 2.4, 1e-5), rel=1e-9)
    assert round(case.exact_epsilon, 2) == 97.84
    ok = AUDIT_CASES["dpsgd_ok"]
    assert ok.exact_epsilon == pytest.approx(_mp_gaussian_epsilon(1 / 2.4, 1e-5), rel=1e-9)
    assert ok.claimed_epsilon == pytest.approx(ok.exact_epsilon, rel=1e-12)  # clipped: the pair is the worst case


@pytest.mark.slow
def test_exact_epsilon_of_the_correct_sparse_vector_on_its_pair_is_below_its_claim():
    """Before: true_epsilon = 1.0, the claim. On the auditor's pair the exact ε is 0.396 (an independent quadrature
    of the three output probabilities); the claim ε = 1 covers every pair of neighbours."""
    case = AUDIT_CASES["svt_ok"]
    (t, a), (_, b) = case.x, case.x_prime
    px, pxp = _mp_svt_first_above(t, list(a), 1.0), _mp_svt_first_above(t, list(b), 1.0)
    assert float(sum(px)) == pytest.approx(1.0, abs=1e-12)
    exact = max(abs(float(mp.log(p / q))) for p, q in zip(px, pxp))
    assert case.exact_epsilon == pytest.approx(exact, rel=1e-9)
    assert round(case.exact_epsilon, 3) == 0.396 and case.claimed_epsilon == 1.0


def test_exact_epsilon_is_infinite_only_where_an_output_is_impossible_on_one_side():
    # without query noise: on x′ = (1, 0) the first query is above iff ρ ≤ 0, and the second never (0 ≥ 1 + ρ > 1):
    # output 1 is impossible on x′ but has probability P[−1 < ρ ≤ 0] > 0 on x = (0, 1)
    case = AUDIT_CASES["svt_no_query_noise"]
    out_xp = case.sampler(case.x_prime, 20_000, np.random.default_rng(0))
    out_x = case.sampler(case.x, 20_000, np.random.default_rng(0))
    assert not np.any(out_xp == 1.0) and np.any(out_x == 1.0)
    assert case.exact_epsilon == math.inf
    assert [k for k, c in AUDIT_CASES.items() if c.exact_epsilon == math.inf] == ["svt_no_query_noise"]
    for key, exact in [("laplace_ok", 1.0), ("laplace_eps_scale", 2.0), ("ratings_off_by_one", 2.0),
                       ("rr_ok", 1.0)]:  # Δ/b of the Laplace cases, ln(p/(1 − p)) of randomized response
        assert AUDIT_CASES[key].exact_epsilon == pytest.approx(exact, rel=1e-12)


def test_no_audit_passes_the_exact_epsilon_of_its_pair():
    for key, case in AUDIT_CASES.items():
        r = audit_case(key, trials=10_000, rng=0)
        assert r.epsilon_lower <= case.exact_epsilon, key


def test_epsilon_from_rates():
    assert epsilon_from_rates(0.1, 0.1) == pytest.approx(math.log(9.0))
    assert epsilon_from_rates(0.0, 0.5) == math.inf and epsilon_from_rates(0.5, 0.5) == 0.0
    np.testing.assert_allclose(epsilon_from_rates([0.1, 0.2], 0.1, 0.01), [math.log(0.89 / 0.1), math.log(0.79 / 0.1)])
    for bad in [dict(false_positive_rate=1.5), dict(false_negative_rate=np.nan), dict(delta=1.0)]:
        args = dict(false_positive_rate=0.1, false_negative_rate=0.1, delta=0.0)
        args.update(bad)
        with pytest.raises(ValueError, match=next(iter(bad))):
            epsilon_from_rates(**args)


@pytest.mark.parametrize("mu,delta", [(1 / 2.4, 1e-5), (1.0, 1e-5), (2.0, 1e-3)])
def test_gaussian_witness_alpha_is_where_the_best_test_reaches_the_claim(mu, delta):
    """Independently: the best test's exact rates β(α) = Φ(Φ⁻¹(1 − α) − μ) give the ε of epsilon_from_rates; its
    maximum over α is the Gaussian's exact ε, attained at α*."""
    from scipy import optimize as opt

    def eps_at(log_a):
        a = math.exp(log_a)
        b = stats.norm.cdf(stats.norm.isf(a) - mu)
        return math.log((1 - delta - b) / a) if 1 - delta - b > 0 else -50.0
    res = opt.minimize_scalar(lambda la: -eps_at(la), bounds=(math.log(1e-12), math.log(0.4)), method="bounded",
                              options=dict(xatol=1e-10))
    assert -res.fun == pytest.approx(_mp_gaussian_epsilon(mu, delta), rel=1e-7)
    assert gaussian_witness_alpha(mu, delta) == pytest.approx(math.exp(res.x), rel=1e-3)


def test_clopper_pearson_validates_its_input():
    """Before, it checked nothing: NaN counts came back as NaN, k > n as a number."""
    for args, name in [((np.nan, 10, 0.05), "successes"), ((11, 10, 0.05), "successes"), ((1, 0, 0.05), "trials"),
                       ((1.5, 10, 0.05), "successes"), ((1, 10, 1.0), "alpha"), (([1, 2], [3, 4, 5], 0.05), "shape")]:
        with pytest.raises(ValueError, match=name):
            clopper_pearson_upper(*args)
    assert isinstance(clopper_pearson_upper(0, 2500, 0.025), float)
    np.testing.assert_allclose(clopper_pearson_upper([0, 1], 10, 0.05),
                               [_cp_upper_oracle(0, 10, 0.05), _cp_upper_oracle(1, 10, 0.05)], rtol=1e-8)


def test_records_validate_their_fields():
    """Before, AuditResult and AuditCase held whatever they were given, NaN included."""
    r = audit_case("laplace_ok", trials=200, rng=0)
    fields = {f: getattr(r, f) for f in r.__dataclass_fields__}
    for name, bad in [("epsilon_lower", math.nan), ("true_positives", r.positives + 1), ("direction", 0),
                      ("confidence", 1.0), ("threshold", math.inf)]:
        with pytest.raises(ValueError, match=name):
            AuditResult(**{**fields, name: bad})
    c = AUDIT_CASES["laplace_ok"]
    cf = {f: getattr(c, f) for f in c.__dataclass_fields__}
    for name, bad in [("x", math.nan), ("claimed_epsilon", -1.0), ("exact_epsilon", math.nan),
                      ("claimed_delta", 1.0)]:
        with pytest.raises(ValueError, match=name):
            AuditCase(**{**cf, name: bad})


def test_a_failing_sampler_is_reported_by_name():
    """Before: an OverflowError (or a warning) raised by the caller's sampler escaped from audit_mechanism."""
    with pytest.raises(ValueError, match="mechanism_factory failed on x"):
        audit_mechanism(lambda d, size, rng: d + rng.laplace(0.0, 1.0, size), 10**400, 1.0, trials=100)
    with pytest.raises(ValueError, match="non-finite"):
        audit_mechanism(lambda d, size, rng: d * np.ones(size), 1e308 * 10, 1.0, trials=100)


def test_audit_case_curve_is_the_panels_sequence_of_audits():
    grid, bounds, last = audit_case_curve("rr_ok", 10_000, 0.95)
    assert grid == [312, 625, 1250, 2500, 5000, 10_000]
    assert bounds == [audit_case("rr_ok", trials=n, rng=i).epsilon_lower for i, n in enumerate(grid)]
    assert last == audit_case("rr_ok", trials=10_000, rng=5)
    seen = []
    grid, _, _ = audit_case_curve("rr_ok", 1000, progress=seen.append)
    assert grid == [100, 125, 250, 500, 1000]  # at least 100 runs each
    assert seen == [pytest.approx(k / 6) for k in range(1, 6)]


def test_case_sample_is_the_figures_draw():
    case = AUDIT_CASES["dpsgd_ok"]
    a, b = case.sample(500, 3)
    g = np.random.default_rng(3)
    np.testing.assert_array_equal(a, case.sampler(case.x, 500, g))
    np.testing.assert_array_equal(b, case.sampler(case.x_prime, 500, g))


def test_neighbour_game_tally_bound_and_claim():
    game = NeighbourGame(3.0, 1.0, rng=7)
    assert game.shift == 1.0 and game.sigma == 1.0  # the canary is clipped to C = 1; σ = z·C
    assert game.claimed_epsilon == pytest.approx(_mp_gaussian_epsilon(1.0, 1e-5), rel=1e-9)
    assert game.bound() == 0.0 and game.last_was_prime is None
    for _ in range(60):
        secret = game._secret_is_prime
        assert game.play(game.output > 0.5) == ((game.last_was_prime == secret) and game.last_right)
    assert game.rounds == 60 and len(game.history) == 60
    assert game.bound() == epsilon_lower_bound(game.true_positives, game.false_positives, game.positives,
                                               game.negatives, delta=1e-5) == game.history[-1]
    replay = NeighbourGame(3.0, 1.0, rng=7)
    for _ in range(60):
        replay.play(replay.output > 0.5)
    assert replay.history == game.history  # the seed fixes the game
    with pytest.raises(ValueError, match="noise_multiplier"):
        NeighbourGame(1.0, 0.0)
    with pytest.raises(TypeError, match="says_prime"):
        game.play("x′")
