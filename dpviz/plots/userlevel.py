"""Figures for lessons 03 "From items to users" and 04 "Few examples per user".

Every builder is a pure function returning a NEW :class:`plotly.graph_objects.Figure` (no widgets, no ``show()``).
The numbers come from :mod:`dpviz.userlevel` (the paper's algorithms and bounds), :mod:`dpviz.mechanisms` and
:mod:`dpviz.accountants`. A few small exact computations that the lessons need and the library does not (yet) expose
live here as clearly marked private helpers (``_`` prefix, section "LESSON HELPERS"); each says which library name it
stands in for.

Paper: Ghazi, Kamath, Kumar, Manurangsi, Meka, Zhang, "User-Level Differential Privacy With Few Examples Per User",
NeurIPS 2023 — ``/work/shared/papers/000_eed7e3c6d3636c79.txt`` (cited below as "000").
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from scipy import special

from dpviz._validation import (
    check_choice,
    check_delta,
    check_in_range,
    check_integer,
    check_positive,
)
from dpviz.plots._theme import DASHES, PALETTE, ROLE, TEMPLATE, approx_note, caption

__all__ = [
    "neighbours_figure",
    "group_privacy_epsilon_figure",
    "group_privacy_delta_figure",
    "group_privacy_cost",
    "BoundingTradeoff",
    "bounding_curves",
    "bounding_error_figure",
    "contribution_histogram_figure",
]

PAPER = "Ghazi et al. 2023 (paper 000)"


# =============================================================================================== LESSON HELPERS
# Exact computations the lessons need. They stand in for library names noted in each docstring.


def _log_expm1(x: np.ndarray) -> np.ndarray:
    """ln(e^x − 1) for x > 0 without overflow (x + ln(1 − e^{−x}) for large x)."""
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    small = x < 30
    out[small] = np.log(np.expm1(x[small]))
    out[~small] = x[~small] + np.log1p(-np.exp(-x[~small]))
    return out


def group_privacy_cost(epsilon: float, delta: float, k: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group privacy for k-neighbours (Lemma 6 of 000), vectorised over ``k``.

    ε′ = k·ε,  δ′ = δ·(e^{kε} − 1)/(e^{ε} − 1)  (a geometric sum, digest pitfall 3), and the looser k·e^{kε}·δ.

    Parameters
    ----------
    epsilon : float
        Item-level ε > 0.
    delta : float
        Item-level δ in [0, 1).
    k : int or array_like of int
        Group size (for a user-level guarantee, k = m examples per user), k ≥ 1.

    Returns
    -------
    eps_k, delta_k, delta_loose : numpy.ndarray
        ε′, the exact factor times δ, and the loose bound k e^{kε} δ (both δ arrays may exceed 1: the guarantee is then
        vacuous; they can be ``inf`` only when the float range overflows).

    Notes
    -----
    Computed in log space so that large kε does not overflow before the value is meaningful. Cross-checked in the
    tests against ``dpviz.accountants.group_privacy(epsilon, delta, k)`` (scalar).

    References
    ----------
    000, Lemma 6 (group privacy).

    Examples
    --------
    >>> e, d, _ = group_privacy_cost(1.0, 1e-6, [1, 2])
    >>> e.tolist(), [round(float(v) * 1e6, 6) for v in d]
    ([1.0, 2.0], [1.0, 3.718282])
    """
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta")
    k = np.atleast_1d(np.asarray(k))
    if k.size == 0 or np.any(k < 1) or np.any(k != np.round(k)):
        raise ValueError(f"k = {k.tolist()!r} is not allowed: must be integers >= 1.")
    k = k.astype(float)
    eps_k = k * epsilon
    with np.errstate(over="ignore", divide="ignore"):
        if delta == 0:
            d_k = np.zeros_like(k)
            d_loose = np.zeros_like(k)
        else:
            log_factor = _log_expm1(k * epsilon) - _log_expm1(np.array([epsilon]))[0]
            d_k = np.exp(np.minimum(log_factor + math.log(delta), 700.0))
            d_loose = np.exp(np.minimum(np.log(k) + k * epsilon + math.log(delta), 700.0))
    return eps_k, d_k, d_loose


