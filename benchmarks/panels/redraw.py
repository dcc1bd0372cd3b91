"""The browser's share of a slider move: plotly.js redrawing each panel's figures, replayed in headless Chromium.

``make bench`` times what the kernel does for an update; this times what the page then does with it. For each
panel, :func:`capture` records its figures at their defaults and the messages a sweep of its controls sends them
(the same ``Panel.bench_values()`` sweep as the kernel table, at most ``max_moves`` moves), exactly as the figure
widget receives them: a ``Plotly.update`` of the changed keys (applied as dpviz's figure module applies it, margins
kept steady), or, when the traces themselves change, the whole new figure. :func:`replay` draws each figure with
plotly's own bundle (the one the lessons load) in a page of its own, then applies the recorded updates in order,
timing each until plotly.js has finished and the next frame is drawn. Not timed: the WebSocket, the widget model
and the rest of a lesson's page (style and layout of a long page add ~10–30 ms per update; the browser test
measures the whole path).

Usage: ``python benchmarks/redraw.py [--only SUBSTRING]``; ``benchmarks/run.py`` prints its table.
"""

from __future__ import annotations

import argparse
import base64
import math
import statistics
from pathlib import Path

import numpy as np

from benchmarks.classroom.loadtest import CHROMIUM, browser_unavailable  # the load test's browser: same check

#: A lesson's figure width on a laptop screen (px).
WIDTH = 900
_UNDEFINED = "__dpviz_undefined__"  # plotly's "leave this trace as it is" in a restyle list



def import_panels() -> list[str]:
    """Import every dpviz.panels submodule so its panels register; report (not hide) modules that fail."""
    import importlib
    import pkgutil

    import dpviz.panels as pkg

    problems = []
    for m in pkgutil.iter_modules(pkg.__path__):
        if m.name.startswith("_"):
            continue
        try:
            importlib.import_module(f"dpviz.panels.{m.name}")
        except Exception as exc:  # report and go on: one broken module must not hide the others' numbers
            problems.append(f"dpviz.panels.{m.name}: {type(exc).__name__}: {exc}")
    return problems


def _plain(o):
    """``o`` as JSON: numpy arrays (also plotly's base64 form of one) as lists (NaN as null, a gap, as plotly.js
    reads it), plotly's Undefined marked."""
    from plotly.basedatatypes import Undefined

    if o is Undefined:
        return _UNDEFINED
    if isinstance(o, dict) and "bdata" in o and "dtype" in o:  # plotly's base64 form of a numpy array
        array = np.frombuffer(base64.b64decode(o["bdata"]), dtype=o["dtype"])
        if "shape" in o:
            array = array.reshape([int(n) for n in str(o["shape"]).split(",")])
        return _plain(array)
    if isinstance(o, dict):
        return {str(k): _plain(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_plain(v) for v in o]
    if isinstance(o, np.ndarray):
        return _plain(o.tolist())
    if isinstance(o, (np.floating, float)):
        return None if not math.isfinite(float(o)) else float(o)
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.bool_):
        return bool(o)
    return o


def _figure_json(fig) -> dict:
    return _plain(fig.to_plotly_json())


def capture(cls, max_moves: int = 10) -> dict:
    """A panel's figures at its defaults (``figures``), what ``max_moves`` control changes send them, in order
    (``moves``), and the figures after the last change (``final``)."""
    panel = cls().refresh()
    panel.background = False  # every update complete before the next (as make bench sweeps)
    record = {"panel": cls.__name__, "figures": [_figure_json(f) for f in panel.figures], "moves": []}
    current: list = []
    replaced: set[int] = set()
    for k, fig in enumerate(panel.figures):
        fig.observe(lambda ch, k=k: ch["new"] and current.append(
            [k, "update", [_plain(ch["new"].get("style_data") or {}), _plain(ch["new"].get("layout_data") or {}),
                           ch["new"].get("style_traces")]]), names="_py2js_update")
        fig.observe(lambda ch, k=k: ch["new"] and replaced.add(k),
                    names=["_py2js_addTraces", "_py2js_deleteTraces", "_py2js_relayout", "_py2js_restyle"])
    moves = ((panel.controls[name], value) for name, values in panel.bench_values().items() for value in values)
    for control, value in moves:
        if len(record["moves"]) >= max_moves:
            break
        if value == control.value:
            continue
        current.clear()
        replaced.clear()
        control.value = value
        # A figure whose traces were replaced is sent whole (Plotly.react); the others as recorded.
        move = [m for m in current if m[0] not in replaced]
        move += [[k, "react", _figure_json(panel.figures[k])] for k in sorted(replaced)]
        if move:
            record["moves"].append(move)
    record["final"] = [_figure_json(f) for f in panel.figures]  # what the last move shows (tests compare)
    return record


