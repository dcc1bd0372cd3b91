"""Lesson 04 "Choosing privately": four panels.

* :class:`NoisyMaxPanel` — report-noisy-max on the learner's own scores: the exact probability of each candidate
  being picked for Gumbel (= the exponential mechanism), Laplace and exponential (= permute-and-flip) noise, with a
  predict-then-reveal exercise and a misconception exercise ("100 noisy scores at scale 2Δ/ε cost 50ε?");
* :class:`SelectionUtilityPanel` — the expected score gap against ε or against the number of candidates k, with the
  tail bound (2Δ/ε)·ln(k/β<sub>fail</sub>) of Dwork & Roth 2014, Cor. 3.12;
* :class:`SparseVectorPanel` — a sparse-vector run on a stream of queries: noisy threshold, ⊤/⊥ answers, the budget
  accounted after the fact (ex post), and a misconception exercise ("I pay for every query I ask");
* :class:`SparseVectorCheckPanel` — the exact privacy check of a correct and of broken sparse-vector variants;
* :class:`SelectionProblemsPanel` — the lesson's problem set (three numeric answers, two choices, a find-a-setting
  task on the exponential mechanism's choice among one best candidate and k − 1 runners-up, a proof idea), with
  teaching notes for the teacher's edition.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz import selection as S
from dpviz.panels import Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Slider, View
from dpviz.panels.exercises import ChoiceProblem, FindSetting, NumericAnswer, ProblemSet, ProofIdea, TeachingNotes
from dpviz.panels.format import fmt, table
from dpviz.plots import selection as P
from dpviz.references import cite

__all__ = ["NoisyMaxPanel", "SelectionUtilityPanel", "SparseVectorPanel", "SparseVectorCheckPanel",
           "SelectionProblemsPanel"]

_N_SLIDERS = 6
_DEFAULT_SCORES = (10.0, 9.0, 7.0, 7.0, 3.0, 1.0)
_SUB = dict(zip(range(10), "₀₁₂₃₄₅₆₇₈₉"))


_SCOPE = {False: "general: scores may move in either direction (scale 2Δ/ε)",
          True: "monotonic: all scores move the same way, e.g. counts (scale Δ/ε)"}


def _scored(i: int):
    """The visibility rule of score slider i: shown for the first k candidates (hidden ones keep their values)."""
    return lambda v: i <= v.k


def _args(v):
    """The scores of the first k candidates, ε, Δ and whether the scores are monotonic."""
    u = np.array([float(v[f"u{i}"]) for i in range(1, int(v.k) + 1)])
    return u, float(v.epsilon), float(v.sensitivity), bool(v.monotonic)


_COST_QUESTION = ("Report-noisy-max adds Laplace noise of scale 2Δ/ε to each of k = 100 scores, and one person can "
                  "move every score by up to Δ. What does the release cost?")
_COST_OPTIONS = [
    ("50·ε: each of the 100 noisy scores is an (ε/2)-DP Laplace release, and composition adds them up.", False,
     "Tempting, and true of another release: publishing all 100 noisy scores would cost 100·ε/2 = 50·ε by "
     "basic composition (Dwork & Roth 2014, Thm 3.16), because one person moves every score. But "
     "report-noisy-max releases only the index of the winner, never the noisy scores; its proof bounds the "
     "chance of that one index directly (Dwork & Roth 2014, Claim 3.9)."),
    ("ε: only the winner's index is released, and that one output is ε-DP whatever k is.", True,
     "Right: the noisy scores stay hidden, so there is nothing to compose, and against publishing them "
     "(50·ε) that is a real saving. For disjoint counts (a histogram) there would be no saving: all the "
     "noisy counts together cost ε/2 under add/remove (parallel composition, lesson 02). Ding et al. 2021 "
     "show the exponential-noise version (permute-and-flip) at the same scale is ε-DP and never less "
     "accurate than the exponential mechanism (McKenna & Sheldon 2020)."),
    ("ε/100: the budget is shared among the candidates.", False,
     "Tempting because the noise does not grow with k. But the cost is not split: one release, one ε; "
     "with more candidates the winner is simply harder to find (the gap grows like ln k)."),
]


class NoisyMaxPanel(Panel):
    """Selection probabilities of report-noisy-max for three noises on the learner's scores."""

    title = "Report-noisy-max: which candidate gets picked?"
    intro = ("Each candidate has a score u (higher is better), e.g. the number of people who approve each option, "
             "where one person may approve several options and so move every score. "
             "Report-noisy-max adds independent noise to every score and reports only the index of the largest "
             "noisy score. Set your own scores; the bars are the exact probabilities.")

    controls = {
        "epsilon": Slider("ε", 1.0, 0.05, 5.0, step=0.05),
        "k": IntSlider("number of candidates k", 5, 2, _N_SLIDERS),
        **{f"u{i}": Slider(f"score u{_SUB[i]}", u, 0.0, 20.0, step=0.5, visible=_scored(i))
           for i, u in enumerate(_DEFAULT_SCORES, start=1)},
        "sensitivity": Slider("sensitivity Δ (a score moves by at most Δ)", 1.0, 0.5, 5.0, step=0.5),
        "monotonic": Choice("scores", [(label, key) for key, label in _SCOPE.items()], False),
    }

    def _answer(self, v) -> float:
        u, eps, s, mono = _args(v)
        p = S.selection_probabilities(u, eps, noise="gumbel", sensitivity=s, monotonic=mono)
        return float(p[u == u.max()].sum())

    def _explain(self, v, answer: float) -> str:
        rate = "ε/Δ" if bool(v.monotonic) else "ε/(2Δ)"
        return (f"The exponential mechanism picks i with probability e<sup>{rate}·u<sub>i</sub></sup> divided by the "
                "sum over all candidates (McSherry & Talwar 2007; Dwork & Roth 2014, Def. 3.4): report-noisy-max "
                "with Gumbel noise gives exactly these probabilities. Its bars are now shown.")

    # After the reveal the exponential mechanism's bars are drawn (until a control moves: predict again).
    exercises = {
        "exercise": PredictReveal(
            "The exponential mechanism's bars are hidden. For the current scores and ε, how likely is it to pick "
            "the candidate with the highest score? (Answer as a probability between 0 and 1.)",
            answer=_answer, explain=_explain, rel_tol=0.1, guess_label="P[best]:", redraw=True),
        "misconception": ChoiceReveal(_COST_QUESTION, _COST_OPTIONS),
    }

    def render(self, v) -> View:
        u, eps, s, mono = _args(v)
        revealed = self.revealed("exercise")
        probs = {n: S.selection_probabilities(u, eps, noise=n, sensitivity=s, monotonic=mono) for n in S.NOISES
                 if revealed or n != "gumbel"}
        fig = P.selection_probabilities_figure(u, eps, sensitivity=s, monotonic=mono, show_gumbel=revealed,
                                               probabilities=probs)
        best = u == u.max()
        rows = []
        for noise in S.NOISES:
            if noise not in probs:
                rows.append((P.NOISE_LABELS[noise], "? — predict below, then reveal"))
                continue
            p = probs[noise]
            gap = float(np.dot(p, u.max() - u))
            rows.append((P.NOISE_LABELS[noise], f"P[best] = {fmt(float(p[best].sum()))}, E[gap] = {fmt(gap)}"))
        rows.append(("noise scale b", f"{fmt(S.noise_scale(eps, s, mono))} for every noise; each version is "
                                      f"{fmt(eps, 3)}-DP"))
        hint = None
        if mono:
            hint = ("Monotonic scale Δ/ε: only valid if, between neighbouring data sets, all scores move in the same "
                    "direction (counts do when one person is added).")
        return View(figures=[fig], readout=table(rows), hint=hint)


