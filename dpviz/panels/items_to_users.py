"""Lesson 11 "From items to users": neighbours, the cost of group privacy, and the n × m contribution-bound explorer.

Panels (each a no-argument constructor with working defaults):

* :class:`NeighboursPanel` — item-level vs user-level neighbours on a small users × examples grid (Ghazi et al. 2023,
  Defs 1–2);
* :class:`GroupPrivacyCostPanel` — m·ε_item and the δ blow-up (e^(m·ε_item)−1)/(e^(ε_item)−1) of group privacy
  (Ghazi et al. 2023, Lemma 6), with a misconception exercise ("is it m·δ?");
* :class:`BoundingExplorerPanel` — truncation bias vs noise vs total error as the contribution bound c moves, for
  user-level and item-level guarantees, heavy-tailed per-user counts, with a predict-then-reveal (the optimum is
  marked only after Reveal) and a misconception exercise (where c comes from).

Learner-visible strings follow the course notation (notebooks/notation.ipynb): ε_item, δ_item for the item-level
guarantee, ε, δ for the user-level one, c for the contribution bound, m for examples per user.
"""

from __future__ import annotations

import math

from dpviz.accountants.group import group_privacy_curve, group_privacy_log_factor
from dpviz.panels import Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Slider, Toggle, View
from dpviz.panels.format import table
from dpviz.plots import items_to_users as P
from dpviz.userlevel import BoundingTradeoff, bounding_curves

# Numbers come from dpviz.accountants.group and dpviz.userlevel, figures from dpviz.plots.items_to_users.
# Paired views are built with template="none" and joined by P.side_by_side, which applies the dpviz template once
# (template validation is the most expensive step of building a plotly figure).

__all__ = ["NeighboursPanel", "GroupPrivacyCostPanel", "BoundingExplorerPanel"]

_GHAZI = "Ghazi et al. 2023"


class NeighboursPanel(Panel):
    """Item-level vs user-level neighbouring datasets drawn on an n × m grid (Ghazi et al. 2023, Definitions 1
    and 2)."""

    title = "Neighbouring datasets: one example vs one user"
    intro = ("Rows are users, columns their examples (ratings 1–5). An <b>item-level</b> neighbour replaces one "
             f"example; a <b>user-level</b> neighbour replaces a user's whole row ({_GHAZI}, Def 1). The unit of "
             "privacy is one example in the first case, one user in the second: user-level DP must hide the "
             "difference of a whole row.")

    # the sliders reach the users and examples that exist; the example slider only for item-level neighbours
    controls = {
        "m": IntSlider("m (examples per user)", 5, 1, 12),
        "n_users": IntSlider("n (users)", 6, 2, 12),
        "kind": Toggle("neighbour", [("user-level", "user"), ("item-level", "item")], "user"),
        "user": IntSlider("which user changes", 3, 1, max=lambda v: v.n_users),
        "example": IntSlider("which example (item-level)", 2, 1, max=lambda v: v.m,
                             visible=lambda v: v.kind == "item"),
    }

    def render(self, v) -> View:
        n, m, user, ex = v.n_users, v.m, v.user, v.example  # user ≤ n and example ≤ m: the sliders' bounds
        fig = P.neighbours_figure(n, m, user=user - 1, index=ex - 1, kind=v.kind)
        if v.kind == "item":
            text = (f"Item-level: x and x′ differ in <b>one</b> cell (user {user}, example {ex}). "
                    "An ε<sub>item</sub>-item-level DP algorithm hides that cell (unit of privacy: one example); "
                    f"for user {user}'s whole row it only guarantees m·ε<sub>item</sub> = {m}·ε<sub>item</sub> "
                    f"(group privacy, {_GHAZI}, Lemma 6).")
        else:
            text = (f"User-level: user {user}'s whole row of m = {m} examples is replaced; the other "
                    f"{n - 1} rows are identical (x₋ᵢ = x′₋ᵢ, {_GHAZI}, Def 1; unit of privacy: one user). "
                    f"It is a chain of m = {m} item-level steps ({_GHAZI}, footnote 5).")
        return View(figures=[fig], readout=text)


