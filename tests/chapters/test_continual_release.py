"""Tests for the continual-release chapter and its going-deeper sections
"tree-least-squares-and-factorisation", "binary-tree-horizon" and "user-level-streams".

The chapter's variances come from matrices it builds; these tests recompute them independently:
the binary mechanism run as an online algorithm (Chan, Shi & Song's p-sums) and differentiated
with respect to its noise, least squares by ``numpy.linalg.lstsq`` on the raw measurement matrix,
the square-root coefficients from ``scipy.special.comb``, popcounts by string counting, and the
prototype numbers of the course specification (Part VI, piece 3, figure b), computed by separate scripts.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.special import comb

from conftest import CHAPTERS, chapter_fixtures, glued
from notebook_code import notebook_namespace

NAMES = ["dyadic_blocks", "prefix_blocks", "tree_matrices"]
SECTIONS = ["tree-least-squares-and-factorisation", "binary-tree-horizon", "user-level-streams"]

ch, g = chapter_fixtures("continual-release", NAMES)


# the going-deeper pages: least squares is defined on the first; each page glues its own numbers
@pytest.fixture(scope="module")
def ls_ch():
    return notebook_namespace("tree-least-squares-and-factorisation", ["online_least_squares"])


@pytest.fixture(scope="module")
def g_ls():
    return glued("tree-least-squares-and-factorisation")


@pytest.fixture(scope="module")
def g_horizon():
    return glued("binary-tree-horizon")


@pytest.fixture(scope="module")
def g_user():
    return glued("user-level-streams")


def binary_mechanism_releases(x, z):
    """The binary mechanism run online: on day t, close the blocks ending at t, release S_t.

    ``z`` maps (level, index) to the noise of that block; the release on day t adds the noisy
    blocks of t's binary expansion. Written from the algorithm, not from the chapter's matrices.
    """
    T = len(x)
    noisy = {}
    out = []
    for t in range(1, T + 1):
        for j in range(t.bit_length()):
            if t % 2**j == 0:  # the level-j block ending on day t closes today
                k = t // 2**j - 1
                noisy[(j, k)] = sum(x[k * 2**j:(k + 1) * 2**j]) + z.get((j, k), 0.0)
        total, start = 0.0, 0
        for j in reversed(range(t.bit_length())):
            if t >> j & 1:
                total += noisy[(j, start // 2**j)]
                start += 2**j
        out.append(total)
    return np.array(out)


@pytest.mark.parametrize("T", [1, 7, 13, 16, 37])
def test_tree_variances_match_the_online_algorithm(ch, T):
    blocks, A, B = ch["tree_matrices"](T)
    x = np.arange(T, dtype=float)
    base = binary_mechanism_releases(list(x), {})
    assert np.allclose(base, np.cumsum(x))
    keys = [(j, k) for j in range(T.bit_length()) for k in range(T // 2**j)]
    assert len(keys) == len(blocks)
    jacobian = np.column_stack([binary_mechanism_releases(list(x), {key: 1.0}) - base for key in keys])
    covariance = jacobian @ jacobian.T  # unit-variance noise per block
    assert np.allclose(np.diag(covariance), (B**2).sum(axis=1))
    assert np.array_equal(np.diag(covariance), [bin(t).count("1") for t in range(1, T + 1)])


def test_prefix_blocks_are_the_binary_expansion(ch):
    for t in range(1, 1_025):
        sizes = [last - first + 1 for first, last in ch["prefix_blocks"](t)]
        assert sum(sizes) == t and len(sizes) == bin(t).count("1")
        assert all(size & (size - 1) == 0 for size in sizes)


def test_popcount_facts(g):
    pop = [bin(t).count("1") for t in range(1, 366)]
    assert g["cr_mean_popcount"] == f"{np.mean(pop):.3f}" == "4.085"
    assert g["cr_max_popcount"] == max(pop) == 8
    assert g["cr_levels"] == math.floor(math.log2(365)) + 1 == 9
    assert g["cr_blocks"] == sum(365 // 2**j for j in range(9))
    assert g["cr_365_sum"] == "256 + 64 + 32 + 8 + 4 + 1" and g["cr_365_popcount"] == 6


@pytest.mark.parametrize("T", [5, 12, 64])
def test_least_squares_matches_a_dense_lstsq(ch, ls_ch, T):
    blocks, A, B = ch["tree_matrices"](T)
    online = ls_ch["online_least_squares"](A, blocks, T)
    rng = np.random.default_rng(T)
    y = A @ rng.poisson(3, T) + rng.normal(size=len(blocks))
    last_day = np.array([last for _, last in blocks])
    for t in range(1, T + 1):
        known = last_day <= t
        x_hat = np.linalg.lstsq(A[known, :t], y[known], rcond=None)[0]
        assert online[t - 1] @ y == pytest.approx(x_hat.sum(), abs=1e-9)
    # offline: the covariance of the prefix estimates is pinv-based, variance per unit noise
    P = np.tril(np.ones((T, T))) @ np.linalg.pinv(A)
    offline = np.tril(np.ones((T, T))) @ np.linalg.solve(A.T @ A, A.T)
    assert np.allclose((P**2).sum(axis=1), (offline**2).sum(axis=1))
    # least squares never has a larger variance than the tree's own sums
    assert np.all((online**2).sum(axis=1) <= (B**2).sum(axis=1) + 1e-12)


def test_figure_b_numbers_match_the_specification(g, g_ls):
    # the specification of Part VI, prototype figure (b): T = 365, eps = 1, rho = 1/2
    # (least squares and the square root are on their going-deeper page, which agrees with the core)
    assert g_ls["cr_tls_tree_laplace_mean"] == g["cr_tree_laplace_mean"]
    assert g_ls["cr_tls_inc_laplace_mean"] == g["cr_inc_laplace_mean"]
    assert float(g_ls["cr_ls_laplace_mean"].replace(",", "")) < float(g["cr_tree_laplace_mean"])
    assert float(g_ls["cr_lsoff_laplace_mean"].replace(",", "")) < float(g["cr_inc_laplace_mean"])
    g = {**g, **g_ls}
    assert g["cr_split_laplace_mean"] == "266,450.0"
    assert g["cr_inc_laplace_mean"] == "366.0" and g["cr_inc_laplace_last"] == "730.0"
    assert g["cr_tree_laplace_mean"] == "661.8" and g["cr_tree_laplace_last"] == "972.0"
    assert g["cr_split_gaussian_mean"] == "365.0"
    assert g["cr_inc_gaussian_mean"] == "183.0"
    assert g["cr_tree_gaussian_mean"] == "36.8" and g["cr_tree_gaussian_last"] == "54.0"
    assert g["cr_sqrt_gaussian_mean"] == "7.7" and g["cr_sqrt_gaussian_last"] == "8.7"
    assert g["cr_sqrt_l2sq"] == "2.944"
    assert g["cr_ratio_gauss_365"] == "0.20" and g["cr_split_over_tree"] == "403"


def test_closed_form_variances():
    T, L = 365, 9
    pop = np.array([bin(t).count("1") for t in range(1, T + 1)])
    assert 2 * L**2 * pop.mean() == pytest.approx(661.76, abs=0.01)
    assert np.mean(2 * np.arange(1, T + 1)) == 366
    c = np.array([comb(2 * k, k, exact=True) / 4**k for k in range(T)])
    assert (c**2).sum() == pytest.approx(2.944, abs=5e-4)
    gauss_sqrt = (c**2).sum() * np.cumsum(c**2)  # Var(S_t) = Delta_2^2 / (2 rho) * sum_{k<t} c_k^2
    assert gauss_sqrt.mean() == pytest.approx(7.7, abs=0.05)


def test_horizon_ratios_and_crossover(g, g_horizon):
    def ratio(T, gaussian=False):
        L = T.bit_length()
        pop = np.mean([bin(t).count("1") for t in range(1, T + 1)])
        tree = (L if gaussian else 2 * L**2) * pop
        return tree / ((T + 1) / 2 if gaussian else T + 1)

    # the core glues the ratio at 365 and the crossover too (from the same closed forms)
    assert g["cr_ratio_lap_365"] == g_horizon["cr_ratio_lap_365"]
    assert g["cr_ratio_gauss_365"] == g_horizon["cr_ratio_gauss_365"] == f"{ratio(365, True):.2f}"
    # the crossover is the optional page's number: the core no longer quotes it (issue 38)
    assert g_horizon["cr_crossover_laplace"] == "1,193" and "cr_crossover_laplace" not in g
    g = g_horizon
    for T, want in [(256, "2.52"), (365, "1.81"), (1_000, "0.99"), (10_000, "0.25")]:
        assert g[f"cr_ratio_lap_{T}"] == f"{ratio(T):.2f}" == want
    crossover = int(g["cr_crossover_laplace"].replace(",", ""))
    assert ratio(crossover - 1) >= 1 and all(ratio(T) < 1 for T in range(crossover, 20_001, 97))
    crossover_gauss = int(g["cr_crossover_gaussian"].replace(",", ""))
    assert ratio(crossover_gauss - 1, True) >= 1 and all(ratio(T, True) < 1 for T in range(crossover_gauss, 2_000))
    assert g["cr_ex_ratio_8760"] == f"{ratio(8_760):.2f}"


def test_exercise_power_of_two_formula(g):
    m = 8
    assert g["cr_ex_formula_256"] == f"{2 * (m + 1) ** 2 * (m / 2 + 2.0**-m):.2f}" == g["cr_ex_matrix_256"]


def test_attack_and_simulation(g, g_ls):
    # averaging 365 releases: the noise sd sqrt(2/365); a threshold at 1/2 errs with tiny probability
    assert g["cr_attack_sd"] == f"{math.sqrt(2 / 365):.3f}"
    assert float(g["cr_attack_accuracy"].rstrip("%")) > 99
    assert float(g["cr_sim_max_z"]) < 4
    assert abs(float(g["cr_sim_tree_lap"]) - 661.76) < 4 * float(g["cr_sim_tree_lap_se"])
    assert float(g_ls["cr_tls_sim_max_z"]) < 4  # least squares and the square root, simulated


def test_user_level_standard_deviations(g, g_user):
    assert g["cr_tree_gaussian_last"] == "54.0"  # Var(S_365) of the Gaussian tree, in the core
    assert g_user["cr_user_daily_sd"] == f"{365 * math.sqrt(54):,.0f}"
    assert g_user["cr_user_week_sd"] == f"{7 * math.sqrt(54):,.0f}"


def test_budget_split_exercise_from_the_bits_of_t(g):
    """u_j is the share of days t = 1..365 whose bit j is 1 (the totals' level-j blocks), computed
    here from the binary expansion, not from the chapter's matrices."""
    t = np.arange(1, 366)
    use = np.array([((t >> j) & 1).mean() for j in range(9)])
    equal = 2 * 9**2 * use.sum()                          # Lap(L/eps) on every block, eps = 1
    best = 2 * np.sum(use ** (1 / 3)) ** 3
    assert g["cr_ex_split_equal"] == f"{equal:,.1f}" == g["cr_tree_laplace_mean"]
    assert g["cr_ex_split_best"] == f"{best:,.1f}"
    assert g["cr_ex_split_gain"] == f"{1 - best / equal:.0%}"


def test_a_day_lies_in_at_most_one_block_per_level(ch, g):
    """Issue #37: "each leaf lies in L blocks" and "exactly one block per level" held only for
    some days. Counted from the chapter's blocks and, independently, from the rule that day t
    lies in a level-j block iff the block of length 2^j holding t ends by day T."""
    T = 365
    levels = {}
    for first, last in ch["dyadic_blocks"](T):
        levels.setdefault(int(math.log2(last - first + 1)), []).append((first, last))
    per_day = np.zeros(T + 1, dtype=int)
    for blocks in levels.values():
        covered = np.zeros(T + 1, dtype=int)
        for first, last in blocks:
            covered[first:last + 1] += 1
        assert covered.max() == 1  # at most one block per level
        per_day += covered
    independent = [sum(-(-t // 2**j) * 2**j <= T for j in range(T.bit_length())) for t in range(1, T + 1)]
    assert per_day[1:].tolist() == independent
    L = g["cr_levels"]
    assert per_day.max() == L and (per_day[1:257] == L).all() and per_day[257] < L  # "days 1 to 256 in L"
    assert per_day[T] == 1  # "day 365 in one" (a level-0 block)
    markdown = {}
    for stem in ["continual-release", *SECTIONS]:
        cells = json.loads((CHAPTERS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
        markdown[stem] = " ".join(" ".join("".join(c["source"]).split())
                                  for c in cells if c["cell_type"] == "markdown")
        assert "each leaf lies in $L$ blocks" not in markdown[stem]
        assert "exactly one block per level" not in markdown[stem]
    assert "One event lies in at most one block per level" in markdown["continual-release"]
    # the user-level statement moved with its section
    assert "at most $L$ blocks (days 1 to 256 in $L$, day 365 in one)" in markdown["user-level-streams"]


def test_what_rho_one_half_promises(g):
    """rho = 1/2 (what eps = 1 implies) as (eps, delta)-DP at delta = 1e-6: the improved
    conversion (Canonne, Kamath & Steinke 2020, Prop. 12) minimised over a fine grid of orders."""
    alpha = 1 + np.exp(np.linspace(-8, 8, 400_001))
    eps = float(np.min(0.5 * alpha + (math.log(1e6) + (alpha - 1) * np.log1p(-1 / alpha)
                                      - np.log(alpha)) / (alpha - 1)))
    assert g["cr_rho_eps"] == f"{eps:.2f}" == "5.22"
    from conftest import ROOT
    errata = " ".join((ROOT / "errata.md").read_text(encoding="utf-8").split())
    assert f"it implies (ε, δ)-DP only with ε = {g['cr_rho_eps']} at δ = 10⁻⁶" in errata


def test_the_core_shows_rho_and_what_it_promises():
    """Issue 38, a learner's read: "eps-DP implies eps^2/2-zCDP" and the 5.22 were used but not
    visible, and the summary quoted a number from an optional page."""
    import helpers

    cells = json.loads((CHAPTERS / "continual-release.ipynb").read_text(encoding="utf-8"))["cells"]
    shown = [c for c in cells if c["cell_type"] == "code"
             and "rho_eps = helpers.zcdp_to_dp(RHO, 1e-6)" in "".join(c["source"])]
    assert len(shown) == 1 and not shown[0]["metadata"].get("tags")
    printed = "".join("".join(o.get("text", "")) for o in shown[0]["outputs"])
    assert "rho = 0.5; as (eps, 1e-6)-DP, eps = 5.22" in printed
    prose = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "{cite:p}`bun2016concentrated`" in prose and "cr_crossover_laplace" not in prose
    # the fact itself: eps-DP is (eps^2/2)-zCDP, so the pure Laplace release at eps = 1 meets
    # the Gaussian's rho = 1/2; the improved conversion back is far from eps = 1
    assert helpers.zcdp_to_dp(0.5, 1e-6) > 5
