"""Lighter pages, through Sphinx's own hooks (nothing rewrites a page Sphinx wrote).

What it changes, and why: a chapter's first visit weighed several megabytes, most of it assets
no page needed. Besides the theme's icons and stylesheet (:mod:`.icons`):

* figures load lazily (``loading="lazy"``, docutils' own image option): a figure below the
  first screens is fetched when the reader scrolls near it;
* a page loads an extension's stylesheet and script only when its body has what they style
  (``html-page-context``): sphinx-design's components, sphinx-proof's theorems and proofs,
  sphinx-exercise's exercises and solutions. sphinx-thebe's assets, which Jupyter Book 1 adds
  to every page, go from all of them (with the URL of Thebe's library on unpkg.com): the course
  runs its code on Binder and never turns Thebe on (``launch_buttons``). Measured (A/B on three
  chapters, Lighthouse at 5.95x, 5 interleaved runs a side, 2026-11-28): pages 2.4-3.2 KB
  lighter, one to three requests fewer, and timings that moved within the spread of the runs.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

#: An extension's assets, and the markers of the HTML they style: a page whose body holds none
#: of the markers loads none of the assets (no marker: no page loads them).
ASSETS_BY_MARKER: dict[tuple[str, ...], tuple[str, ...]] = {
    ("sphinx-design.min.css", "design-tabs.js"): (' sd-', '"sd-'),
    ("proof.css",): ('class="proof ',),
    ("exercise.css",): ('class="exercise ', 'class="solution '),
    ("sphinx-thebe.css", "sphinx-thebe.js"): (),
}
#: sphinx-thebe's inline script (the URL of Thebe's library and its selectors).
_THEBE_SETTINGS = "const THEBE_JS_URL"


class LazyFigures(SphinxPostTransform):
    """Every image of an HTML page loads lazily."""

    default_priority = 900
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        for image in self.document.findall(nodes.image):
            image.setdefault("loading", "lazy")


def drop_unused_assets(app: Any, pagename: str, templatename: str, context: dict,
                       doctree: object) -> None:
    """No extension's stylesheet or script on a page without what it styles
    (``html-page-context``; :data:`ASSETS_BY_MARKER`)."""
    body = context.get("body") or ""
    unused = tuple(name for names, markers in ASSETS_BY_MARKER.items()
                   if not any(marker in body for marker in markers) for name in names)

    def used(asset: object) -> bool:
        if _THEBE_SETTINGS in (getattr(asset, "attributes", {}).get("body") or ""):
            return False
        return not str(getattr(asset, "filename", asset) or "").endswith(unused)

    for key in ("css_files", "script_files"):
        context[key][:] = [f for f in context.get(key, []) if used(f)]
