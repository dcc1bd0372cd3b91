"""The classroom server (``dpviz serve``, ``python -m dpviz.serve``) against raw HTTP and WebSocket clients on loopback.

One test per attack of the security review (``shared/design/security-review.md``): after each, another client
is still answered within 1 s and the server's memory stays bounded. Then the kernel lifecycle (a kernel ends
when its page is gone), the memory budget's "class is full" page, the per-browser limit, classroom mode and the
status page. Each server starts without a pre-heated pool unless the test is about the pool, to keep CPU low.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.request

import psutil
import pytest
from _server import (
    V1,
    Client,
    answers_within,
    free_port,
    kernel_pids,
    server_socket_option,
    start_app,
    v1_frame,
    wait_until,
    ws_connect,
    ws_handshake_status,
    ws_send_and_wait_closed,
    ws_url,
)

from dpviz.lessons import lessons
from dpviz.serve import procs
from dpviz.serve.guards import plausible_v1_frame
from dpviz.serve.pool import MEMORY_MAX_AGE

# The test's own tornado WebSocket clients can leave a socket for the garbage collector after the server closed
# the connection (that is what several attacks provoke); the warning is about this process, not the server.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


@pytest.fixture(scope="module", autouse=True)
def _collect_client_sockets():
    """Collect those sockets while this module's filter still applies (not during the next module's first test)."""
    yield
    import gc

    gc.collect()

LESSON = "11_items_to_users.ipynb"
GRACE = 4  # seconds: --shutdown-grace of the test server


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    a = start_app(
        tmp_path_factory.mktemp("server"),
        "--pool_size=0",
        f"--shutdown-grace={GRACE}",
        f"--connect-grace={GRACE}",
    )
    yield a
    a.stop()


def _server_rss(app) -> float:
    return psutil.Process(app.proc.pid).memory_info().rss / 2**20


def _live(app, kernel_id: str) -> bool:
    return kernel_id in app.log() and f"Kernel shutdown: {kernel_id}" not in app.log()


# ---- framing: the two freezes -----------------------------------------------------------------------------------


def test_plausible_v1_frame_accepts_real_frames_and_refuses_lying_offset_tables():
    good = v1_frame("shell", "comm_info_request", {})
    assert plausible_v1_frame(good)
    assert not plausible_v1_frame((2**62).to_bytes(8, "little") + bytes(8))  # freeze B
    assert not plausible_v1_frame((100_000_000).to_bytes(8, "little") + bytes(4))  # nbufs = 1e8
    assert not plausible_v1_frame(good[:-1][:40])  # offsets past the end
    assert not plausible_v1_frame(json.dumps({"channel": "shell"}))  # text frame (legacy framing)
    swapped = bytearray(good)
    swapped[16:24], swapped[24:32] = good[24:32], good[16:24]  # decreasing offsets
    assert not plausible_v1_frame(bytes(swapped))


def test_freeze_a_legacy_websocket_is_refused_and_server_keeps_answering(app):
    client = Client(app.url)
    kid = client.open_lesson(LESSON)
    before = _server_rss(app)
    # The old framing (no subprotocol offered): Voila would misread every binary kernel message later.
    assert ws_handshake_status(ws_url(app, kid), client.cookie_header(), subprotocols=()) == 400
    assert answers_within(app, 1.0)
    assert _server_rss(app) < before + 50


def test_freeze_b_lying_offset_count_closes_the_socket_and_server_keeps_answering(app):
    client = Client(app.url)
    kid = client.open_lesson(LESSON)
    before = _server_rss(app)
    closed = ws_send_and_wait_closed(ws_url(app, kid), client.cookie_header(),
                                     [(2**62).to_bytes(8, "little") + bytes(8)])
    assert closed
    assert answers_within(app, 1.0)
    assert _server_rss(app) < before + 50


def test_huge_buffer_count_and_oversized_frames_are_refused(app):
    client = Client(app.url)
    kid = client.open_lesson(LESSON)
    url, cookie = ws_url(app, kid), client.cookie_header()
    before = _server_rss(app)
    assert ws_send_and_wait_closed(url, cookie, [(100_000_000).to_bytes(8, "little") + bytes(4)])
    assert ws_send_and_wait_closed(url, cookie, [bytes(2 << 20)])  # over the 1 MiB message limit
    assert answers_within(app, 1.0)
    assert _server_rss(app) < before + 50


def test_well_formed_v1_messages_still_reach_the_kernel(app):
    """The guard must not break the real protocol: a comm_info_request is answered."""
    import asyncio

    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    client = Client(app.url)
    kid = client.open_lesson(LESSON)

    async def go():
        conn = await websocket_connect(
            HTTPRequest(ws_url(app, kid), headers={"Cookie": client.cookie_header()}), subprotocols=[V1]
        )
        await conn.write_message(v1_frame("shell", "comm_info_request", {}), binary=True)
        try:
            for _ in range(200):
                msg = await asyncio.wait_for(conn.read_message(), 30)
                if msg is None:
                    return False
                if isinstance(msg, bytes) and b"comm_info_reply" in msg:
                    return True
            return False
        finally:
            conn.close()
            await asyncio.sleep(0.05)

    assert asyncio.run(go())


def _parse_v1(frame: bytes) -> tuple[str, dict, dict]:
    """(channel, header, content) of a v1 frame sent by the server."""
    n = int.from_bytes(frame[:8], "little")
    offsets = [int.from_bytes(frame[8 * (i + 1): 8 * (i + 2)], "little") for i in range(n)]
    parts = [frame[offsets[i]: offsets[i + 1]] for i in range(min(n - 1, 5))]
    return parts[0].decode(), json.loads(parts[1]), json.loads(parts[4])


def test_a_slider_value_beyond_its_range_over_the_websocket_is_refused(app):
    """The widget values a page sends are input: a slider value far outside its range, with min/max rewritten in
    the same message, is refused by the kernel (which sends its own state back), and the server keeps answering."""
    import asyncio

    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    client = Client(app.url)
    kid = client.open_lesson(LESSON)

    async def comm(conn, comm_id, data, msg_type="comm_msg", **extra):
        metadata = {"version": "1.0.0"}  # ipywidgets' widget control protocol
        await conn.write_message(v1_frame("shell", msg_type, {"comm_id": comm_id, "data": data, **extra},
                                          metadata=metadata), binary=True)

    async def until(conn, predicate, seconds=60):
        deadline = asyncio.get_running_loop().time() + seconds
        while True:
            msg = await asyncio.wait_for(conn.read_message(), deadline - asyncio.get_running_loop().time())
            assert msg is not None, "the server closed the socket"
            if isinstance(msg, bytes):
                _channel, header, content = _parse_v1(msg)
                if header.get("msg_type") == "comm_msg" and predicate(content):
                    return content

    async def go():
        conn = await websocket_connect(
            HTTPRequest(ws_url(app, kid), headers={"Cookie": client.cookie_header()}), subprotocols=[V1])
        try:
            await comm(conn, "control-1", {}, "comm_open", target_name="jupyter.widget.control")
            await comm(conn, "control-1", {"method": "request_states"})
            states = (await until(conn, lambda c: c["data"].get("method") == "update_states"))["data"]["states"]
            sid, slider = next((k, v["state"]) for k, v in states.items()
                               if v["model_name"] in ("FloatSliderModel", "FloatLogSliderModel", "IntSliderModel"))
            await comm(conn, sid, {"method": "update", "state": {"value": 1e9, "max": 1e12}, "buffer_paths": []})
            back = await until(conn, lambda c: c["comm_id"] == sid and c["data"].get("method") == "update")
            return slider, back["data"]["state"]
        finally:
            conn.close()
            await asyncio.sleep(0.05)

    before, after = asyncio.run(go())
    assert after["value"] == before["value"] and after.get("max", before["max"]) == before["max"]
    assert answers_within(app, 1.0)


# ---- ownership and routes ---------------------------------------------------------------------------------------


def test_a_kernel_answers_only_the_page_it_was_given_to(app):
    owner, stranger = Client(app.url), Client(app.url)
    kid = owner.open_lesson(LESSON)
    stranger.request("/voila/render/index.ipynb")  # the stranger has a client cookie of its own
    assert ws_handshake_status(ws_url(app, kid), stranger.cookie_header()) == 403
    assert ws_handshake_status(ws_url(app, kid), "") == 403
    forged = {"Cookie": "_xsrf=a", "X-XSRFToken": "a"}
    assert stranger.request(f"/api/kernels/{kid}", method="DELETE", headers=forged)[0] == 404
    assert stranger.request(f"/voila/api/shutdown/{kid}", method="POST", headers=forged, data=b"")[0] in (403, 404)
    assert _live(app, kid)
    # The owner's own clean-up request (sent by the page as it closes, without an _xsrf token) works.
    assert owner.request(f"/voila/api/shutdown/{kid}", method="POST", data=b"")[0] == 204
    assert wait_until(lambda: not _live(app, kid), 10)


def test_lesson_pages_load_nothing_from_outside_the_server_and_carry_a_print_style(app):
    status, body = Client(app.url).request(f"/voila/render/{LESSON}")
    assert status == 200 and "@media print" in body
    assert "fontawesome" not in body.lower() and "cdn.jsdelivr" not in body
    outside = [u for u in re.findall(r"""(?:src|href)=["'](https?://[^"']+)""", body) if "127.0.0.1" not in u]
    assert not outside, f"the page loads {outside} from outside the server"
    # No MathJax: the lessons contain no TeX (test_lessons.py), and the page names a stand-in that typesets nothing
    assert '"fullMathjaxUrl": "/dpviz-static/no-mathjax.js"' in body
    status, script = Client(app.url).request("/dpviz-static/no-mathjax.js?config=none")
    assert status == 200 and "window.MathJax" in script and "Queue" in script


def test_theme_and_template_arguments_do_not_bypass_anything(app):
    client = Client(app.url)
    status, body = client.request(f"/voila/render/{LESSON}?theme=dark&template=classic")
    assert status == 200
    assert 'data-jp-theme-name="JupyterLab Dark"' not in body


def test_only_the_landing_page_and_lessons_are_served(app):
    client = Client(app.url)
    status, body = client.request("/voila/tree")  # redirected to the landing page, no listing
    assert status == 200 and f"{lessons()[0].order:02d} · " in body and "voila/tree" not in body
    kernels = app.status()["kernels"]
    status, body = client.request("/voila/render/notation.ipynb")  # prose only: static, no kernel
    assert status == 200 and "<title>dpviz · Notation and glossary</title>" in body and "<table" in body
    assert app.status()["kernels"] == kernels
    assert client.request("/voila/api/contents")[0] == 404
    assert client.request("/voila/render/voila.json")[0] == 404
    assert client.request("/voila/render/..%2fsetup.py")[0] in (403, 404)


def test_cross_site_subresources_and_foreign_hosts_start_no_kernel(app):
    client = Client(app.url)
    kernels = app.status()["kernels"]
    assert client.request(f"/voila/render/{LESSON}", headers={"Sec-Fetch-Dest": "image"})[0] == 403
    evil = {"Host": "evil.example", "Origin": "http://evil.example"}
    assert client.request(f"/voila/render/{LESSON}", headers=evil)[0] == 403
    assert app.status()["kernels"] == kernels


def test_landing_page_starts_no_kernel(app):
    client = Client(app.url)
    kernels = app.status()["kernels"]
    status, body = client.request("/")
    assert status == 200 and f"{lessons()[1].order:02d} · " in body
    assert app.status()["kernels"] == kernels


def test_files_and_pages_are_gzipped_for_a_browser_that_accepts_it(app):
    """A lesson page's ~4.8 MB of scripts and styles go out compressed (dpviz.serve.compression): plotly.js's
    bundle (1.5 MB) in under a third of its size, and the compressed bytes decompress to the file shipped."""
    import gzip

    from dpviz.app import PLOTLY_BUNDLE, STATIC

    def get(path, accept):
        req = urllib.request.Request(app.url + path, headers={"Accept-Encoding": accept})
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.headers, r.read()

    shipped = (STATIC / PLOTLY_BUNDLE).read_bytes()
    sent = []
    for _ in range(2):  # compressed on the first request, from memory (with its length) on the second
        headers, body = get("/dpviz-static/" + PLOTLY_BUNDLE, "gzip, deflate, br")
        assert headers["Content-Encoding"] == "gzip" and gzip.decompress(body) == shipped
        assert len(body) < len(shipped) / 3
        sent.append(body)
    assert sent[1] == sent[0] and int(headers["Content-Length"]) == len(sent[1])
    headers, body = get("/dpviz-static/" + PLOTLY_BUNDLE, "identity")
    assert headers["Content-Encoding"] is None and body == shipped
    headers, body = get("/voila/static/voila.js", "gzip")
    assert headers["Content-Encoding"] == "gzip" and b"voila" in gzip.decompress(body).lower()
    headers, body = get("/voila/render/index.ipynb", "gzip")  # the landing page, written per request
    assert headers["Content-Encoding"] == "gzip" and f"{lessons()[1].order:02d} · ".encode() in gzip.decompress(body)


# ---- lifecycle --------------------------------------------------------------------------------------------------


def test_connect_grace_is_an_option_of_its_own():
    """A page on a slow device may need tens of seconds before it connects: its kernel waits --connect-grace
    (default 120 s), not the --shutdown-grace that applies after a page has gone."""
    from dpviz.serve.app import DpvizVoila
    from dpviz.serve.pool import ClassroomKernelManager

    assert ClassroomKernelManager.class_traits()["connect_grace"].default_value == 120.0
    assert DpvizVoila.aliases["connect-grace"] == "ClassroomKernelManager.connect_grace"
    assert DpvizVoila.aliases["shutdown-grace"] == "ClassroomKernelManager.shutdown_grace"


def test_a_busy_server_still_waits_for_every_cell_output():
    """Voilà's executor gives a cell's outputs iopub_timeout seconds after the cell's reply (nbclient's default: 4)
    and then serves the page without them. In a class's rush (30 kernels on 2 cores) the outputs of a lesson's
    cells came later than that: 9 of 30 pages (29 of 30 with forked kernels) lacked panels that existed in their
    kernels. The lessons' configuration waits as long as a kernel may take to start."""
    from dpviz.lessons import NOTEBOOK_DIR

    config = json.loads((NOTEBOOK_DIR / "voila.json").read_text())["VoilaExecutor"]
    assert config["iopub_timeout"] >= 60


def test_kernel_of_a_page_that_never_connects_ends_after_the_grace_period(app):
    kid = Client(app.url).open_lesson(LESSON)
    assert _live(app, kid)
    assert wait_until(lambda: not _live(app, kid), GRACE + 15)


def test_kernel_lives_while_its_page_is_connected_and_ends_after_it_leaves(app):
    import asyncio

    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    client = Client(app.url)
    kid = client.open_lesson(LESSON)

    async def stay(seconds):
        conn = await websocket_connect(
            HTTPRequest(ws_url(app, kid), headers={"Cookie": client.cookie_header()}), subprotocols=[V1]
        )
        await asyncio.sleep(seconds)
        alive = _live(app, kid)
        conn.close()
        await asyncio.sleep(0.05)
        return alive

    assert asyncio.run(stay(GRACE + 3))  # connected past the grace period: still alive
    assert wait_until(lambda: not _live(app, kid), GRACE + 15)


def test_the_kernel_websocket_sends_each_message_at_once(app):
    """TCP_NODELAY on the server's end of a page's kernel WebSocket: with Nagle's algorithm on, a small message
    written while the previous one is unacknowledged waits for the browser's delayed acknowledgement (up to 40 ms):
    a figure's update after a slider move reached the page 35-45 ms after the server had it."""
    import asyncio
    import socket

    client = Client(app.url)
    kid = client.open_lesson(LESSON)

    async def option():
        conn = await ws_connect(ws_url(app, kid), client.cookie_header())
        try:
            await conn.write_message(v1_frame("shell", "comm_info_request", {}), binary=True)
            await asyncio.wait_for(conn.read_message(), 30)  # the handler's open() has run
            mine = conn.protocol.stream.socket.getsockname()
            return server_socket_option(app.proc.pid, mine, socket.IPPROTO_TCP, socket.TCP_NODELAY)
        finally:
            conn.close()
            await asyncio.sleep(0.05)

    assert asyncio.run(option()) != 0


def test_jupyterlab_as_make_lab_starts_it_sends_each_kernel_message_at_once(tmp_path):
    """``make lab`` gives JupyterLab's server the app's kernel WebSocket connection (``LAB_OPTIONS``): TCP_NODELAY
    on the server's end of a notebook's kernel WebSocket there too."""
    import asyncio
    import secrets
    import socket
    import subprocess
    import sys
    from pathlib import Path

    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    root = Path(__file__).resolve().parents[2]
    dry = subprocess.run(["make", "-n", "lab"], cwd=root, capture_output=True, text=True, check=True).stdout
    line = next(ln for ln in dry.splitlines() if " lab lab-work/" in ln)
    options = line.split(" lab lab-work/", 1)[1].split()
    assert options, f"make lab passes JupyterLab no options: {line}"
    port, token = free_port(), secrets.token_hex(8)
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", f"--port={port}", "--ServerApp.ip=127.0.0.1", "--no-browser",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={tmp_path}", "--allow-root", *options],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base, auth = f"http://127.0.0.1:{port}", {"Authorization": f"token {token}"}
    try:
        def up():
            try:
                with urllib.request.urlopen(urllib.request.Request(f"{base}/api/status", headers=auth), timeout=1):
                    return True
            except OSError:
                return server.poll() is not None  # ended: fail below rather than wait

        assert wait_until(up, 60) and server.poll() is None, "JupyterLab's server did not start"
        request = urllib.request.Request(f"{base}/api/kernels", data=b"{}", headers=auth, method="POST")
        kid = json.loads(urllib.request.urlopen(request, timeout=60).read())["id"]

        async def option():
            conn = await websocket_connect(HTTPRequest(
                f"ws://127.0.0.1:{port}/api/kernels/{kid}/channels?session_id=s", headers=auth))
            try:
                await asyncio.wait_for(conn.read_message(), 60)  # connected: the kernel's first status
                mine = conn.protocol.stream.socket.getsockname()
                return server_socket_option(server.pid, mine, socket.IPPROTO_TCP, socket.TCP_NODELAY)
            finally:
                conn.close()
                await asyncio.sleep(0.05)

        assert asyncio.run(option()) != 0
    finally:
        server.terminate()
        server.wait(timeout=30)


