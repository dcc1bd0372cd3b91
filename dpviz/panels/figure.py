"""The figures of a panel: a plotly ``FigureWidget`` per figure slot, kept in step with each render's figures.

Under ``dpviz serve`` the figures' front end is dpviz's own module (``figure.js``), drawn with plotly.js's
cartesian bundle served once per page; elsewhere (JupyterLab, plain Voilà) plotly's own ``FigureWidget``.
"""

from __future__ import annotations

import copy
import importlib
import json
import numbers
import os
import sys
import types
from pathlib import Path
from typing import Any, Callable

import numpy as np


class _DeferredModule(types.ModuleType):
    """Stands in for a module until one of its attributes is read, then imports the real one."""

    def __getattr__(self, attr: str) -> Any:
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), attr)


def _import_figure_widget() -> None:
    """Import plotly's FigureWidget without importing nbformat.

    plotly's widget module imports its renderers, which import nbformat at once only to check its version if a
    figure is ever shown as a notebook mime bundle; nbformat imports jsonschema, which (when the optional
    rfc3987-syntax package is installed, as Jupyter's own dependencies do) compiles 39 grammars at import: about
    2 CPU-seconds per kernel, more than every lesson's figures together. plotly gets a stand-in that imports
    nbformat the first time it is actually used; nobody else sees the stand-in.
    """
    if "nbformat" in sys.modules or "plotly.basewidget" in sys.modules:
        return
    sys.modules["nbformat"] = _DeferredModule("nbformat")
    try:
        importlib.import_module("plotly.basewidget")
    finally:
        if isinstance(sys.modules.get("nbformat"), _DeferredModule):
            del sys.modules["nbformat"]



_import_figure_widget()

import plotly.graph_objects as go  # noqa: E402  (after the stand-in above)
from plotly.basedatatypes import BasePlotlyType, Undefined  # noqa: E402

from dpviz.panels.controls import REJECT  # noqa: E402

__all__ = ["FIGURE_CONFIG", "figure_widget", "sync_figure", "figure_checks"]

# The front-end module of a figure under dpviz serve (``figure.js`` beside this file): plotly's FigureWidget protocol,
# drawn with plotly.js's cartesian bundle (1.5 MB, evaluated in about half the time of plotly's 5 MB widget bundle;
# the lessons draw only scatter, bar and heatmap traces). anywidget gives a model 2 s to load its module and run
# ``initialize``, after which the model ignores the kernel; so the module returns at once and never waits for
# plotly.js there: it keeps the figure up to date as plain data and draws it once plotly.js has arrived.
_FIGURE_MODULE = (Path(__file__).resolve().parent / "figure.js").read_text(encoding="utf-8")


_WIDGET_CLASSES: dict[str, type[go.FigureWidget]] = {}


def _shared_bundle_widget_class(bundle_url: str) -> type[go.FigureWidget]:
    """A ``FigureWidget`` whose front-end module (``figure.js``) imports plotly.js's cartesian bundle from
    ``bundle_url`` and draws with it.

    The browser's module map then holds one copy of plotly.js for every figure on the page, instead of one
    ~5 MB inline copy of all of plotly.js per figure (the default). The module never waits for the bundle inside
    anywidget's 2 s initialisation limit, so a slow download cannot leave a figure deaf to its sliders.
    """
    if bundle_url not in _WIDGET_CLASSES:  # one class per URL (a page's figures share one module)
        shim = _FIGURE_MODULE.replace("__URL__", json.dumps(bundle_url))
        _WIDGET_CLASSES[bundle_url] = type("SharedBundleFigureWidget", (go.FigureWidget,),
                                           {"_esm": shim, "__module__": __name__, "_dpviz_shared_bundle": True})
    return _WIDGET_CLASSES[bundle_url]


