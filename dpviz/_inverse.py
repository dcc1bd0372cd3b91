"""Monotone inversion: the one home of dpviz's root finding on monotone privacy curves.

Two families, both keeping the feasible end of a bracket so that an inverse never under-reports privacy loss:

* **smallest feasible double** — :func:`_inverse_profile` (Brent's method to full precision, then
  :func:`_snap` moves ulp by ulp until the result is feasible and its predecessor is not), :func:`_bisect_floats`
  (bisection on the bit patterns of doubles, ≤ 64 steps), its vectorised form :func:`_bisect_doubles`, and
  :func:`_snap_closed_form` (fixes the last bits of a closed-form inverse). Used by the mechanisms' exact
  ``epsilon(delta)`` and by :func:`dpviz.mechanisms.analytic_gaussian_sigma`.
* **to a relative tolerance** — for accountants whose ε(δ) is itself costly (a numerical minimisation or an FFT):
  :func:`delta_from_epsilon_function` (Illinois-safeguarded Brent on logit δ)
  and :func:`_bisect_noise` (noise calibration, secant on ln ε against ln s). These return a point at which the
  function was evaluated and found feasible, within ``rtol`` of the infimum; they are not snapped to the last ulp
  (each extra ulp step would cost a full accountant evaluation).

Root finding is :func:`scipy.optimize.brentq` (Brent 1973).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy.optimize import brentq

__all__: list[str] = []


def _inverse_profile(profile: Callable[[np.ndarray], np.ndarray], delta: float, lo: float, hi: float, *,
                     fast: Callable[[float], float] | None = None) -> float:
    """Smallest ε in [lo, hi] with profile(ε) ≤ delta, for a continuous non-increasing profile with
    profile(lo) > delta ≥ profile(hi): Brent's method to full double precision (xtol 1e-300, rtol 4·2⁻⁵²), then
    a few ulp steps so that the returned ε is feasible and its predecessor is not.

    ``fast``, optional: a cheaper scalar form of the same profile, equal to it up to rounding. Brent's method then
    runs on ``fast`` and only the last ulp steps on ``profile`` (typically 2–3 of its evaluations instead of ~20);
    the answer is still decided by ``profile`` alone, and if ``fast``'s root is not within a few ulps of it the
    search falls back to Brent's method on ``profile``."""
    f = lambda e: float(profile(np.array([e]))[0]) - delta  # noqa: E731
    if fast is not None:
        try:
            near = brentq(lambda e: fast(e) - delta, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
        except (RuntimeError, ValueError):  # no convergence, or rounding made fast's bracket ends agree in sign
            near = None
        root = None if near is None else _snap(f, near, lo, hi, max_up=16, max_steps=32, strict=True)
        if root is not None:
            return root
    try:
        root = brentq(f, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    except RuntimeError:  # no convergence (e.g. delta among subnormals, where the profile is a staircase)
        root = _bisect_floats(f, lo, hi)
    return _snap(f, root, lo, hi)


def _bisect_floats(f: Callable[[float], float], lo: float, hi: float) -> float:
    """Smallest double in [lo, hi] with f ≤ 0 for a non-increasing f with f(hi) ≤ 0, by bisection on the bit
    patterns of non-negative doubles (at most 64 steps, whatever the scale)."""
    a, b = np.float64(lo).view(np.int64), np.float64(hi).view(np.int64)
    while b - a > 1:
        mid = a + (b - a) // 2
        if f(float(mid.view(np.float64))) > 0:
            a = mid
        else:
            b = mid
    return float(b.view(np.float64)) if f(lo) > 0 else lo


def _snap(f: Callable[[float], float], root: float, lo: float, hi: float, *, max_up: int = 64, max_steps: int = 128,
          strict: bool = False) -> float | None:
    """Move ``root`` by a few ulps so that f(root) ≤ 0 and f(predecessor) > 0 (f = profile − delta, non-increasing):
    the returned ε is feasible and the smallest such double, not merely within rounding of the exact root.

    At most ``max_up`` steps up and ``max_steps`` in all. When they do not suffice the search returns ``hi`` (no
    feasible double reached) or the last feasible one; with ``strict`` it returns None instead, for a caller whose
    ``root`` was only a guess and who then searches properly."""
    steps = 0
    while f(root) > 0 and root < hi and steps < max_up:
        root = float(np.nextafter(root, math.inf))
        steps += 1
    if f(root) > 0:
        if strict:
            return None
        root = hi
    while root > lo:
        prev = float(np.nextafter(root, -math.inf))
        if f(prev) > 0:
            break
        if steps >= max_steps:
            return None if strict else root
        root = prev
        steps += 1
    return root


def _snap_closed_form(profile: Callable[[np.ndarray], np.ndarray], delta: float, eps: float, hi: float) -> float:
    """A closed-form ε(δ) rounded in floating point can sit an ulp or two on either side of the smallest feasible
    double; snap it (the closed forms are exact in real arithmetic, this only fixes their last bits)."""
    if not (math.isfinite(eps) and math.isfinite(hi)) or eps > hi:
        return eps
    return _snap(lambda e: float(profile(np.array([e]))[0]) - delta, eps, 0.0, hi)


def _bisect_doubles(feasible: Callable[[np.ndarray], np.ndarray], shape: tuple[int, ...], lo: float = 0.0,
                    hi: float = math.inf, *, guess=None, gap: bool = False) -> np.ndarray:
    """Vectorised :func:`_bisect_floats`: for a monotone predicate (infeasible below, feasible above) evaluated on
    an array of candidate doubles of ``shape``, the smallest double in (lo, hi] that is feasible, per entry, as
    found by bisection on the bit patterns of the non-negative doubles from [lo, hi] (64 halvings whatever the
    scale). ``lo`` must be infeasible and ``hi`` feasible (``hi`` itself is returned where nothing below it is).

    The result is always that of the plain bisection, bit for bit; two optional aids only make it cheaper:

    * ``guess``: an array (broadcast to ``shape``), or a zero-argument callable returning one (called with numpy's
      floating-point warnings off), of approximate answers. Entries that are NaN, infinite or outside (lo, hi)
      start from the whole bracket. Around a usable guess the bracket is grown geometrically until its lower end
      is infeasible and its upper end feasible (a few evaluations).
    * ``gap=True``: ``feasible`` returns a pair ``(ok, g)``: ``ok`` the predicate (the only authority) and ``g`` a
      real helper of the same shape, non-increasing in x, > 0 on the infeasible and ≤ 0 on the feasible side up to
      rounding (e.g. ln δ(x) − ln δ_target), ±inf or NaN where it cannot be computed (numpy's divide and invalid
      warnings are off while ``feasible`` runs). The bracket is then narrowed
      by regula falsi on g against x (the Anderson & Björck 1973 modification, Illinois where it fails, and
      ulp nudges for the last bits; a bisection step whenever g is not finite or steps fail to halve the
      bracket), typically to a few ulps in 5–8 evaluations.

    Either way the plain bisection is then replayed from [lo, hi]: its midpoints more than ``_REPLAY_ULPS`` ulps
    outside the narrowed bracket [a, b] (a found infeasible, b feasible) are decided by their side, the few inside
    are evaluated. So the double returned is identical to the unaided search's even where rounding makes the
    predicate non-monotone within a few ulps of its switch (as δ(ε; Δ/σ) is, for about 1 σ in 100); the aids only
    assume it monotone farther away. Typically 13–16 evaluations with a guess and ``gap`` (about 5 of them for
    the replay), instead of 64; a guess without ``gap`` saves nothing unless it is within a few ulps.
    """
    top = np.int64(np.float64(hi).view(np.int64))
    bot = np.int64(np.float64(lo).view(np.int64))
    a = np.full(shape, bot)
    b = np.full(shape, top)
    if gap:
        def test(bits):
            with np.errstate(divide="ignore", invalid="ignore"):  # ln 0 and the like: a helper of ±inf or NaN
                ok, g = feasible(bits.view(np.float64))
            return np.asarray(ok, dtype=bool), np.asarray(g, dtype=float)
    else:
        def test(bits):
            return np.asarray(feasible(bits.view(np.float64)), dtype=bool), None
    if guess is not None or gap:
        with np.errstate(all="ignore"):  # the bracket's own arithmetic (a helper may be ±inf or NaN)
            a, b = _narrow_bracket(test, a, b, shape, guess, gap)
    # replay of the plain bisection: evaluate only its midpoints near [a, b]
    near_lo, near_hi = a - _REPLAY_ULPS, b + _REPLAY_ULPS
    x = np.full(shape, bot)
    y = np.full(shape, top)
    if x.size <= 8:  # few entries: run the decided steps (far from [a, b]) in Python integers, cheaper than numpy's
        xf, yf = x.reshape(-1), y.reshape(-1)
        for i, (lo_i, hi_i) in enumerate(zip(near_lo.reshape(-1).tolist(), near_hi.reshape(-1).tolist())):
            xi, yi = int(bot), int(top)
            while yi - xi > 1:
                m = xi + (yi - xi) // 2
                if lo_i <= m <= hi_i:
                    break
                if m > hi_i:
                    yi = m
                else:
                    xi = m
            xf[i], yf[i] = xi, yi
    while True:
        w = y - x
        live = w > 1
        if not live.any():
            return y.view(np.float64)
        mid = x + (w >> 1)
        near = (mid >= near_lo) & (mid <= near_hi) & live
        ok = mid > near_hi
        if near.any():
            ok = np.where(near, test(mid)[0], ok)
        np.copyto(y, mid, where=live & ok)
        np.copyto(x, mid, where=live & ~ok)


#: how far (in ulps) outside the narrowed bracket :func:`_bisect_doubles` still evaluates the predicate when it
#: replays the plain bisection (rounding makes δ(ε; Δ/σ) switch back and forth within ~3 ulps of its root)
_REPLAY_ULPS = 16

#: :func:`_bisect_doubles` with ``gap``: regula falsi stops narrowing a bracket this many ulps wide
_NARROW_ULPS = 8

_MAX_NARROW_STEPS = 60


def _narrow_bracket(test, a, b, shape, guess, gap):
    """Bracket [a, b] (bit patterns; a infeasible or the original lo, b feasible or the original hi) around the
    switch of ``test``, grown from ``guess`` and narrowed by regula falsi on the helper (see _bisect_doubles)."""
    bot, top = a.copy(), b.copy()
    ga = np.full(shape, np.nan)  # helper at a, b (NaN: not evaluated)
    gb = np.full(shape, np.nan)
    if guess is not None:
        if callable(guess):
            guess = guess()  # (numpy's warnings are off here)
        g = np.broadcast_to(np.asarray(guess, dtype=float), shape)
        gbits = np.where(np.isfinite(g) & (g > 0), np.abs(g), 0.0).view(np.int64)
        usable = (gbits > bot) & (gbits < top)
        if np.any(usable):
            c = np.where(usable, gbits, a + (b - a) // 2)
            ok, h = test(c)
            a, b, ga, gb = _update(a, b, ga, gb, c, ok, h, usable)
            # grow geometrically: with a helper, factors 2, 4, 16, 256, … in value (steps of 2^52, 2^53, … ulps:
            # regula falsi then narrows), without one 4, 64, 1024, … ulps (bisection then halves)
            step = np.full(shape, np.int64(2**52 if gap else 4))
            up = usable & ~ok  # guess infeasible: look above it
            down = usable & ok  # guess feasible: look below it
            while True:
                grow_up = up & (b == top) & (b - a > 1)
                grow_down = down & (a == bot) & (b - a > 1)
                todo = grow_up | grow_down
                if not np.any(todo):
                    break
                span = np.minimum(step, b - a)  # (no int64 overflow near +inf's bit pattern)
                c = np.where(grow_up, a + span, np.where(grow_down, b - span, a + (b - a) // 2))
                c = np.where((c <= a) | (c >= b), a + (b - a) // 2, c)
                ok, h = test(c)
                a, b, ga, gb = _update(a, b, ga, gb, c, ok, h, todo)
                step = np.where(todo, np.minimum(step * 2 if gap else step * 16, 2**62), step)
    if not gap:
        return a, b
    side = np.zeros(shape, dtype=np.int8)  # +1: b moved last, −1: a moved last
    nudge = np.ones(shape, dtype=np.int64)
    slow = np.zeros(shape, dtype=np.int8)  # steps since the bracket last halved
    width0 = b - a
    for _ in range(_MAX_NARROW_STEPS):
        live = b - a > _NARROW_ULPS
        if not np.any(live):
            break
        w = (b - a).astype(float)
        interp = np.isfinite(ga) & np.isfinite(gb) & (ga > gb) & (slow < 3)
        t = np.where(interp, ga / (ga - gb), 0.5)
        # interpolate in value (where both ends are finite), else in bit pattern (≈ log of the value)
        av, bv = a.view(np.float64), b.view(np.float64)
        cv = av + t * (bv - av)
        c = np.where(interp & np.isfinite(cv) & (cv > 0), np.maximum(cv, 0.0).view(np.int64),
                     a + np.clip(np.rint(t * w), 1, w - 1).astype(np.int64))
        # the same end moved twice running: push the point a growing number of ulps towards the stale end, so
        # that noise of the helper in its last bits cannot keep the point on one side
        c = np.where(interp & (side == 1), c - nudge, np.where(interp & (side == -1), c + nudge, c))
        c = np.where(interp, np.clip(c, a + 1, b - 1), a + (b - a) // 2)
        ok, h = test(c)
        moved_b = live & ok
        moved_a = live & ~ok
        # the end that stays a second time: Anderson & Björck (1973) scale its helper by 1 − g(c)/g(old end), or
        # halve it (Illinois) where that is not in (0, 1)
        mb = np.where(np.isfinite(h) & (gb != 0), 1.0 - h / gb, 0.5)
        ma = np.where(np.isfinite(h) & (ga != 0), 1.0 - h / ga, 0.5)
        mb = np.where((mb > 0) & (mb < 1), mb, 0.5)
        ma = np.where((ma > 0) & (ma < 1), ma, 0.5)
        ga = np.where(moved_b & (side == 1), mb * ga, ga)
        gb = np.where(moved_a & (side == -1), ma * gb, gb)
        nudge = np.where((moved_b & (side == 1)) | (moved_a & (side == -1)), np.minimum(nudge * 4, 2**40), 1)
        a, b, ga, gb = _update(a, b, ga, gb, c, ok, h, live)
        side = np.where(moved_b, 1, np.where(moved_a, -1, side)).astype(np.int8)
        halved = (b - a) <= width0 // 2
        slow = np.where(live, np.where(halved, 0, slow + 1), slow).astype(np.int8)
        width0 = np.where(halved | (slow >= 4), b - a, width0)
        slow = np.where(slow >= 4, 0, slow).astype(np.int8)
    return a, b


def _update(a, b, ga, gb, c, ok, h, mask):
    """Move the end of [a, b] that candidate ``c`` (with predicate ``ok`` and helper ``h``) replaces, where ``mask``."""
    nan = np.full(a.shape, np.nan)
    h = nan if h is None else np.where(np.isnan(h), nan, h)
    fb = mask & ok & (c < b) & (c > a)
    fa = mask & ~ok & (c > a) & (c < b)
    return np.where(fa, c, a), np.where(fb, c, b), np.where(fa, h, ga), np.where(fb, h, gb)


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

    try:
        brentq(g, x_lo, x_hi, xtol=0.25 * rtol, rtol=4 * 2.0**-52, maxiter=200)
    except RuntimeError:  # no convergence in maxiter: the bracket in ``seen`` is still valid
        pass
    except ValueError:  # g(x_hi) > 0: δ = expit(logit(TOP_DELTA)) rounds off TOP_DELTA, where ε(δ) is not exactly
        pass  # monotone (a numerical minimisation inside it); the bisection below keeps the bracket
    # safeguard: where ε(δ) is not exactly monotone (a numerical minimisation inside it), Brent may stop at an
    # infeasible point with the nearest feasible one further away; bisect between them to the tolerance
    for _ in range(200):
        a, b = seen["infeasible"], seen["feasible"]
        if b - a <= rtol:
            break
        g(0.5 * (a + b))
    # x_hi itself is feasible through e_hi (evaluated at TOP_DELTA, not at expit(x_hi), which may round off it)
    return TOP_DELTA if seen["feasible"] == x_hi else _expit(seen["feasible"])


def _logit(d: float) -> float:
    return math.log(d) - math.log1p(-d)


def _expit(x: float) -> float:
    """1/(1 + e^{−x}) without overflow, exact to rounding on both tails (δ tiny and δ near 1)."""
    if x < 0:
        e = math.exp(x)
        return e / (1.0 + e)
    return 1.0 / (1.0 + math.exp(-x))


def _bisect_noise(eps_of: Callable[[float], float], target: float, start: float, rtol: float) -> float:
    """Smallest s > 0 (to relative ``rtol``) with eps_of(s) ≤ target, for ε non-increasing in the noise s: the
    search of :func:`_bisect_noise_steps`, run to its end."""
    return _run_steps(_bisect_noise_steps(eps_of, target, start, rtol))


def _run_steps(steps):
    """The value a generator of pauses returns, after running it to its end."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def _bisect_noise_steps(eps_of: Callable[[float], float], target: float, start: float, rtol: float):
    """A generator: :func:`_bisect_noise`'s search, yielding None after each evaluation of ``eps_of`` (a pause, so
    that a caller on an event loop can hand it back between two costly accountant evaluations) and returning the
    smallest s > 0 (to relative ``rtol``) with eps_of(s) ≤ target, for ε non-increasing in the noise s.

    A bracket [lo, hi] with eps_of(lo) > target ≥ eps_of(hi) is kept at every step and ``hi`` is returned, so the
    noise never overshoots the privacy budget. Inside the bracket the next point is the secant of ln ε against
    ln s (nearly linear: ε ∝ 1/s for small ε), with the Illinois modification (Dowell & Jarratt 1971) so both
    ends converge, and a step of at least a quarter of the tolerance from either end; a bisection step is used
    whenever an end has ε = ∞ or 0. Typically 4–8 evaluations instead of ~25 for plain bisection."""
    hi = min(max(start, 1e-300), 1e300)
    n = 0
    e_hi = eps_of(hi)
    yield
    while not e_hi <= target:  # grow by 4×, then by 1e8× after 30 steps, up to the double range
        hi *= 4.0 if n < 30 else 1e8
        n += 1
        if hi > 1e300:
            raise ValueError(f"target_epsilon = {target!r} is not allowed here: no noise scale below 1e300 reaches it "
                             "(must be larger).")
        e_hi = eps_of(hi)
        yield
    lo = hi / 4.0
    e_lo = eps_of(lo)
    yield
    n = 0
    while e_lo <= target:  # shrink likewise, down to 1e-300 (then the smallest feasible noise found is returned)
        hi, e_hi = lo, e_lo
        lo /= 4.0 if n < 30 else 1e8
        n += 1
        if lo < 1e-300:
            return hi
        e_lo = eps_of(lo)
        yield
    # now eps_of(lo) > target ≥ eps_of(hi); work in x = ln s, f = ln ε − ln target
    x_lo, x_hi = math.log(lo), math.log(hi)
    log_t = math.log(target)

    def f_of(e: float) -> float:
        if e <= 0.0:
            return -math.inf
        return math.log(e) - log_t if math.isfinite(e) else math.inf

    f_lo, f_hi = f_of(e_lo), f_of(e_hi)
    tol = math.log1p(rtol)
    side = 0
    while x_hi - x_lo > tol:
        w = x_hi - x_lo
        if math.isfinite(f_lo) and math.isfinite(f_hi) and f_lo > f_hi:
            x = x_hi - f_hi * w / (f_hi - f_lo)
            x = min(max(x, x_lo + 0.25 * tol), x_hi - 0.25 * tol)
        else:
            x = 0.5 * (x_lo + x_hi)
        fx = f_of(eps_of(math.exp(x)))
        yield
        if fx <= 0:  # feasible: new upper end
            x_hi, f_hi = x, fx
            if side == 1 and math.isfinite(f_lo):
                f_lo *= 0.5  # Illinois
            side = 1
        else:
            x_lo, f_lo = x, fx
            if side == -1 and math.isfinite(f_hi):
                f_hi *= 0.5
            side = -1
    return math.exp(x_hi)
