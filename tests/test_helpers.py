"""Unit tests for chapters/helpers.py: behaviour, distributions and every error path."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import helpers

# --------------------------------------------------------------------------------------------
# make_rng
# --------------------------------------------------------------------------------------------


def test_make_rng_is_seeded_and_independent_of_global_state():
    a = helpers.make_rng(123).random(5)
    np.random.seed(999)  # the legacy global state must not matter
    b = helpers.make_rng(123).random(5)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, helpers.make_rng(124).random(5))
    assert isinstance(helpers.make_rng(), np.random.Generator)
    assert np.array_equal(helpers.make_rng().random(3), helpers.make_rng(42).random(3))


@pytest.mark.parametrize("seed, exc", [(-1, ValueError), (1.5, TypeError), (True, TypeError),
                                       ("1", TypeError)])
def test_make_rng_rejects_bad_seed(seed, exc):
    with pytest.raises(exc, match="seed"):
        helpers.make_rng(seed)


# --------------------------------------------------------------------------------------------
# Loaders
# --------------------------------------------------------------------------------------------


def test_load_adult_dtypes_and_shape():
    adult = helpers.load_adult()
    assert adult.shape == (32_561, 19)
    assert adult["age"].dtype == np.int64
    assert pd.api.types.is_string_dtype(adult["zip"])
    assert adult["zip"].str.fullmatch(r"\d{5}").all()
    assert adult["zip"].str.startswith("0").any()  # leading zeros survive the round trip
    assert adult["workclass"].isna().sum() > 0  # "?" became missing


def test_loaders_work_from_any_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert len(helpers.load_health()) == 10
    assert len(helpers.load_adult()) == 32_561


def test_loader_missing_data_gives_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(helpers, "DATA_DIR", tmp_path)
    with pytest.raises(FileNotFoundError, match="data/ folder"):
        helpers.load_health()


def test_load_health_igor():
    health = helpers.load_health()
    igor = health.loc[9]
    assert (igor["marital_status"], igor["sex"], igor["zip"], igor["ethnicity"],
            igor["problem"]) == ("Single", "Male", "02138", "White", "Obesity")
    assert igor["name"].startswith("Igor ")


# --------------------------------------------------------------------------------------------
# laplace_mechanism
# --------------------------------------------------------------------------------------------


def test_laplace_noise_distribution_ks():
    """KS test of the noise against scipy's Laplace with scale sensitivity/epsilon.

    With a fixed seed the p-value is deterministic; 0.01 is the stated tolerance. The same test
    with the wrong scale (epsilon instead of sensitivity/epsilon) must be rejected.
    """
    sensitivity, epsilon = 2.0, 0.5
    noise = helpers.laplace_mechanism(np.zeros(20_000), sensitivity, epsilon, helpers.make_rng(1))
    good = stats.kstest(noise, stats.laplace(scale=sensitivity / epsilon).cdf)
    assert good.pvalue > 0.01
    bad = stats.kstest(noise, stats.laplace(scale=epsilon).cdf)
    assert bad.pvalue < 1e-6


def test_laplace_variance_is_two_b_squared():
    b = 3.0
    noise = helpers.laplace_mechanism(np.zeros(200_000), 3.0, 1.0, helpers.make_rng(2))
    # sd of the sample variance of Laplace is about b^2 * sqrt(20/n); allow 4 sd
    assert abs(noise.var() - 2 * b**2) < 4 * b**2 * math.sqrt(20 / 200_000)
    assert abs(noise.mean()) < 4 * math.sqrt(2) * b / math.sqrt(200_000)


def test_laplace_shapes_and_zero_sensitivity():
    rng = helpers.make_rng(3)
    out = helpers.laplace_mechanism(5, 1, 1.0, rng)
    assert isinstance(out, float)
    vec = helpers.laplace_mechanism([[1, 2], [3, 4]], 1, 1.0, rng)
    assert vec.shape == (2, 2)
    assert helpers.laplace_mechanism([1.5, 2.5], 0, 1.0, rng).tolist() == [1.5, 2.5]


def test_laplace_is_reproducible():
    a = helpers.laplace_mechanism(np.arange(5), 1, 1.0, helpers.make_rng(9))
    b = helpers.laplace_mechanism(np.arange(5), 1, 1.0, helpers.make_rng(9))
    assert np.array_equal(a, b)


@pytest.mark.parametrize(
    "kwargs, exc, word",
    [
        (dict(epsilon=0), ValueError, "epsilon"),
        (dict(epsilon=-1), ValueError, "epsilon"),
        (dict(epsilon=float("nan")), ValueError, "epsilon"),
        (dict(epsilon=float("inf")), ValueError, "epsilon"),
        (dict(epsilon="1"), TypeError, "epsilon"),
        (dict(epsilon=True), TypeError, "epsilon"),
        (dict(sensitivity=-1), ValueError, "sensitivity"),
        (dict(sensitivity=float("nan")), ValueError, "sensitivity"),
        (dict(sensitivity=None), TypeError, "sensitivity"),
        (dict(value=float("nan")), ValueError, "value"),
        (dict(value=[]), ValueError, "value"),
        (dict(value="abc"), TypeError, "value"),
        (dict(value=[1, float("inf")]), ValueError, "value"),
        (dict(rng=np.random.RandomState(0)), TypeError, "rng"),
        (dict(rng=None), TypeError, "rng"),
    ],
)
def test_laplace_bad_input(kwargs, exc, word):
    args = dict(value=1.0, sensitivity=1.0, epsilon=1.0, rng=helpers.make_rng(0))
    args.update(kwargs)
    with pytest.raises(exc, match=word):
        helpers.laplace_mechanism(**args)


# --------------------------------------------------------------------------------------------
# randomized response
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.1, 1.0, math.log(3), 4.0])
def test_keep_probability_gives_exact_epsilon(epsilon):
    p = helpers.randomized_response_keep_probability(epsilon)
    # worst-case ratio of the two output probabilities equals e^epsilon exactly
    assert math.isclose(math.log(p / (1 - p)), epsilon, rel_tol=1e-12)
    alpha = 2 * p - 1  # truthful with prob alpha, else a fair coin
    assert math.isclose(alpha, math.tanh(epsilon / 2), rel_tol=1e-12)


def test_randomized_response_keeps_at_the_right_rate():
    epsilon, n = 1.0, 200_000
    bits = np.tile([0, 1], n // 2)
    out = helpers.randomized_response(bits, epsilon, helpers.make_rng(4))
    kept = np.mean(out == bits)
    p = math.e / (1 + math.e)
    assert abs(kept - p) < 4 * math.sqrt(p * (1 - p) / n)  # 4 standard errors
    assert set(np.unique(out)) <= {0, 1}
    assert out.shape == bits.shape


def test_randomized_response_accepts_booleans():
    out = helpers.randomized_response(np.array([True, False, True]), 2.0, helpers.make_rng(0))
    assert out.dtype == np.int64


def test_estimator_is_unbiased():
    """Mean of 400 estimates is within 4 standard errors of the true share."""
    rng = helpers.make_rng(5)
    epsilon, n, true_share = 0.5, 2_000, 0.3
    bits = (np.arange(n) < true_share * n).astype(int)
    estimates = [helpers.estimate_proportion(helpers.randomized_response(bits, epsilon, rng),
                                             epsilon) for _ in range(400)]
    p = helpers.randomized_response_keep_probability(epsilon)
    q = p * true_share + (1 - p) * (1 - true_share)
    sd_one = math.sqrt(q * (1 - q) / n) / (2 * p - 1)
    assert abs(np.mean(estimates) - true_share) < 4 * sd_one / math.sqrt(400)
    assert abs(np.std(estimates) - sd_one) < 0.15 * sd_one


def test_estimator_exact_on_expected_counts():
    # if the reports are exactly at their expectation, the estimate is the true share
    p = helpers.randomized_response_keep_probability(1.0)
    responses = np.array([1] * 6 + [0] * 4)  # mean 0.6
    expected = (0.6 - (1 - p)) / (2 * p - 1)
    assert math.isclose(helpers.estimate_proportion(responses, 1.0), expected)


@pytest.mark.parametrize(
    "bits, epsilon, exc, word",
    [
        ([0, 1], 0.0, ValueError, "epsilon"),
        ([0, 1], float("nan"), ValueError, "epsilon"),
        ([0, 2], 1.0, ValueError, "bits"),
        ([], 1.0, ValueError, "bits"),
        (["a", "b"], 1.0, TypeError, "bits"),
    ],
)
def test_randomized_response_bad_input(bits, epsilon, exc, word):
    with pytest.raises(exc, match=word):
        helpers.randomized_response(bits, epsilon, helpers.make_rng(0))


def test_randomized_response_bad_rng():
    with pytest.raises(TypeError, match="rng"):
        helpers.randomized_response([0, 1], 1.0, rng=42)


@pytest.mark.parametrize("responses, epsilon, exc, word", [
    ([0, 1], -1.0, ValueError, "epsilon"),
    ([0.5], 1.0, ValueError, "responses"),
    ([], 1.0, ValueError, "responses"),
])
def test_estimate_proportion_bad_input(responses, epsilon, exc, word):
    with pytest.raises(exc, match=word):
        helpers.estimate_proportion(responses, epsilon)


# --------------------------------------------------------------------------------------------
# hypothesis_test_bound
# --------------------------------------------------------------------------------------------


def test_hypothesis_test_bound_matches_the_best_test_on_randomized_response():
    """Randomized response attains the bound: its best test (report = guess) keeps with p."""
    for epsilon in (0.0, 0.1, 1.0, 3.0):
        bound = helpers.hypothesis_test_bound(epsilon)
        assert isinstance(bound, float)
        assert math.isclose(bound, math.exp(epsilon) / (1 + math.exp(epsilon)), rel_tol=1e-12)
        if epsilon > 0:
            assert math.isclose(bound, helpers.randomized_response_keep_probability(epsilon))
    grid = helpers.hypothesis_test_bound(np.array([[0.0, 1.0], [2.0, 50.0]]))
    assert grid.shape == (2, 2) and grid[0, 0] == 0.5 and 0.999 < grid[1, 1] <= 1.0
    assert np.all(np.diff(helpers.hypothesis_test_bound(np.linspace(0, 5, 50))) > 0)


@pytest.mark.parametrize("epsilon, exc", [(-0.1, ValueError), (float("nan"), ValueError),
                                          (float("inf"), ValueError), ([0.1, -1], ValueError),
                                          ("1", TypeError), (True, TypeError), ([], TypeError),
                                          ({"a": 1}, TypeError)])
def test_hypothesis_test_bound_bad_input(epsilon, exc):
    with pytest.raises(exc, match="epsilon"):
        helpers.hypothesis_test_bound(epsilon)


# --------------------------------------------------------------------------------------------
# discrete Laplace
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [1, 2.5, Fraction(10, 3)])
def test_discrete_laplace_pmf(scale):
    """Chi-square goodness of fit against the exact pmf (fixed seed; reject at p < 0.001)."""
    t = float(Fraction(str(scale)) if isinstance(scale, float) else Fraction(scale))
    n = 20_000
    draws = helpers.discrete_laplace_noise(scale, helpers.make_rng(6), size=n)
    assert draws.dtype == np.int64
    support = np.arange(-12, 13)
    pmf = (math.exp(1 / t) - 1) / (math.exp(1 / t) + 1) * np.exp(-np.abs(support) / t)
    observed = np.array([np.sum(draws == y) for y in support] + [np.sum(np.abs(draws) > 12)])
    expected = np.append(pmf, 1 - pmf.sum()) * n
    keep = expected >= 5
    chi2 = stats.chisquare(observed[keep], expected[keep] * observed[keep].sum()
                           / expected[keep].sum())
    assert chi2.pvalue > 0.001


@pytest.mark.parametrize("gamma", [Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_exact_bernoulli_exp_minus(gamma):
    """The exact Bernoulli(exp(-gamma)) building block, within 4 standard errors."""
    rng = helpers.make_rng(17)
    n = 20_000
    hits = sum(helpers._bernoulli_exp_minus(gamma, rng) for _ in range(n))
    p = math.exp(-float(gamma))
    assert abs(hits / n - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_discrete_laplace_single_and_symmetry():
    rng = helpers.make_rng(7)
    one = helpers.discrete_laplace_noise("0.5", rng)
    assert isinstance(one, int)
    draws = helpers.discrete_laplace_noise(1, rng, size=20_000)
    assert abs(draws.mean()) < 0.05  # sd of the mean is about 0.01
    assert helpers.discrete_laplace_noise(1, rng, size=0).shape == (0,)


@pytest.mark.parametrize("scale, size, exc, word", [
    (0, None, ValueError, "scale"),
    (-1.5, None, ValueError, "scale"),
    (float("nan"), None, ValueError, "scale"),
    ("abc", None, ValueError, "scale"),
    (None, None, TypeError, "scale"),
    (True, None, TypeError, "scale"),
    (1, -1, ValueError, "size"),
    (1, 2.5, TypeError, "size"),
])
def test_discrete_laplace_bad_input(scale, size, exc, word):
    with pytest.raises(exc, match=word):
        helpers.discrete_laplace_noise(scale, helpers.make_rng(0), size=size)


# --------------------------------------------------------------------------------------------
# differencing attack
# --------------------------------------------------------------------------------------------


def test_differencing_attack_exact_at_one_repeat():
    """At one repeat the success probability is P(L1 - L2 > -1/2) for two Lap(b) draws."""
    epsilon = 0.5
    b = 1 / epsilon
    x = 0.5
    # P(0 < L1 - L2 < x): the difference has density (1 + |z|/b) e^{-|z|/b} / (4b)
    between = 0.5 - (2 + x / b) * math.exp(-x / b) / 4
    expected = 0.5 + between
    got = helpers.differencing_attack_success(epsilon, helpers.make_rng(8), n_trials=200_000)
    assert abs(got - expected) < 4 * math.sqrt(0.25 / 200_000)


def test_differencing_attack_respects_bound_and_grows_with_repeats():
    rng = helpers.make_rng(9)
    once = helpers.differencing_attack_success(0.1, rng, n_trials=40_000)
    many = helpers.differencing_attack_success(0.1, rng, n_trials=4_000, n_repeats=1_000)
    assert once <= math.exp(0.1) / (1 + math.exp(0.1)) + 0.01
    assert 0.74 < many < 0.82  # normal approximation gives 0.785
    assert helpers.differencing_attack_success(100.0, rng, n_trials=1_000) == 1.0


@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(epsilon=0), ValueError, "epsilon"),
    (dict(n_trials=1), ValueError, "n_trials"),
    (dict(n_repeats=0), ValueError, "n_repeats"),
    (dict(n_repeats=1.5), TypeError, "n_repeats"),
])
def test_differencing_attack_bad_input(kwargs, exc, word):
    args = dict(epsilon=1.0, rng=helpers.make_rng(0), n_trials=10)
    args.update(kwargs)
    with pytest.raises(exc, match=word):
        helpers.differencing_attack_success(**args)


# --------------------------------------------------------------------------------------------
# k-anonymity and l-diversity
# --------------------------------------------------------------------------------------------

SMALL = pd.DataFrame({
    "zip": ["021**", "021**", "021**", "022**", "022**", "022**", None, None],
    "age": ["<30", "<30", "<30", ">=30", ">=30", ">=30", "<30", "<30"],
    "disease": ["flu", "flu", "cold", "flu", "flu", "flu", "hiv", "cancer"],
})


def test_k_anonymity_hand_computed():
    assert helpers.k_anonymity(SMALL, ["zip", "age"]) == 2  # the two missing-zip rows
    assert helpers.k_anonymity(SMALL, "age") == 3  # <30 has 5 rows, >=30 has 3
    assert helpers.k_anonymity(SMALL, ["zip", "age", "disease"]) == 1


def test_l_diversity_hand_computed():
    assert helpers.l_diversity(SMALL, ["zip", "age"], "disease") == 1  # 022** is all flu
    assert helpers.l_diversity(SMALL.iloc[[0, 1, 2, 6, 7]], ["zip", "age"], "disease") == 2


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


@pytest.mark.parametrize("cols", [
    ["sex"], ["age", "sex"], ["race", "sex", "workclass"],
    ["education", "marital_status", "sex"], ["native_country", "workclass"],
])
def test_k_and_l_match_independent_implementation_on_adult(cols):
    adult = helpers.load_adult()
    assert helpers.k_anonymity(adult, cols) == _independent_k(adult, cols)
    assert helpers.l_diversity(adult, cols, "occupation") == _independent_l(adult, cols,
                                                                            "occupation")


def test_k_anonymity_full_adult_is_fast():
    import time
    adult = helpers.load_adult()
    cols = ["age", "sex", "race", "native_country", "workclass"]
    helpers.k_anonymity(adult, cols)  # warm up
    start = time.perf_counter()
    for _ in range(5):
        helpers.k_anonymity(adult, cols)
    assert (time.perf_counter() - start) / 5 < 0.05


@pytest.mark.parametrize("df, cols, exc, word", [
    (SMALL, ["nope"], ValueError, "quasi_identifiers"),
    (SMALL, [], ValueError, "quasi_identifiers"),
    (SMALL.iloc[0:0], ["zip"], ValueError, "df"),
    ([1, 2], ["zip"], TypeError, "df"),
])
def test_k_anonymity_bad_input(df, cols, exc, word):
    with pytest.raises(exc, match=word):
        helpers.k_anonymity(df, cols)


@pytest.mark.parametrize("cols, sensitive, exc, word", [
    (["zip"], "nope", ValueError, "sensitive"),
    (["zip"], 3, TypeError, "sensitive"),
    (["zip", "disease"], "disease", ValueError, "sensitive"),
    (["nope"], "disease", ValueError, "quasi_identifiers"),
])
def test_l_diversity_bad_input(cols, sensitive, exc, word):
    with pytest.raises(exc, match=word):
        helpers.l_diversity(SMALL, cols, sensitive)


# --------------------------------------------------------------------------------------------
# PrivacyAccountant
# --------------------------------------------------------------------------------------------


def test_accountant_exact_arithmetic():
    acc = helpers.PrivacyAccountant(1.0)
    for _ in range(3):
        acc.spend(0.3)
    assert acc.remaining == 0.1
    assert acc.remaining_exact == Fraction(1, 10)
    assert acc.spent == 0.9
    assert acc.total == 1.0
    # (with floats, 1.0 - 0.3 - 0.3 - 0.3 is 0.09999999999999998)
    assert [label for label, _ in acc.ledger] == ["query"] * 3
    assert "remaining=0.1" in repr(acc)


def test_accountant_refuses_before_spending():
    acc = helpers.PrivacyAccountant(1.0)
    acc.spend(0.6, "first")
    with pytest.raises(helpers.BudgetExceededError, match="exceed"):
        acc.spend(0.5, "second")
    assert acc.remaining_exact == Fraction(2, 5)  # nothing was charged
    assert len(acc.ledger) == 1
    acc.spend(0.4, "exactly the rest")  # spending the whole budget is allowed
    assert acc.remaining == 0.0
    with pytest.raises(helpers.BudgetExceededError):
        acc.spend(1e-9)


def test_accountant_parallel_charges_the_max():
    acc = helpers.PrivacyAccountant(1.0)
    acc.spend_parallel([0.2, 0.5, 0.3], "histogram")
    assert acc.remaining_exact == Fraction(1, 2)
    assert acc.ledger == [("histogram", 0.5)]
    with pytest.raises(helpers.BudgetExceededError):
        acc.spend_parallel([0.6])


@pytest.mark.parametrize("total, exc", [(0, ValueError), (-1, ValueError),
                                        (float("nan"), ValueError), ("1", TypeError)])
def test_accountant_bad_total(total, exc):
    with pytest.raises(exc, match="total_epsilon"):
        helpers.PrivacyAccountant(total)


@pytest.mark.parametrize("call, exc, word", [
    (lambda a: a.spend(0), ValueError, "epsilon"),
    (lambda a: a.spend(float("inf")), ValueError, "epsilon"),
    (lambda a: a.spend(0.1, label=3), TypeError, "label"),
    (lambda a: a.spend_parallel([]), ValueError, "epsilons"),
    (lambda a: a.spend_parallel(0.5), TypeError, "epsilons"),
    (lambda a: a.spend_parallel([0.1, -0.1]), ValueError, "epsilons"),
])
def test_accountant_bad_spend(call, exc, word):
    acc = helpers.PrivacyAccountant(1.0)
    with pytest.raises(exc, match=word):
        call(acc)
    assert acc.spent == 0.0


# --------------------------------------------------------------------------------------------
# audit_epsilon
# --------------------------------------------------------------------------------------------


def test_audit_passes_correct_laplace():
    for seed, epsilon in [(10, 0.5), (11, 1.0), (12, 2.0)]:
        mech = lambda d, rng, size, e=epsilon: helpers.laplace_mechanism(
            np.full(size, float(d)), 1.0, e, rng)
        result = helpers.audit_epsilon(mech, 0, 1, helpers.make_rng(seed))
        assert result.epsilon_lower_bound <= epsilon
        assert result.epsilon_lower_bound > 0.5 * epsilon  # the audit has power
        assert result.n_samples == 200_000 and result.confidence == 0.95


def test_audit_catches_buggy_mechanisms():
    epsilon = 0.5
    wrong_scale = lambda d, rng, size: d + rng.laplace(0, epsilon, size)  # scale = epsilon
    gaussian = lambda d, rng, size: d + rng.normal(0, 1 / epsilon, size)  # "sold as eps-DP"
    r1 = helpers.audit_epsilon(wrong_scale, 0, 1, helpers.make_rng(13))
    assert r1.epsilon_lower_bound > epsilon
    r2 = helpers.audit_epsilon(gaussian, 0, 1, helpers.make_rng(14), n_samples=1_000_000)
    assert r2.epsilon_lower_bound > epsilon
    assert ">=" in r2.event or "<" in r2.event


def test_audit_no_evidence_gives_zero():
    same = lambda d, rng, size: rng.laplace(0, 1, size)  # ignores the data: 0-DP
    result = helpers.audit_epsilon(same, 0, 1, helpers.make_rng(15), n_samples=20_000)
    assert result.epsilon_lower_bound < 0.1
    constant = lambda d, rng, size: np.full(size, 3.0)
    assert helpers.audit_epsilon(constant, 0, 1, helpers.make_rng(0),
                                 n_samples=1_000).epsilon_lower_bound == 0.0


def test_audit_discrete_outputs_randomized_response():
    epsilon = 1.0
    rr = lambda bit, rng, size: helpers.randomized_response(np.full(size, bit), epsilon, rng)
    result = helpers.audit_epsilon(rr, 1, 0, helpers.make_rng(16), n_samples=100_000)
    assert 0.8 < result.epsilon_lower_bound <= epsilon


@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(mechanism=3), TypeError, "mechanism"),
    (dict(n_samples=10), ValueError, "n_samples"),
    (dict(n_samples=1e5), TypeError, "n_samples"),
    (dict(confidence=1.0), ValueError, "confidence"),
    (dict(confidence="high"), TypeError, "confidence"),
    (dict(n_thresholds=0), ValueError, "n_thresholds"),
    (dict(n_thresholds=2.0), TypeError, "n_thresholds"),
    (dict(rng=1), TypeError, "rng"),
    (dict(mechanism=lambda d, rng, size: np.zeros(3)), ValueError, "shape"),
    (dict(mechanism=lambda d, rng, size: np.full(size, np.nan)), ValueError, "NaN"),
])
def test_audit_bad_input(kwargs, exc, word):
    args = dict(mechanism=lambda d, rng, size: rng.laplace(d, 1, size), dataset=0, neighbour=1,
                rng=helpers.make_rng(0), n_samples=1_000)
    args.update(kwargs)
    with pytest.raises(exc, match=word):
        helpers.audit_epsilon(**args)


def test_doctests():
    import doctest
    failures, tried = doctest.testmod(helpers, optionflags=doctest.ELLIPSIS)
    assert tried > 5 and failures == 0
