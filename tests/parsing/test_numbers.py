from decimal import Decimal

from renderkit.parsing.extract.identifiers import (
    find_ibans,
    find_vat_ids,
    repaired_iban,
    valid_iban,
)
from renderkit.parsing.extract.numbers import (
    COMMA_DECIMAL,
    DOT_DECIMAL,
    NumberFormat,
    detect_format,
    find_money,
    parse_amount,
    parse_percent,
)


def _values(text: str, number_format: NumberFormat = COMMA_DECIMAL) -> list[Decimal]:
    return [a.value for a in find_money(text, number_format)]


def test_amounts_are_read_with_currency_before_or_after_and_every_negative_form() -> None:
    assert parse_amount("€4,800.00") == Decimal("4800.00")
    assert parse_amount("1.234,56 EUR", COMMA_DECIMAL) == Decimal("1234.56")
    assert parse_amount("1 234,56", COMMA_DECIMAL) == Decimal("1234.56")
    assert parse_amount("1'234.56") == Decimal("1234.56")
    assert parse_amount("(12.00)") == Decimal("-12.00")
    assert parse_amount("- €50.00") == Decimal("-50.00")
    assert parse_amount("1.5") == Decimal("1.5")


def test_a_minus_before_the_next_amounts_digits_is_that_amounts_sign_not_a_trailing_one() -> None:
    # A summary row read as one segment: total, deposit (negative), amount due.
    assert _values("£64,801.17 £-5,832.11 £58,969.06", DOT_DECIMAL) == [
        Decimal("64801.17"),
        Decimal("-5832.11"),
        Decimal("58969.06"),
    ]
    assert _values("1.234,56- 5,00") == [Decimal("-1234.56"), Decimal("5.00")]
    assert _values("12,50 €-") == [Decimal("-12.50")]


def test_plain_space_thousands_groups_are_one_amount_beside_a_currency_or_a_label() -> None:
    assert _values("15 866,37 €") == [Decimal("15866.37")]
    assert _values("Total 1 234,56") == [Decimal("1234.56")]
    assert _values("Montant TTC : 12 345 678,90 EUR") == [Decimal("12345678.90")]
    assert _values("Total € 2 866,37") == [Decimal("2866.37")]
    assert _values("TVA 20 % 3 173,27") == [Decimal("20"), Decimal("3173.27")]
    assert _values("Total 1 234.56", DOT_DECIMAL) == [Decimal("1234.56")]
    amount = find_money("Total 1 234,56 €", COMMA_DECIMAL)[0]
    assert (amount.start, amount.end, amount.currency) == (6, 16, "€")


def test_a_table_row_with_a_quantity_before_a_price_is_not_read_as_a_grouped_amount() -> None:
    assert Decimal("2866.37") not in _values("2 866,37 1 732,74")
    assert _values("Widget 2 866,37 € 1 732,74 €")[:2] == [Decimal("2"), Decimal("866.37")]
    # Price, quantity, amount: the euro sign before the 2 is the price's, not the amount's.
    assert _values("Widget 50,00 € 2 100,00 €") == [
        Decimal("50.00"),
        Decimal("2"),
        Decimal("100.00"),
    ]
    # After a quantity the sign is the amount's: a lost group separator is still closed.
    assert _values("website design 3 $2 100.00", DOT_DECIMAL) == [Decimal("3"), Decimal("2100.00")]


def test_space_groups_need_the_documents_decimal_separator_and_three_digit_groups() -> None:
    assert _values("Total 1 234,56", DOT_DECIMAL) == [Decimal("1"), Decimal("234.56")]
    assert _values("Total 1 234.56") == [Decimal("1"), Decimal("234.56")]
    assert _values("Total 12 34,56") == [Decimal("12"), Decimal("34.56")]
    assert _values("2024 12,50") == [Decimal("2024"), Decimal("12.50")]
    assert _values("Date 2024 123,50") == [Decimal("2024"), Decimal("123.50")]


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


def test_a_vat_id_printed_with_a_hyphen_after_its_country_is_found_but_a_post_code_is_not() -> None:
    text = "Adószám: HU-12892312 · VAT CY-10259033P"
    assert [v for v, _ in find_vat_ids(text)] == ["HU12892312", "CY10259033P"]
    # A post code after its country's letters is too short for that country's VAT id.
    for address in ("DE-80331 München", "AT-1010 Wien", "NL-1012 AB Amsterdam", "FR-75001 Paris",
                    "IT-00100 Roma", "HU-1051 Budapest", "CY-1010 Nicosia"):  # fmt: skip
        assert find_vat_ids(address) == [], address


def test_an_iban_with_one_look_alike_misread_is_repaired_where_one_change_passes() -> None:
    # A French account number may hold letters: its "I" read as "1" fails the checksum.
    assert repaired_iban("FR3230004012341012345678900") == "FR323000401234I012345678900"
    # A German IBAN is digits only: an "O" read for a "0".
    assert repaired_iban("DE8937O400440532013000") == "DE89370400440532013000"
    # Run into the next word, it is cut to its country's length first.
    assert repaired_iban("DE8937O400440532013000BIC") == "DE89370400440532013000"
    # No single look-alike change passes: not repaired (nor guessed).
    assert repaired_iban("DE89370400440532013999") is None
    assert repaired_iban("XX89370400440532013000") is None


def test_an_iban_of_a_country_outside_the_table_needs_the_registrys_shape() -> None:
    # identifiers.valid_iban: an invoice number run into the next words passed mod 97 as a
    # prefix of some length; a country with no IBAN has none, one in the registry keeps it.
    assert find_ibans("Invoice #: RT55884 Original invoice date: 2025-09-08") == []
    assert valid_iban("SA03 8000 0000 6080 1016 7519")
    assert valid_iban("BR18 0036 0305 0000 1000 9795 493C 1")


def test_a_rate_in_brackets_is_that_rate_not_a_negative_one() -> None:
    # numbers.parse_percent: "(6 %)" read as -6, as brackets make an amount negative, so no
    # tax was ever 6 % of its base on the row "Tax included (6 %)".
    assert parse_percent("Tax included (6 %) US$ 455.92") == Decimal(6)
    assert parse_percent("MwSt. (19%)") == Decimal(19)
    assert parse_percent("TVA 5,5 %", COMMA_DECIMAL) == Decimal("5.5")
