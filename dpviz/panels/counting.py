"""Lesson 02 "Counting with noise": four panels.

* :class:`SensitivityPanel` — pick a query, the neighbouring relation and clipping bounds: Δ, the Laplace noise it
  needs, and for sums and means what clipping costs (bias) against what it saves (noise);
* :class:`PostProcessingPanel` — clamping, rounding and a consistent histogram never cost privacy; clamping lowers
  the error, rounding raises it at every ε of the slider, and a consistent two-level histogram beats the bins
  released alone at the same ε only for wide ranges (exact MSE and variances), with two exercises;
* :class:`CompositionPanel` — sequential against parallel composition for a histogram, with the misconception
  exercise "a histogram over 10 bins costs 10ε?";
* :class:`LocalCentralPanel` — local k-RR / OUE against a central Laplace count, with a predict-then-reveal
  exercise on the number of people local DP needs.

Every number is a closed form from :mod:`dpviz.sensitivity` and :mod:`dpviz.local`. The learner reads K for the
number of possible answers (the course's domain size; the mechanism keeps its name k-RR), and p, q for k-RR's two
report probabilities (Wang et al.'s names, local to lesson 02: not the sampling rate q of later lessons).
"""

from __future__ import annotations

import math
from typing import Any

from dpviz import local as LOC
from dpviz import sensitivity as S
from dpviz.panels._base import ChoiceReveal, Panel, PredictReveal, View, dropdown, int_slider, log_slider, slider
from dpviz.panels._format import _big, _fmt, _table
from dpviz.plots import counting as P
from dpviz.references import cite

__all__ = ["SensitivityPanel", "PostProcessingPanel", "CompositionPanel", "LocalCentralPanel"]

#: The lesson's fixed data set: 1,001 skewed values (median 30), the quantiles of a log-normal law (no randomness).
DATA = S.example_dataset(1001)

_QUERY_OPTIONS = [("count of people with a property", "count"), ("sum of values clipped to [L, U]", "sum"),
                  ("mean of n values clipped to [L, U]", "mean"), ("histogram (fixed bins)", "histogram")]
_RELATION_OPTIONS = [("add or remove one record", "add_remove"), ("replace one record", "replace")]
_POST_OPTIONS = [("clamp at 0 or round a noisy count", "clamp"), ("make a histogram consistent with its total",
                                                                  "consistency")]
_PROTOCOL_OPTIONS = [("k-ary randomized response (k-RR)", "krr"), ("optimised unary encoding (OUE)", "oue")]


def _show(control, visible: bool) -> None:
    control.layout.display = None if visible else "none"


