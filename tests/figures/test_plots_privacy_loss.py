"""Figure builders of lesson 03: what is drawn equals the exact quantities (independent recomputation)."""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import plotly.graph_objects as go
import pytest
from _oracles import bw_delta

from dpviz import mechanisms as M
from dpviz.plots import privacy_loss as P

ALL = [M.Laplace(1.0), M.Gaussian(1.0), M.Gaussian(0.5, 2.0), M.RandomizedResponse(1.0), M.DiscreteLaplace(1.5, 2),
       M.DiscreteGaussian(1.2, 1), M.TruncatedDiscreteLaplace(0.8, 1e-3)]
IDS = [repr(m) for m in ALL]


def _captions(fig: go.Figure) -> str:
    return " ".join(a.text for a in fig.layout.annotations)


@pytest.mark.parametrize("m", ALL, ids=IDS)
@pytest.mark.parametrize("eps", [0.0, 0.4, 1.5])
def test_shaded_area_is_delta(m, eps):
    fig = P.output_distributions_figure(m, eps)
    d = m.delta(eps)
    assert isinstance(fig, go.Figure) and fig.layout.template.layout.font.family.startswith("Inter")
    assert f"{d:.3g}" in fig.layout.title.text
    if isinstance(fig.data[0], go.Bar):
        excess = fig.data[3]
        k = np.round(np.asarray(fig.data[0].x) + 0.2)
        p = m.pmf(k, value=0)
        # independent: (p_x − e^ε p_x′)₊ summed over the drawn atoms; the rest of δ lives outside the window,
        # bounded by the p_x-mass outside it
        outside = 1.0 - float(np.sum(p))
        assert float(np.sum(excess.y)) == pytest.approx(d, abs=outside + 1e-15)
        base = np.asarray(excess.base, dtype=float)
        assert np.allclose(base + np.asarray(excess.y, dtype=float), np.maximum(p, base))
    else:
        y = np.asarray(fig.data[0].x)
        upper, lower = np.asarray(fig.data[4].y), np.asarray(fig.data[3].y)
        area = np.trapezoid(upper - lower, y)
        # trapezoid on 601 points over ±(4.5σ or 7b): error from the kink and the tails, < 1 % of δ or 2e-3
        assert area == pytest.approx(d, rel=0.01, abs=2e-3)
    assert "Balle & Wang 2018" in _captions(fig) and "Dwork & Roth 2014" in _captions(fig)


@pytest.mark.parametrize("m", ALL, ids=IDS)
def test_privacy_loss_figure_marks_epsilon_and_atoms(m):
    eps = 0.7
    fig = P.privacy_loss_figure(m, eps)
    assert any(s.x0 == eps for s in fig.layout.shapes)  # the ε line
    pld = m.privacy_loss()
    assert f"{pld.sf(eps):.3g}" in fig.layout.title.text
    markers = [t for t in fig.data if t.mode == "markers"]
    if pld.atoms:
        shown = sum(float(np.sum(t.y)) for t in markers)
        assert shown == pytest.approx(float(np.sum(pld.masses)), abs=1e-5)  # atoms below 1e-7·max hidden
        big = [t for t in markers if "ℓ > ε" in t.name]
        if big:
            assert np.all(np.asarray(big[0].x) > eps)
    if isinstance(m, M.TruncatedDiscreteLaplace):
        assert "+∞" in _captions(fig)
    assert "Dwork & Roth 2014" in _captions(fig)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
def test_classic_formula_is_marked_wrong_only_above_one(sigma):
    # the numbers are tested in tests/numerics/test_gaussian_profiles.py; here: the figure marks them where the lesson
    # says
    fig = P.privacy_profile_figure(sigma, 1.0, delta_mark=1e-5)
    wrong = [t for t in fig.data if t.name and t.name.startswith("classic claims")][0]
    xs = np.asarray(wrong.x)[[v is not None for v in wrong.y]]
    assert np.all(xs >= 1.0)  # wrong only where its proof does not apply
    if sigma == 0.5:  # small σ: the classic δ drops below the exact one within the plotted range
        assert xs.size > 0
    assert fig.layout.yaxis.type == "log"


