"""The reader edition of a chapter notebook: its MyST Markdown turned into plain Markdown.

A notebook downloaded from the site, opened from ``course.zip`` or launched on Binder is read in
JupyterLab, which renders CommonMark, math and a little HTML, but no MyST roles or directives.
:func:`reader_notebook` rewrites every Markdown cell so that it reads like the site's page:

* ``{glue:text}`` becomes the stored text (myst-nb's own formatting of the notebook's outputs);
* ``{doc}``, ``{term}``, ``{ref}``, ``{numref}``, ``{prf:ref}`` and ``{cite:p}``/``{cite:t}``
  become the Markdown of what the site shows (numbers, titles, "[Author, Year]" citations),
  computed by Sphinx from the resolved doctree (``reader_edition.py``) and handed in, in order;
* ``prf:`` blocks and exercises get the site's header ("Definition 7.2 (Laplace mechanism)",
  "Exercise 7.3"), solutions go into ``<details>`` and the code cells of a solution are marked
  hidden (``jupyter.source_hidden`` and ``outputs_hidden``), so they stay collapsed until clicked;
* code cells tagged ``remove-input`` (they publish numbers to the prose) have their source
  hidden, as the page does not show it, and their outputs too when these are only glue records;
  cells tagged ``hide-output`` have their output folded, as the page folds it behind a toggle;
  the chapter's reading time goes under its title;
* a first cell names the course, the chapter's page on the site and how to get ``helpers.py``
  and the data.

Code cells and their outputs are not changed (only the metadata of solution and `remove-input` cells).
Anything the conversion does not know raises :class:`ReaderEditionError`: a new role or
directive must be taught here rather than reach a reader as raw markup.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

#: role name -> (Sphinx domain, role type) of the pending cross-reference it creates
XREF_ROLES = {
    "doc": ("std", "doc"), "term": ("std", "term"), "ref": ("std", "ref"),
    "numref": ("std", "numref"), "prf:ref": ("prf", "ref"), "cite:p": ("cite", "p"),
    "cite:t": ("cite", "t"),
}
ADMONITIONS = {"note", "warning", "tip", "important", "caution", "attention", "danger",
               "error", "hint", "seealso", "admonition"}
#: The kernelspec ipykernel installs (``python -m ipykernel install``, and every venv's
#: ``share/jupyter/kernels/python3``); the reader edition names it exactly.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
_ROLE_OR_CODE = re.compile(r"\{(?P<role>[a-z][\w:-]*)\}`(?P<body>[^`]+)`|(?P<tick>`+)(?:.|\n)*?(?P=tick)")
_FENCE = re.compile(r"^(?P<mark>:{3,}|`{3,})\{(?P<name>[\w:-]+)\}[ \t]*(?P<arg>.*)$")
_CODE_FENCE = re.compile(r"^(?P<mark>`{3,}|~{3,})(?!\{)")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):[ \t]*(?P<value>.*)$")
_TARGET = re.compile(r"^\((?P<label>[^()\s]+)\)=[ \t]*$")


class ReaderEditionError(ValueError):
    """The chapter holds markup the reader edition cannot render."""


@dataclass
class Resolved:
    """What the site resolved in one chapter, for the conversion of its Markdown.

    Attributes
    ----------
    xrefs
        ``(domain, type, target, markdown)`` of every cross-reference role, in document order.
    numbers
        Label -> number string of every numbered block ("7.2"), per counter type.
    glue
        Key -> the text ``{glue:text}`` shows on the site.
    """

    xrefs: list[tuple[str, str, str, str]] = field(default_factory=list)
    numbers: dict[str, dict[str, str]] = field(default_factory=dict)
    glue: dict[str, str] = field(default_factory=dict)

    def number(self, kind: str, label: str) -> str:
        try:
            return self.numbers[kind][label]
        except KeyError:
            raise ReaderEditionError(f"no {kind} number for label {label!r}") from None


def _target(body: str) -> str:
    match = re.search(r"<([^<>]+)>\s*$", body)
    return (match.group(1) if match else body).strip()


class _Roles:
    """Replaces roles in document order, consuming the resolved cross-references."""

    def __init__(self, resolved: Resolved):
        self.resolved = resolved
        self.position = 0

    def __call__(self, text: str) -> str:
        def replace(match: re.Match) -> str:
            role, body = match.group("role"), match.group("body")
            if role is None:  # an inline code span: left as it is
                return match.group(0)
            if role == "glue:text":
                key = body.strip()
                if key not in self.resolved.glue:
                    raise ReaderEditionError(f"glue key {key!r} has no stored text")
                return escape(self.resolved.glue[key])
            if role not in XREF_ROLES:
                raise ReaderEditionError(f"role {{{role}}} is not handled by the reader edition")
            if self.position >= len(self.resolved.xrefs):
                raise ReaderEditionError(f"{{{role}}}`{body}` has no resolved reference")
            domain, kind, target, markdown = self.resolved.xrefs[self.position]
            self.position += 1
            wanted = _target(body).lower()
            if (domain, kind) != XREF_ROLES[role] or not (
                    wanted in target.lower() or target.lower().endswith(wanted.split("/")[-1])):
                raise ReaderEditionError(
                    f"{{{role}}}`{body}` met the resolved reference {domain}:{kind} {target!r}")
            return markdown
        # JupyterLab finds math before Markdown escapes: "\$50K ... $t$" would open a formula
        # at the escaped dollar, so outside code a literal dollar is written as its entity
        pieces, position = [], 0
        for match in _ROLE_OR_CODE.finditer(text):
            pieces += [text[position:match.start()].replace("\\$", "&#36;"), replace(match)]
            position = match.end()
        return "".join(pieces + [text[position:].replace("\\$", "&#36;")])


def escape(text: str) -> str:
    """Text shown as it is in Markdown (no emphasis, links, raw HTML or math: a dollar is
    written as its entity, which JupyterLab's math finder does not read as a delimiter)."""
    text = re.sub(r"([\\`*_\[\]])", r"\\\1", text)
    return text.replace("<", "&lt;").replace("$", "&#36;")


@dataclass
class _State:
    solution: str | None = None  # the summary of the gated solution we are inside, if any
    shown: set[str] = field(default_factory=set)  # solution summaries already written


def _parse_fence(lines: list[str], start: int) -> tuple[str, str, dict[str, str], list[str], int]:
    """(name, argument, options, body lines, index after the closing fence) of a directive."""
    opening = _FENCE.match(lines[start])
    mark, name, arg = opening.group("mark"), opening.group("name"), opening.group("arg").strip()
    options: dict[str, str] = {}
    i = start + 1
    while i < len(lines) and _OPTION.match(lines[i]):
        option = _OPTION.match(lines[i])
        options[option.group("key")] = option.group("value").strip()
        i += 1
    body, depth = [], 0
    while i < len(lines):
        line = lines[i]
        inner = _FENCE.match(line)
        if inner and inner.group("mark")[0] == mark[0] and len(inner.group("mark")) >= len(mark):
            depth += 1
        elif line.strip() and set(line.strip()) == {mark[0]} and len(line.strip()) >= len(mark):
            if depth == 0:
                return name, arg, options, body, i + 1
            depth -= 1
        body.append(line)
        i += 1
    raise ReaderEditionError(f"directive {{{name}}} is not closed")


def _details(summary: str, body: str) -> str:
    return f"<details>\n<summary>{summary}</summary>\n\n{body.strip()}\n\n</details>"


def _render(name: str, arg: str, title: str, options: dict[str, str], body: str,
            resolved: Resolved) -> str:
    """The Markdown of one directive whose title and body are already converted."""
    if name == "prf:proof":
        return f"*Proof.* {body.strip()}" if body.strip() else "*Proof.*"
    if name.startswith("prf:"):
        kind = name[4:]
        label = options.get("label")
        if not label:
            raise ReaderEditionError(f"{{{name}}} {arg!r} has no :label:, so no site number")
        header = f"**{kind.title()} {resolved.number(kind, label)}**"
        return f"{header}{f' ({title})' if title else ''}\n\n{body.strip()}"
    if name == "exercise":
        label = options.get("label")
        if not label:
            raise ReaderEditionError(f"exercise {arg!r} has no :label:")
        header = f"**Exercise {resolved.number('exercise', label)}**"
        return f"{header}{f' ({title})' if title else ''}\n\n{body.strip()}"
    if name == "solution":
        summary = f"Solution to Exercise {resolved.number('exercise', arg)}"
        return _details(summary, body)
    if name in ADMONITIONS:
        header = title if name == "admonition" else name.title()
        if "dropdown" in options.get("class", ""):
            return _details(header, body)
        # a quoted block, as JupyterLab draws it: set off from the prose like the page's box
        quoted = "\n".join(f"> {line}".rstrip() for line in body.strip().split("\n"))
        return f"> **{header}**\n>\n{quoted}"
    raise ReaderEditionError(f"directive {{{name}}} is not handled by the reader edition")


def _convert_text(lines: list[str], resolved: Resolved, state: _State, roles: _Roles,
                  pieces: list[tuple[str | None, str]]) -> None:
    """Convert ``lines``; append (gated solution summary or None, Markdown) pieces."""
    out: list[str] = []

    def flush() -> None:
        if out:
            pieces.append((state.solution, roles("\n".join(out))))
            out.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        code = _CODE_FENCE.match(line)
        if code:  # a plain code block: copied as it is, roles and all
            end = i + 1
            while end < len(lines) and not lines[end].startswith(code.group("mark")):
                end += 1
            flush()
            pieces.append((state.solution, "\n".join(lines[i:end + 1])))
            i = end + 1
            continue
        if _TARGET.match(line):  # "(label)=": the site's anchor, nothing to show
            i += 1
            continue
        if _FENCE.match(line):
            name, arg, options, body, after = _parse_fence(lines, i)
            flush()
            if name == "solution-start":
                state.solution = f"Solution to Exercise {resolved.number('exercise', arg)}"
            elif name == "solution-end":
                state.solution = None
            else:
                # the title comes before the body in the document, and so do its roles
                title = roles(arg) if arg and not name.startswith("solution") else ""
                inner: list[tuple[str | None, str]] = []
                outer, state.solution = state.solution, None
                _convert_text(body, resolved, state, roles, inner)
                state.solution = outer
                text = "\n\n".join(piece for _, piece in inner if piece.strip())
                pieces.append((state.solution, _render(name, arg, title, options, text,
                                                       resolved)))
            i = after
            continue
        out.append(line)
        i += 1
    flush()


def convert_markdown(source: str, resolved: Resolved, state: _State, roles: _Roles) -> str:
    """One Markdown cell in the reader edition ("" when nothing is left to show)."""
    pieces: list[tuple[str | None, str]] = []
    _convert_text(source.split("\n"), resolved, state, roles, pieces)
    blocks: list[tuple[str | None, str]] = []  # consecutive pieces of one solution: one block
    for summary, text in pieces:
        if not text.strip():
            continue
        if blocks and summary and blocks[-1][0] == summary:
            blocks[-1] = (summary, f"{blocks[-1][1]}\n\n{text.strip(chr(10))}")
        else:
            blocks.append((summary, text.strip("\n")))
    out = []
    for summary, text in blocks:
        if summary:  # the solution's first block names it; a later cell of it continues
            out.append(_details(summary if summary not in state.shown else
                                "Solution, continued", text))
            state.shown.add(summary)
        else:
            out.append(text)
    return "\n\n".join(out)


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
            f"notebook from its `chapters/` folder. Solutions are collapsed: click to open "
            f"them.")


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


