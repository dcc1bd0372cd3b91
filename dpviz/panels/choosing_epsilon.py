"""Lesson 09 "Choosing ε": four panels.

* :class:`PosteriorBoundPanel` — from a prior to the largest posterior an ε (and δ) allows an informed observer,
  with a predict-then-reveal exercise, the misconception "is δ = 1/n safe?" and the smoking study (what DP does not
  promise);
* :class:`DeploymentsPanel` — deployed values of ε on one axis, what each allows an observer to learn, the census
  read as a hypothesis test, and the misconception "a smaller number is always more private";
* :class:`AccuracyCalibrationPanel` — from an accuracy target on a count to ε (Laplace and Gaussian), with the
  exercise "halve α<sub>acc</sub>";
* :class:`BudgetSplitPanel` — from a budget per person per period to ε per release (basic vs exact composition),
  with the exercise "σ<sub>basic</sub>/σ<sub>exact</sub> at k = 365";
* :class:`ChoosingProblemsPanel` — the lesson's problem set (three numeric answers, a choice, a find-a-setting task
  on the (ε, δ) posterior bound of a rare output, and a proof idea), with teaching notes for the teacher's edition.
"""

from __future__ import annotations

import html
import math

from dpviz import interpret as I
from dpviz.deployments import CENSUS_DELTA, DEPLOYMENTS, census_2020
from dpviz.panels import Choice, ChoiceReveal, LogSlider, Panel, PredictReveal, Slider, Values, View
from dpviz.panels.exercises import ChoiceProblem, FindSetting, NumericAnswer, ProblemSet, ProofIdea, TeachingNotes
from dpviz.panels.format import big, fmt, sci, table
from dpviz.plots import choosing_epsilon as P
from dpviz.references import cite

__all__ = ["PosteriorBoundPanel", "DeploymentsPanel", "AccuracyCalibrationPanel", "BudgetSplitPanel",
           "ChoosingProblemsPanel", "DELTA_OPTIONS"]

#: (label, value) pairs of the δ dropdown of :class:`PosteriorBoundPanel`.
DELTA_OPTIONS = [("0 (pure ε-DP)", 0.0), ("10⁻⁹", 1e-9), ("10⁻⁶", 1e-6), ("10⁻³", 1e-3), ("10⁻²", 1e-2)]


def _pct(x: float) -> str:
    return f"{100 * x:.3g}%"