def _power_of_ten(log10_value: float) -> str:
    """A positive number given by its log10, printed plainly when a float holds it, else as 10^{…}."""
    if log10_value < 300:
        return f"{10.0 ** log10_value:.4g}"
    exponent = math.floor(log10_value)
    return f"{10.0 ** (log10_value - exponent):.3f} × 10<sup>{exponent}</sup>"


class GroupPrivacyCostPanel(Panel):
    """What group privacy costs as m grows: ε = m·ε_item and δ = δ_item·(e^(m·ε_item)−1)/(e^(ε_item)−1) (Ghazi et
    al. 2023, Lemma 6)."""

    title = "The price of group privacy"
    intro = ("Take an (ε<sub>item</sub>, δ<sub>item</sub>)-item-level DP algorithm (unit of privacy: one example) "
             "and ask what it guarantees for a user with m examples (unit of privacy: the user). Group privacy "
             f"({_GHAZI}, Lemma 6) answers: ε grows linearly, δ grows <i>exponentially</i>.")

    # m stays on the axis the learner chose: its slider ends where the axis does
    controls = {
        "epsilon": Slider("ε<sub>item</sub> (item-level)", 0.5, 0.05, 3.0, step=0.05),
        "delta": LogSlider("δ<sub>item</sub> (item-level)", 1e-6, 1e-12, 1e-2, step=0.5),
        "m": LogSlider("m (examples per user)", 20, 1, max=lambda v: v.m_max, step=0.1, fmt=".0f", integer=True),
        "m_max": Choice("m axis up to", [("10²", 100), ("10³", 1000), ("10⁴", 10000)], 1000),
    }
    exercises = {"exercise": ChoiceReveal(
        "An algorithm is (ε<sub>item</sub>, δ<sub>item</sub>) = (1, 10⁻⁶)-DP for one example. What does Lemma 6 "
        "give a user with m = 10 examples for δ?",
        [("m times the item-level δ: 10 · 10⁻⁶ = 10⁻⁵ (each example adds its own δ)", False,
          "Tempting: that is how δ adds up when <i>different</i> mechanisms are composed (lesson 06). Here one "
          "mechanism is applied to datasets m steps apart, and each step multiplies what came before by "
          "e<sup>ε<sub>item</sub></sup>, a geometric sum: "
          "δ = δ<sub>item</sub>·(1 + e<sup>ε<sub>item</sub></sup> + … + e<sup>(m−1)ε<sub>item</sub></sup>) "
          "≈ 1.28·10⁻², more than 1000 times m·δ<sub>item</sub> "
          f"({_GHAZI}, Lemma 6)."),
         ("10⁻⁶ · (e¹⁰ − 1)/(e − 1) ≈ 1.3·10⁻²: a geometric sum", True,
          "Yes: walking from x to x′ one example at a time, the δ of each step is inflated "
          "by e<sup>ε<sub>item</sub></sup> "
          "for every step still to come, so the δ terms form a geometric sum "
          f"({_GHAZI}, Lemma 6). At m = 10, ε<sub>item</sub> = 1 the factor is (e¹⁰ − 1)/(e − 1) ≈ 12 818."),
         ("Still 10⁻⁶: δ is a property of the mechanism, not of the data", False,
          "Tempting, because ε and δ are printed on the mechanism. But they are promises about neighbouring "
          "datasets at distance one; for datasets m examples apart both grow (ε to m·ε<sub>item</sub>, δ by "
          "the geometric factor), which is exactly why user-level DP needs its own analysis.")])}

    def render(self, v) -> View:
        eps, dlt, m = float(v.epsilon), float(v.delta), v.m
        m_max = max(int(v.m_max), m)
        f1 = P.group_privacy_epsilon_figure(eps, m_max, m_mark=m, delta=dlt, template="none")
        f2 = P.group_privacy_delta_figure(eps, dlt, m_max, m_mark=m, template="none")
        e_m, d_m, d_l = group_privacy_curve(eps, dlt, [m])
        # log10 of the blow-up factor, in log space: e^{mε} overflows a float long before m = 10⁴ at ε = 3
        log10_factor = group_privacy_log_factor(eps, m) / math.log(10.0)
        no_guarantee = d_m[0] >= 1
        verdict = ("<span style='color:#D55E00'>no guarantee: δ ≥ 1 promises nothing</span>" if no_guarantee
                   else ("<span style='color:#D55E00'>weak: ε > 10</span>" if e_m[0] > 10 else "meaningful"))
        readout = table([
            ("m (examples per user)", f"{m}"),
            ("user-level ε = m·ε<sub>item</sub>", f"{e_m[0]:.4g}"),
            ("δ blow-up factor (e<sup>mε<sub>item</sub></sup>−1)/(e<sup>ε<sub>item</sub></sup>−1)",
             _power_of_ten(log10_factor)),
            ("user-level δ", "no guarantee (δ ≥ 1)" if no_guarantee else f"{d_m[0]:.3g}"),
            ("looser bound m·e<sup>mε<sub>item</sub></sup>·δ<sub>item</sub>",
             "≥ 1 (no guarantee)" if d_l[0] >= 1 else f"{d_l[0]:.3g}"),
            ("verdict", verdict),
        ]) + (f"<p>Source: {_GHAZI}, Lemma 6. Lesson 14 shows how the paper beats this for learning tasks: a "
              "privacy loss that grows like √m, not m.</p>")
        hint = "Try ε<sub>item</sub> = 1 and watch where δ crosses 1." if eps < 0.3 else None
        return View(figures=[P.side_by_side(f1, f2)], readout=readout, hint=hint)


