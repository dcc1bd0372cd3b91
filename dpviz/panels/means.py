"""Panels of lesson 12 "Means from few users" (Levy et al. 2021; Esfandiari, Mirrokni & Narayanan 2022).

Controls and figures only: every number comes from :mod:`dpviz.mean` (the seeded, cached experiments of each panel
are there too: :func:`~dpviz.mean.mse_against_m`, :func:`~dpviz.mean.tau_knob_sweep`,
:func:`~dpviz.mean.wme_mse_bound`, :func:`~dpviz.mean.algorithm_a_neighbours_2d`,
:func:`~dpviz.mean.robustness_curve`).
"""

from __future__ import annotations

import math

import numpy as np

from dpviz.mean import (
    Population,
    algorithm_a_neighbours_2d,
    best_budget_split,
    corollary8_error,
    corollary8_samples,
    crossover_m,
    iter_robustness_curve,
    levy_max_dimension,
    levy_users_required,
    mse_against_m,
    naive_laplace_mse,
    prob_g2,
    robust_floor,
    round_acceptance_1d,
    tau_knob_sweep,
    tau_safe,
    teaching_round_cap,
    theorem1_beta,
    theorem7_guarantee,
    theorem8_mean_floor,
    users_lower_bound,
    wme_mse_bound,
    wme_safe_curve,
)
from dpviz.panels import Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Slider, Step, Toggle, View
from dpviz.panels.format import big, fmt
from dpviz.plots.mean import (
    ball_finding_figure,
    budget_heatmap_figure,
    error_vs_d_figure,
    fixed_n_floor_figure,
    garbage_figure,
    iso_accuracy_figure,
    mse_vs_m_figure,
    robustness_figure,
    tau_knob_figure,
)

__all__ = [
    "WinsorizedVsNaivePanel",
    "TauKnobPanel",
    "FixedBudgetPanel",
    "IsoAccuracyPanel",
    "BallFindingPanel",
    "RobustnessPanel",
    "FixedNFloorPanel",
]

_KINDS = [("±B coin flips (bounded)", "bounded"), ("Bernoulli {0,1}", "bernoulli"), ("Gaussian", "gaussian"),
          ("heavy-tailed (1.5-stable)", "heavy"), ("heterogeneous users", "heterogeneous")]
_M_GRID = (1, 3, 10, 30, 100, 300, 1000, 3000, 10000)
_TRIALS = 60
_GAMMA = 0.01


def _population(kind: str) -> Population:
    mean = 0.3 if kind == "bernoulli" else 0.2
    return Population(kind, mean, 1.0, scale=0.5, heterogeneity=0.2)


