"""Figure builders of lesson 01: what is drawn equals the quantities of dpviz.attacks, recomputed independently."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import plotly.graph_objects as go
import pytest

from dpviz import attacks as A
from dpviz.plots import why_privacy as P

_TEX = ("^{", "_{", "\\frac", "$")


def _texts(fig: go.Figure) -> str:
    parts = [fig.layout.title.text or "", fig.layout.xaxis.title.text or "", fig.layout.yaxis.title.text or ""]
    parts += [a.text or "" for a in fig.layout.annotations] + [t.name or "" for t in fig.data]
    return " ".join(parts)


def _no_tex(fig: go.Figure) -> None:
    text = _texts(fig)
    assert not any(t in text for t in _TEX), text


def test_differencing_exact_is_two_spikes():
    fig = P.differencing_figure(0.0, 1.0)
    bars = [t for t in fig.data if t.type == "bar"]
    assert [list(b.x) for b in bars] == [[0.0], [1.0]] and all(list(b.y) == [1.0] for b in bars)
    marker = fig.data[-1]
    assert list(marker.x) == [1.0] and "1" in marker.name
    assert any(s.x0 == 0.5 == s.x1 for s in fig.layout.shapes)  # the attacker's threshold
    _no_tex(fig)


@pytest.mark.parametrize("b", [0.2, 1.0, 4.0])
def test_differencing_noisy_densities(b):
    fig = P.differencing_figure(b, None)
    curves = [t for t in fig.data if t.mode == "lines"]
    assert len(curves) == 2 and not any(t.mode == "markers" for t in fig.data)
    for centre, tr in zip((0.0, 1.0), curves):
        x, y = np.asarray(tr.x), np.asarray(tr.y)
        d = np.abs(x - centre) / b
        assert np.allclose(y, (1 + d) * np.exp(-d) / (4 * b), rtol=1e-12)
        # the window (±6b around ½) holds all but the tails e^(−t/b)(2 + t/b)/4 at t ≈ 5.5b (≤ 0.012): area ≥ 0.98
        assert np.trapezoid(y, x) == pytest.approx(1.0, abs=0.02)
    assert f"b = {b:.3g}" in fig.layout.title.text
    _no_tex(fig)


def test_differencing_bad_input():
    with pytest.raises(ValueError, match="noise_scale"):
        P.differencing_figure(-1.0)


def test_reconstruction_figure_draws_the_curve_sqrt_n_and_chance():
    es = np.concatenate([[0.0], np.geomspace(0.1, 1000, 30)])
    c = A.reconstruction_curve(49, 245, es, trials=2, rng=0)
    fig = P.reconstruction_figure(c, 2.0, 0.9, seed=0)
    mean = [t for t in fig.data if t.name == "mean over draws"][0]
    assert np.allclose(mean.x, es[1:]) and np.allclose(mean.y, c.recovered_fraction[1:])
    draws = [t for t in fig.data if t.legendgroup == "draws"]
    assert len(draws) == 2 and np.allclose(draws[1].y, c.per_trial[1][1:])
    assert any(s.x0 == 7.0 == s.x1 for s in fig.layout.shapes)  # √49
    assert any(s.y0 == 0.5 == s.y1 for s in fig.layout.shapes)
    assert fig.layout.xaxis.type == "log"
    text = _texts(fig)
    assert "Monte Carlo: 2 draws, seed 0" in text and "Dinur & Nissim 2003" in text and "√n = 7" in text
    marker = fig.data[-1]
    assert list(marker.x) == [2.0] and list(marker.y) == [0.9]
    _no_tex(fig)
    # no marker without a current E
    assert all(t.mode != "markers" for t in P.reconstruction_figure(c).data)


def test_reconstruction_figure_bad_input():
    with pytest.raises(ValueError, match="curve"):
        P.reconstruction_figure([0.5, 0.6])


@pytest.mark.parametrize("noise, scale", [("laplace", 0.8), ("gaussian", 2.0)])
def test_membership_figure_boundary_and_curves(noise, scale):
    raw = A.membership_tradeoff(30, 0.1)
    noisy = A.membership_tradeoff(30, 0.1, noise=noise, scale=scale)
    fig = P.membership_figure(raw, noisy)
    bound = fig.data[0]
    a = np.asarray(bound.x)
    if noise == "laplace":
        e = 1 / scale
        expect = np.maximum.reduce([np.zeros_like(a), 1 - math.exp(e) * a, math.exp(-e) * (1 - a)])
        assert f"ε = {e:.3g}" in bound.name
    else:
        nd = NormalDist()
        expect = np.array([nd.cdf(nd.inv_cdf(1 - x) - 1 / scale) if 0 < x < 1 else 1 - x for x in a])
        assert "μ = 0.5" in bound.name
    assert np.allclose(bound.y, expect, atol=1e-12)
    by_name = {t.name: t for t in fig.data}
    rawt = by_name["count released exactly"]
    assert np.allclose(rawt.x, raw.alpha) and np.allclose(rawt.y, raw.beta)
    noisyt = fig.data[-1]
    assert np.allclose(noisyt.x, noisy.alpha) and np.allclose(noisyt.y, noisy.beta)
    assert "α" in fig.layout.xaxis.title.text and "β" in fig.layout.yaxis.title.text
    assert fig.layout.yaxis.scaleanchor == "x"
    _no_tex(fig)


def test_membership_figure_raw_only_and_bad_input():
    fig = P.membership_figure(A.membership_tradeoff(5, 0.3))
    assert len(fig.data) == 2 and fig.data[0].name.startswith("β = 1 − α")
    with pytest.raises(ValueError, match="noisy"):
        P.membership_figure(A.membership_tradeoff(5, 0.3), noisy="laplace")


# ------------------------------------------------------------------------------------------------ linkage


def _links(n=80, seed=5, coverage=0.5):
    t = A.synthetic_table(n, seed)
    return t, list(A.linkage_by_generalisation(t.ages, t.towns, t.has_condition, A.voter_roll(n, coverage, seed)))


def test_linkage_figure_draws_each_release_with_its_k():
    t, res = _links()
    expected = [A.expected_unique_fraction(80, w, keep) for w, keep in A.GENERALISATIONS]
    fig = P.linkage_figure(res, 2, expected=expected)
    bars = [tr for tr in fig.data if tr.type == "bar"]
    assert [b.name for b in bars] == ["unique on the released quasi-identifiers",
                                      "re-identified by name (unique, on roll)"]
    # independently: the percentage of the 80 people whose released (age band, town) nobody else shares
    for i, (w, keep) in enumerate(A.GENERALISATIONS):
        keys = [((a // w) if w else 0, town if keep else "") for a, town in zip(t.ages.tolist(), t.towns)]
        unique = [keys.count(k) == 1 for k in keys]
        assert bars[0].y[i] == pytest.approx(100 * sum(unique) / 80, abs=1e-12)
        listed = res[i].on_register
        assert bars[1].y[i] == pytest.approx(100 * sum(u and r for u, r in zip(unique, listed)) / 80, abs=1e-12)
        assert any(a.text == f"k = {min(keys.count(k) for k in keys)}" and a.x == bars[0].x[i]
                   for a in fig.layout.annotations)
    diamonds = fig.data[-1]
    assert diamonds.mode == "markers" and np.allclose(diamonds.y, 100 * np.array(expected))
    shaded = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(shaded) == 1 and (shaded[0].x0, shaded[0].x1) == (1.5, 2.5)
    assert list(bars[0].x) == [P.generalisation_label(w, k, short=True) for w, k in A.GENERALISATIONS]
    assert "%" in fig.layout.yaxis.title.text and "n = 80" in fig.layout.title.text
    assert "Sweeney 2002" in _texts(fig)
    _no_tex(fig)


def test_linkage_figure_shows_disclosures_only_when_asked():
    _, res = _links()
    assert not any("revealed" in (tr.name or "") for tr in P.linkage_figure(res, 0).data)
    fig = P.linkage_figure(res, 0, show_disclosed=True)
    revealed = [tr for tr in fig.data if tr.name == "condition revealed (on roll)"][0]
    assert np.allclose(revealed.y, [100 * r.disclosed_fraction for r in res])
    # disclosure includes every re-identified person: the green bar is never below the orange one
    assert all(g >= o for g, o in zip(revealed.y, fig.data[1].y))


def test_generalisation_labels():
    assert P.generalisation_label(1, True) == "age + town"
    assert P.generalisation_label(10, True) == "10-year age band + town"
    assert P.generalisation_label(1, False) == "age (town suppressed)"
    assert P.generalisation_label(0, True) == "town (age suppressed)"
    assert P.generalisation_label(0, False) == "nothing (age and town suppressed)"
    assert P.generalisation_label(20, False, short=True) == "20-yr<br>no town"
    labels = [P.generalisation_label(w, k) for w, k in A.GENERALISATIONS]
    assert len(set(labels)) == len(labels)


def test_linkage_figure_bad_input():
    _, res = _links()
    _, other = _links(n=40)
    with pytest.raises(ValueError, match="results"):
        P.linkage_figure(res + other, 0)
    with pytest.raises(ValueError, match="results"):
        P.linkage_figure(res[0], 0)
    with pytest.raises(ValueError, match="show_disclosed"):
        P.linkage_figure(res, 0, show_disclosed="yes")
