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
from scipy import integrate, optimize, stats

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


# --------------------------------------------------------------------------------------------
# The distribution's arithmetic against direct computations: δ(ε) summed term by term, ε by
# bisection on that sum, composition by direct convolution
# --------------------------------------------------------------------------------------------
def reference_delta(masses, offset, h, infinity, eps):
    """δ(ε) = ω + Σ_k p_k (1 − e^(ε − l_k))_+, summed with math.fsum."""
    return infinity + math.fsum(p * (1 - math.exp(eps - (offset + k) * h))
                                for k, p in enumerate(masses) if (offset + k) * h > eps)


def reference_epsilon(masses, offset, h, infinity, delta):
    """The smallest ε >= 0 with δ(ε) <= delta, by bisection on reference_delta (δ decreases)."""
    if reference_delta(masses, offset, h, infinity, 0.0) <= delta:
        return 0.0
    lo, hi = 0.0, (offset + len(masses)) * h + 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if reference_delta(masses, offset, h, infinity, mid) > delta else (lo, mid)
    return hi


def random_plds():
    """Small distributions with negative and positive losses, some with mass at +∞."""
    rng = np.random.default_rng(2026)
    out = []
    for size, offset, h, infinity in [(7, -3, 0.1, 0.0), (40, -10, 0.05, 1e-4), (25, 4, 0.02, 0.0),
                                      (60, -30, 0.1, 1e-6), (1, 2, 0.1, 0.0), (12, -12, 0.1, 0.0)]:
        masses = rng.random(size) ** 3
        masses *= (1 - infinity) / masses.sum()
        out.append(pld._PrivacyLossDistribution(masses, offset, h, infinity))
    return out


def test_delta_is_the_sum_of_its_terms():
    for one in random_plds():
        args = (one.masses, one.offset, one.interval, one.infinity_mass)
        grid = np.linspace(-4, 4, 33)
        ours = one.delta(grid)
        assert isinstance(ours, np.ndarray) and ours.shape == grid.shape
        assert ours == pytest.approx([reference_delta(*args, e) for e in grid], abs=1e-13)
        assert isinstance(one.delta(0.25), float)
        assert one.delta(0.25) == pytest.approx(reference_delta(*args, 0.25), abs=1e-13)
        assert one.losses == pytest.approx((one.offset + np.arange(one.masses.size))
                                           * one.interval, abs=1e-15)
    # δ never exceeds 1, even where rounding pushes the sum over
    assert pld._PrivacyLossDistribution([0.5, 0.5 + 1e-12], 0, 0.1).delta(-50.0) == 1.0


@pytest.mark.parametrize("delta", [1e-8, 1e-4, 1e-2, 0.2, 0.6])
def test_epsilon_inverts_delta(delta):
    for one in random_plds():
        args = (one.masses, one.offset, one.interval, one.infinity_mass)
        expected = (math.inf if one.infinity_mass >= delta
                    else reference_epsilon(*args, delta))
        assert one.epsilon(delta) == pytest.approx(expected, rel=1e-9, abs=1e-12), (args, delta)


def test_epsilon_is_zero_when_every_loss_is_negative_or_small():
    negative = pld._PrivacyLossDistribution([0.5, 0.5], -5, 0.1)
    assert negative.epsilon(1e-6) == 0.0
    tiny = pld._PrivacyLossDistribution([0.5, 0.5], 0, 1e-3)  # losses 0 and 0.001
    assert tiny.epsilon(0.4) == 0.0 and tiny.epsilon(1e-6) == pytest.approx(
        reference_epsilon([0.5, 0.5], 0, 1e-3, 0.0, 1e-6), rel=1e-9)


def test_compose_is_the_convolution_and_infinity_masses_combine():
    a = random_plds()[3]                            # h = 0.1, mass 1e-6 at +∞
    b = pld._PrivacyLossDistribution([0.2, 0.0, 0.5, 0.299], 7, 0.1, infinity_mass=1e-3)
    ab = a.compose(b)
    assert ab.offset == a.offset + b.offset and ab.interval == a.interval
    assert ab.masses == pytest.approx(np.convolve(a.masses, b.masses), abs=1e-15)
    assert ab.infinity_mass == pytest.approx(1 - (1 - 1e-6) * (1 - 1e-3), rel=1e-12)


@pytest.mark.parametrize("count", [2, 3, 7, 60])
def test_self_compose_is_repeated_convolution_up_to_the_stated_alias_bound(count):
    one = random_plds()[1]                       # 40 grid points, mass 1e-4 at +∞
    exact = np.array([1.0])
    for _ in range(count):
        exact = np.convolve(exact, one.masses)
    ours = one.self_compose(count)
    # ours holds the masses of a window of grid steps (FFT rounding below 1e-14 aside); the
    # exact mass outside the window is bounded by the Chernoff term added to the mass at +∞
    steps = ours.offset - count * one.offset + np.arange(ours.masses.size)
    inside = (steps >= 0) & (steps < exact.size)
    window = np.where(inside, exact[np.clip(steps, 0, exact.size - 1)], 0.0)
    assert ours.masses == pytest.approx(window, abs=1e-14)
    left_out = exact.sum() - window.sum()
    plain = 1 - (1 - one.infinity_mass) ** count
    assert plain <= ours.infinity_mass <= plain + 2e-15
    assert left_out <= ours.infinity_mass - plain + 1e-15
    assert one.self_compose(1) is one


