"""Rates of learning with user-level DP, as formulas (Levy et al. 2021; Esfandiari, Mirrokni & Narayanan 2022).

The paper's rates are Õ(·)/Ω(·) statements: constants and log factors are hidden. Every function here returns the
*shape* of the bound times a constant knob ``C`` (default 1; "hidden constant set to 1" must be said on any figure
that plots them) and is vectorised over numpy arrays. Validity conditions are separate functions returning booleans,
so a figure can shade where a bound is proved to hold. Notation (Levy et al. 2021, §2): n users, m samples per
user, d dimensions, R the *diameter* of Θ, G the Lipschitz constant, σ the sub-Gaussian parameter of the gradients,
G̃ = σ√d, G_ = min(G, G̃), H smoothness, T steps. Where the paper writes n√(mε), n·√m·ε is meant (its squared
forms, e.g. Cor 1's dB²/(mn²ε²), show it).

>>> round(sco_upper(1e4, 100, 10, 1.0), 6)   # R√(G·G_)/√(mn) + Rσd/(n√m ε) with R = G = σ = 1 → G_ = 1
0.0011

Every argument is validated (scalars or arrays, real and finite): counts n, m, d, T, K in [1, 10¹⁵], ε and the
constants (R, G, σ, H, μ, B, C) in [10⁻¹⁵, 10¹⁵], so no product or quotient of a few of them leaves the float range
and no formula returns NaN or warns; anything else is a ValueError naming the argument and its range.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from dpviz._validation import check_real_array

__all__ = [
    "erm_convex",
    "erm_strongly_convex",
    "erm_nonconvex",
    "sco_upper",
    "sco_lower",
    "sco_item_level",
    "sco_naive",
    "finite_class_upper",
    "finite_class_lower",
    "finite_class_valid",
    "finite_class_lower_valid",
    "fixed_n_floor",
    "fixed_n_floor_valid",
    "erm_users_needed",
    "erm_users_needed_003",
    "sco_users_needed",
    "sco_users_needed_003",
    "sco_valid",
    "heterogeneity_transfer",
    "heterogeneity_threshold",
]


RATE_MAX = 1e15
RATE_MIN = 1e-15


def _arg(x, name: str, low: float, high: float, *, high_open: bool = False) -> np.ndarray:
    """``x`` as a float array (0-d for a scalar) with every entry in [low, high] (or [low, high))."""
    allowed = f"a number in [{low:g}, {high:g}{')' if high_open else ']'}"
    try:  # complex input (a number, an array or a list holding one) is refused, not cast to real
        a = check_real_array(x, name)
    except ValueError as exc:
        raise ValueError(f"{str(exc).rstrip('.')}; {name} must be {allowed}.") from None
    ok = (a >= low) & ((a < high) if high_open else (a <= high))
    if not np.all(ok):
        shown = repr(x) if a.ndim == 0 else f"an array containing {float(a[~ok].flat[0])!r}"
        raise ValueError(f"{name} = {shown} is not allowed: must be {allowed}.")
    return a


def _size(x, name: str) -> np.ndarray:
    """A count (n, m, d, T, K): a number in [1, RATE_MAX]; non-integers are allowed (curves over real n)."""
    return _arg(x, name, 1.0, RATE_MAX)


def _pos(x, name: str) -> np.ndarray:
    """ε or a constant (R, G, σ, H, μ, B, C): a number in [RATE_MIN, RATE_MAX]."""
    return _arg(x, name, RATE_MIN, RATE_MAX)


def _ret(x):
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


def _g_under(G, sigma, d):
    return np.minimum(G, sigma * np.sqrt(d))


def _nmde(n, m, d, epsilon):
    return _size(n, "n"), _size(m, "m"), _size(d, "d"), _pos(epsilon, "epsilon")


# ----------------------------------------------------------------------------------------------- ERM (Thm 3)


def erm_convex(n, m, d, epsilon, T, *, R=1.0, H=1.0, sigma=1.0, C=1.0):
    """Thm 3(i) of Levy et al. 2021: E[L(θ̂; S) − min L] = Õ(R²H/T + Rσd/(n√m ε)) (= R G̃ √d/(n√m ε)).

    The privacy term does not grow with T (derived here: ν ∝ √T and the rate is νR/√T); the cost of more steps is
    the condition n ≳ √(dT)/ε (:func:`erm_users_needed`).

    >>> erm_convex(1000, 1, 10, 1.0, 100)
    0.02
    """
    n, m, d, eps = _nmde(n, m, d, epsilon)
    T = _size(T, "T")
    R, H, sigma, C = _pos(R, "R"), _pos(H, "H"), _pos(sigma, "sigma"), _pos(C, "C")
    return _ret(C * (R**2 * H / T + R * sigma * d / (n * np.sqrt(m) * eps)))


def erm_strongly_convex(n, m, d, epsilon, T, *, mu=1.0, R=1.0, H=1.0, G=1.0, sigma=1.0, C=1.0):
    """Thm 3(ii) of Levy et al. 2021: Õ(GR·exp(−μT/H) + σ²d²/(μ n² m ε²)) (G̃²d = σ²d²)."""
    n, m, d, eps = _nmde(n, m, d, epsilon)
    T = _size(T, "T")
    mu, R, H, G = _pos(mu, "mu"), _pos(R, "R"), _pos(H, "H"), _pos(G, "G")
    sigma, C = _pos(sigma, "sigma"), _pos(C, "C")
    return _ret(C * (G * R * np.exp(-mu * T / H) + sigma**2 * d**2 / (mu * n**2 * m * eps**2)))


def erm_nonconvex(n, m, d, epsilon, T, *, R=1.0, H=1.0, sigma=1.0, C=1.0):
    """Thm 3(iii) of Levy et al. 2021 (squared gradient mapping): Õ(H²R²/T + HRσd/(n√m ε)).

    The paper prints H²R/T; with Δ₁ ≤ HR² from its own proof the term is H²R²/T; we use
    the corrected form.
    """
    n, m, d, eps = _nmde(n, m, d, epsilon)
    T = _size(T, "T")
    R, H, sigma, C = _pos(R, "R"), _pos(H, "H"), _pos(sigma, "sigma"), _pos(C, "C")
    return _ret(C * (H**2 * R**2 / T + H * R * sigma * d / (n * np.sqrt(m) * eps)))


def erm_users_needed(d, T, epsilon, *, C=1.0):
    """Users Algorithm 3 needs: n = Ω̃(√(dT)/ε) (Thm 3 of Levy et al. 2021; Thm 29 of Esfandiari,
    Mirrokni & Narayanan 2022), logs hidden.

    >>> erm_users_needed(100, 400, 1.0)
    200.0
    """
    d, T, eps, C = _size(d, "d"), _size(T, "T"), _pos(epsilon, "epsilon"), _pos(C, "C")
    return _ret(C * np.sqrt(d * T) / eps)


def erm_users_needed_003(d, T, epsilon, *, C=1.0):
    """Users the ERM reduction of Esfandiari, Mirrokni & Narayanan 2022 needs: n = Ω̃(√T/ε), independent of d (Thm 30 of
    Esfandiari, Mirrokni & Narayanan 2022, Algorithm H)."""
    d, T, eps, C = _size(d, "d"), _size(T, "T"), _pos(epsilon, "epsilon"), _pos(C, "C")
    return _ret(C * np.sqrt(T) / eps + 0.0 * d)


# ----------------------------------------------------------------------------------------------- SCO (Thms 4, 5)


def sco_upper(n, m, d, epsilon, *, R=1.0, G=1.0, sigma=1.0, C=1.0):
    """Thm 4 of Levy et al. 2021 (Phased ERM): Õ(R√(G·G_)/√(mn) + Rσd/(n√m ε)), G_ = min(G, σ√d)."""
    n, m, d, eps = _nmde(n, m, d, epsilon)
    R, G, sigma, C = _pos(R, "R"), _pos(G, "G"), _pos(sigma, "sigma"), _pos(C, "C")
    gu = _g_under(G, sigma, d)
    return _ret(C * (R * np.sqrt(G * gu) / np.sqrt(m * n) + R * sigma * d / (n * np.sqrt(m) * eps)))


def sco_lower(n, m, d, epsilon, *, R=1.0, G=1.0, sigma=1.0, C=1.0):
    """Thm 5 of Levy et al. 2021: every user-level (ε, δ)-DP algorithm has excess ≥ Ω(RG_/√(mn) + RG_√d/(n√m ε)).

    Matches Thm 4 up to logs when G = Θ(σ√d). The explicit privacy constant, derived here from the proof, is
    ≈ 1/20480; ``C`` defaults to 1 like the upper bound, so the two shapes can be compared.
    """
    n, m, d, eps = _nmde(n, m, d, epsilon)
    R, G, sigma, C = _pos(R, "R"), _pos(G, "G"), _pos(sigma, "sigma"), _pos(C, "C")
    gu = _g_under(G, sigma, d)
    return _ret(C * (R * gu / np.sqrt(m * n) + R * gu * np.sqrt(d) / (n * np.sqrt(m) * eps)))


def sco_item_level(n, m, d, epsilon, *, R=1.0, G=1.0, C=1.0):
    """Item-level SCO rate on N = nm independent people: RG(1/√(nm) + √d/(nm ε)) (derived here from the item-level rate
    of Bassily et al. 2019) — what user-level learning would cost if each example were its own person."""
    n, m, d, eps = _nmde(n, m, d, epsilon)
    R, G, C = _pos(R, "R"), _pos(G, "G"), _pos(C, "C")
    N = n * m
    return _ret(C * R * G * (1.0 / np.sqrt(N) + np.sqrt(d) / (N * eps)))


def sco_naive(n, m, d, epsilon, *, R=1.0, G=1.0, C=1.0):
    """Naive user-level rate (clip each user's contribution to G): RG(1/√(nm) + √d/(nε)); the privacy term does
    not fall with m (Levy et al. 2021, §1)."""
    n, m, d, eps = _nmde(n, m, d, epsilon)
    R, G, C = _pos(R, "R"), _pos(G, "G"), _pos(C, "C")
    return _ret(C * R * G * (1.0 / np.sqrt(n * m) + np.sqrt(d) / (n * eps)))


def sco_users_needed(d, m, epsilon, *, R=1.0, G=1.0, sigma=1.0, H=1.0, C=1.0):
    """Thm 4's condition: n = Ω̃(min{∛(d² m H² R²/(G G_ ε⁴)), H R √m/(σ ε)}) (Levy et al. 2021)."""
    d, m, eps = _size(d, "d"), _size(m, "m"), _pos(epsilon, "epsilon")
    R, G, sigma, H, C = _pos(R, "R"), _pos(G, "G"), _pos(sigma, "sigma"), _pos(H, "H"), _pos(C, "C")
    gu = _g_under(G, sigma, d)
    a = np.cbrt(d**2 * m * H**2 * R**2 / (G * gu * eps**4))
    b = H * R * np.sqrt(m) / (sigma * eps)
    return _ret(C * np.minimum(a, b))


def sco_users_needed_003(d, m, epsilon, *, R=1.0, G=1.0, sigma=1.0, H=1.0, C=1.0):
    """Thm 32 of Esfandiari, Mirrokni & Narayanan 2022: n = Ω̃(1/ε + min{∛(m H² R²/(G G_ ε⁴)), H R √m/(d σ ε)}).

    Esfandiari, Mirrokni & Narayanan 2022 prints √ε in the second term; re-deriving it here from n ≥ √(H/λ)/ε
    (Thm 30's n = Ω̃(√T/ε) with T = H/λ) gives ε; we use ε.
    """
    d, m, eps = _size(d, "d"), _size(m, "m"), _pos(epsilon, "epsilon")
    R, G, sigma, H, C = _pos(R, "R"), _pos(G, "G"), _pos(sigma, "sigma"), _pos(H, "H"), _pos(C, "C")
    gu = _g_under(G, sigma, d)
    a = np.cbrt(m * H**2 * R**2 / (G * gu * eps**4))
    b = H * R * np.sqrt(m) / (d * sigma * eps)
    return _ret(C * (1.0 / eps + np.minimum(a, b)))


def sco_valid(n, m, d, epsilon, *, R=1.0, G=1.0, sigma=1.0, H=1.0, C=1.0):
    """Boolean mask: where Thm 4's n-condition holds (with its hidden constant and logs set to ``C``)."""
    n = _size(n, "n")
    return np.asarray(n >= sco_users_needed(d, m, epsilon, R=R, G=G, sigma=sigma, H=H, C=C))


# ----------------------------------------------------------------------------------------------- finite classes


def finite_class_upper(n, m, K, epsilon, *, B=1.0, C=1.0):
    """Cor. 3 of Levy et al. 2021 (Algorithm 5, pure ε-DP): Õ(B√(log K/(mn)) + B log^{3/2}(K n m ε)/(n√m ε)).

    Valid when n ≥ Ω̃(1/ε)·max{1/(Km), log(Km)} (:func:`finite_class_valid`).
    """
    n, m, K, eps = _size(n, "n"), _size(m, "m"), _size(K, "K"), _pos(epsilon, "epsilon")
    B, C = _pos(B, "B"), _pos(C, "C")
    lg = np.log(np.maximum(K * n * m * eps, np.e))
    return _ret(C * B * (np.sqrt(np.log(K) / (m * n)) + lg**1.5 / (n * np.sqrt(m) * eps)))


def finite_class_lower(n, m, K, epsilon, *, B=1.0, C=1.0):
    """Thm 7 of Levy et al. 2021: Ω(B√(log K/(mn)) + B log K/(n√m ε)), for log₂K ≥ 32 log 2 and
    n ≥ log₂K·max{1/(192√m ε), 1/(96m)} (:func:`finite_class_lower_valid`)."""
    n, m, K, eps = _size(n, "n"), _size(m, "m"), _size(K, "K"), _pos(epsilon, "epsilon")
    B, C = _pos(B, "B"), _pos(C, "C")
    return _ret(C * B * (np.sqrt(np.log(K) / (m * n)) + np.log(K) / (n * np.sqrt(m) * eps)))


def finite_class_valid(n, m, K, epsilon, *, C=1.0):
    """Boolean mask: where Cor. 3 of Levy et al. 2021 is proved, n ≥ (C/ε)·max{1/(Km), log(Km)} (its Ω̃(1) and logs
    set to ``C``).

    >>> bool(finite_class_valid(10, 10, 10, 1.0)), bool(finite_class_valid(4, 10, 10, 1.0))
    (True, False)
    """
    n, m, K, eps = _size(n, "n"), _size(m, "m"), _size(K, "K"), _pos(epsilon, "epsilon")
    C = _pos(C, "C")
    return np.asarray(n >= C / eps * np.maximum(1.0 / (K * m), np.log(K * m)))


def finite_class_lower_valid(n, m, K, epsilon):
    """Boolean mask: where Thm 7 of Levy et al. 2021 is proved, log₂K ≥ 32 log 2 and n ≥ log₂K·max{1/(192√m ε), 1/(96m)}
    (explicit constants, no knob).

    >>> bool(finite_class_lower_valid(100, 1, 2**23, 1.0)), bool(finite_class_lower_valid(100, 1, 2**22, 1.0))
    (True, False)
    """
    n, m, K, eps = _size(n, "n"), _size(m, "m"), _size(K, "K"), _pos(epsilon, "epsilon")
    lk = np.log2(K)
    return np.asarray((lk >= 32.0 * np.log(2.0)) & (n >= lk * np.maximum(1.0 / (192.0 * np.sqrt(m) * eps),
                                                                       1.0 / (96.0 * m))))


def fixed_n_floor_valid(n, epsilon, delta):
    """Boolean mask: Thm 8 of Levy et al. 2021 holds for every user-level (ε, δ)-DP algorithm with δ < 1/(2n·e^{nε}).

    >>> bool(fixed_n_floor_valid(5, 1.0, 1e-5)), bool(fixed_n_floor_valid(20, 1.0, 1e-5))
    (True, False)
    """
    n, eps = _size(n, "n"), _pos(epsilon, "epsilon")
    delta = _arg(delta, "delta", 0.0, 1.0, high_open=True)
    # compared in logs, ln δ < −ln(2n) − nε, so e^{nε} never overflows; δ = 0 (ln δ = −∞) satisfies every bound
    with np.errstate(divide="ignore"):
        log_delta = np.log(delta)
    return np.asarray(log_delta < -np.log(2.0 * n) - n * eps)


def fixed_n_floor(n, epsilon, *, B=1.0):
    """Thm 8 of Levy et al. 2021 with the proof's constant: max_ϑ E[(A − ϑ)²] ≥ B²/(8(1 + e^{nε})), whatever m is
    (constant derived here from the proof; requires δ < 1/(2n e^{nε}), :func:`fixed_n_floor_valid`).

    >>> round(fixed_n_floor(1, 1.0), 4)
    0.0336
    """
    n, eps, B = _size(n, "n"), _pos(epsilon, "epsilon"), _pos(B, "B")
    # 1/(1 + e^{nε}) = expit(−nε): no overflow of e^{nε}, underflows gracefully to 0 for large nε
    return _ret(B**2 / 8.0 * special.expit(-(n * eps)))


# ----------------------------------------------------------------------------------------------- heterogeneity


def heterogeneity_transfer(rate, n, m, Delta, *, B=1.0):
    """Thm 9 of Levy et al. 2021: an algorithm with excess risk L(m, n) under A2 has, under A1 (max_u ‖P_u −
    P₀‖_TV ≤ Δ), excess risk ≤ L(m, n) + B(mn + 2)Δ for every user's distribution. The penalty grows with m.

    >>> round(heterogeneity_transfer(0.01, 100, 10, 1e-5), 8)
    0.02002
    """
    rate = _arg(rate, "rate", 0.0, RATE_MAX)
    n, m, B = _size(n, "n"), _size(m, "m"), _pos(B, "B")
    Delta = _arg(Delta, "Delta", 0.0, 1.0)  # a total-variation distance
    return _ret(rate + B * (m * n + 2.0) * Delta)


def heterogeneity_threshold(rate, n, m, *, B=1.0):
    """Largest Δ for which Thm 9 keeps the homogeneous rate up to a factor 2: Δ = L(m, n)/(B(mn + 2))."""
    rate = _arg(rate, "rate", 0.0, RATE_MAX)
    n, m, B = _size(n, "n"), _size(m, "m"), _pos(B, "B")
    return _ret(rate / (B * (m * n + 2.0)))
