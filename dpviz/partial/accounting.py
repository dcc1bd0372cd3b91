"""Accounting for per-attribute (partial) differential privacy.

Paper: Ghazi, Kumar, Manurangsi & Steinke 2023, "Algorithms with More Granular Differential Privacy Guarantees"
(ITCS 2023). Numbering is the paper's.

Two privacy parameters are kept apart everywhere:

* ``eps0`` — the **per-attribute** parameter: ε0-∇0DP (pure) or ε0-∇0CDP (zCDP, ``½ε0²`` per attribute change);
  neighbours differ in exactly one attribute of exactly one person (Definition 5, Lemma 7).
* ``eps`` — the **per-person** (whole-record) parameter: ε-DP or ½ε²-zCDP (Definitions 1 and 3).

The paper writes ε for the per-attribute parameter in Sections 5–6; here it is always ``eps0``.

Contents

* Proposition 8 — per-attribute → whole record: ``d·ε0`` (pure), ``½(d·ε0)²`` zCDP, then (ε, δ) by the simple
  and the Canonne–Kamath–Steinke conversions; group privacy for k targeted attributes (``k·ε0``, ``½(kε0)²``).
* Lemma 9 (sequential) and Lemma 10 (parallel over columns) composition.
* Lemma 7 — the weighted-graph form: shortest-path metric of a weighted graph on records; for per-attribute
  weights ε_j it is ``Σ_{j: x_j ≠ x'_j} ε_j``.
* Release-by-release accounting (Section 7, the 2020 US Census example): ρ(S) = Σ_{h touching S} ρ_h.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np
from scipy.sparse.csgraph import shortest_path

from dpviz._validation import Cap, check_delta, check_integer
from dpviz.conversions import zcdp_delta, zcdp_to_approx_dp
from dpviz.deployments import CENSUS_RHO_UNITS
from dpviz.partial.histograms import COUNT, EPS, EPS_OR_ZERO, RHO, WORK, check_name, real_array

__all__ = [
    "whole_record_pure_epsilon",
    "whole_record_rho",
    "whole_record_approx_dp",
    "whole_record_delta",
    "targeted_pure_epsilon",
    "targeted_rho",
    "rho_from_eps",
    "eps_from_rho",
    "zcdp_epsilon_curve",
    "PerAttributeGuarantee",
    "sequential_composition",
    "parallel_composition",
    "attribute_weighted_epsilon",
    "graph_metric",
    "hamming_graph_weights",
    "Release",
    "ReleaseLedger",
    "census_2020_example",
    "check_eps0_le_eps",
]

#: |X|²·d, the pairwise comparison of :func:`hamming_graph_weights` (|X| = 4096 = 2¹² records of 12 bits fit:
#: ~0.6 GB at the peak, ~3 s).
GRAPH_ENTRIES = Cap(250_000_000, "the pairwise comparison |X|²·d of hamming_graph_weights")

_KINDS = ("pure", "zcdp")


# ----------------------------------------------------------------------------------------------- parametrisation

def rho_from_eps(eps: float) -> float:
    """ρ = ½ε²: the paper's "½ε²-zCDP" parametrisation (Definition 3 of Ghazi, Kumar, Manurangsi & Steinke 2023).

    >>> rho_from_eps(2.0)
    2.0
    """
    e = EPS_OR_ZERO.check(eps, "eps")
    return 0.5 * e * e


def eps_from_rho(rho: float) -> float:
    """ε = √(2ρ): inverse of :func:`rho_from_eps` (Definition 3 of Ghazi, Kumar, Manurangsi & Steinke 2023).

    >>> eps_from_rho(2.0)
    2.0
    """
    r = RHO.check(rho, "rho")
    return math.sqrt(2.0 * r)


def check_eps0_le_eps(eps0: float, eps: float) -> None:
    """Raise ValueError unless ε0 ≤ ε: a per-attribute parameter can never exceed the whole-record one of the same
    mechanism (Proposition 8 of Ghazi, Kumar, Manurangsi & Steinke 2023: ε-DP ⇒ ε-∇0DP, so the best ε0 is ≤ ε)."""
    e0 = EPS.check(eps0, "eps0")
    e = EPS.check(eps, "eps")
    if e0 > e:
        raise ValueError(f"eps0 = {eps0!r} is not allowed: must be <= eps = {eps!r} (a per-attribute parameter "
                         "never exceeds the whole-record one; Ghazi, Kumar, Manurangsi & Steinke 2023, Prop 8).")


# ----------------------------------------------------------------------------------------------- Proposition 8

def whole_record_pure_epsilon(eps0: float, d: int) -> float:
    """ε = d·ε0: ε0-∇0DP implies (d·ε0)-DP (Proposition 8 of Ghazi, Kumar, Manurangsi & Steinke 2023, by group privacy
    over d attributes).

    >>> whole_record_pure_epsilon(0.5, 10)
    5.0
    """
    e0 = EPS_OR_ZERO.check(eps0, "eps0")
    d = COUNT.check(d, "d")
    return d * e0


def targeted_pure_epsilon(eps0: float, k: int) -> float:
    """k·ε0: the cost of changing k attributes of one person under ε0-∇0DP (group privacy, Section 2.2 of Ghazi, Kumar,
    Manurangsi & Steinke 2023; the paper adds that this "may or may not be tight").

    >>> targeted_pure_epsilon(0.1, 3)
    0.30000000000000004
    """
    e0 = EPS_OR_ZERO.check(eps0, "eps0")
    k = check_integer(k, "k", minimum=0, maximum=COUNT.high)
    return k * e0


def whole_record_rho(eps0: float, d: int) -> float:
    """ρ = ½(d·ε0)²: ε0-∇0CDP implies ½d²ε0²-zCDP (Proposition 8 of Ghazi, Kumar, Manurangsi & Steinke 2023). Group
    privacy *squares*: ρ grows as d², not as d (the d·ρ0 form holds only for column-wise mechanisms: Lemma 10).

    >>> whole_record_rho(0.5, 10)
    12.5
    """
    e0 = EPS_OR_ZERO.check(eps0, "eps0")
    d = COUNT.check(d, "d")
    return 0.5 * (d * e0) ** 2


def targeted_rho(eps0: float, k: int) -> float:
    """ρ = ½(k·ε0)²: changing k attributes of one person under ε0-∇0CDP (triangle inequality for √D*,
    proof of Proposition 8 of Ghazi, Kumar, Manurangsi & Steinke 2023).

    >>> targeted_rho(1.0, 2)
    2.0
    """
    e0 = EPS_OR_ZERO.check(eps0, "eps0")
    k = check_integer(k, "k", minimum=0, maximum=COUNT.high)
    return 0.5 * (k * e0) ** 2


def whole_record_delta(eps0: float, d: int, eps: float, method: str = "simple") -> float:
    """δ̃(ε̃) of the whole-record guarantee implied by ε0-∇0CDP.

    ``"simple"``: δ̃ = exp(−(ε̃ − ½d²ε0²)²/(2d²ε0²)) for ε̃ ≥ ½d²ε0² (Proposition 8 of Ghazi, Kumar,
    Manurangsi & Steinke 2023; = the ρ-zCDP ⇒ (ρ + 2√(ρ ln 1/δ), δ) conversion of Bun & Steinke 2016, Prop 1.3, with
    ρ = ½d²ε0²), and 1 below. ``"cks"``: the tighter Canonne, Kamath & Steinke 2020 bound (Corollary 13) via
    :func:`dpviz.conversions.zcdp_delta`.

    >>> round(whole_record_delta(0.5, 10, 15.0), 4)
    0.8825
    """
    rho = whole_record_rho(eps0, d)
    e = EPS_OR_ZERO.check(eps, "eps")
    check_name(method, "method", ("simple", "cks"))
    return zcdp_delta(rho, e, method=method)


def whole_record_approx_dp(eps0: float, d: int, delta: float, method: str = "cks") -> float:
    """ε̃ such that ε0-∇0CDP implies (ε̃, δ)-DP: ρ = ½d²ε0² (Proposition 8 of Ghazi, Kumar, Manurangsi & Steinke 2023)
    converted by ``"simple"`` ε̃ = ρ + 2√(ρ ln(1/δ)) or ``"cks"`` (Canonne, Kamath & Steinke 2020, Corollary 13).

    >>> round(whole_record_approx_dp(0.5, 10, 1e-6, method="simple"), 4)
    38.7826
    """
    rho = whole_record_rho(eps0, d)
    delta = check_delta(delta, allow_zero=False)
    check_name(method, "method", ("simple", "cks"))
    return zcdp_to_approx_dp(rho, delta, method=method)


_ALPHA_GRID = 1.0 + np.logspace(-4.0, 4.0, 1600)


def zcdp_epsilon_curve(rho, delta: float, method: str = "cks") -> np.ndarray:
    """Vectorised ρ-zCDP → (ε, δ) conversion for plotting many ρ at once.

    ``"simple"``: ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop 1.3), exact.
    ``"cks"``: ε = min_α [αρ + (α ln(1−1/α) − ln(α−1) − ln δ)/(α−1)] over a fixed log grid of 1600 orders α ∈ (1, 10⁴]
    (Canonne, Kamath & Steinke 2020, Corollary 13 solved for ε). Every α gives a valid bound, so the grid answer
    is an *upper bound* on the exact CKS ε (never optimistic); it agrees with
    :func:`dpviz.conversions.zcdp_to_approx_dp` to about 1e-3 relative. ``rho`` in [0, 10¹²]; the grid is evaluated in
    blocks of rows, and at most :data:`~dpviz.partial.histograms.WORK`/6400 (3·10⁵) values of ρ are taken in one call.
    """
    r = real_array(rho, "rho", ndim=(0, 1), allow_empty=True, low=0.0, high=RHO.high)
    delta = check_delta(delta, allow_zero=False)
    check_name(method, "method", ("cks", "simple"))
    L = math.log(1.0 / delta)
    if method == "simple":
        return r + 2.0 * np.sqrt(r * L)
    a = _ALPHA_GRID
    WORK.check(4 * r.size * a.size, f"the work of rho with {r.size} values")
    c = (a * np.log1p(-1.0 / a) - np.log(a - 1.0) + L) / (a - 1.0)
    flat = r.reshape(-1)
    eps = np.empty_like(flat)
    for i in range(0, flat.size, _BLOCK):  # bounded memory: _BLOCK × 1600 at a time
        eps[i:i + _BLOCK] = np.min(np.multiply.outer(flat[i:i + _BLOCK], a) + c, axis=-1)
    eps = np.maximum(eps.reshape(r.shape), 0.0)
    return np.where(r == 0, 0.0, eps)


_BLOCK = 4096


@dataclasses.dataclass(frozen=True)
class PerAttributeGuarantee:
    """A per-attribute guarantee: ε0-∇0DP (``kind="pure"``) or ε0-∇0CDP (``kind="zcdp"``) on d attributes.

    Methods convert it with Proposition 8 of Ghazi, Kumar, Manurangsi & Steinke 2023 (group privacy). A
    mechanism-specific analysis can be tighter (parallel composition, Theorems 11–12), see :func:`parallel_composition`
    and ``dpviz.partial.marginals``.

    >>> g = PerAttributeGuarantee(eps0=0.5, d=10, kind="zcdp")
    >>> g.rho0, g.record_rho()
    (0.125, 12.5)
    >>> g.change_rho(3)
    1.125
    """

    eps0: float
    d: int
    kind: str = "zcdp"

    def __post_init__(self):
        object.__setattr__(self, "eps0", EPS.check(self.eps0, "eps0"))
        object.__setattr__(self, "d", COUNT.check(self.d, "d"))
        check_name(self.kind, "kind", _KINDS)

    @property
    def rho0(self) -> float:
        """Per-attribute ρ0 = ½ε0² (pure ε0 implies this too: Bun & Steinke 2016, Prop 1.4)."""
        return 0.5 * self.eps0**2

    def change_epsilon(self, k: int) -> float:
        """Pure-DP cost k·ε0 of changing k attributes (only for ``kind="pure"``; group privacy)."""
        if self.kind != "pure":
            raise ValueError("kind = 'zcdp' has no pure ε for a change: use change_rho (or kind='pure').")
        k = check_integer(k, "k", minimum=0, maximum=self.d)
        return k * self.eps0

    def change_rho(self, k: int) -> float:
        """zCDP cost ½(kε0)² of changing k attributes (Proposition 8 of Ghazi, Kumar, Manurangsi & Steinke 2023,
        proof)."""
        k = check_integer(k, "k", minimum=0, maximum=self.d)
        return 0.5 * (k * self.eps0) ** 2

    def record_epsilon(self) -> float:
        """Whole-record pure ε = d·ε0 (pure kind only)."""
        return self.change_epsilon(self.d)

    def record_rho(self) -> float:
        """Whole-record ρ = ½(dε0)²."""
        return self.change_rho(self.d)

    def change_approx_dp(self, k: int, delta: float, method: str = "cks") -> float:
        """(ε, δ)-DP for a change of k attributes: the pure k·ε0 if that is smaller (pure kind), else the zCDP
        ρ = ½(kε0)² converted by ``method`` ("cks" or "simple")."""
        rho = self.change_rho(k)
        delta = check_delta(delta, allow_zero=False)
        check_name(method, "method", ("cks", "simple"))
        e = zcdp_to_approx_dp(rho, delta, method=method) if rho > 0 else 0.0
        if self.kind == "pure":
            e = min(e, k * self.eps0)
        return e


# ----------------------------------------------------------------------------------------------- Lemmas 9 and 10

def sequential_composition(eps_values: Iterable[float], kind: str = "zcdp") -> float:
    """Sequential composition of partial-DP mechanisms, pointwise (Lemma 9 of Ghazi, Kumar, Manurangsi & Steinke 2023).

    ``kind="pure"``: ε1 + ε2 + …;  ``kind="zcdp"`` (½ε² parametrisation): √(ε1² + ε2² + …).

    >>> sequential_composition([3.0, 4.0], "zcdp")
    5.0
    >>> sequential_composition([3.0, 4.0], "pure")
    7.0
    """
    check_name(kind, "kind", _KINDS)
    vals = real_array(_as_list(eps_values, "eps_values"), "eps_values", ndim=1, low=0.0, high=EPS.high)
    return float(vals.sum()) if kind == "pure" else float(math.sqrt(float(np.sum(vals**2))))


def _as_list(values, name: str) -> list:
    """Any iterable of numbers as a list (an array stays as it is); a non-iterable is refused naming ``name``."""
    if isinstance(values, np.ndarray):
        return values
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{name} = {values!r} is not allowed: must be a sequence of numbers.")
    try:
        return list(values)
    except TypeError:
        raise ValueError(f"{name} = {values!r} is not allowed: must be a sequence of numbers.") from None


@dataclasses.dataclass(frozen=True)
class _ParallelResult:
    """Guarantees of column-wise mechanisms M_j reading only column j (Lemma 10 of Ghazi, Kumar,
    Manurangsi & Steinke 2023)."""

    eps0: float  #: per-attribute parameter: max_j ε_j (Lemma 10)
    record: float  #: whole-record pure ε = Σ_j ε_j (pure) or whole-record ρ = ½Σ_j ε_j² (zcdp)
    prop8_record: float  #: the generic Proposition 8 bound from eps0 alone: d·ε0 or ½(dε0)²
    kind: str


def parallel_composition(column_eps: Sequence[float], kind: str = "zcdp") -> _ParallelResult:
    """Parallel composition over attributes (Lemma 10 of Ghazi, Kumar, Manurangsi & Steinke 2023, after McSherry 2009).

    If M_j reads only column j and is ε_j-DP (``"pure"``) or ½ε_j²-zCDP (``"zcdp"``), then (M_1, …, M_d) is
    (max_j ε_j)-∇0DP / ∇0CDP. Whole record (basic composition of the independent M_j): Σ_j ε_j (pure) or
    ρ = ½Σ_j ε_j² (zCDP) — with equal ε_j = ε0 that is ½dε0², i.e. ε = √d·ε0, tighter than Proposition 8's
    ½d²ε0² (derived here: Proposition 8 is a worst-case conversion).

    >>> r = parallel_composition([0.5] * 4, "zcdp")
    >>> r.eps0, r.record, r.prop8_record
    (0.5, 0.5, 2.0)
    """
    check_name(kind, "kind", _KINDS)
    e = real_array(_as_list(column_eps, "column_eps"), "column_eps", ndim=1, low=0.0, high=EPS.high)
    eps0 = float(e.max())
    d = e.size
    if kind == "pure":
        return _ParallelResult(eps0, float(e.sum()), d * eps0, kind)
    return _ParallelResult(eps0, float(0.5 * np.sum(e**2)), 0.5 * (d * eps0) ** 2, kind)


# ----------------------------------------------------------------------------------------------- Lemma 7

def attribute_weighted_epsilon(x, x_prime, attr_eps) -> float:
    """ε(x, x') = Σ_{j : x_j ≠ x'_j} ε_j: the shortest-path metric of the Hamming graph whose edges that change
    attribute j weigh ε_j (Lemma 7 of Ghazi, Kumar, Manurangsi & Steinke 2023; Definition 5 is the case ε_j = ε0). In
    the CDP reading the same ε gives D* ≤ ½ε(x,x')² (Lemma 7, CDP part).

    >>> attribute_weighted_epsilon([0, 1, 1], [1, 1, 0], [0.1, 0.2, 0.3])
    0.4
    """
    a = _record(x, "x")
    b = _record(x_prime, "x_prime")
    w = real_array(attr_eps, "attr_eps", ndim=1, low=0.0, high=EPS.high)
    if a.shape != b.shape or a.ndim != 1 or a.size != w.size:
        raise ValueError(f"x, x_prime and attr_eps have shapes {a.shape}, {b.shape}, {w.shape}: must be 1-D records "
                         "of the same length d.")
    return float(np.round(np.sum(w[a != b]), 12))


def _record(x, name: str) -> np.ndarray:
    """A record: a 1-D sequence of attribute values (numbers or labels)."""
    if isinstance(x, (str, bytes)):
        raise ValueError(f"{name} = {x!r} is not allowed: must be a 1-D record of attribute values.")
    try:
        a = np.asarray(x)
    except ValueError:
        raise ValueError(f"{name} is ragged, which is not allowed: must be a 1-D record of attribute values.") from None
    if a.ndim != 1:
        raise ValueError(f"{name} has shape {a.shape} which is not allowed: must be a 1-D record of attribute values.")
    if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinite values, which is not allowed: must be finite.")
    return a


def hamming_graph_weights(domain_sizes: Sequence[int], attr_eps: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The weighted Hamming graph on X = X_1 × … × X_d: an edge joins two records that differ in exactly one
    attribute j, with weight ε_j (Lemma 7 of Ghazi, Kumar, Manurangsi & Steinke 2023). Returns ``(records, W)`` with
    ``records`` the |X| × d array of all records and ``W`` the |X| × |X| weight matrix (0 = no edge). For small domains
    only (|X| ≤ 4096 and |X|²·d ≤ :data:`GRAPH_ENTRIES`)."""
    raw = real_array(_as_list(domain_sizes, "domain_sizes"), "domain_sizes", ndim=1, low=1.0, high=4096.0,
                     integer=True)
    sizes = [int(s) for s in raw]
    w = real_array(_as_list(attr_eps, "attr_eps"), "attr_eps", ndim=1, low=0.0, high=EPS.high)
    if w.size != len(sizes):
        raise ValueError(f"attr_eps has length {w.size}: must have one weight per attribute ({len(sizes)}).")
    if np.any(w <= 0):
        raise ValueError("attr_eps contains values <= 0, which is not allowed: edge weights must be > 0.")
    total = math.prod(sizes)
    if total > 4096:
        raise ValueError(f"domain size |X| = {total} is not allowed: must be <= 4096 for the explicit graph.")
    GRAPH_ENTRIES.check(total * total * len(sizes), f"|X|²·d = {total}²·{len(sizes)}")
    recs = np.array(list(itertools.product(*[range(s) for s in sizes])), dtype=int).reshape(total, len(sizes))
    diff = recs[:, None, :] != recs[None, :, :]
    one = diff.sum(axis=2) == 1
    j = np.argmax(diff, axis=2)
    W = np.where(one, w[j], 0.0)
    return recs, W


def graph_metric(weights) -> np.ndarray:
    """Shortest-path metric ε(u, v) of an undirected non-negatively weighted graph (Lemma 7 of Ghazi, Kumar,
    Manurangsi & Steinke 2023): if every edge {u, v} of weight w satisfies D∞ ≤ w (or D* ≤ ½w²), the mechanism is ε-∇DP
    (ε-∇CDP) for this metric. ``weights[u, v] = 0`` means no edge; unreachable pairs get ∞ (no guarantee).

    >>> float(graph_metric([[0, 1, 0], [1, 0, 2], [0, 2, 0]])[0, 2])
    3.0
    """
    W = real_array(weights, "weights", ndim=2, low=0.0, high=EPS.high)
    if W.shape[0] != W.shape[1]:
        raise ValueError(f"weights has shape {W.shape}: must be a square matrix.")
    if not np.allclose(W, W.T):
        raise ValueError("weights is not symmetric, which is not allowed: the graph of Lemma 7 is undirected.")
    N = W.shape[0]
    # Dijkstra from every node: edge relaxations plus heap operations (a cost model fitted to timings)
    WORK.check(N * (3 * int(np.count_nonzero(W)) + 20 * N * max(1, N.bit_length())), f"the work of a graph with {N} "
                                                                                    "nodes")
    return shortest_path(W, method="D", directed=False)


# ----------------------------------------------------------------------------------------------- releases (Census)

@dataclasses.dataclass(frozen=True)
class Release:
    """One release (a histogram, a query set) that reads only ``attributes`` and is ``rho``-zCDP when one
    person's values on those attributes change (Section 7 of Ghazi, Kumar, Manurangsi & Steinke 2023, the Census
    example)."""

    name: str
    attributes: frozenset
    rho: float

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name = {self.name!r} is not allowed: must be a non-empty string.")
        attrs = _names(self.attributes, "attributes")
        if not attrs:
            raise ValueError(f"attributes = {set(self.attributes)!r} is not allowed: a release reads at least one "
                             "attribute.")
        object.__setattr__(self, "attributes", attrs)
        object.__setattr__(self, "rho", RHO.check(self.rho, "rho"))


def _names(values, name: str) -> frozenset:
    """A set of attribute names (strings) from any iterable of them."""
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        raise ValueError(f"{name} = {values!r} is not allowed: must be a collection of attribute names (strings).")
    out = frozenset(values) if all(isinstance(v, str) for v in values) else None
    if out is None:
        raise ValueError(f"{name} = {values!r} is not allowed: must be a collection of attribute names (strings).")
    return out


@dataclasses.dataclass(frozen=True)
class ReleaseLedger:
    """Release-by-release partial-CDP accounting (Section 7 of Ghazi, Kumar, Manurangsi & Steinke 2023, "Concrete
    Example: 2020 US Census").

    For records x, x' that differ on the attribute set S, only releases that read an attribute in S can tell
    them apart, so ρ(S) = Σ_{h : attrs(h) ∩ S ≠ ∅} ρ_h (sequential composition, Lemma 9, in ρ form), and
    ½ε(x, x')² ≤ ρ(S). The whole-record ρ is the sum over all releases.

    >>> led = census_2020_example()
    >>> round(led.whole_record_rho(), 2), round(led.change_rho({"race", "ethnicity"}), 2)
    (2.63, 1.02)
    """

    attributes: tuple
    releases: tuple

    def __post_init__(self):
        if isinstance(self.attributes, str) or not hasattr(self.attributes, "__iter__") or not all(
                isinstance(a, str) for a in self.attributes):
            raise ValueError(f"attributes = {self.attributes!r} is not allowed: must be a sequence of attribute names "
                             "(strings).")
        if isinstance(self.releases, (str, bytes)) or not hasattr(self.releases, "__iter__"):
            raise ValueError(f"releases = {self.releases!r} is not allowed: must be a sequence of Release objects.")
        attrs = tuple(self.attributes)
        if not attrs:
            raise ValueError("attributes is empty, which is not allowed: must name at least one attribute.")
        if len(set(attrs)) != len(attrs):
            raise ValueError(f"attributes = {attrs!r} is not allowed: names must be distinct.")
        rels = tuple(self.releases)
        known = set(attrs)
        for r in rels:
            if not isinstance(r, Release):
                raise ValueError(f"releases contains {r!r}: must contain Release objects.")
            extra = r.attributes - known
            if extra:
                raise ValueError(f"attributes {sorted(extra)!r} of release {r.name!r} are not allowed: must be among "
                                 f"{list(attrs)!r}.")
        object.__setattr__(self, "attributes", attrs)
        object.__setattr__(self, "releases", rels)

    def _check_change(self, changed) -> frozenset:
        s = frozenset([changed]) if isinstance(changed, str) else _names(changed, "changed")
        bad = s - set(self.attributes)
        if bad:
            raise ValueError(f"changed attributes {sorted(bad)!r} are not allowed: must be among "
                             f"{list(self.attributes)!r}.")
        return s

    def touching(self, changed) -> tuple:
        """The releases that read at least one changed attribute."""
        s = self._check_change(changed)
        return tuple(r for r in self.releases if r.attributes & s)

    def change_rho(self, changed) -> float:
        """ρ(S) = Σ_{h touching S} ρ_h (Section 7 of Ghazi, Kumar, Manurangsi & Steinke 2023)."""
        return float(math.fsum(r.rho for r in self.touching(changed)))

    def change_epsilon_zcdp(self, changed) -> float:
        """ε(x, x') = √(2ρ(S)) in the ½ε² parametrisation (Definition 6 of Ghazi, Kumar, Manurangsi & Steinke 2023)."""
        return math.sqrt(2.0 * self.change_rho(changed))

    def change_approx_dp(self, changed, delta: float, method: str = "cks") -> float:
        """(ε, δ)-DP for a change of the attributes S: ρ(S) converted by Canonne, Kamath & Steinke 2020 (Cor 13) or the
        simple ρ + 2√(ρ ln 1/δ) (Bun & Steinke 2016, Prop 1.3)."""
        rho = self.change_rho(changed)
        delta = check_delta(delta, allow_zero=False)
        check_name(method, "method", ("cks", "simple"))
        return zcdp_to_approx_dp(rho, delta, method=method) if rho > 0 else 0.0

    def whole_record_rho(self) -> float:
        """ρ for a change of the whole record: Σ_h ρ_h."""
        return self.change_rho(self.attributes)

    def per_attribute_rho(self) -> dict:
        """ρ for a change of each single attribute (the non-uniform per-attribute guarantee of Section 7)."""
        return {a: self.change_rho({a}) for a in self.attributes}

    def incidence(self) -> np.ndarray:
        """Boolean matrix (releases × attributes): which release reads which attribute."""
        return np.array([[a in r.attributes for a in self.attributes] for r in self.releases], dtype=bool)


@lru_cache(maxsize=1)
def census_2020_example() -> ReleaseLedger:
    """An illustrative release table for the 2020 US Census redistricting data (Section 7 of Ghazi, Kumar,
    Manurangsi & Steinke 2023).

    The paper gives only totals: persons 2.56 + housing units 0.07 = **2.63 zCDP** for a whole record, which implies
    (13.8, 10⁻⁶)-DP as printed (13.79 by the CKS conversion), and **1.02 zCDP** when only race and ethnicity change,
    which implies (7.85, 10⁻⁶)-DP as printed (7.856). The totals are those of :func:`dpviz.deployments.census_2020`,
    the one home of the census story of lessons 09 and 15 (:data:`dpviz.deployments.CENSUS_RHO_PERSONS`,
    :data:`~dpviz.deployments.CENSUS_RHO_UNITS`). The split below across queries is **illustrative** — chosen to
    reproduce exactly those totals with the Bureau's query names (TOTAL, HHGQ, VOTINGA, HISPANIC×CENRACE, …); the
    Bureau's real per-level allocation (Abowd et al. 2022) has many more rows.
    """
    A = ("geography", "hhgq", "voting_age", "ethnicity", "race", "occupancy")
    R = [
        Release("Total population", frozenset({"geography"}), 0.60),
        Release("Household/group-quarters type (HHGQ)", frozenset({"geography", "hhgq"}), 0.40),
        Release("Voting age (VOTINGA)", frozenset({"geography", "voting_age"}), 0.30),
        Release("HHGQ × voting age", frozenset({"geography", "hhgq", "voting_age"}), 0.24),
        Release("Hispanic × race (HISPANIC×CENRACE)", frozenset({"geography", "ethnicity", "race"}), 0.30),
        Release("Voting age × Hispanic × race", frozenset({"geography", "voting_age", "ethnicity", "race"}), 0.32),
        Release("Detailed (HHGQ × VOTINGA × HISPANIC × CENRACE)",
                frozenset({"geography", "hhgq", "voting_age", "ethnicity", "race"}), 0.40),
        Release("Housing units: occupancy status", frozenset({"geography", "occupancy"}), CENSUS_RHO_UNITS),
    ]
    return ReleaseLedger(A, tuple(R))
