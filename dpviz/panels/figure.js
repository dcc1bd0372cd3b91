// The front end of dpviz's plotly figures under `python -m dpviz.app` (see figure_widget in _base.py).
//
// It speaks plotly's FigureWidget protocol (the same model traits as plotly's own front end: the figure in
// _widget_data/_widget_layout, then the changes the kernel sends in _py2js_*; a zoom or a legend click goes back in
// _js2py_*), but draws with plotly.js's cartesian bundle: the only trace types the lessons use are scatter, bar
// and heatmap, and that bundle is evaluated in ~0.6 s on the 2-core development machine where plotly's widget
// bundle (all of plotly.js: maps, 3-D, ...) took ~1.3 s of the page's main thread before any figure could draw.
//
// anywidget gives a model 2 s to load its module and run `initialize`; plotly.js can take longer to arrive (a slow
// network to a classroom server). So `initialize` returns at once and keeps the figure (data and layout) up to date
// with every change, as plain data; `render` waits for plotly.js and for its box to be in the page with a width
// (a figure drawn before takes plotly's default 700 px and keeps it), then draws the figure as it is now.
const PLOTLY = import(new URL(__URL__, document.baseURI).href).then(() => window.Plotly);

const sized = (el) => new Promise((resolve) => {
  const placed = () => el.isConnected && el.getBoundingClientRect().width > 0;
  if (placed()) { resolve(); return; }
  const watch = new ResizeObserver(() => { if (placed()) { watch.disconnect(); resolve(); } });
  watch.observe(el);
});

// ---- plotly.py's wire format -----------------------------------------------------------------------------------
const TYPED = { int8: Int8Array, int16: Int16Array, int32: Int32Array, uint8: Uint8Array, uint16: Uint16Array,
                uint32: Uint32Array, float32: Float32Array, float64: Float64Array };

// A value as the kernel sent it → plain data: 1-D numpy arrays (a binary buffer with its dtype) become typed
// arrays; "_undefined_" (this trace leaves the property alone) becomes undefined.
const decode = (value) => {
  if (value === "_undefined_") return undefined;
  if (Array.isArray(value)) return value.map(decode);
  if (value && typeof value === "object" && !ArrayBuffer.isView(value)) {
    const raw = value.buffer ?? value.value;
    if (raw !== undefined && typeof value.dtype === "string" && "shape" in value && TYPED[value.dtype]) {
      const T = TYPED[value.dtype];
      const view = ArrayBuffer.isView(raw) ? raw : new DataView(raw);
      return new T(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decode(v)]));
  }
  return value;
};

// ---- plotly.js's update semantics on plain data (for views drawn later) ----------------------------------------
// "a.b[2].c" → ["a", "b", 2, "c"]
const parts = (path) => path.split(".").flatMap((p) => {
  const m = p.match(/^([^[\]]*)((\[\d+\])*)$/);
  if (!m) return [p];
  const head = m[1] ? [m[1]] : [];
  return head.concat([...m[2].matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1])));
});

const setPath = (obj, path, value) => {
  const keys = parts(path);
  let o = obj;
  for (let i = 0; i < keys.length - 1; i++) {
    if (o[keys[i]] === null || typeof o[keys[i]] !== "object") {
      if (value === null) return; // nothing to remove
      o[keys[i]] = typeof keys[i + 1] === "number" ? [] : {};
    }
    o = o[keys[i]];
  }
  const last = keys[keys.length - 1];
  if (value === null) delete o[last];
  else o[last] = value;
};

const relayoutLike = (layout, changes) => {
  for (const [path, value] of Object.entries(changes || {})) {
    if (value !== undefined && !path.startsWith("_")) setPath(layout, path, value);
  }
};

const restyleLike = (data, changes, traces) => {
  for (const [path, values] of Object.entries(changes || {})) {
    if (path.startsWith("_")) continue;
    const list = Array.isArray(values) ? values : [values];
    traces.forEach((t, i) => {
      const value = list[i % list.length];
      if (value !== undefined && data[t]) setPath(data[t], path, value);
    });
  }
};

const indexes = (traces, data) => (traces === null || traces === undefined ? data.map((_, i) => i)
  : Array.isArray(traces) ? traces : [traces]);

const clone = (value) => structuredClone(value);

// Steady margins. plotly's automargin sizes a figure's margins to its tick labels; a slider move that changes them
// (0.25 → 0.5, 10 → 100) changes the margins, and plotly.js then draws the whole figure a second time in the same
// update (plots.doAutoMargin calls _doPlot again): twice the work, and the plot area jumps sideways under the
// learner's hand. So an update from the kernel keeps the view's margins at least as wide as they are drawn now
// (plotly still widens them when labels need more room, and a view drawn later starts afresh), unless the kernel
// sets margins itself or a legend or title reserves room of its own (plotly adds that on top of the margins).
// (Exported for benchmarks/panels/redraw.py, which replays updates the way this module applies them.)
const setsMargins = (layout) => Object.entries(layout)
  .some(([k, v]) => (k === "margin" || k.startsWith("margin.")) && v !== undefined);

