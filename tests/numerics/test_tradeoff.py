"""dpviz.tradeoff: the region (ε, δ)-DP allows in the hypothesis-testing view, against independent oracles
(the formula evaluated point by point in mpmath; the Gaussian's closed-form trade-off Φ(Φ⁻¹(1 − α) − μ) of Dong,
Roth & Su 2022, Prop. 2.3; the Balle–Wang profile, 2018 Thm 8)."""

import math

import mpmath as mp
import numpy as np
import pytest

from dpviz.tradeoff import dp_region_kink, dp_region_lower_bound

mp.mp.dps = 30


def f_oracle(a, eps, d):
    a, eps, d = mp.mpf(a), mp.mpf(eps), mp.mpf(d)
    return max(mp.mpf(0), 1 - d - mp.e ** eps * a, mp.e ** (-eps) * (1 - d - a))


@pytest.mark.parametrize("eps,d", [(0.0, 0.0), (0.7, 0.01), (2.0, 1e-6), (5.0, 0.3), (1e-9, 0.5)])
def test_lower_bound_is_the_kov_formula(eps, d):
    a = np.linspace(0, 1, 101)
    got = dp_region_lower_bound(a, eps, d)
    want = [float(f_oracle(x, eps, d)) for x in a]
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-16)
    assert dp_region_lower_bound(0.3, eps, d) == pytest.approx(float(f_oracle(0.3, eps, d)), rel=1e-14, abs=1e-16)


@pytest.mark.parametrize("eps,d", [(0.5, 0.0), (1.0, 1e-3), (3.0, 0.1)])
def test_the_boundary_is_symmetric_and_its_kink_is_on_the_diagonal(eps, d):
    # f is its own inverse on [0, 1 − δ] (trade-off functions of symmetric pairs; DRS 2022, Prop. 2.5)
    a = np.linspace(0, 1 - d, 57)
    np.testing.assert_allclose(dp_region_lower_bound(dp_region_lower_bound(a, eps, d), eps, d), a, atol=1e-12)
    k = dp_region_kink(eps, d)
    assert k == pytest.approx(float((1 - mp.mpf(d)) / (1 + mp.e ** mp.mpf(eps))), rel=1e-14)
    # both sloped pieces meet there, on β = α
    assert 1 - d - math.exp(eps) * k == pytest.approx(math.exp(-eps) * (1 - d - k), rel=1e-12)
    assert dp_region_lower_bound(k, eps, d) == pytest.approx(k, rel=1e-12)


@pytest.mark.parametrize("mu,eps", [(0.5, 0.2), (1.0, 1.0), (2.0, 0.5), (3.0, 4.0)])
def test_the_gaussian_trade_off_touches_the_boundary_of_its_exact_profile(mu, eps):
    # a Gaussian with μ = Δ/σ is (ε, δ(ε))-DP with δ(ε) exact: its trade-off curve Φ(Φ⁻¹(1 − α) − μ) lies on or
    # above f_{ε,δ(ε)} and touches it (else a smaller δ would do)
    m = mp.mpf(mu)
    d = float(mp.ncdf(m / 2 - eps / m) - mp.e ** eps * mp.ncdf(-m / 2 - eps / m))
    a = np.linspace(0, 1, 401)[1:-1]
    t = np.array([float(mp.ncdf(-mp.sqrt(2) * mp.erfinv(2 * mp.mpf(x) - 1) - m)) for x in a])
    gap = t - dp_region_lower_bound(a, eps, d)
    assert gap.min() >= -1e-12
    assert gap.min() == pytest.approx(0.0, abs=2e-3)


def test_huge_epsilon_does_not_overflow():
    got = dp_region_lower_bound([0.0, 1e-300, 0.5, 1.0], 800.0, 0.01)
    assert got[0] == 0.99 and got[1] == 0.0 and got[3] == 0.0
    assert got[2] == 0.0  # e^{−800}·0.49 underflows, as it should
    got = dp_region_lower_bound(0.5, 720.0, 0.01)  # e^{−720} is subnormal, but not 0
    assert got == pytest.approx(math.exp(-720.0) * 0.49, rel=1e-3) and got > 0


@pytest.mark.parametrize("args,name", [
    (([-0.1], 1.0, 0.0), "alpha"),
    ((1.5, 1.0, 0.0), "alpha"),
    (([0.5], -1.0, 0.0), "epsilon"),
    (([0.5], float("nan"), 0.0), "epsilon"),
    (([0.5], 1.0, 1.5), "delta"),
])
def test_bad_arguments_name_the_parameter(args, name):
    with pytest.raises(ValueError, match=name):
        dp_region_lower_bound(*args)
    if name != "alpha":
        with pytest.raises(ValueError, match=name):
            dp_region_kink(*args[1:])
