"""The memory the classroom server counts for its budget and its status page (issue 11).

Forked kernels share most of their pages with the fork server. Their resident set sizes (RSS) count those pages
once per kernel; the proportional set size (PSS) counts each page once over the whole tree. The budget counts
PSS, read in a worker thread (it walks page tables: ~2 ms per kernel), so the server's event loop never waits
for it. Tests: PSS against a process tree whose sharing is known; the kernel manager's reading, its allowance
for kernels still growing, and that a slow reading never blocks the caller.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import deque
from pathlib import Path

import pytest

from dpviz.server import kernels, procinfo

SHARED_MB = 200

# A parent that writes SHARED_MB of its own memory, then forks a child that only reads it: the pages stay shared.
_SHARING_TREE = f"""
import os, sys, time
block = bytearray(b"x") * ({SHARED_MB} * 2**20)  # every page written: resident, not the kernel's zero page
if os.fork() == 0:
    time.sleep(60)
    os._exit(0)
print("ready", flush=True)
time.sleep(60)
"""


@pytest.fixture
def sharing_tree():
    proc = subprocess.Popen([sys.executable, "-c", _SHARING_TREE], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 10
        while not procinfo.children(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        yield proc.pid
    finally:
        for child in procinfo.children(proc.pid):
            try:
                os.kill(child.pid, signal.SIGKILL)
            except OSError:
                pass
        proc.kill()
        proc.wait(timeout=10)
        proc.stdout.close()


def test_pss_counts_pages_shared_by_a_forked_child_once_where_rss_counts_them_twice(sharing_tree):
    assert Path("/proc/self/smaps_rollup").exists(), "this Linux has no smaps_rollup (needs 4.14 or later)"
    rss = procinfo.tree_memory_mb(sharing_tree)
    pss = procinfo.tree_memory_mb(sharing_tree, proportional=True)
    # RSS: the block in the parent and again in the child; PSS: half of it in each, once in all.
    assert rss >= 2 * SHARED_MB
    assert SHARED_MB <= pss <= rss
    assert rss - pss >= 0.9 * SHARED_MB, (rss, pss)
    parent, child = procinfo.proportional_mb(sharing_tree), procinfo.proportional_mb(
        procinfo.children(sharing_tree)[0].pid)
    assert parent >= SHARED_MB / 2 and child >= SHARED_MB / 2 * 0.95, (parent, child)


def test_pss_of_a_gone_process_is_none_and_the_tree_of_a_gone_process_holds_nothing():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(timeout=30)
    assert procinfo.proportional_mb(proc.pid) is None
    assert procinfo.tree_memory_mb(proc.pid, proportional=True) == 0.0


# ---- the kernel manager's reading ---------------------------------------------------------------------------------


class _Base:
    """Stands in for Voilà's pooled kernel manager: only what the classroom layer calls here."""

    allowed_message_types = ["comm_msg", "shutdown_request"]

    def __init__(self, **kwargs):
        self.started: list[str] = []

    async def start_kernel(self, *args, **kwargs):
        self.started.append(f"k{len(self.started)}")
        return self.started[-1]


class _Readings:
    """procinfo.tree_memory_mb replaced: returns the next value, optionally after a delay; records the threads."""

    def __init__(self, values, delay: float = 0.0):
        self.values = list(values)
        self.delay = delay
        self.calls = 0

    def __call__(self, pid=None, *, proportional=False):
        assert proportional, "the budget must count proportional memory"
        time.sleep(self.delay)
        self.calls += 1
        return self.values[min(self.calls - 1, len(self.values) - 1)]


def _manager(monkeypatch, readings: _Readings):
    monkeypatch.setattr(procinfo, "tree_memory_mb", readings)
    cls = kernels.classroom_kernel_manager(_Base)
    manager = cls()
    manager._kernel_mb = 50.0
    return manager


def test_the_first_reading_is_taken_at_once_and_used_until_it_is_stale(monkeypatch):
    readings = _Readings([300.0, 900.0])
    manager = _manager(monkeypatch, readings)
    assert manager.memory_mb() == 300.0 and readings.calls == 1
    assert manager.memory_mb() == 300.0 and readings.calls == 1  # fresh: no new reading
    assert manager.measured_memory_mb() == 300.0