class WinsorizedVsNaivePanel(Panel):
    """MSE vs m for non-private, naive Laplace and winsorized means, simulated and by formula (Levy et al. 2021,
    Thm 1)."""

    title = "Winsorized mean vs naive Laplace: MSE against m"
    intro = ("Each of n users holds m samples in [−1, 1]; the unit of privacy is the user (replace-one "
             "neighbours: all m samples of one user change). The naive mechanism adds noise for a worst-case user "
             "(sensitivity 2B/n); the winsorized mean (Levy et al. 2021, Alg 1) clips to a private range of width 4τ "
             "with "
             "τ ∝ 1/√m. Move ε and watch where the curves cross.")

    controls = {
        "epsilon": LogSlider("privacy ε", 1.0, 0.1, 10, step=0.1),
        "n": Choice("users n", [("300", 300), ("1,000", 1000), ("3,000", 3000)], 1000),
        "kind": Choice("data", _KINDS, "bounded"),
        "tau": Choice("radius τ", [("safe (Hoeffding)", "safe"), ("paper (Levy et al. 2021, Cor 1)", "paper")],
                      "safe"),
    }

    def _answer(self, v) -> float:
        return crossover_m(10_000, _GAMMA, "paper")

    def _explain(self, v, answer: float) -> str:
        return ("128τ²/(n²ε²) = 8B²/(n²ε²) ⇔ τ = B/4 ⇔ m* = 8·log(2n/γ) (Levy et al. 2021, Thm 1 against the naive "
                "Laplace noise): it does not depend on ε, and grows only logarithmically with n.")

    exercises = {"exercise": PredictReveal(
        "With n = 10⁴ users, γ = 0.01 and the <i>paper's</i> radius τ = B√(log(2n/γ)/(2m)), from which m "
        "(samples per user) on does the winsorized mean's noise drop below the naive Laplace noise?",
        answer=_answer, explain=_explain, rel_tol=0.15, unit=" samples")}

    def render(self, v):
        eps, n, kind, preset = float(v.epsilon), int(v.n), v.kind, v.tau
        sim, form, cross = mse_against_m(_population(kind), n, _M_GRID, eps, tau=preset, gamma=_GAMMA,
                                         trials=_TRIALS)
        fig = mse_vs_m_figure(_M_GRID, sim, form, crossover=cross)
        note = "" if "nonprivate" in form else " (heavy tails: infinite variance, no non-private formula)"
        naive = naive_laplace_mse(0.0, n, 1, eps, 1.0)
        readout = (f"Crossover m* = {8 if preset == 'paper' else 32}·log(2n/γ) ≈ <b>{cross:.0f}</b> samples per user"
                   f"{note}. Naive noise 8B²/(n²ε²) = {fmt(naive, 3)} does not move with m.")
        return View(figures=[fig], readout=readout)


class TauKnobPanel(Panel):
    """Bias², noise and MSE as the radius τ moves, with the paper / safe / oracle presets (the paper's radius
    of Levy et al. 2021, Cor 1, can under-cover: :func:`dpviz.mean.tau_paper`)."""

    title = "τ is a bias–variance knob"
    intro = ("Too small a radius clips honest users (bias); too large a radius pays noise ∝ τ². Slide τ and compare "
             "the three presets: the paper's formula, a safe (Hoeffding) one, and the non-private oracle.")
    # the sweep's grid is the slider's own positions (10^(−1.3 + 0.1·j)): the readout is at the slider's τ exactly
    _RATIOS = 10.0 ** np.round(np.arange(-1.3, 1.0 + 1e-9, 0.1), 10)

    controls = {
        "ratio": LogSlider("τ relative to safe τ", 1.0, 10 ** -1.3, 10, step=0.1),
        "m": Choice("samples per user m", [("10", 10), ("100", 100), ("1,000", 1000)], 100),
        "epsilon": Choice("privacy ε", [("0.3", 0.3), ("1", 1.0), ("3", 3.0)], 1.0),
    }

    def _sweep(self, m: int, eps: float) -> dict:
        return tau_knob_sweep(_population("bounded"), 1000, m, eps, self._RATIOS, gamma=_GAMMA, trials=60)

    def render(self, v):
        r, m, eps = float(v.ratio), int(v.m), float(v.epsilon)
        k = self._sweep(m, eps)
        out, ts, paper, oracle = k["sweep"], k["tau_safe"], k["paper"], k["oracle"]
        presets = {"paper": paper, "safe": 1.0, "oracle (not private)": oracle}
        fig = tau_knob_figure(self._RATIOS, out, current=r, presets=presets, trials=60)
        i = int(np.argmin(np.abs(np.log(self._RATIOS) - math.log(r))))
        readout = (f"τ = {fmt(r * ts, 3)} (n = 1000, B = 1): clipped fraction {out['clipped'][i]:.1%}, bias² "
                   f"{fmt(out['bias2'][i], 3)}, noise {fmt(out['noise'][i], 3)}, MSE {fmt(out['mse'][i], 3)}. "
                   f"The paper's τ is {paper:.2f}×τ<sub>safe</sub>: for ±B data it under-covers "
                   "(its Hoeffding radius assumes range B, not 2B).")
        return View(figures=[fig], readout=readout)


