"""Letter-spaced words put back together.

Designers set titles and labels letter-spaced ("I N V O I C E", "T O T A L"), by CSS
``letter-spacing`` or by typing a space between the letters. Either way a PDF's text layer
reads one word per letter: PDFium generates a space wherever the gap between two letters is
wider than its font's space allows for, and a title read as seven one-letter words names no
document type ("F a t t u r a" is no invoice word). Rejoining them needs the letters' boxes:
inside a spaced word the gaps are the spacing alone and all alike, between two spaced words
the gap also holds a space, so it is clearly wider.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from typing import TypeVar

import attrs

from renderkit.parsing._protocol import Page, Word, union_bbox

__all__ = ["join_spaced_letters", "join_typed_letters", "joined_page"]

W = TypeVar("W", bound=Word)

# A word whose characters stand this many text heights apart (the median gap between their
# boxes) is letter-spaced; set solid, the boxes touch (kerning makes them overlap a little).
_SPACED = 0.06
# A gap this many times the letter spacing (plus a twentieth of the height) holds a space.
_WORD_GAP = 1.6
# Two runs of letters set solid join only this many times the letter spacing apart.
_LETTER_GAP = 1.3
# A spacing wider than this many text heights is no letter spacing (letters in columns).
_MAX_GAP = 1.2
# The narrowest a space is, in text heights (a quarter of the height or so in most fonts).
_SPACE_WIDTH = 0.2
# One-letter words in a row, on a line with no spaced word, before they are read as a word
# typed with spaces ("F a t t u r a"); "P O Box" stays.
_MIN_LETTERS = 3
# One-character words of any kind in a row, parted softly by gaps alike within this ratio,
# before they are read as spaced: a figure set apart ("1 0 . 4 1 5 , 9 1").
_MIN_CHARS = 4
_EVEN_GAPS = 1.3


def join_spaced_letters(
    words: Sequence[W],
    spacings: Sequence[float | None],
    soft: Sequence[bool],
    *,
    aspect: float,
) -> list[W]:
    """``words`` (one line, left to right) with each letter-spaced word, read as several,
    joined into the word it spells; every other word unchanged.

    ``spacings[i]`` is the median gap between the characters' boxes inside ``words[i]`` (None
    for a one-character word), as a fraction of the page's width like the boxes' x;
    ``soft[i]`` says no space character of the PDF's own parts ``words[i]`` from the word
    before it (PDFium generated one, or a gap did); ``aspect`` is the page's height over its
    width, which turns heights into the boxes' x unit.

    A line's letter spacing is the median of its spaced words' spacings and of the gaps
    between softly parted one-character words. With one, softly parted neighbours join where
    one is spaced, or one is a single character beside a pair PDFium kept together, and their
    gap holds no space ("Fa" "c" "t" "ure", "8" "2" "5" "7" "8", "I" "VA"); a typed space
    always parts words, and words set solid never join.
    Without one, a run of three one-letter words typed with spaces ("F a t t u r a") joins by
    its own narrowest gap; "P O Box" stays.
    """
    heights = [(w.bbox[3] - w.bbox[1]) * aspect for w in words]
    spaced = [
        s is not None and _SPACED * h < s <= _MAX_GAP * h
        for s, h in zip(spacings, heights, strict=True)
    ]
    gaps = [-1.0] + [b.bbox[0] - a.bbox[2] for a, b in itertools.pairwise(words)]
    spacing = _line_spacing(words, spacings, spaced, soft, gaps, heights)
    if spacing is None:
        return _typed_letters(words, gaps, heights)
    groups: list[list[W]] = []
    for i, word in enumerate(words):
        if (
            i
            and soft[i]
            and 0 <= gaps[i] <= _space_free(spacing, max(heights[i - 1], heights[i]))
            and _parts_of_one(words[i - 1], word, spaced[i - 1], spaced[i], gaps[i] / spacing)
        ):
            groups[-1].append(word)
        else:
            groups.append([word])
    return [_merged(group) for group in groups]


def _parts_of_one(
    left: Word, right: Word, left_spaced: bool, right_spaced: bool, gap: float
) -> bool:
    """Whether two neighbours on a spaced line, ``gap`` times its letter spacing apart, may be
    parts of one word by their kinds: one spaced ("AVAN" "T:"), one a single character beside
    a pair PDFium kept together (a kerned "7." or "VA"), or two runs of letters each kerned
    tight ("FAT" "URA") no further apart than its letters. A value beside a spaced label
    stays apart: "86.685,67" "€", and "Acme" "Widgets" a space apart."""
    if left_spaced or right_spaced:
        return True
    if min(len(left.text), len(right.text)) == 1 and max(len(left.text), len(right.text)) <= 2:
        return True
    return left.text.isalpha() and right.text.isalpha() and gap <= _LETTER_GAP


def _line_spacing(
    words: Sequence[W],
    spacings: Sequence[float | None],
    spaced: list[bool],
    soft: Sequence[bool],
    gaps: list[float],
    heights: list[float],
) -> float | None:
    """The line's letter spacing, or None where nothing on it is letter-spaced.

    The evidence is a spaced word, three one-letter words in a row parted softly, or four
    one-character words parted softly by even gaps; then the spacing is the median of the
    spaced words' spacings and of the gaps between softly parted one-character words (a
    kerned pair such as "Ve" alone would set it too narrow). A figure and a sign are no
    evidence: "CGST 9 %" is three words.
    """
    inner = [s for s, is_spaced in zip(spacings, spaced, strict=True) if is_spaced and s]
    between: list[float] = []
    letters = longest = 0
    run: list[float] = []  # the gaps of the latest run of softly parted one-character words
    even = False
    for i, word in enumerate(words):
        one = len(word.text) == 1
        parted = (
            i > 0
            and one
            and soft[i]
            and len(words[i - 1].text) == 1
            and 0 < gaps[i] <= _MAX_GAP * heights[i]
        )
        if parted:
            between.append(gaps[i])
            run.append(gaps[i])
            last = run[1 - _MIN_CHARS :]
            even = even or (len(last) == _MIN_CHARS - 1 and max(last) <= _EVEN_GAPS * min(last))
        else:
            run = []
        # One-letter words in a row, softly parted.
        letters = (letters + 1 if parted else 1) if one and word.text.isalpha() else 0
        longest = max(longest, letters)
    if not inner and longest < _MIN_LETTERS and not even:
        return None
    return _letter_spacing(inner + between, statistics.median(heights))


def _letter_spacing(gaps: list[float], height: float) -> float:
    """The median of ``gaps`` between letters, those that also hold a space left out.

    On a short line the gaps between words can be as many as those inside them ("G S T 5 %":
    two of each), and the median of all of them would hold a space. A space makes the widest
    jump between the sorted gaps, both at least a space's width apart and more than the
    spacing's own variation; a kerned pair ("Ve") only narrows one gap by less than a space.
    """
    ordered = sorted(gaps)
    jumps = [
        (b - a, i)
        for i, (a, b) in enumerate(itertools.pairwise(ordered), 1)
        if b > _WORD_GAP * a and b - a >= _SPACE_WIDTH * height
    ]
    if jumps:
        ordered = ordered[: max(jumps)[1]]
    return statistics.median(ordered)


def _space_free(spacing: float, height: float) -> float:
    """The widest gap, for letters ``spacing`` apart, that holds no space."""
    return spacing * _WORD_GAP + 0.05 * height


def join_typed_letters(words: Sequence[W], *, aspect: float) -> list[W]:
    """``words`` (one line, left to right) with each run of three one-letter words or more
    joined by its own narrowest gap ("F a t t u r a"), the reading OCR leaves of a spaced
    title; ``aspect`` as for :func:`join_spaced_letters`."""
    heights = [(w.bbox[3] - w.bbox[1]) * aspect for w in words]
    gaps = [-1.0] + [b.bbox[0] - a.bbox[2] for a, b in itertools.pairwise(words)]
    return _typed_letters(words, gaps, heights)


def joined_page(page: Page) -> Page:
    """``page`` (read by OCR, whose words carry no spacing of their own) with its lines'
    typed-spaced letters joined (:func:`join_typed_letters`)."""
    aspect = page.height / page.width if page.width else 1.0
    lines = tuple(
        attrs.evolve(line, words=tuple(join_typed_letters(line.words, aspect=aspect)))
        for line in page.lines
    )
    return attrs.evolve(page, lines=lines)


def _typed_letters(words: Sequence[W], gaps: list[float], heights: list[float]) -> list[W]:
    """Runs of one-letter words typed with a space between their letters joined, split where
    two spaces (a wider gap) part the words."""
    out: list[W] = []
    start = 0
    while start < len(words):
        end = start
        while end < len(words) and len(words[end].text) == 1 and words[end].text.isalpha():
            end += 1
        if end - start < _MIN_LETTERS:
            out.extend(words[start : max(end, start + 1)])
            start = max(end, start + 1)
            continue
        inside = gaps[start + 1 : end]
        narrowest = min(inside)
        height = max(heights[start:end])
        if narrowest < 0 or narrowest > _MAX_GAP * height:
            out.extend(words[start:end])  # overlapping or scattered letters
        else:
            groups: list[list[W]] = [[words[start]]]
            for gap, word in zip(inside, words[start + 1 : end], strict=True):
                if gap > _space_free(narrowest, height):
                    groups.append([word])
                else:
                    groups[-1].append(word)
            out.extend(_merged(group) for group in groups)
        start = end
    return out


def _merged(group: list[W]) -> W:
    if len(group) == 1:
        return group[0]
    return attrs.evolve(
        group[0],
        text="".join(w.text for w in group),
        bbox=union_bbox(w.bbox for w in group),
        confidence=min(w.confidence for w in group),
    )
