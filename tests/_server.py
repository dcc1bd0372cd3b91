"""Start ``python -m dpviz.serve`` on a free loopback port for a test, and talk to it like a browser would.

Shared by the server tests: a running app (always terminated), an HTTP client that keeps cookies, and a v1
kernel WebSocket client (jupyter_server's framing, which the app requires).
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
V1 = "v1.kernel.websocket.jupyter.org"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class App:
    proc: subprocess.Popen
    url: str
    log_path: Path
    log_file: object = None
    runtime_dir: Path | None = None  # where the app's kernels' connection files are (--Voila.connection_dir_root)

    def kernel_pids(self) -> dict[str, int]:
        """Kernel id → pid of each live kernel of this app (the process listening on its shell port)."""
        from dpviz.serve import procs

        return procs.kernel_pids(self.runtime_dir) if self.runtime_dir else {}

    def kernel_processes(self) -> list:
        """The app's kernel processes (psutil), forked or not."""
        import psutil

        pids = set(self.kernel_pids().values())
        return [p for p in psutil.Process(self.proc.pid).children(recursive=True) if p.pid in pids]

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def status(self) -> dict:
        with urllib.request.urlopen(self.url + "/dpviz/status.json", timeout=5) as r:
            return json.loads(r.read())

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:  # pragma: no cover
            self.proc.kill()
            self.proc.wait(timeout=10)
        if self.log_file is not None:
            self.log_file.close()


#: The runtime directories (connection files) of every app this process started.
_RUNTIME_DIRS: list[Path] = []

#: What the app logs when its port was taken between :func:`free_port` and its own bind (``--Voila.port_retries=0``:
#: without it Voilà would quietly listen on another port, one the test never asks).
PORT_TAKEN = "no available port could be found"


def start_app(log_dir: Path, *args: str, base_url: str = "/", wait_for: str | None = None, timeout: float = 180,
              python: str | None = None, env: dict | None = None, cwd: Path | None = None) -> App:
    """Start the app with ``args``; wait until it answers (and, if given, until its log shows ``wait_for``).

    ``python``: the interpreter (default: this one); ``env``: its whole environment (default: inherited), in which
    ``XDG_DATA_HOME`` is the test's ``log_dir/data`` unless set (a class's default store folder is under it);
    ``cwd``: its working directory (default: ``log_dir``; any directory: the app finds its lessons in the package).
    A port another process took before the app bound it is tried again on a new one (at most three times).
    """
    # A class's store goes under the user's data directory by default (--class-dir): here, under the test's own.
    env = {**(os.environ if env is None else env)}
    env.setdefault("XDG_DATA_HOME", str((log_dir / "data").resolve()))
    for _attempt in range(3):
        port = free_port()
        log_path = log_dir / f"app-{port}.log"
        log = open(log_path, "w")
        runtime = log_dir / f"runtime-{port}"
        runtime.mkdir(exist_ok=True)
        _RUNTIME_DIRS.append(runtime)
        proc = subprocess.Popen(
            [python or sys.executable, "-m", "dpviz.serve", f"--port={port}", "--Voila.port_retries=0",
             "--Voila.ip=127.0.0.1", f"--base_url={base_url}", f"--Voila.connection_dir_root={runtime}", *args],
            cwd=cwd or log_dir, stdout=log, stderr=subprocess.STDOUT, env=env,
        )
        app = App(proc, f"http://127.0.0.1:{port}{base_url.rstrip('/')}", log_path, log, runtime)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            try:
                app.status()
                if wait_for is None or wait_for in app.log():
                    return app
            except OSError:
                pass
            time.sleep(0.3)
        else:
            app.stop()
            raise RuntimeError(f"dpviz.serve not up within {timeout} s:\n" + app.log()[-3000:])
        log.close()
        if PORT_TAKEN not in app.log():
            raise RuntimeError("dpviz.serve exited:\n" + app.log()[-3000:])
    raise RuntimeError("dpviz.serve found its port taken three times:\n" + app.log()[-3000:])


def page_kernel_id(html: str) -> str:
    """The id of the kernel a lesson page was given, as Voilà writes it into the page."""
    return re.search(r'"kernelId":\s*"([0-9a-f-]+)"', html)[1]


