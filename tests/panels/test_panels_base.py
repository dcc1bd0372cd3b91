"""The panel contract: one update path, figures synced in place, errors shown in the panel, never raised."""

from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

from dpviz.panels import ChoiceReveal, LogSlider, Panel, PredictReveal, Slider, Toggle, View
from dpviz.panels.figure import sync_figure
from dpviz.panels.panel import PANEL_REGISTRY


class _Toy(Panel):
    title = "toy"
    controls = {"scale": Slider("scale", 1.0, 0.5, 5.0, step=0.5), "delta": LogSlider("δ", 1e-5, 1e-8, 1e-1)}

    def render(self, v):
        if v["scale"] > 4.0:
            raise ValueError("scale = 4.5 is too large for this toy: must be <= 4.")
        if v["scale"] == 3.5:
            raise ZeroDivisionError("a bug")
        x = np.linspace(-3, 3, 7)
        fig = go.Figure([go.Scatter(x=x, y=np.exp(-np.abs(x) / v["scale"]), name="M(x)")],
                        layout=dict(template="dpviz", shapes=[dict(type="line", x0=v["scale"], x1=v["scale"],
                                                                   y0=0, y1=1)]))
        return View([fig], readout=f"<b>scale</b> {v['scale']}", hint="large δ" if v["delta"] > 1e-3 else None)


def test_panel_registers_and_renders_defaults():
    assert "_Toy" not in PANEL_REGISTRY
    p = _Toy().refresh()
    assert p.last_error is None and len(p.figures) == 1
    assert np.allclose(p.figures[0].data[0].y, np.exp(-np.abs(np.linspace(-3, 3, 7))))
    assert "scale" in p.readout.value


def test_control_change_updates_figure_in_place_and_layout():
    p = _Toy().refresh()
    fig = p.figures[0]
    p.controls["scale"].value = 2.0
    assert p.figures[0] is fig  # the same widget, updated
    assert np.allclose(fig.data[0].y, np.exp(-np.abs(np.linspace(-3, 3, 7)) / 2.0))
    assert fig.layout.shapes[0].x0 == 2.0
    assert len(p.timings.samples) == 2  # the first render and this one


def test_value_error_becomes_message_and_panel_keeps_working():
    p = _Toy().refresh()
    p.controls["scale"].value = 4.5
    assert "too large" in p.last_error and "too large" in p.status.value
    assert "Traceback" not in p.status.value
    # nothing of the previous setting is left showing: figures hidden, readout and hint cleared
    assert p._figbox.layout.visibility == "hidden" and p.readout.value == "" and p.hint.value == ""
    p.controls["scale"].value = 1.5
    assert p.last_error is None and p.status.value == ""
    assert p._figbox.layout.visibility == "visible" and "1.5" in p.readout.value
    assert np.allclose(p.figures[0].data[0].y, np.exp(-np.abs(np.linspace(-3, 3, 7)) / 1.5))


def test_unexpected_error_is_contained(caplog):
    p = _Toy().refresh()
    p.controls["scale"].value = 3.5
    assert "Something went wrong" in p.last_error and "ZeroDivisionError" in p.last_error
    assert "dpviz panel _Toy failed" in caplog.text


def test_hint_and_overrides():
    p = _Toy(delta=1e-2).refresh()
    assert "large δ" in p.hint.value
    with pytest.raises(ValueError, match="nope is not a control of _Toy"):
        _Toy(nope=1)


def test_sync_figure_replaces_traces_when_structure_changes():
    target = go.FigureWidget(go.Figure([go.Scatter(y=[1, 2])]))
    sync_figure(target, go.Figure([go.Bar(y=[3]), go.Scatter(y=[4, 5])], layout=dict(title="new")))
    assert [t.type for t in target.data] == ["bar", "scatter"]
    assert target.layout.title.text == "new"


def _sent(target):
    """Record the Plotly.update messages a figure widget sends."""
    sent = []
    send = target._send_update_msg
    target._send_update_msg = lambda restyle, relayout, *a, **k: (sent.append((restyle, relayout)),
                                                                  send(restyle, relayout, *a, **k))
    return sent