def test_a_wide_composition_is_windowed_and_its_bound_holds():
    # 2,000 runs of a loss spread over 60 grid points: the composed loss would span 118,001
    # points; the window keeps what carries more than 1e-15, and the bound covers the rest
    one = random_plds()[3]
    ours = one.self_compose(2_000)
    assert ours.masses.size < 30_000
    total = ours.masses.sum() + ours.infinity_mass
    assert 1 - 1e-12 <= total <= 1 + 1e-9
    # against the moments: mean and variance of the sum of 2,000 independent losses
    k = np.arange(one.masses.size)
    p = one.masses / one.masses.sum()
    mean_one = float(np.dot(k, p))
    var_one = float(np.dot((k - mean_one) ** 2, p))
    kk = np.arange(ours.masses.size) + ours.offset - 2_000 * one.offset
    q = ours.masses / ours.masses.sum()
    assert float(np.dot(kk, q)) == pytest.approx(2_000 * mean_one, rel=1e-9)
    assert float(np.dot((kk - 2_000 * mean_one) ** 2, q)) == pytest.approx(2_000 * var_one,
                                                                           rel=1e-6)


def _randomized_response_profile(e0: float):
    """The privacy profile of randomized response at epsilon e0: 1 - e^eps below -e0 (S = every
    output), (e^e0 - e^eps) / (1 + e^e0) on [-e0, e0], and 0 above."""
    return lambda eps: np.where(eps < -e0, -np.expm1(np.minimum(eps, 0)),
                                np.clip((math.exp(e0) - np.exp(eps)) / (1 + math.exp(e0)), 0, 1))


def test_connect_the_dots_on_a_known_profile():
    """Randomized response at ε0 = 1 has δ(ε) = (e^ε0 − e^ε)/(1 + e^ε0) on [−ε0, ε0] and
    1 − e^ε below: the grid's masses sit at ±ε0 (up to the grid) and reproduce it."""
    e0, h = 1.0, 0.01
    profile = _randomized_response_profile(e0)
    one = pld._PrivacyLossDistribution.from_privacy_profile(profile, lower=-1.2, upper=1.2,
                                                             interval=h)
    assert one.offset == -120 and one.masses.size == 241 and one.interval == h
    assert one.infinity_mass == pytest.approx(0.0, abs=1e-15)
    heavy = np.flatnonzero(one.masses > 1e-9)
    assert list(one.losses[heavy]) == pytest.approx([-1.0, 1.0], abs=1e-12)
    assert one.masses[heavy] == pytest.approx([1 / (1 + math.e), math.e / (1 + math.e)],
                                              rel=1e-9)
    grid = one.losses
    assert one.delta(grid) == pytest.approx(profile(grid), abs=1e-12)
    # mass at +∞: δ at the last grid point
    cut = pld._PrivacyLossDistribution.from_privacy_profile(profile, lower=-1.2, upper=0.5,
                                                             interval=h)
    assert cut.infinity_mass == pytest.approx(float(profile(np.array(0.5))), rel=1e-12)
    assert cut.masses.sum() + cut.infinity_mass == pytest.approx(1.0, abs=1e-12)
    # a profile that rises by rounding is made non-increasing first: masses stay >= 0
    bumpy = pld._PrivacyLossDistribution.from_privacy_profile(
        lambda eps: profile(eps) + 1e-9 * (np.arange(eps.size) % 2), lower=-1.2, upper=1.2,
        interval=h)
    assert np.all(bumpy.masses >= 0) and bumpy.delta(0.0) >= float(profile(np.array(0.0)))


@pytest.mark.parametrize(("sigma", "sensitivity"), [(2.0, 3.0), (1.0, 0.5)])
def test_gaussian_pld_uses_the_sensitivity(sigma, sensitivity):
    exact = gaussian_epsilon(sigma / sensitivity, 1e-5)
    ours = pld._gaussian_pld(sigma, sensitivity).epsilon(1e-5)
    assert exact <= ours <= exact * (1 + 1e-5)


