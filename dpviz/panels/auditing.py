"""Lesson 10 "DP-SGD and auditing": four panels.

* :class:`DPSGDPanel` — train a logistic regression live with DP-SGD; accuracy against steps, and the ε the RDP and
  PLD accountants give (slow: streamed, the run so far shown every quarter), with a predict-then-reveal exercise;
* :class:`NeighbourGamePanel` — the learner is the adversary of one DP-SGD step: guess x or x′ from the output;
  the tally becomes a lower bound on ε (the game itself is :class:`dpviz.audit.NeighbourGame`);
* :class:`AuditPanel` — the computer plays the game thousands of times on correct mechanisms and on mechanisms
  with planted bugs (slow: progress bar), with a misconception exercise;
* :class:`AuditingProblemsPanel` — the lesson's problem set (two numeric answers, three choices, a find-a-setting
  task on the ε and the noise of DP-SGD at the panel's z, q and T, a proof idea on clipping), with teaching notes
  for the teacher's edition. Its figure is the ε spent against steps (no training: fast).

Notation as in the lesson: z is DP-SGD's noise multiplier, σ = z·C the noise's standard deviation.
"""

from __future__ import annotations

import functools
import html
import logging
import math
import time
from typing import Any

import numpy as np

from dpviz import audit as A
from dpviz import dpsgd as D
from dpviz._validation import as_rng
from dpviz.panels import Action, Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Slider, Step, View
from dpviz.panels import guard as G
from dpviz.panels.classfeed import ClassBox, ClassFeedError, class_feed, plain_title, pooled_text, running_loop
from dpviz.panels.exercises import ChoiceProblem, FindSetting, NumericAnswer, ProblemSet, ProofIdea, TeachingNotes
from dpviz.panels.format import fmt, table
from dpviz.plots import auditing as P
from dpviz.references import cite

__all__ = ["DPSGDPanel", "NeighbourGamePanel", "AuditPanel", "AuditingProblemsPanel"]

_DELTA = 1e-5

log = logging.getLogger("dpviz.panels")

#: Seconds between two posts of the game's tally to the class (the latest counts are always the ones posted).
GAME_POST_INTERVAL = 3.0


