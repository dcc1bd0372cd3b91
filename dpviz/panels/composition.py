"""Panels of lessons 06 "Composition theorems" and 07 "Accounting in practice": all accountants side by side, ε
against k, calibration, group privacy, and the two lessons' problem sets.

* :class:`CompositionLabPanel` — k, mechanism, noise, sampling rate, δ, neighbouring relation → ε from every
  accountant (bars, PLD error bar), the privacy profile δ(ε) of the composition, and the "why accountants disagree"
  table (ratio to the tightest, kind of bound, reason, source);
* :class:`EpsilonVsCompositionsPanel` — ε against the number of compositions k, one line per accountant, with a
  predict-then-reveal exercise on 100 Gaussians;
* :class:`CalibrationPanel` — target ε → the noise σ (or Laplace b) each accountant needs;
* :class:`GroupPrivacyPanel` — generic group privacy against the exact answer for a person with g records, with a
  predict-then-reveal and a misconception exercise;
* :class:`AmplificationPanel` — the amplification-by-subsampling theorem ε′ = ln(1 + q(e^ε − 1)) drawn against the
  sampling rate q, with its small-ε line q·ε and a predict-then-reveal exercise;
* :class:`CompositionProblemsPanel` — lesson 06's problem set (advanced against basic composition, ε against k,
  amplification, group privacy's δ<sub>g</sub>, a find-a-setting task on the amplification figure, the proof idea of
  basic composition), with teaching notes for the teacher's edition;
* :class:`AccountingProblemsPanel` — lesson 07's problem set (calibration of k Gaussians, ρ of zCDP, what a looser
  accountant costs in data, which accountant is exact when, two libraries' numbers, a find-a-setting task on the
  composition lab, the proof idea of Gaussian composition).
"""

from __future__ import annotations

import html
import math

from dpviz._validation import check_choice, check_in_range, check_integer, check_positive
from dpviz.accountants import amplify_poisson
from dpviz.accountants import compare as C
from dpviz.panels import (
    Choice,
    ChoiceReveal,
    IntSlider,
    LogSlider,
    Panel,
    PredictReveal,
    Slider,
    Step,
    Toggle,
    View,
)
from dpviz.panels.exercises import ChoiceProblem, FindSetting, NumericAnswer, ProblemSet, ProofIdea, TeachingNotes
from dpviz.panels.format import fmt
from dpviz.plots import composition as P
from dpviz.references import cite

__all__ = ["CompositionLabPanel", "EpsilonVsCompositionsPanel", "CalibrationPanel", "GroupPrivacyPanel",
           "AmplificationPanel", "CompositionProblemsPanel", "AccountingProblemsPanel", "disagreement_table"]

_MECH_OPTIONS = [("Gaussian", "gaussian"), ("Laplace", "laplace"), ("Randomized response", "rr")]
_NEIGHBOR_OPTIONS = [("add/remove one person", "add_remove"), ("replace one person", "replace_one")]
_NOISE_CONTROL = {"gaussian": "sigma", "laplace": "scale", "rr": "eps0"}


def _noise_of(mechanism: str):
    """The visibility rule of a noise slider: shown for its own mechanism only (the others keep their values)."""
    return lambda v: v.mechanism == mechanism


#: The noise sliders of the lab's mechanisms (one shown at a time, by :data:`_NOISE_CONTROL`).
NOISE_CONTROLS = {
    "sigma": LogSlider("Gaussian noise σ", 4.0, 10 ** -0.5, 10 ** 2.0, step=0.05, visible=_noise_of("gaussian")),
    "scale": LogSlider("Laplace scale b", 10.0, 10 ** -0.5, 10 ** 3.0, step=0.05, visible=_noise_of("laplace")),
    "eps0": LogSlider("randomized response ε<sub>step</sub> (per step)", 0.1, 10 ** -2.0, 10 ** 1.0, step=0.05,
                      visible=_noise_of("rr")),
}


def _add_remove(v) -> bool:
    """The sampling-rate slider's visibility: Poisson subsampling is analysed for add/remove neighbours only
    (:func:`_sampling_rate`)."""
    return v.neighboring != "replace_one"


#: The sampling rate, δ and neighbouring relation the lab and the ε-against-k panel share.
RATE = LogSlider("sampling rate q (1 = none)", 1.0, 10 ** -3.0, 1.0, step=0.1, visible=_add_remove,
                 bench=[1.0, 0.1, 0.01])
DELTA = LogSlider("δ", 1e-5, 1e-10, 1e-2, step=0.5, fmt=".0e")
# the fixed default width cut the labels to "add/remove one …"
NEIGHBOURS = Toggle("neighbours:", _NEIGHBOR_OPTIONS, "add_remove", button_width="auto")


#: How the ε-against-k and calibration panels stream a Gaussian setting: which accountants each pass still leaves
#: out. For Gaussian steps (subsampled or not) every value of the advanced and optimal accountants is a numerical
#: optimisation over how δ is split (at the defaults ~80 and ~200 ms per update of the ε-against-k panel), while
#: basic, zCDP, RDP and PLD take a few ms: they are drawn first. For Laplace and randomized response every
#: accountant is quick, and one pass draws all.
_GAUSSIAN_PASSES = (("advanced", "optimal"), ("optimal",), ())
_PASS_UNIT = "passes (the advanced, then the optimal accountant last: each is a numerical optimisation)"


def _passes(mechanism: str) -> list[tuple[tuple[str, ...], list[str]]]:
    """(accountants still left out after this pass, accountants this pass computes) for each pass."""
    passes = _GAUSSIAN_PASSES if mechanism == "gaussian" else ((),)
    out, done = [], set()
    for pending in passes:
        todo = [n for n in P.ACCOUNTANT_ORDER if n not in pending and n not in done]
        done.update(todo)
        out.append((pending, todo))
    return out


def _noise(v) -> float:
    return float(v[_NOISE_CONTROL[v.mechanism]])


def _sampling_rate(v) -> float:
    """The sampling rate q that applies: the slider's under add/remove neighbours; 1 under replace-one, where the
    slider is hidden. The amplification theorem for Poisson sampling is one for add/remove neighbours (Balle, Barthe &
    Gaboardi 2018, Thm 8): its proof compares the sample that holds the changed record with the sample that does
    not, which are add/remove neighbours, and a replace-one guarantee of the mechanism says nothing about those.
    (The replace-one analogue samples a fixed-size subset without replacement, Thm 9 there.)"""
    return float(v.rate) if _add_remove(v) else 1.0


def disagreement_table(mechanism: str, noise: float, count: int, rate: float, delta: float,
                       neighboring: str) -> str:
    """HTML table "why accountants disagree" for one setting: ε, ratio to the tightest, kind of bound, why, source.

    The tightest is the exact ε when a closed form exists (k Gaussians), else the smallest certified upper bound.
    The setting is validated as the bar chart it explains validates it (k ≤ :data:`dpviz.plots.composition.COUNT`,
    q ≥ :data:`dpviz.plots.composition.MIN_RATE`), the noise named ``noise``.
    """
    check_choice(mechanism, "mechanism", tuple(P.MECHANISM_LABELS))
    check_positive(noise, "noise")
    check_integer(count, "count", minimum=1, maximum=P.COUNT.high)
    check_in_range(rate, "rate", P.MIN_RATE, 1.0)
    results = C.compare_accountants(mechanism, noise, count, rate, delta, neighboring, accountants=P.ACCOUNTANT_ORDER)
    exact = C.exact_epsilon(mechanism, noise, count, rate, delta, neighboring)
    ref = C.reference_epsilon(results, exact)
    rows = []
    for r in results:
        info = P.ACCOUNTANT_INFO[r.accountant]
        if not r.available:
            eps, ratio = "n/a", "—"
            why = f"Not applicable here: {html.escape(r.error or '')}"
        else:
            eps = fmt(r.epsilon)
            if ref is None or not math.isfinite(r.epsilon):
                ratio = "—" if ref is None else "∞"
            elif ref == 0:
                ratio = "1.00×" if r.epsilon == 0 else "∞"
            else:
                ratio = f"{r.epsilon / ref:.2f}×"
            why = info.why  # the lesson's own HTML (<sub>), not user input
            if r.accountant == "pld" and r.lower is not None:
                eps = f"{fmt(r.lower)} … {fmt(r.epsilon)}"
                if math.isfinite(r.epsilon) and r.epsilon > 0:
                    why += f" Here the bracket is {100 * (r.epsilon - r.lower) / r.epsilon:.2g}% wide."
            if r.alternative is not None and math.isfinite(r.alternative):
                conv = "classic conversion (Mironov 2017, Prop. 3)" if r.accountant == "rdp" else \
                    f"simple conversion ρ + 2√(ρ ln(1/δ)) ({cite('bun2016concentrated', 'Prop 1.3')})"
                why += f" The {conv} would give ε = {r.alternative:.4g}."
            if r.accountant == "zcdp" and rate < 1.0 and mechanism == "gaussian":
                why += " Here it charges every subsampled Gaussian step in full: zCDP cannot express amplification."
        rows.append(
            f"<tr><td style='color:{info.colour};font-weight:600'>{html.escape(info.label)}</td>"
            f"<td style='text-align:right'>{eps}</td><td style='text-align:right'>{ratio}</td>"
            f"<td>{info.kind}</td><td>{why}</td><td><small>{html.escape(info.reference)}</small></td></tr>"
        )
    if exact is not None:
        head = (f"Tightest = the <b>exact</b> ε = {exact:.4g}: {count:,} Gaussians of σ = {noise:.3g} are one Gaussian "
                f"of σ/√k = {noise / math.sqrt(count):.4g} ({cite('dong2022gaussian', 'Cor 3.3')}; "
                f"{cite('balle2018gaussian', 'Thm 8')}).")
    elif ref is not None:
        head = (f"Tightest = the smallest certified upper bound, ε = {ref:.4g} (no closed form for this setting; "
                "PLD's optimistic end shows how much lower the truth could be).")
    else:
        head = "No accountant gives a finite ε here."
    return (
        "<div style='max-width:1100px'><b>Why accountants disagree</b> — same mechanism, same δ = "
        f"{delta:.0e}, different mathematics. {head}"
        "<table style='border-collapse:collapse;margin-top:4px;font-size:90%' cellpadding='4'>"
        "<tr style='border-bottom:1px solid #999'><th>accountant</th><th>ε</th><th>× tightest</th>"
        "<th>kind of bound</th><th>why</th><th>source</th></tr>" + "".join(rows) + "</table></div>"
    )


