"""A receipt's header: the lines above its first item, where the seller's name and address are.

:func:`top_lines` puts the first page's lines in printed order up to the first item (cutting a
line OCR read across two printed rows, :func:`unmerge_rows`); :func:`header_lines` keeps those
that read as text and stops at the first line that is no longer name or address (a date, a
till's label, a phone line that does not sit inside the address).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence

from renderkit.parsing._protocol import Line, Word
from renderkit.parsing.extract.found import clean
from renderkit.parsing.extract.receipt_address import (
    address_like,
    phone_inside_address,
    town_beside_phone,
    wrapped_number,
)
from renderkit.parsing.extract.receipt_lines import (
    fix_ocr_digits,
    is_id_line,
    meaningful,
    trim_line,
)
from renderkit.parsing.extract.receipt_patterns import receipt_patterns as _rx
from renderkit.parsing.extract.values import find_amounts
from renderkit.parsing.layout.model import stacked_blocks

__all__ = ["header_lines", "top_lines", "unmerge_rows"]


# The name and address are printed within this many rows of the top.
_HEADER_ROWS = 25


def top_lines(lines: Sequence[Line]) -> list[Line]:
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
    text = fix_ocr_digits(line.text).rstrip()
    amounts = find_amounts(text)
    return bool(amounts) and not re.search(r"[A-Za-z]", text[amounts[-1][2] :])


def header_lines(top: Sequence[Line]) -> list[Line]:
    """The lines of ``top`` (:func:`top_lines`) that can be the seller's name or address, up
    to the first that ends the header (a contact or till line outside the address)."""
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
            if is_id_line(line.text):
                out.append(line)  # a tax number printed between the name and the address
                continue
            if phone_inside_address(out, top[index + 1 :]):
                continue  # the address goes on to its post code after the phone line
            town = town_beside_phone(out, line)
            if town is not None:
                out.append(town)
            break
        wrapped = bool(out) and wrapped_number(out[-1], line, top[index + 1 : index + 2])
        if meaningful(line) or (out and address_like(line)) or wrapped:
            out.append(line)
        elif out and index + 1 < len(top) and _rx().postcode.search(top[index + 1].text):
            # A faintly read but clean line just above the post code: part of the address.
            text = clean(line.text)
            if re.fullmatch(r"[\w.,'&/() -]+", text) and sum(c.isalpha() for c in text) >= 4:
                out.append(line)
    return out
