"""dpviz's jupyter-server extension (dpviz.serve.extension) in a lessons-only server, as JupyterHub starts it.

One ``jupyter server --config=<LESSONS_CONFIG>`` on a free loopback port (what ``dpviz singleuser`` runs under the
hub, without the hub): the landing page and the lessons are served with dpviz's template, nothing else of the
folder is, no JupyterLab and no terminal, the page asks nothing from a CDN, plotly.js's bundle is served once at
``dpviz-static/``, the lessons' ``voila.json`` executor settings apply, and the page's shutdown beacon (a form with the
``_xsrf`` cookie's value, as Voilà's page sends it) frees the kernel, where a beacon without it is refused.
The browser side (figures drawn, sliders followed, the culler) is ``tests/browser/test_jupyterhub.py``.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import secrets
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from _server import free_port, page_kernel_id, wait_until

from dpviz.serve import extension

pytestmark = pytest.mark.slow

LESSON = "01_why_privacy.ipynb"


class Server:
    def __init__(self, folder: Path, *args: str):
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / "server.log"
        self._log = self.log_path.open("wb")
        env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(folder / "runtime")}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "jupyter_server", f"--config={extension.LESSONS_CONFIG}", f"--port={self.port}",
             "--ip=127.0.0.1", "--no-browser", "--allow-root", f"--IdentityProvider.token={self.token}", *args],
            cwd=folder, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def get(self, path: str, *, token: bool = False) -> tuple[int, str]:
        sep = "&" if "?" in path else "?"
        url = self.url + "/" + path + (f"{sep}token={self.token}" if token else "")
        try:
            with self.opener.open(url, timeout=120) as r:
                return r.status, r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8", "replace")

    def api(self, path: str):
        req = urllib.request.Request(f"{self.url}/api/{path}", headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def beacon(self, kernel_id: str, xsrf: str | None) -> int:
        """POST the page's shutdown beacon as Voilà's page sends it (navigator.sendBeacon with a FormData)."""
        boundary = "dpvizboundary"
        fields = [] if xsrf is None else [f'--{boundary}\r\nContent-Disposition: form-data; name="_xsrf"\r\n\r\n'
                                          f"{xsrf}\r\n"]
        body = ("".join(fields) + f"--{boundary}--\r\n").encode()
        req = urllib.request.Request(f"{self.url}/voila/api/shutdown/{kernel_id}", data=body, method="POST",
                                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                                              "Origin": self.url})
        try:
            with self.opener.open(req, timeout=30) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code

    def cookie(self, name: str) -> str | None:
        return next((c.value for c in self.jar if c.name == name), None)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:  # pragma: no cover
            self.proc.kill()
        self._log.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("extension"))
    try:
        if not wait_until(lambda: s.proc.poll() is None and _answers(s), 60):
            pytest.fail("the lessons-only server did not start:\n" + s.log()[-3000:])
        yield s
    finally:
        s.stop()


def _answers(s: Server) -> bool:
    try:
        s.api("status")
        return True
    except OSError:
        return False


def test_the_landing_page_lists_the_lessons_and_the_root_leads_there(server):
    status, html = server.get("", token=True)  # the default URL
    assert status == 200
    assert "voila/render/01_why_privacy.ipynb" in html or "01_why_privacy.ipynb" in html
    assert "kernelId" not in html  # prose, without a kernel


@pytest.mark.parametrize("path", ["lab", "tree", "terminals/1", "voila/render/voila.json",
                                  "voila/render/../../etc/passwd", "voila/render/__init__.py"])
def test_nothing_but_the_lessons(server, path):
    status, _ = server.get(path, token=True)
    assert status in (403, 404), (path, status)


def test_a_lesson_is_dpvizs_page_with_nothing_fetched_from_outside(server):
    status, html = server.get(f"voila/render/{LESSON}", token=True)
    assert status == 200, html[-2000:]
    assert "dpviz-static/page.js" in html and "dpviz-static/plotly-cartesian.min.js" in html
    assert "dpviz-static/no-mathjax.js" in html  # the MathJax stand-in, not a CDN's MathJax
    for outside in ("cdn.jsdelivr.net", "fontawesome", "cdnjs.cloudflare.com/ajax/libs/mathjax", "unpkg.com"):
        assert outside not in html, outside
    # the bundle is served, and its URL reached the lesson's kernel (its figures load it, not plotly's own copy)
    status, js = server.get("dpviz-static/plotly-cartesian.min.js", token=True)
    assert status == 200 and len(js) > 1_000_000
    kernel = page_kernel_id(html)
    assert any(k["id"] == kernel for k in server.api("kernels"))
    assert server.beacon(kernel, server.cookie("_xsrf")) == 204


def test_every_section_of_voila_json_applies_and_the_schools_own_settings_stand():
    from traitlets.config import Config

    config = Config()
    config.VoilaExecutor.startup_timeout = 30  # the school's own
    extension.apply_voila_json(config, {"VoilaExecutor": {"iopub_timeout": 60, "startup_timeout": 600},
                                        "VoilaConfiguration": {"show_tracebacks": False, "preheat_kernel": True}})
    assert config.VoilaExecutor.iopub_timeout == 60  # what the hub lost: Voilà alone reads VoilaConfiguration only
    assert config.VoilaExecutor.startup_timeout == 30
    assert config.VoilaConfiguration.show_tracebacks is False
    assert config.VoilaConfiguration.preheat_kernel is False  # no pools in a server extension


def test_the_pages_beacon_frees_its_kernel_and_a_beacon_without_the_xsrf_value_is_refused(server):
    status, html = server.get(f"voila/render/{LESSON}", token=True)
    assert status == 200
    kernel = page_kernel_id(html)
    xsrf = server.cookie("_xsrf")
    assert xsrf, "the lesson page sets the _xsrf cookie that its beacon sends back"
    assert server.beacon(kernel, None) == 403
    assert any(k["id"] == kernel for k in server.api("kernels"))
    assert server.beacon(kernel, xsrf) == 204
    assert wait_until(lambda: all(k["id"] != kernel for k in server.api("kernels")), 20)


def test_place_lessons_copies_missing_and_upgraded_lessons_and_keeps_a_students_edit(tmp_path):
    from dpviz.lessons import NOTEBOOK_DIR

    folder = extension.place_lessons(tmp_path)
    assert folder == tmp_path / extension.LESSONS_FOLDER
    names = {p.name for p in folder.iterdir()}
    assert LESSON in names and "index.ipynb" in names and "voila.json" in names
    edited = folder / LESSON
    edited.write_text("{}")  # the student's edit, newer than the package's copy
    (folder / "index.ipynb").unlink()
    old = folder / "notation.ipynb"
    os.utime(old, (0, 0))  # older than the package's copy: an upgraded dpviz replaces it
    extension.place_lessons(tmp_path)
    assert edited.read_text() == "{}"
    assert (folder / "index.ipynb").exists()
    assert old.read_bytes() == (NOTEBOOK_DIR / "notation.ipynb").read_bytes()