def test_sync_figure_sends_only_what_changed_in_one_update():
    """One message; a changed array, a removed property and a changed title; nothing for an unchanged figure."""
    from plotly.basedatatypes import Undefined

    def fig(y2, marker=True, title="a"):
        return go.Figure([go.Scatter(y=[1.0, 2.0], marker=dict(color="red") if marker else None, name="one"),
                          go.Scatter(y=y2, name="two")], layout=dict(title=title, xaxis=dict(range=[0, 1])))

    target = go.FigureWidget(fig([3.0, 4.0]))
    sent = _sent(target)
    sync_figure(target, fig([3.0, 4.0]))
    assert sent == []
    sync_figure(target, fig([5.0, 6.0], marker=False, title="b"))
    assert len(sent) == 1
    restyle, relayout = sent[0]
    assert set(restyle) == {"y", "marker"}
    assert restyle["y"][0] is Undefined and list(restyle["y"][1]) == [5.0, 6.0]
    assert restyle["marker"][0] is None and restyle["marker"][1] is Undefined
    assert set(relayout) == {"title"} and relayout["title"]["text"] == "b"
    # The widget's own figure now is the source (property reads see the new values).
    assert list(target.data[1].y) == [5.0, 6.0] and target.data[0].marker.color is None
    assert target.layout.title.text == "b" and tuple(target.layout.xaxis.range) == (0, 1)
    expected = fig([5.0, 6.0], marker=False, title="b").to_plotly_json()
    got = target.to_plotly_json()
    for trace in got["data"]:
        trace.pop("uid", None)
    assert got == expected


def test_sync_figure_sends_a_heatmap_to_dpvizs_figure_module_as_rows_of_binary_buffers():
    """Under dpviz.app (the shared-bundle widget) a 2-D z goes as its rows, each a binary buffer as sent, gaps (None)
    as NaN; plotly's own front end (a plain FigureWidget) gets the 2-D array as before. The widget's figure holds
    the new z either way."""
    from plotly.basedatatypes import Undefined

    from dpviz.panels.figure import _shared_bundle_widget_class

    def fig(z):
        return go.Figure([dict(type="heatmap", z=z), dict(type="scatter", y=[1.0, 2.0])])

    old = np.zeros((3, 4))
    new = np.arange(12.0).reshape(3, 4)
    gaps = np.array([[None, 1.0], [2.0, None]], dtype=object)
    for cls, rows in ((_shared_bundle_widget_class("/bundle.js"), True), (go.FigureWidget, False)):
        target = cls(fig(old))
        sent = _sent(target)
        messages = []
        target.observe(lambda ch, messages=messages: ch["new"] and messages.append(ch["new"]), names="_py2js_update")
        sync_figure(target, fig(new))
        (restyle, _), = sent
        z = messages[0]["style_data"]["z"]
        assert z[1] is Undefined and restyle["z"][1] is Undefined
        if rows:
            assert isinstance(z[0], list) and [list(r) for r in z[0]] == new.tolist()
            from plotly.serializers import custom_serializers

            wire = custom_serializers["to_json"](messages[0], None)["style_data"]["z"][0]
            assert all(isinstance(r["buffer"], memoryview) and r["dtype"] == "float64" for r in wire)
        else:
            assert isinstance(z[0], np.ndarray) and z[0].shape == (3, 4)
        assert np.array_equal(np.asarray(target.data[0].z, dtype=float), new)
        if rows:
            messages.clear()
            sync_figure(target, fig(gaps))
            got = messages[0]["style_data"]["z"][0]
            assert np.isnan(got[0][0]) and got[0][1] == 1.0 and got[1][0] == 2.0 and np.isnan(got[1][1])


def test_sync_figure_does_not_share_containers_with_the_source():
    """A zoom in the browser edits the widget's layout in place; a figure a builder reuses must not change."""
    source = go.Figure([go.Scatter(y=[1.0, 2.0])], layout=dict(xaxis=dict(range=[0, 1])))
    target = go.FigureWidget(go.Figure([go.Scatter(y=[0.0, 0.0])], layout=dict(xaxis=dict(range=[0, 2]))))
    sync_figure(target, source)
    target._layout["xaxis"]["range"] = [5, 6]
    assert list(source.layout.xaxis.range) == [0, 1] and list(source.data[0].y) == [1.0, 2.0]


def test_bench_values_sweep_log_sliders_in_log_space():
    p = _Toy().refresh()
    vals = p.bench_values()["delta"]
    assert vals[0] == pytest.approx(1e-8) and vals[-1] == pytest.approx(1e-1)
    ratios = np.diff(np.log10(vals))
    assert np.allclose(ratios, ratios[0])


def _bound(exercise):
    """An exercise as a panel builds it (its functions get the panel and its values)."""
    return exercise.bind(_Toy(), "exercise")


@pytest.mark.parametrize("guess, verdict", [(10.0, "Close"), (10.5, "Close"), (20.0, "too high"), (1.0, "too low")])
def test_predict_reveal_verdicts(guess, verdict):
    ex = _bound(PredictReveal("How big?", lambda p, v: 10.0, explain=lambda p, v, a: f"because {a:g}", rel_tol=0.1))
    ex.guess.value = guess
    text = ex.reveal()
    assert verdict in text and "because 10" in text and verdict in ex.feedback.value