def reader_notebook(nb: dict, resolved: Resolved, intro: str,
                    reading_time: str | None = None) -> dict:
    """The reader edition of the notebook ``nb`` (a dict in nbformat 4 layout).

    ``reading_time``, when given, goes under the chapter's title, as on the page. Code cells
    tagged ``remove-input`` (they only publish numbers to the prose; the page does not show
    them) have their source hidden, as solution code cells have.
    """
    out = copy.deepcopy(nb)
    roles, state, cells = _Roles(resolved), _State(), []
    for cell in out["cells"]:
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            text = convert_markdown(source, resolved, state, roles)
            if not text.strip():
                continue
            if reading_time is not None:
                text, reading_time = _under_title(text, reading_time), None
            cell["source"] = text.splitlines(keepends=True)  # as nbformat writes it
        elif cell["cell_type"] == "code" and state.solution:
            metadata = cell.setdefault("metadata", {})
            metadata.setdefault("jupyter", {}).update(source_hidden=True, outputs_hidden=True)
            metadata["collapsed"] = True  # the older key for hidden outputs, as JupyterLab saves it
        elif cell["cell_type"] == "code" and "hide-output" in cell.get("metadata", {}).get(
                "tags", []):
            # the page folds this output behind a toggle ("expand to read it"): so does the
            # notebook, with JupyterLab's own folding
            cell["metadata"].setdefault("jupyter", {}).update(outputs_hidden=True)
            cell["metadata"]["collapsed"] = True
        elif cell["cell_type"] == "code" and "remove-input" in cell.get("metadata", {}).get(
                "tags", []):
            hidden = {"source_hidden": True}
            if all(_is_glue_record(output) for output in cell.get("outputs", [])):
                # nothing to see: JupyterLab has no renderer for a glue record and would say so
                hidden["outputs_hidden"] = True
            cell["metadata"].setdefault("jupyter", {}).update(hidden)
        cells.append(cell)
    if roles.position != len(resolved.xrefs):
        raise ReaderEditionError(f"{len(resolved.xrefs) - roles.position} resolved references "
                                 "were not used: the site and the notebook disagree")
    if state.solution:
        raise ReaderEditionError("a solution-start has no solution-end")
    cells.insert(0, {"cell_type": "markdown", "id": "reader-edition", "metadata": {},
                     "source": intro.splitlines(keepends=True)})
    out["cells"] = cells
    # the kernel a reader's JupyterLab has (ipykernel's python3): with another display name,
    # JupyterLab rewrites the metadata on opening and marks every notebook as modified
    out.setdefault("metadata", {})["kernelspec"] = dict(KERNELSPEC)
    return out
