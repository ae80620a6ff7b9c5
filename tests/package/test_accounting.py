"""The privacy accountant, Rényi DP and zCDP (chapters/dpcourse/accounting.py)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import helpers


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


def test_a_fraction_is_spent_exactly_and_the_refusal_leaves_nothing():
    # issue 38: dp-in-the-wild's twelve months of 1/12 as floats left 4e-17 "remaining", so the
    # thirteenth month was refused for a rounding residue; as fractions they use up exactly 1
    floats = helpers.PrivacyAccountant(1.0)
    for _ in range(12):
        floats.spend_parallel([1 / 12] * 30)
    assert floats.remaining_exact > 0  # the decimal form of 1/12 is a little below 1/12
    acc = helpers.PrivacyAccountant(Fraction(1))
    for _ in range(12):
        acc.spend_parallel([Fraction(1, 12)] * 30, label="month")
    assert acc.remaining_exact == 0 and acc.spent == 1.0
    with pytest.raises(helpers.BudgetExceededError,
                       match=r" would exceed the budget: 0\.0 of 1\.0 remains$") as refused:
        acc.spend_parallel([Fraction(1, 12)] * 30)
    assert refused.value.remaining == 0.0 and refused.value.asked == pytest.approx(1 / 12)
    assert acc.remaining_exact == 0 and len(acc.ledger) == 12
    acc_int = helpers.PrivacyAccountant(2)
    acc_int.spend(1)
    assert acc_int.remaining_exact == 1
    # a Fraction is validated like any epsilon: the message names the parameter
    with pytest.raises(ValueError, match="^epsilon must be > 0"):
        acc_int.spend(Fraction(-1, 3))
    with pytest.raises(TypeError, match="^epsilon must be a real number"):
        acc_int.spend("1/3")


def test_accountant_refuses_before_spending():
    acc = helpers.PrivacyAccountant(1.0)
    acc.spend(0.6, "first")
    with pytest.raises(helpers.BudgetExceededError, match="exceed") as refused:
        acc.spend(0.5, "second")
    assert refused.value.asked == pytest.approx(0.5) and refused.value.remaining == pytest.approx(0.4)
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
# Conversions, checked against maintained libraries (Google's dp-accounting, OpenDP)
# --------------------------------------------------------------------------------------------
ORDERS = np.arange(2, 65).astype(float)


def test_census_2020_persons_budget_gives_the_bureau_s_published_epsilon():
    """DAS_2020_Redistricting_Production_Code: person_default.ini sets global_scale = 339/542
    and the code takes rho = 1 / global_scale ** 2; prod_default.ini sets approx_dp_delta =
    1e-10. The Census Bureau published epsilon = 17.14 for the persons file at that delta, and
    the simple conversion would have given 17.90."""
    rho = helpers.CENSUS_2020_PERSONS_RHO
    assert rho == pytest.approx(float(Fraction(542, 339) ** 2), rel=1e-15)
    assert helpers.CENSUS_2020_DELTA == 1e-10
    assert round(helpers.zcdp_to_dp(rho, helpers.CENSUS_2020_DELTA), 2) == 17.14
    assert round(rho + 2 * math.sqrt(rho * math.log(1e10)), 2) == 17.90


def test_census_2020_units_budget_matches_the_bureau_s_certificates():
    """DAS_2020_Redistricting_Production_Code's disclosure-avoidance certificates
    (docs/certificates/...-US-Units and ...-US-Persons) state, for the housing-units file,
    global_scale = 12343/3379, rho = 11417641/152349649 and epsilon = 1455307/588081 (about
    2.47); for the persons file rho = 293764/114921 and epsilon = 17849145/1041158 (17.14), all at
    delta = 1e-10."""
    units, persons = helpers.CENSUS_2020_UNITS_RHO, helpers.CENSUS_2020_PERSONS_RHO
    assert units == pytest.approx(float(Fraction(11417641, 152349649)), rel=1e-15)
    assert Fraction(11417641, 152349649) == Fraction(3379, 12343) ** 2
    assert persons == pytest.approx(float(Fraction(293764, 114921)), rel=1e-15)
    delta = helpers.CENSUS_2020_DELTA
    assert helpers.zcdp_to_dp(units, delta) == pytest.approx(1455307 / 588081, abs=5e-4)
    assert helpers.zcdp_to_dp(persons, delta) == pytest.approx(17849145 / 1041158, abs=5e-4)
    # The whole release: adding the rho's and converting once beats adding the epsilons (and
    # keeps delta at 1e-10 instead of 2e-10); zCDP composition is exact addition of rho's.
    once = helpers.zcdp_to_dp(units + persons, delta)
    added = helpers.zcdp_to_dp(units, delta) + helpers.zcdp_to_dp(persons, delta)
    assert 17.3 < once < 17.5 and 19.6 < added < 19.7
    acc = helpers.PrivacyAccountant(100.0, delta=delta, mode="zcdp")
    acc.spend_rho(persons)
    acc.spend_rho(units)
    assert acc.spent == pytest.approx(once, rel=1e-9)


def test_counting_table_counts_reads_and_rejects_non_frames():
    table = helpers.CountingTable(pd.DataFrame({"x": [1, 2, 3]}))
    assert table.reads == 0
    assert table.read() is table.read()
    assert table.reads == 2
    with pytest.raises(TypeError, match="df"):
        helpers.CountingTable([[1, 2, 3]])


@pytest.mark.parametrize("sigma, steps", [(20.0, 1), (20.0, 10), (20.0, 100), (20.0, 1000),
                                          (1.0, 1), (3.0, 50)])
def test_gaussian_rdp_epsilon_against_dp_accounting(sigma, steps):
    """Within 1.5% of dp-accounting's RDP accountant, never below the exact (PLD) value."""
    import dp_accounting as dpa

    ours = helpers.gaussian_rdp_epsilon(sigma, steps, 1e-5)
    rdp = dpa.rdp.RdpAccountant()
    rdp.compose(dpa.GaussianDpEvent(sigma), steps)
    assert ours <= rdp.get_epsilon(1e-5) * 1.015  # ours optimises over every real order
    assert ours >= rdp.get_epsilon(1e-5) * 0.95
    # exact: k Gaussian releases are one Gaussian with sensitivity sqrt(k)
    exact = dpa.pld.PLDAccountant()
    exact.compose(dpa.GaussianDpEvent(sigma), steps)
    assert ours >= exact.get_epsilon(1e-5) * (1 - 1e-3)