def _analytic_gaussian_delta(sigma: np.ndarray, epsilon: np.ndarray) -> np.ndarray:
    """δ(ε) of the Gaussian mechanism with sensitivity 1 (Balle & Wang 2018, Thm 8), vectorised.

    δ = Φ(1/(2σ) − εσ) − e^{ε}·Φ(−1/(2σ) − εσ), the second term in log space.
    """
    a = 0.5 / sigma
    b = epsilon * sigma
    with np.errstate(over="ignore", under="ignore"):
        return special.ndtr(a - b) - np.exp(epsilon + special.log_ndtr(-a - b))


def _gaussian_sigma(epsilon: Any, delta: Any) -> np.ndarray:
    """Smallest σ of the sensitivity-1 Gaussian mechanism that is (ε, δ)-DP, vectorised (exact up to float).

    Stands in for a mechanisms-layer calibration (expected name: ``dpviz.mechanisms.analytic_gaussian_sigma``).
    δ(σ) is decreasing in σ, so a vectorised bisection on ln σ over [10⁻⁴, 10⁹] (90 halvings) finds it to float
    precision. Tested against ``dpviz.mechanisms.Gaussian(sigma).delta(epsilon)``.
    """
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    dlt = np.atleast_1d(np.asarray(delta, dtype=float))
    eps, dlt = np.broadcast_arrays(eps, dlt)
    lo = np.full(eps.shape, math.log(1e-4))
    hi = np.full(eps.shape, math.log(1e9))
    for _ in range(90):
        mid = 0.5 * (lo + hi)
        ok = _analytic_gaussian_delta(np.exp(mid), eps) <= dlt
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    return np.exp(hi)


@functools.lru_cache(maxsize=64)
def _sample_counts(n_users: int, median: float, tail: float, cap: int, seed: int) -> np.ndarray:
    """Heavy-tailed per-user record counts: a discretised Pareto with tail index ``tail``, capped at ``cap``.

    c_i = min(cap, max(1, ⌈x_min·U_i^{−1/a}⌉)) with x_min = median/2^{1/a} (so the continuous median is ``median``).
    Smaller a = heavier tail (a ≤ 1: infinite mean before the cap). Sorted ascending, read-only, cached.
    """
    rng = np.random.default_rng(seed)
    u = rng.random(n_users)
    x_min = median / 2.0 ** (1.0 / tail)
    with np.errstate(over="ignore"):
        c = np.ceil(x_min * u ** (-1.0 / tail))
    c = np.clip(np.nan_to_num(c, posinf=cap), 1, cap).astype(np.int64)
    c.sort()
    c.setflags(write=False)
    return c


def _vline(x: float, color: str = "#777", dash: str = "dot", width: float = 1.5) -> dict:
    """A vertical reference line as a layout shape dict (much cheaper than ``Figure.add_vline``)."""
    return dict(type="line", xref="x", yref="paper", x0=x, x1=x, y0=0, y1=1,
                line=dict(color=color, dash=dash, width=width))


def _hline(y: float, color: str = "#777", dash: str = "dot", width: float = 1.5) -> dict:
    return dict(type="line", xref="paper", yref="y", x0=0, x1=1, y0=y, y1=y,
                line=dict(color=color, dash=dash, width=width))


def _label(x: float, text: str, *, y: float = 1.0, log_x: bool = False, color: str = "#444",
           xanchor: str = "left", yref: str = "paper") -> dict:
    """An annotation next to a reference line (x in data units; log axes take log10(x))."""
    return dict(x=math.log10(x) if log_x else x, y=y, xref="x", yref=yref, text=text, showarrow=False,
                xanchor=xanchor, yanchor="top", font=dict(size=11, color=color))


