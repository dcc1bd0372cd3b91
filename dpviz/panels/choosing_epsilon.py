"""Lesson 06 "Choosing ε": four panels.

* :class:`PosteriorBoundPanel` — from a prior to the largest posterior an ε (and δ) allows, with a
  predict-then-reveal exercise and the misconception "is δ = 1/n safe?";
* :class:`DeploymentsPanel` — deployed values of ε on one axis, what each allows an observer to learn, and the
  misconception "a smaller number is always more private";
* :class:`AccuracyCalibrationPanel` — from an accuracy target on a count to ε (Laplace and Gaussian);
* :class:`BudgetSplitPanel` — from a budget per person per period to ε per release (basic vs exact composition).
"""

from __future__ import annotations

import html
import math
from typing import Any

from dpviz import interpret as I
from dpviz.deployments import DEPLOYMENTS
from dpviz.panels._base import ChoiceReveal, Panel, PredictReveal, View, dropdown, log_slider
from dpviz.panels._format import _fmt, _sci, _table
from dpviz.plots import choosing_epsilon as P
from dpviz.references import cite

__all__ = ["PosteriorBoundPanel", "DeploymentsPanel", "AccuracyCalibrationPanel", "BudgetSplitPanel",
           "DELTA_OPTIONS"]

#: (label, value) pairs of the δ dropdown of :class:`PosteriorBoundPanel`.
DELTA_OPTIONS = [("0 (pure ε-DP)", 0.0), ("10⁻⁹", 1e-9), ("10⁻⁶", 1e-6), ("10⁻³", 1e-3), ("10⁻²", 1e-2)]


def _pct(x: float) -> str:
    return f"{100 * x:.3g}%"


class PosteriorBoundPanel(Panel):
    """Prior → largest posterior, for ε from 0.1 to 10; with δ > 0 the bound for an output event of probability q."""

    title = "What can an observer learn from an ε-DP release?"
    intro = ("An observer knows everything except whether one person is in the data, and believes it with "
             "probability p (the prior). After seeing the output, ε-DP caps the posterior: the odds can grow by at "
             "most e<sup>ε</sup>. With δ > 0 the cap depends on how rare the observed output is.")

    def __init__(self, **overrides: Any):
        self.exercise = PredictReveal("", answer=self._answer, explain=self._explain, rel_tol=0.1, unit=" %",
                                      guess_label="posterior (%):")
        self.misconception = ChoiceReveal(
            "A data set holds n = 10,000 people. A colleague proposes (ε, δ) = (1, 1/n) = (1, 10⁻⁴). Is δ = 1/n "
            "safe?",
            [("Yes: 1/n is tiny when n is large, and ε = 1 is a strong guarantee.", False,
              "Tempting, because 10⁻⁴ looks negligible. But δ is a probability of failure per person: the mechanism "
              "that publishes each person's record in full with probability δ is (0, δ)-DP, and with δ = 1/n it "
              "publishes about one whole record. δ should be much smaller than 1/n (Dwork & Roth 2014, §2.3)."),
             ("No: a mechanism may then reveal about one person's record entirely; δ must be far below 1/n.", True,
              "Right. Publishing each record with probability δ satisfies (0, δ)-DP, and n·δ = 1 record is expected "
              "to leak in full. In the panel, choose δ = 10⁻³ and slide P[S | out] down: for rare outputs the "
              "posterior bound climbs to 1 whatever ε is (Dwork & Roth 2014, §2.3)."),
             ("It does not matter: only ε counts, δ is a technicality.", False,
              "Tempting, because ε is the number usually quoted. But δ is an absolute slack: the (ε, δ) posterior "
              "bound for an output of probability q under 'out' grows like δ/q, so for rare outputs ε says "
              "nothing (see the dashed curve with δ > 0).")])
        self._revealed_at: tuple | None = None
        self.exercise.button.on_click(self._on_reveal)
        super().__init__(**overrides)

    def _build_controls(self):
        return {
            "epsilon": log_slider("ε (bold curve)", 1.0, -1, 1, step=0.05, readout_format=".3g"),
            "prior": log_slider("your prior p = P[in]", 0.1, -4, -0.3, step=0.1, readout_format=".3g"),
            "delta": dropdown("δ", DELTA_OPTIONS, 0.0),
            "event_probability": log_slider("P[S | out]: how likely the output is if the person is out", 1e-3,
                                            -10, 0, step=0.25, readout_format=".1e"),
        }

    def _extra_widgets(self):
        return [self.exercise.widget, self.misconception.widget]

    def _on_reveal(self, _button: Any = None) -> None:
        self._revealed_at = tuple(self.values().values())
        self.update()

    def _answer(self) -> float:
        v = self.values()
        return 100 * I.posterior_bound(float(v["prior"]), float(v["epsilon"]))

    def _explain(self, answer: float) -> str:
        v = self.values()
        e, p = float(v["epsilon"]), float(v["prior"])
        return (f"Prior odds p/(1 − p) = {p / (1 - p):.4g}, times e<sup>ε</sup> = {math.exp(e):.4g}, gives posterior "
                f"odds {math.exp(e) * p / (1 - p):.4g}, i.e. a posterior of {answer:.3g}% "
                f"({cite('kasiviswanathan2014semantics')}). Randomized response with this ε reaches it exactly.")

    def _render(self, v: dict[str, Any]) -> View:
        eps, p, d, q = float(v["epsilon"]), float(v["prior"]), float(v["delta"]), float(v["event_probability"])
        self.controls["event_probability"].layout.display = None if d > 0 else "none"
        revealed = self._revealed_at == tuple(v.values())
        fig = P.posterior_figure(eps, d, q if d > 0 else None, marker_prior=p if revealed else None)
        rows = [("odds factor e<sup>ε</sup>", _fmt(math.exp(eps))),
                (f"largest posterior for your prior {_pct(p)}, δ = 0",
                 _pct(I.posterior_bound(p, eps)) if revealed else "? — predict it below, then reveal")]
        if d > 0:
            rows.append((f"with δ = {_sci(d)}, for an output with P[S | out] = {q:.2g}",
                         _pct(I.posterior_bound(p, eps, d, event_probability=q)) if revealed else "? (after reveal)"))
            rows.append(("worst case over all outputs, δ > 0", "100% (rare outputs: δ/P[S | out] is large)"))
        self.exercise.question.value = (
            f"<b>Predict, then reveal.</b> With ε = {eps:.3g} (δ = 0) and a prior of {_pct(p)}, what is the largest "
            "posterior (in %) an observer can reach? Hint: multiply the odds.")
        return View(figures=[fig], readout=_table(rows))


