"""Panels of lesson 15 "Privacy per attribute" (Ghazi, Kumar, Manurangsi & Steinke 2023).

* :class:`RecordEpsilonPanel` — ε0 per attribute → whole-record ε (Proposition 8), ρ growing with d²;
* :class:`InterpretationPanel` — what ε0 means for k targeted attributes (Propositions 26–27, bit recovery);
* :class:`CensusPanel` — release-by-release accounting of the 2020 Census kind: pick the attributes that change;
* :class:`CanonicalHistogramPanel` — why the canonical noisy histogram is "not nice";
* :class:`HeavyHitterPanel` — the PrivHeavyHitter tree (Algorithm 2), found vs true;
* :class:`AttributeUsersNeededPanel` — users needed against d, partial vs standard DP (Theorems 15–16);
* :class:`MarginalsPanel` — projection mechanism and partial MWEM: error vs d, MWEM's ℓ trade-off;
* :class:`MisconceptionPanel` — "a smaller ε for the attribute I care about protects the record better?"
  (opendp/dpcreator#370), predict-then-reveal.
"""

from __future__ import annotations

import html
import math

from dpviz import partial as PD
from dpviz.interpret import gaussian_reading
from dpviz.panels import (
    Checkbox,
    Choice,
    ChoiceReveal,
    IntSlider,
    LogSlider,
    Panel,
    PredictReveal,
    Slider,
    Toggle,
    View,
)
from dpviz.panels.format import sci
from dpviz.plots import partial as P

__all__ = [
    "RecordEpsilonPanel",
    "InterpretationPanel",
    "CensusPanel",
    "CanonicalHistogramPanel",
    "HeavyHitterPanel",
    "AttributeUsersNeededPanel",
    "MarginalsPanel",
    "MisconceptionPanel",
]

#: Readable names of the Census example's attributes (the ledger's keys are short identifiers).
_CENSUS_LABELS = {
    "geography": ("geography", "geography (where the person lives)"),
    "hhgq": ("HHGQ", "household or group-quarters type (HHGQ)"),
    "voting_age": ("voting age", "voting age (18 or over)"),
    "ethnicity": ("ethnicity", "ethnicity (Hispanic or not)"),
    "race": ("race", "race (CENRACE)"),
    "occupancy": ("occupancy", "occupancy status of the housing unit"),
}


def _census_label(attr: str, long: bool = False) -> str:
    short, full = _CENSUS_LABELS.get(attr, (attr, attr))
    return full if long else short


_P20 = ("A small ε<sub>attr</sub> protects each attribute, not membership: whether you are in the data at all is "
        "protected only "
        "by the whole-record ε, and information copied across many attributes (e.g. a location trace) is not "
        "protected by ε<sub>attr</sub> (Ghazi, Kumar, Manurangsi & Steinke 2023, §7).")