_VAR = 0.96  # Var of one ±1 sample with mean 0.2


class FixedBudgetPanel(Panel):
    """Heatmap of log MSE over (n, m) with iso-N lines: at a fixed total N, more users beats more samples."""

    title = "A fixed budget of samples N = n·m"
    intro = ("Suppose you can afford N samples in total. Split them as n users × m samples each. Along every white "
             "line n·m is constant; the star marks the best split.")
    _LN = np.linspace(1, 5, 81)
    _LM = np.linspace(0, 4, 81)

    controls = {
        "epsilon": LogSlider("privacy ε", 1.0, 0.1, 10, step=0.1),
        "budget": LogSlider("highlighted budget N", 1e5, 1e3, 1e8, step=0.25),
        "exponent": Toggle("exponent of β_fail", [("as printed: nε/8", "printed"),
                                                  ("worst case: nε/16", "worst_case")], "printed"),
    }

    def render(self, v):
        eps, N, reading = float(v.epsilon), float(v.budget), v.exponent
        div = "8" if reading == "printed" else "16"
        # γ·(2B)² = 0.04 is the same in every cell and dwarfs the rest for n ≳ 100, which painted the map one flat
        # colour: draw what the split changes, MSE − γ(2B)² (the best splits below are unchanged by the shift)
        mse = wme_mse_bound(_VAR, 10.0 ** self._LN[None, :], 10.0 ** self._LM[:, None], eps, 1.0, _GAMMA,
                            beta_exponent=reading)
        z = np.log10(mse - 4.0 * _GAMMA)
        budgets = [N / 100, N, N * 100]
        box = {"log_n_range": (self._LN[0], self._LN[-1]), "log_m_range": (self._LM[0], self._LM[-1])}
        best = [p for p in (best_budget_split(B, _VAR, eps, 1.0, _GAMMA, beta_exponent=reading, **box)
                            for B in budgets) if p is not None]
        fig = budget_heatmap_figure(
            self._LN, self._LM, z, budgets=budgets, best=best, z_label="log₁₀(MSE − γ(2B)²)",
            source=("Source: MSE = Var/(nm) + 128τ²/(n²ε²) + β<sub>fail</sub>·(2B)², τ = B√(2log(2n/γ)/m), "
                    f"β<sub>fail</sub> = γ + (B/τ)e<sup>−nε/{div}</sup> (Levy et al. 2021, Thm 1, "
                    + ("as printed; PrivateRange runs at ε/2, so the<br>worst-case exponent is nε/16: "
                       "switch to see the band up to 2× wider). B = 1, " if reading == "printed" else
                       "worst case: the paper prints nε/8,<br>but PrivateRange runs at ε/2 and a worst-case "
                       "gap gives nε/16). B = 1, ") +
                    "γ = 0.01, Var = 0.96. Colour: MSE minus γ(2B)² = 0.04, the same for every split."))
        edge = self._LN[-1] - 1e-9
        txt = "; ".join(f"N = {big(b)}: n ≈ {big(10 ** p[0])}"
                        f"{' (the largest n on the map)' if p[0] >= edge else ''}, "
                        f"m ≈ {10 ** p[1]:.3g}" for b, p in zip(budgets, best))
        return View(figures=[fig], readout=f"Best splits: {txt}. The statistical term Var/N is the same along a line; "
                                           f"the privacy term 128τ²/(n²ε²) ∝ 1/(nN) favours users (Levy et al. 2021, "
                                           f"§1).")