@pytest.mark.parametrize(("scale", "sensitivity", "steps"), [(2.0, 3.0, 1), (0.5, 0.25, 20)])
def test_laplace_pld_uses_the_sensitivity(scale, sensitivity, steps):
    # sensitivity Δ and scale b is the mechanism with sensitivity 1 and scale b/Δ
    ours = pld._laplace_pld(scale, sensitivity).self_compose(steps).epsilon(1e-5)
    _agrees(ours, _reference(dpa.LaplaceDpEvent(scale / sensitivity), steps, 1e-5))
    eps0 = sensitivity / scale
    one = pld._laplace_pld(scale, sensitivity)
    for eps in (-1.5 * eps0, -0.5 * eps0, 0.0, 0.5 * eps0):
        closed = (1 - math.exp((eps - eps0) / 2)) if eps >= -eps0 else 1 - math.exp(eps)
        assert one.delta(eps) == pytest.approx(closed, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_full_sampling_profile_and_pld_are_the_gaussian_s(direction):
    z = 1.3
    for eps in (-0.5, 0.0, 0.7, 2.0):
        gaussian = (stats.norm.cdf(1 / (2 * z) - eps * z)
                    - math.exp(eps) * stats.norm.cdf(-1 / (2 * z) - eps * z)) if eps >= 0 else None
        ours = pld._subsampled_gaussian_delta(1.0, z, eps, direction)
        if gaussian is not None:
            assert ours == pytest.approx(gaussian, rel=1e-9, abs=1e-15)
    array = pld._subsampled_gaussian_delta(1.0, z, [0.0, 1.0], direction)
    assert isinstance(array, np.ndarray) and array.shape == (2,)
    exact = gaussian_epsilon(z, 1e-5)
    ours = pld._subsampled_gaussian_pld(1.0, z, direction=direction).epsilon(1e-5)
    assert exact <= ours <= exact * (1 + 1e-5)


def test_beyond_the_loss_s_range_delta_is_trivial():
    # remove: the loss is at least ln(1 - q), so below it δ(ε) = 1 - e^ε; add: the loss is at
    # most -ln(1 - q), so above it δ(ε) = 0
    q, z = 0.3, 1.0
    for eps in (-2.0, math.log(1 - q) - 1e-9):
        assert pld._subsampled_gaussian_delta(q, z, eps, "remove") == pytest.approx(
            -math.expm1(eps), rel=1e-12)
    for eps in (-math.log(1 - q) + 1e-9, 0.5, 3.0):
        assert pld._subsampled_gaussian_delta(q, z, eps, "add") == 0.0
    assert pld._subsampled_gaussian_delta(q, z, 0.3, "add") > 0.0


@pytest.mark.parametrize(("q", "z", "steps"), [
    (0.01, 1.1, 1_000),
    (1.0, 0.2, 1),       # weak privacy: the best order is the smallest, 2
    (1.0, 60.0, 1),      # strong privacy: the best order would be above 256, so it is 256
])
def test_the_rdp_accountant_is_rdp_at_orders_2_to_256(q, z, steps):
    from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

    acc = RdpAccountant(orders=list(range(2, 257)))
    acc.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z)), steps)
    assert pld.dpsgd_epsilon(q, z, steps, 1e-5, accountant="rdp") == pytest.approx(
        acc.get_epsilon(1e-5), rel=1e-9)


def test_interval_sets_the_grid():
    q, z, steps = 0.01, 1.1, 100
    event = dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z))
    coarse = pld.dpsgd_epsilon(q, z, steps, 1e-5, interval=1e-2)
    reference = dpa.pld.PLDAccountant(value_discretization_interval=1e-2)
    reference.compose(event, steps)
    _agrees(coarse, reference.get_epsilon(1e-5))
    assert coarse > pld.dpsgd_epsilon(q, z, steps, 1e-5)  # a coarser grid is looser
    assert pld._subsampled_gaussian_pld(q, z, interval=1e-2).interval == 1e-2
    assert pld._gaussian_pld(1.0, interval=1e-3).interval == 1e-3
    assert pld._laplace_pld(1.0, interval=1e-3).interval == 1e-3


