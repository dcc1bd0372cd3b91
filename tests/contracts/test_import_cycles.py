"""No import cycle among dpviz's modules, read statically from the import statements.

Two graphs. The *load-time* graph, over the whole package, has the imports a module runs when it is first imported:
its top-level statements, including those inside a top-level ``if``/``try`` but not those under
``if TYPE_CHECKING:`` (never run). The *full* graph adds imports inside functions and classes, and covers the core
numerics (everything below :mod:`dpviz.plots`): there a deferred import only hides a design cycle (the
``accountants._base`` → ``profiles`` → ``pld`` → ``_base`` cycle was one), so none is allowed either.

An edge ``a → b`` is drawn for ``import b`` / ``from b import x`` in ``a`` (to ``b.x`` when ``x`` is a submodule), and
also from ``a`` to every package enclosing ``b`` that does not enclose ``a`` (importing ``b`` runs those packages'
``__init__`` first).
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2] / "dpviz"
#: The layers above the core numerics (the full graph leaves them out; the load-time graph covers them).
UPPER_LAYERS = ("dpviz.plots", "dpviz.panels", "dpviz.serve")


def _module_names(root: pathlib.Path) -> tuple[dict[str, pathlib.Path], set[str]]:
    mods, pkgs = {}, set()
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
            pkgs.add(".".join(parts))
        mods[".".join(parts)] = path
    return mods, pkgs


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(mod: str, tree: ast.Module, mods: dict, pkgs: set, *, deferred: bool, top: str) -> set[str]:
    """The modules ``mod`` imports (see the module docstring for the edges)."""

    def known(name: str) -> str:
        while name not in mods and "." in name:
            name = name.rsplit(".", 1)[0]
        return name

    found: set[str] = set()

    def visit(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if deferred:
                    visit(node.body)
            elif isinstance(node, ast.Import):
                found.update(known(a.name) for a in node.names if a.name.split(".")[0] == top)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = mod if mod in pkgs else mod.rsplit(".", 1)[0]
                    for _ in range(node.level - 1):
                        pkg = pkg.rsplit(".", 1)[0]
                    base = f"{pkg}.{base}" if base else pkg
                if base.split(".")[0] != top:
                    continue
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    found.add(sub if sub in mods else known(base))
            elif isinstance(node, ast.If) and _is_type_checking(node):
                visit(node.orelse)
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    sub = getattr(node, field, None)
                    if isinstance(sub, list):
                        visit(sub)

    visit(tree.body)
    edges = set()
    for target in found:
        edges.add(target)
        while "." in target:
            target = target.rsplit(".", 1)[0]
            if not (mod == target or mod.startswith(target + ".")):
                edges.add(target)
    edges.discard(mod)
    return edges


def import_graph(root: pathlib.Path, *, deferred: bool) -> dict[str, set[str]]:
    mods, pkgs = _module_names(root)
    return {m: _imports(m, ast.parse(p.read_text(encoding="utf-8")), mods, pkgs, deferred=deferred, top=root.name)
            for m, p in mods.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan 1972), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in graph:
                continue
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def _below(graph: dict[str, set[str]], layers) -> dict[str, set[str]]:
    def upper(m):
        return any(m == p or m.startswith(p + ".") for p in layers)

    return {m: {w for w in ws if not upper(w)} for m, ws in graph.items() if not upper(m)}


def test_no_import_cycle_when_modules_load():
    graph = import_graph(ROOT, deferred=False)
    assert len(graph) > 100 and "dpviz.accountants.profiles" in graph
    assert cycles(graph) == []


def test_no_import_cycle_in_the_core_counting_imports_inside_functions():
    graph = _below(import_graph(ROOT, deferred=True), UPPER_LAYERS)
    assert "dpviz.accountants.calibration" in graph and "dpviz.plots" not in graph
    assert cycles(graph) == []


@pytest.fixture
def toy(tmp_path):
    """A package with a deferred three-module cycle through a package __init__ (the shape of the one removed from
    dpviz.accountants), a load-time cycle and an import under TYPE_CHECKING."""
    pkg = tmp_path / "toy"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "base.py": "from toy.profiles import f\n",
        "profiles.py": "def f():\n    from toy.sub.atoms import g\n",
        "sub/__init__.py": "from toy.base import f\n",
        "sub/atoms.py": "def g():\n    pass\n",
        "a.py": "from . import b\n",
        "b.py": "try:\n    import toy.a\nexcept ImportError:\n    pass\n",
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from toy.d import D\n",
        "d.py": "from toy import c\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    return pkg


def test_the_detector_finds_load_time_and_deferred_cycles(toy):
    assert cycles(import_graph(toy, deferred=False)) == [["toy.a", "toy.b"]]
    assert sorted(cycles(import_graph(toy, deferred=True))) == [
        ["toy.a", "toy.b"], ["toy.base", "toy.profiles", "toy.sub"]]
