"""renderkit reads what renderkit writes: invoices rendered by ``render_pdf``, parsed back.

Hypothesis invents invoices (1-60 lines, several currencies, discounts, tax rates, fractional
quantities, descriptions long enough to wrap), the built-in ``invoice`` template prints them
through a real Chromium, and :func:`renderkit.parse` reads them back with the local extractor:

- from the PDF's text layer, every header field and every line item must come back exactly;
- from a 300 dpi PNG of the first page (through OCR), with a tolerance that is part of the
  contract: no header field is ever wrong, at most one is missing, every total is exact, and
  at least 90% of the line items are exact.

The template prints amounts the ``en_US`` way whatever the currency (``€1,234.50``, ``¥1,235``,
``CHF 1,234.50``), so the "locales" varied here are the currencies' signs, codes and minor units.
"""

from __future__ import annotations

import base64
import datetime
import io
from decimal import Decimal
from typing import Any

import pypdfium2
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from renderkit import parse, render_pdf
from renderkit.browser import ChromiumPool
from renderkit.pdf._templates import InvoiceTotals, invoice_totals

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

#: What a user asks for: one property per header field, named the way people name them.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "invoice_number": {"type": "string"},
        "invoice_date": {"type": "string"},
        "due_date": {"type": "string"},
        "issuer": {"type": "string"},
        "customer": {"type": "string"},
        "currency": {"type": "string"},
        "subtotal": {"type": "number"},
        "discount": {"type": "number"},
        "tax": {"type": "number"},
        "total": {"type": "number"},
        "line_items": {"type": "array"},
    },
}

# Ordinary words that are no invoice label in any lexicon, so a description never reads as one.
_WORDS = (
    "brand", "strategy", "workshop", "onsite", "cloud", "migration", "annual", "licence",
    "premium", "hosting", "months", "consulting", "review", "audit", "catalogue", "photography",
    "copywriting", "translation", "backend", "frontend", "integration", "maintenance",
    "retainer", "illustration", "packaging", "prototype", "research", "interviews", "analytics",
    "dashboard", "onboarding", "mentoring", "keynote", "editing", "newsletter", "campaign",
)  # fmt: skip
_NAMES = (
    "Northwind", "Harbour", "Bluebell", "Meridian", "Copperleaf", "Fjord", "Alder", "Quartz",
    "Saffron", "Kestrel",
)  # fmt: skip
# Legal forms ending in a dot ("Inc.") are left out: the receipt rules' cleaning drops the dot
# of a name at the top of the page, a known gap of local.py's merge, not of the layout.
_LEGAL_FORMS = ("Ltd", "GmbH", "Inc", "LLC", "AG")
_SUFFIXES = (*_LEGAL_FORMS, "Studio", "Partners", "Labs")
_CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CHF")


def _name(suffixes: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.builds(
        lambda a, b, s: f"{a} {b} {s}",
        st.sampled_from(_NAMES),
        st.sampled_from(_NAMES),
        st.sampled_from(suffixes),
    )


def _description(max_words: int) -> st.SearchStrategy[str]:
    words = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=max_words)
    return words.map(lambda ws: " ".join(ws).capitalize())


def _quantity() -> st.SearchStrategy[Decimal]:
    whole = st.integers(1, 400).map(Decimal)
    # Halves and quarters: "1.5", "2.25" hours.
    fraction = st.integers(1, 80).map(lambda n: Decimal(n) / 4)
    return st.one_of(whole, fraction)


