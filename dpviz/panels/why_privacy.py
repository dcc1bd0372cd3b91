"""Lesson 01 "Why privacy is hard": four attacks on released data, one panel each.

* :class:`DifferencingPanel` — two counts that differ by one person reveal that person; Laplace noise on each count
  turns certainty into a guess (with a predict-then-reveal exercise on how often the guess is right);
* :class:`LinkagePanel` — a release without names joined with a voter roll on the quasi-identifiers (Sweeney 2002):
  who is unique, who is re-identified, k-anonymity's k under each coarsening, and (after a misconception exercise)
  who is still revealed through a class whose rows all share the condition;
* :class:`ReconstructionPanel` — the reconstruction attack of Dinur & Nissim 2003: fraction of secret bits recovered
  against the noise, √n marked (a ``slow`` panel with a progress bar; a misconception exercise);
* :class:`MembershipPanel` — membership inference on a released count, on lesson 03's trade-off axes (a
  misconception exercise);
* :class:`WhyPrivacyProblemsPanel` — the lesson's problem set (two numeric answers, two choices, a find-a-setting
  task on the differencing attack's ε per answer, a proof idea), with teaching notes for the teacher's edition.
"""

from __future__ import annotations

import html
import math

import numpy as np

from dpviz.attacks import (
    GENERALISATIONS,
    ReconstructionCurve,
    differencing_attack,
    differencing_success_probability,
    expected_unique_fraction,
    least_squares_error_sd,
    linkage_by_generalisation,
    membership_tradeoff,
    reconstruction_curve,
    synthetic_table,
    voter_roll,
)
from dpviz.panels import Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Slider, View
from dpviz.panels.exercises import ChoiceProblem, FindSetting, NumericAnswer, ProblemSet, ProofIdea, TeachingNotes
from dpviz.panels.format import fmt, table
from dpviz.plots import why_privacy as P
from dpviz.references import cite

__all__ = ["DifferencingPanel", "LinkagePanel", "ReconstructionPanel", "MembershipPanel", "WhyPrivacyProblemsPanel"]

_TABLE_SEED = 2024  # the lesson's synthetic table: the same people every time
_TABLE = synthetic_table(8, _TABLE_SEED)
_ROLL_SEED = 7  # the linkage panel's voter roll: drawn from (_ROLL_SEED, draw), apart from the people


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


def _noisy_release(v) -> bool:
    """The differencing panel's noise controls are shown only for the noisy release."""
    return v.release == "laplace"


class DifferencingPanel(Panel):
    """Differencing attack on a small synthetic table, exact and with Laplace noise."""

    title = "A differencing attack: two innocent counts reveal one person"
    intro = ("The database only answers counts. The attacker asks “how many people have the condition?” and then "
             "“how many people, other than the one I am after, have it?” (in practice the second question hides the "
             "exclusion behind innocent filters such as age and town). The difference is the target's secret.")

    controls = {
        "epsilon": Slider("ε per answer (Laplace scale b = 1/ε)", 1.0, 0.1, 5.0, step=0.1, visible=_noisy_release),
        "target": Choice("target", [(f"{name}", i) for i, name in enumerate(_TABLE.names)], 0),
        "release": Choice("answers released", [("exactly", "exact"), ("with Laplace noise", "laplace")], "exact",
                          bench=["laplace", "exact"]),
        "draw": IntSlider("noise draw (seed)", 0, 0, 50, visible=_noisy_release),
    }

    def _answer(self, v) -> float:
        return 100.0 * differencing_success_probability(1.0 / float(v.epsilon))

    def _explain(self, v, answer: float) -> str:
        bound = 100.0 / (1.0 + math.exp(-2 * float(v.epsilon)))
        return (f"Exactly 100·(1 − e<sup>−ε/2</sup>(2 + ε/2)/4) = {answer:.3g} % (the difference carries the noise "
                f"of both answers). Two ε-DP answers are 2ε-DP together (Dwork & Roth 2014, Thm 3.16), and no "
                f"guess about one person can then be right more than e<sup>2ε</sup>/(1 + e<sup>2ε</sup>) = "
                f"{bound:.3g} % of the time (Kairouz, Oh & Viswanath 2015, Thm 2.1). Without noise: 100 %.")

    def _question(self, v) -> str:
        eps = float(v.epsilon)
        return (f"With Laplace noise at ε = {eps:.3g} per answer (b = {1 / eps:.3g}), in what percentage of attacks "
                "does the guess “difference ≥ ½ ⇒ has it” get the target right?")

    # After the reveal the success rate is tabulated (until a control moves: predict again).
    exercises = {"exercise": PredictReveal(_question, answer=_answer, explain=_explain, rel_tol=0.05, unit=" %",
                                           guess_label="your %:", redraw=True)}

    def render(self, v) -> View:
        target, noisy = int(v.target), v.release == "laplace"
        b = 1.0 / float(v.epsilon) if noisy else 0.0
        r = differencing_attack(_TABLE.has_condition, target, noise_scale=b, rng=int(v.draw))
        fig = P.differencing_figure(b, r.difference)
        name = html.escape(_TABLE.names[target])
        rows = [("answer 1: how many have it (everyone)", fmt(r.answer_all)),
                (f"answer 2: how many have it (everyone but {name})", fmt(r.answer_without)),
                ("difference", fmt(r.difference)),
                ("attacker concludes", f"{name} {'HAS' if r.guess else 'does NOT have'} the condition — "
                                       f"{'right' if r.correct else 'wrong'}")]
        if noisy:
            p = differencing_success_probability(b)
            rows.append(("P[the guess is right] over all noise draws",
                         f"{100 * p:.3g} %" if self.revealed("exercise") else "? — predict it below, then reveal"))
        return View(figures=[fig], readout=_people_table(target) + table(rows))


