"""The ``dpviz`` console script (``[project.scripts]``): ``dpviz serve``, ``dpviz export``, ``dpviz loadtest``, and
the ``python -m`` forms that stay (``python -m dpviz.serve``, the ``python -m dpviz.app`` alias)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
#: The flags of ``dpviz serve`` that the teacher's docs and ``make serve`` use.
SERVE_FLAGS = ("--class-size", "--lessons", "--shutdown-grace", "--connect-grace", "--memory-budget-mb",
               "--max-kernels-per-client", "--cull-idle", "--allow-host", "--refill-quiet", "--refill-max-wait",
               "--fill-concurrency", "--fork-kernels", "--compress", "--kernel-memory-limit-mb")


def _dpviz() -> str:
    found = shutil.which("dpviz", path=str(BIN))
    if found is None:
        pytest.fail(f"no dpviz console script in {BIN}: reinstall the package (pip install -e '.[serve,test]')")
    return found


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=120)


def test_dpviz_help_names_its_three_commands():
    out = _run(_dpviz(), "--help")
    assert out.returncode == 0, out.stderr
    for command in ("serve", "export", "loadtest"):
        assert f"\n  {command} " in out.stdout, out.stdout


def test_an_unknown_command_is_refused_by_name():
    out = _run(_dpviz(), "teach")
    assert out.returncode == 2 and "unknown command 'teach'" in out.stderr


@pytest.mark.parametrize("command", [["dpviz", "serve"], [sys.executable, "-m", "dpviz.serve"],
                                     [sys.executable, "-m", "dpviz.app"]], ids=["script", "module", "alias"])
def test_serve_help_lists_the_classroom_flags(command):
    argv = [_dpviz(), *command[1:]] if command[0] == "dpviz" else command
    out = _run(*argv, "--help")
    assert out.returncode == 0, out.stderr
    missing = [flag for flag in SERVE_FLAGS if flag + "=" not in out.stdout]
    assert not missing, f"{missing} not in:\n{out.stdout[-3000:]}"
    assert "--refill-nice" not in out.stdout  # the refill renice is gone


def test_export_and_loadtest_pass_their_arguments_on():
    export = _run(_dpviz(), "export", "--help")
    assert export.returncode == 0 and "--out" in export.stdout, export.stderr
    loadtest = _run(_dpviz(), "loadtest", "--help")
    assert loadtest.returncode == 0 and "--students" in loadtest.stdout and "--classroom" in loadtest.stdout
