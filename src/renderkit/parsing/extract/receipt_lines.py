"""A receipt's lines as OCR read them: text or noise, their debris trimmed, their amounts.

What every receipt rule asks of a line before reading it: whether it reads as text
(:func:`meaningful`), its words without the debris beside them (:func:`trim_line`), its figures
with OCR's slips repaired (:func:`fix_ocr_digits`) and the amounts it prints, and whether it is
an identifier (:func:`is_registration`), which is neither a name nor an address.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from renderkit.parsing._protocol import Line, Word
from renderkit.parsing.extract.found import clean
from renderkit.parsing.extract.ocrfix import fix_words, vocabulary
from renderkit.parsing.extract.receipt_patterns import receipt_patterns as _rx
from renderkit.parsing.extract.values import find_amounts

__all__ = [
    "fix_ocr_digits",
    "is_id_line",
    "is_registration",
    "letters_for_zeros",
    "line_amounts",
    "mean_confidence",
    "meaningful",
    "till_amounts",
    "trim_line",
    "zeros_in_words",
]


def _alnum_ratio(text: str) -> float:
    return sum(c.isalnum() for c in text) / max(1, len(text))


def meaningful(line: Line) -> bool:
    """True for a line that reads as text rather than OCR noise from a logo or a crease."""
    text = clean(line.text)
    letters = sum(c.isalpha() for c in text)
    # A legal form alone ("AG", "SA", "BV") is the end of the name above it, not noise.
    legal_form = bool(_rx().legal_suffix.fullmatch(text.strip()))
    if (letters < 3 and not legal_form) or _alnum_ratio(text.replace(" ", "")) < 0.6:
        return False
    long_words = [w for w in line.words if sum(c.isalnum() for c in w.text) >= 2]
    if not long_words:
        return False
    conf = sum(_word_confidence(w) for w in long_words) / len(long_words)
    return conf >= 0.55


def _word_confidence(word: Word) -> float:
    """Tesseract's confidence, raised for a trade or street word read at most one letter off.

    Broken thermal print makes Tesseract unsure of words it still reads (nearly) right; a
    reading that lands on the closed vocabulary of names and addresses is text, not noise.
    """
    letters = re.sub(r"[^A-Za-z]", "", word.text)
    if len(letters) >= 5 and letters.isupper() and fix_words(letters, vocabulary()) in vocabulary():
        return max(word.confidence, 0.8)
    return word.confidence


def _unspace(text: str) -> str:
    """``text`` with letter-spaced runs joined ("D a t e : 0 4 / 0 4" -> "Date:04/04").

    OCR engines read widely tracked print one character per word; four or more single
    characters in a row are one word, not four.
    """
    return re.sub(r"(?<!\S)\S(?:\s\S(?!\S)){3,}", lambda m: re.sub(r"\s", "", m.group(0)), text)


def fix_ocr_digits(text: str) -> str:
    """``text`` with OCR's slips in figures undone, so that its amounts and dates parse."""
    # Join amounts split by OCR ("38 .60", "100. 62") and read O/o as 0 inside numbers.
    text = _unspace(text)
    # A date printed against its time ("30-06-201822:16:06"): the year has four digits.
    text = re.sub(r"(\d{1,2}[-/.]\d{1,2}[-/.](?:19|20)\d\d)(?=\d{1,2}:\d\d)", r"\1 ", text)
    # A date run into the number before it by a dash it does not use ("#19-18/03/2018"):
    # the dash separates the two.
    text = re.sub(r"(?<=\d)-(?=\d{1,2}([/.])\d{1,2}\1(?:19|20)\d\d(?!\d))", " ", text)
    text = re.sub(r"(?<=\d)\s*([.,])\s+(?=\d{2}\b)|(?<=\d)\s+([.,])(?=\d{2}\b)", r"\1\2", text)
    text = re.sub(r"(?<=[\d.,])[Oo](?=[\d.,])|(?<=\s)[Oo](?=[.,]\d{2}\b)", "0", text)
    # The other way round, a word of letters with an O read as 0 ("16 0kt 2024", "N0V"): no
    # number is a word of letters, and a month's name must be letters to be read as one.
    return letters_for_zeros(text)


# A word of two or more letters and a 0 among them, not the start of an amount ("RM0.50").
_LETTER_WORD_WITH_ZERO = re.compile(
    r"(?<![\w.,])(?=[A-Za-z0]*[A-Za-z][A-Za-z0]*[A-Za-z])[A-Za-z0]*0[A-Za-z0]*(?!\w|[.,]\d)"
)


