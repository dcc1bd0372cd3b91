"""Slow panels stay live (issue 14, item 3): streamed updates in a worker thread, cancelled by newer changes and by
Stop, errors shown as in a synchronous update.

Every test drives one of the streamed panels with ``background`` set explicitly. Ordering is made
deterministic with a gate around the panel's steps (each step waits until the test lets it through and reports
that it arrived), never with sleeps: the test knows which step a worker is at when it moves a control or presses
Stop. Figures are compared as their plotly JSON (trace uids aside) with what a synchronous update at the same
settings draws.
"""

from __future__ import annotations

import html
import json
import queue
import sys
import threading

import pytest
from _kernels import ipc_connection

import dpviz.mean.robust as robust_module
from dpviz.learning import experiments
from dpviz.panels import _base
from dpviz.panels.auditing import DPSGDPanel
from dpviz.panels.composition import CalibrationPanel, CompositionLabPanel, EpsilonVsCompositionsPanel
from dpviz.panels.few_examples import ThresholdLearnerPanel
from dpviz.panels.learning import HeterogeneityPanel, TrainLivePanel
from dpviz.panels.means import RobustnessPanel

WAIT = 120.0  # seconds: a generous bound for a worker on a loaded 2-core machine (never a timing assertion)

#: panel, settings that keep it quick, the control moved, and two values for it (first, second)
CASES = {
    "TrainLivePanel": (TrainLivePanel, {"n": 100.0, "m": 5.0, "T": 40}, "epsilon", 2.0, 0.5),
    "HeterogeneityPanel": (HeterogeneityPanel, {"n": 100.0}, "heterogeneity", 0.5, 0.8),
    "ThresholdLearnerPanel": (ThresholdLearnerPanel, {"trials": 10, "grid_size": 100}, "epsilon", 2.0, 3.0),
    "RobustnessPanel": (RobustnessPanel, {}, "m", 25, 400),
    "CompositionLabPanel": (CompositionLabPanel, {}, "k", 1000.0, 10000.0),
    "EpsilonVsCompositionsPanel": (EpsilonVsCompositionsPanel, {"max_k": 100.0}, "sigma", 2.0, 8.0),
    "CalibrationPanel": (CalibrationPanel, {"k": 10.0}, "target", 2.0, 3.0),
    "DPSGDPanel": (DPSGDPanel, {}, "steps", 400, 120),
}


@pytest.fixture(autouse=True)
def _fresh_caches():
    """robustness_curve caches whole curves (a cached curve arrives in one step) and heterogeneity_point its points
    (a cached point reports no progress), so each test starts without."""
    robust_module._ROBUSTNESS_CACHE.clear()
    experiments._POINTS.clear()
    yield
    robust_module._ROBUSTNESS_CACHE.clear()
    experiments._POINTS.clear()


def _state(panel) -> str:
    figs = []
    for fig in panel.figures:
        d = json.loads(json.dumps(fig.to_plotly_json(), default=lambda o: o.tolist() if hasattr(o, "tolist")
                                  else str(o), sort_keys=True))
        for trace in d["data"]:
            trace.pop("uid", None)
        figs.append(d)
    return json.dumps({"figures": figs, "readout": panel.readout.value}, sort_keys=True)


def _sync_state(name: str, value) -> str:
    """What today's synchronous update draws: the panel at the case's settings, the control moved to ``value``."""
    cls, settings, control, _, _ = CASES[name]
    ref = cls(**settings)
    ref.background = False
    ref.controls[control].value = value
    assert ref.last_error is None
    return _state(ref)


def _live(name: str):
    cls, settings, _, _, _ = CASES[name]
    panel = cls(**settings)
    panel.background = True
    return panel


class _Recorder:
    """Records every figure write of a panel: the control values of the job that wrote it and the state after."""

    def __init__(self, panel, control: str):
        self.writes: list[tuple[object, str]] = []
        original = panel._apply

        def apply(view):
            original(view)
            job = getattr(panel._local, "job", None)
            self.writes.append((None if job is None else job.values[control], _state(panel)))

        panel._apply = apply


