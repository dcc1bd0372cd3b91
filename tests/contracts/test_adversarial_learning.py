"""Adversarial-input sweep of dpviz.learning and dpviz.learning.rates (issue 12, findings 6 and 7).

Every public callable gets one valid baseline call; :func:`tests._adversarial.sweep` then replaces each positional
argument in turn by 16 hostile values (warnings raised as errors). Classes are swept through their constructor and
through each public method of a valid instance. Separate tests check that every size / work cap is enforced with a
ValueError that names the cap, so a client of the classroom server cannot make one call run for minutes or
allocate gigabytes.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from _adversarial import call_outcome, missing_baselines, register, sweep

import dpviz.learning as L
from dpviz.learning import rates

# ----------------------------------------------------------------------------------------------- fixtures

TASK = L.make_linear_task(12, 3, 2, rng=0)
LOGISTIC = L.make_logistic_task(12, 3, 2, holdout=40, rng=0)
X3 = np.random.default_rng(1).uniform(-0.5, 0.5, size=(6, 3, 2))
Y2 = np.random.default_rng(2).uniform(-1.0, 1.0, size=(6, 3))
RUN = L.train_user_level(TASK, 1.0, 1e-5, 4, rng=0)
PHASED = L.phased_erm(L.make_linear_task(40, 3, 2, rng=0), 1.0, 1e-6, steps_per_phase=3, rng=0)
METHOD = L.FirstOrderMethod("strongly_convex", 0.5, 1.0, 0.1, 1.0)
TRACE = L.run_first_order(lambda th, t: th - 0.5, np.zeros(2), 4, METHOD, rng=0)
SCHEDULE = L.phased_erm_schedule(1000, 10, 5, 1.0)
LOSSES = np.vstack([np.full(30, 0.8), np.full(30, 0.2), np.full(30, 0.5)])


def _fields(obj) -> tuple:
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))


def _oracle(th, t):
    return th - 0.5


BASELINES: dict[str, tuple[tuple, dict]] = {
    # tasks
    "UserTask": (("linear", X3, Y2), {}),
    "make_linear_task": ((20, 3, 2), {"rng": 0}),
    "make_logistic_task": ((20, 3, 2), {"holdout": 50, "rng": 0}),
    "user_task_from_arrays": (("linear", list(X3), list(Y2)), {}),
    "concentration_radius": ((1.0, 10, 100, 0.01), {}),
    # optimiser
    "FirstOrderMethod": (("strongly_convex", 0.5, 1.0, 0.1, 1.0), {}),
    "OptimisationTrace": ((TRACE.iterates, TRACE.output), {}),
    "run_first_order": ((_oracle, np.zeros(2), 4, METHOD), {"rng": 0}),
    # training
    "PrivacySpent": ((1.0, 1e-5, "pld", ((("gaussian", 2.0), 3),)), {}),
    "TrainingRun": (_fields(RUN), {}),
    "train_nonprivate": ((TASK, 4, 0.3), {"rng": 0}),
    "train_naive": ((TASK, 1.0, 1e-5, 4, 0.3), {"rng": 0}),
    "train_user_level": ((TASK, 1.0, 1e-5, 4, 0.3), {"rng": 0}),
    "train_example_level": ((TASK, 1.0, 1e-5, 4, 0.3), {"rng": 0}),
    "compare_training": ((TASK, 1.0, 1e-5, 3), {"rng": 0}),
    "iter_compare_training": ((TASK, 1.0, 1e-5, 3), {"rng": 0, "pause_at": [1]}),
    "algorithm3_budget": ((1.0, 1e-5, 10), {}),
    "step_size": ((TASK, 0.1, 10, 0.0), {}),
    "clip_rows": ((np.array([[3.0, 4.0], [0.3, 0.4]]), 1.0), {}),
    # ERM
    "PhasedERMSchedule": (_fields(SCHEDULE), {}),
    "phased_erm_schedule": ((1000, 10, 5, 1.0), {}),
    "PhasedERMRun": (_fields(PHASED), {}),
    "phased_erm": ((L.make_linear_task(40, 3, 2, rng=0), 1.0, 1e-6), {"steps_per_phase": 3, "rng": 0}),
    "SelectionResult": ((1, 0.2, 3, 1.0), {}),
    "private_selection": ((LOSSES, 5.0, 10), {"stop_prob": 0.3, "rng": 0}),
    "selection_tau": ((10, 100, 25, 0.1, 1.0), {}),
    "algorithm_h_budget": ((1.0, 1e-6, 10), {}),
    "train_algorithm_h": ((TASK, 1.0, 1e-5, 3, 0.3), {"rng": 0}),
}

METHOD_BASELINES: dict[str, tuple[object, str, tuple, dict]] = {
    "UserTask.check_theta": (TASK, "check_theta", (np.zeros(2),), {}),
    "UserTask.loss": (TASK, "loss", (np.zeros(2),), {}),
    "UserTask.loss[logistic]": (LOGISTIC, "loss", (np.zeros(2),), {}),
    "UserTask.user_gradients": (TASK, "user_gradients", (np.zeros(2),), {}),
    "UserTask.user_gradients[logistic]": (LOGISTIC, "user_gradients", (np.zeros(2),), {}),
    "UserTask.example_gradients": (TASK, "example_gradients", (np.zeros(2),), {}),
    "UserTask.clipped_example_mean": (TASK, "clipped_example_mean", (np.zeros(2), 0.5), {}),
    "UserTask.full_gradient": (TASK, "full_gradient", (np.zeros(2),), {}),
    "UserTask.full_gradient[logistic]": (LOGISTIC, "full_gradient", (np.zeros(2),), {}),
    "UserTask.erm_solution": (TASK, "erm_solution", (), {}),
    "UserTask.excess_risk": (TASK, "excess_risk", (np.zeros(2),), {}),
    "UserTask.excess_risk[logistic]": (LOGISTIC, "excess_risk", (np.zeros(2),), {}),
    "UserTask.subset": (TASK, "subset", (np.array([0, 2, 3]),), {}),
    "FirstOrderMethod.project": (METHOD, "project", (np.array([3.0, 4.0]),), {}),
    "FirstOrderMethod.step_size": (METHOD, "step_size", (7, 10), {}),
    "FirstOrderMethod.aggregate": (METHOD, "aggregate", (TRACE.iterates, np.random.default_rng(0)), {}),
}

RATE_BASELINES: dict[str, tuple[tuple, dict]] = {
    "erm_convex": ((1000, 10, 10, 1.0, 100), {}),
    "erm_strongly_convex": ((1000, 10, 10, 1.0, 100), {}),
    "erm_nonconvex": ((1000, 10, 10, 1.0, 100), {}),
    "sco_upper": ((1e4, 100, 10, 1.0), {}),
    "sco_lower": ((1e4, 100, 10, 1.0), {}),
    "sco_item_level": ((1e4, 100, 10, 1.0), {}),
    "sco_naive": ((1e4, 100, 10, 1.0), {}),
    "finite_class_upper": ((1000, 10, 50, 1.0), {}),
    "finite_class_lower": ((1000, 10, 50, 1.0), {}),
    "finite_class_valid": ((1000, 10, 50, 1.0), {}),
    "finite_class_lower_valid": ((100, 1, 2**23, 1.0), {}),
    "fixed_n_floor": ((5, 1.0), {}),
    "fixed_n_floor_valid": ((5, 1.0, 1e-5), {}),
    "erm_users_needed": ((100, 400, 1.0), {}),
    "erm_users_needed_003": ((100, 400, 1.0), {}),
    "sco_users_needed": ((10, 100, 1.0), {}),
    "sco_users_needed_003": ((10, 100, 1.0), {}),
    "sco_valid": ((1e4, 100, 10, 1.0), {}),
    "heterogeneity_transfer": ((0.01, 100, 10, 1e-5), {}),
    "heterogeneity_threshold": ((0.01, 100, 10), {}),
}

EXEMPT = {"rates": "a module; its functions are swept through RATE_BASELINES"}


# ----------------------------------------------------------------------------------------------- coverage


def test_every_public_callable_has_a_baseline():
    assert missing_baselines(L, BASELINES, EXEMPT) == []
    assert missing_baselines(rates, RATE_BASELINES) == []


def test_every_public_method_has_a_baseline():
    """Public methods of the public classes (properties excluded) are swept too; a new method cannot escape."""
    missing = []
    for cls in (L.UserTask, L.FirstOrderMethod):
        for name, member in vars(cls).items():
            if name.startswith("_") or not callable(member):
                continue
            if not any(key.split("[")[0] == f"{cls.__name__}.{name}" for key in METHOD_BASELINES):
                missing.append(f"{cls.__name__}.{name}")
    assert missing == []


def test_baselines_are_valid_calls():
    """A baseline that fails on its own would make every sweep trivially pass: each must return normally."""
    bad = {}
    for name, (args, kwargs) in BASELINES.items():
        out = call_outcome(getattr(L, name), args, kwargs)
        if out is not None:
            bad[name] = out
    for name, (args, kwargs) in RATE_BASELINES.items():
        out = call_outcome(getattr(rates, name), args, kwargs)
        if out is not None:
            bad[name] = out
    for key, (obj, meth, args, kwargs) in METHOD_BASELINES.items():
        out = call_outcome(getattr(obj, meth), args, kwargs)
        if out is not None:
            bad[key] = out
    assert bad == {}


# ----------------------------------------------------------------------------------------------- the sweeps


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_sweep_public(name):
    args, kwargs = BASELINES[name]
    assert sweep(getattr(L, name), args, kwargs) == []


@pytest.mark.parametrize("key", sorted(METHOD_BASELINES))
def test_sweep_methods(key):
    obj, meth, args, kwargs = METHOD_BASELINES[key]
    assert sweep(getattr(obj, meth), args, kwargs) == []


@pytest.mark.parametrize("name", sorted(RATE_BASELINES))
def test_sweep_rates(name):
    args, kwargs = RATE_BASELINES[name]
    assert sweep(getattr(rates, name), args, kwargs) == []


# ----------------------------------------------------------------------------------------------- caps (finding 7)
# Each cap is checked from both sides: a call just past it is refused with a ValueError that names the cap, and the
# largest settings the lesson-06 panels send (Train live: n = 10⁴, m = 20, d = 10, T = 500; logistic holdout 4000)
# stay within it. The limits are written out here, not read from the code under test.

from dpviz.learning import erm, optim, tasks  # noqa: E402


def _refused(fn, *args, match, **kwargs):
    with pytest.raises(ValueError, match=match) as info:
        fn(*args, **kwargs)
    return str(info.value)


def test_cap_values_are_the_documented_ones():
    assert (optim.STEPS.high, tasks.TASK_ENTRIES.limit, tasks.DIM.high, tasks.HOLDOUT.high) == (
        10_000, 10_000_000, 1000, 1_000_000)
    assert tasks.TRAINING_WORK.limit == 1.3e10 and erm.EPSILON.high == 1000.0
    assert (erm.SELECTION_DRAWS.limit, erm.SELECTION_WORK.limit) == (5000, 20_000_000)
    assert rates.RATE_MAX == 1e15


def test_cap_steps():
    """T = 10⁶ from a classroom client (the finding) is refused before any step runs, by every training entry."""
    for fn in (L.train_naive, L.train_user_level, L.train_example_level, L.compare_training,
               L.train_algorithm_h):
        msg = _refused(fn, TASK, 1.0, 1e-5, 10**6, match=r"T = 1000000 .*<= 10000")
        assert "T" in msg
    _refused(L.train_nonprivate, TASK, 10_001, match=r"T = 10001 .*<= 10000")
    _refused(L.run_first_order, _oracle, np.zeros(2), 10_001, METHOD, match=r"T = 10001 .*<= 10000")
    _refused(L.algorithm3_budget, 1.0, 1e-5, 10_001, match=r"T = 10001 .*<= 10000")
    _refused(L.algorithm_h_budget, 1.0, 1e-5, 10_001, match=r"T = 10001 .*<= 10000")
    _refused(L.step_size, TASK, 0.1, 10_001, match=r"T = 10001 .*<= 10000")
    _refused(L.phased_erm, TASK, 1.0, 1e-6, steps_per_phase=10_001, match=r"steps_per_phase = 10001 .*<= 10000")
    _refused(METHOD.step_size, 0, 10_001, match=r"T = 10001 .*<= 10000")


def test_cap_training_work():
    big = L.make_logistic_task(1000, 100, 10, holdout=100, rng=0)  # 10⁶ entries: 4·10⁶ units per step
    for fn in (L.train_naive, L.train_user_level, L.train_example_level):
        _refused(fn, big, 1.0, 1e-5, 10_000, match="cap on work units of one training run")
    _refused(L.train_nonprivate, big, 10_000, match="cap on work units of one training run")
    _refused(L.train_algorithm_h, big, 1.0, 1e-5, 3000, match="cap on work units of one training run")
    _refused(L.phased_erm, big, 1.0, 1e-6, steps_per_phase=10_000, match="cap on work units of one training run")
    # 5000 logistic gradient steps on 10⁶ entries
    _refused(big.erm_solution, match="cap on work units of one training run")


def test_cap_task_size():
    _refused(L.make_linear_task, 10**6, 10, 2, match=r"n·m·d = .*20000000 .*cap on entries of a task")
    _refused(L.make_logistic_task, 10**6, 10, 2, match=r"n·m·d = .*cap on entries of a task")
    _refused(L.make_linear_task, 100_000, 1, 100, match=r"n·d² = .*cap on entries of a task")  # 10⁹ second moments
    _refused(L.make_linear_task, 10, 1, 1001, match=r"d = 1001 .*<= 1000")
    _refused(L.make_logistic_task, 10, 2, 2, holdout=1_000_001, match=r"holdout = 1000001 .*<= 1000000")
    # a caller's own (n, m, d) array is refused before the per-user statistics are allocated
    huge = np.broadcast_to(np.zeros(1), (10**6, 10, 2))
    _refused(L.UserTask, "logistic", huge, np.broadcast_to(np.zeros(1), (10**6, 10)), match="cap on entries of a task")


def test_cap_private_selection():
    # 1/γ = 1.5·10⁵
    _refused(L.private_selection, LOSSES, 1.0, 10, alpha=1e-4, match=r"cap on private selection's expected draws")
    _refused(L.private_selection, np.zeros((2, 100_000)), 1.0, 10, stop_prob=0.001,
             match=r"cap on private selection's expected work")  # 1/γ = 10³ draws, n/γ = 10⁸ losses read
    _refused(L.private_selection, LOSSES, 1001.0, 10, match=r"epsilon = 1001.0 .*1000")


def test_cap_epsilon_and_counts():
    _refused(L.algorithm_h_budget, 1001.0, 1e-6, 10, match=r"epsilon = 1001.0 .*\(0, 1000\]")
    _refused(L.phased_erm_schedule, 1000, 10, 5, 1001.0, match=r"epsilon = 1001.0")
    _refused(L.concentration_radius, 1.0, 10, 10**16, match=r"n = 10000000000000000 .*<= 1000000000000000")
    _refused(L.selection_tau, 10**16, 10, 10, 0.1, match=r"K = 10000000000000000 .*<= 1000000000000000")
    _refused(rates.sco_upper, 1e16, 10, 10, 1.0, match=r"n = 1e\+16 .*\[1, 1e\+15\]")
    _refused(rates.erm_convex, 100, 10, 10, 1.0, np.array([10.0, 1e16]), match=r"T = an array containing 1e\+16")


def test_panels_largest_settings_fit_under_the_caps():
    """Train live at its sliders' maxima (every method, both variants, both tasks) and the heterogeneity panel."""
    for kind, make, kw in (("linear", L.make_linear_task, {}), ("logistic", L.make_logistic_task, {"holdout": 4000})):
        task = make(10_000, 20, 10, rng=0, **kw)
        for method in ("nonprivate", "naive", "user_level", "paper", "example_level"):
            assert tasks.training_work(500, task, method) <= 1.3e10, (kind, method)
    assert tasks.training_work(60, L.make_linear_task(2000, 200, 5, rng=0), "user_level") <= 1.3e10

# the coverage test (test_adversarial_coverage.py) reads what these sweeps cover
register(L, BASELINES)
register(L, EXEMPT, "exempt")
register(rates, RATE_BASELINES)
