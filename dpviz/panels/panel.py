"""The panel every lesson widget is: declared controls, one render method, figures kept in step.

A panel in full (``docs/develop/panels.md`` walks through it)::

    class NoisyCountPanel(Panel):
        title = "A noisy count"
        controls = {
            "epsilon": Slider("privacy ε", 1.0, 0.1, 4.0, step=0.05),
            "delta": LogSlider("δ", 1e-5, 1e-10, 1e-2, step=0.5, visible=lambda v: v.mechanism == "gaussian"),
            "mechanism": Choice("mechanism", [("Laplace", "laplace"), ("Gaussian", "gaussian")]),
        }

        def render(self, v):
            result = core.noisy_count(v.mechanism, v.epsilon, v.delta)   # the core: one result object
            return View([plots.count_figure(result)], readout=table(...))

* ``render(self, v)`` gets the controls' values as attributes of ``v``. It ``return`` s one :class:`View`, or it is a
  generator that ``yield`` s views (or :class:`Step` s, which carry the progress and draw lazily) that refine the
  figure; the last one is the complete result. A bare ``yield`` inside a long computation is a pause: the kernel
  handles the page's messages there (another panel's slider), and nothing is drawn.
* A ``ValueError`` from the layers below becomes a friendly message in the panel (the figures hidden, never a
  stale figure, never a traceback); any other exception is a bug, still shown as a short message and logged.
* ``__init__`` never renders: the first render happens when the panel is displayed, or at :meth:`Panel.refresh`
  (tests, ``make bench``, the static export).

A streamed render is driven cooperatively on the kernel's event loop, a step at a time with :data:`PAUSE` between
two: between two steps the kernel reads the page's messages, so a newer control change (which closes the stale
generator) or the Stop button (which keeps the last partial figure, with a note) is handled at once, and the next
refinement starts once the partial view has been sent. Outside a running loop (tests, ``make bench``)
:meth:`Panel.wait` steps it. There are no threads: the work between two yields is the unit of cancellation, so a
step should take a fraction of a second.
"""

from __future__ import annotations

import asyncio
import html
import inspect
import logging
import math
import numbers
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import ipywidgets as W
from ipywidgets.widgets.widget_int import ProgressStyle

import dpviz.plots  # noqa: F401  (registers the shared "dpviz" template)
from dpviz.lessons import STATIC_EXPORT_ENV
from dpviz.panels import guard as G
from dpviz.panels.controls import Action, Control, Values, button, html_widget, shared_style
from dpviz.panels.exercises import Exercise
from dpviz.panels.figure import FIGURE_CONFIG, figure_checks, figure_widget, go, sync_figure

__all__ = ["Panel", "View", "Step", "PANEL_REGISTRY", "registered_panels"]

log = logging.getLogger("dpviz.panels")

#: Every concrete Panel subclass, by class name (filled by ``__init_subclass__``); ``make bench`` and the tests
#: use it to find all panels without a hand-kept list.
PANEL_REGISTRY: dict[str, type[Panel]] = {}

#: Seconds between two partial views of a streamed render: the first partial result is drawn at once, later ones
#: that arrive sooner than this after the last one drawn are skipped (their progress still shows), so that steps
#: that come quickly do not cost a figure build and a redraw each; the final view is always drawn.
PARTIAL_INTERVAL = 0.15

#: Seconds the kernel's loop is left to itself between two steps of a streamed render. A message from the page that
#: arrived during a step (another panel's slider) takes ipykernel several turns of the loop to reach its handler
#: (the socket's callback, the shell queue, the dispatch task); a step scheduled for the very next turn would run
#: before each of them, so that message waited three steps, not one. A few milliseconds of idle loop let it through
#: first.
PAUSE = 0.005

#: Seconds between two moves of the progress bar by :meth:`Panel.report_progress`: each move is a message to the
#: page, and a core loop may report dozens of times in a tenth of a second; 20 moves a second look the same.
PROGRESS_INTERVAL = 0.05

_PROBLEM = ("Something went wrong while drawing this figure ({}). Try other settings; the rest of the panel still "
            "works.")


