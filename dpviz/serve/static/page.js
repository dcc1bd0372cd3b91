// dpviz's page script, loaded by every lesson page (templates/dpviz/index.html.j2) before Voilà's own scripts:
// plotly.js fetched early, accessible names and a phone layout for the figures, a notice when the lesson's kernel
// has stopped. Each part is an independent function.
// plotly.js (its cartesian bundle, 1.5 MB), fetched and evaluated as soon as the page starts, while Voilà loads its
// scripts and connects to the kernel; the figures' modules then find it in the page's module map, where otherwise
// the first figure's model asked for it only once the widgets' state had arrived (fetching and evaluating it took
// ~0.7 s of the page's CPU on the way to the first figure). A dynamic import, not a <script type="module">: that
// would hold back the page's load event, which Voilà waits for before it renders any widget, so a slow download
// would have hidden the controls too. A failed early load is left to the figures' own import to report. (Drawn
// that early, a figure could be drawn before Voilà had placed its view: the figure module waits for its box, see
// dpviz/panels/figure.js.)
(function () {
  var bundle = document.currentScript && document.currentScript.dataset.dpvizBundle;
  if (bundle) import(new URL(bundle, document.baseURI).href).catch(function () {});
})();

/* Accessible names the widgets do not give themselves: each slider handle, text box and drop-down is named by
   its visible label; each figure is an image named by its title and axis titles. Re-applied as widgets render. */
