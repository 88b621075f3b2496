"""Built-in PDF document templates: invoice maths, dates and Jinja fragment rendering.

Pure module: nothing here touches the network, the environment or a browser. The engine asks
:func:`render_document` for a :class:`RenderedDocument`, injects its ``body`` into the
``<body>`` of its warm "pdf shell" page (whose stylesheet is the packaged Inter
``@font-face`` rules followed by :func:`pdf_css`) and prints it with CDP ``Page.printToPDF``,
passing ``header_template``/``footer_template`` (with ``displayHeaderFooter``) when they are
set and forcing landscape when ``force_landscape`` is true.

Data uses the canonical (variant B) field names; any field may be missing or None. Labels,
dates and numbers follow the document's locale (:mod:`renderkit.pdf._locale`); the root element
carries ``lang`` and ``dir``, so a right-to-left locale mirrors the whole page. All text goes
through Jinja's autoescape. The brand colour is parsed and only ever written back as
computed ``#rrggbb`` values inside CSS custom properties.
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from importlib import resources
from typing import Any

import attrs
import jinja2
from babel import Locale
from babel.dates import format_date
from babel.numbers import (
    NumberPattern,
    format_percent,
    get_currency_precision,
    get_currency_symbol,
    get_minus_sign_symbol,
    is_currency,
    parse_pattern,
)
from markupsafe import Markup, escape

from renderkit.core.colors import (
    BLACK,
    WHITE,
    better_of_black_and_white,
    mix,
    parse_color,
    readable_on,
    to_hex,
)
from renderkit.pdf._amounts import AmountStyle
from renderkit.pdf._locale import DEFAULT_LOCALE, DocumentLocale, document_locale
from renderkit.pdf._payment import compact, format_iban

__all__ = [
    "DEFAULT_BRAND_COLOR",
    "NAME_STYLES",
    "TEMPLATES",
    "TEMPLATE_FIELDS",
    "ZERO_RATED",
    "DocumentFields",
    "InvoiceLine",
    "InvoiceTotals",
    "RenderedDocument",
    "TaxSubtotal",
    "brand_palette",
    "format_document_date",
    "format_money",
    "invoice_totals",
    "iso_date",
    "paragraphs",
    "pdf_css",
    "render_document",
]

_TEMPLATE_DIR = "templates"
_TAIL_ROWS = 3
"""Invoice rows kept on the page of the totals: a last page never holds only the totals."""
_NOTES_WITH_TOTALS = 14
"""Notes up to this many printed lines stay with the totals; longer ones flow over pages
(kept together they would leave half-empty pages before them)."""
_NOTE_LINE_CHARS = 110
"""About how many characters an invoice notes line holds (8.75pt on A4 portrait)."""

TEMPLATES = ("invoice", "certificate", "report", "letter")
DEFAULT_BRAND_COLOR = "#3730a3"
"""A deep indigo: reads as a brand accent and keeps 10:1 contrast on white."""
DEFAULT_CURRENCY = "USD"
_MINUS = "\u2212"


# --------------------------------------------------------------------------------------------
# What each template displays


@attrs.frozen(kw_only=True)
class DocumentFields:
    """The ``data`` fields a document template displays: the one statement of it, read by
    the request's warnings (and strict refusal), the docs and the tests that hold the
    templates to it.

    Attributes:
        shown: the fields the template prints (or, like ``brand_color`` and ``currency``,
            uses to print).
        shown_with: a field printed only together with another one: the recipient's name
            face needs a name, a discount needs lines to be taken off.
    """

    shown: frozenset[str]
    shown_with: Mapping[str, str] = attrs.field(factory=dict)


def _shown(names: str, **shown_with: str) -> DocumentFields:
    return DocumentFields(shown=frozenset(names.split()), shown_with=shown_with)


TEMPLATE_FIELDS: Mapping[str, DocumentFields] = {
    "invoice": _shown(
        "company_name company_address company_email company_logo client_name client_address"
        " client_email invoice_number invoice_date due_date currency line_items tax_rate"
        " discount notes payment brand_color seller buyer buyer_reference",
        discount="line_items",
    ),
    "certificate": _shown(
        "recipient_name title course_name issued_by issued_date signatory_name"
        " signatory_title description brand_color logo_url signature_url name_style",
        name_style="recipient_name",
    ),
    "report": _shown("title subtitle author date company_name logo_url brand_color sections"),
    "letter": _shown(
        "sender_name sender_address sender_email recipient_name recipient_title"
        " recipient_company recipient_address date subject body closing company_name"
        " logo_url brand_color"
    ),
}


# --------------------------------------------------------------------------------------------
# Result


@attrs.frozen(kw_only=True)
class RenderedDocument:
    """What the engine needs to print one built-in document.

    Attributes:
        body: the HTML fragment for the shell page's ``<body>`` (one root element).
        title: PDF title metadata (also fit for ``document.title``).
        author: PDF author metadata.
        subject: PDF subject metadata.
        header_template: Chromium ``headerTemplate`` (inline styles only), or None.
        footer_template: Chromium ``footerTemplate`` (inline styles only), or None. Print with
            ``displayHeaderFooter`` when either is set, passing an empty template (e.g.
            ``<span></span>``) for the one that is None: left out, Chromium prints its default
            date/title header. The footer needs a bottom margin of at least ~10 mm.
        force_landscape: print landscape whatever the request said (the certificate).
    """

    body: str
    title: str | None
    author: str | None
    subject: str | None
    header_template: str | None
    footer_template: str | None
    force_landscape: bool


# --------------------------------------------------------------------------------------------
# Text helpers


def _clean(value: object) -> str | None:
    """Stripped text, or None for missing/blank values."""
    if value is None:
        return None
    text = str(value).strip()
    return text or None


_BLANK_LINE = re.compile(r"\n[ \t\f\v]*\n")


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n") if line.strip()]


def paragraphs(text: object) -> list[list[str]]:
    """Split text into paragraphs on blank lines, each a list of its (non-empty) lines.

    Single newlines inside a paragraph are kept as line breaks; ``\\r\\n`` and ``\\r`` count as
    newlines. Blank text gives an empty list.
    """
    cleaned = _clean(text)
    if cleaned is None:
        return []
    cleaned = cleaned.replace("\r\n", "\n").replace("\r", "\n")
    return [lines for block in _BLANK_LINE.split(cleaned) if (lines := _lines(block))]


def _address(text: object) -> list[str]:
    """The lines of an address (blank lines dropped)."""
    cleaned = _clean(text)
    if cleaned is None:
        return []
    return _lines(cleaned.replace("\r\n", "\n").replace("\r", "\n"))


_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def iso_date(text: str | None) -> dt.date | None:
    """The date of an ISO ``YYYY-MM-DD`` text, else None."""
    if text is None or not (match := _ISO_DATE.fullmatch(text)):
        return None
    try:
        return dt.date(*(int(part) for part in match.groups()))
    except ValueError:  # 2026-02-30: not a date after all
        return None


def format_document_date(value: object, locale: str = DEFAULT_LOCALE) -> str | None:
    """An ISO date in the locale's long style; anything else is returned as given.

    ``2026-11-22`` is ``22 November 2026`` in the default ``en`` (the day-first style these
    documents always had), ``November 22, 2026`` in ``en-US``, ``22. November 2026`` in
    ``de`` and ``2026年11月22日`` in ``ja``.
    """
    text = _clean(value)
    date = iso_date(text)
    if date is None:
        return text
    loc = document_locale(locale)
    pattern = "d MMMM y" if loc.is_default else "long"
    return format_date(date, format=pattern, locale=loc.babel)


# --------------------------------------------------------------------------------------------
# Invoice maths


def _decimal(value: object, field: str) -> Decimal:
    if isinstance(value, bool):
        msg = f"{field}: expected a number, not {value!r}"
        raise ValueError(msg)
    try:
        number = value if isinstance(value, Decimal) else Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        msg = f"{field}: expected a number, not {value!r}"
        raise ValueError(msg) from None
    if not number.is_finite():
        msg = f"{field}: expected a finite number, not {value!r}"
        raise ValueError(msg)
    return number


def _currency_code(currency: object) -> str:
    code = _clean(currency)
    code = code.upper() if code else DEFAULT_CURRENCY
    if not is_currency(code):
        msg = f"currency: {code[:12]!r} is not an ISO 4217 currency code"
        raise ValueError(msg)
    return code


def _get(item: object, name: str) -> Any:
    """A field of a dict or of an attrs/plain object (None when absent)."""
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)


@attrs.frozen(kw_only=True)
class InvoiceLine:
    """One priced invoice line."""

    description: str | None
    quantity: Decimal
    unit_price: Decimal
    total: Decimal
    """quantity x unit price, rounded half-up to the currency's minor unit."""
    tax_category: str | None = None
    """The line's VAT category code (UNCL 5305: S, Z, E, AE, K, G, O...), when given."""
    tax_rate: Decimal | None = None
    """The line's rate in percent: its own, else the invoice's (None when neither is given)."""
    exemption_reason: str | None = None