# =============================================================================================== lesson 03


_RATING_SCALE = [[0.0, "#f2f6fb"], [1.0, "#9ecae1"]]


def neighbours_figure(
    n_users: int = 6,
    m: int = 5,
    *,
    user: int = 2,
    index: int = 1,
    kind: str = "user",
    seed: int = 3,
    template: str = TEMPLATE,
) -> go.Figure:
    """A small n × m dataset x (users = rows, examples = columns) beside a neighbour x′.

    ``kind="item"``: one example x_{i,j} replaced (item-level neighbours, Definition 2 of 000 with m = 1);
    ``kind="user"``: user i's whole block of m examples replaced (user-level neighbours, Definition 1 of 000).
    Changed cells are outlined; the numbers are ratings 1–5 drawn with a fixed seed.

    Raises
    ------
    ValueError
        n_users, m out of range, ``user``/``index`` outside the dataset, or an unknown ``kind``.
    """
    from dpviz.userlevel import UserDataset

    n_users = check_integer(n_users, "n_users", minimum=1, maximum=30)
    m = check_integer(m, "m", minimum=1, maximum=30)
    user = check_integer(user, "user", minimum=0, maximum=n_users - 1)
    index = check_integer(index, "index", minimum=0, maximum=m - 1)
    kind = check_choice(kind, "kind", ("item", "user"))
    rng = np.random.default_rng(seed)
    data = rng.integers(1, 6, size=(n_users, m))
    x = UserDataset.from_array(data, domain=(1, 2, 3, 4, 5))
    if kind == "item":
        old = int(data[user, index])
        x2 = x.item_neighbor(user=user, index=index, value=(old % 5) + 1)
    else:
        new_block = (data[user] + rng.integers(1, 5, size=m) - 1) % 5 + 1  # differs in every cell
        x2 = x.user_neighbor(user=user, block=new_block)
    a, b = x.as_array(), x2.as_array()
    changed = np.argwhere(a != b)
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.08,
                        subplot_titles=("dataset x", f"neighbour x′ ({'item' if kind == 'item' else 'user'}-level)"))
    ylabels = [f"user {i + 1}" for i in range(n_users)]
    xlabels = [f"ex. {j + 1}" for j in range(m)]
    for col, arr in ((1, a), (2, b)):
        fig.add_trace(go.Heatmap(z=arr, x=xlabels, y=ylabels, text=arr, texttemplate="%{text}", zmin=1, zmax=5,
                                 colorscale=_RATING_SCALE, showscale=False, xgap=2, ygap=2,
                                 hovertemplate="%{y}, %{x}: rating %{z}<extra></extra>",
                                 textfont=dict(size=14 if max(n_users, m) <= 10 else 10)), row=1, col=col)
    # Outline the changed cells in both panels (vermillion), and the protected unit in x.
    for col in (1, 2):
        for i, j in changed:
            fig.add_shape(type="rect", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5,
                          line=dict(color=ROLE["naive"], width=3), row=1, col=col)
    for col in (1, 2):
        fig.update_yaxes(autorange="reversed", showgrid=False, row=1, col=col)
        fig.update_xaxes(showgrid=False, side="top", row=1, col=col)
    what = ("one example replaced: x and x′ differ in 1 cell" if kind == "item"
            else f"user {user + 1}'s whole block replaced: x and x′ differ in up to m = {m} cells")
    fig.update_layout(template=template, title=dict(text=f"Neighbouring datasets, {n_users} users × {m} examples — "
                                                         f"{what}", font=dict(size=14)),
                      margin=dict(t=110, b=70), height=max(300, 140 + 34 * n_users))
    caption(fig, "Source: 000, Definition 1 (user-level neighbours x ≍ x′ iff x₋ᵢ = x′₋ᵢ) and Definition 2 "
                 "(item-level = the case m = 1). Both keep n users: substitution, not add/remove.", y=-0.08)
    return fig


