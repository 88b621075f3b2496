"""Key-value pairs by geometry: a label and its value inline, to its right or below it."""

from __future__ import annotations

from renderkit.parsing.extract.keyvalues import KeyValue, key_values
from renderkit.parsing.layout.model import build_layout

from ._pages import page


def _pairs(cells: list[tuple[float, float, str]]) -> list[KeyValue]:
    return key_values([build_layout(page(cells))])


def _first(pairs: list[KeyValue], concept: str) -> tuple[str, str]:
    kv = next(kv for kv in pairs if kv.concept == concept)
    return kv.values[0].text, kv.values[0].where


def test_a_value_in_the_labels_own_segment_is_read_inline() -> None:
    pairs = _pairs([(0.05, 0.1, "Invoice No: INV-4711")])
    assert _first(pairs, "invoice_number") == ("INV-4711", "inline")


def test_a_value_printed_further_right_on_the_labels_row_is_read() -> None:
    pairs = _pairs([(0.05, 0.1, "Due date"), (0.40, 0.1, "1 May 2024")])
    assert _first(pairs, "due_date") == ("1 May 2024", "right")


def test_a_value_directly_below_a_label_standing_alone_is_read() -> None:
    pairs = _pairs([(0.60, 0.1, "Invoice date"), (0.60, 0.115, "03.03.2024")])
    assert _first(pairs, "invoice_date") == ("03.03.2024", "below")


def test_labels_of_other_languages_come_from_their_lexicons() -> None:
    pairs = _pairs(
        [
            (0.05, 0.10, "Rechnungsnummer: RE-2024-17"),
            (0.05, 0.13, "Échéance"),
            (0.40, 0.13, "02.04.2024"),
            (0.05, 0.16, "Fecha de vencimiento"),
            (0.05, 0.175, "15/05/2024"),
        ]
    )
    assert _first(pairs, "invoice_number") == ("RE-2024-17", "inline")
    assert ("02.04.2024", "right") in [
        (v.text, v.where) for kv in pairs if kv.concept == "due_date" for v in kv.values
    ]
    assert ("15/05/2024", "below") in [
        (v.text, v.where) for kv in pairs if kv.concept == "due_date" for v in kv.values
    ]


def test_a_label_at_the_start_of_its_segment_is_stronger_than_one_inside_text() -> None:
    pairs = _pairs([(0.05, 0.1, "Total 12.00"), (0.05, 0.3, "Please note the total 9.00")])
    strengths = [kv.strength for kv in pairs if kv.concept == "total"]
    assert strengths[0] > strengths[1]


def test_a_value_to_the_right_stops_at_the_next_label() -> None:
    pairs = _pairs([(0.05, 0.1, "Due date"), (0.40, 0.1, "Total"), (0.60, 0.1, "12.00")])
    due = next(kv for kv in pairs if kv.concept == "due_date")
    assert [v.text for v in due.values] == []


def test_column_headers_are_left_to_the_tables() -> None:
    pairs = _pairs([(0.05, 0.1, "Description"), (0.50, 0.1, "Qty"), (0.70, 0.1, "Unit price")])
    assert {kv.concept for kv in pairs} & {"description", "quantity", "unit_price"} == set()


def _summary(rows: list[str], footer: str | None = None) -> list[KeyValue]:
    # A summary table: the label over a column of figures, one row per tax rate, then their sum.
    cells = [(0.05, 0.50, "Net"), (0.70, 0.50, "Total")]
    for i, figure in enumerate(rows):
        cells.append((0.70, 0.515 + 0.015 * i, figure))
    if footer is not None:
        cells.append((0.70, 0.515 + 0.015 * len(rows), footer))
    return _pairs(cells)


def test_a_column_ending_in_the_sum_of_its_rows_gives_that_sum_as_the_value() -> None:
    pairs = _summary(["250.40", "80.35", "330.75"])
    assert _first(pairs, "total") == ("330.75", "below")


def test_a_sum_row_is_found_in_comma_decimal_figures_and_past_a_footer() -> None:
    pairs = _summary(["1.200,00", "300,50", "1.500,50"], footer="Registered office 12345")
    assert _first(pairs, "total") == ("1.500,50", "below")


def test_a_sum_row_may_differ_from_its_rows_by_a_rounding_cent() -> None:
    pairs = _summary(["10.01", "20.01", "30.01"])
    assert _first(pairs, "total") == ("30.01", "below")


def test_a_column_whose_last_figure_is_no_sum_gives_its_first_row() -> None:
    assert _first(_summary(["250.40", "80.35", "331.75"]), "total") == ("250.40", "below")
    # Two rows are one figure and another, not parts and their sum.
    assert _first(_summary(["100.00", "100.00"]), "total") == ("100.00", "below")
