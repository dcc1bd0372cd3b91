"""The old way to write a panel, kept only while lesson modules move to :mod:`dpviz.panels.panel`.

New panels declare their controls and write one ``render`` (see :mod:`dpviz.panels.panel`); this module goes once
no lesson module uses it.

The old pattern: controls + figures built once + one update path.

A panel subclass declares

* ``title`` (and optionally ``intro``, an HTML sentence shown above the controls);
* ``_build_controls(self) -> dict[str, Widget]`` — the controls, by name (use :func:`slider`, :func:`log_slider`,
  :func:`dropdown`, …, whose ranges come from :mod:`dpviz.panels.constants`);
* ``_render(self, v: dict) -> View`` — given *all* control values ``v``, compute with the core numerics, build the
  figures with :mod:`dpviz.plots`, and return them (plus an optional HTML readout).

The base class wires every control to one :meth:`Panel.update`, syncs the returned figures into the
``FigureWidget`` s built once at start-up (inside ``batch_update``, so the browser re-renders once), and catches
``ValueError`` from the layers below: the message is shown in the panel's status line, never a traceback, and the
panel keeps working. Anything else is a bug; it is still shown as a short message (and logged) so a lesson never
breaks in front of a class.

Slow panels may instead implement ``_render_steps(self, v)``, a generator of :class:`Step` s whose views refine the
figure (a few training steps, repetitions or a coarse grid first; the last step is the complete view). Their first
render, and every update with ``background`` off, is synchronous and shows the final view only. In a running kernel
(``background`` on) a control change starts a worker thread instead: the kernel keeps answering the page, each
partial view is written into the figures as it arrives (with a note saying it is partial, the progress bar
following the steps), a newer change cancels the stale worker (checked between steps, and at each progress report
of the computation), and a Stop button ends the work, keeping the last partial figure with a note. Once its first
result is drawn, a worker lowers its thread's CPU priority (:data:`REFINE_NICE`): refinements yield to first results.
:meth:`Panel.wait` waits for the worker (tests, ``make bench``).

Panels are plain Python objects, so tests and ``make bench`` drive them without a browser::

    p = PrivacyLossPanel()
    p.controls["epsilon"].value = 2.0      # triggers p.update()
    p.figures[0].data[0].y                 # the new curve
"""

from __future__ import annotations

import html
import math
import numbers
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterator, Sequence

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go
from ipywidgets.widgets.widget_description import DescriptionStyle  # not re-exported by ipywidgets
from ipywidgets.widgets.widget_int import ProgressStyle

import dpviz.plots  # noqa: F401  (registers the shared "dpviz" template)
from dpviz import scheduling
from dpviz.lessons import STATIC_EXPORT_ENV

__all__ = [
    "Panel",
    "View",
    "Step",
    "ChoiceReveal",
    "PredictReveal",
    "slider",
    "int_slider",
    "log_slider",
    "dropdown",
    "toggle",
    "sync_figure",
    "figure_widget",
    "PANEL_REGISTRY",
]

from dpviz.panels.controls import _STYLE, _control_layout  # noqa: E402
from dpviz.panels.controls import button as _button  # noqa: E402
from dpviz.panels.controls import html_widget as _html  # noqa: E402
from dpviz.panels.controls import number as _number  # noqa: E402
from dpviz.panels.controls import on_grid as _on_grid  # noqa: E402
from dpviz.panels.controls import shared_style as _style  # noqa: E402
from dpviz.panels.figure import (  # noqa: E402,F401  (re-exported for the old importers)
    _FIGURE_MODULE,
    FIGURE_CONFIG,
    MAX_FIGURE_MESSAGE,
    MAX_VIEW_COUNT,
    _rows_as_buffers,
    _shared_bundle_widget_class,
    figure_checks,
    figure_widget,
    sync_figure,
)
from dpviz.panels.guard import descendants as _descendants  # noqa: E402
from dpviz.panels.guard import guard as _guard  # noqa: E402
from dpviz.panels.guard import log  # noqa: E402
from dpviz.panels.panel import PANEL_REGISTRY, Step, View, _note, _static_value  # noqa: E402

#: Seconds between two partial views of a streamed update: the first partial result is drawn at once, later ones
#: that arrive sooner than this after the last one drawn are skipped (their progress still shows), so that steps
#: that come quickly do not cost a figure build and a redraw each; the final view is always drawn.
PARTIAL_INTERVAL = 0.15

#: Seconds between two moves of the progress bar by :meth:`Panel.report_progress`: each move is a message to the
#: browser (and through the server), and a core loop may report dozens of times in a tenth of a second (lesson 05's
#: ε-against-k panel 67 times per update, lesson 10's live training 82); 20 moves a second look the same.
PROGRESS_INTERVAL = 0.05

