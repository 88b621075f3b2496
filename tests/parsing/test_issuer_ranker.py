"""The learned issuer ranker: letterheads built to trip the party rules' fixed order (a slogan
above the name, a trade name over the legal line, the buyer's block first), the candidates'
hard constraints, the shipped model file and the factory's hard letterheads."""

from __future__ import annotations

import html
import json
from importlib import resources

from renderkit.parsing._protocol import Document, Line, Page, Word
from renderkit.parsing.extract.invoice import invoice_fields, invoice_issuer_candidates
from renderkit.parsing.extract.keyvalues import key_values
from renderkit.parsing.extract.parties import parties
from renderkit.parsing.layout.model import layout_document
from renderkit.parsing.rank.issuer import ISSUER_FEATURES
from renderkit.parsing.rank.model import load_ranker
from renderkit.parsing.synth import Variations, make_document, make_documents
from renderkit.parsing.synth.render import invoice_html

_TEXT = 0.012


def _document(cells: list[tuple[float, float, str, float]]) -> Document:
    """A page of words at (x, y) fractions, each cell's words ``h`` high."""
    lines = []
    for x, y, text, h in cells:
        words = []
        for part in text.split():
            width = 0.75 * h * len(part)
            words.append(Word(text=part, page=1, bbox=(x, y, x + width, y + h)))
            x += width + 0.5 * h
        lines.append(Line(words=tuple(words), page=1))
    page = Page(number=1, lines=tuple(lines), source="text", width=600, height=800)
    return Document(mime_type="application/pdf", content=b"", pages=(page,))


_BODY = [
    (0.60, 0.20, "Invoice No: INV-5120", _TEXT),
    (0.60, 0.22, "Invoice date: 03.03.2024", _TEXT),
    (0.05, 0.40, "Description", _TEXT), (0.60, 0.40, "Amount", _TEXT),
    (0.05, 0.42, "Garden maintenance", _TEXT), (0.60, 0.42, "1.200,00", _TEXT),
    (0.45, 0.50, "Total", _TEXT), (0.60, 0.50, "1.200,00 EUR", _TEXT),
]  # fmt: skip

# A slogan in big type above the name; the name has no legal form, and the footer's legal line
# repeats it.
SLOGAN = [
    (0.05, 0.03, "Fresh ideas for every garden", 0.024),
    (0.05, 0.07, "KELVORA TRADING", 0.016),
    (0.05, 0.09, "12 Orchard Row", _TEXT),
    (0.05, 0.11, "Bramfield AB1 2CD", _TEXT),
    (0.05, 0.13, "info@kelvora.example", _TEXT),
    *_BODY,
    (0.05, 0.92, "KELVORA TRADING · Since 1998", _TEXT),
]

# A trade name in the logo; the legal line in the footer spells the whole name.
TRADE = [
    (0.05, 0.03, "MARVOSK", 0.026),
    (0.05, 0.08, "7 Quarry Lane", _TEXT),
    (0.05, 0.10, "Lowmoor ZX9 8YW", _TEXT),
    (0.05, 0.12, "office@marvosk.example", _TEXT),
    *_BODY,
    (0.05, 0.92, "Marvosk Print Works · 7 Quarry Lane · Lowmoor", _TEXT),
]

# The buyer's address first (a window envelope's place), the seller's letterhead below it in
# bigger type.
BUYER_FIRST = [
    (0.05, 0.03, "Invoice to:", _TEXT),
    (0.05, 0.05, "Dunmere Hotels Ltd", _TEXT),
    (0.05, 0.07, "3 Harbour Road", _TEXT),
    (0.05, 0.09, "Saltby QQ1 1QQ", _TEXT),
    (0.05, 0.111, "Tolvane Gardens", 0.02),
    (0.05, 0.135, "44 Meadow Street", _TEXT),
    (0.05, 0.155, "contact@tolvane.example", _TEXT),
    *[(x, y + 0.05, t, h) for x, y, t, h in _BODY],
    (0.05, 0.92, "Tolvane Gardens · Since 1987", _TEXT),
]


def _issuer(cells: list[tuple[float, float, str, float]], ranker: bool) -> str:
    return str(invoice_fields(_document(cells), issuer_ranker=ranker).fields["company"].value)


def test_a_slogan_above_the_name_is_the_rules_pick_but_not_the_rankers() -> None:
    assert _issuer(SLOGAN, ranker=False) == "Fresh ideas for every garden"
    assert _issuer(SLOGAN, ranker=True) == "KELVORA TRADING"


