"""Request and result models for PDF rendering (POST /api/pdf-gen semantics)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs
from babel.numbers import get_currency_precision

from renderkit.core import validators as v
from renderkit.core.converter import checked
from renderkit.core.errors import FieldError, InvalidRequestError
from renderkit.core.fields import given, ignored_fields, warning_text
from renderkit.core.filenames import suggested_filename
from renderkit.core.results import FileResult
from renderkit.pdf._einvoice_profiles import EINVOICE_FORMATS, EInvoiceProfile, profile_of
from renderkit.pdf._locale import DEFAULT_LOCALE
from renderkit.pdf._payment import bic_problem, iban_problem
from renderkit.pdf._pdfa import PDF_STANDARDS
from renderkit.pdf._templates import NAME_STYLES, TEMPLATE_FIELDS

__all__ = [
    "PAGE_SIZES",
    "PDF_TEMPLATES",
    "PDF_TEMPLATE_FIELDS",
    "TAX_CATEGORIES",
    "CertificateData",
    "CustomData",
    "InvoiceData",
    "LetterData",
    "LineItem",
    "Party",
    "PaymentDetails",
    "PdfRequest",
    "PdfResult",
    "ReportData",
    "ReportSection",
]

#: Paper sizes in inches (width, height), portrait.
PAGE_SIZES: dict[str, tuple[float, float]] = {
    "A4": (210 / 25.4, 297 / 25.4),
    "Letter": (8.5, 11.0),
    "Legal": (8.5, 14.0),
    "A3": (297 / 25.4, 420 / 25.4),
}
_PAGE_SIZE_NAMES = {name.lower(): name for name in PAGE_SIZES}

#: Margin names -> inches on every side.
MARGINS: dict[str, float] = {"none": 0.0, "small": 0.4, "normal": 0.7, "large": 1.0}

PDF_TEMPLATES: dict[str, str] = {
    "invoice": "invoice",
    "invoicePdf": "invoice",
    "certificate": "certificate",
    "certificatePdf": "certificate",
    "report": "report",
    "reportPdf": "report",
    "letter": "letter",
    "letterPdf": "letter",
    "custom": "custom",
}

#: Canonical template name -> the ``data`` fields it displays (``custom``: its ``html``).
PDF_TEMPLATE_FIELDS: dict[str, frozenset[str]] = {
    **{name: fields.shown for name, fields in TEMPLATE_FIELDS.items()},
    "custom": frozenset({"html"}),
}

#: What a template needs to print more than an empty page: (fields, the field the error
#: names, the message). Invoices and certificates always print their own heading, totals or
#: seal, so they have no such rule.
_CONTENT_RULES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "report": (
        ("title", "sections"),
        "data.sections",
        "a report needs a title or at least one section",
    ),
    "letter": (("body", "subject"), "data.body", "a letter needs a body or a subject"),
}

MAX_LINE_ITEMS = 2_000
MAX_SECTIONS = 500


def _text(limit: int) -> Any:
    return attrs.field(default=None, validator=v.optional(v.max_length(limit)))


def _url() -> Any:
    return attrs.field(default=None, validator=v.optional(v.http_url(allow_data_image=True)))


def _color() -> Any:
    return attrs.field(default=None, validator=v.optional(v.css_color()))


def _upper(value: object) -> object:
    return value.upper() if isinstance(value, str) else value


def _lower(value: object) -> object:
    return value.lower() if isinstance(value, str) else value


def _compact(value: object) -> object:
    return re.sub(r"[\s.\-]", "", value).upper() if isinstance(value, str) else value


#: EN 16931 VAT category codes (UNCL 5305, the subset the standard allows).
TAX_CATEGORIES = ("S", "Z", "E", "AE", "K", "G", "O", "L", "M")


def _unit_code_problem(value: str) -> str | None:
    if re.fullmatch(r"[A-Z0-9]{1,3}", value):
        return None
    return "is not a UN/ECE Recommendation 20 unit code (e.g. C62, HUR, DAY, KGM)"


def _means_code_problem(value: str) -> str | None:
    if re.fullmatch(r"[0-9]{1,2}|ZZZ", value):
        return None
    return "is not a UNCL 4461 payment means code (e.g. 58 SEPA credit transfer, 30, 49)"


def _country_problem(value: str) -> str | None:
    if re.fullmatch(r"[A-Z]{2}", value):
        return None
    return "is not an ISO 3166-1 alpha-2 country code (e.g. DE, FR, US)"


def _vat_id_problem(value: str) -> str | None:
    # EN 16931 BR-CO-09: the VAT identifier starts with the ISO 3166-1 country prefix
    # (Greece uses EL); the rest is the national number.
    if re.fullmatch(r"[A-Z]{2}[A-Z0-9+*]{2,13}", value):
        return None
    return "is not a VAT identifier: expected a country prefix and the number (DE123456789)"


@checked
@attrs.frozen(kw_only=True)
class LineItem:
    """One invoice line.

    Attributes:
        description: what was sold.
        quantity: how many (0 or more; fractions allowed).
        unit_price: price of one unit in the invoice currency.
        tax_category: e-invoices: the line's VAT category (UNCL 5305): ``S`` standard
            (default when a rate above 0 applies), ``Z`` zero rated, ``E`` exempt, ``AE``
            reverse charge, ``K`` intra-community supply, ``G`` export, ``O`` outside the
            scope of VAT, ``L``/``M`` Canary Islands and Ceuta/Melilla taxes.
        tax_rate: the line's rate in percent, when it differs from the invoice's
            ``tax_rate``.
        tax_exemption_reason: why an ``E``, ``AE``, ``K``, ``G`` or ``O`` line carries no VAT
            (printed in the e-invoice's VAT breakdown).
        unit_code: e-invoices: the unit of the quantity, a UN/ECE Recommendation 20 code
            (``C62`` one, the default; ``HUR`` hour, ``DAY``, ``KGM``, ``MTR``...).
    """

    description: str | None = _text(1_000)
    quantity: float = attrs.field(default=1.0, validator=v.in_range(0, 1e9))
    unit_price: float = attrs.field(validator=v.in_range(-1e12, 1e12))
    tax_category: str | None = attrs.field(
        default=None, converter=_upper, validator=v.optional(v.choice(TAX_CATEGORIES))
    )
    tax_rate: float | None = attrs.field(default=None, validator=v.optional(v.in_range(0, 100)))
    tax_exemption_reason: str | None = _text(1_000)
    unit_code: str | None = attrs.field(
        default=None, converter=_upper, validator=v.optional(v.passes(_unit_code_problem))
    )


@checked
@attrs.frozen(kw_only=True)
class PaymentDetails:
    """How to pay an invoice: printed as a "Payment details" block with the fields given.

    Attributes:
        account_holder: the name on the account.
        bank_name: the bank.
        iban: the account's IBAN; spaces are allowed, the check digits are verified, and it
            is printed in groups of four.
        bic: the bank's BIC (SWIFT code), 8 or 11 characters.
        reference: what the payer should quote with the transfer (e.g. the invoice number).
        means_code: e-invoices: how payment is made (UNCL 4461): ``58`` SEPA credit
            transfer (the default with an IBAN), ``30`` credit transfer, ``49`` direct
            debit, ``48`` card, ``10`` cash, ``1`` not defined (the default otherwise).
    """

    account_holder: str | None = _text(300)
    bank_name: str | None = _text(300)
    iban: str | None = attrs.field(
        default=None,
        validator=v.optional(attrs.validators.and_(v.max_length(64), v.passes(iban_problem))),
    )
    bic: str | None = attrs.field(
        default=None,
        validator=v.optional(attrs.validators.and_(v.max_length(32), v.passes(bic_problem))),
    )
    reference: str | None = _text(300)
    means_code: str | None = attrs.field(
        default=None, validator=v.optional(v.passes(_means_code_problem))
    )


@checked
@attrs.frozen(kw_only=True)
class Party:
    """What an e-invoice states about the seller or the buyer beyond the printed name and
    address (EN 16931 BG-4/BG-7).

    Attributes:
        street: the street line of the postal address (BT-35/BT-50).
        city: the city (BT-37/BT-52).
        postcode: the post code (BT-38/BT-53).
        country: ISO 3166-1 alpha-2 country code (BT-40/BT-55), required for e-invoices.
        vat_id: the VAT identifier with its country prefix (BT-31/BT-48), e.g. DE123456789.
        tax_registration: a tax number other than the VAT id (BT-32), e.g. a German
            Steuernummer; a seller needs a VAT id or this.
        contact_name: a contact person (BT-41; XRechnung requires the seller's).
        phone: the contact's telephone (BT-42; XRechnung requires the seller's).
        email: the contact's e-mail (BT-43); the seller's falls back to ``company_email``.
        electronic_address: the party's electronic address (BT-34/BT-49, an e-mail scheme
            ``EM``); XRechnung requires both; falls back to the party's e-mail.
    """

    street: str | None = _text(300)
    city: str | None = _text(200)
    postcode: str | None = _text(50)
    country: str | None = attrs.field(
        default=None, converter=_upper, validator=v.optional(v.passes(_country_problem))
    )
    vat_id: str | None = attrs.field(
        default=None, converter=_compact, validator=v.optional(v.passes(_vat_id_problem))
    )
    tax_registration: str | None = _text(100)
    contact_name: str | None = _text(300)
    phone: str | None = _text(100)
    email: str | None = _text(300)
    electronic_address: str | None = _text(300)


@checked
@attrs.frozen(kw_only=True)
class InvoiceData:
    """Invoice fields (variant A names are accepted as aliases).

    Attributes:
        company_name: the seller (alias from_name).
        company_address: the seller's address (alias from_address).
        company_email: the seller's e-mail.
        company_logo: logo image URL.
        client_name: the buyer (alias to_name).
        client_address: the buyer's address (alias to_address).
        client_email: the buyer's e-mail.
        invoice_number: the invoice's number.
        invoice_date: issue date, YYYY-MM-DD (alias date).
        due_date: payment due date.
        currency: ISO 4217 code (default USD); amounts are formatted per currency.
        line_items: the lines, at most 2,000 (alias items).
        tax_rate: tax in percent of the discounted subtotal.
        discount: an amount taken off the subtotal.
        notes: free text printed under the totals.
        payment: bank details printed with the totals (only the fields given).
        brand_color: accent colour.
        seller: e-invoices: the seller's country, VAT id, structured address and contact
            (see :class:`Party`); the VAT id is printed under the seller's address.
        buyer: e-invoices: the same for the buyer.
        buyer_reference: the buyer's reference (BT-10; XRechnung's Leitweg-ID); printed.

    Fields only e-invoices need are checked only when the request asks for one
    (``einvoice``): a plain invoice stays as free as before.

    In a currency without a minor unit (JPY, KRW...), unit prices and the discount must be
    whole amounts: ``30000.5`` JPY is refused rather than printed as ``¥30,000.5`` (a form
    no yen document uses) or silently rounded. Line totals of fractional quantities are
    rounded half-up to the currency's unit, as in every currency.
    """

    __rk_aliases__: ClassVar[dict[str, str]] = {
        "from_name": "company_name",
        "from_address": "company_address",
        "to_name": "client_name",
        "to_address": "client_address",
        "items": "line_items",
        "date": "invoice_date",
    }

    company_name: str | None = _text(300)
    company_address: str | None = _text(1_000)
    company_email: str | None = _text(300)
    company_logo: str | None = _url()
    client_name: str | None = _text(300)
    client_address: str | None = _text(1_000)
    client_email: str | None = _text(300)
    invoice_number: str | None = _text(100)
    invoice_date: str | None = _text(100)
    due_date: str | None = _text(100)
    currency: str = attrs.field(
        default="USD",
        converter=_upper,
        validator=v.currency_code(),
    )
    line_items: list[LineItem] = attrs.field(
        factory=list, validator=v.max_items(MAX_LINE_ITEMS, noun="line items per invoice")
    )
    tax_rate: float | None = attrs.field(default=None, validator=v.optional(v.in_range(0, 100)))
    discount: float | None = attrs.field(default=None, validator=v.optional(v.in_range(0, 1e12)))
    notes: str | None = _text(5_000)
    payment: PaymentDetails | None = None
    brand_color: str | None = _color()
    seller: Party | None = None
    buyer: Party | None = None
    buyer_reference: str | None = _text(200)

    def __attrs_post_init__(self) -> None:
        if currency_digits(self.currency) > 0:
            return
        amounts: list[tuple[str, float | None]] = [
            (f"line_items[{i}].unit_price", it.unit_price) for i, it in enumerate(self.line_items)
        ]
        amounts.append(("discount", self.discount))
        errors = [
            FieldError(
                field=field,
                message=f"{self.currency} has no minor unit: {amount:g} is not a whole amount",
            )
            for field, amount in amounts
            if amount is not None and not float(amount).is_integer()
        ]
        if errors:
            raise InvalidRequestError(errors)


@checked
@attrs.frozen(kw_only=True)
class CertificateData:
    """Certificate fields (always rendered landscape).

    Attributes:
        recipient_name: who receives it; printed prominently.
        title: heading (default "Certificate of Completion").
        course_name: what was completed.
        issued_by: the issuer (alias issuer_name).
        issued_date: date, YYYY-MM-DD (alias date).
        signatory_name: who signs.
        signatory_title: the signatory's role.
        description: a sentence under the course name.
        brand_color: accent colour.
        logo_url: logo image URL.
        signature_url: signature image URL.
        name_style: the recipient name's face: ``serif`` (default, Noto Serif Display),
            ``script`` (a calligraphic script) or ``sans`` (Inter, like the rest of the page).
    """

    __rk_aliases__: ClassVar[dict[str, str]] = {"issuer_name": "issued_by", "date": "issued_date"}

    recipient_name: str | None = _text(300)
    title: str | None = _text(300)
    course_name: str | None = _text(500)
    issued_by: str | None = _text(300)
    issued_date: str | None = _text(100)
    signatory_name: str | None = _text(300)
    signatory_title: str | None = _text(300)
    description: str | None = _text(2_000)
    brand_color: str | None = _color()
    logo_url: str | None = _url()
    signature_url: str | None = _url()
    name_style: str = attrs.field(default="serif", validator=v.choice(NAME_STYLES))


@checked
@attrs.frozen(kw_only=True)
class ReportSection:
    """One report section.

    Attributes:
        heading: the section title.
        body: paragraphs separated by blank lines.
        bullets: a bullet list after the body.
    """

    heading: str | None = _text(500)
    body: str | None = _text(100_000)
    bullets: list[str] = attrs.field(factory=list)


@checked
@attrs.frozen(kw_only=True)
class ReportData:
    """Report fields.

    Attributes:
        title: the report's title.
        subtitle: a line under the title.
        author: who wrote it (also the PDF's author metadata).
        date: date, YYYY-MM-DD.
        company_name: the organisation.
        logo_url: logo image URL.
        brand_color: accent colour.
        sections: headings with body paragraphs and bullets.
    """

    title: str | None = _text(500)
    subtitle: str | None = _text(1_000)
    author: str | None = _text(300)
    date: str | None = _text(100)
    company_name: str | None = _text(300)
    logo_url: str | None = _url()
    brand_color: str | None = _color()
    sections: list[ReportSection] = attrs.field(
        factory=list, validator=v.max_items(MAX_SECTIONS, noun="sections")
    )


@checked
@attrs.frozen(kw_only=True)
class LetterData:
    """Letter fields.

    Attributes:
        sender_name: who writes (signature).
        sender_address: the sender's address.
        sender_email: the sender's e-mail.
        recipient_name: who receives it.
        recipient_title: the recipient's role.
        recipient_company: the recipient's organisation.
        recipient_address: the recipient's address.
        date: date, YYYY-MM-DD.
        subject: the subject line.
        body: paragraphs separated by blank lines.
        closing: sign-off (default "Yours sincerely").
        company_name: letterhead name.
        logo_url: letterhead logo URL.
        brand_color: accent colour.
    """

    sender_name: str | None = _text(300)
    sender_address: str | None = _text(1_000)
    sender_email: str | None = _text(300)
    recipient_name: str | None = _text(300)
    recipient_title: str | None = _text(300)
    recipient_company: str | None = _text(300)
    recipient_address: str | None = _text(1_000)
    date: str | None = _text(100)
    subject: str | None = _text(1_000)
    body: str | None = _text(100_000)
    closing: str | None = _text(300)
    company_name: str | None = _text(300)
    logo_url: str | None = _url()
    brand_color: str | None = _color()


@checked
@attrs.frozen(kw_only=True)
class CustomData:
    """Data of a custom document (variant A puts the HTML here).

    Attributes:
        html: the document to print.
    """

    html: str | None = attrs.field(default=None, validator=v.optional(v.max_length(5_000_000)))


_DATA_CLASSES: dict[str, type] = {
    "invoice": InvoiceData,
    "certificate": CertificateData,
    "report": ReportData,
    "letter": LetterData,
    "custom": CustomData,
}

PdfData = InvoiceData | CertificateData | ReportData | LetterData | CustomData


def _data_class(template: object) -> type | None:
    """The data model of a template name; None for a name that is not a template."""
    kind = PDF_TEMPLATES.get(template) if isinstance(template, str) else None
    return _DATA_CLASSES[kind] if kind is not None else None


def _default_data(request: PdfRequest) -> PdfData:
    # Runs before validation, so the template may still be unknown here.
    data: PdfData = (_data_class(request.template) or CustomData)()
    return data


def _page_size(value: object) -> object:
    return _PAGE_SIZE_NAMES.get(value.lower(), value) if isinstance(value, str) else value


_STANDARD_NAMES = {name.lower(): name for name in PDF_STANDARDS}


def _pdf_standard(value: object) -> object:
    return _STANDARD_NAMES.get(value.lower(), value) if isinstance(value, str) else value


def _schema_extra() -> dict[str, Any]:
    # One rule per template (its data model and what it needs), not one per fact: each rule
    # multiplies the work of schema-driven generators (schemathesis gave up on nine).
    text = {"type": "string", "pattern": "\\S"}
    section = {
        "anyOf": [{"required": [n], "properties": {n: text}} for n in ("heading", "body")]
        + [{"required": ["bullets"], "properties": {"bullets": {"contains": text}}}]
    }
    rules: list[dict[str, Any]] = []
    for kind, cls in _DATA_CLASSES.items():
        names = [name for name, canonical in PDF_TEMPLATES.items() if canonical == kind]
        data: dict[str, Any] = {"$ref": f"#/$defs/{cls.__name__}"}
        then: dict[str, Any] = {"properties": {"data": data}}
        if kind in _CONTENT_RULES:
            # A report or a letter needs content (see _CONTENT_RULES).
            fields = _CONTENT_RULES[kind][0]
            needs = [
                {
                    "required": [n],
                    "properties": {n: {"contains": section} if n == "sections" else text},
                }
                for n in fields
            ]
            then = {
                "required": ["data"],
                "properties": {"data": {"allOf": [data, {"anyOf": needs}]}},
            }
        if kind == "custom":
            # custom needs a document: a non-blank top-level html (variant B), or data.html (A).
            then["anyOf"] = [
                {"required": ["html"], "properties": {"html": text}},
                {
                    "required": ["data"],
                    "properties": {
                        "html": {"type": "null"},
                        "data": {
                            "type": "object",
                            "required": ["html"],
                            "properties": {"html": text},
                        },
                    },
                },
            ]
        rules.append(
            {
                "if": {"properties": {"template": {"enum": names}}, "required": ["template"]},
                "then": then,
            }
        )
    rules.append(
        {
            "if": {"properties": {"template": {"not": {"const": "custom"}}}},
            "then": {
                "properties": {
                    "html": {"type": "null"},
                    "header_html": {"type": "null"},
                    "footer_html": {"type": "null"},
                }
            },
        }
    )
    return {"allOf": rules}


@checked
@attrs.frozen(kw_only=True)
class PdfRequest:
    """A request to render a PDF from a document template or custom HTML.

    Attributes:
        template: ``invoice``/``invoicePdf``, ``certificate``/``certificatePdf``,
            ``report``/``reportPdf``, ``letter``/``letterPdf`` or ``custom``. Echoed as sent.
        data: the template's fields; for custom, ``data.html`` (variant A).
        html: the custom document (variant B); only with ``custom``.
        page_size: A4 (default), Letter, Legal or A3.
        landscape: rotate the page (always true for the certificate).
        margin: none, small, normal (default) or large.
        header_html: custom documents: HTML repeated at the top of every page; elements with
            class pageNumber, totalPages, title or date are filled in.
        footer_html: custom documents: the same at the bottom of every page.
        title: document title metadata (templates derive one from the data).
        author: document author metadata.
        locale: templates: the language and region of labels, dates and numbers, as a BCP 47
            tag (``en`` default, ``de``, ``de-DE``, ``fr``, ``es``, ``ar``, ``ja``...). Labels
            exist for en, de, fr, es, ar and ja (other languages get English labels with their
            own dates and numbers); right-to-left locales (ar, he, fa, ur) print mirrored
            pages.
        cache: server only: false renders again instead of answering from the render cache
            (default true); the library ignores it.
        strict: refuse (rather than warn about) a ``data`` field the template does not
            display (default false).
        einvoice: invoices only: also write the invoice as an EN 16931 e-invoice,
            ``factur-x`` or ``zugferd`` (a PDF/A-3b carrying the CII XML), ``xrechnung``
            (XRechnung 3.0, CII syntax) or ``ubl`` (UBL 2.1): these two answer with the XML
            itself unless ``einvoice_embed``. The fields an e-invoice needs are then
            required (see :class:`InvoiceData`), and the XML is checked against its XSD and
            the EN 16931 Schematron before it is returned.
        einvoice_profile: the profile: ``en16931`` (default) or ``extended`` for factur-x
            and zugferd, ``xrechnung`` for zugferd, xrechnung (its only one) and ubl.
        einvoice_embed: xrechnung and ubl: answer with the PDF/A-3b carrying the XML instead
            of the XML.
        pdf_standard: ``PDF/A-2b`` or ``PDF/A-3b`` for an archival PDF (an sRGB output
            intent, XMP identification, every font embedded, no encryption); None (default)
            for a plain PDF. An e-invoice carrying its XML is always PDF/A-3b.
        tagged: a tagged (accessible) PDF: a structure tree, an outline of the headings,
            ``/Lang`` from ``locale`` and the title shown in the viewer's window (default
            false).

    A report needs a title or a section and a letter a body or a subject: without them the
    page would be blank, so the request is refused naming the field.
    """

    __rk_schema_extra__: ClassVar[dict[str, Any]] = {}

    template: str = attrs.field(validator=v.choice(PDF_TEMPLATES))
    data: PdfData = attrs.field(default=attrs.Factory(_default_data, takes_self=True))
    html: str | None = attrs.field(default=None, validator=v.optional(v.max_length(5_000_000)))
    page_size: str = attrs.field(default="A4", converter=_page_size, validator=v.choice(PAGE_SIZES))
    landscape: bool = False
    margin: str = attrs.field(default="normal", validator=v.choice(MARGINS))
    header_html: str | None = attrs.field(default=None, validator=v.optional(v.max_length(50_000)))
    footer_html: str | None = attrs.field(default=None, validator=v.optional(v.max_length(50_000)))
    title: str | None = _text(500)
    author: str | None = _text(300)
    locale: str = attrs.field(default=DEFAULT_LOCALE, validator=v.locale_tag())
    cache: bool = True
    strict: bool = False
    einvoice: str | None = attrs.field(
        default=None, validator=v.optional(v.choice(EINVOICE_FORMATS))
    )
    einvoice_profile: str | None = attrs.field(default=None, converter=_lower)
    einvoice_embed: bool = False
    pdf_standard: str | None = attrs.field(
        default=None, converter=_pdf_standard, validator=v.optional(v.choice(PDF_STANDARDS))
    )
    tagged: bool = False

    def __attrs_post_init__(self) -> None:
        self._check_einvoice()
        self._check_pdf_standard()
        if self.kind == "custom":
            if not (self.document_html and self.document_html.strip()):
                raise InvalidRequestError.single(
                    "html",
                    "is required when template is custom (or send data.html)",
                    missing=True,
                )
        elif self.html is not None:
            raise InvalidRequestError.single("html", "is only valid when template is custom")
        elif self.header_html is not None or self.footer_html is not None:
            field = "header_html" if self.header_html is not None else "footer_html"
            raise InvalidRequestError.single(field, "is only valid when template is custom")
        if self.strict and self.ignored_fields:
            raise InvalidRequestError(self.ignored_fields)
        rule = _CONTENT_RULES.get(self.kind)
        if rule is not None and not _has_content(self.data, rule[0]):
            raise InvalidRequestError.single(rule[1], rule[2], missing=True)

    def _check_einvoice(self) -> None:
        if self.einvoice is None:
            for name in ("einvoice_profile", "einvoice_embed"):
                if getattr(self, name):
                    raise InvalidRequestError.single(name, "is only valid with einvoice")
            return
        if self.kind != "invoice":
            raise InvalidRequestError.single("einvoice", "is only valid with the invoice template")
        profiles = EINVOICE_FORMATS[self.einvoice]
        if self.einvoice_profile is not None and self.einvoice_profile not in profiles:
            names = ", ".join(profiles)
            msg = f"{self.einvoice} supports the profiles {names}"
            raise InvalidRequestError.single("einvoice_profile", msg)
        if self.einvoice_embed and self.einvoice in ("factur-x", "zugferd"):
            raise InvalidRequestError.single(
                "einvoice_embed", f"{self.einvoice} is always embedded in the PDF"
            )
        # A lazy import: the rules price the invoice with the template's calculation.
        from renderkit.pdf._einvoice_rules import einvoice_problems

        errors = einvoice_problems(self.data, self.einvoice_profile_info)
        if errors:
            raise InvalidRequestError(errors)

    def _check_pdf_standard(self) -> None:
        if self.einvoice is None:
            return
        if not self.einvoice_in_pdf:
            # XRechnung and UBL answer with the XML: no PDF to make archival or tagged.
            for name in ("pdf_standard", "tagged"):
                if getattr(self, name):
                    msg = f"needs a PDF answer: {self.einvoice} answers with the XML"
                    msg += " unless einvoice_embed"
                    raise InvalidRequestError.single(name, msg)
        elif self.pdf_standard == "PDF/A-2b":
            msg = "an e-invoice carrying its XML is PDF/A-3b (PDF/A-2 allows no such attachment)"
            raise InvalidRequestError.single("pdf_standard", msg)

    @property
    def einvoice_in_pdf(self) -> bool:
        """Whether the answer is a PDF carrying an e-invoice's XML."""
        if self.einvoice is None:
            return False
        return self.einvoice_profile_info.embedded or self.einvoice_embed

    @property
    def effective_pdf_standard(self) -> str | None:
        """The PDF/A standard printed: the one asked for, and PDF/A-3b for a PDF carrying an
        e-invoice."""
        return "PDF/A-3b" if self.einvoice_in_pdf else self.pdf_standard

    @property
    def einvoice_profile_info(self) -> EInvoiceProfile:
        """The e-invoice profile asked for (the format's default when none is named).

        Raises:
            KeyError: no e-invoice was asked for.
        """
        if self.einvoice is None:
            raise KeyError("einvoice")
        return profile_of(self.einvoice, self.einvoice_profile)

    @property
    def ignored_fields(self) -> tuple[FieldError, ...]:
        """The ``data`` fields given that the template does not display."""
        data = self.data
        if isinstance(data, CustomData):
            if self.html is not None and given(data.html):
                return (FieldError(field="data.html", message="custom prints html instead"),)
            return ()
        shown = TEMPLATE_FIELDS[self.kind]
        return ignored_fields(data, shown.shown, template=self.kind, shown_with=shown.shown_with)

    @property
    def warnings(self) -> tuple[str, ...]:
        """One line per ignored field: ``data.html: custom prints html instead; it was
        ignored``."""
        return tuple(warning_text(e) for e in self.ignored_fields)

    @staticmethod
    def __rk_field_types__(given: Mapping[str, Any]) -> dict[str, Any]:
        # ``data`` is the template's model; after an unknown template, it is not checked.
        return {"data": _data_class(given.get("template")) or Any}

    @property
    def kind(self) -> str:
        """The canonical template name (invoice, certificate, report, letter, custom)."""
        return PDF_TEMPLATES[self.template]

    @property
    def suggested_filename(self) -> str:
        """A readable name for the file: ``invoice-INV-0042.pdf``, ``certificate-ada.pdf``..."""
        data = self.data
        if isinstance(data, InvoiceData):
            if data.invoice_number:
                return suggested_filename("invoice", data.invoice_number, "pdf", keep_case=True)
            return suggested_filename("invoice", data.client_name, "pdf")
        if isinstance(data, CertificateData):
            return suggested_filename("certificate", data.recipient_name, "pdf")
        if isinstance(data, ReportData):
            return suggested_filename("report", self.title or data.title, "pdf")
        if isinstance(data, LetterData):
            return suggested_filename("letter", data.subject or data.recipient_name, "pdf")
        return suggested_filename("document", self.title, "pdf")

    @property
    def document_html(self) -> str | None:
        """The custom document: top-level ``html`` (variant B) or ``data.html`` (variant A)."""
        if self.html is not None:
            return self.html
        return self.data.html if isinstance(self.data, CustomData) else None

    @property
    def effective_landscape(self) -> bool:
        """Landscape as printed: the certificate is always landscape."""
        return True if self.kind == "certificate" else self.landscape