@attrs.frozen(kw_only=True)
class TaxSubtotal:
    """The tax of the lines that share a category and a rate (an EN 16931 VAT breakdown,
    BG-23): the discount's share is taken off their sum before the tax is computed."""

    category: str | None
    rate: Decimal | None
    lines_total: Decimal
    """The sum of the group's line totals."""
    discount: Decimal
    """The group's share of the invoice discount."""
    basis: Decimal
    """lines_total - discount: what the tax is taken of (BT-116)."""
    tax: Decimal
    """basis x rate / 100, rounded half-up (BT-117)."""
    exemption_reason: str | None = None


@attrs.frozen(kw_only=True)
class InvoiceTotals:
    """The invoice's sums, all rounded half-up to the currency's minor unit."""

    currency: str
    precision: int
    """Digits of the currency's minor unit (USD 2, JPY 0, BHD 3)."""
    lines: tuple[InvoiceLine, ...]
    subtotal: Decimal
    discount: Decimal
    """The discount applied: capped at the subtotal, never negative."""
    tax_rate: Decimal | None
    """Percent, as given (None when there is no tax)."""
    tax: Decimal
    total: Decimal
    taxes: tuple[TaxSubtotal, ...] = ()
    """One entry per (category, rate) in the order first met; their taxes sum to ``tax``."""