class SelectionUtilityPanel(Panel):
    """Expected score gap against ε or k, three noises, with the Dwork & Roth tail bound."""

    title = "How good is the private choice? Utility against ε and the number of candidates"
    intro = ("One candidate is best; the other k − 1 are tied d below it. The gap is how much score we lose by "
             "picking privately: max u − u<sub>reported</sub> (a uniform choice loses d(k − 1)/k on average). The "
             "exact expected gap is compared with the bound "
             "(2Δ/ε)·ln(k/β<sub>fail</sub>), which the gap of the exponential mechanism exceeds with probability at "
             "most β<sub>fail</sub> (Dwork & Roth 2014, Cor. 3.12).")
    slow = True  # 60 exact probability vectors per update (up to 1000 candidates each)

    controls = {
        "against": Choice("x axis", [("against ε", "epsilon"), ("against the number of candidates k", "k")],
                          "epsilon"),
        "k": LogSlider("k candidates", 10, 10 ** 0.3, 1000.0, step=0.1, fmt=".0f", integer=True,
                       bench=[2.0, 10.0, 100.0, 1000.0]),
        "epsilon": LogSlider("ε", 1.0, 10 ** -1.3, 10 ** 1.3, step=0.1),
        "d": LogSlider("runners-up gap d", 2.0, 0.1, 10 ** 1.5, step=0.1),
        "beta": LogSlider("β<sub>fail</sub> of the bound", 0.05, 1e-4, 10 ** -0.5, step=0.1),
    }

    def render(self, v) -> View:
        against = v.against
        k, eps, d, beta = int(v.k), float(v.epsilon), float(v.d), float(v.beta)
        self.report_progress(0.1)
        # both sliders apply in both views: one sets the curve, the other the marked point and the readout
        if against == "epsilon":
            fig = P.utility_against_epsilon_figure(k, d, beta, epsilon_mark=eps)
        else:
            fig = P.utility_against_k_figure(eps, d, beta, k_mark=k)
        eps_row = eps
        self.report_progress(0.9)
        u = np.r_[0.0, np.full(k - 1, -d)]
        rows = [("at k = " + str(k) + ", ε = " + fmt(eps_row, 3), ""),
                *[(f"E[gap], {P.NOISE_LABELS[n]}", fmt(S.expected_gap(u, eps_row, noise=n))) for n in S.NOISES],
                ("P[gap = d] for the exponential mechanism (exact)",
                 fmt(float(S.selection_probabilities(u, eps_row)[1:].sum()))),
                ("tail bound (2Δ/ε)·ln(k/β<sub>fail</sub>)", fmt(S.gap_tail_bound(k, eps_row, beta)))]
        return View(figures=[fig], readout=table(rows))


