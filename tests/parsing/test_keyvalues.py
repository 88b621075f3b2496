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
