"""The parties of an invoice: the seller's and the buyer's blocks, and the issuer's name.

A party block starts at a heading from the lexicons (``Seller``, ``Bill to``, ``Käufer``...)
and runs down the rows aligned under it while the line spacing stays that of one block. Rows
whose first segment is a label (``Name:``, ``USt-IdNr.:``) bring the value to their right.
What is printed inside a block belongs to that party: its name, its VAT id, its numbers; so the
seller's VAT id is told apart from the buyer's, and a customer number is not the invoice number.

The issuer is, by decreasing certainty: the name in the seller's block; a name with a legal
form (``GmbH``, ``SARL``, ``Ltd``) printed outside the buyer's block, preferring the one printed
most often and in the block that carries the seller's VAT id or IBAN; the first text at the top
of the first page.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Collection, Sequence

import attrs

from renderkit.parsing.extract.constraints import issuer_refusal
from renderkit.parsing.extract.found import Found, clean, without_logo_word
from renderkit.parsing.extract.identifiers import legal_form_spellings, legal_forms
from renderkit.parsing.extract.keyvalues import KeyValue, find_labels
from renderkit.parsing.layout.model import PageLayout, Row, Segment
from renderkit.parsing.lexicons import fold, load_lexicon, load_terms, tokens

__all__ = [
    "SENDER_SEPARATOR",
    "Party",
    "Window",
    "buyer_names",
    "holds_legal_form",
    "is_label",
    "issuer",
    "legal_form_at_end",
    "legal_names",
    "letter_windows",
    "name_key",
    "name_part",
    "names_a_bank",
    "parties",
    "party_name",
    "repaired_forms",
    "top_names",
    "without_form",
]

_ROLES = ("seller", "customer")
# A block ends where the gap to the next row exceeds this many text heights.
_GAP = 1.6
#: How far below its heading, in heading heights, a block's first line may start.
_FIRST_GAP = 4.0
# Labels of the document's own fields: a row starting with one is past the party's block.
_DOCUMENT_FIELDS = frozenset(
    {
        "invoice_number", "invoice_date", "due_date", "delivery_date", "order_number",
        "subtotal", "total", "amount_due", "tax", "payment_terms", "document_title", "currency",
    }
)  # fmt: skip
# A row in type this much taller than the block's rows so far starts something else.
_TALLER = 1.2
# A row this many times further below the last than the block's lines are apart from each other
# is past a blank line: the next block, whatever the type sizes (a photo's are uneven).
_PITCH_JUMP = 1.6
# A party block is an address: a dozen rows at most.
_MAX_ROWS = 12
# The issuer's candidates kept: the chosen one and a few rivals for the arbiter.
_MAX_CANDIDATES = 6


@attrs.frozen(kw_only=True)
class Party:
    """A party block.

    Attributes:
        role: ``seller`` or ``customer``.
        heading: the label that starts it.
        segments: the block's segments below (or after) the heading, top to bottom.
        name: the party's name, if the block shows one.
    """

    role: str
    heading: KeyValue
    segments: tuple[Segment, ...]
    name: str | None

    def holds(self, segment: Segment) -> bool:
        """Whether ``segment`` is the heading or part of the block."""
        return segment == self.heading.hit.segment or segment in self.segments

    @property
    def text(self) -> str:
        """The block's text, one segment a line."""
        return "\n".join(s.text for s in (self.heading.hit.segment, *self.segments))


@attrs.frozen(kw_only=True)
class BuyerNames:
    """The names printed in the buyer's blocks, compared as names (:func:`party_key`)."""

    keys: frozenset[str]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and party_key(name) in self.keys


def buyer_names(found: Sequence[Party], layouts: Sequence[PageLayout] = ()) -> BuyerNames:
    """Every line of the buyer's blocks and each block's name, and what stands under a
    letter's return address (:func:`letter_windows`: the window's name, the address's wrapped
    line): never the issuer, however the page spells it ("Acme Corporation" in the block, "ACME
    CORP." elsewhere)."""
    buyers = [p for p in found if p.role == "customer"]
    names = [clean(s.text) for p in buyers for s in p.segments]
    names += [p.name for p in buyers if p.name]
    names += [n for w in letter_windows(layouts) for n in (w.tail, w.addressee) if n is not None]
    return BuyerNames(keys=frozenset(key for n in names if (key := party_key(n))))


