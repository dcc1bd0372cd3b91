"""The Laplace mechanism (Dwork & Roth 2014, Def. 3.3, Thm 3.6) with its exact profile and inverse.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from dpviz._inverse import _snap_closed_form
from dpviz._validation import (
    _alpha_arg,
    _clip01,
    _no_nan,
    _nonneg,
    _out,
    _values_arg,
    check_delta,
    check_positive,
    check_real_array,
)
from dpviz.mechanisms._base import _Mechanism
from dpviz.mechanisms.loss import PrivacyLossDistribution

__all__ = ["Laplace"]


@dataclasses.dataclass(frozen=True)
class Laplace(_Mechanism):
    """Laplace mechanism M(x) = x + Lap(b), density e^{−|y−x|/b}/(2b) (Dwork & Roth 2014, Def. 3.3, Thm 3.6).

    ``pure_epsilon`` ε₀ = Δ/b. Exact profile (hockey-stick of two shifted Laplace laws; e.g. Balle,
    Barthe & Gaboardi 2018, "Privacy amplification by subsampling", §5; Koskela et al. 2021):

        δ(ε) = max(0, 1 − e^{(ε−ε₀)/2}),   inverse ε(δ) = max(0, ε₀ + 2 ln(1 − δ)).

    Parameters
    ----------
    scale : float
        b > 0.
    sensitivity : float
        Δ > 0 (the neighbour's value is x + Δ).
    """

    scale: float
    sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "scale", check_positive(self.scale, "scale"))
        object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))

    @property
    def pure_epsilon(self) -> float:
        return self.sensitivity / self.scale

    def _delta(self, e):
        return _nonneg(-np.expm1(np.minimum(e - self.pure_epsilon, 0.0) / 2.0))

    def epsilon(self, delta: float) -> float:
        """ε(δ) = max(0, ε₀ + 2 ln(1 − δ)) (closed-form inverse of the profile)."""
        d = check_delta(delta)
        e = max(0.0, self.pure_epsilon + 2.0 * math.log1p(-d))
        return _snap_closed_form(self._delta, d, e, self.pure_epsilon)

    def _sample(self, shape, rng):
        return rng.laplace(0.0, self.scale, size=shape)

    def pdf(self, y, value: float = 0.0):
        """Density e^{−|y−value|/b}/(2b) (+inf at y = value if 1/(2b) exceeds the double range, b ≲ 3e-309)."""
        y = check_real_array(y, "y")
        v, _ = _values_arg(value, integer=False)
        with np.errstate(over="ignore", under="ignore"):  # |y − v|/b = inf: density 0
            r = np.abs(y - v[0]) / self.scale
            return np.exp(-r) / (2.0 * self.scale)

    def privacy_loss(self) -> PrivacyLossDistribution:
        """L for x = 0, x′ = Δ: atom +ε₀ with mass ½ (O ≤ 0), atom −ε₀ with mass ½e^{−ε₀} (O ≥ Δ), and density
        ¼ e^{(ℓ−ε₀)/2} on (−ε₀, ε₀) (from O ∈ (0, Δ), L = ε₀ − 2O/b)."""
        e0 = self.pure_epsilon

        def dens(x):
            x = np.asarray(x, dtype=float)
            inside = (x > -e0) & (x < e0)
            with np.errstate(over="ignore", under="ignore"):  # x − ε₀ → −inf for ε₀ near 1e308: density 0
                return np.where(inside, 0.25 * np.exp((np.where(inside, x, 0.0) - e0) / 2.0), 0.0)

        def csf(t):
            # ∫_t^{ε₀} ¼ e^{(ℓ−ε₀)/2} dℓ = ½(1 − e^{(t−ε₀)/2}) on (−ε₀, ε₀); ½(1 − e^{−ε₀}) below, 0 above
            t = np.maximum(np.asarray(t, dtype=float), -e0)
            with np.errstate(over="ignore", under="ignore"):  # t − ε₀ → −inf when ε₀ = inf or near 1e308
                return np.where(t < e0, 0.5 * -np.expm1((np.where(t < e0, t, 0.0) - e0) / 2.0), 0.0)

        return PrivacyLossDistribution(atoms=(e0, -e0), masses=(0.5, 0.5 * math.exp(-e0)), density=dens,
                                       continuous_sf=csf, support=(-e0, e0),
                                       description="Laplace: atoms ±ε₀ and a density on (−ε₀, ε₀)")

    def tradeoff(self, alpha):
        """β(α) = 1 − e^{ε₀}α for α < e^{−ε₀}/2, e^{−ε₀}/(4α) for α ≤ ½, e^{−ε₀}(1 − α) above
        (threshold tests are Neyman–Pearson optimal: the likelihood ratio is monotone; Dong, Roth & Su 2022, §A)."""
        a, scalar = _alpha_arg(alpha)
        e0 = self.pure_epsilon
        em = math.exp(-e0)  # e^{ε₀} may overflow (ε₀ > 709); e^{−ε₀} only underflows to 0
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            mid = em / (4.0 * np.where(a > 0, a, 1.0))
            ee = math.exp(e0) if e0 < 709.0 else math.inf
            first = np.where(a > 0, 1.0 - ee * a, 1.0)  # 1 − e^{ε₀}α; β(0) = 1 (also when e^{ε₀} = inf)
        out = np.where((a < 0.5 * em) | (a == 0), first, np.where(a <= 0.5, mid, em * (1.0 - a)))
        return _out(_no_nan(_clip01(out, 0.0, 1.0), "tradeoff(alpha)", "alpha", alpha), scalar)
