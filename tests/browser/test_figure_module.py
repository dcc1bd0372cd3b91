"""dpviz.app's figure front end (``dpviz/panels/figure.js``) against a recording stand-in for plotly.js, in headless
Chromium without a server: the figure it keeps as plain data (plotly's restyle and relayout rules, typed arrays from
the kernel's binary buffers, the "_undefined_" marker), what a view drawn late starts from, the order of the changes
it hands plotly.js, and the messages it sends back (a zoom, once; never an echo of the kernel's own change).
"""

from __future__ import annotations

import contextlib
import json

import pytest
from test_browser import CHROMIUM, CHROMIUM_ARGS, browser_available  # noqa: F401 (a fixture)

from dpviz.panels.figure import _FIGURE_MODULE

pytestmark = pytest.mark.browser

ORIGIN = "http://dpviz.test"
BUNDLE = "/dpviz-static/plotly-cartesian.min.js"

# plotly.js as the module sees it: records every call; newPlot keeps copies of what it was given.
_FAKE_PLOTLY = """
window.calls = [];
const copy = (v) => structuredClone(v);
window.Plotly = {
  newPlot(gd, data, layout, config) {
    gd.handlers = {}; gd.on = (ev, cb) => { gd.handlers[ev] = cb; };
    window.calls.push(["newPlot", copy(data), copy(layout), copy(config)]); return Promise.resolve(gd); },
  update(gd, s, l, t) { window.calls.push(["update", copy(s), copy(l), t]); return Promise.resolve(gd); },
  restyle(gd, s, t) { window.calls.push(["restyle", copy(s), t]); return Promise.resolve(gd); },
  relayout(gd, l) { window.calls.push(["relayout", copy(l)]); return Promise.resolve(gd); },
  addTraces(gd, t) { window.calls.push(["addTraces", copy(t)]); return Promise.resolve(gd); },
  deleteTraces(gd, i) { window.calls.push(["deleteTraces", i]); return Promise.resolve(gd); },
  moveTraces(gd, a, b) { window.calls.push(["moveTraces", a, b]); return Promise.resolve(gd); },
  animate(gd, f, o) { window.calls.push(["animate", copy(f), o]); return Promise.resolve(gd); },
  purge(gd) { window.calls.push(["purge"]); },
};
"""

_SETUP = """async (source) => {
  const url = URL.createObjectURL(new Blob([source], {type: "text/javascript"}));
  const widget = (await import(url)).default();
  const state = {
    _widget_data: [
      {type: "scatter", x: {buffer: new DataView(new Float64Array([0, 1, 2]).buffer), dtype: "float64", shape: [3]},
       y: [1, 2, 3], name: "a"},
      {type: "bar", y: [4, 5], name: "b"}],
    _widget_layout: {title: {text: "T"}, xaxis: {type: "log"}},
    _config: {displaylogo: false},
  };
  const handlers = {};
  const model = {
    get: (k) => state[k], set: (k, v) => { state[k] = v; window.sent.push([k, structuredClone(v)]); },
    save_changes() {}, on(ev, cb) { (handlers[ev] ??= []).push(cb); },
  };
  // the kernel sends a change, then clears it (plotly.py sets each _py2js_* message, then None)
  window.send = (k, v) => {
    for (const w of [v, null]) { state[k] = w; (handlers["change:" + k] || []).forEach((cb) => cb()); }
  };
  window.sent = [];
  widget.initialize({model});
  window.render = () => {
    const el = document.createElement("div"); el.style.width = "500px"; document.body.appendChild(el);
    return widget.render({model, el}).then((cleanup) => {
      window.cleanups = [...(window.cleanups || []), cleanup];
      return el;
    });
  };
}"""


def _calls(page, n: int) -> list:
    page.wait_for_function(f"() => window.calls && window.calls.length >= {n}")
    return page.evaluate("() => window.calls")


