"""The layout model on synthetic pages: rows, segments, blocks, columns and reading order."""

from __future__ import annotations

from renderkit.parsing._protocol import Line, Page, Word
from renderkit.parsing.layout.model import build_layout

from ._pages import page


def test_words_whose_centres_share_a_baseline_form_one_row_despite_jitter() -> None:
    words = (
        Word(text="Total", page=1, bbox=(0.10, 0.500, 0.15, 0.512)),
        Word(text="due", page=1, bbox=(0.16, 0.502, 0.19, 0.514)),
        Word(text="42.00", page=1, bbox=(0.70, 0.499, 0.75, 0.511)),
        Word(text="next", page=1, bbox=(0.10, 0.530, 0.14, 0.542)),
    )
    # Words of a text layer, its runs not yet rows (an OCR page's rows are its engine's lines).
    layout = build_layout(
        Page(number=1, lines=(Line(words=words, page=1),), source="text", width=600, height=800)
    )
    assert [row.text for row in layout.rows] == ["Total due 42.00", "next"]


def test_a_row_is_cut_into_segments_where_the_gap_is_wider_than_the_text_is_tall() -> None:
    layout = build_layout(page([(0.05, 0.1, "Due date"), (0.40, 0.1, "1 May 2024")]))
    assert [s.text for s in layout.rows[0].segments] == ["Due date", "1 May 2024"]


def test_left_aligned_lines_stack_into_one_block_and_a_wide_gap_starts_another() -> None:
    layout = build_layout(
        page(
            [
                (0.05, 0.10, "Contoso Ltd"),
                (0.05, 0.115, "4 Harbour Street"),
                (0.05, 0.13, "Bristol BS1 4XX"),
                (0.05, 0.30, "Thank you for your business"),
            ]
        )
    )
    assert [b.text for b in layout.blocks] == [
        "Contoso Ltd\n4 Harbour Street\nBristol BS1 4XX",
        "Thank you for your business",
    ]


def test_a_two_column_page_is_read_column_by_column_under_its_full_width_heading() -> None:
    left = ["Terms of the agreement", "apply to both parties", "from the start date"]
    right = ["Payment is due within", "thirty days of the", "invoice date"]
    cells = [(0.05, 0.05, "Agreement between the parties named below and signed")]
    for index, (a, b) in enumerate(zip(left, right, strict=True)):
        y = 0.10 + index * 0.015
        cells += [(0.05, y, a), (0.55, y, b)]
    layout = build_layout(page(cells))
    assert [line.text for line in layout.lines()] == [cells[0][2], *left, *right]
    columns = {b.text.split("\n")[0]: b.column for b in layout.blocks}
    assert columns[left[0]] != columns[right[0]]


def test_block_of_finds_the_block_that_holds_a_segment() -> None:
    layout = build_layout(page([(0.05, 0.10, "Bill to"), (0.05, 0.115, "Contoso Ltd")]))
    segment = layout.rows[1].segments[0]
    block = layout.block_of(segment)
    assert block is not None
    assert block.text == "Bill to\nContoso Ltd"


def test_an_empty_page_has_no_rows_and_no_blocks() -> None:
    layout = build_layout(Page(number=1, lines=(), source="text", width=600, height=800))
    assert (layout.rows, layout.blocks) == ((), ())


def _word(text: str, x0: float, y0: float, x1: float, y1: float) -> Word:
    return Word(text=text, page=1, bbox=(x0, y0, x1, y1))


def _words_page(*words: Word) -> Page:
    """A text layer's words in one run: the layout cuts it into rows by the words' boxes."""
    return Page(number=1, lines=(Line(words=words, page=1),), source="text", width=1, height=1)


def test_a_short_stroke_that_opens_a_row_does_not_keep_its_taller_neighbours_out() -> None:
    layout = build_layout(
        _words_page(
            _word("|", 0.98, 0.767, 0.99, 0.778),
            _word("Total", 0.38, 0.761, 0.47, 0.787),
            _word("Payable:", 0.50, 0.761, 0.64, 0.793),
            _word("62,60", 0.72, 0.762, 0.85, 0.796),
        )
    )
    assert [row.text for row in layout.rows] == ["Total Payable: 62,60 |"]


