"""Lesson-quote tests of the 2020 Census story, one story across lessons 09 and 15: every census number either
lesson states is computed here from the one home, :func:`dpviz.deployments.census_2020` (and, for the attribute
split of lesson 15, the ledger :func:`dpviz.partial.census_2020_example`, whose totals are the same), and must
appear in the lesson's prose as printed."""

from __future__ import annotations

import pytest
from _lesson_text import flat, prose

from dpviz import partial as PD
from dpviz.deployments import CENSUS_BUREAU_EPSILON, CENSUS_RHO_PERSONS, CENSUS_RHO_UNITS, census_2020
from dpviz.interpret import gaussian_reading

L06 = flat(prose("09_choosing_epsilon"))
L12 = flat(prose("15_per_attribute"))
AT_1E10 = census_2020(1e-10)
AT_1E6 = census_2020(1e-6)
LEDGER = PD.census_2020_example()
RACE = {"race", "ethnicity"}


def _says(text: str, fragment: str, lesson: str) -> None:
    assert fragment in text, f"lesson {lesson} does not say {fragment!r}"


def test_the_ledger_of_lesson_12_has_the_totals_of_the_story():
    persons = sum(r.rho for r in LEDGER.releases if "occupancy" not in r.attributes)
    units = sum(r.rho for r in LEDGER.releases if "occupancy" in r.attributes)
    assert persons == pytest.approx(CENSUS_RHO_PERSONS, abs=1e-14) and units == CENSUS_RHO_UNITS
    assert LEDGER.whole_record_rho() == pytest.approx(AT_1E10["rho_total"], abs=1e-14)
    assert LEDGER.change_approx_dp(LEDGER.attributes, 1e-6) == pytest.approx(AT_1E6["eps_total"], rel=1e-12)
    assert LEDGER.change_approx_dp(LEDGER.attributes, 1e-10) == pytest.approx(AT_1E10["eps_total"], rel=1e-12)


# ------------------------------------------------------------------------------------------------ lesson 09


def test_lesson_06_states_the_rhos_and_the_bureaus_values():
    c = AT_1E10
    _says(L06, f"ρ = {c['rho_persons']:g} for the person tables and ρ = {c['rho_units']:g} for the housing-unit "
               "tables", "06")
    bp, bu = CENSUS_BUREAU_EPSILON
    _says(L06, f"({bp:g}, 10⁻¹⁰)-DP for persons and ({bu:g}, 10⁻¹⁰)-DP for housing units", "06")
    _says(L06, f"gives {bp:g} + {bu:g} = {c['bureau_sum']:g}", "06")


def test_lesson_06_states_the_conversions():
    c = AT_1E10
    _says(L06, f"and gets {c['eps_persons']:.2f} and {c['eps_units']:.2f}", "06")
    _says(L06, f"ρ = {c['rho_persons']:g} + {c['rho_units']:g} = {c['rho_total']:.2f}, and one conversion gives "
               f"ε ≈ {c['eps_total']:.2f}, less than {CENSUS_BUREAU_EPSILON[0]:g} + {CENSUS_BUREAU_EPSILON[1]:g}",
          "06")
    assert c["eps_total"] < c["bureau_sum"] and c["eps_total"] < c["eps_sum"]
    _says(L06, f"gives {c['eps_persons_simple']:.2f} and {c['eps_total_simple']:.2f}.", "06")
    _says(L06, f"converts the same ρ = {c['rho_total']:.2f} at δ = 10⁻⁶, which gives {AT_1E6['eps_total']:.2f}",
          "06")


def test_lesson_06_reads_the_census_as_a_test():
    c = AT_1E10
    _says(L06, f"ε = {c['eps_persons']:.2f} lies {c['loss_sd_persons']:.2f} standard deviations above its mean", "06")
    _says(L06, f"μ-GDP with μ = √(2ρ) = {c['mu_persons']:.2f}", "06")
    _says(L06, f"at most 2Φ(μ/2) − 1 = {c['advantage_persons']:.2f}", "06")
    _says(L06, f"ρ = {c['rho_total']:.2f}, μ = {c['mu_total']:.2f} and the limit is {c['advantage_total']:.2f}", "06")


