"""Lesson-quote tests of ``notebooks/04_selection.ipynb``: every number the lesson's prose states about noisy max, the
utility limit and the sparse vector is computed here with the library (or a closed form) and looked up in the prose.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _lesson_text import flat, prose

from dpviz import selection as S
from dpviz.panels import selection as PS
from dpviz.sensitivity import parallel_epsilon, sequential_epsilon

TEXT = flat(prose("04_selection"))


def _fmt(x: float) -> str:
    return f"{x:g}"


def test_publishing_all_overlapping_noisy_scores_costs_k_eps_over_two_fifty_eps_at_k_100():
    # at the scale b = 2Δ/ε one noisy score (sensitivity Δ) is (Δ/b)-DP = (ε/2)-DP; k of them about the same
    # people add up (basic composition): k·ε/2, 50·ε for the exercise's k = 100
    eps, k = 1.0, 100
    per_score = 1.0 / S.noise_scale(eps)
    assert per_score == eps / 2
    total = sequential_epsilon([per_score] * k)
    assert total == 50.0
    assert "each noisy score is an (ε/2)-DP Laplace release" in TEXT
    assert "would cost k·ε/2 by basic composition" in TEXT
    assert f"{_fmt(total)}·ε for the exercise's k = {k}" in TEXT
    assert "cost k·ε/2. For a histogram it saves nothing" in TEXT  # the summary


def test_a_histogram_of_lap_one_over_eps_counts_costs_eps_and_its_argmax_is_the_monotonic_noisy_max():
    # each count has Δ = 1 and gets Lap(1/ε): ε-DP per bin, and the bins are disjoint (parallel composition)
    eps, k = 1.0, 10
    assert parallel_epsilon([1.0 / (1.0 / eps)] * k) == eps
    # the argmax of the noisy counts is report-noisy-max at the monotonic scale Δ/ε = 1/ε
    assert S.noise_scale(eps, 1.0, monotonic=True) == 1.0 / eps
    assert "Publishing all k counts with Lap(1/ε) noise costs ε under add/remove, by parallel composition" in TEXT
    assert "which is report-noisy-max at the monotonic scale Δ/ε, is post-processing" in TEXT
    assert "Here report-noisy-max saves no privacy" in TEXT


def test_the_small_eps_limit_of_the_gap_is_d_times_k_minus_one_over_k():
    # one best, k − 1 tied d below: as ε → 0 every candidate wins with probability 1/k, E[gap] → d(k − 1)/k
    k, d = 10, 2.0
    u = np.r_[0.0, np.full(k - 1, -d)]
    limit = d * (k - 1) / k
    for noise in S.NOISES:
        assert S.expected_gap(u, 1e-9, noise=noise) == pytest.approx(limit, rel=1e-8)
        assert S.expected_gap(u, 0.05, noise=noise) < limit  # approached from below
    assert S.expected_gap(u, 0.05) == pytest.approx(2 * 9 * math.exp(-0.05) / (1 + 9 * math.exp(-0.05)), rel=1e-12)
    assert f"the gap approaches d(k − 1)/k (the dotted line), {limit:.1f} at the defaults k = {k}, d = {d:g}" in TEXT
    assert "the gap approaches d (the dotted line)" not in TEXT
    # the panel's defaults: k = 10 and the log slider's d = 10^0.3 = 1.995, shown as "2": the line is at 1.796 ≈ 1.8
    panel = PS.SelectionUtilityPanel().refresh()
    k0, d0 = round(panel.controls["k"].value), panel.controls["d"].value
    assert k0 == k and f"{d0:.3g}" == "2" and round(d0 * (k0 - 1) / k0, 1) == round(limit, 1)
    line = panel.figures[0].data[4]
    assert "d(k − 1)/k" in line.name and line.y[0] == pytest.approx(d0 * (k0 - 1) / k0, rel=1e-15)


def test_the_sparse_vector_budget_adds_up_to_eps():
    # ε/2 for the threshold and ε/(2c) per ⊤: with no ⊤ the account is ε/2, with c of them ε/2 + c·ε/(2c) = ε
    eps, c = 1.0, 3
    none = S.above_threshold([0.0] * 5, 1e6, eps, max_positives=c, rng=0)
    full = S.above_threshold([1e6] * 5, 0.0, eps, max_positives=c, rng=0)
    assert none.epsilon_spent == eps / 2 and none.positives == ()
    assert full.positives == (0, 1, 2) and full.epsilon_spent == pytest.approx(eps / 2 + c * eps / (2 * c), abs=0)
    assert "ε/2 pays for the noisy threshold, and each of the at most c answers ⊤ costs ε/(2c)" in TEXT
    assert "that is ε/2 + c·ε/(2c) = ε" in TEXT
    assert "The guarantee of the run, fixed before it starts, is ε" in TEXT
    assert "account **after the fact** (ex post)" in prose("04_selection").replace("\n", " ")


def test_the_sparse_vector_noise_scales():
    for eps, c in [(1.0, 1), (0.5, 3)]:
        t_scale, q_scale, cut = S.sparse_vector_scales(eps, 1.0, c)
        assert (t_scale, q_scale, cut) == (2.0 / eps, 4.0 * c / eps, c)
    assert "the threshold noise Z<sub>T</sub> ~ Lap(2Δ/ε) **once**" in TEXT
    assert "draw fresh noise Z<sub>i</sub> ~ Lap(4cΔ/ε)" in TEXT
    assert "q<sub>i</sub> + Z<sub>i</sub> ≥ T + Z<sub>T</sub>" in TEXT
    assert "ρ" not in TEXT and "ν" not in TEXT  # the zCDP parameter and the TV drift elsewhere in the course


def test_the_exact_check_claims():
    # no query noise on x = (0, 1), x′ = (1, 0), T = 0.5: ⊥⊤ is possible on x only, the loss is infinite
    loss = S.sparse_vector_privacy_loss([0.0, 1.0], [1.0, 0.0], 0.5, 1.0, variant="no_query_noise")
    assert loss[(False, True)] == math.inf
    assert "Take x = (0, 1) and x′ = (1, 0) with threshold 0.5" in TEXT
    # the correct variant stays within ±ε for every number of queries of the panel (1 to 6) at its ε
    for n in range(1, 7):
        x = [float(i % 2) for i in range(n)]
        for eps in (0.1, 1.0, 3.0):
            assert max(abs(v) for v in S.sparse_vector_privacy_loss(x, [1 - v for v in x], 0.5, eps).values()) \
                <= eps * (1 + 1e-9)
    # without the cutoff the loss grows with the number of queries and passes ε = 1 (1.05 at 3, 2.37 at 6)
    worst = [max(abs(v) for v in S.sparse_vector_privacy_loss([float(i % 2) for i in range(n)],
                                                                [float(1 - i % 2) for i in range(n)], 0.5, 1.0,
                                                                variant="no_cutoff").values())
             for n in (1, 3, 6)]
    assert worst[0] < 1.0 < worst[1] < worst[2] and round(worst[1], 2) == 1.05 and round(worst[2], 2) == 2.37
    assert "the loss grows with the number of queries and soon passes ε" in TEXT


def test_the_exponential_mechanism_exercise_keeps_its_answer_hidden():
    # the default scores (10, 9, 7, 7, 3) at ε = 1: P[best] = e⁵/Σ e^{u_i/2} = 0.4801 — the panel's answer, which
    # the prose must not give away before the learner commits
    u = np.array([10.0, 9.0, 7.0, 7.0, 3.0])
    want = math.exp(5.0) / sum(math.exp(x / 2.0) for x in u)
    assert round(want, 4) == 0.4801
    panel = PS.NoisyMaxPanel().refresh()
    assert panel.exercise.truth() == pytest.approx(want, rel=1e-13)
    assert "the default scores (10, 9, 7, 7, 3) at ε = 1" in TEXT
    assert "0.4801" not in TEXT and "0.480" not in TEXT and "48 %" not in TEXT


def test_the_you_need_box_lists_the_lesson_local_symbols():
    box = TEXT[TEXT.index("**You need:**"):TEXT.index("## Definitions")]
    for words in ("k is the number of candidates", "c the number of answers ⊤ the sparse vector may report",
                  "T its threshold", "q<sub>i</sub> the answer to query i", "**lesson-local**",
                  "basic and parallel composition", "[the notation page](notation.ipynb)"):
        assert words in box, words
