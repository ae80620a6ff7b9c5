"""Code blocks without the spans of plain tokens.

What it changes, and why: Pygments wraps every token of a code block in a ``<span>``, and the
theme's light and dark styles colour names, punctuation and whitespace (``n``, ``p``, ``w``)
exactly like the block's own text; they are about half of all tokens and a quarter of a
chapter page's HTML. After an HTML build this module gives ``pre`` blocks that colour per theme
in ``pygments.css`` and returns the pattern of the spans it makes redundant; the page pass
unwraps them inside ``<pre>`` blocks. Nothing changes on screen, in either theme.
"""

from __future__ import annotations

import re
from pathlib import Path

_PYGMENTS_RULE = re.compile(
    r'html\[data-theme="(?P<theme>[a-z]+)"\] \.highlight(?: \.(?P<token>[a-zA-Z0-9]+))? '
    r'\{ *(?P<body>[^}]*?) *\}')
_PRE_BLOCK = re.compile(r"<pre>.*?</pre>", re.S)


def plain_code_tokens(pygments_css: str) -> tuple[set[str], dict[str, str]]:
    """Pygments token classes that look exactly like plain code text, and that text colour.

    The theme's Pygments styles give names, punctuation and whitespace (``n``, ``p``, ``w``)
    nothing but the block's own colour, in both themes, and they are about half of all tokens.
    Returns the token classes whose rule is ``color: <the block's colour>`` in every theme,
    and the block's colour per theme.
    """
    base: dict[str, str] = {}
    tokens: dict[str, dict[str, str]] = {}
    for rule in _PYGMENTS_RULE.finditer(pygments_css):
        theme, token, body = rule["theme"], rule["token"], rule["body"].rstrip(";").strip()
        if token is None:
            colour = re.search(r"(?:^|;)\s*color:\s*([^;]+)", body)
            if colour:
                base[theme] = colour[1].strip()
        else:
            tokens.setdefault(token, {})[theme] = body
    plain = {token for token, bodies in tokens.items()
             if base and set(bodies) == set(base)
             and all(bodies[t] == f"color: {base[t]}" for t in base)}
    return plain, base


def unwrap_plain_code_tokens(outdir: Path) -> re.Pattern[str] | None:
    """Give code blocks the colour of plain tokens, so their spans can go (a quarter of a page).

    Adds ``div.highlight pre { color: ... }`` per theme to ``pygments.css`` and returns the
    pattern of the spans that colour then makes redundant, for the page pass to
    unwrap inside ``<pre>`` blocks. Nothing changes on screen.
    """
    css = outdir / "_static" / "pygments.css"
    if not css.exists():
        return None
    text = css.read_text(encoding="utf-8")
    plain, base = plain_code_tokens(text)
    if not plain:
        return None
    marker = "/* course_site: plain code colour */"
    if marker not in text:
        css.write_text(text + "\n" + marker + "\n" + "\n".join(
            f'html[data-theme="{theme}"] div.highlight pre {{ color: {colour} }}'
            for theme, colour in sorted(base.items())) + "\n", encoding="utf-8")
    names = "|".join(sorted(map(re.escape, plain)))
    return re.compile(rf'<span class="(?:{names})">([^<]*)</span>')




def unwrap_spans(html: str, plain_span: re.Pattern[str]) -> str:
    """``html`` with the spans ``plain_span`` matches unwrapped inside its ``<pre>`` blocks."""
    return _PRE_BLOCK.sub(lambda block: plain_span.sub(r"\1", block[0]), html)
