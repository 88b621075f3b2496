"""Payment slips printed with an invoice: the part a buyer tears off, or scans, to pay.

Real invoices often end with one, and it repeats the document's facts in words of its own:

- ``qr_bill``: a Swiss QR-bill (receipt and payment part, as the standard words them in German,
  French, Italian or English): the account and the payee, a payment reference of 27 digits or
  an ``RF`` creditor reference, additional information naming the invoice, the payer's block
  (the buyer again), the currency and the amount apart (``1 234.50`` whatever the invoice's own
  number format), and a QR code;
- ``stub``: a remittance stub below a cut line ("Please detach and return this portion with
  your payment"): remit-to address (the seller at a post-office box), account and invoice
  numbers, the due date, the amount due and an empty "amount enclosed" line;
- ``transfer``: a bank-transfer block: a sentence asking for the amount by the due date, the
  payee, IBAN and BIC, the amount with the currency code, a remittance reference joining the
  invoice and customer numbers, and a code to scan.

The amount a slip asks for is the balance due when the totals block prints one, else the
total. The option ``--payment-slips`` (``Variations(payment_slips=True)``) draws a slip for
three invoices in five, from a generator of its own (sets made without it are unchanged); on
half of them the slip starts a page of its own, as slips printed on the last page's foot do
when the page is full. None of a slip's strings is a field of the truth: the reference, the
customer number, the payer's block and an amount due below the total are decoys.
"""

from __future__ import annotations

import base64
import html
import io
import random
from decimal import Decimal

from PIL import Image, ImageDraw

__all__ = [
    "KINDS",
    "choose_slip",
    "code_png",
    "qr_reference",
    "rf_reference",
    "slip_html",
    "slip_texts",
    "swiss_amount",
]

#: The slips an invoice may print.
KINDS = ("qr_bill", "stub", "transfer")

# The QR-bill's words, as its standard prints them (English where the language has none).
_QR_WORDS: dict[str, dict[str, str]] = {
    "de": {"receipt": "Empfangsschein", "payment": "Zahlteil", "account": "Konto / Zahlbar an",
           "reference": "Referenz", "info": "Zusätzliche Informationen",
           "payer": "Zahlbar durch", "currency": "Währung", "amount": "Betrag",
           "point": "Annahmestelle", "invoice": "Rechnung"},
    "fr": {"receipt": "Récépissé", "payment": "Section paiement",
           "account": "Compte / Payable à", "reference": "Référence",
           "info": "Informations supplémentaires", "payer": "Payable par",
           "currency": "Monnaie", "amount": "Montant", "point": "Point de dépôt",
           "invoice": "Facture"},
    "it": {"receipt": "Ricevuta", "payment": "Sezione pagamento",
           "account": "Conto / Pagabile a", "reference": "Riferimento",
           "info": "Informazioni supplementari", "payer": "Pagabile da", "currency": "Valuta",
           "amount": "Importo", "point": "Punto di accettazione", "invoice": "Fattura"},
    "en": {"receipt": "Receipt", "payment": "Payment part", "account": "Account / Payable to",
           "reference": "Reference", "info": "Additional information",
           "payer": "Payable by", "currency": "Currency", "amount": "Amount",
           "point": "Acceptance point", "invoice": "Invoice"},
}  # fmt: skip

# A remittance stub's words: cut line, remit to, customer number, invoice number, due date,
# amount due, amount enclosed, and the post-office box.
_STUB_TABLE: dict[str, tuple[str, ...]] = {
    "en": ("Please detach and return this portion with your payment", "Remit to",
           "Account no.", "Invoice no.", "Due date", "Amount due", "Amount enclosed", "PO Box"),
    "de": ("Bitte abtrennen und mit Ihrer Zahlung zurücksenden", "Zahlung an", "Kunden-Nr.",
           "Rechnungs-Nr.", "Fällig am", "Zu zahlen", "Überwiesener Betrag", "Postfach"),
    "fr": ("Coupon à détacher et à joindre à votre règlement", "Règlement à l'ordre de",
           "N° client", "N° facture", "Échéance", "Montant à payer", "Montant joint", "BP"),
    "es": ("Recorte y devuelva esta parte con su pago", "Pagar a", "Nº cliente",
           "Nº factura", "Vencimiento", "Importe a pagar", "Importe adjunto", "Apartado"),
    "it": ("Staccare e restituire questa parte con il pagamento", "Pagamento a",
           "Codice cliente", "Fattura n.", "Scadenza", "Importo dovuto", "Importo allegato",
           "Casella postale"),
    "nl": ("Knip af en stuur dit deel mee met uw betaling", "Betalen aan", "Klantnummer",
           "Factuurnummer", "Vervaldatum", "Te betalen", "Bijgevoegd bedrag", "Postbus"),
    "pt": ("Destaque e devolva esta parte com o seu pagamento", "Pagar a", "Nº cliente",
           "Fatura n.º", "Vencimento", "Valor a pagar", "Valor anexo", "Apartado"),
    "ms": ("Sila ceraikan dan kembalikan bahagian ini bersama bayaran anda", "Bayar kepada",
           "No akaun", "No invois", "Tarikh akhir", "Amaun perlu dibayar", "Amaun disertakan",
           "Peti Surat"),
}  # fmt: skip

