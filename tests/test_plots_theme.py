"""The shared figure helpers: captions placed in pixels below the axis labels, approximation notes."""

import plotly.graph_objects as go

from dpviz.plots._theme import approx_note, caption


def _fig(**layout):
    return go.Figure(go.Scatter(x=[1, 2], y=[1, 2]), layout=dict(template="dpviz", **layout))


def test_caption_below_sits_a_fixed_pixel_distance_under_the_plot_and_grows_the_margin_to_fit():
    fig = caption(_fig(), "line one<br>line two<br>line three", below=75)
    ann = fig.layout.annotations[-1]
    assert (ann.y, ann.yshift, ann.yanchor, ann.yref) == (0, -75, "top", "paper")
    assert fig.layout.margin.b == 75 + 3 * 15 + 12  # three 15 px lines and a little padding


def test_caption_below_never_shrinks_a_larger_margin_set_by_the_figure():
    fig = caption(_fig(margin=dict(b=200)), "one line", below=60)
    assert fig.layout.margin.b == 200


def test_caption_without_below_keeps_the_paper_fraction():
    fig = caption(_fig(), "legacy", y=-0.3)
    ann = fig.layout.annotations[-1]
    assert ann.y == -0.3 and not ann.yshift and fig.layout.margin.b is None


def test_approx_note_is_marked_and_can_be_lifted_over_a_legend():
    fig = approx_note(_fig(), "grid", yshift=34)
    ann = fig.layout.annotations[-1]
    assert ann.text == "≈ grid" and ann.yshift == 34 and (ann.x, ann.y) == (1, 1.0)
