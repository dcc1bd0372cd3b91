"""Lesson 02 figure builders and their cached numbers, checked against independent oracles.

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
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz.plots import composition as C

mp.mp.dps = 50


# ------------------------------------------------------------------------------------------------ oracles

def bw_delta(eps, mu):
    eps, mu = mp.mpf(eps), mp.mpf(mu)
    return mp.ncdf(mu / 2 - eps / mu) - mp.e ** eps * mp.ncdf(-mu / 2 - eps / mu)


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


def invert(delta_fn, target, hi=200.0):
    """Smallest ε ≥ 0 with delta_fn(ε) ≤ target, by bisection in mpmath."""
    if delta_fn(0) <= target:
        return 0.0
    lo, hi = mp.mpf(0), mp.mpf(hi)
    for _ in range(120):
        mid = (lo + hi) / 2
        if delta_fn(mid) <= target:
            hi = mid
        else:
            lo = mid
    return float(hi)


def exact_gauss_eps(sigma, k, delta, sens=1.0):
    return invert(lambda e: bw_delta(e, sens * math.sqrt(k) / sigma), delta)


# ------------------------------------------------------------------------------------------------ small helpers

def test_count_grid_is_log_spaced_and_covers_the_range():
    g = C.count_grid(100_000, 13)
    assert g[0] == 1 and g[-1] == 100_000
    assert all(b > a for a, b in zip(g, g[1:]))
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


# ------------------------------------------------------------------------------------------------ validation

@pytest.mark.parametrize("kwargs,name", [
    (dict(mechanism="cauchy"), "mechanism"),
    (dict(noise=-1.0), "σ"),
    (dict(count=0), "count"),
    (dict(count=2.5), "count"),
    (dict(rate=0.0), "rate"),
    (dict(rate=1.5), "rate"),
    (dict(delta=0.0), "delta"),
    (dict(delta=1.0), "delta"),
    (dict(neighboring="swap"), "neighboring"),
])
def test_bad_settings_raise_named_value_errors(kwargs, name):
    args = dict(mechanism="gaussian", noise=4.0, count=10, rate=1.0, delta=1e-5, neighboring="add_remove")
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        C.accountant_bars_figure(**args)


@settings(max_examples=40, deadline=None)
@given(st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0000001, max_value=1e9),
                 st.just(float("nan")), st.just(float("inf"))))
def test_any_rate_outside_unit_interval_is_refused(rate):
    with pytest.raises(ValueError, match="rate"):
        C.epsilon_result("pld", "gaussian", 4.0, 10, rate, 1e-5)


def test_group_and_calibration_validation():
    with pytest.raises(ValueError, match="group"):
        C.group_privacy_figure("gaussian", 4.0, 1e-5, group=30, max_group=20)
    with pytest.raises(ValueError, match="mechanism"):
        C.calibration_figure("rr", 1.0, 1e-5, 10)
    with pytest.raises(ValueError, match="target_epsilon"):
        C.calibration_figure("gaussian", -1.0, 1e-5, 10)


# ------------------------------------------------------------------------------------------------ accountant numbers

def test_every_accountant_is_an_upper_bound_on_the_exact_gaussian_and_pld_brackets_it():
    exact = exact_gauss_eps(4.0, 100, 1e-5)
    res = {r.accountant: r for r in C.compare_accountants("gaussian", 4.0, 100, 1.0, 1e-5)}
    assert set(res) == set(C.ACCOUNTANT_ORDER)
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


# ------------------------------------------------------------------------------------------------ figures

def test_bars_figure_draws_one_bar_per_accountant_with_the_pld_bracket_and_the_exact_line():
    fig = C.accountant_bars_figure("gaussian", 4.0, 100, 1.0, 1e-5)
    assert isinstance(fig, go.Figure)
    bar = fig.data[0]
    assert list(bar.x) == [C.ACCOUNTANT_INFO[n].label for n in C.ACCOUNTANT_ORDER]
    res = C.compare_accountants("gaussian", 4.0, 100, 1.0, 1e-5)
    i = C.ACCOUNTANT_ORDER.index("pld")
    assert bar.y[i] == pytest.approx(res[i].epsilon)
    assert bar.error_y.arrayminus[i] == pytest.approx(res[i].epsilon - res[i].lower)
    exact = exact_gauss_eps(4.0, 100, 1e-5)
    line = [t for t in fig.data if t.type == "scatter"][0]
    assert line.y[0] == pytest.approx(exact, rel=1e-7)
    assert fig.layout.template.layout.font.family  # the shared template is applied
    finite = [r.epsilon for r in res if r.available and math.isfinite(r.epsilon)] + [res[i].lower, exact]
    assert (fig.layout.yaxis.type == "log") == (max(finite) / min(finite) > 20)
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert "Source" in texts and "KOV 2015" in texts


def test_bars_figure_uses_a_linear_axis_when_the_bars_are_close():
    fig = C.accountant_bars_figure("rr", 0.5, 1, 1.0, 1e-5)  # k = 1: every accountant near ε₀
    assert fig.layout.yaxis.type != "log"


def test_epsilon_vs_count_figure_traces_match_the_numbers():
    fig = C.epsilon_vs_count_figure("gaussian", 4.0, 1.0, 1e-5, "add_remove", max_count=1000, n_points=6)
    counts = C.count_grid(1000, 6)
    lines = {t.name: t for t in fig.data if t.mode == "lines+markers"}
    pld = lines["PLD"]
    assert list(pld.x) == list(counts)
    for k, y in zip(pld.x, pld.y):
        assert y == pytest.approx(C.epsilon_result("pld", "gaussian", 4.0, int(k), 1.0, 1e-5).epsilon)
    exact = [t for t in fig.data if t.name.startswith("exact")][0]
    assert exact.y[-1] == pytest.approx(exact_gauss_eps(4.0, 1000, 1e-5), rel=1e-7)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    # basic composition: slope 1 on log-log axes at large k (ε = k·ε₀(δ/k) grows slightly faster than k)
    basic = lines["Basic"]
    slope = math.log(basic.y[-1] / basic.y[-2]) / math.log(basic.x[-1] / basic.x[-2])
    assert 1.0 <= slope < 1.3


def test_slope_claim_of_the_lesson_sqrt_k_then_linear_again():
    # Lesson 02 and the ε-vs-k caption say: slope ½ while kρ < 4 ln(1/δ), back towards 1 once the mean loss kρ
    # dominates (ε ≈ kρ + 2√(kρ ln 1/δ), Bun–Steinke 2016 Prop. 1.3). Checked on the exact Gaussian (mpmath oracle)
    # at the lesson's default σ = 4 (ρ = 1/32, turn near k ≈ 1500), and on the figure's exact line.
    def eps(k):
        return invert(lambda e: bw_delta(e, math.sqrt(k) / 4.0), 1e-5, hi=1e4)

    def slope(k1, k2):
        return math.log(eps(k2) / eps(k1)) / math.log(k2 / k1)

    assert 0.5 <= slope(1, 4) < 0.6
    assert 0.9 < slope(50_000, 100_000) <= 1.0
    fig = C.epsilon_vs_count_figure("gaussian", 4.0, 1.0, 1e-5, "add_remove", max_count=100_000, n_points=6)
    exact = [t for t in fig.data if t.name.startswith("exact")][0]
    s = [math.log(exact.y[i + 1] / exact.y[i]) / math.log(exact.x[i + 1] / exact.x[i]) for i in range(len(exact.x) - 1)]
    assert s[0] < 0.65 and s[-1] > 0.9 and all(b > a for a, b in zip(s, s[1:]))
    caption = " ".join(a.text for a in fig.layout.annotations)
    assert "4 ln(1/δ)" in caption and "Bun–Steinke 2016" in caption


def test_privacy_profile_curves_lie_above_the_exact_profile_and_the_band_is_drawn():
    fig = C.privacy_profile_figure("gaussian", 4.0, 100, 1.0, 1e-5, n_points=15)
    mu = math.sqrt(100) / 4.0
    names = [t.name for t in fig.data]
    assert "PLD band (optimistic…pessimistic)" in names
    for t in fig.data:
        if t.name in {C.ACCOUNTANT_INFO[n].label for n in C.ACCOUNTANT_ORDER} and len(t.x):
            for x, y in zip(t.x, t.y):
                assert y >= float(bw_delta(x, mu)) * (1 - 1e-6) - 1e-15, (t.name, x)
            assert all(b <= a * (1 + 1e-9) + 1e-15 for a, b in zip(t.y, t.y[1:])), t.name  # δ(ε) non-increasing
    assert fig.layout.yaxis.type == "log"


def test_calibration_figure_never_overshoots_and_marks_the_exact_sigma():
    fig = C.calibration_figure("gaussian", 1.0, 1e-5, 10)
    bar = fig.data[0]
    exact_sigma = C.exact_gaussian_sigma(1.0, 1e-5, 10)
    for name, s in zip(C.ACCOUNTANT_ORDER, bar.y):
        if s is None:
            continue
        # a valid accountant can only need at least the exact σ
        assert s >= exact_sigma * (1 - 1e-6), name
        r = C.epsilon_result(name, "gaussian", float(s), 10, 1.0, 1e-5)
        assert r.epsilon <= 1.0 * (1 + 1e-9), name
    pld = bar.y[C.ACCOUNTANT_ORDER.index("pld")]
    assert pld == pytest.approx(exact_sigma, rel=2e-3)


def test_group_privacy_figure_has_both_panels_and_the_current_group_marked():
    fig = C.group_privacy_figure("gaussian", 4.0, 1e-5, group=5, max_group=10)
    assert fig.layout.yaxis2.type == "log"
    assert any(s.x0 == 5 for s in fig.layout.shapes)
    assert len(fig.data) >= 4


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


def test_bars_figure_says_when_pld_is_exact():
    fig = C.accountant_bars_figure("rr", 0.43, 1000, 1.0, 1e-5)
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert "PLD exact" in texts
    fig = C.accountant_bars_figure("laplace", 10.0, 1000, 1.0, 1e-5)
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert "grid of step" in texts
