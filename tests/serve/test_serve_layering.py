"""The serving package sits on top: nothing in dpviz outside ``dpviz/serve/`` imports it (the one exception is the
``python -m dpviz.app`` alias), so a library user, a kernel and the docs never load the server's machinery.

Checked statically over every module's import statements (``import x``, ``from x import y`` and imports inside
functions), so a violation anywhere fails here by name."""

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "dpviz"
SERVE = ("dpviz.serve", "dpviz.app")
ALIAS = PKG / "app.py"
OUTSIDE = sorted(p for p in PKG.rglob("*.py") if "serve" not in p.relative_to(PKG).parts[:1] and p != ALIAS)


def _serving_imports(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
        if isinstance(node, ast.ImportFrom) and node.module == "dpviz" and node.level == 0:
            names += [f"dpviz.{a.name}" for a in node.names]  # from dpviz import serve
        found += [n for n in names if any(n == s or n.startswith(s + ".") for s in SERVE)]
    return found


@pytest.mark.parametrize("path", OUTSIDE, ids=lambda p: str(p.relative_to(PKG)))
def test_nothing_below_serve_imports_it(path):
    assert not _serving_imports(path.read_text(encoding="utf-8")), f"{path.relative_to(PKG)} imports the server"


def test_the_check_sees_every_form_of_import():
    for source in ("import dpviz.serve", "from dpviz.serve.pool import X", "from dpviz import serve",
                   "def f():\n    from dpviz.app import main\n"):
        assert _serving_imports(source), source
    assert not _serving_imports("import dpviz.server_side\nfrom dpviz import plots")


def test_the_alias_is_only_an_alias():
    """``python -m dpviz.app`` re-exports the serving app and runs it: nothing else lives there."""
    tree = ast.parse(ALIAS.read_text(encoding="utf-8"))
    imports = [n for n in tree.body if isinstance(n, ast.ImportFrom)]
    assert [n.module for n in imports] == ["dpviz.serve.app"]
    assert all(isinstance(n, ast.Expr | ast.ImportFrom | ast.If) for n in tree.body)