#: How much a streamed update's worker lowers its CPU priority once its first result is drawn: the refinements then
#: yield the CPU to whatever else is waiting for it, such as other students' first results and pages on a classroom
#: server (lesson 05's slow accountants took ~40 % of a 2-core server during a class). Alone on a laptop nothing
#: else waits and it changes nothing. Two knobs, because the scheduler looks at two: the worker thread's own nice
#: value (against the kernel's other threads, which answer the page) and, in a kernel that is a session of its own,
#: the session's autogroup (against other students' kernels, where the scheduler groups sessions:
#: ``dpviz.scheduling``), given back as soon as the learner changes a control or the last refinement ends. Each
#: update runs in a new thread, which starts at the kernel's own priority again.
REFINE_NICE = 10
_refining = 0  # workers of this process past their first result (the session is lowered while there are any)
_refining_lock = threading.Lock()


def _refinement_started() -> None:
    global _refining
    with _refining_lock:
        _refining += 1
        scheduling.lower_own_session(REFINE_NICE)


def _refinement_ended() -> None:
    global _refining
    with _refining_lock:
        _refining -= 1
        if _refining == 0:
            scheduling.restore_own_session()


#: The longest a refining worker waits, at one report, for the updates a learner is waiting for (seconds): a learner
#: who keeps dragging a slider slows another panel's refinement down, never stops it.
FOREGROUND_WAIT = 0.5
_foreground = 0  # updates in this process whose (first) result a learner is waiting for
_yielding = 0  # refining workers waiting for them (read by the tests)
_foreground_cond = threading.Condition()


def _foreground_begin() -> None:
    """An update a learner waits for has started: a synchronous one, or a streamed one before its first result."""
    global _foreground
    with _foreground_cond:
        _foreground += 1


def _foreground_end() -> None:
    global _foreground
    with _foreground_cond:
        _foreground -= 1
        if _foreground == 0:
            _foreground_cond.notify_all()


def _yield_to_foreground(timeout: float | None = None) -> bool:
    """In a refining worker: wait, holding no lock and not the GIL, while a learner waits for another update of this
    kernel (at most ``timeout`` seconds); True when it waited.

    Lowering the worker's CPU priority does not help against the kernel's own threads: they share one GIL, which
    Python hands over every 5 ms whatever the priorities, so a refinement took about half of the kernel from the
    update a learner had just asked for (lesson 10, 2026-11-29: live training refining while the heterogeneity
    slider moved, 120-220 ms to its first figure in the page against 75-115 ms alone). ``timeout`` defaults to
    :data:`FOREGROUND_WAIT`."""
    global _yielding
    with _foreground_cond:
        if _foreground == 0:
            return False
        _yielding += 1
        _foreground_cond.notify_all()  # (for the tests, which wait for a worker to be here)
        try:
            _foreground_cond.wait_for(lambda: _foreground == 0, FOREGROUND_WAIT if timeout is None else timeout)
        finally:
            _yielding -= 1
        return True


def _lower_thread_priority(increment: int) -> None:
    """Lower the calling thread's CPU priority by ``increment`` nice steps (at most to 19). On Linux a thread has
    its own nice value and may always lower its priority without privilege; elsewhere (or if refused) a no-op."""
    if not sys.platform.startswith("linux"):
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + increment))
    except (OSError, AttributeError):  # a sandbox that refuses it: the update is still correct, only not yielding
        pass


#: How long a streamed update's worker waits, at most, for the kernel to send a view it has just drawn (seconds).
SEND_WAIT = 0.1


def _wait_until_sent(timeout: float = SEND_WAIT) -> bool:
    """Block the calling thread until the kernel's IOPub thread has sent every message queued before this call (at
    most ``timeout`` seconds); outside a kernel, return at once. True when it did wait for the IOPub thread and the
    thread got there in time.

    ipykernel sends every message from its IOPub thread, which needs the GIL for each. A worker that goes straight on
    to its next refinement holds the GIL for most of the next few milliseconds, and the IOPub thread got it back
    only once per switch interval (5 ms) per message: a partial view of five messages reached the page 30–50 ms
    after it was drawn (lesson 05, 2026-11-29; ~10 ms from a panel that computes in the kernel's main thread, which
    waits for the next message meanwhile). Waiting on an event, the worker releases the GIL until the IOPub thread
    has run everything queued before it, in order."""
    kernelbase = sys.modules.get("ipykernel.kernelbase")  # never imported here: no kernel, nothing to wait for
    if kernelbase is None or not kernelbase.Kernel.initialized():
        return False
    iopub = getattr(getattr(kernelbase.Kernel.instance(), "iopub_socket", None), "io_thread", None)
    if iopub is None or not hasattr(iopub, "schedule") or not getattr(iopub, "thread", None) \
            or not iopub.thread.is_alive():
        return False
    sent = threading.Event()
    iopub.schedule(sent.set)
    return sent.wait(timeout)


@dataclass
class _Timing:
    samples: list[float] = field(default_factory=list)
    #: streamed updates only: time from the control change to the first figure written (partial or final)
    first: list[float] = field(default_factory=list)


class _Cancelled(Exception):
    """Raised inside a stale worker (from :meth:`Panel.report_progress`) to stop its computation early."""


