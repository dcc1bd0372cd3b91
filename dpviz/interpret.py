"""What ε means and how it is chosen (lesson 09): the Bayesian reading of a guarantee and the calibration of ε.

* :func:`posterior_bound` — the most an informed observer's belief that a person is in the data (or has an
  attribute) can grow after seeing the output: with prior p, the posterior is at most e^ε·p / (1 − p + e^ε·p) under
  ε-DP; under (ε, δ)-DP the exact maximum for an observed event of known probability, which δ > 0 makes vacuous for
  rare events;
* :func:`epsilon_for_posterior` — the largest ε that keeps the posterior below a cap (the inverse);
* :func:`gaussian_reading` — a zCDP guarantee of composed Gaussian mechanisms read as a limit on hypothesis tests
  (μ = √(2ρ), the largest membership advantage 2Φ(μ/2) − 1) and where an (ε, δ) conversion sits in its privacy loss;
* :func:`laplace_epsilon_for_accuracy`, :func:`gaussian_epsilon_for_accuracy` — from an accuracy target on a count
  (error ≤ α<sub>acc</sub> with probability ≥ 1 − β<sub>fail</sub>) to the smallest ε that meets it;
  :func:`accuracy_crossover_alpha`, :func:`accuracy_crossover_beta` — where the Gaussian starts to need the smaller ε;
* :func:`per_release_budget` — from a budget per person per year to what each of k releases may spend, under basic
  composition and under exact composition of Gaussian releases.

The Bayesian setting (Kasiviswanathan & Smith 2014; Wasserman & Zhou 2010) is that of the **informed observer**: one
who knows everything about the data except one fact about one person — in or out (add/remove-one neighbours), or the
value of one attribute (replace-one neighbours) — so that the only uncertainty is between two neighbouring data sets
x ("in") and x′ ("out"), held with prior p on x. For any event S of outputs, Bayes' rule gives P[in | S] = p·P[S | x] /
(p·P[S | x] + (1 − p)·P[S | x′]), and the definition of (ε, δ)-DP (Dwork & Roth 2014, Def. 2.4), P[S | x] ≤
e^ε·P[S | x′] + δ in both directions, bounds the posterior. For an observer who does not know the other records and
whose prior links them to the person (correlated records), no such bound on the change from prior to posterior holds:
the release may reveal the person's data through the others' (Dwork & Roth 2014, §1; Kifer & Machanavajjhala 2011).
What DP bounds for every observer is the difference between the posterior after the real release and the one after
the same release without the person's record (Kasiviswanathan & Smith 2014).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special
from scipy.optimize import brentq

from dpviz._validation import Cap, check_delta, check_in_range, check_integer, check_positive, check_real_array
from dpviz.mechanisms.gaussian import analytic_gaussian_sigma, gaussian_delta, gaussian_epsilon_many

__all__ = [
    "posterior_bound",
    "epsilon_for_posterior",
    "gaussian_reading",
    "laplace_epsilon_for_accuracy",
    "gaussian_sigma_for_accuracy",
    "gaussian_epsilon_for_accuracy",
    "accuracy_crossover_alpha",
    "accuracy_crossover_beta",
    "per_release_budget",
    "per_release_epsilon",
    "accuracy_curves",
]

#: Values one call of :func:`posterior_bound` may compute (the broadcast size of its array arguments): 10⁷
#: doubles are 80 MB per intermediate; a larger request is refused with a ValueError naming this cap.
POINTS = Cap(10_000_000, "the values of one call, the broadcast size of its array arguments")

#: Accuracy targets or release counts one call may take where each needs its own exact Gaussian inverse
#: (:func:`gaussian_epsilon_for_accuracy`, :func:`accuracy_curves`, :func:`per_release_epsilon`): about a second.
CURVE_POINTS = Cap(10_000, "the points of one curve, each of which needs its own exact Gaussian inverse")


def _is_scalar(value) -> bool:
    """A number (or a 0-d array), as opposed to a sequence or an array; decided without ``np.ndim``, which raises
    on a ragged list before any check could name the parameter."""
    return not isinstance(value, (list, tuple, np.ndarray)) or (isinstance(value, np.ndarray) and value.ndim == 0)


def _unit_array(value, name: str, *, open_low: bool = False, open_high: bool = False):
    """``value`` (a number or an array) checked to lie in [0, 1] (ends optionally open); returns (array, scalar?)."""
    lo = "(" if open_low else "["
    hi = ")" if open_high else "]"
    if _is_scalar(value):
        x = check_in_range(value, name, 0.0, 1.0, low_inclusive=not open_low, high_inclusive=not open_high)
        return np.array([x]), True
    arr = check_real_array(value, name, allow_empty=True)
    bad = (arr < 0) | (arr > 1) | ((arr == 0) & open_low) | ((arr == 1) & open_high)
    if np.any(bad):
        raise ValueError(f"{name} contains {float(arr[bad].ravel()[0])!r}, which is not allowed: must be numbers in "
                         f"{lo}0, 1{hi}.")
    return arr, False


def _nonneg_array(value, name: str):
    if _is_scalar(value):
        return np.array([check_positive(value, name, allow_zero=True)]), True
    arr = check_real_array(value, name, allow_empty=True)
    if np.any(arr < 0):
        raise ValueError(f"{name} contains {float(arr[arr < 0].ravel()[0])!r}, which is not allowed: must be finite "
                         "numbers >= 0.")
    return arr, False


def _broadcast(named: dict, cap: Cap = POINTS) -> list:
    """The arrays of ``named`` (parameter name → array) broadcast together, refused with a message naming the
    parameters when their shapes do not match or when the result would hold more than ``cap`` values."""
    names = ", ".join(named)
    try:
        shape = np.broadcast_shapes(*(np.shape(a) for a in named.values()))
    except ValueError:
        shapes = ", ".join(f"{n} {np.shape(a)}" for n, a in named.items())
        raise ValueError(f"the shapes of {names} ({shapes}) are not allowed together: must broadcast "
                         "(numpy rules).") from None
    cap.check(math.prod(shape), f"the broadcast size of {names}")
    return list(np.broadcast_arrays(*named.values()))


def _largest_event_probability(e: np.ndarray, d: float, q: np.ndarray) -> np.ndarray:
    """a* = min(1, e^ε·q + δ, 1 − e^{−ε}·(1 − q − δ)): the largest P[S | x] an (ε, δ)-DP pair allows when
    P[S | x′] = q (see :func:`posterior_bound`). The third term is formed as −expm1(−ε) + e^{−ε}·(q + δ), exact
    for small ε and q (1 − (…) would cancel); e^ε may overflow to +inf, which the minimum discards."""
    with np.errstate(over="ignore"):
        direct = np.exp(e) * q + d
    complement = -np.expm1(-e) + np.exp(-e) * (q + d)
    return np.minimum(1.0, np.minimum(direct, complement))


def posterior_bound(prior, epsilon, delta: float = 0.0, *, event_probability=None):
    """The largest posterior P[in | output in S] an (ε, δ)-DP release allows an informed observer with the prior
    P[in] = ``prior`` (one who knows every other record, so that "in" and "out" are two neighbouring data sets x
    and x′; see the module docstring for what fails without that condition).

    **Worst case over all events** (``event_probability`` not given). Under ε-DP, P[S | x] ≤ e^ε·P[S | x′] for
    every S, so the posterior odds are at most e^ε times the prior odds (Kasiviswanathan & Smith 2014; Wasserman &
    Zhou 2010), i.e.

        P[in | S] ≤ e^ε·p / (1 − p + e^ε·p)   (computed as expit(ε + logit p), no overflow).

    The bound is attained: binary randomized response with parameter ε (Warner 1965) reaches it when the
    observer sees the answer "in". Under (ε, δ)-DP with δ > 0 the worst case over events is 1 (for p > 0),
    attained by a mechanism that publishes "in" with probability δ when the person is in and never otherwise.

    **An event of known probability** (``event_probability`` = q = P[S | x′] > 0, the probability of the observed
    event if the person is out). The posterior is increasing in a = P[S | x], and (ε, δ)-DP constrains a through
    S *and its complement* S<sup>c</sup> (Dwork & Roth 2014, Def. 2.4, in both directions):

        a ≤ e^ε·q + δ   (S),   1 − q ≤ e^ε·(1 − a) + δ, i.e. a ≤ 1 − e^{−ε}·(1 − q − δ)   (S<sup>c</sup>).

    So a ≤ a* = min(1, e^ε·q + δ, 1 − e^{−ε}·(1 − q − δ)); this is 1 − f<sub>ε,δ</sub>(q), the largest power at
    level q of a test against (ε, δ)-DP (Kairouz, Oh & Viswanath 2015, Thm 2.1; Dong, Roth & Su 2022, Prop. 2.5;
    :func:`dpviz.tradeoff.dp_region_lower_bound`). The maximum is exact: the two-output mechanism with
    P[S | x] = a*, P[S | x′] = q is (ε, δ)-DP (a* ≥ q, so the two reverse inequalities hold as well), and any
    mechanism with more outputs is constrained by the same two events. Hence the exact maximum

        P[in | S] ≤ p·a* / (p·a* + (1 − p)·q),   with equality for that mechanism.

    It grows to 1 as q → 0 when δ > 0: an event that is rare when the person is out can be almost proof that
    they are in, because δ is an absolute, not a relative, slack. It is strictly below the ε-only bound exactly
    when a* < e^ε·q, that is once e^ε·q > 1 or 1 − e^{−ε}·(1 − q − δ) < e^ε·q (for δ = 0: q > 1/(1 + e^ε), the
    probability with which randomized response says "in" about someone out). A bound that uses only the event S,
    p·a/(p·a + (1 − p)·q) with a = min(1, e^ε·q + δ), is valid but not attained wherever the complement binds.

    Parameters
    ----------
    prior : float or array in [0, 1]
        The observer's prior belief p that the person is in the data (or has the attribute).
    epsilon : float or array ≥ 0
    delta : float in [0, 1)
    event_probability : float or array in (0, 1], optional
        q = P[S | x′], the probability of the observed output event when the person is out.

    Returns
    -------
    float, or an array of the broadcast shape (at most :data:`POINTS` values).

    Examples
    --------
    >>> round(posterior_bound(0.5, math.log(3)), 12)
    0.75
    >>> posterior_bound(0.01, 1.0, 1e-3)
    1.0
    >>> round(posterior_bound(0.5, math.log(3), 0.01, event_probability=0.25), 12)   # a* = 1 − 0.74/3
    0.750830564784
    """
    p, sp = _unit_array(prior, "prior")
    e, se = _nonneg_array(epsilon, "epsilon")
    d = check_delta(delta)
    if event_probability is None:
        p, e = _broadcast({"prior": p, "epsilon": e})
        if d > 0:
            out = np.where(p > 0, 1.0, 0.0)
        else:
            with np.errstate(divide="ignore"):
                logit = np.log(p) - np.log1p(-p)  # −inf at p = 0, +inf at p = 1
            inner = special.expit(e + np.where(np.isfinite(logit), logit, 0.0))
            out = np.where(p == 0, 0.0, np.where(p == 1, 1.0, inner))
        return float(out.ravel()[0]) if (sp and se) else out
    q, sq = _unit_array(event_probability, "event_probability", open_low=True)
    p, e, q = _broadcast({"prior": p, "epsilon": e, "event_probability": q})
    num = p * _largest_event_probability(e, d, q)
    out = num / (num + (1.0 - p) * q)  # a* ≥ q > 0: never 0/0
    return float(out.ravel()[0]) if (sp and se and sq) else out


def epsilon_for_posterior(prior, posterior_cap):
    """The largest ε whose ε-DP posterior bound keeps P[in | S] ≤ ``posterior_cap`` for the prior ``prior``: the
    inverse of :func:`posterior_bound` with δ = 0, ε = logit(cap) − logit(prior) (the odds may grow by e^ε;
    Kasiviswanathan & Smith 2014). Both in (0, 1) and cap ≥ prior.

    >>> round(epsilon_for_posterior(0.25, 0.5), 12) == round(math.log(3), 12)
    True
    """
    p = check_in_range(prior, "prior", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    c = check_in_range(posterior_cap, "posterior_cap", p, 1.0, high_inclusive=False)
    return float(special.logit(c) - special.logit(p))


def gaussian_reading(rho: float, epsilon: float | None = None) -> dict:
    """A ρ-zCDP guarantee of composed Gaussian mechanisms, read as a limit on hypothesis tests.

    Gaussian mechanisms with μᵢ = Δᵢ/σᵢ compose to exactly one Gaussian with μ = √(Σμᵢ²) (Dong, Roth & Su 2022,
    Cor. 3.3), and each is ρᵢ = μᵢ²/2-zCDP (Bun & Steinke 2016, Prop. 1.6), so ρ = Σρᵢ gives

        μ = √(2ρ).

    On the trade-off curve β = Φ(Φ⁻¹(1 − α) − μ) of μ-GDP the largest advantage 1 − α − β of any test of "in"
    against "out" (true-positive minus false-positive rate) is reached at α = Φ(−μ/2) and equals

        2Φ(μ/2) − 1,

    which is δ(0) of the Gaussian (Balle & Wang 2018, Thm 8; :func:`dpviz.mechanisms.gaussian_delta`). The privacy
    loss of such a release is N(ρ, 2ρ) (Balle & Wang 2018, Lemma 3); with ``epsilon`` the result also says how many
    standard deviations ε lies above its mean, (ε − ρ)/√(2ρ): an (ε, δ) conversion at a tiny δ sits far out in that
    tail. This reading is exact for continuous Gaussian noise and close for discrete Gaussian noise (Canonne, Kamath &
    Steinke 2020); a mechanism that is merely ρ-zCDP need not be μ-GDP.

    Returns a dict: ``rho``, ``mu``, ``advantage`` and (with ``epsilon``) ``loss_sd`` (0 where ρ = 0).

    >>> r = gaussian_reading(2.0, 6.0)
    >>> r["mu"], round(r["advantage"], 6), r["loss_sd"]
    (2.0, 0.682689, 2.0)
    """
    r = check_positive(rho, "rho", allow_zero=True)
    mu = math.sqrt(2.0 * r) if r < 8e307 else math.sqrt(2.0) * math.sqrt(r)  # 2ρ overflows for ρ > 9e307
    advantage = 0.0 if mu == 0.0 else float(gaussian_delta(0.0, mu)[0])
    out = dict(rho=r, mu=mu, advantage=advantage)
    if epsilon is not None:
        e = check_positive(epsilon, "epsilon", allow_zero=True)
        out["loss_sd"] = 0.0 if mu == 0.0 else (e - r) / mu
    return out


def laplace_epsilon_for_accuracy(alpha_acc: float, beta_fail: float, sensitivity: float = 1.0) -> float:
    """Smallest ε for which the Laplace mechanism answers one query of sensitivity Δ within ±α<sub>acc</sub> with
    probability ≥ 1 − β<sub>fail</sub>.

    P[|Lap(b)| ≥ t] = e^{−t/b} (Dwork & Roth 2014, Thm 3.8 with k = 1), so the scale may be at most
    b = α / ln(1/β), and the Laplace mechanism with b = Δ/ε (Dwork & Roth 2014, Def. 3.3) needs

        ε = Δ·ln(1/β) / α   (+inf where that exceeds the double range).

    >>> round(laplace_epsilon_for_accuracy(10.0, 0.05), 6)
    0.299573
    """
    a = check_positive(alpha_acc, "alpha_acc")
    b = check_in_range(beta_fail, "beta_fail", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    s = check_positive(sensitivity, "sensitivity")
    return _laplace_epsilon(a, b, s)


def _laplace_epsilon(a, b: float, s: float):
    """Δ·ln(1/β)/α on validated input (``a`` a number or an array), +inf where it overflows, never a warning."""
    with np.errstate(over="ignore"):
        out = np.multiply(s, -math.log(b)) / np.asarray(a, dtype=float)
    return float(out) if np.ndim(out) == 0 else out


def _normal_quantile_two_sided(b: float) -> float:
    """Φ⁻¹(1 − β/2), accurate for tiny β, also where β/2 underflows (from ln(β/2): ndtri_exp)."""
    return float(-special.ndtri_exp(math.log(b) - math.log(2.0)))


def gaussian_sigma_for_accuracy(alpha_acc, beta_fail: float):
    """Largest σ with P[|N(0, σ²)| > α<sub>acc</sub>] ≤ β<sub>fail</sub>: σ = α / Φ⁻¹(1 − β/2) (the two-sided
    normal tail). Broadcasts over ``alpha_acc``.

    >>> round(gaussian_sigma_for_accuracy(1.959963984540054, 0.05), 9)
    1.0
    """
    a, sa = _nonneg_array(alpha_acc, "alpha_acc")
    if np.any(a == 0):
        raise ValueError("alpha_acc = 0 is not allowed: must be a finite number > 0.")
    b = check_in_range(beta_fail, "beta_fail", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    out = a / _normal_quantile_two_sided(b)
    return float(out[0]) if sa else out


def _gaussian_epsilon_at_sigma(sigma: np.ndarray, d: float, s: float) -> np.ndarray:
    """The exact ε(δ) of N(0, σ²) noise at sensitivity Δ = ``s``, for each σ: 0 where μ = Δ/σ underflows to 0,
    +inf where it overflows (a noise too small for any finite ε at this δ)."""
    flat = np.asarray(sigma, dtype=float).ravel()
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        mus = s / flat
    out = np.empty(flat.shape)
    for i, mu in enumerate(mus.tolist()):
        if mu == 0.0:
            out[i] = 0.0
        elif not math.isfinite(mu):
            out[i] = math.inf
        else:  # gaussian_epsilon_many: the exact inverse to ~1e-15 relative, always feasible
            out[i] = gaussian_epsilon_many(mu, [d])[0]
    return out.reshape(np.shape(sigma))


def _curve_cap(arr: np.ndarray, name: str) -> None:
    CURVE_POINTS.check(arr.size, f"len({name})")


def gaussian_epsilon_for_accuracy(alpha_acc, beta_fail: float, delta: float, sensitivity: float = 1.0):
    """Smallest ε for which the Gaussian mechanism is (ε, δ)-DP and answers one query of sensitivity Δ within
    ±α<sub>acc</sub> with probability ≥ 1 − β<sub>fail</sub>.

    The accuracy target allows σ ≤ σ<sub>max</sub> = α / Φ⁻¹(1 − β/2) (:func:`gaussian_sigma_for_accuracy`); the
    smallest ε whose analytic calibration (Balle & Wang 2018, Thm 8; :func:`dpviz.mechanisms.analytic_gaussian_sigma`)
    is at most σ<sub>max</sub> is the exact ε(δ) of the Gaussian mechanism with σ<sub>max</sub>, i.e.
    :func:`dpviz.mechanisms.gaussian_epsilon` at μ = Δ/σ<sub>max</sub> (+inf where μ overflows the double range).
    Broadcasts over ``alpha_acc`` (at most :data:`CURVE_POINTS` values).

    >>> e = gaussian_epsilon_for_accuracy(10.0, 0.05, 1e-6)
    >>> s = gaussian_sigma_for_accuracy(10.0, 0.05)
    >>> bool(abs(analytic_gaussian_sigma(e, 1e-6) / s - 1) < 1e-9)
    True
    """
    d = check_delta(delta, allow_zero=False)
    s = check_positive(sensitivity, "sensitivity")
    sigma = gaussian_sigma_for_accuracy(alpha_acc, beta_fail)
    _curve_cap(np.atleast_1d(sigma), "alpha_acc")
    out = _gaussian_epsilon_at_sigma(np.atleast_1d(sigma), d, s)
    return float(out[0]) if np.ndim(sigma) == 0 else out.reshape(np.shape(sigma))


def _log_ratio_gaussian_laplace(a: float, b: float, d: float, s: float) -> float:
    """ln(ε<sub>Gauss</sub>/ε<sub>Laplace</sub>) at α = ``a`` (−inf where the Gaussian needs ε = 0)."""
    e_g = _gaussian_epsilon_at_sigma(np.array([a / _normal_quantile_two_sided(b)]), d, s)[0]
    e_l = _laplace_epsilon(a, b, s)
    if e_g == 0.0:
        return -math.inf
    return math.log(e_g) - math.log(e_l)


def _first_crossing(f, grid: np.ndarray) -> float:
    """The first point of ``grid`` order where ``f`` (ln of a ratio) goes from > 0 to ≤ 0, refined by Brent's
    method in the same variable; ValueError if it never does on the grid."""
    values = [f(x) for x in grid.tolist()]
    for i in range(1, len(values)):
        if values[i - 1] > 0 >= values[i]:
            lo, hi = float(grid[i - 1]), float(grid[i])
            if values[i] == -math.inf:  # the Gaussian reaches ε = 0 first: bisect on the sign only
                g = (lambda x: 1.0 if f(x) > 0 else -1.0)  # noqa: E731
            else:
                g = f
            return brentq(g, lo, hi, xtol=1e-12 * max(abs(lo), abs(hi)), rtol=1e-12)
    raise ValueError("the Gaussian and the Laplace mechanism do not cross on the scanned range.")


def _no_crossing(message: str, **values) -> ValueError:
    shown = ", ".join(f"{k} = {v!r}" for k, v in values.items())
    return ValueError(f"{shown}: {message}")


def accuracy_crossover_alpha(beta_fail: float, delta: float, sensitivity: float = 1.0) -> float:
    """The accuracy target α<sub>acc</sub> above which the Gaussian mechanism at δ needs a smaller ε than the
    Laplace mechanism for one count within ±α<sub>acc</sub> with probability 1 − β<sub>fail</sub>
    (:func:`laplace_epsilon_for_accuracy` against :func:`gaussian_epsilon_for_accuracy`).

    For a small α<sub>acc</sub> (large ε) the Gaussian's ε grows like μ²/2 = Φ⁻¹(1 − β/2)²Δ²/(2α²), the Laplace one
    like 1/α, so the Laplace mechanism needs the smaller ε; for a large α<sub>acc</sub> the Gaussian's ε drops to 0
    (its total variation falls below δ) while the Laplace one stays positive. Found by scanning α/Δ on a log grid
    from 10⁻³ to 10¹² (20 points per decade) for the first change of sign of ln(ε<sub>Gauss</sub>/ε<sub>Laplace</sub>)
    and refining it by Brent's method to 12 digits (the crossing found first; the two curves are compared exactly at
    each point). Raises ValueError if they do not cross on that range.

    >>> a = accuracy_crossover_alpha(0.05, 1e-3)
    >>> bool(abs(gaussian_epsilon_for_accuracy(a, 0.05, 1e-3) / laplace_epsilon_for_accuracy(a, 0.05) - 1) < 1e-9)
    True
    """
    b = check_in_range(beta_fail, "beta_fail", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    d = check_delta(delta, allow_zero=False)
    s = check_in_range(sensitivity, "sensitivity", 1e-100, 1e100, low_inclusive=True)
    grid = s * np.logspace(-3, 12, 301)
    try:
        return _first_crossing(lambda a: _log_ratio_gaussian_laplace(a, b, d, s), grid)
    except ValueError:
        raise _no_crossing("the Gaussian and the Laplace mechanism do not cross for alpha_acc/sensitivity in "
                           "[1e-3, 1e12].", beta_fail=beta_fail, delta=delta, sensitivity=sensitivity) from None


def accuracy_crossover_beta(alpha_acc: float, delta: float, sensitivity: float = 1.0) -> float:
    """The failure probability β<sub>fail</sub> below which the Gaussian mechanism at δ needs a smaller ε than the
    Laplace mechanism for one count within ±α<sub>acc</sub> with probability 1 − β<sub>fail</sub>.

    The Laplace ε grows like ln(1/β)/α, the Gaussian one like μ²/2 ≈ ln(1/β)·Δ²/α² (Φ⁻¹(1 − β/2)² ≈ 2 ln(1/β)), so
    for a tiny β and α > Δ the Gaussian wins. Found by scanning β from ½ down to 10⁻³⁰⁰ on a log grid (10 points per
    decade) for the first change of sign of ln(ε<sub>Gauss</sub>/ε<sub>Laplace</sub>), refined by Brent's method in
    ln β. Raises ValueError if they do not cross on that range.

    >>> b = accuracy_crossover_beta(10.0, 1e-3)
    >>> bool(abs(gaussian_epsilon_for_accuracy(10.0, b, 1e-3) / laplace_epsilon_for_accuracy(10.0, b) - 1) < 1e-9)
    True
    """
    a = check_positive(alpha_acc, "alpha_acc")
    d = check_delta(delta, allow_zero=False)
    s = check_positive(sensitivity, "sensitivity")
    if not 1e-100 <= a / s <= 1e100:
        raise ValueError(f"alpha_acc = {alpha_acc!r} is not allowed with sensitivity = {sensitivity!r}: their ratio "
                         "must lie in [1e-100, 1e100].")
    grid = np.linspace(math.log(0.5), -300 * math.log(10), 3000)
    try:
        return math.exp(_first_crossing(lambda t: _log_ratio_gaussian_laplace(a, math.exp(t), d, s), grid))
    except ValueError:
        raise _no_crossing("the Gaussian and the Laplace mechanism do not cross for beta_fail in [1e-300, 0.5].",
                           alpha_acc=alpha_acc, delta=delta, sensitivity=sensitivity) from None


@functools.lru_cache(maxsize=256)
def _analytic_sigma(eps: float, delta: float) -> float:
    """:func:`~dpviz.mechanisms.analytic_gaussian_sigma` (ε, δ) at Δ = 1, memoised (a slider over k repeats it)."""
    return float(analytic_gaussian_sigma(eps, delta))


def _releases(releases) -> tuple[np.ndarray, bool]:
    """k (an integer in [1, 10⁶]) or an array of at most :data:`CURVE_POINTS` of them; returns (floats, scalar?)."""
    if _is_scalar(releases):
        return np.array([check_integer(releases, "releases", minimum=1, maximum=10**6)], dtype=float), True
    arr = check_real_array(releases, "releases").ravel()
    _curve_cap(arr, "releases")
    return np.array([check_integer(x, "releases", minimum=1, maximum=10**6) for x in arr.tolist()], dtype=float), False


def per_release_epsilon(epsilon_total: float, delta_total: float, releases) -> dict:
    """The per-release ε of :func:`per_release_budget` without the basic-composition σ (cheap enough for a curve
    over many k): ``k``, ``eps_basic`` = ε/k, ``delta_step`` = δ/k, ``sigma_exact``, ``eps_step_exact``.

    σ<sub>exact</sub>(k) = √k·σ₁ with σ₁ = :func:`~dpviz.mechanisms.analytic_gaussian_sigma` (ε, δ): δ(ε) of a
    Gaussian depends on Δ/σ only, so k releases of noise √k·σ₁ compose to exactly one of noise σ₁ (Dong, Roth &
    Su 2022, Cor. 3.3). ``releases``: an integer k in [1, 10⁶] or at most :data:`CURVE_POINTS` of them.

    >>> r = per_release_epsilon(1.0, 1e-6, [1, 4])
    >>> bool(abs(r["eps_step_exact"][0] - 1.0) < 1e-9), bool(r["eps_step_exact"][1] > r["eps_basic"][1])
    (True, True)
    """
    eps = check_positive(epsilon_total, "epsilon_total")
    d = check_delta(delta_total, "delta_total", allow_zero=False)
    k, scalar = _releases(releases)
    if np.any(d / k == 0.0):
        raise ValueError(f"delta_total = {delta_total!r} is not allowed with releases up to {int(k.max())}: δ/k "
                         "underflows to 0 (must be a number in (0, 1) with δ/k > 0).")
    sigma_exact = np.sqrt(k) * _analytic_sigma(eps, d)
    # one vectorised inverse per k (gaussian_epsilon_many: within ~1e-15 of the exact ε(δ), and feasible)
    eps_step = np.array([gaussian_epsilon_many(1.0 / s, [d / kk])[0] for s, kk in zip(sigma_exact, k)])
    out = dict(k=k, eps_basic=eps / k, delta_step=d / k, sigma_exact=sigma_exact, eps_step_exact=eps_step)
    if scalar:
        return {name: float(v[0]) for name, v in out.items()}
    return out


def per_release_budget(epsilon_total: float, delta_total: float, releases) -> dict:
    """What each of k releases may spend when one person's total over the period is (ε, δ).

    * basic composition (Dwork & Roth 2014, Thm 3.16): each release gets (ε/k, δ/k); a Gaussian release of
      sensitivity 1 then needs σ<sub>basic</sub> = :func:`~dpviz.mechanisms.analytic_gaussian_sigma` (ε/k, δ/k);
    * exact composition of k Gaussian releases: k Gaussians of noise σ are one Gaussian of noise σ/√k (Dong, Roth &
      Su 2022, Cor. 3.3), so the smallest σ is σ<sub>exact</sub> = √k·σ₁, σ₁ the analytic σ for (ε, δ) (the same
      as :func:`dpviz.accountants.compare.exact_gaussian_sigma`); one such release, on its own at δ/k, is
      (ε<sub>step</sub>, δ/k)-DP with ε<sub>step</sub> = its exact ε(δ/k) ≥ ε/k: the per-release ε the accountant
      lets you spend (:func:`per_release_epsilon`).

    ``releases`` is an integer k in [1, 10⁶] or at most :data:`CURVE_POINTS` of them. Returns a dict of arrays
    (or floats for a scalar k): ``k``, ``eps_basic``, ``delta_step``, ``sigma_basic``, ``sigma_exact``,
    ``eps_step_exact``.

    >>> r = per_release_budget(1.0, 1e-6, 1)
    >>> bool(abs(r["sigma_basic"] / r["sigma_exact"] - 1) < 1e-12)
    True
    """
    out = per_release_epsilon(epsilon_total, delta_total, releases)
    k = np.atleast_1d(out["k"])
    eps, d = float(epsilon_total), float(delta_total)  # validated by per_release_epsilon
    sigma_basic = np.atleast_1d(analytic_gaussian_sigma(eps / k, d / k))
    out["sigma_basic"] = float(sigma_basic[0]) if np.ndim(out["k"]) == 0 else sigma_basic
    return out


def accuracy_curves(alphas, beta_fail: float, delta: float, sensitivity: float = 1.0) -> dict:
    """The smallest ε for each accuracy target of a grid ``alphas`` (α<sub>acc</sub> > 0, at most
    :data:`CURVE_POINTS` of them), as curves: :func:`laplace_epsilon_for_accuracy` (closed form, Dwork & Roth
    2014, Thm 3.8) and :func:`gaussian_epsilon_for_accuracy` at δ (Balle & Wang 2018, Thm 8). Returns a dict of
    arrays ``alpha``, ``epsilon_laplace``, ``epsilon_gaussian`` (0 where a Gaussian with that much noise is
    (0, δ)-DP already; +inf where an ε exceeds the double range).

    >>> c = accuracy_curves([10.0], 0.05, 1e-6)
    >>> bool(abs(analytic_gaussian_sigma(c["epsilon_gaussian"][0], 1e-6) / gaussian_sigma_for_accuracy(10.0, 0.05)
    ...          - 1) < 1e-9)
    True
    """
    a = check_real_array(alphas, "alphas", ndim=1)
    if np.any(a <= 0):
        raise ValueError(f"alphas contains {float(a[a <= 0][0])!r}, which is not allowed: must be numbers > 0.")
    _curve_cap(a, "alphas")
    b = check_in_range(beta_fail, "beta_fail", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    d = check_delta(delta, allow_zero=False)
    s = check_positive(sensitivity, "sensitivity")
    sigma = a / _normal_quantile_two_sided(b)
    return dict(alpha=a, epsilon_laplace=_laplace_epsilon(a, b, s),
                epsilon_gaussian=_gaussian_epsilon_at_sigma(sigma, d, s))