class RecordEpsilonPanel(Panel):
    """ε0 per attribute → whole-record ε against d (Proposition 8 of Ghazi, Kumar, Manurangsi & Steinke 2023)."""

    title = "From ε per attribute to the whole record"
    intro = ("A mechanism that is ε<sub>attr</sub>-DP for every single attribute (the unit of privacy is one "
             "attribute of one person) is (d·ε<sub>attr</sub>)-DP for the whole record, where the unit is the person "
             "(Ghazi, Kumar, Manurangsi & Steinke 2023, Prop 8). Move ε<sub>attr</sub>, d, the number g of attributes "
             "an adversary targets, "
             "and δ.")

    # the g slider reaches only what the panel accepts: g ≤ d
    controls = {
        "eps0": Slider("ε<sub>attr</sub> per attribute", 0.1, 0.01, 2.0, step=0.01),
        "d": IntSlider("attributes d", 20, 1, 100),
        "k": IntSlider("attributes targeted g", 2, 0, max=lambda v: v.d),
        "delta": LogSlider("δ", 1e-6, 1e-10, 1e-2, step=0.5, fmt=".0e"),
        "mechanisms": Toggle("mechanism-specific", [("show", True), ("hide", False)], True),
    }
    exercises = {"misconception": ChoiceReveal(
        "A release consists of d statistics, each computed from one column (attribute) of every record, each "
        "with its own ε<sub>j</sub>. Which rule gives the cost for one whole record?",
        [("Parallel composition: the releases read disjoint columns, so a record costs max<sub>j</sub> "
          "ε<sub>j</sub>.", False,
          "Tempting, because the columns really are disjoint. But parallel composition needs the mechanisms "
          "to read disjoint <i>records</i> (people): changing one person then touches one mechanism only. Here "
          "changing one whole record changes its value in every column, so all d releases see it. max<sub>j</sub> "
          "ε<sub>j</sub> is the <i>per-attribute</i> guarantee (Ghazi, Kumar, Manurangsi & Steinke 2023, Lemma "
          "10), not the per-record one."),
         ("Sequential composition: every release reads part of the record, so a record costs Σ<sub>j</sub> "
          "ε<sub>j</sub> (pure DP), ρ = ½Σ<sub>j</sub> ε<sub>j</sub>² in zCDP.", True,
          "Right: one person's record is an input of all d releases, so their costs add — d·ε<sub>attr</sub> "
          "in pure DP and ½dε<sub>attr</sub>² in zCDP (ε = √d·ε<sub>attr</sub>, the dash-dotted curve) when "
          "every ε<sub>j</sub> = ε<sub>attr</sub>."),
         ("Group privacy: a record is a group of d attributes, so it costs d·max<sub>j</sub> ε<sub>j</sub>.",
          False,
          "Group privacy is the right tool for a <i>generic</i> ε<sub>attr</sub>-per-attribute mechanism "
          "(Prop 8 of Ghazi, Kumar, Manurangsi & Steinke 2023: d·ε<sub>attr</sub>), and it is an upper bound "
          "here too — but these releases are "
          "independent per column, so sequential composition gives the exact sum Σ<sub>j</sub> ε<sub>j</sub>, "
          "smaller than d·max<sub>j</sub> ε<sub>j</sub> when the ε<sub>j</sub> differ (and in zCDP √d instead "
          "of d).")])}

    def render(self, v):
        eps0, d, k, delta = float(v.eps0), int(v.d), int(v.k), float(v.delta)
        if k > d:
            raise ValueError(f"g = {k} targeted attributes is more than d = {d} attributes: lower g or raise d.")
        f1 = P.record_epsilon_figure(eps0, d, k, delta, show_mechanisms=bool(v.mechanisms))
        f2 = P.rho_growth_figure(eps0, d)
        rho = PD.whole_record_rho(eps0, d)
        e_cks = float(PD.zcdp_epsilon_curve(rho, delta, "cks"))
        e_simple = float(PD.zcdp_epsilon_curve(rho, delta, "simple"))
        rk = PD.targeted_rho(eps0, k)
        pure = PD.whole_record_pure_epsilon(eps0, d)
        rho_par = PD.parallel_composition([eps0] * d, "zcdp").record
        readout = (
            f"<b>Whole record</b> (Ghazi, Kumar, Manurangsi & Steinke 2023, Prop 8): pure ε = d·ε<sub>attr</sub> = "
            f"<b>{pure:.4g}</b>; "
            f"zCDP ρ = ½(dε<sub>attr</sub>)² = <b>{rho:.4g}</b> → (ε, δ = {sci(delta)}): <b>{e_cks:.4g}</b> "
            f"(Canonne, Kamath & Steinke 2020, Cor 13) or {e_simple:.4g} (ρ + 2√(ρ ln 1/δ)).<br>"
            f"<b>g = {k} attributes</b>: pure g·ε<sub>attr</sub> = {PD.targeted_pure_epsilon(eps0, k):.4g}; "
            f"ρ = ½(gε<sub>attr</sub>)² = {rk:.4g}.<br>"
            f"<b>Independent per-column releases</b>: each column's release costs ε<sub>attr</sub> per attribute "
            f"(Lemma 10), and a whole record is read by all d of them — sequential composition: "
            f"ρ = ½dε<sub>attr</sub>² = {rho_par:.4g}, i.e. ε = √d·ε<sub>attr</sub> = "
            f"{PD.eps_from_rho(rho_par):.4g}.<br><small>{_P20}</small>")
        hint = None
        if pure > 10:
            hint = ("The whole-record ε is above 10: the per-attribute ε<sub>attr</sub> is the meaningful number "
                    "here, and "
                    "the record-level guarantee is weak (an adversary can guess one secret bit of the whole record "
                    f"with probability up to {PD.bit_recovery_probability(pure):.4f}).")
        return View(figures=[f1, f2], readout=readout, hint=hint)


