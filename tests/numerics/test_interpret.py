"""dpviz.interpret: the posterior bound against direct Bayes computations over small mechanisms' outputs and
against an exact linear program over every (ε, δ)-DP pair of output laws on small supports, its monotonicity and
range (hypothesis), the Gaussian reading of zCDP against numerical integration, the accuracy → ε calibrations
against scipy's tails and their crossover, and the per-release budget against the accountants."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats
from scipy.optimize import linprog

from dpviz import interpret as I
from dpviz import mechanisms as M
from dpviz.accountants.compare import exact_gaussian_sigma
from dpviz.tradeoff import dp_region_lower_bound


def _bayes(prior: float, p_in: float, p_out: float) -> float:
    """P[in | S] by Bayes' rule from P[S | in], P[S | out]."""
    return prior * p_in / (prior * p_in + (1 - prior) * p_out)


PRIORS = [1e-4, 0.01, 0.1, 0.3, 0.5, 0.9, 0.999]


# ---------------------------------------------------------------------------------------------- posterior bound


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, math.log(3), 2.0, 5.0, 10.0])
def test_randomized_response_attains_the_bound(eps):
    # "in" = the bit is 1; the mechanism's own pmf; the worst output's posterior equals the bound
    rr = M.RandomizedResponse(eps)
    p1, p0 = rr.pmf([0, 1], value=1), rr.pmf([0, 1], value=0)
    for prior in PRIORS:
        worst = max(_bayes(prior, p1[k], p0[k]) for k in (0, 1))
        assert I.posterior_bound(prior, eps) == pytest.approx(worst, rel=1e-12, abs=0)


@pytest.mark.parametrize("scale", [0.5, 1.0, 3.0])
def test_discrete_laplace_every_event_stays_under_the_bound_and_a_single_output_reaches_it(scale):
    m = M.DiscreteLaplace(scale)  # x = 0 (out), x′ = 1 (in): pure ε = 1/scale
    eps = m.pure_epsilon
    k = np.arange(-25, 27)
    p_in, p_out = m.pmf(k, value=1), m.pmf(k, value=0)
    rng = np.random.default_rng(7)
    events = [np.zeros(k.size, bool) for _ in range(0)]
    for _ in range(400):  # random unions of outputs
        events.append(rng.random(k.size) < rng.random())
    for a, b in itertools.combinations(range(0, k.size, 5), 2):  # intervals
        ev = np.zeros(k.size, bool)
        ev[a:b] = True
        events.append(ev)
    for prior in PRIORS:
        bound = I.posterior_bound(prior, eps)
        for ev in events:
            if ev.any():
                assert _bayes(prior, p_in[ev].sum(), p_out[ev].sum()) <= bound * (1 + 1e-12)
        singles = max(_bayes(prior, p_in[i], p_out[i]) for i in range(k.size))
        assert singles == pytest.approx(bound, rel=1e-9, abs=0)


@pytest.mark.slow
def test_delta_bound_holds_for_every_event_of_an_eps_delta_mechanism():
    # TDLap is (ε, δ)-DP but not ε-DP: the ε-DP bound fails for some events, the event bound never does
    m = M.TruncatedDiscreteLaplace(1.0, 0.05)
    eps = 1.0
    k = np.arange(-m.kappa - 2, m.kappa + 3)
    p_in, p_out = m.pmf(k, value=1), m.pmf(k, value=0)
    # δ the mechanism needs at ε, by brute force over outputs (hockey-stick, both directions)
    delta = max(np.maximum(p_in - math.exp(eps) * p_out, 0).sum(), np.maximum(p_out - math.exp(eps) * p_in, 0).sum())
    assert 0 < delta <= 0.05
    rng = np.random.default_rng(11)
    events = [rng.random(k.size) < 0.5 for _ in range(3000)] + [np.arange(k.size) == i for i in range(k.size)]
    violated_pure = False
    for prior in [0.01, 0.2, 0.5]:
        for ev in events:
            q = min(p_out[ev].sum(), 1.0)  # a sum of probabilities may round above 1
            if q == 0 or not ev.any():
                continue
            post = _bayes(prior, p_in[ev].sum(), q)
            assert post <= I.posterior_bound(prior, eps, delta, event_probability=q) * (1 + 1e-12)
            violated_pure |= post > I.posterior_bound(prior, eps) * (1 + 1e-9)
    assert violated_pure  # δ matters: some event beats the ε-only bound