class _Gate:
    """Wraps a panel's steps: each step reports (control value, done) when it arrives, then waits to be let through."""

    def __init__(self, panel, control: str):
        self.arrived: queue.Queue = queue.Queue()
        self.permits = threading.Semaphore(0)
        self.counts: dict[object, int] = {}
        inner = panel._render_steps

        def steps(v):
            for step in inner(v):
                self.counts[v[control]] = self.counts.get(v[control], 0) + 1
                self.arrived.put((v[control], step.done, step.total))
                assert self.permits.acquire(timeout=WAIT), "the test never let this step through"
                yield step

        panel._render_steps = steps

    def next_arrival(self):
        return self.arrived.get(timeout=WAIT)

    def open(self, n: int = 1000) -> None:
        for _ in range(n):
            self.permits.release()


@pytest.mark.parametrize("name", CASES)
def test_a_change_streams_partial_figures_and_ends_on_the_synchronous_one(name):
    _, _, control, value, _ = CASES[name]
    panel = _live(name)
    rec = _Recorder(panel, control)

    panel.controls[control].value = value
    assert panel.wait(WAIT)
    states = [s for _, s in rec.writes]
    assert len(set(states)) > 1, "only one figure state was drawn: nothing streamed"
    assert states[-1] == _sync_state(name, value)  # the last write is exactly the synchronous render
    assert panel.last_error is None and panel.note.value == ""
    assert panel.progress.layout.visibility == "hidden" and panel.stop_button.layout.visibility == "hidden"
    assert len(panel.timings.first) == 1 and panel.timings.first[0] <= panel.timings.samples[-1]


@pytest.mark.parametrize("name", CASES)
def test_partial_views_say_they_are_partial(name):
    _, _, control, value, _ = CASES[name]
    panel = _live(name)
    gate = _Gate(panel, control)
    panel.controls[control].value = value
    _, done, total = gate.next_arrival()
    assert done < total
    gate.open(1)  # the first step is written, then the worker computes the second and waits at the gate
    gate.next_arrival()
    assert "Partial result, after" in panel.note.value and f"{done} of {total}" in panel.note.value
    assert panel.progress.layout.visibility == "visible" and panel.stop_button.layout.visibility == "visible"
    assert done / total - 1e-9 <= panel.progress.value < 1  # at least the step shown (core progress may run ahead)
    gate.open()
    assert panel.wait(WAIT)
    assert panel.note.value == ""


@pytest.mark.parametrize("name", CASES)
def test_a_second_change_cancels_the_first(name):
    _, _, control, first, second = CASES[name]
    panel = _live(name)
    rec = _Recorder(panel, control)
    gate = _Gate(panel, control)

    panel.controls[control].value = first
    assert gate.next_arrival()[0] == first  # the first worker holds its first step, not yet written
    panel.controls[control].value = second  # a newer change while the first is at work
    gate.open()
    assert panel.wait(WAIT)
    written = [v for v, _ in rec.writes]
    assert written and all(v == second for v in written), f"a stale figure was written: {written}"
    assert rec.writes[-1][1] == _sync_state(name, second)
    assert gate.counts.get(first) == 1, "the stale worker went on computing after it was cancelled"
    assert panel.last_error is None and panel.note.value == ""