# How far down the first page a letter's return address and window stand (of its rows).
_WINDOW_ROWS = 20
# How many rows below a return address its window's first line may stand: rows of the
# column beside (the invoice's number and dates) interleave with the window's.
_WINDOW_LOOKAHEAD = 4


@attrs.frozen(kw_only=True)
class Window:
    """What stands under a letter's return address: the address's own last line where it
    wrapped, and the window's first line, the addressee's name."""

    tail: str | None
    addressee: str | None


def letter_windows(layouts: Sequence[PageLayout]) -> list[Window]:
    """What stands under each return address atop the first page: the seller's one-line
    address ("Acme Ltd · 1 High Street · Town") printed small over the window of an envelope,
    whose first line, at the same left edge below it, is the addressee's name, the buyer's,
    whether or not a label says so (see :class:`Window`)."""
    if not layouts:
        return []
    rows = layouts[0].rows[:_WINDOW_ROWS]
    out: list[Window] = []
    for at, row in enumerate(rows):
        for segment in row.segments:
            # A sender line has three parts at least, a figure after the first: "Bangalore -
            # 560001, Karnataka" is the last line of an address block.
            parts = SENDER_SEPARATOR.split(segment.text)
            if len(parts) < 3 or not any(re.search(r"\d", p) for p in parts[1:]):
                continue
            under = _lines_under(segment, rows[at + 1 : at + 1 + _WINDOW_LOOKAHEAD])
            if len(under) == 2 and (
                _unfinished(segment.text)
                or (_same_type(under[0], segment) and under[1].height > 1.2 * under[0].height)
            ):
                # A return address too long for its line goes on below it, after its comma
                # ("Acme Ltd · 25 Main Road · Springfield - 414736," over "Maharashtra") or in
                # its own small type ("Acme KG · Hauptallee 89 · 74465" over "Bamberg"): the
                # window's name is under that.
                out.append(Window(tail=clean(under[0].text), addressee=clean(under[1].text)))
            elif under:
                out.append(Window(tail=None, addressee=clean(under[0].text)))
    return out


def _lines_under(segment: Segment, rows: Sequence[Row]) -> list[Segment]:
    """The first two lines at ``segment``'s left edge below it, each close under the one
    before; rows of another column only (the invoice's details beside) are passed over."""
    left, height = segment.bbox[0], max(segment.height, 1e-4)
    out: list[Segment] = []
    last = segment
    for row in rows:
        under = next((s for s in row.segments if abs(s.bbox[0] - left) <= 2 * height), None)
        if under is None:
            continue
        if under.bbox[1] - last.bbox[3] > 3 * height:
            break
        out.append(under)
        last = under
        if len(out) == 2:
            break
    return out


def _same_type(a: Segment, b: Segment) -> bool:
    return abs(a.height - b.height) <= 0.1 * max(a.height, b.height)


def _unfinished(text: str) -> bool:
    """Whether a line stops where its sentence or list goes on: after a comma or a separator."""
    stripped = text.rstrip()
    return stripped.endswith((",", ";")) or SENDER_SEPARATOR.search(stripped[-2:] + " ") is not None


def name_key(text: str) -> str:
    """``text`` compared as a name: case folded, every run of other characters one space."""
    return " ".join(re.sub(r"[^\w]+", " ", text.casefold()).split())


def party_key(name: str) -> str:
    """``name`` as a party's names are compared (:func:`name_key`), a legal form spelled out
    read as its abbreviation ("Corporation" as "Corp")."""
    spellings = legal_form_spellings()
    return " ".join(spellings.get(w, w) for w in name_key(name).split())


def is_label(segment: Segment) -> bool:
    """Whether ``segment`` is a label (ends in a colon, or starts with a whole lexicon label)."""
    text = segment.text.strip()
    if text.endswith((":", "：")):
        return True
    hits = find_labels(segment, load_lexicon())
    return bool(hits) and hits[0].start == 0 and any(h.whole for h in hits)


def _heading_role(segment: Segment) -> str | None:
    for hit in find_labels(segment, load_lexicon()):
        if hit.concept in _ROLES and hit.start == 0:
            return hit.concept
    return None