def test_profile_figure_marks_exact_epsilon_only_when_asked():
    fig = P.privacy_profile_figure(1.0, 1.0, delta_mark=1e-5)
    e = M.Gaussian(1.0).epsilon(1e-5)
    mark = fig.data[-1]
    assert mark.x[0] == pytest.approx(e) and f"{e:.4g}" in mark.name
    hidden = P.privacy_profile_figure(1.0, 1.0, delta_mark=1e-5, show_epsilon=False).data[-1]
    assert len(hidden.x) == 0 and "hidden" in hidden.name
    assert "Bun & Steinke 2016" in _captions(fig) and "Canonne, Kamath & Steinke 2020" in _captions(fig)


@pytest.mark.parametrize("m", ALL, ids=IDS)
def test_tradeoff_figure_verdict_matches_profile(m):
    eps = 0.8
    d_true = m.delta(eps)
    ok = P.tradeoff_figure(m, eps, min(max(d_true * 1.001, 1e-12), 0.999))
    assert "satisfies" in ok.layout.title.text and "NOT" not in ok.layout.title.text
    assert len(ok.data[3].x) == 0
    np.testing.assert_allclose(ok.data[2].y, m.tradeoff(np.asarray(ok.data[2].x)))
    # the boundary drawn is f_ε,δ(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (KOV 2015), with its corner kept
    a, d = np.asarray(ok.data[0].x), min(max(d_true * 1.001, 1e-12), 0.999)
    want = np.maximum.reduce([np.zeros_like(a), 1 - d - math.exp(eps) * a, math.exp(-eps) * (1 - d - a)])
    np.testing.assert_allclose(ok.data[0].y, want, rtol=1e-12, atol=1e-15)
    assert np.any(np.isclose(a, (1 - d) / (1 + math.exp(eps)), rtol=1e-12, atol=0))
    if d_true > 1e-6:
        bad = P.tradeoff_figure(m, eps, d_true / 10)
        assert "NOT" in bad.layout.title.text and len(bad.data[3].x) > 0
    assert "Kairouz, Oh & Viswanath 2015" in _captions(ok)


def test_validation():
    with pytest.raises(ValueError, match="epsilon"):
        P.output_distributions_figure(M.Gaussian(1.0), -1.0)
    with pytest.raises(ValueError, match="epsilon"):
        P.privacy_loss_figure(M.Gaussian(1.0), float("nan"))
    with pytest.raises(ValueError, match="delta"):
        P.tradeoff_figure(M.Gaussian(1.0), 1.0, 1.0)
    with pytest.raises(ValueError, match="mechanism"):
        P.output_distributions_figure("Gaussian", 1.0)
    with pytest.raises(ValueError, match="sigma"):
        P.privacy_profile_figure(0.0)
    with pytest.raises(ValueError, match="delta"):
        P.privacy_profile_figure(1.0, delta_mark=0.0)


@pytest.mark.parametrize("m", ALL, ids=IDS)
def test_figures_are_json_compliant(m):
    # NaN/inf are not JSON: the widget protocol would warn and the browser could drop the update
    import json

    figs = [P.output_distributions_figure(m, 0.5), P.privacy_loss_figure(m, 0.5), P.tradeoff_figure(m, 0.5, 1e-3),
            P.privacy_profile_figure(0.3, 1.0, delta_mark=1e-5),
            P.privacy_profile_figure(1.0, 1.0, delta_mark=1e-5, show_epsilon=False)]
    for f in figs:
        json.dumps(f.to_plotly_json(), allow_nan=False, default=lambda o: o.tolist())


def test_builders_return_new_figures():
    a = P.output_distributions_figure(M.Laplace(1.0), 0.5)
    b = P.output_distributions_figure(M.Laplace(1.0), 0.5)
    assert a is not b and a.to_plotly_json() == b.to_plotly_json()


