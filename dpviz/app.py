"""``python -m dpviz.app``: serve every lesson with Voila, with ``/`` opening the landing page.

Voila in directory mode shows a file listing at ``/``; this launcher adds one redirect so that
http://localhost:8866 opens ``index.ipynb`` (the landing page) directly. Everything else is Voila's own
configuration, read from ``notebooks/voila.json`` (tracebacks hidden, sources stripped, a pre-heated kernel per lesson).

It also serves plotly's widget bundle once, at ``/dpviz-static/widgetbundle.js``, and tells the kernels where
(``DPVIZ_PLOTLY_BUNDLE_URL``). Every plotly ``FigureWidget`` otherwise ships its own ~5 MB copy of plotly.js in its
model state; a lesson with fourteen figures then sends ~70 MB before it can draw, and anywidget gives each model
only 2 s to initialise, so on a busy page some figures never follow their sliders. With the shared URL the browser
downloads and evaluates plotly.js once per page (and caches it across lessons); see
:func:`dpviz.panels._base.figure_widget`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import plotly
from jupyter_server.utils import url_path_join
from tornado.web import RedirectHandler, StaticFileHandler
from voila.app import Voila

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PLOTLY_PACKAGE_DATA = Path(plotly.__file__).resolve().parent / "package_data"
#: Environment variable read by :func:`dpviz.panels._base.figure_widget` in the kernels this app starts.
BUNDLE_ENV = "DPVIZ_PLOTLY_BUNDLE_URL"


class DpvizVoila(Voila):
    def init_settings(self):
        # Kernels (including the pre-heated pool) inherit this environment, so set it before they start.
        server_url = self.server_url or self.base_url
        os.environ[BUNDLE_ENV] = url_path_join(server_url, "dpviz-static/widgetbundle.js")
        return super().init_settings()

    def init_handlers(self):
        handlers = super().init_handlers()
        landing = self.server_url.rstrip("/") + "/voila/render/index.ipynb"
        bundle = (url_path_join(self.server_url, r"dpviz-static/(widgetbundle\.js)"), StaticFileHandler,
                  {"path": str(PLOTLY_PACKAGE_DATA)})
        return [(self.server_url, RedirectHandler, {"url": landing}), bundle] + handlers


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    app = DpvizVoila()
    app.config_file_paths = [str(NOTEBOOKS)]
    app.initialize([str(NOTEBOOKS), "--no-browser", *args])
    app.start()


if __name__ == "__main__":
    main()
