"""The PLD accountant (``dpcourse.pld``) against Google's ``dp-accounting`` and exact values.

Tolerances: the accountant must agree with ``dp-accounting``'s PLD accountant (same grid,
1e-4) within 1 % of ε and never fall below it by more than floating-point noise (1e-6
relative: both libraries round differently at the 1e-9 level), and must never fall below an
exact closed form.
"""

from __future__ import annotations

import math

import dp_accounting as dpa
import numpy as np
import pytest
from scipy import integrate, stats

from dpcourse import pld
from dpcourse.gaussian import gaussian_epsilon

#: (q, z, T): the ML chapter's run and harder ones (small q, long runs, low noise)
DPSGD = [
    (256 / 26048, 1.0, 1),
    (256 / 26048, 1.0, 102),
    (256 / 26048, 1.0, 1020),
    (0.01, 1.1, 10_000),
    (0.001, 0.8, 10_000),
    (1e-4, 2.0, 100_000),
    (0.1, 0.6, 50),
]


def _reference(event: dpa.DpEvent, count: int, delta: float) -> float:
    accountant = dpa.pld.PLDAccountant(value_discretization_interval=1e-4)
    accountant.compose(event, count)
    return accountant.get_epsilon(delta)


def _agrees(ours: float, reference: float) -> None:
    assert ours >= reference * (1 - 1e-6), (ours, reference)
    assert ours <= reference * 1.01, (ours, reference)


@pytest.mark.parametrize(("q", "z", "steps"), DPSGD)
def test_dpsgd_epsilon_agrees_with_dp_accounting(q, z, steps):
    event = dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z))
    _agrees(pld.dpsgd_epsilon(q, z, steps, 1e-5), _reference(event, steps, 1e-5))


def test_the_ml_chapters_run_costs_far_less_than_its_rdp_bound():
    q, z, steps = 256 / 26048, 1.0, 102
    tight = pld.dpsgd_epsilon(q, z, steps, 1e-5)
    loose = pld.dpsgd_epsilon(q, z, steps, 1e-5, accountant="rdp")
    assert round(tight, 2) == 0.71          # the course spec, piece 4 of Part VI, table (a)
    assert loose > 1.6 * tight


@pytest.mark.parametrize(("sigma", "steps"), [(1.0, 1), (2.0, 50), (5.0, 1000)])
def test_gaussian_composition_is_an_upper_bound_on_the_exact_value(sigma, steps):
    # T Gaussian releases are one Gaussian release with sigma / sqrt(T): exact (Balle-Wang)
    exact = gaussian_epsilon(sigma / math.sqrt(steps), 1e-5)
    ours = pld._gaussian_pld(sigma).self_compose(steps).epsilon(1e-5)
    assert exact <= ours <= exact * (1 + 1e-5)


@pytest.mark.parametrize(("scale", "steps"), [(1.0, 1), (1.0, 10), (4.0, 200)])
def test_laplace_composition_agrees_with_dp_accounting(scale, steps):
    _agrees(pld._laplace_pld(scale).self_compose(steps).epsilon(1e-5),
            _reference(dpa.LaplaceDpEvent(scale), steps, 1e-5))


def test_one_laplace_release_is_exactly_eps0_dp():
    pld_one = pld._laplace_pld(0.5)               # eps0 = 2
    assert pld_one.delta(2.0) == pytest.approx(0.0, abs=1e-12)
    assert pld_one.delta(1.0) == pytest.approx(1 - math.exp(-0.5), rel=1e-9)


def test_compose_of_two_mechanisms_matches_dp_accounting():
    ours = pld._gaussian_pld(2.0).compose(pld._laplace_pld(1.0)).epsilon(1e-6)
    accountant = dpa.pld.PLDAccountant(value_discretization_interval=1e-4)
    accountant.compose(dpa.GaussianDpEvent(2.0)).compose(dpa.LaplaceDpEvent(1.0))
    _agrees(ours, accountant.get_epsilon(1e-6))


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("epsilon", [-0.5, 0.0, 0.3, 1.5])
def test_subsampled_gaussian_profile_matches_numerical_integration(direction, epsilon):
    q, z = 0.2, 0.9
    mixture = lambda y: (1 - q) * stats.norm.pdf(y, 0, z) + q * stats.norm.pdf(y, 1, z)
    base = lambda y: stats.norm.pdf(y, 0, z)
    p, r = (mixture, base) if direction == "remove" else (base, mixture)
    exact, _ = integrate.quad(lambda y: max(p(y) - math.exp(epsilon) * r(y), 0.0),
                              -15, 15, points=[0.5], limit=200)
    assert pld._subsampled_gaussian_delta(q, z, epsilon, direction) == pytest.approx(
        exact, abs=1e-9)


