"""Adversarial-input sweep of :mod:`dpviz.plots.beyond` (the shared contract of ``tests/_adversarial.py``).

Every figure builder of ``dpviz.plots.beyond.__all__`` gets one valid baseline call; each positional argument in turn
is replaced by 16 hostile values with warnings raised as errors: only a ValueError/TypeError with a message, or a
normal return, passes. The keyword-only arguments that matter (the hidden median curve, the marked β, the marked
distance and its range, the truth line, the drawn mark and the hidden tail) are swept through small named wrappers.
"""

from __future__ import annotations

from _adversarial import contract_tests

import dpviz.plots.beyond as P
from dpviz import beyond as B


def _named(fn, name):
    fn.__name__ = name
    return fn


_X = [3.0, 7.0, 12.0, 20.0, 31.0, 45.0, 80.0]
_LEAK_X, _LEAK_X2 = [0.1, 0.2, 0.5, 0.6, 0.9], [0.1, 0.2, 0.5, 0.45, 0.9]
_RELEASE = B.smooth_sensitivity_release_parameters(_X, 1.0, 1e-6, 1.0, 100.0)
_SA = B.sample_and_aggregate(list(range(1, 41)), 4, 1.0, 0.0, 50.0, rng=0)

BASELINES = {
    "replace_one_record_figure": ((_X, 1.0, 100.0), {}),
    "leak_densities_figure": ((_LEAK_X, _LEAK_X2, 1.0, 0.0, 1.0), {}),
    "leak_privacy_loss_figure": ((_LEAK_X, _LEAK_X2, 1.0, 0.0, 1.0), {}),
    "smooth_sensitivity_figure": ((_X, 1.0, 100.0), {}),
    "smooth_release_figure": ((_RELEASE, 1.0, 100.0), {}),
    "ptr_pass_figure": ((1.0, 1e-6), {}),
    "sample_aggregate_figure": ((_SA, 0.0, 50.0), {}),
    "quantile_law_figure": ((_X, 0.9, 1.0, 1.0, 100.0), {}),
}

METHODS = {
    "replace_one_record_figure(show_median)": (
        _named(lambda x, lo, hi, show: P.replace_one_record_figure(x, lo, hi, show_median=show),
               "replace_one_record_figure_kw"), (_X, 1.0, 100.0, False), {}),
    "smooth_sensitivity_figure(beta_mark)": (
        _named(lambda x, lo, hi, mark: P.smooth_sensitivity_figure(x, lo, hi, beta_mark=mark),
               "smooth_sensitivity_figure_kw"), (_X, 1.0, 100.0, 0.03), {}),
    "ptr_pass_figure(distance, max_distance)": (
        _named(lambda eps, d, gam, top: P.ptr_pass_figure(eps, d, distance=gam, max_distance=top),
               "ptr_pass_figure_kw"), (1.0, 1e-6, 5.0, 40), {}),
    "sample_aggregate_figure(truth)": (
        _named(lambda r, lo, hi, t: P.sample_aggregate_figure(r, lo, hi, truth=t), "sample_aggregate_figure_kw"),
        (_SA, 0.0, 50.0, 20.0), {}),
    "quantile_law_figure(mark, show_tail)": (
        _named(lambda x, q, eps, lo, hi, mark, tail: P.quantile_law_figure(x, q, eps, lo, hi, mark=mark,
                                                                           show_tail=tail),
               "quantile_law_figure_kw"), (_X, 0.9, 1.0, 1.0, 100.0, 60.0, False), {}),
}

globals().update(contract_tests(P, BASELINES, methods=METHODS))