def test_the_figure_module_draws_the_figure_as_it_is_now_and_forwards_changes_in_order(browser_available):  # noqa: F811
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            held = []
            page.route(ORIGIN + "/", lambda r: r.fulfill(body="<html><body></body></html>", content_type="text/html"))
            page.route(ORIGIN + BUNDLE, lambda r: held.append(r))  # plotly.js arrives when the test says so
            page.goto(ORIGIN + "/")
            page.evaluate(_SETUP, _FIGURE_MODULE.replace("__URL__", json.dumps(BUNDLE)))

            # Changes before plotly.js has arrived: kept in the figure, nothing drawn yet.
            page.evaluate("""() => {
              send("_py2js_update", {style_data: {y: [[9, 9, 9], "_undefined_"], name: ["_undefined_", "B"]},
                                     layout_data: {"xaxis.range[0]": 1, title: null}, style_traces: [0, 1],
                                     source_view_id: null});
              send("_py2js_addTraces", {trace_data: [{type: "scatter", y: [7], name: "c"}]});
              send("_py2js_deleteTraces", {delete_inds: [1]});
              window.first = render();
            }""")
            page.wait_for_timeout(300)
            assert page.evaluate("() => window.calls") is None  # no plotly.js yet: nothing drawn, nothing lost
            held[0].fulfill(body=_FAKE_PLOTLY, content_type="text/javascript")

            newplot = _calls(page, 1)[0]
            assert newplot[0] == "newPlot"
            data, layout, config = newplot[1], newplot[2], newplot[3]
            assert [t["name"] for t in data] == ["a", "c"]  # "_undefined_" left trace 0's name alone; 1 deleted
            x = page.evaluate("() => { const x = window.calls[0][1][0].x; "
                              "return [x.constructor.name, Array.from(x)]; }")
            assert x == ["Float64Array", [0, 1, 2]]  # the kernel's binary buffer, as a typed array
            assert data[0]["y"] == [9, 9, 9] and data[1]["y"] == [7]
            assert layout == {"xaxis": {"type": "log", "range": [1]}, "height": 360}  # title removed; height as plotly
            assert config == {"displaylogo": False, "editSelection": False}
            page.wait_for_timeout(200)
            assert len(page.evaluate("() => window.calls")) == 1  # the queued changes were in the drawing already

            # After drawing: each change goes to plotly.js in order, marked as the kernel's own.
            page.evaluate("""() => {
              send("_py2js_update", {style_data: {y: [[1]]}, layout_data: {}, style_traces: [1], source_view_id: null});
              send("_py2js_restyle", {restyle_data: {visible: [true]}, restyle_traces: [0], source_view_id: null});
            }""")
            calls = _calls(page, 3)
            assert calls[1] == ["update", {"y": [[1]], "_doNotReportToPy": True}, {}, [1]]
            assert calls[2] == ["restyle", {"visible": [True], "_doNotReportToPy": True}, [0]]

            # A zoom goes back to the kernel once; the kernel's echo is not applied to the view it came from, but a
            # view drawn later shows it. plotly's own relayouts (marked) are not sent.
            page.evaluate("""async () => {
              const el = await window.first;
              el.handlers.plotly_relayout({"xaxis.range[0]": 2});
              el.handlers.plotly_relayout({"xaxis.range[0]": 3, _doNotReportToPy: true});
            }""")
            sent = page.evaluate("() => window.sent")
            assert len(sent) == 1 and sent[0][0] == "_js2py_relayout"
            assert sent[0][1]["relayout_data"] == {"xaxis.range[0]": 2}
            view_id = sent[0][1]["source_view_id"]
            page.evaluate("(id) => send('_py2js_relayout', {relayout_data: {'xaxis.range[0]': 2}, source_view_id: id})",
                          view_id)
            page.evaluate("() => render()")
            calls = _calls(page, 4)
            assert [c[0] for c in calls][1:] == ["update", "restyle", "newPlot"], calls
            late = calls[3]
            assert late[2]["xaxis"]["range"] == [2] and [t["name"] for t in late[1]] == ["a", "c"]
            assert late[1][1]["y"] == [1] and late[1][0]["visible"] is True

            page.evaluate("() => window.cleanups.forEach((c) => c())")
            assert [c[0] for c in page.evaluate("() => window.calls")][-2:] == ["purge", "purge"]
            assert not errors, errors
        finally:
            browser.close()


_SETUP_WITH = _SETUP.replace("async (source) => {", "async ([source, given]) => {").replace(
    "const state = {", "const state = given || {")