_REPLAY = """async ([records, width, passes]) => {
  const U = '__dpviz_undefined__';
  const restyle = (o) => { const r = {}; for (const k in o) { const v = o[k];
    r[k] = Array.isArray(v) ? v.map(x => x === U ? undefined : x) : v; } return r; };
  const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const out = [];
  for (const rec of records) {
    const times = [], errors = [], twice = [];
    let divs = [];
    for (let pass = 0; pass < passes; pass++) {
      divs.forEach(d => { Plotly.purge(d); d.remove(); });
      divs = [];
      for (const f of rec.figures) {
        const d = document.createElement('div'); d.style.width = width + 'px'; document.body.appendChild(d);
        await Plotly.newPlot(d, JSON.parse(JSON.stringify(f.data)), JSON.parse(JSON.stringify(f.layout)),
                             {responsive: true});
        d.on('plotly_beforeplot', () => { d.drawings += 1; });  // each whole drawing (_doPlot), nested ones too
        divs.push(d);
      }
      await frame();
      for (const move of rec.moves) {
        divs.forEach(d => { d.drawings = 0; });
        const t0 = performance.now();
        for (const [k, kind, payload] of move) {
          try {
            // as dpviz's figure module applies an update (its steady margins)
            if (kind === 'update') await Plotly.update(divs[k], restyle(payload[0]),
                                                       window.dpvizLayoutEdit(divs[k], payload[0], payload[1]),
                                                       payload[2]);
            else await Plotly.react(divs[k], JSON.parse(JSON.stringify(payload.data)),
                                    JSON.parse(JSON.stringify(payload.layout)));
          } catch (e) { errors.push(String(e && e.message || e)); }
        }
        await frame();
        times.push(performance.now() - t0);
        twice.push(divs.some(d => d.drawings > 1));  // plotly.js drew a figure twice (e.g. automargin's redraw)
      }
    }
    const drawn = divs.map(d => d.data.map(t => ({x: t.x === undefined ? null : Array.from(t.x),
                                                   y: t.y === undefined ? null : Array.from(t.y)})));
    divs.forEach(d => { Plotly.purge(d); d.remove(); });
    out.push({panel: rec.panel, times, errors, drawn, twice});
  }
  return out;
}"""


def bundle_path() -> Path:
    """plotly.js as the lessons load it under dpviz.app (its cartesian bundle, shipped in dpviz/server/static)."""
    from dpviz.serve.app import PLOTLY_BUNDLE, STATIC

    return STATIC / PLOTLY_BUNDLE


def _figure_module_rules() -> str:
    """dpviz's figure module (``dpviz/panels/figure.js``) as a page module that hands its update rules to the replay
    (``window.dpvizLayoutEdit``); the plotly.js it would import is already in the page."""
    from dpviz.panels.figure import _FIGURE_MODULE

    return _FIGURE_MODULE.replace("__URL__", '"data:text/javascript,"') + "\nwindow.dpvizLayoutEdit = layoutEdit;\n"


def replay(records: list[dict], passes: int = 2, width: int = WIDTH) -> list[dict]:
    """Draw and update each record's figures in headless Chromium; per panel, the ms of each update (all passes),
    the errors plotly.js raised, and the x/y each figure holds at the end."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            page = browser.new_page(viewport={"width": width + 380, "height": 900})
            page.set_default_timeout(600_000)
            page.set_content("<html><body style='margin:0'></body></html>")
            page.add_script_tag(path=str(bundle_path()))
            page.add_script_tag(content=_figure_module_rules(), type="module")
            page.wait_for_function("() => window.dpvizLayoutEdit")
            return page.evaluate(_REPLAY, [records, width, passes])
        finally:
            browser.close()


def redraw_table(classes: list[type], max_moves: int = 10) -> list[str]:
    """Lines of the table ``make bench`` prints: p50 / p95 / max ms of each panel's redraws."""
    problem = browser_unavailable()
    if problem:
        return [f"  (browser redraw not measured: {problem})"]
    records = [capture(cls, max_moves) for cls in classes]
    lines = [f"{'panel':44s} {'n':>4s} {'first ms':>9s} {'p50 ms':>8s} {'p95 ms':>8s} {'max ms':>8s} {'2x':>4s}"]
    lines.append("-" * len(lines[0]))
    firsts, every, twice = [], [], 0
    for record, row in zip(records, replay(records, passes=2)):
        # The first pass warms plotly.js up (its code, and this figure's text measurements); the table's p50/p95
        # are the second pass, a learner dragging a slider. "first": the first update after the figure was
        # drawn, on the first pass (a learner's first move after the page loaded).
        n = len(record["moves"])
        if not n:
            continue
        t = sorted(row["times"][n:])
        doubled = sum(row["twice"][n:])
        firsts.append(row["times"][0])
        every += t
        twice += doubled
        lines.append(f"{row['panel']:44s} {len(t):4d} {row['times'][0]:9.1f} {statistics.median(t):8.1f} "
                     f"{_p95(t):8.1f} {t[-1]:8.1f} {doubled:4d}")
        for error in sorted(set(row["errors"])):
            lines.append(f"    ! plotly.js refused an update: {error}")
    if every:
        every.sort()
        lines.append(f"{'every panel':44s} {len(every):4d} {statistics.median(firsts):9.1f} "
                     f"{statistics.median(every):8.1f} {_p95(every):8.1f} {every[-1]:8.1f} {twice:4d}")
        lines.append("  first: a figure's first update after it was drawn (median over panels in the last row); "
                     "p50/p95/max: the updates of a second sweep; 2x: its moves in which plotly.js drew a figure "
                     "twice (automargin refitting the margins to new tick labels: only when they outgrow the "
                     "margins drawn, see steady in dpviz/panels/figure.js).")
    return lines


def _p95(sorted_values: list[float]) -> float:
    return sorted_values[int(round(0.95 * (len(sorted_values) - 1)))]


def main(argv=None) -> int:

    from dpviz.panels.panel import PANEL_REGISTRY

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="only panels whose name contains this")
    ap.add_argument("--moves", type=int, default=10, help="control changes replayed per panel")
    args = ap.parse_args(argv)
    import_panels()
    classes = [cls for name, cls in sorted(PANEL_REGISTRY.items(), key=lambda kv: (kv[1].__module__, kv[0]))
               if cls.__module__.startswith("dpviz.panels.") and (not args.only or args.only in name)]
    print("\n".join(redraw_table(classes, args.moves)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