# A transfer block's words: heading, the request (amount, due date), payee, amount,
# remittance reference, the invoice and customer words inside it, and the code's caption.
_TRANSFER_TABLE: dict[str, tuple[str, ...]] = {
    "en": ("Payment details", "Please transfer {amount} by {due} to the account below.",
           "Payee", "Amount", "Payment reference", "Inv", "Cust", "Scan to pay"),
    "de": ("Zahlungsinformationen",
           "Bitte überweisen Sie {amount} bis zum {due} auf das folgende Konto.",
           "Empfänger", "Betrag", "Verwendungszweck", "RE", "KD", "Zahlen mit Code"),
    "fr": ("Informations de paiement",
           "Merci de virer {amount} avant le {due} sur le compte ci-dessous.", "Bénéficiaire",
           "Montant", "Référence du virement", "FACT", "CLT", "Scannez pour payer"),
    "es": ("Datos de pago", "Transfiera {amount} antes del {due} a la cuenta indicada.",
           "Beneficiario", "Importe", "Concepto", "FRA", "CLI", "Escanee para pagar"),
    "it": ("Dati di pagamento", "Si prega di bonificare {amount} entro il {due} sul conto.",
           "Beneficiario", "Importo", "Causale", "FT", "CL", "Inquadra per pagare"),
    "nl": ("Betaalgegevens", "Gelieve {amount} vóór {due} over te maken op onderstaande rekening.",
           "Begunstigde", "Bedrag", "Omschrijving", "FACT", "KL", "Scan om te betalen"),
    "pt": ("Dados de pagamento", "Transfira {amount} até {due} para a conta abaixo.",
           "Beneficiário", "Valor", "Referência", "FT", "CL", "Digitalize para pagar"),
    "ms": ("Maklumat bayaran", "Sila pindahkan {amount} sebelum {due} ke akaun di bawah.",
           "Penerima", "Amaun", "Rujukan", "INV", "PLG", "Imbas untuk bayar"),
}  # fmt: skip

# A transfer block's request on an invoice with no due date.
_OPEN_REQUEST = {
    "en": "Please transfer {amount} to the account below.",
    "de": "Bitte überweisen Sie {amount} auf das folgende Konto.",
    "fr": "Merci de virer {amount} sur le compte ci-dessous.",
    "es": "Transfiera {amount} a la cuenta indicada.",
    "it": "Si prega di bonificare {amount} sul conto.",
    "nl": "Gelieve {amount} over te maken op onderstaande rekening.",
    "pt": "Transfira {amount} para a conta abaixo.",
    "ms": "Sila pindahkan {amount} ke akaun di bawah.",
}

_STUB_KEYS = ("cut", "remit", "customer", "invoice", "due", "amount", "enclosed", "box")
_STUB_WORDS = {k: dict(zip(_STUB_KEYS, v, strict=True)) for k, v in _STUB_TABLE.items()}
_TRANSFER_KEYS = ("head", "request", "payee", "amount", "reference", "invoice", "customer", "scan")
_TRANSFER_WORDS = {k: dict(zip(_TRANSFER_KEYS, v, strict=True)) for k, v in _TRANSFER_TABLE.items()}

_SLIP_CSS = """
.slip{margin-top:26px;font-size:0.9em;break-inside:avoid}
.slip.apart{break-before:page}
.slip .cut{border-top:1.5px dashed #777;padding-top:4px;color:#555;font-size:0.85em;
  text-align:center;margin-bottom:10px}
.slip .grid{display:flex;gap:22px}
.slip .grid > div{flex:1}
.slip h3{font-size:1.05em;margin:0 0 6px}
.slip .head{font-weight:700;font-size:0.8em;margin-top:6px}
.slip .qr{display:flex;gap:16px;border-top:1px solid #000}
.slip .qr .receipt{width:52mm;border-right:1px dashed #000;padding:8px 10px 8px 0}
.slip .qr .pay{display:flex;gap:14px;padding:8px 0}
.slip .money{display:flex;gap:22px}
.slip .blank{display:inline-block;width:36mm;border-bottom:1px solid #000}
"""