class DPSGDPanel(Panel):
    """DP-SGD trained live: accuracy against steps, ε from the RDP and PLD accountants."""

    title = "DP-SGD, live"
    intro = ("Each step samples every example with probability q, clips each example's gradient to norm C, adds "
             "Gaussian noise of standard deviation σ = z·C to the sum (z: the noise multiplier), divides by the "
             "public expected batch size L = q·1000 and steps (Abadi et al. 2016, Alg. 1). The unit of privacy is "
             "one training example, with add/remove-one neighbours; the accountants add up T subsampled Gaussian "
             "steps, as if every step's model were released.")
    controls = {
        "clip_norm": Slider("clip norm C", 1.0, 0.1, 5.0, step=0.1),
        "noise_multiplier": Slider("noise multiplier z", 1.0, 0.3, 5.0, step=0.1),
        "sampling_rate": LogSlider("sampling rate q", 0.05, 1e-2, 1.0, step=0.1, fmt=".3f"),
        "steps": IntSlider("steps T", 200, 10, 1000, step=10),  # to 1000: the exercise's 2T is reachable
    }

    def _answer(self, v) -> float:
        return D.dpsgd_epsilon(float(v.noise_multiplier), float(v.sampling_rate), 2 * int(v.steps), _DELTA)

    def _explain(self, v, answer: float) -> str:
        now = D.dpsgd_epsilon(float(v.noise_multiplier), float(v.sampling_rate), int(v.steps), _DELTA)
        ratio = answer / now
        regime = ("nearer √2 ≈ 1.41 than 2: here the spread dominates, and ε grows sub-linearly" if ratio < 1.71 else
                  "nearer 2 than √2: here the mean has taken over, and ε grows almost linearly")
        return (f"At T steps ε = {now:.3g}; at 2T, {answer:.3g}: a factor {ratio:.2f}, {regime}. The privacy loss "
                "of T steps is a sum of T small independent losses: its mean grows like T, its spread like √T, and "
                "at a small δ ε is about the mean plus a few spreads. So ε grows sub-linearly only while the spread "
                "dominates; for long enough runs the mean wins and ε grows like T (lesson 06). Abadi et al. 2016, "
                "Thm 1 gives ε of order q√T for fixed z, under the theorem's conditions.")

    exercises = {"exercise": PredictReveal(
        "Predict: if you doubled the number of steps T (same z, q), what ε would the PLD accountant report?",
        answer=_answer, explain=_explain, rel_tol=0.15, guess_label="your ε:")}

    def render(self, v):
        """The run streamed: a view after about 50 steps, then at T/4, T/2 and 3T/4 (accuracy so far, the RDP ε of
        the checkpoints reached); the PLD accountant's ε at T, the slowest number, once the training is done."""
        C, s = float(v.clip_norm), float(v.noise_multiplier)
        q, T = float(v.sampling_rate), int(v.steps)
        (X, y), test = D.lesson_data()
        every, recorded, picks, pauses = D.lesson_schedule(T)
        ref = D.lesson_reference_run(C, q, T, every)
        checkpoints = [recorded[i] for i in picks]
        rdp: list[float] = []  # at the checkpoints reached so far
        runs = D.iter_train_dpsgd(X, y, expected_batch_size=D.lesson_batch_size(q), clip_norm=C, noise_multiplier=s,
                                  sampling_rate=q, steps=T, test=test, eval_every=every, rng=1,
                                  progress=lambda f: self.report_progress(min(f, 0.95)), pause_at=pauses)
        for t, run in runs:
            while len(rdp) < len(checkpoints) and checkpoints[len(rdp)] <= t:
                rdp.append(D.dpsgd_epsilon(s, q, checkpoints[len(rdp)], _DELTA, accountant="rdp"))
            if t < T:
                yield Step(t, T, functools.partial(self._view, C, s, q, T, run, ref, picks, tuple(rdp), None))
        pld = D.dpsgd_epsilon(s, q, T, _DELTA, accountant="pld")
        yield Step(T, T, functools.partial(self._view, C, s, q, T, run, ref, picks, tuple(rdp), pld))

    def _view(self, C: float, s: float, q: float, T: int, run: D.DPSGDRun, ref: D.DPSGDRun, picks: list[int],
              rdp: tuple[float, ...], pld: float | None) -> View:
        """The view of ``run`` against the noise-free reference, with the RDP ε at the ``picks`` reached (one per entry
        of ``rdp``) and the PLD ε at T; ``pld`` None: the run is still going (a partial view: the curves so far, the
        titles saying so, no PLD ε yet)."""
        t, k = int(run.steps[-1]), len(run.steps)
        picks = picks[:len(rdp)]
        checkpoints = [int(run.steps[i]) for i in picks]
        rdp = list(rdp)
        partial = pld is None
        progress = (t, T) if partial else None
        fig1 = P.training_figure(run.steps, run.test_accuracy, ref.test_accuracy[:k], noise_multiplier=s,
                                 clip_norm=C, sampling_rate=q, progress=progress)
        fig2 = P.epsilon_steps_figure(checkpoints, rdp, pld, T, delta=_DELTA, progress=progress)
        fig3 = P.accuracy_epsilon_figure(rdp, run.test_accuracy[picks], checkpoints, pld,
                                         None if partial else run.test_accuracy[-1], delta=_DELTA, progress=progress)
        if partial:
            rows = [(f"test accuracy after {t} of {T} steps: DP-SGD / no noise",
                     f"{run.test_accuracy[-1]:.3f} / {ref.test_accuracy[k - 1]:.3f}")]
            if rdp:
                rows.append((f"ε at δ = {_DELTA:.0e} spent so far: RDP, after {checkpoints[-1]} steps",
                             fmt(rdp[-1])))
            rows += [(f"ε at δ = {_DELTA:.0e} after T steps: RDP / PLD", "when the run ends"),
                     ("public expected batch size L = q·1000",
                      f"{D.lesson_batch_size(q):.1f} (mean |B| drawn so far: {run.batch_sizes.mean():.1f})"),
                     (f"examples clipped (step {t})", f"{run.clipped_fraction[-1]:.0%}")]
            return View(figures=[fig1, fig2, fig3], readout=table(rows))
        rows = [("test accuracy after T steps: DP-SGD / no noise",
                 f"{run.test_accuracy[-1]:.3f} / {ref.test_accuracy[-1]:.3f}"),
                (f"ε at δ = {_DELTA:.0e}: RDP / PLD", f"{fmt(rdp[-1])} / {fmt(pld)}"),
                ("public expected batch size L = q·1000",
                 f"{D.lesson_batch_size(q):.1f} (mean |B| drawn: {run.batch_sizes.mean():.1f})"),
                ("examples clipped (last step)", f"{run.clipped_fraction[-1]:.0%}")]
        hint = "ε above 10 protects little: raise z, or lower q or T." if pld > 10 else None
        return View(figures=[fig1, fig2, fig3], readout=table(rows), hint=hint)


