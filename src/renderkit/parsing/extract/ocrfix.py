"""Undoing Tesseract's usual letter confusions in words whose vocabulary is known in advance.

Scanned receipts print their seller's address and name in a small, closed vocabulary: street
words, state and city names and trade words, kept per region in ``lexicons/regions/*.toml``.
Thermal and dot-matrix print breaks strokes, and Tesseract then swaps letters that differ by a
stroke or two (M/N/H/W, I/L/T, O/D/U...). A word that is not in the vocabulary but is one such
swap away from exactly one vocabulary word of the same length is read as that word. Nothing else
is touched: unknown names stay as read, and a word that could be two vocabulary words is kept.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence

from renderkit.parsing._protocol import Word
from renderkit.parsing.lexicons.regions import region_words

__all__ = [
    "address_words",
    "agree_words",
    "fix_words",
    "legal_form_words",
    "name_words",
    "split_run_together",
    "vocabulary",
]

# Letters Tesseract mistakes for one another on broken print (each group is interchangeable).
_CONFUSABLE = ("MNHW", "ILTJ1", "ODUQ0", "EFL", "S5", "B8", "G6C", "Z2", "KR", "VY")
_GROUP = {ch: "".join(g for g in _CONFUSABLE if ch in g) for ch in "".join(_CONFUSABLE)}
# Letter pairs read for one letter (a broken G as "CI", M as "RN"), never at a word's start.
_PAIRS = (("CI", "G"), ("RN", "M"), ("VV", "W"), ("CL", "D"))


def _single_words(phrases: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for p in phrases for w in p.upper().split() if w.isalpha() and len(w) >= 3)


@functools.cache
def address_words() -> frozenset[str]:
    """Street, place and region words of addresses (from the region files, read on first use)."""
    region = region_words()
    return _single_words(region.street_words + region.place_words + region.regions)


@functools.cache
def name_words() -> frozenset[str]:
    """Trade words of shop and company names (from the region files, read on first use), in
    the singular and the plural of the listed form ("HOLDING" and "HOLDINGS")."""
    words = _single_words(region_words().trade_words)
    return (
        words
        | {w[:-1] for w in words if w.endswith("S") and len(w) > 4}
        | {f"{w}S" for w in words if not w.endswith("S")}
    )


@functools.cache
def legal_form_words() -> frozenset[str]:
    """The words of the legal forms, in capitals without their dots ("SRL", "GMBH", "BV"):
    a name's form is never read as a vocabulary word one letter off ("SRL" is not "SRI")."""
    words = (re.sub(r"\W", "", w.upper()) for f in region_words().legal_forms for w in f.split())
    return frozenset(w for w in words if w)


@functools.cache
def vocabulary() -> frozenset[str]:
    """The closed vocabulary of names and addresses: :func:`name_words` | :func:`address_words`."""
    return name_words() | address_words()


def _candidates(word: str, vocabulary: Iterable[str]) -> list[str]:
    out = []
    for known in vocabulary:
        if len(known) != len(word):
            continue
        diffs = [(a, b) for a, b in zip(word, known, strict=True) if a != b]
        if len(diffs) == 1 and diffs[0][0] in _GROUP.get(diffs[0][1], ""):
            out.append(known)
    return out


def _fold(word: str) -> str:
    # Accents dropped: OCR trained on many scripts adds accents to faint capitals ("KÚALA").
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def _styled(known: str, word: str) -> str:
    # In capitals when the word was mostly capitals ("PETALINCi"), else in title case.
    return known if sum(c.isupper() for c in word) > len(word) / 2 else known.title()


def fix_words(text: str, vocabulary: frozenset[str], *, keep: frozenset[str] = frozenset()) -> str:
    """``text`` with near-miss words read as vocabulary words.

    A near miss is one confusable letter off, a confusable letter pair off ("PETALINCi"), or
    the vocabulary word with accents added ("KÚALA"). Words of ``keep`` (in capitals) are
    never changed.
    """

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        upper = _fold(word).upper()
        capitals = sum(c.isupper() for c in word) >= len(word) - 1  # "PETALINCi"
        if len(word) < 3 or not (capitals or word.istitle()) or upper in keep:
            return word
        if upper in vocabulary:
            return _styled(upper, word) if upper != word.upper() else word
        found = _candidates(upper, vocabulary)
        if not found:
            found = [
                known
                for pair, letter in _PAIRS
                for index in range(1, len(upper))
                if upper.startswith(pair, index)
                and (known := upper[:index] + letter + upper[index + len(pair) :]) in vocabulary
            ]
        if len(set(found)) != 1:
            return word
        return _styled(found[0], word)

    return re.sub(r"(?<![\w$])[^\W\d_][\w$]*[^\W_](?![\w$])", fix, text)


