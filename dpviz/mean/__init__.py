"""User-level mean estimation with few users (lesson 12).

Two papers:

* Levy et al. 2021 — Levy, Sun, Amin, Kale, Kulesza, Mohri, Suresh, "Learning with User-Level Privacy": winsorized means
  (:mod:`dpviz.mean.winsorized`, rotation in :mod:`dpviz.mean.hadamard`, the theorems' closed forms in
  :mod:`dpviz.mean.bounds`), privacy cost falling as 1/√m;
* Esfandiari, Mirrokni & Narayanan 2022 — Esfandiari, Mirrokni, Narayanan, "Tight and Robust Private Mean Estimation
  with Few Users": ball-finding with a garbage bucket (:mod:`dpviz.mean.robust`), a number of users independent of d,
  robust to corrupted users.

Plus baselines (:mod:`dpviz.mean.baselines`) and vectorised simulations (:mod:`dpviz.mean.simulate`).
Everything public in the submodules is re-exported here.
"""

from dpviz.mean import baselines as _b
from dpviz.mean import bounds as _bd
from dpviz.mean import hadamard as _h
from dpviz.mean import robust as _r
from dpviz.mean import simulate as _s
from dpviz.mean import winsorized as _w
from dpviz.mean.baselines import *  # noqa: F401,F403
from dpviz.mean.bounds import *  # noqa: F401,F403
from dpviz.mean.hadamard import *  # noqa: F401,F403
from dpviz.mean.robust import *  # noqa: F401,F403
from dpviz.mean.simulate import *  # noqa: F401,F403
from dpviz.mean.winsorized import *  # noqa: F401,F403

__all__ = [*_h.__all__, *_w.__all__, *_bd.__all__, *_b.__all__, *_s.__all__, *_r.__all__]