(function () {
  function textOf(el) { return el ? (el.textContent || "").replace(/\s+/g, " ").trim() : ""; }
  function name(root) {
    root.querySelectorAll('[role="slider"], input, select, textarea').forEach(function (el) {
      if (el.getAttribute("aria-label") || el.getAttribute("aria-labelledby") || el.type === "hidden") return;
      var box = el.closest(".widget-inline-hbox, .jupyter-widgets.widget-inline-hbox, .widget-radio, .widget-box");
      var label = box && box.querySelector("label.widget-label, .widget-label");
      var text = textOf(label) || el.getAttribute("placeholder") || "";
      if (text) el.setAttribute("aria-label", text.replace(/:$/, ""));
    });
    root.querySelectorAll(".jp-RenderedHTMLCommon, .jp-RenderedHTMLCommon table, .jp-RenderedHTMLCommon pre, " +
                          ".dpviz-panel .widget-html-content, .dpviz-panel .widget-html-content table").forEach(
      function (el) {  /* a box that scrolls sideways can be scrolled with the keyboard */
        var o = getComputedStyle(el).overflowX;
        if ((o === "auto" || o === "scroll") && el.scrollWidth > el.clientWidth + 1 && !el.hasAttribute("tabindex")) {
          el.setAttribute("tabindex", "0");
          el.setAttribute("role", "region");
          el.setAttribute("aria-label", el.tagName === "TABLE" ? "table (scrolls sideways)" : "text (scrolls sideways)");
        }
      });
    root.querySelectorAll(".js-plotly-plot").forEach(function (fig) {
      var title = textOf(fig.querySelector(".gtitle"));
      var axes = Array.prototype.map.call(fig.querySelectorAll(".xtitle, .ytitle"), textOf).filter(Boolean);
      var label = "Figure" + (title ? ": " + title : "") + (axes.length ? " (axes: " + axes.join("; ") + ")" : "");
      if (fig.getAttribute("aria-label") !== label) {
        fig.setAttribute("role", "figure");
        fig.setAttribute("aria-label", label);
      }
    });
  }
  /* Narrow screens (phones, < 600 px): wrap long titles and captions, move a legend from the right side (where
     it squeezes the plot to a sliver) above the plot, and grow the margins and the height to fit. Applied after
     every redraw; the sizes added are remembered so that a redraw never adds them twice. */
  var NARROW = 600;
  function lines(t) { return String(t).split(/<br\s*\/?>/i).length; }
  function wrap(text, width) {
    if (typeof text !== "string" || width < 8) return text;
    return text.split(/<br\s*\/?>/i).map(function (line) {
      var plain = line.replace(/<[^>]+>/g, "");
      if (plain.length <= width) return line;
      var out = [], cur = "", curLen = 0;
      line.split(" ").forEach(function (word) {
        var len = word.replace(/<[^>]+>/g, "").length;
        if (curLen && curLen + 1 + len > width) { out.push(cur); cur = word; curLen = len; }
        else { cur = curLen ? cur + " " + word : word; curLen += (curLen ? 1 : 0) + len; }
      });
      if (cur) out.push(cur);
      return out.join("<br>");
    }).join("<br>");
  }
  /* a caption: a paper-anchored note under the plot area (dpviz.plots._theme.caption) */
  function isCaption(a) {
    return a.xref === "paper" && a.yref === "paper" && (a.y < 0 || (a.y === 0 && (a.yshift || 0) < 0));
  }
  function box(el) { try { return el ? el.getBBox() : null; } catch (e) { return null; } }
  function adapt(gd) {
    var fl = gd._fullLayout, lay = gd.layout;
    if (!window.Plotly || !fl || !lay || gd._dpvizBusy) return;
    var width = gd.getBoundingClientRect().width || fl.width;
    if (!width || width >= NARROW) return;
    if (!gd._dpvizPlotH0 && fl._size) gd._dpvizPlotH0 = Math.max(fl._size.h, 200);  /* the plot height to keep */
    var upd = {};
    /* pass 1: text that fits the width, the title at the top, a legend outside the plot moved above it */
    var title = lay.title && (typeof lay.title === "string" ? lay.title : lay.title.text);
    if (title) {
      var ts = (lay.title.font && lay.title.font.size) || 17;
      var wt = wrap(title, Math.floor((width - 16) / (0.6 * ts)));
      if (wt !== title) upd["title.text"] = wt;
      if (lay.title.yref !== "container" || lay.title.y !== 1) {
        upd["title.yref"] = "container"; upd["title.y"] = 1; upd["title.yanchor"] = "top";
        upd["title.pad"] = { t: 34 };  /* below the mode bar */
      }
    }
    (lay.annotations || []).forEach(function (a, i) {
      if (a.xref !== "paper" || typeof a.text !== "string") return;
      var as = (a.font && a.font.size) || 12;
      var sz = fl._size || { l: 0, w: width }, x = a.x === undefined ? 0.5 : a.x;
      var anchor = a.xanchor || "center", room;
      if (isCaption(a)) {  /* a caption under the plot uses the figure's whole width, from its left edge */
        var left = -(sz.l - 8) / sz.w;
        if (anchor !== "left" || Math.abs(x - left) > 1e-3) {
          upd["annotations[" + i + "].x"] = left; upd["annotations[" + i + "].xanchor"] = "left";
        }
        room = width - 16;
      } else if (a.yref === "paper" && a.y >= 0 && a.y < 1 && x >= 0 && x <= 1) {  /* inside the plot area */
        room = anchor === "left" ? (1 - x) * sz.w : anchor === "right" ? x * sz.w : 2 * Math.min(x, 1 - x) * sz.w;
        room = Math.max(room, 100) - 8;
      } else {  /* above the plot or beside it: the figure's width */
        var px = sz.l + x * sz.w;
        room = anchor === "left" ? width - px : anchor === "right" ? px : 2 * Math.min(px, width - px);
        room = Math.max(room, 120) - 8;
      }
      var wa = wrap(a.text, Math.floor(room / (0.64 * as)));
      if (wa !== a.text) upd["annotations[" + i + "].text"] = wa;
    });
    Object.keys(lay).filter(function (k) { return /^[xy]axis\d*$/.test(k); }).forEach(function (k) {
      var ax = lay[k], t = ax && ax.title && (typeof ax.title === "string" ? ax.title : ax.title.text);
      if (typeof t !== "string") return;
      var size = (ax.title.font && ax.title.font.size) || 14;
      var dom = (fl[k] && fl[k].domain) || [0, 1];
      var span = k[0] === "x" ? width - Math.min((lay.margin && lay.margin.l) || 80, 0.4 * width) - 30
                              : (dom[1] - dom[0]) * (gd._dpvizPlotH || gd._dpvizPlotH0 || 300);
      var wa = wrap(t, Math.floor(span / (0.6 * size)));
      if (wa !== t) upd[k + ".title.text"] = wa;
    });
    /* a left margin made for long category names (horizontal bars) would leave no plot: wrap the names */
    if (lay.margin && lay.margin.l > 0.4 * width && fl.yaxis && fl.yaxis.type === "category") {
      upd["margin.l"] = Math.round(0.4 * width);
      var ys = [], yi = [];
      gd.data.forEach(function (tr, i) {
        if (!tr.y || typeof tr.y[0] !== "string") return;
        var wy = Array.prototype.map.call(tr.y, function (c) { return wrap(c, Math.floor(0.4 * width / 6.5)); });
        if (wy.some(function (c, j) { return c !== tr.y[j]; })) { ys.push(wy); yi.push(i); }
      });
      if (ys.length) {
        gd._dpvizBusy = true;
        window.Plotly.restyle(gd, { y: ys }, yi).then(function () { gd._dpvizBusy = false; adapt(gd); },
                                                      function () { gd._dpvizBusy = false; });
        return;
      }
    }
    var x1 = lay.xaxis && lay.xaxis.domain, x2 = lay.xaxis2 && lay.xaxis2.domain;
    if (x1 && x2 && x1[1] <= x2[0] && !lay.xaxis3 && lay.yaxis2 && fl._size) {
      gd._dpvizPlotH = 2 * fl._size.h + 150;  /* room between them for the upper one's axis and the lower title */
      upd["xaxis.domain"] = [0, 1]; upd["xaxis2.domain"] = [0, 1];
      upd["yaxis.domain"] = [0.6, 1]; upd["yaxis2.domain"] = [0, 0.4];
      (lay.annotations || []).forEach(function (a, i) {  /* subplot titles follow their subplot */
        if (a.xref === "paper" && a.yref === "paper" && a.y >= 0.99 && a.x !== undefined && a.x > 0.5 && a.x < 1) {
          upd["annotations[" + i + "].x"] = 0.5; upd["annotations[" + i + "].y"] = 0.4;
        } else if (a.xref === "paper" && a.yref === "paper" && a.y >= 0.99 && a.x !== undefined && a.x < 0.5) {
          upd["annotations[" + i + "].x"] = 0.5;
        }
      });
    }
    /* every legend goes to the bottom of the figure, under the captions: above the plot it covered the notes
       and labels drawn there, inside the plot it covered a third of a phone-sized plot */
    var legends = Object.keys(fl).filter(function (k) { return /^legend\d*$/.test(k) && fl[k] && fl.showlegend; });
    legends.forEach(function (k) {  /* legend, legend2, …: stacked in this order, the last one at the bottom */
      var lg = lay[k] || {};
      if (lg.yref !== "container" || lg.yanchor !== "bottom" || lg.orientation !== "h" || lg.x !== 0) {
        upd[k + ".orientation"] = "h"; upd[k + ".x"] = 0; upd[k + ".xanchor"] = "left";
        upd[k + ".yref"] = "container"; upd[k + ".y"] = 0; upd[k + ".yanchor"] = "bottom";
        upd[k + ".bgcolor"] = "rgba(255,255,255,0)";
      }
    });
    if (!Object.keys(upd).length) {
      /* pass 2, from what was drawn: captions stacked under the axes, the legend under them, every note above
         the plot clear of the title, labels kept inside the figure; the plot area's height kept */
      var base = gd._dpvizPlotH || gd._dpvizPlotH0;
      if (!base) return;
      gd._dpvizPlotH = base;
      var g = gd.querySelector(".main-svg").getBoundingClientRect();
      var plotTop = g.top + fl._size.t, plotBottom = plotTop + fl._size.h;
      var anns = Array.prototype.slice.call(gd.querySelectorAll(".infolayer .annotation"));
      var below = 0;  /* the axes' tick labels and titles under the plot */
      gd.querySelectorAll(".xtick text, .x2tick text, .xtitle, .x2title").forEach(function (el) {
        var r = el.getBoundingClientRect();
        if (r.height && r.top >= plotTop) below = Math.max(below, r.bottom - plotBottom);
      });
      var offset = Math.ceil(below) + 8;
      (lay.annotations || []).forEach(function (a, i) {
        var el = gd.querySelector('.infolayer .annotation[data-index="' + i + '"]');
        var r = el && el.getBoundingClientRect();
        if (!r || !r.height) return;
        if (isCaption(a)) {
          if (a.y !== 0 || a.yanchor !== "top" || Math.abs((a.yshift || 0) + offset) > 2) {
            upd["annotations[" + i + "].y"] = 0; upd["annotations[" + i + "].yanchor"] = "top";
            upd["annotations[" + i + "].yshift"] = -offset;
          }
          offset += Math.ceil(r.height) + 4;
          return;
        }
        /* a label on the data that runs past the figure's side: put it on the side of its point with more room
           in the plot area, wrapped to that room */
        if (a.xref === "paper" || typeof a.text !== "string" || (r.right <= g.right - 2 && r.left >= g.left + 2)) return;
        var as = (a.font && a.font.size) || 12, anchor = a.xanchor || "center";
        var at = anchor === "left" ? r.left : anchor === "right" ? r.right : (r.left + r.right) / 2;
        var pl = g.left + fl._size.l, pr = pl + fl._size.w;
        var side = pr - at >= at - pl ? "left" : "right", room = Math.max(side === "left" ? pr - at : at - pl, 90) - 6;
        var wl = wrap(a.text, Math.floor(room / (0.64 * as)));
        if (wl !== a.text) upd["annotations[" + i + "].text"] = wl;
        if (anchor !== side) upd["annotations[" + i + "].xanchor"] = side;
      });
      var above = 0;  /* notes and subplot titles drawn above the plot */
      anns.forEach(function (el) {
        var r = el.getBoundingClientRect();
        if (r.height && r.top < plotTop - 1) above = Math.max(above, plotTop - r.top);
      });
      var tb = box(gd.querySelector(".g-gtitle"));
      var t = Math.max(Math.ceil((tb && tb.height ? 34 + tb.height + 6 : 10) + above + 4), 30);
      var heights = legends.map(function (k) { var lb = box(gd.querySelector(".infolayer > g." + k));
                                               return lb && lb.height ? Math.ceil(lb.height) + 6 : 0; });
      var b = Math.ceil(Math.max(offset, 40) + heights.reduce(function (x, y) { return x + y; }, 0) + 2);
      var H = Math.round(base + t + b), lift = 0;
      for (var j = legends.length - 1; j >= 0; j--) {  /* from the bottom up */
        var y = lift / H;
        if (Math.abs(((lay[legends[j]] || {}).y || 0) - y) * H > 2) upd[legends[j] + ".y"] = y;
        lift += heights[j];
      }
      if (!Object.keys(upd).length && Math.abs(t - fl.margin.t) <= 2 && Math.abs(b - fl.margin.b) <= 2 &&
          Math.abs(H - fl.height) <= 2) return;
      upd["margin.t"] = t; upd["margin.b"] = b; upd["margin.r"] = Math.min(fl.margin.r, 20);
      upd["height"] = H;
    }
    var names = [], idx = [];
    gd.data.forEach(function (t, i) {
      if (typeof t.name !== "string" || t.showlegend === false) return;
      var wn = wrap(t.name, Math.floor((width - 60) / 7.5));
      if (wn !== t.name) { names.push(wn); idx.push(i); }
    });
    if (names.length) {
      gd._dpvizBusy = true;
      window.Plotly.restyle(gd, { name: names }, idx).then(function () { gd._dpvizBusy = false; adapt(gd); },
                                                            function () { gd._dpvizBusy = false; });
      return;
    }
    gd._dpvizBusy = true;
    window.Plotly.relayout(gd, upd).then(function () { gd._dpvizBusy = false; setTimeout(function () { adapt(gd); }, 0); },
                                         function () { gd._dpvizBusy = false; });
  }
  function hook(root) {
    root.querySelectorAll(".js-plotly-plot").forEach(function (gd) {
      if (gd._dpvizHooked || typeof gd.on !== "function") return;
      gd._dpvizHooked = true;
      gd.on("plotly_afterplot", function () { setTimeout(function () { adapt(gd); }, 0); });
      adapt(gd);
    });
  }
  var pending = false;
  new MutationObserver(function () {
    if (pending) return;
    pending = true;
    setTimeout(function () { pending = false; name(document); hook(document); }, 250);
  }).observe(document.documentElement, { childList: true, subtree: true });
})();

