"""Adversarial-input sweep of :mod:`dpviz.mechanisms` (issue 12, findings 6 and 7).

Every public callable of ``dpviz.mechanisms.__all__`` gets one valid baseline call; :func:`tests._adversarial.sweep`
then replaces each positional argument in turn by each of 16 hostile values (0, −1, −0.0, NaN, ±inf, 1e308, 5e-324,
10**400, True, None, "1", 1+1j, [], an empty array, a ragged list) with warnings raised as errors. Only a
ValueError/TypeError with a message, or a NaN-free result, passes. Classes are swept through their constructor and
through every public method (bound to a valid instance). A second test makes a forgotten baseline a failure.

The extreme-value tests at the end check that the answers at 5e-324 / 1e308 are *right* (closed forms or limits
worked out by hand below), not merely warning-free, and that every size is capped by a ValueError naming the cap.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _adversarial import call_outcome, missing_baselines, register, sweep

from dpviz import mechanisms as M

# ------------------------------------------------------------------------------------------------ baselines


def _named(fn, name):
    """Give a wrapper a readable ``__name__`` for the sweep's messages."""
    fn.__name__ = name
    return fn


def _method_cases():
    """(label, bound method, args): every public method of every mechanism, on a valid instance."""
    mechs = {
        "Laplace": M.Laplace(1.3, 1.0),
        "Gaussian": M.Gaussian(1.0, 1.0),
        "RandomizedResponse": M.RandomizedResponse(1.2),
        "DiscreteLaplace": M.DiscreteLaplace(1.5, 2),
        "DiscreteGaussian": M.DiscreteGaussian(1.5, 2),
        "TruncatedDiscreteLaplace": M.TruncatedDiscreteLaplace(0.7, 1e-4),
    }
    cases = []
    for name, mech in mechs.items():
        # ``epsilon``/``delta`` of RR and TDLap are callable floats: wrap them so the sweep has a __name__
        cases.append((f"{name}.delta", _named(lambda e, m=mech: m.delta(e), "delta"), (0.5,)))
        cases.append((f"{name}.epsilon", _named(lambda d, m=mech: m.epsilon(d), "epsilon"), (1e-3,)))
        value = 1 if mech._integer_valued else 0.5
        cases.append((f"{name}.release", mech.release, (value, 0)))
        cases.append((f"{name}.sample_noise", mech.sample_noise, (5, 0)))
        cases.append((f"{name}.tradeoff", mech.tradeoff, (0.25,)))
        cases.append((f"{name}.privacy_loss", mech.privacy_loss, ()))
        if hasattr(mech, "pdf"):
            cases.append((f"{name}.pdf", mech.pdf, (0.3, 0.0)))
        if hasattr(mech, "pmf"):
            cases.append((f"{name}.pmf", mech.pmf, (1, 0)))
        pld = mech.privacy_loss()
        cases.append((f"{name}.privacy_loss().pdf", pld.pdf, (0.2,)))
        cases.append((f"{name}.privacy_loss().sf", pld.sf, (0.2,)))
        cases.append((f"{name}.privacy_loss().hockey_stick", pld.hockey_stick, (0.2,)))
    tdl = mechs["TruncatedDiscreteLaplace"]
    cases.append(("TruncatedDiscreteLaplace.sample", tdl.sample, (5, 0)))
    return cases


def _mechanism_properties(cls):
    """Construct, then read every public property: a constructor that accepts a value must not fail later."""

    def build(*args):
        m = cls(*args)
        out = [m.pure_epsilon, m.delta(0.5), m.epsilon(1e-3), m.tradeoff(0.5), m.privacy_loss()]
        for prop in ("mu", "rho", "kappa", "keep_probability"):
            if hasattr(m, prop):
                out.append(getattr(m, prop))
        return out

    return _named(build, cls.__name__)


