"""What the browser draws is what the kernel computed, also on a loaded machine (issue 12, finding 3).

A figure can hold the right data and still be drawn wrong: lesson 14's "Why √m" histogram was drawn as sideways
bars against index 0–49 and its curves without x whenever a figure update reached the page before plotly.js
(plotly's figure model wrote the update's "_undefined_" markers into its copy of the figure). Timing faults like
that only show on a busy machine, so this test loads it on purpose: two CPU burners run throughout and plotly.js
is held back 3 s. For every panel of every lesson, each rendered figure is compared with the figure the same panel
computes in this process at its default settings: trace types, which of x/y/z each trace has and their lengths,
bar orientation, and every axis type and range the figure sets explicitly. After the first slider of each panel
has moved, no trace may have lost x/y/z and no axis its type.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time

import pytest
from _server import start_app
from test_browser import CHROMIUM, CHROMIUM_ARGS, browser_available  # noqa: F401 (a fixture: skip, or fail in CI)

from dpviz.lessons import lessons
from dpviz.panels.panel import Panel

pytestmark = pytest.mark.browser

BUNDLE_DELAY = 3.0

_RENDERED = """() => Array.from(document.querySelectorAll('.dpviz-panel')).map(panel =>
  Array.from(panel.querySelectorAll('.js-plotly-plot')).map(gd => {
    const len = (a) => (a === undefined || a === null) ? null : a.length;
    const full = gd._fullData || [];
    const axes = {};
    Object.keys(gd._fullLayout || {}).filter(k => /^[xy]axis\\d*$/.test(k)).forEach(k => {
      const ax = gd._fullLayout[k];
      axes[k] = {type: ax.type, range: (ax.range || []).map(Number)};
    });
    return {
      traces: (gd.data || []).map((t, i) => ({type: t.type || 'scatter', x: len(t.x), y: len(t.y), z: len(t.z),
                                              orientation: full[i] ? (full[i].orientation || null) : null})),
      axes,
    };
  }))"""


def _length(values):
    return None if values is None else len(values)


def _expected_figure(fig) -> dict:
    traces = []
    for t in fig.data:
        x = _length(getattr(t, "x", None))
        y = _length(getattr(t, "y", None))
        z = _length(getattr(t, "z", None))
        orientation = None
        if t.type in ("bar", "histogram", "box", "violin") and (x or y):  # plotly leaves an empty trace unoriented
            orientation = getattr(t, "orientation", None) or ("h" if x is not None and y is None else "v")
        traces.append(dict(type=t.type, x=x, y=y, z=z, orientation=orientation))
    layout = fig.layout.to_plotly_json()
    axes = {k: dict(type=v.get("type"), range=v.get("range")) for k, v in layout.items()
            if (k.startswith("xaxis") or k.startswith("yaxis")) and isinstance(v, dict)}
    return dict(traces=traces, axes=axes)


def _lesson_panels(path) -> list[Panel]:
    """The lesson's panels in page order, built by running its code cells here (as the kernel does)."""
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    namespace: dict = {}
    panels = []
    for cell in cells:
        source = "".join(cell["source"])
        try:
            code = compile(source, str(path), "eval")
        except SyntaxError:
            exec(compile(source, str(path), "exec"), namespace)
            continue
        value = eval(code, namespace)
        if isinstance(value, Panel):
            panels.append(value.refresh())  # the kernel renders a panel when the cell displays it
    return panels


class _NoFigures:
    """Stands in for a panel whose figures are not compared (see the after-move comparison)."""

    figures: list = []


