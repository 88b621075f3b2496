"""Every amount of an invoice that could be its total, and the facts a ranker scores it by.

The candidates are the amounts the label rules consider (every amount printed as the value of
a total, amount-due, subtotal, tax or discount label), and the facts about each (its label,
where it sits, how it is printed, how it adds up with the others, which constraint refuses
it) let a learned model choose instead of hand-set priorities. :func:`amount_features` is
the one place a candidate becomes numbers; training
(``scripts/train_ranker.py``) and reading use it alike.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection, Sequence
from decimal import Decimal

import attrs

from renderkit.parsing._protocol import BBox, Line
from renderkit.parsing.extract.constraints import amount_refusal
from renderkit.parsing.extract.keyvalues import KeyValue, Value, where_weight
from renderkit.parsing.extract.numbers import NumberFormat, find_money, join_grouped_thousands
from renderkit.parsing.layout.model import PageLayout, Segment

__all__ = [
    "FEATURES",
    "AmountCandidate",
    "agreeing_totals",
    "amount_candidates",
    "amount_features",
]

# The label concepts whose values are amount candidates.
_AMOUNT_CONCEPTS = ("total", "amount_due", "subtotal", "tax", "discount")
_WHERE = ("inline", "right", "below")
_CENT = Decimal("0.01")

#: The names of :func:`amount_features`' values, in order (the model file repeats them).
FEATURES: tuple[str, ...] = (
    *(f"label_{c}" for c in _AMOUNT_CONCEPTS),
    "label_strength",
    *(f"where_{w}" for w in _WHERE),
    "label_distance",
    "y",
    "x",
    "height_ratio",
    "decimals",
    "currency_mark",
    "refused",
    "integer_year_like",
    "is_quantity",
    "is_line_amount",
    "negative",
    "last_in_segment",
    "from_bottom",
    "largest",
    "value_rank",
    "sum_of_two",
    "addend",
    "equals_line_sum",
    "line_sum_plus_other",
    "repeats",
    "agrees",
)


@attrs.frozen(kw_only=True)
class AmountCandidate:
    """One amount of the document and what is known about it on its own.

    Attributes:
        value: the amount (its sign as printed).
        concept: the amount concept of the label it was read under ("total", "subtotal"...).
        strength: that label's strength times the weight of where the value sat.
        where: ``inline``, ``right`` or ``below``.
        label_distance: distance from the label to the amount in page fractions.
        y, x: the amount's segment's centre, as fractions of the page.
        height_ratio: the segment's text height over the page's median segment height.
        decimals: printed with a decimal part.
        currency_mark: printed with a currency sign or code.
        refused: :func:`~renderkit.parsing.extract.constraints.amount_refusal` refused it.
        last_in_segment: the last amount of its segment.
        line: the segment it was read from.
    """

    value: Decimal
    concept: str = "total"
    strength: float = 1.0
    where: str = "inline"
    label_distance: float = 0.0
    y: float = 0.5
    x: float = 0.5
    height_ratio: float = 1.0
    decimals: bool = True
    currency_mark: bool = False
    refused: bool = False
    last_in_segment: bool = True
    line: Line | None = None


def _centre(bbox: BBox) -> tuple[float, float]:
    return (bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2


def labels_by_segment(
    pairs: Sequence[KeyValue], concepts: Collection[str]
) -> dict[tuple[int, BBox], list[tuple[KeyValue, str, int]]]:
    """Per segment (page, bbox): the labels of ``concepts`` whose values it holds, with where
    and the offset in the segment's text from which the value starts."""
    out: dict[tuple[int, BBox], list[tuple[KeyValue, str, int]]] = {}
    for kv in pairs:
        if kv.concept not in concepts:
            continue
        segment = kv.hit.segment
        for value in kv.values:
            if value.where == "inline":
                key, start = (segment.page, segment.bbox), kv.hit.end
            else:
                key, start = (value.page, value.bbox), 0
            out.setdefault(key, []).append((kv, value.where, start))
    return out


def amount_candidates(
    layouts: Sequence[PageLayout],
    pairs: Sequence[KeyValue],
    number_format: NumberFormat,
    quantities: frozenset[Decimal] = frozenset(),
    extra: Sequence[Segment] = (),
) -> list[AmountCandidate]:
    """Every amount (percentages excepted) printed as the value of an amount label (total,
    amount due, subtotal, tax, discount), each with the strongest such label.

    These are the amounts the label rules consider, all of them rather than the last of each
    value, and refused ones too (the refusal is a feature): the ranker decides. ``extra``:
    value segments no layout row holds (a column-style totals block's amounts, one each).
    """
    labelled = labels_by_segment(pairs, _AMOUNT_CONCEPTS)
    out: list[AmountCandidate] = []
    for layout in layouts:
        heights = [s.height for row in layout.rows for s in row.segments] or [1.0]
        median = statistics.median(heights) or 1.0
        segments = [s for row in layout.rows for s in row.segments]
        segments += [s for s in extra if s.page == layout.number]
        for segment in segments:
            labels = labelled.get((segment.page, segment.bbox))
            if labels:
                out += _segment_amounts(segment, labels, median, number_format, quantities)
    return out


