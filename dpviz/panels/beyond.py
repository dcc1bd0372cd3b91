"""Lesson 05 "Beyond global sensitivity": six panels, each breaking a naive release of the median.

* :class:`MedianSensitivityPanel` — the mean and the median of data known only to lie in [L, U]: the global
  sensitivity is the whole range, the local sensitivity is a gap between order statistics (predict it);
* :class:`LocalSensitivityLeakPanel` — why noise calibrated to the local sensitivity leaks: an exact two-data-set
  example, both output densities and the privacy loss, unbounded as soon as the scales differ;
* :class:`SmoothSensitivityPanel` — the smooth sensitivity of the median against β<sub>smooth</sub>, and the noise it
  sets (Laplace, (ε, δ)-DP, or Cauchy, ε-DP) against the global-sensitivity Laplace;
* :class:`ProposeTestReleasePanel` — propose–test–release: the exact pass probability against the distance γ to a
  data set whose local sensitivity exceeds the proposed bound, its (2ε, δ) guarantee, and one run;
* :class:`SampleAggregatePanel` — sample-and-aggregate: block estimates and the exact law of the private aggregate;
* :class:`QuantileClippingPanel` — a DP quantile by the exponential mechanism, its exact output density, used to
  choose a clipping bound for a mean;
* :class:`BeyondProblemsPanel` — the lesson's problem set (three numeric answers, a choice, a find-a-setting task on
  PTR's pass probability, a proof idea).

The data are :func:`dpviz.sensitivity.example_dataset` (fixed log-normal quantiles, no randomness); every random draw
happens in :mod:`dpviz.beyond`, seeded by the panel's "draw" slider.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz import beyond as B
from dpviz.panels import Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Slider, View
from dpviz.panels.exercises import ChoiceProblem, FindSetting, NumericAnswer, ProblemSet, ProofIdea, TeachingNotes
from dpviz.panels.format import fmt, table
from dpviz.plots import beyond as P
from dpviz.references import cite
from dpviz.sensitivity import example_dataset

__all__ = ["MedianSensitivityPanel", "LocalSensitivityLeakPanel", "SmoothSensitivityPanel",
           "ProposeTestReleasePanel", "SampleAggregatePanel", "QuantileClippingPanel", "BeyondProblemsPanel"]

_NRS = "Nissim, Raskhodnikova & Smith 2007"
#: The public lower bound of the lessons' data (weekly hours online, say, at least 1).
LOWER = 1.0
#: The median and log-spread of the example data (example_dataset: a skewed, long-tailed law).
MEDIAN, SPREAD = 30.0, 0.9


def data(n: int) -> np.ndarray:
    """The lesson's data: the n fixed log-normal quantiles of :func:`dpviz.sensitivity.example_dataset`."""
    return example_dataset(int(n), MEDIAN, SPREAD)


