"""Tests for the user-level-privacy chapter and its going-deeper sections
(bounding-across-partitions, choosing-the-cap, partition-selection).

Glued numbers are recomputed here independently (pandas group-bys, scipy's Laplace
distribution, plain loops) and compared with the values of the Part VI specification where it
gives them. The theorems get experiments that would fail if they or the code were wrong: the
thresholding δ by exact computation, the bounding's sensitivity by removing every person of a
table, reservoir sampling and the bounding's uniformity by seeded frequency tests.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import helpers
from conftest import chapter_fixtures, glued
from notebook_code import CHAPTERS, notebook_namespace

NAMES = ["N_EVENTS", "tpr_bound", "run_presence_test"]
SECTIONS = ["bounding-across-partitions", "choosing-the-cap", "partition-selection"]


ch, g = chapter_fixtures("user-level-privacy", NAMES)


# the going-deeper sections: bounding across partitions, the cap, partition selection
@pytest.fixture(scope="module")
def bound_ns():
    return notebook_namespace("bounding-across-partitions", ["reservoir_sample", "keep_core", "days"])


@pytest.fixture(scope="module")
def g_bound():
    return glued("bounding-across-partitions")


@pytest.fixture(scope="module")
def g_cap():
    return glued("choosing-the-cap")


@pytest.fixture(scope="module")
def part():
    return notebook_namespace("partition-selection",
                              ["laplace_threshold", "release_probability", "rank_within"])


@pytest.fixture(scope="module")
def g_part():
    return glued("partition-selection")


@pytest.fixture(scope="module")
def events(adult):
    return helpers.event_table(adult)


@pytest.fixture(scope="module")
def n_u(events):
    return events.groupby("person_id").size().to_numpy()


def number(text: str) -> float:
    return float(str(text).replace(",", "").rstrip("%"))


# --- the event table and the attack -------------------------------------------------------------

def test_event_table_facts(g, events, n_u):
    assert number(g["user_events"]) == len(events) == 87_630
    assert number(g["user_people"]) == len(n_u) == 32_561
    assert (g["user_nu_median"], g["user_nu_p90"], g["user_nu_p99"]) == ("1", "4", "21")
    assert g["user_nu_max"] == "3,324"
    assert g["user_top_share"] == "27.2%"
    assert g["user_heaviest"] == int(np.argmax(n_u))


def exact_power(shift_in_scales: float, alpha: float) -> float:
    """Power of the one-sided Laplace test at FPR alpha, from scipy's Laplace distribution."""
    threshold = stats.laplace.isf(alpha)
    return float(stats.laplace.sf(threshold - shift_in_scales))


def test_record_level_attack_matches_the_exact_power(g):
    alpha, runs = 0.05, 20_000
    for key, rows in [("user_attack_tpr_one", 1), ("user_attack_tpr_four", 4),
                      ("user_attack_tpr_heaviest", 3_324)]:
        p = exact_power(rows, alpha)
        assert abs(float(g[key]) - p) < 4 * math.sqrt(p * (1 - p) / runs) + 1e-9, key
    # the record-level bound e^eps * alpha at eps = 1, and group privacy's at 4 rows
    assert float(g["user_attack_record_bound"]) == pytest.approx(math.e * alpha, abs=5e-4)
    assert float(g["user_attack_group_bound_four"]) == pytest.approx(
        min(math.exp(4) * alpha, 1 - math.exp(-4) * (1 - alpha)), abs=5e-4)
    assert abs(float(g["user_attack_max_fpr"]) - alpha) < 4 * math.sqrt(alpha * (1 - alpha) / runs)


def test_one_row_attack_attains_the_bound_and_four_rows_break_it(ch):
    """Laplace attains e^eps * alpha for one row; four rows exceed the record-level bound."""
    assert exact_power(1.0, 0.05) == pytest.approx(float(ch["tpr_bound"](1.0, 0.05)), rel=1e-9)
    assert exact_power(4.0, 0.05) > 5 * float(ch["tpr_bound"](1.0, 0.05))
    rng = np.random.default_rng(99)
    fpr, tpr = ch["run_presence_test"](1.0, 1.0, rng, runs=200_000)
    assert abs(fpr - 0.05) < 0.003 and abs(tpr - math.e * 0.05) < 0.004


def test_group_privacy_numbers(g):
    eps, delta = 1.0, 1e-6
    assert float(g["user_group_delta_four"]) == pytest.approx(4 * math.exp(3 * eps) * delta, rel=1e-2)
    assert number(g["user_group_delta_p99"]) == round(21 * math.exp(20) * delta)