class BoundingExplorerPanel(Panel):
    """The n × m explorer: contribution bound c against truncation bias, noise and total error.

    The exercise asks for the best c: the optimum is neither drawn nor printed until the learner presses Reveal,
    and it disappears again (with the verdict) as soon as a control changes, since the question is then a new one.
    """

    title = "Contribution bounding: bias against noise"
    intro = ("Users contribute very different numbers of records (a heavy tail). To give <b>user-level</b> DP "
             "(unit of privacy: the user) for a sum of values in [0, 1] we keep at most <b>c</b> records per user: "
             "the sensitivity becomes c, so the noise grows with c, while the records dropped bias the answer. "
             "Move c and find the sweet spot.")

    controls = {
        "c": LogSlider("contribution bound c", 10, 1, 1000, step=0.05, fmt=".0f", integer=True),
        "epsilon": Slider("ε (user-level)", 1.0, 0.1, 5.0, step=0.1),
        "n_users": LogSlider("n (users)", 1000, 10, 1e5, step=0.25, fmt=".0f", integer=True),
        "median": LogSlider("median records per user", 5, 1, 100, step=0.1, fmt=".1f"),
        "tail": Slider("tail index a (smaller = heavier tail)", 2.0, 0.8, 5.0, step=0.1),
        "mechanism": Choice("noise", [("Laplace (pure ε-DP)", "laplace"), ("Gaussian ((ε, δ)-DP)", "gaussian")],
                            "laplace"),
        "delta": LogSlider("δ (user-level)", 1e-6, 1e-10, 1e-2, step=0.5,
                           visible=lambda v: v.mechanism == "gaussian"),
    }

    def _best_c(self, v) -> float:
        return float(_tradeoff(v).k_user)

    def _explain(self, v, answer: float) -> str:
        t = _tradeoff(v)
        k = int(answer)
        above = int((t.counts > k).sum())
        return (f"At c* = {k} the total error is {t.rmse_user[k - 1]:.4g} ({t.rmse_user[k - 1] / t.true_answer:.2%} "
                f"of the answer); only {above} of {t.counts.size} users exceed c*. Raising c by one removes "
                f"{above} dropped records (one per user above c) but adds noise; the optimum balances the two. "
                "The RMSE curve is flat near c*, so anything within ~25% counts as close. The star now marks c*.")

    # After the verdict the optimum is drawn and printed too (until a control moves: a new question).
    exercises = {
        "exercise": PredictReveal(
            "At the current settings, which contribution bound c gives the smallest total error for "
            "<b>user-level</b> DP? (Type a c, then reveal.)",
            answer=_best_c, explain=_explain, rel_tol=0.25, guess_label="your c:", redraw=True),
        "source_exercise": ChoiceReveal(
            "Where should the contribution bound c come from?",
            [("The largest number of records any user has in the data, so that nothing is dropped", False,
              "Tempting: no bias at all. But that number is a fact about one person: if c is read off the data, "
              "adding or changing that one user changes c, and the released noise scale leaks it — the release is "
              "no longer DP. It also makes the noise as large as the heaviest user (see the “no bounding” row)."),
             ("A public cap, or a differentially private estimate (e.g. a DP quantile of the per-user counts) "
              "paid from the budget, fixed before the sum is computed", True,
              "Yes: c must not depend on the private data except through a DP step. Libraries such as "
              "PipelineDP, Tumult Analytics and OpenDP ask for this bound as a parameter for exactly this reason."),
             ("Any c works: the noise is calibrated to c, so privacy holds and only accuracy changes", False,
              "Half right: any c <i>fixed in advance</i> gives user-level DP, and c only moves bias against noise. "
              "But “any” includes a c computed from the data, which breaks the guarantee (first option).")]),
    }

    def render(self, v) -> View:
        k = v.c
        t = _tradeoff(v)
        revealed = self.revealed("exercise")
        if not revealed:
            self.exercise.feedback.value = ""  # a new question: the previous verdict and answer no longer apply
        f1 = P.bounding_error_figure(t, k, show_optimum=revealed)
        f2 = P.contribution_histogram_figure(t, k)
        eps = float(v.epsilon)
        cmax = int(t.counts[-1])
        rows = [
            ("true answer Σ values (n users)", f"{t.true_answer:,.0f} ({t.counts.size:,} users, largest count "
                                               f"{cmax})"),
            ("your c", f"{k}: |bias| {-t.bias[k - 1]:,.1f}, noise std {t.noise_user[k - 1]:,.1f}, "
                       f"RMSE {t.rmse_user[k - 1]:,.1f} ({t.rmse_user[k - 1] / t.true_answer:.2%})"),
        ]
        if revealed:
            rows.append(("best c for user-level DP", f"c* = {t.k_user}: RMSE {t.rmse_user[t.k_user - 1]:,.1f} "
                                                     f"({t.rmse_user[t.k_user - 1] / t.true_answer:.2%}), "
                                                     f"{t.dropped_fraction(t.k_user):.2%} of records dropped"))
        rows += [
            ("no bounding (c = public max 1000)", f"RMSE {t.rmse_user[-1]:,.1f}"),
            ("item-level DP (one record protected)", f"no truncation needed (c = {t.k_item}), RMSE "
                                                      f"{t.rmse_item[t.k_item - 1]:,.1f} — but a user with "
                                                      f"{cmax} records is protected only at ε·{cmax} = "
                                                      f"{eps * cmax:.4g} ({_GHAZI}, Lemma 6)"),
        ]
        if t.mechanism == "gaussian":
            extra = t.noise_group[k - 1] / t.noise_user[k - 1] - 1
            best = (f"best c = {t.k_group}, RMSE {t.rmse_group[t.k_group - 1]:,.1f}; " if revealed else "")
            rows.append(("item-level Gaussian lifted by group privacy", f"{best}at your c its noise is {extra:.2%} "
                                                                        "larger than calibrating to sensitivity c"))
        hint = None
        if k > cmax:
            hint = f"c = {k} is above the largest count ({cmax}): nothing is dropped, you only pay noise."
        elif t.dropped_fraction(k) > 0.2:
            hint = f"c = {k} drops {t.dropped_fraction(k):.0%} of all records: the bias dominates."
        return View(figures=[f1, f2], readout=table(rows), hint=hint)


def _tradeoff(v) -> BoundingTradeoff:
    """The bias–noise trade-off of the explorer's settings (cached in :func:`dpviz.userlevel.bounding_curves`)."""
    return bounding_curves(v.n_users, float(v.median), float(v.tail), float(v.epsilon), mechanism=v.mechanism,
                           delta=float(v.delta), cap=1000)