class InterpretationPanel(Panel):
    """Posterior, bit-recovery and mutual-information bounds against the number of targeted attributes."""

    title = "What ε per attribute means to an adversary"
    intro = ("Bounds on what an adversary who cares about g attributes can learn (Ghazi, Kumar, Manurangsi & Steinke "
             "2023, Props 26–27 and §7; the "
             "bit-recovery bound assumes a uniform prior on the bit, Prop 26 a product prior).")

    controls = {
        "eps0": Slider("ε<sub>attr</sub> per attribute", 0.05, 0.01, 1.0, step=0.01),
        "d": IntSlider("attributes d", 20, 1, 60),
    }

    def render(self, v):
        eps0, d = float(v.eps0), int(v.d)
        fig = P.interpretation_figure(eps0, d)
        readout = (f"One attribute: posterior shift ≤ e<sup>2ε<sub>attr</sub></sup> − 1 = "
                   f"{PD.posterior_tv_bound(eps0, 1):.4g}; "
                   f"bit recovery ≤ {PD.bit_recovery_probability(eps0, 1):.4f}. Mutual information (Prop 27): "
                   f"all attributes independent ≤ {PD.mutual_information_bound(eps0, [1] * d):.4g} nats, one block ≤ "
                   f"{PD.mutual_information_bound(eps0, [d]):.4g} nats (= the whole-record zCDP bound).")
        return View(figures=[fig], readout=readout)


class CensusPanel(Panel):
    """Release-by-release accounting of the Census kind (Section 7 of Ghazi, Kumar, Manurangsi & Steinke 2023)."""

    title = "Census playground: which releases see the change?"
    intro = ("Each release reads some attributes and has its own ρ. Tick the attributes of one person that change: "
             "only releases reading a ticked attribute count (Ghazi, Kumar, Manurangsi & Steinke 2023, §7).")

    controls = {
        "delta": LogSlider("δ", 1e-6, 1e-10, 1e-2, step=0.5, fmt=".0e"),
        **{f"attr_{a}": Checkbox(f"{_census_label(a, long=True)} changes", a in ("race", "ethnicity"), indent=False)
           for a in PD.census_2020_example().attributes},
    }

    def render(self, v):
        led = PD.census_2020_example()
        changed = {a for a in led.attributes if v[f"attr_{a}"]}
        delta = float(v.delta)
        f1 = P.census_figure(led, changed)
        f2 = P.census_compare_figure(led, changed, delta)
        rows = []
        touched = {r.name for r in led.touching(changed)} if changed else set()
        head = "".join(f"<th style='padding:0 6px'>{html.escape(_census_label(a))}</th>" for a in led.attributes)
        for r in led.releases:
            cells = "".join(f"<td style='text-align:center'>{'●' if a in r.attributes else ''}</td>"
                            for a in led.attributes)
            style = " style='background:#fff1e0'" if r.name in touched else ""
            rows.append(f"<tr{style}><td>{html.escape(r.name)}</td>{cells}"
                        f"<td style='text-align:right'>{r.rho:g}</td></tr>")
        table = (f"<table><tr><th style='text-align:left'>release</th>{head}<th>ρ</th></tr>{''.join(rows)}</table>")
        rho_s = led.change_rho(changed) if changed else 0.0
        eps_s = led.change_approx_dp(changed, delta) if changed else 0.0
        eps_all = led.change_approx_dp(led.attributes, delta)
        names = ", ".join(_census_label(a) for a in led.attributes if a in changed) or "nothing"
        rho_all = led.whole_record_rho()
        mu_s, mu_all = gaussian_reading(rho_s)["mu"], gaussian_reading(rho_all)["mu"]
        readout = (f"{table}<p>Changing <b>{html.escape(names)}</b>: ρ = {rho_s:.3g} → "
                   f"(<b>{eps_s:.3f}</b>, {sci(delta)})-DP, μ = √(2ρ) = {mu_s:.3g}; whole record "
                   f"ρ = {rho_all:.3g} → (<b>{eps_all:.3f}</b>, {sci(delta)})-DP, μ = {mu_all:.3g} "
                   "(Canonne, Kamath & Steinke 2020, Cor 13; μ as in lesson 09). The per-release split is "
                   "illustrative; the totals (2.63 and 1.02 for race + ethnicity) are the paper's.</p>")
        return View(figures=[f1, f2], readout=readout)


