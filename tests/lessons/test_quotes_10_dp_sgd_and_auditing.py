"""Lesson-quote tests of lesson 10 (DP-SGD and auditing): every number the lesson states is computed here with the
library, and the lesson's prose (or, where the number is shown by a panel, the panel's text) must state it."""

from __future__ import annotations

import numpy as np
import pytest
from _lesson_text import flat, prose

from dpviz import audit as A
from dpviz import dpsgd as D
from dpviz.mechanisms.gaussian import Gaussian
from dpviz.panels.auditing import DPSGDPanel, NeighbourGamePanel

TEXT = flat(prose("10_dp_sgd_and_auditing"))
Q = DPSGDPanel().values()["sampling_rate"]  # the panel's default q: the log slider's grid point nearest 0.05
T = 200  # the panel's default T


def _says(*phrases: str) -> None:
    for phrase in phrases:
        assert phrase in TEXT, phrase


def _lesson_run(clip_norm: float):
    """The DP-SGD panel's run at its defaults but for C (seed 1, L = q·1000, accuracies every T/20 steps)."""
    (X, y), test = D.lesson_data()
    return D.train_dpsgd(X, y, expected_batch_size=D.lesson_batch_size(Q), clip_norm=clip_norm, noise_multiplier=1.0,
                         sampling_rate=Q, steps=T, test=test, eval_every=D.lesson_schedule(T)[0], rng=1)


# ------------------------------------------------------------------------------------------------ §1 DP-SGD, live
def test_z_from_1_to_3_takes_epsilon_from_about_4_8_to_below_1_five_fold():
    e1, e3 = D.dpsgd_epsilon(1.0, Q, T), D.dpsgd_epsilon(3.0, Q, T)
    assert f"{e1:.1f}" == "4.8" and e3 < 1 and round(e1 / e3) == 5
    _says("ε falls about five-fold (from about 4.8 to below 1)")


def test_the_public_batch_size_and_the_smaller_q():
    assert round(D.lesson_batch_size(Q)) == 50 and D.lesson_batch_size(0.01) == pytest.approx(10)
    assert D.dpsgd_epsilon(1.0, 0.01, T) < D.dpsgd_epsilon(1.0, Q, T)
    _says("L = q·1000 = 50 examples",
          "Lower **q** to 0.01. Each step now looks at about 10 examples and ε falls further")


def test_small_and_large_clip_norms():
    assert f"{_lesson_run(0.1).clipped_fraction[-1]:.0%}" == "43%"
    assert _lesson_run(5.0).clipped_fraction[-1] == 0.0
    _says("about four in ten of the gradients are clipped (43% at the last step",
          "Make it large (5): nothing is clipped")


def test_pld_is_tighter_than_rdp_at_the_last_step():
    for z in (0.3, 1.0, 3.0, 5.0):
        assert D.dpsgd_epsilon(z, Q, T, accountant="pld") < D.dpsgd_epsilon(z, Q, T, accountant="rdp")
    _says("PLD is always the smaller (tighter) of the two")


def test_the_exercise_explanation_gives_the_factor_for_2t_and_its_regime():
    p = DPSGDPanel()
    ratio = D.dpsgd_epsilon(1.0, Q, 2 * T) / D.dpsgd_epsilon(1.0, Q, T)
    assert f"{ratio:.2f}" == "1.41"
    text = p._explain(p.values(), p._answer(p.values()))
    assert "a factor 1.41, nearer √2 ≈ 1.41 than 2: here the spread dominates" in text
    _says("sub-linearly while the spread of the privacy loss dominates (as in this lesson's runs), linearly once its "
          "mean takes over (lesson 06)")


# ----------------------------------------------------------------------------------- the pitfall of the denominator
def test_the_private_denominator_counterexample():
    assert f"{D.private_denominator_epsilon(10, 1.0, 1e-5):.2f}" == "12.57"
    assert f"{D.dpsgd_epsilon(1.0, 1.0, 1, 1e-5):.2f}" == "4.38"
    assert f"{D.private_denominator_epsilon(1000, 2.0, 1e-6):.2f}" == "4.91"
    assert f"{D.dpsgd_epsilon(2.0, 1.0, 1, 1e-6):.2f}" == "2.25"
    _says("At n = 10, z = 1 and δ = 10⁻⁵ the released model's ε is then at least 12.57, while the accountant reports "
          "4.38 for z = 1", "at n = 1000, z = 2 and δ = 10⁻⁶ it is at least 4.91 against a report of 2.25",
          "ε of at least 12.57 where the accountant reports 4.38 (n = 10, z = 1, δ = 10⁻⁵)")


def test_the_private_denominator_doubles_the_sensitivity_for_large_n():
    """'the average moves by up to 2C/(n + 1) when one example joins: twice the sensitivity': the means of the
    counterexample differ by C − C(n − 1)/(n + 1) = 2C/(n + 1), and the ε tends to the Gaussian's with μ = 2/z."""
    n = 1000
    assert 1 - (n - 1) / (n + 1) == pytest.approx(2 / (n + 1))
    assert D.private_denominator_epsilon(100_000, 2.0, 1e-6) == pytest.approx(
        float(Gaussian(2.0, 2.0).epsilon(1e-6)), rel=1e-3)
    _says("the average moves by up to 2C/(n + 1) when one example joins: twice the sensitivity the accountant assumed")