def group_privacy_epsilon_figure(epsilon: float, m_max: int = 1000, *, m_mark: int | None = None,
                                 template: str = TEMPLATE) -> go.Figure:
    """ε′ = m·ε of an ε-item-level mechanism seen at user level (Lemma 6 of 000), log–log against m."""
    epsilon = check_positive(epsilon, "epsilon")
    m_max = check_integer(m_max, "m_max", minimum=2, maximum=10**6)
    m = _int_log_grid(1, m_max, 200)
    eps_m, _, _ = group_privacy_cost(epsilon, 0.0, m)
    fig = go.Figure(layout=dict(template=template))
    fig.add_trace(go.Scatter(x=m, y=eps_m, mode="lines", name="ε′ = m·ε (group privacy)",
                             line=dict(color=ROLE["naive"], width=3)))
    fig.add_trace(go.Scatter(x=[1, m_max], y=[epsilon, epsilon], mode="lines", name="ε (one example)",
                             line=dict(color=ROLE["bound"], dash="dot")))
    if m_mark is not None:
        mm = check_integer(m_mark, "m_mark", minimum=1)
        fig.add_trace(go.Scatter(x=[mm], y=[mm * epsilon], mode="markers+text", name=f"m = {mm}",
                                 text=[f"  ε′ = {mm * epsilon:.3g}"], textposition="middle right",
                                 marker=dict(size=11, color=ROLE["naive"], line=dict(color="white", width=1))))
    fig.update_layout(title=f"User-level ε from item-level ε = {epsilon:g}", xaxis_title="m (examples per user)",
                      yaxis_title="user-level ε′", xaxis_type="log", yaxis_type="log",
                      legend=dict(x=0.02, y=0.98))
    caption(fig, "Source: 000, Lemma 6 (group privacy): a user-level neighbour is a chain of m item-level "
                 "neighbours (footnote 5), so ε′ = m·ε.")
    return fig


def group_privacy_delta_figure(epsilon: float, delta: float, m_max: int = 1000, *, m_mark: int | None = None,
                               template: str = TEMPLATE) -> go.Figure:
    """δ′ = δ·(e^{mε} − 1)/(e^{ε} − 1) against m (Lemma 6 of 000), with the loose m·e^{mε}·δ and the line δ′ = 1."""
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta, "delta", allow_zero=False)
    m_max = check_integer(m_max, "m_max", minimum=2, maximum=10**6)
    m = _int_log_grid(1, m_max, 200)
    _, d_m, d_loose = group_privacy_cost(epsilon, delta, m)
    top = 1e3
    fig = go.Figure(layout=dict(template=template))
    fig.add_trace(go.Scatter(x=m, y=np.minimum(d_m, top), mode="lines", name="δ′ = δ·(e^{mε}−1)/(e^{ε}−1)",
                             line=dict(color=ROLE["naive"], width=3)))
    fig.add_trace(go.Scatter(x=m, y=np.minimum(d_loose, top), mode="lines", name="looser m·e^{mε}·δ",
                             line=dict(color=ROLE["bound"], dash="dash")))
    fig.add_trace(go.Scatter(x=m, y=np.minimum(m * delta, top), mode="lines", name="m·δ (a common mistake)",
                             line=dict(color=PALETTE[2], dash="dot")))
    shapes = [_hline(1.0, "#888")]
    notes = [dict(x=1, xref="paper", y=0, yref="y", text="δ′ ≥ 1: no guarantee at all", showarrow=False,
                  xanchor="right", yanchor="bottom", font=dict(size=11, color="#555"))]
    vac = np.nonzero(d_m >= 1.0)[0]
    if vac.size:
        m_vac = int(m[vac[0]])
        # exact first m with δ′ ≥ 1 (the grid may skip integers)
        lo = int(m[vac[0] - 1]) if vac[0] > 0 else 1
        ints = np.arange(lo, m_vac + 1)
        m_vac = int(ints[np.nonzero(group_privacy_cost(epsilon, delta, ints)[1] >= 1.0)[0][0]])
        shapes.append(_vline(m_vac, ROLE["naive"]))
        notes.append(_label(m_vac, f"vacuous from m = {m_vac} ", log_x=True, color=ROLE["naive"], xanchor="right",
                            y=0.9))
    if m_mark is not None:
        mm = check_integer(m_mark, "m_mark", minimum=1)
        dm = float(group_privacy_cost(epsilon, delta, [mm])[1][0])
        fig.add_trace(go.Scatter(x=[mm], y=[min(dm, top)], mode="markers", name=f"m = {mm}: δ′ = {dm:.3g}",
                                 marker=dict(size=11, color=ROLE["naive"], line=dict(color="white", width=1))))
    fig.update_layout(title=f"User-level δ′ from item-level (ε, δ) = ({epsilon:g}, {delta:.0e})",
                      xaxis_title="m (examples per user)", yaxis_title="user-level δ′ (capped at 10³)",
                      xaxis_type="log", yaxis_type="log", legend=dict(x=0.02, y=0.98), shapes=shapes,
                      annotations=notes)
    caption(fig, "Source: 000, Lemma 6: δ′ = δ·(e^{mε}−1)/(e^{ε}−1) ≤ m·e^{mε}·δ — a geometric sum, not m·δ.")
    return fig


