"""Adversarial-input sweep of :mod:`dpviz.plots.privacy_loss` (lesson 03's figures).

Figure builders are public API: every callable of ``dpviz.plots.privacy_loss.__all__`` gets one valid baseline call,
and :func:`_adversarial.sweep` replaces each positional argument in turn by 16 hostile values (warnings are errors).
Only a ValueError/TypeError with a message, or a figure the browser can take, passes: a figure whose JSON holds a
bare NaN or ±inf (not JSON: the front end drops the update) fails like a returned NaN. The mechanism-taking builders
are also swept through each mechanism's own numbers (σ, b, Δ, ε<sub>RR</sub> at 5e-324, 1e308, ...), by small named
wrappers that build the mechanism and draw it. The one public function of the lesson's panel module,
:func:`dpviz.panels.privacy_loss.build_mechanism`, is swept here too.
"""

from __future__ import annotations

import pytest
from _adversarial import contract_tests, register, sendable, sweep

import dpviz.mechanisms as M
import dpviz.panels.privacy_loss as PL
import dpviz.plots.privacy_loss as P


def _drawn(make, figure, name):
    """Build a mechanism from the swept numbers, then draw it with ``figure``."""
    return sendable(lambda *a: figure(make(*a[:-1]), a[-1]), name)


_G = M.Gaussian(1.0)

BASELINES = {
    "mechanism_label": ((_G,), {}),
    "output_distributions_figure": ((_G, 0.5), {}),
    "privacy_loss_figure": ((_G, 1.0), {}),
    "privacy_profile_figure": ((1.0, 1.0, 1e-5), {}),
    "tradeoff_figure": ((_G, 1.0, 1e-3), {}),
    "vector_release_figure": ((1.0, 1e-5, 100), {}),
}

_MAKERS = {
    "Gaussian": (M.Gaussian, (1.0, 1.0)),
    "Laplace": (M.Laplace, (1.0, 1.0)),
    "RandomizedResponse": (M.RandomizedResponse, (1.0,)),
    "DiscreteLaplace": (M.DiscreteLaplace, (1.5, 1)),
    "DiscreteGaussian": (M.DiscreteGaussian, (1.5, 1)),
    "TruncatedDiscreteLaplace": (M.TruncatedDiscreteLaplace, (1.0, 1e-3)),
}

METHODS = {}
for _mech, (_make, _args) in _MAKERS.items():
    for _fig, _eps in (("output_distributions_figure", 0.5), ("privacy_loss_figure", 1.0)):
        _label = f"{_fig}[{_mech}]"
        METHODS[_label] = (_drawn(_make, getattr(P, _fig), _label), (*_args, _eps), {})
    _label = f"tradeoff_figure[{_mech}]"
    METHODS[_label] = (sendable(lambda *a, make=_make: P.tradeoff_figure(make(*a[:-2]), *a[-2:]), _label),
                       (*_args, 1.0, 1e-3), {})
METHODS["privacy_profile_figure[hidden]"] = (
    sendable(lambda s, dl, d: P.privacy_profile_figure(s, dl, d, show_epsilon=False), "privacy_profile_figure"),
    (1.0, 1.0, 1e-5), {})
METHODS["vector_release_figure[sizes]"] = (
    sendable(lambda d, top, upto: P.vector_release_figure(1.0, 1e-5, d, max_dimension=top, drawn_to=upto),
              "vector_release_figure"), (10, 1000, 100), {})
for _name, (_args, _kw) in BASELINES.items():
    METHODS[f"{_name}[sent]"] = (sendable(getattr(P, _name), _name), _args, _kw)

globals().update(contract_tests(P, BASELINES, methods=METHODS, exempt={}))



# ------------------------------------------------------------------------------------- the panel module's function
# dpviz.panels.privacy_loss has one public function besides its panels (whose constructors
# tests/contracts/test_adversarial_panels.py sweeps): the mechanism its controls describe. Swept here, with the figures
# it feeds.
register(PL, ["build_mechanism"])


@pytest.mark.parametrize("args", [("gaussian", 1.0, 1.0, 1.0, 1e-3), ("laplace", 2.0, 3.0, 1.0, 1e-3),
                                  ("rr", 1.0, 1.0, 0.5, 1e-3), ("tdlap", 1.0, 1.0, 1.0, 1e-3),
                                  ("dgaussian", 1.5, 2.0, 1.0, 1e-3)], ids=lambda a: a[0])
def test_sweep_build_mechanism(args):
    assert sweep(PL.build_mechanism, args) == []
