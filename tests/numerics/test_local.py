"""dpviz.local: k-RR and OUE against exact enumeration (tiny n), the formula of Wang et al. 2017, and simulation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz import local as L
from dpviz.mechanisms import RandomizedResponse


def _krr_report_pmf(v, k, eps):
    """P[report = r | value v] from the definition (e^ε/(e^ε+k−1) for the truth, 1/(e^ε+k−1) otherwise)."""
    z = math.exp(eps) + k - 1
    return [math.exp(eps) / z if r == v else 1.0 / z for r in range(k)]


@pytest.mark.parametrize("k,eps", [(2, 0.5), (3, 1.0), (5, 2.0), (100, 0.1)])
def test_krr_probabilities_are_the_definition_and_epsilon_ldp(k, eps):
    p, q = L.krr_probabilities(k, eps)
    pmf = _krr_report_pmf(0, k, eps)
    assert p == pytest.approx(pmf[0], rel=1e-14) and q == pytest.approx(pmf[1], rel=1e-14)
    assert p + (k - 1) * q == pytest.approx(1.0, rel=1e-14)
    assert math.log(p / q) == pytest.approx(eps, rel=1e-12)  # the worst-case ratio of two inputs' reports is e^ε


def test_binary_krr_is_randomized_response():
    for eps in (0.1, 1.0, 3.0):
        assert L.krr_probabilities(2, eps)[0] == pytest.approx(RandomizedResponse(eps).keep_probability, rel=1e-14)


@pytest.mark.parametrize("data,k,eps", [([0, 0, 1], 3, 1.0), ([1, 2, 2, 0], 3, 0.4), ([0, 1], 2, 2.0)])
def test_krr_estimator_unbiased_with_exact_variance_by_enumeration(data, k, eps):
    """Every one of the k^n report vectors with its exact probability: E f̂ = f and Var f̂ = krr_variance."""
    n = len(data)
    pmfs = [_krr_report_pmf(v, k, eps) for v in data]
    mean = np.zeros(k)
    second = np.zeros(k)
    total = 0.0
    for reports in itertools.product(range(k), repeat=n):
        prob = math.prod(pmfs[i][r] for i, r in enumerate(reports))
        est = L.krr_estimate(np.array(reports), k, eps)
        mean += prob * est
        second += prob * est**2
        total += prob
    assert total == pytest.approx(1.0, rel=1e-12)
    for v in range(k):
        f = data.count(v) / n
        assert mean[v] == pytest.approx(f, abs=1e-11)
        assert second[v] - mean[v] ** 2 == pytest.approx(L.krr_variance(n, k, eps, f), rel=1e-9)


@pytest.mark.parametrize("data,k,eps", [([0, 1], 3, 1.0), ([2, 2], 3, 0.7), ([0, 1, 1], 2, 1.5)])
def test_oue_estimator_unbiased_with_exact_variance_by_enumeration(data, k, eps):
    """Every one of the 2^(n·k) bit matrices with its exact probability (½ for the true bit, 1/(e^ε+1) else)."""
    n = len(data)
    q = 1.0 / (math.exp(eps) + 1.0)
    mean, second = np.zeros(k), np.zeros(k)
    for bits in itertools.product((0, 1), repeat=n * k):
        r = np.array(bits).reshape(n, k)
        prob = 1.0
        for i, v in enumerate(data):
            for j in range(k):
                pj = 0.5 if j == v else q
                prob *= pj if r[i, j] else 1.0 - pj
        est = L.oue_estimate(r, eps)
        mean += prob * est
        second += prob * est**2
    for v in range(k):
        f = data.count(v) / n
        assert mean[v] == pytest.approx(f, abs=1e-11)
        assert second[v] - mean[v] ** 2 == pytest.approx(L.oue_variance(n, eps, f), rel=1e-9)


def test_oue_variance_at_zero_frequency_is_wang_et_al():
    for eps in (0.2, 1.0, 4.0):
        e = math.exp(eps)
        assert L.oue_variance(1000, eps) == pytest.approx(4 * e / (1000 * (e - 1) ** 2), rel=1e-12)


@given(st.integers(2, 50), st.floats(0.05, 8.0), st.floats(0.0, 1.0), st.integers(1, 10**6))
@settings(max_examples=60, deadline=None)
def test_krr_variance_is_the_bernoulli_sum(k, eps, f, n):
    """c_v is n f Bernoulli(p) plus n(1 − f) Bernoulli(q): Var f̂ = [f p(1−p) + (1−f) q(1−q)]/(n(p−q)²)."""
    z = math.exp(eps) + k - 1
    p, q = math.exp(eps) / z, 1 / z
    direct = (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)
    assert L.krr_variance(n, k, eps, f) == pytest.approx(direct, rel=1e-9)
    assert L.krr_variance(n, k, eps, f) == pytest.approx(L.local_variance("krr", n, k, eps, f), rel=0)


@pytest.mark.parametrize("protocol", L.PROTOCOLS)
def test_estimates_by_simulation_mean_and_variance_match(protocol):
    """R independent surveys of n people: the mean of f̂ is within 5 standard errors (√(Var/R)) of f, and the
    sample variance within 5 of its own standard errors (≈ Var·√(2/(R−1)) for near-normal f̂, n large)."""
    k, eps, n, reps = 4, 1.0, 2000, 300
    data = np.repeat(np.arange(k), [1000, 600, 400, 0])
    rng = np.random.default_rng(20261125)
    ests = []
    for _ in range(reps):
        if protocol == "krr":
            ests.append(L.krr_estimate(L.krr_release(data, k, eps, rng=rng), k, eps))
        else:
            ests.append(L.oue_estimate(L.oue_release(data, k, eps, rng=rng), eps))
    ests = np.array(ests)
    for v in range(k):
        f = np.count_nonzero(data == v) / n
        var = L.local_variance(protocol, n, k, eps, f)
        assert abs(ests[:, v].mean() - f) <= 5 * math.sqrt(var / reps)
        assert abs(ests[:, v].var(ddof=1) - var) <= 5 * var * math.sqrt(2 / (reps - 1))


@pytest.mark.parametrize("k", [2, 5])
def test_krr_release_keeps_with_p_and_spreads_others_uniformly(k):
    """n = 100,000 reports of value 0: keep count ~ Binomial(n, p), each other value ~ Binomial(n, q);
    tolerance 5 binomial standard deviations."""
    eps, n = 1.2, 100_000
    p, q = L.krr_probabilities(k, eps)
    counts = np.bincount(L.krr_release(np.zeros(n, dtype=int), k, eps, rng=7), minlength=k)
    assert abs(counts[0] - n * p) <= 5 * math.sqrt(n * p * (1 - p))
    for c in counts[1:]:
        assert abs(c - n * q) <= 5 * math.sqrt(n * q * (1 - q))


def test_release_is_reproducible_with_a_seed():
    data = np.arange(10) % 3
    assert np.array_equal(L.krr_release(data, 3, 1.0, rng=3), L.krr_release(data, 3, 1.0, rng=3))
    assert np.array_equal(L.oue_release(data, 3, 1.0, rng=3), L.oue_release(data, 3, 1.0, rng=3))


def test_local_error_grows_like_sqrt_n_central_does_not():
    for protocol in L.PROTOCOLS:
        s = L.local_count_std(protocol, np.array([100.0, 10_000.0]), 2, 1.0)
        assert s[1] / s[0] == pytest.approx(10.0, rel=1e-12)
        assert s[0] == pytest.approx(math.sqrt(100 * L.local_variance(protocol, 1, 2, 1.0)), rel=1e-12)
    assert L.central_count_std(0.5) == pytest.approx(math.sqrt(2) * 2.0, rel=1e-14)  # Var Lap(b) = 2b², b = 1/ε


def test_people_needed_local_gives_the_same_fraction_error_as_central():
    for protocol, k, eps, n in [("krr", 2, 1.0, 1000), ("oue", 10, 0.5, 300), ("krr", 20, 2.0, 50)]:
        n_local = L.people_needed_local(protocol, n, k, eps)
        central_fraction_sd = (math.sqrt(2) / eps) / n
        local_fraction_sd = L.local_count_std(protocol, np.array([n_local]), k, eps)[0] / n_local
        assert local_fraction_sd == pytest.approx(central_fraction_sd, rel=1e-12)
        assert n_local > n


@pytest.mark.parametrize("call,name", [
    (lambda: L.krr_release([0, 1], 1, 1.0), "k"),
    (lambda: L.krr_release([0, 3], 3, 1.0), "values"),
    (lambda: L.krr_release([0, 0.5], 3, 1.0), "values"),
    (lambda: L.krr_release([0, 1], 3, -1.0), "epsilon"),
    (lambda: L.krr_release([0, 1], 3, 1.0, rng="x"), "rng"),
    (lambda: L.krr_estimate([0, 5], 3, 1.0), "reports"),
    (lambda: L.krr_variance(0, 3, 1.0), "n"),
    (lambda: L.krr_variance(10, 3, 1.0, frequency=1.5), "frequency"),
    (lambda: L.oue_estimate([[0, 2]], 1.0), "reports"),
    (lambda: L.oue_variance(10, float("nan")), "epsilon"),
    (lambda: L.local_variance("rappor", 10, 3, 1.0), "protocol"),
    (lambda: L.local_count_std("krr", np.array([0.0, 5.0]), 3, 1.0), "n"),
])
def test_bad_input_names_the_parameter_and_range(call, name):
    with pytest.raises(ValueError, match=name) as info:
        call()
    assert "must" in str(info.value)
