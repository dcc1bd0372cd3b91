"""``make export``: every lesson as a static web page (and a PDF where Chromium is installed) in ``build/``.

For students without a server: each lesson is executed once with its panels in static mode (figures at the default
settings, drawn by plotly.js in the page, exercises showing their questions only), converted to HTML without code,
with one inline copy of plotly.js, links between lessons pointing at the exported pages, and nothing loaded from
outside the file. ``python -m dpviz.export [--out build] [--pdf/--no-pdf] [NAMES...]``.

Besides, the **teacher's edition** (issue 41, item 4): ``build/teacher/<lesson>.html`` lists every exercise and
problem set of each exported lesson's panels, in the order the lesson shows them, with the answers, the worked
solutions, the feedback of every option and the teaching notes (:func:`dpviz.panels.exercises.teacher_entries`),
and ``build/teacher/teachers-edition.html`` (printed to ``teachers-edition.pdf``) holds all of them. The student
pages never hold any of this: a static panel shows its questions only.
"""

from __future__ import annotations

import argparse
import ast
import html
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from dpviz.lessons import NOTATION, NOTEBOOK_DIR, STATIC_EXPORT_ENV, lessons

__all__ = ["export_lessons", "export_notebook", "export_teacher_edition", "lesson_panels", "teacher_page"]

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


def lesson_panels(path: Path) -> list[type]:
    """The panel classes a lesson notebook shows, in order: the names its code cells import from ``dpviz.panels.*``
    and then call in an expression statement (``SensitivityPanel()``), each once. Read from the source, nothing
    executed but the imports of those modules."""
    import nbformat

    from dpviz.panels.panel import Panel

    nb = nbformat.read(path, as_version=4)
    imported: dict[str, tuple[str, str]] = {}
    shown: list[type] = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpviz.panels"):
                for alias in node.names:
                    imported[alias.asname or alias.name] = (node.module, alias.name)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                    and isinstance(node.value.func, ast.Name) and node.value.func.id in imported:
                module, name = imported[node.value.func.id]
                cls = getattr(importlib.import_module(module), name, None)
                if isinstance(cls, type) and issubclass(cls, Panel) and cls not in shown:
                    shown.append(cls)
    return shown


_TEACHER_STYLE = """<style>
body{font-family:Inter,system-ui,sans-serif;max-width:52em;margin:1em auto;padding:0 1em;line-height:1.45;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}h3{font-size:1.08em}
h4{margin:1em 0 .3em}.kind{color:#555;font-weight:normal}.options li.right{color:#1b5e20}
.solution{background:#f3f7ee;border-left:4px solid #009E73;padding:4px 8px;margin:.4em 0}
.notes{background:#fff8e5;border-left:4px solid #E69F00;padding:4px 8px;margin:.4em 0}
.dpviz-teacher-entry{break-inside:avoid}.lesson{break-before:page}.lesson:first-of-type{break-before:auto}
@media print{body{max-width:none}}
</style>"""


def teacher_page(title: str, body: str) -> str:
    """A standalone HTML page of the teacher's edition (no script, nothing loaded from outside)."""
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><meta name='viewport' "
            f"content='width=device-width, initial-scale=1'><title>{html.escape(title)}</title>{_TEACHER_STYLE}"
            f"</head><body>{body}</body></html>")


def _teacher_lesson(lesson) -> str:
    from dpviz.panels.exercises import teacher_entries, teacher_html

    entries = teacher_entries(lesson_panels(lesson.path))
    body = teacher_html(entries) if entries else "<p>This lesson has no exercises.</p>"
    return (f"<section class='lesson'><h1>Teacher's edition — {html.escape(lesson.title)}</h1>"
            "<p><i>Answers, worked solutions and teaching notes: not for the students' pages.</i> "
            f"<a href='../{html.escape(lesson.path.stem)}.html'>The students' page</a>.</p>{body}</section>")


def export_teacher_edition(out_dir: Path | str, lesson_list: list, *, pdf: bool = True) -> list[Path]:
    """Write ``out_dir/teacher/<lesson>.html`` for each lesson of ``lesson_list`` (:class:`dpviz.lessons.Lesson`)
    and ``out_dir/teacher/teachers-edition.html`` with all of them (and its PDF where Chromium is installed)."""
    folder = Path(out_dir) / "teacher"
    folder.mkdir(parents=True, exist_ok=True)
    written, sections = [], []
    for lesson in lesson_list:
        section = _teacher_lesson(lesson)
        sections.append(section)
        page = folder / (lesson.path.stem + ".html")
        page.write_text(teacher_page(f"Teacher's edition — {lesson.title}", section), encoding="utf-8")
        written.append(page)
    if sections:
        contents = "".join(f"<li><a href='{html.escape(p.name)}'>{html.escape(lesson.title)}</a></li>"
                           for p, lesson in zip(written, lesson_list))
        combined = folder / "teachers-edition.html"
        combined.write_text(teacher_page("dpviz — the teacher's edition", "<h1>dpviz — the teacher's edition</h1>"
                                         f"<ol>{contents}</ol>" + "".join(sections)), encoding="utf-8")
        written.append(combined)
        if pdf:
            made = _print_pdf(combined)
            if made is not None:
                written.append(made)
    return written


def export_lessons(out_dir: Path | str = "build", names: list[str] | None = None, *, pdf: bool = True,
                   directory: Path | None = None, teacher: bool = True) -> list[Path]:
    """Export the landing page, the notation page and every lesson (or those in ``names``) into ``out_dir``; with
    ``teacher``, the teacher's edition of the exported lessons into ``out_dir/teacher`` (not in the returned list
    nor in ``lessons.json``, which list the students' pages)."""
    root = Path(directory) if directory is not None else NOTEBOOK_DIR
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    catalogue = lessons(root)
    chosen = ["index.ipynb", NOTATION, *(lesson.filename for lesson in catalogue)]
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
    if teacher:
        for path in export_teacher_edition(out, [lesson for lesson in catalogue if lesson.filename in chosen],
                                           pdf=pdf):
            print(f"wrote {path}", flush=True)
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
