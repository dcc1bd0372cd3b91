"""Lesson 14 "Few examples per user": the bounds of Ghazi et al. 2023 and their moving parts.

Panels (no-argument constructors, working defaults):

* :class:`UsersNeededPanel` — users needed against m for the rows of Tables 1 and 2, terms, breakpoints, naive line;
* :class:`GenericTransformationPanel` — Corollary 3 / Theorems 10–11 against naive group privacy, item-level budget;
* :class:`PTRPricePanel` — ε̄, δ̄, κ, the 4κ users discarded and the TDLap pmf (Algorithm 1, Definition 8);
* :class:`DelStabToyPanel` — DelStab run exactly on the noisy-count toy: the test's answer and the (ε, δ) check;
* :class:`SqrtMPanel` — the privacy loss of swapping two users: typical ~ ε_item·√m, worst case ε_item·m, with a
  misconception exercise (why √m);
* :class:`ThresholdLearnerPanel` — simulated user-level PAC learner (Section 4, Theorem 4) on 1-D thresholds vs the
  theory (slow);
* :class:`ClippingPanel` — the clip threshold τ of ClippedPairwiseEM (Appendix E.1): bias against noise; the best τ
  is drawn only after Reveal.

Learner-visible strings follow the course notation (notebooks/notation.ipynb): ε_item for the item-level guarantee,
K for the alphabet / domain size, α_acc for accuracy, β_fail for a failure probability.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz.panels import Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Slider, Step, Toggle, View
from dpviz.panels.format import table
from dpviz.plots import few_examples as P
from dpviz.userlevel import (
    TABLE1_ROWS,
    TABLE2_ROWS,
    ClippingTradeoff,
    DelStab,
    NoisySum,
    UserDataset,
    clipping_tradeoff,
    crossover_group_privacy,
    delstab_parameters,
    pmf_quantile,
    regime_breakpoints,
    simulate_threshold_learning,
    swap_difference_pmf,
    tdlap_pmf,
)

# Numbers come from dpviz.userlevel, figures from dpviz.plots.few_examples.
# Paired views are built with template="none" and joined by P.side_by_side, which applies the dpviz template once
# (template validation is the most expensive step of building a plotly figure).

__all__ = [
    "UsersNeededPanel",
    "GenericTransformationPanel",
    "PTRPricePanel",
    "DelStabToyPanel",
    "SqrtMPanel",
    "ThresholdLearnerPanel",
    "ClippingPanel",
]

HIDDEN_NOTE = ("<p style='color:#8a4b00'>Hidden constants and polylog factors are replaced by one knob C: the "
               "<b>absolute user counts are illustrative</b>; the slopes, breakpoints and crossovers are the lesson."
               "</p>")


_GHAZI = "Ghazi et al. 2023"


def _rows():
    return {f"t{r.table}:{r.key}": r for r in (*TABLE1_ROWS, *TABLE2_ROWS)}


class UsersNeededPanel(Panel):
    """Users needed against m (log–log) for the rows of Tables 1 and 2 of Ghazi et al. 2023."""

    title = "How many users? Tables 1 and 2 as curves"
    intro = ("Pick a row of the paper's tables. Each term of the user-level bound is drawn separately; the thick "
             "line is their sum, clamped to what is trivially possible (Observation 28). Compare with the item-level "
             "count (one example per user) and with naive group privacy.")

    controls = {
        "epsilon": Slider("ε", 0.5, 0.05, 2.0, step=0.05),
        "alpha": LogSlider("α<sub>acc</sub> (accuracy)", 0.05, 10 ** -2.3, 10 ** -0.3, step=0.05),
        "row": Choice("preset (table row)", [(f"Table {r.table} ({'pure' if r.table == 1 else 'approx.'}): "
                                              f"{r.problem}", key) for key, r in _rows().items()], "t1:dd"),
        "dim": LogSlider("dimension (d, K, Kd, d², d<sub>L</sub>)", 10, 1, 1000, step=0.1, fmt=".0f"),
        "constant": LogSlider("hidden constant C", 1.0, 0.1, 10, step=0.1),
        "m": LogSlider("mark m", 100, 1, 1e6, step=0.1, fmt=".0f"),
    }

    def render(self, v) -> View:
        row = _rows()[v.row]
        eps, alpha, dim, C, m = float(v.epsilon), float(v.alpha), float(v.dim), float(v.constant), float(v.m)
        fig = P.users_needed_figure(row, eps, alpha, dim, constant=C, m_mark=m)
        t = row.user_level_terms(m, eps, alpha, dim, constant=C)
        n1 = row.item_level(eps, alpha, dim, constant=C)
        naive = C * sum(f(np.array([m]), eps / m, alpha, dim) for _, f in row.item_terms)[0] / m
        dominant = max((k for k in ("floor", "privacy", "statistical") if k in t), key=lambda k: t[k])
        bps = regime_breakpoints(row, eps, alpha, dim)
        rows = [
            ("row", f"Table {row.table}, {row.problem}: {row.ours_formula} ({row.source}); item-level "
                    f"{row.item_formula}; dimension = {row.dimension}"),
            (f"users needed at m = {m:,.0f}", f"{t['users']:,.0f} (item-level n₁ = {n1:,.0f}; savings ×"
                                              f"{n1 / t['users']:.3g})"),
            ("terms", ", ".join(f"{k} {t[k]:,.3g}" for k in ("floor", "privacy", "statistical") if k in t)
             + f" — {dominant} term dominates"),
            ("naive group privacy n₁(ε/m)/m", f"{naive:,.0f}"),
            ("breakpoints", "; ".join(f"m ≈ {b:,.3g}: {a} → {c}" for b, a, c in bps) or "none in 1…10⁹"),
        ]
        if row.prior_formula:
            rows.append(("previous user-level result", row.prior_formula))
        hint = None
        if row.table == 2:
            hint = ("Table 2 uses the Littlestone dimension d<sub>L</sub> for PAC (not PRDim) and hides polylog(1/δ); "
                    "compare shapes, not heights, with Table 1.")
        return View(figures=[fig], readout=table(rows) + HIDDEN_NOTE, hint=hint)


class GenericTransformationPanel(Panel):
    """Corollary 3 and Theorems 10/11 of Ghazi et al. 2023 against naive group privacy, and the item-level budget they
    need."""

    title = "The generic transformation against group privacy"
    intro = ("Any (ε, δ)-item-level algorithm can be turned into a user-level one (Theorem 10). Its privacy term "
             "shrinks like 1/√m — but with heavy log(1/δ)/ε overheads, so it only beats naive group privacy for "
             "large m.")

    controls = {
        "epsilon": Slider("ε", 1.0, 0.1, 3.0, step=0.05),
        "delta": LogSlider("δ", 1e-6, 1e-12, 1e-2, step=0.5),
        "n_priv": LogSlider("n<sub>priv</sub> (privacy complexity)", 100, 1, 1e4, step=0.1, fmt=".0f"),
        "n_stat": LogSlider("n<sub>stat</sub> (statistical complexity)", 1000, 1, 1e6, step=0.1, fmt=".0f"),
        "c": Slider("c (power of log(1/δ))", 1.0, 0.0, 3.0, step=0.5),
        "constant": LogSlider("hidden constant C", 1.0, 0.1, 10, step=0.1),
    }

    def render(self, v) -> View:
        eps, dl = float(v.epsilon), float(v.delta)
        kw = dict(n_priv=float(v.n_priv), n_stat=float(v.n_stat), c=float(v.c), constant=float(v.constant))
        f1 = P.generic_users_figure(eps, dl, **kw, template="none")
        f2 = P.item_budget_figure(eps, dl, template="none")
        mb = crossover_group_privacy(eps, dl, kind="budget")
        mu = crossover_group_privacy(eps, dl, kind="users", n_priv=kw["n_priv"], n_stat=kw["n_stat"], c=kw["c"],
                                     m_max=1e8)
        par = delstab_parameters(eps, dl)
        readout = table([
            ("Theorem 10's item budget beats ε/m for",
             f"m > {mb:,.0f} (root of ε²/(L√(m ln(m/δ))) = ε/m, L = ln(1/δ): Theorem 10 against Lemma 6; "
             "≈ 4.2·10³ at (ε, δ) = (1, 10⁻⁶))"),
            ("Theorem 10 needs fewer users than group privacy for",
             f"m > {mu:,.0f}" if math.isfinite(mu) else "no m ≤ 10⁸"),
            ("floor ln(1/δ)/ε (never vanishes)", f"{math.log(1 / dl) / eps:,.1f} users × C"),
            ("users always discarded by Algorithm 1", f"4κ = {par.discarded}"),
        ]) + HIDDEN_NOTE
        return View(figures=[P.side_by_side(f1, f2)], readout=readout)


class PTRPricePanel(Panel):
    """ε̄, δ̄, κ, the 4κ discarded users and the TDLap pmf of Algorithm 1 of Ghazi et al. 2023."""

    title = "The price of propose–test–release"
    intro = ("Algorithm 1 (DelStab) splits the budget (ε̄ = ε/3), draws how many users to delete from a truncated "
             "discrete Laplace on {0, …, 2κ}, and always throws 4κ users away. Watch κ as ε and δ move.")

    controls = {
        "epsilon": Slider("ε", 1.0, 0.1, 5.0, step=0.05),
        "delta": LogSlider("δ", 1e-6, 1e-12, 1e-1, step=0.25),
        "convention": Toggle("δ̄ convention", [("proof (pinned)", "proof"), ("as printed", "printed")], "proof"),
    }

    def render(self, v) -> View:
        eps, dl, conv = float(v.epsilon), float(v.delta), v.convention
        par = delstab_parameters(eps, dl, convention=conv)
        other = delstab_parameters(eps, dl, convention="printed" if conv == "proof" else "proof")
        pmf = tdlap_pmf(par.epsilon_bar, par.delta_bar)
        f1 = P.tdlap_figure(eps, dl, convention=conv, template="none")
        f2 = P.ptr_discard_figure(eps, dl, convention=conv, template="none")
        readout = table([
            ("ε̄ = ε/3", f"{par.epsilon_bar:.4g}"),
            ("δ̄ = δ/(e<sup>2ε̄</sup> + e<sup>ε̄</sup> + 2)" if conv == "proof"
             else "δ̄ = δ/(e<sup>2ε̄</sup> + e<sup>ε</sup> + 2) (printed)",
             f"{par.delta_bar:.4g}"),
            ("κ = 1 + ⌈ln(1/δ̄)/ε̄⌉", f"{par.kappa} (other convention: {other.kappa})"),
            ("users discarded = minimum n", f"4κ = {par.discarded}"),
            ("TDLap end mass p(0) = p(2κ)", f"{pmf[0]:.3g} ≤ δ̄ = {par.delta_bar:.3g}"),
        ]) + (f"<p>Source: {_GHAZI}, Algorithm 1 and Definition 8. dpviz pins the proof's denominator "
              "(e<sup>2ε̄</sup>+e<sup>ε̄</sup>+2) (Appendix C.4, proof of Lemma 18); Algorithm 1 as printed has "
              "e<sup>ε</sup> there, a smaller δ̄ that is also private.</p>")
        return View(figures=[P.side_by_side(f1, f2)], readout=readout)


def _delstab_n_floor(v) -> int:
    """The n slider's lower end: n ≥ 4κ + 1 (A must see one user at least), within the slider's range 20…40."""
    return min(max(20, delstab_parameters(float(v.epsilon), float(v.delta)).min_users + 1), 40)


class DelStabToyPanel(Panel):
    """DelStab (Algorithm 1 of Ghazi et al. 2023) run exactly on the noisy-count toy; the (ε, δ) check on two
    neighbours."""

    title = "DelStab on a toy: test, then release"
    #: exact but combinatorial (types of deleted users): up to ~0.3 s at the largest settings, so it runs on release
    slow = True
    intro = ("Inner algorithm A: the number of 1s among the remaining users' bits plus two-sided geometric noise "
             "(ε<sub>item</sub> per bit). DelStab tests, on the real data, whether deleting users could change "
             "A's output "
             "distribution much; if not it releases A's output, else ⊥. Everything below is computed exactly.")

    controls = {
        "epsilon0": Slider("ε<sub>item</sub> (inner noise per bit)", 0.1, 0.02, 0.3, step=0.01),
        "epsilon": Slider("user-level ε", 4.0, 3.0, 6.0, step=0.25),
        "delta": LogSlider("user-level δ", 0.1, 10 ** -1.5, 10 ** -0.5, step=0.1),
        "n_users": IntSlider("n (users)", 32, min=_delstab_n_floor, max=40),
        "m": IntSlider("m (bits per user)", 2, 1, 3),
        "p": Slider("P(bit = 1)", 0.5, 0.05, 0.95, step=0.05),
        "replace": Toggle("x′: user 1's block becomes", [("all 1s", "ones"), ("all 0s", "zeros")], "ones"),
    }

    def render(self, v) -> View:
        eps, dl = float(v.epsilon), float(v.delta)
        n, m = int(v.n_users), int(v.m)
        par = delstab_parameters(eps, dl)
        # Every slider position is accepted: below 4κ + 1 users (A must see one user at least) the panel
        # runs at n = 4κ + 1 and says so, rather than refusing and leaving the previous figure on screen. Over the
        # sliders' ranges 4κ + 1 ≤ 29 ≤ 40, the n maximum.
        need = par.min_users + 1
        raised = n < need
        n = max(n, need)
        x = UserDataset.bernoulli(n, m, float(v.p), rng=12345)
        block = np.ones(m, dtype=int) if v.replace == "ones" else np.zeros(m, dtype=int)
        x2 = x.replace_user(0, block)
        algo = NoisySum(epsilon0=float(v.epsilon0), high=(n - par.discarded) * m)
        ds = DelStab(eps, dl, algo)
        px, px2 = ds.output_pmf(x), ds.output_pmf(x2)
        st, st2 = ds.stability(x), ds.stability(x2)
        f1 = P.delstab_output_figure(ds.outputs, px, px2, epsilon=eps, delta=dl, template="none")
        f2 = P.delstab_test_figure(st["tdlap"], st["stable"], st2["stable"], template="none")
        frac = st["n_stable"] / st["n_subsets"]
        sums = x.user_sums()
        readout = table([
            ("dataset", f"{n} users × {m} bits; per-user sums {np.bincount(sums.astype(int), minlength=m + 1).tolist()}"
                        f" (count of users with sum 0…{m}); x′ replaces user 1's block {x.blocks[0].tolist()} by "
                        f"{block.tolist()}"),
            ("Algorithm 1 parameters", f"ε̄ = {par.epsilon_bar:.3g}, δ̄ = {par.delta_bar:.3g}, κ = {par.kappa}, "
                                       f"A sees n − 4κ = {n - par.discarded} users"),
            ("inner A", f"{algo.item_epsilon:g}-item-level DP noisy count, outputs 0…{algo.high}"),
            ("Pr[⊥] on x / x′", f"{px[-1]:.3g} / {px2[-1]:.3g}"),
            ("stable r (X_stable ≠ ∅ on x)", f"{int(st['stable'].sum())} of {st['r'].size} values of R₁; "
                                            f"at r = κ = {par.kappa}, {frac[par.kappa]:.1%} of the C(n, κ) sets S "
                                            "are stable"),
        ])
        hints = []
        if raised:
            hints.append(f"DelStab always deletes 4κ = {par.discarded} users at (ε, δ) = ({eps:g}, {dl:g}), so it "
                         f"needs n ≥ 4κ + 1 = {need} (A must see one user at least): shown with n = {n}. Raise ε or δ "
                         "to use fewer users.")
        if px[-1] > 0.5:
            hints.append("The test mostly fails (⊥): deleting users moves A's output too much for ε̄. Make A noisier "
                         "(smaller ε<sub>item</sub>) or give more budget (larger ε).")
        return View(figures=[P.side_by_side(f1, f2)], readout=readout, hint=" ".join(hints) or None)


class SqrtMPanel(Panel):
    """Why √m: the privacy loss of swapping two random users' blocks, exact, against ε_item·m and ε_item·√m."""

    title = "Why √m and not m"
    intro = ("Group privacy charges for the worst pair of users (all m bits different): ε<sub>item</sub>·m. But two "
             "<i>typical</i> users drawn from the same distribution differ by only about √m in their sums. The "
             f"paper's transformation pays for the typical case ({_GHAZI}, Theorem 17).")

    controls = {
        "m": LogSlider("m (examples per user)", 100, 1, 1e4, step=0.1, fmt=".0f", integer=True),
        "p": Slider("P(bit = 1)", 0.5, 0.02, 0.98, step=0.02),
        "epsilon0": LogSlider("ε<sub>item</sub> (item-level)", 0.05, 1e-3, 1, step=0.1),
    }
    exercises = {"exercise": ChoiceReveal(
        "Each user holds m = 100 examples and the inner algorithm is ε<sub>item</sub>-DP per example. Group "
        "privacy charges 100·ε<sub>item</sub> for one user; the paper's transformation pays about "
        "10·ε<sub>item</sub> (times log factors). Where does the saving come from?",
        [("The transformation adds √m times less noise", False,
          "Tempting, because the end result looks like a smaller noise scale. But nothing is made less noisy: "
          "the same ε<sub>item</sub>-DP algorithm is analysed differently. Its privacy loss for one user is "
          "ε<sub>item</sub>·|S − S′| — small when the two users' data are alike."),
         ("Users' data are drawn from one distribution, so two users typically differ by about √m; the "
          "guarantee is shown to hold with high probability over the data, and DelStab tests for it", True,
          "Yes. Theorem 17 (Ghazi et al. 2023) bounds the loss of changing r users by "
          "O(ε<sub>item</sub>·r·√(m·log(n/(β<sub>fail</sub>δ<sub>item</sub>)))) "
          "with probability 1 − β<sub>fail</sub> "
          "over the data; the propose–test–release wrapper DelStab then turns this typical-case stability "
          "into a worst-case (ε, δ) guarantee, by checking it on the actual data."),
         ("Group privacy was loose all along: even the worst pair of users costs only about √m times the "
          "item-level ε", False,
          "Tempting, since the histogram's mass sits near √m. But for the noisy count, all-zeros against "
          "all-ones really costs m·ε<sub>item</sub> (the red line): group privacy is tight in the worst case. "
          "The saving exists only because such pairs are unlikely under a common distribution.")])}

    def render(self, v) -> View:
        m, p, e0 = v.m, float(v.p), float(v.epsilon0)
        f1 = P.swap_loss_figure(m, p, e0, template="none")
        f2 = P.swap_loss_scaling_figure(p, e0, m_mark=m, template="none")
        pmf = swap_difference_pmf(m, p)
        q99 = pmf_quantile(pmf, 0.99)
        mean = float(np.dot(np.arange(m + 1), pmf))
        readout = table([
            ("worst case ε<sub>item</sub>·m (group privacy)", f"{e0 * m:.4g}"),
            ("mean loss ε<sub>item</sub>·E|S − S′|", f"{e0 * mean:.4g} (normal approx. "
                                                    "ε<sub>item</sub>√(2mp(1−p))·√(2/π) = "
                                       f"{e0 * math.sqrt(2 * m * p * (1 - p)) * math.sqrt(2 / math.pi):.4g})"),
            ("99% of swaps cost at most", f"{e0 * q99:.4g} = {q99 / m:.2%} of the worst case"),
        ])
        return View(figures=[P.side_by_side(f1, f2)], readout=readout)


