"""The composition lab's model (dpviz.accountants.compare), checked against independent oracles.

Oracles (never the code under test):
* the Balle–Wang Gaussian profile δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), μ = Δ√k/σ, in mpmath at 50 digits
  (Balle & Wang 2018, Thm 8; k Gaussians = one Gaussian of σ/√k, Dong–Roth–Su 2019, Cor. 3.3);
* the exact profile of k randomized responses by brute force over the binomial number of "kept" answers
  (privacy loss (2j − k)ε₀), in mpmath — the worst case of the optimal composition theorem (KOV 2015, Thm 3.3);
* the generic group-privacy formula (kε, δ(e^{kε} − 1)/(e^{ε} − 1)) written out by hand.
"""

import math

import mpmath as mp
import numpy as np
import pytest
from _oracles import bw_delta, exact_gauss_eps, invert
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz.accountants import ACCOUNTANTS
from dpviz.accountants import compare as C

mp.mp.dps = 50


# ------------------------------------------------------------------------------------------------ oracles


def rr_delta(eps, eps0, k):
    """δ(ε) of k-fold randomized response with parameter ε₀, exact (brute force over the binomial)."""
    eps, eps0 = mp.mpf(eps), mp.mpf(eps0)
    p = mp.e ** eps0 / (1 + mp.e ** eps0)
    tot = mp.mpf(0)
    for j in range(k + 1):
        px = mp.binomial(k, j) * p ** j * (1 - p) ** (k - j)
        py = mp.binomial(k, j) * (1 - p) ** j * p ** (k - j)
        tot += max(mp.mpf(0), px - mp.e ** eps * py)
    return tot




# ------------------------------------------------------------------------------------------------ small helpers

def test_count_grid_is_log_spaced_and_covers_the_range():
    g = C.count_grid(100_000, 13)
    assert g[0] == 1 and g[-1] == 100_000
    assert all(b > a for a, b in zip(g, g[1:], strict=False))
    assert 10 <= len(g) <= 13
    ratios = np.diff(np.log10(g[2:]))  # beyond the first integers the spacing is even in log k
    assert np.allclose(ratios, ratios[0], atol=0.02)


def test_query_sensitivity_doubles_for_replace_one_except_randomized_response():
    assert C.query_sensitivity("gaussian", "add_remove") == 1.0
    assert C.query_sensitivity("laplace", "replace_one") == 2.0
    assert C.query_sensitivity("rr", "replace_one") == 1.0


@pytest.mark.parametrize("sigma,k,delta", [(4.0, 100, 1e-5), (1.0, 1, 1e-6), (30.0, 10_000, 1e-8), (0.7, 3, 1e-3)])
def test_exact_epsilon_matches_balle_wang_in_mpmath(sigma, k, delta):
    got = C.exact_epsilon("gaussian", sigma, k, 1.0, delta)
    want = exact_gauss_eps(sigma, k, delta)
    assert got == pytest.approx(want, rel=1e-7, abs=1e-10)


def test_exact_epsilon_replace_one_is_sensitivity_two():
    got = C.exact_epsilon("gaussian", 4.0, 50, 1.0, 1e-5, "replace_one")
    assert got == pytest.approx(exact_gauss_eps(4.0, 50, 1e-5, sens=2.0), rel=1e-7)


def test_exact_epsilon_only_for_unsampled_gaussians():
    assert C.exact_epsilon("gaussian", 4.0, 10, 0.5, 1e-5) is None
    assert C.exact_epsilon("laplace", 4.0, 10, 1.0, 1e-5) is None


def test_exact_gaussian_sigma_is_the_smallest_sigma_meeting_the_target():
    for target, delta, k in [(1.0, 1e-5, 100), (0.5, 1e-6, 1), (4.0, 1e-5, 1000)]:
        s = C.exact_gaussian_sigma(target, delta, k)
        assert exact_gauss_eps(s, k, delta) <= target * (1 + 1e-9)
        assert exact_gauss_eps(s * (1 - 1e-6), k, delta) > target


# ------------------------------------------------------------------------------------------------ accountant numbers

