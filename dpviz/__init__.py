"""dpviz: an interactive teaching environment for differential privacy.

Layers, one direction: core numerics (``dpviz.mechanisms``, ``dpviz.accountants``, ``dpviz.conversions`` and the
papers' algorithms in ``dpviz.userlevel``, ``dpviz.mean``, ``dpviz.learning``, ``dpviz.partial``) →
``dpviz.plots`` (pure plotly figure builders) → ``dpviz.panels`` (ipywidgets panels) → ``notebooks/``.

The mechanisms, accountants and conversions are re-exported here so one import serves a lesson or a script;
the lessons' own modules (``attacks``, ``local``, ``sensitivity``, ``selection``, ``interpret``, ``deployments``,
``audit``, ``dpsgd``) and the paper-specific packages are imported as modules (``from dpviz import selection``).

They are imported on first use (:pep:`562`), not by ``import dpviz`` itself: a process that serves the lessons
imports ``dpviz.serve`` and ``dpviz.lessons`` only, and must not pay for numpy, scipy and the numerics. Under
``dpviz serve`` that did not matter (one server for the class, and every kernel forked from a process that has
imported everything, :mod:`dpviz.serve.forkserver`); under JupyterHub every student has a server of their own, and
the numerics made each one 76 MB larger (resident size, measured 2026-12-02). A name that is not one of these is
an AttributeError, as without the façade.

>>> import dpviz
>>> round(dpviz.Gaussian(sigma=1.0).epsilon(1e-5), 4)
4.3772
>>> dpviz.PLDAccountant().compose(dpviz.Gaussian(2.0), count=4).epsilon(1e-5) == dpviz.Gaussian(1.0).epsilon(1e-5)
True
"""

from __future__ import annotations

import importlib

#: The modules and packages ``dpviz.<name>`` gives.
_MODULES = ("accountants", "attacks", "audit", "beyond", "conversions", "deployments", "dpsgd", "interpret",
            "learning", "local", "mean", "mechanisms", "partial", "release", "selection", "sensitivity", "userlevel")
#: The names re-exported here, by the module that defines them.
_EXPORTS = {
    "accountants": ("ACCOUNTANTS", "ZCDP", "AdvancedAccountant", "ApproxDP", "BasicAccountant", "OptimalAccountant",
                    "PLDAccountant", "PoissonSampled", "PureDP", "RDPAccountant", "SampledWithoutReplacement",
                    "ZCDPAccountant", "calibrate_laplace_scale", "calibrate_sigma", "group_privacy",
                    "group_privacy_item_budget", "group_privacy_mechanism"),
    "conversions": ("pure_to_zcdp", "rdp_to_approx_dp", "zcdp_delta", "zcdp_to_approx_dp"),
    "mechanisms": ("DiscreteGaussian", "DiscreteLaplace", "Gaussian", "Laplace", "RandomizedResponse",
                   "TruncatedDiscreteLaplace", "analytic_gaussian_sigma", "classic_gaussian_epsilon",
                   "classic_gaussian_sigma", "exponential_mechanism", "exponential_mechanism_probabilities",
                   "gaussian_delta", "gaussian_epsilon", "gaussian_mu"),
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = [*_MODULES, *_HOME]
__version__ = "0.1.0"


def __getattr__(name: str):
    if name in _MODULES:
        return importlib.import_module(f"dpviz.{name}")
    if name in _HOME:
        value = getattr(importlib.import_module(f"dpviz.{_HOME[name]}"), name)
        globals()[name] = value  # found once; later lookups do not come here
        return value
    raise AttributeError(f"module 'dpviz' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