def test_lesson_06_summary():
    c = AT_1E10
    _says(L06, f"ρ = {c['rho_total']:.2f} is μ = {c['mu_total']:.2f}, so no membership test gains more than "
               f"{c['advantage_total']:.2f}", "06")
    _says(L06, f"its ({c['eps_total']:.2f}, 10⁻¹⁰) sits far out in the privacy-loss tail", "06")


# ------------------------------------------------------------------------------------------------ lesson 15


def test_lesson_12_intro():
    _says(L12, f"is {AT_1E10['rho_total']:.2f}-zCDP, that is ({AT_1E6['eps_total']:.2f}, 10⁻⁶)-DP or "
               f"({AT_1E10['eps_total']:.2f}, 10⁻¹⁰)-DP ([lesson 09](09_choosing_epsilon.ipynb))", "12")


def test_lesson_12_census_section_tells_the_same_story():
    c, c6 = AT_1E10, AT_1E6
    bp, bu = CENSUS_BUREAU_EPSILON
    _says(L12, f"({bp:g}, 10⁻¹⁰)-DP for the person tables and ({bu:g}, 10⁻¹⁰)-DP for the housing-unit tables", "12")
    _says(L12, f"basic composition adds to ε = {c['bureau_sum']:g}", "12")
    _says(L12, f"**{c['rho_persons']:g} + {c['rho_units']:g} = {c['rho_total']:.2f}-zCDP**", "12")
    _says(L12, f"gives ({c['eps_total']:.2f}, 10⁻¹⁰)-DP at the Bureau's δ and **({c6['eps_total']:.2f}, 10⁻⁶)-DP**",
          "12")
    _says(L12, f"prints {c6['eps_total']:.1f})", "12")  # the paper's rounding of the same number
    _says(L12, f"ρ = {c['rho_total']:.2f} is μ = √(2ρ) = {c['mu_total']:.2f}", "12")
    _says(L12, "[lesson 09](09_choosing_epsilon.ipynb), §2, with the same numbers", "12")


def test_lesson_12_race_and_ethnicity():
    rho = LEDGER.change_rho(RACE)
    eps = LEDGER.change_approx_dp(RACE, 1e-6)
    assert rho == pytest.approx(1.02, abs=1e-12)
    _says(L12, f"costs **{rho:.2f}-zCDP**, i.e. **({eps:.2f}, 10⁻⁶)-DP** (the paper prints 7.85)", "12")
    assert int(eps * 100) / 100 == 7.85  # the paper truncates 7.856
    _says(L12, f"μ = {gaussian_reading(rho)['mu']:.2f}.", "12")
    whole_simple = LEDGER.change_approx_dp(LEDGER.attributes, 1e-6, method="simple")
    race_simple = LEDGER.change_approx_dp(RACE, 1e-6, method="simple")
    _says(L12, f"would give {whole_simple:.2f} and {race_simple:.2f}.", "12")
    _says(L12, f"you get the whole record, ({AT_1E6['eps_total']:.2f}, 10⁻⁶)", "12")


def test_lesson_12_summary():
    eps_race = LEDGER.change_approx_dp(RACE, 1e-6)
    _says(L12, f"{AT_1E10['rho_total']:.2f}-zCDP ≈ ({AT_1E6['eps_total']:.2f}, 10⁻⁶) for a record, "
               f"{LEDGER.change_rho(RACE):.2f}-zCDP ≈ ({eps_race:.2f}, 10⁻⁶) for race and ethnicity", "12")
    _says(L12, f"(lesson 09 reads the same {AT_1E10['rho_total']:.2f} at δ = 10⁻¹⁰: {AT_1E10['eps_total']:.2f})", "12")


def test_no_stale_census_number_is_left():
    # the numbers of the old, inconsistent story (lesson 09: "17.2"/"17.4"; lesson 15: 13.8 as its own value)
    for stale in ("ε ≈ 17.2 for persons", "ε ≈ 17.4 in total", "about (13.8, 10⁻⁶)-DP", "(13.8, 10⁻⁶) for a record"):
        assert stale not in L06 and stale not in L12
