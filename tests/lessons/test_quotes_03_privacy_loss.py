"""Lesson-quote tests of lesson 03 "Privacy loss": every number the prose states in the parts written or changed for
review findings 07-6 (ℓ2 sensitivity and the vector Gaussian, §5) and N-4 (the stale cross-reference) is computed
here with the library and must appear in the prose as printed; the claims that are not numbers (which lesson teaches
what, what the Gaussian's privacy loss depends on) are checked against the code or an exact computation too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _lesson_text import flat, prose

from dpviz import mechanisms as M
from dpviz.gaussian_profiles import clipped_sum_noise
from dpviz.panels import privacy_loss as PL
from dpviz.sensitivity import histogram_sensitivity

LESSON = "03_privacy_loss"
TEXT = flat(prose(LESSON))


def _says(fragment: str) -> None:
    assert flat(fragment) in TEXT, f"lesson 03 does not say: {fragment!r}"


def _section(title: str) -> str:
    start = TEXT.index(title)
    nxt = TEXT.find(" ## ", start + len(title))
    return TEXT[start:nxt if nxt >= 0 else len(TEXT)]


# ------------------------------------------------------------------------------------------------ N-4


def test_the_relation_cross_reference_points_to_lesson_02_with_its_numbers():
    assert "lesson 05 shows how" not in TEXT and "(lesson 05" not in TEXT
    a, r = histogram_sensitivity("add_remove"), histogram_sensitivity("replace")
    _says(f"as [lesson 02](02_counting_with_noise.ipynb) showed (a histogram's Δ is {a:g} under add/remove, {r:g} "
          "under replace)")


# ------------------------------------------------------------------------------------------------ 07-6: §5


SEC5 = "## 5. Vectors: ℓ<sub>2</sub> sensitivity and the Gaussian mechanism"


def test_section_5_states_the_two_sensitivities_with_their_sources():
    s = _section(SEC5)
    assert "Δ<sub>1</sub> = max ‖f(x) − f(x′)‖<sub>1</sub>" in s and "(Dwork & Roth 2014, Def 3.1)" in s
    assert "Δ<sub>2</sub> = max ‖f(x) − f(x′)‖<sub>2</sub>" in s and "(Dwork & Roth 2014, §3.5.3)" in s
    assert "Lap(Δ<sub>1</sub>/ε)" in s and "(Dwork & Roth 2014, Thm 3.6)" in s
    assert "(Balle & Wang 2018, Thm 8, stated for ℓ<sub>2</sub> sensitivity)" in s
    assert "Dwork & Roth 2014, Thm A.1" in s


def test_the_privacy_loss_of_the_vector_gaussian_is_the_one_dimensional_one():
    """The lesson's derivation: ℓ(o) = (‖v‖² + 2⟨v, ξ⟩)/(2σ²), so L ~ N(μ²/2, μ²) with μ = ‖v‖₂/σ. Checked exactly
    at sample points: the log-density ratio of the two d-dimensional Gaussians equals the lesson's expression, and its
    law (a linear function of the noise ξ) has that mean and variance."""
    s = _section(SEC5)
    assert "(‖v‖<sub>2</sub><sup>2</sup> + 2⟨v, ξ⟩)/(2σ²)" in s and "L ~ N(μ²/2, μ²) with μ = ‖v‖<sub>2</sub>/σ" in s
    rng = np.random.default_rng(7)
    sigma, v = 0.8, rng.normal(size=5)
    fx = rng.normal(size=5)
    fxp = fx - v
    for xi in rng.normal(scale=sigma, size=(20, 5)):
        o = fx + xi
        log_ratio = (np.sum((o - fxp) ** 2) - np.sum((o - fx) ** 2)) / (2 * sigma**2)
        assert log_ratio == pytest.approx((v @ v + 2 * v @ xi) / (2 * sigma**2), rel=1e-12, abs=1e-12)
    mu = np.linalg.norm(v) / sigma
    # L = (‖v‖² + 2⟨v, ξ⟩)/(2σ²) with ⟨v, ξ⟩ ~ N(0, σ²‖v‖²): mean ‖v‖²/(2σ²) = μ²/2, variance ‖v‖²/σ² = μ²
    assert (v @ v) / (2 * sigma**2) == pytest.approx(mu**2 / 2, rel=1e-14)
    assert (4 * sigma**2 * (v @ v)) / (2 * sigma**2) ** 2 == pytest.approx(mu**2, rel=1e-14)


def test_the_clipped_sum_numbers_of_section_5():
    r = clipped_sum_noise(1, 1.0, 1e-5)
    sigma = r["gaussian_sigma"]
    assert sigma == M.analytic_gaussian_sigma(1.0, 1e-5)
    _says(f"At ε = 1 and δ = 10⁻⁵ the exact σ is {sigma:.3g}·C, and Laplace needs less noise only up to "
          f"d = {r['crossover']} coordinates.")
    # "grows like √d", "as large as √d·C": Δ₁ of the flat vector, and Δ₂ = C for every d
    for d in (1, 7, 10_000):
        rd = clipped_sum_noise(d, 1.0, 1e-5)
        assert rd["l1_sensitivity"] == pytest.approx(math.sqrt(d)) and rd["l2_sensitivity"] == 1.0
        assert rd["gaussian_sigma"] == sigma
    _says("so Δ<sub>2</sub> = C whatever d is, while Δ<sub>1</sub> can be as large as √d·C")
    _says("standard deviation √2·Δ<sub>1</sub>/ε")


def test_the_what_to_try_claims_of_section_5():
    p = PL.VectorReleasePanel()
    d = p.controls["dimension"]
    assert round(d.value) == 1 and d.max == 4.0  # "Start at d = 1", "move d up to 10⁴"
    _says("Start at d = 1: Laplace needs less noise than the Gaussian.")
    assert clipped_sum_noise(1, 1.0, 1e-5)["ratio"] < 1
    assert p.controls["delta"].min == -10  # "Lower δ to 10⁻¹⁰"
    lo, hi = clipped_sum_noise(100, 1.0, 1e-10), clipped_sum_noise(100, 1.0, 1e-5)
    assert lo["gaussian_sigma"] > hi["gaussian_sigma"] and lo["laplace_sd"] == hi["laplace_sd"]
    _says(f"Lower δ to 10⁻¹⁰: the Gaussian line rises to σ = {lo['gaussian_sigma']:.3g}·C (σ grows about like "
          f"√(ln(1/δ))), so Laplace now needs less up to d = {lo['crossover']}; the Laplace line does not move.")


def test_the_exercise_answer_is_not_in_the_prose():
    truth = float(clipped_sum_noise(100, 1.0, 1e-5)["ratio"])
    for form in (f"{truth:.3g}", f"{truth:.4g}", f"{truth * 10:.3g}"):
        assert form not in TEXT, form


def test_objectives_you_need_and_summary_name_section_5():
    _says("5. give the ℓ<sub>1</sub> and ℓ<sub>2</sub> sensitivities Δ<sub>1</sub>, Δ<sub>2</sub> of a vector-valued "
          "query")
    _says("The symbols ε, δ, Δ (with Δ<sub>1</sub>, Δ<sub>2</sub>), σ, b, μ, C, α, β and ε<sub>RR</sub> are listed")
    summary = _section("## Summary")
    assert "A **vector** query has an ℓ<sub>1</sub> and an ℓ<sub>2</sub> sensitivity." in summary
    assert "VectorReleasePanel" in PL.__all__