#: The seed of the sparse-vector panel's query stream: the same answers every time, so the panel shows the noise, not
#: a new data set.
STREAM_SEED = 20170101


_SVT_QUESTION = ("You ask 1,000 queries with the sparse vector technique (c = 1 positive, total ε = 1) and the first "
                 "999 answers are ⊥. What have you spent?")
_SVT_OPTIONS = [
    ("999 × something: every query I ask touches the data, so every query costs privacy.", False,
     "Tempting, and true of answering each query with the Laplace mechanism (composition adds up). But "
     "the sparse vector's proof charges only the threshold (ε/2 up front) and the positives (ε/(2c) each): "
     "a ⊥ is almost determined by the noisy threshold already paid for (Lyu, Su & Li 2017, Thm 2)."),
    ("ε/2 so far (the noisy threshold); the first ⊤ will use the other ε/2, then the algorithm stops.", True,
     "Right, as an account after the fact: negatives are free, which is why the technique can scan very "
     "many queries (Dwork & Roth 2014, Thm 3.23). The price: it must halt after c positives, and its noise "
     "grows with c. The run's guarantee, fixed before it started, is still ε."),
    ("Nothing yet: the budget is only spent when a ⊤ is released.", False,
     "Almost: the positives do carry the per-query share, but the noisy threshold's ε/2 is committed as "
     "soon as the first answer is released."),
]


