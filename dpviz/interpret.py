"""What ε means and how it is chosen (lesson 06): the Bayesian reading of a guarantee and the calibration of ε.

* :func:`posterior_bound` — the most an observer's belief that a person is in the data (or has an attribute) can
  grow after seeing the output: with prior p, the posterior is at most e^ε·p / (1 − p + e^ε·p) under ε-DP; under
  (ε, δ)-DP the bound depends on how likely the observed event is, and δ > 0 makes it vacuous for rare events;
* :func:`epsilon_for_posterior` — the largest ε that keeps the posterior below a cap (the inverse);
* :func:`laplace_epsilon_for_accuracy`, :func:`gaussian_epsilon_for_accuracy` — from an accuracy target on a count
  (error ≤ α<sub>acc</sub> with probability ≥ 1 − β<sub>fail</sub>) to the smallest ε that meets it;
* :func:`per_release_budget` — from a budget per person per year to what each of k releases may spend, under basic
  composition and under exact composition of Gaussian releases.

The Bayesian setting (Kasiviswanathan & Smith 2014; Wasserman & Zhou 2010): an observer knows everything about the
data except one fact about one person — in or out (add/remove-one neighbours), or the value of one attribute
(replace-one neighbours) — and holds the prior belief p that the fact is "in" (x) rather than "out" (x′), x and x′
neighbours. For any event S of outputs, Bayes' rule gives P[in | S] = p·P[S | x] / (p·P[S | x] + (1 − p)·P[S | x′]),
and the definition of (ε, δ)-DP (Dwork & Roth 2014, Def. 2.4), P[S | x] ≤ e^ε·P[S | x′] + δ, bounds the posterior.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from dpviz._validation import check_delta, check_in_range, check_integer, check_positive, check_real_array
from dpviz.mechanisms.gaussian import analytic_gaussian_sigma, gaussian_epsilon_many

__all__ = [
    "posterior_bound",
    "epsilon_for_posterior",
    "laplace_epsilon_for_accuracy",
    "gaussian_sigma_for_accuracy",
    "gaussian_epsilon_for_accuracy",
    "per_release_budget",
    "per_release_epsilon",
    "accuracy_curves",
]


def _unit_array(value, name: str, *, open_low: bool = False, open_high: bool = False):
    """``value`` (a number or an array) checked to lie in [0, 1] (ends optionally open); returns (array, scalar?)."""
    lo = "(" if open_low else "["
    hi = ")" if open_high else "]"
    if np.ndim(value) == 0 and not isinstance(value, (list, tuple)):
        x = check_in_range(value, name, 0.0, 1.0, low_inclusive=not open_low, high_inclusive=not open_high)
        return np.array([x]), True
    arr = check_real_array(value, name, allow_empty=True)
    bad = (arr < 0) | (arr > 1) | ((arr == 0) & open_low) | ((arr == 1) & open_high)
    if np.any(bad):
        raise ValueError(f"{name} contains {float(arr[bad].ravel()[0])!r}, which is not allowed: must be numbers in "
                         f"{lo}0, 1{hi}.")
    return arr, False


def _nonneg_array(value, name: str):
    if np.ndim(value) == 0 and not isinstance(value, (list, tuple)):
        return np.array([check_positive(value, name, allow_zero=True)]), True
    arr = check_real_array(value, name, allow_empty=True)
    if np.any(arr < 0):
        raise ValueError(f"{name} contains {float(arr[arr < 0].ravel()[0])!r}, which is not allowed: must be finite "
                         "numbers >= 0.")
    return arr, False


def posterior_bound(prior, epsilon, delta: float = 0.0, *, event_probability=None):
    """The largest posterior P[in | output in S] an (ε, δ)-DP release allows, for the prior P[in] = ``prior``.

    **Worst case over all events** (``event_probability`` not given). Under ε-DP, P[S | x] ≤ e^ε·P[S | x′] for
    every S, so the posterior odds are at most e^ε times the prior odds (Kasiviswanathan & Smith 2014; Wasserman &
    Zhou 2010), i.e.

        P[in | S] ≤ e^ε·p / (1 − p + e^ε·p)   (computed as expit(ε + logit p), no overflow).

    The bound is attained: binary randomized response with parameter ε (Warner 1965) reaches it when the
    observer sees the answer "in". Under (ε, δ)-DP with δ > 0 the worst case over events is 1 (for p > 0): see
    the next paragraph.

    **An event of known probability** (``event_probability`` = q = P[S | x′], the probability of the observed
    event if the person is out). Now P[S | x] ≤ min(1, e^ε·q + δ), and Bayes' rule gives the tight bound

        P[in | S] ≤ p·a / (p·a + (1 − p)·q),   a = min(1, e^ε·q + δ),

    attained by a mechanism with P[S | x] = a. It grows to 1 as q → 0 when δ > 0: an event that is rare when the
    person is out can be almost proof that they are in, because δ is an absolute, not a relative, slack. For
    common events (q ≫ δ·e^{−ε}) it is close to the ε-only bound, and below it once e^ε·q + δ > 1.

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
    float, or an array of the broadcast shape.

    Examples
    --------
    >>> round(posterior_bound(0.5, math.log(3)), 12)
    0.75
    >>> posterior_bound(0.01, 1.0, 1e-3)
    1.0
    >>> round(posterior_bound(0.5, math.log(3), 0.01, event_probability=0.25), 12)
    0.752475247525
    """
    p, sp = _unit_array(prior, "prior")
    e, se = _nonneg_array(epsilon, "epsilon")
    d = check_delta(delta)
    scalar = sp and se
    if d == 0.0 and event_probability is None:
        p, e = np.broadcast_arrays(p, e)
        with np.errstate(divide="ignore"):
            logit = np.log(p) - np.log1p(-p)  # −inf at p = 0, +inf at p = 1
        out = np.where(p == 0, 0.0, np.where(p == 1, 1.0, special.expit(e + np.where(np.isfinite(logit), logit, 0))))
        return float(out.ravel()[0]) if scalar else out
    if event_probability is None:
        p, e = np.broadcast_arrays(p, e)
        out = np.where(p > 0, 1.0, 0.0)
        return float(out.ravel()[0]) if scalar else out
    q, sq = _unit_array(event_probability, "event_probability", open_low=True)
    scalar = scalar and sq
    p, e, q = np.broadcast_arrays(p, e, q)
    with np.errstate(over="ignore"):
        a = np.minimum(1.0, np.exp(e) * q + d)
    num = p * a
    out = num / (num + (1.0 - p) * q)
    return float(out.ravel()[0]) if scalar else out


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


def laplace_epsilon_for_accuracy(alpha_acc: float, beta_fail: float, sensitivity: float = 1.0) -> float:
    """Smallest ε for which the Laplace mechanism answers one query of sensitivity Δ within ±α<sub>acc</sub> with
    probability ≥ 1 − β<sub>fail</sub>.

    P[|Lap(b)| ≥ t] = e^{−t/b} (Dwork & Roth 2014, Thm 3.8 with k = 1), so the scale may be at most
    b = α / ln(1/β), and the Laplace mechanism with b = Δ/ε (Dwork & Roth 2014, Def. 3.3) needs

        ε = Δ·ln(1/β) / α.

    >>> round(laplace_epsilon_for_accuracy(10.0, 0.05), 6)
    0.299573
    """
    a = check_positive(alpha_acc, "alpha_acc")
    b = check_in_range(beta_fail, "beta_fail", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    s = check_positive(sensitivity, "sensitivity")
    return s * -math.log(b) / a


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
    z = -special.ndtri(b / 2.0)  # Φ⁻¹(1 − β/2), accurate for tiny β
    out = a / z
    return float(out[0]) if sa else out


def gaussian_epsilon_for_accuracy(alpha_acc, beta_fail: float, delta: float, sensitivity: float = 1.0):
    """Smallest ε for which the Gaussian mechanism is (ε, δ)-DP and answers one query of sensitivity Δ within
    ±α<sub>acc</sub> with probability ≥ 1 − β<sub>fail</sub>.

    The accuracy target allows σ ≤ σ<sub>max</sub> = α / Φ⁻¹(1 − β/2) (:func:`gaussian_sigma_for_accuracy`); the
    smallest ε whose analytic calibration (Balle & Wang 2018, Thm 8; :func:`dpviz.mechanisms.analytic_gaussian_sigma`)
    is at most σ<sub>max</sub> is the exact ε(δ) of the Gaussian mechanism with σ<sub>max</sub>, i.e.
    :func:`dpviz.mechanisms.gaussian_epsilon` at μ = Δ/σ<sub>max</sub>. Broadcasts over ``alpha_acc``.

    >>> e = gaussian_epsilon_for_accuracy(10.0, 0.05, 1e-6)
    >>> s = gaussian_sigma_for_accuracy(10.0, 0.05)
    >>> bool(abs(analytic_gaussian_sigma(e, 1e-6) / s - 1) < 1e-9)
    True
    """
    d = check_delta(delta, allow_zero=False)
    s = check_positive(sensitivity, "sensitivity")
    sigma = gaussian_sigma_for_accuracy(alpha_acc, beta_fail)
    # gaussian_epsilon_many: the exact inverse to ~1e-15 relative, always feasible, far cheaper than a root find
    out = np.array([gaussian_epsilon_many(s / sg, [d])[0] for sg in np.atleast_1d(sigma).ravel()])
    return float(out[0]) if np.ndim(sigma) == 0 else out.reshape(np.shape(sigma))


@functools.lru_cache(maxsize=256)
def _analytic_sigma(eps: float, delta: float) -> float:
    """:func:`~dpviz.mechanisms.analytic_gaussian_sigma` (ε, δ) at Δ = 1, memoised (a slider over k repeats it)."""
    return float(analytic_gaussian_sigma(eps, delta))


def _releases(releases) -> tuple[np.ndarray, bool]:
    scalar = np.ndim(releases) == 0 and not isinstance(releases, (list, tuple))
    ks = [releases] if scalar else list(np.asarray(releases).ravel().tolist())
    return np.array([check_integer(x, "releases", minimum=1, maximum=10**6) for x in ks], dtype=float), scalar


def per_release_epsilon(epsilon_total: float, delta_total: float, releases) -> dict:
    """The per-release ε of :func:`per_release_budget` without the basic-composition σ (cheap enough for a curve
    over many k): ``k``, ``eps_basic`` = ε/k, ``delta_step`` = δ/k, ``sigma_exact``, ``eps_step_exact``.

    σ<sub>exact</sub>(k) = √k·σ₁ with σ₁ = :func:`~dpviz.mechanisms.analytic_gaussian_sigma` (ε, δ): δ(ε) of a
    Gaussian depends on Δ/σ only, so k releases of noise √k·σ₁ compose to exactly one of noise σ₁ (Dong, Roth &
    Su 2022, Cor. 3.3).

    >>> r = per_release_epsilon(1.0, 1e-6, [1, 4])
    >>> bool(abs(r["eps_step_exact"][0] - 1.0) < 1e-9), bool(r["eps_step_exact"][1] > r["eps_basic"][1])
    (True, True)
    """
    eps = check_positive(epsilon_total, "epsilon_total")
    d = check_delta(delta_total, "delta_total", allow_zero=False)
    k, scalar = _releases(releases)
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

    ``releases`` is an integer k ≥ 1 or an array of them. Returns a dict of arrays (or floats for a scalar k):
    ``k``, ``eps_basic``, ``delta_step``, ``sigma_basic``, ``sigma_exact``, ``eps_step_exact``.

    >>> r = per_release_budget(1.0, 1e-6, 1)
    >>> bool(abs(r["sigma_basic"] / r["sigma_exact"] - 1) < 1e-12)
    True
    """
    out = per_release_epsilon(epsilon_total, delta_total, releases)
    k = np.atleast_1d(out["k"])
    sigma_basic = np.atleast_1d(analytic_gaussian_sigma(float(epsilon_total) / k, float(delta_total) / k))
    out["sigma_basic"] = float(sigma_basic[0]) if np.ndim(out["k"]) == 0 else sigma_basic
    return out


