"""The class view in the browser: a teacher and three students on lesson 01, in both protections.

Three students (each a browser context of its own: its own cookie, its own kernel) open lesson 01, pick an answer to
the reconstruction exercise and press Reveal; each reads the notice of what is shared first, and sees "your class
so far" after revealing (never before). The teacher's page, opened with the address the server printed, shows the
exercise live (without reloading): in local privacy the debiased histogram with its ε, in central privacy the
number of answers and, after the teacher presses Release, the noisy histogram with its ε and the budget spent. The
server is restarted in the middle of the class (two answers in, one to come): nothing is lost, the teacher's
address still works, and the third student's answer (from a reloaded page) joins the first two.

Uses the Chromium set-up of ``tests/browser/test_browser.py`` (Debian's ``/usr/bin/chromium``, never a download).
"""

from __future__ import annotations

import os
import re

import pytest
from _server import start_app
from test_browser import CHROMIUM, CHROMIUM_ARGS, _new_page, _unavailable_reason, _wait_for_first_figure

pytestmark = pytest.mark.browser

LESSON = "01_why_privacy.ipynb"
PANEL = ".dpviz-ReconstructionPanel"
EXERCISE = "ReconstructionPanel.exercise"


@pytest.fixture(scope="module")
def browser_available():
    reason = _unavailable_reason()
    if reason:
        if os.environ.get("DPVIZ_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests required (DPVIZ_REQUIRE_BROWSER=1) but unavailable: {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def browser(browser_available):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _teacher_url(app) -> str:
    token = re.search(r"/dpviz/class\?token=([A-Za-z0-9_\-]+)", app.log())[1]
    return f"{app.url}/dpviz/class?token={token}"


def _answer(browser, app, option: int):
    """A student opens the lesson, answers the reconstruction exercise with ``option`` and reveals; returns the
    page (its context stays open: the student's kernel lives while the page does)."""
    context, pg = _new_page(browser, viewport={"width": 1000, "height": 900})
    pg.goto(f"{app.url}/voila/render/{LESSON}")
    _wait_for_first_figure(pg, LESSON)
    box = pg.locator(f"{PANEL} .dpviz-exercise").first
    box.scroll_into_view_if_needed()
    notice = box.locator(".dpviz-class-notice")
    notice.wait_for()
    assert "shared with the class" in notice.inner_text() or "sent to the class server" in notice.inner_text()
    view = box.locator(".dpviz-class-view")
    assert view.inner_text().strip() == ""  # nothing of the class before the student has committed
    box.locator("input[type=radio]").nth(option).check()
    box.get_by_role("button", name="Reveal").click()
    pg.wait_for_function("(el) => el.innerText.includes('class so far')", arg=view.element_handle(), timeout=60_000)
    assert "not reachable" not in view.inner_text() and "refused" not in view.inner_text()
    return context, pg


def _wait_for_answers(teacher, n: int) -> str:
    section = teacher.locator(f"section[data-exercise='{EXERCISE}']")
    section.wait_for(timeout=60_000)
    teacher.wait_for_function(
        "([sel, n]) => { const s = document.querySelector(sel); return s && s.innerText.includes(n + ' answer(s)'); }",
        arg=[f"section[data-exercise='{EXERCISE}']", n], timeout=60_000)
    return section.inner_text()


@pytest.mark.parametrize("privacy", ["local", "central"])
def test_a_teacher_and_three_students_and_a_restart(browser, tmp_path, privacy):
    args = ("--class-size=2", "--lessons=01", f"--class-dir={tmp_path / 'class'}", f"--class-privacy={privacy}")
    app = start_app(tmp_path, *args, wait_for="Teacher's view", timeout=240)
    students, teacher_ctx = [], None
    try:
        teacher_ctx, teacher = _new_page(browser, viewport={"width": 1280, "height": 1000})
        teacher.goto(_teacher_url(app))
        budget = teacher.locator("#dpviz-budget")
        teacher.wait_for_function("() => !document.getElementById('dpviz-budget').innerText.includes('Loading')")
        assert ("Local privacy" if privacy == "local" else "Central privacy") in budget.inner_text()
        for option in (0, 1):
            students.append(_answer(browser, app, option))
        text = _wait_for_answers(teacher, 2)  # live: the page was never reloaded
        if privacy == "local":
            assert "estimated from 2 randomized answers (ε = 2 each)" in text
        else:
            assert "not released yet" in text
        released_before = teacher.locator(f"section[data-exercise='{EXERCISE}'] .dpviz-bars").count()
        assert released_before == (1 if privacy == "local" else 0)

        # The server restarts in the middle of the class: every answer and release is kept.
        for context, _pg in students:
            context.close()
        students.clear()
        app.stop()
        app = start_app(tmp_path, *args, wait_for="Teacher's view", timeout=240)
        # While the server was down the page kept polling (and said so): those refused requests are the point, so
        # that page (and its console's errors about them) is closed, and the teacher opens the new address.
        assert "Not reachable right now" in teacher.locator("#dpviz-status").inner_text()
        teacher_ctx.close()
        teacher_ctx, teacher = _new_page(browser, viewport={"width": 1280, "height": 1000})
        teacher.goto(_teacher_url(app))  # the same token (it is kept in the class's store); a new port here
        _wait_for_answers(teacher, 2)
        students.append(_answer(browser, app, 2))
        text = _wait_for_answers(teacher, 3)
        if privacy == "central":
            teacher.locator(f"section[data-exercise='{EXERCISE}'] button.dpviz-release").click()
            teacher.wait_for_function(
                "(sel) => document.querySelector(sel).innerText.includes('released at')",
                arg=f"section[data-exercise='{EXERCISE}']", timeout=30_000)
            text = teacher.locator(f"section[data-exercise='{EXERCISE}']").inner_text()
            assert "with ε = 1 from 3 answers" in text
            teacher.wait_for_function("() => document.getElementById('dpviz-budget').innerText.includes('spent 1')")
        else:
            assert "estimated from 3 randomized answers" in text
        assert teacher.locator(f"section[data-exercise='{EXERCISE}'] .dpviz-bars .dpviz-track").count() >= 2
        # The student who answered last sees the class's released histogram, the same the teacher sees.
        _ctx, pg = students[-1]
        pg.locator(f"{PANEL} .dpviz-exercise").first.get_by_role("button", name="update").click()
        if privacy == "central":
            pg.wait_for_function("(sel) => document.querySelector(sel).innerText.includes('ε = 1')",
                                 arg=f"{PANEL} .dpviz-class-view", timeout=30_000)
        for page in [teacher] + [p for _c, p in students]:
            assert not page.page_errors, page.page_errors
    finally:
        for context, _pg in students:
            context.close()
        if teacher_ctx is not None:
            teacher_ctx.close()
        app.stop()
