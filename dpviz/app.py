"""``python -m dpviz.app``: serve every lesson with Voila, with ``/`` opening the landing page.

Voila in directory mode shows a file listing at ``/``; this launcher adds one redirect so that
http://localhost:8866 opens ``index.ipynb`` (the landing page) directly. Everything else is Voila's own
configuration, read from ``notebooks/voila.json`` (tracebacks hidden, sources stripped, kernels pre-heated).
"""

from __future__ import annotations

import sys
from pathlib import Path

from tornado.web import RedirectHandler
from voila.app import Voila

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


class DpvizVoila(Voila):
    def init_handlers(self):
        handlers = super().init_handlers()
        landing = self.server_url.rstrip("/") + "/voila/render/index.ipynb"
        return [(self.server_url, RedirectHandler, {"url": landing})] + handlers


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    app = DpvizVoila()
    app.config_file_paths = [str(NOTEBOOKS)]
    app.initialize([str(NOTEBOOKS), "--no-browser", *args])
    app.start()


if __name__ == "__main__":
    main()