class CompositionLabPanel(Panel):
    """Every accountant at once: ε bars with the PLD error bar, the privacy profile, and the disagreement table."""

    title = "Composition lab: every accountant on the same composition"
    intro = ("Compose <i>k</i> copies of one mechanism (optionally Poisson-subsampled at rate q) and ask every "
             "accountant for ε at your δ. All of them are correct; they differ in how much they can prove. "
             "The Gaussian and Laplace steps answer a sum of values clipped to [−1, 1]: sensitivity 1 for add/remove "
             "neighbours, 2 for replace-one.")
    #: ~25–45 ms of computation per update at the defaults (CPU time; the advanced/optimal accountants' (ε, δ)
    #: optimisation for Gaussian steps and PLD's FFT for long non-Gaussian compositions are the largest parts), up
    #: to ~80 ms at k = 10⁵: kept on release with progress so that a loaded kernel still feels responsive.
    slow = True

    controls = {
        "k": LogSlider("compositions k", 100, 1, 10 ** 5.0, step=0.1, fmt=",.0f", integer=True,
                       bench=[1, 10, 100, 1000, 10_000, 100_000]),
        "mechanism": Choice("mechanism", _MECH_OPTIONS, "gaussian"),
        **NOISE_CONTROLS,
        "rate": RATE,
        "delta": DELTA,
        "neighboring": NEIGHBOURS,
    }

    #: ε grid of the first, coarse privacy profile of a live update (the final one has the figure's default 40)
    COARSE_PROFILE_POINTS = 8

    def render(self, v):
        """Two steps: every accountant's ε (the bars) with the privacy profile on a coarse ε grid, then the
        profile on the full grid (the expensive part at large k)."""
        mech, noise, k, q, delta, nb = v.mechanism, _noise(v), v.k, _sampling_rate(v), float(v.delta), v.neighboring
        for i, name in enumerate(P.ACCOUNTANT_ORDER):  # fill the cache accountant by accountant (moves the bar)
            C.epsilon_result(name, mech, noise, k, q, delta, nb)
            self.report_progress(0.1 * (i + 1))
            if i:
                yield  # a pause between accountants: the kernel answers the page meanwhile
        setting = (mech, noise, k, q, delta, nb)
        yield Step(1, 2, lambda: self._view(*setting, n_points=self.COARSE_PROFILE_POINTS),
                   unit="passes (a coarse ε grid first)")
        yield Step(2, 2, lambda: self._view(*setting), unit="passes (a coarse ε grid first)")

    def _view(self, mech, noise, k, q, delta, nb, n_points=None):
        bars = P.accountant_bars_figure(mech, noise, k, q, delta, nb)
        if n_points is None:
            prof = P.privacy_profile_figure(mech, noise, k, q, delta, nb)
        else:
            prof = P.privacy_profile_figure(mech, noise, k, q, delta, nb, n_points=n_points)
        hint = None
        if delta > 1e-4:
            hint = "δ above 10⁻⁴ is weak: δ should be much smaller than 1/n for n people."
        elif q < 1 and mech != "gaussian":
            hint = ("Subsampled Laplace / randomized response: every accountant but PLD sees a step only through its "
                    "amplified pure ε′ = ln(1 + q(e<sup>ε<sub>step</sub></sup> − 1)) (the amplification theorem, "
                    f"{cite('balle2018subsampling', 'Thm 8')}); PLD composes the whole subsampled privacy loss.")
        return View(figures=[bars, prof], readout=disagreement_table(mech, noise, k, q, delta, nb), hint=hint)


def _answer_100_gaussians(_panel=None, _v=None) -> float:
    return float(C.exact_epsilon("gaussian", _EX_SIGMA, 100, 1.0, _EX_DELTA))


_EX_SIGMA = 10.0
_EX_DELTA = 1e-5


def _explain_100_gaussians(_panel, _v, truth: float) -> str:
    one = C.exact_epsilon("gaussian", _EX_SIGMA, 1, 1.0, _EX_DELTA)
    basic = C.epsilon_result("basic", "gaussian", _EX_SIGMA, 100, 1.0, _EX_DELTA)
    b = f"{basic.epsilon:.3g}" if basic.available else "n/a"
    return (f"One release has ε<sub>step</sub> = {one:.3g}; 100 × ε<sub>step</sub> = {100 * one:.3g} is the naive "
            "guess, and the basic accountant "
            f"(which also splits δ over the 100 steps) certifies {b}. But 100 Gaussians of σ = {_EX_SIGMA:g} are "
            f"exactly one Gaussian of σ/√100 = {_EX_SIGMA / 10:g} ({cite('dong2022gaussian', 'Cor 3.3')}), so here ε "
            f"grows like √k, not k: the exact value comes from the Gaussian's profile "
            f"({cite('balle2018gaussian', 'Thm 8')}). Lesson 03's exercise (σ = 1, δ = 10⁻⁵) had the same answer: "
            "one Gaussian of σ = 1 is what these 100 runs add up to.")


class EpsilonVsCompositionsPanel(Panel):
    """ε against the number of compositions k (log–log), one line per accountant, PLD bracket shaded."""

    title = "ε against the number of compositions k"
    intro = ("How fast does the privacy budget run out? Basic composition grows like k. The others grow like √k "
             "while each step's expected privacy loss ρ is small (kρ < 4 ln(1/δ)), with very different constants; "
             "once the expected total loss kρ dominates, every accountant grows like k again "
             "(ε ≈ kρ + 2√(kρ ln(1/δ)), Bun & Steinke 2016, Prop. 1.3).")
    slow = True

    controls = {
        "mechanism": Choice("mechanism", _MECH_OPTIONS, "gaussian"),
        **NOISE_CONTROLS,
        "rate": RATE,
        "delta": DELTA,
        "max_k": LogSlider("largest k shown", 10_000, 10, 10 ** 5.0, step=1.0, fmt=",.0f", integer=True,
                           bench=[10, 100, 1000, 10_000]),
        "neighboring": NEIGHBOURS,
    }
    exercises = {"exercise": PredictReveal(
        f"A Gaussian mechanism with σ = {_EX_SIGMA:g} (sensitivity 1) is run 100 times on the same data. "
        f"What is the exact ε at δ = 10⁻⁵ of the whole composition?",
        _answer_100_gaussians, explain=_explain_100_gaussians, rel_tol=0.15, guess_label="ε after 100 runs:")}

    #: values of k on the figure's log grid
    N_POINTS = 11

    def render(self, v):
        """One step per group of accountants (:func:`_passes`): the quick ones first, then advanced, then optimal
        (each at most about a tenth of a second at the defaults); each partial figure keeps the missing
        accountants' legend entries, marked "computing…"."""
        mech, noise, q, delta, nb, max_k = v.mechanism, _noise(v), _sampling_rate(v), float(v.delta), v.neighboring, \
            v.max_k
        counts = C.count_grid(max_k, self.N_POINTS)
        passes = _passes(mech)
        for i, (pending, todo) in enumerate(passes):
            for chunk in [counts[j:j + 5] for j in range(0, len(counts), 5)] if i else [counts]:  # slow passes: pauses
                C.epsilon_vs_count(mech, noise, q, delta, nb, chunk, accountants=todo,  # fills the cache
                                   progress=lambda f, i=i: self.report_progress((i + f) / len(passes)))
                if i:
                    yield
            C.epsilon_vs_count(mech, noise, q, delta, nb, counts, accountants=todo)  # cached: the whole grid
            yield Step(i + 1, len(passes), lambda pending=pending: View(figures=[P.epsilon_vs_count_figure(
                mech, noise, q, delta, nb, max_count=max_k, current=None, n_points=self.N_POINTS, pending=pending)]),
                unit=_PASS_UNIT)