def _one_swap(word: str, other: str) -> bool:
    if len(word) != len(other) or word == other:
        return False
    diffs = [(a, b) for a, b in zip(word, other, strict=True) if a != b]
    return len(diffs) == 1 and diffs[0][0] in _GROUP.get(diffs[0][1], "")


def agree_words(text: str, words: Sequence[Word], *, margin: float = 0.15) -> str:
    """``text`` with poorly read words replaced by a clearer reading of the same word elsewhere.

    Receipts print their names more than once (a shop name in the header and in a footer, a
    town in the address and in the branch name). When one reading of a word is one
    confusable letter away from another reading on the same page that Tesseract was clearly
    more sure of (by ``margin``, and at least 0.8), the surer reading is taken.
    """
    best: dict[str, float] = {}
    for word in words:
        for part in re.findall(r"[A-Za-z]{4,}", word.text):
            key = part.upper()
            best[key] = max(best.get(key, 0.0), word.confidence)

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        upper = word.upper()
        folded = _fold(upper)
        if folded != upper:
            # An accent the page prints nowhere else on this word ("AÉON" beside "AEON").
            return _styled(folded, word) if folded in best else word
        own = best.get(upper)
        if own is None:
            return word
        found = [
            other
            for other, conf in best.items()
            if conf >= max(0.8, own + margin) and _one_swap(upper, other)
        ]
        if len(found) != 1:
            return word
        if word.isupper():
            return found[0]
        return found[0].title() if word.istitle() else word

    return re.sub(r"(?<![^\W\d_])[^\W\d_]{4,}(?![^\W\d_])", fix, text)


# A run of capitals at least this long may be a letter-spaced name read without its spaces.
_RUN = 12
# A head this long before one known word this long is a name run into its trade word.
_HEAD_ALONE, _LONG = 5, 7
# The unknown word a run-together name may open with ("ACME" in "ACMESTATIONERYSHOP").
_HEAD = 3


def _trade_tail(run: str, words: frozenset[str]) -> list[str] | None:
    """``run`` as an optional unknown head and then known words, the longest known word
    peeled off the end first; None when it does not end in known words."""
    if run in words:
        return [run]
    for known in sorted((w for w in words if run.endswith(w) and w != run), key=len, reverse=True):
        head = run[: -len(known)]
        rest = _trade_tail(head, words)
        if rest is not None:
            return [*rest, known]
        if len(head) >= _HEAD and head.isalpha():
            return [head, known]
    return None


def split_run_together(text: str, words: frozenset[str]) -> str:
    """``text`` with a name OCR read without its spaces split before its trade words.

    A name printed letter-spaced (wide tracking, as shop names are at the top of a till
    receipt) has gaps between letters as wide as those between words, so the recogniser
    returns one run of letters: "ACMESTATIONERYSHOP". A run of at least twelve capitals that
    is none of ``words`` and reads as at least two of them after an optional unknown head
    is split between them ("ACME STATIONERY SHOP"), and so is a head of five letters or more
    before one long known word ("KELMOTOVARENTERPRISE"); a word holding one short known word
    ("HYPERMARKET", "SUPERMARKET") is left alone.
    """

    def split(match: re.Match[str]) -> str:
        run = match.group(0)
        if run in words:
            return run
        parts = _trade_tail(run, words)
        if parts is None:
            return run
        known = [p for p in parts if p in words]
        long_tail = len(parts) == 2 and len(parts[0]) >= _HEAD_ALONE and len(parts[1]) >= _LONG
        if len(known) < 2 and not long_tail:
            return run
        return " ".join(parts)

    return re.sub(rf"(?<![^\W\d_])[A-Z]{{{_RUN},}}(?![^\W\d_])", split, text)
