"""A receipt's seller name: which header lines hold it and how it is cut.

A name with a legal form ("ACME TRADING SDN BHD") is found by its form; otherwise by its place,
the first header line of letters that is no identifier, date, label or address, or the line
right above the seller's registration number. A name runs over lines when a line ends in "&" or
an open bracket, or is trade words alone; a logo's word repeated above the name is not part of
it. The value is cut after its legal form (:func:`strip_company`) and repaired for OCR's slips
(:func:`repaired_name`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from renderkit.parsing._protocol import Line, Word
from renderkit.parsing.extract.found import Found, clean, sentence_like, without_logo_word
from renderkit.parsing.extract.identifiers import legal_forms
from renderkit.parsing.extract.ocrfix import (
    agree_words,
    fix_words,
    legal_form_words,
    name_words,
    split_run_together,
    vocabulary,
)
from renderkit.parsing.extract.receipt_address import lone_postcode
from renderkit.parsing.extract.receipt_lines import is_registration, trim_line
from renderkit.parsing.extract.receipt_patterns import dotted_pattern, form_pattern
from renderkit.parsing.extract.receipt_patterns import receipt_patterns as _rx
from renderkit.parsing.extract.values import find_dates

__all__ = [
    "MAX_RIVALS",
    "company_rivals",
    "header_company",
    "repaired_name",
    "strip_company",
    "trade_word",
]


def strip_company(text: str) -> str:
    """Name ``text`` with its legal form's OCR slips repaired, cut after that form, and
    without a label before it or a registration number after it."""
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
    # A legal form written in mixed case run into the name's last word ("ZeimkiGmbH"), as
    # OCR loses a space: the capital after small letters starts the form.
    text = _glued_form().sub(" ", text)
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
    # A logo's word read on the name's line ("ACME Acme Trading Ltd") is no part of it.
    text = without_logo_word(text)
    return clean(text) if not text.endswith(".") else text.strip(" |:;,_~—–-'\"“”‘’`*=+")


@functools.cache
def _glued_form() -> re.Pattern[str]:
    """Where a legal form in mixed case or in capitals ("GmbH", "Ltd", "SARL", "LLP") starts
    inside a word, after two small letters, matched case-sensitively: a name in small letters
    never ends in capitals of its own."""
    forms = sorted(
        {f for f in legal_forms() if f[:1].isupper() and len(re.sub(r"\W", "", f)) >= 2},
        key=len,
        reverse=True,
    )
    alternation = "|".join(re.escape(f) for f in forms)
    return re.compile(rf"(?<=[^\W\d_A-Z]{{2}})(?=(?:{alternation})(?![^\W\d_]))")


def _is_continuation(text: str) -> bool:
    first = text.split(" ", 1)[0].upper()
    # OCR often loses the space before a bracket ("ENTERPRISE.(BRANCH"): the word is its
    # letters.
    word = re.split(r"[\W\d_]", first, maxsplit=1)[0]
    return (
        first in _rx().continuation
        or word in _rx().continuation
        or text[:1] == "("
        or text[:1].islower()
    )


def _labelled_line(text: str) -> bool:
    """Whether ``text`` is a label of one or two words and its value ("OUTLET: NORTHGATE"),
    as a till prints its branch or counter: a name found by its place alone is never one."""
    return bool(re.match(r"[^\W\d_]+(?:[ -][^\W\d_]+)?\s*:", text))


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
    following = _line_after(used[-1], lines)
    if following is None:
        return None
    text = following.text
    closes = text.find(")") >= 0 and (text.find("(") < 0 or text.find(")") < text.find("("))
    letters = sum(c.isalpha() for c in text)
    if closes and letters >= 3 and len(text.split()) <= 6 and not re.search(r"\d", text):
        return following
    return None


def _line_after(line: Line, lines: Sequence[Line]) -> Line | None:
    """The line printed right after ``line`` among ``lines`` (all of the receipt's top lines,
    however poorly read), trimmed; None when it is the last or not among them."""
    last = line.words[-1]
    for index, candidate in enumerate(lines[:-1]):
        if any(w is last for w in candidate.words):
            return trim_line(lines[index + 1])
    return None


def _form_goes_on(text: str, following: str) -> bool:
    """Whether the legal form ending ``text`` goes on over the next line, ``following``
    ("... UG" / "(haftungsbeschränkt)", "... SDN" / "BHD"): a longer form then spans the
    break and ends where that line ends."""
    joined = f"{text} {following}"
    matches = list(_rx().legal_suffix.finditer(joined))
    return bool(matches) and matches[-1].end() == len(joined) and matches[-1].start() < len(text)


# The seller's name is printed within this many lines of the top of the header.
_NAME_ROWS = 8


def header_company(header: list[Line], lines: Sequence[Line] = ()) -> tuple[Found | None, int]:
    """The seller's name among the ``header`` lines and the index of its last line (-1 for
    none): a name with a legal form, else one found by its place. ``lines``: the lines the
    header was taken from, where a name's bracket opened in the header may close."""
    candidates = header[:_NAME_ROWS]
    for strength, pattern in ((0.85, _rx().legal_suffix), (0.85, _rx().other_form_end)):
        for index, line in enumerate(candidates):
            text = clean(line.text)
            if not pattern.search(text) or _rx().address_word.match(text):
                continue
            if _labelled_line(text) and _form_alone(text.split(":", 1)[1]):
                continue  # "OUTLET: SAS": a branch's label and a word that is also a form
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
                    # One word and the form ("Druck GmbH"), under a lone word in the same
                    # type: the name wrapped after its first word.
                    or (len(used) == 1 and len(before) == 1 and _first_word_of(previous, line))
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
            elif (rest := _line_after(line, lines)) is not None and _form_goes_on(
                text, clean(rest.text)
            ):
                # The form's end alone on its line ("... GmbH & Co." / "KG"): too short to
                # count as header text, still the name's.
                used.append(rest)
            name = strip_company(" ".join(clean(u.text) for u in used))
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
        if closing is None and (form := _line_after(used[-1], lines)) is not None:
            # The legal form alone on the next line ("Acme" / "KG"): the name wrapped before
            # it, and a line that short may not count as header text.
            closing = form if _form_alone(form.text) else None
        if closing is not None:
            if index + 1 < len(header) and header[index + 1].words[-1] is closing.words[-1]:
                index += 1
            used.append(closing)
            text = " ".join(clean(u.text) for u in used)
        legal = _rx().legal_suffix.search(text)
        strength = 0.85 if legal else 0.7 if trade_word(text) else 0.55
        return Found(value=strip_company(text), confidence=strength, lines=tuple(used)), index
    return None, -1


