"""Lighter pages, through Sphinx's own hooks (nothing rewrites a page Sphinx wrote).

What it changes, and why: a chapter's first visit weighed several megabytes, most of it assets
no page needed. Besides the theme's icons and stylesheet (:mod:`.icons`):

* figures load lazily (``loading="lazy"``, docutils' own image option): a figure below the
  first screens is fetched when the reader scrolls near it;
* a page without a sphinx-design component does not load sphinx-design's stylesheet and
  script (``html-page-context``).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

_DESIGN_FILES = ("sphinx-design.min.css", "design-tabs.js")


class LazyFigures(SphinxPostTransform):
    """Every image of an HTML page loads lazily."""

    default_priority = 900
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        for image in self.document.findall(nodes.image):
            image.setdefault("loading", "lazy")


def drop_unused_design_files(app: Any, pagename: str, templatename: str, context: dict,
                             doctree: object) -> None:
    """No sphinx-design assets on a page without a design component (``html-page-context``)."""
    body = context.get("body") or ""
    if " sd-" in body or '"sd-' in body:
        return
    for key in ("css_files", "script_files"):
        context[key][:] = [f for f in context.get(key, [])
                           if not str(getattr(f, "filename", f) or "").endswith(_DESIGN_FILES)]
