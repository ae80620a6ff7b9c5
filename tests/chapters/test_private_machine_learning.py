"""Tests for the machine-learning chapter and its going-deeper sections.

DP-SGD's ε is checked against Google's ``dp_accounting``: the PLD figures and the PLD-calibrated
noise against its PLD accountant, the Rényi figures against its RDP accountant (default orders,
fractional ones too: a little tighter than the course's integer orders); the logistic gradient
against finite differences of an independently written loss; DP-SGD's clipping and scaling
against a hand computation; the membership bound against dp-accounting's replace-one PLD and the
group conversion against its formula.
"""

from __future__ import annotations

import math
import re

import dp_accounting as dpa
import numpy as np
import pytest

import helpers
from conftest import chapter_fixtures, glued
from notebook_code import notebook_namespace

NAMES = ["features", "sigmoid", "gradient", "dp_sgd", "X", "y", "train", "test"]


ch, g = chapter_fixtures("private-machine-learning", NAMES)


# the going-deeper sections: the model checked, the accountants, accuracy on all of Adult
@pytest.fixture(scope="module")
def lr():
    return notebook_namespace("logistic-regression-from-scratch", ["gradient", "mean_loss"])


@pytest.fixture(scope="module")
def g_lr():
    return glued("logistic-regression-from-scratch")


@pytest.fixture(scope="module")
def g_acct():
    return glued("dp-sgd-accounting")


@pytest.fixture(scope="module")
def g_acc():
    return glued("dp-sgd-accuracy-on-adult")

Q, DELTA = 256 / 26_048, 1e-5


def dpa_pld_epsilon(noise_multiplier, q, steps, delta=DELTA):
    pld = dpa.pld.PLDAccountant(value_discretization_interval=1e-4)
    pld.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(noise_multiplier)), steps)
    return pld.get_epsilon(delta)


def dpa_rdp_epsilon(noise_multiplier, q, steps, delta=DELTA):
    rdp = dpa.rdp.RdpAccountant()  # its default orders, fractional ones included
    rdp.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(noise_multiplier)), steps)
    return rdp.get_epsilon(delta)


def test_glued_epsilon_of_noise_multiplier_one(g_acct):
    steps = g_acct["ml_steps"]
    assert steps == round(1 / Q)
    pld, rdp = dpa_pld_epsilon(1.0, Q, steps), dpa_rdp_epsilon(1.0, Q, steps)
    assert float(g_acct["ml_eps_z1"]) == pytest.approx(pld, abs=0.006)     # glued to 2 decimals
    # the chapter's RDP figure uses integer orders 2..256: never tighter than dp-accounting's
    # (fractional orders too), and at most 6 % looser; both far above PLD
    assert rdp - 0.006 <= float(g_acct["ml_eps_z1_rdp"]) <= rdp * 1.06
    assert float(g_acct["ml_eps_z1"]) < 0.7 * float(g_acct["ml_eps_z1_rdp"])


def test_pld_calibrated_noise_meets_epsilon_one_and_is_nearly_the_smallest(g_acct, g_acc):
    steps, z = g_acct["ml_steps"], float(g_acct["ml_z_eps1"])
    assert g_acc["ml_z_eps1"] == g_acct["ml_z_eps1"] and g_acc["ml_steps"] == steps
    # glued to 2 decimals: z +- 0.005 brackets the calibrated value
    assert dpa_pld_epsilon(z + 0.005, Q, steps) <= 1.0 < dpa_pld_epsilon(z - 0.01, Q, steps)


