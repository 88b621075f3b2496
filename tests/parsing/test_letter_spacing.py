"""Letter-spaced words ("I N V O I C E") read whole from a PDF's text layer."""

from __future__ import annotations

import base64

import pypdfium2
import pytest

from renderkit.parsing import ParseLimits, read_document
from renderkit.parsing._protocol import Line, Page, Word
from renderkit.parsing.pipeline import parse
from renderkit.parsing.readers.spacing import join_spaced_letters, joined_page

from ._documents import text_pdf

SPACED = {
    "INVOICE": 3.0,
    "BILL TO": 2.5,
    "Total: 1,234.50": 2.0,
    "Due: 15 September": 1.8,
    "10.415,91": 2.5,
}


async def _words(lines: list[str], spacing: dict[str, float]) -> list[list[str]]:
    pdf = text_pdf([lines], letter_spacing=spacing)
    document = await read_document(pdf, "application/pdf", ocr=None, limits=ParseLimits())
    return [[w.text for w in line.words] for line in document.pages[0].lines]


def test_pdfium_reads_characters_set_apart_as_one_letter_words() -> None:
    # The premise: without the joining, every letter is a word of its own.
    pdf = pypdfium2.PdfDocument(text_pdf([list(SPACED)], letter_spacing=SPACED))
    try:
        text = pdf[0].get_textpage().get_text_range()
    finally:
        pdf.close()
    assert "I N V O I C E" in text
    assert "1 , 2 3 4 . 5 0" in text


@pytest.mark.anyio
async def test_letter_spaced_words_figures_and_punctuation_are_read_whole() -> None:
    assert await _words(list(SPACED), SPACED) == [
        ["INVOICE"],
        ["BILL", "TO"],
        ["Total:", "1,234.50"],
        ["Due:", "15", "September"],
        ["10.415,91"],
    ]


@pytest.mark.anyio
@pytest.mark.parametrize("spacing", [1.0, 2.0, 3.0])
async def test_a_short_spaced_line_keeps_its_words_apart(spacing: float) -> None:
    # As many gaps between words as inside them: their median would hold a space.
    lines = ["GST 5 %", "VAT 20 %", "PST 7 % 317.36"]
    assert await _words(lines, dict.fromkeys(lines, spacing)) == [
        ["GST", "5", "%"],
        ["VAT", "20", "%"],
        ["PST", "7", "%", "317.36"],
    ]


@pytest.mark.anyio
async def test_words_typed_with_a_space_between_their_letters_are_joined() -> None:
    lines = ["I N V O I C E", "B I L L  T O", "F a t t u r a"]
    assert await _words(lines, {}) == [["INVOICE"], ["BILL", "TO"], ["Fattura"]]


@pytest.mark.anyio
async def test_two_initials_and_words_set_solid_stay_as_they_are() -> None:
    lines = ["P O Box 12", "Total: 24.00 EUR", "Item A 3 x 4.00", "CGST 9 % 4.50"]
    assert await _words(lines, {}) == [
        ["P", "O", "Box", "12"],
        ["Total:", "24.00", "EUR"],
        ["Item", "A", "3", "x", "4.00"],
        ["CGST", "9", "%", "4.50"],
    ]


@pytest.mark.anyio
async def test_a_letter_spaced_title_still_makes_the_document_an_invoice() -> None:
    lines = [
        "Norbert Kessel GmbH",
        "Am Markt 4, 10115 Berlin",
        "RECHNUNG",
        "Beleg: 2024-118",
        "Datum: 3. März 2024",
        "Summe 24,00 EUR",
    ]
    pdf = text_pdf([lines], letter_spacing={"RECHNUNG": 4.0})
    result = await parse({"file": base64.b64encode(pdf).decode(), "mimeType": "application/pdf"})
    assert result.document_type == "invoice"


def _word(text: str, x0: float, x1: float) -> Word:
    return Word(text=text, page=1, bbox=(x0, 0.5, x1, 0.52))


def test_a_kerned_pair_does_not_set_a_spaced_lines_letter_gap() -> None:
    # "Ve" kerned (its letters nearly touch), then letters 0.004 apart: the line's spacing is
    # the letters', not the pair's, so they all join.
    words = [_word("Ve", 0.0, 0.027)]
    x = 0.031
    for letter in "ncimiento":
        words.append(_word(letter, x, x + 0.01))
        x += 0.014
    joined = join_spaced_letters(words, [0.0015] + [None] * 9, [True] * 10, aspect=842 / 595)
    assert [w.text for w in joined] == ["Vencimiento"]
    assert joined[0].bbox == (0.0, 0.5, words[-1].bbox[2], 0.52)


def test_a_typed_space_always_parts_two_spaced_words() -> None:
    # Two letter-spaced words as close as their letters: only the PDF's own space parts them.
    words = [_word("BILL", 0.0, 0.05), _word("TO", 0.055, 0.075)]
    spacings = [0.004, 0.004]
    typed = join_spaced_letters(words, spacings, [True, False], aspect=1.0)
    soft = join_spaced_letters(words, spacings, [True, True], aspect=1.0)
    assert [w.text for w in typed] == ["BILL", "TO"]
    assert [w.text for w in soft] == ["BILLTO"]


def test_ocr_lines_of_one_letter_words_are_joined_and_others_kept() -> None:
    # OCR reads a widely spaced title as single letters; its words carry no spacing, so only
    # runs of three letters or more join ("P O Box" and "9 %" stay).
    def line(*words: Word) -> Line:
        return Line(words=words, page=1)

    title = [_word(c, 0.1 + i * 0.05, 0.13 + i * 0.05) for i, c in enumerate("Fattura")]
    page = Page(
        number=1,
        lines=(
            line(*title),
            line(_word("P", 0.1, 0.12), _word("O", 0.14, 0.16), _word("Box", 0.18, 0.25)),
            line(_word("IVA", 0.1, 0.16), _word("9", 0.18, 0.2), _word("%", 0.22, 0.24)),
        ),
        source="ocr",
        width=1000,
        height=1400,
    )
    assert [[w.text for w in ln.words] for ln in joined_page(page).lines] == [
        ["Fattura"],
        ["P", "O", "Box"],
        ["IVA", "9", "%"],
    ]


def test_kerned_runs_of_a_spaced_word_join_and_solid_words_a_space_apart_do_not() -> None:
    # "FAT" "URA": capitals kerned tight (their own gaps below the spacing) parted by PDFium
    # at the letter spacing; "Acme" "Widgets" after the spaced label stand a space apart.
    label = _word("VENDOR", 0.0, 0.07)
    words = [
        label,
        _word("Acme", 0.082, 0.112),
        _word("Widgets", 0.118, 0.168),
        _word("FAT", 0.2, 0.225),
        _word("URA", 0.229, 0.254),
    ]
    spacings = [0.004, 0.0, 0.0, 0.0005, 0.0005]
    joined = join_spaced_letters(words, spacings, [True] * 5, aspect=1.0)
    assert [w.text for w in joined] == ["VENDOR", "Acme", "Widgets", "FATURA"]