@pytest.mark.parametrize(("call", "exc", "message"), [
    (lambda: pld.dpsgd_epsilon(0.0, 1.0, 10, 1e-5), ValueError,
     r"^sampling_rate must be in \(0, 1\], got 0.0$"),
    (lambda: pld.dpsgd_epsilon(1.5, 1.0, 10, 1e-5), ValueError, r"^sampling_rate must be in"),
    (lambda: pld.dpsgd_epsilon("q", 1.0, 10, 1e-5), TypeError, r"^sampling_rate must be a real"),
    (lambda: pld.dpsgd_epsilon(0.1, 0.0, 10, 1e-5), ValueError, r"^noise_multiplier must be > 0"),
    (lambda: pld.dpsgd_epsilon(0.1, 1.0, 0, 1e-5), ValueError, r"^steps must be >= 1, got 0$"),
    (lambda: pld.dpsgd_epsilon(0.1, 1.0, 10, 0.0), ValueError, r"^delta must be in \(0, 1\)"),
    (lambda: pld.dpsgd_epsilon(0.1, 1.0, 10, 1e-5, accountant="moments"), ValueError,
     r"^accountant must be 'pld' or 'rdp', got 'moments'$"),
    (lambda: pld.dpsgd_epsilon(0.1, 1.0, 10, 1e-5, interval=0.2), ValueError,
     r"^interval must be <= 0.1 \(a finer grid is tighter\), got 0.2$"),
    (lambda: pld.dpsgd_epsilon(0.1, 1.0, 10, 1e-5, interval=0.0), ValueError,
     r"^interval must be > 0"),
    (lambda: pld._gaussian_pld(0.0), ValueError, r"^sigma must be > 0"),
    (lambda: pld._gaussian_pld(1.0, 0.0), ValueError, r"^sensitivity must be > 0"),
    (lambda: pld._laplace_pld(0.0), ValueError, r"^scale must be > 0"),
    (lambda: pld._laplace_pld(1.0, -1.0), ValueError, r"^sensitivity must be > 0"),
    (lambda: pld._subsampled_gaussian_delta(0.0, 1.0, 0.5), ValueError,
     r"^sampling_rate must be in \(0, 1\], got 0.0$"),
    (lambda: pld._subsampled_gaussian_delta(1.5, 1.0, 0.5), ValueError, r"^sampling_rate must"),
    (lambda: pld._subsampled_gaussian_delta("q", 1.0, 0.5), TypeError, r"^sampling_rate must be a real"),
    (lambda: pld._subsampled_gaussian_delta(0.1, -1.0, 0.5), ValueError,
     r"^noise_multiplier must be > 0"),
    (lambda: pld._subsampled_gaussian_delta(0.1, 1.0, 0.5, direction="both"), ValueError,
     r"^direction must be 'remove', 'add' or 'replace', got 'both'$"),
    (lambda: pld._subsampled_gaussian_delta(0.1, 1.0, [0.0, math.inf]), ValueError,
     r"^epsilon must be finite$"),
    (lambda: pld._subsampled_gaussian_pld(0.0, 1.0), ValueError,
     r"^sampling_rate must be in \(0, 1\], got 0.0$"),
    (lambda: pld._subsampled_gaussian_pld(1.5, 1.0), ValueError, r"^sampling_rate must"),
    (lambda: pld._subsampled_gaussian_pld("q", 1.0), TypeError, r"^sampling_rate must be a real"),
    (lambda: pld._subsampled_gaussian_pld(0.1, 0.0), ValueError, r"^noise_multiplier must be > 0"),
    (lambda: pld._subsampled_gaussian_pld(0.1, 1.0, interval=0.5), ValueError,
     r"^interval must be <= 0.1"),
    (lambda: pld._subsampled_gaussian_pld(0.1, 1.0, direction="both"), ValueError,
     r"^direction must be 'remove', 'add' or 'replace', got 'both'$"),
    (lambda: pld._PrivacyLossDistribution([], 0, 1e-3), ValueError,
     r"^masses must be a non-empty 1-D array of finite values$"),
    (lambda: pld._PrivacyLossDistribution([[0.5, 0.5]], 0, 1e-3), ValueError, r"^masses must be a"),
    (lambda: pld._PrivacyLossDistribution([0.5, math.nan], 0, 1e-3), ValueError,
     r"^masses must be a"),
    (lambda: pld._PrivacyLossDistribution([0.5, -0.1], 0, 1e-3), ValueError,
     r"^masses must be >= 0$"),
    (lambda: pld._PrivacyLossDistribution([1.0], 0.5, 1e-3), TypeError,
     r"^offset must be an integer"),
    (lambda: pld._PrivacyLossDistribution([1.0], 0, 0.2), ValueError, r"^interval must be <= 0.1"),
    (lambda: pld._PrivacyLossDistribution([1.0], 0, 1e-3, infinity_mass=-0.1), ValueError,
     r"^infinity_mass must be in \[0, 1\], got -0.1$"),
    (lambda: pld._PrivacyLossDistribution([1.0], 0, 1e-3, infinity_mass=1.5), ValueError,
     r"^infinity_mass must be in \[0, 1\], got 1.5$"),
    (lambda: pld._PrivacyLossDistribution([1.0], 0, 1e-3, infinity_mass="0"), TypeError,
     r"^infinity_mass must be a real number"),
    (lambda: pld._PrivacyLossDistribution([1.0], 0, 1e-3).delta(math.nan), ValueError,
     r"^epsilon must be finite$"),
    (lambda: pld._PrivacyLossDistribution([1.0], 0, 1e-3).epsilon(0.0), ValueError,
     r"^delta must be in \(0, 1\)"),
    (lambda: pld._PrivacyLossDistribution([1.0], 0, 1e-3).self_compose(0), ValueError,
     r"^count must be >= 1, got 0$"),
    (lambda: pld._gaussian_pld(1.0).compose(pld._gaussian_pld(1.0, interval=1e-3)), ValueError,
     r"^other has interval 0.001, not 0.0001$"),
    (lambda: pld._gaussian_pld(1.0).compose(0.5), TypeError,
     r"^other must be a PrivacyLossDistribution, got float$"),
    (lambda: pld._PrivacyLossDistribution.from_privacy_profile(lambda e: e, lower=1.0, upper=0.0),
     ValueError, r"^lower must be < upper, got 1.0 and 0.0$"),
    (lambda: pld._PrivacyLossDistribution.from_privacy_profile(lambda e: e, lower=0.0, upper=0.0),
     ValueError, r"^lower must be < upper"),
    (lambda: pld._PrivacyLossDistribution.from_privacy_profile(lambda e: e, lower="0", upper=1.0),
     TypeError, r"^lower must be a real number"),
    (lambda: pld._PrivacyLossDistribution.from_privacy_profile(lambda e: e, lower=0.0, upper="1"),
     TypeError, r"^upper must be a real number"),
    (lambda: pld._gaussian_pld(0.05, interval=1e-5), ValueError,
     r"^the grid from lower to upper is too long for interval; use a larger interval$"),
])
def test_every_message_starts_with_the_parameter(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


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
    ({"sampling_rate": 1.5}, "sampling_rate"),   # must not read as "no noise is enough"
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
    with pytest.raises(ValueError, match=rf"^{name} "):
        pld.dpsgd_noise_multiplier(**args)


def test_calibration_takes_rtol_up_to_and_including_0_1():
    z = pld.dpsgd_noise_multiplier(0.2, 8.0, 150, 1e-5, accountant="rdp", rtol=0.1)
    assert pld.dpsgd_epsilon(0.2, z, 150, 1e-5, accountant="rdp") <= 8.0
    assert pld.dpsgd_epsilon(0.2, z / 1.1, 150, 1e-5, accountant="rdp") > 8.0


def test_calibration_refuses_targets_out_of_reach():
    # the message says which way the target is out of reach, and what to do about it
    with pytest.raises(ValueError, match="^epsilon is not met .* up to 1000.0: ask for a larger epsilon$"):
        pld.dpsgd_noise_multiplier(1.0, 1e-4, 1, 1e-5, accountant="rdp")
    with pytest.raises(ValueError, match="^epsilon is met .* down to 0.05: ask for a smaller epsilon$"):
        pld.dpsgd_noise_multiplier(0.1, 1e6, 1, 1e-5, accountant="rdp")
    with pytest.raises(TypeError, match="steps"):
        pld.dpsgd_noise_multiplier(0.1, 1.0, 10.0, 1e-5)


@pytest.mark.parametrize("sigma, sensitivity", [(3.0, 3.0), (5.0, 0.5)])
def test_gaussian_grid_spans_twelve_standard_deviations_of_the_loss(sigma, sensitivity):
    # with mu = sensitivity / sigma (mu-Gaussian DP, as in privacy-accounting) the loss is
    # N(mu^2 / 2, mu^2) (Balle and Wang 2018); the grid runs from the mean - 12 sd - h to the
    # mean + 12 sd + h, rounded outwards to multiples of h
    h = 1e-3
    mu = sensitivity / sigma
    mean = sensitivity**2 / (2 * sigma**2)
    sd = math.sqrt(2 * mean)
    assert mean == pytest.approx(mu**2 / 2) and sd == pytest.approx(mu)
    p = pld._gaussian_pld(sigma, sensitivity, interval=h)
    assert p.offset == math.floor((mean - 12 * sd - h) / h)
    assert p.offset + p.masses.size - 1 == math.ceil((mean + 12 * sd + h) / h)
    # and the mean loss it carries is mu^2 / 2 (the mass beyond 12 sd is below 1e-30)
    assert float(p.masses @ p.losses) == pytest.approx(mean, abs=2 * h)


def test_compose_refuses_a_grid_that_differs_by_more_than_rounding():
    p = pld._laplace_pld(1.0, interval=1e-3)
    q = pld._laplace_pld(1.0, interval=1e-3 * (1 + 1e-10))
    with pytest.raises(ValueError, match=r"^other has interval"):
        p.compose(q)
    same = pld._laplace_pld(1.0, interval=1e-3 * (1 + 1e-14))
    assert p.compose(same).interval == 1e-3


@pytest.mark.parametrize("size", [2, 3, 5, 9])
def test_compose_is_the_full_convolution_when_its_length_is_one_past_a_power_of_two(size):
    # composed lengths 3, 5, 9, 17: one more than a power of two, where a too-small FFT wraps
    a = pld._PrivacyLossDistribution(np.full(size, 1 / size), -1, 0.1)
    b = pld._PrivacyLossDistribution(np.linspace(1, 2, size) / np.linspace(1, 2, size).sum(), 2, 0.1)
    assert a.compose(b).masses == pytest.approx(np.convolve(a.masses, b.masses), abs=1e-15)


def test_calibration_meets_the_target_on_the_grid_it_is_given():
    # a coarser grid is more pessimistic: the noise calibrated on the default grid (1e-4) misses
    # the target on a grid of 0.02, so the search must use the grid it is given (and, for its
    # coarse pass, min(10 x 0.02, 0.1) = 0.1, the coarsest grid there is)
    q, steps = 0.2, 150
    z = pld.dpsgd_noise_multiplier(q, 8.0, steps, 1e-5, interval=0.02)
    assert pld.dpsgd_epsilon(q, z, steps, 1e-5, interval=0.02) <= 8.0
    z_default = pld.dpsgd_noise_multiplier(q, 8.0, steps, 1e-5)
    assert pld.dpsgd_epsilon(q, z_default, steps, 1e-5, interval=0.02) > 8.0


def test_calibration_counts_a_loss_too_wide_for_the_fft_as_missing_the_target():
    # without subsampling, one step with z < 0.123 has a loss too wide for the default grid's
    # FFT, while the coarse pass (grid 1e-3) accounts for it and lands there; the answer must
    # then be raised, by factors 1 + rtol, to the first z the fine grid can account for
    with pytest.raises(ValueError, match="too long for interval"):
        pld.dpsgd_epsilon(1.0, 0.12, 1, 1e-5)
    z = pld.dpsgd_noise_multiplier(1.0, 80.0, 1, 1e-5, rtol=0.05)
    assert pld.dpsgd_epsilon(1.0, z, 1, 1e-5) <= 80.0
    with pytest.raises(ValueError, match="too long for interval"):
        pld.dpsgd_epsilon(1.0, z / 1.05, 1, 1e-5)
    assert 0.12 < z < 0.12 * 1.05**2


def test_laplace_pld_is_exact_at_a_grid_point_below_minus_eps0():
    # every loss is >= -eps0, so below it the profile is delta(eps) = 1 - e^eps (S = every
    # output). With eps0 = 1/3 and h = 1e-3 the grid starts one point below -eps0, where the
    # discretised PLD must still reproduce the profile exactly, as at every grid point
    eps0, h = 1 / 3, 1e-3
    dist = pld._laplace_pld(1 / eps0, interval=h)
    first = float(dist.losses[0])
    assert first < -eps0 < dist.losses[1]
    assert dist.delta(first) == pytest.approx(-math.expm1(first), rel=1e-9)


def test_delta_takes_any_real_epsilon():
    from fractions import Fraction
    dist = pld._laplace_pld(1.0, interval=1e-3)
    assert dist.delta(Fraction(1, 2)) == dist.delta(0.5)
    assert dist.delta(0) == dist.delta(0.0)
    for direction in ("remove", "add"):
        assert (pld._subsampled_gaussian_delta(0.1, 1.0, Fraction(1, 2), direction)
                == pld._subsampled_gaussian_delta(0.1, 1.0, 0.5, direction))


def test_self_compose_warns_about_nothing():
    # the PLD of a Laplace release has zero masses (rounding clipped at 0); the Chernoff bound
    # of the FFT window must skip them rather than take log(0)
    import warnings
    dist = pld._laplace_pld(1.0, interval=1e-3)
    assert (dist.masses == 0).any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dist.self_compose(10)


def test_a_composition_too_wide_for_one_fft_is_refused():
    with pytest.raises(ValueError, match=r"^the composed loss is too wide for one FFT at this "
                                         r"interval; use a larger interval$"):
        pld._laplace_pld(1.0, interval=1e-4).self_compose(10**6)


@pytest.mark.parametrize(("q", "z", "direction"), [
    (0.01, 1.0, "remove"), (0.01, 1.0, "add"), (0.3, 0.5, "remove"), (0.3, 0.5, "add"),
    (1.0, 0.2, "remove"), (1.0, 0.2, "add"), (0.01, 10.0, "remove"), (0.01, 10.0, "add")])
def test_subsampled_gaussian_grid_spans_the_loss_up_to_tails_of_1e_18(q, z, direction):
    # the documented grid: x beyond which N(0, z^2) and N(1, z^2) put less than 1e-18 (from
    # scipy's normal quantile), the "remove" loss ln((1 - q) + q e^{(2x - 1)/(2 z^2)}) at those
    # x (at least ln(1 - q) for q < 1), the "add" loss its negative; one step of margin each side
    h = 1e-3
    tail = stats.norm.isf(1e-18)
    x_lo, x_hi = -tail * z, tail * z + 1.0
    a = lambda x: (2 * x - 1) / (2 * z * z)
    remove = (lambda x: math.log(1 - q + q * math.exp(a(x)))) if q < 1 else a
    if direction == "remove":
        lo, hi = (math.log1p(-q) if q < 1 else remove(x_lo)), remove(x_hi)
    else:
        lo, hi = -remove(x_hi), (-math.log1p(-q) if q < 1 else -remove(x_lo))
    dist = pld._subsampled_gaussian_pld(q, z, direction=direction, interval=h)
    assert dist.losses[0] == pytest.approx(lo - h, abs=1.01 * h)
    assert dist.losses[-1] == pytest.approx(hi + h, abs=1.01 * h)


def test_subsampled_gaussian_profile_at_the_ends_of_the_loss():
    # with q = 1/2 the ends of the loss are exact in floating point: the "remove" loss is at
    # least ln(1 - q) = -ln 2, where delta = 1 - e^eps = q; the "add" loss is at most ln 2,
    # where delta = 0
    assert pld._subsampled_gaussian_delta(0.5, 1.0, math.log(0.5), "remove") == 0.5
    assert pld._subsampled_gaussian_delta(0.5, 1.0, math.log(2.0), "add") == 0.0


def test_a_pld_takes_any_real_masses_and_infinity_mass_up_to_1():
    from fractions import Fraction
    halves = pld._PrivacyLossDistribution([Fraction(1, 2), Fraction(1, 2)], 0, 0.1)
    assert halves.delta(0.0) == pld._PrivacyLossDistribution([0.5, 0.5], 0, 0.1).delta(0.0)
    # everything at +infinity: no epsilon is enough
    assert pld._PrivacyLossDistribution([0.0], 0, 0.1, infinity_mass=1.0).epsilon(0.5) == math.inf


def test_the_longest_grid_one_fft_can_compose():
    # the grid may hold _MAX_FFT // 2 points (the FFT of two of them fits), not one more;
    # h = 1/16 is exact in binary, so the grid from h to m h has exactly m points
    h, m = 1 / 16, pld._MAX_FFT // 2
    zero = lambda eps: np.zeros_like(eps)
    dist = pld._PrivacyLossDistribution.from_privacy_profile(zero, lower=h, upper=m * h, interval=h)
    assert dist.offset == 1 and dist.masses.size == m
    with pytest.raises(ValueError, match="too long for interval"):
        pld._PrivacyLossDistribution.from_privacy_profile(zero, lower=h, upper=(m + 1) * h,
                                                           interval=h)


def test_connect_the_dots_clips_the_profile_to_0_1_and_takes_integer_profiles():
    # a profile with values outside [0, 1] gives the PLD of the profile clipped to [0, 1], and
    # an integer-valued profile the PLD of the same values as floats
    e0, h = 1.0, 0.01
    profile = _randomized_response_profile(e0)
    wild = lambda eps: np.where(eps < -1.1, 2.0, np.where(eps > e0, -0.5, profile(eps)))
    build = lambda f, **kw: pld._PrivacyLossDistribution.from_privacy_profile(
        f, lower=-1.2, upper=1.2, interval=h, **kw)
    tame, clipped = build(lambda eps: np.clip(wild(eps), 0.0, 1.0)), build(wild)
    assert clipped.masses == pytest.approx(tame.masses, abs=1e-12)
    assert clipped.infinity_mass == tame.infinity_mass == 0.0
    step = lambda eps: (eps < 0.5).astype(int)          # δ = 1 below 0.5, 0 from 0.5 on
    ints = build(step)
    floats = build(lambda eps: (eps < 0.5).astype(float))
    assert ints.masses == pytest.approx(floats.masses, abs=1e-12)


def test_connect_the_dots_keeps_the_masses_at_both_ends_of_the_grid():
    # the grid runs from one step below -e0 to exactly e0: randomized response's two masses
    # sit on the second point and on the last one
    e0, h = 1.0, 0.01
    profile = _randomized_response_profile(e0)
    one = pld._PrivacyLossDistribution.from_privacy_profile(profile, lower=-e0 - h, upper=e0,
                                                             interval=h)
    heavy = np.flatnonzero(one.masses > 1e-9)
    assert list(one.losses[heavy]) == pytest.approx([-1.0, 1.0], abs=1e-12)
    assert one.masses[heavy] == pytest.approx([1 / (1 + math.e), math.e / (1 + math.e)], rel=1e-9)


def test_epsilon_is_zero_when_all_the_mass_above_zero_is_below_delta():
    # 7e-6 of the mass at loss 0.1, the rest at -0.1: delta(0) <= 7e-6 < 1e-5 already
    dist = pld._PrivacyLossDistribution([1 - 7e-6, 0.0, 7e-6], -1, 0.1)
    assert dist.epsilon(1e-5) == 0.0


# --------------------------------------------------------------------------------------------
# Replace-one neighbours: the "replace" pair of one DP-SGD step, and dpsgd_delta
# --------------------------------------------------------------------------------------------
def _reference_replace_one(q: float, z: float, steps: int) -> dpa.pld.PLDAccountant:
    accountant = dpa.pld.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE,
                                       value_discretization_interval=1e-4)
    accountant.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z)), steps)
    return accountant


