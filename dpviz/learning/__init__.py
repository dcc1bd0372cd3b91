"""Learning with user-level DP (lesson 13): Algorithms 3, 4, 5, 7 of Levy et al. 2021 and Algorithm H of Esfandiari,
Mirrokni & Narayanan 2022.

* :mod:`dpviz.learning.tasks` — synthetic user-partitioned linear / logistic regression with a heterogeneity knob;
* :mod:`dpviz.learning.optim` — Algorithm 7 (generic first-order optimiser) in its three variants;
* :mod:`dpviz.learning.training` — user-level DP-SGD (Algorithm 3), naive and example-level baselines, privacy
  reports composed with :mod:`dpviz.accountants`;
* :mod:`dpviz.learning.erm` — Phased ERM (Algorithm 4), private selection (Algorithm 5), heterogeneity transfer
  (Theorem 9), the ERM reduction of Esfandiari, Mirrokni & Narayanan 2022 (Algorithm H);
* :mod:`dpviz.learning.rates` — the rates of Theorems 3, 4, 5, 6, 7, 8 as formulas with validity conditions;
* :mod:`dpviz.learning.experiments` — the seeded, cached experiments behind the lesson panels.

References
----------
Levy et al. 2021 (Levy, Sun, Amin, Kale, Kulesza, Mohri & Suresh), "Learning with User-Level Privacy", NeurIPS 2021.
Esfandiari, Mirrokni & Narayanan 2022, "Tight and Robust Private Mean Estimation with Few Users", ICML 2022.
"""

from dpviz.learning import experiments, rates  # noqa: F401
from dpviz.learning.erm import *  # noqa: F401,F403
from dpviz.learning.erm import __all__ as _e
from dpviz.learning.optim import *  # noqa: F401,F403
from dpviz.learning.optim import __all__ as _o
from dpviz.learning.tasks import *  # noqa: F401,F403
from dpviz.learning.tasks import __all__ as _t
from dpviz.learning.training import *  # noqa: F401,F403
from dpviz.learning.training import __all__ as _tr

__all__ = [*_t, *_o, *_tr, *_e, "rates", "experiments"]
