"""attrs validators that raise :class:`InvalidRequestError` naming the field.

Each validator is a small frozen class plus a public factory, the way attrs builds its own.
When a model is nested (``ImageRequest.data``), the converter prefixes the parent path, so a
bad colour is reported as ``data.brand_color``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

import attrs

from renderkit.core.colors import HEX_COLOR as _HEX
from renderkit.core.errors import InvalidRequestError

__all__ = [
    "choice",
    "css_color",
    "currency_code",
    "http_url",
    "in_range",
    "locale_tag",
    "max_items",
    "max_length",
    "optional",
    "passes",
]

# Only forms that can never break out of a CSS declaration: user colours end up inside
# style attributes, so anything looser than this would be a CSS-injection vector.
_NUM = r"\s*-?(?:\d+(?:\.\d+)?|\.\d+)(?:%|deg)?\s*"
_FUNC = re.compile(rf"(?:rgba?|hsla?)\((?:{_NUM},){{2}}{_NUM}(?:,{_NUM})?\)", re.IGNORECASE)
_FUNC_SPACE = re.compile(rf"(?:rgba?|hsla?)\({_NUM}{_NUM}{_NUM}(?:/{_NUM})?\)", re.IGNORECASE)

CSS_NAMED_COLORS = frozenset(
    [
        "aliceblue",
        "antiquewhite",
        "aqua",
        "aquamarine",
        "azure",
        "beige",
        "bisque",
        "black",
        "blanchedalmond",
        "blue",
        "blueviolet",
        "brown",
        "burlywood",
        "cadetblue",
        "chartreuse",
        "chocolate",
        "coral",
        "cornflowerblue",
        "cornsilk",
        "crimson",
        "cyan",
        "darkblue",
        "darkcyan",
        "darkgoldenrod",
        "darkgray",
        "darkgreen",
        "darkgrey",
        "darkkhaki",
        "darkmagenta",
        "darkolivegreen",
        "darkorange",
        "darkorchid",
        "darkred",
        "darksalmon",
        "darkseagreen",
        "darkslateblue",
        "darkslategray",
        "darkslategrey",
        "darkturquoise",
        "darkviolet",
        "deeppink",
        "deepskyblue",
        "dimgray",
        "dimgrey",
        "dodgerblue",
        "firebrick",
        "floralwhite",
        "forestgreen",
        "fuchsia",
        "gainsboro",
        "ghostwhite",
        "gold",
        "goldenrod",
        "gray",
        "green",
        "greenyellow",
        "grey",
        "honeydew",
        "hotpink",
        "indianred",
        "indigo",
        "ivory",
        "khaki",
        "lavender",
        "lavenderblush",
        "lawngreen",
        "lemonchiffon",
        "lightblue",
        "lightcoral",
        "lightcyan",
        "lightgoldenrodyellow",
        "lightgray",
        "lightgreen",
        "lightgrey",
        "lightpink",
        "lightsalmon",
        "lightseagreen",
        "lightskyblue",
        "lightslategray",
        "lightslategrey",
        "lightsteelblue",
        "lightyellow",
        "lime",
        "limegreen",
        "linen",
        "magenta",
        "maroon",
        "mediumaquamarine",
        "mediumblue",
        "mediumorchid",
        "mediumpurple",
        "mediumseagreen",
        "mediumslateblue",
        "mediumspringgreen",
        "mediumturquoise",
        "mediumvioletred",
        "midnightblue",
        "mintcream",
        "mistyrose",
        "moccasin",
        "navajowhite",
        "navy",
        "oldlace",
        "olive",
        "olivedrab",
        "orange",
        "orangered",
        "orchid",
        "palegoldenrod",
        "palegreen",
        "paleturquoise",
        "palevioletred",
        "papayawhip",
        "peachpuff",
        "peru",
        "pink",
        "plum",
        "powderblue",
        "purple",
        "rebeccapurple",
        "red",
        "rosybrown",
        "royalblue",
        "saddlebrown",
        "salmon",
        "sandybrown",
        "seagreen",
        "seashell",
        "sienna",
        "silver",
        "skyblue",
        "slateblue",
        "slategray",
        "slategrey",
        "snow",
        "springgreen",
        "steelblue",
        "tan",
        "teal",
        "thistle",
        "tomato",
        "turquoise",
        "violet",
        "wheat",
        "white",
        "whitesmoke",
        "yellow",
        "yellowgreen",
        "transparent",
    ]
)


def is_css_color(value: str) -> bool:
    """True for hex colours, CSS named colours and rgb()/hsl() functions."""
    value = value.strip()
    return bool(
        _HEX.fullmatch(value)
        or value.lower() in CSS_NAMED_COLORS
        or _FUNC.fullmatch(value)
        or _FUNC_SPACE.fullmatch(value)
    )


def _fail(attribute: attrs.Attribute[Any], message: str) -> None:
    raise InvalidRequestError.single(attribute.alias or attribute.name, message)


@attrs.frozen
class _Optional:
    inner: Any

    def __call__(self, inst: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if value is not None:
            self.inner(inst, attribute, value)


def optional(validator: Any) -> Any:
    """Run ``validator`` only when the value is not None."""
    return _Optional(validator)


@attrs.frozen
class _CssColor:
    def __call__(self, inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
        if not is_css_color(value):
            _fail(attribute, f"{value[:40]!r} is not a colour (use #rrggbb, a CSS name or rgb())")


def css_color() -> Any:
    """Accept a colour that is safe to place in CSS."""
    return _CssColor()


@attrs.frozen
class _HttpUrl:
    allow_data_image: bool

    def __call__(self, inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
        if len(value) > 2_000_000:
            _fail(attribute, "is too long")
        if self.allow_data_image and value.startswith("data:image/"):
            return
        try:
            parts = urlsplit(value)
            valid = parts.scheme in ("http", "https") and bool(parts.hostname)
        except ValueError:  # e.g. an unbalanced "[" in the host
            valid = False
        if not valid:
            allowed = "an http(s) URL" + (" or a data:image/ URL" if self.allow_data_image else "")
            _fail(attribute, f"must be {allowed}")


def http_url(*, allow_data_image: bool = False) -> Any:
    """Accept an absolute http(s) URL (and optionally an inline ``data:image/`` URL)."""
    return _HttpUrl(allow_data_image)


@attrs.frozen
class _InRange:
    low: float
    high: float

    def __call__(self, inst: object, attribute: attrs.Attribute[Any], value: float) -> None:
        if not self.low <= value <= self.high:
            low, high, got = (_number(v) for v in (self.low, self.high, value))
            _fail(attribute, f"must be between {low} and {high} (got {got})")


def _number(value: float) -> str:
    if isinstance(value, int):
        text = f"{value:,}"
        # A 400-digit integer is not worth echoing in full.
        return text if len(text) <= 24 else f"{text[:12]}…"
    return f"{int(value):,}" if value.is_integer() else f"{value:g}"


def in_range(low: float, high: float) -> Any:
    """Accept numbers in the closed interval [low, high]."""
    return _InRange(low, high)


@attrs.frozen
class _MaxLength:
    limit: int

    def __call__(self, inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
        if len(value) > self.limit:
            _fail(attribute, f"must be at most {self.limit:,} characters (got {len(value):,})")


def max_length(limit: int) -> Any:
    """Accept strings of at most ``limit`` characters."""
    return _MaxLength(limit)


@attrs.frozen
class _Choice:
    options: tuple[str, ...]

    def __call__(self, inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
        if value not in self.options:
            _fail(attribute, f"must be one of {', '.join(self.options)} (got {value[:40]!r})")


@attrs.frozen
class _MaxItems:
    limit: int
    noun: str

    def __call__(self, inst: object, attribute: attrs.Attribute[Any], value: list[Any]) -> None:
        if len(value) > self.limit:
            _fail(attribute, f"at most {self.limit:,} {self.noun} (got {len(value):,})")


def max_items(limit: int, *, noun: str = "items") -> Any:
    """Accept lists of at most ``limit`` elements (``noun`` names them in the message)."""
    return _MaxItems(limit, noun)


def choice(options: Iterable[str]) -> Any:
    """Accept one of ``options``."""
    return _Choice(tuple(options))


@attrs.frozen
class _CurrencyCode:
    def __call__(self, inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
        if value not in currency_codes():
            _fail(attribute, f"{value[:12]!r} is not an ISO 4217 currency code (e.g. USD, EUR)")


@functools.cache
def currency_codes() -> tuple[str, ...]:
    """Every ISO 4217 code babel knows (current and historic), sorted."""
    from babel.numbers import list_currencies

    return tuple(sorted(list_currencies()))


def currency_code() -> Any:
    """Accept an ISO 4217 currency code (upper case: convert first to be lenient)."""
    return _CurrencyCode()


@attrs.frozen
class _LocaleTag:
    def __call__(self, inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
        from babel import Locale, UnknownLocaleError

        try:
            Locale.parse(value.strip().replace("-", "_"))
        except (UnknownLocaleError, ValueError, TypeError):
            _fail(attribute, f"{value[:40]!r} is not a known locale (e.g. en, de-DE, ar, ja)")


def locale_tag() -> Any:
    """Accept a locale babel knows, as a BCP 47 (``de-DE``) or POSIX (``de_DE``) tag."""
    return _LocaleTag()


@attrs.frozen
class _Passes:
    problem: Callable[[str], str | None]

    def __call__(self, inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
        if (message := self.problem(value)) is not None:
            _fail(attribute, message)


def passes(problem: Callable[[str], str | None]) -> Any:
    """Accept values for which ``problem(value)`` is None; its text is the error otherwise."""
    return _Passes(problem)