def _kernel_process(app, kernel_id: str) -> psutil.Process | None:
    pid = app.kernel_pids().get(kernel_id)
    return psutil.Process(pid) if pid else None


def test_lesson_kernels_are_forked_from_the_fork_server_and_end_with_their_page(app):
    """Under the app a lesson's kernel (the process listening on its ports) is a child of the fork server, and the
    process itself is gone once its page is."""
    kid = Client(app.url).open_lesson(LESSON)
    kernel = _kernel_process(app, kid)
    assert kernel is not None
    parent = kernel.parent()
    assert "-m dpviz.serve.forkserver" in " ".join(parent.cmdline()) and parent.ppid() == app.proc.pid
    assert wait_until(lambda: not kernel.is_running() or kernel.status() == psutil.STATUS_ZOMBIE, GRACE + 15)


def test_without_forking_a_lesson_kernel_is_the_servers_own_child(tmp_path):
    a = start_app(tmp_path, "--pool_size=0", "--fork-kernels=False", "--shutdown-grace=300")
    try:
        kid = Client(a.url).open_lesson(LESSON)
        kernel = _kernel_process(a, kid)
        assert kernel is not None and kernel.ppid() == a.proc.pid
        assert "-m ipykernel_launcher -f" in " ".join(kernel.cmdline())  # started afresh: a command line of its own
        assert not any("dpviz.serve.forkserver" in " ".join(r.cmdline()) for r in procs.tree(a.proc.pid))
    finally:
        a.stop()


