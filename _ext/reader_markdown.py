"""The reader edition of a chapter notebook: its MyST Markdown turned into plain Markdown.

A notebook downloaded from the site, opened from ``course.zip`` or launched on Binder is read in
JupyterLab, which renders CommonMark, math and a little HTML, but no MyST roles or directives.
:func:`reader_notebook` rewrites every Markdown cell so that it reads like the site's page.

MyST is read by MyST's own parser (:func:`parser`: markdown-it-py with mdit-py-plugins, as
``myst_parser`` configures it), the one reader of MyST in the course: :func:`blocks` splits a
text into directives, targets, code fences and prose, :func:`replace_roles` finds the roles of
prose where MyST finds them (never in code or math). ``course_site.tables`` (folded solutions)
and ``assignments/problems.py`` (problem files) read MyST through the same two functions.

* ``{glue:text}`` becomes the stored text (myst-nb's own formatting of the notebook's outputs);
* ``{doc}``, ``{term}``, ``{ref}``, ``{numref}``, ``{prf:ref}`` and ``{cite:p}``/``{cite:t}``
  become the Markdown of what the site shows for that role: ``reader_edition.py`` hands in, for
  each role's source as the doctree holds it (``:name:`content```), the Markdown of the node
  Sphinx resolved it to; targets that a reference of the same chapter points to get an anchor;
* ``prf:`` blocks get the site's header ("Definition 7.2 (Laplace mechanism)"), exercises are
  headings ("### Exercise 7.3"), and every solution is a heading ("#### Solution to Exercise
  7.3") that JupyterLab opens collapsed (``jp-MarkdownHeadingCollapsed``), over cells of its
  own: its Markdown and code cells stay hidden until the reader opens it, also once they ran
  (JupyterLab shows a hidden output again when its cell runs; a folded section stays folded);
* admonitions are quoted blocks under their title (a dropdown one is a ``<details>``);
* code cells tagged ``remove-input`` (they publish numbers to the prose) have their source
  hidden, and their outputs too when these are only glue records; cells tagged ``hide-input``
  or ``hide-output`` have their source or output folded, as the page folds them behind a
  toggle; the chapter's reading time goes under its title; the kernel is the one ipykernel
  installs;
* a first cell names the course, the chapter's page on the site and how to get ``helpers.py``
  and the data.

Code cells and their outputs are not changed (only the metadata of folded cells). Anything the
conversion does not know raises :class:`ReaderEditionError`: a new role or directive must be
taught here rather than reach a reader as raw markup.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from typing import Callable, Iterator

from markdown_it import MarkdownIt

#: ``parse.myst_enable_extensions`` of ``_config.yml`` (a test holds them equal)
MYST_EXTENSIONS = ("amsmath", "colon_fence", "deflist", "dollarmath", "substitution")
#: roles whose target Sphinx resolves (the reader edition gets what the site shows for each)
XREF_ROLES = {"doc", "term", "ref", "numref", "prf:ref", "cite:p", "cite:t"}
ADMONITIONS = {"note", "warning", "tip", "important", "caution", "attention", "danger",
               "error", "hint", "seealso", "admonition"}
#: The kernelspec ipykernel installs (``python -m ipykernel install``, and every venv's
#: ``share/jupyter/kernels/python3``); the reader edition names it exactly.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
EXERCISE_LEVEL, SOLUTION_LEVEL = 3, 4  # heading levels: a solution's section ends at the next
COLLAPSED = "jp-MarkdownHeadingCollapsed"  # JupyterLab's cell metadata of a folded heading


class ReaderEditionError(ValueError):
    """The chapter holds markup the reader edition cannot render."""


# ---------------------------------------------------------------- the parser

def _spanned(rule: Callable, kind: str) -> Callable:
    """An inline rule that also notes where in the text it matched (in ``env["spans"]``)."""
    def spanned(state, silent: bool) -> bool:
        start = state.pos
        if not rule(state, silent):
            return False
        env = state.env
        if not silent and isinstance(env, dict) and state.src == env.get("src"):
            if kind == "role":
                token = state.tokens[-1]
                env["spans"].append((start, state.pos, token.meta["name"], token.content))
            elif state.src[start:state.pos] == "\\$":
                env["spans"].append((start, state.pos, None, "$"))
        return True
    return spanned


@functools.cache
def parser() -> MarkdownIt:
    """MyST's Markdown parser, configured as the site's (``myst_parser``'s own factory), whose
    role and escape rules also note where they matched."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    md = create_md_parser(MdParserConfig(enable_extensions=set(MYST_EXTENSIONS)), RendererHTML)
    rules = {rule.name: rule.fn for rule in md.inline.ruler.__rules__}
    md.inline.ruler.at("myst_role", _spanned(rules["myst_role"], "role"))
    md.inline.ruler.at("escape", _spanned(rules["escape"], "escape"))
    return md


@dataclass
class Block:
    """A top-level block of MyST text.

    ``kind`` is "text" (prose, lists, tables, math: anything else), "directive", "fence" (a
    code block: ``name`` is its info string) or "target" (``(label)=``: ``name`` is the label).
    A directive has its ``name``, argument, options and body (its source, still MyST).
    """

    kind: str
    source: str
    name: str = ""
    arg: str = ""
    options: dict[str, str] = field(default_factory=dict)
    body: str = ""


def _options(content: str) -> tuple[dict[str, str], str]:
    """A directive's leading ``:key: value`` lines, and the body after them."""
    lines, options = content.split("\n"), {}
    while lines and lines[0].startswith(":") and not lines[0].startswith("::"):
        key, colon, value = lines[0][1:].partition(":")
        if not colon or not key or " " in key:
            break
        options[key] = value.strip()
        lines.pop(0)
    return options, "\n".join(lines)


def blocks(source: str) -> list[Block]:
    """The top-level blocks of ``source``, in order; prose between them keeps its lines."""
    lines = source.split("\n")
    out: list[Block] = []
    done = 0

    def prose(until: int) -> None:
        if until > done and "\n".join(lines[done:until]).strip():
            out.append(Block("text", "\n".join(lines[done:until])))

    for token in parser().parse(source):
        if token.level != 0 or not token.map or token.type not in (
                "fence", "colon_fence", "myst_target"):
            continue
        start, end = token.map
        prose(start)
        done = end
        text = "\n".join(lines[start:end])
        if token.type == "myst_target":
            out.append(Block("target", text, name=token.content.strip()))
            continue
        info = token.info.strip()
        closing = lines[end - 1].strip()
        if end - 1 == start or set(closing) != {token.markup[0]} or len(closing) < len(
                token.markup):
            raise ReaderEditionError(f"the block {token.markup}{info} is not closed")
        if not info.startswith("{") or "}" not in info:
            out.append(Block("fence", text, name=info, body=token.content))
            continue
        name, _, arg = info[1:].partition("}")
        options, body = _options(token.content)
        out.append(Block("directive", text, name=name, arg=arg.strip(), options=options,
                         body=body))
    prose(len(lines))
    return out


def _inline(text: str, role: Callable[[str, str], str]) -> str:
    """``text`` (one block's lines) with each role replaced by ``role(name, content)`` and each
    escaped dollar by its entity (JupyterLab finds math before it reads Markdown escapes, so
    "\\$50K ... $t$" would open a formula at the escaped dollar)."""
    env: dict = {"src": text, "spans": []}
    parser().parseInline(text, env)
    pieces, position = [], 0
    for start, end, name, content in sorted(env["spans"]):
        pieces += [text[position:start], "&#36;" if name is None else role(name, content)]
        position = end
    return "".join(pieces + [text[position:]])


def replace_roles(text: str, role: Callable[[str, str], str]) -> str:
    """Prose with each MyST role replaced by ``role(name, content)`` (code and math kept)."""
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    spans = sorted({tuple(t.map) for t in parser().parse(text) if t.type == "inline" and t.map})
    for start, end in reversed(spans):
        lines[start:end] = _inline("\n".join(lines[start:end]), role).split("\n")
    return "\n".join(lines)


def roles(source: str) -> Iterator[tuple[str, str]]:
    """(name, content) of every role of ``source``, directives' titles and bodies included."""
    for block in blocks(source):
        found: list[tuple[str, str]] = []
        if block.kind == "text":
            replace_roles(block.source, lambda name, content: found.append((name, content)) or "")
        elif block.kind == "directive":
            replace_roles(block.arg, lambda name, content: found.append((name, content)) or "")
            found += roles(block.body)
        yield from found


def heading_level(markdown: str) -> int:
    """The level of the highest heading of ``markdown`` (7 if none), as JupyterLab counts."""
    levels = [int(t.tag[1]) for t in parser().parse(markdown) if t.type == "heading_open"]
    return min(levels, default=7)


# ---------------------------------------------------------------- the conversion

def role_source(name: str, content: str) -> str:
    """A role's source as myst-parser hands it to Sphinx (the ``rawsource`` of its node)."""
    return f":{name}:`{content}`"


@dataclass
class Resolved:
    """What the site resolved in one chapter, for the conversion of its Markdown.

    Attributes
    ----------
    xrefs
        Each cross-reference role's source (:func:`role_source`) -> the Markdown of what the
        site shows for it.
    numbers
        Label -> number string of every numbered block ("7.2"), per counter type.
    glue
        Key -> the text ``{glue:text}`` shows on the site.
    anchors
        Label -> the anchor a link of this chapter points to (written where the label is).
    """

    xrefs: dict[str, str] = field(default_factory=dict)
    numbers: dict[str, dict[str, str]] = field(default_factory=dict)
    glue: dict[str, str] = field(default_factory=dict)
    anchors: dict[str, str] = field(default_factory=dict)

    def number(self, kind: str, label: str) -> str:
        try:
            return self.numbers[kind][label]
        except KeyError:
            raise ReaderEditionError(f"no {kind} number for label {label!r}") from None


@dataclass
class _State:
    resolved: Resolved
    solution: str | None = None  # the heading of the gated solution we are inside, if any
    anchor: str = ""  # a target's anchor, for the next block
    used: set[str] = field(default_factory=set)  # role sources converted
    anchored: set[str] = field(default_factory=set)  # anchors written

    def role(self, name: str, content: str) -> str:
        if name == "glue:text":
            if content.strip() not in self.resolved.glue:
                raise ReaderEditionError(f"glue key {content.strip()!r} has no stored text")
            return escape(self.resolved.glue[content.strip()])
        if name not in XREF_ROLES:
            raise ReaderEditionError(f"role {{{name}}} is not handled by the reader edition")
        key = role_source(name, content)
        if key not in self.resolved.xrefs:
            raise ReaderEditionError(f"{{{name}}}`{content}` has no resolved reference")
        self.used.add(key)
        return self.resolved.xrefs[key]

    def anchor_for(self, label: str | None) -> str:
        """An anchor for ``label`` when a link of the chapter points there (else "")."""
        anchors = self.resolved.anchors
        target = label and (anchors.get(label) or anchors.get(label.lower()))
        if not target:
            return ""
        self.anchored.add(target)
        return f'<a id="{target}"></a>'

    def take_anchor(self) -> str:
        anchor, self.anchor = self.anchor, ""
        return anchor


def escape(text: str) -> str:
    """Text shown as it is in Markdown (no emphasis, links, raw HTML or math: a dollar is
    written as its entity, which JupyterLab's math finder does not read as a delimiter)."""
    for char in "\\`*_[]":
        text = text.replace(char, f"\\{char}")
    return text.replace("<", "&lt;").replace("$", "&#36;")


def _details(summary: str, body: str) -> str:
    return f"<details>\n<summary>{summary}</summary>\n\n{body.strip()}\n\n</details>"


def _with_anchor(markdown: str, anchor: str) -> str:
    """``markdown`` with ``anchor`` at the start of its first heading or paragraph."""
    if not anchor:
        return markdown
    head, newline, rest = markdown.partition("\n")
    hashes = len(head) - len(head.lstrip("#"))
    if hashes and head[hashes:hashes + 1] == " ":
        return f"{head[:hashes + 1]}{anchor}{head[hashes + 1:]}{newline}{rest}"
    if head[:1].isalpha():  # a paragraph
        return f"{anchor}{markdown}"
    return f"{anchor}\n\n{markdown}"  # before a list, table, quote, HTML: a line of its own


def _directive(block: Block, state: _State) -> str:
    """The Markdown of a directive other than a solution."""
    name, options = block.name, block.options
    title = replace_roles(block.arg, state.role) if block.arg else ""
    pending, anchor = state.take_anchor(), state.anchor_for(options.get("label"))
    anchor += pending if pending != anchor else ""
    body = _markdown(block.body, state)
    if name == "prf:proof":
        return f"{anchor}*Proof.* {body.strip()}" if body.strip() else f"{anchor}*Proof.*"
    if name.startswith("prf:") or name == "exercise":
        kind = name[4:] if name.startswith("prf:") else "exercise"
        label = options.get("label")
        if not label:
            raise ReaderEditionError(f"{{{name}}} {block.arg!r} has no :label:, so no site "
                                     "number")
        header = f"{kind.title()} {state.resolved.number(kind, label)}"
        if name == "exercise":  # a heading: where the folded solution before it ends
            header = f"{'#' * EXERCISE_LEVEL} {anchor}{header}"
        else:
            header = f"{anchor}**{header}**"
        return f"{header}{f' ({title})' if title else ''}\n\n{body.strip()}"
    if name in ADMONITIONS:
        header = title if name == "admonition" else name.title()
        if "dropdown" in options.get("class", ""):
            return _with_anchor(_details(header, body), anchor)
        # a quoted block, as JupyterLab draws it: set off from the prose like the page's box
        quoted = "\n".join(f"> {line}".rstrip() for line in body.strip().split("\n"))
        return _with_anchor(f"> **{header}**\n>\n{quoted}", anchor)
    raise ReaderEditionError(f"directive {{{name}}} is not handled by the reader edition")


def _block(block: Block, state: _State) -> str:
    if block.kind == "target":
        state.anchor = state.anchor_for(block.name) or state.anchor
        return ""
    if block.kind == "fence":  # a plain code block: copied as it is, roles and all
        return _with_anchor(block.source, state.take_anchor())
    if block.kind == "directive":
        if block.name.startswith("solution"):
            raise ReaderEditionError(f"{{{block.name}}} inside another directive")
        return _directive(block, state)
    text = replace_roles(block.source, state.role).strip("\n")
    return _with_anchor(text, state.take_anchor())


def _markdown(source: str, state: _State) -> str:
    return "\n\n".join(t for t in (_block(b, state) for b in blocks(source)) if t.strip())


def convert_markdown(source: str, resolved: Resolved) -> str:
    """Markdown with no solution in it (a problem's prompt) in the reader edition."""
    return _markdown(source, _State(resolved))


@dataclass
class _Cell:
    texts: list[str] = field(default_factory=list)
    collapsed: bool = False  # a solution's heading: JupyterLab folds the cells under it
    ends_solution: bool = False  # no text: the solution before it ends here


def _convert_cell(source: str, state: _State) -> list[_Cell]:
    """One Markdown cell as reader edition cells (a solution starts and ends cells)."""
    cells = [_Cell()]
    for block in blocks(source):
        if block.kind != "directive" or block.name not in (
                "solution", "solution-start", "solution-end"):
            cells[-1].texts.append(_block(block, state))
            continue
        if block.name == "solution-end":
            if state.solution is None:
                raise ReaderEditionError("a solution-end has no solution-start")
            state.solution = None
            cells += [_Cell(ends_solution=True), _Cell()]
            continue
        if state.solution is not None:
            raise ReaderEditionError(f"{{{block.name}}} inside the solution {state.solution!r}")
        number = state.resolved.number("exercise", block.arg)
        heading = f"{'#' * SOLUTION_LEVEL} Solution to Exercise {number}"
        cells.append(_Cell([heading], collapsed=True))
        if block.name == "solution-start":
            state.solution = heading
            cells.append(_Cell())
        else:
            cells += [_Cell([_markdown(block.body, state)]), _Cell(ends_solution=True), _Cell()]
    return [c for c in cells if c.ends_solution or any(t.strip() for t in c.texts)]


def first_cell(title: str, page_url: str | None, archive_url: str | None) -> str:
    """The reader edition's first cell: the course, the chapter's page, what else is needed."""
    page = (f"This notebook is the chapter [{escape(title)}]({page_url}) of the course "
            f"*Differential Privacy by Running Code*; the page on the website shows the same "
            f"text, numbers and figures." if page_url else
            f"This notebook is the chapter *{escape(title)}* of the course "
            f"*Differential Privacy by Running Code*, as its website shows it.")
    where = (f"[{archive_url}]({archive_url})" if archive_url
             else "`course.zip`, from the course's website")
    return (f"{page}\n\n**To run it** you need the course's shared code (`helpers.py` and the "
            f"`dpcourse/` folder beside it) and its `data/` folder. Opened from `course.zip` or "
            f"on Binder, they are already in place. A notebook downloaded alone stops at its "
            f"first code cell: download the whole course archive, {where}, and open the "
            f"notebook from its `chapters/` folder. Each solution is folded under its heading "
            f"(\"Solution to Exercise ...\"): click the heading's arrow to open it.")


def _is_glue_record(output: dict) -> bool:
    """Whether a stored output is only myst-nb's record of a glued value (no display)."""
    return "scrapbook" in output.get("metadata", {}) and all(
        kind.startswith("application/papermill.record/") for kind in output.get("data", {}))


def _under_title(markdown: str, line: str) -> str:
    """``markdown`` with ``line`` (in italics) as a paragraph right after its first heading."""
    lines = markdown.split("\n")
    for i, text in enumerate(lines):
        if text.startswith("# "):
            return "\n".join(lines[:i + 1] + ["", f"*{escape(line)}*"] + lines[i + 1:])
    raise ReaderEditionError("the chapter has no title (# heading) for its reading time")


def _fold(cell: dict) -> None:
    """Fold what the page folds or does not show, in a code cell's metadata."""
    tags = set(cell.get("metadata", {}).get("tags", []))
    hidden = {}
    if tags & {"hide-input", "remove-input"}:  # the page folds or leaves out the source
        hidden["source_hidden"] = True
    if "hide-output" in tags:  # the page folds the output ("expand to read it")
        hidden["outputs_hidden"] = True
        cell["metadata"]["collapsed"] = True  # the older key, as JupyterLab saves it
    if "remove-input" in tags and all(_is_glue_record(o) for o in cell.get("outputs", [])):
        # nothing to see: JupyterLab has no renderer for a glue record and would say so
        hidden["outputs_hidden"] = True
    if hidden:
        cell["metadata"].setdefault("jupyter", {}).update(hidden)


def reader_notebook(nb: dict, resolved: Resolved, intro: str,
                    reading_time: str | None = None) -> dict:
    """The reader edition of the notebook ``nb`` (a dict in nbformat 4 layout).

    ``reading_time``, when given, goes under the chapter's title, as on the page.
    """
    out = copy.deepcopy(nb)
    state, cells, ended = _State(resolved), [], False
    ids = {cell.get("id") for cell in out["cells"]}
    for cell in out["cells"]:
        if cell["cell_type"] == "code":
            if ended:
                raise ReaderEditionError("a code cell follows a solution before any heading: "
                                         "JupyterLab would fold it into the solution")
            _fold(cell)
            cells.append(cell)
            continue
        if cell["cell_type"] != "markdown":
            cells.append(cell)
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        new = cell  # the cell's first part keeps its id and metadata; the others get new ones
        for part in _convert_cell(source, state):
            if part.ends_solution:
                ended = True
                continue
            text = "\n\n".join(t.strip("\n") for t in part.texts if t.strip())
            if ended and heading_level(text) > SOLUTION_LEVEL:
                raise ReaderEditionError("text after a solution starts no heading, so JupyterLab "
                                         f"would fold it into the solution: {text[:80]!r}")
            ended = False
            if reading_time is not None:
                text, reading_time = _under_title(text, reading_time), None
            if new is None:
                new, number = {"cell_type": "markdown", "metadata": {}}, 2
                while f"{cell.get('id')}-{number}" in ids:
                    number += 1
                if "id" in cell:
                    new["id"] = f"{cell['id']}-{number}"
                    ids.add(new["id"])
            if part.collapsed:
                new["metadata"][COLLAPSED] = True
            new["source"] = text.splitlines(keepends=True)  # as nbformat writes it
            cells.append(new)
            new = None
    unused = set(resolved.xrefs) - state.used
    if unused:
        raise ReaderEditionError(f"resolved references not in the notebook: {sorted(unused)}"
                                 " (the site and the notebook disagree)")
    missing = set(resolved.anchors.values()) - state.anchored
    if missing:
        raise ReaderEditionError(f"no place in the notebook for the anchors {sorted(missing)}")
    if state.solution:
        raise ReaderEditionError("a solution-start has no solution-end")
    cells.insert(0, {"cell_type": "markdown", "id": "reader-edition", "metadata": {},
                     "source": intro.splitlines(keepends=True)})
    out["cells"] = cells
    # the kernel a reader's JupyterLab has (ipykernel's python3): with another display name,
    # JupyterLab rewrites the metadata on opening and marks every notebook as modified
    out.setdefault("metadata", {})["kernelspec"] = dict(KERNELSPEC)
    return out