def test_what_the_rdp_calibrated_noise_really_costs(g_acct):
    steps, z_rdp = g_acct["ml_steps"], float(g_acct["ml_z_eps1_rdp"])
    assert dpa_rdp_epsilon(z_rdp + 0.005, Q, steps) <= 1.0 + 0.06      # RDP meets its target
    real = dpa_pld_epsilon(z_rdp, Q, steps)
    assert float(g_acct["ml_pld_eps1"]) == pytest.approx(real, abs=0.01)
    assert real < 0.75                          # the Renyi calibration wastes a quarter or more
    extra = float(g_acct["ml_rdp_extra_noise"].rstrip("%")) / 100
    assert extra == pytest.approx(z_rdp / float(g_acct["ml_z_eps1"]) - 1, abs=0.02)
    assert extra > 0.1


def test_rdp_certifies_less_for_the_pld_noise(g_acc):
    assert float(g_acc["ml_rdp_of_pld_eps1"]) > 1.4
    assert float(g_acc["ml_rdp_of_pld_eps8"]) > 10


def test_gradient_formula_against_finite_differences_of_an_independent_loss(ch, lr):
    rng = np.random.default_rng(5)
    X_rows, y_rows = ch["X"][:50], ch["y"][:50]
    w = rng.normal(0, 0.3, X_rows.shape[1])

    def loss(v):  # the logistic loss written independently: log(1 + e^s) - y s
        s = X_rows @ v
        return np.mean(np.logaddexp(0, s) - y_rows * s)

    h = 1e-6
    numeric = np.array([(loss(w + h * e) - loss(w - h * e)) / (2 * h) for e in np.eye(len(w))])
    assert np.allclose(ch["gradient"](w, X_rows, y_rows), numeric, atol=1e-7)
    assert np.allclose(lr["gradient"](w, X_rows, y_rows), numeric, atol=1e-7)
    assert lr["mean_loss"](w, X_rows, y_rows) == pytest.approx(loss(w), rel=1e-9)


def test_gradient_descent_fit_matches_scipy(g_lr):
    mantissa, power = g_lr["ml_gradient_error"].split(" × 10")               # "9.9 × 10⁻¹¹"
    exponent = int(power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
    assert float(mantissa) * 10.0**exponent < 1e-7                           # finite-difference noise
    assert float(g_lr["ml_gd_loss"]) - float(g_lr["ml_scipy_loss"]) < 0.02
    assert float(g_lr["ml_gd_loss"]) >= float(g_lr["ml_scipy_loss"])
    assert abs(float(g_lr["ml_gd_acc"].rstrip("%")) - float(g_lr["ml_scipy_acc"].rstrip("%"))) < 1.0
    assert float(g_lr["ml_same_prediction"].rstrip("%")) > 95
    assert float(g_lr["ml_loss_before"]) == pytest.approx(math.log(2), abs=5e-4)
    assert float(g_lr["ml_loss_after"]) < float(g_lr["ml_loss_before"])


def test_features_do_not_depend_on_the_data(ch, adult):
    few = ch["features"](adult.iloc[:7])
    assert few.shape[1] == ch["X"].shape[1] == 105
    assert np.allclose(few, ch["X"][:7])
    # values outside the data (an unseen category) still get their public column, all zero here
    assert (ch["X"][:, 1:] >= -1e-12).all() and (ch["X"][:, 1:6] <= 1 + 1e-12).all()


def test_dp_sgd_clips_each_example_and_divides_by_the_expected_batch(ch):
    X_toy = np.array([[1.0, 0.0], [0.0, 100.0]])
    y_toy = np.array([1.0, 1.0])
    # q = 1 (batch_size = n), one epoch = one step, no noise: w = -lr * sum(clipped grads) / n
    w, steps, q = ch["dp_sgd"](X_toy, y_toy, 1, 2, 1.0, 0.0, 1.0, helpers.make_rng(0))
    assert steps == 1 and q == 1.0
    grads = (0.5 - 1.0) * X_toy                      # sigmoid(0) - y at w = 0
    clipped = grads / np.maximum(1, np.linalg.norm(grads, axis=1) / 1.0)[:, None]
    assert w == pytest.approx(-clipped.sum(axis=0) / 2)
    assert np.linalg.norm(clipped[1]) == pytest.approx(1.0)  # the huge example counts at most C


def dpa_replace_one_tv(noise_multiplier, q, steps):
    # delta(0) of dp-accounting's REPLACE_ONE PLD: the total variation of the composed pair
    pld = dpa.pld.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE,
                                value_discretization_interval=1e-4)
    pld.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(noise_multiplier)), steps)
    return pld.get_delta(0.0)


