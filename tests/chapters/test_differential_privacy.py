"""Tests for the chapter on ε-differential privacy and randomized response, and for its
going-deeper pages (the definition read closely, what DP does not promise, the coin and the
spinner, the estimator, the local and the central model).

Every expected value is computed here independently (brute force over the output
probabilities, closed forms, pandas counts) and compared with the chapter's code, the
course's helpers or the values glued into the chapter, never copied from the notebook.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

import helpers
from conftest import glued as glued_values
from course_site.archive import toc_sections
from notebook_code import notebook_namespace

CHAPTERS = Path(__file__).resolve().parents[2] / "chapters"
NOTEBOOK = CHAPTERS / "differential-privacy.ipynb"
DEFINITION = "reading-the-dp-definition"
PROMISE = "what-dp-does-not-promise"
COIN = "randomized-response-coin-and-spinner"
ESTIMATION = "randomized-response-estimation"
CENTRAL = "local-versus-central-model"
PAGES = ["differential-privacy", DEFINITION, PROMISE, COIN, ESTIMATION, CENTRAL]


@pytest.fixture(scope="module")
def chapter():
    """The core's rr_epsilon (of the keep probability p), the coin page's coin_epsilon (of the
    truth probability θ) and the estimation page's rr_rmse_formula."""
    names = notebook_namespace("differential-privacy", ["best_test_success", "rr_epsilon"])
    names.update(notebook_namespace(COIN, ["coin_epsilon"]))
    names.update(notebook_namespace(ESTIMATION, ["rr_rmse_formula"]))
    return names


# --------------------------------------------------------------------------------------------
# Independent brute force
# --------------------------------------------------------------------------------------------
def rr_output_distribution(alpha: float, x: int) -> dict[int, float]:
    """Pr[report = y | true bit x], by enumerating the mechanism's coin outcomes."""
    dist = {0: 0.0, 1: 0.0}
    # branch 1: answer truthfully (probability alpha)
    dist[x] += alpha
    # branch 2: fair coin (probability 1 - alpha), each face 1/2
    for face in (0, 1):
        dist[face] += (1 - alpha) * 0.5
    return dist


def brute_force_epsilon(alpha: float) -> float:
    """Smallest ε with Pr[M(x) ∈ S] <= e^ε Pr[M(x') ∈ S] for all S ⊆ {0,1} and x ≠ x'."""
    worst = 0.0
    subsets = [set(s) for r in range(3) for s in itertools.combinations((0, 1), r)]
    for x, x_prime in ((0, 1), (1, 0)):
        p, q = rr_output_distribution(alpha, x), rr_output_distribution(alpha, x_prime)
        for subset in subsets:
            ps, qs = sum(p[y] for y in subset), sum(q[y] for y in subset)
            if ps == 0:
                continue
            if qs == 0:
                return math.inf
            worst = max(worst, math.log(ps / qs))
    return worst


ALPHAS = [0.0, 0.05, 0.25, 0.5, 0.75, 0.9, 0.99]


@pytest.mark.parametrize("alpha", ALPHAS)
def test_chapter_rr_epsilon_matches_brute_force(chapter, alpha):
    """The coin with truth probability alpha keeps the bit with probability (1 + alpha)/2."""
    keep = rr_output_distribution(alpha, 1)[1]
    assert keep == pytest.approx((1 + alpha) / 2, abs=1e-15)
    assert chapter["rr_epsilon"](keep) == pytest.approx(brute_force_epsilon(alpha), abs=1e-12)
    assert chapter["coin_epsilon"](alpha) == pytest.approx(brute_force_epsilon(alpha), abs=1e-12)


def test_rr_always_truthful_is_not_dp():
    assert brute_force_epsilon(1.0) == math.inf


@pytest.mark.parametrize("alpha", [a for a in ALPHAS if 0 < a < 1])
def test_rr_epsilon_exceeds_two_alpha(chapter, alpha):
    assert chapter["coin_epsilon"](alpha) > 2 * alpha
    assert chapter["rr_epsilon"]((1 + alpha) / 2) > 2 * alpha