def test_predict_reveal_reveals_when_a_guess_is_committed_with_enter():
    ex = _bound(PredictReveal("How big?", lambda p, v: 10.0, rel_tol=0.1))
    assert ex.feedback.value == "" and ex.guess.continuous_update is False  # the value arrives on Enter
    ex.guess.value = 10.5  # what the browser sends when the learner presses Enter
    assert "Close" in ex.feedback.value


def test_choice_reveal_shows_nothing_before_reveal_and_the_picked_options_feedback_after():
    ex = _bound(ChoiceReveal("Is δ = 1/n safe?", [("Yes", False, "tempting, but one person may leak entirely"),
                                                  ("No", True, "δ = 1/n allows publishing one record in full")]))
    assert ex.feedback.value == "" and ex.choice.index is None
    assert "Pick" in ex.reveal() and "leak" not in ex.feedback.value  # no pick: no answer given away
    ex.choice.index = 0
    assert ex.reveal().startswith("❌") and "tempting" in ex.feedback.value and "publishing" not in ex.feedback.value
    ex.choice.index = 1
    assert ex.feedback.value == ""  # a new pick clears the old verdict
    assert ex.reveal().startswith("✅") and "publishing" in ex.feedback.value


@pytest.mark.parametrize("options", [[("only", True, "")], [("a", False, ""), ("b", False, "")]])
def test_choice_reveal_refuses_options_without_a_choice_or_an_answer(options):
    with pytest.raises(ValueError, match="options"):
        ChoiceReveal("?", options)


def test_figures_show_a_lean_mode_bar_without_the_logo_link_or_share_buttons(monkeypatch):
    from dpviz.panels.figure import figure_widget

    for bundle in (None, "/dpviz-static/plotly-cartesian.min.js"):
        if bundle is None:
            monkeypatch.delenv("DPVIZ_PLOTLY_BUNDLE_URL", raising=False)
        else:
            monkeypatch.setenv("DPVIZ_PLOTLY_BUNDLE_URL", bundle)
        config = figure_widget(go.Figure())._config
        assert config["displaylogo"] is False and config["showSendToCloud"] is False
        assert {"sendDataToCloud", "lasso2d", "select2d"} <= set(config["modeBarButtonsToRemove"])


def test_panel_names_must_be_unique_across_modules():
    ns = {"__name__": "elsewhere", "Panel": Panel}
    with pytest.raises(TypeError, match="Panel name ZZUnique is used by both"):
        type("ZZUnique", (Panel,), {"__module__": "first"})
        exec("class ZZUnique(Panel):\n    pass\n", ns)
    PANEL_REGISTRY.pop("ZZUnique", None)


def test_controls_do_not_share_a_layout():
    a, b = Slider("a", 1, 0, 2, step=1).build(), LogSlider("b", 1e-3, 1e-5, 1e-1).build()
    a.layout.display = "none"
    assert b.layout.display != "none"


def test_figures_load_plotly_from_the_shared_bundle_url_when_the_app_publishes_one(monkeypatch):
    import plotly

    inline = (Path(plotly.__file__).parent / "package_data" / "widgetbundle.js").read_text()
    monkeypatch.delenv("DPVIZ_PLOTLY_BUNDLE_URL", raising=False)
    plain = _Toy().refresh().figures[0]
    # JupyterLab / plain voila: plotly's own widget, bundle inline (traitlets' add_traits makes a per-instance
    # subclass, hence the name checks rather than ``type(...) is``)
    assert type(plain).__name__ == "FigureWidget" and plain._esm == inline

    monkeypatch.setenv("DPVIZ_PLOTLY_BUNDLE_URL", "/base/dpviz-static/plotly-cartesian.min.js")
    shared = _Toy().refresh().figures[0]
    assert isinstance(shared, go.FigureWidget) and type(shared).__name__ == "SharedBundleFigureWidget"
    assert len(shared._esm) < 20_000 and '"/base/dpviz-static/plotly-cartesian.min.js"' in shared._esm
    assert "export default" in shared._esm and "import(" in shared._esm
    assert np.allclose(shared.data[0].y, plain.data[0].y)
    # one class per URL, so anywidget's per-class id (used for CSS) stays stable across figures
    again = _Toy().refresh().figures[0]
    assert again._anywidget_id == shared._anywidget_id == "dpviz.panels.figure.SharedBundleFigureWidget"


def test_only_slow_panels_reserve_room_for_a_progress_bar():
    class _SlowToy(_Toy):
        slow = True

    assert _Toy().progress.layout.display == "none"
    slow = _SlowToy()
    assert slow.progress.layout.display is None and slow.progress.layout.visibility == "hidden"