class CanonicalHistogramPanel(Panel):
    """Rounding a Laplace-noised count reveals it exactly with probability 1 − e^{−ε/2}."""

    title = "Why the canonical noisy histogram is not 'nice'"
    intro = ("Add Laplace noise to every cell of a histogram and round: at large ε the rounded count is exact "
             "(Ghazi, Kumar, Manurangsi & Steinke 2023, §5).")

    controls = {
        "eps": Slider("ε", 10.0, 0.1, 15.0, step=0.1),
        "seed": IntSlider("simulation seed", 0, 0, 20),
    }

    def render(self, v):
        e = float(v.eps)
        f1 = P.rounding_figure(e)
        f2 = P.sparse_attack_figure(e, seed=int(v.seed))
        readout = (f"P[exact] = 1 − e<sup>−ε/2</sup> = <b>{PD.rounding_reveals_probability(e):.5f}</b> "
                   "with Laplace(1/ε); "
                   f"{PD.rounding_reveals_probability(e, 2.0):.5f} with the replace-one Laplace(2/ε). "
                   f"One attribute change also moves two cells, so this baseline's ε<sub>attr</sub> equals its ε: it "
                   f"gains nothing "
                   f"per attribute (Ghazi, Kumar, Manurangsi & Steinke 2023, §5).")
        return View(figures=[f1, f2], readout=readout)


class HeavyHitterPanel(Panel):
    """PrivHeavyHitter (Algorithm 2 of Ghazi, Kumar, Manurangsi & Steinke 2023) on synthetic data with planted heavy
    hitters."""

    title = "The heavy-hitter tree (PrivHeavyHitter)"
    intro = ("Strings are grown two halves at a time; a candidate survives a level if its clamped noisy count "
             "beats a threshold that rises by μ per level (Ghazi, Kumar, Manurangsi & Steinke 2023, Alg 2, corrected "
             "constants).")

    controls = {
        "eps0": Slider("ε<sub>attr</sub> per attribute", 1.0, 0.1, 5.0, step=0.1),
        "d": Choice("attributes d", [("8", 8), ("16", 16), ("32", 32)], 16),
        # grid 1,250·2^(j/4): n = 20,000 (the lesson's fixed example) lies on it, so the browser does not snap the
        # default to 19,953 on first render
        "n": LogSlider("people n", 20000, 1250, 80000, step=math.log10(2) / 4, fmt=",.0f", integer=True),
        "nu": Slider("heavy-hitter fraction ν", 0.1, 0.02, 0.1, step=0.01),
        "eta": Slider("failure probability β<sub>fail</sub>", 0.1, 0.01, 0.1, step=0.01),
        "constants": Choice("constants", [("corrected (private at ε_attr)", "corrected"),
                                          ("as printed: λ = 3/ε_attr (not private at ε_attr)", "paper")], "corrected"),
        "seed": IntSlider("noise seed", 1, 0, 20),
    }

    def render(self, v):
        eps0, d, n = float(v.eps0), int(v.d), v.n
        nu, eta = float(v.nu), float(v.eta)
        X, planted, counts = PD.planted_data(n, d, 5, 0)
        p = PD.heavy_hitter_params(eps0, nu, n, constants=v.constants)
        res = PD.priv_heavy_hitter(X, p.lam, p.tau, p.mu, rng=int(v.seed))
        f1 = P.heavy_hitter_tree_figure(res)
        f2 = P.heavy_hitter_found_figure(X, res, nu)
        cond = PD.lemma30_conditions(d, n, p.lam, p.mu, nu, eta)
        found = {tuple(r) for r in res.found}
        hit = sum(tuple(r) in found for r in planted)
        cert = p.epsilon_certificate
        ratio = ("= 0.5·ε<sub>attr</sub> as Theorem 15 needs" if abs(cert - 0.5 * eps0) < 1e-9
                 else f"= {cert / eps0:.3g}·ε<sub>attr</sub>")
        readout = (f"Lemma 28 certificate: ε<sub>attr</sub>(tree) = (2/λ)(1 + 1/(1 − e<sup>−μ/λ</sup>)) = "
                   f"<b>{cert:.4g}</b> "
                   f"({ratio})."
                   f" Planted heavy hitters found: <b>{hit} of {len(planted)}</b>; strings reported: {len(found)}. "
                   f"Lemma 30 needs τ = 0.5νn = {cond['tau']:.4g} ≥ {cond['tau_needed']:.4g}: "
                   f"{'met' if cond['tau_large'] else 'not met (the guarantee does not apply yet)'}. "
                   f"Theorem 15's n for this d: {PD.theorem15_sample_size(d, eps0, nu, eta):,.0f}.")
        hint = None
        if v.constants == "paper":
            hint = ("Printed constants: Lemma 28 certifies the tree step only at about 1.34·ε<sub>attr</sub>, and "
                    "the count step Laplace(2/ε<sub>attr</sub>) costs ε<sub>attr</sub>, not 0.5·ε<sub>attr</sub> "
                    "(replace-one counts have L1 sensitivity 2): the total is not ε<sub>attr</sub>.")
        return View(figures=[f1, f2], readout=readout, hint=hint)