@dataclass
class View:
    """What one render produces: one plotly Figure per figure slot, and an optional HTML readout and hint."""

    figures: Sequence[go.Figure]
    readout: str | None = None
    hint: str | None = None  # soft guidance (legal but unusual values), shown next to the controls

    def __post_init__(self):
        if isinstance(self.figures, (str, bytes)) or not isinstance(self.figures, (list, tuple)) or not all(
                isinstance(f, go.Figure) for f in self.figures):
            raise TypeError(f"figures = {self.figures!r:.80} is not allowed: must be a list of plotly Figures.")
        for name in ("readout", "hint"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} = {getattr(self, name)!r:.80} is not allowed: must be HTML text or None.")


@dataclass
class Step:
    """One stage of a streamed render: ``done`` of ``total`` units of work are finished, and ``draw()`` builds the
    :class:`View` of the work done so far. ``draw`` is called only when the view is shown (a synchronous render
    draws the last step only, the driver skips steps that come too soon). The last step (``done == total``) is the
    complete result; ``unit`` names the work in the partial note ("after 40 of 200 steps")."""

    done: int
    total: int
    draw: Callable[[], View]
    unit: str = "steps"

    def __post_init__(self):
        for name in ("done", "total"):
            x = getattr(self, name)
            if isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < 0:
                raise ValueError(f"{name} = {x!r:.60} is not allowed: must be an integer ≥ 0.")
        if not callable(self.draw):
            raise TypeError(f"draw = {self.draw!r:.60} is not allowed: must be a function () -> View.")
        if not isinstance(self.unit, str):
            raise TypeError(f"unit = {self.unit!r:.60} is not allowed: must be a str.")

    @property
    def final(self) -> bool:
        return self.done >= self.total

    def describe(self) -> str:
        return f"{self.done} of {self.total} {self.unit}"


#: What ``next`` returns once a render's generator is exhausted (a bare ``yield`` gives None: a pause).
_END = object()


def _as_step(item: Any) -> Step | None:
    """A yielded View is a step of unknown progress; None for anything else (a bug in the render)."""
    if isinstance(item, Step):
        return item
    if isinstance(item, View):
        return Step(0, 1, lambda: item, unit="")
    return None


@dataclass
class Timings:
    """Seconds per update (``samples``) and, for streamed updates, to the first figure written (``first``)."""

    samples: list[float] = field(default_factory=list)
    first: list[float] = field(default_factory=list)


@dataclass
class _Job:
    """One streamed update: its generator, what it has drawn so far, and whether it was replaced or stopped."""

    steps: Iterator[Any]
    started: float
    shown: Step | None = None
    pending: Step | None = None  # the last step computed, not drawn yet (too soon after the last partial view)
    drawn_at: float = -math.inf
    cancelled: bool = False
    stopped: bool = False
    finished: bool = False


