"""Lesson 02 "Counting with noise": five panels.

* :class:`SensitivityPanel` — pick a query, the neighbouring relation and clipping bounds: Δ, the Laplace noise it
  needs, and for sums and means what clipping costs (bias) against what it saves (noise);
* :class:`PostProcessingPanel` — clamping, rounding and a consistent histogram never cost privacy; clamping lowers
  the error, rounding raises it at every ε of the slider, and a consistent two-level histogram beats the bins
  released alone at the same ε only for wide ranges (exact MSE and variances), with two exercises;
* :class:`CompositionPanel` — sequential against parallel composition for a histogram, with the misconception
  exercise "a histogram over 10 bins costs 10ε?";
* :class:`LocalCentralPanel` — local k-RR / OUE against a central Laplace count, with a predict-then-reveal
  exercise on the number of people local DP needs;
* :class:`CountingProblemsPanel` — the lesson's problem set (two numeric answers, two choices, a find-a-setting
  task on the panel's Laplace noise, a proof idea), with teaching notes for the teacher's edition.

Every number is a closed form from :mod:`dpviz.sensitivity` and :mod:`dpviz.local`. The learner reads K for the
number of possible answers (the course's domain size; the mechanism keeps its name k-RR), and p, q for k-RR's two
report probabilities (Wang et al.'s names, local to lesson 02: not the sampling rate q of later lessons).
"""

from __future__ import annotations

import math

from dpviz import local as LOC
from dpviz import sensitivity as S
from dpviz.panels import Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Slider, View
from dpviz.panels.exercises import ChoiceProblem, FindSetting, NumericAnswer, ProblemSet, ProofIdea, TeachingNotes
from dpviz.panels.format import big, fmt, table
from dpviz.plots import counting as P
from dpviz.references import cite

__all__ = ["SensitivityPanel", "PostProcessingPanel", "CompositionPanel", "LocalCentralPanel", "CountingProblemsPanel"]

#: The lesson's fixed data set: 1,001 skewed values (median 30), the quantiles of a log-normal law (no randomness).
DATA = S.example_dataset(1001)

_QUERY_OPTIONS = [("count of people with a property", "count"), ("sum of values clipped to [L, U]", "sum"),
                  ("mean of n values clipped to [L, U]", "mean"), ("histogram (fixed bins)", "histogram")]
_RELATION_OPTIONS = [("add or remove one record", "add_remove"), ("replace one record", "replace")]
_POST_OPTIONS = [("clamp at 0 or round a noisy count", "clamp"), ("make a histogram consistent with its total",
                                                                  "consistency")]
_PROTOCOL_OPTIONS = [("k-ary randomized response (k-RR)", "krr"), ("optimised unary encoding (OUE)", "oue")]


def _clipped(v) -> bool:
    """The clipping bounds apply to sums and means."""
    return v.query in ("sum", "mean")


def _upper_min(v) -> float:
    """U ≥ L on the sliders themselves: U's slider starts at L (at 1, its own lower end, while L ≤ 1)."""
    return v.lower if v.lower > 1 else 1.0