BASELINES = {
    "Laplace": ((1.0, 1.0), {}),
    "Gaussian": ((1.0, 1.0), {}),
    "RandomizedResponse": ((1.0,), {}),
    "DiscreteLaplace": ((1.0, 1), {}),
    "DiscreteGaussian": ((1.0, 1), {}),
    "TruncatedDiscreteLaplace": ((1.0, 1e-5), {}),
    "PrivacyLossDistribution": (((0.5, -0.5), (0.6, 0.4), None, None, (0.0, 0.0), 0.0, 0.0, "atoms"), {}),
    "exponential_mechanism": (([0.0, 1.0, 2.0], 1.0, 1.0, 0), {}),
    "exponential_mechanism_probabilities": (([0.0, 1.0, 2.0], 1.0, 1.0), {}),
    "classic_gaussian_sigma": ((0.5, 1e-5, 1.0), {}),
    "gaussian_delta": ((1.0, 1.0), {}),
    "gaussian_epsilon": ((1e-5, 1.0), {}),
    "gaussian_epsilon_many": ((1.0, [1e-5, 1e-3]), {}),
    "gaussian_mu": ((1.0, 1e-5), {}),
    "classic_gaussian_epsilon": ((1.0, 1e-5, 1.0), {}),
    "classic_gaussian_delta": ((0.5, 9.7, 1.0), {}),
    "analytic_gaussian_sigma": ((1.0, 1e-5, 1.0), {}),
    "bernoulli_exp_neg": (([0.5, 2.5], 0), {}),
    "sample_discrete_laplace": ((2.0, 5, 0), {}),
    "sample_discrete_gaussian": ((2.0, 5, 0), {}),
    "tdlap_kappa": ((1.0, 1e-5), {}),
}

_CLASSES = ("Laplace", "Gaussian", "RandomizedResponse", "DiscreteLaplace", "DiscreteGaussian",
            "TruncatedDiscreteLaplace")


def test_every_public_callable_has_a_baseline():
    assert missing_baselines(M, BASELINES) == []


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_sweep_public_function(name):
    args, kwargs = BASELINES[name]
    assert sweep(getattr(M, name), args, kwargs) == []


@pytest.mark.parametrize("name", _CLASSES)
def test_sweep_constructor_then_properties(name):
    args, kwargs = BASELINES[name]
    assert sweep(_mechanism_properties(getattr(M, name)), args, kwargs) == []


_METHODS = _method_cases()


@pytest.mark.parametrize("label,fn,args", _METHODS, ids=[c[0] for c in _METHODS])
def test_sweep_public_method(label, fn, args):
    assert sweep(fn, args, {}) == []


def test_sweep_catches_a_bad_outcome():
    """The harness must be able to fail: a function that returns NaN or warns is reported."""

    def returns_nan(x):
        return float("nan")

    def warns(x):
        return np.log(np.asarray(x, dtype=float) * 0.0)  # divide-by-zero RuntimeWarning

    assert call_outcome(returns_nan, (1.0,), {}) == "returned NaN"
    assert "RuntimeWarning" in call_outcome(warns, (1.0,), {})
    assert sweep(returns_nan, (1.0,), {})  # non-empty


# ------------------------------------------------------------------------------------------------ extreme values


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*args, **kwargs)


def test_gaussian_delta_tiny_mu():
    # μ = 5e-324: the two laws are identical to double precision; δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) is
    # 0 for every ε > 0 (ε/μ = +∞), and δ(0) = 2Φ(μ/2) − 1 ≈ μ/√(2π) ≈ 2e-324 (a subnormal or 0).
    assert _quiet(M.gaussian_delta, 1.0, 5e-324)[0] == 0.0
    d0 = _quiet(M.gaussian_delta, 0.0, 5e-324)[0]
    assert 0.0 <= d0 <= 1e-323


def test_gaussian_delta_huge_mu():
    # μ = 1e308: δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) = 1 − 0 for any moderate ε.
    assert _quiet(M.gaussian_delta, 1.0, 1e308)[0] == 1.0
    assert _quiet(M.gaussian_delta, 1e308, 1.0)[0] == 0.0  # ε = 1e308: e^{−x₁²/2} = 0


