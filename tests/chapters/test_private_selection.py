"""Tests for the private-selection chapter and its going-deeper pages.

The exact integrals are checked against closed forms (differences of Laplace
variables, softmax), against permute-and-flip computed by enumerating every permutation, against
Monte Carlo with its own seeds, and against OpenDP's sampler with more draws than the notebook.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import opendp.prelude as dp
import pytest
from scipy import stats

import helpers
from conftest import pages_fixtures

#: The names the tests use, by the page (the core or a going-deeper section) that defines them.
PAGES = {
    "private-selection": ["EPS", "max_privacy_loss"],
    "permute-and-flip": ["permute_and_flip", "age_utility", "ages"],
    "selection-under-zcdp": ["renyi_divergence"],
    "sparse-vector-technique": ["svt_probability", "above_threshold", "no_halt_variant"],
}


ch, g = pages_fixtures(PAGES)


def laplace_difference_cdf(t: float, b: float) -> float:
    """P[Z2 - Z1 < t] for i.i.d. Laplace(b) noise, t >= 0 (a textbook convolution)."""
    return 1 - 0.5 * math.exp(-t / b) * (1 + t / (2 * b))


@pytest.mark.parametrize("gap, scale", [(0.0, 1.0), (2.0, 1.0), (2.0, 2.0), (5.0, 0.7)])
def test_two_candidate_laplace_noisy_max_matches_the_closed_form(gap, scale):
    p = helpers.noisy_max_probabilities([gap, 0.0], "laplace", scale)
    assert p[0] == pytest.approx(laplace_difference_cdf(gap, scale), abs=1e-6)


def test_replace_one_two_bins_closed_form(g):
    win = laplace_difference_cdf(2.0, 1.0)  # scores 51 vs 49 against a tie
    assert g["sel_replace_1"] == f"{max(abs(math.log(2 * win)), abs(math.log(2 * (1 - win)))):.3f}"
    win2 = laplace_difference_cdf(2.0, 2.0)
    assert g["sel_replace_2"] == f"{max(abs(math.log(2 * win2)), abs(math.log(2 * (1 - win2)))):.3f}"
    assert float(g["sel_replace_1"]) > 1.0 > float(g["sel_replace_2"])


def permute_and_flip_exact(scores, epsilon):
    """Permute-and-flip's output distribution by enumerating every visiting order."""
    scores = np.asarray(scores, dtype=float)
    accept = np.exp(epsilon * (scores - scores.max()) / 2)
    probabilities = np.zeros(scores.size)
    orders = list(itertools.permutations(range(scores.size)))
    for order in orders:
        reach = 1.0
        for r in order:
            probabilities[r] += reach * accept[r] / len(orders)
            reach *= 1 - accept[r]
    return probabilities


@pytest.mark.parametrize("scores, epsilon", [([3, 1, 0, 2], 1.0), ([0, 0, 0], 0.5), ([5, 4.5, 1, 0, 2], 2.0)])
def test_permute_and_flip_is_noisy_max_with_exponential_noise(ch, scores, epsilon):
    exact = permute_and_flip_exact(scores, epsilon)
    integral = helpers.noisy_max_probabilities(scores, "exponential", 2 / epsilon)
    assert integral == pytest.approx(exact, abs=1e-6)
    draws = [ch["permute_and_flip"](scores, epsilon, 1.0, helpers.make_rng(s)) for s in range(4000)]
    assert stats.chisquare(np.bincount(draws, minlength=len(scores)), exact * 4000).pvalue > 1e-3


def test_exponential_mechanism_losses_in_closed_form(g):
    def em_loss(factor):
        z = math.exp(1 / factor) + 9 * math.exp(-1 / factor)
        q = np.array([math.exp(1 / factor)] + [math.exp(-1 / factor)] * 9) / z
        return float(np.max(np.abs(np.log(0.1 / q))))

    assert g["sel_loss_em1"] == f"{em_loss(1):.3f}" and float(g["sel_loss_em1"]) > 1
    assert g["sel_loss_em2"] == f"{em_loss(2):.3f}" and float(g["sel_loss_em2"]) <= 1
    assert float(g["sel_loss_lap1"]) > 1 and float(g["sel_loss_exp1"]) > 1


def test_gumbel_noisy_max_is_the_exponential_mechanism():
    scores = np.array([4.0, 1.0, 3.5, -2.0])
    softmax = np.exp(scores / 2) / np.exp(scores / 2).sum()  # epsilon 1, sensitivity 1, factor 2
    assert helpers.noisy_max_probabilities(scores, "gumbel", 2.0) == pytest.approx(softmax, abs=1e-6)


