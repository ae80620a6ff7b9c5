"""Where the course lives, in one place, and the footer that says so.

What it changes, and why: ``repository.url``, ``repository.branch`` and ``html.baseurl`` in
``_config.yml`` say where the course is hosted, and the environment variables
``COURSE_REPOSITORY_URL``, ``COURSE_BRANCH`` and ``COURSE_SITE_URL`` override them at build time
(the publishing workflow sets them from the hosting repository). Jupyter Book reads these
settings once, from the file; this module re-reads them with the environment first
(``config-inited``) and sets the theme's options from the result. When no repository is known,
the build says so and hides the launch, repository and issue links instead of pointing at an
invented one.

Every page gets a footer naming the licences, linking the errata and, when the repository is
known, a *report an error* link to its issue tracker (the theme's public ``extra_footer``).
"""

from __future__ import annotations

import os
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)


def course_location(config: Any) -> dict[str, str]:
    """Repository URL, branch and site URL: the environment first, then ``_config.yml``.

    The same answer before and after :func:`on_config_inited` has set the theme's options from
    it, so every part of the build asks here rather than keeping a copy."""
    theme = config.html_theme_options or {}
    repository = (os.environ.get("COURSE_REPOSITORY_URL")
                  or theme.get("repository_url") or "").strip().rstrip("/")
    branch = (os.environ.get("COURSE_BRANCH") or theme.get("repository_branch") or "main").strip()
    site = (os.environ.get("COURSE_SITE_URL") or config.html_baseurl or "").strip().rstrip("/")
    return {"repository": repository, "branch": branch, "site": site}


def on_config_inited(app: Sphinx, config: Any) -> None:
    """Set the theme's links from where the course lives, or hide them."""
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


def footer(where: dict[str, str], pathto: Any) -> str:
    """The footer's HTML: licences, errata, where to report an error."""
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


def on_page_context(app: Sphinx, pagename: str, templatename: str, context: dict,
                    doctree: object) -> None:
    """Give every page the footer (the theme's ``extra_footer`` option, per page)."""
    context["theme_extra_footer"] = footer(course_location(app.config), context["pathto"])
