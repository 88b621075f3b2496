"""Documents as HTML: A4 invoices with varied headers, party blocks and tables, and receipts as
narrow thermal-printer slips in a monospace font (fixed columns, as tills print them)."""

from __future__ import annotations

import base64
import html
import io
import random
from decimal import Decimal

import attrs
from PIL import Image, ImageDraw

from renderkit.parsing.synth import line_taxes, slips, spacing
from renderkit.parsing.synth.documents import SynthDocument

__all__ = ["ReceiptPage", "invoice_fragment", "invoice_html", "receipt_lines", "receipt_page"]

_PAPER = {"58": "#fdfdfb", "80": "#fbfaf6"}
_INK = ("#1a1a1a", "#22313f", "#2b2b40", "#1d3a2f")
_ACCENT = ("#2f5d8a", "#8a2f4f", "#2f8a6a", "#7a5a1f", "#444444", "#5b3f8a")


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _logo_png(name: str, rng: random.Random, accent: str) -> str:
    """A generated logo mark (shapes and initials, drawn with Pillow) as a data URI."""
    size = 96
    image = Image.new("RGBA", (size, size), (255, 255, 255, 0))
    draw = ImageDraw.Draw(image)
    colour = tuple(int(accent[i : i + 2], 16) for i in (1, 3, 5))
    shape = rng.randrange(3)
    if shape == 0:
        draw.ellipse((4, 4, size - 4, size - 4), fill=(*colour, 255))
    elif shape == 1:
        draw.rounded_rectangle((4, 4, size - 4, size - 4), radius=18, fill=(*colour, 255))
    else:
        draw.polygon([(size // 2, 2), (size - 2, size - 6), (2, size - 6)], fill=(*colour, 255))
    initials = "".join(w[0] for w in name.split()[:2] if w[:1].isalpha()).upper() or "X"
    draw.text((size * 0.3, size * 0.38), initials, fill=(255, 255, 255, 255), font_size=30)
    out = io.BytesIO()
    image.save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def _name_logo_png(name: str, rng: random.Random, accent: str) -> str:
    """A logo that holds the seller's name in its pixels (a mark and the name beside it, drawn
    with Pillow), as a data URI: a text layer does not hold the name."""
    width, height = 40 + 17 * len(name), 64
    image = Image.new("RGBA", (width, height), (255, 255, 255, 0))
    draw = ImageDraw.Draw(image)
    colour = (*(int(accent[i : i + 2], 16) for i in (1, 3, 5)), 255)
    if rng.random() < 0.5:
        draw.ellipse((4, 14, 36, 46), fill=colour)
    else:
        draw.rectangle((4, 14, 36, 46), fill=colour)
    draw.text((44, 16), name, fill=colour, font_size=28)
    out = io.BytesIO()
    image.save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def _css(doc: SynthDocument, rng: random.Random, accent: str) -> str:
    layout = doc.layout
    size = rng.choice((10, 10.5, 11, 12))
    ink = rng.choice(_INK)
    table = {
        "ruled": "td,th{border-bottom:1px solid #999}",
        "zebra": "tbody tr:nth-child(odd){background:#eef1f5} th{background:ACC;color:#fff}",
        "borderless": "th{border-bottom:2px solid ACC}",
        "boxed": "table.items,table.items td,table.items th{border:1px solid #555}",
    }[layout.table].replace("ACC", accent)
    align = {"left": "flex-start", "right": "flex-end", "centre": "center"}[layout.header]
    return f"""
body{{font-family:'{layout.font}',sans-serif;font-size:{size}pt;color:{ink};margin:0}}
.page{{position:relative}}
header{{display:flex;justify-content:{align};align-items:center;gap:14px;
  {"flex-direction:row-reverse;" if layout.header == "right" else ""}
  {"flex-direction:column;text-align:center;" if layout.header == "centre" else ""}}}
.issuer .name{{font-weight:700;font-size:1.25em}}
.slogan{{font-size:1.7em;font-weight:700;font-style:italic;margin:0 0 6px}}
.buyer-top{{margin:0 0 18px}}
.logo-text{{font-size:2.1em;font-weight:800;color:{accent};letter-spacing:0}}
h1{{font-size:1.7em;color:{accent};margin:18px 0 10px}}
.parties{{display:flex;gap:30px;margin:10px 0 16px}}
.parties.stacked{{flex-direction:column;gap:8px}}
.parties.buyer-first{{flex-direction:row-reverse;justify-content:space-between}}
.parties > div{{flex:1}}
.meta{{display:flex;flex-wrap:wrap;gap:4px 28px;margin:0 0 14px}}
.label{{color:#555}}
table{{border-collapse:collapse;width:100%}}
td,th{{padding:4px 6px;text-align:left}}
td.num,th.num{{text-align:right}}
{table}
table.totals{{width:auto;margin:14px 0 0 auto}}
table.totals td{{border:none;padding:2px 8px}}
table.totals tr.grand td{{font-weight:700;border-top:1.5px solid {ink}}}
/* The item table's header style (a zebra table's dark band) is not the summary's: its
   labels stay grey on the page, as readable as the rest. */
table.totals.columns th{{font-weight:400;color:#555;padding:2px 8px;background:none}}
table.totals.columns td.grand{{font-weight:700}}
.box{{display:inline-block;border:1.5px solid {accent};padding:6px 12px;margin:0 0 12px}}
.below{{margin:8px 0 0}}
footer{{margin-top:28px;font-size:0.85em;color:#444}}
.letter{{display:flex;justify-content:space-between;gap:30px;margin:26px 0 18px}}
.letter .window{{width:85mm}}
.letter .info{{min-width:60mm}}
.sender{{font-size:7pt;text-decoration:underline;margin:0 0 6px;color:#555}}
footer.columns{{display:flex;gap:18px;justify-content:space-between;font-size:0.72em;
  border-top:1px solid #999;padding-top:6px}}
.wm{{position:absolute;top:330px;left:40px;font-size:110px;color:rgba(120,120,120,0.16);
  transform:rotate(-28deg);font-weight:800;z-index:0}}
.stamp{{position:absolute;top:{rng.randint(420, 640)}px;left:{rng.randint(260, 420)}px;
  border:4px solid #c0392b;color:#c0392b;font-size:30px;font-weight:800;padding:4px 14px;
  transform:rotate({rng.randint(-20, 20)}deg);opacity:0.75}}
{spacing.spacing_css(layout.spaced, layout.spaced_em)}
"""


def _scatter(meta: list[str], extras: dict[str, str], keys: list[str], rng: random.Random) -> None:
    """Insert each of ``keys``' extras (its ``<key>_label`` and value) as a row of ``meta``,
    each at a place ``rng`` draws among the rows so far."""
    for key in keys:
        meta.insert(rng.randint(0, len(meta)), _meta_row(extras[f"{key}_label"], extras[key]))


def _meta_row(label: str, value: str) -> str:
    return f'<div><span class="label">{_e(label)}:</span> <span>{_e(value)}</span></div>'


def _pairs(rows: list[tuple[str, str, str]]) -> str:
    """A totals table of label/value rows (``cls`` ``grand`` draws the rule above a row)."""
    body = "".join(
        f"<tr class='{cls}'><td>{_e(k)}</td><td class='num'>{_e(v)}</td></tr>" for k, v, cls in rows
    )
    return f"<table class='totals'>{body}</table>"


def _letter_parties(doc: SynthDocument, meta: list[str]) -> str:
    """A business letter's window: the seller's return address in one small line over the
    buyer's address (no label), the document's numbers beside it."""
    issuer, buyer = doc.issuer, doc.buyer
    assert buyer is not None
    sender = " · ".join((issuer.name, *issuer.address.lines))
    window = (
        f"<div class='window'><div class='sender'>{_e(sender)}</div><div>{_e(buyer.name)}</div>"
        + "".join(f"<div>{_e(t)}</div>" for t in buyer.address.lines)
        + "</div>"
    )
    return f"<section class='letter'>{window}<div class='info'>{''.join(meta)}</div></section>"


def _letter_footer(doc: SynthDocument, contacts: str) -> str:
    """A business letter's foot: the seller's address, contacts, bank and tax numbers in
    columns side by side (their lines run across the page together)."""
    issuer, labels, printed, extras = doc.issuer, doc.labels, doc.printed, doc.extras
    address = f"<div>{_e(issuer.name)}</div>" + "".join(
        f"<div>{_e(t)}</div>" for t in issuer.address.lines
    )
    bank = _bank_rows(doc)
    legal = [_meta_row(labels["vat_id"], printed["vat_id"])] if doc.vat_id else []
    legal.append(f"<div>{_e(extras['since'])}</div>")
    columns = [address, contacts, "".join(bank), "".join(legal)]
    body = "".join(f"<div>{column}</div>" for column in columns if column)
    printed_on = f"<div>{_e(extras['date_printed'])}</div>" if "date_printed" in extras else ""
    return f"<footer class='columns'>{body}</footer>{printed_on}"


def invoice_fragment(doc: SynthDocument) -> str:
    """The invoice as an HTML fragment (its own ``<style>`` first) for a warm page's body."""
    rng = random.Random(f"html:{doc.id}:{doc.number}")
    layout, labels, printed, extras = doc.layout, doc.labels, doc.printed, doc.extras
    accent = rng.choice(_ACCENT)
    issuer = doc.issuer
    lines = "".join(f"<div>{_e(t)}</div>" for t in issuer.address.lines)
    logo = ""
    if layout.name_in_logo:
        logo = f'<img src="{_name_logo_png(issuer.name, rng, accent)}" height="64" alt="">'
    elif layout.logo == "image":
        logo = f'<img src="{_logo_png(issuer.name, rng, accent)}" width="64" height="64" alt="">'
    elif layout.logo == "text":
        logo = f'<div class="logo-text">{_e(issuer.name.split()[0].upper())}</div>'
    # A letterhead may show a trade name instead of the legal name, and a slogan above it
    # (see .issuers); the legal name then stands in the footer and the seller's block only.
    shown_name = extras.get("trade_name", issuer.name)
    if "trade_name" in extras and layout.logo == "text":
        logo = f'<div class="logo-text">{_e(shown_name.upper())}</div>'
    slogan = f"<div class='slogan'>{_e(extras['slogan'])}</div>" if "slogan" in extras else ""
    contacts = (
        f"<div>{_e(extras['phone_label'])} {_e(issuer.phone)}</div><div>{_e(issuer.email)}</div>"
    )
    # A business letter's letterhead is the logo and the name: the address and contacts
    # stand in the return-address line and the footer's columns.
    # A name drawn in the logo is printed nowhere else in the letterhead.
    name = "" if layout.name_in_logo else f"<div class='name'>{_e(shown_name)}</div>"
    header = (
        f"{slogan}<header>{logo}<div class='issuer'>{name}"
        f"{'' if layout.letter else lines + contacts}</div></header>"
    )
    buyer = doc.buyer
    assert buyer is not None
    buyer_block = (
        f"<div><div class='label'>{_e(labels['customer'])}</div>"
        f"<div><b>{_e(buyer.name)}</b></div>"
        + "".join(f"<div>{_e(t)}</div>" for t in buyer.address.lines)
        + "</div>"
    )
    meta = [
        _meta_row(labels["invoice_number"], printed["number"]),
        _meta_row(labels["invoice_date"], printed["date"]),
    ]
    if "due_date" in printed:
        meta.append(_meta_row(labels["due_date"], printed["due_date"]))
    order = extras["order"]
    if "date_order" in extras:
        order += f" {extras['date_order']}"
    meta.append(_meta_row(extras["order_label"], order))
    # Other dates (see .dates) go among the document's numbers, before or after its own dates.
    dated = [f"date_{k}" for k in ("period", "delivery", "reference") if f"date_{k}" in extras]
    _scatter(meta, extras, dated, random.Random(f"html-dates:{doc.id}"))
    # Other numbers (see .other_numbers) go among the document's own, before it too.
    numbers = [f"number_{kind}" for kind in layout.other_numbers]
    _scatter(meta, extras, numbers, random.Random(f"html-numbers:{doc.id}"))
    top = ""
    if layout.letter:
        parties = _letter_parties(doc, meta)
    else:
        if "buyer_top" in extras:
            # The buyer's address printed above the letterhead, as a window envelope wants it.
            top, buyer_block = f"<section class='buyer-top'>{buyer_block}</section>", ""
        if layout.parties == "two-column":
            # Seller and buyer addresses side by side, the document's numbers on a row below.
            seller_block = (
                f"<div><div class='label'>{_e(labels['seller'])}</div>"
                f"<div><b>{_e(issuer.name)}</b></div>{lines}</div>"
            )
            parties = (
                f"<section class='parties'>{seller_block}{buyer_block}</section>"
                f"<section class='meta'>{''.join(meta)}</section>"
            )
        else:
            parties = (
                f"<section class='parties {layout.parties}'>{buyer_block}"
                f"<div>{''.join(meta)}</div></section>"
            )
    numeric = {"quantity", "unit_price", "line_amount", *line_taxes.COLUMNS}
    columns = (*layout.columns, *layout.line_taxes)
    headers = dict(labels)
    headers.update(zip(line_taxes.COLUMNS, line_taxes.WORDS[layout.locale.language], strict=True))
    head = "".join(
        f"<th class='{'num' if c in numeric else ''}'>{_e(headers[c])}</th>" for c in columns
    )
    rows = []
    for li in doc.lines:
        tax = line_taxes.line_tax(li.amount, doc.tax_rate)
        cells = {
            "position": str(li.position),
            "description": li.description,
            "quantity": str(int(li.quantity)),
            "unit_price": doc.amount(li.unit_price, mark=False),
            "line_amount": doc.amount(li.amount, mark=False),
            "line_rate": f"{doc.tax_rate} %",
            "line_tax": doc.amount(tax, mark=False),
            "line_gross": doc.amount(li.amount + tax, mark=False),
        }
        rows.append(
            "<tr>"
            + "".join(
                f"<td class='{'num' if c in numeric else ''}'>{_e(cells[c])}</td>" for c in columns
            )
            + "</tr>"
        )
    words = doc.words

    def items(part: list[str]) -> str:
        return (
            f"<table class='items'><thead><tr>{head}</tr></thead><tbody>{''.join(part)}</tbody>"
            "</table>"
        )

    if "carried" in extras:
        # A carried-forward subtotal in the middle of the items; on a PDF the rest of them
        # go on a second page (a photo shows the first page only, so it stays on one).
        half = len(doc.lines) // 2
        brk = "" if layout.photo else "<div style='break-after:page'></div>"
        table = (
            items(rows[:half])
            + _pairs([(words["carried"], extras["carried"], "grand")])
            + brk
            + items(rows[half:])
        )
    else:
        table = items(rows)
    below = [
        (words[key], extras[key], "") for key in ("per_page", "quantity", "hours") if key in extras
    ]
    if below:
        table += f"<div class='below'>{''.join(_meta_row(k, v) for k, v, _ in below)}</div>"
    payment = ""
    if "date_payment" in extras:
        # A payment received, in a small table of its own under the totals (see .dates).
        payment = (
            f"<table class='payments'><tr><th>{_e(extras['date_payment_label'])}</th>"
            f"<th>{_e(extras['date_payment_method'])}</th></tr><tr>"
            f"<td>{_e(extras['date_payment'])}</td><td>{_e(printed['total'])}</td></tr></table>"
        )
    shown = {
        "subtotal": printed.get("subtotal"),
        "discount": printed.get("discount"),
        "tax": printed.get("tax"),
        "total": printed["total"],
    }
    totals = [
        (
            row["label"],
            shown.get(row["role"]) or doc.amount(Decimal(row["value"])),
            "grand" if row["role"] == "total" else "",
        )
        for row in doc.summary_rows()
    ]
    if layout.summary == "columns":
        totals_html = (
            "<tr>"
            + "".join(f"<th class='num'>{_e(k)}</th>" for k, _, _ in totals)
            + "</tr><tr>"
            + "".join(f"<td class='num {c}'>{_e(v)}</td>" for _, v, c in totals)
            + "</tr>"
        )
        totals_table = f"<table class='totals columns'>{totals_html}</table>"
    else:
        totals_table = _pairs(totals)
    box = ""
    if layout.total_twice:
        box = (
            f"<div class='box'><span class='label'>{_e(labels['total'])}</span> "
            f"<b>{_e(printed['total'])}</b></div>"
        )
    footer = _letter_footer(doc, contacts) if layout.letter else _plain_footer(doc)
    marks = ""
    if "watermark" in extras:
        marks += f"<div class='wm'>{_e(extras['watermark'])}</div>"
    if "stamp" in extras:
        marks += f"<div class='stamp'>{_e(extras['stamp'])}</div>"
    title = spacing.typed(extras["title"]) if layout.spaced == "typed" else extras["title"]
    return (
        f"<style>{_css(doc, rng, accent)}</style><div class='page'>{marks}"
        f"{top}{header}<h1>{_e(title)}</h1>{parties}{box}{table}{totals_table}{payment}"
        f"{footer}{_slip(doc)}</div>"
    )


def _slip(doc: SynthDocument) -> str:
    """The payment slip after the footer (see .slips), or nothing."""
    layout = doc.layout
    if not layout.slip:
        return ""
    buyer = doc.buyer
    assert buyer is not None
    due_amount = doc.amount_due
    texts = {k.removeprefix("slip_"): v for k, v in doc.extras.items() if k.startswith("slip_")}
    return slips.slip_html(
        layout.slip,
        layout.slip_apart and not layout.photo,
        texts,
        language=layout.locale.language,
        payee=(doc.issuer.name, *doc.issuer.address.lines),
        payer=(buyer.name, *buyer.address.lines),
        number=doc.number,
        due=doc.printed.get("due_date", ""),
        amount=doc.amount(due_amount),
        plain=doc.amount(due_amount, mark=False),
        due_amount=due_amount,
        currency=layout.currency.code,
        iban=doc.iban or "",
        bic=doc.bic or "",
        rng=random.Random(f"html-slip:{doc.id}"),
    )


def _bank_rows(doc: SynthDocument) -> list[str]:
    """The bank's rows of a foot: its name (see .banks), the IBAN and BIC, the holder."""
    labels, printed, extras = doc.labels, doc.printed, doc.extras
    rows = []
    if "bank_name" in extras:
        name = extras["bank_name"]
        label = extras.get("bank_label")
        rows.append(_meta_row(label, name) if label else f"<div>{_e(name)}</div>")
    if doc.iban:
        rows.append(_meta_row(labels["iban"], printed["iban"]))
    if doc.bic:
        rows.append(_meta_row(labels["bic"], doc.bic))
    if "holder" in extras:
        rows.append(_meta_row(extras["holder_label"], extras["holder"]))
    return rows


def _plain_footer(doc: SynthDocument) -> str:
    """The foot's rows: tax number, bank details, the legal line, a print stamp."""
    labels, printed, extras, issuer = doc.labels, doc.printed, doc.extras, doc.issuer
    foot = []
    if doc.vat_id:
        foot.append(_meta_row(labels["vat_id"], printed["vat_id"]))
    foot += _bank_rows(doc)
    foot.append(f"<div>{_e(issuer.name)} · {_e(extras['since'])}</div>")
    if "date_printed" in extras:
        foot.append(f"<div>{_e(extras['date_printed'])}</div>")
    return f"<footer>{''.join(foot)}</footer>"


def invoice_html(doc: SynthDocument) -> str:
    """The invoice as a complete HTML document for an A4 page."""
    return (
        f"<!doctype html><html lang='{doc.layout.locale.language}'><head><meta charset='utf-8'>"
        f"</head><body>{invoice_fragment(doc)}</body></html>"
    )


# ---------------------------------------------------------------- receipts

_COLUMNS = {58: 32, 80: 42}
_WIDTH_PX = {58: 220, 80: 302}  # the paper width in CSS pixels (96 per inch)
_CHAR_EM = {"DejaVu Sans Mono": 0.602, "Noto Sans Mono CJK SC": 0.5}
_LINE_EM = 1.3
_PAD_PX = 10

_RECEIPT_WORDS = {
    # language -> (receipt number label, date label, cash, change, thanks)
    "en": ("RECEIPT NO", "DATE", "CASH", "CHANGE", "THANK YOU, PLEASE COME AGAIN"),
    "ms": ("NO RESIT", "TARIKH", "TUNAI", "BAKI", "TERIMA KASIH, SILA DATANG LAGI"),
    "de": ("BON-NR", "DATUM", "BAR", "RÜCKGELD", "VIELEN DANK FÜR IHREN EINKAUF"),
    "fr": ("TICKET N°", "DATE", "ESPÈCES", "RENDU", "MERCI DE VOTRE VISITE"),
    # Receipts in these languages come only with --every-locale.
    "es": ("TICKET N.º", "FECHA", "EFECTIVO", "CAMBIO", "GRACIAS POR SU VISITA"),
    "it": ("SCONTRINO N.", "DATA", "CONTANTI", "RESTO", "GRAZIE E ARRIVEDERCI"),
    "nl": ("BONNR", "DATUM", "CONTANT", "WISSELGELD", "BEDANKT EN TOT ZIENS"),
    "pt": ("TALÃO N.º", "DATA", "NUMERÁRIO", "TROCO", "OBRIGADO PELA PREFERÊNCIA"),
}


@attrs.frozen(kw_only=True)
class ReceiptPage:
    """A receipt's HTML fragment (its ``<style>`` first) and the CSS pixel size of its slip."""

    fragment: str
    width: int
    height: int

    @property
    def html(self) -> str:
        """The receipt as a complete HTML document."""
        head = "<!doctype html><html><head><meta charset='utf-8'></head>"
        return f"{head}<body>{self.fragment}</body></html>"


def _wrap(text: str, cols: int) -> list[str]:
    words, out, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > cols:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*out, line] if line else out


def _pair(left: str, right: str, cols: int) -> str:
    gap = max(1, cols - len(left) - len(right))
    return f"{left}{' ' * gap}{right}"


def receipt_lines(doc: SynthDocument) -> list[str]:
    """The receipt's printed lines, each at most the paper's column count."""
    cols = _COLUMNS[doc.layout.paper_mm]
    language = doc.layout.locale.language
    number_label, date_label, cash, change, thanks = _RECEIPT_WORDS.get(
        language, _RECEIPT_WORDS["en"]
    )
    rule = "-" * cols
    out = [
        w.center(cols).rstrip()
        for line in doc.extras["header"].split("\n")
        for w in _wrap(line, cols)
    ]
    out.append(rule)
    out.append(f"{number_label}: {doc.number}")
    out.append(f"{date_label}: {doc.printed['date']}  {doc.extras['time']}")
    out.append(rule)
    for li in doc.lines:
        out.append(li.description[:cols])
        qty = f"  {int(li.quantity)} x {doc.amount(li.unit_price, mark=False)}"
        out.append(_pair(qty, doc.amount(li.amount, mark=False), cols))
    out.append(rule)
    labels = doc.labels
    if doc.layout.tax_lines:
        out.append(_pair(labels["subtotal"].upper(), doc.printed["subtotal"], cols))
    if doc.layout.discount:
        out.append(_pair(labels["discount"].upper(), doc.printed["discount"], cols))
    if doc.layout.tax_lines:
        tax = f"{labels['tax'].upper()} {doc.tax_rate}%"
        out.append(_pair(tax, doc.printed["tax"], cols))
    mark = doc.layout.currency.mark
    out.append(_pair(f"{labels['total'].upper()} {mark}", doc.printed["total"], cols))
    out.append(_pair(cash, doc.extras["cash"], cols))
    out.append(_pair(change, doc.extras["change"], cols))
    out.append(rule)
    out += [w.center(cols).rstrip() for w in _wrap(thanks, cols)]
    if "watermark" in doc.extras:
        out.append(f"*** {doc.extras['watermark']} ***".center(cols).rstrip())
    out.append(doc.extras["since"].center(cols).rstrip())
    return out


def receipt_page(doc: SynthDocument) -> ReceiptPage:
    """The receipt as HTML on a slip of its paper's width, tall enough for every line."""
    layout = doc.layout
    cols = _COLUMNS[layout.paper_mm]
    width = _WIDTH_PX[layout.paper_mm]
    font_px = (width - 2 * _PAD_PX) / (cols * _CHAR_EM[layout.font])
    lines = receipt_lines(doc)
    height = round(2 * _PAD_PX + len(lines) * font_px * _LINE_EM) + 4
    body = "\n".join(_e(line) for line in lines)
    paper = _PAPER[str(layout.paper_mm)]
    fragment = (
        f"<style>html,body{{margin:0;background:{paper}}}"
        f"pre{{margin:0;padding:{_PAD_PX}px;font-family:'{layout.font}',monospace;"
        f"font-size:{font_px:.3f}px;line-height:{_LINE_EM};color:#111;white-space:pre;"
        f"background:{paper}}}</style><pre>{body}</pre>"
    )
    return ReceiptPage(fragment=fragment, width=width, height=max(height, 16))
