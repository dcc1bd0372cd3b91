"""Baselines every user-level mean comparison needs (defined here, not algorithms of the papers; Levy et al. 2021, §1,
only notes that such naive mechanisms have an error independent of m).

* non-private mean of all n·m samples (MSE Var/(nm));
* naive user-level mechanism: clip each user's average to [−B, B] (ℓ₂ ball in d-D), add Laplace (ℓ₁ sensitivity)
  or Gaussian (ℓ₂ sensitivity 2B/n) noise — its noise does not fall with m;
* an item-level Laplace mechanism lifted to user level by group privacy (a user = a group of m items; the budget
  from :func:`dpviz.accountants.group.group_privacy_item_budget`, Ghazi et al. 2023, Lemma 6).

Neighbours are replace-one (n public), so the mean of n values in [−B, B] has sensitivity 2B/n.

Two names here have their one home elsewhere and are re-exported because lesson 12 and its tests import them from
:mod:`dpviz.mean`: :func:`classic_gaussian_sigma`, the textbook σ = Δ₂√(2 ln(1.25/δ))/ε (Dwork & Roth 2014,
Thm A.1), from :mod:`dpviz.mechanisms`; and :func:`group_privacy_item_budget`, the item-level (ε₀, δ₀) whose group
privacy lift is (ε, δ), from :mod:`dpviz.accountants.group`: the exact inverse of Lemma 6 of Ghazi et al. 2023,
ε₀ = ε/m and δ₀ = δ(e^{ε/m} − 1)/(e^{ε} − 1), so lessons 11, 12 and 14 share one definition (lesson 12 used to divide δ
by the looser m·e^{(m−1)ε/m}: 4.07·10⁻⁸ instead of 6.12·10⁻⁸ at (ε, δ, m) = (1, 10⁻⁶, 10)).
"""

from __future__ import annotations

import math

import numpy as np

from dpviz._validation import as_rng, check_choice, check_positive, evaluate_finite, finite_result
from dpviz.accountants.group import group_privacy_item_budget  # re-exported (one home: see the module docstring)
from dpviz.mean.bounds import _tau_safe_1d, _theorem1_beta, _wme_noise_variance
from dpviz.mean.hadamard import COUNT, SCALE, check_params, data_array
from dpviz.mechanisms import classic_gaussian_sigma  # re-exported (one home: see the module docstring)

__all__ = [
    "nonprivate_mean",
    "naive_clipped_mean",
    "classic_gaussian_sigma",
    "group_privacy_item_budget",
    "group_privacy_mean",
    "nonprivate_mse",
    "naive_laplace_mse",
    "naive_gaussian_mse",
    "wme_mse",
    "wme_safe_curve",
    "item_level_mse",
]


def nonprivate_mean(data) -> np.ndarray | float:
    """Mean of all samples (n users × m samples [× d]); not private. MSE = Var(P)/(nm) for iid data.

    >>> nonprivate_mean([[0.0, 1.0], [1.0, 1.0]])
    0.75
    """
    x = data_array(data, "data", ndim=(1, 2, 3))
    if x.ndim == 3:
        return x.reshape(-1, x.shape[-1]).mean(axis=0)
    return float(x.mean())