_RELEASES = [(P.generalisation_label(w, keep), i) for i, (w, keep) in enumerate(GENERALISATIONS)]

_LINKAGE_QUESTION = ("Choose “10-year age band + town” at n = 100, draw 0: nobody is unique any more (k = 2, every row "
                     "shares its age band and town with at least one other). Is every person's condition now hidden "
                     "from someone who holds the voter roll?")
_LINKAGE_OPTIONS = [
    ("Yes: no row is unique, so no name can be put on a row.", False,
     "Tempting: with k ≥ 2 the roll links no name to a single row. But the attacker does not need the row. "
     "If everyone in a person's group of alike rows has the condition (or nobody has), the group alone "
     "tells: the green bars, now shown, count those people. k-anonymity counts rows; it says nothing about "
     "what the rows contain (re-identification is not the only risk: Dwork & Roth 2014, §1)."),
    ("No: a group whose rows all share the condition still reveals it, and a second release coarsened "
     "differently can be lined up with this one.", True,
     "k-anonymity hides which row is yours, not what your group says: a group that is all alike "
     "discloses everyone in it (the green bars, now shown). And two releases of the same rows, each "
     "k-anonymous, one coarsening age and one suppressing town, can be lined up and together give back the "
     "exact age and town (Sweeney 2002, §4). Differential privacy bounds instead how well anyone, with any "
     "register, can tell apart two data sets that differ in one person, and two ε-DP releases are together "
     "2ε-DP (Dwork & Roth 2014, Thm 3.16)."),
    ("Yes, as long as the voter roll lists fewer than half of the people.", False,
     "The roll decides how many people the attacker can look up, not how exposed each of them is: lower the "
     "coverage and the bars shrink in proportion, none vanishes. The next list (a club's members, a "
     "social-media profile) may name the others."),
    ("It is as safe as differential privacy with ε = 1/k.", False,
     "There is no such correspondence. k-anonymity is a property of one released table; differential "
     "privacy is a property of the process that produced it. A 2-anonymous table can reveal a person's "
     "condition with certainty (the green bars, now shown), which no ε-DP release with a finite ε can."),
]