@dataclass
class _Job:
    """One background update: its control values, its cancellation token, and what it has drawn so far."""

    values: dict[str, Any]
    started: float
    cancel: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    shown: Step | None = None  # the last step written into the figures
    stopped: bool = False
    refining: bool = False  # past its first result (it then yields to the updates a learner waits for)


def _kernel_running() -> bool:
    """True inside a running IPython kernel (a served lesson, JupyterLab), where updates can run in a worker."""
    if os.environ.get(STATIC_EXPORT_ENV):
        return False
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # an unusual IPython: stay synchronous
        return False
    return shell is not None and getattr(shell, "kernel", None) is not None


# --------------------------------------------------------------------------------------------- controls

def slider(description: str, value: float, min: float, max: float, step: float, *, readout_format: str = ".2f",
           continuous_update: bool = True) -> W.FloatSlider:
    """A float slider with the house style; ``value`` is snapped to the step grid, as the browser would."""
    return W.FloatSlider(value=_on_grid(value, min, step), min=min, max=max, step=step, description=description,
                         readout_format=readout_format, continuous_update=continuous_update,
                         style=_style(W.SliderStyle, **_STYLE), layout=_control_layout())


def int_slider(description: str, value: int, min: int, max: int, step: int = 1, *,
               continuous_update: bool = True) -> W.IntSlider:
    return W.IntSlider(value=int(_on_grid(value, min, step)), min=min, max=max, step=step, description=description,
                       continuous_update=continuous_update, style=_style(W.SliderStyle, **_STYLE),
                       layout=_control_layout())


def log_slider(description: str, value: float, min_exp: float, max_exp: float, *, step: float = 0.1,
               readout_format: str = ".3g", continuous_update: bool = True) -> W.FloatLogSlider:
    """A base-10 log slider for quantities spanning orders of magnitude (δ, n, m, k).

    ``min_exp``/``max_exp`` are exponents: ``log_slider("δ", 1e-5, -10, -1)``. For integer quantities read the
    value with ``round()`` in ``_render``.
    """
    exponent = _on_grid(math.log10(value), min_exp, step)
    return W.FloatLogSlider(value=float(10.0 ** exponent), base=10, min=min_exp, max=max_exp, step=step,
                            description=description, readout_format=readout_format, continuous_update=continuous_update,
                            style=_style(W.SliderStyle, **_STYLE), layout=_control_layout())


def dropdown(description: str, options, value=None) -> W.Dropdown:
    return W.Dropdown(options=options, value=value if value is not None else _first(options),
                      description=description, style=_style(DescriptionStyle, **_STYLE),
                      layout=_control_layout())


def toggle(description: str, options, value=None, *, button_width: str | None = None) -> W.ToggleButtons:
    """Toggle buttons with the house style; ``button_width`` (e.g. ``"auto"``) for labels longer than ipywidgets'
    fixed default width (ipywidgets')."""
    width = {} if button_width is None else {"button_width": button_width}
    return W.ToggleButtons(options=options, value=value if value is not None else _first(options),
                           description=description, style=_style(W.ToggleButtonsStyle, **_STYLE, **width),
                           layout=W.Layout(flex_flow="row wrap", max_width="100%"))


def _first(options):
    opt = list(options.values())[0] if isinstance(options, dict) else list(options)[0]
    return opt[1] if isinstance(opt, tuple) else opt


# --------------------------------------------------------------------------------------------- client input
#
# Widget values arriving over the WebSocket are the panels' real input boundary, and the browser is untrusted: a
# client can send a slider value far outside its range, or rewrite min/max in the same message. Every widget of a
# panel therefore accepts from the browser only the keys a learner can change with the control (a value or a
# selected index), each checked against the bounds declared in Python; anything else is dropped, logged on the
# server, and the browser is sent the kernel's state back. Changes made in Python are unaffected.

_REJECT = object()
_ECHO_RTOL = 1e-12  # a slider echoing its value back with a rounding difference is not a change


def _checked_slider_value(w: W.Widget, v: Any) -> Any:
    x = _number(v)
    if x is None:
        return _REJECT
    if isinstance(w, W.FloatLogSlider):
        lo, hi = float(w.base) ** w.min, float(w.base) ** w.max
    else:
        lo, hi = float(w.min), float(w.max)
    tol = 1e-9 * max(abs(lo), abs(hi), 1e-300)
    if not lo - tol <= x <= hi + tol:
        return _REJECT
    x = min(max(x, lo), hi)
    if isinstance(w, W.IntSlider):
        if abs(x - round(x)) > 1e-9:
            return _REJECT
        return int(round(x))
    if abs(x - float(w.value)) <= _ECHO_RTOL * max(1.0, abs(float(w.value))):
        return w.value  # an echo: keep the kernel's value (and do not render again)
    return x


def _checked_index(w: W.Widget, v: Any) -> Any:
    n = len(w.options)
    if isinstance(v, (list, tuple)):  # multiple selection
        items = [_checked_index(w, i) for i in v]
        return _REJECT if any(i is _REJECT for i in items) or len(set(items)) != len(items) else tuple(items)
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= int(v) < n:
        return _REJECT
    return int(v)


