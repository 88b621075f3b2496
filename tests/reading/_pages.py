"""The fixture pages for reading: articles wrapped in navigation, sidebars, footers, cookie
banners and ads, each with its main text written out as the expected answer.

Shared by the tests and by ``bench/bench_read.py``, which scores renderkit against
trafilatura alone on the same pages.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import attrs

PAGES_DIR = Path(__file__).parent / "pages"

#: Every fixture page by name (``pages/<name>.html`` and its expected ``pages/<name>.txt``).
PAGE_NAMES: tuple[str, ...] = tuple(sorted(p.stem for p in PAGES_DIR.glob("*.html")))

#: What a reader of each page asks besides its URL: the script-built page is read once its
#: article appeared, as a caller of a single-page app would ask.
PAGE_OPTIONS: dict[str, dict[str, object]] = {"scripted": {"wait_for_selector": "article"}}

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_WORD = re.compile(r"\w+")
_ORDERED_ITEM = re.compile(r"^\s*\d+\.\s", re.MULTILINE)


@attrs.frozen(kw_only=True)
class Score:
    """Token precision (how much of the answer is main text) and recall (how much of the
    main text the answer has), over bags of lower-cased words."""

    precision: float
    recall: float


def page_html(name: str) -> bytes:
    return (PAGES_DIR / f"{name}.html").read_bytes()


def expected_text(name: str) -> str:
    return (PAGES_DIR / f"{name}.txt").read_text("utf-8")


def tokens(text: str) -> Counter[str]:
    """The words of ``text``; Markdown link and image targets and list numbers are left out
    (link text and alt text count), so kept Markdown is not counted as noise."""
    text = _ORDERED_ITEM.sub("", _LINK.sub(r"\1", text))
    return Counter(_WORD.findall(text.lower()))


def score(expected: str, answer: str) -> Score:
    want, got = tokens(expected), tokens(answer)
    common = sum((want & got).values())
    return Score(
        precision=common / max(1, sum(got.values())),
        recall=common / max(1, sum(want.values())),
    )