@contextlib.contextmanager
def _page_with_plotly(**bundle):
    """A blank page at ORIGIN in headless Chromium whose plotly.js request is answered with ``bundle`` (the keyword
    arguments of Playwright's ``route.fulfill``); yields the page and the list of its uncaught errors."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.route(ORIGIN + "/", lambda r: r.fulfill(body="<html><body></body></html>", content_type="text/html"))
            page.route(ORIGIN + BUNDLE, lambda r: r.fulfill(content_type="text/javascript", **bundle))
            page.goto(ORIGIN + "/")
            yield page, errors
        finally:
            browser.close()


@contextlib.contextmanager
def _drawn_with_real_plotly(state: dict):
    """A page in which the figure module has drawn the figure ``state`` with the real plotly.js (the cartesian
    bundle dpviz.app serves), as ``window.el``; yields the page and the list of page errors."""
    from dpviz.app import PLOTLY_BUNDLE, STATIC

    with _page_with_plotly(path=str(STATIC / PLOTLY_BUNDLE)) as (page, errors):
        page.evaluate(_SETUP_WITH, [_FIGURE_MODULE.replace("__URL__", json.dumps(BUNDLE)), state])
        page.evaluate("async () => { window.el = await render(); }")
        page.wait_for_function("() => window.el && window.el._fullLayout && window.el._fullLayout._size")
        yield page, errors


def test_a_slider_move_that_shortens_tick_labels_keeps_the_margins_and_draws_the_figure_once(browser_available):  # noqa: F811
    """plotly's automargin fits the margins to the tick labels; when an update changes them, plotly.js draws the
    whole figure a second time in the same update and the plot area jumps sideways. The figure module keeps the
    margins a view was drawn with (they still widen for longer labels, and the kernel's own margins win): one
    drawing per update, checked with the real plotly.js. Fails without ``steady`` in figure.js (two drawings and a
    narrower left margin)."""
    state = {
        "_widget_data": [{"type": "scatter", "x": [0, 1, 2], "y": [1_000_000, 2_000_000, 3_000_000]}],
        "_widget_layout": {"yaxis": {"tickformat": ",d", "automargin": True}, "margin": {"l": 20, "r": 10, "t": 10,
                                                                                          "b": 30}, "width": 500},
        "_config": {},
    }
    with _drawn_with_real_plotly(state) as (page, errors):
        page.evaluate("() => { window.drawings = 0;"
                      " window.el.on('plotly_beforeplot', () => { window.drawings += 1; }); }")
        wide = page.evaluate("() => window.el._fullLayout._size.l")
        assert wide > 60  # "3,000,000" needs room: plotly widened the 20 px margin

        def move(y, layout=None):
            page.evaluate("([y, layout]) => { window.drawings = 0; send('_py2js_update', {style_data: {y: [y]},"
                          " layout_data: layout || {}, style_traces: [0], source_view_id: null}); }", [y, layout])
            page.wait_for_function("(y0) => window.el.data[0].y[0] === y0", arg=y[0])
            page.wait_for_timeout(300)
            return page.evaluate("() => [window.drawings, window.el._fullLayout._size.l]")

        drawings, left = move([1, 2, 3])  # labels "1", "2", "3": plotly alone would shrink the margin
        assert (drawings, left) == (1, wide)
        drawings, left = move([10_000_000, 20_000_000, 30_000_000])  # longer labels: more room, none cut
        assert left > wide
        label_left = page.evaluate("() => Math.min(...[...window.el.querySelectorAll('.ytick text')].map("
                                   "t => t.getBoundingClientRect().left))")
        assert label_left >= page.evaluate("() => window.el.getBoundingClientRect().left")
        drawings, left = move([4, 5, 6], {"margin.l": 90})  # the kernel's own margin is taken as sent
        assert page.evaluate("() => window.el.layout.margin.l") == 90
        assert not errors, errors


def test_a_heatmap_sent_as_rows_of_binary_buffers_is_drawn_with_its_values_and_gaps(browser_available):  # noqa: F811
    """The kernel sends a 2-D z as rows of binary buffers (``_rows_as_buffers`` in _base.py: a gap as NaN); the
    figure module gives plotly.js one typed array per row, and the heatmap plotly.js computes holds those values,
    with the NaN as a gap (as None in JSON was)."""
    state = {"_widget_data": [{"type": "heatmap", "z": [[0, 1, 2], [3, 4, 5]]}], "_widget_layout": {"width": 400},
             "_config": {}}
    with _drawn_with_real_plotly(state) as (page, errors):
        page.wait_for_function("() => window.el.calcdata")
        page.evaluate("""() => {
          const row = (values) => ({buffer: new DataView(new Float64Array(values).buffer), dtype: "float64",
                                    shape: [values.length]});
          send("_py2js_update", {style_data: {z: [[row([9, NaN, 7]), row([6, 5, 4])]]}, layout_data: {},
                                 style_traces: [0], source_view_id: null});
        }""")
        page.wait_for_function("() => window.el.calcdata[0][0].z[0][0] === 9")
        z = page.evaluate("() => window.el.calcdata[0][0].z.map(r => Array.from(r, v => (v === undefined ||"
                          " Number.isNaN(v)) ? null : v))")
        assert z == [[9, None, 7], [6, 5, 4]]
        assert page.evaluate("() => window.el.data[0].z[1].constructor.name") == "Float64Array"
        assert not errors, errors


def test_an_update_that_replaces_annotations_and_shapes_draws_each_once_and_shows_the_new_ones(browser_available):  # noqa: F811
    """The kernel sends a figure's annotations and shapes as whole lists. plotly.js draws such a list at once inside
    its relayout and then again in the full redraw a new ``y`` makes (its relayout tests flags that no longer
    exist). The figure module puts the lists in place for that one redraw (``once`` in figure.js): each annotation
    and shape is drawn by that redraw alone, and the figure shows the new ones (with plotly.js's own path the
    annotations are drawn once more than a redraw draws them, and the first assertion on counts fails). A list
    removed (``None``) disappears; an update without new data still draws its new annotations. (Shapes are
    redrawn in place, not inserted: their list and paths are checked.)"""
    state = {
        "_widget_data": [{"type": "scatter", "x": [0, 1, 2], "y": [1, 2, 3]}],
        "_widget_layout": {"width": 500, "annotations": [{"text": "old", "x": 1, "y": 2, "showarrow": False}],
                           "shapes": [{"type": "line", "x0": 0, "x1": 0, "y0": 0, "y1": 1, "yref": "paper"}]},
        "_config": {},
    }
    with _drawn_with_real_plotly(state) as (page, errors):
        # Every annotation plotly.js inserts from here on is counted (each drawing inserts each one anew).
        page.evaluate("""() => { window.added = {annotation: 0};
          new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes) {
            if (n.nodeType !== 1) continue;
            if (n.matches('g.annotation')) window.added.annotation += 1;
          } }).observe(window.el, {childList: true, subtree: true}); }""")

        def move(style, layout, done):
            page.evaluate("() => { window.added = {annotation: 0}; }")
            page.evaluate("([style, layout]) => send('_py2js_update', {style_data: style, layout_data: layout,"
                          " style_traces: [0], source_view_id: null})", [style, layout])
            page.wait_for_function(done)
            page.wait_for_timeout(300)
            texts = page.evaluate("() => [...window.el.querySelectorAll('g.annotation text')].map(t => t.textContent)")
            shapes = page.evaluate("() => window.el.querySelectorAll('.shapelayer path').length")
            return page.evaluate("() => window.added"), texts, shapes

        two = [{"text": f"ε = {k}", "x": k / 3, "y": 0.5, "xref": "paper", "yref": "paper", "showarrow": False}
               for k in (1, 2)]
        line = [{"type": "line", "x0": 2, "x1": 2, "y0": 0, "y1": 1, "yref": "paper"}]
        added, texts, shapes = move({"y": [[3, 2, 1]]}, {"annotations": two, "shapes": line},
                                    "() => window.el.data[0].y[0] === 3")
        assert sorted(texts) == ["ε = 1", "ε = 2"] and shapes == 1
        assert page.evaluate("() => window.el.layout.shapes[0].x0") == 2
        # The same figure redrawn for new data alone: the annotations as often as the redraw itself draws them
        # (plotly.js draws them twice in a redraw: once to measure them for the axes' ranges, then in place).
        redraw, texts, _ = move({"y": [[4, 2, 1]]}, {}, "() => window.el.data[0].y[0] === 4")
        assert sorted(texts) == ["ε = 1", "ε = 2"]
        assert added["annotation"] == redraw["annotation"] > 0  # plotly.js's own path: one drawing (2) more
        added, texts, shapes = move({"y": [[5, 5, 5]]}, {"annotations": None},
                                    "() => window.el.data[0].y[0] === 5")
        assert texts == [] and shapes == 1 and added["annotation"] == 0
        added, texts, shapes = move({}, {"annotations": [{"text": "new", "x": 0.5, "y": 0.5, "xref": "paper",
                                                          "yref": "paper", "showarrow": False}]},
                                    "() => window.el.querySelectorAll('g.annotation').length === 1")
        assert texts == ["new"] and added["annotation"] == redraw["annotation"] // 2  # one annotation, as a redraw
        assert not errors, errors


# Two figures, as anywidget loads them: the module evaluated once per figure (each from its own URL).
_TWO_FIGURES = """async (source) => {
  window.frame = 0;
  const tick = () => { window.frame += 1; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  window.sendTo = [];
  window.change = (y) => ({style_data: {y: [[y]]}, layout_data: {}, style_traces: [0], source_view_id: null});
  for (let k = 0; k < 2; k++) {
    const url = URL.createObjectURL(new Blob([source], {type: "text/javascript"}));
    const widget = (await import(url)).default();
    const state = {_widget_data: [{type: "scatter", y: [k], name: "f" + k}], _widget_layout: {}, _config: {}};
    const handlers = {};
    const model = {get: (key) => state[key], set() {}, save_changes() {},
                   on(ev, cb) { (handlers[ev] ??= []).push(cb); }};
    window.sendTo.push((key, v) => {
      for (const w of [v, null]) { state[key] = w; (handlers["change:" + key] || []).forEach((cb) => cb()); }
    });
    widget.initialize({model});
    const el = document.createElement("div"); el.style.width = "500px"; el.id = "f" + k;
    document.body.appendChild(el);
    await widget.render({model, el});
  }
}"""

# plotly.js stand-in that notes, for each update, the figure, the animation frame it ran in, and its arguments.
_FRAME_PLOTLY = """
window.calls = [];
window.Plotly = {
  newPlot(gd) { gd.on = () => {}; return Promise.resolve(gd); },
  update(gd, s) { window.calls.push([gd.id, window.frame, structuredClone(s.y)]); return Promise.resolve(gd); },
  purge() {},
};
"""


@contextlib.contextmanager
def _two_figures_drawn(plotly_source: str):
    """A page in which the figure module has drawn two figures (``f0`` and ``f1``, ``sendTo[k]`` sends figure k a
    change, ``change(y)`` makes one) with ``plotly_source`` as plotly.js; yields the page and its errors."""
    with _page_with_plotly(body=plotly_source) as (page, errors):
        page.evaluate(_TWO_FIGURES, _FIGURE_MODULE.replace("__URL__", json.dumps(BUNDLE)))
        yield page, errors


def test_each_drawing_is_painted_before_the_next_one_starts(browser_available):  # noqa: F811
    """Changes for several figures (or several partial results) that arrive together were drawn back to back and
    painted only after the last: the learner saw nothing until all were drawn. The figure module draws one, lets the
    page paint it, then draws the next, page-wide across figures (each its own module instance) and in arrival
    order. Fails with the drawings all in one frame."""
    with _two_figures_drawn(_FRAME_PLOTLY) as (page, errors):
        page.evaluate("""() => {  // all in one task, as WebSocket messages queued behind a long task arrive
          sendTo[0]("_py2js_update", change(1));
          sendTo[1]("_py2js_update", change(2));
          sendTo[0]("_py2js_update", change(3));
        }""")
        calls = _calls(page, 3)
        assert [(c[0], c[2]) for c in calls] == [("f0", [[1]]), ("f1", [[2]]), ("f0", [[3]])]  # arrival order
        frames = [c[1] for c in calls]
        assert frames[0] < frames[1] < frames[2], calls  # a paint between each two drawings
        assert not errors, errors


def test_a_drawing_that_never_finishes_holds_the_other_figures_back_for_a_bounded_time(browser_available):  # noqa: F811
    """The page-wide order must not let one stuck figure (a plotly.js call whose promise never settles) freeze every
    other figure of the lesson: after PACE_LIMIT_MS the next figure's drawing goes ahead. Fails with a chain that
    waits for each drawing to finish."""

    stuck = _FRAME_PLOTLY.replace(
        "update(gd, s) {",
        "update(gd, s) { if (gd.id === 'f0') { window.calls.push([gd.id, window.frame, null]);"
        " return new Promise(() => {}); }")
    with _two_figures_drawn(stuck) as (page, _errors):
        page.evaluate("""() => {
          window.t0 = performance.now();
          sendTo[0]("_py2js_update", change(1));
          sendTo[1]("_py2js_update", change(2));
          window.calls.push = ((push) => function (c) { c.push(performance.now() - window.t0);
                                                        return push.call(this, c); })(window.calls.push);
        }""")
        calls = _calls(page, 2)
        assert [c[0] for c in calls] == ["f0", "f1"] and calls[1][2] == [[2]]
        assert calls[1][3] >= 1900, calls  # held back ~2 s by the stuck drawing, then drawn