def test_one_browser_holds_at_most_its_limit_of_kernels(tmp_path):
    # A long grace period, so that the first two kernels are still alive when the third page is asked for.
    a = start_app(tmp_path, "--pool_size=0", "--shutdown-grace=300", "--max-kernels-per-client=2")
    try:
        client = Client(a.url)
        client.open_lesson(LESSON)
        client.open_lesson(LESSON)
        status, body = client.request(f"/voila/render/{LESSON}")
        assert status == 429 and "Too many lessons open" in body and "Traceback" not in body
        assert Client(a.url).request(f"/voila/render/{LESSON}")[0] == 200  # another browser is not affected
    finally:
        a.stop()


def test_status_json_reports_what_the_teacher_needs(app):
    status = app.status()
    for key in ("ready", "pool", "sessions", "memory_mb"):
        assert key in status
    assert isinstance(status["ready"], bool) and isinstance(status["pool"], dict)
    assert status["memory_mb"] > 50
    with urllib.request.urlopen(app.url + "/dpviz/status", timeout=5) as r:
        assert "Class status" in r.read().decode()


# ---- budget and classroom mode ---------------------------------------------------------------------------------


def test_class_full_page_when_the_memory_budget_is_spent(tmp_path):
    a = start_app(tmp_path, "--pool_size=0", "--memory-budget-mb=60")  # less than one kernel
    try:
        status, body = Client(a.url).request(f"/voila/render/{LESSON}")
        assert status == 503 and "class is full" in body and "Traceback" not in body
        assert a.status()["kernels"] == 0
        assert answers_within(a, 1.0)
    finally:
        a.stop()


