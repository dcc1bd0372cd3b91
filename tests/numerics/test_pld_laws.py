"""The single-mechanism privacy-loss laws of the PLD accountant (dpviz.accountants.pld.laws) against oracles
computed from the mechanisms' densities themselves (mpmath), not from the laws' own formulas."""

from __future__ import annotations

import math
import pathlib

import mpmath as mp
import numpy as np
import pytest

from dpviz.accountants.pld.laws import GaussianLaw, discrete_laplace_loss


@pytest.mark.parametrize("sigma, sens", [(1.0, 1.0), (0.3, 2.0), (25.0, 1.0), (1e6, 1.0)])
def test_gaussian_law_is_parametrised_by_rho_and_matches_the_densities(sigma, sens):
    # L(x) = ln N(x; 0, σ²)/N(x; Δ, σ²) = (Δ² − 2xΔ)/(2σ²) is decreasing in x, so under P = N(0, σ²)
    # P(L > t) = P(x < (Δ² − 2σ²t)/(2Δ)) — computed from x, never from the law N(ρ, 2ρ)
    mp.mp.dps = 40
    rho = sens**2 / (2 * sigma**2)
    law = GaussianLaw(rho=rho)
    assert law.rho == rho
    assert law.sd == pytest.approx(sens / sigma, rel=1e-15)  # the loss sd is μ = Δ/σ = √(2ρ)
    s, d = mp.mpf(sigma), mp.mpf(sens)
    for z in (-6.0, -1.0, 0.0, 0.5, 3.0, 9.0):
        t = rho + z * law.sd
        x = (d * d - 2 * s * s * mp.mpf(t)) / (2 * d)
        want_sf = float(mp.ncdf(x / s))
        want_cdf = float(1 - mp.ncdf(x / s))
        assert float(law.sf(t)) == pytest.approx(want_sf, rel=1e-12, abs=0)
        assert float(law.cdf(t)) == pytest.approx(want_cdf, rel=1e-12, abs=0)
        # under Q = N(Δ, σ²): Q(L > t) = P(x' < x) with x' ~ N(Δ, σ²)
        assert float(law.qsf(t)) == pytest.approx(float(mp.ncdf((x - d) / s)), rel=1e-12, abs=0)


@pytest.mark.parametrize("scale, sens", [(1.0, 1), (0.5, 3), (4.0, 5)])
def test_discrete_laplace_loss_matches_brute_force_pmf(scale, sens):
    # P = DLap(0, b), Q = DLap(Δ, b) on the integers: sum P-mass per loss value over |k| ≤ 400
    mp.mp.dps = 40
    b = mp.mpf(scale)
    ks = range(-400, 401)
    z = mp.fsum(mp.e ** (-abs(k) / b) for k in ks)
    law = {}
    for k in ks:
        loss = (abs(k - sens) - abs(k)) / b
        key = round(float(loss), 9)
        law[key] = law.get(key, mp.mpf(0)) + mp.e ** (-abs(k) / b) / z
    losses, log_p = discrete_laplace_loss(scale, sens)
    got = {round(float(l_), 9): math.exp(lp) for l_, lp in zip(losses, log_p, strict=True)}
    assert set(got) == set(law)
    for key, want in law.items():
        assert got[key] == pytest.approx(float(want), rel=1e-12, abs=0)


def test_pld_package_does_not_import_rdp():
    # discrete_laplace_loss lives in pld.laws; rdp imports it from there (no cycle, no function-local import)
    root = pathlib.Path(__file__).resolve().parents[2] / "dpviz" / "accountants" / "pld"
    for path in root.glob("*.py"):
        assert "accountants.rdp" not in path.read_text(), path.name
    from dpviz.accountants import rdp
    from dpviz.accountants.pld import laws

    assert rdp.discrete_laplace_loss is laws.discrete_laplace_loss
    assert np.all(np.isfinite(laws.discrete_laplace_loss(1.0, 2)[0]))
