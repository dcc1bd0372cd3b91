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
  choose a clipping bound for a mean.

The data are :func:`dpviz.sensitivity.example_dataset` (fixed log-normal quantiles, no randomness); every random draw
happens in :mod:`dpviz.beyond`, seeded by the panel's "draw" slider.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz import beyond as B
from dpviz.panels import Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Slider, View
from dpviz.panels.format import fmt, table
from dpviz.plots import beyond as P
from dpviz.sensitivity import example_dataset

__all__ = ["MedianSensitivityPanel", "LocalSensitivityLeakPanel", "SmoothSensitivityPanel",
           "ProposeTestReleasePanel", "SampleAggregatePanel", "QuantileClippingPanel"]

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