def test_a_trade_name_in_the_logo_loses_to_the_legal_line_that_contains_it() -> None:
    assert _issuer(TRADE, ranker=False) == "MARVOSK"
    found = invoice_fields(_document(TRADE), issuer_ranker=True).fields["company"]
    assert found.value == "Marvosk Print Works"
    # The trade name stays a rival for the arbiter.
    assert "MARVOSK" in [a.value for a in found.alternatives]


def test_the_buyers_block_stops_at_the_letterhead_below_it_and_is_never_the_issuer() -> None:
    document = _document(BUYER_FIRST)
    layouts = layout_document(document)
    (buyer,) = [p for p in parties(layouts, key_values(layouts)) if p.role == "customer"]
    assert buyer.name == "Dunmere Hotels Ltd"
    assert "Tolvane Gardens" not in buyer.text
    candidates, _ = invoice_issuer_candidates(document)
    assert all("Dunmere" not in c.value for c in candidates)
    assert _issuer(BUYER_FIRST, ranker=True) == "Tolvane Gardens"


# The buyer named by a "Customer name:" label, spelled out, and abbreviated in its address
# block below the seller's letterhead; the seller's name carries no legal form.
BUYER_NAMED = [
    (0.05, 0.03, "HALVERN TOOLS", 0.016),
    (0.05, 0.06, "9 Forge Street", _TEXT),
    (0.55, 0.06, "Customer name: ORBELL SUPPLY CORPORATION", _TEXT),
    (0.05, 0.08, "Ashcombe KT1 4RR", _TEXT),
    (0.55, 0.08, "Customer ID: C-2291", _TEXT),
    (0.05, 0.13, "Orbell Supply Corp", _TEXT),
    (0.05, 0.15, "1 Wharf Road", _TEXT),
    *[(x, y + 0.05, t, h) for x, y, t, h in _BODY],
]


def test_a_buyer_named_by_its_label_is_no_issuer_however_its_legal_form_is_spelled() -> None:
    document = _document(BUYER_NAMED)
    layouts = layout_document(document)
    (buyer,) = [p for p in parties(layouts, key_values(layouts)) if p.role == "customer"]
    assert buyer.name == "ORBELL SUPPLY CORPORATION"
    candidates, _ = invoice_issuer_candidates(document)
    # Neither the labelled line nor the abbreviated name is a candidate.
    assert [c.value for c in candidates if "rbell" in c.value.casefold()] == []
    assert _issuer(BUYER_NAMED, ranker=True) == "HALVERN TOOLS"
    assert _issuer(BUYER_NAMED, ranker=False) == "HALVERN TOOLS"


# A legal name too long for one line of the letterhead, wrapped in the same type; then the
# same letterhead with a slogan, written as a sentence, above a name that fits one line.
WRAPPED = [
    (0.05, 0.03, "Nordhalde Gegenseitige", 0.014),
    (0.05, 0.048, "Versicherungsverein Bergstadt a.G.", 0.014),
    (0.05, 0.09, "Am Markt 3", _TEXT),
    (0.05, 0.11, "12345 Bergstadt", _TEXT),
    *_BODY,
]
SLOGAN_SAME_TYPE = [
    (0.05, 0.03, "Quality work since 1998", 0.014),
    (0.05, 0.048, "Nordhalde Werkzeug GmbH", 0.014),
    (0.05, 0.09, "Am Markt 3", _TEXT),
    *_BODY,
]


def test_a_legal_name_wrapped_over_two_letterhead_lines_is_read_whole() -> None:
    assert _issuer(WRAPPED, ranker=True) == (
        "Nordhalde Gegenseitige Versicherungsverein Bergstadt a.G."
    )
    candidates, _ = invoice_issuer_candidates(_document(SLOGAN_SAME_TYPE))
    assert all(not c.value.startswith("Quality work since 1998 ") for c in candidates)
    assert _issuer(SLOGAN_SAME_TYPE, ranker=True) == "Nordhalde Werkzeug GmbH"


# A return address in small type, its separator read as a hyphen ("OG- Street"), over the
# window's name in the same small type: two names, not one wrapped over two lines.
RETURN_OVER_WINDOW = [
    (0.05, 0.03, "Lundrel", 0.024),
    (0.05, 0.10, "Lundrel OG- Feirteis", 0.010),
    (0.05, 0.112, "Jirlast Holzbau GesbR", 0.010),
    (0.05, 0.124, "Kekgasse 135", _TEXT),
    *_BODY,
]  # fmt: skip