class DeploymentsPanel(Panel):
    """Deployed ε on one axis, at the height of the posterior bound each allows; the records in a table."""

    title = "Deployed values of ε, side by side"
    intro = ("Each point is a published guarantee: its ε, and how far an observer who starts at your prior could "
             "be pushed. Read the unit of privacy and the period before comparing two numbers.")

    def __init__(self, **overrides: Any):
        self.misconception = ChoiceReveal(
            "Apple's macOS guarantee is ε = 16 per user per day (Tang et al. 2017); LinkedIn's is ε = 34.9 per "
            "member per month (Rogers et al. 2021). Which protects a person more over a year?",
            [("Apple's: 16 is smaller than 34.9.", False,
              "Tempting, because a smaller ε is more private for the same unit and period. But these are per day "
              "and per month: Apple's budget renews every day, so a year allows up to 16 × 365 = 5,840, LinkedIn's "
              "12 × 34.9 ≈ 419 under basic composition (Dwork & Roth 2014, Thm 3.16)."),
             ("Neither number answers it as it stands: first bring both to the same unit of privacy and the same "
              "period (and note local vs central DP).", True,
              "Right. An ε is only meaningful with its unit of privacy and its time horizon. Over a year basic "
              "composition gives 16 × 365 = 5,840 for Apple and 12 × 34.9 ≈ 419 for LinkedIn; and Apple's noise is "
              "added on the device (local DP), LinkedIn's on the server."),
             ("Both are the same: above ε ≈ 10 the guarantee is meaningless anyway.", False,
              "Tempting, because the posterior bound is close to 1 for such ε. But the bound is a worst case over "
              "outputs and observers; these numbers still differ by a factor of ten over a year, and the unit and "
              "period matter more than the rounding of the bound.")])
        super().__init__(**overrides)

    def _build_controls(self):
        return {"prior": log_slider("prior p = P[in]", 0.01, -4, -0.3, step=0.1, readout_format=".3g")}

    def _extra_widgets(self):
        return [self.misconception.widget]

    def _render(self, v: dict[str, Any]) -> View:
        p = float(v["prior"])
        fig = P.deployments_figure(p, DEPLOYMENTS)
        head = ("<tr><th>who — what</th><th>ε</th><th>δ</th><th>unit of privacy</th><th>per</th>"
                "<th>what the source says</th><th>source</th></tr>")
        rows = []
        for d in DEPLOYMENTS:
            eps = _fmt(d.epsilon) if d.epsilon is not None else "see the source"
            delta = "n/a" if d.delta is None else ("0" if d.delta == 0 else _sci(d.delta))
            rows.append(f"<tr><td>{html.escape(d.label)}</td><td><b>{eps}</b></td><td>{delta}</td>"
                        f"<td>{html.escape(d.unit)}</td><td>{html.escape(d.horizon)}</td>"
                        f"<td>{html.escape(d.says)}</td><td>{cite(d.key)}</td></tr>")
        table = ("<div style='overflow-x:auto'><table style='font-size:0.85em;border-collapse:collapse' "
                 "cellpadding='3'>" + head + "".join(rows) + "</table></div>")
        return View(figures=[fig], readout=table)


