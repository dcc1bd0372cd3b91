"""The kernels of a class: a pre-heated pool per lesson, a memory budget, an owner per kernel, and an end.

:class:`ClassroomKernelManager` is a mixin for Voilà's pooled kernel manager (the class
``voila.voila_kernel_manager.voila_kernel_manager_factory`` returns; :mod:`dpviz.serve.app` puts the mixin in front
of it). The pool sizes and the kernels' environment are Voilà's own ``kernel_pools_config`` (per notebook
``pool_size`` and ``kernel_env_variables``, and a ``"default"`` entry; :func:`pools_config`). What the mixin adds:

- **a throttled filler** (one :meth:`~ClassroomKernelManager.fill_if_needed` override): Voilà 0.5 starts every
  missing kernel of a pool at once, concurrently, whenever one is taken, so when 30 students arrive together 29
  kernels start at the same moment on two cores and every student waits for all of them. Here a single background
  filler starts kernels ``fill_concurrency`` at a time (one at a time once the class is served), holds back while
  students are arriving or working (once the class is served, a refill waits until no kernel was taken for
  ``refill_quiet`` seconds and the machine's CPU is less than half busy; an empty pool refills even then, and a
  busy machine holds a refill back at most ``refill_max_wait`` seconds, since the busy CPU may not be students at
  all: another program kept at one core must not stop the pools refilling) and says when the pools are full
  (``ready``);
- **a memory budget** (``memory_budget_mb``, for the server and all its kernels): no kernel starts, pooled or on
  demand, when the next one would exceed it (:meth:`~ClassroomKernelManager.can_start_kernel`); the page handler
  then shows "the class is full". Memory is the tree's proportional set size (PSS: a page the fork server shares
  with thirty kernels counts once, where RSS counted it thirty-one times), read with psutil
  (:mod:`dpviz.serve.procs`) in a worker thread at most every :data:`MEMORY_MAX_AGE` seconds; a kernel started
  less than :data:`KERNEL_GROWTH_SECONDS` before a reading counts one more kernel's worth on top of it (it may
  still be growing);
- **owners**: the page request that receives a kernel records the client's token (a cookie), and the channel,
  kernel and shutdown routes accept only that client (:meth:`~ClassroomKernelManager.owner`);
- **an end for every kernel a page received**: shut down ``shutdown_grace`` seconds after its last WebSocket
  closed, or ``connect_grace`` seconds after it was handed out if no page ever connected. Voilà 0.5 never ends a
  kernel whose page has gone: the page's clean-up beacon is refused for want of an ``_xsrf`` token
  (voila-dashboards/voila#1458). Idle kernels are culled by jupyter_server's culler (``cull_idle_timeout``, set
  by the app); pooled kernels are never culled (Voilà).

Kernels run with single-threaded BLAS (:data:`SINGLE_THREAD_ENV`, the pools' ``kernel_env_variables``): thirty
kernels each starting a thread per core only fight over the same two cores.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import math
import os
import time
from collections import deque
from datetime import datetime, timezone
from typing import Any, Callable

from jupyter_core.utils import ensure_async
from traitlets import Float, Int, TraitError, validate
from traitlets.config import LoggingConfigurable

from dpviz.serve import procs

__all__ = ["CLIENT", "HANDED", "SINGLE_THREAD_ENV", "ClassFull", "ClassroomKernelManager", "TooManyKernels",
           "pools_config"]

#: The client token of the request being served (set by the page handler; read when a kernel is handed out).
CLIENT: contextvars.ContextVar[str | None] = contextvars.ContextVar("dpviz_client", default=None)
#: The kernels handed to the request being served (the page handler starts their grace period once served).
HANDED: contextvars.ContextVar[list | None] = contextvars.ContextVar("dpviz_handed", default=None)

#: Memory a kernel is assumed to take before any has been measured (MB).
DEFAULT_KERNEL_MB = 180.0
#: Seconds a memory reading is used for before the next is taken (in a worker thread: PSS costs ~2 ms per kernel).
MEMORY_MAX_AGE = 2.0
#: A kernel started less than this many seconds before a reading began may not have grown to its size yet (it is
#: still executing its lesson): the budget adds one kernel's estimate for each such kernel on top of the reading.
KERNEL_GROWTH_SECONDS = 10.0
#: Busy CPU fraction (all cores) above which a refill waits, once the class is served.
REFILL_MAX_BUSY = 0.5

SINGLE_THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
}


def pools_config(targets: dict[str, int], default: int, env: dict[str, str] | None = None) -> dict[str, dict]:
    """Voilà's ``kernel_pools_config`` for the pool sizes ``targets`` (notebook → kernels kept ready; ``default``
    for any other notebook), every kernel started with ``env`` (default :data:`SINGLE_THREAD_ENV`)."""
    env = dict(SINGLE_THREAD_ENV if env is None else env)
    config = {"default": {"pool_size": int(default), "kernel_env_variables": env}}
    config.update({nb: {"pool_size": int(n), "kernel_env_variables": env} for nb, n in targets.items()})
    return config


class ClassFull(Exception):
    """Starting another kernel would exceed the server's memory budget."""


