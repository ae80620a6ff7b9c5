"""Every place where the course works around another project's behaviour, in one module.

What it changes, and why: each function below corrects something a dependency does that the
course cannot change through a public setting. Each names the upstream issue, and
``tests/site/test_course_site.py`` has a test that reproduces the upstream behaviour itself: when
an upgrade fixes it upstream, that test fails and says which workaround to delete.

* :func:`drop_repeated_scripts`: Sphinx 7 writes an inline script that an extension adds after
  the builder starts (sphinx-thebe's ``const THEBE_JS_URL``, sphinx-togglebutton's selector)
  twice, once as filename ``None`` and once as ``""``; the repeated ``const`` is a SyntaxError
  in the browser console. Fixed upstream by https://github.com/sphinx-doc/sphinx/pull/13402, in
  Sphinx 8, which Jupyter Book 1 (``sphinx~=7.0``) cannot use.
* :func:`bibliography_list_items`: docutils' HTML5 writer puts the entries of a citation list
  (``role="list"``) under ``role="doc-biblioentry"``, which DPUB-ARIA 1.1 deprecated because it
  is not a list item; axe reports a critical error (a list must contain list items).
  Upstream: https://github.com/w3c/dpub-aria/pull/22 (the deprecation; docutils keeps the role).
* :func:`remember_bibliography_style`: sphinxcontrib-bibtex asks pybtex for the style class at
  every citation it resolves, and each uncached lookup scans every installed package's entry
  points (about 10 ms; 3 s of a build with 300 citations). Registering the class found as a
  runtime plugin (pybtex's public ``register_plugin``) makes later lookups a dictionary read;
  the class is the same. No upstream issue found.
* :func:`name_sidebar_toggles`: pydata-sphinx-theme 0.17 gives a sidebar entry with children
  (a chapter with its going-deeper sections) a ``<summary>`` holding only a decorative chevron
  (``role="presentation"``), so the disclosure button has no accessible name; axe reports
  ``summary-name`` (serious) on every page. The sidebar's HTML, which the theme's
  ``generate_toctree_html`` returns to its template, gets an ``aria-label`` naming the entry.
  No upstream issue found (the theme's ``add_collapse_checkboxes`` builds the summary).
* ``templates/layout.html`` (:func:`theme_templates`), the theme's head with four changes:

  - **the colour mode resolved before the body is parsed**: pydata-sphinx-theme's first lines
    set ``data-theme`` to the stored theme or ``"auto"``, which no stylesheet colours, and its
    script resolves it only once the page is parsed, so a first visit was painted without the
    theme's colours and then styled again (0.8 s of a phone's main thread on
    ``privacy-accounting``, 2026-11-24). Upstream:
    https://github.com/pydata/pydata-sphinx-theme/issues/1857;
  - **the few icons the site draws instead of Font Awesome's 1.5 MB script**, and the theme's
    stylesheet cut to what the site uses (:mod:`.icons`). Upstream:
    https://github.com/pydata/pydata-sphinx-theme/issues/2379 (fontawesome.js, the 388 kB
    stylesheet);
  - **no search scripts outside the search page**: the theme loads Sphinx's search tools and
    index on every page for a search-as-you-type this site does not turn on (made so by
    https://github.com/pydata/pydata-sphinx-theme/issues/1977; no upstream issue found);
  - **no script in the head holds up the first paint**: Sphinx writes the scripts that its
    extensions add (doctools, copybutton, togglebutton, sphinx-book-theme and the site's own)
    without ``defer``, so a phone's first paint waited for each; they run once the page is
    parsed instead, in the same order (but documentation_options.js, which an inline script
    extends at once, and the search page's). In an A/B on three chapters (Lighthouse at 3.62x,
    5 interleaved runs a side, 2026-11-28) the first paint came 130-360 ms earlier. Sphinx
    has no setting for other extensions' scripts; no upstream issue found.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sphinx.application import Sphinx

from . import icons

#: The course's ``layout.html``, which extends the theme's.
TEMPLATES = Path(__file__).with_name("templates")


def theme_templates(app: Sphinx, config: object) -> None:
    """The course's templates before the theme's (``config-inited``)."""
    config.templates_path = [*config.templates_path, str(TEMPLATES)]


def name_sidebar_toggles(app: Sphinx, pagename: str, templatename: str, context: dict,
                         doctree: object) -> None:
    """The sidebar's disclosure buttons named after their entry (``html-page-context``, after
    the theme has put ``generate_toctree_html`` in the context)."""
    generate: Callable | None = context.get("generate_toctree_html")
    if generate is None:
        return

    def named(kind: str, *args: object, **kwargs: object) -> object:
        html = generate(kind, *args, **kwargs)
        return label_summaries(str(html)) if kind == "sidebar" else html

    context["generate_toctree_html"] = named


def label_summaries(html: str) -> str:
    """Each ``<summary>`` with no text gets ``aria-label`` "Sections of <the entry's title>"."""
    from bs4 import BeautifulSoup  # the theme's own dependency

    soup = BeautifulSoup(html, "html.parser")
    for summary in soup.select("details > summary"):
        if summary.get_text(strip=True) or summary.get("aria-label"):
            continue
        entry = summary.find_parent("li")
        link = entry.find("a", recursive=False) if entry is not None else None
        title = link.get_text(" ", strip=True) if link is not None else "this entry"
        summary["aria-label"] = f"Sections of {title}"
    return str(soup)


def drop_repeated_scripts(app: Sphinx, pagename: str, templatename: str, context: dict,
                          doctree: object) -> None:
    """Each script once (``html-page-context``): the same inline script registered twice, with
    filename ``None`` and ``""``, counts once."""
    seen: set[tuple] = set()
    unique = []
    for script in context.get("script_files", []):
        key = (getattr(script, "filename", script) or "",
               tuple(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"][:] = unique


def bibliography_list_items(app: Sphinx, pagename: str, templatename: str, context: dict,
                            doctree: object) -> None:
    """Bibliography entries as list items of their list (``html-page-context``)."""
    if "body" in context:
        context["body"] = context["body"].replace('role="doc-biblioentry"', 'role="listitem"')


def remember_bibliography_style(app: Sphinx) -> None:
    """Look the bibliography style up once instead of once per citation (``builder-inited``)."""
    import pybtex.plugin

    group, name = "pybtex.style.formatting", getattr(app.config, "bibtex_default_style", None)
    if isinstance(name, str):
        pybtex.plugin.register_plugin(group, name, pybtex.plugin.find_plugin(group, name),
                                      force=True)


def setup(app: Sphinx) -> None:
    """Connect every workaround."""
    app.connect("config-inited", theme_templates)
    app.connect("build-finished", icons.write_theme_files)
    app.connect("builder-inited", remember_bibliography_style)
    app.connect("html-page-context", drop_repeated_scripts, priority=100)
    app.connect("html-page-context", bibliography_list_items, priority=100)
    app.connect("html-page-context", name_sidebar_toggles, priority=600)
