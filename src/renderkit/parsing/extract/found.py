"""What every rule returns (:class:`Found`), and line cleaning.

Each rule returns a :class:`Found`: the value, a rule confidence (how often the rule is right
when it fires, before OCR quality is taken into account) and the lines it read, for
provenance. Receipt rules live in :mod:`~renderkit.parsing.extract.receipt`, invoice rules
in :mod:`~renderkit.parsing.extract.invoice`, contract rules in
:mod:`~renderkit.parsing.extract.contract`.
"""

from __future__ import annotations

import re

import attrs

from renderkit.parsing._protocol import Line

__all__ = ["Found", "clean"]


@attrs.frozen(kw_only=True)
class Found:
    """A value a rule found, how sure the rule is, and the lines it came from."""

    value: object
    confidence: float
    lines: tuple[Line, ...] = ()


# Characters OCR leaves at the ends of a line: rules, bullets, quotes, stray punctuation.
_JUNK_EDGES = " \t|:;.,_~—–-'\"“”‘’`*=+<>»«°^\\/{}[]!?"


def clean(text: str) -> str:
    """``text`` without OCR debris at its ends and with single spaces."""
    return re.sub(r"\s+", " ", text).strip(_JUNK_EDGES)