class SensitivityPanel(Panel):
    """Δ of a query under a neighbouring relation, the Laplace noise it needs, and the clipping trade-off."""

    title = "Sensitivity: how far can one person move the answer?"
    intro = ("The noise must hide any one person, so it is scaled to the <b>sensitivity</b> Δ: the most the answer "
             "can change between neighbouring data sets (" + cite("dwork2014algorithmic", "Def. 3.1") + "). Which "
             "data sets are neighbours is a choice: one record added or removed, or one record replaced. Sums "
             "and means need bounds [L, U]: values outside are clipped, which biases the answer but caps Δ.")

    def _build_controls(self):
        c = {
            "epsilon": slider("ε", 1.0, 0.1, 4.0, 0.05),
            "query": dropdown("query", _QUERY_OPTIONS, "sum"),
            "relation": dropdown("neighbours", _RELATION_OPTIONS, "add_remove"),
            "lower": slider("lower clipping bound L", 0.0, -100.0, 50.0, 5.0, readout_format=".0f"),
            "upper": log_slider("upper clipping bound U", 100.0, 0.0, 3.0, step=0.05, readout_format=".3g"),
            "n": log_slider("n (public size, for the mean)", 1000.0, 1.0, 6.0, step=0.25, readout_format=".3g"),
        }
        # U ≥ L on the sliders themselves: U's slider starts at L (observed before the panel's own update)
        c["lower"].observe(lambda ch: setattr(c["upper"], "min", math.log10(ch["new"]) if ch["new"] > 1 else 0.0),
                           names="value")
        return c

    def _render(self, v: dict[str, Any]) -> View:
        query, rel, eps = v["query"], v["relation"], float(v["epsilon"])
        clipped = query in ("sum", "mean")
        _show(self.controls["lower"], clipped)
        _show(self.controls["upper"], clipped)
        _show(self.controls["n"], query == "mean")
        lo, hi = float(v["lower"]), float(v["upper"])
        n = max(2, round(float(v["n"])))
        if clipped and hi < lo - 1e-9 * max(1.0, abs(lo)):
            raise ValueError(f"upper clipping bound U = {hi:.3g} is below L = {lo:.3g}: must be U ≥ L.")
        hi = max(hi, lo)  # U's log slider, started at L, lands a rounding error below it
        delta = S.query_sensitivity(query, lo, hi, n, rel)
        label = dict((k, lbl) for lbl, k in _QUERY_OPTIONS)[query]
        rows = [("query", label), ("neighbours", P.RELATION_LABELS[rel]), ("sensitivity Δ", _fmt(delta))]
        if delta == 0:
            # e.g. a sum clipped to [0, 0]: nothing to hide; no noise
            figs = [P.note_figure("Noise the release needs", "Δ = 0: the clipped answer does not depend on anyone's "
                                  "data, so no noise is needed (and it says nothing).")]
        else:
            b = S.laplace_scale(delta, eps)
            rows += [("Laplace scale b = Δ/ε", _fmt(b)), ("noise standard deviation √2·b", _fmt(math.sqrt(2) * b))]
            figs = [P.noise_figure(delta, eps, label=f"a {query}")]
        if clipped:
            data_q = "sum" if query == "sum" else "mean"
            figs.append(P.clipping_figure(DATA, lo, hi, eps, data_q, rel))
            err = S.clipping_error(DATA, lo, hi, eps, data_q, rel)
            rows.append(("on the lesson's data: bias² + noise variance",
                         f"{_fmt(err['bias2'], 3)} + {_fmt(err['noise_var'], 3)} = {_fmt(err['total'], 3)}"))
        else:
            figs.append(P.note_figure("Clipping", "A count or a histogram needs no clipping: each person adds at "
                                      "most 1 to a count whatever their data."))
        hint = None
        if query == "mean":
            hint = (f"The clipping figure uses the lesson's data set of {DATA.size:,} values; n sets Δ = (U − L)/n "
                    "above.")
            if rel == "add_remove":
                hint += " Under add/remove n is itself private: a real release must not scale noise by the true n."
        if query == "histogram" and rel == "replace":
            hint = "Replacing a record moves it between two bins: one count goes down, another up, so Δ = 2."
        return View(figures=figs, readout=_table(rows), hint=hint)


def _rounding_ratio(eps: float) -> float:
    b = S.laplace_scale(1.0, eps)
    return S.rounded_laplace_mse(b) / (2.0 * b * b)


