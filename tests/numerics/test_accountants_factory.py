"""The one string → mechanism factory (dpviz.accountants.factory) used by lessons 03 and 07."""

import pytest

from dpviz import mechanisms as M
from dpviz.accountants.factory import MECHANISM_KINDS, NOISE_PARAMETER, make_mechanism


@pytest.mark.parametrize("kind,want", [
    ("laplace", M.Laplace(2.0, 3.0)),
    ("gaussian", M.Gaussian(2.0, 3.0)),
    ("rr", M.RandomizedResponse(2.0)),  # neighbours are the two bits: no sensitivity
    ("dlaplace", M.DiscreteLaplace(2.0, 3)),
    ("dgaussian", M.DiscreteGaussian(2.0, 3)),
    ("tdlap", M.TruncatedDiscreteLaplace(2.0, 1e-3)),
])
def test_every_kind_builds_its_mechanism(kind, want):
    assert make_mechanism(kind, 2.0, 3.0) == want
    assert set(MECHANISM_KINDS) == set(NOISE_PARAMETER)


def test_tdlap_delta_is_passed_through():
    assert make_mechanism("tdlap", 0.8, tdlap_delta=1e-6) == M.TruncatedDiscreteLaplace(0.8, 1e-6)


@pytest.mark.parametrize("args,name", [
    (("cauchy", 1.0), "mechanism"),
    (("Gaussian", 1.0), "mechanism"),
    (("gaussian", -1.0), "sigma"),
    (("laplace", 0.0), "scale"),
    (("dgaussian", 1.0, 1.5), "sensitivity"),
    (("dlaplace", 1.0, 0), "sensitivity"),
    (("rr", float("nan")), "epsilon"),
])
def test_bad_arguments_raise_value_errors_naming_the_parameter(args, name):
    with pytest.raises(ValueError, match=name):
        make_mechanism(*args)