def test_connect_the_dots_matches_the_profile_at_grid_points_and_lies_above_between():
    q, z, h = 0.05, 1.0, 1e-3
    one = pld._subsampled_gaussian_pld(q, z, interval=h)
    grid = np.arange(0, 2.0, h)
    exact = pld._subsampled_gaussian_delta(q, z, grid)
    assert np.allclose(one.delta(grid), exact, rtol=1e-6, atol=1e-12)
    between = grid[:-1] + h / 2
    assert np.all(one.delta(between) >= pld._subsampled_gaussian_delta(q, z, between) - 1e-15)


def test_masses_form_a_probability_distribution_up_to_rounding_that_only_adds_mass():
    # second differences of δ carry rounding noise of about 1e-12 per grid point; negative
    # noise is clipped to 0, so no mass is lost and at most about 1e-7 is added (which can
    # only raise δ)
    for direction in ("remove", "add"):
        one = pld._subsampled_gaussian_pld(0.01, 1.0, direction=direction)
        assert np.all(one.masses >= 0)
        assert 1 - 1e-12 <= one.masses.sum() + one.infinity_mass <= 1 + 1e-7


def test_remove_dominates_add_for_the_ml_chapters_run():
    q, z, steps = 256 / 26048, 1.0, 102
    remove, add = (pld._subsampled_gaussian_pld(q, z, direction=d).self_compose(steps)
                   .epsilon(1e-5) for d in ("remove", "add"))
    assert remove > 2 * add
    assert pld.dpsgd_epsilon(q, z, steps, 1e-5) == remove


def test_infinity_mass_composes_and_can_make_epsilon_infinite():
    leaky = pld._PrivacyLossDistribution([1.0], 0, 1e-3, infinity_mass=1e-3)
    assert leaky.self_compose(10).infinity_mass == pytest.approx(1 - (1 - 1e-3) ** 10)
    assert leaky.epsilon(1e-3) == math.inf
    assert leaky.epsilon(0.5) == 0.0


def test_full_subsampling_is_the_gaussian_mechanism():
    _agrees(pld.dpsgd_epsilon(1.0, 2.0, 10, 1e-5), gaussian_epsilon(2.0 / math.sqrt(10), 1e-5))


