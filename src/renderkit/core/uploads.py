"""Uploaded files sent as base64 in a JSON body, decoded within a byte ceiling.

Shared by ``parse`` (its ``file``) and ``pdfops`` (each input's ``file``): the length is
compared with the ceiling before anything is decoded.
"""

from __future__ import annotations

import base64
import binascii

from renderkit.core.errors import InvalidRequestError

__all__ = ["decode_file", "size_text"]


def size_text(n: int) -> str:
    """``20 MB`` or ``1,024 bytes``: a byte count as messages print it."""
    return f"{n / 1_000_000:g} MB" if n >= 1_000_000 else f"{n:,} bytes"


def decode_file(value: str, *, max_bytes: int, field: str = "file") -> bytes:
    """Decode a base64 upload field, ``file`` unless told (standard or URL-safe alphabet,
    optional ``data:`` URL prefix, whitespace ignored).

    Raises:
        InvalidRequestError: on ``field``: not base64, empty, or over ``max_bytes``.
    """
    text = value.strip()
    if text.startswith("data:") and "," in text[:200]:
        text = text.split(",", 1)[1]
    if len(text) // 4 * 3 > max_bytes + max_bytes // 50 + 1024:
        # Refuse before decoding (whitespace could make this estimate high, hence the slack).
        msg = f"is larger than the {size_text(max_bytes)} limit"
        raise InvalidRequestError.single(field, msg)
    compact = "".join(text.split())
    if "-" in compact or "_" in compact:
        compact = compact.replace("-", "+").replace("_", "/")
    compact += "=" * (-len(compact) % 4)
    try:
        content = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        msg = "is not valid base64"
        raise InvalidRequestError.single(field, msg) from None
    if not content:
        msg = "is empty"
        raise InvalidRequestError.single(field, msg)
    if len(content) > max_bytes:
        msg = f"is larger than the {size_text(max_bytes)} limit ({size_text(len(content))})"
        raise InvalidRequestError.single(field, msg)
    return content
