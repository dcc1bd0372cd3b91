"""CPU-seconds and memory of a process tree, read from ``/proc`` (Linux; elsewhere the readings are ``None``).

Used by the classroom server (memory budget, ``/dpviz/status``) and by the load test. Resident set size (RSS)
counts shared pages once per process, so the sum over a tree over-estimates the memory it really holds: a safe
direction for a budget.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CpuMeter", "ProcessReading", "available_memory_mb", "children", "read_process", "tree_memory_mb"]

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


def read_process(pid: int) -> ProcessReading | None:
    """One reading of process ``pid``, or None when it is gone (or /proc is not there)."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
        statm = (_PROC / str(pid) / "statm").read_text().split()
        cmdline = (_PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except (OSError, IndexError):
        return None
    # The command name (field 2) is in parentheses and may contain spaces: split after the last ')'.
    fields = stat[stat.rfind(")") + 2 :].split()
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


def tree_memory_mb(pid: int | None = None) -> float:
    """RSS of ``pid`` (default: this process) plus all its descendants, in MB (2**20 bytes)."""
    pid = os.getpid() if pid is None else pid
    own = read_process(pid)
    return (own.rss_mb if own else 0.0) + sum(r.rss_mb for r in children(pid))


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
    """The machine's busy CPU fraction (0..1, all cores) between two readings of ``/proc/stat``."""

    def __init__(self) -> None:
        self._last = self._read()

    @staticmethod
    def _read() -> tuple[int, int] | None:
        try:
            fields = (_PROC / "stat").read_text().split("\n", 1)[0].split()[1:]
            ticks = [int(x) for x in fields]
        except (OSError, ValueError, IndexError):
            return None
        idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle + iowait
        return sum(ticks[:8]), idle

    def busy_fraction(self) -> float | None:
        """Busy fraction since the previous call (None without /proc or when no tick has passed)."""
        now = self._read()
        last, self._last = self._last, now
        if now is None or last is None or now[0] <= last[0]:
            return None
        total, idle = now[0] - last[0], now[1] - last[1]
        return max(0.0, min(1.0, 1.0 - idle / total))
