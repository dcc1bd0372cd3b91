"""Adversarial-input harness shared by the ``test_adversarial_*`` modules (issue 12, finding 6).

Each public function gets one valid baseline call; then every positional argument in turn is replaced by each
value of :data:`ADVERSARIAL`, with warnings raised as errors. The only acceptable outcomes are

* a :class:`ValueError` or :class:`TypeError` whose message names the parameter (or the argument's position
  for a wrong Python type), or
* a normal return that contains no NaN anywhere (floats, arrays, tuples, dicts, dataclass fields).

Anything else (AttributeError, OverflowError, ZeroDivisionError, IndexError, MemoryError, any warning, a NaN,
a call that runs past :data:`TIME_LIMIT` seconds) fails the test with the call that produced it.

A test module lists ``BASELINES = {name: (args, kwargs)}`` for every callable in its package's ``__all__``;
:func:`missing_baselines` makes forgetting one a failure, so a new public function cannot escape the sweep.
"""

from __future__ import annotations

import base64
import dataclasses
import math
import signal
import warnings
from contextlib import contextmanager
from typing import Any, Callable

import numpy as np

ADVERSARIAL: list[Any] = [
    0,
    -1,
    -0.0,
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    5e-324,
    10**400,
    True,
    None,
    "1",
    1 + 1j,
    [],
    np.array([]),
    [[1.0], [1.0, 2.0]],  # ragged
]

ADVERSARIAL_IDS = [
    "0", "-1", "-0.0", "nan", "inf", "-inf", "1e308", "5e-324", "10**400", "True", "None", "'1'", "1+1j",
    "[]", "empty-array", "ragged",
]

TIME_LIMIT = 20  # seconds; a size argument such as 1e308 must be refused by a cap, not attempted


class _TimeLimit(BaseException):
    """Derived from BaseException so that no ``except Exception`` inside dpviz can swallow it."""