def _kernel_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop of this thread (a kernel's, inside a message handler), or None (tests, scripts)."""
    if os.environ.get(STATIC_EXPORT_ENV):
        return None
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _after_sent(callback: Callable[[], None], loop: asyncio.AbstractEventLoop) -> None:
    """Run ``callback`` on ``loop``, :data:`PAUSE` after the kernel's IOPub thread has sent what is queued now (a
    partial view on its way to the page before the next refinement holds the interpreter); outside a kernel,
    :data:`PAUSE` from now."""
    kernelbase = sys.modules.get("ipykernel.kernelbase")
    iopub = None
    if kernelbase is not None and kernelbase.Kernel.initialized():
        iopub = getattr(getattr(kernelbase.Kernel.instance(), "iopub_socket", None), "io_thread", None)
    if iopub is None or not hasattr(iopub, "schedule") or not getattr(getattr(iopub, "thread", None), "is_alive",
                                                                          lambda: False)():
        loop.call_later(PAUSE, callback)
        return
    iopub.schedule(lambda: loop.call_soon_threadsafe(loop.call_later, PAUSE, callback))


class Panel:
    """Base class of every lesson panel (see the module docstring)."""

    title: ClassVar[str] = ""
    intro: ClassVar[str] = ""
    #: name → declared control (:mod:`dpviz.panels.controls`)
    controls: ClassVar[dict[str, Control]] = {}
    #: name → declared exercise (:mod:`dpviz.panels.exercises`), shown under the figures
    exercises: ClassVar[dict[str, Exercise]] = {}
    #: name → a button under the figures (:class:`~dpviz.panels.controls.Action`): it acts, then the panel redraws
    actions: ClassVar[dict[str, Action]] = {}
    #: controls fire on release, not while dragging (heavy renders; a streamed render always does)
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
        cls = type(self)
        #: the declared controls, and (below) their widgets, by name: ``panel.controls["sigma"].value = 2.0``
        self.specs: dict[str, Control] = dict(cls.controls)
        self.controls: dict[str, W.Widget] = {name: spec.build() for name, spec in self.specs.items()}
        self._settling = False
        self._settle()  # the controls' rules at the defaults: bounds that follow other controls start right
        wanted = {}
        for name, value in overrides.items():
            if name not in self.specs:
                raise ValueError(f"{name} is not a control of {cls.__name__}: must be one of {sorted(self.specs)}.")
            wanted[name] = self.specs[name].checked(name, cls.__name__, self.controls[name], value)
            self.controls[name].value = wanted[name]
            self._settle()
        for name, value in wanted.items():  # a later override may have moved an earlier one's bound
            if self.controls[name].value != value:
                lo, hi = self.specs[name].limits(self.controls[name])
                raise ValueError(f"{name} = {overrides[name]!r} is not allowed for {cls.__name__} with these "
                                 f"settings: must be in [{lo:g}, {hi:g}].")
        if self.on_release:
            for w in self.controls.values():
                if hasattr(w, "continuous_update"):
                    w.continuous_update = False
        self.exercise_list: list[Exercise] = []
        for name, ex in cls.exercises.items():
            bound = ex.bind(self, name)
            setattr(self, name, bound)
            self.exercise_list.append(bound)
        self.action_buttons: list[W.Button] = []
        for name, action in cls.actions.items():
            b = action.build()
            b.on_click(lambda _b, action=action: self._act(action))
            setattr(self, name, b)
            self.action_buttons.append(b)
        self.status = html_widget(layout=W.Layout(min_height="1.6em"))
        self.status.add_class("dpviz-status")
        self.readout = html_widget()
        self.readout.add_class("dpviz-readout")
        self.hint = html_widget()
        self.note = html_widget()  # "partial result …" / "stopped …" of a streamed update
        self.note.add_class("dpviz-partial-note")
        # Slow panels keep the bar's room (hidden, so the figure does not jump when it appears); others have none.
        self.progress = W.FloatProgress(value=0, min=0, max=1, description="working…",
                                        style=shared_style(ProgressStyle),
                                        layout=W.Layout(visibility="hidden", width="100%", max_width="420px",
                                                        display=None if self.on_release else "none"))
        self.stop_button = button(description="Stop", tooltip="Stop computing and keep the result shown so far",
                                  layout=W.Layout(width="auto", visibility="hidden",
                                                  display=None if self.streams else "none"))
        self.stop_button.on_click(lambda _button: self.stop())
        self._progress_moved = -math.inf
        self.figures: list[go.FigureWidget] = []
        self._figbox = W.Box()
        self.last_error: str | None = None
        self.timings = Timings()
        #: streamed renders: step on the kernel's event loop after the first result (default: inside a kernel)
        self.background: bool | None = None
        self._job: _Job | None = None
        self._rendered = False
        self._busy = False
        for w in self.controls.values():
            w.observe(self.update, names="value")
        self.widget = self._layout()
        self._guard()

    # -- what a panel author writes --------------------------------------------------------------------------
    def render(self, v: Values) -> View | Iterator[View | Step]:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def streams(self) -> bool:
        """True when ``render`` is a generator (a streamed panel)."""
        return inspect.isgeneratorfunction(type(self).render)

    @property
    def on_release(self) -> bool:
        return self.slow or self.streams

    def _act(self, action: Action) -> None:
        """An action's button: do it with the current settings, then draw the panel again."""
        try:
            action.on_click(self, self.values())
        except ValueError as exc:
            self._show_problem(str(exc))
            return
        self.update()

    def revealed(self, name: str) -> bool:
        """Whether the exercise ``name`` has been revealed (for the current settings, or for good if sticky)."""
        return getattr(self, name).revealed

    # -- reading and settling the controls ---------------------------------------------------------------------
    def values(self) -> Values:
        return Values({name: spec.read(self.controls[name]) for name, spec in self.specs.items()})

    def _settle(self) -> Values:
        """Apply the controls' rules (bounds that follow other controls, visibility) and return the values."""
        self._settling = True
        try:
            for _ in range(3):  # a bound moved a value, which may move another bound
                v, moved = self.values(), False
                for name, spec in self.specs.items():
                    w = self.controls[name]
                    for which, rule in spec.rules().items():
                        target = float(rule(v))
                        if abs(float(getattr(w, which)) - (math.log10(target) if hasattr(w, "base") else target)) \
                                > 1e-12:
                            spec.apply_bound(w, which, target)
                            moved = True
                if not moved:
                    break
            v = self.values()
            for name, spec in self.specs.items():
                shown = spec.visible(v) if callable(spec.visible) else spec.visible
                display = None if shown else "none"
                if self.controls[name].layout.display != display:
                    self.controls[name].layout.display = display
            return v
        finally:
            self._settling = False

    def bench_values(self) -> dict[str, list[Any]]:
        """Values ``make bench`` sets for each control: the declaration's ``bench=`` or a sweep of its range."""
        return {name: spec.sweep(widget=self.controls[name]) for name, spec in self.specs.items()}

    # -- the one update path -----------------------------------------------------------------------------------
    def refresh(self) -> Panel:
        """Render now, synchronously and completely (the first render; tests, ``make bench``, static export)."""
        self._render_now(self._settle(), complete=True)
        return self

    def update(self, change: Any = None) -> None:
        """A control changed: render the new settings (a streamed panel in a kernel: its first result now, the
        refinements on the event loop)."""
        if self._settling or self._busy:
            return
        v = self._settle()
        if self._job is not None:
            self._job.cancelled = True
            if hasattr(self._job.steps, "close"):
                self._job.steps.close()
            self._job = None
        background = self.background if self.background is not None else _kernel_loop() is not None
        self._render_now(v, complete=not (self.streams and background and self._rendered))

    def _render_now(self, v: Values, *, complete: bool) -> None:
        t0 = time.perf_counter()
        self._busy = True
        try:
            if not self.streams:
                if self.on_release:
                    self._show_working(True, stop=False)
                self._apply(self.render(v))
                self.timings.samples.append(time.perf_counter() - t0)
            elif complete:
                self._apply(self._last_view(self.render(v)))
                self.timings.samples.append(time.perf_counter() - t0)
            else:
                self._job = _Job(steps=self.render(v), started=t0)
                self._show_working(True)
                self._advance(self._job)
        except ValueError as exc:
            self._show_problem(str(exc))
        except Exception as exc:  # a bug: keep the panel alive, tell the learner plainly, log for developers
            log.exception("dpviz panel %s failed", type(self).__name__)
            self._show_problem(_PROBLEM.format(type(exc).__name__))
        finally:
            self._busy = False
            if not self.streams and self.on_release:
                self._show_working(False)
            self._rendered = True

    def _last_view(self, steps: Iterator[Any]) -> View:
        last = None
        for item in steps:
            if item is None:  # a pause: nothing to draw
                continue
            last = _as_step(item)
            if last is None:
                raise TypeError(f"{type(self).__name__}.render yielded {item!r:.60}: must yield a View or a Step")
            self.report_progress(last.done / max(last.total, 1))
        if last is None:
            raise RuntimeError(f"{type(self).__name__}.render yielded nothing")
        return last.draw()

    # -- the cooperative driver ----------------------------------------------------------------------------------
    def _advance(self, job: _Job) -> None:
        """Compute the job's next step; draw it if it is the first, the last, or the first for a while; then hand
        the loop back (the next step is scheduled) unless the job is over."""
        if job.cancelled or job.finished:
            return
        try:
            item = next(job.steps, _END)
            while item is None and job.shown is None:  # before the first result the learner waits: no pauses
                item = next(job.steps, _END)
            if item is _END:
                self._finish(job)
                return
            if item is None:  # a bare yield: a pause inside a long step, nothing new to draw
                self._schedule(job, sent=False)
                return
            step = _as_step(item)
            if step is None:
                raise TypeError(f"{type(self).__name__}.render yielded {item!r:.60}: must yield a View or a Step")
            if job.shown is not None and not step.final and time.perf_counter() - job.drawn_at < PARTIAL_INTERVAL:
                job.pending = step  # too soon after the last partial view: move the bar, draw it later if last
                self.progress.value = step.done / max(step.total, 1)
            else:
                self._draw(job, step)
        except ValueError as exc:
            self._end(job, str(exc))
            return
        except Exception as exc:  # a bug: shown plainly, logged
            log.exception("dpviz panel %s failed", type(self).__name__)
            self._end(job, _PROBLEM.format(type(exc).__name__))
            return
        self._schedule(job, sent=job.pending is None)

    def _draw(self, job: _Job, step: Step) -> None:
        view = step.draw()
        if job.shown is None:
            self.timings.first.append(time.perf_counter() - job.started)
        self._apply(view)
        job.shown, job.pending, job.drawn_at = step, None, time.perf_counter()
        self.progress.value = step.done / max(step.total, 1)
        if step.unit:
            self.note.value = _note("⏳", f"Partial result, after {step.describe()}: refining… (Stop keeps this "
                                         "one).")
        else:
            self.note.value = _note("⏳", "Partial result: refining… (Stop keeps this one).")

    def _finish(self, job: _Job) -> None:
        """The generator ended: its last step is the complete result (drawn now if it was skipped)."""
        if job.pending is not None:
            self._draw(job, job.pending)
        job.finished = True
        self.note.value = ""
        self._show_working(False)
        if job.shown is None:
            self._end(job, f"{type(self).__name__}.render yielded nothing")
            return
        self.timings.samples.append(time.perf_counter() - job.started)
        if self._job is job:
            self._job = None

    def _schedule(self, job: _Job, *, sent: bool) -> None:
        loop = _kernel_loop()
        if loop is None:
            return  # no loop: wait() steps the job
        if sent:
            _after_sent(lambda: self._advance(job), loop)
        else:
            loop.call_later(PAUSE, self._advance, job)

    def _end(self, job: _Job, problem: str) -> None:
        job.finished = True
        self.note.value = ""
        self._show_working(False)
        self._show_problem(problem)
        if self._job is job:
            self._job = None

    def wait(self, timeout: float | None = None) -> bool:
        """Step the running streamed update to its end (outside a kernel: tests, ``make bench``); True when none is
        left running."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self._job is not None and not self._job.finished and not self._job.cancelled:
            if deadline is not None and time.monotonic() > deadline:
                return False
            self._advance(self._job)
        return True

    def stop(self) -> None:
        """The Stop button: end the running update and keep the partial figure, with a note saying so."""
        job = self._job
        if job is None or job.finished or job.cancelled:
            return
        job.cancelled = job.stopped = True
        if hasattr(job.steps, "close"):
            job.steps.close()
        self._job = None
        self._show_working(False)
        if job.shown is not None:
            text = (f"Stopped after {job.shown.describe()}: the figure shows that partial result. Change a control "
                    "to compute again.")
        else:
            text = ("Stopped before the first result: the figure still shows the previous settings. Change a control "
                    "to compute again.")
        self.note.value = _note("⏹", text)

    def report_progress(self, fraction: float) -> None:
        """Call from a long render (or pass as a core function's ``progress``) to move the progress bar (0..1), at
        most once per :data:`PROGRESS_INTERVAL` (each move is a message to the page)."""
        now = time.perf_counter()
        if now - self._progress_moved < PROGRESS_INTERVAL:
            return
        self._progress_moved = now
        self.progress.value = max(0.0, min(1.0, float(fraction)))

    # -- showing -----------------------------------------------------------------------------------------------
    def _show_working(self, on: bool, *, stop: bool = True) -> None:
        self.progress.layout.visibility = "visible" if on else "hidden"
        if on:
            self.progress.value = 0
        if self.streams:
            self.stop_button.layout.visibility = "visible" if on and stop else "hidden"

    def _apply(self, view: View) -> None:
        if not isinstance(view, View):
            raise TypeError(f"{type(self).__name__}.render returned {view!r:.60}: must return a View")
        figs = list(view.figures)
        if not self.figures:
            self.figures = [figure_widget(f) for f in figs]
            for fw in self.figures:
                G.guard(fw, figure_checks(fw))
            self._figbox.children = tuple(self.figures)
            # One under the other at the full width: plotly's default width (700 px) made a two-figure row wrap on a
            # 1280 px page anyway, leaving each figure half the width, clipped captions, crowded legends.
            self._figbox.layout = W.Layout(display="flex", flex_flow="column")
        else:
            for target, source in zip(self.figures, figs):
                sync_figure(target, source)
        self._figbox.layout.visibility = "visible"
        self.last_error = None
        self.status.value = ""
        if not self.streams or self._job is None:
            self.note.value = ""
        self.readout.value = view.readout or ""
        self.hint.value = f"<span class='dpviz-hint'>💡 {view.hint}</span>" if view.hint else ""
        for ex in self.exercise_list:
            ex.refresh()

    def _show_problem(self, message: str) -> None:
        """A refused setting: say why, and hide the figures, readout and hint, which belong to the previous settings
        (a stale figure under a new setting would teach the wrong picture); the next valid setting shows them."""
        self.last_error = message
        self.status.value = (
            "<div class='dpviz-message' style='color:#8a4b00;background:#fff4e0;border-left:4px solid #E69F00;"
            f"padding:4px 8px'>⚠ {html.escape(message)} <i>(The figure is hidden until the settings are valid.)</i>"
            "</div>")
        self._figbox.layout.visibility = "hidden"
        self.readout.value = ""
        self.hint.value = ""

    def _layout(self) -> W.Widget:
        header = [html_widget(f"<h3 style='margin:0.2em 0'>{html.escape(self.title)}</h3>")] if self.title else []
        if self.intro:
            header.append(html_widget(f"<p style='margin:0.2em 0'>{self.intro}</p>"))
        working = W.HBox([self.progress, self.stop_button], layout=W.Layout(align_items="center")) \
            if self.streams else self.progress
        controls = W.VBox(list(self.controls.values()) + [self.hint, working])
        actions = [W.HBox(self.action_buttons, layout=W.Layout(flex_flow="row wrap"))] if self.action_buttons else []
        box = W.VBox(header + [controls, self.status, self.note, self._figbox, self.readout] + actions
                     + [ex.widget for ex in self.exercise_list])
        box.add_class("dpviz-panel")
        box.add_class(f"dpviz-{type(self).__name__}")  # which panel this is, for the browser test's report
        if self.on_release:  # updates on release (the browser test reports these apart from the drag panels)
            box.add_class("dpviz-slow")
        return box

    def _guard(self) -> None:
        """Every widget of the panel accepts from the browser only what its declaration allows."""
        checks: dict[int, G.Checks] = {id(self.controls[n]): s.client_checks(self.controls[n])
                                       for n, s in self.specs.items()}
        for ex in self.exercise_list:
            checks.update({id(w): c for w, c in ex.client_checks().items()})
        for w in G.descendants(self.widget):
            G.guard(w, checks.get(id(w), {}))

    def _ipython_display_(self):  # shown when a notebook cell evaluates to the panel
        from IPython.display import HTML, display

        if not self._rendered:
            self.refresh()
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

        if not self._rendered:
            self.refresh()
        parts = [f"<h3>{html.escape(self.title)}</h3>"] if self.title else []
        if self.intro:
            parts.append(f"<p>{self.intro}</p>")
        shown = [(getattr(w, "description", "") or name, w.value) for name, w in self.controls.items()
                 if w.layout.display != "none"]
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
        for ex in self.exercise_list:
            parts.append(f"<div class='dpviz-exercise'>{ex.question.value} <i>(answer it in the served lesson)</i>"
                         "</div>")
        return "<div class='dpviz-panel dpviz-static'>" + "".join(parts) + "</div>"


def _static_value(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _note(icon: str, text: str) -> str:
    return (f"<div class='dpviz-progress-note' style='color:#1f4e79;background:#eef6fb;border-left:4px solid #0072B2;"
            f"padding:4px 8px'>{icon} {html.escape(text)}</div>")


def registered_panels(modules: Iterable[str] | None = None) -> dict[str, type[Panel]]:
    """Import every ``dpviz.panels`` lesson module (so their panels register) and return the registry."""
    import importlib
    import pkgutil

    import dpviz.panels as pkg

    names = modules if modules is not None else [m.name for m in pkgutil.iter_modules(pkg.__path__)
                                                 if not m.name.startswith("_") and m.name not in _BASE_MODULES]
    for name in names:
        importlib.import_module(f"dpviz.panels.{name}")
    return dict(PANEL_REGISTRY)


#: The modules of the panel machinery itself (not lessons).
_BASE_MODULES = frozenset({"panel", "controls", "guard", "figure", "exercises", "format", "classfeed"})