def _segment_amounts(
    segment: Segment,
    labels: Sequence[tuple[KeyValue, str, int]],
    median: float,
    number_format: NumberFormat,
    quantities: frozenset[Decimal],
) -> list[AmountCandidate]:
    text = join_grouped_thousands(segment.text)
    amounts = [a for a in find_money(text, number_format) if not a.percent]
    x, y = _centre(segment.bbox)
    out: list[AmountCandidate] = []
    for index, amount in enumerate(amounts):
        best: tuple[float, KeyValue, str] | None = None
        for kv, where, start in labels:
            weight = kv.strength * _where_weight(where)
            if amount.start >= start and (best is None or weight > best[0]):
                best = (weight, kv, where)
        if best is None:
            continue
        strength, kv, where = best
        lx, ly = _centre(kv.hit.segment.bbox)
        out.append(
            AmountCandidate(
                value=amount.value,
                concept=kv.concept,
                strength=strength,
                where=where,
                label_distance=abs(lx - x) + abs(ly - y),
                y=y,
                x=x,
                height_ratio=segment.height / median,
                decimals=amount.decimals,
                currency_mark=bool(amount.currency),
                refused=amount_refusal(text, amount, quantities=quantities) is not None,
                last_in_segment=index == len(amounts) - 1,
                line=segment.as_line(),
            )
        )
    return out


def _where_weight(where: str) -> float:
    return where_weight(Value(text="", where=where, page=1, bbox=(0.0, 0.0, 0.0, 0.0)))


def agreeing_totals(
    candidates: Sequence[AmountCandidate], line_sum: Decimal | None = None
) -> frozenset[Decimal]:
    """The totals that agree with a printed subtotal (or the line items' sum), tax and
    discount: subtotal - discount + tax = total within a cent, as the rules require
    (``invoice._totals``). Without a printed tax line, no tax is a choice too.
    """

    def of(concept: str) -> list[Decimal]:
        return [c.value for c in candidates if c.concept == concept]

    subs = of("subtotal") + ([line_sum] if line_sum is not None else [])
    printed = of("tax")
    taxes = printed or [Decimal(0)]
    discounts = [Decimal(0)] + [abs(d) for d in of("discount")]
    out: set[Decimal] = set()
    for c in candidates:
        if c.concept not in ("total", "amount_due"):
            continue
        for s in subs:
            # Subtotal = total only when no tax is printed: otherwise one amount was read twice.
            if s <= 0 or (s == c.value and printed):
                continue
            if any(abs(s - d + t - c.value) <= _CENT for t in taxes for d in discounts):
                out.add(c.value)
    return frozenset(out)


def amount_features(
    candidates: Sequence[AmountCandidate],
    quantities: frozenset[Decimal] = frozenset(),
    line_amounts: Sequence[Decimal] = (),
) -> list[list[float]]:
    """The feature vector (named by :data:`FEATURES`) of each of ``candidates``.

    Some facts are relative to the document's other candidates (rank from the bottom of the
    page, whether an amount is the sum of two others), so the whole list is scored at once.

    Args:
        candidates: the document's amounts.
        quantities: the line items' quantities.
        line_amounts: the line items' amounts.
    """
    values = [c.value for c in candidates]
    positive = sorted({v for v in values if v > 0})
    addends = set(positive)
    line_set = set(line_amounts)
    line_sum = sum(line_amounts, Decimal(0)) if line_amounts else None
    by_y = sorted({round(c.y, 4) for c in candidates}, reverse=True)
    by_value = sorted(set(positive), reverse=True)
    top = max(positive) if positive else None
    counts: dict[Decimal, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    agreeing = agreeing_totals(candidates, line_sum)
    out: list[list[float]] = []
    for c in candidates:
        v = c.value
        integral = v == v.to_integral_value()
        row = [
            *(float(c.concept == k) for k in _AMOUNT_CONCEPTS),
            c.strength,
            *(float(c.where == w) for w in _WHERE),
            min(c.label_distance, 1.0),
            c.y,
            c.x,
            min(c.height_ratio, 3.0),
            float(c.decimals),
            float(c.currency_mark),
            float(c.refused),
            float(integral and 1900 <= v <= 2100),
            float(v in quantities),
            float(v in line_set),
            float(v < 0),
            float(c.last_in_segment),
            1.0 / (1 + by_y.index(round(c.y, 4))),
            float(v == top),
            1.0 / (1 + by_value.index(v)) if v > 0 else 0.0,
            float(v > 0 and any(v - a in addends for a in positive if a < v)),
            float(v > 0 and any(v + a in addends for a in positive)),
            float(line_sum is not None and abs(v - line_sum) <= _CENT),
            float(
                line_sum is not None
                and v > line_sum
                and any(abs(line_sum + a - v) <= _CENT for a in positive)
            ),
            min(counts[v] - 1, 3) / 3,
            float(v in agreeing),
        ]
        out.append(row)
    return out
