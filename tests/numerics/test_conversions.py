"""Tests for dpviz.conversions: closed forms, mpmath oracles, published numbers, round trips, validation."""

import math
import warnings

import mpmath as mp
import numpy as np
import pytest

from dpviz.conversions import pure_to_zcdp, rdp_delta, rdp_to_approx_dp, zcdp_delta, zcdp_to_approx_dp

mp.mp.dps = 40


def _cks_eps_mpmath(rho, delta):
    """Independent oracle: ε = min over α of the CKS bound solved for ε, minimised with mpmath at 40 digits."""
    rho, delta = mp.mpf(rho), mp.mpf(delta)

    def eps(a):
        return a * rho + (mp.log(1 / delta) - mp.log(a)) / (a - 1) + mp.log(1 - 1 / a)

    # golden-section search on ln(α − 1) over a wide bracket
    lo, hi = mp.mpf(-12), mp.mpf(30)
    g = (mp.sqrt(5) - 1) / 2
    for _ in range(300):
        c, d = hi - g * (hi - lo), lo + g * (hi - lo)
        if eps(1 + mp.e**c) < eps(1 + mp.e**d):
            hi = d
        else:
            lo = c
    return float(eps(1 + mp.e ** ((lo + hi) / 2)))


def test_pure_to_zcdp():
    assert pure_to_zcdp(0.0) == 0.0
    assert pure_to_zcdp(0.3) == pytest.approx(0.045, rel=1e-15)


@pytest.mark.parametrize("rho, delta, published", [(2.63, 1e-6, 13.8), (1.02, 1e-6, 7.85)])
def test_cks_reproduces_census_numbers(rho, delta, published):
    # US Census 2020 (redistricting data) reported ρ = 2.63 → ε = 13.8 and ρ = 1.02 → ε ≈ 7.85 at δ = 1e-6 with the
    # CKS conversion; they print 2–3 significant digits (7.856 appears as 7.85), so we check to 0.01.
    eps = zcdp_to_approx_dp(rho, delta, method="cks")
    assert abs(eps - published) <= 0.01
    # and against the independent high-precision oracle, to near machine precision
    assert eps == pytest.approx(_cks_eps_mpmath(rho, delta), rel=1e-9)


@pytest.mark.parametrize("rho", [1e-6, 1e-3, 0.05, 0.5, 5.0, 50.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 1e-2])
def test_cks_matches_mpmath_and_beats_simple(rho, delta):
    cks = zcdp_to_approx_dp(rho, delta, method="cks")
    simple = zcdp_to_approx_dp(rho, delta, method="simple")
    assert simple == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1 / delta)), rel=1e-14)
    assert cks <= simple
    assert cks == pytest.approx(max(_cks_eps_mpmath(rho, delta), 0.0), rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("rho", [0.01, 0.5, 3.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 1e-2])
@pytest.mark.parametrize("method", ["cks", "simple"])
def test_zcdp_delta_epsilon_round_trip(rho, delta, method):
    eps = zcdp_to_approx_dp(rho, delta, method=method)
    if eps > 0:
        assert zcdp_delta(rho, eps, method=method) == pytest.approx(delta, rel=1e-6)
        # just below ε the guarantee must fail
        assert zcdp_delta(rho, eps * (1 - 1e-4), method=method) > delta


def test_rdp_conversions_closed_form_gaussian():
    # ε_α = αρ for a Gaussian; classic: ε = min_α αρ + ln(1/δ)/(α−1); at the continuous optimum this is
    # ρ + 2√(ρ ln(1/δ)), so a fine grid of orders must reproduce it from above to grid accuracy.
    rho, delta = 0.1, 1e-6
    orders = np.linspace(1.01, 200, 200000)
    eps, a = rdp_to_approx_dp(orders, orders * rho, delta, method="classic")
    assert eps == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1 / delta)), rel=1e-8)
    assert eps >= rho + 2 * math.sqrt(rho * math.log(1 / delta)) - 1e-12
    # improved equals CKS for a zCDP curve (same formula), and is smaller than classic
    imp, _ = rdp_to_approx_dp(orders, orders * rho, delta, method="improved")
    assert imp < eps
    assert imp == pytest.approx(zcdp_to_approx_dp(rho, delta), rel=1e-7)


@pytest.mark.parametrize("method", ["classic", "improved"])
def test_rdp_delta_inverts_rdp_to_approx_dp(method):
    orders = np.array([1.5, 2.0, 4.0, 8.0, 16.0, 32.0])
    rdp = 0.05 * orders + 0.01
    for delta in [1e-9, 1e-6, 1e-3]:
        eps, a = rdp_to_approx_dp(orders, rdp, delta, method=method)
        d, a2 = rdp_delta(orders, rdp, eps, method=method)
        assert d == pytest.approx(delta, rel=1e-9)
        assert a2 == a