def _compare(name: str, rendered: list, panels: list[Panel], *, at_defaults: bool) -> list[str]:
    problems = []
    if len(rendered) != len(panels):
        return [f"{name}: {len(rendered)} panels on the page, {len(panels)} in the lesson"]
    for i, (figs, panel) in enumerate(zip(rendered, panels)):
        where = f"{name} panel {i} ({type(panel).__name__})"
        if len(figs) != len(panel.figures):
            problems.append(f"{where}: {len(figs)} figures drawn, {len(panel.figures)} computed")
            continue
        for j, (got, fig) in enumerate(zip(figs, panel.figures)):
            want = _expected_figure(fig)
            if len(got["traces"]) != len(want["traces"]) and at_defaults:
                problems.append(f"{where} fig {j}: {len(got['traces'])} traces drawn, {len(want['traces'])} computed")
                continue
            for k, (g, w) in enumerate(zip(got["traces"], want["traces"])):
                if g["type"] != w["type"]:
                    problems.append(f"{where} fig {j} trace {k}: drawn as {g['type']}, computed {w['type']}")
                for key in ("x", "y", "z"):
                    if (g[key] is None) != (w[key] is None):
                        problems.append(f"{where} fig {j} trace {k}: {key} {'missing' if g[key] is None else 'extra'}"
                                        f" in the drawing")
                    elif at_defaults and g[key] != w[key]:
                        problems.append(f"{where} fig {j} trace {k}: {g[key]} {key} values drawn, {w[key]} computed")
                if w["orientation"] is not None and g["orientation"] != w["orientation"]:
                    problems.append(f"{where} fig {j} trace {k}: bars drawn orientation {g['orientation']!r}, "
                                    f"computed {w['orientation']!r}")
            for axis, spec in want["axes"].items():
                drawn = got["axes"].get(axis)
                if drawn is None:
                    problems.append(f"{where} fig {j}: {axis} not drawn")
                    continue
                if spec["type"] and drawn["type"] != spec["type"]:
                    problems.append(f"{where} fig {j}: {axis} drawn {drawn['type']}, computed {spec['type']}")
                rng = spec["range"]
                if at_defaults and rng and all(isinstance(v, (int, float)) for v in rng):
                    if not all(math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9) for a, b in zip(drawn["range"], rng)):
                        problems.append(f"{where} fig {j}: {axis} range drawn {drawn['range']}, computed {list(rng)}")
    return problems


@pytest.fixture(scope="module")
def loaded_app(browser_available, tmp_path_factory):  # noqa: F811 (pytest fixture imported from test_browser)
    """The app, with two CPU burners running for as long as the tests do (bounded: they end with the module)."""
    burners = [subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 1800\n"
                                 "while time.time() < end: pass"]) for _ in range(2)]
    app = start_app(tmp_path_factory.mktemp("rendering"), "--no-browser")
    try:
        yield app
    finally:
        app.stop()
        for b in burners:
            b.kill()
            b.wait(timeout=10)


@pytest.fixture(scope="module")
def browser(browser_available):  # noqa: F811 (pytest fixture imported from test_browser)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.mark.parametrize("lesson", lessons(), ids=lambda lesson: lesson.filename)
def test_every_figure_is_drawn_as_computed_on_a_busy_machine(loaded_app, browser, lesson, monkeypatch):
    from test_browser import _move_first_control_and_wait

    monkeypatch.delenv("DPVIZ_PLOTLY_BUNDLE_URL", raising=False)
    panels = _lesson_panels(lesson.path)
    assert panels, f"{lesson.filename}: no panels"

    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(240_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def slow_bundle(route):
        time.sleep(BUNDLE_DELAY)
        route.continue_()

    page.route("**/dpviz-static/plotly-cartesian.min.js", slow_bundle)
    try:
        page.goto(f"{loaded_app.url}/voila/render/{lesson.filename}")
        n_figures = sum(len(p.figures) for p in panels)
        page.wait_for_function(
            f"() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= {n_figures}"
            " && Array.from(document.querySelectorAll('.js-plotly-plot')).every(gd => gd._fullData)")
        page.wait_for_timeout(1500)  # let late updates land: they are what went wrong
        problems = _compare(lesson.filename, page.evaluate(_RENDERED), panels, at_defaults=True)
        assert not problems, "\n".join(problems)
        moved = []
        for i in range(len(panels)):
            moved.append(_move_first_control_and_wait(page, i))
            assert moved[-1], f"{lesson.filename}: panel {i} did not follow its first control"
        page.wait_for_timeout(1000)
        # A panel moved through a drop-down (its defaults hide its sliders) may legitimately draw other trace types
        # (e.g. bars of exact answers become a noisy density): only slider moves keep the figure's structure.
        rendered = [figs if how == "slider" else [] for figs, how in zip(page.evaluate(_RENDERED), moved)]
        kept = [p if how == "slider" else _NoFigures() for p, how in zip(panels, moved)]
        problems = _compare(lesson.filename, rendered, kept, at_defaults=False)
        assert not problems, "after moving sliders:\n" + "\n".join(problems)
        assert not errors, f"{lesson.filename}: uncaught errors in the page: {errors}"
    finally:
        context.close()
