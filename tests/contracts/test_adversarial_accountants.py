"""Adversarial-input sweep of :mod:`dpviz.accountants` and :mod:`dpviz.conversions` (issue 12, findings 6 and 7).

Every public callable of both packages' ``__all__`` gets one valid baseline call; :func:`tests._adversarial.sweep`
then replaces each positional argument in turn by 16 hostile values (0, −1, −0.0, NaN, ±inf, 1e308, 5e-324, 10**400,
True, None, "1", 1+1j, [], an empty array, a ragged list) with warnings raised as errors. Only a ValueError/TypeError
with a message, or a NaN-free result, passes. Accountant classes are swept through their constructor *and used*
(a constructor that accepts a value must not fail at the first query), and through every public method of a
composed instance; events and mechanisms are swept as they enter every accountant that supports them (a valid but
extreme parameter such as ε = 1e308 or σ = 5e-324 must give an answer, not a crash). Separate tests check that every
size an accountant allocates is capped by a ValueError naming the cap, and that the answers at the extremes are right.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _adversarial import call_outcome, missing_baselines, register, sweep

import dpviz.accountants as A
import dpviz.conversions as C
from dpviz import mechanisms as M
from dpviz.accountants import _base

# ------------------------------------------------------------------------------------------------ baselines


def _named(fn, name):
    """Give a wrapper a readable ``__name__`` for the sweep's messages."""
    fn.__name__ = name
    return fn


#: events that every accountant of the pair's class supports, one with a privacy curve and one with a fixed pair
_EVENTS = {
    "basic": (M.Gaussian(2.0), A.PureDP(0.5)),
    "advanced": (M.Gaussian(2.0), A.PureDP(0.5)),
    "optimal": (M.Gaussian(2.0), A.ApproxDP(0.5, 1e-7)),
    "rdp": (A.PoissonSampled(M.Gaussian(1.0), 0.1), M.Laplace(2.0)),
    "zcdp": (A.ZCDP(0.3), A.PureDP(0.5)),
    "pld": (A.PoissonSampled(M.Gaussian(1.0), 0.1), M.Laplace(2.0)),
}


def _used(cls):
    """Construct with the swept arguments, then compose and query: a constructor must refuse what its queries
    cannot handle."""

    def build(*args):
        acct = cls(*args)
        ev = _EVENTS[cls.name][0]
        acct.compose(ev, count=3)
        return acct.epsilon(1e-6), acct.delta(1.0)

    return _named(build, cls.__name__)


BASELINES: dict[str, tuple[tuple, dict]] = {
    # accountants: constructor, then used (see _used)
    "BasicAccountant": (("add_remove",), {}),
    "AdvancedAccountant": (("add_remove",), {}),
    "OptimalAccountant": (("add_remove",), {}),
    "RDPAccountant": (("add_remove", [1.5, 2.0, 8.0]), {}),
    "ZCDPAccountant": (("add_remove",), {}),
    "PLDAccountant": (("add_remove", 1e-3), {"max_grid_points": 2**14}),
    # events
    "PureDP": ((1.0,), {}),
    "ApproxDP": ((1.0, 1e-6), {}),
    "ZCDP": ((0.5,), {}),
    "PoissonSampled": ((A.PureDP(1.0), 0.1), {}),
    "SampledWithoutReplacement": ((A.PureDP(1.0), 10, 100), {}),
    "amplify_poisson": ((1.0, 1e-6, 0.1), {}),
    "amplify_without_replacement": ((1.0, 1e-6, 10, 100), {}),
    # calibration (RDP: the cheapest accountant with a sampled Gaussian)
    "calibrate_sigma": ((1.0, 1e-5, 3, 0.5, "rdp"), {}),
    "calibrate_laplace_scale": ((1.0, 1e-6, 3, 0.5, "rdp"), {}),
    # the stepwise forms check every argument when called, before the first step (the search is swept above)
    "calibrate_sigma_steps": ((1.0, 1e-5, 3, 0.5, "rdp"), {}),
    "calibrate_laplace_scale_steps": ((1.0, 1e-6, 3, 0.5, "rdp"), {}),
    # group privacy
    "group_privacy": ((1.0, 1e-6, 3), {}),
    "group_privacy_mechanism": ((M.Gaussian(2.0), 3), {}),
    "group_privacy_lift": ((0.1, 1e-6, 10), {}),
    "group_privacy_item_budget": ((1.0, 1e-6, 10), {}),
    "group_privacy_curve": ((1.0, 1e-6, [1, 2]), {}),
    "group_privacy_log_factor": ((1.0, 3), {}),
}

