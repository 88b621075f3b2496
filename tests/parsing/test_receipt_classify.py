"""Till receipts printed "TAX INVOICE" take the receipt path; invoices stay invoices."""

from __future__ import annotations

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.classify import classify
from renderkit.parsing.extract.receipt import prints_invoice_label, till_receipt
from renderkit.parsing.rules import LocalExtractor

from .test_invoice import _page

_TILL = """TAX INVOICE
LAMPU TERANG TRADING
12, JALAN MERAH 3
Invoice No : 4711
Date : 02/03/2021 14:05
Cashier : ANNA
1 BULB 12.50
TOTAL 12.50
CASH 20.00
CHANGE 7.50
"""

_INVOICE = """INVOICE
Bright Lamps Ltd
Invoice No: 4711
Invoice date: 02/03/2021 14:05
Bill to: Northwind Traders
Due date: 02/04/2021
1 Bulb 12.50
Total 12.50
Paid by cash 12.50
"""


def test_a_till_receipt_titled_tax_invoice_is_classified_as_a_receipt() -> None:
    assert classify(_TILL)[0] == "receipt"


def test_an_invoice_with_a_buyer_block_and_a_due_date_stays_an_invoice() -> None:
    assert classify(_INVOICE)[0] == "invoice"


def test_a_card_payment_and_a_timed_date_are_enough_till_cues() -> None:
    text = "TAX INVOICE\nInvoice number: 88\n03/05/22 08:28\nTotal RM 10.00\nVisa RM 10.00"
    assert till_receipt(text)


def test_one_till_cue_alone_does_not_make_a_receipt() -> None:
    assert not till_receipt("INVOICE\nInvoice number: 88\n03/05/22 08:28\nTotal 10.00")


def test_payment_terms_rule_out_a_till_receipt() -> None:
    text = "INVOICE\nCASH 20.00\nCHANGE 7.50\nPayment terms: 30 days net"
    assert not till_receipt(text)


def test_an_invoices_bank_details_outweigh_keywords_it_shares_with_receipts() -> None:
    # "Tax Invoice", a quantity column, a total and a rounding line score as a receipt's
    # keywords; no receipt prints a buyer block or an IBAN.
    text = (
        "Tax Invoice\nDoc. code: 4711\nBilled to\nNorthwind Traders\n"
        "Pos Item Qty Rate Amount\n1 Cable set 1 1281.89 1281.89\n"
        "Total charge 1281.89\nRounding -0.02\nIBAN no: GB71 MIYU 3186 1939 5931 38\n"
    )
    assert classify(text)[0] == "invoice"


def test_cash_and_change_printed_in_another_lexicon_language_are_till_cues() -> None:
    # "Total da fatura" scores as an invoice; cash tendered and change given make a receipt.
    text = (
        "Tovarin Lda.\nSIMPLIFIED TAX INVOICE\nTALÃO N.º: R157761\nDATA: 10-07-2025 19:36\n"
        "CAFÉ 1 x 2,50 2,50\nTOTAL DA FATURA EUR 2,50\nNUMERÁRIO 5,00\nTROCO 2,50\n"
    )
    assert till_receipt(text)
    assert classify(text)[0] == "receipt"


def test_a_print_stamps_time_is_no_till_cue() -> None:
    # A balance line reads as change given; the time is the page's print stamp ("Halaman 1":
    # its page number), not a sale's: one till cue, so an invoice stays an invoice.
    text = (
        "INVOIS\nRujukan dokumen: 0019730\nKeterangan Kadar Kuantiti Jumlah\n"
        "Khidmat nasihat 307.31 1 307.31\nJumlah barangan MYR 307.31\n"
        "Baki MYR 307.31\nDicetak pada 2019-06-07 13:20:25 Halaman 1\n"
    )
    assert not till_receipt(text)
    assert classify(text)[0] == "invoice"
    # The same time as a sale's, without the page number, is the second cue.
    assert till_receipt(text.replace(" Halaman 1", ""))


# A photographed "Tax Invoice" whose head OCR read as one line per row: the buyer block's
# label ends the invoice number's line, and the summary shows a payment and a rounding.
_MERGED_HEAD = """Kavera Textiles Pvt. Ltd.
Tax Invoice
Number: KT-118 Billed to
Invoice date: 14-03-2024 Northwind Traders
Subtotal 1,43,250.00
IGST 18 % 25,785.00
Total after rounding 1,69,035.00
Payment received -69,035.00
Balance 1,00,000.00
"""


def test_a_buyer_label_that_ends_a_merged_line_keeps_an_invoice_with_till_cues() -> None:
    # receipt._invoice_label: a buyer's label ending a line OCR merged marks an invoice.
    assert classify(_MERGED_HEAD)[0] == "invoice"
    # The label must end its line: words after it are not a block's label (a page with two
    # till cues of its own, cash tendered and change given).
    till = "Tax Invoice\nNumber: KT-118 Billed to{}\nTotal 12.50\nCASH 20.00\nCHANGE 7.50"
    assert not till_receipt(till.format(""))
    assert till_receipt(till.format(" Northwind"))


# A business letter's invoice: a one-line return address over the buyer's window address (no
# label), and a summary with a rounding and the amount to pay, as tills print too.
_LETTER = """Skimplort Supply
Invoice
Skimplort Supply Corp. · 49 Plair Road · Zokton, BC Y9T 2J8
Doc. ref. code: 2024/85919
Vastbia Services Inc. Date raised: February 6, 2024
230 Grox Road Order no: PO-73267
Punton, AB L4H 2Y6
Pos Item Quantity Unit price Total
1 Office chair 3 850.87 2,552.61
Total hours: 116.00
Discount CAD -51.05
Shipping CAD 42.63
Total charge CAD 2,544.19
Rounding CAD -0.02
Amount to pay CAD 2,544.17
Bank transfer
March 15, 2024 CAD 2,544.19
"""