@pytest.mark.parametrize("name", CASES)
def test_stop_keeps_the_partial_figure_with_a_note(name):
    _, _, control, value, _ = CASES[name]
    panel = _live(name)
    rec = _Recorder(panel, control)
    gate = _Gate(panel, control)

    panel.controls[control].value = value
    _, done, total = gate.next_arrival()
    gate.open(1)
    gate.next_arrival()  # the first partial view is written; the worker waits with its next step
    assert len(rec.writes) == 1
    partial = rec.writes[0][1]
    panel.stop_button.click()
    gate.open()
    assert panel.wait(WAIT)
    assert len(rec.writes) == 1 and _state(panel) == partial  # nothing after Stop
    assert partial != _sync_state(name, value)  # and it is the partial figure, not the final one
    assert "Stopped after" in panel.note.value and f"{done} of {total}" in panel.note.value
    assert panel.progress.layout.visibility == "hidden" and panel.stop_button.layout.visibility == "hidden"
    assert panel.last_error is None
    # a new change computes again, to the end
    panel.controls[control].value = CASES[name][4]
    assert panel.wait(WAIT)
    assert panel.note.value == "" and _state(panel) == _sync_state(name, CASES[name][4])


@pytest.mark.parametrize("kind", ["ValueError", "bug"])
@pytest.mark.parametrize("name", CASES)
def test_errors_in_the_worker_become_the_friendly_message(name, kind):
    _, _, control, value, _ = CASES[name]
    panel = _live(name)
    inner = panel._render_steps

    def failing(v):
        steps = inner(v)
        yield next(steps)  # one partial view, then the computation fails
        if kind == "ValueError":
            raise ValueError("epsilon = -1 is not allowed: must be > 0.")
        raise ZeroDivisionError("a bug")

    panel._render_steps = failing
    panel.controls[control].value = value
    assert panel.wait(WAIT)
    if kind == "ValueError":
        assert panel.last_error == "epsilon = -1 is not allowed: must be > 0."
    else:
        assert panel.last_error.startswith("Something went wrong while drawing this figure (ZeroDivisionError)")
    assert html.escape(panel.last_error) in panel.status.value
    assert "Traceback" not in panel.status.value and "Traceback" not in panel.note.value
    assert panel.note.value == ""
    assert panel.progress.layout.visibility == "hidden" and panel.stop_button.layout.visibility == "hidden"
    # the panel keeps working
    panel._render_steps = inner
    panel.controls[control].value = CASES[name][4]
    assert panel.wait(WAIT)
    assert panel.last_error is None and panel.status.value == ""
    assert _state(panel) == _sync_state(name, CASES[name][4])


@pytest.mark.parametrize("name", CASES)
def test_without_background_an_update_is_synchronous_as_before(name):
    _, _, control, value, _ = CASES[name]
    panel = _live(name)
    panel.background = False
    rec = _Recorder(panel, control)
    renders = len(panel.timings.samples)
    panel.controls[control].value = value  # returns with the figure drawn: no worker, no partial view
    assert panel._job is None
    assert len(rec.writes) == 1 and len(panel.timings.samples) == renders + 1
    assert _state(panel) == _sync_state(name, value)
    assert panel.note.value == "" and panel.stop_button.layout.visibility == "hidden"


@pytest.mark.parametrize("name", CASES)
def test_the_first_render_is_synchronous_and_complete_even_in_a_kernel(name, monkeypatch):
    monkeypatch.setattr(_base, "_kernel_running", lambda: True)
    cls, settings, _, _, _ = CASES[name]
    panel = cls(**settings)
    assert panel.background and panel._job is None and panel.note.value == ""
    ref = cls(**settings)
    assert _state(panel) == _state(ref)


def test_the_stop_button_shows_only_on_streamed_panels():
    from dpviz.panels.composition import GroupPrivacyPanel

    plain = GroupPrivacyPanel()
    assert not plain.streams and plain.stop_button.layout.display == "none"
    streamed = RobustnessPanel()
    assert streamed.streams and streamed.stop_button.layout.display is None


