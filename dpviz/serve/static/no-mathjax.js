// dpviz's lessons contain no TeX (tests/lessons/test_lessons.py: test_lesson_prose_has_no_raw_tex), so under `dpviz serve` the pages load
// this in place of MathJax: Voilà's front end otherwise loads MathJax 3 (~0.9 MB of JavaScript) on every lesson
// page and runs it over every label, slider description and HTML widget, ~0.15 s of the page's main thread
// before the first figure on the 2-core development machine. It is the part of MathJax 2's API that
// JupyterLab's mathjax2 typesetter calls (Voilà uses that typesetter when the page names a MathJax URL), and it
// typesets nothing.
window.MathJax = window.MathJax || {
  Hub: { Config() {}, Configured() {}, Queue() {}, Register: { StartupHook() {} } },
  Ajax: {},
  InputJax: { TeX: { resetEquationNumbers() {} } },
};