def test_classroom_mode_preheats_the_class_and_reclaims_memory(tmp_path):
    a = start_app(tmp_path, "--class-size=2", "--lessons=11", f"--shutdown-grace={GRACE}", f"--connect-grace={GRACE}",
                  "--refill-quiet=1", "--refill-max-wait=20",
                  wait_for="ready for 2 students on lessons 11", timeout=240)
    try:
        status = a.status()
        assert status["ready"] is True
        assert status["pool"]["11_items_to_users.ipynb"] == 2
        assert status["pool"].get("03_privacy_loss.ipynb", 0) == 0
        # The pre-class level from a reading taken after the pool's kernels ran their lesson: a status answers with a
        # reading up to MEMORY_MAX_AGE old, which right at "ready" could predate them (158 MB read, 361 MB in fact).
        time.sleep(MEMORY_MAX_AGE + 0.5)
        idle_mb = a.status()["memory_mb"]
        kids = [Client(a.url).open_lesson(LESSON) for _ in range(2)]  # two students take the two kernels
        assert a.status()["sessions"] == 2
        # They never connect (closed their tabs): their kernels end; the pool refills to 2.
        assert wait_until(lambda: all(not _live(a, k) for k in kids), GRACE + 20)
        assert wait_until(
            lambda: a.status()["pool"]["11_items_to_users.ipynb"] == 2 and a.status()["sessions"] == 0, 120)
        # A refilled kernel is handed to the next student, and ends with its page like any other.
        refilled = set(a.kernel_pids())
        kid = Client(a.url).open_lesson(LESSON)
        assert kid in refilled
        assert wait_until(lambda: not _live(a, kid), GRACE + 20)
        assert wait_until(
            lambda: a.status()["pool"]["11_items_to_users.ipynb"] == 2 and a.status()["sessions"] == 0, 120)
        # The server reads its memory at most every MEMORY_MAX_AGE seconds: back to the pre-class level soon after.
        # Memory is counted as PSS (a small total: server, fork server, two kernels), so the bound is the pre-class
        # level plus less than one kernel: the two student kernels alive would add two (the server itself may grow
        # a little from serving the pages).
        per_kernel = a.status()["kernel_mb_estimate"]
        assert wait_until(lambda: a.status()["memory_mb"] < max(idle_mb * 1.3, idle_mb + 0.9 * per_kernel), 30), (
            idle_mb, per_kernel, a.status())
    finally:
        a.stop()