class IsoAccuracyPanel(Panel):
    """Iso-accuracy curves in (n, m) with the walls of Lemma 9 (Esfandiari, Mirrokni & Narayanan 2022) and √d·ln(1/δ)/ε
    (Levy et al. 2021); error vs d."""

    title = "How many users, how many samples? Iso-accuracy curves and walls"
    intro = ("For a target ℓ₂ error α<sub>acc</sub>, each curve shows the samples per user m needed with n users. No "
             "algorithm works "
             "left of the red wall (Esfandiari, Mirrokni & Narayanan 2022, Lemma 9); the estimator of Levy et al. "
             "2021 also needs n right of the black wall, "
             "which grows with √d — Esfandiari, Mirrokni & Narayanan 2022 removes it.")

    controls = {
        "d": LogSlider("dimension d", 100, 1, 1e4, step=0.2, fmt=".0f", integer=True),
        "epsilon": LogSlider("privacy ε", 1.0, 0.1, 10, step=0.1),
        "delta": LogSlider("δ", 1e-6, 1e-10, 1e-3, step=0.5, fmt=".0e"),
        "n_fixed": LogSlider("n for error vs d", 100, 10, 1e4, step=0.1, fmt=".0f", integer=True),
    }

    def render(self, v):
        d = max(1, v.d)
        eps, delta, n_fixed = float(v.epsilon), float(v.delta), max(2, v.n_fixed)
        n_lb = users_lower_bound(eps, delta)
        n_levy = levy_users_required(d, eps, delta)
        ns = np.logspace(0, 5, 200)
        # every user holds at least one sample: corollary8_samples is at least 1
        curves = {f"target error α<sub>acc</sub> = {a}": np.where(ns >= n_lb, corollary8_samples(ns, d, eps, a), np.nan)
                  for a in (0.3, 0.1, 0.03)}
        walls = {f"ln(1/δ)/(3ε) = {n_lb:.3g} (Esfandiari, Mirrokni & Narayanan 2022, Lemma 9)": n_lb,
                 f"√d·ln(1/δ)/ε = {n_levy:.3g} (Levy et al. 2021, Cor 1)": n_levy}
        fig1 = iso_accuracy_figure(ns, curves, walls=walls)
        ds = 2.0 ** np.arange(0, 15)
        m_fixed = 100
        ours = np.array([corollary8_error(n_fixed, m_fixed, int(k), eps) for k in ds])
        if n_fixed < n_lb:
            ours = np.full_like(ds, np.nan)
        older = np.where([n_fixed >= levy_users_required(int(k), eps, delta) for k in ds], ours, np.nan)
        fig2 = error_vs_d_figure(ds, ours, older, n=n_fixed)
        d_max = levy_max_dimension(n_fixed, eps, delta)
        readout = (f"Lemma 9 wall: n ≥ {n_lb:.3g} users whatever m and d (Esfandiari, Mirrokni & Narayanan 2022). "
                   f"Levy et al. 2021 needs n ≳ "
                   f"{n_levy:.3g} at d = {d}. At n = {n_fixed}, m = {m_fixed}: the regime of Levy et al. 2021 ends at "
                   f"d ≈ {d_max:.3g}.")
        hint = (f"δ = {delta:.1g} > ε² = {eps * eps:.2g}: Esfandiari, Mirrokni & Narayanan 2022, Lemma 9 assumes δ ≤ "
                f"ε², "
                "so its wall is not proven here."
                if delta > eps * eps else None)
        return View(figures=[fig1, fig2], readout=readout, hint=hint)