# ----------------------------------------------------------------------------------------------- §2 the game
def test_the_games_claim_at_z_1_and_0_3():
    assert f"{D.dpsgd_epsilon(1.0, 1.0, 1, 1e-5):.3g}" == "4.38"
    assert f"{D.dpsgd_epsilon(0.3, 1.0, 1, 1e-5):.3g}" == "19.1"
    for z, shown in [(1.0, "4.38"), (0.3, "19.1")]:
        p = NeighbourGamePanel(rng=0, noise_multiplier=z).refresh()
        assert f"{shown} (Gaussian step of sensitivity C = 1" in p.readout.value


def test_a_few_dozen_rounds_at_z_0_3_can_give_a_bound_above_1():
    """The likelihood-ratio rule (say x′ right of the crossing point, ½) over 36 rounds: most games end above 1.
    200 games at a fixed seed; the fraction's sd is ≤ 0.035, and the claim 'can' needs only that it is common."""
    g = np.random.default_rng(2026)
    above = 0
    for _ in range(200):
        game = A.NeighbourGame(1.0, 0.3, g)
        for _ in range(36):
            game.play(game.output > 0.5)
        above += game.bound() > 1
    assert above / 200 > 0.5
    _says("Set z = 0.3. The curves separate, and a few dozen rounds can already give a bound above 1")


# --------------------------------------------------------------------------------------------- §3 catch a bug
def test_claimed_and_exact_epsilon_of_the_pair():
    svt, noclip, ok = A.AUDIT_CASES["svt_ok"], A.AUDIT_CASES["dpsgd_no_clip"], A.AUDIT_CASES["dpsgd_ok"]
    assert f"{svt.exact_epsilon:.3f}" == "0.396" and svt.claimed_epsilon == 1.0
    assert f"{noclip.exact_epsilon:.1f}" == "97.8" and f"{noclip.claimed_epsilon:.2f}" == "1.63"
    assert f"{ok.claimed_epsilon:.2f}" == "1.63" and ok.claimed_delta == 1e-5
    _says("For the correct sparse vector it is 0.396 against a claim of 1",
          "for the DP-SGD step without clipping it is 97.8 against a claim of 1.63",
          "(z = 2.4 and C = 1, so σ = 2.4; claim ε = 1.63 at δ = 10⁻⁵)")


def test_the_correct_dpsgd_step_audit_and_why_it_stays_low():
    _, bounds, result = A.audit_case_curve("dpsgd_ok", 10_000, 0.95)
    assert f"{bounds[-1]:.2f}" == "0.72" and bounds[-1] < 1
    assert result.positives == result.negatives == 2500
    alpha_star = A.gaussian_witness_alpha(1 / 2.4, 1e-5)
    assert f"{alpha_star:.0e}" == "2e-05"
    alpha_plus = A.clopper_pearson_upper(0, 2500, (1 - 0.95) / 2)  # no false alarm; the Bonferroni half of 5%
    assert f"{alpha_plus:.1e}" == "1.5e-03"
    beta = float(Gaussian(2.4, 1.0).tradeoff(1e-3))  # the best test's exact miss rate at α = 10⁻³
    assert f"{A.epsilon_from_rates(1e-3, beta, 1e-5):.2f}" == "1.32"
    _says("its bound stays below 1 (0.72 at 10 000 trials)", "a false-alarm rate near α = 2·10⁻⁵",
          "the audit counts 2 500 runs on each dataset", "Clopper–Pearson at 97.5% still allows α up to 1.5·10⁻³",
          "At α = 10⁻³ even the exact error rates of the best test prove only ε ≥ 1.32",
          "witnessed only at false-alarm rates near 2·10⁻⁵")


def test_the_correct_laplace_count_climbs_toward_its_claim():
    _, bounds, _ = A.audit_case_curve("laplace_ok", 100_000, 0.95)  # the trials slider's maximum
    assert 0.9 < bounds[-1] <= 1.0 == A.AUDIT_CASES["laplace_ok"].claimed_epsilon
    _says("with more trials the bound climbs toward the claim ε = 1 but stays below it")


def test_more_confidence_mostly_lowers_the_bounds():
    lower = sum(A.audit_case(k, trials=10_000, confidence=0.99, rng=5).epsilon_lower
                <= A.audit_case(k, trials=10_000, confidence=0.95, rng=5).epsilon_lower for k in A.AUDIT_CASES)
    assert lower >= 6
    _says("Switch the confidence to 99%: the bounds mostly drop a little")


def test_the_lesson_names_the_noise_multiplier_z_and_never_sigma():
    assert "noise multiplier σ" not in TEXT and "multiplier σ" not in TEXT
    _says("z is the **noise multiplier**, σ the noise's standard deviation", "σ = z·C")
