"""The lesson catalogue and landing page list every lesson notebook, in order, with working links."""

import json

import pytest
from _lesson_text import _raw_tex

from dpviz.lessons import NOTEBOOK_DIR, lessons, strip_outputs
from dpviz.panels.landing import LessonIndex, lesson_index_html


def _write(path, meta, outputs=()):
    nb = {"cells": [{"cell_type": "code", "source": "1", "metadata": {}, "outputs": list(outputs),
                     "execution_count": 3 if outputs else None}],
          "metadata": {"dpviz": meta} if meta else {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))


def test_lessons_sorted_by_order_and_index_excluded(tmp_path):
    _write(tmp_path / "b.ipynb", {"order": 2, "title": "Two", "summary": "second"})
    _write(tmp_path / "a.ipynb", {"order": 10, "title": "Ten", "summary": "tenth"})
    _write(tmp_path / "index.ipynb", None)
    found = lessons(tmp_path)
    assert [lesson.title for lesson in found] == ["Two", "Ten"]
    html = lesson_index_html(tmp_path)
    assert html.index("b.ipynb") < html.index("a.ipynb") and "index.ipynb" not in html


def test_bad_metadata_is_reported(tmp_path):
    _write(tmp_path / "x.ipynb", {"title": "no order"})
    with pytest.raises(ValueError, match=r"x.ipynb has metadata.dpviz .* must hold 'order'"):
        lessons(tmp_path)


def test_strip_outputs(tmp_path):
    p = tmp_path / "n.ipynb"
    _write(p, None, outputs=[{"output_type": "stream", "name": "stdout", "text": "hi"}])
    assert strip_outputs(p) is True
    cell = json.loads(p.read_text())["cells"][0]
    assert cell["outputs"] == [] and cell["execution_count"] is None
    assert strip_outputs(p) is False


def test_navigation_links_neighbours_index_and_notation_and_is_idempotent(tmp_path):
    from dpviz.lessons import NAV_TAG, update_navigation

    _write(tmp_path / "01_a.ipynb", {"order": 1, "title": "A", "summary": "a"})
    _write(tmp_path / "02_b.ipynb", {"order": 2, "title": "B", "summary": "b"})
    _write(tmp_path / "04_c.ipynb", {"order": 4, "title": "C", "summary": "c"})
    assert update_navigation(tmp_path) == ["01_a.ipynb", "02_b.ipynb", "04_c.ipynb"]
    assert update_navigation(tmp_path) == []  # a second run changes nothing
    nb = json.loads((tmp_path / "02_b.ipynb").read_text())
    first, body, last = nb["cells"][0], nb["cells"][1], nb["cells"][-1]
    assert first["metadata"]["tags"] == [NAV_TAG] and last["metadata"]["tags"] == [NAV_TAG]
    assert body["source"] == "1" and len(nb["cells"]) == 3, "the lesson's own cells are kept, once"
    text = "".join(first["source"])
    assert text.startswith("[← 01 · A](01_a.ipynb)") and text.endswith("[04 · C →](04_c.ipynb)")
    assert "[Course index](index.ipynb)" in text and "(notation.ipynb)" in text
    assert nb["metadata"]["title"] == "dpviz · 02 B" and nb["metadata"]["dpviz"]["order"] == 2
    edge = "".join(json.loads((tmp_path / "01_a.ipynb").read_text())["cells"][0]["source"])
    assert "←" not in edge and "[02 · B →](02_b.ipynb)" in edge


