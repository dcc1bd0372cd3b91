"""dpviz's serving pieces as a jupyter-server extension: the same lesson page under JupyterHub as under ``dpviz serve``.

Under JupyterHub every student has a single-user server (``jupyterhub-singleuser``, a jupyter_server), and Voilà
runs in it as a server extension, not as ``dpviz serve``'s own app. Loaded there, Voilà alone differs from the
lesson page ``dpviz serve`` gives: each figure loads its own copy of plotly.js over the kernel's WebSocket (for
lesson 05, now lessons 06 and 07, 26 MB per student, and anywidget's 2 s start limit is missed), icons and
MathJax come from public CDNs,
the page's shutdown beacon is refused (voila-dashboards/voila#1458), and only the ``VoilaConfiguration`` part of
the lessons' ``voila.json`` is read (so the 4 s output time-out is back). This extension puts right what
``dpviz serve`` puts right, with the same code:

- ``<base>/dpviz-static/``: plotly.js's cartesian bundle, served once and cached by the browser, and the kernels
  told where it is (:data:`dpviz.serve.app.BUNDLE_ENV`): one plotly.js per page, not one per figure;
- the lesson page is dpviz's template (``templates/dpviz/index.html.j2``: no CDN link, page.js with the "this
  lesson has stopped" notice and the phone layout) and MathJax is replaced by a stand-in (the lessons hold no TeX):
  no request leaves the server;
- lessons only (:class:`dpviz.serve.guards.LessonPages`): the landing and notation pages as static HTML, the
  lessons, nothing else of the folder; no ``?theme=``/``?template=``;
- a kernel ends with its page: the page's beacon carries the ``_xsrf`` cookie's value, and the lesson page now sets
  that cookie (under jupyter_server nothing else did, so Voilà's shutdown route refused every beacon and kernels
  lived until culled);
- Voilà's executor settings (``VoilaExecutor``: the 60 s output time-out) from the lessons' ``voila.json``;
- optionally (``DpvizExtension.fork_kernels``), kernels forked from a process that has already imported the
  lessons' modules (:mod:`dpviz.serve.forkserver`), started with the server, while the student reads the
  landing page.

What is *not* needed under the hub, and why: the classroom guards of ``dpviz serve``
(:mod:`dpviz.serve.guards`: a kernel answers only the browser that was given it, a per-browser kernel limit, the
memory budget, the host-name check) protect students from one another on a shared server. Under the hub each
student's server is their own process, behind the hub's login: nobody else's page reaches it, and the hub's
spawner limits its memory.

Enable it with ``--ServerApp.jpserver_extensions`` (``{"dpviz.serve.extension": true}``) or use
:data:`LESSONS_CONFIG`, the lessons-only single-user configuration the JupyterHub recipe
(``deploy/jupyterhub/jupyterhub_config.py``) starts every student's server with.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

from jupyter_server.utils import url_path_join
from tornado import web
from traitlets import Bool, Float
from traitlets.config import Configurable

from dpviz.lessons import NOTEBOOK_DIR, lessons
from dpviz.serve.guards import TEMPLATE_DIR, LessonPages

__all__ = ["LESSONS_CONFIG", "LESSONS_FOLDER", "DpvizExtension", "apply_voila_json", "place_lessons"]

#: The lessons-only single-user server's configuration (``jupyterhub-singleuser --config=<this file>``): Voilà and
#: this extension, no JupyterLab, no terminal, the lessons from the installed package.
LESSONS_CONFIG = str(Path(__file__).resolve().parent / "jupyter_lessons_config.py")
#: The folder of each student's home the JupyterHub recipe copies the lessons into when JupyterLab is on.
LESSONS_FOLDER = "dpviz-lessons"


def _jupyter_server_extension_points():
    return [{"module": "dpviz.serve.extension"}]


class DpvizExtension(Configurable):
    """The extension's options (``c.DpvizExtension.…`` in the single-user server's configuration)."""

    fork_kernels = Bool(
        sys.platform == "linux", config=True,
        help="Fork kernels from a process started with the server that has already imported the lessons' modules "
             "(dpviz.serve.forkserver; default on Linux): a lesson's kernel is ready in a fraction of a second "
             "instead of after a CPU-second of imports. False: start each one afresh (less memory while no lesson "
             "is open).")
    kernel_memory_limit_mb = Float(
        4096.0, config=True,
        help="Address space (MB, RLIMIT_AS) each forked kernel may use (0: no cap), as dpviz serve's option.")


def _voila_json(directory: Path) -> dict:
    try:
        return json.loads((directory / "voila.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def apply_voila_json(config, sections: dict) -> None:
    """Every section of the lessons' ``voila.json`` into the server's ``config``, as ``dpviz serve`` reads it
    (Voilà's extension reads only the ``VoilaConfiguration`` part, and it loads after this one: extensions load in
    the order of their names). A setting the school made in the server's own configuration stands. No pre-heated
    pools: a server extension has none."""
    for section, values in sections.items():
        for name, value in values.items():
            if name not in config[section]:
                config[section][name] = value
    config.VoilaConfiguration.preheat_kernel = False


def _lessons_in(root: Path) -> tuple[Path, str]:
    """Where the lessons are under the server's root folder, and their URL prefix under ``voila/render/``: the root
    itself (lessons-only: the installed package's folder) or its :data:`LESSONS_FOLDER` (JupyterLab on)."""
    if (root / "index.ipynb").is_file() and any(root.glob("[0-9][0-9]_*.ipynb")):
        return root, ""
    return root / LESSONS_FOLDER, LESSONS_FOLDER + "/"


def place_lessons(home: Path | str, *, uid: int | None = None, gid: int | None = None) -> Path:
    """Copy the installed package's lessons (and their ``voila.json``) into ``home``/:data:`LESSONS_FOLDER`.

    For a single-user server with JupyterLab, where a student opens and may change the notebooks: a file is copied
    when it is missing or when the package's copy is newer (an upgraded dpviz), so a student's edits of the current
    version are kept. ``uid``/``gid``: the owner to give what is created (the hub runs as root and the student's
    server as the student). Returns the folder."""
    target = Path(home) / LESSONS_FOLDER
    target.mkdir(parents=True, exist_ok=True)
    made = [target]
    for source in sorted(NOTEBOOK_DIR.iterdir()):
        if source.suffix != ".ipynb" and source.name != "voila.json":
            continue
        dest = target / source.name
        if not dest.exists() or dest.stat().st_mtime < source.stat().st_mtime:
            shutil.copy2(source, dest)
            made.append(dest)
    if uid is not None:
        for path in made:
            os.chown(path, uid, -1 if gid is None else gid)
    return target


def _load_jupyter_server_extension(serverapp) -> None:
    from voila.paths import collect_template_paths

    from dpviz.serve import app as dpviz_app

    options = DpvizExtension(parent=serverapp)
    web_app = serverapp.web_app
    settings = web_app.settings
    base_url = settings.get("base_url", "/")
    root = Path(serverapp.root_dir).expanduser().resolve()
    folder, prefix = _lessons_in(root)

    apply_voila_json(serverapp.config, _voila_json(NOTEBOOK_DIR))

    # The kernels this server starts inherit its environment: tell their figures where the bundle is.
    os.environ[dpviz_app.BUNDLE_ENV] = url_path_join(base_url, "dpviz-static/" + dpviz_app.PLOTLY_BUNDLE)
    settings["mathjax_url"] = url_path_join(base_url, "dpviz-static/" + dpviz_app.NO_MATHJAX)
    settings["mathjax_config"] = "none"

    catalogue = lessons(NOTEBOOK_DIR)
    settings["dpviz_prose_pages"] = {prefix + name: (lambda base, _n=name: dpviz_app.prose_html(_n, base))
                                     for name in dpviz_app.PROSE_PAGES}
    settings["dpviz_lessons"] = frozenset(prefix + x.filename for x in catalogue)
    settings["dpviz_titles"] = {prefix + x.filename: f"lesson {x.order:02d} · {x.title}" for x in catalogue}

    if options.fork_kernels:
        from dpviz.serve import forkserver

        forkserver.fork_kernels_for(serverapp, str(folder), options.kernel_memory_limit_mb or None)

    from voila.configuration import VoilaConfiguration

    voila_configuration = VoilaConfiguration(parent=serverapp)
    template_paths = [str(TEMPLATE_DIR), *collect_template_paths(["voila", "nbconvert"],
                                                                   voila_configuration.template)]
    static = "(" + "|".join(map(re.escape, dpviz_app.STATIC_FILES)) + ")"
    handlers = [
        (url_path_join(base_url, "voila/render/(.*)"), _HubLessonPage,
         {"config": serverapp.config, "template_paths": template_paths,
          "voila_configuration": voila_configuration}),
        (url_path_join(base_url, "voila/?"), web.RedirectHandler,
         {"url": url_path_join(base_url, "voila/render", prefix + dpviz_app.LANDING), "permanent": False}),
        (url_path_join(base_url, "voila/tree(?:/.*)?"), web.RedirectHandler,
         {"url": url_path_join(base_url, "voila/render", prefix + dpviz_app.LANDING), "permanent": False}),
        (url_path_join(base_url, "dpviz-static/" + static), web.StaticFileHandler, {"path": str(dpviz_app.STATIC)}),
    ]
    # Added before Voilà's own routes (this extension loads first), so these answer.
    web_app.add_handlers(".*$", handlers)
    if not (serverapp.jpserver_extensions.get("voila.server_extension") or serverapp.jpserver_extensions.get("voila")):
        from voila.server_extension import _load_jupyter_server_extension as load_voila

        load_voila(serverapp)  # its static files, templates' assets and shutdown route
    serverapp.log.info("dpviz: lessons from %s under %svoila/render/%s", folder, base_url, prefix)


class _HubLessonPage(LessonPages):
    """A lesson page in a student's own server: :class:`~dpviz.serve.guards.LessonPages`, and the ``_xsrf`` cookie
    set, which the page's shutdown beacon sends back (Voilà's shutdown route checks it)."""

    @web.authenticated
    async def get(self, path=None):
        self.xsrf_token  # noqa: B018  (reading it sets the cookie)
        await super().get(path)