@pytest.mark.parametrize("epsilon", [-3.0, -0.5, 0.0, 0.3, 1.5, 4.0])
@pytest.mark.parametrize(("q", "z"), [(0.2, 0.9), (0.01, 2.0), (1.0, 1.3)])
def test_replace_profile_matches_numerical_integration(q, z, epsilon):
    # P = (1-q) N(0, z^2) + q N(1, z^2) against Q = (1-q) N(0, z^2) + q N(-1, z^2): p / r
    # increases, so p > e^eps r above one point, found by bisection on the log ratio; then
    # delta is the integral of p - e^eps r above it
    def log_mixture(y, shift):  # ln((1 - q) N(y; 0, z^2) + q N(y; shift, z^2))
        sampled = math.log(q) + stats.norm.logpdf(y, shift, z)
        return sampled if q == 1 else np.logaddexp(math.log1p(-q) + stats.norm.logpdf(y, 0, z),
                                                   sampled)

    log_p0, log_r0 = lambda y: log_mixture(y, 1.0), lambda y: log_mixture(y, -1.0)
    cross = optimize.brentq(lambda y: log_p0(y) - log_r0(y) - epsilon, -500, 500, xtol=1e-13)
    top = max(cross, 1.0) + 12 * z
    inside = [x for x in (-1.0, 0.0, 1.0) if cross < x < top]
    exact = integrate.quad(lambda y: math.exp(log_p0(y)) - math.exp(epsilon + log_r0(y)),
                           cross, top, points=inside or None, epsabs=1e-14, epsrel=1e-10,
                           limit=200)[0]
    assert pld._subsampled_gaussian_delta(q, z, epsilon, "replace") == pytest.approx(
        exact, rel=1e-7, abs=1e-12)


