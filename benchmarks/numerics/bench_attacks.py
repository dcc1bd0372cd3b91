"""Speed targets of issue 16, lesson 01 (dpviz.attacks): `CASES = [(name, zero-arg callable, target s or None)]`."""

import numpy as np

from dpviz.attacks import membership_tradeoff, reconstruction_attack, reconstruction_curve


def _attack_500():
    reconstruction_attack(500, 2500, 10.0, 0)


def _curve_500():
    reconstruction_curve(500, 2500, np.geomspace(0.3, 3000, 80), trials=3, rng=0)


def _membership_1000():
    membership_tradeoff(1000, 0.3, noise="gaussian", scale=3.0)


CASES = [
    ("attacks: reconstruction n=500, 5n queries", _attack_500, 1.0),
    ("attacks: reconstruction curve n=500, 5n queries, 3 draws, 80 noise levels", _curve_500, None),
    ("attacks: membership trade-off n=1000, Gaussian", _membership_1000, None),
]
