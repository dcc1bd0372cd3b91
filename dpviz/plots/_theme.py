"""The one shared look of every dpviz figure.

Importing this module registers a plotly template named ``"dpviz"``; builders take ``template=`` (default
``"dpviz"``) instead of mutating ``plotly.io.templates.default``. Colours are the Okabe–Ito palette, which stays
distinguishable for the common colour-vision deficiencies (Okabe & Ito 2008, "Color Universal Design").

Helpers here are the only place where figure-wide conventions live:

* :data:`PALETTE` / :data:`ROLE` — colours by meaning, so "M(x)" is the same blue in every lesson;
* :func:`caption` — the source line under a figure ("Source: …"), so every formula shown cites its origin;
* :func:`approx_note` — the visible note that a figure shows an approximation (grid, Monte Carlo, constant set to 1);
* ``_layout`` / ``_vline`` / ``_hline`` / ``_gaps`` — the one plain-dict layout, reference-line shapes and NaN-free
  data lists every figure module builds its figures from (plain dicts: ``go.Figure`` validates them once);
* ``_check_figure`` / ``_check_text`` / ``_check_flag`` / ``_number`` / ``_array`` / ``_mapping`` — the checks of a
  builder's arguments (a figure, a label, a flag, a number, an array, a mapping of arrays), with the message template
  of :mod:`dpviz._validation`; every array a builder takes is refused when it has the wrong shape or length, holds
  non-finite values where they make no sense, or more than :data:`FIGURE_VALUES` values.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from dpviz._validation import Cap, Interval, check_in_range, check_integer, check_real_array

__all__ = ["PALETTE", "ROLE", "TEMPLATE", "caption", "approx_note", "base_layout", "DASHES", "fmt_number"]

#: Okabe–Ito colour-blind-safe palette.
PALETTE = [
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#D55E00",  # vermillion
    "#F0E442",  # yellow (use sparingly: low contrast on white)
    "#000000",  # black
]

#: Colours by meaning, shared across lessons.
ROLE = {
    "x": PALETTE[0],  # output distribution on dataset x / first curve
    "x_prime": PALETTE[1],  # output distribution on neighbour x'
    "exact": PALETTE[0],
    "approx": PALETTE[5],  # textbook approximation / loose bound
    "bound": PALETTE[7],  # theoretical bound / reference line
    "alt": PALETTE[2],
    "alt2": PALETTE[3],
    "alt3": PALETTE[4],
    "shade": "rgba(213, 94, 0, 0.30)",  # area that delta measures
    "region": "rgba(0, 114, 178, 0.12)",  # allowed region
    "truth": PALETTE[7],
    "private": PALETTE[0],
    "nonprivate": PALETTE[7],
    "naive": PALETTE[5],
}

#: Dash styles so lines stay distinguishable in greyscale print too.
DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]

TEMPLATE = "dpviz"

_FONT = "Inter, 'Helvetica Neue', Arial, sans-serif"


class _Template(go.layout.Template):
    """The registered template. plotly deep-copies a named template into every figure and re-validates every
    property while doing so (2.4 ms of each figure's build); ours is validated once, when registered, so its copies
    skip that step (same content, 0.1 ms)."""

    def __deepcopy__(self, memo):
        return go.layout.Template(self.to_plotly_json(), _validate=False)


def _register() -> None:
    # A deliberately small template: every property here is validated each time a figure is built, so it
    # holds only what dpviz uses (white background, grid, fonts, colours), not plotly_white's defaults for
    # every trace type (that made each figure ~5x slower to build, which a slider feels).
    grid = "#E5ECF6"
    # ticklabeloverflow="allow": plotly.js's default ("hide past div") measures every tick label after every redraw to
    # hide those past the figure's edge, a third of a slider move's redraw in the browser; automargin keeps them
    # inside (the browser test checks no tick label is cut on a phone), so that check never hid one.
    axis = dict(showline=True, linecolor="#444444", ticks="outside", zeroline=False, gridcolor=grid,
                automargin=True, ticklabeloverflow="allow", title=dict(standoff=8))
    tpl = go.layout.Template(
        layout=dict(
            font=dict(family=_FONT, size=14, color="#222222"),
            colorway=PALETTE,
            paper_bgcolor="white",
            plot_bgcolor="white",
            title=dict(font=dict(size=17), x=0.0, xanchor="left"),
            margin=dict(l=70, r=30, t=60, b=80),
            legend=dict(bgcolor="rgba(255,255,255,0.85)", bordercolor="#cccccc", borderwidth=1),
            hoverlabel=dict(font=dict(family=_FONT)),
            hovermode="closest",
            xaxis=axis,
            yaxis=axis,
            colorscale=dict(sequential="Viridis", sequentialminus="Viridis", diverging="RdBu"),
            height=420,
        )
    )
    pio.templates[TEMPLATE] = tpl  # validated here, once; the registry stores a plain (validated) Template copy ...
    pio.templates[TEMPLATE].__class__ = _Template  # ... which is given the cheap copy (plotly copies it per figure)


_register()


def base_layout(title: str, xaxis_title: str, yaxis_title: str, *, template: str = TEMPLATE, **kwargs) -> go.Layout:
    """A layout with the shared template, a title and axis titles (write symbols and units in the titles)."""
    return go.Layout(
        template=template,
        title=dict(text=title),
        xaxis=dict(title=dict(text=xaxis_title)),
        yaxis=dict(title=dict(text=yaxis_title)),
        **kwargs,
    )


def caption(fig: go.Figure, text: str, *, y: float = -0.22, below: float | None = None) -> go.Figure:
    """Add a source/citation line under the plot area (e.g. ``"Source: Balle & Wang 2018, Thm 8"``).

    ``below`` (pixels from the bottom of the plot area to the caption's first line) places it clear of the tick
    labels and the x-axis title whatever the figure's height, and grows the bottom margin so every line fits
    (about 60 px for a linear x axis, 75 px for a log one whose minor ticks are labelled). Without it the caption
    sits at the paper fraction ``y`` (in [−5, 5]). Break long captions with ``<br>``. ``below`` is at most
    :data:`BELOW`.
    """
    _check_figure(fig)
    _check_text(text, "text")
    y = check_in_range(y, "y", -5.0, 5.0)
    if below is not None:
        below = BELOW.check(below, "below")
    placement = dict(y=y)
    if below is not None:
        lines = text.count("<br>") + 1
        needed = int(below + 15 * lines + 12)
        current = fig.layout.margin.b
        if current is None or current < needed:
            fig.layout.margin.b = needed  # (a third of update_layout's cost)
        placement = dict(y=0, yshift=-float(below))
    _append_annotation(
        fig,
        text=text,
        xref="paper",
        yref="paper",
        x=0,
        xanchor="left",
        yanchor="top",
        showarrow=False,
        font=dict(size=11, color="#555555"),
        align="left",
        **placement,
    )
    return fig


def approx_note(fig: go.Figure, text: str, *, yshift: float = 0.0) -> go.Figure:
    """Mark a figure as showing an approximation (grid, Monte Carlo, hidden constant set to 1).

    The note sits just above the plot area's top-right corner; ``yshift`` (pixels, in :data:`PIXELS`)
    lifts it over a legend placed there."""
    _check_figure(fig)
    _check_text(text, "text")
    yshift = PIXELS.check(yshift, "yshift")
    _append_annotation(
        fig,
        yshift=float(yshift),
        text="≈ " + text,
        xref="paper",
        yref="paper",
        x=1,
        y=1.0,
        xanchor="right",
        yanchor="bottom",
        showarrow=False,
        font=dict(size=11, color=ROLE["approx"]),
    )
    return fig


def _scatter(**props) -> dict:
    """A scatter trace as a plain dict: ``go.Figure`` validates it once (a ``go.Scatter`` would be validated twice,
    when made and again when the figure takes it)."""
    return dict(type="scatter", **props)


def _bar(**props) -> dict:
    """A bar trace as a plain dict (see :func:`_scatter`)."""
    return dict(type="bar", **props)


def _assemble(data: list[dict], layout: dict) -> go.Figure:
    """A figure put together from parts of figures plotly has already validated (their ``to_plotly_json()``) and
    literal settings written in dpviz, without plotly validating all of it a second time (a combined figure of two
    panels: ~10 ms of a slider update). The template is resolved here as plotly would. Tests build every such
    figure with full validation too and require the same JSON (tests/figures/test_plots_items_to_users.py)."""
    layout = dict(layout)
    if isinstance(layout.get("template"), str):
        layout["template"] = pio.templates[layout["template"]].to_plotly_json()
    return go.Figure(dict(data=data, layout=layout), _validate=False)


def _append_annotation(fig: go.Figure, **props) -> go.Figure:
    """``fig.add_annotation(**props)`` for a figure a builder is making: the new annotation is validated on its own
    and appended, where plotly's ``add_annotation`` re-validates every annotation already on the figure (~1 ms each,
    on every call). A widget (``FigureWidget``) goes through plotly, which also tells the browser."""
    return _append(fig, "annotations", go.layout.Annotation(**props))


def _append_shape(fig: go.Figure, **props) -> go.Figure:
    """``fig.add_shape(**props)`` the cheap way (see :func:`_append_annotation`; plotly's ``add_vline`` and the like
    cost ~15 ms a call). Write the shape as plotly's helper would, e.g. a vertical line over the plot's height:
    ``type="line", x0=x, x1=x, xref="x", y0=0, y1=1, yref="y domain"``."""
    return _append(fig, "shapes", go.layout.Shape(**props))


def _append(fig: go.Figure, key: str, item) -> go.Figure:
    if type(fig) is not go.Figure:  # a widget, or a subclass: plotly's own path
        fig.layout[key] += (item,)
        return fig
    fig._layout[key] = [*fig._layout.get(key, ()), item.to_plotly_json()]  # the figure's own layout dict
    fig._layout_obj._compound_array_props.pop(key, None)  # plotly rebuilds its objects from it when next read
    return fig


def _layout(title: str, xaxis_title: str, yaxis_title: str, *, template: str = TEMPLATE,
            title_size: float | None = None, xaxis: dict | None = None, yaxis: dict | None = None,
            **kwargs) -> dict:
    """:func:`base_layout` as a plain dict, for the builders of every lesson.

    ``go.Figure(data, layout=<dict>)`` resolves (deep-copies and validates) the registered template once, where a
    ``go.Layout`` passed to ``go.Figure`` costs that twice (~8–10 ms per figure, half a slider update's budget).
    ``title_size`` sets the title's font size; ``xaxis`` / ``yaxis`` add axis properties (e.g. ``{"type": "log"}``)
    next to the axis title; other keyword arguments are layout properties.

    >>> _layout("t", "x", "y", xaxis={"type": "log"})["xaxis"]
    {'title': {'text': 'x'}, 'type': 'log'}
    """
    title_d = dict(text=title) if title_size is None else dict(text=title, font=dict(size=title_size))
    return dict(template=template, title=title_d, xaxis=dict(title=dict(text=xaxis_title), **(xaxis or {})),
                yaxis=dict(title=dict(text=yaxis_title), **(yaxis or {})), **kwargs)


def _vline(x: float, *, color: str = "#777777", dash: str = "dash", width: float = 1.0, xref: str = "x",
           yref: str = "paper") -> dict:
    """A vertical reference line at ``x`` over the whole plot height, as a layout shape dict (put it in
    ``layout["shapes"]``; ``Figure.add_vline`` costs ~15 ms per call). ``xref="x2"`` for a second x axis.

    >>> _vline(3.0)["x0"], _vline(3.0)["yref"]
    (3.0, 'paper')
    """
    return dict(type="line", xref=xref, yref=yref, x0=x, x1=x, y0=0, y1=1,
                line=dict(color=color, dash=dash, width=width))


def _hline(y: float, *, color: str = "#777777", dash: str = "dash", width: float = 1.0, xref: str = "paper",
           yref: str = "y") -> dict:
    """A horizontal reference line at ``y`` across the whole plot width, as a layout shape dict (see
    :func:`_vline`). ``xref="x domain"`` spans one x axis's domain only.

    >>> _hline(1e-5)["y0"], _hline(1e-5)["xref"]
    (1e-05, 'paper')
    """
    return dict(type="line", xref=xref, yref=yref, x0=0, x1=1, y0=y, y1=y,
                line=dict(color=color, dash=dash, width=width))


def _gaps(values) -> list:
    """A list of floats with ``None`` where ``values`` is NaN or ±inf: plotly draws a gap there, and the widget's
    JSON messages stay valid (a bare NaN is not JSON: the browser drops the update and the figure stops following
    its sliders).

    >>> _gaps([1.0, float("nan"), float("inf"), 2])
    [1.0, None, None, 2.0]
    """
    return [float(v) if math.isfinite(v) else None for v in np.asarray(values, dtype=float).ravel().tolist()]


def fmt_number(x: float | None, digits: int = 4) -> str:
    """A number as figures and readouts print it: ``"n/a"`` for None, ``"∞"``/``"−∞"`` for infinities, else
    ``digits`` significant digits (the one formatter of bar labels and panel readouts).

    ``x`` is None or a real number (NaN is refused: a readout never shows "nan"), ``digits`` an integer in [1, 17].

    >>> fmt_number(None), fmt_number(math.inf), fmt_number(3.14159265), fmt_number(2.0)
    ('n/a', '∞', '3.142', '2')
    """
    digits = check_integer(digits, "digits", minimum=1, maximum=17)
    if x is None:
        return "n/a"
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x.item()
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"x = {x!r} is not allowed: must be None or a real number.")
    try:
        x = float(x)
    except OverflowError:  # an int beyond the double range
        raise ValueError(f"x = {x!r} is not allowed: must be a number within the double range.") from None
    if math.isnan(x):
        raise ValueError("x = nan is not allowed: must be None or a number (a readout never shows NaN).")
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.{digits}g}"


# ============================================================================================ argument checks
# The one set of checks of the figure builders' arguments: a ValueError (a TypeError for a wrong kind of object)
# names the parameter as the caller wrote it, the value and what is allowed.

#: Values one array argument of a figure builder may hold: a figure of more points is slow to build, to send
#: to the browser and to draw (the panels draw at most a few thousand points per trace, 81 × 81 for a heatmap).
FIGURE_VALUES = Cap(100_000, "the values of one array argument of a figure")

#: A pixel offset a caption or note accepts (``below``, ``yshift``): at most a few figure heights.
PIXELS = Interval(-2000.0, 2000.0)
#: The offset ``below`` of a caption: 0 to 2000 pixels.
BELOW = Interval(0.0, PIXELS.high)


def _check_figure(fig: Any, name: str = "fig") -> go.Figure:
    if not isinstance(fig, go.Figure):
        raise TypeError(f"{name} = {fig!r} is not allowed: must be a plotly Figure.")
    return fig


def _check_text(text: Any, name: str, *, optional: bool = False) -> str | None:
    if text is None and optional:
        return None
    if not isinstance(text, str):
        raise TypeError(f"{name} = {text!r} is not allowed: must be a string{' or None' if optional else ''}.")
    return text


def _check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} = {value!r} is not allowed: must be True or False.")
    return bool(value)


def _number(value: Any, name: str, *, low: float = -math.inf, high: float = math.inf, low_open: bool = False,
            optional: bool = False) -> float | None:
    """A finite real number in [low, high] (``low_open``: > low), or None with ``optional``."""
    if value is None and optional:
        return None
    return check_in_range(value, name, low, high, low_inclusive=not low_open)


def _array(values: Any, name: str, *, ndim: int = 1, length: int | None = None, like: str | None = None,
           low: float | None = None, low_open: bool = False, high: float | None = None, gaps: bool = False,
           allow_empty: bool = False) -> np.ndarray:
    """A real float array of ``ndim`` dimensions holding at most :data:`FIGURE_VALUES` values.

    ``length`` (with ``like``, the name of the argument it must match) is its required length along the first axis;
    ``low``/``high`` bound its finite entries (``low_open``: > low); ``gaps`` lets NaN and ±∞ through (a builder draws
    them as gaps), else every entry must be finite. Complex, string and ragged input is refused.
    """
    arr = check_real_array(values, name, ndim=ndim, allow_empty=allow_empty or length == 0, finite=not gaps)
    FIGURE_VALUES.check(arr.size, f"the size of {name}")
    arr = arr.astype(float)
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} has {arr.shape[0]} values and {like} {length}, which is not allowed: must have one "
                         f"per value of {like}.")
    finite = arr[np.isfinite(arr)]
    if low is not None:
        bad = finite[(finite <= low) if low_open else (finite < low)]
        if bad.size:
            raise ValueError(f"{name} = {float(bad[0])!r} is not allowed: every value must be "
                             f"{'>' if low_open else '>='} {low:g}.")
    if high is not None and np.any(finite > high):
        raise ValueError(f"{name} = {float(finite[finite > high][0])!r} is not allowed: every value must be "
                         f"<= {high:g}.")
    return arr


def _mapping(curves: Any, name: str, *, allow_empty: bool = False, **array_kw) -> dict:
    """A mapping from names (str or int) to arrays, each checked by :func:`_array` as ``name[key]``."""
    if not isinstance(curves, Mapping):
        raise TypeError(f"{name} = {curves!r} is not allowed: must be a mapping from names to arrays.")
    if not curves and not allow_empty:
        raise ValueError(f"{name} is empty, which is not allowed: must hold at least one curve.")
    out = {}
    for key, values in curves.items():
        if isinstance(key, bool) or not isinstance(key, (str, int, np.integer)):
            raise TypeError(f"{name} has the key {key!r}, which is not allowed: keys must be names (str or int).")
        out[key] = _array(values, f"{name}[{key!r}]", **array_kw)
    return out
