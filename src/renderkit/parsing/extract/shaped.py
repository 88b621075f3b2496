"""Labels no lexicon holds, read by the kinds of their words rather than their wording.

Invoices name their own number and their due date in endless ways ("Document ref",
"Belegkennung", "Número de documento"; "Pay before", "Zahlungsfrist", "Payer avant le"), and a
lexicon of whole labels can only recite the ones it was given. Each language's ``[terms]``
instead lists the *kinds* of words such labels are made of (a word for "document", for a
reference or code, a stem of paying, a deadline word), and a label is read from what its words
are:

- :func:`names_document`: only document, title, reference and linking words, at least one of
  them a document or title word: the label of the document's own number;
- :func:`introduces_due_date`: a word of paying and a deadline word, and no other date's or
  amount's word: the label of the due date.

:func:`colon_labels` finds the labels of a segment: the words before each colon;
:func:`labelled_values` walks a page's rows for them, each with the value it introduces.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import attrs

from renderkit.parsing.layout.model import PageLayout, Segment
from renderkit.parsing.lexicons import Lexicon, Terms, tokens

__all__ = [
    "ColonLabel",
    "colon_labels",
    "due_worded",
    "introduces_due_date",
    "labelled_values",
    "names_document",
]

# How many words a label read by its shape may have.
_MAX_WORDS = 4
# A compound's parts below this length are not read as words of their own ("bis" in "Kürbis").
_MIN_PART = 5
# The concepts a due-date label may also match: its own, payment terms, the amount it is due.
_DUE_CONCEPTS = frozenset({"due_date", "payment_terms", "amount_due"})


@attrs.frozen(kw_only=True)
class ColonLabel:
    """The words before a colon and the text after it.

    Attributes:
        words: the label's folded words, at most four.
        rest: the segment's text after the colon.
    """

    words: tuple[str, ...]
    rest: str


def colon_labels(text: str) -> list[ColonLabel]:
    """Every label of ``text`` that ends in a colon, with the text after it.

    The label is the run of words without a digit before the colon, back to the start or to a
    value holding a digit ("F 25-84511 Établie le:"); a longer run than a label's is a
    sentence, not a label, and is skipped.
    """
    out: list[ColonLabel] = []
    for colon in re.finditer(r"[:：]", text):
        words = [t for t, _, _ in tokens(text[: colon.start()])]
        start = len(words)
        while start > 0 and not any(c.isdigit() for c in words[start - 1]):
            start -= 1
        if 0 < len(words) - start <= _MAX_WORDS:
            out.append(ColonLabel(words=tuple(words[start:]), rest=text[colon.end() :]))
    return out


def labelled_values(layout: PageLayout) -> Iterator[tuple[ColonLabel, str, Segment]]:
    """Every colon label of ``layout``'s rows, in reading order, with its value and segment:
    the text after the colon, or the next segment of the row when nothing follows it there
    (a label and its value in two columns)."""
    for row in layout.rows:
        for index, segment in enumerate(row.segments):
            for label in colon_labels(segment.text):
                value = label.rest.strip() or (
                    row.segments[index + 1].text if index + 1 < len(row.segments) else ""
                )
                yield label, value, segment


def _title_words(lexicon: Lexicon) -> frozenset[str]:
    return frozenset(
        label[0] for label in lexicon.labels.get("document_title", ()) if len(label) == 1
    )


def _compound(word: str, heads: frozenset[str], tails: frozenset[str]) -> bool:
    """Whether ``word`` is a head word, an optional linking "s", then a tail word
    ("belegkennung", "factuurkenmerk", "rechnungskennziffer")."""
    for head in heads:
        if word.startswith(head) and len(word) > len(head):
            tail = word[len(head) :]
            if tail in tails or (tail.startswith("s") and tail[1:] in tails):
                return True
    return False


def names_document(words: Sequence[str], lexicon: Lexicon, terms: Terms) -> bool:
    """Whether a label of ``words`` names the document's own number by its words' kinds.

    Every word is a document word ("document", "beleg", "pièce"), a title word ("invoice",
    "rechnung"), a reference word ("ref", "code", "kennung") or a linking word ("de", "of"),
    or a compound of a document or title word and a reference word ("Factuurkenmerk"); and
    one at least names the document. "Document ref", "Número de documento", "Belegkennung" do;
    "Order ref", "Your reference", "Customer code" do not.
    """
    if not words or len(words) > _MAX_WORDS:
        return False
    heads = terms.document_words | _title_words(lexicon)
    named = False
    for word in words:
        if word in heads or _compound(word, heads, terms.reference_words):
            named = True
        elif word not in terms.reference_words and word not in terms.linking_words:
            return False
    return named


def _has_deadline(words: Sequence[str], terms: Terms) -> bool:
    for phrase in terms.deadline_words:
        for start in range(len(words) - len(phrase) + 1):
            if tuple(words[start : start + len(phrase)]) == phrase:
                return True
        # A compound ending in a deadline word: "Zahlungsfrist", "betaaltermijn".
        compound = len(phrase) == 1 and len(phrase[0]) >= _MIN_PART
        if compound and any(w.endswith(phrase[0]) and w != phrase[0] for w in words):
            return True
    return False


def due_worded(prefix: str, lexicon: Lexicon, terms: Terms) -> bool:
    """Whether the words that end ``prefix`` (a line's text up to a value), after its last
    figure, introduce the due date by their kinds (:func:`introduces_due_date`): "Payment
    deadline:" after "Date raised: 2020-10-06" on one line."""
    words = [t for t, _, _ in tokens(prefix)]
    label: list[str] = []
    for word in reversed(words):
        if any(c.isdigit() for c in word):
            break
        label.insert(0, word)
    return introduces_due_date(label, lexicon, terms)


def introduces_due_date(words: Sequence[str], lexicon: Lexicon, terms: Terms) -> bool:
    """Whether a label of ``words`` introduces the due date by its words' kinds.

    It holds a word of paying or settling ("pay", "Zahlung", "régler", "liquidar") and a
    deadline word ("before", "bis", "au plus tard", "entro", or a compound ending in one,
    "Zahlungsfrist"), and no word of another field ("Payment received", "Delivery by",
    "Issued by"). "Pay before", "Payer avant le", "Pagare entro il", "Zahlungsfrist" do.
    """
    if not words or len(words) > _MAX_WORDS:
        return False
    paying = {w for w in words if w.startswith(terms.payment_stems)}
    # A linking word ("de" is also French for "from") or a word of paying alone ("pago" is
    # also Portuguese for "paid") claims no other field; the deadline word decides.
    for start in range(len(words)):
        for concept, length in lexicon.match(list(words), start):
            alone = length == 1 and (words[start] in terms.linking_words or words[start] in paying)
            if concept not in _DUE_CONCEPTS and not alone:
                return False
    return bool(paying) and _has_deadline(words, terms)
