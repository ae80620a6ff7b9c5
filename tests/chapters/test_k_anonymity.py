"""Tests for chapter 02 (k-anonymity and its limits) and its going-deeper sections.

The chapter's claims are read from the values its core and its sections (``mondrian``,
``information-loss``, ``l-diversity-and-t-closeness``) glue into their executed notebooks and
checked against independent pandas computations; ``mondrian`` is loaded from its section and
checked on the full Adult data.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import helpers
from conftest import glued as conftest_glued
from notebook_code import notebook_namespace

CHAPTERS = Path(__file__).resolve().parents[2] / "chapters"
NOTEBOOK = CHAPTERS / "k-anonymity.ipynb"
SECTIONS = ["mondrian", "information-loss", "l-diversity-and-t-closeness"]
ADULT_QI = ["age", "sex", "race", "zip"]
MONDRIAN_QI = ["age", "education_num", "hours_per_week", "sex"]
HEALTH_QI = ["marital_status", "sex", "zip", "ethnicity"]
KS = [2, 5, 10, 25, 50, 100]


def _independent_k(df: pd.DataFrame, cols: list[str]) -> int:
    # a different route: count identical key tuples (missing values as a sentinel)
    keys = df[cols].astype(object).where(df[cols].notna(), "<NA>").itertuples(index=False)
    counts: dict[tuple, int] = {}
    for key in keys:
        counts[tuple(key)] = counts.get(tuple(key), 0) + 1
    return min(counts.values())


def _independent_l(df: pd.DataFrame, cols: list[str], sensitive: str) -> int:
    filled = df[cols + [sensitive]].astype(object)
    filled = filled.where(filled.notna(), "<NA>")
    values: dict[tuple, set] = {}
    for row in filled.itertuples(index=False):
        values.setdefault(tuple(row[:-1]), set()).add(row[-1])
    return min(len(v) for v in values.values())


# ------------------------------------------------------------------------------------------
# Fixtures
# ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def notebook():
    return json.loads(NOTEBOOK.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def glued():
    """Every value glued by the core and its sections (no name is glued twice)."""
    values = {}
    for stem in ["k-anonymity", *SECTIONS]:
        page = conftest_glued(stem)
        assert not values.keys() & page.keys(), stem
        values.update(page)
    return values


@pytest.fixture(scope="module")
def chapter():
    """The chapter's own functions, each from the page that shows it: k-anonymity (core),
    Mondrian (``mondrian``) and l-diversity (``l-diversity-and-t-closeness``)."""
    return {
        "k_anonymity": notebook_namespace("k-anonymity", ["k_anonymity"])["k_anonymity"],
        "mondrian": notebook_namespace("mondrian", ["mondrian"])["mondrian"],
        "l_diversity": notebook_namespace(
            "l-diversity-and-t-closeness", ["l_diversity", "k_anonymity"])["l_diversity"],
    }


@pytest.fixture(scope="module")
def mondrian(chapter):
    return chapter["mondrian"]


@pytest.fixture(scope="module")
def k_anonymity(chapter):
    return chapter["k_anonymity"]


@pytest.fixture(scope="module")
def l_diversity(chapter):
    return chapter["l_diversity"]


@pytest.fixture(scope="module")
def releases(mondrian, adult):
    """Mondrian output for every k of the chapter (its speed is measured by `make benchmark`)."""
    return {k: mondrian(adult, MONDRIAN_QI, k) for k in KS}


def as_int(text):
    return int(str(text).replace(",", ""))


def bounds(series):
    """Parse 'lo-hi' or 'v' (non-negative integers) into two integer arrays."""
    parts = series.astype(str).str.partition("-")
    lo = parts[0].astype(np.int64).to_numpy()
    hi = parts[2].where(parts[2] != "", parts[0]).astype(np.int64).to_numpy()
    return lo, hi


# ------------------------------------------------------------------------------------------
# The chapter uses the k values and quasi-identifiers tested here
# ------------------------------------------------------------------------------------------
def _cells(stem):
    return json.loads((CHAPTERS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]


def test_chapter_uses_the_tested_parameters():
    """Every assignment of these names, on the core and on its sections, is the tested one."""
    expected = {"KS": KS, "MONDRIAN_QI": MONDRIAN_QI, "HEALTH_QI": HEALTH_QI,
                "ADULT_QI": ADULT_QI}
    seen = set()
    for stem in ["k-anonymity", *SECTIONS]:
        for cell in _cells(stem):
            if cell["cell_type"] != "code":
                continue
            for node in ast.parse("".join(cell["source"])).body:
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target = node.targets[0]
                    if isinstance(target, ast.Name) and target.id in expected:
                        assert ast.literal_eval(node.value) == expected[target.id], stem
                        seen.add(target.id)
    assert seen == set(expected)


def _definitions(stem):
    """{function name: [(shown, source), ...]} of the top-level functions of a notebook."""
    found = {}
    for cell in _cells(stem):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        shown = "remove-input" not in cell["metadata"].get("tags", [])
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef):
                found.setdefault(node.name, []).append(
                    (shown, ast.get_source_segment(source, node)))
    return found


def test_sections_recreate_the_shown_functions_unchanged():
    """A section runs alone, so it re-creates in a hidden cell the functions another page
    shows; each hidden copy must be the shown code, character for character."""
    shown = {}
    for stem in ["k-anonymity", *SECTIONS]:
        for name, versions in _definitions(stem).items():
            for is_shown, source in versions:
                if is_shown:
                    assert name not in shown, f"{name} is shown twice"
                    shown[name] = source
    copies = 0
    for stem in SECTIONS:
        for name, versions in _definitions(stem).items():
            for is_shown, source in versions:
                if not is_shown:
                    assert source == shown[name], (stem, name)
                    copies += 1
    assert copies >= 6


# ------------------------------------------------------------------------------------------
# Mondrian on the full Adult data
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("k", KS)
def test_mondrian_is_k_anonymous(releases, k):
    assert _independent_k(releases[k], MONDRIAN_QI) >= k


@pytest.mark.parametrize("k", KS)
def test_mondrian_keeps_rows_and_other_columns(releases, adult, k):
    released = releases[k]
    assert len(released) == len(adult) == 32_561
    assert released.index.equals(adult.index)
    others = [c for c in adult.columns if c not in MONDRIAN_QI]
    pd.testing.assert_frame_equal(released[others], adult[others])


@pytest.mark.parametrize("k", KS)
def test_mondrian_ranges_contain_original_values(releases, adult, k):
    released = releases[k]
    for col in ["age", "education_num", "hours_per_week"]:
        lo, hi = bounds(released[col])
        original = adult[col].to_numpy()
        assert np.all(lo <= original) and np.all(original <= hi), col
        assert np.all(lo <= hi)
    # sex is released as the set of values present, joined by "|"
    contains = [orig in gen.split("|") for orig, gen in zip(adult["sex"], released["sex"])]
    assert all(contains)


@pytest.mark.parametrize("k", KS)
def test_mondrian_ranges_are_tight(releases, adult, k):
    """Each generalised range is exactly the min-max of the originals in its class."""
    released = releases[k]
    keys = released[MONDRIAN_QI].astype(str).agg("/".join, axis=1)
    for col in ["age", "education_num", "hours_per_week"]:
        lo, hi = bounds(released[col])
        grouped = adult[col].groupby(keys.to_numpy())
        assert np.array_equal(grouped.transform("min").to_numpy(), lo), col
        assert np.array_equal(grouped.transform("max").to_numpy(), hi), col


def test_mondrian_information_loss_grows_with_k(releases, adult):
    widths = []
    for k in KS:
        released = releases[k]
        lo, hi = bounds(released["age"])
        widths.append(float(np.mean(hi - lo)))
    assert widths == sorted(widths) and widths[0] < widths[-1]


def test_mondrian_small_cases(mondrian):
    table = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8], "s": list("aabbabab")})
    whole = mondrian(table, ["x"], 8)
    assert set(whole["x"]) == {"1-8"}
    halves = mondrian(table, ["x"], 4)
    assert list(halves["x"]) == ["1-4"] * 4 + ["5-8"] * 4
    exact = mondrian(table, ["x"], 1)
    assert list(exact["x"]) == [str(v) for v in table["x"]]
    with pytest.raises(ValueError):
        mondrian(table, ["x"], 9)
    with pytest.raises(ValueError):
        mondrian(table, ["x"], 0)


def test_mondrian_ties_at_the_median(mondrian):
    # the lower median is 40 and "<= 40" would leave 1 row on the right: the "< 40" cut must be used
    table = pd.DataFrame({"h": [10, 20, 40, 40, 40, 40, 40, 99]})
    out = mondrian(table, ["h"], 2)
    assert _independent_k(out, ["h"]) >= 2
    assert out["h"].nunique() >= 2


# ------------------------------------------------------------------------------------------
# Health table: 1-anonymous, and exactly the named rows are singled out
# ------------------------------------------------------------------------------------------
def test_health_table_is_one_anonymous(glued, health):
    sizes = health.groupby(HEALTH_QI).size()
    assert int(sizes.min()) == 1
    assert _independent_k(health, HEALTH_QI) == 1
    assert glued["kanon_k_health"] == 1


def test_health_singled_out_rows(glued, health):
    duplicated = health.duplicated(subset=HEALTH_QI, keep=False)
    singled_out = list(health.index[~duplicated])
    shared = list(health.index[duplicated])
    assert singled_out == [0, 1, 4, 5, 6, 7, 8, 9]
    assert 9 in singled_out and health.loc[9, "name"].startswith("Igor")
    assert glued["kanon_n_singled_out"] == len(singled_out)
    assert glued["kanon_n_health"] == len(health) == 10
    assert glued["kanon_shared_rows"] == " and ".join(map(str, shared)) == "2 and 3"


def test_health_singled_out_table_in_notebook(notebook):
    """The table the chapter prints under 'singled_out' lists exactly the unique rows."""
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code" and "".join(cell["source"]).rstrip().endswith("singled_out"):
            text = "".join(cell["outputs"][-1]["data"]["text/plain"])
            shown = [int(line.split()[0]) for line in text.splitlines()[1:]]
            assert shown == [0, 1, 4, 5, 6, 7, 8, 9]
            return
    pytest.fail("no cell displays singled_out")


# ------------------------------------------------------------------------------------------
# Homogeneity counts on the 5-anonymous release
# ------------------------------------------------------------------------------------------
def test_homogeneity_counts(releases, glued):
    released = releases[5]
    high = (released["income"] == ">50K").astype(float)
    share = high.groupby([released[c] for c in MONDRIAN_QI]).agg(["mean", "size"])
    all_low = share[share["mean"] == 0.0]
    all_high = share[share["mean"] == 1.0]
    assert as_int(glued["kanon_n_classes5"]) == len(share)
    assert as_int(glued["kanon_hom_classes"]) == len(all_low) + len(all_high)
    assert as_int(glued["kanon_hom_rows"]) == int(all_low["size"].sum() + all_high["size"].sum())
    assert as_int(glued["kanon_hom_low_classes"]) == len(all_low)
    assert as_int(glued["kanon_hom_low_rows"]) == int(all_low["size"].sum())
    assert as_int(glued["kanon_hom_high_classes"]) == len(all_high)
    assert as_int(glued["kanon_hom_high_rows"]) == int(all_high["size"].sum())
    assert glued["kanon_l_release5"] == 1 == _independent_l(released, MONDRIAN_QI, "income")


# ------------------------------------------------------------------------------------------
# Other glued claims
# ------------------------------------------------------------------------------------------
def test_core_release_is_5_anonymous_and_homogeneity_counts(adult, glued):
    """The core's release: 10-year age bands, 1-digit ZIPs, classes under 5 rows dropped."""
    table = pd.DataFrame({
        "band": adult["age"] // 10, "sex": adult["sex"], "race": adult["race"],
        "zip1": adult["zip"].str[0], "income": adult["income"],
    })
    keys = ["band", "sex", "race", "zip1"]
    size = table.groupby(keys)["income"].transform("size")
    kept = table[size >= 5]
    assert glued["kanon_release_k"] == _independent_k(kept, keys) >= 5
    per_class = kept.groupby(keys)["income"].agg(["size", "nunique"])
    hom = per_class[per_class["nunique"] == 1]
    assert as_int(glued["kanon_release_classes"]) == len(per_class)
    assert as_int(glued["kanon_release_hom_classes"]) == len(hom) > 0
    assert as_int(glued["kanon_release_hom_rows"]) == int(hom["size"].sum())
    values = sorted(kept.loc[kept.set_index(keys).index.isin(hom.index), "income"].unique())
    assert glued["kanon_release_hom_values"] == " and ".join(values)


