"""The landing page's widget: the course map and a card per lesson (:func:`dpviz.lessons.lesson_index_html`)."""

from __future__ import annotations

import os

import ipywidgets as W

from dpviz.lessons import STATIC_EXPORT_ENV, lesson_index_html

__all__ = ["LessonIndex", "lesson_index_html"]

class LessonIndex:
    """Widget showing the lesson list (kept as a widget so Voila renders it like every other panel)."""

    def __init__(self, directory=None):
        self.widget = W.HTML(lesson_index_html(directory))
        self.widget.add_class("dpviz-lesson-index")

    def _ipython_display_(self):
        from IPython.display import HTML, display

        display(HTML(self.widget.value) if os.environ.get(STATIC_EXPORT_ENV) else self.widget)