def _client_checks(w: W.Widget) -> dict[str, Callable[[Any], Any]]:
    """The state keys the browser may set on ``w``, each with its check (returns the value to set, or _REJECT)."""
    if isinstance(w, (W.FloatSlider, W.IntSlider, W.FloatLogSlider)):
        return {"value": lambda v: _checked_slider_value(w, v)}
    if isinstance(w, (W.FloatRangeSlider, W.IntRangeSlider)):
        return {}  # not used by dpviz; refused rather than trusted
    if isinstance(w, (W.Dropdown, W.ToggleButtons, W.RadioButtons, W.Select, W.SelectionSlider, W.SelectMultiple)):
        return {"index": lambda v: _checked_index(w, v)}
    if isinstance(w, (W.Checkbox, W.ToggleButton)):
        return {"value": lambda v: v if isinstance(v, bool) else _REJECT}
    if isinstance(w, (W.BoundedFloatText, W.BoundedIntText)):
        return {"value": lambda v: v if _number(v) is not None and w.min <= v <= w.max else _REJECT}
    if isinstance(w, (W.FloatText, W.IntText)):
        # a guess typed into an exercise: any finite number of sensible size
        return {"value": lambda v: v if _number(v) is not None and abs(_number(v)) <= 1e300 else _REJECT}
    if isinstance(w, (W.Text, W.Textarea)):
        return {"value": lambda v: v if isinstance(v, str) and len(v) <= 10_000 else _REJECT}
    if isinstance(w, go.FigureWidget):
        return figure_checks(w)
    return {}  # buttons (clicks arrive as custom messages), labels, layouts: nothing to set from the browser


def _checked_override(panel: str, name: str, w: W.Widget, value: Any) -> Any:
    """An initial value a library user passes as ``Panel(name=value)``, checked as the browser's values are: inside
    the control's declared range or options (a slider would otherwise clamp it silently), else a ValueError."""
    if isinstance(w, (W.FloatSlider, W.IntSlider, W.FloatLogSlider)):
        if isinstance(w, W.FloatLogSlider):
            lo, hi = float(w.base) ** w.min, float(w.base) ** w.max
        else:
            lo, hi = w.min, w.max
        x = _number(value)
        integral = isinstance(w, W.IntSlider)
        if x is None or not lo <= x <= hi or (integral and x != round(x)):
            kind = "an integer" if integral else "a number"
            raise ValueError(f"{name} = {value!r} is not allowed for {panel}: must be {kind} in [{lo:g}, {hi:g}].")
        return int(round(x)) if integral else x
    checks = _client_checks(w)
    if "index" in checks:  # a choice: one of the options' values
        values = list(getattr(w, "_options_values", ()))
        if not any(type(value) is type(v) and value == v for v in values):
            raise ValueError(f"{name} = {value!r} is not allowed for {panel}: must be one of {values}.")
        return value
    if "value" in checks and checks["value"](value) is _REJECT:
        raise ValueError(f"{name} = {value!r} is not allowed for {panel}: not a value its control accepts.")
    return value


def guard_client_input(widget: W.Widget) -> None:
    """Accept from the browser only checked values of the keys a learner can change (see the comment above)."""
    _guard(widget, _client_checks(widget))


# --------------------------------------------------------------------------------------------- panel


