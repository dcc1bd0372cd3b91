"""CPU-seconds and memory of a process tree, read from ``/proc`` (Linux; elsewhere the readings are ``None``).

Used by the classroom server (memory budget, ``/dpviz/status``) and by the load test. Two measures of memory:

- resident set size (RSS, ``/proc/<pid>/statm``): cheap to read, but it counts a shared page in every process
  that maps it, so the sum over a tree of forked kernels counts the fork server's pages once per kernel (a lesson
  kernel: 130 MB RSS, of which ~45 MB its own);
- proportional set size (PSS, ``/proc/<pid>/smaps_rollup``, Linux ≥ 4.14): a page shared by k processes counts
  1/k in each, so the sum over a tree counts each page once: the memory the tree really holds (pages shared
  with processes outside the tree aside). Reading it walks the process's page tables: ~2 ms per kernel here,
  so the server reads it in a worker thread, never on its event loop.
"""

from __future__ import annotations

import os
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from dpviz.scheduling import autogroup_nice, set_autogroup_nice, shift_autogroup

__all__ = ["CpuMeter", "ProcessReading", "autogroup_nice", "available_memory_mb", "children", "lower_priority",
           "proportional_mb", "raise_priority", "read_process", "renice", "set_autogroup_nice", "stat_fields",
           "tree_memory_mb"]

_PROC = Path("/proc")
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class ProcessReading:
    pid: int
    ppid: int
    cpu_seconds: float  # user + system time of the process itself
    rss_mb: float
    cmdline: str


def stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` from the third on (``fields[0]`` is the state, field 3 of proc(5)), or
    None when the process is gone (or /proc is not there)."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may contain spaces: split after the last ')'.
    return stat[stat.rfind(")") + 2 :].split()


def read_process(pid: int) -> ProcessReading | None:
    """One reading of process ``pid``, or None when it is gone (or /proc is not there)."""
    fields = stat_fields(pid)
    try:
        statm = (_PROC / str(pid) / "statm").read_text().split()
        cmdline = (_PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except (OSError, IndexError):
        return None
    if fields is None:
        return None
    ppid = int(fields[1])
    utime, stime = int(fields[11]), int(fields[12])
    return ProcessReading(pid, ppid, (utime + stime) / _TICKS, int(statm[1]) * _PAGE / 2**20, cmdline.strip())


def children(pid: int) -> list[ProcessReading]:
    """Every live descendant of ``pid`` (children, grandchildren, ...)."""
    readings = []
    try:
        entries = [int(p.name) for p in _PROC.iterdir() if p.name.isdigit()]
    except OSError:
        return []
    by_parent: dict[int, list[ProcessReading]] = {}
    for p in entries:
        r = read_process(p)
        if r is not None:
            by_parent.setdefault(r.ppid, []).append(r)
    stack = [pid]
    while stack:
        for r in by_parent.get(stack.pop(), []):
            readings.append(r)
            stack.append(r.pid)
    return readings


def proportional_mb(pid: int) -> float | None:
    """Proportional set size (PSS) of process ``pid`` in MB: its private pages plus, for each page it shares with
    k processes, 1/k of it. None when it cannot be read (the process is gone, no permission, or no
    ``smaps_rollup``: Linux before 4.14)."""
    try:
        with open(_PROC / str(pid) / "smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) / 1024  # kB
    except (OSError, ValueError, IndexError):
        return None
    return None


def tree_memory_mb(pid: int | None = None, *, proportional: bool = False) -> float:
    """Memory of ``pid`` (default: this process) and all its descendants, in MB (2**20 bytes): the sum of their RSS,
    or with ``proportional`` of their PSS, which counts a page shared within the tree once (a process whose PSS
    cannot be read counts its RSS: never less than it holds). Reading PSS takes ~2 ms per large process."""
    pid = os.getpid() if pid is None else pid
    own = read_process(pid)
    readings = ([own] if own else []) + children(pid)
    if not proportional:
        return sum(r.rss_mb for r in readings)
    total = 0.0
    for r in readings:
        pss = proportional_mb(r.pid)
        total += r.rss_mb if pss is None else pss
    return total


def available_memory_mb() -> float | None:
    """``MemAvailable`` from /proc/meminfo in MB: what the machine can still give without swapping."""
    try:
        for line in (_PROC / "meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


class CpuMeter:
    """The machine's busy CPU fraction (0..1, all cores), from readings of ``/proc/stat``.

    ``busy_fraction()`` is the fraction since the previous call; ``busy_over(seconds)`` the fraction over (about)
    the last ``seconds``, from the readings taken by earlier calls of either method (one reading every half second
    or so is enough), so that a single quiet half second in the middle of a rush does not count as calm.
    """

    def __init__(self, keep_seconds: float = 30.0) -> None:
        self._keep = float(keep_seconds)
        self._last = self._read()
        self._history: deque[tuple[float, int, int]] = deque()
        self._remember(self._last)

    @staticmethod
    def _read() -> tuple[int, int] | None:
        try:
            fields = (_PROC / "stat").read_text().split("\n", 1)[0].split()[1:]
            ticks = [int(x) for x in fields]
        except (OSError, ValueError, IndexError):
            return None
        idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle + iowait
        return sum(ticks[:8]), idle

    def _remember(self, reading: tuple[int, int] | None) -> None:
        if reading is None:
            return
        now = time.monotonic()
        self._history.append((now, *reading))
        while len(self._history) > 2 and self._history[1][0] < now - self._keep:
            self._history.popleft()

    @staticmethod
    def _fraction(now: tuple[int, int] | None, last: tuple[int, int] | None) -> float | None:
        if now is None or last is None or now[0] <= last[0]:
            return None
        total, idle = now[0] - last[0], now[1] - last[1]
        return max(0.0, min(1.0, 1.0 - idle / total))

    def busy_fraction(self) -> float | None:
        """Busy fraction since the previous call (None without /proc or when no tick has passed)."""
        now = self._read()
        last, self._last = self._last, now
        self._remember(now)
        return self._fraction(now, last)

    def busy_over(self, seconds: float) -> float | None:
        """Busy fraction over the last ``seconds`` (from the oldest kept reading within them; at least the
        latest interval). None without /proc or when no tick has passed."""
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


def thread_ids(pid: int) -> list[int]:
    """The thread ids of process ``pid`` (empty when it is gone)."""
    try:
        return [int(t.name) for t in (_PROC / str(pid) / "task").iterdir() if t.name.isdigit()]
    except OSError:
        return []


def thread_nice(tid: int) -> int | None:
    """The nice value of thread ``tid`` (field 19 of its ``stat``), None when it cannot be read."""
    try:
        raw = (_PROC / str(tid) / "stat").read_bytes()
        return int(raw[raw.rindex(b")") + 2:].split()[16])
    except (OSError, ValueError, IndexError):
        return None


def renice(pid: int, delta: int) -> bool:
    """Move every thread of process ``pid`` ``delta`` nice steps (positive: lower priority), within [−20, 19].
    Threads it starts later inherit their creator's value. Linux sets nice per thread, so a process-wide change must
    visit each. Raising the priority back (a negative ``delta``) needs privilege (root or CAP_SYS_NICE): False
    when any thread could not be moved (the process gone, or not allowed), True otherwise.

    A thread started while the walk runs inherits its creator's value: the old one when the creator was not moved
    yet, the new one when it was. So the walk repeats until it finds no thread it has not seen (at most
    ``_RENICE_PASSES`` times), and a thread found late moves only when its value is one the walk moved *from* and
    not one it moved *to* (it must not move twice); where a value is both, it is left as it is."""
    seen: set[int] = set()
    moved: dict[int, int] = {}  # old nice value -> the value threads at it were moved to
    ok = True
    for walk in range(_RENICE_PASSES):
        new = [tid for tid in thread_ids(pid) if tid not in seen]
        if not new:
            break
        for tid in new:
            seen.add(tid)
            now = thread_nice(tid)
            if now is None:
                ok = ok and walk > 0  # a late thread that has already ended is no failure
                continue
            if walk > 0 and (now not in moved or now in moved.values()):
                continue  # inherited the new value already (or cannot tell): leave it
            target = max(-20, min(19, now + delta))
            try:
                os.setpriority(os.PRIO_PROCESS, tid, target)
            except OSError:
                ok = False
                continue
            moved[now] = target
    return ok and bool(seen)


_RENICE_PASSES = 5


def lower_priority(pid: int, steps: int) -> bool:
    """Lower process ``pid``'s CPU priority by ``steps`` nice steps where the scheduler looks: its threads
    (:func:`renice`) and, when it leads a session other than ours, its session's autogroup
    (:func:`~dpviz.scheduling.shift_autogroup`). True when its threads moved."""
    moved = renice(pid, steps)
    if _own_session(pid):
        shift_autogroup(pid, steps)
    return moved


def raise_priority(pid: int, steps: int) -> bool:
    """Undo :func:`lower_priority`: the session's autogroup goes back ``steps`` (down to 0, which its owner may
    always do), the threads too where allowed (:func:`renice`: needs privilege). True when the threads moved back;
    where they could not, the autogroup still did, and with autogroups the threads' common nice value only
    weighs against each other."""
    if _own_session(pid):
        shift_autogroup(pid, -steps)
    return renice(pid, -steps)


def _own_session(pid: int) -> bool:
    """``pid`` leads a session that is not the calling process's (changing its autogroup changes no one else)."""
    try:
        return os.getsid(pid) == pid and os.getsid(pid) != os.getsid(0)
    except OSError:
        return False