def test_a_tall_word_does_not_pull_the_next_row_into_its_own() -> None:
    layout = build_layout(
        _words_page(
            _word("TOTAL", 0.05, 0.723, 0.15, 0.749),
            _word("33.90", 0.47, 0.711, 0.66, 0.768),
            _word("CASH", 0.05, 0.745, 0.13, 0.771),
        )
    )
    assert [row.text for row in layout.rows] == ["TOTAL 33.90", "CASH"]


def test_the_lines_of_a_tilted_photo_stay_rows_of_their_own() -> None:
    # A page turned so each line falls 0.03 page heights across its width: the label's row
    # ends level with the start of the next line, which must not join it.
    tilt = 0.03
    words = []
    lines = []
    for index, texts in enumerate((("Total", "Payable", "62.60"), ("Cash", "tendered", "70.00"))):
        line = tuple(
            _word(text, x, y, x + 0.12, y + 0.02)
            for text, x in zip(texts, (0.05, 0.35, 0.75), strict=True)
            for y in [0.50 + index * 0.03 + tilt * x]
        )
        words += line
        lines.append(Line(words=line, page=1))
    layout = build_layout(Page(number=1, lines=tuple(lines), source="ocr", width=1, height=1))
    assert [row.text for row in layout.rows] == ["Total Payable 62.60", "Cash tendered 70.00"]


def test_a_rows_leading_segment_is_the_first_that_says_something() -> None:
    layout = build_layout(page([(0.02, 0.1, "|"), (0.20, 0.1, "TOTAL"), (0.70, 0.1, "9.90")]))
    leading = layout.rows[0].leading
    assert leading is not None
    assert leading.text == "TOTAL"


def test_ocr_lines_that_stand_over_each_other_stay_two_rows_on_a_tilted_photo() -> None:
    # As read from a photographed invoice: two tight lines on a tilt, the lower one starting
    # 0.011 below the upper (its words 0.016 tall), and a tall stamp word at the right of the
    # upper line. Rows re-cut from the words mixed them: "IBAN: VAT NL95 NL972410582B36 ...".
    upper = Line(
        words=(
            _word("VAT", 0.1459, 0.6237, 0.1694, 0.6382),
            _word("no:", 0.1772, 0.6243, 0.1945, 0.6388),
            _word("NL972410582B36", 0.1961, 0.6249, 0.2980, 0.6411),
            _word("RECEIVED", 0.5333, 0.6063, 0.7490, 0.6661),
        ),
        page=1,
    )
    lower = Line(
        words=(
            _word("IBAN:", 0.1435, 0.6353, 0.1788, 0.6510),
            _word("NL95", 0.1804, 0.6359, 0.2125, 0.6522),
            _word("MHVP", 0.2149, 0.6371, 0.2541, 0.6533),
            _word("3905", 0.2557, 0.6382, 0.2847, 0.6539),
        ),
        page=1,
    )
    layout = build_layout(Page(number=1, lines=(upper, lower), source="ocr", width=1, height=1))
    assert [row.text for row in layout.rows] == [
        "VAT no: NL972410582B36 RECEIVED",
        "IBAN: NL95 MHVP 3905",
    ]


def test_ocr_lines_side_by_side_at_one_level_are_one_row() -> None:
    # A form's two columns, which an engine may read as separate lines.
    left = Line(
        words=(_word("Invoice", 0.05, 0.30, 0.15, 0.32), _word("no:", 0.16, 0.30, 0.20, 0.32)),
        page=1,
    )
    right = Line(words=(_word("INV-17", 0.60, 0.301, 0.70, 0.321),), page=1)
    layout = build_layout(Page(number=1, lines=(right, left), source="ocr", width=1, height=1))
    assert [row.text for row in layout.rows] == ["Invoice no: INV-17"]
