"""Kernels forked from the fork server (dpviz/serve/forkserver.py) behave like kernels started afresh.

The oracle for "like any other kernel" is a kernel started the usual way (a new interpreter), asked the same
questions: the comm targets ipywidgets needs, plotly's default renderer, the working directory and environment,
the arguments it parsed. Interrupt, shutdown and the end of the fork server are checked on the processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _kernels import ipc_connection
from jupyter_client import KernelManager
from jupyter_client.provisioning import KernelProvisionerFactory

from dpviz.serve import forkserver
from dpviz.serve.pool import SINGLE_THREAD_ENV

# What a lesson kernel's environment decides at import or start-up, as the kernel reports it.
PROBE = """
import json, os, sys, comm, numpy, plotly.io, ipywidgets  # a lesson imports ipywidgets (panels) first
print(json.dumps({
    "targets": sorted(comm.get_comm_manager().targets),
    "renderer": plotly.io.renderers.default,
    "cwd": os.getcwd(),
    "marker": os.environ.get("DPVIZ_TEST_MARKER"),
    "path0": sys.path[0],
    "draw": float(numpy.random.random()),
    "threads_env": os.environ.get("OPENBLAS_NUM_THREADS"),
}))
"""


@pytest.fixture(scope="module")
def fork_server():
    factory = KernelProvisionerFactory.instance()
    saved = factory.default_provisioner_name
    server = forkserver.start_fork_server({**os.environ, **SINGLE_THREAD_ENV})
    factory.default_provisioner_name = "dpviz-fork"
    yield server
    factory.default_provisioner_name = saved
    forkserver.FORK_SERVER = None
    server.stop()


def _start(tmp_path: Path, fork: bool) -> KernelManager:
    factory = KernelProvisionerFactory.instance()
    saved = factory.default_provisioner_name
    factory.default_provisioner_name = "dpviz-fork" if fork else "local-provisioner"
    try:
        km = KernelManager(kernel_name="python3", **ipc_connection())
        km.start_kernel(cwd=str(tmp_path), env={**os.environ, **SINGLE_THREAD_ENV, "DPVIZ_TEST_MARKER": "m"})
    finally:
        factory.default_provisioner_name = saved
    return km


def _run(km: KernelManager, code: str, timeout: float = 60) -> tuple[str, dict]:
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=timeout)
        out: list[str] = []
        reply = kc.execute_interactive(code, timeout=timeout, output_hook=lambda m: out.append(
            m["content"].get("text", "")) if m["msg_type"] == "stream" else None)
        return "".join(out), reply["content"]
    finally:
        kc.stop_channels()


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rfind(")") + 2 :].split()[1])


def _gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state in "ZX":
            return True
        time.sleep(0.1)
    return False


def test_a_forked_kernel_answers_like_a_kernel_started_afresh(fork_server, tmp_path):
    forked, fresh = _start(tmp_path, fork=True), _start(tmp_path, fork=False)
    try:
        assert isinstance(forked.provisioner.process, forkserver.ForkedKernel)
        assert isinstance(fresh.provisioner.process, subprocess.Popen)
        pid = forked.provisioner.pid
        assert _parent(pid) == fork_server._proc.pid
        argv = json.loads(_run(forked, "import json, sys; print(json.dumps(sys.argv))")[0])
        assert argv == ["ipykernel_launcher", "-f", forked.connection_file]  # what the launcher would have parsed
        answers = [json.loads(_run(km, PROBE)[0]) for km in (forked, fresh)]
        draws = [a.pop("draw") for a in answers]
        assert answers[0] == answers[1]
        assert "jupyter.widget.control" in answers[0]["targets"] and answers[0]["marker"] == "m"
        # the child collects garbage, but never walks (and so never copies) the fork server's imported objects
        assert _run(forked, "import gc; print(gc.isenabled(), gc.get_freeze_count() > 10_000)")[0].split() == [
            "True", "True"]
        # numpy's legacy global state is reseeded in each child: two forked kernels do not share it
        other = _start(tmp_path, fork=True)
        try:
            assert json.loads(_run(other, PROBE)[0])["draw"] != draws[0]
        finally:
            other.shutdown_kernel(now=True)
    finally:
        forked.shutdown_kernel(now=True)
        fresh.shutdown_kernel(now=True)


def test_a_forked_kernel_is_interrupted_and_shut_down_like_any_other(fork_server, tmp_path):
    km = _start(tmp_path, fork=True)
    pid = km.provisioner.pid
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        msg_id = kc.execute("import time; time.sleep(60)")
        time.sleep(1.0)
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=20)
        assert reply["parent_header"]["msg_id"] == msg_id
        assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    assert _gone(pid, 10), "the kernel process outlived its shutdown"
    assert km.provisioner is None or km.provisioner.process is None


def test_kernels_end_with_their_fork_server(tmp_path):
    server = forkserver.ForkServer()
    server.start({**os.environ, **SINGLE_THREAD_ENV})
    connection = tmp_path / "kernel-test.json"
    km = KernelManager(kernel_name="python3", connection_file=str(connection), **ipc_connection())
    km.write_connection_file()
    pid = server.spawn([os.path.realpath(sys.executable), "-m", "ipykernel_launcher", "-f", str(connection)],
                       {**os.environ, **SINGLE_THREAD_ENV}, str(tmp_path))
    assert pid is not None and not _gone(pid, 2)
    zygote = server._proc.pid
    server.stop()
    assert _gone(zygote, 10), "the fork server outlived the end of its socket"
    assert _gone(pid, 15), "a kernel outlived its fork server"


def test_without_a_usable_fork_server_kernels_start_the_usual_way(tmp_path):
    saved = forkserver.FORK_SERVER
    forkserver.FORK_SERVER = forkserver.ForkServer()  # never started: cannot fork
    try:
        km = _start(tmp_path, fork=True)
        try:
            assert isinstance(km.provisioner.process, subprocess.Popen)
            assert _run(km, "print(6 * 7)")[0].strip() == "42"
        finally:
            km.shutdown_kernel(now=True)
    finally:
        forkserver.FORK_SERVER = saved


def test_only_this_pythons_ipykernel_is_forked():
    python = os.path.realpath(sys.executable)
    assert forkserver._forkable([python, "-m", "ipykernel_launcher", "-f", "k.json"])
    assert not forkserver._forkable(["/usr/bin/other-python", "-m", "ipykernel_launcher", "-f", "k.json"])
    assert not forkserver._forkable([python, "-m", "other_kernel", "-f", "k.json"])
    assert not forkserver._forkable([python])


def test_a_forked_kernel_that_ended_reports_it_and_is_never_confused_with_a_later_process():
    proc = subprocess.Popen(["sleep", "30"])
    kernel = forkserver.ForkedKernel(proc.pid)
    assert kernel.poll() is None
    kernel.terminate()
    proc.wait(timeout=10)
    assert kernel.poll() == -15 and kernel.wait(timeout=1) == -15
    gone = forkserver.ForkedKernel(proc.pid)  # a pid no process holds any more
    assert gone.poll() == 0


def test_a_forked_kernels_address_space_is_capped(tmp_path):
    """Each forked kernel runs under RLIMIT_AS (the fork server's own limit is left as it was): an allocation
    beyond the cap is a MemoryError in that kernel, which goes on answering."""

    limit_mb = 3072
    saved = forkserver.FORK_SERVER
    server = forkserver.start_fork_server({**os.environ, **SINGLE_THREAD_ENV}, memory_limit_mb=limit_mb)
    factory = KernelProvisionerFactory.instance()
    name = factory.default_provisioner_name
    factory.default_provisioner_name = "dpviz-fork"
    try:
        km = _start(tmp_path, fork=True)
        try:
            assert isinstance(km.provisioner.process, forkserver.ForkedKernel)
            out = _run(km, "import resource; print(resource.getrlimit(resource.RLIMIT_AS)[0])")[0]
            assert int(out) == limit_mb * 2**20
            _, reply = _run(km, f"x = bytearray({limit_mb} * 2**20)")
            assert reply["status"] == "error" and reply["ename"] == "MemoryError"
            assert _run(km, "print(6 * 7)")[0].strip() == "42"
        finally:
            km.shutdown_kernel(now=True)
        fork_server_limit = Path(f"/proc/{server._proc.pid}/limits").read_text()
        assert "Max address space" in fork_server_limit and "unlimited" in fork_server_limit.split(
            "Max address space")[1].splitlines()[0]
    finally:
        factory.default_provisioner_name = name
        server.stop()
        forkserver.FORK_SERVER = saved


def test_a_fork_server_whose_server_ended_while_it_imported_ends_quietly(capfd):
    """The server may end before the fork server has imported (it could not bind its port, Ctrl+C): the fork
    server's "ready" then meets a closed socket, and it ends with status 0 and nothing on stderr."""
    server = forkserver.ForkServer()
    server.start({**os.environ, **SINGLE_THREAD_ENV})  # as the app starts it (its stderr is this process's)
    server._channel.close()  # the server is gone before the fork server replies
    returncode = server._proc.wait(timeout=120)
    assert (returncode, capfd.readouterr().err) == (0, "")
