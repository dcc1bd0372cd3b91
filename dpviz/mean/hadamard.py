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

from dpviz._validation import as_rng, check_positive, check_real_array
from dpviz.mean import _limits

__all__ = [
    "next_power_of_two",
    "fwht",
    "HadamardRotation",
    "random_rotation",
    "lemma2_flattening_bound",
    "hoeffding_flattening_bound",
]


def next_power_of_two(d: int) -> int:
    """Smallest power of two ≥ d (Esfandiari, Mirrokni & Narayanan 2022, §B.3, pads to "the largest power of 2 greater
    than d", a slip for "smallest").

    >>> [next_power_of_two(d) for d in (1, 2, 3, 16, 17)]
    [1, 2, 4, 16, 32]
    """
    d = _limits.count(d, "d")
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
        object.__setattr__(self, "d", _limits.count(self.d, "d", cap=_limits.MAX_DIMENSION))
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
        if self.d_pad > _limits.MAX_MATRIX_DIMENSION:
            raise ValueError(f"d = {self.d} is not allowed for matrix(): must have d_pad <= "
                             f"{_limits.MAX_MATRIX_DIMENSION} (a d_pad × d_pad array); use apply().")
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
    d = _limits.count(d, "d", cap=_limits.MAX_DIMENSION)
    g = as_rng(rng)
    signs = g.choice(np.array([-1.0, 1.0]), size=next_power_of_two(d))
    return HadamardRotation(d, signs)


def lemma2_flattening_bound(norm: float, n: int, d: int, alpha: float) -> float:
    """Lemma 2 of Levy et al. 2021: max_i ‖U x_i − U x₀‖_∞ ≤ 10·max_i‖x_i − x₀‖₂·√(log(nd/α))/√d w.p. ≥ 1 − α.

    >>> round(lemma2_flattening_bound(1.0, 1, 16, 0.01), 4)
    6.7905
    """
    norm = check_positive(norm, "norm", allow_zero=True)
    n, d, alpha = _limits.checked(n=n, d=d, alpha=alpha)
    log_term = math.log(n) + math.log(d) - math.log(alpha)  # n·d/α overflows for subnormal α
    return _limits.finite(10.0 * norm * math.sqrt(max(log_term, 0.0) / d), "the bound",
                          norm=norm, n=n, d=d, alpha=alpha)


def hoeffding_flattening_bound(norm: float, n: int, d: int, alpha: float) -> float:
    """Explicit-constant form: ‖U v_i‖_∞ ≤ ‖v_i‖·√(2·log(2nd/α)/d) for all i w.p. ≥ 1 − α.

    Hoeffding per coordinate (a sum of d independent terms ±v_k/√d), union bound over n·d entries
    (derived here; Lemma 20 of Esfandiari, Mirrokni & Narayanan 2022 has an unspecified O(·)).

    >>> round(hoeffding_flattening_bound(1.0, 1, 16, 0.01), 4)
    1.0044
    """
    norm = check_positive(norm, "norm", allow_zero=True)
    n, d, alpha = _limits.checked(n=n, d=d, alpha=alpha)
    log_term = math.log(2.0) + math.log(n) + math.log(d) - math.log(alpha)  # 2nd/α overflows for subnormal α
    return _limits.finite(norm * math.sqrt(2.0 * log_term / d), "the bound", norm=norm, n=n, d=d, alpha=alpha)
