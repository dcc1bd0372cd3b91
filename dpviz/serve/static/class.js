// The teacher's live view (/dpviz/class): polls state.json every second and redraws only what changed. Every text
// comes from the server's JSON and is set with textContent: nothing a student submitted is parsed as HTML.
(function () {
  "use strict";
  const config = JSON.parse(document.getElementById("dpviz-class-config").textContent);
  // Under JupyterHub the page carries the token (the hub's login opened it); else the page's address does.
  const token = config.token || new URLSearchParams(location.search).get("token") || "";
  const headers = { "X-Dpviz-Teacher": token, "Content-Type": "application/json" };
  const $ = (id) => document.getElementById(id);
  let revision = null;

  const projector = $("dpviz-projector");
  if (projector) {
    const on = document.body.classList.contains("projector");
    projector.href = (config.token ? "?" : "?token=" + encodeURIComponent(token) + "&") + "projector=" + (on ? "0" : "1");
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  const fmt = (x, d) => (Number.isFinite(x) ? x.toFixed(d === undefined ? 1 : d) : "–");
  const eps = (x) => (Number.isFinite(x) ? (Math.round(x * 1000) / 1000).toString() : "–");

  function bars(release, correct) {
    const grid = el("div", "dpviz-bars");
    const top = Math.max(1, ...release.high.map((h) => (Number.isFinite(h) ? h : 0)), ...release.counts);
    release.labels.forEach((label, i) => {
      const right = correct.includes(i);
      const name = el("div", "dpviz-label" + (right ? " dpviz-correct" : ""), (right ? "✓ " : "") + label);
      const track = el("div", "dpviz-track");
      track.setAttribute("role", "img");
      const c = release.counts[i], lo = release.low[i], hi = release.high[i];
      track.setAttribute("aria-label", `${label}: ${fmt(c)} (95 % interval ${fmt(lo)} to ${fmt(hi)})`);
      const bar = el("div", "dpviz-bar" + (right ? " dpviz-right" : ""));
      bar.style.width = (100 * Math.max(0, c) / top) + "%";
      const ci = el("div", "dpviz-ci");
      const a = Math.max(0, lo) / top, b = Math.max(0, hi) / top;
      ci.style.left = (100 * a) + "%";
      ci.style.width = Math.max(0.5, 100 * (b - a)) + "%";
      track.append(bar, ci);
      const se = release.standard_errors ? ` ± ${fmt(release.standard_errors[i])}` : "";
      const value = el("div", "dpviz-value", `${fmt(c)}${se}  [${fmt(lo)}, ${fmt(hi)}]`);
      grid.append(name, track, value);
    });
    return grid;
  }

  function exercise(ex, state) {
    const box = el("section", "dpviz-exercise");
    box.dataset.exercise = ex.exercise;
    box.append(el("h2", null, ex.title || ex.exercise));
    const answers = `${ex.answers} answer(s)` + (state.ended ? " (the class has ended)" : "");
    const spent = state.privacy === "central"
      ? `ε spent on it: ${eps(ex.epsilon_spent)} in ${ex.releases} release(s)`
      : `each answer randomized with ε = ${eps(ex.epsilon_spent)}`;
    box.append(el("div", "dpviz-meta", `${ex.lesson ? "lesson " + ex.lesson + " · " : ""}${answers} · ${spent}`));
    const r = ex.release;
    if (r) {
      box.append(bars(r, ex.correct));
      const when = new Date(r.released_at * 1000).toLocaleTimeString();
      const what = r.privacy === "central"
        ? `released at ${when} with ε = ${eps(r.epsilon)} from ${r.n} answers (discrete Laplace, scale ${eps(2 / r.epsilon)})`
        : `estimated from ${r.n} randomized answers (ε = ${eps(r.epsilon)} each), updated ${when}; each count ± its ` +
          `standard error`;
      box.append(el("div", "dpviz-meta", what + "; the bars show 95 % intervals"));
      if (ex.correct.length) {
        box.append(el("div", "dpviz-meta", "correct: " + ex.correct.map((i) => ex.labels[i]).join(" or ")));
      }
    } else {
      box.append(el("div", "dpviz-meta", state.privacy === "central" ? "not released yet" : "no answers yet"));
    }
    if (state.privacy === "central" && !state.ended) {
      const b = el("button", "dpviz-release", `Release with ε = ${eps(state.budget.release_epsilon)}`);
      b.type = "button";
      b.disabled = !ex.answers || state.budget.remaining < state.budget.release_epsilon;
      b.addEventListener("click", () => release(ex.exercise, b));
      box.append(b);
    }
    return box;
  }

  function game(g) {
    const box = el("section", "dpviz-exercise dpviz-game");
    box.dataset.exercise = g.exercise;
    box.append(el("h2", null, g.title || "The neighbouring-dataset game"));
    box.append(el("div", "dpviz-meta", `${g.players} player(s): ${g.correct_on_x} of ${g.rounds_on_x} right on x, ` +
      `${g.correct_on_x_prime} of ${g.rounds_on_x_prime} right on x′`));
    box.append(el("p", "dpviz-game-bound",
      `Pooled ${Math.round(g.confidence * 100)} % lower bound: ε ≥ ${fmt(g.bound, 2)}; claimed ε = ${fmt(g.claimed_epsilon, 2)} ` +
      `(δ = ${g.delta}).`));
    box.append(el("div", "dpviz-meta",
      `With ${Math.min(g.rounds_on_x, g.rounds_on_x_prime)} rounds per dataset, even perfect guesses could prove at ` +
      `most ε ≥ ${fmt(g.ceiling, 2)}: a bound below the claim does not show the claim is right.`));
    return box;
  }

  function draw(state) {
    const b = state.budget;
    $("dpviz-budget").textContent = state.privacy === "central"
      ? `Central privacy · class budget ε = ${eps(b.total)}: spent ${eps(b.spent)}, ${eps(b.remaining)} left.` +
        (state.ended ? " The class has ended: the raw answers are deleted; the releases stay." : "")
      : `Local privacy · every answer is randomized in the student's kernel with ε = ${eps(state.report_epsilon)}; ` +
        `the view costs nothing more.` + (state.ended ? " The class has ended." : "");
    const list = $("dpviz-exercises");
    list.replaceChildren(...state.exercises.map((ex) => exercise(ex, state)));
    if (!state.exercises.length) list.append(el("p", null, "No answers yet: they appear here as students press Reveal."));
    $("dpviz-games").replaceChildren(...state.games.map(game));
    $("dpviz-end").disabled = state.ended;
  }

  async function poll() {
    try {
      const r = await fetch(config.state, { headers, cache: "no-store" });
      if (!r.ok) throw new Error(`the server answered ${r.status}`);
      const state = await r.json();
      if (state.revision !== revision || state.ended) {
        revision = state.revision;
        draw(state);
      }
      $("dpviz-status").textContent = "Live: updated " + new Date().toLocaleTimeString();
      $("dpviz-status").classList.remove("dpviz-error");
    } catch (e) {
      $("dpviz-status").textContent = "Not reachable right now (" + e.message + "); retrying.";
      $("dpviz-status").classList.add("dpviz-error");
    }
    setTimeout(poll, 1000);
  }

  async function post(url, body) {
    const r = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
    const value = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(value.error || `the server answered ${r.status}`);
    return value;
  }

  async function release(exercise, button) {
    button.disabled = true;
    try {
      const out = await post(config.release, { exercise });
      if (out.refused) $("dpviz-status").textContent = "Refused: " + out.reason + " The last release is kept.";
      revision = null;
    } catch (e) {
      $("dpviz-status").textContent = "Release failed: " + e.message;
    }
  }

  $("dpviz-end").addEventListener("click", async () => {
    if (!confirm("End the class? The raw answers are deleted for good; the releases stay.")) return;
    try { await post(config.end, {}); revision = null; } catch (e) { $("dpviz-status").textContent = e.message; }
  });

  poll();
})();
