"""The stacked reading of a receipt's top: lines in page order, blocks cut by vertical gap."""

from __future__ import annotations

from renderkit.parsing._protocol import Line, Word
from renderkit.parsing.layout.model import stacked_blocks


def _line(text: str, x: float, y: float, *, height: float = 0.012) -> Line:
    """``text`` printed from ``x`` on the row whose top is ``y``, one word every 0.05."""
    words = tuple(
        Word(text=w, page=1, bbox=(x + 0.05 * i, y, x + 0.05 * i + 0.04, y + height))
        for i, w in enumerate(text.split())
    )
    return Line(words=words, page=1)


def _texts(lines: list[Line]) -> list[list[str]]:
    return [[x.text for x in block] for block in stacked_blocks(lines)]


def test_lines_returned_out_of_order_are_read_top_to_bottom() -> None:
    lines = [_line("12 Harbour Street", 0.3, 0.115), _line("CONTOSO MARKET", 0.35, 0.10)]
    assert _texts(lines) == [["CONTOSO MARKET", "12 Harbour Street"]]


def test_centred_lines_of_different_widths_stay_one_block() -> None:
    lines = [
        _line("FABRIKAM", 0.42, 0.10),
        _line("TRADING COMPANY LIMITED", 0.30, 0.115),
        _line("7 Long Road Springfield 12345", 0.25, 0.13),
    ]
    assert len(stacked_blocks(lines)) == 1


def test_a_gap_wider_than_the_text_is_tall_starts_a_new_block() -> None:
    lines = [_line("FABRIKAM", 0.4, 0.10), _line("TAX INVOICE", 0.4, 0.15)]
    assert _texts(lines) == [["FABRIKAM"], ["TAX INVOICE"]]


def test_two_lines_on_one_baseline_become_one_line_read_left_to_right() -> None:
    lines = [_line("FAX 555", 0.6, 0.201), _line("TEL 444", 0.1, 0.20)]
    assert _texts(lines) == [["TEL 444 FAX 555"]]


def test_lines_without_a_letter_or_digit_are_left_out() -> None:
    lines = [_line("~ .", 0.1, 0.09), _line("FABRIKAM", 0.4, 0.10)]
    assert _texts(lines) == [["FABRIKAM"]]


def test_a_tilted_header_is_read_along_its_tilt() -> None:
    # Each line climbs 0.05 across the page, more than the 0.02 between lines: read across
    # the tilt, a long line's right end is not taken for the line above.
    def tilted(text: str, y: float) -> Line:
        words = tuple(
            Word(text=w, page=1, bbox=(0.1 + 0.2 * i, y - 0.0125 * i, 0.18 + 0.2 * i,
                                       y - 0.0125 * i + 0.012))
            for i, w in enumerate(text.split())
        )  # fmt: skip
        return Line(words=words, page=1)

    lines = [tilted("ONE TWO THREE FOUR FIVE", 0.30), tilted("SIX SEVEN", 0.32)]
    assert [x.text for b in stacked_blocks(lines) for x in b] == [
        "ONE TWO THREE FOUR FIVE",
        "SIX SEVEN",
    ]
