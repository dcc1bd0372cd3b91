"""The one interface shared by every accountant (the contract of STYLE.md point 2).

``acct.compose(event, count=1) -> acct`` (chains; any mix of events), ``acct.epsilon(delta)``,
``acct.delta(epsilon)``, ``acct.supports(event)``, the read-only ``acct.ledger`` of ``(event, count)`` pairs and
``acct.neighboring``. An unsupported event raises :class:`ValueError` naming the event and the reason, and leaves
the accountant unchanged.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpviz._validation import Interval, check_choice, check_delta, check_positive
from dpviz.accountants.events import NEIGHBORING, is_event
from dpviz.accountants.profiles import unsupported_reason_subsampling

__all__ = ["Accountant", "RUNS"]

#: Runs a ledger may hold (all events together). Every accountant answers 10⁶ runs in well under a minute
#: (PLD's grid budget and the exact binomial laws grow like √k); a count beyond it is refused with a ValueError
#: naming this cap rather than attempted (an astronomically large count would allocate without bound).
RUNS = Interval(0, 10**6, integer=True)


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
            If ``count`` is not an integer in [0, :data:`RUNS`] (counting the runs already in the ledger), or
            the event is not supported (the message names it).
        """
        count = RUNS.check(count, "count")
        reason = self._why_not(event)
        if reason is not None:
            raise ValueError(f"{type(self).__name__} does not support the event {event!r}: {reason}.")
        total = sum(k for _, k in self._ledger)
        RUNS.check(total + count, f"the ledger's runs ({total} held + count = {count!r})")
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

    def _deltas(self, epsilons: Any) -> Any:
        """:meth:`delta` at every ε of a checked 1-D array of ε ≥ 0 (a privacy-profile curve): one call per ε here;
        an accountant whose conversion takes a whole array at once overrides it with the same values."""
        return np.array([self.delta(float(e)) for e in epsilons], dtype=float)

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