class AccuracyCalibrationPanel(Panel):
    """Accuracy target ±α on one count with probability 1 − β → the smallest ε, Laplace and Gaussian."""

    title = "From an accuracy target to ε"
    intro = ("Decide how accurate one count must be — within ±α<sub>acc</sub> with probability 1 − "
             "β<sub>fail</sub> — and read off the smallest ε that delivers it. Counts have sensitivity Δ = 1.")

    def _build_controls(self):
        return {
            "alpha_acc": log_slider("accuracy target α<sub>acc</sub> (±)", 10.0, 0, 3, step=0.05, readout_format=".3g"),
            "beta_fail": log_slider("failure probability β<sub>fail</sub>", 0.05, -6, -0.3, step=0.1,
                                    readout_format=".2g"),
            "delta": log_slider("δ (Gaussian only)", 1e-6, -12, -3, step=0.5, readout_format=".1e"),
        }

    def _render(self, v: dict[str, Any]) -> View:
        a, b, d = float(v["alpha_acc"]), float(v["beta_fail"]), float(v["delta"])
        fig = P.accuracy_figure(a, b, d)
        e_lap = I.laplace_epsilon_for_accuracy(a, b)
        e_gau = I.gaussian_epsilon_for_accuracy(a, b, d)
        sigma = I.gaussian_sigma_for_accuracy(a, b)
        rows = [("Laplace: ε = ln(1/β)/α, scale b = 1/ε", f"ε = {_fmt(e_lap)}, b = {_fmt(1 / e_lap)}"),
                (f"Gaussian at δ = {_sci(d)}: σ = α/Φ<sup>−1</sup>(1 − β/2)", f"ε = {_fmt(e_gau)}, σ = {_fmt(sigma)}"),
                ("largest posterior from a 1% prior (Laplace ε)", _pct(I.posterior_bound(0.01, e_lap)))]
        hint = None
        if min(e_lap, e_gau) > 5:
            hint = "This accuracy needs ε > 5: a weak guarantee. Relax α or β, or count over more people."
        return View(figures=[fig], readout=_table(rows), hint=hint)


class BudgetSplitPanel(Panel):
    """A budget per person per period split over k releases: ε per release, basic vs exact composition."""

    title = "From a budget per person per year to ε per release"
    intro = ("A person's total over a year is (ε, δ). With k releases in the year, how much may each spend? "
             "Basic composition splits evenly; exact accounting of Gaussian releases lets each spend more.")

    def _build_controls(self):
        return {
            "epsilon_total": log_slider("ε per person per year", 1.0, -1, 1.3, step=0.05, readout_format=".3g"),
            "delta_total": log_slider("δ per person per year", 1e-6, -12, -3, step=0.5, readout_format=".1e"),
            "releases": log_slider("releases per year k", 12, 0, 3, step=0.05, readout_format=".0f"),
        }

    def _render(self, v: dict[str, Any]) -> View:
        e, d, k = float(v["epsilon_total"]), float(v["delta_total"]), int(round(float(v["releases"])))
        fig = P.budget_figure(e, d, k)
        r = I.per_release_budget(e, d, k)
        rows = [("basic: each release (ε/k, δ/k)", f"({_fmt(r['eps_basic'])}, {r['delta_step']:.2g}); "
                                                   f"Gaussian σ = {_fmt(r['sigma_basic'])}"),
                ("exact Gaussian accounting: σ per release", _fmt(r["sigma_exact"])),
                ("… which alone is (ε<sub>step</sub>, δ/k)-DP with ε<sub>step</sub> =", _fmt(r["eps_step_exact"])),
                ("noise saved by exact accounting (σ<sub>basic</sub>/σ<sub>exact</sub>)",
                 f"{r['sigma_basic'] / r['sigma_exact']:.3g}×")]
        return View(figures=[fig], readout=_table(rows))