def test_permute_and_flip_needs_more_than_rho_eighth(g):
    p = np.array([0.5, 0.5])
    q = np.array([1 - 0.5 * math.exp(-2), 0.5 * math.exp(-2)])  # PF on scores (1, -1), scale 1
    alphas = np.linspace(1.0005, 300, 300_000)

    def sup(a, b):
        a, b = np.log(a), np.log(b)
        log_sum = np.logaddexp(alphas * a[0] + (1 - alphas) * b[0], alphas * a[1] + (1 - alphas) * b[1])
        return np.max(log_sum / (alphas - 1) / alphas)

    rho_pf = max(sup(p, q), sup(q, p))
    assert float(g["sel_rho_pf"]) == pytest.approx(rho_pf, abs=2e-3) and rho_pf > 0.5
    em = np.array([math.e, math.exp(-1)]) / (math.e + math.exp(-1))
    assert float(g["sel_rho_em"]) == pytest.approx(max(sup(p, em), sup(em, p)), abs=2e-3)


def test_opendp_noisy_max_samples_what_it_claims():
    dp.enable_features("contrib")
    space = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float))
    pf_first = 1 - 0.5 * math.exp(-2)
    em_first = math.e / (math.e + math.exp(-1))
    n = 6000
    for measure, expected_map, expected_first in [(dp.max_divergence(), 2.0, pf_first),
                                                  (dp.zero_concentrated_divergence(), 0.5, em_first)]:
        noisy_max = dp.m.make_noisy_max(*space, measure, scale=1.0)
        assert noisy_max.map(1.0) == pytest.approx(expected_map)
        share = np.mean([noisy_max([1.0, -1.0]) == 0 for _ in range(n)])
        se = math.sqrt(expected_first * (1 - expected_first) / n)
        assert abs(share - expected_first) < 4.5 * se  # pf_first - em_first is about 15 se


def test_svt_probability_against_monte_carlo(ch):
    rng = np.random.default_rng(123)
    n = 400_000
    answers = np.array([1.0, 0.0, 1.0])
    rho = rng.laplace(0, 2.0, (n, 1))
    above = answers + rng.laplace(0, 4.0, (n, 3)) >= rho
    for outcome in ([False, False, True], [True, False, False], [False, True, False]):
        simulated = np.mean((above == outcome).all(axis=1))
        exact = ch["svt_probability"](answers, outcome, 2.0, 4.0)
        assert abs(simulated - exact) < 4 * math.sqrt(exact * (1 - exact) / n)


def test_above_threshold_sampler_matches_its_exact_distribution(ch):
    answers = [0.0, 1.0, -1.0]
    first = ch["above_threshold"](answers, helpers.make_rng(9), 200_000)
    observed = np.bincount(first.astype(int), minlength=4)
    exact = [ch["svt_probability"](answers, [False] * k + [True], 2.0, 4.0) for k in range(3)]
    exact.append(1 - sum(exact))
    assert stats.chisquare(observed, np.array(exact) * 200_000).pvalue > 1e-3


def test_svt_losses_and_audit_glue(g):
    assert float(g["sel_svt_at_10"]) <= 1.0
    assert float(g["sel_svt_gptt_5"]) > 4.0 and float(g["sel_svt_gptt_10"]) > 8.0
    assert float(g["sel_audit_at"]) <= 1.0 < float(g["sel_audit_gptt"]) <= float(g["sel_svt_gptt_5"])


def test_median_task_on_adult(ch, g, adult):
    canada = adult.loc[adult["native_country"] == "Canada", "age"].to_numpy()
    assert g["sel_n_canada"] == canada.size and canada.size % 2 == 1
    assert g["sel_true_median"] == int(np.median(canada))
    # utility by brute force over the public grid
    brute = [-abs(int((canada < r).sum()) - int((canada > r).sum())) for r in range(121)]
    assert list(ch["age_utility"]) == brute


def test_exercise_answers(g):
    assert g["sel_ex_bound"] == f"{20 * (math.log(14) + math.log(20)):.1f}"
    alphas = np.linspace(1.001, 100, 1_000_000)

    def improved(rho, delta):
        return np.min(rho * alphas + np.log1p(-1 / alphas) - (math.log(delta) + np.log(alphas)) / (alphas - 1))

    assert float(g["sel_ex_em50"]) == pytest.approx(improved(50 / 8, 1e-6), abs=0.006)
    assert float(g["sel_ex_pf50"]) == pytest.approx(improved(50 / 2, 1e-6), abs=0.006)
    assert float(g["sel_ex_loss_1"]) > 1.0 > float(g["sel_ex_loss_2"])


def test_fifty_selections_exercise_numbers_are_glued(g):
    # 50 selections at epsilon = 1: rho = 50/8 for the exponential mechanism (eps^2/8 each) and
    # 50/2 for permute-and-flip (eps^2/2 each); basic composition adds the epsilons
    assert g["sel_ex_rho_em50"] == "6.25" and g["sel_ex_rho_pf50"] == "25"
    assert g["sel_ex_basic50"] == "50"
    assert g["sel_ex_em50"] == f"{helpers.zcdp_to_dp(50 / 8, 1e-6):.2f}"
    assert g["sel_ex_pf50"] == f"{helpers.zcdp_to_dp(50 / 2, 1e-6):.2f}"