def _int_log_grid(lo: int, hi: int, num: int) -> np.ndarray:
    """Distinct integers, log-spaced from lo to hi inclusive."""
    g = np.unique(np.round(np.geomspace(lo, hi, num)).astype(np.int64))
    return g


# ----------------------------------------------------------------------------------- n × m bounding explorer

QUESTION = "sum of per-record values in [0, 1]"


@dataclasses.dataclass(frozen=True)
class BoundingTradeoff:
    """Error of a noisy sum with contribution bound k, for every k = 1 … cap (arrays indexed by k − 1).

    Built by :func:`bounding_curves`; a vectorised, counts-only version of
    ``dpviz.userlevel.bounding_tradeoff`` (which loops over k in Python and only does Laplace), extended with the
    Gaussian and group-privacy curves. The tests check the two agree.

    Attributes
    ----------
    k : ndarray
        1 … cap.
    counts : ndarray
        Per-user record counts c_i (sorted).
    true_answer : float
        Σ_i c_i (every record has value 1 in this synthetic dataset; the mechanism must still protect any values
        in [0, 1]).
    bias : ndarray
        Truncation bias −Σ_i (c_i − k)_+ (records beyond the first k of each user are dropped).
    noise_user, noise_item, noise_group : ndarray
        Noise standard deviation for a user-level guarantee (sensitivity k), an item-level guarantee (sensitivity 1,
        protects one record only) and an item-level mechanism lifted to user level by group privacy (run at ε/k and
        δ·(e^{ε/k}−1)/(e^{ε}−1), see :func:`bounding_curves`); ``noise_group`` equals ``noise_user`` for Laplace.
    rmse_user, rmse_item, rmse_group : ndarray
        √(bias² + noise²).
    k_user, k_item, k_group : int
        The k minimising each RMSE (smallest such k).
    """

    k: np.ndarray
    counts: np.ndarray
    true_answer: float
    bias: np.ndarray
    noise_user: np.ndarray
    noise_item: np.ndarray
    noise_group: np.ndarray
    rmse_user: np.ndarray
    rmse_item: np.ndarray
    rmse_group: np.ndarray
    k_user: int
    k_item: int
    k_group: int
    mechanism: str
    epsilon: float
    delta: float

    def dropped_fraction(self, k: int) -> float:
        """Fraction of records dropped at bound k."""
        return float(-self.bias[k - 1] / self.true_answer)

    def users_truncated(self, k: int) -> float:
        """Fraction of users with more than k records."""
        return float(np.mean(self.counts > k))


