"""Undoing Tesseract's usual letter confusions in words whose vocabulary is known in advance.

Scanned receipts print their seller's address and name in a small, closed vocabulary: street
words, state and city names and trade words, kept per region in ``lexicons/regions/*.toml``.
Thermal and dot-matrix print breaks strokes, and Tesseract then swaps letters that differ by a
stroke or two (M/N/H/W, I/L/T, O/D/U...). A word that is not in the vocabulary but is one such
swap away from exactly one vocabulary word of the same length is read as that word. Nothing else
is touched: unknown names stay as read, and a word that could be two vocabulary words is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from renderkit.parsing._protocol import Word
from renderkit.parsing.lexicons.regions import region_words

__all__ = ["ADDRESS_WORDS", "NAME_WORDS", "agree_words", "fix_words"]

# Letters Tesseract mistakes for one another on broken print (each group is interchangeable).
_CONFUSABLE = ("MNHW", "ILTJ1", "ODUQ0", "EFL", "S5", "B8", "G6C", "Z2", "KR", "VY")
_GROUP = {ch: group for group in _CONFUSABLE for ch in group}


def _single_words(phrases: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for p in phrases for w in p.upper().split() if w.isalpha() and len(w) >= 3)


_REGION = region_words()
#: Street, place and region words of addresses (from the region files).
ADDRESS_WORDS = _single_words(_REGION.street_words + _REGION.place_words + _REGION.regions)
#: Trade words of shop and company names (from the region files).
NAME_WORDS = _single_words(_REGION.trade_words)


def _candidates(word: str, vocabulary: Iterable[str]) -> list[str]:
    out = []
    for known in vocabulary:
        if len(known) != len(word):
            continue
        diffs = [(a, b) for a, b in zip(word, known, strict=True) if a != b]
        if len(diffs) == 1 and diffs[0][0] in _GROUP.get(diffs[0][1], ""):
            out.append(known)
    return out


def fix_words(text: str, vocabulary: frozenset[str]) -> str:
    """``text`` with near-miss words (one confusable letter off) read as vocabulary words."""

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        upper = word.upper()
        if len(word) < 3 or upper in vocabulary or not (word.isupper() or word.istitle()):
            return word
        found = _candidates(upper, vocabulary)
        if len(found) != 1:
            return word
        return found[0] if word.isupper() else found[0].title()

    return re.sub(r"[A-Za-z][A-Za-z0-9$]*[A-Za-z]", fix, text)


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

    return re.sub(r"(?<![A-Za-z])[A-Za-z]{4,}(?![A-Za-z])", fix, text)
