"""Formulas are rendered when the site is built (KaTeX, ``_ext/build_math.py``).

* every formula of the sources is on its page, rendered, with its MathML, and no page has a
  KaTeX error or loads a script that typesets math (the built HTML; ``make book`` first);
* KaTeX's stylesheet and fonts are the site's own;
* a small book built here: amsmath environments, ``\\operatorname``, ``\\mathbb``, a labelled
  equation and its ``{eq}`` reference render, and a formula KaTeX rejects fails the build.
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
KATEX = ROOT / "node_modules" / "katex" / "dist"

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
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    root = re.search(r"^root:\s*(\S+)", toc, flags=re.M)[1]
    return [root] + re.findall(r"^\s*-\s*file:\s*(\S+)", toc, flags=re.M)


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
    boxes = re.findall(r'<(span|div) class="(?:amsmath )?math notranslate nohighlight"', html)
    assert len(boxes) == expected, f"{doc}: {expected} formulas in the source, {len(boxes)} on the page"
    # every one rendered by KaTeX, with the MathML a screen reader reads and the HTML hidden
    # from it; none left for a script, none an error
    assert html.count('<span class="katex">') == expected
    assert html.count('<math xmlns="http://www.w3.org/1998/Math/MathML"') == expected
    assert html.count('<span class="katex-html" aria-hidden="true">') == expected
    assert "katex-error" not in html
    scripts = re.findall(r"<script[^>]*>.*?</script>", html, flags=re.S)
    assert not [s for s in scripts if re.search(r"mathjax|katex|tex-mml", s, flags=re.I)]
    # KaTeX's rules and fonts are in the stylesheet the page links (the site's one)
    href = re.search(r'<link rel="stylesheet" href="([^"]*combined/[^"]+)"', page)[1]
    css = ((SITE / doc).parent / href).read_text(encoding="utf-8")
    assert len(re.findall(r"url\(\.\./katex/fonts/KaTeX_[\w-]+\.woff2\)", css)) >= 19
    assert ".katex .katex-mathml{" in css


def test_the_book_has_its_formulas():
    """The count above could pass with no math at all: the course has well over 2000."""
    assert sum(count_source_formulas(_source(doc)) for doc in _documents()) > 2000


def test_katex_stylesheet_and_fonts_are_the_sites_own():
    css = (SITE / "_static" / "katex" / "katex.min.css").read_text(encoding="utf-8")
    fonts = re.findall(r"url\(([^)]+)\)", css)
    assert len(fonts) >= 19  # one woff2 per KaTeX font face
    assert all(f.startswith("fonts/") and f.endswith(".woff2") for f in fonts), fonts
    missing = [f for f in fonts if not (SITE / "_static" / "katex" / f).is_file()]
    assert missing == []
    assert not (SITE / "mathjax").exists()


_BOOK = {
    "conf.py": """
import sys
sys.path.insert(0, {ext!r})
extensions = ["myst_parser", "build_math"]
myst_enable_extensions = ["amsmath", "dollarmath"]
html_math_renderer = "katex"
build_math_katex_dist = {katex!r}
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
    if not (KATEX / "katex.min.js").exists():
        pytest.fail(f"KaTeX is not installed in {KATEX}: run `make venv`")
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(_BOOK["conf.py"].format(ext=str(ROOT / "_ext"),
                                                         katex=str(KATEX)), encoding="utf-8")
    (src / "index.md").write_text(_BOOK["index.md"] + extra, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "-n", "-q", "-b", "html",
                           str(src), str(tmp_path / "out")], capture_output=True, text=True)


def test_amsmath_labels_and_references_render(tmp_path):
    run = _build(tmp_path)
    assert run.returncode == 0, run.stderr
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert html.count('<span class="katex">') == 7  # 3 inline, 2 display, align, gather*
    assert html.count('<div class="amsmath math notranslate nohighlight"') == 2
    assert "katex-error" not in html
    assert '<mi>Lap</mi>' in html or '<mi mathvariant="normal">Lap</mi>' in html  # \operatorname
    assert '<mi mathvariant="double-struck">R</mi>' in html  # \mathbb
    # the labelled equation is numbered (1), and the reference links to it
    assert re.search(r'<span class="eqno">\(1\)<a class="headerlink" href="#equation-eq-advanced"',
                     html)
    assert re.search(r'<a class="reference internal" href="#equation-eq-advanced">', html)
    assert html.count('class="eqn-num"') == 2  # the align environment numbers its two rows
    assert '<mtable' in html and 'columnalign="right left' in html  # the split is aligned


def test_a_formula_katex_rejects_fails_the_build(tmp_path):
    run = _build(tmp_path, "\nBroken: $\\frac{1}$.\n")
    assert run.returncode != 0
    assert "KaTeX could not render '\\\\frac{1}'" in run.stderr, run.stderr
    assert "index.md" in run.stderr  # the warning names the page