class NeighbourGamePanel(Panel):
    """The neighbouring-dataset game: the learner guesses x or x′ from one DP-SGD step's output."""

    title = "The neighbouring-dataset game: you are the adversary"
    intro = ("The page picks x (five ordinary examples) or x′ (the same plus your canary) in secret, by a fair "
             "coin, runs one DP-SGD step (clip C = 1, noise multiplier z, so the noise's standard deviation is "
             "σ = z·C = z) and shows you the output. Guess which dataset it was. Your hits and false alarms become "
             "a lower bound on ε at 95% confidence, next to the ε the mechanism claims.")

    controls = {
        "canary": Slider("canary's gradient (before clipping)", 1.0, 0.0, 5.0, step=0.1),
        "noise_multiplier": Slider("noise multiplier z", 1.0, 0.3, 4.0, step=0.1),
    }

    def _play_x(self, v) -> None:
        self.game.play(False)
        self._played()

    def _play_xp(self, v) -> None:
        self.game.play(True)
        self._played()

    def _start_over(self, v) -> None:
        self.game = None  # the next render deals a new game

    actions = {
        "guess_x": Action("guess x (no canary)", _play_x),
        "guess_xp": Action("guess x′ (canary)", _play_xp),
        "reset": Action("start over", _start_over),
    }

    def __init__(self, rng=None, **overrides: Any):
        """``rng`` (a seed or a Generator) deals the game's rounds (:class:`dpviz.audit.NeighbourGame` draws them);
        a change of the canary or of z starts a new game from the same stream."""
        self._rng = as_rng(rng)
        self._key: tuple | None = None
        self.game: A.NeighbourGame | None = None
        # the class (issue 39): plays shared while the box is ticked, pooled per mechanism, posted at most once per
        # GAME_POST_INTERVAL
        self._feed = class_feed()
        self.class_box = ClassBox(self._feed, game=True) if self._feed is not None else None
        self._tally: dict[str, list[int]] = {}  # settings -> [correct_on_x, rounds_on_x, correct_on_x′, rounds_on_x′]
        self._domains: dict[str, dict] = {}
        self._dirty: set[str] = set()  # settings whose tally changed since it was last posted
        self._pooled: dict[str, dict | None] = {}
        self._posted_at = -float("inf")
        self._timer = None
        super().__init__(**overrides)
        self.reset.icon = "refresh"
        if self.class_box is not None:
            self.class_box.share.observe(self._sharing_changed, names="value")

    # -- the class ---------------------------------------------------------------------------------------------
    def _layout(self):
        box = super()._layout()
        if self.class_box is not None:
            box.children = tuple(box.children) + tuple(self.class_box.widgets)
        return box

    def _guard(self) -> None:
        if self.class_box is not None:  # guarded first: the base's pass leaves an already guarded widget alone
            for w, checks in self.class_box.client_checks().items():
                G.guard(w, checks)
        super()._guard()

    def game_key(self, game: A.NeighbourGame | None = None) -> str:
        """The class key of ``game``'s mechanism (default the current game): only plays of one mechanism pool,
        e.g. ``NeighbourGamePanel.game.z1.5-g0.8`` (z the noise multiplier, g the clipped canary)."""
        game = self.game if game is None else game
        return f"{type(self).__name__}.game.z{game.sigma / game.clip_norm:g}-g{game.shift:g}"

    def _played(self) -> None:
        """A round was played: add it to its mechanism's tally and post the tally (debounced)."""
        if self.class_box is None or not self.class_box.sharing or self.game is None or \
                self.game.last_was_prime is None:
            return
        game, key = self.game, self.game_key()
        tally = self._tally.setdefault(key, [0, 0, 0, 0])
        i = 2 if game.last_was_prime else 0
        tally[i] += int(bool(game.last_right))
        tally[i + 1] += 1
        self._domains[key] = {"title": plain_title(self.title), "lesson": type(self).__module__.rsplit(".", 1)[-1],
                              "claimed_epsilon": float(game.claimed_epsilon), "delta": float(game.delta)}
        self._dirty.add(key)
        self._post_soon()

    def _post_soon(self) -> None:
        loop = running_loop()
        if loop is None:  # no kernel loop (tests, scripts): post at once
            self._post()
            return
        if self._timer is not None:
            return  # a post is due: it will send the latest counts
        wait = self._posted_at + GAME_POST_INTERVAL - time.monotonic()
        if wait <= 0:
            self._post()
        else:
            self._timer = loop.call_later(wait, self._post_due)

    def _post_due(self) -> None:
        self._timer = None
        try:
            self._post()
        except Exception:  # a bug: never out of a loop callback; the server's log has it
            log.exception("dpviz class game post failed")

    def _post(self) -> None:
        """Post the latest tally of every mechanism played since the last post; show the current one's pool."""
        if self.class_box is None or not self.class_box.sharing:
            self._dirty.clear()
            return
        self._posted_at = time.monotonic()
        problem = None
        for key in sorted(self._dirty):
            try:
                self._pooled[key] = self._feed.submit_game(key, list(self._tally[key]), self._domains[key])
            except ClassFeedError as exc:
                problem = f"{exc}; your tally was not shared."
            except Exception:
                log.exception("dpviz class game post of %s failed", key)
                problem = "the class tally is not reachable right now; your tally was not shared."
        self._dirty.clear()
        if problem is not None:
            self.class_box.problem(problem)
        else:
            self._show_pooled()

    def _show_pooled(self) -> None:
        """The class's pooled bound for the current mechanism, once this learner's plays of it were shared."""
        if self.class_box is None or self.game is None:
            return
        key = self.game_key()
        if key not in self._pooled:
            self.class_box.clear()
            return
        self.class_box.show(f"<div class='dpviz-class-so-far' style='padding:4px 8px;background:#f4f4f4'>"
                            f"{html.escape(pooled_text(self._pooled[key]))}</div>")

    def _sharing_changed(self, change: Any = None) -> None:
        if self.class_box is not None and not self.class_box.sharing:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._dirty.clear()
            self.class_box.show("<span style='color:#555'>Your tally is not shared (you opted out).</span>")

    def start_over(self) -> None:
        self._start_over(self.values())
        self.update()

    def guess(self, says_prime: bool) -> None:
        """Record a guess for the current round (the game draws the next round), then redraw."""
        if self.game is not None:
            self.game.play(bool(says_prime))
            self._played()
        self.update()

    def render(self, v) -> View:
        g, z = float(v.canary), float(v.noise_multiplier)
        key = (g, z)
        if key != self._key or self.game is None:  # another mechanism: a new game
            self._key = key
            self.game = A.NeighbourGame(g, z, self._rng, clip_norm=1.0, delta=_DELTA, confidence=0.95)
            self._show_pooled()
        game = self.game
        truth = None
        if game.last_was_prime is not None:
            truth = ("x′" if game.last_was_prime else "x") + (" — you were right" if game.last_right else " — missed")
        rounds = np.arange(1, len(game.history) + 1)
        fig = P.game_figure(game.shift, game.sigma, game.output, rounds, game.history, game.claimed_epsilon,
                            confidence=0.95, truth=truth)
        both = game.positives and game.negatives
        rows = [("rounds played", f"{game.rounds} ({game.positives} on x′, {game.negatives} on x)"),
                ("hits (said x′ on x′) / false alarms (said x′ on x)",
                 f"{game.true_positives} / {game.false_positives}"),
                ("your lower bound on ε (95%)", fmt(game.bound()) if both else
                 "— play rounds on both datasets first"),
                (f"claimed ε at δ = {_DELTA:.0e}",
                 f"{game.claimed_epsilon:.3g} (Gaussian step of sensitivity C = 1, Balle & Wang 2018, Thm 8)")]
        hint = None
        if g > 1.0:
            hint = "The canary's gradient is clipped to C = 1: a bigger canary does not move M(x′) further."
        return View(figures=[fig], readout=table(rows), hint=hint)


