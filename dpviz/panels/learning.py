"""Lesson 13 "Training with user-level DP": panels (no-argument constructors, working defaults).

* :class:`LearningRatesPanel` — Thm 4 (upper) vs Thm 5 (lower) vs item-level vs naive, validity shaded (cheap;
  first on the page);
* :class:`ERMUsersPanel` — users ERM needs: √(dT)/ε (Levy et al. 2021) against √T/ε (Esfandiari,
  Mirrokni & Narayanan 2022);
* :class:`PhasedERMPanel` — Algorithm 4's users per phase and λ schedule;
* :class:`TrainLivePanel` — live training (full-batch noisy gradient descent, no subsampling): user-level,
  naive, example-level and non-private (slow);
* :class:`HeterogeneityPanel` — when more samples per user stop helping (slow), with a predict-then-reveal.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz.learning import iter_compare_training, phased_erm_schedule, rates
from dpviz.learning.experiments import heterogeneity_formula, heterogeneity_m_star, heterogeneity_point, lesson_task
from dpviz.panels import Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Slider, Step, View
from dpviz.panels.format import sci, table
from dpviz.plots import learning as P

__all__ = ["LearningRatesPanel", "ERMUsersPanel", "PhasedERMPanel", "TrainLivePanel", "HeterogeneityPanel"]

_MAX_EXAMPLES = 200_000  # n·m cap of a live run (memory and a ~1 s budget)
# slider ranges of the live run, in log₁₀: every (n, m) they reach has n·m ≤ _MAX_EXAMPLES (10^3 · 10^2.3 < 2·10⁵)
_LOG_N, _LOG_M = (2.0, 3.0), (0.0, 2.3)


def _table(rows) -> str:
    """This lesson's readout tables (a 14 px gap after the label)."""
    return table(rows, pad=14)


class LearningRatesPanel(Panel):
    """Rates explorer: Theorems 4, 5 of Levy et al. 2021 against the item-level and naive rates, as n grows."""

    title = "Rates explorer: what user-level privacy costs"
    intro = ("Bounds on the excess risk of a private learner as the number of users n grows. Move m: the user-level "
             "curves drop like 1/√m in their privacy term, the naive one does not. Drawn with G = σ√d, the case "
             "where the upper and lower bounds match (up to logs). Shapes only — the hidden constants and logs are "
             "one knob C.")

    controls = {
        "m": LogSlider("samples per user m", 100, 1, 1e4, step=0.1, fmt=".0f", integer=True),
        "d": LogSlider("dimension d", 10, 1, 1e3, step=0.1, fmt=".0f", integer=True),
        "epsilon": LogSlider("privacy ε", 1.0, 10 ** -1.3, 10, step=0.05),
        "C": LogSlider("constant knob C (validity)", 1.0, 1e-2, 1e2, step=0.1),
    }
    exercises = {"misconception": ChoiceReveal(
        "In this figure the upper bound (Phased ERM, Levy et al. 2021, Thm 4) and the lower bound (Levy et al. "
        "2021, Thm 5) nearly coincide; it is drawn with a Lipschitz constant G = σ√d. Now take a problem whose G "
        "is 100 times σ√d. Is Phased ERM still proven optimal (up to logarithms)?",
        [("Yes: Theorem 5 is a matching lower bound, so Phased ERM is optimal for every problem.", False,
          "Tempting: \"matching upper and lower bounds\" is how such results are often summarised, and the two "
          "curves coincide here. But Thm 4 is R√(G·G<sub>min</sub>)/√(mn) + Rσd/(n√m ε) and Thm 5 is "
          "R·G<sub>min</sub>/√(mn) + R·G<sub>min</sub>√d/(n√m ε), with G<sub>min</sub> = min(G, σ√d): they "
          "match only when G = Θ(σ√d)."),
         ("No, not proven: the statistical terms now differ by a factor √(G/(σ√d)) = 10.", True,
          "Right. With G = 100·σ√d, G<sub>min</sub> = σ√d: the privacy terms still agree (Rσd/(n√m ε)), but "
          "the upper bound's first term R√(G·σ√d)/√(mn) is 10 times the lower bound's Rσ√d/√(mn). The two "
          "match only when G = Θ(σ√d)."),
         ("Yes, as long as n is large enough (right of the grey region).", False,
          "The grey region marks where Theorem 4's condition on n fails, i.e. where the upper bound is not "
          "proven at all. Right of it the upper bound holds, but holding is not matching: the gap between the "
          "formulas of Thm 4 and Thm 5 does not depend on n.")])}

    def render(self, v):
        m, d, eps, C = v.m, v.d, v.epsilon, v.C
        ns = np.geomspace(10, 1e7, 200)
        G = sigma = R = 1.0
        sig = sigma / math.sqrt(d)  # so that G̃ = σ√d = G: Thm 4 and 5 then match up to logs
        curves = {
            "upper": rates.sco_upper(ns, m, d, eps, R=R, G=G, sigma=sig),
            "lower": rates.sco_lower(ns, m, d, eps, R=R, G=G, sigma=sig),
            "item": rates.sco_item_level(ns, m, d, eps, R=R, G=G),
            "naive": rates.sco_naive(ns, m, d, eps, R=R, G=G),
        }
        need = float(rates.sco_users_needed(d, m, eps, R=R, G=G, sigma=sig, C=C))
        floor = rates.fixed_n_floor(ns, eps, B=1.0) * 2.0  # G/(4(1+e^{nε})) = 2·B²/(8(1+e^{nε})) with B = G = 1
        fig = P.rates_figure(ns, curves, invalid_below=need, floor=floor)
        n_ref = 1e4
        gain = rates.sco_naive(n_ref, m, d, eps) / rates.sco_upper(n_ref, m, d, eps, sigma=sig)
        readout = _table([
            ("Thm 4 needs n ≳ (×C)", f"{need:,.0f} users"),
            (f"naive / user-level bound at n = {n_ref:,.0f}", f"{gain:.2f}×"),
            ("privacy term ∝", "1/(n√m ε) user-level, 1/(nε) naive"),
        ])
        return View([fig], readout=readout)