class CalibrationPanel(Panel):
    """Target ε → the noise each accountant needs (σ for a Gaussian, b for Laplace)."""

    title = "Calibration: how much noise does each accountant ask for?"
    intro = ("Fix the privacy target and the training schedule; each accountant returns the smallest noise it can "
             "certify. A tighter accountant buys accuracy for free: the same promise with less noise.")
    slow = True

    controls = {
        "target": Slider("target ε", 1.0, 0.1, 10.0, step=0.1, bench=[0.5, 1.0, 2.0, 8.0]),
        "mechanism": Choice("mechanism", [("Gaussian (σ)", "gaussian"), ("Laplace (b)", "laplace")], "gaussian"),
        "delta": DELTA,
        "k": LogSlider("compositions k", 100, 1, 10 ** 4.0, step=0.1, fmt=",.0f", integer=True,
                       bench=[1, 10, 100, 1000]),
        "rate": LogSlider("sampling rate q (1 = none)", 1.0, 10 ** -3.0, 1.0, step=0.1, bench=[1.0, 0.1]),
    }

    def render(self, v):
        """One step per group of accountants (:func:`_passes`): the quick ones first, then advanced, then optimal
        (each at most about a tenth of a second at the defaults); a partial view marks the missing bars and table
        rows "computing…"."""
        mech, target, delta, k, q = v.mechanism, float(v.target), float(v.delta), v.k, float(v.rate)
        passes = _passes(mech)
        n_all = len(P.ACCOUNTANT_ORDER)
        done = 0
        for i, (pending, todo) in enumerate(passes):
            for name in todo:  # fills the cache, accountant by accountant (moves the bar)
                # a pause after each of the search's accountant evaluations: the kernel answers the page meanwhile
                yield from C.calibrated_noise_steps(name, mech, target, delta, k, q)
                done += 1
                self.report_progress(done / n_all)
                yield  # and one between accountants
            yield Step(i + 1, len(passes), lambda pending=pending: self._view(mech, target, delta, k, q, pending),
                       unit=_PASS_UNIT)

    def _view(self, mech, target, delta, k, q, pending):
        fig = P.calibration_figure(mech, target, delta, k, q, pending=pending)
        sym = P.NOISE_SYMBOL[mech]
        vals = {n: C.calibrated_noise(n, mech, target, delta, k, q) for n in P.ACCOUNTANT_ORDER if n not in pending}
        ok = {n: x for n, (x, _) in vals.items() if x is not None}
        best = min(ok.values()) if ok else None
        rows = []
        for n in P.ACCOUNTANT_ORDER:
            info = P.ACCOUNTANT_INFO[n]
            if n in pending:
                rows.append(f"<tr><td>{info.label}</td><td colspan='3'><i>computing…</i></td></tr>")
                continue
            x, err = vals[n]
            if x is None:
                rows.append(f"<tr><td>{info.label}</td><td colspan='3'>n/a — {html.escape(err or '')}</td></tr>")
                continue
            rows.append(f"<tr><td style='color:{info.colour};font-weight:600'>{info.label}</td>"
                        f"<td style='text-align:right'>{x:.4g}</td><td style='text-align:right'>{x / best:.2f}×</td>"
                        f"<td style='text-align:right'>{(x / best) ** 2:.2f}×</td></tr>")
        readout = (f"<b>Smallest {sym} per accountant</b> for ε ≤ {target:g} at δ = {delta:.0e}. For a mean of n "
                   f"values the noise in the answer has standard deviation {sym}Δ/n: c× more noise is undone by c× "
                   "more data, so the column “× least” is how many times more people the same accuracy needs. The "
                   "variance column is the factor in the noise's mean squared error at the same n. (The sampling "
                   "error of a mean, ∝ 1/√n, does not depend on the noise.)"
                   "<table cellpadding='4' style='border-collapse:collapse;font-size:90%'><tr style='border-bottom:1px "
                   f"solid #999'><th>accountant</th><th>{sym}</th><th>× least (= × data)</th>"
                   "<th>variance × least</th></tr>" + "".join(rows) + "</table>")
        return View(figures=[fig], readout=readout)


_GP_SIGMA = 4.0
_GP_G = 10
_GP_DELTA = 1e-5


def _answer_group(_panel=None, _v=None) -> float:
    c = C.group_privacy_curves("gaussian", _GP_SIGMA, _GP_DELTA, _GP_G)
    return float(c["eps_exact"][-1])


def _explain_group(_panel, _v, truth: float) -> str:
    c = C.group_privacy_curves("gaussian", _GP_SIGMA, _GP_DELTA, _GP_G)
    return (f"One record: ε₁ = {c['eps1']:.3g}. Generic group privacy gives {_GP_G}·ε₁ = {c['eps_generic'][-1]:.3g} "
            f"but inflates δ to δ<sub>g</sub> = {min(c['delta_generic'][-1], 1.0):.2g}. The exact answer treats the "
            f"person's {_GP_G} records as one query that moves by {_GP_G}: a Gaussian with sensitivity {_GP_G}, i.e. "
            f"noise σ/{_GP_G} = {_GP_SIGMA / _GP_G:g} per unit ({cite('balle2018gaussian', 'Thm 8')}), at the "
            f"original δ = 10⁻⁵. Its ε is larger than {_GP_G}·ε₁ because its δ is thousands of times smaller; at the "
            f"generic δ<sub>g</sub> the exact ε is only {c['eps_exact_same_delta'][-1]:.3g}.")


_GROUP_OPTIONS = [
    ("The generic theorem is the better guarantee here: it proves a smaller ε.", False,
     "Tempting, because a smaller ε usually means more privacy. But an (ε, δ) pair is only better than another if "
     "its δ is not larger too, and the generic δ<sub>g</sub> is thousands of times larger than 10⁻⁵: with δ near "
     "0.07 a mechanism may publish a person's records outright about 7% of the time. Compare at the same δ (the "
     "table's middle row): there the exact ε is smaller."),
    ("The exact answer is the better guarantee: at the generic δ<sub>g</sub> its ε is smaller, and it also holds "
     "at the much smaller δ = 10⁻⁵.", True,
     "Right: the exact privacy profile lies below the generic one everywhere, so “better” is about both numbers. "
     "The two headline ε values are at different δ and cannot be compared by ε alone "
     f"({cite('ghazi2023few', 'Lemma 6')} for the generic bound; {cite('balle2018gaussian', 'Thm 8')} for the "
     "exact one)."),
    ("An exact computation can never give a larger ε than a bound, so one of the two numbers must be wrong.", False,
     "Tempting, because “exact” sounds like “smallest”. Both numbers are right: each is one point (ε, δ) of a "
     "profile, and they sit at different δ. The exact one is the tight ε for δ = 10⁻⁵, the generic one a valid ε "
     "for a much larger δ."),
]