#: VAT categories that charge no VAT: a line of one takes rate 0, not the invoice's rate.
ZERO_RATED = frozenset({"Z", "E", "AE", "K", "G", "O"})


def _optional_decimal(value: object, field: str) -> Decimal | None:
    return None if value is None else _decimal(value, field)


def invoice_totals(
    line_items: Iterable[object],
    *,
    currency: str,
    tax_rate: float | None,
    discount: float | None,
) -> InvoiceTotals:
    """Price an invoice with exact decimal arithmetic: the one calculation both the printed
    page and the e-invoice XML use.

    Each line total is quantity x unit price rounded half-up to the currency's minor unit
    (from babel: USD 2 digits, JPY 0, BHD 3); the subtotal is their sum; the discount is
    capped at the subtotal (and at zero). Lines are grouped by tax category and rate (a
    line's own ``tax_rate``, else the invoice's): the discount is shared among the groups in
    proportion to their totals (rounded; the last group takes the remainder), and each
    group's tax is (group total - its discount share) x rate / 100 rounded half-up, as EN
    16931 rounds tax per category on the sum, never per line. tax is the groups' sum and
    total = subtotal - discount + tax. With one rate this is (subtotal - discount) x rate.
    Floats are converted through ``str`` so 0.335 stays 0.335. Line items are mappings (or
    objects) with ``description``, ``quantity`` (default 1), ``unit_price`` (default 0) and
    optionally ``tax_category``, ``tax_rate`` and ``tax_exemption_reason``.

    Raises:
        ValueError: for an unknown currency code or a value that is not a finite number.
    """
    code = _currency_code(currency)
    precision = get_currency_precision(code)
    quantum = Decimal(1).scaleb(-precision)

    def money(amount: Decimal) -> Decimal:
        return amount.quantize(quantum, rounding=ROUND_HALF_UP)

    rate = None if tax_rate is None else _decimal(tax_rate, "tax_rate")
    lines = []
    for index, item in enumerate(line_items):
        raw_quantity = _get(item, "quantity")
        raw_price = _get(item, "unit_price")
        quantity = _decimal(1 if raw_quantity is None else raw_quantity, f"line_items[{index}]")
        unit_price = _decimal(0 if raw_price is None else raw_price, f"line_items[{index}]")
        own_rate = _optional_decimal(_get(item, "tax_rate"), f"line_items[{index}]")
        category = _clean(_get(item, "tax_category"))
        if own_rate is None and category in ZERO_RATED:
            own_rate = Decimal(0)
        lines.append(
            InvoiceLine(
                description=_clean(_get(item, "description")),
                quantity=quantity,
                unit_price=unit_price,
                total=money(quantity * unit_price),
                tax_category=category,
                tax_rate=own_rate if own_rate is not None else rate,
                exemption_reason=_clean(_get(item, "tax_exemption_reason")),
            )
        )
    subtotal = money(sum((line.total for line in lines), Decimal(0)))
    applied = Decimal(0) if discount is None else money(_decimal(discount, "discount"))
    applied = max(Decimal(0), min(applied, subtotal))
    taxes = _tax_subtotals(lines, subtotal, applied, money)
    tax = money(sum((group.tax for group in taxes), Decimal(0)))
    return InvoiceTotals(
        currency=code,
        precision=precision,
        lines=tuple(lines),
        subtotal=subtotal,
        discount=applied,
        tax_rate=rate,
        tax=tax,
        total=money(subtotal - applied + tax),
        taxes=taxes,
    )


