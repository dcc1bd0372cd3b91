"""The string → object factories: a lesson's dropdown key and noise level → a :mod:`dpviz.mechanisms` object
(:func:`make_mechanism`), and an accountant's name → its class (:data:`ACCOUNTANTS`).

Lesson 03's panels (six mechanisms) and lesson 07's composition lab (Gaussian, Laplace, randomized response) both
build their mechanisms here, so a key means the same mechanism everywhere.

>>> make_mechanism("gaussian", 2.0).sigma, make_mechanism("rr", 0.5).epsilon
(2.0, 0.5)
"""

from __future__ import annotations

from dpviz import mechanisms as _m
from dpviz._validation import check_choice, check_integer, check_positive
from dpviz.accountants.advanced import AdvancedAccountant
from dpviz.accountants.basic import BasicAccountant
from dpviz.accountants.optimal import OptimalAccountant
from dpviz.accountants.pld import PLDAccountant
from dpviz.accountants.rdp import RDPAccountant
from dpviz.accountants.zcdp import ZCDPAccountant

__all__ = ["ACCOUNTANTS", "MECHANISM_KINDS", "NOISE_PARAMETER", "make_mechanism"]

#: name → accountant class, loosest bound first (lesson 07 shows zCDP before RDP: plots.composition.ACCOUNTANT_ORDER);
#: re-exported as :data:`dpviz.accountants.ACCOUNTANTS`.
ACCOUNTANTS = {
    "basic": BasicAccountant,
    "advanced": AdvancedAccountant,
    "optimal": OptimalAccountant,
    "rdp": RDPAccountant,
    "zcdp": ZCDPAccountant,
    "pld": PLDAccountant,
}

#: The keys :func:`make_mechanism` knows, in the order lesson 03 lists them.
MECHANISM_KINDS = ("laplace", "gaussian", "rr", "dlaplace", "dgaussian", "tdlap")

#: What the ``noise`` argument of :func:`make_mechanism` is for each key: the Gaussian's σ, the Laplace scale b, or
#: the ε of randomized response / the truncated discrete Laplace (ε<sub>RR</sub> in the course notation; plain text
#: here because error messages are shown escaped).
NOISE_PARAMETER = {"laplace": "b", "gaussian": "σ", "rr": "ε_RR", "dlaplace": "b", "dgaussian": "σ", "tdlap": "ε_RR"}


def make_mechanism(kind: str, noise: float, sensitivity: float = 1.0, *, tdlap_delta: float = 1e-3):
    """The mechanism of :mod:`dpviz.mechanisms` named by ``kind`` (one of :data:`MECHANISM_KINDS`).

    ``noise`` is the parameter of :data:`NOISE_PARAMETER`:

    * ``"laplace"``: ``Laplace(b, Δ)`` (Dwork & Roth 2014, Def. 3.3);
    * ``"gaussian"``: ``Gaussian(σ, Δ)`` (Dwork & Roth 2014, Thm A.1; Balle & Wang 2018, Thm 8);
    * ``"rr"``: binary randomized response ``RandomizedResponse(ε₀)`` (Warner 1965), whose neighbours are the two
      bits, so ``sensitivity`` does not apply;
    * ``"dlaplace"`` / ``"dgaussian"``: ``DiscreteLaplace(b, Δ)`` / ``DiscreteGaussian(σ, Δ)`` (Canonne, Kamath &
      Steinke 2020), Δ an integer;
    * ``"tdlap"``: ``TruncatedDiscreteLaplace(ε₀, tdlap_delta)`` (Ghazi et al. 2023, Def. 8), neighbours 0 and 1,
      so ``sensitivity`` does not apply.

    The mechanisms validate their own parameters (a ValueError names the parameter, its value and the allowed
    range; ``sensitivity`` must be a number > 0 for every kind); an unknown ``kind`` raises a ValueError that lists
    the known ones.

    >>> make_mechanism("dgaussian", 1.5, 2.0)
    DiscreteGaussian(sigma=1.5, sensitivity=2)
    >>> make_mechanism("cauchy", 1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: mechanism = 'cauchy' is not allowed: must be one of 'laplace', 'gaussian', 'rr', 'dlaplace', ...
    """
    check_choice(kind, "mechanism", MECHANISM_KINDS)
    if kind in ("rr", "tdlap"):  # the neighbours are fixed (two bits, 0 and 1): Δ does not apply, but is a number
        check_positive(sensitivity, "sensitivity")
    if kind == "gaussian":
        return _m.Gaussian(noise, sensitivity)
    if kind == "laplace":
        return _m.Laplace(noise, sensitivity)
    if kind == "rr":
        return _m.RandomizedResponse(noise)
    if kind == "dlaplace":
        return _m.DiscreteLaplace(noise, check_integer(sensitivity, "sensitivity", minimum=1))
    if kind == "dgaussian":
        return _m.DiscreteGaussian(noise, check_integer(sensitivity, "sensitivity", minimum=1))
    return _m.TruncatedDiscreteLaplace(noise, tdlap_delta)
