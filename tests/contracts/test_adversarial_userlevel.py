"""Adversarial-input sweep of :mod:`dpviz.userlevel` (issue 12, findings 6 and 7).

Every public callable of ``dpviz.userlevel.__all__`` gets one valid baseline call; :func:`tests._adversarial.sweep`
then replaces each positional argument in turn by each of 16 hostile values (0, −1, −0.0, NaN, ±inf, 1e308, 5e-324,
10**400, True, None, "1", 1+1j, [], an empty array, a ragged list) with warnings raised as errors. Only a
ValueError/TypeError with a message, or a NaN-free result, passes. Classes are swept through their constructor and
through every public method of a valid instance (properties excluded); keyword arguments that take numbers are
swept through small wrappers. Forgetting a baseline is a failure.

The cap tests at the end check that every size the package allocates (users, examples, trials, grid and domain
sizes, κ, cover size, …) is refused beyond its cap with a ValueError that names the cap, and that the issue's
examples (``contribution_bound(0)``, ``bounding_tradeoff(1.0, 1e308, …)``, ``breakpoints(…, 5e-324)``, DelStab on
40 000 users) now get a ValueError instead of an AttributeError / OverflowError / ZeroDivisionError / 23.8 GiB.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from _adversarial import call_outcome, missing_baselines, register, sweep

import dpviz.userlevel as U
from dpviz.userlevel import data as caps

# ----------------------------------------------------------------------------------------------- fixtures

DS = U.UserDataset([[0, 1, 1], [1, 0], [1, 1, 1, 0]], domain=(0, 1))
RECT = U.UserDataset.from_array([[0, 1], [1, 1], [0, 0]], domain=(0, 1))
H = U.ThresholdClass(6)
X, Y = H.sample(8, 3, target=2, rng=0)
PRED = H.predictions()
CANDS = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]])
XS = np.random.default_rng(3).choice(3, size=(10, 4), p=CANDS[0])
NS = U.NoisySum(0.5, 12)
DSTAB = U.DelStab(3.0, 0.1, U.NoisySum(0.5, 12))
DX = U.UserDataset.bernoulli(26, 2, 0.5, rng=0)
EM = U.ClippedPairwiseEM(1.0, 2.0)
USUMS = np.array([[[0, 0], [-3, 1]], [[3, -1], [0, 0]]], dtype=float)
PSI = np.zeros((2, 2, 3, 2))
ROW1 = U.TABLE1_ROWS[0]
ROW2 = U.TABLE2_ROWS[1]
SEL = U.realizable_pac_learner(X, Y, PRED, 1.0, rng=0)


def _named(fn, name):
    fn.__name__ = name
    return fn


def _fields(obj) -> tuple:
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))


BASELINES: dict[str, tuple[tuple, dict]] = {
    # data
    "UserDataset": ((DS.blocks, (0, 1)), {}),
    # baselines
    "contribution_bound": ((DS, 2, 0), {}),
    "truncation_bias": ((DS, 2, "mean"), {}),
    "bounding_tradeoff": ((DS, [1, 2, 3], 1.0), {}),
    "group_privacy_lift": ((0.1, 1e-6, 10), {}),
    "group_privacy_item_budget": ((1.0, 1e-6, 10), {}),
    # bounding (lesson 11)
    "int_log_grid": ((1, 100, 10), {}),
    "sample_counts": ((20, 3.0, 1.5, 30, 0), {}),
    "bounding_curves": ((20, 3.0, 1.5, 1.0), {"mechanism": "gaussian", "cap": 30}),
    # ptr
    "kappa": ((1.0, 1e-6), {}),
    "tdlap_pmf": ((1.0, 0.1), {}),
    "tdlap_sample": ((1.0, 0.1, 5, 0), {}),
    "DelStabParameters": ((1 / 3, 1e-7, 48), {}),
    "delstab_parameters": ((1.0, 1e-6), {}),
    "hockey_stick": (([0.5, 0.5], [1.0, 0.0], 0.0), {}),
    "approx_eq": (([0.6, 0.4], [0.5, 0.5], 0.2, 0.02), {}),
    "is_lddp": ((NS.pmf, RECT, 1, 2.5, 0.0), {}),
    "NoisySum": ((0.5, 12, 1), {}),
    "DelStab": ((3.0, 0.1, NS, "proof"), {}),
    "subsample_users": ((DS, 2), {"rng": 0}),
    "subsampling_amplification": ((1.0, 1e-6, 10, 100), {}),
    "swap_difference_pmf": ((10, 0.3), {}),
    "pmf_quantile": (([0.2, 0.3, 0.5], 0.5), {}),
    "discard_curves": (("proof",), {}),
    # bounds
    "theorem10_item_epsilon": ((4.0, 1.0, 1e-6), {}),
    "theorem10_item_delta": ((4.0, 1.0, 1e-6), {}),
    "conjectured_item_epsilon": ((4.0, 1.0, 1e-6), {}),
    "item_level_users": ((0.5, 1e-6), {}),
    "observation28_bounds": ((100.0, 7), {}),
    "theorem10_users": ((4.0, 1.0, 1e-6), {}),
    "theorem11_users": ((4.0, 1.0, 1e-6), {}),
    "corollary3_users": ((4.0, 1.0, 1e-6), {}),
    "group_privacy_users": ((4.0, 1.0, 1e-6), {}),
    "theorem4_users": ((4.0, 1.0, 0.1, 3.0), {}),
    "breakpoints": ((0.5, 0.1), {}),
    "crossover_group_privacy": ((1.0, 1e-6), {}),
    "regime_breakpoints": ((ROW1, 0.5, 0.1, 3.0), {}),
    "BoundRow": (_fields(ROW1), {}),
    # learners
    "Selection": (_fields(SEL), {}),
    "ThresholdClass": ((6,), {}),
    "pac_scores": ((X, Y, PRED), {}),
    "realizable_pac_learner": ((X, Y, PRED, 1.0), {"alpha": 0.3, "rng": 0}),
    "ClippedPairwiseEM": ((1.0, 2.0), {}),
    "agnostic_pac_learner": ((X, Y, PRED, 1.0), {"alpha": 0.3, "rng": 0}),
    "scheffe_selection": ((XS, CANDS, 1.0), {"alpha": 0.3, "rng": 0}),
    "discrete_cover": ((2, 0.5), {}),
    "learn_distribution_cover": ((XS, 3, 1.0, 0.5), {"cover": U.discrete_cover(3, 0.5, resolution=4), "rng": 0}),
    "simulate_threshold_learning": (([5, 10], 2, 1.0), {"grid_size": 10, "trials": 3, "rng": 0}),
    "paper_tau": ((100, 0.1), {}),
    "pairwise_sum_pmf": ((4, 0.3, 0.2), {}),
    "clipping_tradeoff": ((10, 0.1, 0.3, 1.0, 100, 10), {"beta": 0.1}),
}

# keyword arguments that take numbers or sizes, swept through positional wrappers
KEYWORD_BASELINES: dict[str, tuple] = {
    "UserDataset.bernoulli[counts]": (
        _named(lambda n, counts: U.UserDataset.bernoulli(n, counts=counts, rng=0), "bernoulli"), (3, [1, 2, 3])),
    "bounding_tradeoff[value_range, statistic, level]": (
        _named(lambda vr, st, lv: U.bounding_tradeoff(DS, [1, 2], 1.0, value_range=vr, statistic=st, level=lv),
               "bounding_tradeoff"), (2.0, "sum", "user")),
    "delstab_parameters[convention]": (
        _named(lambda c: U.delstab_parameters(1.0, 1e-6, convention=c), "delstab_parameters"), ("printed",)),
    "approx_eq[tol]": (_named(lambda t: U.approx_eq([0.6, 0.4], [0.5, 0.5], 0.2, 0.02, tol=t), "approx_eq"),
                       (1e-12,)),
    "item_level_users[n_priv, n_stat, c, constant]": (
        _named(lambda a, b, c, C: U.item_level_users(0.5, 1e-6, n_priv=a, n_stat=b, c=c, constant=C),
               "item_level_users"), (3.0, 10.0, 1.0, 2.0)),
    "theorem10_users[n_priv, n_stat, c, constant]": (
        _named(lambda a, b, c, C: U.theorem10_users(4.0, 1.0, 1e-6, n_priv=a, n_stat=b, c=c, constant=C,
                                                    terms=True), "theorem10_users"), (3.0, 10.0, 1.0, 2.0)),
    "theorem11_users[n_priv, n_stat, c, constant]": (
        _named(lambda a, b, c, C: U.theorem11_users(4.0, 1.0, 1e-6, n_priv=a, n_stat=b, c=c, constant=C,
                                                    terms=True), "theorem11_users"), (3.0, 10.0, 1.0, 2.0)),
    "corollary3_users[n_priv, n_stat, c, constant]": (
        _named(lambda a, b, c, C: U.corollary3_users(4.0, 1.0, 1e-6, n_priv=a, n_stat=b, c=c, constant=C,
                                                     terms=True), "corollary3_users"), (3.0, 10.0, 1.0, 2.0)),
    "group_privacy_users[n_priv, n_stat, c, constant]": (
        _named(lambda a, b, c, C: U.group_privacy_users(4.0, 1.0, 1e-6, n_priv=a, n_stat=b, c=c, constant=C,
                                                        terms=True), "group_privacy_users"), (3.0, 10.0, 1.0, 2.0)),
    "theorem4_users[constant]": (
        _named(lambda C: U.theorem4_users(4.0, 1.0, 0.1, 3.0, constant=C, terms=True), "theorem4_users"), (2.0,)),
    "theorem10_item_delta[constant]": (
        _named(lambda C: U.theorem10_item_delta(4.0, 1.0, 1e-6, constant=C), "theorem10_item_delta"), (2.0,)),
    "crossover_group_privacy[kind=users]": (
        _named(lambda e, d, a, b, c, mm: U.crossover_group_privacy(e, d, kind="users", n_priv=a, n_stat=b, c=c,
                                                                   m_max=mm), "crossover_group_privacy"),
        (1.0, 1e-6, 1.0, 0.0, 1.0, 1e15)),
    "realizable_pac_learner[alpha]": (
        _named(lambda a: U.realizable_pac_learner(X, Y, PRED, 1.0, alpha=a, rng=0), "realizable_pac_learner"),
        (0.3,)),
    "agnostic_pac_learner[alpha, tau]": (
        _named(lambda a, t: U.agnostic_pac_learner(X, Y, PRED, 1.0, alpha=a, tau=t, rng=0), "agnostic_pac_learner"),
        (0.3, 2.0)),
    "scheffe_selection[alpha, tau, m]": (
        _named(lambda a, t, m: U.scheffe_selection(XS, CANDS, 1.0, alpha=a, tau=t, m=m, rng=0), "scheffe_selection"),
        (0.3, 2.0, 4)),
    "scheffe_selection[ragged, m]": (
        _named(lambda m: U.scheffe_selection(DS, CANDS[:, :2] / CANDS[:, :2].sum(axis=1, keepdims=True), 1.0,
                                             alpha=0.3, m=m, rng=0), "scheffe_selection"), (3,)),
    "discrete_cover[resolution, max_size]": (
        _named(lambda r, s: U.discrete_cover(3, 0.5, resolution=r, max_size=s), "discrete_cover"), (4, 100)),
    "learn_distribution_cover[tau, m]": (
        _named(lambda t, m: U.learn_distribution_cover(XS, 3, 1.0, 0.5, cover=U.discrete_cover(3, 0.5, resolution=4),
                                                       tau=t, m=m, rng=0), "learn_distribution_cover"), (2.0, 4)),
    "simulate_threshold_learning[keywords]": (
        _named(lambda K, a, T, eta, tgt: U.simulate_threshold_learning(
            [5, 10], 2, 1.0, grid_size=K, alpha=a, trials=T, label_noise=eta, target=tgt, rng=0),
            "simulate_threshold_learning"), (10, 0.3, 3, 0.1, 4)),
    "simulate_threshold_learning[agnostic]": (
        _named(lambda K, a, T: U.simulate_threshold_learning(
            5, 2, 1.0, grid_size=K, alpha=a, trials=T, learner="agnostic", label_noise=0.1, rng=0),
            "simulate_threshold_learning"), (10, 0.3, 3)),
    "paper_tau[constant]": (_named(lambda C: U.paper_tau(100, 0.1, constant=C), "paper_tau"), (2.0,)),
    "ThresholdClass.sample[label_noise]": (_named(lambda eta: H.sample(4, 2, 1, label_noise=eta, rng=0), "sample"),
                                           (0.2,)),
    "DelStab.output_pmf[method]": (_named(lambda meth: DSTAB.output_pmf(DX, method=meth), "output_pmf"), ("types",)),
}

METHOD_BASELINES: dict[str, tuple[object, str, tuple, dict]] = {
    # UserDataset
    "UserDataset.from_array": (U.UserDataset, "from_array", ([[0, 1], [1, 1]], (0, 1)), {}),
    "UserDataset.bernoulli": (U.UserDataset, "bernoulli", (3, 2, 0.5), {"rng": 0}),
    "UserDataset.as_array": (RECT, "as_array", (), {}),
    "UserDataset.items": (DS, "items", (), {}),
    "UserDataset.user_of_item": (DS, "user_of_item", (), {}),
    "UserDataset.user_sums": (DS, "user_sums", (), {}),
    "UserDataset.equals": (DS, "equals", (RECT,), {}),
    "UserDataset.replace_user": (DS, "replace_user", (1, [1, 1]), {}),
    "UserDataset.remove_users": (DS, "remove_users", ([0],), {}),
    "UserDataset.select_users": (DS, "select_users", ([0, 2],), {}),
    "UserDataset.item_neighbor": (DS, "item_neighbor", (), {"user": 0, "index": 1, "value": 0, "rng": 0}),
    "UserDataset.user_neighbor": (DS, "user_neighbor", (), {"user": 1, "rng": 0}),
    "UserDataset.iter_user_neighbors": (DS, "iter_user_neighbors", (1,), {}),
    "UserDataset.neighbor_pair": (DS, "neighbor_pair", ("user",), {"rng": 0}),
    # ThresholdClass
    "ThresholdClass.predictions": (H, "predictions", (), {}),
    "ThresholdClass.errors": (H, "errors", (2, 0.1), {}),
    "ThresholdClass.sample": (H, "sample", (4, 2, 1), {"rng": 0}),
    "ThresholdClass.realizable_scores": (H, "realizable_scores", (X, Y), {}),
    "ThresholdClass.mistake_counts": (H, "mistake_counts", (X, Y), {}),
    # ClippedPairwiseEM
    "ClippedPairwiseEM.user_sums": (EM, "user_sums", (PSI,), {}),
    "ClippedPairwiseEM.scores": (EM, "scores", (USUMS,), {}),
    "ClippedPairwiseEM.probabilities": (EM, "probabilities", (USUMS,), {}),
    "ClippedPairwiseEM.select": (EM, "select", (USUMS,), {"rng": 0}),
    "ClippedPairwiseEM.scores_from_differences": (EM, "scores_from_differences", (H.mistake_counts(X, Y),), {}),
    # NoisySum
    "NoisySum.pmf_of_sum": (NS, "pmf_of_sum", (5,), {}),
    "NoisySum.pmf": (NS, "pmf", (RECT,), {}),
    "NoisySum.sample_from_sum": (NS, "sample_from_sum", (5, 0), {}),
    "NoisySum.run": (NS, "run", (RECT, 0), {}),
    "NoisySum.user_values": (NS, "user_values", (RECT,), {}),
    # DelStab
    "DelStab.stability": (DSTAB, "stability", (DX,), {}),
    "DelStab.stable_probability": (DSTAB, "stable_probability", (DX,), {}),
    "DelStab.output_pmf_given_r": (DSTAB, "output_pmf_given_r", (DX, 6), {}),
    "DelStab.output_pmf": (DSTAB, "output_pmf", (DX,), {}),
    "DelStab.run": (DSTAB, "run", (DX, 0), {}),
    # BoundRow (Table 1 row with a prior bound, Table 2 row with prior terms)
    "BoundRow.item_level": (ROW1, "item_level", (1.0, 0.1, 3.0), {"constant": 2.0}),
    "BoundRow.user_level_terms": (ROW1, "user_level_terms", (4.0, 1.0, 0.1, 3.0), {}),
    "BoundRow.user_level": (ROW2, "user_level", (4.0, 1.0, 0.1, 3.0), {"clamp": False}),
    "BoundRow.prior_user_level": (ROW1, "prior_user_level", (4.0, 1.0, 0.1, 3.0), {}),
    "BoundRow.prior_user_level[table 2]": (ROW2, "prior_user_level", (4.0, 1.0, 0.1, 3.0), {}),
}

PUBLIC_CLASSES = (U.UserDataset, U.ThresholdClass, U.ClippedPairwiseEM, U.NoisySum, U.DelStab, U.BoundRow,
                  U.DelStabParameters, U.Selection)


def _list_gen(method):
    """``iter_user_neighbors`` returns an iterator: consume it so errors and NaNs surface."""
    return _named(lambda *a, **k: list(method(*a, **k)), method.__name__)


# ----------------------------------------------------------------------------------------------- coverage


# result records, built only by the validated function named (users read them, never construct them)
RESULT_RECORDS = {"BoundingTradeoff": "returned by bounding_curves",
                  "ClippingTradeoff": "returned by clipping_tradeoff"}


def test_every_public_callable_has_a_baseline():
    assert missing_baselines(U, BASELINES, RESULT_RECORDS) == []


def test_every_public_method_has_a_baseline():
    """Public methods of the public classes (properties excluded) are swept too; a new method cannot escape."""
    missing = []
    for cls in PUBLIC_CLASSES:
        for name, member in vars(cls).items():
            if name.startswith("_") or isinstance(member, property):
                continue
            if not (callable(member) or isinstance(member, (staticmethod, classmethod))):
                continue
            if not any(key.split("[")[0] == f"{cls.__name__}.{name}" for key in METHOD_BASELINES):
                missing.append(f"{cls.__name__}.{name}")
    assert missing == []


def _returns_normally(fn, args, kwargs) -> str | None:
    """Stricter than ``call_outcome``: a baseline must return (a TypeError or ValueError is a failure here too)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001
            return f"{type(exc).__name__}: {exc}"
    return call_outcome(lambda: result, (), {})