def test_a_business_letters_return_address_keeps_it_an_invoice() -> None:
    # receipt.prints_invoice_label: the receipt's keywords (a total, a rounding, an amount
    # to pay) outweighed the title, and no label said invoice.
    assert classify(_LETTER)[0] == "invoice"
    # Written with commas, the same line is any address a till prints.
    assert not prints_invoice_label(_LETTER.replace(" · ", ", "))


# An invoice whose page reads like a till's: "Tax Invoice", a one-word buyer label, no wording
# the lexicons hold for its due date, and below its total a previous balance, a deposit, a
# payment received and a rounding line.
_TILL_LIKE_INVOICE = [
    (0.05, 0.04, "Souxjiazu Industries Private Limited"),
    (0.05, 0.06, "22 Vasjond Marg"),
    (0.05, 0.12, "Tax Invoice"),
    (0.05, 0.15, "Client"),
    (0.05, 0.17, "Guxkirgu Pvt. Ltd."),
    (0.05, 0.20, "Doc. ref. code: INV 21-35463"),
    (0.05, 0.22, "Dated: 13 Nov 2021"),
    (0.05, 0.24, "Payment deadline: 20 Nov 2021"),
    (0.05, 0.26, "Order no: PO-90684"),
    (0.05, 0.32, "Line"), (0.20, 0.32, "Qty"), (0.40, 0.32, "Description"),
    (0.80, 0.32, "Line total"),
    (0.05, 0.34, "1"), (0.20, 0.34, "40"), (0.40, 0.34, "Consulting hours"),
    (0.80, 0.34, "42,68,224.00"),
    (0.50, 0.40, "Total charge"), (0.80, 0.40, "Rs. 42,68,224.00"),
    (0.50, 0.42, "Previous balance"), (0.80, 0.42, "Rs. 31,22,110.50"),
    (0.50, 0.44, "Deposit"), (0.80, 0.44, "Rs. -7,25,598.08"),
    (0.50, 0.46, "Payment received"), (0.80, 0.46, "Rs. -4,10,000.00"),
    (0.50, 0.48, "Rounding"), (0.80, 0.48, "Rs. -0.01"),
    (0.50, 0.50, "Amount payable"), (0.80, 0.50, "Rs. 62,54,736.41"),
]  # fmt: skip


def test_a_schema_asking_for_an_invoices_fields_makes_a_till_like_page_an_invoice() -> None:
    # rules.LocalExtractor._found: the type came from the page alone, which reads like a till
    # receipt here, so the receipt rules took the order number for the number. The schema's
    # property names count toward the type as hints do.
    document = Document(
        mime_type="application/pdf", content=b"", pages=(_page(_TILL_LIKE_INVOICE),)
    )
    assert classify(document.text)[0] == "receipt"
    schema = {"properties": {"invoice_number": {}, "due_date": {}, "iban": {}, "total": {}}}
    extraction = LocalExtractor().extract_sync(document, schema, None)
    assert extraction.document_type == "invoice"
    assert extraction.data["invoice_number"] == "INV 21-35463"
    assert extraction.data["due_date"] == "2021-11-20"
    # A receipt's schema leaves the page's own reading as it was.
    receipt = LocalExtractor().extract_sync(document, {"properties": {"total": {}}}, None)
    assert receipt.document_type == "receipt"


# An invoice's summary, settled in part: no due date, no bank details, the buyer under no
# label, and words a till prints too.
_SETTLED = """Tax Invoice
Invoice number: DE78419
Invoice date: 21 November 2025
Pos Quantity Items Unit price Amount
1 40 Maintenance visit 906.58 36,263.20
Total A$ 42,506.10
Previous balance A$ 27,628.96
Payment received A$ -3,825.55
Balance due A$ 66,309.51
"""


def test_an_invoices_balance_owed_credited_payment_and_pos_column_are_no_till_cues() -> None:
    assert not till_receipt(_SETTLED)
    assert classify(_SETTLED)[0] == "invoice"
    # Each beside one real till cue (a rounding line) is not the second.
    for line in (
        "Pos Qty. Description Unit price Line total",
        "Previous balance 27,628.96",
        "Balance due 66,309.51",
        "Payment received -3,825.55",
    ):
        assert not till_receipt(f"INVOICE\nTotal 12.50\nRounding 0.02\n{line}"), line
    # A bare "Balance" is an invoice's balance unless an amount tendered stands above it.
    assert not till_receipt("INVOICE\nTotal 10,513.41\nRounding -0.04\nBalance 10,513.41")
    assert till_receipt("TAX INVOICE\nTotal 12.50\nCASH 20.00\nBalance 7.50")
    # A till's own cues in the same words still make a receipt.
    till = "TAX INVOICE\nPOS 01 Cashier: ANNA\nTotal 12.50\nPayment received 20.00\nBalance 7.50"
    assert till_receipt(till)
    assert classify(till)[0] == "receipt"


def test_a_return_address_line_wrapped_after_its_street_is_an_invoice_label() -> None:
    text = "INVOICE\nAcme Pvt. Limited · 114 Main Road ·\nPune - 411001\nRounding 0.04\nQty 3"
    assert prints_invoice_label(text)
    assert not prints_invoice_label("INVOICE\nAcme · Main Road ·\nQty 3")
