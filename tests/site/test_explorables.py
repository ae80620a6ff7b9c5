"""The explorables (issue 42; ``_ext/course_site/explorables.py``'s docstring is their contract).

* **Their numbers are the course's.** Each explorable's compute functions run under Node and are
  compared with ``dpcourse``, the chapter's own code or scipy at several settings, to 1e-9
  where the value is exact; the attack's exact success rate is also compared with the course's
  seeded simulation (``helpers.differencing_attack_success``) within 4.5 standard errors.
* **Light.** Each explorable's script is at most 30 KiB gzipped, and the shared library (d3 and
  the runtime, one file each for the whole site) at most 26 KiB: esbuild's bundle holds only
  the d3 functions the modules call.
* **In the built site** (``site``): only pages with a tagged cell load the modules.
* **In the browser** (``browser``): d3.js is fetched when a figure nears the screen, not with
  the page; each explorable mounts after its tagged cell, every control is
  a labelled native range input that the keyboard moves, moving each control changes the figure,
  the numbers shown equal the Python reference at three settings, and the page makes no request
  to another host and logs no error; axe finds nothing serious in both themes; on a 390 px phone
  nothing is wider than the screen.
"""

from __future__ import annotations

import gzip
import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats

import helpers
from conftest import chapter_fixtures

from course_site import explorables  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "_static" / "explorables"
SITE = ROOT / "_build" / "html"
#: Each explorable: the chapter whose cell is tagged ``explorable-<name>``.
PAGES = {"laplace": "laplace-mechanism", "randomized-response": "local-dp",
         "differencing-attack": "composition"}
KIB = 1024

ch, _ = chapter_fixtures("local-dp", ["grr_probabilities", "krr_sd"])


_RUNNER = """
import { readFileSync } from "node:fs";
const [url, calls] = JSON.parse(readFileSync(0, "utf8"));
const m = await import(url);
process.stdout.write(JSON.stringify(calls.map(([f, args]) => m[f](...args))));
"""


