"""Adversarial sweep of the panel machinery a panel author (or a library user) calls directly: the readout
formatters (:mod:`dpviz.panels.format`), the browser guard (:mod:`dpviz.panels.guard`) and the figure transport
(:mod:`dpviz.panels.figure`). Each public callable gets one valid baseline call; the harness replaces each argument
by each hostile value: only a ValueError/TypeError with a message, or a NaN-free result, passes.
"""

from __future__ import annotations

import ipywidgets as W
import plotly.graph_objects as go
from _adversarial import contract_tests, register

from dpviz.panels import controls, counting, exercises, figure, guard
from dpviz.panels import format as F

_FIG = go.Figure(go.Scatter(x=[0, 1], y=[1, 2]))

globals().update(contract_tests(F, {
    "table": (([("ε", "1")], 12), {}),
    "row": (("ε", "1", 12), {}),
    "fmt": ((0.5,), {}),
    "sci": ((1e-5,), {}),
    "big": ((1e5,), {}),
    "superscript": ((-5,), {}),
}, suffix="format"))

globals().update(contract_tests(guard, {
    "guard": ((W.FloatSlider(), {"value": lambda v: v}), {}),
    "descendants": ((W.VBox([W.HTML()]),), {}),
    "text_checks": ((100,), {}),
    "number_text_checks": ((1e6,), {}),
    "index_checks": ((W.Dropdown(options=["a", "b"]),), {}),
}, exempt={"Checks": "a type alias (dict of state key -> check)"}, suffix="guard"))

globals().update(contract_tests(figure, {
    "figure_widget": ((_FIG,), {}),
    "sync_figure": ((go.FigureWidget(_FIG), _FIG), {}),
    "figure_checks": ((go.FigureWidget(_FIG),), {}),
}, suffix="figure"))

# the declared controls and exercises are swept through the panels' face (tests/contracts/test_adversarial_panels.py);
# their
# abstract bases take no input of their own
register(controls, ["Control"], "the abstract base of the declared controls (each swept through dpviz.panels)")
register(controls, ["Rule"], "a type alias (a function of the values)")
register(exercises, ["Exercise"], "the abstract base of the exercises (each swept through dpviz.panels)")


def _problems() -> dict:
    return {f"p{i}": exercises.ChoiceProblem("?", [("a", True, "yes"), ("b", False, "no")]) for i in range(5)}


def _entry() -> exercises.TeacherEntry:
    return exercises.TeacherEntry("P", "Title", "P.x", "choice", "?", "a", "because")


# the problem sets' declarations, the teacher's edition's listing (the problem kinds also through a panel:
# tests/panels/test_problem_sets.py)
globals().update(contract_tests(exercises, {
    "PredictReveal": (("How many?", lambda panel, v: 2.0), {}),
    "ChoiceReveal": (("Which?", [("a", True, "right"), ("b", False, "wrong")]), {}),
    "NumericAnswer": (("How many?", 2.0), {"abs_tol": 0.1}),
    "ChoiceProblem": (("Which?", [("a", True, "right"), ("b", False, "wrong")]), {}),
    "FindSetting": (("Find it.", lambda panel, v: True), {}),
    "ProofIdea": (("Why?", "Because."), {}),
    "ProblemSet": (("Problems", _problems()), {}),
    "TeachingNotes": (("2 min", ("a wrong answer",), "what to ask"), {}),
    "teacher_entries": (([counting.CountingProblemsPanel],), {}),
    "teacher_html": (([_entry()],), {}),
}, exempt={"Exercise": "the abstract base of the exercises", "Problem": "the abstract base of the problems",
           "TeacherEntry": "a record of teacher_entries' result (its fields are what the declarations hold)"},
    suffix="exercises"))
