"""The teacher's edition (issue 41, item 4): ``make export`` writes, besides the students' pages, one page per
lesson with every exercise and problem set, their answers, worked solutions, the feedback of every option and the
teaching notes, and one PDF of them all; the students' pages hold none of it."""

from __future__ import annotations

import json
import shutil

import pytest

from dpviz.export import export_lessons, export_teacher_edition, lesson_panels
from dpviz.lessons import lessons
from dpviz.panels import counting as C
from dpviz.panels.exercises import ProblemSet, teacher_entries

LESSON = "02_counting_with_noise.ipynb"


def _lesson():
    (lesson,) = [lesson for lesson in lessons() if lesson.filename == LESSON]
    return lesson


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    written = export_lessons(out, [LESSON], pdf=False)
    return out, written


def _secrets() -> list[str]:
    """Every solution, option feedback and teaching note of the lesson's problem set (long enough to be telling)."""
    p = C.CountingProblemsPanel()
    (ps,) = [ex for ex in p.exercise_list if isinstance(ex, ProblemSet)]
    out = []
    for prob in ps.problems.values():
        out.append(prob.solution_html())
        out += [fb for _, _, fb in prob.options()]
        out += [fb for _, fb in getattr(prob, "traps", ())]
        n = prob.notes
        out += [n.ask, *n.wrong]
    return [s for s in out if len(s) >= 20]


def test_the_lesson_shows_its_panels_in_order():
    assert lesson_panels(_lesson().path) == [C.SensitivityPanel, C.PostProcessingPanel, C.CompositionPanel,
                                             C.LocalCentralPanel, C.CountingProblemsPanel]


def test_the_teacher_page_holds_every_solution_and_note(exported):
    out, _ = exported
    page = (out / "teacher" / "02_counting_with_noise.html").read_text(encoding="utf-8")
    entries = teacher_entries(lesson_panels(_lesson().path))
    assert len(entries) == 4 + 6  # the lesson's four reveals and its six problems
    for e in entries:
        assert e.question in page and e.answer in page and (not e.solution or e.solution in page)
        for _label, _ok, feedback in e.options:
            assert feedback in page
        if e.notes is not None:
            assert e.notes.timing in page and e.notes.ask in page and all(w in page for w in e.notes.wrong)
    for secret in _secrets():
        assert secret in page
    assert "Teacher's edition — Counting with noise" in page and "<script" not in page
    combined = (out / "teacher" / "teachers-edition.html").read_text(encoding="utf-8")
    assert all(secret in combined for secret in _secrets())


def test_the_students_page_holds_the_questions_and_no_solution(exported):
    out, _ = exported
    page = (out / "02_counting_with_noise.html").read_text(encoding="utf-8")
    p = C.CountingProblemsPanel()
    for prob in p.problems.problems.values():
        assert prob._question_text() in page
    leaked = [s[:80] for s in _secrets() if s in page]
    assert not leaked, leaked
    assert "Teaching notes" not in page and "Show solution" not in page


def test_the_students_outputs_are_unchanged(exported):
    out, written = exported
    assert [p.name for p in written] == ["02_counting_with_noise.html"]
    assert json.loads((out / "lessons.json").read_text()) == ["02_counting_with_noise.html"]
    assert sorted(p.name for p in (out / "teacher").iterdir()) == ["02_counting_with_noise.html",
                                                                    "teachers-edition.html"]


def test_no_teacher_edition_without_a_lesson(tmp_path):
    export_lessons(tmp_path, ["index.ipynb"], pdf=False)
    assert not (tmp_path / "teacher").exists() or not any((tmp_path / "teacher").iterdir())


def test_the_teacher_edition_prints_to_one_pdf(tmp_path):
    assert shutil.which("chromium"), "Debian's chromium is a test prerequisite (.ci/run installs it)"
    written = export_teacher_edition(tmp_path, [_lesson()], pdf=True)
    pdf = tmp_path / "teacher" / "teachers-edition.pdf"
    assert pdf in written and pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 10_000