EXEMPT = {
    "Accountant": "abstract base class: instantiating it raises TypeError (test_abstract_base_refuses_instances)",
    "RUNS": "the ledger cap, a parameter spec: test_ledger_size_is_capped and the cap walk of test_validation",
}

CONVERSION_BASELINES: dict[str, tuple[tuple, dict]] = {
    "pure_to_zcdp": ((1.0,), {}),
    "zcdp_to_approx_dp": ((0.5, 1e-5, "cks"), {}),
    "zcdp_delta": ((0.5, 1.0, "cks"), {}),
    "rdp_to_approx_dp": (([2.0, 4.0], [0.5, 1.0], 1e-5, "improved"), {}),
    "rdp_delta": (([2.0, 4.0], [0.5, 1.0], 1.0, "improved"), {}),
}

_ACCOUNTANT_NAMES = ("BasicAccountant", "AdvancedAccountant", "OptimalAccountant", "RDPAccountant",
                     "ZCDPAccountant", "PLDAccountant")


def _method_cases():
    """(label, fn, args): every public method of every accountant, on a composed instance, for a curve event and
    a fixed-pair event. ``compose`` runs on a fresh instance per call (the sweep's calls must not pile up)."""
    cases = []
    for cname in _ACCOUNTANT_NAMES:
        cls = getattr(A, cname)
        for ev in _EVENTS[cls.name]:
            tag = f"{cname}[{type(ev).__name__}]"
            acct = cls().compose(ev, count=3)
            cases.append((f"{tag}.compose", _named(lambda e, k, c=cls: c().compose(e, k), "compose"), (ev, 2)))
            cases.append((f"{tag}.epsilon", acct.epsilon, (1e-6,)))
            cases.append((f"{tag}.delta", acct.delta, (1.0,)))
            cases.append((f"{tag}.supports", acct.supports, (ev,)))
            if cname in ("RDPAccountant", "ZCDPAccountant"):
                m = "improved" if cname == "RDPAccountant" else "cks"
                cases.append((f"{tag}.epsilon(method)", acct.epsilon, (1e-6, m)))
                cases.append((f"{tag}.delta(method)", acct.delta, (1.0, m)))
            if cname == "RDPAccountant":
                cases.append((f"{tag}.rdp", acct.rdp, ()))
            if cname == "PLDAccountant":
                cases.append((f"{tag}.epsilon_bounds", acct.epsilon_bounds, (1e-6,)))
                cases.append((f"{tag}.delta_bounds", acct.delta_bounds, (1.0,)))
    return cases


#: the public methods the cases above cover, per class (a new method must be added here and to _method_cases)
_COVERED_METHODS = {"compose", "epsilon", "delta", "supports", "rdp", "epsilon_bounds", "delta_bounds"}


def _in_every_accountant(make):
    """Build an event from the swept arguments, then compose it (3 runs) into every accountant that supports it
    under either relation and ask for ε(1e-6) and δ(1.0): a valid but extreme event must get answers."""

    def build(*args):
        ev = make(*args)
        out = []
        for cls in A.ACCOUNTANTS.values():
            for rel in A.NEIGHBORING:
                acct = cls(neighboring=rel)
                if acct.supports(ev):
                    acct.compose(ev, count=3)
                    out.append((acct.epsilon(1e-6), acct.delta(1.0)))
        return out

    return _named(build, getattr(make, "__name__", "event"))