def test_repository_landing_page_links_every_lesson():
    widget = LessonIndex().widget
    for lesson in lessons():
        assert f"href='{lesson.filename}'" in widget.value
    names = {p.name for p in NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb")}
    assert names == {lesson.filename for lesson in lessons()}, "every NN_*.ipynb needs metadata.dpviz"


def test_every_lesson_belongs_to_a_part_and_the_routes_name_real_lesson_numbers():
    from dpviz.lessons import COURSE_PATHS, PARTS, part_of

    firsts = [first for first, _, _ in PARTS]
    assert firsts == sorted(firsts) and firsts[0] == 1
    assert part_of(1)[1].startswith("Part I ") and part_of(10)[1].startswith("Part I ")
    assert part_of(11)[1].startswith("Part II") and part_of(15)[1].startswith("Part II")
    with pytest.raises(ValueError, match="order = 0"):
        part_of(0)
    for who, numbers in COURSE_PATHS:
        assert len(set(numbers)) == len(numbers) and all(1 <= n <= 15 for n in numbers), who
    assert COURSE_PATHS[0][1] == tuple(range(1, 12)), "the first course: Part I in order, then lesson 11"
    assert COURSE_PATHS[1][1] == tuple(range(12, 16)), "lessons 12–15 are research-seminar material"


def test_landing_page_groups_lessons_in_parts_and_links_the_notation_page():
    from dpviz.lessons import PARTS, part_of

    page = LessonIndex().widget.value
    assert "href='notation.ipynb'" in page and "Course map" in page
    positions = [page.index(f"href='{lesson.filename}'><span") for lesson in lessons()]
    assert positions == sorted(positions), "cards in course order"
    for first, title, _ in PARTS:
        members = [lesson for lesson in lessons() if part_of(lesson.order)[0] == first]
        if members:  # each part's heading comes before its first card
            assert page.index(title) < page.index(f"href='{members[0].filename}'><span")


def test_notation_page_defines_every_symbol_it_promises():
    text = _learner_text_of_notebook(NOTEBOOK_DIR / "notation.ipynb")
    for needle in ("ε<sub>item</sub>", "ε<sub>attr</sub>", "ε<sub>step</sub>", "β<sub>fail</sub>", "unit of privacy",
                   "add/remove one", "replace one", "Lipschitz", "strongly convex", "Õ", "lower bound", "PAC"):
        assert needle in text, needle
    assert "](index.ipynb)" in text
    meta = json.loads((NOTEBOOK_DIR / "notation.ipynb").read_text(encoding="utf-8"))["metadata"]
    assert "dpviz" not in meta, "the notation page is not a lesson"


def test_readme_describes_every_lesson():
    readme = (NOTEBOOK_DIR.parent / "README.md").read_text(encoding="utf-8")
    for lesson in lessons():
        assert f"**{lesson.title}** (`{lesson.filename}`)" in readme, f"README does not describe {lesson.filename}"


def _learner_text_of_notebook(path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


@pytest.mark.parametrize("path", sorted(NOTEBOOK_DIR.glob("*.ipynb")), ids=lambda p: p.name)
def test_lesson_prose_cites_papers_not_our_internal_digests(path):
    """Learners have the papers, not the implementation digests in the developers' shared folder: a citation such as
    "digest of 004, pitfall P7" sends them to a document they cannot open."""
    text = _learner_text_of_notebook(path)
    assert "digest" not in text.lower(), [line for line in text.splitlines() if "digest" in line.lower()][:3]



def test_the_raw_tex_check_sees_tex():
    found = _raw_tex("δ·(e^{kε} − 1), $x^2$, \\frac{a}{b}, p_{i+1}")
    assert sorted(found) == sorted(["$x^2$", "\\frac", "^{kε}", "_{i+1}"])
    assert _raw_tex("e<sup>kε</sup> and `x_{i}` in code") == []


@pytest.mark.parametrize("lesson", lessons(), ids=lambda lesson: lesson.filename)
def test_lesson_prose_has_no_raw_tex(lesson):
    nb = json.loads(lesson.path.read_text(encoding="utf-8"))
    found = [hit for c in nb["cells"] if c["cell_type"] == "markdown" for hit in _raw_tex("".join(c["source"]))]
    assert not found, f"{lesson.filename}: raw TeX in prose {found[:5]} (use Unicode or <sup>/<sub>)"


def test_every_lessons_navigation_and_page_title_are_current(tmp_path):
    import shutil

    from dpviz.lessons import update_navigation

    for p in NOTEBOOK_DIR.glob("*.ipynb"):
        shutil.copy(p, tmp_path / p.name)
    assert update_navigation(tmp_path) == [], "run: python -m dpviz.lessons --nav"


@pytest.mark.parametrize("lesson", lessons(), ids=lambda lesson: lesson.filename)
def test_lesson_says_what_it_needs_and_what_comes_next(lesson):
    text = _learner_text_of_notebook(lesson.path)
    assert "**You need:**" in text, f"{lesson.filename}: no 'You need:' paragraph"
    assert "**Next:**" in text, f"{lesson.filename}: no 'Next:' paragraph"
    assert "](notation.ipynb" in text, f"{lesson.filename}: link the notation page"


@pytest.mark.parametrize("path", sorted(NOTEBOOK_DIR.glob("*.ipynb")), ids=lambda p: p.name)
def test_links_between_notebooks_resolve(path):
    import re

    text = _learner_text_of_notebook(path)
    targets = set(re.findall(r"\]\(([A-Za-z0-9_.-]+\.ipynb)(?:#[^)]*)?\)", text))
    targets |= set(re.findall(r"""href=["']([A-Za-z0-9_.-]+\.ipynb)""", text))
    missing = sorted(t for t in targets if not (NOTEBOOK_DIR / t).exists())
    assert not missing, f"{path.name} links to notebooks that do not exist: {missing}"
