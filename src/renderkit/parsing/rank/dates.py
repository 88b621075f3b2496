"""Every date of an invoice that could be its issue date, and the facts a ranker scores it by.

An invoice prints more dates than its own: the due date, the date of the order it bills, a
service period, a delivery date, an earlier invoice it refers to, a print stamp in the
footer. A date label ("Date", "Datum") often starts those lines too ("Date of the original
invoice", "Date: 30.10.2024 12:04:13 Page 1"), so the label alone does not decide. The facts
about each date (the label it sits under and how many other words qualify that label, where it
sits, whether it shares its segment with a second date or its row with a clock time, how it
compares with the document's other dates) let a learned model choose. :func:`date_features`
is the one place a candidate becomes numbers; training (``scripts/train_ranker.py --field
date``) and reading use it alike.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence

import attrs

from renderkit.parsing._protocol import Line
from renderkit.parsing.extract.constraints import (
    CLOCK_TIME,
    issue_date_refusal,
    period_dates,
    period_opened,
    print_stamp,
)
from renderkit.parsing.extract.keyvalues import KeyValue, Value, where_weight
from renderkit.parsing.extract.shaped import due_worded
from renderkit.parsing.extract.values import find_amounts, find_dates
from renderkit.parsing.layout.model import PageLayout, Segment
from renderkit.parsing.lexicons import load_lexicon, load_terms, tokens
from renderkit.parsing.rank.candidates import labels_by_segment

__all__ = [
    "DATE_FEATURES",
    "DateCandidate",
    "column_dates",
    "date_candidates",
    "date_features",
    "due_worded_date",
    "issue_date_choices",
    "printed_at",
    "stamped_rows",
]

# The label concepts whose values are date candidates; "none": a date under no such label.
_DATE_CONCEPTS = ("invoice_date", "due_date", "delivery_date")
_CONCEPTS = (*_DATE_CONCEPTS, "none")
_WHERE = ("inline", "right", "below")
# How many qualifying words count: beyond a few, a label is a sentence.
_MAX_WORDS = 4

#: The names of :func:`date_features`' values, in order (the model file repeats them).
DATE_FEATURES: tuple[str, ...] = (
    *(f"label_{c}" for c in _CONCEPTS),
    "label_strength",
    "label_whole",
    *(f"where_{w}" for w in _WHERE),
    "extra_words",
    "qualified",
    "value_prefix",
    "y",
    "x",
    "from_top",
    "dates_in_segment",
    "later_in_segment",
    "clock_in_row",
    "earliest",
    "latest",
    "date_rank",
    "before_due",
    "equals_due",
    "first_issue_label",
)


@attrs.frozen(kw_only=True)
class DateCandidate:
    """One date of the document and what is known about it on its own.

    Attributes:
        value: the date.
        concept: the date label it was read under (``invoice_date``, ``due_date``,
            ``delivery_date``), or ``none``.
        strength: that label's strength times the weight of where the date sat (0 without one).
        whole: the label is all its segment says.
        where: ``inline``, ``right`` or ``below`` (``inline`` without a label).
        extra_words: words around the label (or before the date) that are neither the label
            nor the date: "Date *of the original invoice*".
        value_prefix: the value holds something before the date: another document's number
            ("PO-4711 (03.01.2024)").
        y, x: the segment's centre, as fractions of the page.
        page: the page it is printed on.
        dates_in_segment: how many dates its segment holds (two: a period).
        later_in_segment: not the first date of its segment.
        clock_in_row: its row also prints a clock time (a print stamp).
        line: the segment it was read from.
        earlier: its label names an earlier document ("Original invoice date",
            :func:`~renderkit.parsing.extract.constraints.issue_date_refusal`); not a
            feature, a hard constraint.
        stamp: its row is a print stamp (a clock time and a page number,
            :func:`~renderkit.parsing.extract.constraints.print_stamp`); a hard constraint too.
        wrapped: it is part of a line broken in two, whose words say what it is: a period
            broken after its start ("01.04.2024 to" / "30.04.2024": either date), or an
            earlier document's date under its label ("Original invoice date:" /
            "12.11.2024"). A hard constraint.
    """

    value: datetime.date
    concept: str = "none"
    strength: float = 0.0
    whole: bool = False
    where: str = "inline"
    extra_words: int = 0
    value_prefix: bool = False
    y: float = 0.5
    x: float = 0.5
    page: int = 1
    dates_in_segment: int = 1
    later_in_segment: bool = False
    clock_in_row: bool = False
    line: Line | None = None
    earlier: bool = False
    stamp: bool = False
    wrapped: bool = False


def _words(text: str) -> int:
    return sum(1 for word, _, _ in tokens(text) if any(c.isalpha() for c in word))


def _weight(where: str) -> float:
    return where_weight(Value(text="", where=where, page=1, bbox=(0.0, 0.0, 0.0, 0.0)))


def column_dates(layouts: Sequence[PageLayout], pairs: Sequence[KeyValue]) -> frozenset[int]:
    """The ids of the issue-date labels that head a column of a payments or items table: a
    bare label ("Date", "Datum") with its date below, on a row that prints a money amount in
    another segment ("05.04.2024 | Transfer | 1.200,00"). That date is a payment's or an
    item's; the document's own date sits on a row of document numbers at most. Such a label
    names no issue date, for the rules and the ranker alike (its date reads as unlabelled).
    """
    beside_money: set[tuple[int, tuple[float, float, float, float]]] = set()
    for layout in layouts:
        for row in layout.rows:
            # A money amount: decimals or a currency mark, in a segment holding no date.
            money = [bool(find_amounts(s.text)) and not find_dates(s.text) for s in row.segments]
            for at, segment in enumerate(row.segments):
                if any(m for i, m in enumerate(money) if i != at):
                    beside_money.add((segment.page, segment.bbox))
    out: set[int] = set()
    for kv in pairs:
        if kv.concept != "invoice_date" or not kv.hit.whole:
            continue
        # The value a reader takes: the label's first one that holds a date.
        dated = next((v for v in kv.values if find_dates(v.text)), None)
        if dated is None or dated.where != "below":
            continue
        if (dated.page, dated.bbox) in beside_money:
            out.add(id(kv))
    return frozenset(out)


def stamped_rows(layouts: Sequence[PageLayout]) -> frozenset[tuple[int, int]]:
    """The (page, row) of every print stamp
    (:func:`~renderkit.parsing.extract.constraints.print_stamp`): its date, time and page
    number printed as one segment or as several of one row."""
    return frozenset(
        (row.page, row.index) for layout in layouts for row in layout.rows if print_stamp(row.text)
    )


def date_candidates(
    layouts: Sequence[PageLayout], pairs: Sequence[KeyValue], day_first: bool
) -> list[DateCandidate]:
    """Every date printed in ``layouts``, each with the strongest date label it is the value
    of (or none), in reading order. A label heading a table's date column
    (:func:`column_dates`) labels nothing."""
    columns = column_dates(layouts, pairs)
    labelled = labels_by_segment([kv for kv in pairs if id(kv) not in columns], _DATE_CONCEPTS)
    stamped = stamped_rows(layouts)
    out: list[DateCandidate] = []
    for layout in layouts:
        # The rows before, latest last, each segment with whether it opens a period at its
        # end: a wrapped date's year may stand under a row of another column only.
        recent: list[list[tuple[Segment, bool]]] = []
        for row in layout.rows:
            above = recent[-1] if recent else []
            clock = bool(CLOCK_TIME.search(row.text))
            stamp = (row.page, row.index) in stamped
            current: list[tuple[Segment, bool]] = []
            for segment in row.segments:
                found = find_dates(segment.text, day_first=day_first)
                labels = labelled.get((segment.page, segment.bbox), [])
                wrapped = _wrapped(segment, found, above)
                # A period's start that ends its line ("01.04.2024 to"): its end wrapped.
                opened = period_opened(segment.text, found)
                current.append((segment, opened))
                for index, (value, start, _) in enumerate(found):
                    candidate = _candidate(segment, value, start, index, len(found), labels, clock)
                    broken = wrapped or (opened and index == len(found) - 1)
                    if stamp or broken:
                        candidate = attrs.evolve(candidate, stamp=stamp, wrapped=broken)
                    out.append(candidate)
                for upper, (value, start, _), index, count in _year_wrapped(
                    segment, recent, day_first
                ):
                    labels = labelled.get((upper.page, upper.bbox), [])
                    ticking = bool(CLOCK_TIME.search(upper.text))
                    out.append(_candidate(upper, value, start, index, count, labels, ticking))
            recent = [*recent[1 - _WRAP_ROWS :], current]
    return out


def _wrapped(
    segment: Segment,
    found: Sequence[tuple[datetime.date, int, int]],
    above: Sequence[tuple[Segment, bool]],
) -> bool:
    """Whether the date alone in ``segment`` ends a line of ``above`` (the row before, each
    segment with whether it opens a period at its end) that starts at its left edge and says
    what the date is: a period's start and the word leading to its end, or an earlier
    document's date label and its colon."""
    if len(found) != 1 or segment.text[found[0][1] : found[0][2]].strip() != segment.text.strip():
        return False
    for upper, opened in above:
        if not _same_edge(upper, segment):
            continue
        if opened:
            return True
        text = upper.text.rstrip()
        if text.endswith((":", "：")) and issue_date_refusal(text) is not None:
            return True
    return False


