"""Lesson 04 "Choosing privately": four panels.

* :class:`NoisyMaxPanel` — report-noisy-max on the learner's own scores: the exact probability of each candidate
  being picked for Gumbel (= the exponential mechanism), Laplace and exponential (= permute-and-flip) noise, with a
  predict-then-reveal exercise and a misconception exercise ("100 noisy scores at scale 2Δ/ε cost 50ε?");
* :class:`SelectionUtilityPanel` — the expected score gap against ε or against the number of candidates k, with the
  tail bound (2Δ/ε)·ln(k/β<sub>fail</sub>) of Dwork & Roth 2014, Cor. 3.12;
* :class:`SparseVectorPanel` — a sparse-vector run on a stream of queries: noisy threshold, ⊤/⊥ answers, the budget
  accounted after the fact (ex post), and a misconception exercise ("I pay for every query I ask");
* :class:`SparseVectorCheckPanel` — the exact privacy check of a correct and of broken sparse-vector variants.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz import selection as S
from dpviz.panels import Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Slider, View
from dpviz.panels.format import fmt, table
from dpviz.plots import selection as P

__all__ = ["NoisyMaxPanel", "SelectionUtilityPanel", "SparseVectorPanel", "SparseVectorCheckPanel"]

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
