"""``dpviz serve`` (``python -m dpviz.serve``): serve every lesson with Voilà, for one learner or a whole class.

For one learner (``make serve``): ``dpviz serve`` opens the landing page at http://localhost:8866 with one
pre-heated kernel per lesson, as before.

For a class (``make serve CLASS=30``): ``dpviz serve --class-size 30 [--lessons 07,11]`` pre-heats
enough kernels for that many students on the chosen lessons (all lessons when none are named), refills the pools
in the background as students arrive, and prints ``ready for 30 students on lessons 07, 11`` once every pool is
full. The teacher's status page is ``/dpviz/status`` (``/dpviz/status.json`` for scripts).

Either way:

- **every kernel a page receives ends when the page is gone**: ``--shutdown-grace`` seconds (default 60) after
  its last connection closed, or ``--connect-grace`` seconds (default 120) after it was handed out when no page
  ever connected; kernels idle for
  ``--cull-idle`` seconds (default 1800) are culled;
- **a memory budget** (``--memory-budget-mb``; default 80 % of the memory available when the server starts),
  counted as the proportional set size of the server and its kernels (pages shared with the fork server once): a
  student who would push the server over it sees a page saying that the class is full, never a crash;
- **the browser is untrusted** (see :mod:`dpviz.serve.guards`): kernel WebSockets only in the v1 protocol
  with every frame's offsets checked, a maximum message size, a kernel answers only the page it was given to,
  at most ``--max-kernels-per-client`` live kernels per browser, no ``?theme=``/``?template=`` overrides, only
  the landing page and the lessons are served (no directory listing), and ``--allow-host`` names the host names
  the server answers to (by default, when listening on a loopback address, only loopback names: no DNS
  rebinding);
- plotly.js is served once, at ``<base>/dpviz-static/plotly-cartesian.min.js`` (its cartesian bundle, 1.5 MB: the
  only trace types the lessons use), and the kernels are told where (``DPVIZ_PLOTLY_BUNDLE_URL``): their figures'
  front end (``dpviz/panels/figure.js``) draws with it, where every ``FigureWidget`` otherwise ships its own 5 MB
  copy of all of plotly.js (see :func:`dpviz.panels._base.figure_widget`);
- on Linux, kernels are forked from a **fork server** that has already imported numpy, scipy.special, plotly,
  ipywidgets, ipykernel and dpviz's panels (:mod:`dpviz.serve.forkserver`), instead of each importing them
  afresh (``--fork-kernels=False`` starts every kernel as a new interpreter).

The pools are Voilà's ``kernel_pools_config`` (built here from ``--class-size`` and ``--lessons``), filled and
guarded by :class:`dpviz.serve.pool.ClassroomKernelManager`, which owns the options about kernels
(``--shutdown-grace`` is ``--ClassroomKernelManager.shutdown_grace``, and so on).

The lessons are read from the installed package (:data:`dpviz.lessons.NOTEBOOK_DIR`), so a plain
``pip install dpviz`` serves them from any directory, and every URL honours ``--base_url`` (as under JupyterHub).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import secrets
import sys
from pathlib import Path

import voila.app as voila_app
from jupyter_server.services.kernels.handlers import KernelHandler
from jupyter_server.utils import url_path_join
from tornado.web import RedirectHandler, StaticFileHandler
from traitlets import Bool, Float, Int, List, TraitError, Unicode, default, validate
from voila.app import Voila
from voila.shutdown_kernel_handler import VoilaShutdownKernelHandler
from voila.tornado.contentshandler import VoilaContentsHandler
from voila.tornado.handler import TornadoVoilaHandler
from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler
from voila.tornado.treehandler import TornadoVoilaTreeHandler

from dpviz.lessons import NOTATION, NOTEBOOK_DIR, lessons
from dpviz.serve import templating
from dpviz.serve.compression import CachedGzip
from dpviz.serve.connection import NoDelayConnection
from dpviz.serve.guards import (
    TEMPLATE_DIR,
    GuardedKernelWebsocketHandler,
    LessonHandler,
    OwnedKernelHandler,
    OwnedShutdownHandler,
    StatusHandler,
    render_page,
)
from dpviz.serve.pool import ClassroomKernelManager, pools_config

__all__ = ["BUNDLE_ENV", "PLOTLY_BUNDLE", "STATIC", "DpvizVoila", "landing_html", "main", "prose_html"]

NOTEBOOKS = NOTEBOOK_DIR
#: plotly.js's cartesian bundle (scatter, bar, heatmap and the other 2-D traces: all the lessons draw), shipped with
#: dpviz (``dpviz/serve/static``, MIT licence beside it) at the version plotly's own bundle carries, and served
#: to the figures' front end (``dpviz/panels/figure.js``) in place of plotly's 5 MB widget bundle.
STATIC = Path(__file__).resolve().parent / "static"
PLOTLY_BUNDLE = "plotly-cartesian.min.js"
#: What the pages load in place of MathJax (the lessons contain no TeX).
NO_MATHJAX = "no-mathjax.js"
#: Every file served under ``<base>/dpviz-static/``: the bundle, the MathJax stand-in, the lesson page's script and
#: the "being prepared" page's.
STATIC_FILES = (PLOTLY_BUNDLE, NO_MATHJAX, "page.js", "warming.js", "class.js")
#: Environment variable read by :func:`dpviz.panels._base.figure_widget` in the kernels this app starts.
BUNDLE_ENV = "DPVIZ_PLOTLY_BUNDLE_URL"
LANDING = "index.ipynb"
#: Pages of prose only, served as static HTML without a kernel: file name -> page title.
PROSE_PAGES = {LANDING: "Lessons", NOTATION: "Notation and glossary"}
#: Largest WebSocket message a browser may send (widget updates are a few kB).
MAX_MESSAGE_BYTES = 1 << 20


def _lesson_numbers(spec: str) -> list[str]:
    """``"05,8"`` -> the notebook file names of lessons 05 and 08; ValueError naming an unknown lesson."""
    by_number = {f"{lesson.order:02d}": lesson.filename for lesson in lessons(NOTEBOOKS)}
    chosen = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        key = part.zfill(2) if part.isdigit() else part
        if key in by_number:
            chosen.append(by_number[key])
        elif part in by_number.values():
            chosen.append(part)
        else:
            raise ValueError(f"lessons = {spec!r}: unknown lesson {part!r}; "
                             f"the lessons are {', '.join(sorted(by_number))}")
    return chosen


def prose_html(name: str, base_url: str = "/") -> str:
    """A prose page (the landing page, the notation page) as static HTML, without a kernel.

    Markdown cells are rendered as they are; the landing page's ``LessonIndex()`` cell becomes the lesson list.
    """
    from markupsafe import Markup
    from nbconvert.filters.markdown import markdown2html

    from dpviz.lessons import lesson_index_html

    nb = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))
    parts = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            parts.append(markdown2html("".join(cell["source"])))
        elif cell["cell_type"] == "code" and "LessonIndex" in "".join(cell["source"]):
            parts.append("<div class='dpviz-lesson-index'>" + lesson_index_html(NOTEBOOKS) + "</div>")
    title = "dpviz" if name == LANDING else "dpviz · " + PROSE_PAGES.get(name, name)
    return render_page("prose.html.j2", title=title, parts=[Markup(part) for part in parts])


def landing_html(base_url: str = "/") -> str:
    """The landing page, without a kernel: the prose of ``index.ipynb`` and the lesson list."""
    return prose_html(LANDING, base_url)


class _QuietStartup(logging.Filter):
    """Drop the start-up warnings that alarm a teacher and mean nothing here: the lessons are stored unsigned, so
    Jupyter calls each "not trusted" (Voila renders them the same either way)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "is not trusted" not in record.getMessage()


