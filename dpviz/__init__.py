"""dpviz: an interactive teaching environment for differential privacy.

Layers, one direction: core numerics (``dpviz.mechanisms``, ``dpviz.accountants``, ``dpviz.conversions`` and the
papers' algorithms in ``dpviz.userlevel``, ``dpviz.mean``, ``dpviz.learning``, ``dpviz.partial``) →
``dpviz.plots`` (pure plotly figure builders) → ``dpviz.panels`` (ipywidgets panels) → ``notebooks/``.

The mechanisms, accountants and conversions are re-exported here so one import serves a lesson or a script;
the lessons' own modules (``attacks``, ``local``, ``sensitivity``, ``selection``, ``interpret``, ``deployments``,
``audit``, ``dpsgd``) and the paper-specific packages are imported as modules (``from dpviz import selection``).

>>> import dpviz
>>> round(dpviz.Gaussian(sigma=1.0).epsilon(1e-5), 4)
4.3772
>>> dpviz.PLDAccountant().compose(dpviz.Gaussian(2.0), count=4).epsilon(1e-5) == dpviz.Gaussian(1.0).epsilon(1e-5)
True
"""

from dpviz import (  # noqa: F401
    accountants,
    attacks,
    audit,
    conversions,
    deployments,
    dpsgd,
    interpret,
    learning,
    local,
    mean,
    mechanisms,
    partial,
    selection,
    sensitivity,
    userlevel,
)
from dpviz.accountants import (  # noqa: F401
    ACCOUNTANTS,
    ZCDP,
    AdvancedAccountant,
    ApproxDP,
    BasicAccountant,
    OptimalAccountant,
    PLDAccountant,
    PoissonSampled,
    PureDP,
    RDPAccountant,
    SampledWithoutReplacement,
    ZCDPAccountant,
    calibrate_laplace_scale,
    calibrate_sigma,
    group_privacy,
    group_privacy_item_budget,
    group_privacy_mechanism,
)
from dpviz.conversions import pure_to_zcdp, rdp_to_approx_dp, zcdp_delta, zcdp_to_approx_dp  # noqa: F401
from dpviz.mechanisms import (  # noqa: F401
    DiscreteGaussian,
    DiscreteLaplace,
    Gaussian,
    Laplace,
    RandomizedResponse,
    TruncatedDiscreteLaplace,
    analytic_gaussian_sigma,
    classic_gaussian_epsilon,
    classic_gaussian_sigma,
    exponential_mechanism,
    exponential_mechanism_probabilities,
    gaussian_delta,
    gaussian_epsilon,
    gaussian_mu,
)

__version__ = "0.1.0"
