"""Widget values from the browser are untrusted input (issue 12, finding 7).

Every widget of every panel is driven here exactly as the WebSocket drives it (``Widget._handle_msg`` with an
``update`` message): values outside the declared range, rewritten ``min``/``max``, wrong types and non-finite
numbers are refused (the kernel keeps its state, nothing is rendered, and the browser is sent the kernel's state
back); values inside the range are accepted as before.
"""

from __future__ import annotations

import math

import ipywidgets as W
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz.panels import Slider
from dpviz.panels.guard import descendants as _descendants
from dpviz.panels.guard import guard
from dpviz.panels.panel import registered_panels

PANELS = registered_panels()

HOSTILE = [1e9, -1e9, 1e308, -1e308, math.nan, math.inf, -math.inf, "1", None, True, [1.0], {"a": 1}, 10**400]


def _from_browser(widget: W.Widget, state: dict) -> None:
    widget._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
                        "buffers": []})


def _snapshot(widget: W.Widget) -> dict:
    return {k: getattr(widget, k) for k in ("value", "index", "min", "max", "options") if hasattr(widget, k)}


def _sent(widget: W.Widget) -> list:
    out = []
    widget.send_state = lambda key=None: out.append(key)  # what the kernel tells the browser back
    return out


@pytest.fixture(scope="module")
def panels():
    return {name: cls().refresh() for name, cls in PANELS.items()}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PANELS))
def test_out_of_range_and_malformed_values_are_refused(panels, name):
    panel = panels[name]
    renders = len(panel.timings.samples)
    for cname, control in panel.controls.items():
        before = _snapshot(control)
        sent = _sent(control)
        key = "index" if hasattr(control, "index") and hasattr(control, "options") else "value"
        hostile = [b for b in HOSTILE if not isinstance(b, bool)] if isinstance(control, W.Checkbox) else HOSTILE
        for bad in hostile + ([len(control.options), -1] if key == "index" else []):
            _from_browser(control, {key: bad})
            assert _snapshot(control) == before, f"{name}.{cname}: accepted {key} = {bad!r}"
        # the browser may not widen the range, not even in the same message as an in-range value
        _from_browser(control, {"min": -1e12, "max": 1e12, "step": 1e6, "disabled": True})
        assert _snapshot(control) == before and not getattr(control, "disabled", False), f"{name}.{cname}"
        assert sent, f"{name}.{cname}: the browser was not told the kernel's state after a refused update"
        del control.send_state
    assert len(panel.timings.samples) == renders, f"{name}: a refused update rendered"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PANELS))
def test_in_range_values_from_the_browser_still_move_the_panel(panels, name):
    panel = panels[name]
    for cname, control in panel.controls.items():
        if isinstance(control, (W.FloatSlider, W.IntSlider, W.FloatLogSlider)):
            lo, hi = ((control.base ** control.min, control.base ** control.max)
                      if isinstance(control, W.FloatLogSlider) else (control.min, control.max))
            target = hi if control.value != hi else lo
            _from_browser(control, {"value": target})
            assert control.value == pytest.approx(target, rel=1e-12), f"{name}.{cname}"
        elif hasattr(control, "options") and hasattr(control, "index") and len(control.options) > 1:
            target = 1 if control.index != 1 else 0
            _from_browser(control, {"index": target})
            assert control.index == target, f"{name}.{cname}"
        elif isinstance(control, W.Checkbox):
            _from_browser(control, {"value": not control.value})
    assert panel.last_error is None or isinstance(panel.last_error, str)


def test_every_widget_of_a_panel_is_guarded(panels):
    for name, panel in panels.items():
        unguarded = [type(w).__name__ for w in _descendants(panel.widget) if not getattr(w, "_dpviz_guarded", False)]
        assert not unguarded, f"{name}: widgets taking browser state unchecked: {unguarded}"


def test_a_label_or_button_takes_nothing_from_the_browser():
    html, button = W.HTML("kept"), W.Button(description="Reveal")
    for w in (html, button):
        guard(w, {})  # what a panel declares for them: nothing
    _from_browser(html, {"value": "<script>alert(1)</script>"})
    _from_browser(button, {"description": "x", "disabled": True})
    assert html.value == "kept" and button.description == "Reveal" and not button.disabled


def test_an_echo_with_a_rounding_difference_does_not_render_again():
    """The browser's log slider sends 10**log10(v) back after drawing it; that is not a change of setting."""
    from dpviz.panels.few_examples import SqrtMPanel

    panel = SqrtMPanel().refresh()
    control = panel.controls["m"]
    renders = len(panel.timings.samples)
    _from_browser(control, {"value": control.value * (1 + 2e-16)})
    assert len(panel.timings.samples) == renders
    _from_browser(control, {"value": 1000.0})
    assert len(panel.timings.samples) == renders + 1 and control.value == 1000.0


@settings(max_examples=60)
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(min_value=-10**30, max_value=10**30)))
def test_a_slider_holds_only_values_inside_its_declared_range(x):
    spec = Slider("s", 0.5, 0.0, 1.0, step=0.01)
    s = spec.build()
    guard(s, spec.client_checks(s))
    s.send_state = lambda key=None: None
    _from_browser(s, {"value": x})
    assert 0.0 <= s.value <= 1.0
    tol = 1e-9  # the browser's rounding at the ends of the range is clamped, not refused
    if math.isfinite(x) and -tol <= x <= 1.0 + tol:
        assert s.value == pytest.approx(min(max(x, 0.0), 1.0), abs=1e-12)
    else:
        assert s.value == 0.5


