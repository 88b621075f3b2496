"""The file formats renderkit produces or reads: MIME types, file extensions, bitmap size.

Each capability allows its own subset of formats (:func:`media_types`), but what a format is
called, its MIME type and its file extensions are written here once.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath

__all__ = [
    "MAX_PIXELS",
    "MEDIA_TYPES",
    "TEXT_MEDIA_TYPES",
    "format_of_path",
    "media_type_of_path",
    "media_types",
    "same_format",
]

#: Format name -> MIME type, for every format renderkit produces or reads. The name is also
#: the usual file extension.
MEDIA_TYPES: Mapping[str, str] = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
    "pdf": "application/pdf",
    # E-invoices answered as their XML (XRechnung, UBL).
    "xml": "application/xml",
    "mp3": "audio/mpeg",
    "wav": "audio/wav",
    # Opus is written in an Ogg container; AAC as ADTS, which streams from the first byte.
    "opus": "audio/ogg",
    # The same Ogg/Opus under its container's name: ``-o talk.ogg`` names it.
    "ogg": "audio/ogg",
    "aac": "audio/aac",
    # pdf-ops' split answers several PDFs in one archive.
    "zip": "application/zip",
}

#: Text format name -> MIME type, for the text renderkit produces (a page read as Markdown,
#: simple HTML or plain text). Apart from :data:`MEDIA_TYPES`: no capability reads these.
TEXT_MEDIA_TYPES: Mapping[str, str] = {
    "markdown": "text/markdown",
    "html": "text/html",
    "text": "text/plain",
}

# Other extensions in common use for the same formats.
_EXTENSIONS = {"jpg": "jpeg"}

#: The most pixels of one produced bitmap (an image, or a full-page screenshot). Chromium's
#: compositor refuses surfaces much past ~16k pixels a side; beyond a few tens of megapixels
#: a single render also costs hundreds of MB of memory.
MAX_PIXELS = 40_000_000


def media_types(*formats: str) -> dict[str, str]:
    """A capability's formats and their MIME types, in the order given.

    Raises:
        KeyError: for a format renderkit does not know.
    """
    return {name: MEDIA_TYPES[name] for name in formats}


def format_of_path(path: str | PurePath) -> str | None:
    """The format a file name's extension names (``card.JPG`` is ``jpeg``), or None."""
    suffix = PurePath(path).suffix.lower().removeprefix(".")
    name = _EXTENSIONS.get(suffix, suffix)
    return name if name in MEDIA_TYPES else None


def same_format(first: str, second: str) -> bool:
    """Whether two format names are one file format (``ogg`` and ``opus`` are both Ogg/Opus)."""
    return first == second or MEDIA_TYPES.get(first, first) == MEDIA_TYPES.get(second, second)


def media_type_of_path(path: str | PurePath) -> str | None:
    """The MIME type a file name's extension announces (``scan.jpg`` is ``image/jpeg``), or
    None for an extension renderkit does not know."""
    name = format_of_path(path)
    return None if name is None else MEDIA_TYPES[name]