class Panel:
    """Base class of every lesson widget panel (see the module docstring for the contract)."""

    title: ClassVar[str] = ""
    intro: ClassVar[str] = ""
    #: Heavy panels set this: controls then fire on release only, and a progress bar shows while rendering.
    slow: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.__name__.startswith("_"):
            other = PANEL_REGISTRY.get(cls.__name__)
            if other is not None and other.__module__ != cls.__module__:
                raise TypeError(f"Panel name {cls.__name__} is used by both {other.__module__} and {cls.__module__}:"
                                " panel class names must be unique (make bench and the tests key panels by name).")
            PANEL_REGISTRY[cls.__name__] = cls

    def __init__(self, **overrides: Any):
        self.controls: dict[str, W.Widget] = self._build_controls()
        for name, value in overrides.items():
            if name not in self.controls:
                raise ValueError(
                    f"{name} is not a control of {type(self).__name__}: must be one of {sorted(self.controls)}."
                )
            self.controls[name].value = _checked_override(type(self).__name__, name, self.controls[name], value)
        self.status = _html(value="", layout=W.Layout(min_height="1.6em"))
        self.status.add_class("dpviz-status")
        self.readout = _html(value="")
        self.readout.add_class("dpviz-readout")
        self.hint = _html(value="")
        # Slow panels keep the bar's room (hidden, so the figure does not jump when it appears); others have none.
        self.progress = W.FloatProgress(value=0, min=0, max=1, description="working…", style=_style(ProgressStyle),
                                        layout=W.Layout(visibility="hidden", width="100%", max_width="420px",
                                                        display=None if self.slow else "none"))
        self._progress_moved = -math.inf  # when report_progress last moved the bar (perf_counter)
        self.figures: list[go.FigureWidget] = []
        self._figbox = W.Box()
        self.last_error: str | None = None
        self.timings = _Timing()
        self._busy = False
        # Streamed panels (those that override _render_steps): after the first render, a control change runs in a
        # worker thread when ``background`` is true, so the kernel keeps answering the page while they compute.
        # Default: only inside a running kernel (tests and make bench set it explicitly).
        self.background: bool = _kernel_running()
        self._started = False
        self._lock = threading.RLock()  # serialises figure writes and the current job
        self._local = threading.local()  # .job: the job a worker thread is running
        self._job: _Job | None = None
        self.note = _html(value="")  # "partial result …" / "stopped …" of a streamed update
        self.note.add_class("dpviz-partial-note")
        self.stop_button = _button(description="Stop", tooltip="Stop computing and keep the result shown so far",
                                   layout=W.Layout(width="auto", visibility="hidden",
                                                   display=None if self.streams else "none"))
        self.stop_button.on_click(lambda _button: self.stop())
        if self.slow:
            for c in self.controls.values():
                if hasattr(c, "continuous_update"):
                    c.continuous_update = False
        self.update()  # the first render is synchronous and complete (notebook execution, static export, tests)
        self._started = True
        for c in self.controls.values():
            c.observe(self.update, names="value")
        self.widget = self._layout()
        for w in _descendants(self.widget):
            guard_client_input(w)

    # -- subclass API ---------------------------------------------------------------------------------------
    def _build_controls(self) -> dict[str, W.Widget]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _render(self, v: dict[str, Any]) -> View:
        """The complete view for ``v``. Streamed panels get it from their last :meth:`_render_steps` step."""
        if not self.streams:  # pragma: no cover - abstract
            raise NotImplementedError
        last = None
        for step in self._render_steps(v):
            last = step
            self.report_progress(step.done / max(step.total, 1))
        if last is None or not last.final:
            raise RuntimeError(f"{type(self).__name__}._render_steps ended before its final step")
        return last.draw()

    def _render_steps(self, v: dict[str, Any]) -> Iterator[Step]:  # pragma: no cover - optional
        """Slow panels may override this instead of :meth:`_render`: yield :class:`Step` s whose views refine the
        figure (a few steps, repetitions or a coarse grid first), the last one (``done == total``) the complete
        view, equal to what a synchronous render shows. Work between two yields is the unit of cancellation."""
        raise NotImplementedError

    @property
    def streams(self) -> bool:
        """True for panels that stream partial results (they override :meth:`_render_steps`)."""
        return type(self)._render_steps is not Panel._render_steps

    def _extra_widgets(self) -> list[W.Widget]:
        """Widgets shown under the figures (e.g. a :class:`PredictReveal`). Override to add."""
        return []

    def bench_values(self) -> dict[str, list[Any]]:
        """Values ``make bench`` sets for each control; default: a sweep across each control's range."""
        return {name: _sweep(c) for name, c in self.controls.items()}

    def refresh(self) -> "Panel":
        """The old base renders in ``__init__``: nothing to do (the new base's first render)."""
        return self

    # -- machinery -------------------------------------------------------------------------------------------
    def values(self) -> dict[str, Any]:
        return {name: c.value for name, c in self.controls.items()}

    def report_progress(self, fraction: float) -> None:
        """Call from a long ``_render`` (or pass as a core function's ``progress``) to move the progress bar (0..1).

        In a worker whose update has gone stale (a newer change, or Stop) it raises instead, which ends the stale
        computation at once, inside the core loop that reports. The bar moves at most once per
        :data:`PROGRESS_INTERVAL` (each move is a message to the page); the staleness check runs on every call. A
        worker past its first result first waits while a learner waits for another update of this kernel
        (:func:`_yield_to_foreground`).
        """
        job = getattr(self._local, "job", None)
        if job is not None and job.refining:
            _yield_to_foreground()  # before the lock: a waiting worker holds nothing
        now = time.perf_counter()
        with self._lock:  # a stale worker never moves the bar of the newer update
            if job is not None and job.cancel.is_set():
                raise _Cancelled
            if now - self._progress_moved < PROGRESS_INTERVAL:
                return  # moved a moment ago (PROGRESS_INTERVAL); the next report or the result will show more
            self._progress_moved = now
            self.progress.value = max(0.0, min(1.0, float(fraction)))

    def update(self, change: Any = None) -> None:
        """The one update path: read all controls, render, sync figures; errors become a friendly message.

        A streamed panel with ``background`` set hands the work to a worker thread (:meth:`_start_job`) and
        returns at once; everything else renders here, synchronously.
        """
        if getattr(self._local, "job", None) is not None:
            return  # a control touched by a worker's own render: not a learner's change
        scheduling.restore_own_session()  # a learner's change: its first result at the kernel's full share
        if self.streams and self.background and self._started:
            self._start_job()
            return
        if self._busy:
            return
        self._busy = True
        _foreground_begin()  # refining workers of other panels wait at their next report
        t0 = time.perf_counter()
        if self.slow:
            self.progress.layout.visibility = "visible"
            self.progress.value = 0
        try:
            view = self._render(self.values())
        except ValueError as exc:
            self._show_problem(str(exc))
        except Exception as exc:  # a bug: keep the panel alive, tell the learner plainly, log for developers
            log.exception("dpviz panel %s failed", type(self).__name__)
            self._show_problem(f"Something went wrong while drawing this figure ({type(exc).__name__}). "
                               "Try other settings; the rest of the panel still works.")
        else:
            with self._lock:
                self.last_error = None
                self.status.value = ""
                self.note.value = ""
                self._apply(view)
        finally:
            _foreground_end()
            self._busy = False
            if self.slow:
                self.progress.layout.visibility = "hidden"
            self.timings.samples.append(time.perf_counter() - t0)

    # -- streamed updates in a worker thread ---------------------------------------------------------------------
    def _start_job(self) -> None:
        """Cancel the running worker (if any) and start one for the current control values."""
        job = _Job(values=self.values(), started=time.perf_counter())
        job.thread = threading.Thread(target=self._work, args=(job,), name=f"dpviz-{type(self).__name__}",
                                      daemon=True)
        with self._lock:
            if self._job is not None:
                self._job.cancel.set()  # under the lock: the stale worker can no longer write a figure
            self._job = job
            self.progress.value = 0
            self._show_working(True)
        job.thread.start()

    def _show_working(self, on: bool) -> None:
        self.progress.layout.visibility = "visible" if on else "hidden"
        self.stop_button.layout.visibility = "visible" if on else "hidden"

    def _work(self, job: _Job) -> None:
        """The worker: draw each step and write it into the figures, unless the job went stale meanwhile."""
        self._local.job = job
        drawn_at = None
        _foreground_begin()  # until its first result is on its way, refining workers wait at their next report
        try:
            for step in self._render_steps(job.values):
                if job.cancel.is_set():
                    return
                if job.refining:
                    _yield_to_foreground()
                if not step.final and drawn_at is not None and time.perf_counter() - drawn_at < PARTIAL_INTERVAL:
                    with self._lock:  # too soon after the last partial view: move the bar, skip this one
                        if not job.cancel.is_set():
                            self.progress.value = step.done / max(step.total, 1)
                    continue
                view = step.draw()  # outside the lock: the figure building is the expensive part
                with self._lock:
                    if job.cancel.is_set():
                        return
                    if job.shown is None:
                        self.timings.first.append(time.perf_counter() - job.started)
                    self.last_error = None
                    self.status.value = ""
                    self._apply(view)
                    first = job.shown is None
                    job.shown = step
                    drawn_at = time.perf_counter()
                    if step.final:
                        self.note.value = ""
                        self._show_working(False)
                        self.timings.samples.append(time.perf_counter() - job.started)
                        return
                    self.progress.value = step.done / max(step.total, 1)
                    self.note.value = _note("⏳", f"Partial result, after {step.describe()}: refining… "
                                                 "(Stop keeps this one).")
                _wait_until_sent()  # the view on its way to the page before the next refinement takes the GIL
                if first:  # the learner sees a result: refine in the background (REFINE_NICE)
                    job.refining = True
                    _foreground_end()
                    _lower_thread_priority(REFINE_NICE)
                    _refinement_started()
            self._end_job(job, None)  # a generator without its final step: a bug, shown plainly
            log.error("dpviz panel %s: _render_steps ended before its final step", type(self).__name__)
        except _Cancelled:
            return
        except ValueError as exc:
            self._end_job(job, str(exc))
        except Exception as exc:  # a bug: keep the panel alive, tell the learner plainly, log for developers
            log.exception("dpviz panel %s failed", type(self).__name__)
            self._end_job(job, f"Something went wrong while drawing this figure ({type(exc).__name__}). "
                               "Try other settings; the rest of the panel still works.")
        finally:
            if job.refining:
                _refinement_ended()
            else:
                _foreground_end()
            self._local.job = None
            job.finished.set()

    def _end_job(self, job: _Job, problem: str | None) -> None:
        with self._lock:
            if job.cancel.is_set():
                return
            self.note.value = ""
            self._show_working(False)
            self._show_problem(problem or "Something went wrong while drawing this figure. Try other settings; "
                                          "the rest of the panel still works.")

    def stop(self) -> None:
        """The Stop button: cancel the running update and keep the partial figure, with a note saying so."""
        with self._lock:
            job = self._job
            if job is None or job.finished.is_set() or job.cancel.is_set():
                return
            job.cancel.set()
            job.stopped = True
            self._show_working(False)
            if job.shown is not None:
                text = (f"Stopped after {job.shown.describe()}: the figure shows that partial result. Change a "
                        "control to compute again.")
            else:
                text = ("Stopped before the first result: the figure still shows the previous settings. Change a "
                        "control to compute again.")
            self.note.value = _note("⏹", text)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the running update (tests, ``make bench``); True when none is left running."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            job = self._job
            if job is None:
                return True
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            if not job.finished.wait(left):
                return False
            if self._job is job:
                return True

    def _apply(self, view: View) -> None:
        figs = list(view.figures)
        if not self.figures:
            self.figures = [figure_widget(f) for f in figs]
            self._figbox.children = tuple(self.figures)
            # One under the other at the full width: plotly's default width (700 px) made a two-figure row wrap
            # on a 1280 px page anyway, leaving each figure half the width, clipped captions, crowded legends.
            self._figbox.layout = W.Layout(display="flex", flex_flow="column")
        else:
            for target, source in zip(self.figures, figs):
                sync_figure(target, source)
        self._figbox.layout.visibility = "visible"
        self.readout.value = view.readout or ""
        self.hint.value = f"<span class='dpviz-hint'>💡 {view.hint}</span>" if view.hint else ""

    def _show_problem(self, message: str) -> None:
        """A refused setting: say why, and hide the figures, readout and hint, which belong to the previous settings
        (a stale figure under a new setting would teach the wrong picture); the next valid setting shows them."""
        self.last_error = message
        self.status.value = (
            "<div class='dpviz-message' style='color:#8a4b00;background:#fff4e0;border-left:4px solid #E69F00;"
            f"padding:4px 8px'>⚠ {html.escape(message)} <i>(The figure is hidden until the settings are valid.)</i>"
            "</div>"
        )
        self._figbox.layout.visibility = "hidden"
        self.readout.value = ""
        self.hint.value = ""

    def _layout(self) -> W.Widget:
        header = [_html(f"<h3 style='margin:0.2em 0'>{html.escape(self.title)}</h3>")] if self.title else []
        if self.intro:
            header.append(_html(f"<p style='margin:0.2em 0'>{self.intro}</p>"))
        working = W.HBox([self.progress, self.stop_button], layout=W.Layout(align_items="center")) \
            if self.streams else self.progress
        controls = W.VBox(list(self.controls.values()) + [self.hint, working])
        box = W.VBox(header + [controls, self.status, self.note, self._figbox, self.readout]
                     + self._extra_widgets())
        box.add_class("dpviz-panel")
        box.add_class(f"dpviz-{type(self).__name__}")  # which panel this is, for the browser test's report
        if self.slow:  # updates on release (the browser test reports these apart from the drag panels)
            box.add_class("dpviz-slow")
        return box

    def _ipython_display_(self):  # shown when a notebook cell evaluates to the panel
        from IPython.display import HTML, display

        if os.environ.get(STATIC_EXPORT_ENV):
            display(HTML(self.static_html()))
        else:
            display(self.widget)

    def static_html(self) -> str:
        """The panel as static HTML (``make export``): title, the settings shown, the figures, the readout.

        Figures are plotly HTML without plotly.js (the exported page carries one copy); exercises show their
        question only, never the answer.
        """
        import plotly.io as pio

        parts = [f"<h3>{html.escape(self.title)}</h3>"] if self.title else []
        if self.intro:
            parts.append(f"<p>{self.intro}</p>")
        shown = [(getattr(c, "description", "") or name, c.value) for name, c in self.controls.items()
                 if c.layout.display != "none" and not isinstance(c, W.Button)]
        settings = "; ".join(f"{html.escape(str(d).rstrip(':'))} = {html.escape(_static_value(v))}" for d, v in shown)
        parts.append("<p class='dpviz-static-settings'><i>A static copy at the default settings"
                     f"{': ' + settings if settings else ''}. Serve the lessons to move the controls.</i></p>")
        if self.last_error:
            parts.append(f"<p>{html.escape(self.last_error)}</p>")
        for fig in self.figures:
            parts.append(pio.to_html(fig.to_dict(), full_html=False, include_plotlyjs=False, config=FIGURE_CONFIG,
                                     validate=False, default_width="100%"))
        if self.readout.value:
            parts.append(f"<div>{self.readout.value}</div>")
        for extra in self._extra_widgets():
            question = getattr(getattr(extra, "children", (None,))[0], "value", "")
            if question:
                parts.append(f"<div class='dpviz-exercise'>{question} <i>(answer it in the served lesson)</i></div>")
        return "<div class='dpviz-panel dpviz-static'>" + "".join(parts) + "</div>"


