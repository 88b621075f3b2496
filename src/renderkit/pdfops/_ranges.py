"""Page ranges as people write them: ``1-3,5,8-`` (1-based, inclusive, ``8-`` to the end).

The syntax is checked when a request is built (:func:`range_problem`); the numbers against
the document only once its page count is known (:func:`expand`).
"""

from __future__ import annotations

import re

from renderkit.core.errors import InvalidRequestError

__all__ = ["expand", "range_problem"]

_PART = re.compile(r"\s*(\d{1,7})?\s*(-)?\s*(\d{1,7})?\s*")
_MAX_PARTS = 1000


def _parts(text: str) -> list[tuple[int | None, bool, int | None]]:
    parts = []
    for piece in text.split(","):
        match = _PART.fullmatch(piece)
        if match is None or (match.group(1) is None and match.group(3) is None):
            msg = f"{text[:60]!r} is not a page range (write e.g. 1-3,5,8-)"
            raise ValueError(msg)
        first = int(match.group(1)) if match.group(1) else None
        last = int(match.group(3)) if match.group(3) else None
        if match.group(2) is None and last is not None:  # "3 5": two numbers, no dash
            msg = f"{text[:60]!r} is not a page range (write e.g. 1-3,5,8-)"
            raise ValueError(msg)
        parts.append((first, match.group(2) is not None, last))
    return parts


def range_problem(text: str) -> str | None:
    """Why ``text`` is not a page range, or None (for :func:`renderkit.core.validators.passes`)."""
    if text.count(",") >= _MAX_PARTS:
        return f"must have fewer than {_MAX_PARTS} comma-separated parts"
    try:
        parts = _parts(text)
    except ValueError as exc:
        return str(exc)
    for first, _, last in parts:
        if first == 0 or last == 0:
            return "counts pages from 1"
        if first is not None and last is not None and last < first:
            return f"has a range that runs backwards ({first}-{last})"
    return None


def expand(text: str | None, pages: int, *, field: str) -> list[int]:
    """The 0-based page indexes ``text`` names in a document of ``pages`` pages, in the order
    written (a page named twice appears twice); every page when ``text`` is None.

    Raises:
        InvalidRequestError: on ``field``: a page past the end, or a syntax error.
    """
    if text is None:
        return list(range(pages))
    problem = range_problem(text)
    if problem is not None:
        raise InvalidRequestError.single(field, problem)
    indexes: list[int] = []
    for first, dash, last in _parts(text):
        start = first if first is not None else 1
        stop = (last if last is not None else pages) if dash else start
        if stop > pages or start > pages:
            msg = f"names page {max(start, stop)} but the document has {pages}"
            raise InvalidRequestError.single(field, msg)
        indexes.extend(range(start - 1, stop))
    return indexes