class SensitivityPanel(Panel):
    """Δ of a query under a neighbouring relation, the Laplace noise it needs, and the clipping trade-off."""

    title = "Sensitivity: how far can one person move the answer?"
    intro = ("The noise must hide any one person, so it is scaled to the <b>sensitivity</b> Δ: the most the answer "
             "can change between neighbouring data sets (" + cite("dwork2014algorithmic", "Def. 3.1") + "). Which "
             "data sets are neighbours is a choice: one record added or removed, or one record replaced. Sums "
             "and means need bounds [L, U]: values outside are clipped, which biases the answer but caps Δ.")

    controls = {
        "epsilon": Slider("ε", 1.0, 0.1, 4.0, step=0.05),
        "query": Choice("query", _QUERY_OPTIONS, "sum"),
        "relation": Choice("neighbours", _RELATION_OPTIONS, "add_remove"),
        "lower": Slider("lower clipping bound L", 0.0, -100.0, 50.0, step=5.0, fmt=".0f", visible=_clipped),
        "upper": LogSlider("upper clipping bound U", 100.0, _upper_min, 1000.0, step=0.05, fmt=".3g",
                           visible=_clipped),
        "n": LogSlider("n (public size, for the mean)", 1000.0, 10.0, 1e6, step=0.25, fmt=".3g", integer=True,
                       visible=lambda v: v.query == "mean"),
    }

    def render(self, v) -> View:
        query, rel, eps = v.query, v.relation, float(v.epsilon)
        clipped = query in ("sum", "mean")
        lo, hi = float(v.lower), float(v.upper)
        n = max(2, v.n)
        if clipped and hi < lo - 1e-9 * max(1.0, abs(lo)):
            raise ValueError(f"upper clipping bound U = {hi:.3g} is below L = {lo:.3g}: must be U ≥ L.")
        hi = max(hi, lo)  # U's log slider, started at L, lands a rounding error below it
        delta = S.query_sensitivity(query, lo, hi, n, rel)
        label = dict((k, lbl) for lbl, k in _QUERY_OPTIONS)[query]
        rows = [("query", label), ("neighbours", P.RELATION_LABELS[rel]), ("sensitivity Δ", fmt(delta))]
        if delta == 0:
            # e.g. a sum clipped to [0, 0]: nothing to hide; no noise
            figs = [P.note_figure("Noise the release needs", "Δ = 0: the clipped answer does not depend on anyone's "
                                  "data, so no noise is needed (and it says nothing).")]
        else:
            b = S.laplace_scale(delta, eps)
            rows += [("Laplace scale b = Δ/ε", fmt(b)), ("noise standard deviation √2·b", fmt(math.sqrt(2) * b))]
            figs = [P.noise_figure(delta, eps, label=f"a {query}")]
        if clipped:
            data_q = "sum" if query == "sum" else "mean"
            figs.append(P.clipping_figure(DATA, lo, hi, eps, data_q, rel))
            err = S.clipping_error(DATA, lo, hi, eps, data_q, rel)
            rows.append(("on the lesson's data: bias² + noise variance",
                         f"{fmt(err['bias2'], 3)} + {fmt(err['noise_var'], 3)} = {fmt(err['total'], 3)}"))
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
        return View(figures=figs, readout=table(rows), hint=hint)


def _rounding_ratio(eps: float) -> float:
    b = S.laplace_scale(1.0, eps)
    return S.rounded_laplace_mse(b) / (2.0 * b * b)


_CLAMP_QUESTION = ("A noisy count came out as −3 and we report max(−3, 0) = 0. Clamping looked at the answer again: "
                   "what does it cost in privacy?")
_CLAMP_OPTIONS = [
    ("An extra ε: it is a second query", False,
     "Tempting, because something was computed after the release. But clamping reads only the released "
     "number, never the data: nothing new is learnt about anyone, so it costs nothing ("
     + cite("dwork2014algorithmic", "Prop. 2.1") + ")."),
    ("Nothing: it only uses the released number", True,
     "Right: post-processing cannot weaken DP (" + cite("dwork2014algorithmic", "Prop. 2.1") + "). The "
     "figure shows it can even lower the error near 0: b² instead of 2b² at a true count of 0."),
    ("It breaks DP when the true count is 0", False,
     "Tempting, because a 0 is reported exactly when the truth is small. But the 0 is a function of the "
     "noisy answer alone, whose distribution already satisfies ε-DP; any function of it does too."),
]


def _rounding_why() -> str:
    """The exact numbers behind the rounding exercise's feedback (closed forms of :mod:`dpviz.sensitivity`)."""
    eps_star = 1.0 / S.rounding_breakeven_scale()
    at1, at4 = (100.0 * (_rounding_ratio(e) - 1.0) for e in (1.0, 4.0))
    return (f"At ε = 1 the rounded count's mean squared error is {fmt(S.rounded_laplace_mse(1.0), 3)} against "
            f"2b² = 2 (+{at1:.1f} %), at ε = 4 it is +{at4:.0f} %. Rounding helps only when the noise is small, "
            f"b below {S.rounding_breakeven_scale():.3f}, so for a count ε above {eps_star:.2f}.")