class AttributeUsersNeededPanel(Panel):
    """Users needed for a histogram with error ν: log d (partial DP) against d or √d (standard DP)."""

    title = "Users needed against the number of attributes"
    intro = ("How many people a histogram with error ν·n needs: Theorem 15's explicit n for ε<sub>attr</sub>-∇0DP "
             "(about log d) against standard DP's d/(εν) or √d/(εν) (Ghazi, Kumar, Manurangsi & Steinke 2023, §5). "
             "The lower bound of Theorem 16 "
             "can be drawn as printed or with dpviz's corrected constant.")

    controls = {
        "eps0": Slider("ε<sub>attr</sub> (or ε)", 1.0, 0.1, 5.0, step=0.1),
        "nu": Slider("error fraction ν", 0.1, 0.02, 0.1, step=0.01),
        "eta": Slider("failure probability β<sub>fail</sub>", 0.1, 0.01, 0.1, step=0.01),
        "d": Choice("mark d", [(str(2 ** j), 2 ** j) for j in range(1, 21)], 16),
        "thm16": Toggle("Theorem 16", [("as printed", False), ("corrected", True)], True),
    }

    def render(self, v):
        eps0, nu, eta, d = float(v.eps0), float(v.nu), float(v.eta), int(v.d)
        corrected = bool(v.thm16)
        fig = P.users_needed_figure(eps0, nu, eta, d, corrected16=corrected)
        n15 = PD.theorem15_sample_size(d, eps0, nu, eta)
        lb = PD.theorem16_lower_bound(d, eps0, nu, corrected=corrected)
        applies = d >= 10 * math.exp(1.1 * eps0)
        lb_text = (f"{lb:,.1f}" if applies and lb > 0 else
                   f"no guarantee (Theorem 16 needs d ≥ 10e<sup>1.1ε</sup> = {10 * math.exp(1.1 * eps0):.3g})")
        readout = (f"d = {d}: Theorem 15 (corrected λ) needs n ≥ <b>{n15:,.0f}</b>; printed λ = 3/ε<sub>attr</sub>: "
                   f"{PD.theorem15_sample_size(d, eps0, nu, eta, constants='paper'):,.0f}; lower bound (Theorem 16, "
                   f"{'corrected' if corrected else 'as printed'}) {lb_text}; standard pure DP ≈ d/(εν) = "
                   f"{PD.standard_dp_histogram_sample_size(d, eps0, nu):,.0f} (shape only). The explicit constants "
                   "are large: the separation shows at large d.")
        return View(figures=[fig], readout=readout)


