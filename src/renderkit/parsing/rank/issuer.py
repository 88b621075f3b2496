"""An invoice's issuer as candidates and features, for the learned issuer ranker.

The party rules (:func:`renderkit.parsing.extract.parties.issuer`) take the seller block's
name, else the legal name printed most often, else the first text at the top of the page: a
fixed order that fails where a trade name is printed bigger than the legal name, where a
slogan stands above the name, or where the buyer's block comes first. Here every name those
rules can propose is one candidate (merged by its text), described by where and how it is
printed, so that a model weighs the evidence instead of an order of precedence.

Hard constraints stay outside the model: a text in the buyer's block and a document title,
stamp or table header (:func:`~renderkit.parsing.extract.constraints.issuer_refusal`) are no
candidates at all.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Collection, Iterable, Sequence

import attrs

from renderkit.parsing.extract.constraints import issuer_refusal
from renderkit.parsing.extract.found import clean, sentence_like
from renderkit.parsing.extract.parties import (
    SENDER_SEPARATOR,
    Party,
    buyer_names,
    holds_legal_form,
    is_label,
    legal_form_at_end,
    legal_names,
    name_key,
    name_part,
    names_a_bank,
    party_name,
    top_names,
    without_form,
)
from renderkit.parsing.layout.model import PageLayout, Segment

__all__ = [
    "ISSUER_FEATURES",
    "IssuerCandidate",
    "issuer_candidates",
    "issuer_features",
    "name_key",
]

#: The feature names, in the order :func:`issuer_features` gives them (repeated in the file).
ISSUER_FEATURES = (
    "seller_block",
    "legal_name",
    "top_text",
    "rules_pick",
    "rules_rank",
    "legal_form",
    "mentions",
    "id_block",
    "first_page",
    "rel_y",
    "rel_x",
    "footer",
    "low",
    "height_ratio",
    "tallest_top",
    "top_order",
    "words",
    "lower_share",
    "upper",
    "digits",
    "whole_segment",
    "in_a_legal_name",
    "holds_another",
    "mail_domain",
    "punctuation_end",
)
# The rows at the top of the first page whose texts are candidates.
_TOP_ROWS = 8
_NO_RANK = 6
# Below this share of the page's height, a line is in the footer.
_FOOTER = 0.75


@attrs.frozen(kw_only=True)
class IssuerCandidate:
    """One name that could be the issuer.

    Attributes:
        value: the name as it would be returned.
        segment: the segment printing it first (page, then top to bottom).
        sources: which rules proposed it (``seller_block``, ``legal_name``, ``top_text``,
            ``footer``: the first part of a footer line split by separators).
        top_order: its rank among the top-of-page texts (None: not one).
        id_block: a mention sits in the block printing the seller's VAT id or IBAN.
    """

    value: str
    segment: Segment
    sources: frozenset[str]
    top_order: int | None
    id_block: bool


def _top_texts(
    layouts: Sequence[PageLayout],
    buyers: Sequence[Party],
    column_heads: Collection[tuple[int, int]],
) -> list[Segment]:
    out: list[Segment] = []
    rows = layouts[0].rows[:_TOP_ROWS] if layouts else []
    for above, row in zip([None, *rows], rows, strict=False):
        if (row.page, row.index) in column_heads:
            # An item table's header names its columns ("Gross", "Items"), never the seller.
            continue
        for segment in row.segments:
            text = clean(name_part(segment.text))
            if any(p.holds(segment) for p in buyers):
                continue
            if above is not None and any(_goes_on(line, segment) for line in above.segments):
                continue
            if sum(c.isalpha() for c in text) < 3 or re.search(r"\d{3}", text) or "@" in text:
                continue
            if is_label(segment):
                continue
            out.append(segment)
    return out


def _goes_on(line: Segment, segment: Segment) -> bool:
    """Whether ``segment`` goes on from an address line right above it at its left edge, one
    with figures that ends in a comma ("Town - 465852," over "State"): its tail, a region or a
    country, never a name."""
    height = max(line.height, segment.height)
    return (
        line.text.rstrip().endswith(",")
        and re.search(r"\d", line.text) is not None
        and abs(line.bbox[0] - segment.bbox[0]) <= height
        # Lines set tight overlap by a hair.
        and -height / 2 <= segment.bbox[1] - line.bbox[3] <= height
    )


def issuer_candidates(
    layouts: Sequence[PageLayout],
    found: Sequence[Party],
    seller_ids: Sequence[Segment] = (),
    *,
    column_heads: Collection[tuple[int, int]],
) -> list[IssuerCandidate]:
    """Every name the party rules could propose as the issuer, the buyer's and refused ones
    left out, merged by their text, in the order the rules would try them; ``column_heads``
    as :func:`~renderkit.parsing.extract.parties.issuer` takes them."""
    buyers = [p for p in found if p.role == "customer"]
    excluded = buyer_names(found, layouts)
    by_page = {layout.number: layout for layout in layouts}
    id_blocks = {
        id(block) for s in seller_ids if (block := by_page[s.page].block_of(s)) is not None
    }

    def in_id_block(segment: Segment) -> bool:
        block = by_page[segment.page].block_of(segment)
        return block is not None and id(block) in id_blocks

    merged: dict[str, IssuerCandidate] = {}

    def add(value: str, segment: Segment, source: str, top: int | None = None) -> None:
        if not value or value in excluded or issuer_refusal(value) is not None:
            return
        if in_id_block(segment) and names_a_bank(value):
            # The bank that keeps the seller's account, named beside its IBAN: not the seller.
            return
        known = merged.get(value)
        if known is None and (twin := _read_better(value, merged)) is not None:
            value, known = twin, merged[twin]
        if known is None and (twin := _dotted_twin(value, merged)) is not None:
            # One candidate, spelt as the print that kept its form's dots.
            kept = value if value.count(".") > twin.count(".") else twin
            renamed = {(kept if k == twin else k): c for k, c in merged.items()}
            merged.clear()
            merged.update(renamed)
            value, known = kept, attrs.evolve(merged[kept], value=kept)
        if known is None:
            merged[value] = IssuerCandidate(
                value=value,
                segment=segment,
                sources=frozenset({source}),
                top_order=top,
                id_block=in_id_block(segment),
            )
            return
        # The segment printing the name first: a seller's block read before the letterhead
        # (a remittance slip's "Remit to") must not describe the name by the slip's line.
        first = (segment.page, segment.bbox[1]) < (known.segment.page, known.segment.bbox[1])
        merged[value] = attrs.evolve(
            known,
            segment=segment if first else known.segment,
            sources=known.sources | {source},
            top_order=known.top_order if known.top_order is not None else top,
            id_block=known.id_block or in_id_block(segment),
        )

    for party in found:
        if party.role == "seller" and party.name:
            add(party.name, party.heading.hit.segment, "seller_block")
    for name, segment in legal_names(layouts):
        if any(p.holds(segment) for p in buyers):
            continue
        add(name, segment, "legal_name")
    tops = _top_texts(layouts, buyers, column_heads)
    for order, segment in enumerate(tops):
        for name in top_names(segment):
            add(name, segment, "top_text", order)
    for name, first in _wrapped_names(tops, layouts):
        # A legal name printed over two lines of the letterhead: the name its first line opens.
        add(name, first, "legal_name")
        add(name, first, "top_text", tops.index(first))
    for name, segment in _footer_names(layouts, buyers):
        add(name, segment, "footer")
    return list(merged.values())


def _read_better(value: str, names: Iterable[str]) -> str | None:
    """The name among ``names`` that ``value`` misreads in its legal form alone: the same
    words, then a short word where the other prints its form, beginning with the form's
    letter ("Acme Trading Coro" for "Acme Trading Corp.", "Acme S.I" for "Acme S.L.", as OCR
    reads small type). None when there is none or ``value`` ends in a form of its own."""
    words = value.split()
    if len(words) < 2 or legal_form_at_end(value):
        return None
    last = re.sub(r"[^a-z]", "", words[-1].casefold())
    head = name_key(" ".join(words[:-1]))
    for name in names:
        other = name.split()
        form = re.sub(r"[^a-z]", "", other[-1].casefold()) if len(other) >= 2 else ""
        if not form or not legal_form_at_end(name) or name_key(" ".join(other[:-1])) != head:
            continue
        if last[:1] == form[:1] and abs(len(last) - len(form)) <= 1:
            return name
    return None


def _dotted_twin(value: str, names: Iterable[str]) -> str | None:
    """The name among ``names`` that is ``value`` with the dots of its legal form lost or
    added ("Acme SA" for "Acme S.A.", as OCR drops small dots), or None. "Acme Ltd" and "Acme
    Ltd." stay apart: a dot at the end is how a form is abbreviated, not a misreading."""
    if not legal_form_at_end(value):
        return None

    def squashed(name: str) -> str:
        return " ".join(name.replace(".", "").casefold().split())

    return next(
        (
            name
            for name in names
            if squashed(name) == squashed(value)
            and name_key(name) != name_key(value)
            and legal_form_at_end(name)
        ),
        None,
    )


