"""Privacy loss distribution (PLD) accounting: the privacy loss of a composition is the sum of the independent
losses, so its distribution is the convolution of the per-mechanism PLDs (Dwork & Rothblum 2016; Sommer, Meiser &
Mohammadi 2019; Koskela, Jälkö & Honkela 2020 for the FFT), and δ(ε) = E[(1 − e^{ε−L})₊] + P(L = ∞).

The package: :class:`PLDAccountant` and the per-event dispatch (which law each event has) here;
:mod:`~dpviz.accountants.pld.laws` the exact loss laws of single mechanisms and their discretisation;
:mod:`~dpviz.accountants.pld.grid` composition on the grid (FFT, Chernoff window, δ tables);
the exact compositions of two-atom losses without a grid live in :mod:`dpviz.accountants._atoms` (shared with
the optimal accountant and the discrete Gaussian's profile)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpviz import mechanisms as _m
from dpviz._validation import Interval, check_delta, check_in_range, check_positive
from dpviz.accountants._atoms import _atoms_epsilon, _binomial_loss_atoms, atoms_epsilon, binomial_loss_atoms
from dpviz.accountants._base import Accountant
from dpviz.accountants.amplification import _amplify
from dpviz.accountants.events import ApproxDP, PoissonSampled, PureDP, SampledWithoutReplacement
from dpviz.accountants.pld.grid import (
    _chernoff_window,
    _compose_two,
    _DeltaTable,
    _Pmf,
    _pmf_epsilon,
    _self_compose,
)
from dpviz.accountants.pld.laws import (
    FiniteLaw,
    LaplaceLaw,
    SubsampledLaw,
    _blatant_law,
    _dgauss_law,
    _discretise,
    _dlap_law,
    _gaussian_law,
    _rr_law,
    _tdlap_law,
)
from dpviz.accountants.profiles import event_fixed_pair

__all__ = [
    "PLDAccountant",
    "DEFAULT_VALUE_DISCRETIZATION_INTERVAL",
    "DEFAULT_MAX_GRID_POINTS",
    "MAX_LOSS",
    "REFINE_LEVELS",
    "REFINE_MAX_POINTS",
    "REFINE_RTOL",
    "REFINE_STEPS",
    "atoms_epsilon",
    "binomial_loss_atoms",
]

#: Default grid step of the loss (see :class:`PLDAccountant`).
DEFAULT_VALUE_DISCRETIZATION_INTERVAL = 1e-4

#: Default grid-size budget of one composed privacy loss distribution (see :class:`PLDAccountant`).
DEFAULT_MAX_GRID_POINTS = 2**20

#: Largest grid-size budget accepted (2²⁴ points: a few hundred MB of FFT work arrays).
GRID_POINTS = Interval(1024, 2**24, integer=True)

#: Refinement of a query's grid (see "Refinement" in :class:`PLDAccountant`): an ε below REFINE_STEPS grid steps,
#: or bounds further apart than REFINE_RTOL of the pessimistic value, ask for a grid 4× finer, at most REFINE_LEVELS
#: times (h/1024) and never beyond REFINE_MAX_POINTS points (nor max_grid_points).
REFINE_STEPS = 100.0
REFINE_RTOL = 0.01
REFINE_LEVELS = 5
REFINE_MAX_POINTS = 2**18

#: Largest privacy loss (nats) a single event's grid covers: a loss above it counts as +∞ (pessimistic: it changes
#: δ(ε) by at most P(L > MAX_LOSS)·e^{ε − MAX_LOSS}, nothing for ε ≤ 9000), a loss below −MAX_LOSS as −MAX_LOSS. Only
#: mechanisms with a pure ε₀ above 10⁴ (or Gaussians with Δ/σ above ~140) reach it; their ε is "no privacy" anyway.
MAX_LOSS = 1e4

# -------------------------------------------------------------------------------------------------------------
# Which law each event has
# -------------------------------------------------------------------------------------------------------------


def _base_law(event: Any):
    """The symmetric law of one run of a non-subsampled event, or None."""
    if isinstance(event, _m.Gaussian):
        return _gaussian_law(event.rho)
    if isinstance(event, _m.Laplace):
        e0 = event.sensitivity / event.scale
        return _blatant_law() if e0 == math.inf else LaplaceLaw(e0)
    if isinstance(event, _m.RandomizedResponse):
        return _rr_law(float(event.epsilon))
    if isinstance(event, PureDP):
        return _rr_law(event.epsilon)
    if isinstance(event, ApproxDP):
        return _rr_law(event.epsilon, event.delta)
    if isinstance(event, _m.DiscreteLaplace):
        return _dlap_law(event.scale, event.sensitivity)
    if isinstance(event, _m.DiscreteGaussian):
        return _dgauss_law(event.sigma, event.sensitivity)
    if isinstance(event, _m.TruncatedDiscreteLaplace):
        return _tdlap_law(float(event.epsilon), int(event.kappa))
    return None


def _capped(laws):
    """Restrict the laws' ranges to [−MAX_LOSS, MAX_LOSS]: :func:`~dpviz.accountants.pld.laws.discretise` then moves
    the mass above the range to +∞ and rounds the mass below it up to −MAX_LOSS on the pessimistic side, and keeps it
    at the range ends on the optimistic side, so both bounds stay valid."""
    if laws is None:
        return None
    for law in {id(x): x for x in laws}.values():
        law.lo = min(max(law.lo, -MAX_LOSS), MAX_LOSS)
        law.hi = min(max(law.hi, law.lo), MAX_LOSS)
    return laws


def _event_laws(event: Any):
    """(law for the 'remove' direction, law for the 'add' direction), or None if unsupported; ranges capped at
    ±MAX_LOSS (:func:`_capped`)."""
    return _capped(_uncapped_laws(event))


def _uncapped_laws(event: Any):
    if isinstance(event, PoissonSampled):
        base = _base_law(event.mechanism)
        if base is None:
            return None
        if event.rate == 1.0:
            return base, base
        return SubsampledLaw(base, event.rate, "remove"), SubsampledLaw(base, event.rate, "add")
    if isinstance(event, SampledWithoutReplacement):
        pair = event_fixed_pair(event.mechanism)
        if pair is None:
            return None
        eps, d = _amplify(pair[0], pair[1], event.eta)
        law = _rr_law(eps, d)
        return law, law
    law = _base_law(event)
    return None if law is None else (law, law)


def _gauss(mu: float):
    """The Gaussian mechanism with Δ/σ = μ (written with σ = 1, Δ = μ, so that every μ ∈ (0, ∞) is representable;
    μ = 0: identical laws, μ = ∞: disjoint ones)."""
    if mu == 0.0:
        return _m.Gaussian(1.0, 5e-324)  # Δ/σ rounds to 0: the mechanism answers ε = 0, δ = 0
    if mu == math.inf:
        return _m.Gaussian(5e-324, 1.0)  # Δ/σ = ∞: ε = ∞, δ = 1
    return _m.Gaussian(1.0, mu)


class PLDAccountant(Accountant):
    """Privacy loss distribution accountant: tight (ε, δ) for any composition, with its own error bar.

    Each event's privacy loss L = ln(P(o)/Q(o)) is put on the grid {i·h} twice: a **pessimistic** PLD by "connect
    the dots" (Doroshenko et al. 2022; a dominating pair, second-order error in h) and an **optimistic** one from a
    hypothesis test: outcomes are bucketed by their loss rounded down, the exact P- and Q-masses of each bucket are
    composed, and δ(ε) ≥ max_τ P(S_τ) − e^ε Q(S_τ) for the tests S_τ = {Σ bucket indices > τ} (Neyman–Pearson;
    see :func:`dpviz.accountants.pld.laws.discretise`). The threshold τ absorbs the rounding shift, so this bound is
    also second order — unlike rounding the losses down ("privacy buckets", Meiser & Mohammadi 2018), which is
    ≈ k·h/2 low after k compositions. Runs of the same event are composed by ONE FFT self-composition (the
    characteristic function raised to the power k; Koskela, Jälkö & Honkela 2020) on a window sized by a Chernoff
    bound optimised over λ (≈ 23.5 standard deviations of the summed loss around its mean k·E[L]: it grows like
    √k, not like k·max|L|); different events by FFT convolution. FFT round-off (an absolute error of the same size
    in every bin, estimated from the negative values it leaves) is added to the upper side and removed from the lower
    side. :meth:`epsilon` and :meth:`delta` return the pessimistic (upper) values; :meth:`epsilon_bounds` and
    :meth:`delta_bounds` return ``(optimistic, pessimistic)``, with the exact answer in between, both from the
    same grid (so every query computes both sides: that is how it knows its error).

    **Grid budget.** The grid step is h = ``value_discretization_interval`` unless the composed window (or the loss
    range of one event) would need more than ``max_grid_points`` points; then h is coarsened to
    (width)/``max_grid_points`` (:attr:`effective_interval`), so one ε query stays well under a second for any
    k ≤ 10⁵. Both bounds stay valid; the bracket widens, roughly quadratically in h. Measured at δ = 1e-5 with the
    default budget 2²⁰: 10⁵ Laplace(b = 10) steps (h ≈ 7e-4): 615.327 … 615.334; 10⁵ Poisson-subsampled Gaussians
    (q = 0.01, σ = 1.1): 21.0894 … 21.0897; 1000 of them (h = 1e-4): 1.51536 … 1.51537. With a budget of 2¹⁶ the
    first bracket is 615.27 … 615.57 (0.05 %).

    **Refinement.** The grid is refined per query, so that a small answer is not dominated by the grid: while the
    ε involved (the pessimistic answer of an ε query, the ε asked about for a δ query) is below
    :data:`REFINE_STEPS` = 100 grid steps, or the two bounds differ by more than :data:`REFINE_RTOL` = 1 % of the
    pessimistic one, the query is answered again on a grid 4× finer (straight to h ≤ ε/100 when ε is the reason).
    Refinement stops after :data:`REFINE_LEVELS` = 5 levels (h/1024), before a grid would exceed
    min(``max_grid_points``, :data:`REFINE_MAX_POINTS` = 2¹⁸) points, and as soon as a level fails to halve the gap
    between the bounds (FFT round-off or the truncated tails set it, not the grid). Every level is cached, so a
    curve of queries pays for each level once, and typical queries (ε ≫ 100 h, bounds within 1 %) are never
    refined. Example: 50 Poisson-subsampled Gaussians (q = 0.001, σ = 2.654) at δ = 1e-3 have ε = 2.1256e-4, about
    two steps of the default grid, whose bounds 2.0592e-4 … 2.2562e-4 are 9.6 % apart; refined to h = 1.5625e-6 they
    are 2.125540e-4 … 2.125588e-4. :attr:`last_interval` reports the step the last query used.

    **Very large losses.** A single event's loss range is capped at ±:data:`MAX_LOSS` = 10⁴ nats: mass above it
    counts as +∞ and mass below it as −10⁴ (pessimistic; δ(ε) changes by at most P(L > 10⁴)·e^{ε − 10⁴}). Only
    mechanisms with ε₀ > 10⁴ reach it; neighbouring laws that are disjoint in double precision (Δ/σ = ∞) give L = +∞.

    **Exact answers without a grid.** A ledger of Gaussians only is answered in closed form (below). A ledger of k
    runs of ONE two-atom mechanism — randomized response, ``PureDP``, ``ApproxDP`` (plus its +∞ atom), the discrete
    Laplace with Δ = 1, the truncated discrete Laplace, fixed-size sampling of a pure/approximate event — is answered
    from its exact binomial law (:func:`binomial_loss_atoms`); both bounds are then equal to the exact value.

    All Gaussian mechanisms of the ledger are merged exactly first: k Gaussians are one Gaussian with
    σ_eff = (Σ Δ_i²/σ_i²)^{−1/2} (Dong, Roth & Su 2022, Corollary 3.3), so a ledger of Gaussians only is answered
    in closed form, δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), μ = 1/σ_eff (Balle & Wang 2018, Theorem 8), with
    no discretisation at all (both bounds equal the exact value).

    Supported events: Gaussian, Laplace, randomized response, discrete Laplace, discrete Gaussian, truncated
    discrete Laplace (exact loss laws); ``PureDP`` and ``ApproxDP`` through their worst case (randomized response,
    plus an atom δ at +∞; Kairouz, Oh & Viswanath 2015); ``PoissonSampled`` of any of these (add/remove; the
    dominating pairs ((1−q)Q + qP, Q) and (Q, (1−q)Q + qP), both directions tracked, the larger δ reported, as in
    dp-accounting); ``SampledWithoutReplacement`` of a pure or (ε, δ) event (replace-one; Ghazi et al. 2023,
    Thm 7, after Balle, Barthe & Gaboardi 2018, gives an (ε′, δ′) pair, composed through its worst case). ``ZCDP``
    has no PLD and is refused.

    Neighbouring relation: the mechanisms' sensitivity is that of the chosen relation (see
    :mod:`dpviz.accountants.events`), so e.g. dp-accounting's replace-one ``GaussianDpEvent(σ)`` is
    ``Gaussian(σ, sensitivity=2)`` here. The relation decides which sampling events are accepted.

    Parameters
    ----------
    neighboring : {"add_remove", "replace_one"}
    value_discretization_interval : float in (0, 1], default 1e-4
        Finest grid step h of the loss before refinement (dp-accounting's default too). With connect-the-dots the
        pessimistic ε for 1000 Poisson-subsampled Gaussian steps (q = 0.01, σ = 1.1, δ = 1e-5) is within 1e-5
        relative of the exact value; h = 1e-3 is several times faster and still within 1e-3.
    max_grid_points : int in :data:`GRID_POINTS` ([1024, 2**24]), default 2**20
        Grid-size budget of one composed distribution (see "Grid budget").

    Examples
    --------
    >>> from dpviz.mechanisms import Gaussian
    >>> from dpviz.accountants import PLDAccountant
    >>> a = PLDAccountant().compose(Gaussian(2.0), count=4)   # = one Gaussian with σ = 1
    >>> round(a.epsilon(1e-5), 6) == round(PLDAccountant().compose(Gaussian(1.0)).epsilon(1e-5), 6)
    True
    """

    name = "pld"

    def __init__(self, neighboring: str = "add_remove",
                 value_discretization_interval: float = DEFAULT_VALUE_DISCRETIZATION_INTERVAL, *,
                 max_grid_points: int = DEFAULT_MAX_GRID_POINTS):
        super().__init__(neighboring)
        self._h = check_in_range(value_discretization_interval, "value_discretization_interval", 0.0, 1.0,
                                 low_inclusive=False)
        self._max_points = GRID_POINTS.check(max_grid_points, "max_grid_points")
        self._cache = None
        self._h_eff = None
        self._span = 0.0
        self._h_last = 0.0

    @property
    def value_discretization_interval(self) -> float:
        """The requested grid step h (the finest one used; see :attr:`effective_interval`)."""
        return self._h

    @property
    def max_grid_points(self) -> int:
        """The grid-size budget of one composition (see the class docstring)."""
        return self._max_points

    @property
    def effective_interval(self) -> float:
        """The grid step actually used for the current ledger: h, or the coarser step that keeps the composed
        loss window within :attr:`max_grid_points` points; 0.0 when the ledger is answered exactly (Gaussians
        only, or one two-atom mechanism such as randomized response) and no grid is used."""
        if not self._ledger or self._gaussian_only() is not None or self._binomial() is not None:
            return 0.0
        return self._grid_step()

    def _reason(self, event: Any) -> str | None:
        if _event_laws(event) is None:
            return (
                "it has no privacy loss distribution here (ZCDP has none; fixed-size sampling needs a pure or "
                "(epsilon, delta) mechanism)"
            )
        return None

    def _changed(self) -> None:
        self._cache = None
        self._h_eff = None

    # -- composition ------------------------------------------------------------------------------------------
    def _gaussian_only(self):
        """μ_eff = (Σ k_i Δ_i²/σ_i²)^{1/2} if every event is a plain Gaussian (0 and ∞ included, when the ratios
        under- or overflow), else None."""
        mu2 = 0.0
        for ev, k in self._ledger:
            if not isinstance(ev, _m.Gaussian):
                return None
            mu2 += k * ev.mu * ev.mu
        return math.sqrt(mu2)

    def _binomial(self):
        """(loss, ln r₊, ln r₋, k, p_∞) when the ledger is k runs of ONE event whose privacy loss takes two values ±loss
        (plus possibly +∞), in both directions: randomized response, ``PureDP``, ``ApproxDP``, discrete Laplace
        with Δ = 1, the truncated discrete Laplace, fixed-size sampling of a pure/approximate event. Its k-fold
        composition is an exact binomial law (:func:`binomial_loss_atoms`). Else None."""
        merged = self._merged_ledger()
        if len(merged) != 1:
            return None
        ev, k = merged[0]
        laws = _event_laws(ev)
        if laws is None or laws[0] is not laws[1] or not isinstance(laws[0], FiniteLaw):
            return None
        law = laws[0]
        if law.losses.size != 2 or law.losses[0] != -law.losses[1]:
            return None
        with np.errstate(divide="ignore"):
            lm, lp = np.log(law.masses) - math.log(float(np.sum(law.masses)))  # conditional on a finite loss
        return float(law.losses[1]), float(lp), float(lm), k, law.inf_mass

    def _items(self):
        """[(law_remove, law_add, count)] with all Gaussians merged into one (count 1), and the directions."""
        gauss_rho = 0.0
        groups: list[tuple[Any, int]] = []
        for ev, k in self._merged_ledger():
            if isinstance(ev, _m.Gaussian):
                gauss_rho += k * ev.rho
            else:
                groups.append((ev, k))
        items = []
        if gauss_rho > 0:
            (g,) = _capped((_gaussian_law(gauss_rho),))
            items.append((g, g, 1))
        for ev, k in groups:
            lr, la = _event_laws(ev)
            items.append((lr, la, k))
        symmetric = all(lr is la for lr, la, _ in items)
        return items, (("remove",) if symmetric else ("remove", "add"))

    def _grid_step(self) -> float:
        """h, or the step S / max_grid_points when the span S would need more points than the budget: S is the
        larger of the composed window (sum of the Chernoff windows of the k-fold compositions,
        :func:`_chernoff_window`, estimated on a coarse pessimistic grid) and the widest single-event loss range
        (each event's own grid covers its range). The span also caps the refinement (:meth:`_levels`)."""
        if self._h_eff is None:
            items, directions = self._items()
            width = span = 0.0
            for direction in directions:
                w = 0.0
                for lr, la, k in items:
                    law = lr if direction == "remove" else la
                    span = max(span, law.hi - law.lo)
                    hc = max(self._h, (law.hi - law.lo) / 2048.0, 1e-12)
                    lo, p, _ = _discretise(law, hc, True)
                    nz = np.flatnonzero(p > 0)
                    if nz.size == 0:
                        continue
                    l = (lo + nz) * hc
                    if k == 1:
                        w += float(l[-1] - l[0]) + 2 * hc
                    else:
                        t_lo, t_hi = _chernoff_window(l, p[nz], k)
                        w += t_hi - t_lo + 2 * hc
                width = max(width, w)
            self._span = max(width, span)  # a single event's grid is as long as its (capped) loss range
            self._h_eff = max(self._h, self._span / self._max_points)
        return self._h_eff

    def _levels(self) -> list[float]:
        """The grid steps a query may use: h_eff, h_eff/4, h_eff/16, … — at most :data:`REFINE_LEVELS` refinements
        (h_eff/1024), and only while the finer grid keeps the composed window and every single-event range within
        min(max_grid_points, :data:`REFINE_MAX_POINTS`) points."""
        h0 = self._grid_step()
        cap = min(self._max_points, REFINE_MAX_POINTS)
        out = [h0]
        for _ in range(REFINE_LEVELS):
            h = out[-1] / 4.0
            if self._span == 0.0 or h == 0.0 or self._span / h > cap:  # (span 0: nothing to resolve)
                break
            out.append(h)
        return out

    def _composed(self, pessimistic: bool, h: float | None = None):
        """{direction: pmf} for the pessimistic or optimistic side on the grid of step ``h`` (default: the base
        step :meth:`_grid_step`; computed lazily, cached until the next compose); directions 'remove' and 'add',
        or only 'remove' when every event is symmetric."""
        if self._cache is None:
            self._cache = {}
        if h is None:
            h = self._grid_step()
        key = (pessimistic, h)
        if key in self._cache:
            return self._cache[key]
        items, directions = self._items()
        out = {}
        for direction in directions:
            acc = None
            for lr, la, k in items:
                law = lr if direction == "remove" else la
                d = _discretise(law, h, pessimistic)
                pmf = _Pmf(d[0], d[1], d[2]) if pessimistic else _Pmf(d[0], d[1], d[2], 0.0, d[3])
                pmf = _self_compose(pmf, k, h, pessimistic)
                acc = pmf if acc is None else _compose_two(acc, pmf, pessimistic)
            out[direction] = acc
        self._cache[key] = out
        return out

    # -- queries ----------------------------------------------------------------------------------------------
    @property
    def last_interval(self) -> float:
        """The grid step used by the most recent ε/δ query: :attr:`effective_interval`, or a finer one when that
        query was refined (see "Refinement" in the class docstring); 0.0 before any query and for exact ledgers."""
        return self._h_last

    def epsilon_bounds(self, delta: float) -> tuple[float, float]:
        """``(optimistic, pessimistic)`` ε at δ ∈ (0, 1): the exact ε lies in between."""
        delta = check_delta(delta, allow_zero=False)
        return self._eps_pair(delta)

    def delta_bounds(self, epsilon: float) -> tuple[float, float]:
        """``(optimistic, pessimistic)`` δ at ε ≥ 0: the exact δ lies in between."""
        epsilon = check_positive(epsilon, "epsilon", allow_zero=True)
        return self._delta_pair(epsilon)

    def _exact_atoms(self):
        if self._cache is None:
            self._cache = {}
        if "binomial" not in self._cache:
            b = self._binomial()
            self._cache["binomial"] = None if b is None else _binomial_loss_atoms(*b)
        return self._cache["binomial"]

    def _exact_eps(self, delta: float) -> float | None:
        """ε without a grid (Gaussians only, or one two-atom mechanism), else None."""
        mu = self._gaussian_only()
        if mu is not None:
            return _gauss(mu).epsilon(delta)
        atoms = self._exact_atoms()
        if atoms is not None:
            losses, log_p, inf = atoms
            return _atoms_epsilon(losses, None, inf, delta, log_probs=log_p)
        return None

    def _exact_delta(self, epsilon: float) -> float | None:
        mu = self._gaussian_only()
        if mu is not None:
            return float(_gauss(mu).delta(epsilon))
        atoms = self._exact_atoms()
        if atoms is not None:
            losses, log_p, inf = atoms
            m = losses > epsilon
            return min(1.0, inf + float(np.sum(np.exp(log_p[m]) * -np.expm1(epsilon - losses[m]))))
        return None

    def _refined(self, query, value: float) -> tuple[float, float]:
        """(optimistic, pessimistic) answer of ``query(value, pessimistic, h)`` on the coarsest grid of
        :meth:`_levels` that is fine enough: a query is refined (h → h/4, or straight to the level with
        h ≤ ε/100) while ε < 100·h (ε the pessimistic answer of an ε query, or the ε asked about) or the two bounds
        differ by more than :data:`REFINE_RTOL` of the pessimistic one; it stops at the last level, or when a
        refinement did not at least halve the gap between the bounds (then FFT round-off or the truncated tails,
        not the grid, set it)."""
        levels = self._levels()
        j, prev_gap = 0, math.inf
        while True:
            h = levels[j]
            pess, opt = query(value, True, h), query(value, False, h)
            opt = min(opt, pess)
            self._h_last = h
            eps = pess if query == self._eps_at else value
            coarse = 0.0 < eps < REFINE_STEPS * h
            gap = pess - opt
            loose = math.isfinite(pess) and gap > REFINE_RTOL * pess
            if j + 1 >= len(levels) or not (coarse or loose) or (not coarse and gap > 0.5 * prev_gap):
                return opt, pess
            prev_gap = gap
            if coarse:  # straight to the first level with ε ≥ 100 h (at least one level down)
                steps = math.log(min(REFINE_STEPS * h / eps, 4.0 ** len(levels)), 4.0)
                j = max(j + 1, min(len(levels) - 1, j + math.ceil(steps)))
            else:
                j += 1

    def _eps_pair(self, delta: float) -> tuple[float, float]:
        if not self._ledger:
            return 0.0, 0.0
        exact = self._exact_eps(delta)
        if exact is not None:
            self._h_last = 0.0
            return exact, exact
        return self._refined(self._eps_at, delta)

    def _delta_pair(self, epsilon: float) -> tuple[float, float]:
        if not self._ledger:
            return 0.0, 0.0
        exact = self._exact_delta(epsilon)
        if exact is not None:
            self._h_last = 0.0
            return exact, exact
        return self._refined(self._delta_at, epsilon)

    def _eps_at(self, delta: float, pessimistic: bool, h: float) -> float:
        comp = self._composed(pessimistic, h)
        return max(_pmf_epsilon(v, h, delta, pessimistic) for v in comp.values())

    def _delta_at(self, epsilon: float, pessimistic: bool, h: float) -> float:
        comp = self._composed(pessimistic, h)
        key = ("tables", pessimistic, h)
        if key not in self._cache:
            n_steps = sum(k for _, _, k in self._items()[0])
            self._cache[key] = [_DeltaTable(v, h, pessimistic, n_steps) for v in comp.values()]
        return max(t.delta(epsilon) for t in self._cache[key])

    def _eps_side(self, delta: float, pessimistic: bool) -> float:
        return self._eps_pair(delta)[1 if pessimistic else 0]

    def _delta_side(self, epsilon: float, pessimistic: bool) -> float:
        return self._delta_pair(epsilon)[1 if pessimistic else 0]

    def _epsilon(self, delta: float) -> float:
        return self._eps_pair(delta)[1]

    def _delta(self, epsilon: float) -> float:
        return self._delta_pair(epsilon)[1]