def letters_for_zeros(text: str) -> str:
    """``text`` with each 0 inside a word of letters read as the O it is ("N0V", "MELZ0KBARU"):
    no number is a word of letters, nor any code of an address letters and 0s alone."""
    return _LETTER_WORD_WITH_ZERO.sub(lambda m: m.group(0).replace("0", "O"), text)


# A word of letters with a zero for an O inside it ("ACME0XPRESS") or closing it after four
# letters or more ("ACMESTE0"): OCR's slip in a name or a street. A code of letters and zeros
# ("INV000", "CS00") keeps them.
_ZERO_FOR_O = re.compile(
    r"(?<![\w.,])(?:[A-Za-z]+0+)+[A-Za-z]+(?![\w.,])|(?<![\w.,])[A-Za-z]{4,}0(?![\w.,])"
)


def zeros_in_words(text: str) -> str:
    """``text`` with the zeros of its words of letters read as O (:data:`_ZERO_FOR_O`), and of
    a legal form ending it ("Acme 0G"): stricter than :func:`letters_for_zeros`, for a header
    whose codes ("INV000") must keep theirs."""
    text = _ZERO_FOR_O.sub(lambda m: m.group(0).replace("0", "O"), text)
    return _rx().zero_form_end.sub(lambda m: "O" + m.group(1), text)


def line_amounts(line: Line) -> list[str]:
    """Amounts with decimals printed on ``line``, left to right."""
    return [a for a, _, _ in find_amounts(fix_ocr_digits(line.text))]


def till_amounts(line: Line) -> list[str]:
    """The amounts on ``line`` a till prints as money: two decimals, no unit glued after them
    ("1.5L", "0.75KG" are a pack's size, not a price)."""
    text = fix_ocr_digits(line.text)
    return [
        a
        for a, start, end in find_amounts(text)
        if re.search(r"[.,]\d\d$", text[start:end]) and not text[end : end + 1].isalpha()
    ]


def is_id_line(text: str) -> bool:
    """Whether ``text`` is a labelled identifier line (a tax or company number)."""
    return bool(_rx().id_line.search(text)) and not _rx().not_id_line.search(text)


def is_registration(text: str) -> bool:
    """Whether ``text`` is an identifier (a registration or tax number), never a name or a
    street."""
    return bool(
        _rx().registration.fullmatch(text)
        or is_id_line(text)
        or _rx().registration_label.search(text)
        # A short label of any wording before a company number ("REG-NR: 123456-X"): a number
        # of five figures or more after a colon is an identifier, never a street or a name.
        or re.fullmatch(r"[^\W\d_][\w .-]{0,20}:\s*\d{5,}(?:-?[A-Z])?", text)
    )


def trim_line(line: Line) -> Line:
    """``line`` without unreadable words at its ends (OCR debris beside the text)."""
    words = list(line.words)

    def debris(word: Word, others: list[Word]) -> bool:
        if _word_confidence(word) > word.confidence or word.text == "&":
            return False  # a known word, however faintly printed; "&" joins two names
        alnum = sum(c.isalnum() for c in word.text)
        if alnum == 0 or word.confidence < 0.2:
            return True
        others_conf = sum(w.confidence for w in others) / max(1, len(others))
        if word.confidence < min(0.45, others_conf - 0.15) and (
            alnum < 4 or alnum < 0.7 * len(word.text)
        ):
            return True
        rest_upper = sum(c.isupper() for w in others for c in w.text) > 3 * sum(
            c.islower() for w in others for c in w.text
        )
        return len(word.text) <= 3 and word.text.isalpha() and word.text.islower() and rest_upper

    while len(words) > 1 and debris(words[0], words[1:]):
        words.pop(0)
    while len(words) > 1 and debris(words[-1], words[:-1]):
        if _rx().legal_suffix.fullmatch(f"{words[-2].text} {words[-1].text}"):
            break  # a faint "BHD" after "SDN" is part of the name
        words.pop()
    return Line(words=tuple(words), page=line.page) if len(words) != len(line.words) else line


def mean_confidence(lines: Sequence[Line]) -> float:
    """The OCR engine's mean confidence over the words of ``lines`` (1.0 for no words)."""
    words = [w for line in lines for w in line.words]
    return sum(w.confidence for w in words) / len(words) if words else 1.0