_WHY = _rounding_why()
_ROUNDING_QUESTION = ("Does rounding ever help here? A noisy count is rounded to the nearest integer, a whole number "
                      "like the truth. For ε on this panel's slider (0.1 to 4), does rounding lower the mean squared "
                      "error?")
_ROUNDING_OPTIONS = [
    ("Yes, at every ε: it uses what we know about the truth", False,
     "Tempting: clamping used what we know (a count is ≥ 0) and gained. But rounding pushes an answer "
     "that is near the truth away from it about as often as it pulls it closer. " + _WHY
     + " Post-processing costs no privacy, but it can add error."),
    ("No, nowhere on this slider; only with much less noise", True,
     "Right. " + _WHY + " Post-processing costs no privacy, but it can add error as well as remove it."),
    ("It depends on the true count", False,
     "Tempting, because the gain of clamping depends on the true count. But for an integer truth x, "
     "round(x + N) − x = round(N): the error does not depend on x, which is why the rounded curve is "
     "flat. " + _WHY),
]


class _ShownWhen(ChoiceReveal):
    """A misconception exercise shown only while ``shown(v)`` holds for the panel's settings (re-checked after each
    render, as a settings-dependent question is)."""

    def __init__(self, question, options, *, shown, **kwargs):
        self.shown = shown
        super().__init__(question, options, **kwargs)

    def refresh(self) -> None:
        super().refresh()
        self.widget.layout.display = None if self.shown(self._values()) else "none"


def _consistency(v) -> bool:
    return v.step == "consistency"