def _tax_subtotals(
    lines: Sequence[InvoiceLine],
    subtotal: Decimal,
    discount: Decimal,
    money: Any,
) -> tuple[TaxSubtotal, ...]:
    groups: dict[tuple[str | None, Decimal | None], list[InvoiceLine]] = {}
    for line in lines:
        # 19 and 19.0 are one rate: the key is the normalised number.
        key_rate = None if line.tax_rate is None else line.tax_rate.normalize()
        groups.setdefault((line.tax_category, key_rate), []).append(line)
    out: list[TaxSubtotal] = []
    left = discount
    for index, ((category, rate), members) in enumerate(groups.items()):
        lines_total = money(sum((m.total for m in members), Decimal(0)))
        if index == len(groups) - 1:
            share = left
        elif subtotal:
            share = min(left, money(discount * lines_total / subtotal))
        else:
            share = Decimal(0)
        left -= share
        basis = lines_total - share
        tax = money(basis * rate / 100) if rate else money(Decimal(0))
        out.append(
            TaxSubtotal(
                category=category,
                rate=members[0].tax_rate,
                lines_total=lines_total,
                discount=share,
                basis=basis,
                tax=tax,
                exemption_reason=next(
                    (m.exemption_reason for m in members if m.exemption_reason), None
                ),
            )
        )
    return tuple(out)


def format_money(
    amount: Decimal | float | int,
    currency: str,
    *,
    exact: bool = False,
    locale: str = DEFAULT_LOCALE,
) -> str:
    """An amount in the currency's style for the locale, with the currency's own digits.

    ``$1,234.50`` and ``¥1,235`` in ``en``, ``1.234,56 €`` in ``de``, ``￥30,000`` in ``ja``.
    With ``exact``, digits beyond the minor unit are kept (a unit price of $0.335 stays
    ``$0.335`` rather than being shown rounded). Negative amounts carry a true minus sign
    (U+2212, with the locale's direction mark), not the hyphen babel's patterns use.
    """
    number = _decimal(amount, "amount")
    pattern, minus, style = _money_style(locale, currency)
    if style is not None:
        text = style.write(number, exact=exact)
    else:
        loc = document_locale(locale).babel
        text = pattern.apply(number, loc, currency=currency, decimal_quantization=not exact)
    # In a formatted amount the only hyphen-minus is the sign.
    return text.replace("-", minus)


@functools.lru_cache(maxsize=256)
def _money_style(locale: str, currency: str) -> tuple[NumberPattern, str, AmountStyle | None]:
    """The locale's currency pattern with the currency's symbol already in place, the sign
    that replaces the pattern's hyphen-minus, and the pattern's :class:`AmountStyle` (None:
    babel writes it).

    What babel's ``format_currency`` does, minus the per-call work: it looks the pattern up
    and, after every number, the currency's plural name (for ``¤¤¤``, which standard
    patterns lack) and symbol; 65 amounts of a 30-line invoice paid that 65 times (a third
    of the document's Python time). Patterns with ``¤¤`` or ``¤¤¤`` keep them for babel.
    """
    loc = document_locale(locale).babel
    pattern = copy.copy(loc.currency_formats["standard"])
    symbol = get_currency_symbol(currency, loc)

    def place(affix: str) -> str:
        return affix if "¤¤" in affix else affix.replace("¤", symbol)

    pattern.prefix = tuple(place(affix) for affix in pattern.prefix)
    pattern.suffix = tuple(place(affix) for affix in pattern.suffix)
    # The locale's own minus keeps its direction mark (Arabic's LRM), so the sign stays
    # before the digits on an RTL page.
    minus = get_minus_sign_symbol(loc).replace("-", _MINUS)
    return pattern, minus, AmountStyle.of(pattern, loc, get_currency_precision(currency))