def test_delta_bound_is_bayes_at_the_extreme_mechanism():
    # a two-output mechanism with P[S | in] = e^ε q + δ exactly: the bound is its posterior
    eps, delta, q = 1.0, 1e-3, 1e-3
    for prior in PRIORS:
        direct = _bayes(prior, math.exp(eps) * q + delta, q)
        assert I.posterior_bound(prior, eps, delta, event_probability=q) == pytest.approx(direct, rel=1e-12, abs=0)


def _lp_largest_event_probability(eps: float, delta: float, q: float, m: int, event: tuple) -> float:
    """Exact oracle: max P[S | x] over every pair of output laws P = M(x), Q = M(x′) on m outputs that is
    (ε, δ)-DP in both directions for *every* set of outputs, with Q(S) = q (a linear program, solved by HiGHS)."""
    e = math.exp(eps)
    rows, rhs = [], []
    for r in range(1, m + 1):
        for t in itertools.combinations(range(m), r):
            for sign in (1, -1):  # P(T) − e^ε Q(T) ≤ δ and Q(T) − e^ε P(T) ≤ δ
                row = np.zeros(2 * m)
                row[list(t)] = 1.0 if sign == 1 else -e
                row[[m + i for i in t]] = -e if sign == 1 else 1.0
                rows.append(row)
                rhs.append(delta)
    ind = np.array([1.0 if i in event else 0.0 for i in range(m)])
    a_eq = np.array([np.r_[np.ones(m), np.zeros(m)], np.r_[np.zeros(m), np.ones(m)], np.r_[np.zeros(m), ind]])
    res = linprog(-np.r_[ind, np.zeros(m)], A_ub=np.array(rows), b_ub=rhs, A_eq=a_eq, b_eq=[1.0, 1.0, q],
                  bounds=[(0, 1)] * (2 * m), method="highs")
    assert res.status == 0
    return -res.fun


def _event_only_bound(prior: float, eps: float, delta: float, q: float) -> float:
    """The former formula: only the event S constrains, a = min(1, e^ε q + δ) (an upper bound, not attained)."""
    return _bayes(prior, min(1.0, math.exp(eps) * q + delta), q)


_GRID = [(eps, delta, q) for eps in (0.0, 0.1, 0.5, 1.0, math.log(3), 2.0, 5.0)
         for delta in (0.0, 1e-6, 1e-3, 0.01, 0.1, 0.3)
         for q in (1e-6, 1e-3, 0.01, 0.1, 0.25, 0.5, 0.8, 0.99, 1.0)]


@pytest.mark.slow
@pytest.mark.parametrize("support, event", [(2, (0,)), (3, (0,)), (3, (0, 1)), (4, (0, 1))])
def test_event_bound_is_the_exact_maximum_over_all_dp_pairs_lp_oracle(support, event):
    for eps, delta, q in _GRID:
        a_max = _lp_largest_event_probability(eps, delta, q, support, event)
        for prior in (0.01, 0.5, 0.9):
            assert I.posterior_bound(prior, eps, delta, event_probability=q) == pytest.approx(
                _bayes(prior, a_max, q), rel=1e-7, abs=1e-12)


@pytest.mark.slow
def test_the_event_only_formula_fails_the_tightness_test_in_a_quarter_of_the_grid_delta_zero_included():
    def exact(eps, delta, q):
        return _bayes(0.5, _lp_largest_event_probability(eps, delta, q, 2, (0,)), q)

    above = [(eps, delta, q) for eps, delta, q in _GRID if _event_only_bound(0.5, eps, delta, q) > exact(eps, delta, q)
             * (1 + 1e-9)]
    assert len(above) >= len(_GRID) // 4
    assert any(delta == 0.0 for _, delta, _ in above)
    # the former docstring example: 0.752475… is not attainable, 0.750831 is
    assert _event_only_bound(0.5, math.log(3), 0.01, 0.25) == pytest.approx(0.752475247525, abs=1e-12)
    assert I.posterior_bound(0.5, math.log(3), 0.01, event_probability=0.25) == pytest.approx(0.7508305647840532,
                                                                                             rel=1e-13)


