"""Where a slider move's time goes in the browser, stage by stage (issue 14): ``python benchmarks/anatomy.py``.

Starts ``python -m dpviz.app`` on a loopback port, waits until every lesson's kernel is pre-heated, opens each lesson
in headless Chromium (Debian's ``/usr/bin/chromium``) and moves each panel's first control exactly as the browser
test does (``tests/browser/test_browser.py``: two ArrowRight presses, the figure change noted in the animation frame in
which a figure's data changed). For the first figure change of each move it splits the time from the first key
press, on one clock (the page's, and the kernel's message dates, which the same machine stamps):

- ``to kernel``: key press → the kernel's ``busy`` for the update that drew (the slider's JavaScript, ipywidgets
  sending the value, the server, the kernel picking the message up; for a slow panel after two presses, usually the
  second press's update: the first one's run is cancelled),
- ``kernel``: that ``busy`` → the figure's ``_py2js_update`` message made (numerics, figure building, sync),
- ``to server``: made → received by the server (the kernel's IOPub thread, which needs the GIL, and ZeroMQ; the
  server's clock is ``benchmarks/classroom/server_clock.py``, "-" where the server runs without it),
- ``to page``: received by the server (made, without its clock) → received by the page (tornado's WebSocket
  write, the browser's network stack, the page's main thread),
- ``queued``: received → ``Plotly.update`` called (widget model, the figure module's queue and pacing),
- ``plotly.js``: the ``Plotly.update`` call itself (synchronous: replot, text measurement, automargin),
- ``to frame``: its end → the animation frame in which the test saw the change.

Prints one row per move and p50 / p95 per stage. A measuring tool, never a test: the times depend on the machine
(`make bench` has the kernel's stages, ``benchmarks/redraw.py`` plotly.js alone on a blank page).
Usage: ``python benchmarks/anatomy.py [--lessons 07,13] [--panel NAME] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout: benchmarks run as modules from there
# the browser test's instrument: one home for how a move is made and timed (and the tests' shared helpers)
sys.path[:0] = [str(ROOT / "tests" / "browser"), str(ROOT / "tests")]

import test_browser as B  # noqa: E402
from _server import free_port  # noqa: E402

from benchmarks.classroom import server_clock  # noqa: E402

STAGES = ("to kernel", "kernel", "to server", "to page", "queued", "plotly.js", "to frame")

#: In the page, from its first script on: every kernel message's id, type, comm state keys and kernel date with the
#: time it was received; every Plotly.update call's start and end.
RECORDER = """(() => {
  window._anatomy = {messages: [], updates: []};
  const Socket = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Socket(...args);
    ws.addEventListener('message', (e) => {
      const t = performance.now();
      const text = typeof e.data === 'string' ? e.data : new TextDecoder('latin1').decode(e.data);
      const kind = (text.match(/"msg_type":\\s*"(\\w+)"/) || [])[1] || '';
      const state = kind === 'status' ? (text.match(/"execution_state":\\s*"(\\w+)"/) || [])[1] || ''
        : kind === 'comm_msg' ? (text.match(/"state":\\s*\\{"(\\w+)"/) || [])[1] || '' : '';
      const date = (text.match(/"date":\\s*"([^"]+)"/) || [])[1] || null;  // the header's: the first part
      window._anatomy.messages.push({t, kind, state, date});
    });
    return ws;
  };
  window.WebSocket.prototype = Socket.prototype;
  Object.assign(window.WebSocket, Socket);
  const hook = () => {
    const P = window.Plotly;
    if (!P) { setTimeout(hook, 20); return; }
    if (P._anatomy) return;
    P._anatomy = true;
    const update = P.update;
    P.update = function (...args) {
      const start = performance.now();
      const out = update.apply(this, args);
      window._anatomy.updates.push({start, end: performance.now()});
      return out;
    };
  };
  hook();
})();"""


def _kernel_ms(date: str, time_origin_ms: float) -> float:
    """A kernel header date (ISO 8601, microseconds, UTC) on the page's clock (ms since its time origin)."""
    return datetime.fromisoformat(date.replace("Z", "+00:00")).timestamp() * 1000 - time_origin_ms


def stages(key: float, seen: float, messages: list[dict], updates: list[dict], time_origin_ms: float,
           server: dict[str, float] | None = None) -> dict | None:
    """The stages of the first figure change after ``key`` (page clock, ms), or None if it cannot be split (no figure
    message or no ``Plotly.update`` before ``seen``). ``server``: the server's arrival time of each kernel message
    (ms since the epoch, by header date; :func:`server_clock.arrivals`); without the figure message's, ``to server``
    is None and ``to page`` runs from the message made."""
    after = [m for m in messages if m["t"] >= key and m["date"]]
    figure = next((m for m in after if m["state"] == "_py2js_update"), None)
    if figure is None:
        return None
    made = _kernel_ms(figure["date"], time_origin_ms)
    busy = [m for m in after if m["state"] == "busy" and _kernel_ms(m["date"], time_origin_ms) <= made]
    update = next((u for u in updates if u["start"] >= figure["t"] and u["end"] <= seen + 1), None)
    if not busy or update is None:
        return None
    started = _kernel_ms(busy[-1]["date"], time_origin_ms)
    relayed = (server or {}).get(figure["date"])
    relayed = None if relayed is None else relayed - time_origin_ms
    return {"to kernel": started - key, "kernel": made - started,
            "to server": None if relayed is None else relayed - made,
            "to page": figure["t"] - (made if relayed is None else relayed),
            "queued": update["start"] - figure["t"], "plotly.js": update["end"] - update["start"],
            "to frame": seen - update["end"], "total": seen - key}