class ERMUsersPanel(Panel):
    """Users ERM needs: Levy et al. 2021's √(dT)/ε against Esfandiari, Mirrokni & Narayanan 2022's √T/ε."""

    title = "How many users does private ERM need?"
    intro = ("Algorithm 3 estimates a d-dimensional gradient privately at each of T steps; its analysis needs "
             "n ≳ √(dT)/ε users (Levy et al. 2021, Thm 3). Swapping in the mean estimator of "
             "Esfandiari, Mirrokni & Narayanan 2022 removes the √d (Esfandiari, Mirrokni & Narayanan 2022, Thm 30).")

    controls = {
        "d": LogSlider("dimension d", 100, 1, 1e4, step=0.1, fmt=".0f", integer=True),
        "epsilon": LogSlider("privacy ε", 1.0, 10 ** -1.3, 10, step=0.05),
        "n": LogSlider("your number of users n", 1000, 10, 1e6, step=0.1, fmt=".0f"),
    }

    def render(self, v):
        d, eps, n = v.d, v.epsilon, v.n
        Ts = np.geomspace(1, 1e5, 120)
        levy = {dd: rates.erm_users_needed(dd, Ts, eps) for dd in sorted({1, d, 10 * d})}
        ours = rates.erm_users_needed_003(d, Ts, eps)
        fig = P.users_needed_figure(Ts, levy, ours, n=n)
        t_levy = (n * eps) ** 2 / d
        t_ours = (n * eps) ** 2
        readout = _table([
            ("steps allowed by Levy et al. 2021, Thm 3 (n ≥ √(dT)/ε)", f"T ≤ {t_levy:,.0f}"),
            ("steps allowed by Esfandiari, Mirrokni & Narayanan 2022, Thm 30 (n ≥ √T/ε)", f"T ≤ {t_ours:,.0f}"),
            ("ratio", f"d = {d}"),
        ])
        return View([fig], readout=readout)