PdfRequest.__rk_schema_extra__.update(_schema_extra())


def _has_content(data: object, names: tuple[str, ...]) -> bool:
    for name in names:
        value = getattr(data, name, None)
        if name == "sections":
            # A section of blank text prints nothing (the template drops it).
            sections: list[ReportSection] = value or []
            if any(
                given(s.heading) or given(s.body) or any(map(given, s.bullets)) for s in sections
            ):
                return True
        elif given(value):
            return True
    return False


@attrs.frozen(kw_only=True)
class PdfResult(FileResult):
    """A rendered PDF.

    Attributes:
        content: the PDF file.
        pages: the exact page count, read from the file (0 for an e-invoice answered as XML).
        page_size: A4, Letter, Legal or A3.
        landscape: whether pages are landscape.
        template: the template name as requested.
        filename: a readable suggested file name (``invoice-INV-0042.pdf``), see
            :mod:`renderkit.core.filenames`.
        key, url: where the file was stored, when a storage backend was given.
        warnings: ``data`` fields the template does not display, one line each (see
            :attr:`PdfRequest.warnings`).
        format: ``pdf``, or ``xml`` for an XRechnung or UBL e-invoice answered as its XML.
        einvoice: the e-invoice format written (``factur-x``...), None without one.
        einvoice_profile: its profile (``en16931``...).
        einvoice_checks: the checks the XML passed: ``xsd``, ``schematron-en16931`` or
            ``schematron-extended``, and ``xrechnung-br-de`` (see :mod:`renderkit.pdf.einvoice`).
        einvoice_xml: the XML, also when it is embedded in the PDF.
        pdf_standard: the PDF/A standard the file follows (``PDF/A-3b`` for a Factur-X
            invoice), None for a plain PDF.
        tagged: whether the file is a tagged PDF with an outline (as asked).
    """

    content: bytes = attrs.field(repr=False)
    pages: int
    page_size: str
    landscape: bool
    template: str
    filename: str = attrs.field(
        default=attrs.Factory(lambda self: f"{self.template}.pdf", takes_self=True)
    )
    key: str | None = None
    url: str | None = None
    warnings: tuple[str, ...] = ()
    format: str = attrs.field(default="pdf", validator=v.choice(("pdf", "xml")))
    einvoice: str | None = None
    einvoice_profile: str | None = None
    einvoice_checks: tuple[str, ...] = ()
    einvoice_xml: bytes | None = attrs.field(default=None, repr=False)
    pdf_standard: str | None = None
    tagged: bool = False

    def _repr_png_(self) -> bytes | None:
        # Jupyter: show the first page.
        return _first_page_png(self.content) if self.format == "pdf" else None


@functools.lru_cache(maxsize=8)
def _first_page_png(content: bytes) -> bytes:
    from renderkit.core.pdfium import first_page_png

    return first_page_png(content)


def currency_digits(code: str) -> int:
    """Minor-unit digits of a currency (USD 2, JPY 0)."""
    return get_currency_precision(code)