def test_a_stale_reading_is_refreshed_in_a_worker_thread_without_blocking_the_caller(monkeypatch):
    readings = _Readings([900.0], delay=0.5)

    async def scenario():
        manager = _manager(monkeypatch, readings)
        manager._memory = (time.monotonic() - 10 * kernels.MEMORY_MAX_AGE, 300.0)  # a stale reading
        t0 = time.monotonic()
        first = manager.memory_mb()  # starts the next reading, answers with the last one
        waited = time.monotonic() - t0
        assert first == 300.0
        assert waited < 0.25, f"memory_mb() waited {waited:.2f} s for /proc"
        ticks = 0
        while manager.measured_memory_mb() == 300.0:  # the loop keeps running while the thread reads
            await asyncio.sleep(0.01)
            ticks += 1
            assert ticks < 1000
        assert ticks >= 10, "the event loop did not run while the reading was taken"
        assert manager.measured_memory_mb() == 900.0 and readings.calls == 1

    asyncio.run(scenario())


def test_fresh_memory_waits_for_a_new_reading_and_shares_one_between_callers(monkeypatch):
    readings = _Readings([900.0], delay=0.2)

    async def scenario():
        manager = _manager(monkeypatch, readings)
        manager._memory = (time.monotonic() - 10 * kernels.MEMORY_MAX_AGE, 300.0)
        values = await asyncio.gather(*(manager.fresh_memory_mb() for _ in range(5)))
        assert values == [900.0] * 5
        assert readings.calls == 1  # one reading for all five callers
        assert await manager.fresh_memory_mb() == 900.0 and readings.calls == 1  # still fresh

    asyncio.run(scenario())


def test_kernels_started_just_before_a_reading_count_on_top_of_it_until_a_later_reading(monkeypatch):
    readings = _Readings([300.0, 420.0], delay=0.0)

    async def scenario():
        manager = _manager(monkeypatch, readings)
        assert manager.memory_mb() == 300.0
        await manager.start_kernel()
        await manager.start_kernel()
        # Two kernels started after the reading began: each counts one kernel's estimate (50 MB) on top of it.
        assert manager.memory_mb() == 400.0
        assert manager.measured_memory_mb() == 300.0  # the status page shows what was measured
        # The budget refuses a third when it would exceed it, allows it when it fits.
        manager.memory_budget_mb = 440.0
        assert not manager.can_start_kernel()
        manager.memory_budget_mb = 450.0
        assert manager.can_start_kernel()
        # A reading that began long after the starts (the kernels have grown into it) counts them once, in it.
        manager._starts = deque(t - 2 * kernels.KERNEL_GROWTH_SECONDS for t in manager._starts)
        manager._memory = None
        assert manager.memory_mb() == 420.0

    asyncio.run(scenario())


# ---- priority of refilled kernels --------------------------------------------------------------------------------

_THREADED = """
import threading, time
for _ in range(3):
    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
print("ready", flush=True)
time.sleep(60)
"""


@pytest.fixture
def threaded_process():
    proc = subprocess.Popen([sys.executable, "-c", _THREADED], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    yield proc
    proc.kill()
    proc.wait()
    proc.stdout.close()


def _nices(pid: int) -> list[int | None]:
    return [procinfo.thread_nice(t) for t in procinfo.thread_ids(pid)]


def test_renice_moves_every_thread_of_a_process_not_only_its_main_thread(threaded_process):
    """Linux keeps a nice value per thread (``setpriority(PRIO_PROCESS, pid)`` moves the main thread alone): a
    refilled kernel's iopub, control and heartbeat threads must yield too."""
    pid = threaded_process.pid
    assert len(procinfo.thread_ids(pid)) == 4 and _nices(pid) == [0, 0, 0, 0]
    assert procinfo.renice(pid, 10) is True
    assert _nices(pid) == [10, 10, 10, 10]
    assert procinfo.renice(pid, 15) is True and _nices(pid) == [19, 19, 19, 19]  # capped at 19
    if os.geteuid() == 0:  # raising it back needs privilege
        assert procinfo.renice(pid, -19) is True and _nices(pid) == [0, 0, 0, 0]


def test_renice_without_the_right_to_raise_priority_says_so_and_leaves_the_threads(threaded_process, monkeypatch):
    pid = threaded_process.pid
    assert procinfo.renice(pid, 10) is True

    def refused(which, who, prio):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "setpriority", refused)
    assert procinfo.renice(pid, -10) is False
    assert _nices(pid) == [10, 10, 10, 10]


