"""Key-value pairs found by geometry: a label, and its value after it, to its right or below.

Labels come from the lexicons (:mod:`renderkit.parsing.lexicons`), never from code. For each
label printed on a page, the candidate values are, in order of preference:

1. the rest of the label's own segment (``Invoice No: 4711``);
2. the segments to its right on the same row, up to the next label (``Due date      1 May``);
3. the first segment below it that overlaps it horizontally, within a few rows (a header
   row of labels with the values underneath); where the cells below form a column of amounts
   whose last is the sum of the others (a summary table with a row per tax rate and a sum
   row), that last cell: the column's own total.

The consumer (:mod:`renderkit.parsing.extract.invoice`) takes the first candidate that is a
valid value for the concept (a date, an amount, an IBAN...), so geometry proposes and validation
decides.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import attrs

from renderkit.parsing._protocol import BBox
from renderkit.parsing.extract.numbers import CENT, COMMA_DECIMAL, DOT_DECIMAL, parse_amount
from renderkit.parsing.layout.model import PageLayout, Row, Segment
from renderkit.parsing.lexicons import COLUMN_CONCEPTS, Lexicon, load_lexicon, load_terms, tokens

__all__ = ["KeyValue", "LabelHit", "Value", "find_labels", "key_values"]

# Labels this short (one token of at most 3 characters: "no", "to", "de") count only at the start
# of a segment: inside running text they are ordinary words.
_SHORT = 3
# How far below a label its value may be, in text heights.
_BELOW = 3.5
# Strength of a value by where it was found.
_WHERE = {"inline": 1.0, "right": 0.95, "below": 0.85}
_PUNCT = " \t:：#.=-–—|/"
# Strength of a short label ("No", "Nr", "#"): it names a number, not which one.
_GENERIC = 0.8
# Concepts whose values are identifiers.
_NUMBERS = frozenset({"invoice_number", "order_number", "customer_number", "other_number"})
# Words before a colon after a label: the printed label is longer than the lexicon's.
_LONGER = re.compile(r"[^:：\d]*[^\W\d_]{3,}[^:：]*[:：]")


@attrs.frozen(kw_only=True)
class LabelHit:
    """A lexicon label printed in a segment.

    Attributes:
        concept: what the label means (``due_date``...).
        segment: the segment it is printed in.
        start, end: its character offsets in the segment's text.
        whole: whether the label is all the segment says (besides punctuation).
    """

    concept: str
    segment: Segment
    start: int
    end: int
    whole: bool

    @property
    def text(self) -> str:
        """The label as printed."""
        return self.segment.text[self.start : self.end]


@attrs.frozen(kw_only=True)
class Value:
    """One candidate value of a label.

    Attributes:
        text: the value as printed.
        where: ``inline``, ``right`` or ``below``.
        page: 1-based page number.
        bbox: where it is printed.
    """

    text: str
    where: str
    page: int
    bbox: BBox


@attrs.frozen(kw_only=True)
class KeyValue:
    """A label and its candidate values, best first.

    Attributes:
        concept: what the label means.
        label: the label as printed.
        strength: how label-like the hit is, in [0, 1] (a label alone in its segment or at its
            start is strong; one in running text weak).
        values: the candidate values.
        hit: the label itself.
    """

    concept: str
    label: str
    strength: float
    values: tuple[Value, ...]
    hit: LabelHit


def find_labels(segment: Segment, lexicon: Lexicon) -> list[LabelHit]:
    """The lexicon labels printed in ``segment``, left to right, longest label first."""
    text = segment.text
    toks = tokens(text)
    words = [t for t, _, _ in toks]
    hits: list[LabelHit] = []
    index = 0
    while index < len(words):
        matches = lexicon.match(words, index)
        if not matches:
            index += 1
            continue
        length = matches[0][1]
        start, end = toks[index][1], toks[index + length - 1][2]
        label_chars = sum(len(w) for w in words[index : index + length])
        # A total's word right before a tax's ("Summe Umsatzsteuer", "Total GST") names
        # the taxes' sum (of several rates), not the invoice total: one tax label.
        sums_up = any(c == "tax" for c, _ in matches) and _sums_up(hits, text, start)
        # Short labels inside text count only after numbers ("19 % VAT"), not after words,
        # but for a short tax word after a total's ("Total GST").
        after_words = any(any(c.isalpha() for c in w) for w in words[:index])
        if after_words and length == 1 and label_chars <= _SHORT and not sums_up:
            index += 1
            continue
        rest = text[end:].strip(_PUNCT)
        first = index == 0
        if sums_up:
            start, first = hits[-1].start, hits[-1].start == 0
            hits = [h for h in hits if h.start != start]
            matches = [m for m in matches if m[0] == "tax"]
        for concept, _ in matches:
            hits.append(
                LabelHit(
                    concept=concept,
                    segment=segment,
                    start=start,
                    end=end,
                    whole=first and not rest,
                )
            )
        index += length
    return hits


def _sums_up(hits: Sequence[LabelHit], text: str, start: int) -> bool:
    """Whether the last label found, right before ``start`` with nothing but spaces or
    punctuation between, can be a total's (its word may name a column too: "Summe")."""
    if not hits:
        return False
    last = hits[-1]
    same = {h.concept for h in hits if h.start == last.start}
    return "total" in same and not text[last.end : start].strip(_PUNCT)