def test_membership_bound_is_the_replace_one_pld_of_the_same_runs(g, g_acct):
    # issue 37, finding 1: any attack's TPR - FPR is at most delta(0) of the runs' replace-one
    # PLD, far below the (2 eps, (1 + e^eps) delta) group conversion's bound
    q, steps = float(g["ml_small_q"]), int(g["ml_small_steps"])
    assert (q, steps) == (0.2, 150)
    for name, eps in (("eps1", 1.0), ("eps8", 8.0)):
        z = float(g[f"ml_small_z_{name}"])          # calibrated under add/remove, 3 decimals
        assert dpa_pld_epsilon(z + 0.0005, q, steps) <= eps < dpa_pld_epsilon(0.995 * z, q, steps)
        assert float(g[f"ml_bound_{name}"]) == pytest.approx(
            dpa_replace_one_tv(z, q, steps), abs=0.006)
        delta_2 = (1 + math.exp(eps)) * DELTA
        conversion = (math.exp(2 * eps) - 1 + 2 * delta_2) / (math.exp(2 * eps) + 1)
        assert float(g_acct[f"ml_conv_bound_{name}"]) == pytest.approx(conversion, abs=0.005)
        assert 2 * helpers.hypothesis_test_bound(2 * eps, delta_2) - 1 == pytest.approx(conversion)
        assert float(g[f"ml_adv_{name}"]) <= float(g[f"ml_bound_{name}"])
    # the prose: "the conversion gave only ...": over three times the exact bound at eps = 1;
    # at eps = 8 the exact bound is weak but not void, while the conversion's rounds to 1
    assert float(g_acct["ml_conv_bound_eps1"]) > 3 * float(g["ml_bound_eps1"])
    assert 0.5 < float(g["ml_bound_eps8"]) < 0.95 and g_acct["ml_conv_bound_eps8"] == "1.00"
    # "it reaches a fraction of the bound"
    assert float(g["ml_adv_eps1"]) < 0.5 * float(g["ml_bound_eps1"])
    assert float(g["ml_adv_eps1"]) < float(g["ml_attack_adv"])
    assert float(g["ml_overfit_train_acc"].rstrip("%")) > float(g["ml_overfit_test_acc"].rstrip("%")) + 10


def test_accuracy_glue_is_plausible(g_acc):
    baseline = float(g_acc["ml_baseline"].rstrip("%"))
    majority = float(g_acc["ml_majority"].rstrip("%"))
    assert majority + 5 < float(g_acc["ml_acc_eps1"].rstrip("%")) <= baseline + 0.5


def test_clip_the_batch_uses_a_record_inside_the_domain(ch, g):
    # issue 37, finding 11: the crafted record must be one the feature map can produce. Every
    # feature lies in [0, 1] with one category per column, so no row has a norm above sqrt(14)
    X, y, train = ch["X"], ch["y"], ch["train"]
    assert X.min() >= -1e-12 and X.max() <= 1 + 1e-12
    assert np.linalg.norm(X, axis=1).max() <= math.sqrt(14) + 1e-12
    rows = train[:256]
    grads = (0.5 - y[rows])[:, None] * X[rows]
    assert np.linalg.norm(grads.mean(axis=0)) < 1      # clipping the average to C = 1: no-op
    # so the shift of replacing row i by x* is |g* - g_i| / B; x* = row i's categories, every
    # numeric column at 1, the opposite label: g* = -(1/2 - y_i) x*
    x_star = X[rows].copy()
    x_star[:, 1:6] = 1.0
    shifts = np.linalg.norm(-(0.5 - y[rows])[:, None] * x_star - grads, axis=1) / 256
    assert float(g["ml_ex_shift"]) == pytest.approx(shifts.max(), abs=5e-5)
    assert float(g["ml_ex_ratio"]) == pytest.approx(256 * shifts.max(), abs=0.05)
    assert 2 < float(g["ml_ex_ratio"]) <= math.sqrt(14)        # above 2C/B, capped by the domain
    assert g["ml_ex_max_norm"] == f"{math.sqrt(14):.2f}"
    from conftest import ROOT
    errata = (ROOT / "errata.md").read_text(encoding="utf-8")
    entry = errata[errata.index("- **Clipping the batch**"):]
    assert f"{g['ml_ex_ratio']} times" in entry[: entry.index("\n- **")]


