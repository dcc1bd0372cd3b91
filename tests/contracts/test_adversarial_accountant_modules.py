"""Adversarial-input sweep of the submodules of :mod:`dpviz.accountants` whose public names are not all re-exported
by the package (the package's own face is swept by ``test_adversarial_accountants.py``).

Every callable of each submodule's ``__all__`` gets one valid baseline call (the values lesson 07's composition lab
sends); :func:`_adversarial.sweep` then replaces each positional argument in turn by 16 hostile values with warnings
raised as errors. Classes are swept through their constructor *and used* (a constructor that accepts a value must
not fail at the first query), and through every public method of a valid instance. Separate tests pin the caps and
the defects the sweep found.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _adversarial import contract_tests

from dpviz import mechanisms as M
from dpviz.accountants import PoissonSampled, PureDP
from dpviz.accountants import _atoms as ATOMS
from dpviz.accountants import advanced as ADV
from dpviz.accountants import compare as CMP
from dpviz.accountants import events as EV
from dpviz.accountants import factory as FAC
from dpviz.accountants import optimal as OPT
from dpviz.accountants import pld as PLD
from dpviz.accountants import profiles as PRO
from dpviz.accountants import rdp as RDP
from dpviz.accountants import zcdp as ZC
from dpviz.accountants.pld import laws as LAWS


def _named(fn, name):
    fn.__name__ = name
    return fn


GAUSS = M.Gaussian(2.0)
SAMPLED = PoissonSampled(M.Gaussian(1.0), 0.1)
T = np.array([-1.0, 0.0, 0.5, 2.0])  # points at which a law's probabilities are asked

# --------------------------------------------------------------------------------------------- compare (lesson 07)

COMPARE = {
    "EpsilonResult": (("pld", 1.2, 1.1, None, None), {}),
    "check_setting": (("gaussian", 4.0, 100, 1.0, "add_remove"), {}),
    "query_sensitivity": (("gaussian", "replace_one"), {}),
    "make_event": (("laplace", 2.0, 0.5, "add_remove"), {}),
    "pld_grid_step": (("laplace", 10.0, 10, "add_remove", 1.0), {}),
    "epsilon_result": (("rdp", "gaussian", 4.0, 100, 1.0, 1e-5, "add_remove"), {}),
    "compare_accountants": (("laplace", 10.0, 20, 1.0, 1e-5, "add_remove"),
                            {"accountants": ("basic", "rdp", "zcdp")}),
    "exact_epsilon": (("gaussian", 4.0, 100, 1.0, 1e-5, "add_remove"), {}),
    "exact_profile": (("gaussian", 4.0, 100, 1.0, "add_remove", [0.0, 1.0, 2.0]), {}),
    "reference_epsilon": (((CMP.EpsilonResult("basic", 2.0), CMP.EpsilonResult("rdp", 1.5)), None), {}),
    "count_grid": ((100, 13), {}),
    "epsilon_vs_count": (("gaussian", 4.0, 1.0, 1e-5, "add_remove", (1, 10, 100)),
                         {"accountants": ("basic", "zcdp")}),
    "privacy_profile": (("zcdp", "gaussian", 4.0, 100, 1.0, "add_remove", (0.5, 1.0, 2.0)), {}),
    "calibrated_noise": (("zcdp", "gaussian", 1.0, 1e-5, 10, 1.0), {}),
    "exact_gaussian_sigma": ((1.0, 1e-5, 10), {}),
    "group_privacy_curves": (("gaussian", 2.0, 1e-5, 5), {}),
}
COMPARE_METHODS = {}

# --------------------------------------------------------------------------------------------- small modules

ADVANCED = {
    "AdvancedAccountant": (("add_remove",), {}),
    "drv_epsilon": (([0.1, 0.2], [100, 10], 1e-6), {}),
}
EVENTS = {name: args for name, args in {
    "PureDP": ((1.0,), {}),
    "ApproxDP": ((1.0, 1e-6), {}),
    "ZCDP": ((0.5,), {}),
    "PoissonSampled": ((PureDP(1.0), 0.1), {}),
    "SampledWithoutReplacement": ((PureDP(1.0), 10, 100), {}),
    "amplify_poisson": ((1.0, 1e-6, 0.1), {}),
    "amplify_without_replacement": ((1.0, 1e-6, 10, 100), {}),
    "is_event": ((GAUSS,), {}),
}.items()}
FACTORY = {
    "make_mechanism": (("gaussian", 2.0, 1.0), {}),
}
OPTIMAL = {
    "OptimalAccountant": (("add_remove",), {}),
    "kov_delta": ((0.5, 1e-6, 20, 2.0), {}),
    "kov_epsilon": ((0.5, 1e-6, 20, 1e-5), {}),
}
PROFILES = {
    "EpsDeltaProfile": (((0.5, 1e-6), None, None, None, math.inf), {}),
    "eps_delta_profile": ((GAUSS, "add_remove"), {}),
    "event_fixed_pair": ((M.Laplace(2.0),), {}),
    "event_pure_epsilon": ((M.Laplace(2.0),), {}),
    "unsupported_reason_subsampling": ((SAMPLED, "add_remove"), {}),
}
_GAUSS_PROFILE = PRO.eps_delta_profile(GAUSS, "add_remove")
PROFILE_METHODS = {
    "EpsDeltaProfile.eps_many": (_GAUSS_PROFILE.eps_many, (np.array([1e-6, 1e-3]), None), {}),
}
RDP_ = {
    "RDPAccountant": (("add_remove", [1.5, 2.0, 8.0]), {}),
    "rdp_gaussian": (([2.0, 4.0], 1.0, 1.0), {}),
    "rdp_laplace": (([2.0, 4.0], 1.0), {}),
    "rdp_pure": (([2.0, 4.0], 1.0), {}),
    "rdp_discrete_laplace": (([2.0, 3.5], 1.0, 2), {}),
    "rdp_poisson_gaussian": (([2.0, 2.5, 8.0], 0.1, 1.0, 1.0), {}),
    "event_rdp": ((SAMPLED, [2.0, 4.0]), {}),
}
ZCDP_ = {
    "ZCDPAccountant": (("add_remove",), {}),
    "event_rho": ((GAUSS,), {}),
}

# --------------------------------------------------------------------------------------------- PLD

PLD_ = {
    "PLDAccountant": (("add_remove", 1e-3), {"max_grid_points": 2**14}),
    "atoms_epsilon": ((np.array([-1.0, 1.0]), np.array([0.25, 0.75]), 0.0, 1e-6), {}),
    "binomial_loss_atoms": ((1.0, math.log(0.75), math.log(0.25), 20, 0.0), {}),
}
ATOMS_ = {name: PLD_[name] for name in ("atoms_epsilon", "binomial_loss_atoms")}


def _law_used(cls):
    """Construct a law, then ask it for every probability and discretise it both ways."""

    def build(*args):
        law = cls(*args)
        out = [law.sf(T), law.sf_ge(T), law.cdf(T), law.cdf_lt(T), law.qsf(T), law.qcdf(T)]
        out.append(LAWS.discretise(law, 0.01, True))
        out.append(LAWS.discretise(law, 0.01, False))
        return out

    return _named(build, cls.__name__)


LAW_BASELINES = {
    "GaussianLaw": ((0.5,), {}),
    "LaplaceLaw": ((1.0,), {}),
    "FiniteLaw": (([-1.0, 1.0], [0.25, 0.75], 0.0), {}),
    "SubsampledLaw": ((LAWS.GaussianLaw(0.5), 0.1, "remove"), {}),
    "Law": ((), {}),
    "SymmetricLaw": ((), {}),
    "discrete_laplace_loss": ((2.0, 3), {}),
    "discretise": ((LAWS.GaussianLaw(0.5), 0.01, True), {}),
}
_LAW_INSTANCES = {
    "GaussianLaw": LAWS.GaussianLaw(0.5),
    "LaplaceLaw": LAWS.LaplaceLaw(1.0),
    "FiniteLaw": LAWS.FiniteLaw([-1.0, 1.0], [0.25, 0.745], 5e-3),
    "SubsampledLaw[remove]": LAWS.SubsampledLaw(LAWS.LaplaceLaw(1.0), 0.1, "remove"),
    "SubsampledLaw[add]": LAWS.SubsampledLaw(LAWS.GaussianLaw(0.5), 0.1, "add"),
}
LAW_METHODS = {f"{label}.{meth}": (getattr(law, meth), (T,), {})
               for label, law in _LAW_INSTANCES.items()
               for meth in ("sf", "sf_ge", "cdf", "cdf_lt", "qsf", "qcdf")}
# constructors swept as they are used
LAW_USED = {f"{name}(used)": (_law_used(getattr(LAWS, name)), *LAW_BASELINES[name])
            for name in ("GaussianLaw", "LaplaceLaw", "FiniteLaw", "SubsampledLaw")}

globals().update(contract_tests(CMP, COMPARE, suffix="compare"))
globals().update(contract_tests(ADV, ADVANCED, suffix="advanced"))
globals().update(contract_tests(EV, EVENTS, suffix="events", exempt={}))
globals().update(contract_tests(FAC, FACTORY, suffix="factory"))
globals().update(contract_tests(OPT, OPTIMAL, suffix="optimal"))
globals().update(contract_tests(PRO, PROFILES, methods=PROFILE_METHODS, suffix="profiles"))
globals().update(contract_tests(RDP, RDP_, suffix="rdp"))
globals().update(contract_tests(ZC, ZCDP_, suffix="zcdp"))
globals().update(contract_tests(PLD, PLD_, suffix="pld"))
globals().update(contract_tests(ATOMS, ATOMS_, suffix="pld_atoms"))
globals().update(contract_tests(LAWS, LAW_BASELINES, methods={**LAW_METHODS, **LAW_USED}, suffix="pld_laws"))


# --------------------------------------------------------------------------------------------- caps
# Each cap is checked from both sides: just past it a ValueError names the parameter and the cap; at it the call
# answers. The caps are written out here, not read from the code under test.


def test_cap_values_are_the_documented_ones():
    assert (CMP.COUNTS.limit, CMP.PROFILE_POINTS.limit) == (25, 200)
    assert (LAWS.DISCRETISE_POINTS.limit, LAWS.STEP.high, LAWS.DLAP_SENSITIVITY.high) == (2**20, 1e4, 10**6)
    assert ATOMS.ATOMS_K.high == 10**6


def test_lab_counts_are_capped_at_the_ledger_cap():
    # 10**400 compositions reached math.sqrt(count) (OverflowError) in exact_epsilon, exact_profile and
    # exact_gaussian_sigma; above 10⁶ every accountant refuses the ledger anyway
    for call in (lambda k: CMP.check_setting("gaussian", 4.0, k, 1.0, "add_remove"),
                 lambda k: CMP.exact_epsilon("gaussian", 4.0, k, 1.0, 1e-5),
                 lambda k: CMP.exact_profile("gaussian", 4.0, k, 1.0, "add_remove", [1.0]),
                 lambda k: CMP.exact_gaussian_sigma(1.0, 1e-5, k),
                 lambda k: CMP.calibrated_noise("zcdp", "gaussian", 1.0, 1e-5, k, 1.0),
                 lambda k: CMP.epsilon_vs_count("gaussian", 4.0, 1.0, 1e-5, "add_remove", [k])):
        with pytest.raises(ValueError, match=r"count.*<= 1000000"):
            call(10**6 + 1)
        with pytest.raises(ValueError, match="count"):
            call(10**400)
    assert CMP.exact_epsilon("gaussian", 4.0, 10**6, 1.0, 1e-5) > 0


def test_count_grid_never_holds_a_count_the_accountants_refuse():
    # count_grid(10**19) cast 1e19 to int64: the first count of the grid was −9223372036854775808 (with a
    # RuntimeWarning); the grid is now capped at the ledger cap, and at the cap it ends there
    with pytest.raises(ValueError, match=r"max_count = 10000000000000000000 .*<= 1000000"):
        CMP.count_grid(10**19, 5)
    grid = CMP.count_grid(10**6, 25)
    assert grid[0] == 1 and grid[-1] == 10**6 and all(a < b for a, b in zip(grid, grid[1:]))
    with pytest.raises(ValueError, match=r"n = 26 .*<= 25"):
        CMP.count_grid(100, 26)


def test_profile_grids_are_capped():
    eps = np.linspace(0.0, 5.0, 201)
    with pytest.raises(ValueError, match=r"the values epsilons holds = 201 is not allowed: must be <= 200 \(the cap"):
        CMP.privacy_profile("zcdp", "gaussian", 4.0, 10, 1.0, "add_remove", eps)
    with pytest.raises(ValueError, match=r"the values epsilons holds = 201 is not allowed: must be <= 200 \(the cap"):
        CMP.exact_profile("gaussian", 4.0, 10, 1.0, "add_remove", eps)
    with pytest.raises(ValueError, match=r"the values counts holds = 26 is not allowed: must be <= 25 \(the cap"):
        CMP.epsilon_vs_count("gaussian", 4.0, 1.0, 1e-5, "add_remove", list(range(1, 27)))
    got = CMP.epsilon_vs_count("gaussian", 4.0, 1.0, 1e-5, "add_remove", list(range(1, 26)), accountants=["zcdp"])
    assert len(got["zcdp"]) == 25
    x, d, _, err = CMP.privacy_profile("zcdp", "gaussian", 4.0, 10, 1.0, "add_remove", eps[:200])
    assert err is None and x.size == 200 and np.all(np.diff(d) <= 0)


def test_discretise_grid_is_capped():
    # h = 1e-9 on a Gaussian law (range ±10 sd around ρ = 0.5, 21 nats) asked for 2·10¹⁰ grid points (160 GB);
    # h = 5e-324 raised OverflowError
    law = LAWS.GaussianLaw(0.5)
    with pytest.raises(ValueError, match=r"h = 1e-09 .*more than 1048576 \(the cap on the grid points"):
        LAWS.discretise(law, 1e-9, True)
    with pytest.raises(ValueError, match=r"h = 5e-324 "):
        LAWS.discretise(law, 5e-324, False)
    with pytest.raises(ValueError, match=r"h = 20000.0 .*\(0, 10000\]"):
        LAWS.discretise(law, 2e4, True)
    h = (law.hi - law.lo) / (2**20 - 3)
    lo, p, inf = LAWS.discretise(law, h, True)
    assert p.size <= 2**20 and float(np.sum(p)) + inf == pytest.approx(1.0, abs=1e-12)


def test_binomial_and_dlap_sizes_are_capped():
    with pytest.raises(ValueError, match=r"k = 1000001 .*<= 1000000"):
        ATOMS.binomial_loss_atoms(1.0, math.log(0.75), math.log(0.25), 10**6 + 1)
    with pytest.raises(ValueError, match=r"sensitivity = 1000001 .*<= 1000000"):
        LAWS.discrete_laplace_loss(2.0, 10**6 + 1)


# --------------------------------------------------------------------------------------------- defects
# Each of these returned a wrong answer (or NaN) silently before the boundary checks; see the report of issue 37.


def test_atoms_epsilon_refuses_unsorted_losses_instead_of_under_reporting():
    # RR(1)-like atoms given in descending order: ε came out 0.0455 instead of ≈ 1.0 (an under-report by 20×)
    losses, probs = np.array([-1.0, 1.0]), np.array([0.25, 0.75])
    want = ATOMS.atoms_epsilon(losses, probs, 0.0, 1e-6)
    assert want == pytest.approx(1.0 + math.log1p(-1e-6 / 0.75), rel=1e-12)  # δ(ε) = 0.75(1 − e^{ε−1}), ε ≤ 1
    with pytest.raises(ValueError, match="losses is not sorted"):
        ATOMS.atoms_epsilon(losses[::-1], probs[::-1], 0.0, 1e-6)


def test_binomial_loss_atoms_refuses_probabilities_that_do_not_sum_to_one():
    # r₊ = 0.5, r₋ = 0.7 gave a "law" of total mass 1.728 for k = 3
    with pytest.raises(ValueError, match=r"log_r_plus .* log_r_minus .*must be 1"):
        ATOMS.binomial_loss_atoms(1.0, math.log(0.5), math.log(0.7), 3)
    losses, lp, inf = ATOMS.binomial_loss_atoms(1.0, math.log(0.75), math.log(0.25), 3)
    assert float(np.sum(np.exp(lp))) + inf == pytest.approx(1.0, rel=1e-15)


def test_finite_law_refuses_masses_above_one():
    # FiniteLaw([-1, 1], [0.9, 0.9]) answered P(L > −2) = 1.8
    with pytest.raises(ValueError, match="masses and inf_mass sum to 1.8"):
        LAWS.FiniteLaw([-1.0, 1.0], [0.9, 0.9])
    with pytest.raises(ValueError, match="one mass per loss"):
        LAWS.FiniteLaw([-1.0, 1.0], [1.0])
    assert float(LAWS.FiniteLaw([-1.0, 1.0], [0.25, 0.75]).sf(-2.0)) == 1.0


def test_discrete_laplace_loss_refuses_a_scale_whose_inverse_overflows():
    # scale = 5e-324, Δ = 2: the middle loss (Δ − 2j)/b = 0·∞ was NaN (with a RuntimeWarning)
    with pytest.raises(ValueError, match=r"scale = 5e-324 .*1/scale overflows"):
        LAWS.discrete_laplace_loss(5e-324, 2)
    losses, log_p = LAWS.discrete_laplace_loss(1e-300, 2)  # 1/b = 1e300: finite, the outer losses ±2e300
    assert not np.any(np.isnan(losses)) and losses[1] == 0.0


def test_law_probabilities_refuse_nan_and_none():
    # GaussianLaw(0.5).sf(None) was NaN (np.asarray(None, dtype=float)); so was sf(nan)
    law = LAWS.GaussianLaw(0.5)
    for bad in (None, math.nan, [0.0, math.nan], "1"):
        with pytest.raises(ValueError, match="t"):
            law.sf(bad)
    assert law.sf(math.inf) == 0.0 and law.cdf(-math.inf) == 0.0


def test_drv_epsilon_with_a_mechanism_run_zero_times():
    # a count of 0 next to ε = 1e308 made Σ k_i ε_i (e^{ε_i} − 1) = 0·∞ = NaN; a mechanism run 0 times adds nothing
    got = ADV.drv_epsilon([1e308, 0.1], [0, 10], 1e-6)
    assert got == ADV.drv_epsilon([0.1], [10], 1e-6)
    assert got == pytest.approx(0.1 * math.sqrt(2 * 10 * math.log(1e6)) + 10 * 0.1 * math.expm1(0.1), rel=1e-14)
    assert ADV.drv_epsilon([math.inf, 0.1], [1, 10], 1e-6) == math.inf


def test_a_misspelt_neighbouring_relation_is_refused_not_read_as_unsupported():
    # eps_delta_profile(PoissonSampled(...), "add-remove") answered None ("no (ε, δ) description") while the same
    # call with a Gaussian answered a profile: a typo silently changed which events the accountants accept
    for fn in (PRO.eps_delta_profile, PRO.unsupported_reason_subsampling):
        with pytest.raises(ValueError, match="neighboring = 'add-remove'"):
            fn(SAMPLED, "add-remove")
    assert PRO.eps_delta_profile(SAMPLED, "add_remove") is not None


def test_reference_epsilon_and_results_refuse_nan():
    # reference_epsilon(results, exact=nan) returned NaN; EpsilonResult("basic", nan) was accepted
    with pytest.raises(ValueError, match="exact = nan"):
        CMP.reference_epsilon([CMP.EpsilonResult("basic", 2.0)], math.nan)
    with pytest.raises(ValueError, match="epsilon = nan"):
        CMP.EpsilonResult("basic", math.nan)
    assert CMP.reference_epsilon([CMP.EpsilonResult("basic", 2.0), CMP.EpsilonResult("rdp", math.inf)]) == 2.0


def test_cached_lab_curves_are_not_changed_by_a_caller():
    # group_privacy_curves and privacy_profile handed out the arrays of their cache: a caller that scaled them
    # (e.g. to draw percentages) changed every later answer for the same setting
    c = CMP.group_privacy_curves("gaussian", 2.0, 1e-5, 5)
    want = c["eps_generic"].copy()
    c["eps_generic"] *= 100.0
    assert np.array_equal(CMP.group_privacy_curves("gaussian", 2.0, 1e-5, 5)["eps_generic"], want)
    _, d, _, _ = CMP.privacy_profile("zcdp", "gaussian", 4.0, 100, 1.0, "add_remove", (0.5, 1.0))
    d_want = d.copy()
    d[:] = 0.0
    assert np.array_equal(CMP.privacy_profile("zcdp", "gaussian", 4.0, 100, 1.0, "add_remove", (0.5, 1.0))[1], d_want)