class GroupPrivacyPanel(Panel):
    """Group privacy: generic (gε, geometric δ) against the exact answer for the same mechanism with sensitivity g."""

    title = "Group privacy: one person with g records"
    intro = ("DP here protects one record (the unit of privacy). A person who contributes g records is a group of "
             "g. Compare the generic group privacy theorem with what the same mechanism actually guarantees when "
             "the query moves by g.")
    #: a new σ, b or δ costs 2 × 20 exact ε(δ) root findings (group_privacy_curves, cached per setting): ~50–150 ms
    #: on a busy kernel (make bench: numerics p95 above 50 ms), so the sliders fire on release, with progress.
    slow = True

    controls = {
        "group": IntSlider("group size g (records of one person)", 4, 1, 20),
        "mechanism": Choice("mechanism", [("Gaussian", "gaussian"), ("Laplace", "laplace")], "gaussian"),
        # linear sliders: the exercise's σ = 4 must be a value the slider can take
        "sigma": Slider("Gaussian noise σ", 3.0, 0.5, 20.0, step=0.1, fmt=".1f", visible=_noise_of("gaussian")),
        "scale": Slider("Laplace scale b", 10.0, 0.5, 100.0, step=0.5, fmt=".1f", visible=_noise_of("laplace")),
        # Laplace is pure ε-DP: δ would change nothing
        "delta": LogSlider("δ", 1e-5, 1e-10, 1e-2, step=0.5, fmt=".0e", visible=_noise_of("gaussian")),
    }
    exercises = {
        "exercise": PredictReveal(
            f"A Gaussian mechanism with σ = {_GP_SIGMA:g} (sensitivity 1) protects each record. A person has "
            f"{_GP_G} records in the data. What ε does the person get at δ = 10⁻⁵ (exactly, not by the generic "
            "theorem)? Predict before you set σ and g on the sliders.",
            _answer_group, explain=_explain_group, rel_tol=0.15, guess_label="the person's ε:"),
        "concept": ChoiceReveal(
            "Sometimes the exact ε (at δ = 10⁻⁵) comes out <i>larger</i> than the generic g·ε₁ (at δ<sub>g</sub>). "
            "Which statement is right?", _GROUP_OPTIONS),
    }

    def render(self, v):
        mech, g, delta = v.mechanism, int(v.group), float(v.delta)
        noise = _noise(v)
        c = C.group_privacy_curves(mech, noise, delta, 20)
        self.report_progress(0.7)
        fig = P.group_privacy_figure(mech, noise, delta, g, 20)
        i = g - 1
        eg, dg, ee = c["eps_generic"][i], c["delta_generic"][i], c["eps_exact"][i]
        if mech == "gaussian":
            vacuous = dg >= 1
            none = "no guarantee (δ<sub>g</sub> ≥ 1)"
            gen = none if vacuous else f"{eg:.4g}"
            same = none if vacuous else f"{c['eps_exact_same_delta'][i]:.4g}"
            note = ""
            if not vacuous and ee > eg:
                note = (f" Here the exact ε at δ = {delta:.0e} is larger than g·ε₁: it keeps the small δ, while the "
                        f"generic bound pays with δ<sub>g</sub> = {dg:.2g}; compare the first two rows, at the same δ.")
            readout = (
                f"<b>Group of g = {g}</b> (σ = {noise:.3g}, one record: ε₁ = {c['eps1']:.4g} at δ = {delta:.0e})"
                "<table cellpadding='4' style='font-size:90%'><tr><th></th><th>ε</th><th>δ</th></tr>"
                f"<tr><td>generic group privacy ({cite('ghazi2023few', 'Lemma 6')})</td><td>{gen}</td>"
                f"<td>{min(dg, 1.0):.3g}</td></tr>"
                f"<tr><td>exact, sensitivity g, same δ<sub>g</sub></td><td>{same}</td><td>{min(dg, 1.0):.3g}</td></tr>"
                f"<tr><td>exact, sensitivity g ({cite('balle2018gaussian', 'Thm 8')})</td><td>{ee:.4g}</td>"
                f"<td>{delta:.0e}</td></tr>"
                "</table>The generic theorem knows only (ε₁, δ₁); the exact answer knows it is a Gaussian whose "
                "mean moves by g." + note + " User-level DP (lessons 11–13) bounds each person's contribution "
                "instead of paying for g."
            )
        else:
            readout = (f"<b>Group of g = {g}</b>: Laplace with b = {noise:.3g} is pure ε₁ = {c['eps1']:.4g}-DP; the "
                       f"group gets ε = g·ε₁ = {eg:.4g} both ways, δ = 0. For pure DP and Laplace, group privacy is "
                       "exact: the sensitivity-g Laplace has ε = g/b.")
        return View(figures=[fig], readout=readout)


#: The amplification exercise: an ε-DP mechanism on a Poisson sample of rate q.
_AMP_EPS, _AMP_Q = 5.0, 0.01


def _answer_amplification(_panel=None, _v=None) -> float:
    return amplify_poisson(_AMP_EPS, 0.0, _AMP_Q)[0]


def _explain_amplification(_panel, _v, truth: float) -> str:
    grow = _AMP_Q * math.expm1(_AMP_EPS)
    return (f"q·ε = {_AMP_Q * _AMP_EPS:g} is the small-ε guess, but here q(e<sup>ε</sup> − 1) = {grow:.3g} is not "
            f"small, so ε′ = ln(1 + {grow:.3g}) = {truth:.3g}: {truth / (_AMP_Q * _AMP_EPS):.3g} times q·ε, and only "
            f"{_AMP_EPS / truth:.3g} times less than ε = {_AMP_EPS:g}, not {1 / _AMP_Q:g} times "
            f"({cite('balle2018subsampling', 'Thm 8')}). Sampling buys a factor of about q only while ε is small; "
            "for large ε it subtracts about ln(1/q).")


class AmplificationPanel(Panel):
    """Amplification by subsampling: ε′ = ln(1 + q(e^ε − 1)) against q, with the q·ε line (Balle, Barthe & Gaboardi
    2018, Thm 8), the learner's (ε, q) marked and read out."""

    title = "Amplification by subsampling"
    intro = ("Run an (ε, δ)-DP mechanism on a Poisson sample of the data: every record is kept independently with "
             "probability q. Under add/remove neighbours the result is (ε′, qδ)-DP with ε′ = ln(1 + q(e<sup>ε</sup> − "
             f"1)) ({cite('balle2018subsampling', 'Thm 8')}). The dotted lines are q·ε: close for small ε, far off "
             "for large ε.")

    controls = {
        # linear in ε, so that the exercise's ε = 5 is a value the slider takes
        "epsilon": Slider("ε of one run (without sampling)", 1.0, 0.05, 10.0, step=0.05),
        "rate": LogSlider("sampling rate q", 0.01, 10 ** -4.0, 1.0, step=0.1),
    }
    exercises = {"exercise": PredictReveal(
        f"A mechanism is ε = {_AMP_EPS:g}-DP. It is run on a Poisson sample with q = {_AMP_Q:g} (1% of the "
        "records). What is its amplified ε′? Predict before you move the sliders.",
        _answer_amplification, explain=_explain_amplification, rel_tol=0.1, guess_label="ε′:")}

    def render(self, v):
        eps, q = float(v.epsilon), float(v.rate)
        fig = P.amplification_figure(eps, q)
        amplified = amplify_poisson(eps, 0.0, q)[0]
        rows = [(f"ε′ = ln(1 + q(e<sup>ε</sup> − 1)) ({cite('balle2018subsampling', 'Thm 8')})", f"{amplified:.4g}"),
                ("small-ε guess q·ε", f"{q * eps:.4g} (ε′ is {amplified / (q * eps):.3g}× that)"),
                ("how many times cheaper than without sampling, ε/ε′", f"{eps / amplified:.3g}× (1/q = {1 / q:.3g})"),
                ("δ′ = q·δ", f"{q:.3g}·δ")]
        readout = ("<table cellpadding='3' style='font-size:90%'>" + "".join(
            f"<tr><td>{a}</td><td><b>{b}</b></td></tr>" for a, b in rows) + "</table>"
            "Add/remove neighbours only: under replace-one the lab samples no Poisson subset (a fixed-size sample "
            f"without replacement is the replace-one analogue, {cite('balle2018subsampling', 'Thm 9')}).")
        return View(figures=[fig], readout=readout)


# ============================================================================================ the lessons' problems
#
# Every number below is a closed form (advanced composition, amplification, group privacy's δ_g, ρ of a Gaussian) or
# the exact composition of Gaussians (Dong, Roth & Su 2022, Cor 3.3) with the Gaussian's exact profile (Balle & Wang
# 2018, Thm 8); tests/panels/test_problem_sets_06_07.py recomputes each one independently (mpmath).

_BASIC = cite("dwork2014algorithmic", "Thm 3.16")
_ADVANCED = cite("dwork2010boosting", "Thm III.3")
_ADV_MEAN = cite("dwork2014algorithmic", "Lemma 3.18")
_OPTIMAL = cite("kairouz2015composition", "Thm 3.3")
_KOV_WORST = cite("kairouz2015composition", "Thm 2.1")
_AMPLIFY = cite("balle2018subsampling", "Thm 8")
_GROUP = cite("ghazi2023few", "Lemma 6")
_GDP = cite("dong2022gaussian", "Cor 3.3")
_BW = cite("balle2018gaussian", "Thm 8")
_ZCDP_GAUSS = cite("bun2016concentrated", "Prop 1.6")
_ZCDP_SUM = cite("bun2016concentrated", "Lemma 1.7")
_ZCDP_CONV = cite("bun2016concentrated", "Prop 1.3")

