"""A receipt's total told by its own sums: a run adding up to it and a payment leaving it."""

from __future__ import annotations

from decimal import Decimal

import attrs

from renderkit.parsing._protocol import Line
from renderkit.parsing.extract.receipt_lines import line_amounts
from renderkit.parsing.extract.receipt_sums import summed_total

from ._receipts import header_lines, page_lines, values

_HEAD = ["MUSTER LADEN AG", "Lindenweg 12", "12345 Musterstadt", "DATUM 05.03.2024 12:30"]


def test_a_total_under_a_label_no_lexicon_holds_is_found_by_the_receipts_sums() -> None:
    # "Zu entrichten" and "Gegeben"/"Retour" are in no word list: only the arithmetic knows.
    rows = [
        *_HEAD,
        "BROT 2 x 1,50 3,00",
        "KAFFEE 1 x 4,20 4,20",
        "WARENWERT 7,20",
        "STEUER 7% 0,50",
        "ZU ENTRICHTEN 7,70",
        "GEGEBEN 10,00",
        "RETOUR 2,30",
    ]
    found = values(page_lines(rows))
    assert found["total"] == "7.70"


def test_a_label_read_beside_the_wrong_amount_gives_way_to_the_sums() -> None:
    # A photo's rows ran together: each label sits beside the amount of the row above it.
    rows = [
        *_HEAD,
        "TEA 3 x 7.74 23.22",
        "RICE 4 x 31.09 124.36",
        "TAX 8% SUBTOTAL 147.58",
        "TOTAL 11.81",
        "CASH 159.39",
        "CHANGE 200.00",
        "40.61",
    ]
    found = values(page_lines(rows))
    assert found["total"] == "159.39"


def test_a_total_whose_amount_ocr_lost_is_what_the_subtotal_block_and_the_payment_agree_on() -> (
    None
):
    rows = [
        *_HEAD,
        "TOTAL HT 41,54",
        "TVA 10% 4,15",
        "TOTAL TTC EUR",
        "PAYE 50,00",
        "RETOUR 4,31",
    ]
    assert values(page_lines(rows))["total"] == "45.69"


def test_one_sum_alone_names_no_total() -> None:
    # 10.00 - 4.00 = 6.00 is printed, but no run adds up to it: a coincidence, not a total.
    lines = page_lines(["A 1,00", "B 6,00", "C 10,00", "D 4,00"])
    assert summed_total(lines, line_amounts) is None
    # With a run adding up to it (1 + 5 = 6), both sums agree.
    lines = page_lines(["A 1,00", "B 5,00", "C 6,00", "D 10,00", "E 4,00"])
    found = summed_total(lines, line_amounts)
    assert found is not None
    assert found.value == Decimal("6.00")


def test_an_exact_payment_confirms_nothing() -> None:
    # Paying 6,00 with 0,00 back leaves every amount itself: no change, no proof.
    lines = page_lines(["A 1,00", "B 5,00", "C 6,00", "D 6,00", "E 0,00"])
    assert summed_total(lines, line_amounts) is None


def test_a_packs_size_on_an_item_line_does_not_break_the_items_run() -> None:
    # "1.5L" is no price: the items 4,00 + 3,00 still add up to the total the payment leaves.
    rows = [*_HEAD, "BREAD", "1 x 4,00 4,00", "WATER 1.5L", "1 x 3,00 3,00"]
    rows += ["ZU ENTRICHTEN 7,00", "GEGEBEN 10,00", "RETOUR 3,00"]
    assert values(page_lines(rows))["total"] == "7.00"


def _amount_at_right_edge(line: Line) -> Line:
    # A till prints its amounts at the right edge, apart from the label: two segments.
    *label, amount = line.words
    box = amount.bbox
    return Line(words=(*label, attrs.evolve(amount, bbox=(0.8, box[1], 0.9, box[3]))), page=1)


def test_a_label_read_beside_the_tax_gives_way_to_the_sums_even_above_the_payment() -> None:
    # The total's row is followed by the cash row, which vouches for a total label's amount
    # when it is the amount paid; here the label sits beside the tax.
    rows = [*_HEAD, "TEA 2 x 5.00 10.00", "RICE 1 x 20.00 20.00", "SUBTOTAL 30.00", "TAX 8%"]
    rows += ["TOTAL 2.40", "CASH 32.40", "CHANGE 50.00", "17.60"]
    lines = [
        _amount_at_right_edge(x) if len(x.words) > 1 and x.text[0].isalpha() else x
        for x in header_lines(rows)
    ]
    assert values(lines)["total"] == "32.40"


def test_a_label_read_beside_the_amount_handed_over_gives_the_total_before_it() -> None:
    # Rows ran together: the total's label sits beside the cash, the change has no label, and
    # the item rows print unit prices after line amounts, so no run adds up.
    rows = [
        *_HEAD,
        "EGGS",
        "14.20",
        "2 x 7.10",
        "449.27",
        "TOTAL RM 500.00",
        "CASH 50.73",
        "CHANGE",
    ]
    assert values(page_lines(rows))["total"] == "449.27"
