"""Formulas are rendered as MathML when the site is built (Temml, ``_ext/build_math.py``).

* every formula of the sources is on its page as one ``<math>`` element and nothing else (no
  HTML rendering), no page has a Temml error node or loads a script that typesets math (the
  built HTML; ``make book`` first);
* the math font is the site's own: a subset of Latin Modern Math with its ``MATH`` table and
  every character the formulas use, preloaded by the pages with formulas;
* a small book built here: amsmath environments, ``\\operatorname``, ``\\mathbb``, a labelled
  equation and its ``{eq}`` reference render, a formula Temml rejects fails the build, and the
  font subset is cut again only when the formulas' characters change.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
TEMML = ROOT / "node_modules" / "temml"
import build_math  # noqa: E402
from course_site.archive import toc_documents  # noqa: E402

_FENCE = re.compile(r"^(```+|~~~+)(.*?)\n(.*?)^\1\s*$", re.S | re.M)


def count_source_formulas(text: str) -> int:
    """Formulas in MyST text, counted from the source: ``$...$``, ``$$...$$``, the ``{math}``
    role and directive; code blocks and code spans hold none, other directives are MyST."""
    found = 0

    def fence(match: re.Match) -> str:
        nonlocal found
        info = match[2].strip()
        if info.startswith("{math}"):
            found += 1
            return ""
        if info.startswith("{") and not info.startswith("{code"):
            return match[3]  # a directive whose body is MyST (glossary, admonitions)
        return ""  # code

    text = _FENCE.sub(fence, text)
    roles = re.findall(r"\{math\}`[^`]*`", text)
    text = re.sub(r"\{math\}`[^`]*`", "", text)
    text = re.sub(r"(`+).*?\1", "", text, flags=re.S).replace(r"\$", "")  # code spans
    display = re.findall(r"\$\$.+?\$\$", text, flags=re.S)
    text = re.sub(r"\$\$.+?\$\$", "", text, flags=re.S)
    inline = re.findall(r"\$(?!\s)[^$\n]*?(?:\n[^$\n]+?)*\$", text)
    return found + len(roles) + len(display) + len(inline)


def _documents() -> list[str]:
    return toc_documents(ROOT)


def _source(doc: str) -> str:
    notebook = ROOT / f"{doc}.ipynb"
    if notebook.exists():
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return (ROOT / f"{doc}.md").read_text(encoding="utf-8")


def _page(doc: str) -> str:
    path = SITE / f"{doc}.html"
    if not path.exists():
        pytest.fail("the site is not built: run `make book` first")
    return path.read_text(encoding="utf-8")


def test_the_counter_counts_myst_math():
    text = ("Costs \\$6; `$x$` is code; $a$ and $b_1$,\n$$\nx = 1\n$$ (eq-one)\n"
            "{math}`y`\n```python\nz = '$q$'\n```\n```{math}\nw\n```\n"
            "```{glossary}\nTerm\n  $t$\n```\n")
    # $a$, $b_1$, the display, the role, the directive and the glossary's $t$; not the
    # escaped dollar, the code span or the code block
    assert count_source_formulas(text) == 6


@pytest.mark.parametrize("doc", _documents())
def test_every_formula_of_the_source_is_rendered_with_its_mathml(doc):
    page = _page(doc)
    expected = count_source_formulas(_source(doc))
    # a formula in a heading is drawn again in the page's navigation ("On this page"): count
    # the content only
    html = re.sub(r"<nav\b.*?</nav>", "", page, flags=re.S)
    # and in the previous and next pages' titles, under the page
    html = re.sub(r'<div class="prev-next-area">.*?</div>\s*</footer>', "", html, flags=re.S)
    boxes = re.findall(r'<(span|div) class="(?:amsmath )?math notranslate nohighlight"', html)
    assert len(boxes) == expected, f"{doc}: {expected} formulas in the source, {len(boxes)} on the page"
    # every one rendered by Temml as MathML alone; none left for a script, none an error
    assert html.count("<math") == expected
    assert html.count("</math>") == expected
    assert not re.search(r"katex|temml-error|<semantics|<annotation", html, flags=re.I)
    scripts = re.findall(r"<script[^>]*>.*?</script>", html, flags=re.S)
    assert not [s for s in scripts if re.search(r"mathjax|katex|temml|tex-mml", s, flags=re.I)]
    # a page with formulas preloads the math font, and a stylesheet it links declares it
    fonts = []
    for href in re.findall(r'<link rel="stylesheet"[^>]*\shref="([^"]+)"', page):
        css = (SITE / doc).parent / href.split("?")[0]
        if css.is_file():
            fonts += re.findall(r'url\("?([^")]*course-math\.[0-9a-f]{16}\.woff2)"?\)',
                                css.read_text(encoding="utf-8"))
    preload = re.findall(r'<link rel="preload" href="([^"]+)" as="font" type="font/woff2" '
                         r'crossorigin />', page)
    if expected:
        assert fonts, f"{doc}: no stylesheet the page links declares the math font"
        assert [p.rsplit("/", 1)[-1] for p in preload] == [fonts[0].rsplit("/", 1)[-1]]
        assert ((SITE / doc).parent / preload[0]).is_file()


def test_the_book_has_its_formulas():
    """The count above could pass with no math at all: the course has well over 2000."""
    assert sum(count_source_formulas(_source(doc)) for doc in _documents()) > 2000


def _font_and_characters() -> tuple[Path, set[str]]:
    fonts = sorted((SITE / "_static" / "math").glob("course-math.*.woff2"))
    assert len(fonts) == 1, fonts
    chars: set[str] = set()
    for page in SITE.rglob("*.html"):
        for mathml in re.findall(r"<math\b.*?</math>", page.read_text(encoding="utf-8"), re.S):
            chars |= build_math.characters(mathml)
    return fonts[0], chars


def test_the_math_font_is_a_subset_with_the_math_table_and_every_character():
    from fontTools.ttLib import TTFont

    path, chars = _font_and_characters()
    font = TTFont(path)
    assert "MATH" in font and "GSUB" in font  # stretchy delimiters, radicals, script sizes
    assert font["name"].getDebugName(1) == "Course Math"
    covered = set(map(chr, font.getBestCmap()))
    assert chars - covered == set()
    assert {"\U0001d465", "\u221a", "\u2211"} <= covered  # italic x, radical, sum
    cmap = font.getBestCmap()
    if "\u203e" in chars:  # \bar's overline, which the font lacks, is drawn as its macron
        assert cmap[0x203E] == cmap[0xAF]
    assert len(covered) < 600  # cut down: the whole font maps about 4,800 characters
    # about 30 KB: the script-size letters Chromium never draws are left out (65 KB with them)
    assert path.stat().st_size < 40_000, path.stat().st_size
    gsub = font["GSUB"].table.FeatureList.FeatureRecord
    assert {r.FeatureTag for r in gsub} <= set(build_math.LAYOUT_FEATURES)
    for name in ("GUST-FONT-LICENSE.txt", "LICENSE-Temml", "Temml.woff2", "math.css"):
        assert (SITE / "_static" / "math" / name).is_file(), name
    css = (SITE / "_static" / "math" / "math.css").read_text(encoding="utf-8")
    assert f'url("{path.name}")' in css and "Latin Modern Math\"," not in css
    assert not (SITE / "_static" / "katex").exists() and not (SITE / "mathjax").exists()


def test_math_italic_letters_follow_mathml_core():
    assert build_math.math_italic("x") == "\U0001d465"
    assert build_math.math_italic("h") == "\u210e"
    assert build_math.math_italic("\u03b5") == "\U0001d700"  # ε
    assert build_math.math_italic("\u03f5") == "\U0001d716"  # ϵ (lunate)
    assert build_math.math_italic("\u0394") == "\U0001d6e5"  # Δ
    assert build_math.math_italic("1") is None
    chars = build_math.characters('<math><msqrt><mi>x</mi></msqrt><mi mathvariant="normal">'
                                  'Δ</mi><mi>ab</mi><mo>&lt;</mo></math>')
    assert chars == {"x", "\U0001d465", "\u221a", "Δ", "a", "b", "<"}


_BOOK = {
    "conf.py": """