def test_subsampled_gaussian_rdp_equals_dp_accounting():
    import dp_accounting as dpa

    acc = dpa.rdp.RdpAccountant(orders=list(ORDERS))
    acc.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.2)), 300)
    ours = 300 * helpers.subsampled_gaussian_rdp(0.01, 1.2, ORDERS)
    assert np.allclose(ours, acc._rdp, rtol=1e-9)
    assert helpers.rdp_to_dp(ours, ORDERS, 1e-5) == pytest.approx(acc.get_epsilon(1e-5), rel=1e-9)
    frac = helpers.subsampled_gaussian_rdp(0.5, 1.0, [1.5, 2.0])
    assert frac[0] == math.inf and math.isfinite(frac[1])
    assert helpers.subsampled_gaussian_rdp(1.0, 2.0, [3.0])[0] == pytest.approx(3 / 8)



@pytest.mark.parametrize("q", [1.0, 0.5, 0.01, 1e-4])
@pytest.mark.parametrize("z", [0.5, 0.8, 1.2, 3.0, 10.0])
def test_subsampled_gaussian_rdp_equals_dp_accounting_at_every_noise_multiplier(q, z):
    """dp-accounting's RDP of the Poisson-subsampled Gaussian, at integer orders 2-64, for
    rates from 1e-4 to 1 (q = 1: the Gaussian's α / (2 z²)) and noise multipliers 0.5-10."""
    import dp_accounting as dpa

    acc = dpa.rdp.RdpAccountant(orders=list(ORDERS))
    acc.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z)))
    ours = helpers.subsampled_gaussian_rdp(q, z, ORDERS)
    assert np.allclose(ours, acc._rdp, rtol=1e-9, atol=1e-300)


# --------------------------------------------------------------------------------------------
# The accountant's approximate-DP modes
# --------------------------------------------------------------------------------------------


