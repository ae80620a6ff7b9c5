"""A stylesheet pruned to the rules some page can use (:mod:`.icons` prunes the theme's).

pydata-sphinx-theme's stylesheet carries all of Bootstrap: about 240 kB of each first visit was
rules for components no page of the course has. :func:`prune_css` removes the selectors that
need a class or an id which appears nowhere in the site's HTML and JavaScript. What the browser
draws does not change: a removed selector could match nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

_CSS_CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
_CSS_ID = re.compile(r"#(-?[_a-zA-Z][\w-]*)")
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
    plain = re.sub(r"\[[^\]]*\]", "", selector)  # attribute selectors: [href=".x"] names no class
    return all(name in used for name in _CSS_CLASS.findall(plain) + _CSS_ID.findall(plain))


def prune_css(css: str, used: set[str]) -> str:
    """Drop the selectors of ``css`` that need a class or an id no page or script mentions.

    A selector such as ``.modal .btn-close`` can only match an element carrying every class it
    names (``#main p``: an element with that id), so if one of those names appears nowhere in
    the HTML and JavaScript (``used`` holds every word found there, which also covers classes
    that scripts add at run time), the selector is dead. Rules left with no selector go, and so do ``@media``/``@supports``
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


def words(text: str) -> set[str]:
    """Every word of an HTML page or a script that could be a class or an id."""
    return set(_WORD.findall(text))
