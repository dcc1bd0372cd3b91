"""dpviz under a URL prefix (``--base_url=/user/alice/``, as JupyterHub serves a user's server), in headless Chromium.

Over HTTP: nothing is served outside the prefix, the prefix (with or without its trailing slash) leads to the
landing page, the status page and plotly's shared bundle are under it. In the browser, at desktop size: the
landing page's links resolve under the prefix and open the lesson; the lesson (pre-heated, as in class mode)
renders its widgets and figures; plotly's shared bundle loads from ``<prefix>dpviz-static/``; the kernel
WebSocket connects under the prefix and talks; moving a slider changes a figure. Every request of the page
stays under the prefix, and no request fails, no response is an HTTP error, nothing is logged as a console error
and nothing is thrown. Requests to other hosts (Voilà's template links a CDN stylesheet; the test machine may
have no internet) are answered empty by the test, and listed in the failure message should anything fail.

Uses the Chromium set-up of ``tests/browser/test_browser.py`` (Debian's ``/usr/bin/chromium``, never a download).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from _server import Client, free_port, page_kernel_id, start_app
from test_browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    _assert_no_errors,
    _move_first_control_and_wait,
    _unavailable_reason,
    _wait_for_every_panels_figures,
)

from dpviz.lessons import lessons

pytestmark = pytest.mark.browser

PREFIX = "/user/alice/"
LESSON = "03_privacy_loss.ipynb"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    # Class mode on one lesson: its kernel is pre-heated (the pooled path a JupyterHub image uses) without
    # starting a kernel for every lesson on a 2-core machine.
    a = start_app(tmp_path_factory.mktemp("base_url"), "--class-size=1", "--lessons=03", "--shutdown-grace=60",
                  base_url=PREFIX, wait_for="ready for 1 students")
    yield a
    a.stop()


@pytest.fixture(scope="module")
def origin(app) -> str:
    parts = urllib.parse.urlsplit(app.url)
    return f"{parts.scheme}://{parts.netloc}"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _get(url: str) -> tuple[int, dict, bytes]:
    """Status, headers and body of a GET, redirects not followed."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(url, timeout=60) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        with e:
            return e.code, dict(e.headers), e.read()


# ---- over HTTP ----------------------------------------------------------------------------------------------------


def test_nothing_is_served_outside_the_prefix(app, origin):
    for path in ("/", "/voila/render/index.ipynb", f"/voila/render/{LESSON}", "/dpviz-static/plotly-cartesian.min.js",
                 "/dpviz/status.json", "/voila/static/voila.js"):
        status, _, _ = _get(origin + path)
        assert status == 404, f"{path} outside the prefix answered {status}"


@pytest.mark.parametrize("path", [PREFIX, PREFIX.rstrip("/"), PREFIX + "voila/tree", PREFIX + "voila/tree/"])
def test_the_prefix_leads_to_the_landing_page_under_the_prefix(origin, path):
    status, headers, _ = _get(origin + path)
    assert status == 302, f"{path}: HTTP {status} (a temporary redirect to the landing page expected)"
    location = urllib.parse.urljoin(origin + path, headers["Location"])
    assert location == origin + PREFIX + "voila/render/index.ipynb", f"{path} redirects to {location}"


def test_behind_a_proxy_that_strips_the_prefix_redirects_stay_under_the_prefix(tmp_path):
    """``--Voila.server_url=/`` (a proxy removed the prefix): routes at the root, redirects under ``base_url``."""
    port = free_port()
    log_path = tmp_path / "app.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dpviz.app", f"--port={port}", "--Voila.ip=127.0.0.1", f"--base_url={PREFIX}",
             "--Voila.server_url=/", "--pool_size=0"],
            cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 120
            while True:
                assert proc.poll() is None, log_path.read_text()[-3000:]
                try:
                    status, headers, _ = _get(f"http://127.0.0.1:{port}/")
                    break
                except OSError:
                    assert time.monotonic() < deadline, log_path.read_text()[-3000:]
                    time.sleep(0.3)
            assert status == 302, status
            assert headers["Location"] == PREFIX + "voila/render/index.ipynb", headers["Location"]
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def test_status_page_and_plotly_bundle_are_under_the_prefix(app, origin):
    status, _, body = _get(origin + PREFIX + "dpviz/status")
    assert status == 200
    link = re.search(r"href=[\"']([^\"']*status\.json)[\"']", body.decode())[1]
    status, _, body = _get(urllib.parse.urljoin(origin + PREFIX + "dpviz/status", link))
    assert status == 200 and b'"ready": true' in body
    status, headers, body = _get(origin + PREFIX + "dpviz-static/plotly-cartesian.min.js")
    assert status == 200 and len(body) > 1_000_000 and "javascript" in headers.get("Content-Type", "")


def test_landing_page_links_are_relative_and_resolve_under_the_prefix(app, origin):
    status, body = Client(app.url).request("/voila/render/index.ipynb")
    assert status == 200
    hrefs = re.findall(r"href='([^']+)'", body)
    page = origin + PREFIX + "voila/render/index.ipynb"
    for lesson in lessons():
        assert lesson.filename in hrefs, f"the landing page does not link {lesson.filename}"
    for href in hrefs:
        resolved = urllib.parse.urljoin(page, href)
        if resolved.startswith(origin) or href.startswith("/"):
            assert resolved.startswith(origin + PREFIX), f"link {href!r} leaves the prefix: {resolved}"


