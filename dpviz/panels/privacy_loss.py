"""Lesson 03 "Privacy loss": four panels, one per view of the same guarantee.

* :class:`OutputDistributionsPanel` — M(x) and M(x′) on neighbouring inputs, the area δ(ε) measures shaded;
* :class:`PrivacyLossPanel` — the privacy loss random variable L, ε marked, P[L > ε] and δ(ε);
* :class:`PrivacyProfilePanel` — the Gaussian δ(ε): exact (Balle & Wang 2018) vs the classic formula vs zCDP, with
  a predict-then-reveal exercise;
* :class:`TradeoffPanel` — the hypothesis-testing view: the trade-off curve inside the region (ε, δ)-DP allows;
* :class:`VectorReleasePanel` — a sum of d vectors clipped to ℓ2 norm C: ℓ1 against ℓ2 sensitivity, Laplace noise
  per coordinate against the Gaussian N(0, σ²I), with a predict-then-reveal exercise;
* :class:`PrivacyLossProblemsPanel` — the lesson's problem set (two numeric answers, two choices, a find-a-setting
  task on the Gaussian's privacy loss, a proof idea), with teaching notes for the teacher's edition.

Each panel has a no-argument constructor with defaults that render in well under 50 ms.
"""

from __future__ import annotations

import math
from typing import Any

from dpviz import mechanisms as M
from dpviz._validation import check_choice, check_delta, check_positive
from dpviz.accountants.factory import make_mechanism
from dpviz.conversions import zcdp_to_approx_dp
from dpviz.gaussian_profiles import clipped_sum_noise
from dpviz.panels import Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Slider, View
from dpviz.panels.exercises import ChoiceProblem, FindSetting, NumericAnswer, ProblemSet, ProofIdea, TeachingNotes
from dpviz.panels.format import fmt, table
from dpviz.plots import privacy_loss as P
from dpviz.references import cite

__all__ = ["OutputDistributionsPanel", "PrivacyLossPanel", "PrivacyProfilePanel", "TradeoffPanel",
           "VectorReleasePanel", "PrivacyLossProblemsPanel", "build_mechanism", "MECHANISM_OPTIONS"]

#: (label, key) pairs of the mechanism dropdown.
MECHANISM_OPTIONS = [
    ("Laplace", "laplace"),
    ("Gaussian", "gaussian"),
    ("randomized response (binary)", "rr"),
    ("discrete Laplace", "dlaplace"),
    ("discrete Gaussian", "dgaussian"),
    ("truncated discrete Laplace (TDLap)", "tdlap"),
]

_USES = {  # which controls each mechanism reads (the others are hidden)
    "laplace": {"scale", "sensitivity"},
    "gaussian": {"scale", "sensitivity"},
    "rr": {"mech_epsilon"},
    "dlaplace": {"scale", "sensitivity"},
    "dgaussian": {"scale", "sensitivity"},
    "tdlap": {"mech_epsilon"},
}

_TDLAP_DELTA = 1e-3


def build_mechanism(kind: str, scale: float = 1.0, sensitivity: float = 1.0, mech_epsilon: float = 1.0,
                    tdlap_delta: float = _TDLAP_DELTA):
    """The mechanism a panel's controls describe: ``scale`` (σ or b) and ``sensitivity`` for the additive-noise
    mechanisms, ``mech_epsilon`` (ε_RR) for randomized response and TDLap (with its own δ, ``tdlap_delta``), built by
    the one factory :func:`dpviz.accountants.factory.make_mechanism`. A ValueError names an unknown ``kind`` or, by
    this function's own names, a bad value of a parameter the kind reads (the others are ignored)."""
    check_choice(kind, "kind", tuple(_USES))
    uses = _USES[kind]
    if "scale" in uses:
        check_positive(scale, "scale")
    if "sensitivity" in uses:
        check_positive(sensitivity, "sensitivity")
    if "mech_epsilon" in uses:
        check_positive(mech_epsilon, "mech_epsilon")
    if kind == "tdlap":
        check_delta(tdlap_delta, "tdlap_delta", allow_zero=False)
    noise = mech_epsilon if "mech_epsilon" in uses else scale
    return make_mechanism(kind, noise, sensitivity, tdlap_delta=tdlap_delta)


def _used_by(name: str):
    """The visibility rule of a mechanism slider: shown when the chosen mechanism reads it (hidden ones keep their
    values)."""
    return lambda v: name in _USES[v.mechanism]


#: The mechanism controls the panels of this lesson share.
MECHANISM_CONTROLS = {
    "mechanism": Choice("mechanism", MECHANISM_OPTIONS, "gaussian"),
    "scale": Slider("noise σ (Gaussian) or scale b (Laplace)", 1.0, 0.2, 5.0, step=0.05, visible=_used_by("scale")),
    "sensitivity": IntSlider("sensitivity Δ (x′ = x + Δ)", 1, 1, 4, visible=_used_by("sensitivity")),
    "mech_epsilon": Slider("ε<sub>RR</sub> of randomized response / TDLap", 1.0, 0.1, 3.0, step=0.05,
                           visible=_used_by("mech_epsilon")),
}


