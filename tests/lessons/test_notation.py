"""The notation page is true for every lesson: one symbol per concept across Part I.

The page (notebooks/notation.ipynb) has two tables: symbols with one meaning wherever they are used, each with the
lessons that use it, and lesson-local symbols (a letter one lesson uses with a meaning of its own). The test reads
both tables and every Part I lesson's text, its prose and what its panels show (tests/_notation.py), and checks:

* every symbol a Part I lesson uses is on the page, for that lesson: as a lesson-local symbol of that lesson, or as
  a global symbol whose Lessons column names the lesson;
* the Lessons column of every global symbol is exactly the set of Part I lessons that use it ("all" excepted), and
  each Part II lesson it names uses it in its prose;
* every lesson-local entry is used by its lesson, and no symbol is both global and local for one lesson.
"""

from __future__ import annotations

import re
import warnings

import pytest
from _notation import candidates, lesson_text, page_symbols, prose, symbols

PART_ONE = ["01_why_privacy", "02_counting_with_noise", "03_privacy_loss", "04_selection",
            "05_beyond_global_sensitivity", "06_composition_theorems", "07_accounting_in_practice",
            "08_releasing_many_answers",
            "09_choosing_epsilon", "10_dp_sgd_and_auditing"]
PART_TWO = ["11_items_to_users", "12_user_level_means", "13_user_level_learning", "14_few_examples",
            "15_per_attribute"]
NUMBER = {stem[:2]: stem for stem in PART_ONE + PART_TWO}


def _rows(table: str) -> list[list[str]]:
    rows = []
    for line in table.strip().splitlines()[2:]:  # after the header and the |---| line
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        rows.append(cells)
    return rows


def _lessons(cell: str) -> set[str] | None:
    """"01, 03, 05–07, 09–11" → the lesson numbers; "all" → None."""
    if cell == "all":
        return None
    out = set()
    for part in cell.split(", "):
        lo, _, hi = part.partition("–")
        out.update(f"{n:02d}" for n in range(int(lo), int(hi or lo) + 1))
    return out


def page_tables(text: str | None = None):
    """(global, local): {symbol: lessons or None} and {(symbol, lesson): meaning}, read from the page's tables."""
    if text is None:
        text = prose("notation")
    section = text.split("## Symbols", 1)[1].split("\n## ", 1)[0]
    tables = re.findall(r"(?m)^\|.*\|\n\|[-|]+\|\n(?:^\|.*\|\n?)+", section)
    assert len(tables) == 2, "the Symbols section has a global table and a lesson-local table"
    glob, local = {}, {}
    for symbol_cell, _meaning, lessons in _rows(tables[0]):
        for s in page_symbols(symbol_cell):
            assert s not in glob, f"{s} has two rows in the global table"
            glob[s] = _lessons(lessons)
    for symbol_cell, lesson, meaning in _rows(tables[1]):
        for s in page_symbols(symbol_cell):
            local[(s, lesson)] = meaning
    return glob, local


@pytest.fixture(scope="module")
def used() -> dict[str, dict[str, str]]:
    """For each Part I lesson number: {token as written: the page symbol it resolves to (or "" if none)}."""
    glob, local = page_tables()
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # panels' own warnings are other tests' business
        for stem in PART_ONE:
            number = stem[:2]
            out[number] = {tok: _resolve(tok, number, glob, local) for tok in symbols(lesson_text(stem))}
    return out


def _resolve(token: str, lesson: str, glob, local) -> str:
    for c in candidates(token):
        if (c, lesson) in local:
            return c
        if c in glob:
            return c
    return ""


def test_every_symbol_of_part_one_is_on_the_page(used):
    missing = {lesson: sorted(t for t, s in toks.items() if not s) for lesson, toks in used.items()}
    assert {k: v for k, v in missing.items() if v} == {}


def test_global_symbols_name_exactly_the_part_one_lessons_that_use_them(used):
    glob, local = page_tables()
    wrong = {}
    for symbol, lessons in glob.items():
        if lessons is None:
            continue
        users = {n for n, toks in used.items() if symbol in toks.values() and (symbol, n) not in local}
        listed = {n for n in lessons if n in NUMBER and NUMBER[n] in PART_ONE}
        if users != listed:
            wrong[symbol] = f"used in {sorted(users)}, page says {sorted(listed)}"
    assert wrong == {}, "\n".join(f"{k}: {v}" for k, v in wrong.items())


def test_part_two_lessons_a_global_symbol_names_use_it():
    glob, _ = page_tables()
    wrong = {}
    for symbol, lessons in glob.items():
        for n in sorted(lessons or ()):
            stem = NUMBER.get(n)
            if stem in PART_TWO and symbol not in symbols(prose(stem)):
                wrong.setdefault(symbol, []).append(n)
    assert wrong == {}


def test_lesson_local_symbols_are_used_by_their_lesson_and_are_not_also_global_there(used):
    glob, local = page_tables()
    unused = sorted(f"{s} ({n})" for (s, n) in local if s not in used.get(n, {}).values())
    both = sorted(f"{s} ({n})" for (s, n) in local if glob.get(s, ()) is None or n in (glob.get(s) or ()))
    assert (unused, both) == ([], [])


def test_the_page_promises_one_symbol_per_concept_and_says_what_lesson_local_means():
    text = prose("notation")
    assert "One symbol per concept across Part I" in text and "lesson-local" in text


# ------------------------------------------------------------------------------------- the checks can fail

def test_the_symbol_finder_reads_subscripts_operators_and_skips_words():
    found = symbols("Let x′ be x plus one record; ε<sub>step</sub> per step, θ₁ after one, E[gap] and P[o | x], "
                    "a test at level α, e.g. with k-RR, in Part I (IEEE S&P), ε′ after sampling.")
    assert {"x", "ε_step", "θ_1", "E[", "P[", "o", "α", "ε′"} <= set(found)
    assert not {"a", "I", "e", "g", "S", "P", "k"} & set(found)
    assert candidates("q_1") == ["q_1", "q_i", "q"] and candidates("ε_step") == ["ε_step", "ε"]


def test_a_symbol_missing_from_the_page_or_listed_for_the_wrong_lesson_is_caught():
    page = prose("notation")
    glob, local = page_tables(page)
    assert glob["z"] == {"10"} and ("Z_T", "04") in local
    # drop z's row: lesson 10's z then resolves to nothing
    without_z = re.sub(r"(?m)^\| z \|.*\n", "", page)
    g2, l2 = page_tables(without_z)
    assert _resolve("z", "10", g2, l2) == ""
    # a global symbol that lesson 04 uses with another meaning resolves there only through its local row
    assert _resolve("k", "04", glob, local) == "k" and ("k", "04") in local
    assert _resolve("T", "10", glob, {}) == "T" and _resolve("T", "04", glob, local) == "T"
