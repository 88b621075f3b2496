"""Invoice payment details (IBAN, BIC...) and whole amounts in currencies without cents."""

from __future__ import annotations

import re
from typing import Any

import pytest

from renderkit import InvalidRequestError
from renderkit.core.converter import structure
from renderkit.pdf import InvoiceData, PaymentDetails, PdfRequest
from renderkit.pdf._payment import bic_problem, format_iban, iban_problem
from renderkit.pdf._templates import render_document

PAYMENT = {
    "account_holder": "Northwind Studio GmbH",
    "bank_name": "Commerzbank",
    "iban": "de89 3704 0044 0532 0130 00",
    "bic": "cobadeffxxx",
    "reference": "INV-0042",
}


def text_of(body: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)).strip()


def invoice_errors(data: dict[str, Any]) -> list[str]:
    with pytest.raises(InvalidRequestError) as caught:
        structure({"template": "invoice", "data": data}, PdfRequest)
    return [str(e) for e in caught.value.errors]


@pytest.mark.parametrize(
    "iban",
    [
        "DE89370400440532013000",
        "GB82 WEST 1234 5698 7654 32",
        "fr14 2004 1010 0505 0001 3m02 606",
        "NL91-ABNA-0417-1643-00",
    ],
)
def test_real_ibans_pass_the_mod_97_check_in_any_spacing(iban: str) -> None:
    assert iban_problem(iban) is None


@pytest.mark.parametrize(
    ("iban", "why"),
    [
        ("DE89370400440532013001", "check digits do not match"),  # last digit mistyped
        ("DE98370400440532013000", "check digits do not match"),  # check digits swapped
        ("GB82WEST12345698765423", "check digits do not match"),  # neighbours swapped
        ("DE8937", "is not an IBAN"),
        ("1289370400440532013000", "is not an IBAN"),
        ("DE89 3704 0044 0532 0130 0€", "is not an IBAN"),
    ],
)
def test_mistyped_or_malformed_ibans_are_refused_with_the_reason(iban: str, why: str) -> None:
    problem = iban_problem(iban)
    assert problem is not None
    assert why in problem


def test_an_iban_is_printed_in_groups_of_four() -> None:
    assert format_iban("de89370400440532013000") == "DE89 3704 0044 0532 0130 00"
    assert format_iban("GB82 WEST 1234 5698 7654 32") == "GB82 WEST 1234 5698 7654 32"


@pytest.mark.parametrize("bic", ["COBADEFFXXX", "COBADEFF", "deutdeff500", "NWBK GB 2L"])
def test_bics_of_eight_or_eleven_characters_are_accepted(bic: str) -> None:
    assert bic_problem(bic) is None


@pytest.mark.parametrize("bic", ["COBADEF", "COBADEFFXX", "1OBADEFFXXX", "COBA12FFXXX", ""])
def test_bics_of_the_wrong_shape_are_refused(bic: str) -> None:
    assert bic_problem(bic) is not None


def test_payment_field_errors_are_named_under_data_payment() -> None:
    errors = invoice_errors({"payment": {"iban": "DE89370400440532013001", "bic": "NOPE"}})
    assert len(errors) == 2
    assert errors[0].startswith("data.payment.iban: is not a valid IBAN")
    assert errors[1].startswith("data.payment.bic: is not a BIC")


def test_the_payment_block_is_built_from_the_model_or_a_dict() -> None:
    model = InvoiceData(payment=PaymentDetails(iban="DE89370400440532013000"))
    assert model.payment is not None
    assert model.payment.iban == "DE89370400440532013000"
    request = structure({"template": "invoice", "data": {"payment": PAYMENT}}, PdfRequest)
    assert isinstance(request.data, InvoiceData)
    assert request.data.payment == PaymentDetails(**PAYMENT)


def test_the_payment_block_prints_every_given_field_with_the_iban_grouped() -> None:
    text = text_of(render_document("invoice", {"payment": PAYMENT}).body)
    for printed in (
        "Payment details",
        "Account holder Northwind Studio GmbH",
        "Bank Commerzbank",
        "IBAN DE89 3704 0044 0532 0130 00",
        "BIC / SWIFT COBADEFFXXX",
        "Payment reference INV-0042",
    ):
        assert printed in text, printed


def test_the_payment_block_shows_only_the_fields_given_and_is_absent_without_any() -> None:
    text = text_of(render_document("invoice", {"payment": {"reference": "R-1"}}).body)
    assert "Payment reference R-1" in text
    assert "IBAN" not in text and "Bank" not in text
    for payment in (None, {}, {"iban": None, "bic": " "}):
        body = render_document("invoice", {"payment": payment}).body
        assert "Payment details" not in text_of(body)
        assert "inv-payment" not in body


def test_the_payment_block_is_translated() -> None:
    text = text_of(render_document("invoice", {"payment": PAYMENT}, locale="de").body)
    assert "Zahlungsinformationen" in text
    assert "Verwendungszweck INV-0042" in text


def test_a_fractional_amount_in_a_currency_without_cents_is_refused_naming_the_field() -> None:
    errors = invoice_errors(
        {
            "currency": "JPY",
            "line_items": [
                {"description": "ok", "unit_price": 30000},
                {"description": "half a yen", "unit_price": 30000.5},
            ],
            "discount": 0.25,
        }
    )
    assert errors == [
        "data.line_items[1].unit_price: JPY has no minor unit: 30000.5 is not a whole amount",
        "data.discount: JPY has no minor unit: 0.25 is not a whole amount",
    ]


def test_fractions_stay_allowed_where_the_currency_has_a_minor_unit() -> None:
    for currency in ("USD", "EUR", "BHD"):
        request = structure(
            {
                "template": "invoice",
                "data": {"currency": currency, "line_items": [{"unit_price": 0.335}]},
            },
            PdfRequest,
        )
        assert isinstance(request.data, InvoiceData)
        assert request.data.line_items[0].unit_price == 0.335
    # Whole yen with a fractional quantity: the line total is rounded to the yen.
    text = text_of(
        render_document(
            "invoice",
            {"currency": "JPY", "line_items": [{"quantity": 1.5, "unit_price": 333}]},
            locale="ja",
        ).body
    )
    assert "￥500" in text and "499.5" not in text


def test_short_notes_travel_with_the_totals_and_long_notes_flow_after_them() -> None:
    items = [{"description": "Work", "unit_price": 10}]
    short = render_document("invoice", {"line_items": items, "notes": "Thanks.\nPay in 30 days."})
    # The items table closes last: the totals table and short notes are inside its tail.
    assert short.body.index("rkd-notes") < short.body.rindex("</table>")
    long_notes = "\n\n".join("Terms apply to every delivery. " * 8 for _ in range(12))
    long = render_document("invoice", {"line_items": items, "notes": long_notes})
    assert long.body.index("rkd-notes") > long.body.rindex("</table>")
    assert long.body.index("inv-summary") < long.body.rindex("</table>")