def _mech_from(v):
    return build_mechanism(v.mechanism, float(v.scale), float(v.sensitivity), float(v.mech_epsilon))


def _mechanism_hint(v) -> str | None:
    """What the chosen discrete mechanism compares (the sliders it does not read are hidden)."""
    if v.mechanism == "rr":
        return "Neighbours are the two bits x = 0 and x′ = 1."
    if v.mechanism == "tdlap":
        return (f"TDLap's own δ is {_TDLAP_DELTA:g}: its noise lives on {{−κ, …, κ}} with "
                f"κ = 1 + ⌈ln(1/δ)/ε<sub>RR</sub>⌉ ({cite('ghazi2023few', 'Def 8')}).")
    return None


class OutputDistributionsPanel(Panel):
    """Output distributions of M(x) and M(x′) with the hockey-stick area δ(ε) shaded."""

    title = "Neighbouring inputs and what the mechanism outputs"
    intro = ("x and x′ are neighbouring inputs: they differ in one person's record (the unit of privacy here), and "
             "the query answer moves by the sensitivity Δ. The mechanism adds "
             "noise, so M(x) and M(x′) are two overlapping distributions. (ε, δ)-DP asks that p<sub>x</sub> stay "
             "below e<sup>ε</sup>·p<sub>x′</sub> except for a total excess δ: the shaded area.")

    controls = {"epsilon": Slider("ε (privacy loss bound)", 0.5, 0.0, 4.0, step=0.05), **MECHANISM_CONTROLS}

    def render(self, v) -> View:
        m = _mech_from(v)
        eps = float(v.epsilon)
        fig = P.output_distributions_figure(m, eps)
        d = m.delta(eps)
        rows = [("mechanism", P.mechanism_label(m)),
                ("δ(ε) = shaded area", f"{d:.4g}"),
                ("pure ε (δ = 0)", fmt(m.pure_epsilon)),
                ("reading", f"M is ({eps:.3g}, {d:.3g})-DP, and no smaller δ works at this ε")]
        return View(figures=[fig], readout=table(rows), hint=_mechanism_hint(v))


class PrivacyLossPanel(Panel):
    """The privacy loss random variable L with ε marked and P[L > ε], δ(ε) read out."""

    title = "The privacy loss random variable"
    intro = ("Draw an output o from M(x) and compute ℓ = ln(p<sub>x</sub>(o)/p<sub>x′</sub>(o)): how much more "
             "likely o is under x than under x′. L is random; ε-DP means L ≤ ε always, (ε, δ)-DP allows L to "
             "exceed ε with a small weighted probability δ(ε) = E[(1 − e<sup>ε−L</sup>)<sub>+</sub>] ≤ P[L > ε].")

    controls = {"epsilon": Slider("ε (privacy loss bound)", 1.0, 0.0, 4.0, step=0.05), **MECHANISM_CONTROLS}

    def render(self, v) -> View:
        m = _mech_from(v)
        eps = float(v.epsilon)
        fig = P.privacy_loss_figure(m, eps)
        pld = m.privacy_loss()
        sf = pld.sf(eps)
        d = m.delta(eps)
        rows = [("P[L > ε]", f"{sf:.4g}"),
                ("δ(ε) = E[(1 − e<sup>ε−L</sup>)<sub>+</sub>]", f"{d:.4g}"),
                ("E[e<sup>−L</sup>] (= 1 − P[M(x′) outside supp M(x)])", f"{1 - pld.missing_mass:.6g}"),
                ("largest possible loss", fmt(m.pure_epsilon) if not isinstance(m, M.TruncatedDiscreteLaplace)
                 else "∞ (the endpoint −κ)")]
        hint = _mechanism_hint(v)
        if sf > 0 and d / sf < 0.5:
            hint = (hint or "") + " Note δ(ε) < P[L > ε]: losses just above ε count only partly."
        return View(figures=[fig], readout=table(rows), hint=hint)


class _DirectionReveal(PredictReveal):
    """A predict-then-reveal whose question is "larger or smaller than a reference, and by how much?": the verdict
    judges the direction first (what the question asks), then the size of the guess."""

    def __init__(self, question, answer, reference, **kwargs):
        self.reference = reference
        super().__init__(question, answer, **kwargs)

    def reveal(self, _button: Any = None) -> str:
        truth, ref = float(self._call(self.answer)), float(self._call(self.reference))
        guess = float(self.guess.value)
        side = "smaller" if truth < ref else "larger"
        guessed = "smaller" if guess < ref else "larger"
        rel = abs(guess - truth) / abs(truth) if truth else math.inf
        if guessed == side:
            verdict = f"✅ Right direction: the exact ε is {side} than the classic {ref:.4g}."
        else:
            verdict = (f"❌ Wrong direction: your {guess:.4g} is {guessed} than the classic {ref:.4g}, but the exact "
                       f"ε is {side}.")
        size = ("close" if rel <= self.rel_tol else f"off by {rel:.0%}") if math.isfinite(rel) else "off"
        verdict += f" In size your guess is {size}: the exact ε is {truth:.4g}."
        text = verdict + (" " + self._call(self.explain, truth) if self.explain else "")
        self._show(text)
        self._committed()
        return text


