"""The ``dpviz`` command: ``dpviz serve``, ``dpviz export``, ``dpviz loadtest``.

- ``dpviz serve [--class-size N] [--lessons 07,11] [other options]``: the lessons with Voilà
  (:mod:`dpviz.serve.app`; ``dpviz serve --help`` lists every option);
- ``dpviz export [--out DIR]``: every lesson as a static page and a PDF (:mod:`dpviz.export`);
- ``dpviz singleuser [options]``: a student's lessons-only server under JupyterHub, ``jupyterhub-singleuser`` with
  :data:`dpviz.serve.extension.LESSONS_CONFIG` (the recipes in ``deploy/jupyterhub/`` start it; the options are
  ``jupyterhub-singleuser``'s);
- ``dpviz loadtest [options]``: a class of students against a server on a free loopback port
  (``benchmarks/classroom/loadtest.py``, in a checkout only: it is a developer's tool, not part of the package).
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

__all__ = ["main"]

USAGE = """usage: dpviz {serve,export,singleuser,loadtest} [options]

  serve     serve the lessons with Voila (dpviz serve --help lists its options, e.g. --class-size N --lessons 07,11)
  export    every lesson as a static page and a PDF (dpviz export --help)
  singleuser  a student's lessons-only server under JupyterHub (the hub starts it: deploy/jupyterhub/)
  loadtest  a class of students opening a lesson together against a local server (a checkout only; --help)
"""

#: The load test, in a checkout (the package does not ship the benchmarks).
LOADTEST = Path(__file__).resolve().parents[2] / "benchmarks" / "classroom" / "loadtest.py"


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE, end="")
        return 0
    command, rest = args[0], args[1:]
    if command == "serve":
        from dpviz.serve.app import main as serve

        serve(rest)
        return 0
    if command == "export":
        from dpviz.export import main as export

        export(rest)
        return 0
    if command == "singleuser":
        import os
        import shutil

        from dpviz.serve.extension import LESSONS_CONFIG

        program = shutil.which("jupyterhub-singleuser")
        if program is None:
            print("dpviz singleuser: jupyterhub-singleuser is not installed (pip install jupyterhub)", file=sys.stderr)
            return 2
        os.execv(program, [program, "--config=" + LESSONS_CONFIG, *rest])  # replaces this process
    if command == "loadtest":
        if not LOADTEST.exists():
            print(f"dpviz loadtest: no {LOADTEST} (the load test runs from a checkout of dpviz)", file=sys.stderr)
            return 2
        sys.argv = [str(LOADTEST), *rest]
        try:
            runpy.run_path(str(LOADTEST), run_name="__main__")
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        return 0
    print(f"dpviz: unknown command {command!r}\n\n" + USAGE, file=sys.stderr, end="")
    return 2


if __name__ == "__main__":
    sys.exit(main())
