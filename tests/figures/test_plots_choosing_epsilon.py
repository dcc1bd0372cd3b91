"""Figure builders of lesson 09: what is drawn equals independently recomputed quantities."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest
from scipy import special

from dpviz import mechanisms as M
from dpviz.deployments import DEPLOYMENTS
from dpviz.plots import choosing_epsilon as P


def _captions(fig: go.Figure) -> str:
    return " ".join(a.text for a in fig.layout.annotations)


def _no_raw_tex(fig: go.Figure) -> None:
    text = str(fig.to_plotly_json())
    for bad in ("^{", "_{", "\\frac", "$"):
        assert bad not in text


@pytest.mark.parametrize("eps", [0.1, 1.0, 10.0])
def test_posterior_figure_draws_the_odds_bound(eps):
    fig = P.posterior_figure(eps)
    bold = [t for t in fig.data if t.name and t.name.startswith(f"ε = {eps:.3g}, δ = 0")][0]
    x, y = np.asarray(bold.x, float), np.asarray(bold.y, float)
    expected = math.exp(eps) * x / (1 - x + math.exp(eps) * x)  # the closed form, not the library's expit
    assert np.allclose(y, expected, rtol=1e-12, atol=0)
    assert fig.layout.xaxis.type == "log" and fig.layout.template.layout.font.family.startswith("Inter")
    assert "Kasiviswanathan & Smith 2014" in _captions(fig)
    assert not any(t.mode == "markers" for t in fig.data)  # no marker unless asked (the exercise hides it)
    _no_raw_tex(fig)


def test_posterior_figure_with_delta_and_marker():
    eps, d, q, p = 1.0, 1e-3, 1e-4, 0.1
    fig = P.posterior_figure(eps, d, q, marker_prior=p)
    dashed = [t for t in fig.data if t.line and t.line.dash == "dash"][0]
    x = np.asarray(dashed.x, float)
    a = min(1, math.e * q + d, 1 - (1 - q - d) / math.e)  # S and its complement both constrain P[S | in]
    assert np.allclose(dashed.y, x * a / (x * a + (1 - x) * q), rtol=1e-12)
    marks = [t for t in fig.data if t.mode == "markers"][0]
    assert marks.y[0] == pytest.approx(math.e * p / (1 - p + math.e * p), rel=1e-12)
    assert marks.y[1] == pytest.approx(p * a / (p * a + (1 - p) * q), rel=1e-12)
    with pytest.raises(ValueError, match="event_probability"):
        P.posterior_figure(1.0, 1e-3, 0.0)


def test_deployments_figure_places_each_published_value_on_the_bound():
    p = 0.01
    fig = P.deployments_figure(p, DEPLOYMENTS)
    points = [t for t in fig.data if t.mode == "markers+text"]
    published = [d for d in DEPLOYMENTS if d.epsilon is not None]
    assert len(points) == len(published)
    for t, d in zip(points, published):
        assert t.x[0] == d.epsilon
        assert t.y[0] == pytest.approx(math.exp(d.epsilon) * p / (1 - p + math.exp(d.epsilon) * p), rel=1e-12)
        assert d.unit in t.hovertext and d.horizon in t.hovertext
        assert t.marker.symbol == ("diamond" if d.local else "circle")
    assert fig.layout.xaxis.type == "log"
    _no_raw_tex(fig)


def test_accuracy_figure_marks_the_smallest_epsilons():
    a, b, d = 20.0, 0.01, 1e-8
    fig = P.accuracy_figure(a, b, d)
    marks = [t for t in fig.data if t.mode == "markers"][0]
    assert marks.y[0] == pytest.approx(math.log(1 / b) / a, rel=1e-12)  # Laplace: P[|Lap(1/ε)| > α] = e^{−αε}
    sigma = a / -special.ndtri(b / 2)  # the two-sided normal tail: 2Φ(−α/σ) = β
    assert M.Gaussian(sigma).delta(marks.y[1]) <= d < M.Gaussian(sigma).delta(marks.y[1] * (1 - 1e-8))
    assert "Dwork & Roth 2014, Thm 3.8" in _captions(fig) and "Balle & Wang 2018, Thm 8" in _captions(fig)
    _no_raw_tex(fig)


def test_budget_figure_basic_is_eps_over_k_and_exact_is_larger():
    fig = P.budget_figure(2.0, 1e-6, 12)
    basic, exact = fig.data[0], fig.data[1]
    k = np.asarray(basic.x, float)
    assert np.allclose(basic.y, 2.0 / k, rtol=1e-14)
    assert 12 in k.astype(int)
    ex = np.asarray(exact.y, float)
    assert ex[0] == pytest.approx(2.0, rel=1e-9) and np.all(ex[1:] > 2.0 / k[1:])
    # a point of the exact curve: k = 12 Gaussians of noise σ compose to (2, 1e-6) exactly
    i = int(np.flatnonzero(k == 12)[0])
    sigma = M.analytic_gaussian_sigma(2.0, 1e-6) * math.sqrt(12)
    assert ex[i] == pytest.approx(M.Gaussian(sigma).epsilon(1e-6 / 12), rel=1e-9)
    with pytest.raises(ValueError, match="releases"):
        P.budget_figure(1.0, 1e-6, 0)


def test_posterior_figure_draws_the_exact_maximum_where_the_complement_binds():
    eps, d, q = math.log(3), 0.01, 0.25  # the event-only formula would give a = 0.76, the complement allows 0.7533
    fig = P.posterior_figure(eps, d, q, marker_prior=0.5)
    marks = [t for t in fig.data if t.mode == "markers"][0]
    assert marks.y[1] == pytest.approx(0.7508305647840532, rel=1e-13)
    assert "complement" in _captions(fig)


def test_deployments_figure_shows_the_computed_rappor_value_and_refuses_non_records():
    fig = P.deployments_figure(0.01, DEPLOYMENTS)
    points = [t for t in fig.data if t.mode == "markers+text"]
    assert len(points) == 5 and any(t.x[0] == pytest.approx(4 * math.log(3), rel=1e-14) for t in points)
    assert any("ρ = 2.63" in t.hovertext for t in points)
    for bad in ("1", [1.0, 2.0], None, DEPLOYMENTS[0]):
        with pytest.raises(ValueError, match="deployments"):
            P.deployments_figure(0.01, bad)


def test_budget_figure_caps_max_releases_by_name():
    with pytest.raises(ValueError, match="max_releases"):
        P.budget_figure(1.0, 1e-6, 12, max_releases=10**9)