class ThresholdLearnerPanel(Panel):
    """The user-level realizable PAC learner (Section 4 of Ghazi et al. 2023) on 1-D thresholds: simulated error
    against n and m."""

    title = "Learning a threshold from users"
    intro = ("Each user holds m labelled points x ∈ {0, …, K−1}, y = 1[x ≥ t*]. The learner scores each threshold by "
             "the number of users it gets wrong at least once (sensitivity 1) and picks one with the exponential "
             "mechanism. Press a slider and wait for the simulation (progress bar).")

    controls = {
        "m": IntSlider("m (examples per user)", 8, 2, 64, bench=[2, 8, 32, 64]),
        "epsilon": Slider("ε", 1.0, 0.2, 4.0, step=0.1, bench=[0.5, 2.0, 4.0]),
        "grid_size": Choice("K (grid points)", [("100", 100), ("1000", 1000)], 1000, bench=[100, 1000]),
        "trials": IntSlider("runs per point", 30, 10, 60, step=10, bench=[30, 60]),
    }

    N_GRID = np.array([2, 4, 8, 16, 32, 64, 128, 256, 512])
    #: how many values of n are simulated before the first view (the small n are cheap): two, so that the first
    #: partial result comes within a few hundredths of a second
    FIRST_DRAW = 2

    def render(self, v):
        """n by n (both curves at each n; every point has its own seed, so the order changes no draw): the first
        view after the cheap small n, then one per further n (a step is two simulations, a few hundredths of a
        second); every view draws the theory over the whole n grid."""
        m, eps, K, trials = int(v.m), float(v.epsilon), int(v.grid_size), int(v.trials)
        n_grid = self.N_GRID
        ms = [1, m]
        errs: dict[int, list[float]] = {mm: [] for mm in ms}
        s_e: dict[int, list[float]] = {mm: [] for mm in ms}
        for i, n in enumerate(n_grid):
            for mm in ms:
                e, se = simulate_threshold_learning(int(n), mm, eps, grid_size=K, trials=trials, return_se=True,
                                                    rng=1000 * mm + int(n))
                errs[mm].append(float(e))
                s_e[mm].append(float(se))
            if i + 1 >= min(self.FIRST_DRAW, len(n_grid)):
                k = i + 1
                yield Step(k, len(n_grid), lambda k=k: self._view(
                    n_grid[:k], {mm: np.array(errs[mm][:k]) for mm in ms}, {mm: np.array(s_e[mm][:k]) for mm in ms},
                    m, eps, K), unit="values of n")

    def _view(self, n_grid, errors, ses, m, eps, K) -> View:
        ms = [1, m]
        fig = P.pac_error_figure(n_grid, errors, epsilon=eps, grid_size=K, standard_errors=ses, theory_grid=self.N_GRID)
        target = 0.02
        need = {mm: _users_for_error(n_grid, errors[mm], target) for mm in ms}
        if math.isfinite(need[1]) and math.isfinite(need[m]):
            a = target
            theory = (1 + 1 / a) / (1 + 1 / (a * m))
            ratio = (f"×{need[1] / need[m]:.3g} fewer users with m = {m}; Theorem 4's shape predicts "
                     "(d/ε + d/(εα<sub>acc</sub>))/(d/ε + d/(εα<sub>acc</sub>m)) = "
                     f"×{theory:.3g} at α<sub>acc</sub> = {a:g} — the d/ε floor caps the saving, "
                     "and hidden constants differ")
        else:
            ratio = "not reached on this n grid"
        readout = table([
            (f"users needed for mean error ≤ {target:g}", f"m = 1: {need[1]:,.0f};  m = {m}: {need[m]:,.0f}"
             if math.isfinite(need[1]) and math.isfinite(need[m])
             else f"beyond n = {int(n_grid[-1])} for one of the curves"
             + ("" if len(n_grid) == len(self.N_GRID) else " (so far)")),
            ("saving", ratio),
        ]) + (f"<p>Theory ({_GHAZI}, Theorem 4): n = Θ̃(d/ε + d/(εα<sub>acc</sub>m)) users with d = ln(K+1), "
              "i.e. error ≈ "
              "C·ln(K+1)/(ε·n·m) — drawn with C = 1, so only the slope (−1 in n, and the shift by m) is meaningful. "
              "Error bars: ±1 standard error over the runs.</p>")
        return View(figures=[fig], readout=readout)