@pytest.mark.parametrize("name", ["ThresholdLearnerPanel", "HeterogeneityPanel"])
def test_a_stale_worker_stops_inside_the_core_loop_at_its_next_progress_report(name):
    """Cancellation reaches into the computation: the core loop's next progress report ends a stale worker (the
    threshold learner reports after every simulated point and draws only after two values of n; the heterogeneity
    panel reports from inside each point's two trainings, so a stale worker no longer finishes its point beside the
    new one, 2026-11-29: the new update's first result took 45 ms instead of ~10 in the kernel)."""
    _, _, control, first, second = CASES[name]
    panel = _live(name)
    calls: list[object] = []
    holding, release = threading.Event(), threading.Event()
    original = panel.report_progress

    def report(fraction):
        value = panel._local.job.values[control]
        calls.append(value)
        if value == first and not holding.is_set():
            holding.set()
            assert release.wait(WAIT)
        original(fraction)

    panel.report_progress = report
    panel.controls[control].value = first
    assert holding.wait(WAIT)  # the first worker is inside its first simulated point's report
    panel.controls[control].value = second
    release.set()
    assert panel.wait(WAIT)
    assert calls.count(first) == 1, f"the stale worker went on simulating: {calls.count(first)} reports"
    assert _state(panel) == _sync_state(name, second)


def _bench_module():
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "run.py"
    spec = importlib.util.spec_from_file_location("bench_run_streaming", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_run_streaming"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_make_bench_times_the_first_partial_result_of_every_streamed_panel():
    run = _bench_module()
    run.import_panels()
    assert sorted(name for name, _ in run._streamed_panels("")) == sorted(CASES)
    firsts, finals, problems = run.bench_streaming(RobustnessPanel)
    assert not problems and firsts and len(firsts) == len(finals)
    assert all(0 < f <= F for f, F in zip(firsts, finals))  # the first figure never comes after the final one


class _Ticker(_base.Panel):
    """A streamed toy: ``n`` steps, ``pause`` seconds apart; each view's title says which step it shows."""

    pause = 0.0

    def _build_controls(self):
        return {"n": _base.slider("steps", 10, 2, 20, 1)}

    def _render_steps(self, v):
        import time

        import plotly.graph_objects as go

        n = int(v["n"])
        for i in range(1, n + 1):
            time.sleep(self.pause)
            yield _base.Step(i, n, lambda i=i: _base.View([go.Figure(layout=dict(title=dict(text=f"step {i}")))]))


@pytest.mark.parametrize(("pause", "drawn"), [(0.0, ["step 1", "step 12"]),
                                              (1.5 * _base.PARTIAL_INTERVAL, [f"step {i}" for i in (1, 2, 3)])])
def test_partial_views_that_come_quickly_are_skipped_but_the_first_and_the_final_are_drawn(pause, drawn):
    """A figure build and a browser redraw per partial step would cost more than the steps when they come fast:
    after the first partial view, one that follows the last drawn sooner than PARTIAL_INTERVAL is skipped (its
    progress still shows); steps that come slower are all drawn."""
    panel = _Ticker()
    panel.background = True
    panel.pause = pause
    titles = []
    original = panel._apply
    panel._apply = lambda view: (titles.append(view.figures[0].layout.title.text), original(view))
    panel.controls["n"].value = 12 if pause == 0.0 else 3
    assert panel.wait(WAIT)
    assert titles == drawn
    assert panel.figures[0].layout.title.text == drawn[-1] and panel.last_error is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="threads have their own nice value on Linux only")
def test_a_worker_refines_at_a_lower_cpu_priority_once_its_first_result_is_drawn():
    """After the first partial view, a worker's own thread drops to REFINE_NICE below the kernel (so that on a shared
    server a refinement yields to other students' first results); the kernel's thread keeps its priority and the
    next update starts again at the kernel's priority."""
    import os

    def nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    class Probe(_Ticker):
        def _render_steps(self, v):
            for step in super()._render_steps(v):
                seen.append((step.done, nice()))  # the generator runs in the worker thread
                yield step

    base = nice()
    if base + _base.REFINE_NICE > 19:
        pytest.fail(f"this test needs a nice value ≤ {19 - _base.REFINE_NICE} to run in, not {base}")
    panel = Probe()
    panel.background = True
    for n in (3, 4):
        seen = []
        panel.controls["n"].value = n
        assert panel.wait(WAIT)
        # step 1 is computed before anything is drawn; step 2 after the first view was drawn
        assert seen == [(1, base)] + [(i, base + _base.REFINE_NICE) for i in range(2, n + 1)]
    assert nice() == base


