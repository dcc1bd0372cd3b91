"""Algorithm 7 of Levy et al. 2021 (App. E.2): the generic first-order optimiser, and its three variants.

    for t = 0..T−1:  θ_t = Query(o_t);  g_t = O(θ_t);  o_{t+1} = Update(o_t, g_t)
    return θ̂_T = Aggregate(o_0..o_T)

Remark 2 of Levy et al. 2021 names the variants used by Proposition 4; the paper gives no step sizes, so ours are stated
here:

* ``"convex"`` — fixed-step projected SGD, Aggregate = uniform average of θ_1..θ_T (Bubeck 2015, Thm 6.3).
* ``"strongly_convex"`` — fixed-step projected SGD for the first ⌈T/2⌉ steps (restart point = last iterate), then
  a single restart with decreasing steps η_k = min(η, 2/(μ(k + k₀))), k₀ = 2H/μ, and non-uniform averaging with
  weights ∝ (k + k₀) (Kulunchakov & Mairal 2020, Cor. 32, in the spirit; weights after Lacoste-Julien,
  Schmidt & Bach 2012).
* ``"nonconvex"`` — fixed-step projected SGD; Aggregate returns a past iterate chosen uniformly at random
  (Davis & Drusvyatskiy 2019, Cor. 3.6).

Every update is θ ← Π_Θ(θ − η g) with Θ the ℓ₂ ball of radius ``radius``. The oracle is any callable
``oracle(theta, t) -> g``; the private algorithms of :mod:`dpviz.learning.training` plug their noisy user-level
gradient in here.
"""

from __future__ import annotations

import collections
import dataclasses
import math
from typing import Callable

import numpy as np

from dpviz._validation import (
    ArrayOf,
    Interval,
    as_rng,
    check_choice,
    check_integer,
    check_progress,
    field_array,
)

__all__ = ["FirstOrderMethod", "OptimisationTrace", "run_first_order", "VARIANTS"]

# Parameter specs shared by dpviz.learning (this is its lowest module). The lessons' panels use at most T = 500
# steps, n·m = 2·10⁵ examples and d = 10; the caps sit above that.

#: Optimisation steps T of one run: 1 ≤ T ≤ 10⁴.
STEPS = Interval(1, 10_000, integer=True)
#: Counts (n, m, d, K) that only enter formulas (schedules, radii): ≤ 10¹⁵, so that they convert to floats exactly
#: enough and products of a few of them stay finite.
COUNT = Interval(1, 10**15, integer=True)
#: Bound on scale parameters and data entries, so that squares and sums over up to 10⁷ of them stay far inside the
#: float range.
MAGNITUDE = 1e12
#: A scale parameter (radius, Lipschitz constant, step size, clip, noise level): in [1e-12, 1e12], so that its
#: reciprocal, square and products with data stay finite; :data:`SCALE_OR_ZERO` also takes 0.
SCALE = Interval(1.0 / MAGNITUDE, MAGNITUDE)
SCALE_OR_ZERO = Interval(0.0, MAGNITUDE)

VARIANTS = ("convex", "strongly_convex", "nonconvex")


