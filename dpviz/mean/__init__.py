"""User-level mean estimation with few users (lesson 05).

Two papers:

* 004 — Levy, Sun, Amin, Kale, Kulesza, Mohri, Suresh, "Learning with User-Level Privacy": winsorized means
  (:mod:`dpviz.mean.winsorized`), privacy cost falling as 1/√m;
* 003 — Esfandiari, Mirrokni, Narayanan, "Tight and Robust Private Mean Estimation with Few Users": ball-finding
  with a garbage bucket (:mod:`dpviz.mean.robust`), a number of users independent of d, robust to corrupted users.

Plus baselines (:mod:`dpviz.mean.baselines`) and vectorised simulations (:mod:`dpviz.mean.simulate`).
"""

from dpviz.mean.hadamard import *  # noqa: F401,F403
from dpviz.mean.hadamard import __all__ as _h
from dpviz.mean.winsorized import *  # noqa: F401,F403
from dpviz.mean.winsorized import __all__ as _w

__all__ = [*_h, *_w]
