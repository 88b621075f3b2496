"""Which header lines of a receipt are its merchant's name, and which its address: spans.

The receipt rules (:mod:`renderkit.parsing.extract.receipt`) read the name and the address
line by line with hand-set stops (a post code ends the address, a contact line breaks it...).
Here every run of one to a few header lines is a candidate (a span: its first and last line,
contact lines inside an address left out of its value), described by what its lines are (facts
the receipt rules compute per line, :class:`LineFacts`), what stands just before and after it,
and whether the rules chose it; a learned model (:mod:`renderkit.parsing.rank.model`) picks
one. :func:`span_features` is the one place a span becomes numbers; training
(``scripts/train_ranker.py --field receipt_address``) and reading use it alike.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

__all__ = [
    "SPAN_FEATURES",
    "SPAN_FIELDS",
    "LineFacts",
    "Span",
    "span_candidates",
    "span_features",
]

#: The fields spans are ranked for, and the longest span of each (value lines).
SPAN_FIELDS: dict[str, int] = {"company": 3, "address": 4}
# Candidates start within this many header lines.
_FIRST_LINES = 14


@attrs.frozen(kw_only=True)
class LineFacts:
    """What one header line is, as the receipt rules' patterns read it.

    Attributes:
        postcode: it prints a post code.
        contact: a phone, fax or e-mail line.
        registration: a company or tax registration number.
        address_word: an address word (street, floor, lot...).
        legal: a legal form ("SDN BHD", "GmbH").
        trade: a trade word ("TRADING", "RESTAURANT").
        stop: a word that ends a header (a title, a till label).
        date: it prints a date.
        region: it opens with a state or region name.
        label_number: a short label and a number ("Outlet: 12").
        meaningful: it reads as text rather than OCR noise.
        digits: it has a digit; ``starts_digit``: its first character is one.
        ends_comma: it ends with a comma (the address goes on).
        paren: it opens with a parenthesis.
        letters: how many letters; ``upper``: the share of them in upper case.
        confidence: the mean OCR confidence of its words.
    """

    postcode: bool
    contact: bool
    registration: bool
    address_word: bool
    legal: bool
    trade: bool
    stop: bool
    date: bool
    region: bool
    label_number: bool
    meaningful: bool
    digits: bool
    starts_digit: bool
    ends_comma: bool
    paren: bool
    letters: int
    upper: float
    confidence: float

    @property
    def address_like(self) -> bool:
        """A line an address could print: a number, an address word or a post code, and no
        contact, registration or date."""
        return (
            (self.digits or self.address_word or self.region)
            and not self.contact
            and not self.registration
            and not self.date
        )


@attrs.frozen(kw_only=True)
class Span:
    """Header lines ``start`` to ``end`` (inclusive) and the ones of them the value reads.

    Attributes:
        start, end: the first and last header line.
        used: the header lines whose text is the value (contact lines inside an address are
            left out).
    """

    start: int
    end: int
    used: tuple[int, ...]


#: The names of :func:`span_features`' values, in order (the model files repeat them).
SPAN_FEATURES: tuple[str, ...] = (
    "lines",
    "skipped",
    "start",
    "after_company",
    "postcode_any",
    "postcode_first",
    "postcode_last",
    "postcodes",
    "starts_digit",
    "address_like_share",
    "address_word_any",
    "region_last",
    "registration_any",
    "contact_any",
    "date_any",
    "stop_any",
    "legal_any",
    "legal_last",
    "trade_any",
    "label_number_any",
    "paren_first",
    "meaningful_share",
    "digits_any",
    "upper_mean",
    "letters",
    "confidence",
    "ends_comma",
    "prev_none",
    "prev_address_like",
    "prev_legal",
    "prev_registration",
    "prev_ends_comma",
    "prev_meaningful",
    "next_none",
    "next_postcode",
    "next_address_like",
    "next_contact",
    "next_stop",
    "next_region",
    "next_legal",
    "first_meaningful",
    "rule",
    "rule_overlap",
    "rule_inside",
    "inside_rule",
    "rule_none",
)


def span_candidates(facts: Sequence[LineFacts], field: str, *, after: int = -1) -> list[Span]:
    """Every span of ``facts`` that could be ``field``: one to ``SPAN_FIELDS[field]`` value
    lines starting within the first lines (after line ``after`` for an address, the name's
    last line), at most one contact line skipped inside an address; a name's span ends before
    a registration number."""
    longest = SPAN_FIELDS[field]
    out: list[Span] = []
    first = after + 1 if field == "address" else 0
    for start in range(max(0, first), min(len(facts), _FIRST_LINES)):
        if facts[start].contact:
            continue
        used: list[int] = []
        skipped = 0
        for end in range(start, len(facts)):
            if field == "company" and facts[end].registration and end > start:
                break  # a name ends at its registration number (the value drops it anyway)
            if facts[end].contact:
                if field != "address" or skipped:
                    break
                skipped += 1
                continue
            used.append(end)
            if len(used) > longest:
                break
            out.append(Span(start=start, end=end, used=tuple(used)))
    return out


def span_features(
    facts: Sequence[LineFacts],
    span: Span,
    *,
    after: int = -1,
    rule: Sequence[int] = (),
) -> list[float]:
    """The features of ``span`` (:data:`SPAN_FEATURES`): what its lines are, its neighbours,
    its place (``after``: the name's last line, -1 if none) and how it meets ``rule`` (the
    header lines the rules read the value from)."""
    lines = [facts[i] for i in span.used]
    first, last = lines[0], lines[-1]
    prev = facts[span.start - 1] if span.start > 0 else None
    nxt = facts[span.end + 1] if span.end + 1 < len(facts) else None
    used, ruled = set(span.used), set(rule)
    meaningful_first = next((i for i, f in enumerate(facts) if f.meaningful), -1)
    n = len(lines)
    return [
        float(n),
        float(span.end - span.start + 1 - n),
        span.start / 10,
        min(5, span.start - after - 1) / 5 if after >= 0 else -0.2,
        float(any(f.postcode for f in lines)),
        float(first.postcode),
        float(last.postcode),
        float(sum(f.postcode for f in lines)),
        float(first.starts_digit),
        sum(f.address_like for f in lines) / n,
        float(any(f.address_word for f in lines)),
        float(last.region),
        float(any(f.registration for f in lines)),
        float(any(f.contact for f in lines)),
        float(any(f.date for f in lines)),
        float(any(f.stop for f in lines)),
        float(any(f.legal for f in lines)),
        float(last.legal),
        float(any(f.trade for f in lines)),
        float(any(f.label_number for f in lines)),
        float(first.paren),
        sum(f.meaningful for f in lines) / n,
        float(any(f.digits for f in lines)),
        sum(f.upper for f in lines) / n,
        min(60, sum(f.letters for f in lines)) / 30,
        sum(f.confidence for f in lines) / n,
        float(last.ends_comma),
        float(prev is None),
        float(prev is not None and prev.address_like),
        float(prev is not None and prev.legal),
        float(prev is not None and prev.registration),
        float(prev is not None and prev.ends_comma),
        float(prev is not None and prev.meaningful),
        float(nxt is None),
        float(nxt is not None and nxt.postcode),
        float(nxt is not None and nxt.address_like),
        float(nxt is not None and nxt.contact),
        float(nxt is not None and nxt.stop),
        float(nxt is not None and nxt.region),
        float(nxt is not None and nxt.legal),
        float(span.start == meaningful_first),
        float(bool(ruled) and used == ruled),
        len(used & ruled) / len(used | ruled) if ruled else 0.0,
        float(bool(ruled) and ruled <= used),
        float(bool(ruled) and used <= ruled),
        float(not ruled),
    ]