def test_every_accountant_is_an_upper_bound_on_the_exact_gaussian_and_pld_brackets_it():
    exact = exact_gauss_eps(4.0, 100, 1e-5)
    res = {r.accountant: r for r in C.compare_accountants("gaussian", 4.0, 100, 1.0, 1e-5)}
    assert tuple(res) == tuple(ACCOUNTANTS)  # every accountant, in the accountants' order
    for name, r in res.items():
        if r.available:  # a valid (ε, δ) guarantee can never beat the exact profile
            assert r.epsilon >= exact * (1 - 1e-9), name
    pld = res["pld"]
    assert pld.available and pld.lower is not None
    assert pld.lower <= exact * (1 + 1e-9) and exact <= pld.epsilon * (1 + 1e-9)
    assert pld.epsilon == pytest.approx(exact, rel=1e-3)
    # basic composition is the loosest and grows linearly: far above the exact √k behaviour at k = 100
    assert res["basic"].epsilon > 3 * exact
    # the alternative conversions are never better than the improved / CKS ones
    assert res["rdp"].alternative >= res["rdp"].epsilon * (1 - 1e-12)
    assert res["zcdp"].alternative >= res["zcdp"].epsilon * (1 - 1e-12)


@pytest.mark.slow
def test_randomized_response_optimal_composition_is_exact_and_pld_brackets_it():
    eps0, k, delta = 0.1, 50, 1e-5
    truth = invert(lambda e: rr_delta(e, eps0, k), delta, hi=10.0)
    opt = C.epsilon_result("optimal", "rr", eps0, k, 1.0, delta)
    assert opt.epsilon == pytest.approx(truth, rel=1e-6)
    pld = C.epsilon_result("pld", "rr", eps0, k, 1.0, delta)
    assert pld.lower <= truth * (1 + 1e-9) <= pld.epsilon * (1 + 2e-9)
    basic = C.epsilon_result("basic", "rr", eps0, k, 1.0, delta)
    assert basic.epsilon == pytest.approx(k * eps0, rel=1e-12)  # pure DP: ε sums exactly


def test_optimal_is_not_applicable_to_a_subsampled_mechanism_and_says_why():
    r = C.epsilon_result("optimal", "gaussian", 1.0, 10, 0.1, 1e-5)
    if not r.available:
        assert r.error
    res = C.compare_accountants("gaussian", 1.0, 10, 0.1, 1e-5)
    assert any(x.available for x in res)


def test_epsilon_grows_with_k_for_every_accountant():
    counts = C.count_grid(1000, 6)
    res = C.epsilon_vs_count("gaussian", 4.0, 1.0, 1e-5, "add_remove", counts)
    for name, rs in res.items():
        eps = [r.epsilon for r in rs if r.available]
        assert eps == sorted(eps), name


@pytest.mark.slow
def test_group_privacy_curves_against_hand_formulas():
    c = C.group_privacy_curves("gaussian", 4.0, 1e-5, 12)
    eps1 = exact_gauss_eps(4.0, 1, 1e-5)
    assert c["eps1"] == pytest.approx(eps1, rel=1e-7)
    for i, k in enumerate(range(1, 13)):
        assert c["eps_generic"][i] == pytest.approx(k * eps1, rel=1e-7)
        want_d = min(1.0, 1e-5 * math.expm1(k * eps1) / math.expm1(eps1))  # capped at 1 (δ ≥ 1 is vacuous)
        assert c["delta_generic"][i] == pytest.approx(want_d, rel=1e-6)
        # exact: the same Gaussian with sensitivity k, i.e. noise σ/k, at the original δ
        assert c["eps_exact"][i] == pytest.approx(exact_gauss_eps(4.0 / k, 1, 1e-5), rel=1e-6)
    lap = C.group_privacy_curves("laplace", 10.0, 1e-5, 5)
    assert np.allclose(lap["eps_generic"], np.arange(1, 6) / 10.0, rtol=1e-12)
    assert np.allclose(lap["eps_exact"], np.arange(1, 6) / 10.0, rtol=1e-12)
    assert np.all(lap["delta_generic"] == 0.0)


# ------------------------------------------------------------------------------------------------ validation