def accuracy_curves(alphas, beta_fail: float, delta: float, sensitivity: float = 1.0) -> dict:
    """The smallest ε for each accuracy target of a grid ``alphas`` (α<sub>acc</sub> > 0), as curves:
    :func:`laplace_epsilon_for_accuracy` (closed form, Dwork & Roth 2014, Thm 3.8) and
    :func:`gaussian_epsilon_for_accuracy` at δ (Balle & Wang 2018, Thm 8). Returns a dict of arrays ``alpha``,
    ``epsilon_laplace``, ``epsilon_gaussian`` (0 where a Gaussian with that much noise is (0, δ)-DP already).

    >>> c = accuracy_curves([10.0], 0.05, 1e-6)
    >>> bool(abs(analytic_gaussian_sigma(c["epsilon_gaussian"][0], 1e-6) / gaussian_sigma_for_accuracy(10.0, 0.05)
    ...          - 1) < 1e-9)
    True
    """
    a = check_real_array(alphas, "alphas", ndim=1)
    if np.any(a <= 0):
        raise ValueError(f"alphas contains {float(a[a <= 0][0])!r}, which is not allowed: must be numbers > 0.")
    b = check_in_range(beta_fail, "beta_fail", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    d = check_delta(delta, allow_zero=False)
    s = check_positive(sensitivity, "sensitivity")
    return dict(alpha=a, epsilon_laplace=s * -math.log(b) / a,
                epsilon_gaussian=gaussian_epsilon_for_accuracy(a, b, d, s))
