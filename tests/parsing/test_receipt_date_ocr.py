"""Receipt dates whose month name OCR printed with a 0 for its O."""

from __future__ import annotations

import pytest

from renderkit.parsing.extract.receipt import line_amounts

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