def _form_alone(text: str) -> bool:
    """Whether ``text`` is a legal form and nothing else ("GmbH", "SDN BHD", "OG")."""
    text = clean(text)
    return any(p.fullmatch(text) for p in (_rx().legal_suffix, _rx().other_form_end))


def _first_word_of(upper: Line, lower: Line) -> bool:
    """Whether ``upper`` is one word of letters only, printed in the type of ``lower`` and not
    one of its words: the first word of a name that wrapped onto ``lower`` ("Goumnamdrou" /
    "Druck GmbH"). A logo or brand word above a name is printed larger, or repeats it."""
    words = clean(upper.text).split()
    if len(words) != 1 or not words[0].isalpha() or len(words[0]) < 4:
        return False
    if _repeats(upper.text, lower.text):
        return False
    high, low = upper.height, lower.height
    if high <= 0 or low <= 0:
        return False
    # A word's box reaches below the line where a letter descends ("g", "y"): the same type
    # with a descender on one line only reads about a quarter taller there.
    deeper = _descends(upper.text) - _descends(lower.text)
    return 0.85 * _DESCENDER ** min(deeper, 0) <= high / low <= 1.18 * _DESCENDER ** max(deeper, 0)


# How much taller a word's box is with a descending letter than without, in the same type.
_DESCENDER = 1.25


def _descends(text: str) -> bool:
    return any(c in "gjpqy" for c in text)


def trade_word(text: str) -> bool:
    """Whether ``text`` holds a trade word ("TRADING", "RESTORAN"), one letter off included."""
    return bool(_rx().business_word.search(fix_words(text, name_words())))


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
        is_registration(text)
        or find_dates(text)
        or _labelled_line(text)
        or _few_letters(text)
        or _rx().address_word.match(text)
        or sentence_like(text)
    )


def _few_letters(text: str) -> bool:
    """Whether ``text`` has fewer than four letters A-Z: too few for a seller's name."""
    return len(re.sub(r"[^A-Za-z]", "", text)) < 4


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
    return is_registration(text) and not _rx().tax.search(text) and not lone_postcode(text)


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
MAX_RIVALS = 5


def company_rivals(header: Sequence[Line], chosen: Found) -> tuple[Found, ...]:
    """Other header lines that could be the seller's name, a legal name first.

    Lines the chosen name was read from, registration numbers, dates, addresses (a post code,
    an address word) and contact lines are no name.
    """
    used = {id(word) for line in chosen.lines for word in line.words}
    rivals: list[tuple[bool, Found]] = []
    for line in header[:_NAME_ROWS]:
        if any(id(word) in used for word in line.words):
            continue
        text = clean(line.text)
        if is_registration(text) or find_dates(text) or _rx().address_word.match(text):
            continue
        if _rx().postcode.search(text) or _rx().contact.search(text):
            continue
        if _few_letters(text):
            continue
        legal = bool(_rx().legal_suffix.search(text))
        name = strip_company(text)
        if name and name != chosen.value:
            rivals.append(
                (legal, Found(value=name, confidence=0.85 if legal else 0.55, lines=(line,)))
            )
    rivals.sort(key=lambda pair: not pair[0])  # stable: a legal name first, then in order
    return tuple(found for _, found in rivals[:MAX_RIVALS])


def repaired_name(name: str, page_words: Sequence[Word]) -> str:
    """A seller's name with OCR's slips undone: a word read better elsewhere on the page, a
    letter-spaced name read as one run, a trade or place word one letter off."""
    agreed = split_run_together(agree_words(name, page_words), name_words())
    return fix_words(agreed, vocabulary(), keep=legal_form_words())
