"""Lighter pages: what the HTML build's output loses after Sphinx has written it.

What it changes, and why: a chapter's first visit weighed several megabytes, most of it assets
no page needed. At ``build-finished`` this module runs the page-weight passes in order:

* the icons (:mod:`.icons`): a small icon script instead of Font Awesome's, fonts subset;
* figures stored with a 128-colour palette (about a third of the bytes; the notebooks keep
  their original images);
* per page: the icon script, no search scripts outside the search page, no sphinx-design
  assets on a page without a design component, figures that load lazily;
* last, stylesheets pruned to what the final pages use (:mod:`.stylesheets`).

Passes that rewrite files which Sphinx or an extension copies again on the next build
(``mystnb.css``, ``proof.css``, the figures of a page written again) would make that build
report "will overwrite data ... content does not match" for each: the original of every file
rewritten here is kept beside the doctrees and put back when the next build starts
(:func:`restore_originals`), so every build starts from what Sphinx wrote.
"""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

from sphinx.application import Sphinx

from . import icons, stylesheets

#: Where the originals of the files the passes rewrite are kept, inside the doctree directory.
ORIGINALS = "course_site_originals"

#: Sphinx's search scripts and index, which the theme loads on every page although the
#: search-as-you-type feature that needs them is off; the search page loads its own.
_SEARCH_SCRIPTS = re.compile(
    r'\s*<script src="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|searchindex\.js)">'
    r"</script>")
_DESIGN_ASSETS = re.compile(
    r'\s*<(?:link[^>]*sphinx-design\.min\.css[^>]*|script[^>]*design-tabs\.js[^>]*>\s*</script)>')


def quantise_figures(outdir: Path) -> None:
    """Store the site's PNG figures with a 128-colour palette (about a third of the bytes).

    Matplotlib's figures are flat colours plus anti-aliasing, which a palette keeps; the
    notebooks keep their original images. A figure that would not shrink is left alone.
    """
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


def lighter_page(html: str, name: str) -> str:
    """One page's HTML after the per-page passes."""
    html = icons.load_icon_script(html)
    if name != "search.html":
        html = _SEARCH_SCRIPTS.sub("", html)
    if " sd-" not in html and '"sd-' not in html:  # sphinx-design: no component on this page
        html = _DESIGN_ASSETS.sub("", html)
    # figures below the first screen load when the reader scrolls to them
    return re.sub(r"<img (?![^>]*\bloading=)", '<img loading="lazy" ', html)


def _rewritable_files(outdir: Path) -> dict[Path, bytes]:
    """The files that the passes may rewrite in place and Sphinx or an extension copies again
    (stylesheets, icon fonts, figures), with their bytes."""
    static = outdir / "_static"
    paths = [*static.rglob("*.css"), *static.rglob("webfonts/*"), *outdir.glob("_images/*.png")]
    return {p: p.read_bytes() for p in paths if p.is_file()}


def _keep_originals(outdir: Path, before: dict[Path, bytes], keep: Path) -> None:
    """Keep the original of every file of ``before`` that the passes changed."""
    shutil.rmtree(keep, ignore_errors=True)
    for path, data in before.items():
        if path.exists() and path.read_bytes() != data:
            copy = keep / path.relative_to(outdir)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(data)


def restore_originals(app: Sphinx) -> None:
    """Put back what Sphinx wrote before the last build's passes (``builder-inited``)."""
    keep = Path(app.doctreedir) / ORIGINALS
    if app.builder.format != "html" or not keep.is_dir():
        return
    for copy in keep.rglob("*"):
        target = Path(app.outdir) / copy.relative_to(keep)
        if copy.is_file() and target.parent.is_dir():
            shutil.copyfile(copy, target)


def make_pages_lighter(app: Sphinx, exception: Exception | None) -> None:
    """Run every page-weight pass over the built site (``build-finished``)."""
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    before = _rewritable_files(outdir)
    icons.write_icon_script(outdir)
    quantise_figures(outdir)
    icons.subset_icon_fonts(outdir)  # reads the glyph rules that the next pass removes
    icons.drop_glyph_rules(outdir)
    for page in outdir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        new = lighter_page(text, page.name)
        if new != text:
            page.write_text(new, encoding="utf-8")
    stylesheets.drop_unmatched_selectors(outdir)  # last: it reads the final pages
    _keep_originals(outdir, before, Path(app.doctreedir) / ORIGINALS)