def _unit_price(precision: int) -> st.SearchStrategy[Decimal]:
    return st.integers(100, 5_000_000).map(lambda cents: (Decimal(cents) / 100).quantize(
        Decimal(1).scaleb(-precision)) if precision else Decimal(max(1, cents // 100)))  # fmt: skip


@st.composite
def invoices(
    draw: st.DrawFn, *, max_lines: int = 60, max_words: int = 24, legal_forms: bool = False
) -> dict[str, Any]:
    """Invoice data for the ``invoice`` template (company names with a legal form if asked)."""
    currency = draw(st.sampled_from(_CURRENCIES))
    precision = 0 if currency == "JPY" else 2
    lines = draw(
        st.lists(
            st.builds(
                lambda d, q, p: {"description": d, "quantity": float(q), "unit_price": float(p)},
                _description(max_words),
                _quantity(),
                _unit_price(precision),
            ),
            min_size=1,
            max_size=max_lines,
        )
    )
    issued = draw(st.dates(datetime.date(2000, 1, 1), datetime.date(2035, 12, 31)))
    due = issued + datetime.timedelta(days=draw(st.sampled_from((7, 14, 30, 45, 60))))
    names = _name(_LEGAL_FORMS if legal_forms else _SUFFIXES)
    company, client = draw(st.lists(names, min_size=2, max_size=2, unique=True))
    data: dict[str, Any] = {
        "company_name": company,
        "company_address": draw(st.sampled_from(("12 Harbour Street\nBristol BS1 4XX", None))),
        "client_name": client,
        "client_address": draw(st.sampled_from(("4 Rue du Port\n69002 Lyon", None))),
        "invoice_number": draw(st.from_regex(r"(INV|RE|F)-20[0-9]{2}-[0-9]{3,5}", fullmatch=True)),
        "invoice_date": issued.isoformat(),
        "due_date": due.isoformat(),
        "currency": currency,
        # Floats as JSON carries them; the renderer reads them back through str(), exactly.
        "line_items": lines,
        "tax_rate": draw(st.sampled_from((None, 5, 7.5, 8.25, 19, 20))),
    }
    totals = _totals(data)
    if draw(st.booleans()):
        data["discount"] = float(
            (totals.subtotal * draw(st.sampled_from((Decimal("0.05"), Decimal("0.1"))))).quantize(
                Decimal(1).scaleb(-precision)
            )
        )
    return data


def _long_invoice() -> dict[str, Any]:
    """60 lines over several pages, wrapping descriptions, yen rounding (2.5 x ¥7 = ¥18)."""
    lines = [
        {
            "description": " ".join(_WORDS[(i + k) % len(_WORDS)] for k in range(3 + i % 17)),
            "quantity": (1.5, 2.5, 12.0, 1000.0)[i % 4],
            "unit_price": (7.0, 4800.0, 29.0, 1.0)[i % 4],
        }
        for i in range(60)
    ]
    return {
        "company_name": "Copperleaf Fjord GmbH",
        "client_name": "Contoso Ltd",
        "invoice_number": "RE-2026-0917",
        "invoice_date": "2026-02-28",
        "due_date": "2026-03-30",
        "currency": "JPY",
        "line_items": lines,
        "tax_rate": 10,
        "discount": 5000.0,
    }


def _discounted_below_its_line() -> dict[str, Any]:
    """One line and a discount, no tax: the total (¥10) is below the line's amount (¥11)."""
    return {
        "company_name": "Northwind Ltd",
        "company_address": "12 Harbour Street\nBristol BS1 4XX",
        "client_name": "Contoso GmbH",
        "client_address": "4 Rue du Port\n69002 Lyon",
        "invoice_number": "INV-2000-000",
        "invoice_date": "2000-01-01",
        "due_date": "2000-01-08",
        "currency": "JPY",
        "line_items": [{"description": "Brand", "quantity": 11.0, "unit_price": 1.0}],
        "tax_rate": None,
        "discount": 1.0,
    }


def _totals(data: dict[str, Any]) -> InvoiceTotals:
    """The renderer's own arithmetic: what the page prints."""
    return invoice_totals(
        data["line_items"],
        currency=data["currency"],
        tax_rate=data["tax_rate"],
        discount=data.get("discount"),
    )


def _expected(data: dict[str, Any]) -> dict[str, Any]:
    totals = _totals(data)
    expected: dict[str, Any] = {
        "invoice_number": data["invoice_number"],
        "invoice_date": data["invoice_date"],
        "due_date": data["due_date"],
        "issuer": data["company_name"],
        "customer": data["client_name"],
        "currency": data["currency"],
        "subtotal": float(totals.subtotal),
        # Without a tax line the tax is read as what it is: zero.
        "tax": float(totals.tax),
        "total": float(totals.total),
    }
    if totals.discount:
        expected["discount"] = float(totals.discount)
    return expected


def _expected_items(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "description": " ".join((line.description or "").split()),
            "quantity": float(line.quantity),
            "unit_price": float(line.unit_price),
            "amount": float(line.total),
        }
        for line in _totals(data).lines
    ]


def _header(data: dict[str, Any]) -> dict[str, Any]:
    got = {name: data.get(name) for name in SCHEMA["properties"] if name != "line_items"}
    # A discount is printed as a negative amount ("-€12.00"): its size is what was given.
    if isinstance(got["discount"], float):
        got["discount"] = abs(got["discount"])
    return {name: value for name, value in got.items() if value is not None}


async def _parse(content: bytes, mime_type: str) -> Any:
    return await parse(
        {"file": base64.b64encode(content).decode(), "mimeType": mime_type, "schema": SCHEMA}
    )


def _first_page_png(pdf: bytes, dpi: int = 300) -> bytes:
    document = pypdfium2.PdfDocument(pdf)
    try:
        bitmap = document[0].render(scale=dpi / 72)
        out = io.BytesIO()
        bitmap.to_pil().save(out, "PNG")
        return out.getvalue()
    finally:
        document.close()


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=invoices())
@example(data=_long_invoice())
@example(data=_discounted_below_its_line())
async def test_every_header_field_and_line_item_of_a_rendered_invoice_pdf_comes_back_exactly(
    pool: ChromiumPool, data: dict[str, Any]
) -> None:
    rendered = await render_pdf({"template": "invoice", "data": data}, browser=pool)
    result = await _parse(rendered.content, "application/pdf")
    assert result.document_type == "invoice"
    assert _header(result.data) == _expected(data)
    assert result.data["line_items"] == _expected_items(data)
    # Everything agrees, so nothing is reported as suspicious (an invoice without a discount
    # rightly says it has none).
    absent = () if "discount" in _expected(data) else ("discount: not found in the document",)
    assert result.warnings == absent


# OCR is slow and its misreads are what the tolerance absorbs: the same examples every run keep
# the test deterministic (the PDF test above explores freely).
@settings(
    max_examples=4,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# From OCR, an issuer without a legal form ("... Studio") is guessed from the top of the page and
# the receipt rules' guess (the first address line) can win in local.py's merge: a known gap left
# to the header-field work, so the names here carry a legal form.
@given(data=invoices(max_lines=8, max_words=8, legal_forms=True))
async def test_a_png_of_a_rendered_invoice_reads_back_within_the_documented_tolerance(
    pool: ChromiumPool, data: dict[str, Any]
) -> None:
    rendered = await render_pdf({"template": "invoice", "data": data}, browser=pool)
    result = await _parse(_first_page_png(rendered.content), "image/png")
    # The tolerance: no header field or total is ever wrong; at most one header field may be
    # missing (Tesseract misreads small grey capitals such as "DUE DATE" now and then); at
    # least 90% of the line items are exact.
    got, want = _header(result.data), _expected(data)
    assert {name: got[name] for name in got if name in want} == {
        name: want[name] for name in got if name in want
    }
    assert set(got) <= set(want)
    assert len(set(want) - set(got)) <= 1, set(want) - set(got)
    for name in ("subtotal", "tax", "total"):
        assert got[name] == want[name]
    expected = _expected_items(data)
    items = result.data["line_items"] or []
    exact = sum(item in items for item in expected)
    assert exact >= 0.9 * len(expected), (items, expected)