@functools.lru_cache(maxsize=32)
def _group_sigma_curve(epsilon: float, delta: float, cap: int) -> np.ndarray:
    """σ of an item-level Gaussian at (ε/k, δ_k) with δ_k = δ(e^{ε/k}−1)/(e^{ε}−1), for k = 1..cap (Lemma 6 of 000).

    Computed exactly on ≤ 60 log-spaced k and interpolated in log–log between them (smooth, monotone).
    """
    ks = _int_log_grid(1, cap, 60).astype(float)
    eps_k = epsilon / ks
    log_delta_k = math.log(delta) + _log_expm1(eps_k) - _log_expm1(np.array([epsilon]))[0]
    sig = _gaussian_sigma(eps_k, np.exp(log_delta_k))
    allk = np.arange(1, cap + 1, dtype=float)
    return np.exp(np.interp(np.log(allk), np.log(ks), np.log(sig)))


def bounding_curves(
    n_users: int = 1000,
    median: float = 5.0,
    tail: float = 1.2,
    epsilon: float = 1.0,
    *,
    mechanism: str = "laplace",
    delta: float = 1e-6,
    cap: int = 1000,
    seed: int = 0,
) -> BoundingTradeoff:
    """Truncation bias against noise against total error of a user-level noisy sum, for every bound k.

    Each user i holds c_i records (heavy-tailed, see ``tail``); every record value lies in [0, 1]. Keeping at most k
    records per user (contribution bounding) gives

    * bias(k) = −Σ_i (c_i − k)_+ (the dropped records; every value is 1 here, the worst case for bias);
    * user-level sensitivity k (one user's block of ≤ k records replaced moves the sum by ≤ k), so
      Laplace noise std √2·k/ε, or Gaussian σ = k·σ₁(ε, δ) (analytic Gaussian, Balle & Wang 2018, Thm 8);
    * item-level sensitivity 1 (one record replaced): std √2/ε or σ₁(ε, δ), independent of k — but it protects
      one record, not a user (a user with c records gets only c·ε by Lemma 6 of 000);
    * item-level mechanism lifted to user level by group privacy (Lemma 6): run at ε/k and δ·(e^{ε/k}−1)/(e^{ε}−1)
      so the user-level guarantee is (ε, δ). For Laplace this equals the user-level noise; for Gaussian it is worse.

    RMSE(k) = √(bias(k)² + noise(k)²) (exact: the bias is deterministic given the data, the noise has mean 0).

    Parameters
    ----------
    n_users : int
        Number of users n (1 … 10⁶).
    median : float
        Median records per user (continuous Pareto median), ≥ 1.
    tail : float
        Pareto tail index a in [0.5, 10]; smaller is heavier.
    epsilon : float
        Target ε > 0.
    mechanism : {"laplace", "gaussian"}
        Laplace: pure ε-DP; Gaussian: (ε, δ)-DP.
    delta : float
        δ in (0, 1) (Gaussian only).
    cap : int
        Public maximum records per user (the no-bounding sensitivity), 1 … 10⁵.
    seed : int
        Seed of the synthetic counts.

    Returns
    -------
    BoundingTradeoff

    Raises
    ------
    ValueError
        Any parameter out of its range.

    References
    ----------
    000, Definition 1 and Lemma 6; Dwork & Roth 2014 (Laplace mechanism, Thm 3.6); Balle & Wang 2018, Thm 8.
    The explorer itself is dpviz's [derived] illustration (contribution bounding is a baseline in the issue, not a
    result of 000).

    Examples
    --------
    >>> t = bounding_curves(100, 3.0, 1.5, 1.0, seed=1)
    >>> int(t.k[0]), bool(t.bias[-1] == 0), t.k_user <= t.k_item
    (1, True, True)
    """
    n_users = check_integer(n_users, "n_users", minimum=1, maximum=10**6)
    median = check_in_range(median, "median", 1.0, 1e4)
    tail = check_in_range(tail, "tail", 0.5, 10.0)
    epsilon = check_positive(epsilon, "epsilon")
    mechanism = check_choice(mechanism, "mechanism", ("laplace", "gaussian"))
    delta = check_delta(delta, "delta", allow_zero=False)
    cap = check_integer(cap, "cap", minimum=1, maximum=10**5)
    seed = check_integer(seed, "seed", minimum=0)
    counts = _sample_counts(n_users, float(median), float(tail), cap, seed)
    k = np.arange(1, cap + 1)
    # Σ_i min(c_i, k) for every k from the sorted counts: Σ_{c_i ≤ k} c_i + k·#{c_i > k}
    csum = np.concatenate([[0], np.cumsum(counts)])
    j = np.searchsorted(counts, k, side="right")
    kept = csum[j] + k * (n_users - j)
    true = float(csum[-1])
    bias = kept.astype(float) - true
    if mechanism == "laplace":
        unit = math.sqrt(2.0) / epsilon
        noise_user = unit * k
        noise_item = np.full(cap, unit)
        noise_group = noise_user.copy()
    else:
        s1 = float(_gaussian_sigma(epsilon, delta)[0])
        noise_user = s1 * k
        noise_item = np.full(cap, s1)
        noise_group = _group_sigma_curve(float(epsilon), float(delta), cap)
    rm = [np.sqrt(bias**2 + nz**2) for nz in (noise_user, noise_item, noise_group)]
    opt = [int(np.argmin(r)) + 1 for r in rm]
    return BoundingTradeoff(k=k, counts=counts, true_answer=true, bias=bias, noise_user=noise_user,
                            noise_item=noise_item, noise_group=noise_group, rmse_user=rm[0], rmse_item=rm[1],
                            rmse_group=rm[2], k_user=opt[0], k_item=opt[1], k_group=opt[2], mechanism=mechanism,
                            epsilon=epsilon, delta=delta)


