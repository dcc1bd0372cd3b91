"""Lesson 08 "From items to users": neighbours, the cost of group privacy, and the n × m contribution-bound explorer.

Panels (each a no-argument constructor with working defaults):

* :class:`NeighboursPanel` — item-level vs user-level neighbours on a small users × examples grid (Ghazi et al. 2023,
  Defs 1–2);
* :class:`GroupPrivacyCostPanel` — ε·m and the δ blow-up (e^{mε}−1)/(e^{ε}−1) of group privacy (Ghazi et al. 2023,
  Lemma 6);
* :class:`BoundingExplorerPanel` — truncation bias vs noise vs total error as the contribution bound k moves, for
  user-level and item-level guarantees, heavy-tailed per-user counts, optimum k marked, with a predict-then-reveal.
"""

from __future__ import annotations

import math
from typing import Any

from dpviz.accountants.group import group_privacy_curve, group_privacy_log_factor
from dpviz.panels._base import Panel, PredictReveal, View, dropdown, int_slider, log_slider, slider, toggle
from dpviz.panels._format import _table
from dpviz.plots import items_to_users as P
from dpviz.userlevel import BoundingTradeoff, bounding_curves

# Numbers come from dpviz.accountants.group and dpviz.userlevel, figures from dpviz.plots.items_to_users.
# Paired views are built with template="none" and joined by P.side_by_side, which applies the dpviz template once
# (template validation is the most expensive step of building a plotly figure).

__all__ = ["NeighboursPanel", "GroupPrivacyCostPanel", "BoundingExplorerPanel"]


class NeighboursPanel(Panel):
    """Item-level vs user-level neighbouring datasets drawn on an n × m grid (Ghazi et al. 2023, Definitions 1
    and 2)."""

    title = "Neighbouring datasets: one example vs one user"
    intro = ("Rows are users, columns their examples (ratings 1–5). An <b>item-level</b> neighbour replaces one "
             "example; a <b>user-level</b> neighbour replaces a user's whole row (Definition 1 of 000). "
             "User-level DP must hide the difference of a whole row.")

    def _build_controls(self):
        return {
            "m": int_slider("m (examples per user)", 5, 1, 12),
            "n_users": int_slider("n (users)", 6, 2, 12),
            "kind": toggle("neighbour", [("user-level", "user"), ("item-level", "item")], "user"),
            "user": int_slider("which user changes", 3, 1, 12),
            "example": int_slider("which example (item-level)", 2, 1, 12),
        }

    def _render(self, v: dict[str, Any]) -> View:
        n, m = int(v["n_users"]), int(v["m"])
        user = min(int(v["user"]), n)
        ex = min(int(v["example"]), m)
        fig = P.neighbours_figure(n, m, user=user - 1, index=ex - 1, kind=v["kind"])
        notes = []
        if user != int(v["user"]):
            notes.append(f"there are only n = {n} users, so user {n} is shown")
        if ex != int(v["example"]):
            notes.append(f"users hold only m = {m} examples, so example {m} is shown")
        if v["kind"] == "item":
            text = (f"Item-level: x and x′ differ in <b>one</b> cell (user {user}, example {ex}). "
                    f"An ε-item-level DP algorithm hides that cell; to hide user {user}'s whole row it only "
                    f"guarantees m·ε = {m}ε (group privacy, Lemma 6 of 000).")
        else:
            text = (f"User-level: user {user}'s whole row of m = {m} examples is replaced; the other "
                    f"{n - 1} rows are identical (x₋ᵢ = x′₋ᵢ, Definition 1 of 000). It is a chain of m = {m} "
                    "item-level steps (footnote 5 of 000).")
        hint = ("; ".join(notes) + ".") if notes else None
        return View(figures=[fig], readout=text, hint=hint)