class PostProcessingPanel(Panel):
    """Clamping, rounding and consistency of noisy counts: free in privacy, exact error (lower or higher)."""

    title = "Post-processing is free in privacy, not always in error"
    intro = ("Anything computed from a private release alone, without the data, is as private as the release ("
             + cite("dwork2014algorithmic", "Prop. 2.1") + "). Clamping a count at 0, rounding it, or making a "
             "histogram agree with its total are such steps. Here is what they do to the error: it can go down, "
             "and it can go up.")

    controls = {
        "epsilon": Slider("ε", 1.0, 0.1, 4.0, step=0.05),
        "step": Choice("post-processing", _POST_OPTIONS, "clamp"),
        "bins": IntSlider("bins B of the histogram", 8, 2, 64, visible=_consistency),
        "relation": Choice("neighbours", _RELATION_OPTIONS, "add_remove", visible=_consistency),
    }
    # Once the rounding question is answered, the rounded count is drawn and tabulated for good.
    exercises = {
        "rounding": _ShownWhen(_ROUNDING_QUESTION, _ROUNDING_OPTIONS, shown=lambda v: not _consistency(v),
                               redraw=True, sticky=True),
        "exercise": ChoiceReveal(_CLAMP_QUESTION, _CLAMP_OPTIONS),
    }

    def render(self, v) -> View:
        eps, bins, rel = float(v.epsilon), int(v.bins), v.relation
        rounded_shown = self.revealed("rounding")
        hint = None
        if not _consistency(v):
            b = S.laplace_scale(1.0, eps)
            fig = P.clamping_figure(eps, show_rounded=rounded_shown)
            rounded = S.rounded_laplace_mse(b)
            rows = [("count: MSE as released (2b²)", fmt(2 * b * b, 3)),
                    ("count: MSE clamped at 0, true count 0 (b²)", fmt(S.clamped_laplace_mse(0.0, b), 3)),
                    ("count: MSE rounded to an integer",
                     f"{fmt(rounded, 3)} ({100.0 * (rounded / (2 * b * b) - 1.0):+.1f} % against 2b²)"
                     if rounded_shown else "? — answer the question below, then reveal")]
        else:
            fig = P.consistency_figure(bins, eps, rel)
            var2 = 2.0 * S.laplace_scale(2.0, eps) ** 2  # Lap(2/ε)
            half = max(1, bins // 2)
            if rel == "add_remove":
                var1 = 2.0 * S.laplace_scale(1.0, eps) ** 2  # bins alone: Δ = 1, Lap(1/ε)
                cross = 0.75 * (bins + 1)
                rows = [("one bin: bins alone at the same ε → hierarchy made consistent",
                         f"{fmt(var1, 3)} → {fmt(S.hierarchy_range_variance(bins, 1, var2), 3)}"),
                        (f"{half} bins: bins alone → consistent",
                         f"{fmt(S.raw_range_variance(bins, half, var1), 3)} → "
                         f"{fmt(S.hierarchy_range_variance(bins, half, var2), 3)}"),
                        ("the consistent hierarchy beats the bins alone",
                         f"for r > ¾(B + 1) = {fmt(cross, 4)}" if cross < bins else "for no r: ¾(B + 1) ≥ B")]
                hint = ("Under add/remove each person is in the total and in one bin, so every count needs Lap(2/ε): "
                        "least squares beats this release's own raw answers, but the fair comparison is the bins "
                        "released alone at the same ε (Lap(1/ε)). Multi-level trees are where consistency pays ("
                        + cite("hay2010boosting") + ").")
            else:
                rows = [("one bin: bins alone → consistent with the public total",
                         f"{fmt(var2, 3)} → {fmt(S.hierarchy_range_variance(bins, 1, var2, 0.0), 3)}"),
                        (f"{half} bins: bins alone → consistent",
                         f"{fmt(S.raw_range_variance(bins, half, var2), 3)} → "
                         f"{fmt(S.hierarchy_range_variance(bins, half, var2, 0.0), 3)}")]
                hint = ("Under replace-one n is public: the total is exact and costs nothing, so making the bins add "
                        "up to it lowers the variance of every range.")
        return View(figures=[fig], readout=table(rows), hint=hint)


_HISTOGRAM_QUESTION = ("A histogram of ages has 10 bins; each person is in exactly one bin. Each bin's count gets its "
                       "own Laplace noise of scale 1/ε. Under add/remove neighbours, what does the whole histogram "
                       "cost?")
_HISTOGRAM_OPTIONS = [
    ("10ε: ten noisy counts, ten times ε", False,
     "Tempting: ten releases, and sequential composition adds up ε. But adding or removing one person "
     "changes only their own bin. The bins are disjoint, so parallel composition applies ("
     + cite("mcsherry2009privacy", "Thm 2") + "): the histogram costs ε."),
    ("ε: the bins are disjoint", True,
     "Right: one person touches one bin, so the histogram's sensitivity is 1 and it costs ε in total "
     "(parallel composition, " + cite("mcsherry2009privacy", "Thm 2") + "). Under replace-one neighbours "
     "a person moves between two bins: Δ = 2, so 2ε."),
    ("ε/10: the budget is shared by the bins", False,
     "Tempting, because splitting a budget is how sequential composition is often used. But each bin "
     "gets scale 1/ε, the noise for a full ε; nothing was split."),
]


class CompositionPanel(Panel):
    """Sequential against parallel composition for a histogram, with the "10 bins cost 10ε?" exercise."""

    title = "Composition: when do privacy costs add up?"
    intro = ("Two releases about the same people cost ε₁ + ε₂ (sequential composition, "
             + cite("dwork2014algorithmic", "Thm 3.14") + "). Releases about <i>disjoint</i> groups of people "
             "cost only the largest ε (parallel composition, " + cite("mcsherry2009privacy", "Thm 2") + ").")

    controls = {
        "epsilon": Slider("total ε of the histogram", 1.0, 0.1, 4.0, step=0.05),
        "bins": LogSlider("number of bins", 10.0, 1.0, 1000.0, step=0.1, fmt=".0f", integer=True),
        # shown by the render once the exercise is revealed: it changes only the parallel answer
        "relation": Choice("neighbours", _RELATION_OPTIONS, "add_remove", visible=False),
    }
    # Once answered, the parallel (disjoint-bins) answer is drawn and tabulated for good.
    exercises = {"exercise": ChoiceReveal(_HISTOGRAM_QUESTION, _HISTOGRAM_OPTIONS, redraw=True, sticky=True)}

    def render(self, v) -> View:
        eps, bins, rel = float(v.epsilon), max(1, v.bins), v.relation
        revealed = self.revealed("exercise")
        if revealed:  # the neighbouring relation changes only the parallel (disjoint-bins) answer
            self.controls["relation"].layout.display = None
        fig = P.composition_figure(eps, bins, rel, show_parallel=revealed)
        seq_sd = math.sqrt(2) * bins / eps
        rows = [("bins as queries on the same data: scale per bin", f"bins/ε = {fmt(bins / eps)} "
                 f"(standard deviation {fmt(seq_sd)})")]
        if revealed:
            d = S.histogram_sensitivity(rel)
            rows.append(("disjoint bins (parallel): scale per bin", f"Δ/ε = {fmt(d / eps)} (standard deviation "
                         f"{fmt(math.sqrt(2) * d / eps)}): {fmt(bins / d)}× less noise"))
        else:
            rows.append(("disjoint bins (parallel)", "? — answer the question below, then reveal"))
        return View(figures=[fig], readout=table(rows))


class LocalCentralPanel(Panel):
    """Local randomized response against a central Laplace count, with a predict-then-reveal exercise."""

    title = "Local or central: who adds the noise?"
    intro = ("In <b>central</b> DP a trusted curator counts exactly and adds Laplace noise once. In <b>local</b> "
             "DP each respondent randomizes their own answer (" + cite("warner1965randomized") + "; "
             + cite("kairouz2014extremal") + "; " + cite("wang2017locally") + "): nobody needs to be trusted, but "
             "every answer carries noise, and the noise adds up over n people. K is the number of possible answers "
             "(k-RR's k).")

    controls = {
        "epsilon": Slider("ε", 1.0, 0.1, 4.0, step=0.05),
        "protocol": Choice("local protocol", _PROTOCOL_OPTIONS, "krr"),
        "k": LogSlider("K, possible answers", 2.0, 2.0, 1000.0, step=math.log10(2) / 4, fmt=".0f", integer=True),
        "frequency": Slider("true fraction f of the answer counted", 0.1, 0.0, 1.0, step=0.05),
        "n": LogSlider("n, people surveyed centrally", 1000.0, 10.0, 1e7, step=0.25, fmt=".3g", integer=True),
    }

    def _answer(self, v) -> float:
        return LOC.people_needed_local(v.protocol, max(1, v.n), max(2, v.k), float(v.epsilon), float(v.frequency))

    def _explain(self, v, answer: float) -> str:
        n = max(1, v.n)
        v1 = LOC.local_variance(v.protocol, 1, max(2, v.k), float(v.epsilon), float(v.frequency))
        return (f"The central fraction has standard deviation (√2/ε)/n; the local one √(V₁/n) with V₁ = "
                f"{fmt(v1, 3)} ({cite('wang2017locally', 'Thm 2')}). Equal when n<sub>local</sub> = V₁(εn)²/2 = "
                f"{big(math.ceil(answer))}: {fmt(answer / n, 3)}× as many people. The gap grows with n.")

    def _question(self, v) -> str:
        return (f"A central Laplace count surveys n = {big(max(1, v.n))} people at ε = {fmt(float(v.epsilon))}. How "
                f"many people does {P.PROTOCOL_LABELS[v.protocol]} with K = {max(2, v.k)} need to estimate the "
                f"fraction f = {fmt(float(v.frequency))} just as precisely?")

    # After the reveal the number of people is tabulated (until a control moves: predict again).
    exercises = {"exercise": PredictReveal(_question, answer=_answer, explain=_explain, rel_tol=0.25,
                                           guess_label="people:", redraw=True)}

    def render(self, v) -> View:
        eps, protocol, k, f, n = float(v.epsilon), v.protocol, max(2, v.k), float(v.frequency), max(1, v.n)
        fig = P.local_central_figure(eps, k, protocol, f, n_mark=n)
        revealed = self.revealed("exercise")
        local_sd = LOC.local_count_std(protocol, n, k, eps, f)
        central_sd = LOC.central_count_std(eps)
        rows = [("central: count error standard deviation", f"√2/ε = {fmt(central_sd, 3)}, any n"),
                (f"local, same n = {big(n)}: count error standard deviation", fmt(local_sd, 3)),
                ("people local DP needs for the central accuracy",
                 big(math.ceil(self._answer(v))) if revealed else "? — predict it below, then reveal")]
        hint = None
        if protocol == "krr" and k > 2 * math.exp(eps) + 2:
            hint = ("With many possible answers k-RR's truthful report gets rare (p = e<sup>ε</sup>/(e<sup>ε</sup> + "
                    "K − 1)); OUE's error does not grow with K (" + cite("wang2017locally") + ").")
        return View(figures=[fig], readout=table(rows), hint=hint)


# ============================================================================================ the lesson's problems

_HIST_OPTIONS = [("count of people with a property", "count"), ("histogram (fixed bins)", "histogram")]
_DR_LAPLACE = cite("dwork2014algorithmic", "Thm 3.6")
_DR_VARIANCE = cite("dwork2014algorithmic", "Def. 3.3")
_DR_SENSITIVITY = cite("dwork2014algorithmic", "Def. 3.1")
_DR_COMPOSITION = cite("dwork2014algorithmic", "Thm 3.14")
_DMNS = cite("dwork2006calibrating")


def _problem_delta(v) -> float:
    return S.query_sensitivity(v.query, 0.0, 1.0, 2, v.relation)


def _histogram_sd_below_one(_panel, v) -> bool:
    """Problem 5: a histogram whose per-bin noise has standard deviation √2·Δ/ε below 1, with ε ≤ 2."""
    eps = float(v.epsilon)
    return v.query == "histogram" and eps <= 2.0 + 1e-9 and math.sqrt(2.0) * _problem_delta(v) / eps < 1.0


_PROBLEMS = ProblemSet("Problems: counting with noise", {
    "scale": NumericAnswer(
        "A count (Δ = 1) is released with the Laplace mechanism at ε = 0.5. What scale b must its noise have for "
        "the release to be ε-DP?", 2.0, rel_tol=0.01, label="b =",
        traps=[(0.5, "Tempting: ε looks like the amount of noise. But a smaller ε must mean <i>more</i> noise: "
                     "b = Δ/ε grows as ε shrinks."),
               (1.0, "That is Δ itself: the scale is Δ divided by ε."),
               (8.0, "That is the variance 2b², not the scale b.")],
        solution=f"b = Δ/ε = 1/0.5 = 2: the Laplace mechanism with b = Δ/ε is ε-DP ({_DMNS}; {_DR_LAPLACE}).",
        notes=TeachingNotes(
            timing="2 min",
            wrong=("0.5: ε read as the noise level (the scale multiplies by ε instead of dividing).",
                   "1: Δ given without dividing by ε.",
                   "8: the variance 2b² given for the scale."),
            ask="Halve ε again: what happens to b, and to the noise's standard deviation?")),
    "histogram_sd": NumericAnswer(
        "A histogram with fixed bins is released under replace-one neighbours at ε = 1, with Laplace noise on each "
        "bin. What is the standard deviation of one bin's noise?", 2.0 * math.sqrt(2.0), rel_tol=0.02,
        label="standard deviation:",
        traps=[(math.sqrt(2.0), "That is the noise for add/remove neighbours (Δ = 1). Replacing a record moves it "
                                "from one bin to another: two counts change, so Δ = 2."),
               (2.0, "That is the scale b = Δ/ε = 2; the standard deviation of Lap(b) is √2·b."),
               (8.0, "That is the variance 2b² = 8; the standard deviation is its square root.")],
        solution=("Under replace-one a record leaves one bin and enters another, so Δ = 2 (" + _DR_SENSITIVITY
                  + "). Then b = Δ/ε = 2 (" + _DR_LAPLACE + "), and Lap(b) has variance 2b² = 8 (" + _DR_VARIANCE
                  + "): the standard deviation is √8 = 2√2 ≈ 2.83."),
        notes=TeachingNotes(
            timing="3 min",
            wrong=("1.41: add/remove's Δ = 1 used under replace-one.", "2: the scale b given for the standard "
                   "deviation.", "8: the variance given for the standard deviation."),
            ask="Which neighbouring relation would you state for a census table, and why does it change Δ?")),
    "compose": ChoiceProblem(
        "Two counts over the same people (how many smoke, how many are over 60) are each released with Lap(2), "
        "that is at ε = 0.5. What does the pair guarantee, by sequential composition?",
        [("ε = 1: the two ε add up", True,
          "Right: one person can be in both counts, and an observer sees both answers, so the privacy losses add: "
          "ε₁ + ε₂ = 1 (sequential composition, " + _DR_COMPOSITION + ")."),
         ("ε = 0.5: each release is 0.5-DP", False,
          "Tempting: each release on its own is 0.5-DP. But the same person is in both counts, and the two answers "
          "are two pieces of evidence about them: the losses add (" + _DR_COMPOSITION + "). Only releases about "
          "disjoint groups of people cost the largest ε (parallel composition, " + cite("mcsherry2009privacy",
                                                                                      "Thm 2") + ")."),
         ("ε = 0.25: the noise averages out", False,
          "Tempting, because averaging two noisy estimates of one quantity lowers the error. Privacy goes the other "
          "way: each release is more evidence about a person, so the costs add up, they never halve.")],
        notes=TeachingNotes(
            timing="2 min",
            wrong=("0.5: each release judged alone, as if the observer saw only one.",
                   "0.25: accuracy (averaging) confused with privacy."),
            ask="What if the two counts were over disjoint groups (smokers under 60, non-smokers over 60)?")),
    "clip": ChoiceProblem(
        "Values are clipped to [L, U] = [−50, 100] and then summed. Under add/remove-one-record neighbours, what is "
        "the sum's sensitivity Δ?",
        [("Δ = 100 = max(|L|, |U|)", True,
          "Right: adding or removing one record moves the sum by that record's clipped value, at most "
          "max(|L|, |U|) = 100 in size (" + _DR_SENSITIVITY + ")."),
         ("Δ = 150 = U − L", False,
          "Tempting: U − L is the sensitivity under <i>replace-one</i> neighbours, where one value can jump from −50 "
          "to 100. Adding or removing a record moves the sum by its own value only."),
         ("Δ = the largest value in the data set", False,
          "Tempting, because that is how far this data set's records move the sum. But Δ must hold for every pair "
          "of neighbouring data sets, not only this one: a noise scale read off the data depends on the data and "
          "can itself reveal a person (local against global sensitivity, " + cite("nissim2007smooth") + ").")],
        notes=TeachingNotes(
            timing="3 min",
            wrong=("150: the replace-one formula U − L used under add/remove.",
                   "the data's maximum: sensitivity taken from the data rather than from all neighbours."),
            ask="With L = 0 instead, which of the two relations gives the larger Δ, and by how much?")),
    "setting": FindSetting(
        "Set the panel so that a histogram's noise has a standard deviation below 1 per bin, with ε at most 2.",
        _histogram_sd_below_one, live=True,
        hint="The standard deviation of Lap(b) is √2·b, with b = Δ/ε. Which neighbouring relation gives a histogram "
             "the smaller Δ?",
        solution="A histogram under add/remove neighbours with ε from 1.45 to 2: Δ = 1, and √2·Δ/ε < 1 needs "
                 "ε > √2 ≈ 1.41 (" + _DR_LAPLACE + "; variance 2b², " + _DR_VARIANCE + "). Under replace-one "
                 "Δ = 2 and ε would have to exceed 2√2 ≈ 2.83: not allowed here.",
        notes=TeachingNotes(
            timing="4 min",
            wrong=("Staying with replace-one and looking for an ε: none of ε ≤ 2 works.",
                   "Reading the scale b off the readout instead of the standard deviation √2·b."),
            ask="Who could tell the difference between the two relations from the released histogram alone?")),
    "proof": ProofIdea(
        "Why is the Laplace mechanism with scale b = Δ/ε ε-DP? Write the key step of the proof, or pick it.",
        "Let p<sub>x</sub>(y) = exp(−|y − F(x)|/b)/(2b), the density of F(x) + Lap(b). For neighbours x, x′ and "
        "any output y, p<sub>x</sub>(y)/p<sub>x′</sub>(y) = exp((|y − F(x′)| − |y − F(x)|)/b) ≤ "
        "exp(|F(x) − F(x′)|/b) by the triangle inequality, and |F(x) − F(x′)| ≤ Δ, so the ratio is at most "
        "exp(Δ/b) = e<sup>ε</sup>. Integrating over any set S of outputs gives P[M(x) ∈ S] ≤ e<sup>ε</sup>·"
        "P[M(x′) ∈ S]: the definition of ε-DP. For a vector of answers the same holds coordinate by coordinate, "
        "with Δ the ℓ₁ sensitivity (" + _DR_LAPLACE + "; " + _DMNS + ").",
        steps=[("the density ratio is at most exp(Δ/b)", True,
                "Right: at every output the two densities differ by a factor of at most exp(|F(x) − F(x′)|/b) ≤ "
                "exp(Δ/b), by the triangle inequality. That step is the whole proof: a bound on the ratio at every "
                "single output, integrated over any set of outputs."),
               ("the noise has mean 0", False,
                "Tempting: unbiased noise is what an estimator wants. But DP compares the whole output distributions "
                "on neighbours, output by output; two laws with the same mean can be told apart perfectly."),
               ("the variance 2b² exceeds Δ²", False,
                "Tempting: more noise than Δ sounds like enough. But variance is not what DP bounds: uniform noise "
                "on [−c, c] has any variance you like, yet an output just above F(x) + c is possible under x′ when "
                "F(x′) > F(x) and impossible under x: the ratio is infinite, and no ε holds.")],
        notes=TeachingNotes(
            timing="6 min (pairs, then one pair at the board)",
            wrong=("'The noise has mean 0': accuracy (bias) confused with privacy.",
                   "'The variance is large enough': a moment bound, where DP needs a bound at every output."),
            ask="Where does the proof use b = Δ/ε? What does half the noise, b = Δ/(2ε), guarantee? (2ε-DP: the "
                "ratio bound becomes exp(Δ/b) = e<sup>2ε</sup>.)")),
}, intro="Each problem is checked as soon as you answer; a wrong answer can be tried again, and the solution opens "
         "after your first attempt. Problem 5 is about this panel's settings.")


class CountingProblemsPanel(Panel):
    """The lesson's problem set, with the Laplace noise of a count or a histogram for its find-a-setting task."""

    title = "Problems: counting with noise"
    intro = ("The figure shows the Laplace noise a count or a histogram needs at the chosen ε and neighbouring "
             "relation (scale b = Δ/ε, " + _DR_LAPLACE + "), with the band ±Δ one person can move the answer.")

    controls = {
        "epsilon": Slider("ε", 1.0, 0.1, 4.0, step=0.05),
        "query": Choice("query", _HIST_OPTIONS, "count"),
        "relation": Choice("neighbours", _RELATION_OPTIONS, "add_remove"),
    }
    exercises = {"problems": _PROBLEMS}

    def render(self, v) -> View:
        delta = _problem_delta(v)
        b = S.laplace_scale(delta, float(v.epsilon))
        rows = [("sensitivity Δ", fmt(delta)), ("Laplace scale b = Δ/ε", fmt(b))]
        return View([P.noise_figure(delta, float(v.epsilon), label=f"a {v.query}")], readout=table(rows))