def _texts(fig: go.Figure) -> list[str]:
    """Every string a learner reads on a figure: title, axis titles, legend names, annotations."""
    lay = fig.layout
    out = [lay.title.text or "", lay.xaxis.title.text or "", lay.yaxis.title.text or ""]
    out += [t.name or "" for t in fig.data]
    out += [a.text or "" for a in lay.annotations]
    return out


@pytest.mark.parametrize("m", ALL, ids=IDS)
def test_no_raw_tex_or_python_floats_in_figure_text(m):
    # plotly does not render TeX braces: e^{ε−L} must be written e<sup>ε−L</sup>; and x′ = 1.0 reads as a float bug
    figs = [P.output_distributions_figure(m, 0.5), P.privacy_loss_figure(m, 0.5), P.tradeoff_figure(m, 0.5, 1e-3),
            P.privacy_profile_figure(0.3, 1.0, delta_mark=1e-5)]
    for f in figs:
        for text in _texts(f):
            assert "^{" not in text and "_{" not in text, text
            assert "= 1.0." not in text and "= 1.0," not in text, text


@pytest.mark.parametrize("m", [M.Gaussian(1.0), M.DiscreteLaplace(1.5, 2)], ids=["gauss", "dlap"])
def test_legends_list_traces_in_drawing_order(m):
    # filled traces make plotly reverse the legend unless told otherwise: p_x must come first, as in the prose
    for f in (P.output_distributions_figure(m, 0.5), P.tradeoff_figure(m, 0.5, 1e-3)):
        assert f.layout.legend.traceorder == "normal"


def test_profile_figure_marks_delta_with_a_horizontal_line():
    fig = P.privacy_profile_figure(1.0, 1.0, delta_mark=1e-7)
    lines = [s for s in fig.layout.shapes if s.type == "line"]
    assert len(lines) == 1 and lines[0].y0 == lines[0].y1 == 1e-7 and lines[0].yref == "y"
    band = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(band) == 1 and band[0].x0 == 0 and band[0].x1 == 1.0  # the ε < 1 band where the classic proof holds
    assert fig.layout.yaxis.type == "log"


def test_discrete_bound_marks_are_black_as_the_lesson_says():
    # open marker symbols take their colour from marker.color: without it plotly drew them in the colorway green
    fig = P.output_distributions_figure(M.DiscreteLaplace(1.5, 1), 0.5)
    mark = [t for t in fig.data if t.type == "scatter"][0]
    assert mark.marker.color == "#000000" and mark.marker.symbol == "line-ew-open"


# ------------------------------------------------------------------------------------------------ vector release


def test_vector_release_figure_draws_sqrt_d_laplace_against_a_flat_exact_gaussian():
    fig = P.vector_release_figure(1.0, 1e-5, 100)
    lap, gau, marks = fig.data[0], fig.data[1], fig.data[2]
    # Laplace sd √2·√d·C/ε (Dwork & Roth 2014, Thm 3.6), at every drawn d, computed here in mpmath
    for d, y in zip(lap.x, lap.y, strict=True):
        assert d == int(d) and y == pytest.approx(float(mp.sqrt(2 * mp.mpf(d))), rel=1e-14)
    # the Gaussian's exact σ at Δ₂ = C = 1 (Balle & Wang 2018, Thm 8): the oracle's δ(σ) is δ at that σ, and
    # one part in 10⁹ less noise would not do
    sigma = gau.y[0]
    assert list(gau.y) == [sigma, sigma]
    assert float(bw_delta(1.0, 1 / mp.mpf(sigma))) <= 1e-5 * (1 + 1e-9)
    assert float(bw_delta(1.0, 1 / (mp.mpf(sigma) * (1 - 1e-9)))) > 1e-5
    assert list(marks.x) == [100, 100] and marks.y[0] == pytest.approx(math.sqrt(200), rel=1e-14)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    # the crossover is marked: Laplace needs less up to d = 6 at (1, 10⁻⁵) (√12 ≤ σ < √14)
    assert math.sqrt(12) <= sigma < math.sqrt(14)
    assert any("up to d = 6" in (a.text or "") for a in fig.layout.annotations)
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert "Balle & Wang 2018, Thm 8" in texts and "Dwork & Roth 2014, Def 3.1, Thm 3.6" in texts