def _wrapped_names(
    tops: Sequence[Segment], layouts: Sequence[PageLayout]
) -> list[tuple[str, Segment]]:
    """Legal names broken over two top lines ("Acme Mutual" / "Insurance Society a.G."): a line
    without figures or a legal form, right above a line in the same type and at the same left
    edge that ends in a legal form and does not repeat its words (a logo's word above the name
    is no part of it), nor opens another line by itself (a slogan above the name, which the
    return address or the footer prints alone). Each with the segment of its first line."""
    out: list[tuple[str, Segment]] = []
    for upper, lower in itertools.pairwise(tops):
        if lower.page != upper.page or lower.row != upper.row + 1:
            continue
        height = max(upper.height, lower.height)
        same_type = min(upper.height, lower.height) >= 0.85 * height
        aligned = abs(upper.bbox[0] - lower.bbox[0]) <= height
        close = lower.bbox[1] - upper.bbox[3] <= height
        first, second = clean(upper.text), party_name(lower.text)
        if not (same_type and aligned and close and legal_form_at_end(lower.text)):
            continue
        if re.search(r"\d", first + second) or sentence_like(first):
            continue  # a slogan above the name is no part of it
        if holds_legal_form(first):
            # A line holding a legal form has a name of its own: a return address whose
            # separator OCR misread ("Acme OG- Street") over the window's name.
            continue
        if set(name_key(first).split()) <= set(name_key(second).split()):
            continue
        if _opens_another_line(second, lower, layouts):
            continue
        out.append((f"{first} {second}", upper))
    return out