class BallFindingPanel(Panel):
    """Algorithm A / DP-Estimate-1 of Esfandiari, Mirrokni & Narayanan 2022 in 2-D: balls, count f(p), density, garbage
    mass; move one user."""

    title = "Inside Algorithm A: balls, counts, density and the garbage bucket"
    intro = ("Each user's mean x<sub>i</sub> gets a ball of radius r√d (here d = 2). The output density is "
             "e<sup>(ε/2)·min(f, 2n/3)</sup> where f(p) counts the balls covering p, plus a garbage atom of mass "
             "(4/δ)·V<sub>B</sub>: exponent ε/2, not the paper's ε, so that it really is (ε, δ)-DP (dpviz's "
             "erratum to Esfandiari, Mirrokni & Narayanan 2022, Prop 15). The first slider pushes the last user "
             "(orange ×) to the right: see which mass changes. "
             "Colour the map by the count f(p) to see the overlaps the density is built from.")

    controls = {
        "move": Slider("move one user: x-offset", 0.0, 0.0, 6.0, step=0.25),
        # ≤ 10^0.1 ≈ 1.26: the corrected Algorithm A is proven (ε, δ)-DP for ε ≤ 2 ln 2 ≈ 1.39 (robust.py)
        "epsilon": LogSlider("privacy ε", 0.5, 0.1, 10 ** 0.1, step=0.1, fmt=".2f"),
        "n": IntSlider("users n", 12, 3, 30),
        "delta": LogSlider("δ", 1e-3, 1e-8, 1e-1, step=0.5, fmt=".0e"),
        "show": Toggle("colour by", [("output density", "density"), ("count f(p)", "count")], "density"),
    }

    def render(self, v):
        move, eps, n, delta = float(v.move), float(v.epsilon), int(v.n), float(v.delta)
        r = 1.0
        _, xp, A0, A = algorithm_a_neighbours_2d(n, move, eps, delta, r=r, resolution=70)
        if v.show == "count":
            # f = 0 outside every ball: left blank, like the zero density there
            z, z_label = np.where(A.counts > 0, A.counts, np.nan), "count f(p)"
        else:
            with np.errstate(divide="ignore"):
                z = np.where(A.density > 0, np.log10(A.density), np.nan)
            z_label = "log₁₀ density"
        fig = ball_finding_figure(A.xs, A.ys, z, xp, A.radius, moved=n - 1, z_label=z_label)
        pts_mass = [A0.mass(), A.mass()]
        lonely = [A0.mass(A0.counts == 1), A.mass(A.counts == 1)]
        labels = ["a point (any f)", "a point where f = 1", "garbage G"]
        fig2 = garbage_figure(labels, [pts_mass[0], max(lonely[0], 1e-300), A0.garbage],
                              [pts_mass[1], max(lonely[1], 1e-300), A.garbage])
        # 1-D exact analogue for the per-round acceptance q (projection on the first axis is only an illustration)
        q = round_acceptance_1d(xp[:, 0], r, eps, delta)
        N = teaching_round_cap(1 / 3)
        readout = (f"P[garbage] = {A.garbage:.3g} (moved) vs {A0.garbage:.3g} (original). Largest count f = "
                   f"{int(A.counts.max())} (cap 2n/3 = {2 * n / 3:.1f}). DP-Estimate-1 at the same (ε, δ) "
                   "(its pseudocode runs at (ε/5, δ/4), because the G2 bit leaks too) would stop each round w.p. "
                   f"q ≈ {q:.3g} (1-D exact analogue) and return G2 w.p. {prob_g2(q, N):.2g} with N = {N:.0f} "
                   f"rounds on average (Esfandiari, Mirrokni & Narayanan 2022, Lemma 18).")
        hint = None
        if eps > 1 / 3:
            hint = (f"ε = {eps:.2f} is above 1/3, the regime Esfandiari, Mirrokni & Narayanan 2022 assume for their "
                    "theorems. The picture stays (ε, δ)-DP — with exponent ε/2 the proof needs only ε ≤ 2 ln 2 ≈ 1.39, "
                    "the slider's limit — but the paper's accuracy and round-count statements are not proven here.")
        return View(figures=[fig, fig2], readout=readout, hint=hint)


