"""Adversarial-input sweep of :mod:`dpviz.sensitivity` (lesson 02's central-model numerics).

Every public callable of ``dpviz.sensitivity.__all__`` gets one valid baseline call with its optional arguments
written positionally, so that :func:`_adversarial.sweep` replaces each of them in turn by each of 16 hostile values
(warnings are errors); only a ValueError/TypeError with a message, or a NaN-free result, passes.

The tests after the sweep pin the defects the sweep found, one each, and check values at the extremes against
closed forms or limits worked out by hand (not against the code under test).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from _adversarial import contract_tests

import dpviz.sensitivity as S

DATA = S.example_dataset(101)

BASELINES = {
    "count_sensitivity": (("replace",), {}),
    "sum_sensitivity": ((-1.0, 5.0, "replace"), {}),
    "mean_sensitivity": ((0.0, 10.0, 5, "add_remove"), {}),
    "histogram_sensitivity": (("replace", "l2"), {}),
    "query_sensitivity": (("mean", 0.0, 10.0, 5, "replace"), {}),
    "laplace_scale": ((2.0, 0.5), {}),
    "example_dataset": ((50, 30.0, 0.9), {}),
    "clipping_error": ((DATA, 0.0, np.array([10.0, 50.0]), 1.0, "sum", "add_remove"), {}),
    "clamped_laplace_mse": ((np.array([0.0, 1.0, 5.0]), 1.0), {}),
    "rounded_laplace_mse": ((0.5,), {}),
    "rounding_breakeven_scale": ((), {}),
    "hierarchy_range_variance": ((8, np.array([1, 4, 8]), 2.0, 0.5), {}),
    "raw_range_variance": ((8, np.array([1, 4, 8]), 2.0), {}),
    "sequential_epsilon": (([0.5, 1.0],), {}),
    "parallel_epsilon": (([0.5, 1.0],), {}),
}

globals().update(contract_tests(S, BASELINES))


# ---------------------------------------------------------------------------------- one test per defect found
def test_rounded_mse_at_a_tiny_scale_is_its_limit_not_an_overflow():
    """b = 10⁻⁴: sinh(1/(2b)) = sinh(5000) overflowed. The MSE is u(1 + u²)/(1 − u²)² with u = e^{−1/(2b)}, about
    e^{−5000}: 0 in double precision; at b = 0.02 it is e^{−25}(1 + e^{−50})/(1 − e^{−50})², representable."""
    assert S.rounded_laplace_mse(1e-4) == 0.0
    u = mpmath.exp(-25)
    assert S.rounded_laplace_mse(0.02) == pytest.approx(float(u * (1 + u**2) / (1 - u**2) ** 2), rel=1e-13)


def test_rounded_mse_at_a_huge_scale_is_two_b_squared_plus_a_twelfth():
    """b → ∞: the rounding error becomes uniform on [−½, ½] and independent of the noise, so MSE − 2b² → 1/12;
    at b = 10⁶ the closed form must still resolve that twelfth (rel. 10⁻¹³ of 2·10¹² is 0.2)."""
    mpmath.mp.dps = 60
    b = mpmath.mpf(10) ** 6
    u = mpmath.exp(-1 / (2 * b))
    exact = u * (1 + u**2) / (1 - u**2) ** 2
    assert float(exact - 2 * b * b) == pytest.approx(1 / 12, rel=1e-9)
    assert S.rounded_laplace_mse(1e6) == pytest.approx(float(exact), rel=1e-14)


def test_scales_beyond_the_float_range_of_the_error_are_refused_with_the_cap():
    for call in (lambda: S.rounded_laplace_mse(1e200), lambda: S.clamped_laplace_mse(0.0, 1e200)):
        with pytest.raises(ValueError, match=r"scale = 1e\+200 is not allowed: must be .*1e\+150"):
            call()
    assert S.clamped_laplace_mse(0.0, 1e150) == pytest.approx(1e300, rel=1e-15)  # b² at x = 0


def test_clamped_mse_at_a_huge_count_is_two_b_squared():
    """x/b = 10³⁰⁰: e^{−x/b}·b(x + b) underflows to 0·(something finite), not inf·0."""
    assert S.clamped_laplace_mse(1e300, 1.0) == 2.0
    assert S.clamped_laplace_mse(np.array([1e300, 0.0]), 1e-3).tolist() == pytest.approx([2e-6, 1e-6], rel=1e-15)


def test_laplace_scale_names_the_callers_parameters_not_an_internal_scale():
    with pytest.raises(ValueError, match=r"^sensitivity = 1e\+308 and epsilon = 1e-10 are not allowed"):
        S.laplace_scale(1e308, 1e-10)
    assert S.laplace_scale(1e300, 1e-8) == pytest.approx(1e308, rel=1e-15)  # the largest that fits is returned


def test_clipping_error_refuses_complex_data_and_bounds_instead_of_casting():
    with pytest.raises(ValueError, match=r"^data = .*complex"):
        S.clipping_error([1.0 + 1j, 2.0], 0.0, 5.0, 1.0)
    with pytest.raises(ValueError, match=r"^upper = .*complex"):
        S.clipping_error([1.0, 2.0], 0.0, [5.0 + 1j], 1.0)


def test_clipping_error_names_data_not_an_internal_n():
    """The mean under add/remove needs n ≥ 2 records; the caller passed ``data``, not ``n``."""
    with pytest.raises(ValueError, match=r"^data has 1 value, which is not allowed: must hold at least 2"):
        S.clipping_error([3.0], 0.0, 5.0, 1.0, "mean", "add_remove")
    assert S.clipping_error([3.0], 0.0, 5.0, 1.0, "mean", "replace")["noise_var"] == pytest.approx(50.0)


def test_clipping_error_sizes_are_capped():
    with pytest.raises(ValueError, match=r"len\(data\) = 1000001 is not allowed: must be <= 1000000 "
                                         r"\(the cap on the values of data\)"):
        S.clipping_error(np.zeros(1_000_001), 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"len\(upper\) = 100001 is not allowed: must be <= 100000 "
                                         r"\(the cap on the upper bounds"):
        S.clipping_error([1.0], 0.0, np.ones(100_001), 1.0)


def test_clipping_error_at_extreme_data_and_epsilon_is_finite_and_exact():
    """A value of 10¹⁰⁰ clipped to [0, 1]: the bias is exactly 1 − 10¹⁰⁰ (the clipped amount itself, not the
    difference of two sums); 10¹⁰¹ is beyond the cap; a tiny ε that would overflow 2(Δ/ε)² is refused, naming ε."""
    res = S.clipping_error([1e100, 0.5], 0.0, 1.0, 1.0)
    assert res["bias2"] == (1.0 - 1e100) ** 2 and res["noise_var"] == 2.0
    with pytest.raises(ValueError, match=r"^data has an entry of magnitude 1e\+101, which is not allowed: "
                                         r"entries must lie in \[-1e\+100, 1e\+100\]"):
        S.clipping_error([1e101, 0.5], 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"^epsilon = 1e-200 .*not allowed"):
        S.clipping_error([0.5], 0.0, 1.0, 1e-200)


def test_clipping_error_bias_keeps_its_digits_next_to_a_large_sum():
    """999,999 values of 10¹⁰ and one of 10¹⁰ + 1.5 clipped at U = 10¹⁰ + 1: the bias is −0.5 exactly. Subtracting the
    unclipped sum (10¹⁶) from the clipped one, as before, lost it: a double near 10¹⁶ has a spacing of 2."""
    data = np.full(1_000_000, 1e10)
    data[-1] = 1e10 + 1.5
    assert S.clipping_error(data, 0.0, 1e10 + 1.0, 1.0)["bias2"] == 0.25
    clipped, raw = np.clip(data, 0.0, 1e10 + 1.0).sum(), data.sum()
    assert (clipped - raw) ** 2 != 0.25  # the old way


def test_variance_arguments_have_a_cap_and_a_public_total_is_allowed():
    with pytest.raises(ValueError, match=r"variance = 1e\+308 is not allowed: must be a number in \(0, 1e\+300\]"):
        S.raw_range_variance(10, 3, 1e308)
    assert S.hierarchy_range_variance(4, 2, 1.0, 0.0) == pytest.approx(2 * 2 / 4, rel=1e-15)  # r(B − r)/B
    assert S.hierarchy_range_variance(4, 2, 5e-324, 1e300) == pytest.approx(2 * 5e-324, rel=1e-15)  # total useless


def test_relation_and_choice_arguments_refuse_arrays_without_a_numpy_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for call in (lambda: S.count_sensitivity(np.array([])), lambda: S.query_sensitivity(np.array(["sum"])),
                     lambda: S.histogram_sensitivity("replace", np.array([1.0]))):
            with pytest.raises(ValueError, match="must be one of"):
                call()


def test_rounding_breakeven_scale_against_mpmath():
    """The b at which the rounded count's MSE u(1 + u²)/(1 − u²)², u = e^{−1/(2b)}, equals the raw 2b²: found by
    mpmath at 40 digits; rounding helps below it and hurts above it."""
    mpmath.mp.dps = 40

    def diff(b):
        u = mpmath.exp(-1 / (2 * b))
        return u * (1 + u**2) / (1 - u**2) ** 2 - 2 * b * b

    root = mpmath.findroot(diff, 0.187)
    assert S.rounding_breakeven_scale() == pytest.approx(float(root), rel=1e-11)
    for b in (0.05, 0.1, 0.18):
        assert S.rounded_laplace_mse(b) < 2 * b * b
    for b in (0.19, 0.25, 1.0, 10.0, 1e3):
        assert S.rounded_laplace_mse(b) > 2 * b * b
    assert math.isfinite(S.rounding_breakeven_scale())
