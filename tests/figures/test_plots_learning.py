"""Tests of dpviz.plots.learning: new figures, named traces, log axes, captions citing sources."""

import numpy as np
from _figure_checks import forbid_incremental_building

from dpviz.learning import phased_erm_schedule, rates
from dpviz.plots import learning as P


def _caption(fig):
    return " ".join(a.text for a in fig.layout.annotations)


def test_training_curves_figure():
    fig = P.training_curves_figure({"naive": ([0, 1, 2], [1.0, 0.5, 0.0]), "user_level": ([0, 1, 2], [1, 0.4, 0.2])},
                                   labels={"naive": "naive — ε = 1"})
    assert [t.name for t in fig.data] == ["naive — ε = 1", P.METHOD_STYLE["user_level"][2]]
    assert fig.layout.yaxis.type == "log" and min(fig.data[0].y) > 0  # zero is floored on a log axis
    # cited in the house style; named honestly: full-batch noisy GD, not DP-SGD (issue 15, review §1 lesson 09)
    assert "Levy et al. 2021, Alg 3" in _caption(fig) and "no subsampling" in _caption(fig)
    assert P.training_curves_figure({}) is not P.training_curves_figure({})


def test_rates_figure_shades_invalid_region():
    ns = np.geomspace(10, 1e6, 50)
    curves = {"upper": rates.sco_upper(ns, 10, 5, 1.0), "lower": rates.sco_lower(ns, 10, 5, 1.0)}
    fig = P.rates_figure(ns, curves, invalid_below=1000.0, floor=rates.fixed_n_floor(ns, 1.0))
    assert len(fig.layout.shapes) == 1 and fig.layout.shapes[0].x1 == 1000.0
    assert fig.layout.xaxis.type == "log" and "Thm 4" in _caption(fig) and "Thm 5" in _caption(fig)
    # every formula on the figure is cited, including the item-level and naive references (Levy et al. 2021, §1)
    assert "Item-level: the m = 1 rate quoted in Levy et al. 2021, §1" in _caption(fig)
    # the bounds match only when G = Θ(σ√d) (review §1 lesson 09)
    assert "G = Θ(σ√d)" in _caption(fig) and "naive: RG(" in _caption(fig)
    # the curves use constant 1 (the knob C only scales the n-condition, i.e. the grey region)
    assert "set to 1" in _caption(fig)


def _all_figures():
    ns = np.geomspace(10, 1e6, 50)
    Ts = np.geomspace(1, 1e4, 20)
    ms = np.array([1.0, 10.0, 100.0])
    s = phased_erm_schedule(1000, 10, 4, 1.0)
    return {
        "training": P.training_curves_figure({"naive": ([0, 1, 2], [1.0, 0.5, 0.1])}),
        "rates": P.rates_figure(ns, {"upper": rates.sco_upper(ns, 10, 5, 1.0)}, invalid_below=1000.0),
        "users": P.users_needed_figure(Ts, {1: rates.erm_users_needed(1, Ts, 1.0)},
                                       rates.erm_users_needed_003(1, Ts, 1.0), n=300),
        "schedule": P.phased_schedule_figure(s.users, s.lambdas, n=1000),
        "heterogeneity": P.heterogeneity_figure(ms, {"nonprivate": np.array([1e-2, 1e-3, 5e-4])}, formula=ms**-1,
                                                m_star=20.0),
    }


def test_captions_sit_below_the_axis_labels_and_inside_the_margin():
    # the source line is pinned in pixels under the plot area (a paper fraction moves with the height and ran into
    # two-row log-axis tick labels), below the tick labels and the axis title (~60 px), and the bottom margin holds
    # all its lines (~15 px each at font size 11) with some room to spare
    for name, fig in _all_figures().items():
        cap = [a for a in fig.layout.annotations if a.text.startswith("Source")]
        assert len(cap) == 1, name
        a = cap[0]
        assert a.yref == "paper" and a.y == 0 and a.yanchor == "top", name
        lines = a.text.count("<br>") + 1
        assert a.yshift <= -60, name
        assert fig.layout.margin.b >= -a.yshift + 15 * lines + 10, name
        assert fig.layout.margin.b <= -a.yshift + 15 * lines + 40, name  # no large empty band under the caption


def test_users_needed_and_schedule_figures():
    Ts = np.geomspace(1, 1e4, 20)
    fig = P.users_needed_figure(Ts, {1: rates.erm_users_needed(1, Ts, 1.0)}, rates.erm_users_needed_003(1, Ts, 1.0),
                                n=300)
    assert len(fig.data) == 2 and "Thms 29–30" in _caption(fig)
    s = phased_erm_schedule(1000, 10, 4, 1.0)
    fig = P.phased_schedule_figure(s.users, s.lambdas, n=1000)
    assert list(fig.data[0].y) == s.users.tolist()
    assert "Levy et al. 2021, Alg 4" in _caption(fig)


def test_heterogeneity_figure():
    ms = np.array([1.0, 10.0, 100.0])
    fig = P.heterogeneity_figure(ms, {"nonprivate": np.array([1e-2, 1e-3, 5e-4])}, formula=ms**-1, m_star=20.0)
    assert len(fig.data) == 2 and "Thm 9" in _caption(fig)