EVENT_BASELINES: dict[str, tuple[object, tuple]] = {
    "PureDP": (A.PureDP, (1.0,)),
    "ApproxDP": (A.ApproxDP, (1.0, 1e-6)),
    "ZCDP": (A.ZCDP, (0.5,)),
    "PoissonSampled(Gaussian)": (lambda s, q: A.PoissonSampled(M.Gaussian(s), q), (2.0, 0.1)),
    "PoissonSampled(PureDP)": (lambda e, q: A.PoissonSampled(A.PureDP(e), q), (1.0, 0.1)),
    "PoissonSampled(ZCDP)": (lambda r, q: A.PoissonSampled(A.ZCDP(r), q), (0.5, 0.1)),
    "SampledWithoutReplacement": (lambda e, n, N: A.SampledWithoutReplacement(A.PureDP(e), n, N), (1.0, 10, 100)),
    "SampledWithoutReplacement(ApproxDP)": (lambda e, d: A.SampledWithoutReplacement(A.ApproxDP(e, d), 10, 100),
                                            (1.0, 1e-6)),
    "Gaussian": (M.Gaussian, (2.0, 1.0)),
    "Laplace": (M.Laplace, (2.0, 1.0)),
    "RandomizedResponse": (M.RandomizedResponse, (1.0,)),
    "DiscreteLaplace": (M.DiscreteLaplace, (2.0, 1)),
    "DiscreteGaussian": (M.DiscreteGaussian, (2.0, 1)),
    "TruncatedDiscreteLaplace": (M.TruncatedDiscreteLaplace, (1.0, 1e-5)),
}


# ------------------------------------------------------------------------------------------------ coverage


def test_every_public_callable_has_a_baseline():
    assert missing_baselines(A, BASELINES, EXEMPT) == []
    assert missing_baselines(C, CONVERSION_BASELINES) == []


def test_every_public_method_has_a_case():
    """Public methods of the accountant classes (properties excluded) are swept too; a new method cannot escape."""
    missing = []
    for cname in _ACCOUNTANT_NAMES:
        for cls in getattr(A, cname).__mro__:
            for attr, member in vars(cls).items():
                if not attr.startswith("_") and callable(member) and attr not in _COVERED_METHODS:
                    missing.append(f"{cls.__name__}.{attr}")
    assert missing == []


def test_baselines_are_valid_calls():
    """A baseline that fails on its own would make every sweep trivially pass: each must return normally."""
    bad = {}
    for name, (args, kwargs) in BASELINES.items():
        fn = _used(getattr(A, name)) if name in _ACCOUNTANT_NAMES else getattr(A, name)
        out = call_outcome(fn, args, kwargs)
        if out is not None:
            bad[name] = out
    for name, (args, kwargs) in CONVERSION_BASELINES.items():
        out = call_outcome(getattr(C, name), args, kwargs)
        if out is not None:
            bad[name] = out
    for label, fn, args in _METHODS:
        out = call_outcome(fn, args, {})
        if out is not None:
            bad[label] = out
    assert bad == {}


def test_sweep_catches_a_bad_outcome():
    """The harness must be able to fail: a NaN, a warning or a stray exception type is reported."""
    assert call_outcome(lambda x: math.nan, (1.0,), {}) == "returned NaN"
    assert "RuntimeWarning" in call_outcome(lambda x: np.log(np.zeros(1)), (1.0,), {})
    assert "ZeroDivisionError" in call_outcome(lambda x: 1 / 0, (1.0,), {})


# ------------------------------------------------------------------------------------------------ the sweeps


@pytest.mark.parametrize("name", sorted(n for n in BASELINES if n not in _ACCOUNTANT_NAMES))
def test_sweep_public_accountants_function(name):
    args, kwargs = BASELINES[name]
    assert sweep(getattr(A, name), args, kwargs) == []


@pytest.mark.parametrize("name", _ACCOUNTANT_NAMES)
def test_sweep_accountant_constructor_then_use(name):
    args, kwargs = BASELINES[name]
    assert sweep(getattr(A, name), args, kwargs) == []
    assert sweep(_used(getattr(A, name)), args, kwargs) == []


@pytest.mark.parametrize("name", sorted(CONVERSION_BASELINES))
def test_sweep_public_conversions_function(name):
    args, kwargs = CONVERSION_BASELINES[name]
    assert sweep(getattr(C, name), args, kwargs) == []


_METHODS = _method_cases()


@pytest.mark.parametrize("label,fn,args", _METHODS, ids=[c[0] for c in _METHODS])
def test_sweep_accountant_method(label, fn, args):
    assert sweep(fn, args, {}) == []


@pytest.mark.parametrize("name", sorted(EVENT_BASELINES))
def test_sweep_event_in_every_accountant(name):
    make, args = EVENT_BASELINES[name]
    assert sweep(_in_every_accountant(make), args, {}) == []


def test_abstract_base_refuses_instances():
    with pytest.raises(TypeError, match="Accountant"):
        A.Accountant()


