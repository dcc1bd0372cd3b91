"""The Gaussian mechanism's privacy profile δ(ε) three ways, as lesson 03 compares them.

* exact: Balle & Wang 2018, Thm 8 (:meth:`dpviz.mechanisms.Gaussian.delta`);
* classic: the δ that the textbook calibration σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1, proven for
  ε < 1; :func:`dpviz.mechanisms.classic_gaussian_sigma`) assigns to σ at ε, :func:`classic_gaussian_delta`;
* zCDP: ρ = Δ²/(2σ²) (Bun & Steinke 2016, Prop. 1.6) converted to (ε, δ) by :func:`dpviz.conversions.zcdp_delta`
  (Canonne, Kamath & Steinke 2020, Cor. 13; Bun & Steinke 2016, Prop. 1.3).

:func:`gaussian_profile_curves` evaluates all of them on one ε grid (the numbers lesson 03's profile figure draws).
"""

from __future__ import annotations

import numpy as np

from dpviz import mechanisms as _mech
from dpviz._validation import check_integer, check_positive
from dpviz.conversions import zcdp_delta
from dpviz.mechanisms.gaussian import classic_gaussian_delta  # the textbook formula's home (re-exported here)

__all__ = ["classic_gaussian_delta", "gaussian_profile_curves"]


def gaussian_profile_curves(sigma: float, sensitivity: float = 1.0, eps_max: float | None = None,
                            n: int = 121) -> dict[str, np.ndarray]:
    """The δ(ε) curves of the Gaussian mechanism N(0, σ²) with sensitivity Δ on a common grid of ``n`` values of
    ε from 0 to ``eps_max`` (default: 1.15 × the exact ε at δ = 10⁻¹², at least 1.5):

    * ``exact``: Balle & Wang 2018, Thm 8 (:meth:`dpviz.mechanisms.Gaussian.delta`);
    * ``classic``: :func:`classic_gaussian_delta` (Dwork & Roth 2014, Thm A.1; proven only for ε < 1);
    * ``cks`` and ``simple`` (on the same grid, ``eps_zcdp``): ρ-zCDP (ρ = Δ²/(2σ²), Bun & Steinke 2016, Prop. 1.6)
      converted by :func:`dpviz.conversions.zcdp_delta` (Canonne, Kamath & Steinke 2020, Cor. 13; Bun & Steinke 2016,
      Prop. 1.3).

    >>> c = gaussian_profile_curves(1.0, n=3, eps_max=2.0)
    >>> c["eps"].tolist(), bool(np.all(c["exact"] <= c["cks"]))
    ([0.0, 1.0, 2.0], True)
    """
    s = check_positive(sigma, "sigma")
    dl = check_positive(sensitivity, "sensitivity")
    n = check_integer(n, "n", minimum=2)
    g = _mech.Gaussian(s, dl)
    if eps_max is None:
        eps_max = max(1.5, 1.15 * g.epsilon(1e-12))
    eps_max = check_positive(eps_max, "eps_max")
    eps = np.linspace(0.0, float(eps_max), n)
    return {"eps": eps, "exact": g.delta(eps), "classic": classic_gaussian_delta(eps, s, dl), "eps_zcdp": eps,
            "cks": zcdp_delta(g.rho, eps, method="cks"), "simple": zcdp_delta(g.rho, eps, method="simple")}