_CASE_OPTIONS = [(c.label, k) for k, c in A.AUDIT_CASES.items()]


class AuditPanel(Panel):
    """The computer plays the game thousands of times with the likelihood-ratio test; catch the buggy mechanisms."""

    title = "The computer's audit: catch a bug"
    intro = ("Pick an implementation. The computer runs it thousands of times on x and on x′, picks the best "
             "threshold test on half of the runs and counts its errors on the other half. The Clopper–Pearson "
             "lower bound on ε is compared with the ε the implementation claims: above the claim, the claim is "
             "refuted at the confidence shown. Some implementations hide a bug.")
    slow = True
    controls = {
        "mechanism": Choice("implementation", _CASE_OPTIONS, "laplace_ok"),
        "trials": LogSlider("trials", 10_000, 1e3, 1e5, step=0.25, fmt=".0f", integer=True, bench=[1000, 10_000]),
        "confidence": Choice("confidence", [("90%", 0.9), ("95%", 0.95), ("99%", 0.99)], 0.95),
    }
    exercises = {"exercise": ChoiceReveal(
        "An audit of a mechanism that claims ε = 1 finds ε ≥ 0.3 at 95% confidence. What follows?",
        [("The claim is wrong: the mechanism is really only 0.3-DP, it leaks less than it says.", False,
          "Tempting, because the audit measured something. But a lower bound of 0.3 only says ε is at least "
          "0.3; the true ε can be anything from 0.3 up, including 1. An audit can refute a claim only from "
          "above."),
         ("The claim is wrong: a correct 1-DP mechanism would make the audit find exactly 1.", False,
          "Tempting if you read the audit as a measurement. Finite runs and a test that may be weaker than the "
          "best one make the bound fall short of the true ε; with more runs and the optimal test it approaches "
          "a tight claim, never passes a correct one (except with probability ≤ 5%)."),
         ("Nothing: a lower bound below the claim is consistent with the claim, and proves nothing about it.",
          True, "Right: only a lower bound above the claimed ε refutes it. A bound below it neither confirms "
          "the claim (the mechanism could still be buggy in a way this test misses) nor refutes it.")])}

    def render(self, v) -> View:
        key, conf, trials = v.mechanism, float(v.confidence), v.trials
        case = A.AUDIT_CASES[key]
        grid, bounds, result = A.audit_case_curve(key, trials, conf, progress=self.report_progress)
        sample_x, sample_xp = case.sample(2000, A.SAMPLE_SEED)
        fig1 = P.audit_trials_figure(grid, bounds, case.claimed_epsilon, confidence=conf,
                                     exact_epsilon=case.exact_epsilon)
        fig2 = P.audit_outputs_figure(sample_x, sample_xp, threshold=None if result.discrete else result.threshold,
                                      direction=result.direction, discrete=result.discrete)
        self.report_progress(1.0)
        flagged = result.epsilon_lower > case.claimed_epsilon
        claim = f"ε = {case.claimed_epsilon:.3g}" + (f", δ = {case.claimed_delta:.0e}" if case.claimed_delta else "")
        verdict = (f"REFUTED at {conf:.0%} confidence: the implementation is not {claim}-DP (a correct one is "
                   f"refuted with probability at most {1 - conf:.0%})."
                   + (f" The planted bug: {case.bug}." if case.bug else "") if flagged else
                   "not refuted: consistent with the claim (which proves nothing about it).")
        rows = [("claimed", f"{claim} ({case.source})"),
                (f"runs counted: on x′ / on x (of {trials})", f"{result.positives} / {result.negatives}"),
                ("hits / false alarms", f"{result.true_positives} / {result.false_positives}"),
                (f"lower bound on ε ({conf:.0%})", f"{result.epsilon_lower:.3g}"),
                ("exact ε of this code on this x, x′ (computed, not audited)",
                 fmt(case.exact_epsilon, 3)),
                ("verdict", verdict)]
        return View(figures=[fig1, fig2], readout=table(rows))