def test_suppression_by_race_shares(adult, glued):
    table = pd.DataFrame({"band": adult["age"] // 10, "sex": adult["sex"],
                          "race": adult["race"], "zip1": adult["zip"].str[0]})
    size = table.groupby(list(table.columns))["sex"].transform("size")
    share = (size < 5).groupby(adult["race"]).mean()
    assert glued["kanon_supp_share_white"] == f"{share['White']:.1%}"
    assert glued["kanon_supp_share_aie"] == f"{share['Amer-Indian-Eskimo']:.0%}"
    assert glued["kanon_supp_share_other"] == f"{share['Other']:.0%}"
    assert share["White"] < share["Other"] and share["White"] < share["Amer-Indian-Eskimo"]


def test_suppression_counts(adult, glued):
    qi = ["age_band", "sex", "race", "zip_prefix"]
    for width, digits in [(1, 5), (10, 3), (10, 1)]:
        table = pd.DataFrame({
            "age_band": adult["age"] // width, "sex": adult["sex"], "race": adult["race"],
            "zip_prefix": adult["zip"].str[:digits],
        })
        size = table.groupby(qi, dropna=False)["sex"].transform("size")
        assert as_int(glued[f"kanon_suppressed_{width}_{digits}"]) == int((size < 5).sum())


