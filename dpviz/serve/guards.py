"""HTTP and WebSocket handlers of the classroom server (see :mod:`dpviz.serve.app`).

The browser is untrusted: these handlers sit between it and the kernels. Each works around an upstream behaviour,
named where it is handled (docs/known-upstream-issues.md lists them all).

- :class:`GuardedKernelWebsocketHandler` accepts only the v1 kernel WebSocket protocol, closes the socket on a
  frame whose declared offsets do not fit its length, admits only the page that owns the kernel, and tells the
  kernel manager when a page connects and leaves (so that kernels of closed pages end). Voilà 0.5.13 and
  jupyter_server 2.21.1 both trust a frame's offset count (``deserialize_msg_from_ws_v1``): a 16-byte frame can
  make them build a list of 2**62 offsets and freeze the whole server. No upstream issue exists yet (to be
  reported through jupyter_server's security policy, not a public issue).
- :class:`LessonHandler` serves lessons only: the landing and notation pages as static HTML (no kernel), a
  friendly page when the class is full or a client holds too many kernels, no ``?theme=``/``?template=``
  overrides (they bypassed the pool), no cross-site sub-resource loads (an ``<img>`` elsewhere must not start
  kernels here).
- :class:`OwnedShutdownHandler` and :class:`OwnedKernelHandler`: only the owning page may end or inspect its
  kernel. The page's own clean-up on leaving (a POST without an ``_xsrf`` token, which Voilà's route refused:
  voila-dashboards/voila#1458) is accepted from the owner; the owner cookie is ``SameSite=Strict``, so no other
  site can send it.
- :class:`StatusHandler`: ``/dpviz/status`` (HTML) and ``/dpviz/status.json`` for the teacher.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from pathlib import Path

import jinja2
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.services.kernels.handlers import KernelHandler
from jupyter_server.utils import url_path_join
from tornado import web
from voila.shutdown_kernel_handler import VoilaShutdownKernelHandler
from voila.tornado.handler import TornadoVoilaHandler
from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

from dpviz.serve.pool import CLIENT, HANDED, ClassFull, TooManyKernels

__all__ = [
    "CLIENT_COOKIE",
    "GuardedKernelWebsocketHandler",
    "LessonHandler",
    "LessonPages",
    "OwnedKernelHandler",
    "OwnedShutdownHandler",
    "StatusHandler",
    "plausible_v1_frame",
]

V1_PROTOCOL = "v1.kernel.websocket.jupyter.org"
#: dpviz's templates: the lesson page (``index.html.j2``, read by Voilà) and the server's own small pages.
TEMPLATE_DIR = Path(__file__).resolve().parent / "templates" / "dpviz"
PAGES = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)), autoescape=True,
                           trim_blocks=True, lstrip_blocks=True)
CLIENT_COOKIE = "dpviz_client"
#: Largest offset count a v1 kernel frame may declare: channel, header, parent header, metadata, content, at most
#: 58 binary buffers, and the end (widget and figure messages carry a handful of buffers).
MAX_V1_OFFSETS = 64


def plausible_v1_frame(frame) -> bool:
    """True when ``frame`` is a v1 kernel WebSocket frame whose offset table fits inside it.

    Layout (jupyter_server ``serialize_msg_to_ws_v1``): the offset count ``n`` as 8 little-endian bytes, then
    ``n`` offsets of 8 bytes each: where the channel, the header, the parent header, the metadata, the content and
    each buffer start, and where the frame ends. So ``n >= 6``, the first offset is the table's end ``8 (n + 1)``,
    the offsets never decrease, and the last is the frame's length.
    """
    if not isinstance(frame, bytes | bytearray) or len(frame) < 8:
        return False
    n = int.from_bytes(frame[:8], "little")
    if not 6 <= n <= MAX_V1_OFFSETS or 8 * (n + 1) > len(frame):
        return False
    offsets = [int.from_bytes(frame[8 * (i + 1) : 8 * (i + 2)], "little") for i in range(n)]
    if offsets[0] != 8 * (n + 1) or offsets[-1] != len(frame):
        return False
    return all(a <= b for a, b in zip(offsets, offsets[1:]))


def _client_token(handler: web.RequestHandler) -> str | None:
    """Who owns a kernel: the browser's client cookie, or behind JupyterHub (``dpviz serve --hub-service``, which
    sets ``dpviz_hub_owner_key``) the hub user the request is logged in as, as a keyed hash of their name. So a
    student's kernels, their kernel limit and their one answer per exercise in the class view follow the student
    across browsers, and a browser another user logs in to next owns nothing of the first's."""
    key = handler.settings.get("dpviz_hub_owner_key")
    if key is not None:
        model = getattr(handler.current_user, "hub_user", None)
        name = model.get("name") if isinstance(model, dict) and model.get("kind", "user") == "user" else None
        if not isinstance(name, str) or not name:
            return None
        return hmac.new(key, name.encode("utf-8", "replace"), hashlib.sha256).hexdigest()[:32]
    token = handler.get_cookie(CLIENT_COOKIE)
    if token and 16 <= len(token) <= 64 and token.isalnum():
        return token
    return None


