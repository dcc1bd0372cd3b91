"""Panels of lessons 06 "Composition theorems" and 07 "Accounting in practice": all accountants side by side, ε against k, calibration, group privacy.

* :class:`CompositionLabPanel` — k, mechanism, noise, sampling rate, δ, neighbouring relation → ε from every
  accountant (bars, PLD error bar), the privacy profile δ(ε) of the composition, and the "why accountants disagree"
  table (ratio to the tightest, kind of bound, reason, source);
* :class:`EpsilonVsCompositionsPanel` — ε against the number of compositions k, one line per accountant, with a
  predict-then-reveal exercise on 100 Gaussians;
* :class:`CalibrationPanel` — target ε → the noise σ (or Laplace b) each accountant needs;
* :class:`GroupPrivacyPanel` — generic group privacy against the exact answer for a person with g records, with a
  predict-then-reveal and a misconception exercise;
* :class:`AmplificationPanel` — the amplification-by-subsampling theorem ε′ = ln(1 + q(e^ε − 1)) drawn against the
  sampling rate q, with its small-ε line q·ε and a predict-then-reveal exercise.
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
from dpviz.panels.format import fmt
from dpviz.plots import composition as P
from dpviz.references import cite

__all__ = ["CompositionLabPanel", "EpsilonVsCompositionsPanel", "CalibrationPanel", "GroupPrivacyPanel",
           "AmplificationPanel", "disagreement_table"]

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
