"""Randomized Hadamard rotation ("fast Johnson–Lindenstrauss"), the ℓ₂ → ℓ∞ flattening step of both papers.

U = d^{-1/2}·H·D with H the d×d Sylvester–Hadamard matrix (entries ±1, H Hᵀ = d·I) and D = diag(s), s_i iid uniform
on {±1}; U is orthogonal, U⁻¹ = Uᵀ = d^{-1/2}·D·H. Vectors are zero-padded to d_pad = 2^⌈log₂ d⌉ first.

References
----------
004: Levy et al., "Learning with User-Level Privacy", Lemma 2 and Algorithm 2.
003: Esfandiari, Mirrokni, Narayanan, "Tight and Robust Private Mean Estimation with Few Users", §B.3, Lemma 20.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpviz._validation import as_rng, check_array, check_integer, check_positive, check_probability

__all__ = [
    "next_power_of_two",
    "fwht",
    "HadamardRotation",
    "random_rotation",
    "lemma2_flattening_bound",
    "hoeffding_flattening_bound",
]


def next_power_of_two(d: int) -> int:
    """Smallest power of two ≥ d (digest 003 §7 item 5: the paper's "largest" is a slip for "smallest").

    >>> [next_power_of_two(d) for d in (1, 2, 3, 16, 17)]
    [1, 2, 4, 16, 32]
    """
    d = check_integer(d, "d", minimum=1)
    return 1 << (d - 1).bit_length()


def fwht(x: np.ndarray) -> np.ndarray:
    """Unnormalised fast Walsh–Hadamard transform along the last axis: returns x·H (H Sylvester, symmetric).

    The last axis length must be a power of two. Cost O(d log d) per vector.

    >>> fwht(np.array([1.0, 0.0, 0.0, 0.0]))
    array([1., 1., 1., 1.])
    >>> fwht(np.array([1.0, 2.0]))
    array([ 3., -1.])
    """
    a = np.array(x, dtype=float, copy=True)
    d = a.shape[-1]
    if d & (d - 1):
        raise ValueError(f"last axis length = {d} is not allowed: must be a power of two.")
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
    """The orthogonal map U = d_pad^{-1/2}·H·D acting on zero-padded vectors (Lemma 2 of 004; Lemma 20 of 003).

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
        check_integer(self.d, "d", minimum=1)
        s = check_array(self.signs, "signs", ndim=1)
        if s.shape[0] != next_power_of_two(self.d) or not np.all(np.abs(s) == 1):
            raise ValueError(
                f"signs has shape {s.shape}, which is not allowed: must be ±1 entries of length {next_power_of_two(self.d)}."
            )
        object.__setattr__(self, "signs", s)

    @property
    def d_pad(self) -> int:
        return int(self.signs.shape[0])

    def apply(self, x: np.ndarray) -> np.ndarray:
        """U·x for each row of x (shape (..., d)); returns shape (..., d_pad)."""
        x = np.asarray(x, dtype=float)
        if x.shape[-1] != self.d:
            raise ValueError(f"x has last dimension {x.shape[-1]}, which is not allowed: must be {self.d}.")
        pad = np.zeros(x.shape[:-1] + (self.d_pad,))
        pad[..., : self.d] = x
        return fwht(pad * self.signs) / math.sqrt(self.d_pad)

    def invert(self, y: np.ndarray, *, truncate: bool = True) -> np.ndarray:
        """U⁻¹·y = d_pad^{-1/2}·D·H·y for each row; drops the padded coordinates when ``truncate``."""
        y = np.asarray(y, dtype=float)
        if y.shape[-1] != self.d_pad:
            raise ValueError(f"y has last dimension {y.shape[-1]}, which is not allowed: must be {self.d_pad}.")
        out = fwht(y) * self.signs / math.sqrt(self.d_pad)
        return out[..., : self.d] if truncate else out

    def matrix(self) -> np.ndarray:
        """The d_pad × d_pad matrix U (for teaching and tests; use :meth:`apply` for computation)."""
        return self.apply_padded(np.eye(self.d_pad)).T

    def apply_padded(self, x: np.ndarray) -> np.ndarray:
        """U·x for rows already of length d_pad."""
        return fwht(np.asarray(x, dtype=float) * self.signs) / math.sqrt(self.d_pad)


def random_rotation(d: int, *, rng=None) -> HadamardRotation:
    """Draw U = d_pad^{-1/2}·H·D with fresh iid uniform ±1 signs (Algorithm 2 of 004, steps 1–2; 003 §B.3).

    >>> U = random_rotation(3, rng=0)
    >>> U.d_pad
    4
    >>> bool(np.allclose(U.matrix() @ U.matrix().T, np.eye(4)))
    True
    """
    d = check_integer(d, "d", minimum=1)
    g = as_rng(rng)
    signs = g.choice(np.array([-1.0, 1.0]), size=next_power_of_two(d))
    return HadamardRotation(d, signs)


def lemma2_flattening_bound(norm: float, n: int, d: int, alpha: float) -> float:
    """Lemma 2 of 004: max_i ‖U x_i − U x₀‖_∞ ≤ 10·max_i‖x_i − x₀‖₂·√(log(nd/α))/√d w.p. ≥ 1 − α.

    >>> round(lemma2_flattening_bound(1.0, 1, 16, 0.01), 4)
    6.7905
    """
    norm = check_positive(norm, "norm", allow_zero=True)
    n = check_integer(n, "n", minimum=1)
    d = check_integer(d, "d", minimum=1)
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    return 10.0 * norm * math.sqrt(max(math.log(n * d / alpha), 0.0) / d)


def hoeffding_flattening_bound(norm: float, n: int, d: int, alpha: float) -> float:
    """Explicit-constant form: ‖U v_i‖_∞ ≤ ‖v_i‖·√(2·log(2nd/α)/d) for all i w.p. ≥ 1 − α.

    Hoeffding per coordinate (a sum of d independent terms ±v_k/√d), union bound over n·d entries
    (digest of 003, primitive P3 [ours]; the paper's Lemma 20 has an unspecified O(·)).

    >>> round(hoeffding_flattening_bound(1.0, 1, 16, 0.01), 4)
    1.0044
    """
    norm = check_positive(norm, "norm", allow_zero=True)
    n = check_integer(n, "n", minimum=1)
    d = check_integer(d, "d", minimum=1)
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    return norm * math.sqrt(2.0 * math.log(2 * n * d / alpha) / d)
