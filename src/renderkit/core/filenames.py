"""Readable suggested file names for produced files, and the Content-Disposition that carries them.

A result is named after what it shows (``invoice-INV-0042.pdf``, ``og-card-hello-world.png``,
``screenshot-example.com.png``, ``speech-welcome-to-the-show.mp3``) rather than after its
random storage key. The name is computed once, by the capability that renders the file
(:func:`suggested_filename`), stored with the file and served in ``Content-Disposition``.

Names are safe everywhere a file name goes: no path separators, control characters, quotes
or leading dots, at most :data:`MAX_STEM_LENGTH` characters before the extension. Latin text
is folded to ASCII (``Café`` -> ``cafe``); letters of other scripts are kept, so a Japanese
title still names its file, and :func:`content_disposition` adds an ASCII fallback for them.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote, unquote

__all__ = [
    "MAX_STEM_LENGTH",
    "ascii_filename",
    "content_disposition",
    "filename_from_disposition",
    "slug",
    "suggested_filename",
]

#: The longest name before its extension: readable in a file list, far below any
#: filesystem's 255-byte limit even in a multi-byte script.
MAX_STEM_LENGTH = 60

# Anything that is not a letter, digit, dot or hyphen separates words.
_SEPARATORS = re.compile(r"[^\w.-]+|_+")
_HYPHENS = re.compile(r"-{2,}")


def slug(text: str, *, max_length: int = MAX_STEM_LENGTH, keep_case: bool = False) -> str:
    """``text`` as a hyphen-separated file-name part (``""`` when nothing is left).

    Accents are removed from Latin letters; other scripts are kept. Lowercased unless
    ``keep_case`` (identifiers such as ``INV-0042`` read better as written). Cut at a word
    boundary when possible.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    # Drop combining marks (the accents NFKD split off), then recompose what remains.
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    recomposed = unicodedata.normalize("NFC", bare)
    words = _SEPARATORS.sub("-", recomposed if keep_case else recomposed.lower())
    cleaned = _HYPHENS.sub("-", words).strip("-.")
    if len(cleaned) <= max_length:
        return cleaned
    cut = cleaned[:max_length]
    if "-" in cut[max_length // 2 :]:
        cut = cut.rsplit("-", 1)[0]
    return cut.strip("-.")


def suggested_filename(
    prefix: str, subject: str | None, extension: str, *, keep_case: bool = False
) -> str:
    """``<prefix>-<slug of subject>.<extension>``, or ``<prefix>.<extension>`` without one.

    Args:
        prefix: what the file is, usually the template (``invoice``, ``og-card``).
        subject: its main field (an invoice number, a title, a host), if any.
        extension: the file extension, without the dot.
        keep_case: keep the subject's letter case (for identifiers).
    """
    head = slug(prefix) or "renderkit"
    room = MAX_STEM_LENGTH - len(head) - 1
    tail = slug(subject or "", max_length=room, keep_case=keep_case)
    stem = f"{head}-{tail}" if tail else head
    return f"{stem}.{extension}"


def ascii_filename(filename: str) -> str:
    """The name with non-ASCII characters dropped, for the plain ``filename=`` parameter."""
    stem, dot, extension = filename.rpartition(".")
    if not dot:
        stem, extension = filename, ""
    folded = slug(stem.encode("ascii", "ignore").decode(), keep_case=True) or "renderkit"
    return f"{folded}.{extension}" if extension else folded


def content_disposition(filename: str, *, disposition: str = "inline") -> str:
    """A ``Content-Disposition`` value naming the file (RFC 6266).

    ``filename=`` is an ASCII fallback every client understands; when the name has other
    characters, ``filename*=UTF-8''...`` (RFC 8187) carries it whole, and clients that
    understand it prefer it.
    """
    fallback = ascii_filename(filename)
    value = f'{disposition}; filename="{fallback}"'
    if fallback != filename:
        value += f"; filename*=UTF-8''{quote(filename, safe='')}"
    return value


_EXTENDED = re.compile(r"filename\*\s*=\s*UTF-8''([^;\s]+)", re.IGNORECASE)
_PLAIN = re.compile(r'filename\s*=\s*"([^"]*)"', re.IGNORECASE)


def filename_from_disposition(value: str | None) -> str | None:
    """The file name a :func:`content_disposition` value carries (the full one when both)."""
    if not value:
        return None
    extended = _EXTENDED.search(value)
    if extended:
        return unquote(extended.group(1))
    plain = _PLAIN.search(value)
    return plain.group(1) if plain else None
