"""The one interface shared by every accountant (the contract of STYLE.md point 2).

``acct.compose(event, count=1) -> acct`` (chains; any mix of events), ``acct.epsilon(delta)``,
``acct.delta(epsilon)``, ``acct.supports(event)``, the read-only ``acct.ledger`` of ``(event, count)`` pairs and
``acct.neighboring``. An unsupported event raises :class:`ValueError` naming the event and the reason, and leaves
the accountant unchanged.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from scipy import optimize

from dpviz._validation import check_choice, check_delta, check_integer, check_positive
from dpviz.accountants.events import NEIGHBORING, is_event, unsupported_reason_subsampling

__all__ = ["Accountant", "MAX_COUNT"]

#: Most runs a ledger may hold (all events together). Every accountant answers 10⁶ runs in well under a minute
#: (PLD's grid budget and the exact binomial laws grow like √k); a count beyond it is refused with a ValueError
#: naming this cap rather than attempted (an astronomically large count would allocate without bound).
MAX_COUNT = 10**6


class Accountant:
    """Base class: ledger, validation and dispatch; subclasses implement ``_reason(event)``, ``_epsilon(delta)``
    and ``_delta(epsilon)`` on a non-empty ledger.

    Parameters
    ----------
    neighboring : {"add_remove", "replace_one"}
        The neighbouring relation the guarantee is stated for (see :mod:`dpviz.accountants.events` for what each
        protects and for the sensitivity convention: mechanisms carry the sensitivity of the chosen relation).
    """

    #: short name used by :data:`dpviz.accountants.ACCOUNTANTS`
    name = "base"

    def __init__(self, neighboring: str = "add_remove"):
        if type(self) is Accountant:
            raise TypeError("Accountant is the abstract base class: instantiate one of dpviz.accountants.ACCOUNTANTS "
                            "(BasicAccountant, AdvancedAccountant, OptimalAccountant, RDPAccountant, ZCDPAccountant, "
                            "PLDAccountant).")
        self._neighboring = check_choice(neighboring, "neighboring", NEIGHBORING)
        self._ledger: list[tuple[Any, int]] = []

    # -- public surface ------------------------------------------------------------------------------------------
    @property
    def neighboring(self) -> str:
        """The neighbouring relation, ``"add_remove"`` or ``"replace_one"``."""
        return self._neighboring

    @property
    def ledger(self) -> tuple[tuple[Any, int], ...]:
        """Read-only record of what was composed: a tuple of ``(event, count)`` in composition order."""
        return tuple(self._ledger)

    def supports(self, event: Any) -> bool:
        """True when ``compose(event)`` would succeed."""
        return self._why_not(event) is None

    def compose(self, event: Any, count: int = 1) -> "Accountant":
        """Add ``count`` adaptive runs of ``event`` to the ledger; returns ``self`` so calls chain.

        Raises
        ------
        ValueError
            If ``count`` is not an integer in [0, :data:`MAX_COUNT`] (counting the runs already in the ledger), or
            the event is not supported (the message names it).
        """
        count = check_integer(count, "count", minimum=0, maximum=MAX_COUNT)
        reason = self._why_not(event)
        if reason is not None:
            raise ValueError(f"{type(self).__name__} does not support the event {event!r}: {reason}.")
        total = sum(k for _, k in self._ledger)
        if total + count > MAX_COUNT:
            raise ValueError(
                f"count = {count!r} is not allowed here: the ledger already holds {total} runs and may hold at most "
                f"MAX_COUNT = {MAX_COUNT} in all."
            )
        if count > 0:
            self._ledger.append((event, count))
            self._changed()
        return self

    def epsilon(self, delta: float) -> float:
        """Smallest ε the accountant can certify at this δ ∈ (0, 1) (``math.inf`` if none is finite)."""
        delta = check_delta(delta, allow_zero=False)
        if not self._ledger:
            return 0.0
        return float(self._epsilon(delta))

    def delta(self, epsilon: float) -> float:
        """Smallest δ the accountant can certify at this ε ≥ 0, in [0, 1]: the exact inverse of the accountant's
        ε(δ) where it has a closed form, else the infimum of {δ : ε(δ) ≤ ε} found by a bracketing search
        (:func:`delta_from_epsilon_function`), so that ``epsilon(delta(ε)) ≤ ε`` and δ(ε) is non-increasing in ε.
        0 only when the ledger needs no δ at this ε; a δ below the double range is rounded up to 5e-324, never
        down to 0; 1 when no δ < 1 is certified."""
        epsilon = check_positive(epsilon, "epsilon", allow_zero=True)
        if not self._ledger:
            return 0.0
        return float(min(1.0, max(0.0, self._delta(epsilon))))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(neighboring={self._neighboring!r}, ledger={self.ledger!r})"

    # -- helpers for subclasses ------------------------------------------------------------------------------------
    def _why_not(self, event: Any) -> str | None:
        if not is_event(event):
            return "it is not a dpviz mechanism or event"
        reason = unsupported_reason_subsampling(event, self._neighboring)
        if reason is not None:
            return reason
        return self._reason(event)

    def _merged_ledger(self) -> list[tuple[Any, int]]:
        """The ledger with equal events merged (composition is commutative), first-seen order."""
        merged: dict[Any, int] = {}
        for ev, k in self._ledger:
            merged[ev] = merged.get(ev, 0) + k
        return list(merged.items())

    def _changed(self) -> None:  # cache invalidation hook
        pass

    def _reason(self, event: Any) -> str | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _epsilon(self, delta: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def _delta(self, epsilon: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError


def epsilon_from_delta_function(delta_of_eps, target: float, hi: float = 1.0, *, rtol: float = 1e-12) -> float:
    """Smallest ε ≥ 0 with ``delta_of_eps(ε) ≤ target`` for a non-increasing δ(ε), by bisection that keeps the
    feasible (upper) end, so the answer never under-reports ε. ``math.inf`` when no ε ≤ 1e4 works."""
    if delta_of_eps(0.0) <= target:
        return 0.0
    lo = 0.0
    while delta_of_eps(hi) > target:
        lo = hi
        hi *= 2.0
        if hi > 1e4:
            return math.inf
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if delta_of_eps(mid) <= target:
            hi = mid
        else:
            lo = mid
        if hi - lo <= rtol * max(hi, 1e-300):
            break
    return hi


#: the smallest positive double: a δ below it cannot be represented, so a δ(ε) search rounds up to it
TINY_DELTA = 5e-324

#: largest double below 1: the largest δ an ε(δ) can be asked about
TOP_DELTA = 1.0 - 2.0**-53


def delta_from_epsilon_function(eps_of_delta, epsilon: float, *, rtol: float = 1e-10,
                                eps_at_zero: float = math.inf) -> float:
    """δ(ε) of an accountant that is stated as ε(δ): the smallest δ ∈ [0, 1] with ``eps_of_delta(δ) ≤ epsilon``.

    The accountant certifies (ε(δ), δ) for every δ ∈ (0, 1), and (ε, δ)-DP implies (ε′, δ′)-DP for ε′ ≥ ε,
    δ′ ≥ δ; so the pairs it certifies at ε are {δ : ε(δ) ≤ ε}, and δ(ε) is their infimum — non-increasing in ε
    whatever ε(δ) looks like. ε(δ) is non-increasing here, so the set is an interval [δ*, 1) and δ* is found in
    x = ln δ ∈ [ln 5e-324, ln(1 − 2⁻⁵³)] by regula falsi with the Illinois modification (Dowell & Jarratt 1971; a
    bisection step whenever an end is infinite or a step fails to halve the bracket), keeping a bracket
    [x_lo, x_hi] with ε(e^{x_lo}) > ``epsilon`` ≥ ε(e^{x_hi}) until it is ``rtol`` wide. The δ returned is always
    one at which ``eps_of_delta`` was evaluated and found ≤ ``epsilon``, so ε(δ(ε)) ≤ ε exactly and δ(ε) is never
    below the accountant's own infimum (it exceeds it by < ``rtol`` relative). Typically 6–12 evaluations of ε(δ).
    Ends:

    * 1.0 when even δ = 1 − 2⁻⁵³ needs a larger ε (no guarantee at this ε);
    * 0.0 when ``eps_at_zero`` (the limit of ε(δ) as δ → 0, supplied by the accountant: ∞ unless the ledger has
      no δ part at all) is ≤ ``epsilon``;
    * 5e-324 (the smallest positive double, rounding the infimum up) when that δ is already feasible but δ = 0
      is not: the exact δ then lies in (0, 5e-324].

    ``eps_of_delta`` must accept every δ in [5e-324, 1) (shares δ/k that underflow to 0 included) without
    warnings.
    """
    e_hi = eps_of_delta(TOP_DELTA)
    if e_hi > epsilon:
        return 1.0
    if eps_at_zero <= epsilon:
        return 0.0
    e_lo = eps_of_delta(TINY_DELTA)
    if e_lo <= epsilon:
        return TINY_DELTA
    x_lo, x_hi = _logit(TINY_DELTA), _logit(TOP_DELTA)
    seen = {"feasible": x_hi, "infeasible": x_lo}  # smallest x found feasible, largest x below it found infeasible
    target = math.asinh(epsilon)

    def g(x: float) -> float:
        e = eps_of_delta(_expit(x))
        # asinh compresses ε's many orders of magnitude (∞ included, as a huge finite value) so that the
        # interpolation steps of Brent's method make progress; the root is unchanged (asinh is increasing). The
        # sign is the feasibility, strictly: a 0 would end the search there (asinh can round a difference of a few
        # ulps of ε away, and ε(δ) = ε can hold on a whole interval, ε = 0 above some δ*)
        if e <= epsilon:
            seen["feasible"] = min(seen["feasible"], x)
            return min(math.asinh(e) - target, 0.0) - 1e-12
        if x < seen["feasible"]:
            seen["infeasible"] = max(seen["infeasible"], x)
        return max(min(math.asinh(e), 1e300) - target, 1e-300)

    with warnings.catch_warnings():  # Brent may report non-convergence in maxiter; the bracket is still valid
        warnings.simplefilter("ignore", RuntimeWarning)
        optimize.brentq(g, x_lo, x_hi, xtol=0.25 * rtol, rtol=4 * 2.0**-52, maxiter=200, full_output=True, disp=False)
    # safeguard: where ε(δ) is not exactly monotone (a numerical minimisation inside it), Brent may stop at an
    # infeasible point with the nearest feasible one further away; bisect between them to the tolerance
    for _ in range(200):
        a, b = seen["infeasible"], seen["feasible"]
        if b - a <= rtol:
            break
        g(0.5 * (a + b))
    return _expit(seen["feasible"])


def _logit(d: float) -> float:
    return math.log(d) - math.log1p(-d)


def _expit(x: float) -> float:
    """1/(1 + e^{−x}) without overflow, exact to rounding on both tails (δ tiny and δ near 1)."""
    if x < 0:
        e = math.exp(x)
        return e / (1.0 + e)
    return 1.0 / (1.0 + math.exp(-x))


def feasible_total(delta_f: float, k: int, share: float) -> float:
    """The smallest double d ≥ δ_f + k·share whose share (d − δ_f)/k, as the accountants recompute it from d, is
    still ≥ ``share`` (rounding of the sum could otherwise hand a curve a share an ulp too small, and ε(δ(ε)) would
    exceed ε by an ulp). Capped at 1."""
    d = delta_f + k * share
    for _ in range(8):
        if d >= 1.0 or (d - delta_f) / k >= share:
            break
        d = math.nextafter(d, 2.0)
    return min(1.0, d)
