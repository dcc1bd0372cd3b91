"""Tests of dpviz.plots.mean: every builder returns a new Figure with the data it was given, a caption and titles."""


import numpy as np
import plotly.graph_objects as go
import pytest
from _figure_checks import CAPTION_LINE, caption_of, layout_number, needed_caption_gap, px_under_plot

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


def _finite_or_none(values) -> bool:
    flat = np.asarray(values, dtype=object).ravel()
    return all(v is None or np.isfinite(float(v)) for v in flat)


def test_nan_data_reaches_the_browser_as_gaps_not_nan():
    # A FigureWidget ships data as JSON: a bare NaN is rejected by the browser and the figure stops updating in
    # Voila. Every builder must turn NaN into None (a gap plotly draws the same way).
    fig = iso_accuracy_figure(np.array([1.0, 10.0, 100.0]), {"a": np.array([np.nan, 5.0, 1.0])},
                              walls={"w1": 3.0, "w2": 7.0})
    assert list(fig.data[0].y)[0] is None and _finite_or_none(fig.data[0].y)
    pts = np.array([[0.0, 0.0], [1.0, 0.0]])
    z = np.array([[np.nan, 1.0], [2.0, np.inf]])
    ball = ball_finding_figure(np.array([0.0, 1.0]), np.array([0.0, 1.0]), z, pts, 1.0, moved=1)
    assert all(_finite_or_none(t.x) and _finite_or_none(t.y) for t in ball.data if t.type == "scatter")
    assert _finite_or_none(ball.data[0].z) and ball.data[0].z[0][0] is None
    rf = robustness_figure(np.array([0.0, 0.25]), np.array([1.0, np.nan]), np.array([1.0, 5.0]),
                           np.array([np.nan, 0.02]))
    assert all(_finite_or_none(t.y) for t in rf.data)


def _all_figures():
    r = np.logspace(-1, 1, 5)
    sw = {k: np.linspace(0.1, 0.5, 5) for k in ("bias2", "noise", "mse", "clipped")}
    pts = np.array([[0.0, 0.0], [1.0, 0.0]])
    A = algorithm_a_2d(pts, 1.0, 1.0, 0.1, resolution=20)
    k = np.array([0.0, 0.25])
    return {
        "mse_vs_m": mse_vs_m_figure(np.array([1, 10, 100, 1000]), {"winsorized": [1, 0.1, 0.01, 0.001]},
                                    {"naive_laplace": [0.5] * 4}, crossover=30),
        "tau_knob": tau_knob_figure(r, sw, current=1.0, presets={"paper": 0.5, "safe": 1.0}, trials=60),
        "budget_heatmap": budget_heatmap_figure(np.linspace(1, 3, 5), np.linspace(0, 2, 4), np.zeros((4, 5)),
                                                budgets=[1e3], best=[(2.0, 1.0)]),
        "iso_accuracy": iso_accuracy_figure(np.logspace(0, 5, 6), {"a": np.logspace(5, 0, 6)},
                                            walls={"w1": 3.0, "w2": 7.0}),
        "error_vs_d": error_vs_d_figure(2.0 ** np.arange(0, 15), np.ones(15), np.ones(15), n=50),
        "ball_finding": ball_finding_figure(A.xs, A.ys, A.density, pts, A.radius, moved=1),
        "garbage": garbage_figure(["a", "G"], [0.5, 0.5], [0.4, 0.6]),
        "robustness": robustness_figure(k, np.array([1, 1]), np.array([1, 5]), np.array([1e-3, 0.02]), bound=2.0,
                                        current=0.1),
        "fixed_n_floor": fixed_n_floor_figure(np.logspace(0, 5, 6), {3: 0.01}, {3: np.logspace(-1, -6, 6)},
                                              beta={3: np.full(6, 0.1)}),
    }


def test_every_caption_is_clear_of_the_x_axis_and_inside_the_bottom_margin():
    # a paper-fraction position ran into the log-axis tick labels and the axis title; the caption is pinned in pixels
    for name, fig in _all_figures().items():
        below = px_under_plot(fig)
        lines = caption_of(fig).text.count("<br>") + 1
        assert below >= needed_caption_gap(fig), (name, below, needed_caption_gap(fig))
        assert below + CAPTION_LINE * lines <= layout_number(fig, "b"), (name, below, lines, layout_number(fig, "b"))


def test_captions_stay_put_when_the_figure_height_changes():
    # pixels under the plot, not a fraction of its height (which moves with the height: into the axis title)
    for name, fig in _all_figures().items():
        before = px_under_plot(fig)
        fig.update_layout(height=layout_number(fig, "height") + 200)
        assert px_under_plot(fig) == pytest.approx(before), name


def test_ball_finding_caption_leaves_room_for_the_legend_pinned_under_it():
    # the horizontal legend sits on the figure's bottom edge (y = 0.01 of the container): up to two rows of ~19 px
    # plus its frame must fit between the caption's last line and that edge
    fig = _all_figures()["ball_finding"]
    assert fig.layout.legend.yref == "container" and fig.layout.legend.yanchor == "bottom"
    lines = caption_of(fig).text.count("<br>") + 1
    legend_top = fig.layout.legend.y * layout_number(fig, "height")
    room = layout_number(fig, "b") - px_under_plot(fig) - CAPTION_LINE * lines - legend_top
    assert room >= 2 * 19 + 6, room


def test_tau_knob_axes_and_resolution_line():
    r = np.logspace(-1, 1, 5)
    sw = {k: np.linspace(0.1, 0.5, 5) for k in ("bias2", "noise", "mse", "clipped")}
    fig = tau_knob_figure(r, sw, current=1.0, presets={"paper": 0.5, "safe": 1.0}, trials=60)
    # the clipped fraction axis has its own ticks (not synced to the log grid of the left axis)
    assert fig.layout.yaxis2.tickmode == "linear" and fig.layout.yaxis2.range == (0, 1)
    # Monte-Carlo resolution of bias² = MSE/trials, appended after the original traces
    np.testing.assert_allclose(fig.data[-1].y, sw["mse"] / 60)


def test_budget_heatmap_legend_shows_white_lines_and_powers_of_ten():
    ln, lm = np.linspace(1, 3, 5), np.linspace(0, 2, 4)
    fig = budget_heatmap_figure(ln, lm, np.zeros((4, 5)), budgets=[1e3, 1e5], z_label="log₁₀(MSE − γ(2B)²)")
    assert fig.data[1].name.endswith("10³") and fig.data[2].name.endswith("10⁵")
    assert fig.layout.legend.bgcolor.startswith("rgba(70")  # white iso-N lines need a dark legend
    assert "MSE" in fig.data[0].colorbar.title.text


def test_fixed_n_floor_draws_the_wme_formula_only_where_it_is_a_guarantee():
    """Where Theorem 1's β_fail ≥ ½ the WME formula promises nothing: the dashed curve is not drawn there (it once
    fell towards 0 where no guarantee holds)."""
    ff = fixed_n_floor_figure(np.array([1, 10, 100]), {3: 0.01}, {3: np.array([0.1, 0.01, 0.001])},
                              beta={3: np.array([0.9, 0.5, 0.1])})
    dashed = [t for t in ff.data if t.line.dash == "dash"][0]
    assert dashed.y[0] is None and dashed.y[1] is None and dashed.y[2] == 0.001  # gaps (NaN sent as null)
    assert "β<sub>fail</sub> < ½" in dashed.name
