"""Tests of dpviz.plots.partial: figures carry the numbers of the library (independent closed forms here)."""

import math
from functools import partial

import numpy as np
import plotly.graph_objects as go
import pytest
from _figure_checks import CAPTION_LINE, caption_of, layout_number, needed_caption_gap, px_under_plot

from dpviz import partial as PD
from dpviz.plots import partial as P


def _trace(fig, prefix):
    for t in fig.data:
        if t.name and t.name.startswith(prefix):
            return t
    raise AssertionError(f"no trace starting with {prefix!r}: {[t.name for t in fig.data]}")


def test_record_epsilon_figure_curves():
    fig = P.record_epsilon_figure(0.1, 20, 3, 1e-6)
    assert isinstance(fig, go.Figure) and fig.layout.template.layout.font.family
    d = np.asarray(_trace(fig, "pure").x)
    np.testing.assert_allclose(_trace(fig, "pure").y, 0.1 * d)
    rho = 0.5 * (0.1 * d) ** 2
    np.testing.assert_allclose(_trace(fig, "(ε, δ) from ρ = ½(dε<sub>attr</sub>)², simple").y,
                               rho + 2 * np.sqrt(rho * math.log(1e6)))
    np.testing.assert_allclose(_trace(fig, "g = 3").y, [0.3, 0.3])
    np.testing.assert_allclose(_trace(fig, "per-column releases (sequential composition): √d").y, np.sqrt(d) * 0.1)
    assert any("Source" in a.text for a in fig.layout.annotations)
    with pytest.raises(ValueError, match="k"):
        P.record_epsilon_figure(0.1, 5, 6, 1e-6)


def test_rho_growth_slopes():
    fig = P.rho_growth_figure(0.2, 10)
    x = np.asarray(fig.data[0].x)
    s2 = np.diff(np.log(fig.data[0].y)) / np.diff(np.log(x))
    s1 = np.diff(np.log(fig.data[1].y)) / np.diff(np.log(x))
    np.testing.assert_allclose(s2, 2.0)
    np.testing.assert_allclose(s1, 1.0)


def test_census_figures():
    led = PD.census_2020_example()
    f = P.census_figure(led, {"race"})
    colours = list(f.data[0].marker.color)
    assert sum(c != "#bbbbbb" for c in colours) == len(led.touching({"race"}))
    g = P.census_compare_figure(led, {"race", "ethnicity"}, 1e-6)
    assert g.data[0].y[0] == pytest.approx(7.856, abs=0.01) and g.data[0].y[1] == pytest.approx(13.792, abs=0.01)
    caption = " ".join(a.text for a in g.layout.annotations)
    assert "here 13.79" in caption and "here 7.856" in caption  # the paper's prints next to the computed values


def test_rounding_and_attack():
    f = P.rounding_figure(10.0)
    assert f.data[-1].y[0] == pytest.approx(1 - math.exp(-5))
    g = P.sparse_attack_figure(2.0, seed=3)
    right = len(g.data[1].x)
    wrong = len(g.data[2].x)
    assert right + wrong == 40


def test_sparse_attack_matches_the_expected_rate_in_its_title():
    """The adversary rounds f + Laplace(1/ε) (Section 5 of 001): exactly right with probability 1 − e^{−ε/2}, the
    "expected" figure of the title. 100 draws × 40 cells; tolerance 5 binomial standard errors."""
    eps, reps, cells = 2.0, 100, 40
    p = 1 - math.exp(-eps / 2)
    right = sum(len(P.sparse_attack_figure(eps, seed=s).data[1].x) for s in range(reps))
    assert abs(right / (reps * cells) - p) < 5 * math.sqrt(p * (1 - p) / (reps * cells))
    assert f"expected {100 * p:.1f}%" in P.sparse_attack_figure(eps, seed=0).layout.title.text


def test_heavy_hitter_figures():
    X, planted, _ = PD.planted_data(5000, 8, 3, 0)
    p = PD.heavy_hitter_params(1.0, 0.1, 5000)
    res = PD.priv_heavy_hitter(X, p.lam, p.tau, p.mu, rng=0)
    f = P.heavy_hitter_tree_figure(res)
    n_cands = sum(len(nd.candidates) for nd in res.nodes)
    assert len(f.data[0].x) + len(f.data[1].x) == n_cands
    assert len(f.data[1].x) == sum(int(nd.accepted.sum()) for nd in res.nodes)
    g = P.heavy_hitter_found_figure(X, res, 0.1)
    assert g.data[2].y[0] == pytest.approx(500)
    u = P.users_needed_figure(1.0, 0.1, 0.1, 16)
    assert u.data[-1].y[0] == pytest.approx(PD.theorem15_sample_size(16, 1.0))


def test_marginal_figures():
    f = P.projection_error_figure(2, 1000, 1.0)
    assert np.all(np.asarray(f.data[1].y) >= np.asarray(f.data[0].y) - 1e-15)  # fixed ε never better than fixed ε0
    t = P.mwem_tradeoff_figure(1.0, 1000, 10, 2, 3)
    assert len(t.data[0].x) == 5
    assert np.all(np.diff(t.data[0].x) > 0)  # per-person ε grows with ℓ
    m = P.mwem_T_figure(1.0, 1000, 10, 2, 3)
    assert m.data[1].y[0] == pytest.approx(min(m.data[0].y), rel=1e-9) or m.data[1].y[0] <= min(m.data[0].y)


def test_misconception_and_interpretation():
    f = P.misconception_figure(0.1, 1.0, 10)
    assert f.data[0].y[0] + f.data[1].y[0] == pytest.approx(9.1)
    g = P.interpretation_figure(0.05, 10)
    np.testing.assert_allclose(g.data[1].y, np.exp(0.05 * np.arange(1, 11)) / (1 + np.exp(0.05 * np.arange(1, 11))))


