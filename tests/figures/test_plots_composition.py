"""Lessons 06 and 07 figure builders: they draw the numbers of the lab's model (dpviz.accountants.compare, tested in
tests/numerics/test_accountants_compare.py), checked against independent oracles.

Oracles (never the code under test):
* the Balle–Wang Gaussian profile δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), μ = Δ√k/σ, in mpmath at 50 digits
  (Balle & Wang 2018, Thm 8; k Gaussians = one Gaussian of σ/√k, Dong–Roth–Su 2019, Cor. 3.3);
"""

import math

import mpmath as mp
import plotly.graph_objects as go
import pytest
from _oracles import bw_delta, exact_gauss_eps, invert

from dpviz.accountants import ACCOUNTANTS
from dpviz.accountants import compare as M
from dpviz.plots import composition as C

mp.mp.dps = 50


# ------------------------------------------------------------------------------------------------ oracles




# ------------------------------------------------------------------------------------------------ validation

@pytest.mark.parametrize("kwargs,name", [
    (dict(mechanism="cauchy"), "mechanism"),
    (dict(noise=-1.0), "noise"),
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


def test_group_and_calibration_validation():
    with pytest.raises(ValueError, match="group"):
        C.group_privacy_figure("gaussian", 4.0, 1e-5, group=30, max_group=20)
    with pytest.raises(ValueError, match="mechanism"):
        C.calibration_figure("rr", 1.0, 1e-5, 10)
    with pytest.raises(ValueError, match="target_epsilon"):
        C.calibration_figure("gaussian", -1.0, 1e-5, 10)



# ------------------------------------------------------------------------------------------------ figures

def test_bars_figure_draws_one_bar_per_accountant_with_the_pld_bracket_and_the_exact_line():
    fig = C.accountant_bars_figure("gaussian", 4.0, 100, 1.0, 1e-5)
    assert isinstance(fig, go.Figure)
    bar = fig.data[0]
    assert list(bar.x) == [C.ACCOUNTANT_INFO[n].label for n in C.ACCOUNTANT_ORDER]
    res = M.compare_accountants("gaussian", 4.0, 100, 1.0, 1e-5, accountants=C.ACCOUNTANT_ORDER)
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
    assert "Source" in texts and "Kairouz, Oh & Viswanath 2015" in texts and "Dong, Roth & Su 2022, Cor 3.3" in texts


def test_bars_figure_uses_a_linear_axis_when_the_bars_are_close():
    fig = C.accountant_bars_figure("rr", 0.5, 1, 1.0, 1e-5)  # k = 1: every accountant near ε₀
    assert fig.layout.yaxis.type != "log"


def test_epsilon_vs_count_figure_traces_match_the_numbers():
    fig = C.epsilon_vs_count_figure("gaussian", 4.0, 1.0, 1e-5, "add_remove", max_count=1000, n_points=6)
    counts = M.count_grid(1000, 6)
    lines = {t.name: t for t in fig.data if t.mode == "lines+markers"}
    pld = lines["PLD"]
    assert list(pld.x) == list(counts)
    for k, y in zip(pld.x, pld.y, strict=True):
        assert y == pytest.approx(M.epsilon_result("pld", "gaussian", 4.0, int(k), 1.0, 1e-5).epsilon)
    exact = [t for t in fig.data if t.name.startswith("exact")][0]
    assert exact.y[-1] == pytest.approx(exact_gauss_eps(4.0, 1000, 1e-5), rel=1e-7)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    # basic composition: slope 1 on log-log axes at large k (ε = k·ε₀(δ/k) grows slightly faster than k)
    basic = lines["Basic"]
    slope = math.log(basic.y[-1] / basic.y[-2]) / math.log(basic.x[-1] / basic.x[-2])
    assert 1.0 <= slope < 1.3


def test_slope_claim_of_the_lesson_sqrt_k_then_linear_again():
    # Lesson 06 and the ε-vs-k caption say: slope ½ while kρ < 4 ln(1/δ), back towards 1 once the mean loss kρ
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
    assert s[0] < 0.65 and s[-1] > 0.9 and all(b > a for a, b in zip(s, s[1:], strict=False))
    caption = " ".join(a.text for a in fig.layout.annotations)
    assert "4 ln(1/δ)" in caption and "Bun & Steinke 2016, Prop 1.3" in caption


def test_privacy_profile_curves_lie_above_the_exact_profile_and_the_band_is_drawn():
    fig = C.privacy_profile_figure("gaussian", 4.0, 100, 1.0, 1e-5, n_points=15)
    mu = math.sqrt(100) / 4.0
    names = [t.name for t in fig.data]
    assert "PLD band (optimistic…pessimistic)" in names
    for t in fig.data:
        if t.name in {C.ACCOUNTANT_INFO[n].label for n in C.ACCOUNTANT_ORDER} and len(t.x):
            for x, y in zip(t.x, t.y, strict=True):
                assert y >= float(bw_delta(x, mu)) * (1 - 1e-6) - 1e-15, (t.name, x)
            # δ(ε) non-increasing
            assert all(b <= a * (1 + 1e-9) + 1e-15 for a, b in zip(t.y, t.y[1:], strict=False)), t.name
    assert fig.layout.yaxis.type == "log"


def test_calibration_figure_never_overshoots_and_marks_the_exact_sigma():
    fig = C.calibration_figure("gaussian", 1.0, 1e-5, 10)
    bar = fig.data[0]
    exact_sigma = M.exact_gaussian_sigma(1.0, 1e-5, 10)
    for name, s in zip(C.ACCOUNTANT_ORDER, bar.y, strict=True):
        if s is None:
            continue
        # a valid accountant can only need at least the exact σ
        assert s >= exact_sigma * (1 - 1e-6), name
        r = M.epsilon_result(name, "gaussian", float(s), 10, 1.0, 1e-5)
        assert r.epsilon <= 1.0 * (1 + 1e-9), name
    pld = bar.y[C.ACCOUNTANT_ORDER.index("pld")]
    assert pld == pytest.approx(exact_sigma, rel=2e-3)


def _trace_json(t) -> dict:
    d = t.to_plotly_json()
    d.pop("uid", None)
    return d


@pytest.mark.parametrize("pending", [("advanced", "optimal"), ("optimal",), ("pld",)])
def test_a_partial_epsilon_vs_count_figure_is_the_final_one_without_the_pending_lines(pending):
    # a streamed panel's partial view: the accountants computed so far are drawn exactly as in the final figure;
    # each pending one keeps its legend entry, marked "computing…", with no points (same traces, same order)
    args = ("gaussian", 4.0, 1.0, 1e-5, "add_remove")
    final = C.epsilon_vs_count_figure(*args, max_count=1000, n_points=6)
    part = C.epsilon_vs_count_figure(*args, max_count=1000, n_points=6, pending=pending)
    assert len(part.data) == len(final.data)
    pending_labels = {C.ACCOUNTANT_INFO[n].label for n in pending}
    for a, b in zip(part.data, final.data, strict=True):
        if b.name in pending_labels or (b.name.startswith("PLD bracket") and "pld" in pending):
            assert "computing…" in a.name and len(a.x) == 0 and len(a.y) == 0, b.name
        else:
            assert _trace_json(a) == _trace_json(b), b.name
    assert part.layout == final.layout


def test_a_partial_calibration_figure_leaves_the_pending_bars_out():
    final = C.calibration_figure("gaussian", 1.0, 1e-5, 10)
    part = C.calibration_figure("gaussian", 1.0, 1e-5, 10, pending=("advanced", "optimal"))
    for name, a, b, text in zip(C.ACCOUNTANT_ORDER, part.data[0].y, final.data[0].y, part.data[0].text, strict=True):
        if name in ("advanced", "optimal"):
            assert a is None and text == "computing…", name
        else:
            assert a == b, name
    assert list(part.data[0].x) == list(final.data[0].x)


@pytest.mark.parametrize("build", [
    lambda p: C.epsilon_vs_count_figure("gaussian", 4.0, 1.0, 1e-5, "add_remove", max_count=10, pending=p),
    lambda p: C.calibration_figure("gaussian", 1.0, 1e-5, 10, pending=p),
])
def test_pending_must_name_accountants(build):
    with pytest.raises(ValueError, match="pending.*'exact'.*basic, advanced"):
        build(("exact",))


def test_group_privacy_figure_has_both_panels_and_the_current_group_marked():
    fig = C.group_privacy_figure("gaussian", 4.0, 1e-5, group=5, max_group=10)
    assert fig.layout.yaxis2.type == "log"
    assert any(s.x0 == 5 for s in fig.layout.shapes)
    assert len(fig.data) >= 4


def test_bars_figure_says_when_pld_is_exact():
    fig = C.accountant_bars_figure("rr", 0.43, 1000, 1.0, 1e-5)
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert "PLD exact" in texts
    fig = C.accountant_bars_figure("laplace", 10.0, 1000, 1.0, 1e-5)
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert "grid of step" in texts


def test_display_order_is_the_lessons_and_holds_every_accountant():
    # lesson 07 shows zCDP before Rényi DP; the model uses dpviz.accountants' order (rdp before zcdp)
    assert C.ACCOUNTANT_ORDER == ("basic", "advanced", "optimal", "zcdp", "rdp", "pld")
    assert sorted(C.ACCOUNTANT_ORDER) == sorted(ACCOUNTANTS) == sorted(C.ACCOUNTANT_INFO)


def test_group_privacy_figure_draws_no_zero_for_a_vacuous_bound():
    # issue 18: "exact at the generic δ_g" fell to ε = 0 once δ_g ≥ 1; a vacuous bound is "no guarantee", no point
    sigma, delta, gmax = 1.0, 1e-5, 20
    eps1 = exact_gauss_eps(sigma, 1, delta)  # the mpmath Balle–Wang oracle
    # generic δ_g = δ(e^{gε₁} − 1)/(e^{ε₁} − 1) (Dwork & Roth 2014, Thm 2.2 form), computed here independently
    dg = [delta * math.expm1(g * eps1) / math.expm1(eps1) for g in range(1, gmax + 1)]
    first = next(g for g, d in zip(range(1, gmax + 1), dg, strict=True) if d >= 1)
    fig = C.group_privacy_figure("gaussian", sigma, delta, group=3, max_group=gmax)
    for name in ("generic group privacy", "exact, sensitivity g, at the generic"):
        tr = next(t for t in fig.data if t.name.startswith(name))
        ys = list(tr.y)
        assert all(y is None for y in ys[first - 1:]), name
        assert all(y is not None and y > 0 for y in ys[:first - 1]), name
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert f"g ≥ {first}" in texts and "no guarantee" in texts
    assert "^{" not in texts and "_{" not in texts
    assert "group size g" in fig.layout.xaxis.title.text



# ------------------------------------------------------------------------------------------------ amplification


def _amplified_oracle(eps, q):
    """ln(1 + q(e^ε − 1)) in 50-digit mpmath (Balle, Barthe & Gaboardi 2018, Thm 8)."""
    return float(mp.log(1 + mp.mpf(q) * mp.expm1(mp.mpf(eps))))


@pytest.mark.parametrize("eps,q", [(1.0, 0.01), (0.1, 1e-4), (10.0, 0.5), (5.0, 1.0), (0.05, 0.3)])
def test_amplification_figure_draws_the_closed_form_and_the_q_eps_lines(eps, q):
    fig = C.amplification_figure(eps, q)
    mine = next(t for t in fig.data if t.name.endswith("(yours)"))
    for x, y in zip(mine.x, mine.y, strict=True):
        assert y == pytest.approx(_amplified_oracle(eps, x), rel=1e-13)
    line = next(t for t in fig.data if t.name == f"q·ε for ε = {eps:.3g}")
    assert list(line.y) == pytest.approx([x * eps for x in line.x], rel=1e-15)
    # q·ε ≤ ε′ ≤ ε (ε′ is concave in q, 0 at q = 0 and ε at q = 1): the dotted line lies below the curve
    assert all(qe * (1 - 1e-12) <= y <= eps * (1 + 1e-12) for qe, y in zip(line.y, mine.y, strict=True))
    marker = fig.data[-1]
    assert marker.x[0] == q and marker.y[0] == pytest.approx(_amplified_oracle(eps, q), rel=1e-13)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert "Balle, Barthe & Gaboardi 2018, Thm 8" in texts
    names = [t.name for t in fig.data if t.showlegend is not False]
    assert sum(n.startswith("ε′ for ε") for n in names) == len({*C.AMPLIFICATION_EPSILONS, eps})


def test_amplification_figure_refuses_what_it_cannot_draw():
    for kwargs, name in [(dict(epsilon=0.0), "epsilon"), (dict(epsilon=51.0), "epsilon"), (dict(rate=0.0), "rate"),
                         (dict(rate=1e-5), "rate"), (dict(rate=1.5), "rate"), (dict(epsilon=1 + 1j), "epsilon")]:
        with pytest.raises(ValueError, match=name):
            C.amplification_figure(**kwargs)


# ------------------------------------------------------------------------------------------------ input defects
# Each of these escaped the public boundary before (checked against the previous version of this module).


def test_accountant_info_refuses_a_field_that_is_not_text():
    # before: AccountantInfo("basic", math.nan, ...) was accepted, a NaN label reaching every legend
    with pytest.raises(TypeError, match="label = nan"):
        C.AccountantInfo("basic", math.nan, "upper bound", "a source", "why", "#000000", "solid")


def test_bars_with_no_finite_epsilon_draw_no_infinite_numbers():
    # before: σ = 5e-324 (every ε infinite) put y = inf into the figure's JSON (not JSON: the browser drops it)
    fig = C.accountant_bars_figure("gaussian", 5e-324, 3, 1.0, 1e-5)
    ys = [y for t in fig.data for y in (t.y or ())]
    assert all(math.isfinite(y) for y in ys if y is not None)
    assert list(fig.data[0].text) == ["∞"] * len(C.ACCOUNTANT_ORDER)


@pytest.mark.parametrize("call,name", [
    # before: OverflowError "int too large to convert to float" (count 10**400 reached math.sqrt)
    (lambda: C.accountant_bars_figure("gaussian", 4.0, 10**400, 1.0, 1e-5), "count"),
    (lambda: C.accountant_bars_figure("gaussian", 4.0, C.COUNT.high + 1, 1.0, 1e-5), "count"),
    # before: OverflowError from np.geomspace(…, 10**400)
    (lambda: C.privacy_profile_figure("laplace", 10.0, 3, 1.0, 1e-5, n_points=10**400), "n_points"),
    (lambda: C.privacy_profile_figure("laplace", 10.0, 3, 1.0, 1e-5, n_points=C.POINTS.high + 1), "n_points"),
    # before: OverflowError "cannot convert float infinity to integer" (current = inf), RuntimeWarning (1e308)
    (lambda: C.epsilon_vs_count_figure("laplace", 10.0, 1.0, 1e-5, "add_remove", 10, math.inf), "current"),
    (lambda: C.epsilon_vs_count_figure("laplace", 10.0, 1.0, 1e-5, "add_remove", 1e308), "max_count"),
    (lambda: C.epsilon_vs_count_figure("laplace", 10.0, 1.0, 1e-5, "add_remove", 10, n_points=10**400), "n_points"),
    (lambda: C.epsilon_vs_count_figure("laplace", 10.0, 1.0, 1e-5, "add_remove", 10, n_points=M.COUNTS.limit + 1),
     "n_points"),  # before: count_grid's "n = 26 is not allowed", a name the caller never wrote
    # before: target ε = 1e308 ran for minutes (PLD's binary search); rate 5e-324 raised a RuntimeWarning in PLD
    (lambda: C.calibration_figure("laplace", 1e308, 1e-5, 3, 1.0), "target_epsilon"),
    (lambda: C.calibration_figure("laplace", 1.0, 1e-5, 3, 5e-324), "rate"),
    (lambda: C.calibration_figure("laplace", 1.0, 1e-5, C.CALIBRATION_COUNT.high + 1, 1.0), "count"),
    # the noise is named as the caller wrote it (before: "σ = -1.0", a symbol, not the parameter)
    (lambda: C.group_privacy_figure("gaussian", -1.0, 1e-5, 2, 3), "noise"),
])
def test_bad_sizes_and_values_are_refused_naming_the_parameter_and_its_limit(call, name):
    with pytest.raises(ValueError, match=rf"^{name} = .* is not allowed: must be"):
        call()
