"""Privacy accountants: one interface, six ways to add up privacy loss.

>>> from dpviz.mechanisms import Gaussian
>>> from dpviz.accountants import ACCOUNTANTS
>>> eps = {name: cls().compose(Gaussian(5.0), count=10).epsilon(1e-5) for name, cls in ACCOUNTANTS.items()}
>>> eps["pld"] <= eps["rdp"] <= eps["zcdp"] * 1.01 and eps["pld"] <= eps["basic"]
True

Every accountant ``Cls(neighboring="add_remove" | "replace_one")`` has ``compose(event, count=1) -> self``,
``epsilon(delta)``, ``delta(epsilon)``, ``supports(event)`` and a read-only ``ledger``; a ledger holds at most
:data:`RUNS` runs. See
:mod:`dpviz.accountants.events` for the events, the neighbouring relations and the sensitivity convention.
"""

from dpviz.accountants._base import RUNS, Accountant
from dpviz.accountants.advanced import AdvancedAccountant
from dpviz.accountants.basic import BasicAccountant
from dpviz.accountants.calibration import (
    calibrate_laplace_scale,
    calibrate_laplace_scale_steps,
    calibrate_sigma,
    calibrate_sigma_steps,
)
from dpviz.accountants.events import (
    NEIGHBORING,
    ZCDP,
    ApproxDP,
    PoissonSampled,
    PureDP,
    SampledWithoutReplacement,
    amplify_poisson,
    amplify_without_replacement,
)
from dpviz.accountants.factory import ACCOUNTANTS
from dpviz.accountants.group import (
    group_privacy,
    group_privacy_curve,
    group_privacy_item_budget,
    group_privacy_lift,
    group_privacy_log_factor,
    group_privacy_mechanism,
)
from dpviz.accountants.optimal import OptimalAccountant
from dpviz.accountants.pld import PLDAccountant
from dpviz.accountants.rdp import RDPAccountant
from dpviz.accountants.zcdp import ZCDPAccountant

__all__ = [
    "ACCOUNTANTS",
    "Accountant",
    "AdvancedAccountant",
    "ApproxDP",
    "BasicAccountant",
    "RUNS",
    "NEIGHBORING",
    "OptimalAccountant",
    "PLDAccountant",
    "PoissonSampled",
    "PureDP",
    "RDPAccountant",
    "SampledWithoutReplacement",
    "ZCDP",
    "ZCDPAccountant",
    "amplify_poisson",
    "amplify_without_replacement",
    "calibrate_laplace_scale",
    "calibrate_laplace_scale_steps",
    "calibrate_sigma",
    "calibrate_sigma_steps",
    "group_privacy",
    "group_privacy_curve",
    "group_privacy_item_budget",
    "group_privacy_lift",
    "group_privacy_log_factor",
    "group_privacy_mechanism",
]
