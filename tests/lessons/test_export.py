"""``make export``: static lesson pages (and PDFs) for students without a server."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from dpviz.export import export_lessons
from dpviz.lessons import NOTEBOOK_DIR


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    # the landing page, the notation page and the first lesson of Part I's privacy-loss view
    export_lessons(out, ["index.ipynb", "notation.ipynb", "03_privacy_loss.ipynb"], pdf=False)
    return out


def test_a_lesson_exports_with_its_figures_and_one_copy_of_plotly_js(exported):
    page = (exported / "03_privacy_loss.html").read_text(encoding="utf-8")
    assert page.count("plotly-graph-div") >= 4, "every figure of the lesson is in the page"
    assert page.count("Plotly.newPlot") >= 4
    assert len(re.findall(r"plotly\.js v\d", page)) == 1, "plotly.js inlined once"
    assert "A static copy at the default settings" in page
    assert "from dpviz.panels" not in page, "no code cells"


def test_exported_pages_load_nothing_from_outside_and_link_each_other(exported):
    for name in ("index.html", "notation.html", "03_privacy_loss.html"):
        page = (exported / name).read_text(encoding="utf-8")
        srcs = re.findall(r"""<(?:script|link|img)[^>]+(?:src|href)=["'](https?://[^"']+)""", page)
        assert not srcs, f"{name} loads {srcs}"
        assert not re.search(r"""href=["'][^"':]+\.ipynb""", page), f"{name} links a notebook, not a page"
    index = (exported / "index.html").read_text(encoding="utf-8")
    assert "href='03_privacy_loss.html'" in index and "href='notation.html'" in index
    assert json.loads((exported / "lessons.json").read_text()) == ["index.html", "notation.html",
                                                                   "03_privacy_loss.html"]


def test_unknown_names_are_refused(tmp_path):
    with pytest.raises(ValueError, match="names = .*nope.ipynb"):
        export_lessons(tmp_path, ["nope.ipynb"], pdf=False)


def test_a_page_prints_to_pdf_with_chromium(tmp_path):
    assert shutil.which("chromium"), "Debian's chromium is a test prerequisite (.ci/run installs it)"
    written = export_lessons(tmp_path, ["notation.ipynb"], pdf=True, directory=NOTEBOOK_DIR)
    pdf = tmp_path / "notation.pdf"
    assert pdf in written and pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 10_000
