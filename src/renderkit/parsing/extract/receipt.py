"""Receipt fields: merchant, address, date, total, subtotal, tax, number and items.

Till receipts are read by OCR, often from thermal print, so every rule here tolerates the
engine's slips (see :mod:`renderkit.parsing.extract.ocrfix`, the repair applied to names and
addresses). The rules are general: label words and legal forms come from the regional word
lists (:mod:`renderkit.parsing.lexicons.regions`), the rest is layout order and the arithmetic
between amounts; none is fitted to a particular document.

This module assembles the fields; each block is read by its own module: the header lines
(:mod:`~renderkit.parsing.extract.receipt_header`), the seller's name
(:mod:`~renderkit.parsing.extract.receipt_name`), the address
(:mod:`~renderkit.parsing.extract.receipt_address`), over the line reading they share
(:mod:`~renderkit.parsing.extract.receipt_lines`).
"""

from __future__ import annotations

import functools
import re
import statistics
from collections.abc import Callable, Collection, Mapping, Sequence
from decimal import Decimal

import attrs

from renderkit.parsing._protocol import Line, Page, Word
from renderkit.parsing.extract.found import Found, clean
from renderkit.parsing.extract.invoice import day_first_vote
from renderkit.parsing.extract.keyvalues import KeyValue, key_values
from renderkit.parsing.extract.ocrfix import fix_words, name_words
from renderkit.parsing.extract.receipt_address import (
    header_address,
    labelled_address,
    repaired_address,
)
from renderkit.parsing.extract.receipt_header import header_lines, top_lines
from renderkit.parsing.extract.receipt_lines import (
    fix_ocr_digits,
    is_registration,
    line_amounts,
    mean_confidence,
    meaningful,
    till_amounts,
    trim_line,
)
from renderkit.parsing.extract.receipt_name import (
    MAX_RIVALS,
    company_rivals,
    header_company,
    repaired_name,
    strip_company,
)
from renderkit.parsing.extract.receipt_patterns import receipt_patterns as _rx
from renderkit.parsing.extract.receipt_sums import left_by_payment, summed_total
from renderkit.parsing.extract.values import find_amounts, find_dates, find_emails, find_phones
from renderkit.parsing.layout.model import PageLayout, Row, Segment, build_layout
from renderkit.parsing.lexicons import load_lexicon, tokens
from renderkit.parsing.rank.model import Ranker, load_ranker
from renderkit.parsing.rank.spans import (
    SPAN_FEATURES,
    SPAN_FIELDS,
    LineFacts,
    Span,
    span_candidates,
    span_features,
)

__all__ = ["SpanChoices", "receipt_fields", "span_choices", "till_receipt"]


# A printed character is about this wide for its box's height (ascenders and descenders in).
_CHARACTER_SHAPE = 0.5


def _aspect(lines: Sequence[Line]) -> float:
    """The page's height over its width, told by how wide its characters print.

    Boxes are page fractions, so a character's width over its height, in those fractions,
    is its true shape times the page's aspect ratio.
    """
    shapes = [
        (w.bbox[2] - w.bbox[0]) / len(w.text) / (w.bbox[3] - w.bbox[1])
        for line in lines
        for w in line.words
        if len(w.text) >= 3 and w.bbox[3] > w.bbox[1]
    ]
    return statistics.median(shapes) / _CHARACTER_SHAPE if shapes else 1.0


def _layouts(lines: Sequence[Line]) -> tuple[PageLayout, ...]:
    """The layout of each page ``lines`` come from (their boxes are page fractions)."""
    pages = sorted({line.page for line in lines})
    return tuple(
        build_layout(
            Page(
                number=number,
                lines=tuple(x for x in lines if x.page == number),
                source="ocr",
                width=1.0,
                height=_aspect([x for x in lines if x.page == number]),
            )
        )
        for number in pages
    )


# Dates a label marks as something other than the day of the sale.
_OTHER_DATE = frozenset({"due_date", "delivery_date"})


