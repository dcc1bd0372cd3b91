"""Lesson-quote tests of lesson 01 "Why privacy is hard": every number the lesson's prose states in the parts written
or changed for the linkage section (Sweeney 2002) and for review findings 01-1 to 01-5 is computed here with the
library (or an exact oracle) and must appear in the prose as printed. Numbers from the literature (Sweeney 2000's
87 %) cannot be computed: those tests check that the lesson attributes them to their source.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from _lesson_text import NOTEBOOKS, flat, prose

from dpviz import attacks as A
from dpviz.panels import why_privacy as WP

LESSON = "01_why_privacy"
TEXT = flat(prose(LESSON))


def _says(fragment: str) -> None:
    assert flat(fragment) in TEXT, f"lesson 01 does not say: {fragment!r}"


def _section(title: str) -> str:
    """The flattened markdown from the heading ``title`` to the next level-2 heading."""
    start = TEXT.index(title)
    nxt = TEXT.find(" ## ", start + len(title))
    return TEXT[start:nxt if nxt >= 0 else len(TEXT)]


def _panel_population(n: int, draw: int = 0, coverage: float | None = None):
    """The people and the voter roll the lesson's LinkagePanel shows at (n, draw, coverage)."""
    if coverage is None:
        coverage = WP.LinkagePanel().controls["coverage"].value
    people = A.synthetic_table(n, WP._TABLE_SEED + draw)
    roll = A.voter_roll(n, coverage, (WP._ROLL_SEED, draw))
    return people, roll, A.linkage_by_generalisation(people.ages, people.towns, people.has_condition, roll)


def _level(w: int, keep: bool) -> int:
    return A.GENERALISATIONS.index((w, keep))


# -------------------------------------------------------------------------------------- structure (01-1, G-4)