def _label_only(segment: Segment, lexicon: Lexicon) -> bool:
    hits = find_labels(segment, lexicon)
    return bool(hits) and hits[0].start == 0 and any(h.whole for h in hits)


def _below(
    layout: PageLayout, row: Row, segment: Segment, lexicon: Lexicon, *, skip: Segment | None = None
) -> Segment | None:
    column = [cell for cell in _column(layout, row, segment, lexicon) if cell is not skip]
    if not column:
        return None
    return _sum_row(column) or column[0]


def _under(segment: Segment, other: Segment) -> bool:
    x0, _, x1, _ = segment.bbox
    ox0, _, ox1, _ = other.bbox
    return min(x1, ox1) - max(x0, ox0) > 0 or abs(ox0 - x0) < 0.01


def _column(layout: PageLayout, row: Row, segment: Segment, lexicon: Lexicon) -> list[Segment]:
    """The cells under ``segment``: the first within a few rows, then each next one as close
    while they are figures (the only columns :func:`_sum_row` reads past their first cell).

    The column ends at a label, or where no cell follows within ``_BELOW`` text heights.
    """
    cells: list[Segment] = []
    limit = segment.bbox[3] + segment.height * _BELOW
    for later in layout.rows[row.index + 1 :]:
        if later.bbox[1] > limit:
            break
        cell = next((other for other in later.segments if _under(segment, other)), None)
        if cell is None:
            continue
        if _label_only(cell, lexicon):
            break
        cells.append(cell)
        if not _figure(cell):
            break
        limit = cell.bbox[3] + cell.height * _BELOW
    return cells


def _figure(cell: Segment) -> bool:
    return not any(ch.isalpha() for ch in cell.text)


def _sum_row(cells: Sequence[Segment]) -> Segment | None:
    """The last figure of ``cells`` when it is the sum of two or more amounts above it.

    A summary table prints a row per tax rate and then their sum, so the column's value is its
    last row; the first row is one rate's part. Either decimal separator is tried: a sum that
    holds to the cent is evidence enough of how the column writes numbers.
    """
    # The column of figures ends at the first cell with words in it (a footer, a note).
    cells = list(itertools.takewhile(_figure, cells))
    if len(cells) < 3:
        return None
    for number_format in (DOT_DECIMAL, COMMA_DECIMAL):
        amounts = [parse_amount(cell.text, number_format) for cell in cells]
        values = [a for a in amounts if a is not None]
        if len(values) == len(cells) and values[-1] and abs(sum(values[:-1]) - values[-1]) <= CENT:
            return cells[-1]
    return None


def _values(hit: LabelHit, layout: PageLayout, row: Row, lexicon: Lexicon) -> tuple[Value, ...]:
    segment = hit.segment
    out: list[Value] = []
    rest = segment.text[hit.end :]
    stripped = rest.lstrip(_PUNCT)
    inline = stripped.strip()
    percent = _wrapped_percent(inline, segment, layout, row)
    if inline:
        words = [w for w in segment.words if _word_start(segment, w) >= hit.end]
        bbox = words[0].bbox if words else segment.bbox
        text = inline + _wrapped_rest(inline, segment, layout, row)
        out.append(
            Value(text=text + (" %" if percent else ""), where="inline", page=row.page, bbox=bbox)
        )
    position = row.segments.index(segment)
    for right in row.segments[position + 1 :]:
        if _label_only(right, lexicon) or (
            (hits := find_labels(right, lexicon)) and hits[0].start == 0
        ):
            break
        out.append(Value(text=right.text, where="right", page=row.page, bbox=right.bbox))
    # A label with its rate is a whole label too, its amount under it.
    whole = hit.whole or percent is not None
    below = _below(layout, row, segment, lexicon, skip=percent) if whole else None
    if below is not None:
        out.append(Value(text=below.text, where="below", page=row.page, bbox=below.bbox))
    return tuple(out)