def test_alpha_09_is_2944_not_18():
    g = glued_values(COIN)
    assert g["dp_eps_alpha_09"] == f"{brute_force_epsilon(0.9):.3f}" == "2.944"
    assert g["dp_two_alpha_09"] == "1.8"


@pytest.mark.parametrize("epsilon", [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0])
def test_tanh_round_trip_and_helper_keep_probability(epsilon):
    alpha = math.tanh(epsilon / 2)
    assert brute_force_epsilon(alpha) == pytest.approx(epsilon, rel=1e-9)
    keep = rr_output_distribution(alpha, 1)[1]
    assert helpers.randomized_response_keep_probability(epsilon) == pytest.approx(keep, rel=1e-12)
    assert keep == pytest.approx(math.exp(epsilon) / (1 + math.exp(epsilon)), rel=1e-12)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_best_test_against_rr_meets_the_bound(epsilon):
    """Brute force over all 4 deterministic tests: the best one reaches e^ε/(1+e^ε)."""
    alpha = math.tanh(epsilon / 2)
    p0, p1 = rr_output_distribution(alpha, 0), rr_output_distribution(alpha, 1)
    best = 0.0
    for guess_if_0, guess_if_1 in itertools.product((0, 1), repeat=2):
        guess = {0: guess_if_0, 1: guess_if_1}
        success = 0.5 * sum(p0[y] for y in (0, 1) if guess[y] == 0) + 0.5 * sum(
            p1[y] for y in (0, 1) if guess[y] == 1)
        best = max(best, success)
    assert best == pytest.approx(helpers.hypothesis_test_bound(epsilon), rel=1e-12)


def test_hypothesis_testing_bound_on_random_discrete_mechanisms():
    """For random pairs of output distributions, the optimal test obeys the ε bound."""
    rng = np.random.default_rng(0)
    for _ in range(2000):
        k = int(rng.integers(2, 8))
        p, q = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        eps = float(np.max(np.abs(np.log(p / q))))
        best_success = 0.5 * float(np.maximum(p, q).sum())  # Bayes-optimal test, uniform prior
        assert best_success <= helpers.hypothesis_test_bound(eps) + 1e-12


# --------------------------------------------------------------------------------------------
# Statistical checks of the estimator (fixed seeds, stated tolerances)
# --------------------------------------------------------------------------------------------
def test_estimator_rmse_matches_variance_formula():
    """Random-sample setting: RMSE within 6% of sqrt(q(1-q)/(n(2p-1)^2)).

    With 3000 repetitions the RMSE's Monte Carlo relative standard error is about
    1/sqrt(6000) = 1.3%, so 6% is more than 4 standard errors.
    """
    rng = helpers.make_rng(123)
    pi, n, eps, reps = 0.24, 1000, 1.0, 3000
    bits = (rng.random((reps, n)) < pi).astype(np.int64)
    reports = helpers.randomized_response(bits, epsilon=eps, rng=rng)
    estimates = np.array([helpers.estimate_proportion(row, eps) for row in reports])
    p = math.exp(eps) / (1 + math.exp(eps))
    q = p * pi + (1 - p) * (1 - pi)
    formula = math.sqrt(q * (1 - q) / (n * (2 * p - 1) ** 2))
    rmse = float(np.sqrt(np.mean((estimates - pi) ** 2)))
    assert rmse == pytest.approx(formula, rel=0.06)
    # unbiased: mean within 4 standard errors of pi
    assert abs(estimates.mean() - pi) < 4 * formula / math.sqrt(reps)


