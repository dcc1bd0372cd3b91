"""The one interface shared by every accountant (the contract of STYLE.md point 2).

``acct.compose(event, count=1) -> acct`` (chains; any mix of events), ``acct.epsilon(delta)``,
``acct.delta(epsilon)``, ``acct.supports(event)``, the read-only ``acct.ledger`` of ``(event, count)`` pairs and
``acct.neighboring``. An unsupported event raises :class:`ValueError` naming the event and the reason, and leaves
the accountant unchanged.
"""

from __future__ import annotations

import math
from typing import Any

from dpviz._validation import check_choice, check_delta, check_integer, check_positive
from dpviz.accountants.events import NEIGHBORING, is_event, unsupported_reason_subsampling

__all__ = ["Accountant"]


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
            If ``count`` is not an integer ≥ 0, or the event is not supported (the message names it).
        """
        count = check_integer(count, "count", minimum=0)
        reason = self._why_not(event)
        if reason is not None:
            raise ValueError(f"{type(self).__name__} does not support the event {event!r}: {reason}.")
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
        """Smallest δ the accountant can certify at this ε ≥ 0 (at most 1)."""
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


def delta_from_epsilon_function(eps_of_delta, epsilon: float, *, rtol: float = 1e-10) -> float:
    """Smallest δ ∈ [0, 1] with ``eps_of_delta(δ) ≤ epsilon`` for a non-increasing ε(δ), bisecting in log δ and
    keeping the feasible (upper) end."""
    if eps_of_delta(1.0 - 1e-15) > epsilon:
        return 1.0
    lo, hi = -745.0, math.log(1.0 - 1e-15)  # log δ
    if eps_of_delta(math.exp(lo)) <= epsilon:
        return 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if eps_of_delta(math.exp(mid)) <= epsilon:
            hi = mid
        else:
            lo = mid
        if hi - lo <= rtol:
            break
    return math.exp(hi)
