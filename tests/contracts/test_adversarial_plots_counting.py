"""Adversarial-input sweep of :mod:`dpviz.plots.counting` (the figures of lesson 02).

Every figure builder of ``dpviz.plots.counting.__all__`` gets one valid baseline call with its optional arguments
written positionally; the keyword-only arguments that change what is drawn (``label``, ``show_rounded``,
``show_parallel``) are swept through small named wrappers. Only a ValueError/TypeError with a message, or a
NaN-free figure, passes (warnings are errors).
"""

from __future__ import annotations

import numpy as np
import pytest
from _adversarial import contract_tests

import dpviz.plots.counting as P
from dpviz import sensitivity as S

DATA = S.example_dataset(101)


def _named(fn, name):
    fn.__name__ = name
    return fn


BASELINES = {
    "noise_figure": ((2.0, 0.5), {"label": "a sum"}),
    "clipping_figure": ((DATA, 0.0, 50.0, 1.0, "mean", "replace"), {}),
    "note_figure": (("title", "nothing to plot"), {}),
    "clamping_figure": ((1.0,), {}),
    "consistency_figure": ((8, 1.0, "add_remove"), {}),
    "composition_figure": ((1.0, 10, "replace"), {}),
    "local_central_figure": ((1.0, 4, "oue", 0.2, 100), {}),
}

METHODS = {
    "noise_figure(label)": (_named(lambda d, e, label: P.noise_figure(d, e, label=label), "noise_figure"),
                            (2.0, 0.5, "a sum"), {}),
    "clamping_figure(show_rounded)": (_named(lambda e, show: P.clamping_figure(e, show_rounded=show),
                                             "clamping_figure"), (1.0, False), {}),
    "composition_figure(show_parallel)": (_named(lambda e, b, r, show: P.composition_figure(e, b, r,
                                                                                             show_parallel=show),
                                                 "composition_figure"), (1.0, 10, "add_remove", False), {}),
}

globals().update(contract_tests(P, BASELINES, methods=METHODS))


# ---------------------------------------------------------------------------------- one test per defect found
def test_clipping_figure_refuses_complex_data_and_names_it():
    """np.asarray(data, dtype=float) cast complex data to real (a ComplexWarning) before anything was checked."""
    with pytest.raises(ValueError, match=r"^data = .*complex input is not cast to real"):
        P.clipping_figure(np.array([1.0 + 1j, 2.0]), 0.0, 5.0, 1.0)


def test_clipping_figure_grid_stays_inside_the_bounds_cap_and_names_upper():
    """Data up to 10¹² made the grid run to 10¹³, beyond the cap on bounds, and the message named an ``upper`` the
    caller never passed; U ≤ 0 cannot be drawn on the log axis."""
    fig = P.clipping_figure(np.array([1.0, 1e12]), 0.0, 5.0, 1.0)
    assert max(fig.data[2].x) == 1e12
    with pytest.raises(ValueError, match=r"^upper = 0\.0 is not allowed: must be > 0"):
        P.clipping_figure(np.array([-3.0, -1.0]), -5.0, 0.0, 1.0)


def test_figures_refuse_an_epsilon_their_axes_cannot_draw_naming_the_range():
    """ε = 5·10⁻³²⁴ overflowed √2·bins/ε and 2b² (RuntimeWarnings) or named an internal ``scale``."""
    for call in (lambda: P.composition_figure(5e-324, 10), lambda: P.clamping_figure(5e-324),
                 lambda: P.consistency_figure(8, 5e-324), lambda: P.local_central_figure(5e-324, 2),
                 lambda: P.noise_figure(1.0, 1e308)):
        with pytest.raises(ValueError, match=r"^epsilon = .* is not allowed: must be a number in \[1e-06, 100\]"):
            call()


def test_noise_figure_refuses_a_scale_it_cannot_draw_naming_both_arguments():
    with pytest.raises(ValueError, match=r"^sensitivity = 1e\+308 and epsilon = 1 are not allowed"):
        P.noise_figure(1e308, 1)


def test_text_and_flag_arguments_have_their_types():
    for call, name in ((lambda: P.note_figure(None, "t"), "title"), (lambda: P.note_figure("t", ["x"]), "text"),
                       (lambda: P.noise_figure(1.0, 1.0, label=3), "label"),
                       (lambda: P.composition_figure(1.0, 10, show_parallel=np.array([])), "show_parallel"),
                       (lambda: P.clamping_figure(1.0, show_rounded="no"), "show_rounded")):
        with pytest.raises(TypeError, match=rf"^{name} = .* is not allowed"):
            call()


def test_local_central_figure_checks_its_mark():
    """n_mark = 10**400 raised OverflowError in float(n_mark); True drew a line at 1; 0 silently drew none."""
    for bad in (10**400, True, 0, -1.0):
        with pytest.raises(ValueError, match=r"^n_mark = .* is not allowed"):
            P.local_central_figure(1.0, 2, "krr", 0.0, bad)
    assert P.local_central_figure(1.0, 2, "krr", 0.0, None).layout.shapes == ()


def test_choice_arguments_refuse_arrays_naming_the_choices():
    for call, name in ((lambda: P.local_central_figure(1.0, 2, np.array([])), "protocol"),
                       (lambda: P.composition_figure(1.0, 10, np.array([])), "relation"),
                       (lambda: P.consistency_figure(8, 1.0, np.array(["replace"])), "relation")):
        with pytest.raises(ValueError, match=rf"^{name} = .*must be one of"):
            call()