def test_baselines_are_valid_calls():
    """A baseline that fails on its own would make every sweep trivially pass: each must return normally."""
    bad = {}
    for name, (args, kwargs) in BASELINES.items():
        out = _returns_normally(getattr(U, name), args, kwargs)
        if out is not None:
            bad[name] = out
    for key, (fn, args) in KEYWORD_BASELINES.items():
        out = _returns_normally(fn, args, {})
        if out is not None:
            bad[key] = out
    for key, (obj, meth, args, kwargs) in METHOD_BASELINES.items():
        out = _returns_normally(_method(obj, meth), args, kwargs)
        if out is not None:
            bad[key] = out
    assert bad == {}


def _method(obj, meth):
    fn = getattr(obj, meth)
    return _list_gen(fn) if meth == "iter_user_neighbors" else fn


# ----------------------------------------------------------------------------------------------- the sweeps


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_sweep_public(name):
    args, kwargs = BASELINES[name]
    assert sweep(getattr(U, name), args, kwargs) == []


@pytest.mark.parametrize("key", sorted(KEYWORD_BASELINES))
def test_sweep_keywords(key):
    fn, args = KEYWORD_BASELINES[key]
    assert sweep(fn, args, {}) == []


@pytest.mark.parametrize("key", sorted(METHOD_BASELINES))
def test_sweep_methods(key):
    obj, meth, args, kwargs = METHOD_BASELINES[key]
    assert sweep(_method(obj, meth), args, kwargs) == []


