"""dpviz._roots: Brent's root finder and bounded minimiser against closed forms, and side by side with scipy's."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, special

from dpviz._roots import brentq, minimize_bounded

ROOTS = [  # (f, bracket, exact root)
    (lambda x: x * x - 2.0, (0.0, 2.0), math.sqrt(2.0)),
    (lambda x: math.exp(x) - 10.0, (-5.0, 5.0), math.log(10.0)),
    (lambda x: math.cos(x) - x, (0.0, 1.0), 0.7390851332151607),  # the Dottie number
    (lambda x: x ** 3, (-1.0, 2.0), 0.0),  # a triple root: interpolation stalls, bisection must carry it
    (lambda x: math.atan(1e6 * (x - 0.3)), (-1.0, 1.0), 0.3),  # a near step
    (lambda x: special.ndtr(x) - 1e-10, (-10.0, 0.0), float(special.ndtri(1e-10))),
    (lambda x: math.log(x) + 700.0, (1e-305, 1e-302), math.exp(-700.0)),  # a tiny root: the relative tolerance
]


@pytest.mark.parametrize("f, bracket, root", ROOTS)
def test_brentq_finds_the_exact_root(f, bracket, root):
    xtol = 1e-300 if root else 1e-15  # a root at 0 has no relative scale
    got = brentq(f, *bracket, xtol=xtol, rtol=4 * 2.0**-52)
    assert got == pytest.approx(root, rel=1e-14, abs=1e-300 if root else 1e-15)
    theirs = optimize.brentq(f, *bracket, xtol=xtol, rtol=4 * 2.0**-52, maxiter=500)
    assert abs(got - root) <= max(4 * abs(theirs - root), 8 * 2.0**-52 * abs(root), 1e-15 if not root else 0.0)


def test_brentq_respects_a_loose_tolerance_and_counts_few_evaluations():
    calls = []

    def f(x):
        calls.append(x)
        return x * x - 2.0

    got = brentq(f, 0.0, 2.0, xtol=1e-3, rtol=0.0)
    assert abs(got - math.sqrt(2.0)) <= 1e-3
    assert len(calls) < 12  # bisection alone would need 11 steps for 1e-3; Brent needs fewer


def test_brentq_refuses_a_missing_bracket_and_nan():
    with pytest.raises(ValueError, match="same sign"):
        brentq(lambda x: x * x + 1.0, -1.0, 1.0)
    with pytest.raises(ValueError, match="NaN"):
        brentq(lambda x: float("nan"), -1.0, 1.0)
    assert brentq(lambda x: x - 1.0, 1.0, 2.0) == 1.0  # an exact zero at an end
    with pytest.raises(RuntimeError, match="no convergence"):
        brentq(lambda x: x ** 3 - 0.123, 0.0, 1.0, xtol=0.0, rtol=0.0, maxiter=3)


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e6, 1e6), st.floats(1e-3, 1e3), st.floats(0.01, 0.99))
def test_brentq_on_shifted_cubics(shift, scale, where):
    """Any sign-changing bracket of a monotone cubic: the root within the requested tolerance."""
    lo, hi = shift - where * scale, shift + (1 - where) * scale
    got = brentq(lambda x: (x - shift) ** 3 + (x - shift), lo, hi, xtol=1e-12, rtol=1e-15)
    assert abs(got - shift) <= 1e-12 + 1e-15 * abs(shift) + 4 * 2.0**-52 * abs(shift)


MINIMA = [  # (f, bounds, exact minimiser)
    (lambda x: (x - 1.3) ** 2 + 0.5, (0.0, 5.0), 1.3),
    (lambda x: x * math.log(x), (1e-9, 1.0), math.exp(-1.0)),
    (lambda x: math.cosh(x - 2.0), (-10.0, 10.0), 2.0),
    (lambda x: abs(x - 0.25), (0.0, 1.0), 0.25),  # not smooth: golden section must carry it
    (lambda x: x, (3.0, 4.0), 3.0),  # at an end: approached, never evaluated there
]


@pytest.mark.parametrize("f, bounds, xmin", MINIMA)
def test_minimize_bounded_finds_the_minimum(f, bounds, xmin):
    res = minimize_bounded(f, *bounds, xatol=1e-10)
    assert res.converged
    assert abs(res.x - xmin) <= 1e-9 + 3 * 2.0**-26 * abs(xmin)  # √ε·|x| is part of the tolerance
    assert res.fun == f(res.x)
    theirs = optimize.minimize_scalar(f, bounds=bounds, method="bounded", options={"xatol": 1e-10})
    assert res.fun <= theirs.fun + 1e-12 * max(1.0, abs(theirs.fun))


def test_minimize_bounded_uses_parabolas_on_smooth_functions():
    """A quadratic is found in a handful of evaluations (golden section alone would need ~50 for 1e-10)."""
    res = minimize_bounded(lambda x: (x - 0.7) ** 2, 0.0, 10.0, xatol=1e-10)
    assert res.nfev < 20 and abs(res.x - 0.7) < 1e-8


def test_minimize_bounded_refuses_an_empty_interval():
    with pytest.raises(ValueError, match="lo < hi"):
        minimize_bounded(lambda x: x, 1.0, 1.0)
    res = minimize_bounded(lambda x: np.sin(x), 0.0, 10.0, maxiter=2)
    assert not res.converged