def _date(lines: Sequence[Line], layouts: Sequence[PageLayout], day_first: bool) -> Found | None:
    """The date of a date label's value (by position), else the first date, timed first."""
    pairs = key_values(layouts)
    # A segment that also carries a due or delivery label ("Date due") is not the sale's date.
    other = {id(p.hit.segment) for p in pairs if p.concept in _OTHER_DATE}
    for pair in pairs:
        if pair.concept != "invoice_date" or id(pair.hit.segment) in other:
            continue
        for candidate in pair.values:
            dates = find_dates(fix_ocr_digits(candidate.text), day_first=day_first)
            if dates:
                line = pair.hit.segment.as_line()
                return Found(value=dates[0][0].isoformat(), confidence=0.9, lines=(line,))
    fallback: Found | None = None
    for line in lines:
        dates = find_dates(fix_ocr_digits(line.text), day_first=day_first)
        if not dates:
            continue
        value = dates[0][0].isoformat()
        # Till receipts print the date beside the time: prefer that to a stray number.
        timed = re.search(r"\d{1,2}:\d{2}", line.text) is not None
        if fallback is None or (timed and fallback.confidence < 0.8):
            fallback = Found(value=value, confidence=0.8 if timed else 0.75, lines=(line,))
    return fallback


# A phone number in the North American style, the area code in brackets ("(212) 555-0134").
_NORTH_AMERICAN_PHONE = re.compile(r"(?<!\d)\(\d{3}\)\s?\d{3}-\d{4}(?!\d)")


_NUMERIC_DATE = re.compile(r"(?<![\d.])(\d{1,2})[./-](\d{1,2})[./-](\d{2,4})(?!\d)")


def _day_first(text: str, *, day_first: bool) -> bool:
    """Whether the receipt's numeric dates read day first (``day_first``: the caller's default).

    The dates vote (:func:`~renderkit.parsing.extract.invoice.day_first_vote`) when one shows
    its order (a part above 12). When none does, a receipt printing dollars ("$", "USD") and a
    North American phone number is from the US, whose tills print the month first.
    """
    if not (day_first and day_first_vote(text)):
        return False
    shown = any(int(m.group(1)) > 12 or int(m.group(2)) > 12 for m in _NUMERIC_DATE.finditer(text))
    dollars = "$" in text or re.search(r"\bUSD\b", text) is not None
    return shown or not dollars or not _NORTH_AMERICAN_PHONE.search(text)


def _labelled_amount(lines: Sequence[Line], index: int) -> str | None:
    amounts = line_amounts(lines[index])
    if amounts:
        return amounts[-1]
    if index + 1 < len(lines):
        following = clean(lines[index + 1].text)
        if re.fullmatch(r"([A-Z]{2,3}|\$|€|£)?\s*[\d.,\s]+", following):
            nxt = line_amounts(lines[index + 1])
            if nxt:
                return nxt[-1]
    return None


def _payment(lines: Sequence[Line]) -> tuple[Decimal | None, Decimal | None]:
    cash = change = None
    for line in lines:
        amounts = line_amounts(line)
        if not amounts:
            continue
        if change is None and _rx().change.search(line.text):
            change = Decimal(amounts[-1])
        elif cash is None and _rx().cash.search(line.text):
            cash = Decimal(amounts[-1])
    return cash, change


# Label concepts whose value is the amount to pay.
_TOTAL_CONCEPTS = frozenset({"total", "amount_due"})


# The largest step tills round a payment by (the smallest coin in use).
_ROUNDING_STEP = Decimal("0.05")


# At most this many characters of a word cut at the paper's edge may come before a label.
_EDGE_FRAGMENT = 4


def _row_of(segment: Segment, layouts: Sequence[PageLayout]) -> Row | None:
    for layout in layouts:
        if layout.number == segment.page and segment.row < len(layout.rows):
            return layout.rows[segment.row]
    return None


def _leads(pair: KeyValue) -> bool:
    """Whether the label opens its segment, a fragment cut at the paper's edge aside.

    OCR loses the first letters at a receipt's edge ("otal After Rounding"): a few letters
    before the label are what is left of another word of it, not a sentence it ends.
    """
    before = pair.hit.segment.text[: pair.hit.start].strip()
    return len(before) <= _EDGE_FRAGMENT and not any(c.isdigit() for c in before)


