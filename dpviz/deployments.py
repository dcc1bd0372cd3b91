"""Deployed values of ε, side by side (lesson 09), each with its unit of privacy, time horizon and source.

:data:`DEPLOYMENTS` is a tuple of small frozen :class:`Deployment` records. Only what the cited source states, or
what dpviz computes from the parameters it states, is recorded; where the value is not public, or where dpviz has
not checked it against the source, ``epsilon`` is None and ``says`` ends with "value: see the source". Two
guarantees are only comparable when their unit of privacy (record, person, user, user-day …) and their time horizon
agree: a figure that puts them on one ε axis must show both.

Two values are computed here, not quoted:

* the 2020 US Census redistricting data were released under zero-concentrated DP with ρ = 2.56 for persons and
  0.07 for housing units, ρ = 2.63 in total (Abowd et al. 2022). :func:`census_2020` is the one home of that story
  for lessons 09 and 15: the (ε, δ) of each ρ by :func:`dpviz.conversions.zcdp_to_approx_dp` (Canonne, Kamath &
  Steinke 2020, Cor. 13), the Bureau's own per-file values (17.14 and 2.47 at δ = 10⁻¹⁰, as quoted by Ghazi,
  Kumar, Manurangsi & Steinke 2023, §7, from Abowd et al. 2022) and the Gaussian reading μ = √(2ρ)
  (:func:`dpviz.interpret.gaussian_reading`);
* RAPPOR's longitudinal bound ε∞ = 2h·ln((1 − f/2)/(f/2)) (Erlingsson, Pihur & Korolova 2014, Thm 1),
  :func:`rappor_epsilon_infinity`, at the h and f of :data:`RAPPOR_CHROME`.
"""

from __future__ import annotations

import dataclasses
import math

from dpviz._validation import check_delta, check_in_range, check_integer, check_positive
from dpviz.conversions import zcdp_to_approx_dp
from dpviz.interpret import gaussian_reading
from dpviz.references import REFERENCES

__all__ = ["Deployment", "DEPLOYMENTS", "CENSUS_DELTA", "CENSUS_RHO_PERSONS", "CENSUS_RHO_UNITS",
           "CENSUS_BUREAU_EPSILON", "RAPPOR_CHROME", "census_2020", "rappor_epsilon_infinity", "published"]

#: The δ at which the census zCDP guarantee is converted to (ε, δ) in lesson 09 (the Bureau's own δ).
CENSUS_DELTA = 1e-10

#: ρ of the 2020 Census redistricting data: the person tables and the housing-unit tables (Abowd et al. 2022).
CENSUS_RHO_PERSONS, CENSUS_RHO_UNITS = 2.56, 0.07

#: The Bureau's published ε of the two files at δ = 10⁻¹⁰, (persons, housing units): quoted, not computed (Ghazi,
#: Kumar, Manurangsi & Steinke 2023, §7, citing Abowd et al. 2022). dpviz's conversion of the same ρ gives 17.16 and
#: 2.39: the Bureau's conversion is not the one of Canonne, Kamath & Steinke 2020, and dpviz does not reproduce it.
CENSUS_BUREAU_EPSILON = (17.14, 2.47)

#: RAPPOR's number of hash functions h and permanent-randomization probability f in Chrome's RAPPOR reports.
RAPPOR_CHROME = (2, 0.5)


def rappor_epsilon_infinity(hashes: int, f: float) -> float:
    """ε∞ = 2h·ln((1 − f/2)/(f/2)): the permanent randomized response of RAPPOR with h hash functions (each value
    sets h bits of the Bloom filter) and probability f of replacing a bit by a fair coin is ε∞-DP, for all the
    reports a client ever sends about one value (Erlingsson, Pihur & Korolova 2014, Thm 1). ``hashes`` an integer in
    [1, 10⁶], ``f`` in (0, 1] (f = 1: every bit is a coin, ε∞ = 0).

    >>> round(rappor_epsilon_infinity(2, 0.5), 12) == round(4 * math.log(3), 12)
    True
    """
    h = check_integer(hashes, "hashes", minimum=1, maximum=10**6)
    ff = check_in_range(f, "f", 0.0, 1.0, low_inclusive=False)
    return 2.0 * h * (math.log1p(-0.5 * ff) - (math.log(ff) - math.log(2.0)))  # ln(f/2): f/2 underflows at 5e-324