def _opens_another_line(name: str, segment: Segment, layouts: Sequence[PageLayout]) -> bool:
    """Whether a line other than ``segment`` opens with ``name``, alone or as a sender line's
    first part. Read only for a pair of lines that could be one name, not on every page."""
    key = name_key(name)
    return any(
        name_key(SENDER_SEPARATOR.split(other.text, 1)[0]) == key
        for layout in layouts
        for row in layout.rows
        for other in row.segments
        if other is not segment
    )


def _footer_names(
    layouts: Sequence[PageLayout], buyers: Sequence[Party]
) -> list[tuple[str, Segment]]:
    """The first part of a footer line split by separators ("Name · since 1990", "Name |
    Street 1 | Town"), when it reads like a name: the legal line of a letterhead."""
    out: list[tuple[str, Segment]] = []
    for layout in layouts:
        _, height = _extent(layout)
        for row in layout.rows:
            for segment in row.segments:
                if segment.bbox[1] < _FOOTER * height or any(p.holds(segment) for p in buyers):
                    continue
                parts = SENDER_SEPARATOR.split(segment.text)
                if len(parts) < 2 or is_label(segment):
                    continue
                # Its legal form keeps its dot ("Acme Pvt. Ltd. · Street"), as the same name
                # printed above does: the two are one candidate.
                name = party_name(parts[0])
                letters = sum(c.isalpha() for c in name)
                if letters >= 4 and len(name.split()) >= 2 and not re.search(r"\d|[:@]", name):
                    out.append((name, segment))
    return out


