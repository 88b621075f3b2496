from decimal import Decimal

from renderkit.parsing.extract.identifiers import find_ibans, find_vat_ids, valid_iban
from renderkit.parsing.extract.numbers import (
    COMMA_DECIMAL,
    DOT_DECIMAL,
    detect_format,
    parse_amount,
)


def test_amounts_are_read_with_currency_before_or_after_and_every_negative_form() -> None:
    assert parse_amount("€4,800.00") == Decimal("4800.00")
    assert parse_amount("1.234,56 EUR", COMMA_DECIMAL) == Decimal("1234.56")
    assert parse_amount("1 234,56", COMMA_DECIMAL) == Decimal("1234.56")
    assert parse_amount("1'234.56") == Decimal("1234.56")
    assert parse_amount("(12.00)") == Decimal("-12.00")
    assert parse_amount("- €50.00") == Decimal("-50.00")
    assert parse_amount("1.5") == Decimal("1.5")


def test_the_document_format_decides_an_ambiguous_thousands_separator() -> None:
    fmt = detect_format(["Total 1.234,56", "Tax 19,00"])
    assert fmt == COMMA_DECIMAL
    assert parse_amount("1.500", fmt) == Decimal("1500")
    assert parse_amount("1,500", DOT_DECIMAL) == Decimal("1500")


def test_ibans_must_pass_mod_97_and_vat_ids_their_country_format() -> None:
    assert valid_iban("GB82 WEST 1234 5698 7654 32")
    assert not valid_iban("GB82 WEST 1234 5698 7654 33")
    assert find_ibans("IBAN: GB82 WEST 1234 5698 7654 32 BIC X") == [("GB82WEST12345698765432", 6)]
    assert [v for v, _ in find_vat_ids("VAT: DE 123 456 789, FR 32 123456789")] == [
        "DE123456789",
        "FR32123456789",
    ]