def test_sample_discrete_gaussian_tiny_sigma_is_zero():
    # σ = 5e-324: P[Y = k] ∝ e^{−k²/(2σ²)} puts all mass on 0.
    out = _quiet(M.sample_discrete_gaussian, 5e-324, 50, 0)
    assert out.tolist() == [0] * 50


def test_sample_discrete_laplace_tiny_scale_is_zero():
    # scale = 5e-324: P[Y = k] ∝ e^{−|k|/scale} is a point mass at 0.
    assert _quiet(M.sample_discrete_laplace, 5e-324, 20, 0).tolist() == [0] * 20


def test_exponential_mechanism_huge_scores():
    # Utilities ±1e308: the spread overflows; the top score gets all the mass.
    p = _quiet(M.exponential_mechanism_probabilities, [-1e308, 1e308], 1.0)
    assert p.tolist() == [0.0, 1.0]
    p = _quiet(M.exponential_mechanism_probabilities, [0.0, 0.0], 5e-324)
    assert p.tolist() == [0.5, 0.5]


def test_classic_gaussian_sigma_out_of_range_is_a_value_error():
    # σ = Δ√(2 ln(1.25/δ))/ε with ε = 5e-324 is ≈ 1e324: beyond the double range, refused with the range named.
    with pytest.raises(ValueError, match="epsilon"):
        _quiet(M.classic_gaussian_sigma, 5e-324, 1e-5)
    # δ = 5e-324: ln(1.25/δ) = ln 1.25 + 744.44; σ = √(2·744.66)/0.5 = 77.18 (by hand)
    assert _quiet(M.classic_gaussian_sigma, 0.5, 5e-324) == pytest.approx(
        2 * math.sqrt(2 * (math.log(1.25) + 744.4400719213812)))


def test_tdlap_kappa_extremes():
    # κ = 1 + ⌈ln(1/δ)/ε⌉: δ = 5e-324 gives ln(1/δ) = 744.44..., so κ = 746 at ε = 1.
    assert _quiet(M.tdlap_kappa, 1.0, 5e-324) == 746
    assert _quiet(M.tdlap_kappa, 1e308, 1e-5) == 2
    with pytest.raises(ValueError, match="epsilon"):  # κ ≈ 1e324: no integer support of that size
        _quiet(M.tdlap_kappa, 5e-324, 1e-5)


def test_privacy_loss_hockey_stick_huge_epsilon():
    # Atoms ±0.5: E[(1 − e^{ε−L})_+] = 0 for ε ≥ 0.5, also at ε = 1e308 (no OverflowError).
    pld = M.Laplace(2.0).privacy_loss()
    assert _quiet(pld.hockey_stick, 1e308).tolist() == [0.0]
    # at ε = 0: ½(1 − e^{−0.5}) from the atom +0.5 (the −0.5 atom contributes nothing)
    assert _quiet(pld.hockey_stick, 0.0)[0] == pytest.approx(0.5 * (1 - math.exp(-0.5)))


def test_pdf_extreme_points():
    # Gaussian density at y = 1e308: exp(−y²/2) = 0 exactly, no overflow warning.
    assert float(_quiet(M.Gaussian(1.0).pdf, 1e308)) == 0.0
    assert float(_quiet(M.Laplace(1.0).pdf, -1e308, 1e308)) == 0.0  # |y − value| overflows to inf: density 0
    # at the centre the density is 1/(σ√(2π)) resp. 1/(2b), also for a subnormal-free tiny scale
    assert float(_quiet(M.Gaussian(1e-300).pdf, 0.0)) == pytest.approx(1 / (1e-300 * math.sqrt(2 * math.pi)))
    assert float(_quiet(M.Laplace(1e-300).pdf, 0.0)) == pytest.approx(0.5e300)


@pytest.mark.parametrize("call", [
    lambda n: M.Laplace(1.0).sample_noise(n),
    lambda n: M.DiscreteGaussian(1.0).sample_noise(n),
    lambda n: M.sample_discrete_laplace(1.0, n),
    lambda n: M.sample_discrete_gaussian(1.0, n),
    lambda n: M.TruncatedDiscreteLaplace(1.0, 1e-5).sample(n),
    lambda n: M.Laplace(1.0).sample_noise((n, 2)),
])
def test_sample_sizes_are_capped(call):
    cap = M.MAX_SAMPLES
    with pytest.raises(ValueError, match=f"{cap}"):
        call(cap + 1)
    with pytest.raises(ValueError, match="size"):
        call(10**400)


