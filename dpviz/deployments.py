"""Deployed values of ε, side by side (lesson 06), each with its unit of privacy, time horizon and source.

:data:`DEPLOYMENTS` is a tuple of small frozen :class:`Deployment` records. Only what the cited source states is
recorded; where the value is not public, or where dpviz does not restate it, ``epsilon`` is None and ``says`` ends
with "value: see the source". Two guarantees are only comparable when their unit of privacy (record, person,
user, user-day …) and their time horizon agree: a figure that puts them on one ε axis must show both.

The one conversion here is computed, not quoted: the 2020 US Census redistricting data were released under
zero-concentrated DP with ρ = 2.56 for persons and 0.07 for housing units, ρ = 2.63 in total (Abowd et al. 2022);
their (ε, δ) at δ = 10⁻¹⁰ is computed with :func:`dpviz.conversions.zcdp_to_approx_dp` (Canonne, Kamath & Steinke
2020, Cor. 13).
"""

from __future__ import annotations

import dataclasses

from dpviz._validation import check_delta, check_positive
from dpviz.conversions import zcdp_to_approx_dp
from dpviz.references import REFERENCES

__all__ = ["Deployment", "DEPLOYMENTS", "CENSUS_DELTA", "published"]

#: The δ at which the census zCDP guarantee is converted to (ε, δ) here.
CENSUS_DELTA = 1e-10


@dataclasses.dataclass(frozen=True)
class Deployment:
    """One deployed guarantee.

    ``epsilon`` is None when the value is not public or not restated here ("value: see the source"); ``delta`` is
    0 for pure DP, None when not stated; ``rho`` the zCDP parameter when the source states the guarantee in zCDP;
    ``unit`` the unit of privacy, ``horizon`` the period the ε covers, ``local`` whether the noise is added on the
    device (local DP); ``says`` what the source states, in one or two sentences; ``key`` its bibliography key.
    """

    organisation: str
    product: str
    epsilon: float | None
    delta: float | None
    unit: str
    horizon: str
    says: str
    key: str
    rho: float | None = None
    local: bool = False

    def __post_init__(self):
        if self.epsilon is not None:
            check_positive(self.epsilon, "epsilon")
        if self.delta is not None:
            check_delta(self.delta)
        if self.rho is not None:
            check_positive(self.rho, "rho")
        if self.key not in REFERENCES:
            raise ValueError(f"key = {self.key!r} is not allowed: must be a key of dpviz.references.REFERENCES.")
        if self.epsilon is None and "see the source" not in self.says:
            raise ValueError("says must end with 'value: see the source' when epsilon is None.")

    @property
    def label(self) -> str:
        """Short label for a figure: "organisation — product"."""
        return f"{self.organisation} — {self.product}"


_RHO_PERSONS, _RHO_UNITS = 2.56, 0.07

DEPLOYMENTS: tuple[Deployment, ...] = (
    Deployment(
        "US Census Bureau", "2020 Census redistricting data (persons)",
        zcdp_to_approx_dp(_RHO_PERSONS, CENSUS_DELTA), CENSUS_DELTA, "person", "one release (the 2020 census)",
        "Released under zCDP with ρ = 2.56 for the person tables (ρ = 2.63 with the 0.07 of the housing-unit "
        "tables). ε at δ = 10⁻¹⁰ computed here with the conversion of Canonne, Kamath & Steinke 2020, Cor. 13.",
        "abowd2022topdown", rho=_RHO_PERSONS),
    Deployment(
        "US Census Bureau", "2020 Census redistricting data (total)",
        zcdp_to_approx_dp(_RHO_PERSONS + _RHO_UNITS, CENSUS_DELTA), CENSUS_DELTA, "person",
        "one release (the 2020 census)",
        "Total ρ = 2.63 (persons 2.56 + housing units 0.07). ε at δ = 10⁻¹⁰ computed here with the conversion of "
        "Canonne, Kamath & Steinke 2020, Cor. 13.",
        "abowd2022topdown", rho=_RHO_PERSONS + _RHO_UNITS),
    Deployment(
        "Apple", "macOS 10.12 local DP (Emoji, New words, Deeplinks, Lookup Hints)", 16.0, 0.0, "user (device)",
        "one day (the budget renews every day)",
        "Tang et al. 2017 (code analysis of macOS 10.12): the privacy loss per datum sent is 1 or 2, but up to 16 "
        "per day for these four uses; since the budget renews daily, the loss over d days can reach 16·d.",
        "tang2017privacy", local=True),
    Deployment(
        "Apple", "Learning with Privacy at Scale (iOS and macOS)", None, 0.0, "user (device)",
        "per day, per use case",
        "Apple's description of its local DP system (count mean sketch, sequence fragment puzzle) and the ε of its "
        "use cases; value: see the source.",
        "apple2017learning", local=True),
    Deployment(
        "LinkedIn", "Audience Engagements API", 34.9, 7e-9, "member (user level)", "one month",
        "User-level DP for marketers' queries; a budget management service enforces a monthly budget, reported "
        "as (ε, δ) = (34.9, 7·10⁻⁹) per month.",
        "rogers2021linkedin"),
    Deployment(
        "Google", "Chrome (RAPPOR)", None, 0.0, "user (client)", "the lifetime of one value (longitudinal)",
        "Local DP by permanent and instantaneous randomized response; the paper gives ε as a function of its "
        "parameters (f, h, p, q); value: see the source.",
        "erlingsson2014rappor", local=True),
    Deployment(
        "Google", "COVID-19 Community Mobility Reports", None, None, "user", "per day",
        "Daily metrics from Location History users, made differentially private, then reported as percentage "
        "changes from a baseline; value: see the source.",
        "aktay2020google"),
    Deployment(
        "Microsoft", "Windows telemetry (app usage counters)", None, 0.0, "user (device)",
        "repeated collection over time",
        "Local DP mechanisms for counters collected again and again (e.g. daily app usage), deployed across "
        "millions of devices; value: see the source.",
        "ding2017collecting", local=True),
    Deployment(
        "Wikimedia Foundation", "Wikipedia pageviews by country", None, None, "user", "per day",
        "Daily pageview counts per country and page, published with differential privacy (from 2023); "
        "value: see the source.",
        "adeleye2023wikipedia"),
)


def published() -> tuple[Deployment, ...]:
    """The deployments with a value of ε recorded here (the others: see their source)."""
    return tuple(d for d in DEPLOYMENTS if d.epsilon is not None)
