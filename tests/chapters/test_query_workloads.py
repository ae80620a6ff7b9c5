"""Tests for the query-workloads chapter and its going-deeper sections ("range-strategies-compared",
"mwem-marginals", "nonnegative-post-processing" and "workload-accuracy-limit").

The exact-variance formulas are checked against brute-force matrices on a small domain (the
explicit all-ranges workload, an explicit canonical decomposition); the glued numbers against an
independent recomputation (closed forms, scipy's NNLS, a fresh simulation with another seed); the
least-squares estimators' bias and consistency claims by simulation with stated tolerances.
"""

from __future__ import annotations

import functools
import json
import math
import re

import numpy as np
import pytest
from scipy import optimize

from conftest import CHAPTERS, chapter_fixtures, glued
from course_site.archive import toc_sections
from notebook_code import notebook_namespace

NAMES = ["EPS", "RHO", "N", "SIZES", "STRATEGIES", "GRAM", "M", "L_IDX", "R_IDX", "canonical_node_counts",
         "range_gram", "tree_strategy", "range_means", "mean_var", "lower"]
#: the going-deeper sections and the names their tests use
RANGES = "range-strategies-compared"
RANGE_NAMES = ["EPS", "RHO", "N", "SIZES", "STRATEGIES", "GRAM", "M", "L_IDX", "R_IDX", "range_gram",
               "all_ranges_workload", "tree_strategy", "ls_range_variances", "canonical_node_counts",
               "LS_UNIT", "NODES", "exact_table", "zcdp_table", "laplace_table"]
MWEM = "mwem-marginals"
TOPDOWN = "nonnegative-post-processing"
TOPDOWN_NAMES = ["adult", "country", "K", "RHO_TD", "true", "small", "SIGMA_TD", "project_to_simplex",
                 "estimators"]
LIMIT = "workload-accuracy-limit"


ch, g = chapter_fixtures("query-workloads", NAMES)


@pytest.fixture(scope="module")
def rg():
    return notebook_namespace(RANGES, RANGE_NAMES)


@pytest.fixture(scope="module")
def td():
    return notebook_namespace(TOPDOWN, TOPDOWN_NAMES)


def test_the_sections_are_listed_under_the_chapter():
    assert toc_sections(CHAPTERS.parent)["chapters/query-workloads"] == [
        f"chapters/{name}" for name in (RANGES, MWEM, TOPDOWN, LIMIT)]


def test_range_gram_equals_brute_force(ch):
    for n in (1, 5, 12):
        W = np.array([[1.0 if l <= c <= r else 0.0 for c in range(n)] for l in range(n) for r in range(l, n)])
        assert W.shape[0] == n * (n + 1) // 2
        assert np.array_equal(W.T @ W, ch["range_gram"](n))


def test_the_section_recreates_the_cores_definitions(ch, rg):
    for n in (3, 16):
        assert np.array_equal(ch["range_gram"](n), rg["range_gram"](n))
    for name, sizes in ch["SIZES"].items():
        assert rg["SIZES"][name] == sizes
        assert np.array_equal(ch["STRATEGIES"][name], rg["STRATEGIES"][name])
        assert np.array_equal(ch["canonical_node_counts"](sizes), rg["canonical_node_counts"](sizes))


