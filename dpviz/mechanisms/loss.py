"""Exact privacy-loss distributions (lesson 03): :class:`PrivacyLossDistribution` and the Neyman–Pearson
trade-off read from its atoms (Dwork & Roth 2014, §2.3; Balle & Wang 2018, Thm 5; Dong, Roth & Su 2022, Def. 2.1).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from dpviz._validation import _clip01, _grid_arg, check_probability, check_real_array

__all__ = ["PrivacyLossDistribution"]


@dataclasses.dataclass(frozen=True, eq=False)
class PrivacyLossDistribution:
    """Exact distribution of the privacy loss L = ln(p_x(O)/p_x′(O)), O ~ M(x) (Dwork & Roth 2014, §2.3;
    Balle & Wang 2018, Def. 2 and Thm 5).

    A mixture of atoms (``atoms`` with probabilities ``masses``; ``+inf`` is allowed: outputs that M(x′) never
    produces) and, for continuous mechanisms, an absolutely continuous part with density ``density`` and survival
    function ``continuous_sf`` (both already multiplied by the mass of the continuous part).

    ``missing_mass`` is M(x′)'s probability of outputs that M(x) never produces (the atom at −∞ of the loss seen
    from x′), needed for E[e^{−L}] = 1 − missing_mass and for the trade-off curve. ``truncated_mass`` bounds the
    probability left out when an infinite set of atoms is truncated (0 when exact).
    """

    atoms: tuple[float, ...]
    masses: tuple[float, ...]
    density: Callable[[np.ndarray], np.ndarray] | None = None
    continuous_sf: Callable[[np.ndarray], np.ndarray] | None = None
    support: tuple[float, float] = (0.0, 0.0)
    missing_mass: float = 0.0
    truncated_mass: float = 0.0
    description: str = ""

    def __post_init__(self):
        atoms = _grid_arg(self.atoms, "atoms")
        masses = check_real_array(self.masses, "masses", allow_empty=True)
        if atoms.ndim != 1 or masses.ndim != 1 or atoms.shape != masses.shape:
            raise ValueError(f"atoms has shape {atoms.shape} and masses {masses.shape}, which is not allowed: must be "
                             "two 1-D sequences of the same length.")
        if np.any((masses < 0) | (masses > 1)):
            bad = float(masses[(masses < 0) | (masses > 1)][0])
            raise ValueError(f"masses contains {bad!r}, which is not allowed: must be probabilities in [0, 1].")
        for name in ("density", "continuous_sf"):
            fn = getattr(self, name)
            if fn is not None and not callable(fn):
                raise TypeError(f"{name} = {fn!r} is not allowed: must be a callable or None.")
        support = _grid_arg(self.support, "support")
        if support.shape != (2,) or not support[0] <= support[1]:
            raise ValueError(f"support = {self.support!r} is not allowed: must be a pair (low, high) with "
                             "low <= high (±inf allowed).")
        for name in ("missing_mass", "truncated_mass"):
            object.__setattr__(self, name, check_probability(getattr(self, name), name))
        if not isinstance(self.description, str):
            raise TypeError(f"description = {self.description!r} is not allowed: must be a str.")
        object.__setattr__(self, "atoms", tuple(atoms.tolist()))
        object.__setattr__(self, "masses", tuple(masses.tolist()))
        object.__setattr__(self, "support", (float(support[0]), float(support[1])))

    def pdf(self, loss) -> np.ndarray:
        """Density of the continuous part at ``loss`` (0 for purely discrete losses)."""
        x = _grid_arg(loss, "loss")
        if self.density is None:
            return np.zeros_like(x)
        return self.density(x)

    def sf(self, t) -> np.ndarray | float:
        """P[L > t], exact (atoms at +inf included)."""
        scalar = np.ndim(t) == 0
        x = _grid_arg(np.atleast_1d(t) if scalar else t, "t")
        a = np.asarray(self.atoms)
        m = np.asarray(self.masses)
        out = (m[None, :] * (a[None, :] > x.ravel()[:, None])).sum(axis=1).reshape(x.shape)
        if self.continuous_sf is not None:
            out = out + self.continuous_sf(x)
        return float(out.ravel()[0]) if scalar else out

    def hockey_stick(self, epsilon) -> np.ndarray:
        """E[(1 − e^{ε−L})_+] for the atoms only (the continuous part is the caller's: used by tests).

        ``epsilon``: numbers (any sign, ±inf allowed), scalar or array; returns a 1-D array."""
        e = np.atleast_1d(_grid_arg(epsilon, "epsilon")).ravel()
        a = np.asarray(self.atoms, dtype=float)
        m = np.asarray(self.masses, dtype=float)
        with np.errstate(over="ignore", invalid="ignore"):  # inf − inf where ε and the atom are both +inf: w = 0
            w = np.where(a[None, :] > e[:, None], -np.expm1(np.minimum(e[:, None] - a[None, :], 0.0)), 0.0)
        return (w * m[None, :]).sum(axis=1)


def _discrete_tradeoff(pld: PrivacyLossDistribution, alpha: np.ndarray) -> np.ndarray:
    """Neyman–Pearson trade-off T(M(x), M(x′)) from the loss atoms: reject H0 = "output of M(x)" on the outputs
    with the largest likelihood ratio p_x′/p_x = e^{−L} first, randomising on the boundary atom; the curve is the
    piecewise-linear interpolation of the vertices (Dong, Roth & Su 2022, Def. 2.1 and Prop. 2.2).

    The mass of an atom a under M(x′) is m·e^{−a} in exact arithmetic. Every mechanism here is symmetric (the loss
    seen from x′ is the mirror image of the loss seen from x), so that mass is also the x-mass of the atom −a: it
    is read from there when −a is an atom, which stays exact when m underflows to 0 or e^{−a} overflows
    (e.g. randomized response at ε = 800, where m·e^{−a} = 0·inf); otherwise e^{ln m − a} in log space."""
    a = np.asarray(pld.atoms, dtype=float)
    m = np.asarray(pld.masses, dtype=float)
    mirror = {}
    for ai, mi in zip(a.tolist(), m.tolist()):
        mirror[-ai] = mirror.get(-ai, 0.0) + mi  # x-mass at −a, keyed by a
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        q_log = np.where(m > 0, np.exp(np.log(np.where(m > 0, m, 1.0)) - a), 0.0)
    q = np.array([mirror.get(ai, qi) for ai, qi in zip(a.tolist(), q_log.tolist())])
    keep = (m > 0) | (q > 0)
    a, m, q = a[keep], m[keep], q[keep]
    order = np.argsort(a, kind="stable")
    m, q = m[order], q[order]
    xs = np.concatenate([[0.0], np.cumsum(m)])
    ys = np.concatenate([[1.0 - pld.missing_mass], 1.0 - pld.missing_mass - np.cumsum(q)])
    xs[-1] = max(xs[-1], 1.0)
    ys[-1] = 0.0  # rejecting every output: β(1) = 0 (the atoms carry all of M(x′)'s mass; DG: up to < 1e-29)
    # β on (xs[j−1], xs[j]] is the chord between vertices j−1 and j; at α = 0 only outputs M(x) never produces
    # can be rejected: β(0) = ys[0]. (Atoms of x-mass 0 give repeated xs; np.interp is undefined there.)
    j = np.clip(np.searchsorted(xs, alpha, side="left"), 1, xs.size - 1)
    x0, x1, y0, y1 = xs[j - 1], xs[j], ys[j - 1], ys[j]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(x1 > x0, (alpha - x0) / np.where(x1 > x0, x1 - x0, 1.0), 1.0)
    beta = np.where(alpha <= 0, ys[0], y0 + np.clip(t, 0.0, 1.0) * (y1 - y0))
    return _clip01(beta, 0.0, 1.0)