def _power_of_ten(log10_value: float) -> str:
    """A positive number given by its log10, printed plainly when a float holds it, else as 10^{…}."""
    if log10_value < 300:
        return f"{10.0 ** log10_value:.4g}"
    exponent = math.floor(log10_value)
    return f"{10.0 ** (log10_value - exponent):.3f} × 10<sup>{exponent}</sup>"


class GroupPrivacyCostPanel(Panel):
    """What group privacy costs as m grows: ε′ = mε and δ′ = δ(e^{mε}−1)/(e^{ε}−1) (Ghazi et al. 2023, Lemma 6)."""

    title = "The price of group privacy"
    intro = ("Take an (ε, δ)-item-level DP algorithm and ask what it guarantees for a user with m examples. "
             "Group privacy (Lemma 6 of 000) answers: ε grows linearly, δ grows <i>exponentially</i>.")

    def _build_controls(self):
        return {
            "epsilon": slider("item-level ε", 0.5, 0.05, 3.0, 0.05),
            "delta": log_slider("item-level δ", 1e-6, -12, -2, step=0.5),
            "m": log_slider("m (examples per user)", 20, 0, 4, step=0.1, readout_format=".0f"),
            "m_max": dropdown("m axis up to", [("10²", 100), ("10³", 1000), ("10⁴", 10000)], 1000),
        }

    def _render(self, v: dict[str, Any]) -> View:
        eps, dlt, m = float(v["epsilon"]), float(v["delta"]), int(round(v["m"]))
        m_max = max(int(v["m_max"]), m)
        f1 = P.group_privacy_epsilon_figure(eps, m_max, m_mark=m, template="none")
        f2 = P.group_privacy_delta_figure(eps, dlt, m_max, m_mark=m, template="none")
        e_m, d_m, d_l = group_privacy_curve(eps, dlt, [m])
        # log10 of the blow-up factor, in log space: e^{mε} overflows a float long before m = 10⁴ at ε = 3
        log10_factor = group_privacy_log_factor(eps, m) / math.log(10.0)
        verdict = ("<span style='color:#D55E00'>vacuous: δ′ ≥ 1 promises nothing</span>" if d_m[0] >= 1
                   else ("<span style='color:#D55E00'>weak: ε′ > 10</span>" if e_m[0] > 10 else "meaningful"))
        readout = _table([
            ("m (examples per user)", f"{m}"),
            ("user-level ε′ = m·ε", f"{e_m[0]:.4g}"),
            ("δ blow-up factor (e^{mε}−1)/(e^{ε}−1)", _power_of_ten(log10_factor)),
            ("user-level δ′", f"{d_m[0]:.3g}"),
            ("looser bound m·e^{mε}·δ", f"{d_l[0]:.3g}"),
            ("verdict", verdict),
        ]) + ("<p>Source: Lemma 6 of 000. Lesson 11 shows how the paper beats this: privacy loss ~√m, not m.</p>")
        hint = "Try ε = 1 and watch where δ′ crosses 1." if eps < 0.3 else None
        return View(figures=[P.side_by_side(f1, f2)], readout=readout, hint=hint)