def _total_amounts(pair: KeyValue, row: Row) -> tuple[str, list[Decimal], int]:
    """What a total label's row prints after it (or, if nothing, below it): text, amounts,
    and how many numbers.

    The whole rest of the row counts, other labels included ("Total incl. GST 6% RM 47.70"):
    the label opens its row, so what follows is its own. A rate ("6%") or a number glued to a
    word is no amount; an amount counts once however often printed ("TOTAL ROUNDED 33.90 RM
    33.90").
    """
    segment = pair.hit.segment
    after = row.segments[row.segments.index(segment) + 1 :]
    texts = [segment.text[pair.hit.end :], *(s.text for s in after)]
    text = fix_ocr_digits(" ".join(texts))
    if not find_amounts(text):
        below = [v.text for v in pair.values if v.where == "below"]
        text = fix_ocr_digits(" ".join(below[:1]))
    amounts = list(dict.fromkeys(Decimal(a) for a, _, _ in find_amounts(text)))
    plain = re.sub(r"\d+(?:[.,]\d+)?\s*%", " ", text)
    numbers = {
        n.replace(",", ".").lstrip("0")
        for n in re.findall(r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\w%])", plain)
    }
    return text, amounts, len(numbers)


def _labelled_total(
    layouts: Sequence[PageLayout], cash: Decimal | None, change: Decimal | None
) -> tuple[Decimal, float, Line] | None:
    """The amount of a total label by position, ranked against the payment: amount, rank, line.

    The rank is positive when the payment confirms the amount, 0 when nothing does.
    """
    paid = cash - change if cash is not None and change is not None else None
    candidates: list[tuple[float, int, Decimal, KeyValue]] = []
    for order, pair in enumerate(key_values(layouts)):
        if pair.concept not in _TOTAL_CONCEPTS or not _leads(pair):
            continue
        # A total label opens its row; "GST included in | total" is the end of a sentence.
        row = _row_of(pair.hit.segment, layouts)
        if row is None or row.leading is not pair.hit.segment:
            continue
        text, amounts, numbers = _total_amounts(pair, row)
        said = f"{pair.hit.segment.text[: pair.hit.end]} {text}"
        if (
            _rx().cash.search(said)
            or _rx().change.search(said)
            or _rx().not_total.search(said)
            or not amounts
        ):
            continue
        amount = amounts[-1]
        rank = float(paid is not None and amount == paid) - float(numbers > 1)
        rank -= float(cash is not None and cash > 0 and change is not None and amount > cash)
        # The payment printed right below the total: the amount that was paid.
        below = [v for v in pair.values if v.where == "below"]
        rank += 0.5 * bool(below and _rx().cash.search(below[0].text))
        candidates.append((rank, order, amount, pair))
    # A row of several numbers, or more than the cash given, is no total.
    if not candidates or max(c[0] for c in candidates) < 0:
        return None
    rank, _, amount, pair = max(candidates, key=lambda c: (c[0], c[1]))
    return amount, rank, pair.hit.segment.as_line()


def _total(lines: Sequence[Line], layouts: Sequence[PageLayout]) -> Found | None:
    """The total: a total label's amount, else the amount the receipt's sums agree on, else
    what was paid, else the subtotal."""
    cash, change = _payment(lines)
    paid = cash - change if cash is not None and change is not None else None
    labelled = _labelled_total(layouts, cash, change)
    summed = summed_total(lines, till_amounts)
    by_sums = (
        None
        if summed is None
        else Found(
            value=f"{summed.value:.2f}",
            confidence=0.8,
            lines=() if summed.line is None else (summed.line,),
        )
    )
    if labelled is not None:
        amount, rank, line = labelled
        # Without change given the amount tendered is the amount paid (a card pays exactly).
        settled = paid if paid is not None else cash
        if settled is not None and 0 < abs(settled - amount) < _ROUNDING_STEP:
            # Tills round what is paid to the smallest coin and may print the rounded total
            # where it cannot be read: the amount paid is the total.
            return Found(value=f"{settled:.2f}", confidence=0.8, lines=(line,))
        chosen = Found(value=f"{amount:.2f}", confidence=0.95 if rank > 0 else 0.8, lines=(line,))
        if paid is not None and amount == paid:
            return chosen
        if by_sums is not None and summed is not None and summed.value != amount:
            # No payment confirms the label's amount, and both sums name another: the label
            # was read beside the wrong amount (a photo's rows run together) or is no total.
            return attrs.evolve(by_sums, alternatives=(chosen,))
        before = left_by_payment(lines, till_amounts, amount)
        if before is not None and before.line is not None:
            # The label's amount is the one handed over: the total is what the change leaves.
            return Found(
                value=f"{before.value:.2f}",
                confidence=0.75,
                lines=(before.line,),
                alternatives=(chosen,),
            )
        return chosen
    if by_sums is not None:
        return by_sums
    if paid is not None and paid > 0:
        return Found(value=f"{paid:.2f}", confidence=0.6)
    # No readable total line: till receipts mostly print the same amount as the subtotal (tax
    # included, nothing rounded), so it beats no value at all.
    subtotal = _labelled_line_amount(lines, _rx().subtotal)
    if subtotal is not None and Decimal(str(subtotal.value)) > 0:
        return attrs.evolve(subtotal, confidence=0.45)
    return None


