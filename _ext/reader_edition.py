"""Sphinx extension: the reader edition of every chapter notebook (loaded through ``_config.yml``).

The committed chapters stay the one source. During the HTML build, for every chapter notebook:

1. a post-transform that runs before Sphinx resolves cross-references notes each pending
   reference node, with the source of the role it came from (:class:`RecordReferences`);
2. once the doctree is resolved (``doctree-resolved``), the node that replaced each of them is
   turned into Markdown: the number, title or citation the site shows (:func:`inline_markdown`),
   linked to the place in this notebook for a target of the same chapter (an anchor is written
   there), to the site (``COURSE_SITE_URL``/``html.baseurl``) for any other, or, when the build
   does not know the site, to the notebook beside it; a glossary term the site cannot be linked
   for stays marked, in italics (the archive carries no glossary a notebook could open);
3. ``reader_markdown.reader_notebook`` rewrites the Markdown cells with those (each role
   gets what its own node became), the glued values (myst-nb's formatting of the stored
   outputs) and the site's block numbers (``env.toc_fignumbers``, which sphinx-proof and
   sphinx-exercise number from).

The result is what the download button serves (``_sources/chapters/*.ipynb``) and what
``course.zip`` carries; ``postBuild`` copies it over ``chapters/`` for Binder. Why not
sphinx-tojupyter 0.6.0, QuantEcon's builder: tried on this course, its notebooks had no code
cell and no output at all (its writer skips myst-nb's ``cell_output`` containers, and the code
became fenced Markdown), no cell metadata (alt text), solutions open as headings, and it needs
a second full Sphinx build plus dask. Converting here, from the same resolved doctree that
the site is written from, keeps every code cell and output and the site's numbers exactly.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import weakref
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

from course_site.archive import (ARCHIVE_NAME, ARCHIVE_ROOT, name_the_archive_in_downloads,
                                 write_course_archive)
from course_site.location import course_location
from course_site.tables import is_chapter_notebook, page_reading_line
from reader_markdown import Resolved, escape, first_cell, reader_notebook

LOGGER = logging.getLogger(__name__)
READER_DIR = "reader-edition"  # under the doctree directory: survives incremental builds
#: app -> docname -> the pending references of its doctree (kept off Sphinx's objects)
_PENDING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _site(app: Sphinx) -> str:
    return course_location(app.config)["site"]


class RecordReferences(SphinxPostTransform):
    """Note (parent, position, role source) of every pending cross-reference.

    Sphinx replaces each ``pending_xref`` in place (priority 10); at ``doctree-resolved`` the
    node at the same place in its parent is what the site renders for that role. The role's
    source (``:name:`content```, the node's ``rawsource``) is what the notebook's Markdown has.
    """

    default_priority = 1

    def run(self, **kwargs: Any) -> None:
        if self.app.builder.format != "html" or not is_chapter_notebook(self.env, self.env.docname):
            return
        records = []
        for node in self.document.findall(addnodes.pending_xref):
            if not node.rawsource.startswith(":"):
                raise ValueError(f"{self.env.docname}: the reference to "
                                 f"{node.get('reftarget')!r} comes from no MyST role")
            records.append((node.parent, node.parent.index(node), node.rawsource))
        _PENDING.setdefault(self.app, {})[self.env.docname] = records


def link(refuri: str, fromdoc: str, site: str, chapters: set[str]) -> str | None:
    """Where a reader edition link points, for the site's relative ``refuri``.

    A place in this chapter: its anchor in the notebook. With the site's URL: the page on the
    site (anchor kept). Without it: the notebook beside this one for another chapter, and no
    link for anything else (the site is not known).
    """
    path, _, anchor = refuri.partition("#")
    target = (posixpath.normpath(posixpath.join(posixpath.dirname(fromdoc), path))
              if path else f"{fromdoc}.html")
    if anchor and target == f"{fromdoc}.html":
        return f"#{anchor}"
    if site:
        return f"{site}/{target}" + (f"#{anchor}" if anchor else "")
    docname = target.removesuffix(".html")
    if path and docname in chapters and docname != fromdoc:
        return posixpath.relpath(f"{docname}.ipynb", posixpath.dirname(fromdoc))
    return None


def inline_markdown(node: nodes.Node, to_link: Any) -> str:
    """Markdown for an inline doctree node (text, emphasis, code, math, references)."""
    if isinstance(node, nodes.Text):
        return escape(node.astext())
    inner = "".join(inline_markdown(child, to_link) for child in node.children)
    if isinstance(node, nodes.reference):
        url = node.get("refuri") and to_link(node["refuri"])
        if url is None and node.get("refid"):
            url = to_link(f"#{node['refid']}")
        if url:
            return f"[{inner}]({url})"
        terms = [n for n in node.findall(nodes.inline) if "std-term" in n["classes"]]
        return f"*{inner}*" if terms else inner  # a glossary term stays marked
    if isinstance(node, nodes.emphasis):
        return f"*{inner}*"
    if isinstance(node, nodes.strong):
        return f"**{inner}**"
    if isinstance(node, nodes.literal):
        return f"`{node.astext()}`"
    if isinstance(node, nodes.math):
        return f"${node.astext()}$"
    if isinstance(node, (nodes.inline, nodes.TextElement, addnodes.pending_xref)):
        return inner
    raise ValueError(f"reader edition: no Markdown for the inline node {node.tagname}")


def _on_doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    records = _PENDING.get(app, {}).pop(docname, None)
    if records is None:
        return
    env, site = app.env, _site(app)
    chapters = {d for d in env.found_docs if is_chapter_notebook(env, d)}
    here: set[str] = set()  # anchors of this chapter that its references link to

    def to_link(uri: str) -> str | None:
        url = link(uri, docname, site, chapters)
        if url and url.startswith("#"):
            here.add(url[1:])
        return url

    xrefs: dict[str, str] = {}
    for parent, index, source in records:
        node = parent[index]
        if isinstance(node, addnodes.pending_xref):
            raise ValueError(f"{docname}: {source} was not resolved")
        markdown = inline_markdown(node, to_link)
        if xrefs.setdefault(source, markdown) != markdown:
            raise ValueError(f"{docname}: {source} resolved to two different texts")
    anchors = {}  # each label (or id) of an element that a link points to -> its anchor
    for element in doctree.findall(nodes.Element):
        for anchor in [i for i in element.get("ids", []) if i in here][:1]:
            anchors.update({name: anchor for name in element["names"] + element["ids"]})
    numbers = {kind: {label: ".".join(map(str, number)) for label, number in labels.items()}
               for kind, labels in env.toc_fignumbers.get(docname, {}).items()}
    source = Path(env.doc2path(docname))
    nb = json.loads(source.read_text(encoding="utf-8"))
    resolved = Resolved(xrefs=xrefs, numbers=numbers, glue=stored_glue(nb), anchors=anchors)
    title = env.titles[docname].astext()
    page = f"{site}/{docname}.html" if site else None
    archive = f"{site}/{ARCHIVE_NAME}" if site else None
    reader = reader_notebook(nb, resolved, first_cell(title, page, archive),
                             page_reading_line(Path(app.srcdir), docname))
    out = Path(app.doctreedir) / READER_DIR / f"{docname}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(reader, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def stored_glue(nb: dict) -> dict[str, str]:
    """Key -> the text ``{glue:text}`key``` shows, from the notebook's stored outputs."""
    from myst_nb.core.variables import format_plain_text
    from myst_nb.ext.glue import GLUE_PREFIX

    glue = {}
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            meta = output.get("metadata", {}).get("scrapbook")
            plain = output.get("data", {}).get(f"{GLUE_PREFIX}text/plain")
            if meta and plain is not None:
                glue[meta["name"]] = format_plain_text(
                    "".join(plain) if isinstance(plain, list) else plain, "")
    return glue


def reader_notebooks(app: Sphinx) -> dict[str, Path]:
    """Docname -> the reader edition of every chapter notebook of this build."""
    folder = Path(app.doctreedir) / READER_DIR
    return {d: folder / f"{d}.ipynb" for d in sorted(app.env.found_docs)
            if is_chapter_notebook(app.env, d) and (folder / f"{d}.ipynb").exists()}


def _write_reader_edition(app: Sphinx, exception: Exception | None) -> None:
    """The download button's notebooks (``_sources``) and ``course.zip``, in the reader
    edition; the downloads name the archive's URL when the site's is known."""
    if exception is not None or app.builder.format != "html":
        return
    outdir, notebooks = Path(app.outdir), reader_notebooks(app)
    for docname, path in notebooks.items():
        target = outdir / "_sources" / f"{docname}.ipynb"
        if target.parent.exists():
            target.write_bytes(path.read_bytes())
    where = course_location(app.config)
    name_the_archive_in_downloads(outdir, where)
    write_course_archive(Path(app.srcdir), outdir / ARCHIVE_NAME, where,
                         {f"{ARCHIVE_ROOT}/{d}.ipynb": p.read_bytes()
                          for d, p in notebooks.items()})


def _code_digest() -> str:
    """A digest of the conversion's code: a config value that changes when the code does, so
    that ``make book`` re-converts every chapter after an edit here (Sphinx rebuilds on it)."""
    here = Path(__file__).parent
    return hashlib.sha256(b"".join((here / name).read_bytes() for name in (
        "reader_edition.py", "reader_markdown.py", "course_site/tables.py"))).hexdigest()[:16]


def setup(app: Sphinx) -> dict[str, object]:
    app.add_config_value("reader_edition_code", _code_digest(), "env")
    app.add_post_transform(RecordReferences)
    app.connect("doctree-resolved", _on_doctree_resolved)
    app.connect("build-finished", _write_reader_edition)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