#: Parsed once: babel's ``format_decimal`` parses its format string on every call (30 times
#: for a 30-line invoice), then applies it exactly as this does.
_QUANTITY = parse_pattern("#,##0.######")


def _quantity(value: Decimal, locale: Locale) -> str:
    return str(_QUANTITY.apply(value, locale))


def _percent(value: Decimal, locale: Locale) -> str:
    # The locale places the sign and its space: 8.25% in en, 8,25 % in de.
    return format_percent(value / 100, locale=locale, decimal_quantization=False)


# --------------------------------------------------------------------------------------------
# Brand colours


def brand_palette(color: str | None) -> dict[str, str]:
    """The CSS custom properties derived from a brand colour (default: deep indigo).

    ``--rk-brand`` is the colour itself (composited on white if translucent);
    ``--rk-brand-ink`` the same hue darkened until it reads as text on white (4.5:1);
    ``--rk-brand-fg`` black or white, whichever reads better on a brand fill;
    ``--rk-brand-soft`` and ``--rk-brand-tint`` light tints for rules and panels.

    Raises:
        ValueError: for something that is not a CSS colour.
    """
    value = _clean(color) or DEFAULT_BRAND_COLOR
    parsed = parse_color(value)
    if parsed is None:
        msg = f"brand_color: {value[:40]!r} is not a CSS colour"
        raise ValueError(msg)
    r, g, b, alpha = parsed
    brand = mix(WHITE, (r, g, b), alpha)
    return {
        "--rk-brand": to_hex(brand),
        "--rk-brand-ink": to_hex(readable_on(brand, (WHITE,), BLACK, 4.5)),
        "--rk-brand-fg": to_hex(better_of_black_and_white(brand)),
        "--rk-brand-soft": to_hex(mix(brand, WHITE, 0.72)),
        "--rk-brand-tint": to_hex(mix(brand, WHITE, 0.93)),
    }


def _style(color: object) -> str:
    return "; ".join(f"{k}: {v}" for k, v in brand_palette(_clean(color)).items())


# --------------------------------------------------------------------------------------------
# Header and footer templates (Chromium: no page CSS, no web fonts -> inline styles only)

# Noto Sans, a local TrueType family: the installed Inter has CFF outlines, which Chromium
# prints as Type 3 glyphs, and the packaged (TrueType) Inter is a web font these templates
# cannot load. IPAexGothic (TrueType too) gives Japanese labels and titles their glyphs.
_HF_FONT = (
    "font-family: 'Noto Sans', 'DejaVu Sans', 'IPAexGothic', sans-serif;"
    " font-size: 9px; line-height: 1.3"
)
_HF_BOX = (
    f"{_HF_FONT}; color: #6b7280; width: 100%; text-align: center;"
    " -webkit-print-color-adjust: exact; print-color-adjust: exact"
)


def _footer(label: str | None, loc: DocumentLocale) -> str:
    """A centred "<label> · Page N of M" footer in the document's language and direction
    (the label is escaped and shortened)."""
    page = Markup(escape(loc.labels["page"])).format(
        page=Markup('<span class="pageNumber"></span>'),
        total=Markup('<span class="totalPages"></span>'),
    )
    prefix = ""
    if label:
        short = label if len(label) <= 80 else label[:79].rstrip() + "…"
        prefix = f'<span style="color: #9ca3af">{escape(short)}</span>&nbsp;&nbsp;·&nbsp;&nbsp;'
    return f'<div lang="{loc.lang}" dir="{loc.direction}" style="{_HF_BOX}">{prefix}{page}</div>'


# --------------------------------------------------------------------------------------------
# Rendering


@functools.cache
def pdf_css() -> str:
    """The print stylesheet for every built-in document (goes into the shell page once)."""
    path = resources.files("renderkit.pdf").joinpath(f"{_TEMPLATE_DIR}/pdf.css")
    return path.read_text(encoding="utf-8")


def _join_lines(lines: Sequence[str]) -> Markup:
    """Escaped lines joined with ``<br>`` (the templates' ``br`` filter)."""
    return Markup("<br>").join(escape(line) for line in lines)


@functools.cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("renderkit.pdf", _TEMPLATE_DIR),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["br"] = _join_lines
    return env


