"""pyproject.toml is the one source of truth for dependencies; environment.yml must list the same packages."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _env_packages() -> tuple[set[str], list[str]]:
    names, pip = set(), []
    in_pip = in_deps = False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        stripped = line.strip()
        if not line.startswith(" ") and stripped:
            in_deps = stripped == "dependencies:"
            continue
        if not in_deps:
            continue
        if stripped.startswith("- pip:"):
            in_pip = True
            continue
        if in_pip and stripped.startswith("- ") and line.startswith("      "):
            pip.append(stripped[2:].strip())
            continue
        in_pip = False
        if stripped.startswith("- ") and line.startswith("  - "):
            names.add(_name(stripped[2:]))
    return names - {"python", "pip"}, pip


def test_environment_yml_lists_exactly_the_runtime_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = {_name(r) for r in project["dependencies"]}
    conda, _ = _env_packages()
    assert conda == runtime, f"only in environment.yml: {conda - runtime}; only in pyproject: {runtime - conda}"


def test_environment_yml_pins_agree_with_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = {_name(r): r.replace(" ", "").lower() for r in project["dependencies"]}
    env_text = (ROOT / "environment.yml").read_text()
    for spec in pins.values():
        assert re.search(rf"^\s*-\s*{re.escape(spec)}\s*$", env_text.lower(), re.M), f"{spec} not in environment.yml"


def test_environment_yml_installs_dpviz_itself():
    _, pip = _env_packages()
    assert "-e ." in pip or "." in pip


def test_python_requirement_matches():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11"
    assert "python>=3.11" in (ROOT / "environment.yml").read_text()