def _med(x: np.ndarray) -> float:
    return float(np.sort(x)[(x.size + 1) // 2 - 1])


# ============================================================================================ (a)

_GLOBAL_QUESTION = ("Here the data are only known to lie in [L, U]. Which noise scale makes the Laplace release of the "
                    "median ε-DP for every possible data set?")
_GLOBAL_OPTIONS = [
    ("LS(x)/ε: the median of this data set moves by at most LS(x) when one record changes.", False,
     "Tempting, but the scale then depends on the data, and the next panel shows that this leaks. ε-DP with a fixed "
     "scale needs the largest change over all pairs of neighbours: the global sensitivity (Dwork & Roth 2014, "
     "Def. 3.1)."),
    ("(U − L)/ε: on some data set one changed record moves the median across the whole range.", True,
     "Right: with half the records at L and half at U, one record flips the median from L to U, so the global "
     "sensitivity of the median is U − L, and Lap((U − L)/ε) is the Laplace mechanism's scale (Dwork & Roth 2014, "
     "Thm 3.6). On typical data that is far more noise than the median's real movement."),
    ("(U − L)/(nε): the same as the mean.", False,
     "That is the mean's global sensitivity under replace one: one record moves the sum by at most U − L. The "
     "median is robust on typical data but not in the worst case."),
]


class MedianSensitivityPanel(Panel):
    """The mean and median of a neighbour, one record replaced: global against local sensitivity."""

    title = "How far can one record move the median and the mean?"
    intro = ("n people report weekly hours, known only to lie in [L, U] with L = 1. Replace the record at the median "
             "by any value v in the range: the mean follows v, the median cannot pass its two neighbours in sorted "
             "order. Move U: the global sensitivity grows with it, the median's real movement does not.")

    controls = {
        "n": IntSlider("number of people n", 51, 5, 401, step=2),
        "upper": LogSlider("upper bound U", 1000.0, 100.0, 1e6, step=0.25, fmt=".3g"),
        "epsilon": Slider("ε", 1.0, 0.1, 4.0, step=0.1),
    }

    def _answer(self, v) -> float:
        return B.local_sensitivity_median(data(v.n), LOWER, float(v.upper))

    def _explain(self, v, answer: float) -> str:
        return ("LS(x) = max(x<sub>(m+1)</sub> − x<sub>(m)</sub>, x<sub>(m)</sub> − x<sub>(m−1)</sub>): one changed "
                "record can push the median one order statistic up or down, no further (" + _NRS + ", Def. 2.1 and "
                "§3.1). The median's curve is now drawn.")

    exercises = {
        "exercise": PredictReveal(
            "The median's curve is hidden. Replacing one record by anything in [L, U]: by how much can the median "
            "move at most, for this data (its local sensitivity LS(x))? Hint: look at the two data values next to "
            "the median in the readout.", answer=_answer, explain=_explain, rel_tol=0.1, guess_label="LS(x):",
            redraw=True),
        "misconception": ChoiceReveal(_GLOBAL_QUESTION, _GLOBAL_OPTIONS),
    }

    def render(self, v) -> View:
        n, hi, eps = int(v.n), float(v.upper), float(v.epsilon)
        x = data(n)
        shown = self.revealed("exercise")
        fig = P.replace_one_record_figure(x, LOWER, hi, show_median=shown)
        xs = np.sort(x)
        m = (n + 1) // 2
        ls = B.local_sensitivity_median(x, LOWER, hi)
        rows = [("median x<sub>(m)</sub>, m = ⌈n/2⌉", fmt(float(xs[m - 1]))),
                ("its neighbours x<sub>(m−1)</sub>, x<sub>(m+1)</sub>", f"{fmt(float(xs[m - 2]))}, "
                                                                        f"{fmt(float(xs[m]))}"),
                ("global sensitivity: median U − L, mean (U − L)/n", f"{fmt(hi - LOWER)}, {fmt((hi - LOWER) / n)}"),
                ("local sensitivity of the median LS(x)", fmt(ls) if shown else "? — predict below, then reveal"),
                (f"Laplace scale at ε = {fmt(eps, 3)} from the global sensitivity (median)", fmt((hi - LOWER) / eps))]
        return View(figures=[fig], readout=table(rows))


# ============================================================================================ (b)

#: The leak example: five values in [0, 1], multiples of 1/16 so that equal gaps are equal in floating point too.
LEAK_DATA = (0.125, 0.25, 0.5, 0.625, 0.875)

_LEAK_QUESTION = ("On every data set x the noise Lap(LS(x)/ε) covers any change one record can make to the median. "
                  "Is releasing med(x) + Lap(LS(x)/ε) therefore ε-DP?")
_LEAK_OPTIONS = [
    ("Yes: each data set gets exactly the noise its own neighbours need.", False,
     "Tempting, but DP compares the *output laws* on x and x′, and here they have different scales. Their log "
     "ratio grows without bound in the tails (the lower figure): an output far from the median is far more likely "
     "under the wider law, and that tells x from x′. The noise scale itself leaks (" + _NRS + ", §1)."),
    ("No: when LS(x) ≠ LS(x′) the privacy loss is unbounded, so no finite ε holds, and the exact δ at the nominal "
     "ε is positive.", True,
     "Right. The fix is a noise scale that itself changes slowly between neighbours: a smooth upper bound on LS "
     "(the next panel), or testing privately that LS is small before using it (propose–test–release)."),
    ("Yes, but only (ε, δ)-DP with a tiny δ.", False,
     "The readout gives the exact δ at the nominal ε for this pair: small here, but nothing bounds it over all "
     "pairs. With a zero local sensitivity on one side (three equal middle values) the release is the exact "
     "median, and δ = 1."),
]


class LocalSensitivityLeakPanel(Panel):
    """An exact two-data-set example of the leak of local-sensitivity noise."""

    title = "Why noise set by the local sensitivity leaks"
    intro = ("x = (0.125, 0.25, 0.5, 0.625, 0.875) in [0, 1]; its neighbour x′ replaces the record 0.625 by v. Each "
             "release adds Laplace noise scaled to its own data set's local sensitivity. Both output densities and "
             "their privacy loss are exact.")

    controls = {
        "value": Slider("new value v of the record 0.625 in x′", 0.4375, 0.0, 1.0, step=0.0625, fmt=".4g"),
        "epsilon": Slider("ε", 1.0, 0.1, 4.0, step=0.1),
    }
    exercises = {"misconception": ChoiceReveal(_LEAK_QUESTION, _LEAK_OPTIONS)}

    def render(self, v) -> View:
        x = np.array(LEAK_DATA)
        x2 = x.copy()
        x2[3] = float(v.value)
        eps = float(v.epsilon)
        f1 = P.leak_densities_figure(x, x2, eps, 0.0, 1.0)
        f2 = P.leak_privacy_loss_figure(x, x2, eps, 0.0, 1.0)
        leak = B.local_sensitivity_leak(x, x2, eps, 0.0, 1.0)
        rows = [("x′", "(" + ", ".join(fmt(float(t), 3) for t in x2) + ")"),
                ("medians med(x), med(x′)", f"{fmt(leak.median)}, {fmt(leak.median_neighbour)}"),
                ("local sensitivities LS(x), LS(x′)", f"{fmt(leak.local_sensitivity)}, "
                                                      f"{fmt(leak.local_sensitivity_neighbour)}"),
                ("scales b = LS(x)/ε, b′ = LS(x′)/ε", f"{fmt(leak.scale)}, {fmt(leak.scale_neighbour)}"),
                ("largest privacy loss sup<sub>y</sub> |ℓ(y)|", fmt(leak.max_privacy_loss)),
                (f"exact δ at ε = {fmt(eps, 3)}", fmt(leak.delta, 3))]
        hint = None
        if leak.scale == leak.scale_neighbour:
            hint = "Equal scales: the loss is bounded here. Move v so that the local sensitivities differ."
        return View(figures=[f1, f2], readout=table(rows), hint=hint)


# ============================================================================================ (c)


class SmoothSensitivityPanel(Panel):
    """The smooth sensitivity of the median against β<sub>smooth</sub>, and the noise of its release."""

    title = "Smooth sensitivity: a noise scale that may depend on the data"
    intro = ("S*(x) = max over k of e<sup>−k·β<sub>smooth</sub></sup>·A<sup>(k)</sup>(x), where A<sup>(k)</sup>(x) is "
             "the largest local sensitivity of a data set within k changed records. It moves by at most a factor "
             "e<sup>β<sub>smooth</sub></sup> between neighbours, so the noise scale it sets leaks almost nothing "
             "(Nissim, Raskhodnikova & Smith 2007, Def. 2.2–2.3, Cor. 2.4).")

    controls = {
        "n": IntSlider("number of people n", 201, 11, 501, step=10),
        "upper": LogSlider("upper bound U", 1000.0, 100.0, 1e6, step=0.25, fmt=".3g"),
        "epsilon": Slider("ε", 1.0, 0.1, 4.0, step=0.1),
        "noise": Choice("noise", [("Laplace: (ε, δ)-DP", "laplace"), ("Cauchy: ε-DP", "cauchy")], "laplace"),
        "delta": LogSlider("δ", 1e-6, 1e-10, 1e-2, step=0.5, visible=lambda v: v.noise == "laplace"),
    }

    def render(self, v) -> View:
        n, hi, eps = int(v.n), float(v.upper), float(v.epsilon)
        delta = float(v.delta) if v.noise == "laplace" else 0.0
        x = data(n)
        rel = B.smooth_sensitivity_release_parameters(x, eps, delta, LOWER, hi, v.noise)
        f1 = P.smooth_sensitivity_figure(x, LOWER, hi, beta_mark=rel.beta)
        f2 = P.smooth_release_figure(rel, LOWER, hi)
        ls = B.local_sensitivity_median(x, LOWER, hi)
        factor = "2S*/ε" if v.noise == "laplace" else "6S*/ε"
        rows = [("β<sub>smooth</sub> of the release", fmt(rel.beta, 3) + (" = ε/(2 ln(2/δ))" if v.noise == "laplace"
                                                                           else " = ε/6")),
                ("smooth sensitivity S*(x)", fmt(rel.smooth_sensitivity)),
                ("local LS(x) ≤ S*(x) ≤ global U − L", f"{fmt(ls)} ≤ {fmt(rel.smooth_sensitivity)} ≤ "
                                                       f"{fmt(hi - LOWER)}"),
                (f"noise scale {factor}", fmt(rel.scale)),
                ("global Laplace scale (U − L)/ε", fmt((hi - LOWER) / eps)),
                ("guarantee", f"({fmt(eps, 3)}, {fmt(delta, 2)})-DP" if v.noise == "laplace" else
                 f"{fmt(eps, 3)}-DP (δ = 0)")]
        hint = None
        if v.noise == "cauchy":
            hint = "Cauchy noise has no mean or variance: its heavy tails are the price of δ = 0."
        return View(figures=[f1, f2], readout=table(rows), hint=hint)


# ============================================================================================ (d)


_PTR_QUESTION = "PTR's test passed and it released a value. What do you now know about this data set?"
_PTR_OPTIONS = [
    ("Its local sensitivity is at most Δ<sub>prop</sub>, for sure.", False,
     "Not for sure: a data set with LS(x) > Δ<sub>prop</sub> (γ = 0) still passes with probability δ/2. That "
     "failure probability is the δ of the guarantee (Dwork & Roth 2014, §7.2)."),
    ("Only what a (2ε, δ)-DP release reveals: the test is ε-DP (γ has sensitivity 1), the release another ε, and "
     "data sets with LS(x) > Δ<sub>prop</sub> pass with probability at most δ/2.", True,
     "Right. The distance γ itself is never published (it is not private); only the noisy test's outcome and the "
     "noisy median are."),
    ("Nothing: ⊥ and a value are equally likely on every data set.", False,
     "On data far from instability (large γ) the test passes almost surely; near it, it fails. The outcome depends "
     "on the data, but only through the noisy γ, which is ε-DP."),
]


class ProposeTestReleasePanel(Panel):
    """Propose–test–release for the median: exact pass probability, one run."""

    title = "Propose–test–release: use a small sensitivity only after a private test"
    intro = ("Propose a bound Δ<sub>prop</sub> on the median's local sensitivity. γ = the number of records one must "
             "change to reach a data set whose local sensitivity exceeds it. If γ + Lap(1/ε) ≤ ln(1/δ)/ε, refuse "
             "(⊥); otherwise release med(x) + Lap(Δ<sub>prop</sub>/ε) (Dwork & Lei 2009; Dwork & Roth 2014, §7.2).")

    controls = {
        # ε and δ first: they set the curve; n and the bound move this data's γ, drawn on it after the exercise
        "epsilon": Slider("ε", 1.0, 0.1, 4.0, step=0.1),
        "delta": LogSlider("δ", 1e-6, 1e-10, 1e-2, step=0.5),
        "n": IntSlider("number of people n", 1001, 11, 2001, step=10),
        "bound": LogSlider("proposed bound Δ<sub>prop</sub>", 1.0, 0.1, 300.0, step=0.1, fmt=".3g"),
        "seed": IntSlider("draw (random seed of one run)", 0, 0, 50),
    }

    def _gamma(self, v) -> float:
        return B.ptr_distance_median(data(v.n), float(v.bound), LOWER, _UPPER)

    def _explain(self, v, answer: float) -> str:
        return ("γ = min{k : A<sup>(k)</sup>(x) > Δ<sub>prop</sub>}: the smallest number of changed records after "
                "which one more change can move the median by more than Δ<sub>prop</sub> (" + _NRS + ", Def. 3.1). "
                "Its marker is now on the curve.")

    exercises = {
        "exercise": PredictReveal(
            "Before revealing: how many records would you have to change (γ) to reach a data set whose median has a "
            "local sensitivity above Δ<sub>prop</sub>? Hint: near the median the sorted values are about LS(x) "
            "apart, and k changed records can open a gap of k + 1 of those spacings.", answer=_gamma,
            explain=_explain, rel_tol=0.25, guess_label="γ:", redraw=True),
        "misconception": ChoiceReveal(_PTR_QUESTION, _PTR_OPTIONS),
    }

    def render(self, v) -> View:
        n, b, eps, delta = int(v.n), float(v.bound), float(v.epsilon), float(v.delta)
        x = data(n)
        shown = self.revealed("exercise")
        r = B.propose_test_release(x, b, eps, delta, LOWER, _UPPER, rng=int(v.seed))
        fig = P.ptr_pass_figure(eps, delta, distance=r.distance if shown else None)
        outcome = f"released {fmt(r.value)}" if r.passed else "⊥ (refused)"
        rows = [("data", f"n = {n} values in [{fmt(LOWER)}, {fmt(_UPPER)}], median {fmt(_med(x))} (not released)"),
                ("local sensitivity LS(x) (internal)", fmt(B.local_sensitivity_median(x, LOWER, _UPPER))),
                ("γ (internal, never released)", fmt(r.distance) if shown else "? — predict below, then reveal"),
                ("P[test passes] on this data (exact)", fmt(r.pass_probability, 3) if shown else "? (follows γ)"),
                ("threshold ln(1/δ)/ε", fmt(r.threshold)),
                ("release noise Lap(Δ<sub>prop</sub>/ε)", f"scale {fmt(r.scale)} (global: {fmt(_UPPER - LOWER)})"),
                ("this run", outcome),
                ("guarantee", f"({fmt(2 * eps, 3)}, {fmt(delta, 2)})-DP")]
        hint = None
        if math.isinf(r.distance):
            hint = "Δ<sub>prop</sub> ≥ U − L: no data set exceeds it, so the test always passes, with global noise."
        return View(figures=[fig], readout=table(rows), hint=hint)


#: The public upper bound of the PTR, sample-and-aggregate and quantile panels.
_UPPER = 1000.0


# ============================================================================================ (e)

_SA_QUESTION = "You double the number of blocks B (same data, same ε). What happens to the noisy mean of the blocks?"
_SA_OPTIONS = [
    ("Its noise halves (scale (U − L)/(Bε)), but each block has half the records, so each estimate is noisier "
     "(and, for a median of skewed data, can be biased).", True,
     "Right: one record changes one block's estimate, by at most U − L, so the average of B estimates has "
     "sensitivity (U − L)/B. More blocks: less privacy noise, worse estimates (Dwork & Roth 2014, §7.1)."),
    ("Its noise doubles: more blocks means more releases to pay for.", False,
     "The blocks are disjoint: one record is in one block only, so it moves one estimate. Only the one aggregate "
     "is released."),
    ("Nothing changes: the noise depends only on U − L and ε.", False,
     "The noise is (U − L)/(Bε): each estimate counts for 1/B of the average."),
]


class SampleAggregatePanel(Panel):
    """Sample-and-aggregate: block estimates and the exact law of the private aggregate."""

    title = "Sample and aggregate: any statistic, privately, from disjoint blocks"
    intro = ("Split the n records at random into B disjoint blocks, compute the statistic (median or mean) on each "
             "block, and release a private aggregate of the B estimates: their mean + Lap((U − L)/(Bε)), or their "
             "DP median by the exponential mechanism. One record changes one estimate only (" + _NRS + ", §4; "
             "Dwork & Roth 2014, §7.1).")

    controls = {
        "n": IntSlider("number of people n", 5000, 1000, 10000, step=100),
        "blocks": LogSlider("blocks B", 100, 10 ** 0.3, 1000.0, step=0.1, fmt=".0f", integer=True,
                            bench=[2.0, 100.0, 1000.0]),
        "epsilon": Slider("ε", 1.0, 0.1, 4.0, step=0.1),
        "statistic": Choice("statistic per block", [("median", "median"), ("mean", "mean")], "median"),
        "aggregate": Choice("private aggregate", [("noisy mean", "mean"), ("DP median", "median")], "mean"),
        "seed": IntSlider("draw (shuffle and noise)", 0, 0, 50),
    }
    exercises = {"misconception": ChoiceReveal(_SA_QUESTION, _SA_OPTIONS)}

    def render(self, v) -> View:
        n, k, eps = int(v.n), int(v.blocks), float(v.epsilon)
        x = data(n)
        r = B.sample_and_aggregate(x, k, eps, LOWER, _UPPER, statistic=v.statistic, aggregate=v.aggregate,
                                   rng=int(v.seed))
        truth = _med(x) if v.statistic == "median" else float(np.mean(x))
        fig = P.sample_aggregate_figure(r, LOWER, _UPPER, truth=truth)
        rows = [(f"{v.statistic} of all the data (not released)", fmt(truth)),
                ("block sizes", f"{n // k} or {-(-n // k)} records"),
                ("average of the block estimates (internal)", fmt(float(np.mean(r.estimates)))),
                ("this draw's release", fmt(r.value)),
                ("noise", f"Lap({fmt(r.scale)}) = Lap((U − L)/(Bε))" if r.scale is not None else
                 "exponential mechanism over [L, U] (exact law in the figure)"),
                ("guarantee", f"{fmt(eps, 3)}-DP (replace one record)")]
        return View(figures=[fig], readout=table(rows))


# ============================================================================================ (f)


class QuantileClippingPanel(Panel):
    """A DP quantile by the exponential mechanism, and a clipping bound chosen with it."""

    title = "A DP quantile, and a clipping bound chosen privately"
    intro = ("The exponential mechanism outputs a point y of [L, U] with density ∝ e<sup>−ε|i − qn|/2</sup>, i the "
             "number of data values below y (Smith 2011; McSherry & Talwar 2007). Used at q = 0.9 it picks a "
             "clipping bound C for a mean without looking at the data for free: the bound costs its own ε.")

    controls = {
        "n": IntSlider("number of people n", 201, 11, 1001, step=10),
        "q": Slider("quantile q", 0.9, 0.0, 1.0, step=0.01),
        "epsilon": Slider("ε of the quantile", 1.0, 0.1, 4.0, step=0.1),
        "upper": LogSlider("public upper bound U", 1000.0, 100.0, 1e6, step=0.25, fmt=".3g"),
        "seed": IntSlider("draw (random seed)", 0, 0, 50),
    }

    def _tail(self, v) -> float:
        law = B.dp_quantile_law(data(v.n), float(v.q), float(v.epsilon), LOWER, float(v.upper))
        return float(law.probabilities[-1])

    def _explain(self, v, answer: float) -> str:
        return ("The interval above the largest value has length U − max(x) and weight e<sup>−ε|n − qn|/2</sup>: a "
                "loose U makes it long, and the mechanism then often picks a bound far above the data "
                "(Smith 2011). Its probability is now in the caption.")

    exercises = {
        "exercise": PredictReveal(
            "Before revealing: what is the probability that the DP quantile lands above every data value (in "
            "[max(x), U])? Try it at the default U, then again at U = 10⁶.", answer=_tail, explain=_explain,
            rel_tol=0.25, guess_label="P:", redraw=True),
    }

    def render(self, v) -> View:
        n, q, eps, hi = int(v.n), float(v.q), float(v.epsilon), float(v.upper)
        x = data(n)
        c = B.choose_clipping_bound(x, eps, q, LOWER, hi, rng=int(v.seed))
        fig = P.quantile_law_figure(x, q, eps, LOWER, hi, mark=c, show_tail=self.revealed("exercise"))
        xs = np.sort(x)
        true_q = float(xs[min(n - 1, max(0, math.ceil(q * n) - 1))])
        clipped = np.clip(x, LOWER, c)
        rows = [(f"true {fmt(q, 3)}-quantile (not released)", fmt(true_q)),
                ("this draw: clipping bound C", fmt(c)),
                ("records above C (clipped)", f"{int(np.sum(x > c))} of {n}"),
                ("bias of the clipped mean, mean(clip(x, L, C)) − mean(x)", fmt(float(clipped.mean() - x.mean()))),
                (f"Laplace scale of the clipped mean at ε = {fmt(eps, 3)}: (C − L)/(nε)", fmt((c - LOWER) / (n * eps))),
                ("with C = U instead", fmt((hi - LOWER) / (n * eps))),
                ("total privacy cost", f"{fmt(2 * eps, 3)}-DP: ε for C, ε for the mean (basic composition)")]
        return View(figures=[fig], readout=table(rows))


# ============================================================================================ the problem set

_LS = cite("nissim2007smooth", "Def. 2.1")
_LS_MEDIAN = cite("nissim2007smooth", "§3.1")
_SMOOTH = cite("nissim2007smooth", "Cor. 2.4")
_PTR = cite("dwork2009differential") + "; " + cite("dwork2014algorithmic", "§7.2")
_LAPLACE = cite("dwork2014algorithmic", "Thm 3.6")
_EM = cite("dwork2014algorithmic", "Thm 3.10")
_QUANTILE = cite("smith2011privacy") + "; " + cite("mcsherry2007mechanism")

#: The find-a-setting task: ε at most this, δ at most this, and PTR's test passes with probability at least this.
_TASK_EPS, _TASK_DELTA, _TASK_P = 0.5, 1e-6, 0.99


def _pass(v) -> float:
    """P[γ + Lap(1/ε) > ln(1/δ)/ε] at the problems panel's settings."""
    return float(B.ptr_pass_probability(int(v.gamma), float(v.epsilon), float(v.delta)))


def _passes_often(_panel, v) -> bool:
    """Problem 5: ε ≤ 0.5, δ ≤ 10⁻⁶ and the test passes with probability at least 0.99."""
    return (float(v.epsilon) <= _TASK_EPS + 1e-9 and float(v.delta) <= _TASK_DELTA * (1 + 1e-9)
            and _pass(v) >= _TASK_P)


_PROBLEMS = ProblemSet("Problems: beyond global sensitivity", {
    "local": NumericAnswer(
        "Five values known to lie in [L, U] = [0, 100] are x = (2, 3, 7, 8, 20), and neighbours replace one record. "
        "What is the local sensitivity LS(x) of the median?",
        4.0, abs_tol=0.01, label="LS(x) =",
        traps=[(100.0, "That is U − L, the median's <i>global</i> sensitivity: the worst case over every data set. "
                       "LS(x) fixes this data set: one record can push its median only to a neighbouring order "
                       "statistic."),
               (1.0, "That is x<sub>(m+1)</sub> − x<sub>(m)</sub> = 8 − 7, the gap above the median only. Replacing "
                     "a record above the median by a small value pulls the median down to x<sub>(m−1)</sub> = 3: "
                     "LS(x) is the larger of the two gaps."),
               (20.0, "That is (U − L)/n = 100/5, the global sensitivity of the <i>mean</i> under replace one. The "
                      "median does not follow a changed value; it moves to a neighbouring order statistic.")],
        solution="n = 5, so the median is x<sub>(m)</sub> with m = 3: med(x) = 7. One replaced record moves it at most "
                 "to x<sub>(m+1)</sub> = 8 (a value below the median raised past it) or to x<sub>(m−1)</sub> = 3 (a "
                 "value above it lowered past it), so LS(x) = max(8 − 7, 7 − 3) = 4 (" + _LS + "; " + _LS_MEDIAN
                 + "). The global sensitivity is U − L = 100, 25 times more.",
        notes=TeachingNotes(
            timing="2 min",
            wrong=("100: the global sensitivity U − L.", "1: only the gap above the median.",
                   "20: the mean's (U − L)/n."),
            ask="Change one record of x so that LS becomes 13. Which record, and what does that say about how "
                "LS(x) itself moves between neighbours?")),
    "leak": ChoiceProblem(
        "Why is releasing med(x) + Lap(LS(x)/ε) not ε-DP, although LS(x) bounds how far the median of x can move?",
        [("The noise scale b = LS(x)/ε is itself a function of the data: a neighbour x′ can have b′ ≠ b, and then "
          "the privacy loss ℓ(y) grows without bound in the tails", True,
          "Right: ℓ(y) = ln(b′/b) − |y − med(x)|/b + |y − med(x′)|/b′ grows like |y|·|1/b′ − 1/b| when b ≠ b′, so "
          "no finite ε holds on that pair (" + cite("nissim2007smooth", "§1") + "). The medians are covered; the "
          "scale leaks."),
         ("The median of a neighbour can move by more than LS(x)", False,
          "Tempting, but no: LS(x) is by definition the largest |med(x) − med(x′)| over the neighbours x′ of x (" + _LS
          + "). On the lesson's pair the shift of the centre is covered; what breaks the bound is that the two "
          "densities have different widths."),
         ("Laplace noise is unbounded; Gaussian noise scaled to LS(x) would be private", False,
          "Tempting, because lesson 03's Gaussian mechanism trades a δ for lighter tails. But two Gaussians of "
          "different widths have a log ratio that grows like y² in the tails: the data-dependent scale leaks the same "
          "way.")],
        notes=TeachingNotes(
            timing="3 min",
            wrong=("'The median moves by more than LS(x)': the shift is covered, the scale is not.",
                   "'Use Gaussian noise instead': the widths still differ between neighbours."),
            ask="On the lesson's pair, which outputs y reveal that the data were x and not x′? What would an "
                "attacker have to see?")),
    "beta": NumericAnswer(
        "The smooth-sensitivity release of the median with Laplace noise, at ε = 1 and δ = 10⁻⁶, must use which "
        "smoothness β<sub>smooth</sub>?",
        1.0 / (2.0 * math.log(2.0 / 1e-6)), rel_tol=0.01, label="β<sub>smooth</sub> =",
        traps=[(1.0 / (2.0 * math.log(1.0 / 1e-6)), "That is ε/(2 ln(1/δ)): the 2 of ln(2/δ) dropped. The Laplace "
                                                    "noise's dilation fails with probability δ/2, hence ln(2/δ)."),
               (1.0 / 6.0, "That is ε/6, the smoothness of the <i>Cauchy</i> release (ε-DP, δ = 0). The Laplace "
                           "release is (ε, δ)-DP and uses ε/(2 ln(2/δ))."),
               (1.0 / math.log(2.0 / 1e-6), "That is ε/ln(2/δ), twice the right value: the 2 in the denominator "
                                            "2 ln(2/δ) forgotten.")],
        solution="β<sub>smooth</sub> = ε/(2 ln(2/δ)) = 1/(2 ln(2·10⁶)) = 1/(2·14.51) ≈ 0.0345, and the noise is "
                 "(2S*(x)/ε)·Z with Z ~ Lap(1) (" + _SMOOTH + "). At the lesson's defaults S*(x) = 30.9, so the "
                 "scale is 61.8: far below the global 999.",
        notes=TeachingNotes(
            timing="2 min",
            wrong=("0.0362: ln(1/δ) for ln(2/δ).", "0.167: the Cauchy release's ε/6.", "0.0689: the factor 2 "
                   "forgotten."),
            ask="Why does a smaller β<sub>smooth</sub> make S*(x) larger? Which far-away data sets start to count?")),
    "ptr_pass": NumericAnswer(
        "PTR at ε = 1 and δ = 10⁻⁶, on a data set whose distance to a local sensitivity above Δ<sub>prop</sub> is "
        "γ = 10. With what probability does the test pass?",
        0.5 * 1e-6 * math.exp(10.0), rel_tol=0.02, label="P[pass] =",
        traps=[(1e-6 * math.exp(10.0), "That is δe<sup>εγ</sup>, without the ½: below the threshold, "
                                       "P[Lap(1/ε) > ln(1/δ)/ε − γ] = ½e<sup>−(ln(1/δ) − εγ)</sup> = "
                                       "½δe<sup>εγ</sup>."),
               (1.0 - 0.5 * math.exp(-10.0), "That is P[γ + Lap(1/ε) > 0]: the test compares with ln(1/δ)/ε = 13.8, "
                                             "not with 0. γ = 10 is still below the threshold."),
               (0.5e-6, "That is δ/2, the pass probability at γ = 0. The data are 10 changes away from instability, "
                        "and each change multiplies the chance by e<sup>ε</sup>.")],
        solution="Below the threshold (εγ = 10 ≤ ln(1/δ) = 13.8) P[pass] = P[γ + Lap(1/ε) > ln(1/δ)/ε] = "
                 "½δe<sup>εγ</sup> = ½·10⁻⁶·e¹⁰ ≈ 0.0110 (" + _PTR + "). The whole run is (2ε, δ)-DP = (2, 10⁻⁶)-DP "
                 "whatever the outcome; here it mostly refuses (⊥).",
        notes=TeachingNotes(
            timing="3 min",
            wrong=("0.022: the ½ of the Laplace tail forgotten.", "0.99998: the test read as γ + noise > 0.",
                   "5·10⁻⁷: γ taken as 0."),
            ask="How large must γ be for the test to pass half the time? (At γ = ln(1/δ)/ε, exactly ½.)")),
    "setting": FindSetting(
        f"With ε at most {_TASK_EPS:g} and δ at most 10⁻⁶, how far from instability must the data be? Set the panel "
        f"so that PTR's test passes with probability at least {_TASK_P:g}.",
        _passes_often, live=True,
        hint="Above the threshold P[pass] = 1 − e<sup>−εγ</sup>/(2δ). Which control moves the data away from a "
             "large local sensitivity, without raising ε or δ?",
        solution="P[pass] ≥ 0.99 needs e<sup>−εγ</sup>/(2δ) ≤ 0.01, that is εγ ≥ ln(50/δ) = ln(5·10⁷) ≈ 17.7 ("
                 + _PTR + "). At ε = 0.5 and δ = 10⁻⁶: γ ≥ 35.5, so γ = 36 does it (P[pass] ≈ 0.992; γ = 35 "
                 "gives 0.987). A smaller ε or δ needs a larger γ.",
        notes=TeachingNotes(
            timing="4 min",
            wrong=("Raising ε or δ: the task fixes both limits.",
                   "γ = ln(1/δ)/ε = 27.6, the threshold itself: there the test passes only half the time."),
            ask="For the median, what makes γ large: many records, a larger Δ<sub>prop</sub>, or both?")),
    "em_quantile": NumericAnswer(
        "The DP median (q = 0.5) of x = (2, 4, 6) in [L, U] = [0, 10] by the exponential mechanism at ε = 2. With "
        "what probability does the output land in [x<sub>(1)</sub>, x<sub>(2)</sub>] = [2, 4]?",
        2 * math.exp(-0.5) / (6 * math.exp(-1.5) + 4 * math.exp(-0.5)), rel_tol=0.02, label="P =",
        traps=[(math.exp(-0.5) / (2 * math.exp(-0.5) + 2 * math.exp(-1.5)),
                "That weighs each interval by e<sup>−ε|i − qn|/2</sup> alone. The density is constant on an "
                "interval, so its probability is also proportional to its length: the interval [6, 10] is twice as "
                "long as the others."),
               (2 * math.exp(-1.0) / (6 * math.exp(-3.0) + 4 * math.exp(-1.0)),
                "That uses e<sup>−ε|i − qn|</sup>, without the ½. The score −|i − qn| has sensitivity 1 and may move "
                "either way, so the exponential mechanism weighs by e<sup>ε·u/2</sup>."),
               (0.2, "That is the length 2 over U − L = 10: a uniform output, what the mechanism does as ε → 0. At "
                     "ε = 2 the ranks matter.")],
        solution="With qn = 1.5 the intervals [0, 2], [2, 4], [4, 6], [6, 10] hold i = 0, 1, 2, 3 values below, with "
                 "weights (length)·e<sup>−ε|i − qn|/2</sup> = 2e<sup>−1.5</sup>, 2e<sup>−0.5</sup>, "
                 "2e<sup>−0.5</sup>, 4e<sup>−1.5</sup> (" + _QUANTILE + "). So P = 2e<sup>−0.5</sup>/(6e<sup>−1.5"
                 "</sup> + 4e<sup>−0.5</sup>) = 1.213/3.765 ≈ 0.322. The long top interval [6, 10] alone gets 0.237.",
        notes=TeachingNotes(
            timing="4 min",
            wrong=("0.366: the lengths of the intervals left out.", "0.416: e<sup>−ε|i − qn|</sup> without the ½.",
                   "0.2: a uniform output."),
            ask="What happens to the top interval's probability at U = 1000? Why is that a problem for choosing a "
                "clipping bound?")),
    "proof": ProofIdea(
        "PTR's test adds Lap(1/ε) to γ, the number of records one must change to reach a data set whose local "
        "sensitivity exceeds Δ<sub>prop</sub>. Why does γ have sensitivity 1, so that the test is ε-DP? Write the "
        "key step, or pick it.",
        "Let x and x′ be neighbours, and let y be a data set with LS(y) > Δ<sub>prop</sub> reached from x′ by "
        "changing γ(x′) records. From x, change first the one record in which x and x′ differ, then those γ(x′) "
        "records: y is at most γ(x′) + 1 changes from x, so γ(x) ≤ γ(x′) + 1. By symmetry γ(x′) ≤ γ(x) + 1, so "
        "|γ(x) − γ(x′)| ≤ 1. γ + Lap(1/ε) is then the Laplace mechanism, ε-DP (" + _LAPLACE + "), and comparing it "
        "with ln(1/δ)/ε is post-processing (" + cite("dwork2014algorithmic", "Prop. 2.1") + "). The release "
        "med(x) + Lap(Δ<sub>prop</sub>/ε) costs another ε whenever LS(x) ≤ Δ<sub>prop</sub>, and when LS(x) > "
        "Δ<sub>prop</sub> (γ = 0) the test passes with probability δ/2 only: (2ε, δ)-DP (" + _PTR + ").",
        steps=[("the distance to the unstable data sets obeys the triangle inequality", True,
                "Right: one change takes x to x′, so any data set k changes from x′ is at most k + 1 changes from x; "
                "both ways, γ moves by at most 1."),
               ("γ is a whole number, so it moves by at most 1", False,
                "Tempting, but being a whole number bounds nothing: LS(x) rounded to a whole number is one too, and "
                "it jumps from 4 to 13 when problem 1's record 8 becomes 20. What bounds γ's jump is that the "
                "neighbour is itself one change away."),
               ("LS(x) moves by at most 1 between neighbours", False,
                "Tempting, but false: LS can jump a lot between neighbours (problem 1: one record moves LS(x) from 4 "
                "to 13), and that is exactly why noise scaled to it leaks. γ counts changes, not sensitivities.")],
        notes=TeachingNotes(
            timing="6 min (pairs, then one pair at the board)",
            wrong=("'γ is an integer': true, and no bound on its jump.",
                   "'LS is stable': the opposite of problem 2's lesson."),
            ask="Where would the argument fail if γ were defined with the <i>global</i> instead of the local "
                "sensitivity? (It would be a constant, and the test useless.)")),
}, intro="Each problem is checked as soon as you answer; a wrong answer can be tried again, and the solution opens "
         "after your first attempt. Problem 5 is about this panel's settings.")


class BeyondProblemsPanel(Panel):
    """The lesson's problem set, with PTR's exact pass probability against the distance γ for its find-a-setting
    task."""

    title = "Problems: beyond global sensitivity"
    intro = ("PTR's test passes when γ + Lap(1/ε) > ln(1/δ)/ε. The curve is its exact pass probability against the "
             "distance γ; the marker is the γ set below (" + _PTR + ").")

    controls = {
        "epsilon": Slider("ε", 1.0, 0.1, 2.0, step=0.05),
        "delta": LogSlider("δ", 1e-6, 1e-10, 1e-2, step=0.5),
        "gamma": IntSlider("distance γ", 10, 0, 60),
    }
    exercises = {"problems": _PROBLEMS}

    def render(self, v) -> View:
        eps, delta, gamma = float(v.epsilon), float(v.delta), int(v.gamma)
        fig = P.ptr_pass_figure(eps, delta, distance=gamma, max_distance=60)
        rows = [("threshold ln(1/δ)/ε", fmt(math.log(1.0 / delta) / eps)),
                ("P[test passes] at γ (exact)", fmt(_pass(v), 3)),
                ("guarantee", f"({fmt(2 * eps, 3)}, {fmt(delta, 2)})-DP")]
        return View(figures=[fig], readout=table(rows))
