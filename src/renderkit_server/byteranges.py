"""HTTP ``Range`` requests (RFC 9110 section 14) for served files: one range per request.

Browsers seek audio and video with single ranges (``bytes=1000-``); multi-range requests
would need a ``multipart/byteranges`` body, so they are answered with the whole file (200),
which the RFC allows.
"""

from __future__ import annotations

import re

__all__ = ["RangeNotSatisfiableError", "parse_range"]

_SINGLE = re.compile(r"bytes=(\d*)-(\d*)")


class RangeNotSatisfiableError(ValueError):
    """The range is well formed but lies beyond the end of the file (HTTP 416)."""


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The inclusive byte span ``Range`` asks for, or None to send the whole file.

    Args:
        header: the ``Range`` header, if any.
        size: the file's length in bytes.

    Returns:
        ``(first, last)``, both inclusive and within the file; None when there is no header
        or it is not a single byte range this function understands (ignored, as RFC 9110
        permits).

    Raises:
        RangeNotSatisfiableError: the range starts at or after the end of the file, or asks
            for the last 0 bytes.
    """
    if header is None:
        return None
    match = _SINGLE.fullmatch(header.strip().replace(" ", ""))
    if match is None:
        return None
    first_text, last_text = match.groups()
    if not first_text:
        if not last_text:
            return None  # "bytes=-" is malformed: ignore it
        suffix = int(last_text)
        if suffix == 0 or size == 0:
            msg = "the range selects no bytes"
            raise RangeNotSatisfiableError(msg)
        return max(0, size - suffix), size - 1
    first = int(first_text)
    if last_text and int(last_text) < first:
        return None  # an invalid range is ignored, not refused
    if first >= size:
        msg = "the range starts after the end of the file"
        raise RangeNotSatisfiableError(msg)
    return first, min(int(last_text), size - 1) if last_text else size - 1
