"""Layers, one direction: core numerics → dpviz.plots → dpviz.panels → notebooks. Nothing imports upward.

The classroom server (dpviz.serve, started by dpviz.serve.app) sits beside the layers: it speaks tornado and Voila,
never imports the numerics, figures or panels (a kernel does that), and nothing but dpviz.app imports it. (Its fork
server, dpviz/serve/forkserver.py, imports them by name in a process of its own: the kernels' imports, done once.)

Checked statically over every module's import statements, so a violation anywhere fails here by name.
"""

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "dpviz"

SERVER = ("dpviz.serve", "dpviz.app")
UI_ONLY = ("plotly", "ipywidgets", "IPython", "anywidget", "voila", "tornado", "dpviz.plots", "dpviz.panels") + SERVER
FORBIDDEN = {
    "core": UI_ONLY,
    "plots": ("ipywidgets", "IPython", "anywidget", "voila", "tornado", "dpviz.panels") + SERVER,
    "panels": ("voila", "tornado") + SERVER,
    "server": ("plotly", "ipywidgets", "numpy", "scipy", "dpviz.plots", "dpviz.panels", "dpviz.mechanisms",
               "dpviz.accountants", "dpviz.conversions"),
}


def _layer(path: Path) -> str | None:
    rel = path.relative_to(PKG).parts
    if rel[0] == "plots":
        return "plots"
    if rel[0] == "panels":
        return "panels"
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


def test_import_dpviz_loads_every_package_eagerly():
    """No lazy façade: every forked kernel shares the imports already (the fork server), so ``import dpviz`` imports
    the papers' packages, and dpviz has no module ``__getattr__`` to hide a missing name behind."""
    import subprocess
    import sys

    packages = "('dpviz.learning', 'dpviz.mean', 'dpviz.partial', 'dpviz.userlevel')"
    code = ("import sys, dpviz\n"
            f"print(all(m in sys.modules for m in {packages}))\n"
            "print(hasattr(dpviz, '__getattr__'), hasattr(dpviz, 'nope'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["True", "False False"]


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