def _chain_delta(k, eps=0.1, delta=1e-6):
    # k add/remove steps, each (eps, delta): delta_k = e^eps delta_(k-1) + delta, by a plain loop
    total = 0.0
    for _ in range(k):
        total = math.exp(eps) * total + delta
    return total


def test_group_delta_exercise_uses_the_exact_sum(g):
    assert float(g["user_ex_group_delta_four"]) == pytest.approx(_chain_delta(4), rel=1e-2)
    assert float(g["user_ex_group_delta_p99"]) == pytest.approx(_chain_delta(21), rel=1e-2)
    assert g["user_ex_group_eps_p99"] == "2.1"
    # heaviest person: delta (e^(k eps) - 1) / (e^eps - 1), about delta e^((k-1) eps) / (1 - e^-eps)
    k_max = number(g["user_nu_max"])
    log10_delta = (math.log10(1e-6) + (k_max - 1) * 0.1 * math.log10(math.e)
                   - math.log10(1 - math.exp(-0.1)))
    assert int(g["user_ex_group_log_delta_max"]) == round(log10_delta)
    # the exact sum passes 1/N_people at k = 15; the simpler k e^((k-1) eps) delta at k = 12
    k = 1
    while _chain_delta(k) <= 1 / 32_561:
        k += 1
    assert g["user_ex_group_k_over"] == k == 15
    k_loose = 1
    while k_loose * math.exp((k_loose - 1) * 0.1) * 1e-6 <= 1 / 32_561:
        k_loose += 1
    assert g["user_ex_group_k_over_loose"] == k_loose == 12


# --- bounding ----------------------------------------------------------------------------------

def test_reservoir_sample_is_uniform(bound_ns):
    rng = np.random.default_rng(2024)
    n, cap, trials = 12, 3, 6_000
    counts = np.zeros(n)
    for _ in range(trials):
        sample = bound_ns["reservoir_sample"](range(n), cap, rng)
        assert len(sample) == cap and len(set(sample)) == cap
        counts[sample] += 1
    expected = trials * cap / n
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert stats.chi2.sf(chi2, n - 1) > 1e-3
    assert bound_ns["reservoir_sample"](range(2), 5, rng) == [0, 1]   # short streams are kept whole


def test_rank_within_against_pandas(part):
    rng = np.random.default_rng(5)
    groups, priority = rng.integers(0, 50, 2_000), rng.random(2_000)
    expected = pd.Series(priority).groupby(groups).rank(method="first").to_numpy() - 1
    np.testing.assert_array_equal(part["rank_within"](groups, priority), expected)


def test_chapter_core_is_the_helper(bound_ns, events):
    """The section's group-by core keeps exactly the rows of helpers.bound_contributions (the
    helper itself is tested in tests/package/test_events.py)."""
    keep = helpers.bound_contributions(events["person_id"].to_numpy(), events["day"].to_numpy(),
                                       5, 2, helpers.make_rng(11).random((len(events), 2)))
    np.testing.assert_array_equal(bound_ns["keep_core"], keep)


def test_brute_force_sensitivity_every_person(adult):
    """Remove every person of a smaller event table, recompute the bounded release from scratch
    (bounding included), and check the L1 and L2 changes against l*C and sqrt(l)*C."""
    table = helpers.event_table(adult.head(800), seed=3)
    person, days = table["person_id"].to_numpy(), table["day"].to_numpy()
    amount = np.minimum(table["amount"].to_numpy(), 100).astype(float)
    priority = np.random.default_rng(11).random((len(table), 2))
    l0, linf = 5, 2

    def release(mask):
        keep = helpers.bound_contributions(person[mask], days[mask], l0, linf, priority[mask])
        d = days[mask][keep]
        return (np.bincount(d, minlength=366).astype(float),
                np.bincount(d, weights=amount[mask][keep], minlength=366))

    base_count, base_sum = release(np.ones(len(table), dtype=bool))
    worst_l1 = worst_l2 = worst_sum = 0.0
    for u in np.unique(person):
        count, total = release(person != u)
        worst_l1 = max(worst_l1, np.abs(base_count - count).sum())
        worst_l2 = max(worst_l2, np.linalg.norm(base_count - count))
        worst_sum = max(worst_sum, np.abs(base_sum - total).sum())
    # attained exactly when someone has at least l0 days with at least linf rows each
    full_days = table.groupby(["person_id", "day"]).size().ge(linf).groupby(level=0).sum()
    assert worst_l1 <= l0 * linf
    assert (worst_l1 == l0 * linf) == bool((full_days >= l0).any())
    assert worst_l2 <= math.sqrt(l0) * linf + 1e-12
    assert worst_sum <= l0 * linf * 100


