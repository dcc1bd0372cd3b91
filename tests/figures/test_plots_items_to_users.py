"""Figure tests of lesson 11 "From items to users" (dpviz.plots.items_to_users): the figures draw the numbers of
dpviz.userlevel, with the right marks and captions. The numerics themselves are tested against oracles in
tests/numerics/test_userlevel_models.py.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from _figure_checks import forbid_incremental_building

import dpviz.userlevel as U
from dpviz.plots import items_to_users as P


def _mp_group_delta(eps, delta, k):
    with mp.workdps(50):
        return +(mp.mpf(delta) * (mp.exp(k * mp.mpf(eps)) - 1) / (mp.exp(mp.mpf(eps)) - 1))


def test_group_privacy_figures_content():
    f = P.group_privacy_epsilon_figure(0.5, 1000, m_mark=10)
    x, y = np.asarray(f.data[0].x), np.asarray(f.data[0].y)
    assert x[0] == 1 and x[-1] == 1000
    np.testing.assert_allclose(y, 0.5 * x)
    assert f.layout.xaxis.type == "log" and f.layout.yaxis.type == "log"
    g = P.group_privacy_delta_figure(1.0, 1e-6, 1000, m_mark=10)
    # the "vacuous from m = …" line sits at the first m with δ′ ≥ 1
    first = next(m for m in range(1, 1000) if _mp_group_delta(1.0, 1e-6, m) >= 1)
    assert any(s.x0 == first for s in g.layout.shapes)
    assert any(f"m = {first}" in (a.text or "") for a in g.layout.annotations)
    with pytest.raises(ValueError, match="delta"):
        P.group_privacy_delta_figure(1.0, 0.0)
    # δ axis in powers of ten (no SI suffix "1μ"), and no raw TeX in anything a learner reads
    assert g.layout.yaxis.exponentformat == "power"
    for fig in (f, g):
        text = str(fig.to_plotly_json())
        assert "^{" not in text and "_{" not in text and "000," not in text


def test_pow10_reads_as_powers_of_ten():
    assert P._pow10(1e-6) == "10⁻⁶" and P._pow10(2.5e-7) == "2.5·10⁻⁷" and P._pow10(0.1) == "0.1"
    assert P._pow10(9.999e-5) == "10⁻⁴"


def test_bounding_figures_mark_optimum_only_when_asked_and_current_bound():
    t = U.bounding_curves(1000, 5.0, 2.0, 1.0)
    hidden = P.bounding_error_figure(t, 20)
    # the lesson asks for the optimum first (issue 18): by default no trace, label or annotation gives it away
    assert not any(tr.name and "optimum" in tr.name for tr in hidden.data)
    assert not any(tr.mode and "markers" in tr.mode and tr.x is not None and list(tr.x) == [t.k_user]
                   for tr in hidden.data if t.k_user != 20)
    assert f"c* = {t.k_user}" not in str(hidden.to_plotly_json())
    f = P.bounding_error_figure(t, 20, show_optimum=True)
    names = [tr.name for tr in f.data]
    # notation of the course: the contribution bound is c (issue 15.2)
    assert f"optimum c* = {t.k_user}" in names and "your c = 20" in names
    star = f.data[names.index(f"optimum c* = {t.k_user}")]
    assert star.y[0] == pytest.approx(t.rmse_user.min())
    assert any(s.x0 == 20 for s in f.layout.shapes)
    h = P.contribution_histogram_figure(t, 20)
    kept, cut = h.data[0], h.data[1]
    assert sum(kept.y[:-1]) + sum(cut.y[:-1]) == t.counts.size
    assert sum(cut.y[:-1]) == int((t.counts > 20).sum())
    with pytest.raises(ValueError, match="k"):
        P.bounding_error_figure(t, 0)


@pytest.mark.parametrize("kind", ["item", "user"])
def test_neighbours_figure_differs_in_the_right_cells(kind):
    f = P.neighbours_figure(5, 4, user=2, index=1, kind=kind)
    a, b = np.asarray(f.data[0].z), np.asarray(f.data[1].z)
    diff = np.argwhere(a != b)
    if kind == "item":
        assert diff.tolist() == [[2, 1]]
    else:
        assert sorted(diff[:, 0].tolist()) == [2, 2, 2, 2] and len(diff) == 4  # the whole row of user 3
    assert set(np.unique(a)) <= {1, 2, 3, 4, 5} and set(np.unique(b)) <= {1, 2, 3, 4, 5}


def test_neighbours_figure_rejects_bad_input():
    with pytest.raises(ValueError, match="user"):
        P.neighbours_figure(3, 3, user=3)
    with pytest.raises(ValueError, match="kind"):
        P.neighbours_figure(3, 3, kind="group")


def test_epsilon_figure_marks_where_the_user_level_delta_gives_no_guarantee():
    """With δ_item, the ε plot marks the first m whose user-level δ reaches 1 (the same m as the δ plot, found by
    brute force here) and shades the range beyond: an ε there promises nothing."""
    import math

    eps, delta = 1.0, 1e-6
    m_vac = next(m for m in range(1, 1000) if delta * math.expm1(m * eps) / math.expm1(eps) >= 1)  # 15
    f = P.group_privacy_epsilon_figure(eps, 1000, m_mark=20, delta=delta)
    rects = [s for s in f.layout.shapes if s.type == "rect"]
    assert len(rects) == 1 and rects[0].x0 == m_vac and rects[0].x1 == 1000
    assert any(f"from m = {m_vac}" in a.text for a in f.layout.annotations)
    assert "no guarantee" in f.data[-1].text[0]  # the marked m = 20 lies past it
    d = P.group_privacy_delta_figure(eps, delta, 1000)
    assert any(s.type == "line" and s.x0 == m_vac for s in d.layout.shapes)
    assert not P.group_privacy_epsilon_figure(eps, 1000, m_mark=20).layout.shapes  # without δ: nothing to mark




def _figures():
    t = U.bounding_curves(1000, 5.0, 2.0, 1.0)
    return {
        "neighbours": P.neighbours_figure(5, 4, user=2, index=1, kind="user"),
        "epsilon": P.group_privacy_epsilon_figure(1.0, 1000, m_mark=20, delta=1e-6),
        "epsilon, no δ": P.group_privacy_epsilon_figure(0.5, 1000),
        "delta": P.group_privacy_delta_figure(1.0, 1e-6, 1000, m_mark=10),
        "bounding": P.bounding_error_figure(t, 20, show_optimum=True),
        "histogram": P.contribution_histogram_figure(t, 20),
    }


def test_every_figure_is_built_in_one_go(monkeypatch):
    # Issue 14 (≤ 30 ms per slider update): the builders write traces and layout as plain dicts and construct the
    # figure once; only the shared caption / approximation note are appended after. Any incremental call fails here.
    import plotly.graph_objects as go

    forbid_incremental_building(monkeypatch)
    for name, fig in _figures().items():
        assert isinstance(fig, go.Figure) and fig.data, name


def test_figures_keep_their_axes_styles_and_marks():
    # what the one-pass builders must still set: log axes, the histogram's step outline (a bar chart misdraws bins
    # on a log axis), titles, the δ = 1 line, and the two neighbour panels side by side with their own axes
    f = _figures()
    for name in ("epsilon", "delta", "bounding"):
        assert f[name].layout.xaxis.type == "log" and f[name].layout.yaxis.type == "log", name
        assert f[name].layout.title.text and f[name].layout.xaxis.title.text and f[name].layout.yaxis.title.text
    assert f["histogram"].layout.xaxis.type == "log"
    assert all(tr.line.shape == "hv" and tr.fill == "tozeroy" for tr in f["histogram"].data)
    assert any(s.y0 == s.y1 == 1.0 and s.yref == "y" for s in f["delta"].layout.shapes)  # δ = 1: no guarantee
    lo, hi = f["bounding"].layout.yaxis.range
    assert lo < hi
    n = f["neighbours"]
    assert [tr.type for tr in n.data] == ["heatmap", "heatmap"] and [tr.xaxis for tr in n.data] == ["x", "x2"]
    assert n.layout.xaxis.domain[1] < n.layout.xaxis2.domain[0] and n.layout.yaxis.autorange == "reversed"
    assert n.layout.height >= 300 and "5 users × 4 examples" in n.layout.title.text



@pytest.mark.parametrize("template", ["dpviz", "none", None])
def test_side_by_side_assembles_exactly_the_figure_plotly_validates(template):
    """side_by_side skips plotly's second validation of its parts (dpviz.plots._theme._assemble): the result must
    be the figure plotly builds, validating everything, from the same data and layout (two pairs the lessons show:
    lesson 11's group privacy ε and δ, lesson 14's item budget and users needed)."""
    import json

    import plotly.graph_objects as go
    import plotly.io as pio

    from dpviz.plots import few_examples as F

    pairs = [(P.group_privacy_epsilon_figure(0.5, 200, m_mark=20, delta=1e-6),
              P.group_privacy_delta_figure(0.5, 1e-6, 200, m_mark=20)),
             (F.item_budget_figure(1.0, 1e-6), F.generic_users_figure(1.0, 1e-6))]
    for a, b in pairs:
        fig = P.side_by_side(a, b, template=template)
        raw = fig.to_plotly_json()
        layout = {k: v for k, v in raw["layout"].items() if k != "template"}
        validated = go.Figure(data=raw["data"], layout=dict(layout, template=template))
        assert json.loads(pio.to_json(fig)) == json.loads(pio.to_json(validated))
