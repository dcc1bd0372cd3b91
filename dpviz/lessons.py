"""The lesson catalogue: which notebooks exist, in what order, with what one-line summary.

Each lesson notebook carries ``metadata.dpviz = {"order": N, "title": ..., "summary": ...}``; the landing page,
the README check and the tests all read the catalogue from there, so a new lesson adds itself by existing.

``python -m dpviz.lessons --strip FILES`` removes outputs and execution counts (notebooks are stored without them);
``python -m dpviz.lessons --nav`` writes every lesson's Previous / Index / Next links and its page title.
"""

from __future__ import annotations

import html
import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["COURSE_PATHS", "Lesson", "NAV_TAG", "NOTATION", "NOTEBOOK_DIR", "PARTS", "lessons", "lesson_index_html",
           "navigation_markdown", "page_title", "part_of", "STATIC_EXPORT_ENV", "strip_outputs", "update_navigation"]

#: The lessons' folder: the package ``dpviz.lesson_notebooks`` (``notebooks/`` in a checkout, mapped by setup.py;
#: inside the installed package otherwise), so that an installed dpviz serves its lessons from any directory.
NOTEBOOK_DIR = Path(importlib.util.find_spec("dpviz.lesson_notebooks").submodule_search_locations[0]).resolve()


#: The course's parts: (first lesson number, title, one-line description). A lesson belongs to the last part whose
#: first number is at most its own.
PARTS: tuple[tuple[int, str, str], ...] = (
    (1, "Part I — Foundations",
     "Why anonymisation fails, counting with noise, privacy loss, selection, beyond global sensitivity, composition, "
     "accounting, releasing many answers, choosing ε, DP-SGD and auditing: a first course in differential privacy."),
    (11, "Part II — Users and attributes",
     "When one person contributes many records, or only some attributes are sensitive: the research the course "
     "builds up to."),
)

#: Recommended routes through the course: (who it is for, lesson numbers in order). Numbers of lessons that do not
#: exist (yet) are skipped when shown.
COURSE_PATHS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("A first course", (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)),
    ("A research seminar, after the first course", (12, 13, 14, 15)),
    ("If you already know DP", (3, 5, 7, 10, 11, 12, 13, 14, 15)),
)

#: Set (to anything) in a kernel's environment to make panels display as static HTML (``make export``).
STATIC_EXPORT_ENV = "DPVIZ_STATIC_EXPORT"

#: The notation and glossary page (prose only: not a lesson, no kernel).
NOTATION = "notation.ipynb"


def part_of(order: int) -> tuple[int, str, str]:
    """The part (first number, title, description) that lesson number ``order`` belongs to."""
    if order < PARTS[0][0]:
        raise ValueError(f"order = {order}: lesson numbers start at {PARTS[0][0]}")
    return [p for p in PARTS if p[0] <= order][-1]


@dataclass(frozen=True)
class Lesson:
    order: int
    title: str
    summary: str
    path: Path

    @property
    def filename(self) -> str:
        return self.path.name


def lessons(directory: Path | str | None = None) -> list[Lesson]:
    """All lesson notebooks in ``directory`` (default: :data:`NOTEBOOK_DIR`), sorted by order.

    A notebook without ``metadata.dpviz`` (such as the landing page itself) is not a lesson.
    """
    root = Path(directory) if directory is not None else NOTEBOOK_DIR
    found = []
    for path in sorted(root.glob("*.ipynb")):
        meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get("dpviz")
        if not meta:
            continue
        try:
            found.append(Lesson(int(meta["order"]), str(meta["title"]), str(meta["summary"]), path))
        except (KeyError, TypeError, ValueError):
            raise ValueError(
                f"{path.name} has metadata.dpviz = {meta!r}: must hold 'order' (int), 'title' and 'summary'."
            ) from None
    return sorted(found, key=lambda lesson: (lesson.order, lesson.filename))


def strip_outputs(path: Path | str) -> bool:
    """Remove outputs and execution counts from a notebook in place; return True if it changed."""
    p = Path(path)
    nb = json.loads(p.read_text(encoding="utf-8"))
    changed = False
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            if cell.get("outputs") or cell.get("execution_count") is not None:
                changed = True
            cell["outputs"] = []
            cell["execution_count"] = None
    if changed:
        p.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return changed


#: Tag of the navigation cells (first and last cell of every lesson), written by :func:`update_navigation`.
NAV_TAG = "dpviz-nav"


def page_title(lesson: Lesson) -> str:
    """The browser tab's title of a lesson: ``"dpviz · 03 Privacy loss"``."""
    return f"dpviz · {lesson.order:02d} {lesson.title}"