class PrivacyProfilePanel(Panel):
    """Gaussian privacy profile: exact vs classic vs zCDP, with a predict-then-reveal exercise."""

    title = "The privacy profile δ(ε) of the Gaussian mechanism"
    intro = ("A Gaussian mechanism is not ε-DP for any ε, but (ε, δ(ε))-DP for every ε. The exact curve "
             f"({cite('balle2018gaussian', 'Thm 8')}) is what the mechanism gives; the textbook formula and the zCDP "
             "conversions are upper bounds or approximations of it.")

    controls = {
        "sigma": Slider("noise σ", 1.0, 0.2, 5.0, step=0.05),
        "sensitivity": Slider("sensitivity Δ", 1.0, 0.5, 3.0, step=0.25),
        "delta": LogSlider("δ (marked by the dotted line)", 1e-5, 1e-12, 1e-1, step=0.5, fmt=".1e"),
    }

    def _answer(self, v) -> float:
        return M.Gaussian(float(v.sigma), float(v.sensitivity)).epsilon(float(v.delta))

    def _classic(self, v) -> float:
        return M.classic_gaussian_epsilon(float(v.sigma), float(v.delta), float(v.sensitivity))

    def _explain(self, v, answer: float) -> str:
        s, dl, d = float(v.sigma), float(v.sensitivity), float(v.delta)
        classic = M.classic_gaussian_epsilon(s, d, dl)
        simple = zcdp_to_approx_dp(M.Gaussian(s, dl).rho, d, method="simple")
        return (f"The classic formula σ = Δ√(2 ln(1.25/δ))/ε, solved for ε, says ε = {classic:.4g} "
                f"({'inside' if classic < 1 else 'outside'} its proven range ε < 1; "
                f"{cite('dwork2014algorithmic', 'Thm A.1')}); the simple zCDP bound says {simple:.4g} "
                f"({cite('bun2016concentrated', 'Prop 1.3')}). The exact answer solves "
                "Φ(Δ/2σ − εσ/Δ) − e<sup>ε</sup> Φ(−Δ/2σ − εσ/Δ) = δ "
                f"({cite('balle2018gaussian', 'Thm 8')}).")

    def _question(self, v) -> str:
        s, dl, d = float(v.sigma), float(v.sensitivity), float(v.delta)
        classic = M.classic_gaussian_epsilon(s, d, dl)
        return (f"For σ = {s:.3g}, Δ = {dl:.3g} and δ = {d:.2g} the classic formula says ε = {classic:.4g}. Is the "
                "exact ε of the Gaussian mechanism larger or smaller, and by how much? Type your ε (below the classic "
                "value if you think it is smaller). Hint: read it off the blue curve where it crosses the dotted "
                "line δ.")

    # After the reveal, the exact ε is also drawn and tabulated (until a slider moves: predict again).
    exercises = {"exercise": _DirectionReveal(_question, answer=_answer, reference=_classic, explain=_explain,
                                              rel_tol=0.05, guess_label="your ε:", redraw=True)}

    def render(self, v) -> View:
        s, dl, d = float(v.sigma), float(v.sensitivity), float(v.delta)
        g = M.Gaussian(s, dl)
        revealed = self.revealed("exercise")
        fig = P.privacy_profile_figure(s, dl, delta_mark=d, show_epsilon=revealed)
        exact = g.epsilon(d)
        classic = M.classic_gaussian_epsilon(s, d, dl)
        cks = zcdp_to_approx_dp(g.rho, d, method="cks")
        simple = zcdp_to_approx_dp(g.rho, d, method="simple")
        classic_note = ("valid (ε < 1) but loose" if classic < 1 else
                        ("outside its proof (ε ≥ 1) and WRONG: the true δ at this ε is "
                         f"{g.delta(classic):.3g} > δ" if g.delta(classic) > d else "outside its proof (ε ≥ 1)"))
        rows = [(f"ε at this δ, exact ({cite('balle2018gaussian', 'Thm 8')})",
                 f"{exact:.4g}" if revealed else "? — predict it below, then reveal"),
                (f"classic: ε = Δ√(2 ln(1.25/δ))/σ ({cite('dwork2014algorithmic', 'Thm A.1')})",
                 f"{classic:.4g} — {classic_note}"),
                (f"zCDP conversion ({cite('canonne2020discrete', 'Cor 13')})", f"{cks:.4g}"),
                (f"zCDP, ρ + 2√(ρ ln(1/δ)) ({cite('bun2016concentrated', 'Prop 1.3')})", f"{simple:.4g}"),
                ("ρ = Δ²/(2σ²)", f"{g.rho:.4g}")]
        return View(figures=[fig], readout=table(rows))


