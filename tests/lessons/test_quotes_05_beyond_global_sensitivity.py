"""Lesson-quote tests of ``notebooks/05_beyond_global_sensitivity.ipynb``: every number the lesson's prose states is
computed here, from the panels' defaults and the library (or a closed form), and looked up in the prose; the
exercises' answers are not in it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _lesson_text import flat, prose

from dpviz import beyond as B
from dpviz.panels import beyond as PB

TEXT = flat(prose("05_beyond_global_sensitivity"))


def test_the_median_panel_defaults_and_the_global_sensitivities():
    p = PB.MedianSensitivityPanel().refresh()
    n, upper = p.controls["n"].value, p.controls["upper"].value
    assert (n, upper, PB.LOWER) == (51, pytest.approx(1000.0), 1.0)
    assert "At the defaults n = 51 and U = 1000 that is 999/51 = 19.6" in TEXT
    assert f"{(upper - PB.LOWER) / n:.3g}" == "19.6"
    assert "The median's global sensitivity is U − L = 999 here" in TEXT
    # half the records at L, half at U: one record flips the median across the range (a brute-force pair)
    x = np.r_[np.full(25, 1.0), np.full(26, 1000.0)]
    x2 = x.copy()
    x2[25] = 1.0
    assert np.sort(x)[25] - np.sort(x2)[25] == 999.0


def test_the_leak_example_numbers():
    p = PB.LocalSensitivityLeakPanel().refresh()
    x = list(PB.LEAK_DATA)
    x2 = [0.125, 0.25, 0.5, p.controls["value"].value, 0.875]
    assert x == [0.125, 0.25, 0.5, 0.625, 0.875] and x2[3] == 0.4375
    leak = B.local_sensitivity_leak(x, x2, 1.0, 0.0, 1.0)
    # LS(x) = max(0.625 − 0.5, 0.5 − 0.25); LS(x′) = max(0.5 − 0.4375, 0.4375 − 0.25)
    assert (leak.local_sensitivity, leak.local_sensitivity_neighbour) == (0.25, 0.1875)
    assert leak.max_privacy_loss == math.inf and f"{leak.delta:.2g}" == "0.0081"
    assert "Take x = (0.125, 0.25, 0.5, 0.625, 0.875) in [0, 1]" in TEXT
    assert "At the default v = 0.4375 the local sensitivities are 0.25 and 0.1875" in TEXT
    assert "is 0.0081 instead of 0" in TEXT
    eq = B.local_sensitivity_leak(x, [0.125, 0.25, 0.5, 0.75, 0.875], 1.0, 0.0, 1.0)
    assert eq.scale == eq.scale_neighbour and eq.max_privacy_loss <= 1.0
    assert "(v = 0.75 is one)" in TEXT


def test_the_smooth_sensitivity_numbers():
    p = PB.SmoothSensitivityPanel().refresh()
    assert (p.controls["n"].value, p.controls["epsilon"].value, p.controls["delta"].value) == (201, 1.0,
                                                                                               pytest.approx(1e-6))
    x = PB.data(201)
    lap = B.smooth_sensitivity_release_parameters(x, 1.0, 1e-6, 1.0, 1000.0)
    assert lap.beta == pytest.approx(1 / (2 * math.log(2e6)), rel=1e-15)
    assert f"{lap.beta:.3g}" == "0.0345" and f"{lap.smooth_sensitivity:.3g}" == "30.9"
    assert f"{lap.scale:.3g}" == "61.8"
    assert ("ε/(2 ln(2/δ)) = 0.0345. Then S*(x) = 30.9 and the noise scale 2S*/ε = 61.8: far below the global 999"
            in TEXT)
    cau = B.smooth_sensitivity_release_parameters(x, 1.0, 0.0, 1.0, 1000.0, "cauchy")
    assert (f"{cau.beta:.3g}", f"{cau.smooth_sensitivity:.3g}", f"{cau.scale:.3g}") == ("0.167", "0.909", "5.45")
    assert "β<sub>smooth</sub> = ε/6 = 0.167, S*(x) = 0.909 and the scale 6S*/ε = 5.45" in TEXT
    # the limits the prose states: S* at β = 0 is U − L, and S* ≥ LS(x)
    assert B.smooth_sensitivity_median(x, 0.0, 1.0, 1000.0) == 999.0
    assert B.smooth_sensitivity_median(x, 50.0, 1.0, 1000.0) == pytest.approx(B.local_sensitivity_median(x, 1.0,
                                                                                                         1000.0))


def test_the_ptr_numbers_and_the_exercise_answer_stays_out_of_the_prose():
    p = PB.ProposeTestReleasePanel().refresh()
    assert (p.controls["epsilon"].value, p.controls["delta"].value) == (1.0, pytest.approx(1e-6))
    assert f"{math.log(1e6):.3g}" == "13.8" and "the threshold is ln(10⁶) = 13.8" in TEXT
    assert B.ptr_pass_probability(0, 1.0, 1e-6) == 5e-7 and "δ/2 = 5·10⁻⁷" in TEXT
    gamma = p.exercise.truth()
    assert gamma == 14 and "γ = 14" not in TEXT and "14 records" not in TEXT
    assert "(2ε, δ)-DP" in TEXT
    assert "½δe<sup>εγ</sup> when εγ ≤ ln(1/δ) and 1 − e<sup>−εγ</sup>/(2δ) otherwise" in TEXT


def test_the_sample_and_aggregate_scale():
    p = PB.SampleAggregatePanel().refresh()
    n, b = p.controls["n"].value, p.controls["blocks"].value
    assert (n, round(b)) == (5000, 100)
    r = B.sample_and_aggregate(PB.data(n), round(b), 1.0, PB.LOWER, 1000.0, rng=0)
    assert r.scale == pytest.approx(999.0 / 100, rel=1e-15)
    assert "At the defaults n = 5000, B = 100, ε = 1, the noise scale is 999/100 = 9.99, larger than the standard " \
           "deviation of the block medians themselves" in TEXT
    for seed in range(5):  # whatever the shuffle
        est = B.sample_and_aggregate(PB.data(n), round(b), 1.0, PB.LOWER, 1000.0, statistic="median",
                                     rng=seed).estimates
        assert np.std(est) < r.scale / 1.5


def test_the_smooth_sensitivity_follows_n_and_u_as_the_prose_says():
    s = {(n, u, noise): B.smooth_sensitivity_release_parameters(PB.data(n), 1.0, 1e-6 if noise == "laplace" else 0.0,
                                                                 1.0, u, noise).smooth_sensitivity
         for n in (201, 501) for u in (1000.0, 1e6) for noise in ("laplace", "cauchy")}
    assert s[(501, 1000.0, "laplace")] < s[(201, 1000.0, "laplace")] and s[(501, 1000.0, "cauchy")] < \
        s[(201, 1000.0, "cauchy")]
    assert s[(201, 1e6, "laplace")] > 100 * s[(201, 1000.0, "laplace")]
    assert s[(201, 1e6, "cauchy")] == s[(201, 1000.0, "cauchy")]
    assert "with the Cauchy noise's larger β<sub>smooth</sub> it does not move" in TEXT


def test_the_quantile_exercise_answer_stays_out_of_the_prose():
    p = PB.QuantileClippingPanel().refresh()
    tail = p.exercise.truth()
    wide = PB.QuantileClippingPanel(upper=1e6).refresh().exercise.truth()
    assert 0 < tail < 0.01 < 0.5 < wide < 1  # a loose U pulls the quantile above the data
    for t in (tail, wide):
        for digits in (2, 3, 4):
            assert f"{t:.{digits}g}" not in TEXT
    assert "P[output in [x<sub>(i)</sub>, x<sub>(i+1)</sub>]] ∝ (x<sub>(i+1)</sub> − x<sub>(i)</sub>)·" \
           "e<sup>−ε|i − qn|/2</sup>" in TEXT
    assert "2ε by basic composition (Dwork & Roth 2014, Thm 3.16)" in TEXT


def test_the_median_exercise_answer_stays_out_of_the_prose():
    ls = PB.MedianSensitivityPanel().refresh().exercise.truth()
    assert f"{ls:.3g}" == "1.36" and "1.36" not in TEXT and "1.357" not in TEXT


def test_the_you_need_box_lists_the_lesson_local_symbols():
    box = TEXT[TEXT.index("**You need:**"):TEXT.index("## Definitions")]
    for words in ("L and U are the public range of the data", "m = ⌈n/2⌉ the rank of the median",
                  "k is a number of changed records", "γ PTR's distance", "B the number of blocks",
                  "q a quantile level (not a sampling rate)", "**lesson-local**", "[the notation page](notation.ipynb)",
                  "**replace one record**"):
        assert words in box, words


def test_the_corollary_and_the_definitions_are_cited():
    for words in ("Nissim, Raskhodnikova & Smith 2007, Def. 2.1", "Nissim, Raskhodnikova & Smith 2007, Def. 2.3",
                  "(their Prop. 3.4)", "Nissim, Raskhodnikova & Smith 2007, Cor. 2.4", "Dwork & Lei 2009",
                  "Dwork & Roth 2014, §7.2", "Dwork & Roth 2014, §7.1", "McSherry & Talwar 2007", "Smith 2011",
                  "Dwork & Roth 2014, Def. 3.1"):
        assert words in TEXT, words