def _document_field(segment: Segment) -> bool:
    hits = find_labels(segment, load_lexicon())
    if not hits or hits[0].start != 0 or hits[0].concept not in _DOCUMENT_FIELDS:
        return False
    # "Nummer:" alone in a party block is the party's number, not the invoice's.
    marks = load_terms().number_marks
    return not all(t in marks for t, _, _ in tokens(hits[0].text))


def _region(layout: PageLayout, kv: KeyValue) -> tuple[Segment, ...]:
    head = kv.hit.segment
    x0, height = head.bbox[0], head.height
    out: list[Segment] = []
    bottom = head.bbox[3]
    tops: list[float] = []
    for row in layout.rows[head.row + 1 : head.row + 1 + _MAX_ROWS]:
        # A heading often stands further above its block than the block's own line spacing.
        if row.bbox[1] - bottom > (_GAP if out else _FIRST_GAP) * height:
            break
        pitches = [b - a for a, b in itertools.pairwise(tops)]
        if len(pitches) >= 2 and row.bbox[1] - tops[-1] > _PITCH_JUMP * max(pitches):
            break
        aligned = [s for s in row.segments if abs(s.bbox[0] - x0) <= 2 * height]
        if not aligned:
            # A row of another column only (beside the heading's): the block goes on below it.
            continue
        first = aligned[0]
        if _heading_role(first) is not None or _document_field(first):
            break
        if out and first.height > _TALLER * max(s.height for s in out):
            # Bigger type below an address: the next party's letterhead, not this block.
            break
        if any(legal_form_at_end(s.text) for s in out) and legal_form_at_end(first.text):
            # A second company name: the next party's letterhead printed right below this
            # block (a buyer's address atop the page), whatever its type size on a photo.
            break
        taken = [first]
        position = row.segments.index(first)
        if is_label(first) or (
            position + 1 < len(row.segments)
            and row.segments[position + 1].text.lstrip().startswith((":", "："))
        ):
            taken += row.segments[position + 1 : position + 2]
        out += taken
        bottom = max(s.bbox[3] for s in taken)
        tops.append(row.bbox[1])
    return tuple(out)


def _name_in(kv: KeyValue, segments: Sequence[Segment], pairs: Sequence[KeyValue]) -> str | None:
    for pair in pairs:
        if pair.concept == "party_name" and pair.hit.segment in segments:
            for value in pair.values:
                text = party_name(value.text.lstrip(":： "))
                if _name_like(text):
                    return text
    if not kv.hit.whole:
        # "Bill to: Acme Ltd": the name follows the heading on its line.
        rest = party_name(kv.hit.segment.text[kv.hit.end :].lstrip(":：#- "))
        if _name_like(rest):
            return rest
    names = [
        party_name(s.text.lstrip(":： "))
        for s in segments
        if not is_label(s) and _name_like(clean(s.text.lstrip(":： ")))
    ]
    # A line with a legal form is the name; otherwise the first line that can be one.
    legal = [n for n in names if _legal_forms_in(n)]
    chosen = legal or names
    return chosen[0] if chosen else None


def _name_like(text: str) -> bool:
    # A name has letters, does not start with a number (a street, a postcode) and is no e-mail.
    letters = sum(c.isalpha() for c in text)
    return (
        letters >= 2
        and sum(c.isdigit() for c in text) <= letters
        and not re.search(r"\w[:：]\s", text)
        and not re.match(r"\d", text)
        and "@" not in text
        and len(text) <= 80
    )


def parties(layouts: Sequence[PageLayout], pairs: Sequence[KeyValue]) -> list[Party]:
    """The seller and buyer blocks of ``layouts``, in page order.

    A heading counts when it starts its segment and is the whole segment or is followed by a
    colon ("Bill to: ..."); without the colon the word is more likely part of a name
    ("Supplier Ltd").
    """
    by_page = {layout.number: layout for layout in layouts}
    out: list[Party] = []
    for kv in pairs:
        if kv.concept not in _ROLES or kv.hit.start != 0:
            continue
        text = kv.hit.segment.text
        colon = re.match(r"\s*[:：]", text[kv.hit.end :]) is not None
        if len(kv.label.strip()) <= 3 and not colon:
            # "von", "to", "de" head a block only as "From:"; elsewhere they are words.
            continue
        # "Käufer/Leistungsempfänger:", a short heading ending in a colon, counts too.
        heading = text.rstrip().endswith((":", "：")) and len(text.split()) <= 4
        if not kv.hit.whole and not heading and not colon:
            continue
        if any(p.holds(kv.hit.segment) for p in out):
            continue
        segments = _region(by_page[kv.hit.segment.page], kv)
        if kv.concept == "customer" and _holds_account(segments, pairs):
            # A recipient's block that gives an IBAN or BIC is a transfer's payee ("Empfänger:
            # Acme GmbH / IBAN ..." in a payment block): the one paid, never the buyer.
            continue
        out.append(
            Party(
                role=kv.concept,
                heading=kv,
                segments=segments,
                name=_name_in(kv, (kv.hit.segment, *segments), pairs),
            )
        )
    return out