def _users_for_error(n_grid: np.ndarray, err: np.ndarray, target: float) -> float:
    """First n where the simulated mean error drops to ``target``, log–log interpolated between grid points."""
    below = np.nonzero(err <= target)[0]
    if below.size == 0:
        return math.inf
    i = int(below[0])
    if i == 0:
        return float(n_grid[0])
    e0, e1 = max(err[i - 1], 1e-12), max(err[i], 1e-12)
    if e1 >= e0:
        return float(n_grid[i])
    frac = (math.log(e0) - math.log(target)) / (math.log(e0) - math.log(e1))
    return float(math.exp(math.log(n_grid[i - 1]) + frac * (math.log(n_grid[i]) - math.log(n_grid[i - 1]))))


class ClippingPanel(Panel):
    """Choosing the clip τ of ClippedPairwiseEM (Appendix E.1 of Ghazi et al. 2023): clipped user scores against the
    noise scale. The best τ is neither drawn nor printed until Reveal, and goes again when a control changes."""

    title = "Clipping each user's score: τ"
    intro = ("To compare hypotheses H and H′, each user sums ψ = 1[H wrong] − 1[H′ wrong] over their m examples and "
             "the sum is clipped to [−τ, τ] so that one user moves the score by at most 2τ (user-level DP: the unit "
             "of privacy is the user). Clip too hard and the signal is biased away; too loosely and the exponential "
             "mechanism's noise (∝ τ) drowns it. (The paper prints ψ for agnostic learning with the opposite sign, "
             "1[H right] − 1[H′ right], which contradicts its own eq. (14); dpviz uses the sign that makes (14) "
             f"hold — {_GHAZI}, proof of Theorem 40.)")

    # α_acc ≤ P(disagree) on the slider: H can be worse than H′ only where they disagree. τ ≤ m on the slider
    # (τ/√m ≤ √m): no user's summed score exceeds m, so a larger τ clips nothing more.
    controls = {
        "tau_rel": LogSlider("τ / √m", 1.0, 0.1, max=lambda v: 10 ** min(1.5, 0.5 * math.log10(v.m)), step=0.05),
        "m": LogSlider("m (examples per user)", 100, 1, 10 ** 3.5, step=0.1, fmt=".0f", integer=True),
        "alpha": Slider("α<sub>acc</sub> (H worse than H′ by)", 0.1, 0.01, max=lambda v: min(0.5, v.disagree),
                        step=0.01),
        "disagree": Slider("P(H and H′ disagree on an example)", 0.3, 0.02, 1.0, step=0.02),
        "epsilon": Slider("ε (user-level)", 1.0, 0.1, 4.0, step=0.1),
        "n_users": LogSlider("n (users)", 1000, 10, 1e5, step=0.25, fmt=".0f", integer=True),
        "n_hyp": LogSlider("|ℋ| (candidates)", 100, 10 ** 0.5, 1e6, step=0.25, fmt=".0f", integer=True),
    }

    def _best_tau(self, v) -> float:
        return float(_clipping(v).tau_best)

    def _explain(self, v, a: float) -> str:
        t = _clipping(v)
        return (f"The best τ is about {a:.3g} = {a / math.sqrt(t.m):.2f}·√m; the paper "
                f"takes α<sub>acc</sub>m + √(m ln(1/α<sub>acc</sub>)) = {t.tau_paper:.3g} "
                f"({_GHAZI}, proof of Theorem 37, C = 1). Typical sums spread like √m around "
                "α<sub>acc</sub>m, so τ must cover that spread. The star now marks the best τ.")

    # After the verdict the best τ is drawn too (until a control moves: a new question).
    exercises = {"exercise": PredictReveal(
        "For the current settings, roughly which τ minimises clipping bias + EM error? (In units of τ, not τ/√m.)",
        answer=_best_tau, explain=_explain, rel_tol=0.35, guess_label="your τ:", redraw=True)}

    def render(self, v) -> View:
        m = v.m
        tau = min(float(v.tau_rel) * math.sqrt(m), float(m))  # the slider keeps τ ≤ m (up to rounding)
        revealed = self.revealed("exercise")
        if not revealed:
            self.exercise.feedback.value = ""  # a new question: the previous verdict and answer no longer apply
        # Every slider position is accepted: a larger α_acc than P(disagree) is shown at α_acc = P(disagree), with a
        # hint, instead of an error (the slider's bound keeps it there but for rounding).
        alpha, disagree = float(v.alpha), float(v.disagree)
        clamped = alpha > disagree
        t = _clipping(v)
        f1 = P.clipping_histogram_figure(t, tau, template="none")
        f2 = P.clipping_tradeoff_figure(t, tau, show_best=revealed, template="none")
        i = int(np.argmin(np.abs(np.log(t.tau) - math.log(min(max(tau, t.tau[0]), t.tau[-1])))))
        readout = table([
            ("your τ", f"{tau:.3g}: bias {t.bias[i]:,.3g}, EM error {t.em_error[i]:,.3g} (score units)"),
            ("signal to detect 0.2·α<sub>acc</sub>·n·m", f"{t.signal:,.3g}"),
            ("paper's τ = α<sub>acc</sub>m + √(m ln(1/α<sub>acc</sub>))",
             f"{t.tau_paper:.3g} (proof of Theorem 37 with C = 1)"),
            ("user-level sensitivity", f"Δ = 2τ = {2 * tau:.3g} (unclipped it would be 2m = {2 * m})"),
        ])
        hints = []
        if clamped:
            hints.append(f"H can be worse than H′ only on examples where they disagree, so α<sub>acc</sub> ≤ "
                         f"{disagree:g}: shown with α<sub>acc</sub> = {disagree:g}.")
        if t.em_error[i] > t.signal:
            hints.append("The EM error exceeds the signal: more users (n) or a larger ε are needed at this τ.")
        return View(figures=[P.side_by_side(f1, f2)], readout=readout, hint=" ".join(hints) or None)


def _clipping(v) -> ClippingTradeoff:
    """The clipping trade-off of :class:`ClippingPanel`'s settings, at α_acc ≤ P(disagree) (cached in
    :func:`dpviz.userlevel.clipping_tradeoff`)."""
    disagree = float(v.disagree)
    return clipping_tradeoff(v.m, min(float(v.alpha), disagree), disagree, float(v.epsilon), v.n_users, v.n_hyp)