def test_zcdp_mode_adds_rho_exactly_and_refuses_before_spending():
    acc = helpers.PrivacyAccountant(4.5, delta=1e-6, mode="zcdp")
    acc.spend_gaussian(10.0, count=30)       # ρ = 30/200 = 3/20
    acc.spend(0.5, "a Laplace count")        # ρ = 0.5²/2 = 1/8
    acc.spend_rho(0.025, "exponential mechanism")
    assert acc.rho == 0.3                    # 3/20 + 1/8 + 1/40, exactly
    assert acc.spent == pytest.approx(helpers.zcdp_to_dp(0.3, 1e-6), rel=1e-12)
    before = (acc.spent, list(acc.ledger))
    with pytest.raises(helpers.BudgetExceededError, match="exceed"):
        acc.spend_gaussian(1.0)
    assert (acc.spent, acc.ledger) == before
    assert sum(cost for _, cost in acc.ledger) == pytest.approx(acc.spent, rel=1e-12)
    assert "mode='zcdp'" in repr(acc)


def test_rdp_mode_tracks_subsampling_and_never_understates():
    """DP-SGD-like: 500 steps of a subsampled Gaussian, against dp-accounting's PLD (exact)."""
    import dp_accounting as dpa

    q, z, steps = 256 / 26_048, 1.0, 500
    acc = helpers.PrivacyAccountant(10.0, delta=1e-5, mode="rdp")
    acc.spend_gaussian(z, sampling_rate=q, count=steps, label="DP-SGD")
    pld = dpa.pld.PLDAccountant()
    pld.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z)), steps)
    rdp = dpa.rdp.RdpAccountant()
    rdp.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z)), steps)
    assert acc.spent >= pld.get_epsilon(1e-5)
    assert acc.spent == pytest.approx(rdp.get_epsilon(1e-5), rel=0.02)


def optimal_pure_composition(epsilon0: float, k: int, delta: float) -> float:
    """Exact ε of k ε0-DP releases at δ (Kairouz, Oh and Viswanath 2015), by bisection.

    The privacy loss of the worst case, k randomized responses, is ε0(k - 2J) with
    J ~ Binomial(k, 1/(1 + e^ε0)); δ(ε) = E[(1 - e^(ε - L))+].
    """
    j = np.arange(k + 1)
    weights = stats.binom.pmf(j, k, 1 / (1 + math.exp(epsilon0)))
    loss = epsilon0 * (k - 2 * j)

    def delta_at(eps):
        return float(np.sum(weights * np.clip(1 - np.exp(eps - loss), 0, None)))

    lo, hi = 0.0, k * epsilon0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if delta_at(mid) > delta else (lo, mid)
    return hi


def test_rdp_mode_pure_releases_compose_below_the_basic_sum_and_above_the_optimum():
    acc = helpers.PrivacyAccountant(100.0, delta=1e-6, mode="rdp")
    for _ in range(200):
        acc.spend(0.1)
    assert acc.spent < 200 * 0.1  # many small pure releases: RDP beats adding ε's
    assert acc.spent >= optimal_pure_composition(0.1, 200, 1e-6)  # and never understates


def test_parallel_composition_in_approximate_modes():
    acc = helpers.PrivacyAccountant(10.0, delta=1e-6, mode="zcdp")
    acc.spend_parallel([0.2, 1.0, 0.4])
    assert acc.rho == 0.5
    parallel = helpers.PrivacyAccountant(10.0, delta=1e-6, mode="rdp")
    parallel.spend_parallel([0.2, 1.0, 0.4])
    single = helpers.PrivacyAccountant(10.0, delta=1e-6, mode="rdp")
    single.spend(1.0)
    assert parallel.spent == single.spent  # the largest part is what is charged


def test_rho_charges_agree_between_zcdp_and_rdp_modes():
    zcdp = helpers.PrivacyAccountant(10.0, delta=1e-6, mode="zcdp")
    rdp = helpers.PrivacyAccountant(10.0, delta=1e-6, mode="rdp")
    for acc in (zcdp, rdp):
        acc.spend_rho(0.125)
    assert zcdp.spent == pytest.approx(helpers.zcdp_to_dp(0.125, 1e-6), rel=1e-12)
    # RDP optimises over a fixed grid of orders, zCDP over every order: never below it
    assert zcdp.spent <= rdp.spent <= zcdp.spent * 1.01