class RobustnessPanel(Panel):
    """Error vs fraction η of corrupted users for DP-Estimate-User (Esfandiari, Mirrokni & Narayanan 2022) and the
    non-robust mean, with the floor of Prop 27's proof (printed or corrected gap)."""

    title = "Corrupted users: robust vs naive"
    intro = ("An adversary sees the data and replaces all samples of a fraction η of users by a far point. The "
             "estimator of Esfandiari, Mirrokni & Narayanan 2022 (Thm 7) tolerates η up to 1/4; the plain mean does "
             "not. No estimator, private "
             "or not, gets error of smaller order than r·η/√m (Prop 27: an order statement; the second control "
             "draws the floor its proof gives, as printed or corrected).")
    _KAPPAS = np.array([0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45])  # every η the slider reaches

    controls = {
        "kappa": Slider("fraction corrupted η", 0.25, 0.0, 0.45, step=0.05),
        "floor": Toggle("floor from Prop 27's proof", [("printed (gap 2rη/√m)", 1.0),
                                                      ("corrected (gap 4rη/√m)", 2.0)], 2.0),
        "m": Choice("samples per user m", [("25", 25), ("100", 100), ("400", 400)], 100),
        "epsilon": Choice("privacy ε", [("0.5", 0.5), ("1", 1.0), ("2", 2.0)], 1.0),
    }

    def render(self, v):
        """η by η (the draws of :func:`~dpviz.mean.iter_robustness_curve`, in order): a view every second η."""
        m, eps = int(v.m), float(v.epsilon)
        total = len(self._KAPPAS)
        # n = 150 users, d = 2, r = 1, 3 runs per κ, δ = 10⁻⁶ (the defaults of robustness_curve)
        for j, rob, nai in iter_robustness_curve(self._KAPPAS, m, eps, progress=self.report_progress):
            if j == total or j % 2 == 0:
                yield Step(j, total, lambda rob=rob, nai=nai: self._view(v, rob, nai), unit="values of η")

    def _view(self, v, rob, nai):
        kap, m = float(v.kappa), int(v.m)
        kappas = self._KAPPAS[:len(rob)]
        # the proof's two laws are indistinguishable after corruption: some estimate errs by half their mean gap,
        # r·η/√m with the printed gap 2rη/√m, 2r·η/√m with the corrected 4rη/√m (robust_floor drops the constant)
        c = float(v.floor)
        floor = c * np.array([robust_floor(k, m) for k in kappas])
        label = f"floor {'' if c == 1 else '2'}r·η/√m (Prop 27's proof, gap {'printed' if c == 1 else 'corrected'})"
        bound = theorem7_guarantee(m, 2)
        # the floor is 0 at κ = 0: leave that point out on the log axis rather than drawing an invented 10⁻⁴
        fig = robustness_figure(kappas, np.where(np.isfinite(rob), rob, np.nan), nai,
                                np.where(floor > 0, floor, np.nan), bound=bound, current=kap, floor_label=label)
        i = int(np.argmin(np.abs(self._KAPPAS - kap)))
        if i < len(rob):
            errors = (f"error of the estimator of Esfandiari, Mirrokni & Narayanan 2022 ≈ {rob[i]:.3g}, plain mean ≈ "
                      f"{nai[i]:.3g}")
        else:
            errors = "errors not simulated yet"
        readout = (f"η = {kap:.2f}: {errors}, floor {'' if c == 1 else '2'}r·η/√m = {c * robust_floor(kap, m):.3g} "
                   "(order only: Prop 27 has no constant). n = 150 users, d = 2 (user means drawn exactly).")
        return View(figures=[fig], readout=readout)