class SparseVectorPanel(Panel):
    """A sparse-vector run: queries, noisy threshold, ⊤/⊥, the budget spent."""

    title = "Sparse vector: which of many queries are above a threshold?"
    intro = ("An analyst asks a stream of counting queries (Δ = 1) and only wants to know which ones are above the "
             "threshold T. The sparse vector technique draws a noisy threshold once, compares each noisy answer with "
             "it, and stops after c positives (⊤). Every ⊥ is free. Move the noise draw to rerun it.")

    controls = {
        "epsilon": Slider("ε (total)", 1.0, 0.1, 5.0, step=0.1),
        "threshold": Slider("threshold T", 70.0, 0.0, 100.0, step=1.0),
        "max_positives": IntSlider("c: stop after this many ⊤", 1, 1, 5),
        "n_queries": IntSlider("queries asked", 30, 5, S.EXAMPLE_STREAM_LENGTH, step=5),
        "seed": IntSlider("noise draw (random seed)", 0, 0, 50),
    }
    exercises = {"misconception": ChoiceReveal(_SVT_QUESTION, _SVT_OPTIONS)}

    def render(self, v) -> View:
        n, c = int(v.n_queries), int(v.max_positives)
        q = S.example_query_stream(n, STREAM_SEED)
        eps, T = float(v.epsilon), float(v.threshold)
        r = S.above_threshold(q, T, eps, max_positives=min(c, n), rng=int(v.seed))
        f1 = P.sparse_vector_stream_figure(q, T, r)
        f2 = P.sparse_vector_budget_figure(r, n)
        above = int(np.sum(q >= T))
        t_scale, q_scale, _ = S.sparse_vector_scales(eps, 1.0, min(c, n))
        rows = [("queries answered", f"{len(r.answers)} of {n} ({'halted' if r.halted else 'stream finished'})"),
                ("⊤ reported at queries", ", ".join(str(i + 1) for i in r.positives) or "none"),
                ("queries truly ≥ T (not released)", str(above)),
                ("ε accounted so far (ex post)", f"{fmt(r.epsilon_spent, 3)} of the guarantee ε = {fmt(eps, 3)} "
                                                 f"(Laplace per query would need {fmt(len(r.answers) * eps, 3)})"),
                ("noise scales", f"threshold Z<sub>T</sub> ~ Lap({fmt(t_scale, 3)}), each query Z<sub>i</sub> ~ "
                                 f"Lap({fmt(q_scale, 3)})")]
        return View(figures=[f1, f2], readout=table(rows))


def _pair(n: int) -> tuple[list[float], list[float]]:
    """x = (0, 1, 0, 1, …) and its neighbour x′ = (1, 0, 1, 0, …): every answer moves by Δ = 1."""
    d = [float(i % 2) for i in range(n)]
    return d, [1.0 - x for x in d]


class SparseVectorCheckPanel(Panel):
    """Exact privacy check: the correct sparse vector against broken variants."""

    title = "Checking the sparse vector exactly: a correct and two broken variants"
    intro = ("For two neighbouring inputs x = (0, 1, 0, 1, …) and x′ = (1, 0, 1, 0, …) (each query moves by Δ = 1), "
             "threshold T = 0.5, the probability of every possible output pattern is computed exactly (a 1-D "
             "integral over the threshold noise). ε-DP requires every privacy loss ln(P[o | x]/P[o | x′]) to stay "
             "within ±ε. Published variants that drop one ingredient fail (Lyu, Su & Li 2017).")

    controls = {
        "epsilon": Slider("ε", 1.0, 0.1, 3.0, step=0.1),
        "variant": Choice("variant", [("correct (Lyu, Su & Li 2017, Alg. 1)", "correct"),
                                      ("broken: no noise on the queries (Alg. 5)", "no_query_noise"),
                                      ("broken: no cutoff, may report every ⊤ (Alg. 6)", "no_cutoff")], "correct"),
        "n_queries": IntSlider("number of queries", 3, 1, 6),
    }

    def render(self, v) -> View:
        eps, variant, n = float(v.epsilon), v.variant, int(v.n_queries)
        d, d2 = _pair(n)
        losses = S.sparse_vector_privacy_loss(d, d2, 0.5, eps, variant=variant)
        fig = P.sparse_vector_check_figure(losses, eps, variant)
        worst = max(abs(x) for x in losses.values())
        ok = worst <= eps * (1 + 1e-9)
        rows = [("largest |privacy loss| over patterns", fmt(worst)),
                ("verdict on this pair", f"within ε = {fmt(eps, 3)}" if ok else
                 f"exceeds ε = {fmt(eps, 3)}: not {fmt(eps, 3)}-DP"),
                ("what this variant does", S.SVT_VARIANTS[variant])]
        hint = None
        if variant == "no_cutoff":
            hint = "Add queries: without a cutoff the loss grows with the number of queries, past any ε."
        elif variant == "no_query_noise" and math.isinf(worst):
            hint = "∞: some pattern is possible on x and impossible on x′ — one output reveals which data set it was."
        return View(figures=[fig], readout=table(rows), hint=hint)


