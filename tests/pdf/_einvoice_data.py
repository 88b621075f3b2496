"""A complete Factur-X invoice request (the one the e-invoice guide shows) and helpers."""

from __future__ import annotations

import copy
import io
from typing import Any

from pypdf import PdfWriter

SAMPLE: dict[str, Any] = {
    "template": "invoice",
    "einvoice": "factur-x",
    "locale": "de-DE",
    "data": {
        "company_name": "Nordlicht Werkzeuge GmbH",
        "company_email": "rechnung@nordlicht.example",
        "client_name": "Hafenbau Kiel AG",
        "client_email": "kreditoren@hafenbau.example",
        "invoice_number": "NW-2026-0815",
        "invoice_date": "2026-03-02",
        "due_date": "2026-04-01",
        "currency": "EUR",
        "tax_rate": 19,
        "discount": 25,
        "buyer_reference": "04011000-12345-03",
        "seller": {
            "street": "Werftstraße 12",
            "postcode": "24143",
            "city": "Kiel",
            "country": "DE",
            "vat_id": "DE 123 456 789",
            "contact_name": "Jana Ohlsen",
            "phone": "+49 431 555 0100",
        },
        "buyer": {
            "street": "Kaistraße 1",
            "postcode": "24103",
            "city": "Kiel",
            "country": "DE",
            "vat_id": "DE987654321",
        },
        "payment": {
            "account_holder": "Nordlicht Werkzeuge GmbH",
            "iban": "DE89 3704 0044 0532 0130 00",
            "bic": "COBADEFFXXX",
            "reference": "NW-2026-0815",
        },
        "line_items": [
            {"description": "Drehmomentschlüssel 40-200 Nm", "quantity": 4, "unit_price": 189.9},
            {
                "description": "Montage vor Ort",
                "quantity": 6.5,
                "unit_price": 78,
                "unit_code": "HUR",
            },
            {
                "description": "Fachbuch Schweißtechnik",
                "quantity": 2,
                "unit_price": 49.95,
                "tax_rate": 7,
            },
            {
                "description": "Versicherung des Transports",
                "quantity": 1,
                "unit_price": 35,
                "tax_category": "E",
                "tax_exemption_reason": "Steuerfrei nach § 4 Nr. 10 UStG",
            },
        ],
        "notes": "Vielen Dank für Ihren Auftrag.",
    },
}


def sample(**changes: Any) -> dict[str, Any]:
    """A deep copy of SAMPLE with top-level ``changes``."""
    request = copy.deepcopy(SAMPLE)
    request.update(changes)
    return request


def blank_pdf() -> bytes:
    """A one-page PDF without text (the XML carries everything)."""
    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def pdf_carrying(name: str, xml: bytes) -> bytes:
    """A blank PDF with ``xml`` attached as ``name``."""
    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    writer.add_attachment(name, xml)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