# ============================================================================================ the lesson's problems

_ABADI = cite("abadi2016deep", "Alg. 1")
_KOV = cite("kairouz2015composition", "Thm 2.1")
_CP = cite("clopper1934use")
_JUO = cite("jagielski2020auditing")
_NASR = cite("nasr2021adversary")
_PLD = cite("koskela2020fft")
_BW = cite("balle2018gaussian", "Thm 8")

#: The find-a-setting task: at least this many steps, ε at most this at δ = 10⁻⁵ (PLD), and the noise on the averaged
#: gradient σ/L = z·C/L at most this (C = 1, L = q·1000).
TASK_STEPS, TASK_EPSILON, TASK_NOISE = 500, 1.0, 0.1


#: Problem 1: the exact error rates of an auditor's test, and what they prove (Kairouz, Oh & Viswanath 2015, Thm 2.1).
_AUDIT_ALPHA, _AUDIT_BETA = 0.02, 0.3
_AUDIT_RATIO = (1.0 - _DELTA - _AUDIT_BETA) / _AUDIT_ALPHA
_AUDIT_EPSILON = math.log(_AUDIT_RATIO)  # the larger of the two bounds: ≈ 3.5553
#: Its tempting wrong values: the other inequality alone (≈ 1.1838), ln(1/α) with the misses forgotten (≈ 3.912).
_AUDIT_OTHER = math.log((1.0 - _DELTA - _AUDIT_ALPHA) / _AUDIT_BETA)
_AUDIT_NO_MISSES = math.log(1.0 / _AUDIT_ALPHA)


def _problem_epsilon(v) -> float:
    """The PLD accountant's ε at δ = 10⁻⁵ for the problems panel's z, q, T (no closed form: the library's
    accountant, :func:`dpviz.dpsgd.dpsgd_epsilon`)."""
    return D.dpsgd_epsilon(float(v.noise_multiplier), float(v.sampling_rate), int(v.steps), _DELTA)


def _problem_noise(v) -> float:
    """σ/L = z·C/L with C = 1 and the public L = q·1000: the noise's standard deviation on each coordinate of the
    averaged gradient."""
    return float(v.noise_multiplier) / D.lesson_batch_size(float(v.sampling_rate))


def _task_holds(_panel, v) -> bool:
    """Problem 6: T ≥ 500 steps, ε ≤ 1 at δ = 10⁻⁵ (PLD) and σ/L ≤ 0.1."""
    return int(v.steps) >= TASK_STEPS and _problem_noise(v) <= TASK_NOISE and _problem_epsilon(v) <= TASK_EPSILON