_RR_OPTIONS = [
    ("Randomized response is the most private ε-DP mechanism: its curve is as high as the region allows.", False,
     "Tempting, because the curve touching the boundary looks like a mechanism doing its best. But higher means "
     "more private (β = 1 − α, the diagonal, is perfect privacy), and the boundary is the LOWEST curve ε-DP allows: "
     "RR sits on it, so no ε-DP mechanism is easier to attack."),
    ("Randomized response is the least private ε-DP mechanism: every ε-DP mechanism's curve lies on or above it.",
     True,
     "The region's boundary f<sub>ε,0</sub> is exactly RR's trade-off curve, so RR is the worst case of ε-DP: every "
     f"other ε-DP mechanism is at least as hard to attack ({cite('kairouz2015composition', 'Thm 2.1')}; "
     f"{cite('dong2022gaussian', 'Prop 2.5')}). That is why optimal composition is exact for RR (lessons 06 and 07)."),
    ("Being on the boundary means randomized response is not ε-DP.", False,
     "Tempting, because the boundary looks like the edge of failure. But ε-DP only forbids going BELOW the "
     "boundary; a curve on it satisfies ε-DP with equality (the readout says it holds)."),
]


class TradeoffPanel(Panel):
    """Hypothesis-testing view: the trade-off curve against the region (ε, δ)-DP allows."""

    title = "Privacy as hypothesis testing"
    intro = ("An adversary sees one output and must say whether it came from x or x′ (one person's record in or "
             "changed). Every test has a type I "
             "error α and a type II error β; the curve shows the best β for each α. (ε, δ)-DP means the curve "
             "stays in the shaded region: no test can be much better than guessing.")

    controls = {"epsilon": Slider("ε (privacy loss bound)", 1.0, 0.0, 4.0, step=0.05),
                "delta": LogSlider("δ", 1e-3, 1e-8, 10 ** -0.5, step=0.25, fmt=".1e"),
                **MECHANISM_CONTROLS}
    exercises = {"exercise": ChoiceReveal(
        "Choose randomized response with ε<sub>RR</sub> = 1 at ε = 1 and δ at the left end of its slider: its curve "
        "lies exactly on the boundary of the (1, 0)-DP region. What does that say?", _RR_OPTIONS)}

    def render(self, v) -> View:
        m = _mech_from(v)
        eps, d = float(v.epsilon), float(v.delta)
        fig = P.tradeoff_figure(m, eps, d)
        need = m.delta(eps)
        eps_need = m.epsilon(d)
        ok = need <= d
        rows = [("mechanism", P.mechanism_label(m)),
                ("its exact δ(ε) at this ε", f"{need:.4g} — {'≤' if ok else '>'} δ = {d:.3g}: "
                                              f"{'(ε, δ)-DP holds' if ok else '(ε, δ)-DP fails'}"),
                ("smallest ε for this δ", fmt(eps_need))]
        return View(figures=[fig], readout=table(rows), hint=_mechanism_hint(v))


#: The vector-release exercise: ε, δ and the dimension d it asks about.
_VR_EPS, _VR_DELTA, _VR_D = 1.0, 1e-5, 100


def _vr_answer(_panel=None, _v=None) -> float:
    return float(clipped_sum_noise(_VR_D, _VR_EPS, _VR_DELTA)["ratio"])


def _vr_explain(_panel, _v, truth: float) -> str:
    r = clipped_sum_noise(_VR_D, _VR_EPS, _VR_DELTA)
    return (f"At d = {_VR_D}, Δ<sub>1</sub> = √d·C = {r['l1_sensitivity']:g}·C, so Laplace needs b = Δ<sub>1</sub>/ε "
            f"= {r['laplace_scale']:g}·C on every coordinate ({cite('dwork2014algorithmic', 'Thm 3.6')}): a "
            f"standard deviation √2·b = {r['laplace_sd']:.4g}·C. The Gaussian needs σ = {r['gaussian_sigma']:.4g}·C "
            f"at Δ<sub>2</sub> = C, whatever d is ({cite('balle2018gaussian', 'Thm 8')}): {truth:.3g} times less. "
            f"Laplace needs less only up to d = {r['crossover']}; beyond, the gap grows like √d. DP-SGD (lesson 10) "
            "clips gradients in ℓ<sub>2</sub> norm and adds Gaussian noise for exactly this reason.")


