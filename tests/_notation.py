"""The symbols a learner reads, for the notation page's test (tests/lessons/test_notation.py).

A lesson's text is its prose plus what its panels show: titles, intros, control labels and options, exercise
texts, readouts and hints, and the figures' titles, axis titles, annotations and legend names, as each panel draws
them at its defaults. :func:`symbols` finds the mathematical symbols in a text: Greek letters, single Latin letters
standing alone, each with its subscript ("ε<sub>step</sub>" → "ε_step", "θ₁" → "θ_1"), and the operators written
"E[", "P[", "N(", "O(".
"""

from __future__ import annotations

import functools
import html
import importlib
import json
import re
from collections import Counter
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

#: Single letters that are English words, not symbols: the article, the pronoun and "Part I".
ENGLISH = frozenset({"a", "A", "I"})

_SUBSCRIPT_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_GREEK = "α-ωΑ-Ωϑϕϵ"
_TOKEN = re.compile(
    rf"(?<![\w'’\-\\/.])(?P<base>[A-Za-z{_GREEK}])(?P<sub>(?:_[\w{_GREEK}]+)*)"
    rf"(?P<prime>(?<=[{_GREEK}])′)?(?:(?P<tail>[\[(])|(?![\w'’]|-[A-Za-z]))")


def _cells(stem: str) -> list[dict]:
    return json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]


def prose(stem: str) -> str:
    return "\n".join("".join(c["source"]) for c in _cells(stem) if c["cell_type"] == "markdown")


def panel_classes(stem: str) -> list[type]:
    """The panel classes a lesson's code cells import from dpviz.panels."""
    found = []
    for cell in _cells(stem):
        if cell["cell_type"] != "code":
            continue
        # one line, or a parenthesised list over several lines
        pattern = r"from (dpviz\.panels\.\w+) import (?:\(([\w,\s]+)\)|([\w, ]+))"
        for module, wrapped, plain in re.findall(pattern, "".join(cell["source"])):
            mod = importlib.import_module(module)
            found += [getattr(mod, name.strip()) for name in (wrapped or plain).split(",") if name.strip()]
    return found


def panel_text(panel) -> str:
    """What a learner reads on one panel at its defaults (before any exercise is answered)."""
    import ipywidgets as W

    from dpviz.panels.guard import descendants as _descendants

    out = [panel.title, panel.intro]
    for w in _descendants(panel.widget):
        if isinstance(w, (W.HTML, W.HTMLMath, W.Label)):
            out.append(w.value)
        if isinstance(getattr(w, "description", None), str):
            out.append(w.description)
        if isinstance(w, (W.Dropdown, W.ToggleButtons, W.RadioButtons, W.Select)):
            out += [str(label) for label in w._options_labels]
    for fig in panel.figures:
        layout = fig.layout
        out += [layout[k].title.text or "" for k in layout if k.startswith(("xaxis", "yaxis"))]
        out += [layout.title.text or ""] + [a.text or "" for a in layout.annotations or ()]
        out += [t.name for t in fig.data if getattr(t, "name", None)]
    return "\n".join(s for s in out if s)


@functools.lru_cache(maxsize=None)
def lesson_text(stem: str, *, with_panels: bool = True) -> str:
    text = prose(stem)
    if with_panels:
        text += "\n" + "\n".join(panel_text(cls().refresh()) for cls in panel_classes(stem))
    return text


def normalise(text: str) -> str:
    """Plain text: sub- and superscripts written as _x and ^x, tags, link targets, code spans and "e.g."/"i.e."
    removed, entities decoded."""
    t = re.sub(r"`[^`]*`", " ", text)
    t = re.sub(r"\]\([^)]*\)", "] ", t)
    t = re.sub(r"<sub>(.*?)</sub>", lambda m: "_" + re.sub(r"<[^>]+>|\s", "", m.group(1)) + " ", t, flags=re.S)
    t = re.sub(r"<sup>(.*?)</sup>", lambda m: "^" + re.sub(r"<[^>]+>", "", m.group(1)), t, flags=re.S)
    t = re.sub(r"</?[A-Za-z][^>]*>", " ", t)  # tags only: a "<" of "kρ < 4 ln(1/δ)" starts none
    t = html.unescape(t).translate(_SUBSCRIPT_DIGITS)
    t = re.sub(r"(?<=[A-Za-z" + _GREEK + r"])([0-9]+)(?![\w])", r"_\1", t)  # θ1 after the digits' translation
    t = re.sub(r"\bS&P\b|\bJ\. Comput\b|\b[xy][ -]ax[ie]s\b", " ", t)  # venues; "the y axis"
    return re.sub(r"\b(e\.g|i\.e|w\.p|cf|vs|et al)\.", " ", t)


def symbols(text: str) -> Counter:
    """Every symbol in ``text`` with its count: "ε", "ε_step", "θ_1", "E[", "P[", "N(", "O(" …"""
    found = Counter()
    for m in _TOKEN.finditer(normalise(text)):
        base, sub, tail = m.group("base"), m.group("sub"), m.group("tail") or ""
        if base in ENGLISH and not sub:
            continue
        if tail and base in "EPNO" and not sub:
            found[base + tail] += 1
            continue
        found[base + re.sub(r"[²³¹⁰-⁹]", "", sub) + (m.group("prime") or "")] += 1
    return found


def candidates(token: str) -> list[str]:
    """What a token may stand for on the notation page, most specific first: itself, then with an index subscript
    (digits, i, j, t) read as "_i", then its bare letter."""
    out = [token]
    if "_" in token:
        base, sub = token.split("_", 1)
        if re.fullmatch(r"[0-9]+|[ijt]", sub):
            out.append(base + "_i")
        out.append(base)
    return out


def page_symbols(cell: str) -> list[str]:
    """The symbols a table cell of the notation page lists, in the form :func:`symbols` gives them."""
    out = []
    for part in re.split(r", |\s+and\s+", normalise(cell)):
        part = re.sub(r"(?<=[A-Za-z])′", "", part.strip())  # x′ is x; ε′ stays ε′
        if part in ("E[·]", "P[·]", "N(·)", "O(·)"):
            part = part[:2]
        part = re.sub(r"[²³¹⁰-⁹]", "", part)
        if part and part not in out:
            out.append(part)
    return out
