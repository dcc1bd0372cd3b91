"""Adversarial-input sweep of :mod:`dpviz.local` (lesson 02's local-DP numerics: k-RR, OUE, local against central).

Every public callable of ``dpviz.local.__all__`` gets one valid baseline call with its optional arguments written
positionally (``rng`` included), so that :func:`_adversarial.sweep` replaces each of them by each of 16 hostile
values (warnings are errors); only a ValueError/TypeError with a message, or a NaN-free result, passes.

The tests after the sweep pin each defect the sweep found, and check the values at the extremes against closed
forms and limits worked out by hand (mpmath where digits matter), never against the code under test.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from _adversarial import contract_tests

import dpviz.local as L

_VALUES = np.array([0, 1, 2, 2, 1, 0, 2])
_OUE = L.oue_release(_VALUES, 3, 1.0, rng=0)

BASELINES = {
    "krr_probabilities": ((3, 1.0), {}),
    "krr_release": ((_VALUES, 3, 1.0, 0), {}),
    "krr_estimate": ((_VALUES, 3, 1.0), {}),
    "krr_variance": ((100, 3, 1.0, 0.2), {}),
    "oue_probabilities": ((1.0,), {}),
    "oue_release": ((_VALUES, 3, 1.0, 0), {}),
    "oue_estimate": ((_OUE, 1.0), {}),
    "oue_variance": ((100, 1.0, 0.2), {}),
    "local_variance": (("krr", 100, 3, 1.0, 0.2), {}),
    "central_count_std": ((1.0,), {}),
    "local_count_std": (("oue", np.array([10.0, 1000.0]), 3, 1.0, 0.2), {}),
    "people_needed_local": (("krr", 1000, 3, 1.0, 0.1), {}),
}

globals().update(contract_tests(L, BASELINES))


def _v1_krr_mp(k, eps, f, dps=60):
    """V₁ = n·Var f̂ of k-RR at 60 digits, from the definition p = e^ε/(e^ε + k − 1), q = 1/(e^ε + k − 1)."""
    mpmath.mp.dps = dps
    e = mpmath.exp(mpmath.mpf(eps))
    p, q = e / (e + k - 1), 1 / (e + k - 1)
    return (q * (1 - q) + f * (p - q) * (1 - p - q)) / (p - q) ** 2


# ---------------------------------------------------------------------------------- one test per defect found
def test_a_count_beyond_the_cap_is_refused_naming_it_not_an_overflow():
    """10**400 as n raised OverflowError (int too large to convert to float); n ≤ 10¹² now, with the cap named."""
    for call, name in ((lambda: L.krr_variance(10**400, 3, 1.0), "n"),
                       (lambda: L.oue_variance(10**400, 1.0), "n"),
                       (lambda: L.local_count_std("krr", 10**400, 3, 1.0), "n"),
                       (lambda: L.people_needed_local("krr", 10**400, 3, 1.0), "n_central")):
        with pytest.raises(ValueError, match=rf"^{name} = 1000.* is not allowed: must be an integer >= 1 and <= "
                                             r"1000000000000"):
            call()
    assert L.krr_variance(10**12, 2, 1.0) == pytest.approx(float(_v1_krr_mp(2, 1.0, 0)) / 1e12, rel=1e-14)


def test_people_needed_names_n_central_not_an_internal_n():
    with pytest.raises(ValueError, match=r"^n_central = 0 is not allowed"):
        L.people_needed_local("krr", 0, 2, 1.0)


def test_the_smallest_epsilon_is_refused_naming_it_not_a_zero_division():
    """ε = 5·10⁻³²⁴: p − q rounded to 0 and krr_variance raised ZeroDivisionError; the variance, about
    (k − 1)/(nε²), is beyond the double range, so it is refused, naming ε."""
    for call in (lambda: L.krr_variance(100, 3, 5e-324), lambda: L.oue_variance(100, 5e-324),
                 lambda: L.local_count_std("krr", 100, 3, 5e-324), lambda: L.central_count_std(5e-324),
                 lambda: L.krr_variance(100, 3, 1e-160)):
        with pytest.raises(ValueError, match=r"^epsilon = .* is not allowed here: .*finite double"):
            call()


def test_variance_at_small_epsilon_is_exact_not_cancelled():
    """ε = 10⁻¹⁰⁰: p − q = ε/k to first order; 1 − e^{−ε} computed directly is 0 in double precision."""
    for k in (2, 3, 50):
        assert L.krr_variance(10, k, 1e-100, 0.3) == pytest.approx(float(_v1_krr_mp(k, "1e-100", 0.3, 250)) / 10,
                                                                   rel=1e-13)
    assert L.oue_variance(10, 1e-100) == pytest.approx(4e200 / 10, rel=1e-13)  # 1/sinh²(ε/2) = 4/ε²(1 + O(ε²))


def test_oue_estimate_at_a_tiny_epsilon_is_exact_not_nan():
    """ε = 10⁻³⁰⁰: p − q = ½tanh(ε/2) = 2.5·10⁻³⁰¹ but ½ − 1/(e^ε + 1) is 0 in double precision, and the estimate
    came out NaN. Exact: f̂ = (c/n − ½)/(½ tanh(ε/2)) + 1."""
    reports = np.array([[1, 0], [1, 0], [0, 0], [1, 1]])  # c = (3, 1), n = 4
    est = L.oue_estimate(reports, 1e-300)
    assert est.tolist() == pytest.approx([0.25 / 2.5e-301 + 1, -0.25 / 2.5e-301 + 1], rel=1e-15)
    with pytest.raises(ValueError, match=r"^epsilon = 5e-324 is not allowed here: the estimates"):
        L.oue_estimate(reports, 5e-324)
    balanced = L.oue_estimate(np.array([[1, 0], [0, 1]]), 1e-300)  # c/n = ½: the estimate is exactly 1
    assert balanced.tolist() == [1.0, 1.0]


def test_krr_estimate_at_a_tiny_epsilon_is_exact():
    """f̂ = (c/n − 1/k)/(p − q) + 1/k: at ε = 10⁻³⁰⁰ and c/n = 1/k exactly, every estimate is exactly 1/k."""
    est = L.krr_estimate(np.array([0, 1, 2, 3]), 4, 1e-300)
    assert est.tolist() == [0.25] * 4
    e = L.krr_estimate(np.array([0, 0, 1, 1]), 2, 1e-300)  # c/n = ½ = 1/k for k = 2
    assert e.tolist() == [0.5, 0.5]


def test_complex_input_is_refused_not_cast_to_real():
    for call, name in ((lambda: L.krr_release([1 + 1j, 0], 3, 1.0, rng=0), "values"),
                       (lambda: L.krr_estimate([1 + 0j, 0], 3, 1.0), "reports"),
                       (lambda: L.oue_release(np.array([1 + 0j]), 3, 1.0, rng=0), "values"),
                       (lambda: L.oue_estimate(np.array([[1 + 0j, 0]]), 1.0), "reports"),
                       (lambda: L.local_count_std("krr", np.array([10 + 1j]), 3, 1.0), "n")):
        with pytest.raises(ValueError, match=rf"^{name} = .*complex input is not cast to real"):
            call()


def test_choice_arguments_refuse_arrays_with_the_choices_named():
    with pytest.raises(ValueError, match=r"^protocol = array\(\[\].*must be one of 'krr', 'oue'"):
        L.local_variance(np.array([]), 10, 3, 1.0)


def test_release_sizes_are_capped():
    with pytest.raises(ValueError, match=r"^values has 10000001 entries.*at most 10000000"):
        L.krr_release(np.zeros(10_000_001), 3, 1.0, rng=0)


# ---------------------------------------------------------------------------------- values at the extremes
def test_people_needed_tends_to_its_small_epsilon_limit():
    """V₁ε² → k − 1 (k-RR) and → 4 (OUE) as ε → 0: the answer tends to (k − 1)n²/2 and 2n², finite even at
    ε = 5·10⁻³²⁴ where V₁ itself is beyond the double range."""
    for eps in (1e-10, 1e-200, 5e-324):
        assert L.people_needed_local("krr", 1000, 2, eps, 0.1) == pytest.approx(1000**2 / 2, rel=1e-9)
        assert L.people_needed_local("krr", 1000, 7, eps, 0.1) == pytest.approx(6 * 1000**2 / 2, rel=1e-9)
        assert L.people_needed_local("oue", 1000, 7, eps, 0.1) == pytest.approx(2 * 1000**2, rel=1e-9)


def test_people_needed_against_mpmath_and_at_large_epsilon():
    for k, eps, f in ((2, 1.0, 0.1), (10, 0.3, 0.5), (100, 4.0, 0.1), (5, 30.0, 0.2)):
        exact = _v1_krr_mp(k, eps, f) * (mpmath.mpf(eps) * 1000) ** 2 / 2
        assert L.people_needed_local("krr", 1000, k, eps, f) == pytest.approx(float(exact), rel=1e-12)
    assert L.people_needed_local("krr", 1000, 5, 1e308, 0.2) == 0.0  # q = 0: every report is the truth
    with pytest.raises(ValueError, match=r"^epsilon = 1e\+200 is not allowed here: the number of people needed"):
        L.people_needed_local("oue", 1000, 5, 1e200, 0.2)  # V₁ → f while the central error → 0


def test_large_epsilon_limits():
    """ε = 800: e^{−ε} is 0 in double precision; k-RR is then exact (variance 0) and OUE's variance is f/n
    (the kept bit is a fair coin); q of OUE between ε = 700 and 745 is e^{−ε}, not 0."""
    assert L.krr_variance(10, 4, 800.0, 0.3) == 0.0
    assert L.oue_variance(10, 800.0, 0.3) == pytest.approx(0.03, rel=1e-15)
    assert L.oue_probabilities(720.0)[1] == pytest.approx(math.exp(-720.0), rel=1e-14)
    mpmath.mp.dps = 30
    assert L.oue_variance(1, 720.0) == pytest.approx(float(4 * mpmath.exp(-720)), rel=1e-12)
    assert L.central_count_std(1e-300) == pytest.approx(math.sqrt(2) * 1e300, rel=1e-15)