# ============================================================================================ the problem set

_DR_EXP = cite("dwork2014algorithmic", "Thm 3.10")
_DR_TAIL = cite("dwork2014algorithmic", "Cor. 3.12")
_DR_RNM = cite("dwork2014algorithmic", "Claim 3.9")
_DR_COMPOSITION = cite("dwork2014algorithmic", "Thm 3.16")
_LSL_SVT = cite("lyu2017understanding", "Thm 2")
_PARALLEL = cite("mcsherry2009privacy", "Thm 2")

#: The find-a-setting task: at least this many candidates, ε at most this, P[best] at least this.
_TASK_K, _TASK_EPS, _TASK_P = 10, 1.0, 0.9


def _instance(v) -> np.ndarray:
    """One best candidate with score d and k − 1 runners-up at score 0 (d below it)."""
    return np.r_[float(v.d), np.zeros(int(v.k) - 1)]


def _best_probability(v) -> float:
    """P[the exponential mechanism picks the best] on the problems panel's instance (Δ = 1)."""
    p = S.selection_probabilities(_instance(v), float(v.epsilon), noise="gumbel", monotonic=bool(v.monotonic))
    return float(p[0])


def _picks_the_best(_panel, v) -> bool:
    """Problem 6: general scores, k ≥ 10, ε ≤ 1, and the exponential mechanism picks the best with probability
    at least 0.9."""
    return (not bool(v.monotonic) and int(v.k) >= _TASK_K and float(v.epsilon) <= _TASK_EPS + 1e-9
            and _best_probability(v) >= _TASK_P)


