"""The landing page: the course map and a card per lesson, grouped in parts, read from :mod:`dpviz.lessons`."""

from __future__ import annotations

import html
import os

import ipywidgets as W

from dpviz.lessons import COURSE_PATHS, NOTATION, PARTS, STATIC_EXPORT_ENV, lessons, part_of

__all__ = ["LessonIndex", "lesson_index_html"]

_CSS = (
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
    parts = [_CSS, "<p><b>Course map.</b> Recommended routes through the lessons (the symbols and terms every "
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


class LessonIndex:
    """Widget showing the lesson list (kept as a widget so Voila renders it like every other panel)."""

    def __init__(self, directory=None):
        self.widget = W.HTML(lesson_index_html(directory))
        self.widget.add_class("dpviz-lesson-index")

    def _ipython_display_(self):
        from IPython.display import HTML, display

        display(HTML(self.widget.value) if os.environ.get(STATIC_EXPORT_ENV) else self.widget)
