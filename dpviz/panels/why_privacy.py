"""Lesson 01 "Why privacy is hard": three attacks on aggregate statistics, one panel each.

* :class:`DifferencingPanel` — two counts that differ by one person reveal that person; Laplace noise on each count
  turns certainty into a guess (with a predict-then-reveal exercise on how often the guess is right);
* :class:`ReconstructionPanel` — the reconstruction attack of Dinur & Nissim 2003: fraction of secret bits recovered
  against the noise, √n marked (a ``slow`` panel with a progress bar; a misconception exercise);
* :class:`MembershipPanel` — membership inference on a released count, on lesson 03's trade-off axes (a
  misconception exercise).
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np

from dpviz.attacks import (
    differencing_attack,
    differencing_success_probability,
    membership_tradeoff,
    reconstruction_curve,
    synthetic_table,
)
from dpviz.panels._base import ChoiceReveal, Panel, PredictReveal, View, dropdown, int_slider, log_slider, slider
from dpviz.panels._format import _fmt, _table
from dpviz.plots import why_privacy as P

__all__ = ["DifferencingPanel", "ReconstructionPanel", "MembershipPanel"]

_TABLE_SEED = 2024  # the lesson's synthetic table: the same people every time
_TABLE = synthetic_table(8, _TABLE_SEED)


def _people_table(target: int) -> str:
    rows = "".join(
        f"<tr style='{'background:#fff4e0;font-weight:bold' if i == target else ''}'>"
        f"<td>{html.escape(name)}</td><td>{age}</td><td>{html.escape(town)}</td>"
        f"<td>{'yes' if cond else 'no'}</td></tr>"
        for i, (name, age, town, cond) in enumerate(zip(_TABLE.names, _TABLE.ages.tolist(), _TABLE.towns,
                                                        _TABLE.has_condition.tolist())))
    return ("<table style='border-collapse:collapse;margin:4px 0' cellpadding='3'>"
            "<tr><th align='left'>name</th><th align='left'>age</th><th align='left'>town</th>"
            "<th align='left'>has the condition (secret)</th></tr>" + rows + "</table>")


class DifferencingPanel(Panel):
    """Differencing attack on a small synthetic table, exact and with Laplace noise."""

    title = "A differencing attack: two innocent counts reveal one person"
    intro = ("The database only answers counts. The attacker asks “how many people have the condition?” and then "
             "“how many people, other than the one I am after, have it?” (in practice the second question hides the "
             "exclusion behind innocent filters such as age and town). The difference is the target's secret.")

    def __init__(self, **overrides: Any):
        self.exercise = PredictReveal(
            "With Laplace noise at ε = 1 per answer, in what percentage of attacks does the guess "
            "“difference ≥ ½ ⇒ has it” get the target right?",
            answer=self._answer, explain=self._explain, rel_tol=0.05, unit=" %", guess_label="your %:")
        self._revealed_at: tuple | None = None
        self.exercise.button.on_click(self._on_reveal)
        super().__init__(**overrides)

    def _on_reveal(self, _button: Any = None) -> None:
        self._revealed_at = tuple(self.values().values())
        self.update()

    def _build_controls(self):
        return {
            "epsilon": slider("ε per answer (Laplace scale b = 1/ε)", 1.0, 0.1, 5.0, 0.1),
            "target": dropdown("target", [(f"{name}", i) for i, name in enumerate(_TABLE.names)], 0),
            "release": dropdown("answers released", [("exactly", "exact"), ("with Laplace noise", "laplace")],
                                "exact"),
            "draw": int_slider("noise draw (seed)", 0, 0, 50),
        }

    def _extra_widgets(self):
        return [self.exercise.widget]

    def _answer(self) -> float:
        return 100.0 * differencing_success_probability(1.0 / float(self.values()["epsilon"]))

    def _explain(self, answer: float) -> str:
        eps = float(self.values()["epsilon"])
        bound = 100.0 / (1.0 + math.exp(-2 * eps))
        return (f"Exactly 100·(1 − e<sup>−ε/2</sup>(2 + ε/2)/4) = {answer:.3g} % (the difference carries the noise "
                f"of both answers). Two ε-DP answers are 2ε-DP together (Dwork & Roth 2014, Thm 3.16), and no "
                f"guess about one person can then be right more than e<sup>2ε</sup>/(1 + e<sup>2ε</sup>) = "
                f"{bound:.3g} % of the time (Kairouz, Oh & Viswanath 2015, Thm 2.1). Without noise: 100 %.")

    def _render(self, v: dict[str, Any]) -> View:
        eps = float(v["epsilon"])
        target = int(v["target"])
        noisy = v["release"] == "laplace"
        b = 1.0 / eps if noisy else 0.0
        self.controls["epsilon"].layout.display = None if noisy else "none"
        self.controls["draw"].layout.display = None if noisy else "none"
        r = differencing_attack(_TABLE.has_condition, target, noise_scale=b, rng=int(v["draw"]))
        fig = P.differencing_figure(b, r.difference)
        name = html.escape(_TABLE.names[target])
        revealed = self._revealed_at == tuple(v.values())
        rows = [("answer 1: how many have it (everyone)", _fmt(r.answer_all)),
                (f"answer 2: how many have it (everyone but {name})", _fmt(r.answer_without)),
                ("difference", _fmt(r.difference)),
                ("attacker concludes", f"{name} {'HAS' if r.guess else 'does NOT have'} the condition — "
                                       f"{'right' if r.correct else 'wrong'}")]
        if noisy:
            p = differencing_success_probability(b)
            rows.append(("P[the guess is right] over all noise draws",
                         f"{100 * p:.3g} %" if revealed else "? — predict it below, then reveal"))
        readout = _people_table(target) + _table(rows)
        self.exercise.question.value = (
            f"<b>Predict, then reveal.</b> With Laplace noise at ε = {eps:.3g} per answer (b = {1 / eps:.3g}), in "
            "what percentage of attacks does the guess “difference ≥ ½ ⇒ has it” get the target right?")
        return View(figures=[fig], readout=readout)

    def bench_values(self) -> dict[str, list[Any]]:
        vals = super().bench_values()
        vals["release"] = ["laplace", "exact"]
        return vals


class ReconstructionPanel(Panel):
    """Dinur & Nissim's reconstruction attack: fraction of secret bits recovered against the noise."""

    title = "Reconstruction: many noisy counts reveal (almost) everyone"
    intro = ("Each of n people has a secret bit. The attacker asks m counts over random groups (“how many in this "
             "group have bit 1?”) and each answer is off by a random amount of at most ±E. Least squares turns the "
             "answers back into the bits (Dinur & Nissim 2003 use linear programming). The curve: how many bits "
             "come back, for every E.")
    slow = True

    def __init__(self, **overrides: Any):
        self._cache: tuple[tuple, Any] | None = None
        self.exercise = ChoiceReveal(
            "An agency holds one yes/no secret for each of 400 people. It answers only aggregate questions (“how "
            "many people in this group of about 200 have it?”) and adds a random error of up to ±5 to every answer. "
            "It answers 2000 such questions. Is that safe?",
            [("Yes: every answer is about a large group, so no answer is about any one person.", False,
              "Tempting, because each count mixes hundreds of people. But many counts over overlapping groups form "
              "a system of equations in the n secrets, and with 2000 answers it has one solution. Set n = 400, "
              "m/n = 5 and E = 5 above: nearly every bit comes back (Dinur & Nissim 2003; Dwork & Roth 2014, "
              "§8.1)."),
             ("Yes: each answer can be wrong by ±5, so the attacker cannot trust any single answer.", False,
              "True of one answer, but errors average out over many: least squares errs on each bit by about "
              "2E/√(3m), here 2·5/√6000 ≈ 0.13, far below the ½ needed to flip a bit."),
             ("No: with enough answers whose errors are well below √n = 20, almost every secret can be "
              "reconstructed.", True,
              "Right. Dinur & Nissim 2003 prove that noise o(√n) on n log²n random subset sums lets an efficient "
              "attacker recover all but a small fraction of the bits. Either the noise grows to the order of √n per "
              "answer or the number of answers must be limited: differential privacy makes that trade-off "
              "precise (lesson 02 onwards)."),
             ("No, but only because the attacker could ask about a group of one person.", False,
              "Every group here holds about half the people; no question singles anyone out, and the attack "
              "still works. Refusing small groups does not help.")])
        super().__init__(**overrides)

    def _build_controls(self):
        return {
            "noise": log_slider("noise bound E (each answer ± at most E)", 2.0, -1, 3, step=0.1),
            "n": int_slider("people n", 100, 20, 500, 10),
            "ratio": int_slider("queries per person m/n", 5, 1, 10),
            "draw": int_slider("random draw (seed)", 0, 0, 20),
        }

    def _extra_widgets(self):
        return [self.exercise.widget]

    def _curve(self, n: int, m: int, seed: int):
        key = (n, m, seed)
        if self._cache is None or self._cache[0] != key:
            es = np.concatenate([[0.0], 10.0 ** np.linspace(-1.0, 3.0, 81)])
            curve = reconstruction_curve(n, m, es, trials=3, rng=seed, progress=self.report_progress)
            self._cache = (key, curve)
        return self._cache[1]

    def _render(self, v: dict[str, Any]) -> View:
        n, ratio, seed = int(v["n"]), int(v["ratio"]), int(v["draw"])
        m = n * ratio
        e = float(v["noise"])
        curve = self._curve(n, m, seed)
        # the first draw at the slider's E: the slider's values 10^(−1 + 0.1k) are points of the curve's grid
        # 10^(−1 + 0.05j), where each draw's fraction is exact (nearest point in log E, to absorb rounding)
        es = np.asarray(curve.noise_scales)
        i = 1 + int(np.argmin(np.abs(np.log10(es[1:]) - math.log10(e))))
        frac = float(curve.per_trial[0][i])
        fig = P.reconstruction_figure(curve, e, frac, seed=seed)
        rn = math.sqrt(n)
        rows = [("n people, m answers", f"{n}, {m}"),
                ("noise bound E, and E/√n", f"{_fmt(e)}, {e / rn:.3g}·√n"),
                ("least-squares error per bit, ≈ 2E/√(3m)", f"{2 * e / math.sqrt(3 * m):.3g} (a bit flips past ½)"),
                ("bits recovered at E (first draw; mean of 3 draws)",
                 f"{frac:.1%}; {float(curve.recovered_fraction[i]):.1%}")]
        hint = None
        if ratio == 1:
            hint = "With m = n the equations barely determine the bits: small noise already hurts. Try m/n ≥ 3."
        return View(figures=[fig], readout=_table(rows), hint=hint)

    def bench_values(self) -> dict[str, list[Any]]:
        vals = super().bench_values()
        vals["n"] = [20, 100, 300, 500]
        return vals