@pytest.mark.parametrize("kwargs,name", [
    (dict(mechanism="cauchy"), "mechanism"),
    (dict(noise=-1.0), "σ"),
    (dict(mechanism="laplace", noise=0.0), "b"),
    (dict(mechanism="rr", noise=float("nan")), "ε_RR"),
    (dict(count=0), "count"),
    (dict(count=2.5), "count"),
    (dict(rate=0.0), "rate"),
    (dict(rate=1.5), "rate"),
    (dict(neighboring="swap"), "neighboring"),
])
def test_bad_settings_raise_value_errors_naming_the_parameter(kwargs, name):
    args = dict(mechanism="gaussian", noise=4.0, count=10, rate=1.0, neighboring="add_remove")
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        C.check_setting(**args)
    with pytest.raises(ValueError, match=name):
        C.epsilon_result("pld", delta=1e-5, **args)
    with pytest.raises(ValueError, match=name):
        C.exact_epsilon(delta=1e-5, **args)


@settings(max_examples=40, deadline=None)
@given(st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0000001, max_value=1e9),
                 st.just(float("nan")), st.just(float("inf"))))
def test_any_rate_outside_unit_interval_is_refused(rate):
    with pytest.raises(ValueError, match="rate"):
        C.epsilon_result("pld", "gaussian", 4.0, 10, rate, 1e-5)


def test_unknown_accountants_and_bad_deltas_are_refused_by_name():
    with pytest.raises(ValueError, match="accountant"):
        C.epsilon_result("moments", "gaussian", 4.0, 10, 1.0, 1e-5)
    with pytest.raises(ValueError, match="accountant"):
        C.compare_accountants("gaussian", 4.0, 10, 1.0, 1e-5, accountants=("basic", "moments"))
    for bad in (0.0, 1.0, -1e-5):
        with pytest.raises(ValueError, match="delta"):
            C.epsilon_result("basic", "gaussian", 4.0, 10, 1.0, bad)
    with pytest.raises(ValueError, match="target_epsilon"):
        C.calibrated_noise("pld", "gaussian", 0.0, 1e-5, 10, 1.0)
    with pytest.raises(ValueError, match="mechanism"):
        C.calibrated_noise("pld", "rr", 1.0, 1e-5, 10, 1.0)
    with pytest.raises(ValueError, match="max_group"):
        C.group_privacy_curves("gaussian", 4.0, 1e-5, 0)


# ------------------------------------------------------------------------------------------------ model details


def test_compare_accountants_follows_the_requested_order():
    lesson = ("basic", "advanced", "optimal", "zcdp", "rdp", "pld")
    res = C.compare_accountants("laplace", 10.0, 10, 1.0, 1e-5, accountants=lesson)
    assert tuple(r.accountant for r in res) == lesson
    default = {r.accountant: r for r in C.compare_accountants("laplace", 10.0, 10, 1.0, 1e-5)}
    assert all(default[r.accountant] == r for r in res)
    out = C.epsilon_vs_count("laplace", 10.0, 1.0, 1e-5, "add_remove", (1, 10), accountants=("pld", "basic"))
    assert tuple(out) == ("pld", "basic")
    # pure DP: basic composition of k Laplace steps of scale b is exactly k/b (Dwork & Roth 2014, Thm 3.16)
    assert [r.epsilon for r in out["basic"]] == [pytest.approx(0.1, rel=1e-15), pytest.approx(1.0, rel=1e-15)]


def test_epsilon_vs_count_reports_progress_up_to_one():
    seen = []
    C.epsilon_vs_count("rr", 0.5, 1.0, 1e-5, "add_remove", (1, 2, 3), progress=seen.append)
    assert len(seen) == 3 * len(ACCOUNTANTS) and seen == sorted(seen) and seen[-1] == 1.0


def test_make_event_subsamples_below_rate_one_with_the_query_sensitivity():
    from dpviz.accountants import PoissonSampled
    from dpviz.mechanisms import Gaussian, RandomizedResponse

    ev = C.make_event("gaussian", 3.0, 0.25, "add_remove")
    assert isinstance(ev, PoissonSampled) and ev.rate == 0.25 and ev.mechanism == Gaussian(3.0, 1.0)
    assert C.make_event("gaussian", 3.0, 1.0, "replace_one") == Gaussian(3.0, 2.0)
    assert C.make_event("rr", 0.5, 1.0, "replace_one") == RandomizedResponse(0.5)