class PostProcessingPanel(Panel):
    """Clamping, rounding and consistency of noisy counts: free in privacy, exact error (lower or higher)."""

    title = "Post-processing is free in privacy, not always in error"
    intro = ("Anything computed from a private release alone, without the data, is as private as the release ("
             + cite("dwork2014algorithmic", "Prop. 2.1") + "). Clamping a count at 0, rounding it, or making a "
             "histogram agree with its total are such steps. Here is what they do to the error: it can go down, "
             "and it can go up.")

    def __init__(self, **overrides: Any):
        self.exercise = ChoiceReveal(
            "A noisy count came out as −3 and we report max(−3, 0) = 0. Clamping looked at the answer again: "
            "what does it cost in privacy?",
            [("An extra ε: it is a second query", False,
              "Tempting, because something was computed after the release. But clamping reads only the released "
              "number, never the data: nothing new is learnt about anyone, so it costs nothing ("
              + cite("dwork2014algorithmic", "Prop. 2.1") + ")."),
             ("Nothing: it only uses the released number", True,
              "Right: post-processing cannot weaken DP (" + cite("dwork2014algorithmic", "Prop. 2.1") + "). The "
              "figure shows it can even lower the error near 0: b² instead of 2b² at a true count of 0."),
             ("It breaks DP when the true count is 0", False,
              "Tempting, because a 0 is reported exactly when the truth is small. But the 0 is a function of the "
              "noisy answer alone, whose distribution already satisfies ε-DP; any function of it does too.")])
        eps_star = 1.0 / S.rounding_breakeven_scale()
        at1, at4 = (100.0 * (_rounding_ratio(e) - 1.0) for e in (1.0, 4.0))
        why = (f"At ε = 1 the rounded count's mean squared error is {_fmt(S.rounded_laplace_mse(1.0), 3)} against "
               f"2b² = 2 (+{at1:.1f} %), at ε = 4 it is +{at4:.0f} %. Rounding helps only when the noise is small, "
               f"b below {S.rounding_breakeven_scale():.3f}, so for a count ε above {eps_star:.2f}.")
        self.rounding = ChoiceReveal(
            "Does rounding ever help here? A noisy count is rounded to the nearest integer, a whole number like the "
            "truth. For ε on this panel's slider (0.1 to 4), does rounding lower the mean squared error?",
            [("Yes, at every ε: it uses what we know about the truth", False,
              "Tempting: clamping used what we know (a count is ≥ 0) and gained. But rounding pushes an answer "
              "that is near the truth away from it about as often as it pulls it closer. " + why
              + " Post-processing costs no privacy, but it can add error."),
             ("No, nowhere on this slider; only with much less noise", True,
              "Right. " + why + " Post-processing costs no privacy, but it can add error as well as remove it."),
             ("It depends on the true count", False,
              "Tempting, because the gain of clamping depends on the true count. But for an integer truth x, "
              "round(x + N) − x = round(N): the error does not depend on x, which is why the rounded curve is "
              "flat. " + why)])
        self._rounding_revealed = False
        self.rounding.button.on_click(self._on_reveal_rounding)
        super().__init__(**overrides)

    def _on_reveal_rounding(self, _button: Any = None) -> None:
        if self.rounding.choice.index is not None:
            self._rounding_revealed = True
            self.update()

    def _build_controls(self):
        return {
            "epsilon": slider("ε", 1.0, 0.1, 4.0, 0.05),
            "step": dropdown("post-processing", _POST_OPTIONS, "clamp"),
            "bins": int_slider("bins B of the histogram", 8, 2, 64),
            "relation": dropdown("neighbours", _RELATION_OPTIONS, "add_remove"),
        }

    def _extra_widgets(self):
        return [self.rounding.widget, self.exercise.widget]

    def _render(self, v: dict[str, Any]) -> View:
        eps, bins, step, rel = float(v["epsilon"]), int(v["bins"]), v["step"], v["relation"]
        consistency = step == "consistency"
        _show(self.controls["bins"], consistency)
        _show(self.controls["relation"], consistency)
        self.rounding.widget.layout.display = "none" if consistency else None
        hint = None
        if not consistency:
            b = S.laplace_scale(1.0, eps)
            fig = P.clamping_figure(eps, show_rounded=self._rounding_revealed)
            rounded = S.rounded_laplace_mse(b)
            rows = [("count: MSE as released (2b²)", _fmt(2 * b * b, 3)),
                    ("count: MSE clamped at 0, true count 0 (b²)", _fmt(S.clamped_laplace_mse(0.0, b), 3)),
                    ("count: MSE rounded to an integer",
                     f"{_fmt(rounded, 3)} ({100.0 * (rounded / (2 * b * b) - 1.0):+.1f} % against 2b²)"
                     if self._rounding_revealed else "? — answer the question below, then reveal")]
        else:
            fig = P.consistency_figure(bins, eps, rel)
            var2 = 2.0 * S.laplace_scale(2.0, eps) ** 2  # Lap(2/ε)
            half = max(1, bins // 2)
            if rel == "add_remove":
                var1 = 2.0 * S.laplace_scale(1.0, eps) ** 2  # bins alone: Δ = 1, Lap(1/ε)
                cross = 0.75 * (bins + 1)
                rows = [("one bin: bins alone at the same ε → hierarchy made consistent",
                         f"{_fmt(var1, 3)} → {_fmt(S.hierarchy_range_variance(bins, 1, var2), 3)}"),
                        (f"{half} bins: bins alone → consistent",
                         f"{_fmt(S.raw_range_variance(bins, half, var1), 3)} → "
                         f"{_fmt(S.hierarchy_range_variance(bins, half, var2), 3)}"),
                        ("the consistent hierarchy beats the bins alone",
                         f"for r > ¾(B + 1) = {_fmt(cross, 4)}" if cross < bins else "for no r: ¾(B + 1) ≥ B")]
                hint = ("Under add/remove each person is in the total and in one bin, so every count needs Lap(2/ε): "
                        "least squares beats this release's own raw answers, but the fair comparison is the bins "
                        "released alone at the same ε (Lap(1/ε)). Multi-level trees are where consistency pays ("
                        + cite("hay2010boosting") + ").")
            else:
                rows = [("one bin: bins alone → consistent with the public total",
                         f"{_fmt(var2, 3)} → {_fmt(S.hierarchy_range_variance(bins, 1, var2, 0.0), 3)}"),
                        (f"{half} bins: bins alone → consistent",
                         f"{_fmt(S.raw_range_variance(bins, half, var2), 3)} → "
                         f"{_fmt(S.hierarchy_range_variance(bins, half, var2, 0.0), 3)}")]
                hint = ("Under replace-one n is public: the total is exact and costs nothing, so making the bins add "
                        "up to it lowers the variance of every range.")
        return View(figures=[fig], readout=_table(rows), hint=hint)


class CompositionPanel(Panel):
    """Sequential against parallel composition for a histogram, with the "10 bins cost 10ε?" exercise."""

    title = "Composition: when do privacy costs add up?"
    intro = ("Two releases about the same people cost ε₁ + ε₂ (sequential composition, "
             + cite("dwork2014algorithmic", "Thm 3.14") + "). Releases about <i>disjoint</i> groups of people "
             "cost only the largest ε (parallel composition, " + cite("mcsherry2009privacy", "Thm 2") + ").")

    def __init__(self, **overrides: Any):
        self.exercise = ChoiceReveal(
            "A histogram of ages has 10 bins; each person is in exactly one bin. Each bin's count gets its own "
            "Laplace noise of scale 1/ε. Under add/remove neighbours, what does the whole histogram cost?",
            [("10ε: ten noisy counts, ten times ε", False,
              "Tempting: ten releases, and sequential composition adds up ε. But adding or removing one person "
              "changes only their own bin. The bins are disjoint, so parallel composition applies ("
              + cite("mcsherry2009privacy", "Thm 2") + "): the histogram costs ε."),
             ("ε: the bins are disjoint", True,
              "Right: one person touches one bin, so the histogram's sensitivity is 1 and it costs ε in total "
              "(parallel composition, " + cite("mcsherry2009privacy", "Thm 2") + "). Under replace-one neighbours "
              "a person moves between two bins: Δ = 2, so 2ε."),
             ("ε/10: the budget is shared by the bins", False,
              "Tempting, because splitting a budget is how sequential composition is often used. But each bin "
              "gets scale 1/ε, the noise for a full ε; nothing was split.")])
        self._revealed = False
        self.exercise.button.on_click(self._on_reveal)
        super().__init__(**overrides)

    def _on_reveal(self, _button: Any = None) -> None:
        if self.exercise.choice.index is not None:
            self._revealed = True
            self.update()

    def _build_controls(self):
        return {
            "epsilon": slider("total ε of the histogram", 1.0, 0.1, 4.0, 0.05),
            "bins": log_slider("number of bins", 10.0, 0.0, 3.0, step=0.1, readout_format=".0f"),
            "relation": dropdown("neighbours", _RELATION_OPTIONS, "add_remove"),
        }

    def _extra_widgets(self):
        return [self.exercise.widget]

    def _render(self, v: dict[str, Any]) -> View:
        eps, bins, rel = float(v["epsilon"]), max(1, round(float(v["bins"]))), v["relation"]
        # the neighbouring relation changes only the parallel (disjoint-bins) answer, hidden until Reveal
        self.controls["relation"].layout.display = None if self._revealed else "none"
        fig = P.composition_figure(eps, bins, rel, show_parallel=self._revealed)
        seq_sd = math.sqrt(2) * bins / eps
        rows = [("bins as queries on the same data: scale per bin", f"bins/ε = {_fmt(bins / eps)} "
                 f"(standard deviation {_fmt(seq_sd)})")]
        if self._revealed:
            d = S.histogram_sensitivity(rel)
            rows.append(("disjoint bins (parallel): scale per bin", f"Δ/ε = {_fmt(d / eps)} (standard deviation "
                         f"{_fmt(math.sqrt(2) * d / eps)}): {_fmt(bins / d)}× less noise"))
        else:
            rows.append(("disjoint bins (parallel)", "? — answer the question below, then reveal"))
        return View(figures=[fig], readout=_table(rows))


class LocalCentralPanel(Panel):
    """Local randomized response against a central Laplace count, with a predict-then-reveal exercise."""

    title = "Local or central: who adds the noise?"
    intro = ("In <b>central</b> DP a trusted curator counts exactly and adds Laplace noise once. In <b>local</b> "
             "DP each respondent randomizes their own answer (" + cite("warner1965randomized") + "; "
             + cite("kairouz2014extremal") + "; " + cite("wang2017locally") + "): nobody needs to be trusted, but "
             "every answer carries noise, and the noise adds up over n people. K is the number of possible answers "
             "(k-RR's k).")

    def __init__(self, **overrides: Any):
        self.exercise = PredictReveal(
            "A central Laplace count surveys n people. How many people does the local protocol need to estimate "
            "the same fraction just as precisely?", answer=self._answer, explain=self._explain, rel_tol=0.25,
            guess_label="people:")
        self._revealed_at: tuple | None = None
        self.exercise.button.on_click(self._on_reveal)
        super().__init__(**overrides)

    def _on_reveal(self, _button: Any = None) -> None:
        self._revealed_at = tuple(self.values().values())
        self.update()

    def _build_controls(self):
        return {
            "epsilon": slider("ε", 1.0, 0.1, 4.0, 0.05),
            "protocol": dropdown("local protocol", _PROTOCOL_OPTIONS, "krr"),
            "k": log_slider("K, possible answers", 2.0, math.log10(2), 3.0, step=math.log10(2) / 4,
                            readout_format=".0f"),
            "frequency": slider("true fraction f of the answer counted", 0.1, 0.0, 1.0, 0.05),
            "n": log_slider("n, people surveyed centrally", 1000.0, 1.0, 7.0, step=0.25, readout_format=".3g"),
        }

    def _extra_widgets(self):
        return [self.exercise.widget]

    def _vals(self, v: dict[str, Any]):
        return (float(v["epsilon"]), v["protocol"], max(2, round(float(v["k"]))), float(v["frequency"]),
                max(1, round(float(v["n"]))))

    def _answer(self) -> float:
        eps, protocol, k, f, n = self._vals(self.values())
        return LOC.people_needed_local(protocol, n, k, eps, f)

    def _explain(self, answer: float) -> str:
        eps, protocol, k, f, n = self._vals(self.values())
        v1 = LOC.local_variance(protocol, 1, k, eps, f)
        return (f"The central fraction has standard deviation (√2/ε)/n; the local one √(V₁/n) with V₁ = "
                f"{_fmt(v1, 3)} ({cite('wang2017locally', 'Thm 2')}). Equal when n<sub>local</sub> = V₁(εn)²/2 = "
                f"{_big(math.ceil(answer))}: {_fmt(answer / n, 3)}× as many people. The gap grows with n.")

    def _render(self, v: dict[str, Any]) -> View:
        eps, protocol, k, f, n = self._vals(v)
        fig = P.local_central_figure(eps, k, protocol, f, n_mark=n)
        revealed = self._revealed_at == tuple(v.values())
        local_sd = LOC.local_count_std(protocol, n, k, eps, f)
        central_sd = LOC.central_count_std(eps)
        rows = [("central: count error standard deviation", f"√2/ε = {_fmt(central_sd, 3)}, any n"),
                (f"local, same n = {_big(n)}: count error standard deviation", _fmt(local_sd, 3)),
                ("people local DP needs for the central accuracy",
                 _big(math.ceil(self._answer())) if revealed else "? — predict it below, then reveal")]
        self.exercise.question.value = (
            f"<b>Predict, then reveal.</b> A central Laplace count surveys n = {_big(n)} people at ε = "
            f"{_fmt(eps)}. How many people does {P.PROTOCOL_LABELS[protocol]} with K = {k} need to estimate the "
            f"fraction f = {_fmt(f)} just as precisely?")
        hint = None
        if protocol == "krr" and k > 2 * math.exp(eps) + 2:
            hint = ("With many possible answers k-RR's truthful report gets rare (p = e<sup>ε</sup>/(e<sup>ε</sup> + "
                    "K − 1)); OUE's error does not grow with K (" + cite("wang2017locally") + ").")
        return View(figures=[fig], readout=_table(rows), hint=hint)
