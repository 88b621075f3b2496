"""Which fields the learned rankers choose: one value the extractor passes down.

Each ranker shipped under ``parsing/models`` is switched on here only once it passed the dev
set's decision rule (docs/parsing.md, "Learned ranking"); the others stay off, with their
models, until harder synthetic documents teach them what they still get wrong.
"""

from __future__ import annotations

import attrs

__all__ = ["DEFAULT_RANKERS", "RULES_ONLY", "SPAN_FIELDS", "Rankers"]

#: The receipt fields a span ranker can choose.
SPAN_FIELDS = ("company", "address")


def _spans(value: object) -> tuple[str, ...]:
    fields = tuple(value) if isinstance(value, list | tuple | set | frozenset) else (value,)
    unknown = [f for f in fields if f not in SPAN_FIELDS]
    if unknown:
        msg = f"spans must be among {SPAN_FIELDS}, not {unknown!r}"
        raise ValueError(msg)
    return tuple(str(f) for f in fields)


@attrs.frozen(kw_only=True)
class Rankers:
    """The fields chosen by a learned ranker rather than by the rules.

    Attributes:
        total: an invoice's total (``rank.candidates``); on.
        date: an invoice's issue date, among the dates under an issue-date label
            (``rank.dates``); on.
        issuer: an invoice's issuer (``rank.issuer``); on.
        term: a contract's term, among the durations the term rules accept
            (``rank.contract``); on.
        party: a contract's parties (``rank.contract``); off: it lowered the dev contracts.
        term_end_date: not a ranker but the rule beside the term's: a contract printing only
            the date its term ends has the span from its effective date for a term
            (``extract.contract``); off: the synthetic contracts count such a contract as
            having no term (docs/parsing.md, "Contract term and parties").
        spans: the receipt fields (``company``, ``address``) chosen among runs of the header
            lines (``rank.spans``); none: they lowered the dev receipts.
    """

    total: bool = True
    date: bool = True
    issuer: bool = True
    term: bool = True
    party: bool = False
    term_end_date: bool = False
    spans: tuple[str, ...] = attrs.field(default=(), converter=_spans)


#: Every field chosen by the rules alone.
RULES_ONLY = Rankers(total=False, date=False, issuer=False, term=False, party=False)

#: What the local extractor uses unless told otherwise: the rankers that passed.
DEFAULT_RANKERS = Rankers()