def test_the_largest_event_probability_is_one_minus_the_trade_off_bound():
    # a* = 1 − f_{ε,δ}(q): the largest power at level q (Kairouz, Oh & Viswanath 2015, Thm 2.1)
    for eps, delta, q in _GRID:
        post = I.posterior_bound(0.5, eps, delta, event_probability=q)
        a_star = q * post / (1 - post)  # invert Bayes at p = ½
        assert a_star == pytest.approx(1 - dp_region_lower_bound(q, eps, delta), rel=1e-9, abs=1e-15)


def test_below_the_eps_only_bound_exactly_when_the_complement_or_the_cap_binds():
    for eps, delta, q in _GRID:
        if eps == 0.0:
            continue
        a_star = min(1.0, math.exp(eps) * q + delta, 1 - math.exp(-eps) * (1 - q - delta))
        below = I.posterior_bound(0.3, eps, delta, event_probability=q) < I.posterior_bound(0.3, eps) * (1 - 1e-12)
        assert below == (a_star < math.exp(eps) * q * (1 - 1e-12))
    # δ = 0: strictly below once q > 1/(1 + e^ε) (randomized response says "in" about someone out that often)
    eps = 1.0
    assert I.posterior_bound(0.3, eps, 0.0, event_probability=1 / (1 + math.e)) == pytest.approx(
        I.posterior_bound(0.3, eps), rel=1e-12)
    assert I.posterior_bound(0.3, eps, 0.0, event_probability=0.3) < I.posterior_bound(0.3, eps)


def test_tiny_events_keep_their_precision():
    # e^ε·q for q = 1e-300: no cancellation to 0 (1 − f(q) would lose it)
    assert I.posterior_bound(0.5, 1.0, 0.0, event_probability=1e-300) == pytest.approx(
        math.e / (1 + math.e), rel=1e-14)
    assert I.posterior_bound(0.5, 1e-12, 0.0, event_probability=0.5) == pytest.approx(0.5, rel=1e-11)


def test_broadcast_size_is_capped_by_name():
    big = np.zeros(10_001)
    with pytest.raises(ValueError, match=r"the broadcast size of prior, epsilon = 100020001 is not "
                                         r"allowed: must be <= 10000000"):
        I.posterior_bound(big + 0.5, big[:, None] + 1.0)
    with pytest.raises(ValueError, match="prior, epsilon, event_probability"):
        I.posterior_bound([0.5, 0.5], [1.0, 1.0, 1.0], 0.0, event_probability=0.5)


def test_delta_makes_rare_events_vacuous_and_worst_case_is_one():
    assert I.posterior_bound(0.01, 1.0, 1e-6) == 1.0
    assert I.posterior_bound(0.0, 1.0, 1e-6) == 0.0
    tiny = I.posterior_bound(0.01, 1.0, 1e-6, event_probability=1e-12)
    assert tiny > 0.999
    common = I.posterior_bound(0.01, 1.0, 1e-6, event_probability=0.2)  # e^ε·q < 1: the ε-only bound + O(δ/q)
    assert common == pytest.approx(I.posterior_bound(0.01, 1.0), rel=1e-3)


def test_closed_form_values_and_extremes():
    assert I.posterior_bound(0.25, math.log(3)) == pytest.approx(0.5, rel=1e-14)  # odds 1/3 × 3 = 1
    assert I.posterior_bound(0.5, 0.0) == 0.5
    assert I.posterior_bound(0.0, 10.0) == 0.0 and I.posterior_bound(1.0, 10.0) == 1.0
    assert I.posterior_bound(1e-3, 800.0) == 1.0  # no overflow
    out = I.posterior_bound(np.array([0.1, 0.2]), np.array([[1.0], [2.0]]))
    assert out.shape == (2, 2)
    assert out[1, 0] == pytest.approx(math.e ** 2 * 0.1 / (0.9 + math.e ** 2 * 0.1), rel=1e-14)


@given(p=st.floats(0, 1), e1=st.floats(0, 30), e2=st.floats(0, 30), d=st.floats(0, 0.5),
       q=st.floats(1e-12, 1))
def test_monotone_and_in_range(p, e1, e2, d, q):
    lo, hi = sorted((e1, e2))
    a = I.posterior_bound(p, lo)
    b = I.posterior_bound(p, hi)
    assert p - 1e-15 <= a <= b + 1e-15 <= 1 + 1e-15
    with_delta = I.posterior_bound(p, lo, d, event_probability=q)
    assert I.posterior_bound(p, lo, 0.0, event_probability=q) - 1e-12 <= with_delta <= 1.0
    assert with_delta <= I.posterior_bound(p, hi, min(d * 1.5, 0.9), event_probability=q) + 1e-12
    assert I.posterior_bound(p, lo, d, event_probability=min(1.0, q * 2)) <= with_delta + 1e-12