_DELTA_MISCONCEPTION = ChoiceReveal(
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

_SMOKING = ChoiceReveal(
    "A medical study, released with ε = 0.1, shows that smokers are far more likely to get cancer. Bob "
    "smokes and took part. His insurer now believes he is more likely to get cancer. Did differential "
    "privacy fail Bob?",
    [("Yes: with ε = 0.1 nobody should be able to learn anything about Bob from the release.", False,
      "Tempting, because ε = 0.1 is small. But DP does not promise that nothing is learned about Bob: it "
      "promises that almost the same would be learned had Bob's record been left out. The study's finding "
      "is about smokers, and it holds whether or not Bob took part (Dwork & Roth 2014, §1; "
      f"{cite('kasiviswanathan2014semantics')})."),
     ("No: the insurer learns the same whether or not Bob's record is in the study; what it learns comes "
      "from everyone else's data and the fact that Bob smokes.", True,
      "Right. DP bounds what the release reveals because Bob took part: the posterior after the real "
      "release is close to the one after a release without his record "
      f"({cite('kasiviswanathan2014semantics')}). Learning about a population, and through it about Bob, "
      "is what the study is for (Dwork & Roth 2014, §1). If records are correlated, as with relatives or "
      "shared households, the same reasoning lets an observer learn about Bob from others "
      f"({cite('kifer2011nofree')})."),
     ("No, but only because Bob was not the unit of privacy: had the study protected households, the "
      "insurer would have learned nothing.", False,
      "Tempting, because a larger unit of privacy protects more. But no unit stops the study's result "
      "itself, which is about smokers in general; a household unit would only hide what Bob's household "
      "adds to it (Dwork & Roth 2014, §1).")])


class PosteriorBoundPanel(Panel):
    """Prior → largest posterior, for ε from 0.1 to 10; with δ > 0 the bound for an output event of probability q."""

    title = "What can an observer learn from an ε-DP release?"
    intro = ("An informed observer knows every other record and is unsure only whether one person is in the data: "
             "they believe it with probability p (the prior). After seeing the output, ε-DP caps the posterior: "
             "the odds can grow by at most e<sup>ε</sup>. With δ > 0 the cap depends on how rare the observed output "
             "is. An observer whose prior links the person to the others' data can learn more, from the others.")

    controls = {
        "epsilon": LogSlider("ε (bold curve)", 1.0, 10 ** -1, 10 ** 1, step=0.05, fmt=".3g"),
        "prior": LogSlider("your prior p = P[in]", 0.1, 10 ** -4, 10 ** -0.3, step=0.1, fmt=".3g"),
        "delta": Choice("δ", DELTA_OPTIONS, 0.0),
        "event_probability": LogSlider("P[S | out]: how likely the output is if the person is out", 1e-3,
                                       10 ** -10, 1, step=0.25, fmt=".1e", visible=lambda v: v.delta > 0),
    }

    def _answer(self, v: Values) -> float:
        return 100 * I.posterior_bound(float(v.prior), float(v.epsilon))

    def _explain(self, v: Values, answer: float) -> str:
        e, p = float(v.epsilon), float(v.prior)
        return (f"Prior odds p/(1 − p) = {p / (1 - p):.4g}, times e<sup>ε</sup> = {math.exp(e):.4g}, gives posterior "
                f"odds {math.exp(e) * p / (1 - p):.4g}, i.e. a posterior of {answer:.3g}% "
                f"({cite('kasiviswanathan2014semantics')}). Randomized response with this ε reaches it exactly.")

    def _question(self, v: Values) -> str:
        return (f"With ε = {float(v.epsilon):.3g} (δ = 0) and a prior of {_pct(float(v.prior))}, what is the largest "
                "posterior (in %) an observer can reach? Hint: multiply the odds.")

    # The answer is drawn and tabulated after the reveal, until a control moves (predict again).
    exercises = {"exercise": PredictReveal(_question, answer=_answer, explain=_explain, rel_tol=0.1, unit=" %",
                                           guess_label="posterior (%):", redraw=True),
                 "misconception": _DELTA_MISCONCEPTION,
                 "smoking": _SMOKING}

    def render(self, v: Values) -> View:
        eps, p, d, q = float(v.epsilon), float(v.prior), float(v.delta), float(v.event_probability)
        revealed = self.revealed("exercise")
        fig = P.posterior_figure(eps, d, q if d > 0 else None, marker_prior=p if revealed else None)
        rows = [("odds factor e<sup>ε</sup>", fmt(math.exp(eps))),
                (f"largest posterior for your prior {_pct(p)}, δ = 0",
                 _pct(I.posterior_bound(p, eps)) if revealed else "? — predict it below, then reveal")]
        if d > 0:
            rows.append((f"with δ = {sci(d)}, for an output event S with P[S | out] = {q:.2g} (exact maximum)",
                         _pct(I.posterior_bound(p, eps, d, event_probability=q)) if revealed else "? (after reveal)"))
            rows.append(("worst case over all outputs, δ > 0", "100% (rare outputs: δ/P[S | out] is large)"))
        return View(figures=[fig], readout=table(rows))


def _record(key: str):
    """The deployment record whose source is ``key``."""
    return next(d for d in DEPLOYMENTS if d.key == key)


def _units_misconception() -> ChoiceReveal:
    """The misconception "a smaller number is always more private": Apple's daily ε against LinkedIn's monthly ε."""
    apple, linkedin = _record("tang2017privacy"), _record("rogers2021linkedin")
    year_apple, year_linkedin = 365 * apple.epsilon, 12 * linkedin.epsilon
    loose = (f"{year_apple:,.0f} for Apple and 12 × {linkedin.epsilon:g} ≈ {year_linkedin:,.0f} for LinkedIn: a "
             "loose upper bound by basic composition (Dwork & Roth 2014, Thm 3.16), on different threat models "
             "(Apple's noise is added on the device, local DP; LinkedIn's on the server, central DP)")
    return ChoiceReveal(
        f"Tang et al. 2017 found that macOS 10.12 allows up to ε = {apple.epsilon:g} per user per day; LinkedIn "
        f"reports ε = {linkedin.epsilon:g} per member per month (Rogers et al. 2021). Which protects a person "
        "more over a year?",
        [(f"Apple's: {apple.epsilon:g} is smaller than {linkedin.epsilon:g}.", False,
          "Tempting, because a smaller ε is more private for the same unit and period. But these are per day "
          f"and per month, and Apple's budget renews every day. Over a year: 365 × {apple.epsilon:g} = "
          f"{loose}."),
         ("Neither number answers it as it stands: first bring both to the same unit of privacy and the same "
          "period (and note local vs central DP).", True,
          "Right. An ε is only meaningful with its unit of privacy and its time horizon. Over a year, 365 × "
          f"{apple.epsilon:g} = {loose}. Even after that, the two numbers do not answer the question."),
         ("Both are the same: above ε ≈ 10 the guarantee is meaningless anyway.", False,
          "Tempting, because the posterior bound is close to 1 for such ε. But the bound is a worst case over "
          "outputs and observers; over a year their loose upper bounds by basic composition differ by a factor "
          f"of {year_apple / year_linkedin:.0f} ({year_apple:,.0f} against {year_linkedin:,.0f}), and the unit "
          "and period matter more than the rounding of the bound.")])


class DeploymentsPanel(Panel):
    """Deployed ε on one axis, at the height of the posterior bound each allows; the records in a table; the census
    read as a hypothesis test."""

    title = "Deployed values of ε, side by side"
    intro = ("Each point is a published guarantee: its ε, and how far an informed observer who starts at your prior "
             "could be pushed. Read the unit of privacy and the period before comparing two numbers.")

    controls = {"prior": LogSlider("prior p = P[in]", 0.01, 10 ** -4, 10 ** -0.3, step=0.1, fmt=".3g")}
    exercises = {"misconception": _units_misconception()}

    def render(self, v: Values) -> View:
        p = float(v.prior)
        fig = P.deployments_figure(p, DEPLOYMENTS)
        head = ("<tr><th>who — what</th><th>ε</th><th>δ</th><th>unit of privacy</th><th>per</th>"
                "<th>what the source says</th><th>source</th></tr>")
        rows = []
        for d in DEPLOYMENTS:
            eps = fmt(d.epsilon) if d.epsilon is not None else "see the source"
            delta = "n/a" if d.delta is None else ("0" if d.delta == 0 else sci(d.delta))
            rows.append(f"<tr><td>{html.escape(d.label)}</td><td><b>{eps}</b></td><td>{delta}</td>"
                        f"<td>{html.escape(d.unit)}</td><td>{html.escape(d.horizon)}</td>"
                        f"<td>{html.escape(d.says)}</td><td>{cite(d.key)}</td></tr>")
        records = ("<div style='overflow-x:auto'><table style='font-size:0.85em;border-collapse:collapse' "
                   "cellpadding='3'>" + head + "".join(rows) + "</table></div>")
        c = census_2020(CENSUS_DELTA)
        census = (f"<p><b>The census as a hypothesis test.</b> Composed Gaussian noise with "
                  f"ρ = {c['rho_persons']:g} (persons) is close to μ-GDP with μ = √(2ρ) = {c['mu_persons']:.3g}: "
                  "no test of whether one person is in the data beats a true-positive minus false-positive rate of "
                  f"{c['advantage_persons']:.2f} (2Φ(μ/2) − 1; {cite('dong2022gaussian', 'Cor. 3.3')}). "
                  f"The ε = {c['eps_persons']:.2f} at "
                  f"δ = {sci(CENSUS_DELTA)} lies {c['loss_sd_persons']:.1f} standard deviations out in the privacy "
                  "loss N(ρ, 2ρ): a point of its tail, not a typical loss.</p>")
        return View(figures=[fig], readout=records + census)


class AccuracyCalibrationPanel(Panel):
    """Accuracy target ±α<sub>acc</sub> on one count with probability 1 − β<sub>fail</sub> → the smallest ε, Laplace and
    Gaussian; an exercise on halving α<sub>acc</sub>."""

    title = "From an accuracy target to ε"
    intro = ("Decide how accurate one count must be — within ±α<sub>acc</sub> with probability 1 − "
             "β<sub>fail</sub> — and read off the smallest ε that delivers it. Counts have sensitivity Δ = 1.")

    controls = {
        "alpha_acc": LogSlider("accuracy target α<sub>acc</sub> (±)", 10.0, 1, 10 ** 3, step=0.05, fmt=".3g"),
        "beta_fail": LogSlider("failure probability β<sub>fail</sub>", 0.05, 10 ** -6, 10 ** -0.3, step=0.1,
                               fmt=".2g"),
        "delta": LogSlider("δ (Gaussian only)", 1e-6, 10 ** -12, 10 ** -3, step=0.5, fmt=".1e"),
    }

    def _answer(self, v: Values) -> float:
        return I.laplace_epsilon_for_accuracy(float(v.alpha_acc) / 2, float(v.beta_fail))

    def _explain(self, v: Values, answer: float) -> str:
        a, b, d = float(v.alpha_acc), float(v.beta_fail), float(v.delta)
        g1, g2 = I.gaussian_epsilon_for_accuracy(a, b, d), I.gaussian_epsilon_for_accuracy(a / 2, b, d)
        growth = f"by a factor {g2 / g1:.3g}" if g1 > 0 else "from 0"
        return ("ε = ln(1/β<sub>fail</sub>)/α<sub>acc</sub> is inversely proportional to α<sub>acc</sub>: half the "
                "error costs twice the ε "
                f"({cite('dwork2014algorithmic', 'Thm 3.8')}). The Gaussian's ε at δ = {sci(d)} grows {growth}: "
                "not by 2, because its ε(δ) is not proportional to 1/σ (Balle & Wang 2018, Thm 8).")

    def _question(self, v: Values) -> str:
        a, b = float(v.alpha_acc), float(v.beta_fail)
        return (f"At α<sub>acc</sub> = {a:.3g} and β<sub>fail</sub> = {b:.2g} the Laplace mechanism needs "
                f"ε = {fmt(I.laplace_epsilon_for_accuracy(a, b))}. What ε does it need if you halve the accuracy "
                f"target, to α<sub>acc</sub> = {a / 2:.3g}?")

    exercises = {"exercise": PredictReveal(_question, answer=_answer, explain=_explain, rel_tol=0.05,
                                           guess_label="Laplace ε:", redraw=True)}

    def render(self, v: Values) -> View:
        a, b, d = float(v.alpha_acc), float(v.beta_fail), float(v.delta)
        if not self.revealed("exercise"):
            self.exercise.feedback.value = ""  # a new setting: the previous verdict no longer applies
        fig = P.accuracy_figure(a, b, d)
        e_lap = I.laplace_epsilon_for_accuracy(a, b)
        e_gau = I.gaussian_epsilon_for_accuracy(a, b, d)
        sigma = I.gaussian_sigma_for_accuracy(a, b)
        try:
            x = I.accuracy_crossover_alpha(b, d)
            cross = f"α<sub>acc</sub> > {big(x) if x >= 100 else fmt(x)}"
        except ValueError:
            cross = "not on α<sub>acc</sub> from 10⁻³ to 10¹²"
        rows = [("Laplace: ε = ln(1/β<sub>fail</sub>)/α<sub>acc</sub>, scale b = 1/ε",
                 f"ε = {fmt(e_lap)}, b = {fmt(1 / e_lap)}"),
                (f"Gaussian at δ = {sci(d)}: σ = α<sub>acc</sub>/Φ<sup>−1</sup>(1 − β<sub>fail</sub>/2)",
                 f"ε = {fmt(e_gau)}, σ = {fmt(sigma)}"),
                ("the Gaussian needs the smaller ε (at this β<sub>fail</sub> and δ) for", cross),
                ("largest posterior from a 1% prior (Laplace ε)", _pct(I.posterior_bound(0.01, e_lap)))]
        hint = None
        if min(e_lap, e_gau) > 5:
            hint = ("This accuracy needs ε > 5: a weak guarantee. Relax α<sub>acc</sub> or β<sub>fail</sub>, or count "
                    "over more people.")
        return View(figures=[fig], readout=table(rows), hint=hint)


#: The release count of the budget exercise: daily releases over a year.
DAILY = 365


class BudgetSplitPanel(Panel):
    """A budget per person per period split over k releases: ε per release, basic vs exact composition; an
    exercise on σ<sub>basic</sub>/σ<sub>exact</sub> for daily releases."""

    title = "From a budget per person per year to ε per release"
    intro = ("A person's total over a year is (ε, δ). With k releases in the year, how much may each spend? "
             "Basic composition splits evenly; exact accounting of Gaussian releases lets each spend more.")

    controls = {
        "epsilon_total": LogSlider("ε per person per year", 1.0, 10 ** -1, 10 ** 1.3, step=0.05, fmt=".3g"),
        "delta_total": LogSlider("δ per person per year", 1e-6, 10 ** -12, 10 ** -3, step=0.5, fmt=".1e"),
        "releases": LogSlider("releases per year k", 12, 1, 10 ** 3, step=0.05, fmt=".0f", integer=True),
    }

    def _answer(self, v: Values) -> float:
        r = I.per_release_budget(float(v.epsilon_total), float(v.delta_total), DAILY)
        return r["sigma_basic"] / r["sigma_exact"]

    def _explain(self, v: Values, answer: float) -> str:
        r = I.per_release_budget(float(v.epsilon_total), float(v.delta_total), DAILY)
        return (f"σ<sub>basic</sub> = {fmt(r['sigma_basic'])} (each release calibrated to (ε/k, δ/k); "
                f"{cite('dwork2014algorithmic', 'Thm 3.16')}) against σ<sub>exact</sub> = √k·σ₁ = "
                f"{fmt(r['sigma_exact'])} ({cite('dong2022gaussian', 'Cor. 3.3')}). Basic composition's σ grows "
                "about like k (its ε/k shrinks, and σ ∝ 1/ε), the exact one like √k, so the ratio grows roughly "
                "like √k.")

    def _question(self, v: Values) -> str:
        return (f"With ε = {float(v.epsilon_total):.3g} and δ = {sci(float(v.delta_total))} per person per year and "
                f"k = {DAILY} daily releases, how many times more noise does each release need under basic "
                "composition than under exact accounting (σ<sub>basic</sub>/σ<sub>exact</sub>)?")

    exercises = {"exercise": PredictReveal(_question, answer=_answer, explain=_explain, rel_tol=0.15, unit="×",
                                           guess_label="σ<sub>basic</sub>/σ<sub>exact</sub>:", redraw=True)}

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self.exercise.guess.description_allow_html = True  # the guess label holds <sub>

    def render(self, v: Values) -> View:
        e, d, k = float(v.epsilon_total), float(v.delta_total), v.releases
        revealed = self.revealed("exercise")
        if not revealed:
            self.exercise.feedback.value = ""  # a new setting: the previous verdict no longer applies
        fig = P.budget_figure(e, d, k)
        r = I.per_release_budget(e, d, k)
        ratio = f"{r['sigma_basic'] / r['sigma_exact']:.3g}×"
        if k == DAILY and not revealed:
            ratio = "? — predict it below, then reveal"
        rows = [("basic: each release (ε/k, δ/k)", f"({fmt(r['eps_basic'])}, {r['delta_step']:.2g}); "
                                                   f"Gaussian σ = {fmt(r['sigma_basic'])}"),
                ("exact Gaussian accounting: σ per release", fmt(r["sigma_exact"])),
                ("… which alone is (ε<sub>step</sub>, δ/k)-DP with ε<sub>step</sub> =", fmt(r["eps_step_exact"])),
                ("noise saved by exact accounting (σ<sub>basic</sub>/σ<sub>exact</sub>)", ratio)]
        return View(figures=[fig], readout=table(rows))


# ============================================================================================ the problem set

_KS = cite("kasiviswanathan2014semantics")
_DR_DP = cite("dwork2014algorithmic", "Def. 2.4")
_DR_TAIL = cite("dwork2014algorithmic", "Thm 3.8")
_DR_COMPOSITION = cite("dwork2014algorithmic", "Thm 3.16")
_BS_ZCDP = cite("bun2016concentrated", "Lemma 1.7")
_DRS_GDP = cite("dong2022gaussian", "Cor. 3.3")
_BW_GAUSS = cite("balle2018gaussian", "Thm 8")
_KOV = cite("kairouz2015composition", "Thm 2.1")

#: The find-a-setting task: the observer's prior (fixed on the problems panel), the largest ε, the posterior to pass.
_TASK_PRIOR, _TASK_EPS, _TASK_POSTERIOR = 0.01, 0.5, 0.5


def _problem_posterior(v: Values) -> float:
    """The largest posterior of the problems panel: worst case over outputs for δ = 0, the exact (ε, δ) maximum for
    an output event S with P[S | out] = q for δ > 0."""
    eps, d = float(v.epsilon), float(v.delta)
    if d > 0:
        return float(I.posterior_bound(_TASK_PRIOR, eps, d, event_probability=float(v.event_probability)))
    return float(I.posterior_bound(_TASK_PRIOR, eps))


def _rare_output_reveals(_panel, v: Values) -> bool:
    """Problem 5: ε ≤ 0.5 and yet a posterior above 50% from the 1% prior."""
    return float(v.epsilon) <= _TASK_EPS + 1e-9 and _problem_posterior(v) > _TASK_POSTERIOR


_PROBLEMS = ProblemSet("Problems: choosing ε", {
    "posterior": NumericAnswer(
        "An informed observer believes with probability p = 5% that Alice is in the data. The release is ε-DP "
        "with ε = 2 (δ = 0). What is the largest posterior P[in | O] they can reach, in %?",
        100 * (math.exp(2) * 0.05 / 0.95) / (1 + math.exp(2) * 0.05 / 0.95), abs_tol=0.3, unit=" %",
        label="posterior (%):",
        traps=[(100 * math.exp(2) * 0.05, "That is e<sup>ε</sup>·p: the probability multiplied by e<sup>ε</sup>. "
                                          "The bound multiplies the <i>odds</i> p/(1 − p); multiplying the "
                                          "probability can pass 100% for a large ε."),
               (100 * math.exp(2) * 0.05 / 0.95, "That is the posterior <i>odds</i>, e<sup>ε</sup>·p/(1 − p) ≈ "
                                                 "0.389, read as a probability. Odds turn back into a "
                                                 "probability as odds/(1 + odds)."),
               (10.0, "That is ε·p: ε used as a factor. The odds grow by e<sup>ε</sup> = 7.39, not by ε.")],
        solution="Prior odds p/(1 − p) = 0.05/0.95 ≈ 0.0526, times e<sup>ε</sup> = e² ≈ 7.389: posterior odds "
                 "≈ 0.389, so P[in | O] ≤ 0.389/1.389 ≈ 28.0% (" + _KS + "). Binary randomized response with "
                 "ε = 2 reaches it when it answers “in”.",
        notes=TeachingNotes(
            timing="3 min",
            wrong=("36.9%: e<sup>ε</sup> times the probability instead of the odds.",
                   "38.9%: the posterior odds given as the posterior.", "10%: ε used as a factor."),
            ask="From which prior does ε = 2 allow a posterior above 50%?")),
    "laplace_eps": NumericAnswer(
        "A count (Δ = 1) must be within ±α<sub>acc</sub> = 5 of the truth with probability at least "
        "1 − β<sub>fail</sub> = 99%. What is the smallest ε for which the Laplace mechanism delivers it?",
        math.log(1 / 0.01) / 5, rel_tol=0.01, label="ε =",
        traps=[(math.log(2 / 0.01) / 5, "That is ln(2/β<sub>fail</sub>)/α<sub>acc</sub>: β<sub>fail</sub> split "
                                        "in two tails, as for the Gaussian's Φ<sup>−1</sup>(1 − β<sub>fail</sub>/2). "
                                        "P[|Lap(b)| > α<sub>acc</sub>] = e<sup>−α<sub>acc</sub>/b</sup> already "
                                        "counts both tails."),
               (math.log10(1 / 0.01) / 5, "That is log<sub>10</sub>(1/β<sub>fail</sub>)/α<sub>acc</sub>: the "
                                          "tail bound's logarithm is the natural one."),
               (5 * math.log(1 / 0.01), "That is α<sub>acc</sub>·ln(1/β<sub>fail</sub>): a looser target must "
                                        "allow a <i>smaller</i> ε, so α<sub>acc</sub> divides.")],
        solution="P[|Lap(b)| > α<sub>acc</sub>] = e<sup>−α<sub>acc</sub>/b</sup> (" + _DR_TAIL + "), and b = Δ/ε. "
                 "Setting it to β<sub>fail</sub>: ε = Δ·ln(1/β<sub>fail</sub>)/α<sub>acc</sub> = ln(100)/5 ≈ 0.921.",
        notes=TeachingNotes(
            timing="3 min",
            wrong=("1.06: β<sub>fail</sub> halved as for a two-sided Gaussian bound.",
                   "0.4: log base 10.", "23: α<sub>acc</sub> multiplied instead of divided."),
            ask="What ε does β<sub>fail</sub> = 0.1% need at the same α<sub>acc</sub>? Why does it grow so slowly?")),
    "gdp": NumericAnswer(
        "Two Gaussian releases about the same people are ρ-zCDP, one with ρ = 0.32, the other with ρ = 0.18. Read "
        "together as μ-GDP with μ = √(2ρ), what is the largest true-positive rate minus false-positive rate of any "
        "test of whether one person is in the data?",
        2 * 0.5 * (1 + math.erf(0.5 / math.sqrt(2))) - 1, abs_tol=0.005, label="largest difference:",
        traps=[(2 * 0.5 * (1 + math.erf(0.7 / math.sqrt(2))) - 1,
                "That adds the two μ (0.8 + 0.6 = 1.4). Composition adds ρ, and μ = √(2ρ), so the μ add in "
                "squares: μ = √(0.8² + 0.6²) = 1."),
               (2 * 0.5 * (1 + math.erf(1 / math.sqrt(2))) - 1,
                "That is 2Φ(μ) − 1: the limit is 2Φ(μ/2) − 1, the test's best threshold lying halfway between the "
                "two Gaussians."),
               (1.0, "That is μ itself, which is not a rate: the limit on the difference is 2Φ(μ/2) − 1, below 1 for "
                     "every μ.")],
        solution="ρ adds up under composition (" + _BS_ZCDP + "): ρ = 0.32 + 0.18 = 0.5, so μ = √(2ρ) = 1, and the "
                 "composed Gaussians are one Gaussian (" + _DRS_GDP + "). The limit is 2Φ(μ/2) − 1 = 2Φ(0.5) − 1 "
                 "≈ 0.383.",
        notes=TeachingNotes(
            timing="4 min",
            wrong=("0.516: the μ added instead of the ρ.", "0.683: 2Φ(μ) − 1, the halving forgotten.",
                   "1: μ read as the advantage."),
            ask="The 2020 Census's persons tables have ρ = 2.56. Is a limit of 0.74 on TPR − FPR strong or weak?")),
    "split": ChoiceProblem(
        "A policy allows (ε, δ) = (1, 10⁻⁶) per person per year, spent on k Gaussian releases. As k grows, how "
        "does the noise σ each release needs grow?",
        [("about like k with basic composition, like √k exactly", True,
          "Right: basic composition gives each release (ε/k, δ/k), and σ grows about like 1/(ε/k), that is like k ("
          + _DR_COMPOSITION + "). k Gaussian releases of noise σ compose exactly to one of noise σ/√k ("
          + _DRS_GDP + "), so each may use σ = √k·σ₁, with σ₁ calibrated to (ε, δ) (" + _BW_GAUSS + ")."),
         ("like k with both: the budget is split k ways", False,
          "Tempting: a yearly budget shared by k releases sounds like a division by k. That is basic "
          "composition's split, a bound that is loose for Gaussian releases; the exact accountant lets each "
          "release use σ = √k·σ₁. At k = 12 that is σ ≈ 14.6 per count against basic composition's ≈ 50."),
         ("like √k with both", False,
          "Tempting, because the exact accountant gives √k. But basic composition gives each release only ε/k, "
          "and the Gaussian's σ for (ε/k, δ/k) grows about like k/ε: the square root is what exact accounting "
          "saves.")],
        notes=TeachingNotes(
            timing="3 min",
            wrong=("'like k with both': composition taken to mean splitting ε evenly.",
                   "'like √k with both': the accountant's rate credited to basic composition."),
            ask="For monthly releases, what ε<sub>step</sub> does each exact-accounting release have on its own, "
                "and why is it larger than ε/k?")),
    "setting": FindSetting(
        f"The observer's prior is {_TASK_PRIOR:.0%}. With ε at most {_TASK_EPS:g}, find a δ and an output event S "
        f"(its probability P[S | out]) for which the exact largest posterior is above {_TASK_POSTERIOR:.0%}.",
        _rare_output_reveals, live=True,
        hint="With δ = 0 the posterior odds are at most e<sup>ε</sup> times the prior odds: about 1.6% at ε = 0.5. "
             "Choose δ > 0 and make the output rarer than δ.",
        solution="A posterior above 50% means posterior odds above 1: a/q > (1 − p)/p = 99, with q = P[S | out] "
                 "and a = min(1, e<sup>ε</sup>·q + δ, 1 − e<sup>−ε</sup>·(1 − q − δ)) (" + _KOV + "). For a rare "
                 "output a ≈ e<sup>ε</sup>·q + δ, so δ/q must exceed 99 − e<sup>ε</sup> ≈ 97.4 at ε = 0.5. For "
                 "example, δ = 10⁻³ and P[S | out] = 10⁻⁶ give a posterior of 91%, at any ε ≤ 0.5: δ must be far below "
                 "the probability of any output an observer could act on.",
        notes=TeachingNotes(
            timing="4 min",
            wrong=("Raising ε: the task caps it at 0.5, and with δ = 0 no ε ≤ 0.5 passes 1.7%.",
                   "Making the output common (P[S | out] near 1): there the complement binds and the bound is "
                   "below the ε-only one."),
            ask="Which δ of the menu can never do it, with P[S | out] down to 10⁻¹⁰? (δ = 10⁻⁹: δ/q ≤ 10.)")),
    "proof": ProofIdea(
        "Why does ε-DP give posterior odds ≤ e<sup>ε</sup> × prior odds for the informed observer? Write the key "
        "step, or pick it.",
        "For the informed observer “in” and “out” are two neighbouring data sets. By Bayes' "
        "rule, for any set of outputs S, P[in | O ∈ S]/P[out | O ∈ S] = (p/(1 − p))·P[O ∈ S | in]/P[O ∈ S | out]: "
        "the posterior odds are the prior odds times the likelihood ratio. ε-DP bounds that ratio by e<sup>ε</sup> "
        "for every S (" + _DR_DP + "), so the posterior odds are at most e<sup>ε</sup>·p/(1 − p), and solving for "
        "the posterior gives P[in | O ∈ S] ≤ e<sup>ε</sup>·p/(1 − p + e<sup>ε</sup>·p) (" + _KS + "). Without "
        "the informed observer the two hypotheses are not neighbours, and the others' correlated records can "
        "carry information about Alice.",
        steps=[("odds = prior odds × likelihood ratio ≤ e^ε", True,
                "Right: Bayes' rule makes the posterior odds the prior odds times P[S | in]/P[S | out], and ε-DP "
                "caps that ratio at e<sup>ε</sup> for every S. The rest is algebra."),
               ("the posterior is at most e^ε times the prior", False,
                "Tempting, and true as a weaker bound, but it is a consequence, not the step: it follows from the "
                "odds bound, and it passes 1 for large ε where the odds bound does not. Bayes' rule works in "
                "odds."),
               ("the noise makes the output independent of Alice", False,
                "Tempting: that would make the posterior equal the prior. But an ε-DP output does depend on "
                "Alice's record, by a likelihood ratio of up to e<sup>ε</sup>: that is what the posterior may "
                "gain.")],
        notes=TeachingNotes(
            timing="6 min (pairs, then one pair at the board)",
            wrong=("'The posterior is at most e<sup>ε</sup>·p': a weaker consequence taken for the step.",
                   "'The output does not depend on Alice': DP as independence, which no useful release has."),
            ask="Where does the proof use that the observer knows every other record? What breaks for relatives?")),
}, intro="Each problem is checked as soon as you answer; a wrong answer can be tried again, and the solution opens "
         "after your first attempt. Problem 5 is about this panel's settings.")


class ChoosingProblemsPanel(Panel):
    """The lesson's problem set, with the largest posterior of an observer at a 1% prior for its find-a-setting
    task."""

    title = "Problems: choosing ε"
    intro = ("An informed observer starts from a prior of 1% that Alice is in the data. The curves are the largest "
             "posterior an (ε, δ)-DP release allows against the prior; with δ > 0 the dashed curve is the exact "
             "bound for an output event S of probability P[S | out] (" + _KOV + ").")

    controls = {
        "epsilon": Slider("ε", 0.5, 0.1, 5.0, step=0.05),
        "delta": Choice("δ", DELTA_OPTIONS, 0.0),
        "event_probability": LogSlider("P[S | out]: how likely the output is if the person is out", 1e-3,
                                       10 ** -10, 1, step=0.25, fmt=".1e", visible=lambda v: v.delta > 0),
    }
    exercises = {"problems": _PROBLEMS}

    def render(self, v: Values) -> View:
        eps, d, q = float(v.epsilon), float(v.delta), float(v.event_probability)
        fig = P.posterior_figure(eps, d, q if d > 0 else None, marker_prior=_TASK_PRIOR)
        what = (f"for an output event S with P[S | out] = {q:.2g}, δ = {sci(d)} (exact maximum)" if d > 0
                else "over all outputs, δ = 0")
        rows = [("odds factor e<sup>ε</sup>", fmt(math.exp(eps))),
                (f"largest posterior from the prior {_pct(_TASK_PRIOR)}, {what}", _pct(_problem_posterior(v)))]
        return View(figures=[fig], readout=table(rows))
