"""Group privacy: what a guarantee for one record says about k records (one person with k rows)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from dpviz import mechanisms as _m
from dpviz._validation import check_delta, check_integer, check_positive
from dpviz.accountants._base import MAX_COUNT
from dpviz.accountants.events import ZCDP, ApproxDP, PureDP

__all__ = ["group_privacy", "group_privacy_mechanism"]


def group_privacy(epsilon: float, delta: float, k: int) -> tuple[float, float]:
    """(ε, δ)-DP for neighbours implies (kε, δ·(e^{kε} − 1)/(e^ε − 1))-DP for datasets differing in k records
    (Lemma 6 of 000_eed7e3c6d3636c79; the δ factor is the geometric sum Σ_{j<k} e^{jε}, not k — digest pitfall 3;
    it tends to k as ε → 0). δ_k is capped at 1 (a δ ≥ 1 says nothing); k ≤ :data:`~dpviz.accountants.MAX_COUNT`.

    >>> eps, d = group_privacy(1.0, 1e-6, 3)
    >>> eps, round(d / 1e-6, 9)    # 1 + e + e²
    (3.0, 11.107337927)
    >>> group_privacy(0.0, 1e-6, 3)
    (0.0, 3e-06)
    """
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    delta = check_delta(delta)
    k = check_integer(k, "k", minimum=1, maximum=MAX_COUNT)
    k_eps = k * eps  # ∞ beyond the double range (then no finite group ε)
    if delta == 0.0:
        return k_eps, 0.0
    if eps == 0:
        return 0.0, min(1.0, delta * k)
    if k_eps <= 700.0:
        return k_eps, min(1.0, delta * (math.expm1(k_eps) / math.expm1(eps)))
    # (e^{kε} − 1)/(e^ε − 1) = e^{(k−1)ε}(1 − e^{−kε})/(1 − e^{−ε}), in logs (e^{kε} overflows)
    log_factor = (k - 1) * eps + math.log(-math.expm1(-k_eps)) - math.log(-math.expm1(-eps))
    return k_eps, math.exp(min(math.log(delta) + log_factor, 0.0))


def group_privacy_mechanism(mechanism: Any, k: int) -> Any:
    """The same mechanism seen by a group of k records: the exact answer, not the generic bound.

    A query with sensitivity Δ per record moves by at most kΔ when k records change, so Gaussian, Laplace, discrete
    Laplace and discrete Gaussian mechanisms become the same mechanism with sensitivity kΔ (exact: their privacy
    profiles at kΔ are attained). ``PureDP(ε)`` → ``PureDP(kε)`` (tight: randomized response on k bits), ``ZCDP(ρ)``
    → ``ZCDP(k²ρ)`` (Bun & Steinke 2016, Proposition 1.9), ``ApproxDP`` → :func:`group_privacy`.

    >>> from dpviz.mechanisms import Gaussian
    >>> group_privacy_mechanism(Gaussian(2.0, sensitivity=1.0), 3).sensitivity
    3.0

    Raises
    ------
    ValueError
        For randomized response and the truncated discrete Laplace (no sensitivity to scale: use
        :func:`group_privacy` on their (ε, δ)).
    """
    k = check_integer(k, "k", minimum=1, maximum=MAX_COUNT)
    if isinstance(mechanism, (_m.Gaussian, _m.Laplace)):
        return dataclasses.replace(mechanism, sensitivity=_scaled(k, mechanism.sensitivity, k, "sensitivity"))
    if isinstance(mechanism, (_m.DiscreteLaplace, _m.DiscreteGaussian)):
        return dataclasses.replace(mechanism, sensitivity=int(k * mechanism.sensitivity))
    if isinstance(mechanism, PureDP):
        return PureDP(_scaled(k, mechanism.epsilon, k, "epsilon"))
    if isinstance(mechanism, ZCDP):
        return ZCDP(_scaled(k * k, mechanism.rho, k, "rho"))
    if isinstance(mechanism, ApproxDP):
        e, d = group_privacy(mechanism.epsilon, mechanism.delta, k)
        _scaled(k, mechanism.epsilon, k, "epsilon")
        if d >= 1.0:
            raise ValueError(f"k = {k} is too large for {mechanism!r}: the group δ reaches 1 (no guarantee left).")
        return ApproxDP(e, d)
    raise ValueError(
        f"mechanism = {mechanism!r} is not allowed: must be Gaussian, Laplace, DiscreteLaplace, DiscreteGaussian, "
        "PureDP, ZCDP or ApproxDP (use group_privacy(epsilon, delta, k) for the generic bound)."
    )


def _scaled(factor: int, value: float, k: int, name: str) -> float:
    out = factor * value
    if not math.isfinite(out):
        raise ValueError(f"k = {k!r} is not allowed here: the group's {name} ({factor}·{value!r}) exceeds the double "
                         "range; use a smaller k.")
    return out
