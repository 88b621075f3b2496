"""The request, limits and result of :func:`renderkit.pdfops.pdf_ops`.

One request names its input PDFs and the steps wanted; the steps always run in the order
listed in :class:`PdfOpsRequest` whatever order the JSON gives them (as in a Gotenberg PDF
engines request), so a request reads as a description of the document wanted, not a program.
"""

from __future__ import annotations

import io
import zipfile
from datetime import datetime
from typing import Any

import attrs

from renderkit.core.converter import checked
from renderkit.core.errors import ConfigurationError, InvalidRequestError
from renderkit.core.results import FileResult
from renderkit.core.validators import (
    choice,
    css_color,
    in_range,
    max_items,
    max_length,
    optional,
    passes,
)
from renderkit.pdf import PdfRequest
from renderkit.pdfops._ranges import range_problem

__all__ = [
    "PERMISSIONS",
    "POSITIONS",
    "AttachedFile",
    "Attachment",
    "Encryption",
    "Metadata",
    "PageNumbers",
    "PdfInput",
    "PdfOpsLimits",
    "PdfOpsRequest",
    "PdfOpsResult",
    "PdfPart",
    "Rotation",
    "Signature",
    "Watermark",
]

#: Where a stamp goes on the page as it is displayed.
POSITIONS = (
    "center",
    "top-left",
    "top-center",
    "top-right",
    "bottom-left",
    "bottom-center",
    "bottom-right",
)

#: What an encrypted PDF may still let its user do without the owner password.
PERMISSIONS = ("print", "copy", "modify", "annotate")

_MAX_FILES = 20
_MAX_ATTACHMENTS = 20