def _render(template: str, loc: DocumentLocale, **context: Any) -> str:
    """Render a template with the locale's labels (``t``), ``lang`` and ``dir``."""
    fragment = _environment().get_template(f"{template}.html.j2")
    return fragment.render(t=loc.labels, lang=loc.lang, dir=loc.direction, **context)


def _fields(data: Mapping[str, Any], names: str) -> dict[str, str | None]:
    return {name: _clean(data.get(name)) for name in names.split()}


def _printed_lines(notes: Sequence[Sequence[str]]) -> int:
    """Roughly how many lines the notes print as (a blank line between paragraphs)."""
    lines = sum(-(-max(len(line), 1) // _NOTE_LINE_CHARS) for block in notes for line in block)
    return lines + max(len(notes) - 1, 0)


def _payment(raw: object) -> dict[str, str | None] | None:
    """The payment block's printed fields (None for those not given; the IBAN in groups of
    four), or None when no field is given."""
    fields = {
        name: _clean(_get(raw, name))
        for name in ("account_holder", "bank_name", "iban", "bic", "reference")
    }
    if fields["iban"]:
        fields["iban"] = format_iban(fields["iban"])
    if fields["bic"]:
        fields["bic"] = compact(fields["bic"])
    return fields if any(fields.values()) else None


def _party_address(party: object) -> list[str]:
    """An e-invoice party's structured address as printed lines (when no address text is
    given): street, then postcode and city, then the country code."""
    place = " ".join(p for p in (_clean(_get(party, "postcode")), _clean(_get(party, "city"))) if p)
    lines = [_clean(_get(party, "street")), place, _clean(_get(party, "country"))]
    return [line for line in lines if line] if party is not None else []


def _invoice(data: Mapping[str, Any], loc: DocumentLocale) -> RenderedDocument:
    d = _fields(
        data,
        "company_name company_address company_email company_logo client_name client_address"
        " client_email invoice_number invoice_date due_date",
    )
    totals = invoice_totals(
        data.get("line_items") or (),
        currency=_clean(data.get("currency")) or DEFAULT_CURRENCY,
        tax_rate=data.get("tax_rate"),
        discount=data.get("discount"),
    )
    code = totals.currency
    tag, labels = str(loc.babel), loc.labels

    def money(amount: Decimal, *, exact: bool = False) -> str:
        return format_money(amount, code, exact=exact, locale=tag)

    items = [
        {
            "description": line.description,
            "quantity": _quantity(line.quantity, loc.babel),
            "unit_price": money(line.unit_price, exact=True),
            "total": money(line.total),
        }
        for line in totals.lines
    ]
    # The last rows travel with the totals (see invoice.html.j2), so a page break never
    # leaves the totals or the notes alone on the last page.
    tail = min(len(items), _TAIL_ROWS)
    sums = {
        "subtotal": money(totals.subtotal),
        "discount": money(-totals.discount) if totals.discount else None,
        "tax": money(totals.tax) if totals.tax_rate else None,
        "tax_rate": _percent(totals.tax_rate, loc.babel) if totals.tax_rate else None,
        "total": money(totals.total),
    }
    # One row per rate charged (lines may carry their own rates); none without tax.
    taxes = [
        {
            "label": labels["tax"].format(rate=_percent(group.rate, loc.babel)),
            "amount": money(group.tax),
        }
        for group in totals.taxes
        if group.rate
    ]
    if not taxes and totals.tax_rate:
        # A rate with nothing to tax yet still prints its row (at zero).
        rate = _percent(totals.tax_rate, loc.babel)
        taxes = [{"label": labels["tax"].format(rate=rate), "amount": money(totals.tax)}]
    due_date = format_document_date(d["due_date"], tag)
    notes = paragraphs(data.get("notes"))
    body = _render(
        "invoice",
        loc,
        d=d,
        company_address=_address(d["company_address"]) or _party_address(data.get("seller")),
        client_address=_address(d["client_address"]) or _party_address(data.get("buyer")),
        invoice_date=format_document_date(d["invoice_date"], tag),
        due_date=due_date,
        due_by=labels["due_by"].format(date=due_date)
        if iso_date(d["due_date"]) is not None
        else None,
        currency=code,
        items=items[: len(items) - tail],
        tail_items=items[len(items) - tail :],
        money=sums,
        tax_label=labels["tax"].format(rate=sums["tax_rate"]) if sums["tax_rate"] else None,
        taxes=taxes,
        seller_vat_id=_clean(_get(data.get("seller"), "vat_id")),
        buyer_vat_id=_clean(_get(data.get("buyer"), "vat_id")),
        buyer_reference=_clean(data.get("buyer_reference")),
        payment=_payment(data.get("payment")),
        notes=notes,
        notes_with_totals=_printed_lines(notes) <= _NOTES_WITH_TOTALS,
        style=_style(data.get("brand_color")),
    )
    number = d["invoice_number"]
    title = labels["invoice_title"].format(number=number) if number else labels["invoice"]
    client = d["client_name"]
    subject = labels["invoice_subject"].format(client=client) if client else None
    return RenderedDocument(
        body=body,
        title=title,
        author=d["company_name"],
        subject=subject,
        header_template=None,
        footer_template=_footer(title, loc),
        force_landscape=False,
    )


def _name_size(name: str | None) -> str:
    """A size class for the recipient's name so long names still fit on one line or two."""
    length = len(name or "")
    if length <= 22:
        return "xl"
    if length <= 32:
        return "l"
    if length <= 48:
        return "m"
    return "s"


def _compact(title: str, d: Mapping[str, str | None]) -> bool:
    """Whether the certificate has enough text to need the tighter type scale."""
    return (
        len(title) > 40
        or len(d["course_name"] or "") > 60
        or len(d["description"] or "") > 200
        or len(d["recipient_name"] or "") > 48
    )


NAME_STYLES = ("serif", "script", "sans")
"""Faces for the certificate's recipient name; the first is the default."""

# Words left out of a monogram ("Academy of Fine Arts" -> "AF"): they are never initials.
_MONOGRAM_SKIP = frozenset(
    {"a", "an", "and", "de", "der", "die", "du", "for", "la", "le", "of", "the"}
)


def _monogram(issuer: str | None) -> str | None:
    """Up to two initials of the issuer for the seal ("Northwind Academy" -> "NA")."""
    words = [w for w in (issuer or "").split() if w[0].isalpha()]
    initials = [w[0].upper() for w in words if w.casefold() not in _MONOGRAM_SKIP]
    return "".join(initials[:2]) or None


def _seal_edge(teeth: int = 48, outer: float = 60, inner: float = 56.5) -> str:
    """The points of a serrated seal edge (an SVG polygon in a 120-unit square)."""
    points = []
    for index in range(teeth * 2):
        radius = outer if index % 2 == 0 else inner
        angle = math.pi * index / teeth
        points.append(f"{60 + radius * math.sin(angle):.2f},{60 - radius * math.cos(angle):.2f}")
    return " ".join(points)


_SEAL_EDGE = _seal_edge()

# The last two words of a line-wrapped description are tied when together they are short, so
# the paragraph never ends on one word alone (a widow) whatever width the browser breaks at.
_TIE_LIMIT = 24


def _tie_last_words(text: str | None) -> str | None:
    if text is None:
        return None
    head, space, last = text.rstrip().rpartition(" ")
    if not space or " " not in head.strip():
        return text
    before = head.rstrip().rpartition(" ")[2]
    if len(before) + len(last) >= _TIE_LIMIT:
        return text
    return f"{head.rstrip()}\u00a0{last}"


def _certificate(data: Mapping[str, Any], loc: DocumentLocale) -> RenderedDocument:
    d = _fields(
        data,
        "recipient_name title course_name issued_by issued_date signatory_name"
        " signatory_title description logo_url signature_url",
    )
    name_style = _clean(data.get("name_style")) or NAME_STYLES[0]
    if name_style not in NAME_STYLES:
        msg = f"name_style: {name_style[:20]!r} is not one of {', '.join(NAME_STYLES)}"
        raise ValueError(msg)
    title = d["title"] or loc.labels["certificate_title"]
    issued_date = format_document_date(d["issued_date"], str(loc.babel))
    signed = bool(d["signature_url"] or d["signatory_name"] or d["signatory_title"])
    dated = bool(issued_date or d["issued_by"])
    body = _render(
        "certificate",
        loc,
        d=d,
        title=title,
        description=_tie_last_words(d["description"]),
        issued_date=issued_date,
        name_size=_name_size(d["recipient_name"]),
        name_style=name_style,
        compact=_compact(title, d),
        signed=signed,
        dated=dated,
        blocks=int(signed) + int(dated),
        monogram=_monogram(d["issued_by"]),
        seal_edge=_SEAL_EDGE,
        style=_style(data.get("brand_color")),
    )
    recipient = d["recipient_name"]
    return RenderedDocument(
        body=body,
        title=f"{title} — {recipient}" if recipient else title,
        author=d["issued_by"] or d["signatory_name"],
        subject=d["course_name"],
        header_template=None,
        footer_template=None,
        force_landscape=True,
    )


def _sections(raw: object) -> list[dict[str, Any]]:
    sections = []
    for section in raw if isinstance(raw, Sequence) and not isinstance(raw, str) else ():
        bullets = _get(section, "bullets") or ()
        entry = {
            "heading": _clean(_get(section, "heading")),
            "paragraphs": paragraphs(_get(section, "body")),
            "bullets": [b for b in (_clean(x) for x in bullets) if b],
        }
        if entry["heading"] or entry["paragraphs"] or entry["bullets"]:
            sections.append(entry)
    return sections


def _report(data: Mapping[str, Any], loc: DocumentLocale) -> RenderedDocument:
    d = _fields(data, "title subtitle author date company_name logo_url")
    sections = _sections(data.get("sections"))
    body = _render(
        "report",
        loc,
        d=d,
        date=format_document_date(d["date"], str(loc.babel)),
        sections=sections,
        numbered=sum(1 for s in sections if s["heading"]) > 1,
        style=_style(data.get("brand_color")),
    )
    return RenderedDocument(
        body=body,
        title=d["title"],
        author=d["author"] or d["company_name"],
        subject=d["subtitle"],
        header_template=None,
        footer_template=_footer(d["title"], loc),
        force_landscape=False,
    )


def _closing(closing: str | None, loc: DocumentLocale) -> str:
    """The sign-off with its comma ("Yours sincerely,"), unless it ends in punctuation.

    The default sign-off is the locale's; German and Japanese ones take no comma.
    """
    if closing is None:
        text = loc.labels["closing"]
        return f"{text}," if loc.babel.language in _CLOSING_COMMA else text
    return closing if closing[-1] in ",.!?;:…،" else f"{closing},"


# Languages whose letters end the sign-off with a comma (German and Japanese do not).
_CLOSING_COMMA = frozenset({"en", "fr", "es"})


def _letter(data: Mapping[str, Any], loc: DocumentLocale) -> RenderedDocument:
    d = _fields(
        data,
        "sender_name sender_address sender_email recipient_name recipient_title"
        " recipient_company recipient_address date subject closing company_name logo_url",
    )
    body = _render(
        "letter",
        loc,
        d=d,
        letterhead=d["company_name"] or d["sender_name"],
        sender_address=_address(d["sender_address"]),
        recipient_address=_address(d["recipient_address"]),
        date=format_document_date(d["date"], str(loc.babel)),
        paragraphs=paragraphs(data.get("body")),
        closing=_closing(d["closing"], loc),
        style=_style(data.get("brand_color")),
    )
    return RenderedDocument(
        body=body,
        title=d["subject"]
        or (
            loc.labels["letter_to"].format(name=d["recipient_name"])
            if d["recipient_name"]
            else None
        ),
        author=d["sender_name"] or d["company_name"],
        subject=d["subject"],
        header_template=None,
        footer_template=None,
        force_landscape=False,
    )


_RENDERERS = {
    "invoice": _invoice,
    "certificate": _certificate,
    "report": _report,
    "letter": _letter,
}


def render_document(
    template: str, data: Mapping[str, Any], *, locale: str = DEFAULT_LOCALE
) -> RenderedDocument:
    """Render a built-in PDF document.

    Args:
        template: ``invoice``, ``certificate``, ``report`` or ``letter`` (canonical names).
        data: the template's fields under their canonical (variant B) names; any may be
            missing or None. Line items and sections may be mappings or attrs objects.
        locale: labels, dates, numbers and page direction (``en``, ``de-DE``, ``ar``...).

    Raises:
        ValueError: for an unknown template or locale, an unknown currency, a non-numeric
            amount or a brand colour that is not a CSS colour.
    """
    renderer = _RENDERERS.get(template)
    if renderer is None:
        msg = f"unknown PDF template {template!r}; use one of {', '.join(TEMPLATES)}"
        raise ValueError(msg)
    return renderer(data, document_locale(locale))