def _pct(g, key):
    return float(g[key].rstrip("%"))


def test_accuracy_claims_hold_over_the_seeds(g_acc):
    # issue 37, finding 2: the prose compares DP-SGD with the baseline over seeds, with spread
    base, lo, hi = (_pct(g_acc, k) for k in ("ml_baseline", "ml_baseline_min", "ml_baseline_max"))
    dp, dp_lo, dp_hi = (_pct(g_acc, k) for k in ("ml_acc_eps1", "ml_acc_eps1_min", "ml_acc_eps1_max"))
    assert lo <= base <= hi and dp_lo <= dp <= dp_hi and g_acc["ml_n_seeds"] == 3
    # "the gap to the baseline is smaller than the spread between seeds ... a fraction of a
    # percentage point"; "one seed of DP-SGD can beat another seed of the baseline"
    assert 0 <= base - dp < min(hi - lo, 1.0)
    assert dp_hi > lo
    # the clipping norm: too small costs accuracy, "far below every run with a larger C"
    spread = {c: (_pct(g_acc, f"ml_clip_{c}_min"), _pct(g_acc, f"ml_clip_{c}_max"))
              for c in ("small", "mid", "one", "large")}
    assert spread["small"][1] < spread["mid"][0]
    assert spread["mid"][1] < min(spread["one"][0], spread["large"][0])
    # "between C = 1 and C = 5 the seeds' spread is larger than the difference"
    difference = abs(_pct(g_acc, "ml_clip_large") - _pct(g_acc, "ml_clip_one"))
    assert difference < max(b - a for a, b in (spread["one"], spread["large"]))
    # the C = 1 row repeats the eps = 1 run on other seeds and differs from it "by as much"
    assert abs(_pct(g_acc, "ml_clip_one") - dp) >= difference
    # "on one seed, C = 5" beat the baseline's average: the reviewer's 83.9 % is a maximum
    assert spread["large"][1] > base


def test_private_small_models_weaken_but_do_not_defeat_the_attack(g):
    # issue 37, finding 2: "Private models defeat the membership attack" overstated
    majority = float(g["ml_small_majority"])
    acc1, acc8 = float(g["ml_small_acc_eps1"]), float(g["ml_small_acc_eps8"])
    assert acc1 < majority                                  # "worse than that"
    assert majority <= acc8 < majority + 0.02               # "hardly better"
    adv8, adv = float(g["ml_adv_eps8"]), float(g["ml_attack_adv"])
    kept = _pct(g, "ml_adv_kept_eps8") / 100
    assert kept == pytest.approx(adv8 / adv, abs=0.06)     # both glued to 2 decimals
    assert 0.3 < kept < 0.9
    # "uncertain by a few hundredths, but well above zero": TPR - FPR on 1,000 members and
    # 1,000 non-members has a standard error of at most sqrt(2 * 0.25 / 1000) = 0.022
    assert g["ml_n_shadow"] * g["ml_n_members"] == 1000
    assert adv8 > 3 * math.sqrt(2 * 0.25 / 1000)
    from conftest import ROOT
    errata = (ROOT / "errata.md").read_text(encoding="utf-8")
    entry = errata[errata.index("- **What DP-SGD did to the membership attack**"):]
    entry = entry[: entry.index("\n- **")]
    for key in ("ml_adv_kept_eps8", "ml_small_majority", "ml_small_acc_eps1", "ml_small_acc_eps8"):
        assert g[key] in entry, key


