"""Receipt fields: merchant, address, date, total, subtotal, tax, number and items.

Till receipts are read by OCR, often from thermal print, so every rule here tolerates the
engine's slips (see :mod:`renderkit.parsing.extract.ocrfix`, the repair applied to names and
addresses). The rules are general: label words and legal forms come from the regional word
lists (:mod:`renderkit.parsing.lexicons.regions`), the rest is layout order and the arithmetic
between amounts; none is fitted to a particular document.

This module assembles the fields, with the span candidates the learned rankers choose among;
each part is read by its own module: the header lines
(:mod:`~renderkit.parsing.extract.receipt_header`), the seller's name
(:mod:`~renderkit.parsing.extract.receipt_name`), the address
(:mod:`~renderkit.parsing.extract.receipt_address`), the date
(:mod:`~renderkit.parsing.extract.receipt_dates`) and the total
(:mod:`~renderkit.parsing.extract.receipt_totals`), over the line reading they share
(:mod:`~renderkit.parsing.extract.receipt_lines`).
"""

from __future__ import annotations

import functools
import re
import statistics
from collections.abc import Callable, Collection, Mapping, Sequence

import attrs

from renderkit.parsing._protocol import Line, Page, Word
from renderkit.parsing.extract.constraints import print_stamp
from renderkit.parsing.extract.found import Found, clean
from renderkit.parsing.extract.receipt_address import (
    header_address,
    labelled_address,
    labelled_number,
    repaired_address,
)
from renderkit.parsing.extract.receipt_dates import reads_day_first, sale_date
from renderkit.parsing.extract.receipt_header import header_lines, top_lines
from renderkit.parsing.extract.receipt_lines import (
    fix_ocr_digits,
    is_registration,
    mean_confidence,
    meaningful,
    trim_line,
    zeros_in_words,
)
from renderkit.parsing.extract.receipt_name import (
    MAX_RIVALS,
    company_rivals,
    header_company,
    repaired_name,
    strip_company,
    trade_word,
)
from renderkit.parsing.extract.receipt_patterns import receipt_patterns as _rx
from renderkit.parsing.extract.receipt_totals import labelled_line_amount, receipt_total
from renderkit.parsing.extract.values import find_amounts, find_dates, find_emails, find_phones
from renderkit.parsing.layout.model import PageLayout, build_layout
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
        trade=trade_word(text),
        stop=bool(_rx().header_stop.search(text)),
        date=bool(find_dates(text)),
        region=bool(_rx().region.match(text)),
        label_number=labelled_number(text),
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