def _texts(fig):
    lay = fig.layout
    out = [lay.title.text or "", lay.xaxis.title.text or "", lay.yaxis.title.text or ""]
    out += [t.name or "" for t in fig.data]
    out += [a.text or "" for a in lay.annotations]
    return out


def _builders():
    """Every builder, as a call that takes the ``template`` keyword."""
    led = PD.census_2020_example()
    X, _, _ = PD.planted_data(5000, 8, 3, 0)
    p = PD.heavy_hitter_params(1.0, 0.1, 5000)
    res = PD.priv_heavy_hitter(X, p.lam, p.tau, p.mu, rng=0)
    return [partial(P.record_epsilon_figure, 0.1, 20, 3, 1e-6), partial(P.rho_growth_figure, 0.2, 10),
            partial(P.census_figure, led, {"race"}), partial(P.census_compare_figure, led, {"race"}, 1e-6),
            partial(P.rounding_figure, 10.0), partial(P.sparse_attack_figure, 2.0),
            partial(P.heavy_hitter_tree_figure, res), partial(P.heavy_hitter_found_figure, X, res, 0.1),
            partial(P.users_needed_figure, 1.0, 0.1, 0.1, 16), partial(P.projection_error_figure, 2, 1000, 1.0),
            partial(P.mwem_tradeoff_figure, 1.0, 1000, 10, 2, 3), partial(P.mwem_T_figure, 1.0, 1000, 10, 2, 3),
            partial(P.misconception_figure, 0.1, 1.0, 10), partial(P.misconception_figure, 0.1, 1.0, 10, reveal=False),
            partial(P.interpretation_figure, 0.05, 10)]


def _all_figures():
    return [b() for b in _builders()]


def test_figure_text_has_no_raw_tex_and_every_figure_cites_a_source():
    # plotly does not render TeX: e^{2kε0} must be written e<sup>2kε0</sup>
    for f in _all_figures():
        texts = _texts(f)
        for t in texts:
            assert "^{" not in t and "_{" not in t, t
        assert any("Source" in a.text for a in f.layout.annotations), texts[0]


def test_heavy_hitter_strings_are_categories():
    # bit strings such as "0101…" would otherwise be read by plotly as numbers and drawn as hairlines at ~10^15
    X, planted, counts = PD.planted_data(5000, 8, 3, 0)
    p = PD.heavy_hitter_params(1.0, 0.1, 5000)
    res = PD.priv_heavy_hitter(X, p.lam, p.tau, p.mu, rng=0)
    g = P.heavy_hitter_found_figure(X, res, 0.1)
    assert g.layout.xaxis.type == "category"
    assert all(set(x) <= {"0", "1"} and len(x) == 8 for x in g.data[0].x)
    # the title counts the strings above νn = 500 that were reported (independently: planted counts ≥ 500)
    heavy = {"".join(map(str, s)) for s, c in zip(planted, counts) if c >= 500}
    found = {"".join(map(str, r)) for r in res.found}
    assert f"{len(heavy & found)} of {len(heavy)} with f ≥ νn reported" in g.layout.title.text


def test_misconception_figure_hides_the_total_before_the_reveal():
    hidden = P.misconception_figure(0.1, 1.0, 10, reveal=False)
    shown = P.misconception_figure(0.1, 1.0, 10)
    assert "9.1" in shown.layout.title.text
    assert not any("9.1" in t for t in _texts(hidden))
    np.testing.assert_allclose(list(hidden.data[0].y) + list(hidden.data[1].y), [0.1] + [1.0] * 9)


def test_record_epsilon_figure_uses_log_axes():
    f = P.record_epsilon_figure(0.1, 20, 3, 1e-6)
    assert f.layout.yaxis.type == "log" and f.layout.xaxis.type == "log"
    ys = np.concatenate([np.asarray(t.y, dtype=float) for t in f.data])
    assert ys[ys > 0].max() / ys[ys > 0].min() > 1e3  # the span that needs a log axis


def _named_figures():
    X32, _, _ = PD.planted_data(2000, 32, 3, 0)
    p32 = PD.heavy_hitter_params(1.0, 0.1, 2000)
    wide = P.heavy_hitter_found_figure(X32, PD.priv_heavy_hitter(X32, p32.lam, p32.tau, p32.mu, rng=0), 0.1)
    figs = _all_figures() + [wide, P.projection_error_figure(2, 1000, 1.0, simulate=True)]
    return [(f.layout.title.text[:40], f) for f in figs]


def test_every_caption_is_clear_of_the_x_axis_and_inside_the_bottom_margin():
    for name, fig in _named_figures():
        below = px_under_plot(fig)
        lines = caption_of(fig).text.count("<br>") + 1
        assert below >= needed_caption_gap(fig), (name, below, needed_caption_gap(fig))
        assert below + CAPTION_LINE * lines <= layout_number(fig, "b"), (name, below, lines, layout_number(fig, "b"))


def test_captions_stay_put_when_the_figure_height_changes():
    # pixels under the plot, not a fraction of its height (which moves with the height: into the axis title)
    for name, fig in _named_figures():
        before = px_under_plot(fig)
        fig.update_layout(height=layout_number(fig, "height") + 200)
        assert px_under_plot(fig) == pytest.approx(before), name


def test_figure_height_is_the_figures_own_not_the_templates():
    # every figure states its height (420 px unless it needs more), so a caller's template cannot change it
    for build in _builders():
        fig, bare = build(), build(template=None)
        assert fig.layout.height is not None and fig.layout.height >= 420, build.func.__name__
        assert bare.layout.height == fig.layout.height, build.func.__name__
    assert P.rounding_figure(2.0, template=None).layout.height == 420