def figure_widget(fig: go.Figure) -> go.FigureWidget:
    """The ``FigureWidget`` a panel shows for ``fig``.

    Under ``dpviz serve`` (``make serve``) the server publishes plotly.js's cartesian bundle at one URL and
    sets ``DPVIZ_PLOTLY_BUNDLE_URL`` for its kernels; the widget's front end (``figure.js``) then loads plotly.js
    from there (once per page).
    Anywhere else (JupyterLab, plain ``voila``) it is plotly's own ``FigureWidget``, which carries the bundle inline.
    """
    if not isinstance(fig, go.Figure):
        raise TypeError(f"fig = {fig!r:.60} is not allowed: must be a plotly Figure.")
    bundle_url = os.environ.get("DPVIZ_PLOTLY_BUNDLE_URL")
    widget = _shared_bundle_widget_class(bundle_url)(fig) if bundle_url else go.FigureWidget(fig)
    widget._config = dict(FIGURE_CONFIG)
    return widget


def _static_value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


#: plotly.js options of every figure: a mode bar with only what a learner needs (zoom, pan, reset, save as PNG):
#: no plotly logo linking away, no cloud/share or Chart Studio buttons, four tab stops per figure instead of nine.
FIGURE_CONFIG: dict[str, Any] = {
    "displaylogo": False,
    "showSendToCloud": False,
    "showEditInChartStudio": False,
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d", "toggleSpikelines",
                               "hoverClosestCartesian", "hoverCompareCartesian", "sendDataToCloud",
                               "editInChartStudio"],
    "toImageButtonOptions": {"format": "png", "scale": 2},
}


def sync_figure(target: go.FigureWidget, source: go.Figure) -> None:
    """Make ``target`` show ``source``, sending the browser one update with only what changed.

    ``source`` was validated when its builder made it, so its JSON is written into the widget's figure as is (no
    second validation, the most expensive step of a plotly update): for each trace property and each top-level
    layout property that differs, the new value (or its removal) goes into one ``Plotly.update`` message, built by
    plotly's own ``_perform_plotly_restyle`` / ``_perform_plotly_relayout`` (which compare with what the widget
    holds). When the number or types of traces change, the traces are replaced instead.
    """
    if not isinstance(target, go.FigureWidget):
        raise TypeError(f"target = {target!r:.60} is not allowed: must be a plotly FigureWidget.")
    if not isinstance(source, go.Figure):
        raise TypeError(f"source = {source!r:.60} is not allowed: must be a plotly Figure.")
    # The raw figure (numpy arrays, not the base64 form of to_plotly_json), copied: the widget's figure must not
    # share containers with a figure a builder might reuse (a zoom in the browser edits the widget's layout in place).
    data = copy.deepcopy(source._data)
    layout = {k: (v if k == "template" else copy.deepcopy(v)) for k, v in source._layout.items()}
    if len(target._data) != len(data) or any(
        old.get("type", "scatter") != new.get("type", "scatter") for old, new in zip(target._data, data)
    ):
        _replace_traces(target, source, layout)
        return
    restyle: dict[str, list] = {}
    for key in {k for trace in (*target._data, *data) for k in trace} - {"uid", "type"}:
        values = []
        for old, new in zip(target._data, data):
            value = new.get(key, None)
            if (key not in new and key not in old) or BasePlotlyType._vals_equal(old.get(key), value):
                value = Undefined
            values.append(value)
        if any(v is not Undefined for v in values):
            restyle[key] = values
    relayout = {}
    for key in set(layout) | set(target._layout):
        value = layout.get(key, None)
        if (key in layout or key in target._layout) and not BasePlotlyType._vals_equal(target._layout.get(key), value):
            relayout[key] = value
    if not restyle and not relayout:
        return
    indexes = list(range(len(data)))
    restyle = target._perform_plotly_restyle(restyle, indexes) if restyle else {}
    relayout = target._perform_plotly_relayout(relayout) if relayout else {}
    if restyle:
        # plotly.js forgets an axis type set explicitly (e.g. "category" over numbers) when an update changes trace
        # data, unless the same update names it (DelStab's outputs fell back to a linear axis after one slider move).
        # An axis sent whole carries its type already, and plotly.js refuses an update that sets an attribute and its
        # parent together ("cannot set yaxis.type and a parent attribute simultaneously": nothing is redrawn).
        for key, axis in layout.items():
            if (key[1:5] == "axis" and key not in relayout and isinstance(axis, dict)
                    and axis.get("type") not in (None, "-")):
                relayout.setdefault(f"{key}.type", axis["type"])
    if restyle or relayout:
        if getattr(target, "_dpviz_shared_bundle", False):  # dpviz's figure module reads rows of buffers
            restyle = {key: [_rows_as_buffers(v) for v in values] for key, values in restyle.items()}
        target._send_update_msg(restyle, relayout, indexes)