def test_exercise_answers(g_acct):
    z = math.sqrt(2 * math.log(1.25 / 1e-7)) / 0.05
    assert g_acct["ml_ex_z"] == f"{z:.1f}"
    pld = dpa.pld.PLDAccountant(value_discretization_interval=1e-4)
    pld.compose(dpa.GaussianDpEvent(z), 100)
    assert float(g_acct["ml_ex_exact"]) == pytest.approx(pld.get_epsilon(1e-5), abs=0.01)
    assert float(g_acct["ml_ex_exact"]) <= float(g_acct["ml_ex_rdp"]) < 5
    assert float(g_acct["ml_ex_eps_2q"]) > float(g_acct["ml_ex_eps_2q_half"]) > 1.0   # the noise meets epsilon = 1 at q, T


def test_errata_quotes_the_glued_figures(g_acct):
    from conftest import ROOT
    errata = (ROOT / "errata.md").read_text(encoding="utf-8")
    entry = errata[errata.index("DP-SGD's ε was the Rényi bound"):]
    entry = entry[: entry.index("\n- **") if "\n- **" in entry else None]
    for key in ("ml_eps_z1_rdp", "ml_eps_z1", "ml_pld_eps1", "ml_pld_eps8"):
        assert f"ε = {g_acct[key]}" in entry, key


def test_errata_quotes_the_membership_bounds(g, g_acct):
    from conftest import ROOT
    errata = (ROOT / "errata.md").read_text(encoding="utf-8")
    entry = errata[errata.index("- **The membership bound**"):]
    entry = entry[: entry.index("\n\n")]                       # the bullet, one paragraph
    for key in ("ml_conv_bound_eps1", "ml_conv_bound_eps8"):
        assert g_acct[key] in entry, key
    for key in ("ml_bound_eps1", "ml_bound_eps8"):
        assert g[key] in entry, key


def _shown_code(notebook: str) -> list[str]:
    import json

    from conftest import ROOT
    cells = json.loads((ROOT / "chapters" / f"{notebook}.ipynb").read_text(encoding="utf-8"))
    hidden = {"remove-input", "remove-cell", "hide-input"}
    return ["".join(c["source"]) for c in cells["cells"] if c["cell_type"] == "code"
            and not hidden & set(c["metadata"].get("tags", []))]


def test_the_core_runs_dp_sgd_and_calls_the_public_dpsgd_delta():
    # issue 38, a learner's read: dpsgd_delta came from a hidden import of a private name, and
    # the shown dp_sgd was never run on the page
    shown = _shown_code("private-machine-learning")
    assert any("def dp_sgd(" in s for s in shown)
    assert any(re.search(r"=\s*dp_sgd\(", s) for s in shown)     # run once, where it is shown
    for notebook in ("private-machine-learning", "dp-sgd-accounting"):
        from conftest import ROOT
        text = (ROOT / "chapters" / f"{notebook}.ipynb").read_text(encoding="utf-8")
        assert "_dpsgd_delta" not in text and "helpers.dpsgd_delta(" in text, notebook


def test_the_majority_rate_is_the_non_members_share_below_50k(ch, g):
    # the printed and glued "always predicting <=50K is right ... of the time", recomputed from
    # the data: the first 20 * 100 rows of the test split, income not above 50K
    y, test = ch["y"], ch["test"]
    assert g["ml_small_majority"] == f"{1 - y[test[:2_000]].mean():.3f}"
    assert 0.70 < float(g["ml_small_majority"]) < 0.80  # Adult: about 76 % earn <= 50K
