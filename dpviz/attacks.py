"""Why anonymisation fails (lesson 01): four attacks on released data, on synthetic data from a seed.

* **Differencing** (:func:`differencing_attack`): two counts that differ by one person reveal that person's bit;
  with Laplace noise on each count (:class:`dpviz.mechanisms.Laplace`) the attacker's guess is right with the exact
  probability :func:`differencing_success_probability`.
* **Linkage** (:func:`linkage_attack`; Sweeney 2002): a release of rows without names, joined with a public register
  (names and quasi-identifiers, e.g. a voter roll), re-identifies every listed person whose quasi-identifiers no one
  else in the release shares; :func:`k_anonymity` is k-anonymity's measure (the smallest equivalence class), and
  :attr:`LinkageResult.disclosed` shows its failure: a class whose rows all share the sensitive value reveals it.
* **Reconstruction** (:func:`reconstruction_attack`, :func:`reconstruction_curve`; Dinur & Nissim 2003): many noisy
  subset-sum queries on a secret bit vector of n people let a decoder recover most bits when the noise is well
  below √n, and fail (≈ 50 %, chance) when it is well above.
* **Membership inference on a released count/mean** (:func:`membership_tradeoff`): the exact trade-off (type I error
  α, type II error β) of the most powerful test of "is the target in the data?", without noise and with Laplace or
  Gaussian noise, comparable with the (ε, δ)-DP region of lesson 03 (:mod:`dpviz.tradeoff`).

Everything here is a pure function of its arguments; randomness comes from ``rng`` (a numpy Generator or an int
seed). No data set is downloaded: the data are generated here.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np
from scipy import linalg, special, stats

from dpviz._validation import (
    Cap,
    Interval,
    as_rng,
    check_choice,
    check_in_range,
    check_integer,
    check_positive,
    check_probability,
    check_real_array,
)
from dpviz.mechanisms import Laplace

__all__ = [
    "SyntheticTable",
    "synthetic_table",
    "DifferencingResult",
    "differencing_attack",
    "differencing_success_probability",
    "laplace_difference_pdf",
    "MIN_NOISE_SCALE",
    "GENERALISATIONS",
    "quasi_identifier_classes",
    "k_anonymity",
    "expected_unique_fraction",
    "voter_roll",
    "LinkageResult",
    "linkage_attack",
    "linkage_by_generalisation",
    "ReconstructionResult",
    "reconstruction_attack",
    "least_squares_error_sd",
    "exact_least_squares_error_sd",
    "ReconstructionCurve",
    "reconstruction_curve",
    "MembershipTradeoff",
    "membership_tradeoff",
    "MEMBERSHIP_NOISES",
]


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


def _fail(name: str, value, allowed: str) -> ValueError:
    return ValueError(f"{name} = {value!r} is not allowed: must be {allowed}.")


def _check_bits(value, name: str, *, ndim: int = 1, size: int | None = None) -> np.ndarray:
    """A 0/1 (or False/True) array of ``ndim`` dimensions, as int8; ``size`` its required length (1-D)."""
    arr = check_real_array(value, name, ndim=ndim, allow_empty=size == 0)
    if np.any((arr != 0) & (arr != 1)):
        raise ValueError(f"{name} is not allowed: must hold only 0/1 or False/True values.")
    if size is not None and arr.shape[0] != size:
        raise ValueError(f"{name} has {arr.shape[0]} values, which is not allowed: must have {size} (one per "
                         "person).")
    return arr.astype(np.int8)


def _check_flag(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise _fail(name, value, "True or False")
    return bool(value)


def _check_fraction_field(value, name: str) -> float:
    return check_probability(value, name)


# =============================================================================================== the people

#: Fictional first names and surnames for the synthetic tables (no real person is meant).
_NAMES = ("Ada", "Bram", "Chloé", "Dev", "Elif", "Femi", "Greta", "Hiro", "Ines", "Jonas", "Kofi", "Lena",
          "Mateo", "Noor", "Olek", "Priya", "Quinn", "Rosa", "Sami", "Tuva", "Umar", "Vera", "Wen", "Yara")
_SURNAMES = ("Abara", "Berg", "Costa", "Dahl", "Eze", "Fontaine", "Garcia", "Haddad", "Ito", "Jensen", "Kaur",
             "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quispe", "Rossi", "Sato", "Tanaka", "Ueda",
             "Varga", "Weber", "Xu", "Yilmaz", "Zeller", "Achebe", "Borg", "Celik", "Diallo", "Engel", "Fischer",
             "Gupta", "Horvat", "Iqbal", "Jovanović", "Kowalski", "Larsen", "Mendes", "Novak", "Ortiz", "Park")
_TOWNS = ("Ashford", "Brook", "Calder")
#: Ages of the synthetic people: uniform on 20, 21, …, 79 (the law :func:`expected_unique_fraction` assumes).
_AGE_LOW, _AGE_HIGH = 20, 80
#: An age (and an age band) in whole years: 0 to 150.
AGE = Interval(0, 150, integer=True)

#: People :func:`synthetic_table` draws: 2 to 1000 (24 first names × 42 surnames give 1008 distinct full names).
TABLE_PEOPLE = Interval(2, 1000, integer=True)


@dataclasses.dataclass(frozen=True)
class SyntheticTable:
    """A table of people: ``names``, ``ages``, ``towns`` (quasi-identifiers) and the sensitive yes/no attribute
    ``has_condition`` (e.g. "has diabetes"). Arrays are read-only; the fields are checked (distinct names, integer
    ages in [0, 150], one town and one 0/1 value per person)."""

    names: tuple[str, ...]
    ages: np.ndarray
    towns: tuple[str, ...]
    has_condition: np.ndarray

    def __post_init__(self):
        if not isinstance(self.names, (tuple, list)) or not all(isinstance(s, str) for s in self.names):
            raise ValueError(f"names = {_short(self.names)} is not allowed: must be a tuple of strings.")
        n = len(self.names)
        LINKAGE_PEOPLE.check(n, "len(names)")
        if n < 1 or len(set(self.names)) != n:
            raise ValueError(f"names is not allowed: must hold at least one name, all distinct (got {n}).")
        ages = _check_ages(self.ages, "ages", n)
        if not isinstance(self.towns, (tuple, list)) or not all(isinstance(s, str) for s in self.towns):
            raise ValueError(f"towns = {_short(self.towns)} is not allowed: must be a tuple of strings.")
        if len(self.towns) != n:
            raise ValueError(f"towns has {len(self.towns)} values, which is not allowed: must have {n} (one per "
                             "person).")
        cond = _check_bits(self.has_condition, "has_condition", size=n).astype(bool)
        object.__setattr__(self, "names", tuple(self.names))
        object.__setattr__(self, "towns", tuple(self.towns))
        object.__setattr__(self, "ages", _frozen(ages))
        object.__setattr__(self, "has_condition", _frozen(cond))

    @property
    def n(self) -> int:
        return len(self.names)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def synthetic_table(n: int = 8, rng=0, *, rate: float = 0.4) -> SyntheticTable:
    """``n`` (in :data:`TABLE_PEOPLE`) fictional people, each with the sensitive attribute independently
    with probability ``rate``; ages (uniform on 20–79), towns (uniform on three) and names are drawn from ``rng`` too.
    The same seed gives the same table. Up to 24 people get distinct first names; more get distinct full names.

    The draws, in this order: the names, the ages, the towns, the attribute.
    """
    n = TABLE_PEOPLE.check(n, "n")
    rate = check_probability(rate, "rate")
    g = as_rng(rng)
    if n <= len(_NAMES):
        idx = np.sort(g.choice(len(_NAMES), size=n, replace=False))
        names = tuple(_NAMES[i] for i in idx)
    else:
        idx = np.sort(g.choice(len(_NAMES) * len(_SURNAMES), size=n, replace=False))
        names = tuple(f"{_NAMES[i % len(_NAMES)]} {_SURNAMES[i // len(_NAMES)]}" for i in idx)
    ages = g.integers(_AGE_LOW, _AGE_HIGH, size=n)
    towns = g.integers(0, len(_TOWNS), size=n)
    cond = g.random(n) < rate
    return SyntheticTable(names=names, ages=ages, towns=tuple(_TOWNS[t] for t in towns), has_condition=cond)


# =============================================================================================== differencing

#: Smallest Laplace scale b the density and the figure accept: below it the density's peak 1/(4b) of L₁ − L₂ is not
#: a finite double.
MIN_NOISE_SCALE = 1e-300


@dataclasses.dataclass(frozen=True)
class DifferencingResult:
    """The two released answers of a differencing attack and what the attacker concludes.

    ``answer_all``: "how many people have the condition?"; ``answer_without``: the same count over everyone but the
    target; ``difference`` = answer_all − answer_without; ``guess``: the attacker's conclusion "the target has it"
    (difference ≥ ½); ``truth``: the target's real value; ``noise_scale``: the Laplace scale b of each answer (0: exact
    answers). The fields are checked (finite numbers, b ≥ 0, and ``guess`` and ``difference`` consistent)."""

    answer_all: float
    answer_without: float
    difference: float
    guess: bool
    truth: bool
    noise_scale: float

    def __post_init__(self):
        a1 = _finite(self.answer_all, "answer_all")
        a2 = _finite(self.answer_without, "answer_without")
        d = _finite(self.difference, "difference")
        guess = _check_flag(self.guess, "guess")
        truth = _check_flag(self.truth, "truth")
        b = check_positive(self.noise_scale, "noise_scale", allow_zero=True)
        if guess != (d >= 0.5):
            raise ValueError(f"guess = {guess!r} is not allowed with difference = {d!r}: the attacker guesses "
                             "True exactly when difference >= 0.5.")
        for name, v in (("answer_all", a1), ("answer_without", a2), ("difference", d), ("noise_scale", b)):
            object.__setattr__(self, name, v)
        object.__setattr__(self, "guess", guess)
        object.__setattr__(self, "truth", truth)

    @property
    def correct(self) -> bool:
        return self.guess == self.truth


def _finite(value, name: str) -> float:
    """A finite real number (not bool, complex or a string)."""
    return check_in_range(value, name, -math.inf, math.inf)


def differencing_attack(has_attribute, target: int, *, noise_scale: float = 0.0, rng=None) -> DifferencingResult:
    """Ask "how many have the attribute?" over everyone and over everyone but ``target``; the difference is the
    target's bit (Dwork & Roth 2014, §1; Dwork et al. 2017, §2).

    Each count has sensitivity 1; with ``noise_scale`` b > 0 each answer is released with independent Laplace(b)
    noise by :class:`dpviz.mechanisms.Laplace` (each is then (1/b)-DP, the pair (2/b)-DP by composition). The
    attacker guesses "has it" when the difference is ≥ ½.

    Parameters
    ----------
    has_attribute : array of bool or 0/1
        The sensitive attribute of each person (at least 2 people).
    target : int
        Index of the person attacked, 0 ≤ target < n.
    noise_scale : float
        Laplace scale b ≥ 0 of each answer; 0 releases exact counts.
    rng : numpy Generator or int seed
    """
    bits = check_real_array(has_attribute, "has_attribute", ndim=1)
    if bits.size < 2 or np.any((bits != 0) & (bits != 1)):
        raise ValueError("has_attribute is not allowed: must be at least 2 values, each 0/1 or False/True.")
    t = check_integer(target, "target", minimum=0, maximum=bits.size - 1)
    b = check_positive(noise_scale, "noise_scale", allow_zero=True)
    total = float(bits.sum())
    without = total - float(bits[t])
    if b > 0:
        a1, a2 = Laplace(b).release(np.array([total, without]), rng=as_rng(rng))
    else:
        a1, a2 = total, without
    diff = float(a1) - float(a2)
    if not math.isfinite(diff):  # b near the float maximum: the two noises overflow their difference
        raise ValueError(f"noise_scale = {noise_scale!r} is not allowed: the difference of two answers with this "
                         "noise is not a finite number; use a smaller scale.")
    return DifferencingResult(answer_all=float(a1), answer_without=float(a2), difference=diff, guess=diff >= 0.5,
                              truth=bool(bits[t]), noise_scale=b)


def _check_difference_scale(noise_scale) -> float:
    b = check_positive(noise_scale, "noise_scale")
    if b < MIN_NOISE_SCALE:
        raise _fail("noise_scale", noise_scale, f"a number >= {MIN_NOISE_SCALE:g} (below it the density's peak "
                                                "1/(4b) is not a finite double)")
    return b


def laplace_difference_pdf(t, noise_scale: float):
    """Density of L₁ − L₂ for independent L₁, L₂ ~ Laplace(b): (1 + |t|/b)·e^{−|t|/b}/(4b) (the convolution of two
    Laplace densities, Dwork & Roth 2014, Def. 3.3). Arrays in, array out; b ≥ :data:`MIN_NOISE_SCALE`, so that
    the peak 1/(4b) is finite; where x = |t|/b exceeds the double range the density is 0 to double precision."""
    b = _check_difference_scale(noise_scale)
    t = check_real_array(t, "t", allow_empty=True)
    with np.errstate(over="ignore"):  # |t|/b beyond the float range is +inf, where the density is exactly 0 here
        x = np.abs(t) / b
    out = np.zeros(x.shape)
    ok = np.isfinite(x)
    out[ok] = (1.0 + x[ok]) * np.exp(-x[ok]) / (4.0 * b)  # ≤ 1/(4b), finite for b ≥ MIN_NOISE_SCALE
    return out


def differencing_success_probability(noise_scale: float) -> float:
    """P[the differencing attacker's guess is right] with Laplace(b) noise on each answer, exactly:

        1 − e^{−1/(2b)}·(2 + 1/(2b))/4

    (the difference is bit + L₁ − L₂; the guess "difference ≥ ½" errs when the noise L₁ − L₂ crosses ½ the wrong
    way; the tail of L₁ − L₂ is ∫_t^∞ (1 + s/b)e^{−s/b}/(4b) ds = e^{−t/b}(2 + t/b)/4). The same for a target with and
    without the attribute. b = 0 gives 1 (exact counts reveal the bit); so does every b for which the error term
    e^{−r}(2 + r)/4, r = 1/(2b), is below the smallest double (r > 800)."""
    b = check_positive(noise_scale, "noise_scale", allow_zero=True)
    if b == 0:
        return 1.0
    r = 0.5 / b  # +inf for the smallest subnormal b: caught by the test below, never multiplied by e^(−r) = 0
    if r > 800.0:
        return 1.0
    return 1.0 - math.exp(-r) * (2.0 + r) / 4.0


# =============================================================================================== linkage

#: The releases of lesson 01's quasi-identifiers (age, town) that the lesson compares, finest first, as
#: ``(age_band, keep_town)``: ``age_band`` 1 keeps the exact age, w > 1 releases the w-year band
#: [w·⌊age/w⌋, w·⌊age/w⌋ + w − 1] instead, 0 suppresses the age; ``keep_town`` False suppresses the town.
GENERALISATIONS: tuple[tuple[int, bool], ...] = ((1, True), (5, True), (10, True), (20, True), (1, False),
                                                 (10, False))

#: People one linkage call takes: its work is sorting n keys (10⁶ of them take well under a second).
LINKAGE_PEOPLE = Cap(1_000_000, "the people of one linkage call")


def _check_ages(value, name: str, n: int | None = None) -> np.ndarray:
    arr = check_real_array(value, name, ndim=1)
    LINKAGE_PEOPLE.check(arr.size, f"len({name})")
    if np.any((arr < AGE.low) | (arr > AGE.high) | (arr != np.floor(arr))):
        raise ValueError(f"{name} is not allowed: must hold whole numbers of years in [{AGE.low}, {AGE.high}].")
    if n is not None and arr.size != n:
        raise ValueError(f"{name} has {arr.size} values, which is not allowed: must have {n} (one per person).")
    return arr.astype(np.int64)


def _town_codes(value, name: str, n: int) -> np.ndarray:
    """Integer codes of ``n`` town labels (strings or integers), equal codes for equal labels."""
    if isinstance(value, (str, bytes)) or np.ndim(value) == 0 and not isinstance(value, (list, tuple)):
        raise _fail(name, value, "a sequence of town names (strings) or integer codes, one per person")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        raise ValueError(f"{name} could not be read as a sequence of town labels (it is ragged or mixed).") from None
    if arr.ndim != 1 or arr.size != n:
        raise ValueError(f"{name} has shape {arr.shape}, which is not allowed: must be {n} labels (one per person).")
    if arr.dtype.kind == "O" and all(isinstance(v, str) for v in arr.tolist()):
        arr = arr.astype(str)
    if arr.dtype.kind not in "Uiu":
        raise _fail(name, _short(value), "town names (strings) or integer codes, one per person")
    return np.unique(arr, return_inverse=True)[1].astype(np.int64).ravel()


def _check_generalisation(age_band, keep_town) -> tuple[int, bool]:
    w = AGE.check(age_band, "age_band")
    return w, _check_flag(keep_town, "keep_town")


def _keys(ages: np.ndarray, towns: np.ndarray, w: int, keep_town: bool, num_towns: int) -> np.ndarray:
    """One integer per person: equal exactly when the released (generalised) quasi-identifiers are equal (town
    codes are in [0, num_towns))."""
    band = ages // w if w > 0 else np.zeros_like(ages)
    return band * num_towns + towns if keep_town else band


def _classes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(unique keys, first row of each class, class of each row, size of each class)."""
    uniq, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    return uniq, first, inverse.ravel(), counts


def quasi_identifier_classes(ages, towns, age_band: int = 1, keep_town: bool = True) -> np.ndarray:
    """The equivalence class of each person in a release of (age, town) generalised as ``age_band`` /
    ``keep_town`` (see :data:`GENERALISATIONS`): two people are in the same class exactly when their released
    quasi-identifiers are equal (Sweeney 2002). Classes are numbered 0, 1, … in the order of their released values.

    Parameters
    ----------
    ages : array of whole numbers in [0, 150], at most :data:`LINKAGE_PEOPLE`
    towns : sequence of town names or integer codes, one per person
    age_band : int
        1 exact age, w > 1 bands of w years, 0 age suppressed (0 ≤ age_band ≤ 150).
    keep_town : bool
        False suppresses the town.
    """
    a = _check_ages(ages, "ages")
    t = _town_codes(towns, "towns", a.size)
    w, keep = _check_generalisation(age_band, keep_town)
    return _classes(_keys(a, t, w, keep, int(t.max()) + 1))[2]


def k_anonymity(ages, towns, age_band: int = 1, keep_town: bool = True) -> int:
    """The k of k-anonymity: the size of the smallest equivalence class, i.e. the largest k such that every
    released combination of quasi-identifiers is shared by at least k rows (Sweeney 2002). k = 1: someone is unique.
    Arguments as :func:`quasi_identifier_classes`."""
    a = _check_ages(ages, "ages")
    t = _town_codes(towns, "towns", a.size)
    w, keep = _check_generalisation(age_band, keep_town)
    return int(_classes(_keys(a, t, w, keep, int(t.max()) + 1))[3].min())


def _cell_probabilities(w: int, keep_town: bool) -> np.ndarray:
    """P[a synthetic person's released quasi-identifiers take each value]: ages uniform on 20..79, towns uniform."""
    ages = np.arange(_AGE_LOW, _AGE_HIGH)
    bands = ages // w if w > 0 else np.zeros_like(ages)
    p = np.unique(bands, return_counts=True)[1] / ages.size
    return np.repeat(p, len(_TOWNS)) / len(_TOWNS) if keep_town else p


def expected_unique_fraction(n: int, age_band: int = 1, keep_town: bool = True) -> float:
    """Expected fraction of the n people of :func:`synthetic_table` who are unique on their released
    quasi-identifiers, exactly: Σ_c p_c·(1 − p_c)^{n−1} over the released values c, p_c = P[a person has value c]
    (a person is unique when each of the other n − 1 independent people has another value). With exact age and town,
    180 equally likely values: (179/180)^{n−1}. Computed as exp((n − 1)·log1p(−p_c)).

    Parameters
    ----------
    n : int
        People in the release, 1 ≤ n ≤ 10⁹.
    age_band, keep_town
        The release, as in :func:`quasi_identifier_classes`.
    """
    n = check_integer(n, "n", minimum=1, maximum=10**9)
    w, keep = _check_generalisation(age_band, keep_town)
    p = _cell_probabilities(w, keep)
    with np.errstate(divide="ignore"):  # p = 1 (everything suppressed): log1p(−1) = −inf, e^(−inf) = 0 (n > 1)
        tail = np.exp((n - 1) * np.log1p(-p)) if n > 1 else np.ones_like(p)
    return float(np.sum(p * tail))


def voter_roll(n: int, coverage: float, rng=None) -> np.ndarray:
    """Who is on the public register (e.g. a voter roll): exactly round(coverage·n) of the n people (half rounded
    up), chosen uniformly at random from ``rng``. A boolean array of length n.

    Parameters
    ----------
    n : int
        People, 1 ≤ n ≤ 10⁶ (:data:`LINKAGE_PEOPLE`).
    coverage : float
        Fraction listed, 0 ≤ coverage ≤ 1.
    """
    n = check_integer(n, "n", minimum=1, maximum=LINKAGE_PEOPLE.limit)
    c = check_probability(coverage, "coverage")
    listed = min(n, math.floor(c * n + 0.5))
    out = np.zeros(n, dtype=bool)
    out[as_rng(rng).choice(n, size=listed, replace=False)] = True
    return out


@dataclasses.dataclass(frozen=True)
class LinkageResult:
    """A linkage attack on one release (see :func:`linkage_attack`); arrays have one entry per person (= release
    row, in the order given) and are read-only.

    Attributes
    ----------
    age_band, keep_town
        The release's generalisation of (age, town).
    classes : (n,) int array
        Equivalence class of each row (equal released quasi-identifiers).
    class_size : (n,) int array
        Rows in each row's class.
    on_register : (n,) bool array
        Who the public register lists by name.
    linked_row : (n,) int array
        For a listed person whose released quasi-identifiers match exactly one row: that row (the attacker puts the
        name on it); −1 otherwise.
    inferred : (n,) int array
        For a listed person: the sensitive value the attacker reads off the release, from the linked row or, when
        several rows match, from all of them when they agree; −1 when unknown or not listed.
    """

    age_band: int
    keep_town: bool
    classes: np.ndarray
    class_size: np.ndarray
    on_register: np.ndarray
    linked_row: np.ndarray
    inferred: np.ndarray

    def __post_init__(self):
        w, keep = _check_generalisation(self.age_band, self.keep_town)
        classes = check_real_array(self.classes, "classes", ndim=1)
        n = classes.size
        LINKAGE_PEOPLE.check(n, "len(classes)")
        if np.any(classes < 0) or np.any(classes != np.floor(classes)):
            raise ValueError("classes is not allowed: must be class numbers >= 0.")
        size = check_real_array(self.class_size, "class_size", ndim=1)
        if size.size != n or np.any(size < 1) or np.any(size > n) or np.any(size != np.floor(size)):
            raise ValueError(f"class_size is not allowed: must be {n} whole numbers in [1, {n}].")
        reg = _check_bits(self.on_register, "on_register", size=n).astype(bool)
        linked = check_real_array(self.linked_row, "linked_row", ndim=1)
        if linked.size != n or np.any(linked < -1) or np.any(linked >= n) or np.any(linked != np.floor(linked)):
            raise ValueError(f"linked_row is not allowed: must be {n} row numbers in [-1, {n - 1}].")
        inferred = check_real_array(self.inferred, "inferred", ndim=1)
        if inferred.size != n or not np.all(np.isin(inferred, (-1, 0, 1))):
            raise ValueError(f"inferred is not allowed: must be {n} values, each -1 (unknown), 0 or 1.")
        object.__setattr__(self, "age_band", w)
        object.__setattr__(self, "keep_town", keep)
        for name, arr, dtype in (("classes", classes, np.int64), ("class_size", size, np.int64),
                                 ("on_register", reg, bool), ("linked_row", linked, np.int64),
                                 ("inferred", inferred, np.int8)):
            object.__setattr__(self, name, _frozen(arr.astype(dtype)))

    @property
    def n(self) -> int:
        return int(self.classes.size)

    @property
    def k(self) -> int:
        """k-anonymity's measure: the smallest class (Sweeney 2002)."""
        return int(self.class_size.min())

    @property
    def unique(self) -> np.ndarray:
        """Rows no other row shares its released quasi-identifiers with (class of size 1)."""
        return self.class_size == 1

    @property
    def reidentified(self) -> np.ndarray:
        """Listed people the attacker links to exactly one row."""
        return self.linked_row >= 0

    @property
    def disclosed(self) -> np.ndarray:
        """Listed people whose sensitive value the attacker reads off the release (re-identified, or in a class
        whose rows all have the same value)."""
        return self.inferred >= 0

    @property
    def unique_fraction(self) -> float:
        return float(np.mean(self.unique))

    @property
    def reidentified_fraction(self) -> float:
        return float(np.mean(self.reidentified))

    @property
    def disclosed_fraction(self) -> float:
        return float(np.mean(self.disclosed))


def linkage_attack(ages, towns, sensitive, on_register, age_band: int = 1, keep_town: bool = True) -> LinkageResult:
    """Re-identify a release without names by joining it with a public register on the quasi-identifiers (the
    linkage attack of Sweeney 2002, §1).

    The release has one row per person: (age, town) generalised as ``age_band`` / ``keep_town`` (see
    :data:`GENERALISATIONS`) and the ``sensitive`` 0/1 value; no names. The register lists, by name, the people of
    ``on_register`` with their exact age and town (a voter roll); every listed person is in the release (as in a
    census or a register-based survey). For each listed person the attacker generalises their age and town the same
    way and looks the result up among the release's rows:

    * exactly one row matches: the attacker puts the name on that row and reads its sensitive value
      (**re-identification**; these are the people unique on the released quasi-identifiers);
    * several rows match and all have the same sensitive value: the attacker reads that value without knowing the row
      (**attribute disclosure** through a homogeneous class: what k-anonymity, which only counts rows, does not
      prevent);
    * otherwise nothing certain.

    Exact (a join, no sampling). Arguments as :func:`quasi_identifier_classes`, plus ``sensitive`` and
    ``on_register``: 0/1 (or False/True) arrays with one value per person.
    """
    a = _check_ages(ages, "ages")
    n = a.size
    t = _town_codes(towns, "towns", n)
    s = _check_bits(sensitive, "sensitive", size=n)
    reg = _check_bits(on_register, "on_register", size=n).astype(bool)
    w, keep = _check_generalisation(age_band, keep_town)
    return _linkage(a, t, s, reg, w, keep)


def _linkage(a, t, s, reg, w, keep) -> LinkageResult:
    num_towns = int(t.max()) + 1
    release_keys = _keys(a, t, w, keep, num_towns)
    uniq, first, row_class, counts = _classes(release_keys)
    ones = np.bincount(row_class, weights=s, minlength=uniq.size)  # rows with value 1 in each class
    listed = np.flatnonzero(reg)
    # the attacker's side: generalise each listed person's own (age, town) and look it up among the release's values
    wanted = _keys(a[listed], t[listed], w, keep, num_towns) if listed.size else np.zeros(0, dtype=np.int64)
    cls = np.searchsorted(uniq, wanted)
    found = (cls < uniq.size) & (uniq[np.minimum(cls, uniq.size - 1)] == wanted)
    linked = np.full(a.size, -1, dtype=np.int64)
    inferred = np.full(a.size, -1, dtype=np.int8)
    c = cls[found]
    who = listed[found]
    one = counts[c] == 1
    linked[who[one]] = first[c[one]]
    agree = (ones[c] == 0) | (ones[c] == counts[c])
    inferred[who[agree]] = (ones[c[agree]] > 0).astype(np.int8)
    return LinkageResult(age_band=w, keep_town=keep, classes=row_class, class_size=counts[row_class],
                         on_register=reg, linked_row=linked, inferred=inferred)


def linkage_by_generalisation(ages, towns, sensitive, on_register,
                              generalisations=GENERALISATIONS) -> tuple[LinkageResult, ...]:
    """:func:`linkage_attack` for each ``(age_band, keep_town)`` of ``generalisations`` (default: the lesson's
    :data:`GENERALISATIONS`, finest first): how coarsening the quasi-identifiers changes who is unique, who is
    re-identified, the k of k-anonymity, and who is still disclosed. At most 20 generalisations."""
    a = _check_ages(ages, "ages")
    n = a.size
    t = _town_codes(towns, "towns", n)
    s = _check_bits(sensitive, "sensitive", size=n)
    reg = _check_bits(on_register, "on_register", size=n).astype(bool)
    if isinstance(generalisations, (str, bytes)) or not hasattr(generalisations, "__len__"):
        raise _fail("generalisations", generalisations, "a sequence of (age_band, keep_town) pairs")
    if not 1 <= len(generalisations) <= 20:
        raise ValueError(f"generalisations has {len(generalisations)} entries, which is not allowed: must have 1 "
                         "to 20 (age_band, keep_town) pairs.")
    levels = []
    for g in generalisations:
        if not isinstance(g, (tuple, list)) or len(g) != 2:
            raise _fail("generalisations", _short(generalisations), "a sequence of (age_band, keep_town) pairs")
        levels.append(_check_generalisation(*g))
    return tuple(_linkage(a, t, s, reg, w, keep) for w, keep in levels)


# =============================================================================================== reconstruction

#: The query matrix (n · num_queries entries) the reconstruction attack builds: 4·10⁶ doubles are 32 MB.
RECONSTRUCTION_CELLS = Cap(4_000_000, "the entries n·num_queries of the query matrix")
#: The work of one call, counted as trials · n · num_queries · min(n, num_queries) (the multiply-adds of the
#: normal equations, once per draw): 8·10⁹ is one attack at n = num_queries = 2000, a few seconds.
RECONSTRUCTION_WORK = Cap(8_000_000_000, "the work trials·n·num_queries·min(n, num_queries) of one call")
#: A noise bound E in [0, 10¹⁵]: far beyond the ≈ √n at which the attack already fails (n ≤ 2000), and small enough
#: that the answers A·s + E·u and the least-squares solve stay far inside the double range.
NOISE_BOUND = Interval(0.0, 1e15)
#: The secret's bits n of a reconstruction attack.
RECONSTRUCTION_N = Interval(1, 2000, integer=True)
#: Trials of :func:`reconstruction_curve`.
TRIALS = Interval(1, 100, integer=True)
#: Noise bounds of one :func:`reconstruction_curve`.
NOISE_SCALES = Cap(10_000, "the noise bounds of one curve")


def _check_reconstruction(n, num_queries) -> tuple[int, int]:
    n = RECONSTRUCTION_N.check(n, "n")
    m = check_integer(num_queries, "num_queries", minimum=1, maximum=RECONSTRUCTION_CELLS.limit)
    RECONSTRUCTION_CELLS.check(n * m, f"n·num_queries = {n}·{m}")
    return n, m


def _check_noise_bound(value, name: str) -> float:
    return NOISE_BOUND.check(value, name)


def _draw(n: int, m: int, g: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One instance, in this order: the secret bits s (n), the query matrix A (m × n, each person in each query
    with probability ½) and the noise pattern u (m values uniform on [−1, 1]); the noise is E·u."""
    secret = g.integers(0, 2, size=n).astype(np.int8)
    queries = g.integers(0, 2, size=(m, n)).astype(np.int8)
    pattern = g.uniform(-1.0, 1.0, size=m)
    return secret, queries, pattern


def _least_squares(queries: np.ndarray, answers: np.ndarray) -> np.ndarray:
    """x̂ = argmin ‖A x − y‖₂ for one or several right-hand sides y, the minimum-norm one when several minimise.

    A of full column rank (m ≥ n): the normal equations AᵀA x = Aᵀy. A of full row rank (m < n): the minimum-norm
    solution x = Aᵀz, AAᵀz = y. Full rank is checked by the Cholesky factorisation of the Gram matrix, which of a 0/1
    matrix has integer entries ≤ max(m, n) < 2²⁴ and is computed exactly in single precision (half the time of
    double); the solves are ~5x faster than ``numpy.linalg.lstsq``'s SVD at n = 500, m = 2500. A rank-deficient A
    falls back to ``numpy.linalg.lstsq`` (the minimum-norm least-squares solution).
    """
    m, n = queries.shape
    a32 = queries.astype(np.float32)
    gram = (a32.T @ a32 if m >= n else a32 @ a32.T).astype(float)
    try:
        factor = linalg.cho_factor(gram, check_finite=False)
    except linalg.LinAlgError:
        return np.linalg.lstsq(queries.astype(float), answers, rcond=None)[0]
    y = np.asarray(answers, dtype=float)
    a64 = queries.astype(float)
    if m >= n:
        return linalg.cho_solve(factor, a64.T @ y, check_finite=False)
    return a64.T @ linalg.cho_solve(factor, y, check_finite=False)


def _round_bits(x: np.ndarray) -> np.ndarray:
    return (x >= 0.5).astype(np.int8)


@dataclasses.dataclass(frozen=True)
class ReconstructionResult:
    """One run of the reconstruction attack (arrays are read-only; the fields are checked for shape and range).

    Attributes
    ----------
    secret : (n,) array of 0/1
        The secret bit of each of the n people.
    queries : (num_queries, n) array of 0/1
        Row j is the subset asked in query j ("how many people in this subset have bit 1?").
    true_answers : (num_queries,) array
        The exact subset sums A·s.
    noisy_answers : (num_queries,) array
        The release: A·s plus independent noise uniform on [−E, E], E = ``noise_scale``.
    estimate : (n,) array of 0/1
        The decoder's reconstruction (least squares, rounded at ½).
    recovered_fraction : float
        Fraction of people whose bit the attack got right (½ is chance).
    noise_scale : float
        E, the bound on each answer's noise.
    """

    secret: np.ndarray
    queries: np.ndarray
    true_answers: np.ndarray
    noisy_answers: np.ndarray
    estimate: np.ndarray
    recovered_fraction: float
    noise_scale: float

    def __post_init__(self):
        secret = _check_bits(self.secret, "secret")
        queries = _check_bits(self.queries, "queries", ndim=2)
        m, n = queries.shape
        if n != secret.size:
            raise ValueError(f"queries has {n} columns, which is not allowed: must have one per person "
                             f"({secret.size}).")
        _check_reconstruction(n, m)
        true = check_real_array(self.true_answers, "true_answers", ndim=1)
        noisy = check_real_array(self.noisy_answers, "noisy_answers", ndim=1)
        if true.size != m or noisy.size != m:
            raise ValueError(f"true_answers and noisy_answers are not allowed with {m} queries: must have {m} values "
                             "each.")
        estimate = _check_bits(self.estimate, "estimate", size=n)
        frac = _check_fraction_field(self.recovered_fraction, "recovered_fraction")
        e = _check_noise_bound(self.noise_scale, "noise_scale")
        for name, v in (("secret", secret), ("queries", queries), ("true_answers", true), ("noisy_answers", noisy),
                        ("estimate", estimate)):
            object.__setattr__(self, name, _frozen(v))
        object.__setattr__(self, "recovered_fraction", frac)
        object.__setattr__(self, "noise_scale", e)

    @property
    def n(self) -> int:
        return int(self.secret.size)

    @property
    def num_queries(self) -> int:
        return int(self.true_answers.size)


def reconstruction_attack(n: int, num_queries: int, noise_scale: float, rng=None) -> ReconstructionResult:
    """The reconstruction attack of Dinur & Nissim 2003 on a random secret bit vector, with a least-squares decoder.

    Data: a secret s ∈ {0, 1}ⁿ, each bit a fair coin. Queries: ``num_queries`` random subsets (each person in each
    subset independently with probability ½), answered as subset sums with **bounded noise**: each answer is
    A·s plus an independent draw uniform on [−E, E], E = ``noise_scale``. Dinur & Nissim bound the noise magnitude
    by E but let an adversary choose it: they show that E = o(√n) lets a polynomial-time attacker with O(n log² n)
    random queries recover all but o(n) bits by LP decoding, whatever the errors (Dinur & Nissim 2003, the
    polynomial-time attack; Dwork & Roth 2014, §8.1). The errors here are random, the easy case.

    Decoder: least squares, x̂ = argmin ‖A x − y‖₂ (see :func:`_least_squares`), rounded at ½. This is a practical,
    fast stand-in for Dinur & Nissim's linear-programming decoder; its error per bit is about
    2E/√(3(m − n)) (:func:`least_squares_error_sd`), so it succeeds when E is well below √(m − n) and falls to
    chance (½) when E is well above. With m ≤ n the queries cannot determine every bit, whatever the noise.

    Parameters
    ----------
    n : int
        Number of people, 1 ≤ n ≤ 2000.
    num_queries : int
        Number of subset-sum queries m ≥ 1, with n · m ≤ :data:`RECONSTRUCTION_CELLS`.
    noise_scale : float
        E, 0 ≤ E ≤ :data:`NOISE_BOUND`: each answer is off by at most E.
    rng : numpy Generator or int seed
        Draws, in this order, the secret, the queries and the noise.

    Returns
    -------
    ReconstructionResult
    """
    n, m = _check_reconstruction(n, num_queries)
    e = _check_noise_bound(noise_scale, "noise_scale")
    secret, queries, pattern = _draw(n, m, as_rng(rng))
    true = queries.astype(float) @ secret.astype(float)  # integer sums ≤ m: exact in double
    noisy = true + e * pattern
    estimate = _round_bits(_least_squares(queries, noisy))
    return ReconstructionResult(secret=secret, queries=queries, true_answers=true, noisy_answers=noisy,
                                estimate=estimate, recovered_fraction=float(np.mean(estimate == secret)),
                                noise_scale=e)


def least_squares_error_sd(n: int, num_queries: int, noise_scale: float) -> float:
    """About how far least squares lands from each secret bit (its standard deviation) in
    :func:`reconstruction_attack`: **≈ 2E/√(3(m − n))** = 2E/√(3m)·(1 − n/m)^{−1/2}, m = ``num_queries`` > n.

    Derivation (an approximation): each error is uniform on [−E, E], with variance E²/3; a random group holds each
    person with probability ½, so after subtracting the average group each person's coefficient is ±½, of variance
    ¼, and m answers pin each bit with variance ≈ (E²/3)/(m/4), i.e. 2E/√(3m), for m ≫ n. With m only a few times n
    the fit of n unknowns uses up part of the answers and the variance is larger by about the finite-aspect-ratio
    factor 1/(1 − n/m) (for a Gaussian design exactly m/(m − n − 1), the mean of an inverse Wishart matrix).
    :func:`exact_least_squares_error_sd` gives the exact value for one query matrix (at n = 100, m = 500: ≈ 0.057·E
    over random groups, this formula 0.058·E, 2E/√(3m) 0.052·E).

    Parameters
    ----------
    n : int
        People, 1 ≤ n ≤ 2000.
    num_queries : int
        Queries m, n < m, n · m ≤ :data:`RECONSTRUCTION_CELLS` (with m ≤ n the answers do not pin every bit
        down, whatever the noise: refused).
    noise_scale : float
        E, 0 ≤ E ≤ :data:`NOISE_BOUND`.
    """
    n, m = _check_reconstruction(n, num_queries)
    e = _check_noise_bound(noise_scale, "noise_scale")
    if m <= n:
        raise ValueError(f"num_queries = {num_queries!r} is not allowed with n = {n}: must be > n (with m <= n the "
                         "answers do not pin every bit down, whatever the noise).")
    return 2.0 * e / math.sqrt(3.0 * (m - n))


def exact_least_squares_error_sd(queries, noise_scale: float) -> float:
    """The exact standard deviation of the least-squares estimate of a bit, root-mean-square over the n bits, for
    one query matrix A (m × n, 0/1, full column rank) and errors uniform on [−E, E]:

        √( (E²/3) · mean_i [(AᵀA)⁻¹]_ii )

    (the estimate is x̂ = s + (AᵀA)⁻¹Aᵀe, and the m errors are independent with variance E²/3). Compare the
    approximation :func:`least_squares_error_sd`.

    Parameters
    ----------
    queries : (m, n) array of 0/1
        A query matrix, e.g. ``reconstruction_attack(...).queries``; n ≤ 2000, n · m ≤
        :data:`RECONSTRUCTION_CELLS`, of rank n.
    noise_scale : float
        E, 0 ≤ E ≤ :data:`NOISE_BOUND`.
    """
    a = _check_bits(queries, "queries", ndim=2)
    m, n = a.shape
    if a.size == 0:
        raise ValueError("queries is empty, which is not allowed: must be an m × n matrix with m >= n >= 1.")
    _check_reconstruction(n, m)
    e = _check_noise_bound(noise_scale, "noise_scale")
    a32 = a.astype(np.float32)
    gram = (a32.T @ a32).astype(float)
    try:
        factor = linalg.cho_factor(gram, check_finite=False)
    except linalg.LinAlgError:
        raise ValueError(f"queries is not allowed: its {m} rows must determine all {n} bits (rank n), and they do "
                         "not.") from None
    diag = np.diag(linalg.cho_solve(factor, np.eye(n), check_finite=False))
    return float(e * math.sqrt(float(np.mean(diag)) / 3.0))


@dataclasses.dataclass(frozen=True)
class ReconstructionCurve:
    """Fraction of bits recovered against the noise bound E (Monte Carlo over ``trials`` draws; see
    :func:`reconstruction_curve`). ``per_trial`` has shape (trials, len(noise_scales)). Fields are checked."""

    noise_scales: np.ndarray
    recovered_fraction: np.ndarray
    per_trial: np.ndarray
    n: int
    num_queries: int
    trials: int

    def __post_init__(self):
        n, m = _check_reconstruction(self.n, self.num_queries)
        t = check_integer(self.trials, "trials", minimum=1, maximum=100)
        es = _check_noise_scales(self.noise_scales)
        frac = check_real_array(self.recovered_fraction, "recovered_fraction", ndim=1)
        per = check_real_array(self.per_trial, "per_trial", ndim=2)
        if frac.shape != es.shape or per.shape != (t, es.size):
            raise ValueError(f"recovered_fraction and per_trial are not allowed: must have shapes ({es.size},) and "
                             f"({t}, {es.size}) for {t} trials at {es.size} noise bounds.")
        if np.any((frac < 0) | (frac > 1)) or np.any((per < 0) | (per > 1)):
            raise ValueError("recovered_fraction and per_trial are not allowed: must be fractions in [0, 1].")
        for name, v in (("noise_scales", es), ("recovered_fraction", frac), ("per_trial", per)):
            object.__setattr__(self, name, _frozen(v))
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "num_queries", m)
        object.__setattr__(self, "trials", t)

    @property
    def sqrt_n(self) -> float:
        return math.sqrt(self.n)


def _check_noise_scales(value) -> np.ndarray:
    es = check_real_array(value, "noise_scales", ndim=1)
    bad = (es < NOISE_BOUND.low) | (es > NOISE_BOUND.high)
    if np.any(bad):
        NOISE_BOUND.check(float(es[bad][0]), "noise_scales")
    NOISE_SCALES.check(es.size, "len(noise_scales)")
    return es.astype(float)


def reconstruction_curve(n: int, num_queries: int, noise_scales, *, trials: int = 4, rng=None,
                         progress: Callable[[float], None] | None = None) -> ReconstructionCurve:
    """Mean fraction of bits the attack of :func:`reconstruction_attack` recovers, at each noise bound E.

    **Monte Carlo**: ``trials`` independent draws of (secret, queries, noise pattern u) from ``rng``; within a draw
    the noise at bound E is E·u (the same pattern at every E: common random numbers, so the curve is smooth and
    monotone in the trend). For a fixed draw the fraction is computed exactly at every E, because the least-squares
    estimate is linear in the answers: x̂(E) = A⁺(A s) + E·A⁺u (one solve per draw). Draw t uses the generator
    exactly as the t-th consecutive call ``reconstruction_attack(n, num_queries, E, g)`` would.

    Caps: 1 ≤ trials ≤ 100, at most 10,000 noise bounds in :data:`NOISE_BOUND`, and
    trials · n · m · min(n, m) ≤ :data:`RECONSTRUCTION_WORK`. ``progress(fraction)`` is called after each draw
    (for a progress bar).
    """
    n, m = _check_reconstruction(n, num_queries)
    t = TRIALS.check(trials, "trials")
    RECONSTRUCTION_WORK.check(t * n * m * min(n, m), f"trials·n·num_queries·min(n, num_queries) = {t}·{n}·{m}·"
                                                     f"{min(n, m)}")
    es = _check_noise_scales(noise_scales)
    if progress is not None and not callable(progress):
        raise _fail("progress", progress, "None or a function of one number")
    g = as_rng(rng)
    per = np.empty((t, es.size))
    for k in range(t):
        secret, queries, pattern = _draw(n, m, g)
        true = queries.astype(float) @ secret.astype(float)
        base, slope = _least_squares(queries, np.column_stack([true, pattern])).T
        est = _round_bits(base[None, :] + es[:, None] * slope[None, :])
        per[k] = np.mean(est == secret[None, :], axis=1)
        if progress is not None:
            progress((k + 1) / t)
    return ReconstructionCurve(noise_scales=es, recovered_fraction=per.mean(axis=0), per_trial=per, n=n,
                               num_queries=m, trials=t)


# =============================================================================================== membership

#: Noise options of :func:`membership_tradeoff`.
MEMBERSHIP_NOISES = ("none", "laplace", "gaussian")
#: People n of the membership test.
MEMBERSHIP_N = Interval(1, 10_000, integer=True)
_THRESHOLD_BLOCK = 512  # thresholds evaluated at a time: bounds the (thresholds × counts) block to ~4 MB


@dataclasses.dataclass(frozen=True)
class MembershipTradeoff:
    """The most powerful membership test's errors: ``alpha`` (type I error = false-positive rate, saying "member"
    when the target is absent) and ``beta`` (type II error = 1 − true-positive rate), both sorted by α from 0 to 1.
    ``epsilon`` is the pure-DP ε = 1/b of the Laplace release (∞ without noise, None for Gaussian); ``mu`` the GDP
    parameter 1/σ of the Gaussian release (None otherwise). The released count has sensitivity 1 (replace one).
    The fields are checked (α ascending and β descending in [0, 1], the parameters in their ranges)."""

    alpha: np.ndarray
    beta: np.ndarray
    n: int
    p: float
    noise: str
    scale: float
    epsilon: float | None
    mu: float | None

    def __post_init__(self):
        alpha = check_real_array(self.alpha, "alpha", ndim=1)
        beta = check_real_array(self.beta, "beta", ndim=1)
        if alpha.size < 2 or beta.shape != alpha.shape:
            raise ValueError("alpha and beta are not allowed: must be two arrays of the same length >= 2.")
        if np.any((alpha < 0) | (alpha > 1)) or np.any((beta < 0) | (beta > 1)):
            raise ValueError("alpha and beta are not allowed: must be error rates in [0, 1].")
        n = MEMBERSHIP_N.check(self.n, "n")
        p = check_probability(self.p, "p", open_low=True, open_high=True)
        noise = check_choice(self.noise, "noise", MEMBERSHIP_NOISES)
        sc = check_in_range(self.scale, "scale", 0.0, 1e4)
        eps = self.epsilon if self.epsilon is None else check_positive(self.epsilon, "epsilon", allow_inf=True)
        mu = self.mu if self.mu is None else check_positive(self.mu, "mu", allow_inf=True)
        object.__setattr__(self, "alpha", _frozen(alpha))
        object.__setattr__(self, "beta", _frozen(beta))
        for name, v in (("n", n), ("p", p), ("noise", noise), ("scale", sc), ("epsilon", eps), ("mu", mu)):
            object.__setattr__(self, name, v)

    @property
    def tpr(self) -> np.ndarray:
        return 1.0 - self.beta

    def advantage(self) -> float:
        """max over tests of TPR − FPR = max(1 − β − α): 0 for a coin flip, 1 for certainty."""
        return float(np.max(1.0 - self.beta - self.alpha))


def _laplace_sf(x: np.ndarray, b: float) -> np.ndarray:
    """P[Lap(b) > x]: ½e^{−x/b} for x ≥ 0, 1 − ½e^{x/b} below (Dwork & Roth 2014, Def. 3.3 integrated)."""
    with np.errstate(over="ignore"):  # |x|/b beyond the float range (tiny b): +inf, capped at 745 (e^−745 = 0)
        z = np.minimum(np.abs(x) / b, 745.0)
    half = 0.5 * np.exp(-z)
    return np.where(x >= 0, half, 1.0 - half)


def _gaussian_sf(x: np.ndarray, sigma: float) -> np.ndarray:
    """P[N(0, σ²) > x] = Φ(−x/σ); x/σ beyond the float range (tiny σ) is ±inf, where Φ is exactly 0 or 1."""
    with np.errstate(over="ignore"):
        return special.ndtr(-x / sigma)


def membership_tradeoff(n: int, p: float, *, noise: str = "none", scale: float = 1.0,
                        num_points: int = 400) -> MembershipTradeoff:
    """Exact errors of the optimal membership test against a released count (equivalently the mean) of n bits.

    Model (replace-one neighbours): the target has bit 1. H₀ "not in the data": the n people are drawn from a
    population where a bit is 1 with probability p, so the count S ~ Bin(n, p). H₁ "in the data": the target plus
    n − 1 drawn people, S ~ 1 + Bin(n − 1, p). The release is S, S + Lap(b) (``noise="laplace"``, ``scale`` = b;
    (1/b)-DP) or S + N(0, σ²) (``"gaussian"``, ``scale`` = σ; μ-GDP with μ = 1/σ by Dong, Roth & Su 2022, Thm 2.7).

    The likelihood ratio P₁(s)/P₀(s) = s/(np) grows with s, and adding Laplace or Gaussian noise (log-concave
    densities) keeps it monotone, so the most powerful tests are thresholds on the release (Neyman–Pearson lemma;
    randomised at the threshold for the noiseless, discrete release). Without noise the curve is exact: the
    vertices of the randomised tests joined by straight lines. With noise, α and β are exact (binomial pmfs of
    :data:`scipy.stats.binom` times the noise tail) at ``num_points`` thresholds spanning ±9 standard
    deviations, plus the end points (0, 1) and (1, 0); joining them by chords (randomised tests) lies at most a
    hair above the true convex curve. The thresholds are evaluated in blocks, so memory stays a few MB at the caps.

    Parameters
    ----------
    n : int
        People in the released statistic, 1 ≤ n ≤ 10000.
    p : float
        Population rate of the bit, 0 < p < 1.
    noise : {"none", "laplace", "gaussian"}
    scale : float
        b (Laplace) or σ (Gaussian) of the noise on the count, 0 < scale ≤ 10⁴; ignored for ``"none"``.
    num_points : int
        Thresholds for a noisy release, 10 ≤ num_points ≤ 10000.
    """
    n = MEMBERSHIP_N.check(n, "n")
    p = check_probability(p, "p", open_low=True, open_high=True)
    noise = check_choice(noise, "noise", MEMBERSHIP_NOISES)
    k = check_integer(num_points, "num_points", minimum=10, maximum=10_000)
    s = np.arange(n + 1)
    p0 = stats.binom.pmf(s, n, p)
    p1 = np.zeros(n + 1)
    p1[1:] = stats.binom.pmf(s[:-1], n - 1, p)
    if noise == "none":
        # reject H₀ when S ≥ t, t = n + 1, n, …, 0: α = P₀(S ≥ t), β = P₁(S < t)
        alpha = np.concatenate([[0.0], np.cumsum(p0[::-1])])
        beta = 1.0 - np.concatenate([[0.0], np.cumsum(p1[::-1])])
        alpha[-1], beta[-1] = 1.0, 0.0  # t = 0 always rejects: exact, whatever the pmf's rounding
        return MembershipTradeoff(alpha=np.clip(alpha, 0, 1), beta=np.clip(beta, 0, 1), n=n, p=p, noise=noise,
                                  scale=0.0, epsilon=math.inf, mu=None)
    sc = check_in_range(scale, "scale", 0.0, 1e4, low_inclusive=False)
    keep = (p0 > 1e-300) | (p1 > 1e-300)
    keep &= (p0 + p1) > 1e-18 * max(p0.max(), p1.max())
    ss, q0, q1 = s[keep].astype(float), p0[keep], p1[keep]
    var = n * p * (1 - p) + (2 * sc * sc if noise == "laplace" else sc * sc)
    sd = math.sqrt(var)
    t = np.linspace(n * p - 9 * sd, n * p + 1 + 9 * sd, k)
    tail = _laplace_sf if noise == "laplace" else _gaussian_sf
    alpha = np.empty(k)
    beta = np.empty(k)
    for lo in range(0, k, _THRESHOLD_BLOCK):
        sf = tail(t[lo:lo + _THRESHOLD_BLOCK, None] - ss[None, :], sc)
        alpha[lo:lo + _THRESHOLD_BLOCK] = sf @ q0
        beta[lo:lo + _THRESHOLD_BLOCK] = 1.0 - sf @ q1
    # thresholds ascend: α falls; present α ascending, with the exact end points
    alpha = np.concatenate([[0.0], alpha[::-1], [1.0]])
    beta = np.concatenate([[1.0], beta[::-1], [0.0]])
    return MembershipTradeoff(alpha=np.clip(alpha, 0, 1), beta=np.clip(beta, 0, 1), n=n, p=p, noise=noise, scale=sc,
                              epsilon=1.0 / sc if noise == "laplace" else None,
                              mu=1.0 / sc if noise == "gaussian" else None)