def lettered_header(lines: Sequence[Line]) -> list[Line]:
    """``lines`` with the header's words of letters read with their O for a zero
    (``zeros_in_words``): the seller's name and address are read from these, so that a name
    with a zero is neither an address line (it has a figure) nor a logo's word apart from
    the same name under it. Once per receipt: the name's lines are matched by their words."""
    fixed: dict[int, Word] = {}
    for line in top_lines(lines):
        for word in line.words:
            text = zeros_in_words(word.text)
            if text != word.text:
                fixed[id(word)] = attrs.evolve(word, text=text)
    if not fixed:
        return list(lines)
    return [
        attrs.evolve(x, words=tuple(fixed.get(id(w), w) for w in x.words))
        if any(id(w) in fixed for w in x.words)
        else x
        for x in lines
    ]


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
    alike (:mod:`renderkit.parsing.rank.spans`). With ``found``, ``lines`` are those the
    rules read it from (:func:`lettered_header`'s), whose words its lines hold."""
    if found is None:
        lines = lettered_header(lines)
        found = _rule_names(lines)
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
    named = lettered_header(lines)
    found = _rule_names(named)
    if spans:
        found = _ranked_names(named, found, spans)
    text = "\n".join(line.text for line in lines)
    layouts = _layouts(lines)
    rules: tuple[tuple[str, Callable[[], Found | None]], ...] = (
        ("date", lambda: sale_date(lines, layouts, reads_day_first(text, day_first=day_first))),
        ("total", lambda: receipt_total(lines, layouts)),
        ("subtotal", lambda: labelled_line_amount(lines, _rx().subtotal)),
        ("tax", lambda: labelled_line_amount(lines, _rx().tax_line)),
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
    receipts print a lone "Customer" or "To" line too. Such a label also counts where it ends
    the line: OCR reads a two-column head as one line ("Invoice no: 118 Billed to"), and the
    block's name starts on the next.
    """
    words = [t for t, _, _ in tokens(text)]
    if not words:
        return False
    lexicon = load_lexicon()
    if any(
        concept in _INVOICE_ONLY or (concept == "customer" and length >= 2)
        for concept, length in lexicon.match(words, 0)
    ):
        return True
    return any(
        concept == "customer" and length >= 2 and start + length == len(words)
        for start in range(1, len(words) - 1)
        for concept, length in lexicon.match(words, start)
    )


def prints_invoice_label(text: str) -> bool:
    """Whether a line of ``text`` opens with a label only invoices print: a due date, payment
    terms, bank details, a buyer block's label of two words or more; or is a business
    letter's one-line return address ("Acme GmbH · 12 Main Street · 10115 Berlin"), which
    no till prints: the letter names its buyer in the window below, under no label."""
    lines = [x for x in text.splitlines() if x.strip()]
    return any(_RETURN_ADDRESS.search(x) for x in lines) or any(
        _invoice_label(clean(x)) for x in lines
    )


# Three parts or more between middle dots, a figure after the first: name, street, town (or
# the line's end after the second dot, where the line wraps before the town).
_RETURN_ADDRESS = re.compile(r"[^\W\d_][^·•\n]*\s[·•]\s[^·•\n]*\d[^·•\n]*\s[·•](?:\s\S|\s*$)")


def _credited(amounts: Sequence[tuple[str, int, int]]) -> bool:
    """Whether a line's ``amounts`` (:func:`find_amounts`) are all negative: a payment an
    invoice credits."""
    return bool(amounts) and all(value.startswith("-") for value, _, _ in amounts)


# Item columns: a line naming two of them besides its first word is a table's header.
_ITEM_COLUMNS = frozenset({"description", "quantity", "unit_price", "line_amount"})


def _column_heads(line: str) -> bool:
    """Whether ``line`` heads an item table: two item columns named after its first word."""
    words = [t for t, _, _ in tokens(line)]
    lexicon = load_lexicon()
    named = {
        concept
        for start in range(1, len(words))
        for concept, _ in lexicon.match(words, start)
        if concept in _ITEM_COLUMNS
    }
    return len(named) >= 2


def till_receipt(text: str) -> bool:
    """Whether ``text`` reads as a till receipt, whatever its title ("TAX INVOICE" included).

    A till receipt shows how it was paid (cash or card tendered, change given, a rounding
    line), who took the payment and when to the minute; an invoice asks to be paid later, so
    it prints a buyer block, a due date, terms or bank details. Two till cues and no invoice
    label make a receipt.
    """
    if prints_invoice_label(text):
        return False
    lines = [clean(x) for x in text.splitlines() if x.strip()]
    found = [find_amounts(fix_ocr_digits(x)) for x in lines]
    amounts = {i for i, f in enumerate(found) if f}
    # A payment credited as a negative amount is an invoice's ("Payment received -80.00").
    paid = [
        i
        for i, x in enumerate(lines)
        if i in amounts and _rx().cash.search(x) and not _credited(found[i])
    ]
    cues = {
        "paid": bool(paid),
        # A balance owed ("Balance due", "Previous balance") is no change given, and a bare
        # "Balance" is change only below an amount tendered: an invoice's follows none.
        "change": any(
            i in amounts
            and _rx().change.search(x)
            and not _rx().owed.search(x)
            and (not _rx().balance.search(x) or any(at < i for at in paid))
            for i, x in enumerate(lines)
        ),
        "rounding": any(_rx().rounding.search(x) for x in lines),
        # "Pos" heading an item table's columns is the position, not a till's point of sale.
        "till": any(_rx().till_heads.search(x) and not _column_heads(x) for x in lines),
        # When it was sold to the minute; a print stamp's time and page number say when a
        # page was printed, which invoices print too.
        "time": any(
            _TIME.search(x) and find_dates(fix_ocr_digits(x)) and not print_stamp(x) for x in lines
        ),
    }
    return sum(cues.values()) >= 2