_NOISE_OPTIONS = [("Laplace (b)", "laplace"), ("Gaussian (σ)", "gaussian")]


class MembershipPanel(Panel):
    """Membership inference against a released count/mean, exact and with noise, on the trade-off axes."""

    title = "Membership inference: is the target in the data?"
    intro = ("A count (or mean) of a yes/no trait over n people is published. The attacker knows the target has the "
             "trait and asks: is the target among the n, or is someone random from the population in that place? "
             "Each curve is the attacker's best trade-off between false alarms (α) and misses (β); the lower, the "
             "stronger the attack. This is the picture of lesson 03.")

    def __init__(self, **overrides: Any):
        self.exercise = ChoiceReveal(
            "A hospital publishes the fraction of its 1000 patients with a trait. One patient more or less moves "
            "it by only 0.001. Which statement is right?",
            [("It is safe: no attacker can tell from a change of 0.001.", False,
              "Tempting: with a common trait (p = 0.5) and n = 1000 the orange curve (count released exactly) "
              "almost sits on the diagonal. But set n = 10 and p = 0.02: a rare trait in a small group makes the "
              "target stand out, and an attacker who knows the other patients (or other releases) needs no luck at "
              "all. Safety that depends on n, p and what the attacker knows is not a guarantee."),
             ("It depends on the data and on what the attacker knows; noise calibrated to the sensitivity gives a "
              "bound that holds whatever they know.", True,
              "Right. Without noise the attack's power depends on p, n and the attacker's side knowledge. With "
              "Laplace noise of scale b on the count (sensitivity 1) every test obeys the ε = 1/b boundary "
              "(Kairouz, Oh & Viswanath 2015, Thm 2.1), for every p, n and every attacker."),
             ("It is unsafe only if names are published with the numbers.", False,
              "No names are published here, yet the orange curve for a rare trait dips far below the diagonal: "
              "the statistic itself leaks (Homer et al. 2008 did this with DNA mixture statistics).")])
        super().__init__(**overrides)

    def _build_controls(self):
        return {
            "n": log_slider("people n in the count", 10, 0, 3, step=0.1, readout_format=".0f"),
            "p": slider("population rate p of the trait", 0.02, 0.01, 0.5, 0.01),
            "noise": dropdown("noise on the count", _NOISE_OPTIONS, "laplace"),
            "scale": log_slider("noise scale b or σ on the count", 1.0, -1, 1.5, step=0.05),
        }

    def _extra_widgets(self):
        return [self.exercise.widget]

    def _render(self, v: dict[str, Any]) -> View:
        n = int(round(float(v["n"])))
        p, kind, sc = float(v["p"]), v["noise"], float(v["scale"])
        raw = membership_tradeoff(n, p)
        noisy = membership_tradeoff(n, p, noise=kind, scale=sc)
        fig = P.membership_figure(raw, noisy)
        guarantee = (f"ε = 1/b = {1 / sc:.3g} (pure DP)" if kind == "laplace" else f"μ = 1/σ = {1 / sc:.3g} (GDP)")

        def tpr_at(t, a=0.05):
            return float(np.interp(a, t.alpha, t.tpr))

        rows = [("released", f"count of n = {n}, trait rate p = {p:.2g}; noise guarantee {guarantee}"),
                ("true-positive rate at 5 % false positives: exact / noisy",
                 f"{tpr_at(raw):.1%} / {tpr_at(noisy):.1%}"),
                ("advantage max(TPR − FPR): exact / noisy", f"{raw.advantage():.3f} / {noisy.advantage():.3f}")]
        return View(figures=[fig], readout=_table(rows))

