"""The locale of a built-in PDF document: its labels, its text direction and babel's locale.

Labels live in one small JSON catalogue per language (``labels/<language>.json``, every key in
every file). A locale without a catalogue of its own (``he``, ``pt``...) takes English labels but
still gets its own dates, numbers and direction from babel, so a Hebrew invoice is a
right-to-left page with Hebrew dates even before Hebrew labels exist.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources
from types import MappingProxyType

import attrs
from babel import Locale, UnknownLocaleError

__all__ = [
    "DEFAULT_LOCALE",
    "LABEL_LANGUAGES",
    "DocumentLocale",
    "catalogue",
    "document_locale",
    "parse_locale",
]

DEFAULT_LOCALE = "en"
#: Languages with a label catalogue of their own.
LABEL_LANGUAGES = ("ar", "de", "en", "es", "fr", "ja")
_LABEL_DIR = "labels"


def parse_locale(tag: str) -> Locale:
    """A babel locale from a BCP 47 tag (``de``, ``de-DE``) or a POSIX one (``de_DE``).

    Raises:
        ValueError: the tag is malformed or names no locale babel knows.
    """
    try:
        return Locale.parse(tag.strip().replace("-", "_"))
    except (UnknownLocaleError, ValueError, TypeError) as exc:
        msg = f"{tag[:40]!r} is not a known locale (e.g. en, de-DE, ar, ja)"
        raise ValueError(msg) from exc


@functools.cache
def catalogue(language: str) -> Mapping[str, str]:
    """The labels of a language (English for a language without a catalogue)."""
    name = language if language in LABEL_LANGUAGES else DEFAULT_LOCALE
    path = resources.files("renderkit.pdf").joinpath(f"{_LABEL_DIR}/{name}.json")
    labels: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return MappingProxyType(labels)


@attrs.frozen(kw_only=True)
class DocumentLocale:
    """What a template needs to know about its locale.

    Attributes:
        babel: the babel locale for dates and numbers.
        lang: the BCP 47 tag for the page's ``lang`` attribute (``de-DE``).
        direction: ``ltr`` or ``rtl`` (the page's ``dir`` attribute).
        labels: the translated labels; placeholders in braces (``by {date}``).
    """

    babel: Locale
    lang: str
    direction: str
    labels: Mapping[str, str]

    @property
    def is_default(self) -> bool:
        """Whether this is the plain default locale (``en``), whose dates keep their style."""
        return str(self.babel) == DEFAULT_LOCALE


@functools.lru_cache(maxsize=64)
def document_locale(tag: str = DEFAULT_LOCALE) -> DocumentLocale:
    """The document locale of a tag (see :func:`parse_locale`).

    Raises:
        ValueError: the tag is not a known locale.
    """
    locale = parse_locale(tag)
    rtl = locale.character_order == "right-to-left"
    return DocumentLocale(
        babel=locale,
        lang=str(locale).replace("_", "-"),
        direction="rtl" if rtl else "ltr",
        labels=catalogue(locale.language),
    )