def test_glued_brute_force(g_bound):
    g = g_bound
    assert number(g["user_brute_count"]) == 10
    assert number(g["user_brute_sum"]) <= 1_000
    assert g["user_brute_raw"] == "3,324"             # the heaviest person is among those removed
    assert float(g["user_ex_gauss_brute"]) <= float(g["user_ex_gauss_l2"]) + 1e-9
    assert float(g["user_ex_gauss_l2"]) == pytest.approx(math.sqrt(5) * 2, abs=5e-3)
    assert float(g["user_ex_gauss_sigma"]) == pytest.approx(math.sqrt(5) * 2 / math.sqrt(1.0), abs=5e-3)


def test_reservoir_stream_is_the_99th_percentile(g, g_bound, n_u):
    # the stream's length comes from the data (the 99th percentile of n_u), not a typed 21
    assert g_bound["user_reservoir_rows"] == int(np.quantile(n_u, 0.99)) == number(g["user_nu_p99"])
    assert float(g_bound["user_reservoir_target"]) == pytest.approx(5 / 21, abs=5e-4)


# --- the cap -----------------------------------------------------------------------------------

def count_rmse(n_u: np.ndarray, cap: int, epsilon: float = 1.0) -> tuple[int, float]:
    bias = int(np.minimum(n_u, cap).sum() - n_u.sum())
    return bias, math.sqrt(bias**2 + 2 * (cap / epsilon) ** 2)


@pytest.mark.parametrize(("cap", "capped", "bias", "rmse"), [
    (1, 11_417, -55_069, 55_069), (5, 2_239, -30_332, 30_332), (20, 340, -17_315, 17_315),
    (100, 33, -10_052, 10_053), (1_000, 3, -3_515, 3_789)])
def test_cap_table_of_the_specification(n_u, cap, capped, bias, rmse):
    assert int((n_u > cap).sum()) == capped
    b, r = count_rmse(n_u, cap)
    assert (b, round(r)) == (bias, rmse)


def test_best_caps(g, n_u):
    rmses = [count_rmse(n_u, c)[1] for c in range(1, n_u.max() + 1)]
    best = int(np.argmin(rmses)) + 1
    assert best == 1_779 and round(min(rmses)) == 3_081
    assert number(g["user_cap_best_count"]) == best
    assert number(g["user_cap_best_count_rmse"]) == round(min(rmses))
    assert number(g["user_cap_bias_one"]) == -55_069
    assert number(g["user_cap_bias_twenty"]) == -17_315
    assert number(g["user_cap_capped_twenty"]) == 340
    assert number(g["user_cap_rmse_thousand"]) == 3_789
    assert number(g["user_cap_theory"]) == round(32_561 ** (2 / 3))


def test_sum_curve_formula_against_simulation(events, g_cap):
    """The chapter's exact bias and sampling variance of the capped sum, against 120 runs of the
    vectorised bounding at C = 5, and the glued best cap recomputed from the formula."""
    person = events["person_id"].to_numpy()
    amount = np.minimum(events["amount"].to_numpy(), 100).astype(float)
    n = np.bincount(person)
    total, square = np.bincount(person, weights=amount), np.bincount(person, weights=amount**2)
    var = square / n - (total / n) ** 2
    cap = 5
    mean = np.sum(np.minimum(1, cap / n) * total)
    heavy = n > cap
    variance = np.sum(cap * (n[heavy] - cap) / (n[heavy] - 1) * var[heavy])
    rng = np.random.default_rng(21)
    keys = np.zeros(len(events), dtype=np.int64)
    sums = []
    for _ in range(120):
        sums.append(amount[helpers.bound_contributions(person, keys, 1, cap, rng)].sum())
    sums = np.array(sums)
    assert abs(sums.mean() - mean) < 4 * math.sqrt(variance / sums.size)
    assert stats.chi2.sf(sums.var(ddof=1) * (sums.size - 1) / variance, sums.size - 1) > 1e-3
    assert stats.chi2.cdf(sums.var(ddof=1) * (sums.size - 1) / variance, sums.size - 1) > 1e-3
    true_sum = float(events["amount"].sum())
    assert number(g_cap["user_cap_true_sum"]) == true_sum