class VectorReleasePanel(Panel):
    """A sum of d vectors clipped to ℓ2 norm C: Laplace per coordinate (Δ₁ = √d·C) against the Gaussian (Δ₂ = C)."""

    title = "A vector release: ℓ1 or ℓ2 sensitivity, Laplace or Gaussian noise?"
    intro = ("Each person contributes a vector of d numbers, clipped to ℓ<sub>2</sub> norm at most C, and the sum is "
             "released. Adding or removing one person moves the sum by their vector: by at most C in ℓ<sub>2</sub> "
             "norm (Δ<sub>2</sub> = C) but by up to √d·C in ℓ<sub>1</sub> norm (Δ<sub>1</sub>). Laplace noise on "
             "every coordinate must cover Δ<sub>1</sub>; the Gaussian N(0, σ²I) only Δ<sub>2</sub>. Noise is in "
             "units of C; the curves are drawn up to your d (all of them after you reveal the exercise).")

    controls = {
        "dimension": LogSlider("dimension d (coordinates)", 1, 1, 1e4, step=0.1, fmt=",.0f", integer=True),
        "epsilon": Slider("ε", 1.0, 0.1, 4.0, step=0.05),
        "delta": LogSlider("δ (Gaussian only)", 1e-5, 1e-10, 1e-2, step=0.5, fmt=".0e"),
    }
    # All the curves are drawn once the learner has revealed (before, only up to their d).
    exercises = {"exercise": PredictReveal(
        f"With ε = {_VR_EPS:g}, δ = 10⁻⁵ and d = {_VR_D} coordinates, how many times more noise per coordinate "
        "(standard deviation) does the Laplace release need than the Gaussian? Predict before you move d.",
        _vr_answer, explain=_vr_explain, rel_tol=0.15, guess_label="Laplace / Gaussian:", redraw=True, sticky=True)}

    def render(self, v) -> View:
        d, eps, delta = max(1, v.dimension), float(v.epsilon), float(v.delta)
        fig = P.vector_release_figure(eps, delta, d, drawn_to=None if self.revealed("exercise") else d)
        r = clipped_sum_noise(d, eps, delta)
        classic = (f"{M.classic_gaussian_sigma(eps, delta, 1.0):.4g}·C (valid, ε < 1, but loose)" if eps < 1 else
                   "not proven for ε ≥ 1")
        rows = [("ℓ<sub>1</sub> sensitivity Δ<sub>1</sub> = √d·C", f"{r['l1_sensitivity']:.4g}·C"),
                ("ℓ<sub>2</sub> sensitivity Δ<sub>2</sub> = C", "1·C, for every d"),
                (f"Laplace per coordinate, b = Δ<sub>1</sub>/ε ({cite('dwork2014algorithmic', 'Thm 3.6')})",
                 f"b = {r['laplace_scale']:.4g}·C, standard deviation √2·b = {r['laplace_sd']:.4g}·C (pure ε-DP)"),
                (f"Gaussian N(0, σ²I), exact σ ({cite('balle2018gaussian', 'Thm 8')})",
                 f"σ = {r['gaussian_sigma']:.4g}·C"),
                (f"classic σ = Δ<sub>2</sub>√(2 ln(1.25/δ))/ε ({cite('dwork2014algorithmic', 'Thm A.1')})", classic),
                ("Laplace noise / Gaussian noise at this d", f"{r['ratio']:.3g}×"),
                ("Laplace needs less noise for d up to", f"{r['crossover']:,}")]
        hint = None
        if d <= r["crossover"]:
            hint = ("At this d Laplace needs less noise: with few coordinates, √d·C is still small, and Laplace "
                    "pays no δ.")
        return View(figures=[fig], readout=table(rows), hint=hint)


# ============================================================================================ the lesson's problems

_DR_DP = cite("dwork2014algorithmic", "Def. 2.4")
_DR_LAPLACE = cite("dwork2014algorithmic", "Thm 3.6")
_DR_SENSITIVITY = cite("dwork2014algorithmic", "Def 3.1")
_DR_L2 = cite("dwork2014algorithmic", "§3.5.3")
_BW_PROFILE = cite("balle2018gaussian", "Thm 5")
_BW_GAUSSIAN = cite("balle2018gaussian", "Thm 8")
_BW_LOSS = cite("balle2018gaussian", "Lemma 3")
_KOV = cite("kairouz2015composition", "Thm 2.1")
_DRS = cite("dong2022gaussian", "Prop 2.5")

#: Problem 1: Laplace of scale b on a count, the type I error α asked about.
_TR_B, _TR_ALPHA = 2.0, 0.05
_TR_EPS = 1.0 / _TR_B
#: Problem 2: the Gaussian's σ, Δ and ε.
_PG_SIGMA, _PG_DELTA_SENS, _PG_EPS = 2.0, 1.0, 0.5
_PG = M.Gaussian(_PG_SIGMA, _PG_DELTA_SENS)
#: Problem 5: P[L > ε] at least this many times δ(ε), with δ(ε) at least this.
_RATIO, _DELTA_FLOOR = 5.0, 0.01


def _tail_and_profile(v) -> tuple[float, float]:
    """P[L > ε] and δ(ε) of the problems panel's Gaussian (Δ = 1) at its ε."""
    g = M.Gaussian(float(v.sigma), 1.0)
    eps = float(v.epsilon)
    return float(g.privacy_loss().sf(eps)), float(g.delta(eps))


def _tail_five_times_delta(_panel, v) -> bool:
    """Problem 5: P[L > ε] ≥ 5·δ(ε) with δ(ε) ≥ 0.01."""
    sf, d = _tail_and_profile(v)
    return d >= _DELTA_FLOOR and sf >= _RATIO * d


def _phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