def navigation_markdown(lesson: Lesson, catalogue: list[Lesson] | None = None) -> str:
    """Previous / Index / Next links of ``lesson``, as one line of Markdown (relative links: Voila and JupyterLab)."""
    found = catalogue if catalogue is not None else lessons(lesson.path.parent)
    names = [x.filename for x in found]
    i = names.index(lesson.filename)
    parts = []
    if i > 0:
        prev = found[i - 1]
        parts.append(f"[← {prev.order:02d} · {prev.title}]({prev.filename})")
    parts.append("[Course index](index.ipynb)")
    parts.append(f"[Notation]({NOTATION})")
    if i + 1 < len(found):
        nxt = found[i + 1]
        parts.append(f"[{nxt.order:02d} · {nxt.title} →]({nxt.filename})")
    return " · ".join(parts)


def update_navigation(directory: Path | str | None = None) -> list[str]:
    """Write the navigation cells (first and last cell, tagged ``dpviz-nav``) and the page title of every lesson.

    Returns the names of the notebooks that changed. Run it (``python -m dpviz.lessons --nav``) after adding or
    renaming a lesson; ``tests/lessons/test_lessons.py`` fails while any lesson's navigation is out of date.
    """
    found = lessons(directory)
    changed = []
    for lesson in found:
        nb = json.loads(lesson.path.read_text(encoding="utf-8"))
        cells = [c for c in nb["cells"] if NAV_TAG not in c.get("metadata", {}).get("tags", [])]
        text = navigation_markdown(lesson, found)
        nav = [{"cell_type": "markdown", "id": f"{NAV_TAG}-{where}", "metadata": {"tags": [NAV_TAG]},
                "source": [text]} for where in ("top", "bottom")]
        new = {**nb, "cells": [nav[0], *cells, nav[1]]}
        new["metadata"] = {**nb.get("metadata", {}), "title": page_title(lesson)}
        if new != nb:
            lesson.path.write_text(json.dumps(new, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            changed.append(lesson.filename)
    return changed


if __name__ == "__main__":  # pragma: no cover - command-line helper
    args = sys.argv[1:]
    if args[:1] == ["--nav"]:
        for name in update_navigation():
            print(f"navigation written: {name}")
    elif args[:1] == ["--strip"]:
        for f in args[1:]:
            if strip_outputs(f):
                print(f"stripped {f}")
    else:
        for lesson in lessons():
            print(f"{lesson.order:02d}  {lesson.title:32s} {lesson.summary}")


_INDEX_CSS = (
    "<style>"
    ".dpviz-cards{list-style:none;padding-left:0;margin:0.4em 0 1.4em}"
    ".dpviz-card{margin:0.55em 0}"
    ".dpviz-card a{display:block;border:1px solid #c9d6e3;border-radius:8px;padding:0.6em 0.9em;"
    "text-decoration:none;color:#222;background:#fbfdff}"
    ".dpviz-card a:hover,.dpviz-card a:focus{border-color:#0b5cad;background:#eef5fc}"
    ".dpviz-card .t{font-size:1.12em;font-weight:600;color:#0b5cad}"
    ".dpviz-card .s{display:block;color:#444;margin-top:0.15em}"
    ".dpviz-map{margin:0.3em 0 1em;padding-left:1.2em}"
    ".dpviz-map li{margin:0.25em 0}"
    "</style>"
)


def lesson_index_html(directory=None) -> str:
    """The course map and the lessons as cards with relative links, grouped in the course's parts.

    Relative links open the lesson in Voilà (``/voila/render/…``) and in JupyterLab alike, because both resolve a
    relative link next to the landing page.
    """
    found = lessons(directory)
    if not found:
        return "<p>No lessons found.</p>"
    by_number = {lesson.order: lesson for lesson in found}
    routes = []
    for who, numbers in COURSE_PATHS:
        steps = [f"<a href='{html.escape(by_number[n].filename)}'>{n:02d}</a>" for n in numbers if n in by_number]
        if steps:
            routes.append(f"<li><b>{html.escape(who)}:</b> " + " → ".join(steps) + "</li>")
    parts = [_INDEX_CSS, "<p><b>Course map.</b> Recommended routes through the lessons (the symbols and terms every "
             f"lesson uses are on the <a href='{NOTATION}'>notation and glossary page</a>):</p>",
             "<ul class='dpviz-map'>" + "".join(routes) + "</ul>"]
    for first, title, description in PARTS:
        members = [lesson for lesson in found if part_of(lesson.order)[0] == first]
        if not members:
            continue
        cards = "".join(
            "<li class='dpviz-card'>"
            f"<a href='{html.escape(lesson.filename)}'><span class='t'>{lesson.order:02d} · "
            f"{html.escape(lesson.title)} →</span><span class='s'>{html.escape(lesson.summary)}</span></a></li>"
            for lesson in members
        )
        parts.append(f"<h3>{html.escape(title)}</h3><p style='color:#444'>{html.escape(description)}</p>"
                     f"<ul class='dpviz-cards'>{cards}</ul>")
    return "".join(parts)
