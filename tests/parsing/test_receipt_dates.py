"""Receipt dates: month names read with a 0 for their O, and which order numeric dates use."""

from __future__ import annotations

import pytest

from renderkit.parsing.extract.receipt_lines import line_amounts

from ._receipts import page_lines, values

_HEAD = ["MUSTER LADEN AG", "Lindenweg 12", "12345 Musterstadt"]


@pytest.mark.parametrize(
    ("printed", "day"),
    [
        ("DATUM: 16 0kt 2024 11:49", "2024-10-16"),
        ("DATE: 20 0ct 2026 10:01", "2026-10-20"),
        ("DATE: N0V 3, 2025 09:12", "2025-11-03"),
    ],
)
def test_a_month_name_read_with_a_zero_for_its_o_is_still_a_month(printed: str, day: str) -> None:
    rows = [*_HEAD, printed, "BROT 3,00", "TOTAL 3,00"]
    assert values(page_lines(rows))["date"] == day


def test_an_amount_after_a_currency_code_keeps_its_zero() -> None:
    # "RM0.50" is a currency code glued to an amount, not a word of letters with an O in it.
    assert line_amounts(page_lines(["SUGAR RM0.50"])[0]) == ["0.50"]


_US_HEAD = ["Tovan & Brisk Inc.", "27 Kelmore Street", "Brindleton 54321", "TEL: (555) 010-4477"]


@pytest.mark.parametrize("currency", ["$ 12.00", "USD 12.00"])
def test_an_ambiguous_date_on_a_us_receipt_reads_month_first(currency: str) -> None:
    rows = [*_US_HEAD, "DATE: 03/10/2023 12:11", "TEA 12.00", f"TOTAL {currency}"]
    assert values(page_lines(rows))["date"] == "2023-03-10"


def test_a_date_that_shows_its_order_outvotes_the_us_cues() -> None:
    rows = [*_US_HEAD, "DATE: 03/10/2023 12:11", "PAID 25/09/2023", "TOTAL $ 12.00"]
    assert values(page_lines(rows))["date"] == "2023-10-03"


def test_dollars_without_a_north_american_phone_keep_the_day_first() -> None:
    rows = [*_HEAD, "TEL: 03-5386 3111", "DATE: 03/10/2023 12:11", "TOTAL $ 12.00"]
    assert values(page_lines(rows))["date"] == "2023-10-03"