def _sweep(control: W.Widget, n: int = 12) -> list[Any]:
    if isinstance(control, W.FloatLogSlider):
        exps = np.linspace(control.min, control.max, n)
        return [float(control.base ** e) for e in exps]
    if isinstance(control, (W.FloatSlider, W.IntSlider)):
        vals = np.linspace(control.min, control.max, n)
        if isinstance(control, W.IntSlider):
            return sorted({int(round(x)) for x in vals})
        return [float(x) for x in vals]
    if hasattr(control, "options") and control.options:
        opts = list(control.options)
        return [o[1] if isinstance(o, tuple) else o for o in opts]
    if isinstance(control, (W.Checkbox, W.ToggleButton)):
        return [True, False]
    return []


# --------------------------------------------------------------------------------------------- exercises


class PredictReveal:
    """A predict-then-reveal exercise: the learner commits to a number, then a button reveals the answer.

    Parameters
    ----------
    question : str
        HTML of the question.
    answer : callable
        ``answer() -> float``, evaluated at reveal time (so it can read the panel's current state).
    explain : callable, optional
        ``explain(answer) -> str`` HTML shown with the answer (the reasoning, with its citation).
    rel_tol : float
        Relative error counted as "close".
    unit : str
        Shown after numbers.
    """

    def __init__(self, question: str, answer: Callable[[], float], *, explain: Callable[[float], str] | None = None,
                 rel_tol: float = 0.1, unit: str = "", guess_label: str = "Your guess:"):
        self.answer = answer
        self.explain = explain
        self.rel_tol = rel_tol
        self.unit = unit
        self.question = _html(f"<b>Predict, then reveal.</b> {question}")
        # continuous_update=False: the value arrives when the learner presses Enter (or leaves the box), which
        # commits the guess and reveals, as the button does.
        self.guess = W.FloatText(value=0.0, description=guess_label, style=_style(DescriptionStyle, **_STYLE),
                                 continuous_update=False,
                                 layout=W.Layout(width="260px", max_width="100%"))
        self.button = _button(description="Reveal", button_style="info")
        self.feedback = _html("")
        self.feedback.add_class("dpviz-feedback")
        self.button.on_click(self.reveal)
        self.guess.observe(lambda _change: self.reveal(), names="value")
        self.widget = W.VBox([self.question, W.HBox([self.guess, self.button],
                                                    layout=W.Layout(flex_flow="row wrap")), self.feedback])
        self.widget.add_class("dpviz-exercise")

    def truth(self) -> float:
        return float(self.answer())

    def reveal(self, _button: Any = None) -> str:
        truth = float(self.answer())
        guess = float(self.guess.value)
        if truth == 0:
            close = abs(guess) <= self.rel_tol
            rel = math.inf if guess else 0.0
        else:
            rel = abs(guess - truth) / abs(truth)
            close = rel <= self.rel_tol
        if close:
            verdict = f"✅ Close: you said {guess:.4g}{self.unit}, the answer is {truth:.4g}{self.unit}."
        else:
            direction = "high" if guess > truth else "low"
            pct = f" (off by {rel:.0%})" if math.isfinite(rel) else ""
            verdict = (f"❌ Your guess {guess:.4g}{self.unit} is too {direction}{pct}; "
                       f"the answer is {truth:.4g}{self.unit}.")
        text = verdict + (" " + self.explain(truth) if self.explain else "")
        self.feedback.value = f"<div style='padding:4px 8px;background:#eef6fb'>{text}</div>"
        return text


