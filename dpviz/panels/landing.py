"""The landing page: a card per lesson, in order, read from the lesson catalogue (:mod:`dpviz.lessons`)."""

from __future__ import annotations

import html

import ipywidgets as W

from dpviz.lessons import lessons

__all__ = ["LessonIndex", "lesson_index_html"]


def lesson_index_html(directory=None) -> str:
    """HTML list of lessons with relative links: they open the lesson in Voila (``/voila/render/…``) and in
    JupyterLab alike, because both resolve a relative link next to the landing page."""
    items = []
    for lesson in lessons(directory):
        items.append(
            "<li style='margin:0.6em 0'>"
            f"<a href='{html.escape(lesson.filename)}' style='font-size:1.15em;font-weight:600'>"
            f"{lesson.order:02d} · {html.escape(lesson.title)}</a><br>"
            f"<span style='color:#444'>{html.escape(lesson.summary)}</span></li>"
        )
    if not items:
        return "<p>No lessons found.</p>"
    return "<ol style='list-style:none;padding-left:0'>" + "".join(items) + "</ol>"


class LessonIndex:
    """Widget showing the lesson list (kept as a widget so Voila renders it like every other panel)."""

    def __init__(self, directory=None):
        self.widget = W.HTML(lesson_index_html(directory))
        self.widget.add_class("dpviz-lesson-index")

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