def node_call(module: str, calls: list[tuple[str, list]]) -> list:
    """Call the exported functions of ``_static/explorables/<module>`` under Node.js, in one
    process: ``[(name, args), ...]`` in, their results out (JSON)."""
    exe = shutil.which("node")
    if exe is None:
        pytest.skip("no Node.js (the site build needs it: .ci/install installs it)")
    done = subprocess.run([exe, "--input-type=module", "-e", _RUNNER],
                          input=json.dumps([(SOURCES / module).as_uri(), calls]),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def node(name: str, calls: list[tuple[str, list]]) -> list:
    """``node_call`` on the numbers of the explorable ``name`` (``<name>-math.mjs``)."""
    return node_call(f"{name}-math.mjs", calls)


def close(a: float, b: float, tol: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


# --- the Laplace mechanism -------------------------------------------------------------------

LAPLACE = [(eps, sens) for eps in (0.05, 0.5, 1.0, 5.0) for sens in (0.5, 1.0, 3.0)]


def test_laplace_densities_and_privacy_loss_are_scipys():
    calls, expected = [], []
    for eps, sens in LAPLACE:
        b = sens / eps
        for y in (-7.3, -sens, -sens / 2, 0.0, 2.5):
            calls += [("density", [y, 0, b]), ("density", [y, -sens, b]),
                      ("privacyLoss", [y, sens, eps])]
            expected += [stats.laplace.pdf(y, 0, b), stats.laplace.pdf(y, -sens, b),
                         stats.laplace.logpdf(y, 0, b) - stats.laplace.logpdf(y, -sens, b)]
    got = node("laplace", calls)
    assert all(close(a, b) for a, b in zip(got, expected)), list(zip(got, expected))


def test_laplace_misjudged_share_is_the_tail_beyond_the_midpoint():
    """The nearer guess errs when the noise passes the midpoint: P(Lap(Δ/ε) > Δ/2), the same
    for every Δ; no test errs less than 1 - e^ε/(1 + e^ε) (dpcourse)."""
    calls = [("misjudged", [eps, sens]) for eps, sens in LAPLACE]
    calls += [("leastError", [eps]) for eps, _ in LAPLACE]
    got = node("laplace", calls)
    expected = [stats.laplace.sf(sens / 2, scale=sens / eps) for eps, sens in LAPLACE]
    expected += [1 - helpers.hypothesis_test_bound(eps) for eps, _ in LAPLACE]
    assert all(close(a, b) for a, b in zip(got, expected)), list(zip(got, expected))
    shares = got[:len(LAPLACE)]
    assert all(a >= b for a, b in zip(shares, got[len(LAPLACE):]))  # the bound holds


# --- randomized response ----------------------------------------------------------------------

RR = [(eps, k) for eps in (0.1, 1.0, 2.5, 5.0) for k in (2, 3, 14, 100)]


def test_randomized_response_probabilities_and_error_are_the_chapters(ch):
    calls = [("grrProbabilities", [eps, k]) for eps, k in RR]
    calls += [("krrSd", [n, k, eps]) for eps, k in RR for n in (100, 30_718, 10**6)]
    calls += [("centralSd", [eps]) for eps, _ in RR]
    got = node("randomized-response", calls)
    expected = [list(ch["grr_probabilities"](eps, k)) for eps, k in RR]
    expected += [ch["krr_sd"](n, k, eps) for eps, k in RR for n in (100, 30_718, 10**6)]
    expected += [stats.laplace(scale=2 / eps).std() for eps, _ in RR]
    flat = lambda xs: [v for x in xs for v in (x if isinstance(x, list) else [x])]  # noqa: E731
    assert all(close(a, b) for a, b in zip(flat(got), flat(expected)))
    # k = 2 is randomized response: its keep probability is dpcourse's
    for (eps, k), (p, _) in zip(RR, got):
        if k == 2:
            assert close(p, helpers.randomized_response_keep_probability(eps))


# --- the differencing attack ------------------------------------------------------------------

def _sum_sf(x: float, m: int) -> float:
    """P(S > x), S a sum of m Lap(1), as G1 - G2 with G1, G2 ~ Gamma(m): by quadrature."""
    if x < 0:
        return 1 - _sum_sf(-x, m)
    value, _ = integrate.quad(lambda g: stats.gamma.pdf(g, m) * stats.gamma.sf(g + x, m),
                              0, np.inf, epsabs=1e-13, epsrel=1e-12, limit=200)
    return value


def _sum_pdf(x: float, m: int) -> float:
    value, _ = integrate.quad(lambda g: stats.gamma.pdf(g, m) * stats.gamma.pdf(g + abs(x), m),
                              0, np.inf, epsabs=1e-13, epsrel=1e-12, limit=200)
    return value


def test_attack_noise_distribution_is_a_difference_of_gammas():
    cases = [(x, m) for m in (2, 6, 20) for x in (0.0, 0.3, 1.7, 5.0, -2.2)]
    got = node("differencing-attack", [("laplaceSumSf", [x, m]) for x, m in cases]
               + [("laplaceSumPdf", [x, m]) for x, m in cases])
    expected = [_sum_sf(x, m) for x, m in cases] + [_sum_pdf(x, m) for x, m in cases]
    assert all(close(a, b) for a, b in zip(got, expected)), list(zip(got, expected))
    # one answer per count: the difference of two Lap(1) has P(S > x) = e^-x (2 + x)/4
    assert close(got[1], math.exp(-0.3) * 2.3 / 4)


ATTACK = [(0.1, 0.5, 1), (1.0, 0.5, 1), (0.5, 0.2, 3), (0.1, 0.8, 10), (2.0, -0.3, 1)]


def test_attack_success_is_exact_and_matches_the_course_simulation():
    """Exact: half the trials right above the threshold on the real table, half below it on the
    neighbour. The course's seeded simulation (its threshold is 1/2) agrees within 4.5 standard
    errors; the DP bound is dpcourse's, for kε."""
    got = node("differencing-attack", [("attackSuccess", list(a)) for a in ATTACK]
               + [("bound", [eps, k]) for eps, _, k in ATTACK])
    for (eps, t, k), success in zip(ATTACK, got):
        unit = k * eps
        expected = 0.5 * _sum_sf((t - 1) * unit, 2 * k) + 0.5 * (1 - _sum_sf(t * unit, 2 * k))
        assert close(success, expected), (eps, t, k, success, expected)
    for (eps, _, k), dp in zip(ATTACK, got[len(ATTACK):]):
        assert close(dp, helpers.hypothesis_test_bound(k * eps))
    rng = helpers.make_rng(42)
    trials = 200_000
    for (eps, t, k), success in zip(ATTACK, got):
        if t == 0.5:
            simulated = helpers.differencing_attack_success(eps, rng, n_trials=trials,
                                                            n_repeats=k)
            se = math.sqrt(success * (1 - success) / trials)
            assert abs(simulated - success) < 4.5 * se, (eps, k, simulated, success)


# --- weight -----------------------------------------------------------------------------------

def gzipped(paths: list[Path]) -> int:
    return sum(len(gzip.compress(p.read_bytes(), 9)) for p in paths)


@pytest.fixture(scope="module")
def d3_bundle(tmp_path_factory) -> tuple[Path, Path]:
    """``d3.js`` as the build bundles it (esbuild), and esbuild's metafile."""
    if not (ROOT / "node_modules" / ".bin" / "esbuild").exists():
        pytest.skip("node_modules/ has no esbuild (make book installs it)")
    folder = tmp_path_factory.mktemp("d3")
    bundle, meta = folder / "d3.js", folder / "d3-esbuild-meta.json"
    explorables.d3_bundle(ROOT / "node_modules", bundle, meta)
    return bundle, meta


def test_each_explorable_is_at_most_30_kib_gzipped(d3_bundle):
    """An explorable's page adds its two modules; the shared library (d3 and the runtime) is
    one file each for the whole site, d3 cut to what the explorables use."""
    for name in PAGES:
        size = gzipped([SOURCES / f"{name}.mjs", SOURCES / f"{name}-math.mjs"])
        assert size <= 30 * KIB, (name, size)
    d3, _ = d3_bundle
    assert gzipped([d3, SOURCES / "explorables.mjs"]) <= 26 * KIB


def test_d3_bundle_defines_what_the_explorables_call_and_credits_what_it_took(d3_bundle):
    """Every ``d3.<name>`` in the explorables' modules is a function of the bundle (run under
    Node.js, as the page's classic script defines the global), and the licences name every
    package esbuild took."""
    used = {name for path in SOURCES.glob("*.mjs")
            for name in re.findall(r"\bd3\.([A-Za-z]\w*)\b", path.read_text(encoding="utf-8"))
            if name != "js"}
    assert used == {n for names in explorables.D3_EXPORTS.values() for n in names}, used
    d3, meta = d3_bundle
    script = (f"const vm = require('node:vm'); const box = {{}}; "
              f"vm.runInNewContext(require('node:fs').readFileSync({json.dumps(str(d3))}, "
              f"'utf8') + ';globalThis.d3 = d3;', box); "
              f"process.stdout.write(JSON.stringify(Object.keys(box.d3)"
              f".filter(k => typeof box.d3[k] === 'function')))")
    defined = json.loads(subprocess.run([shutil.which("node") or "node", "-e", script],
                                        capture_output=True, text=True, check=True).stdout)
    assert set(defined) == used, defined
    licences = explorables.d3_licences(ROOT / "node_modules", meta)
    for package in ("d3-scale", "d3-array", "d3-shape", "d3-path", "d3-selection", "d3-axis"):
        assert package in licences, package
    assert "ISC" in (ROOT / "node_modules" / "d3-scale" / "package.json").read_text()


def declared_explorables() -> dict[str, set[str]]:
    """Each explorable the chapters declare (a cell tagged ``explorable-<name>``): its pages."""
    declared: dict[str, set[str]] = {}
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for tag in cell["metadata"].get("tags", []):
                if tag.startswith(explorables.TAG):
                    declared.setdefault(tag[len(explorables.TAG):], set()).add(path.stem)
    return declared


#: Every explorable of the book and its page (this file's three and the three of
#: test_explorables_noise_and_budget.py): the browser checks below run on all of them.
ALL_PAGES = {name: min(pages) for name, pages in declared_explorables().items()}


def test_every_tagged_cell_names_an_explorable():
    """A tag ``explorable-<name>`` needs ``_static/explorables/<name>.mjs``; the explorables of
    this file are declared where they belong."""
    declared = declared_explorables()
    assert len(ALL_PAGES) >= 6 and all(len(pages) == 1 for pages in declared.values())
    assert not list(SOURCES.glob("*.js"))  # Jupyter Book would link it from every page
    missing = [name for name in declared if not (SOURCES / f"{name}.mjs").is_file()]
    assert missing == [], missing
    for name, chapter in PAGES.items():
        assert chapter in declared[name]


# --- the built site ---------------------------------------------------------------------------

@pytest.mark.site
def test_only_pages_with_an_explorable_load_their_modules():
    """Each explorable's module, and no d3.js: the runtime fetches it, from the one URL beside
    itself, when a figure nears the screen (test_explorable_moves_...)."""
    if not (SITE / "index.html").exists():
        pytest.fail("the site is not built: run `make book` first")
    for page in sorted(SITE.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        tags = re.findall(r"<script[^>]*_static/explorables/[^>]*>", html)
        names = set(re.findall(r"tag_explorable-([\w-]+)", html))
        if not names:
            assert tags == [], page
            continue
        srcs = [re.search(r"_static/explorables/([\w-]+\.m?js)", t)[1] for t in tags]
        assert sorted(srcs) == sorted(f"{n}.mjs" for n in names), (page, srcs)
        assert all('type="module"' in t for t in tags), (page, tags)
    assert (SITE / "_static" / "explorables" / "d3.js").is_file()


# --- in the browser ---------------------------------------------------------------------------

from test_browser import (PageVisit, browser, chromium_path, site_url,  # noqa: E402,F401
                          stored_theme)


def _attack_success(eps: float, t: float, k: int) -> float:
    unit = k * eps
    return 0.5 * _sum_sf((t - 1) * unit, 2 * k) + 0.5 * (1 - _sum_sf(t * unit, 2 * k))


def _laplace_reference(eps, sens):
    b = sens / eps
    return {"scale": (b, 3, ""), "sd": (math.sqrt(2) * b, 3, ""), "loss": (eps, 3, ""),
            "misjudged": (stats.laplace.sf(sens / 2, scale=b), 3, "%"),
            "least": (1 - helpers.hypothesis_test_bound(eps), 3, "%")}


def _rr_reference(eps, k, n, chapter):
    p, r = chapter["grr_probabilities"](eps, k)
    local = chapter["krr_sd"](n, k, eps)
    central = stats.laplace(scale=2 / eps).std()
    return {"p": (p, 4, ""), "r": (r, 4, ""), "local": (local, 3, ""),
            "central": (central, 3, ""), "ratio": (local / central, 3, "")}


def _attack_reference(eps, k, t):
    return {"success": (_attack_success(eps, t, k), 3, "%"),
            "bound": (helpers.hypothesis_test_bound(k * eps), 3, "%"),
            "total": (k * eps, 3, ""), "sd": (2 / eps / math.sqrt(k), 3, "")}


#: name: (the controls' keys, three settings of them, the read-outs' Python reference)
BROWSER_CASES = {
    "laplace": (("epsilon", "sensitivity"), [(0.5, 1), (2, 3), (0.1, 0.5)],
                lambda ch, eps, sens: _laplace_reference(eps, sens)),
    "randomized-response": (("epsilon", "k", "n"), [(1, 14, 30000), (0.5, 2, 1000),
                                                    (3, 50, 1000000)],
                            lambda ch, eps, k, n: _rr_reference(eps, k, n, ch)),
    "differencing-attack": (("epsilon", "repeats", "threshold"),
                            [(0.1, 1, 0.5), (0.5, 3, 0.2), (1, 10, 0.8)],
                            lambda ch, eps, k, t: _attack_reference(eps, k, t)),
}


def _mounted(page, name: str):
    """The explorable ``name`` of the open page, scrolled to and mounted."""
    figure = page.locator(f'figure.explorable[data-explorable="{name}"]')
    assert figure.count() == 1
    figure.scroll_into_view_if_needed()
    page.wait_for_function("n => document.querySelector(`figure[data-explorable='${n}']`)"
                           "?.dataset.ready === 'true'", arg=name)
    return figure


def _value(figure, key: str) -> float:
    return float(figure.locator(f'.explorable-controls output[data-key="{key}"]')
                 .get_attribute("data-value"))


def _drawn(figure) -> list[str]:
    return figure.locator("svg[data-chart]").evaluate_all("svgs => svgs.map(s => s.innerHTML)")


def _set_by_keyboard(figure, key: str, value: float) -> None:
    """Move a control with the keyboard only: Home, then the right arrow until it shows
    ``value``."""
    slider = figure.locator(f'input[type=range][data-key="{key}"]')
    slider.focus()
    slider.press("Home")
    for _ in range(int(slider.get_attribute("max")) + 1):
        if math.isclose(_value(figure, key), value, rel_tol=1e-12):
            return
        slider.press("ArrowRight")
    raise AssertionError(f"{key} never reached {value}")


def _shown(figure) -> dict[str, tuple[float, str]]:
    pairs = figure.locator(".explorable-readout output").evaluate_all(
        "os => os.map(o => [o.dataset.key, o.dataset.value, o.textContent])")
    return {key: (float(value), text) for key, value, text in pairs}


@pytest.mark.browser
@pytest.mark.parametrize("name", list(BROWSER_CASES))
def test_explorable_moves_and_shows_the_python_numbers(browser, site_url, ch, name):
    """Every control is a labelled range input the keyboard moves; each move redraws the
    figure; at three settings the numbers shown are Python's (unrounded to 1e-9, and as text
    to the digits shown); no request leaves the site and nothing is logged as an error."""
    keys, settings, reference = BROWSER_CASES[name]
    v = PageVisit(browser, f"{site_url}/chapters/{PAGES[name]}.html")
    d3_loads = """() => performance.getEntriesByType('resource')
        .filter(e => new URL(e.name).pathname === '/_static/explorables/d3.js').length"""
    try:
        # d3.js comes when the figure nears the screen (400 px ahead), not with the page
        top = v.page.evaluate("n => document.querySelector(`figure[data-explorable='${n}']`)"
                              ".getBoundingClientRect().top - innerHeight", name)
        assert top > 400 and v.page.evaluate(d3_loads) == 0, top
        figure = _mounted(v.page, name)
        assert v.page.evaluate(d3_loads) == 1
        if name == "differencing-attack":  # it opens where moving the threshold matters
            opening = _shown(figure)["success"][0]
            figure.locator('input[type=range][data-key="threshold"]').press("End")
            assert opening - _shown(figure)["success"][0] > 0.05, opening
        # the static figure or table stays, before the explorable
        assert v.page.locator(f".cell.tag_explorable-{name} .cell_output").count() == 1
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
            for key, (value, digits, unit) in expected.items():
                got, text = shown[key]
                assert math.isclose(got, value, rel_tol=1e-9, abs_tol=1e-12), (setting, key)
                scale = 100 if unit == "%" else 1
                assert text.endswith(unit), (key, text)
                number = float(text.rstrip("%").replace(",", ""))
                if unit == "%" and value < 1 and f"{100 * value:.{digits}g}" == "100":
                    # a share below 1 never reads 100% (at (1, 10, 0.8) the bound is 99.995%)
                    assert number < 100 and abs(number - 100 * value) < 10 ** -digits, text
                else:
                    assert number == float(f"{scale * value:.{digits}g}"), (setting, key, text)
        assert v.external == [], v.external
        assert v.errors == [] and v.failed == [], (v.errors, v.failed)
    finally:
        v.close()


@pytest.mark.browser
@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("name", sorted(ALL_PAGES))
def test_explorable_is_accessible_in_both_themes_and_fits_a_phone(browser, site_url, name,
                                                                   theme):
    """axe finds no serious or critical violation with the explorable drawn, and on a 390 px
    phone the page is no wider than the screen, and with the last chart at the foot of the
    screen the controls are on screen above it (they stay under the page's header while the
    charts scroll)."""
    from axe_playwright_python.sync_playwright import Axe

    for width, height in ((1280, 900), (390, 664)):  # a phone's screen under its browser's bars
        context = browser.new_context(viewport={"width": width, "height": height})
        try:
            page = context.new_page()
            page.add_init_script(stored_theme(theme))
            page.goto(f"{site_url}/chapters/{ALL_PAGES[name]}.html", wait_until="load")
            page.wait_for_load_state("networkidle")
            figure = _mounted(page, name)
            assert page.evaluate("() => document.documentElement.dataset.theme") == theme
            if width == 390:
                assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
                box = figure.bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
                last = figure.locator("svg[data-chart]").last
                last.evaluate("c => c.scrollIntoView({block: 'end'})")  # at the screen's foot
                page.wait_for_timeout(100)
                header = page.locator(".bd-header-article").bounding_box()
                controls = figure.locator(".explorable-controls").bounding_box()
                chart = last.bounding_box()
                # the controls on screen, under the header, and the chart whole below them
                assert header["y"] + header["height"] - 1 <= controls["y"], (header, controls)
                assert controls["y"] + controls["height"] <= chart["y"] + 1, (controls, chart)
                continue
            results = Axe().run(page, context={"include": [[f'figure[data-explorable="{name}"]']]})
            bad = [(viol["id"], viol["impact"], [n["target"] for n in viol["nodes"]][:3])
                   for viol in results.response["violations"]
                   if viol["impact"] in ("serious", "critical")]
            assert bad == [], bad
        finally:
            context.close()


@pytest.mark.browser
def test_without_javascript_the_static_figures_stay(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        for name, chapter in ALL_PAGES.items():
            page.goto(f"{site_url}/chapters/{chapter}.html", wait_until="load")
            assert page.locator("figure.explorable").count() == 0
            output = page.locator(f".cell.tag_explorable-{name} .cell_output")
            assert output.count() == 1
            # the static figure, or the printed table where the chapter has no figure (local-dp)
            assert output.locator("img, table, pre").count() >= 1, name
    finally:
        context.close()