def test_coarse_generalisation_still_singles_out(adult, glued):
    table = pd.DataFrame({"band": adult["age"] // 20, "sex": adult["sex"], "race": adult["race"]})
    counts = table.value_counts()
    assert glued["kanon_k_coarse_all"] == int(counts.min()) == 1
    assert glued["kanon_n_coarse_singletons"] == int((counts == 1).sum())
    assert as_int(glued["kanon_k_age_only"]) == int(table["band"].value_counts().min())


def test_health_attacks(glued, health):
    by_status = health.groupby("marital_status")["problem"]
    assert glued["kanon_k_health_2anon"] == int(by_status.size().min()) == 2
    assert glued["kanon_l_health"] == int(by_status.nunique().min()) == 2
    assert glued["kanon_k_health_by_sex"] == int(health.groupby("sex").size().min())
    igor = health.loc[9]
    same_status = set(health.loc[health["marital_status"] == igor["marital_status"], "problem"])
    same_sex = set(health.loc[health["sex"] == igor["sex"], "problem"])
    assert glued["kanon_n_igor_status_values"] == len(same_status) == 2
    assert glued["kanon_n_igor_sex_values"] == len(same_sex) == 3
    assert same_status & same_sex == {"Obesity"}
    assert same_status - {"Chest pain"} == {"Obesity"}


def test_mondrian_handles_missing_categories(mondrian, adult):
    """A categorical quasi-identifier with missing values (native_country has NaN) works,
    and a missing value is released as "?" inside the set of values of its class."""
    qi = ["age", "sex", "native_country"]
    assert adult["native_country"].isna().any()
    released = mondrian(adult, qi, 5)
    assert released[qi].value_counts(dropna=False).min() >= 5
    assert released["native_country"].notna().all()
    missing = adult["native_country"].isna().to_numpy()
    assert all("?" in text.split("|") for text in released.loc[missing, "native_country"])


# ------------------------------------------------------------------------------------------
# The chapter's k_anonymity and l_diversity
# ------------------------------------------------------------------------------------------
SMALL = pd.DataFrame({
    "zip": ["021**", "021**", "021**", "022**", "022**", "022**", None, None],
    "age": ["<30", "<30", "<30", ">=30", ">=30", ">=30", "<30", "<30"],
    "disease": ["flu", "flu", "cold", "flu", "flu", "flu", "hiv", "cancer"],
})


def test_k_anonymity_hand_computed(k_anonymity):
    assert k_anonymity(SMALL, ["zip", "age"]) == 2  # the two missing-zip rows
    assert k_anonymity(SMALL, "age") == 3  # <30 has 5 rows, >=30 has 3
    assert k_anonymity(SMALL, ["zip", "age", "disease"]) == 1


def test_l_diversity_hand_computed(l_diversity):
    assert l_diversity(SMALL, ["zip", "age"], "disease") == 1  # 022** is all flu
    assert l_diversity(SMALL.iloc[[0, 1, 2, 6, 7]], ["zip", "age"], "disease") == 2


@pytest.mark.parametrize("cols", [
    ["sex"], ["age", "sex"], ["race", "sex", "workclass"],
    ["education", "marital_status", "sex"], ["native_country", "workclass"],
])
def test_k_and_l_match_independent_implementation_on_adult(k_anonymity, l_diversity, adult, cols):
    assert k_anonymity(adult, cols) == _independent_k(adult, cols)
    assert l_diversity(adult, cols, "occupation") == _independent_l(adult, cols, "occupation")


@pytest.mark.parametrize("df, cols, word", [
    (SMALL, ["nope"], "nope"),
    (SMALL, [], "quasi-identifiers"),
    (SMALL.iloc[0:0], ["zip"], "non-empty"),
])
def test_k_anonymity_bad_input(k_anonymity, df, cols, word):
    with pytest.raises(ValueError, match=word):
        k_anonymity(df, cols)


@pytest.mark.parametrize("cols, sensitive, word", [
    (["zip"], "nope", "nope"),
    (["zip", "disease"], "disease", "sensitive"),
    (["nope"], "disease", "nope"),
])
def test_l_diversity_bad_input(l_diversity, cols, sensitive, word):
    with pytest.raises(ValueError, match=word):
        l_diversity(SMALL, cols, sensitive)


def test_igor_is_introduced_and_the_shared_rows_are_printed(notebook, health):
    """Issue 38, a learner's read: "Igor" appeared without an introduction in the core, and
    the two rows that share a class were stated but never printed."""
    prose = [("".join(c["source"])) for c in notebook["cells"] if c["cell_type"] == "markdown"]
    first = next(text for text in prose if "Igor" in text)
    mention = first[first.index("Igor"):]
    assert mention.startswith("Igor, the last patient (row 9, from {doc}`datasets`)")
    assert health.loc[9, "name"].startswith("Igor") and health.index[-1] == 9  # "the last"
    shown = [c for c in notebook["cells"] if c["cell_type"] == "code"
             and "rows share a class" in "".join(c["source"])]
    assert len(shown) == 1 and not shown[0]["metadata"].get("tags")
    printed = "".join("".join(o.get("text", "")) for o in shown[0]["outputs"])
    shared = list(health.index[health.duplicated(subset=HEALTH_QI, keep=False)])
    assert printed.startswith(f"{len(shared)} rows share a class: {shared}") and len(shared) == 2