_SESSION_PROBE = r"""
import json, os, sys
import plotly.graph_objects as go
from dpviz import scheduling
from dpviz.panels import _base

def group():
    return scheduling.autogroup_nice(os.getpid())

class Probe(_base.Panel):
    def _build_controls(self):
        return {"n": _base.slider("steps", 3, 2, 20, 1)}

    def _render_steps(self, v):
        for i in range(1, int(v["n"]) + 1):
            seen.append([i, group()])  # step 1 before anything is drawn; later ones while refining
            yield _base.Step(i, int(v["n"]), lambda i=i: _base.View([go.Figure()]))

seen = []
panel = Probe()
panel.background = True
runs = []
for n in (5, 6):
    seen = []
    panel.controls["n"].value = n
    assert panel.wait(120)
    runs.append([seen, group()])
print(json.dumps({"leader": os.getsid(0) == os.getpid(), "base": group(), "runs": runs}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sessions and autogroups are Linux's")
@pytest.mark.parametrize("own_session", [True, False])
def test_a_kernel_that_is_its_own_session_refines_with_its_session_lowered_and_gets_it_back(own_session):
    """Where the scheduler groups sessions, a worker's thread nice only weighs against its own kernel's threads: a
    kernel (a session of its own) also lowers its session's autogroup while refining, and has it back once the
    refinement ends. A process that does not lead its session (a script in a terminal, this test run) never
    touches the group: it would lower everything else in the terminal's session too."""
    import subprocess

    proc = subprocess.run([sys.executable, "-c", _SESSION_PROBE], capture_output=True, text=True, timeout=300,
                          start_new_session=own_session)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["leader"] is own_session
    base = out["base"]
    if base is None:  # a kernel built without autogroups: nothing to lower, and nothing is attempted
        assert all(g is None for seen, after in out["runs"] for _, g in seen), out
        return
    low = min(19, base + _base.REFINE_NICE) if own_session else base
    for (seen, after), n in zip(out["runs"], (5, 6)):
        assert seen == [[1, base]] + [[i, low] for i in range(2, n + 1)], out
        assert after == base, out


class _StubIOPub:
    """ipykernel's IOPub thread as :func:`_base._wait_until_sent` sees it: ``schedule(f)`` runs ``f`` in the thread,
    after everything scheduled before it, once the test lets the thread go (``release``)."""

    def __init__(self, alive: bool = True) -> None:
        self.ran: list[str] = []
        self.go = threading.Event()
        self.jobs: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self._run, daemon=True)
        if alive:
            self.thread.start()

    def _run(self) -> None:
        self.go.wait(WAIT)
        while True:
            f = self.jobs.get()
            if f is None:
                return
            f()

    def schedule(self, f) -> None:
        self.jobs.put(f)

    def stop(self) -> None:
        self.go.set()
        self.jobs.put(None)


@pytest.fixture
def stub_kernel(monkeypatch):
    """A kernel whose IOPub thread is a :class:`_StubIOPub` (in ``sys.modules`` as ipykernel.kernelbase)."""
    import types

    iopub = _StubIOPub()
    kernel = types.SimpleNamespace(iopub_socket=types.SimpleNamespace(io_thread=iopub))
    stub = types.SimpleNamespace(Kernel=types.SimpleNamespace(initialized=lambda: True, instance=lambda: kernel))
    monkeypatch.setitem(sys.modules, "ipykernel.kernelbase", stub)
    yield iopub
    iopub.stop()


