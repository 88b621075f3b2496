"""Receipt fields: merchant, address, date, total, subtotal, tax, number and items.

Till receipts are read by OCR, often from thermal print, so every rule here tolerates the
engine's slips (see :mod:`renderkit.parsing.extract.ocrfix`, the repair applied to names and
addresses). The rules are general: label words and legal forms come from the regional word
lists (:mod:`renderkit.parsing.lexicons.regions`), the rest is layout order and the arithmetic
between amounts; none is fitted to a particular document.
"""

from __future__ import annotations

import functools
import re
import statistics
from collections.abc import Callable, Collection, Mapping, Sequence
from decimal import Decimal

import attrs

from renderkit.parsing._protocol import Line, Page, Word
from renderkit.parsing.extract.found import Found, clean
from renderkit.parsing.extract.invoice import day_first_vote
from renderkit.parsing.extract.keyvalues import KeyValue, key_values
from renderkit.parsing.extract.ocrfix import (
    address_words,
    agree_words,
    fix_words,
    name_words,
    split_run_together,
    vocabulary,
)
from renderkit.parsing.extract.receipt_patterns import dotted_pattern, form_pattern
from renderkit.parsing.extract.receipt_patterns import receipt_patterns as _rx
from renderkit.parsing.extract.receipt_sums import left_by_payment, summed_total
from renderkit.parsing.extract.values import find_amounts, find_dates, find_emails, find_phones
from renderkit.parsing.layout.model import PageLayout, Row, Segment, build_layout, stacked_blocks
from renderkit.parsing.lexicons import load_lexicon, tokens
from renderkit.parsing.rank.model import Ranker, load_ranker
from renderkit.parsing.rank.spans import (
    SPAN_FEATURES,
    SPAN_FIELDS,
    LineFacts,
    Span,
    span_candidates,
    span_features,
)

