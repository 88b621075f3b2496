"""Label lexicons: the words invoices and receipts print before their values, per language.

One TOML file per language (``en.toml``, ``de.toml``...) maps a concept (``invoice_number``,
``due_date``, ``subtotal``, ``quantity``...) to its labels. Labels are compared as tokens:
case, accents and punctuation are ignored, ``#``, ``°`` and ``%`` are tokens of their own.
"""

from __future__ import annotations

import functools
import re
import tomllib
import unicodedata
from collections.abc import Sequence
from importlib import resources

import attrs

__all__ = [
    "COLUMN_CONCEPTS",
    "LANGUAGES",
    "Lexicon",
    "Terms",
    "fold",
    "load_lexicon",
    "load_terms",
    "tokens",
]

#: The languages shipped, one file each.
LANGUAGES: tuple[str, ...] = ("en", "de", "fr", "es", "it", "nl", "pt", "ms")

#: Concepts naming the columns of a line-item table rather than document fields.
COLUMN_CONCEPTS: frozenset[str] = frozenset(
    {"description", "quantity", "unit_price", "line_amount", "unit", "position", "tax_rate"}
)

_TOKEN = re.compile(r"[#°º%]|[^\W_]+")


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def tokens(text: str) -> list[tuple[str, int, int]]:
    """``text`` as comparable tokens with their ``(start, end)`` offsets in ``text``."""
    # Folding may change lengths (ß -> ss), so offsets come from matching the original text.
    return [
        (_fold(m.group(0)).replace("º", "°"), m.start(), m.end()) for m in _TOKEN.finditer(text)
    ]


@attrs.frozen(kw_only=True)
class Lexicon:
    """Labels per concept, as token tuples.

    Attributes:
        labels: concept -> the labels' token tuples, longest first.
    """

    labels: dict[str, tuple[tuple[str, ...], ...]]

    @functools.cached_property
    def _by_first(self) -> dict[str, list[tuple[tuple[str, ...], str]]]:
        index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for concept, labels in self.labels.items():
            for label in labels:
                index.setdefault(label[0], []).append((label, concept))
        for entries in index.values():
            entries.sort(key=lambda e: -len(e[0]))
        return index

    def match(self, words: list[str], start: int) -> list[tuple[str, int]]:
        """The concepts whose label starts at ``words[start]``, with the label length.

        Only the longest label length is returned ("Total net" is a subtotal, not a total);
        a label shared by several concepts yields each of them.
        """
        best: list[tuple[str, int]] = []
        for label, concept in self._by_first.get(words[start], []):
            if tuple(words[start : start + len(label)]) != label:
                continue
            if best and len(label) < best[0][1]:
                break
            best.append((concept, len(label)))
        return best

    def concepts_in(self, words: Sequence[str]) -> frozenset[str]:
        """The concepts of every label :meth:`match` finds starting anywhere in ``words``."""
        listed = list(words)
        return frozenset(c for i in range(len(listed)) for c, _ in self.match(listed, i))


@functools.cache
def load_lexicon(languages: tuple[str, ...] = LANGUAGES) -> Lexicon:
    """The labels of ``languages`` merged into one lexicon (documents mix languages)."""
    merged: dict[str, set[tuple[str, ...]]] = {}
    folder = resources.files(__package__)
    for language in languages:
        data = tomllib.loads((folder / f"{language}.toml").read_text(encoding="utf-8"))
        for concept, labels in data["labels"].items():
            for label in labels:
                toks = tuple(t for t, _, _ in tokens(label))
                if toks:
                    merged.setdefault(concept, set()).add(toks)
    return Lexicon(
        labels={c: tuple(sorted(ls, key=lambda t: (-len(t), t))) for c, ls in merged.items()}
    )