class ChoiceReveal:
    """A conceptual exercise: the learner picks one statement, then a button reveals whether it holds, and why.

    Made for misconceptions: each option carries its own feedback, so a tempting wrong answer is answered with
    what makes it tempting and why it fails. Nothing is shown before the learner has picked an option and
    pressed Reveal.

    Parameters
    ----------
    question : str
        HTML of the question.
    options : sequence of (label, correct, feedback)
        ``label`` is the option's text (plain text), ``correct`` whether it is a right answer, ``feedback`` the
        HTML shown when the learner reveals with this option picked.
    """

    def __init__(self, question: str, options: Sequence[tuple[str, bool, str]]):
        if len(options) < 2:
            raise ValueError(f"options has {len(options)} entries; a choice needs at least 2")
        if not any(correct for _, correct, _ in options):
            raise ValueError("options: at least one option must be correct")
        self.options = [(str(label), bool(correct), str(feedback)) for label, correct, feedback in options]
        self.question = _html(f"<b>Think, then reveal.</b> {question}")
        self.choice = W.RadioButtons(options=[label for label, _, _ in self.options], value=None,
                                     style=_style(DescriptionStyle),
                                     layout=W.Layout(width="auto", max_width="100%"))
        self.button = _button(description="Reveal", button_style="info")
        self.feedback = _html("")
        self.feedback.add_class("dpviz-feedback")
        self.button.on_click(self.reveal)
        self.choice.observe(self._clear, names="index")
        self.widget = W.VBox([self.question, self.choice, self.button, self.feedback])
        self.widget.add_class("dpviz-exercise")

    def _clear(self, _change: Any = None) -> None:
        self.feedback.value = ""  # a new pick: the previous verdict no longer applies

    def reveal(self, _button: Any = None) -> str:
        index = self.choice.index
        if index is None:
            text = "Pick the statement you believe first, then press Reveal."
        else:
            label, correct, feedback = self.options[index]
            verdict = "✅ Right." if correct else "❌ Not quite."
            text = f"{verdict} {feedback}"
        self.feedback.value = f"<div style='padding:4px 8px;background:#eef6fb'>{text}</div>"
        return text


from dpviz.panels.panel import registered_panels  # noqa: E402,F401
