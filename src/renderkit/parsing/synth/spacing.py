"""Invoices set in letter-spaced type: a title, the labels or the whole page.

Designers space out capitals ("I N V O I C E", "B I L L   T O") and some templates set every
line a little apart. A PDF printed by Chromium then holds no space characters at all (it
positions words; PDFium generates the spaces from the gaps), so a text layer reads each
letter as a word unless the reader puts the letters back together. The option
``--spaced-type`` (``Variations(spaced_type=True)``) draws, on four invoices in
five, from a generator of its own (sets made without it are unchanged):

- ``title``: the document's title spaced 0.15-0.6 em;
- ``labels``: the title, table headers and labels in capitals, spaced 0.08-0.25 em;
- ``page``: every line spaced 0.05-0.2 em;
- ``typed``: the title typed with a space between its letters and three between its words.

What the labels name does not change: the truth is the unspaced document's.
"""

from __future__ import annotations

import random

__all__ = ["KINDS", "choose_spacing", "spacing_css", "typed"]

#: The kinds of spacing, with the range of the spacing drawn (em).
KINDS: dict[str, tuple[float, float]] = {
    "title": (0.15, 0.6),
    "labels": (0.08, 0.25),
    "page": (0.05, 0.2),
    "typed": (0.0, 0.0),
}

# The labels' elements: headers, meta and party labels, the totals' label cells (a column
# summary's labels are its header cells; its first cell is a value).
_LABELS = "h1,th,.label,table.totals:not(.columns) td:first-child"
_RULES = {
    "title": "h1{letter-spacing:EM}",
    "labels": _LABELS + "{letter-spacing:EM;text-transform:uppercase}",
    "page": "body{letter-spacing:EM}",
    "typed": "h1{white-space:pre}",
}


def choose_spacing(rng: random.Random) -> tuple[str, float]:
    """The spacing one invoice is set in (``Layout.spaced``, ``Layout.spaced_em``): none on
    one in five."""
    if rng.random() < 0.2:
        return "", 0.0
    kind = rng.choice(sorted(KINDS))
    low, high = KINDS[kind]
    return kind, round(rng.uniform(low, high), 2)


def spacing_css(kind: str, em: float) -> str:
    """The style rules that set ``kind`` spacing of ``em`` ("" for none)."""
    return _RULES.get(kind, "").replace("EM", f"{em}em")


def typed(text: str) -> str:
    """``text`` typed with a space between its letters and three between its words."""
    return "   ".join(" ".join(word) for word in text.split())