def render_page(template: str, **context) -> str:
    """One of the server's own pages (``templates/dpviz/<template>``), its values HTML-escaped."""
    return PAGES.get_template(template).render(**context)


def _short_page(handler: web.RequestHandler, status: int, template: str, **context) -> None:
    """A small self-contained page (no kernel, nothing loaded from elsewhere): "class is full", "too many
    lessons", "being prepared"."""
    handler.set_status(status)
    handler.set_header("Content-Type", "text/html; charset=utf-8")
    handler.set_header("Cache-Control", "no-store")
    if status == 503:
        handler.set_header("Retry-After", "30")
    handler.finish(render_page(template, **context))


def _refused(handler: web.RequestHandler, status: int, title: str, text: str) -> None:
    _short_page(handler, status, "refused.html.j2", tab_title=f"{title} · dpviz", heading=title, text=text)


class _PlainErrors:
    """Errors as one line of text: jupyter_server's error page needs settings Voilà does not define, so every
    refusal logged a second traceback while rendering it."""

    def write_error(self, status_code, **kwargs):
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"{status_code}: {self._reason}")


class LessonPages(TornadoVoilaHandler):
    """``/voila/render/<notebook>``, lessons only: the lessons with a kernel each, the prose pages (landing, notation)
    as static HTML, no ``?theme=``/``?template=`` overrides, never as a sub-resource of another page.

    What the server and the JupyterHub extension (:mod:`dpviz.serve.extension`) share; :class:`LessonHandler` adds
    the classroom's pool and client limits."""

    def prepare(self):
        # ?theme= and ?template= made Voilà skip the pre-heated pool and start a kernel per request.
        for name in ("theme", "template"):
            self.request.arguments.pop(name, None)
            self.request.query_arguments.pop(name, None)
        return super().prepare()

    def _served_without_kernel(self, notebook: str) -> bool:
        """Refuse what is not a lesson page; serve a prose page here (True); False: a lesson, render it."""
        dest = self.request.headers.get("Sec-Fetch-Dest")
        if dest is not None and dest not in ("document", "iframe", "frame", "empty"):
            raise web.HTTPError(403, "lessons open as pages, not as sub-resources of another page")
        prose = self.settings.get("dpviz_prose_pages", {}).get(notebook)
        if prose is not None:  # the landing page, the notation page: static HTML, no kernel
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(prose(self.base_url))
            return True
        if notebook not in self.settings.get("dpviz_lessons", ()):
            raise web.HTTPError(404)
        return False

    @web.authenticated
    async def get(self, path=None):
        if not self._served_without_kernel(path or ""):
            await super().get(path)


class LessonHandler(LessonPages):
    """:class:`LessonPages` under ``dpviz serve``: each browser's client cookie (the owner of its kernels), the
    pre-heated pools, the memory budget and the per-browser kernel limit."""

    @web.authenticated
    async def get(self, path=None):
        token = _client_token(self)
        if token is None:
            token = secrets.token_hex(16)
            self.set_cookie(CLIENT_COOKIE, token, path=self.base_url, httponly=True, samesite="Strict")
        notebook = path or ""
        if self._served_without_kernel(notebook):
            return
        km = self.kernel_manager
        try:
            km.check_client_limit(token)
        except TooManyKernels:
            _refused(
                self, 429, "Too many lessons open",
                "This browser already has several lessons open on this server. Close a lesson tab you no longer "
                "need, wait a few seconds, then try again.",
            )
            return
        if not km.can_use_pool(notebook) and not km.can_start_kernel():
            self._class_full()
            return
        if self.get_query_argument("waited", None) is None and km.warming(notebook):
            km.wanted(notebook)
            self._warming_page(notebook)
            return
        handed: list[str] = []
        reset, reset_handed = CLIENT.set(token), HANDED.set(handed)
        try:
            await TornadoVoilaHandler.get(self, path)
        except ClassFull:
            if not self._headers_written:
                self._class_full()
        finally:
            CLIENT.reset(reset)
            HANDED.reset(reset_handed)
            for kernel_id in handed:
                km.page_served(kernel_id)

    def _warming_page(self, notebook: str) -> None:
        """The server has just started and this lesson's first kernel is not ready: say so, show the progress from
        ``status.json``, and open the lesson (``?waited=1``) as soon as a kernel for it is ready."""
        titles = self.settings.get("dpviz_titles", {})
        title = titles.get(notebook, notebook)
        status_url = url_path_join(self.base_url, "dpviz/status.json")
        lesson_url = url_path_join(self.base_url, "voila/render", notebook) + "?waited=1"
        _short_page(self, 200, "warming.html.j2", tab_title=f"Preparing: {title}", heading=f"Preparing {title}",
                    notebook=notebook, status_url=status_url, lesson_url=lesson_url,
                    script_url=url_path_join(self.base_url, "dpviz-static/warming.js"))

    def _class_full(self) -> None:
        _refused(
            self, 503, "The class is full right now",
            "The server is looking after as many students as its memory allows. Wait a minute, then try again: "
            "places free up as other students close their lessons.",
        )


