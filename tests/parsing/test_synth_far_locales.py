"""Invoices from Switzerland, India, Australia and Canada: a factory option that leaves every
seed's other sets as they were, with their own groupings, signs, tax names and tax numbers."""

from __future__ import annotations

import html
import random
import re
from decimal import Decimal

import pytest

from renderkit.parsing.synth import Variations, make_documents
from renderkit.parsing.synth.layouts import FAR_LOCALES
from renderkit.parsing.synth.render import invoice_html
from renderkit.parsing.synth.values import (
    NUMBER_FORMATS,
    format_amount,
    print_vat_id,
    vat_id,
    vat_is_valid,
)

from ._synth_options import drawn_invoices


def _text(page: str) -> str:
    page = re.sub(r"<style>.*?</style>|<img [^>]*>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_far_locales_leave_a_seeds_documents_as_they_were_without_the_option() -> None:
    pairs = drawn_invoices(
        "far_locales", seed=35, count=30, drawn=lambda d: d.layout.locale.name in FAR_LOCALES
    )
    assert all(plain.layout.locale.name not in FAR_LOCALES for plain, _ in pairs)
    assert 12 <= len(pairs) <= 28


def test_indian_amounts_are_grouped_in_lakhs_and_swiss_ones_with_apostrophes() -> None:
    lakh, swiss = NUMBER_FORMATS["1,23,456.78"], NUMBER_FORMATS["1'234.56"]
    assert format_amount(Decimal("12345678.90"), lakh) == "1,23,45,678.90"
    assert format_amount(Decimal("123456"), lakh) == "1,23,456.00"
    assert format_amount(Decimal("999.5"), lakh) == "999.50"
    assert format_amount(Decimal("1234567.8"), swiss) == "1'234'567.80"


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("CHE116281710MWST", True),  # the federal statistics office's published example
        ("CHE116281711MWST", False),
        ("27AAPFU0939F1ZV", True),  # the GSTN's published example
        ("27AAPFU0939F1ZW", False),
        ("51824753556", True),  # the ATO's published example
        ("51824753557", False),
    ],
)
def test_tax_numbers_of_the_far_locales_are_checked_by_their_own_rules(
    value: str, valid: bool
) -> None:
    assert vat_is_valid(value) is valid


@pytest.mark.parametrize("country", ["CH", "IN", "AU", "CA"])
def test_invented_tax_numbers_pass_their_check_and_print_grouped_as_invoices_do(
    country: str,
) -> None:
    rng = random.Random(country)
    for _ in range(50):
        value = vat_id(country, rng)
        assert vat_is_valid(value)
        printed = print_vat_id(value, rng)
        assert re.sub(r"[\s.\-]", "", printed) == value


def test_split_taxes_print_a_row_each_and_the_truth_is_their_sum() -> None:
    docs = make_documents("invoice", 80, 36, Variations(far_locales=True))
    split = [d for d in docs if d.layout.tax_split]
    assert len(split) >= 5
    for doc in split:
        names = [name for name, _ in doc.layout.tax_split]
        parts = [row for row in doc.summary_rows() if row["role"] == "tax_part"]
        assert [row["label"].split()[0] for row in parts] == names
        assert sum(Decimal(row["value"]) for row in parts) == doc.tax
        assert doc.total == doc.subtotal - doc.discount + doc.shipping + doc.tax
        text = _text(invoice_html(doc))
        assert all(name in text for name in names)
        # The whole tax is printed only by the rows' sum.
        assert ("tax" in doc.printed) is doc.layout.rate_sum


def test_far_invoices_print_their_local_tax_number_under_a_local_label() -> None:
    docs = make_documents("invoice", 60, 37, Variations(far_locales=True))
    far = [d for d in docs if d.layout.locale.name in FAR_LOCALES]
    assert {d.layout.locale.country for d in far} == {"CH", "IN", "AU", "CA"}
    for doc in far:
        assert doc.vat_id is not None and vat_is_valid(doc.vat_id)
        assert doc.labels["vat_id"] in doc.layout.locale.tax_id_labels
        assert doc.printed["vat_id"] in _text(invoice_html(doc))
        assert doc.layout.currency.code == doc.layout.locale.currency