def test_replace_profile_at_zero_is_the_total_variation_and_trivial_far_out():
    q, z = 0.2, 1.7
    tv = q * (2 * stats.norm.cdf(1 / z) - 1)          # the two sampled components differ
    assert pld._subsampled_gaussian_delta(q, z, 0.0, "replace") == pytest.approx(tv, rel=1e-12)
    # e^eps under- or overflows: delta is 1 - e^eps, that is 1, and 0
    assert pld._subsampled_gaussian_delta(q, z, [-800.0, 800.0], "replace").tolist() == [1.0, 0.0]


def test_replace_at_full_sampling_is_the_gaussian_with_twice_the_sensitivity():
    z = 1.3
    ours = pld._subsampled_gaussian_pld(1.0, z, direction="replace").epsilon(1e-5)
    exact = gaussian_epsilon(z, 1e-5, 2.0)
    assert exact <= ours <= exact * (1 + 1e-5)


@pytest.mark.parametrize(("q", "z", "steps"), [
    (0.2, 9.278, 150),      # the ML chapter's membership experiment, at eps = 1 and eps = 8
    (0.2, 1.681, 150),
    (256 / 26048, 1.0, 102),
    (0.01, 0.8, 2_000),
])
def test_replace_one_agrees_with_dp_accounting(q, z, steps):
    reference = _reference_replace_one(q, z, steps)
    for eps in (0.0, 1.0):
        ours = pld.dpsgd_delta(q, z, steps, eps, "replace-one")
        theirs = reference.get_delta(eps)
        assert theirs * (1 - 1e-6) - 1e-12 <= ours <= theirs * 1.01 + 1e-12, (eps, ours, theirs)
    _agrees(pld.dpsgd_epsilon(q, z, steps, 1e-5, neighbours="replace-one"),
            reference.get_epsilon(1e-5))