def test_discrete_sensitivity_is_capped():
    with pytest.raises(ValueError, match="sensitivity"):
        M.DiscreteLaplace(1.0, 10**400)
    with pytest.raises(ValueError, match="sensitivity"):
        M.DiscreteGaussian(1.0, 10**400)


def test_complex_input_is_refused_not_cast():
    for call in (lambda: M.exponential_mechanism([1 + 1j, 2.0], 1.0),
                 lambda: M.Laplace(1.0).delta(np.array([1 + 1j])),
                 lambda: M.PrivacyLossDistribution((0.5, -0.5), (0.5, 0.5)).hockey_stick(np.array([1j])),
                 lambda: M.bernoulli_exp_neg([1j])):
        with pytest.raises(ValueError, match="complex"):
            _quiet(call)


def test_randomized_response_tradeoff_at_huge_epsilon():
    # f_{ε,0}(α) = max(0, 1 − e^ε α, e^{−ε}(1 − α)) (Kairouz et al. 2015): at ε = 800 it is 1 at α = 0 and 0 for
    # every α ≥ 5e-324 (e^{800}·5e-324 ≫ 1). 1 − p rounds to 0 here; the flip mass must not be lost.
    a = np.array([0.0, 5e-324, 0.3, 1.0])
    assert _quiet(M.RandomizedResponse(800.0).tradeoff, a).tolist() == [1.0, 0.0, 0.0, 0.0]
    # ε = 50: at α = 1e-300, β = 1 − e^{50}·1e-300 = 1 to double precision
    assert _quiet(M.RandomizedResponse(50.0).tradeoff, 1e-300) == 1.0
    assert _quiet(M.RandomizedResponse(50.0).pmf, 1, 0)[()] == pytest.approx(1 / (1 + math.exp(50.0)), rel=1e-12)


def test_point_mass_discrete_laplace():
    # scale = 5e-324: ε₀ = Δ/scale = inf; the neighbours' outputs differ except on a set of mass e^{−2e323}:
    # δ(ε) = 1 for every finite ε, no finite ε(δ < 1), β(0) = 1 (full support) and β(α) = 0 for α > 0.
    for dlt in (1, 3):
        m = M.DiscreteLaplace(5e-324, dlt)
        assert _quiet(m.delta, np.array([0.0, 1.0, 1e308])).tolist() == [1.0, 1.0, 1.0]
        assert _quiet(m.epsilon, 1e-5) == math.inf
        assert _quiet(m.tradeoff, np.array([0.0, 5e-324, 0.5])).tolist() == [1.0, 0.0, 0.0]
        assert _quiet(m.pmf, np.array([0.0, 1.0, math.inf])).tolist() == [1.0, 0.0, 0.0]


def test_discrete_gaussian_extremes():
    # δ(ε) ≤ P[k ≤ k*] with k* = ⌊Δ/2 − εσ²/Δ⌋ → −inf: δ(1e308) = 0 (no overflow in ε·σ²)
    assert _quiet(M.DiscreteGaussian(1.5, 2).delta, 1e308) == 0.0
    # pmf at σ = 1e154 (σ² overflows): p(0) = 1/Z, Z = σ√(2π) (Poisson summation, corrections e^{−2π²σ²} = 0)
    p = _quiet(M.DiscreteGaussian(1e154).pmf, np.array([0.0, 1e308, math.inf]))
    assert p[0] == pytest.approx(1 / (1e154 * math.sqrt(2 * math.pi)), rel=1e-12)
    assert p[1:].tolist() == [0.0, 0.0]
    # σ = 1e-160: 2σ² is subnormal; a point mass at 0, disjoint neighbours
    m = M.DiscreteGaussian(1e-160)
    assert _quiet(m.pmf, np.array([0.0, 1.0])).tolist() == [1.0, 0.0]
    assert _quiet(m.delta, 5.0) == 1.0
    with pytest.raises(ValueError, match="sigma"):  # the exact sums would need ~1e309 terms
        _quiet(M.DiscreteGaussian(1e308).delta, 1.0)