def test_unsampled_gaussian_charges_agree_between_zcdp_and_rdp_modes():
    # the accountant composes the Gaussian's own guarantee (gaussian.py): rho = l2^2 / (2 sigma^2)
    # in zCDP, the line alpha * rho in RDP; 10 releases at sigma = 4, l2 = 2 are rho = 10 / 8
    zcdp = helpers.PrivacyAccountant(100.0, delta=1e-6, mode="zcdp")
    rdp = helpers.PrivacyAccountant(100.0, delta=1e-6, mode="rdp")
    for acc in (zcdp, rdp):
        acc.spend_gaussian(4.0, l2_sensitivity=2.0, count=10)
    assert zcdp.rho == 1.25
    assert zcdp.spent == pytest.approx(helpers.zcdp_to_dp(1.25, 1e-6), rel=1e-12)
    assert zcdp.spent <= rdp.spent <= zcdp.spent * 1.01


@pytest.mark.parametrize("make, exc, word", [
    (lambda: helpers.PrivacyAccountant(1.0, mode="gdp"), ValueError, "mode"),
    (lambda: helpers.PrivacyAccountant(1.0, delta=1e-6), ValueError, "delta"),
    (lambda: helpers.PrivacyAccountant(1.0, delta=0.0, mode="zcdp"), ValueError, "delta"),
    (lambda: helpers.PrivacyAccountant(1.0, delta=1.5, mode="rdp"), ValueError, "delta"),
    (lambda: helpers.PrivacyAccountant(1.0, delta=float("nan"), mode="rdp"), ValueError, "delta"),
    (lambda: helpers.PrivacyAccountant(1.0).spend_gaussian(1.0), ValueError, "Gaussian"),
    (lambda: helpers.PrivacyAccountant(1.0).spend_rho(0.1), ValueError, "Gaussian"),
    (lambda: helpers.PrivacyAccountant(1.0).remaining_exact, None, None),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "zcdp").spend_gaussian(1.0, sampling_rate=0.1),
     ValueError, "subsampling"),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "rdp").spend_gaussian(0.0), ValueError, "sigma"),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "rdp").spend_gaussian(1.0, count=0), ValueError,
     "count"),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "rdp").spend_gaussian(1.0, sampling_rate=0.0),
     ValueError, "sampling_rate"),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "zcdp").spend_rho(-0.1), ValueError, "rho"),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "zcdp").remaining_exact, ValueError,
     "remaining_exact"),
    (lambda: helpers.PrivacyAccountant(1.0).rho, ValueError, "rho"),
    (lambda: helpers.gaussian_rdp_epsilon(1.0, 0, 1e-5), ValueError, "steps"),
    (lambda: helpers.gaussian_rdp_epsilon(-1.0, 1, 1e-5), ValueError, "sigma"),
    (lambda: helpers.gaussian_rdp_epsilon(1.0, 1.5, 1e-5), TypeError, "steps"),
    (lambda: helpers.subsampled_gaussian_rdp(1.5, 1.0, [2.0]), ValueError, "sampling_rate"),
    (lambda: helpers.subsampled_gaussian_rdp(0.1, 0.0, [2.0]), ValueError, "noise_multiplier"),
    (lambda: helpers.subsampled_gaussian_rdp(0.1, 1.0, [0.5]), ValueError, "orders"),
])
def test_approximate_modes_reject_bad_input(make, exc, word):
    if exc is None:  # remaining_exact works in pure mode
        assert make() == 1
        return
    with pytest.raises(exc, match=word):
        make()


# --------------------------------------------------------------------------------------------
# What each message says, the defaults, and the edges of the budget
# --------------------------------------------------------------------------------------------