__all__ = [
    "SpanChoices",
    "line_amounts",
    "meaningful",
    "receipt_fields",
    "span_choices",
    "till_receipt",
    "trim_line",
    "unmerge_rows",
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


def _fix_ocr_digits(text: str) -> str:
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
    return _LETTER_WORD_WITH_ZERO.sub(lambda m: m.group(0).replace("0", "O"), text)


# A word of two or more letters and a 0 among them, not the start of an amount ("RM0.50").
_LETTER_WORD_WITH_ZERO = re.compile(
    r"(?<![\w.,])(?=[A-Za-z0]*[A-Za-z][A-Za-z0]*[A-Za-z])[A-Za-z0]*0[A-Za-z0]*(?!\w|[.,]\d)"
)


def line_amounts(line: Line) -> list[str]:
    """Amounts with decimals printed on ``line``, left to right."""
    return [a for a, _, _ in find_amounts(_fix_ocr_digits(line.text))]


def _till_amounts(line: Line) -> list[str]:
    """The amounts on ``line`` a till prints as money: two decimals, no unit glued after them
    ("1.5L", "0.75KG" are a pack's size, not a price)."""
    text = _fix_ocr_digits(line.text)
    return [
        a
        for a, start, end in find_amounts(text)
        if re.search(r"[.,]\d\d$", text[start:end]) and not text[end : end + 1].isalpha()
    ]


def _is_id_line(text: str) -> bool:
    return bool(_rx().id_line.search(text)) and not _rx().not_id_line.search(text)


def _is_registration(text: str) -> bool:
    return bool(
        _rx().registration.fullmatch(text)
        or _is_id_line(text)
        or _rx().registration_label.search(text)
        # A short label of any wording before a company number ("REG-NR: 123456-X"): a number
        # of five figures or more after a colon is an identifier, never a street or a name.
        or re.fullmatch(r"[^\W\d_][\w .-]{0,20}:\s*\d{5,}(?:-?[A-Z])?", text)
    )


def _strip_company(text: str) -> str:
    text = clean(text)
    # Common OCR misreadings of the legal suffix.
    for pair in _rx().words.legal_pairs:
        text = re.sub(
            rf"\b{form_pattern(' '.join(pair), fuzzy=True)}\b", " ".join(pair), text, flags=re.I
        )
    # "Owned by: NAME SDN BHD": a short label before the name is not part of it.
    labelled = re.match(r"^[A-Za-z][A-Za-z .]{1,20}:\s*(?=\S)", text)
    if labelled and len(text[labelled.end() :].split()) >= 2:
        text = text[labelled.end() :]
    for form in _rx().slashed_forms:
        text = re.sub(rf"(?<=\s){form_pattern(form, fuzzy=True)}\b", form, text, flags=re.I)
    for form in _rx().dotted_forms:  # "V.0.F." is "V.O.F."
        text = re.sub(rf"(?<=\s){dotted_pattern(form)}(?=\W|$)", form, text, flags=re.I)
    for first, *rest in _rx().words.legal_pairs:
        # A two-word form's first word run into the name's last ("ACMESDN. BHD."), as OCR
        # loses a space: the form is never part of a word.
        glued = rf"(?<=[^\W\d_]{{3}})(?={re.escape(first)}\.?\s*{re.escape(' '.join(rest))}\b)"
        text = re.sub(glued, " ", text, flags=re.I)
    # Registration numbers and trailing codes: "(1110644-W)", "123456-X".
    text = _rx().trailing_registration.sub("", text)
    # A two-word legal form is never cut short: OCR often loses its second word at a line end.
    for pair in _rx().words.legal_pairs:
        text = re.sub(
            rf"\b{form_pattern(pair[0], fuzzy=True)}\.?$", " ".join(pair), text, flags=re.I
        )
    matches = list(_rx().legal_suffix.finditer(text))
    match = matches[-1] if matches else None
    if match is not None and match.group(1).upper() != "(M)":
        text = text[: match.end()]
    return clean(text) if not text.endswith(".") else text.strip(" |:;,_~—–-'\"“”‘’`*=+")


def _is_continuation(text: str) -> bool:
    first = text.split(" ", 1)[0].upper()
    return first in _rx().continuation or text[:1] == "(" or text[:1].islower()


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


def _address_like(line: Line) -> bool:
    # A short line of numbers and names ("12, 3/4A,") that meaningful() finds too few letters in.
    text = clean(line.text)
    alnum = sum(c.isalnum() for c in text)
    if _house_number(text) and line.words:
        return True  # "NO 7," over the street
    if alnum < 4 or not re.search(r"\d", text) or not line.words:
        return False
    return sum(w.confidence for w in line.words) / len(line.words) >= 0.6


# The name and address are printed within this many rows of the top.
_HEADER_ROWS = 25


def _top_lines(lines: Sequence[Line]) -> list[Line]:
    """The first page's lines above its first item, top to bottom, whatever order the OCR
    engine returned them in (it may read a centred header out of order); a line whose words
    interleave two printed rows is cut into them (:func:`unmerge_rows`)."""
    first = [x for x in lines if x.page == lines[0].page] if lines else []
    out: list[Line] = []
    for block in stacked_blocks(first):
        for whole in block:
            for line in unmerge_rows(whole):
                if _item_row(line) or len(out) >= _HEADER_ROWS:
                    return out
                out.append(line)
    return out


# Two words share a printed row when their boxes overlap by at least this share of the
# shorter one's height.
_SAME_ROW = 0.5


def unmerge_rows(line: Line) -> tuple[Line, ...]:
    """``line`` cut into the printed rows its words interleave, top row first; else itself.

    On a photo turned more than a line's height across the paper's width, two short centred
    rows ("NO 12, STREET 4" over "40000 TOWN, STATE") can be read as one line whose words
    alternate between them. Each word, left to right, joins the row whose last word it
    overlaps vertically (a tilted row's neighbours always do). Rows that merely follow each
    other from left to right (an item and its amount, lower on a tilted photo) are one line
    printed across a gap, not two: only rows whose words interleave are cut.
    """
    words = sorted(line.words, key=lambda w: w.bbox[0])
    if len(words) < 3:
        return (line,)
    rows: list[list[Word]] = []
    for word in words:
        best, overlap = None, 0.0
        for row in rows:
            last = row[-1]
            shared = min(word.bbox[3], last.bbox[3]) - max(word.bbox[1], last.bbox[1])
            height = min(word.bbox[3] - word.bbox[1], last.bbox[3] - last.bbox[1])
            share = shared / height if height > 0 else 0.0
            if share >= _SAME_ROW and share > overlap:
                best, overlap = row, share
        if best is None:
            rows.append([word])
        else:
            best.append(word)
    if len(rows) != 2:
        return (line,)
    first, second = rows

    # Interleaved: each row has a word between two of the other's.
    def inside(row: list[Word], other: list[Word]) -> bool:
        return any(other[0].bbox[0] < w.bbox[0] < other[-1].bbox[0] for w in row)

    if not (inside(first, second) and inside(second, first)):
        return (line,)
    if min(len(first), len(second)) < 2:
        return (line,)

    def level(row: list[Word]) -> float:
        return statistics.fmean((w.bbox[1] + w.bbox[3]) / 2 for w in row)

    # The upper row: at the same place across the page, its words stand higher.
    upper, lower = (first, second) if level(first) <= level(second) else (second, first)
    return tuple(Line(words=tuple(row), page=line.page) for row in (upper, lower))


def _item_row(line: Line) -> bool:
    """Whether ``line`` ends in an amount, as an item, a subtotal or a total does.

    An amount inside the text ("Section 2.5, 40400 Town", a misread address) is no item.
    """
    text = _fix_ocr_digits(line.text).rstrip()
    amounts = find_amounts(text)
    return bool(amounts) and not re.search(r"[A-Za-z]", text[amounts[-1][2] :])


def _header(top: Sequence[Line]) -> list[Line]:
    out: list[Line] = []
    top = [trim_line(x) for x in top]
    for index, line in enumerate(top):
        if _rx().greeting.match(clean(line.text)):
            continue
        if _rx().header_stop.search(line.text) and not out:
            continue  # e.g. "TAX INVOICE" above the name
        if _rx().header_stop.search(line.text):
            if _rx().postcode.search(line.text) and not _rx().contact.search(line.text):
                out.append(line)  # an address line that happens to contain a stop word
                continue
            if _is_id_line(line.text):
                out.append(line)  # a tax number printed between the name and the address
                continue
            if _phone_inside_address(out, top[index + 1 :]):
                continue  # the address goes on to its post code after the phone line
            town = _town_beside_phone(out, line)
            if town is not None:
                out.append(town)
            break
        wrapped = bool(out) and _wrapped_number(out[-1], line, top[index + 1 : index + 2])
        if meaningful(line) or (out and _address_like(line)) or wrapped:
            out.append(line)
        elif out and index + 1 < len(top) and _rx().postcode.search(top[index + 1].text):
            # A faintly read but clean line just above the post code: part of the address.
            text = clean(line.text)
            if re.fullmatch(r"[\w.,'&/() -]+", text) and sum(c.isalpha() for c in text) >= 4:
                out.append(line)
    return out


def _town_beside_phone(above: Sequence[Line], line: Line) -> Line | None:
    """The address's town read into the phone line beside it, when the address is still open.

    On a tilted photo OCR can read two short centred rows as one line ("TOWN, STATE" and
    "TEL: ..." as "TEL: TOWN,STATE 03-1234 5678"). When the lines above end with a post code
    alone or a street with no post code yet, the words of letters in the phone line (and a
    post code closing it) are the town: the label and the number are the phone's.
    """
    if not above or not _rx().contact.search(line.text):
        return None
    last = clean(above[-1].text)
    street = bool(re.search(r"\d", last) or _rx().address_word.search(last))
    if not (
        _code_alone(last) or (street and not any(_postcode_line(clean(x.text)) for x in above))
    ):
        return None
    words = [
        w
        for w in line.words
        if re.fullmatch(r"[^\W\d_]{3,}(?:,\s*[^\W\d_]{3,})*,?", w.text)
        and not _rx().contact.search(w.text)
        and not w.text.islower()
    ]
    if not words:
        return None
    tail = line.words[-2:]
    if (
        len(tail) == 2
        and re.search(r"-\d{4}$", tail[0].text)
        and re.fullmatch(r"\d{5}", tail[1].text)
    ):
        # "TOWN TEL: (555) 123-4567 99569": after a number complete in its "-4567", five
        # figures are the town's ZIP code, not a group of the phone number.
        words.append(tail[1])
    return Line(words=tuple(words), page=line.page)


def _labelled_line(text: str) -> bool:
    """Whether ``text`` is a label of one or two words and its value ("OUTLET: NORTHGATE"),
    as a till prints its branch or counter: a name found by its place alone is never one."""
    return bool(re.match(r"[^\W\d_]+(?:[ -][^\W\d_]+)?\s*:", text))


def _phone_inside_address(above: Sequence[Line], below: Sequence[Line]) -> bool:
    """Whether a contact line is printed inside the address: the lines above it hold no post
    code yet and the next line holds one ("12 Street" / "TEL: ..." / "12345 Town"), or the
    line above is a post code alone or ends in a comma and the next is its town or state, in
    words only ("12345" / "TEL: ..." / "TOWN, STATE")."""
    if not above or not below:
        return False
    following = clean(below[0].text)
    if _rx().contact.search(following) or (
        _is_registration(following) and not _lone_postcode(following)
    ):
        return False
    if not any(_postcode_line(clean(x.text)) for x in above):
        # The post code next, or under the street or town line that follows the phone line
        # ("NO 12," / "TEL: ..." / "JALAN MAWAR" / "47100 PUCHONG").
        return _postcode_line(following) or (
            len(below) > 1
            and not _is_registration(following)
            and _postcode_line(clean(below[1].text))
            and not _rx().contact.search(below[1].text)
        )
    last = clean(above[-1].text)
    open_end = re.fullmatch(r"\d{4,5}", last) or above[-1].text.rstrip().endswith(",")
    return bool(open_end) and bool(re.fullmatch(r"[^\W\d_][^\d]*", following))


def _open_paren(text: str) -> bool:
    return text.count("(") > text.count(")")


def _name_line(line: Line) -> bool:
    # A line that can be part of a name printed over several lines: no digits, and mostly
    # capitals or a few words each capitalised ("Brindel Werkstatt", as names outside
    # Malaysia and the English-speaking tills are printed).
    letters = [c for c in line.text if c.isalpha()]
    upper = sum(c.isupper() for c in letters) >= len(letters) / 2
    words = [w for w in line.text.split() if w[:1].isalpha()]
    titled = 0 < len(words) <= 4 and all(w[:1].isupper() for w in words)
    return bool(letters) and (upper or titled) and not re.search(r"\d", line.text)


def _closing_line(used: Sequence[Line], lines: Sequence[Line]) -> Line | None:
    """The line that closes a parenthesis a name left open ("NAME (BRANCH" / "AREA) SDN BHD").

    It is taken even when read too poorly to count as header text: an open parenthesis is
    always closed, and a name broken inside one goes on to the very next printed line.
    """
    if not _open_paren(" ".join(u.text for u in used)):
        return None
    last = used[-1].words[-1]
    for index, line in enumerate(lines[:-1]):
        if any(w is last for w in line.words):
            following = trim_line(lines[index + 1])
            text = following.text
            closes = text.find(")") >= 0 and (text.find("(") < 0 or text.find(")") < text.find("("))
            letters = sum(c.isalpha() for c in text)
            if closes and letters >= 3 and len(text.split()) <= 6 and not re.search(r"\d", text):
                return following
            return None
    return None


def _form_goes_on(text: str, following: str) -> bool:
    """Whether the legal form ending ``text`` goes on over the next line, ``following``
    ("... UG" / "(haftungsbeschränkt)", "... SDN" / "BHD"): a longer form then spans the
    break and ends where that line ends."""
    joined = f"{text} {following}"
    matches = list(_rx().legal_suffix.finditer(joined))
    return bool(matches) and matches[-1].end() == len(joined) and matches[-1].start() < len(text)


def _company(header: list[Line], lines: Sequence[Line] = ()) -> tuple[Found | None, int]:
    candidates = header[:8]
    for strength, pattern in ((0.85, _rx().legal_suffix),):
        for index, line in enumerate(candidates):
            text = clean(line.text)
            if not pattern.search(text) or _rx().address_word.match(text):
                continue
            used = [line]
            # A name broken over lines: "NAME HARDWARE" / "ENTERPRISE (BRANCH" / "AREA) SDN BHD".
            start = index
            while start > 0 and len(used) < 3:
                first = clean(used[0].text)
                previous = candidates[start - 1]
                before = pattern.split(first, 1)[0].split()
                joins = (
                    _is_continuation(first)
                    # The legal form alone, or after trade words only ("SERVICES SARL"): a
                    # name is never just that, its own part is on the line above.
                    or (len(used) == 1 and all(w.upper() in name_words() for w in before))
                    or _open_paren(previous.text)
                    # A line ending in "&" or "AND" is never a whole name.
                    or _open_end(previous.text)
                    # Trade words alone ("PHARMACY") open the name under them, unless they
                    # repeat its words (a logo's word printed above the name).
                    or (_trade_only(previous.text) and not _repeats(previous.text, first))
                )
                if not joins or not _name_line(previous):
                    break
                used.insert(0, previous)
                start -= 1
            if index + 1 < len(candidates) and _form_goes_on(
                text, clean(candidates[index + 1].text)
            ):
                used.append(candidates[index + 1])
                index += 1
            name = _strip_company(" ".join(clean(u.text) for u in used))
            if len(re.sub(r"\W", "", name)) >= 3:
                return Found(value=name, confidence=strength, lines=tuple(used)), index
    anchored = _anchored_name(candidates)
    for index, line in enumerate(candidates):
        text = clean(line.text)
        if not _placed_name(text):
            continue
        used = [line]
        while index + 1 < len(candidates) and len(used) < 3:
            following = candidates[index + 1]
            # Trade words alone ("BAKERY TRADING") end the name above them.
            trades = _trade_only(following.text)
            if not (
                _is_continuation(clean(following.text))
                or _open_paren(text)
                or trades
                # A name is never "&"-ended nor trade words alone ("KEDAI RUNCIT"): it goes
                # on, unless the next line repeats it (a logo's word above the name).
                or _open_end(text)
                or (_trade_only(text) and not _repeats(text, following.text))
            ):
                break
            if not _name_line(following):
                break
            used.append(following)
            index += 1
            text = " ".join(clean(u.text) for u in used)
        if anchored is not None and anchored[1] > index:
            used, index = anchored
            text = " ".join(clean(u.text) for u in used)
        closing = _closing_line(used, lines)
        if closing is not None:
            if index + 1 < len(header) and header[index + 1].words[-1] is closing.words[-1]:
                index += 1
            used.append(closing)
            text = " ".join(clean(u.text) for u in used)
        if _rx().legal_suffix.search(text):
            strength = 0.85
        else:
            trade = _rx().business_word.search(fix_words(text, name_words()))
            strength = 0.7 if trade else 0.55
        return Found(value=_strip_company(text), confidence=strength, lines=tuple(used)), index
    return None, -1


def _open_end(text: str) -> bool:
    """Whether ``text`` ends in "&" or "AND": never a whole name, its next line goes on."""
    return bool(re.search(r"(?:&|\bAND)\W*$", text, re.I))


def _name_letters(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", text.upper())


def _trade_only(text: str) -> bool:
    """Whether ``text`` is trade words alone ("KEDAI RUNCIT", "RESTORAN RESOURCES"); an "&"
    between them makes a descriptor of its own ("BISTRO & CAFE"), not a name's part."""
    words = [w.strip("~*-=.,:;|") for w in text.upper().split()]
    words = [w for w in words if w]
    return bool(words) and all(w in name_words() for w in words)


def _repeats(upper: str, lower: str) -> bool:
    """Whether every word of ``upper`` is printed in ``lower`` too: a logo's word above the
    name it comes from ("~ ACME ~" over "ACME TRADING"), not a part of that name."""
    words, below = _name_letters(upper), set(_name_letters(lower))
    return bool(words) and all(w in below for w in words)


def _placed_name(text: str) -> bool:
    """Whether header line ``text`` can be a name found by its place: letters, no identifier,
    date, label or address word."""
    return not (
        _is_registration(text)
        or find_dates(text)
        or _labelled_line(text)
        or len(re.sub(r"[^A-Za-z]", "", text)) < 4
        or _rx().address_word.match(text)
    )


# A registration number is printed within this many lines of the top of the header.
_ANCHOR_ROWS = 5


def _anchored_name(candidates: Sequence[Line]) -> tuple[list[Line], int] | None:
    """The name printed right above the seller's registration number, and its last index.

    A till prints the legal name and then its registration number ("ACME TRADING" /
    "(123456-A)"); a line above the name that does not join it (a brand or trade name, a logo's
    word) is not part of it. The name may run over lines above: a line ending in "&", trade
    words alone under a name's own word or above it (:func:`_joins_above`).
    """
    for at, line in enumerate(candidates[:_ANCHOR_ROWS]):
        text = clean(line.text)
        if at == 0 or not _company_number(text):
            continue
        last = candidates[at - 1]
        # Above it only the name and what precedes a name (a brand, a logo's word): no
        # figures, which would be an address or a number printed before the name.
        if any(re.search(r"\d", x.text) for x in candidates[:at]):
            return None
        if not (_placed_name(clean(last.text)) and _name_line(last)):
            return None
        used = [last]
        start = at - 1
        while start > 0 and len(used) < 3 and _joins_above(candidates[start - 1], used[0]):
            start -= 1
            used.insert(0, candidates[start])
        return used, at - 1
    return None


def _company_number(text: str) -> bool:
    """Whether ``text`` is the seller's registration number ("(123456-A)", "CO. REG:
    123456-A"), not a tax number ("GST ID: ...") nor a lone post code."""
    return _is_registration(text) and not _rx().tax.search(text) and not _lone_postcode(text)


def _joins_above(upper: Line, lower: Line) -> bool:
    """Whether name line ``upper`` is the first part of the name that goes on in ``lower``:
    it ends in "&" or opens a bracket, or one of the two is trade words alone ("PHARMACY" /
    "ACME RESOURCES", "ACME" / "RESTORAN RESOURCES"), or ``lower`` opens with a word that
    continues a name ("ENTERPRISE (BRANCH)")."""
    above, below = clean(upper.text), clean(lower.text)
    if not (_name_line(upper) and _placed_name(above)) or _repeats(above, below):
        return False
    return (
        _open_end(above)
        or _open_paren(above)
        or _is_continuation(below)
        or _trade_only(below)
        or _trade_only(above)
    )


# The company's rivals kept for the arbiter (besides the chosen name).
_MAX_RIVALS = 5


def _company_rivals(header: Sequence[Line], chosen: Found) -> tuple[Found, ...]:
    """Other header lines that could be the seller's name, a legal name first.

    Lines the chosen name was read from, registration numbers, dates, addresses (a post code,
    an address word) and contact lines are no name.
    """
    used = {id(word) for line in chosen.lines for word in line.words}
    rivals: list[tuple[bool, Found]] = []
    for line in header[:8]:
        if any(id(word) in used for word in line.words):
            continue
        text = clean(line.text)
        if _is_registration(text) or find_dates(text) or _rx().address_word.match(text):
            continue
        if _rx().postcode.search(text) or _rx().contact.search(text):
            continue
        if len(re.sub(r"[^A-Za-z]", "", text)) < 4:
            continue
        legal = bool(_rx().legal_suffix.search(text))
        name = _strip_company(text)
        if name and name != chosen.value:
            rivals.append(
                (legal, Found(value=name, confidence=0.85 if legal else 0.55, lines=(line,)))
            )
    rivals.sort(key=lambda pair: not pair[0])  # stable: a legal name first, then in order
    return tuple(found for _, found in rivals[:_MAX_RIVALS])


def _continues_address(previous: Line, text: str) -> bool:
    """Whether ``text`` still belongs to an address whose post-code line was ``previous``."""
    code = clean(previous.text)
    return bool(
        _rx().region.match(text)
        # A post code on a line of its own: its town is on the next line.
        or (_rx().postcode.match(code) and not re.search(r"[A-Za-z]", code))
        or (_code_alone(code) and bool(re.fullmatch(r"[^\W\d_][^\d]*", text)))
        or re.match(r"^\d{3,}-", text)
        or re.search(r",\W*$", previous.text)  # "12345 TOWN," goes on to the state
        or (_rx().postcode.search(text) and len(text.split()) <= 4)  # a second post-code line
        or _outlet_line(text)
    )


def _outlet_line(text: str) -> bool:
    """Whether ``text`` is a branch's name in brackets, as a chain's till prints it under the
    address of the outlet ("(ACME NORTHGATE)"): words only, wholly in one pair of brackets."""
    return bool(re.fullmatch(r"\(\s*[A-Za-z][A-Za-z .&'-]{2,40}\)", text))


# A four-figure post code opening a line, then its town and nothing else ("8001 Zürich",
# "CH-8001 Zürich", "1012 AB Amsterdam", "1100-148 Lisboa"): how Swiss, Austrian, Belgian,
# Dutch, Portuguese, Danish and Norwegian addresses end. Letters only after the code: a street
# ("1234 Main Street") has a street word, which _town_line refuses.
_TOWN_AFTER_CODE = re.compile(
    r"(?:[A-Z]{1,2}-)?\d{4}(?:-\d{3}|\s?[A-Z]{2})?\s+[^\W\d_][^\d:;@/]{1,40}"
)


def _town_line(text: str) -> bool:
    """Whether ``text`` is a four-figure post code and its town, the last line of an address."""
    text = text.strip()
    return bool(_TOWN_AFTER_CODE.fullmatch(text)) and not _rx().address_word.search(text)


def _postcode_line(text: str) -> bool:
    """Whether ``text`` holds a post code: five figures (:attr:`ReceiptPatterns.postcode`) or
    four opening a town line (:func:`_town_line`)."""
    return bool(_rx().postcode.search(text)) or _town_line(text)


def _lone_postcode(text: str) -> bool:
    """Whether ``text`` is five figures alone: inside an address (under the street, or after
    a phone line printed in it), the post code on its own line, not a registration number."""
    return bool(re.fullmatch(r"\d{5}", text))


# A post code alone on its line: five figures, or four with a Dutch pair of letters or a
# Portuguese three-figure extension ("1012 AB", "1100-148"), optionally a country prefix.
_CODE_ALONE = re.compile(r"\d{5}|(?:[A-Z]{1,2}-)?\d{4}(?:-\d{3}|\s?[A-Z]{2})?")


def _code_alone(text: str) -> bool:
    """Whether ``text`` is a post code alone (five figures, or a four-figure code): inside an
    address, under its street, its town follows on the next line."""
    return bool(_CODE_ALONE.fullmatch(text.strip()))


def _wrapped_number(previous: Line, line: Line, following: Sequence[Line]) -> bool:
    """Whether ``line`` is a house number alone that a street wrapped onto its own line: after
    the street's comma ("Via Mela," / "12") or right before the post code ("NO 7, JALAN MAWAR"
    / "2" / "47100 PUCHONG")."""
    if not re.fullmatch(r"\d{1,4}[A-Za-z]?", clean(line.text)):
        return False
    if previous.text.rstrip().endswith(","):
        return True
    return bool(following) and _postcode_line(clean(following[0].text))


def _house_number(text: str) -> bool:
    """Whether ``text`` is a street word and a number alone ("NO 7", "LOT 12")."""
    apart = re.sub(r"(?<=[A-Za-z])(?=\d)", " ", text)  # "NO240" is "NO 240"
    return bool(
        re.fullmatch(r"[A-Za-z]{1,8}\.?\s*\d{1,5}", text) and _rx().address_word.match(apart)
    )


def _label_and_number(text: str, following: str) -> bool:
    """Whether ``text`` is a till's label and its number ("Outlet 12", "Counter: 4") above the
    address, not the address's first line.

    Two address lines have the same shape: a house-number mark and its number on a line of
    their own ("NO 52," over the street, "LOT 7"), and a street printed with its house number
    after the name (as German, Dutch or Nordic addresses are, "Lindenweg 12") when the next
    line opens with a post code, which a street line leads to and a till's label never.
    """
    if not re.fullmatch(r"[A-Za-z ]{2,20}[:.]?\s*\d+", text):
        return False
    if _house_number(text):
        return False
    street = re.fullmatch(r"[A-Za-z][A-Za-z ]{1,30}\s\d{1,4}", text)
    return not (
        street
        and (_rx().postcode.match(following) or _town_line(following) or _code_alone(following))
    )


def _collect_address(lines: Sequence[Line], first: str | None = None) -> list[Line]:
    picked: list[Line] = []
    seen_postcode = bool(first and _postcode_line(first))
    for index, line in enumerate(lines):
        text = clean(line.text)
        following = clean(lines[index + 1].text) if index + 1 < len(lines) else ""
        inside = bool(picked or first)
        # Inside the address figures alone are its post code or a house number its street
        # wrapped after a comma, not a registration number.
        wrapped = bool(picked) and _wrapped_number(picked[-1], line, lines[index + 1 : index + 2])
        if _is_registration(text) and not (inside and (_code_alone(text) or wrapped)):
            if inside:
                break
            continue
        if not picked and first is None:
            if find_dates(text):
                continue
            if line.text.lstrip()[:1] == "(" or _label_and_number(text, following):
                continue  # "(Branch name)", "Outlet: 123"
            # A street cut at its comma before its house number ("Via Mela," / "12").
            cut = line.text.rstrip().endswith(",") and bool(re.fullmatch(r"\d{1,4}", following))
            if not (re.search(r"\d", text) or _rx().address_word.search(text) or cut):
                continue
        elif seen_postcode:
            previous = picked[-1] if picked else None
            if previous is None or not _continues_address(previous, text):
                break
        if _rx().header_stop.search(text) and not _rx().postcode.search(text):
            break
        picked.append(line)
        seen_postcode = (
            seen_postcode or _postcode_line(text) or (len(picked) > 1 and _code_alone(text))
        )
        if len(picked) >= 5:
            break
    return picked


def _address(header: list[Line], after: int) -> Found | None:
    picked = _collect_address(header[after + 1 :])
    if not picked:
        return None
    seen_postcode = any(
        _postcode_line(clean(line.text)) or (at > 0 and _code_alone(clean(line.text)))
        for at, line in enumerate(picked)
    )
    value = " ".join(clean(line.text) for line in picked)
    return Found(value=value, confidence=0.75 if seen_postcode else 0.55, lines=tuple(picked))


def _labelled_address(lines: Sequence[Line]) -> Found | None:
    """An address printed after an ``Address:`` label near the top of the page."""
    for index, line in enumerate(lines[:30]):
        match = _rx().address_label.search(line.text)
        if match is None:
            continue
        first = clean(line.text[match.end() :])
        if not (re.search(r"\d", first) or _rx().address_word.search(first)):
            continue
        rest = _collect_address([trim_line(x) for x in lines[index + 1 : index + 5]], first)
        value = " ".join([first, *(clean(x.text) for x in rest)])
        return Found(value=value, confidence=0.75, lines=(line, *rest))
    return None


# A printed character is about this wide for its box's height (ascenders and descenders in).
_CHARACTER_SHAPE = 0.5


def _aspect(lines: Sequence[Line]) -> float:
    """The page's height over its width, told by how wide its characters print.

    Boxes are page fractions, so a character's width over its height, in those fractions,
    is its true shape times the page's aspect ratio.
    """
    shapes = [
        (w.bbox[2] - w.bbox[0]) / len(w.text) / (w.bbox[3] - w.bbox[1])
        for line in lines
        for w in line.words
        if len(w.text) >= 3 and w.bbox[3] > w.bbox[1]
    ]
    return statistics.median(shapes) / _CHARACTER_SHAPE if shapes else 1.0


def _layouts(lines: Sequence[Line]) -> tuple[PageLayout, ...]:
    """The layout of each page ``lines`` come from (their boxes are page fractions)."""
    pages = sorted({line.page for line in lines})
    return tuple(
        build_layout(
            Page(
                number=number,
                lines=tuple(x for x in lines if x.page == number),
                source="ocr",
                width=1.0,
                height=_aspect([x for x in lines if x.page == number]),
            )
        )
        for number in pages
    )


# Dates a label marks as something other than the day of the sale.
_OTHER_DATE = frozenset({"due_date", "delivery_date"})


def _date(lines: Sequence[Line], layouts: Sequence[PageLayout], day_first: bool) -> Found | None:
    """The date of a date label's value (by position), else the first date, timed first."""
    pairs = key_values(layouts)
    # A segment that also carries a due or delivery label ("Date due") is not the sale's date.
    other = {id(p.hit.segment) for p in pairs if p.concept in _OTHER_DATE}
    for pair in pairs:
        if pair.concept != "invoice_date" or id(pair.hit.segment) in other:
            continue
        for candidate in pair.values:
            dates = find_dates(_fix_ocr_digits(candidate.text), day_first=day_first)
            if dates:
                line = pair.hit.segment.as_line()
                return Found(value=dates[0][0].isoformat(), confidence=0.9, lines=(line,))
    fallback: Found | None = None
    for line in lines:
        dates = find_dates(_fix_ocr_digits(line.text), day_first=day_first)
        if not dates:
            continue
        value = dates[0][0].isoformat()
        # Till receipts print the date beside the time: prefer that to a stray number.
        timed = re.search(r"\d{1,2}:\d{2}", line.text) is not None
        if fallback is None or (timed and fallback.confidence < 0.8):
            fallback = Found(value=value, confidence=0.8 if timed else 0.75, lines=(line,))
    return fallback


# A phone number in the North American style, the area code in brackets ("(212) 555-0134").
_NORTH_AMERICAN_PHONE = re.compile(r"(?<!\d)\(\d{3}\)\s?\d{3}-\d{4}(?!\d)")
_NUMERIC_DATE = re.compile(r"(?<![\d.])(\d{1,2})[./-](\d{1,2})[./-](\d{2,4})(?!\d)")


def _day_first(text: str, *, day_first: bool) -> bool:
    """Whether the receipt's numeric dates read day first (``day_first``: the caller's default).

    The dates vote (:func:`~renderkit.parsing.extract.invoice.day_first_vote`) when one shows
    its order (a part above 12). When none does, a receipt printing dollars ("$", "USD") and a
    North American phone number is from the US, whose tills print the month first.
    """
    if not (day_first and day_first_vote(text)):
        return False
    shown = any(int(m.group(1)) > 12 or int(m.group(2)) > 12 for m in _NUMERIC_DATE.finditer(text))
    dollars = "$" in text or re.search(r"\bUSD\b", text) is not None
    return shown or not dollars or not _NORTH_AMERICAN_PHONE.search(text)


def _labelled_amount(lines: Sequence[Line], index: int) -> str | None:
    amounts = line_amounts(lines[index])
    if amounts:
        return amounts[-1]
    if index + 1 < len(lines):
        following = clean(lines[index + 1].text)
        if re.fullmatch(r"([A-Z]{2,3}|\$|€|£)?\s*[\d.,\s]+", following):
            nxt = line_amounts(lines[index + 1])
            if nxt:
                return nxt[-1]
    return None


def _payment(lines: Sequence[Line]) -> tuple[Decimal | None, Decimal | None]:
    cash = change = None
    for line in lines:
        amounts = line_amounts(line)
        if not amounts:
            continue
        if change is None and _rx().change.search(line.text):
            change = Decimal(amounts[-1])
        elif cash is None and _rx().cash.search(line.text):
            cash = Decimal(amounts[-1])
    return cash, change


# Label concepts whose value is the amount to pay.
_TOTAL_CONCEPTS = frozenset({"total", "amount_due"})
# The largest step tills round a payment by (the smallest coin in use).
_ROUNDING_STEP = Decimal("0.05")
# At most this many characters of a word cut at the paper's edge may come before a label.
_EDGE_FRAGMENT = 4


def _row_of(segment: Segment, layouts: Sequence[PageLayout]) -> Row | None:
    for layout in layouts:
        if layout.number == segment.page and segment.row < len(layout.rows):
            return layout.rows[segment.row]
    return None


def _leads(pair: KeyValue) -> bool:
    """Whether the label opens its segment, a fragment cut at the paper's edge aside.

    OCR loses the first letters at a receipt's edge ("otal After Rounding"): a few letters
    before the label are what is left of another word of it, not a sentence it ends.
    """
    before = pair.hit.segment.text[: pair.hit.start].strip()
    return len(before) <= _EDGE_FRAGMENT and not any(c.isdigit() for c in before)


def _total_amounts(pair: KeyValue, row: Row) -> tuple[str, list[Decimal], int]:
    """What a total label's row prints after it (or, if nothing, below it): text, amounts,
    and how many numbers.

    The whole rest of the row counts, other labels included ("Total incl. GST 6% RM 47.70"):
    the label opens its row, so what follows is its own. A rate ("6%") or a number glued to a
    word is no amount; an amount counts once however often printed ("TOTAL ROUNDED 33.90 RM
    33.90").
    """
    segment = pair.hit.segment
    after = row.segments[row.segments.index(segment) + 1 :]
    texts = [segment.text[pair.hit.end :], *(s.text for s in after)]
    text = _fix_ocr_digits(" ".join(texts))
    if not find_amounts(text):
        below = [v.text for v in pair.values if v.where == "below"]
        text = _fix_ocr_digits(" ".join(below[:1]))
    amounts = list(dict.fromkeys(Decimal(a) for a, _, _ in find_amounts(text)))
    plain = re.sub(r"\d+(?:[.,]\d+)?\s*%", " ", text)
    numbers = {
        n.replace(",", ".").lstrip("0")
        for n in re.findall(r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\w%])", plain)
    }
    return text, amounts, len(numbers)


def _labelled_total(
    layouts: Sequence[PageLayout], cash: Decimal | None, change: Decimal | None
) -> tuple[Decimal, float, Line] | None:
    """The amount of a total label by position, ranked against the payment: amount, rank, line.

    The rank is positive when the payment confirms the amount, 0 when nothing does.
    """
    paid = cash - change if cash is not None and change is not None else None
    candidates: list[tuple[float, int, Decimal, KeyValue]] = []
    for order, pair in enumerate(key_values(layouts)):
        if pair.concept not in _TOTAL_CONCEPTS or not _leads(pair):
            continue
        # A total label opens its row; "GST included in | total" is the end of a sentence.
        row = _row_of(pair.hit.segment, layouts)
        if row is None or row.leading is not pair.hit.segment:
            continue
        text, amounts, numbers = _total_amounts(pair, row)
        said = f"{pair.hit.segment.text[: pair.hit.end]} {text}"
        if (
            _rx().cash.search(said)
            or _rx().change.search(said)
            or _rx().not_total.search(said)
            or not amounts
        ):
            continue
        amount = amounts[-1]
        rank = float(paid is not None and amount == paid) - float(numbers > 1)
        rank -= float(cash is not None and cash > 0 and change is not None and amount > cash)
        # The payment printed right below the total: the amount that was paid.
        below = [v for v in pair.values if v.where == "below"]
        rank += 0.5 * bool(below and _rx().cash.search(below[0].text))
        candidates.append((rank, order, amount, pair))
    # A row of several numbers, or more than the cash given, is no total.
    if not candidates or max(c[0] for c in candidates) < 0:
        return None
    rank, _, amount, pair = max(candidates, key=lambda c: (c[0], c[1]))
    return amount, rank, pair.hit.segment.as_line()


def _total(lines: Sequence[Line], layouts: Sequence[PageLayout]) -> Found | None:
    """The total: a total label's amount, else the amount the receipt's sums agree on, else
    what was paid, else the subtotal."""
    cash, change = _payment(lines)
    paid = cash - change if cash is not None and change is not None else None
    labelled = _labelled_total(layouts, cash, change)
    summed = summed_total(lines, _till_amounts)
    by_sums = (
        None
        if summed is None
        else Found(
            value=f"{summed.value:.2f}",
            confidence=0.8,
            lines=() if summed.line is None else (summed.line,),
        )
    )
    if labelled is not None:
        amount, rank, line = labelled
        # Without change given the amount tendered is the amount paid (a card pays exactly).
        settled = paid if paid is not None else cash
        if settled is not None and 0 < abs(settled - amount) < _ROUNDING_STEP:
            # Tills round what is paid to the smallest coin and may print the rounded total
            # where it cannot be read: the amount paid is the total.
            return Found(value=f"{settled:.2f}", confidence=0.8, lines=(line,))
        chosen = Found(value=f"{amount:.2f}", confidence=0.95 if rank > 0 else 0.8, lines=(line,))
        if paid is not None and amount == paid:
            return chosen
        if by_sums is not None and summed is not None and summed.value != amount:
            # No payment confirms the label's amount, and both sums name another: the label
            # was read beside the wrong amount (a photo's rows run together) or is no total.
            return attrs.evolve(by_sums, alternatives=(chosen,))
        before = left_by_payment(lines, _till_amounts, amount)
        if before is not None and before.line is not None:
            # The label's amount is the one handed over: the total is what the change leaves.
            return Found(
                value=f"{before.value:.2f}",
                confidence=0.75,
                lines=(before.line,),
                alternatives=(chosen,),
            )
        return chosen
    if by_sums is not None:
        return by_sums
    if paid is not None and paid > 0:
        return Found(value=f"{paid:.2f}", confidence=0.6)
    # No readable total line: till receipts mostly print the same amount as the subtotal (tax
    # included, nothing rounded), so it beats no value at all.
    subtotal = _labelled_line_amount(lines, _rx().subtotal)
    if subtotal is not None and Decimal(str(subtotal.value)) > 0:
        return attrs.evolve(subtotal, confidence=0.45)
    return None


def _labelled_line_amount(lines: Sequence[Line], pattern: re.Pattern[str]) -> Found | None:
    for index, line in enumerate(lines):
        if pattern.search(line.text) and not _rx().cash.search(line.text):
            amount = _labelled_amount(lines, index)
            if amount is not None:
                return Found(value=amount, confidence=0.75, lines=(line,))
    return None


def _number(lines: Sequence[Line]) -> Found | None:
    for line in lines:
        match = _rx().number_label.search(line.text)
        if match and re.search(r"\d", match.group("value")):
            return Found(value=match.group("value"), confidence=0.75, lines=(line,))
    return None


def _line_items(lines: Sequence[Line]) -> list[dict[str, object]]:
    items: list[dict[str, object]] = []
    for line in lines:
        text = _fix_ocr_digits(line.text)
        if _rx().total_word.search(text) or _rx().cash.search(text) or _rx().change.search(text):
            continue
        if _rx().tax.search(text) or _rx().header_stop.search(text):
            continue
        amounts = find_amounts(text)
        if not amounts:
            continue
        first = amounts[0][1]
        description = clean(re.sub(r"^\s*\d+\s*[xX]?\s+", "", text[:first]))
        if sum(c.isalpha() for c in description) < 3:
            continue
        item: dict[str, object] = {"description": description, "amount": float(amounts[-1][0])}
        quantity = re.search(r"(?:^|\s)(\d{1,3})\s*[xX@]?\s", text[:first] + " ")
        if quantity and len(amounts) >= 2:
            item["quantity"] = int(quantity.group(1))
            item["unit_price"] = float(amounts[0][0])
        items.append(item)
    return items[:200]


def _mean_confidence(lines: Sequence[Line]) -> float:
    words = [w for line in lines for w in line.words]
    return sum(w.confidence for w in words) / len(words) if words else 1.0


def _fix_address_codes(text: str) -> str:
    """Letter-digit slips and lost spaces in the codes of an address.

    No address has a dollar sign: "$S12" is a section code read with its S as "$". Section
    codes are "SS" and digits ("SS21"), never "S8" or "S5" and digits; and an ordinal before a
    floor is "3RD", never "BRD" or "8RD".
    """
    text = re.sub(r"\$(?=\w)", "S", text)
    text = re.sub(r"\bS[58](?=\d{1,2}(?:/|\b))", "SS", text)
    # A post code run into its town ("43800DENGKIL"), a quote between a word and its number
    # ("Level'6"), a house number ending in the letter O ("29O").
    text = re.sub(r"(?<![\d-])(\d{5})(?=[A-Za-z]{3})", r"\1 ", text)
    text = re.sub(r"(?<=[A-Za-z])['’`](?=\d)", " ", text)
    text = re.sub(r"(?<=\b\d\d)[O](?=\W|$)", "0", text)
    # A house number run into the word either side of it: "NO117," after the number mark,
    # "12Lindenweg" before a capitalised street name (a unit letter, "12A", is one capital).
    text = re.sub(r"\b(N[Oo])(?=\d)", r"\1 ", text)
    text = re.sub(r"(?<![\w-])(\d{1,4})(?=[A-Z][a-z]{2,})", r"\1 ", text)
    # A UK post code read without the space between its halves ("QT58HL"): the inward half
    # is always a figure and two letters.
    text = re.sub(r"\b([A-Z]{1,2}\d[A-Z\d]?)(\d[A-Z]{2})\b", r"\1 \2", text)
    # A street's number run into its name after a street word ("LORONG MAWAR2,"): a name of
    # three capitals or more is never a code with figures (section codes have one or two).
    if _rx().address_word.search(text):
        text = re.sub(r"\b([A-Z]{3,})(\d{1,3})(?=,|\s|$)", r"\1 \2", text)
    # A town or street word with an O read as 0 ("MELZ0KBARU"): no code is letters and 0s.
    text = _LETTER_WORD_WITH_ZERO.sub(lambda m: m.group(0).replace("0", "O"), text)
    return _rx().floor_ordinal.sub(r"3\1", text)


def _line_facts(line: Line) -> LineFacts:
    """What a header line is, by the receipt patterns (the span ranker's view of it)."""
    text = clean(line.text)
    letters = [c for c in text if c.isalpha()]
    return LineFacts(
        postcode=bool(_rx().postcode.search(text)),
        contact=bool(_rx().contact.search(text)) or bool(find_emails(text)),
        registration=_is_registration(text),
        address_word=bool(_rx().address_word.search(text)),
        legal=bool(_rx().legal_suffix.search(text)),
        trade=bool(_rx().business_word.search(fix_words(text, name_words()))),
        stop=bool(_rx().header_stop.search(text)),
        date=bool(find_dates(text)),
        region=bool(_rx().region.match(text)),
        label_number=bool(re.fullmatch(r"[A-Za-z ]{2,20}[:.]?\s*\d+", text)),
        meaningful=meaningful(line),
        digits=bool(re.search(r"\d", text)),
        starts_digit=text[:1].isdigit(),
        ends_comma=text.endswith(",") or line.text.rstrip().endswith(","),
        paren=line.text.lstrip()[:1] == "(",
        letters=len(letters),
        upper=sum(c.isupper() for c in letters) / len(letters) if letters else 0.0,
        confidence=_mean_confidence([line]),
    )


@attrs.frozen(kw_only=True)
class SpanChoices:
    """A receipt header's span candidates for one field, as training and reading see them.

    Attributes:
        field: ``company`` or ``address``.
        lines: the header lines the spans index.
        spans: the candidates.
        texts: each candidate's lines' text, joined.
        features: each candidate's features (:data:`~renderkit.parsing.rank.spans.SPAN_FEATURES`).
        rule: the rules' value for the field, if any (its lines may lie outside the header).
        page_words: every word of the receipt (OCR slips are repaired against them).
    """

    field: str
    lines: tuple[Line, ...]
    spans: tuple[Span, ...]
    texts: tuple[str, ...]
    features: tuple[tuple[float, ...], ...]
    rule: Found | None
    page_words: tuple[Word, ...]

    def value(self, index: int) -> str:
        """Candidate ``index``'s value, cut and repaired as the rules' value is."""
        text = self.texts[index]
        if self.field == "company":
            return _repaired_name(_strip_company(text), self.page_words)
        address = _fix_address_codes(_unlabelled(text))
        return fix_words(agree_words(address, self.page_words), address_words())


def _repaired_name(name: str, page_words: Sequence[Word]) -> str:
    """A seller's name with OCR's slips undone: a word read better elsewhere on the page, a
    letter-spaced name read as one run, a trade or place word one letter off."""
    agreed = split_run_together(agree_words(name, page_words), name_words())
    return fix_words(agreed, vocabulary())


def _indices(found: Found | None, lines: Sequence[Line]) -> tuple[int, ...] | None:
    """The header lines ``found`` was read from; None when one of them is not a header line."""
    if found is None:
        return ()
    out: list[int] = []
    for line in found.lines:
        ids = {id(w) for w in line.words}
        at = next((i for i, x in enumerate(lines) if any(id(w) in ids for w in x.words)), None)
        if at is None:
            return None
        out.append(at)
    return tuple(sorted(set(out)))


def span_choices(
    lines: Sequence[Line], found: Mapping[str, Found] | None = None
) -> dict[str, SpanChoices]:
    """The name and address span candidates of a receipt, with the rules' own choices
    (``found``, else read here): what the span rankers score, in training and in reading
    alike (:mod:`renderkit.parsing.rank.spans`)."""
    found = _rule_names(lines) if found is None else found
    page_words = tuple(w for line in lines for w in line.words)
    top = tuple(trim_line(x) for x in _top_lines(lines))
    facts = [_line_facts(x) for x in top]
    company_at = _indices(found.get("company"), top)
    after = max(company_at) if company_at else -1
    out: dict[str, SpanChoices] = {}
    for field in SPAN_FIELDS:
        rule = found.get(field)
        at = _indices(rule, top)
        if at is None:
            continue  # read beside a label further down: the header's spans do not hold it
        spans = span_candidates(facts, field, after=after)
        out[field] = SpanChoices(
            field=field,
            lines=top,
            spans=tuple(spans),
            texts=tuple(" ".join(clean(top[i].text) for i in span.used) for span in spans),
            features=tuple(
                tuple(span_features(facts, span, after=after, rule=at)) for span in spans
            ),
            rule=rule,
            page_words=page_words,
        )
    return out


def _unlabelled(text: str) -> str:
    """``text`` without a short label before a colon ("Address:", "HQ:") opening it, when an
    address follows (a number or an address word): the label is not part of the address."""
    match = re.match(r"[^\W\d_](?:[^\W\d_]|[ .]){0,15}:\s*(?=\S)", text)
    if match is None:
        return text
    rest = text[match.end() :]
    return rest if re.search(r"\d", rest) or _rx().address_word.search(rest) else text


# The rules' span stays when the span ranker gives it at least this probability.
_KEEP_RULE = 0.5


@functools.cache
def _span_ranker(field: str) -> Ranker:
    return load_ranker(f"receipt_{field}", SPAN_FEATURES)


def _ranked_names(
    lines: Sequence[Line], found: dict[str, Found], fields: Collection[str]
) -> dict[str, Found]:
    """``found`` with the ``fields`` (``company``, ``address``) the span rankers pick, each
    with its calibrated probability as the confidence; the rules' value becomes a rival of a
    name it replaces."""
    out = dict(found)
    for field, choices in span_choices(lines, found).items():
        if field not in fields or not choices.spans:
            continue
        ranker = _span_ranker(field)
        scores = [ranker.score(f) for f in choices.features]
        best = max(range(len(scores)), key=scores.__getitem__)
        probability = ranker.probability(scores[best])
        ruled = _indices(choices.rule, choices.lines)
        kept = [i for i, span in enumerate(choices.spans) if ruled and span.used == ruled]
        if kept and ranker.probability(scores[kept[0]]) >= _KEEP_RULE:
            # The model finds the rules' own lines more likely right than wrong: they stay.
            continue
        if choices.rule is None and probability < 0.5:
            continue
        value = choices.value(best)
        if not value:
            continue
        used = tuple(choices.lines[i] for i in choices.spans[best].used)
        pick = Found(value=value, confidence=round(probability, 3), lines=used)
        if choices.rule is not None and field == "company":
            rivals = [choices.rule, *choices.rule.alternatives]
            pick = attrs.evolve(
                pick, alternatives=tuple(r for r in rivals if r.value != value)[:_MAX_RIVALS]
            )
        out[field] = pick
    return out


def receipt_fields(
    lines: Sequence[Line], *, day_first: bool, spans: Collection[str] = ()
) -> dict[str, Found]:
    """Seller, address, date, number, amounts and line items of a receipt or invoice.

    ``spans``: the fields among ``company`` and ``address`` that are the spans the learned
    span rankers pick (:func:`span_choices`) instead of the rules' lines.
    """
    found = _rule_names(lines)
    if spans:
        found = _ranked_names(lines, found, spans)
    text = "\n".join(line.text for line in lines)
    layouts = _layouts(lines)
    rules: tuple[tuple[str, Callable[[], Found | None]], ...] = (
        ("date", lambda: _date(lines, layouts, _day_first(text, day_first=day_first))),
        ("total", lambda: _total(lines, layouts)),
        ("subtotal", lambda: _labelled_line_amount(lines, _rx().subtotal)),
        ("tax", lambda: _labelled_line_amount(lines, _rx().tax_line)),
        ("number", lambda: _number(lines)),
    )
    for name, rule in rules:
        value = rule()
        if value is not None:
            found[name] = value
    emails = find_emails(text)
    if emails:
        found["email"] = Found(value=emails[0], confidence=0.9)
    phones = find_phones(text)
    if phones:
        found["phone"] = Found(value=phones[0], confidence=0.8)
    items = _line_items(lines)
    if items:
        found["line_items"] = Found(value=items, confidence=0.5)
    return found


def _rule_names(lines: Sequence[Line]) -> dict[str, Found]:
    """The seller's name and address by the receipt rules."""
    found: dict[str, Found] = {}
    top = _top_lines(lines)
    header = _header(top)
    company, at = _company(header, top)
    page_words = [w for line in lines for w in line.words]
    if company is not None:
        # A name guessed from position alone (no legal suffix, no trade word) on a poorly read
        # line is usually OCR debris: better no value than a wrong one.
        if company.confidence > 0.55 or _mean_confidence(company.lines) >= 0.75:

            def repaired(name: Found) -> Found:
                return attrs.evolve(name, value=_repaired_name(str(name.value), page_words))

            rivals = tuple(repaired(r) for r in _company_rivals(header, company))
            found["company"] = attrs.evolve(repaired(company), alternatives=rivals)
        address = _address(header, at)
        if address is None or address.confidence < 0.75:
            address = _labelled_address(lines) or address
        if (
            address is not None
            and address.confidence < 0.75
            and _mean_confidence(address.lines) < 0.75
        ):
            address = None  # no post code and poorly read: more likely debris than address
        if address is not None:
            found["address"] = attrs.evolve(
                address,
                value=fix_words(
                    agree_words(_fix_address_codes(_unlabelled(str(address.value))), page_words),
                    address_words(),
                ),
            )
    return found


# Label concepts that only an invoice prints: a due date, payment terms, bank details.
_INVOICE_ONLY = frozenset({"due_date", "payment_terms", "iban", "bic"})
_TIME = re.compile(r"(?<!\d)\d{1,2}:\d{2}(?!\d)")


def _invoice_label(text: str) -> bool:
    """Whether ``text`` opens with a label only invoices print (any shipped language).

    A buyer block counts only by a label of two words or more ("Bill to", "Sold to"): till
    receipts print a lone "Customer" or "To" line too.
    """
    words = [t for t, _, _ in tokens(text)]
    if not words:
        return False
    return any(
        concept in _INVOICE_ONLY or (concept == "customer" and length >= 2)
        for concept, length in load_lexicon().match(words, 0)
    )


def till_receipt(text: str) -> bool:
    """Whether ``text`` reads as a till receipt, whatever its title ("TAX INVOICE" included).

    A till receipt shows how it was paid (cash or card tendered, change given, a rounding
    line), who took the payment and when to the minute; an invoice asks to be paid later, so
    it prints a buyer block, a due date, terms or bank details. Two till cues and no invoice
    label make a receipt.
    """
    lines = [clean(x) for x in text.splitlines() if x.strip()]
    if any(_invoice_label(x) for x in lines):
        return False
    amounts = {i for i, x in enumerate(lines) if find_amounts(_fix_ocr_digits(x))}
    cues = {
        "paid": any(i in amounts and _rx().cash.search(x) for i, x in enumerate(lines)),
        "change": any(i in amounts and _rx().change.search(x) for i, x in enumerate(lines)),
        "rounding": any(_rx().rounding.search(x) for x in lines),
        "till": any(_rx().till_heads.search(x) for x in lines),
        "time": any(_TIME.search(x) and find_dates(_fix_ocr_digits(x)) for x in lines),
    }
    return sum(cues.values()) >= 2