_PROBLEMS = ProblemSet("Problems: DP-SGD and auditing", {
    "audit_bound": NumericAnswer(
        "An auditor's test guesses x′ on 2% of the runs on x (false-alarm rate α = 0.02) and misses x′ on 30% of "
        "the runs on x′ (miss rate β = 0.3). Take these as the exact error rates. If the mechanism is (ε, δ)-DP "
        "with δ = 10⁻⁵, what lower bound on ε do they prove?", _AUDIT_EPSILON,
        rel_tol=0.01, label="ε ≥",
        traps=[(_AUDIT_OTHER, "That is the other inequality, ln((1 − δ − α)/β): it holds too, but ε must satisfy "
                              "both, so the bound is the larger of the two."),
               (_AUDIT_NO_MISSES, "That is ln(1/α): the misses count too. The inequality is "
                                  "α + e<sup>ε</sup>β ≥ 1 − δ, so the misses use up part of 1 − δ: "
                                  "ε ≥ ln((1 − δ − β)/α)."),
               (_AUDIT_RATIO, "That is (1 − δ − β)/α itself: ε is its logarithm (the inequality is "
                              "α + e<sup>ε</sup>β ≥ 1 − δ, with e<sup>ε</sup>).")],
        solution=("Every test of an (ε, δ)-DP mechanism has α + e<sup>ε</sup>β ≥ 1 − δ and β + e<sup>ε</sup>α ≥ 1 − δ "
                  f"({_KOV}). Solved for ε: ε ≥ ln((1 − δ − β)/α) = ln(0.69999/0.02) = ln 34.9995 ≈ 3.555, and "
                  "ε ≥ ln((1 − δ − α)/β) = ln(0.97999/0.3) ≈ 1.184; the larger, 3.555, is the bound. An audit "
                  "would use Clopper–Pearson upper bounds on α and β instead of the observed rates "
                  f"({_CP}), and the bound would be lower."),
        notes=TeachingNotes(
            timing="3 min",
            wrong=("1.18: only the second inequality, ln((1 − δ − α)/β).",
                   "3.91: ln(1/α), the misses forgotten.",
                   "35: the ratio without its logarithm."),
            ask="What does the bound become if the rates came from 100 runs each? (Lower: Clopper–Pearson upper "
                "bounds replace α and β, and with few runs they are far above the observed rates.)")),
    "noise_average": NumericAnswer(
        "DP-SGD with clip norm C = 2, noise multiplier z = 1.5 and sampling rate q = 0.05 divides the noisy sum by "
        "the public expected batch size L = q·1000 = 50. What is the standard deviation of the noise on each "
        "coordinate of the averaged gradient?", 1.5 * 2.0 / 50.0, rel_tol=0.02, label="standard deviation:",
        traps=[(1.5 * 2.0, "That is σ = z·C, the noise on the <i>sum</i>. The step divides the sum, noise "
                           "included, by L."),
               (1.5 / 50.0, "That is z/L: σ = z·C, and C = 2 here."),
               (1.5 * 2.0 / 50.0 ** 0.5, "Tempting: averaging L independent noises shrinks them by √L. But "
                                         "DP-SGD adds one noise vector to the sum, not one per example: dividing "
                                         "it by L divides its standard deviation by L.")],
        solution=("The noise N(0, σ²·I) with σ = z·C = 3 is added once to the sum of the clipped gradients, and the "
                  f"sum is divided by L ({_ABADI}): each coordinate's noise is N(0, (σ/L)²), of standard deviation "
                  "z·C/L = 1.5·2/50 = 0.06. Each clipped gradient has norm at most C = 2, so with a batch near its "
                  "expected size L the averaged gradient has norm at most about 2, and the noise is small next to "
                  "it; with q = 0.01 (L = 10) it would be 0.3."),
        notes=TeachingNotes(
            timing="2 min",
            wrong=("3: σ = z·C, the noise on the sum, not on the average.",
                   "0.03: z/L, the clip norm forgotten.",
                   "0.42: z·C/√L, as if every example had its own noise."),
            ask="Halve q at fixed z: what happens to this noise, and to ε? (The noise doubles; ε falls, by "
                "amplification by subsampling.)")),
    "denominator": ChoiceProblem(
        "A DP-SGD implementation divides the noisy sum by q·n, with n the number of examples in the private data "
        "set, instead of a public L. Why does this break the guarantee its accountant reports?",
        [("The denominator depends on whether the extra example is in the data: the step is no longer the "
          "Gaussian mechanism the accountant analyses", True,
          "Right: on x and on x′ = x plus one example the step divides by different numbers, so the two output laws "
          "differ in mean by up to about 2C/(n + 1), twice the C/n the accountant assumed, and in variance too. "
          "On the lesson's counterexample ε is at least 12.57 where the accountant reports 4.38 (n = 10, z = 1, "
          "δ = 10⁻⁵). A public L, fixed before the data, makes the division post-processing."),
         ("It does not: dividing is post-processing, which never costs privacy", False,
          "Tempting, because dividing by the public L is post-processing. But post-processing must not look at "
          "the data again, and n is a function of the data: it is the one number the extra example changes."),
         ("It only reveals n, the size of the data set, which is harmless", False,
          "Tempting: the size seems an innocent number. But the harm is not n being released: dividing by n makes "
          "the two neighbours' output laws differ more than the accountant assumed, in mean and in variance, so "
          "the reported ε is simply wrong."),
         ("It matters only for small data sets: for large n, 1/n and 1/(n + 1) are the same", False,
          "Tempting: the two denominators differ by a vanishing fraction. But the noise on the average shrinks "
          "like 1/n too, and the mean still moves by about 2C/(n + 1), twice the sensitivity accounted: at "
          "n = 1000, z = 2, δ = 10⁻⁶ ε is at least 4.91 against a report of 2.25.")],
        solution=("Abadi et al.'s lot size L is a fixed public number (" + _ABADI + "). The alternative is to declare "
                  "n public, and then the neighbours must keep n fixed (replace-one), with replace-one accounting ("
                  + cite("lebeda2024avoiding") + ")."),
        notes=TeachingNotes(
            timing="3 min",
            wrong=("'Post-processing': the division treated as data-independent.",
                   "'Only n leaks': the harm placed in a released number rather than in the changed output laws.",
                   "'Fine for large n': the relative size of the mean shift against the noise overlooked."),
            ask="Dividing by the drawn batch size |B| instead of L: is that public? (No: |B| counts the kept "
                "examples, and the extra example changes it when sampled.)")),
    "not_covered": ChoiceProblem(
        "A team reports ε = 3 at δ = 10⁻⁵ from the PLD accountant for one DP-SGD run with Poisson sampling, per "
        "training example. Before that run they trained 20 settings of z and of the learning rate on the same "
        "data and kept the best; they release only the final model. Which statement is right?",
        [("The 3 does not cover the choice among the 20 runs", True,
          "Right: every tuning run looked at the data, and releasing the best of them is a selection among private "
          "candidates, which costs privacy beyond one run's ε (" + cite("liu2019private") + "; "
          + cite("papernot2022hyperparameter") + "). The accountant saw one run."),
         ("Releasing only the final model makes the true ε much smaller than 3", False,
          "Tempting: the adversary sees far less than the T models the accountant charges for, and audits that "
          "see only the final model find much weaker attacks (" + _NASR + "). But a weaker attack is not a proof: "
          "the release of the final model alone is not analysed here, and 3 is what is proven (it still holds, "
          "the final model being post-processing of all T)."),
         ("ε = 3 protects each person whose data are in the training set", False,
          "Tempting: “per example” sounds like “per person”. But the unit of privacy is one training example; a "
          "person with several examples is protected only as a group, at a larger ε (lesson 06)."),
         ("ε = 3 would hold as well with the data shuffled into fixed-size batches", False,
          "Tempting: the batches have the same size on average and the same noise. But the accountant assumed "
          "Poisson sampling; shuffled fixed-size batches are another mechanism, and "
          + cite("chua2024how") + " show a substantial gap between the two.")],
        notes=TeachingNotes(
            timing="3 min",
            wrong=("'Smaller for the final model': a weaker attack taken for a proof.",
                   "'Per person': the unit of privacy read as a person, not an example.",
                   "'Any batching': the sampling the accountant assumed forgotten."),
            ask="What would the team have to report to cover the tuning? (A guarantee for the whole procedure: "
                "the tuning runs composed, or a private selection among them.)")),
    "refute": ChoiceProblem(
        "An implementation of a DP-SGD step claims (ε, δ) = (1.63, 10⁻⁵). An audit of it on 10 000 runs finds "
        "the lower bound ε ≥ 3 at 95% confidence. What follows?",
        [("The claim is refuted at 95% confidence: the code is not (1.63, 10⁻⁵)-DP", True,
          "Right: a valid lower bound above the claim refutes it, and the audit is wrong with probability at most "
          "5% (Clopper–Pearson bounds on both rates, " + _CP + "; the recipe of " + _JUO + " and " + _NASR
          + "). Something is broken: the code or the analysis."),
         ("The mechanism's true ε is 3", False,
          "Tempting if you read the audit as a measurement. It is a lower bound: the true ε is at least 3 and can "
          "be far larger; the lesson's DP-SGD step without clipping has exact ε 97.8 on the auditor's pair."),
         ("Nothing: an audit can never prove anything about a mechanism", False,
          "Tempting, because an audit can never prove a claim. But it can refute one: a bound above the claim is "
          "evidence, with the stated confidence, that the claim is false."),
         ("More runs would bring the bound below 1.63: the claim may still hold", False,
          "Tempting: more data can change a conclusion. But the bound holds with 95% confidence at any number of "
          "runs; more runs narrow the Clopper–Pearson bounds and usually raise the lower bound on ε.")],
        solution=("Every test obeys α + e<sup>ε</sup>β ≥ 1 − δ and β + e<sup>ε</sup>α ≥ 1 − δ (" + _KOV + "); "
                  "with upper confidence bounds α⁺, β⁺ in place of α and β the bound holds with the stated "
                  "confidence, so a bound above the claim contradicts it."),
        notes=TeachingNotes(
            timing="2 min",
            wrong=("'The true ε is 3': the lower bound read as a measurement.",
                   "'Audits prove nothing': refuting confused with proving.",
                   "'More runs would lower it': the confidence statement misread."),
            ask="And if the audit had found ε ≥ 0.7? (Nothing follows: a bound below the claim neither confirms "
                "nor refutes it.)")),
    "setting": FindSetting(
        "Set z, q and T so that the run has at least T = 500 steps, spends ε ≤ 1 at δ = 10⁻⁵ (PLD accountant), "
        "and keeps the noise on the averaged gradient small: σ/L = z·C/L ≤ 0.1, with C = 1 and L = q·1000.",
        _task_holds, live=True,
        hint="Lowering q lowers ε (amplification by subsampling) but raises σ/L = z/(q·1000). Keep z/q ≤ 100, and "
             "look along z = 100·q for the smallest ε.",
        solution=("For example z = 5, q = 0.050 (the slider's 10<sup>−1.3</sup> ≈ 0.0501, L = 50.1), T = 500: "
                  "σ/L = 5/50.1 ≈ 0.0998 and the PLD accountant "
                  "gives ε ≈ 0.84 at δ = 10⁻⁵ (" + _PLD + "; no closed form: the library's PLD accountant). "
                  "Along z = 100·q, at T = 500, ε falls as q grows: 1.33 at q = 0.01, z = 1 (L = 10), 0.84 at "
                  "q = 0.05, z = 5. With the noise on the average held fixed, larger batches with more noise "
                  "spend less. At T = 1000 no setting of these sliders does it."),
        notes=TeachingNotes(
            timing="5 min",
            wrong=("q at its smallest, 0.01, with z large: ε is small but σ/L = z/10 exceeds 0.1 unless z ≤ 1, "
                   "and then ε ≈ 1.33.",
                   "T pushed to 1000: ε grows with T, and no setting of the sliders reaches ε ≤ 1 there."),
            ask="Why does the smallest q not win here? What does holding σ/L fixed do to the noise multiplier "
                "each step's privacy sees?")),
    "clip_proof": ProofIdea(
        "Under add/remove-one neighbours, why is the ℓ₂ sensitivity of the sum of clipped gradients at most C, "
        "whatever the data? Write the key step, or pick it.",
        "Let x′ be x plus one example, with gradient g<sub>i</sub> at the current θ (the same θ on both: it is the "
        "previous step's output). With the same Poisson coins for the examples of x, the batch of x′ is the batch "
        "of x, or that batch plus the extra example. Every other example's clipped gradient is the same on both "
        "sides, so the two sums are equal or differ by the one clipped gradient g<sub>i</sub>·min(1, "
        "C/‖g<sub>i</sub>‖), whose norm is min(‖g<sub>i</sub>‖, C) ≤ C. Hence the ℓ₂ sensitivity is C, whatever "
        "the data, and the noise N(0, σ²·I) with σ = z·C makes the step the Gaussian mechanism with noise "
        "multiplier z = σ/C (" + _ABADI + "; " + _BW + "), run on a Poisson sample, which the accountant analyses. "
        "Under replace-one neighbours the two sums differ by two clipped gradients, and the bound is 2C.",
        steps=[("the two sums differ by one clipped gradient, of norm min(‖gᵢ‖, C) ≤ C", True,
                "Right: only the extra example's term differs, and clipping caps its norm at C, whatever its "
                "gradient was."),
               ("each clipped gradient has norm ≤ C, so the sum has norm ≤ |B|·C", False,
                "Tempting: it bounds how large the sum is. But sensitivity is how far one example moves the sum "
                "between neighbours; |B|·C grows with the batch and would call for noise that grows with it."),
               ("the noise σ = z·C grows with C, so it covers any gradient", False,
                "Tempting: C is in the noise. But calibrating σ to C uses the bound, it does not prove it: without "
                "clipping the same σ is added and one example with a huge gradient moves the sum arbitrarily far "
                "(the lesson's unclipped step has exact ε 97.8 on the auditor's pair)."),
               ("dividing by L shrinks the change to C/L", False,
                "Not the key step: dividing by the public L rescales the sum and its noise alike, so it changes "
                "neither their ratio nor ε. The bound on the sum comes first.")],
        notes=TeachingNotes(
            timing="6 min (pairs, then one pair at the board)",
            wrong=("'The sum is at most |B|·C': size confused with sensitivity.",
                   "'The noise is proportional to C': calibration taken for the bound it relies on."),
            ask="Where does the proof use that θ is the same on x and on x′? (The gradients of the shared "
                "examples are equal only at the same θ; over T steps, composition handles θ's dependence on the "
                "past outputs.)")),
}, intro="Each problem is checked as soon as you answer; a wrong answer can be tried again, and the solution opens "
         "after your first attempt. Problem 6 is about this panel's settings.")