def test_reference_epsilon_prefers_the_exact_value_then_the_smallest_finite_bound():
    rs = [C.EpsilonResult("basic", 3.0), C.EpsilonResult("rdp", math.inf), C.EpsilonResult("optimal", None, error="x"),
          C.EpsilonResult("pld", 2.5, lower=2.4)]
    assert C.reference_epsilon(rs) == 2.5
    assert C.reference_epsilon(rs, exact=2.45) == 2.45
    assert C.reference_epsilon([C.EpsilonResult("rdp", math.inf)]) is None
    assert not C.EpsilonResult("optimal", None, error="x").available


@pytest.mark.parametrize("sigma,k,nb", [(4.0, 100, "add_remove"), (1.0, 3, "replace_one"),
                                        (30.0, 10_000, "add_remove")])
def test_exact_profile_is_the_balle_wang_profile_of_sigma_over_root_k(sigma, k, nb):
    sens = 2.0 if nb == "replace_one" else 1.0
    eps = [0.0, 0.05, 0.5, 2.0, 8.0]
    got = C.exact_profile("gaussian", sigma, k, 1.0, nb, eps)
    mu = sens * math.sqrt(k) / sigma
    for e, g in zip(eps, got, strict=True):
        want = float(bw_delta(e, mu))
        assert g == pytest.approx(want, rel=1e-9, abs=1e-300)
    assert C.exact_profile("gaussian", sigma, k, 0.5, nb, eps) is None
    assert C.exact_profile("laplace", sigma, k, 1.0, nb, eps) is None


@pytest.mark.parametrize("target,delta,k", [(1.0, 1e-5, 100), (0.5, 1e-6, 1), (4.0, 1e-5, 1000), (0.05, 1e-10, 7),
                                            (20.0, 1e-3, 3)])
def test_exact_gaussian_sigma_is_root_k_over_the_mpmath_mu(target, delta, k):
    # oracle: μ with δ(target; μ) = δ solved by bisection in mpmath (δ(ε; μ) increases in μ), then σ = √k/μ
    lo, hi = mp.mpf("1e-6"), mp.mpf(100)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if bw_delta(target, mid) <= delta else (lo, mid)
    mu = lo
    want = float(mp.sqrt(k) / mu)
    assert C.exact_gaussian_sigma(target, delta, k) == pytest.approx(want, rel=1e-12)


def test_privacy_profile_directions_and_errors():
    mu = math.sqrt(100) / 4.0
    grid = (0.5, 1.0, 2.0, 4.0)
    eps, d, dlow, err = C.privacy_profile("rdp", "gaussian", 4.0, 100, 1.0, "add_remove", grid)
    assert err is None and dlow is None and list(eps) == list(grid)
    for e, v in zip(eps, d, strict=True):  # an upper bound of the exact profile
        assert v >= float(bw_delta(e, mu)) * (1 - 1e-9)
    eps, d, dlow, err = C.privacy_profile("pld", "gaussian", 4.0, 100, 1.0, "add_remove", grid)
    assert np.all(dlow <= d)
    eps, d, dlow, err = C.privacy_profile("basic", "laplace", 10.0, 10, 1.0, "add_remove", grid)
    assert np.all(np.diff(eps) >= 0) and np.all(eps == pytest.approx(1.0, rel=1e-12))  # pure: ε = k/b at any δ
    eps, d, dlow, err = C.privacy_profile("optimal", "gaussian", 1.0, 10, 0.1, "add_remove", grid)
    assert (eps is None) == (err is not None)
    with pytest.raises(ValueError, match="epsilon"):
        C.privacy_profile("rdp", "gaussian", 4.0, 100, 1.0, "add_remove", (-1.0,))


@pytest.mark.slow
def test_group_privacy_curves_same_delta_column_against_mpmath():
    c = C.group_privacy_curves("gaussian", 4.0, 1e-5, 20)
    for i, k in enumerate(range(1, 21)):
        dk = c["delta_generic"][i]
        if dk >= 1.0:  # the generic bound says nothing: any ε is valid at δ = 1
            assert c["eps_exact_same_delta"][i] == 0.0
        else:  # the same Gaussian with sensitivity k, at the generic δ_k
            want = invert(lambda e, mu=k / 4.0: bw_delta(e, mu), dk)
            assert c["eps_exact_same_delta"][i] == pytest.approx(want, rel=1e-7)
    assert c["delta_generic"][-1] == 1.0 and c["delta1"] == 1e-5


