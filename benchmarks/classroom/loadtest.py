"""``make loadtest``: a class of students opening a lesson together against a local ``dpviz serve``.

The tool starts the app itself on a free loopback port (``--classroom``: ``--class-size=N --lessons=<lesson>``,
and the class waits for the server's ``ready for N students …`` line; without it the app runs as ``make serve``
does and the class waits for its ``ready: one pre-heated kernel per lesson`` line), always with a short
``--shutdown-grace`` so that the kernels of students who left end quickly. Then N students (``--students``,
default 30) arrive within ``--arrival-seconds`` (default 10; arrival times drawn uniformly with ``--seed``), each
opens the lesson (``--lesson``, default 05), moves a slider ``--moves`` times with a think time between moves,
stays until the whole class is done, and leaves. All traffic goes to 127.0.0.1; every wait is bounded by
``--timeout`` (the class) or ``--leave-timeout`` (memory coming back).

**Light clients** (most students) do, over HTTP and the kernel WebSocket, what the page's JavaScript does, so
that the server and the kernel do the same work as for a real browser:

1. ``GET /voila/render/<lesson>`` with a cookie jar of their own (the ``dpviz_client`` owner cookie is set
   here); the kernel id is read from the page (``"kernelId": "…"``);
2. open ``/api/kernels/<id>/channels`` with the ``v1.kernel.websocket.jupyter.org`` subprotocol and the page's
   cookies, ask ``kernel_info``, then, as ipywidgets' manager does, ``comm_open`` the
   ``jupyter.widget.control`` target and send it ``{"method": "request_states"}``: the kernel answers with one
   ``update_states`` message carrying the state of every widget (figures included), then the control comm is
   closed again;
3. find the lesson's panels (``VBox`` models with the ``dpviz-panel`` class), take a panel (student i takes panel
   i mod the number of panels, or ``--panel``) and the first slider in it (``IntSlider``/``FloatSlider``/
   ``FloatLogSlider`` model), and move it: a ``comm_msg`` ``{"method": "update", "state": {"value": v},
   "buffer_paths": []}`` to the slider's comm, one step at a time (in exponent space for log sliders),
   alternating right and left so it stays in range.

What a light client does **not** do: download the page's JavaScript and plotly.js, render, and send plotly's
``_js2py_*`` layout deltas back after drawing (a little kernel work per figure a real browser adds).

Definitions (every time is measured by the student's own clock, from the moment it arrives):

- **page served**: the whole lesson HTML received (light: the GET completed; browser: the main response's body
  finished);
- **first figure**: light: the ``update_states`` answer has arrived and holds at least one plotly figure with
  data: everything a browser needs to draw it, without plotly.js's own download and drawing time; browser: the
  first ``.js-plotly-plot .main-svg`` is in the page (plotly has drawn a figure);
- **slider→figure**: light: from sending the slider's update until the kernel's first ``comm_msg`` that changes
  one of the page's figures (an ``update`` to a figure model carrying a non-empty ``_py2js_*`` or
  ``_widget_data``/``_widget_layout``: what makes plotly.js redraw); ``kernel done`` is until the kernel's
  ``idle`` for that message (every figure and readout of the panel sent). A light move is split in three by the
  kernel's own message dates (the same machine's wall clock): sent → the kernel's ``busy`` for it (the server's
  relay, the kernel waking up), ``busy`` → the figure message made (the kernel's work), made → received (the
  relay back, this process reading it). A step that changes no figure (e.g. a
  log slider of an integer whose rounded value stays the same) is followed by another step in the same direction,
  timed from that step; three steps without a figure change is an error. Browser: from the ``keydown`` of an
  arrow key on the panel's first slider handle until the data of one of the panel's figures (``gd.data``)
  changed, both read in the page (``performance.now()``), polled every animation frame;
- **errors**: any student whose page came without some of the lesson's widget outputs (fewer than the fullest page
  of the class: Voilà gave up waiting for a cell's output), any student who was not served (HTTP status other than 200
  (e.g. "the class is full"), no kernel id, refused WebSocket, socket closed by the server), got no figure, could not
  move a figure, or saw a kernel ``error`` message, a ``Traceback`` on stderr or a panel problem message
  (``dpviz-message``), or an uncaught error in the browser page, or ran out of time;
- **CPU per session**: each student's kernel process, its CPU time (user + system, ``/proc/<pid>/stat``) when last
  seen alive, which includes running the lesson when it was pre-heated; and the server process's CPU time during
  the class (arrival of the first student until memory came back) divided by the number of students; and the CPU
  of all kernels during that window (student kernels and the pool refilling behind them) per student;
- **MB per session**: the largest resident set size (RSS) of each student's kernel process; RSS counts shared
  pages once per process, so it over-estimates (a forked kernel shares most of its pages with the fork server);
  and its proportional set size (PSS: a page shared by k processes counts 1/k), read once when the class is
  done and the kernels are still alive: what one more student adds, as the server's budget counts it;
- **memory**: ``memory_mb`` of ``/dpviz/status.json`` (the server's own reading of itself and its kernels) and
  the same sum read here from ``/proc``, before the class (the ready server, averaged over 3 readings), at peak,
  and after everyone left: students close their sockets (light clients just close, as a crashed tab or a closed
  laptop would; browsers close the tab normally, which sends Voilà's shutdown beacon), then the tool polls until
  no student session is left, every student kernel process is gone and ``memory_mb`` is within
  ``--memory-margin`` (default 10 %) of the value before the class, up to ``--leave-timeout`` (default 150 s).

A few students (``--browsers``, default 3) are real headless Chromium pages through Playwright, started at the
lowest CPU priority (``--browser-nice``, default 19: they stand for the students' own devices)
(``/usr/bin/chromium``, ``$DPVIZ_CHROMIUM``; never a downloaded browser), one browser context (cookie jar) each.
Chromium runs in a session of its own, and where the scheduler groups sessions (autogroups) the priority is set
on its session's group as well (``Monitor.lower_helpers``): a thread's nice value alone only weighs against its
own session's threads, and until 2026-11-29 the three pages took as much CPU as three students' kernels, which
put most of the light clients' slider tail on the relay (the load generator's own CPU, Chromium's, and how late
its event loop woke are printed, so that its share of the machine is visible).

The first-figure and slider targets are checked on all students together (light clients and browsers; the
table breaks them down). Chromium, the light clients and the server share this machine's CPU, which makes every
number pessimistic next to a class whose students bring their own laptops.

Targets (issue 11.4), printed as PASS/FAIL, not asserted by any test: classroom mode: p95 first figure ≤ 5 s,
slider→figure p95 ≤ 250 ms, 0 errors, memory back to its pre-class level within 2 min; plain mode: p95 first
figure ≤ 30 s. The exit status is 1 when a student had an error or memory did not come back (2 when the server
could not be started); ``--strict`` also makes a missed target fail. ``--json PATH`` writes every number and one
record per student.

**Class mode** (``--answer``; ``make loadtest ANSWER=1``; issue 39.7): the whole class answers one exercise and
the class view counts it. The server is started with the class view on (``--classroom`` implied, and
``--class-dir`` a new folder in the log directory, so that the tally starts empty, ``--class-privacy`` as given,
default ``local``); the lesson defaults to 01. The exercise is one ``ChoiceReveal`` ("think, then reveal") for the
whole class: by default the first of the page (its panels in the order the lesson's cells create them), or the
first of the panel class ``--exercise`` names; its key on the teacher's view is ``<PanelClass>.<name>``. Every
student opens the lesson as above; once every student has the lesson open (or has failed), the teacher says "answer
now", and each student answers within ``--answer-seconds`` (default 5; each student's moment drawn uniformly with
``--seed``): a light client sets the exercise's ``RadioButtons`` to an option drawn for it (``comm_msg``
``{"method": "update", "state": {"index": i}}``, as the front end sends a pick) and, once the kernel is done with
the pick, clicks Reveal (``comm_msg`` ``{"method": "custom", "content": {"event": "click"}}`` to the Button's comm,
as ipywidgets' front end does); a browser clicks the option's radio button and then Reveal. The click's time is
noted when the click is sent (a browser: just before Playwright clicks, which makes its times a little longer).
Students move no slider in this mode unless ``--moves`` is given (then after answering).

A teacher task polls ``/dpviz/class/state.json?token=…`` (the token read from the teacher's address the server
prints after its ready line) every ``--poll-seconds`` (default 0.1 s, ten times as often as the teacher's page)
from "answer now" until every click is counted or ``--answer-timeout`` (default 30 s) has passed after the last
student finished answering, and notes the exercise's ``answers`` count whenever it changes. It reports:

- **submissions received**: the final count of answers on the teacher's view, against the number of students
  who clicked Reveal (and the class's size);
- **submit→visible**: the j-th click in time order is matched with the first poll at which the count reached j + 1
  (the teacher cannot tell whose answer arrived, only how many; matching in time order gives each click the
  earliest poll that can show it), and the time is from that click until that poll's answer arrived here; p50, p95
  and max, to the polling interval's resolution;
- **Reveal→"your class so far"**: from the click until the kernel sent the student's "your class so far" box its
  new content (the kernel's whole reveal: the panel's own feedback, the answer's submission to the server, its
  reply): an upper bound on what one submission costs the server, which is not measured apart;
- **errors**, besides the ones above: a "your class so far" box that shows a problem (``dpviz-class-problem``:
  "not reachable", "refused", "too many answers", …) or anything but the class's histogram (an answer not shared),
  a student whose Reveal produced no "your class so far" within ``--answer-timeout``, an exercise without a class
  box (the kernel has no class feed), and a poll of the teacher's view that failed.

Targets (issue 39.7), printed as PASS/FAIL, not asserted by any test: every submission counted (every student
clicked and the teacher's view counts every click), p95 submit→visible ≤ 2 s, 0 errors; a lost submission also
makes the exit status 1.

Usage: ``python benchmarks/loadtest.py [--students 30] [--browsers 3] [--classroom] [--lesson 07] [--json out.json]``
(``make loadtest ARGS="--classroom --students 10"``; class mode: ``make loadtest ANSWER=1 ARGS="--browsers 0"``,
``--answer --class-privacy central``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime
from http.cookies import SimpleCookie
from pathlib import Path

import psutil

from dpviz.lessons import NOTEBOOK_DIR, lessons
from dpviz.serve import procs

V1 = "v1.kernel.websocket.jupyter.org"
CHROMIUM = os.environ.get("DPVIZ_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
SLIDER_MODELS = ("IntSliderModel", "FloatSliderModel", "FloatLogSliderModel")
FIGURE_TRAITS = ("_widget_data", "_widget_layout")
KERNEL_ID = re.compile(r'"kernelId":\s*"([0-9a-f-]+)"')
WAITING_PAGE = "id='dpviz-wait'"  # the page a lesson request gets while the server is still preparing that lesson
MB = float(2**20)
STEPS_PER_MOVE = 3  # steps tried before a move that changes no figure counts as an error
QUIET_AFTER_IDLE = 1.0  # s to wait for a late figure update after the kernel went idle on a step

#: (name, mode, summary key, limit in seconds); the errors and memory targets are checked in both modes.
TIMING_TARGETS = [
    ("p95 first figure ≤ 5 s", "classroom", "first_figure_s", 5.0),
    ("p95 slider→figure ≤ 250 ms", "classroom", "slider_figure_s", 0.250),
    ("p95 first figure ≤ 30 s", "plain", "first_figure_s", 30.0),
]
MEMORY_BACK_TARGET_S = 120.0
#: Class mode (``--answer``): the lesson it opens by default, and the target on submit→visible (issue 39.7).
ANSWER_LESSON = "01"
SUBMIT_VISIBLE_TARGET_S = 2.0
#: The teacher's address the server prints after its ready line when the class view is on.
TEACHER_LINE = re.compile(r"Teacher's view[^\n]*?(https?://\S+?/dpviz/class)\?token=([A-Za-z0-9_-]+)")
CLASS_SO_FAR = "dpviz-class-so-far"  # the class's histogram in an exercise's class box
CLASS_PROBLEM = "dpviz-class-problem"  # a failure line in it (not reachable, refused, too many answers, ...)


def log(msg: str) -> None:
    print(f"[loadtest {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ---- small helpers ----------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values, q: float) -> float | None:
    """The q-th percentile (0..100) with linear interpolation between order statistics (numpy's default)."""
    xs = sorted(v for v in values if v is not None)
    if not xs:
        return None
    k = (len(xs) - 1) * q / 100.0
    lo = math.floor(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def stats(values) -> dict:
    xs = [v for v in values if v is not None]
    return {"n": len(xs), "p50": percentile(xs, 50), "p95": percentile(xs, 95), "max": max(xs) if xs else None}


def lesson_filename(spec: str) -> str:
    """``"07"``/``"7"``/``"07_accounting_in_practice.ipynb"`` -> the lesson's notebook file name."""
    all_lessons = lessons(NOTEBOOK_DIR)
    by_number = {f"{lesson.order:02d}": lesson.filename for lesson in all_lessons}
    key = spec.zfill(2) if spec.isdigit() else spec
    if key in by_number:
        return by_number[key]
    if spec in by_number.values():
        return spec
    raise SystemExit(f"--lesson {spec!r}: unknown lesson; the lessons are {', '.join(sorted(by_number))}")


def v1_frame(channel: str, msg_type: str, content: dict, metadata: dict | None = None,
             session: str = "", msg_id: str | None = None) -> tuple[str, bytes]:
    """(msg_id, frame): one kernel message in jupyter_server's v1 WebSocket framing.

    The frame starts with the offset count n (8 bytes, little-endian), then n offsets: where the channel, header,
    parent header, metadata, content (and any buffer) start, and where the frame ends.
    """
    msg_id = msg_id or uuid.uuid4().hex
    header = {"msg_id": msg_id, "msg_type": msg_type, "session": session, "username": "loadtest", "version": "5.3",
              "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    parts = [channel.encode(), json.dumps(header).encode(), b"{}", json.dumps(metadata or {}).encode(),
             json.dumps(content).encode()]
    n = len(parts) + 1
    offsets, pos = [], 8 * (n + 1)
    for p in parts:
        offsets.append(pos)
        pos += len(p)
    offsets.append(pos)
    return msg_id, n.to_bytes(8, "little") + b"".join(o.to_bytes(8, "little") for o in offsets) + b"".join(parts)


@dataclass
class KernelMessage:
    channel: str
    msg_type: str
    parent_id: str | None
    content: dict
    n_buffers: int
    date: str = ""  # the header's ISO date: when the kernel made the message (this machine's wall clock)


def parse_v1(frame) -> KernelMessage:
    """Decode a v1 frame from the server (raises ValueError on a malformed one)."""
    if isinstance(frame, str):
        raise ValueError("text frame on a v1 kernel WebSocket")
    n = int.from_bytes(frame[:8], "little")
    if not 6 <= n <= 1024 or 8 * (n + 1) > len(frame):
        raise ValueError(f"bad v1 offset count {n}")
    offsets = [int.from_bytes(frame[8 * (i + 1): 8 * (i + 2)], "little") for i in range(n)]
    parts = [frame[offsets[i]: offsets[i + 1]] for i in range(n - 1)]
    header = json.loads(parts[1])
    parent = json.loads(parts[2]) if parts[2] else {}
    return KernelMessage(parts[0].decode(), header.get("msg_type", ""), parent.get("msg_id"),
                         json.loads(parts[4]) if parts[4] else {}, len(parts) - 5, str(header.get("date") or ""))


def wall_time(iso: str) -> float | None:
    """A kernel header's ISO date as seconds since the epoch (``time.time()``'s clock), None if unreadable."""
    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return None


def plain_text(html_text: str) -> str:
    """What an HTML widget's value reads as (tags dropped, spaces collapsed)."""
    return " ".join(re.sub(r"<[^>]+>", " ", html_text).split())


def is_figure_state(model: dict) -> bool:
    return model.get("model_name") == "AnyModel" and "_widget_data" in model.get("state", {})


def changes_figure(state: dict) -> bool:
    """True when a widget ``update`` state would make plotly.js redraw (not plotly's bookkeeping or its resets)."""
    for key, value in state.items():
        if key in FIGURE_TRAITS or (key.startswith("_py2js_") and value not in (None, {})):
            return True
    return False


def next_slider_value(model_name: str, state: dict, current: float, direction: int) -> float | None:
    """The value one step from ``current`` in ``direction`` (±1), or None at the end of the range."""
    step = float(state.get("step") or 1)
    lo, hi = float(state["min"]), float(state["max"])
    if model_name == "FloatLogSliderModel":  # min, max and step are exponents
        base = float(state.get("base") or 10)
        exponent = math.log(current, base)
        target = min(max(exponent + direction * step, lo), hi)
        if abs(target - exponent) < step * 1e-6:
            return None
        return float(base ** round(target, 10))
    target = min(max(current + direction * step, lo), hi)
    if abs(target - current) < step * 1e-6:
        return None
    return int(round(target)) if model_name == "IntSliderModel" else round(target, 10)


# ---- the server --------------------------------------------------------------------------------------------------


class Server:
    """``dpviz serve`` on a free loopback port, with its log in ``log_dir``; always stopped."""

    def __init__(self, opts, lesson: str, log_dir: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_dir / f"dpviz-app-{self.port}.log"
        # the kernels' connection files, where the monitor finds which process is which kernel (by its ports)
        self.runtime_dir = log_dir / f"runtime-{self.port}"
        self.args = [sys.executable, "-m", "dpviz.serve", f"--port={self.port}", "--Voila.ip=127.0.0.1",
                     "--no-browser", f"--shutdown-grace={opts.shutdown_grace:g}",
                     f"--Voila.connection_dir_root={self.runtime_dir}"]
        if opts.classroom:
            self.args += [f"--class-size={opts.class_size or opts.students}", f"--lessons={lesson[:2]}"]
        self.class_dir: Path | None = None
        if opts.classroom or getattr(opts, "answer", False):
            # the class view (on with --class-size): its tally in a new folder of the log directory, never in the
            # user's data directory where a teacher's real classes are
            self.class_dir = log_dir / f"class-{self.port}"
            self.args += [f"--class-dir={self.class_dir}"]
        if getattr(opts, "answer", False):
            self.args += [f"--class-privacy={opts.class_privacy}"]
        self.args += shlex.split(opts.server_args or "")
        self.log_dir = log_dir
        self.proc: subprocess.Popen | None = None
        self._log_file = None
        self.ready_line: str | None = None
        self.seen: dict[int, psutil.Process] = {}  # every descendant seen (psutil tells a reused pid apart)

    def start(self) -> None:
        self._log_file = open(self.log_path, "w")
        self.runtime_dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(self.args, cwd=self.log_dir, stdout=self._log_file, stderr=subprocess.STDOUT,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def wait_ready(self, timeout: float) -> float:
        """Seconds until the app printed its ``ready`` line; RuntimeError if it exits or takes too long."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"dpviz.app exited with {self.proc.returncode}:\n" + self.log_text()[-3000:])
            for line in self.log_text().splitlines():
                if line.startswith("ready"):
                    self.ready_line = line.strip()
                    return time.monotonic() - t0
            time.sleep(0.5)
        raise RuntimeError(f"dpviz.app printed no ready line within {timeout:.0f} s:\n" + self.log_text()[-3000:])

    def teacher_address(self, timeout: float) -> tuple[str, str]:
        """(the teacher's view's URL on this server's loopback port, its token), read from the line the server prints
        after its ready line; RuntimeError if it does not come within ``timeout`` s."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            m = TEACHER_LINE.search(self.log_text())
            if m:
                path = urllib.parse.urlsplit(m[1]).path  # the printed host is the join address; ask on loopback
                return self.url + path, m[2]
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        raise RuntimeError(f"the server printed no teacher's address within {timeout:.0f} s:\n"
                           + self.log_text()[-3000:])

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.remember_children()
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        # Kernels the server did not take down with it (it was killed, or a shutdown failed): end them by pid,
        # only if the pid still belongs to the same process (same start time).
        for process in self.seen.values():
            try:
                if process.is_running():  # the same process (pid and start time)
                    process.kill()
            except psutil.Error:
                pass
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def remember_children(self) -> None:
        if self.proc is None:
            return
        for process in procs.tree(self.proc.pid)[1:]:
            self.seen.setdefault(process.pid, process)


def _reading(process: psutil.Process) -> tuple[float, float] | None:
    """(CPU seconds, user + system; RSS in MB) of one process, or None when it is gone."""
    try:
        with process.oneshot():
            times = process.cpu_times()
            return times.user + times.system, process.memory_info().rss / MB
    except psutil.Error:
        return None


def _set_autogroup_nice(pid: int, nice: int) -> bool:
    """Set the nice value of process ``pid``'s session autogroup (Linux with autogroups); False where it cannot."""
    try:
        Path(f"/proc/{pid}/autogroup").write_text(str(max(-20, min(19, int(nice)))))
        return True
    except OSError:
        return False


# ---- readings of the server: /proc and status.json ---------------------------------------------------------------


class Monitor:
    """Samples the server's process tree (``/proc``) and ``/dpviz/status.json`` in the background."""

    def __init__(self, server: Server, interval: float = 1.0):
        self.server = server
        self.interval = interval
        self.cpu: dict[int, float] = {}  # pid -> CPU seconds when last seen
        self.rss_max: dict[int, float] = {}
        self.kernel_pid: dict[str, int] = {}  # kernel id -> pid
        self.alive: set[int] = set()
        self.tree_mb: float | None = None
        self.tree_peak_mb = 0.0
        self.tree_peak_kernels = 0
        self.status: dict | None = None
        self.status_peak: dict = {"memory_mb": 0.0, "sessions": 0, "kernels": 0}
        self.status_errors = 0
        self._cpu_start: dict[int, float] | None = None
        self._tasks: list[asyncio.Task] = []
        # the load generator's own share of the machine: its helper processes (Playwright's driver, Chromium) by
        # pid, CPU s when last seen, and how late this process's event loop wakes up (every light client's
        # timestamps include that delay)
        self.generator_cpu: dict[int, float] = {}
        self.browser_nice = 0  # autogroup nice for the helpers' own sessions (Chromium's), see lower_helpers
        self.helper_sessions: set[int] = set()  # sessions (ids) whose autogroup was lowered
        self.loop_lag_s: list[float] = []
        self._own_cpu_start: float | None = None
        self._generator_start: dict[int, float] = {}

    def sample_proc(self) -> None:
        pid = self.server.proc.pid
        tree = procs.tree(pid)
        alive, rss = set(), 0.0
        for process in tree:
            reading = _reading(process)
            if reading is None:
                continue
            alive.add(process.pid)
            self.cpu[process.pid] = reading[0]
            self.rss_max[process.pid] = max(self.rss_max.get(process.pid, 0.0), reading[1])
            rss += reading[1]
        # which process is which kernel: the one listening on the ports its connection file names (a forked
        # kernel's command line is the fork server's); looked up only while a kernel is still unknown
        files = {f.stem[len("kernel-"):] for f in self.server.runtime_dir.rglob("kernel-*.json")}
        if files - set(self.kernel_pid):
            for kernel_id, kernel_pid in procs.kernel_pids(self.server.runtime_dir).items():
                self.kernel_pid.setdefault(kernel_id, kernel_pid)
        self.alive = alive
        self.server.remember_children()
        server_tree = {p.pid for p in tree}
        for process in psutil.Process().children(recursive=True):
            if process.pid in server_tree:
                continue
            reading = _reading(process)
            if reading is not None:
                self.generator_cpu[process.pid] = reading[0]
        self.tree_mb = rss
        if self.tree_mb > self.tree_peak_mb:
            self.tree_peak_mb = self.tree_mb
        kernels = set(self.kernel_pid.values())
        self.tree_peak_kernels = max(self.tree_peak_kernels, len(alive & kernels))
        self.lower_helpers()

    def lower_helpers(self) -> None:
        """Chromium's processes run in sessions of their own (Playwright detaches the browser, and its zygotes call
        ``setsid``), and with the scheduler's autogroups (on by default in Debian's kernels) CPU is shared between
        sessions first: the wrapper's ``nice -n 19`` then weighs only against Chromium's own threads, and three
        pages got as much CPU as a student's kernel each. Each such session's autogroup gets ``browser_nice`` (from
        the sampling loop, so a session born later follows within a second)."""
        if not self.browser_nice:
            return
        ours = os.getsid(0)
        for pid in list(self.generator_cpu):
            try:
                sid = os.getsid(pid)
            except OSError:  # gone
                continue
            if sid != ours and sid not in self.helper_sessions and _set_autogroup_nice(pid, self.browser_nice):
                self.helper_sessions.add(sid)

    async def fetch_status(self, http) -> dict | None:
        from tornado.httpclient import HTTPRequest

        try:
            resp = await http.fetch(HTTPRequest(self.server.url + "/dpviz/status.json", request_timeout=10),
                                    raise_error=False)
        except Exception:
            self.status_errors += 1
            return None
        if resp.code != 200:
            self.status_errors += 1
            return None
        status = json.loads(resp.body)
        self.status = status
        for key in ("memory_mb", "sessions", "kernels"):
            self.status_peak[key] = max(self.status_peak[key], status.get(key) or 0)
        return status

    async def _proc_loop(self) -> None:
        while True:
            await asyncio.to_thread(self.sample_proc)
            await asyncio.sleep(self.interval)

    async def _status_loop(self, http) -> None:
        while True:
            await self.fetch_status(http)
            await asyncio.sleep(self.interval)

    async def _lag_loop(self, period: float = 0.02) -> None:
        while True:
            t = time.monotonic()
            await asyncio.sleep(period)
            self.loop_lag_s.append(max(0.0, time.monotonic() - t - period))

    def start(self, http) -> None:
        self._tasks = [asyncio.create_task(self._proc_loop()), asyncio.create_task(self._status_loop(http)),
                       asyncio.create_task(self._lag_loop())]

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def mark_cpu_start(self) -> None:
        self._cpu_start = dict(self.cpu)
        self._own_cpu_start = time.process_time()
        self._generator_start = dict(self.generator_cpu)
        self.loop_lag_s.clear()

    def generator_window(self) -> tuple[float, float]:
        """(this process's CPU s, its helper processes' CPU s: Playwright's driver and Chromium) since
        :meth:`mark_cpu_start`; a helper that ended between two samples loses its last second."""
        own = time.process_time() - (self._own_cpu_start or 0.0)
        helpers = sum(c - self._generator_start.get(p, 0.0) for p, c in self.generator_cpu.items())
        return own, helpers

    def cpu_window(self) -> tuple[float, float]:
        """(server CPU s, all kernels' CPU s) since :meth:`mark_cpu_start` (processes born since count from 0)."""
        start = self._cpu_start or {}
        server_pid = self.server.proc.pid
        server = self.cpu.get(server_pid, 0.0) - start.get(server_pid, 0.0)
        kernel_pids = set(self.kernel_pid.values())
        kernels = sum(self.cpu[p] - start.get(p, 0.0) for p in kernel_pids if p in self.cpu)
        return server, kernels


# ---- students ----------------------------------------------------------------------------------------------------


class StudentError(Exception):
    pass


@dataclass
class Student:
    index: int
    kind: str  # "light" or "browser"
    arrival_s: float  # planned arrival, seconds after the class started
    panel: int | None = None
    panel_name: str | None = None  # the panel's class (its ``dpviz-<Class>`` DOM class)
    page_s: float | None = None
    http_status: int | None = None
    page_bytes: int | None = None
    page_widget_views: int | None = None  # widget outputs in the served page (0: the lesson did not run)
    kernel_cpu_when_served_s: float | None = None  # its kernel's CPU time at the last reading before the page came
    kernel_id: str | None = None
    kernel_pid: int | None = None
    connected_s: float | None = None
    first_figure_s: float | None = None
    slider: str | None = None
    slider_figure_s: list[float] = field(default_factory=list)
    slider_done_s: list[float] = field(default_factory=list)
    move_started_s: list[float] = field(default_factory=list)  # when each timed step was sent (class clock)
    # where each timed move's time went, from the kernel's own message dates (same machine, same wall clock):
    # sent → the kernel's busy (the server's relay, the kernel waiting for a core and reading it), busy → the figure
    # message made (the kernel's work, including waiting for a core meanwhile), made → received (the server's
    # relay back and this process reading it)
    move_inbound_s: list[float] = field(default_factory=list)
    move_kernel_s: list[float] = field(default_factory=list)
    move_outbound_s: list[float] = field(default_factory=list)
    steps_without_figure: int = 0
    figure_updates: int = 0
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    finished_s: float | None = None
    left_s: float | None = None
    kernel_cpu_s: float | None = None
    kernel_rss_mb: float | None = None
    kernel_pss_mb: float | None = None
    # class mode (--answer)
    answer_offset_s: float | None = None  # planned: seconds after "answer now"
    answer_option: int | None = None  # the option picked
    clicked_s: float | None = None  # when Reveal was clicked (class clock)
    class_so_far_s: float | None = None  # click → the kernel's "your class so far" for it (s)
    class_box: str | None = None  # what the class box showed after the reveal: "so far", "problem" or other text
    ready_to_answer: bool = False  # counted at the "answer now" gate
    done_answering: bool = False  # counted by the teacher's end condition

    def error(self, msg: str) -> None:
        if len(self.errors) < 20:
            self.errors.append(msg)


class Class:
    """What the students share: the server, options, clocks, the HTTP client and the browser."""

    def __init__(self, opts, server: Server, lesson: str, http, browser=None, monitor: Monitor | None = None):
        self.opts = opts
        self.monitor = monitor
        self.server = server
        self.lesson = lesson
        self.http = http
        self.browser = browser
        self.t0 = 0.0  # class start (monotonic)
        self.deadline = 0.0
        self.all_done: asyncio.Event = asyncio.Event()
        self.remaining_students = 0
        self.last_arrival_s = 0.0
        self.kernel_pss: dict[str, float | None] = {}  # kernel id -> PSS (MB), read once when the class is done
        self._pss_task: asyncio.Future | None = None
        # class mode: "answer now" opens when every student has the lesson open (or failed); the teacher stops
        # polling once every student is done answering (clicked and saw its class so far, or failed)
        self.exercise: ExercisePlan | None = None
        self.answer_gate: asyncio.Event = asyncio.Event()
        self.answers_done: asyncio.Event = asyncio.Event()
        self.waiting_to_answer = 0
        self.still_answering = 0
        self.answer_now_s: float | None = None  # class clock when the gate opened
        self.students: list[Student] = []

    def ready_to_answer(self, st: Student) -> None:
        """``st`` has the lesson open (or will never have it): counted once; the last one opens the gate."""
        if st.ready_to_answer:
            return
        st.ready_to_answer = True
        self.waiting_to_answer -= 1
        if self.waiting_to_answer <= 0 and not self.answer_gate.is_set():
            self.answer_now_s = self.now()
            self.answer_gate.set()

    def done_answering(self, st: Student) -> None:
        if st.done_answering:
            return
        st.done_answering = True
        self.ready_to_answer(st)
        self.still_answering -= 1
        if self.still_answering <= 0:
            self.answers_done.set()

    async def wait_for_answer_time(self, st: Student) -> None:
        """Until "answer now" plus this student's offset (bounded by --timeout)."""
        try:
            await asyncio.wait_for(self.answer_gate.wait(), self.left())
        except asyncio.TimeoutError:
            raise StudentError("the class never got to answering (--timeout)") from None
        await asyncio.sleep(max(self.answer_now_s + (st.answer_offset_s or 0.0) - self.now(), 0.0))

    def now(self) -> float:
        return time.monotonic() - self.t0

    def kernel_cpu(self, kernel_id: str) -> float | None:
        pid = self.monitor.kernel_pid.get(kernel_id) if self.monitor else None
        return self.monitor.cpu.get(pid) if pid else None

    def left(self, cap: float | None = None) -> float:
        rest = self.deadline - time.monotonic()
        if rest <= 0:
            raise StudentError(f"out of time (--timeout {self.opts.timeout:g} s)")
        return min(rest, cap) if cap else rest

    def student_finished(self) -> None:
        self.remaining_students -= 1
        if self.remaining_students <= 0:
            self.all_done.set()

    async def stay_until_everyone_is_done(self) -> None:
        try:
            await asyncio.wait_for(self.all_done.wait(), max(self.deadline - time.monotonic(), 0.01))
        except asyncio.TimeoutError:
            pass
        if self._pss_task is None:  # the first student here measures every kernel once; all leave after it
            self._pss_task = asyncio.ensure_future(self._read_kernel_pss())
        await self._pss_task

    async def _read_kernel_pss(self) -> None:
        """PSS of every kernel the monitor knows, before anyone leaves (a closed tab ends its kernel at once); in a
        thread: reading PSS walks page tables, ~2 ms a kernel."""
        pids = dict(self.monitor.kernel_pid) if self.monitor else {}
        try:
            self.kernel_pss = await asyncio.to_thread(
                lambda: {k: (m or {}).get("pss") for k, p in pids.items() for m in [procs.memory_mb(p)]})
        except Exception as exc:  # a reading that fails must not keep the students from leaving
            log(f"could not read the kernels' PSS: {type(exc).__name__}: {exc}")


class KernelChannel:
    """A light client's kernel WebSocket: reads v1 frames and notes what a student would see go wrong."""

    def __init__(self, conn, student: Student, figures: set[str] | None = None):
        self.conn = conn
        self.student = student
        self.figures = figures or set()
        self.session = uuid.uuid4().hex

    async def send(self, channel: str, msg_type: str, content: dict, metadata: dict | None = None) -> str:
        msg_id, frame = v1_frame(channel, msg_type, content, metadata, session=self.session)
        await self.conn.write_message(frame, binary=True)
        return msg_id

    async def read(self, timeout: float) -> KernelMessage:
        raw = await asyncio.wait_for(self.conn.read_message(), max(timeout, 0.001))
        if raw is None:
            raise StudentError(
                f"kernel WebSocket closed by the server ({self.conn.close_code} {self.conn.close_reason})")
        msg = parse_v1(raw)
        self._watch(msg)
        return msg

    def _watch(self, msg: KernelMessage) -> None:
        st = self.student
        c = msg.content
        if msg.msg_type == "error":
            st.error(f"kernel error: {c.get('ename')}: {str(c.get('evalue'))[:200]}")
        elif msg.msg_type == "stream" and c.get("name") == "stderr":
            text = c.get("text", "")
            if "Traceback" in text:
                st.error("traceback on the kernel's stderr: " + text.strip().splitlines()[-1][:200])
            elif text.startswith("No such comm: "):
                pass  # closing the control comm after its answer, as ipywidgets' manager does, gets this line too
            elif len(st.warnings) < 5:
                st.warnings.append("stderr: " + text.strip()[:200])
        elif msg.msg_type == "comm_msg":
            data = c.get("data", {})
            state = data.get("state") or {}
            value = state.get("value")
            if isinstance(value, str) and "dpviz-message" in value:
                st.error("a panel shows a problem: " + re.sub(r"<[^>]+>", "", value)[:200])
            if isinstance(value, str) and CLASS_PROBLEM in value:
                st.error("'your class so far' shows a problem: " + plain_text(value)[:200])
            if data.get("method") == "update" and c.get("comm_id") in self.figures and changes_figure(state):
                st.figure_updates += 1


async def light_student(st: Student, cls: Class) -> None:
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    opts = cls.opts
    rng = random.Random(opts.seed * 7919 + st.index)
    conn = None
    try:
        await asyncio.sleep(max(st.arrival_s - cls.now(), 0))
        t0 = time.monotonic()
        url = f"{cls.server.url}/voila/render/{cls.lesson}"
        resp = await cls.http.fetch(HTTPRequest(url, request_timeout=cls.left(), follow_redirects=False),
                                    raise_error=False)
        body = resp.body.decode(errors="replace") if resp.body else ""
        if resp.code == 200 and WAITING_PAGE in body:
            # The server is still warming up: do what the waiting page's script does (poll the status, then
            # open the lesson with ?waited=1), on the same clock.
            while cls.left() > 0:
                status = await cls.http.fetch(HTTPRequest(f"{cls.server.url}/dpviz/status.json",
                                                          request_timeout=max(cls.left(), 1)), raise_error=False)
                info = json.loads(status.body or b"{}") if status.code == 200 else {}
                if info.get("ready") or info.get("pool", {}).get(cls.lesson, 0) > 0:
                    break
                await asyncio.sleep(0.7)
            resp = await cls.http.fetch(HTTPRequest(url + "?waited=1", request_timeout=cls.left(),
                                                    follow_redirects=False), raise_error=False)
            body = resp.body.decode(errors="replace") if resp.body else ""
        st.page_s = time.monotonic() - t0
        st.http_status = resp.code
        if resp.code != 200:
            title = re.search(r"<h1[^>]*>(.*?)</h1>", body)
            raise StudentError(f"page: HTTP {resp.code} {title[1] if title else (resp.error or '')}".strip())
        st.page_bytes = len(resp.body or b"")
        st.page_widget_views = body.count("application/vnd.jupyter.widget-view+json")
        m = KERNEL_ID.search(body)
        if not m:
            raise StudentError("page: no kernel id in the lesson page")
        st.kernel_id = m[1]
        st.kernel_cpu_when_served_s = cls.kernel_cpu(st.kernel_id)
        jar = SimpleCookie()
        for header in resp.headers.get_list("Set-Cookie"):
            jar.load(header)
        cookie = "; ".join(f"{k}={morsel.value}" for k, morsel in jar.items())

        ws = (cls.server.url.replace("http://", "ws://")
              + f"/api/kernels/{st.kernel_id}/channels?session_id={uuid.uuid4()}")
        try:
            conn = await asyncio.wait_for(
                websocket_connect(HTTPRequest(ws, headers={"Cookie": cookie}, connect_timeout=cls.left(60)),
                                  subprotocols=[V1], max_message_size=64 << 20),
                cls.left(60),
            )
        except asyncio.TimeoutError:
            raise StudentError("kernel WebSocket: no handshake within 60 s") from None
        except Exception as exc:
            raise StudentError(f"kernel WebSocket refused: {type(exc).__name__}: {exc}") from None
        st.connected_s = time.monotonic() - t0
        chan = KernelChannel(conn, st)
        await chan.send("shell", "kernel_info_request", {})
        control = uuid.uuid4().hex
        await chan.send("shell", "comm_open", {"comm_id": control, "target_name": "jupyter.widget.control", "data": {}},
                        {"version": "1.0.0"})
        await chan.send("shell", "comm_msg", {"comm_id": control, "data": {"method": "request_states"}},
                        {"version": "1.0.0"})
        states = await request_states(chan, control, cls)
        figures = {mid for mid, model in states.items() if is_figure_state(model)}
        if not any(states[mid]["state"].get("_widget_data") for mid in figures):
            raise StudentError("no plotly figure with data among the page's widgets")
        st.first_figure_s = time.monotonic() - t0
        chan.figures = figures
        await chan.send("shell", "comm_close", {"comm_id": control, "data": {}}, {"version": "1.0.0"})

        if opts.answer:
            await answer_light(st, cls, chan, states, rng)
            cls.done_answering(st)
        if opts.moves:
            panel_id, slider_id = choose_slider(states, st, opts.panel)
            model = states[slider_id]
            st.slider = f"{model['model_name']} {model['state'].get('description', '')!r}"
            await move_slider_light(st, cls, chan, model, slider_id, rng)
        st.finished_s = cls.now()
    except StudentError as exc:
        st.error(str(exc))
    except asyncio.TimeoutError:
        st.error(f"out of time (--timeout {opts.timeout:g} s)")
    except Exception as exc:  # a bug here or an unexpected answer: report it as this student's error
        st.error(f"{type(exc).__name__}: {exc}")
    finally:
        cls.done_answering(st)  # a student who failed before answering does not hold up the class or the teacher
        cls.student_finished()
        if conn is not None:
            await cls.stay_until_everyone_is_done()
            if opts.beacon and st.kernel_id:
                await send_beacon(cls, st, cookie)
            conn.close()
        st.left_s = cls.now()


async def request_states(chan: KernelChannel, control: str, cls: Class) -> dict:
    """The ``update_states`` answer on the control comm. When the kernel refuses the control comm (it closes it:
    ipywidgets is not loaded there), ipywidgets' manager falls back to asking which widget comms exist; so do we,
    and report what we found: a kernel without widgets never shows a figure."""
    deadline = time.monotonic() + cls.left(cls.opts.move_timeout)
    info_id = None
    while True:
        try:
            msg = await chan.read(deadline - time.monotonic())
        except asyncio.TimeoutError:
            raise StudentError(f"no widget states within {cls.opts.move_timeout:g} s") from None
        c = msg.content
        if (msg.msg_type == "comm_msg" and c.get("comm_id") == control
                and c.get("data", {}).get("method") == "update_states"):
            return c["data"]["states"]
        if msg.msg_type == "comm_close" and c.get("comm_id") == control and info_id is None:
            info_id = await chan.send("shell", "comm_info_request", {"target_name": "jupyter.widget"})
        if msg.msg_type == "comm_info_reply" and msg.parent_id == info_id:
            raise StudentError(f"the kernel refused the widget control comm (ipywidgets not loaded: the lesson has "
                               f"not run in it); it has {len(c.get('comms') or {})} widget comms")


async def send_beacon(cls: Class, st: Student, cookie: str) -> None:
    from tornado.httpclient import HTTPRequest

    try:
        await cls.http.fetch(HTTPRequest(f"{cls.server.url}/voila/api/shutdown/{st.kernel_id}", method="POST", body=b"",
                                         headers={"Cookie": cookie}, request_timeout=10), raise_error=False)
    except Exception as exc:
        st.warnings.append(f"shutdown beacon: {exc}")


def choose_slider(states: dict, st: Student, panel_opt: str) -> tuple[str, str]:
    """(panel model id, slider model id): the first slider of panel ``i mod n`` (or ``--panel``), in page order."""

    def walk(mid):
        model = states.get(mid)
        if model is None:
            return
        yield mid
        for child in model["state"].get("children") or []:
            if isinstance(child, str) and child.startswith("IPY_MODEL_"):
                yield from walk(child[len("IPY_MODEL_"):])

    panels = [mid for mid, model in states.items() if "dpviz-panel" in (model["state"].get("_dom_classes") or [])]
    # Page order: panels nested in no other panel, in the order the kernel created them (the notebook's order).
    candidates = []
    for mid in panels:
        sliders = [m for m in walk(mid) if states[m]["model_name"] in SLIDER_MODELS
                   and not states[m]["state"].get("disabled")]
        if sliders:
            candidates.append((mid, sliders[0]))
    if not candidates:
        raise StudentError("no panel with a slider among the page's widgets")
    index = st.index % len(candidates) if panel_opt == "spread" else min(int(panel_opt), len(candidates) - 1)
    st.panel = index
    st.panel_name = panel_class(states[candidates[index][0]]["state"].get("_dom_classes") or [])
    return candidates[index]


def panel_class(dom_classes) -> str | None:
    """The panel's class name from its DOM classes (``dpviz-CompositionLabPanel`` → ``CompositionLabPanel``)."""
    return next((c[len("dpviz-"):] for c in dom_classes if c.startswith("dpviz-") and c.endswith("Panel")), None)


async def move_slider_light(st: Student, cls: Class, chan: KernelChannel, model: dict, slider_id: str,
                            rng: random.Random) -> None:
    opts = cls.opts
    state = model["state"]
    name = model["model_name"]
    value = state["value"]
    direction = 1 if next_slider_value(name, state, value, 1) is not None else -1
    for _move in range(opts.moves):
        await asyncio.sleep(min(opts.think_seconds * rng.uniform(0.5, 1.5), cls.left()))
        for _step in range(STEPS_PER_MOVE):
            target = next_slider_value(name, state, value, direction)
            if target is None:
                direction = -direction
                target = next_slider_value(name, state, value, direction)
            if target is None:
                raise StudentError(f"slider {st.slider} cannot move (min == max)")
            sent_at = time.monotonic()
            sent_wall = time.time()
            sent_class = cls.now()
            msg_id = await chan.send("shell", "comm_msg",
                                     {"comm_id": slider_id, "data": {"method": "update", "state": {"value": target},
                                                                     "buffer_paths": []}},
                                     {"version": "2.1.0"})
            value = target
            figure_at, idle_at, stages = await await_figure(chan, msg_id, cls)
            if figure_at is not None:
                st.slider_figure_s.append(figure_at - sent_at)
                busy_wall, made_wall, got_wall = stages
                if busy_wall is not None and made_wall is not None:
                    st.move_inbound_s.append(busy_wall - sent_wall)
                    st.move_kernel_s.append(made_wall - busy_wall)
                    st.move_outbound_s.append(got_wall - made_wall)
                st.move_started_s.append(sent_class)
                if idle_at is not None:
                    st.slider_done_s.append(idle_at - sent_at)
                break
            st.steps_without_figure += 1
        else:
            raise StudentError(f"moving {st.slider} ({STEPS_PER_MOVE} steps) changed no figure")
        direction = -direction


async def await_figure(chan: KernelChannel, msg_id: str, cls: Class) -> tuple[float | None, float | None, tuple]:
    """(time of the first figure change, time the kernel went idle on ``msg_id``, (wall clock of the kernel's
    ``busy`` for it, of the figure message's making, of its receipt)); None for what did not come.

    Only a figure change the kernel sent after it began to handle ``msg_id`` (its ``busy`` status for it) counts:
    a streamed panel's refinements of the previous move can still be arriving when this move is sent, and until
    2026-11-29 the first of them was counted as this move's answer (the streamed panels' slider→figure p50 read
    1–2 ms in a class of 30, while the kernels took ~0.4 s to finish a move). From ``busy`` on, a stale worker can
    no longer write a figure (the move cancels it, under the panel's lock) but in the moment before the move
    reaches it.
    """
    figure_at = idle_at = None
    busy_wall = made_wall = got_wall = None
    before = None  # figure changes counted when the kernel began this move
    move_deadline = time.monotonic() + cls.left(cls.opts.move_timeout)
    quiet_until = None
    while True:
        now = time.monotonic()
        limit = move_deadline if quiet_until is None else min(quiet_until, move_deadline)
        if now >= limit:
            if quiet_until is None and figure_at is None:
                raise StudentError(f"no answer to a slider move within {cls.opts.move_timeout:g} s")
            return figure_at, idle_at, (busy_wall, made_wall, got_wall)
        try:
            msg = await chan.read(limit - now)
        except asyncio.TimeoutError:
            continue
        if msg.msg_type == "status" and msg.parent_id == msg_id and msg.content.get("execution_state") == "busy":
            before = chan.student.figure_updates
            busy_wall = wall_time(msg.date)
        if figure_at is None and before is not None and chan.student.figure_updates > before:
            figure_at = time.monotonic()
            got_wall, made_wall = time.time(), wall_time(msg.date)
            if idle_at is not None:
                return figure_at, idle_at, (busy_wall, made_wall, got_wall)
        if msg.msg_type == "status" and msg.parent_id == msg_id and msg.content.get("execution_state") == "idle":
            idle_at = time.monotonic()
            if figure_at is not None:
                return figure_at, idle_at, (busy_wall, made_wall, got_wall)
            quiet_until = idle_at + QUIET_AFTER_IDLE  # a late update (a panel drawing in a thread) may follow


# ---- browser students (Playwright) -------------------------------------------------------------------------------

# The data of every plotly figure in panel i, as a string: changes whenever one of its traces changes.
PANEL_SIGNATURE = """(i) => {
  const panel = document.querySelectorAll('.dpviz-panel')[i];
  if (!panel) return null;
  const pick = (a) => a === undefined ? null : Array.from(a).slice(0, 4000);
  const figs = Array.from(panel.querySelectorAll('.js-plotly-plot'));
  if (!figs.length || figs.some(gd => !gd.data)) return null;
  return figs.map(gd => JSON.stringify(gd.data.map(t => [pick(t.x), pick(t.y), pick(t.z), t.name, t.visible]))
       + JSON.stringify((gd.layout && gd.layout.shapes) || [])
       + JSON.stringify((gd.layout && gd.layout.annotations || []).map(a => a.text))).join('|');
}"""
KEYDOWN_CLOCK = """() => { if (!window.__dpvizClock) { window.__dpvizClock = true;
  document.addEventListener('keydown', () => { window.__dpvizKeyAt = performance.now(); }, true); } }"""
CHANGED_SINCE_KEY = f"""([i, before]) => {{ const s = ({PANEL_SIGNATURE})(i);
  return (s !== null && s !== before && window.__dpvizKeyAt !== undefined)
    ? Math.max(performance.now() - window.__dpvizKeyAt, 0.001) : null; }}"""
# Whether panel i is computing no more: its Stop button (shown while a streamed panel refines) is hidden. A browser
# student presses the next key only then, so that the figure change it times is its own move's and not a late
# refinement of the move before (which arrives after the key press without answering it).
PANEL_IDLE = """(i) => ![...document.querySelectorAll('.dpviz-panel')[i].querySelectorAll('button')].some(
  (b) => b.textContent.trim() === 'Stop' && getComputedStyle(b).visibility === 'visible')"""
PAGE_ERRORS = ("Traceback", "There was an error when executing cell", "Something went wrong")


async def browser_student(st: Student, cls: Class) -> None:
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    opts = cls.opts
    rng = random.Random(opts.seed * 7919 + st.index)
    context = page = None
    try:
        context = await cls.browser.new_context(viewport={"width": 1280, "height": 1000})
        page = await context.new_page()
        page.on("pageerror", lambda exc: st.error(f"uncaught error in the page: {str(exc)[:200]}"))
        await asyncio.sleep(max(st.arrival_s - cls.now(), 0))
        t0 = time.monotonic()
        resp = await page.goto(f"{cls.server.url}/voila/render/{cls.lesson}", wait_until="commit",
                               timeout=cls.left() * 1000)
        if resp is None:
            raise StudentError("page: no response")
        await resp.finished()
        st.page_s = time.monotonic() - t0
        st.http_status = resp.status
        if resp.status != 200:
            raise StudentError(f"page: HTTP {resp.status}")
        body = await resp.text()
        st.page_bytes = len(body.encode())
        st.page_widget_views = body.count("application/vnd.jupyter.widget-view+json")
        m = KERNEL_ID.search(body)
        if not m:
            raise StudentError("page: no kernel id in the lesson page")
        st.kernel_id = m[1]
        st.kernel_cpu_when_served_s = cls.kernel_cpu(st.kernel_id)
        # The page asks for its kernel (/api/kernels/<id>) before connecting; a 404 there means the server already
        # ended the kernel (e.g. the page took longer than --shutdown-grace to connect): no figure will ever come.
        gone = asyncio.Event()
        kernel_url = f"/api/kernels/{st.kernel_id}"
        page.on("response", lambda r: gone.set() if kernel_url in r.url and r.status == 404 else None)
        figure = asyncio.create_task(page.wait_for_selector(".js-plotly-plot .main-svg", timeout=cls.left() * 1000))
        lost = asyncio.create_task(gone.wait())
        await asyncio.wait({figure, lost}, return_when=asyncio.FIRST_COMPLETED)
        lost.cancel()
        if not figure.done():
            figure.cancel()
            await asyncio.gather(figure, return_exceptions=True)
            raise StudentError(f"the kernel was gone before the page connected to it (HTTP 404 on {kernel_url}, "
                               f"{time.monotonic() - t0:.1f} s after arriving; the server's --connect-grace "
                               "passed): the page never draws a figure")
        try:
            figure.result()
        except PlaywrightTimeout:
            raise StudentError("no figure drawn in the page") from None
        st.first_figure_s = time.monotonic() - t0
        st.connected_s = st.first_figure_s  # the page drew a figure: its kernel WebSocket is open
        if opts.answer:
            await answer_browser(st, cls, page, rng)
            cls.done_answering(st)
        if opts.moves:
            n_panels = await page.locator(".dpviz-panel").count()
            if n_panels == 0:
                raise StudentError("no dpviz panel in the page")
            p = st.index % n_panels if opts.panel == "spread" else min(int(opts.panel), n_panels - 1)
            st.panel = p
            classes = (await page.locator(".dpviz-panel").nth(p).get_attribute("class")) or ""
            st.panel_name = panel_class(classes.split())
            handle = page.locator(".dpviz-panel").nth(p).locator(".widget-slider:visible .noUi-handle").first
            if await page.locator(".dpviz-panel").nth(p).locator(".widget-slider:visible .noUi-handle").count() == 0:
                raise StudentError(f"panel {p} has no visible slider")
            st.slider = f"panel {p} first slider"
            await page.wait_for_function(f"(i) => ({PANEL_SIGNATURE})(i) !== null", arg=p, timeout=cls.left() * 1000)
            await page.evaluate(KEYDOWN_CLOCK)
            direction = 1
            for _move in range(opts.moves):
                await asyncio.sleep(min(opts.think_seconds * rng.uniform(0.5, 1.5), cls.left()))
                for _step in range(STEPS_PER_MOVE):
                    now_v, lo, hi = [float(await handle.get_attribute(a) or "nan")
                                     for a in ("aria-valuenow", "aria-valuemin", "aria-valuemax")]
                    if (direction > 0 and now_v >= hi) or (direction < 0 and now_v <= lo):
                        direction = -direction
                    await page.wait_for_function(PANEL_IDLE, arg=p, timeout=cls.left(opts.move_timeout) * 1000)
                    before = await page.evaluate(PANEL_SIGNATURE, p)
                    await handle.focus()
                    sent_class = cls.now()
                    await page.keyboard.press("ArrowRight" if direction > 0 else "ArrowLeft")
                    try:
                        result = await page.wait_for_function(CHANGED_SINCE_KEY, arg=[p, before],
                                                              timeout=cls.left(opts.move_timeout) * 1000)
                    except PlaywrightTimeout:
                        st.steps_without_figure += 1
                        continue
                    st.slider_figure_s.append(float(await result.json_value()) / 1000.0)
                    st.move_started_s.append(sent_class)
                    st.figure_updates += 1
                    break
                else:
                    raise StudentError(f"moving panel {p}'s first slider ({STEPS_PER_MOVE} key presses) changed no "
                                       "figure")
                direction = -direction
        text = await page.inner_text("body")
        for marker in PAGE_ERRORS:
            if marker in text:
                st.error(f"the page shows {marker!r}")
        if await page.locator(".dpviz-message").count():
            st.error("a panel shows a problem: " + (await page.locator(".dpviz-message").first.inner_text())[:200])
        st.finished_s = cls.now()
    except StudentError as exc:
        st.error(str(exc))
    except (asyncio.TimeoutError, PlaywrightTimeout):
        st.error(f"out of time (--timeout {opts.timeout:g} s)")
    except Exception as exc:
        st.error(f"{type(exc).__name__}: {str(exc)[:300]}")
    finally:
        cls.done_answering(st)
        cls.student_finished()
        await cls.stay_until_everyone_is_done()
        try:
            if page is not None:
                await asyncio.wait_for(page.close(run_before_unload=True), 30)  # the tab closes: Voilà's beacon
                await asyncio.sleep(0.5)
            if context is not None:
                await asyncio.wait_for(context.close(), 30)
        except Exception as exc:
            st.warnings.append(f"closing the browser tab: {exc}")
        st.left_s = cls.now()


def browser_unavailable() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"Chromium not found at {CHROMIUM}"
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return "playwright (Python package) is not installed"
    return None


def niced_chromium(nice: int, directory: Path) -> str:
    """Chromium's path, or a wrapper that starts it at CPU priority ``nice`` (0: as is).

    The browser students stand for the students' own laptops; here they share the server's cores, and a busy
    Chromium (5 MB of plotly.js to parse, figures drawn in software) takes CPU the server needs for everyone.
    At a low priority it gets the CPU the server leaves idle, so the server is measured as a class would see it
    (and the browsers' own times are pessimistic: see the README).
    """
    if nice == 0:
        return CHROMIUM
    wrapper = directory / "chromium-niced"
    # Chromium raises its own threads' priority when it may (as root it ran at nice -8, ahead of the server): where
    # setpriv exists, the browser loses CAP_SYS_NICE, so the priority asked for here is the one it keeps.
    chromium = shlex.quote(CHROMIUM)
    wrapper.write_text("#!/bin/sh\n"
                       "if [ \"$(id -u)\" = 0 ] && command -v setpriv >/dev/null 2>&1; then\n"
                       "  exec setpriv --bounding-set -sys_nice --inh-caps -sys_nice "
                       f"nice -n {int(nice)} {chromium} \"$@\"\n"
                       "fi\n"
                       f"exec nice -n {int(nice)} {chromium} \"$@\"\n")
    wrapper.chmod(0o755)
    return str(wrapper)


# ---- class mode (--answer): one exercise for the whole class, and the teacher's view -------------------------------


@dataclass(frozen=True)
class ExercisePlan:
    """The exercise the whole class answers: ``panel``'s exercise ``name``, the ``index``-th of its exercises (their
    boxes, ``dpviz-exercise``, come in declaration order under the panel), with ``options`` choices."""

    panel: str
    name: str
    index: int
    options: int

    @property
    def key(self) -> str:
        """Its key in the class tally and on the teacher's view."""
        return f"{self.panel}.{self.name}"


def plan_exercise(lesson: str, panel: str | None = None) -> ExercisePlan:
    """The first ``ChoiceReveal`` of the lesson's page (its panels in the order the lesson's code cells create them),
    or the first of panel class ``panel``; SystemExit naming the choices when there is none."""
    import importlib

    from dpviz.panels import ChoiceReveal

    cells = json.loads((NOTEBOOK_DIR / lesson).read_text())["cells"]
    source = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    classes: dict[str, type] = {}
    for module, names in re.findall(r"from (dpviz\.panels\.\w+) import ([\w, ]+)", source):
        mod = importlib.import_module(module)
        classes.update({n.strip(): getattr(mod, n.strip()) for n in names.split(",") if hasattr(mod, n.strip())})
    shown = [name for name in dict.fromkeys(re.findall(r"\b(\w+)\s*\(", source)) if name in classes]
    choices = []
    for name in shown:
        for index, (ex_name, ex) in enumerate(getattr(classes[name], "exercises", {}).items()):
            if isinstance(ex, ChoiceReveal):
                choices.append(ExercisePlan(name, ex_name, index, len(ex.options)))
                break
    for plan in choices:
        if panel is None or plan.panel == panel:
            return plan
    named = ", ".join(p.panel for p in choices) or "none"
    raise SystemExit(f"--exercise {panel!r}: no such panel with a think-then-reveal exercise in {lesson} "
                     f"(its panels with one: {named})" if panel else
                     f"{lesson} has no think-then-reveal exercise (ChoiceReveal) for --answer")


@dataclass
class ExerciseWidgets:
    """The comm ids of one exercise's widgets in a student's page."""

    choice: str  # RadioButtons
    reveal: str  # the Reveal Button
    view: str  # the class box's "your class so far" HTML
    share: str | None  # the "share my answer with the class" Checkbox
    options: int


def find_exercise(states: dict, plan: ExercisePlan) -> ExerciseWidgets:
    """The widgets of the planned exercise among a page's widget states (the first panel of its class)."""

    def kids(mid):
        return [c[len("IPY_MODEL_"):] for c in states[mid]["state"].get("children") or []
                if isinstance(c, str) and c.startswith("IPY_MODEL_") and c[len("IPY_MODEL_"):] in states]

    def walk(mid):
        yield mid
        for child in kids(mid):
            yield from walk(child)

    def classes(mid):
        return states[mid]["state"].get("_dom_classes") or []

    panel = next((mid for mid in states if f"dpviz-{plan.panel}" in classes(mid)), None)
    if panel is None:
        raise StudentError(f"no {plan.panel} among the page's widgets")
    boxes = [mid for mid in kids(panel) if "dpviz-exercise" in classes(mid)]
    if plan.index >= len(boxes):
        raise StudentError(f"{plan.panel} shows {len(boxes)} exercises, not the {plan.index + 1}th ({plan.key})")
    found: dict[str, str] = {}
    for mid in walk(boxes[plan.index]):
        model, state = states[mid]["model_name"], states[mid]["state"]
        if model == "RadioButtonsModel":
            found.setdefault("choice", mid)
        elif model == "ButtonModel" and state.get("description") == "Reveal":
            found.setdefault("reveal", mid)
        elif model == "HTMLModel" and "dpviz-class-view" in classes(mid):
            found.setdefault("view", mid)
        elif model == "CheckboxModel":
            found.setdefault("share", mid)
    if "choice" not in found or "reveal" not in found:
        raise StudentError(f"{plan.key} has no choice and Reveal button in the page")
    if "view" not in found:
        raise StudentError(f"{plan.key} has no class box: the kernel has no class feed (DPVIZ_CLASS unset?)")
    if found.get("share") and not states[found["share"]]["state"].get("value"):
        raise StudentError(f"{plan.key}: 'share my answer with the class' is off by default")
    options = len(states[found["choice"]]["state"].get("_options_labels") or []) or plan.options
    return ExerciseWidgets(found["choice"], found["reveal"], found["view"], found.get("share"), options)


async def await_kernel_idle(chan: KernelChannel, msg_id: str, cls: Class, what: str) -> None:
    deadline = time.monotonic() + cls.left(cls.opts.answer_timeout)
    while True:
        try:
            msg = await chan.read(deadline - time.monotonic())
        except asyncio.TimeoutError:
            raise StudentError(f"the kernel was not done with {what} within {cls.opts.answer_timeout:g} s") from None
        if msg.msg_type == "status" and msg.parent_id == msg_id and msg.content.get("execution_state") == "idle":
            return


async def answer_light(st: Student, cls: Class, chan: KernelChannel, states: dict, rng: random.Random) -> None:
    """Pick an option of the class's exercise and click Reveal at this student's moment; wait for "your class so
    far" (``--answer-timeout``)."""
    opts = cls.opts
    ex = find_exercise(states, cls.exercise)
    st.answer_option = rng.randrange(ex.options)
    cls.ready_to_answer(st)
    await cls.wait_for_answer_time(st)
    pick = await chan.send("shell", "comm_msg",
                           {"comm_id": ex.choice, "data": {"method": "update", "state": {"index": st.answer_option},
                                                           "buffer_paths": []}}, {"version": "2.1.0"})
    await await_kernel_idle(chan, pick, cls, "the pick")
    click = await chan.send("shell", "comm_msg",
                            {"comm_id": ex.reveal, "data": {"method": "custom", "content": {"event": "click"}}},
                            {"version": "2.1.0"})
    sent_at = time.monotonic()
    st.clicked_s = cls.now()
    deadline = sent_at + cls.left(opts.answer_timeout)
    idle_at = None
    while True:
        limit = deadline if idle_at is None else min(deadline, idle_at + QUIET_AFTER_IDLE)
        try:
            msg = await chan.read(limit - time.monotonic())
        except asyncio.TimeoutError:
            break
        c = msg.content
        if msg.msg_type == "status" and msg.parent_id == click and c.get("execution_state") == "idle":
            idle_at = time.monotonic()
        data = c.get("data") or {}
        value = (data.get("state") or {}).get("value")
        if msg.msg_type != "comm_msg" or c.get("comm_id") != ex.view or not isinstance(value, str) or not value:
            continue
        if CLASS_SO_FAR in value:
            st.class_so_far_s = time.monotonic() - sent_at
            st.class_box = "so far"
        elif CLASS_PROBLEM in value:  # the channel has counted it as an error already
            st.class_box = "problem"
        else:
            st.class_box = plain_text(value)[:200]
            st.error(f"after Reveal the class box shows: {st.class_box!r}")
        return
    raise StudentError(f"Reveal gave no 'your class so far' within "
                       f"{'the kernel being done with it (+1 s)' if idle_at else f'{opts.answer_timeout:g} s'}")


async def answer_browser(st: Student, cls: Class, page, rng: random.Random) -> None:
    """The browser's answer: click an option's radio button, then Reveal; wait for "your class so far"."""
    opts, plan = cls.opts, cls.exercise
    box = page.locator(f".dpviz-{plan.panel}").first.locator(".dpviz-exercise").nth(plan.index)
    radios = box.locator(".widget-radio-box input[type=radio]")
    n = await radios.count()
    if n == 0:
        raise StudentError(f"{plan.key}: no radio buttons in the page")
    if await box.locator(".dpviz-class-view").count() == 0:
        raise StudentError(f"{plan.key} has no class box: the kernel has no class feed")
    st.answer_option = rng.randrange(n)
    cls.ready_to_answer(st)
    await cls.wait_for_answer_time(st)
    await radios.nth(st.answer_option).check(timeout=cls.left(opts.answer_timeout) * 1000)
    await asyncio.sleep(0.3)  # a person reads the option before pressing Reveal; the pick reaches the kernel first
    sent_at = time.monotonic()
    st.clicked_s = cls.now()
    await box.get_by_role("button", name="Reveal").click(timeout=cls.left(opts.answer_timeout) * 1000)
    shown = box.locator(f".dpviz-class-view .{CLASS_SO_FAR}, .dpviz-class-view .{CLASS_PROBLEM}")
    await shown.first.wait_for(timeout=cls.left(opts.answer_timeout) * 1000)
    if await box.locator(f".dpviz-class-view .{CLASS_SO_FAR}").count():
        st.class_so_far_s = time.monotonic() - sent_at
        st.class_box = "so far"
    else:
        st.class_box = "problem"
        st.error("'your class so far' shows a problem: "
                 + (await box.locator(".dpviz-class-view").inner_text())[:200])


class Teacher:
    """The teacher's view, polled every ``--poll-seconds``: the class exercise's count of answers over time."""

    def __init__(self, cls: Class, view_url: str, token: str):
        self.cls = cls
        self.state_url = f"{view_url}/state.json?token={urllib.parse.quote(token)}"
        self.changes: list[tuple[float, int]] = []  # (class clock when the poll's answer arrived, answers) per change
        self.polls = 0
        self.errors: list[str] = []
        self.count = 0
        self.exercise_state: dict | None = None  # the exercise's entry on the view at the last poll

    async def poll(self) -> None:
        from tornado.httpclient import HTTPRequest

        self.polls += 1
        try:
            resp = await self.cls.http.fetch(HTTPRequest(self.state_url, request_timeout=10), raise_error=False)
        except Exception as exc:
            self._error(f"state.json: {type(exc).__name__}: {exc}")
            return
        if resp.code != 200:
            self._error(f"state.json: HTTP {resp.code}")
            return
        got = self.cls.now()
        state = json.loads(resp.body)
        entry = next((e for e in state.get("exercises", []) if e.get("exercise") == self.cls.exercise.key), None)
        count = int(entry["answers"]) if entry else 0
        self.exercise_state = entry
        if count != self.count or not self.changes:
            self.changes.append((round(got, 4), count))
            self.count = count

    def _error(self, msg: str) -> None:
        if len(self.errors) < 20:
            self.errors.append(msg)

    async def run(self) -> None:
        """From "answer now" until every click is counted and every student is done answering, or
        ``--answer-timeout`` after the students are done (or the class's ``--timeout``)."""
        cls, opts = self.cls, self.cls.opts
        try:
            await asyncio.wait_for(cls.answer_gate.wait(), max(cls.deadline - time.monotonic(), 0.01))
        except asyncio.TimeoutError:
            return
        done_at = None
        while time.monotonic() < cls.deadline:
            t = time.monotonic()
            await self.poll()
            if cls.answers_done.is_set():
                done_at = done_at or time.monotonic()
                clicked = sum(1 for s in cls.students if s.clicked_s is not None)
                if self.count >= clicked or time.monotonic() - done_at > opts.answer_timeout:
                    return
            await asyncio.sleep(max(opts.poll_seconds - (time.monotonic() - t), 0.0))

    def visible_at(self, j: int) -> float | None:
        """Class clock of the first poll at which the count reached ``j + 1`` (None: it never did)."""
        return next((t for t, count in self.changes if count >= j + 1), None)


def class_summary(students: list[Student], teacher: Teacher | None, exercise: ExercisePlan, opts,
                  answer_now_s: float | None) -> dict:
    """The class mode's numbers: submissions received against clicks, submit→visible, Reveal→class so far."""
    clicks = sorted(s.clicked_s for s in students if s.clicked_s is not None)
    visible = [teacher.visible_at(j) if teacher else None for j in range(len(clicks))]
    latency = [max(v - c, 0.0) for c, v in zip(clicks, visible) if v is not None]
    return {
        "exercise": exercise.key,
        "privacy": opts.class_privacy,
        "students": len(students),
        "clicked": len(clicks),
        "received": teacher.count if teacher else 0,
        "class_so_far_shown": sum(1 for s in students if s.class_box == "so far"),
        "answer_now_s": answer_now_s,
        "answer_seconds": opts.answer_seconds,
        "clicks_within_s": round(clicks[-1] - clicks[0], 3) if clicks else None,
        "submit_visible_s": stats(latency),
        "not_visible": sum(1 for v in visible if v is None),
        "reveal_class_so_far_s": stats(s.class_so_far_s for s in students),
        "poll_seconds": opts.poll_seconds,
        "polls": teacher.polls if teacher else 0,
        "teacher_errors": list(teacher.errors) if teacher else [],
        "counts": [list(c) for c in teacher.changes] if teacher else [],
        "release": (teacher.exercise_state or {}).get("release") if teacher else None,
    }


# ---- the run -----------------------------------------------------------------------------------------------------


def plan_class(opts) -> list[Student]:
    rng = random.Random(opts.seed)
    arrivals = sorted(rng.uniform(0, opts.arrival_seconds) for _ in range(opts.students))
    browsers = set(rng.sample(range(opts.students), min(opts.browsers, opts.students)))
    students = [Student(i, "browser" if i in browsers else "light", round(t, 3)) for i, t in enumerate(arrivals)]
    if opts.answer:  # drawn after the arrivals and browsers, which stay as they were for a seed
        for st in students:
            st.answer_offset_s = round(rng.uniform(0, opts.answer_seconds), 3)
    return students


def memory_reading(mon: Monitor) -> dict:
    s = mon.status or {}
    return {"status_mb": s.get("memory_mb"), "proc_mb": round(mon.tree_mb, 1) if mon.tree_mb is not None else None,
            "sessions": s.get("sessions"), "kernels": s.get("kernels"), "pool": s.get("pool")}


async def run_class(opts, server: Server, lesson: str, exercise: ExercisePlan | None = None,
                    teacher_view: tuple[str, str] | None = None) -> dict:
    """The class; in class mode (``--answer``) ``exercise`` is the one every student answers and ``teacher_view`` the
    (URL, token) of the teacher's view."""
    from tornado.httpclient import AsyncHTTPClient

    students = plan_class(opts)
    http = AsyncHTTPClient(force_instance=True, max_clients=opts.students + 8)
    mon = Monitor(server, interval=opts.sample_seconds)
    result: dict = {}
    pw = browser = None
    try:
        # Before the class: the ready server, averaged over three readings.
        readings = []
        for _ in range(3):
            await asyncio.sleep(1.0)
            await asyncio.to_thread(mon.sample_proc)
            status = await mon.fetch_status(http)
            if status is None:
                raise RuntimeError("status.json did not answer before the class")
            readings.append((status["memory_mb"], mon.tree_mb))
        before = memory_reading(mon)
        before["status_mb"] = round(sum(r[0] for r in readings) / len(readings), 1)
        before["proc_mb"] = round(sum(r[1] for r in readings) / len(readings), 1)
        result["memory_before"] = before
        result["kernel_mb_estimate"] = mon.status.get("kernel_mb_estimate")
        log(f"before the class: {before['status_mb']:.0f} MB (status.json), {before['proc_mb']:.0f} MB (/proc), "
            f"{before['kernels']} kernels, pool {before['pool']}")

        if any(s.kind == "browser" for s in students):
            from playwright.async_api import async_playwright

            pw = await async_playwright().start()
            browser = await pw.chromium.launch(executable_path=niced_chromium(opts.browser_nice, server.log_dir),
                                               headless=True, args=CHROMIUM_ARGS)
            mon.browser_nice = opts.browser_nice
            await asyncio.to_thread(mon.sample_proc)  # finds Chromium's sessions and lowers them (lower_helpers)
            log(f"Chromium's sessions at autogroup nice {opts.browser_nice}: {len(mon.helper_sessions)}")

        cls = Class(opts, server, lesson, http, browser, mon)
        cls.students = students
        cls.remaining_students = len(students)
        cls.waiting_to_answer = cls.still_answering = len(students)
        teacher = teacher_task = None
        if opts.answer:
            cls.exercise = exercise
            teacher = Teacher(cls, *teacher_view)
            result["teacher"] = teacher
        cls.last_arrival_s = max((s.arrival_s for s in students), default=0.0)
        mon.start(http)
        cls.t0 = time.monotonic()
        cls.deadline = cls.t0 + opts.timeout
        mon.mark_cpu_start()
        log(f"{len(students)} students arriving within {opts.arrival_seconds:g} s "
            f"({sum(s.kind == 'browser' for s in students)} in Chromium)")
        tasks = [asyncio.create_task(browser_student(s, cls) if s.kind == "browser" else light_student(s, cls))
                 for s in students]
        if teacher is not None:
            teacher_task = asyncio.create_task(teacher.run())
        done, pending = await asyncio.wait(tasks, timeout=opts.timeout + 60)
        for t in pending:  # a student stuck past every bound: a bug here; count it as that student's error
            t.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for s, t in zip(students, tasks):
            if t in pending:
                s.error("did not finish within --timeout (cancelled)")
        if teacher_task is not None:
            try:  # it stops once every click is counted, or --answer-timeout after the students were done
                await asyncio.wait_for(teacher_task, opts.answer_timeout + 30)
            except asyncio.TimeoutError:
                teacher.errors.append("the teacher's polling did not stop (cancelled)")
            result["answer_now_s"] = cls.answer_now_s
            log(f"class view: {teacher.count} answers to {exercise.key} counted, "
                f"{sum(s.clicked_s is not None for s in students)} students clicked Reveal; {teacher.polls} polls")
        # Every page of the lesson carries the same widget outputs; a page with fewer was served without some of
        # its cells' outputs (panels missing from the student's page, although they exist in the kernel).
        full = max((s.page_widget_views or 0 for s in students), default=0)
        for s in students:
            if s.page_widget_views is not None and s.page_widget_views < full:
                s.error(f"page served with {s.page_widget_views} of the lesson's {full} widget outputs")
        for s in students:
            if cls.kernel_pss.get(s.kernel_id) is not None:
                s.kernel_pss_mb = round(cls.kernel_pss[s.kernel_id], 1)
        left_at = time.monotonic()
        result["class_s"] = round(left_at - cls.t0, 2)
        result["last_arrival_s"] = cls.last_arrival_s
        result["memory_peak"] = {"status_mb": mon.status_peak["memory_mb"], "proc_mb": round(mon.tree_peak_mb, 1),
                                 "sessions": mon.status_peak["sessions"], "kernels": mon.status_peak["kernels"]}
        log(f"everyone has left after {left_at - cls.t0:.1f} s; waiting for the memory to come back "
            f"(up to {opts.leave_timeout:g} s)")

        # After: no session left, every student kernel process gone, memory within the margin of before.
        student_kids = {s.kernel_id for s in students if s.kernel_id}
        limit = before["status_mb"] * (1 + opts.memory_margin)
        back_after = None
        while time.monotonic() - left_at < opts.leave_timeout:
            await asyncio.sleep(1.0)
            status = mon.status
            alive = [k for k in student_kids if mon.kernel_pid.get(k) in mon.alive]
            if status and status.get("sessions") == 0 and not alive and status["memory_mb"] <= limit:
                back_after = time.monotonic() - left_at
                break
        await asyncio.to_thread(mon.sample_proc)
        await mon.fetch_status(http)
        after = memory_reading(mon)
        after["student_kernels_alive"] = sorted(k for k in student_kids if mon.kernel_pid.get(k) in mon.alive)
        after["returned"] = back_after is not None
        after["return_s"] = round(back_after, 1) if back_after is not None else None
        after["limit_mb"] = round(limit, 1)
        result["memory_after"] = after
        server_cpu, kernels_cpu = mon.cpu_window()
        own_cpu, helpers_cpu = mon.generator_window()
        lag = stats(mon.loop_lag_s)
        await mon.stop()

        for s in students:
            if s.kernel_id:
                s.kernel_pid = mon.kernel_pid.get(s.kernel_id)
                if s.kernel_pid:
                    s.kernel_cpu_s = round(mon.cpu.get(s.kernel_pid, 0.0), 2)
                    s.kernel_rss_mb = round(mon.rss_max.get(s.kernel_pid, 0.0), 1)
        n = max(len(students), 1)
        result["cpu"] = {
            "window_s": round(time.monotonic() - cls.t0, 1),
            "server_cpu_s": round(server_cpu, 2),
            "server_cpu_s_per_session": round(server_cpu / n, 3),
            "all_kernels_cpu_s": round(kernels_cpu, 2),
            "all_kernels_cpu_s_per_session": round(kernels_cpu / n, 3),
            "student_kernel_cpu_s": stats(s.kernel_cpu_s for s in students),
            "student_kernel_rss_mb": stats(s.kernel_rss_mb for s in students),
            "student_kernel_pss_mb": stats(s.kernel_pss_mb for s in students),
            "generator_cpu_s": round(own_cpu, 2),
            "generator_helpers_cpu_s": round(helpers_cpu, 2),
            "generator_loop_lag_s": lag,
            "browser_sessions_lowered": len(mon.helper_sessions),
        }
        result["students"] = students
        return result
    finally:
        await mon.stop()
        if browser is not None:
            await browser.close()
        if pw is not None:
            await pw.stop()
        http.close()


def summarise(opts, lesson: str, server: Server, ready_s: float | None, result: dict) -> dict:
    students: list[Student] = result.get("students", [])
    light = [s for s in students if s.kind == "light"]
    browsers = [s for s in students if s.kind == "browser"]
    rush = [lat for s in students for lat, t in zip(s.slider_figure_s, s.move_started_s)
            if t <= result["last_arrival_s"]]
    errors = [f"student {s.index} ({s.kind}): {e}" for s in students for e in s.errors]
    teacher = result.get("teacher")
    klass = None
    if opts.answer:
        klass = class_summary(students, teacher, result["exercise"], opts, result.get("answer_now_s"))
        errors += [f"the teacher's view: {e}" for e in klass["teacher_errors"]]
    summary = {
        "page_s": stats(s.page_s for s in students),
        "first_figure_s": stats(s.first_figure_s for s in students),
        "first_figure_light_s": stats(s.first_figure_s for s in light),
        "first_figure_browser_s": stats(s.first_figure_s for s in browsers),
        "slider_figure_s": stats(x for s in students for x in s.slider_figure_s),
        "slider_figure_light_s": stats(x for s in light for x in s.slider_figure_s),
        "slider_figure_browser_s": stats(x for s in browsers for x in s.slider_figure_s),
        "slider_figure_during_arrivals_s": stats(rush),
        "slider_kernel_done_s": stats(x for s in light for x in s.slider_done_s),
        "slider_inbound_s": stats(x for s in light for x in s.move_inbound_s),
        "slider_kernel_s": stats(x for s in light for x in s.move_kernel_s),
        "slider_outbound_s": stats(x for s in light for x in s.move_outbound_s),
        # where the slider tail comes from: each panel's own moves (students are spread over the lesson's panels)
        "slider_figure_by_panel_s": {name: stats(x for s in students if (s.panel_name or f"panel {s.panel}") == name
                                                 for x in s.slider_figure_s)
                                     for name in sorted({s.panel_name or f"panel {s.panel}" for s in students
                                                         if s.slider_figure_s})},
        "steps_without_figure": sum(s.steps_without_figure for s in students),
        "errors": {"count": len(errors), "students": sum(1 for s in students if s.errors), "first": errors[:8]},
        "served": sum(1 for s in students if s.kernel_id and s.first_figure_s is not None),
        "moved": sum(1 for s in students if len(s.slider_figure_s) >= opts.moves),
    }
    mode = "classroom" if opts.classroom else "plain"
    targets = []
    for name, tmode, key, limit_s in TIMING_TARGETS:
        if tmode != mode or (key == "slider_figure_s" and not opts.moves):
            continue
        value = summary[key]["p95"]
        targets.append({"name": name, "limit": limit_s, "value": value, "pass": value is not None and value <= limit_s})
    if klass is not None:
        counted = klass["clicked"] == klass["students"] and klass["received"] == klass["clicked"]
        targets.append({"name": "every submission counted", "limit": klass["students"],
                        "value": f"{klass['received']}/{klass['clicked']} clicked ({klass['students']} students)",
                        "pass": counted})
        p95 = klass["submit_visible_s"]["p95"]
        targets.append({"name": f"p95 submit→visible ≤ {SUBMIT_VISIBLE_TARGET_S:g} s",
                        "limit": SUBMIT_VISIBLE_TARGET_S, "value": p95,
                        "pass": p95 is not None and p95 <= SUBMIT_VISIBLE_TARGET_S and not klass["not_visible"]})
    targets.append({"name": "0 errors", "limit": 0, "value": len(errors), "pass": not errors})
    after = result.get("memory_after", {})
    targets.append({"name": f"memory back to baseline (±{opts.memory_margin:.0%}) within 2 min",
                    "limit": MEMORY_BACK_TARGET_S,
                    "value": after.get("return_s"),
                    "pass": bool(after.get("returned")) and after["return_s"] <= MEMORY_BACK_TARGET_S})
    ok = not errors and bool(after.get("returned"))
    if klass is not None:  # a submission lost on the way to the teacher's view fails the run too
        ok = ok and klass["received"] == klass["clicked"]
    return {
        "config": {k: v for k, v in vars(opts).items() if k != "json"},
        "mode": mode,
        "class": klass,
        "lesson": lesson,
        "server": {"url": server.url, "args": server.args[1:], "log": str(server.log_path),
                   "ready_line": server.ready_line, "ready_s": round(ready_s, 1) if ready_s is not None else None},
        "summary": summary,
        "memory": {"before": result.get("memory_before"), "peak": result.get("memory_peak"), "after": after,
                   "margin": opts.memory_margin, "kernel_mb_estimate": result.get("kernel_mb_estimate")},
        "cpu": result.get("cpu"),
        "class_s": result.get("class_s"),
        "targets": targets,
        "ok": ok,
        "students": [asdict(s) for s in students],
    }


def _fmt(x, scale=1.0, digits=2) -> str:
    return "—" if x is None else f"{x * scale:.{digits}f}"


def format_report(rep: dict) -> str:
    s, mem, cpu, cfg = rep["summary"], rep["memory"], rep["cpu"] or {}, rep["config"]
    n = len(rep["students"])
    nb = sum(1 for st in rep["students"] if st["kind"] == "browser")
    klass = rep.get("class")
    lines = [
        f"dpviz load test: {rep['mode']} mode{', class mode (--answer)' if klass else ''}, lesson {rep['lesson']}, "
        f"{n} students ({n - nb} light, {nb} in Chromium), arriving within {cfg['arrival_seconds']:g} s "
        f"(seed {cfg['seed']}), {cfg['moves']} slider moves each",
        f"server: {rep['server']['ready_line']!r} after {_fmt(rep['server']['ready_s'], digits=1)} s; "
        f"shutdown grace {cfg['shutdown_grace']:g} s; log {rep['server']['log']}",
        "",
        f"{'':40}{'n':>5}{'p50':>10}{'p95':>10}{'max':>10}",
    ]

    def row(label, st, scale=1.0, unit="s", digits=2):
        lines.append(f"{label + ' (' + unit + ')':40}{st['n']:>5}{_fmt(st['p50'], scale, digits):>10}"
                     f"{_fmt(st['p95'], scale, digits):>10}{_fmt(st['max'], scale, digits):>10}")

    row("page served", s["page_s"])
    row("first figure", s["first_figure_s"])
    row("  light clients (states received)", s["first_figure_light_s"])
    row("  browsers (figure drawn)", s["first_figure_browser_s"])
    if cfg["moves"] or not klass:  # class mode moves no slider unless --moves says so
        row("slider→figure", s["slider_figure_s"], 1000, "ms", 0)
        row("  while students still arrive", s["slider_figure_during_arrivals_s"], 1000, "ms", 0)
        row("  light clients", s["slider_figure_light_s"], 1000, "ms", 0)
        row("  browsers (figure data changed)", s["slider_figure_browser_s"], 1000, "ms", 0)
        row("  light: kernel done with move", s["slider_kernel_done_s"], 1000, "ms", 0)
    if s.get("slider_kernel_s", {}).get("n"):
        row("  light: sent → kernel busy", s["slider_inbound_s"], 1000, "ms", 0)
        row("  light: busy → figure message made", s["slider_kernel_s"], 1000, "ms", 0)
        row("  light: made → received", s["slider_outbound_s"], 1000, "ms", 0)
    for name, st in (s.get("slider_figure_by_panel_s") or {}).items():
        row(f"  {name}", st, 1000, "ms", 0)
    if klass:
        row("submit→visible on the teacher's view", klass["submit_visible_s"])
        row("Reveal→'your class so far' (kernel)", klass["reveal_class_so_far_s"])
    lines.append(f"served {s['served']}/{n} (kernel + first figure)" + (
        f"; moved a figure {cfg['moves']}× {s['moved']}/{n}; steps that changed no figure: {s['steps_without_figure']}"
        if cfg["moves"] or not klass else ""))
    if klass:
        when = "—" if klass["answer_now_s"] is None else f"{klass['answer_now_s']:.1f}"
        spread = "—" if klass["clicks_within_s"] is None else f"{klass['clicks_within_s']:.1f}"
        lines.append(f"class: {klass['exercise']} ({klass['privacy']} privacy), 'answer now' at {when} s (every "
                     f"student had the lesson open), answers drawn within {klass['answer_seconds']:g} s; the clicks "
                     f"spanned {spread} s")
        lines.append(f"submissions received on the teacher's view: {klass['received']} of {klass['clicked']} clicked "
                     f"({klass['students']} students; 'your class so far' shown to {klass['class_so_far_shown']}); "
                     f"clicks never visible: {klass['not_visible']}")
        lines.append(f"  the teacher's view polled every {klass['poll_seconds']:g} s: {klass['polls']} polls, "
                     f"{len(klass['teacher_errors'])} failed; the j-th click in time order is matched with the first "
                     "poll that counted j + 1 answers (server time per submission not measured apart: Reveal→class "
                     "so far bounds it)")
    e = s["errors"]
    lines.append(f"errors: {e['count']} (students with an error: {e['students']})")
    lines += [f"  {msg}" for msg in e["first"]]
    lines.append("")
    if cpu:
        kc, kr, kp = cpu["student_kernel_cpu_s"], cpu["student_kernel_rss_mb"], cpu["student_kernel_pss_mb"]
        lines.append(f"per session: student kernel CPU p50 {_fmt(kc['p50'])} s (max {_fmt(kc['max'])} s; includes "
                     f"pre-running the lesson), kernel RSS p50 {_fmt(kr['p50'], digits=0)} MB (max "
                     f"{_fmt(kr['max'], digits=0)} MB), PSS p50 {_fmt(kp['p50'], digits=0)} MB (max "
                     f"{_fmt(kp['max'], digits=0)} MB; server's estimate {mem['kernel_mb_estimate']} MB)")
        lines.append(f"  during the class ({cpu['window_s']:.0f} s): server CPU {cpu['server_cpu_s']:.1f} s "
                     f"({cpu['server_cpu_s_per_session']:.2f} s/session), all kernels incl. pool refills "
                     f"{cpu['all_kernels_cpu_s']:.1f} s ({cpu['all_kernels_cpu_s_per_session']:.2f} s/session)")
        if cpu.get("generator_loop_lag_s"):
            lag = cpu["generator_loop_lag_s"]
            lines.append(f"  the load generator on the same cores: its own CPU {cpu['generator_cpu_s']:.1f} s, "
                         f"Chromium and Playwright {cpu['generator_helpers_cpu_s']:.1f} s; its event loop woke late "
                         f"by p50 {_fmt(lag['p50'], 1000, 0)} / p95 {_fmt(lag['p95'], 1000, 0)} / max "
                         f"{_fmt(lag['max'], 1000, 0)} ms (a light client's times include that delay)")
    lines.append(f"{'memory (MB)':40}{'status.json':>12}{'/proc':>10}{'sessions':>10}{'kernels':>9}")
    for label, key in (("before the class", "before"), ("peak", "peak"), ("after everyone left", "after")):
        m = mem.get(key) or {}
        lines.append(f"{label:40}{_fmt(m.get('status_mb'), digits=0):>12}{_fmt(m.get('proc_mb'), digits=0):>10}"
                     f"{str(m.get('sessions', '—')):>10}{str(m.get('kernels', '—')):>9}")
    after = mem.get("after") or {}
    before = mem.get("before") or {}
    if (after.get("kernels") or 0) < (before.get("kernels") or 0):
        lines.append(f"(after: the pool is still refilling, {after['kernels']} of the {before['kernels']} kernels "
                     "there were before the class)")
    if after.get("returned"):
        lines.append(f"memory back within {mem['margin']:.0%} of before ({after['limit_mb']:.0f} MB), no session and "
                     f"no student kernel left, {after['return_s']:.1f} s after everyone left")
    else:
        lines.append(f"memory NOT back within {cfg['leave_timeout']:g} s: "
                     f"limit {_fmt(after.get('limit_mb'), digits=0)} MB, "
                     f"student kernels still alive: {len(after.get('student_kernels_alive') or [])}")
    lines.append("")
    lines.append(f"targets ({rep['mode']} mode):")
    for t in rep["targets"]:
        value = t["value"]
        shown = "—" if value is None else (value if isinstance(value, str) else
                                           f"{value * 1000:.0f} ms" if "ms" in t["name"] else
                                           (str(value) if t["name"] == "0 errors" else f"{value:.2f} s"))
        lines.append(f"  {'PASS' if t['pass'] else 'FAIL'}  {t['name']:48} measured {shown}")
    lines.append("RESULT: " + ("ok" if rep["ok"] else "FAILED (a student had an error, memory did not come back"
                               + (", or a submission was not counted)" if klass else ")")))
    return "\n".join(lines)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--students", type=int, default=30, help="students in the class (default 30)")
    p.add_argument("--browsers", type=int, default=3, help="of which real headless Chromium pages (default 3)")
    p.add_argument("--lesson", default=None,
                   help=f"lesson number or notebook (default 05; {ANSWER_LESSON} with --answer)")
    p.add_argument("--arrival-seconds", type=float, default=10.0,
                   help="students arrive uniformly within this (default 10)")
    p.add_argument("--seed", type=int, default=1, help="seed of arrival times, browser choice and think times")
    p.add_argument("--classroom", action="store_true", help="start the server with --class-size=N --lessons=<lesson>")
    p.add_argument("--class-size", type=int, default=0, help="--class-size for the server (default: --students)")
    p.add_argument("--moves", type=int, default=None, help="slider moves per student (default 5; 0 with --answer)")
    p.add_argument("--think-seconds", type=float, default=1.0, help="mean pause before each move (0.5-1.5x; default 1)")
    p.add_argument("--panel", default="spread", help="panel whose first slider students move: an index, or 'spread' "
                                                     "(student i takes panel i mod n; default)")
    p.add_argument("--timeout", type=float, default=600.0,
                   help="bound on the class: arrival to leaving (s, default 600)")
    p.add_argument("--move-timeout", type=float, default=60.0, help="bound on one slider move (s, default 60)")
    p.add_argument("--start-timeout", type=float, default=900.0,
                   help="bound on the server getting ready (s, default 900)")
    p.add_argument("--leave-timeout", type=float, default=150.0, help="bound on memory coming back (s, default 150)")
    p.add_argument("--shutdown-grace", type=float, default=10.0,
                   help="--shutdown-grace for the server (s, default 10): how long after a student leaves the kernel "
                   "ends (a page has --connect-grace, 120 s by default, to connect)")
    p.add_argument("--memory-margin", type=float, default=0.10,
                   help="memory is back within this fraction (default 0.10)")
    p.add_argument("--sample-seconds", type=float, default=1.0, help="interval of /proc and status.json readings")
    p.add_argument("--browser-nice", type=int, default=19,
                   help="CPU priority (nice) of the Chromium students (default 19: they stand for the students' own "
                   "devices and take only CPU the server leaves; 0: as is)")
    p.add_argument("--beacon", action="store_true", help="light clients also POST Voilà's shutdown beacon on leaving")
    klass = p.add_argument_group("class mode (issue 39.7)")
    klass.add_argument("--answer", action="store_true",
                       help="class mode: the class view on (implies --classroom), every student answers one exercise "
                       "within --answer-seconds, and a teacher polls the teacher's view")
    klass.add_argument("--exercise", default=None, metavar="PANEL",
                       help="the panel class whose first think-then-reveal exercise the class answers (default: the "
                       "first such exercise of the page)")
    klass.add_argument("--answer-seconds", type=float, default=5.0,
                       help="students answer uniformly within this after 'answer now' (default 5)")
    klass.add_argument("--answer-timeout", type=float, default=30.0,
                       help="bound on a Reveal's 'your class so far', and on the teacher's view catching up after the "
                       "students are done (s, default 30)")
    klass.add_argument("--poll-seconds", type=float, default=0.1,
                       help="the teacher polls state.json this often (default 0.1)")
    klass.add_argument("--class-privacy", choices=("local", "central"), default="local",
                       help="--class-privacy for the server (default local)")
    p.add_argument("--server-args", default="", help="extra arguments for dpviz serve (one shell string)")
    p.add_argument("--log-dir", default=None, help="directory for the server's log (default: a new temporary one)")
    p.add_argument("--json", default=None, metavar="PATH", help="write every number and one record per student")
    p.add_argument("--strict", action="store_true", help="exit 1 when a timing target is missed too")
    opts = p.parse_args(argv)
    if opts.lesson is None:
        opts.lesson = ANSWER_LESSON if opts.answer else "07"
    if opts.moves is None:
        opts.moves = 0 if opts.answer else 5
    if opts.answer:
        opts.classroom = True
        if not 0 <= opts.answer_seconds <= 600 or not 0 < opts.answer_timeout <= 600 \
                or not 0.01 <= opts.poll_seconds <= 10:
            p.error("--answer-seconds must be in [0, 600], --answer-timeout in (0, 600], --poll-seconds in "
                    "[0.01, 10]")
    elif opts.exercise:
        p.error("--exercise: only with --answer")
    if not 1 <= opts.students <= 1000:
        p.error("--students must be in [1, 1000]")
    if not 0 <= opts.browsers <= opts.students:
        p.error("--browsers must be in [0, --students]")
    if opts.moves < 0 or opts.arrival_seconds < 0 or opts.timeout <= 0 or opts.leave_timeout < 0:
        p.error("--moves, --arrival-seconds and the timeouts must not be negative")
    if not 0 <= opts.browser_nice <= 19:
        p.error("--browser-nice must be in [0, 19]")
    if opts.panel != "spread" and not opts.panel.isdigit():
        p.error("--panel must be a panel index or 'spread'")
    return opts


def main(argv=None) -> int:
    opts = parse_args(argv)
    lesson = lesson_filename(opts.lesson)
    exercise = plan_exercise(lesson, opts.exercise) if opts.answer else None
    if exercise is not None:
        log(f"the class answers {exercise.key} ({exercise.options} options), {opts.class_privacy} privacy")
    if opts.browsers:
        reason = browser_unavailable()
        if reason:
            log(f"no browser students: {reason}")
            print(f"cannot run {opts.browsers} browser students: {reason} (use --browsers 0)", file=sys.stderr)
            return 2
    log_dir = Path(opts.log_dir) if opts.log_dir else Path(tempfile.mkdtemp(prefix="dpviz-loadtest-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    server = Server(opts, lesson, log_dir)
    log("starting " + " ".join(shlex.quote(a) for a in server.args[1:]))
    try:
        server.start()
        try:
            ready_s = server.wait_ready(opts.start_timeout)
        except RuntimeError as exc:
            print(str(exc), file=sys.stderr)
            return 2
        log(f"{server.ready_line!r} after {ready_s:.1f} s")
        teacher_view = None
        if exercise is not None:
            try:
                teacher_view = server.teacher_address(30)
            except RuntimeError as exc:
                print(str(exc), file=sys.stderr)
                return 2
        try:
            result = asyncio.run(run_class(opts, server, lesson, exercise, teacher_view))
            result["exercise"] = exercise
        except Exception as exc:  # the tool itself failed (e.g. Chromium would not start): no numbers
            print(f"load test aborted: {type(exc).__name__}: {exc}\nserver log: {server.log_path}", file=sys.stderr)
            return 2
    finally:
        server.stop()
    rep = summarise(opts, lesson, server, ready_s, result)
    print(format_report(rep), flush=True)
    if opts.json:
        Path(opts.json).write_text(json.dumps(rep, indent=1, default=str))
        log(f"numbers written to {opts.json}")
    if not rep["ok"]:
        return 1
    if opts.strict and not all(t["pass"] for t in rep["targets"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
