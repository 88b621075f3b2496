"""Invoices that end with a payment slip: a factory option that leaves every seed's other
sets as they were, whose slips repeat the payee, payer and amount due in words of their own,
with references whose check digits hold."""

from __future__ import annotations

import html
import random
import re
from decimal import Decimal

from renderkit.parsing.synth import Variations, make_documents
from renderkit.parsing.synth.render import invoice_html
from renderkit.parsing.synth.slips import KINDS, qr_reference, rf_reference, swiss_amount

from ._synth_options import drawn_invoices


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_payment_slips_leave_a_seeds_documents_as_they_were_without_the_option() -> None:
    pairs = drawn_invoices("payment_slips", seed=80, count=40, drawn=lambda d: bool(d.layout.slip))
    for plain, slipped in pairs:
        assert not plain.layout.slip
        assert plain.truth()["expected"] == slipped.truth()["expected"]
    assert 15 <= len(pairs) <= 35


def test_every_slip_repeats_the_payee_and_the_amount_due_and_swiss_ones_are_qr_bills() -> None:
    docs = make_documents("invoice", 120, 81, Variations(payment_slips=True, far_locales=True))
    seen: set[str] = set()
    for doc in (d for d in docs if d.layout.slip):
        seen.add(doc.layout.slip)
        text = _text(invoice_html(doc))
        due = doc.after[-1][1] if doc.after else doc.total
        # The payee's name is printed once more in the slip, after the page's own mentions.
        assert text.count(doc.issuer.name) >= 2
        if doc.layout.slip == "qr_bill":
            assert doc.layout.locale.country == "CH"
            assert swiss_amount(due) in text
            assert doc.extras["slip_reference"] in text
        else:
            assert " ".join(doc.amount(due, mark=False).split()) in text
        if doc.layout.slip == "transfer":
            # The request names the due date when the invoice has one, and none otherwise.
            due_text = doc.printed.get("due_date")
            request = doc.extras["slip_request"]
            assert (due_text in request) if due_text else "—" not in request
        if doc.layout.slip == "stub":
            assert doc.number in text.split("✂")[-1]
        slip_decoys = [d.text for d in doc.decoys if d.role == "slip"]
        assert slip_decoys and doc.number not in slip_decoys
    assert seen == set(KINDS)


def test_qr_references_and_creditor_references_carry_valid_check_digits() -> None:
    rng = random.Random(5)
    table = (0, 9, 4, 6, 8, 2, 7, 1, 3, 5)
    for _ in range(50):
        digits = qr_reference(rng).replace(" ", "")
        assert len(digits) == 27 and digits.isdigit()
        carry = 0
        for ch in digits:
            carry = table[(carry + int(ch)) % 10]
        assert carry == 0  # the modulo-10 recursive check over all 27 digits
        ref = rf_reference(rng).replace(" ", "")
        assert ref.startswith("RF")
        moved = ref[4:] + ref[:4]
        assert int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def test_swiss_amounts_group_thousands_with_spaces_and_a_point_before_cents() -> None:
    assert swiss_amount(Decimal("1234567.5")) == "1 234 567.50"
    assert swiss_amount(Decimal("83965.2")) == "83 965.20"
    assert swiss_amount(Decimal("12")) == "12.00"