def test_a_machine_kept_busy_by_another_program_still_refills_the_pools(tmp_path):
    """The pools refill only while the machine has CPU to spare, but a busy CPU may not be students: two
    programs kept at both cores (at the lowest priority, so the refills still run) hold a refill back at most
    --refill-max-wait seconds. Without that bound the second kernel never comes back while they run."""
    import subprocess
    import sys

    a = start_app(tmp_path, "--class-size=2", "--lessons=11", f"--shutdown-grace={GRACE}", f"--connect-grace={GRACE}",
                  "--refill-quiet=1", "--refill-max-wait=5",
                  wait_for="ready for 2 students on lessons 11", timeout=240)
    spin = "import os, time; os.nice(19); end = time.monotonic() + 150\nwhile time.monotonic() < end: pass"
    hogs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(2)]
    try:
        meter = procs.CpuMeter()
        assert wait_until(lambda: (meter.busy_fraction() or 0) > 0.9, 10), "the two programs did not load the CPU"
        kids = [Client(a.url).open_lesson(LESSON) for _ in range(2)]
        assert a.status()["pool"]["11_items_to_users.ipynb"] == 0
        assert wait_until(lambda: all(not _live(a, k) for k in kids), GRACE + 20)
        # Both kernels back while the CPU stays busy (each refill: ~10 s at the refill priority, then 5 s held).
        assert wait_until(lambda: a.status()["pool"]["11_items_to_users.ipynb"] == 2, 100), a.status()
        assert all(h.poll() is None for h in hogs), "the CPU was not kept busy until the pool was full"
    finally:
        for h in hogs:
            h.kill()
            h.wait()
        a.stop()


