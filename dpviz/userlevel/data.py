"""User-partitioned datasets and the two neighbouring relations of user-level DP.

A dataset holds ``n`` users; user ``i`` contributes a block x_i = (x_{i,1}, …, x_{i,c_i}) of ``c_i ≥ 1`` examples
(``c_i = m`` for every user in the paper's setting, ragged counts for contribution-bounding lessons).

* **Item-level neighbours**: replace ONE example x_{i,j} (Definition 2 of Ghazi et al. 2023 with m = 1).
* **User-level neighbours** (Definition 1 of Ghazi et al. 2023): x ≍ x′ iff x_{−i} = x′_{−i} for some user i, i.e. user
  i's whole block is replaced; the number of users stays n (substitution, not add/remove).
* Deletions x_{−S} (remove the blocks of the users in S) appear only inside the propose–test–release algorithm
  (``remove_users``); they are NOT a neighbouring relation.

References
----------
Ghazi et al. 2023 (Ghazi, Kamath, Kumar, Manurangsi, Meka & Zhang, "User-Level Differential Privacy With Few Examples
Per User", NeurIPS 2023), Section 2 (Definitions 1 and 2).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from dpviz._validation import Cap, Interval, as_rng, check_in_range, check_integer, check_probability, check_real_array

__all__ = ["UserDataset"]

# ----------------------------------------------------------------------------- the package's parameter ranges and caps
# Every size dpviz.userlevel allocates or loops over is checked against one of these caps before the work starts,
# with a ValueError that names the parameter, its value and the cap (the lessons' panels stay far below them: at
# most 40 users for DelStab, grids of 1000 points, 60 trials, m ≤ 10⁴ for the swap pmf). Ranges keep the closed
# forms finite: ε ≤ EPSILON.high wherever e^{ε}, e^{mε} or ε·score appears, ε ≥ EPSILON_DIVIDES.low and α ≥ ALPHA.low
# where they divide, scale-like knobs ≤ SCALE.high, data values ≤ MAGNITUDE in magnitude.

#: Users n of a :class:`~dpviz.userlevel.UserDataset` (the panels use ≤ 512).
USERS = Interval(1, 100_000, integer=True)
#: The total number of examples Σ c_i of a dataset, examples per user m and a contribution bound k.
ITEMS = Interval(1, 10_000_000, integer=True)
#: Bound on |example value| and on sums of examples (below 2⁵³, so integer data stay exact in float64).
MAGNITUDE = 1e15
#: The entries of any intermediate array (160 MB of float64): |ℋ|·n·m mistakes, n·K counts, K²·n sums, …
CELLS = Cap(20_000_000, "the entries of an intermediate array")
#: The elementary operations of one call (pairwise scores K²·n, DelStab's closeness tests, simulations).
WORK = Cap(1_000_000_000, "the elementary operations of one call")
#: The grid size K of :class:`~dpviz.userlevel.ThresholdClass` (its (K+1)×K prediction matrix; panels ≤ 1000).
GRID_SIZE = Interval(1, 5_000, integer=True)
#: Simulation trials (panels use ≤ 60).
TRIALS = Interval(1, 10_000, integer=True)
#: κ where a TDLap pmf of 2κ + 1 points is built.
KAPPA = Cap(1_000_000, "κ of a TDLap pmf on {0, …, 2κ}")
#: The output space {0, …, high} of :class:`~dpviz.userlevel.NoisySum`, and its ``item_max``.
OUTPUTS = Interval(1, 1_000_000, integer=True)
#: ``max_size`` (and ``resolution``) of :func:`~dpviz.userlevel.discrete_cover` (default 20 Ghazi et al. 2023).
COVER = Interval(1, 1_000_000, integer=True)
#: The distinct values of a dataset's ``domain`` and the number of symbols k.
DOMAIN = Interval(1, 100_000, integer=True)
#: The deletion sets C(n, r) of ``is_lddp`` (it compares all C(n, r)² pairs of pmfs).
SUBSETS = Cap(5_000, "the deletion sets C(n, r) is_lddp compares pairwise")
#: The subsets visited by DelStab's ``output_pmf(method="brute")`` (a cross-check for tiny instances).
BRUTE_VISITS = Cap(2_000_000, "the subsets method='brute' visits")
#: m in :func:`~dpviz.userlevel.pairwise_sum_pmf` (an FFT on 2m + 1 points; panels use ≤ 3200).
PAIRWISE_M = Interval(1, 1_000_000, integer=True)
#: m in :func:`~dpviz.userlevel.swap_difference_pmf` (panels use ≤ 10⁴).
SWAP_M = Interval(1, 1_000_000, integer=True)
#: ε (and ε₀) wherever e^{ε} or ε·score is formed (e^{500} ≈ 1.4·10²¹⁷; panels use ε ≤ 10): in (0, 500];
#: :data:`EPSILON_DIVIDES` where ε divides (user-complexity formulas, Laplace noise scales), :data:`EPSILON_OR_ZERO`
#: where it may be 0.
EPSILON = Interval(0.0, 500.0, open_low=True)
EPSILON_DIVIDES = Interval(1e-9, EPSILON.high)
EPSILON_OR_ZERO = Interval(0.0, EPSILON.high)
#: Accuracy α where α divides (user-complexity formulas, breakpoints): in [1e-9, 1].
ALPHA = Interval(1e-9, 1.0)
#: Scale-like knobs (τ, hidden constants, n_priv/n_stat, dimensions, value ranges, tolerances): in (0, 10¹²]
#: (:data:`SCALE_OR_ZERO`: [0, 10¹²]).
SCALE = Interval(0.0, 1e12, open_low=True)
SCALE_OR_ZERO = Interval(0.0, SCALE.high)
#: m (examples per user) in the user-complexity formulas (plots go up to 10⁹; crossovers search to 10¹⁵).
BOUND_M = Interval(1.0, 1e18)
#: The power c of log(1/δ) in n₁ = ln(1/δ)^c·n_priv/ε + n_stat.
LOG_POWER = Interval(0.0, 10.0)


def check_dataset(value: Any, name: str = "dataset"):
    """``value`` must be a :class:`~dpviz.userlevel.UserDataset` (TypeError otherwise)."""
    if not isinstance(value, UserDataset):
        raise TypeError(
            f"{name} = {type(value).__name__} is not allowed: must be a UserDataset "
            "(e.g. UserDataset.from_array(x) or UserDataset(blocks))."
        )
    return value


def check_epsilon(value: Any, name: str = "epsilon", *, divides: bool = False, allow_zero: bool = False) -> float:
    """ε by :data:`EPSILON` (:data:`EPSILON_DIVIDES` with ``divides``; :data:`EPSILON_OR_ZERO` with ``allow_zero``)."""
    return (EPSILON_DIVIDES if divides else EPSILON_OR_ZERO if allow_zero else EPSILON).check(value, name)


def check_scale(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """A positive (or non-negative) scale-like knob, at most ``SCALE.high``."""
    return (SCALE_OR_ZERO if allow_zero else SCALE).check(value, name)


def check_alpha(value: Any, name: str = "alpha") -> float:
    """Accuracy α by :data:`ALPHA`."""
    return ALPHA.check(value, name)


def check_finite(value: Any, name: str) -> float:
    """Any finite real number (e.g. the ε of a hockey-stick divergence, which may be negative)."""
    big = float(np.finfo(float).max)
    return check_in_range(value, name, -big, big)


def real_array(value: Any, name: str, *, ndim=None, allow_empty: bool = False, max_abs: float | None = None):
    """:func:`check_real_array` (float, finite, no complex) with entries bounded by ``max_abs`` in magnitude."""
    arr = check_real_array(value, name, ndim=ndim, allow_empty=allow_empty)
    if max_abs is not None and arr.size and float(np.max(np.abs(arr))) > max_abs:
        raise ValueError(
            f"{name} has an entry of magnitude {float(np.max(np.abs(arr))):.4g}, which is not allowed: entries must "
            f"lie in [-{max_abs:g}, {max_abs:g}]."
        )
    return arr


def index_list(value: Any, name: str, n: int) -> list[int]:
    """A sequence of user indices in [0, n − 1] (refuses a scalar, strings, non-integers)."""
    if isinstance(value, (str, bytes)) or np.ndim(value) != 1:
        raise TypeError(f"{name} = {value!r} is not allowed: must be a sequence of user indices in [0, {n - 1}].")
    return [check_integer(u, name, minimum=0, maximum=n - 1) for u in value]



@dataclasses.dataclass(frozen=True, eq=False)
class UserDataset:
    """n users, user i holding a block of ``counts[i] ≥ 1`` examples (Section 2 of Ghazi et al. 2023).

    Parameters
    ----------
    blocks : sequence of array_like
        ``blocks[i]`` is user i's examples, an array of shape ``(c_i, *item_shape)`` with ``c_i ≥ 1``. All users share
        ``item_shape`` (``()`` for scalar examples, ``(2,)`` for labelled pairs (x, y), …).
    domain : sequence, optional
        The finite sample universe 𝒵 of scalar examples (e.g. ``(0, 1)`` for bits). Random neighbours draw
        replacement values from it; when omitted, the distinct values present in the data are used.

    Raises
    ------
    ValueError
        ``blocks`` empty (no users), a user with no examples, blocks with different item shapes, or NaN/inf values.

    Examples
    --------
    >>> x = UserDataset.from_array([[0, 1, 1], [1, 1, 1]])
    >>> x.n_users, x.counts.tolist(), x.is_rectangular
    (2, [3, 3], True)
    >>> x.user_neighbor(user=0, block=[0, 0, 0]).user_sums().tolist()
    [0, 3]
    >>> UserDataset([[1.0], []])
    Traceback (most recent call last):
    ...
    ValueError: blocks[1] is empty, which is not allowed: every user must hold at least one example.
    """

    blocks: tuple[np.ndarray, ...]
    domain: tuple | None = None

    def __post_init__(self) -> None:
        if isinstance(self.blocks, (str, bytes)) or not isinstance(self.blocks, Iterable):
            raise TypeError(
                f"blocks = {self.blocks!r} is not allowed: must be a sequence of per-user example arrays."
            )
        if isinstance(self.blocks, np.ndarray) and self.blocks.dtype != object:
            raw: Sequence[Any] = list(self.blocks)
        else:
            raw = list(self.blocks)
        if len(raw) == 0:
            raise ValueError("blocks is empty, which is not allowed: a dataset needs at least one user.")
        if len(raw) > USERS.high:
            raise ValueError(f"blocks holds {len(raw)} users, which is not allowed: must be <= {USERS.high} (the cap "
                             "on a dataset's users).")
        out = []
        item_shape = None
        total = 0
        for i, b in enumerate(raw):
            arr = real_array(b, f"blocks[{i}]", allow_empty=True, max_abs=MAGNITUDE)
            if arr.ndim == 0:
                arr = arr.reshape(1)
            if arr.shape[0] == 0:
                raise ValueError(
                    f"blocks[{i}] is empty, which is not allowed: every user must hold at least one example."
                )
            if item_shape is None:
                item_shape = arr.shape[1:]
            elif arr.shape[1:] != item_shape:
                raise ValueError(
                    f"blocks[{i}] has item shape {arr.shape[1:]} which is not allowed: must match {item_shape}."
                )
            total += arr.size
            if total > ITEMS.high:
                raise ValueError(
                    f"blocks holds more than {ITEMS.high} values, which is not allowed: the total must be <= "
                    f"{ITEMS.high} (the cap on a dataset's examples)."
                )
            if np.all(arr == np.round(arr)):  # |values| <= MAGNITUDE < 2^53: the cast is exact
                arr = arr.astype(np.int64)
            arr.setflags(write=False)
            out.append(arr)
        object.__setattr__(self, "blocks", tuple(out))
        if self.domain is not None:
            if isinstance(self.domain, (str, bytes)):
                raise TypeError(f"domain = {self.domain!r} is not allowed: must be a sequence of example values.")
            vals = real_array(self.domain, "domain", allow_empty=True, max_abs=MAGNITUDE).ravel()
            dom = tuple(sorted(set(vals.tolist())))
            if len(dom) == 0:
                raise ValueError("domain is empty, which is not allowed: must hold at least one value.")
            if len(dom) > DOMAIN.high:
                raise ValueError(f"domain holds {len(dom)} values, which is not allowed: must be <= {DOMAIN.high} "
                                 "(the cap on a domain's values).")
            if all(float(v).is_integer() for v in dom):
                dom = tuple(int(v) for v in dom)
            object.__setattr__(self, "domain", dom)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_array(cls, x: Any, domain: Sequence | None = None) -> UserDataset:
        """Rectangular dataset from an array of shape ``(n, m, *item_shape)`` (n users × m examples)."""
        arr = real_array(x, "x", max_abs=MAGNITUDE)
        if arr.ndim < 2:
            raise ValueError(f"x has shape {arr.shape} which is not allowed: must be (n users, m examples, ...).")
        return cls(tuple(arr[i] for i in range(arr.shape[0])), domain=domain)

    @classmethod
    def bernoulli(
        cls,
        n_users: int,
        m: int | None = None,
        p: float = 0.5,
        *,
        counts: Sequence[int] | None = None,
        rng: Any = None,
    ) -> UserDataset:
        """Random bits: user i holds ``counts[i]`` (or ``m``) i.i.d. Bernoulli(p) examples; domain {0, 1}.

        Exactly one of ``m`` (rectangular n × m) and ``counts`` (ragged, length ``n_users``) must be given.

        >>> UserDataset.bernoulli(3, 2, 0.5, rng=0).counts.tolist()
        [2, 2, 2]
        """
        n_users = USERS.check(n_users, "n_users")
        p = check_probability(p, "p")
        cnt = _resolve_counts(n_users, m, counts)
        if int(cnt.sum()) > ITEMS.high:
            raise ValueError(f"n_users·m = {int(cnt.sum())} examples is not allowed: must be <= {ITEMS.high} (the cap "
                             "on a dataset's examples).")
        gen = as_rng(rng)
        return cls(tuple(gen.binomial(1, p, size=int(c)) for c in cnt), domain=(0, 1))

    # ------------------------------------------------------------------ basic views
    @property
    def n_users(self) -> int:
        """Number of users n."""
        return len(self.blocks)

    @property
    def counts(self) -> np.ndarray:
        """Per-user example counts c_i (int array of length n)."""
        return np.array([b.shape[0] for b in self.blocks], dtype=np.int64)

    @property
    def n_items(self) -> int:
        """Total number of examples Σ c_i (the sample size nm when rectangular)."""
        return int(self.counts.sum())

    @property
    def is_rectangular(self) -> bool:
        """True when every user holds the same number m of examples (the paper's setting)."""
        c = self.counts
        return bool(np.all(c == c[0]))

    @property
    def m(self) -> int:
        """Examples per user; raises ValueError for ragged data (use ``counts``)."""
        if not self.is_rectangular:
            raise ValueError("dataset is ragged, so m is not defined: use counts (per-user example counts).")
        return int(self.counts[0])

    @property
    def item_shape(self) -> tuple[int, ...]:
        """Shape of one example (``()`` for scalars)."""
        return tuple(self.blocks[0].shape[1:])

    @property
    def values_domain(self) -> tuple:
        """𝒵 used for random replacements: ``domain`` if given, else the distinct values present."""
        if self.domain is not None:
            return self.domain
        return tuple(np.unique(np.concatenate([b.ravel() for b in self.blocks])).tolist())

    def as_array(self) -> np.ndarray:
        """The ``(n, m, *item_shape)`` array of a rectangular dataset (ValueError if ragged)."""
        _ = self.m
        return np.stack(self.blocks)

    def items(self) -> np.ndarray:
        """All examples pooled, users concatenated (length Σ c_i)."""
        return np.concatenate(self.blocks)

    def user_of_item(self) -> np.ndarray:
        """For each pooled example (order of ``items()``), the index of the user who contributed it."""
        return np.repeat(np.arange(self.n_users), self.counts)

    def user_sums(self) -> np.ndarray:
        """Per-user sums Σ_j x_{i,j} (scalar examples)."""
        return np.array([b.sum() for b in self.blocks])

    def __len__(self) -> int:
        return self.n_users

    def __repr__(self) -> str:
        c = self.counts
        shape = f"m={int(c[0])}" if self.is_rectangular else f"counts {int(c.min())}..{int(c.max())}"
        return f"UserDataset(n_users={self.n_users}, {shape}, n_items={self.n_items})"

    def equals(self, other: UserDataset) -> bool:
        """Same users, same blocks in the same order."""
        check_dataset(other, "other")
        return self.n_users == other.n_users and all(
            a.shape == b.shape and np.array_equal(a, b) for a, b in zip(self.blocks, other.blocks)
        )

    # ------------------------------------------------------------------ edits (each returns a NEW dataset)
    def replace_user(self, user: int, block: Any) -> UserDataset:
        """x with user ``user``'s whole block replaced by ``block`` (any non-empty block)."""
        user = check_integer(user, "user", minimum=0, maximum=self.n_users - 1)
        blocks = list(self.blocks)
        blocks[user] = np.asarray(block)
        return UserDataset(tuple(blocks), domain=self.domain)

    def remove_users(self, users: Sequence[int]) -> UserDataset:
        """x_{−S}: the blocks of the users in S deleted (used by LDDP/PTR, Definition 16 of Ghazi et al. 2023).

        Raises ValueError when S would delete every user.
        """
        drop = set(index_list(users, "users", self.n_users))
        keep = [b for i, b in enumerate(self.blocks) if i not in drop]
        if not keep:
            raise ValueError(f"users = {sorted(drop)!r} is not allowed: must leave at least one user.")
        return UserDataset(tuple(keep), domain=self.domain)

    def select_users(self, users: Sequence[int]) -> UserDataset:
        """The sub-dataset of the given users (in the given order)."""
        idx = index_list(users, "users", self.n_users)
        if not idx:
            raise ValueError("users is empty, which is not allowed: must select at least one user.")
        return UserDataset(tuple(self.blocks[i] for i in idx), domain=self.domain)

    def item_neighbor(
        self, *, user: int | None = None, index: int | None = None, value: Any = None, rng: Any = None
    ) -> UserDataset:
        """An item-level neighbour: example ``index`` of user ``user`` replaced by ``value``.

        Unspecified choices are random (``rng``): the user uniformly, the example uniformly within that user, the new
        value uniformly from the domain minus the current value (so the neighbour differs when the domain allows).
        """
        gen = as_rng(rng)
        if user is None:
            user = int(gen.integers(self.n_users))
        user = check_integer(user, "user", minimum=0, maximum=self.n_users - 1)
        c = int(self.blocks[user].shape[0])
        if index is None:
            index = int(gen.integers(c))
        index = check_integer(index, "index", minimum=0, maximum=c - 1)
        block = np.array(self.blocks[user], dtype=float)
        if value is None:
            if self.item_shape != ():
                raise ValueError("value is None, which is not allowed for non-scalar examples: pass value.")
            current = block[index]
            choices = [v for v in self.values_domain if v != current] or list(self.values_domain)
            value = choices[int(gen.integers(len(choices)))]
        block[index] = value
        return self.replace_user(user, block)

    def user_neighbor(self, *, user: int | None = None, block: Any = None, rng: Any = None) -> UserDataset:
        """A user-level neighbour (Definition 1 of Ghazi et al. 2023): user ``user``'s whole block replaced by
        ``block``.

        Unspecified choices are random (``rng``): the user uniformly; the new block has the same count c_i, each
        example uniform on the domain (redrawn until it differs from the old block when the domain allows).
        """
        gen = as_rng(rng)
        if user is None:
            user = int(gen.integers(self.n_users))
        user = check_integer(user, "user", minimum=0, maximum=self.n_users - 1)
        if block is None:
            if self.item_shape != ():
                raise ValueError("block is None, which is not allowed for non-scalar examples: pass block.")
            dom = np.asarray(self.values_domain)
            old = self.blocks[user]
            for _ in range(100):
                block = dom[gen.integers(len(dom), size=old.shape[0])]
                if len(dom) == 1 or not np.array_equal(block, old):
                    break
        return self.replace_user(user, block)

    def iter_user_neighbors(self, user: int | None = None) -> Iterator[UserDataset]:
        """Every user-level neighbour whose replaced block keeps the user's count and takes values in the domain.

        Brute force over 𝒵^{c_i} (for every user, or only ``user``): meant for exhaustive tests on small instances.
        The arguments are checked when called (not at the first ``next``); the neighbours are produced lazily.
        """
        users = range(self.n_users) if user is None else [check_integer(user, "user", minimum=0,
                                                                        maximum=self.n_users - 1)]
        return self._user_neighbors(users)

    def _user_neighbors(self, users) -> Iterator[UserDataset]:
        dom = self.values_domain
        for i in users:
            c = int(self.blocks[i].shape[0])
            for combo in itertools.product(dom, repeat=c):
                b = np.array(combo)
                if not np.array_equal(b, self.blocks[i]):
                    yield self.replace_user(i, b)

    def neighbor_pair(self, kind: str = "user", *, rng: Any = None) -> tuple[UserDataset, UserDataset]:
        """``(x, x′)`` with x′ a random ``"item"``- or ``"user"``-level neighbour of x."""
        if kind == "item":
            return self, self.item_neighbor(rng=rng)
        if kind == "user":
            return self, self.user_neighbor(rng=rng)
        raise ValueError(f"kind = {kind!r} is not allowed: must be one of 'item', 'user'.")


def _resolve_counts(n_users: int, m: int | None, counts: Sequence[int] | None) -> np.ndarray:
    if (m is None) == (counts is None):
        raise ValueError("m and counts: give exactly one of m (rectangular) or counts (ragged per-user counts).")
    if m is not None:
        m = ITEMS.check(m, "m")
        return np.full(n_users, m, dtype=np.int64)
    cnt = real_array(counts, "counts", ndim=1)
    if cnt.shape[0] != n_users:
        raise ValueError(f"counts has length {cnt.shape[0]} which is not allowed: must equal n_users = {n_users}.")
    return np.array([ITEMS.check(c, "counts") for c in cnt], dtype=np.int64)