#: Problems 1 and 2 of lesson 06: k steps of ε_step with the advanced composition's δ_slack.
_ADV_K, _ADV_EPS, _ADV_SLACK, _ADV_FEW = 100, 0.1, 1e-5, 10


def _advanced_epsilon(k: int, eps_step: float, slack: float) -> float:
    """Advanced composition's ε for k steps of ε_step at δ_slack (Dwork, Rothblum & Vadhan 2010, Thm III.3):
    √(2k ln(1/δ_slack))·ε_step + k·ε_step(e^ε_step − 1)."""
    return math.sqrt(2 * k * math.log(1 / slack)) * eps_step + k * eps_step * math.expm1(eps_step)


#: Problem 4 of lesson 06: one ε-DP step on a Poisson sample of rate q.
_AMP_P_EPS, _AMP_P_Q = 1.0, 0.1
#: Problem 5 of lesson 06: generic group privacy of (ε₁, δ₁) for a group of g records.
_GP_P_EPS, _GP_P_DELTA, _GP_P_G = 0.1, 1e-6, 10


def _group_delta(eps1: float, delta1: float, g: int) -> float:
    """The generic group privacy's δ_g = δ₁(e^(g·ε₁) − 1)/(e^ε₁ − 1) (Ghazi et al. 2023, Lemma 6)."""
    return delta1 * math.expm1(g * eps1) / math.expm1(eps1)


def _sampling_barely_helps(_panel, v) -> bool:
    """Lesson 06, problem 6: a sampling rate q ≤ 0.1 at which the amplified ε′ is still more than half of ε."""
    eps, q = float(v.epsilon), float(v.rate)
    return q <= 0.1 * (1 + 1e-9) and amplify_poisson(eps, 0.0, q)[0] > eps / 2