def test_several_figures_stack_at_full_width():
    class _TwoFigures(_Toy):
        def render(self, v):
            view = super().render(v)
            return View(list(view.figures) * 2, readout=view.readout)

    p = _TwoFigures().refresh()
    assert len(p.figures) == 2 and p._figbox.layout.flex_flow == "column"


def test_slow_panels_are_marked_on_the_page_so_the_browser_test_can_report_them_apart():
    class _SlowToy(_Toy):
        slow = True

    assert "dpviz-slow" not in _Toy()._layout()._dom_classes
    assert {"dpviz-panel", "dpviz-slow"} <= set(_SlowToy()._layout()._dom_classes)


def test_progress_reports_move_the_bar_at_most_once_per_interval(monkeypatch):
    """A core loop may report hundreds of times; the bar (one message to the page per move) moves at most once per
    PROGRESS_INTERVAL of a (here: fake) clock, the first report always, and the figure is still the result."""
    import dpviz.panels.panel as base

    clock = {"t": 1000.0}
    monkeypatch.setattr(base.time, "perf_counter", lambda: clock["t"])
    reports = []

    class _Reporting(_Toy):
        slow = True

        def render(self, v):
            for i in range(200):  # 200 reports, 1 ms apart: 0.2 s of fake time
                clock["t"] += 0.001
                self.report_progress(i / 200)
                reports.append(i)
            return super().render(v)

    panel = _Reporting().refresh()
    moves = []
    panel.progress.observe(lambda ch: moves.append(ch["new"]), names="value")
    panel.controls["scale"].value = 2.0
    assert len(reports) == 400  # the first render and this one
    shown = [m for m in moves if m > 0]
    # 0.2 s at one move per 0.05 s: 4 moves (the first report of a render may fall inside the interval of the
    # previous render's last move), never the 199 a move per report would send
    assert 3 <= len(shown) <= 5, moves
    assert all(b - a >= 0.25 - 1e-9 for a, b in zip(shown, shown[1:]))  # 50 reports (0.05 s) between moves
    assert list(panel.figures[0].data[0].y) == pytest.approx(np.exp(-np.abs(np.linspace(-3, 3, 7)) / 2.0))


@pytest.mark.slow
def test_a_lessons_controls_and_texts_share_one_style_model_per_kind():
    """Lesson 05 (before its split) drew 70 style models (one per slider, drop-down, text, button, progress bar)
    among its 259 widgets, all alike; each kind now has one per kernel. The neighbour toggle's wider buttons have a
    style of
    their own, and the other toggles keep the default width."""
    import ipywidgets as W

    from dpviz.panels.composition import (
        CalibrationPanel,
        CompositionLabPanel,
        EpsilonVsCompositionsPanel,
        GroupPrivacyPanel,
    )

    panels = [cls().refresh() for cls in (CompositionLabPanel, EpsilonVsCompositionsPanel, CalibrationPanel,
                                           GroupPrivacyPanel)]

    def widgets(w, seen):
        if id(w) in seen or not isinstance(w, W.Widget):
            return
        seen[id(w)] = w
        for name in ("children", "style", "layout"):
            value = getattr(w, name, None)
            for child in (value if isinstance(value, (list, tuple)) else [value]):
                widgets(child, seen)

    seen: dict = {}
    for p in panels:
        widgets(p.widget, seen)
    styled = [w for w in seen.values() if isinstance(getattr(w, "style", None), W.Widget)]
    styles = {id(w.style) for w in styled}
    assert len(styled) >= 60 and len(styles) <= 8, (len(styled), len(styles))
    sliders = [w for w in styled if isinstance(w, (W.FloatSlider, W.FloatLogSlider, W.IntSlider))]
    assert len({id(w.style) for w in sliders}) == 1 and sliders[0].style.description_width == "initial"
    neighbours = [w for w in styled if isinstance(w, W.ToggleButtons) and w.description == "neighbours:"]
    assert neighbours and all(w.style.button_width == "auto" for w in neighbours)
    plain = Toggle("plain", ["a", "b"]).build()
    assert plain.style.button_width == "" and plain.style is not neighbours[0].style


def test_a_style_closed_with_every_widget_is_made_again_for_the_next_panel(monkeypatch):
    import ipywidgets as W
    from ipywidgets.widgets import widget as widget_module

    # close_all closes every widget of the process: here only this test's (in the whole suite, widgets of earlier
    # tests may hold comms of a comm manager that a later import replaced, and closing those raises KeyError)
    from dpviz.panels import controls

    monkeypatch.setattr(widget_module, "_instances", {})
    monkeypatch.setattr(controls, "_SHARED_STYLES", {})  # the styles too are made in this test, not by an earlier one
    first = _Toy().refresh()
    W.Widget.close_all()
    second = _Toy().refresh()
    style = second.controls["scale"].style
    assert style.comm is not None and style is not first.controls["scale"].style
