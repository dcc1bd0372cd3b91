"""``make export``: every lesson as a static web page (and a PDF where Chromium is installed) in ``build/``.

For students without a server: each lesson is executed once with its panels in static mode (figures at the default
settings, drawn by plotly.js in the page, exercises showing their questions only), converted to HTML without code,
with one inline copy of plotly.js, links between lessons pointing at the exported pages, and nothing loaded from
outside the file. ``python -m dpviz.export [--out build] [--pdf/--no-pdf] [NAMES...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from dpviz.lessons import NOTATION, NOTEBOOK_DIR, STATIC_EXPORT_ENV, lessons

__all__ = ["export_lessons", "export_notebook"]

_CDN_SCRIPT = re.compile(r"<script[^>]*>(?:(?!</script>).)*?(?:cdnjs\.cloudflare\.com|cdn\.jsdelivr\.net|unpkg\.com)"
                         r".*?</script>", re.S)
_CDN_SRC = re.compile(r"<script[^>]+src=\"https?://[^\"]+\"[^>]*>\s*</script>", re.S)
_LINK = re.compile(r"""(href=["'])([A-Za-z0-9_.-]+)\.ipynb((?:#[^"']*)?["'])""")


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return "<script type='text/javascript'>" + get_plotlyjs() + "</script>"


def export_notebook(path: Path, out_dir: Path, *, timeout: int = 600) -> Path:
    """Execute ``path`` with static panels and write ``out_dir/<name>.html``; return the written path."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    nb = nbformat.read(path, as_version=4)
    if any(c.cell_type == "code" for c in nb.cells):
        previous = os.environ.get(STATIC_EXPORT_ENV)
        os.environ[STATIC_EXPORT_ENV] = "1"  # the kernel inherits it
        try:
            NotebookClient(nb, timeout=timeout, kernel_name="python3",
                           resources={"metadata": {"path": str(path.parent)}}).execute()
        finally:
            if previous is None:
                os.environ.pop(STATIC_EXPORT_ENV, None)
            else:
                os.environ[STATIC_EXPORT_ENV] = previous
    exporter = HTMLExporter(template_name="lab", exclude_input=True, exclude_input_prompt=True,
                            exclude_output_prompt=True)
    body, _ = exporter.from_notebook_node(nb)
    body = _CDN_SCRIPT.sub("", body)
    body = _CDN_SRC.sub("", body)
    body = _LINK.sub(lambda m: f"{m.group(1)}{m.group(2)}.html{m.group(3)}", body)
    if "plotly-graph-div" in body:
        body = body.replace("</head>", _plotly_js() + "</head>", 1)
    body = body.replace("</head>", "<style>@media print{.js-plotly-plot{break-inside:avoid}}</style></head>", 1)
    out = out_dir / (path.stem + ".html")
    out.write_text(body, encoding="utf-8")
    return out


def _print_pdf(html_path: Path) -> Path | None:
    """Print ``html_path`` to PDF with a local Chromium, if there is one (None otherwise)."""
    browser = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    if browser is None:
        return None
    pdf = html_path.with_suffix(".pdf")
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                    "--virtual-time-budget=20000", f"--print-to-pdf={pdf}", html_path.resolve().as_uri()],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
    return pdf if pdf.exists() else None


def export_lessons(out_dir: Path | str = "build", names: list[str] | None = None, *, pdf: bool = True,
                   directory: Path | None = None) -> list[Path]:
    """Export the landing page, the notation page and every lesson (or those in ``names``) into ``out_dir``."""
    root = Path(directory) if directory is not None else NOTEBOOK_DIR
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    chosen = ["index.ipynb", NOTATION, *(lesson.filename for lesson in lessons(root))]
    if names:
        unknown = sorted(set(names) - set(chosen))
        if unknown:
            raise ValueError(f"names = {unknown}: not a lesson; the notebooks are {', '.join(chosen)}")
        chosen = [n for n in chosen if n in names]
    written = []
    for name in chosen:
        html_path = export_notebook(root / name, out)
        written.append(html_path)
        print(f"wrote {html_path}", flush=True)
        if pdf and name != "index.ipynb":
            made = _print_pdf(html_path)
            if made is not None:
                written.append(made)
                print(f"wrote {made}", flush=True)
    (out / "lessons.json").write_text(json.dumps([p.name for p in written], indent=1) + "\n", encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - command line
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="notebook file names (default: all)")
    ap.add_argument("--out", default="build")
    ap.add_argument("--no-pdf", action="store_true", help="HTML only")
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    export_lessons(args.out, args.names or None, pdf=not args.no_pdf)


if __name__ == "__main__":  # pragma: no cover
    main()