_PG_A = _PG_DELTA_SENS / (2 * _PG_SIGMA) - _PG_EPS * _PG_SIGMA / _PG_DELTA_SENS  # Δ/2σ − εσ/Δ
_PG_B = -_PG_DELTA_SENS / (2 * _PG_SIGMA) - _PG_EPS * _PG_SIGMA / _PG_DELTA_SENS  # −Δ/2σ − εσ/Δ

_PROBLEMS = ProblemSet("Problems: privacy loss", {
    "beta": NumericAnswer(
        f"A count (Δ = 1) is released with Laplace noise of scale b = {_TR_B:g}. By the (ε, 0)-DP region it "
        f"satisfies, what is the smallest type II error β that any test of x against x′ can have at type I error "
        f"α = {_TR_ALPHA:g}?", 1.0 - math.exp(_TR_EPS) * _TR_ALPHA, abs_tol=0.005, label="β =",
        traps=[(math.exp(-_TR_EPS) * (1.0 - _TR_ALPHA),
                "That is the other branch, e<sup>−ε</sup>(1 − α). The region's boundary is the <i>largest</i> of "
                "0, 1 − e<sup>ε</sup>α and e<sup>−ε</sup>(1 − α); at small α the first line is the binding one."),
               (1.0 - _TR_ALPHA, "That is the diagonal β = 1 − α, a coin flip. ε-DP with ε > 0 lets a test do "
                                 "somewhat better than that."),
               (1.0 - math.exp(_TR_B) * _TR_ALPHA,
                "That uses ε = b = 2. The Laplace mechanism is (Δ/b)-DP: more noise means a smaller ε, here "
                "ε = 1/2.")],
        solution=(f"The count is ε-DP with ε = Δ/b = {_TR_EPS:g} ({_DR_LAPLACE}). (ε, 0)-DP means "
                  "T(α) ≥ max(0, 1 − e<sup>ε</sup>α, e<sup>−ε</sup>(1 − α)) (" + _KOV + "; " + _DRS + "). At "
                  f"α = {_TR_ALPHA:g}: 1 − e<sup>0.5</sup>·0.05 ≈ {1 - math.exp(_TR_EPS) * _TR_ALPHA:.4f} and "
                  f"e<sup>−0.5</sup>·0.95 ≈ {math.exp(-_TR_EPS) * (1 - _TR_ALPHA):.4f}: the larger, "
                  f"{1 - math.exp(_TR_EPS) * _TR_ALPHA:.4f}, is the bound. A test that raises a false alarm only "
                  "5 % of the time misses more than 91 % of the time."),
        notes=TeachingNotes(
            timing="3 min",
            wrong=("0.576: the wrong branch of the max (the bound is the largest of the three).",
                   "0.95: the diagonal, as if DP allowed no test better than a coin flip.",
                   "0.631: ε taken to be b instead of Δ/b."),
            ask="At which α do the two lines 1 − e<sup>ε</sup>α and e<sup>−ε</sup>(1 − α) cross, and what is β "
                "there? (α = β = 1/(1 + e<sup>ε</sup>).)")),
    "delta": NumericAnswer(
        f"A Gaussian mechanism has σ = {_PG_SIGMA:g} and Δ = {_PG_DELTA_SENS:g}. What is its exact δ(ε) at "
        f"ε = {_PG_EPS:g}?", _PG.delta(_PG_EPS), rel_tol=0.02, label="δ(ε) =",
        traps=[(_phi(_PG_A),
                "That is P[L > ε] = Φ(Δ/2σ − εσ/Δ), the first term alone. δ(ε) = E[(1 − e<sup>ε−L</sup>)₊] "
                "counts a loss just above ε only partly: subtract e<sup>ε</sup>Φ(−Δ/2σ − εσ/Δ)."),
               (_phi(_PG_A) - _phi(_PG_B),
                "Close, but the e<sup>ε</sup> in front of the second term is missing: the profile compares "
                "p<sub>x</sub> with e<sup>ε</sup>·p<sub>x′</sub>, not with p<sub>x′</sub>."),
               (1.25 * math.exp(-(_PG_EPS * _PG_SIGMA / _PG_DELTA_SENS) ** 2 / 2),
                "That is the classic formula read as δ = 1.25·e<sup>−(εσ/Δ)²/2</sup>: an upper bound (proved "
                "for ε < 1), far above the exact profile here.")],
        solution=("The exact profile is δ(ε) = Φ(Δ/2σ − εσ/Δ) − e<sup>ε</sup>Φ(−Δ/2σ − εσ/Δ) (" + _BW_GAUSSIAN
                  + f"). With Δ/2σ = 0.25 and εσ/Δ = 1: Φ(−0.75) − e<sup>0.5</sup>Φ(−1.25) ≈ {_phi(_PG_A):.5f} − "
                  f"1.64872 × {_phi(_PG_B):.5f} ≈ {_PG.delta(_PG_EPS):.4f}. The first term alone, "
                  f"{_phi(_PG_A):.4f}, is P[L > ε] for L ~ N(μ²/2, μ²) with μ = Δ/σ (" + _BW_LOSS + ")."),
        notes=TeachingNotes(
            timing="4 min (Φ from a table or the panel's readout)",
            wrong=("0.227: P[L > ε], the tail, given for the profile.",
                   "0.121: the factor e<sup>ε</sup> dropped.",
                   "0.758: the classic formula's δ taken for the exact one."),
            ask="Which of the four views of the lesson shows this number as an area, and which as a crossing?")),
    "meaning": ChoiceProblem(
        "A mechanism is (1, 10⁻⁵)-DP. Which statement follows from the definition alone?",
        [("For every set S of outputs and all neighbours x, x′: P[M(x) ∈ S] ≤ e·P[M(x′) ∈ S] + 10⁻⁵.", True,
          "Right: that is the definition with ε = 1 and δ = 10⁻⁵ (" + _DR_DP + "); equivalently, the privacy "
          "profile satisfies δ(1) ≤ 10⁻⁵ (" + _BW_PROFILE + ")."),
         ("The privacy loss L exceeds 1 with probability at most 10⁻⁵.", False,
          "Tempting: δ is often read as 'the probability that the loss goes above ε'. But the inequality goes the "
          "other way: δ(ε) = E[(1 − e<sup>ε−L</sup>)₊] ≤ P[L > ε] (" + _BW_PROFILE + "), so P[L > 1] may be "
          "larger than 10⁻⁵; for the Gaussian it is several times δ(ε) (§2)."),
         ("Every test has β ≥ 1 − e·α, as for pure 1-DP: δ = 10⁻⁵ is too small to matter.", False,
          "Tempting, since 10⁻⁵ looks negligible. But the region is β ≥ max(0, 1 − δ − e<sup>ε</sup>α, "
          "e<sup>−ε</sup>(1 − δ − α)) (" + _KOV + "): at α = 0 a test may reach β = 1 − δ, which 1 − e·α = 1 "
          "forbids. A mechanism that publishes the data with probability 10⁻⁵ (and otherwise nothing) is "
          "(1, 10⁻⁵)-DP, and not 1-DP.")],
        notes=TeachingNotes(
            timing="3 min",
            wrong=("'L exceeds 1 with probability at most δ': the sufficient condition read as the definition.",
                   "'δ too small to matter': the δ of the region ignored."),
            ask="Why do we ask δ to be much smaller than 1/n for a data set of n people?")),
    "vector": ChoiceProblem(
        "Each person contributes a vector of d = 10,000 numbers clipped to ℓ<sub>2</sub> norm at most C, and the "
        "sum is released. Under add/remove-one-person neighbours, what are Δ<sub>1</sub> and Δ<sub>2</sub>?",
        [("Δ₂ = C and Δ₁ = 100·C", True,
          "Right: the sum moves by the person's clipped vector v, with ‖v‖<sub>2</sub> ≤ C (" + _DR_L2 + "). Its "
          "ℓ<sub>1</sub> norm reaches √d·‖v‖<sub>2</sub> = 100·C when all coordinates equal C/√d = C/100 "
          "(Cauchy–Schwarz; " + _DR_SENSITIVITY + ")."),
         ("Δ₂ = C and Δ₁ = C", False,
          "Tempting: the clipping bounds 'the size' of a vector by C. But only its ℓ<sub>2</sub> norm: a vector "
          "spread evenly over 10,000 coordinates has ℓ<sub>2</sub> norm C and ℓ<sub>1</sub> norm 100·C."),
         ("Δ₂ = 100·C and Δ₁ = 10,000·C", False,
          "Tempting if every coordinate is thought to move by up to C. One coordinate can reach C, but then all "
          "the others are 0: the clipping bounds the whole vector, so Δ<sub>2</sub> = C and Δ<sub>1</sub> = "
          "√d·C."),
         ("Δ₂ = 2C and Δ₁ = 200·C", False,
          "That is replace-one: one clipped vector swapped for another moves the sum by up to 2C in "
          "ℓ<sub>2</sub> norm. Under add/remove the sum moves by one vector only.")],
        notes=TeachingNotes(
            timing="3 min",
            wrong=("Δ₁ = C: the ℓ<sub>2</sub> clipping read as a bound in every norm.",
                   "Δ₂ = 100·C: each coordinate given its own bound C.",
                   "2C: the replace-one sensitivity under add/remove."),
            ask="With these sensitivities, at ε = 1 how much noise per coordinate does Laplace need, against the "
                "Gaussian's σ = 3.73·C at δ = 10⁻⁵ (§5)?")),
    "setting": FindSetting(
        "Set the Gaussian's σ (Δ = 1) and ε so that P[L > ε] is at least five times δ(ε), while δ(ε) is still at "
        "least 0.01.", _tail_five_times_delta, live=True,
        hint="The ratio P[L > ε]/δ(ε) grows with σ and with ε, while δ(ε) shrinks with both. Start from σ near 2 "
             "and raise ε slowly, reading the table.",
        solution=("For example σ = 2 and ε = 0.8: P[L > ε] = Φ(0.25 − 1.6) ≈ 0.0885 and δ(ε) ≈ 0.0169, a ratio "
                  "of 5.2 (" + _BW_GAUSSIAN + "; " + _BW_LOSS + "). The settings that work have σ ≥ 1.8 and "
                  "ε ≤ 1.05 on the sliders. The gap is the weight e<sup>ε−L</sup> that losses just above ε keep: "
                  "δ(ε) = E[(1 − e<sup>ε−L</sup>)₊] counts them only partly (" + _BW_PROFILE + ")."),
        notes=TeachingNotes(
            timing="4 min",
            wrong=("Small σ: below σ = 1.8 no ε gives a ratio of 5 with δ(ε) ≥ 0.01.",
                   "Large ε at large σ: the ratio passes 5 but δ(ε) drops below 0.01."),
            ask="Why would reading δ as P[L > ε] make a Gaussian mechanism look worse than it is?")),
    "proof": ProofIdea(
        "Why is δ(ε) = E[(1 − e<sup>ε−L</sup>)₊] never larger than P[L > ε]? Write the key step of the proof, or "
        "pick it.",
        "With O drawn from M(x) and L = ℓ(O) = ln(p<sub>x</sub>(O)/p<sub>x′</sub>(O)), the excess area is "
        "∫(p<sub>x</sub> − e<sup>ε</sup>p<sub>x′</sub>)₊ = ∫p<sub>x</sub>·(1 − e<sup>ε</sup>p<sub>x′</sub>/"
        "p<sub>x</sub>)₊ = E[(1 − e<sup>ε−L</sup>)₊], since p<sub>x′</sub>(O)/p<sub>x</sub>(O) = e<sup>−L</sup> "
        "(" + _BW_PROFILE + "). Now bound the integrand output by output: when L ≤ ε, e<sup>ε−L</sup> ≥ 1 and "
        "(1 − e<sup>ε−L</sup>)₊ = 0; when L > ε it is 1 − e<sup>ε−L</sup>, between 0 and 1. So "
        "(1 − e<sup>ε−L</sup>)₊ ≤ 1[L > ε] at every output, and taking expectations gives δ(ε) ≤ P[L > ε]. The "
        "same holds with x and x′ swapped, so for the profile, the larger of the two directions. The gap is the "
        "weight e<sup>ε−L</sup> that a loss just above ε keeps: it counts only partly.",
        steps=[("the integrand is 0 when L ≤ ε and below 1 when L > ε", True,
                "Right: (1 − e<sup>ε−L</sup>)₊ ≤ 1[L > ε] at every output, and the expectation keeps the "
                "inequality."),
               ("Markov's inequality on L", False,
                "Tempting: Markov turns an expectation into a tail bound. But here an expectation is bounded "
                "<i>by</i> a tail probability, the other way round, and no inequality of that kind is needed: a "
                "bound on the integrand at every output does it."),
               ("the identity E[exp(−L)] = 1", False,
                "True (§2): it says p<sub>x′</sub> integrates to 1. It is used in writing the area as an "
                "expectation, but it does not compare δ(ε) with P[L > ε]; the pointwise bound does.")],
        notes=TeachingNotes(
            timing="5 min (pairs, then one pair at the board)",
            wrong=("'Markov's inequality': a tail bound reached for where a pointwise bound is enough.",
                   "'E[e<sup>−L</sup>] = 1': a true fact of §2 that does not make the comparison."),
            ask="When is δ(ε) close to P[L > ε]? (When the losses above ε are much larger than ε, as for TDLap's "
                "atom at L = +∞.)")),
}, intro="Each problem is checked as soon as you answer; a wrong answer can be tried again, and the solution opens "
         "after your first attempt. Problem 5 is about this panel's settings.")