class LinkagePanel(Panel):
    """Linkage attack (Sweeney 2002) on lesson 01's quasi-identifiers, under every coarsening, with k-anonymity."""

    title = "A linkage attack: a release without names, and a voter roll with them"
    intro = ("The agency releases one row per person: age, town and whether they have the condition, names removed. "
             "The voter roll lists names with age and town. Joining the two on (age, town) puts a name on every row "
             "no other row shares. Coarsening (age in bands, no town) makes rows alike; k, the size of the smallest "
             "group of alike rows, is k-anonymity's measure. At n = 8, draw 0 the people are the table above.")

    controls = {
        "n": IntSlider("people n in the release", 100, 8, 500, step=4),
        "coverage": Slider("voter roll lists (fraction of the n)", 0.6, 0.1, 1.0, step=0.05),
        "release": Choice("released quasi-identifiers", _RELEASES, 0),
        "draw": IntSlider("random draw (seed)", 0, 0, 20),
    }
    # Once answered (right or wrong), the disclosures without a unique row are drawn and counted for good.
    exercises = {"exercise": ChoiceReveal(_LINKAGE_QUESTION, _LINKAGE_OPTIONS, redraw=True, sticky=True)}

    def render(self, v) -> View:
        n, draw, sel = int(v.n), int(v.draw), int(v.release)
        coverage = float(v.coverage)
        revealed = self.revealed("exercise")
        people = synthetic_table(n, _TABLE_SEED + draw)  # n = 8, draw 0: the table of the differencing panel
        roll = voter_roll(n, coverage, (_ROLL_SEED, draw))
        results = linkage_by_generalisation(people.ages, people.towns, people.has_condition, roll)
        expected = [expected_unique_fraction(n, w, keep) for w, keep in GENERALISATIONS]
        fig = P.linkage_figure(list(results), sel, show_disclosed=revealed, expected=expected)
        r = results[sel]
        listed = int(roll.sum())

        def share(count: int) -> str:
            return f"{count} ({100 * count / n:.3g} % of n)"

        def who(i: int) -> str:
            cond = "has" if people.has_condition[i] else "does not have"
            return (f"{html.escape(people.names[i])} ({int(people.ages[i])}, {html.escape(people.towns[i])}): "
                    f"{cond} the condition")

        named = np.flatnonzero(r.reidentified)
        released = html.escape(P.generalisation_label(r.age_band, r.keep_town))
        rows = [("release (names removed)", f"{n} people; {released}; has the condition"),
                ("voter roll (public, with names)", f"{listed} of the {n} people"),
                ("unique on the released quasi-identifiers", share(int(r.unique.sum()))),
                ("re-identified by name (unique, on the roll)", share(named.size)),
                ("k-anonymity: the smallest group of alike rows", f"k = {r.k}")]
        if named.size:
            rows.append(("for example", "; ".join(who(i) for i in named[:2])))
        if revealed:
            hidden = np.flatnonzero(r.disclosed & ~r.reidentified)
            rows.append(("condition revealed (on the roll: unique, or group all alike)",
                         share(int(r.disclosed.sum())) + f", {hidden.size} of them not unique"))
            if hidden.size:
                i = hidden[0]
                rows.append(("for example, without a unique row",
                             who(i) + f" (a group of {int(r.class_size[i])}, all alike)"))
        else:
            rows.append(("condition revealed without a unique row", "? — answer the question below first"))
        hint = None
        if r.k >= 2 and not revealed:
            hint = (f"k = {r.k}: no row is unique, so no name can be put on a row. Is everyone's condition hidden? "
                    "Answer the question below.")
        return View(figures=[fig], readout=table(rows), hint=hint)


_RECONSTRUCTION_QUESTION = (
    "An agency holds one yes/no secret for each of 400 people. It answers only aggregate questions (“how many people "
    "in this group of about 200 have it?”) and adds a random error of up to ±5 to every answer. It answers 2000 such "
    "questions. Is that safe?")
_RECONSTRUCTION_OPTIONS = [
    ("Yes: every answer is about a large group, so no answer is about any one person.", False,
     "Tempting, because each count mixes hundreds of people. But many counts over overlapping groups form "
     "a system of equations in the n secrets, and 2000 answers pin the secrets down. Set n = 400, "
     "m/n = 5 and E = 5 above: nearly every bit comes back (Dinur & Nissim 2003; Dwork & Roth 2014, "
     "§8.1)."),
    ("Yes: each answer can be wrong by ±5, so the attacker cannot trust any single answer.", False,
     "True of one answer, but errors average out over many: least squares errs on each bit by about "
     "2E/√(3(m − n)), here 2·5/√4800 ≈ 0.14, far below the ½ needed to flip a bit."),
    ("No: with enough answers whose errors are well below √n = 20, almost every secret can be "
     "reconstructed.", True,
     "Right. Dinur & Nissim 2003 prove that noise o(√n) on n log²n random subset sums lets an efficient "
     "attacker recover all but a small fraction of the bits. Either the noise grows to the order of √n per "
     "answer or the number of answers must be limited: differential privacy makes that trade-off "
     "precise (lesson 02 onwards)."),
    ("No, but only because the attacker could ask about a group of one person.", False,
     "Every group here holds about half the people; no question singles anyone out, and the attack "
     "still works. Refusing small groups does not help."),
]


