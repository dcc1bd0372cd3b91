"""Adversarial-input sweep of :mod:`dpviz.plots.why_privacy` (lesson 01's figures), with the shared contract of
``tests/_adversarial.py``: each builder's positional arguments in turn get 16 hostile values (warnings are errors);
only a ValueError/TypeError with a message, or a figure the browser can take (no NaN, no bare ±inf in its JSON),
passes. Keyword-only switches reach the sweep through small named wrappers.
"""

from __future__ import annotations

import math

import pytest
from _adversarial import contract_tests, sendable

import dpviz.attacks as A
import dpviz.plots.why_privacy as P

CURVE = A.reconstruction_curve(10, 30, [0.0, 1.0, 5.0], trials=2, rng=0)
RAW = A.membership_tradeoff(10, 0.3)
NOISY = A.membership_tradeoff(10, 0.3, noise="laplace", scale=1.0)
_POP = A.synthetic_table(40, 3)
LINKS = list(A.linkage_by_generalisation(_POP.ages, _POP.towns, _POP.has_condition, A.voter_roll(40, 0.5, 0)))
EXPECTED = [A.expected_unique_fraction(40, w, keep) for w, keep in A.GENERALISATIONS]




def linkage_figure_(results, selected, show_disclosed, expected):
    return P.linkage_figure(results, selected, show_disclosed=show_disclosed, expected=expected)


def generalisation_label_(age_band, keep_town, short):
    return P.generalisation_label(age_band, keep_town, short=short)


BASELINES = {
    "differencing_figure": ((1.0, 0.3), {}),
    "generalisation_label": ((10, True), {}),
    "linkage_figure": ((LINKS, 2), {}),
    "reconstruction_figure": ((CURVE, 1.0, 0.9), {"seed": 0}),
    "membership_figure": ((RAW, NOISY), {}),
}

def _sendable_(fn, name):
    """These figures must hold no NaN even in their binary arrays."""
    return sendable(fn, name, arrays=True)


METHODS = {f"{name}[sent]": (_sendable_(getattr(P, name), name), args, kw) for name, (args, kw) in BASELINES.items()}
METHODS.update({
    "differencing_figure[exact]": (_sendable_(P.differencing_figure, "differencing_figure"), (0.0, 1.0), {}),
    "linkage_figure[keywords]": (_sendable_(linkage_figure_, "linkage_figure_"), (LINKS, 2, True, EXPECTED), {}),
    "generalisation_label[short]": (generalisation_label_, (10, False, True), {}),
    "reconstruction_figure[seed]": (_sendable_(lambda c, e, f, s: P.reconstruction_figure(c, e, f, seed=s),
                                              "reconstruction_figure_"), (CURVE, 1.0, 0.9, 0), {}),
    "membership_figure[gaussian]": (_sendable_(P.membership_figure, "membership_figure"),
                                    (RAW, A.membership_tradeoff(10, 0.3, noise="gaussian", scale=2.0)), {}),
})

globals().update(contract_tests(P, BASELINES, methods=METHODS, exempt={}))


# ---------------------------------------------------------------------------------- the defects the sweep found


@pytest.mark.parametrize("b", [1e308, 5e-324])
def test_differencing_figure_scales_out_of_range_are_refused(b):
    # was: NaN densities (b = 1e308: a window of ±inf) and an overflow warning (b = 5e-324)
    with pytest.raises(ValueError, match="noise_scale"):
        P.differencing_figure(b)


@pytest.mark.parametrize("call, name", [
    (lambda: P.differencing_figure(10**400), "noise_scale"),
    (lambda: P.differencing_figure(1.0, 10**400), "observed"),
    (lambda: P.reconstruction_figure(CURVE, 10**400, 0.5), "noise_scale"),
    (lambda: P.reconstruction_figure(CURVE, 1.0, 10**400), "fraction_at_noise"),
    (lambda: P.reconstruction_figure(CURVE, 1.0, 1.5), "fraction_at_noise"),
    (lambda: P.reconstruction_figure(CURVE, 1.0, 0.5, seed=-1), "seed"),
    (lambda: P.membership_figure(None), "raw"),
    (lambda: P.membership_figure(RAW, RAW), "noisy"),
    (lambda: P.membership_figure(RAW, A.membership_tradeoff(11, 0.3, noise="laplace")), "noisy"),
    (lambda: P.linkage_figure(LINKS, len(LINKS)), "selected"),
    (lambda: P.linkage_figure(LINKS, 0, expected=[0.5]), "expected"),
    (lambda: P.linkage_figure(LINKS, 0, expected=[math.nan] * len(LINKS)), "expected"),
])
def test_bad_arguments_are_refused_by_name(call, name):
    # were: OverflowError on 10**400 as a float, AttributeError on raw = None, a marker at a fraction of 1.5
    with pytest.raises(ValueError, match=name):
        call()
