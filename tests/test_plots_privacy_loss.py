"""Figure builders of lesson 03: what is drawn equals the exact quantities (independent recomputation)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest

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
    # the numbers are tested in tests/test_gaussian_profiles.py; here: the figure marks them where the lesson says
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
