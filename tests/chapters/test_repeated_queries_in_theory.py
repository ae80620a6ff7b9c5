"""Tests for the going-deeper section repeated-queries-in-theory (of composition).

The expected values come from the Laplace and normal distributions (SciPy), not from the
notebook's code.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate
from scipy.stats import laplace, norm

from conftest import glued

EPSILON = 0.1
SCALE = 1 / EPSILON


def test_glued_one_answer_success_is_the_exact_value():
    """The section's "one answer" success equals the exact integral (no simulation noise)."""
    tail, _ = integrate.quad(
        lambda x: laplace.pdf(x, scale=SCALE) * laplace.sf(0.5 + x, scale=SCALE), -np.inf, np.inf)
    assert glued("repeated-queries-in-theory")["comp_k1_exact"] == f"{100 * (1 - tail):.2f}%"


def test_glued_normal_approximation_and_budget_spent_at_once():
    g = glued("repeated-queries-in-theory")
    # the averaged difference of 1000 pairs of Lap(10) answers: sd 2b/sqrt(k), threshold 1/2
    assert g["comp_kmax_normal"] == f"{100 * norm.sf(0.5, loc=1, scale=2 * SCALE / 1000**0.5):.1f}%"
    # Lap(b) has sd sqrt(2) b: the mean of 5 answers at 0.1, one answer at 0.5
    assert (g["comp_sd_avg5"], g["comp_sd_once"]) == ("6.32", "2.83")
    assert float(g["comp_sd_avg5"]) == round(laplace.std(scale=10) / math.sqrt(5), 2)
    # the core says one answer at 0.5 "has less than half" the noise of the average
    assert laplace.std(scale=2) < laplace.std(scale=10) / math.sqrt(5) / 2


def test_exercise_repeats_for_ninety_percent():
    g = glued("repeated-queries-in-theory")
    # smallest k with Phi(sqrt(k) / (4 b)) >= 0.9
    k = next(k for k in range(1, 10_000) if norm.cdf(math.sqrt(k) / (4 * SCALE)) >= 0.9)
    assert g["comp_ex_k90"] == f"{k:,}"
    assert g["comp_ex_eps90"] == f"{k * EPSILON:.1f}"
    # 2,000 simulated attacks: within 4 standard errors of 90%
    assert abs(float(g["comp_ex_sim90"][:-1]) - 90) < 4 * 100 * math.sqrt(0.09 / 2_000)