class Client:
    """An HTTP client with its own cookie jar (one browser)."""

    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def request(self, path: str, method: str = "GET", headers: dict | None = None, data: bytes | None = None,
                timeout: float = 120):
        req = urllib.request.Request(self.base + path, method=method, headers=headers or {}, data=data)
        try:
            with self.opener.open(req, timeout=timeout) as r:
                return r.status, r.read().decode(errors="replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def open_lesson(self, name: str) -> str:
        """GET a lesson; return the kernel id embedded in the page."""
        status, body = self.request(f"/voila/render/{name}")
        if status != 200:
            raise AssertionError(f"{name}: HTTP {status}: {body[:300]}")
        return page_kernel_id(body)


def v1_frame(channel: str, msg_type: str, content: dict, session: str = "s", metadata: dict | None = None) -> bytes:
    """One kernel message in jupyter_server's v1 WebSocket framing."""
    header = {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": session, "username": "t",
              "version": "5.3", "date": "2026-01-01T00:00:00Z"}
    parts = [channel.encode(), json.dumps(header).encode(), b"{}", json.dumps(metadata or {}).encode(),
             json.dumps(content).encode()]
    n = len(parts) + 1  # an offset where each part starts, and one where the frame ends
    offsets, pos = [], 8 * (n + 1)
    for p in parts:
        offsets.append(pos)
        pos += len(p)
    offsets.append(pos)
    return n.to_bytes(8, "little") + b"".join(o.to_bytes(8, "little") for o in offsets) + b"".join(parts)


def ws_url(app: App, kernel_id: str) -> str:
    return app.url.replace("http://", "ws://") + f"/api/kernels/{kernel_id}/channels?session_id={uuid.uuid4()}"


async def ws_connect(url: str, cookie: str = "", subprotocols=(V1,)):
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    req = HTTPRequest(url, headers={"Cookie": cookie} if cookie else {})
    return await websocket_connect(req, subprotocols=list(subprotocols) or None, max_message_size=64 << 20)


def ws_handshake_status(url: str, cookie: str = "", subprotocols=(V1,)) -> int:
    """HTTP status of the WebSocket handshake: 101 when accepted, else the refusal's code."""
    from tornado.httpclient import HTTPClientError

    async def go():
        try:
            conn = await asyncio.wait_for(ws_connect(url, cookie, subprotocols), 30)
        except HTTPClientError as e:
            await asyncio.sleep(0.05)
            return e.code
        conn.close()
        await asyncio.sleep(0.05)
        return 101

    return asyncio.run(go())


def ws_send_and_wait_closed(url: str, cookie: str, frames: list[bytes], wait: float = 5.0) -> bool:
    """Connect (v1), send ``frames``; True if the server closed the socket within ``wait`` seconds."""

    async def go():
        from tornado.websocket import WebSocketClosedError

        conn = await asyncio.wait_for(ws_connect(url, cookie), 30)
        try:
            try:
                for f in frames:
                    await conn.write_message(f, binary=True)
            except WebSocketClosedError:
                return True
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                msg = await asyncio.wait_for(conn.read_message(), max(deadline - time.monotonic(), 0.01))
                if msg is None:
                    return True
            return False
        finally:
            conn.close()
            await asyncio.sleep(0.05)

    try:
        return asyncio.run(go())
    except asyncio.TimeoutError:
        return False


def answers_within(app: App, seconds: float) -> bool:
    """True if another client gets the status page within ``seconds``."""
    try:
        with urllib.request.urlopen(app.url + "/dpviz/status.json", timeout=seconds) as r:
            return r.status == 200
    except OSError:
        return False


def wait_until(predicate, timeout: float, step: float = 0.5) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def kernel_pids() -> dict[str, int]:
    """Kernel id → pid of every live kernel of the apps this process started (by the ports in their connection
    files: a forked kernel's command line is its fork server's)."""
    from dpviz.serve import procs

    found = {}
    for runtime in _RUNTIME_DIRS:
        found.update(procs.kernel_pids(runtime))
    return found


def server_socket_option(pid: int, peer: tuple, level: int, option: int) -> int:
    """``getsockopt`` on process ``pid``'s end of the TCP connection whose other end is ``peer`` (a socket of this
    process), read through a duplicate of that process's descriptor (``pidfd_getfd``, Linux 5.6+; the same user)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    try:
        for name in os.listdir(f"/proc/{pid}/fd"):
            try:
                if not os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                    continue
            except OSError:  # closed meanwhile
                continue
            fd = libc.syscall(438, pidfd, int(name), 0)  # pidfd_getfd (the same number on every architecture)
            if fd < 0:
                raise OSError(ctypes.get_errno(), f"pidfd_getfd on the server's descriptor {name}")
            with socket.socket(fileno=fd) as sock:
                try:
                    if sock.type == socket.SOCK_STREAM and sock.getpeername() == peer:
                        return sock.getsockopt(level, option)
                except OSError:  # not connected, or not an inet socket
                    continue
    finally:
        os.close(pidfd)
    raise AssertionError(f"no socket of process {pid} is connected to {peer}")