def _labelled_line_amount(lines: Sequence[Line], pattern: re.Pattern[str]) -> Found | None:
    for index, line in enumerate(lines):
        if pattern.search(line.text) and not _rx().cash.search(line.text):
            amount = _labelled_amount(lines, index)
            if amount is not None:
                return Found(value=amount, confidence=0.75, lines=(line,))
    return None


def _number(lines: Sequence[Line]) -> Found | None:
    for line in lines:
        match = _rx().number_label.search(line.text)
        if match and re.search(r"\d", match.group("value")):
            return Found(value=match.group("value"), confidence=0.75, lines=(line,))
    return None


def _line_items(lines: Sequence[Line]) -> list[dict[str, object]]:
    items: list[dict[str, object]] = []
    for line in lines:
        text = fix_ocr_digits(line.text)
        if _rx().total_word.search(text) or _rx().cash.search(text) or _rx().change.search(text):
            continue
        if _rx().tax.search(text) or _rx().header_stop.search(text):
            continue
        amounts = find_amounts(text)
        if not amounts:
            continue
        first = amounts[0][1]
        description = clean(re.sub(r"^\s*\d+\s*[xX]?\s+", "", text[:first]))
        if sum(c.isalpha() for c in description) < 3:
            continue
        item: dict[str, object] = {"description": description, "amount": float(amounts[-1][0])}
        quantity = re.search(r"(?:^|\s)(\d{1,3})\s*[xX@]?\s", text[:first] + " ")
        if quantity and len(amounts) >= 2:
            item["quantity"] = int(quantity.group(1))
            item["unit_price"] = float(amounts[0][0])
        items.append(item)
    return items[:200]


def _line_facts(line: Line) -> LineFacts:
    """What a header line is, by the receipt patterns (the span ranker's view of it)."""
    text = clean(line.text)
    letters = [c for c in text if c.isalpha()]
    return LineFacts(
        postcode=bool(_rx().postcode.search(text)),
        contact=bool(_rx().contact.search(text)) or bool(find_emails(text)),
        registration=is_registration(text),
        address_word=bool(_rx().address_word.search(text)),
        legal=bool(_rx().legal_suffix.search(text)),
        trade=bool(_rx().business_word.search(fix_words(text, name_words()))),
        stop=bool(_rx().header_stop.search(text)),
        date=bool(find_dates(text)),
        region=bool(_rx().region.match(text)),
        label_number=bool(re.fullmatch(r"[A-Za-z ]{2,20}[:.]?\s*\d+", text)),
        meaningful=meaningful(line),
        digits=bool(re.search(r"\d", text)),
        starts_digit=text[:1].isdigit(),
        ends_comma=text.endswith(",") or line.text.rstrip().endswith(","),
        paren=line.text.lstrip()[:1] == "(",
        letters=len(letters),
        upper=sum(c.isupper() for c in letters) / len(letters) if letters else 0.0,
        confidence=mean_confidence([line]),
    )


@attrs.frozen(kw_only=True)
class SpanChoices:
    """A receipt header's span candidates for one field, as training and reading see them.

    Attributes:
        field: ``company`` or ``address``.
        lines: the header lines the spans index.
        spans: the candidates.
        texts: each candidate's lines' text, joined.
        features: each candidate's features (:data:`~renderkit.parsing.rank.spans.SPAN_FEATURES`).
        rule: the rules' value for the field, if any (its lines may lie outside the header).
        page_words: every word of the receipt (OCR slips are repaired against them).
    """

    field: str
    lines: tuple[Line, ...]
    spans: tuple[Span, ...]
    texts: tuple[str, ...]
    features: tuple[tuple[float, ...], ...]
    rule: Found | None
    page_words: tuple[Word, ...]

    def value(self, index: int) -> str:
        """Candidate ``index``'s value, cut and repaired as the rules' value is."""
        text = self.texts[index]
        if self.field == "company":
            return repaired_name(strip_company(text), self.page_words)
        return repaired_address(text, self.page_words)