class AuditingProblemsPanel(Panel):
    """The lesson's problem set, with the ε that DP-SGD spends at the chosen z, q and T for its find-a-setting task
    (accountants only: no training, so it is fast)."""

    title = "Problems: DP-SGD and auditing"
    intro = ("The figure shows the ε at δ = 10⁻⁵ that T DP-SGD steps with noise multiplier z and sampling rate q "
             "spend, per example with add/remove-one neighbours (the RDP accountant at a few steps, the PLD "
             "accountant at T), and the readout the noise on the averaged gradient σ/L, with C = 1 and the "
             "public L = q·1000 (" + _ABADI + ").")

    controls = {
        "noise_multiplier": Slider("noise multiplier z", 1.0, 0.3, 5.0, step=0.1),
        "sampling_rate": LogSlider("sampling rate q", 0.05, 1e-2, 1.0, step=0.1, fmt=".3f"),
        "steps": IntSlider("steps T", 200, 10, 1000, step=10),
    }
    exercises = {"problems": _PROBLEMS}

    def _view(self, v, checkpoints, rdp, pld) -> View:
        T = int(v.steps)
        fig = P.epsilon_steps_figure(checkpoints, rdp, pld, T, delta=_DELTA)
        shown = "computing…" if pld is None else fmt(pld)
        rows = [(f"ε at δ = {_DELTA:.0e} after T = {T} steps: RDP / PLD", f"{fmt(rdp[-1])} / {shown}"),
                ("public expected batch size L = q·1000", fmt(D.lesson_batch_size(float(v.sampling_rate)))),
                ("noise on the averaged gradient σ/L = z·C/L (C = 1)", fmt(_problem_noise(v)))]
        return View(figures=[fig], readout=table(rows))

    def render(self, v):
        """Streamed: the RDP accountant's curve first (milliseconds), then the PLD accountant's ε at T, which takes
        a tenth of a second or more for a new (z, q, T)."""
        z, q, T = float(v.noise_multiplier), float(v.sampling_rate), int(v.steps)
        checkpoints = sorted({max(1, round(T * k / 4)) for k in range(1, 5)})
        rdp = [D.dpsgd_epsilon(z, q, t, _DELTA, accountant="rdp") for t in checkpoints]
        yield Step(1, 2, lambda: self._view(v, checkpoints, rdp, None), unit="accountants (RDP first)")
        yield Step(2, 2, lambda: self._view(v, checkpoints, rdp, _problem_epsilon(v)), unit="accountants (RDP first)")
