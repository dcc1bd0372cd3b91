"""The shared behaviour of dpviz's mechanisms: :class:`_Mechanism` (``delta``/``release``/``sample_noise``
on validated arguments) and :class:`_CallableFloat` (a parameter that is also a method).
"""

from __future__ import annotations

from typing import Callable

from dpviz._validation import _eps_arg, _no_nan, _out, _size_arg, _values_arg, as_rng


class _CallableFloat(float):
    """A float parameter that is also callable.

    The API contract names both a parameter and a method ``epsilon`` (``RandomizedResponse(epsilon).epsilon`` and
    ``mech.epsilon(delta)``; likewise ``TruncatedDiscreteLaplace.delta``). The stored field is this float subclass:
    it compares, hashes, formats and computes as the parameter, and calling it evaluates the method.

    >>> from dpviz.mechanisms import RandomizedResponse
    >>> RandomizedResponse(1.0).epsilon == 1.0, RandomizedResponse(1.0).epsilon(0.0)
    (True, 1.0)
    """

    def __new__(cls, value: float, fn: Callable):
        obj = super().__new__(cls, value)
        obj._fn = fn
        return obj

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __reduce__(self):
        return (float, (float(self),))


class _Mechanism:
    """Shared behaviour; subclasses implement ``_delta`` (array → array), ``_sample`` and the distributions."""

    _integer_valued = False

    def delta(self, epsilon):
        """Exact privacy profile δ(ε) ≥ 0 for ε ≥ 0 (scalar → float, array → array)."""
        e, scalar = _eps_arg(epsilon)
        return _out(_no_nan(self._delta(e), "delta(epsilon)", "epsilon", epsilon), scalar)

    def release(self, value, rng=None):
        """``value`` plus independent noise per entry (scalar in, scalar out)."""
        v, scalar = _values_arg(value, integer=self._integer_valued)
        noise = self._sample(v.shape, as_rng(rng))
        out = v + noise
        if scalar:
            return int(out[0]) if self._integer_valued else float(out[0])
        return out

    def sample_noise(self, size=None, rng=None):
        """The noise alone: a scalar for ``size=None``, else an array of shape ``size``."""
        shape, scalar = _size_arg(size)
        noise = self._sample(shape, as_rng(rng))
        if scalar:
            return int(noise[0]) if self._integer_valued else float(noise[0])
        return noise