class FixedNFloorPanel(Panel):
    """Levy et al. 2021, Thm 8: with n fixed, error ≥ B²/(2(1+e^{nε})) (constant derived from its proof) no matter
    how many samples per user."""

    title = "The fixed-n floor (Levy et al. 2021, Thm 8)"
    intro = ("If every user holds m copies of ±B, more samples add nothing: with n users some error remains for every "
             "m. The WME formula keeps falling only because it ignores its failure probability β.")

    controls = {"n": IntSlider("users n", 5, 1, 30), "epsilon": LogSlider("privacy ε", 1.0, 0.1, 10 ** 0.5, step=0.1)}

    def _answer(self, v) -> float:
        return float(next(k for k in range(1, 1000) if theorem8_mean_floor(k, 1.0) < 1e-4))

    def _explain(self, v, answer: float) -> str:
        return ("B²/(2(1+e<sup>n</sup>)) ≤ 10⁻⁴ ⇔ e<sup>n</sup> ≥ 4999 ⇔ n ≥ ln 4999 ≈ 8.5, so n = 9 (the bound needs "
                "δ < 1/(2n·e<sup>nε</sup>) ≈ 6.9·10⁻⁶ at n = 9). This is a <i>lower</i> bound: below n = 9 the floor "
                "alone rules out error 10⁻⁴; from n = 9 on it no longer rules it out — it does not say 9 users "
                "suffice. What suffices is an upper bound: n = O(log(1/(αδ))/ε) users "
                "(Esfandiari, Mirrokni & Narayanan 2022, Thm 7) or the winsorized mean's n ≳ log(·)/ε "
                "(Levy et al. 2021, Cor 1).")

    exercises = {
        "exercise": PredictReveal(
            "With ε = 1, how many users n are needed before the Theorem 8 floor B²/(2(1+e<sup>nε</sup>)) (B = 1) "
            "drops below 10⁻⁴?", answer=_answer, explain=_explain, rel_tol=0.15, unit=" users"),
        "misconception": ChoiceReveal(
            "The floor B²/(2(1+e<sup>nε</sup>)) drops below 10⁻⁴ at n = 9 users (ε = 1). What does that tell you?",
            [("With 9 users some private estimator reaches MSE 10⁻⁴, if each user has enough samples.", False,
              "Tempting: the floor is the only curve that depends on n alone, so its crossing looks like a "
              "threshold. But a lower bound only says what is impossible. That no estimator does better than the "
              "floor says nothing about whether any estimator comes close to it: for that you need an upper bound "
              "(an algorithm and its guarantee), such as Esfandiari, Mirrokni & Narayanan 2022, Thm 7."),
             ("Below 9 users no user-level ε = 1 estimator can reach MSE 10⁻⁴ however many samples each user "
              "holds; from 9 users on, this bound no longer forbids it.", True,
              "Right: a lower bound rules out, it never guarantees. Whether 9 users suffice is a question for an "
              "upper bound — and the known upper bounds need n ≳ log(·)/ε users with constants far from 9. Note also "
              "the small print: Thm 8 needs δ < 1/(2n·e<sup>nε</sup>), about 6.9·10⁻⁶ at n = 9."),
             ("Nothing: the floor is about m, not about n.", False,
              "The floor is flat in m — that is its point — but it does depend on n, through e<sup>nε</sup>. It "
              "says that for a fixed number of users more samples per user cannot push the error to zero.")]),
    }

    def render(self, v):
        n, eps = int(v.n), float(v.epsilon)
        ms = np.logspace(0, 5, 40)
        ns = sorted({max(1, n // 2), n, 2 * n})
        floors = {k: theorem8_mean_floor(k, eps) for k in ns}
        curves = {k: wme_safe_curve(1.0, k, ms.astype(int), eps, 1.0, _GAMMA) for k in ns}
        fig = fixed_n_floor_figure(ms, floors, {k: c["mse"] for k, c in curves.items()},
                                   beta={k: c["beta"] for k, c in curves.items()})
        beta = theorem1_beta(n, eps, tau_safe(1.0, 10_000, n, _GAMMA), 1.0, _GAMMA)
        verdict = "vacuous: the formula is not a guarantee here" if beta >= 0.5 else "small: the formula applies"
        readout = (f"n = {n}: floor {floors[n]:.3g} for every m. Theorem 1's failure probability β<sub>fail</sub> at "
                   f"m = 10⁴ is {beta:.3g} — {verdict}.")
        return View(figures=[fig], readout=readout)