class PrivacyLossProblemsPanel(Panel):
    """The lesson's problem set, with the Gaussian's privacy loss L, P[L > ε] and δ(ε) for its find-a-setting
    task."""

    title = "Problems: privacy loss"
    intro = ("The figure shows the privacy loss L of the Gaussian mechanism with Δ = 1 at the chosen σ, ε marked (L "
             "~ N(μ²/2, μ²) with μ = Δ/σ, " + _BW_LOSS + ").")

    controls = {"epsilon": Slider("ε (privacy loss bound)", 1.0, 0.0, 4.0, step=0.05),
                "sigma": Slider("noise σ (Gaussian, Δ = 1)", 1.0, 0.2, 5.0, step=0.05)}
    exercises = {"problems": _PROBLEMS}

    def render(self, v) -> View:
        eps = float(v.epsilon)
        g = M.Gaussian(float(v.sigma), 1.0)
        sf, d = _tail_and_profile(v)
        rows = [("P[L > ε]", f"{sf:.4g}"), ("δ(ε) = E[(1 − e<sup>ε−L</sup>)<sub>+</sub>]", f"{d:.4g}"),
                ("P[L > ε] / δ(ε)", f"{sf / d:.3g}" if d > 0 else "∞")]
        return View(figures=[P.privacy_loss_figure(g, eps)], readout=table(rows))