# ---- in the browser -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser_available():
    reason = _unavailable_reason()
    if reason:
        if os.environ.get("DPVIZ_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests required (DPVIZ_REQUIRE_BROWSER=1) but unavailable: {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def browser(browser_available):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


class _Traffic:
    """Everything the page asked for and everything that went wrong, for the assertions and their messages."""

    def __init__(self, origin: str):
        self.origin = origin
        self.requests: list[str] = []  # same-origin request URLs
        self.external: list[str] = []  # other hosts, answered empty by the test
        self.problems: list[str] = []  # failed requests, HTTP errors, console errors, uncaught exceptions
        self.sockets: list = []

    def route(self, route):
        url = route.request.url
        if url.startswith(self.origin + "/"):
            self.requests.append(url)
            route.continue_()
        else:
            self.external.append(url)
            kind = "text/css" if ".css" in url else "application/javascript" if ".js" in url else "text/plain"
            route.fulfill(status=200, content_type=kind, body="")

    def on_request_failed(self, request):
        self.problems.append(f"request failed: {request.method} {request.url}: {request.failure}")

    def on_response(self, response):
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.request.method} {response.url}")

    def on_console(self, message):
        if message.type == "error":
            self.problems.append(f"console error: {message.text} ({message.location.get('url', '')})")

    def on_websocket(self, ws):
        record = {"url": ws.url, "received": 0, "errors": [], "closed": False}
        ws.on("framereceived", lambda _payload: record.__setitem__("received", record["received"] + 1))
        ws.on("socketerror", lambda error: record["errors"].append(str(error)))
        ws.on("close", lambda _ws: record.__setitem__("closed", True))
        self.sockets.append(record)

    def report(self) -> str:
        return "\n".join(self.problems) + (f"\n(other hosts, answered empty: {self.external})" if self.external else "")


@pytest.fixture
def traffic_page(browser, origin):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    traffic = _Traffic(origin)
    context.route("**/*", traffic.route)
    page = context.new_page()
    page.set_default_timeout(240_000)
    page.page_errors = []  # read by test_browser._assert_no_errors
    page.on("pageerror", lambda exc: (page.page_errors.append(str(exc)), traffic.problems.append(f"uncaught: {exc}")))
    page.on("requestfailed", traffic.on_request_failed)
    page.on("response", traffic.on_response)
    page.on("console", traffic.on_console)
    page.on("websocket", traffic.on_websocket)
    yield page, traffic
    context.close()


def test_lesson_under_the_prefix_renders_connects_and_follows_its_slider(app, origin, traffic_page):
    page, traffic = traffic_page
    landing = origin + PREFIX + "voila/render/index.ipynb"

    # The prefix without its slash, as JupyterHub links it, lands on the landing page under the prefix.
    response = page.goto(origin + PREFIX.rstrip("/"))
    assert response is not None and response.ok, f"{PREFIX.rstrip('/')}: HTTP {response and response.status}"
    page.wait_for_selector(".dpviz-lesson-index .dpviz-card a")
    assert page.url == landing
    links = page.eval_on_selector_all(".dpviz-lesson-index .dpviz-card a", "els => els.map(e => e.href)")
    assert links == [origin + PREFIX + "voila/render/" + lesson.filename for lesson in lessons()]
    _assert_no_errors(page, "landing page under the prefix")

    # Its link opens the lesson under the prefix.
    with page.expect_navigation():
        page.click(f".dpviz-lesson-index .dpviz-card a[href='{LESSON}']")
    assert page.url == origin + PREFIX + "voila/render/" + LESSON

    # Widgets and every panel's figures render (the figures need plotly's shared bundle, under the prefix).
    page.wait_for_selector(".widget-slider .noUi-handle")
    page.wait_for_selector(".js-plotly-plot .main-svg")
    panels = _wait_for_every_panels_figures(page)
    assert panels >= 1, "no dpviz panel on the lesson page"
    bundle = origin + PREFIX + "dpviz-static/plotly-cartesian.min.js"
    assert bundle in traffic.requests, f"plotly's bundle was not loaded from {bundle}: {traffic.requests}"
    # The page asks for it from its head, at once (not only when the first figure's model has arrived), and the
    # figures' modules import the same URL: one request, one evaluation.
    early = page.eval_on_selector_all("head script[data-dpviz-bundle]",
                                      "els => els.map(e => new URL(e.dataset.dpvizBundle, document.baseURI).href)")
    assert bundle in early, f"the page's head does not load plotly's bundle early: {early}"
    assert traffic.requests.count(bundle) == 1, f"plotly's bundle was requested more than once: {traffic.requests}"

    # The kernel WebSocket: under the prefix, for the page's kernel, and talking.
    kernel_id = page_kernel_id(page.content())
    channels = origin.replace("http://", "ws://") + PREFIX + f"api/kernels/{kernel_id}/channels"
    sockets = [s for s in traffic.sockets if s["url"].split("?")[0] == channels]
    assert sockets, f"no kernel WebSocket at {channels}: {[s['url'] for s in traffic.sockets]}"
    page.wait_for_function("() => true")  # let the event queue deliver frame events
    assert sockets[0]["received"] > 0 and not sockets[0]["errors"] and not sockets[0]["closed"], sockets[0]

    # Moving a slider changes the figures of its panel (a round trip through the kernel, over that socket).
    assert _move_first_control_and_wait(page, 0), "moving the first slider did not change its panel's figures"
    page.wait_for_timeout(500)
    _assert_no_errors(page, LESSON + " under the prefix")

    outside = [u for u in traffic.requests if not u.startswith(origin + PREFIX) and u != origin + PREFIX.rstrip("/")]
    assert not outside, f"requests outside {PREFIX}: {outside}"
    assert not traffic.problems, traffic.report()
    assert not [s for s in traffic.sockets if s["errors"]], traffic.sockets