def test_a_refusal_states_the_epsilon_it_would_cost_and_what_remains():
    pure = helpers.PrivacyAccountant(1.0)
    pure.spend(0.6)
    with pytest.raises(helpers.BudgetExceededError,
                       match=r"^spending 0.5 would exceed the budget: 0.4 of 1.0 remains$"):
        pure.spend(0.5)
    with pytest.raises(helpers.BudgetExceededError, match=r"^spending 0.7 would exceed"):
        pure.spend_parallel([0.1, 0.7, 0.2])
    # a Gaussian release and a rho are charged in epsilon at delta: the message gives that
    # epsilon (not sigma, not rho), the amount the ledger would record
    for mode in ("zcdp", "rdp"):
        acc = helpers.PrivacyAccountant(1.0, delta=1e-5, mode=mode)
        for spend, args in ((acc.spend_gaussian, (2.0,)), (acc.spend_rho, (0.5,))):
            probe = helpers.PrivacyAccountant(100.0, delta=1e-5, mode=mode)
            getattr(probe, spend.__name__)(*args)
            with pytest.raises(helpers.BudgetExceededError,
                               match=rf"^spending {probe.spent} would exceed the budget: "
                                     r"1.0 of 1.0 remains$"):
                spend(*args)


def test_spending_exactly_the_whole_budget_is_allowed_in_every_mode():
    # 0.3 + 0.4 is exactly 7/10 = the budget, though the double nearest 0.7 lies below 7/10
    acc = helpers.PrivacyAccountant(0.7)
    acc.spend(0.3)
    acc.spend(0.4)
    assert acc.remaining_exact == 0
    parallel = helpers.PrivacyAccountant(0.3)
    parallel.spend_parallel([0.1, 0.3])
    assert parallel.remaining == 0.0
    for mode in ("zcdp", "rdp"):
        exact = helpers.PrivacyAccountant(100.0, delta=1e-6, mode=mode)
        exact.spend_rho(0.1)
        # a budget equal to what the spend costs, to the last bit (in mode="rdp" that double,
        # 2.143043523753668, lies above its shortest decimal form: comparing the spend with the
        # decimal instead of the double would refuse it)
        budget = exact.spent
        acc = helpers.PrivacyAccountant(budget, delta=1e-6, mode=mode)
        acc.spend_rho(0.1)
        assert acc.spent == budget and acc.remaining == 0.0


def test_a_fresh_accountant_has_spent_nothing_and_a_tiny_spend_counts():
    for mode, delta in (("pure", 0.0), ("zcdp", 1e-6), ("rdp", 1e-6)):
        acc = helpers.PrivacyAccountant(2.0, delta=delta, mode=mode)
        assert acc.spent == 0.0 and acc.remaining == 2.0 and acc.ledger == []
    # ρ = 1e-4: the Rényi curve stays below 1 at every order, and still costs ε > 0
    rdp = helpers.PrivacyAccountant(2.0, delta=1e-6, mode="rdp")
    rdp.spend_rho(1e-4)
    assert helpers.zcdp_to_dp(1e-4, 1e-6) <= rdp.spent <= 1.01 * helpers.zcdp_to_dp(1e-4, 1e-6)


def test_default_labels_and_count():
    acc = helpers.PrivacyAccountant(100.0, delta=1e-6, mode="zcdp")
    acc.spend(0.1)
    acc.spend_parallel([0.1, 0.2])
    acc.spend_gaussian(10.0)
    acc.spend_rho(0.01)
    assert [label for label, _ in acc.ledger] == [
        "query", "parallel queries", "Gaussian", "zCDP release"]
    # one Gaussian release by default: ρ = 1/(2·10²), after 0.1²/2 and 0.2²/2 and 0.01
    assert acc.rho == pytest.approx(0.005 + 0.02 + 0.005 + 0.01, rel=1e-12)


def test_parallel_releases_charge_the_largest_part_in_zcdp():
    acc = helpers.PrivacyAccountant(10.0, delta=1e-6, mode="zcdp")
    acc.spend_parallel([0.5, 0.25])
    assert acc.rho == 0.125  # (1/2)²/2, exactly