PROBLEMS_06 = ProblemSet("Problems: composition theorems", {
    "advanced": NumericAnswer(
        f"A mechanism of k = {_ADV_K} adaptively chosen steps has ε<sub>step</sub> = {_ADV_EPS:g} per step "
        "(δ<sub>step</sub> = 0). What ε does advanced composition certify with δ<sub>slack</sub> = 10⁻⁵?",
        _advanced_epsilon(_ADV_K, _ADV_EPS, _ADV_SLACK), rel_tol=0.01, label="ε =",
        traps=[(_ADV_K * _ADV_EPS, "That is basic composition, k·ε<sub>step</sub>. Advanced composition is a "
                                   "different bound, one that lets the steps' losses partly cancel."),
               (math.sqrt(2 * _ADV_K * math.log(1 / _ADV_SLACK)) * _ADV_EPS,
                "That is the concentration term √(2k ln(1/δ<sub>slack</sub>))·ε<sub>step</sub> alone. The losses "
                "concentrate around their mean, and the mean is not 0: add k·ε<sub>step</sub>(e<sup>ε<sub>step"
                "</sub></sup> − 1)."),
               (math.sqrt(_ADV_K) * _ADV_EPS, "Tempting: “ε grows like √k” read as ε = √k·ε<sub>step</sub>. The "
                                              "√k comes with the factor √(2 ln(1/δ<sub>slack</sub>)) ≈ 4.8, and the "
                                              "mean term adds to it.")],
        solution=(f"ε = √(2·{_ADV_K}·ln(10⁵))·{_ADV_EPS:g} + {_ADV_K}·{_ADV_EPS:g}·(e<sup>{_ADV_EPS:g}</sup> − 1) = "
                  f"{math.sqrt(2 * _ADV_K * math.log(1 / _ADV_SLACK)) * _ADV_EPS:.4g} + "
                  f"{_ADV_K * _ADV_EPS * math.expm1(_ADV_EPS):.4g} = "
                  f"{_advanced_epsilon(_ADV_K, _ADV_EPS, _ADV_SLACK):.4g}, with δ = kδ<sub>step</sub> + "
                  f"δ<sub>slack</sub> = 10⁻⁵ ({_ADVANCED}). Basic composition gives k·ε<sub>step</sub> = "
                  f"{_ADV_K * _ADV_EPS:g} ({_BASIC}): advanced composition is "
                  f"{_ADV_K * _ADV_EPS / _advanced_epsilon(_ADV_K, _ADV_EPS, _ADV_SLACK):.2g} times smaller here."),
        notes=TeachingNotes(
            timing="3 min",
            wrong=("10: basic composition's k·ε<sub>step</sub>, the theorem not yet told apart from the basic one.",
                   "4.80: the mean term k·ε<sub>step</sub>(e<sup>ε<sub>step</sub></sup> − 1) forgotten.",
                   "1: “like √k” taken for √k·ε<sub>step</sub>, without the constant √(2 ln(1/δ<sub>slack</sub>))."),
            ask="Which of the two terms grows faster with k, and from which k on does the mean term dominate?")),
    "few_steps": ChoiceProblem(
        f"Now only k = {_ADV_FEW} steps of ε<sub>step</sub> = {_ADV_EPS:g} (δ<sub>step</sub> = 0), again with "
        "δ<sub>slack</sub> = 10⁻⁵ for advanced composition. Which statement is right?",
        [(f"Basic composition is better here: it gives ε = {_ADV_FEW * _ADV_EPS:g} at δ = 0, advanced "
          f"composition ε ≈ {_advanced_epsilon(_ADV_FEW, _ADV_EPS, _ADV_SLACK):.2f} at δ = 10⁻⁵.", True,
          f"Right: √(2·{_ADV_FEW}·ln(10⁵))·{_ADV_EPS:g} ≈ {math.sqrt(2 * _ADV_FEW * math.log(1e5)) * _ADV_EPS:.2f} "
          f"already exceeds k·ε<sub>step</sub> = {_ADV_FEW * _ADV_EPS:g}. The factor √(2 ln(1/δ<sub>slack</sub>)) ≈ "
          f"4.8 is paid before √k beats k, and the mean term k·ε<sub>step</sub>(e<sup>ε<sub>step</sub></sup> − 1) "
          f"adds to it: at ε<sub>step</sub> = {_ADV_EPS:g} advanced composition wins from k = 29 on "
          f"({_ADVANCED}; {_BASIC}). Both bounds are valid; use the smaller."),
         ("Advanced composition is always better, because √k grows more slowly than k.", False,
          "Tempting: the lesson says advanced composition grows like √k. But “grows more slowly” is about large k; "
          "the √k comes with the constant √(2 ln(1/δ<sub>slack</sub>)) ≈ 4.8, and for k = 10 that constant costs "
          "more than the √k saves."),
         ("They cannot be compared, because advanced composition has a larger δ.", False,
          "Tempting: two (ε, δ) pairs are only ranked at the same δ. But here they can be ranked: an (ε, 0)-DP "
          "mechanism is also (ε, 10⁻⁵)-DP, so basic composition gives the smaller ε at the same δ as well.")],
        notes=TeachingNotes(
            timing="3 min",
            wrong=("“Always better”: the asymptotic statement applied at small k.",
                   "“Cannot be compared”: the rule “compare at the same δ” applied without noticing that a "
                   "guarantee at δ = 0 holds at every larger δ."),
            ask="From which k on does advanced composition win, at ε<sub>step</sub> = 0.1 and δ<sub>slack</sub> = "
                "10⁻⁵? (From k = 29 on: √k·0.1·√(2 ln(10⁵)) + k·0.1·(e<sup>0.1</sup> − 1) &lt; k·0.1 needs "
                "√k > 5.36.)")),
    "slope": ChoiceProblem(
        "Gaussian steps with σ = 4 (sensitivity 1, so ρ = Δ²/(2σ²) = 1/32 per step), δ = 10⁻⁵. Going from k = 10⁴ "
        "to k = 10⁵ steps, ten times more, by about how much does the exact ε of the composition grow?",
        [("By about 8: close to the factor 10 of ε ∝ k.", True,
          f"Right: here kρ (312.5 and 3125) is far above 4 ln(1/δ) ≈ 46, so the mean kρ of the privacy loss "
          f"dominates ε ≈ kρ + 2√(kρ ln(1/δ)) ({_ZCDP_CONV}): the exact ε goes from about 418 to about 3461, a "
          f"factor 8.3 ({_GDP}; {_BW}). The √k regime holds only while kρ &lt; 4 ln(1/δ)."),
         ("By about √10 ≈ 3.2, since ε grows like √k for every accountant but basic.", False,
          "Tempting: that is the lesson's first regime. It holds while each step leaks little in total, "
          "kρ &lt; 4 ln(1/δ); with σ = 4 the turn is near k ≈ 1500, and beyond it the mean kρ, which grows like k, "
          "takes over."),
         ("Hardly at all: the exact ε levels off, because every step's noise averages out.", False,
          "Tempting, because averaging many noisy answers makes each estimate more accurate. Privacy goes the "
          "other way: every step is more evidence about a person, and the privacy loss's mean kρ grows without "
          "bound.")],
        notes=TeachingNotes(
            timing="3 min",
            wrong=("√10: the √k rule applied outside its regime.",
                   "“Levels off”: accuracy (averaging) confused with privacy loss."),
            ask="At which k does the turn from slope ½ to slope 1 happen for σ = 4, δ = 10⁻⁵? (kρ = 4 ln(1/δ): "
                "k ≈ 1500; the first panel of the lesson shows it.)")),
    "amplified": NumericAnswer(
        f"A step is ε = {_AMP_P_EPS:g}-DP (δ = 0). It is run on a Poisson sample of the data with q = {_AMP_P_Q:g} "
        "(each record kept independently with probability 0.1). What ε′ does amplification by subsampling give?",
        amplify_poisson(_AMP_P_EPS, 0.0, _AMP_P_Q)[0], rel_tol=0.02, label="ε′ =",
        traps=[(_AMP_P_Q * _AMP_P_EPS, "That is the small-ε guess q·ε. At ε = 1, e<sup>ε</sup> − 1 ≈ 1.72 is not "
                                       "close to ε, so the guess is off by more than half."),
               (_AMP_P_Q * math.expm1(_AMP_P_EPS), "That is q(e<sup>ε</sup> − 1), the number inside the "
                                                   "logarithm: ε′ = ln(1 + q(e<sup>ε</sup> − 1))."),
               (_AMP_P_EPS, "Tempting: in the worst case the record is in the sample, so nothing seems gained. But "
                            "the observer does not know whether it was sampled: the output mixes the two cases, and "
                            "that mixture is what amplifies.")],
        solution=(f"ε′ = ln(1 + q(e<sup>ε</sup> − 1)) = ln(1 + {_AMP_P_Q:g}·{math.expm1(_AMP_P_EPS):.4g}) = "
                  f"ln({1 + _AMP_P_Q * math.expm1(_AMP_P_EPS):.4g}) = "
                  f"{amplify_poisson(_AMP_P_EPS, 0.0, _AMP_P_Q)[0]:.4g} "
                  f"under add/remove neighbours, and δ′ = qδ = 0 ({_AMPLIFY}): the step is "
                  f"{_AMP_P_EPS / amplify_poisson(_AMP_P_EPS, 0.0, _AMP_P_Q)[0]:.3g} times cheaper, not 1/q = 10 "
                  "times."),
        notes=TeachingNotes(
            timing="2 min",
            wrong=("0.1: q·ε, the small-ε regime used at ε = 1.",
                   "0.172: the logarithm forgotten.",
                   "1: the record assumed sampled, the mixture over the sample ignored."),
            ask="Which neighbouring relation does this theorem need, and why? (Add/remove: the proof compares the "
                "sample with the record and the one without it.)")),
    "group": NumericAnswer(
        f"Each record is protected with (ε₁, δ₁) = ({_GP_P_EPS:g}, 10⁻⁶). A person contributes g = {_GP_P_G} "
        "records. By the generic group privacy theorem the person gets (g·ε₁, δ<sub>g</sub>). What is "
        "δ<sub>g</sub>, in units of 10⁻⁶?",
        _group_delta(_GP_P_EPS, _GP_P_DELTA, _GP_P_G) / 1e-6, rel_tol=0.01, label="δ in units of 10⁻⁶:",
        traps=[(_GP_P_G * _GP_P_DELTA / 1e-6, "That is g·δ₁, as in basic composition. In a group the g records "
                                              "change one after another, and each change multiplies what came "
                                              "before by e<sup>ε₁</sup> before adding δ₁: the δ's grow "
                                              "geometrically."),
               (1.0, "That is δ₁ itself: δ does not stay put for a group, only a pure (δ = 0) guarantee keeps it "
                     "at 0."),
               (math.exp(_GP_P_G * _GP_P_EPS),
                "That is e<sup>g·ε₁</sup>·δ₁: the sum δ₁(1 + e<sup>ε₁</sup> + … + e<sup>(g−1)ε₁</sup>) has g "
                "terms, not one.")],
        solution=(f"δ<sub>g</sub> = δ₁(e<sup>g·ε₁</sup> − 1)/(e<sup>ε₁</sup> − 1) = 10⁻⁶·(e − 1)/(e<sup>0.1</sup> "
                  f"− 1) = 10⁻⁶·{math.expm1(1.0):.4g}/{math.expm1(0.1):.4g} ≈ "
                  f"{_group_delta(_GP_P_EPS, _GP_P_DELTA, _GP_P_G) / 1e-6:.4g}·10⁻⁶, with g·ε₁ = 1 ({_GROUP}). "
                  "Walking from one data set to the other changes one record at a time: the i-th change multiplies by "
                  "e<sup>ε₁</sup> and adds δ₁, so δ<sub>g</sub> = δ₁(1 + e<sup>ε₁</sup> + … + e<sup>(g−1)ε₁"
                  "</sup>), a geometric sum."),
        notes=TeachingNotes(
            timing="3 min",
            wrong=("10: g·δ₁, group privacy confused with basic composition.",
                   "1: δ assumed not to grow.",
                   "2.72: e<sup>g·ε₁</sup>δ₁, one term of the geometric sum."),
            ask="At ε₁ = 1 instead, how large must g be before δ<sub>g</sub> passes 1 for δ₁ = 10⁻⁶? (The sum "
                "grows like e<sup>g·ε₁</sup>: g = 15.)")),
    "setting": FindSetting(
        "Set the panel to a sampling rate q of at most 0.1 at which sampling helps by less than a factor 2: the "
        "amplified ε′ is still more than half of ε.",
        _sampling_barely_helps, live=True,
        hint="For small ε, ε′ ≈ q·ε, far below ε/2. Sampling stops dividing ε once q·e<sup>ε</sup> is large: then "
             "ε′ ≈ ε − ln(1/q).",
        solution=("For example q = 0.1 and ε ≥ 4.4 (or q = 0.01 and ε ≥ 9.2). Write x = e<sup>ε/2</sup>: ε′ > ε/2 "
                  "means 1 + q(x² − 1) > x, that is (qx − (1 − q))(x − 1) > 0, so x > (1 − q)/q and ε > "
                  f"2 ln((1 − q)/q): 2 ln 9 ≈ 4.39 at q = 0.1 ({_AMPLIFY}). A large ε is cut by about ln(1/q), not "
                  "divided by 1/q."),
        notes=TeachingNotes(
            timing="4 min",
            wrong=("Lowering q further: a smaller q makes ε′ smaller, the wrong way.",
                   "Staying at small ε and looking for a q: for ε ≤ 2 ln 9 no q ≤ 0.1 does it."),
            ask="DP-SGD runs with small ε per step: in which regime is it, and what does that buy?")),
    "proof": ProofIdea(
        "Why are k adaptively chosen ε<sub>step</sub>-DP steps (δ<sub>step</sub> = 0) together k·ε<sub>step</sub>"
        "-DP? Write the key step of the proof, or pick it.",
        ("Let the outputs be o₁, …, o<sub>k</sub>. Then P[o₁, …, o<sub>k</sub> | x] = ∏<sub>i</sub> "
         "P[M<sub>i</sub>(x; o₁, …, o<sub>i−1</sub>) = o<sub>i</sub>]: each factor is the probability of one step, "
         "with the earlier outputs fixed, so the step chosen after seeing them is a fixed ε<sub>step</sub>-DP "
         "mechanism. Replacing x by a neighbour x′ changes each factor by at most e<sup>ε<sub>step</sub></sup>, so "
         "the product changes by at most e<sup>k·ε<sub>step</sub></sup>; summing (or integrating) over any set S "
         "of output sequences gives P[M(x) ∈ S] ≤ e<sup>k·ε<sub>step</sub></sup>·P[M(x′) ∈ S]. With δ > 0 each "
         "step may fail on an event of probability at most δ<sub>step</sub>, and a union bound adds the k "
         f"failures: (k·ε<sub>step</sub>, k·δ<sub>step</sub>) ({_BASIC})."),
        steps=[("the probability of the outputs is a product of the steps' conditional probabilities, each changed by "
                "at most a factor exp(ε of one step)", True,
                "Right: the chain rule writes the joint probability as a product over the steps, each given the "
                "earlier outputs; each factor is one ε<sub>step</sub>-DP step, and k factors multiply to "
                "e<sup>k·ε<sub>step</sub></sup>. Conditioning is what makes adaptivity harmless."),
               ("the steps are independent, so their probabilities multiply", False,
                "Tempting, and it gives the right product for non-adaptive steps. But the steps may be chosen "
                "after seeing earlier outputs, so they are not independent; the proof needs the chain rule, "
                "with each factor conditional on the past."),
               ("a union bound adds the k steps' ε", False,
                "Tempting, because a union bound is how basic composition adds the δ's. The ε's do not add by a "
                "union bound: they are exponents, and a product of k factors e<sup>ε<sub>step</sub></sup> adds "
                "them."),
               ("the losses concentrate around their mean (Azuma's inequality)", False,
                "That is the key step of advanced composition, and it gives √k growth with a δ<sub>slack</sub>. "
                "Basic composition needs no probability bound on the loss: it adds worst cases.")],
        notes=TeachingNotes(
            timing="6 min (pairs, then one pair at the board)",
            wrong=("“The steps are independent”: the adaptive case missed.",
                   "“A union bound”: the ε's and the δ's of the proof mixed up.",
                   "Azuma: advanced composition's proof."),
            ask="Where does the proof use that each step is ε<sub>step</sub>-DP for every fixed earlier output? "
                "What breaks if a step is only ε<sub>step</sub>-DP on average over the past?")),
}, intro="Each problem is checked as soon as you answer; a wrong answer can be tried again, and the solution opens "
         "after your first attempt. Problem 6 is about this panel's settings.")