# ------------------------------------------------------------------------------------------------ caps


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("cls", list(A.ACCOUNTANTS.values()), ids=list(A.ACCOUNTANTS))
def test_ledger_size_is_capped(cls):
    cap = _base.RUNS.high
    ev = _EVENTS[cls.name][1]
    with pytest.raises(ValueError, match=rf"count.*{cap}"):
        cls().compose(ev, count=cap + 1)
    with pytest.raises(ValueError, match="count"):
        cls().compose(ev, count=10**400)
    acct = cls().compose(ev, count=cap - 5)  # the cap counts the whole ledger, over several compose calls
    with pytest.raises(ValueError, match=rf"the ledger's runs .* is not allowed: .*<= {cap}"):
        acct.compose(ev, count=6)
    assert sum(k for _, k in acct.ledger) == cap - 5  # refused calls leave the ledger unchanged


def test_calibration_and_group_sizes_are_capped():
    cap = _base.RUNS.high
    for call in (lambda: A.calibrate_sigma(1.0, 1e-5, cap + 1), lambda: A.calibrate_laplace_scale(1.0, 0.0, cap + 1),
                 lambda: A.group_privacy(1.0, 1e-6, cap + 1),
                 lambda: A.group_privacy_mechanism(A.PureDP(1.0), cap + 1)):
        with pytest.raises(ValueError, match=rf"<= {cap}"):
            call()


def test_rdp_orders_are_capped():
    from dpviz.accountants import rdp

    with pytest.raises(ValueError, match=rf"orders = 1000000.0 is not allowed: .*{rdp.ORDER.high:g}\]"):
        A.RDPAccountant(orders=[2.0, 1e6])
    with pytest.raises(ValueError, match=rf"the orders held = .* <= {rdp.ORDERS.limit} \(the cap"):
        A.RDPAccountant(orders=np.linspace(1.5, 100.0, rdp.ORDERS.limit + 1))
    with pytest.raises(ValueError, match="sensitivity"):
        rdp.rdp_discrete_laplace([2.0], 1.0, 10**9)


def test_pld_grid_parameters_are_capped():
    from dpviz.accountants import pld

    with pytest.raises(ValueError, match=rf"max_grid_points.*<= {pld.GRID_POINTS.high}"):
        A.PLDAccountant(max_grid_points=pld.GRID_POINTS.high + 1)
    with pytest.raises(ValueError, match=r"value_discretization_interval.*\(0, 1\]"):
        A.PLDAccountant(value_discretization_interval=2.0)


def test_fractional_rdp_orders_fall_back_to_a_valid_chord_bound(monkeypatch):
    # beyond FRACTIONAL_GRID_CAP the trapezoid grid is not built; ln A_α is convex in α (Hölder), so the chord
    # between the neighbouring integer orders bounds it from above: valid (≥ the mpmath value), exact at integers
    import mpmath as mp

    from dpviz.accountants import rdp

    q, sigma = 0.1, 0.8
    orders = [1.5, 2.0, 2.5, 3.7]

    def oracle(alpha):
        a, qq, s = mp.mpf(alpha), mp.mpf(q), mp.mpf(sigma)
        f = lambda z: mp.npdf(z, 0, s) * (1 - qq + qq * mp.e ** ((2 * z - 1) / (2 * s * s))) ** a  # noqa: E731
        return float(mp.log(mp.quad(f, [-mp.inf, -5 * s, 0, 1, max(a, 1), max(a, 1) + 10 * s, mp.inf])) / (a - 1))

    monkeypatch.setattr(rdp, "FRACTIONAL_GRID_CAP", 0)
    rdp._poisson_gaussian_cached.cache_clear()
    chord = rdp.rdp_poisson_gaussian(orders, q, sigma)
    rdp._poisson_gaussian_cached.cache_clear()
    for alpha, got in zip(orders, chord):
        exact = oracle(alpha)
        if alpha == int(alpha):
            assert got == pytest.approx(exact, rel=1e-9)
        else:
            assert got >= exact * (1 - 1e-12)
            # a chord, not a blow-up: never above ε at the next integer order (which bounds ε_α by monotonicity)
            assert got <= oracle(math.ceil(alpha)) * (1 + 1e-9)


