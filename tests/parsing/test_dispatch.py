"""The document type is decided once, and only that type's extractor runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from renderkit.parsing import Document, LocalExtractor
from renderkit.parsing.extract import documents
from renderkit.parsing.extract.classify import classify

from ._pages import page

_RECEIPT = [
    "LAMPU TERANG TRADING",
    "12, JALAN MERAH 3",
    "Date : 02/03/2021 14:05",
    "Cashier : ANNA",
    "1 BULB 12.50",
    "TOTAL 12.50",
    "CASH 20.00",
    "CHANGE 7.50",
    "THANK YOU",
]
_CONTRACT = [
    "MUTUAL NON-DISCLOSURE AGREEMENT",
    "This Agreement is made as of January 15, 2021 by and between Foo Widgets, Inc.",
    'and Bar & Sons LLC ("Bar"). WHEREAS the parties wish to talk;',
    "This Agreement shall be governed by the laws of the State of New York.",
    "IN WITNESS WHEREOF the parties have signed.",
]


def _document(lines: list[str]) -> Document:
    cells = [(0.05, 0.05 + 0.03 * i, text) for i, text in enumerate(lines)]
    return Document(pages=(page(cells),), mime_type="application/pdf", content=b"")


def _counting(monkeypatch: pytest.MonkeyPatch, name: str, calls: list[str]) -> Callable[..., Any]:
    real = getattr(documents, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(documents, name, counted)
    return counted


@pytest.mark.parametrize(
    ("lines", "kind", "ran", "skipped"),
    [
        (_RECEIPT, "receipt", "receipt_fields", "contract_fields"),
        (_CONTRACT, "contract", "contract_fields", "invoice_fields"),
    ],
)
def test_only_the_classified_types_rules_run(
    monkeypatch: pytest.MonkeyPatch, lines: list[str], kind: str, ran: str, skipped: str
) -> None:
    document = _document(lines)
    assert classify(document.text)[0] == kind
    calls: list[str] = []
    for name in ("receipt_fields", "contract_fields", "invoice_fields"):
        _counting(monkeypatch, name, calls)
    extraction = LocalExtractor().extract_sync(document, None, None)
    assert extraction.document_type == kind
    assert ran in calls
    assert skipped not in calls


def test_every_document_type_has_an_extractor_and_unknown_types_get_the_general_one() -> None:
    assert set(documents.EXTRACTORS) == {"receipt", "invoice", "purchase_order", "contract"}
    found = documents.extract_fields("letter", _document(_CONTRACT), day_first=True)
    assert found.fields["jurisdiction"].value == "New York"
    assert found.fields["dates"].value == ["2021-01-15"]