def test_waiting_until_sent_returns_once_the_iopub_thread_ran_what_was_queued_before(stub_kernel):
    """A streamed worker waits until the kernel's IOPub thread has sent the view it drew (sent in that thread, in
    order): the wait ends only after the messages queued before it went out."""
    stub_kernel.schedule(lambda: stub_kernel.ran.append("view"))  # the view's messages, queued by the worker
    done, result = threading.Event(), []
    threading.Thread(target=lambda: (result.append(_base._wait_until_sent(WAIT)), done.set()), daemon=True).start()
    assert not done.wait(0.3) and stub_kernel.ran == []  # the IOPub thread has not run yet: still waiting
    stub_kernel.go.set()
    assert done.wait(WAIT) and stub_kernel.ran == ["view"] and result == [True]


def test_waiting_until_sent_gives_up_after_its_timeout_and_needs_no_kernel(stub_kernel, monkeypatch):
    import time

    start = time.perf_counter()
    assert _base._wait_until_sent(0.2) is False  # the IOPub thread never runs: the worker goes on after the timeout
    assert 0.2 <= time.perf_counter() - start < WAIT
    monkeypatch.delitem(sys.modules, "ipykernel.kernelbase")  # no kernel (a script, the static export)
    start = time.perf_counter()
    assert _base._wait_until_sent(WAIT) is False
    assert time.perf_counter() - start < WAIT


def test_waiting_until_sent_finds_a_real_kernels_iopub_thread():
    """In a real ipykernel the wait reaches the IOPub thread (the stub above mirrors what it looks up)."""
    from jupyter_client import KernelManager

    km = KernelManager(kernel_name="python3", **ipc_connection())
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        outputs = []
        kc.execute_interactive("from dpviz.panels import _base; print(_base._wait_until_sent(30.0))",
                               timeout=120, output_hook=lambda m: outputs.append(m["content"].get("text", "")))
        assert "".join(outputs).strip() == "True"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_a_worker_waits_for_each_partial_view_to_be_sent_before_it_refines_at_a_lower_priority(monkeypatch):
    """Each partial view leaves the kernel before the worker computes the next step, and before it lowers its
    priority: lowered first, the view's own messages would wait behind everything else on the machine."""
    events: list = []
    monkeypatch.setattr(_base, "_wait_until_sent", lambda timeout=_base.SEND_WAIT: events.append("sent"))
    monkeypatch.setattr(_base, "_lower_thread_priority", lambda increment: events.append("lowered"))
    monkeypatch.setattr(_base, "_refinement_started", lambda: events.append("session lowered"))
    monkeypatch.setattr(_base, "_refinement_ended", lambda: events.append("session back"))
    monkeypatch.setattr(_base, "PARTIAL_INTERVAL", 0.0)  # every partial view is drawn

    class Probe(_Ticker):
        def _render_steps(self, v):
            for step in super()._render_steps(v):
                events.append(f"step {step.done}")
                yield step

    panel = Probe()
    panel.background = True
    events.clear()  # the first view, drawn synchronously when the panel is built
    panel.controls["n"].value = 3
    assert panel.wait(WAIT)
    assert events == ["step 1", "sent", "lowered", "session lowered", "step 2", "sent", "step 3", "session back"]


#: The streamed panels whose reference curves are closed forms: (panel, settings, name prefix of those curves).
REFERENCE_CURVES = {
    "HeterogeneityPanel": (HeterogeneityPanel, {"n": 100.0}, "non-private:"),
    "ThresholdLearnerPanel": (ThresholdLearnerPanel, {"trials": 10, "grid_size": 100}, "theory,"),
}


