"""Adversarial-input sweep of :mod:`dpviz.mean` (issue 12, findings 6 and 7).

Every public callable of ``dpviz.mean.__all__`` (the re-exports of its submodules) gets one valid baseline call;
:func:`tests._adversarial.sweep` replaces each positional argument in turn by each of 16 hostile values with
warnings raised as errors; only a ValueError/TypeError with a message, or a NaN-free result, passes. Classes are
swept through their constructor followed by their public methods and properties, and through each method bound
to a valid instance; the keyword-only arguments that size or shape a computation (trials, size, copies, k, N,
resolution, gamma, ...) are swept the same way. A forgotten baseline is a failure.

The tests after the sweep check extreme-but-valid values against answers worked out by hand, and that every size
a function allocates (n, m, d, trials, size, copies, resolution, ...) is capped with a ValueError naming the cap.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _adversarial import missing_baselines, register, sweep

from dpviz import mean as MM
from dpviz.mean import hadamard as H
from dpviz.mean import winsorized as W


def _named(fn, name):
    fn.__name__ = name
    return fn


_POINTS_1D = [0.0, 0.1, 0.2, 0.05, 0.15, 0.12]
_POINTS_2D = [[0.0, 0.1], [0.1, 0.0], [0.05, 0.05], [0.1, 0.1], [0.0, 0.0], [0.08, 0.02]]
_A = MM.algorithm_a_1d(_POINTS_1D, 1.0, 1.0, 0.1)
_B = MM.algorithm_a_1d(_POINTS_1D[:-1] + [0.5], 1.0, 1.0, 0.1)
_ROT = MM.random_rotation(3, rng=0)
_POP = MM.Population("bounded", 0.2)
_USERS = np.random.default_rng(0).choice([-1.0, 1.0], size=(200, 10))
_USERS_3D = np.random.default_rng(1).uniform(-0.3, 0.3, size=(300, 4, 2))


def _query(k, answers):
    return lambda z: z[:, :1] ** k


BASELINES = {
    # hadamard
    "next_power_of_two": ((5,), {}),
    "fwht": ((np.array([1.0, 2.0, 3.0, 4.0]),), {}),
    "HadamardRotation": ((3, np.array([1.0, -1.0, 1.0, 1.0])), {}),
    "random_rotation": ((3,), {"rng": 0}),
    "lemma2_flattening_bound": ((1.0, 10, 16, 0.01), {}),
    "hoeffding_flattening_bound": ((1.0, 10, 16, 0.01), {}),
    # winsorized
    "RangeBins": ((0.3, 1.0), {}),
    "range_bins": ((0.3, 1.0), {}),
    "private_range_probabilities": (([0.1, 0.2, 0.9], 2.0, 0.25, 1.0), {}),
    "private_range": (([0.1, 0.2, 0.9] * 10, 2.0, 0.25, 1.0), {"rng": 0}),
    "WMEResult": ((0.1, -0.2, 0.4, 0.1, 0.0, 0.5, 0.1), {}),
    "winsorized_mean_1d": ((np.full(50, 0.25), 1.0, 0.05, 1.0), {"rng": 0}),
    "winsorized_mean_1d_result": ((np.full(50, 0.25), 1.0, 0.05, 1.0), {"rng": 0}),
    "winsorized_mean_highd": ((np.tile([0.5, -0.25, 0.0], (200, 1)), 4.0, 1e-6, 0.05, 1.0), {"rng": 0}),
    "highd_parameters": ((1000, 16, 1.0, 1e-6, 0.27, 1.0, 0.01), {}),
    "user_level_mean": ((_USERS_3D, 2.0, 1e-6, 1.0), {"rng": 0}),
    "user_level_mean_1d": ((_USERS, 1.0, 1.0), {"rng": 0}),
    "subgaussian_mean": ((_USERS_3D[:, 0, :], 4.0, 1e-6, 0.1, 1.0), {"rng": 0}),
    "answer_adaptive_queries": ((_USERS_3D[:, 0, :], _query, 2, 8.0, 1e-6, 0.05, 1.0), {"rng": 0}),
    "theorem10_budget": ((1.0, 1e-5, 100), {}),
    "advanced_composition_epsilon": ((0.1, 10, 1e-5), {}),
    "tau_paper": ((1.0, 100, 1000, 0.01), {}),
    "tau_safe": ((1.0, 100, 1000, 0.01), {"d": 2}),
    "tau_oracle": (([0.1, 0.4, -0.2], 0.0), {}),
    "tau_subgaussian": ((1.0, 100, 0.01, 4), {}),
    "tau_for": (("safe", 1.0, 100, 1000, 0.01), {}),
    "wme_1d_noise_variance": ((100, 1.0, 1.0, 2.0), {}),
    "wme_highd_noise_variance": ((10_000, 16, 1.0, 1e-6, 0.269, 0.01), {}),
    "theorem1_beta": ((1000, 1.0, 0.1, 1.0, 0.01), {}),
    "theorem2_beta": ((1000, 16, 1.0, 1e-6, 0.781, 1.0, 0.01), {}),
    "theorem10_variance_bound": ((1000, 4, 10, 1.0, 1e-6, 0.1, 0.01), {}),
    "corollary1_mse_bound": ((1000, 10, 4, 1.0, 1e-6, 1.0, 0.5, 0.01, 0.02), {}),
    "theorem8_floor": ((5, 1.0), {}),
    "theorem8_mean_floor": ((5, 1.0, 1.0), {}),
    "crossover_m": ((10_000, 0.01, "paper"), {}),
    "wme_mse_bound": ((0.96, [10.0, 1e4], [[1.0], [100.0]], 1.0, 1.0, 0.01), {}),
    "best_budget_split": ((1e5, 0.96, 1.0, 1.0, 0.01), {}),
    # baselines
    "nonprivate_mean": (([[0.0, 1.0], [1.0, 1.0]],), {}),
    "naive_clipped_mean": ((np.zeros(100), 1.0, 1.0), {"rng": 0}),
    "classic_gaussian_sigma": ((1.0, 1e-5, 1.0), {}),
    "group_privacy_item_budget": ((1.0, 1e-6, 4), {}),
    "group_privacy_mean": ((_USERS, 1.0, 1.0), {"rng": 0}),
    "nonprivate_mse": ((1.0, 100, 10), {}),
    "naive_laplace_mse": ((1.0, 100, 10, 1.0, 1.0), {}),
    "naive_gaussian_mse": ((1.0, 100, 10, 1.0, 1e-6, 1.0, 4), {}),
    "wme_mse": ((1.0, 100, 10, 1.0, 0.5), {}),
    "wme_safe_curve": ((1.0, 100, [1, 10, 1000], 1.0, 1.0, 0.01), {}),
    "item_level_mse": ((1.0, 100, 10, 1.0, 1.0), {}),
    # simulate
    "Population": (("bounded", 0.2, 1.0, 0.5, 0.2), {}),
    "sample_user_means": ((_POP, 5, 10), {"size": 2, "rng": 0}),
    "sample_users": ((_POP, 3, 4), {"rng": 0}),
    "simulate_errors": ((_POP, 100, 10, 1.0), {"trials": 5, "rng": 0}),
    "mse_table": ((_POP, 100, [10, 20], 1.0), {"trials": 5, "rng": 0}),
    "tau_sweep": ((_POP, 100, 10, 1.0, [0.1, 1.0]), {"trials": 5, "rng": 0}),
    "common_user_means": ((_POP, 50, [1, 10]), {"trials": 3, "seed": 0}),
    "mse_against_m": ((_POP, 50, [1, 10], 1.0), {"trials": 3}),
    "tau_knob_sweep": ((_POP, 50, 10, 1.0, [0.5, 1.0]), {"trials": 3}),
    # robust
    "AlgorithmA1D": ((_A.edges, _A.counts, _A.density, _A.garbage), {}),
    "algorithm_a_1d": ((_POINTS_1D, 1.0, 1.0, 0.1), {}),
    "AlgorithmA2D": ((np.array([0.0, 1.0]), np.array([0.0, 1.0]), np.ones((2, 2), dtype=int),
                      np.full((2, 2), 0.2), 0.2, 1.0), {}),
    "algorithm_a_2d": ((_POINTS_2D, 1.0, 1.0, 0.1), {"resolution": 20}),
    "hockey_stick_1d": ((_A, _B, 0.5), {}),
    "algorithm_a_privacy_profile": ((_POINTS_1D, _POINTS_1D[:-1] + [0.5], 1.0, 1.0, 0.1, [0.0, 1.0]), {}),
    "acceptance_probability_valid": ((10, 1.0), {}),
    "round_acceptance_1d": ((_POINTS_1D * 5, 1.0, 5.0, 0.1), {}),
    "prob_g2": ((0.5, 10.0), {}),
    "paper_round_cap": ((100, 0.5), {}),
    "teaching_round_cap": ((0.5,), {}),
    "DPEstimate1Result": ((np.array([0.1, 0.2]), "point", 3, 10), {}),
    "dp_estimate_1": ((np.zeros((30, 2)), 1.0, 5.0, 0.1), {"rng": 0}),
    "split_budget": ((1.0, 1e-6, 4), {}),
    "dp_estimate_2": ((np.zeros((30, 2)), 1.0, 5.0, 0.1), {"copies": 2, "rng": 0}),
    "dp_estimate_blocks": ((np.zeros((30, 4)), 1.0, 5.0, 0.1), {"rng": 0}),
    "dp_estimate_user": ((np.zeros((30, 3, 2)), 1.0, 5.0, 0.1), {"rng": 0}),
    "learn_discrete": ((np.zeros((30, 3)), 3, 5.0, 0.1), {"rng": 0}),
    "corrupt_users": ((np.zeros((10, 3)), 0.2), {"rng": 0}),
    "uniform_in_ball": ((np.zeros(2), 1.0, 5), {"rng": 0}),
    "users_lower_bound": ((1.0, 1e-6), {}),
    "levy_users_required": ((100, 1.0, 1e-6), {}),
    "prop14_users": ((1.0, 1e-6, 0.05), {}),
    "lemma9_chain": ((5, 1.0, 1e-6, 0.6), {}),
    "theorem7_error": ((100, 10, 4, 1.0, 1e-6, 0.05, 1.0), {}),
    "corollary8_error": ((100, 10, 4, 1.0, 1.0), {}),
    "robust_floor": ((0.25, 100, 1.0), {}),
    "theorem7_guarantee": ((100, 2, 1.0, 10.0), {}),
    "corollary8_samples": (([10.0, 100.0], 100, 1.0, 0.1, 1.0), {}),
    "levy_max_dimension": ((10, 1.0, 1e-6), {}),
    "algorithm_a_neighbours_2d": ((6, 1.0, 0.5, 1e-3), {"resolution": 20}),
    "robustness_curve": (([0.0, 0.25], 25, 1.0), {"n": 30, "runs": 1}),
    "iter_robustness_curve": (([0.0, 0.25], 25, 1.0), {"n": 30, "runs": 1}),
}

EXEMPT: dict[str, str] = {}


def test_every_public_callable_has_a_baseline():
    assert missing_baselines(MM, BASELINES, EXEMPT) == []


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_sweep_public_function(name):
    args, kwargs = BASELINES[name]
    assert sweep(getattr(MM, name), args, kwargs) == []


# ----------------------------------------------------------------------------------- classes: construct, then use


def _rotation_then_use(d, signs):
    rot = MM.HadamardRotation(d, signs)
    x = np.ones(rot.d)
    return rot.d_pad, rot.apply(x), rot.invert(rot.apply(x)), rot.matrix(), rot.apply_padded(np.ones(rot.d_pad))


def _bins_then_use(tau, bound):
    b = MM.RangeBins(tau, bound)
    return b.count, b.midpoint(np.array([0, b.count - 1])), b.index(np.array([-bound, 0.0, bound]))


def _population_then_use(kind, mean, bound, scale, heterogeneity):
    p = MM.Population(kind, mean, bound, scale, heterogeneity)
    return p.variance, p.user_mean_variance(10), MM.sample_user_means(p, 5, 10, rng=0), MM.sample_users(p, 3, 4, rng=0)


def _law_then_use(edges, counts, density, garbage):
    a = MM.AlgorithmA1D(edges, counts, density, garbage)
    return a.segment_probabilities, a.pdf(np.array([0.0, 0.5])), a.sample(5, rng=0), a.sample(rng=1)


CONSTRUCT_THEN_USE = {
    "HadamardRotation": _named(_rotation_then_use, "HadamardRotation"),
    "RangeBins": _named(_bins_then_use, "RangeBins"),
    "Population": _named(_population_then_use, "Population"),
    "AlgorithmA1D": _named(_law_then_use, "AlgorithmA1D"),
}


@pytest.mark.parametrize("name", sorted(CONSTRUCT_THEN_USE))
def test_sweep_constructor_then_methods(name):
    args, kwargs = BASELINES[name]
    assert sweep(CONSTRUCT_THEN_USE[name], args, kwargs) == []


_BINS = MM.RangeBins(0.3, 1.0)
METHODS = [
    ("HadamardRotation.apply", _ROT.apply, (np.ones(3),)),
    ("HadamardRotation.invert", _ROT.invert, (np.ones(4),)),
    ("HadamardRotation.apply_padded", _ROT.apply_padded, (np.ones(4),)),
    ("RangeBins.midpoint", _BINS.midpoint, (np.array([0, 1]),)),
    ("RangeBins.index", _BINS.index, (np.array([0.1, 0.9]),)),
    ("Population.user_mean_variance", _POP.user_mean_variance, (10,)),
    ("Population(heterogeneous).user_mean_variance", MM.Population("heterogeneous").user_mean_variance, (10,)),
    ("AlgorithmA1D.pdf", _A.pdf, (np.array([0.0, 0.5]),)),
    ("AlgorithmA1D.sample", _A.sample, (5,)),
    ("AlgorithmA2D.mass", MM.algorithm_a_2d(_POINTS_2D, 1.0, 1.0, 0.1, resolution=20).mass,
     (np.ones((20, 20), dtype=bool),)),
]


@pytest.mark.parametrize("label,fn,args", METHODS, ids=[c[0] for c in METHODS])
def test_sweep_public_method(label, fn, args):
    assert sweep(fn, args, {}) == []


# ----------------------------------------------------------------------------------- keyword-only arguments

_Z2 = np.zeros((30, 2))
# (function, positional baseline, keyword name, its valid value): the keyword is swept like a positional argument
KEYWORDS = [
    (MM.sample_user_means, (_POP, 5, 10), "size", 2),
    (MM.simulate_errors, (_POP, 100, 10, 1.0), "trials", 5),
    (MM.simulate_errors, (_POP, 100, 10, 1.0), "delta", 1e-6),
    (MM.simulate_errors, (_POP, 100, 10, 1.0), "gamma", 0.01),
    (MM.simulate_errors, (_POP, 100, 10, 1.0), "tau", 0.5),
    (MM.tau_sweep, (_POP, 100, 10, 1.0, [0.1, 1.0]), "trials", 5),
    (MM.private_range, ([0.1, 0.2, 0.9] * 10, 2.0, 0.25, 1.0), "half_width_factor", 2.0),
    (MM.winsorized_mean_1d, (np.full(50, 0.25), 1.0, 0.05, 1.0), "rng", 0),
    (MM.winsorized_mean_highd, (np.tile([0.5, -0.25], (200, 1)), 4.0, 1e-6, 0.05, 1.0), "gamma", 0.01),
    (MM.user_level_mean_1d, (_USERS, 1.0, 1.0), "tau", 0.3),
    (MM.user_level_mean_1d, (_USERS, 1.0, 1.0), "gamma", 0.01),
    (MM.user_level_mean, (_USERS_3D, 2.0, 1e-6, 1.0), "gamma", 0.01),
    (MM.naive_clipped_mean, (np.zeros(100), 1.0, 1.0), "delta", 1e-6),
    (MM.algorithm_a_1d, (_POINTS_1D, 1.0, 1.0, 0.1), "ball_radius", 2.0),
    (MM.algorithm_a_2d, (_POINTS_2D, 1.0, 1.0, 0.1), "resolution", 20),
    (MM.dp_estimate_1, (_Z2, 1.0, 5.0, 0.1), "N", 50.0),
    (MM.dp_estimate_1, (_Z2, 1.0, 5.0, 0.1), "alpha", 0.3),
    (MM.dp_estimate_2, (_Z2, 1.0, 5.0, 0.1), "copies", 2),
    (MM.dp_estimate_blocks, (np.zeros((30, 4)), 1.0, 5.0, 0.1), "k", 2),
    (MM.dp_estimate_user, (np.zeros((30, 3, 2)), 1.0, 5.0, 0.1), "markov_factor", 10.0),
    (MM.learn_discrete, (np.zeros((30, 3)), 3, 5.0, 0.1), "alpha", 0.05),
    (MM.corrupt_users, (np.zeros((10, 3)), 0.2), "magnitude", 10.0),
    (MM.uniform_in_ball, (np.zeros(2), 1.0, 5), "rng", 0),
]


def _keyword_case(fn, args, key):
    def call(value):
        kwargs = {"rng": 0} if key != "rng" else {}
        if fn is MM.dp_estimate_2 and key != "copies":
            kwargs["copies"] = 2
        return fn(*args, **{key: value}, **kwargs)

    return _named(call, f"{fn.__name__}({key}=)")


@pytest.mark.parametrize("fn,args,key,value", KEYWORDS, ids=[f"{c[0].__name__}-{c[2]}" for c in KEYWORDS])
def test_sweep_keyword_argument(fn, args, key, value):
    assert sweep(_keyword_case(fn, args, key), (value,), {}) == []


# ----------------------------------------------------------------------------------- extreme values, by hand


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*args, **kwargs)


def test_fwht_refuses_scalars_and_empty_input_with_a_message():
    for bad in (0, np.array([]), np.zeros((2, 0)), [1.0, 2.0, 3.0]):
        with pytest.raises(ValueError, match="x"):
            _quiet(MM.fwht, bad)
    # H₄ applied to e₁ is its first row (all ones); to (1, 2): (3, −1)
    assert _quiet(MM.fwht, [1.0, 0.0, 0.0, 0.0]).tolist() == [1.0, 1.0, 1.0, 1.0]
    assert _quiet(MM.fwht, [1.0, 2.0]).tolist() == [3.0, -1.0]


def test_prob_g2_extremes():
    # P[G2] = (1 − q)/((N − 1)q + 1): N = 1 gives 1 − q; N = 1e15 and q = 5e-324: (N − 1)q ≈ 5e-309, so ≈ 1 − q = 1
    assert _quiet(MM.prob_g2, 0.25, 1.0) == 0.75
    assert _quiet(MM.prob_g2, 5e-324, 1e15) == 1.0
    # q = 1: the first round always stops, P[G2] = 0
    assert _quiet(MM.prob_g2, 1.0, 1e15) == 0.0
    with pytest.raises(ValueError, match="N"):  # X ~ Geom(1/N) needs N ≥ 1; N = 5e-324 made (N − 1)q + 1 = 0
        _quiet(MM.prob_g2, 1.0, 5e-324)


def test_closed_forms_at_extreme_but_valid_values():
    # theorem1_beta = min{1, γ + (B/τ)e^{−nε/8}}: B/τ = 1e308/5e-324 overflows but e^{−nε/8} = e^{−1e6} = 0 wins: γ
    assert _quiet(MM.theorem1_beta, 8_000_000, 1.0, 5e-324, 1e308, 0.01) == 0.01
    # ... and with a moderate exponent the term is ≥ 1: β = 1
    assert _quiet(MM.theorem1_beta, 8, 1.0, 5e-324, 1e308, 0.01) == 1.0
    # theorem8_floor = e^{−nε}/(8(1 + e^{−nε})) → 1/16 as nε → 0 (nε = 5e-324)
    assert _quiet(MM.theorem8_floor, 1, 5e-324) == 0.0625
    assert _quiet(MM.theorem8_floor, 1, 1e308) == 0.0
    # users_lower_bound = ln(1/δ)/(3ε): δ = 5e-324 gives ln(1/δ) = 744.44007..., / 3
    assert _quiet(MM.users_lower_bound, 1.0, 5e-324) == pytest.approx(744.4400719213812 / 3)
    # classic σ with δ = 5e-324: √(2(ln 1.25 + 744.44...)) (1.25/δ overflows; its log does not)
    assert _quiet(MM.classic_gaussian_sigma, 1.0, 5e-324) == pytest.approx(
        math.sqrt(2 * (math.log(1.25) + 744.4400719213812)))
    # tau_paper = B√(ln(2n/γ)/(2m)) with γ = 5e-324: ln 2 + ln n + 744.44 (2n/γ overflows)
    assert _quiet(MM.tau_paper, 1.0, 1, 1, 5e-324) == pytest.approx(
        math.sqrt((math.log(2) + 744.4400719213812) / 2))


@pytest.mark.parametrize("fn,args", [
    (MM.naive_laplace_mse, (1.0, 1, 1, 5e-324, 1.0)),
    (MM.naive_laplace_mse, (1.0, 1, 1, 1.0, 1e308)),
    (MM.wme_mse, (1.0, 1, 1, 5e-324, 1.0)),
    (MM.wme_1d_noise_variance, (1, 5e-324, 1.0)),
    (MM.classic_gaussian_sigma, (5e-324, 1e-5)),
])
def test_results_beyond_the_double_range_are_a_value_error(fn, args):
    # e.g. 8B²/(n²ε²) at ε = 5e-324 is ≈ 3e648: not representable; refused, not returned as inf
    with pytest.raises(ValueError, match="double range"):
        _quiet(fn, *args)


@pytest.mark.parametrize("call,name", [
    (lambda n: MM.sample_user_means(_POP, n, 10, rng=0), "n"),
    (lambda n: MM.sample_user_means(_POP, 1000, 10, size=n, rng=0), "size"),
    (lambda n: MM.sample_users(_POP, n, 10, rng=0), "n"),
    (lambda n: MM.simulate_errors(_POP, 100, 10, 1.0, trials=n, rng=0), "trials"),
    (lambda n: MM.tau_sweep(_POP, 100, 10, 1.0, [0.1], trials=n, rng=0), "trials"),
    (lambda n: MM.random_rotation(n, rng=0), "d"),
    (lambda n: MM.uniform_in_ball(np.zeros(2), 1.0, n, rng=0), "size"),
    (lambda n: _A.sample(n, rng=0), "size"),
    (lambda n: MM.dp_estimate_2(np.zeros((30, 2)), 1.0, 5.0, 0.1, copies=n, rng=0), "copies"),
    (lambda n: MM.answer_adaptive_queries(np.zeros((30, 1)), _query, n, 8.0, 1e-6, 0.05, 1.0), "K"),
])
def test_allocated_sizes_are_capped(call, name):
    with pytest.raises(ValueError, match=name) as info:
        _quiet(call, 10**400)
    assert "<=" in str(info.value)  # the message names the cap
    with pytest.raises(ValueError, match=name):
        _quiet(call, 1e308)


def test_range_bins_count_is_capped():
    # B/τ = 1e308/5e-324 bins cannot be indexed; refused with the cap named
    with pytest.raises(ValueError, match="tau"):
        _quiet(MM.range_bins, 5e-324, 1e308)
    with pytest.raises(ValueError, match=str(W.DENSE_BINS.limit)):  # the exact law lists every bin
        _quiet(MM.private_range_probabilities, [0.0], 1.0, 1e-9, 1.0)
    # but PrivateRange samples exactly with many bins (segments), e.g. 5e8 of them
    a, b = _quiet(MM.private_range, [0.5] * 50, 10.0, 1e-9, 1.0, rng=0)
    assert b - a == pytest.approx(4e-9) and abs(0.5 * (a + b) - 0.5) < 1e-3


def test_algorithm_a_sample_marks_garbage_without_nan():
    # A law that is all garbage: every draw is ⊥ (masked), none is NaN
    law = MM.AlgorithmA1D(np.array([0.0, 1.0]), np.array([1]), np.array([0.0]), 1.0)
    out = _quiet(law.sample, 4, rng=0)
    assert np.ma.isMaskedArray(out) and out.mask.all() and not np.isnan(out.data).any()
    assert _quiet(law.sample, rng=0) is None
    # a law without garbage: no draw is masked, all lie in [0, 1]
    law = MM.AlgorithmA1D(np.array([0.0, 1.0]), np.array([1]), np.array([1.0]), 0.0)
    out = _quiet(law.sample, 100, rng=0)
    assert not out.mask.any() and 0.0 <= out.min() and out.max() <= 1.0


def test_rotation_matrix_is_capped_but_apply_is_not():
    rot = MM.random_rotation(5000, rng=0)  # d_pad = 8192: an 8192² matrix (512 MiB) is refused ...
    with pytest.raises(ValueError, match=str(H.MATRIX_DIMENSION.limit)):
        rot.matrix()
    x = np.zeros(5000)
    x[0] = 3.0
    # ... while U·x is computed in O(d log d): U is orthogonal, so ‖U·x‖₂ = 3
    assert np.linalg.norm(_quiet(rot.apply, x)) == pytest.approx(3.0)


def test_round_acceptance_at_huge_epsilon():
    # 30 users at 0 (f = n ≥ 2n/3 everywhere on B(0, 1)): each round stops w.p. q = (n/3W)(Z/V_B + 4/δ₁) →
    # (n/3)·e^{2ε₁n/3}·V_B/(n·e^{2ε₁n/3}·V_B) = 1/3 as ε → ∞ (the garbage terms vanish); e^{2ε₁n/3} overflows
    assert _quiet(MM.round_acceptance_1d, [0.0] * 30, 1.0, 1e308, 0.1) == pytest.approx(1 / 3, rel=1e-12)


def test_private_range_at_huge_epsilon_picks_the_cheapest_bin():
    # τ = 0.25, B = 1: bins [−1, −.5), [−.5, 0), [0, .5), [.5, 1]; 20 values in bin 2, 5 in bin 3: costs
    # max(#below, #above) = 25, 25, 5, 20. At ε = 1e308 the cheapest bin (midpoint 0.25) has probability 1.
    x = [0.1] * 20 + [0.9] * 5
    assert _quiet(MM.private_range_probabilities, x, 1e308, 0.25, 1.0)[1].tolist() == [0.0, 0.0, 1.0, 0.0]
    assert _quiet(MM.private_range, x, 1e308, 0.25, 1.0, rng=0) == (-0.25, 0.75)

# the coverage test (test_adversarial_coverage.py) reads what these sweeps cover
register(MM, BASELINES)
register(MM, EXEMPT, "exempt")