def _indices(found: Found | None, lines: Sequence[Line]) -> tuple[int, ...] | None:
    """The header lines ``found`` was read from; None when one of them is not a header line."""
    if found is None:
        return ()
    out: list[int] = []
    for line in found.lines:
        ids = {id(w) for w in line.words}
        at = next((i for i, x in enumerate(lines) if any(id(w) in ids for w in x.words)), None)
        if at is None:
            return None
        out.append(at)
    return tuple(sorted(set(out)))


def span_choices(
    lines: Sequence[Line], found: Mapping[str, Found] | None = None
) -> dict[str, SpanChoices]:
    """The name and address span candidates of a receipt, with the rules' own choices
    (``found``, else read here): what the span rankers score, in training and in reading
    alike (:mod:`renderkit.parsing.rank.spans`)."""
    found = _rule_names(lines) if found is None else found
    page_words = tuple(w for line in lines for w in line.words)
    top = tuple(trim_line(x) for x in top_lines(lines))
    facts = [_line_facts(x) for x in top]
    company_at = _indices(found.get("company"), top)
    after = max(company_at) if company_at else -1
    out: dict[str, SpanChoices] = {}
    for field in SPAN_FIELDS:
        rule = found.get(field)
        at = _indices(rule, top)
        if at is None:
            continue  # read beside a label further down: the header's spans do not hold it
        spans = span_candidates(facts, field, after=after)
        out[field] = SpanChoices(
            field=field,
            lines=top,
            spans=tuple(spans),
            texts=tuple(" ".join(clean(top[i].text) for i in span.used) for span in spans),
            features=tuple(
                tuple(span_features(facts, span, after=after, rule=at)) for span in spans
            ),
            rule=rule,
            page_words=page_words,
        )
    return out


# The rules' span stays when the span ranker gives it at least this probability.
_KEEP_RULE = 0.5


@functools.cache
def _span_ranker(field: str) -> Ranker:
    return load_ranker(f"receipt_{field}", SPAN_FEATURES)


def _ranked_names(
    lines: Sequence[Line], found: dict[str, Found], fields: Collection[str]
) -> dict[str, Found]:
    """``found`` with the ``fields`` (``company``, ``address``) the span rankers pick, each
    with its calibrated probability as the confidence; the rules' value becomes a rival of a
    name it replaces."""
    out = dict(found)
    for field, choices in span_choices(lines, found).items():
        if field not in fields or not choices.spans:
            continue
        ranker = _span_ranker(field)
        scores = [ranker.score(f) for f in choices.features]
        best = max(range(len(scores)), key=scores.__getitem__)
        probability = ranker.probability(scores[best])
        ruled = _indices(choices.rule, choices.lines)
        kept = [i for i, span in enumerate(choices.spans) if ruled and span.used == ruled]
        if kept and ranker.probability(scores[kept[0]]) >= _KEEP_RULE:
            # The model finds the rules' own lines more likely right than wrong: they stay.
            continue
        if choices.rule is None and probability < 0.5:
            continue
        value = choices.value(best)
        if not value:
            continue
        used = tuple(choices.lines[i] for i in choices.spans[best].used)
        pick = Found(value=value, confidence=round(probability, 3), lines=used)
        if choices.rule is not None and field == "company":
            rivals = [choices.rule, *choices.rule.alternatives]
            pick = attrs.evolve(
                pick, alternatives=tuple(r for r in rivals if r.value != value)[:MAX_RIVALS]
            )
        out[field] = pick
    return out