@pytest.mark.parametrize(("call", "name"), [
    (lambda: pld.dpsgd_epsilon(0.0, 1.0, 10, 1e-5), "sampling_rate"),
    (lambda: pld.dpsgd_epsilon(0.1, -1.0, 10, 1e-5), "noise_multiplier"),
    (lambda: pld.dpsgd_epsilon(0.1, 1.0, 0, 1e-5), "steps"),
    (lambda: pld.dpsgd_epsilon(0.1, 1.0, 10, 1.5), "delta"),
    (lambda: pld.dpsgd_epsilon(0.1, 1.0, 10, 1e-5, accountant="moments"), "accountant"),
    (lambda: pld._gaussian_pld(1.0, interval=0.5), "interval"),
    (lambda: pld._laplace_pld(0.0), "scale"),
    (lambda: pld._subsampled_gaussian_pld(0.1, 1.0, direction="both"), "direction"),
    (lambda: pld._subsampled_gaussian_delta(0.1, 1.0, 0.5, direction="both"), "direction"),
    (lambda: pld._subsampled_gaussian_delta(0.1, 1.0, math.nan), "epsilon"),
    (lambda: pld._PrivacyLossDistribution([0.5, -0.1], 0, 1e-3), "masses"),
    (lambda: pld._PrivacyLossDistribution([1.0], 0, 1e-3, infinity_mass=2.0), "infinity_mass"),
    (lambda: pld._gaussian_pld(1.0).compose(pld._gaussian_pld(1.0, interval=1e-3)), "interval"),
    (lambda: pld._gaussian_pld(1.0).delta([0.0, math.inf]), "epsilon"),
    (lambda: pld._PrivacyLossDistribution.from_privacy_profile(
        lambda e: e, lower=1.0, upper=0.0), "lower"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_wrong_types_are_refused():
    with pytest.raises(TypeError, match="other"):
        pld._gaussian_pld(1.0).compose(0.5)
    with pytest.raises(TypeError, match="steps"):
        pld.dpsgd_epsilon(0.1, 1.0, 10.0, 1e-5)


def test_a_grid_too_long_for_the_fft_is_refused():
    with pytest.raises(ValueError, match="interval"):
        pld._gaussian_pld(0.05, interval=1e-5)


def test_epsilon_is_exact_below_the_first_grid_loss():
    # one loss of 0.5 with certainty: δ(ε) = 1 - e^(ε - 0.5) below it, so ε(0.1) = 0.5 + ln 0.9
    # (a grid that starts above 0 must not report ε = 0)
    single = pld._PrivacyLossDistribution([1.0], 500, 1e-3)
    assert single.epsilon(0.1) == pytest.approx(0.5 + math.log(0.9), rel=1e-12)
    assert single.epsilon(0.99) == 0.0


# --------------------------------------------------------------------------------------------
# dpsgd_noise_multiplier: dpsgd_epsilon inverted
# --------------------------------------------------------------------------------------------
#: (q, target ε, T): the ML chapter's full run at ε = 1 and its small models at ε = 8
CALIBRATIONS = [(256 / 26048, 1.0, 102), (0.2, 8.0, 150)]


@pytest.mark.parametrize(("q", "target", "steps"), CALIBRATIONS)
def test_calibrated_noise_meets_the_target_by_dp_accounting_and_is_nearly_the_smallest(q, target, steps):
    z = pld.dpsgd_noise_multiplier(q, target, steps, 1e-5)
    event = dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z))
    assert _reference(event, steps, 1e-5) <= target
    # 1 % less noise misses the target (the search runs on a 10x coarser grid, 0.1 % steps)
    less = dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(0.99 * z))
    assert _reference(less, steps, 1e-5) > target


def test_rdp_calibration_is_the_rdp_bound_inverted_and_asks_for_more_noise():
    q, steps = 256 / 26048, 102
    z_rdp = pld.dpsgd_noise_multiplier(q, 1.0, steps, 1e-5, accountant="rdp")
    assert pld.dpsgd_epsilon(q, z_rdp, steps, 1e-5, accountant="rdp") <= 1.0
    assert pld.dpsgd_epsilon(q, z_rdp / 1.001, steps, 1e-5, accountant="rdp") > 1.0
    # dp-accounting's RDP accountant (fractional orders too) is a little tighter, never looser
    rdp = dpa.rdp.RdpAccountant()
    rdp.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z_rdp)), steps)
    assert 0.94 <= rdp.get_epsilon(1e-5) <= 1.0 + 1e-9
    assert z_rdp > 1.15 * pld.dpsgd_noise_multiplier(q, 1.0, steps, 1e-5)
    assert pld.dpsgd_noise_multiplier(q, 2.0, steps, 1e-5, accountant="rdp") < z_rdp  # more ε, less noise


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"sampling_rate": 0.0}, "sampling_rate"),
    ({"epsilon": 0.0}, "epsilon"),
    ({"epsilon": math.nan}, "epsilon"),
    ({"steps": 0}, "steps"),
    ({"delta": 0.0}, "delta"),
    ({"accountant": "moments"}, "accountant"),
    ({"rtol": 0.5}, "rtol"),
    ({"rtol": 0.0}, "rtol"),
    ({"interval": 0.5}, "interval"),
])
def test_calibration_bad_input_names_the_parameter(kwargs, name):
    args = {"sampling_rate": 0.1, "epsilon": 1.0, "steps": 10, "delta": 1e-5} | kwargs
    with pytest.raises(ValueError, match=name):
        pld.dpsgd_noise_multiplier(**args)


def test_calibration_refuses_targets_out_of_reach():
    with pytest.raises(ValueError, match="epsilon"):     # no noise up to z = 1000 is enough
        pld.dpsgd_noise_multiplier(1.0, 1e-4, 1, 1e-5, accountant="rdp")
    with pytest.raises(ValueError, match="epsilon"):     # even z = 0.05 already meets it
        pld.dpsgd_noise_multiplier(0.1, 1e6, 1, 1e-5, accountant="rdp")
    with pytest.raises(TypeError, match="steps"):
        pld.dpsgd_noise_multiplier(0.1, 1.0, 10.0, 1e-5)
