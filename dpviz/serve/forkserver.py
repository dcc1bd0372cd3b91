"""Kernels forked from a process that has already imported what every lesson needs.

A Python kernel started the usual way (a new interpreter: ``python -m ipykernel_launcher -f <connection file>``)
spends about a CPU-second before it runs a single line of a lesson: the interpreter, ipykernel, numpy,
scipy.special, plotly and ipywidgets, then dpviz and its panels, each imported again in every kernel. In a class
of thirty that is half a minute of a 2-core machine, and every kernel holds its own copy of those modules.

Under ``dpviz serve`` the server instead starts one **fork server** (``python -m dpviz.serve.forkserver``):
a process with the kernel's environment that imports those modules once and then waits. For each kernel the server
asks it for a child (``os.fork``): the child inherits the imported modules (copy-on-write pages, shared with the
fork server until written), becomes a session leader of its own, takes the kernel's working directory,
environment and arguments, and runs ipykernel exactly as ``ipykernel_launcher`` would. The child is a kernel like
any other: same connection file, same messages, same signals (interrupt, terminate, kill go to its process group).

What differs from a fresh interpreter, and how each is put right in the child:

- ipywidgets registers its comm targets when it is imported *inside* a kernel; imported in the fork server it
  could not, so the child registers them once its kernel exists (``ipywidgets.register_comm_target``).
- plotly chooses its default renderer at import from the running shell; the fork server imports it with
  ``PLOTLY_RENDERER=plotly_mimetype``, what it would choose in a Jupyter kernel.
- numpy's legacy global random state would be the same in every child: the child reseeds it from the operating
  system (dpviz itself never uses global random state; ``random`` is reseeded by Python at fork).
- A kernel ends when its parent ends (ipykernel's parent poller): the parent is the fork server, which ends when
  the server closes its socket or dies.
- Its command line (``/proc/<pid>/cmdline``, what ``ps`` shows) is the fork server's: ``sys.argv`` inside the
  kernel is the launcher's. Tools that need a kernel's process find it by its ports
  (:func:`dpviz.serve.procs.kernel_pids`).

Each forked kernel's address space is capped (``RLIMIT_AS``, ``memory_limit_mb``; 4 GiB by default): a lesson
asked for an absurd allocation raises ``MemoryError`` in its own kernel instead of pushing the whole classroom
machine into swap.

The app forks kernels on Linux only (``--fork-kernels``; macOS frameworks are not safe to use after a fork).
Forking is only safe from a process with a single thread: the fork server checks that it has one after its
imports (BLAS pools are kept single-threaded by the kernel environment) and otherwise refuses, and the server then
starts kernels the usual way. Any command that is not ``<this python> -m ipykernel_launcher ...`` is started the
usual way too.

Protocol (one JSON object per line over a socket pair, request then reply): ``{"argv": [...], "env": {...},
"cwd": "...", "limit_as": bytes or null}`` → ``{"pid": N}`` or ``{"error": "..."}``; the fork server's first line
is ``{"ready": true}`` or ``{"ready": false, "error": "..."}``.
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

import psutil
from jupyter_client.provisioning import LocalProvisioner

#: Modules every lesson kernel imports; the fork server imports them once (scipy.optimize and scipy.stats too: a
#: kernel that imports them pays nothing for them, so the library needs no lighter stand-ins of its own).
PRELOAD = ("numpy", "scipy.special", "scipy.optimize", "scipy.stats", "IPython", "ipykernel.kernelapp",
           "ipykernel.ipkernel", "ipywidgets", "plotly.graph_objects", "anywidget", "dpviz", "dpviz.panels")
#: Address space of each forked kernel (MB; ``RLIMIT_AS``) unless the server asks otherwise; None: no cap.
MEMORY_LIMIT_MB = 4096

#: The module ``-m`` names in a kernel command this fork server can run.
_LAUNCHER = "ipykernel_launcher"


# ------------------------------------------------------------------------------------------------ fork server


def _thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:  # pragma: no cover - no /proc: trust Python's own count
        return threading.active_count()


def _preload() -> None:
    """Import, in the fork server's own process, what every lesson kernel imports (by name: the server process,
    which imports this module for :class:`ForkingProvisioner`, never loads the numerics or the panels)."""
    import importlib
    import importlib.util
    import pkgutil

    for name in PRELOAD:
        importlib.import_module(name)
    dpviz = importlib.import_module("dpviz")
    for name in dpviz.__all__:  # the façade's names (imported on first use elsewhere): every one, here
        getattr(dpviz, name)
    importlib.import_module("plotly.graph_objects").FigureWidget  # noqa: B018 - its lazily imported class
    panels = importlib.util.find_spec("dpviz.panels").submodule_search_locations
    for module in pkgutil.iter_modules(panels):  # every lesson's panels (and what they import)
        importlib.import_module(f"dpviz.panels.{module.name}")


def _run_kernel(argv: list[str], env: dict[str, str], cwd: str, parent: int, limit_as: int | None = None) -> int:
    """In the child: become the kernel ``argv`` (``[python, -m, ipykernel_launcher, *args]``) describes, its
    address space capped at ``limit_as`` bytes (None: not capped)."""
    os.setsid()
    import gc

    gc.enable()  # disabled in the fork server while it imported
    if limit_as:
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        cap = limit_as if hard == resource.RLIM_INFINITY else min(limit_as, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    sys.argv = [_LAUNCHER, *argv[3:]]
    from ipykernel.kernelapp import IPKernelApp

    app = IPKernelApp.instance()
    app.parent_handle = parent  # end with the fork server, as a launched kernel ends with its server
    app.initialize(sys.argv[1:])
    import importlib

    importlib.import_module("ipywidgets").register_comm_target()  # what importing it inside a kernel does
    app.start()
    return 0


def _spawn(request: dict[str, Any], channel: socket.socket) -> int:
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        channel.close()
        code = _run_kernel(request["argv"], request["env"], request["cwd"], os.getppid(), request.get("limit_as"))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # pragma: no cover - reported on the kernel's stderr (the server log)
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve(fd: int) -> None:
    """The fork server's loop: import, report ready, then fork one kernel per request until the socket closes.

    A server that ended while we were importing (it could not bind its port, Ctrl+C) closed its end: the fork
    server then ends quietly, without a traceback in the terminal that started it."""
    channel = socket.socket(fileno=fd)
    try:
        _serve(channel, os.getppid())
    except (BrokenPipeError, ConnectionResetError):
        return


def _serve(channel: socket.socket, parent: int) -> None:
    def reply(obj: dict) -> None:
        channel.sendall(json.dumps(obj).encode() + b"\n")

    import gc

    gc.disable()  # no collections (and no freed holes in pages) while importing: see gc.freeze below
    try:
        _preload()
    except Exception as exc:  # pragma: no cover - a broken install: the server starts kernels the usual way
        reply({"ready": False, "error": f"import failed: {exc!r}"})
        return
    threads = _thread_count()
    if threads != 1:
        reply({"ready": False, "error": f"{threads} threads after the imports; forking needs exactly one"})
        return
    # The imported objects move to a permanent generation that the children's collections never visit: a child's
    # garbage collector would otherwise write to every one of them and copy every shared page (Python's gc docs).
    gc.freeze()
    reply({"ready": True})
    buffer = b""
    while True:
        readable, _, _ = select.select([channel], [], [], 0.5)
        _reap()
        if os.getppid() != parent:  # the server is gone
            return
        if not readable:
            continue
        chunk = channel.recv(1 << 20)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            try:
                request = json.loads(line)
                reply({"pid": _spawn(request, channel)})
            except Exception as exc:  # a malformed request or a failed fork: the server falls back
                reply({"error": repr(exc)})


# ------------------------------------------------------------------------------------------------ server side


class ForkServer:
    """The server's handle on its fork server (started by :meth:`start`, used from any thread)."""

    def __init__(self, memory_limit_mb: float | None = MEMORY_LIMIT_MB) -> None:
        self.limit_as = int(memory_limit_mb * 2**20) if memory_limit_mb else None
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._channel: socket.socket | None = None
        self._buffer = b""
        self._ready: bool | None = None
        self.error: str | None = None

    def start(self, env: dict[str, str], cwd: str | None = None) -> None:
        """Start the fork server with the kernels' environment (it imports at once; :meth:`spawn` waits)."""
        ours, theirs = socket.socketpair()
        env = {**env, "PLOTLY_RENDERER": env.get("PLOTLY_RENDERER", "plotly_mimetype")}
        self._proc = subprocess.Popen([sys.executable, "-m", "dpviz.serve.forkserver", str(theirs.fileno())],
                                      pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, env=env, cwd=cwd)
        theirs.close()
        self._channel = ours

    def _readline(self, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            readable, _, _ = select.select([self._channel], [], [], remaining)
            if readable:
                chunk = self._channel.recv(1 << 16)
                if not chunk:
                    return None
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def _usable(self, timeout: float) -> bool:
        if self._channel is None:
            return False
        if self._ready is None:
            hello = self._readline(timeout)
            self._ready = bool(hello and hello.get("ready"))
            if not self._ready:
                self.error = (hello or {}).get("error", "the fork server did not start")
        return self._ready and self._proc is not None and self._proc.poll() is None

    def spawn(self, argv: list[str], env: dict[str, str], cwd: str, timeout: float = 60.0) -> int | None:
        """A forked kernel's pid, or None when this fork server cannot start it (the caller starts it the usual
        way). Blocking: call it from a worker thread."""
        with self._lock:
            if not self._usable(timeout):
                return None
            try:
                request = {"argv": argv, "env": dict(env), "cwd": cwd, "limit_as": self.limit_as}
                self._channel.sendall(json.dumps(request).encode() + b"\n")
                answer = self._readline(timeout)
            except OSError as exc:
                self.error = repr(exc)
                self._ready = False
                return None
            if not answer or "pid" not in answer:
                self.error = (answer or {}).get("error", "no answer")
                return None
            return int(answer["pid"])

    def stop(self) -> None:
        with self._lock:
            if self._channel is not None:
                self._channel.close()
                self._channel = None
            if self._proc is not None:
                try:
                    self._proc.wait(timeout=5)
                except subprocess.TimeoutExpired:  # pragma: no cover
                    self._proc.kill()
                self._proc = None


#: The app's fork server (None: kernels start the usual way, e.g. in JupyterLab or under plain ``voila``).
FORK_SERVER: ForkServer | None = None


def start_fork_server(env: dict[str, str], cwd: str | None = None,
                      memory_limit_mb: float | None = MEMORY_LIMIT_MB) -> ForkServer:
    global FORK_SERVER
    FORK_SERVER = ForkServer(memory_limit_mb)
    FORK_SERVER.start(env, cwd)
    return FORK_SERVER


def fork_kernels_for(parent, cwd: str, memory_limit_mb: float | None) -> bool:
    """Start the fork server and make ``dpviz-fork`` the default kernel provisioner of ``parent`` (a Jupyter
    application: ``dpviz serve``, or a single-user server with :mod:`dpviz.serve.extension`). False, with a
    warning in ``parent``'s log, when the provisioner's entry point is not installed (an install from before the fork
    server: re-run ``pip install -e .``); kernels then start afresh."""
    from importlib.metadata import entry_points

    from jupyter_client.provisioning import KernelProvisionerFactory

    from dpviz.serve.pool import SINGLE_THREAD_ENV

    if "dpviz-fork" not in entry_points(group=KernelProvisionerFactory.GROUP_NAME).names:
        parent.log.warning("dpviz's kernel provisioner is not installed: kernels start afresh")
        return False
    start_fork_server({**os.environ, **SINGLE_THREAD_ENV}, cwd=cwd, memory_limit_mb=memory_limit_mb)
    KernelProvisionerFactory.instance(parent=parent).default_provisioner_name = "dpviz-fork"
    return True


class ForkedKernel:
    """The part of ``subprocess.Popen`` a provisioner uses, for a kernel the fork server started (not our child:
    its exit status stays with the fork server, so an ended kernel reports 0, or -signal when we killed it)."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int) -> None:
        self.pid = pid
        try:
            self._process: psutil.Process | None = psutil.Process(pid)  # a later process with this pid differs
        except psutil.NoSuchProcess:
            self._process = None
        self.returncode: int | None = None
        self._signal: int | None = None

    def _alive(self) -> bool:
        if self._process is None or not self._process.is_running():  # is_running: same pid *and* start time
            return False
        try:
            return self._process.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    def poll(self) -> int | None:
        if self.returncode is None and not self._alive():
            self.returncode = -self._signal if self._signal else 0
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired([str(self.pid)], timeout)
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            self._signal = signum
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


def _forkable(cmd: list[str]) -> bool:
    return (len(cmd) >= 3 and cmd[1:3] == ["-m", _LAUNCHER]
            and os.path.realpath(cmd[0]) == os.path.realpath(sys.executable))


class ForkingProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, except that a Python kernel is forked from the app's fork server."""

    async def launch_kernel(self, cmd: list[str], **kwargs: Any):
        server = FORK_SERVER
        if server is None or not _forkable(cmd):
            return await super().launch_kernel(cmd, **kwargs)
        import asyncio

        env = dict(kwargs.get("env") or os.environ)
        cwd = str(kwargs.get("cwd") or os.getcwd())
        pid = await asyncio.to_thread(server.spawn, list(cmd), env, cwd)
        if pid is None:
            self.log.warning("fork server unavailable (%s); starting the kernel the usual way", server.error)
            return await super().launch_kernel(cmd, **kwargs)
        self.process = ForkedKernel(pid)
        self.pid = pid
        self.pgid = pid  # the child is a session (and process group) leader
        self.cwd = cwd
        return self.connection_info


if __name__ == "__main__":
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]  # as ipykernel_launcher does: the kernel's own directory is set per kernel
    serve(int(sys.argv[1]))