def _serve(port: int, log: Path, clock: Path) -> subprocess.Popen:
    """``python -m dpviz.app`` on ``port`` with the server's clock in ``clock`` (:mod:`server_clock`), once every
    lesson's kernel is pre-heated."""
    proc = subprocess.Popen([sys.executable, "-m", "benchmarks.classroom.server_clock", str(clock), f"--port={port}",
                             "--Voila.ip=127.0.0.1", "--no-browser"], cwd=ROOT, stdout=open(log, "w"),
                            stderr=subprocess.STDOUT)
    deadline = time.time() + 420
    while time.time() < deadline and proc.poll() is None:
        if B._status(f"http://127.0.0.1:{port}").get("ready"):
            return proc
        time.sleep(0.5)
    proc.terminate()
    raise SystemExit(f"the server did not pre-heat its kernels within 420 s; see {log}")


def measure(url: str, browser, lesson: str, panel: str | None,
            clock: Path | None = None) -> list[tuple[str, dict | None]]:
    """Open ``lesson`` (a notebook file name), move each panel's first control (or only ``panel``'s); ``clock``: the
    server's clock file (:mod:`server_clock`), if it has one."""
    context, page = B._new_page(browser, viewport={"width": 1280, "height": 1000})
    try:
        page.add_init_script(RECORDER)
        page.goto(f"{url}/voila/render/{lesson}")
        B._wait_for_first_figure(page, lesson)
        n = B._wait_for_every_panels_figures(page)
        page.wait_for_timeout(1500)
        origin = page.evaluate("() => performance.timeOrigin")
        rows = []
        for i in range(n):
            classes = (page.locator(".dpviz-panel").nth(i).get_attribute("class") or "").split()
            name = B._panel_name(classes) or f"panel {i}"
            if panel and name != panel:
                continue
            page.evaluate("() => { window._anatomy.messages = []; window._anatomy.updates = []; }")
            times: list = []
            if B._move_first_control_and_wait(page, i, times) != "slider" or not times:
                rows.append((name, None))  # moved through a drop-down, or no change: not a slider move
                continue
            key, seen = page.evaluate("() => [window._dpvizKey, window._dpvizSeen]")
            page.wait_for_timeout(300)
            data = page.evaluate("() => window._anatomy")
            server = server_clock.arrivals(str(clock)) if clock is not None else None
            rows.append((name, stages(key, seen, data["messages"], data["updates"], origin, server)))
        return rows
    finally:
        context.close()


def _cell(value: float | None) -> str:
    return f"{'-':>9}" if value is None else f"{value:9.0f}"


def _percentile(values: list[float], q: float) -> float | None:
    """The nearest-rank ``q``-th percentile of ``values`` (one of them), None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lessons", default="", help="comma-separated lesson numbers (default: every lesson)")
    p.add_argument("--panel", default=None, help="only this panel class, e.g. HeterogeneityPanel")
    p.add_argument("--repeat", type=int, default=1, help="open each lesson this many times (default 1)")
    args = p.parse_args(argv)
    reason = B._unavailable_reason()
    if reason:
        raise SystemExit(reason)
    wanted = {x.strip().zfill(2) for x in args.lessons.split(",") if x.strip()}
    lessons = [ln.filename for ln in B.lessons() if not wanted or ln.filename[:2] in wanted]
    port = free_port()
    clock = Path(tempfile.gettempdir()) / f"dpviz-anatomy-{port}.clock"
    server = _serve(port, Path(tempfile.gettempdir()) / f"dpviz-anatomy-{port}.log", clock)
    from playwright.sync_api import sync_playwright

    results: list[tuple[str, str, dict]] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=B.CHROMIUM, headless=True, args=B.CHROMIUM_ARGS)
            print(f"{'lesson':6} {'panel':34} " + " ".join(f"{s:>9}" for s in (*STAGES, "total")) + "  (ms)")
            for _ in range(args.repeat):
                for lesson in lessons:
                    for name, row in measure(f"http://127.0.0.1:{port}", browser, lesson, args.panel, clock):
                        if row is None:
                            print(f"{lesson[:2]:6} {name:34} (not split: no slider, or no figure message)")
                            continue
                        results.append((lesson, name, row))
                        print(f"{lesson[:2]:6} {name:34} " + " ".join(_cell(row[s]) for s in (*STAGES, "total")),
                              flush=True)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
        clock.unlink(missing_ok=True)
    if results:
        print(f"\n{len(results)} moves      " + " ".join(f"{s:>9}" for s in (*STAGES, "total")))
        for q in (50, 95):
            print(f"p{q:<17}" + " ".join(_cell(_percentile([r[s] for _, _, r in results if r[s] is not None], q))
                                        for s in (*STAGES, "total")))
        print("(p95 per stage, not a split of the total's p95; 'to kernel' includes the first press's cancelled run"
              " on slow panels)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
