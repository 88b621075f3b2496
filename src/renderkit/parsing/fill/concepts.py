"""Which known field a schema property means, from its name, title or description.

One matcher for every extractor that fills a schema from known fields (the local extractor,
the embedded e-invoice reader). The vocabulary is data: ``lexicons/concepts.toml`` lists
phrases per field in several languages, and every label of the language lexicons counts for
the field its concept means (``Rechnungsnummer`` is an ``invoice_number`` label, so a property
``rechnungsnummer`` is the invoice number).

A phrase matches when all its words, stop words aside, are among the property's words; the
phrase with the most words wins (``seller_tax_id`` is a VAT id, not a tax amount). The name is
tried first, then the title, then the description.
"""

from __future__ import annotations

import functools
import re
import tomllib
from importlib import resources

from renderkit.parsing.lexicons import load_lexicon, tokens

__all__ = ["FIELDS", "concept_for", "property_words"]


@functools.cache
def _data() -> dict[str, dict[str, object]]:
    folder = resources.files("renderkit.parsing.lexicons")
    return tomllib.loads((folder / "concepts.toml").read_text(encoding="utf-8"))


@functools.cache
def _stop_words() -> frozenset[str]:
    words = _data()["stop_words"]["words"]
    return frozenset(str(w) for w in words)  # type: ignore[attr-defined]


def _key(phrase: str) -> frozenset[str]:
    return frozenset(t for t, _, _ in tokens(phrase)) - _stop_words()


@functools.cache
def _phrases() -> tuple[tuple[frozenset[str], str], ...]:
    """Every phrase as a word set with the concept it means, most words first."""
    out: list[tuple[frozenset[str], str]] = []
    for field, phrases in _data()["phrases"].items():
        out += [(_key(p), field) for p in phrases]  # type: ignore[attr-defined]
    mapping: dict[str, str] = dict(_data()["from_labels"])  # type: ignore[arg-type]
    for concept, labels in load_lexicon().labels.items():
        # Concepts that name no known field still match, so that "customer_number" is not
        # taken for the customer: they mean "no known field".
        field = mapping.get(concept, f"label:{concept}")
        out += [(frozenset(label) - _stop_words(), field) for label in labels]
    out = [(words, field) for words, field in out if words]
    out.sort(key=lambda e: -len(e[0]))
    return tuple(out)


#: The fields :func:`concept_for` can return.
FIELDS: frozenset[str] = frozenset(
    {
        "number", "date", "due_date", "company", "customer", "vat_id", "iban", "subtotal",
        "tax", "total", "discount", "currency", "address", "email", "phone", "line_items",
        "effective_date", "jurisdiction", "parties", "term",
    }
)  # fmt: skip


def property_words(name: str) -> str:
    """A property name as lower-case words: ``dueDate`` -> ``due_date``."""
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def _match(text: str) -> str | None:
    words = frozenset(t for t, _, _ in tokens(property_words(text).replace("_", " ")))
    if not words:
        return None
    for phrase, field in _phrases():
        if phrase <= words:
            return field
    return None


def concept_for(name: str, title: str = "", description: str = "") -> str | None:
    """The known field a schema property means, or None.

    Args:
        name: the property's name (``invoiceNumber``, ``numero_facture``...).
        title: its ``title``, if any.
        description: its ``description``, if any.

    Returns:
        One of :data:`FIELDS`; None when the property names no known field (then a label
        resembling the property may still be looked up in the document).
    """
    for text in (name, title, description):
        if not text:
            continue
        field = _match(text)
        if field is not None:
            return field if field in FIELDS else None
    return None
