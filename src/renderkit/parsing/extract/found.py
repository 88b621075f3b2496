"""What every rule returns (:class:`Found`), and line cleaning.

Each rule returns a :class:`Found`: the value, a rule confidence (how often the rule is right
when it fires, before OCR quality is taken into account) and the lines it read, for
provenance. A rule that weighed several values for a name may also return the ones it passed
over (:attr:`Found.alternatives`), for the language-model arbiter
(:mod:`~renderkit.parsing.arbiter`) to choose from when the rule is unsure. Receipt rules
live in :mod:`~renderkit.parsing.extract.receipt` and its ``receipt_*`` modules, invoice rules in
:mod:`~renderkit.parsing.extract.invoice`, contract rules in
:mod:`~renderkit.parsing.extract.contract`.
"""

from __future__ import annotations

import re

import attrs

from renderkit.parsing._protocol import Line

__all__ = ["Found", "clean", "sentence_like", "without_logo_word"]


@attrs.frozen(kw_only=True)
class Found:
    """A value a rule found, how sure the rule is, and the lines it came from.

    Attributes:
        value: the value.
        confidence: how often the rule is right when it fires.
        lines: the lines the value was read from.
        alternatives: other values the rule weighed for the same field, best first (each with
            its own confidence and lines); empty when the rule saw no rival.
    """

    value: object
    confidence: float
    lines: tuple[Line, ...] = ()
    alternatives: tuple[Found, ...] = ()


# Characters OCR leaves at the ends of a line: rules, bullets, quotes, stray punctuation.
_JUNK_EDGES = " \t|:;.,_~—–-'\"“”‘’`*=+<>»«°^\\/{}[]!?"


def clean(text: str) -> str:
    """``text`` without OCR debris at its ends and with single spaces."""
    return re.sub(r"\s+", " ", text).strip(_JUNK_EDGES)


def sentence_like(text: str) -> bool:
    """Whether ``text`` is written as a sentence, most of its words after the first in lower
    case ("Quality service since 1998"): a slogan, never a name, which is printed in capitals
    or with each word capitalised."""
    words = [w for w in text.split() if w[:1].isalpha()]
    return len(words) >= 3 and sum(w[:1].islower() for w in words[1:]) > (len(words) - 1) / 2


def without_logo_word(name: str) -> str:
    """``name`` without a word in capitals before or after it that repeats one of its words
    printed otherwise ("ACME Acme Trading Ltd", "Acme Trading Ltd ACME"): a logo's word read
    on the name's line, where the type size could not tell them apart (a photo's OCR line). A
    name in capitals throughout keeps its words ("JOHNSON & JOHNSON"). OCR may run the logo's
    word into the name's ("ACMEAcme Trading Ltd")."""
    glued = re.match(r"([^\W\d_a-z]{3,})([^\W\d_a-z][^\W\d_A-Z]+)(?=\s)", name)
    if glued and glued.group(1).casefold() == glued.group(2).casefold():
        name = name[len(glued.group(1)) :]
    words = name.split()
    if len(words) < 3:
        return name
    for edge, rest in ((0, words[1:]), (-1, words[:-1])):
        word = words[edge]
        if not (word.isupper() and len(word) >= 3 and word.isalpha()):
            continue
        others = [w.strip(".,&") for w in rest]
        if all(w.isupper() for w in others if w.isalpha()):
            continue
        if word.casefold() in {w.casefold() for w in others}:
            return " ".join(rest)
    return name
