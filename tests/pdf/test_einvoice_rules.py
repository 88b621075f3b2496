"""What an e-invoice request must state, and the one calculation the page and the XML share."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from renderkit import InvalidRequestError, PdfRequest, structure
from renderkit.pdf._templates import invoice_totals

from ._einvoice_data import SAMPLE, sample


def _fields(request: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(InvalidRequestError) as caught:
        structure(request, PdfRequest)
    return {e.field: e.message for e in caught.value.errors}


def test_a_plain_invoice_needs_none_of_the_e_invoice_fields() -> None:
    request = structure({"template": "invoice", "data": {"line_items": []}}, PdfRequest)

    assert request.einvoice is None


def test_the_sample_factur_x_request_is_accepted() -> None:
    request = structure(SAMPLE, PdfRequest)

    assert request.einvoice_profile_info.level == "en16931"
    assert request.data.seller is not None
    assert request.data.seller.vat_id == "DE123456789"  # spaces dropped


def test_an_e_invoice_without_seller_country_and_vat_id_names_both_fields() -> None:
    request = sample()
    request["data"]["seller"] = {"street": "Werftstraße 12"}

    fields = _fields(request)

    assert "data.seller.country" in fields
    assert "data.seller.vat_id" in fields


def test_an_exempt_line_without_a_reason_names_that_lines_field() -> None:
    request = sample()
    del request["data"]["line_items"][3]["tax_exemption_reason"]

    assert "BR-E-10" in _fields(request)["data.line_items[3].tax_exemption_reason"]


def test_a_reverse_charge_line_needs_the_buyers_vat_id() -> None:
    request = sample()
    request["data"]["line_items"][0].update(tax_category="AE", tax_exemption_reason="Reverse")
    del request["data"]["buyer"]["vat_id"]

    assert "BR-AE-02" in _fields(request)["data.buyer.vat_id"]


def test_a_line_without_category_or_rate_asks_for_a_category() -> None:
    request = sample()
    request["data"]["tax_rate"] = None
    request["data"]["line_items"] = [{"description": "Beratung", "unit_price": 10}]

    assert "data.line_items[0].tax_category" in _fields(request)


def test_xrechnung_asks_for_the_buyer_reference_and_the_seller_contact() -> None:
    request = sample(einvoice="xrechnung")
    del request["data"]["buyer_reference"]
    del request["data"]["seller"]["phone"]

    fields = _fields(request)

    assert "BR-DE-15" in fields["data.buyer_reference"]
    assert "BR-DE-6" in fields["data.seller.phone"]


def test_an_unknown_profile_names_the_profiles_the_format_supports() -> None:
    message = _fields(sample(einvoice_profile="minimum"))["einvoice_profile"]

    assert "en16931" in message
    assert "extended" in message


def test_einvoice_is_refused_on_other_templates() -> None:
    fields = _fields({"template": "letter", "einvoice": "ubl", "data": {"body": "Hallo"}})

    assert "einvoice" in fields


def test_a_currency_with_three_decimals_cannot_be_an_e_invoice() -> None:
    request = sample()
    request["data"]["currency"] = "BHD"

    assert "BR-DEC" in _fields(request)["data.currency"]


def test_tax_is_rounded_per_category_after_sharing_the_discount() -> None:
    data = SAMPLE["data"]

    totals = invoice_totals(
        data["line_items"], currency="EUR", tax_rate=data["tax_rate"], discount=data["discount"]
    )

    assert totals.subtotal == Decimal("1401.50")
    assert [(g.category, g.rate, g.basis, g.tax) for g in totals.taxes] == [
        (None, Decimal(19), Decimal("1244.01"), Decimal("236.36")),
        (None, Decimal(7), Decimal("98.12"), Decimal("6.87")),
        ("E", Decimal(0), Decimal("34.37"), Decimal("0.00")),
    ]
    assert sum(g.discount for g in totals.taxes) == Decimal(25)
    assert totals.tax == Decimal("243.23")
    assert totals.total == Decimal("1619.73")


def test_one_rate_gives_the_same_tax_as_before_the_categories() -> None:
    lines = [{"quantity": 3, "unit_price": 0.335}, {"quantity": 1, "unit_price": 10}]

    totals = invoice_totals(lines, currency="USD", tax_rate=8.25, discount=1)

    assert totals.tax == ((totals.subtotal - 1) * Decimal("8.25") / 100).quantize(Decimal("0.01"))
    assert len(totals.taxes) == 1


def test_a_control_character_that_xml_cannot_hold_is_refused_naming_the_field() -> None:
    request = sample(einvoice="ubl")
    request["data"]["line_items"][1]["description"] = "Montage\x07"

    assert "control characters" in _fields(request)["data.line_items[1].description"]


def test_a_currency_without_cents_is_refused_for_the_extended_profile_only() -> None:
    request = sample(einvoice_profile="extended")
    request["data"]["currency"] = "JPY"
    request["data"]["line_items"][0]["unit_price"] = 18990
    request["data"]["line_items"][2]["unit_price"] = 4995

    assert "en16931" in _fields(request)["data.currency"]
    request["einvoice_profile"] = "en16931"
    assert structure(request, PdfRequest).data.currency == "JPY"
