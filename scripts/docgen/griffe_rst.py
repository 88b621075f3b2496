"""Griffe extension: the docstrings' reStructuredText habits, read as the Markdown MkDocs renders.

renderkit's docstrings are Google style with Sphinx roles (``:class:`~renderkit.X```),
``::`` before literal blocks and grouped entries (``width, height: the size``), which read
well in the source and in ``help()``. mkdocstrings renders Markdown and parses one name per
entry, so, for the site only, a role becomes a code span, ``::`` a colon and a grouped entry
one entry per name.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:class|meth|func|data|mod|attr|exc|obj):`(~?)([^`]+)`")
_GROUPED = re.compile(r"^(?P<indent>\s+)(?P<names>\w+(?:, \w+)+): (?P<text>.*)$")
# "Use it so::" introduces a literal block; Markdown shows the indented block as code anyway.
_LITERAL = re.compile(r"(\S)?\s?::$", re.MULTILINE)
_SECTIONS = ("Args:", "Arguments:", "Attributes:", "Parameters:", "Raises:")


def _role(match: re.Match[str]) -> str:
    target = match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"


def _split_grouped(text: str) -> str:
    lines = text.splitlines()
    out: list[str] = []
    in_section = False
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if stripped and not line.startswith(" "):
            in_section = stripped in _SECTIONS
        match = _GROUPED.match(line) if in_section else None
        if match is None:
            out.append(line)
            index += 1
            continue
        indent = len(match["indent"])
        block = [match["text"]]
        index += 1
        # The entry's continuation lines: non-blank and indented deeper than its name.
        while (
            index < len(lines)
            and lines[index].strip()
            and len(lines[index]) - len(lines[index].lstrip()) > indent
        ):
            block.append(lines[index])
            index += 1
        for name in match["names"].split(", "):
            out.append(f"{match['indent']}{name}: {block[0]}")
            out.extend(block[1:])
    return "\n".join(out)


def to_markdown(text: str) -> str:
    """A docstring with roles as code spans and grouped entries split (see the module doc)."""
    text = _LITERAL.sub(lambda m: f"{m.group(1)}:" if m.group(1) else "", _ROLE.sub(_role, text))
    return _split_grouped(text)


class RstToMarkdown(griffe.Extension):
    """Rewrites each docstring once, when griffe loads its object."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)
