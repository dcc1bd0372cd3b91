"""Binary randomized response (Warner 1965; Dwork & Roth 2014, §3.2) with its exact profile.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import special

from dpviz._inverse import _snap_closed_form
from dpviz._validation import (
    _alpha_arg,
    _grid_arg,
    _nonneg,
    _out,
    _values_arg,
    as_rng,
    check_delta,
    check_integer,
    check_positive,
)
from dpviz.mechanisms._base import _CallableFloat, _Mechanism
from dpviz.mechanisms.loss import PrivacyLossDistribution, _discrete_tradeoff

__all__ = ["RandomizedResponse"]


@dataclasses.dataclass(frozen=True)
class RandomizedResponse(_Mechanism):
    """Binary randomized response: report the true bit with probability p = e^ε/(1 + e^ε), else flip it
    (Warner 1965; Dwork & Roth 2014, §3.2). Neighbours are the two bits 0 and 1. ``pure_epsilon`` = ε.

    Exact profile (the sum over the two outputs of (p_x − e^{ε′}p_x′)_+):

        δ(ε′) = (e^ε − e^{ε′})_+ / (1 + e^ε),   inverse ε′(δ) = max(0, ε + ln(1 − δ(1 + e^{−ε}))).

    ``sample_noise`` returns the flip indicators (1 = the bit was flipped).
    """

    epsilon: float
    _integer_valued = True

    def __post_init__(self):
        eps = check_positive(self.epsilon, "epsilon")
        object.__setattr__(self, "epsilon", _CallableFloat(eps, self._inverse))

    @property
    def keep_probability(self) -> float:
        """p = e^ε/(1 + e^ε) = 1/(1 + e^{−ε})."""
        return 1.0 / (1.0 + math.exp(-float(self.epsilon)))

    @property
    def _flip_probability(self) -> float:
        """1 − p = 1/(1 + e^ε), computed directly (1 − p rounds to 0 for ε ≳ 37, losing the flip mass)."""
        return float(special.expit(-float(self.epsilon)))

    @property
    def pure_epsilon(self) -> float:
        return float(self.epsilon)

    def _delta(self, e):
        eps = float(self.epsilon)
        # (e^ε − e^{ε′})/(1 + e^ε) = (1 − e^{ε′−ε})/(1 + e^{−ε})
        return _nonneg(-np.expm1(np.minimum(e - eps, 0.0)) / (1.0 + math.exp(-eps)))

    def _inverse(self, delta: float = 0.0) -> float:
        """Smallest ε′ with δ(ε′) ≤ delta: max(0, ε + ln(1 − δ(1 + e^{−ε}))) (closed form)."""
        d = check_delta(delta)
        eps = float(self.epsilon)
        arg = d * (1.0 + math.exp(-eps))
        if arg >= 1.0:
            return 0.0
        return _snap_closed_form(self._delta, d, max(0.0, eps + math.log1p(-arg)), eps)

    def release(self, value, rng=None):
        """The reported bit(s): ``value`` (0/1, scalar or array) flipped with probability 1 − p each."""
        v, scalar = _values_arg(value, integer=True)
        if np.any((v != 0) & (v != 1)):
            bad = int(v[(v != 0) & (v != 1)].flat[0])
            raise ValueError(f"value = {bad!r} is not allowed: must be a bit, 0 or 1.")
        out = v ^ self._sample(v.shape, as_rng(rng))
        return int(out[0]) if scalar else out

    def _sample(self, shape, rng):
        return (rng.random(size=shape) >= self.keep_probability).astype(np.int64)

    def pmf(self, k, value: int = 0):
        """P[output = k | true bit = value] on k ∈ {0, 1}."""
        kk = _grid_arg(k, "k")
        v = check_integer(value, "value", minimum=0, maximum=1)
        p, flip = self.keep_probability, self._flip_probability
        return np.where(kk == v, p, np.where((kk == 0) | (kk == 1), flip, 0.0))

    def privacy_loss(self) -> PrivacyLossDistribution:
        """Atoms +ε (mass p, output = true bit) and −ε (mass 1 − p)."""
        eps, p = float(self.epsilon), self.keep_probability
        return PrivacyLossDistribution(atoms=(eps, -eps), masses=(p, self._flip_probability),
                                       description="RR: atoms ±ε")

    def tradeoff(self, alpha):
        """β(α) = max(0, 1 − e^ε α, e^{−ε}(1 − α)): Neyman–Pearson with randomisation, i.e. f_{ε,0} of
        Kairouz, Oh & Viswanath 2015 (Dong, Roth & Su 2022, eq. (5)); vertex at α = β = 1 − p."""
        a, scalar = _alpha_arg(alpha)
        return _out(_discrete_tradeoff(self.privacy_loss(), a), scalar)