def test_four_attacks_four_panels_four_objectives():
    cells = json.loads((NOTEBOOKS / f"{LESSON}.ipynb").read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    panels = re.findall(r"^(\w+Panel)\(\)$", code, flags=re.M)
    assert panels == ["DifferencingPanel", "LinkagePanel", "ReconstructionPanel", "MembershipPanel",
                      "WhyPrivacyProblemsPanel"]
    _says("This lesson shows four attacks")
    objectives = re.findall(r" (\d)\. (?:explain|put names|describe|read) ", TEXT)
    assert objectives == ["1", "2", "3", "4"]
    for i, title in enumerate(["Differencing", "Linkage", "Reconstruction", "Membership inference"], start=1):
        assert f"## {i}. {title}" in TEXT
    assert [c["metadata"].get("tags") for c in (cells[0], cells[-1])] == [["dpviz-nav"], ["dpviz-nav"]]


def test_you_need_names_what_the_sections_use():
    need = TEXT[TEXT.index("**You need:**"):TEXT.index("[the notation page]")]
    for used in ("Laplace", "least squares", "o(√n)", "normal distribution", "Φ", "Φ<sup>−1</sup>", "lesson 03"):
        assert used in need, used
    # what it promises is where it is used
    assert "least squares" in _section("## 3. Reconstruction") and "Φ" in _section("## 4. Membership")
    assert "only school probability" not in TEXT


# -------------------------------------------------------------------------------------------- §2 linkage


def test_the_table_of_section_1_is_mostly_unique():
    t = A.synthetic_table(8, WP._TABLE_SEED)
    assert t.names == WP._TABLE.names
    r = A.linkage_attack(t.ages, t.towns, t.has_condition, np.ones(t.n, bool))
    shared = np.flatnonzero(~r.unique)
    words = {6: "six", 8: "eight"}
    _says(f"Even the {words[t.n]} people of §1 are mostly unique: {words[int(r.unique.sum())]} of them have an "
          "(age, town) that no one else has;")
    a, b = (t.names[i] for i in shared)
    (age,) = {int(t.ages[i]) for i in shared}
    (town,) = {t.towns[i] for i in shared}
    _says(f"only {a} and {b}, both {age} and living in {town}, share one.")


def test_combinations_and_the_exact_unique_fraction():
    ages = np.concatenate([A.synthetic_table(A.TABLE_PEOPLE.high, s).ages for s in range(3)])
    towns = {town for s in range(3) for town in A.synthetic_table(A.TABLE_PEOPLE.high, s).towns}
    lo, hi = int(ages.min()), int(ages.max())
    # the number of equally likely combinations, from the library's own expectation: E[unique | n = 2] = 1 − 1/C
    cells = round(1 / (1 - A.expected_unique_fraction(2)))
    assert cells == (hi - lo + 1) * len(towns)
    _says(f"With ages {lo} to {hi} and {_word(len(towns))} towns there are {hi - lo + 1} × {len(towns)} = {cells} "
          "combinations.")
    _says(f"that has probability ({cells - 1}/{cells})<sup>n−1</sup>:")
    for n, fragment in ((100, "about {} % of n = 100 people are unique"), (500, "and still {} % of n = 500")):
        exact = float(Fraction(cells - 1, cells) ** (n - 1))
        assert A.expected_unique_fraction(n) == pytest.approx(exact, rel=1e-12)
        _says(fragment.format(round(100 * exact)))


def _word(k: int) -> str:
    return {2: "two", 3: "three", 4: "four"}[k]


def test_the_panel_defaults_the_lesson_describes():
    panel = WP.LinkagePanel()
    n, coverage = panel.controls["n"].value, panel.controls["coverage"].value
    _says(f"Back at n = {n}, the roll lists {round(100 * coverage)} % of the people.")
    people, roll, res = _panel_population(n)
    five, ten = res[_level(5, True)], res[_level(10, True)]
    _says(f"at n = {n}, 5-year bands with towns leave {int(five.unique.sum())} people unique (k = {five.k}), "
          f"10-year bands with towns none (k = {ten.k}).")
    assert int(ten.unique.sum()) == 0
    # §2's second cell: the 2-anonymous release still reveals the condition of some listed people
    words = {2: "2-anonymous"}
    _says(f"At the panel's defaults, 10-year bands with towns make the release {words[ten.k]}, and the roll still "
          f"reveals the condition of {int(ten.disclosed.sum())} of the {n} people.")
    assert not ten.reidentified.any() and ten.disclosed.sum() > 0
    # "Set n = 8 (draw 0): the people are those of §1"
    _says("Set n = 8 (draw 0): the people are those of §1.")
    assert _panel_population(8)[0].names == WP._TABLE.names


def test_literature_numbers_are_attributed():
    # Sweeney 2000: "87% (216 million of 248 million) ... likely made them unique based only on {5-digit ZIP, gender,
    # date of birth}", from the 1990 census; quoted, not computable here
    _says("in the 1990 US census those three alone were probably unique for 87 % of the population (Sweeney 2000).")
    _says("on ZIP code, date of birth and sex (Sweeney 2002, §1)")
    _says("(Narayanan & Shmatikov 2008)")


def test_the_dp_contrast_cites_the_composition_theorem():
    _says("two ε-DP releases are together 2ε-DP (Dwork & Roth 2014, Thm 3.16)")
    _says("(Sweeney 2002, §4)")


# -------------------------------------------------------------------------------------- §3 reconstruction (01-2, 01-3)


def test_least_squares_error_derivation():
    sec = _section("## 3. Reconstruction")
    # the uniform error on [−E, E] has variance E²/3 (exactly: ∫ x² dx / 2E); a ±½ coefficient has variance ¼
    assert Fraction(1, 3) == Fraction(2, 3) / 2 and Fraction(1, 2) ** 2 == Fraction(1, 4)
    for fragment in ("Each error is uniform between −E and +E, with variance E²/3;",
                     "each bit's coefficient in an answer is +½ or −½, with variance ¼.",
                     "(E²/3)/(m/4), an error of about 2E/√(3m) when m is much larger than n.",
                     "finite-aspect-ratio factor (1 − n/m)<sup>−1/2</sup>: about 2E/√(3(m − n)).",
                     "A bit is wrong only when that error passes ½"):
        assert flat(fragment) in sec, fragment
    assert "each bit enters about m/2 answers" not in TEXT  # the review's wrong parenthesis is gone
    # (E²/3)/(m/4) = 4E²/(3m): a standard deviation 2E/√(3m); times (1 − n/m)^(−1/2) it is 2E/√(3(m − n))
    n, m, e = 100, 500, 1.0
    assert math.sqrt((e * e / 3) / (m / 4)) == pytest.approx(2 * e / math.sqrt(3 * m), rel=1e-15)
    assert A.least_squares_error_sd(n, m, e) == pytest.approx(2 * e / math.sqrt(3 * m) * (1 - n / m) ** -0.5,
                                                              rel=1e-14)


def test_least_squares_error_numbers_at_n_100_m_500():
    n, m = 100, 500
    approx = A.least_squares_error_sd(n, m, 1.0)
    naive = 2 / math.sqrt(3 * m)
    # the exact value over random groups: 30 draws of the panel's query matrices (the standard error of the mean,
    # ~2e-5, must leave the printed rounding unambiguous)
    exact = np.array([A.exact_least_squares_error_sd(A.reconstruction_attack(n, m, 0.0, s).queries, 1.0)
                      for s in range(30)])
    mean, se = exact.mean(), exact.std(ddof=1) / math.sqrt(exact.size)
    assert round(mean - 4 * se, 3) == round(mean + 4 * se, 3) == round(mean, 3)
    _says(f"At n = {n} and m = {m} that is {approx:.3f}·E instead of {naive:.3f}·E (the exact value, which the "
          f"library computes for each draw of the groups, is about {mean:.3f}·E).")


def test_adversarial_errors_are_named():
    sec = _section("## 3. Reconstruction")
    assert flat("Dinur & Nissim's theorem holds for *any* errors of size at most E, even errors chosen by an "
                "adversary") in sec
    assert "shows the same behaviour" not in TEXT


# -------------------------------------------------------------------------------------- §4 membership (01-5)


def test_homer_is_membership_not_identification():
    sec = _section("## 4. Membership inference")
    assert flat("one can tell whether a known person's DNA is in it (Homer et al. 2008). That is membership, not "
                "identification") in sec
    assert "identified people from published statistics" not in TEXT
