"""More receipt rules on OCR-like lines made up here (no dataset text)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

from renderkit.parsing._protocol import Line, Word
from renderkit.parsing.extract.ocrfix import agree_words
from renderkit.parsing.extract.receipt import receipt_fields
from renderkit.parsing.readers.tesseract import TesseractOcr, _better_orientation, _Reading


def _line(row: str | Sequence[tuple[str, float]], y: float) -> Line:
    pairs = [(w, 0.95) for w in row.split()] if isinstance(row, str) else list(row)
    words = tuple(
        Word(text=w, page=1, bbox=(0.1 * i, y, 0.1 * i + 0.08, y + 0.02), confidence=c)
        for i, (w, c) in enumerate(pairs)
    )
    return Line(words=words, page=1)


def _fields(rows: Sequence[str | Sequence[tuple[str, float]]]) -> dict[str, object]:
    lines = [_line(row, i / (len(rows) + 1)) for i, row in enumerate(rows)]
    return {k: v.value for k, v in receipt_fields(lines, day_first=True).items()}


def test_the_line_closing_a_parenthesis_of_the_name_is_joined_even_when_read_faintly() -> None:
    found = _fields(
        [
            "MAJU TEGUH HARDWARE",
            "ENTERPRISE (TAMAN",
            [("CERIA)", 0.8), ("SDN", 0.3), ("BHD", 0.1)],
            "NO. 3, JALAN PASAR",
            "50000 KUALA LUMPUR",
        ]
    )
    assert found["company"] == "MAJU TEGUH HARDWARE ENTERPRISE (TAMAN CERIA) SDN BHD"
    assert found["address"] == "NO. 3, JALAN PASAR 50000 KUALA LUMPUR"


def test_a_registration_number_read_without_its_letter_is_not_the_addresss_first_line() -> None:
    # OCR lost the check letter and a figure of "(123456-K)": figures alone above the street.
    found = _fields(["KEDAI MAJU TEGUH SDN BHD", "12 345-", "NO. 3, JALAN PASAR", "50000 KUALA"])
    assert found["address"] == "NO. 3, JALAN PASAR 50000 KUALA"
    # A post code alone still starts nothing it should not: it is kept inside the address.
    found = _fields(["KEDAI MAJU TEGUH SDN BHD", "NO. 3, JALAN PASAR", "50000", "KUALA LUMPUR"])
    assert found["address"].startswith("NO. 3, JALAN PASAR 50000")


def test_a_legal_form_ending_alone_on_the_next_line_completes_the_name() -> None:
    # "KG" is too short to count as header text on its own, yet it ends "GmbH & Co. KG".
    found = _fields(["Borvelt Handel GmbH & Co.", "KG", "HRB:106516", "Lindenweg 23", "80370 Ast"])
    assert found["company"] == "Borvelt Handel GmbH & Co KG"


def test_a_trade_word_in_the_singular_or_plural_opens_the_name_above_it() -> None:
    # The region lists "HOLDINGS"; "Holding" alone before the form is no whole name either.
    found = _fields(["Varnesk Installaties", "Holding B.V.", "(619591-V)", "Kade 9", "5423 ZA Ost"])
    assert found["company"] == "Varnesk Installaties Holding B.V"


def test_a_legal_form_is_never_repaired_into_a_vocabulary_word() -> None:
    # "SRL" is one confusable letter from the place word "SRI": the form stays as printed.
    found = _fields(["Quorvel", "Services SRL", "(659758-P)", "Rue Trail, 221", "8169 Orville"])
    assert found["company"] == "Quorvel Services SRL"


def test_a_street_run_into_its_house_number_above_a_post_code_starts_the_address() -> None:
    # "Lindenweg12" looks like a till's label and number ("Outlet 12") but leads to the code.
    found = _fields(["Drak & Sohn e.K.", "(1132690-W)", "Lindenweg12", "10310 Grixheim"])
    assert found["address"] == "Lindenweg 12 10310 Grixheim"  # the space OCR lost, restored


def test_a_slogan_written_as_a_sentence_above_the_name_is_not_the_name() -> None:
    found = _fields(["Kualiti terbaik di bandar", "MAJU RESTORAN ENTERPRISE", "NO 8, JALAN PASAR"])
    assert found["company"] == "MAJU RESTORAN ENTERPRISE"
    # A name of capitalised words is still a name.
    found = _fields(["Brindel Werkstatt Nord", "Lindenweg 23", "80370 Ast"])
    assert found["company"] == "Brindel Werkstatt Nord"


def test_a_parenthesis_closed_on_the_same_line_does_not_pull_in_the_next_one() -> None:
    found = _fields(["KEDAI ROTI (PUSAT) MAJU", "CAWANGAN (UTARA)", "NO. 3, JALAN PASAR"])
    assert found["company"] == "KEDAI ROTI (PUSAT) MAJU"


def test_a_faintly_read_trade_word_keeps_the_name_line() -> None:
    found = _fields([[("KENCANA", 0.85), ("ENTERPRISF", 0.15)], "NO. 3, JALAN PASAR"])
    assert found["company"] == "KENCANA ENTERPRISE"


def test_without_a_readable_total_line_the_subtotal_is_the_total() -> None:
    found = _fields(["KEDAI SDN BHD", "1 ROTI 4.50", "SUBTOTAL 4.50", "Tota! 4. 5"])
    assert found["total"] == "4.50"
    found = _fields(["KEDAI SDN BHD", "SUBTOTAL 4.50", "TOTAL 4.75"])
    assert found["total"] == "4.75"


def _words(*pairs: tuple[str, float]) -> list[Word]:
    return [Word(text=t, page=1, bbox=(0, 0, 0.1, 0.1), confidence=c) for t, c in pairs]


def test_a_word_read_clearly_elsewhere_on_the_page_corrects_a_doubtful_reading() -> None:
    page = _words(("KENARO", 0.6), ("KENARU", 0.93), ("PASAR", 0.9))
    assert agree_words("KENARO BOOK SHOP", page) == "KENARU BOOK SHOP"
    assert agree_words("Kenaro Book", page) == "Kenaru Book"
    # Both readings unsure, or readings differing by letters that are not confusable: kept.
    assert agree_words("KENARO", _words(("KENARO", 0.6), ("KENARU", 0.7))) == "KENARO"
    assert agree_words("PASAR", _words(("PASAR", 0.5), ("PASIR", 0.95))) == "PASAR"
    # A word with two different clear near-readings is ambiguous: kept.
    two = _words(("MALAT", 0.5), ("MALAI", 0.95), ("MALAJ", 0.95))
    assert agree_words("MALAT", two) == "MALAT"


def _reading(words: int, conf: float) -> _Reading:
    row = tuple(Word(text="ab", page=1, bbox=(0, 0, 1, 1), confidence=conf) for _ in range(words))
    return _Reading(lines=(Line(words=row, page=1),), rotation=90.0, width=10, height=10)


def test_a_turned_page_must_read_both_more_and_surer_text() -> None:
    assert _better_orientation(_reading(60, 0.8), _reading(30, 0.5))
    # Many unsure specks from a page turned the wrong way do not win.
    assert not _better_orientation(_reading(300, 0.35), _reading(100, 0.45))


def test_a_name_printed_much_larger_than_the_body_is_read() -> None:
    image = Image.new("L", (900, 700), 255)
    draw = ImageDraw.Draw(image)
    big = ImageFont.load_default(size=64)
    small = ImageFont.load_default(size=24)
    draw.text((60, 20), "KEDAI MAJU", font=big, fill=0)
    for i, text in enumerate(["NO. 3, JALAN PASAR", "50000 KUALA LUMPUR", "TOTAL 4.50"]):
        draw.text((60, 140 + 40 * i), text, font=small, fill=0)
    page = asyncio.run(TesseractOcr().recognize(image, page=1, detect_orientation=False))
    texts = [line.text for line in page.lines]
    assert any("KEDAI" in t for t in texts[:2]), texts
    assert sum("KEDAI" in t for t in texts) == 1, texts


def test_section_codes_and_floor_ordinals_misread_in_an_address_are_repaired() -> None:
    found = _fields(["KEDAI SDN BHD", "8RD FLR, 12 JALAN S815/2", "47500 SUBANG JAYA", "TEL: 03-1"])
    assert found["address"] == "3RD FLR, 12 JALAN SS15/2 47500 SUBANG JAYA"
    found = _fields(["KEDAI SDN BHD", "BRD FLOOR, JALAN S52/1", "47500 SUBANG JAYA", "TEL: 03-1"])
    assert found["address"] == "3RD FLOOR, JALAN SS2/1 47500 SUBANG JAYA"