@given(p1=st.floats(0, 1), p2=st.floats(0, 1), e=st.floats(0, 30))
def test_monotone_in_prior(p1, p2, e):
    lo, hi = sorted((p1, p2))
    assert I.posterior_bound(lo, e) <= I.posterior_bound(hi, e) + 1e-15


@pytest.mark.parametrize("kwargs, name", [
    (dict(prior=1.5, epsilon=1.0), "prior"),
    (dict(prior=-0.1, epsilon=1.0), "prior"),
    (dict(prior=0.5, epsilon=-1.0), "epsilon"),
    (dict(prior=0.5, epsilon=float("nan")), "epsilon"),
    (dict(prior=[0.5, 2.0], epsilon=1.0), "prior"),
    (dict(prior=0.5, epsilon=1.0, delta=1.0), "delta"),
    (dict(prior=0.5, epsilon=1.0, delta=0.1, event_probability=0.0), "event_probability"),
    (dict(prior=0.5, epsilon=1.0, delta=0.1, event_probability=1.5), "event_probability"),
])
def test_bad_input_names_the_parameter_and_range(kwargs, name):
    with pytest.raises(ValueError, match=name) as info:
        I.posterior_bound(**kwargs)
    assert "must be" in str(info.value)


def test_epsilon_for_posterior_inverts_the_bound():
    for prior, cap in [(0.01, 0.05), (0.1, 0.5), (0.5, 0.99)]:
        e = I.epsilon_for_posterior(prior, cap)
        assert I.posterior_bound(prior, e) == pytest.approx(cap, rel=1e-12)
    with pytest.raises(ValueError, match="posterior_cap"):
        I.epsilon_for_posterior(0.5, 0.4)


# ---------------------------------------------------------------------------------------------- calibration


@pytest.mark.parametrize("alpha, beta", [(1.0, 0.05), (10.0, 1e-3), (100.0, 0.5)])
def test_laplace_accuracy_meets_the_target_exactly(alpha, beta):
    eps = I.laplace_epsilon_for_accuracy(alpha, beta)
    b = 1.0 / eps  # Laplace mechanism, Δ = 1
    assert 2 * stats.laplace.sf(alpha, scale=b) == pytest.approx(beta, rel=1e-10)


@pytest.mark.parametrize("alpha, beta, delta", [(1.0, 0.05, 1e-6), (10.0, 1e-3, 1e-10), (100.0, 0.2, 1e-3)])
def test_gaussian_accuracy_meets_the_target_and_is_the_smallest_epsilon(alpha, beta, delta):
    sigma = I.gaussian_sigma_for_accuracy(alpha, beta)
    assert 2 * stats.norm.sf(alpha / sigma) == pytest.approx(beta, rel=1e-9)
    eps = I.gaussian_epsilon_for_accuracy(alpha, beta, delta)
    assert M.Gaussian(sigma).delta(eps) <= delta  # σ_max is enough at ε ...
    assert M.Gaussian(sigma).delta(eps * (1 - 1e-9)) > delta  # ... and not at a smaller ε
    assert M.analytic_gaussian_sigma(eps, delta) == pytest.approx(sigma, rel=1e-9)


def test_accuracy_curves_match_the_pointwise_calibrations_and_laplace_wins_for_one_count():
    alphas = np.array([0.5, 3.0, 40.0])
    c = I.accuracy_curves(alphas, 0.05, 1e-9)
    for a, e_l, e_g in zip(alphas, c["epsilon_laplace"], c["epsilon_gaussian"]):
        assert 2 * stats.laplace.sf(a, scale=1 / e_l) == pytest.approx(0.05, rel=1e-10)
        assert M.analytic_gaussian_sigma(e_g, 1e-9) == pytest.approx(I.gaussian_sigma_for_accuracy(a, 0.05), rel=1e-9)
    assert np.all(c["epsilon_laplace"] < c["epsilon_gaussian"])  # one count, small δ: Laplace needs less ε
    with pytest.raises(ValueError, match="alphas"):
        I.accuracy_curves([0.0, 1.0], 0.05, 1e-6)
    with pytest.raises(ValueError, match="beta_fail"):
        I.laplace_epsilon_for_accuracy(1.0, 1.0)
    with pytest.raises(ValueError, match="alpha_acc"):
        I.gaussian_sigma_for_accuracy(0.0, 0.05)