class _ThreadsStartingDuringTheWalk:
    """A process whose threads start others while :func:`procinfo.renice` walks them: when the walk moves thread 1,
    thread 2 (not moved yet) starts thread 3, which inherits the old value, and thread 1 starts thread 4, which
    inherits the new one."""

    def __init__(self, base: int) -> None:
        self.nice = {1: base, 2: base}

    def thread_ids(self, pid):
        return sorted(self.nice)

    def thread_nice(self, tid):
        return self.nice.get(tid)

    def setpriority(self, which, tid, value):
        self.nice[tid] = value
        if tid == 1 and 3 not in self.nice:
            self.nice[3] = self.nice[2]  # started by thread 2: not moved yet
            self.nice[4] = value  # started by thread 1: just moved


def test_renice_moves_threads_started_during_the_walk_once(monkeypatch):
    """The race behind a refilled kernel seen at nice {0, 10}: threads started while the walk runs must end at the
    value the walk gives the others, neither left behind (one walk) nor moved twice (walking again blindly)."""
    for base, delta, want in ((0, 10, 10), (10, -10, 0), (5, 19, 19)):
        fake = _ThreadsStartingDuringTheWalk(base)
        monkeypatch.setattr(procinfo, "thread_ids", fake.thread_ids)
        monkeypatch.setattr(procinfo, "thread_nice", fake.thread_nice)
        monkeypatch.setattr(os, "setpriority", fake.setpriority)
        assert procinfo.renice(1, delta) is True
        assert fake.nice == {1: want, 2: want, 3: want, 4: want}, (base, delta, fake.nice)


def test_renice_of_a_gone_process_is_false():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert procinfo.thread_ids(proc.pid) == [] and procinfo.renice(proc.pid, 10) is False
    assert procinfo.thread_nice(proc.pid) is None


def test_autogroup_nice_of_a_session_is_read_set_and_given_back_without_privilege():
    """A kernel is a session of its own; with the scheduler's autogroups its session's nice value, not its threads',
    decides how it shares the CPU with other kernels. The owner may lower a session's priority and give it back down
    to 0; without autogroups (no ``/proc/<pid>/autogroup``) there is nothing to read or set."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        if not Path(f"/proc/{proc.pid}/autogroup").exists():
            assert procinfo.autogroup_nice(proc.pid) is None
            assert procinfo.set_autogroup_nice(proc.pid, 10) is False
            return
        assert procinfo.autogroup_nice(proc.pid) == 0
        ours = procinfo.autogroup_nice(os.getpid())
        assert procinfo.set_autogroup_nice(proc.pid, 12) is True and procinfo.autogroup_nice(proc.pid) == 12
        assert procinfo.autogroup_nice(os.getpid()) == ours  # another session: ours is untouched
        assert procinfo.set_autogroup_nice(proc.pid, 40) is True and procinfo.autogroup_nice(proc.pid) == 19
        assert procinfo.set_autogroup_nice(proc.pid, 0) is True and procinfo.autogroup_nice(proc.pid) == 0
    finally:
        proc.kill()
        proc.wait()
    assert procinfo.autogroup_nice(proc.pid) is None and procinfo.set_autogroup_nice(proc.pid, 10) is False


def test_lowering_a_kernel_moves_its_threads_and_its_own_session_never_ours(threaded_process):
    """A refilled kernel yields through its threads' nice values and its session's autogroup. A process in our own
    session (the fixture's) keeps the session untouched: lowering it would lower the caller (the server) too."""
    ours = procinfo.autogroup_nice(os.getpid())
    assert procinfo.lower_priority(threaded_process.pid, 10) is True
    assert _nices(threaded_process.pid) == [10, 10, 10, 10]
    assert procinfo.autogroup_nice(os.getpid()) == ours
    proc = subprocess.Popen([sys.executable, "-c", _THREADED], stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        grouped = procinfo.autogroup_nice(proc.pid) is not None
        assert procinfo.lower_priority(proc.pid, 10) is True and _nices(proc.pid) == [10, 10, 10, 10]
        assert procinfo.autogroup_nice(proc.pid) == (10 if grouped else None)
        assert procinfo.autogroup_nice(os.getpid()) == ours
        back = procinfo.raise_priority(proc.pid, 10)
        assert procinfo.autogroup_nice(proc.pid) == (0 if grouped else None)  # no privilege needed
        assert back is (os.geteuid() == 0) and _nices(proc.pid) == ([0] * 4 if back else [10] * 4)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
