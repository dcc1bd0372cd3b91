"""Lesson-quote tests of lesson 09 "Choosing ε": every number the lesson states (outside the census, which
``tests/lessons/test_quotes_census.py`` covers for lessons 09 and 15) is computed here with the library and must
appear in the
lesson's prose as printed."""

from __future__ import annotations

import math

import pytest
from _lesson_text import flat, prose

from dpviz import deployments as D
from dpviz import interpret as I

TEXT = flat(prose("09_choosing_epsilon"))


def _says(fragment: str) -> None:
    assert fragment in TEXT, f"lesson 09 does not say {fragment!r}"


def _times_ten(x: float) -> str:
    """6.36e-06 as the lesson prints it: "6.4·10⁻⁶"."""
    mant, exp = f"{x:.1e}".split("e")
    return f"{mant}·10" + str(int(exp)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _pct(x: float, digits: int) -> str:
    return f"{100 * x:.{digits}f}%"


# ------------------------------------------------------------------------------------------------ definitions, §1


def test_the_two_posterior_examples_of_the_definitions():
    _says(f"with ε = 1 a prior of 10% can become at most {_pct(I.posterior_bound(0.1, 1.0), 1)}")   # 23.2%
    _says(f"with ε = 10 a prior of 1% can become {_pct(I.posterior_bound(0.01, 10.0), 1)}")          # 99.6%


def test_the_exact_delta_bound_is_stated_with_the_complement():
    _says("a = min(1, e<sup>ε</sup>·q + δ, 1 − e<sup>−ε</sup>·(1 − q − δ))")
    _says("1 − q ≤ e<sup>ε</sup>·(1 − P[S | in]) + δ")
    # and it is what the library computes: the two-output mechanism reaches it
    eps, d, q, p = math.log(3), 0.01, 0.25, 0.5
    a = min(1, math.exp(eps) * q + d, 1 - math.exp(-eps) * (1 - q - d))
    assert I.posterior_bound(p, eps, d, event_probability=q) == pytest.approx(p * a / (p * a + (1 - p) * q), rel=1e-14)


def test_section_1_what_to_try():
    _says(f"At ε = 0.1 the posterior barely moves ({_pct(I.posterior_bound(0.1, 0.1), 1)})")         # 10.9%
    _says(f"at ε = 1 it can reach {_pct(I.posterior_bound(0.1, 1.0), 0)}")                           # 23%
    _says(f"at ε = 5 it can reach {_pct(I.posterior_bound(0.1, 5.0), 0)}")                           # 94%
    _says(f"Even ε = 5 leaves the posterior at about {_pct(I.posterior_bound(0.001, 5.0), 0)}")      # 13%


def test_the_dashed_curve_lies_below_the_bold_one_near_q_equal_one():
    # "Near P[S | out] = 1 it lies below the blue one": at the panel's δ = 10⁻³ and ε = 1
    for q in (0.5, 0.9, 1.0):
        assert I.posterior_bound(0.1, 1.0, 1e-3, event_probability=q) < I.posterior_bound(0.1, 1.0)
    _says("Near P[S | out] = 1 it lies *below* the blue one")


# ------------------------------------------------------------------------------------------------ §2 deployments


def test_apple_linkedin_and_rappor_values():
    tang = next(d for d in D.DEPLOYMENTS if d.key == "tang2017privacy")
    linkedin = next(d for d in D.DEPLOYMENTS if d.key == "rogers2021linkedin")
    _says(f"Tang et al. 2017 analysed the code of macOS 10.12 and found that it allows a privacy loss of 1 or 2 per "
          f"piece of data sent, but up to ε = {tang.epsilon:g} per user per day")
    _says("That is their analysis, not a guarantee Apple states")
    _says(f"(ε, δ) = ({linkedin.epsilon:g}, 7·10⁻⁹)")
    assert linkedin.delta == 7e-9
    h, f = D.RAPPOR_CHROME
    assert (h, f) == (2, 0.5)
    eps_inf = D.rappor_epsilon_infinity(h, f)
    assert eps_inf == pytest.approx(4 * math.log(3), rel=1e-14)
    _says(f"At h = {h} and f = ½, the setting of Chrome's RAPPOR reports, this is ε<sub>∞</sub> = 4 ln 3 ≈ "
          f"{eps_inf:.2f}")
    _says("ε<sub>∞</sub> = 2h·ln((1 − f/2)/(f/2)) (Erlingsson, Pihur & Korolova 2014, Thm 1)")


def test_the_figure_shows_five_points():
    assert len(D.published()) == 5
    _says("The figure puts the five recorded values on one ε axis")


def test_prior_threshold_of_the_what_to_try():
    threshold = I.epsilon_for_posterior(0.01, 0.99)  # ε above which a 1% prior can pass 99%
    _says(f"every deployed value above about {threshold:.1f} allows a posterior above 99%")
    assert all(I.posterior_bound(0.01, d.epsilon) > 0.99 for d in D.published() if d.epsilon > threshold)
    census = [d for d in D.published() if d.key == "abowd2022topdown"]
    assert all(I.posterior_bound(1e-4, d.epsilon) > 0.99 for d in census)
    _says("at 0.01% the census value still allows more than 99%")


# ------------------------------------------------------------------------------------------------ §3 accuracy


def test_section_3_calibrations():
    _says(f"For α<sub>acc</sub> = 10 and β<sub>fail</sub> = 5%: ε = {I.laplace_epsilon_for_accuracy(10, 0.05):.2f}.")
    _says(f"σ = {I.gaussian_sigma_for_accuracy(10, 0.05):.1f} and "
          f"ε = {I.gaussian_epsilon_for_accuracy(10, 0.05, 1e-6):.2f}.")


def test_section_3_the_gap_shrinks_and_the_crossover():
    g, lap = I.gaussian_epsilon_for_accuracy(10, 0.05, 1e-3), I.laplace_epsilon_for_accuracy(10, 0.05)
    assert g > lap  # the Gaussian does not catch up at the defaults
    _says(f"the Gaussian still needs ε = {g:.2f} against Laplace's {lap:.2f}")
    a_star = I.accuracy_crossover_alpha(0.05, 1e-3)
    _says(f"the two curves cross at α<sub>acc</sub> ≈ {a_star:.0f} (with β<sub>fail</sub> = 5%)")
    b_star = I.accuracy_crossover_beta(10.0, 1e-3)
    _says(f"once β<sub>fail</sub> is below about {_times_ten(b_star)}")


# ------------------------------------------------------------------------------------------------ §4 budget


def test_section_4_budget_split():
    r = I.per_release_budget(1.0, 1e-6, 12)
    _says(f"ε/k = {r['eps_basic']:.3f}")
    _says(f"σ ≈ {r['sigma_basic']:.0f} per count")
    _says(f"the exact accountant allows σ ≈ {r['sigma_exact']:.1f}")
    _says(f"ε<sub>step</sub> ≈ {r['eps_step_exact']:.2f} per release")


def test_section_4_does_not_give_away_the_exercise():
    r = I.per_release_budget(1.0, 1e-6, 365)
    ratio = r["sigma_basic"] / r["sigma_exact"]
    for form in (f"{ratio:.0f} times", f"{ratio:.1f}", "about 19"):
        assert form not in TEXT


# ------------------------------------------------------------------------------------------------ summary


def test_summary_numbers():
    _says(f"ε = 1 turns a 10% prior into at most {_pct(I.posterior_bound(0.1, 1.0), 0)}")
    _says(f"ε = 10 turns 1% into {_pct(I.posterior_bound(0.01, 10.0), 1)}")
