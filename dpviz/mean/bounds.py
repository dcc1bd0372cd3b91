"""Closed forms of Levy et al. 2021 ("Learning with User-Level Privacy"): the theorem calculators of lesson 12.

The algorithms live in :mod:`dpviz.mean.winsorized`; this module holds every number a theorem of Levy et al. 2021 states
about them, each once:

* the radius presets τ (:func:`tau_paper` of Corollary 1, :func:`tau_safe`, :func:`tau_subgaussian`, the non-private
  :func:`tau_oracle`) and the per-coordinate parameters of Algorithm 2 (:func:`highd_parameters`);
* noise variances (:func:`wme_1d_noise_variance`, :func:`wme_highd_noise_variance`), the β's of Theorems 1 and 2
  (:func:`theorem1_beta`, :func:`theorem2_beta`), Theorem 10's budget and variance bound, the explicit Corollary 1
  bound, the fixed-n floor of Theorem 8 and the 1-D crossover m*;
* :func:`wme_mse_bound` and :func:`best_budget_split`, the Theorem 1 MSE over a grid of (n, m), for maps (lesson 12's
  fixed-budget panel); they broadcast over numpy arrays.

Validation happens once in the public functions (:func:`dpviz.mean.hadamard.check_params`: one meaning per parameter
name); the private kernels ``_tau_safe``, ``_theorem1_beta``, ``_coef_exp`` take checked numbers or arrays.
Advanced composition is not re-derived here: :func:`advanced_composition_epsilon` calls
:func:`dpviz.accountants.advanced.drv_epsilon`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpviz._validation import (
    check_choice,
    check_delta,
    check_integer,
    check_positive,
    check_probability,
    check_real_array,
    evaluate_finite,
    exp_or_inf,
    finite_result,
)
from dpviz.accountants.advanced import drv_epsilon
from dpviz.mean.hadamard import COUNT, ELEMENTS, HALF_WIDTH, check_params, next_power_of_two, real_counts

__all__ = [
    "C0",
    "TAU_PRESETS",
    "highd_parameters",
    "theorem10_budget",
    "advanced_composition_epsilon",
    "tau_paper",
    "tau_safe",
    "tau_oracle",
    "tau_subgaussian",
    "tau_for",
    "wme_1d_noise_variance",
    "wme_highd_noise_variance",
    "theorem1_beta",
    "theorem2_beta",
    "theorem10_variance_bound",
    "corollary1_mse_bound",
    "theorem8_floor",
    "theorem8_mean_floor",
    "crossover_m",
    "wme_mse_bound",
    "best_budget_split",
]

#: c₀ = 102,400 = 128·100·8 of Theorem 2 (Levy et al. 2021): exactly the Laplace variance of Algorithm 2 (derived
#: here: d·2·(8τ′/(nε′))² with the ε′ and τ′ of Algorithm 2).
C0 = 102_400

TAU_PRESETS = ("safe", "paper", "oracle")


@dataclass(frozen=True)
class HighDParameters:
    """Per-coordinate parameters of Algorithm 2 of Levy et al. 2021 (with d the padded dimension, a power of two)."""

    d: int
    d_pad: int
    epsilon_coord: float
    tau_coord: float
    bound_coord: float
    noise_scale: float


def highd_parameters(n: int, d: int, epsilon: float, delta: float, tau: float, bound: float,
                     gamma: float = 0.01) -> HighDParameters:
    """ε′ = ε/√(8 d log(1/δ)), τ′ = 10τ√(log(dn/γ)/d), range √d·B, Laplace scale 8τ′/(nε′) (Levy et al. 2021,
    Algorithm 2).

    d is the padded dimension 2^⌈log₂ d⌉ throughout (the Hadamard matrix needs a power of two; the proof of Thm 2 writes
    τ′ = 10τ√log(nd/α)/d, a typo for /√d).

    >>> p = highd_parameters(10_000, 16, 1.0, 1e-6, 0.269, 1.0, gamma=0.01)
    >>> round(p.epsilon_coord, 5)
    0.02378
    """
    n, d, eps, delta, tau, bound, gamma = check_params(n=n, d=d, epsilon=epsilon, delta=delta, tau=tau,
                                                          bound=bound, gamma=gamma)
    dp = next_power_of_two(d)
    # −ln δ and ln d + ln n − ln γ: 1/δ and dn/γ overflow for subnormal δ, γ
    eps_c = eps / math.sqrt(8.0 * dp * -math.log(delta))
    tau_c = evaluate_finite(lambda: 10.0 * tau * math.sqrt((math.log(dp) + math.log(n) - math.log(gamma)) / dp),
                             "τ′", tau=tau, n=n, d=d, gamma=gamma)
    bound_c = evaluate_finite(lambda: math.sqrt(dp) * bound, "√d·B", bound=bound, d=d)
    scale = evaluate_finite(lambda: 8.0 * tau_c / (n * eps_c), "the Laplace scale 8τ′/(nε′)",
                             epsilon=epsilon, delta=delta, tau=tau, n=n, d=d)
    return HighDParameters(d, dp, eps_c, tau_c, bound_c, scale)


# ----------------------------------------------------------------------------------------------- τ presets


def tau_paper(bound: float, m: int, n: int, gamma: float) -> float:
    """τ = B·√(log(2n/γ)/(2m)): the radius Levy et al. 2021 uses for user averages (Corollary 1, proof in D.4).

    It is Hoeffding for data of range B (e.g. [0, B]); for data in [−B, B] (range 2B) it is too small by a factor
    2, so it can UNDER-COVER: for ±B data with n = 10⁴, m = 100 the max deviation of user means exceeds it in
    every run (as a simulation in dpviz's tests shows). Privacy never depends on τ; only utility does.

    >>> round(tau_paper(1.0, 100, 10_000, 0.01), 4)
    0.2693
    """
    bound, m, n, gamma = check_params(bound=bound, m=m, n=n, gamma=gamma)
    log_term = math.log(2 * n) - math.log(gamma)  # 2n/γ overflows for subnormal γ
    return evaluate_finite(lambda: bound * math.sqrt(log_term / (2 * m)), "τ", bound=bound, m=m, n=n, gamma=gamma)


def tau_safe(bound: float, m: int, n: int, gamma: float, *, d: int = 1) -> float:
    """A radius that provably covers all n user averages w.p. ≥ 1 − γ (derived here, not from the paper).

    * d = 1, samples in [−B, B]: Hoeffding + union bound, τ = B·√(2 log(2n/γ)/m);
    * d > 1, samples in the ℓ₂ ball B₂(0, B): McDiarmid, τ = (B/√m)·(1 + √(8 log(n/γ))).

    This is the default of :func:`user_level_mean`: it keeps the (τ, γ)-concentration premise of Theorems 1–2 true,
    at the price of a 2× larger radius (4× larger noise variance) than :func:`tau_paper` in 1-D.

    >>> round(tau_safe(1.0, 100, 10_000, 0.01), 4)
    0.5387
    """
    bound, m, n, gamma, d = check_params(bound=bound, m=m, n=n, gamma=gamma, d=d)
    if d == 1:
        return evaluate_finite(lambda: _tau_safe_1d(bound, m, n, gamma), "τ", bound=bound, m=m, n=n, gamma=gamma)
    log_term = math.log(n) - math.log(gamma)
    return evaluate_finite(lambda: bound / math.sqrt(m) * (1.0 + math.sqrt(8.0 * log_term)), "τ", bound=bound,
                            m=m, n=n, gamma=gamma)


def _tau_safe_1d(bound, m, n, gamma):
    """:func:`tau_safe` for d = 1 on checked numbers or arrays (broadcast): B·√(2 log(2n/γ)/m), the log of the
    quotient taken as log 2n − log γ (2n/γ overflows for subnormal γ)."""
    with np.errstate(over="ignore", under="ignore"):
        return bound * np.sqrt(2.0 * (np.log(2.0 * np.asarray(n, dtype=float)) - np.log(gamma)) / m)


def tau_oracle(user_means, center) -> float:
    """τ = max_i ‖X_i − x₀‖₂ computed FROM THE DATA with the true centre: NOT PRIVATE (the algorithms of
    Levy et al. 2021 take τ as a public input).

    The smallest radius for which the data is concentrated; a teaching reference only.

    >>> tau_oracle([0.1, 0.4, -0.2], 0.0)
    0.4
    """
    x = check_real_array(user_means, "user_means", ndim=(1, 2))
    c = check_real_array(center, "center", ndim=(0, 1))
    need = 1 if x.ndim == 1 else x.shape[1]
    if c.ndim == 1 and c.size != need:
        raise ValueError(f"center has shape {c.shape}, which is not allowed: must be a number or a vector of length "
                         f"{need} (the dimension of user_means).")
    with np.errstate(over="ignore"):  # differences near ±1e308 overflow: refused below, not returned as inf
        dev = np.abs(x - c.reshape(-1)[0] if x.ndim == 1 else x - c)
        tau = float(np.max(dev)) if x.ndim == 1 else _max_row_norm(dev)
    return finite_result(tau, "max_i ‖X_i − x₀‖₂", user_means="...", center=center)


def _max_row_norm(a: np.ndarray) -> float:
    """max_i ‖a_i‖₂, rescaled by the largest entry so that squares of entries near 1e308 do not overflow."""
    top = float(np.max(a))
    if top == 0.0 or not math.isfinite(top):
        return top
    return top * float(np.max(np.linalg.norm(a / top, axis=1)))


def tau_subgaussian(sigma: float, n: int, gamma: float, d: int = 1) -> float:
    """τ = σ·√(d·log(2n/γ)) for n iid σ²-sub-Gaussian vectors (Levy et al. 2021, Definition 2 example; Corollary 5).

    >>> round(tau_subgaussian(1.0, 100, 0.01, 4), 4)
    6.294
    """
    sigma, n, gamma, d = check_params(sigma=sigma, n=n, gamma=gamma, d=d)
    log_term = math.log(2 * n) - math.log(gamma)  # 2n/γ overflows for subnormal γ
    return evaluate_finite(lambda: sigma * math.sqrt(d * log_term), "τ", sigma=sigma, n=n, gamma=gamma, d=d)


def tau_for(preset: str, bound: float, m: int, n: int, gamma: float, *, d: int = 1,
            user_means=None, center=None) -> float:
    """Dispatch on a preset name: ``"safe"`` (default everywhere), ``"paper"`` or ``"oracle"`` (needs the data)."""
    check_choice(preset, "tau", TAU_PRESETS)
    if preset == "paper":
        return tau_paper(bound, m, n, gamma)
    if preset == "safe":
        return tau_safe(bound, m, n, gamma, d=d)
    if user_means is None or center is None:
        raise ValueError("tau = 'oracle' is not allowed here: must pass user_means and center (non-private).")
    return max(tau_oracle(user_means, center), 1e-12)


def corollary1_gamma(n: int, m: int, d: int, epsilon: float) -> float:
    """The paper's choice α = γ = c₀d/(3mn²ε²) in the proof of Corollary 1 (Levy et al. 2021, D.4), capped at 0.5."""
    try:
        return min(0.5, C0 * d / (3.0 * m * n * n * epsilon * epsilon))
    except ZeroDivisionError:  # n²ε² underflowed to 0: the quotient is huge, the cap applies
        return 0.5


def advanced_composition_epsilon(epsilon0: float, k: int, delta_prime: float) -> float:
    """ε̄ = k·ε₀(e^{ε₀} − 1) + √(2k ln(1/δ′))·ε₀ (Dwork, Rothblum & Vadhan 2010, Thm III.3; as used in Levy et al. 2021
    D.6).

    The k-fold composition of one ε₀-DP mechanism is (ε̄, δ′)-DP. A thin wrapper with lesson 12's argument order
    (ε₀, k, δ′) around the one implementation, :func:`dpviz.accountants.advanced.drv_epsilon` (which takes lists
    of ε_i and counts k_i); ε̄ beyond the double range is a ValueError here, not inf.

    >>> round(advanced_composition_epsilon(0.1, 10, 1e-5), 4)
    1.6226
    """
    e0 = check_positive(epsilon0, "epsilon0", allow_zero=True)
    k = COUNT.check(k, "k")
    dp = check_delta(delta_prime, "delta_prime", allow_zero=False)
    return evaluate_finite(lambda: drv_epsilon([e0], [k], dp), "ε̄", epsilon0=epsilon0, k=k, delta_prime=delta_prime)


def theorem10_budget(epsilon: float, delta: float, K: int) -> tuple[float, float]:
    """Per-query budget of Theorem 10 (Levy et al. 2021, D.6): ε₀ = ε/(2√(2K log(2/δ))), δ₀ = δ/(2K).

    >>> e0, d0 = theorem10_budget(1.0, 1e-5, 100)
    >>> round(e0, 5), round(d0, 12)
    (0.01012, 5e-08)
    """
    eps, delta, K = check_params(epsilon=epsilon, delta=delta, K=K)
    log_term = math.log(2.0) - math.log(delta)  # 2/δ overflows for subnormal δ
    return eps / (2.0 * math.sqrt(2.0 * K * log_term)), delta / (2.0 * K)


# ----------------------------------------------------------------------------------------------- closed forms


def _wme_noise_variance(n, eps, tau, h=2.0):
    """Variance 2·(4hτ/(nε))² of Algorithm 1's Laplace noise (scale 2hτ/(n·ε/2)); 128τ²/(n²ε²) for the paper's h = 2.
    Checked numbers or arrays (broadcast)."""
    with np.errstate(over="ignore", under="ignore"):  # as written: inf or 0 at the extremes, callers check
        return 2.0 * (4.0 * h * np.multiply(tau, 1.0) / np.multiply(n, eps)) ** 2


def wme_1d_noise_variance(n: int, epsilon: float, tau: float, half_width_factor: float = 2.0) -> float:
    """Var of Algorithm 1's noise: 2·(8τ/(nε))² = 128τ²/(n²ε²) (Levy et al. 2021, Thm 1; Laplace variance 2b²).

    >>> wme_1d_noise_variance(100, 1.0, 1.0)
    0.0128
    """
    n, eps, tau = check_params(n=n, epsilon=epsilon, tau=tau)
    h = HALF_WIDTH.check(half_width_factor, "half_width_factor")
    return evaluate_finite(lambda: _wme_noise_variance(n, eps, tau, h), "the variance", n=n, epsilon=epsilon,
                            tau=tau, half_width_factor=half_width_factor)


def wme_highd_noise_variance(n: int, d: int, epsilon: float, delta: float, tau: float,
                             gamma: float = 0.01) -> float:
    """Exact total Laplace variance of Algorithm 2: d·2·(8τ′/(nε′))² = c₀·dτ²·log(dn/γ)·log(1/δ)/(n²ε²).

    d is the padded dimension; c₀ = 102,400 = 128·100·8 is this variance exactly, not a loose bound (derived here from
    Levy et al. 2021, Algorithm 2 and Thm 2).

    >>> v = wme_highd_noise_variance(10_000, 16, 1.0, 1e-6, 0.269, 0.01)
    >>> round(v, 3)
    0.272
    """
    p = highd_parameters(n, d, epsilon, delta, tau, 1.0, gamma)
    return evaluate_finite(lambda: p.d_pad * 2.0 * p.noise_scale ** 2, "the variance", n=n, d=d, epsilon=epsilon,
                            delta=delta, tau=tau)


#: The two readings of the exponent of Theorem 1's failure probability (Levy et al. 2021): the paper prints
#: e^(−nε/8); PrivateRange runs at ε/2, and a worst-case analysis of its exponential mechanism (gap n/4) gives
#: e^(−nε/16). Typical data sit near the printed form; the worst case is the bound dpviz can prove.
BETA_EXPONENTS = {"printed": 8.0, "worst_case": 16.0}


def _check_beta_exponent(beta_exponent) -> float:
    if isinstance(beta_exponent, str) and beta_exponent in BETA_EXPONENTS:
        return BETA_EXPONENTS[beta_exponent]
    if beta_exponent in BETA_EXPONENTS.values():
        return float(beta_exponent)
    raise ValueError(f"beta_exponent = {beta_exponent!r} is not allowed: must be 'printed' (8, nε/8) or 'worst_case' "
                     "(16, nε/16)")


def theorem1_beta(n: int, epsilon: float, tau: float, bound: float, gamma: float, *,
                  beta_exponent: str | float = "printed") -> float:
    """β = min{1, γ + (B/τ)·exp(−nε/8)} (Levy et al. 2021, Theorem 1, as printed); with
    ``beta_exponent="worst_case"`` the exponent is −nε/16, what a worst-case analysis of PrivateRange at ε/2 gives
    (:data:`BETA_EXPONENTS`).

    >>> round(theorem1_beta(1000, 1.0, 0.1, 1.0, 0.01), 6)
    0.01
    >>> round(theorem1_beta(100, 1.0, 0.1, 1.0, 0.0, beta_exponent="worst_case"), 6)  # 10·e^(−100/16)
    0.019305
    """
    n, eps, tau, bound = check_params(n=n, epsilon=epsilon, tau=tau, bound=bound)
    gamma = check_probability(gamma, "gamma")  # γ = 0 is allowed here: β is then the exponential term alone
    return float(_theorem1_beta(n, eps, tau, bound, gamma, _check_beta_exponent(beta_exponent)))


def _theorem1_beta(n, eps, tau, bound, gamma, divisor: float = 8.0):
    """:func:`theorem1_beta` on checked numbers or arrays (broadcast): min{1, γ + (B/τ)e^{−nε/divisor}}."""
    with np.errstate(over="ignore", divide="ignore"):  # τ = 0 after an underflow: B/τ = inf, β = 1
        coef = np.divide(bound, tau)
        log_coef = np.log(bound) - np.log(tau)
        exponent = -np.multiply(n, eps) / divisor
    return np.minimum(1.0, gamma + _coef_exp(coef, log_coef, exponent))


def theorem2_beta(n: int, d: int, epsilon: float, delta: float, tau: float, bound: float, gamma: float) -> float:
    """β = min{1, 2γ + (d²B√log(dn/γ)/τ)·exp(−nε/(24√(d log(1/δ))))} (Levy et al. 2021, Theorem 2, main-text exponent).

    >>> theorem2_beta(1000, 16, 1.0, 1e-6, 0.781, 1.0, 0.01)
    1.0
    """
    n, d, eps, delta, tau, bound, gamma = check_params(n=n, d=d, epsilon=epsilon, delta=delta, tau=tau,
                                                          bound=bound, gamma=gamma)
    log_dng = math.log(d) + math.log(n) - math.log(gamma)  # dn/γ overflows for subnormal γ
    with np.errstate(over="ignore"):
        pref = float(np.float64(d * d) * bound * math.sqrt(log_dng) / tau)
    log_pref = 2.0 * math.log(d) + math.log(bound) + 0.5 * math.log(log_dng) - math.log(tau)
    return min(1.0, 2 * gamma + float(_coef_exp(pref, log_pref, -n * eps / (24.0 * math.sqrt(d * -math.log(delta))))))


def _coef_exp(coef, log_coef, exponent):
    """coef·e^{exponent} for coef > 0 and exponent ≤ 0, as written when both factors are ordinary doubles, else in
    log space (coef may have overflowed to inf, or e^{exponent} underflowed although the product does not);
    capped at e (callers take min(1, ·)). Broadcasts; a 0-d array for scalar input."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        direct = np.minimum(np.multiply(coef, np.exp(exponent)), math.e)
        logged = np.exp(np.minimum(np.add(log_coef, exponent), 1.0))
    return np.where(np.isfinite(coef) & (np.asarray(exponent) > -700.0), direct, logged)


def theorem10_variance_bound(n: int, d: int, K: int, epsilon: float, delta: float, tau: float,
                             gamma: float) -> float:
    """Var(v′_k) ≤ 8c₀·dKτ²·log(Kdn/γ)·log²(2K/δ)/(n²ε²) (Levy et al. 2021, Theorem 10)."""
    n, d, K, eps, delta, tau, gamma = check_params(n=n, d=d, K=K, epsilon=epsilon, delta=delta, tau=tau,
                                                      gamma=gamma)
    log_kdn = math.log(K * d * n) - math.log(gamma)  # K·d·n/γ and 2K/δ overflow for subnormal γ, δ
    log_2k = math.log(2 * K) - math.log(delta)
    return evaluate_finite(lambda: 8 * C0 * d * K * tau ** 2 * log_kdn * log_2k ** 2 / (n * eps) ** 2,
                            "the variance bound", n=n, d=d, K=K, epsilon=epsilon, delta=delta, tau=tau, gamma=gamma)


def corollary1_mse_bound(n: int, m: int, d: int, epsilon: float, delta: float, bound: float, variance: float,
                         gamma: float, alpha: float | None = None) -> float:
    """Explicit Cor 1 bound (Levy et al. 2021, D.4): Var/(mn) + c₀dB²log(2n/γ)log(dn/α)log(1/δ)/(mn²ε²) + βB²."""
    n, m, d, eps, delta, bound, variance, gamma = check_params(n=n, m=m, d=d, epsilon=epsilon, delta=delta,
                                                                  bound=bound, variance=variance, gamma=gamma)
    alpha = gamma if alpha is None else check_params(alpha=alpha)[0]
    tau = tau_paper(bound, m, n, gamma)
    # logs of quotients as differences: dn/α, 2n/γ, 1/δ overflow for subnormal α, γ, δ
    log_dna, log_2ng, log_1d = math.log(d * n) - math.log(alpha), math.log(2 * n) - math.log(gamma), -math.log(delta)
    # β: tau_paper is ∝ B, so d²B√log(dn/α)/τ = d²√(2m·log(dn/α)/log(2n/γ)) (no B/τ overflow)
    coef = d * d * bound * math.sqrt(log_dna) / tau
    log_coef = 2.0 * math.log(d) + 0.5 * math.log(2.0 * m * log_dna / log_2ng)
    beta = min(1.0, gamma + alpha + float(_coef_exp(coef, log_coef, -n * eps / (24 * math.sqrt(d * log_1d)))))
    return evaluate_finite(
        lambda: variance / (m * n) + C0 * d * bound ** 2 * log_2ng * log_dna * log_1d / (m * n * n * eps * eps)
        + beta * bound ** 2, "the MSE bound", n=n, m=m, d=d, epsilon=epsilon, delta=delta, bound=bound,
        variance=variance)


def theorem8_floor(n: int, epsilon: float) -> float:
    """max_ϑ E(A − ϑ)² ≥ 1/(8(1 + e^{nε})) for every user-level (ε, δ)-DP A into [0, 1], whatever m.

    Levy et al. 2021, Theorem 8 (App. B), with the explicit constant derived here from its proof;
    needs δ < 1/(2n·e^{nε}).

    >>> round(theorem8_floor(1, 1.0), 4), round(theorem8_floor(5, 1.0), 6)
    (0.0336, 0.000837)
    """
    n, eps = check_params(n=n, epsilon=epsilon)
    x = n * eps
    return 0.125 * math.exp(-x) / (1.0 + math.exp(-x)) if x > 0 else 0.0625


def theorem8_mean_floor(n: int, epsilon: float, bound: float = 1.0) -> float:
    """Mean estimation on {±B}: inf max E(μ̂ − μ)² ≥ B²/(2(1 + e^{nε})) (Levy et al. 2021, Thm 8 reduction μ = B(2ϑ
    − 1)).

    >>> round(theorem8_mean_floor(1, 1.0), 4)
    0.1345
    """
    bound = check_positive(bound, "bound")
    floor = theorem8_floor(n, epsilon)
    x = COUNT.check(n, "n") * check_positive(epsilon, "epsilon")
    if math.isfinite(bound * bound) and x <= 700.0:
        value = 4.0 * bound * bound * floor
    else:  # B² overflows or e^{−nε} underflows: 4B²·e^{−x}/(8(1 + e^{−x})) = e^{2 ln B − x − ln 2 − ln(1 + e^{−x})}
        value = exp_or_inf(2.0 * math.log(bound) - x - math.log(2.0) - math.log1p(math.exp(-x)))
    return finite_result(value, "the floor B²/(2(1 + e^{nε}))", n=n, epsilon=epsilon, bound=bound)


def crossover_m(n: int, gamma: float, preset: str = "paper") -> float:
    """m at which WME's noise equals the naive Laplace noise 8B²/(n²ε²) in 1-D (derived here).

    128τ²/(n²ε²) = 8B²/(n²ε²) ⇔ τ = B/4: with the paper radius m* = 8·log(2n/γ); with the safe radius
    m* = 32·log(2n/γ).

    >>> round(crossover_m(10_000, 0.01))
    116
    """
    n, gamma = check_params(n=n, gamma=gamma)
    check_choice(preset, "preset", ("paper", "safe"))
    return (8.0 if preset == "paper" else 32.0) * (math.log(2 * n) - math.log(gamma))  # 2n/γ overflows if γ tiny


# ----------------------------------------------------------------------------------------------- maps over (n, m)


def wme_mse_bound(variance: float, n, m, epsilon: float, bound: float = 1.0, gamma: float = 0.01, *,
                  beta_exponent: str | float = "printed"):
    """Theorem 1 of Levy et al. 2021 as an MSE over (n, m): Var/(nm) + 128τ²/(n²ε²) + β·(2B)², with τ = :func:`tau_safe`
    (d = 1) and β = :func:`theorem1_beta` (``beta_exponent``: its printed or worst-case exponent).

    With probability ≥ 1 − β Algorithm 1 returns the sample mean of the n user averages plus Lap(8τ/(nε)) (variance
    128τ²/(n²ε²), :func:`wme_1d_noise_variance`); otherwise its error is at most the width 2B of the domain, which
    gives the last term. ``n`` and ``m`` broadcast against each other as arrays of real numbers ≥ 1 (a map over
    (n, m) uses the formula between integers as well; at integers it equals the scalar functions).

    Parameters
    ----------
    variance : float
        Var(P) of one sample (≥ 0).
    n, m : float or array_like
        Users and samples per user, in [1, 10¹⁵].
    epsilon, bound, gamma : float
        ε > 0, B > 0, γ ∈ (0, 1).

    Returns
    -------
    float or np.ndarray
        A float for scalar n and m, else an array of the broadcast shape.

    Examples
    --------
    >>> v = wme_mse_bound(0.96, 1000, 100, 1.0)
    >>> t = tau_safe(1.0, 100, 1000, 0.01)
    >>> v == 0.96 / 1e5 + wme_1d_noise_variance(1000, 1.0, t) + 4 * theorem1_beta(1000, 1.0, t, 1.0, 0.01)
    True
    >>> wme_mse_bound(0.96, [[10.0], [1e4]], [1.0, 100.0], 1.0).shape
    (2, 2)
    """
    variance, eps, bound, gamma = check_params(variance=variance, epsilon=epsilon, bound=bound, gamma=gamma)
    divisor = _check_beta_exponent(beta_exponent)
    nn, mm = np.broadcast_arrays(real_counts(n, "n"), real_counts(m, "m"))
    with np.errstate(over="ignore", under="ignore"):
        tau = _tau_safe_1d(bound, mm, nn, gamma)
        beta = _theorem1_beta(nn, eps, tau, bound, gamma, divisor)
        mse = variance / (nn * mm) + _wme_noise_variance(nn, eps, tau) + beta * (2.0 * bound) ** 2
    if not np.all(np.isfinite(mse)):
        finite_result(float(mse[~np.isfinite(mse)].flat[0]), "the MSE bound", variance=variance, epsilon=epsilon,
                       bound=bound, gamma=gamma)
    return float(mse) if mse.ndim == 0 else mse


def _log_range(value, name: str) -> tuple[float, float]:
    r = check_real_array(value, name, ndim=1)
    if r.size != 2 or not 0.0 <= r[0] < r[1] <= 15.0:
        raise ValueError(f"{name} = {value!r} is not allowed: must be (low, high) with 0 <= low < high <= 15 "
                         "(log₁₀ of counts in [1, 10¹⁵]).")
    return float(r[0]), float(r[1])


def best_budget_split(budget: float, variance: float, epsilon: float, bound: float = 1.0, gamma: float = 0.01, *,
                      log_n_range: tuple[float, float] = (1.0, 5.0), log_m_range: tuple[float, float] = (0.0, 4.0),
                      points: int = 400, beta_exponent: str | float = "printed") -> tuple[float, float] | None:
    """The split n·m = N that minimises :func:`wme_mse_bound`, searched on ``points`` values of log₁₀ n evenly
    spaced over ``log_n_range`` whose m = N/n lies in ``log_m_range``.

    Returns (log₁₀ n, log₁₀ m) of the best grid point, or None when the line n·m = N misses the box. At a fixed N
    the statistical term Var/N is the same for every split while the privacy term 128τ²/(n²ε²) ∝ log(2n/γ)/(nN)
    favours users (Levy et al. 2021, §1).

    >>> ln, lm = best_budget_split(1e5, 0.96, 1.0)
    >>> round(ln + lm, 9), ln > lm
    (5.0, True)
    >>> best_budget_split(1e12, 0.96, 1.0) is None
    True
    """
    N = check_positive(budget, "budget")
    lo_n, hi_n = _log_range(log_n_range, "log_n_range")
    lo_m, hi_m = _log_range(log_m_range, "log_m_range")
    points = check_integer(points, "points", minimum=2, maximum=ELEMENTS.limit)
    ln = np.linspace(lo_n, hi_n, points)
    lm = math.log10(N) - ln
    ok = (lm >= lo_m) & (lm <= hi_m)
    if not ok.any():
        return None
    mse = wme_mse_bound(variance, 10.0 ** ln[ok], 10.0 ** lm[ok], epsilon, bound, gamma, beta_exponent=beta_exponent)
    k = int(np.argmin(mse))
    return float(ln[ok][k]), float(lm[ok][k])