class MarginalsPanel(Panel):
    """Projection mechanism and partial MWEM for w-way marginals (Theorems 11–12 of Ghazi, Kumar,
    Manurangsi & Steinke 2023)."""

    title = "w-way marginals: projection mechanism and partial MWEM"
    intro = ("A w-way marginal (often called k-way) counts the records on w attributes. At a fixed per-attribute "
             "ε<sub>attr</sub> the projection mechanism's error does not grow with d; at a fixed per-person ε it "
             "does (Ghazi, Kumar, Manurangsi & Steinke 2023, Thm 11). Partial MWEM answers ℓ attribute-disjoint "
             "queries per round (Thm 12).")

    # the sliders reach only what the panel accepts: w ≤ min(4, d), ℓ ≤ ⌊d/w⌋
    controls = {
        "eps": Slider("ε<sub>attr</sub> (or ε)", 1.0, 0.05, 4.0, step=0.05),
        "n": LogSlider("people n", 1000, 10, 1e6, step=0.1, fmt=",.0f", integer=True),
        "k": IntSlider("marginal width w", 2, 1, max=lambda v: min(4, v.d)),
        "d": IntSlider("attributes d (MWEM)", 10, 2, 40),
        "ell": IntSlider("queries per round ℓ (MWEM)", 2, 1, max=lambda v: max(1, v.d // v.k)),  # 2: every w ≤ 4
        "simulate": Toggle("simulated points", [("off", False), ("on", True)], False),
    }

    def render(self, v):
        e, n, k, d, ell = float(v.eps), v.n, int(v.k), int(v.d), int(v.ell)
        if k > d:
            raise ValueError(f"w = {k} is more than d = {d}: a w-way query needs w attributes.")
        if ell > d // k:
            raise ValueError(f"ℓ = {ell} attribute-disjoint {k}-way queries do not fit in d = {d} attributes: "
                             f"choose ℓ ≤ ⌊d/w⌋ = {d // k}.")
        f1 = P.projection_error_figure(k, n, e, simulate=bool(v.simulate))
        f2 = P.mwem_tradeoff_figure(e, n, d, k, ell)
        f3 = P.mwem_T_figure(e, n, d, k, ell)
        D, D0 = PD.kway_diameters(d, k)
        readout = (f"Projection, d = {d}: sensitivity Δ = √Q = {D:.4g} per person, Δ<sub>attr</sub> = "
                   f"√C(d−1, w−1) = {D0:.4g} per attribute (Q = C(d, w) queries): the same noise gives "
                   f"ε/ε<sub>attr</sub> = √(d/w) = {D / D0:.4g} (Theorem 11). Partial MWEM with ℓ = {ell}: "
                   f"ε<sub>attr</sub> = {e:g} per attribute, per person ρ = ¼(ℓ²+ℓ)ε<sub>attr</sub>² = "
                   f"{PD.mwem_person_rho(e, ell):.4g} "
                   f"(ε = {PD.eps_from_rho(PD.mwem_person_rho(e, ell)):.4g}; Theorem 12).")
        return View(figures=[f1, f2, f3], readout=readout)


class MisconceptionPanel(Panel):
    """Predict-then-reveal on "a smaller ε for the attribute I care about protects the record better"."""

    title = "Exercise: a smaller ε for the attribute you care about"
    intro = ("A data owner releases one statistic per attribute (each reads one column). They give the attribute "
             "they care about a smaller ε, believing the record is now better protected (opendp/dpcreator#370).")

    controls = {
        "eps_important": Slider("ε for the attribute you care about", 0.1, 0.01, 2.0, step=0.01),
        "eps_other": Slider("ε for each other attribute", 1.0, 0.1, 2.0, step=0.05),
        "d": IntSlider("attributes d", 10, 2, 30),
    }

    def _answer(self, v) -> float:
        """The whole-record pure ε of per-column releases: Σ_j ε_j (sequential composition)."""
        eps_j = [float(v.eps_important)] + [float(v.eps_other)] * (int(v.d) - 1)
        return float(PD.parallel_composition(eps_j, "pure").record)

    def _explain(self, v, truth: float) -> str:
        same = v.d * v.eps_other
        return ("Each attribute costs its own ε<sub>j</sub> (its per-attribute guarantee, "
                "Ghazi, Kumar, Manurangsi & Steinke 2023, Lemma 10). A whole record is read by every one of the d "
                "releases, so by sequential (basic) composition it costs "
                f"Σ<sub>j</sub> ε<sub>j</sub> = {truth:.4g} — barely below {same:.4g} with every ε<sub>j</sub> "
                "equal. (This is not parallel composition: that would need the releases to read disjoint "
                "<i>records</i>; here they read disjoint columns of the same records.) A smaller ε for one attribute "
                "protects <i>that attribute</i> (its per-attribute cost), not the record: membership and every other "
                "attribute are governed by the total. And if the important attribute is correlated with the others "
                "(diagnosis and medication), an adversary can infer it through them: partial DP protects the "
                f"attribute's causal contribution, not statistical correlations (Ghazi, Kumar, Manurangsi & Steinke "
                f"2023, §7).")

    # After the reveal the figure shows the whole-record totals (until a slider moves: predict again).
    exercises = {"exercise": PredictReveal(
        "With the sliders' settings, what is the whole-record (pure) ε of this release? "
        "(Each release reads one column of every record: a whole record is read by all d releases.)",
        answer=_answer, explain=_explain, rel_tol=0.05, redraw=True)}

    def render(self, v):
        a, b, d = float(v.eps_important), float(v.eps_other), int(v.d)
        revealed = self.revealed("exercise")
        if not revealed:
            self.exercise.feedback.value = ""  # a new question: the previous verdict and answer no longer apply
        fig = P.misconception_figure(a, b, d, reveal=revealed)
        readout = (f"Per attribute: the one you care about costs ε = {a:g}; each other costs {b:g}. "
                   f"Per-attribute guarantee of the whole release: ε<sub>attr</sub> = max<sub>j</sub> ε<sub>j</sub> = "
                   f"{max(a, b):g}.")
        return View(figures=[fig], readout=readout)
