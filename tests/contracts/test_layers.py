"""Layers, one direction: core numerics → dpviz.plots → dpviz.panels → notebooks. Nothing imports upward.

The classroom server (dpviz.serve, started by dpviz.serve.app) sits beside the layers: it speaks tornado and Voila,
never imports the numerics, figures or panels (a kernel does that), and nothing but dpviz.app imports it. (Its fork
server, dpviz/serve/forkserver.py, imports them by name in a process of its own: the kernels' imports, done once.)
One deliberate exception: dpviz/serve/classview.py, the class view, draws central releases in the process that holds
the raw tally, so it imports dpviz.classpoll (and numpy); the app imports it only inside a function, when the class
view is on, so a server without a class loads no numerics. dpviz/serve/hubclass.py, the same view as a JupyterHub
service (a process of its own, which is nothing but the class view), imports it, and so the numerics, at once.

Checked statically over every module's import statements, so a violation anywhere fails here by name.
"""

import ast
import re
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "dpviz"

SERVER = ("dpviz.serve", "dpviz.app")
UI_ONLY = ("plotly", "ipywidgets", "IPython", "anywidget", "voila", "tornado", "dpviz.plots", "dpviz.panels") + SERVER
FORBIDDEN = {
    "core": UI_ONLY,
    "plots": ("ipywidgets", "IPython", "anywidget", "voila", "tornado", "dpviz.panels") + SERVER,
    "panels": ("voila", "tornado") + SERVER,
    "server": ("plotly", "ipywidgets", "numpy", "scipy", "dpviz.plots", "dpviz.panels", "dpviz.mechanisms",
               "dpviz.accountants", "dpviz.conversions"),
    "class view": ("plotly", "ipywidgets", "dpviz.plots", "dpviz.panels"),
}


def _layer(path: Path) -> str | None:
    rel = path.relative_to(PKG).parts
    if rel[0] == "plots":
        return "plots"
    if rel[0] == "panels":
        return "panels"
    if rel[:2] in (("serve", "classview.py"), ("serve", "hubclass.py")):
        return "class view"
    if rel[0] == "serve":
        return "server"
    if rel[0] in ("app.py", "__init__.py", "lessons.py", "export.py"):
        return None  # the Voila launcher, the package façade, the lesson catalogue and the exporter: outside the layers
    return "core"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


MODULES = sorted(p for p in PKG.rglob("*.py") if _layer(p) is not None)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PKG)))
def test_module_imports_only_from_its_layer_or_below(path):
    layer = _layer(path)
    bad = sorted(
        name for name in _imports(path) for forbidden in FORBIDDEN[layer]
        if name == forbidden or name.startswith(forbidden + ".")
    )
    assert not bad, f"{path.relative_to(PKG)} ({layer} layer) imports {bad}"


def test_the_check_sees_a_violation(tmp_path):
    bad = tmp_path / "x.py"
    bad.write_text("import numpy\nfrom plotly import graph_objects\n")
    assert "plotly" in _imports(bad)