def test_tiny_sigma_with_many_fractional_orders_is_fast_and_valid():
    # σ = 0.003 with the default orders would need a 99 × 116k trapezoid grid (90 MB): the chord bound is used
    import time

    from dpviz.accountants.rdp import DEFAULT_ORDERS, rdp_poisson_gaussian

    t0 = time.perf_counter()
    eps = _quiet(rdp_poisson_gaussian, DEFAULT_ORDERS, 0.01, 0.003)
    assert time.perf_counter() - t0 < 10.0
    assert np.all(eps > 0) and not np.any(np.isnan(eps))
    assert np.all(np.diff(eps) >= -1e-9 * eps[1:])  # ε_α is non-decreasing in α (the chord keeps that)


# ------------------------------------------------------------------------------------------------ extremes


def test_astronomical_pure_epsilon_is_no_privacy_not_a_crash():
    # PureDP(1e308): 3 runs are 3e308 = ∞-DP; every accountant answers ε = ∞ (or the exact sum, ≥ 1e308) and δ = 1
    for cls in A.ACCOUNTANTS.values():
        acct = cls()
        ev = A.PureDP(1e308)
        if not acct.supports(ev):
            continue
        acct.compose(ev, count=3)
        assert _quiet(acct.epsilon, 1e-6) >= 1e308
        assert _quiet(acct.delta, 1.0) == 1.0


def test_gaussian_with_overflowing_or_underflowing_ratio():
    # σ = 5e-324: Δ/σ = ∞, the output reveals the input: ε = ∞ at every δ < 1, δ(ε) = 1 for every finite ε.
    # σ = 1e308: Δ/σ = 1e-308, ρ underflows to 0: ε(δ) is 0 up to rounding.
    for cls in A.ACCOUNTANTS.values():
        blatant = cls().compose(M.Gaussian(5e-324), count=2)
        assert _quiet(blatant.epsilon, 1e-6) == math.inf
        assert _quiet(blatant.delta, 5.0) == 1.0
        quiet = cls().compose(M.Gaussian(1e308), count=2)
        assert _quiet(quiet.epsilon, 1e-6) < 0.01  # (RDP's conversion keeps a floor of ~0.006 at its top order)
        assert _quiet(quiet.delta, 1.0) <= 1e-300


def test_amplification_at_extremes_is_the_closed_form():
    # ln(1 + q(e^ε − 1)) = ε + ln(q + (1 − q)e^{−ε}): at ε = 1e308, ε + ln q exactly (e^{−ε} = 0)
    eps, d = _quiet(A.amplify_poisson, 1e308, 0.0, 0.5)
    assert eps == 1e308 + math.log(0.5) and d == 0.0
    eps, d = _quiet(A.amplify_poisson, 1000.0, 1e-6, 1e-3)
    assert eps == pytest.approx(1000.0 + math.log(1e-3), rel=1e-15) and d == pytest.approx(1e-9, rel=1e-15)
    eps, _ = _quiet(A.amplify_poisson, 5e-324, 0.0, 0.5)
    assert eps == 0.0 or eps <= 5e-324  # ln(1 + q·ε) ≈ qε: below the smallest double


def test_group_privacy_at_extremes():
    # k = 10⁶ records at ε = 1: kε = 10⁶ and the δ factor (e^{kε} − 1)/(e^ε − 1) overflows: δ_k = 1 (no guarantee)
    assert _quiet(A.group_privacy, 1.0, 1e-6, 10**6) == (1e6, 1.0)
    assert _quiet(A.group_privacy, 1e308, 1e-6, 3) == (math.inf, 1.0)
    # ε = 5e-324: the factor tends to k, exactly as the ε = 0 case
    assert _quiet(A.group_privacy, 5e-324, 1e-6, 3) == (1.5e-323, pytest.approx(3e-6, rel=1e-15))
    # ε = 400, k = 2: kε > 700, the factor (e^{800} − 1)/(e^{400} − 1) = e^{400} + 1 is formed in logs: δ_k ≈ 5.2e-27
    assert _quiet(A.group_privacy, 400.0, 1e-200, 2)[1] == pytest.approx(1e-200 * math.exp(400.0), rel=1e-12)
    with pytest.raises(ValueError, match="k"):
        A.group_privacy_mechanism(A.ZCDP(1e308), 2)  # k²ρ beyond the double range

# the coverage test (test_adversarial_coverage.py) reads what these sweeps cover
register(A, BASELINES)
register(A, EXEMPT, "exempt")
register(C, CONVERSION_BASELINES)
