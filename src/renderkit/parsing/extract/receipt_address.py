"""A receipt's address: where the address block starts and ends among the header lines.

An address opens with a number or a street word and closes after its post code (five figures,
or four opening a town line), the state or region that follows it, or a branch's name in
brackets. A house number wrapped onto its own line, a post code alone, and a phone line printed
inside the address are part of it; a registration number or a till's label is not. The value is
repaired for OCR's slips in the codes of an address (:func:`repaired_address`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from renderkit.parsing._protocol import Line, Word
from renderkit.parsing.extract.found import Found, clean
from renderkit.parsing.extract.ocrfix import address_words, agree_words, fix_words
from renderkit.parsing.extract.receipt_lines import is_registration, letters_for_zeros, trim_line
from renderkit.parsing.extract.receipt_patterns import receipt_patterns as _rx
from renderkit.parsing.extract.values import find_dates, online_address

__all__ = [
    "address_like",
    "header_address",
    "labelled_address",
    "labelled_number",
    "lone_postcode",
    "phone_inside_address",
    "repaired_address",
    "town_beside_phone",
    "wrapped_number",
]


def address_like(line: Line) -> bool:
    """Whether ``line`` is a short, well read line of numbers and names: an address's part."""
    # A short line of numbers and names ("12, 3/4A,") that meaningful() finds too few letters in.
    text = clean(line.text)
    alnum = sum(c.isalnum() for c in text)
    if _house_number(text) and line.words:
        return True  # "NO 7," over the street
    if alnum < 4 or not re.search(r"\d", text) or not line.words:
        return False
    return sum(w.confidence for w in line.words) / len(line.words) >= 0.6


def town_beside_phone(above: Sequence[Line], line: Line) -> Line | None:
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
    if not (_code_alone(last) or (street and not _any_postcode(above))):
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


def phone_inside_address(above: Sequence[Line], below: Sequence[Line]) -> bool:
    """Whether a contact line is printed inside the address: the lines above it hold no post
    code yet and the next line holds one ("12 Street" / "TEL: ..." / "12345 Town"), or the
    line above is a post code alone or ends in a comma and the next is its town or state, in
    words only ("12345" / "TEL: ..." / "TOWN, STATE")."""
    if not above or not below:
        return False
    following = clean(below[0].text)
    # A house number wrapped after the street's comma ("Via Mela," / "TEL: ..." / "12").
    cut = _cut_at_comma(above[-1], following)
    if _rx().contact.search(following) or (
        is_registration(following) and not (_code_alone(following) or cut)
    ):
        return False
    if not _any_postcode(above):
        # The post code next, or under the street or town line that follows the phone line
        # ("NO 12," / "TEL: ..." / "JALAN MAWAR" / "47100 PUCHONG") or under the house number
        # a street cut at its comma wrapped ("Via Mela," / "TEL: ..." / "12" / "00100 Roma"),
        # or alone on the next line over its town in words ("Kerkstraat 15" / "TEL: ..." /
        # "6217" / "Maastricht"); four figures over a number are the phone's own tail instead.
        after = clean(below[1].text) if len(below) > 1 else ""
        return (
            _postcode_line(following)
            or (_code_alone(following) and _in_words(after))
            or (
                bool(after)
                and (cut or not is_registration(following))
                and _postcode_line(after)
                and not _rx().contact.search(after)
            )
        )
    last = clean(above[-1].text)
    open_end = re.fullmatch(r"\d{4,5}", last) or above[-1].text.rstrip().endswith(",")
    return bool(open_end) and _in_words(following)


def _in_words(text: str) -> bool:
    """Whether ``text`` is words without a figure: a town or a state, not a code or a number."""
    return bool(re.fullmatch(r"[^\W\d_][^\d]*", text))


def _cut_at_comma(street: Line, following: str) -> bool:
    """Whether ``street`` ends at a comma and ``following`` is its house number alone, which
    the street wrapped ("Via Mela," / "12")."""
    return street.text.rstrip().endswith(",") and bool(re.fullmatch(r"\d{1,4}", following))


def _continues_address(previous: Line, text: str) -> bool:
    """Whether ``text`` still belongs to an address whose post-code line was ``previous``."""
    code = clean(previous.text)
    return bool(
        _rx().region.match(text)
        # A post code on a line of its own: its town is on the next line.
        or (_rx().postcode.match(code) and not re.search(r"[A-Za-z]", code))
        or (_code_alone(code) and _in_words(text))
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
    r"(?:[A-Z]{1,2}-)?\d{4}(?:-\d{3}|\s?[A-Z]{2})?\s+(?P<town>[^\W\d_][^\d:;@/]{1,40})"
)


