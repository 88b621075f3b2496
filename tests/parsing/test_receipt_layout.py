"""Receipt fields read through the page layout: labels and values by position."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from renderkit.parsing._protocol import Line, Word
from renderkit.parsing.extract.invoice import day_first_vote
from renderkit.parsing.extract.receipt import receipt_fields


def _row(cells: Sequence[tuple[str, float]], y: float) -> Line:
    # Each cell is printed from its x position, one word a 0.05 step to the right.
    words = tuple(
        Word(text=w, page=1, bbox=(x + 0.05 * i, y, x + 0.05 * i + 0.04, y + 0.02), confidence=0.95)
        for text, x in cells
        for i, w in enumerate(text.split())
    )
    return Line(words=words, page=1)


def _fields(
    rows: Sequence[Sequence[tuple[str, float]]], *, day_first: bool = True
) -> dict[str, object]:
    lines = [_row(cells, 0.05 + 0.04 * i) for i, cells in enumerate(rows)]
    return {k: v.value for k, v in receipt_fields(lines, day_first=day_first).items()}


def test_the_date_is_the_value_printed_right_of_a_date_label() -> None:
    found = _fields(
        [
            [("KEDAI MAJU SDN BHD", 0.1)],
            [("Ref 01/02/2019", 0.1)],
            [("Date:", 0.1), ("15/03/2019", 0.6)],
            [("TOTAL 12.50", 0.1)],
        ]
    )
    assert found["date"] == "2019-03-15"


def test_a_due_date_label_does_not_give_the_receipt_date() -> None:
    found = _fields(
        [
            [("SHOP TRADING", 0.1)],
            [("Due date:", 0.1), ("20/04/2019", 0.6)],
            [("Date:", 0.1), ("15/03/2019", 0.6)],
        ]
    )
    assert found["date"] == "2019-03-15"


def test_a_document_that_writes_the_month_first_is_read_month_first() -> None:
    found = _fields(
        [
            [("SHOP TRADING", 0.1)],
            [("Date:", 0.1), ("03/04/2019", 0.6)],
            [("Printed 12/25/2019 10:15", 0.1)],
        ]
    )
    assert found["date"] == "2019-03-04"


def test_the_date_order_vote_is_day_first_unless_more_dates_show_the_month_first() -> None:
    assert day_first_vote("25/03/2024 and 01/02/2024")
    assert day_first_vote("no dates at all")
    assert not day_first_vote("03/25/2024 and 01/02/2024")
    assert day_first_vote("03/25/2024 and 25/03/2024")


def test_with_no_vote_a_north_american_phone_number_makes_dates_month_first() -> None:
    assert not day_first_vote("Tel (488) 470-1290\nDate of issue: 12/03/2024")
    assert day_first_vote("Tel 0488 470 1290\nDate of issue: 12/03/2024")
    # A date that shows its order outvotes the phone number.
    assert day_first_vote("Tel (488) 470-1290\nDate of issue: 25/03/2024")


def test_the_total_is_the_amount_that_ends_the_row_its_label_opens() -> None:
    found = _fields(
        [
            [("KEDAI MAJU SDN BHD", 0.1)],
            [("Total", 0.1), ("RM", 0.35), ("Incl. of", 0.45), ("GST 6%", 0.6), ("30.10", 0.8)],
            [("CASH", 0.1), ("50.00", 0.8)],
            [("CHANGE", 0.1), ("19.90", 0.8)],
        ]
    )
    assert found["total"] == "30.10"


def test_a_stroke_printed_before_a_total_label_does_not_hide_it() -> None:
    found = _fields(
        [
            [("KEDAI MAJU SDN BHD", 0.1)],
            [("Total 0% supplies:", 0.1), ("26.61", 0.8)],
            [("|", 0.02), ("Total Payable:", 0.2), ("62.60", 0.8)],
        ]
    )
    assert found["total"] == "62.60"


def test_a_total_label_that_ends_a_sentence_gives_no_total() -> None:
    found = _fields(
        [
            [("KEDAI MAJU SDN BHD", 0.1)],
            [("TOTAL", 0.1), ("18.00", 0.8)],
            [("Service charge included in total", 0.1), ("1.80", 0.8)],
        ]
    )
    assert found["total"] == "18.00"


def test_a_payment_within_the_rounding_step_of_the_total_is_the_rounded_total() -> None:
    found = _fields(
        [
            [("KEDAI MAJU SDN BHD", 0.1)],
            [("TOTAL", 0.1), ("10.02", 0.8)],
            [("CASH", 0.1), ("20.00", 0.8)],
            [("CHANGE", 0.1), ("10.00", 0.8)],
        ]
    )
    assert found["total"] == "10.00"


def test_a_nett_total_is_a_total_and_a_count_of_items_is_not() -> None:
    found = _fields(
        [
            [("KEDAI MAJU SDN BHD", 0.1)],
            [("NETT TOTAL", 0.1), ("12.40", 0.8)],
            [("TOTAL QTY:", 0.1), ("3.00", 0.8)],
        ]
    )
    assert found["total"] == "12.40"


@pytest.mark.parametrize(
    ("text", "day_first"),
    [
        # 30 days apart day first, 325 month first: day first, whatever the phone says.
        ("Tel (488) 470-1290\nInvoice date: 10/12/2019\nDue: 09/01/2020", True),
        # The other way round: month first.
        ("Invoice date: 12/10/2019\nDue: 01/09/2020", False),
        # 1 day apart one way, 30 the other: both are an invoice's dates, the phone decides.
        ("Tel (488) 470-1290\nInvoice date: 04/04/2024\nDue: 05/04/2024", False),
        ("Invoice date: 04/04/2024\nDue: 05/04/2024", True),
    ],
)
def test_with_no_vote_dates_months_apart_one_way_and_weeks_the_other_tell_the_order(
    text: str, day_first: bool
) -> None:
    assert day_first_vote(text) is day_first