def test_vector_release_figure_draws_the_curves_only_up_to_drawn_to():
    fig = P.vector_release_figure(1.0, 1e-5, 4, drawn_to=4)
    assert max(fig.data[0].x) == 4 and fig.data[1].x[-1] == 4
    assert fig.layout.xaxis.range[1] == pytest.approx(4.05)  # the axis still spans d = 1 … 10⁴
    with pytest.raises(ValueError, match="dimension"):
        P.vector_release_figure(1.0, 1e-5, 20_000)
    with pytest.raises(ValueError, match="drawn_to"):
        P.vector_release_figure(1.0, 1e-5, 4, drawn_to=0)


# ------------------------------------------------------------------------------------------------ input defects
# Each of these escaped the public boundary before (checked against the previous version of this module).


def test_mechanism_label_refuses_what_is_not_a_mechanism():
    # before: mechanism_label(None) returned "NoneType"
    with pytest.raises(ValueError, match="mechanism = None is not allowed"):
        P.mechanism_label(None)


def _finite_json(fig) -> bool:
    def walk(o):
        if isinstance(o, float):
            return math.isfinite(o)
        if isinstance(o, dict):
            return all(walk(v) for v in o.values())
        if isinstance(o, (list, tuple)):
            return all(walk(v) for v in o)
        return True
    return walk(fig.to_plotly_json())


@pytest.mark.parametrize("build", [
    # before: OverflowError "math range error" (e^ε with ε = 1e308)
    lambda: P.output_distributions_figure(M.Gaussian(1.0), 1e308),
    lambda: P.output_distributions_figure(M.RandomizedResponse(1.0), 1e308),
    # before: OverflowError "cannot convert float infinity to integer" (the bars' range of a huge scale)
    lambda: P.output_distributions_figure(M.DiscreteLaplace(1e308, 1), 0.5),
    # before: AttributeError "'Laplace' object has no attribute 'mu'" (b = 5e-324: ε₀ = ∞)
    lambda: P.privacy_loss_figure(M.Laplace(5e-324), 0.5),
    # before: RuntimeWarning "overflow encountered in subtract" (the loss spans ±1e308)
    lambda: P.privacy_loss_figure(M.Laplace(1.0, 1e308), 1.0),
    # an ε far beyond the distribution is marked at the edge of the axis (before: the axis ran to 1e308)
    lambda: P.privacy_loss_figure(M.Laplace(1.0), 1e308),
])
def test_extreme_valid_input_draws_a_figure_the_browser_takes(build):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = build()
    assert _finite_json(fig)


def test_the_edge_marker_says_where_epsilon_is():
    fig = P.privacy_loss_figure(M.Laplace(1.0), 1e308)
    assert any("ε = 1e+308 (beyond the axis)" in (a.text or "") for a in fig.layout.annotations)
    assert max(fig.layout.xaxis.range) < 10


@pytest.mark.parametrize("build,what", [
    # before: RuntimeWarning "invalid value encountered in multiply" (an axis of ±4.5σ = ±inf)
    (lambda: P.output_distributions_figure(M.Gaussian(1e308), 0.5), "σ = 1e\\+308 must be <= 1e\\+300"),
    (lambda: P.output_distributions_figure(M.Laplace(1e308), 0.5), "b = 1e\\+308 must be <= 1e\\+300"),
    # before: OverflowError (34, 'Numerical result out of range') from μ² with μ = 1e308
    (lambda: P.privacy_loss_figure(M.Gaussian(1.0, 1e308), 0.5), "μ = Δ/σ = 1e\\+308 must be <= 1e\\+150"),
])
def test_what_no_figure_can_draw_is_refused_naming_the_mechanism_and_the_limit(build, what):
    with pytest.raises(ValueError, match="mechanism = .* is not allowed here: to be drawn, its .*" + what):
        build()