import sys
sys.path.insert(0, {ext!r})
extensions = ["myst_parser", "build_math"]
myst_enable_extensions = ["amsmath", "dollarmath"]
html_math_renderer = "temml"
build_math_temml = {temml!r}
""",
    "index.md": r"""# Formulas

Inline $\operatorname{Lap}(b)$ over $\mathbb{R}^d$, with $\Pr[M(D) \in S]$.

$$
\varepsilon' = \sqrt{2k\ln(1/\delta')}\,\varepsilon
$$ (eq-advanced)

By {eq}`eq-advanced`, and a split:

$$
a &= b \\
c &= d
$$

\begin{align}
x &= 1 \\
y &= 2
\end{align}

\begin{gather*}
\begin{aligned} u &= v \end{aligned}
\end{gather*}
""",
}


def _build(tmp_path: Path, extra: str = "") -> subprocess.CompletedProcess:
    if not (TEMML / "dist" / "temml.cjs").exists():
        pytest.fail(f"Temml is not installed in {TEMML}: run `make venv`")
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(_BOOK["conf.py"].format(ext=str(ROOT / "_ext"),
                                                         temml=str(TEMML)), encoding="utf-8")
    (src / "index.md").write_text(_BOOK["index.md"] + extra, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "-n", "-q", "-b", "html",
                           str(src), str(tmp_path / "out")], capture_output=True, text=True)


def test_amsmath_labels_and_references_render(tmp_path):
    run = _build(tmp_path)
    assert run.returncode == 0, run.stderr
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert html.count("<math") == 7  # 3 inline, 2 display, align, gather*
    assert html.count('<math display="block"') == 4
    assert html.count('<div class="amsmath math notranslate nohighlight"') == 2
    assert not re.search(r"katex|temml-error", html, flags=re.I)
    assert "<mi>Lap</mi><mo>\u2061</mo>" in html  # \operatorname, then the function application
    assert "<mi>\u211d</mi>" in html  # \mathbb as its Unicode letter, not mathvariant
    # the labelled equation is numbered (1), and the reference links to it
    assert re.search(r'<span class="eqno">\(1\)<a class="headerlink" href="#equation-eq-advanced"',
                     html)
    assert re.search(r'<a class="reference internal" href="#equation-eq-advanced">', html)
    assert html.count('class="tml-eqn"') == 2  # the align environment numbers its two rows
    assert html.count("<mtable") >= 3 and 'class="tml-right"' in html  # split, align, aligned
    # the page preloads the font its stylesheet declares
    static = tmp_path / "out" / "_static" / "math"
    font = next(static.glob("course-math.*.woff2"))
    assert f'<link rel="preload" href="_static/math/{font.name}" as="font"' in html
    assert f'url("{font.name}")' in (static / "math.css").read_text(encoding="utf-8")


def test_the_font_is_cut_again_only_when_the_characters_change(tmp_path):
    run = _build(tmp_path)
    assert run.returncode == 0, run.stderr
    # a second page with a formula, which the change below leaves as it is
    (tmp_path / "src" / "other.md").write_text("---\norphan: true\n---\n# Other\n\n$x^2$\n",
                                               encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-n", "-q", "-b", "html",
                          str(tmp_path / "src"), str(tmp_path / "out")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    cache = tmp_path / "out" / ".doctrees" / "course_math_font"
    first = sorted(cache.glob("*.woff2"))
    assert len(first) == 1
    stamp = first[0].stat().st_mtime_ns
    # the same formulas: the cached subset is served again, untouched
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-n", "-q", "-b", "html", "-E",
                          str(tmp_path / "src"), str(tmp_path / "out")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert sorted(cache.glob("*.woff2")) == first and first[0].stat().st_mtime_ns == stamp
    # a new symbol: a new subset, under a new name, which has it
    with (tmp_path / "src" / "index.md").open("a", encoding="utf-8") as f:
        f.write("\nA new symbol: $\\heartsuit$.\n")
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-n", "-q", "-b", "html",
                          str(tmp_path / "src"), str(tmp_path / "out")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    second = sorted(cache.glob("*.woff2"))
    assert len(second) == 1 and second != first
    served = sorted((tmp_path / "out" / "_static" / "math").glob("course-math.*.woff2"))
    assert [p.name for p in served] == [second[0].name]
    # the unchanged page was written again: it preloads the new font, not the removed one
    other = (tmp_path / "out" / "other.html").read_text(encoding="utf-8")
    assert f'href="_static/math/{second[0].name}"' in other
    from fontTools.ttLib import TTFont
    assert 0x2661 in TTFont(served[0]).getBestCmap()  # ♡


def test_a_formula_temml_rejects_fails_the_build(tmp_path):
    run = _build(tmp_path, "\nBroken: $\\frac{1}$.\n")
    assert run.returncode != 0
    assert "Temml could not render '\\\\frac{1}'" in run.stderr, run.stderr
    assert "index.md" in run.stderr  # the warning names the page
