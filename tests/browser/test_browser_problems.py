"""A problem set in the browser, answered as a learner answers it, at desktop and phone widths (issue 41.4).

Lesson 02's problem set (``CountingProblemsPanel``): before any attempt no solution is on the page and no "Show
solution" button shows; a tempting wrong number gets its own feedback and the button appears, which opens the worked
solution; the right number is accepted; a tempting wrong choice gets the feedback of that option; a proof idea's
worked solution opens only once something is written; and nothing of the set runs past the edge of a 360 px phone.

Uses the Chromium set-up of ``tests/browser/test_browser.py`` (Debian's ``/usr/bin/chromium``, never a download).
"""

from __future__ import annotations

import os

import pytest
from _server import start_app
from test_browser import CHROMIUM, CHROMIUM_ARGS, _new_page, _unavailable_reason, _wait_for_first_figure

pytestmark = pytest.mark.browser

LESSON = "02_counting_with_noise.ipynb"
SET = ".dpviz-CountingProblemsPanel .dpviz-problem-set"


@pytest.fixture(scope="module")
def browser_available():
    reason = _unavailable_reason()
    if reason:
        if os.environ.get("DPVIZ_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests required (DPVIZ_REQUIRE_BROWSER=1) but unavailable: {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def app(browser_available, tmp_path_factory):
    a = start_app(tmp_path_factory.mktemp("problems"), "--class-size=2", "--lessons=02", wait_for="ready for",
                  timeout=240)
    try:
        yield a
    finally:
        a.stop()


@pytest.fixture(scope="module")
def browser(browser_available):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _problem(pg, question: str):
    """The problem of the set whose question holds ``question`` (its exercise box)."""
    return pg.locator(f"{SET} .dpviz-exercise", has_text=question).last


def _wait_text(pg, locator, text: str) -> None:
    pg.wait_for_function("([el, t]) => el.innerText.includes(t)", arg=[locator.element_handle(), text],
                         timeout=30_000)


@pytest.mark.parametrize("width", [1280, 360])
def test_a_learner_answers_the_problem_set(app, browser, width):
    context, pg = _new_page(browser, viewport={"width": width, "height": 900})
    pg.set_default_timeout(30_000)
    try:
        pg.goto(f"{app.url}/voila/render/{LESSON}")
        _wait_for_first_figure(pg, LESSON)
        box = pg.locator(SET)
        box.scroll_into_view_if_needed()
        box.wait_for(timeout=60_000)
        text = box.inner_text()
        # nothing of any solution before an attempt, and no way to open one
        assert "b = Δ/ε = 1/0.5 = 2" not in text and "Tempting" not in text, text
        assert pg.locator(f"{SET} button:has-text('Show solution'):visible").count() == 0

        # 1. a number: the tempting 0.5 gets its own feedback, then the worked solution opens; 2 is accepted
        first = _problem(pg, "What scale b must its noise have")
        guess = first.locator("input").first
        guess.fill("0.5")
        guess.press("Enter")
        _wait_text(pg, first, "ε looks like the amount of noise")
        show = first.get_by_role("button", name="Show solution")
        show.wait_for(state="visible", timeout=30_000)
        show.click()
        _wait_text(pg, first, "b = Δ/ε = 1/0.5 = 2")
        guess.fill("2")
        guess.press("Enter")
        _wait_text(pg, first, "Right")

        # 3. a choice: the tempting "each release is 0.5-DP" gets the feedback of that option
        third = _problem(pg, "What does the pair guarantee")
        third.locator("label:has-text('each release is 0.5-DP')").click()
        third.get_by_role("button", name="Check").click()
        _wait_text(pg, third, "the losses add")

        # 6. a proof idea: Check with nothing written opens nothing; a written idea opens the worked solution
        proof = _problem(pg, "Why is the Laplace mechanism with scale")
        proof.get_by_role("button", name="Submit my idea").click()
        assert "by the triangle inequality, and" not in proof.inner_text()
        proof.locator("textarea").fill("the ratio of the two Laplace densities is bounded at every output")
        proof.get_by_role("button", name="Submit my idea").click()
        _wait_text(pg, proof, "by the triangle inequality")

        # the set fits the screen: nothing of it runs past the page's right edge
        over = pg.evaluate(
            """(sel) => [...document.querySelectorAll(sel + ' *')]
                   .filter(e => e.getClientRects().length && e.getBoundingClientRect().right > window.innerWidth + 1)
                   .map(e => e.tagName + '.' + e.className).slice(0, 5)""", SET)
        assert over == [], over
        assert not pg.page_errors, pg.page_errors
    finally:
        context.close()
