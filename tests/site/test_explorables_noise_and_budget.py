"""Three explorables (issue 42): composition (privacy-accounting), gaussian-laplace
(approximate-dp) and clipping (unknown-ranges); the contract is the docstring of
``_ext/course_site/explorables.py``.

* **Their numbers are the course's.** Under Node, each ``<name>-math.mjs`` and the Gaussian's
  profile they share (``gaussian-dp.mjs``) against scipy, dpcourse and the chapters' own code:
  the Gaussian's δ(ε), ε(δ) and σ against ``gaussian_delta``, ``gaussian_epsilon`` and
  ``gaussian_sigma`` (1e-9); the noise per count of a budget split across k counts and the ε
  each accounting charges, against dpcourse and the advanced composition of
  six-calibrations-on-adult (1e-9), the exact curve also against Google's PLD accountant (to its
  discretisation); the noise per query of Laplace and the analytic Gaussian over d counts
  (1e-9) and where they cross; the clipping bias (exact, 1e-12) and the noise's first-order
  standard deviation against the chapter's seeded simulation (four standard errors plus 1 %).
* **Light.** Each explorable's modules are at most 30 KiB gzipped.
* **In the browser** (``browser``): each mounts after its tagged cell; every control is a labelled
  range input that the keyboard moves, and moving it changes the figure; at three settings the
  numbers shown are Python's; no request leaves the site and nothing is logged as an error; axe
  finds nothing serious in both themes; on a 390 px phone nothing is wider than the screen; with
  JavaScript off the static figure stays.
"""

from __future__ import annotations

import gzip
import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import dp_accounting as dpa
import numpy as np
import pytest
from scipy import stats
from scipy.optimize import brentq
from scipy.special import log_ndtr

import helpers
from conftest import glued, pages_fixtures

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "_static" / "explorables"
#: Each explorable: the chapter whose cell is tagged ``explorable-<name>``, and its modules.
PAGES = {"composition": "privacy-accounting", "gaussian-laplace": "approximate-dp",
         "clipping": "unknown-ranges"}
MODULES = {"composition": ["composition.mjs", "composition-math.mjs", "gaussian-dp.mjs"],
           "gaussian-laplace": ["gaussian-laplace.mjs", "gaussian-laplace-math.mjs",
                                "gaussian-dp.mjs"],
           "clipping": ["clipping.mjs", "clipping-math.mjs"]}
ch, g = pages_fixtures({"six-calibrations-on-adult": ["advanced_epsilon", "SPLITS"],
                        "unknown-ranges": ["noisy_clipped_mean", "ages", "hours", "AGE_BOUNDS",
                                           "HOURS_BOUNDS"]})

_RUNNER = """
import { readFileSync } from "node:fs";
const [url, calls] = JSON.parse(readFileSync(0, "utf8"));
const m = await import(url);
const get = ([f, args]) => typeof m[f] === "function" ? m[f](...args) : m[f];
process.stdout.write(JSON.stringify(calls.map(get)));
"""