def test_import_dpviz_loads_no_numerics_until_a_name_is_used():
    """``import dpviz`` (and so every ``dpviz.serve`` module) loads no numerics: under JupyterHub every student has
    a server of their own, and numpy, scipy and the numerics made each 76 MB larger. A name of the façade imports its
    module on first use, every one of them exists, and any other name is an AttributeError (nothing hidden)."""
    import subprocess
    import sys

    code = ("import sys, dpviz, dpviz.lessons, dpviz.serve.extension\n"
            "print(any(m in sys.modules for m in ('numpy', 'scipy', 'dpviz.mechanisms', 'dpviz.userlevel')))\n"
            "print(all(getattr(dpviz, n) is not None for n in dpviz.__all__), 'dpviz.userlevel' in sys.modules)\n"
            "print(hasattr(dpviz, 'nope'), dpviz.Gaussian is dpviz.mechanisms.Gaussian)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == ["False", "True True", "False True"]


def test_the_fork_server_preloads_every_name_of_the_facade():
    """Kernels forked under ``dpviz serve`` find every numerics module already imported (the façade's lazy names
    included), as before the façade was lazy."""
    import subprocess
    import sys

    code = ("import sys\nfrom dpviz.serve import forkserver\nforkserver._preload()\n"
            "print(all(f'dpviz.{m}' in sys.modules for m in ('userlevel', 'mean', 'learning', 'partial', 'audit')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


# ---- the redesign's guards (issue 38): no threads in panels, no import stand-ins, no per-package cap modules -------

PANELS = sorted((PKG / "panels").glob("*.py"))


def _threads_and_priorities(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in ("threading", "concurrent", "_thread")]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("threading", "concurrent"):
            found.append(node.module)
        elif isinstance(node, ast.Attribute) and node.attr in ("setpriority", "nice", "sched_setscheduler"):
            found.append(f"os.{node.attr}")
    return found


@pytest.mark.parametrize("path", PANELS, ids=lambda p: p.name)
def test_panels_start_no_threads_and_change_no_priorities(path):
    """A streamed render is a generator the base steps on the kernel's event loop: no worker threads, no nice."""
    assert not _threads_and_priorities(path), f"panels/{path.name}: {_threads_and_priorities(path)}"


def test_the_thread_guard_sees_a_violation(tmp_path):
    bad = tmp_path / "x.py"
    bad.write_text("import threading\nfrom concurrent.futures import ThreadPoolExecutor\nimport os\n"
                   "os.setpriority(os.PRIO_PROCESS, 0, 10)\n")
    assert _threads_and_priorities(bad) == ["threading", "concurrent.futures", "os.setpriority"]


def test_no_import_stand_ins_and_no_per_package_cap_modules():
    """The fork server shares scipy.optimize and scipy.stats with every kernel, so dpviz keeps no stand-ins for
    them; caps are declared beside their parameters' specs, so no package keeps a module of caps."""
    gone = ["_roots.py", "_binomial.py", "scheduling.py", "learning/_checks.py", "learning/_privacy.py",
            "userlevel/_checks.py", "mean/_limits.py", "partial/_checks.py", "panels/_base.py", "server"]
    assert [g for g in gone if (PKG / g).is_file() or any((PKG / g).rglob("*.py"))] == []


# ---- one home per formula (issue 13): figures and panels hold no models -------------------------------------------

UPPER = sorted(p for p in PKG.rglob("*.py") if _layer(p) in ("plots", "panels"))


def _private_imports_across_packages(path: Path) -> list[str]:
    """Private names (``_x``) or private modules imported from another dpviz package (a private kernel is for its
    own package; figures and panels use the core's public names)."""
    own = ".".join(path.relative_to(PKG.parent).with_suffix("").parts[:2])  # e.g. dpviz.plots
    bad = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0
                and node.module.startswith("dpviz")):
            continue
        if ".".join(node.module.split(".")[:2]) == own:
            continue
        if node.module != "dpviz._validation" and any(part.startswith("_") for part in node.module.split(".")[1:]):
            bad.append(node.module)  # (dpviz._validation is the package-wide argument checking toolkit)
        bad += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return bad


def _model_machinery(path: Path) -> list[str]:
    """Caches and root finding: the marks of a model living in a figure or panel module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in ("lru_cache", "cache") and \
                isinstance(node.value, ast.Name) and node.value.id == "functools":
            found.append(f"functools.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "functools":
            found += [f"functools.{a.name}" for a in node.names if a.name in ("lru_cache", "cache")]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            names += [f"{node.module}.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom) else []
            found += [n for n in names if n.startswith("scipy.optimize")]
    return found


@pytest.mark.parametrize("path", UPPER, ids=lambda p: str(p.relative_to(PKG)))
def test_figures_and_panels_hold_no_models(path):
    """plots/ and panels/ define no lru_cache, find no roots and import no private name of another package."""
    found = _model_machinery(path) + _private_imports_across_packages(path)
    assert not found, f"{path.relative_to(PKG)}: {sorted(set(found))} (the numerics belong in the core)"


def test_the_model_guard_sees_a_violation(tmp_path):
    bad = PKG / "plots" / "_guard_probe.py"
    src = ("import functools\nfrom scipy.optimize import brentq\nfrom dpviz.mechanisms import _gaussian_delta\n"
           "@functools.lru_cache\ndef f(x):\n    return x\n")
    bad.write_text(src)
    try:
        found = _model_machinery(bad) + _private_imports_across_packages(bad)
    finally:
        bad.unlink()
    assert "functools.lru_cache" in found and "scipy.optimize.brentq" in found
    assert "dpviz.mechanisms._gaussian_delta" in found


# ---- caps live only in validation specs (issue 38) -------------------------------------------------------------

_CAP_NAME = re.compile(r"^_?(?:[A-Z0-9]+_)*MAX(?:_[A-Z0-9]+)*$")
#: ``MAX``-named constants that bound an algorithm, a representation or a lesson, not an argument: (file, name) → why
_NOT_CAPS = {
    ("accountants/pld/__init__.py", "DEFAULT_MAX_GRID_POINTS"): "the PLD grid the accountant refines from",
    ("accountants/pld/__init__.py", "REFINE_MAX_POINTS"): "the PLD grid's refinement bound",
    ("accountants/pld/__init__.py", "MAX_LOSS"): "the largest finite loss the grid represents",
    ("partial/experiments.py", "_T_MAX"): "the lesson's search range, passed on as an argument",
    ("learning/experiments.py", "LESSON_TASK_MAX_ENTRIES"): "the lesson task's own size",
    ("learning/rates.py", "RATE_MAX"): "the largest rate a figure draws",
    ("mechanisms/discrete.py", "_MAX_KAPPA"): "2**53: the exact integer support of κ",
    ("audit.py", "_MAX_DISCRETE"): "bounds the test's exact enumeration",
    ("audit.py", "_MAX_CANDIDATES"): "bounds the test's threshold search",
    ("_inverse.py", "_MAX_NARROW_STEPS"): "the bisection's iteration bound",
    ("selection.py", "_FLOAT_MAX"): "a numerical constant",
    ("selection.py", "_LAPLACE_DRAW_MAX"): "a numerical constant",
    ("mechanisms/gaussian.py", "_GL_MAX_MU"): "a numerical constant",
    ("_validation.py", "MAX_SAMPLES"): "the validation module's own sampler-size cap",
    ("panels/figure.py", "MAX_VIEW_COUNT"): "the browser guard's bound on a figure message",
    ("panels/figure.py", "MAX_FIGURE_MESSAGE"): "the browser guard's bound on a figure message",
    ("panels/learning.py", "_MAX_EXAMPLES"): "the live run's n·m, which its sliders cannot exceed",
}


def _cap_constants(path: Path) -> list[str]:
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else ([node.target] if isinstance(node, ast.AnnAssign)
                                                                      else [])
        found += [t.id for t in targets if isinstance(t, ast.Name) and _CAP_NAME.match(t.id)]
    return found


def test_size_caps_are_declared_as_specs_beside_their_parameters():
    """A cap is part of its parameter's spec (``Interval(1, 10**6, integer=True)``, ``Cap(limit, what)``), not a
    ``MAX_*`` constant of its own (the serving layer, whose bounds are on HTTP and kernel messages, aside)."""
    found = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        if rel.startswith("serve/"):
            continue
        found += [f"{rel}: {name}" for name in _cap_constants(path) if (rel, name) not in _NOT_CAPS]
    assert found == [], "declare these caps as Interval(..., integer=True) or Cap(limit, what) specs"


def test_the_cap_guard_sees_a_constant(tmp_path):
    bad = tmp_path / "x.py"
    bad.write_text("MAX_USERS = 10\n_MAX_CELLS: int = 5\nUSERS = Interval(1, 10, integer=True)\nMAXIMUM = 3\n")
    assert _cap_constants(bad) == ["MAX_USERS", "_MAX_CELLS"]


def test_the_server_imports_the_class_view_only_when_it_is_on():
    """Only inside functions: ``dpviz.serve.app`` and the other serving modules never import the class view (and
    with it numpy) at import time. The class view's own modules aside: the view, and the hub service
    (``hubclass.py``), whose process is the class view and nothing else."""
    for path in sorted((PKG / "serve").glob("*.py")):
        if path.name in ("classview.py", "hubclass.py"):
            continue
        top = [node for node in ast.parse(path.read_text(encoding="utf-8")).body
               if isinstance(node, ast.Import | ast.ImportFrom)]
        names = {a.name for n in top if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module or "" for n in top if isinstance(n, ast.ImportFrom)}
        names |= {f"{n.module}.{a.name}" for n in top if isinstance(n, ast.ImportFrom) for a in n.names}
        assert not any(name.endswith("classview") for name in names), f"{path.name} imports the class view at once"