def naive_clipped_mean(user_values, epsilon: float, bound: float, *, noise: str = "laplace",
                       delta: float | None = None, rng=None) -> np.ndarray | float:
    """Naive user-level DP mean: clip each user's value to [−B, B] (ℓ₂ ball of radius B in d-D), average, add noise.

    * ``"laplace"``: ε-DP, Lap(Δ₁/ε) per coordinate with Δ₁ = 2B/n in 1-D (2B√d/n in d-D); 1-D variance
      8B²/(n²ε²);
    * ``"gaussian"``: (ε, δ)-DP, N(0, σ²I) with σ = (2B/n)√(2 ln(1.25/δ))/ε (classic Gaussian mechanism,
      Dwork & Roth 2014 Thm A.1, for ε < 1); noise MSE 8dB²ln(1.25/δ)/(n²ε²).

    Parameters
    ----------
    user_values : array_like, shape (n,) or (n, d)
        One value (e.g. the user's average) per user.

    >>> naive_clipped_mean(np.zeros(10**6), 1.0, 1.0, rng=0) == 0.0
    False
    """
    x = data_array(user_values, "user_values", ndim=(1, 2))
    eps = check_positive(epsilon, "epsilon")
    bound = SCALE.check(bound, "bound")
    check_choice(noise, "noise", ("laplace", "gaussian"))
    g = as_rng(rng)
    n = x.shape[0]
    if x.ndim == 1:
        clipped = np.clip(x, -bound, bound)
        d = 1
    else:
        norms = np.linalg.norm(x, axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = np.where(norms > bound, bound / np.where(norms > 0, norms, 1.0), 1.0)
        clipped = x * factor
        d = x.shape[1]
    mean = clipped.mean(axis=0)
    if noise == "laplace":
        scale = evaluate_finite(lambda: 2.0 * bound * math.sqrt(d) / (n * eps), "the Laplace scale 2B√d/(nε)",
                                 epsilon=epsilon, bound=bound, n=n)
        out = mean + g.laplace(0.0, scale, size=np.shape(mean))
    else:
        if delta is None:
            raise ValueError("delta = None is not allowed: must be a number in (0, 1) for Gaussian noise.")
        sigma = classic_gaussian_sigma(eps, delta, 2.0 * bound / n)
        out = mean + g.normal(0.0, sigma, size=np.shape(mean))
    return float(out) if x.ndim == 1 else out


def group_privacy_mean(data, epsilon: float, bound: float, *, rng=None) -> float:
    """Item-level Laplace mean of all n·m samples, lifted to user level by group privacy (1-D).

    Item-level sensitivity of the mean of nm values in [−B, B] is 2B/(nm); run at ε₀ = ε/m the noise scale is
    2B/(nm)/(ε/m) = 2B/(nε): exactly the naive user-level noise, independent of m (Levy et al. 2021, §1: "using the
    group property with item-level DP estimators" gives error independent of m).

    Parameters
    ----------
    data : array_like, shape (n, m)
    """
    x = data_array(data, "data", ndim=2)
    bound = SCALE.check(bound, "bound")
    n, m = x.shape
    e0, _ = group_privacy_item_budget(epsilon, 0.0, m)
    scale = evaluate_finite(lambda: 2.0 * bound / (n * m * e0), "the Laplace scale 2B/(nmε₀)",
                             epsilon=epsilon, bound=bound, n=n, m=m)
    g = as_rng(rng)
    return float(np.clip(x, -bound, bound).mean() + g.laplace(0.0, scale))


# ---------------------------------------------------------------------------------------- closed-form MSEs


def nonprivate_mse(variance: float, n: int, m: int) -> float:
    """Var(P)/(nm): the mean of all samples, iid users (Cor 1 of Levy et al. 2021, first term).

    >>> nonprivate_mse(1.0, 100, 10)
    0.001
    """
    n, m, variance = check_params(n=n, m=m, variance=variance)
    return _nonprivate_mse(variance, n, m)


def _nonprivate_mse(variance, n, m):
    """Var/(nm) on checked numbers (n·m ≤ 1e30 as Python integers: no overflow) or arrays of m (float)."""
    return variance / (n * m)


def naive_laplace_mse(variance: float, n: int, m: int, epsilon: float, bound: float) -> float:
    """Var/(nm) + 8B²/(n²ε²): naive Laplace on user means in [−B, B]; flat in m.

    >>> naive_laplace_mse(0.0, 100, 10, 1.0, 1.0)
    0.0008
    """
    n, m, eps, bound = check_params(n=n, m=m, epsilon=epsilon, bound=bound)
    base = nonprivate_mse(variance, n, m)
    return evaluate_finite(lambda: base + 8.0 * bound ** 2 / (n * eps) ** 2, "the MSE",
                            variance=variance, n=n, epsilon=epsilon, bound=bound)


def naive_gaussian_mse(variance: float, n: int, m: int, epsilon: float, delta: float, bound: float,
                       d: int = 1) -> float:
    """Var/(nm) + 8dB²ln(1.25/δ)/(n²ε²): naive Gaussian on user means.

    The noise term is d·σ² for the textbook σ = (2B/n)·√(2 ln(1.25/δ))/ε
    (:func:`dpviz.mechanisms.classic_gaussian_sigma`, Dwork & Roth 2014, Thm A.1), computed there at sensitivity 1
    and scaled by (2B/n)².

    >>> round(naive_gaussian_mse(0.0, 10_000, 10, 1.0, 1e-6, 1.0, d=16), 8)  # n = 10⁴ users, m = 10, d = 16
    1.797e-05
    """
    n, m, eps, delta, bound, d = check_params(n=n, m=m, epsilon=epsilon, delta=delta, bound=bound, d=d)
    base = nonprivate_mse(variance, n, m)
    sigma1 = classic_gaussian_sigma(eps, delta)  # σ at sensitivity 1 (2B/n may overflow; B/n and σ₁ apart do not)
    return evaluate_finite(lambda: base + d * (2.0 * (bound / n) * sigma1) ** 2, "the MSE",
                            variance=variance, n=n, epsilon=epsilon, delta=delta, bound=bound, d=d)


def wme_mse(variance: float, n: int, m: int, epsilon: float, tau: float) -> float:
    """Var/(nm) + 128τ²/(n²ε²): MSE of the ideal estimator of Theorem 1 (Levy et al. 2021) — β-close to Algorithm 1's
    output.

    >>> wme_mse(0.0, 100, 10, 1.0, 0.5)
    0.0032
    """
    n, m, eps, tau, variance = check_params(n=n, m=m, epsilon=epsilon, tau=tau, variance=variance)
    return evaluate_finite(lambda: _wme_mse(variance, n, m, eps, tau), "the MSE",
                            variance=variance, n=n, epsilon=epsilon, tau=tau)


def _wme_mse(variance, n, m, eps, tau):
    """:func:`wme_mse` on checked numbers, or arrays of m (float) and τ."""
    return _nonprivate_mse(variance, n, m) + _wme_noise_variance(n, eps, tau)


def wme_safe_curve(variance: float, n: int, ms, epsilon: float, bound: float, gamma: float) -> dict[str, np.ndarray]:
    """For every m in ``ms``, at the safe radius τ = :func:`~dpviz.mean.tau_safe` (B, m, n, γ): the ideal MSE
    :func:`wme_mse` (Var/(nm) + 128τ²/(n²ε²), Levy et al. 2021, Thm 1) and Theorem 1's failure probability β =
    :func:`~dpviz.mean.theorem1_beta` (as printed), as arrays ``"tau"``, ``"mse"``, ``"beta"``.

    One vectorised evaluation, validated once, of the same private kernels those functions apply to one m at a time
    (a panel drawing 3 × 40 values of m called them 480 times per slider move); the numbers agree to the last bit or
    the last but one (numpy squares a float64 array and a float64 scalar by different routines). ``ms``: counts
    (integers in [1, 10¹⁵]).

    >>> c = wme_safe_curve(0.0, 100, [10, 1000], 1.0, 1.0, 0.01)
    >>> [round(float(v), 6) for v in c["mse"]]
    [0.025353, 0.000254]
    """
    n, eps, bound, variance, gamma = check_params(n=n, epsilon=epsilon, bound=bound, variance=variance,
                                                     gamma=gamma)
    mm = np.asarray(ms)
    if (mm.ndim != 1 or not mm.size or not np.issubdtype(mm.dtype, np.number)
            or not np.all(np.isfinite(mm)) or np.any(mm != np.round(mm))
            or np.any(mm < 1) or np.any(mm > COUNT.high)):
        raise ValueError(f"ms = {ms!r} is not allowed: must be a non-empty 1-D array of integers in [1, 1e15] "
                         "(samples per user).")
    mm = mm.astype(np.int64)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        tau = _tau_safe_1d(bound, mm, n, gamma)
        mse = _wme_mse(variance, n, mm.astype(float), eps, tau)
        beta = _theorem1_beta(n, eps, tau, bound, gamma)
    if not (np.all(np.isfinite(tau)) and np.all(np.isfinite(mse))):
        finite_result(math.inf, "the MSE", variance=variance, n=n, epsilon=epsilon, bound=bound, gamma=gamma)
    return {"tau": tau, "mse": mse, "beta": beta}


def item_level_mse(variance: float, n: int, m: int, epsilon: float, bound: float) -> float:
    """Var/(nm) + 8B²/((nm)²ε²): Laplace if each of the nm samples were a different person (item-level reference).

    >>> item_level_mse(0.0, 100, 10, 1.0, 1.0)
    8e-06
    """
    n, m, eps, bound = check_params(n=n, m=m, epsilon=epsilon, bound=bound)
    base = nonprivate_mse(variance, n, m)
    return evaluate_finite(lambda: base + 8.0 * bound ** 2 / (n * m * eps) ** 2, "the MSE",
                            variance=variance, n=n, m=m, epsilon=epsilon, bound=bound)
