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
from traitlets.config import LoggingConfigurable

from dpviz.serve import pool, procs

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
        while len(procs.tree(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        yield proc.pid
    finally:
        for child in procs.tree(proc.pid)[1:]:
            try:
                os.kill(child.pid, signal.SIGKILL)
            except OSError:
                pass
        proc.kill()
        proc.wait(timeout=10)
        proc.stdout.close()


def test_pss_counts_pages_shared_by_a_forked_child_once_where_rss_counts_them_twice(sharing_tree):
    assert Path("/proc/self/smaps_rollup").exists(), "this Linux has no smaps_rollup (needs 4.14 or later)"
    rss = procs.tree_memory_mb(sharing_tree)
    pss = procs.tree_memory_mb(sharing_tree, proportional=True)
    # RSS: the block in the parent and again in the child; PSS: half of it in each, once in all.
    assert rss >= 2 * SHARED_MB
    assert SHARED_MB <= pss <= rss
    assert rss - pss >= 0.9 * SHARED_MB, (rss, pss)
    parent, child = (procs.memory_mb(p)["pss"] for p in procs.tree(sharing_tree))
    assert parent >= SHARED_MB / 2 and child >= SHARED_MB / 2 * 0.95, (parent, child)


def test_uss_counts_only_a_processs_own_pages(sharing_tree):
    """The child only reads the block it shares with its parent: none of it is its own (USS), half of it is its
    share (PSS), all of it is resident (RSS)."""
    parent, child = (procs.memory_mb(p) for p in procs.tree(sharing_tree))
    assert child["uss"] < SHARED_MB / 4 <= SHARED_MB / 2 * 0.95 <= child["pss"] <= child["rss"], child
    assert parent["uss"] <= parent["pss"] <= parent["rss"], parent


def test_pss_of_a_gone_process_is_none_and_the_tree_of_a_gone_process_holds_nothing():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(timeout=30)
    assert procs.memory_mb(proc.pid) is None
    assert procs.tree_memory_mb(proc.pid, proportional=True) == 0.0


# ---- the kernel manager's reading ---------------------------------------------------------------------------------


class _Base(LoggingConfigurable):
    """Stands in for Voilà's pooled kernel manager: only what the classroom layer calls here."""

    allowed_message_types = ["comm_msg", "shutdown_request"]
    kernel_pools_config = {"default": {"pool_size": 1, "kernel_env_variables": pool.SINGLE_THREAD_ENV}}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.started: list[str] = []

    async def start_kernel(self, *args, **kwargs):
        self.started.append(f"k{len(self.started)}")
        return self.started[-1]


class _Readings:
    """procs.tree_memory_mb replaced: returns the next value, optionally after a delay; records the threads."""

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
    monkeypatch.setattr(procs, "tree_memory_mb", readings)
    cls = type("Manager", (pool.ClassroomKernelManager, _Base), {})
    manager = cls(memory_budget_mb=1e6)
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
        manager._memory = (time.monotonic() - 10 * pool.MEMORY_MAX_AGE, 300.0)  # a stale reading
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
        manager._memory = (time.monotonic() - 10 * pool.MEMORY_MAX_AGE, 300.0)
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
        manager._starts = deque(t - 2 * pool.KERNEL_GROWTH_SECONDS for t in manager._starts)
        manager._memory = None
        assert manager.memory_mb() == 420.0

    asyncio.run(scenario())


# ---- the mixin's options and pools ----------------------------------------------------------------------------------


def _mixed():
    return type("Manager", (pool.ClassroomKernelManager, _Base), {})


def test_the_mixin_owns_its_options_and_refuses_values_out_of_range_by_name():
    from traitlets import TraitError
    from traitlets.config import Config

    config = Config()
    config.ClassroomKernelManager.shutdown_grace = 7.0
    config.ClassroomKernelManager.fill_concurrency = 3
    manager = _mixed()(config=config, memory_budget_mb=1e6)
    assert (manager.shutdown_grace, manager.fill_concurrency, manager.connect_grace) == (7.0, 3, 120.0)
    for name, value in (("shutdown_grace", -1.0), ("refill_max_wait", float("inf")), ("fill_concurrency", 0),
                        ("max_kernels_per_client", 10_001), ("memory_budget_mb", float("nan"))):
        with pytest.raises(TraitError, match=f"{name} = .* is not allowed: must be"):
            _mixed()(**{name: value, **({} if name == "memory_budget_mb" else {"memory_budget_mb": 1e6})})


def test_a_budget_of_zero_is_most_of_the_memory_available_at_start():
    manager = _mixed()()
    available = procs.available_memory_mb()
    assert 0.8 * available <= manager.memory_budget_mb <= 0.8 * (available + procs.tree_memory_mb(proportional=True))


def test_pool_targets_and_kernel_environments_come_from_voilas_kernel_pools_config():
    manager = _mixed()(memory_budget_mb=1e6)
    manager.kernel_pools_config = pool.pools_config({"a.ipynb": 3, "b.ipynb": 0}, default=1,
                                                    env={"OMP_NUM_THREADS": "1", "DPVIZ_TEST": "x"})
    manager._known.add("c.ipynb")  # a notebook Voilà asked a pool for (fill_if_needed)
    manager._pools = {}
    assert manager.pool_targets == {"a.ipynb": 3, "b.ipynb": 0, "c.ipynb": 1}
    env = manager._kernel_env("a.ipynb")
    assert env["OMP_NUM_THREADS"] == "1" and env["DPVIZ_TEST"] == "x" and env["PATH"] == os.environ["PATH"]
    assert manager._deficits() == [("a.ipynb", 3), ("c.ipynb", 1)]  # nothing for the prose-like empty pool
    assert pool.pools_config({}, default=0) == {"default": {"pool_size": 0,
                                                            "kernel_env_variables": pool.SINGLE_THREAD_ENV}}
