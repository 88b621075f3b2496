"""Request and result models for image rendering (POST /api/image semantics)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import attrs

from renderkit.core import validators as v
from renderkit.core.converter import checked
from renderkit.core.errors import FieldError, InvalidRequestError
from renderkit.core.fields import given, ignored_fields, warning_text
from renderkit.core.filenames import suggested_filename
from renderkit.core.media import MAX_PIXELS, media_types
from renderkit.core.results import FileResult
from renderkit.image._templates import STYLE_FIELDS, displayed_fields

__all__ = [
    "IMAGE_FORMATS",
    "IMAGE_TEMPLATES",
    "ImageData",
    "ImageRequest",
    "ImageResult",
    "ImageTemplate",
    "resolve_image_template",
]


@attrs.frozen(kw_only=True)
class ImageTemplate:
    """A named image template and its natural size in CSS pixels."""

    name: str
    width: int
    height: int
    aliases: tuple[str, ...] = ()

    @property
    def fields(self) -> frozenset[str]:
        """The :class:`ImageData` fields this template displays (none for ``custom``, which
        renders its HTML as given); others are reported as warnings, or refused when the
        request is strict."""
        return displayed_fields(self.name)

    @property
    def content_fields(self) -> frozenset[str]:
        """:attr:`fields` without the colour ones: what can fill the template."""
        return self.fields - STYLE_FIELDS


IMAGE_TEMPLATES: tuple[ImageTemplate, ...] = (
    ImageTemplate(name="og-card", width=1200, height=630, aliases=("ogCard",)),
    ImageTemplate(name="social-square", width=1080, height=1080, aliases=("socialSquare",)),
    ImageTemplate(name="twitter-card", width=800, height=418, aliases=("twitterCard",)),
    ImageTemplate(name="announcement", width=1200, height=400, aliases=("announcementBanner",)),
    # Custom HTML: the viewport defaults to the og-card size (variant B).
    ImageTemplate(name="custom", width=1200, height=630),
)
_BY_NAME = {name: t for t in IMAGE_TEMPLATES for name in (t.name, *t.aliases)}

#: Output format -> MIME type.
IMAGE_FORMATS = media_types("png", "jpeg", "webp")
_FORMAT_ALIASES = {"jpg": "jpeg"}

MAX_SIDE = 4096


def resolve_image_template(name: str) -> ImageTemplate:
    """Find a template by either variant's name (``og-card`` or ``ogCard``).

    Raises:
        InvalidRequestError: for an unknown name, listing the valid ones.
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        names = ", ".join(sorted(_BY_NAME))
        raise InvalidRequestError.single(
            "template", f"unknown template {name[:60]!r}; use one of {names}"
        ) from None


def _text(limit: int) -> Any:
    return attrs.field(default=None, validator=v.optional(v.max_length(limit)))


def _color() -> Any:
    return attrs.field(default=None, validator=v.optional(v.css_color()))


@checked
@attrs.frozen(kw_only=True)
class ImageData:
    """Template variables: the union of both interface variants' fields (all optional).

    Attributes:
        title: the headline; long titles shrink to fit, then clamp with an ellipsis. Chinese
            and Japanese break only between phrases (the language is read from the text).
        subtitle: secondary line under the title.
        body: a longer paragraph.
        tag: small label above the title.
        cta: call-to-action text shown as a button; up to about 24 characters (12 Chinese or
            Japanese) fit whole at every size, longer ones end in an ellipsis.
        domain: site name shown in the footer or header.
        brand_color: accent colour: hex, CSS name or rgb()/hsl().
        background_color: overrides the theme's background colour.
        text_color: overrides the theme's text colour.
        background: theme: dark (default), light or gradient.
        logo_url: logo image, an http(s) URL or a data:image/ URL.

    Which template displays which field is :attr:`ImageTemplate.fields`; a field the
    template does not display is ignored with a warning.
    """

    __rk_aliases__: ClassVar[dict[str, str]] = {"cta_text": "cta"}

    title: str | None = _text(500)
    subtitle: str | None = _text(500)
    body: str | None = _text(2_000)
    tag: str | None = _text(80)
    cta: str | None = _text(80)
    domain: str | None = _text(120)
    brand_color: str | None = _color()
    background_color: str | None = _color()
    text_color: str | None = _color()
    background: str | None = attrs.field(
        default=None, validator=v.optional(v.choice(("dark", "light", "gradient")))
    )
    logo_url: str | None = attrs.field(
        default=None, validator=v.optional(v.http_url(allow_data_image=True))
    )


def _normalise_format(value: str) -> str:
    return _FORMAT_ALIASES.get(value.lower(), value.lower()) if isinstance(value, str) else value