@contextmanager
def _time_limit(seconds: int):
    def _raise(signum, frame):
        raise _TimeLimit(f"ran longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, _raise)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def has_nan(value: Any, _depth: int = 0) -> bool:
    """True if a NaN hides anywhere in ``value`` (numbers, arrays, sequences, mappings, dataclasses)."""
    if _depth > 6:
        return False
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        return False
    if isinstance(value, (float, np.floating)):
        return math.isnan(value)
    if isinstance(value, (complex, np.complexfloating)):
        return math.isnan(value.real) or math.isnan(value.imag)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            return bool(np.isnan(value).any())
        if value.dtype.kind == "O":
            return any(has_nan(v, _depth + 1) for v in value.ravel()[:10_000])
        return False
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(has_nan(getattr(value, f.name), _depth + 1) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return any(has_nan(v, _depth + 1) for v in list(value.values())[:10_000])
    if isinstance(value, (list, tuple)):
        return any(has_nan(v, _depth + 1) for v in value[:10_000])
    return False


def call_outcome(fn: Callable, args: tuple, kwargs: dict) -> str | None:
    """Run one call; return None if its outcome is acceptable, else a one-line description of what went wrong."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            with _time_limit(TIME_LIMIT):
                result = fn(*args, **kwargs)
        except (ValueError, TypeError) as exc:
            if not str(exc).strip():
                return f"{type(exc).__name__} with an empty message"
            return None
        except _TimeLimit as exc:
            return f"no answer: {exc}"
        except Exception as exc:  # noqa: BLE001 — the point is to name what escaped
            return f"{type(exc).__name__}: {str(exc)[:160]}"
        except Warning as w:  # pragma: no cover — warnings are exceptions here, caught above as Exception
            return f"warning {type(w).__name__}: {w}"
    if has_nan(result):
        return "returned NaN"
    return None


def sweep(fn: Callable, args: tuple, kwargs: dict | None = None) -> list[str]:
    """Replace each positional argument of a valid call by each adversarial value; list every bad outcome."""
    kwargs = dict(kwargs or {})
    problems = []
    base = call_outcome(fn, args, kwargs)
    if base is not None:
        return [f"baseline call {fn.__name__}{_show(args)} itself fails: {base}"]
    for i in range(len(args)):
        for value, vid in zip(ADVERSARIAL, ADVERSARIAL_IDS):
            bad_args = args[:i] + (value,) + args[i + 1 :]
            problem = call_outcome(fn, bad_args, kwargs)
            if problem is not None:
                problems.append(f"{fn.__name__}: argument {i} = {vid}: {problem}")
    return problems


def missing_baselines(module, baselines: dict, exempt: dict[str, str] | None = None) -> list[str]:
    """Names in ``module.__all__`` that are callable but have no baseline.

    ``exempt`` maps a name to the reason it takes no numeric input (e.g. an exception class); keep it short.
    """
    exempt = exempt or {}
    names = []
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name)
        if callable(obj) and name not in baselines and name not in exempt:
            names.append(name)
    return names


def _show(args: tuple) -> str:
    text = ", ".join(repr(a) if not isinstance(a, np.ndarray) else f"array{a.shape}" for a in args)
    return f"({text[:120]})"


# ------------------------------------------------------------------------------------------ one contract for all
#: every (module, name) a sweep covers, filled by :func:`register` (and :func:`contract_tests`) as the test modules
#: are imported; ``tests/contracts/test_adversarial_coverage.py`` checks it against every public callable of dpviz
REGISTRY: dict[int, str] = {}


def register(module, names, reason: str = "swept") -> None:
    """Record that ``names`` of ``module`` are swept (or, with a ``reason``, exempt on purpose)."""
    for name in names:
        REGISTRY[id(getattr(module, name))] = f"{module.__name__}.{name}: {reason}"


def contract_tests(module, baselines: dict, *, methods: dict | None = None,
                   exempt: dict[str, str] | None = None, suffix: str = "") -> dict[str, Callable]:
    """The adversarial contract of one module as pytest test functions, to bind at module level::

        globals().update(contract_tests(dpviz.selection, BASELINES, methods=METHODS))

    ``baselines`` maps each public name of ``module.__all__`` to one valid ``(args, kwargs)`` call; ``methods`` maps a
    label such as ``"Cls.method"`` to ``(bound method, args, kwargs)`` on a valid instance; ``exempt`` maps a name to
    the reason it takes no input to sweep. The tests: every callable of ``__all__`` has a baseline; every baseline
    (and method case) is a valid call, so that a sweep cannot pass by failing everywhere; each is swept. A test module
    that binds the contract of several modules gives each a ``suffix`` for its test names.
    """
    exempt = dict(exempt or {})
    methods = dict(methods or {})
    register(module, baselines)
    register(module, exempt, "exempt")

    def test_every_public_callable_has_a_baseline():
        missing = missing_baselines(module, baselines, exempt)
        assert not missing, f"no baseline for {missing}"

    def test_baselines_are_valid_calls():
        bad = {name: call_outcome(getattr(module, name), *baselines[name]) for name in baselines}
        bad.update({label: call_outcome(fn, args, kwargs) for label, (fn, args, kwargs) in methods.items()})
        bad = {k: v for k, v in bad.items() if v is not None}
        assert not bad, f"baselines that fail on their own: {bad}"

    import pytest  # here, so that the harness itself imports without pytest's collection

    @pytest.mark.parametrize("name", sorted(baselines))
    def test_sweep_public(name):
        args, kwargs = baselines[name]
        problems = sweep(getattr(module, name), args, kwargs)
        assert not problems, "\n".join(problems)

    tests = {"test_every_public_callable_has_a_baseline": test_every_public_callable_has_a_baseline,
             "test_baselines_are_valid_calls": test_baselines_are_valid_calls,
             "test_sweep_public": test_sweep_public}
    if methods:
        @pytest.mark.parametrize("label", sorted(methods))
        def test_sweep_methods(label):
            fn, args, kwargs = methods[label]
            problems = sweep(fn, args, kwargs)
            assert not problems, "\n".join(problems)

        tests["test_sweep_methods"] = test_sweep_methods
    tail = f"_{suffix}" if suffix else ""
    return {name + tail: test for name, test in tests.items()}


# ------------------------------------------------------------------------------------------ figures a browser can read
def non_finite_places(o: Any, path: str = "", *, arrays: bool = False) -> list[str]:
    """Where a figure's JSON (``fig.to_plotly_json()``) holds a NaN or ±inf Python float, which is not JSON; with
    ``arrays``, also numpy float arrays holding one (plotly sends arrays as binary buffers, where NaN is a gap)."""
    if isinstance(o, float) and not math.isfinite(o):
        return [path]
    if isinstance(o, dict) and set(o) == {"dtype", "bdata"}:  # plotly's binary array, base64 in the JSON
        if not arrays or np.dtype(o["dtype"]).kind != "f":
            return []
        values = np.frombuffer(base64.b64decode(o["bdata"]), dtype=np.dtype(o["dtype"]))
        return [] if np.all(np.isfinite(values)) else [path]
    if isinstance(o, dict):
        return sum((non_finite_places(v, f"{path}/{k}", arrays=arrays) for k, v in o.items()), [])
    if isinstance(o, (list, tuple)):
        return sum((non_finite_places(v, f"{path}[{i}]", arrays=arrays) for i, v in enumerate(o)), [])
    if arrays and isinstance(o, np.ndarray) and o.dtype.kind == "f" and not np.all(np.isfinite(o)):
        return [path]
    return []


def sendable(fn: Callable, name: str, *, arrays: bool = False) -> Callable:
    """``fn`` (named ``name`` for the sweep's messages) with a check that any figure it returns holds no non-finite
    number (:func:`non_finite_places`): a failed check is an AssertionError, which the sweep reports."""
    import plotly.graph_objects as go

    def wrapped(*args, **kwargs):
        out = fn(*args, **kwargs)
        if isinstance(out, go.Figure):
            bad = non_finite_places(out.to_plotly_json(), arrays=arrays)
            assert not bad, f"non-finite numbers in the figure at {bad[:3]}"
        return out

    wrapped.__name__ = name
    return wrapped