def _town_line(text: str) -> bool:
    """Whether ``text`` is a four-figure post code and its town, the last line of an address.
    The street words are looked for in the town only: a Dutch code's letters may spell one
    ("5599 RD Delft")."""
    found = _TOWN_AFTER_CODE.fullmatch(text.strip())
    return found is not None and not _rx().address_word.search(found["town"])


def _postcode_line(text: str) -> bool:
    """Whether ``text`` holds a post code: five figures (:attr:`ReceiptPatterns.postcode`) or
    four opening a town line (:func:`_town_line`)."""
    return bool(_rx().postcode.search(text)) or _town_line(text)


def _any_postcode(lines: Sequence[Line]) -> bool:
    """Whether one of ``lines`` holds a post code (:func:`_postcode_line`)."""
    return any(_postcode_line(clean(x.text)) for x in lines)


def lone_postcode(text: str) -> bool:
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


def _figures_only(text: str) -> bool:
    """Whether ``text``, above the address, is figures and their separators with no letter and
    no post code: a registration or phone number whose check letter or label OCR lost ("82
    227-"), never an address's first line, which names its street or house ("NO. 7")."""
    return (
        not re.search(r"[^\W\d_]", text)
        and bool(re.search(r"\d", text))
        and not (_code_alone(text) or _postcode_line(text))
    )


def wrapped_number(previous: Line, line: Line, following: Sequence[Line]) -> bool:
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


def labelled_number(text: str) -> bool:
    """Whether ``text`` is words and a number alone ("Outlet 12", "Counter: 4", "NO 52"): a
    till's label and its number, or an address's line (:func:`_label_and_number` tells)."""
    return bool(re.fullmatch(r"[A-Za-z ]{2,20}[:.]?\s*\d+", text))


def _label_and_number(text: str, following: str) -> bool:
    """Whether ``text`` is a till's label and its number ("Outlet 12", "Counter: 4") above the
    address, not the address's first line.

    Two address lines have the same shape: a house-number mark and its number on a line of
    their own ("NO 52," over the street, "LOT 7"), and a street printed with its house number
    after the name (as German, Dutch or Nordic addresses are, "Lindenweg 12", or "Lindenweg12"
    where OCR lost the space) when the next line opens with a post code, which a street line
    leads to and a till's label never.
    """
    if not labelled_number(text):
        return False
    if _house_number(text) or _rx().address_word.search(text):
        return False  # "NO 52"; "Rua Mela 12", "Lindenlaan 12": no till's label
    street = re.fullmatch(r"[A-Za-z][A-Za-z ]{1,30}\s?\d{1,4}", text)
    return not (
        street
        and (_rx().postcode.match(following) or _town_line(following) or _code_alone(following))
    )


def _collect_address(lines: Sequence[Line], first: str | None = None) -> tuple[list[Line], bool]:
    """The address lines from the top of ``lines`` (after ``first``, its text beside a label,
    when given), and whether a post code was among them."""
    picked: list[Line] = []
    seen_postcode = bool(first and _postcode_line(first))
    for index, line in enumerate(lines):
        text = clean(line.text)
        following = clean(lines[index + 1].text) if index + 1 < len(lines) else ""
        inside = bool(picked or first)
        if online_address(text):
            # An e-mail or web address is no part of a postal one: after a post code alone
            # it would be read as the town.
            if inside:
                break
            continue
        # Inside the address figures alone are its post code or a house number its street
        # wrapped after a comma, not a registration number.
        wrapped = bool(picked) and wrapped_number(picked[-1], line, lines[index + 1 : index + 2])
        if is_registration(text) and not (inside and (_code_alone(text) or wrapped)):
            if inside:
                break
            continue
        if not picked and first is None:
            if find_dates(text) or _figures_only(text):
                continue
            if line.text.lstrip()[:1] == "(" or _label_and_number(text, following):
                continue  # "(Branch name)", "Outlet: 123"
            # A street cut at its comma before its house number ("Via Mela," / "12").
            cut = _cut_at_comma(line, following)
            if not (re.search(r"\d", text) or _rx().address_word.search(text) or cut):
                continue
        elif seen_postcode:
            previous = picked[-1] if picked else None
            if previous is None or not _continues_address(previous, text):
                break
            if labelled_number(text) and not _house_number(text):
                break  # "TILL 842" after a post code alone: a till's label, not the town
        if _rx().header_stop.search(text) and not _rx().postcode.search(text):
            break
        picked.append(line)
        seen_postcode = (
            seen_postcode or _postcode_line(text) or (len(picked) > 1 and _code_alone(text))
        )
        if len(picked) >= 5:
            break
    return picked, seen_postcode


