"""The README and the documentation site's sources (docs/): short README, links that resolve, every page reachable.

The site itself is built by ``make docs`` (Sphinx, warnings are errors), which CI runs after ``make test``; these
checks read the markdown only, so they run in a fraction of a second. Each checker is also run on a deliberately
bad text, so that a checker that finds nothing cannot pass unnoticed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
MAX_README_LINES = 150

ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
# A measured time ("123 ms", "4.2 s", "0.6 CPU-s") or a percentile of one ("p95").
TIMING = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s?(?:ms|µs|s|min|CPU-s)(?![\w-])|\bp(?:50|95|99)\b")
FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
TOCTREE = re.compile(r"^```\{toctree\}[^\n]*\n(.*?)^```", re.S | re.M)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.M)


def _pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def _prose(text: str) -> str:
    """Markdown without its fenced blocks and inline code: where links and measurements are written."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def _dated_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if ISO_DATE.search(line)]


def _timed_lines(text: str) -> list[str]:
    return [line for line in _prose(text).splitlines() if TIMING.search(line)]


def _slug(heading: str) -> str:
    """The anchor MyST (``myst_heading_anchors``) and the forges give a heading: lower case, punctuation dropped,
    spaces as hyphens."""
    text = INLINE_CODE.sub(lambda m: m.group(0).strip("`"), heading).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {_slug(h) for h in HEADING.findall(text)}


def _broken_links(path: Path, text: str) -> list[str]:
    """Relative links of a markdown file that name no file of the repository (or no heading of the page)."""
    broken = []
    for target in LINK.findall(_prose(text)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # http:, https:, mailto: ...; a link inside the page
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part.split("?")[0]).resolve()
        if not resolved.is_file() or ROOT not in resolved.parents:
            broken.append(target)
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(target)
    return broken


def _toctree_entries(path: Path) -> list[Path]:
    entries = []
    for block in TOCTREE.findall(path.read_text(encoding="utf-8")):
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith(":"):
                entries.append((path.parent / f"{line}.md").resolve())
    return entries


# --- the README ------------------------------------------------------------------------------------------------

def test_readme_is_at_most_150_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines; move detail into docs/"


def test_readme_holds_no_dated_measurement():
    text = README.read_text(encoding="utf-8")
    assert not _dated_lines(text), f"dates in README.md (history goes to CHANGELOG.md): {_dated_lines(text)}"
    assert not _timed_lines(text), f"timings in README.md (numbers go to docs/performance.md): {_timed_lines(text)}"


def test_the_readme_checks_catch_a_journal():
    journal = ("Lesson test alone, 2026-11-29: every panel p95 99 ms.\n"
               "Pre-heating took 28 s; a session 1.19 CPU-s; the page 4.6–4.9 s.\n")
    assert _dated_lines(journal) == [journal.splitlines()[0]]
    assert _timed_lines(journal) == journal.splitlines()
    fine = "make serve CLASS=30 HOST=0.0.0.0: 30 students, 3 commands, 0.2 GB + 0.05 GB per student, port 8866.\n"
    assert not _dated_lines(fine) and not _timed_lines(fine)
    assert not _timed_lines("```bash\nsleep 5 s\n```\n"), "code blocks are not prose"


# --- links -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [README, *_pages()], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path):
    assert not _broken_links(path, path.read_text(encoding="utf-8"))


def test_the_link_check_catches_a_broken_link():
    page = DOCS / "index.md"
    text = ("[fine](lessons/index.md) [gone](lessons/missing.md) ![picture](lesson03.png) "
            "[no heading](teach/index.md#no-such-heading) [heading](teach/index.md#memory-budget) "
            "[outside](../../etc/passwd) [web](https://example.org/x.md) `[code](nowhere.md)`")
    assert _broken_links(page, text) == ["lessons/missing.md", "teach/index.md#no-such-heading",
                                         "../../etc/passwd"]


def test_the_readme_links_into_every_part_of_the_site():
    links = {target.partition("#")[0] for target in LINK.findall(_prose(README.read_text(encoding="utf-8")))}
    for page in ("docs/lessons/index.md", "docs/teach/index.md", "docs/library/index.md", "docs/develop/index.md",
                 "docs/performance.md", "docs/known-upstream-issues.md", "CHANGELOG.md", "docs/lesson03.png"):
        assert page in links, page


# --- the site's structure --------------------------------------------------------------------------------------

def test_every_page_is_in_a_toctree():
    listed = {entry for page in _pages() for entry in _toctree_entries(page)}
    missing = [str(p.relative_to(ROOT)) for p in _pages() if p != DOCS / "index.md" and p.resolve() not in listed]
    assert not missing, f"pages in no toctree: {missing}"
    absent = [str(p.relative_to(ROOT)) for p in listed if not p.is_file()]
    assert not absent, f"toctree entries without a page: {absent}"


def test_the_toctree_check_reads_entries_and_skips_options(tmp_path):
    page = tmp_path / "index.md"
    page.write_text("# T\n\n```{toctree}\n:hidden:\n:maxdepth: 2\n\nlessons/index\nperformance\n```\n",
                    encoding="utf-8")
    expected = [(tmp_path / "lessons" / "index.md").resolve(), (tmp_path / "performance.md").resolve()]
    assert _toctree_entries(page) == expected


API_MODULES = ("mechanisms", "accountants", "conversions", "attacks", "sensitivity", "local", "selection", "tradeoff",
               "interpret", "deployments", "audit", "dpsgd", "userlevel", "mean", "learning", "partial")


@pytest.mark.parametrize("module", API_MODULES)
def test_the_api_reference_documents_each_public_module(module):
    page = DOCS / "library" / "api" / f"{module}.md"
    assert f".. dpviz-module:: dpviz.{module}" in page.read_text(encoding="utf-8")


def test_ci_builds_the_docs_with_warnings_as_errors():
    assert re.search(r"^make docs$", (ROOT / ".ci" / "run").read_text(encoding="utf-8"), re.M)
    recipe = re.search(r"^docs:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M)
    assert recipe and all(flag in recipe.group(1) for flag in (" -W", "--keep-going", " -n"))