def _rows_as_buffers(value: Any) -> Any:
    """A 2-D array of numbers (a heatmap's z) as the list of its rows, so that each row is sent as a binary buffer.

    plotly's serializer sends a 1-D numeric array as a buffer but a 2-D one as JSON lists of floats: lesson 12's 81 × 81
    heatmap was 134 kB of text per slider move (52 kB as buffers), ~20 ms more between the kernel and the page and
    in the page's JSON parsing. dpviz's figure module (``figure.js``) reads each row as a typed array, which plotly.js
    takes for z; plotly's own front end (JupyterLab) is sent the array as before. A gap (None, in an array of
    objects: a NaN is not JSON) becomes NaN, which a buffer holds and plotly.js draws as the same gap. Anything else
    is returned as it is."""
    if not isinstance(value, np.ndarray) or value.ndim != 2 or not value.size:
        return value
    if value.dtype.kind == "O":
        if not all(x is None or (isinstance(x, numbers.Real) and not isinstance(x, bool)) for x in value.flat):
            return value
    elif value.dtype.kind != "f":
        return value
    return list(np.ascontiguousarray(value, dtype=np.float64))  # rows of one C-ordered array: each is contiguous


def _replace_traces(target: go.FigureWidget, source: go.Figure, layout: dict) -> None:
    """The slow path of :func:`sync_figure`: other traces (number or types), validated by plotly."""
    layout = source.layout.to_plotly_json()
    template = layout.pop("template", None)
    with target.batch_update():
        target.data = ()
        target.add_traces(list(source.data))
        stale = set(target.layout.to_plotly_json()) - set(layout) - {"template"}
        for key in stale:
            target.layout[key] = None
        target.layout.update(layout, overwrite=True)
        if template is not None and template != target.layout.template.to_plotly_json():
            target.layout.template = template



#: Most views of one figure a page may report (a lesson draws each figure once; a few tabs of one notebook in
#: JupyterLab share the figure's model).
MAX_VIEW_COUNT = 1000

#: Largest figure message (its JSON, in characters) a browser may send: a zoom or a click is a few hundred; plotly's
#: computed defaults for dpviz's largest figure are ~60 kB.
MAX_FIGURE_MESSAGE = 256_000


def _checked_figure_message(v: Any) -> Any:
    """A ``_js2py_*`` message: JSON-like (None, a dict or a list), at most :data:`MAX_FIGURE_MESSAGE` characters."""
    if v is not None and not isinstance(v, (dict, list)):
        return REJECT
    try:
        size = len(json.dumps(v, allow_nan=False))
    except (TypeError, ValueError):  # not JSON (e.g. NaN, or a nesting too deep to encode)
        return REJECT
    return v if size <= MAX_FIGURE_MESSAGE else REJECT


def figure_checks(widget: go.FigureWidget) -> dict[str, Callable[[Any], Any]]:
    """What a browser may send a figure: plotly.js reports zoom/relayout (and, from plotly's own figure module, its
    computed defaults) back to Python; dpviz's figure module never sends the computed defaults (see figure.js), so
    there they are refused: plotly would merge whatever arrives into the figure."""
    if not isinstance(widget, go.FigureWidget):
        raise TypeError(f"widget = {widget!r:.60} is not allowed: must be a plotly FigureWidget.")
    keys = ["_js2py_restyle", "_js2py_relayout", "_js2py_update", "_js2py_pointsCallback"]
    if not getattr(type(widget), "_dpviz_shared_bundle", False):
        keys += ["_js2py_layoutDelta", "_js2py_traceDeltas"]
    checks = {k: _checked_figure_message for k in keys}
    # ipywidgets' count of the figure's views, which each view in the page raises as it is drawn (plotly sets it to
    # 0, so the page keeps it; nothing in Python reads it): refused, it cost a warning in the server's terminal and
    # an echo to the page for every figure of every page a class opened
    checks["_view_count"] = lambda v: v if type(v) is int and 0 <= v <= MAX_VIEW_COUNT else REJECT
    return checks