class PhasedERMPanel(Panel):
    """Algorithm 4 of Levy et al. 2021: users consumed per phase and the λ schedule."""

    title = "Phased ERM: fresh users every phase"
    intro = ("Phased ERM (Levy et al. 2021, Alg 4) solves a regularised ERM on half of the remaining users, then on "
             "half "
             "of what is left with 4× the regularisation, … Each user takes part in one phase only, so the whole "
             "run costs one user-level (ε, δ): parallel composition — mechanisms that read disjoint sets of users "
             "cost the maximum of their ε, not the sum.")

    controls = {
        "n": LogSlider("users n", 10000, 1e2, 1e7, step=0.1, fmt=".0f", integer=True),
        "m": LogSlider("samples per user m", 10, 1, 1e4, step=0.1, fmt=".0f", integer=True),
        "d": LogSlider("dimension d", 10, 1, 1e3, step=0.1, fmt=".0f", integer=True),
        "epsilon": LogSlider("privacy ε", 1.0, 10 ** -1.3, 1, step=0.05),
    }

    def render(self, v):
        n, m, d, eps = v.n, v.m, v.d, v.epsilon
        s = phased_erm_schedule(n, m, d, eps, G=1.0, sigma=1.0 / math.sqrt(d), R=1.0)
        keep = s.users >= 1
        fig = P.phased_schedule_figure(s.users[keep], s.lambdas[keep], n=n)
        hint = None
        if not keep.all():
            hint = (f"The schedule asks for {s.phases} phases but only {int(keep.sum())} have a user left "
                    "(n<sub>t</sub> = ⌊n/2<sup>t</sup>⌋ reaches 0): the run stops there.")
        readout = _table([
            ("phases T = ⌈log₂(Gn√m ε/(σd))⌉", f"{s.phases}"),
            ("base regularisation λ", f"{s.lam:.3g}"),
            ("first phase", f"{int(s.users[0])} users, λ₁ = {s.lambdas[0]:.3g}"),
        ])
        return View([fig], readout=readout, hint=hint)


