"""Invoices whose seller the rules are, and are not, sure of (invented names only)."""

from __future__ import annotations

from ._documents import text_pdf

#: Two name-like lines above the title, no legal form: the rules take the first, unsure.
UNSURE_LINES = [
    "Harbourline Studio",
    "Quillmore Paper Supplies",
    "INVOICE",
    "Invoice no: 2024-118",
    "Date: 3 March 2024",
    "Design work 1 120.00",
    "Total: 120.00",
]
UNSURE = text_pdf([UNSURE_LINES])
UNSURE_CANDIDATES = ("Harbourline Studio", "Quillmore Paper Supplies")

#: A name with a legal form under a stamp word: the rules are sure.
SURE = text_pdf(
    [
        [
            "PAID",
            "Northvale Ceramics Ltd",
            "Brightfield Lamps Ltd",
            "Invoice number: 77",
            "Date: 3 March 2024",
            "Total: 50.00",
        ]
    ]
)

#: A till receipt whose first two lines could each be the shop's name.
RECEIPT = text_pdf(
    [
        [
            "Sunny Bakes",
            "Pinecrest Cafe",
            "12 Mill Road, Leeds LS1 4AB",
            "Date: 03/04/2024 10:15",
            "Latte 2.50",
            "Scone 3.00",
            "TOTAL 5.50",
            "CASH 10.00",
            "CHANGE 4.50",
            "Thank you",
        ]
    ]
)

#: A contract: its parties are a list, never one of a few candidates.
CONTRACT = text_pdf(
    [
        [
            "Harbourline Studio",
            "Quillmore Paper Supplies",
            "MUTUAL NON-DISCLOSURE AGREEMENT",
            "This Agreement is made on 3 March 2024 between Harbourline Studio",
            '("Discloser") and Quillmore Paper Supplies ("Recipient").',
            "The Recipient shall keep the Confidential Information secret.",
            "This Agreement is governed by the laws of England and Wales.",
        ]
    ]
)