@checked
@attrs.frozen(kw_only=True)
class ImageRequest:
    """A request to render an image from a named template or custom HTML.

    Attributes:
        template: ``og-card``/``ogCard``, ``social-square``/``socialSquare``,
            ``twitter-card``/``twitterCard``, ``announcement``/``announcementBanner`` or
            ``custom``. Echoed in the result as sent.
        data: template variables.
        html: the document to render; only (and then necessarily) with ``custom``.
        format: ``png`` (default), ``jpeg`` or ``webp``.
        quality: 1-100 for JPEG and WebP (default 90).
        width, height: CSS pixel size overriding the template's (16-4096).
        scale: device pixel ratio, 1-3 (default 2): a 1200x630 card is returned as 2400x1260.
            Lowered automatically when the output would exceed 40 megapixels.
        cache: server only: false renders again instead of answering from the render cache
            (default true); the library ignores it.
        strict: refuse (rather than warn about) a ``data`` field the template does not
            display, e.g. ``cta`` on og-card (default false).

    A named template given no field it displays besides the colours (no title, logo...)
    renders its background alone, with a warning (refused when strict).
    """

    __rk_schema_extra__: ClassVar[dict[str, Any]] = {
        "if": {"properties": {"template": {"const": "custom"}}, "required": ["template"]},
        "then": {
            "required": ["html"],
            "properties": {"html": {"type": "string", "pattern": "\\S"}},
        },
        "else": {"properties": {"html": {"type": "null"}}},
    }

    template: str = attrs.field(validator=v.choice(sorted(_BY_NAME)))
    data: ImageData = attrs.field(factory=ImageData)
    html: str | None = attrs.field(default=None, validator=v.optional(v.max_length(2_000_000)))
    format: str = attrs.field(
        default="png", converter=_normalise_format, validator=v.choice(IMAGE_FORMATS)
    )
    quality: int = attrs.field(default=90, validator=v.in_range(1, 100))
    width: int | None = attrs.field(default=None, validator=v.optional(v.in_range(16, MAX_SIDE)))
    height: int | None = attrs.field(default=None, validator=v.optional(v.in_range(16, MAX_SIDE)))
    scale: float = attrs.field(default=2.0, validator=v.in_range(1, 3))
    cache: bool = True
    strict: bool = False

    def __attrs_post_init__(self) -> None:
        spec = self.spec
        custom = spec.name == "custom"
        if custom and not (self.html and self.html.strip()):
            raise InvalidRequestError.single(
                "html", "is required when template is custom", missing=True
            )
        if not custom and self.html is not None:
            raise InvalidRequestError.single("html", "is only valid when template is custom")
        if self.strict and self.notices:
            raise InvalidRequestError(self.notices)

    @property
    def ignored_fields(self) -> tuple[FieldError, ...]:
        """The ``data`` fields given that the template does not display."""
        return ignored_fields(self.data, self.spec.fields, template=self.spec.name)

    @property
    def notices(self) -> tuple[FieldError, ...]:
        """What :attr:`warnings` says, as field errors (what a strict request is refused
        with): the ignored fields, and a named template given nothing it displays."""
        spec = self.spec
        content = spec.content_fields
        if spec.name == "custom" or any(given(getattr(self.data, n)) for n in content):
            return self.ignored_fields
        shown = ", ".join(sorted(content - {"title"}))
        blank = FieldError(
            field="data.title",
            message=f"{spec.name} shows only its background without a title or another "
            f"field it displays ({shown})",
            missing=True,
        )
        return (*self.ignored_fields, blank)

    @property
    def warnings(self) -> tuple[str, ...]:
        """One line per ignored field (``data.cta: og-card does not display cta; it was
        ignored``), and one when the card would show nothing but its background."""
        return tuple(str(e) if e.missing else warning_text(e) for e in self.notices)

    @property
    def spec(self) -> ImageTemplate:
        """The resolved template."""
        return resolve_image_template(self.template)

    @property
    def effective_scale(self) -> float:
        """``scale``, lowered (to two decimals) so the output stays within 40 megapixels."""
        w, h = self.size
        if w * h * self.scale**2 <= MAX_PIXELS:
            return self.scale
        return math.floor(math.sqrt(MAX_PIXELS / (w * h)) * 100) / 100

    @property
    def size(self) -> tuple[int, int]:
        """The CSS pixel size to render (template size unless overridden)."""
        spec = self.spec
        return (self.width or spec.width, self.height or spec.height)

    @property
    def suggested_filename(self) -> str:
        """A readable name for the file: ``og-card-<title>.png``, ``image.png`` for custom."""
        if self.spec.name == "custom":
            return suggested_filename("image", None, self.format)
        return suggested_filename(self.spec.name, self.data.title, self.format)


@attrs.frozen(kw_only=True)
class ImageResult(FileResult):
    """A rendered image.

    Attributes:
        content: the encoded file.
        format: ``png``, ``jpeg`` or ``webp``.
        width, height: pixel size of the file (CSS size x scale).
        template: the template name as requested.
        filename: a readable suggested file name (``og-card-hello.png``), see
            :mod:`renderkit.core.filenames`.
        key, url: where the file was stored, when a storage backend was given.
        warnings: ``data`` fields the template does not display, one line each (see
            :attr:`ImageRequest.warnings`).
    """

    content: bytes = attrs.field(repr=False)
    format: str
    width: int
    height: int
    template: str
    filename: str = attrs.field(
        default=attrs.Factory(lambda self: f"{self.template}.{self.format}", takes_self=True)
    )
    key: str | None = None
    url: str | None = None
    warnings: tuple[str, ...] = ()