/* A lesson whose kernel has stopped says so, instead of leaving controls that no longer answer. A kernel can
   stop under a page that is still open: culled after --cull-idle seconds without activity (a long pause), ended
   with the server, or killed (out of memory), when jupyter_server's restarter starts a bare kernel without the
   lesson. The page watches its kernel WebSocket: a "restarting" or "dead" status, or a socket that closes while
   the server no longer has the kernel (or no longer answers), shows a notice with a button that reloads the
   lesson, with a new kernel. Only small frames are read (a status message is ~0.5 kB; figures are not). */
(function () {
  var Native = window.WebSocket;
  if (!Native) return;
  var leaving = false, shown = false;
  window.addEventListener("pagehide", function () { leaving = true; });
  window.addEventListener("beforeunload", function () { leaving = true; });
  function notice() {
    if (shown || leaving || !document.body) return;
    shown = true;
    var box = document.createElement("div");
    box.className = "dpviz-stopped";
    box.setAttribute("role", "alert");
    box.textContent = "This lesson has stopped: its kernel on the server ended (after a long pause, or because " +
      "the server stopped or ran short of memory), so its controls no longer answer. ";
    var again = document.createElement("button");
    again.type = "button";
    again.textContent = "Reload the lesson";
    again.addEventListener("click", function () { window.location.reload(); });
    box.appendChild(again);
    document.body.insertBefore(box, document.body.firstChild);
  }
  function smallText(data) {
    if (typeof data === "string") return data.length < 4096 ? data : "";
    if (data instanceof ArrayBuffer && data.byteLength < 4096) return new TextDecoder().decode(data);
    return "";
  }
  function Watched(url, protocols) {
    var ws = protocols === undefined ? new Native(url) : new Native(url, protocols);
    var kernel = /^(wss?)(:.*\/api\/kernels\/[0-9a-f-]{36})\/channels/.exec(String(url));
    if (!kernel) return ws;
    ws.addEventListener("message", function (e) {
      if (/"execution_state":\s*"(restarting|dead)"/.test(smallText(e.data))) notice();
    });
    ws.addEventListener("close", function () {
      if (leaving || shown) return;
      setTimeout(function () {  // the page's own reconnection is under way; ask whether the kernel is still there
        fetch(kernel[1].replace("ws", "http") + kernel[2], {credentials: "same-origin", cache: "no-store"})
          .then(function (r) { if (r.status === 404) notice(); }, notice);
      }, 1500);
    });
    return ws;
  }
  Watched.prototype = Native.prototype;
  ["CONNECTING", "OPEN", "CLOSING", "CLOSED"].forEach(function (k) { Watched[k] = Native[k]; });
  window.WebSocket = Watched;
})();
