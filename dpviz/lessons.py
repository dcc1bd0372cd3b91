"""The lesson catalogue: which notebooks exist, in what order, with what one-line summary.

Each lesson notebook carries ``metadata.dpviz = {"order": N, "title": ..., "summary": ...}``; the landing page,
the README check and the tests all read the catalogue from there, so a new lesson adds itself by existing.

``python -m dpviz.lessons --strip FILES`` removes outputs and execution counts (notebooks are stored without them).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["COURSE_PATHS", "Lesson", "NOTATION", "NOTEBOOK_DIR", "PARTS", "lessons", "part_of", "strip_outputs"]

#: The lessons' folder: the package ``dpviz.lesson_notebooks`` (``notebooks/`` in a checkout, mapped by setup.py;
#: inside the installed package otherwise), so that an installed dpviz serves its lessons from any directory.
NOTEBOOK_DIR = Path(importlib.util.find_spec("dpviz.lesson_notebooks").submodule_search_locations[0]).resolve()


#: The course's parts: (first lesson number, title, one-line description). A lesson belongs to the last part whose
#: first number is at most its own.
PARTS: tuple[tuple[int, str, str], ...] = (
    (1, "Part I — Foundations",
     "Why anonymisation fails, counting with noise, privacy loss, selection, composition, choosing ε, DP-SGD and "
     "auditing: a first course in differential privacy."),
    (8, "Part II — Users and attributes",
     "When one person contributes many records, or only some attributes are sensitive: the research the course "
     "builds up to."),
)

#: Recommended routes through the course: (who it is for, lesson numbers in order). Numbers of lessons that do not
#: exist (yet) are skipped when shown.
COURSE_PATHS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("A first course", (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)),
    ("If you already know DP", (3, 5, 7, 8, 9, 10, 11, 12)),
)

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


if __name__ == "__main__":  # pragma: no cover - command-line helper
    args = sys.argv[1:]
    if args[:1] == ["--strip"]:
        for f in args[1:]:
            if strip_outputs(f):
                print(f"stripped {f}")
    else:
        for lesson in lessons():
            print(f"{lesson.order:02d}  {lesson.title:32s} {lesson.summary}")