def test_the_membership_bounds_the_reviewer_found():
    # issue 37: any attack's TPR - FPR on the ML chapter's small models, q = 0.2, T = 150
    assert round(pld.dpsgd_delta(0.2, 9.278, 150, 0.0, "replace-one"), 3) == 0.208
    assert round(pld.dpsgd_delta(0.2, 1.681, 150, 0.0, "replace-one"), 3) == 0.845


@pytest.mark.parametrize("epsilon", [0.0, 0.5, 2.0])
def test_dpsgd_delta_under_add_remove_agrees_with_dp_accounting(epsilon):
    q, z, steps = 0.05, 1.0, 200
    reference = dpa.pld.PLDAccountant(value_discretization_interval=1e-4)
    reference.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z)), steps)
    ours, theirs = pld.dpsgd_delta(q, z, steps, epsilon), reference.get_delta(epsilon)
    assert theirs * (1 - 1e-6) <= ours <= theirs * 1.01
    # and it is the larger of the two directions' profiles, which dpsgd_epsilon inverts
    eps = pld.dpsgd_epsilon(q, z, steps, ours)
    assert eps == pytest.approx(epsilon, abs=2e-3)


def test_replace_one_costs_more_than_add_remove_but_at_most_the_group_conversion():
    q, z, steps = 0.2, 9.278, 150
    eps = pld.dpsgd_epsilon(q, z, steps, 1e-5)
    replace = pld.dpsgd_epsilon(q, z, steps, 1e-5, neighbours="replace-one")
    assert eps < replace
    # group privacy: (eps, delta) under add/remove gives (2 eps, (1 + e^eps) delta) for replace
    assert pld.dpsgd_delta(q, z, steps, 2 * eps, "replace-one") <= (1 + math.exp(eps)) * 1e-5