def _holds_account(segments: Sequence[Segment], pairs: Sequence[KeyValue]) -> bool:
    return any(p.concept in ("iban", "bic") and p.hit.segment in segments for p in pairs)


# A name printed in capitals spells its form in capitals too ("ACME TRADING SDN BHD", "CONTOSO
# LTD."), except "EG": in capitals, a German ground floor far more often than a cooperative.
_NOT_IN_CAPITALS = frozenset({"EG"})


@functools.cache
def _legal() -> re.Pattern[str]:
    spelled = set(legal_forms())
    spelled |= {f.upper() for f in spelled} - _NOT_IN_CAPITALS
    forms = sorted(spelled, key=len, reverse=True)
    # A form ends at a space, a separator or a bracket; on a photo OCR may run the separator
    # after it into it ("Acme CRL- Street", "Acme ULC-49 Drive", "Acme S.L.N.E.. Street").
    return re.compile(r"\b(" + "|".join(re.escape(f) for f in forms) + r")(?=$|[\s,·|)–.-])")


@functools.cache
def _as_spelled() -> frozenset[str]:
    return frozenset(legal_forms())


def _legal_forms_in(text: str) -> list[re.Match[str]]:
    """The legal forms ``text`` prints: as the lexicon spells them, or in capitals after a name
    in capitals ("Acme-Vermietung GMBH" prints a word in capitals, not its form)."""
    return [
        m
        for m in _legal().finditer(text)
        if m.group(1) in _as_spelled() or not any(c.islower() for c in text[: m.start()])
    ]


def holds_legal_form(text: str) -> bool:
    """Whether ``text`` prints a legal form anywhere (:func:`_legal_forms_in`)."""
    return bool(_legal_forms_in(text))


def legal_form_at_end(text: str) -> bool:
    """Whether ``text`` ends in a legal form (``GmbH``, ``S.A.``, ``Ltd``)."""
    return without_form(text) != text.rstrip()


def without_form(text: str) -> str:
    """``text`` without the legal form it ends in ("Acme Tisch e.K." is "Acme Tisch"), or as
    it is when it ends in none."""
    raw = text.rstrip()
    ends = [m for m in _legal_forms_in(raw) if m.end() >= len(raw.rstrip("."))]
    return raw[: ends[0].start()].rstrip() if ends else raw


def party_name(text: str) -> str:
    """``text`` cleaned, keeping the dot of a legal form it ends with ("Inc.", "S.A."), the
    form's look-alike letters read right (:func:`repaired_forms`)."""
    text = repaired_forms(text)
    name = clean(text)
    raw = text.rstrip()
    match = next(iter(_legal_forms_in(raw)), None)
    if raw.endswith(".") and not name.endswith(".") and match and match.end() == len(raw):
        return name + "."
    return name


#: What separates a sender line's parts ("Acme Ltd · 1 High Street · Town", a footer's
#: "Name | Street 1 | Town"); a comma does not, as names hold commas ("Smith, Jones & Co").
#: OCR reads the middle dot as a dash, sometimes run into the word before ("Acme plc- 2 High
#: Street", "Acme Corp.- 2 High Street", "2 High Street- 10115"): a dash there, before a
#: figure, separates too. On a photo OCR often runs a middle dot into the word beside it
#: ("Acme KG· Street", "Acme S.L.·Street"): it separates all the same, except inside a
#: Catalan word ("Paral·lel").
SENDER_SEPARATOR = re.compile(
    r"\s[·|•–-]\s|(?<=[^\W_]|\.)[·•–-]\s(?=\d)|\s?(?:(?<![lL])[·•]|[·•](?![lL]))\s?"
)
# The parts of a line a legal name is looked for in: a sender line's, or an address's written
# on one line ("Acme Ltd, 1 High Street").
_SENDER_PARTS = re.compile(rf"{SENDER_SEPARATOR.pattern}|,\s")