def test_private_cap(g, g_cap, n_u):
    assert g_cap["user_q90_pick"] == "4"
    assert (number(g_cap["user_q99_low"]), number(g_cap["user_q99_high"])) == pytest.approx(
        (19, 22), abs=1.5)
    assert number(g_cap["user_q999_low"]) > 100 and number(g_cap["user_q999_high"]) > 5_000
    assert g_cap["user_q999_above"] == str(int((n_u > np.quantile(n_u, 0.999)).sum()))
    assert (g_cap["user_q90_best"], g_cap["user_q90_variant_best"]) == (4, 5)
    cap = g["user_private_cap"]
    assert 15 <= cap <= 30
    assert number(g["user_private_rmse"]) == round(count_rmse(n_u, cap, 0.9)[1])
    assert g["user_private_spent"] == "1"


# --- partition selection -----------------------------------------------------------------------

@pytest.mark.parametrize(("l0", "tau", "delta_prime"), [(1, 14.1224, 1.0000e-6), (5, 74.6590, 2.0000e-7)])
def test_thresholds_of_the_specification(part, g_part, l0, tau, delta_prime):
    got_tau, got_dp = part["laplace_threshold"](1.0, 1e-6, l0)
    assert round(got_tau, 4) == tau
    assert got_dp == pytest.approx(delta_prime, rel=1e-4)
    assert g_part[f"user_tau_l{l0}"] == f"{tau:.4f}"


def test_thresholding_delta_by_exact_computation(part):
    """The theorem's two parts, computed exactly with scipy's Laplace distribution.

    1. Partitions that exist only with the added person (n_p = 1): one of up to l is released
       with probability 1 - (1 - delta')^k <= delta, with equality at k = l.
    2. A partition in both datasets (n_p = m against m + 1): the thresholded release, as a
       distribution over 'not released' and released values, has hockey-stick divergence 0 at
       eps / l in both directions, so the shared partitions cost eps in all (l of them).
    """
    eps, delta = 1.0, 1e-6
    for l0 in (1, 2, 5, 10):
        tau, dprime = part["laplace_threshold"](eps, delta, l0)
        scale = l0 / eps
        p_new = stats.laplace.sf(tau - 1, scale=scale)
        assert p_new == pytest.approx(dprime, rel=1e-9)
        for k in range(1, l0 + 1):
            assert 1 - (1 - p_new) ** k <= delta * (1 + 1e-9)
        assert 1 - (1 - p_new) ** l0 == pytest.approx(delta, rel=1e-6)
        per = eps / l0
        for m in (1, int(tau) - 1, int(tau), int(tau) + 1, int(tau) + 20):
            for a, b in ((m, m + 1), (m + 1, m)):
                # the atom at 'not released'
                atom = stats.laplace.cdf(tau - a, scale=scale) - math.exp(per) * stats.laplace.cdf(tau - b, scale=scale)
                density = integrate.quad(
                    lambda y: max(0.0, stats.laplace.pdf(y - a, scale=scale)
                                  - math.exp(per) * stats.laplace.pdf(y - b, scale=scale)),
                    tau, tau + 60 * scale, limit=200)[0]
                assert max(0.0, atom) + density < 1e-10


def test_release_probabilities(part, g_part):
    ch, g = part, g_part
    for l0 in (1, 5):
        tau, _ = ch["laplace_threshold"](1.0, 1e-6, l0)
        for n in (10, 20, 100):
            p = stats.laplace.sf(tau - n, scale=l0)
            assert float(ch["release_probability"](n, 1.0, 1e-6, l0)) == pytest.approx(p, rel=1e-9)
    # the specification's P(release) at n_p = 10 / 20 / 100 (0.0081 / 0.9986 / 1 for l = 1,
    # 1.2e-06 / 8.9e-06 / 0.997 for l = 5), as the prose shows them
    assert (g["user_release_10_l1"], g["user_release_20_l1"]) == ("0.0081", "0.9986")
    assert g["user_release_10_l5"] == "1.2e-06" and g["user_release_20_l5"] == "8.9e-06"
    tau5, _ = ch["laplace_threshold"](1.0, 1e-6, 5)
    assert g["user_release_100_l5"] == f"{stats.laplace.sf(tau5 - 100, scale=5):.4f}"
    assert round(float(g["user_release_100_l5"]), 3) == 0.997
    assert abs(float(g["user_mc_delta"]) - 0.05) < 4 * math.sqrt(0.05 * 0.95 / 200_000)


