"""Lesson 10 "DP-SGD and auditing": three panels.

* :class:`DPSGDPanel` — train a logistic regression live with DP-SGD; accuracy against steps, and the ε the RDP and
  PLD accountants give (slow: streamed, the run so far shown every quarter), with a predict-then-reveal exercise;
* :class:`NeighbourGamePanel` — the learner is the adversary of one DP-SGD step: guess x or x′ from the output;
  the tally becomes a lower bound on ε (the game itself is :class:`dpviz.audit.NeighbourGame`);
* :class:`AuditPanel` — the computer plays the game thousands of times on correct mechanisms and on mechanisms
  with planted bugs (slow: progress bar), with a misconception exercise.

Notation as in the lesson: z is DP-SGD's noise multiplier, σ = z·C the noise's standard deviation.
"""

from __future__ import annotations

import functools
import html
import logging
import time
from typing import Any

import numpy as np

from dpviz import audit as A
from dpviz import dpsgd as D
from dpviz._validation import as_rng
from dpviz.panels import Action, Choice, ChoiceReveal, IntSlider, LogSlider, Panel, PredictReveal, Slider, Step, View
from dpviz.panels import guard as G
from dpviz.panels.classfeed import ClassBox, ClassFeedError, class_feed, plain_title, pooled_text, running_loop
from dpviz.panels.format import fmt, table
from dpviz.plots import auditing as P

__all__ = ["DPSGDPanel", "NeighbourGamePanel", "AuditPanel"]

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