def test_per_release_budget_against_the_accountants():
    ks = np.array([1, 2, 12, 52, 365])
    r = I.per_release_budget(2.0, 1e-6, ks)
    for i, k in enumerate(ks):
        assert r["sigma_exact"][i] == pytest.approx(exact_gaussian_sigma(2.0, 1e-6, int(k)), rel=1e-12)
        assert r["sigma_basic"][i] == pytest.approx(M.analytic_gaussian_sigma(2.0 / k, 1e-6 / k), rel=1e-12)
        # the per-release ε at δ/k is the exact ε of one release
        assert r["eps_step_exact"][i] == pytest.approx(M.Gaussian(r["sigma_exact"][i]).epsilon(1e-6 / k), rel=1e-9)
    assert r["eps_basic"].tolist() == pytest.approx((2.0 / ks).tolist(), rel=1e-15)
    assert r["sigma_basic"][0] == pytest.approx(r["sigma_exact"][0], rel=1e-12)
    assert np.all(r["sigma_exact"][1:] < r["sigma_basic"][1:])  # exact accounting needs less noise
    assert np.all(r["eps_step_exact"][1:] > r["eps_basic"][1:])
    one = I.per_release_budget(2.0, 1e-6, 12)
    assert one["sigma_exact"] == pytest.approx(r["sigma_exact"][2], rel=1e-15)
    with pytest.raises(ValueError, match="releases"):
        I.per_release_budget(1.0, 1e-6, 0)
    with pytest.raises(ValueError, match="delta_total"):
        I.per_release_budget(1.0, 0.0, 3)


# ---------------------------------------------------------------------------------------------- Gaussian reading


@pytest.mark.parametrize("sigmas", [(1.0,), (0.7, 2.0, 5.0), (3.0,) * 12])
def test_gaussian_reading_of_composed_gaussians(sigmas):
    # ρ = Σ 1/(2σ²) (Δ = 1): μ = √(2ρ) is the μ of the composed Gaussian (Dong, Roth & Su 2022, Cor. 3.3)
    rho = sum(0.5 / s**2 for s in sigmas)
    r = I.gaussian_reading(rho)
    assert r["mu"] == pytest.approx(math.sqrt(sum(1 / s**2 for s in sigmas)), rel=1e-14)
    # the advantage is the total variation between N(0, 1) and N(μ, 1), integrated numerically ...
    mu = r["mu"]
    tv, _ = integrate.quad(lambda x: abs(stats.norm.pdf(x, mu) - stats.norm.pdf(x)) / 2, -40, 40 + mu, points=[mu / 2])
    assert r["advantage"] == pytest.approx(tv, rel=1e-9)
    # ... and the largest 1 − α − β on the trade-off curve β = Φ(Φ⁻¹(1 − α) − μ)
    alphas = np.linspace(1e-6, 1 - 1e-6, 200_001)
    best = np.max(1 - alphas - stats.norm.cdf(stats.norm.ppf(1 - alphas) - mu))
    assert r["advantage"] == pytest.approx(best, rel=1e-8)


def test_gaussian_reading_of_the_census_persons_file():
    r = I.gaussian_reading(2.56, 17.0)
    assert r["mu"] == pytest.approx(2.262741699796952, rel=1e-14)
    assert r["advantage"] == pytest.approx(2 * stats.norm.cdf(r["mu"] / 2) - 1, rel=1e-13)
    assert r["loss_sd"] == pytest.approx((17.0 - 2.56) / math.sqrt(5.12), rel=1e-14)
    zero = I.gaussian_reading(0.0, 1.0)
    assert zero == {"rho": 0.0, "mu": 0.0, "advantage": 0.0, "loss_sd": 0.0}
    with pytest.raises(ValueError, match="rho"):
        I.gaussian_reading(-1.0)


# ---------------------------------------------------------------------------------------------- crossover