class ReconstructionPanel(Panel):
    """Dinur & Nissim's reconstruction attack: fraction of secret bits recovered against the noise."""

    title = "Reconstruction: many noisy counts reveal (almost) everyone"
    intro = ("Each of n people has a secret bit. The attacker asks m counts over random groups (“how many in this "
             "group have bit 1?”) and each answer is off by a random amount of at most ±E. Least squares turns the "
             "answers back into the bits (Dinur & Nissim 2003 use linear programming). The curve: how many bits "
             "come back, for every E.")
    slow = True

    controls = {
        "noise": LogSlider("noise bound E (each answer ± at most E)", 2.0, 0.1, 1000.0, step=0.1),
        "n": IntSlider("people n", 100, 20, 500, step=10, bench=[20, 100, 300, 500]),
        "ratio": IntSlider("queries per person m/n", 5, 1, 10),
        "draw": IntSlider("random draw (seed)", 0, 0, 20),
    }
    exercises = {"exercise": ChoiceReveal(_RECONSTRUCTION_QUESTION, _RECONSTRUCTION_OPTIONS)}

    def __init__(self, **overrides):
        self._cache: tuple[tuple, ReconstructionCurve] | None = None  # the last curve: moving E reuses it
        super().__init__(**overrides)

    def _curve(self, n: int, m: int, seed: int):
        key = (n, m, seed)
        if self._cache is None or self._cache[0] != key:
            es = np.concatenate([[0.0], 10.0 ** np.linspace(-1.0, 3.0, 81)])
            curve = reconstruction_curve(n, m, es, trials=3, rng=seed, progress=self.report_progress)
            self._cache = (key, curve)
        return self._cache[1]

    def render(self, v) -> View:
        n, ratio, seed = int(v.n), int(v.ratio), int(v.draw)
        m = n * ratio
        e = float(v.noise)
        curve = self._curve(n, m, seed)
        # the first draw at the slider's E: the slider's values 10^(−1 + 0.1k) are points of the curve's grid
        # 10^(−1 + 0.05j), where each draw's fraction is exact (nearest point in log E, to absorb rounding)
        es = np.asarray(curve.noise_scales)
        i = 1 + int(np.argmin(np.abs(np.log10(es[1:]) - math.log10(e))))
        frac = float(curve.per_trial[0][i])
        fig = P.reconstruction_figure(curve, e, frac, seed=seed)
        rn = math.sqrt(n)
        spread = (f"{least_squares_error_sd(n, m, e):.3g} (a bit flips past ½)" if m > n
                  else "large: with m = n no answers are left to average")
        rows = [("n people, m answers", f"{n}, {m}"),
                ("noise bound E, and E/√n", f"{fmt(e)}, {e / rn:.3g}·√n"),
                ("least-squares error per bit, ≈ 2E/√(3(m − n))", spread),
                ("bits recovered at E (first draw; mean of 3 draws)",
                 f"{frac:.1%}; {float(curve.recovered_fraction[i]):.1%}")]
        hint = None
        if ratio == 1:
            hint = "With m = n the equations barely determine the bits: small noise already hurts. Try m/n ≥ 3."
        return View(figures=[fig], readout=table(rows), hint=hint)


_NOISE_OPTIONS = [("Laplace (b)", "laplace"), ("Gaussian (σ)", "gaussian")]


_MEMBERSHIP_QUESTION = ("A hospital publishes the fraction of its 1000 patients with a trait. One patient more or "
                        "less moves it by only 0.001. Which statement is right?")
