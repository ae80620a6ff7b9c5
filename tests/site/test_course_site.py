"""Unit checks of the site extension (``_ext/course_site.py``).

Page-weight rewrites and parallel reading; tests/test_parallel_read.py builds in parallel.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "_ext"))

from course_site import plain_code_tokens  # noqa: E402

CSS = """
html[data-theme="light"] .highlight pre { line-height: 125%; }
html[data-theme="light"] .highlight { background: #fefefe; color: #080808 }
html[data-theme="light"] .highlight .n { color: #080808 } /* Name */
html[data-theme="light"] .highlight .o { color: #00622F } /* Operator */
html[data-theme="light"] .highlight .p { color: #080808 } /* Punctuation */
html[data-theme="light"] .highlight .w { color: #080808 }
html[data-theme="light"] .highlight .k { color: #080808; font-weight: bold }
html[data-theme="dark"] .highlight { background: #2b2b2b; color: #F8F8F2 }
html[data-theme="dark"] .highlight .n { color: #F8F8F2 } /* Name */
html[data-theme="dark"] .highlight .o { color: #F8F8F2 } /* Operator */
html[data-theme="dark"] .highlight .p { color: #F8F8F2 } /* Punctuation */
html[data-theme="dark"] .highlight .k { color: #F8F8F2 }
"""


def test_plain_tokens_are_those_coloured_like_the_block_in_every_theme():
    plain, base = plain_code_tokens(CSS)
    assert base == {"light": "#080808", "dark": "#F8F8F2"}
    # o differs in light, k is bold in light, w has no dark rule: each keeps its span
    assert plain == {"n", "p"}


def test_no_theme_rules_means_nothing_is_plain():
    # Sphinx's own pygments.css before the theme rewrites it has no per-theme rules
    assert plain_code_tokens(".highlight .n { color: #000 }\n.highlight { color: #000 }") == (set(), {})


def test_prune_css_drops_only_selectors_that_need_an_unused_class():
    from course_site import prune_css

    css = ('.used{a:1}.unused{b:2}.used .unused,.used>p{c:3}'
           '@media (max-width:10px){.unused{d:4}}@media print{.used{e:5}}'
           '.x:not(.unused){f:6}@font-face{font-family:x}@keyframes k{0%{g:7}}'
           'a[href=".unused"].used{h:8}')
    assert prune_css(css, {"used", "x"}) == (
        '.used{a:1}.used>p{c:3}@media print{.used{e:5}}.x:not(.unused){f:6}'
        '@font-face{font-family:x}@keyframes k{0%{g:7}}a[href=".unused"].used{h:8}')


def test_read_jobs_auto_is_parallel_only_when_the_build_executes_notebooks():
    from course_site import read_jobs

    assert read_jobs("auto", "force", cpus=2) == 2
    assert read_jobs("auto", "auto", cpus=4) == 4
    assert read_jobs("auto", "inline", cpus=2) == 2
    assert read_jobs("auto", "off", cpus=2) == 1     # stored outputs: nothing to gain
    assert read_jobs("auto", "cache", cpus=2) == 1   # one writer for the jupyter-cache database
    assert read_jobs("auto", "force", cpus=0) == 1
    assert read_jobs(3, "off", cpus=2) == 3 and read_jobs("3", "off", cpus=2) == 3


@pytest.mark.parametrize("setting", [0, -1, "0", "two", 1.5, True, None])
def test_read_jobs_rejects_anything_but_auto_or_a_positive_integer(setting):
    from course_site import read_jobs

    with pytest.raises(ValueError, match="course_read_jobs"):
        read_jobs(setting, "force", cpus=2)


def test_proof_domain_merges_because_it_has_no_data_and_refuses_if_it_ever_has():
    from course_site import _parallel_proof_domain

    domain_class = _parallel_proof_domain()
    domain = domain_class.__new__(domain_class)  # merging reads no state of the instance
    assert domain.initial_data == {}
    domain.merge_domaindata(["chapters/approximate-dp"], {"version": 0})
    with pytest.raises(NotImplementedError, match="sphinx-proof"):
        domain.merge_domaindata(["chapters/approximate-dp"], {"version": 0, "objects": {}})


def _fake_app(builder_format: str, execution_mode: str, setting: object = "auto"):
    from types import SimpleNamespace

    return SimpleNamespace(
        builder=SimpleNamespace(format=builder_format), parallel=1,
        config=SimpleNamespace(course_read_jobs=setting, nb_execution_mode=execution_mode),
        extensions={name: SimpleNamespace(parallel_read_safe=None)
                    for name in ("sphinx_multitoc_numbering", "sphinx_jupyterbook_latex")})


def test_an_executing_html_build_reads_in_parallel_and_others_do_not(monkeypatch):
    import course_site

    monkeypatch.delenv("COURSE_READ_JOBS", raising=False)
    monkeypatch.setattr(course_site, "_usable_cpus", lambda: 2)
    app = _fake_app("html", "force")
    course_site._set_read_jobs(app)
    assert app.parallel == 2
    assert all(ext.parallel_read_safe for ext in app.extensions.values())
    for builder_format, mode in [("html", "off"), ("latex", "force")]:
        app = _fake_app(builder_format, mode)
        course_site._set_read_jobs(app)
        assert app.parallel == 1, (builder_format, mode)
        assert all(ext.parallel_read_safe is None for ext in app.extensions.values())


def test_the_environment_variable_overrides_the_setting(monkeypatch):
    import course_site

    monkeypatch.setenv("COURSE_READ_JOBS", "3")
    app = _fake_app("html", "off")
    course_site._set_read_jobs(app)
    assert app.parallel == 3
    monkeypatch.setenv("COURSE_READ_JOBS", "many")
    with pytest.raises(ValueError, match="course_read_jobs"):
        course_site._set_read_jobs(_fake_app("html", "off"))
