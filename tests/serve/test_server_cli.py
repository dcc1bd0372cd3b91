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
               "--fill-concurrency", "--fork-kernels", "--compress", "--kernel-memory-limit-mb", "--host",
               "--class-view", "--class-privacy", "--class-epsilon", "--class-release-epsilon",
               "--class-report-epsilon", "--class-dir", "--class-name", "--class-end")


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


@pytest.mark.parametrize("name, value", [("class_privacy", "none"), ("class_epsilon", 0.0),
                                         ("class_release_epsilon", -1.0), ("class_report_epsilon", 1e9)])
def test_a_bad_class_setting_is_refused_naming_it(name, value):
    from traitlets import TraitError

    from dpviz.serve.app import DpvizVoila

    app = DpvizVoila()
    with pytest.raises(TraitError, match=f"{name} = {value!r} is not allowed"):
        setattr(app, name, value)


def test_host_is_the_address_the_server_listens_on():
    from dpviz.serve.app import DpvizVoila

    app = DpvizVoila()
    app.parse_command_line(["--host=0.0.0.0", "--class-size=30"])
    assert app.ip == "0.0.0.0" and app.class_on  # a class: the class view is on unless --class-view=False
