"""Contract parties found by their definitions when the preamble names none.

Many agreements are letters or one-sided undertakings with no "between X and Y" preamble.
Their parties are still defined where they first appear: a company name ending in a legal
form, followed by the term it is defined as (``Acme Widgets, Inc. (the "Company")``). The legal
forms come from ``lexicons/ids.toml``; nothing here names a company.
"""

from __future__ import annotations

import functools
import re

from renderkit.parsing.identifiers import legal_forms

__all__ = ["defined_parties"]

# How much of the document's start is read: definitions come early.
_HEAD = 4000
# At most this many capitalised words before the legal form.
_NAME_WORDS = 6


@functools.cache
def _definition() -> re.Pattern[str]:
    forms = sorted(legal_forms(), key=len, reverse=True)
    form = "|".join(re.escape(f).replace(r"\.", r"\.?") for f in forms)
    word = r"(?:[A-Z][\w&'’-]*|&|of|and)"
    return re.compile(
        rf"(?P<name>(?:{word}\s+){{1,{_NAME_WORDS}}}?(?:[A-Z][\w&'’-]*,?\s+)?(?:{form}))(?![\w])"
        # An optional description ("a Delaware corporation"), then the defined term.
        r"\s*,?\s*(?:an?\s+[A-Za-z ]{0,40}?\s*,?\s*)?\(\s*(?:the\s+|hereinafter\s+)?[\"“]",
    )


def defined_parties(text: str) -> list[str]:
    """Company names defined as a term (``Name, Inc. (the "Company")``) near the start."""
    names: list[str] = []
    for match in _definition().finditer(text[:_HEAD]):
        name = re.sub(r"\s+", " ", match.group("name")).strip(" ,")
        name = re.sub(r"^(?:The|the|of|and|&)\s+", "", name)
        if len(name.split()) >= 2 and name not in names:
            names.append(name)
    # "Holders and Acme Corporation": a name that ends in another one ran into a phrase.
    names = [n for n in names if not any(o != n and n.endswith(" " + o) for o in names)]
    return names[:3]