class CompositionProblemsPanel(AmplificationPanel):
    """Lesson 06's problem set, with the amplification-by-subsampling figure for its find-a-setting task."""

    title = "Problems: composition theorems"
    exercises = {"problems": PROBLEMS_06}


#: Problem 1 of lesson 07: one Gaussian of σ₁ (sensitivity 1) is exactly (ε, δ) = (1, 10⁻⁵)-DP; k steps.
_CAL_K, _CAL_EPS, _CAL_DELTA = 100, 1.0, 1e-5
#: Problem 2 of lesson 07: k Gaussian steps of σ (sensitivity 1) in zCDP.
_RHO_K, _RHO_SIGMA = 100, 4.0
#: Problem 3 of lesson 07: a looser accountant's σ against the tightest one's.
_DATA_RATIO = 1.5


def _sigma_one() -> float:
    """σ₁ of one Gaussian step (Δ = 1) that is exactly (1, 10⁻⁵)-DP (Balle & Wang 2018, Thm 8)."""
    return C.exact_gaussian_sigma(_CAL_EPS, _CAL_DELTA, 1)


def _zcdp_far_above_pld(_panel, v) -> bool:
    """Lesson 07, problem 6: Gaussian steps, k ≥ 100, zCDP's ε at least 10 times the PLD's (pessimistic) ε, and
    the PLD's ε at most 1 (read from the lab's cached accountants)."""
    if v.mechanism != "gaussian" or v.k < 100:
        return False
    setting = ("gaussian", _noise(v), v.k, _sampling_rate(v), float(v.delta), v.neighboring)
    z, p = C.epsilon_result("zcdp", *setting), C.epsilon_result("pld", *setting)
    return z.available and p.available and p.epsilon <= 1.0 and z.epsilon >= 10 * p.epsilon