# A year opening a line, not a date's first part ("2024-11-06").
_YEAR_FIRST = re.compile(r"\s*((?:19|20)\d\d)\b(?![-./]\d)")
# How many rows above its year a wrapped date may stand (a row of the column beside between).
_WRAP_ROWS = 2


def _same_edge(upper: Segment, segment: Segment) -> bool:
    """Whether ``upper`` starts at ``segment``'s left edge, as lines of one column do."""
    return abs(upper.bbox[0] - segment.bbox[0]) <= 2 * segment.height


def _year_wrapped(
    segment: Segment, recent: Sequence[Sequence[tuple[Segment, bool]]], day_first: bool
) -> list[tuple[Segment, tuple[datetime.date, int, int], int, int]]:
    """A date whose year a narrow column wrapped onto ``segment``, the next line at the same
    left edge ("Date of invoice: November 6," over "2024"; ``recent``: the rows before, latest
    last, as :func:`date_candidates` keeps them, a row of another column between passed over):
    as the segment of the line above, the date found in it with the year
    (:func:`find_dates`), and its index among that line's dates and their count."""
    year = _YEAR_FIRST.match(segment.text)
    if year is None:
        return []
    for row in reversed(recent):
        upper = next((u for u, _ in row if _same_edge(u, segment)), None)
        if upper is None:
            continue
        if segment.bbox[1] - upper.bbox[3] > segment.height:
            return []
        head = upper.text.rstrip()
        found = find_dates(f"{head} {year.group(1)}", day_first=day_first)
        return [
            (upper, date, index, len(found))
            for index, date in enumerate(found)
            if date[1] < len(head) < date[2]
        ]
    return []