def choose_slip(rng: random.Random, *, country: str, has_iban: bool) -> tuple[str, bool]:
    """Which slip one invoice prints (``""`` for none, two in five) and whether it starts a
    page of its own. A QR-bill is Swiss; a transfer block needs an IBAN."""
    if rng.random() < 0.4:
        return "", False
    apart = rng.random() < 0.5
    if country == "CH":
        return ("qr_bill" if rng.random() < 0.8 else "transfer"), apart
    if not has_iban:
        return "stub", apart
    return rng.choice(("stub", "transfer", "transfer")), apart


def qr_reference(rng: random.Random) -> str:
    """A 27-digit QR reference with its modulo-10 recursive check digit, printed in groups
    (2 digits, then fives)."""
    body = "".join(rng.choice("0123456789") for _ in range(26))
    table = (0, 9, 4, 6, 8, 2, 7, 1, 3, 5)
    carry = 0
    for ch in body:
        carry = table[(carry + int(ch)) % 10]
    digits = body + str((10 - carry) % 10)
    return " ".join((digits[:2], *(digits[i : i + 5] for i in range(2, 27, 5))))


def rf_reference(rng: random.Random) -> str:
    """An ISO 11649 creditor reference (``RF`` and two check digits), in groups of four."""
    body = "".join(
        rng.choice("0123456789ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(rng.randint(8, 16))
    )
    numeric = "".join(str(int(c, 36)) for c in body + "RF00")
    check = 98 - int(numeric) % 97
    ref = f"RF{check:02d}{body}"
    return " ".join(ref[i : i + 4] for i in range(0, len(ref), 4))


def swiss_amount(value: Decimal) -> str:
    """An amount as a QR-bill prints it: a space between thousands, a point before cents."""
    whole, cents = f"{value:.2f}".split(".")
    groups: list[str] = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    return " ".join((whole, *groups)) + "." + cents


def code_png(rng: random.Random, *, cross: bool) -> str:
    """A code to scan, drawn as a QR code looks (finder squares and random modules; it holds
    no data), as a data URI; ``cross`` puts the Swiss cross in its middle."""
    n, px = 33, 4
    image = Image.new("RGB", (n * px, n * px), "white")
    draw = ImageDraw.Draw(image)
    for y in range(n):
        for x in range(n):
            if rng.random() < 0.5:
                draw.rectangle((x * px, y * px, x * px + px - 1, y * px + px - 1), fill="black")
    for fx, fy in ((0, 0), (n - 7, 0), (0, n - 7)):
        draw.rectangle((fx * px, fy * px, (fx + 8) * px - 1, (fy + 8) * px - 1), fill="white")
        draw.rectangle((fx * px, fy * px, (fx + 7) * px - 1, (fy + 7) * px - 1), fill="black")
        draw.rectangle(((fx + 1) * px, (fy + 1) * px, (fx + 6) * px - 1, (fy + 6) * px - 1),
                       fill="white")  # fmt: skip
        draw.rectangle(((fx + 2) * px, (fy + 2) * px, (fx + 5) * px - 1, (fy + 5) * px - 1),
                       fill="black")  # fmt: skip
    if cross:
        c = n * px // 2
        draw.rectangle((c - 14, c - 14, c + 14, c + 14), fill="black")
        draw.rectangle((c - 3, c - 10, c + 3, c + 10), fill="white")
        draw.rectangle((c - 10, c - 3, c + 10, c + 3), fill="white")
    out = io.BytesIO()
    image.save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def slip_texts(
    kind: str,
    *,
    language: str,
    number: str,
    due: str,
    amount: str,
    rng: random.Random,
) -> tuple[dict[str, str], list[str]]:
    """A slip's printed strings that are drawn (references, customer number, box) and the
    decoys among them. ``amount`` is the amount due as the invoice prints it."""
    texts: dict[str, str] = {}
    decoys: list[str] = []
    if kind == "qr_bill":
        ref = qr_reference(rng) if rng.random() < 0.6 else rf_reference(rng)
        texts["reference"] = ref
        decoys.append(ref)
        words = _QR_WORDS.get(language, _QR_WORDS["en"])
        texts["info"] = f"{words['invoice']} {number}"
    elif kind == "stub":
        customer = f"{rng.randint(10000, 999999)}"
        texts["customer"] = customer
        texts["box"] = f"{_STUB_WORDS[language]['box']} {rng.randint(100, 99999)}"
        decoys += [customer]
    else:
        customer = f"{rng.randint(1000, 99999)}"
        words = _TRANSFER_WORDS[language]
        if rng.random() < 0.3:
            texts["reference"] = rf_reference(rng)
        else:
            texts["reference"] = f"{words['invoice']} {number} {words['customer']} {customer}"
        decoys.append(customer)
        request = words["request"] if due else _OPEN_REQUEST[language]
        texts["request"] = request.format(amount=amount, due=due)
    return texts, decoys


def slip_html(
    kind: str,
    apart: bool,
    texts: dict[str, str],
    *,
    language: str,
    payee: tuple[str, ...],
    payer: tuple[str, ...],
    number: str,
    due: str,
    amount: str,
    plain: str,
    due_amount: Decimal,
    currency: str,
    iban: str,
    bic: str,
    rng: random.Random,
) -> str:
    """The slip as HTML (its ``<style>`` first). ``payee`` and ``payer`` are name and address
    lines; ``amount`` is the amount due as the invoice prints it (``plain`` without its currency
    mark), ``due_amount`` its value."""
    e = _escape
    cls = "slip apart" if apart else "slip"
    rows = "".join

    def labelled(label: str, value: str, *, raw: bool = False) -> str:
        return f"<div><span class='label'>{e(label)}:</span> {value if raw else e(value)}</div>"

    def block(head: str, lines: tuple[str, ...] | list[str]) -> str:
        return f"<div class='head'>{e(head)}</div>" + rows(f"<div>{e(t)}</div>" for t in lines)

    if kind == "qr_bill":
        w = _QR_WORDS.get(language, _QR_WORDS["en"])
        account = (" ".join(iban[i : i + 4] for i in range(0, len(iban), 4)), *payee)
        money = (
            f"<div class='money'><div>{block(w['currency'], [currency])}</div>"
            f"<div>{block(w['amount'], [swiss_amount(due_amount)])}</div></div>"
        )
        receipt = (
            f"<div class='receipt'><h3>{e(w['receipt'])}</h3>{block(w['account'], account)}"
            f"{block(w['reference'], [texts['reference']])}{block(w['payer'], payer)}{money}"
            f"<div class='head' style='text-align:right'>{e(w['point'])}</div></div>"
        )
        code = f"<img src='{code_png(rng, cross=True)}' width='170' height='170' alt=''>"
        pay = (
            f"<div class='pay'><div><h3>{e(w['payment'])}</h3>{code}{money}</div><div>"
            f"{block(w['account'], account)}{block(w['reference'], [texts['reference']])}"
            f"{block(w['info'], [texts['info']])}{block(w['payer'], payer)}</div></div>"
        )
        body = f"<div class='qr'>{receipt}{pay}</div>"
    elif kind == "stub":
        w = _STUB_WORDS[language]
        remit = (payee[0], texts["box"], *payee[2:])
        numbers = [labelled(w["customer"], texts["customer"]), labelled(w["invoice"], number)]
        if due:
            numbers.append(labelled(w["due"], due))
        numbers += [
            labelled(w["amount"], f"<b>{e(amount)}</b>", raw=True),
            labelled(w["enclosed"], "<span class='blank'></span>", raw=True),
        ]
        body = (
            f"<div class='cut'>✂ {e(w['cut'])}</div><div class='grid'>"
            f"<div>{block(w['remit'], remit)}</div><div>{rows(numbers)}</div>"
            f"<div>{block('', payer)}</div></div>"
        )
    else:
        w = _TRANSFER_WORDS[language]
        pairs = [
            (w["payee"], payee[0]),
            ("IBAN", " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))),
            *((("BIC", bic),) if bic else ()),
            (w["amount"], f"{currency} {plain}" if rng.random() < 0.5 else amount),
            (w["reference"], texts["reference"]),
        ]
        table = rows(labelled(k, v) for k, v in pairs)
        code = f"<img src='{code_png(rng, cross=False)}' width='110' height='110' alt=''>"
        body = (
            f"<h3>{e(w['head'])}</h3><p>{e(texts['request'])}</p>"
            f"<div class='grid'><div>{table}</div>"
            f"<div>{code}<div class='label'>{e(w['scan'])}</div></div></div>"
        )
    return f"<style>{_SLIP_CSS}</style><section class='{cls}'>{body}</section>"


def _escape(text: str) -> str:
    return html.escape(text, quote=True)