def receipt_fields(
    lines: Sequence[Line], *, day_first: bool, spans: Collection[str] = ()
) -> dict[str, Found]:
    """Seller, address, date, number, amounts and line items of a receipt or invoice.

    ``spans``: the fields among ``company`` and ``address`` that are the spans the learned
    span rankers pick (:func:`span_choices`) instead of the rules' lines.
    """
    found = _rule_names(lines)
    if spans:
        found = _ranked_names(lines, found, spans)
    text = "\n".join(line.text for line in lines)
    layouts = _layouts(lines)
    rules: tuple[tuple[str, Callable[[], Found | None]], ...] = (
        ("date", lambda: _date(lines, layouts, _day_first(text, day_first=day_first))),
        ("total", lambda: _total(lines, layouts)),
        ("subtotal", lambda: _labelled_line_amount(lines, _rx().subtotal)),
        ("tax", lambda: _labelled_line_amount(lines, _rx().tax_line)),
        ("number", lambda: _number(lines)),
    )
    for name, rule in rules:
        value = rule()
        if value is not None:
            found[name] = value
    emails = find_emails(text)
    if emails:
        found["email"] = Found(value=emails[0], confidence=0.9)
    phones = find_phones(text)
    if phones:
        found["phone"] = Found(value=phones[0], confidence=0.8)
    items = _line_items(lines)
    if items:
        found["line_items"] = Found(value=items, confidence=0.5)
    return found


def _rule_names(lines: Sequence[Line]) -> dict[str, Found]:
    """The seller's name and address by the receipt rules."""
    found: dict[str, Found] = {}
    top = top_lines(lines)
    header = header_lines(top)
    company, at = header_company(header, top)
    page_words = [w for line in lines for w in line.words]
    if company is not None:
        # A name guessed from position alone (no legal suffix, no trade word) on a poorly read
        # line is usually OCR debris: better no value than a wrong one.
        if company.confidence > 0.55 or mean_confidence(company.lines) >= 0.75:

            def repaired(name: Found) -> Found:
                return attrs.evolve(name, value=repaired_name(str(name.value), page_words))

            rivals = tuple(repaired(r) for r in company_rivals(header, company))
            found["company"] = attrs.evolve(repaired(company), alternatives=rivals)
        address = header_address(header, at)
        if address is None or address.confidence < 0.75:
            address = labelled_address(lines) or address
        if (
            address is not None
            and address.confidence < 0.75
            and mean_confidence(address.lines) < 0.75
        ):
            address = None  # no post code and poorly read: more likely debris than address
        if address is not None:
            found["address"] = attrs.evolve(
                address, value=repaired_address(str(address.value), page_words)
            )
    return found


# Label concepts that only an invoice prints: a due date, payment terms, bank details.
_INVOICE_ONLY = frozenset({"due_date", "payment_terms", "iban", "bic"})


_TIME = re.compile(r"(?<!\d)\d{1,2}:\d{2}(?!\d)")


def _invoice_label(text: str) -> bool:
    """Whether ``text`` opens with a label only invoices print (any shipped language).

    A buyer block counts only by a label of two words or more ("Bill to", "Sold to"): till
    receipts print a lone "Customer" or "To" line too.
    """
    words = [t for t, _, _ in tokens(text)]
    if not words:
        return False
    return any(
        concept in _INVOICE_ONLY or (concept == "customer" and length >= 2)
        for concept, length in load_lexicon().match(words, 0)
    )


def till_receipt(text: str) -> bool:
    """Whether ``text`` reads as a till receipt, whatever its title ("TAX INVOICE" included).

    A till receipt shows how it was paid (cash or card tendered, change given, a rounding
    line), who took the payment and when to the minute; an invoice asks to be paid later, so
    it prints a buyer block, a due date, terms or bank details. Two till cues and no invoice
    label make a receipt.
    """
    lines = [clean(x) for x in text.splitlines() if x.strip()]
    if any(_invoice_label(x) for x in lines):
        return False
    amounts = {i for i, x in enumerate(lines) if find_amounts(fix_ocr_digits(x))}
    cues = {
        "paid": any(i in amounts and _rx().cash.search(x) for i, x in enumerate(lines)),
        "change": any(i in amounts and _rx().change.search(x) for i, x in enumerate(lines)),
        "rounding": any(_rx().rounding.search(x) for x in lines),
        "till": any(_rx().till_heads.search(x) for x in lines),
        "time": any(_TIME.search(x) and find_dates(fix_ocr_digits(x)) for x in lines),
    }
    return sum(cues.values()) >= 2