@attrs.frozen(kw_only=True)
class Terms:
    """Vocabulary read around labels rather than as labels, merged over the languages.

    Attributes:
        buyer_marks: words that make a label the buyer's (``your``, ``ihre``, ``votre``).
        number_marks: words marking a number after a document title (``no``, ``nr``, ``n°``).
        net_days: payment terms in days, each a pattern over folded text whose one group is
            the number of days (``within (\\d+) days``).
        compound_suffixes: words that also count as the end of a compound word
            (``handelsrechnung`` is a ``rechnung``).
        stamp_words: stamp and watermark words (``copy``, ``kopie``, ``paid``), folded.
        document_words: words for "document" (``document``, ``beleg``, ``pièce``), folded.
        reference_words: words for a reference, code or number (``ref``, ``code``,
            ``kennung``, ``kenmerk``), folded.
        linking_words: short words between them (``of``, ``de``, ``van``), folded.
        payment_stems: how words of paying or settling begin (``pay``, ``zahl``, ``régl``),
            folded.
        deadline_words: words of a deadline (``before``, ``until``, ``au plus tard``), as
            token tuples.
        earlier_stems: how words naming an earlier document begin (``original``,
            ``ursprung``, ``origin``), folded.
        bank_words: words that make a name a bank's (``bank``, ``sparkasse``, ``caixa``),
            folded; a compound holding one counts ("Volksbank").
    """

    number_marks: frozenset[str]
    buyer_marks: frozenset[str]
    net_days: tuple[re.Pattern[str], ...]
    compound_suffixes: tuple[str, ...]
    stamp_words: frozenset[str] = frozenset()
    document_words: frozenset[str] = frozenset()
    reference_words: frozenset[str] = frozenset()
    linking_words: frozenset[str] = frozenset()
    payment_stems: tuple[str, ...] = ()
    deadline_words: tuple[tuple[str, ...], ...] = ()
    earlier_stems: tuple[str, ...] = ()
    bank_words: tuple[str, ...] = ()


def fold(text: str) -> str:
    """``text`` case- and accent-folded, the way labels are compared."""
    return _fold(text)


def _days_pattern(phrase: str) -> re.Pattern[str]:
    # The days are a count on their own: no currency sign between the words and the figure,
    # and no more digits after a separator or a group of three ("Net £16,232.69", "Net 16 232,69"
    # are net amounts, not "net 16").
    parts = [re.escape(t) for t, _, _ in tokens(phrase.replace("{n}", " 0 "))]
    days = r"(\d{1,3})(?![.,'’]?\d)(?![\s\u00a0\u202f]\d{3}(?!\d))"
    between = r"[^\w$€£¥₹]+"
    if parts[1:] == ["0"]:
        # One word and the figure ("net 30") must be on one line: "Net" ending a table's
        # column header over the first row's position number is no term ("Montant net" /
        # "1"). A longer phrase may wrap ("zahlbar innerhalb von" / "14 Tagen").
        between = r"[^\w$€£¥₹\n]+"
    body = between.join(days if p == "0" else p for p in parts)
    return re.compile(r"(?<!\w)" + body + r"(?!\w)")


@functools.cache
def load_terms(languages: tuple[str, ...] = LANGUAGES) -> Terms:
    """The ``[terms]`` tables of ``languages`` merged."""
    marks: set[str] = set()
    buyer: set[str] = set()
    days: list[str] = []
    suffixes: set[str] = set()
    stamps: set[str] = set()
    documents: set[str] = set()
    references: set[str] = set()
    links: set[str] = set()
    stems: set[str] = set()
    deadlines: set[tuple[str, ...]] = set()
    earlier: set[str] = set()
    banks: set[str] = set()
    folder = resources.files(__package__)
    for language in languages:
        data = tomllib.loads((folder / f"{language}.toml").read_text(encoding="utf-8"))
        terms = data.get("terms", {})
        marks.update(t for m in terms.get("number_mark", []) for t, _, _ in tokens(m))
        buyer.update(_fold(m) for m in terms.get("buyer_marks", []))
        days += terms.get("net_days", [])
        suffixes.update(_fold(s) for s in terms.get("compound_suffixes", []))
        stamps.update(_fold(s) for s in terms.get("stamp_words", []))
        documents.update(_fold(w) for w in terms.get("document_words", []))
        references.update(t for w in terms.get("reference_words", []) for t, _, _ in tokens(w))
        links.update(_fold(w) for w in terms.get("linking_words", []))
        stems.update(_fold(w) for w in terms.get("payment_stems", []))
        deadlines.update(tuple(t for t, _, _ in tokens(w)) for w in terms.get("deadline_words", []))
        earlier.update(_fold(w) for w in terms.get("earlier_stems", []))
        banks.update(_fold(w) for w in terms.get("bank_words", []))
    # Longer phrases first: "innerhalb von 14 tagen" before "in 14 tagen".
    days.sort(key=len, reverse=True)
    return Terms(
        number_marks=frozenset(marks),
        buyer_marks=frozenset(buyer),
        net_days=tuple(_days_pattern(d) for d in days),
        compound_suffixes=tuple(sorted(suffixes)),
        stamp_words=frozenset(stamps),
        document_words=frozenset(documents),
        reference_words=frozenset(references),
        linking_words=frozenset(links),
        payment_stems=tuple(sorted(stems)),
        deadline_words=tuple(sorted(deadlines, key=lambda d: (-len(d), d))),
        earlier_stems=tuple(sorted(earlier)),
        bank_words=tuple(sorted(banks)),
    )