class TooManyKernels(Exception):
    """This client already holds its limit of live kernels."""


#: trait -> (lowest, highest) allowed, both included; a number must also be finite.
_RANGES = {
    "memory_budget_mb": (0.0, math.inf),
    "shutdown_grace": (1.0, math.inf),
    "connect_grace": (1.0, math.inf),
    "refill_quiet": (0.0, math.inf),
    "refill_max_wait": (0.0, math.inf),
    "max_kernels_per_client": (0, 10_000),
    "fill_concurrency": (1, 10_000),
}


class ClassroomKernelManager(LoggingConfigurable):
    """Mixin for Voilà's pooled kernel manager: throttled filling, a memory budget, owners, and an end for every
    kernel a page received (see the module docstring). Put it in front of Voilà's class:
    ``type("DpvizKernelManager", (ClassroomKernelManager, voila_class), {})``; configure it as
    ``--ClassroomKernelManager.<option>`` (the app's short flags, e.g. ``--shutdown-grace``, name the same)."""

    memory_budget_mb = Float(
        0.0, config=True,
        help="Memory (MB, proportional set size) for the server and its kernels; 0: 80 %% of the memory available "
             "at start.",
    )
    shutdown_grace = Float(60.0, config=True,
                           help="Seconds after a page's last connection closes until its kernel ends.")
    connect_grace = Float(
        120.0, config=True, help="Seconds a served page has to connect to its kernel (a slow device, a busy network) "
                                 "before the kernel ends."
    )
    max_kernels_per_client = Int(4, config=True, help="Live kernels one browser may hold (0: no limit).")
    refill_quiet = Float(3.0, config=True, help="Refill a pool only after no kernel was taken for this many seconds.")
    refill_max_wait = Float(60.0, config=True,
                            help="Seconds a busy machine (CPU more than half busy) may hold a pool's refill back.")
    fill_concurrency = Int(2, config=True, help="Pool kernels started at the same time while pre-heating (refills "
                                                "once the class is served: one at a time).")

    @validate(*_RANGES)
    def _in_range(self, proposal):
        name, value = proposal["trait"].name, proposal["value"]
        low, high = _RANGES[name]
        if not (low <= value <= high) or (isinstance(value, float) and not math.isfinite(value)):
            kind = "an integer" if isinstance(low, int) else "a finite number"
            upper = f" and <= {high}" if math.isfinite(high) else ""
            raise TraitError(f"{name} = {value!r} is not allowed: must be {kind} >= {low}{upper}")
        return value

    def __init__(self, **kwargs):
        self._known: set[str] = set()  # notebooks Voilà or a page has asked a pool for
        self._held_since: float | None = None  # when a busy machine began to hold a refill back
        self._owners: dict[str, str] = {}
        self._handed: dict[str, float] = {}
        self._ever_connected: set[str] = set()
        # kernel id → how to close each page WebSocket open on it (their number is what the lifecycle counts)
        self._open_sockets: dict[str, list[Callable[[], None]]] = {}
        self._end_timers: dict[str, asyncio.TimerHandle] = {}
        self._filling: dict[str, int] = {}
        self._rendered: dict[str, int] = {}
        self._wanted: dict[str, float] = {}
        self._last_take = 0.0
        self._wake: asyncio.Event | None = None
        self._filler: asyncio.Task | None = None
        self._kernel_mb = DEFAULT_KERNEL_MB
        self._memory: tuple[float, float] | None = None  # (when the reading began, MB)
        self._memory_task: asyncio.Task | None = None
        self._starts: deque[float] = deque()  # when each recent kernel start began (monotonic)
        self.ready = False
        self.budget_limited = False  # True when the memory budget held fewer pooled kernels than asked
        self.on_ready = None  # called once, with no argument, when every pool first reaches its target
        super().__init__(**kwargs)
        if self.memory_budget_mb <= 0:  # 80 % of what the machine could give the server and its kernels now
            available = procs.available_memory_mb()
            if available:
                self.memory_budget_mb = 0.8 * (available + procs.tree_memory_mb(proportional=True))
        # Clients may not ask a kernel to shut down over the WebSocket (the restarter would then start a bare
        # kernel and the page would be dead); pages end kernels through the owner-checked shutdown route.
        self.allowed_message_types = [t for t in self.allowed_message_types if t != "shutdown_request"]

    # ---- the pool ------------------------------------------------------------------------------------------

    def fill_if_needed(self, delay=None, notebook_name=None, extra_kernel_env_variables=None, **kwargs):
        """Voilà calls this at start-up and whenever a pooled kernel is taken: wake the one filler instead
        of starting every missing kernel at once."""
        if notebook_name is not None:
            self._known.add(notebook_name)
        self._kick()

    def _pool_config(self, notebook_name: str) -> dict:
        """``notebook_name``'s entry of ``kernel_pools_config`` (its own, else the ``"default"`` one)."""
        default = self.kernel_pools_config.get("default", {})
        return self.kernel_pools_config.get(notebook_name, default)

    def _default_target(self, notebook_name: str) -> int:
        default = self.kernel_pools_config.get("default", {})
        return max(int(self._pool_config(notebook_name).get("pool_size", default.get("pool_size", 1))), 0)

    def _kernel_env(self, notebook_name: str | None) -> dict[str, str]:
        """The environment of a kernel for ``notebook_name``: the server's, with the pool's ``kernel_env_variables``
        on top (they override: Voilà's own filler only adds those missing from the server's environment)."""
        default = self.kernel_pools_config.get("default", {})
        config = self._pool_config(notebook_name) if notebook_name is not None else default
        return {**os.environ, **config.get("kernel_env_variables", default.get("kernel_env_variables", {}))}

    @property
    def pool_targets(self) -> dict[str, int]:
        """Kernels kept ready per notebook (from ``kernel_pools_config``), for every notebook known so far."""
        names = self._known | {nb for nb in self.kernel_pools_config if nb != "default"}
        return {nb: self._default_target(nb) for nb in sorted(names)}

    def _kick(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            from tornado.ioloop import IOLoop

            IOLoop.current().add_callback(self._kick)
            return
        if self._wake is None:
            self._wake = asyncio.Event()
        self._wake.set()
        if self._filler is None or self._filler.done():
            self._filler = loop.create_task(self._fill_forever())

    def pool_counts(self) -> dict[str, int]:
        """Kernels waiting in each pool (started; the lesson may still be executing in them)."""
        return {nb: len(self._pools.get(nb, [])) for nb in self.pool_targets}

    def ready_counts(self) -> dict[str, int]:
        """Kernels in each pool whose lesson has finished executing (a student gets it drawn at once)."""
        out = {}
        for nb in self.pool_targets:
            n = 0
            for task in self._pools.get(nb, []):
                if task.done() and not task.cancelled() and task.exception() is None:
                    if task.result()["task"].done():
                        n += 1
            out[nb] = n
        return out

    def warming(self, notebook_name: str) -> bool:
        """True while the server is still preparing its pools and ``notebook_name``'s pool has a kernel on the
        way but none ready yet: a page asked for now waits for that kernel (and is told so) instead of
        starting one more kernel that would compete with the pool for the CPU."""
        if self.ready or self._default_target(notebook_name) <= 0:
            return False
        if self.ready_counts().get(notebook_name, 0) > 0:
            return False
        return len(self._pools.get(notebook_name, [])) > 0 or self._filling.get(notebook_name, 0) > 0 or \
            self.can_start_kernel()

    def wanted(self, notebook_name: str) -> None:
        """A student is waiting for ``notebook_name``: its pool fills before the others."""
        self._wanted[notebook_name] = time.monotonic()
        self._known.add(notebook_name)
        self._kick()

    def _deficits(self) -> list[tuple[str, int]]:
        need = []
        targets = self.pool_targets
        for nb, target in targets.items():
            missing = target - len(self._pools.get(nb, [])) - self._filling.get(nb, 0)
            if missing > 0:
                need.append((nb, missing))
        # A pool a student is waiting for first (while warming), then the emptiest pool (relative to its
        # target), then by name for a stable order.
        need.sort(key=lambda item: (item[0] not in self._wanted or bool(self._pools.get(item[0])),
                                    len(self._pools.get(item[0], [])) / max(targets[item[0]], 1),
                                    item[0]))
        return need

    async def _fill_forever(self) -> None:
        meter = procs.CpuMeter()
        while True:
            self._wake.clear()
            started = False
            busy = sum(self._filling.values())
            # Students moving sliders come first: once the class is served, a pool that still has kernels
            # refills only while the machine has CPU to spare (refilling runs a whole lesson per kernel).
            # Averaged over the last refill_quiet seconds (at least 5 s): one quiet half second in the middle
            # of a rush is not calm.
            machine_busy = meter.busy_over(max(self.refill_quiet, 5.0))
            students_busy = machine_busy is not None and machine_busy > REFILL_MAX_BUSY
            # ... but not for ever: the busy CPU may be another program, not students. A refill held back
            # refill_max_wait seconds starts anyway.
            now = time.monotonic()
            if not students_busy:
                self._held_since = None
            elif self._held_since is None:
                self._held_since = now
            hold = students_busy and now - self._held_since < self.refill_max_wait
            rush = self.ready and (now - self._last_take < self.refill_quiet or hold)
            # Once the class is served, refills run one kernel at a time (each runs a whole lesson: two at once
            # took both cores from the students at work), and in a rush only an empty pool refills.
            limit = 1 if self.ready else self.fill_concurrency
            for nb, _missing in self._deficits():
                if busy >= limit:
                    break
                pool_empty = len(self._pools.get(nb, [])) == 0
                if rush and not pool_empty:
                    continue  # students are arriving or working: serve them first, refill when it calms down
                if not self.can_start_kernel():
                    break
                self._filling[nb] = self._filling.get(nb, 0) + 1
                busy += 1
                started = True
                self._held_since = None  # the next refill waits its turn again
                asyncio.get_running_loop().create_task(self._fill_one(nb))
            if not self.ready and sum(self._filling.values()) == 0:
                if not self._deficits():
                    self._mark_ready_when_rendered()
                elif not self.can_start_kernel():
                    # The budget holds fewer kernels than the class needs: ready with what fits; the
                    # remaining students get kernels on demand as memory frees up.
                    self.budget_limited = True
                    self._mark_ready_when_rendered(force=True)
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=0.5 if (started or self._deficits()) else 5.0)
            except asyncio.TimeoutError:
                pass

    def _mark_ready_when_rendered(self, force: bool = False) -> None:
        counts = self.ready_counts()
        if force or all(counts.get(nb, 0) >= t for nb, t in self.pool_targets.items()):
            self.ready = True
            callback, self.on_ready = self.on_ready, None
            if callback is not None:
                callback()

    async def _fill_one(self, notebook_name: str) -> None:
        try:
            env = self._kernel_env(notebook_name)
            from voila.utils import ENV_VARIABLE

            env[ENV_VARIABLE.VOILA_BASE_URL] = self.parent.base_url
            env[ENV_VARIABLE.VOILA_SERVER_URL] = self.parent.server_url
            env[ENV_VARIABLE.VOILA_APP_PORT] = str(self.parent.port)
            env[ENV_VARIABLE.VOILA_PREHEAT] = "True"
            task = asyncio.get_running_loop().create_task(
                self._initialize(notebook_name, None, path=os.path.dirname(notebook_name), env=env)
            )
            self._pools.setdefault(notebook_name, []).append(task)
            content = await task
            self._watch_pooled(notebook_name, task, content["kernel_id"])
            try:
                await content["task"]  # the lesson executing in the new kernel
            except Exception:  # a failed pre-render is Voilà's to report when the page is served
                self.log.exception("pre-rendering %s failed", notebook_name)
            await self._measure_kernel(content["kernel_id"])
        except Exception:
            self.log.exception("could not start a pooled kernel for %s", notebook_name)
            await asyncio.sleep(2.0)  # do not spin on a failing start
        finally:
            self._filling[notebook_name] -= 1
            self._kick()

    def _watch_pooled(self, notebook_name: str, entry: asyncio.Task, kernel_id: str) -> None:
        """A pooled kernel that ends (killed, out of memory, crashed) leaves the pool at once. jupyter_server's
        restarter would start a bare kernel under the same id, without the lesson the page was rendered from,
        and the pool would hand that dead page to the next student."""
        try:
            km = self.get_kernel(kernel_id)
        except KeyError:
            return
        ended = functools.partial(self._pooled_kernel_ended, notebook_name, entry, kernel_id)
        km.add_restart_callback(ended, "restart")
        km.add_restart_callback(ended, "dead")

    def _pooled_kernel_ended(self, notebook_name: str, entry: asyncio.Task, kernel_id: str) -> None:
        pool = self._pools.get(notebook_name, [])
        if entry not in pool:
            return  # already a student's: its page has lost its kernel, as with any kernel that ends
        pool.remove(entry)
        self.log.warning("a pre-heated kernel for %s ended (%s): it leaves the pool and another is started",
                         notebook_name, kernel_id)
        self._schedule_end(kernel_id, 0.0)
        self._kick()

    async def get_rendered_notebook(self, notebook_name: str, extra_kernel_env_variables=None, **kwargs):
        result = await super().get_rendered_notebook(
            notebook_name, extra_kernel_env_variables=extra_kernel_env_variables or {}, **kwargs
        )
        self._last_take = time.monotonic()
        self._hand_out(result[2])
        return result

    def can_use_pool(self, notebook_name: str) -> bool:
        return len(self._pools.get(notebook_name, [])) > 0

    # ---- memory budget ---------------------------------------------------------------------------------------

    def memory_mb(self) -> float:
        """The memory the budget counts (MB): the latest reading of the server and its kernels (PSS), plus one
        kernel's estimate for each kernel started less than :data:`KERNEL_GROWTH_SECONDS` before that reading
        began. Never waits for /proc: a reading older than :data:`MEMORY_MAX_AGE` starts the next one in a worker
        thread and is used meanwhile (only the very first reading, of the server alone, is taken here)."""
        reading = self._memory
        if reading is None:
            reading = self._memory = (time.monotonic(), procs.tree_memory_mb(proportional=True))
        elif time.monotonic() - reading[0] > MEMORY_MAX_AGE:
            self._refresh_memory()
        began = reading[0] - KERNEL_GROWTH_SECONDS
        while self._starts and self._starts[0] < began - 60.0:
            self._starts.popleft()
        growing = sum(1 for t in self._starts if t >= began)
        return reading[1] + growing * self._kernel_mb

    def measured_memory_mb(self) -> float:
        """The latest reading alone (MB), as the status page shows it."""
        if self._memory is None:
            self.memory_mb()
        return self._memory[1]

    def _refresh_memory(self) -> asyncio.Task | None:
        """Start a reading in a worker thread unless one is running; the running one (None outside a loop)."""
        if self._memory_task is not None and not self._memory_task.done():
            return self._memory_task
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None

        async def read() -> None:
            began = time.monotonic()
            mb = await loop.run_in_executor(None, lambda: procs.tree_memory_mb(proportional=True))
            if self._memory is None or began >= self._memory[0]:
                self._memory = (began, mb)

        self._memory_task = loop.create_task(read())
        return self._memory_task

    async def fresh_memory_mb(self, max_age: float = MEMORY_MAX_AGE) -> float:
        """A reading at most ``max_age`` seconds old (MB), waiting for one in a worker thread if needed."""
        if self._memory is None or time.monotonic() - self._memory[0] > max_age:
            task = self._refresh_memory()
            if task is not None:
                await task
        return self.measured_memory_mb()

    async def _measure_kernel(self, kernel_id: str) -> None:
        pid = self._kernel_pid(kernel_id)
        if not pid:
            return
        loop = asyncio.get_running_loop()
        reading = await loop.run_in_executor(None, procs.memory_mb, pid)
        if reading is not None:
            mb = reading["pss"]
            # A running estimate of what one more kernel costs, leaning to the larger readings.
            self._kernel_mb = max(0.8 * self._kernel_mb + 0.2 * mb, mb * 0.9)

    def _kernel_pid(self, kernel_id: str) -> int | None:
        try:
            km = self.get_kernel(kernel_id)
        except KeyError:
            return None
        provisioner = getattr(km, "provisioner", None)
        return getattr(provisioner, "pid", None) or getattr(getattr(provisioner, "process", None), "pid", None)

    def can_start_kernel(self) -> bool:
        if self.memory_budget_mb <= 0:
            return True
        return self.memory_mb() + self._kernel_mb <= self.memory_budget_mb

    # ---- owners and lifecycle ----------------------------------------------------------------------------

    async def start_kernel(self, *args, **kwargs) -> str:
        """On-demand kernels (the pool was empty): checked against the budget, owned, and given an end."""
        client = CLIENT.get()
        if client is not None and not self.can_start_kernel():
            raise ClassFull()
        env = self._kernel_env(None)
        env.update(kwargs.pop("env", None) or {})
        self._starts.append(time.monotonic())
        kernel_id = await ensure_async(super().start_kernel(*args, env=env, **kwargs))
        if client is not None:
            self._hand_out(kernel_id)
        return kernel_id

    def check_client_limit(self, client: str) -> None:
        """Before a page request takes a kernel: end this client's kernels whose pages are gone, then refuse
        if it still holds ``max_kernels_per_client``."""
        mine = [k for k, c in self._owners.items() if c == client]
        for kid in mine:
            if kid in self._ever_connected and not self._open_sockets.get(kid):
                self._schedule_end(kid, 0.0)
        live = [k for k in mine if not (k in self._ever_connected and not self._open_sockets.get(k))]
        if self.max_kernels_per_client > 0 and len(live) >= self.max_kernels_per_client:
            raise TooManyKernels()

    def _hand_out(self, kernel_id: str) -> None:
        client = CLIENT.get()
        if client is not None:
            self._owners[kernel_id] = client
        self._handed[kernel_id] = time.monotonic()
        # A pooled kernel's idle time counts from when a student received it, not from when its lesson finished
        # executing: one that waited in the pool longer than --cull-idle (a server started well before class)
        # was otherwise culled by the next cull pass, before its page had connected.
        try:
            self.get_kernel(kernel_id).last_activity = datetime.now(timezone.utc)
        except KeyError:
            pass
        handed = HANDED.get()
        if handed is not None:
            handed.append(kernel_id)
        else:
            self.page_served(kernel_id)

    def page_served(self, kernel_id: str) -> None:
        """The page holding ``kernel_id`` was sent: if it never connects (a bare GET, a tab closed while
        loading), the kernel ends after ``connect_grace`` (a slow device may need tens of seconds to load the
        page's scripts before it connects)."""
        if not self._open_sockets.get(kernel_id):
            self._schedule_end(kernel_id, self.connect_grace)

    def owner(self, kernel_id: str) -> str | None:
        return self._owners.get(kernel_id)

    def is_pooled(self, kernel_id: str) -> bool:
        for pool in self._pools.values():
            for task in pool:
                if task.done() and not task.cancelled() and task.exception() is None:
                    if task.result().get("kernel_id") == kernel_id:
                        return True
        return False

    def socket_opened(self, kernel_id: str, close: Callable[[], None]) -> None:
        """A page's WebSocket to ``kernel_id`` opened; ``close`` closes it (called when the kernel is shut down
        under the open page, e.g. culled after a long pause: the page then learns it, see the page template)."""
        self._ever_connected.add(kernel_id)
        self._open_sockets.setdefault(kernel_id, []).append(close)
        timer = self._end_timers.pop(kernel_id, None)
        if timer is not None:
            timer.cancel()

    def socket_closed(self, kernel_id: str, close: Callable[[], None]) -> None:
        open_ = self._open_sockets.get(kernel_id, [])
        if close in open_:
            open_.remove(close)
        if open_:
            return
        self._open_sockets.pop(kernel_id, None)
        if kernel_id in self:  # not closed because its kernel was shut down
            self._schedule_end(kernel_id, self.shutdown_grace)

    def _schedule_end(self, kernel_id: str, delay: float) -> None:
        timer = self._end_timers.pop(kernel_id, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_event_loop()
        self._end_timers[kernel_id] = loop.call_later(
            max(delay, 0.0), lambda: loop.create_task(self._end_if_unused(kernel_id))
        )

    async def _end_if_unused(self, kernel_id: str) -> None:
        self._end_timers.pop(kernel_id, None)
        if self._open_sockets.get(kernel_id) or kernel_id not in self:
            return
        self.log.info("Page of kernel %s is gone: shutting it down", kernel_id)
        try:
            await ensure_async(self.shutdown_kernel(kernel_id, now=True))
        except Exception:  # already gone
            self.log.debug("kernel %s was already gone", kernel_id, exc_info=True)

    async def shutdown_kernel(self, kernel_id: str, *args, **kwargs):
        timer = self._end_timers.pop(kernel_id, None)
        if timer is not None:
            timer.cancel()
        for table in (self._owners, self._handed):
            table.pop(kernel_id, None)
        self._ever_connected.discard(kernel_id)
        closers = self._open_sockets.pop(kernel_id, [])
        try:
            return await super().shutdown_kernel(kernel_id, *args, **kwargs)
        finally:
            for close in closers:  # pages still open on it (culled): their sockets close, and they say so
                close()
            self._kick()  # memory was freed: a pool may refill

    def sessions(self) -> int:
        """Live kernels that a page received (students), as opposed to kernels waiting in a pool."""
        return sum(1 for kid in self._handed if kid in self)

    def status(self) -> dict[str, Any]:
        return {
            "ready": bool(self.ready),
            "pool": self.ready_counts(),
            "pool_target": self.pool_targets,
            "pool_starting": {nb: n for nb, n in sorted(self._filling.items()) if n},
            "sessions": self.sessions(),
            "kernels": len(self.list_kernel_ids()),
            "budget_limited": self.budget_limited,
            "memory_mb": round(self.measured_memory_mb(), 1),
            "memory_budget_mb": round(self.memory_budget_mb, 1) if self.memory_budget_mb > 0 else None,
            "kernel_mb_estimate": round(self._kernel_mb, 1),
        }
