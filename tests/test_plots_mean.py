"""Tests of dpviz.plots.mean: every builder returns a new Figure with the data it was given, a caption and titles."""

import numpy as np
import plotly.graph_objects as go

from dpviz.mean import algorithm_a_2d
from dpviz.plots.mean import (
    ball_finding_figure,
    budget_heatmap_figure,
    error_vs_d_figure,
    fixed_n_floor_figure,
    garbage_figure,
    iso_accuracy_figure,
    mse_vs_m_figure,
    robustness_figure,
    tau_knob_figure,
)


def _has_source(fig):
    return any("Source:" in (a.text or "") for a in fig.layout.annotations)


def test_mse_vs_m():
    fig = mse_vs_m_figure([1, 10, 100], {"winsorized": [1, 0.1, 0.01]}, {"naive_laplace": [0.5, 0.5, 0.5]},
                          crossover=30)
    assert isinstance(fig, go.Figure) and _has_source(fig)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert list(fig.data[1].y) == [1, 0.1, 0.01] and list(fig.data[0].y) == [0.5, 0.5, 0.5]
    assert any(s.x0 == 30 for s in fig.layout.shapes)
    assert "m" in fig.layout.xaxis.title.text


def test_tau_knob():
    r = np.logspace(-1, 1, 5)
    sw = {k: np.linspace(0.1, 0.5, 5) for k in ("bias2", "noise", "mse", "clipped")}
    fig = tau_knob_figure(r, sw, current=1.0, presets={"paper": 0.5, "safe": 1.0})
    assert _has_source(fig) and len(fig.layout.shapes) == 2
    assert fig.data[3].yaxis == "y2" and fig.data[4].x[0] == 1.0


def test_heatmap_and_iso():
    ln, lm = np.linspace(1, 3, 5), np.linspace(0, 2, 4)
    z = np.zeros((4, 5))
    fig = budget_heatmap_figure(ln, lm, z, budgets=[1e3], best=[(2.0, 1.0)])
    assert isinstance(fig.data[0], go.Heatmap) and np.array_equal(np.asarray(fig.data[0].z), z)
    assert np.allclose(np.asarray(fig.data[1].x) + np.asarray(fig.data[1].y), 3.0)  # iso-N: log n + log m = log N
    fig2 = iso_accuracy_figure(np.array([1, 10]), {"a": np.array([5, 1])}, walls={"w1": 3.0, "w2": 7.0})
    assert [s.x0 for s in fig2.layout.shapes] == [3.0, 7.0] and _has_source(fig2)
    fig3 = error_vs_d_figure(np.array([1, 2]), np.array([0.1, 0.2]), np.array([0.1, np.nan]), n=50)
    assert "50" in fig3.layout.title.text


def test_ball_garbage_robust_floor():
    pts = np.array([[0.0, 0.0], [1.0, 0.0]])
    A = algorithm_a_2d(pts, 1.0, 1.0, 0.1, resolution=20)
    fig = ball_finding_figure(A.xs, A.ys, A.density, pts, A.radius, moved=1)
    assert fig.data[-1].x[0] == 1.0 and _has_source(fig)
    g = garbage_figure(["a", "G"], [0.5, 0.5], [0.4, 0.6])
    assert list(g.data[1].y) == [0.4, 0.6]
    k = np.array([0.0, 0.25])
    rf = robustness_figure(k, np.array([1, 1]), np.array([1, 5]), np.array([1e-3, 0.02]), bound=2.0, current=0.1)
    assert _has_source(rf) and any(s.y0 == 2.0 for s in rf.layout.shapes)
    ff = fixed_n_floor_figure(np.array([1, 10]), {3: 0.01}, {3: np.array([0.1, 0.01])})
    assert list(ff.data[0].y) == [0.01, 0.01]
