"""Randomized Hadamard rotation ("fast Johnson–Lindenstrauss"), the ℓ₂ → ℓ∞ flattening step of both papers.

U = d^{-1/2}·H·D with H the d×d Sylvester–Hadamard matrix (entries ±1, H Hᵀ = d·I) and D = diag(s), s_i iid uniform
on {±1}; U is orthogonal, U⁻¹ = Uᵀ = d^{-1/2}·D·H. Vectors are zero-padded to d_pad = 2^⌈log₂ d⌉ first.

References
----------
Levy et al. 2021, "Learning with User-Level Privacy": Lemma 2 and Algorithm 2.
Esfandiari, Mirrokni & Narayanan 2022, "Tight and Robust Private Mean Estimation with Few Users": §B.3, Lemma 20.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpviz._validation import Cap, Interval, as_rng, check_positive, check_real_array, finite_result

__all__ = [
    "next_power_of_two",
    "fwht",
    "HadamardRotation",
    "random_rotation",
    "lemma2_flattening_bound",
    "hoeffding_flattening_bound",
]

# Parameter specs shared by dpviz.mean (this is its lowest module). Every count that sizes an array (users n,
# samples m, dimension d, trials, draws, copies, queries, bins) is refused above its cap with a ValueError that names
# the cap; counts that only enter closed-form bounds get the looser COUNT, which keeps every product of them exact
# enough in floating point and far from the double range.

#: n, m, d, K, k in closed-form bounds (no allocation): integers in [1, 10¹⁵].
COUNT = Interval(1, 10**15, integer=True)
#: Values one call may allocate in one array (n·m, size·n, size·d, ...): 10⁷ doubles = 80 MB.
ELEMENTS = Cap(10_000_000, "values one call allocates in one array")
#: A count that sizes an array by itself (users n drawn, draws ``size``): 1 ≤ n ≤ :data:`ELEMENTS`.
SIZE = Interval(1, ELEMENTS.limit, integer=True)
#: Copies of DP-Estimate-1 (Algorithm 2 of Esfandiari, Mirrokni & Narayanan 2022) and adaptive queries (Theorem 10
#: of Levy et al. 2021).
REPETITIONS = Interval(1, 10_000, integer=True)
#: Scale-type parameters that get squared or differenced (radii r and R, bounds B, data values): |x| ≤ 1e150, so that
#: squared distances and sums of squares of up to 10⁷ of them stay inside the double range, and ≥ 1e-150 for radii
#: (a ball of radius 5e-324 has a density beyond the double range); :data:`SCALE_OR_ZERO` also takes 0.
MAGNITUDE = 1e150
SCALE = Interval(1.0 / MAGNITUDE, MAGNITUDE)
SCALE_OR_ZERO = Interval(0.0, MAGNITUDE)
#: The half-width factor h of PrivateRange's interval [μ̂ − hτ, μ̂ + hτ] (Algorithm 6 of Levy et al. 2021).
HALF_WIDTH = Interval(0.0, 1e6, open_low=True)
#: The one meaning of each parameter name in the closed forms of dpviz.mean (:func:`check_params`): counts
#: are integers in [1, 10¹⁵], ε, τ, B, σ, r are finite and > 0, δ, γ and α lie in (0, 1), a variance is ≥ 0.
PARAMETERS = {
    **dict.fromkeys(("n", "m", "d", "K", "k"), COUNT),
    **dict.fromkeys(("epsilon", "tau", "bound", "sigma", "r"), Interval(0.0, None, open_low=True)),
    **dict.fromkeys(("delta", "gamma", "alpha"), Interval(0.0, 1.0, open_low=True, open_high=True)),
    "variance": Interval(0.0, None),
}

#: Dimension d of a Hadamard rotation (its d_pad signs are allocated; d_pad = 2^⌈log₂ d⌉ ≤ 2²²).
DIMENSION = Interval(1, 2**22, integer=True)
#: d_pad of :meth:`HadamardRotation.matrix` (a d_pad × d_pad array).
MATRIX_DIMENSION = Cap(4096, "d_pad of a rotation's d_pad × d_pad matrix (use apply())")


def check_params(**values) -> tuple:
    """Check closed-form parameters by name with their :data:`PARAMETERS` spec, in the order given, and return them
    converted: ``n, d, eps = check_params(n=n, d=d, epsilon=epsilon)``."""
    return tuple(PARAMETERS[name].check(value, name) for name, value in values.items())


def data_array(value, name: str, *, ndim=None) -> np.ndarray:
    """A non-empty real finite array whose values satisfy |x| ≤ :data:`MAGNITUDE`."""
    x = check_real_array(value, name, ndim=ndim)
    big = np.abs(x) > MAGNITUDE
    if np.any(big):
        raise ValueError(f"{name} contains {float(x[big].flat[0])!r}, which is not allowed: must hold numbers with "
                         f"|x| <= {MAGNITUDE:g} (squares and sums of squares must stay within the double range).")
    return x


def real_counts(value, name: str) -> np.ndarray:
    """A float array of counts taken as real numbers in [1, 10¹⁵] (the continuous relaxation a map over (n, m)
    draws; integer counts are the same numbers)."""
    x = check_real_array(value, name)
    bad = (x < 1) | (x > COUNT.high)
    if np.any(bad):
        raise ValueError(f"{name} = {float(x[bad].flat[0])!r} is not allowed: must be numbers in [1, {COUNT.high}].")
    return x


def next_power_of_two(d: int) -> int:
    """Smallest power of two ≥ d (Esfandiari, Mirrokni & Narayanan 2022, §B.3, pads to "the largest power of 2 greater
    than d", a slip for "smallest").

    >>> [next_power_of_two(d) for d in (1, 2, 3, 16, 17)]
    [1, 2, 4, 16, 32]
    """
    d = COUNT.check(d, "d")
    return 1 << (d - 1).bit_length()


def fwht(x: np.ndarray) -> np.ndarray:
    """Unnormalised fast Walsh–Hadamard transform along the last axis: returns x·H (H Sylvester, symmetric).

    The last axis length must be a power of two. Cost O(d log d) per vector.

    >>> fwht(np.array([1.0, 0.0, 0.0, 0.0]))
    array([1., 1., 1., 1.])
    >>> fwht(np.array([1.0, 2.0]))
    array([ 3., -1.])
    """
    a = check_real_array(x, "x")
    if a.ndim == 0:
        raise ValueError(f"x = {x!r} is not allowed: must be an array with at least one axis (a vector or rows).")
    d = a.shape[-1]
    if d & (d - 1):
        raise ValueError(f"x has last axis length = {d}, which is not allowed: must be a power of two.")
    with np.errstate(over="ignore"):  # entries near 1e308 can sum to ±inf: the transform's true value overflows
        out = _fwht(a)
    if not np.all(np.isfinite(out)):
        raise ValueError("x is too large, which is not allowed: its transform exceeds the double range "
                         "(must have |x| · length <= 1.8e308).")
    return out


def _fwht(x: np.ndarray) -> np.ndarray:
    """:func:`fwht` on a validated float array whose last axis length is a power of two (no checks)."""
    a = np.array(x, dtype=float, copy=True)
    d = a.shape[-1]
    lead = a.shape[:-1]
    h = 1
    while h < d:
        v = a.reshape(*lead, d // (2 * h), 2, h)
        top = v[..., 0, :] + v[..., 1, :]
        bot = v[..., 0, :] - v[..., 1, :]
        v[..., 0, :] = top
        v[..., 1, :] = bot
        h *= 2
    return a


@dataclass(frozen=True)
class HadamardRotation:
    """The orthogonal map U = d_pad^{-1/2}·H·D acting on zero-padded vectors (Lemma 2 of Levy et al. 2021; Lemma 20 of
    Esfandiari, Mirrokni & Narayanan 2022).

    Parameters
    ----------
    d : int
        Original dimension.
    signs : np.ndarray
        The diagonal of D, shape (d_pad,), entries ±1. Drawn independently of the data (privacy holds for every D).
    """

    d: int
    signs: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "d", DIMENSION.check(self.d, "d"))
        s = check_real_array(self.signs, "signs", ndim=1)
        if s.shape[0] != next_power_of_two(self.d) or not np.all(np.abs(s) == 1):
            raise ValueError(
                f"signs has shape {s.shape}, which is not allowed: "
                f"must be ±1 entries of length {next_power_of_two(self.d)}."
            )
        object.__setattr__(self, "signs", s)

    @property
    def d_pad(self) -> int:
        return int(self.signs.shape[0])

    def apply(self, x: np.ndarray) -> np.ndarray:
        """U·x for each row of x (shape (..., d)); returns shape (..., d_pad)."""
        x = self._rows(x, "x", self.d)
        pad = np.zeros(x.shape[:-1] + (self.d_pad,))
        pad[..., : self.d] = x
        return self._transform(pad * self.signs)

    def invert(self, y: np.ndarray, *, truncate: bool = True) -> np.ndarray:
        """U⁻¹·y = d_pad^{-1/2}·D·H·y for each row; drops the padded coordinates when ``truncate``."""
        y = self._rows(y, "y", self.d_pad)
        out = self._transform(y) * self.signs
        return out[..., : self.d] if truncate else out

    def matrix(self) -> np.ndarray:
        """The d_pad × d_pad matrix U (for teaching and tests; use :meth:`apply` for computation); d_pad ≤ 4096."""
        MATRIX_DIMENSION.check(self.d_pad, f"d_pad of matrix() at d = {self.d}")
        return self.apply_padded(np.eye(self.d_pad)).T

    def apply_padded(self, x: np.ndarray) -> np.ndarray:
        """U·x for rows already of length d_pad."""
        return self._transform(self._rows(x, "x", self.d_pad) * self.signs)

    def _transform(self, a: np.ndarray) -> np.ndarray:
        """d_pad^{-1/2}·H·a along the last axis; a ValueError (not inf) if the result leaves the double range.
        H·a can overflow where U·a does not (‖U a‖₂ = ‖a‖₂): then the scaling is applied first."""
        with np.errstate(over="ignore", invalid="ignore"):
            out = _fwht(a) / math.sqrt(self.d_pad)
            if not np.all(np.isfinite(out)):
                out = _fwht(a / math.sqrt(self.d_pad))
        if not np.all(np.isfinite(out)):
            raise ValueError("x is too large, which is not allowed: its rotation exceeds the double range "
                             "(must have ‖x‖₂ <= 1.8e308).")
        return out

    @staticmethod
    def _rows(x, name: str, length: int) -> np.ndarray:
        x = check_real_array(x, name)
        if x.ndim == 0 or x.shape[-1] != length:
            shape = x.shape[-1] if x.ndim else "none (a scalar)"
            raise ValueError(f"{name} has last dimension {shape}, which is not allowed: must be {length}.")
        return x


def random_rotation(d: int, *, rng=None) -> HadamardRotation:
    """Draw U = d_pad^{-1/2}·H·D with fresh iid uniform ±1 signs (Algorithm 2 of Levy et al. 2021, steps 1–2;
    Esfandiari, Mirrokni & Narayanan 2022, §B.3).

    >>> U = random_rotation(3, rng=0)
    >>> U.d_pad
    4
    >>> bool(np.allclose(U.matrix() @ U.matrix().T, np.eye(4)))
    True
    """
    d = DIMENSION.check(d, "d")
    g = as_rng(rng)
    signs = g.choice(np.array([-1.0, 1.0]), size=next_power_of_two(d))
    return HadamardRotation(d, signs)


def lemma2_flattening_bound(norm: float, n: int, d: int, alpha: float) -> float:
    """Lemma 2 of Levy et al. 2021: max_i ‖U x_i − U x₀‖_∞ ≤ 10·max_i‖x_i − x₀‖₂·√(log(nd/α))/√d w.p. ≥ 1 − α.

    >>> round(lemma2_flattening_bound(1.0, 1, 16, 0.01), 4)
    6.7905
    """
    norm = check_positive(norm, "norm", allow_zero=True)
    n, d, alpha = check_params(n=n, d=d, alpha=alpha)
    log_term = math.log(n) + math.log(d) - math.log(alpha)  # n·d/α overflows for subnormal α
    return finite_result(10.0 * norm * math.sqrt(max(log_term, 0.0) / d), "the bound",
                          norm=norm, n=n, d=d, alpha=alpha)


def hoeffding_flattening_bound(norm: float, n: int, d: int, alpha: float) -> float:
    """Explicit-constant form: ‖U v_i‖_∞ ≤ ‖v_i‖·√(2·log(2nd/α)/d) for all i w.p. ≥ 1 − α.

    Hoeffding per coordinate (a sum of d independent terms ±v_k/√d), union bound over n·d entries
    (derived here; Lemma 20 of Esfandiari, Mirrokni & Narayanan 2022 has an unspecified O(·)).

    >>> round(hoeffding_flattening_bound(1.0, 1, 16, 0.01), 4)
    1.0044
    """
    norm = check_positive(norm, "norm", allow_zero=True)
    n, d, alpha = check_params(n=n, d=d, alpha=alpha)
    log_term = math.log(2.0) + math.log(n) + math.log(d) - math.log(alpha)  # 2nd/α overflows for subnormal α
    return finite_result(norm * math.sqrt(2.0 * log_term / d), "the bound", norm=norm, n=n, d=d, alpha=alpha)