@dataclasses.dataclass(frozen=True)
class FirstOrderMethod:
    """The optimiser tuple {Query, Update, Aggregate} of Algorithm 7 (Levy et al. 2021), as a value object.

    Parameters
    ----------
    variant : {"convex", "strongly_convex", "nonconvex"}
        Remark 2 of Levy et al. 2021.
    learning_rate : float
        Fixed step size η > 0.
    radius : float
        Θ = ℓ₂ ball of this radius around 0.
    strong_convexity : float, optional
        μ > 0, required for ``"strongly_convex"``.
    smoothness : float
        H > 0 (sets k₀ = 2H/μ in the strongly convex restart).
    """

    variant: str = "convex"
    learning_rate: float = 1.0
    radius: float = 1.0
    strong_convexity: float | None = None
    smoothness: float = 1.0

    def __post_init__(self):
        check_choice(self.variant, "variant", VARIANTS)
        object.__setattr__(self, "learning_rate", SCALE.check(self.learning_rate, "learning_rate"))
        object.__setattr__(self, "radius", SCALE.check(self.radius, "radius"))
        object.__setattr__(self, "smoothness", SCALE.check(self.smoothness, "smoothness"))
        if self.strong_convexity is not None:
            object.__setattr__(self, "strong_convexity", SCALE.check(self.strong_convexity, "strong_convexity"))
        elif self.variant == "strongly_convex":
            raise ValueError("strong_convexity = None is not allowed: must be a finite number > 0 for the "
                             "strongly convex variant.")

    def project(self, theta) -> np.ndarray:
        """Π_Θ(θ): the Euclidean projection onto the ℓ₂ ball of radius ``radius``."""
        return self._project(ArrayOf(ndim=1).check(theta, "theta"))

    def step_size(self, t: int, T: int) -> float:
        """η_t: fixed, except in the restart phase of the strongly convex variant (0 ≤ t < T ≤ 10⁴)."""
        T = STEPS.check(T, "T")
        t = check_integer(t, "t", minimum=0, maximum=T - 1)
        return self._step_size(t, T)

    def aggregate(self, iterates, rng=None) -> np.ndarray:
        """Aggregate(o_0..o_T) for the variant, over ``iterates`` of shape (T+1, d)."""
        it = ArrayOf(ndim=2).check(iterates, "iterates")
        return self._aggregate(it, as_rng(rng))

    # -- private kernels (arguments already validated) ---------------------------------------------------------
    def _project(self, theta: np.ndarray) -> np.ndarray:
        nrm = safe_norm(theta)
        return theta if nrm <= self.radius else theta * (self.radius / nrm)

    def _step_size(self, t: int, T: int) -> float:
        if self.variant != "strongly_convex":
            return self.learning_rate
        t1 = math.ceil(T / 2)
        if t < t1:
            return self.learning_rate
        mu = self.strong_convexity
        k0 = 2.0 * self.smoothness / mu
        return min(self.learning_rate, 2.0 / (mu * (t - t1 + k0)))

    def _aggregate(self, iterates: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        T = iterates.shape[0] - 1
        if T == 0:
            return iterates[0].copy()
        if self.variant == "convex":
            return iterates[1:].mean(axis=0)
        if self.variant == "nonconvex":
            return iterates[int(rng.integers(0, T + 1))].copy()
        t1 = math.ceil(T / 2)
        k0 = 2.0 * self.smoothness / self.strong_convexity
        tail = iterates[t1 + 1:] if T > t1 else iterates[-1:]
        w = np.arange(tail.shape[0]) + k0
        return (w[:, None] * tail).sum(axis=0) / w.sum()


@dataclasses.dataclass(frozen=True, eq=False)
class OptimisationTrace:
    """Result of :func:`run_first_order`: all iterates θ_0..θ_T (shape (T+1, d)) and the aggregate θ̂_T."""

    iterates: np.ndarray
    output: np.ndarray

    def __post_init__(self):
        field_array(self, "iterates", ndim=2)
        field_array(self, "output", ndim=1)
        if self.iterates.shape[0] == 0 or self.output.shape != (self.iterates.shape[1],):
            raise ValueError(f"iterates {self.iterates.shape} and output {self.output.shape} are not allowed: must be "
                             "(T+1, d) with T+1 >= 1 and (d,).")


def run_first_order(oracle: Callable[[np.ndarray, int], np.ndarray], theta0, T: int, method: FirstOrderMethod, *,
                    rng=None, progress: Callable[[float], None] | None = None,
                    progress_every: int = 10) -> OptimisationTrace:
    """Algorithm 7 of Levy et al. 2021: T calls to ``oracle(theta_t, t)`` with projected updates, then Aggregate.

    Parameters
    ----------
    oracle : callable
        ``oracle(theta, t) -> g`` (a (d,) gradient estimate). Private oracles are user-level DP on their own;
        the optimiser only post-processes their answers.
    theta0 : array_like, shape (d,)
        Starting point (projected onto Θ).
    T : int
        Number of oracle calls, 1 ≤ T ≤ 10⁴.
    method : FirstOrderMethod
    rng : Generator or int, optional
        Used only by the non-convex Aggregate.
    progress : callable, optional
        ``progress(fraction)`` called every ``progress_every`` steps and at the end.

    Raises
    ------
    ValueError
        T outside [1, 10⁴], a bad starting point, an oracle answer of the wrong shape or not finite, or a
        step θ − η·g beyond the float range.
    TypeError
        ``oracle`` or ``progress`` not callable, ``method`` not a :class:`FirstOrderMethod`.

    Examples
    --------
    >>> import numpy as np
    >>> m = FirstOrderMethod("convex", learning_rate=0.5, radius=10.0)
    >>> tr = run_first_order(lambda th, t: th - 1.0, np.zeros(2), 200, m)   # ∇ of ½‖θ − 1‖²
    >>> np.round(tr.iterates[-1], 6)
    array([1., 1.])
    """
    if not callable(oracle):
        raise TypeError(f"oracle = {oracle!r} is not allowed: must be a callable oracle(theta, t) -> gradient.")
    th = ArrayOf(ndim=1, max_abs=MAGNITUDE).check(theta0, "theta0")
    T = STEPS.check(T, "T")
    if not isinstance(method, FirstOrderMethod):
        raise TypeError(f"method = {type(method).__name__} is not allowed: must be a FirstOrderMethod.")
    check_progress(progress)
    every = check_integer(progress_every, "progress_every", minimum=1)
    return _run_first_order(oracle, th, T, method, as_rng(rng), progress, every)


def _run_first_order(oracle, th: np.ndarray, T: int, method: FirstOrderMethod, g_rng: np.random.Generator,
                     progress, every: int = 10) -> OptimisationTrace:
    """Algorithm 7 on validated arguments (the private algorithms of :mod:`dpviz.learning` call this)."""
    _t, iterates = collections.deque(_first_order_steps(oracle, th, T, method, progress, every), maxlen=1)[0]
    return OptimisationTrace(iterates=iterates, output=method._aggregate(iterates, g_rng))


def _first_order_steps(oracle, th: np.ndarray, T: int, method: FirstOrderMethod, progress, every: int = 10):
    """Algorithm 7's loop as a generator (validated arguments): after each step t = 1..T it yields
    ``(t, iterates)``, the (T+1, d) array whose rows θ_0..θ_t are filled in (the same array each time: read, do
    not keep). :func:`_run_first_order` runs it to the end; streamed training reads partial runs from it."""
    d = th.shape[0]
    iterates = np.empty((T + 1, d))
    th = method._project(th.astype(float))
    iterates[0] = th
    for t in range(T):
        g = oracle(th, t)
        if not (isinstance(g, np.ndarray) and g.dtype == np.float64):
            g = ArrayOf(ndim=(0, 1)).check(g, "oracle answer")
        if g.shape != (d,):
            raise ValueError(f"oracle returned shape {g.shape}, which is not allowed: must be ({d},).")
        if not np.all(np.isfinite(g)):
            raise ValueError(f"oracle returned a non-finite gradient at step t = {t}, which is not allowed: must be "
                             "finite.")
        eta = method._step_size(t, T)
        with np.errstate(over="ignore", invalid="ignore"):
            v = th - eta * g
        if not np.all(np.isfinite(v)):  # checked explicitly: η·g beyond the float range
            raise ValueError(f"learning_rate = {eta!r} is not allowed here: the step θ − η·g at t = {t} leaves the "
                             "float range (‖g‖ too large for this step size).")
        th = method._project(v)
        iterates[t + 1] = th
        if progress is not None and ((t + 1) % every == 0 or t + 1 == T):
            progress((t + 1) / T)
        yield t + 1, iterates


def safe_norm(v: np.ndarray) -> float:
    """‖v‖₂ computed as s·‖v/s‖₂ with s = max|v_i|, so entries near the float limit do not overflow."""
    s = float(np.max(np.abs(v))) if v.size else 0.0
    if s == 0.0:
        return 0.0
    return s * math.sqrt(float(np.dot(v / s, v / s)))