def bounding_error_figure(t: BoundingTradeoff, k: int, *, template: str = TEMPLATE) -> go.Figure:
    """Bias, noise and total RMSE against the contribution bound k (log–log), optimum k marked, current k drawn."""
    k = check_integer(k, "k", minimum=1, maximum=int(t.k[-1]))
    grid = _int_log_grid(1, int(t.k[-1]), 300)
    idx = grid - 1
    absb = -t.bias[idx]
    absb = np.where(absb > 0, absb, np.nan)  # log axis: a zero bias is drawn as a gap
    fig = go.Figure(layout=dict(template=template))
    fig.add_trace(go.Scatter(x=grid, y=absb, mode="lines", name="|bias| (records dropped)",
                             line=dict(color=PALETTE[1], width=2.5)))
    fig.add_trace(go.Scatter(x=grid, y=t.noise_user[idx], mode="lines", name="noise std, user-level (∝ k)",
                             line=dict(color=PALETTE[2], width=2.5, dash="dash")))
    fig.add_trace(go.Scatter(x=grid, y=t.rmse_user[idx], mode="lines", name="total RMSE, user-level",
                             line=dict(color=ROLE["private"], width=4)))
    fig.add_trace(go.Scatter(x=grid, y=t.rmse_item[idx], mode="lines",
                             name="total RMSE, item-level (protects 1 record only)",
                             line=dict(color=PALETTE[3], width=2, dash="dot")))
    if t.mechanism == "gaussian":
        fig.add_trace(go.Scatter(x=grid, y=t.rmse_group[idx], mode="lines",
                                 name="total RMSE, item-level lifted by group privacy",
                                 line=dict(color=ROLE["naive"], width=2, dash="dashdot")))
    ku = t.k_user
    fig.add_trace(go.Scatter(x=[ku], y=[t.rmse_user[ku - 1]], mode="markers+text", name=f"optimum k* = {ku}",
                             text=[f"k* = {ku}"], textposition="bottom center",
                             marker=dict(symbol="star", size=18, color=ROLE["private"],
                                         line=dict(color="white", width=1))))
    fig.add_trace(go.Scatter(x=[k], y=[t.rmse_user[k - 1]], mode="markers", name=f"your k = {k}",
                             marker=dict(symbol="circle-open", size=16, color=ROLE["bound"], line=dict(width=3))))
    ymin = max(float(np.nanmin(np.concatenate([t.noise_item[idx], t.rmse_user[idx]]))) / 3, 1e-3)
    ymax = float(np.nanmax(np.concatenate([t.rmse_user[idx], absb[np.isfinite(absb)] if np.isfinite(absb).any()
                                           else t.rmse_user[idx]]))) * 2
    mech = ("Laplace, pure ε = %g" % t.epsilon if t.mechanism == "laplace"
            else "Gaussian, (ε, δ) = (%g, %.0e)" % (t.epsilon, t.delta))
    fig.update_layout(title=f"Noisy sum with contribution bound k — {mech}", xaxis_title="contribution bound k "
                      "(records kept per user)", yaxis_title="error (same units as the answer)", xaxis_type="log",
                      yaxis_type="log", yaxis_range=[math.log10(ymin), math.log10(ymax)],
                      legend=dict(x=0.01, y=0.01, xanchor="left", yanchor="bottom", font=dict(size=11)),
                      height=460, shapes=[_vline(k)])
    src = ("Laplace std √2·Δ/ε (Dwork & Roth 2014, Thm 3.6)" if t.mechanism == "laplace"
           else "analytic Gaussian σ (Balle & Wang 2018, Thm 8)")
    caption(fig, f"Sensitivity: k at user level (000, Def. 1), 1 at item level; {src}; group privacy: 000, Lemma 6."
                 "<br>RMSE = √(bias² + noise²), exact for this synthetic dataset (every value 1, counts seeded).")
    return fig


