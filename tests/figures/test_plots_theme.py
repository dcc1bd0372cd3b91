"""The shared figure helpers: captions placed in pixels below the axis labels, approximation notes."""

import numpy as np
import plotly.graph_objects as go
import pytest

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


def test_plain_layout_dict_is_the_shared_base_layout():
    from dpviz.plots._theme import _layout, base_layout

    want = base_layout("title", "ε", "δ", height=300).to_plotly_json()
    got = go.Layout(_layout("title", "ε", "δ", height=300)).to_plotly_json()
    assert got == want
    lay = _layout("t", "x", "y", title_size=15, xaxis={"type": "log"}, yaxis={"range": [0, 1]})
    assert lay["title"] == {"text": "t", "font": {"size": 15}}
    assert lay["xaxis"] == {"title": {"text": "x"}, "type": "log"} and lay["yaxis"]["range"] == [0, 1]


def test_reference_lines_span_the_plot_and_gaps_replace_non_finite_values():
    from dpviz.plots._theme import _gaps, _hline, _vline

    fig = go.Figure(go.Scatter(x=[0, 10], y=[0, 1]),
                    layout=dict(shapes=[_vline(4.0, color="#000000", width=2), _hline(0.5, dash="dot")]))
    v, h = fig.layout.shapes
    assert (v.x0, v.x1, v.y0, v.y1, v.xref, v.yref) == (4.0, 4.0, 0, 1, "x", "paper")
    assert (v.line.color, v.line.width, v.line.dash) == ("#000000", 2, "dash")
    assert (h.x0, h.x1, h.y0, h.y1, h.xref, h.yref, h.line.dash) == (0, 1, 0.5, 0.5, "paper", "y", "dot")
    assert _gaps(np.array([0.5, np.nan, -np.inf, 3])) == [0.5, None, None, 3.0]


def test_every_figure_gets_the_template_exactly_as_plotly_validates_it_and_through_the_cheap_copy():
    import copy

    import plotly.io as pio

    from dpviz.plots._theme import _Template

    registered = pio.templates["dpviz"]
    assert type(registered) is _Template  # the copy plotly makes per figure skips re-validation
    validated = go.layout.Template(registered.to_plotly_json()).to_plotly_json()  # plotly's own, validated copy
    assert _fig().layout.template.to_plotly_json() == validated
    assert copy.deepcopy(registered).to_plotly_json() == validated
    assert validated["layout"]["colorway"][0] == "#0072B2" and validated["layout"]["height"] == 420


def test_cheap_annotation_and_shape_appends_give_the_figure_plotlys_own_helpers_give():
    """The builders' cheap appenders must leave exactly what plotly's add_annotation / add_vline / add_hline /
    add_vrect leave (plotly's helpers re-validate everything already on the figure, or cost ~15 ms a call)."""
    from dpviz.plots._theme import _append_annotation, _append_shape

    ann = dict(text="a<br>b", xref="paper", yref="paper", x=0, y=0, yshift=-60, showarrow=False,
               font=dict(size=11, color="#555555"), align="left", xanchor="left", yanchor="top")
    ours, theirs = _fig(), _fig()
    for fig in (ours, theirs):
        fig.add_annotation(text="already there", x=1, y=1)
    _append_annotation(ours, **ann)
    theirs.add_annotation(**ann)
    _append_shape(ours, type="line", x0=5, x1=5, xref="x", y0=0, y1=1, yref="y domain",
                  line=dict(color="red", dash="dot"))
    theirs.add_vline(x=5, line=dict(color="red", dash="dot"))
    _append_shape(ours, type="line", x0=0, x1=1, xref="x domain", y0=3, y1=3, yref="y", line=dict(dash="dot"))
    theirs.add_hline(y=3, line=dict(dash="dot"))
    _append_shape(ours, type="rect", x0=1, x1=2, xref="x", y0=0, y1=1, yref="y domain",
                  fillcolor="rgba(120,120,120,0.18)", line=dict(width=0))
    theirs.add_vrect(x0=1, x1=2, fillcolor="rgba(120,120,120,0.18)", line_width=0)
    assert ours.to_plotly_json() == theirs.to_plotly_json()
    assert ours.layout.annotations[-1].yshift == -60 and len(ours.layout.shapes) == 3  # plotly's view follows
    widget = go.FigureWidget(_fig())  # a widget takes plotly's own path (which also tells the browser)
    _append_annotation(widget, **ann)
    assert widget.layout.annotations[-1].text == "a<br>b"


def test_a_bad_annotation_property_is_still_refused():
    from dpviz.plots._theme import _append_annotation

    with pytest.raises(ValueError):
        _append_annotation(_fig(), text="x", xanchor="sideways")


def test_figure_builders_make_traces_as_plain_dicts_validated_once():
    """A ``go.Scatter``/``go.Bar``/``go.Heatmap`` made by a builder is validated when made and again when
    ``go.Figure`` takes it (a fifth to a half of a slider update in the kernel for the lesson-12 figures); the
    builders pass plain dicts (``_scatter``, ``_bar``) that the figure validates once."""
    import re
    from pathlib import Path

    import dpviz.plots

    offenders = [f"{path.name}:{n}" for path in Path(dpviz.plots.__file__).parent.glob("*.py")
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if re.search(r"\bgo\.(?!Figure\b|Layout\b|layout\b)[A-Z]\w*\(", line)]
    assert not offenders, offenders


def test_a_trace_given_as_a_dict_is_validated_by_the_figure():
    from dpviz.plots._theme import _scatter

    with pytest.raises(ValueError, match="not_a_property"):
        go.Figure(data=[_scatter(x=[1], y=[2], not_a_property=1)])