def _positive(inst: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if value <= 0:
        msg = f"PdfOpsLimits.{attribute.name} must be positive (got {value})"
        raise ConfigurationError(msg)


@attrs.frozen(kw_only=True)
class PdfOpsLimits:
    """Bounds on what :func:`~renderkit.pdfops.pdf_ops` accepts; given by the caller (the
    server's settings), never read from the environment. Every one is checked before the
    work it bounds.

    Attributes:
        max_bytes: largest decoded input PDF, attachment or stamp image (default 20 MB).
        max_total_bytes: all inputs and attachments together (default 60 MB).
        max_pages: most pages of one input, of all inputs together, of the document
            produced, and of all ``split`` parts together (default 500).
        max_objects: most PDF objects in one input (default 500,000; a 500-page report
            holds about 10,000).
        max_inflated_bytes: most bytes one input's streams decode to together (default
            200 MB), measured on the raw bytes before qpdf reads them.
        max_embedded_bytes: most bytes one embedded file of an input decodes to (20 MB).
        max_pixels: most pixels of a stamp image, and of an image inside an input (50 M).
    """

    max_bytes: int = attrs.field(default=20_000_000, validator=_positive)
    max_total_bytes: int = attrs.field(default=60_000_000, validator=_positive)
    max_pages: int = attrs.field(default=500, validator=_positive)
    max_objects: int = attrs.field(default=500_000, validator=_positive)
    max_inflated_bytes: int = attrs.field(default=200_000_000, validator=_positive)
    max_embedded_bytes: int = attrs.field(default=20_000_000, validator=_positive)
    max_pixels: int = attrs.field(default=50_000_000, validator=_positive)


def _date_problem(value: str) -> str | None:
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return f"{value[:40]!r} is not an ISO 8601 date (e.g. 2026-03-01T09:30:00+01:00)"
    if parsed.year < 1900:
        return "must be after 1900"
    return None


_RANGE = passes(range_problem)


def _field_name_problem(value: str) -> str | None:
    # A form field's partial name: no periods (they separate a field's parents), not empty.
    if not value or len(value) > 100 or "." in value or not value.isprintable():
        return "must be 1 to 100 printable characters without a period"
    return None


@checked
@attrs.frozen(kw_only=True)
class PdfInput:
    """One input: an uploaded PDF (base64 ``file``) or one renderkit renders (``render``).

    Attributes:
        file: the PDF as base64 (a ``data:`` URL prefix is accepted).
        render: a ``pdf-gen`` request (template and data, or HTML) rendered first.
        password: opens an encrypted upload; without it an encrypted upload is refused.
    """

    file: str | None = None
    render: PdfRequest | None = None
    password: str | None = attrs.field(
        default=None, repr=False, validator=optional(max_length(1000))
    )

    def __attrs_post_init__(self) -> None:
        if (self.file is None) == (self.render is None):
            msg = "give exactly one of file (a base64 PDF) or render (a pdf-gen request)"
            raise InvalidRequestError.single("file", msg)


@checked
@attrs.frozen(kw_only=True)
class Rotation:
    """Turn pages clockwise by ``angle`` degrees (added to any rotation they have).

    Attributes:
        angle: 90, 180 or 270 (-90 is 270).
        pages: the pages turned (``1-3,5``); all when absent.
    """

    angle: int
    pages: str | None = attrs.field(default=None, validator=optional(_RANGE))

    def __attrs_post_init__(self) -> None:
        if self.angle % 90 != 0 or self.angle % 360 == 0 or abs(self.angle) > 270:
            msg = f"must be 90, 180 or 270 (or -90, -180, -270; got {self.angle})"
            raise InvalidRequestError.single("angle", msg)


@checked
@attrs.frozen(kw_only=True)
class Watermark:
    """A text or image stamp drawn over every chosen page.

    Attributes:
        text: the words stamped (Latin-1 and Windows-1252 characters: the standard
            Helvetica font every PDF reader has, so nothing is embedded).
        image: a PNG or JPEG as base64, instead of ``text``.
        font_size: points (text).
        width: points the image is drawn wide (its height follows); at most the page.
        opacity: 0 (invisible) to 1 (opaque).
        angle: degrees counter-clockwise.
        position: where on the page as displayed (:data:`POSITIONS`).
        color: the text colour (CSS).
        pages: the pages stamped (``1,3-``); all when absent.
    """

    text: str | None = attrs.field(default=None, validator=optional(max_length(500)))
    image: str | None = None
    font_size: float = attrs.field(default=48.0, validator=in_range(1, 500))
    width: float | None = attrs.field(default=None, validator=optional(in_range(1, 10_000)))
    opacity: float = attrs.field(default=0.3, validator=in_range(0, 1))
    angle: float = attrs.field(default=45.0, validator=in_range(-360, 360))
    position: str = attrs.field(default="center", validator=choice(POSITIONS))
    color: str = attrs.field(default="#808080", validator=css_color())
    pages: str | None = attrs.field(default=None, validator=optional(_RANGE))

    def __attrs_post_init__(self) -> None:
        if (self.text is None) == (self.image is None):
            msg = "give exactly one of text or image"
            raise InvalidRequestError.single("text", msg)


@checked
@attrs.frozen(kw_only=True)
class PageNumbers:
    """Page numbers printed on every page.

    Attributes:
        format: ``{n}`` is the page's number, ``{total}`` the page count.
        position: where on the page as displayed (:data:`POSITIONS`).
        font_size: points.
        color: CSS colour.
        start: the number of the first page.
    """

    format: str = attrs.field(default="Page {n} of {total}", validator=max_length(200))
    position: str = attrs.field(default="bottom-center", validator=choice(POSITIONS))
    font_size: float = attrs.field(default=10.0, validator=in_range(1, 200))
    color: str = attrs.field(default="#333333", validator=css_color())
    start: int = attrs.field(default=1, validator=in_range(0, 1_000_000))


@checked
@attrs.frozen(kw_only=True)
class Metadata:
    """Document information, written to the Info dictionary and to XMP alike.

    Attributes:
        title, author, subject: text.
        keywords: words (XMP ``pdf:Keywords``, Info ``/Keywords`` joined by commas).
        language: the document's language (BCP 47, ``de-DE``), the catalog's ``/Lang``.
        created, modified: ISO 8601 dates (``2026-03-01T09:30:00+01:00``).
    """

    title: str | None = attrs.field(default=None, validator=optional(max_length(1000)))
    author: str | None = attrs.field(default=None, validator=optional(max_length(1000)))
    subject: str | None = attrs.field(default=None, validator=optional(max_length(2000)))
    keywords: list[str] | None = attrs.field(
        default=None, validator=optional(max_items(100, noun="keywords"))
    )
    language: str | None = attrs.field(default=None, validator=optional(max_length(35)))
    created: str | None = attrs.field(default=None, validator=optional(passes(_date_problem)))
    modified: str | None = attrs.field(default=None, validator=optional(passes(_date_problem)))


@checked
@attrs.frozen(kw_only=True)
class Attachment:
    """A file embedded in the PDF (listed by readers' attachment panes).

    Attributes:
        filename: its name.
        file: its bytes as base64.
        mime_type: its media type.
        description: a line shown beside it.
    """

    filename: str = attrs.field(validator=max_length(255))
    file: str
    mime_type: str = attrs.field(default="application/octet-stream", validator=max_length(255))
    description: str = attrs.field(default="", validator=max_length(1000))


@checked
@attrs.frozen(kw_only=True)
class Encryption:
    """AES-256 encryption (PDF 2.0 / revision 6).

    Attributes:
        owner_password: unlocks everything.
        user_password: opens the document (empty: anyone may open it, with only
            ``permissions``).
        permissions: what a user without the owner password may do (:data:`PERMISSIONS`).
    """

    owner_password: str = attrs.field(repr=False, validator=max_length(1000))
    user_password: str = attrs.field(default="", repr=False, validator=max_length(1000))
    permissions: list[str] = attrs.field(factory=lambda: ["print"])

    def __attrs_post_init__(self) -> None:
        if not self.owner_password:
            raise InvalidRequestError.single("owner_password", "must not be empty")
        unknown = [p for p in self.permissions if p not in PERMISSIONS]
        if unknown:
            msg = f"must be among {', '.join(PERMISSIONS)} (got {unknown[0][:40]!r})"
            raise InvalidRequestError.single("permissions", msg)


@checked
@attrs.frozen(kw_only=True)
class Signature:
    """Sign each produced PDF with the signer the caller configured (on a server: the
    operator's; callers never send keys). PAdES B-B, or B-T when the signer has a time-stamp
    authority. Always the last step: any later rewrite would break the signature.

    Attributes:
        reason: why it is signed (``Approved``), shown by readers.
        location: where it was signed (``Berlin``).
        contact_info: how to reach the signer.
        field_name: the name of the invisible signature field created.
    """

    reason: str | None = attrs.field(default=None, validator=optional(max_length(500)))
    location: str | None = attrs.field(default=None, validator=optional(max_length(500)))
    contact_info: str | None = attrs.field(default=None, validator=optional(max_length(500)))
    field_name: str = attrs.field(default="Signature1", validator=passes(_field_name_problem))


@checked
@attrs.frozen(kw_only=True)
class PdfOpsRequest:
    """Page operations over one or more PDFs, applied in this order:

    1. ``files`` merged in the order given (a single file is used as is);
    2. ``pages``: only these pages, in this order (``1-3,5,8-``);
    3. ``rotate``; 4. ``watermark``; 5. ``page_numbers`` (over the selected pages);
    6. ``metadata``; 7. ``attachments`` added;
    8. ``split``: one document per range (``["1-2", "3-"]``); else one document;
    9. ``encrypt``: each document produced;
    10. ``sign``: each document produced, with the caller's signer (PAdES): last, since
        any later rewrite would break the signature (an encrypted one is signed with its
        owner password, inside the encryption).

    The first file's document properties (outline, attachments, metadata) are kept; the
    other files contribute their pages.
    """

    files: list[PdfInput] = attrs.field(validator=max_items(_MAX_FILES, noun="files"))
    pages: str | None = attrs.field(default=None, validator=optional(_RANGE))
    rotate: Rotation | None = None
    watermark: Watermark | None = None
    page_numbers: PageNumbers | None = None
    metadata: Metadata | None = None
    attachments: list[Attachment] = attrs.field(
        factory=list, validator=max_items(_MAX_ATTACHMENTS, noun="attachments")
    )
    split: list[str] | None = attrs.field(
        default=None, validator=optional(max_items(100, noun="ranges"))
    )
    encrypt: Encryption | None = None
    sign: Signature | None = None
    filename: str | None = attrs.field(default=None, validator=optional(max_length(200)))

    def __attrs_post_init__(self) -> None:
        if not self.files:
            raise InvalidRequestError.single("files", "must name at least one PDF")
        for index, text in enumerate(self.split or ()):
            if (problem := range_problem(text)) is not None:
                where = f"split[{index}]"
                raise InvalidRequestError.single(where, problem)
        if self.split == []:
            raise InvalidRequestError.single("split", "must name at least one range")
        if self.encrypt is not None:
            for index, item in enumerate(self.files):
                standard = item.render.effective_pdf_standard if item.render else None
                if standard is not None:
                    # PDF/A forbids encryption: the file would stop being what was asked.
                    msg = f"cannot encrypt files[{index}], a {standard} document (PDF/A forbids it)"
                    raise InvalidRequestError.single("encrypt", msg)

    @property
    def renders(self) -> int:
        """How many inputs renderkit renders first (each one is a PDF render)."""
        return sum(1 for item in self.files if item.render is not None)

    @property
    def steps(self) -> tuple[str, ...]:
        """The steps this request asks for, in the order they run."""
        wanted = {
            "merge": len(self.files) > 1,
            "pages": self.pages is not None,
            "rotate": self.rotate is not None,
            "watermark": self.watermark is not None,
            "page_numbers": self.page_numbers is not None,
            "metadata": self.metadata is not None,
            "attachments": bool(self.attachments),
            "split": self.split is not None,
            "encrypt": self.encrypt is not None,
            "sign": self.sign is not None,
        }
        return tuple(name for name, on in wanted.items() if on)


@attrs.frozen(kw_only=True)
class AttachedFile:
    """A file embedded in a produced PDF.

    Attributes:
        filename: its name in the attachment list.
        mime_type: its declared media type ("" when none).
        description: its description ("" when none).
        size: its bytes.
    """

    filename: str
    mime_type: str
    description: str
    size: int


@attrs.frozen(kw_only=True)
class PdfPart(FileResult):
    """One produced PDF.

    Attributes:
        content: the file.
        pages: its page count.
        filename: a download name.
    """

    content: bytes = attrs.field(repr=False)
    pages: int
    filename: str
    format: str = attrs.field(default="pdf", init=False)


@attrs.frozen(kw_only=True)
class PdfOpsResult:
    """What :func:`~renderkit.pdfops.pdf_ops` produced.

    Attributes:
        parts: one PDF, or one per ``split`` range.
        steps: the steps applied, in order.
        attachments: the files embedded in the (first) produced PDF, the first input's
            included.
        encrypted: whether the parts are encrypted.
        signature_level: the PAdES baseline level each part is signed at (``B-B`` or
            ``B-T``); None when unsigned.
    """

    parts: tuple[PdfPart, ...]
    steps: tuple[str, ...]
    attachments: tuple[AttachedFile, ...] = ()
    encrypted: bool = False
    signature_level: str | None = None

    @property
    def pages(self) -> int:
        """Pages of all parts together."""
        return sum(part.pages for part in self.parts)

    @property
    def content(self) -> bytes:
        """The PDF when there is one part, else a ZIP archive of the parts."""
        if len(self.parts) == 1:
            return self.parts[0].content
        buffer = io.BytesIO()
        # Stored, not deflated: PDFs are compressed already.
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
            for part in self.parts:
                archive.writestr(part.filename, part.content)
        return buffer.getvalue()

    @property
    def format(self) -> str:
        """``pdf``, or ``zip`` for several parts."""
        return "pdf" if len(self.parts) == 1 else "zip"
