"""The one validation helper: messages name the parameter, the value and the allowed range."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpviz._validation import (
    as_rng,
    check_array,
    check_choice,
    check_delta,
    check_in_range,
    check_integer,
    check_positive,
    check_probability,
    check_real_array,
)

BAD_POSITIVE = [0.0, -1.0, math.nan, math.inf, -math.inf, "1", None, True, [1.0]]


@pytest.mark.parametrize("value", BAD_POSITIVE)
def test_check_positive_rejects_with_named_message(value):
    with pytest.raises(ValueError, match=r"epsilon = .* is not allowed: must be a finite number > 0"):
        check_positive(value, "epsilon")


@given(st.floats(min_value=1e-300, max_value=1e300))
def test_check_positive_accepts_every_positive_finite(x):
    assert check_positive(x, "sigma") == x


def test_check_positive_zero_and_inf_options():
    assert check_positive(0, "rho", allow_zero=True) == 0.0
    assert check_positive(math.inf, "eps", allow_inf=True) == math.inf
    with pytest.raises(ValueError, match="rho = -0.1"):
        check_positive(-0.1, "rho", allow_zero=True)


@pytest.mark.parametrize("value", [-1e-12, 1.0, 1.5, math.nan])
def test_check_delta_range_is_half_open(value):
    with pytest.raises(ValueError, match=r"delta = .* must be a number in \[0, 1\)"):
        check_delta(value)


def test_check_delta_zero_excluded_on_request():
    assert check_delta(0.0) == 0.0
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        check_delta(0.0, allow_zero=False)


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-10, max_value=10))
def test_check_in_range_agrees_with_interval_membership(x):
    inside = 0 < x <= 1
    if inside:
        assert check_in_range(x, "rate", 0, 1, low_inclusive=False) == x
    else:
        with pytest.raises(ValueError, match=r"rate = .* \(0, 1\]"):
            check_in_range(x, "rate", 0, 1, low_inclusive=False)


def test_check_probability_bounds():
    assert check_probability(1.0, "p") == 1.0
    with pytest.raises(ValueError, match=r"p = 1.0 .*\[0, 1\)"):
        check_probability(1.0, "p", open_high=True)


@pytest.mark.parametrize("value", [2.5, True, "3", math.nan, 0, -4])
def test_check_integer_rejects(value):
    with pytest.raises(ValueError, match=r"count = .* must be an integer >= 1"):
        check_integer(value, "count", minimum=1)


def test_check_integer_accepts_integral_floats_and_numpy_ints():
    assert check_integer(3.0, "k") == 3
    assert check_integer(np.int64(7), "k", minimum=0, maximum=7) == 7
    with pytest.raises(ValueError, match="<= 7"):
        check_integer(8, "k", maximum=7)


def test_check_choice():
    assert check_choice("pld", "accountant", ("pld", "rdp")) == "pld"
    with pytest.raises(ValueError, match=r"accountant = 'x' .* one of 'pld', 'rdp'"):
        check_choice("x", "accountant", ("pld", "rdp"))


def test_check_array_rejects_nan_empty_and_wrong_ndim():
    with pytest.raises(ValueError, match=r"values contains 1 NaN"):
        check_array([1.0, np.nan], "values")
    with pytest.raises(ValueError, match=r"values is empty"):
        check_array([], "values")
    with pytest.raises(ValueError, match=r"values has shape \(2, 2\) \(2-D\).*must be 1-D"):
        check_array([[1, 2], [3, 4]], "values", ndim=1)
    with pytest.raises(ValueError, match=r"values is ragged \(its rows have different lengths\).*rectangular"):
        check_array([[1, 2], [3]], "values")
    assert check_array([1, 2], "values", ndim=1).dtype == float


def test_as_rng_normalises_and_refuses_legacy_state():
    g = np.random.default_rng(3)
    assert as_rng(g) is g
    assert as_rng(5).integers(1 << 30) == np.random.default_rng(5).integers(1 << 30)
    assert isinstance(as_rng(None), np.random.Generator)
    with pytest.raises(ValueError, match="rng = RandomState"):
        as_rng(np.random.RandomState(0))
    with pytest.raises(ValueError, match="rng = 'abc'"):
        as_rng("abc")


@pytest.mark.parametrize("value", [10**400, -(10**400), np.complex128(1.0), 1j, np.bool_(True), "2.0", b"2"])
def test_scalars_beyond_float_or_not_real_are_refused_with_the_template(value):
    # 10**400 used to escape as OverflowError; numpy complex was silently truncated to its real part
    with pytest.raises(ValueError, match=r"sigma = .* is not allowed: must be a finite number > 0"):
        check_positive(value, "sigma")
    with pytest.raises(ValueError, match=r"delta = .* must be a number in \[0, 1\)"):
        check_delta(value)


def test_check_positive_allow_inf_refuses_huge_ints_cleanly():
    assert check_positive(np.float64(math.inf), "eps", allow_inf=True) == math.inf
    with pytest.raises(ValueError, match="eps = "):
        check_positive(10**400, "eps", allow_inf=True)


@pytest.mark.parametrize("value", [["1.5", "2"], np.array(["1.5"]), [b"1"], [1.0, None], [10**400]])
def test_check_array_refuses_strings_none_and_overflow(value):
    # strings used to be parsed silently ("1.5" -> 1.5); an int beyond the float range raised OverflowError
    with pytest.raises(ValueError, match=r"values could not be read as a numeric array"):
        check_array(value, "values")


def test_check_array_still_takes_numbers_of_any_kind():
    from fractions import Fraction

    np.testing.assert_array_equal(check_array([Fraction(1, 2), np.float32(0.25), 3], "v"), [0.5, 0.25, 3.0])
    np.testing.assert_array_equal(check_array(np.array([True, False]), "bits"), [1.0, 0.0])


@given(st.text(min_size=1))
def test_any_text_is_refused_as_a_number(s):
    with pytest.raises(ValueError, match="x"):
        check_positive(s, "x")
    with pytest.raises(ValueError, match="x"):
        check_array([s], "x")


@pytest.mark.parametrize("value", [1 + 1j, np.complex128(2j), [1.0, 2 + 0j], np.array([1j, 2.0]), ([0j] * 50)])
def test_check_real_array_refuses_complex_instead_of_casting(value):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # check_array would emit a ComplexWarning and drop the imaginary part
        with pytest.raises(ValueError, match=r"scores = .* is not allowed: must be real numbers"):
            check_real_array(value, "scores")


def test_check_real_array_otherwise_behaves_as_check_array():
    assert check_real_array([1, 2.5], "x").tolist() == [1.0, 2.5]
    assert check_real_array([], "x", allow_empty=True).size == 0
    with pytest.raises(ValueError, match="x is ragged"):
        check_real_array([[1.0], [1.0, 2.0]], "x")
    with pytest.raises(ValueError, match="x contains 1 NaN"):
        check_real_array([1.0, math.nan], "x")
    msg = str(pytest.raises(ValueError, check_real_array, [0j] * 50, "x").value)
    assert "50 values" in msg and len(msg) < 200  # a long input is summarised, not printed


def test_array_arg_validates_scalars_and_arrays_with_the_template():
    from dpviz._validation import _array_arg

    arr, scalar = _array_arg(0.5, "delta", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    assert scalar and arr.tolist() == [0.5]
    arr, scalar = _array_arg([0.1, 0.2], "delta", 0.0, 1.0)
    assert not scalar and arr.dtype == float and arr.tolist() == [0.1, 0.2]
    with pytest.raises(ValueError, match=r"delta = 1\.0 is not allowed: must be a number in \(0, 1\)\."):
        _array_arg([0.5, 1.0], "delta", 0.0, 1.0, low_inclusive=False, high_inclusive=False)
    with pytest.raises(ValueError, match="delta"):
        _array_arg([0.5, math.nan], "delta", 0.0, 1.0)


def test_bisect_doubles_finds_the_smallest_feasible_double():
    # oracle: the predicate x >= t has the answer t itself (every double t > 0), found among all 2^63 bit patterns
    from dpviz._inverse import _bisect_doubles

    t = np.array([5e-324, 1e-300, 0.1, 1.0, 3.7e200])
    got = _bisect_doubles(lambda x: x >= t, t.shape, 0.0, math.inf)
    np.testing.assert_array_equal(got, t)


def test_check_choice_refuses_arrays_and_bools_that_compare_equal():
    """``np.array(['sum']) in ('sum',)`` is elementwise and passed an ``in`` test; True == 1 too."""
    from dpviz._validation import check_choice

    assert check_choice("sum", "query", ("sum", "count")) == "sum"
    assert check_choice(np.int64(2), "k", (1, 2)) == 2
    for bad, choices in ((np.array(["sum"]), ("sum",)), (True, (1, 2)), (1, (True, False)), ("1", (1, 2))):
        with pytest.raises(ValueError, match=r"query = .* is not allowed: must be one of"):
            check_choice(bad, "query", choices)


# ------------------------------------------------------------------------------------------- declarative specs

import importlib  # noqa: E402
import inspect  # noqa: E402
import pkgutil  # noqa: E402

import dpviz  # noqa: E402
from dpviz._validation import ArrayOf, Cap, InstanceOf, Interval, Options, checked, specs_of  # noqa: E402


def test_interval_renders_the_template_of_the_check_functions():
    for spec, bad, want in [
        (Interval(1, 10, integer=True), 11, "n = 11 is not allowed: must be an integer >= 1 and <= 10."),
        (Interval(1, 10, integer=True), 2.5, "n = 2.5 is not allowed: must be an integer >= 1 and <= 10."),
        (Interval(1, 10, integer=True), True, "n = True is not allowed: must be an integer >= 1 and <= 10."),
        (Interval(0, 1, open_low=True), 0.0, "n = 0.0 is not allowed: must be a number in (0, 1]."),
        (Interval(0, None, open_low=True), -1.0, "n = -1.0 is not allowed: must be a finite number > 0."),
        (Interval(0, None), float("nan"), "n = nan is not allowed: must be a non-negative number >= 0."),
        (Interval(2, None), 1.5, "n = 1.5 is not allowed: must be a finite number >= 2."),
        (Options("a", "b"), "c", "n = 'c' is not allowed: must be one of 'a', 'b'."),
    ]:
        with pytest.raises(ValueError) as info:
            spec.check(bad, "n")
        assert str(info.value) == want


def test_interval_fast_path_returns_what_the_check_functions_return():
    assert Interval(1, 10, integer=True).check(3.0, "n") == 3 and type(Interval(1, 10, integer=True)(3.0, "n")) is int
    assert Interval(1, 10, integer=True).check(np.int64(4), "n") == 4
    assert type(Interval(0, 1).check(1, "p")) is float
    assert Interval(0, 1, open_high=True).check(0.5, "p") == 0.5
    with pytest.raises(ValueError, match="must be a number in"):
        Interval(0, 1, open_high=True).check(1.0, "p")
    with pytest.raises(ValueError):
        Interval(0, 1).check(float("inf"), "p")


def test_interval_refuses_an_int_beyond_the_float_range_with_the_template():
    # the fast path converted int(10**400) with float() and raised OverflowError instead of the ValueError
    for spec in (Interval(0, None, open_low=True), Interval(0, None), Interval(-1.0, None)):
        with pytest.raises(ValueError, match=r"^x = 1000.* is not allowed: must be a"):
            spec.check(10**400, "x")
    assert Interval(0, None).check(2**1000, "x") == float(2**1000)
    assert Interval(1, None, integer=True).check(10**400, "x") == 10**400


def test_array_instance_and_cap_specs():
    assert ArrayOf(ndim=1).check([1, 2], "x").tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match=r"x has an entry of magnitude 5, .*\[-4, 4\]"):
        ArrayOf(max_abs=4).check([5.0], "x")
    with pytest.raises(TypeError, match=r"task = int is not allowed: must be a str \(a hint\)"):
        InstanceOf(str, "a hint").check(3, "task")
    assert Cap(10, "things").check(10, "n·m") == 10
    with pytest.raises(ValueError, match=r"n·m = 11 is not allowed: must be <= 10 \(the cap on things\)"):
        Cap(10, "things").check(11, "n·m")


def test_checked_binds_positional_and_keyword_arguments_and_converts():
    @checked(n=Interval(1, 5, integer=True), kind=Options("a", "b"))
    def f(x, n=2, *, kind="a"):
        return x, n, kind

    assert f("x", 3.0, kind="b") == ("x", 3, "b")
    assert f("x", n=4) == ("x", 4, "a")
    assert f("x") == ("x", 2, "a")  # defaults are trusted
    with pytest.raises(ValueError, match="n = 6"):
        f("x", 6)
    with pytest.raises(ValueError, match="kind = 'c'"):
        f("x", kind="c")
    assert set(specs_of(f)) == {"n", "kind"}
    with pytest.raises(TypeError, match="no parameter"):
        checked(m=Interval())(lambda n: n)


def test_checked_on_a_frozen_dataclass_checks_fields_before_post_init():
    import dataclasses

    seen = []

    @checked(n=Interval(1, 5, integer=True))
    @dataclasses.dataclass(frozen=True)
    class Rec:
        n: int

        def __post_init__(self):
            seen.append(self.n)

    assert Rec(2.0).n == 2 and seen == [2]
    with pytest.raises(ValueError, match="n = 9"):
        Rec(9)

    @checked(n=Interval(1, 5, integer=True))
    @dataclasses.dataclass(frozen=True)
    class Bare:
        n: int

    assert Bare(3.0).n == 3
    with pytest.raises(ValueError, match="n = 0"):
        Bare(0)


def _declared_caps():
    """Every size cap declared as a spec in dpviz: module-level Cap and integer Interval objects, and the specs
    @checked attaches to functions and classes."""
    found = {}
    for info in pkgutil.walk_packages(dpviz.__path__, "dpviz."):
        if ".serve" in info.name or info.name.endswith("__main__"):
            continue
        mod = importlib.import_module(info.name)
        for attr, value in vars(mod).items():
            specs = {attr: value} if isinstance(value, (Cap, Interval)) else {
                f"{attr}.{k}": v for k, v in specs_of(value).items()}
            for label, spec in specs.items():
                size_cap = isinstance(spec, Interval) and spec.integer and spec.high is not None
                if not (isinstance(spec, Cap) or size_cap):
                    continue
                again = [k for k, seen in found.items() if seen is spec]
                if again:  # imported by another module: label it by the module that declares it
                    if f"\n{attr} = " in (inspect.getsource(mod) or ""):
                        del found[again[0]]
                    else:
                        continue
                found[f"{info.name}.{label}"] = spec
    return found


CAPS = _declared_caps()


def test_the_spec_walk_finds_the_caps():
    assert "dpviz.learning.tasks.TRAINING_WORK" in CAPS and "dpviz.learning.optim.STEPS" in CAPS
    for label in ("dpviz.mean.hadamard.ELEMENTS", "dpviz.mean.simulate.TRIALS", "dpviz.partial.histograms.RECORDS",
                  "dpviz.partial.histograms.WORK", "dpviz.userlevel.data.USERS", "dpviz.userlevel.data.CELLS",
                  "dpviz.accountants._base.RUNS", "dpviz.accountants.rdp.ORDERS"):
        assert label in CAPS, label


@pytest.mark.parametrize("label", sorted(CAPS))
def test_every_declared_cap_refuses_one_more_and_names_the_cap(label):
    spec = CAPS[label]
    cap = spec.limit if isinstance(spec, Cap) else int(spec.high)
    assert spec.check(cap, "size") == cap
    with pytest.raises(ValueError) as info:
        spec.check(cap + 1, "size")
    msg = str(info.value)
    assert msg.startswith(f"size = {cap + 1} is not allowed") and str(cap) in msg