def test_trace_formula_equals_brute_force_errors(ch, rg):
    # sigma^2 tr((A^T A)^-1 W^T W) against sum of w (A^T A)^-1 w^T over explicit rows, for a tree on n = 16
    n = 16
    A = ch["tree_strategy"](n, [1, 2, 4, 8, 16])
    W = rg["all_ranges_workload"](n)
    assert W.shape == (n * (n + 1) // 2, n)
    C = np.linalg.inv(A.T @ A)
    per_row = np.einsum("ij,jk,ik->i", W, C, W)
    assert math.isclose(np.trace(C @ ch["range_gram"](n)), per_row.sum(), rel_tol=1e-10)
    # and W A^+ has the same squared Frobenius norm
    assert math.isclose(np.linalg.norm(W @ np.linalg.pinv(A)) ** 2, per_row.sum(), rel_tol=1e-8)


def test_canonical_counts_against_explicit_decomposition(ch):
    # the chapter's counts are for n = 1,024; recompute a sample by greedy maximal-node cover
    sizes = [1, 16, 256, 1024]
    rng = np.random.default_rng(5)
    counts = ch["canonical_node_counts"](sizes)
    L, R = np.triu_indices(1024)
    for idx in rng.choice(len(L), 300, replace=False):
        l, r, used = int(L[idx]), int(R[idx]), 0
        pos = l
        while pos <= r:
            s = max(s for s in sizes if pos % s == 0 and pos + s - 1 <= r)
            pos, used = pos + s, used + 1
        assert counts[idx] == used


def test_the_cores_means_are_the_sections_per_range_means(ch, rg):
    # the core's trace formula and canonical counts against the section's per-range variances
    for column, table in [("zCDP", rg["zcdp_table"]), ("pure eps", rg["laplace_table"])]:
        assert np.allclose(ch["mean_var"][column], table.loc[ch["mean_var"].index, "mean Var"], rtol=1e-9)


def test_range_table_matches_closed_forms(rg, g):
    z, lt = rg["zcdp_table"], rg["laplace_table"]
    n = 1024
    assert math.isclose(z.loc["identity", "mean Var"], (n + 2) / 3)
    assert g["wl_id_mean"] == f"{(n + 2) / 3:.1f}" == "342.0"
    assert g["wl_ranges_m"] == "524,800"
    # binary tree with h = 11 levels: the worst range uses 2(h - 2) = 18 nodes of variance 11
    assert z.loc["b = 2, canonical nodes", "max Var"] == 11 * 18
    # Laplace node variance 2h^2 against zCDP's h at rho = 1/2: every row scales by 2h
    assert math.isclose(lt.loc["identity", "mean Var"], 2 * z.loc["identity", "mean Var"])
    assert math.isclose(lt.loc["b = 2, least squares", "mean Var"], 22 * z.loc["b = 2, least squares", "mean Var"])
    assert math.isclose(lt.loc["b = 16, least squares", "mean Var"], 8 * z.loc["b = 16, least squares", "mean Var"])
    # the ranking flip the prose claims
    assert z.loc["b = 2, least squares", "mean Var"] < z.loc["b = 16, least squares", "mean Var"]
    assert lt.loc["b = 16, least squares", "mean Var"] < lt.loc["b = 2, least squares", "mean Var"]
    assert lt.loc["b = 16, least squares", "mean Var"] < lt.loc["identity", "mean Var"] < lt.loc["b = 2, canonical nodes", "mean Var"]


@functools.cache
def _ls_unit_mean(b: int) -> float:
    """Mean least-squares variance over all ranges on 1,024 cells, per unit of node variance, for
    the tree of branching factor ``b``: pinv of the explicit tree (an independent construction).
    Its blocks have sizes 1, b, b^2, ... and a root of all n cells (for b = 16: 1, 16, 256, 1,024)."""
    n = 1024
    sizes, size = [], 1
    while size < n:
        sizes.append(size)
        size *= b
    sizes.append(n)
    A = np.vstack([np.kron(np.eye(n // s), np.ones((1, s))) for s in sizes])
    P = np.linalg.pinv(A)  # n x nodes
    # mean over all ranges of ||w P||^2 = trace(P P^T W^T W) / m
    i = np.arange(1, n + 1)
    gram = np.minimum.outer(i, i) * (n - np.maximum.outer(i, i) + 1.0)
    return float(np.sum((P @ P.T) * gram) / (n * (n + 1) / 2))


def test_least_squares_values_from_independent_solver():
    # b = 2: 11 levels, Gaussian node variance h / (2 rho) = 11 at rho = 1/2
    g = glued("query-workloads")
    assert g["wl_b2_ls_mean"] == f"{11 * _ls_unit_mean(2):.2f}" == "21.66"
    assert g["wl_b16_ls_mean"] == f"{4 * _ls_unit_mean(16):.2f}" == "39.35"


def _ratios_from_closed_forms() -> dict[str, float]:
    """The ratios the chapter glues, from the closed form of the identity's mean variance,
    (n + 2)/3 per unit node variance, and the explicit trees' pinv: the node variance is h/(2 rho)
    (Gaussian, rho = 1/2) or 2 h^2 / eps^2 (Laplace, eps = 1) with h levels."""
    n = 1024
    identity = (n + 2) / 3
    ls = {b: _ls_unit_mean(b) for b in (2, 16)}
    h = {2: 11, 16: 4}
    return {
        "wl_ratio_zcdp_b2": identity / (h[2] * ls[2]),
        "wl_ratio_zcdp_b16": identity / (h[16] * ls[16]),
        "wl_ratio_pure_best": max(2 * identity / (2 * h[b] ** 2 * ls[b]) for b in (2, 16)),
    }


def test_the_sections_worst_ranges(rg):
    gr = glued(RANGES)
    z = rg["zcdp_table"]
    assert gr["wl_max_id"] == "1,024" and gr["wl_max_b2_can"] == "198" and gr["wl_max_b2_nodes"] == 18
    # the worst least-squares range, from pinv of the explicit tree (an independent construction)
    for b, key in [(2, "wl_max_b2_ls"), (16, "wl_max_b16_ls")]:
        sizes = [1, 16, 256, 1024] if b == 16 else [2**j for j in range(11)]
        A = np.vstack([np.kron(np.eye(1024 // s), np.ones((1, s))) for s in sizes])
        P = np.linalg.pinv(A)
        cov = P @ P.T
        S = np.zeros((1025, 1025))
        S[1:, 1:] = cov.cumsum(0).cumsum(1)
        L, R = np.triu_indices(1024)
        worst = len(sizes) * (S[R + 1, R + 1] - S[L, R + 1] - S[R + 1, L] + S[L, L]).max()
        assert gr[key] == f"{worst:.2f}"
        assert math.isclose(z.loc[f"b = {b}, least squares", "max Var"], worst, rel_tol=1e-9)
    assert gr["wl_max_b2_ls"] == "33.59" and gr["wl_max_b16_ls"] == "62.88"
    # the pure-eps numbers of the section are the core's
    lt, core = rg["laplace_table"], glued("query-workloads")
    assert float(core["wl_ratio_pure_best"]) == round(lt.loc["identity", "mean Var"]
                                                      / lt.loc["b = 16, least squares", "mean Var"], 1)
    assert gr["wl_lap_b16_ls"] == f"{lt.loc['b = 16, least squares', 'mean Var']:.1f}" == "314.8"


def test_glued_ratios_are_the_tables_and_the_closed_forms(rg, g):
    z, lt = rg["zcdp_table"], rg["laplace_table"]
    for key, value in _ratios_from_closed_forms().items():
        assert g[key] == f"{value:.1f}", key
    assert g["wl_ratio_zcdp_b2"] == "15.8" and g["wl_ratio_zcdp_b16"] == "8.7"
    assert g["wl_ratio_pure_best"] == "2.2"
    # "under pure eps the better tree, b = 16": the best pure-eps ratio is b = 16's
    assert lt.loc["b = 16, least squares", "mean Var"] < lt.loc["b = 2, least squares", "mean Var"]
    for b in ("2", "16"):
        gain = z.loc[f"b = {b}, canonical nodes", "mean Var"] / z.loc[f"b = {b}, least squares", "mean Var"]
        gain_lap = lt.loc[f"b = {b}, canonical nodes", "mean Var"] / lt.loc[f"b = {b}, least squares", "mean Var"]
        assert math.isclose(gain, gain_lap)  # "least squares gains the same factors" under both
        assert g[f"wl_ls_gain_b{b}"] == f"{gain:.1f}"
    assert g["wl_ls_gain_b2"] == "4.1" and g["wl_ls_gain_b16"] == "2.8"


#: Words that state how large a ratio is, and what each claims about the ratio it describes.
_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                 "nine": 9, "ten": 10}
_RATIO_CLAIMS = [
    (r"more than an order of magnitude", lambda r, m: r > 10),
    (r"(?:less|fewer) than an order of magnitude|within an order of magnitude",
     lambda r, m: r < 10),
    (r"order of magnitude", None),  # any other wording: a claim this test cannot check
    (r"factor of (" + "|".join(_NUMBER_WORDS) + r")\b", lambda r, m: round(r) == _NUMBER_WORDS[m[1]]),
    (r"\btwice\b|\bdoubles?\b", lambda r, m: round(r) == 2),
]
_RATIO_GLUE = re.compile(r"\{glue:text\}`((?:wl_ratio|wl_ls_gain)_\w+)`")


def _ratio_claims(markdown: str) -> list[tuple[str, str, object]]:
    """Every verbal claim about a ratio's size in ``markdown``, with the glued ratio it describes
    (the nearest ``wl_ratio_*``/``wl_ls_gain_*`` reference in its sentence, None if the sentence
    has none) and its check."""
    found = []
    for sentence in re.split(r"(?<=[.;])\s+", markdown):
        sentence = re.sub(r"\s+", " ", sentence)
        taken: list[tuple[int, int]] = []
        for pattern, check in _RATIO_CLAIMS:
            for m in re.finditer(pattern, sentence):
                if any(a <= m.start() < b for a, b in taken):
                    continue  # already read by a more specific wording
                taken.append(m.span())
                refs = [(min(abs(r.start() - m.end()), abs(m.start() - r.end())), r[1])
                        for r in _RATIO_GLUE.finditer(sentence)]
                key = min(refs)[1] if refs else None
                found.append((m[0], key, (check, m)))
    return found


def test_ratio_claims_in_the_prose_hold_for_the_glued_ratios(g):
    """Issue #37: the summary said "more than an order of magnitude" where the glued ratios are
    2.2 and 8.7, and "a factor of four" for a least-squares gain of 2.8. Every such wording must
    now sit beside the glued ratio it describes and be true of it."""
    cells = json.loads((CHAPTERS / "query-workloads.ipynb").read_text(encoding="utf-8"))["cells"]
    markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    claims = _ratio_claims(markdown)
    assert any(key == "wl_ratio_zcdp_b2" for _, key, _ in claims)  # the test reads the prose
    for words, key, (check, m) in claims:
        assert key is not None, f"{words!r} states a ratio without the glued ratio beside it"
        assert check is not None, f"{words!r} (beside {key}): a wording this test cannot check"
        assert check(float(g[key]), m), f"{words!r} is false of {key} = {g[key]}"


def test_the_claims_checker_catches_the_old_wording():
    old = ("For all range queries, tree strategies with least squares beat noisy cells by more than an "
           "order of magnitude; of the two branching factors tried, 16 wins.")
    assert [key for _, key, _ in _ratio_claims(old)] == [None]
    wrong = "With $b = 16$ least squares gains a factor of four ({glue:text}`wl_ls_gain_b16`)."
    ((_, key, (check, m)),) = _ratio_claims(wrong)
    assert key == "wl_ls_gain_b16" and not check(2.8, m) and check(4.1, m)
    wrong = "Under pure ε the tree wins by more than an order of magnitude, {glue:text}`wl_ratio_pure_best`."
    ((_, key, (check, m)),) = _ratio_claims(wrong)
    assert key == "wl_ratio_pure_best" and not check(2.2, m)


def test_growth_glues(g):
    assert g["wl_growth_pure_100"] == "141" and g["wl_growth_zcdp_100"] == "10"
    assert abs(float(g["wl_growth_pure_1000"].replace(",", "")) - 1000 * math.sqrt(2)) < 0.05 * 1414
    assert abs(float(g["wl_growth_zcdp_1000"]) - math.sqrt(1000)) < 0.05 * math.sqrt(1000)


def test_simulation_glue_within_its_error(g):
    gap = abs(float(g["wl_sim_var"]) - float(g["wl_sim_exact"]))
    assert gap < 4 * float(g["wl_sim_se"])
    cells = json.loads((CHAPTERS / "query-workloads.ipynb").read_text(encoding="utf-8"))["cells"]
    markdown = " ".join(" ".join("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")
    assert "less than two standard errors apart" in markdown  # what the prose says of the gap
    assert gap < 2 * float(g["wl_sim_se"])


def test_simplex_projection_matches_scipy_nnls(td):
    # projection onto {x >= 0, sum x = t} = argmin ||x - v||: solve with scipy's NNLS on a penalty
    rng = np.random.default_rng(9)
    v = rng.normal(3, 10, size=(20, 7))
    t = np.abs(v.sum(1)) + 1
    proj = td["project_to_simplex"](v, t)
    assert (proj >= -1e-12).all() and np.allclose(proj.sum(1), t)
    for row, total, got in zip(v, t, proj):
        big = 1e4  # enforce the sum by a heavily weighted extra row
        A = np.vstack([np.eye(7), big * np.ones((1, 7))])
        b = np.concatenate([row, [big * total]])
        ref, _ = optimize.nnls(A, b)
        assert np.allclose(got, ref, atol=1e-3)


def test_least_squares_is_consistent_and_unbiased_nonnegativity_is_not(td):
    true, small, sigma = td["true"], td["small"], td["SIGMA_TD"]
    assert math.isclose(sigma, math.sqrt(1 / 0.005))
    rng = np.random.default_rng(77)  # another seed than the chapter's
    runs = 6000
    y = true + rng.normal(scale=sigma, size=(runs, len(true)))
    y_total = true.sum() + rng.normal(scale=sigma, size=runs)
    est = td["estimators"](y, y_total)
    ls = est["least squares"]
    # consistency: cells add up to the least-squares total, a weighted mean of y_total and sum(y)
    k = len(true)
    assert np.allclose(ls.sum(1), (k * y_total + y.sum(1)) / (k + 1))
    se_small = sigma * math.sqrt(small.sum()) / math.sqrt(runs)
    assert abs((ls - true)[:, small].sum(1).mean()) < 4 * se_small
    nn = est["nonnegative LS, total fixed"]
    assert (nn >= 0).all() and np.allclose(nn.sum(1), ls.sum(1))
    assert (nn - true)[:, small].sum(1).mean() > 8  # upward bias on small cells, far beyond noise
    assert (est["clamp at 0"] - true).sum(1).mean() > 10  # clamping inflates the total


def test_topdown_glues():
    g = glued(TOPDOWN)
    assert g["wl_td_small_cells"] == 11 and g["wl_td_small_people"] == "163"
    assert g["wl_td_sigma"] == "14.14"
    assert 13 < float(g["wl_td_clamp_small"]) < 18 and 9 < float(g["wl_td_nnls_small"]) < 14
    assert abs(float(g["wl_td_ls_small"])) < 3 * float(g["wl_td_se"])


def test_reconstruction_threshold():
    limit = notebook_namespace(LIMIT, ["reconstruction_accuracy"])
    rng = np.random.default_rng(11)
    assert limit["reconstruction_accuracy"](100, 0.05, rng, repeats=3) > 0.98
    assert limit["reconstruction_accuracy"](100, 5.0, rng, repeats=3) < 0.7
    g = glued(LIMIT)
    assert float(g["wl_rec_small"].rstrip("%")) > 95 and float(g["wl_rec_large"].rstrip("%")) < 75


@pytest.fixture(scope="module")
def mw():
    return notebook_namespace(MWEM, ["adult", "hist", "Q", "QUERIES", "mwem"])


def test_mwem_domain_and_queries(mw, adult):
    hist, Q = mw["hist"], mw["Q"]
    assert hist.size == 980 and Q.shape == (199, 980) and hist.sum() == len(adult) == 32561
    # each two-way marginal is a partition of the domain: 10 marginals, every cell in 10 queries
    assert (Q.sum(0) == 10).all()
    # one marginal against pandas: sex x income
    sex_income = adult.groupby(["sex", "income"], observed=True).size().sort_values().to_numpy()
    answers = Q @ hist
    assert set(sex_income.tolist()).issubset(set(answers.tolist()))


def test_mwem_learns_with_large_budget_and_keeps_n(mw):
    hist, Q = mw["hist"], mw["Q"]
    n = hist.sum()
    synthetic = mw["mwem"](hist, 30, 1e4, np.random.default_rng(3))
    assert math.isclose(synthetic.sum(), n) and (synthetic > 0).all()
    uniform = np.full(hist.size, n / hist.size)
    assert np.abs(Q @ synthetic - Q @ hist).mean() < 0.1 * np.abs(Q @ uniform - Q @ hist).mean()


def test_mwem_glues_and_laplace_baseline():
    g = glued(MWEM)
    for eps, key in [(1.0, "wl_lapmarg_1"), (0.1, "wl_lapmarg_01")]:
        expected = 20 / (eps * 32561)  # E|Lap(b)| = b with b = Delta_1 / eps, Delta_1 = 2 per marginal x 10
        assert abs(float(g[key]) - expected) <= (5e-6 if eps == 1.0 else 5e-5)  # half a unit of the glued digits
        assert float(g["wl_mwem_best_1" if eps == 1.0 else "wl_mwem_best_01"]) > expected
    assert g["wl_mwem_uniform"] == "0.0547"


def test_errata_quotes_the_glued_ratios(g):
    from conftest import ROOT
    errata = (ROOT / "errata.md").read_text(encoding="utf-8")
    entry = errata[errata.index("How much trees gain on range queries"):]
    entry = entry[: entry.index("\n- **") if "\n- **" in entry else None]
    entry = " ".join(entry.split())
    assert (f"a factor of {g['wl_ratio_zcdp_b2']} only for the binary tree under zCDP, "
            f"{g['wl_ratio_zcdp_b16']} for $b = 16$ and at best {g['wl_ratio_pure_best']} under pure ε") in entry
    assert f"gains {g['wl_ls_gain_b2']} on the binary tree and {g['wl_ls_gain_b16']} on $b = 16$" in entry


def _zcdp_eps_by_grid(rho: float, delta: float) -> float:
    """The improved zCDP -> (eps, delta) conversion (Canonne, Kamath & Steinke 2020, Prop. 12),
    minimised over a fine grid of Renyi orders rather than by the course's optimiser."""
    alpha = 1 + np.exp(np.linspace(-8, 8, 400_001))
    return float(np.min(rho * alpha + (math.log(1 / delta) + (alpha - 1) * np.log1p(-1 / alpha)
                                       - np.log(alpha)) / (alpha - 1)))


def test_laplace_in_zcdp_and_what_rho_one_half_promises(g):
    """Issue #37: the sqrt(k) growth is the accounting's (Laplace noise accounted in zCDP grows
    like sqrt(k) too), and rho = 1/2 is a weaker promise than eps = 1."""
    # eps0 = sqrt(2 rho / k) per answer, Laplace scale 1 / eps0, RMSE sqrt(2) / eps0
    rmse = math.sqrt(2) / math.sqrt(2 * 0.5 / 100)
    assert g["wl_growth_zcdp_lap_100"] == f"{rmse:.1f}" == "14.1"
    assert math.isclose(rmse / float(g["wl_growth_zcdp_100"]), math.sqrt(2))  # "√2 times the Gaussian's"
    eps = _zcdp_eps_by_grid(0.5, 1e-6)
    assert g["wl_rho_eps"] == f"{eps:.2f}" == "5.22"
    assert eps < 0.5 + 2 * math.sqrt(0.5 * math.log(1e6))  # below Bun & Steinke's simple bound
    cells = json.loads((CHAPTERS / "query-workloads.ipynb").read_text(encoding="utf-8"))["cells"]
    markdown = " ".join(" ".join("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")
    assert "independent Gaussian noise sits at the threshold" not in markdown
    assert "ε = {glue:text}`wl_rho_eps` at δ = 10⁻⁶" in markdown


def test_domains_are_the_public_lists_not_the_data(monkeypatch, adult):
    """Issue #37: the MWEM domain came from ``codes.max() + 1`` and the TopDown countries from
    ``value_counts()``, so a category absent from the data vanished from the release. Run the
    chapter's cells on a subset that lacks some categories: the domains must not move."""
    import helpers
    subset = adult[(adult["race"] == "White") & (adult["marital_status"] != "Married-AF-spouse")
                   & (adult["native_country"] != "Holand-Netherlands") & (adult["age"] < 60)]
    monkeypatch.setattr(helpers, "load_adult", lambda: subset.copy())
    ns = notebook_namespace(MWEM, ["SHAPE", "hist"]) | notebook_namespace(TOPDOWN, ["country", "K"])
    public = helpers.ADULT_CATEGORIES
    assert ns["SHAPE"] == (7, len(public["sex"]), len(public["race"]), len(public["income"]),
                           len(public["marital_status"])) == (7, 2, 5, 2, 7)
    assert ns["hist"].size == 980 and ns["hist"].sum() == len(subset)
    assert list(ns["country"].index) == list(public["native_country"]) and ns["K"] == 41
    assert ns["country"]["Holand-Netherlands"] == 0
    cells = json.loads((CHAPTERS / f"{TOPDOWN}.ipynb").read_text(encoding="utf-8"))["cells"]
    markdown = " ".join(" ".join("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")
    assert f"one for each of the {len(public['native_country'])} countries on the public list" in markdown
    from conftest import ROOT
    errata = " ".join((ROOT / "errata.md").read_text(encoding="utf-8").split())
    assert f"to {glued(TOPDOWN)['wl_td_clamp_small']} people" in errata
