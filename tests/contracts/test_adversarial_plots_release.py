"""Adversarial-input sweep of :mod:`dpviz.plots.release` (the shared contract of ``tests/_adversarial.py``).

Every figure builder of ``dpviz.plots.release.__all__`` gets one valid baseline call; each positional argument in
turn is replaced by 16 hostile values with warnings raised as errors: only a ValueError/TypeError with a message, or
a normal return, passes. The keyword arguments that matter (the marks, the hidden crossings and curves, ε, the
depth, the statistic, the seed, the note) are swept through small named wrappers.
"""

from __future__ import annotations

import numpy as np
from _adversarial import contract_tests

import dpviz.plots.release as P
from dpviz import release as R


def _named(fn, name):
    fn.__name__ = name
    return fn


_RES = R.topdown(R.example_geography(), 0.01, rng=0)
_W = np.arange(1.0, 9.0)
_H = R.example_age_histogram(1000, 16)

BASELINES = {
    "queries_error_figure": ((1.0, 16, 128), {}),
    "width_error_figure": ((1.0, 10, 128), {}),
    "tree_variance_figure": ((_W, 2 * _W, 3 * _W, _W), {"epsilon": 1.0, "depth": 3}),
    "mwem_error_figure": (([1, 2, 5], [30.0, 20.0, 10.0], 10.0, 14.1), {"epsilon": 1.0, "k": 10, "seed": 0}),
    "histogram_estimate_figure": ((_H, {"estimate": _H + 1.0}), {"title": "t"}),
    "joint_query_figure": ((1266.0, 217.2, 230.0), {"age_range": "65 to 127"}),
    "topdown_levels_figure": ((_RES,), {"seed": 0}),
    "topdown_counties_figure": ((_RES,), {}),
}

METHODS = {
    "queries_error_figure(k_max, k_mark, show_crossing)": (
        _named(lambda eps, w, b, k_max, mark, show: P.queries_error_figure(eps, w, b, k_max=k_max, k_mark=mark,
                                                                             show_crossing=show),
               "queries_error_figure_kw"), (1.0, 16, 128, 100, 10, False), {}),
    "width_error_figure(width_mark, show_crossing)": (
        _named(lambda eps, k, b, mark, show: P.width_error_figure(eps, k, b, width_mark=mark, show_crossing=show),
               "width_error_figure_kw"), (1.0, 10, 128, 16, False), {}),
    "tree_variance_figure(epsilon, depth, statistic)": (
        _named(lambda eps, depth, stat: P.tree_variance_figure(_W, 2 * _W, 3 * _W, None, epsilon=eps, depth=depth,
                                                               statistic=stat),
               "tree_variance_figure_kw"), (1.0, 3, "max"), {}),
    "mwem_error_figure(epsilon, k, seed)": (
        _named(lambda eps, k, seed: P.mwem_error_figure([1, 2], [3.0, float("nan")], 1.0, 2.0, epsilon=eps, k=k,
                                                        seed=seed),
               "mwem_error_figure_kw"), (1.0, 10, 3), {}),
    "histogram_estimate_figure(title, x_title, note)": (
        _named(lambda title, x_title, note: P.histogram_estimate_figure(_H, {"e": _H}, title=title, x_title=x_title,
                                                                        note=note),
               "histogram_estimate_figure_kw"), ("t", "x", "one draw"), {}),
    "joint_query_figure(age_range, seed)": (
        _named(lambda age_range, seed: P.joint_query_figure(3.0, 2.0, 1.0, age_range=age_range, seed=seed),
               "joint_query_figure_kw"), ("0 to 49", 4), {}),
    "topdown_counties_figure(seed)": (
        _named(lambda seed: P.topdown_counties_figure(_RES, seed=seed), "topdown_counties_figure_kw"), (2,), {}),
    "topdown_levels_figure(seed, show_sigma)": (
        _named(lambda seed, show: P.topdown_levels_figure(_RES, seed=seed, show_sigma=show),
               "topdown_levels_figure_kw"), (0, False), {}),
}

globals().update(contract_tests(P, BASELINES, methods=METHODS))
