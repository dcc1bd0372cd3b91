"""The adversarial sweep covers every public callable of dpviz.

Each ``tests/test_adversarial_*.py`` module registers what it sweeps (:func:`_adversarial.register`, or
:func:`_adversarial.contract_tests`, which registers and builds the sweep). This test imports all of them, walks
every module of the package and fails on a callable of a module's ``__all__`` that no sweep covers and no entry below
exempts with its reason. A module without ``__all__`` fails too: its public surface would be unknown.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import _adversarial

import dpviz

#: Whole modules that take no numeric input from a library user, with the reason; everything else is swept.
EXEMPT_MODULES: dict[str, str] = {
    "dpviz.app": "the serving layer: its input is HTTP requests and kernel messages (tests/test_server*.py)",
    "dpviz.scheduling": "the serving layer: operating-system scheduling of the server's own processes",
    "dpviz.serve": "the serving layer: its input is HTTP requests and kernel messages (tests/test_server*.py)",
    "dpviz.lessons": "the lesson catalogue: reads the package's own notebooks (tests/lessons/test_lessons.py)",
    "dpviz.export": "the static export: file names of the package's own notebooks (tests/lessons/test_export.py)",
    "dpviz.references": "the bibliography: keys into a fixed table (tests/contracts/test_references.py)",
    "dpviz.panels.classfeed": "the class view's kernel client: its input is the server's environment variable and "
                              "HTTP replies, each refused with a ValueError or a friendly line "
                              "(tests/panels/test_classfeed.py)",
}

ROOT = Path(__file__).resolve().parent


def _exempt(name: str) -> str | None:
    for prefix, reason in EXEMPT_MODULES.items():
        if name == prefix or name.startswith(prefix + "."):
            return reason
    return None


def _public_modules():
    for info in pkgutil.walk_packages(dpviz.__path__, "dpviz."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue  # private modules: reached only through the public ones
        if _exempt(info.name):
            continue  # not swept, so not imported: e.g. dpviz/serve/jupyter_lessons_config.py, a Jupyter config
            # file that only Jupyter executes (with its get_config), and the hub service's jupyterhub imports
        yield importlib.import_module(info.name)


def _load_sweeps() -> None:
    for path in sorted(ROOT.glob("test_adversarial_*.py")):
        if path.stem != Path(__file__).stem:
            importlib.import_module(path.stem)


def uncovered() -> list[str]:
    """Every public callable no sweep registered, as "module.name"; modules without ``__all__`` as "module: …"."""
    _load_sweeps()
    missing = []
    for module in _public_modules():
        if _exempt(module.__name__):
            continue
        names = getattr(module, "__all__", None)
        if names is None:
            missing.append(f"{module.__name__}: no __all__")
            continue
        for name in names:
            obj = getattr(module, name)
            if callable(obj) and not isinstance(obj, type(dpviz)) and id(obj) not in _adversarial.REGISTRY:
                missing.append(f"{module.__name__}.{name}")
    return missing


def test_every_public_callable_of_dpviz_is_swept():
    assert uncovered() == []


def test_the_coverage_check_sees_an_unswept_function(monkeypatch):
    """It can fail: a public function added to a swept module's ``__all__`` without a baseline is reported."""
    import dpviz.tradeoff as module

    def brand_new(x):
        return x

    monkeypatch.setattr(module, "brand_new", brand_new, raising=False)
    monkeypatch.setattr(module, "__all__", [*module.__all__, "brand_new"])
    assert "dpviz.tradeoff.brand_new" in uncovered()


def test_the_figure_check_sees_a_non_finite_number():
    """sendable can fail: a NaN in a figure's JSON (or, with arrays=True, in a binary array) is reported."""
    import numpy as np
    import plotly.graph_objects as go

    def figure(y):
        return go.Figure(go.Scatter(x=[0, 1], y=y))

    assert _adversarial.call_outcome(_adversarial.sendable(figure, "figure"), ([1.0, 2.0],), {}) is None
    with_nan = [1.0, float("nan")]
    assert "non-finite" in _adversarial.call_outcome(_adversarial.sendable(figure, "figure"), (with_nan,), {})
    nan_array = np.array([1.0, np.nan])
    assert _adversarial.call_outcome(_adversarial.sendable(figure, "figure"), (nan_array,), {}) is None  # a gap
    assert "non-finite" in _adversarial.call_outcome(_adversarial.sendable(figure, "figure", arrays=True),
                                                     (nan_array,), {})