def test_the_gaussian_does_not_catch_up_at_the_lesson_defaults():
    # α = 10, β = 5 %: at δ = 10⁻³ the Gaussian still needs 0.44 against Laplace's 0.30
    assert I.gaussian_epsilon_for_accuracy(10.0, 0.05, 1e-3) == pytest.approx(0.4431, abs=5e-5)
    assert I.laplace_epsilon_for_accuracy(10.0, 0.05) == pytest.approx(math.log(20) / 10, rel=1e-15)


@pytest.mark.parametrize("beta, delta", [(0.05, 1e-3), (0.05, 1e-6), (1e-3, 1e-3)])
def test_accuracy_crossover_alpha_is_where_the_curves_meet(beta, delta):
    a = I.accuracy_crossover_alpha(beta, delta)
    ratio = lambda x: I.gaussian_epsilon_for_accuracy(x, beta, delta) / I.laplace_epsilon_for_accuracy(x, beta)  # noqa
    assert ratio(a) == pytest.approx(1.0, abs=1e-9)
    assert ratio(a * 0.99) > 1 > ratio(a * 1.01)
    grid = np.logspace(-3, math.log10(a) - 1e-3, 60)  # nowhere below it does the Gaussian need less
    assert all(ratio(x) > 1 for x in grid)


@pytest.mark.slow
def test_accuracy_crossover_beta_is_where_the_curves_meet():
    b = I.accuracy_crossover_beta(10.0, 1e-3)
    ratio = lambda x: I.gaussian_epsilon_for_accuracy(10.0, x, 1e-3) / I.laplace_epsilon_for_accuracy(10.0, x)  # noqa
    assert ratio(b) == pytest.approx(1.0, abs=1e-9)
    assert ratio(b * 1.1) > 1 > ratio(b / 1.1)
    assert 1e-6 < b < 1e-5
    with pytest.raises(ValueError, match="do not cross"):
        I.accuracy_crossover_beta(0.5, 1e-6)  # α < Δ: the Gaussian never needs less


# ---------------------------------------------------------------------------------------------- boundary defects


def test_a_subnormal_accuracy_target_or_failure_probability_gives_an_answer_without_warnings():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert I.gaussian_epsilon_for_accuracy(5e-324, 0.05, 1e-6) == math.inf  # σ so small that μ overflows
        assert I.laplace_epsilon_for_accuracy(5e-324, 0.05) == math.inf
        s = I.gaussian_sigma_for_accuracy(1.0, 5e-324)  # β/2 underflows to 0: Φ⁻¹ is computed from ln β
        assert s == pytest.approx(1 / 38.5, rel=0.01) and math.isfinite(s)
        assert math.isfinite(I.gaussian_epsilon_for_accuracy(10.0, 5e-324, 1e-6))
        c = I.accuracy_curves([1.0, 10.0], 0.05, 1e-6, 1e308)
        assert np.all(c["epsilon_laplace"] == math.inf)


def test_curve_sizes_are_capped_by_name():
    with pytest.raises(ValueError, match=r"len\(alphas\) = 10001 is not allowed: must be <= 10000 "
                                         r"\(the cap on the points of one curve"):
        I.accuracy_curves(np.linspace(1, 2, 10_001), 0.05, 1e-6)
    with pytest.raises(ValueError, match=r"len\(releases\) = 10001 is not allowed"):
        I.per_release_epsilon(1.0, 1e-6, np.arange(1, 10_002))
    with pytest.raises(ValueError, match=r"len\(alpha_acc\) = 10001 is not allowed"):
        I.gaussian_epsilon_for_accuracy(np.linspace(1, 2, 10_001), 0.05, 1e-6)
    with pytest.raises(ValueError, match="releases"):
        I.per_release_epsilon(1.0, 1e-6, [[1], [1, 2]])


def test_boundary_messages_name_the_callers_parameters():
    # δ/k underflowing to 0 was refused as "deltas = 0.0", a name of an inner function
    with pytest.raises(ValueError, match=r"delta_total = 5e-324 is not allowed with releases up to 12"):
        I.per_release_epsilon(1.0, 5e-324, 12)
    # 2ρ overflowed for ρ = 1e308 and the message named "mu"
    r = I.gaussian_reading(1e308)
    assert math.isfinite(r["mu"]) and r["advantage"] == 1.0
    with pytest.raises(ValueError, match=r"delta = 5e-324.*do not cross"):
        I.accuracy_crossover_alpha(0.05, 5e-324)
