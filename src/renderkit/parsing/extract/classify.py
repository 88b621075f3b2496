"""The document type, decided once per document from weighted keywords.

Each type's keywords score the text; the best score wins, ``"other"`` below a threshold. Till
receipts that print "TAX INVOICE" are receipts: how they were paid decides, not the title.
"""

from __future__ import annotations

import re

from renderkit.parsing.extract.receipt import till_receipt

__all__ = ["classify"]

#: Keywords per document type, weighted; the best score wins, "other" below a threshold.
_TYPE_KEYWORDS: dict[str, tuple[tuple[str, float], ...]] = {
    "invoice": (
        (r"\binvoice\b", 3), (r"\bbill\s+to\b", 2), (r"\bdue\s+date\b", 2),
        (r"\binvoice\s*(no|number|#)", 3), (r"\bpayment\s+terms\b", 1), (r"\bsubtotal\b", 1),
        (r"\bvat\b|\btax\b", 0.5),
        (r"\brechnung|\bfacture\b|\bfactura\b|\bfattura\b|\bfactuur\b", 3),
        (r"\biban\b|\bust-?id|\bmwst\b|\btva\b", 1),
    ),
    "receipt": (
        (r"\breceipt\b", 2), (r"\bcash(ier)?\b", 2), (r"\bchange\b", 1.5), (r"\btotal\b", 1),
        (r"\bthank\s+you\b", 1), (r"\brounding\b", 2), (r"\bqty\b", 1), (r"\bgst\b", 1),
        (r"\bsdn\.?\s*bhd\b", 1), (r"\btax\s+invoice\b", 1), (r"\bvisa|mastercard\b", 1),
    ),
    "purchase_order": (
        (r"\bpurchase\s+order\b", 5), (r"\bp\.?o\.?\s*(no|number|#)", 3), (r"\bship\s+to\b", 1),
        (r"\bvendor\b", 1), (r"\bdelivery\s+date\b", 1),
    ),
    "contract": (
        (r"\bagreement\b", 2), (r"\bwhereas\b", 3), (r"\bhereby\b", 1),
        (r"\bparty\b|\bparties\b", 1.5),
        (r"\bgoverned\s+by\b", 3), (r"\bconfidential", 1), (r"\bterminat", 1),
        (r"\bin\s+witness\s+whereof\b", 3), (r"\bshall\b", 0.5),
    ),
    "letter": (
        (r"^\s*dear\b", 4), (r"\b(yours\s+(sincerely|faithfully|truly)|sincerely|regards)\b", 3),
        (r"\bre:\s", 1),
    ),
    "resume": (
        (r"\b(curriculum\s+vitae|resume|résumé)\b", 4), (r"\bwork\s+experience\b", 3),
        (r"\beducation\b", 2), (r"\bskills\b", 2), (r"\breferences\b", 1),
    ),
    "bank_statement": (
        (r"\bstatement\s+(of\s+account|period)\b", 4), (r"\bopening\s+balance\b", 3),
        (r"\bclosing\s+balance\b", 3), (r"\baccount\s+(no|number)\b", 2),
        (r"\bdebit\b", 1), (r"\bcredit\b", 1), (r"\bbank\s+statement\b", 4),
    ),
    "id_form": (
        (r"\bdate\s+of\s+birth\b", 3), (r"\bpassport\b", 3), (r"\bnationality\b", 2),
        (r"\bsignature\b", 1), (r"\bapplicant\b", 2), (r"\bapplication\s+form\b", 3),
        (r"\bid\s*(no|number)\b", 2), (r"\bsex\b|\bgender\b", 1),
    ),
}  # fmt: skip


def _score_type(text: str) -> dict[str, float]:
    lowered = text.lower()
    scores: dict[str, float] = {}
    for kind, keywords in _TYPE_KEYWORDS.items():
        score = 0.0
        for pattern, weight in keywords:
            hits = len(re.findall(pattern, lowered, re.M))
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
    ordered = sorted(scores.values(), reverse=True)
    margin = (ordered[0] - ordered[1]) / ordered[0]
    if kind == "invoice" and till_receipt(text):
        # Tills print "TAX INVOICE" over receipts; how it was paid decides, not the title.
        return "receipt", round(min(1.0, 0.5 + margin), 3)
    return kind, round(min(1.0, 0.5 + margin), 3)