_PROBLEMS = ProblemSet("Problems: choosing privately", {
    "softmax": NumericAnswer(
        "Three candidates have scores u = (6, 4, 0), which may move in either direction by Δ = 1 between "
        "neighbours. With what probability does the exponential mechanism at ε = 1 pick candidate 1?",
        math.exp(3) / (math.exp(3) + math.exp(2) + 1), abs_tol=0.005, label="P[1] =",
        traps=[(math.exp(6) / (math.exp(6) + math.exp(4) + 1),
                "That uses the weights e<sup>ε·u<sub>i</sub>/Δ</sup> of monotonic scores. These scores may move in "
                "either direction, so the weights are e<sup>ε·u<sub>i</sub>/(2Δ)</sup> = e<sup>u<sub>i</sub>/2</sup>."),
               (0.6, "That is 6/(6 + 4 + 0): probabilities proportional to the scores. The exponential mechanism "
                     "weighs each candidate by the <i>exponential</i> of its score."),
               (1 / 3, "That is a uniform choice, what the mechanism does as ε → 0. At ε = 1 the scores matter.")],
        solution="P[i] ∝ e<sup>ε·u<sub>i</sub>/(2Δ)</sup> = e<sup>u<sub>i</sub>/2</sup> (" + _DR_EXP + "), so "
                 "P[1] = e³/(e³ + e² + e⁰) = 20.09/(20.09 + 7.39 + 1) ≈ 0.705. Report-noisy-max with Gumbel noise "
                 "of scale 2Δ/ε = 2 picks with exactly these probabilities.",
        notes=TeachingNotes(
            timing="3 min",
            wrong=("0.879: the monotonic weights e<sup>ε·u/Δ</sup> used for scores that may move either way.",
                   "0.6: probabilities proportional to the scores (no exponential).",
                   "0.333: the scores ignored."),
            ask="What does the probability become at ε = 0.1, and at ε = 10? Which way does candidate 3's chance go?")),
    "tail": NumericAnswer(
        "The exponential mechanism chooses among k = 1000 candidates with scores of sensitivity Δ = 1, at ε = 1. "
        "By the tail bound, below which value does the gap max u − u<sub>reported</sub> stay with probability at "
        "least 1 − β<sub>fail</sub> = 95%?",
        2.0 * math.log(1000 / 0.05), rel_tol=0.01, label="gap below:",
        traps=[(math.log(1000 / 0.05), "That is ln(k/β<sub>fail</sub>) without its factor 2Δ/ε = 2: the bound is "
                                       "(2Δ/ε)·ln(k/β<sub>fail</sub>)."),
               (2.0 * math.log(1000), "That is (2Δ/ε)·ln k, the bound with t = 0, which holds with probability "
                                      "at least 1 − e⁰ = 0: no guarantee. The 95% needs t = ln(1/β<sub>fail</sub>) "
                                      "= ln 20."),
               (2.0 * math.log(1000 * 0.05), "That is (2Δ/ε)·ln(k·β<sub>fail</sub>): β<sub>fail</sub> multiplied "
                                             "instead of divided. A smaller failure probability must give a "
                                             "<i>larger</i> bound.")],
        solution="The gap exceeds (2Δ/ε)(ln k + t) with probability at most e<sup>−t</sup> (" + _DR_TAIL + "). With "
                 "t = ln(1/β<sub>fail</sub>) = ln 20: (2Δ/ε)·ln(k/β<sub>fail</sub>) = 2·ln 20,000 ≈ 19.8. Ten times "
                 "more candidates add only 2·ln 10 ≈ 4.6 to it.",
        notes=TeachingNotes(
            timing="3 min",
            wrong=("9.9: the factor 2Δ/ε forgotten.", "13.8: β<sub>fail</sub> left out.",
                   "7.8: β<sub>fail</sub> multiplied rather than divided."),
            ask="How much does the bound grow from k = 1000 to k = 1,000,000? And from β<sub>fail</sub> = 5% to "
                "0.5%?")),
    "svt_scale": NumericAnswer(
        "A sparse-vector run on counting queries (Δ = 1) may report c = 2 answers ⊤ and is ε-DP with ε = 0.5. What "
        "is the scale of the fresh Laplace noise Z<sub>i</sub> added to each query?",
        4 * 2 * 1.0 / 0.5, rel_tol=0.01, label="scale of Z<sub>i</sub>:",
        traps=[(4.0, "That is the threshold noise Z<sub>T</sub> ~ Lap(2Δ/ε), drawn once. Each query's noise is "
                     "larger: it pays for up to c answers ⊤ out of the other ε/2."),
               (8.0, "That is 4Δ/ε, the scale for c = 1. With c answers ⊤ each may use only ε/(2c), so the "
                     "scale is 4cΔ/ε."),
               (1 / 16, "That is ε/(4cΔ), the reciprocal of the scale: a smaller ε must mean <i>more</i> noise.")],
        solution="Each query gets Z<sub>i</sub> ~ Lap(4cΔ/ε) = Lap(4·2·1/0.5) = Lap(16), the threshold "
                 "Z<sub>T</sub> ~ Lap(2Δ/ε) = Lap(4) (" + _LSL_SVT + "). The threshold's noise pays ε/2, each of "
                 "the at most c answers ⊤ pays ε/(2c): ε/2 + c·ε/(2c) = ε.",
        notes=TeachingNotes(
            timing="2 min",
            wrong=("4: the threshold's scale given for the queries'.", "8: c left out of 4cΔ/ε.",
                   "0.0625: the scale inverted."),
            ask="Why does each query's noise grow with c, while the threshold's does not?")),
    "histogram": ChoiceProblem(
        "A plurality vote: each person picks exactly one of k = 20 options, and neighbours add or remove one "
        "person. You publish all 20 counts, each with its own Lap(1/ε) noise. What does the whole release cost?",
        [("ε: each person is in one count only", True,
          "Right: one person moves one count by one, so the 20 releases are about disjoint groups of people and "
          "cost ε together (parallel composition, " + _PARALLEL + "). Their argmax is post-processing ("
          + cite("dwork2014algorithmic", "Prop. 2.1") + "): here report-noisy-max saves no privacy, it only "
          "publishes less."),
         ("20·ε: twenty ε-DP releases add up", False,
          "Tempting: each noisy count is an ε-DP release, and basic composition adds the ε of releases about the "
          "same people (" + _DR_COMPOSITION + "). But a person who picks one option is in one count only: the "
          "counts are over disjoint groups, and their ε do not add."),
         ("2·ε: one person moves two counts", False,
          "Tempting from lesson 02: under <i>replace-one</i> neighbours a person moves from one count to another, "
          "and two counts change. Here neighbours add or remove a person, who moves one count only.")],
        notes=TeachingNotes(
            timing="2 min",
            wrong=("20·ε: sequential composition applied to counts over disjoint groups.",
                   "2·ε: the replace-one relation's two changed counts used under add/remove."),
            ask="In an approval vote, where a person may approve all 20 options, what would publishing the 20 "
                "noisy counts cost?")),
    "monotonic": ChoiceProblem(
        "An approval vote: each person approves any number of the k options, u<sub>i</sub> counts the approvals "
        "of option i, and neighbours add or remove one person (Δ = 1). What is the smallest Laplace scale at "
        "which report-noisy-max is ε-DP, by the rule of this lesson?",
        [("Δ/ε: adding a person can only raise scores", True,
          "Right: adding a person raises each score by 0 or 1, and removing one lowers them: the scores are "
          "monotonic, so the scale Δ/ε suffices (" + _DR_RNM + ", there for counts)."),
         ("2Δ/ε: one person moves every score", False,
          "Tempting: 2Δ/ε is the general scale, and it is ε-DP here too, but with twice the noise needed. The 2 "
          "pays for scores that move in opposite directions between neighbours; approval counts all move the same "
          "way."),
         ("kΔ/ε: the noise must cover all k scores", False,
          "Tempting, because publishing all k noisy scores would compose. But report-noisy-max releases only the "
          "index of the winner, and its proof bounds the chance of that one index directly: the scale does not "
          "grow with k.")],
        notes=TeachingNotes(
            timing="3 min",
            wrong=("2Δ/ε: the general scale, valid but not the smallest for monotonic scores.",
                   "kΔ/ε: composition over the k noisy scores, which are never released."),
            ask="Give scores that are not monotonic: a score that can go up while another goes down when one "
                "person is added.")),
    "setting": FindSetting(
        f"With scores that may move in either direction, at least k = {_TASK_K} candidates and ε at most "
        f"{_TASK_EPS:g}, set the panel so that the exponential mechanism picks the best candidate with probability "
        f"at least {_TASK_P:g}.",
        _picks_the_best, live=True,
        hint="P[best] = e<sup>ε·d/(2Δ)</sup>/(e<sup>ε·d/(2Δ)</sup> + k − 1). Which control makes the best candidate "
             "stand out more, without touching ε?",
        solution="At k = 10 and ε = 1, P[best] ≥ 0.9 needs e<sup>d/2</sup> ≥ 9·(k − 1) = 81, that is a runners-up "
                 "gap d ≥ 2·ln 81 ≈ 8.79: d = 9 does it (" + _DR_EXP + "). More candidates need a larger d, and "
                 "switching to monotonic scores would halve the d needed, but these scores may move either way.",
        notes=TeachingNotes(
            timing="4 min",
            wrong=("Switching the scores to monotonic: not allowed for scores that may move either way.",
                   "Raising ε above 1, or lowering k below 10: the task fixes both limits."),
            ask="At d = 9, how many candidates k can there be before P[best] drops below 0.9?")),
    "proof": ProofIdea(
        "Why is the exponential mechanism, P[i] ∝ e<sup>ε·u<sub>i</sub>/(2Δ)</sup>, ε-DP? Write the key step of "
        "the proof, or pick it.",
        "On neighbours x and x′, P[i | x]/P[i | x′] is the product of two ratios. The numerators "
        "e<sup>ε·u<sub>i</sub>(x)/(2Δ)</sup>/e<sup>ε·u<sub>i</sub>(x′)/(2Δ)</sup> differ by at most e<sup>ε/2</sup>, "
        "because one score moves by at most Δ. The normalising sums Σ<sub>j</sub> e<sup>ε·u<sub>j</sub>/(2Δ)</sup> "
        "differ by at most e<sup>ε/2</sup> too, because every term does. So the ratio is at most "
        "e<sup>ε/2</sup>·e<sup>ε/2</sup> = e<sup>ε</sup> (" + _DR_EXP + "). For monotonic scores the numerator and "
        "the sum move the same way, so one of the two factors is at most 1, and the weights "
        "e<sup>ε·u<sub>i</sub>/Δ</sup> give ε.",
        steps=[("numerator and sum each move by ≤ exp(ε/2)", True,
                "Right: the winner's weight and the normalising sum each change by a factor of at most "
                "e<sup>ε/2</sup>, and the two factors multiply to e<sup>ε</sup>. That is why the rate is "
                "ε/(2Δ), not ε/Δ."),
               ("the winner's score moves by at most Δ", False,
                "Tempting: that bounds the numerator, by e<sup>ε/2</sup>. But the probability is a ratio, and the "
                "other candidates' weights in the normalising sum move too: forgetting them is forgetting the "
                "second factor e<sup>ε/2</sup>."),
               ("the probabilities sum to 1", False,
                "Tempting: it is what the normalising sum is for. But any choice rule sums to 1, private or not; "
                "the proof needs how far each probability can move between neighbours.")],
        notes=TeachingNotes(
            timing="6 min (pairs, then one pair at the board)",
            wrong=("Only the numerator bounded: the proof then seems to give ε/2, and the factor 2 a waste.",
                   "'It is a probability distribution': true of every mechanism."),
            ask="Where does the proof use that every score moves by at most Δ, not only the winner's? What changes "
                "for monotonic scores?")),
}, intro="Each problem is checked as soon as you answer; a wrong answer can be tried again, and the solution opens "
         "after your first attempt. Problem 6 is about this panel's settings.")