def _candidate(
    segment: Segment,
    value: datetime.date,
    start: int,
    index: int,
    count: int,
    labels: Sequence[tuple[KeyValue, str, int]],
    clock: bool,
) -> DateCandidate:
    best: tuple[float, KeyValue, str, int] | None = None
    for kv, where, begin in labels:
        weight = kv.strength * _weight(where)
        if start >= begin and (best is None or weight > best[0]):
            best = (weight, kv, where, begin)
    concept, strength, whole, where = "none", 0.0, False, "inline"
    begin = 0
    label = segment.text[:start]
    if best is None:
        extra = _words(segment.text[:start])
    else:
        strength, kv, where, begin = best
        concept, hit = kv.concept, kv.hit
        whole = hit.whole
        # Words that qualify the label: before it in its segment, and between it (or the start
        # of the value's segment) and the date.
        extra = _words(hit.segment.text[: hit.start]) + _words(segment.text[begin:start])
        if where != "inline":
            extra += _words(hit.segment.text[hit.end :])
            # The label's words, those before it and those between it and the date:
            # "Original invoice date", "Date of the original invoice".
            label = f"{hit.segment.text} {label}"
    return DateCandidate(
        value=value,
        concept=concept,
        strength=strength,
        whole=whole,
        where=where,
        extra_words=min(extra, _MAX_WORDS),
        value_prefix=any(c.isalnum() for c in segment.text[begin:start]),
        y=(segment.bbox[1] + segment.bbox[3]) / 2,
        x=(segment.bbox[0] + segment.bbox[2]) / 2,
        page=segment.page,
        dates_in_segment=count,
        later_in_segment=index > 0,
        clock_in_row=clock,
        line=segment.as_line(),
        earlier=issue_date_refusal(label) is not None,
    )


