"""Figure tests of lesson 14 "Few examples per user" (dpviz.plots.few_examples): the figures draw the numbers of
dpviz.userlevel, with the right marks and captions. The numerics themselves are tested against oracles in
tests/numerics/test_userlevel_models.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _figure_checks import forbid_incremental_building

import dpviz.userlevel as U
from dpviz.plots import few_examples as P


def test_users_needed_figure_traces_match_library_terms():
    from dpviz.userlevel import TABLE1_ROWS, TABLE2_ROWS

    for row in (*TABLE1_ROWS, *TABLE2_ROWS):
        f = P.users_needed_figure(row, 0.5, 0.05, 10.0, constant=2.0, m_mark=100)
        by = {tr.name: tr for tr in f.data}
        main = by[f"user-level, this paper ({row.source})"]
        m = np.asarray(main.x)
        np.testing.assert_allclose(main.y, row.user_level(m, 0.5, 0.05, 10.0, constant=2.0), rtol=1e-12)
        n1 = row.item_level(0.5, 0.05, 10.0, constant=2.0)
        assert np.all(np.asarray(main.y) <= n1 * (1 + 1e-12))  # Observation 28 upper bound
        assert np.all(np.asarray(main.y) >= np.ceil(n1 / m) * (1 - 1e-12))  # and lower bound
        # naive group privacy = n₁(ε/m)/m: for the pure three-term rows C·(L/(εα) + L/(α² m))
        if row.table == 1 and row.key != "pac":
            naive = np.asarray(by["naive group privacy n₁(ε/m)/m"].y)
            np.testing.assert_allclose(naive, 2.0 * (10 / (0.5 * 0.05) + 10 / (0.05**2 * m)), rtol=1e-12)
        assert any("≈" in (a.text or "") for a in f.layout.annotations)  # approx_note: constants hidden


def test_generic_users_figure_marks_the_library_crossover():
    f = P.generic_users_figure(1.0, 1e-6)
    m_star = U.crossover_group_privacy(1.0, 1e-6, kind="users", n_priv=100, n_stat=1000, c=1, m_max=1e8)
    assert any(s.x0 == m_star for s in f.layout.shapes)
    assert any(f"m > {m_star:,.0f}" in (a.text or "") and "beats group privacy" in (a.text or "")
               for a in f.layout.annotations)


def test_item_budget_figure_slopes():
    f = P.item_budget_figure(1.0, 1e-6)
    x = np.asarray(f.data[0].x)
    y10, ygp = np.asarray(f.data[0].y), np.asarray(f.data[1].y)
    # Theorem 10's ε′ = ε²/(L√(m ln(m/δ))) has log–log slope → −1/2 (slightly steeper from the log); ε/m slope −1
    s10 = np.diff(np.log(y10)) / np.diff(np.log(x))
    assert np.all(s10 < -0.5) and np.all(s10 > -0.56)
    np.testing.assert_allclose(np.diff(np.log(ygp)) / np.diff(np.log(x)), -1.0)
    L = math.log(1e6)
    np.testing.assert_allclose(y10, 1.0 / (L * np.sqrt(x * np.log(x / 1e-6))), rtol=1e-12)


@pytest.mark.parametrize("eps,delta,kappa_proof", [(1.0, 1e-6, 48), (1.0, 1e-3, 27), (3.0, 0.1, 6), (0.5, 1e-5, 80)])
def test_tdlap_figure_matches_digest_table(eps, delta, kappa_proof):
    f = P.tdlap_figure(eps, delta)
    r = np.concatenate([np.asarray(f.data[0].x), np.asarray(f.data[1].x)])
    assert sorted(r.tolist()) == list(range(2 * kappa_proof + 1))  # support {0..2κ}, digest §7.4
    pm = np.concatenate([np.asarray(f.data[0].y), np.asarray(f.data[1].y)])
    assert pm.sum() == pytest.approx(1.0, abs=1e-12)
    eb = eps / 3
    db = delta / (math.exp(2 * eb) + math.exp(eb) + 2)
    assert max(f.data[1].y) <= db  # end mass ≤ δ̄ (proof of Lemma 18)
    g = P.ptr_discard_figure(eps, delta)
    assert g.data[-1].y[0] == 4 * kappa_proof


def test_swap_loss_figures_show_sqrt_m_scaling():
    f = P.swap_loss_figure(400, 0.5, 0.1)
    assert np.asarray(f.data[0].y).sum() == pytest.approx(1.0, abs=1e-9)
    xs = {round(s.x0, 9) for s in f.layout.shapes}
    assert round(0.1 * 20, 9) in xs  # ε₀·√m line
    g = P.swap_loss_scaling_figure(0.5, 0.1)
    m = np.asarray(g.data[0].x, dtype=float)
    med = np.asarray(g.data[1].y, dtype=float)
    ok = np.isfinite(med) & (m >= 100)
    slope = np.polyfit(np.log(m[ok]), np.log(med[ok]), 1)[0]
    assert abs(slope - 0.5) < 0.05  # typical loss ∝ √m (Theorems 13/17), worst case slope 1
    with pytest.raises(ValueError, match="p"):
        P.swap_loss_figure(10, 1.0, 0.1)


def test_clipping_figures_split_the_law_at_tau():
    t = U.clipping_tradeoff(50, 0.1, 0.3, 1.0, 1000, 100)
    f = P.clipping_histogram_figure(t, 3.0)
    assert all(abs(x) <= 3.0 for x in f.data[0].x) and all(abs(x) > 3.0 for x in f.data[1].x)
    g = P.clipping_tradeoff_figure(t, 3.0)
    assert any(s.x0 == t.tau_paper for s in g.layout.shapes)
    # the lesson asks for the best τ first (issue 18): no star, no "best τ" legend entry unless asked for
    assert not any("best" in (tr.name or "") for tr in g.data) and f"{t.tau_best:.3g}" not in str(g.to_plotly_json())
    h = P.clipping_tradeoff_figure(t, 3.0, show_best=True)
    assert f"best τ ≈ {t.tau_best:.3g}" in [tr.name for tr in h.data]


def test_delstab_figures_report_the_two_sided_check():
    from dpviz.userlevel import DelStab, NoisySum, UserDataset

    x = UserDataset.bernoulli(24, 2, 0.5, rng=3)
    x2 = x.replace_user(0, np.ones(2, dtype=int))
    ds = DelStab(4.0, 0.1, NoisySum(0.1, (24 - 20) * 2))
    px, px2 = ds.output_pmf(x), ds.output_pmf(x2)
    f = P.delstab_output_figure(ds.outputs, px, px2, epsilon=4.0, delta=0.1)
    assert "✓" in f.layout.title.text
    # a pair that violates a tiny ε must be flagged ✗ (the figure is not always green)
    g = P.delstab_output_figure(["a", "b"], np.array([0.9, 0.1]), np.array([0.1, 0.9]), epsilon=0.1, delta=0.01)
    assert "✗" in g.layout.title.text
    st = ds.stability(x)
    h = P.delstab_test_figure(st["tdlap"], st["stable"], st["stable"])
    assert f"Pr[⊥ | x] = {float(st['tdlap'][~st['stable']].sum()):.3g}" in h.layout.title.text


def test_side_by_side_keeps_traces_lines_and_captions():
    a = P.tdlap_figure(1.0, 1e-6)
    b = P.ptr_discard_figure(1.0, 1e-6)
    f = P.side_by_side(a, b)
    assert len(f.data) == len(a.data) + len(b.data)
    assert [t.legend for t in f.data] == [None] * len(a.data) + ["legend2"] * len(b.data)
    assert [t.xaxis for t in f.data][-1] == "x2" and f.layout.xaxis2.type == "log"
    texts = [x.text or "" for x in f.layout.annotations]
    assert a.layout.title.text in texts and b.layout.title.text in texts  # subplot titles
    cap = next(t for t in texts if t.startswith("Left: "))
    assert "Definition 8" in cap and "Right: " in cap
    g = P.side_by_side(P.item_budget_figure(1.0, 1e-6), P.generic_users_figure(1.0, 1e-6))
    assert any(s.xref == "x" for s in g.layout.shapes) and any(s.xref == "x2" for s in g.layout.shapes)
    assert any((t or "").startswith("≈ ") for t in (x.text for x in g.layout.annotations))  # approx notes kept


@pytest.mark.parametrize("convention, shown, hidden", [("proof", "e<sup>ε̄</sup>+2", "e<sup>ε</sup>+2"),
                                                        ("printed", "e<sup>ε</sup>+2", "e<sup>ε̄</sup>+2")])
def test_tdlap_caption_states_the_convention_actually_used(convention, shown, hidden):
    # The caption must print the δ̄ formula the figure computes with (Algorithm 1 of 000, line 1).
    f = P.tdlap_figure(1.0, 1e-6, convention=convention)
    cap = next(a.text for a in f.layout.annotations if (a.text or "").startswith("Source"))
    assert shown in cap and hidden not in cap


def test_learner_facing_text_does_not_cite_the_internal_digest():
    # Captions are shown to learners, who have the paper, not dpviz's implementation digest.
    figs = [P.item_budget_figure(1.0, 1e-6), P.swap_loss_figure(100, 0.5, 0.1), P.tdlap_figure(1.0, 1e-6),
            P.generic_users_figure(1.0, 1e-6), P.swap_loss_scaling_figure(0.5, 0.1)]
    for f in figs:
        for a in f.layout.annotations:
            assert "digest" not in (a.text or "")


def test_learner_facing_text_has_no_raw_tex_nor_internal_labels():
    # Issues 13, 15, 18: captions, legends and titles cite "Ghazi et al. 2023, …", never "000", "ALG-9", "[derived]",
    # and write sub/superscripts with <sub>/<sup>, never TeX.
    from dpviz.userlevel import TABLE1_ROWS, TABLE2_ROWS

    t = U.clipping_tradeoff(50, 0.1, 0.3, 1.0, 1000, 100)
    figs = [P.item_budget_figure(1.0, 1e-6), P.swap_loss_figure(100, 0.5, 0.1), P.tdlap_figure(1.0, 1e-6),
            P.generic_users_figure(1.0, 1e-6), P.swap_loss_scaling_figure(0.5, 0.1), P.ptr_discard_figure(1.0, 1e-6),
            P.clipping_histogram_figure(t, 3.0), P.clipping_tradeoff_figure(t, 3.0, show_best=True),
            P.pac_error_figure(np.array([2, 4]), {1: np.array([0.3, 0.2])}, epsilon=1.0, grid_size=100)]
    figs += [P.users_needed_figure(r, 0.5, 0.05, 10.0, m_mark=100) for r in (*TABLE1_ROWS, *TABLE2_ROWS)]
    for f in figs:
        lay = f.layout
        text = " ".join([lay.title.text or "", lay.xaxis.title.text or "", lay.yaxis.title.text or ""]
                        + [a.text or "" for a in lay.annotations] + [tr.name or "" for tr in f.data])
        for bad in ("^{", "_{", "\\frac", "Source: 000", "of 000", "ALG-", "[derived]", "[NME22]", "ε₀", "e-0"):
            assert bad not in text, (f.layout.title.text, bad)


def test_single_figures_put_the_legend_under_the_plot():
    # A legend to the right (margin 250 px) left a 360 px phone almost no plot: it goes under the plot, the source
    # caption under the legend, and the right margin stays small.
    from dpviz.userlevel import TABLE1_ROWS

    figs = [P.users_needed_figure(TABLE1_ROWS[2], 0.5, 0.05, 10.0, m_mark=100),
            P.pac_error_figure(np.array([2, 4]), {1: np.array([0.3, 0.2]), 8: np.array([0.1, 0.05])}, epsilon=1.0,
                               grid_size=100)]
    for f in figs:
        assert f.layout.legend.y < 0 and f.layout.legend.yanchor == "top" and f.layout.margin.r <= 30
        cap = next(a for a in f.layout.annotations if (a.text or "").startswith("Source"))
        entries = sum(1 for t in f.data if t.showlegend is not False and t.name)
        assert -cap.yshift >= 75 + 19 * entries  # the caption starts below the last legend row




def _figures():
    from dpviz.userlevel import TABLE1_ROWS, DelStab, NoisySum, UserDataset

    x = UserDataset.bernoulli(24, 2, 0.5, rng=3)
    x2 = x.replace_user(0, np.ones(2, dtype=int))
    ds = DelStab(4.0, 0.1, NoisySum(0.1, (24 - 20) * 2))
    st, st2 = ds.stability(x), ds.stability(x2)
    t = U.clipping_tradeoff(50, 0.1, 0.3, 1.0, 1000, 100)
    return {
        "users": P.users_needed_figure(TABLE1_ROWS[2], 0.5, 0.05, 10.0, m_mark=100),
        "users, no mark": P.users_needed_figure(TABLE1_ROWS[2], 0.5, 0.05, 10.0),
        "generic": P.generic_users_figure(1.0, 1e-6),
        "budget": P.item_budget_figure(1.0, 1e-6),
        "tdlap": P.tdlap_figure(1.0, 1e-6),
        "ptr": P.ptr_discard_figure(1.0, 1e-6),
        "delstab output": P.delstab_output_figure(ds.outputs, ds.output_pmf(x), ds.output_pmf(x2), epsilon=4.0,
                                                  delta=0.1),
        "delstab test": P.delstab_test_figure(st["tdlap"], st["stable"], st2["stable"]),
        "swap": P.swap_loss_figure(400, 0.5, 0.1),
        "swap scaling": P.swap_loss_scaling_figure(0.5, 0.1, m_mark=100),
        "clip histogram": P.clipping_histogram_figure(t, 3.0),
        "clip tradeoff": P.clipping_tradeoff_figure(t, 3.0, show_best=True),
        "pac": P.pac_error_figure(np.array([2, 4]), {1: np.array([0.3, 0.2]), 8: np.array([0.1, 0.05])},
                                  epsilon=1.0, grid_size=100),
    }


def test_every_figure_is_built_in_one_go(monkeypatch):
    # Issue 14 (≤ 30 ms per slider update): the builders write traces and layout as plain dicts and construct the
    # figure once; only the shared caption / approximation note are appended after. Any incremental call fails here.
    import plotly.graph_objects as go

    forbid_incremental_building(monkeypatch)
    for name, fig in _figures().items():
        assert isinstance(fig, go.Figure) and fig.data, name


def test_figures_keep_their_trace_styles():
    # styles the one-pass builders write as nested dicts (plotly's marker_color / line_shape shorthands): steps for
    # the integer 4κ and the pmf overlay, bar colours that tell kept from clipped and passed from failed
    f = _figures()
    curves = [tr for tr in f["ptr"].data if tr.mode == "lines"]
    assert curves and all(tr.line.shape == "hv" for tr in curves)  # 4κ jumps by whole users
    assert f["delstab output"].data[2].line.shape == "hvh"
    for name in ("tdlap", "clip histogram"):
        a, b = f[name].data[:2]
        assert a.type == b.type == "bar" and a.marker.color and b.marker.color and a.marker.color != b.marker.color
    bars = f["delstab test"].data
    assert len({tr.marker.color for tr in bars}) == 4 and bars[3].marker.line.color == bars[2].marker.color
    end = next(a for a in f["tdlap"].layout.annotations if (a.text or "").startswith("end mass"))
    assert end.showarrow and end.x == 0 and end.y == pytest.approx(f["tdlap"].data[1].y[0])


def test_legend_below_keeps_the_plot_height_and_grows_the_figure():
    # the plot area keeps its height whatever the number of legend entries: the figure grows by the legend's rows
    import plotly.io as pio

    top = pio.templates["dpviz"].layout.margin.t
    f = _figures()
    for name in ("users", "users, no mark", "pac"):
        lay = f[name].layout
        assert lay.height - lay.margin.b - (lay.margin.t if lay.margin.t is not None else top) == 380, name
    assert f["users"].layout.height > f["users, no mark"].layout.height  # one legend entry more


def test_pac_error_theory_can_span_more_n_than_the_simulation():
    # A partial view (issue 14): the theory lines α(n) = ln(K+1)/(ε·n·m), capped at 1/2, over theory_grid; the
    # simulated curve over the n simulated so far.
    fig = P.pac_error_figure(np.array([2, 4]), {8: np.array([0.3, 0.2])}, epsilon=2.0, grid_size=100,
                             theory_grid=np.array([2, 4, 8, 16]))
    sim, theory = fig.data
    assert list(sim.x) == [2.0, 4.0]
    assert list(theory.x) == [2.0, 4.0, 8.0, 16.0]
    expected = [min(math.log(101) / (2.0 * n * 8), 0.5) for n in (2, 4, 8, 16)]
    assert list(theory.y) == pytest.approx(expected, rel=1e-12)
    fig = P.pac_error_figure(np.array([2, 4]), {8: np.array([0.3, 0.2])}, epsilon=2.0, grid_size=100)
    assert list(fig.data[1].x) == [2.0, 4.0]  # by default over the simulated n


def test_pac_error_partial_and_final_views_label_the_same_digits_of_each_decade():
    # Issue 14: left to plotly, a y range under ~2.5 decades (a partial view: only the small n simulated) is labelled
    # at every digit and a wider one (the final view) at 1, 2 and 5; the switch widened the left margin and made
    # plotly.js draw the first partial view twice. Both views fix the labels at 1, 2 and 5 of each decade.
    grid = np.array([2, 4, 8, 16, 32, 64, 128, 256, 512])
    partial = P.pac_error_figure(grid[:2], {1: np.array([0.34, 0.27]), 8: np.array([0.3, 0.2])}, epsilon=1.0,
                                 grid_size=1000, theory_grid=grid)
    final = P.pac_error_figure(grid, {1: np.geomspace(0.34, 0.01, 9), 8: np.geomspace(0.3, 1e-4, 9)}, epsilon=1.0,
                               grid_size=1000)
    for fig in (partial, final):
        assert fig.layout.yaxis.type == "log" and fig.layout.yaxis.dtick == "D2"