def header_address(header: list[Line], after: int) -> Found | None:
    """The address printed in ``header`` under its line ``after`` (the name's last)."""
    picked, seen_postcode = _collect_address(header[after + 1 :])
    if not picked:
        return None
    value = " ".join(clean(line.text) for line in picked)
    return Found(value=value, confidence=0.75 if seen_postcode else 0.55, lines=tuple(picked))


def labelled_address(lines: Sequence[Line]) -> Found | None:
    """An address printed after an ``Address:`` label near the top of the page."""
    for index, line in enumerate(lines[:30]):
        match = _rx().address_label.search(line.text)
        if match is None:
            continue
        first = clean(line.text[match.end() :])
        if not (re.search(r"\d", first) or _rx().address_word.search(first)):
            continue
        rest, _ = _collect_address([trim_line(x) for x in lines[index + 1 : index + 5]], first)
        value = " ".join([first, *(clean(x.text) for x in rest)])
        return Found(value=value, confidence=0.75, lines=(line, *rest))
    return None


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
    # A post code of figures, a dash and figures run into its town ("3099-116Porto").
    text = re.sub(r"\b(\d{4}-\d{3})(?=[A-Za-z])", r"\1 ", text)
    # A Dutch post code's figures run into its letters, or its letters into the town
    # ("7895MA", "5853 NNDelft").
    text = re.sub(r"\b(\d{4})([A-Z]{2})(?=\b|[A-Z][a-z])", r"\1 \2", text)
    text = re.sub(r"\b(\d{4} [A-Z]{2})(?=[A-Z][a-z])", r"\1 ", text)
    # A street word run into the name beside it ("MaplesStreet", "JalanMawar"), read where
    # a small letter meets a capital.
    after, before = _street_word_glue()
    text = before.sub(r"\1 ", after.sub(" ", text))
    # A town in small letters run into the UK post code after it ("HamptonTT15 4WS").
    text = re.sub(r"(?<=[a-z]{3})(?=[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}\b)", " ", text)
    # A UK post code read without the space between its halves ("QT58HL"): the inward half
    # is always a figure and two letters.
    text = re.sub(r"\b([A-Z]{1,2}\d[A-Z\d]?)(\d[A-Z]{2})\b", r"\1 \2", text)
    # A street's number run into its name after a street word ("LORONG MAWAR2,"): a name of
    # three capitals or more is never a code with figures (section codes have one or two).
    if _rx().address_word.search(text):
        text = re.sub(r"\b([A-Z]{3,})(\d{1,3})(?=,|\s|$)", r"\1 \2", text)
    # A compound street name run into its number ("Goethegasse12").
    text = _rx().compound_street.sub(lambda m: m.group(0) + " ", text)
    # A town or street word with an O read as 0 ("MELZ0KBARU"): no code is letters and 0s.
    text = letters_for_zeros(text)
    return _rx().floor_ordinal.sub(r"3\1", text)


@functools.cache
def _street_word_glue() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Where a street word of the lexicons, capitalised, meets the name it was run into: after
    a small letter (before the word), and before a capital and a small letter (the word kept
    as group 1)."""
    words = sorted({w.title() for w in address_words() if len(w) >= 3 and w.isalpha()}, key=len)
    alternation = "|".join(re.escape(w) for w in reversed(words))
    return (
        re.compile(rf"(?<=[a-z]{{2}})(?=(?:{alternation})\b)"),
        re.compile(rf"\b({alternation})(?=[A-Z][a-z])"),
    )


def _unlabelled(text: str) -> str:
    """``text`` without a short label before a colon ("Address:", "HQ:") opening it, when an
    address follows (a number or an address word): the label is not part of the address."""
    match = re.match(r"[^\W\d_](?:[^\W\d_]|[ .]){0,15}:\s*(?=\S)", text)
    if match is None:
        return text
    rest = text[match.end() :]
    return rest if re.search(r"\d", rest) or _rx().address_word.search(rest) else text


def repaired_address(text: str, page_words: Sequence[Word]) -> str:
    """An address with OCR's slips undone: a label before it dropped, its codes repaired, a
    word read better elsewhere on the page, a street or place word one letter off."""
    # A company number in brackets ("(123456-A)") printed beside the address, read into its
    # line on a tilted photo: no address holds one.
    text = clean(re.sub(r"\s*\(\s*\d{4,}[-\s]?[A-Z]\s*\)", "", text))
    address = _fix_address_codes(_unlabelled(text))
    return fix_words(agree_words(address, page_words), address_words())
