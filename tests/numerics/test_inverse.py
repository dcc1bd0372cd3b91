"""dpviz._inverse._bisect_doubles: the smallest feasible double, with and without its aids (a guess, a helper
value for regula falsi), against a brute-force oracle, and the aided and plain searches bit for bit alike."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from dpviz._inverse import _bisect_doubles
from dpviz.mechanisms.gaussian import _gaussian_delta_sigma


def _oracle(feasible, x: float, ulps: int = 64) -> float:
    """Brute force: walk np.nextafter steps from ``x`` (which must be within ``ulps`` of the switch) to the double
    that is feasible and whose predecessor is not, checking every double on the way."""
    f = lambda v: bool(np.asarray(feasible(np.array([v])))[0])  # noqa: E731
    for _ in range(ulps):
        if f(x):
            break
        x = float(np.nextafter(x, math.inf))
    assert f(x)
    for _ in range(ulps):
        prev = float(np.nextafter(x, 0.0))
        if prev <= 0.0 or not f(prev):
            return x
        x = prev
    raise AssertionError("no switch within the window")


PREDICATES = [  # (name, feasible as a function of x, helper g(x) > 0 below the switch, approximate switch)
    ("x >= t", lambda x: x >= 0.1, lambda x: 0.1 - x, 0.1),
    ("x^2 >= 2", lambda x: x * x >= 2.0, lambda x: 2.0 - x * x, math.sqrt(2.0)),
    ("exp(-x) <= 1e-300", lambda x: np.exp(-x) <= 1e-300, lambda x: -x + 300 * math.log(10.0), 300 * math.log(10)),
    ("tiny: x >= 7e-310", lambda x: x >= 7e-310, lambda x: 7e-310 - x, 7e-310),
    ("huge: log x >= 700", lambda x: np.log(x) >= 700.0, lambda x: 700.0 - np.log(x), math.exp(700.0)),
    ("ndtr(-x) <= 1e-12", lambda x: special.ndtr(-x) <= 1e-12,
     lambda x: np.log(special.ndtr(-x)) - math.log(1e-12), 7.034),
]


def _pair(feasible, helper):
    def both(x):
        with np.errstate(all="ignore"):
            return feasible(x), helper(x)
    return both


@pytest.mark.parametrize("name, feasible, helper, approx", PREDICATES, ids=[p[0] for p in PREDICATES])
def test_every_path_finds_the_brute_force_switch(name, feasible, helper, approx):
    def quiet(x):
        with np.errstate(all="ignore"):
            return feasible(x)

    plain = float(_bisect_doubles(quiet, (1,))[0])
    assert plain == pytest.approx(approx, rel=1e-3)
    assert plain == _oracle(quiet, plain)
    for guess in (None, approx, 3.0 * approx, approx / 7.0, 1e-200, 1e200, math.nan, math.inf, -1.0):
        assert float(_bisect_doubles(quiet, (1,), guess=guess)[0]) == plain, guess
        assert float(_bisect_doubles(_pair(feasible, helper), (1,), guess=guess, gap=True)[0]) == plain, guess


def test_the_bracket_ends_are_kept():
    # nothing feasible below hi: hi itself; the answer is in (lo, hi]
    never = lambda x: x > 1e300  # noqa: E731
    for kw in ({}, {"guess": 2.0}, {"guess": 2.0, "gap": True}):
        f = (lambda x: (never(x), np.full(x.shape, 1.0))) if kw.get("gap") else never
        assert float(_bisect_doubles(f, (1,), 0.0, 5.0, **kw)[0]) == 5.0
    f = lambda x: x >= 0.0  # noqa: E731  (everything feasible: the smallest double above lo)
    assert float(_bisect_doubles(f, (1,), 1.0, 2.0, guess=1.5)[0]) == float(np.nextafter(1.0, 2.0))


def _gaussian_case(e, d, s):
    e, d, s = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (e, d, s))
    e, d, s = np.broadcast_arrays(e, d, s)
    calls = {"n": 0}

    def feasible(sig):  # the predicate of analytic_gaussian_sigma
        calls["n"] += 1
        return _gaussian_delta_sigma(e, sig, s) <= d

    def with_gap(sig):
        calls["n"] += 1
        dl = _gaussian_delta_sigma(e, sig, s)
        with np.errstate(divide="ignore"):
            return dl <= d, np.log(dl) - np.log(d)

    def guess():  # Φ-tail approximation of Balle & Wang's condition: μ²/2 − zμ = ε, z = Φ⁻¹(δ)
        z = special.ndtri(d)
        return s * (np.sqrt(z * z + 2.0 * e) - z) / (2.0 * e)

    def classic():  # the textbook σ = Δ√(2 ln(1.25/δ))/ε
        return s * np.sqrt(2.0 * (math.log(1.25) - np.log(d))) / e

    return e.shape, feasible, with_gap, guess, classic, calls


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(log_e=st.floats(-8.0, 5.0), log_d=st.floats(-700.0, -0.01), log_s=st.floats(-30.0, 30.0),
       zero_eps=st.booleans())
def test_aided_and_plain_searches_agree_bit_for_bit(log_e, log_d, log_s, zero_eps):
    e = 0.0 if zero_eps else math.exp(log_e)
    shape, feasible, with_gap, guess, classic, _ = _gaussian_case(e, math.exp(log_d), math.exp(log_s))
    plain = _bisect_doubles(feasible, shape)
    for got in (_bisect_doubles(with_gap, shape, gap=True, guess=guess),
                _bisect_doubles(with_gap, shape, gap=True, guess=classic),
                _bisect_doubles(with_gap, shape, gap=True),
                _bisect_doubles(feasible, shape, guess=guess)):
        np.testing.assert_array_equal(got, plain)


def test_aided_search_agrees_where_rounding_makes_the_predicate_non_monotone():
    # δ(ε; Δ/σ) switches back and forth within ~3 ulps of its root here (found by scanning 401 doubles): the
    # plain bisection's pick among the switches is reproduced
    for e, d, s in [(1.692396824218796, 1.4871951088417928e-16, 7.587640751040892),
                    (1.0692153560920536, 2.5350082263781193e-18, 0.021849346914626644),
                    (1.039455041652967, 2.290738339544301e-11, 27.859624601584265),
                    (0.05855543753939179, 2.4184839237265316e-14, 0.9436424537727904)]:
        shape, feasible, with_gap, guess, classic, _ = _gaussian_case(e, d, s)
        plain = _bisect_doubles(feasible, shape)
        np.testing.assert_array_equal(_bisect_doubles(with_gap, shape, gap=True, guess=guess), plain)
        np.testing.assert_array_equal(_bisect_doubles(with_gap, shape, gap=True, guess=classic), plain)


def test_vectorised_aided_search_agrees_and_is_cheaper():
    rng = np.random.default_rng(7)
    e = np.exp(rng.uniform(-6.0, 4.0, 500))
    d = np.exp(rng.uniform(-60.0, -0.1, 500))
    s = np.exp(rng.uniform(-5.0, 5.0, 500))
    e[:5] = 0.0  # no finite guess there: those entries start from the whole bracket
    shape, feasible, with_gap, guess, classic, calls = _gaussian_case(e, d, s)
    plain = _bisect_doubles(feasible, shape)
    n_plain = calls["n"]
    calls["n"] = 0
    np.testing.assert_array_equal(_bisect_doubles(with_gap, shape, gap=True, guess=guess), plain)
    assert calls["n"] < n_plain


@pytest.mark.parametrize("e, d", [(1.0, 1e-5), (0.5, 1e-6), (0.1, 1e-10), (3.0, 1e-5), (10.0, 1e-3)])
def test_guess_and_helper_cut_the_evaluations(e, d):
    shape, feasible, with_gap, guess, classic, calls = _gaussian_case(e, d, 1.0)
    plain = _bisect_doubles(feasible, shape)
    assert calls["n"] >= 60  # 64 halvings of [0, inf] (a few end early)
    calls["n"] = 0
    np.testing.assert_array_equal(_bisect_doubles(with_gap, shape, gap=True, guess=guess), plain)
    assert calls["n"] <= 20
    calls["n"] = 0
    np.testing.assert_array_equal(_bisect_doubles(with_gap, shape, gap=True, guess=classic), plain)
    assert calls["n"] <= 22


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(log_mu=st.floats(-6.0, 1.5), log_d=st.floats(-250.0, -0.05))
def test_inverse_profile_with_a_fast_scalar_profile_is_the_brute_force_switch_of_the_exact_one(log_mu, log_d):
    """``fast`` only guides the search: the answer is the exact profile's smallest feasible double (brute-force
    oracle), whether ``fast`` is the scalar Balle–Wang kernel, or off by a factor (the search must fall back)."""
    from dpviz._inverse import _inverse_profile
    from dpviz.mechanisms.gaussian import _gaussian_delta, _gaussian_delta1, _zcdp_bracket

    mu, d = 10.0**log_mu, 10.0**log_d
    profile = lambda e: _gaussian_delta(e, mu)  # noqa: E731
    if profile(np.array([0.0]))[0] <= d:
        return
    hi = _zcdp_bracket(mu, d, profile)
    plain = _inverse_profile(profile, d, 0.0, hi)
    guided = _inverse_profile(profile, d, 0.0, hi, fast=lambda e: _gaussian_delta1(e, mu))
    misled = _inverse_profile(profile, d, 0.0, hi, fast=lambda e: _gaussian_delta1(1.01 * e, mu))
    want = _oracle(lambda x: profile(x) <= d, plain)
    assert guided == want and misled == want


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(log_e=st.floats(-8.0, 3.0), log_d=st.floats(-300.0, -0.01), zero_eps=st.booleans())
def test_gaussian_mu_equals_the_plain_bisection_bit_for_bit(log_e, log_d, zero_eps):
    """gaussian_mu's search is started from the closed-form guess and steered by ln δ: it must return the double the
    unaided 64-halving bisection returns (the largest μ with δ(ε; μ) ≤ δ)."""
    from dpviz.mechanisms.gaussian import gaussian_mu

    e, d = (0.0 if zero_eps else 10.0**log_e), 10.0**log_d
    plain = _bisect_doubles(lambda m: _gaussian_delta_sigma(np.array(e), 1.0, m) > d, (), 0.0, math.inf)
    assert gaussian_mu(e, d) == float(np.nextafter(plain, 0.0))