PROBLEMS_07 = ProblemSet("Problems: accounting in practice", {
    "calibrate": NumericAnswer(
        f"One Gaussian release with σ₁ = {_sigma_one():.4g} (sensitivity 1) is exactly (ε, δ) = (1, 10⁻⁵)-DP. You "
        f"will run k = {_CAL_K} such Gaussian steps and want the whole run exactly (1, 10⁻⁵)-DP. Which σ must "
        "each step have?",
        lambda _p, _v: math.sqrt(_CAL_K) * _sigma_one(), rel_tol=0.01, label="σ per step =",
        traps=[(_CAL_K * _sigma_one(), "That is k·σ₁: the noise scaled as if ε added up over the steps, as basic "
                                       "composition would have it. Gaussians compose exactly, like one Gaussian "
                                       "of σ/√k."),
               (_sigma_one(), "That is σ₁ itself: with k steps of σ₁ the run is one Gaussian of σ₁/√k, ten times "
                              "less noise than the target needs."),
               (_sigma_one() / math.sqrt(_CAL_K), "That is σ₁/√k, the noise the k steps of σ₁ add up to: the "
                                                  "right rule, used the wrong way round.")],
        solution=lambda _p, _v: (
            f"k Gaussians of σ are exactly one Gaussian of σ/√k ({_GDP}), so the run is exactly (1, 10⁻⁵)-DP when "
            f"σ/√k = σ₁, that is σ = √k·σ₁ = 10 × {_sigma_one():.4g} = {math.sqrt(_CAL_K) * _sigma_one():.4g} "
            f"(σ₁ from the Gaussian's exact profile, {_BW}). The calibration panel above marks this exact σ at its "
            "defaults (target ε = 1, δ = 10⁻⁵, k = 100)."),
        notes=TeachingNotes(
            timing="3 min",
            wrong=("373: k·σ₁, ε taken to add up (basic composition's calibration).",
                   "3.73: σ₁, the composition forgotten.",
                   "0.373: σ₁/√k, the composition rule applied backwards."),
            ask="How many times more noise would basic composition ask for? And how many times more data would it "
                "need for the same accuracy of a mean?")),
    "rho": NumericAnswer(
        f"A zCDP accountant composes k = {_RHO_K} Gaussian steps, each with σ = {_RHO_SIGMA:g} and sensitivity "
        "Δ = 1. What is the ρ of the whole run?",
        _RHO_K / (2 * _RHO_SIGMA ** 2), rel_tol=0.01, label="ρ =",
        traps=[(1 / (2 * _RHO_SIGMA ** 2), "That is one step's ρ = Δ²/(2σ²). zCDP composes by adding ρ over the "
                                           "steps."),
               (_RHO_K / _RHO_SIGMA ** 2, "That is k·Δ²/σ², without the ½ of ρ = Δ²/(2σ²)."),
               (_RHO_K / (2 * _RHO_SIGMA), "That is k·Δ/(2σ): σ must be squared, ρ = Δ²/(2σ²).")],
        solution=(f"One Gaussian step is ρ-zCDP with ρ = Δ²/(2σ²) = 1/32 ({_ZCDP_GAUSS}), and ρ adds up over the "
                  f"steps ({_ZCDP_SUM}): {_RHO_K}/32 = {_RHO_K / (2 * _RHO_SIGMA ** 2):g}. Converted once at "
                  f"δ = 10⁻⁵, ρ + 2√(ρ ln(1/δ)) = "
                  f"{_RHO_K / 32 + 2 * math.sqrt(_RHO_K / 32 * math.log(1e5)):.4g} ({_ZCDP_CONV}); the exact ε of "
                  "this run is smaller: the conversion is where zCDP loses."),
        notes=TeachingNotes(
            timing="2 min",
            wrong=("0.03125: one step's ρ, the composition forgotten.",
                   "6.25: the ½ of ρ = Δ²/(2σ²) dropped.",
                   "12.5: σ not squared."),
            ask="Which accountant of the lab gives this run's ε from the ρ, and where does it lose against the "
                "exact value?")),
    "more_data": NumericAnswer(
        f"For a privacy target, the basic accountant asks for a Gaussian σ {_DATA_RATIO:g} times the PLD's. You "
        "release the mean of n values (clipped, sensitivity Δ of the sum) and want the noise in the released mean "
        "as small with the basic accountant as with PLD. How many times more people must you collect?",
        _DATA_RATIO, rel_tol=0.01, label="times more people:",
        traps=[(_DATA_RATIO ** 2, "That is the ratio of the variances, (1.5)² = 2.25: the factor in the noise's "
                                  "mean squared error at the same n. The noise's standard deviation σΔ/n shrinks "
                                  "like 1/n, so a 1.5 times larger σ is undone by 1.5 times more people."),
               (math.sqrt(_DATA_RATIO), "That would hold if the noise shrank like 1/√n, as the sampling error of a "
                                        "mean does. The privacy noise in the mean is σΔ/n: it shrinks like 1/n.")],
        solution=("The noise in the released mean has standard deviation σΔ/n. With σ 1.5 times larger, the same "
                  "σΔ/n needs n 1.5 times larger: 1.5 times more people (the calibration panel's column “× least "
                  "(= × data)”). The noise's variance, ∝ σ², is 2.25 times larger at the same n."),
        notes=TeachingNotes(
            timing="2 min",
            wrong=("2.25: the variance ratio given for the data ratio.",
                   "1.22: the 1/√n of the sampling error used for the privacy noise."),
            ask="In the calibration panel at k = 100, how many times more data does the basic accountant cost "
                "against PLD?")),
    "kov_exact": ChoiceProblem(
        "The optimal (KOV) accountant knows each step only by its (ε<sub>step</sub>, δ<sub>step</sub>). For which "
        "steps is its ε exactly the true ε of the composition?",
        [("k randomized responses", True,
          f"Right: every (ε<sub>step</sub>, δ<sub>step</sub>)-DP step is, on a pair of neighbours, a post-processing "
          f"of one randomized response ({_KOV_WORST}), so k randomized responses are the worst case the theorem "
          f"computes ({_OPTIMAL}): for them its ε is exact. In the lab, PLD lands on the same number."),
         ("k Gaussian steps", False,
          f"Tempting, because k Gaussians compose exactly, to one Gaussian of σ/√k ({_GDP}). But that exactness "
          "uses the Gaussian's whole profile; KOV sees one (ε<sub>step</sub>, δ<sub>step</sub>) pair of it and must "
          "cover every mechanism with that pair. In the lab at σ = 4, k = 100 it certifies about 104 where the "
          "exact ε is about 13."),
         ("k Laplace steps", False,
          "Tempting: Laplace is pure ε-DP like randomized response. But its privacy loss takes every value in "
          "[−ε<sub>step</sub>, ε<sub>step</sub>], not only ±ε<sub>step</sub>: it is not the worst case, and the "
          "lab's PLD certifies less than KOV for it."),
         ("any steps: “optimal” means it is always exact", False,
          "Tempting, from the name. KOV is optimal among statements that use only (ε<sub>step</sub>, "
          "δ<sub>step</sub>): no better bound holds for every mechanism with that pair. A particular mechanism can "
          "be much better than the worst one.")],
        notes=TeachingNotes(
            timing="3 min",
            wrong=("Gaussian: exact composition (Dong, Roth & Su) confused with the optimal theorem's exactness.",
                   "Laplace: pure DP taken for the worst case of pure DP.",
                   "“Always exact”: optimal read as exact for every mechanism."),
            ask="In the lab, switch to randomized response and then to Laplace at the same k: which bars move "
                "relative to PLD?")),
    "two_numbers": ChoiceProblem(
        "Two libraries report ε = 1.2 and ε = 8 for the same training run, at the same δ, neighbouring relation "
        "and sampling scheme. Both accountants are sound. What follows?",
        [("The run is (1.2, δ)-DP: both are valid upper bounds, and the smaller one is the better guarantee.", True,
          "Right: each accountant proves an upper bound on the run's true ε at that δ; a looser one never "
          "certifies a false guarantee, it proves less. So the run is (1.2, δ)-DP, and its true ε may be smaller "
          "still. Report the accountant with the number."),
         ("One of the libraries must have a bug.", False,
          "Tempting: one computation, two answers. But an accountant's ε is what its mathematics can prove, and "
          "the six accountants of the lab differ on the same setting by large factors without any bug."),
         ("The run is only (8, δ)-DP: a guarantee must hold in the worst case, so take the larger number.", False,
          "Tempting: DP is a worst-case promise. But both numbers are already worst cases over all neighbours; "
          "the smaller is a proof too. Taking the larger is safe but throws away what the tighter accountant "
          "proved."),
         ("The true ε is about the average of the two.", False,
          "Tempting when two estimates disagree. These are not estimates with errors: both are upper bounds, and "
          "an average of upper bounds is no bound at all.")],
        notes=TeachingNotes(
            timing="2 min",
            wrong=("A bug: the accountant taken for part of the mechanism rather than of its proof.",
                   "The larger: worst case over neighbours confused with worst case over proofs.",
                   "The average: bounds treated as noisy estimates."),
            ask="What must the report of a DP training run say besides ε, for a reader to compare it with "
                "another?")),
    "setting": FindSetting(
        "Set the lab to Gaussian steps with k ≥ 100 where zCDP's ε is at least 10 times the PLD's (its pessimistic "
        "end), while the PLD's ε is at most 1.",
        _zcdp_far_above_pld, live=True,
        hint="Which of the lab's accountants can express amplification by subsampling, and which charges every "
             "step in full? Try the sampling rate q.",
        solution=(f"For example the defaults with q = 0.01: σ = 4, k = 100, δ = 10⁻⁵ give PLD ε ≈ 0.08 against "
                  "zCDP ε ≈ 14. zCDP cannot express amplification by subsampling and charges each subsampled step "
                  f"as a full Gaussian step (ρ = Δ²/(2σ²) per step, {_ZCDP_GAUSS}), while PLD composes the "
                  f"subsampled privacy loss itself ({cite('koskela2020fft')}; {cite('doroshenko2022connect')}). "
                  "Under replace-one neighbours the lab samples nothing, and the gap closes."),
        notes=TeachingNotes(
            timing="4 min",
            wrong=("Raising σ or k without touching q: without subsampling zCDP stays within about 10 % of PLD.",
                   "Switching to replace-one: the lab's q then no longer applies."),
            ask="Which accountant would you use to report a DP-SGD run, and why not zCDP?")),
    "proof": ProofIdea(
        "Why do k Gaussian steps of noise σ (sensitivity Δ) compose to exactly one Gaussian of noise σ/√k, even "
        "when each step is chosen after the earlier outputs? Write the key step, or pick it.",
        ("On a pair of neighbours whose answers differ by the full Δ, the privacy loss of one Gaussian step is "
         "itself Gaussian: with ρ = Δ²/(2σ²) it has law N(ρ, 2ρ), whatever the earlier outputs were (they choose "
         "the next query, not its noise; a query that moves by less than Δ only helps). The privacy loss of the "
         "k steps is the sum of the steps' losses, and a sum of k such terms, each "
         "N(ρ, 2ρ) given the past, is N(kρ, 2kρ). That is the privacy loss of one Gaussian step with "
         "Δ²/(2σ′²) = kρ, that is σ′ = σ/√k. The privacy profile depends only on the law of the privacy loss, so "
         f"the two have the same profile ({_GDP}); the profile of that one Gaussian is known in closed form "
         f"({_BW}). In the notation of Gaussian DP: μ = Δ/σ per step, and the μ's add in squares."),
        steps=[("each step's privacy loss is Gaussian, N(ρ, 2ρ), and their sum is N(kρ, 2kρ): one Gaussian's loss",
                True,
                "Right: a sum of Gaussian losses is Gaussian with the means and the variances added, and N(kρ, 2kρ) "
                "is the privacy loss of one Gaussian of σ/√k. The law of the loss fixes the whole privacy profile."),
               ("averaging k noisy answers divides their noise by √k", False,
                "Tempting: it gives the same σ/√k. But that is about the accuracy of an average of answers to one "
                "query; the composition theorem holds for k different, adaptively chosen queries, and it is about "
                "the privacy loss, not about an estimate."),
               ("each step is (ε, δ)-DP, and the optimal composition theorem adds them up", False,
                "Tempting: optimal composition is the best bound from (ε<sub>step</sub>, δ<sub>step</sub>). But it "
                "is loose for a Gaussian, whose whole profile is better than any one pair; the exact answer needs "
                "the law of the Gaussian's loss."),
               ("ρ adds up in zCDP, and zCDP converts to (ε, δ) exactly", False,
                "The first half is right, ρ adds up; the second is not: zCDP's conversions to (ε, δ) are upper "
                "bounds. At the lab's defaults (σ = 4, k = 100, δ = 10⁻⁵) ρ + 2√(ρ ln(1/δ)) gives about 15.1 and "
                "the tighter conversion about 14.1, against the exact 13.2. Exactness comes from the law of the "
                "loss, not from ρ alone.")],
        notes=TeachingNotes(
            timing="6 min (pairs, then one pair at the board)",
            wrong=("Averaging noise: accuracy of one query confused with privacy of k queries.",
                   "zCDP taken for exact: the conversion's loss missed."),
            ask="Where does the proof use that each step's loss has the same law whatever the past? What changes "
                "for a subsampled Gaussian, whose loss is not Gaussian?")),
}, intro="Each problem is checked as soon as you answer; a wrong answer can be tried again, and the solution opens "
         "after your first attempt. Problem 6 is about this lab's settings.")


class AccountingProblemsPanel(CompositionLabPanel):
    """Lesson 07's problem set, with the composition lab (every accountant's ε) for its find-a-setting task."""

    title = "Problems: accounting in practice"
    exercises = {"problems": PROBLEMS_07}