def test_fixed_bits_variance_has_no_sampling_term():
    """Fixed bits: the estimator's RMSE is sqrt(p(1-p)/(n(2p-1)^2)), within 6%."""
    rng = helpers.make_rng(7)
    n, eps, reps = 1000, 0.5, 3000
    fixed = np.zeros(n, dtype=np.int64)
    fixed[:300] = 1
    reports = helpers.randomized_response(np.broadcast_to(fixed, (reps, n)), epsilon=eps, rng=rng)
    p = math.exp(eps) / (1 + math.exp(eps))
    estimates = helpers.estimate_proportion(reports, eps, axis=1)
    rmse = float(np.sqrt(np.mean((estimates - 0.3) ** 2)))
    assert rmse == pytest.approx(math.sqrt(p * (1 - p) / (n * (2 * p - 1) ** 2)), rel=0.06)


def test_chapter_variance_is_privacy_term_plus_sampling_term(chapter):
    """The chapter's formula splits into p(1-p)/(n(2p-1)²) + π(1-π)/n, as its prose says."""
    for eps, pi in itertools.product([0.2, 1.0, 2.2], [0.0, 0.24, 0.5, 0.9]):
        p = math.exp(eps) / (1 + math.exp(eps))
        n = 1000
        split = p * (1 - p) / (n * (2 * p - 1) ** 2) + pi * (1 - pi) / n
        assert chapter["rr_rmse_formula"](pi, n, eps) ** 2 == pytest.approx(split, rel=1e-12)


# --------------------------------------------------------------------------------------------
# Glued values in the executed notebook
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def glued() -> dict[str, str]:
    return glued_values("differential-privacy")


@pytest.fixture(scope="module")
def promise() -> dict[str, str]:
    return glued_values(PROMISE)


@pytest.fixture(scope="module")
def coin() -> dict[str, str]:
    return glued_values(COIN)


@pytest.fixture(scope="module")
def estimation() -> dict[str, str]:
    return glued_values(ESTIMATION)


@pytest.fixture(scope="module")
def central() -> dict[str, str]:
    return glued_values(CENTRAL)


def _text(glued, key):
    return str(glued[key])


def test_glued_rr_values(glued, coin):
    assert _text(coin, "dp_eps_alpha_09") == f"{math.log(1.9 / 0.1):.3f}" == "2.944"
    assert _text(coin, "dp_two_alpha_09") == "1.8"
    assert _text(glued, "dp_eps_alpha_05") == f"{math.log(3):.4f}"
    assert _text(coin, "dp_alpha_eps_1") == f"{math.tanh(0.5):.4f}"
    assert _text(glued, "dp_keep_eps_1") == f"{math.e / (1 + math.e):.4f}"
    assert _text(coin, "dp_coin_keep_eps_1") == f"{math.e / (1 + math.e):.4f}"


def test_glued_bound_table(glued):
    """The core glues the bound; its going-deeper page, which shows the table, glues it too."""
    for page in (glued, glued_values(DEFINITION)):
        for key, eps, fmt in [("dp_bound_eps_0_1", 0.1, ".1%"), ("dp_bound_eps_1", 1.0, ".1%"),
                              ("dp_bound_eps_2", 2.0, ".1%"), ("dp_bound_eps_5", 5.0, ".1%"),
                              ("dp_bound_eps_10", 10.0, ".3%")]:
            assert _text(page, key) == format(math.exp(eps) / (1 + math.exp(eps)), fmt)
        assert _text(page, "dp_odds_factor_eps_1") == "2.718"


def test_glued_data_counts(glued, estimation, central, adult, health):
    n_high = int((adult["income"] == ">50K").sum())
    assert n_high == 7841 and len(adult) == 32561
    for page in (glued, estimation, central):
        assert _text(page, "dp_n_adult") == f"{len(adult):,}"
    assert _text(glued, "dp_n_adult_high") == f"{n_high:,}"
    assert _text(estimation, "dp_n_high_income") == f"{n_high:,}"
    assert _text(estimation, "dp_true_share") == f"{n_high / len(adult):.4f}"
    obese = health["problem"] == "Obesity"
    assert int(glued["dp_count_d"]) == int(obese.sum()) == 4
    assert int(glued_values(DEFINITION)["dp_count_d"]) == 4
    assert int(glued["dp_count_d_prime"]) == int(obese.drop(index=helpers.IGOR_INDEX).sum()) == 3