def contribution_histogram_figure(t: BoundingTradeoff, k: int, *, template: str = TEMPLATE) -> go.Figure:
    """Histogram of per-user record counts (log-binned) with the bound k; dropped share of records and users."""
    k = check_integer(k, "k", minimum=1, maximum=int(t.k[-1]))
    c = t.counts
    cmax = int(c[-1])
    edges = np.unique(np.round(np.geomspace(1, max(cmax, 2) + 1, 40)).astype(np.int64)).astype(float)
    h_keep, _ = np.histogram(c[c <= k], bins=edges)
    h_cut, _ = np.histogram(c[c > k], bins=edges)
    # step outlines (line_shape "hv") draw histograms correctly on a log x axis
    xs = edges
    fig = go.Figure(layout=dict(template=template))
    for h, name, col in ((h_keep, f"users with c ≤ k (untouched)", ROLE["private"]),
                         (h_cut, f"users with c > k (truncated to k)", PALETTE[1])):
        fig.add_trace(go.Scatter(x=xs, y=np.append(h, h[-1]), mode="lines", line_shape="hv", fill="tozeroy",
                                 name=name, line=dict(color=col, width=1.5)))
    fig.update_layout(title=f"Records per user (n = {c.size}): {t.dropped_fraction(k):.1%} of records dropped, "
                            f"{t.users_truncated(k):.1%} of users truncated", xaxis_title="records per user c_i",
                      yaxis_title="number of users", xaxis_type="log",
                      legend=dict(x=0.98, y=0.98, xanchor="right", font=dict(size=11)),
                      shapes=[_vline(k, ROLE["bound"], width=2)],
                      annotations=[_label(k, f" k = {k}", log_x=True, y=0.75)])
    approx_note(fig, "synthetic heavy-tailed counts (discretised Pareto, fixed seed)")
    caption(fig, "Orange bins: users who lose records when at most k are kept. The bound k must be fixed "
                 "before looking at the data.")
    return fig
