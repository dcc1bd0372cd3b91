"""Adversarial-input sweep of :mod:`dpviz.plots.composition` (the figures of lessons 06 and 07).

Figure builders are public API: every callable of ``dpviz.plots.composition.__all__`` gets one valid baseline call,
and :func:`_adversarial.sweep` replaces each positional argument in turn by 16 hostile values (warnings are errors).
Only a ValueError/TypeError with a message, or a figure the browser can take, passes: a figure whose JSON holds a
bare NaN or ±inf (not JSON: the front end drops the update) fails like a returned NaN. Baselines are small settings
(few compositions, few grid points) so that the sweep of the accountants behind the figures stays quick; the
keyword-only sizes (``n_points``) are swept through named wrappers. The one public function of the lesson's panel
module, :func:`dpviz.panels.composition.disagreement_table`, is swept here too.
"""

from __future__ import annotations

import pytest
from _adversarial import contract_tests, register, sendable, sweep

import dpviz.panels.composition as PC
import dpviz.plots.composition as P

BASELINES = {
    "AccountantInfo": (("basic", "Basic", "upper bound", "a source", "why", "#000000", "solid"), {}),
    "accountant_bars_figure": (("laplace", 10.0, 3, 1.0, 1e-5, "add_remove"), {}),
    "epsilon_vs_count_figure": (("laplace", 10.0, 1.0, 1e-5, "add_remove", 10, 3), {"n_points": 3}),
    "privacy_profile_figure": (("laplace", 10.0, 3, 1.0, 1e-5, "add_remove"), {"n_points": 5}),
    "calibration_figure": (("laplace", 1.0, 1e-5, 3, 1.0), {}),
    "group_privacy_figure": (("laplace", 10.0, 1e-5, 2, 3), {}),
    "amplification_figure": ((1.0, 0.01), {}),
}

METHODS = {
    f"{name}[sent]": (sendable(getattr(P, name), name), args, kw) for name, (args, kw) in BASELINES.items()
    if name != "AccountantInfo"
}
METHODS.update({
    "epsilon_vs_count_figure[n_points]": (
        sendable(lambda n: P.epsilon_vs_count_figure("laplace", 10.0, 1.0, 1e-5, "add_remove", 10, None, n_points=n),
                  "epsilon_vs_count_figure"), (3,), {}),
    "privacy_profile_figure[n_points]": (
        sendable(lambda n: P.privacy_profile_figure("laplace", 10.0, 3, 1.0, 1e-5, "add_remove", n_points=n),
                  "privacy_profile_figure"), (5,), {}),
    "accountant_bars_figure[gaussian]": (sendable(P.accountant_bars_figure, "accountant_bars_figure"),
                                         ("gaussian", 4.0, 3, 1.0, 1e-5, "add_remove"), {}),
    "group_privacy_figure[gaussian]": (sendable(P.group_privacy_figure, "group_privacy_figure"),
                                       ("gaussian", 4.0, 1e-5, 2, 3), {}),
})

globals().update(contract_tests(P, BASELINES, methods=METHODS))



# ------------------------------------------------------------------------------------- the panel module's function
# dpviz.panels.composition has one public function besides its panels (whose constructors
# tests/contracts/test_adversarial_panels.py sweeps): the table that explains the bar chart. Swept here, with that
# figure.
register(PC, ["disagreement_table"])


@pytest.mark.parametrize("args", [("laplace", 10.0, 3, 1.0, 1e-5, "add_remove"),
                                  ("rr", 0.5, 3, 0.1, 1e-5, "add_remove")], ids=lambda a: a[0])
def test_sweep_disagreement_table(args):
    assert sweep(PC.disagreement_table, args) == []