def test_rdp_delta_classic_closed_form():
    d, a = rdp_delta([3.0], [0.2], 1.0, method="classic")
    assert d == pytest.approx(math.exp(2 * (0.2 - 1.0)), rel=1e-15) and a == 3.0


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: pure_to_zcdp(-1.0), "epsilon"),
        (lambda: zcdp_to_approx_dp(-0.1, 1e-5), "rho"),
        (lambda: zcdp_to_approx_dp(0.1, 0.0), "delta"),
        (lambda: zcdp_to_approx_dp(0.1, 1.0), "delta"),
        (lambda: zcdp_to_approx_dp(0.1, 1e-5, method="nope"), "method"),
        (lambda: zcdp_delta(0.1, -1.0), "epsilon"),
        (lambda: rdp_to_approx_dp([0.5, 2.0], [0.1, 0.2], 1e-5), "orders"),
        (lambda: rdp_to_approx_dp([2.0], [0.1, 0.2], 1e-5), "orders"),
        (lambda: rdp_to_approx_dp([2.0], [-0.1], 1e-5), "rdp"),
        (lambda: rdp_to_approx_dp([2.0], [0.1], 2.0), "delta"),
        (lambda: rdp_delta([2.0], [0.1], -1.0), "epsilon"),
        (lambda: rdp_delta([2.0], [0.1], 1.0, method="x"), "method"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def _cks_delta_oracle(rho, eps, hi=60):
    """inf over α > 1 of exp((α−1)(αρ−ε))(1−1/α)^α/(α−1) by golden-section search in t = ln(α−1), 60 digits (an
    independent minimisation: it uses neither the derivative nor the library's formula)."""
    with mp.workdps(60):
        rho, eps = mp.mpf(rho), mp.mpf(eps)

        def f(t):
            a = 1 + mp.e**t
            # ln(1 − 1/α) as log1p(−1/α): (α − 1)/α rounds to 1 at 60 digits once α > 1e60 (ρ → 0)
            return (a - 1) * (a * rho - eps) + a * mp.log1p(-1 / a) - mp.log(a - 1)

        lo, hi = mp.mpf(-60), mp.mpf(hi)
        phi = (mp.sqrt(5) - 1) / 2
        for _ in range(400):
            x1, x2 = hi - phi * (hi - lo), lo + phi * (hi - lo)
            if f(x1) < f(x2):
                hi = x2
            else:
                lo = x1
        return float(min(mp.mpf(1), mp.e ** f((lo + hi) / 2)))


@pytest.mark.slow
@pytest.mark.parametrize("rho", [1e-4, 0.01, 0.5, 2.63, 20.0])
def test_zcdp_delta_cks_equals_the_infimum_over_alpha(rho):
    """CKS 2020, Corollary 13 to 1e-10 relative, for a whole ε grid at once (the vectorised path) and per point."""
    eps = np.array([0.0, 0.05, 0.5, 1.0, 3.0, 7.85, 13.8, 40.0])
    curve = zcdp_delta(rho, eps)
    expected = np.array([_cks_delta_oracle(rho, e) for e in eps])
    np.testing.assert_allclose(curve, expected, rtol=1e-10, atol=0)
    assert [zcdp_delta(rho, float(e)) for e in eps] == curve.tolist()


def test_zcdp_delta_takes_arrays_and_refuses_negative_entries():
    assert zcdp_delta(0.5, np.array([])).shape == (0,)
    np.testing.assert_array_equal(zcdp_delta(0.5, [0.1, 9.0], method="simple"),
                                  [1.0, np.exp(-(8.5**2) / 2.0)])
    with pytest.raises(ValueError, match=r"epsilon contains -1\.0.*>= 0"):
        zcdp_delta(0.5, [1.0, -1.0])


# ------------------------------------------------------------------------------------ extremes (issue 12.4, 12.6)


def _cks_eps_oracle_wide(rho, delta, lo=-80, hi=40):
    """As :func:`_cks_eps_mpmath`, on a bracket wide enough for δ → 1 (the optimum sits near α − 1 ≈ ln(1/δ))."""
    with mp.workdps(60):
        rho, delta = mp.mpf(rho), mp.mpf(delta)

        def eps(t):
            a = 1 + mp.e**t
            return a * rho + (mp.log(1 / delta) - mp.log(a)) / (a - 1) + mp.log(1 - 1 / a)

        lo, hi = mp.mpf(lo), mp.mpf(hi)
        g = (mp.sqrt(5) - 1) / 2
        for _ in range(400):
            c, d = hi - g * (hi - lo), lo + g * (hi - lo)
            if eps(c) < eps(d):
                hi = d
            else:
                lo = c
        return max(float(eps((lo + hi) / 2)), 0.0)


@pytest.mark.parametrize("rho, eps", [(25.0, 1.0), (25.0, 4.0), (0.5, 0.001), (3.0, 0.2)])
def test_cks_epsilon_is_tight_when_delta_is_close_to_one(rho, eps):
    # the grid over ln(α − 1) started at −14; for δ = 1 − 4e-11 (ρ = 25, ε = 1) the optimum is at α − 1 ≈ 4e-11 and
    # the answer was 10.00007 instead of 1: ε(δ(ε)) must come back to ε, and match the wide-bracket oracle
    d = zcdp_delta(rho, eps)
    assert 0.0 < d < 1.0
    back = zcdp_to_approx_dp(rho, d)
    assert back == pytest.approx(_cks_eps_oracle_wide(rho, d), rel=1e-6, abs=1e-9)
    # (δ near 1 holds few significant digits of 1 − δ: one ulp of δ moves ε by ~1e-4 relative here)
    assert back <= eps * (1 + 1e-3) + 1e-9


@pytest.mark.parametrize("rho", [1e-300, 5e-324, 0.5, 1e300])
def test_cks_at_extreme_parameters_is_warning_free_and_right(rho):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e_tiny = zcdp_to_approx_dp(rho, 5e-324)
        d0 = zcdp_delta(rho, 0.0)
        d_big = zcdp_delta(rho, 1e308)
        simple = zcdp_to_approx_dp(rho, 5e-324, method="simple")
    # at a subnormal δ, ln(1/δ) = 744.44 (1/δ itself overflows): simple = ρ + 2√(744.44 ρ), CKS never above it
    assert simple == pytest.approx(rho + 2 * math.sqrt(rho * 744.4400719213812), rel=1e-12)
    assert 0.0 <= e_tiny <= simple
    if 1e-10 < rho < 1e10:
        assert e_tiny == pytest.approx(_cks_eps_oracle_wide(rho, 5e-324, lo=-20, hi=60), rel=1e-8)
    assert d_big == 0.0  # e^{(α−1)(αρ−ε)} → 0 for ε = 1e308 at α − 1 of order 1
    assert 0.0 <= d0 <= 1.0
    if rho == 0.5:
        assert d0 == pytest.approx(_cks_delta_oracle(rho, 0.0), rel=1e-10)


def test_zcdp_delta_at_subnormal_rho_is_warning_free():
    # issue 12.6: zcdp_delta(5e-324, ...) warned "invalid value" ((ε + 2)/ρ overflowed inside the bracket)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = zcdp_delta(5e-324, np.array([0.0, 1e-300, 1.0]))
    # ρ → 0: at ε = 0 the infimum sits at α ≈ 1/√(2ρ) ≈ 3e161 and is ≈ e^{−1/2}√(2ρ) ≈ 1.9e-162 (oracle on a
    # bracket reaching t = ln(α − 1) = 372); at ε = 1 it is e^{−(α−1)}·… → 0, below the smallest double
    oracle = _cks_delta_oracle(5e-324, 0.0, hi=800)
    assert 1e-163 < oracle < 1e-161
    assert out[0] == pytest.approx(oracle, rel=1e-8) and out[1] == pytest.approx(oracle, rel=1e-8)
    assert out[2] == 0.0


def test_rdp_conversions_at_a_subnormal_delta():
    # ln(1/δ) = 744.44 for δ = 5e-324 (1/δ overflows): classic ε = ε_α + 744.44/(α − 1) at the single order
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eps, a = rdp_to_approx_dp([2.0], [0.5], 5e-324, method="classic")
    assert eps == pytest.approx(0.5 + 744.4400719213812, rel=1e-12) and a == 2.0


@pytest.mark.parametrize("call", [
    lambda: rdp_to_approx_dp([2.0, 4.0], [0.5 + 1j, 1.0], 1e-5),
    lambda: rdp_to_approx_dp(np.array([2.0 + 0j, 4.0]), [0.5, 1.0], 1e-5),
    lambda: rdp_delta([2.0, 4.0], np.array([1j, 1.0]), 1.0),
    lambda: zcdp_delta(0.5, [1.0 + 1j]),
    lambda: zcdp_delta(0.5, 1.0 + 1j),
])
def test_complex_input_is_refused_not_cast(call):
    # issue 12.6: rdp_to_approx_dp dropped the imaginary part with a ComplexWarning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="complex|epsilon"):
            call()


@pytest.mark.parametrize("method", [np.array([]), ["cks"], None, 1.0])
def test_method_of_a_wrong_type_is_refused_with_its_name(method):
    for call in (lambda: zcdp_to_approx_dp(0.5, 1e-5, method=method), lambda: zcdp_delta(0.5, 1.0, method=method),
                 lambda: rdp_to_approx_dp([2.0], [0.5], 1e-5, method=method),
                 lambda: rdp_delta([2.0], [0.5], 1.0, method=method)):
        with pytest.raises(ValueError, match="method"):
            call()


def test_simple_zcdp_delta_at_a_huge_rho_warns_of_nothing():
    # (ε − ρ)² and 4ρ both overflowed at ρ = 1e308: inf/inf raised "invalid value" (a warning escaped); δ is 1 there
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert zcdp_delta(1e308, [0.0, 17.0], method="simple").tolist() == [1.0, 1.0]
        assert zcdp_delta(1e300, 1e308, method="simple") == 0.0  # ((ε − ρ)/(2√ρ))² ≈ 2.5e15: δ underflows to 0


def test_a_ragged_epsilon_is_refused_by_name():
    # np.ndim raised numpy's own "inhomogeneous shape" message before the check could name the parameter
    with pytest.raises(ValueError, match="epsilon is ragged"):
        zcdp_delta(0.5, [[1.0], [1.0, 2.0]])