def _next_row(layout: PageLayout, row: Row, segment: Segment) -> Row | None:
    """The row right under ``row``, when it is no further below than ``segment``'s height (a
    line of its cell wrapped onto it); None otherwise."""
    if row.index + 1 >= len(layout.rows):
        return None
    below = layout.rows[row.index + 1]
    return None if below.bbox[1] - row.bbox[3] > segment.height else below


def _wrapped_percent(value: str, segment: Segment, layout: PageLayout, row: Row) -> Segment | None:
    """The lone "%" the next row prints under ``segment`` when ``value``, the rest of its line
    after the label, is a bare number: a rate whose sign wrapped ("TVA 2.6" / "%" in a summary's
    narrow column), never the label's amount. None when there is none."""
    below = _next_row(layout, row, segment)
    if below is None or not re.fullmatch(r"\d{1,2}(?:[.,]\d{1,3})?", value):
        return None
    return next((c for c in below.segments if c.text.strip() == "%" and _under(segment, c)), None)


def _wrapped_rest(value: str, segment: Segment, layout: PageLayout, row: Row) -> str:
    """The rest of a code broken after its hyphen or slash at the line's end ("Invoice no:
    RE-2026-" / "08009", as a browser breaks a long number in a narrow cell): the one word
    the next row prints at ``segment``'s left edge, right below it; "" when there is none."""
    below = _next_row(layout, row, segment)
    if below is None or not re.search(r"[^\W_][-/]$", value):
        return ""
    for cell in below.segments:
        aligned = abs(cell.bbox[0] - segment.bbox[0]) <= 2 * segment.height
        if aligned and re.fullmatch(r"[^\W_][\w/-]*", cell.text.strip()):
            return cell.text.strip()
    return ""


def _word_start(segment: Segment, word: object) -> int:
    offset = 0
    for w in segment.words:
        if w is word:
            return offset
        offset += len(w.text) + 1
    return offset


def key_values(layouts: Sequence[PageLayout], lexicon: Lexicon | None = None) -> list[KeyValue]:
    """Every document-field label of ``layouts`` with its candidate values, in page order.

    Column headers (``quantity``, ``unit price``...) are left to
    :mod:`~renderkit.parsing.extract.tables`.
    """
    lexicon = lexicon or load_lexicon()
    out: list[KeyValue] = []
    for layout in layouts:
        for row in layout.rows:
            for segment in row.segments:
                for hit in find_labels(segment, lexicon):
                    if hit.concept in COLUMN_CONCEPTS:
                        continue
                    short = _short(hit) and hit.concept in _NUMBERS
                    rest = hit.segment.text[hit.end :]
                    if hit.concept in _NUMBERS and _LONGER.match(rest):
                        # "N° de client : 42", "N° de facture associée : F1": the label runs
                        # to the colon, and is another one.
                        continue
                    strength = (1.0 if hit.start == 0 else 0.6) * (_GENERIC if short else 1.0)
                    out.append(
                        KeyValue(
                            concept=hit.concept,
                            label=hit.text,
                            strength=strength,
                            values=_values(hit, layout, row, lexicon),
                            hit=hit,
                        )
                    )
    return out


def _short(hit: LabelHit) -> bool:
    # "No", "#", "Nummer": a word that marks a number without saying which.
    words = tokens(hit.text)
    marks = load_terms().number_marks
    return all(w in marks for w, _, _ in words) or (
        len(words) <= 2 and sum(len(w) for w, _, _ in words) <= _SHORT
    )


def where_weight(value: Value) -> float:
    """How much a value found ``inline``, ``right`` or ``below`` a label is trusted."""
    return _WHERE[value.where]