class SelectionProblemsPanel(Panel):
    """The lesson's problem set, with the exponential mechanism's choice among one best candidate and k − 1
    runners-up for its find-a-setting task."""

    title = "Problems: choosing privately"
    intro = ("One best candidate has score d, the other k − 1 score 0. The bars are the exact probabilities that "
             "report-noisy-max picks each candidate, at noise scale 2Δ/ε (Δ/ε for monotonic scores) with Δ = 1; "
             "Gumbel noise gives the exponential mechanism (" + cite("dwork2014algorithmic", "Def. 3.4") + ").")

    controls = {
        "epsilon": Slider("ε", 0.5, 0.1, 3.0, step=0.05),
        "k": IntSlider("number of candidates k", 10, 2, 20),
        "d": Slider("runners-up gap d", 2.0, 0.5, 20.0, step=0.5),
        "monotonic": Choice("scores", [(label, key) for key, label in _SCOPE.items()], False),
    }
    exercises = {"problems": _PROBLEMS}

    def render(self, v) -> View:
        u, eps, mono = _instance(v), float(v.epsilon), bool(v.monotonic)
        probs = {n: S.selection_probabilities(u, eps, noise=n, monotonic=mono) for n in S.NOISES}
        fig = P.selection_probabilities_figure(u, eps, monotonic=mono, probabilities=probs)
        rows = [("noise scale b", fmt(S.noise_scale(eps, 1.0, mono))),
                *[(f"P[best], {P.NOISE_LABELS[n]}", fmt(float(probs[n][0]))) for n in S.NOISES]]
        return View(figures=[fig], readout=table(rows))