export const steady = (gd, layout) => {
  const full = gd._fullLayout, size = full && full._size;
  if (!size || setsMargins(layout)) return layout;
  if (Object.values(full._reservedMargin || {}).some((m) => Object.values(m).some((v) => v > 0))) return layout;
  return { ...layout, "margin.l": size.l, "margin.r": size.r, "margin.t": size.t, "margin.b": size.b };
};

// Annotations and shapes drawn once. An update that replaces the whole list of a figure's annotations or shapes
// (the kernel sends them whole) makes plotly.js draw that list at once, inside its relayout, and then again in the
// full redraw the same update makes: its relayout means to leave them to that redraw, but asks flags that no longer
// exist (`flags.replot || flags.recalc` in applyContainerArrayChanges; relayout's flags are `plot` and `calc`).
// Lesson 14's figures spent ~8 ms of a ~70 ms update on that first drawing. So when an update certainly redraws
// the whole figure (new x, y or z: a recalculation; or margins set: a new layout, as `steady` sets them), those
// lists go straight into the view's layout, where that redraw reads them, and are drawn once.
const REDRAWS_ALL = ["x", "y", "z"];
const LISTS = ["annotations", "shapes"];
const given = (v) => (Array.isArray(v) ? v.some((x) => x !== undefined) : v !== undefined);
const once = (gd, style, layout) => {
  const whole = Object.entries(style || {}).some(([k, v]) => REDRAWS_ALL.includes(k) && given(v)) || setsMargins(layout);
  const lists = Object.keys(layout).filter((k) => LISTS.includes(k) && layout[k] !== undefined);
  if (!whole || !lists.length || !gd.layout) return layout;
  const rest = { ...layout };
  for (const k of lists) {
    if (rest[k] === null) delete gd.layout[k]; // as plotly.js removes a list set to null
    else gd.layout[k] = rest[k];
    delete rest[k];
  }
  return rest;
};

// The layout edit an update hands plotly.js: margins kept steady, whole lists drawn once.
export const layoutEdit = (gd, style, layout) => once(gd, style, steady(gd, layout));

// Each drawing shown before the next one starts. Changes arrive as WebSocket messages; when several are waiting
// (a panel's two or three figures, or a streamed panel's next partial result), the browser runs them back to back
// and paints only after the last: a learner saw a panel's first figure change only once all of them were drawn
// (lesson 10's DP-SGD: three drawings of ~20 ms, the first figure's change painted ~50 ms after it was drawn). So
// a drawing that follows another drawing in the same frame waits until that frame is painted (a task queued from
// an animation frame callback runs after the paint). One chain for the page, in arrival order. A hidden page
// paints nothing (and gets no animation frames): there drawings follow each other at once.
// (anywidget evaluates this module once per figure, so the page's chain lives on the window, shared by all.)
const pace = (window.__dpvizPace ??= { draws: Promise.resolve(), drewThisFrame: false });
const PACE_LIMIT_MS = 2000;
const afterPaint = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
const paced = (draw) => {
  const previous = pace.draws;
  let release; // lets the next drawing start: when this one has finished, or PACE_LIMIT_MS after it began
  pace.draws = new Promise((resolve) => { release = resolve; });
  const turn = previous.then(async () => {
    if (pace.drewThisFrame && document.visibilityState === "visible") await afterPaint();
    pace.drewThisFrame = true;
    requestAnimationFrame(() => setTimeout(() => { pace.drewThisFrame = false; }, 0));
    setTimeout(release, PACE_LIMIT_MS); // a drawing that never finishes holds the others back no longer
    return draw();
  });
  turn.then(release, release);
  return turn;
};