def test_gaussian_tradeoff_and_loss_at_extremes():
    # G_μ(α) = Φ(Φ⁻¹(1 − α) − μ): at α = 5e-324, Φ⁻¹(1 − α) = −Φ⁻¹(5e-324) ≈ 38.46 (1 − α rounds to 1 in double)
    z = -_scipy_ndtri(5e-324)
    assert _quiet(M.Gaussian(1 / 40.0).tradeoff, 5e-324) == pytest.approx(_scipy_ndtr(z - 40.0), rel=1e-9)
    assert _quiet(M.Gaussian(1 / 40.0).tradeoff, 5e-324) < 0.1
    # μ = 1e300: L ~ N(μ²/2, μ²) with μ²/2 beyond the double range; P[L > t] = Φ(μ/2 − t/μ) = 1 for finite t,
    # 0 at t = +inf, and the density is 0 everywhere representable
    pld = M.Gaussian(1e-300).privacy_loss()
    assert _quiet(pld.sf, np.array([-math.inf, 0.0, 1e308, math.inf])).tolist() == [1.0, 1.0, 1.0, 0.0]
    assert _quiet(pld.pdf, np.array([0.0, math.inf])).tolist() == [0.0, 0.0]


def test_laplace_loss_at_infinite_pure_epsilon():
    # scale = 5e-324: ε₀ = inf; the continuous part (mass ½(1 − e^{−ε₀}) = ½) has P[L > t] = ½ for finite t
    pld = M.Laplace(5e-324).privacy_loss()
    assert _quiet(pld.sf, np.array([-math.inf, 0.0, math.inf])).tolist() == [1.0, 1.0, 0.0]
    assert _quiet(pld.pdf, np.array([0.0, math.inf])).tolist() == [0.0, 0.0]


def test_privacy_loss_distribution_validates_its_fields():
    with pytest.raises(ValueError, match="atoms"):
        M.PrivacyLossDistribution((math.nan,), (1.0,))
    with pytest.raises(ValueError, match="masses"):
        M.PrivacyLossDistribution((0.5,), (1.5,))
    with pytest.raises(ValueError, match="same length"):
        M.PrivacyLossDistribution((0.5, -0.5), (1.0,))
    with pytest.raises(ValueError, match="missing_mass"):
        M.PrivacyLossDistribution((), (), missing_mass=-0.1)
    with pytest.raises(TypeError, match="density"):
        M.PrivacyLossDistribution((), (), density=1.0)
    pld = M.PrivacyLossDistribution([math.inf, 0.5], [0.25, 0.75])
    assert pld.atoms == (math.inf, 0.5) and pld.masses == (0.25, 0.75)


def _scipy_ndtri(x):
    from scipy import special

    return float(special.ndtri(x))


def _scipy_ndtr(x):
    from scipy import special

    return float(special.ndtr(x))

# the coverage test (test_adversarial_coverage.py) reads what these sweeps cover
register(M, BASELINES)


def test_exponential_mechanism_rate_survives_a_huge_sensitivity():
    """ε/(2Δ) with Δ = 1e308 overflowed 2Δ to inf and gave the uniform law; the rate is ε/Δ·½ = ½ here."""
    p = M.exponential_mechanism_probabilities([0.0, 3.0], 1e308, 1e308)
    want = np.exp([0.0, 1.5]) / np.exp([0.0, 1.5]).sum()
    assert p.tolist() == pytest.approx(want.tolist(), rel=1e-15)
    draws = [M.exponential_mechanism([0.0, 3.0], 1e308, 1e308, rng=s) for s in range(400)]
    assert 0.818 - 0.08 < np.mean(draws) < 0.818 + 0.08  # 4 standard deviations of 400 draws: ±0.077