class BoundingExplorerPanel(Panel):
    """The n × m explorer: contribution bound k against truncation bias, noise and total error."""

    title = "Contribution bounding: bias against noise"
    intro = ("Users contribute very different numbers of records (a heavy tail). To give <b>user-level</b> DP "
             "for a sum of values in [0, 1] we keep at most <b>k</b> records per user: the sensitivity becomes k, "
             "so the noise grows with k, while the records dropped bias the answer. Move k and find the sweet spot.")

    def __init__(self, **overrides: Any):
        self.exercise = PredictReveal(
            "At the current settings, which contribution bound k gives the smallest total error for "
            "<b>user-level</b> DP? (Type a k, then reveal.)",
            answer=lambda: float(self._last.k_user),
            explain=self._explain,
            rel_tol=0.25,
            guess_label="your k:",
        )
        self._last: BoundingTradeoff | None = None
        super().__init__(**overrides)

    def _build_controls(self):
        return {
            "k": log_slider("contribution bound k", 10, 0, 3, step=0.05, readout_format=".0f"),
            "epsilon": slider("ε", 1.0, 0.1, 5.0, 0.1),
            "n_users": log_slider("n (users)", 1000, 1, 5, step=0.25, readout_format=".0f"),
            "median": log_slider("median records per user", 5, 0, 2, step=0.1, readout_format=".1f"),
            "tail": slider("tail index a (smaller = heavier tail)", 2.0, 0.8, 5.0, 0.1),
            "mechanism": dropdown("noise", [("Laplace (pure ε-DP)", "laplace"), ("Gaussian ((ε, δ)-DP)", "gaussian")],
                                  "laplace"),
            "delta": log_slider("δ (Gaussian only)", 1e-6, -10, -2, step=0.5),
        }

    def _extra_widgets(self):
        return [self.exercise.widget]

    def _explain(self, answer: float) -> str:
        t = self._last
        k = int(answer)
        above = int((t.counts > k).sum())
        return (f"At k* = {k} the total error is {t.rmse_user[k - 1]:.4g} ({t.rmse_user[k - 1] / t.true_answer:.2%} "
                f"of the answer); only {above} of {t.counts.size} users exceed k*. Raising k by one removes "
                f"{above} dropped records (one per user above k) but adds noise; the optimum balances the two. "
                "The RMSE curve is flat near k*, so anything within ~25% counts as close.")

    def _render(self, v: dict[str, Any]) -> View:
        k = int(round(v["k"]))
        t = bounding_curves(int(round(v["n_users"])), float(v["median"]), float(v["tail"]), float(v["epsilon"]),
                            mechanism=v["mechanism"], delta=float(v["delta"]), cap=1000)
        self._last = t
        f1 = P.bounding_error_figure(t, k)
        f2 = P.contribution_histogram_figure(t, k)
        eps = float(v["epsilon"])
        cmax = int(t.counts[-1])
        rows = [
            ("true answer Σ values (n users)", f"{t.true_answer:,.0f} ({t.counts.size:,} users, largest c = {cmax})"),
            ("your k", f"{k}: |bias| {-t.bias[k - 1]:,.1f}, noise std {t.noise_user[k - 1]:,.1f}, "
                       f"RMSE {t.rmse_user[k - 1]:,.1f} ({t.rmse_user[k - 1] / t.true_answer:.2%})"),
            ("best k for user-level DP", f"k* = {t.k_user}: RMSE {t.rmse_user[t.k_user - 1]:,.1f} "
                                         f"({t.rmse_user[t.k_user - 1] / t.true_answer:.2%}), "
                                         f"{t.dropped_fraction(t.k_user):.2%} of records dropped"),
            ("no bounding (k = public max 1000)", f"RMSE {t.rmse_user[-1]:,.1f}"),
            ("item-level DP (one record protected)", f"best k = {t.k_item} (no truncation needed), RMSE "
                                                      f"{t.rmse_item[t.k_item - 1]:,.1f} — but a user with "
                                                      f"{cmax} records is protected only at ε·{cmax} = "
                                                      f"{eps * cmax:.4g} (Lemma 6 of 000)"),
        ]
        if t.mechanism == "gaussian":
            extra = t.noise_group[k - 1] / t.noise_user[k - 1] - 1
            rows.append(("item-level Gaussian lifted by group privacy", f"best k = {t.k_group}, RMSE "
                                                                        f"{t.rmse_group[t.k_group - 1]:,.1f}; at "
                                                                        f"your k its noise is {extra:.2%} larger "
                                                                        "than calibrating to sensitivity k"))
        hint = None
        if k > cmax:
            hint = f"k = {k} is above the largest count ({cmax}): nothing is dropped, you only pay noise."
        elif t.dropped_fraction(k) > 0.2:
            hint = f"k = {k} drops {t.dropped_fraction(k):.0%} of all records: the bias dominates."
        return View(figures=[f1, f2], readout=_table(rows), hint=hint)
