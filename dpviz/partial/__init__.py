"""Per-attribute (partial) differential privacy: accounting, algorithms and interpretation.

Paper: Ghazi, Kumar, Manurangsi & Steinke 2023, "Algorithms with More Granular Differential Privacy Guarantees"
(ITCS 2023).
``eps0`` is always the per-attribute parameter and ``eps`` the per-person one (the paper writes ε for ε0 in
Sections 5–6).

Submodules: :mod:`.accounting` (Proposition 8, Lemmas 7, 9, 10, the Census ledger), :mod:`.interpretation`
(Propositions 26–27, bit recovery), :mod:`.histograms` (Algorithm 2, Theorems 15–16, the canonical histogram),
:mod:`.marginals` (projection mechanism, partial MWEM), :mod:`.learners` (Theorems 18, 20, 31, 33),
:mod:`.experiments` (the lesson's curves and seeded simulations, drawn by :mod:`dpviz.plots.partial`).
"""

from dpviz.partial.accounting import *  # noqa: F401,F403
from dpviz.partial.accounting import __all__ as _acc_all
from dpviz.partial.histograms import *  # noqa: F401,F403
from dpviz.partial.histograms import __all__ as _hist_all
from dpviz.partial.interpretation import *  # noqa: F401,F403
from dpviz.partial.interpretation import __all__ as _int_all

__all__ = list(_acc_all) + list(_hist_all) + list(_int_all)
from dpviz.partial.marginals import *  # noqa: F401,F403,E402
from dpviz.partial.marginals import __all__ as _marg_all  # noqa: E402

__all__ += list(_marg_all)
from dpviz.partial.learners import *  # noqa: F401,F403,E402
from dpviz.partial.learners import __all__ as _learn_all  # noqa: E402

__all__ += list(_learn_all)
from dpviz.partial.experiments import *  # noqa: F401,F403,E402
from dpviz.partial.experiments import __all__ as _exp_all  # noqa: E402

__all__ += list(_exp_all)