def test_a_line_holding_a_legal_form_is_no_first_line_of_a_wrapped_name() -> None:
    candidates, _ = invoice_issuer_candidates(_document(RETURN_OVER_WINDOW))
    values = [c.value for c in candidates]
    assert "Lundrel OG- Feirteis Jirlast Holzbau GesbR" not in values
    assert "Lundrel OG" in values


def test_the_candidates_features_see_the_footer_line_the_mail_domain_and_containment() -> None:
    candidates, rows = invoice_issuer_candidates(_document(TRADE))
    named = {
        c.value: dict(zip(ISSUER_FEATURES, r, strict=True))
        for c, r in zip(candidates, rows, strict=True)
    }
    assert named["Marvosk Print Works"]["footer"] == 1.0
    assert named["Marvosk Print Works"]["holds_another"] == 1.0
    assert named["MARVOSK"]["in_a_legal_name"] == 1.0
    assert named["MARVOSK"]["mail_domain"] == 1.0 and named["MARVOSK"]["tallest_top"] == 1.0


# The seller's name as the letterhead in big type and again under a remittance slip's "Remit
# to", the buyer's name in the window under it: the candidate is described by the letterhead.
REMIT_TO = [
    (0.05, 0.04, "Drunmoor Logistics Limited", 0.024),
    (0.05, 0.12, "Hilkirst Solutions Limited", 0.016),
    (0.05, 0.14, "74 Tan Avenue", 0.014),
    *_BODY,
    (0.05, 0.80, "Remit to", _TEXT),
    (0.05, 0.82, "Drunmoor Logistics Limited", _TEXT),
    (0.05, 0.84, "PO Box 82271", _TEXT),
]  # fmt: skip


def test_a_name_is_described_by_the_line_printing_it_first() -> None:
    candidates, rows = invoice_issuer_candidates(_document(REMIT_TO))
    named = {c.value: c for c in candidates}
    seller = named["Drunmoor Logistics Limited"]
    assert {"seller_block", "top_text"} <= seller.sources
    assert seller.segment.bbox[1] < 0.1
    features = dict(zip(ISSUER_FEATURES, rows[candidates.index(seller)], strict=True))
    assert features["tallest_top"] == 1.0 and features["low"] == 0.0
    assert _issuer(REMIT_TO, ranker=True) == "Drunmoor Logistics Limited"


def test_a_confident_issuer_needs_its_rivals_to_be_unlikely() -> None:
    found = invoice_fields(_document(TRADE), issuer_ranker=True).fields["company"]
    ranker = load_ranker("invoice_issuer", ISSUER_FEATURES)
    _, rows = invoice_issuer_candidates(_document(TRADE))
    probabilities = [ranker.probability(ranker.score(r)) for r in rows]
    assert found.confidence <= max(probabilities) + 1e-3
    assert found.confidence <= max(probabilities) / sum(probabilities) + 1e-3


def test_the_shipped_issuer_model_loads_and_says_how_it_was_trained() -> None:
    ranker = load_ranker("invoice_issuer", ISSUER_FEATURES)
    assert ranker.features == ISSUER_FEATURES
    data = json.loads(
        resources.files("renderkit.parsing.models").joinpath("invoice_issuer.json").read_text()
    )
    training = data["training"]
    assert "--field issuer" in training["command"] and training["seed"] == 0
    assert all("seed 1 " not in s and "seed 9001" not in s for s in training["sets"])
    assert 0.8 < training["top1_held_out_folds"] <= 1.0


def test_hard_letterheads_are_printed_only_when_asked_and_keep_the_legal_name_as_truth() -> None:
    plain = make_documents("invoice", 12, 17)
    hard = [make_document("invoice", i, 17, Variations(hard_issuers=True)) for i in range(40)]
    styles = {s for d in hard for s in d.layout.issuer_style}
    assert styles == {"trade", "slogan", "buyer_top"}
    for before, doc in zip(plain, hard[: len(plain)], strict=True):
        assert doc.expected == before.expected
    for doc in hard:
        page = invoice_html(doc)
        if "trade_name" in doc.extras:
            # The header shows the trade name; the legal name is still printed (the footer).
            assert html.escape(doc.extras["trade_name"], quote=True) in page
            assert f"{html.escape(doc.issuer.name, quote=True)} · " in page
        if "slogan" in doc.extras:
            assert page.index("class='slogan'") < page.index("<header>")
