"""Invoice fields from the layout model: key-value pairs, tables, identifiers and arithmetic.

Each field gets a confidence made of three parts: how label-like its label is, how valid its
value is (a date, an amount, a checksum), and whether the amounts agree (subtotal + tax =
total, lines sum to the subtotal). A field whose check fails gets a low confidence and a
warning rather than a confident wrong value.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from decimal import Decimal

import attrs

from renderkit.parsing._fields import Found, clean
from renderkit.parsing._protocol import Document, Line
from renderkit.parsing._values import CURRENCY_SYMBOLS, find_dates
from renderkit.parsing.identifiers import find_ibans, find_vat_ids, legal_forms
from renderkit.parsing.keyvalues import KeyValue, Value, key_values, where_weight
from renderkit.parsing.layout import PageLayout, Segment, layout_document
from renderkit.parsing.numbers import NumberFormat, detect_format, find_money
from renderkit.parsing.tables import LineItem, find_tables, table_rows

__all__ = ["InvoiceFields", "invoice_fields"]

_CENT = Decimal("0.01")
# An amount, its strength and the label it was read under (None: the sum of the line items).
_Cand = tuple[Decimal, float, "KeyValue | None"]


@attrs.frozen(kw_only=True)
class InvoiceFields:
    """What :func:`invoice_fields` found.

    Attributes:
        fields: per field name, the value, its confidence and the lines it was read from.
        warnings: failed checks (arithmetic, checksums).
    """

    fields: dict[str, Found]
    warnings: tuple[str, ...] = ()


def _line(value: Value | Segment) -> tuple[Line, ...]:
    if isinstance(value, Segment):
        return (value.as_line(),)
    return ()


def _day_first(text: str) -> bool:
    """Whether the document writes numeric dates day first (a part above 12 decides)."""
    first = second = 0
    for match in re.finditer(r"(?<![\d.])(\d{1,2})[./-](\d{1,2})[./-](\d{2,4})(?!\d)", text):
        a, b = int(match.group(1)), int(match.group(2))
        first += a > 12
        second += b > 12
    return not (second > first)


def _date_of(text: str, day_first: bool) -> datetime.date | None:
    dates = find_dates(text, day_first=day_first)
    return dates[0][0] if dates else None


def _amount_of(text: str, number_format: NumberFormat) -> Decimal | None:
    amounts = [a for a in find_money(text, number_format) if not a.percent]
    # The last amount of a candidate: "19 % 19,00" is a rate then the tax.
    decimals = [a for a in amounts if a.decimals]
    chosen = decimals or amounts
    return chosen[-1].value if chosen else None


_ID = re.compile(r"[A-Z0-9][A-Z0-9\-/._]*[A-Z0-9]|[0-9]", re.I)


def _identifier(text: str, day_first: bool) -> str | None:
    for match in _ID.finditer(text):
        token = match.group(0)
        if not any(c.isdigit() for c in token) or len(token) > 30:
            continue
        if find_dates(token, day_first=day_first):
            continue
        return token
    return None


def _best(
    pairs: Sequence[KeyValue], concept: str, parse: object, *, prefer_first: bool = True
) -> tuple[object, float, Value, KeyValue] | None:
    best: tuple[object, float, Value, KeyValue] | None = None
    for kv in pairs:
        if kv.concept != concept:
            continue
        for value in kv.values:
            parsed = parse(value.text)  # type: ignore[operator]
            if parsed is None:
                continue
            score = kv.strength * where_weight(value)
            if best is None or score > best[1] + (0.0 if prefer_first else -1e-9):
                best = (parsed, score, value, kv)
            break
    return best


def _found(hit: tuple[object, float, Value, KeyValue] | None, validity: float) -> Found | None:
    if hit is None:
        return None
    value, score, _, kv = hit
    return Found(
        value=value, confidence=round(score * validity, 3), lines=(kv.hit.segment.as_line(),)
    )


def _amounts(pairs: Sequence[KeyValue], concept: str, number_format: NumberFormat) -> list[_Cand]:
    out: list[_Cand] = []
    for kv in pairs:
        if kv.concept != concept:
            continue
        for value in kv.values:
            amount = _amount_of(value.text, number_format)
            if amount is not None:
                out.append((amount, kv.strength * where_weight(value), kv))
                break
    return out


def _totals(
    pairs: Sequence[KeyValue], number_format: NumberFormat, items: Sequence[LineItem]
) -> tuple[dict[str, Found], list[str]]:
    """Subtotal, tax and total, chosen so that they agree when any combination does.

    A discount printed between them (``-100.00``, ``(100.00)``) is taken off the subtotal:
    subtotal - discount + tax = total.
    """
    subs = _amounts(pairs, "subtotal", number_format)
    # No discount is a candidate too; a discount's sign is how it is printed, its size is what
    # it takes off.
    discounts: list[_Cand | None] = [None] + [
        (abs(a), s, kv) for a, s, kv in _amounts(pairs, "discount", number_format)
    ]
    # Without a tax line, no tax is a candidate too: subtotal - discount = total.
    printed = _amounts(pairs, "tax", number_format)
    taxes = printed or [(Decimal(0), 0.5, None)]
    totals = _amounts(pairs, "total", number_format) + [
        (a, s * 0.8, kv) for a, s, kv in _amounts(pairs, "amount_due", number_format)
    ]
    if items:
        line_sum = sum((i.amount for i in items if i.amount is not None), Decimal(0))
        subs.append((line_sum, 0.7, None))
    out: dict[str, Found] = {}
    warnings: list[str] = []
    best: tuple[float, _Cand, _Cand, _Cand, _Cand | None] | None = None
    for s in subs:
        for t in taxes:
            for g in totals:
                for d in discounts:
                    off = d[0] if d is not None else Decimal(0)
                    # Subtotal = total only when no tax is printed: otherwise one amount was
                    # read twice.
                    same = s[0] == g[0] and bool(printed)
                    if s[0] > 0 and abs(s[0] - off + t[0] - g[0]) <= _CENT and not same:
                        score = s[1] + t[1] + g[1] + (d[1] if d is not None else 0.0)
                        if best is None or score > best[0]:
                            best = (score, s, t, g, d)
    if best is not None:
        chosen = zip(("subtotal", "tax", "total", "discount"), best[1:], strict=True)
        for name, pick in ((n, p) for n, p in chosen if p is not None):
            lines = (pick[2].hit.segment.as_line(),) if pick[2] is not None else ()
            out[name] = Found(
                value=str(pick[0]), confidence=round(min(1.0, 0.9 + 0.1 * pick[1]), 3), lines=lines
            )
        return out, warnings
    # No agreeing triple: each amount alone, or completed by arithmetic, with low confidence.
    picks: dict[str, _Cand | None] = {
        name: max(cands, key=lambda c: c[1]) if cands else None
        for name, cands in (("subtotal", subs), ("tax", printed), ("total", totals))
    }
    for name, picked in picks.items():
        if picked is not None:
            lines = (picked[2].hit.segment.as_line(),) if picked[2] is not None else ()
            out[name] = Found(
                value=str(picked[0]), confidence=round(0.6 * picked[1], 3), lines=lines
            )
    # A discount that no arithmetic confirms ("3 % within 10 days") is left out of the sums.
    ps, pt, pg = picks["subtotal"], picks["tax"], picks["total"]
    if ps and pg and not pt and pg[0] >= ps[0]:
        out["tax"] = Found(value=str(pg[0] - ps[0]), confidence=0.55)
    elif ps and pt and not pg:
        out["total"] = Found(value=str(ps[0] + pt[0]), confidence=0.55)
    elif pg and pt and not ps:
        out["subtotal"] = Found(value=str(pg[0] - pt[0]), confidence=0.55)
    if ps and pt and pg:
        warnings.append(
            f"subtotal + tax = {ps[0] + pt[0]} but total = {pg[0]}: the amounts do not agree"
        )
    return out, warnings


def _segments(layouts: Sequence[PageLayout]) -> list[Segment]:
    return [s for layout in layouts for row in layout.rows for s in row.segments]


def _block_text(layout: PageLayout, segment: Segment) -> list[Segment]:
    block = layout.block_of(segment)
    return list(block.segments) if block else [segment]


def _party_block(
    layouts: Sequence[PageLayout], pairs: Sequence[KeyValue], concept: str
) -> list[Segment]:
    """The block a ``customer``/``seller`` label introduces (below it, or right of it)."""
    for kv in pairs:
        if kv.concept != concept or kv.strength < 1.0:
            continue
        layout = next(p for p in layouts if p.number == kv.hit.segment.page)
        if not kv.hit.whole:
            # "Bill to: Contoso Ltd" on one line, the address below it; without the colon the
            # word is more likely part of a name ("Supplier Ltd").
            text = kv.hit.segment.text
            if not re.match(r"\s*[:：]", text[kv.hit.end :]):
                continue
            return _block_text(layout, kv.hit.segment)
        segs = _block_text(layout, kv.hit.segment)
        after = segs[segs.index(kv.hit.segment) + 1 :]
        if after:
            return after
        for value in kv.values:
            for s in _segments([layout]):
                if s.bbox == value.bbox:
                    return _block_text(layout, s)
    return []


def _name(text: str) -> str:
    """``text`` cleaned, keeping the dot of a legal form it ends with ("Inc.", "S.A.")."""
    name = clean(text)
    raw = text.rstrip()
    match = _legal().search(raw)
    if raw.endswith(".") and not name.endswith(".") and match and match.end() == len(raw):
        return name + "."
    return name


def _party_name(segments: Sequence[Segment], label_first: bool = False) -> str | None:
    for segment in segments:
        text = _name(segment.text)
        if label_first:
            text = re.sub(r"^[^:]{1,30}:\s*", "", text)
        if sum(c.isalpha() for c in text) >= 2:
            return text
    return None


_LEGAL: re.Pattern[str] | None = None


def _legal() -> re.Pattern[str]:
    global _LEGAL
    if _LEGAL is None:
        forms = sorted(legal_forms(), key=len, reverse=True)
        _LEGAL = re.compile(r"\b(" + "|".join(re.escape(f) for f in forms) + r")(?=$|[\s,·|)])")
    return _LEGAL


def _issuer(
    layouts: Sequence[PageLayout], pairs: Sequence[KeyValue], customer: list[Segment]
) -> Found | None:
    seller = _party_block(layouts, pairs, "seller")
    name = _party_name(seller, label_first=True)
    if name:
        return Found(value=name, confidence=0.85, lines=(seller[0].as_line(),))
    excluded = {clean(s.text) for s in customer}
    counts: dict[str, tuple[int, Segment]] = {}
    for segment in _segments(layouts):
        # A sender line "Company GmbH · Street 1 · 12345 Town": the part with the legal form.
        for part in re.split(r"\s[·|•,–-]\s|,\s", segment.text):
            match = _legal().search(part)
            if match is None:
                continue
            name = _name(part[: match.end()])
            if name in excluded or len(name) > 60 or sum(c.isalpha() for c in name) < 4:
                continue
            if len(name.split()) < 2:
                continue
            count, first = counts.get(name, (0, segment))
            counts[name] = (count + 1, first)
    if counts:
        name = max(counts, key=lambda n: (counts[n][0], -counts[n][1].page, -counts[n][1].bbox[1]))
        return Found(value=name, confidence=0.7, lines=(counts[name][1].as_line(),))
    # Otherwise the first text at the top of the first page, if it is not the customer's.
    for segment in _segments(layouts[:1]):
        text = clean(segment.text)
        if text in excluded or sum(c.isalpha() for c in text) < 3 or re.search(r"\d{3}", text):
            continue
        return Found(value=text, confidence=0.4, lines=(segment.as_line(),))
    return None


def _currency(pairs: Sequence[KeyValue], text: str) -> Found | None:
    for kv in pairs:
        if kv.concept == "currency":
            for value in kv.values:
                code = value.text.strip().upper()[:3]
                if code in CURRENCY_SYMBOLS.values():
                    return Found(value=code, confidence=0.95, lines=(kv.hit.segment.as_line(),))
    counts: dict[str, int] = {}
    for match in re.finditer(r"(?<![A-Za-z])([A-Z]{3}|[$€£¥₹])(?![A-Za-z])", text):
        iso = CURRENCY_SYMBOLS.get(match.group(1))
        if iso:
            counts[iso] = counts.get(iso, 0) + 1
    if not counts:
        return None
    code = max(counts, key=lambda c: counts[c])
    return Found(value=code, confidence=0.8 if len(counts) == 1 else 0.6)


def _near_label(
    found: list[tuple[str, int]], pairs: Sequence[KeyValue], concept: str
) -> str | None:
    for kv in pairs:
        if kv.concept != concept:
            continue
        for value in kv.values:
            compact = re.sub(r"[\s.\-]", "", value.text.upper())
            for candidate, _ in found:
                if candidate in compact:
                    return candidate
    return None


def invoice_fields(
    document: Document, layouts: Sequence[PageLayout] | None = None
) -> InvoiceFields:
    """The invoice fields of ``document`` with per-field confidences and the lines read."""
    layouts = layouts if layouts is not None else layout_document(document)
    text = "\n".join(row.text for layout in layouts for row in layout.rows)
    number_format = detect_format(row.text for layout in layouts for row in layout.rows)
    day_first = _day_first(text)
    tables = find_tables(layouts, number_format)
    header_rows = {(t.page, t.header_row) for t in tables}
    pairs = [
        kv
        for kv in key_values(layouts)
        if (kv.hit.segment.page, kv.hit.segment.row) not in header_rows
    ]
    fields: dict[str, Found] = {}
    warnings: list[str] = []

    number = _best(pairs, "invoice_number", lambda t: _identifier(t, day_first))
    if number is not None:
        fields["number"] = _found(number, 1.0)  # type: ignore[assignment]
    issued = _best(pairs, "invoice_date", lambda t: _date_of(t, day_first))
    due = _best(pairs, "due_date", lambda t: _date_of(t, day_first))
    if issued is None:
        dates = find_dates(text, day_first=day_first)
        if dates:
            fields["date"] = Found(value=dates[0][0].isoformat(), confidence=0.5)
    else:
        fields["date"] = Found(
            value=issued[0].isoformat(),  # type: ignore[attr-defined]
            confidence=round(issued[1], 3),
            lines=(issued[3].hit.segment.as_line(),),
        )
    if due is not None:
        due_date = due[0]
        fields["due_date"] = Found(
            value=due_date.isoformat(),  # type: ignore[attr-defined]
            confidence=round(due[1] * 0.95, 3),
            lines=(due[3].hit.segment.as_line(),),
        )

    items = [item for table in tables for item in table_rows(table)]
    totals, total_warnings = _totals(pairs, number_format, items)
    fields.update(totals)
    warnings += total_warnings

    currency = _currency(pairs, text)
    if currency is not None:
        fields["currency"] = currency

    customer = _party_block(layouts, pairs, "customer")
    name = _party_name(customer, label_first=True)
    if name:
        fields["customer"] = Found(value=name, confidence=0.8, lines=(customer[0].as_line(),))
    issuer = _issuer(layouts, pairs, customer)
    if issuer is not None:
        fields["company"] = issuer

    customer_text = re.sub(r"[\s.\-]", "", " ".join(s.text for s in customer).upper())
    ibans = find_ibans(text)
    if ibans:
        iban = _near_label(ibans, pairs, "iban") or ibans[0][0]
        fields["iban"] = Found(value=iban, confidence=0.95)
    vats = [v for v in find_vat_ids(text) if v[0] not in customer_text]
    if vats:
        vat = _near_label(vats, pairs, "vat_id")
        fields["vat_id"] = Found(value=vat or vats[0][0], confidence=0.9 if vat else 0.6)
    if items:
        fields["line_items"] = Found(
            value=[item.as_dict() for item in items],
            confidence=min(item.confidence for item in items),
        )
        warnings += [w for item in items for w in item.warnings]
    return InvoiceFields(fields=fields, warnings=tuple(warnings))