_MEMBERSHIP_OPTIONS = [
    ("It is safe: no attacker can tell from a change of 0.001.", False,
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
     "the statistic itself leaks (Homer et al. 2008 detected, from a DNA mixture's published statistics, "
     "whether a known person's DNA was in the mixture)."),
]


class MembershipPanel(Panel):
    """Membership inference against a released count/mean, exact and with noise, on the trade-off axes."""

    title = "Membership inference: is the target in the data?"
    intro = ("A count (or mean) of a yes/no trait over n people is published. The attacker knows the target has the "
             "trait and asks: is the target among the n, or is someone random from the population in that place? "
             "Each curve is the attacker's best trade-off between false alarms (α) and misses (β); the lower, the "
             "stronger the attack. This is the picture of lesson 03.")

    controls = {
        "n": LogSlider("people n in the count", 10, 1, 1000, step=0.1, fmt=".0f", integer=True),
        "p": Slider("population rate p of the trait", 0.02, 0.01, 0.5, step=0.01),
        "noise": Choice("noise on the count", _NOISE_OPTIONS, "laplace"),
        "scale": LogSlider("noise scale b or σ on the count", 1.0, 0.1, 10 ** 1.5, step=0.05),
    }
    exercises = {"exercise": ChoiceReveal(_MEMBERSHIP_QUESTION, _MEMBERSHIP_OPTIONS)}

    def render(self, v) -> View:
        n = int(v.n)
        p, kind, sc = float(v.p), v.noise, float(v.scale)
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
        return View(figures=[fig], readout=table(rows))



# ============================================================================================ the lesson's problems

_DR_LAPLACE = cite("dwork2014algorithmic", "Thm 3.6")
_DR_COMPOSITION = cite("dwork2014algorithmic", "Thm 3.16")
_DR_DP = cite("dwork2014algorithmic", "Def. 2.4")
_KOV = cite("kairouz2015composition", "Thm 2.1")
_DN = cite("dinur2003revealing")
_DR_RECONSTRUCTION = cite("dwork2014algorithmic", "§8.1")


def _guess_bound(eps: float) -> float:
    """The most often any guess about one bit can be right from an eps-DP release, both values equally likely
    beforehand: e<sup>ε</sup>/(1 + e<sup>ε</sup>) (Kairouz, Oh & Viswanath 2015, Thm 2.1)."""
    return 1.0 / (1.0 + math.exp(-eps))


#: Problem 1: the expected percentage of n = 200 people unique on (age, town), 180 equally likely combinations.
_UNIQUE_N = 200
_UNIQUE = 100.0 * (179.0 / 180.0) ** (_UNIQUE_N - 1)
#: Problem 2: the ε per answer of the bound's problem.
_BOUND_EPS = 0.25
#: Problem 5: the band the bound e<sup>2ε</sup>/(1 + e<sup>2ε</sup>) must land in.
_BAND = (0.70, 0.75)


def _bound_in_band(_panel, v) -> bool:
    """Problem 5: two answers at ε each are 2ε-DP together; their guess bound must lie in [70 %, 75 %]."""
    return _BAND[0] <= _guess_bound(2.0 * float(v.epsilon)) <= _BAND[1]