def test_a_pooled_kernel_that_ends_leaves_the_pool_and_is_replaced(tmp_path):
    """A pre-heated kernel killed in the pool (out of memory, a crash) is never handed out: jupyter_server's
    restarter would bring it back bare, without the lesson its page was rendered from. The pool starts another."""
    import signal

    a = start_app(tmp_path, "--class-size=2", "--lessons=11", wait_for="ready for 2 students on lessons 11",
                  timeout=240)
    try:
        pooled = {k: p for k, p in kernel_pids().items() if k in a.log()}
        assert len(pooled) == 2, pooled
        victim = sorted(pooled)[0]
        os.kill(pooled[victim], signal.SIGKILL)
        assert wait_until(lambda: "restarting kernel" in a.log(), 30), a.log()[-2000:]  # the restarter saw it end
        assert wait_until(lambda: a.status()["pool"][LESSON] == 2, 180), a.status()
        handed = [Client(a.url).open_lesson(LESSON) for _ in range(2)]
        assert victim not in handed and len(set(handed)) == 2
        assert all(_live(a, k) for k in handed)
        assert wait_until(lambda: f"Kernel shutdown: {victim}" in a.log(), 30)
    finally:
        a.stop()


def test_a_kernel_culled_under_an_open_page_closes_the_pages_socket(tmp_path):
    """A page left open through a long pause has its kernel culled (--cull-idle): the server closes that page's
    kernel WebSocket, so the page learns its lesson has stopped (the page template then says so) instead of
    sending slider moves to a kernel that is gone. Before, the socket stayed open on nothing."""
    import asyncio

    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    a = start_app(tmp_path, "--class-size=1", "--lessons=11", "--cull-idle=10",
                  wait_for="ready for 1 students on lessons 11", timeout=240)
    try:
        client = Client(a.url)
        kid = client.open_lesson(LESSON)

        async def until_closed(limit: float) -> float | None:
            conn = await websocket_connect(
                HTTPRequest(ws_url(a, kid), headers={"Cookie": client.cookie_header()}), subprotocols=[V1])
            start = asyncio.get_running_loop().time()
            try:
                while await asyncio.wait_for(conn.read_message(), limit) is not None:
                    pass  # the kernel's replies to the page's start-up, then nothing: idle
            except asyncio.TimeoutError:
                conn.close()
                return None
            return asyncio.get_running_loop().time() - start

        closed_after = asyncio.run(until_closed(45))
        assert f"Culling 'idle' kernel 'python3' ({kid})" in a.log(), a.log()[-2000:]
        assert closed_after is not None, "the page's socket stayed open after its kernel was culled"
        assert wait_until(lambda: f"Kernel shutdown: {kid}" in a.log(), 5)
    finally:
        a.stop()