class GuardedKernelWebsocketHandler(_PlainErrors, VoilaKernelWebsocketHandler):
    """The kernel channels, for the owning page only, in the v1 protocol only, with every frame checked."""

    async def get(self, kernel_id):
        offered = [p.strip() for p in self.request.headers.get("Sec-WebSocket-Protocol", "").split(",")]
        if V1_PROTOCOL not in offered:
            raise web.HTTPError(400, "the kernel WebSocket needs the v1.kernel.websocket.jupyter.org protocol")
        km = self.kernel_manager
        owner = km.owner(kernel_id)
        if owner is None or owner != _client_token(self):
            raise web.HTTPError(403)
        await super().get(kernel_id)

    def select_subprotocol(self, subprotocols):
        return V1_PROTOCOL if V1_PROTOCOL in subprotocols else None

    async def open(self, kernel_id):
        self.kernel_manager.socket_opened(kernel_id, self.close)
        self._dpviz_counted = True
        await super().open(kernel_id)

    def on_message(self, ws_message):
        if not plausible_v1_frame(ws_message):
            self.log.warning("closing the WebSocket of kernel %s: malformed frame", getattr(self, "kernel_id", "?"))
            self.close(1003, "malformed frame")
            return
        super().on_message(ws_message)

    def on_close(self):
        if getattr(self, "_dpviz_counted", False):
            self._dpviz_counted = False
            self.kernel_manager.socket_closed(self.kernel_id, self.close)
        if getattr(self, "connection", None) is not None:
            super().on_close()


class _OwnerCheck:
    def _check_owner(self, kernel_id: str) -> None:
        owner = self.kernel_manager.owner(kernel_id)
        if owner is None or owner != _client_token(self):
            raise web.HTTPError(404)


class OwnedShutdownHandler(_PlainErrors, _OwnerCheck, VoilaShutdownKernelHandler):
    """``POST /voila/api/shutdown/<id>``, sent by the page as it closes, accepted from the owner only."""

    def check_xsrf_cookie(self):
        # Voilà 0.5's page sends its shutdown beacon (navigator.sendBeacon) without an _xsrf token, and Voilà's own
        # route refuses it, so no kernel ever ended with its page (voila-dashboards/voila#1458). The owner cookie
        # is SameSite=Strict and HttpOnly: a request
        # carrying it came from a page of this server, which is what the _xsrf check would establish.
        return None

    @web.authenticated
    async def post(self, kernel_id):
        self._check_owner(kernel_id)
        await self.kernel_manager.shutdown_kernel(kernel_id)
        self.set_status(204)
        self.finish()


class OwnedKernelHandler(_PlainErrors, _OwnerCheck, KernelHandler):
    """``/api/kernels/<id>``: the kernel model and its deletion, for the owning page only."""

    async def prepare(self):
        await super().prepare()
        kernel_id = self.path_kwargs.get("kernel_id") or (self.path_args[0] if self.path_args else "")
        self._check_owner(kernel_id)


class StatusHandler(JupyterHandler):
    """``/dpviz/status`` and ``/dpviz/status.json``: is the class ready, how full are the pools, how much memory."""

    def initialize(self, fmt: str = "html"):
        self.fmt = fmt

    def check_xsrf_cookie(self):  # GET only
        return None

    @web.authenticated
    async def get(self):
        await self.kernel_manager.fresh_memory_mb()  # in a worker thread: the event loop goes on serving
        status = {**self.kernel_manager.status(), **self.settings.get("dpviz_status_extra", {})}
        self.set_header("Cache-Control", "no-store")
        if self.fmt == "json":
            self.set_header("Content-Type", "application/json")
            self.finish(json.dumps(status))
            return
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(render_page("status.html.j2", tab_title="dpviz · class status", heading="Class status",
                                width="40em", status=status))