def test_rdp_mode_gaussian_uses_every_order_and_the_sensitivity():
    # a large ρ = 50 has its best Rényi order near 1.5: the fractional orders must be used
    acc = helpers.PrivacyAccountant(1000.0, delta=1e-6, mode="rdp")
    acc.spend_gaussian(0.1)
    assert acc.spent == pytest.approx(helpers.zcdp_to_dp(50.0, 1e-6), rel=0.01)
    # subsampled with sensitivity 2 and sigma 3: noise multiplier 3/2, against dp-accounting
    import dp_accounting as dpa

    sub = helpers.PrivacyAccountant(1000.0, delta=1e-5, mode="rdp")
    sub.spend_gaussian(3.0, l2_sensitivity=2.0, count=100, sampling_rate=0.05)
    ref = dpa.rdp.RdpAccountant()
    ref.compose(dpa.PoissonSampledDpEvent(0.05, dpa.GaussianDpEvent(1.5)), 100)
    assert sub.spent == pytest.approx(ref.get_epsilon(1e-5), rel=0.02)
    assert sub.spent >= ref.get_epsilon(1e-5) * 0.98


def test_repr_shows_the_budget_and_in_approximate_modes_delta_and_mode():
    acc = helpers.PrivacyAccountant(1.0)
    acc.spend(0.25)
    assert repr(acc) == "PrivacyAccountant(total=1.0, spent=0.25, remaining=0.75)"
    zcdp = helpers.PrivacyAccountant(2.0, delta=1e-6, mode="zcdp")
    assert repr(zcdp) == ("PrivacyAccountant(total=2.0, spent=0.0, remaining=2.0, "
                          "delta=1e-06, mode='zcdp')")


def test_counting_table_returns_the_frame_it_guards():
    df = pd.DataFrame({"x": [1, 2]})
    table = helpers.CountingTable(df)
    assert table.read() is df
    with pytest.raises(TypeError, match=r"^df must be a pandas DataFrame, got list$"):
        helpers.CountingTable([[1, 2]])


@pytest.mark.parametrize("make, exc, message", [
    (lambda: helpers.PrivacyAccountant(0), ValueError, r"^total_epsilon must be > 0, got 0.0$"),
    (lambda: helpers.PrivacyAccountant(1.0, delta="0"), TypeError, r"^delta must be a real number"),
    (lambda: helpers.PrivacyAccountant(1.0, delta=1e-6), ValueError,
     r"^mode='pure' accounts pure epsilon-DP: delta must be 0$"),
    (lambda: helpers.PrivacyAccountant(1.0).spend(-1), ValueError, r"^epsilon must be > 0"),
    (lambda: helpers.PrivacyAccountant(1.0).spend(0.1, label=3), TypeError,
     r"^label must be a string, got int$"),
    (lambda: helpers.PrivacyAccountant(1.0).spend_parallel(0.5), TypeError,
     r"^epsilons must be a sequence of numbers$"),
    (lambda: helpers.PrivacyAccountant(1.0).spend_parallel([]), ValueError,
     r"^epsilons must not be empty$"),
    (lambda: helpers.PrivacyAccountant(1.0).spend_parallel([0.1, 0.0]), ValueError,
     r"^epsilons must be > 0"),
    (lambda: helpers.PrivacyAccountant(1.0).spend_gaussian(1.0), ValueError,
     r"^a Gaussian release is not epsilon-DP for any finite epsilon: "
     r"use PrivacyAccountant\(\.\.\., delta=\.\.\., mode='zcdp' or 'rdp'\)$"),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "zcdp").spend_gaussian(1.0, sampling_rate=0.5),
     ValueError, r"^zCDP does not track amplification by subsampling: use mode='rdp'$"),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "rdp").spend_gaussian(0.0), ValueError,
     r"^sigma must be > 0"),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "rdp").spend_gaussian(1.0, l2_sensitivity=0),
     ValueError, r"^l2_sensitivity must be > 0"),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "rdp").spend_gaussian(1.0, count=0), ValueError,
     r"^count must be >= 1"),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "rdp").spend_gaussian(1.0, sampling_rate="1"),
     TypeError, r"^sampling_rate must be a real number"),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "zcdp").spend_gaussian(1.0, sampling_rate=0.0),
     ValueError, r"^sampling_rate must be in \(0, 1\], got 0.0$"),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "rdp").spend_gaussian(1.0, sampling_rate=1.5),
     ValueError, r"^sampling_rate must be in \(0, 1\], got 1.5$"),
    (lambda: helpers.PrivacyAccountant(1.0, 1e-6, "zcdp").spend_rho(0.0), ValueError,
     r"^rho must be > 0"),
])
def test_errors_name_the_parameter(make, exc, message):
    with pytest.raises(exc, match=message):
        make()