def test_a_kernel_that_waited_in_the_pool_longer_than_cull_idle_is_not_culled_when_handed_out(tmp_path):
    """Pooled kernels are never culled; the idle time of one a student receives counts from then. It used to count
    from the end of its lesson's execution, so a kernel that had waited longer than --cull-idle (a server started
    well before class) was culled by the next cull pass, before its page had connected: a dead lesson."""
    import time

    a = start_app(tmp_path, "--class-size=1", "--lessons=11", "--cull-idle=10",
                  wait_for="ready for 1 students on lessons 11", timeout=240)
    try:
        time.sleep(13)  # the pooled kernel idles past --cull-idle (the pool protects it)
        (pooled,) = [k for k in kernel_pids() if k in a.log()]
        kid = Client(a.url).open_lesson(LESSON)
        assert kid == pooled
        time.sleep(4)  # more than one cull pass (every 2.5 s at --cull-idle=10), the page not yet connected
        assert f"Culling 'idle' kernel 'python3' ({kid})" not in a.log() and _live(a, kid), a.log()[-2000:]
    finally:
        a.stop()


def test_a_lesson_asked_for_while_the_server_warms_up_says_what_it_waits_for(tmp_path):
    """Just after start-up the lesson's pool has no kernel ready: the page says so and points at the status and at
    the lesson with ?waited=1 (which its script opens once a kernel is ready), and no kernel is started for it."""
    a = start_app(tmp_path, "--class-size=2", "--lessons=11", "--fill-concurrency=1")
    try:
        assert a.status()["ready"] is False, "the class was ready before the first request: nothing to test"
        status, body = Client(a.url).request(f"/voila/render/{LESSON}")
        assert status == 200 and "id='dpviz-wait'" in body and "Preparing lesson 11 · " in body, body[:500]
        assert f"/voila/render/{LESSON}?waited=1" in body and "/dpviz/status.json" in body
        assert '"kernelId"' not in body and "Traceback" not in body
        assert a.status()["sessions"] == 0
        assert wait_until(lambda: a.status()["pool"].get(LESSON, 0) > 0, 180)
        kernel = Client(a.url).open_lesson(LESSON + "?waited=1")
        assert _live(a, kernel)
        # Once the class is ready, a lesson is served at once, as before.
        assert wait_until(lambda: a.status()["ready"], 180)
        assert "id='dpviz-wait'" not in Client(a.url).request(f"/voila/render/{LESSON}")[1]
    finally:
        a.stop()