export default () => {
  let figure; // the figure as it is now: {data, layout}
  let seq = 0; // changes received so far
  const views = new Set();

  // Each change: into the figure first (a view drawn later starts from it), then into every view drawn.
  const changes = {
    _py2js_update(msg) {
      const style = decode(msg.style_data) || {}, layout = decode(msg.layout_data) || {};
      const traces = indexes(msg.style_traces, figure.data);
      restyleLike(figure.data, style, traces);
      relayoutLike(figure.layout, layout);
      return (P, view) => P.update(view.gd, { ...clone(style), _doNotReportToPy: true },
                                   layoutEdit(view.gd, style, clone(layout)), traces);
    },
    _py2js_restyle(msg) {
      const style = decode(msg.restyle_data) || {}, traces = indexes(msg.restyle_traces, figure.data);
      restyleLike(figure.data, style, traces);
      return (P, view) => (msg.source_view_id === view.id ? null
        : P.restyle(view.gd, { ...clone(style), _doNotReportToPy: true }, traces));
    },
    _py2js_relayout(msg) {
      const layout = decode(msg.relayout_data) || {};
      relayoutLike(figure.layout, layout);
      return (P, view) => (msg.source_view_id === view.id ? null
        : P.relayout(view.gd, { ...clone(layout), _doNotReportToPy: true }));
    },
    _py2js_addTraces(msg) {
      const traces = decode(msg.trace_data) || [];
      figure.data.push(...clone(traces));
      return (P, view) => P.addTraces(view.gd, clone(traces));
    },
    _py2js_deleteTraces(msg) {
      const gone = [...msg.delete_inds].sort((a, b) => b - a);
      gone.forEach((i) => figure.data.splice(i, 1));
      return (P, view) => P.deleteTraces(view.gd, msg.delete_inds);
    },
    _py2js_moveTraces(msg) {
      const from = msg.current_trace_inds, to = msg.new_trace_inds;
      const moved = from.map((i) => figure.data[i]);
      [...from].sort((a, b) => b - a).forEach((i) => figure.data.splice(i, 1));
      to.map((t, k) => [t, moved[k]]).sort((a, b) => a[0] - b[0]).forEach(([t, trace]) => figure.data.splice(t, 0, trace));
      return (P, view) => P.moveTraces(view.gd, from, to);
    },
    _py2js_animate(msg) {
      const style = decode(msg.style_data) || [], layout = decode(msg.layout_data) || {};
      const traces = indexes(msg.style_traces, figure.data);
      traces.forEach((t, k) => relayoutLike(figure.data[t], style[k]));
      relayoutLike(figure.layout, layout);
      return (P, view) => P.animate(view.gd, { data: clone(style), layout: clone(layout), traces },
                                    msg.animation_opts || {});
    },
  };

  return {
    initialize({ model }) {
      figure = { data: decode(model.get("_widget_data")) || [], layout: decode(model.get("_widget_layout")) || {} };
      for (const [name, apply] of Object.entries(changes)) {
        model.on(`change:${name}`, () => {
          const msg = model.get(name);
          if (msg === null || msg === undefined) return; // the kernel clears each message after sending it
          const n = ++seq;
          const draw = apply(msg);
          // In order, each after the previous one finished; a view drawn from a figure that already had this
          // change skips it; a change plotly.js refuses is reported and the next ones still apply.
          for (const view of views) {
            view.queue = view.queue
              .then(() => (view.live && n > view.seq
                ? PLOTLY.then((P) => paced(() => (view.live ? draw(P, view) : null))) : null))
              .catch((e) => console.error(`dpviz figure: plotly.js refused ${name}:`, e));
          }
        });
      }
    },

    async render({ model, el }) {
      // plotly draws into the view's own element, as plotly's front end does (same page structure).
      const view = { id: Math.random().toString(36).slice(2), gd: el, live: true, seq: Infinity };
      // Changes that arrive from here on wait for this first drawing, then follow in order.
      let drawn;
      view.queue = new Promise((resolve) => { drawn = resolve; });
      views.add(view);
      const P = await PLOTLY;
      await sized(el);
      if (view.live) {
        const layout = clone(figure.layout);
        if (!layout.height) layout.height = 360; // as plotly's own front end
        view.seq = seq; // the figure drawn has every change so far
        await P.newPlot(view.gd, clone(figure.data), layout, { ...model.get("_config"), editSelection: false });
        // A zoom, a pan or a legend click goes back to the kernel (its figure follows); changes the kernel sent
        // carry _doNotReportToPy and are not echoed.
        const send = (name, value) => { model.set(name, value); model.save_changes(); };
        view.gd.on("plotly_relayout", (d) => {
          if (d && !("_doNotReportToPy" in d)) send("_js2py_relayout", { relayout_data: d, source_view_id: view.id });
        });
        view.gd.on("plotly_restyle", (d) => {
          if (d && !(d[0] && "_doNotReportToPy" in d[0])) {
            send("_js2py_restyle", { style_data: d[0], style_traces: d[1], source_view_id: view.id });
          }
        });
        view.gd.on("plotly_update", (d) => {
          if (d && !(d.data && d.data[0] && "_doNotReportToPy" in d.data[0])) {
            send("_js2py_update", { style_data: d.data[0], style_traces: d.data[1], layout_data: d.layout,
                                    source_view_id: view.id });
          }
        });
      }
      drawn();
      return () => {
        view.live = false;
        views.delete(view);
        P.purge(view.gd);
      };
    },
  };
};
