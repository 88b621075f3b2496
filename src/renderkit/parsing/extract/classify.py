"""The document type, decided once per document from weighted keywords.

Each type's keywords (``lexicons/document_types.toml``, read on first use) score the text; the
best score wins, ``"other"`` below a threshold. Till receipts that print "TAX INVOICE" are
receipts: how they were paid decides, not the title.
"""

from __future__ import annotations

import functools
import re
import tomllib
from importlib import resources

from renderkit.parsing.extract.receipt import prints_invoice_label, till_receipt

__all__ = ["classify"]


@functools.cache
def _keywords() -> dict[str, tuple[tuple[re.Pattern[str], float], ...]]:
    """Per document type, its weighted keywords (``lexicons/document_types.toml``), compiled."""
    path = resources.files("renderkit.parsing.lexicons") / "document_types.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {
        kind: tuple(
            (re.compile(pattern, re.M), float(weight)) for pattern, weight in table["keywords"]
        )
        for kind, table in data.items()
    }


def _score_type(text: str) -> dict[str, float]:
    lowered = text.lower()
    scores: dict[str, float] = {}
    for kind, keywords in _keywords().items():
        score = 0.0
        for pattern, weight in keywords:
            hits = len(pattern.findall(lowered))
            score += weight * min(hits, 3) ** 0.5
        scores[kind] = score
    return scores


def classify(text: str) -> tuple[str, float]:
    """The document type of ``text`` and a confidence in [0, 1]."""
    scores = _score_type(text)
    kind = max(scores, key=lambda k: scores[k])
    best = scores[kind]
    if best < 3:
        return "other", 0.5
    labelled = kind == "receipt" and scores["invoice"] >= 3 and prints_invoice_label(text)
    if labelled:
        # Keywords both share (a total, a quantity column, a rounding line, "Tax Invoice")
        # can outweigh an invoice's own, but a receipt prints no due date, bank details or
        # "Bill to" block: the invoice's labels decide, as they do against the till cues
        # (which those labels rule out, so they are not read again).
        kind = "invoice"
    margin = abs(scores[kind] - max(v for k, v in scores.items() if k != kind)) / best
    if kind == "invoice" and not labelled and till_receipt(text):
        # Tills print "TAX INVOICE" over receipts; how it was paid decides, not the title.
        return "receipt", round(min(1.0, 0.5 + margin), 3)
    return kind, round(min(1.0, 0.5 + margin), 3)
