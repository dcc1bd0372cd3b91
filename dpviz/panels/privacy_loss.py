"""Lesson 03 "Privacy loss": four panels, one per view of the same guarantee.

* :class:`OutputDistributionsPanel` — M(x) and M(x′) on neighbouring inputs, the area δ(ε) measures shaded;
* :class:`PrivacyLossPanel` — the privacy loss random variable L, ε marked, P[L > ε] and δ(ε);
* :class:`PrivacyProfilePanel` — the Gaussian δ(ε): exact (Balle & Wang 2018) vs the classic formula vs zCDP, with
  a predict-then-reveal exercise;
* :class:`TradeoffPanel` — the hypothesis-testing view: the trade-off curve inside the region (ε, δ)-DP allows;
* :class:`VectorReleasePanel` — a sum of d vectors clipped to ℓ2 norm C: ℓ1 against ℓ2 sensitivity, Laplace noise
  per coordinate against the Gaussian N(0, σ²I), with a predict-then-reveal exercise.

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
from dpviz.panels.format import fmt, table
from dpviz.plots import privacy_loss as P
from dpviz.references import cite

__all__ = ["OutputDistributionsPanel", "PrivacyLossPanel", "PrivacyProfilePanel", "TradeoffPanel",
           "VectorReleasePanel", "build_mechanism", "MECHANISM_OPTIONS"]

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
