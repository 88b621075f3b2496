"""Every written e-invoice passes its XSD and the EN 16931 Schematron (and XRechnung's
rules), and reads back through ``parse`` to the same fields and lines."""

from __future__ import annotations

import string
from decimal import Decimal
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from renderkit import PdfRequest, structure
from renderkit.parsing import ParseRequest, parse
from renderkit.pdf._templates import invoice_totals
from renderkit.pdf.einvoice import (
    XRECHNUNG_RULES,
    pdfa3_with_xml,
    profile_of,
    validate_einvoice_xml,
    write_einvoice,
)

from ._einvoice_data import blank_pdf, pdf_carrying, sample

FORMATS = [
    ("factur-x", "en16931"),
    ("factur-x", "extended"),
    ("zugferd", "en16931"),
    ("zugferd", "xrechnung"),
    ("xrechnung", "xrechnung"),
    ("ubl", "en16931"),
    ("ubl", "xrechnung"),
]


def _written(request: dict[str, Any]) -> tuple[bytes, Any]:
    req = structure(request, PdfRequest)
    return write_einvoice(req.data, req.einvoice_profile_info)  # type: ignore[arg-type]


@pytest.mark.parametrize(("einvoice", "profile"), FORMATS)
def test_the_sample_invoice_passes_the_xsd_and_the_business_rules(
    einvoice: str, profile: str
) -> None:
    _, report = _written(sample(einvoice=einvoice, einvoice_profile=profile))

    assert report.errors == ()
    assert "xsd" in report.checks
    assert f"schematron-{profile_of(einvoice, profile).level}" in report.checks
    assert ("xrechnung-br-de" in report.checks) == (profile == "xrechnung")


def _tampered(xml: bytes, path: str, text: str | None) -> bytes:
    root = etree.fromstring(xml)
    namespaces = {k: v for k, v in root.nsmap.items() if k}
    element = root.xpath(path, namespaces=namespaces)[0]
    if text is None:
        element.getparent().remove(element)
    else:
        element.text = text
    return bytes(etree.tostring(root))


def test_the_schematron_catches_a_grand_total_that_does_not_add_up() -> None:
    xml, _ = _written(sample())
    broken = _tampered(xml, "//ram:GrandTotalAmount", "9999.99")

    report = validate_einvoice_xml(broken, profile_of("factur-x", None))

    assert any(e.startswith("BR-CO-15") for e in report.errors)


def test_the_ubl_schematron_catches_a_wrong_tax_total() -> None:
    xml, _ = _written(sample(einvoice="ubl"))
    broken = _tampered(xml, "/*/cac:TaxTotal/cbc:TaxAmount", "1.00")

    report = validate_einvoice_xml(broken, profile_of("ubl", None))

    assert any(e.startswith("BR-CO-14") for e in report.errors)


def test_the_xsd_catches_an_element_out_of_place() -> None:
    xml, _ = _written(sample(einvoice="ubl"))
    broken = _tampered(xml, "/*/cbc:ID", "x")
    broken = broken.replace(b"<cbc:ID>x</cbc:ID>", b"").replace(
        b"</Invoice>", b"<cbc:ID>x</cbc:ID></Invoice>"
    )

    report = validate_einvoice_xml(broken, profile_of("ubl", None))

    assert report.errors[0].startswith("XSD")


@pytest.mark.parametrize("einvoice", ["xrechnung", "ubl"])
def test_the_xrechnung_rules_catch_a_missing_buyer_reference(einvoice: str) -> None:
    xml, _ = _written(sample(einvoice=einvoice, einvoice_profile="xrechnung"))
    path = "//ram:BuyerReference" if einvoice == "xrechnung" else "/*/cbc:BuyerReference"

    report = validate_einvoice_xml(_tampered(xml, path, None), profile_of(einvoice, "xrechnung"))

    assert [e for e in report.errors if e.startswith("BR-DE")] == [
        "BR-DE-15: the buyer reference (BT-10) must be given"
    ]
    assert "BR-DE-15" in XRECHNUNG_RULES


def test_user_text_cannot_add_markup_to_the_xml() -> None:
    request = sample(einvoice="ubl")
    request["data"]["line_items"][0]["description"] = "</cbc:Name><cbc:Evil/>&amp;"

    xml, report = _written(request)

    assert report.errors == ()
    assert b"<cbc:Evil/>" not in xml
    assert b"&lt;/cbc:Name&gt;&lt;cbc:Evil/&gt;&amp;amp;" in xml