# ----------------------------------------------------------------------------------------------- caps


def _names_cap(exc: ValueError, name: str, cap) -> bool:
    msg = str(exc)
    shown = {name, f"{cap:g}", str(int(cap)) if float(cap).is_integer() else f"{cap:g}"}
    return any(t in msg for t in shown)


CAP_CASES = {
    # label: (call, the cap's spec and bound in dpviz.userlevel.data)
    "UserDataset users": (lambda: U.UserDataset([[0]] * (caps.USERS.high + 1)), "USERS.high"),
    "UserDataset.bernoulli n·m": (lambda: U.UserDataset.bernoulli(1000, caps.ITEMS.high // 1000 + 1), "ITEMS.high"),
    "UserDataset.bernoulli counts": (lambda: U.UserDataset.bernoulli(2, counts=[caps.ITEMS.high, 5]), "ITEMS.high"),
    "UserDataset domain": (lambda: U.UserDataset([[0]], domain=range(caps.DOMAIN.high + 1)), "DOMAIN.high"),
    "contribution_bound k": (lambda: U.contribution_bound(DS, caps.ITEMS.high + 1), "ITEMS.high"),
    "bounding_tradeoff ks": (lambda: U.bounding_tradeoff(DS, [1, caps.ITEMS.high + 1], 1.0), "ITEMS.high"),
    "group_privacy_lift m": (lambda: U.group_privacy_lift(0.1, 1e-6, caps.ITEMS.high + 1), "ITEMS.high"),
    "group_privacy_lift epsilon": (lambda: U.group_privacy_lift(caps.EPSILON.high * 2, 1e-6, 2), "EPSILON.high"),
    "tdlap_pmf kappa": (lambda: U.tdlap_pmf(1e-6, 0.1), "KAPPA.limit"),
    "delstab_parameters epsilon": (lambda: U.delstab_parameters(1e308, 0.1), "EPSILON.high"),
    "NoisySum high": (lambda: U.NoisySum(0.5, caps.OUTPUTS.high + 1), "OUTPUTS.high"),
    "NoisySum item_max": (lambda: U.NoisySum(0.5, 5, caps.OUTPUTS.high + 1), "OUTPUTS.high"),
    "NoisySum.pmf_of_sum cells": (lambda: U.NoisySum(0.5, caps.OUTPUTS.high).pmf_of_sum(np.arange(21)), "CELLS.limit"),
    "is_lddp subsets": (lambda: U.is_lddp(U.NoisySum(1.0, 30).pmf, U.UserDataset.bernoulli(20, 1, rng=0), 10,
                                          1.0, 0.0), "SUBSETS.limit"),
    "DelStab brute": (lambda: DSTAB.output_pmf(U.UserDataset.bernoulli(30, 1, rng=0), method="brute"),
                      "BRUTE_VISITS.limit"),
    "DelStab window": (lambda: U.DelStab(3.0, 0.1, U.NoisySum(0.5, 12, item_max=caps.OUTPUTS.high)).output_pmf(
        U.UserDataset([[caps.OUTPUTS.high]] * 13 + [[0]] * 13)), "CELLS.limit"),
    "swap_difference_pmf m": (lambda: U.swap_difference_pmf(caps.SWAP_M.high + 1, 0.5), "SWAP_M.high"),
    "ThresholdClass grid": (lambda: U.ThresholdClass(caps.GRID_SIZE.high + 1), "GRID_SIZE.high"),
    "ThresholdClass.sample n·m": (lambda: H.sample(caps.ITEMS.high, 2, 1), "ITEMS.high"),
    "pac_scores cells": (lambda: U.pac_scores(np.zeros((2000, 100)), np.zeros((2000, 100)), np.zeros((200, 10))),
                         "CELLS.limit"),
    "scores_from_differences work": (lambda: EM.scores_from_differences(np.zeros((3000, 200))), "WORK.limit"),
    "scheffe_selection candidates": (lambda: U.scheffe_selection(XS, np.full((5000, 4), 0.25), 1.0, tau=1.0),
                                     "CELLS.limit"),
    "scheffe_selection m": (lambda: U.scheffe_selection(XS, CANDS, 1.0, m=caps.ITEMS.high + 1), "ITEMS.high"),
    "discrete_cover max_size": (lambda: U.discrete_cover(2, 0.5, max_size=caps.COVER.high + 1), "COVER.high"),
    "discrete_cover k": (lambda: U.discrete_cover(caps.DOMAIN.high + 1, 0.5), "DOMAIN.high"),
    "pairwise_sum_pmf m": (lambda: U.pairwise_sum_pmf(caps.PAIRWISE_M.high + 1, 0.3, 0.2), "PAIRWISE_M.high"),
    "paper_tau m": (lambda: U.paper_tau(caps.ITEMS.high + 1, 0.1), "ITEMS.high"),
    "simulate trials": (lambda: U.simulate_threshold_learning(5, 2, 1.0, trials=caps.TRIALS.high + 1), "TRIALS.high"),
    "simulate work": (lambda: U.simulate_threshold_learning(10**6, 100, 1.0, trials=100), "WORK.limit"),
    "bounds m": (lambda: U.corollary3_users(caps.BOUND_M.high * 10, 1.0, 1e-6), "BOUND_M.high"),
    "bounds epsilon": (lambda: U.theorem10_users(4.0, caps.EPSILON_DIVIDES.low / 2, 1e-6), "EPSILON_DIVIDES.low"),
    "bounds alpha": (lambda: U.theorem4_users(4.0, 1.0, caps.ALPHA.low / 2, 3.0), "ALPHA.low"),
    "bounds c": (lambda: U.item_level_users(1.0, 1e-6, c=caps.LOG_POWER.high + 1), "LOG_POWER.high"),
    "bounds constant": (lambda: U.theorem11_users(4.0, 1.0, 1e-6, constant=caps.SCALE.high * 10), "SCALE.high"),
    "ClippedPairwiseEM tau": (lambda: U.ClippedPairwiseEM(1.0, caps.SCALE.high * 10), "SCALE.high"),
}


@pytest.mark.parametrize("label", sorted(CAP_CASES))
def test_cap_enforced_with_a_named_value_error(label):
    call, cap_name = CAP_CASES[label]
    with pytest.raises(ValueError) as info:
        call()
    spec, bound = cap_name.split(".")
    assert _names_cap(info.value, cap_name, getattr(getattr(caps, spec), bound)), str(info.value)


def test_issue_examples():
    """The issue's examples now get a ValueError/TypeError naming the parameter, not an internal error."""
    with pytest.raises(TypeError, match="dataset"):
        U.contribution_bound(0, 2)  # was AttributeError: 'int' object has no attribute 'blocks'
    with pytest.raises(TypeError, match="dataset"):
        U.bounding_tradeoff(1.0, 1e308, 1.0)  # was OverflowError: math range error
    with pytest.raises(ValueError, match="ks"):
        U.bounding_tradeoff(DS, 1e308, 1.0)
    with pytest.raises(ValueError, match="alpha"):
        U.breakpoints(0.5, 5e-324)  # was ZeroDivisionError


def test_delstab_forty_thousand_users_stays_small():
    """The panel request of the issue (DelStab, n_users = 40 000, m = 2) asked numpy for 23.8 GiB: A's pmf was
    tabulated for every remaining sum 0..total. Now only the window of reachable sums is built: the table has at most
    4κ·m + 1 rows, and the whole exact analysis stays below 300 MB."""
    import tracemalloc

    eps, delta, m, n = 4.0, 0.1, 2, 40_000
    par = U.delstab_parameters(eps, delta)
    x = U.UserDataset.bernoulli(n, m, 0.5, rng=12345)
    ds = U.DelStab(eps, delta, U.NoisySum(0.1, (n - par.discarded) * m))
    tracemalloc.start()
    try:
        p = ds.output_pmf(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 300e6
    assert ds._analysis(x).PM.shape[0] <= par.discarded * m + 1
    assert abs(p.sum() - 1.0) < 1e-9 and np.all(p >= 0)
    # and a user count whose subset counts C(n, 4κ) overflow float64 is refused up front (a rule on public n, κ)
    with pytest.raises(ValueError, match="n_users = 40000"):
        U.DelStab(1.0, 1e-6, U.NoisySum(0.1, 100)).output_pmf(x)


# ----------------------------------------------------------------------------------------------- extreme values
# The answers at the edges are checked against closed forms in mpmath, not only for being warning- and NaN-free.


def test_group_privacy_lift_beyond_the_float_range():
    # δ_m = δ·(e^{mε} − 1)/(e^{ε} − 1): with mε = 1000 the factor is e^{500} + 1 (exact), far beyond e^{709}
    eps_m, delta_m = U.group_privacy_lift(500.0, 1e-300, 2)
    want = mp.mpf("1e-300") * (mp.e ** 1000 - 1) / (mp.e ** 500 - 1)
    assert eps_m == 1000.0
    assert delta_m == pytest.approx(float(want), rel=1e-12)
    assert U.group_privacy_lift(1.0, 1e-6, 10**6) == (1e6, 1.0)  # δ·e^{10⁶−1} ≫ 1: capped at 1
    assert U.group_privacy_lift(1.0, 0.0, 10**6) == (1e6, 0.0)


@pytest.mark.parametrize("convention", ["proof", "printed"])
def test_delstab_parameters_at_the_epsilon_cap(convention):
    eps, delta = 500.0, 0.5
    eb = mp.mpf(eps) / 3
    third = mp.e ** eb if convention == "proof" else mp.e ** mp.mpf(eps)
    db = mp.mpf(delta) / (mp.e ** (2 * eb) + third + 2)
    par = U.delstab_parameters(eps, delta, convention=convention)
    assert par.delta_bar == pytest.approx(float(db), rel=1e-12)
    assert par.kappa == 1 + int(mp.ceil(mp.log(1 / db) / eb))
    with pytest.raises(ValueError, match="underflows"):
        U.delstab_parameters(500.0, 1e-200, convention=convention)


def test_hockey_stick_with_e_eps_beyond_the_float_range():
    a, b = [0.5, 0.5], [1e-310, 1.0 - 1e-310]
    want = max(mp.mpf(0.5) - mp.e ** 710 * mp.mpf(1e-310), 0)  # the second term is 0: e^{710}·(1 − 1e-310) ≫ 0.5
    assert U.hockey_stick(a, b, 710.0) == pytest.approx(float(want), rel=1e-12)
    assert U.hockey_stick(a, b, 1e308) == 0.0 and U.hockey_stick(a, [0.0, 1.0], 1e308) == 0.5


def test_bounds_at_the_smallest_delta():
    # ln(1/δ) must be −ln δ = 744.44…: 1/5e-324 is inf in float arithmetic, and ln(inf) = inf silently
    L = -mp.log(mp.mpf(5e-324))
    want = 1 / (L * mp.sqrt(4 * mp.log(4 / mp.mpf(5e-324))))
    assert U.theorem10_item_epsilon(4.0, 1.0, 5e-324) == pytest.approx(float(want), rel=1e-12)
    r = U.theorem10_users(4.0, 1.0, 5e-324, terms=True, clamp=False)
    dprime = mp.mpf(5e-324) / (4 * L)  # δ′ = δε/(m ln(1/δ)) underflows to 0 in float64; its log does not
    assert r["privacy"] == pytest.approx(float(mp.log(1 / dprime) / (want * 4)), rel=1e-12)


def test_theorem10_refuses_an_item_delta_of_one_or_more():
    # δ′ = δε/(m ln(1/δ)) = 0.99·1/(4·0.01005) ≈ 24.6 ≥ 1: ln(1/δ′)^c would be NaN
    with pytest.raises(ValueError, match="delta"):
        U.theorem10_users(4.0, 1.0, 0.99, c=1.5)


def test_tiny_alpha_means_no_truncation_and_a_trivial_cover():
    assert np.array_equal(U.realizable_pac_learner(X, Y, PRED, 1.0, alpha=5e-324, rng=0).probabilities,
                          U.realizable_pac_learner(X, Y, PRED, 1.0, rng=0).probabilities)
    assert U.discrete_cover(1, 5e-324).tolist() == [[1.0]]
    with pytest.raises(ValueError, match="max_size"):
        U.discrete_cover(2, 5e-324)


def test_records_check_their_fields():
    with pytest.raises(ValueError, match="delta_bar"):
        U.DelStabParameters(1.0, float("nan"), 3)
    with pytest.raises(ValueError, match="kappa"):
        U.DelStabParameters(1.0, 0.1, 2.5)
    assert U.DelStabParameters(1 / 3, 1e-7, 48).discarded == 192
    with pytest.raises(ValueError, match="sensitivity"):
        U.Selection(0, np.zeros(2), np.full(2, 0.5), math.nan, 1.0)
    with pytest.raises(ValueError, match="index"):
        U.Selection(2, np.zeros(2), np.full(2, 0.5), 1.0, 1.0)
    with pytest.raises(TypeError, match="item_terms"):
        U.BoundRow(*(_fields(ROW1)[:8] + ((),) + _fields(ROW1)[9:]))

# the coverage test (test_adversarial_coverage.py) reads what these sweeps cover
register(U, BASELINES)
register(U, RESULT_RECORDS, "exempt")