def test_glued_simulation_results_are_plausible(glued, estimation):
    # the notebook's worst simulated/formula deviation over 15 runs of 400 repetitions
    # (Monte Carlo standard error about 3.5%) must stay below 4 standard errors
    assert float(_text(estimation, "dp_rmse_worst_dev").rstrip("%")) < 14.0
    pi = 7841 / 32561
    p = math.e / (1 + math.e)
    q = p * pi + (1 - p) * (1 - pi)
    assert _text(estimation, "dp_rmse_n1000_eps1") == f"{math.sqrt(q * (1 - q) / (1000 * (2 * p - 1) ** 2)):.4f}"
    # the one-shot keep rate is within 4 standard errors of p
    assert abs(float(_text(glued, "dp_keep_rate")) - p) < 4 * math.sqrt(p * (1 - p) / 32561)


def test_glued_local_versus_central(central):
    glued = central
    n = 32561
    p = math.e / (1 + math.e)
    local_sd = math.sqrt(n * p * (1 - p)) / (2 * p - 1)
    central_sd = math.sqrt(2) / 1.0
    assert _text(glued, "dp_local_sd_eps1") == f"{local_sd:.0f}"
    assert _text(glued, "dp_central_sd_eps1") == f"{central_sd:.2f}"
    assert _text(glued, "dp_ratio_eps1") == f"{local_sd / central_sd:.0f}"


def test_glued_posterior_exercise(glued):
    for eps in (1, 5):
        odds = math.exp(eps) * 0.01 / 0.99
        assert _text(glued, f"dp_ex_post_eps_{eps}") == f"{odds / (1 + odds):.1%}"


def test_notebook_defines_required_labels():
    text = NOTEBOOK.read_text(encoding="utf-8")
    for label in ("def-epsilon-dp", "thm-dp-hypothesis-test", "thm-rr-exact-epsilon",
                  "def-neighbours-add-remove", "def-neighbours-replace-one"):
        assert label in text
    # the labels other chapters link to stay defined, now on the going-deeper pages
    pages = {stem: (CHAPTERS / f"{stem}.ipynb").read_text(encoding="utf-8") for stem in PAGES}
    for stem, label in [(DEFINITION, ":label: thm-dp-needs-randomness"),
                        (DEFINITION, ":label: rem-dp-misstatements"),
                        (DEFINITION, ":label: ex-dp-rounding"),
                        (PROMISE, "(sec-dp-not-promised)="), (PROMISE, "(sec-dp-noisy-count)="),
                        (ESTIMATION, ":label: thm-rr-variance"),
                        (COIN, ":label: ex-dp-alpha-for-eps"),
                        (COIN, ":label: ex-dp-warner-spinner"),
                        (CENTRAL, ":label: ex-dp-variance-n1000")]:
        assert label in pages[stem], (stem, label)


def test_correlated_records_move_the_odds_by_e_to_the_two_epsilon(promise):
    glued = promise
    """The measured ratio between the correlated worlds exceeds e^ε and sits at e^(2ε)
    (Pr_A[Y >= c] / Pr_B[Y >= c] = 1/2 / (e^(-2ε)/2) exactly; 400,000 samples, 3% tolerance)."""
    eps = float(glued["dp_corr_eps"])
    correlated = float(glued["dp_corr_measured_correlated"])
    neighbours = float(glued["dp_corr_measured_neighbours"])
    assert correlated == pytest.approx(math.exp(2 * eps), rel=0.03)
    assert neighbours == pytest.approx(math.exp(eps), rel=0.03)
    assert correlated > math.exp(eps) * 1.3
    assert glued["dp_corr_posterior"] == f"{math.exp(2 * eps) / (1 + math.exp(2 * eps)):.1%}"


