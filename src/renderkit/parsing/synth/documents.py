"""One synthetic document's content and truth: parties, numbers, line items, their printed
forms, and the printed strings that are decoys (not the value of any field)."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import attrs

from renderkit.parsing.synth import (
    banks,
    dates,
    included,
    issuers,
    names,
    rates,
    slips,
    spacing,
    summary,
    values,
    wording,
    writers,
)
from renderkit.parsing.synth import line_taxes as line_tax_columns
from renderkit.parsing.synth import other_numbers as numbers_beside
from renderkit.parsing.synth.layouts import FAR_LOCALES, Layout, choose_layout, locale_style
from renderkit.parsing.synth.receipt_header import receipt_header
from renderkit.parsing.synth.variations import PLAIN, Variations

__all__ = ["Decoy", "LineItem", "SynthDocument", "make_document"]


@attrs.frozen(kw_only=True)
class LineItem:
    """One row of the item table; ``amount`` is ``quantity * unit_price``, in cents."""

    position: int
    description: str
    quantity: Decimal
    unit_price: Decimal
    amount: Decimal


@attrs.frozen(kw_only=True)
class Decoy:
    """A printed string that a field must not take.

    Roles: ``watermark``, ``stamp``, ``title``, ``table_header``, ``buyer`` (the buyer's block),
    ``year``, ``quantity``, ``line_number``, ``phone``, ``postcode``, ``order_number``,
    ``tax_rate``, ``registration`` (a company number), ``cash`` and ``change`` (receipts),
    ``after_total`` (an amount printed below the invoice total: a payment, a balance due...),
    ``false_total`` (the value of a "total" label that is not the invoice total).
    """

    role: str
    text: str


@attrs.frozen(kw_only=True)
class SynthDocument:
    """Everything one document prints, and what is true of it.

    Attributes:
        id: the document id (``synth-invoice-0007``).
        layout: the seeded layout choices.
        issuer: the seller (the receipt's shop).
        buyer: the invoice's customer (None on receipts).
        number: the invoice or receipt number.
        issued: the document date; ``due``: the payment due date when printed.
        lines: the item table.
        subtotal, discount, shipping, tax, total: the arithmetic,
            ``total = subtotal - discount + shipping + tax``; tax is zero on documents without
            tax lines, shipping on documents without a shipping line.
        after: the signed amounts printed below the total (:func:`.summary.after_amounts`),
            the balance due last; empty when none are.
        tax_rate: the rate in percent (the highest, at several rates).
        rate_taxes: at several rates, ``(rate, base, tax)`` per rate (:mod:`.rates`); empty
            at one.
        vat_id, iban, bic: the issuer's identifiers, when the document prints them.
        labels: concept -> the label printed before its value.
        printed: field -> the value exactly as printed.
        decoys: printed strings that are no field's value.
        extras: other printed strings (title, watermark and stamp words, the year line, the
            receipt's cash and change, its time and registration number).
    """

    id: str
    layout: Layout
    issuer: names.Party
    buyer: names.Party | None
    number: str
    issued: dt.date
    due: dt.date | None
    lines: tuple[LineItem, ...]
    subtotal: Decimal
    discount: Decimal
    shipping: Decimal
    tax: Decimal
    tax_rate: Decimal
    total: Decimal
    after: tuple[tuple[str, Decimal], ...]
    vat_id: str | None
    iban: str | None
    bic: str | None
    labels: dict[str, str]
    printed: dict[str, str]
    decoys: tuple[Decoy, ...]
    extras: dict[str, str]
    rate_taxes: tuple[tuple[Decimal, Decimal, Decimal], ...] = ()

    @property
    def kind(self) -> str:
        """``invoice`` or ``receipt``."""
        return self.layout.kind

    def amount(self, value: Decimal, *, mark: bool = True) -> str:
        """``value`` as this document prints amounts (with its currency mark when asked)."""
        number = values.NUMBER_FORMATS[self.layout.number_format]
        return values.format_amount(value, number, self.layout.currency if mark else None)

    def date(self, day: dt.date) -> str:
        """``day`` as this document prints dates."""
        return values.format_date(day, self.layout.date_form, self.layout.locale.language)

    @property
    def expected(self) -> dict[str, str]:
        """The labels in the eval set's normal forms (ISO dates, 2-place amounts)."""
        if self.kind == "receipt":
            return {
                "company": self.issuer.name,
                "address": " ".join(self.issuer.address.lines),
                "date": self.issued.isoformat(),
                "total": f"{self.total:.2f}",
            }
        out = {
            "issuer": self.issuer.name,
            "invoice_number": self.number,
            "date": self.issued.isoformat(),
            "total": f"{self.total:.2f}",
            "currency": self.layout.currency.code,
        }
        if self.due is not None:
            out["due_date"] = self.due.isoformat()
        if self.layout.tax_lines:
            out["subtotal"] = f"{self.subtotal:.2f}"
            out["tax"] = f"{self.tax:.2f}"
        if self.vat_id is not None:
            out["vat_id"] = self.vat_id
        if self.iban is not None:
            out["iban"] = self.iban
        return out

    def truth(self) -> dict[str, Any]:
        """The richer truth a ranker needs: values, items, printed forms, decoys, layout."""
        layout = self.layout
        return {
            "id": self.id,
            "kind": self.kind,
            "expected": self.expected,
            "arithmetic": {
                "subtotal": f"{self.subtotal:.2f}",
                "discount": f"{self.discount:.2f}",
                "shipping": f"{self.shipping:.2f}",
                "tax": f"{self.tax:.2f}",
                "tax_rate": str(self.tax_rate),
                "total": f"{self.total:.2f}",
            },
            # Every amount of the totals block, in printing order; "total" is the invoice total.
            "amounts": self.summary_rows(),
            "lines": [
                {
                    "position": li.position,
                    "description": li.description,
                    "quantity": str(li.quantity),
                    "unit_price": f"{li.unit_price:.2f}",
                    "amount": f"{li.amount:.2f}",
                }
                for li in self.lines
            ],
            "issuer": _party(self.issuer),
            "buyer": _party(self.buyer) if self.buyer else None,
            "bic": self.bic,
            "labels": self.labels,
            "printed": self.printed,
            "decoys": [{"role": d.role, "text": d.text} for d in self.decoys],
            "extras": self.extras,
            "layout": {
                "family": layout.family,
                "locale": layout.locale.name,
                "language": layout.locale.language,
                "header": layout.header,
                "logo": layout.logo,
                "parties": layout.parties,
                "table": layout.table,
                "columns": list(layout.columns),
                "number_format": layout.number_format,
                "currency_mark": layout.currency.mark,
                "currency_before": layout.currency.before,
                "date_form": layout.date_form,
                "watermark": layout.watermark,
                "stamp": layout.stamp,
                "tax_lines": layout.tax_lines,
                "discount": layout.discount,
                "extra_labels": layout.extra_labels,
                "font": layout.font,
                "paper_mm": layout.paper_mm if self.kind == "receipt" else None,
                "photo": layout.photo,
                "summary": layout.summary,
                "after_total": list(layout.after_total),
                "false_totals": list(layout.false_totals),
                "total_twice": layout.total_twice,
                "shipping": layout.shipping,
                "carried": layout.carried,
                "other_dates": list(layout.other_dates),
                "issuer_style": "+".join(layout.issuer_style) or "plain",
                "totals_family": layout.totals_family,
                # Only when set: the sets made before the option keep their manifests.
                **({"letter": True} if layout.letter else {}),
                **({"name_in_logo": True} if layout.name_in_logo else {}),
                **(
                    {"rates": layout.rates, "rate_sum": layout.rate_sum} if layout.rates > 1 else {}
                ),
                **(
                    {"tax_split": [n for n, _ in layout.tax_split], "rate_sum": layout.rate_sum}
                    if layout.tax_split
                    else {}
                ),
                **({"line_taxes": list(layout.line_taxes)} if layout.line_taxes else {}),
                **({"other_numbers": list(layout.other_numbers)} if layout.other_numbers else {}),
                **(
                    {"spaced": layout.spaced, "spaced_em": layout.spaced_em}
                    if layout.spaced
                    else {}
                ),
                **({"writer": layout.writer} if layout.writer else {}),
                **({"tax_included": layout.tax_included} if layout.tax_included else {}),
                **({"slip": layout.slip, "slip_apart": layout.slip_apart} if layout.slip else {}),
            },
        }

    def summary_rows(self) -> list[dict[str, str]]:
        """The totals block's rows in printing order: role, label, value (2 places)."""
        labels = self.labels
        if self.layout.tax_included:
            # The total first, then the tax it holds and the net (see .included); such
            # invoices have one rate and no discount or charge.
            rows = [
                ("total", labels["total_included"], self.total),
                ("tax", labels["tax_included"], self.tax),
                ("subtotal", labels["net"], self.subtotal),
            ]
        else:
            rows = self._net_rows()
        for role, value in self.after:
            word = labels["amount_due"] if role == "balance_due" else self.words[role]
            rows.append((role, word, value))
        return [{"role": r, "label": k, "value": f"{v:.2f}"} for r, k, v in rows]

    def _net_rows(self) -> list[tuple[str, str, Decimal]]:
        """A net-priced invoice's totals rows, up to its total."""
        layout, labels = self.layout, self.labels
        rows: list[tuple[str, str, Decimal]] = []
        if layout.tax_lines:
            rows.append(("subtotal", labels["subtotal"], self.subtotal))
        if layout.discount:
            rows.append(("discount", labels["discount"], -self.discount))
        if layout.shipping:
            rows.append(("shipping", self.words["shipping"], self.shipping))
        if layout.tax_lines and self.rate_taxes:
            # A row per rate (or per split tax), then (as some invoices print it) their sum.
            split = [name for name, _ in layout.tax_split]
            names_ = split or [labels["tax"]] * len(self.rate_taxes)
            for name, (rate, _, tax) in zip(names_, self.rate_taxes, strict=True):
                rows.append(("tax_part", f"{name} {rate} %", tax))
            if layout.rate_sum:
                word = rates.SUM_WORDS[layout.locale.language]
                total = layout.locale.split_total if layout.tax_split else ""
                rows.append(("tax", total or f"{word} {labels['tax']}", self.tax))
        elif layout.tax_lines:
            rows.append(("tax", f"{labels['tax']} {self.tax_rate} %", self.tax))
        rows.append(("total", labels["total"], self.total))
        return rows

    @property
    def amount_due(self) -> Decimal:
        """What the invoice asks to be paid: the balance due when the totals block prints
        one, else the total."""
        return self.after[-1][1] if self.after else self.total

    @property
    def words(self) -> dict[str, str]:
        """The harder totals block's words in this document's language."""
        return summary.WORDS[self.layout.locale.language]


def _party(p: names.Party) -> dict[str, Any]:
    return {"name": p.name, "address": list(p.address.lines), "phone": p.phone, "email": p.email}


_ITEMS: dict[str, tuple[str, ...]] = {
    "en": ("Consulting hours", "Design work", "Cable set", "Office chair", "Maintenance visit",
           "Printing of flyers", "Software licence", "Delivery charge", "Wooden pallet"),
    "de": ("Beratungsstunden", "Montagearbeiten", "Kabelsatz", "Bürostuhl", "Wartung",
           "Druck von Flyern", "Softwarelizenz", "Versandkosten", "Holzpalette"),
    "fr": ("Heures de conseil", "Travaux de pose", "Jeu de câbles", "Chaise de bureau",
           "Entretien", "Impression de flyers", "Licence logicielle", "Frais de port"),
    "es": ("Horas de consultoría", "Montaje", "Juego de cables", "Silla de oficina",
           "Mantenimiento", "Impresión de folletos", "Licencia de software", "Portes"),
    "it": ("Ore di consulenza", "Montaggio", "Set di cavi", "Sedia da ufficio", "Manutenzione",
           "Stampa volantini", "Licenza software", "Spese di spedizione"),
    "nl": ("Adviesuren", "Montagewerk", "Kabelset", "Bureaustoel", "Onderhoud",
           "Drukwerk folders", "Softwarelicentie", "Verzendkosten"),
    "pt": ("Horas de consultoria", "Montagem", "Conjunto de cabos", "Cadeira de escritório",
           "Manutenção", "Impressão de folhetos", "Licença de software", "Portes de envio"),
    "ms": ("Khidmat nasihat", "Kerja pemasangan", "Set kabel", "Kerusi pejabat",
           "Penyelenggaraan", "Cetakan risalah", "Lesen perisian", "Caj penghantaran"),
}  # fmt: skip
_RECEIPT_ITEMS = ("MINERAL WATER 1.5L", "WHITE BREAD", "FRIED RICE", "ICED TEA", "A4 PAPER",
                  "BATTERY AA 4S", "NOODLES CUP", "COFFEE 3IN1", "EGGS GRADE A", "TISSUE BOX",
                  "BALL PEN BLUE", "TOAST SET", "KAYA BUN", "DETERGENT 1KG")  # fmt: skip
_SINCE = {"en": "Est. {y}", "de": "Gegründet {y}", "fr": "Depuis {y}", "es": "Desde {y}",
          "it": "Dal {y}", "nl": "Sinds {y}", "pt": "Desde {y}", "ms": "Sejak {y}"}  # fmt: skip
_ORDER = {"en": "Order no", "de": "Bestellnummer", "fr": "Commande n°", "es": "Pedido n.º",
          "it": "Ordine n.", "nl": "Ordernummer", "pt": "Encomenda n.º",
          "ms": "No pesanan"}  # fmt: skip
_PHONE = {"en": "Tel", "de": "Tel.", "fr": "Tél.", "es": "Tel.", "it": "Tel.", "nl": "Tel.",
          "pt": "Tel.", "ms": "Tel"}  # fmt: skip


def _invoice_number(rng: random.Random, year: int, language: str) -> str:
    n = rng.randint(1, 99999)
    prefix = {"de": "RE", "fr": "F", "es": "FAC", "it": "FT", "nl": "F", "pt": "FT"}.get(
        language, "INV"
    )
    shape = rng.randrange(6)
    if shape == 0:
        return f"{prefix}-{year}-{n:05d}"
    if shape == 1:
        return f"{prefix}{n:06d}"
    if shape == 2:
        return f"{year}/{n:04d}"
    if shape == 3:
        return f"{n:07d}"
    if shape == 4:
        return f"{prefix} {year % 100}-{n}"
    return f"{rng.choice('ABCDEFGHKLMNPRST')}{rng.choice('ABCDEFGHKLMNPRST')}{n}"


def _items(layout: Layout, rng: random.Random) -> tuple[LineItem, ...]:
    count = rng.randint(1, 7 if layout.kind == "invoice" else 9)
    pool = _RECEIPT_ITEMS if layout.kind == "receipt" else _ITEMS[layout.locale.language]
    names_ = rng.sample(pool, min(count, len(pool)))
    lines = []
    for i, description in enumerate(names_, start=1):
        if layout.kind == "receipt":
            quantity = Decimal(rng.choice((1, 1, 1, 2, 3, 4, 6)))
            price = values.money(Decimal(rng.randint(50, 4000)) / 100)
        else:
            quantity = Decimal(rng.choice((1, 1, 2, 3, 5, 8, 10, 12, 20, 40)))
            scale = layout.locale.price_scale
            price = values.money(Decimal(rng.randint(300, 150_000)) * scale / 100)
        lines.append(
            LineItem(
                position=i,
                description=description,
                quantity=quantity,
                unit_price=price,
                amount=values.money(quantity * price),
            )
        )
    return tuple(lines)


def make_document(
    kind: str,
    index: int,
    seed: int,
    variations: Variations = PLAIN,
    *,
    adjust: Callable[[Layout], Layout] | None = None,
) -> SynthDocument:
    """The ``index``-th ``kind`` document of the set made with ``seed`` (deterministic).

    ``adjust`` may change the drawn layout (``lambda l: attrs.evolve(l, watermark=True)``), for
    tests that need a document built to trip one rule; the rest is still drawn from the seed.
    ``variations`` (:class:`.variations.Variations`) says which optional variations to draw:
    ``photos``: every receipt and a third of the invoices are photographed.
    ``every_locale``: receipts from any locale (:func:`.layouts.choose_layout`).
    ``letters``: three invoices in four are laid out as business letters (``Layout.letter``).
    ``tax_rates``: invoices sell at several tax rates where their locale has them (:mod:`.rates`).
    ``logo_names``: three invoices in five print their seller's name only inside the logo image
    (``Layout.name_in_logo``).
    ``far_locales``: seven invoices in ten come from a locale of
    :data:`.layouts.FAR_LOCALES`, half of those with split taxes where it has them
    (``Layout.tax_split``).
    ``line_taxes``: three invoices in five with one tax rate and no discount or charge print
    each line's tax in the item table (:mod:`.line_taxes`).
    ``other_numbers``: three invoices in four print other numbers beside their own
    (:mod:`.other_numbers`).
    ``spaced_type``: four invoices in five set a title, the labels or the page in letter-spaced
    type (:mod:`.spacing`).
    ``pdf_writers``: half the invoices printed as PDFs are rewritten as other generators write
    theirs (:mod:`.writers`).
    ``tax_included``: three in five of the invoices with one rate and no discount, shipping or
    line taxes are priced with the tax in (:mod:`.included`).
    ``payment_slips``: three invoices in five end with a payment slip (:mod:`.slips`).
    ``particle_names``: half the sellers' names hold small words in lower case
    (:func:`.names.particle_name`).
    ``other_forms``: half the sellers' and half the buyers' names end in a less common legal
    form of their country (:func:`.names.with_other_form`).
    ``bank_names``: four invoices in five that print an IBAN name the bank beside it
    (:mod:`.banks`).
    """
    # One generator per document, so a document does not depend on how many came before.
    rng = random.Random(f"renderkit-synth:{seed}:{kind}:{index}")
    layout = choose_layout(
        kind, rng, photos=variations.photos, every_locale=variations.every_locale
    )
    # The harder totals block draws from a generator of its own, so that adding it left the
    # other choices of every seed as they were.
    hard = random.Random(f"renderkit-synth-summary:{seed}:{kind}:{index}")

    def own(option: str) -> random.Random:
        # Each option draws from a generator of its own, so that adding it left every seed's
        # documents without it as they were.
        return random.Random(f"renderkit-synth-{option}:{seed}:{index}")

    if kind == "invoice":
        layout = attrs.evolve(layout, **summary.choose_summary(hard))
    if kind == "invoice" and variations.other_dates:
        picks = dates.choose_other_dates(own("dates"))
        layout = attrs.evolve(layout, other_dates=picks)
    if kind == "invoice" and variations.hard_issuers:
        style = issuers.choose_issuer_style(own("issuer-style"))
        layout = attrs.evolve(layout, issuer_style=style)
    if kind == "invoice" and variations.letters:
        letter = own("letter").random() < 0.75
        layout = attrs.evolve(layout, letter=letter)
    if kind == "invoice" and variations.logo_names:
        pictured = own("logo-name").random() < 0.6
        if pictured:
            layout = attrs.evolve(layout, name_in_logo=True, logo="image")
    if kind == "invoice" and variations.far_locales:
        layout = _far_layout(layout, own("far"))
    # The rates' own generator, drawn on again for the rates themselves below.
    several = own("rates")
    if kind == "invoice" and variations.tax_rates and layout.tax_lines and not layout.tax_split:
        count, summed = rates.choose_rates(several, len(layout.locale.tax_rates))
        if count != 1:
            # The rates' bases are the items' amounts: no discount or charge to share out.
            layout = attrs.evolve(
                layout, rates=count, rate_sum=summed, discount=False, shipping=False
            )
    if kind == "invoice" and variations.line_taxes:
        shown = line_tax_columns.choose_line_taxes(own("line-taxes"))
        single = layout.tax_lines and layout.rates == 1 and not layout.tax_split
        if shown and single and not layout.discount and not layout.shipping:
            layout = attrs.evolve(layout, line_taxes=shown)
    if kind == "invoice" and variations.tax_included:
        pricing = included.choose_included(own("included"))
        one_rate = layout.tax_lines and layout.rates == 1 and not layout.tax_split
        if pricing and one_rate and not (layout.discount or layout.shipping or layout.line_taxes):
            layout = attrs.evolve(layout, tax_included=pricing)
    if kind == "invoice" and variations.other_numbers:
        picks = numbers_beside.choose_other_numbers(own("other-numbers"))
        layout = attrs.evolve(layout, other_numbers=picks)
    if kind == "invoice" and variations.spaced_type:
        spaced, em = spacing.choose_spacing(own("spaced"))
        layout = attrs.evolve(layout, spaced=spaced, spaced_em=em)
    if kind == "invoice" and variations.pdf_writers and not layout.photo:
        way = writers.choose_writer(own("writer"))
        layout = attrs.evolve(layout, writer=way)
    if kind == "invoice" and variations.payment_slips:
        locale = layout.locale
        slip, apart = slips.choose_slip(
            own("slip"), country=locale.country, has_iban=locale.has_iban
        )
        layout = attrs.evolve(layout, slip=slip, slip_apart=apart)
    if kind == "invoice" and variations.bank_names and layout.locale.has_iban:
        layout = attrs.evolve(layout, bank=banks.choose_bank(own("bank")))
    if adjust is not None:
        layout = adjust(layout)
    locale = layout.locale
    language = locale.language
    issuer = names.party(locale.country, rng)
    particles = own("particles")
    if kind == "invoice" and variations.particle_names and particles.random() < 0.5:
        particled = names.particle_name(locale.country, particles)
        issuer = attrs.evolve(issuer, name=particled) if particled else issuer
    buyer = names.party(locale.country, rng) if kind == "invoice" else None
    forms = own("forms")
    if kind == "invoice" and variations.other_forms:
        if forms.random() < 0.5:
            issuer = attrs.evolve(
                issuer, name=names.with_other_form(issuer.name, locale.country, forms)
            )
        if buyer is not None and forms.random() < 0.5:
            buyer = attrs.evolve(
                buyer, name=names.with_other_form(buyer.name, locale.country, forms)
            )
    issued = dt.date(2019, 1, 1) + dt.timedelta(days=rng.randrange(8 * 365))
    due = issued + dt.timedelta(days=rng.choice((7, 14, 30, 45, 60))) if layout.due_date else None
    lines = _items(layout, rng)
    subtotal = sum((li.amount for li in lines), Decimal(0))
    discount = (
        values.money(subtotal * Decimal(rng.choice((2, 3, 5, 10))) / 100)
        if layout.discount
        else Decimal(0)
    )
    rate = rng.choice(locale.tax_rates)
    shipping = (
        values.money(Decimal(hard.randint(400, 6000)) / 100) if layout.shipping else Decimal(0)
    )
    taxed = subtotal - discount + shipping
    tax = values.money(taxed * rate / 100) if layout.tax_lines else Decimal("0.00")
    parts: tuple[tuple[Decimal, Decimal, Decimal], ...] = ()
    if layout.tax_lines and layout.rates > 1 and len(lines) >= layout.rates:
        picked = several.sample(sorted(locale.tax_rates), layout.rates)
        parts = rates.rate_taxes([li.amount for li in lines], picked, several)
        rate, tax = parts[0][0], sum((t for _, _, t in parts), Decimal(0))
    elif layout.rates > 1:
        layout = attrs.evolve(layout, rates=1, rate_sum=False)  # fewer items than rates
    if layout.tax_lines and layout.tax_split:
        # Every split tax is levied on the whole base; the truth's tax is their sum.
        parts = tuple((r, taxed, values.money(taxed * r / 100)) for _, r in layout.tax_split)
        rate = sum((r for _, r in layout.tax_split), Decimal(0))
        tax = sum((t for _, _, t in parts), Decimal(0))
    total = taxed + tax
    if layout.tax_included:
        # Gross lines: their sum is the total, which holds the tax; the net is what is left.
        total = subtotal
        tax = included.included_tax(total, rate)
        subtotal = total - tax
    after = summary.after_amounts(layout.after_total, total, hard)
    country = locale.country
    vat = values.vat_id(country, rng) if kind == "invoice" and locale.has_vat_id else None
    iban = values.iban(country, rng) if kind == "invoice" and locale.has_iban else None
    bic = (
        f"{names.stem(rng, (2, 2)).upper()[:4]:X<4}{country}{rng.choice('23456789')}"
        f"{rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}"
        if iban
        else None
    )
    if kind == "receipt":
        number = f"{rng.choice(('CS', 'OR', 'INV', 'R', ''))}{rng.randint(1000, 999999):06d}"
    else:
        number = _invoice_number(rng, issued.year, language)
    share = 1.0 if layout.extra_labels else 0.0
    label_words = {
        concept: wording.label(concept, language, rng, extra_share=share)
        for concept in wording.CONCEPTS
    }
    label_words["amount_due"] = wording.label("amount_due", language, hard, extra_share=0.0)
    if kind == "invoice" and (locale.tax_names or locale.tax_id_labels):
        local = random.Random(f"renderkit-synth-far-words:{seed}:{index}")
        if locale.tax_names:
            label_words["tax"] = local.choice(locale.tax_names)
        if locale.tax_id_labels:
            label_words["vat_id"] = local.choice(locale.tax_id_labels)
    if layout.tax_included:
        worded = random.Random(f"renderkit-synth-included-words:{seed}:{index}")
        label_words.update(
            included.included_words(
                layout.tax_included,
                language,
                label_words["tax"],
                rate,
                label_words["total"],
                worded,
            )
        )
    if "column" in layout.false_totals:
        label_words["line_amount"] = summary.WORDS[language]["column"]
    doc = SynthDocument(
        id=f"synth-{kind}-{index:04d}",
        layout=layout,
        issuer=issuer,
        buyer=buyer,
        number=number,
        issued=issued,
        due=due,
        lines=lines,
        subtotal=subtotal,
        discount=discount,
        shipping=shipping,
        tax=tax,
        tax_rate=rate,
        total=total,
        after=after,
        vat_id=vat,
        iban=iban,
        bic=bic,
        labels=label_words,
        printed={},
        decoys=(),
        extras={},
        rate_taxes=parts,
    )
    return _with_print(doc, rng)


def _far_layout(layout: Layout, far: random.Random) -> Layout:
    """``layout``, with seven chances in ten moved to a far locale (its money, numbers and
    dates drawn again) and, where that locale splits its tax and the invoice has one, half of
    those with a split tax (a row each, their sum printed on half of them)."""
    if far.random() >= 0.7:
        return layout
    locale = FAR_LOCALES[far.choice(sorted(FAR_LOCALES))]
    currency, number_format, date_form = locale_style(locale, far)
    split: tuple[tuple[str, Decimal], ...] = ()
    if locale.split_taxes and layout.tax_lines and far.random() < 0.5:
        split = far.choice(locale.split_taxes)
    return attrs.evolve(
        layout,
        locale=locale,
        currency=currency,
        number_format=number_format,
        date_form=date_form,
        tax_split=split,
        rate_sum=bool(split) and far.random() < 0.5,
    )


def _with_print(doc: SynthDocument, rng: random.Random) -> SynthDocument:
    """``doc`` with its printed forms, extras and decoys decided."""
    layout = doc.layout
    language = layout.locale.language
    printed = {
        "date": doc.date(doc.issued),
        "total": doc.amount(doc.total),
        "number": doc.number,
    }
    if doc.kind == "invoice":
        printed["issuer"] = doc.issuer.name
        printed["currency"] = layout.currency.mark
        if doc.due:
            printed["due_date"] = doc.date(doc.due)
        if layout.tax_lines:
            printed["subtotal"] = doc.amount(doc.subtotal)
        if layout.tax_lines and (not doc.rate_taxes or layout.rate_sum):
            # At several rates without a row of their sum, the tax is printed nowhere whole.
            printed["tax"] = doc.amount(doc.tax)
        if doc.vat_id:
            grouping = random.Random(f"renderkit-synth-vat:{doc.id}:{doc.vat_id}")
            printed["vat_id"] = values.print_vat_id(doc.vat_id, grouping)
        if doc.iban:
            # IBANs print in groups of four more often than not.
            grouped = rng.random() < 0.7
            printed["iban"] = (
                " ".join(doc.iban[i : i + 4] for i in range(0, len(doc.iban), 4))
                if grouped
                else doc.iban
            )
    else:
        printed["company"] = doc.issuer.name
        printed["address"] = "\n".join(doc.issuer.address.lines)
        if layout.tax_lines:
            printed["subtotal"] = doc.amount(doc.subtotal, mark=False)
            printed["tax"] = doc.amount(doc.tax, mark=False)
        printed["total"] = doc.amount(doc.total, mark=False)
    if layout.discount:
        printed["discount"] = doc.amount(-doc.discount, mark=doc.kind == "invoice")
    year = str(rng.randint(1950, doc.issued.year - 1))
    extras = {
        "title": rng.choice(wording.TITLES[language]) if doc.kind == "invoice" else "",
        "since": _SINCE[language].format(y=year),
        "phone_label": _PHONE[language],
    }
    decoys = [
        Decoy(role="year", text=year),
        Decoy(role="phone", text=doc.issuer.phone),
        Decoy(role="postcode", text=doc.issuer.address.postcode),
    ]
    decoys += [Decoy(role="quantity", text=_qty(li.quantity)) for li in doc.lines]
    if layout.watermark:
        extras["watermark"] = rng.choice(wording.WATERMARK_WORDS[language])
        decoys.append(Decoy(role="watermark", text=extras["watermark"]))
    if doc.kind == "invoice":
        decoys.append(Decoy(role="title", text=extras["title"]))
        if layout.stamp:
            extras["stamp"] = rng.choice(wording.STAMP_WORDS[language])
            decoys.append(Decoy(role="stamp", text=extras["stamp"]))
        if doc.layout.tax_lines:
            decoys.append(Decoy(role="tax_rate", text=f"{doc.tax_rate} %"))
        decoys += [Decoy(role="table_header", text=doc.labels[c]) for c in layout.columns]
        if "position" in layout.columns:
            decoys += [Decoy(role="line_number", text=str(li.position)) for li in doc.lines]
        assert doc.buyer is not None
        buyer = doc.buyer
        decoys += [Decoy(role="buyer", text=t) for t in (buyer.name, *buyer.address.lines)]
        decoys.append(Decoy(role="postcode", text=buyer.address.postcode))
        order = f"PO-{rng.randint(10000, 99999)}"
        extras["order_label"] = _ORDER[language]
        extras["order"] = order
        decoys.append(Decoy(role="order_number", text=order))
    else:
        paid = _cash(doc.total, rng)
        extras["cash"] = doc.amount(paid, mark=False)
        extras["change"] = doc.amount(paid - doc.total, mark=False)
        extras["time"] = f"{rng.randint(8, 21):02d}:{rng.randint(0, 59):02d}"
        extras["registration"] = f"{rng.randint(100000, 1299999)}-{rng.choice('ADHKMPTUVWX')}"
        decoys += [
            Decoy(role="cash", text=extras["cash"]),
            Decoy(role="change", text=extras["change"]),
            Decoy(role="registration", text=extras["registration"]),
        ]
        header = receipt_header(
            doc_id=doc.id,
            number=doc.number,
            name=doc.issuer.name,
            address=doc.issuer.address,
            phone=doc.issuer.phone,
            email=doc.issuer.email,
            registration=extras["registration"],
            language=language,
            country=layout.locale.country,
        )
        extras["header"] = "\n".join(header.lines)
        extras["header_cues"] = " ".join(header.cues)
        printed["company"] = "\n".join(header.name_lines)
        printed["address"] = "\n".join(header.address_lines)
        decoys += [Decoy(role="header", text=t) for t in header.decoys]
    if doc.kind == "invoice":
        extras, more = _hard_extras(doc, extras)
        decoys += more
    if layout.other_dates:
        rng_dates = random.Random(f"renderkit-synth-other-dates:{doc.id}:{doc.number}")
        shown = dates.other_dates(layout.other_dates, doc.issued, language, doc.date, rng_dates)
        extras.update(shown)
        decoys += [
            Decoy(role="other_date", text=v)
            for k, v in shown.items()
            if not k.endswith(("_label", "_method"))
        ]
    if layout.other_numbers:
        rng_numbers = random.Random(f"renderkit-synth-other-numbers:{doc.id}:{doc.number}")
        shown = numbers_beside.other_numbers(
            layout.other_numbers, language, layout.locale.country, doc.issued.year, rng_numbers
        )
        extras.update(shown)
        decoys += [
            Decoy(role="other_number", text=v) for k, v in shown.items() if not k.endswith("_label")
        ]
    if layout.slip:
        rng_slip = random.Random(f"renderkit-synth-slip:{doc.id}:{doc.number}")
        texts, slip_decoys = slips.slip_texts(
            layout.slip,
            language=language,
            number=doc.number,
            due=printed.get("due_date", ""),
            amount=doc.amount(doc.amount_due),
            rng=rng_slip,
        )
        extras.update({f"slip_{k}": v for k, v in texts.items()})
        decoys += [Decoy(role="slip", text=t) for t in slip_decoys]
    if layout.bank and doc.iban:
        rng_bank = random.Random(f"renderkit-synth-bank:{doc.id}:{doc.number}")
        shown = banks.bank_texts(layout.bank, language, doc.issuer.name, rng_bank)
        extras.update(shown)
        decoys.append(Decoy(role="bank", text=shown["bank_name"]))
    if layout.issuer_style:
        rng_issuer = random.Random(f"renderkit-synth-issuer:{doc.id}:{doc.number}")
        shown = issuers.letterhead(
            layout.issuer_style,
            doc.issuer.name,
            names.legal_forms(layout.locale.country),
            language,
            int(year),
            rng_issuer,
        )
        extras.update(shown)
        decoys += [Decoy(role=k, text=v) for k, v in shown.items() if k != "buyer_top"]
    return attrs.evolve(doc, printed=printed, decoys=tuple(decoys), extras=extras)


def _hard_extras(doc: SynthDocument, extras: dict[str, str]) -> tuple[dict[str, str], list[Decoy]]:
    """The harder totals block's printed strings (extras) and the decoys among them."""
    layout = doc.layout
    # Its own generator again: these draws must not move the document's other choices.
    rng = random.Random(f"renderkit-synth-extras:{doc.id}:{doc.number}")
    extras = dict(extras)
    decoys = [Decoy(role="after_total", text=doc.amount(v)) for _, v in doc.after]
    if "hours" in layout.false_totals:
        hours = Decimal(rng.randint(4, 320)) / 2
        extras["hours"] = doc.amount(hours, mark=False)
        decoys.append(Decoy(role="false_total", text=extras["hours"]))
    if "quantity" in layout.false_totals:
        extras["quantity"] = _qty(sum((li.quantity for li in doc.lines), Decimal(0)))
    # The carried-forward block closes the first half of the items (two lines at least).
    half = len(doc.lines) // 2 if layout.carried else 0
    if half:
        extras["carried"] = doc.amount(sum((li.amount for li in doc.lines[:half]), Decimal(0)))
    if "per_page" in layout.false_totals:
        extras["per_page"] = doc.amount(sum((li.amount for li in doc.lines[half:]), Decimal(0)))
    return extras, decoys


def _qty(quantity: Decimal) -> str:
    return str(int(quantity)) if quantity == quantity.to_integral_value() else str(quantity)


def _cash(total: Decimal, rng: random.Random) -> Decimal:
    """What the customer handed over: always more than the total, so the cash is a decoy."""
    for note in (5, 10, 20, 50, 100, 200, 500, 1000):
        if note > total and rng.random() < 0.7:
            return Decimal(note)
    return Decimal(int(total // 50 + 1) * 50)
