"""How a ParseResult displays: the short repr and the HTML table Jupyter shows."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from renderkit.parsing import ParseResult
from renderkit.parsing._display import confidence_colour


class _Page(HTMLParser):
    """The tags opened, and the text of each table row as a list of cell texts."""

    def __init__(self, markup: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.rows: list[list[str]] = []
        self.captions: list[str] = []
        self.items: list[str] = []
        self._cell: list[str] | None = None
        self._where: str | None = None
        self.feed(markup)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in {"td", "th", "caption", "li"}:
            self._cell, self._where = [], tag

    def handle_endtag(self, tag: str) -> None:
        if tag == self._where and self._cell is not None:
            text = "".join(self._cell).strip()
            {"caption": self.captions, "li": self.items}.get(tag, self.rows[-1]).append(text)
            self._cell = self._where = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _receipt(**changes: object) -> ParseResult:
    fields: dict[str, object] = {
        "data": {
            "company": "Corner Café",
            "total": 12.5,
            "date": None,
            "line_items": [
                {"description": "Flat white", "quantity": 2, "amount": 7.0},
                {"description": "Croissant", "amount": 5.5},
            ],
        },
        "document_type": "receipt",
        "confidence": 0.62,
        "field_confidence": {"company": 0.93, "total": 0.55, "line_items": 0.4},
        "warnings": ("date: not found",),
        "pages": 1,
    }
    fields.update(changes)
    return ParseResult(**fields)  # type: ignore[arg-type]


def test_html_lists_each_field_with_its_value_and_confidence_percent() -> None:
    page = _Page(_receipt()._repr_html_())

    assert ["company", "Corner Café", "93%"] in page.rows
    assert ["total", "12.5", "55%"] in page.rows
    # A requested field that was not found keeps its row, with a dash and no confidence.
    assert ["date", "—", ""] in page.rows


def test_html_colours_confidence_by_band() -> None:
    markup = _receipt()._repr_html_()

    shown = dict(re.findall(r"color:(#\w+)[^>]*>(\d+%)<", markup)[1:])  # [0]: overall

    assert len({confidence_colour(c) for c in (0.93, 0.55, 0.4)}) == 3
    assert shown == {
        confidence_colour(0.93): "93%",
        confidence_colour(0.55): "55%",
        confidence_colour(0.4): "40%",
    }
    # The bar's fill is as long as the confidence, in the same colour.
    assert f"width:56px;height:8px;background:{confidence_colour(0.93)}" in markup


def test_line_items_are_a_second_table_with_a_column_per_key() -> None:
    page = _Page(_receipt()._repr_html_())

    assert page.tags.count("table") == 2
    assert page.captions == ["line items  40%"]
    assert ["description", "quantity", "amount"] in page.rows
    assert ["Flat white", "2", "7.0"] in page.rows
    assert ["Croissant", "—", "5.5"] in page.rows  # a key one row lacks is a dash


def test_html_shows_document_type_overall_confidence_and_warnings() -> None:
    markup = _receipt()._repr_html_()
    page = _Page(markup)

    assert "<b>receipt</b>" in markup
    assert "confidence <span style='color:#b26a00'>62%</span>" in markup
    assert page.items == ["date: not found"]


def test_document_text_is_escaped_in_values_keys_rows_and_warnings() -> None:
    hostile = "<script>alert('x')</script><img src=x onerror=alert(1)>"
    result = _receipt(
        data={
            "company": hostile,
            f"{hostile}_key": "v",
            "line_items": [{"description": hostile, hostile: 1}],
        },
        field_confidence={},
        warnings=(hostile,),
        document_type="<i>receipt</i>",
        extractor="<u>x</u>",
    )

    markup = result._repr_html_()
    page = _Page(markup)

    assert "script" not in page.tags and "img" not in page.tags
    assert not {"i", "u"} & set(page.tags)
    assert "<script" not in markup and "<img" not in markup
    assert ["company", hostile, ""] in page.rows
    assert page.items == [hostile]
    assert [f"{hostile}_key", "v", ""] in page.rows
    assert ["description", hostile] in page.rows  # the line-item table's header
    assert [hostile, "1"] in page.rows


def test_large_amounts_show_every_digit() -> None:
    result = _receipt(data={"total": 1234567.89}, field_confidence={"total": 0.9})

    assert ["total", "1234567.89", "90%"] in _Page(result._repr_html_()).rows


def test_very_long_values_are_cut_with_an_ellipsis_in_the_table_only() -> None:
    clause = "The supplier shall deliver " * 100
    result = _receipt(data={"terms": clause}, field_confidence={"terms": 0.8})

    (row,) = _Page(result._repr_html_()).rows[1:]

    assert row[1].endswith("…") and len(row[1]) == 300
    assert result.data["terms"] == clause


def test_repr_is_one_short_line_of_counts_not_values() -> None:
    result = _receipt(data={**_receipt().data, "notes": "x" * 10_000})

    text = repr(result)

    assert text == (
        "ParseResult(document_type='receipt', confidence=0.62, fields=4/5, rows=2, "
        "warnings=1, extractor='local')"
    )


def test_a_result_with_no_fields_says_so() -> None:
    page = _Page(_receipt(data={}, field_confidence={}, warnings=())._repr_html_())

    assert page.tags.count("table") == 0
    assert "no fields found" in _receipt(data={}, field_confidence={})._repr_html_()
