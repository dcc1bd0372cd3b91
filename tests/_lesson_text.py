"""What a learner reads in a lesson, for tests that check a lesson's words against the code ("lesson-quote" tests).

>>> "Laplace" in prose("02_counting_with_noise")
True
"""

from __future__ import annotations

import json
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def prose(lesson: str) -> str:
    """The markdown of ``notebooks/<lesson>.ipynb`` (``lesson`` without the suffix), cells joined by blank lines."""
    cells = json.loads((NOTEBOOKS / f"{lesson}.ipynb").read_text(encoding="utf-8"))["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def flat(text: str) -> str:
    """``text`` with every run of whitespace (line breaks of the notebook source included) as one space."""
    return " ".join(text.split())


_RAW_TEX = r"\$[^$\n]+\$|\\[a-zA-Z]+\b|[\^_]\{[^}\n]*\}"


def _raw_tex(markdown: str) -> list[str]:
    """TeX a learner would read as is in Voilà (no MathJax typesetting of prose): $…$, \\commands, ^{…} and _{…},
    outside code spans."""
    import re

    return [hit for i, part in enumerate(markdown.split("`")) if i % 2 == 0 for hit in re.findall(_RAW_TEX, part)]