def date_features(candidates: Sequence[DateCandidate]) -> list[list[float]]:
    """The feature vector (named by :data:`DATE_FEATURES`) of each of ``candidates``.

    Some facts are relative to the document's other dates (earliest, latest, before a due
    date, the first date under an issue-date label), so the whole list is scored at once.
    """
    distinct = sorted({c.value for c in candidates})
    dues = [c.value for c in candidates if c.concept == "due_date"]
    tops = sorted({(c.page, round(c.y, 4)) for c in candidates})
    issue = [c for c in candidates if c.concept == "invoice_date"]
    first_issue = issue[0] if issue else None
    out: list[list[float]] = []
    for c in candidates:
        rank = distinct.index(c.value)
        row = [
            *(float(c.concept == k) for k in _CONCEPTS),
            c.strength,
            float(c.whole),
            *(float(c.where == w) for w in _WHERE),
            c.extra_words / _MAX_WORDS,
            float(c.extra_words > 0),
            float(c.value_prefix),
            c.y,
            c.x,
            1.0 / (1 + tops.index((c.page, round(c.y, 4)))),
            float(min(c.dates_in_segment, 3)),
            float(c.later_in_segment),
            float(c.clock_in_row),
            float(rank == 0),
            float(rank == len(distinct) - 1),
            rank / max(len(distinct) - 1, 1),
            float(any(0 < (d - c.value).days <= 120 for d in dues)),
            float(c.value in dues),
            float(c is first_issue),
        ]
        out.append(row)
    return out


def issue_date_choices(candidates: Sequence[DateCandidate], *, day_first: bool = True) -> list[int]:
    """The indexes of the candidates the ranker chooses among: the dates under an issue-date
    label, but not a period's start or end (:func:`~.constraints.period_dates`) nor a date
    under a label naming an earlier document (:func:`~.constraints.issue_date_refusal`). A
    date under no label, or under a due or delivery date's, informs the others' features only:
    unlabelled dates in running text (appointments, periods, references) are too many and too
    varied for the synthetic documents to teach which one is the issue date.
    """
    return [
        i
        for i, c in enumerate(candidates)
        if c.concept == "invoice_date"
        and not c.earlier
        and not c.stamp
        and not c.wrapped
        and (c.line is None or c.value not in period_dates(c.line.text, day_first=day_first))
        and not due_worded_date(c, day_first=day_first)
    ]


def printed_at(candidate: DateCandidate, *, day_first: bool) -> int | None:
    """Where on its line ``candidate``'s date starts (None: read from no line, or not there)."""
    if candidate.line is None:
        return None
    found = find_dates(candidate.line.text, day_first=day_first)
    return next((begin for value, begin, _ in found if value == candidate.value), None)


def due_worded_date(candidate: DateCandidate, *, day_first: bool) -> bool:
    """Whether words no lexicon holds say ``candidate`` is the due date ("Date raised:
    2020-10-06 Payment deadline: 2020-12-05": the issue-date label "Date" reaches both)."""
    start = printed_at(candidate, day_first=day_first)
    if start is None or candidate.line is None:
        return False
    return due_worded(candidate.line.text[:start], load_lexicon(), load_terms())