def test_merchant_selection(g_part, events, part):
    """Recompute the selection with pandas, as the specification describes it."""
    g, ch = g_part, part
    pairs = events[["person_id", "merchant"]].drop_duplicates().reset_index(drop=True)
    spec = {1: ("32,561", "1,503", "101.0", 102, "29,929"), 5: ("52,730", "2,298", "45.7", 46, "45,492")}
    for l0, (kept_pairs, present, expected, released, covered) in spec.items():
        rng = np.random.default_rng(100 + l0)
        frame = pairs.assign(priority=rng.random(len(pairs)))
        kept = frame.sort_values(["person_id", "priority"]).groupby("person_id").head(l0)
        n_p = kept["merchant"].value_counts().sort_index()
        tau, _ = ch["laplace_threshold"](1.0, 1e-6, l0)
        p = stats.laplace.sf(tau - n_p.to_numpy(), scale=l0)
        assert (g[f"user_sel_pairs_l{l0}"], g[f"user_sel_present_l{l0}"]) == (kept_pairs, present)
        assert f"{len(kept):,}" == kept_pairs and f"{len(n_p):,}" == present
        assert g[f"user_sel_expected_l{l0}"] == expected == f"{p.sum():.1f}"
        assert g[f"user_sel_released_l{l0}"] == released
        assert g[f"user_sel_expected_covered_l{l0}"] == covered == f"{(p * n_p.to_numpy()).sum():,.0f}"


def test_key_set_leak(g_part, events):
    g = g_part
    assert g["user_education_levels"] == 16
    per_merchant = events.groupby("merchant")["person_id"].nunique()
    assert g["user_merchants"] == "2,861" and g["user_merchants_lonely"] == "1,932"
    merchant, user = g["user_merchant_x"], g["user_merchant_x_user"]
    assert per_merchant[merchant] == 1
    assert set(events.loc[events["merchant"] == merchant, "person_id"]) == {user}


# --- the attack on the user-level release, and the exercises -----------------------------------

def test_user_level_attack_uses_the_private_cap(g):
    # the attack on the user-level release runs with the cap chosen privately, not with the
    # data's own 99th percentile (which the prose once called "the 99th percentile found above")
    assert g["user_attack_cap"] == g["user_private_cap"]
    cells = json.loads((CHAPTERS / "user-level-privacy.ipynb").read_text(encoding="utf-8"))["cells"]
    (prose,) = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
                and "## The experiment: the attack on the user-level release" in "".join(c["source"])]
    assert "C = {glue:text}`user_attack_cap`" in prose
    assert "C = 21" not in prose


def test_user_level_attack_meets_the_bound(g):
    bound = math.e * 0.05
    assert abs(float(g["user_user_attack_heaviest"]) - bound) < 4 * math.sqrt(bound * (1 - bound) / 20_000)


def test_threshold_trap_exercise(g_part):
    g = g_part
    wrong_tau = 1 + math.log(1 / 2e-6)
    per = stats.laplace.sf(wrong_tau - 1, scale=5)
    actual = 1 - (1 - per) ** 5
    assert g["user_ex_trap_tau"] == f"{wrong_tau:.2f}"
    assert float(g["user_ex_trap_delta"]) == pytest.approx(actual, abs=5e-4)
    assert actual > 1e5 * 1e-6


def test_largest_values_exercise(g_bound, events):
    g = g_bound
    amount = events["amount"].clip(upper=100).astype(float)
    frame = events.assign(amount=amount)
    largest = frame.sort_values(["person_id", "amount"], ascending=[True, False]).groupby("person_id").head(5)
    n = frame.groupby("person_id").size()
    uniform = (frame.groupby("person_id")["amount"].sum() * np.minimum(1, 5 / n)).sum()
    assert number(g["user_ex_top_largest_bias"]) == round(largest["amount"].sum() - amount.sum())
    assert number(g["user_ex_top_uniform_bias"]) == round(uniform - amount.sum())
    assert number(g["user_ex_top_largest_bias"]) > number(g["user_ex_top_uniform_bias"])


@pytest.mark.parametrize("page", ["user-level-privacy", *SECTIONS])
def test_no_percentile_typed_into_the_code(page, n_u):
    """The 99th percentile of n_u comes from the data (the constant P99), never typed into a
    code cell: with another event table a typed 21 would silently keep the old number."""
    import ast

    p99 = int(np.quantile(n_u, 0.99))
    cells = json.loads((CHAPTERS / f"{page}.ipynb").read_text(encoding="utf-8"))["cells"]
    typed = [node.lineno for c in cells if c["cell_type"] == "code"
             for node in ast.walk(ast.parse("".join(c["source"])))
             if isinstance(node, ast.Constant) and type(node.value) is int and node.value == p99]
    assert typed == [], f"{page}: {p99} typed on lines {typed}"