@pytest.mark.parametrize("name", REFERENCE_CURVES)
def test_partial_views_draw_the_reference_curves_of_the_final_view_from_the_first_on(name):
    """A partial view draws the closed-form curves over the final view's whole grid (the simulated points fill in
    along them): the axes stand still while the panel refines, and plotly.js does not refit the margins to new tick
    labels on a learner's first move (heterogeneity, 2026-11-29: its first update 55-60 ms → 27 ms in the page)."""
    cls, settings, prefix = REFERENCE_CURVES[name]
    panel = cls(**settings)
    views = [step.draw() for step in panel._render_steps(panel.values())]
    assert len(views) > 1

    def curves(view):
        (fig,) = view.figures
        ref = {t.name: (list(t.x), list(t.y)) for t in fig.data if t.name.startswith(prefix)}
        sim = {t.name: list(t.x) for t in fig.data if not t.name.startswith(prefix)}
        return ref, sim

    final_ref, final_sim = curves(views[-1])
    assert final_ref and final_sim
    for view in views[:-1]:
        ref, sim = curves(view)
        assert ref == final_ref
        assert sim.keys() == final_sim.keys()
        assert all(0 < len(x) < len(final_sim[k]) and x == final_sim[k][:len(x)] for k, x in sim.items())


def test_yielding_to_the_foreground_waits_only_while_an_update_is_waited_for():
    assert not _base._yield_to_foreground(timeout=WAIT)  # nothing in the foreground: returns at once
    _base._foreground_begin()
    try:
        assert _base._yield_to_foreground(timeout=0.01)  # waited, and gave up after its timeout
        done = threading.Event()
        worker = threading.Thread(target=lambda: (_base._yield_to_foreground(timeout=WAIT), done.set()))
        worker.start()
        with _base._foreground_cond:
            assert _base._foreground_cond.wait_for(lambda: _base._yielding == 1, WAIT)
        assert not done.is_set()
    finally:
        _base._foreground_end()
    worker.join(WAIT)
    assert done.is_set() and _base._yielding == 0 and _base._foreground == 0


def test_updates_a_learner_waits_for_hold_the_foreground_until_their_first_result():
    seen = {}
    sync = CompositionLabPanel(k=10.0)  # any panel: background False renders synchronously in update()
    sync.background = False
    render = sync._render
    sync._render = lambda v: (seen.setdefault("sync", _base._foreground), render(v))[1]
    sync.update()
    streamed = _live("ThresholdLearnerPanel")
    steps = streamed._render_steps

    def spy(v):
        for step in steps(v):
            seen.setdefault("first step", _base._foreground)
            if step.done > 2:  # the second view: the first one was drawn and sent
                seen.setdefault("refining", _base._foreground)
            yield step

    streamed._render_steps = spy
    streamed.controls["epsilon"].value = 2.0
    assert streamed.wait(WAIT)
    assert seen == {"sync": 1, "first step": 1, "refining": 0} and _base._foreground == 0


def test_a_refining_worker_waits_at_its_next_report_while_another_update_is_waited_for(monkeypatch):
    """Another panel's update a learner waits for holds the kernel's GIL for itself: a refinement (which a lower
    CPU priority does not hold back within the kernel) waits at its next progress report until that update is done,
    then finishes exactly as it would have."""
    monkeypatch.setattr(_base, "FOREGROUND_WAIT", WAIT)
    _, _, control, value, _ = CASES["ThresholdLearnerPanel"]
    panel = _live("ThresholdLearnerPanel")
    refining = threading.Event()
    original = panel.report_progress

    def report(fraction):
        if panel._local.job.refining:
            refining.set()
        original(fraction)

    panel.report_progress = report
    _base._foreground_begin()  # as if another panel's update had just started (released at once if the test fails)
    try:
        panel.controls[control].value = value
        with _base._foreground_cond:  # the worker, now past its first result, is held at a report
            assert _base._foreground_cond.wait_for(lambda: _base._yielding == 1, WAIT)
        assert refining.is_set() and not panel.wait(0.2)
    finally:
        _base._foreground_end()
    assert panel.wait(WAIT)
    assert _state(panel) == _sync_state("ThresholdLearnerPanel", value)
