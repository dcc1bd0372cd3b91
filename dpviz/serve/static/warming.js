// The "being prepared" page (templates/dpviz/warming.html.j2): polls status.json and opens the lesson (?waited=1) as
// soon as a kernel for it is ready, or after two minutes in any case. Its notebook, status URL and lesson URL are
// the script element's data attributes.
(function () {
  var me = document.currentScript.dataset;
  var nb = me.notebook, statusUrl = me.status, lesson = me.lesson;
  var start = Date.now(), line = document.getElementById("dpviz-wait");
  function go() { location.replace(lesson); }
  function poll() {
    if (Date.now() - start > 120000) return go();
    fetch(statusUrl, {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (s) {
      var ready = (s.pool || {})[nb] || 0, starting = (s.pool_starting || {})[nb] || 0;
      if (s.ready || ready > 0) return go();
      var t = s.pool_target || {}, all = Object.keys(t).filter(function (k) { return t[k] > 0; });
      var done = all.filter(function (k) { return (s.pool[k] || 0) >= t[k]; }).length;
      line.textContent = "This lesson: " + (starting ? "starting Python and running the lesson…" : "next in line…") +
        " Lessons ready: " + done + " of " + all.length + ".";
      setTimeout(poll, 700);
    }).catch(function () { setTimeout(poll, 1500); });
  }
  poll();
})();