def _lan_address() -> str:
    """This machine's address as other machines on the network see it (no packet is sent), or a placeholder."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))  # UDP connect: picks the outgoing interface, sends nothing
            return s.getsockname()[0]
    except OSError:
        return "<this machine's address>"


class DpvizVoila(Voila):
    name = "dpviz"

    class_size = Int(0, config=True, help="Pre-heat kernels for this many students (0: one per lesson).")
    lessons = Unicode("", config=True, help="Lessons to pre-heat in classroom mode, e.g. '02,03' (default: all).")
    cull_idle = Float(1800.0, config=True, help="Seconds without any message after which a kernel is culled.")
    allow_hosts = List(Unicode(), config=True, help="Host names the server answers to (default: see module doc).")
    fork_kernels = Bool(sys.platform == "linux", config=True,
                        help="Fork kernels from a process that has already imported the lessons' modules "
                             "(dpviz.serve.forkserver; default on Linux); False: start each one afresh.")
    kernel_memory_limit_mb = Float(
        4096.0, config=True,
        help="Address space (MB, RLIMIT_AS) each forked kernel may use: an absurd allocation in a lesson raises "
             "MemoryError in that kernel instead of pushing the machine into swap (0: no cap).",
    )
    class_view = Bool(
        None, allow_none=True, config=True,
        help="The class view (dpviz.serve.classview): exercises feed a class tally released with DP, and the teacher "
             "sees it at /dpviz/class?token=... (default: on with --class-size).")
    class_privacy = Unicode(
        "local", config=True,
        help="local: each student's kernel randomizes the answer (k-ary randomized response) before sending it; "
             "central: the server holds the raw answers and releases noisy histograms within --class-epsilon.")
    class_epsilon = Float(4.0, config=True, help="Central privacy: the class's whole budget ε over every release.")
    class_release_epsilon = Float(1.0, config=True, help="Central privacy: the ε of one release of a histogram.")
    class_report_epsilon = Float(2.0, config=True, help="Local privacy: the ε of each student's randomized answer.")
    class_dir = Unicode("", config=True,
                        help="Folder of the class's store class.sqlite3 (default: a per-class folder under the "
                             "user's data directory, named by --class-name).")
    class_name = Unicode("", config=True, help="The class's name (default: class-YYYY-MM-DD, today).")
    class_end = Unicode("", config=True,
                        help="When the class ends (HH:MM today, or an ISO date and time): the raw answers are "
                             "deleted then (the teacher's page has a button for it too).")
    hub_service = Bool(
        False, config=True,
        help="Run as a JupyterHub service (deploy/jupyterhub/, DPVIZ_HUB_SHARED=1): the hub's login in front of every "
             "lesson (its OAuth, JupyterHub's identity provider), under the service's prefix and address from the "
             "hub's environment; one server and one fork server for every student, as on one machine.")
    hub_teacher_group = Unicode(
        "teachers", config=True,
        help="With hub_service: the hub group whose members (and the hub's admins) open the teacher's view at "
             "dpviz/class after the hub's login.")
    compress = Bool(True, config=True,
                    help="gzip pages and files (each static file compressed once, dpviz.serve.compression); "
                         "False: send them as they are.")

    @default("kernel_websocket_connection_class")
    def _send_at_once(self):
        return NoDelayConnection  # each kernel message leaves at once (dpviz.serve.connection)

    @validate("class_size", "cull_idle", "kernel_memory_limit_mb", "class_epsilon", "class_release_epsilon",
              "class_report_epsilon")
    def _in_range(self, proposal):
        name, value = proposal["trait"].name, proposal["value"]
        # the class's ε: as dpviz.classpoll's TOTAL_EPSILON and EPSILON (not imported: the class view's numerics
        # load only when it is on)
        low, high = {"class_size": (0, 10_000), "cull_idle": (10.0, 1e9), "kernel_memory_limit_mb": (0.0, 1e9),
                     "class_epsilon": (1e-3, 1000.0), "class_release_epsilon": (1e-3, 100.0),
                     "class_report_epsilon": (1e-3, 100.0)}[name]
        if not low <= value <= high:
            raise TraitError(f"{name} = {value!r} is not allowed: must be in [{low}, {high}]")
        return value

    @validate("class_privacy")
    def _privacy(self, proposal):
        if proposal["value"] not in ("local", "central"):
            raise TraitError(f"class_privacy = {proposal['value']!r} is not allowed: must be local or central")
        return proposal["value"]

    #: Voilà's classes and the kernel manager's options (``--help-all`` lists them).
    classes = [*Voila.classes, ClassroomKernelManager]
    _POOL = "ClassroomKernelManager."

    aliases = {
        **Voila.aliases,
        "class-size": "DpvizVoila.class_size",
        "lessons": "DpvizVoila.lessons",
        "memory-budget-mb": _POOL + "memory_budget_mb",
        "shutdown-grace": _POOL + "shutdown_grace",
        "connect-grace": _POOL + "connect_grace",
        "cull-idle": "DpvizVoila.cull_idle",
        "max-kernels-per-client": _POOL + "max_kernels_per_client",
        "allow-host": "DpvizVoila.allow_hosts",
        "refill-quiet": _POOL + "refill_quiet",
        "refill-max-wait": _POOL + "refill_max_wait",
        "fill-concurrency": _POOL + "fill_concurrency",
        "fork-kernels": "DpvizVoila.fork_kernels",
        "compress": "DpvizVoila.compress",
        "kernel-memory-limit-mb": "DpvizVoila.kernel_memory_limit_mb",
        "class-view": "DpvizVoila.class_view",
        "class-privacy": "DpvizVoila.class_privacy",
        "class-epsilon": "DpvizVoila.class_epsilon",
        "class-release-epsilon": "DpvizVoila.class_release_epsilon",
        "class-report-epsilon": "DpvizVoila.class_report_epsilon",
        "class-dir": "DpvizVoila.class_dir",
        "class-name": "DpvizVoila.class_name",
        "class-end": "DpvizVoila.class_end",
        "hub-teacher-group": "DpvizVoila.hub_teacher_group",
        "host": "Voila.ip",
    }
    flags = {
        **Voila.flags,
        "hub-service": ({"DpvizVoila": {"hub_service": True}},
                        "Run as a JupyterHub service, behind the hub's login (see --DpvizVoila.hub_service)."),
    }

    @validate("base_url", "server_url")
    def _url_prefix(self, proposal):
        """``/user/alice`` -> ``/user/alice/``: every route and every URL in the pages joins paths onto it."""
        value = proposal["value"]
        if value is None or value == "":
            return value
        return "/" + value.strip("/") + "/" if value.strip("/") else "/"

    def setup_template_dirs(self):
        """Voila's lab template, under dpviz's own (``dpviz/serve/templates/dpviz``): no CDN links, a print style."""
        super().setup_template_dirs()
        self.template_paths.insert(0, str(TEMPLATE_DIR))

    def _pools_config(self) -> tuple[dict[str, dict], list[str]]:
        """Voilà's ``kernel_pools_config`` for this class, and the lessons chosen: ``--class-size`` kernels for each
        chosen lesson (every lesson when none are named) and none for the others; without a class, Voilà's
        ``--pool_size`` for every lesson. Never one for a prose page (they are served without a kernel)."""
        prose = dict.fromkeys(PROSE_PAGES, 0)
        if self.class_size > 0:
            chosen = (_lesson_numbers(self.lessons) if self.lessons
                      else [lesson.filename for lesson in lessons(NOTEBOOKS)])
            return pools_config({**prose, **dict.fromkeys(chosen, self.class_size)}, default=0), chosen
        if self.lessons:
            raise ValueError("lessons: only with --class-size (the lessons to pre-heat for a class)")
        return pools_config(prose, default=max(int(self.voila_configuration.default_pool_size), 0)), []

    @property
    def class_on(self) -> bool:
        return bool(self.class_size > 0 if self.class_view is None else self.class_view)

    def _init_class(self) -> None:
        """Open the class's store and tell the kernels where the class API is (before any kernel starts)."""
        self._class = None
        if not self.class_on:
            return
        from dpviz.serve import classview

        if self.class_privacy not in classview.PRIVACY:
            raise ValueError(f"class_privacy = {self.class_privacy!r} is not allowed: must be local or central")
        name = self.class_name or classview.default_class_name()
        store = classview.open_store(self.class_dir, name)
        view = classview.ClassView(store, privacy=self.class_privacy, total_epsilon=self.class_epsilon,
                                   release_epsilon=self.class_release_epsilon,
                                   report_epsilon=self.class_report_epsilon)
        if self.class_end:
            view.ends_at = classview.parse_end_time(self.class_end)
        key = classview.new_secret()
        # The kernels reach the API on loopback (or on the one address the server listens on) at a fixed port: the
        # address they were told must be the one the server binds, so no retry on another port.
        self.port_retries = 0
        host = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "localhost": "127.0.0.1", "::": "[::1]",
                "::1": "[::1]"}.get(self.ip, self.ip if ":" not in self.ip else f"[{self.ip}]")
        api = f"http://{host}:{self.port}" + url_path_join(self.server_url or "/", "dpviz/class/api/")
        os.environ[classview.ENV] = classview.kernel_environment(api, key, self.class_privacy,
                                                                 self.class_report_epsilon)
        join = self._join_url()
        self._class = classview.ClassRoutes(view=view, kernel_key=key, teacher_token=store.teacher_token(),
                                            join_url=join, qr_svg=classview.qr_svg(join) if join else "",
                                            kernel_ip=host.strip("[]"),
                                            hub_teacher_group=self.hub_teacher_group if self.hub_service else None)

    def _join_url(self) -> str:
        if self.hub_service:  # the hub's public address when it has one; else the teacher's page uses its own host
            public = os.environ.get("JUPYTERHUB_PUBLIC_URL", "")
            return url_path_join(public, os.environ.get("JUPYTERHUB_BASE_URL", "/")) if public else ""
        host = self.ip or "0.0.0.0"
        if host in ("localhost", "127.0.0.1", "::1"):
            shown = "localhost"
        elif host in ("0.0.0.0", "::"):
            shown = _lan_address()
        else:
            shown = host
        return f"http://{shown}:{self.port}{self.base_url}"

    def _init_hub_service(self) -> None:
        """As a JupyterHub service: the prefix, address and port the hub gave it, and the hub's login for every page
        (``JupyterHubIdentityProvider``, as a single-user server uses; its access scope, from the hub's environment,
        is this service's). The host-name check is off: the hub's proxy, on this machine, is the only client, and it
        forwards the public host name."""
        if not self.hub_service:
            return
        import urllib.parse

        prefix, url = os.environ.get("JUPYTERHUB_SERVICE_PREFIX"), os.environ.get("JUPYTERHUB_SERVICE_URL")
        if not prefix or not url:
            raise ValueError("hub_service: JUPYTERHUB_SERVICE_PREFIX and JUPYTERHUB_SERVICE_URL are not set: run it as "
                             "a JupyterHub-managed service (deploy/jupyterhub/jupyterhub_config.py)")
        where = urllib.parse.urlsplit(url)
        self.base_url = self.server_url = prefix
        self.ip, self.port = where.hostname or "127.0.0.1", where.port or 80
        from jupyterhub.singleuser.extension import JupyterHubIdentityProvider

        self.identity_provider_class = JupyterHubIdentityProvider

    def init_settings(self):
        self._init_hub_service()
        self._init_class()
        # Kernels (including the pre-heated pool) inherit this environment, so set it before they start. The
        # browser loads the bundle: a URL under base_url (which differs from server_url behind a reverse proxy
        # that strips the prefix).
        os.environ[BUNDLE_ENV] = url_path_join(self.base_url, "dpviz-static/" + PLOTLY_BUNDLE)
        if self.fork_kernels:
            from dpviz.serve import forkserver

            forkserver.fork_kernels_for(self, str(NOTEBOOKS), self.kernel_memory_limit_mb or None)
        config, self._chosen = self._pools_config()
        given = self.config.VoilaKernelManager.get("kernel_pools_config") or \
            self.config.ClassroomKernelManager.get("kernel_pools_config")
        if not given:  # a kernel_pools_config of the user's own stands
            self.config.ClassroomKernelManager.kernel_pools_config = config
        # Voilà builds its pooled kernel manager inside init_settings from a factory; wrap the class it returns.
        original = voila_app.voila_kernel_manager_factory

        def factory(*args, **kwargs):
            pooled = original(*args, **kwargs)
            return type("DpvizKernelManager", (ClassroomKernelManager, pooled), {})

        voila_app.voila_kernel_manager_factory = factory
        try:
            settings = super().init_settings()
        finally:
            voila_app.voila_kernel_manager_factory = original
        settings["dpviz_prose_pages"] = {name: functools.partial(prose_html, name) for name in PROSE_PAGES}
        catalogue = lessons(NOTEBOOKS)
        settings["dpviz_lessons"] = frozenset(lesson.filename for lesson in catalogue)
        settings["dpviz_titles"] = {x.filename: f"lesson {x.order:02d} · {x.title}" for x in catalogue}
        settings["dpviz_status_extra"] = {"class_size": self.class_size, "lessons": self._chosen}
        if self.hub_service:  # kernels are owned by the hub user, not the browser (guards._client_token)
            settings["dpviz_hub_owner_key"] = secrets.token_bytes(32)
        settings["websocket_max_message_size"] = MAX_MESSAGE_BYTES
        # The lessons contain no TeX: the pages load a stand-in that typesets nothing instead of MathJax 3 (see
        # dpviz/serve/static/no-mathjax.js; Voilà's front end picks its MathJax-2 typesetter when a URL is named).
        settings["mathjax_url"] = url_path_join(self.base_url, "dpviz-static/" + NO_MATHJAX)
        settings["mathjax_config"] = "none"
        if self.compress:
            settings["transforms"] = [CachedGzip]  # passed to tornado's Application with the settings
        if self.hub_service:
            settings["allow_remote_access"] = True
        elif self.allow_hosts:
            settings["allow_remote_access"] = False
            settings["local_hostnames"] = list(self.allow_hosts)
        elif self.ip in ("localhost", "127.0.0.1", "::1", ""):
            # Listening on loopback only: answer only loopback names, so a web page cannot reach this server
            # through DNS rebinding (Voilà itself answers any Host).
            settings["allow_remote_access"] = self.ip == ""
            settings["local_hostnames"] = ["localhost"]
        self.kernel_manager.on_ready = self._announce_ready
        if self._class is not None:
            self._class.view.owner_of = self.kernel_manager.owner
            from tornado.ioloop import IOLoop

            IOLoop.current().add_callback(self._class.view.watch_end)
        return settings

    def _announce_ready(self) -> None:
        if self.class_size > 0:
            names = ", ".join(nb[:2] for nb in self._chosen)
            km = self.kernel_manager
            if km.budget_limited:
                held = sum(km.ready_counts().values())
                print(
                    f"ready for {self.class_size} students on lessons {names}, with {held} kernels pre-heated: the "
                    f"memory budget ({km.memory_budget_mb:.0f} MB) holds no more; the others start on demand",
                    flush=True,
                )
            else:
                print(f"ready for {self.class_size} students on lessons {names}", flush=True)
        else:
            print("ready: one pre-heated kernel per lesson", flush=True)
        print(self._welcome(), flush=True)
        if self._class is not None:
            print(self._class_welcome(), flush=True)

    def _class_welcome(self) -> str:
        """The class view's addresses: the join address with its QR code, and the teacher's (with the token)."""
        from dpviz.serve import classview

        c = self._class
        if self.hub_service:
            return (f"The class view, privacy {self.class_privacy}; the class's answers are kept in "
                    f"{c.view.store.path}. Teacher's view, for the hub's admins and the members of its group "
                    f"{self.hub_teacher_group!r}, after the hub's login: {url_path_join(self.base_url, 'dpviz/class')}")
        teacher = url_path_join(c.join_url, "dpviz/class") + "?token=" + c.teacher_token
        mode = ("local (each answer randomized in the student's kernel, ε = %g)" % self.class_report_epsilon
                if self.class_privacy == "local" else
                "central (noisy releases within a class budget of ε = %g)" % self.class_epsilon)
        return "\n".join([
            "Students join here (scan the code or type the address):",
            classview.qr_terminal(c.join_url).rstrip("\n"),
            f"  {c.join_url}",
            f"The class view, privacy {mode}; the class's answers are kept in {c.view.store.path}.",
            f"Teacher's view (keep this address private: its token opens it): {teacher}",
        ])

    def _welcome(self) -> str:
        """What the person who typed ``make serve`` needs to know: where to point a browser, and how a class joins."""
        local = ("localhost", "127.0.0.1", "::1")
        host = self.ip or "0.0.0.0"
        shown = "localhost" if host in local or host in ("0.0.0.0", "::") else host
        here = f"http://{shown}:{self.port}{self.base_url}"
        lines = [f"dpviz is serving the lessons: open {here} in a browser on this computer."]
        if host in local:
            lines.append("Only this computer can connect. For a class on the local network: make serve HOST=0.0.0.0 "
                         "(then anyone who can reach this machine can open the lessons: use a trusted network).")
        else:
            address = host if host not in ("0.0.0.0", "::") else _lan_address()
            lines.append(f"Students open http://{address}:{self.port}{self.base_url} (this machine's address). Anyone "
                         "who can reach it can open the lessons: use a trusted network.")
        lines.append("Stop with Ctrl+C.")
        return "\n".join(lines)


    def init_handlers(self):
        replace = {
            TornadoVoilaHandler: LessonHandler,
            VoilaKernelWebsocketHandler: GuardedKernelWebsocketHandler,
            VoilaShutdownKernelHandler: OwnedShutdownHandler,
            KernelHandler: OwnedKernelHandler,
        }
        # Only the landing page and the lessons: no directory listing, no contents API.
        drop = (TornadoVoilaTreeHandler, VoilaContentsHandler)
        handlers = []
        for spec in super().init_handlers():
            cls = spec[1]
            if cls in drop:
                continue
            route = spec[0]
            if route in ("/logout", "/oauth_callback"):  # the identity provider's, which Voilà leaves unprefixed
                route = url_path_join(self.server_url, route.lstrip("/"))
            handlers.append((route, replace.get(cls, cls), *spec[2:]))
        # Redirects go to the URL the browser sees (base_url); routes are matched under server_url. Not permanent:
        # a browser would otherwise remember the redirect for a prefix that may later serve something else.
        landing = url_path_join(self.base_url, "voila/render", LANDING)
        redirect = {"url": landing, "permanent": False}
        ours = [
            # The prefix with and without its trailing slash (JupyterHub links to /user/<name>).
            (self.server_url.rstrip("/") + "/?", RedirectHandler, redirect),
            (url_path_join(self.server_url, "voila/tree") + "/?.*", RedirectHandler, redirect),
            (
                url_path_join(self.server_url, "dpviz-static/(" + "|".join(map(re.escape, STATIC_FILES)) + ")"),
                StaticFileHandler,
                {"path": str(STATIC)},
            ),
            (url_path_join(self.server_url, "dpviz/status"), StatusHandler, {"fmt": "html"}),
            (url_path_join(self.server_url, r"dpviz/status\.json"), StatusHandler, {"fmt": "json"}),
        ]
        if self._class is not None:
            from dpviz.serve.classview import class_handlers

            ours += class_handlers(self.server_url, self._class)
        return ours + handlers


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    templating.install()  # compile the page templates once, not per page
    app = DpvizVoila()
    app.config_file_paths = [str(NOTEBOOKS)]
    # Kernels idle for cull_idle seconds are culled (also when a tab is still open, also when busy: a kernel
    # computing for half an hour is stuck); every 60 s at most.
    app.initialize([str(NOTEBOOKS), "--no-browser", *args])
    app.log.addFilter(_QuietStartup())
    app.config.MappingKernelManager.cull_idle_timeout = int(app.cull_idle)
    app.config.MappingKernelManager.cull_interval = int(min(60, max(app.cull_idle / 4, 1)))
    app.config.MappingKernelManager.cull_connected = True
    app.config.MappingKernelManager.cull_busy = True
    app.start()


if __name__ == "__main__":
    main()