def test_unknown_lesson_and_bad_options_are_refused_with_the_parameter_named(tmp_path):
    import subprocess
    import sys

    for args, name in ((["--class-size=3", "--lessons=99"], "lessons"), (["--shutdown-grace=-1"], "shutdown_grace"),
                       (["--fill-concurrency=0"], "fill_concurrency"), (["--refill-max-wait=-5"], "refill_max_wait"),
                       (["--memory-budget-mb=inf"], "memory_budget_mb")):
        out = subprocess.run([sys.executable, "-m", "dpviz.app", "--port=1", *args], capture_output=True, text=True,
                             timeout=120, cwd=tmp_path)
        assert out.returncode != 0
        assert name in out.stderr + out.stdout


def test_cpu_meter_sees_the_machine_work_and_rest():
    """The pool refills only while the machine has CPU to spare; the meter that decides it must see load."""
    import time

    meter = procs.CpuMeter()
    time.sleep(0.3)
    meter.busy_fraction()
    end = time.monotonic() + 0.6
    while time.monotonic() < end:  # one core busy: at least 1/ncores of the machine, minus scheduling noise
        pass
    busy = meter.busy_fraction()
    import os

    assert busy is not None and busy >= 0.8 / os.cpu_count()
    assert 0.0 <= busy <= 1.0


def test_cpu_meter_window_remembers_a_rush_after_a_quiet_moment():
    """One quiet half second after a burst of work is not calm: busy_over() averages over its window."""
    import os
    import time

    meter = procs.CpuMeter()
    time.sleep(0.3)
    meter.busy_fraction()
    end = time.monotonic() + 0.8
    while time.monotonic() < end:  # one core busy
        pass
    meter.busy_fraction()
    time.sleep(0.5)
    over = meter.busy_over(5.0)
    # The burst (0.8 s of one core) is part of the ~1.6 s window: at least half of it counts, with scheduling noise.
    assert over is not None and over >= 0.8 / 1.6 * 0.7 / os.cpu_count()
    time.sleep(0.2)
    latest = meter.busy_over(0.01)  # a window shorter than the last interval still uses that interval
    assert latest is not None and 0.0 <= latest <= 1.0


def test_start_up_message_says_where_to_connect_and_how_a_class_joins():
    from dpviz.app import DpvizVoila

    app = DpvizVoila()
    app.port = 8866
    alone = app._welcome()
    assert "open http://localhost:8866/" in alone and "HOST=0.0.0.0" in alone and "Only this computer" in alone
    app.ip = "0.0.0.0"
    shared = app._welcome()
    assert "Students open http://" in shared and ":8866/" in shared and "trusted network" in shared
    assert "Only this computer" not in shared


def test_start_app_tries_a_new_port_when_another_process_took_its_port(tmp_path, monkeypatch):
    """The tests' own harness: a port taken between choosing it and the app's bind (here held on purpose) makes the
    app exit (``--Voila.port_retries=0``), and ``start_app`` starts it again on a new port it then answers on."""
    import socket

    import _server

    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    taken, chosen = holder.getsockname()[1], []

    def choose() -> int:  # the held port first, then a free one
        chosen.append(free_port() if chosen else taken)
        return chosen[-1]

    monkeypatch.setattr(_server, "free_port", choose)
    try:
        a = _server.start_app(tmp_path, "--pool_size=0", timeout=120)
    finally:
        holder.close()
    try:
        assert chosen[0] == taken and len(chosen) == 2 and a.url.endswith(f":{chosen[1]}")
        assert _server.PORT_TAKEN in (tmp_path / f"app-{taken}.log").read_text()
        assert "ready" in a.status()  # it answers on the new port
    finally:
        a.stop()