class TrainLivePanel(Panel):
    """Train a small model live with four methods at the same (ε, δ) and see what each run spends."""

    title = "Train live: user-level noisy gradient descent against the baselines"
    intro = ("Each run trains the same model on n users × m examples for T steps of full-batch noisy gradient "
             "descent (every user in every step: no subsampling, so no amplification — unlike DP-SGD as in Abadi "
             "et al. 2016). The user-level method averages each user's gradients first and then privatises the mean "
             "across users (Levy et al. 2021, Alg 3, practical variant); naive clips each user to G; example-level "
             "clips "
             "single examples and protects single examples only. "
             "Every run gets the same ε (δ = 10⁻⁵) — at user level, except the example-level run, which gets it "
             "per example. The legend and the table show the user-level ε each run really spends, composed by a "
             "privacy accountant.")
    controls = {
        "m": LogSlider("samples per user m", 20, 10 ** _LOG_M[0], 10 ** _LOG_M[1], step=0.1, fmt=".0f", integer=True,
                       bench=[5, 20, 100]),
        "n": LogSlider("users n", 1000, 10 ** _LOG_N[0], 10 ** _LOG_N[1], step=0.1, fmt=".0f", integer=True,
                       bench=[300, 1000]),
        "epsilon": LogSlider("privacy ε", 1.0, 0.1, 10, step=0.05, bench=[0.3, 1.0, 5.0]),
        "T": IntSlider("steps T", 200, 10, 500, step=10, bench=[50, 200]),
        "heterogeneity": Slider("heterogeneity h", 0.0, 0.0, 1.0, step=0.05, bench=[0.0, 0.5]),
        "task": Choice("task", [("linear regression", "linear"), ("logistic regression", "logistic")],
                       bench=["linear", "logistic"]),
        "mode": Choice("user-level variant", [("practical (ours: Gaussian, public centre)", "practical"),
                                              ("Algorithm 3 with the paper's constants", "paper")],
                       bench=["practical", "paper"]),
    }

    @staticmethod
    def _pauses(T: int) -> list[int]:
        """Steps after which a streamed update hands the event loop back, with the curves so far: a few steps first
        (the first figure within ~0.25 s even at n·m = 2·10⁵), then every 32nd of the run (a step of the render
        stays under a tenth of a second at the largest n·m, so another panel's slider is answered between two; the
        panel's driver skips drawing those that come sooner than its partial-view interval)."""
        return sorted({max(1, min(5, T // 40))} | {k * T // 32 for k in range(1, 32)} - {0, T})

    def render(self, v):
        n, m, T, eps, h, kind = v.n, v.m, int(v.T), v.epsilon, v.heterogeneity, v.task
        if n * m > _MAX_EXAMPLES:
            raise ValueError(f"n·m = {n * m:,} examples is too many for a live run: keep n·m ≤ {_MAX_EXAMPLES:,} "
                             "(lower n or m).")
        delta = 1e-5
        task = lesson_task(kind, n, m, 10, round(h, 3), 0)
        steps = iter_compare_training(task, eps, delta, T, mode=v.mode, rng=1, progress=self.report_progress,
                                      pause_at=self._pauses(T))
        for t, runs in steps:
            yield Step(t, T, lambda runs=runs, t=t: self._view(v, task, runs, t, T, delta))

    def _view(self, v, task, runs, t, T, delta):
        m, kind = v.m, v.task
        labels = {}
        # the logistic task's excess risk is a Monte-Carlo estimate against θ* that can read below 0: show the
        # training loss there, as the figure does
        what = "final excess risk" if kind == "linear" else "final training loss"
        spent_what = "user-level (ε, δ) spent"
        if t < T:  # a partial view: the model after t steps, the ε the whole run will have spent
            what = what.replace("final", f"after {t} of {T} steps,")
            spent_what = f"user-level (ε, δ) of the whole run of {T} steps"
        rows = [("<i>method</i>", f"<i>{what} · {spent_what}</i>")]
        for key, r in runs.items():
            name = P.METHOD_STYLE[key][2]
            if r.privacy is None:
                spent = "ε = ∞ (not private)"
                labels[key] = f"{name} (ε = ∞)"
            else:
                spent = f"ε = {r.privacy.epsilon:.3g}, δ = {sci(r.privacy.delta)}"
                labels[key] = f"{name}: ε = {r.privacy.epsilon:.3g}"
                if r.privacy.epsilon_item is not None:
                    spent += f" (item-level ε = {r.privacy.epsilon_item:.3g})"
                if r.privacy.epsilon_paper is not None:
                    spent += f" (the paper's analysis claims ε = {r.privacy.epsilon_paper:.3g})"
            value = r.final_excess if kind == "linear" else r.final_loss
            rows.append((name, f"{value:.3g} · {spent}"))
        if kind == "linear":
            curves = {k: (r.steps, r.excess) for k, r in runs.items()}
            ylabel = "excess population risk (log)"
        else:
            curves = {k: (r.steps, r.losses) for k, r in runs.items()}
            ylabel = "training loss L(θ<sub>t</sub>; S)"
        title = (f"Training: {'excess risk' if kind == 'linear' else 'loss'} against step "
                 f"(δ = {sci(delta)} for every private run)")
        if t < T:
            title += f" — after {t} of {T} steps"
        fig = P.training_curves_figure(curves, labels=labels, ylabel=ylabel, log_y=(kind == "linear"), title=title)
        acc = next((r.privacy.accountant for r in runs.values() if r.privacy is not None), "")
        rows.append(("accountant", acc))
        hint = None
        tau_over_g = runs["user_level"].params["tau"] / task.lipschitz
        if v.mode == "paper":
            beta = runs["user_level"].params["beta"]
            hint = ("Paper constants: each of the T·d rotated coordinates gets a tiny ε, so the private ranges are "
                    f"nearly random at this n (Levy et al. 2021, Thm 3 needs n ≳ √(dT)/ε with large constants; here "
                    f"Thm 10's "
                    "failure "
                    f"probability is β<sub>fail</sub> = {beta:.2g}"
                    + (", so Theorem 3's error bound says nothing" if beta > 0.5 else "")
                    + "), and the nested advanced composition over-counts: the accountant finds the run spends far "
                    "less than its nominal ε.")
        elif tau_over_g >= 1:
            hint = (f"With m = {m} the users' gradients are not concentrated enough (τ = {tau_over_g:.2f}·G ≥ G): "
                    "the user-level method clips at G like the naive baseline. Raise m to see it pull ahead.")
        return View([fig], readout=_table(rows), hint=hint)


class HeterogeneityPanel(Panel):
    """Excess risk against m for a heterogeneity level h: the m-independent user-drift floor."""

    title = "Heterogeneity: when more samples per user stop helping"
    intro = ("Each user's model drifts from the population's by h. More samples per user sharpen each user's own "
             "estimate, but the drift between users only averages out over users: past m*, only more users help.")

    MS = (1, 3, 10, 30, 100, 300, 1000)

    controls = {
        "heterogeneity": Slider("heterogeneity h", 0.3, 0.0, 1.0, step=0.05, bench=[0.0, 0.3, 1.0]),
        "n": LogSlider("users n", 200, 1e2, 10 ** 3.3, step=0.1, fmt=".0f", integer=True, bench=[100, 200, 1000]),
    }

    @staticmethod
    def _m_star(n, h):
        return heterogeneity_m_star(h)

    def _answer(self, v) -> float:
        return self._m_star(200, 0.3)

    def _explain(self, v, answer: float) -> str:
        return ("m* = s²d²/(h²·tr Σ): beyond it the excess risk is flat in m. Levy et al. 2021, Thm 9 makes the same "
                "point for any algorithm: its heterogeneity penalty B(mn+2)ν, with ν the total-variation drift "
                "between users, even grows with m.")

    # m* appears on the figure and in the table only once the exercise is revealed, and stays (sticky).
    exercises = {"exercise": PredictReveal(
        "With n = 200 users, d = 5, label noise s = 0.5 and heterogeneity h = 0.3, at which m does the user-drift "
        "term h²·tr Σ/(2nd) overtake the statistical term s²d/(2nm)? (tr Σ ≈ 0.43 for d = 5)",
        answer=_answer, explain=_explain, rel_tol=0.25, guess_label="m* ≈", redraw=True, sticky=True)}

    def render(self, v):
        """One step per value of m (the cheap small m first): each view draws the values simulated so far."""
        h, n = round(v.heterogeneity, 3), v.n
        revealed = self.revealed("exercise")
        ms = np.array([m for m in self.MS if n * m <= 400_000], dtype=float)
        pts = []
        for i, m in enumerate(ms):
            pts.append(heterogeneity_point(n, int(m), h, 0,
                                           progress=lambda f, i=i: self.report_progress((i + f) / len(ms))))
            yield Step(i + 1, len(ms), lambda k=i + 1: self._view(n, h, ms, np.array(pts[:k]), revealed),
                       unit="values of m")

    def _view(self, n, h, all_ms, pts, revealed):
        """The figure and table after the first len(pts) values of m; the formula (closed form) over every m."""
        ms = all_ms[:len(pts)]
        formula, floor = heterogeneity_formula(n, all_ms, h)
        m_star = self._m_star(n, h)
        shown = m_star if revealed else None  # the exercise's answer: hidden until Reveal
        title = "Heterogeneity: when do more samples per user stop helping?"
        if len(ms) < len(all_ms):
            title += f" — {len(ms)} of {len(all_ms)} values of m so far"
        fig = P.heterogeneity_figure(ms, {"nonprivate": pts[:, 0], "user_level": pts[:, 1], "naive": pts[:, 2]},
                                     formula=formula, formula_ms=all_ms, m_star=shown, title=title)
        if not math.isfinite(m_star):
            star = "∞ (no drift)"
        else:
            star = f"{m_star:.0f}" if revealed else "answer the exercise, then Reveal"
        readout = _table([
            ("m* = s²d²/(h² tr Σ)", star),
            ("drift floor h² tr Σ/(2nd)", f"{floor:.2e}"),
            ("private runs", "user-level ε = 1, δ = 10⁻⁵, T = 60"),
        ])
        return View([fig], readout=readout)