def name_part(text: str) -> str:
    """The part of a line that may name someone: a sender line's first part ("Acme Trading ·
    No 12, Jalan Mawar · 40100"), the address after it aside; any other line whole. A sender
    line has three parts at least: "Bangalore - 560001, Karnataka" is an address line."""
    parts = SENDER_SEPARATOR.split(text)
    return parts[0] if len(parts) >= 3 else text


def top_names(segment: Segment) -> list[str]:
    """What a ``segment`` at the top of the page could name: each of its runs in one type size
    (:meth:`Segment.type_texts`), a sender line's first part only ("Acme Ltd · 1 High Street
    · Town" names "Acme Ltd"), without a logo's word beside the name (``without_logo_word``),
    read as a party's name (:func:`party_name`: a legal form's dot kept, its look-alike letters
    read right), so that it is one candidate with the same name read elsewhere."""
    return [
        without_logo_word(_cut_after_form(party_name(SENDER_SEPARATOR.split(text, 1)[0])))
        for text in segment.type_texts()
    ]


def _cut_after_form(text: str) -> str:
    """``text`` cut after its legal form when what follows is no part of the name: a figure or a
    separator OCR misread ("Acme Ltd. -1", the "· 1 High Street" cut off), or words in capitals
    that repeat the name's (the logo read on the name's line: "ACME SDN. BHD. ACME", "ACME
    S.E.N.C. ACME S.E.N.C")."""
    forms = _legal_forms_in(text)
    if not forms or forms[-1].end() >= len(text):
        return text
    head, rest = text[: forms[-1].end()], text[forms[-1].end() :]
    if re.match(r"\s*(?:[·•|–.-]|\d)", rest):
        return head
    # The logo in capitals: one of the name's words, or the name again ("ACME S.E.N.C").
    logo, named = (re.sub(r"[\W_]", "", t).casefold() for t in (rest, head))
    if rest.isupper() and len(logo) >= 3 and logo in named:
        return head
    return text


