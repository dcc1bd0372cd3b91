"""Adversarial-input sweep of the figure builders of lessons 11–14 (:mod:`dpviz.plots.few_examples`,
:mod:`~dpviz.plots.items_to_users`, :mod:`~dpviz.plots.learning`, :mod:`~dpviz.plots.mean`) and of the face of
:mod:`dpviz.plots` (``approx_note``, ``caption``, ``fmt_number``).

Each builder gets one valid baseline call with inputs made by the library's own functions, as the panels of
:mod:`dpviz.panels` make them; :func:`_adversarial.sweep` then replaces each positional argument in turn by 16 hostile
values (warnings raised as errors). Keyword-only arguments that carry numbers (ε, the marks, the reference lines) are
swept through small named wrappers that take them positionally. Separate tests check that arrays of the wrong shape,
non-finite entries where they make no sense and mismatched lengths are refused with a ValueError naming the
parameter, and that the size caps hold.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest
from _adversarial import contract_tests

import dpviz.plots as PL
from dpviz.learning import phased_erm_schedule, rates
from dpviz.learning.experiments import heterogeneity_formula, heterogeneity_m_star
from dpviz.plots import few_examples as FE
from dpviz.plots import items_to_users as IU
from dpviz.plots import learning as LE
from dpviz.plots import mean as ME
from dpviz.userlevel import (
    TABLE1_ROWS,
    DelStab,
    NoisySum,
    UserDataset,
    bounding_curves,
    clipping_tradeoff,
    delstab_parameters,
)


def _kw(fn, *names, name=None):
    """``fn`` with its keyword-only arguments ``names`` taken as its last positional ones (the sweep reaches them)."""

    def call(*args):
        k = len(args) - len(names)
        return fn(*args[:k], **dict(zip(names, args[k:])))

    call.__name__ = name or f"{fn.__name__}({', '.join(names)})"
    return call


# ------------------------------------------------------------------------------------------------ the face

FIG = go.Figure()
FACE = {
    "approx_note": ((go.Figure(), "grid"), {}),
    "caption": ((go.Figure(), "Source: Dwork & Roth 2014, Thm 3.6"), {}),
    "fmt_number": ((3.14159, 4), {}),
}
FACE_METHODS = {
    "approx_note(yshift)": (_kw(PL.approx_note, "yshift"), (go.Figure(), "grid", 12.0), {}),
    "caption(y)": (_kw(PL.caption, "y"), (go.Figure(), "Source", -0.2), {}),
    "caption(below)": (_kw(PL.caption, "below"), (go.Figure(), "Source", 60.0), {}),
}

# ------------------------------------------------------------------------------------------------ lesson 14

ROW = TABLE1_ROWS[0]
CLIP = clipping_tradeoff(100, 0.1, 0.3, 1.0, 1000, 100)  # the clipping panel's defaults
_PAR = delstab_parameters(4.0, 0.1)
_N = max(32, _PAR.min_users + 1)
_X = UserDataset.bernoulli(_N, 2, 0.5, rng=12345)
_X2 = _X.replace_user(0, np.ones(2, dtype=int))
_DS = DelStab(4.0, 0.1, NoisySum(epsilon0=0.1, high=(_N - _PAR.discarded) * 2))
PX, PX2 = _DS.output_pmf(_X), _DS.output_pmf(_X2)
ST, ST2 = _DS.stability(_X), _DS.stability(_X2)
N_GRID = np.array([2.0, 4.0, 8.0, 16.0])
ERRORS = {1: np.array([0.3, 0.2, 0.1, 0.05]), 8: np.array([0.1, 0.05, 0.02, 0.01])}
SES = {1: np.full(4, 0.01), 8: np.full(4, 0.005)}

FEW = {
    "side_by_side": ((FE.tdlap_figure(1.0, 1e-6, template="none"), FE.ptr_discard_figure(1.0, 1e-6, template="none")),
                     {}),
    "users_needed_figure": ((ROW, 0.5, 0.05, 10.0), {"constant": 1.0, "m_mark": 100.0}),
    "generic_users_figure": ((1.0, 1e-6), {}),
    "item_budget_figure": ((1.0, 1e-6), {}),
    "tdlap_figure": ((1.0, 1e-6), {}),
    "ptr_discard_figure": ((1.0, 1e-6), {}),
    "delstab_output_figure": ((_DS.outputs, PX, PX2), {"epsilon": 4.0, "delta": 0.1}),
    "delstab_test_figure": ((ST["tdlap"], ST["stable"], ST2["stable"]), {}),
    "swap_loss_figure": ((100, 0.5, 0.1), {}),
    "swap_loss_scaling_figure": ((0.5, 0.1), {"m_mark": 100}),
    "clipping_histogram_figure": ((CLIP, 10.0), {}),
    "clipping_tradeoff_figure": ((CLIP, 10.0), {"show_best": True}),
    "pac_error_figure": ((N_GRID, ERRORS), {"epsilon": 1.0, "grid_size": 100, "standard_errors": SES,
                                             "theory_grid": N_GRID}),
}
FEW_METHODS = {
    "users_needed_figure(constant, m_max, m_mark)": (
        _kw(FE.users_needed_figure, "constant", "m_max", "m_mark"), (ROW, 0.5, 0.05, 10.0, 1.0, 1e6, 100.0), {}),
    "generic_users_figure(n_priv, n_stat, c, constant, m_max)": (
        _kw(FE.generic_users_figure, "n_priv", "n_stat", "c", "constant", "m_max"),
        (1.0, 1e-6, 100.0, 1000.0, 1.0, 1.0, 1e8), {}),
    "item_budget_figure(m_max)": (_kw(FE.item_budget_figure, "m_max"), (1.0, 1e-6, 1e8), {}),
    "tdlap_figure(convention)": (_kw(FE.tdlap_figure, "convention"), (1.0, 1e-6, "printed"), {}),
    "ptr_discard_figure(convention)": (_kw(FE.ptr_discard_figure, "convention"), (1.0, 1e-6, "printed"), {}),
    "delstab_output_figure(epsilon, delta)": (_kw(FE.delstab_output_figure, "epsilon", "delta"),
                                              (_DS.outputs, PX, PX2, 4.0, 0.1), {}),
    "swap_loss_scaling_figure(m_mark)": (_kw(FE.swap_loss_scaling_figure, "m_mark"), (0.5, 0.1, 100), {}),
    "clipping_tradeoff_figure(show_best)": (_kw(FE.clipping_tradeoff_figure, "show_best"), (CLIP, 10.0, False), {}),
    "pac_error_figure(epsilon, grid_size, constant, standard_errors, theory_grid)": (
        _kw(FE.pac_error_figure, "epsilon", "grid_size", "constant", "standard_errors", "theory_grid"),
        (N_GRID, ERRORS, 1.0, 100, 1.0, SES, np.array([2.0, 4.0, 8.0, 16.0, 32.0])), {}),
    "side_by_side(height)": (_kw(FE.side_by_side, "height"), (FE.tdlap_figure(1.0, 1e-6), FE.tdlap_figure(1.0, 1e-6),
                                                               380), {}),
}

# ------------------------------------------------------------------------------------------------ lesson 11

BOUND = bounding_curves(1000, 5.0, 2.0, 1.0, mechanism="gaussian", delta=1e-6, cap=1000)  # the panel's defaults
BOUND_LAPLACE = bounding_curves(100, 5.0, 2.0, 1.0, mechanism="laplace", cap=200)
ITEMS = {
    "side_by_side": FEW["side_by_side"],
    "neighbours_figure": ((6, 5), {"user": 2, "index": 1, "kind": "user"}),
    "group_privacy_epsilon_figure": ((0.5, 1000), {"m_mark": 20, "delta": 1e-6}),
    "group_privacy_delta_figure": ((0.5, 1e-6, 1000), {"m_mark": 20}),
    "bounding_error_figure": ((BOUND, 10), {"show_optimum": True}),
    "contribution_histogram_figure": ((BOUND, 10), {}),
}
ITEMS_METHODS = {
    "neighbours_figure(user, index, kind, seed)": (_kw(IU.neighbours_figure, "user", "index", "kind", "seed"),
                                                   (6, 5, 2, 1, "item", 3), {}),
    "group_privacy_epsilon_figure(m_mark, delta)": (_kw(IU.group_privacy_epsilon_figure, "m_mark", "delta"),
                                                    (0.5, 1000, 20, 1e-6), {}),
    "group_privacy_delta_figure(m_mark)": (_kw(IU.group_privacy_delta_figure, "m_mark"), (0.5, 1e-6, 1000, 20), {}),
    "bounding_error_figure(show_optimum)[laplace]": (_kw(IU.bounding_error_figure, "show_optimum"),
                                                     (BOUND_LAPLACE, 10, True), {}),
    "contribution_histogram_figure[laplace]": (IU.contribution_histogram_figure, (BOUND_LAPLACE, 10), {}),
}

# ------------------------------------------------------------------------------------------------ lesson 13

_NS = np.geomspace(10, 1e7, 50)
_SIG = 1.0 / math.sqrt(10)
RATE_CURVES = {
    "upper": rates.sco_upper(_NS, 10, 10, 1.0, R=1.0, G=1.0, sigma=_SIG),
    "lower": rates.sco_lower(_NS, 10, 10, 1.0, R=1.0, G=1.0, sigma=_SIG),
    "item": rates.sco_item_level(_NS, 10, 10, 1.0, R=1.0, G=1.0),
    "naive": rates.sco_naive(_NS, 10, 10, 1.0, R=1.0, G=1.0),
}
RATE_NEED = float(rates.sco_users_needed(10, 10, 1.0, R=1.0, G=1.0, sigma=_SIG, C=1.0))
RATE_FLOOR = rates.fixed_n_floor(_NS, 1.0, B=1.0) * 2.0
_TS = np.geomspace(1, 1e5, 40)
LEVY = {d: rates.erm_users_needed(d, _TS, 1.0) for d in (1, 100, 1000)}
OURS = rates.erm_users_needed_003(100, _TS, 1.0)
_SCHED = phased_erm_schedule(10_000, 10, 10, 1.0, G=1.0, sigma=_SIG, R=1.0)
USERS, LAMBDAS = _SCHED.users[_SCHED.users >= 1], _SCHED.lambdas[_SCHED.users >= 1]
_STEPS = np.arange(0, 20, dtype=float)
TRAIN = {"user_level": (_STEPS, 1.0 / (1.0 + _STEPS)), "naive": (_STEPS, 2.0 / (1.0 + _STEPS))}
HMS = np.array([1.0, 3.0, 10.0, 30.0])
H_FORMULA, _ = heterogeneity_formula(200, HMS, 0.3)
H_CURVES = {"nonprivate": H_FORMULA * 1.1, "user_level": H_FORMULA * 3.0, "naive": H_FORMULA * 9.0}
LEARNING = {
    "training_curves_figure": ((TRAIN,), {"labels": {"naive": "naive, ε = 1"}}),
    "rates_figure": ((_NS, RATE_CURVES), {"invalid_below": RATE_NEED, "floor": RATE_FLOOR}),
    "users_needed_figure": ((_TS, LEVY, OURS), {"n": 1000.0}),
    "phased_schedule_figure": ((USERS, LAMBDAS), {"n": 10_000}),
    "heterogeneity_figure": ((HMS, H_CURVES), {"formula": H_FORMULA, "formula_ms": HMS,
                                               "m_star": heterogeneity_m_star(0.3)}),
}
LEARNING_METHODS = {
    "training_curves_figure(labels, ylabel, log_y, title)": (
        _kw(LE.training_curves_figure, "labels", "ylabel", "log_y", "title"), (TRAIN, None, "loss", False, "t"), {}),
    "rates_figure(invalid_below, floor, title)": (_kw(LE.rates_figure, "invalid_below", "floor", "title"),
                                                   (_NS, RATE_CURVES, RATE_NEED, RATE_FLOOR, "rates"), {}),
    "users_needed_figure(n, title)": (_kw(LE.users_needed_figure, "n", "title"), (_TS, LEVY, OURS, 1000.0, "t"), {}),
    "phased_schedule_figure(n, title)": (_kw(LE.phased_schedule_figure, "n", "title"),
                                         (USERS, LAMBDAS, 10_000, "t"), {}),
    "heterogeneity_figure(formula, formula_ms, m_star, title)": (
        _kw(LE.heterogeneity_figure, "formula", "formula_ms", "m_star", "title"),
        (HMS[:2], {k: v[:2] for k, v in H_CURVES.items()}, H_FORMULA, HMS, 3.0, "t"), {}),
}

# ------------------------------------------------------------------------------------------------ lesson 12

_M_GRID = np.array([1.0, 10.0, 100.0, 1000.0])
SIM = {"naive_laplace": [1e-5, 1e-5, 1e-5, 1e-5], "winsorized": [1e-3, 1e-4, 1e-5, 1e-6]}
FORM = {"naive_laplace": [8e-6] * 4, "winsorized": [9e-4, 9e-5, 9e-6, 9e-7], "nonprivate": [1e-3, 1e-4, 1e-5, 1e-6]}
_RATIOS = 10.0 ** np.round(np.arange(-1.3, 1.0 + 1e-9, 0.1), 10)
_R = _RATIOS.size
TAU_SWEEP = {"bias2": np.geomspace(1e-1, 1e-8, _R), "noise": np.geomspace(1e-7, 1e-3, _R),
             "mse": np.geomspace(1e-1, 1e-3, _R), "clipped": np.linspace(0.9, 0.0, _R)}
PRESETS = {"paper": 0.5, "safe": 1.0, "oracle (not private)": 0.8}
_LN, _LM = np.linspace(1, 5, 9), np.linspace(0, 4, 9)
LOG_ERR = -_LN[None, :] - 0.5 * _LM[:, None]
_NSI = np.logspace(0, 5, 30)
ISO = {"target 0.1": np.where(_NSI >= 3, 1e4 / _NSI, np.nan)}
WALLS = {"wall A": 3.0, "wall B": 300.0}
_DS_ = 2.0 ** np.arange(0, 8)
OURS_D, OLDER_D = 0.01 * np.sqrt(_DS_), np.where(_DS_ < 30, 0.01 * np.sqrt(_DS_), np.nan)
_XS = np.linspace(-3, 3, 12)
Z = np.where(np.add.outer(_XS**2, _XS**2) < 4, -np.add.outer(_XS**2, _XS**2), np.nan)
POINTS = np.array([[0.0, 0.0], [1.0, 0.5], [-0.5, 1.0]])
KAPPAS = np.array([0.0, 0.1, 0.2, 0.3])
ROBUST, NAIVE = np.array([0.1, 0.12, 0.15, np.nan]), np.array([0.1, 1.0, 2.0, 3.0])
FLOOR = np.array([np.nan, 0.01, 0.02, 0.03])
_MS_F = np.logspace(0, 5, 10)
FLOORS = {2: 0.05, 5: 0.003}
WME = {2: 1.0 / _MS_F, 5: 0.1 / _MS_F}
BETA = {2: np.full(10, 0.6), 5: np.full(10, 0.1)}
MEAN = {
    "mse_vs_m_figure": ((_M_GRID, SIM, FORM), {"crossover": 50.0}),
    "tau_knob_figure": ((_RATIOS, TAU_SWEEP), {"current": 1.0, "presets": PRESETS, "trials": 60}),
    "budget_heatmap_figure": ((_LN, _LM, LOG_ERR), {"budgets": [1e3, 1e5, 1e7], "best": [(3.0, 2.0)]}),
    "iso_accuracy_figure": ((_NSI, ISO), {"walls": WALLS}),
    "error_vs_d_figure": ((_DS_, OURS_D, OLDER_D), {"n": 100}),
    "ball_finding_figure": ((_XS, _XS, Z, POINTS, 1.0), {"moved": 2}),
    "garbage_figure": ((["a point", "f = 1", "garbage"], [0.9, 1e-3, 0.05], [0.89, 2e-3, 0.06]), {}),
    "robustness_figure": ((KAPPAS, ROBUST, NAIVE, FLOOR), {"bound": 2.0, "current": 0.25}),
    "fixed_n_floor_figure": ((_MS_F, FLOORS, WME), {"beta": BETA}),
}
MEAN_METHODS = {
    "mse_vs_m_figure(crossover, title)": (_kw(ME.mse_vs_m_figure, "crossover", "title"),
                                          (_M_GRID, SIM, FORM, 50.0, "t"), {}),
    "tau_knob_figure(current, presets, trials)": (_kw(ME.tau_knob_figure, "current", "presets", "trials"),
                                                  (_RATIOS, TAU_SWEEP, 1.0, PRESETS, 60), {}),
    "budget_heatmap_figure(budgets, best, z_label, source)": (
        _kw(ME.budget_heatmap_figure, "budgets", "best", "z_label", "source"),
        (_LN, _LM, LOG_ERR, [1e5], [(3.0, 2.0)], "z", "Source: x"), {}),
    "iso_accuracy_figure(walls)": (_kw(ME.iso_accuracy_figure, "walls"), (_NSI, ISO, WALLS), {}),
    "error_vs_d_figure(n)": (_kw(ME.error_vs_d_figure, "n"), (_DS_, OURS_D, OLDER_D, 100), {}),
    "ball_finding_figure(moved, z_label, title)": (_kw(ME.ball_finding_figure, "moved", "z_label", "title"),
                                                   (_XS, _XS, Z, POINTS, 1.0, 0, "z", "t"), {}),
    "robustness_figure(bound, current, floor_label)": (
        _kw(ME.robustness_figure, "bound", "current", "floor_label"), (KAPPAS, ROBUST, NAIVE, FLOOR, 2.0, 0.1, "f"),
        {}),
    "fixed_n_floor_figure(beta)": (_kw(ME.fixed_n_floor_figure, "beta"), (_MS_F, FLOORS, WME, BETA), {}),
}

globals().update(contract_tests(PL, FACE, methods=FACE_METHODS, suffix="face"))
globals().update(contract_tests(FE, FEW, methods=FEW_METHODS, suffix="few_examples"))
globals().update(contract_tests(IU, ITEMS, methods=ITEMS_METHODS, suffix="items_to_users"))
globals().update(contract_tests(LE, LEARNING, methods=LEARNING_METHODS, suffix="learning"))
globals().update(contract_tests(ME, MEAN, methods=MEAN_METHODS, suffix="mean"))


# ------------------------------------------------------------------------------------------------ arrays
# Every array a builder takes: the wrong shape, a length that does not match its axis, and non-finite values where
# they make no sense are refused with a ValueError naming the parameter (plotly drew mismatched x and y silently,
# truncated to the shorter one, and sent NaN reference lines that stop a widget's updates in the browser).

_SHORT, _NAN = np.array([1.0, 2.0]), np.array([1.0, np.nan, 2.0, 3.0])
ARRAY_CASES = {
    "mse_vs_m_figure: simulated['winsorized'] shorter than ms": (
        lambda: ME.mse_vs_m_figure(_M_GRID, {"winsorized": _SHORT}, FORM), r"simulated\['winsorized'\] has 2 .*ms 4"),
    "mse_vs_m_figure: ms not increasing": (lambda: ME.mse_vs_m_figure(_M_GRID[::-1], SIM, FORM),
                                           "ms is not increasing"),
    "mse_vs_m_figure: ms with NaN": (lambda: ME.mse_vs_m_figure(_NAN, SIM, FORM), "ms contains 1 NaN"),
    "tau_knob_figure: sweep['clipped'] above 1": (
        lambda: ME.tau_knob_figure(_RATIOS, {**TAU_SWEEP, "clipped": TAU_SWEEP["clipped"] + 1}, current=1.0,
                                   presets=PRESETS), r"sweep\['clipped'\] = 1.9 .*<= 1"),
    "tau_knob_figure: presets value NaN": (
        lambda: ME.tau_knob_figure(_RATIOS, TAU_SWEEP, current=1.0, presets={"paper": math.nan}),
        r"presets\['paper'\] = nan"),
    "budget_heatmap_figure: log_err transposed": (
        lambda: ME.budget_heatmap_figure(_LN, _LM[:5], LOG_ERR[:5].T, budgets=[1e5]), r"log_err has shape \(9, 5\)"),
    "budget_heatmap_figure: empty log_n": (lambda: ME.budget_heatmap_figure([], _LM, LOG_ERR, budgets=[1e5]),
                                           "log_n is empty"),
    "iso_accuracy_figure: wall at NaN": (lambda: ME.iso_accuracy_figure(_NSI, ISO, walls={"w": math.nan}),
                                         r"walls\['w'\] = nan"),
    "error_vs_d_figure: ours shorter than ds": (lambda: ME.error_vs_d_figure(_DS_, OURS_D[:3], OLDER_D, n=100),
                                                "ours has 3 values and ds 8"),
    "ball_finding_figure: z of the wrong shape": (lambda: ME.ball_finding_figure(_XS, _XS, Z[:, :5], POINTS, 1.0),
                                                  r"z has shape \(12, 5\)"),
    "ball_finding_figure: points in 3-D": (lambda: ME.ball_finding_figure(_XS, _XS, Z, np.zeros((3, 3)), 1.0),
                                           r"points has shape \(3, 3\)"),
    "ball_finding_figure: moved outside the points": (
        lambda: ME.ball_finding_figure(_XS, _XS, Z, POINTS, 1.0, moved=3), r"moved = 3 .*<= 2"),
    "garbage_figure: a probability above 1": (lambda: ME.garbage_figure(["a"], [1.5], [0.5]), r"values_x = 1.5"),
    "robustness_figure: kappas beyond 1": (lambda: ME.robustness_figure(KAPPAS * 4, ROBUST, NAIVE, FLOOR),
                                           r"kappas = 1.2 .*<= 1"),
    "robustness_figure: naive shorter than kappas": (lambda: ME.robustness_figure(KAPPAS, ROBUST, NAIVE[:2], FLOOR),
                                                     "naive has 2 values and kappas 4"),
    "fixed_n_floor_figure: wme missing an n of floors": (
        lambda: ME.fixed_n_floor_figure(_MS_F, FLOORS, {2: WME[2]}), "(?s)wme = .* every n of floors"),
    "rates_figure: floor shorter than ns": (lambda: LE.rates_figure(_NS, RATE_CURVES, floor=RATE_FLOOR[:3]),
                                            "floor has 3 values and ns 50"),
    "rates_figure: a rate of 0 on the log axis": (
        lambda: LE.rates_figure(_NS, {"upper": np.zeros(_NS.size)}), r"curves\['upper'\] = 0.0 .*> 0"),
    "users_needed_figure: ours 2-D": (lambda: LE.users_needed_figure(_TS, LEVY, np.vstack([OURS, OURS])),
                                      r"ours has shape \(2, 40\)"),
    "training_curves_figure: values shorter than steps": (
        lambda: LE.training_curves_figure({"naive": (_STEPS, _STEPS[:3])}),
        r"curves\['naive'\] values has 3 values and its steps 20"),
    "phased_schedule_figure: more users than n": (lambda: LE.phased_schedule_figure(USERS, LAMBDAS, n=10),
                                                  "users = .*at most n = 10"),
    "heterogeneity_figure: formula shorter than formula_ms": (
        lambda: LE.heterogeneity_figure(HMS, H_CURVES, formula=H_FORMULA[:2], formula_ms=HMS),
        "formula has 2 values and formula_ms 4"),
    "heterogeneity_figure: m_star NaN": (lambda: LE.heterogeneity_figure(HMS, H_CURVES, m_star=math.nan),
                                         "m_star = nan"),
    "pac_error_figure: errors shorter than n_grid": (
        lambda: FE.pac_error_figure(N_GRID, {1: ERRORS[1][:2]}, epsilon=1.0, grid_size=100),
        r"errors\[1\] has 2 values and n_grid 4"),
    "pac_error_figure: a key m that is not a count": (
        lambda: FE.pac_error_figure(N_GRID, {0: ERRORS[1]}, epsilon=1.0, grid_size=100), "key m = 0"),
    "delstab_output_figure: pmf_x2 shorter than outputs": (
        lambda: FE.delstab_output_figure(_DS.outputs, PX, PX2[:2], epsilon=4.0, delta=0.1),
        "pmf_x2 has 2 values and outputs"),
    "delstab_test_figure: stable_x not booleans": (
        lambda: FE.delstab_test_figure(ST["tdlap"], np.full(ST["tdlap"].size, 0.5), ST2["stable"]),
        "stable_x = 0.5 .*True or False"),
    "swap_loss_scaling_figure: m_mark NaN": (lambda: FE.swap_loss_scaling_figure(0.5, 0.1, m_mark=math.nan),
                                             "m_mark = nan"),
    "side_by_side: not a figure": (lambda: IU.side_by_side(FIG, {"data": []}), "right = "),
}


@pytest.mark.parametrize("label", sorted(ARRAY_CASES))
def test_builders_refuse_bad_arrays_naming_the_parameter(label):
    call, match = ARRAY_CASES[label]
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_figure_arrays_are_capped():
    big = np.geomspace(1.0, 1e6, 100_001)
    with pytest.raises(ValueError, match=r"the size of ms = 100001 is not allowed: must be <= 100000"):
        ME.mse_vs_m_figure(big, {}, {"winsorized": 1.0 / big})
    ok = np.geomspace(1.0, 1e6, 100_000)
    assert len(ME.mse_vs_m_figure(ok, {}, {"winsorized": 1.0 / ok}).data[0].x) == 100_000


# ------------------------------------------------------------------------------------------------ defects


def test_a_subnormal_delta_is_printed_not_a_crash():
    # δ = 5e-324 is a valid δ; _pow10 divided by 10.0**-324 == 0 (ZeroDivisionError) in both builders' titles
    fig = IU.group_privacy_delta_figure(0.5, 5e-324, 100)
    assert "4.94·10⁻³²⁴" in fig.layout.title.text
    assert "4.94·10⁻³²⁴" in FE.generic_users_figure(1.0, 5e-324).layout.title.text


def test_delstab_output_figure_at_a_large_epsilon_draws_the_overflow_as_a_gap():
    # ε = 800: e^ε·P′ overflowed in np.exp (a RuntimeWarning; the widget got ±inf); it is a gap now, the pmfs stay
    fig = FE.delstab_output_figure(_DS.outputs, PX, PX2, epsilon=800.0, delta=0.1)
    line = fig.data[2].y
    assert all(v is None or v == 0.0 for v in line) and any(v is None for v in line)
    assert list(fig.data[0].y) == PX.tolist()


def test_fmt_number_refuses_nan_and_overflowing_ints():
    # fmt_number(nan) printed "nan" into a readout; fmt_number(10**400) raised OverflowError
    with pytest.raises(ValueError, match="x = nan"):
        PL.fmt_number(math.nan)
    with pytest.raises(ValueError, match="double range"):
        PL.fmt_number(10**400)
    with pytest.raises(ValueError, match=r"digits = 0 .*>= 1"):
        PL.fmt_number(1.0, 0)
    got = (PL.fmt_number(-math.inf), PL.fmt_number(np.float64(2.5), 2), PL.fmt_number(10**20))
    assert got == ("−∞", "2.5", "1e+20")


def test_swap_loss_figures_cap_epsilon0():
    # ε₀ = 1e308 overflowed the loss axis ε₀·k (a RuntimeWarning); ε₀ ≤ 1000 keeps ε₀·m finite for m ≤ 10⁶
    with pytest.raises(ValueError, match=r"epsilon0 = 1e\+308 .*\(0, 1000\]"):
        FE.swap_loss_figure(100, 0.5, 1e308)
    with pytest.raises(ValueError, match=r"epsilon0 = 1001.0 "):
        FE.swap_loss_scaling_figure(0.5, 1001.0)
    fig = FE.swap_loss_figure(10**6, 0.5, 1000.0)
    assert math.isfinite(fig.layout.xaxis.range[1])


def test_caption_and_note_refuse_what_they_cannot_place():
    with pytest.raises(TypeError, match="fig = "):
        PL.caption({"data": []}, "Source")
    with pytest.raises(TypeError, match="text = 3"):
        PL.approx_note(go.Figure(), 3)
    with pytest.raises(ValueError, match=r"below = inf"):
        PL.caption(go.Figure(), "Source", below=math.inf)
    with pytest.raises(ValueError, match=r"yshift = 1e\+308"):
        PL.approx_note(go.Figure(), "grid", yshift=1e308)
    fig = PL.caption(go.Figure(), "Source", below=PL._theme.PIXELS.high)
    assert fig.layout.margin.b >= 2000