_PROBLEMS = ProblemSet("Problems: why privacy is hard", {
    "unique": NumericAnswer(
        "In §2's synthetic data a person has one of 60 × 3 = 180 combinations of age (20 to 79) and town, all equally "
        f"likely, independently of everyone else. What percentage of n = {_UNIQUE_N} people do you expect to be "
        "unique on (age, town)?", _UNIQUE, abs_tol=0.5, unit=" %", label="your %:",
        traps=[(0.0, "Tempting: 200 people and only 180 combinations, so (by the pigeonhole principle) not "
                     "everyone can be unique. But that says some combinations are shared, not that all are: most "
                     "people still sit alone on theirs."),
               (100.0 * (179.0 / 180.0) ** 99, "That is the percentage for n = 100 (§2). Each of the other n − 1 "
                                               "people must miss your combination, so doubling n squares the "
                                               "chance, roughly."),
               (90.0, "Tempting: 180 combinations for 200 people, so 180 of them get one each. But people do not "
                      "spread out evenly: many combinations get two or three people and many get none.")],
        solution=(f"A person is unique when each of the other n − 1 = {_UNIQUE_N - 1} people has one of the 179 other "
                  f"combinations, each with probability 179/180, independently: (179/180)<sup>{_UNIQUE_N - 1}</sup> "
                  f"= e<sup>{_UNIQUE_N - 1}·ln(179/180)</sup> ≈ {_UNIQUE / 100:.4f}. So about {_UNIQUE:.1f} % of "
                  f"the {_UNIQUE_N} people are unique, in expectation (the diamonds of §2's figure). Uniqueness is "
                  "what a linkage attack needs (" + cite("sweeney2002kanonymity") + ")."),
        notes=TeachingNotes(
            timing="3 min",
            wrong=("0: the pigeonhole principle (more people than combinations) read as 'nobody is unique'.",
                   "57.6: the n = 100 value of §2 reused, as if uniqueness did not depend on n.",
                   "90: people assumed spread evenly over the combinations."),
            ask="Add a third quasi-identifier with 2 values (sex): how many combinations now, and roughly what "
                "percentage of the 200 is unique?")),
    "bound": NumericAnswer(
        f"In §1 each of the two counts is released with Laplace noise at ε = {_BOUND_EPS:g} per answer (b = 1/ε = 4). "
        "At most what percentage of attacks can <i>any</i> guess about the target's secret get right, when "
        "'has it' and 'does not' are equally likely beforehand?", 100.0 * _guess_bound(2.0 * _BOUND_EPS),
        abs_tol=0.5, unit=" %", label="your %:",
        traps=[(100.0 * _guess_bound(_BOUND_EPS),
                "That is the bound for one ε-DP answer. The attacker uses both: two ε-DP answers are 2ε-DP "
                "together (" + _DR_COMPOSITION + "), so the bound is e<sup>2ε</sup>/(1 + e<sup>2ε</sup>)."),
               (100.0 * differencing_success_probability(1.0 / _BOUND_EPS),
                "That is how often §1's particular guess, 'difference ≥ ½ ⇒ has it', is right. The question asks "
                "for the bound on every guess, which is higher."),
               (50.0, "Tempting: with noise the attacker is 'only guessing'. But the noise is not infinite: the "
                      "answers still carry some evidence, and the guess can beat a coin flip.")],
        solution=(f"The two answers are each ε-DP with ε = Δ/b = {_BOUND_EPS:g} ({_DR_LAPLACE}), so together "
                  f"2ε = {2 * _BOUND_EPS:g}-DP ({_DR_COMPOSITION}). No guess from a release that is ε-DP in total "
                  "is right more often than e<sup>ε</sup>/(1 + e<sup>ε</sup>) when both values are equally likely ("
                  + _KOV + f"): with the total {2 * _BOUND_EPS:g}, e<sup>0.5</sup>/(1 + e<sup>0.5</sup>) ≈ "
                  f"{100 * _guess_bound(2 * _BOUND_EPS):.2f} %. §1's guess reaches "
                  f"{100 * differencing_success_probability(1.0 / _BOUND_EPS):.2f} %, below the bound."),
        notes=TeachingNotes(
            timing="3 min",
            wrong=("56.2: one answer's bound, composition forgotten.",
                   "53.1: the success of §1's particular guess, not the bound on every guess.",
                   "50: 'noisy' read as 'useless to the attacker'."),
            ask="The attacker asks the pair of questions 10 times with fresh noise each time: what does the bound "
                "become? (20ε-DP: e<sup>5</sup>/(1 + e<sup>5</sup>) ≈ 99.3 %.)")),
    "reconstruction": ChoiceProblem(
        "In §3's attack on n = 400 people with m = 2000 answers (m/n = 5), up to about which error bound E per "
        "answer does least squares still recover almost every secret bit?",
        [("about √n = 20", True,
          "Right: least squares errs on each bit by about 2E/√(3(m − n)) = E/34.6 here, and a bit flips only when "
          "that error passes ½. With m a few times n the attack works while E stays below about √n and falls to "
          "coin-flipping far above it (" + _DN + "; " + _DR_RECONSTRUCTION + ")."),
         ("about 1: one person's worth", False,
          "Tempting from §1: an error of ±1 blurs whether one person is in a single count. But the attack never "
          "trusts one count: it averages 2000 of them, and at E = 1 each bit's error is about 2/√4800 ≈ 0.03, far "
          "below the ½ that flips it."),
         ("about n/2 = 200: the size of a group", False,
          "Tempting, because each count is over about 200 people. But the attacker averages the errors of many "
          "answers, so errors of order √n = 20 already start flipping bits, and at E = 200 the recovered fraction "
          "is near the 50 % of guessing."),
         ("none: at m/n = 5 no error bound stops the attack", False,
          "Tempting after seeing how well averaging works. But at a fixed m/n the error per bit grows in "
          "proportion to E: far above √n the curve of §3 falls to 50 %. More answers push the fall to the right "
          "(like √(m − n)), which is why a privacy method must limit the number of questions or let the error "
          "grow with them.")],
        notes=TeachingNotes(
            timing="3 min",
            wrong=("1: the differencing intuition (one person's worth of noise) carried over to many answers.",
                   "200: noise compared with the group size rather than with the averaging over answers.",
                   "'none': the attack's power mistaken as independent of the noise."),
            ask="Double n to 800 with m/n = 5: where does the fall move, and why?")),
    "membership": ChoiceProblem(
        "A hospital releases the count of patients with a trait among n = 1000, with Laplace noise of scale b = 2. "
        "An attacker already knows the trait of the other 999 patients exactly. Which statement is right?",
        [("Every test of 'is the target in?' still obeys the ε = 0.5 boundary, whatever the attacker knows.", True,
          "Right: a count has Δ = 1, so the noisy count is ε-DP with ε = Δ/b = 0.5 (" + _DR_LAPLACE + "), and "
          "every test, whatever side knowledge it uses, has β ≥ max(0, 1 − e<sup>0.5</sup>α, "
          "e<sup>−0.5</sup>(1 − α)) (" + _KOV + ")."),
         ("Knowing the other 999, the attacker subtracts them and learns the target's status for certain.", False,
          "Tempting: that is §1's differencing attack, and on an exact count it works. With noise, subtracting "
          "leaves the target's 0 or 1 plus Laplace noise of scale 2: evidence, not certainty. DP's neighbours "
          "differ only in the target, so its bound already assumes an attacker who knows everyone else."),
         ("Noise of scale 2 on a count of about 1000 is negligible, so it protects no one.", False,
          "Tempting: 2 is tiny next to 1000, and the count stays accurate. But privacy compares the noise with "
          "how far one person moves the count (Δ = 1), not with the count itself: b = 2Δ gives ε = 0.5."),
         ("The guarantee holds only if the attacker knows nothing about the other patients.", False,
          "That is true of the exact count (§4's orange curve): its protection came from the crowd and depended "
          "on what the attacker knew. The DP bound depends only on Δ and the noise, and holds for every "
          "attacker (" + _KOV + ").")],
        notes=TeachingNotes(
            timing="3 min",
            wrong=("'subtracts and learns for certain': the differencing attack of §1 applied without its noise.",
                   "'negligible noise': noise compared with the count instead of with Δ.",
                   "'only if the attacker knows nothing': the crowd's protection confused with DP's."),
            ask="What would b have to be for ε = 0.1, and what would that cost the count's accuracy?")),
    "setting": FindSetting(
        "Set ε per answer so that, by the bound of §1 (the two answers are 2ε-DP together), no guess about the "
        "target can be right more than 75 % of the time, while the bound still allows at least 70 %.",
        _bound_in_band, live=True,
        hint="The bound for the pair is e<sup>2ε</sup>/(1 + e<sup>2ε</sup>). Solve it for ε at 70 % and at 75 %.",
        solution=("e<sup>2ε</sup>/(1 + e<sup>2ε</sup>) ≤ 0.75 means e<sup>2ε</sup> ≤ 3, that is ε ≤ ln(3)/2 ≈ "
                  f"{math.log(3) / 2:.3f}; ≥ 0.70 means e<sup>2ε</sup> ≥ 7/3, that is ε ≥ ln(7/3)/2 ≈ "
                  f"{math.log(7 / 3) / 2:.3f}. On the slider: ε = 0.45 or 0.5 (" + _DR_COMPOSITION + "; " + _KOV
                  + "). At ε = 0.55 the bound is 75.03 %, just over."),
        notes=TeachingNotes(
            timing="4 min",
            wrong=("Using e<sup>ε</sup>/(1 + e<sup>ε</sup>), one answer's bound: ε from about 0.85 to 1.05, twice too "
                   "large (composition forgotten).",
                   "Reading the bound as a percentage of wrong guesses."),
            ask="How does the band move if the attacker asks three counts instead of two?")),
    "proof": ProofIdea(
        "Why can no guess about one person's secret, from an ε-DP release, be right more than "
        "e<sup>ε</sup>/(1 + e<sup>ε</sup>) of the time when both values are equally likely beforehand? Write the "
        "key step, or pick it.",
        "Let x be the data with the target's secret 1 and x′ the data with it 0, M the release, and let the attacker "
        "say 'has it' when the output lands in a set S. With both equally likely, P[right] = ½·P[M(x) ∈ S] + "
        "½·P[M(x′) ∉ S]. ε-DP (" + _DR_DP + ") applied to S and to its complement gives P[M(x) ∈ S] ≤ "
        "e<sup>ε</sup>·(1 − P[M(x′) ∉ S]) and P[M(x′) ∉ S] ≤ e<sup>ε</sup>·(1 − P[M(x) ∈ S]). Adding the two, "
        "the sum s = P[M(x) ∈ S] + P[M(x′) ∉ S] satisfies s ≤ e<sup>ε</sup>·(2 − s), so s ≤ "
        "2e<sup>ε</sup>/(1 + e<sup>ε</sup>) and P[right] = s/2 ≤ e<sup>ε</sup>/(1 + e<sup>ε</sup>). It is the "
        "corner α = β = 1/(1 + e<sup>ε</sup>) of the trade-off region (" + _KOV + "); for §1's two answers ε "
        "becomes 2ε (" + _DR_COMPOSITION + ").",
        steps=[("apply ε-DP to the guess's set and to its complement, then add", True,
                "Right: the definition, used twice (once for 'has it', once for 'does not'), bounds the two "
                "probabilities of being right in terms of each other; adding them gives the bound."),
               ("the noise is symmetric, so the guess is right half the time", False,
                "Tempting: the noise is symmetric around the true answer. But symmetric noise around two different "
                "answers still favours the right one: §1's guess beats 50 % at every ε. The bound is about how "
                "much better than 50 % a guess can be."),
               ("the noise's variance is large compared with Δ", False,
                "Tempting: more noise, more doubt. But DP bounds the probability of every set of outputs, not a "
                "moment of the noise; the proof uses only the definition's inequality.")],
        notes=TeachingNotes(
            timing="6 min (pairs, then one pair at the board)",
            wrong=("'The noise is symmetric': the attacker assumed to learn nothing at all.",
                   "'The variance is large': a moment bound where DP bounds every set of outputs."),
            ask="Where does the proof use that both values are equally likely? What is the bound with a prior "
                "of 90 % 'has it'?")),
}, intro="Each problem is checked as soon as you answer; a wrong answer can be tried again, and the solution opens "
         "after your first attempt. Problem 5 is about this panel's setting.")


class WhyPrivacyProblemsPanel(Panel):
    """The lesson's problem set, with §1's differencing figure at the chosen ε per answer for its find-a-setting
    task."""

    title = "Problems: why privacy is hard"
    intro = ("The figure shows §1's difference of the two noisy answers at the chosen ε per answer (Laplace scale "
             "b = 1/ε, " + _DR_LAPLACE + "), for a target with and without the condition.")

    controls = {"epsilon": Slider("ε per answer (Laplace scale b = 1/ε)", 1.0, 0.1, 3.0, step=0.05)}
    exercises = {"problems": _PROBLEMS}

    def render(self, v) -> View:
        eps = float(v.epsilon)
        rows = [("Laplace scale b = 1/ε on each answer", fmt(1.0 / eps)),
                (f"the two answers together ({_DR_COMPOSITION})", f"{fmt(2.0 * eps)}-DP")]
        return View([P.differencing_figure(1.0 / eps)], readout=table(rows))