@functools.cache
def _look_alike_forms() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each legal form with a small "l" ("S.r.l.", "plc") as a pattern that also takes OCR's
    capital "I" or "1" for it, its last dot optional, at the end of a name; and the form."""
    out = []
    for form in sorted(legal_forms(), key=len, reverse=True):
        if "l" not in form:
            continue
        letters = "".join("[lI1]" if c == "l" else re.escape(c) for c in form.removesuffix("."))
        dot = r"\.?" if form.endswith(".") else ""
        # At the name's end only: before the text's end or a separator, never a word.
        end = r"(?=\s*$|\s*[,·|)]|\s[–-]\s)"
        out.append((re.compile(rf"(?<![\w.]){letters}{dot}{end}"), form))
    return tuple(out)


def repaired_forms(text: str) -> str:
    """``text`` with a legal form that OCR read with a capital "I" or a "1" for its small "l"
    written as the form ("Rossi S.r.I" is "Rossi S.r.l.")."""
    for pattern, form in _look_alike_forms():
        text = pattern.sub(form, text)
    return text


def legal_names(layouts: Sequence[PageLayout]) -> list[tuple[str, Segment]]:
    """Names ending in a legal form (``Muster GmbH``), with the segment printing each."""
    out: list[tuple[str, Segment]] = []
    for layout in layouts:
        for row in layout.rows:
            for segment in row.segments:
                # A sender line "Company GmbH · Street 1 · 12345 Town": the part with the form;
                # a logo's big word beside the name is not part of it.
                parts = (
                    p
                    for t in segment.type_texts()
                    for p in re.split(_SENDER_PARTS, repaired_forms(t))
                )
                for part in parts:
                    match = next(iter(_legal_forms_in(part)), None)
                    if match is None:
                        continue
                    # A label before the name ("Payee: Acme Ltd", "Seller: Acme Ltd") is no
                    # part of it: a colon and a space end a label, and names hold neither.
                    head = part[: match.end()]
                    head = head[head.rfind(": ") + 2 :] if ": " in head else head
                    if re.search(r"\d\.\s*\S+$", head):
                        continue  # after an ordinal, a floor ("Hauptplatz 4, 2. OG")
                    name = without_logo_word(party_name(head))
                    if len(name) > 60 or sum(c.isalpha() for c in name) < 4:
                        continue
                    if len(name.split()) < 2:
                        continue
                    out.append((name, segment))
    return out


def names_a_bank(name: str) -> bool:
    """Whether ``name`` is a bank's ("Sparkasse Voramek", "Kestrel Savings Bank", "Caixa de
    Crédito"): one of its words holds a bank word of the lexicons, a compound too
    ("Volksbank"), or it holds one of their phrases ("caisse d'épargne")."""
    folded = fold(name).replace("’", "'")
    words = re.findall(r"\w+", folded)
    for bank in load_terms().bank_words:
        if re.fullmatch(r"\w+", bank):
            if any(bank in word for word in words):
                return True
        elif re.search(rf"(?<!\w){re.escape(bank)}(?!\w)", folded):
            return True
    return False


def issuer(
    layouts: Sequence[PageLayout],
    found: Sequence[Party],
    seller_ids: Sequence[Segment] = (),
    *,
    column_heads: Collection[tuple[int, int]],
) -> Found | None:
    """The seller's name, with a confidence from how it was found, and its rivals.

    The rivals (:attr:`Found.alternatives`) are the other names the same order of certainty
    offers: other legal names, then the first texts at the top of the first page.

    Args:
        layouts: the pages.
        found: the party blocks (:func:`parties`).
        seller_ids: segments printing the seller's VAT id or IBAN; a legal name in the same
            block is the seller's.
        column_heads: the (page, row) of the rows naming item columns
            (:func:`~renderkit.parsing.extract.tables.column_header_rows`): their words
            head columns and name no seller.
    """
    candidates: list[Found] = [
        Found(value=party.name, confidence=0.85, lines=(party.heading.hit.segment.as_line(),))
        for party in found
        if party.role == "seller" and party.name and issuer_refusal(party.name) is None
    ][:1]
    buyers = [p for p in found if p.role == "customer"]
    excluded = buyer_names(found, layouts)
    by_page = {layout.number: layout for layout in layouts}
    id_blocks = {
        id(block) for s in seller_ids if (block := by_page[s.page].block_of(s)) is not None
    }
    scores: dict[str, tuple[float, Segment]] = {}
    for name, segment in legal_names(layouts):
        if name in excluded or any(p.holds(segment) for p in buyers):
            continue
        block = by_page[segment.page].block_of(segment)
        beside_ids = block is not None and id(block) in id_blocks
        if beside_ids and names_a_bank(name):
            # The bank that keeps the seller's account, named beside its IBAN.
            continue
        score, first = scores.get(name, (0.0, segment))
        score += 1.0 + (2.0 if beside_ids else 0.0)
        scores[name] = (score, first)
    ranked = sorted(scores, key=lambda n: (-scores[n][0], scores[n][1].page, scores[n][1].bbox[1]))
    candidates += [
        Found(value=name, confidence=0.7, lines=(scores[name][1].as_line(),)) for name in ranked
    ]
    # Then the first texts at the top of the first page that are not the buyer's, nor an
    # item table's column labels.
    for row in layouts[0].rows if layouts else ():
        if len(candidates) >= _MAX_CANDIDATES:
            break
        if (row.page, row.index) in column_heads:
            continue
        for segment in row.segments:
            if any(p.holds(segment) for p in buyers) or is_label(segment):
                continue
            if re.search(r"\d{3}", name_part(segment.text)):
                continue
            for text in top_names(segment):
                if text in excluded or sum(c.isalpha() for c in text) < 3:
                    continue
                if issuer_refusal(text) is not None:
                    # A title, a stamp or a table header is big type at the top, and no name.
                    continue
                candidates.append(Found(value=text, confidence=0.4, lines=(segment.as_line(),)))
    distinct: list[Found] = []
    for candidate in candidates:
        if all(c.value != candidate.value for c in distinct):
            distinct.append(candidate)
    if not distinct:
        return None
    best, *rest = distinct[:_MAX_CANDIDATES]
    return attrs.evolve(best, alternatives=tuple(rest))