# ------------------------------------------------------------------------------------------------ lesson-02 report

@pytest.mark.parametrize("mech, noise", [("gaussian", 4.0), ("laplace", 10.0), ("rr", 0.43)])
def test_long_compositions_give_ordered_finite_answers_without_silenced_warnings(mech, noise):
    # pytest turns numpy warnings into errors, and the builders no longer silence them (np.errstate was removed)
    k, delta = 100_000, 1e-5
    pld = C.epsilon_result("pld", mech, noise, k, 1.0, delta)
    rdp = C.epsilon_result("rdp", mech, noise, k, 1.0, delta)
    basic = C.epsilon_result("basic", mech, noise, k, 1.0, delta)
    assert pld.available and math.isfinite(pld.epsilon) and pld.lower <= pld.epsilon
    assert pld.epsilon <= rdp.epsilon <= basic.epsilon * (1 + 1e-12)
    # PLD's bracket at the lesson's grid budget is narrow (≤ 0.1 %; first-order rounding was ≈ k·h/2 wide)
    assert (pld.epsilon - pld.lower) <= 1e-3 * pld.epsilon
    if mech == "rr":  # exact binomial law: the bracket closes, no grid, and it equals the KOV optimum
        opt = C.epsilon_result("optimal", mech, noise, k, 1.0, delta)
        assert pld.lower == pld.epsilon == pytest.approx(opt.epsilon, rel=1e-12)
        assert C.pld_grid_step(mech, noise, k) == 0.0


def test_optimal_composition_of_631_gaussians_is_the_finite_kov_value():
    # the lesson-02 report: an overflow warning (error under pytest) and 572 against the exact 45.7; 572 is the
    # KOV bound (it only sees one (ε₀, δ₀) per step), finite, above the exact value and below basic composition
    opt = C.epsilon_result("optimal", "gaussian", 4.0, 631, 1.0, 1e-5)
    exact = C.exact_epsilon("gaussian", 4.0, 631, 1.0, 1e-5)
    basic = C.epsilon_result("basic", "gaussian", 4.0, 631, 1.0, 1e-5)
    assert exact == pytest.approx(45.74, abs=0.01)
    assert exact < opt.epsilon < basic.epsilon
    # the optimum over δ₀ is at most the KOV value at any admissible δ₀ (here δ/(2k)), and far above the exact ε
    from dpviz.accountants.optimal import kov_epsilon
    from dpviz.mechanisms import Gaussian

    d0 = 1e-5 / (2 * 631)
    assert opt.epsilon <= kov_epsilon(Gaussian(4.0).epsilon(d0), d0, 631, 1e-5)
    assert opt.epsilon > 10 * exact


def test_the_stepwise_calibration_pauses_and_returns_what_the_plain_one_does():
    """``calibrated_noise_steps`` yields a pause after each accountant evaluation of the search and returns the same
    (noise, reason) as ``calibrated_noise``; a remembered setting returns at once, without a pause."""
    from dpviz.accountants import calibrate_sigma, calibrate_sigma_steps

    def run(steps):
        pauses = 0
        while True:
            try:
                assert next(steps) is None
            except StopIteration as done:
                return done.value, pauses
            pauses += 1

    sigma, pauses = run(calibrate_sigma_steps(1.3, 1e-6, 7, None, "rdp"))
    assert sigma == calibrate_sigma(1.3, 1e-6, 7, None, "rdp") and pauses >= 3
    C._CALIBRATED.clear()
    value, pauses = run(C.calibrated_noise_steps("rdp", "gaussian", 1.3, 1e-6, 7, 1.0))
    assert value == (sigma, None) and pauses >= 3
    assert run(C.calibrated_noise_steps("rdp", "gaussian", 1.3, 1e-6, 7, 1.0)) == ((sigma, None), 0)
    assert C.calibrated_noise("rdp", "gaussian", 1.3, 1e-6, 7, 1.0) == (sigma, None)
    with pytest.raises(ValueError, match="target_epsilon"):
        C.calibrated_noise_steps("rdp", "gaussian", -1.0, 1e-6, 7, 1.0)  # checked at the call, not at the first step