@pytest.mark.parametrize("name", sorted(PANELS))
def test_every_slider_starts_on_its_step_grid(name):
    """The browser snaps a slider to min + i·step and sends the snapped value back: a default off the grid would
    be drawn twice per page load, the second time at a value the lesson does not mention."""
    for cname, c in PANELS[name]().controls.items():
        if isinstance(c, W.FloatLogSlider):
            position = (math.log(c.value, c.base) - c.min) / c.step
        elif isinstance(c, (W.FloatSlider, W.IntSlider)):
            position = (c.value - c.min) / c.step
        else:
            continue
        assert abs(position - round(position)) < 1e-6, f"{name}.{cname} = {c.value} is off its step grid"


def test_an_explicit_axis_type_travels_with_every_data_update():
    """plotly.js resets an explicitly typed axis (e.g. "category" over numbers) to its automatic type when an
    update changes trace data without naming the type; sync_figure names it."""
    import plotly.graph_objects as go

    from dpviz.panels.figure import sync_figure

    def fig(ys):
        return go.Figure(go.Bar(x=[0, 1, 2], y=ys), layout=dict(xaxis=dict(type="category"), yaxis=dict(type="log")))

    target = go.FigureWidget(fig([1, 2, 3]))
    sent = []
    target.observe(lambda ch: sent.append(ch["new"]) if ch["new"] else None, names="_py2js_update")
    sync_figure(target, fig([3, 2, 1]))
    assert sent and sent[-1]["layout_data"].get("xaxis.type") == "category"
    assert sent[-1]["layout_data"].get("yaxis.type") == "log"
    assert "_send_update_msg" not in target.__dict__  # the figure is left as it was


def _figure(shared: bool):
    import plotly.graph_objects as go

    from dpviz.panels.figure import _shared_bundle_widget_class

    fig = go.Figure(go.Scatter(x=[0, 1, 2], y=[1, 2, 3]))
    cls = _shared_bundle_widget_class("/dpviz-static/plotly-cartesian.min.js") if shared else go.FigureWidget
    widget = cls(fig)
    from dpviz.panels.figure import figure_checks

    guard(widget, figure_checks(widget))
    return widget


def _refusals(caplog) -> int:
    return sum("refused a browser update" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("shared", [True, False])
def test_a_figure_takes_a_zoom_from_the_browser_but_nothing_oversized_or_malformed(shared, caplog):
    from dpviz.panels.figure import MAX_FIGURE_MESSAGE

    caplog.set_level("WARNING", logger="dpviz.panels")
    w = _figure(shared)
    _from_browser(w, {"_js2py_relayout": {"relayout_data": {"xaxis.range[0]": 0.5, "xaxis.range[1]": 1.5},
                                          "source_view_id": "view"}})
    assert _refusals(caplog) == 0 and tuple(w.layout.xaxis.range) == (0.5, 1.5)  # a zoom: accepted and applied
    long_text = "x" * MAX_FIGURE_MESSAGE
    for bad in ["relayout", 5, {"relayout_data": {"title.text": long_text}, "source_view_id": "view"},
                {"relayout_data": {"xaxis.range[0]": math.nan}, "source_view_id": "view"}]:
        before = _refusals(caplog)
        _from_browser(w, {"_js2py_relayout": bad})
        assert _refusals(caplog) == before + 1, f"accepted {str(bad)[:60]!r}"
    assert tuple(w.layout.xaxis.range) == (0.5, 1.5) and w.layout.title.text is None


def test_only_plotlys_own_figure_module_may_send_its_computed_defaults(caplog):
    # dpviz.app's figure module never sends plotly.js's computed defaults (trace and layout deltas); from a browser
    # talking to it they can only be forged, and plotly would merge them into the figure, so they are refused.
    # plotly's own module (JupyterLab, plain Voilà) sends them after every update: accepted there.
    caplog.set_level("WARNING", logger="dpviz.panels")
    delta = {"_js2py_layoutDelta": {"layout_delta": {"xaxis": {"range": [0, 2]}}, "layout_edit_id": 1}}
    for shared in (True, False):
        before = _refusals(caplog)
        _from_browser(_figure(shared), delta)
        assert _refusals(caplog) == before + shared, f"shared bundle: {shared}"


@pytest.mark.parametrize("shared", [True, False])
def test_a_figure_takes_its_view_count_from_the_browser_within_bounds_and_quietly(shared, caplog):
    """Each view the page draws raises ipywidgets' _view_count (plotly sets it to 0): accepted, no warning in the
    server's terminal; anything but a count of at most MAX_VIEW_COUNT views is refused."""
    from dpviz.panels.figure import MAX_VIEW_COUNT

    caplog.set_level("WARNING", logger="dpviz.panels")
    w = _figure(shared)
    _from_browser(w, {"_view_count": 1})
    assert _refusals(caplog) == 0 and w._view_count == 1
    for bad in [-1, MAX_VIEW_COUNT + 1, 1.5, True, "2", None, [1]]:
        before = _refusals(caplog)
        _from_browser(w, {"_view_count": bad})
        assert _refusals(caplog) == before + 1 and w._view_count == 1, f"accepted {bad!r}"