def js(module: str, calls: list[tuple[str, list]]) -> list:
    """Each call's result under Node.js, in one process: the export ``f`` of
    ``_static/explorables/<module>`` called with ``args``, or ``f`` itself if it is a constant."""
    exe = shutil.which("node")
    if exe is None:
        pytest.skip("no Node.js (the site build needs it: .ci/install installs it)")
    done = subprocess.run([exe, "--input-type=module", "-e", _RUNNER],
                          input=json.dumps([(SOURCES / module).as_uri(), calls]),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# --- the Gaussian's privacy profile -----------------------------------------------------------

#: (sigma, epsilon, l2 sensitivity): small and large noise, the textbook pair, far tails
PROFILE = [(1.0, 0.0, 1.0), (1.0, 1.0, 1.0), (3.730631634815944, 1.0, 1.0), (20.0, 7.5, 31.6),
           (0.5, 3.0, 2.0), (118.0, 1.0, math.sqrt(1000)), (2.0, 12.0, 1.0), (0.3, 40.0, 1.0)]
#: (sigma or epsilon, delta, l2 sensitivity)
CALIBRATION = [(1.0, 1e-5, 1.0), (0.001, 1e-8, 1.0), (0.5, 1e-6, math.sqrt(8)),
               (10.0, 1e-5, 1.0), (1.0, 1e-5, math.sqrt(1000)), (0.1, 1e-10, 1.0),
               (3.0, 0.2, 1.0)]


def test_the_gaussian_profile_is_dpcourses():
    """gaussian-dp.mjs, which composition and gaussian-laplace share."""
    module = "gaussian-dp.mjs"
    z = np.concatenate([np.linspace(-60, 12, 721), [-1e-3, 0.0, 1e-3, 37.0]])
    calls = [("logNdtr", [v]) for v in z.tolist()]
    calls += [("gaussianDelta", list(p)) for p in PROFILE]
    calls += [("gaussianEpsilon", list(c)) for c in CALIBRATION]
    calls += [("gaussianSigma", list(c)) for c in CALIBRATION]
    got = js(module, calls)
    log_phi, rest = np.array(got[:z.size]), got[z.size:]
    want = log_ndtr(z)
    np.testing.assert_allclose(log_phi[want < 0], want[want < 0], rtol=1e-12)
    assert np.all(log_phi[want == 0] == 0)
    deltas, rest = rest[:len(PROFILE)], rest[len(PROFILE):]
    for (sigma, eps, l2), value in zip(PROFILE, deltas):
        assert value == pytest.approx(helpers.gaussian_delta(sigma, eps, l2), rel=1e-9, abs=0)
    epsilons, sigmas = rest[:len(CALIBRATION)], rest[len(CALIBRATION):]
    for (sigma, delta, l2), value in zip(CALIBRATION, epsilons):
        assert value == pytest.approx(helpers.gaussian_epsilon(sigma, delta, l2), rel=1e-9,
                                      abs=1e-12)
        assert value == 0 or helpers.gaussian_delta(sigma, value, l2) <= delta * (1 + 1e-12)
    for (eps, delta, l2), value in zip(CALIBRATION, sigmas):
        assert value == pytest.approx(helpers.gaussian_sigma(eps, delta, l2), rel=1e-9)
        assert helpers.gaussian_delta(value, eps, l2) <= delta * (1 + 1e-12)


# --- composition (privacy-accounting) -------------------------------------------------------------

#: (total epsilon, total delta, k)
BUDGETS = [(1.0, 1e-5, 1000), (1.0, 1e-5, 1), (0.5, 1e-6, 10), (3.0, 1e-8, 100),
           (0.1, 1e-5, 10_000), (8.0, 1e-3, 50)]


def reference_noise(epsilon: float, delta: float, k: int, ch) -> dict[str, float]:
    """The noise per count by each accounting, as privacy-accounting and
    six-calibrations-on-adult compute it (the root of advanced composition found tightly)."""
    advanced = math.inf
    for share in ch["SPLITS"]:
        delta_prime = share * delta
        eps0 = brentq(lambda e: ch["advanced_epsilon"](e, k, delta_prime) - epsilon,
                      1e-15, epsilon, xtol=1e-300, rtol=4 * np.finfo(float).eps)
        advanced = min(advanced, helpers.gaussian_sigma(eps0, (delta - delta_prime) / k))
    return {"basic": helpers.gaussian_sigma(epsilon / k, delta / k), "advanced": advanced,
            "exact": helpers.gaussian_sigma(epsilon, delta, math.sqrt(k))}


def reference_charge(sigma: float, delta: float, k: int, ch) -> dict[str, float]:
    """The ε each accounting charges at δ for k counts with noise σ."""
    advanced = min(
        float(ch["advanced_epsilon"](helpers.gaussian_epsilon(sigma, (1 - s) * delta / k),
                                     k, s * delta)) for s in ch["SPLITS"])
    return {"basic": k * helpers.gaussian_epsilon(sigma, delta / k), "advanced": advanced,
            "exact": helpers.gaussian_epsilon(sigma, delta, math.sqrt(k))}


def test_the_splits_of_delta_are_the_chapters(ch):
    [splits] = js("composition-math.mjs", [("SPLITS", [])])
    np.testing.assert_allclose(splits, ch["SPLITS"], rtol=1e-15)


def test_noise_per_count_is_the_courses(ch):
    got = js("composition-math.mjs", [("noisePerQuery", list(b)) for b in BUDGETS])
    for (epsilon, delta, k), row in zip(BUDGETS, got):
        want = reference_noise(epsilon, delta, k, ch)
        for name in ("basic", "advanced", "exact"):
            assert row[name] == pytest.approx(want[name], rel=1e-9), (epsilon, delta, k, name)
        assert row["exact"] <= min(row["basic"], row["advanced"])


def test_charged_epsilon_is_the_courses(ch):
    calls, cases = [], []
    for epsilon, delta, k in BUDGETS:
        sigma = helpers.gaussian_sigma(epsilon, delta, math.sqrt(k))
        for d in (delta, 1e-10, 1e-3):
            calls.append(("chargedEpsilon", [sigma, d, k]))
            cases.append((sigma, d, k, epsilon if d == delta else None))
    for (sigma, d, k, budget), row in zip(cases, js("composition-math.mjs", calls)):
        want = reference_charge(sigma, d, k, ch)
        for name in ("basic", "advanced", "exact"):
            assert row[name] == pytest.approx(want[name], rel=1e-9), (sigma, d, k, name)
        # exact accounting is the least that any sound accounting charges
        assert row["exact"] <= min(row["basic"], row["advanced"]) * (1 + 1e-12)
        if budget is not None:  # the exact calibration spends the budget, to the digit
            assert row["exact"] == pytest.approx(budget, rel=1e-9)


@pytest.mark.parametrize("k, sigma", [(1000, 118.0), (10, 3.0)])
def test_the_exact_curve_is_the_pld_accountants(k, sigma):
    """Google's PLD accountant composes k Gaussians numerically: a little pessimistic (its
    discretisation), never below the closed form."""
    accountant = dpa.pld.PLDAccountant(value_discretization_interval=1e-4)
    accountant.compose(dpa.GaussianDpEvent(sigma), count=k)
    deltas = (1e-8, 1e-5, 1e-3)
    got = js("composition-math.mjs", [("chargedEpsilon", [sigma, d, k]) for d in deltas])
    for delta, row in zip(deltas, got):
        pld = accountant.get_epsilon(delta)
        assert row["exact"] <= pld <= row["exact"] * 1.01 + 1e-3, (delta, row["exact"], pld)


def test_the_cores_noise_levels_are_reproduced():
    """privacy-accounting's 1,000 counts at ε = 1, δ = 1e-5 (its glued σ's) and the
    advanced calibration of six-calibrations-on-adult."""
    [got] = js("composition-math.mjs", [("noisePerQuery", [1.0, 1e-5, 1000])])
    core, deeper = glued("privacy-accounting"), glued("six-calibrations-on-adult")
    assert f"{got['basic']:,.0f}" == core["acct_core_sd_basic"]
    assert f"{got['exact']:,.0f}" == core["acct_core_sd_exact"]
    assert f"{got['advanced']:,.0f}" == deeper["acct_adult_sd_adv"]


def test_the_curves_fall_as_delta_grows():
    deltas = [10.0 ** -e for e in (10, 8, 6, 4, 2)]
    [curves] = js("composition-math.mjs", [("epsilonCurves", [50.0, 100, deltas])])
    assert [row["delta"] for row in curves] == deltas
    for name in ("basic", "advanced", "exact"):
        values = [row[name] for row in curves]
        assert values == sorted(values, reverse=True), name


# --- Gaussian against Laplace (approximate-dp) -----------------------------------------------

#: (epsilon, delta, d)
GL_SETTINGS = [(1.0, 1e-6, 1), (1.0, 1e-6, 172), (0.1, 1e-5, 30), (5.0, 1e-9, 400),
               (0.5, 1e-8, 7)]


def test_noise_per_query_is_the_courses():
    got = js("gaussian-laplace-math.mjs", [("noiseAt", list(s)) for s in GL_SETTINGS])
    for (epsilon, delta, d), row in zip(GL_SETTINGS, got):
        assert row["laplace"] == pytest.approx(stats.laplace(scale=d / epsilon).std(),
                                               rel=1e-12)
        assert row["gaussian"] == pytest.approx(
            helpers.gaussian_sigma(epsilon, delta, math.sqrt(d)), rel=1e-9)


def python_crossover(epsilon: float, delta: float, d_max: int = 100) -> int:
    """As laplace-or-gaussian-workload finds it: the first d at which the Gaussian's σ
    (calibrated at Δ₂ = √d) is below Laplace's sd, and it stays below after."""
    d_all = np.arange(1, d_max + 1)
    gauss = np.array([helpers.gaussian_sigma(epsilon, delta, math.sqrt(d)) for d in d_all])
    wins = gauss < math.sqrt(2) * d_all / epsilon
    first = int(d_all[np.argmax(wins)])
    assert wins[first - 1:].all() and first > 1
    return first


def test_the_crossover_is_the_courses():
    settings = [(1.0, 1e-6), (0.5, 1e-5), (2.0, 1e-9), (1.0, 1e-3)]
    got = js("gaussian-laplace-math.mjs", [("crossover", list(s)) for s in settings])
    assert got == [python_crossover(*s) for s in settings]
    assert got[0] == glued("laplace-or-gaussian-workload")["approx_cross_d"]
    [core] = js("gaussian-laplace-math.mjs", [("crossover", [1.0, 1e-5])])
    assert core == glued("approximate-dp")["approx_gl_cross"]  # the core's static figure


# --- clipping (unknown-ranges) --------------------------------------------------------------

def test_the_groups_are_the_chapters(ch):
    [groups] = js("clipping-math.mjs", [("GROUPS", [])])
    assert groups["age"]["values"] == sorted(ch["ages"].tolist())
    assert groups["hours"]["values"] == sorted(ch["hours"].tolist())
    assert groups["age"]["bound"] == ch["AGE_BOUNDS"][1]
    assert groups["hours"]["bound"] == ch["HOURS_BOUNDS"][1]


#: (the chapter's values, clipping bound, epsilon)
CLIP_SETTINGS = [("ages", 30.0, 1.0), ("ages", 65.0, 1.0), ("ages", 125.0, 0.5),
                 ("hours", 40.0, 1.0), ("hours", 60.0, 2.0), ("hours", 168.0, 1.0)]
RUNS = 20_000


def first_order(values: np.ndarray, upper: float, epsilon: float) -> dict[str, float]:
    """The released mean's bias and first-order noise sd at clipping bound U: the mean of
    (S + Z1) / (n + Z2), Z1 ~ Lap(U / (ε/2)), Z2 ~ Lap(1 / (ε/2)), is S/n + Z1/n - S Z2/n² to
    first order, with variance (Var Z1 + (S/n)² Var Z2) / n²."""
    n, clipped = values.size, np.minimum(values, upper)
    var_sum = stats.laplace(scale=upper / (epsilon / 2)).var()
    var_count = stats.laplace(scale=1 / (epsilon / 2)).var()
    sd = math.sqrt(var_sum + clipped.mean() ** 2 * var_count) / n
    bias = clipped.mean() - values.mean()
    return {"bias": bias, "sd": sd, "rmse": math.hypot(bias, sd)}


def test_bias_is_exact_and_noise_is_the_chapters_simulation(ch):
    got = js("clipping-math.mjs", [("errorAt", [ch[grp].tolist(), u, e])
                                   for grp, u, e in CLIP_SETTINGS])
    rng = helpers.make_rng(42)
    for (group, upper, epsilon), row in zip(CLIP_SETTINGS, got):
        values = ch[group]
        bias = np.minimum(values, upper).mean() - values.mean()
        assert row["bias"] == pytest.approx(bias, rel=1e-12, abs=1e-12)
        assert row["sd"] == pytest.approx(first_order(values, upper, epsilon)["sd"], rel=1e-12)
        errors = ch["noisy_clipped_mean"](values, upper, epsilon, rng, RUNS) - values.mean()
        sd = errors.std()
        # the sample sd's standard error is about sd / sqrt(2 RUNS)
        assert row["sd"] == pytest.approx(sd, rel=4 / np.sqrt(2 * RUNS) + 0.01), (group, upper)
        # the simulated mean error is the clipping bias up to four standard errors (the ratio's
        # own second-order bias, mean * Var(count noise) / n^2, is far below that)
        assert abs(errors.mean() - row["bias"]) < 4 * sd / np.sqrt(RUNS), (group, upper)
        assert row["rmse"] == pytest.approx(np.hypot(row["bias"], row["sd"]), rel=1e-12)


def test_the_chapters_glued_errors_are_reproduced(ch, g):
    """The chapter's sweep (4,000 releases per bound, ε = 1) glued the RMSE at the best bound
    for age and at the public bounds; 4,000 releases leave a relative standard error of about
    1.1 %."""
    got = js("clipping-math.mjs", [
        ("errorAt", [ch["ages"].tolist(), float(g["range_best_u_age"]), 1.0]),
        ("errorAt", [ch["ages"].tolist(), 125.0, 1.0]),
        ("errorAt", [ch["hours"].tolist(), 167.5, 1.0])])
    for row, key in zip(got, ["range_rmse_best_age", "range_rmse_public_age",
                              "range_rmse_public_hours"]):
        assert row["rmse"] == pytest.approx(float(g[key]), rel=0.05), key


def test_clipping_trades_bias_for_noise(ch):
    group = {"values": ch["ages"].tolist(), "bound": 125}
    at_65, at_bound = js("clipping-math.mjs", [("tradeOff", [group, 65, 1.0]),
                                               ("tradeOff", [group, 125, 1.0])])
    assert at_bound["noiseSaved"] == 0 and at_bound["bias"] == 0
    assert at_65["noiseSaved"] > 0 and at_65["bias"] < 0
    assert at_65["publicRmse"] == at_bound["rmse"]
    [curves] = js("clipping-math.mjs",
                  [("errorCurves", [ch["ages"].tolist(), 1.0, 10, 125, 2.5])])
    np.testing.assert_allclose([r["upper"] for r in curves], np.arange(10, 125.01, 2.5))
    sds = [r["sd"] for r in curves]
    assert sds == sorted(sds)  # more room, more noise


# --- weight ---------------------------------------------------------------------------------

def test_each_explorable_is_at_most_30_kib_gzipped():
    """An explorable's page adds its modules (the runtime and d3 are shared by the site)."""
    for name, modules in MODULES.items():
        size = sum(len(gzip.compress((SOURCES / m).read_bytes(), 9)) for m in modules)
        assert size <= 30 * 1024, (name, size)


def test_the_modules_import_only_their_own_folder():
    """Each explorable's page loads what MODULES lists and the shared runtime: nothing else,
    and nothing from another host."""
    for name, modules in MODULES.items():
        imported = set()
        for module in modules:
            source = (SOURCES / module).read_text(encoding="utf-8")
            imported |= set(re.findall(r'from\s+"([^"]+)"', source))
        assert imported <= {f"./{m}" for m in modules} | {"./explorables.mjs"}, (name, imported)


def test_each_is_declared_by_its_chapter_once():
    for name, chapter in PAGES.items():
        cells = json.loads((ROOT / "chapters" / f"{chapter}.ipynb").read_text(encoding="utf-8"))
        tagged = [c for c in cells["cells"]
                  if f"explorable-{name}" in c["metadata"].get("tags", [])]
        assert len(tagged) == 1 and tagged[0]["cell_type"] == "code", name
        # its static figure: the PDF, the notebook and a reader without JavaScript keep it
        assert any("image/png" in out.get("data", {}) for out in tagged[0]["outputs"]), name


# --- in the browser ---------------------------------------------------------------------------

from test_browser import PageVisit, browser, chromium_path, site_url  # noqa: E402,F401
from test_explorables import _drawn, _mounted, _set_by_keyboard, _shown  # noqa: E402


def _composition_reference(ch, k, epsilon, delta):
    noise = reference_noise(epsilon, delta, k, ch)
    charge = reference_charge(noise["exact"], delta, k, ch)
    return {**{f"sigma{n.title()}": (noise[n], 4) for n in noise},
            **{f"eps{n.title()}": (charge[n], 4) for n in charge}}


def _gaussian_laplace_reference(ch, epsilon, delta, d):
    laplace = stats.laplace(scale=d / epsilon).std()
    gaussian = helpers.gaussian_sigma(epsilon, delta, math.sqrt(d))
    return {"laplace": (laplace, 4), "gaussian": (gaussian, 4),
            "ratio": (gaussian / laplace, 3), "crossover": (python_crossover(epsilon, delta), 4)}


def _clipping_reference(ch, epsilon, u_age, u_hours):
    shown = {}
    for name, values, upper, public in [("age", ch["ages"], u_age, 125),
                                        ("hours", ch["hours"], u_hours, 168)]:
        here, wide = first_order(values, upper, epsilon), first_order(values, public, epsilon)
        shown |= {f"bias-{name}": (here["bias"], 3), f"sd-{name}": (here["sd"], 3),
                  f"saved-{name}": (wide["sd"] - here["sd"], 3),
                  f"rmse-{name}": (here["rmse"], 3), f"public-{name}": (wide["rmse"], 3)}
    return shown


#: name: (the controls' keys, three settings of them, the read-outs' Python reference)
BROWSER_CASES = {
    "composition": (("k", "epsilon", "delta"), [(1000, 1, 1e-5), (10, 0.5, 1e-6),
                                                (5000, 3, 1e-8)], _composition_reference),
    "gaussian-laplace": (("epsilon", "delta", "d"), [(1, 1e-5, 172), (0.5, 1e-8, 7),
                                                     (3, 1e-3, 1000)],
                         _gaussian_laplace_reference),
    "clipping": (("epsilon", "U-age", "U-hours"), [(1, 65, 60), (0.5, 30, 40), (3, 125, 168)],
                 _clipping_reference),
}


@pytest.mark.browser
@pytest.mark.parametrize("name", list(BROWSER_CASES))
def test_explorable_moves_and_shows_the_python_numbers(browser, site_url, ch, name):
    """Every control is a labelled range input the keyboard moves; each move redraws the
    figure; at three settings the numbers shown are Python's (unrounded to 1e-9, and as text
    to the digits shown); no request leaves the site and nothing is logged as an error."""
    keys, settings, reference = BROWSER_CASES[name]
    v = PageVisit(browser, f"{site_url}/chapters/{PAGES[name]}.html")
    try:
        figure = _mounted(v.page, name)
        assert v.page.locator(f".cell.tag_explorable-{name} .cell_output img").count() >= 1
        for key in keys:
            slider = figure.locator(f'input[type=range][data-key="{key}"]')
            assert slider.count() == 1
            label = figure.locator(f'label[for="{slider.get_attribute("id")}"]')
            assert label.count() == 1 and label.inner_text().strip()
            assert slider.get_attribute("aria-valuetext")
        for key in keys:  # each control changes the figure
            before = _drawn(figure)
            slider = figure.locator(f'input[type=range][data-key="{key}"]')
            slider.focus()
            slider.press("End" if slider.input_value() == "0" else "Home")
            assert _drawn(figure) != before, key
        for setting in settings:
            for key, value in zip(keys, setting):
                _set_by_keyboard(figure, key, value)
            shown = _shown(figure)
            expected = reference(ch, *setting)
            assert shown.keys() == expected.keys()
            for key, (value, digits) in expected.items():
                got, text = shown[key]
                assert math.isclose(got, value, rel_tol=1e-9, abs_tol=1e-12), (setting, key)
                number = float(text.replace(",", ""))
                assert number == float(f"{value:.{digits}g}"), (setting, key, text)
        assert v.external == [], v.external
        assert v.errors == [] and v.failed == [], (v.errors, v.failed)
    finally:
        v.close()


# Accessibility, a phone and the page without JavaScript: test_explorables.py checks all six.