@pytest.mark.parametrize(("call", "exc", "message"), [
    (lambda: pld.dpsgd_delta(0.1, 1.0, 10, 0.0, "replace"), ValueError,
     r"^neighbours must be 'add/remove' or 'replace-one', got 'replace'$"),
    (lambda: pld.dpsgd_epsilon(0.1, 1.0, 10, 1e-5, neighbours="swap"), ValueError,
     r"^neighbours must be 'add/remove' or 'replace-one', got 'swap'$"),
    (lambda: pld.dpsgd_epsilon(0.1, 1.0, 10, 1e-5, "rdp", neighbours="replace-one"), ValueError,
     r"^neighbours must be 'add/remove' with accountant='rdp'$"),
    (lambda: pld.dpsgd_delta(0.1, 1.0, 10, -0.1), ValueError, r"^epsilon must be >= 0, got -0.1$"),
    (lambda: pld.dpsgd_delta(0.1, 1.0, 10, math.nan), ValueError, r"^epsilon must be"),
    (lambda: pld.dpsgd_delta(0.0, 1.0, 10, 0.0), ValueError, r"^sampling_rate must be in"),
    (lambda: pld.dpsgd_delta(0.1, 0.0, 10, 0.0), ValueError, r"^noise_multiplier must be > 0"),
    (lambda: pld.dpsgd_delta(0.1, 1.0, 0, 0.0), ValueError, r"^steps must be >= 1, got 0$"),
    (lambda: pld.dpsgd_delta(0.1, 1.0, 10, 0.0, interval=0.2), ValueError,
     r"^interval must be <= 0.1"),
    (lambda: pld.dpsgd_delta("0.1", 1.0, 10, 0.0), TypeError,
     r"^sampling_rate must be a real number, got str$"),
    (lambda: pld.dpsgd_delta(0.1, 1.0, 10.0, 0.0), TypeError, r"^steps must be an integer"),
    (lambda: pld.dpsgd_delta(0.1, None, 10, 0.0), TypeError, r"^noise_multiplier must be a real"),
    (lambda: pld.dpsgd_delta(0.1, 1.0, 10, "0"), TypeError, r"^epsilon must be a real number"),
    (lambda: pld.dpsgd_delta(1.5, 1.0, 10, 0.0), ValueError, r"^sampling_rate must be in"),
])
def test_replace_one_messages_start_with_the_parameter(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_dpsgd_delta_is_public_and_re_exported_by_helpers():
    # two chapters (private-machine-learning, dp-sgd-accounting) call it through helpers
    import helpers

    assert "dpsgd_delta" in pld.__all__ and helpers.dpsgd_delta is pld.dpsgd_delta
    assert not hasattr(pld, "_dpsgd_delta")
    # delta(0) is the total variation: in [0, 1], and it grows with the number of steps
    short, long = (pld.dpsgd_delta(0.2, 2.0, steps, 0.0) for steps in (10, 100))
    assert 0 < short < long <= 1