def _extent(layout: PageLayout) -> tuple[float, float]:
    segments = [s for row in layout.rows for s in row.segments]
    if not segments:
        return 1.0, 1.0
    return max(s.bbox[2] for s in segments) or 1.0, max(s.bbox[3] for s in segments) or 1.0


def issuer_features(
    candidates: Sequence[IssuerCandidate],
    layouts: Sequence[PageLayout],
    rules: Sequence[str] = (),
) -> list[list[float]]:
    """The features of each candidate (:data:`ISSUER_FEATURES`); ``rules`` is the party
    rules' ranked list of names (:func:`~renderkit.parsing.extract.parties.issuer`)."""
    by_page = {layout.number: layout for layout in layouts}
    extents = {n: _extent(layout) for n, layout in by_page.items()}
    medians = {
        n: statistics.median([s.height for row in layout.rows for s in row.segments] or [1.0])
        or 1.0
        for n, layout in by_page.items()
    }
    raw = [s.text for layout in layouts for row in layout.rows for s in row.segments]
    texts = [name_key(t) for t in raw]
    # The first word of a web or e-mail domain ("info@name.com"): how letterheads spell the
    # seller, rarely the buyer.
    mails = {m.group(1).casefold() for t in raw for m in re.finditer(r"(?:@|www\.)([^\W_]+)", t)}
    top_heights = [
        c.segment.height / medians[c.segment.page] for c in candidates if c.top_order is not None
    ]
    tallest = max(top_heights, default=0.0)
    keys = [name_key(c.value) for c in candidates]
    out: list[list[float]] = []
    for candidate, key in zip(candidates, keys, strict=True):
        segment = candidate.segment
        width, height = extents[segment.page]
        ratio = segment.height / medians[segment.page]
        words = candidate.value.split()
        letters = [c for c in candidate.value if c.isalpha()]
        # Small words of the name itself: a form in small letters ("e.K.", "mbH") is none, but
        # counts among the words, as the ranker learned the share.
        lower = sum(1 for w in without_form(candidate.value).split() if w[:1].islower())
        mentions = sum(1 for t in texts if key and f" {key} " in f" {t} ")
        first_word = re.sub(r"\W", "", words[0].casefold()) if words else ""
        others = [k for k in keys if k and k != key]
        rank = rules.index(candidate.value) if candidate.value in rules else _NO_RANK
        out.append(
            [
                float("seller_block" in candidate.sources),
                float("legal_name" in candidate.sources),
                float("top_text" in candidate.sources),
                float(rank == 0),
                float(min(rank, _NO_RANK)),
                float(legal_form_at_end(candidate.value)),
                float(min(mentions, 5)),
                float(candidate.id_block),
                float(segment.page == 1),
                segment.bbox[1] / height,
                segment.bbox[0] / width,
                float("footer" in candidate.sources),
                float(segment.bbox[1] / height > _FOOTER),
                min(ratio, 4.0),
                float(candidate.top_order is not None and ratio >= tallest - 1e-6),
                float(candidate.top_order if candidate.top_order is not None else _TOP_ROWS),
                float(min(len(words), 10)),
                lower / len(words) if words else 0.0,
                float(bool(letters) and all(c.isupper() for c in letters)),
                float(any(c.isdigit() for c in candidate.value)),
                float(clean(segment.text) == candidate.value),
                float(any(f" {key} " in f" {o} " for o in others)),
                float(any(f" {o} " in f" {key} " for o in others)),
                float(len(first_word) >= 3 and first_word in mails),
                float(candidate.value.rstrip()[-1:] in "!?."
                      and not legal_form_at_end(candidate.value)),
            ]
        )  # fmt: skip
    return out