def test_labels_on_log_axes_use_log10_coordinates():
    # plotly's add_vline/add_hline annotations pass raw data values; on a log axis they are read as exponents,
    # which once threw the heterogeneity x-axis out to 10^171 and hid the 'your n' label
    ms = np.array([1.0, 10.0, 100.0])
    fig = P.heterogeneity_figure(ms, {"nonprivate": np.array([1e-2, 1e-3, 5e-4])}, m_star=20.0)
    lab = next(a for a in fig.layout.annotations if "m*" in a.text)
    assert lab.xref == "x" and np.isclose(lab.x, np.log10(20.0))
    Ts = np.geomspace(1, 1e4, 20)
    fig = P.users_needed_figure(Ts, {1: rates.erm_users_needed(1, Ts, 1.0)}, rates.erm_users_needed_003(1, Ts, 1.0),
                                n=300)
    lab = next(a for a in fig.layout.annotations if "your n" in a.text)
    assert lab.yref == "y" and np.isclose(lab.y, np.log10(300))
    ns = np.geomspace(10, 1e6, 50)
    fig = P.rates_figure(ns, {"upper": rates.sco_upper(ns, 10, 5, 1.0)}, invalid_below=1000.0)
    assert np.allclose(fig.layout.xaxis.range, [1.0, 6.0])  # the axis ends where the curves end
    assert all(a.xref != "x" or a.x <= 6.0 for a in fig.layout.annotations)


def test_schedule_lambda_axis_ticks_at_powers_of_ten():
    s = phased_erm_schedule(10_000, 10, 10, 1.0)
    fig = P.phased_schedule_figure(s.users, s.lambdas, n=10_000)
    assert fig.layout.yaxis2.tickmode == "linear" and fig.layout.yaxis2.tick0 == 0
    assert float(fig.layout.yaxis2.dtick).is_integer()




def test_every_figure_is_built_in_one_go(monkeypatch):
    # Issue 14 (≤ 30 ms per slider update): the builders write traces and layout as plain dicts and construct the
    # figure once; only the shared caption / approximation note are appended after. Any incremental call fails here.
    import plotly.graph_objects as go

    forbid_incremental_building(monkeypatch)
    figs = _all_figures()
    Ts = np.geomspace(1, 1e4, 20)
    figs["log_y off"] = P.training_curves_figure({"naive": ([0, 1], [1.0, 0.5])}, log_y=False)
    figs["rates, no marks"] = P.rates_figure(Ts, {"upper": rates.sco_upper(Ts, 10, 5, 1.0)})
    for name, fig in figs.items():
        assert isinstance(fig, go.Figure) and fig.data, name


def test_figures_keep_their_axes_and_marks():
    # what the one-pass builders must still set: log axes where the values span decades, the λ line on the right
    # axis over the bars, the marks of the learner's settings
    figs = _all_figures()
    for name in ("rates", "users", "heterogeneity"):
        assert figs[name].layout.xaxis.type == "log" and figs[name].layout.yaxis.type == "log", name
    assert figs["training"].layout.yaxis.type == "log" and figs["training"].layout.legend.x > 1  # legend outside
    assert P.training_curves_figure({"naive": ([0, 1], [1.0, 0.5])}, log_y=False).layout.yaxis.type is None
    sched = figs["schedule"]
    bars, line = sched.data
    assert bars.type == "bar" and line.yaxis == "y2" and sched.layout.yaxis2.overlaying == "y"
    assert sched.layout.yaxis2.type == "log" and sched.layout.yaxis2.side == "right"
    assert sched.layout.xaxis.dtick == 1  # one tick per phase
    assert any("never touched" in (a.text or "") for a in sched.layout.annotations)
    (n_line,) = figs["users"].layout.shapes
    assert n_line.y0 == n_line.y1 == 300 and n_line.xref == "x domain"  # the learner's n across the plot
    (m_line,) = figs["heterogeneity"].layout.shapes
    assert m_line.x0 == m_line.x1 == 20.0 and m_line.yref == "y domain"


def test_heterogeneity_formula_can_span_more_m_than_the_simulation():
    # A partial view (issue 14): the formula line over every m of the final view, the simulated markers over the m
    # simulated so far; the formula's y values are drawn as given, at formula_ms.
    ms, all_ms = np.array([1.0, 10.0]), np.array([1.0, 10.0, 100.0, 1000.0])
    fig = P.heterogeneity_figure(ms, {"nonprivate": np.array([1e-2, 1e-3])}, formula=1 / all_ms, formula_ms=all_ms)
    line, markers = fig.data
    assert list(line.x) == [1.0, 10.0, 100.0, 1000.0] and list(line.y) == [1.0, 0.1, 0.01, 0.001]
    assert list(markers.x) == [1.0, 10.0]
    # without formula_ms, the formula is drawn at the simulated m
    fig = P.heterogeneity_figure(ms, {"nonprivate": np.array([1e-2, 1e-3])}, formula=np.array([1.0, 0.1]))
    assert list(fig.data[0].x) == [1.0, 10.0]
