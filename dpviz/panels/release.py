"""Lesson "Releasing many answers": five panels.

* :class:`ManyQueriesPanel` — k counting queries answered one by one with ε/k each (basic composition) against
  range sums of one noisy histogram: the exact error as k and the range width grow;
* :class:`TreeHistogramPanel` — the exact variance of a range as it grows: flat histogram, binary tree (canonical
  decomposition) and consistent tree (Hay et al. 2010);
* :class:`MWEMPanel` — MWEM (Hardt, Ligett & McSherry 2012) on the age histogram: its largest error against the
  number of rounds T, the number of queries k and ε;
* :class:`SyntheticDataPanel` — synthetic records from noisy one-attribute histograms: the ages they preserve, the
  link between age and retirement they lose;
* :class:`TopDownPanel` — the TopDown idea of the 2020 Census on a small nation: noisy counts per level, the
  non-negative consistent estimates and their errors per level;
* :class:`ReleaseProblemsPanel` — the lesson's problem set, with k queries by composition against one range of the
  noisy histogram for its find-a-setting task.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpviz import release as R
from dpviz.panels import Checkbox, Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Step, View
from dpviz.panels.exercises import ChoiceProblem, FindSetting, NumericAnswer, ProblemSet, ProofIdea, TeachingNotes
from dpviz.panels.format import fmt, table
from dpviz.plots import release as P
from dpviz.references import cite

__all__ = ["ManyQueriesPanel", "TreeHistogramPanel", "MWEMPanel", "SyntheticDataPanel", "TopDownPanel",
           "ReleaseProblemsPanel"]

#: Cells of the lesson's age histogram (ages 0..127) and its people.
BINS = 128
PEOPLE = 10_000


# ------------------------------------------------------------------------------------------------ (a) k queries
_HIST_COST_QUESTION = ("The noisy histogram adds Laplace(1/ε) noise to each of its 128 cells, and every range is "
                       "summed from those cells. What does releasing the whole histogram cost?")
_HIST_COST_OPTIONS = [
    ("128·ε: 128 noisy counts, each ε-DP, add up by composition.", False,
     "Tempting, but basic composition adds up releases about the same people. Each person is in exactly one cell, "
     "so adding or removing one person moves one count by 1: the cells are disjoint, and parallel composition "
     "(Dwork & Roth 2014, §3.3; McSherry 2009, Thm 2) charges ε for all of them together."),
    ("ε: the cells are disjoint, so one person moves one count by 1; any number of range sums of it are "
     "post-processing.", True,
     "Right: one person changes one cell by 1 (Dwork & Roth 2014, §3.3), and every range summed from the noisy "
     "cells afterwards is free (post-processing, Dwork & Roth 2014, Prop. 2.1). The price is paid in accuracy: a "
     "range of w cells adds w noises, variance 2w/ε²."),
    ("ε/128: the budget is shared among the cells.", False,
     "No: each cell gets the full ε, Laplace(1/ε). Sharing ε among the cells would add far more noise than needed."),
]


class ManyQueriesPanel(Panel):
    """k range queries by composition against sums of one noisy histogram, exact errors."""

    title = "k counting queries: one by one, or from one noisy histogram?"
    intro = ("An analyst asks k range queries over an age histogram of 128 cells (\"how many people aged 20 to "
             "35?\"), ε in all. Either each query is answered on its own with ε/k and Laplace(k/ε) noise, or one "
             "noisy histogram (Laplace(1/ε) per cell) is released and every range is summed from it. The curves are "
             "exact standard deviations.")

    controls = {
        "epsilon": LogSlider("ε (in all)", 1.0, 0.1, 10.0, step=0.1),
        "k": LogSlider("number of queries k", 10, 1, 1000, step=0.1, fmt=".0f", integer=True,
                       bench=[1.0, 10.0, 100.0, 1000.0]),
        "width": LogSlider("range width w (cells)", 16, 1, BINS, step=0.1, fmt=".0f", integer=True,
                           bench=[1.0, 16.0, 128.0]),
    }

    def _answer(self, v) -> float:
        return float(math.isqrt(int(v.width)) + 1)

    def _explain(self, v, answer: float) -> str:
        w = int(v.width)
        return (f"By composition each answer has variance 2k²/ε² (Laplace(k/ε): basic composition, Dwork & Roth 2014, "
                f"Thm 3.14; Laplace(b) has variance 2b², Def. 3.3); from the histogram a range of w = {w} cells has "
                f"2w/ε² (§3.3). The histogram is better as soon as k² > w, i.e. from k = {answer:.0f} on, whatever "
                "ε is: ε cancels. The crossing is now drawn.")

    exercises = {
        "exercise": PredictReveal(
            lambda self, v: (f"For ranges of width w = {int(v.width)} cells, from how many queries k on is the noisy "
                             "histogram more accurate than answering each query with ε/k?"),
            answer=_answer, explain=_explain, rel_tol=0.25, guess_label="k:", redraw=True),
        "misconception": ChoiceReveal(_HIST_COST_QUESTION, _HIST_COST_OPTIONS),
    }

    def render(self, v) -> View:
        eps, k, w = float(v.epsilon), int(v.k), int(v.width)
        shown = self.revealed("exercise")
        f1 = P.queries_error_figure(eps, w, BINS, k_max=1000, k_mark=k, show_crossing=shown)
        f2 = P.width_error_figure(eps, k, BINS, width_mark=w, show_crossing=shown)
        flat = math.sqrt(R.histogram_range_variance(BINS, w, eps))
        comp = math.sqrt(R.composition_variance(k, eps))
        rows = [(f"by composition: SD of each of the {k} answers", f"√2·k/ε = {fmt(comp, 4)}"),
                (f"from the histogram: SD of a range of {w} cells", f"√(2w)/ε = {fmt(flat, 4)}"),
                ("more accurate here", "the histogram" if flat < comp else "composition" if comp < flat else
                 "neither (a tie)")]
        return View(figures=[f1, f2], readout=table(rows))


# ------------------------------------------------------------------------------------------------ (b) trees
def _grid(n: int) -> np.ndarray:
    """About 60 widths from 1 to n, log-spaced, n included (the first view's curves)."""
    return np.unique(np.r_[np.round(np.logspace(0.0, math.log10(n), 60)), n]).astype(np.int64)


def _tree_curves(depth: int, statistic: str, exact: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Widths (every width 1..2^L if ``exact``, else :func:`_grid`) with the exact variances at ε = 1 of the flat
    histogram and the canonical tree (every variance scales as 1/ε²; 0.3 s for every width at L = 10)."""
    n = 2**depth
    w = np.arange(1, n + 1) if exact else _grid(n)
    return (w.astype(float), R.histogram_range_variance(n, w.astype(float), 1.0),
            R.tree_width_variance(w, 1.0, depth, statistic=statistic))


def _consistent_curve(depth: int, statistic: str) -> np.ndarray:
    """The consistent tree's exact variance at ε = 1 for every width 1..2^L (a 2^L × 2^L covariance: 0.4 s at
    L = 10)."""
    return R.tree_width_variance(np.arange(1, 2**depth + 1), 1.0, depth, consistent=True, statistic=statistic)


def _first_win(w: np.ndarray, flat: np.ndarray, other: np.ndarray) -> int | None:
    """The smallest width from which on ``other`` stays below the flat histogram (None if it never does)."""
    better = other < flat * (1 - 1e-12)
    if not better[-1]:
        return None
    worse = np.nonzero(~better)[0]
    return int(w[0] if worse.size == 0 else w[worse[-1] + 1])


def _where(first: int | None, n: int) -> str:
    return "never" if first is None else "only on the whole domain" if first == n else f"from width {first} on"


class TreeHistogramPanel(Panel):
    """Exact variance of a range against its width: flat, tree, consistent tree (streamed: a grid of widths first,
    then every width, up to 0.8 s at 1024 cells)."""

    title = "Tree histograms: when does a hierarchy of counts pay?"
    intro = ("Over 2<sup>L</sup> cells, a binary tree releases a noisy count for every node: the total, its two "
             "halves, their halves, …, the cells, with ε/(L + 1) per level. A range is the sum of the few nodes "
             "that cover it, or of the cells of the tree made consistent by least squares. The curves are exact "
             "variances, set against the flat histogram's 2w/ε².")

    controls = {
        "epsilon": LogSlider("ε (in all)", 1.0, 0.1, 10.0, step=0.1),
        "depth": IntSlider("depth L (2<sup>L</sup> cells)", 10, 3, 10),
        "statistic": Choice("over the positions of a range", [("average", "mean"), ("worst", "max")], "mean"),
    }

    def _answer(self, v) -> float:
        depth = int(v.depth)
        n = 2**depth
        w = np.arange(1.0, n + 1)
        first = _first_win(w, R.histogram_range_variance(n, w, 1.0), _consistent_curve(depth, v.statistic))
        return float(n + 1 if first is None else first)

    def _explain(self, v, answer: float) -> str:
        return (f"The consistent tree (Hay et al. 2010, §5) beats the flat histogram from width {answer:.0f} on "
                "(the readout says where the plain tree does). Its curve is now drawn.")

    exercises = {
        "exercise": PredictReveal(
            lambda self, v: (f"From which range width w on does the consistent tree over {2 ** int(v.depth)} cells "
                             "have a smaller variance than the flat histogram?"),
            answer=_answer, explain=_explain, rel_tol=0.25, guess_label="width:", redraw=True),
    }

    def _view(self, eps: float, depth: int, stat: str, curves, cons, plain, cons_first) -> View:
        w, flat, tree = curves
        scale = 1.0 / (eps * eps)
        fig = P.tree_variance_figure(w, flat * scale, tree * scale, None if cons is None else cons * scale,
                                     epsilon=eps, depth=depth, statistic=stat)
        n = 2**depth
        pending = "… computing every width"
        rows = [(f"plain tree beats the flat histogram ({'average' if stat == 'mean' else 'worst'} position)",
                 pending if plain is False else _where(plain, n)),
                ("consistent tree beats it", "? — answer the exercise below" if cons_first is False else
                 _where(cons_first, n)),
                (f"whole domain, w = {n}", f"flat {fmt(flat[-1] * scale, 4)}, tree {fmt(tree[-1] * scale, 4)}"),
                ("ε per level", f"ε/{depth + 1} = {fmt(eps / (depth + 1), 3)}")]
        return View(figures=[fig], readout=table(rows))

    def render(self, v):
        eps, depth, stat = float(v.epsilon), int(v.depth), v.statistic
        revealed = self.revealed("exercise")
        total = 3 if revealed else 2
        grid = _tree_curves(depth, stat, False)
        yield Step(1, total, lambda: self._view(eps, depth, stat, grid, None, False, False), unit="stages")
        exact = _tree_curves(depth, stat, True)
        plain = _first_win(*exact)
        if not revealed:
            yield Step(2, 2, lambda: self._view(eps, depth, stat, grid, None, plain, False), unit="stages")
            return
        yield Step(2, 3, lambda: self._view(eps, depth, stat, grid, None, plain, False), unit="stages")
        cons = _consistent_curve(depth, stat)
        first = _first_win(exact[0], exact[1], cons)
        yield Step(3, 3, lambda: self._view(eps, depth, stat, exact, cons, plain, first), unit="stages")


# ------------------------------------------------------------------------------------------------ (c) MWEM
#: The numbers of rounds T whose MWEM runs the curve shows.
MWEM_ROUNDS = (1, 2, 5, 10, 20, 50, 100, 200)
#: The age histogram of MWEM: 64 cells (ages 0..63), 10 000 people.
MWEM_BINS = 64


def _mwem_ranges(k: int, bins: int) -> np.ndarray:
    """k deterministic range queries (no randomness: the same queries every time): the j-th starts at
    ⌊bins·frac(jφ)⌋ and is 1 + ⌊(bins − lo)·frac(j√2)⌋ cells wide (two low-discrepancy sequences)."""
    j = np.arange(1, k + 1)
    lo = np.floor(bins * np.mod(j * 0.6180339887498949, 1.0)).astype(int)
    width = 1 + np.floor((bins - lo) * np.mod(j * 1.4142135623730951, 1.0)).astype(int)
    return np.stack([lo, np.minimum(lo + width, bins)], axis=1)


_MWEM_QUESTION = ("With more rounds T, MWEM measures more queries and its histogram fits more of them. Why does its "
                  "error stop falling, and even rise, as T grows at a small ε (try ε = 0.1)?")
_MWEM_OPTIONS = [
    ("Each round gets ε/(2T) to select and ε/(2T) to measure: more rounds mean noisier measurements and worse "
     "choices.", True,
     "Right: the budget is split over the rounds (Hardt, Ligett & McSherry 2012, Alg. 1 and Thm 2.1), so each "
     "measurement carries Laplace(2T/ε) noise. The best T balances fitting more queries against measuring each "
     "worse, and it grows with ε (their accuracy bound, Thm 2.2, has one term falling and one growing in T)."),
    ("Multiplicative weights diverge after too many updates.", False,
     "No: the updates stay bounded (each moves log-weights by at most a measured error over 2n). With exact "
     "measurements more rounds would only help; it is the noise of ε/(2T) that grows."),
    ("The exponential mechanism picks the same query again and again.", False,
     "It may pick a query twice, which is fine (the second measurement averages the noise). The error rises "
     "because every round's share of ε falls."),
]


class MWEMPanel(Panel):
    """MWEM's largest error against the rounds T, the number of queries k and ε."""

    title = "MWEM: a synthetic histogram that answers many queries"
    intro = ("MWEM (Hardt, Ligett & McSherry 2012) starts from a uniform histogram and, for T rounds, privately "
             "picks the query it answers worst (exponential mechanism), measures it (Laplace) and corrects the "
             "histogram by multiplicative weights. Here: 10 000 people aged 0 to 63 and k range queries. Each point "
             "of the curve is one run.")

    controls = {
        "epsilon": LogSlider("ε (in all)", 0.3, 0.1, 10.0, step=0.1),
        "k": IntSlider("number of queries k", 100, 10, 400, step=10),
        "rounds": Choice("rounds T of the histogram shown", [(str(t), t) for t in MWEM_ROUNDS], 20),
        "seed": IntSlider("random draw (seed)", 0, 0, 50),
    }

    def _answer(self, v) -> float:
        return R.mwem_budget(float(v.epsilon), int(v.rounds))["measure"]

    exercises = {
        "exercise": PredictReveal(
            lambda self, v: (f"With T = {int(v.rounds)} rounds and ε = {fmt(float(v.epsilon), 3)}, what ε does "
                             "each of MWEM's measurements get?"),
            answer=_answer, rel_tol=0.05, guess_label="ε per measurement:",
            explain=lambda self, v, a: (f"ε/(2T) = {fmt(a, 4)}: half of each round's ε/T selects, half measures "
                                        "(Hardt, Ligett & McSherry 2012, Alg. 1).")),
        "misconception": ChoiceReveal(_MWEM_QUESTION, _MWEM_OPTIONS),
    }

    def _view(self, eps, k, T_shown, seed, h, errors, shown, hist_err) -> View:
        comp = math.sqrt(R.composition_variance(k, eps))
        f1 = P.mwem_error_figure(list(MWEM_ROUNDS), errors, hist_err, comp, epsilon=eps, k=k, seed=seed)
        f2 = P.histogram_estimate_figure(h, {f"MWEM, T = {T_shown}": shown.synthetic},
                                         title=f"The ages and MWEM's histogram after T = {T_shown} rounds",
                                         note=f"one random draw (seed {seed})")
        done = [(T, e) for T, e in zip(MWEM_ROUNDS, errors) if math.isfinite(e)]
        best_T, best_e = min(done, key=lambda te: te[1])
        rows = [(f"MWEM's largest error, T = {T_shown}", fmt(errors[MWEM_ROUNDS.index(T_shown)], 4)),
                ("best T of this draw" + ("" if len(done) == len(MWEM_ROUNDS) else " so far"),
                 f"{best_T} (largest error {fmt(best_e, 4)})"),
                ("ranges summed from one noisy histogram", f"largest error {fmt(hist_err, 4)}"),
                ("each query by composition", f"SD √2·k/ε = {fmt(comp, 4)} (each of the {k})")]
        return View(figures=[f1, f2], readout=table(rows))

    def render(self, v):
        eps, k, T_shown, seed = float(v.epsilon), int(v.k), int(v.rounds), int(v.seed)
        h = R.example_age_histogram(PEOPLE, MWEM_BINS)
        Q = R.range_query_matrix(_mwem_ranges(k, MWEM_BINS), MWEM_BINS)
        g = np.random.default_rng(seed)
        hist_err = R.max_query_error(R.noisy_histogram(h, eps, rng=g), h, Q)
        errors = [math.nan] * len(MWEM_ROUNDS)
        # the run shown first (its own draw), then one run per T of the curve (streamed: up to 200 rounds each)
        order = [MWEM_ROUNDS.index(T_shown)] + [i for i, T in enumerate(MWEM_ROUNDS) if T != T_shown]
        shown = None
        for done, i in enumerate(order, start=1):
            run = R.mwem(h, Q, eps, MWEM_ROUNDS[i], rng=g)
            errors[i] = R.max_query_error(run.synthetic, h, Q)
            shown = run if shown is None else shown
            yield Step(done, len(order), functools.partial(self._view, eps, k, T_shown, seed, h, list(errors), shown,
                                                           hist_err), unit="MWEM runs")


# ------------------------------------------------------------------------------------------------ (d) synthetic
_SYN_QUESTION = ("A statistics office publishes synthetic records drawn from a noisy age histogram and a noisy "
                 "retired/not-retired histogram, each made private separately. A researcher counts the retired "
                 "people under 50 in the records. What can they trust?")
_SYN_OPTIONS = [
    ("The count: synthetic records are as good as the real ones for any question.", False,
     "No: the records can only carry what was released. Age and retirement were released separately, so the "
     "records pair them at random and put retired people at every age."),
    ("Nothing beyond the two histograms: questions that combine age and retirement get the answer of independent "
     "attributes.", True,
     "Right: the records are post-processing of the two histograms (Dwork & Roth 2014, Prop. 2.1), so they answer "
     "any age range and the share retired, and they cannot know who is retired at which age. A release that "
     "should answer joint questions must measure them: a two-way histogram, or marginals chosen for the "
     "questions (lesson 15, Per-attribute privacy)."),
    ("The count, if ε is large enough.", False,
     "No: even with no noise at all (ε → ∞) the product of the marginals is not the joint distribution. Raise ε "
     "in the panel: the noisy bar moves to the ε → ∞ bar, not to the truth."),
]


class SyntheticDataPanel(Panel):
    """Synthetic records from two noisy one-attribute histograms: ages kept, the age–retirement link lost."""

    title = "Synthetic data: what can it answer, and what not?"
    intro = ("10 000 people with an age (0 to 127) and whether they are retired. Two histograms are released with "
             "Laplace noise, ε/2 each: the ages, and retired / not retired. Synthetic records draw an age from the "
             "first and a status from the second. Ask them about an age range, then about the retired people in it.")
    slow = True  # two figures of 128-cell histograms and up to 20 000 records: p95 ≈ 35 ms on 2 shared cores

    controls = {
        "epsilon": LogSlider("ε (in all)", 1.0, 0.01, 100.0, step=0.1),
        "n_records": LogSlider("synthetic records n′", PEOPLE, 100, 20_000, step=0.1, fmt=".0f", integer=True,
                               bench=[100.0, 10_000.0, 20_000.0]),
        "lo": IntSlider("ages from", 65, 0, BINS - 1),
        "hi": IntSlider("to (excluded)", BINS, 1, BINS),
        "seed": IntSlider("random draw (seed)", 0, 0, 50),
    }

    def _answer(self, v) -> float:
        return R.correlation_lost(R.example_age_table(PEOPLE, BINS), int(v.lo), int(v.hi), 1)["from_marginals"]

    exercises = {
        "exercise": PredictReveal(
            lambda self, v: (f"Even without noise (ε → ∞), records that draw the age and the status independently "
                             f"from the exact histograms: how many of {PEOPLE} of them are retired and aged "
                             f"{int(v.lo)} to {int(v.hi) - 1}, in expectation?"),
            answer=_answer, rel_tol=0.1, guess_label="count:", redraw=True,
            explain=lambda self, v, a: (f"n × (share aged in the range) × (share retired) = {fmt(a, 5)}: "
                                        "independent draws multiply the two shares. The truth is in the figure.")),
        "misconception": ChoiceReveal(_SYN_QUESTION, _SYN_OPTIONS),
    }

    def render(self, v) -> View:
        eps, n2, lo, hi, seed = float(v.epsilon), int(v.n_records), int(v.lo), int(v.hi), int(v.seed)
        table2 = R.example_age_table(PEOPLE, BINS)
        ages, status = table2.sum(axis=1), table2.sum(axis=0)
        truth = R.correlation_lost(table2, lo, hi, 1)  # raises for lo >= hi: the panel shows the message
        g = np.random.default_rng(seed)
        noisy_a = R.noisy_histogram(ages, eps / 2, rng=g)
        noisy_b = R.noisy_histogram(status, eps / 2, rng=g)
        records = R.sample_from_marginals(noisy_a, noisy_b, n2, rng=g)
        syn_ages = np.bincount(records[:, 0], minlength=BINS).astype(float)
        f1 = P.histogram_estimate_figure(ages, {"noisy histogram (ε/2)": noisy_a,
                                                f"synthetic records (n′ = {n2}), scaled to {PEOPLE}":
                                                    syn_ages * (PEOPLE / n2)},
                                         title="Ages: true, noisy, and counted in the synthetic records",
                                         note=f"one random draw (seed {seed})")
        revealed = self.revealed("exercise")
        expected = R.marginal_synthesis_expectation(noisy_a, noisy_b, lo, hi, 1, PEOPLE)
        f2 = P.joint_query_figure(truth["truth"], truth["from_marginals"] if revealed else None,
                                  expected if revealed else None, age_range=f"{lo} to {hi - 1}", seed=seed)
        in_range = records[:, 0] >= lo
        in_range &= records[:, 0] < hi
        scale = PEOPLE / n2
        rows = [(f"people aged {lo} to {hi - 1}: truth", fmt(truth["marginal_a"], 5)),
                ("… in the synthetic records (scaled)", fmt(float(in_range.sum()) * scale, 5)),
                ("retired among them: truth", fmt(truth["truth"], 5)),
                ("… in the synthetic records (scaled)", fmt(float((in_range & (records[:, 1] == 1)).sum()) * scale, 5)
                 if revealed else "? — answer the exercise below")]
        return View(figures=[f1, f2], readout=table(rows))


# ------------------------------------------------------------------------------------------------ (e) TopDown
_TD_QUESTION = ("A county of 8 people gets the noisy count −9 (discrete Gaussian noise, σ = 12). What does TopDown "
                "publish for it?")
_TD_OPTIONS = [
    ("−9: post-processing would spend privacy.", False,
     "No: post-processing never spends privacy (Dwork & Roth 2014, Prop. 2.1), and a negative population is "
     "useless to a data user. TopDown fixes it."),
    ("A non-negative integer, chosen so that the counties of the state add up to the state's published count.",
     True,
     "Right: the counties are projected onto {≥ 0, Σ = the state's estimate} and rounded keeping the sum "
     "(Abowd et al. 2022). The price is a small bias: counts pushed up from below 0 take people from the larger "
     "counties."),
    ("0, and the state's count is lowered by 9 to match.", False,
     "No: TopDown goes top down: the state's estimate is fixed first and the counties are fitted to it, never "
     "the other way round."),
]


class TopDownPanel(Panel):
    """TopDown on a nation of 4 states and 24 counties: noisy counts, the post-processed estimates, errors per level."""

    title = "TopDown: consistent, non-negative counts for every level"
    intro = ("A nation of 4 states with 6 counties each (from 50 000 down to 8 people). Every count of every level "
             "gets discrete Gaussian noise (ρ/3 per level, zCDP). The noisy counts go below zero and do not add up; "
             "TopDown fixes the nation, then fits the states to it, then each state's counties to the state.")

    controls = {
        "rho": LogSlider("ρ (zCDP, in all)", 0.01, 1e-4, 10.0, step=0.25),
        "integer": Checkbox("round to integers that keep the sums", True),
        "seed": IntSlider("random draw (seed)", 0, 0, 50),
    }

    def _answer(self, v) -> float:
        return math.sqrt(1.0 / (2.0 * float(v.rho) / 3.0))

    exercises = {
        "exercise": PredictReveal(
            lambda self, v: (f"At ρ = {fmt(float(v.rho), 3)} in all (ρ/3 per level), what is the standard "
                             "deviation σ of the noise on each county count? (people)"),
            answer=_answer, rel_tol=0.1, guess_label="σ:", redraw=True,
            explain=lambda self, v, a: ("σ² = 1/(2ρ<sub>ℓ</sub>) with ρ<sub>ℓ</sub> = ρ/3 "
                                        "(Canonne, Kamath & Steinke 2020, Thm 14; Bun & Steinke 2016, Lemma 1.7): "
                                        f"σ = {fmt(a, 4)}.")),
        "misconception": ChoiceReveal(_TD_QUESTION, _TD_OPTIONS),
    }

    def render(self, v) -> View:
        rho, integer, seed = float(v.rho), bool(v.integer), int(v.seed)
        res = R.topdown(R.example_geography(), rho, integer=integer, rng=np.random.default_rng(seed))
        f1 = P.topdown_levels_figure(res, seed=seed, show_sigma=self.revealed("exercise"))
        f2 = P.topdown_counties_figure(res, seed=seed)
        noisy_states, noisy_nation = res.noisy_counts[1], float(res.noisy_counts[0])
        rows = [("noisy county counts below 0", str(int(np.sum(res.noisy_counts[2] < 0)))),
                ("noisy states add up to", f"{fmt(float(noisy_states.sum()), 7)} (noisy nation "
                                           f"{fmt(noisy_nation, 7)})"),
                ("TopDown: counties ≥ 0 and adding up to their states", "yes" if (
                    np.all(res.estimates[2] >= 0)
                    and np.allclose(res.estimates[2].sum(axis=1), res.estimates[1], rtol=0, atol=1e-6)) else "no"),
                ("RMSE per level (nation, states, counties)",
                 "noisy " + ", ".join(fmt(x, 3) for x in res.noisy_rmse)
                 + "; TopDown " + ", ".join(fmt(x, 3) for x in res.topdown_rmse))]
        return View(figures=[f1, f2], readout=table(rows))


# ------------------------------------------------------------------------------------------------ problems
_DR_COMPOSITION = cite("dwork2014algorithmic", "Thm 3.14")
_DR_LAPLACE = cite("dwork2014algorithmic", "Def. 3.3")
_DR_PARALLEL = cite("dwork2014algorithmic", "§3.3")
_DR_POST = cite("dwork2014algorithmic", "Prop. 2.1")
_PARALLEL = cite("mcsherry2009privacy", "Thm 2")
_HAY = cite("hay2010boosting", "§5")
_MWEM = cite("hardt2012simple", "Alg. 1")
_MWEM_PRIVACY = cite("hardt2012simple", "Thm 2.1")

#: Problem 1: the range width w; problem 2: the tree's depth L and ε; problem 3: MWEM's rounds T and ε.
_CROSS_W = 50
_TREE_L, _TREE_EPS = 10, 1.0
_MWEM_T, _MWEM_EPS = 20, 1.0
#: The find-a-setting task: at least this many queries k, and composition strictly more accurate.
_TASK_K = 5


def _composition_wins(_panel, v) -> bool:
    """Problem 6: k ≥ 5 queries, and each answer by composition (variance 2k²/ε²) is strictly more accurate than a
    range of w cells summed from one noisy histogram (variance 2w/ε²)."""
    eps, k, w = float(v.epsilon), int(v.k), int(v.width)
    return k >= _TASK_K and R.composition_variance(k, eps) < R.histogram_range_variance(BINS, w, eps)


_PROBLEMS = ProblemSet("Problems: releasing many answers", {
    "crossing": NumericAnswer(
        f"Ranges of width w = {_CROSS_W} cells, ε in all. From how many queries k on is a range summed from one "
        "noisy histogram (Laplace(1/ε) per cell) strictly more accurate than answering each of the k queries with "
        "ε/k?",
        math.isqrt(_CROSS_W) + 1, abs_tol=0.4, label="k =",
        traps=[(float(_CROSS_W), f"That compares k with w: k > w = {_CROSS_W}. But composition's variance "
                                 "2k²/ε² grows with the <i>square</i> of k, the histogram's 2w/ε² only with w: "
                                 "the histogram wins when k² > w."),
               (float(math.isqrt(_CROSS_W)), f"At k = {math.isqrt(_CROSS_W)}, k² = {math.isqrt(_CROSS_W) ** 2} is "
                                             f"still below w = {_CROSS_W}: composition's 2k²/ε² is still the "
                                             "smaller variance. √50 ≈ 7.07 must be rounded up, not down."),
               (float(_CROSS_W ** 2), f"That is w² = {_CROSS_W ** 2}: the condition turned round. The histogram "
                                      "wins when k² > w, not when k > w².")],
        solution="Each answer by composition has variance 2k²/ε² (Laplace(k/ε): " + _DR_COMPOSITION + "; "
                 "Laplace(b) has variance 2b², " + _DR_LAPLACE + "); a range of w cells from the histogram has "
                 "2w/ε² (" + _DR_PARALLEL + "; " + _PARALLEL + "). The histogram is strictly better when k² > w "
                 "= 50: k = 7 gives 49, not enough; k = 8 gives 64. ε cancels.",
        notes=TeachingNotes(
            timing="3 min",
            wrong=("50: k compared with w, the square forgotten.",
                   "7: √50 ≈ 7.07 rounded down; at k = 7 composition is still better.",
                   "2500: the condition turned round (k > w²)."),
            ask="Does the answer change at ε = 0.1? Why does ε cancel?")),
    "tree_node": NumericAnswer(
        f"A binary tree over B = 2<sup>L</sup> = {2 ** _TREE_L} cells has L + 1 = {_TREE_L + 1} levels, each "
        f"given ε/(L + 1) with ε = {_TREE_EPS:g} in all. What is the variance of one node's noisy count "
        "(Laplace noise, one person moves a node by 1)?",
        2.0 * (_TREE_L + 1) ** 2 / _TREE_EPS ** 2, rel_tol=0.01, label="variance:",
        traps=[(2.0 * _TREE_L ** 2, f"That is 2L²/ε²: L = {_TREE_L} levels. The tree has L + 1 = {_TREE_L + 1} "
                                    "levels, from the total down to the cells, and each gets ε/(L + 1)."),
               (2.0 / _TREE_EPS ** 2, "That is 2/ε², one node with the whole ε. The budget is split over the "
                                      "levels, because one person is counted on every level."),
               (float((_TREE_L + 1) ** 2), "That is (L + 1)²/ε², the square of the scale (L + 1)/ε. Laplace(b) "
                                            "has variance 2b², not b².")],
        solution="Each level gets ε/(L + 1) = 1/11, so each node carries Laplace((L + 1)/ε) = Laplace(11) noise, "
                 "variance 2·11²/ε² = 242/ε² (" + _DR_LAPLACE + "; " + _HAY + "), against 2/ε² for one cell of "
                 "the flat histogram. A range from the canonical decomposition adds up to 2 such nodes per level.",
        notes=TeachingNotes(
            timing="3 min",
            wrong=("200: L levels counted instead of L + 1.", "2: the whole ε on every level.",
                   "121: the variance of Laplace(b) taken as b²."),
            ask="At B = 1024, is a single cell better read from the tree's leaves or from the flat histogram? What "
                "does the tree buy in exchange?")),
    "mwem_scale": NumericAnswer(
        f"MWEM runs T = {_MWEM_T} rounds at ε = {_MWEM_EPS:g} in all, on counting queries (one person moves an "
        "answer by 1). What is the scale of the Laplace noise on each measurement?",
        2.0 * _MWEM_T / _MWEM_EPS, rel_tol=0.01, label="Laplace scale:",
        traps=[(_MWEM_T / _MWEM_EPS, f"That is T/ε = {_MWEM_T:g}: ε/T per measurement. But each round spends its "
                                     "ε/T twice: ε/(2T) to select the query (exponential mechanism) and ε/(2T) to "
                                     "measure it."),
               (1.0 / _MWEM_EPS, "That is 1/ε: the whole budget on each measurement. MWEM makes 2T private steps, "
                                 "and their ε add up by basic composition."),
               (_MWEM_EPS / (2.0 * _MWEM_T), "That is ε/(2T), the budget of a measurement, not the noise scale: "
                                             "the scale is sensitivity over ε, 1/(ε/(2T)) = 2T/ε.")],
        solution="Each of the 2T steps gets ε/(2T) (" + _MWEM + "; ε in all by basic composition, "
                 + _MWEM_PRIVACY + "), so each measurement is Laplace(2T/ε) = Laplace(40): SD √2·40 ≈ 56.6 "
                 "people. More rounds fit more queries but measure each one worse.",
        notes=TeachingNotes(
            timing="2 min",
            wrong=("20: the selection's half of each round forgotten.", "1: the whole ε on each measurement.",
                   "0.025: the budget ε/(2T) given for the noise scale."),
            ask="What happens to the measurement noise if T doubles? Why can more rounds still help a little?")),
    "post": ChoiceProblem(
        "The tree's noisy counts are made consistent by least squares, and TopDown also makes them non-negative "
        "and integer. What do these steps cost in privacy, beyond the ε (or ρ) of the noisy counts?",
        [("Nothing: they use only the released noisy counts, so they are post-processing", True,
          "Right: any function of a DP release that does not look at the data again is as private as the release "
          "(post-processing, " + _DR_POST + "). Consistency, non-negativity, rounding and synthetic records "
          "drawn from the result are all free; they change accuracy, not privacy."),
         ("ε/(L + 1) more per pass over the tree: every node's count is changed again", False,
          "Tempting: the least-squares step changes every released number, in two passes over the tree, and a "
          "new number looks like a new release. But it is computed from the noisy counts alone, never from the "
          "data: post-processing spends no privacy."),
         ("They weaken the guarantee, because the consistent counts are more accurate", False,
          "Tempting: more accuracy usually costs privacy, as a larger ε does. But here the accuracy comes from "
          "combining redundant measurements already paid for; nothing new about the people is measured."),
         ("Nothing, but only for least squares: rounding to non-negative integers spends a little", False,
          "Tempting: clipping at 0 and rounding look like small new decisions about each county. They too are "
          "functions of the noisy counts alone, so the same theorem covers them.")],
        notes=TeachingNotes(
            timing="2 min",
            wrong=("Extra ε per pass: every changed number seen as a new release.",
                   "'More accurate, so less private': accuracy from redundancy taken for a larger ε."),
            ask="Which step would cost privacy: rounding the noisy counts, or replacing a negative count by the "
                "true count when the true count is 0?")),
    "synthetic": ChoiceProblem(
        "Synthetic records are drawn from two noisy one-attribute histograms of the same people, ε/2 each: the ages "
        "and retired / not retired. Which of these questions can the records <i>not</i> answer better than "
        "independent attributes would?",
        [("How many retired people are under 50?", True,
          "Right: age and retirement were released separately, so the records pair them at random: their "
          "answer is, in expectation, n × (share under 50) × (share retired) of the two noisy histograms, and "
          "even at ε → ∞ it stays the product of the true shares. No released statistic measured the link "
          "(post-processing answers only what its source measured, " + _DR_POST + ")."),
         ("How many people are aged 20 to 35?", False,
          "Tempting: the records are random draws and look like new, made-up data. But an age range is "
          "computed from the age histogram, which was released: up to the draw's sampling noise the records "
          "answer it as well as the noisy histogram does."),
         ("What share of the people is retired?", False,
          "Tempting, because the retired flag is drawn at random for each record. But it is drawn from the "
          "released retired / not retired histogram, so the share is preserved."),
         ("How many people are aged 65 or more?", False,
          "Tempting: 65 is the age of retirement, so the question seems to need the link. But it asks about the "
          "ages alone, which the age histogram answers.")],
        notes=TeachingNotes(
            timing="2 min",
            wrong=("The age range: synthetic records taken for fabricated data.",
                   "Aged 65 or more: a question about ages mistaken for one about retirement."),
            ask="What would the office have to release for the records to answer the first question? What would it "
                "cost?")),
    "setting": FindSetting(
        f"With at least k = {_TASK_K} queries, set the panel so that answering each query with ε/k (basic "
        "composition) is strictly more accurate than the range of w cells summed from one noisy histogram.",
        _composition_wins, live=True,
        hint="Compare the readout's two variances, 2k²/ε² and 2w/ε². Does ε change which one is smaller?",
        solution="Composition wins exactly when 2k²/ε² < 2w/ε², that is w > k², whatever ε (" + _DR_COMPOSITION
                 + "; " + _DR_PARALLEL + "). At k = 5 that needs a range of w ≥ 26 cells; at k = 11, w ≥ 122; "
                 "from k = 12 on no range of the 128 cells is wide enough.",
        notes=TeachingNotes(
            timing="3 min",
            wrong=("Moving ε: it changes both variances by the same factor and never decides.",
                   "Lowering k below 5: the task fixes the smallest k."),
            ask="What is the largest k for which some range of the 128 cells is better answered by composition?")),
    "proof": ProofIdea(
        "A binary tree over 2<sup>L</sup> cells releases every node's count with Laplace((L + 1)/ε) noise: "
        "2<sup>L+1</sup> − 1 noisy counts. Why is the whole tree ε-DP, not (2<sup>L+1</sup> − 1)·ε/(L + 1)? "
        "Write the key step, or pick it.",
        "Take neighbours that differ by one person. The nodes of one level cover disjoint sets of cells, and the "
        "person is in exactly one of them, so one level is a histogram: its counts change by 1 in total (sensitivity "
        "1 in the sum of the changes), and Laplace((L + 1)/ε) on each node makes the level ε/(L + 1)-DP (parallel "
        "composition, " + _DR_PARALLEL + "; " + _PARALLEL + "). The person is on every one of the L + 1 levels, so "
        "the levels do compose: (L + 1)·ε/(L + 1) = ε by basic composition (" + _DR_COMPOSITION + "; " + _HAY
        + "). Adding all 2<sup>L+1</sup> − 1 nodes' budgets would charge the person for nodes they are not in.",
        steps=[("one person is in one node per level: each level costs ε/(L + 1), and the L + 1 levels add up to ε",
                True,
                "Right: disjoint nodes within a level (parallel composition), overlapping levels across the tree "
                "(basic composition): (L + 1)·ε/(L + 1) = ε."),
               ("the nodes of a level are disjoint, so the whole tree costs ε/(L + 1)", False,
                "Tempting: parallel composition does apply within a level. But the levels are not disjoint: every "
                "person is counted once on each of the L + 1 levels, and those releases add up."),
               ("every node is ε/(L + 1)-DP, so basic composition over the nodes gives the bound", False,
                "Tempting: basic composition is always valid, but over all 2<sup>L+1</sup> − 1 nodes it charges "
                "each person for nodes that do not contain them: (2<sup>L+1</sup> − 1)·ε/(L + 1), far above ε.")],
        notes=TeachingNotes(
            timing="6 min (pairs, then one pair at the board)",
            wrong=("The whole tree ε/(L + 1): parallel composition applied across levels too.",
                   "Composition over all the nodes: valid but far too loose."),
            ask="What would one level cost if neighbours replaced one person by another? And the whole tree?")),
}, intro="Each problem is checked as soon as you answer; a wrong answer can be tried again, and the solution opens "
         "after your first attempt. Problem 6 is about this panel's settings.")


class ReleaseProblemsPanel(Panel):
    """The lesson's problem set, with k queries by composition against one range of the noisy histogram for its
    find-a-setting task."""

    title = "Problems: releasing many answers"
    intro = ("The figure shows the exact standard deviation of one answer against the range width w: k queries "
             "answered with ε/k each (basic composition, " + _DR_COMPOSITION + ") and a range of w cells summed "
             f"from one noisy histogram of {BINS} cells (" + _DR_PARALLEL + ").")

    controls = {
        "epsilon": LogSlider("ε (in all)", 1.0, 0.1, 10.0, step=0.1),
        "k": IntSlider("number of queries k", 10, 1, 20),
        "width": IntSlider("range width w (cells)", 16, 1, BINS),
    }
    exercises = {"problems": _PROBLEMS}

    def render(self, v) -> View:
        eps, k, w = float(v.epsilon), int(v.k), int(v.width)
        fig = P.width_error_figure(eps, k, BINS, width_mark=w, show_crossing=False)
        comp, flat = R.composition_variance(k, eps), R.histogram_range_variance(BINS, w, eps)
        rows = [(f"by composition: variance of each of the {k} answers", f"2k²/ε² = {fmt(comp, 4)}"),
                (f"from the histogram: variance of a range of {w} cells", f"2w/ε² = {fmt(flat, 4)}"),
                ("more accurate here", "the histogram" if flat < comp else "composition" if comp < flat else
                 "neither (a tie)")]
        return View(figures=[fig], readout=table(rows))
