"""Memory and CPU of the server and its kernels, read with psutil.

Two measures of memory:

- resident set size (RSS): cheap to read, but it counts a shared page in every process that maps it, so the sum
  over a tree of forked kernels counts the fork server's pages once per kernel;
- proportional set size (PSS, ``Process.memory_full_info().pss``, Linux): a page shared by k processes counts
  1/k in each, so the sum over a tree counts each page once: the memory the tree really holds. Reading it walks
  the process's page tables (a few ms per kernel), so the server reads it in a worker thread, never on its event
  loop. The unique set size (USS) is what a process would give back if it ended.

Where PSS cannot be read (another platform, no permission) a process counts its RSS: never less than it holds.
"""

from __future__ import annotations

import json
import time
from collections import deque
from pathlib import Path

import psutil

__all__ = ["CpuMeter", "available_memory_mb", "kernel_pids", "memory_mb", "tree", "tree_memory_mb"]

MB = float(2**20)
_GONE = (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess)


def tree(pid: int | None = None) -> list[psutil.Process]:
    """Process ``pid`` (default: this one) and every live descendant; empty when it is gone."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except _GONE:
        return []


def memory_mb(process: psutil.Process | int) -> dict[str, float] | None:
    """``{"rss", "pss", "uss"}`` of one process in MB (PSS and USS fall back to RSS where they cannot be read), or
    None when it is gone."""
    try:
        proc = process if isinstance(process, psutil.Process) else psutil.Process(process)
        full = proc.memory_full_info()
    except (psutil.AccessDenied, AttributeError):
        try:
            rss = proc.memory_info().rss / MB
        except _GONE:
            return None
        return {"rss": rss, "pss": rss, "uss": rss}
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return None
    rss = full.rss / MB
    return {"rss": rss, "pss": getattr(full, "pss", full.rss) / MB, "uss": getattr(full, "uss", full.rss) / MB}


def tree_memory_mb(pid: int | None = None, *, proportional: bool = False) -> float:
    """Memory of ``pid`` (default: this process) and all its descendants in MB (2**20 bytes): the sum of their RSS,
    or with ``proportional`` of their PSS, which counts a page shared within the tree once."""
    total = 0.0
    for proc in tree(pid):
        if proportional:
            reading = memory_mb(proc)
            total += reading["pss"] if reading else 0.0
        else:
            try:
                total += proc.memory_info().rss / MB
            except _GONE:
                pass
    return total


def available_memory_mb() -> float | None:
    """What the machine can still give without swapping (``MemAvailable``), in MB."""
    try:
        return psutil.virtual_memory().available / MB
    except (OSError, RuntimeError):  # pragma: no cover - a platform psutil cannot read
        return None


def kernel_pids(connection_dir: str | Path) -> dict[str, int]:
    """Kernel id → pid of each kernel whose connection file (``kernel-<id>.json``) is in ``connection_dir`` or a
    folder below it (Voilà makes one under ``--Voila.connection_dir_root``): the process listening on the kernel's
    shell port (TCP kernels; a forked kernel's command line is the fork
    server's, so it cannot be told by its arguments)."""
    ports: dict[int, str] = {}
    for path in Path(connection_dir).rglob("kernel-*.json"):
        try:
            info = json.loads(path.read_text())
            ports[int(info["shell_port"])] = path.stem[len("kernel-"):]
        except (OSError, ValueError, KeyError, TypeError):
            continue
    if not ports:
        return {}
    found: dict[str, int] = {}
    for conn in psutil.net_connections(kind="tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.pid and conn.laddr and conn.laddr.port in ports:
            found[ports[conn.laddr.port]] = conn.pid
    return found


class CpuMeter:
    """The machine's busy CPU fraction (0..1, all cores), from readings of ``psutil.cpu_times()``.

    ``busy_fraction()`` is the fraction since the previous call; ``busy_over(seconds)`` the fraction over (about)
    the last ``seconds``, from the readings taken by earlier calls of either method (one reading every half second
    or so is enough), so that a single quiet half second in the middle of a rush does not count as calm.
    """

    def __init__(self, keep_seconds: float = 30.0) -> None:
        self._keep = float(keep_seconds)
        self._last = self._read()
        self._history: deque[tuple[float, float, float]] = deque()
        self._remember(self._last)

    @staticmethod
    def _read() -> tuple[float, float] | None:
        try:
            t = psutil.cpu_times()
        except (OSError, RuntimeError):  # pragma: no cover
            return None
        idle = t.idle + getattr(t, "iowait", 0.0)
        # guest time is already counted in user time (Linux): leave it out of the total
        total = sum(v for k, v in t._asdict().items() if k not in ("guest", "guest_nice"))
        return total, idle

    def _remember(self, reading: tuple[float, float] | None) -> None:
        if reading is None:
            return
        now = time.monotonic()
        self._history.append((now, *reading))
        while len(self._history) > 2 and self._history[1][0] < now - self._keep:
            self._history.popleft()

    @staticmethod
    def _fraction(now: tuple[float, float] | None, last: tuple[float, float] | None) -> float | None:
        if now is None or last is None or now[0] <= last[0]:
            return None
        total, idle = now[0] - last[0], now[1] - last[1]
        return max(0.0, min(1.0, 1.0 - idle / total))

    def busy_fraction(self) -> float | None:
        """Busy fraction since the previous call (None when no time has passed)."""
        now = self._read()
        last, self._last = self._last, now
        self._remember(now)
        return self._fraction(now, last)

    def busy_over(self, seconds: float) -> float | None:
        """Busy fraction over the last ``seconds`` (from the oldest kept reading within them; at least the
        latest interval). None when no time has passed."""
        now = self._read()
        self._last = now
        self._remember(now)
        if now is None or len(self._history) < 2:
            return None
        cutoff = time.monotonic() - float(seconds)
        start = next((h for h in self._history if h[0] >= cutoff), None)
        if start is None or start is self._history[-1]:
            start = self._history[-2]
        return self._fraction(now, (start[1], start[2]))