def test_population_inference_about_someone_outside_the_data(promise, adult):
    glued = promise
    doc = adult[adult["education"] == "Doctorate"]
    true_share = float((doc["income"] == ">50K").mean())
    assert glued["dp_pop_n_doctorate"] == f"{len(doc):,}"
    assert glued["dp_pop_prior"] == f"{(adult['income'] == '>50K').mean():.1%}"
    posterior = float(glued["dp_pop_posterior"].rstrip("%")) / 100
    assert abs(posterior - true_share) < 0.02  # Lap(2) noise on counts of about 300 and 100
    assert posterior > 2.5 * float(glued["dp_pop_prior"].rstrip("%")) / 100
    assert float(glued["dp_pop_alice_shift"]) < 1 / len(doc)


def test_glued_largest_epsilon_for_a_five_percent_posterior(glued):
    """Exercise: the posterior odds e^ε · (1/99) stay below 5/95 exactly when ε ≤ ln(99·5/95)."""
    bound = math.log((5 / 95) * 99)
    assert glued["dp_ex_post_max_eps"] == f"{bound:.2f}"
    odds = math.exp(float(glued["dp_ex_post_max_eps"]) - 0.005) / 99
    assert odds / (1 + odds) < 0.05


def test_the_inline_randomized_response_matches_the_helper():
    """The chapter's two-line randomized response draws the same reports as the helper from the
    same seed, and its one-line test bound is the helper's bound."""
    ns = notebook_namespace("differential-privacy", ["randomized_response_core", "best_test_success"])
    bits = np.arange(1000) % 2
    for eps in (0.1, 1.0, 3.0):
        assert np.array_equal(ns["randomized_response_core"](bits, eps, helpers.make_rng(9)),
                              helpers.randomized_response(bits, eps, helpers.make_rng(9)))
        assert ns["best_test_success"](eps) == pytest.approx(helpers.hypothesis_test_bound(eps))


def test_the_measured_ratios_sit_at_e_to_the_epsilon(glued, adult):
    """The core's experiment: Pr[report in S | bit 1] / Pr[report in S | bit 0] for S = {1}, and
    the reverse ratio for S = {0}, estimated from the shares over the 7,841 people with bit 1
    and the 24,720 with bit 0, are e^1 within 4 standard errors (delta method)."""
    n1 = int((adult["income"] == ">50K").sum())
    n0 = len(adult) - n1
    p = math.e / (1 + math.e)
    relative_se = math.sqrt((1 - p) / (p * n1) + p / ((1 - p) * n0))
    for key in ("dp_rr_ratio_one", "dp_rr_ratio_zero"):
        assert abs(float(glued[key]) - math.e) < 4 * math.e * relative_se, key
    assert glued["dp_e_eps_1"] == f"{math.e:.2f}"
    z = float(glued["dp_keep_z"])
    assert z == pytest.approx(abs(float(glued["dp_keep_rate"]) - p)
                              / math.sqrt(p * (1 - p) / len(adult)), abs=0.05)


def test_core_exercise_on_the_keep_probability():
    """ln 9 is more than 2; at ε = 0.5 more than a third of the reports are flipped; the best
    success from even odds is the keep probability itself (brute force over the four tests)."""
    assert math.log(0.9 / 0.1) > 2
    p = helpers.randomized_response_keep_probability(0.5)
    assert 1 - p > 1 / 3
    alpha = 2 * p - 1
    p0, p1 = rr_output_distribution(alpha, 0), rr_output_distribution(alpha, 1)
    best = max(0.5 * sum(p0[y] for y in (0, 1) if g[y] == 0)
               + 0.5 * sum(p1[y] for y in (0, 1) if g[y] == 1)
               for g in ({0: a, 1: b} for a in (0, 1) for b in (0, 1)))
    assert best == pytest.approx(p, rel=1e-12)


@pytest.mark.parametrize("stem", PAGES[1:])
def test_every_going_deeper_page_is_a_section_of_the_chapter(stem):
    assert f"chapters/{stem}" in toc_sections(CHAPTERS.parent)["chapters/differential-privacy"]
    assert f"{{doc}}`{stem}`" in NOTEBOOK.read_text(encoding="utf-8")