def census_2020(delta: float = CENSUS_DELTA, method: str = "cks") -> dict:
    """The 2020 Census redistricting guarantee, one story for lessons 09 and 15.

    The person tables are ρ = 2.56-zCDP and the housing-unit tables 0.07-zCDP (Abowd et al. 2022); zCDP composes
    by adding ρ (Bun & Steinke 2016, Lemma 1.7), so one person's whole record is 2.63-zCDP. Each ρ converts to
    (ε, δ)-DP at ``delta`` by :func:`dpviz.conversions.zcdp_to_approx_dp` (``"cks"``: Canonne, Kamath & Steinke
    2020, Cor. 13; ``"simple"``: Bun & Steinke 2016, Prop. 1.3). Converting the total ρ gives a smaller ε than
    adding the two files' ε (basic composition, Dwork & Roth 2014, Thm 3.16): ε grows like √ρ, so composing before
    converting pays the √ln(1/δ) term once.

    Returns a dict: ``delta``; ``rho_persons``, ``rho_units``, ``rho_total``; ``eps_persons``, ``eps_units``,
    ``eps_total`` and ``eps_sum`` (= persons + units) by ``method``, ``eps_persons_simple``, ``eps_total_simple``;
    ``bureau_persons``, ``bureau_units``, ``bureau_sum`` (the Bureau's published values, :data:`CENSUS_BUREAU_EPSILON`,
    stated at δ = 10⁻¹⁰ only: None at another δ); and the Gaussian reading of
    :func:`dpviz.interpret.gaussian_reading` of persons and total: ``mu_*``, ``advantage_*``, ``loss_sd_*``.

    >>> c = census_2020()
    >>> round(c["rho_total"], 2), round(c["eps_total"], 2), c["bureau_sum"]
    (2.63, 17.43, 19.61)
    """
    d = check_delta(delta, allow_zero=False)
    if not isinstance(method, str) or method not in ("cks", "simple"):
        raise ValueError(f"method = {method!r} is not allowed: must be one of 'cks', 'simple'.")
    rp, ru = CENSUS_RHO_PERSONS, CENSUS_RHO_UNITS
    rt = rp + ru
    out = dict(delta=d, rho_persons=rp, rho_units=ru, rho_total=rt)
    for part, rho in (("persons", rp), ("units", ru), ("total", rt)):
        out[f"eps_{part}"] = zcdp_to_approx_dp(rho, d, method=method)
    out["eps_sum"] = out["eps_persons"] + out["eps_units"]
    out["eps_persons_simple"] = zcdp_to_approx_dp(rp, d, method="simple")
    out["eps_total_simple"] = zcdp_to_approx_dp(rt, d, method="simple")
    stated = d == CENSUS_DELTA
    bp, bu = CENSUS_BUREAU_EPSILON
    out.update(bureau_persons=bp if stated else None, bureau_units=bu if stated else None,
               bureau_sum=round(bp + bu, 2) if stated else None)
    for part, rho in (("persons", rp), ("total", rt)):
        g = gaussian_reading(rho, out[f"eps_{part}"])
        out.update({f"mu_{part}": g["mu"], f"advantage_{part}": g["advantage"], f"loss_sd_{part}": g["loss_sd"]})
    return out


def _text(value, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} = {value!r} is not allowed: must be a non-empty string.")
    return value


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
        for name in ("organisation", "product", "unit", "horizon", "says", "key"):
            _text(getattr(self, name), name)
        if self.epsilon is not None:
            object.__setattr__(self, "epsilon", check_positive(self.epsilon, "epsilon"))
        if self.delta is not None:
            object.__setattr__(self, "delta", check_delta(self.delta))
        if self.rho is not None:
            object.__setattr__(self, "rho", check_positive(self.rho, "rho"))
        if not isinstance(self.local, bool):
            raise ValueError(f"local = {self.local!r} is not allowed: must be True or False.")
        if self.key not in REFERENCES:
            raise ValueError(f"key = {self.key!r} is not allowed: must be a key of dpviz.references.REFERENCES.")
        if self.epsilon is None and "see the source" not in self.says:
            raise ValueError("says must end with 'value: see the source' when epsilon is None.")

    @property
    def label(self) -> str:
        """Short label for a figure: "organisation — product"."""
        return f"{self.organisation} — {self.product}"


_CENSUS = census_2020()
_RAPPOR = rappor_epsilon_infinity(*RAPPOR_CHROME)

DEPLOYMENTS: tuple[Deployment, ...] = (
    Deployment(
        "US Census Bureau", "2020 Census redistricting data (persons)", _CENSUS["eps_persons"], CENSUS_DELTA,
        "person", "one release (the 2020 census)",
        f"Released under zCDP with ρ = {CENSUS_RHO_PERSONS:g} for the person tables; the Bureau states "
        f"(ε, δ) = ({CENSUS_BUREAU_EPSILON[0]:g}, 10⁻¹⁰) for them. ε here is computed at δ = 10⁻¹⁰ with the "
        "conversion of Canonne, Kamath & Steinke 2020, Cor. 13.",
        "abowd2022topdown", rho=CENSUS_RHO_PERSONS),
    Deployment(
        "US Census Bureau", "2020 Census redistricting data (total)", _CENSUS["eps_total"], CENSUS_DELTA, "person",
        "one release (the 2020 census)",
        f"Total ρ = {_CENSUS['rho_total']:g} (persons {CENSUS_RHO_PERSONS:g} + housing units {CENSUS_RHO_UNITS:g}). "
        f"Adding the Bureau's per-file ε gives {_CENSUS['bureau_sum']:g}; composing in zCDP first and converting at "
        "δ = 10⁻¹⁰ (Canonne, Kamath & Steinke 2020, Cor. 13) gives the smaller ε shown.",
        "abowd2022topdown", rho=_CENSUS["rho_total"]),
    Deployment(
        "Apple", "macOS 10.12 local DP (Emoji, New words, Deeplinks, Lookup Hints)", 16.0, 0.0, "user (device)",
        "one day (the budget renews every day)",
        "Tang et al. 2017 found, by analysing the code of macOS 10.12, a privacy loss of 1 or 2 per datum sent but "
        "up to 16 per day for these four uses; since the budget renews daily, the loss over d days can reach 16·d. "
        "This is their analysis, not a guarantee Apple states.",
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
        "Google", "Chrome (RAPPOR)", _RAPPOR, 0.0, "user (client)", "all reports about one value (longitudinal)",
        "Local DP by permanent and instantaneous randomized response. ε∞ = 2h·ln((1 − f/2)/(f/2)) of the permanent "
        f"response (Erlingsson, Pihur & Korolova 2014, Thm 1) is computed here at h = {RAPPOR_CHROME[0]} hash "
        f"functions and f = {RAPPOR_CHROME[1]:g}, the setting of Chrome's RAPPOR reports; one report alone has a "
        "smaller ε.",
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
