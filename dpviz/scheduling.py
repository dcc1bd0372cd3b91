"""The CPU scheduler's session groups (*autogroups*), for the server and for a kernel's own panels.

Linux's scheduler, where autogroups are on (``/proc/sys/kernel/sched_autogroup_enabled``; on by default in
Debian's and Ubuntu's kernels), shares the CPU fairly between sessions (``setsid``) first and between the threads of
each session second: a thread's nice value only weighs against threads of its own session. Every kernel is a
session of its own (a forked kernel calls ``setsid``; jupyter_client starts the others with a new session), so a
kernel yields to other kernels only through its session's autogroup nice value (``/proc/<pid>/autogroup``). Pure
standard library, Linux only; elsewhere every reading is None and nothing is set.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

_PROC = Path("/proc")


def autogroup_nice(pid: int) -> int | None:
    """The nice value of process ``pid``'s session autogroup (``/proc/<pid>/autogroup`` reads ``/autogroup-N nice
    K``), None when there is none to read (the process gone, or a kernel built without autogroups)."""
    try:
        parts = (_PROC / str(pid) / "autogroup").read_text().split()
    except OSError:
        return None
    try:
        return int(parts[parts.index("nice") + 1])
    except (ValueError, IndexError):
        return None


def set_autogroup_nice(pid: int, nice: int) -> bool:
    """Set the nice value (clamped to [−20, 19]) of process ``pid``'s autogroup: every process of its session. The
    owner may raise it (lower the priority) and lower it again down to 0; below 0 needs privilege. False when it
    could not be set (gone, not allowed, no autogroups)."""
    value = max(-20, min(19, int(nice)))
    try:
        (_PROC / str(pid) / "autogroup").write_text(str(value))
    except OSError:
        return False
    return autogroup_nice(pid) == value


def shift_autogroup(pid: int, steps: int) -> int | None:
    """Move process ``pid``'s autogroup ``steps`` nice steps (positive: lower priority; at most to 19, and a
    negative shift stops at 0, below which only privilege may go). The value before, or None when there is no group
    to move or it could not be set."""
    now = autogroup_nice(pid)
    if now is None:
        return None
    target = min(19, now + steps) if steps >= 0 else max(now + steps, min(now, 0))
    return now if set_autogroup_nice(pid, target) else None


_own_lock = threading.Lock()
_own_base: int | None = None  # this session's autogroup nice before lower_own_session; None: not lowered


def _leads_own_session() -> bool:
    try:
        return os.getsid(0) == os.getpid()
    except (OSError, AttributeError):  # pragma: no cover - no sessions on this platform
        return False


def lower_own_session(steps: int) -> bool:
    """Lower the calling process's session autogroup by ``steps`` nice steps (at most to 19), if this process leads
    a session of its own (a kernel: then no other program shares the group) and it is not lowered already;
    :func:`restore_own_session` gives it back. True when lowered by this call."""
    global _own_base
    pid = os.getpid()
    with _own_lock:
        if _own_base is not None or not _leads_own_session():
            return False
        now = autogroup_nice(pid)
        if now is None or min(19, now + steps) == now:
            return False
        _own_base = shift_autogroup(pid, steps)
        return _own_base is not None


def restore_own_session() -> None:
    """Undo :func:`lower_own_session`: the session's autogroup back at the value it found (a no-op when not
    lowered; going back up to a value ≥ 0 needs no privilege)."""
    global _own_base
    with _own_lock:
        if _own_base is not None:
            set_autogroup_nice(os.getpid(), _own_base)
            _own_base = None