# ------------------------------------------------------------------------------------------
# The round trip: generated invoices -> e-invoice -> XSD + Schematron -> parse

_WORDS = st.text(
    string.ascii_letters + string.digits + " äöüßéèñ-.,&<>'\"", min_size=1, max_size=40
)
_NAMES = _WORDS.map(str.strip).filter(bool).map(lambda s: " ".join(s.split()))
_CATEGORIES = st.sampled_from(["S", "S", "Z", "E", "AE", "G"])


@st.composite
def _lines(draw: st.DrawFn, whole: bool) -> dict[str, Any]:
    category = draw(_CATEGORIES)
    cents = draw(st.integers(0, 500_000))
    line: dict[str, Any] = {
        "description": draw(_NAMES),
        "quantity": draw(st.sampled_from([1, 2, 3, 0.5, 2.25, 10, 12.125])),
        "unit_price": cents if whole else cents / 100,
        "tax_category": category,
    }
    if category == "S":
        line["tax_rate"] = draw(st.sampled_from([19, 7, 20, 5.5, 21, 10]))
    else:
        line["tax_exemption_reason"] = draw(_NAMES)
    return line


@st.composite
def _invoices(draw: st.DrawFn) -> dict[str, Any]:
    einvoice, profile = draw(st.sampled_from(FORMATS))
    currencies = ["EUR", "USD", "GBP", "CHF", "SEK"] + (["JPY"] if profile != "extended" else [])
    currency = draw(st.sampled_from(currencies))
    whole = currency == "JPY"
    lines = draw(st.lists(_lines(whole), min_size=1, max_size=60))
    request = sample(einvoice=einvoice, einvoice_profile=profile)
    data = request["data"]
    data.update(
        currency=currency,
        line_items=lines,
        tax_rate=None,
        discount=draw(st.one_of(st.none(), st.integers(0, 5_000))),
        company_name=draw(_NAMES),
        client_name=draw(_NAMES),
        invoice_number=draw(
            st.text(string.ascii_uppercase + string.digits + "-/", min_size=1, max_size=20)
        ),
        notes=None,
    )
    return request


def _expected(request: dict[str, Any]) -> dict[str, Any]:
    data = request["data"]
    totals = invoice_totals(
        data["line_items"], currency=data["currency"], tax_rate=None, discount=data["discount"]
    )

    def number(value: Decimal) -> int | float:
        return int(value) if value == value.to_integral_value() else float(value)

    return {
        "issuer": data["company_name"],
        "invoice_number": data["invoice_number"],
        "date": data["invoice_date"],
        "due_date": data["due_date"],
        "total": float(totals.total),
        # BT-109, the total without VAT, is after the discount.
        "subtotal": float(totals.subtotal - totals.discount),
        "tax": float(totals.tax),
        "currency": data["currency"],
        "vat_id": "DE123456789",
        "iban": "DE89370400440532013000",
        "customer": data["client_name"],
        "address": "Werftstraße 12, 24143 Kiel, DE",
        "line_items": [
            {
                "description": line.description,
                "quantity": number(line.quantity),
                "unit_price": number(line.unit_price),
                "amount": float(line.total),
            }
            for line in totals.lines
        ],
    }


async def _parsed(pdf: bytes) -> Any:
    with anyio.fail_after(30):
        return await parse(ParseRequest.from_bytes(pdf, "application/pdf"))


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(request=_invoices())
@pytest.mark.anyio
async def test_generated_invoices_are_valid_e_invoices_that_parse_back_exactly(
    request: dict[str, Any],
) -> None:
    xml, report = _written(request)
    assert report.errors == ()
    profile = profile_of(request["einvoice"], request["einvoice_profile"])
    if profile.syntax == "cii":
        pdf = pdfa3_with_xml(
            blank_pdf(), xml, level=profile.level, title=None, author=None, subject=None, lang="de"
        )
    else:
        pdf = pdf_carrying("invoice.xml", xml)

    result = await _parsed(pdf)

    assert result.extractor == "embedded-xml"
    assert result.data == _expected(request)
