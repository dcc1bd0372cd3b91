"""Shared test helpers for figures sent to the browser."""

from __future__ import annotations

import math

_MESSAGE_TRAITS = ("_py2js_update", "_py2js_restyle", "_py2js_relayout", "_py2js_addTraces")


def nan_paths(o, path: str = "") -> list[str]:
    """Where ``o`` (a JSON-like structure, numpy arrays allowed) holds a float NaN."""
    if isinstance(o, float) and math.isnan(o):
        return [path]
    if isinstance(o, memoryview):  # a binary buffer (see _as_sent): NaN there is a valid float64
        return []
    if isinstance(o, dict):
        return sum((nan_paths(v, f"{path}/{k}") for k, v in o.items()), [])
    if isinstance(o, (list, tuple)):
        return sum((nan_paths(v, f"{path}[{i}]") for i, v in enumerate(o)), [])
    if hasattr(o, "tolist"):
        return nan_paths(o.tolist(), path)
    return []


def refused_update_keys(message) -> list[str]:
    """Keys of a ``Plotly.update`` message that plotly.js refuses: a layout (or trace) attribute set together with one
    of its parents, e.g. ``yaxis`` and ``yaxis.type``. plotly.js throws "cannot set yaxis.type and a parent attribute
    simultaneously" and redraws nothing, while the figure's data in the page has already changed."""
    bad = []
    if not isinstance(message, dict):
        return bad
    for part in ("layout_data", "style_data"):
        keys = set(message.get(part) or {})
        bad += [f"{part}: {key} with its parent {parent}" for key in sorted(keys)
                for parent in (key.rsplit(".", k)[0] for k in range(1, key.count(".") + 1)) if parent in keys]
    return bad


def watch_updates_for_refused_keys(panel) -> list[str]:
    """A list that fills with :func:`refused_update_keys` of every update the panel's figures send from now on."""
    found: list[str] = []
    for i, fig in enumerate(panel.figures):
        fig.observe(lambda ch, i=i: found.extend(f"fig{i} {k}" for k in refused_update_keys(ch["new"])),
                    names="_py2js_update")
    return found


def _as_sent(message):
    """The message as plotly's widget serializer sends it: numeric numpy arrays become binary buffers (where a
    NaN is harmless: the browser reads it as a gap), everything else stays JSON."""
    from plotly.serializers import custom_serializers

    return custom_serializers["to_json"](message, None)


def watch_updates_for_nan(panel) -> list[str]:
    """A list that fills with the paths of NaN in every update message the panel's figures send from now on.

    NaN is not JSON: the front end drops such an update and the figure stops following its sliders."""
    found: list[str] = []
    for i, fig in enumerate(panel.figures):
        for trait in _MESSAGE_TRAITS:
            fig.observe(lambda ch, i=i: found.extend(nan_paths(_as_sent(ch["new"]), f"fig{i}")), names=trait)
    return found


# ----------------------------------------------------------------------------------------------- caption placement
# Room the x axis takes under the plot area (template: 14 px tick font, ticks 5 px, title standoff 8 px): a single
# row of tick labels ≈ 25 px, plus the axis title ≈ 45–50 px; a log axis spanning a few decades labels its minor
# ticks (2, 5) and needs ~75 px in all. A caption line is ≤ 15 px (11 px font). Requirements of issue 13, not read
# from the code under test.
GAP_LOG_MINOR, GAP_TITLED, GAP_TICKS_ONLY, CAPTION_LINE = 75, 60, 35, 15


def caption_of(fig):
    """The figure's source line (the annotation that cites)."""
    return next(a for a in fig.layout.annotations if "Source" in (a.text or ""))


def layout_number(fig, key):
    """A layout number (``"height"``, or the margin's ``"t"`` / ``"b"``), the template's where the figure leaves it
    unset."""
    lay = fig.layout
    value = lay.margin[key] if key in ("t", "b") else lay[key]
    tpl = lay.template.layout
    return value if value is not None else (tpl.margin[key] if key in ("t", "b") else tpl[key])


def px_under_plot(fig) -> float:
    """Pixels from the bottom of the plot area down to the top of the caption (plotly: a paper y is that fraction
    of the plot area's height above its bottom; yshift moves the text by pixels)."""
    cap = caption_of(fig)
    assert cap.yref == "paper" and cap.yanchor == "top"
    plot_h = layout_number(fig, "height") - layout_number(fig, "t") - layout_number(fig, "b")
    return -(cap.y or 0) * plot_h - (cap.yshift or 0)


def labelled_minor_log_ticks(ax) -> bool:
    """True when a log axis labels ticks between the decades (2, 5, …), which takes a second row of labels."""
    if ax.type != "log":
        return False
    if ax.tickvals is not None:
        return any(abs(math.log10(v) - round(math.log10(v))) > 1e-9 for v in ax.tickvals)
    return ax.dtick is None or str(ax.dtick).startswith("D")  # plotly's automatic log ticks label 2 and 5


def needed_caption_gap(fig) -> float:
    """The room under the plot area a caption must leave for the x axis's tick labels and title."""
    ax = fig.layout.xaxis
    if ax.type == "category" and ax.tickangle:  # rotated labels: their length, turned by the angle
        longest = max(len(str(x)) for t in fig.data for x in (t.x if t.x is not None else []))
        char = 0.6 * ax.tickfont.size  # a monospace character's advance
        return longest * char * abs(math.sin(math.radians(ax.tickangle))) + GAP_TICKS_ONLY
    if labelled_minor_log_ticks(ax):
        return GAP_LOG_MINOR
    return GAP_TITLED if (ax.title.text or "") else GAP_TICKS_ONLY


# ----------------------------------------------------------------------------------------------- one-pass builders
#: plotly's incremental calls: each one re-walks and re-validates the figure (add_vline and the like ~15 ms each)
INCREMENTAL = ("add_trace", "add_traces", "update_xaxes", "update_yaxes", "update_traces", "add_annotation",
               "add_shape", "add_vline", "add_hline", "add_vrect", "add_hrect")
#: graph objects a builder would validate twice (once made, again inside go.Figure): builders pass plain dicts
OBJECTS = ("Scatter", "Bar", "Heatmap", "Layout")


def forbid_incremental_building(monkeypatch) -> None:
    """Make every plotly call a one-pass builder must not use (issue 14: ≤ 30 ms per slider update) raise, and check
    that the guard is live; figures built afterwards prove they were built in one go."""
    import plotly.graph_objects as go
    import pytest

    def forbidden(name):
        def call(*args, **kwargs):
            raise AssertionError(f"{name} called while building a figure")
        return call

    fig = go.Figure()
    for name in INCREMENTAL:
        monkeypatch.setattr(go.Figure, name, forbidden(name))
    for name in OBJECTS:
        monkeypatch.setattr(go, name, forbidden(name))
    with pytest.raises(AssertionError, match="add_trace"):  # the guard is live
        fig.add_trace(dict(type="scatter"))
    with pytest.raises(AssertionError, match="Scatter"):
        go.Scatter(x=[1])
