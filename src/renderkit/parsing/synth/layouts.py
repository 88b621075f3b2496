"""The seeded layout choices of one document, and the locales documents come from."""

from __future__ import annotations

import random
from decimal import Decimal

import attrs

from renderkit.parsing.synth.values import DATE_FORMATS, NUMBER_FORMATS, CurrencyStyle

__all__ = [
    "FAR_LOCALES",
    "INVOICE_FONTS",
    "LOCALES",
    "RECEIPT_FONTS",
    "Layout",
    "Locale",
    "choose_layout",
    "locale_style",
]


@attrs.frozen(kw_only=True)
class Locale:
    """Where a document comes from: its language, country, money and customs.

    Attributes:
        name: the key (``de-DE``).
        language: the lexicon language of its labels.
        country: the issuer's country (addresses, VAT id, IBAN).
        currency: the ISO 4217 code.
        marks: how the currency may be printed (symbol, code, local sign).
        tax_rates: the VAT or sales tax rates in use, in percent.
        number_formats: the number formats its documents use.
        date_forms: the date forms its documents use.
        has_vat_id: invoices print a VAT id (countries with VAT).
        has_iban: invoices print an IBAN (countries in the IBAN registry).
        tax_names: the local tax's names, printed instead of the lexicon's tax label.
        split_taxes: taxes levied side by side on the same base (India's CGST and SGST,
            Canada's GST and PST), as name and rate pairs; an invoice may print one pair.
        price_scale: what one unit of the money buys against the euro's (prices scaled).
        tax_id_labels: the local names of the tax number, printed instead of the lexicon's.
        split_total: the word of the split taxes' sum row ("Total GST").
    """

    name: str
    language: str
    country: str
    currency: str
    marks: tuple[str, ...]
    tax_rates: tuple[Decimal, ...]
    number_formats: tuple[str, ...]
    date_forms: tuple[str, ...]
    has_vat_id: bool = True
    has_iban: bool = True
    tax_names: tuple[str, ...] = ()
    split_taxes: tuple[tuple[tuple[str, Decimal], ...], ...] = ()
    price_scale: int = 1
    tax_id_labels: tuple[str, ...] = ()
    split_total: str = ""


def _rates(*values: str) -> tuple[Decimal, ...]:
    return tuple(Decimal(v) for v in values)


_EURO_DATES = ("dmy-dot", "dmy-slash", "iso", "d-month-y", "d-mon-y", "dmy-dash")
LOCALES: dict[str, Locale] = {
    loc.name: loc
    for loc in (
        Locale(name="en-GB", language="en", country="GB", currency="GBP", marks=("£", "GBP"),
               tax_rates=_rates("20", "5"), number_formats=("1,234.56", "1234.56"),
               date_forms=("dmy-slash", "d-month-y", "d-mon-y", "iso", "dmy-dot")),
        Locale(name="en-US", language="en", country="US", currency="USD", marks=("$", "USD", "US$"),
               tax_rates=_rates("8.25", "6", "7.5"), number_formats=("1,234.56",),
               date_forms=("mdy-slash", "month-d-y", "iso"), has_vat_id=False, has_iban=False),
        Locale(name="de-DE", language="de", country="DE", currency="EUR", marks=("€", "EUR"),
               tax_rates=_rates("19", "7"), number_formats=("1.234,56", "1234,56"),
               date_forms=("dmy-dot", "dmy-dot-short", "d.-month-y", "iso")),
        Locale(name="de-AT", language="de", country="AT", currency="EUR", marks=("€", "EUR"),
               tax_rates=_rates("20", "10"), number_formats=("1.234,56", "1 234,56"),
               date_forms=("dmy-dot", "d.-month-y")),
        Locale(name="fr-FR", language="fr", country="FR", currency="EUR", marks=("€", "EUR"),
               tax_rates=_rates("20", "10", "5.5"), number_formats=("1 234,56", "1234,56"),
               date_forms=("dmy-slash", "d-month-y", "iso")),
        Locale(name="fr-BE", language="fr", country="BE", currency="EUR", marks=("€", "EUR"),
               tax_rates=_rates("21", "6"), number_formats=("1.234,56", "1 234,56"),
               date_forms=("dmy-slash", "dmy-dot", "d-month-y")),
        Locale(name="es-ES", language="es", country="ES", currency="EUR", marks=("€", "EUR"),
               tax_rates=_rates("21", "10"), number_formats=("1.234,56", "1234,56"),
               date_forms=("dmy-slash", "dmy-dash", "d-month-y", "d-mon-y")),
        Locale(name="it-IT", language="it", country="IT", currency="EUR", marks=("€", "EUR"),
               tax_rates=_rates("22", "10"), number_formats=("1.234,56",),
               date_forms=("dmy-slash", "dmy-dot", "d-month-y")),
        Locale(name="nl-NL", language="nl", country="NL", currency="EUR", marks=("€", "EUR"),
               tax_rates=_rates("21", "9"), number_formats=("1.234,56", "1234,56"),
               date_forms=("dmy-dash", "d-month-y", "iso", "dmy-slash")),
        Locale(name="pt-PT", language="pt", country="PT", currency="EUR", marks=("€", "EUR"),
               tax_rates=_rates("23", "13", "6"), number_formats=("1 234,56", "1.234,56"),
               date_forms=("dmy-slash", "dmy-dash", "iso", "d-month-y")),
        Locale(name="ms-MY", language="ms", country="MY", currency="MYR", marks=("RM", "MYR"),
               tax_rates=_rates("6", "8"), number_formats=("1,234.56", "1234.56"),
               date_forms=("dmy-slash", "dmy-dash", "d-mon-y", "iso"), has_vat_id=False,
               has_iban=False),
    )
}  # fmt: skip


def _split(*pairs: tuple[str, str]) -> tuple[tuple[str, Decimal], ...]:
    return tuple((name, Decimal(rate)) for name, rate in pairs)


#: Locales outside the first sets' (``--far-locales``): Swiss, Indian, Australian and
#: Canadian invoices, with their own number groupings, currency signs, tax names and ids.
FAR_LOCALES: dict[str, Locale] = {
    loc.name: loc
    for loc in (
        Locale(name="de-CH", language="de", country="CH", currency="CHF", marks=("CHF", "Fr."),
               tax_rates=_rates("8.1", "2.6"), number_formats=("1'234.56", "1234.56"),
               date_forms=("dmy-dot", "d.-month-y"), tax_names=("MWST", "MwSt.", "MWST"),
               tax_id_labels=("MWST-Nr.", "UID", "MWST")),
        Locale(name="fr-CH", language="fr", country="CH", currency="CHF", marks=("CHF", "Fr."),
               tax_rates=_rates("8.1", "2.6"), number_formats=("1'234.56",),
               date_forms=("dmy-dot", "d-month-y"), tax_names=("TVA",),
               tax_id_labels=("N° TVA", "IDE", "TVA")),
        Locale(name="en-IN", language="en", country="IN", currency="INR",
               marks=("₹", "Rs.", "INR"), tax_rates=_rates("18", "12", "5"),
               number_formats=("1,23,456.78", "1234.56"),
               date_forms=("dmy-slash", "dmy-dash", "d-mon-y"), has_iban=False,
               tax_names=("IGST", "GST"),
               split_taxes=(_split(("CGST", "9"), ("SGST", "9")),
                            _split(("CGST", "6"), ("SGST", "6")),
                            _split(("CGST", "2.5"), ("SGST", "2.5"))),
               price_scale=80, tax_id_labels=("GSTIN", "GST No.", "GSTIN/UIN"),
               split_total="Total GST"),
        Locale(name="en-AU", language="en", country="AU", currency="AUD", marks=("$", "AUD", "A$"),
               tax_rates=_rates("10"), number_formats=("1,234.56",),
               date_forms=("dmy-slash", "d-month-y", "d-mon-y"), has_iban=False,
               tax_names=("GST",), tax_id_labels=("ABN", "A.B.N.")),
        Locale(name="en-CA", language="en", country="CA", currency="CAD", marks=("$", "CAD", "C$"),
               tax_rates=_rates("13", "15"), number_formats=("1,234.56",),
               date_forms=("iso", "month-d-y", "dmy-slash"), has_iban=False,
               tax_names=("HST",),
               split_taxes=(_split(("GST", "5"), ("PST", "7")),
                            _split(("GST", "5"), ("QST", "9.975"))),
               tax_id_labels=("GST/HST No.", "HST #", "GST Reg. No."), split_total="Total Taxes"),
    )
}  # fmt: skip

#: Proportional fonts installed on the machine, for invoices.
INVOICE_FONTS = ("Inter", "DejaVu Sans", "DejaVu Serif", "Noto Sans", "Noto Serif")
#: Monospace fonts installed on the machine, for thermal-printer receipts.
RECEIPT_FONTS = ("DejaVu Sans Mono", "Noto Sans Mono CJK SC")

_COLUMNS = ("position", "description", "quantity", "unit_price", "line_amount")
_COLUMN_ORDERS: tuple[tuple[str, ...], ...] = (
    _COLUMNS,
    ("description", "quantity", "unit_price", "line_amount"),
    ("position", "quantity", "description", "unit_price", "line_amount"),
    ("quantity", "description", "line_amount"),
    ("description", "unit_price", "quantity", "line_amount"),
)


@attrs.frozen(kw_only=True)
class Layout:
    """Every seeded choice that shapes one document (see the package docstring).

    ``header``, ``logo``, ``parties``, ``table``, ``columns`` and ``stamp`` apply to invoices;
    ``paper_mm`` to receipts; the rest to both.
    """

    kind: str
    locale: Locale
    header: str
    logo: str
    parties: str
    table: str
    columns: tuple[str, ...]
    number_format: str
    currency: CurrencyStyle
    date_form: str
    watermark: bool
    stamp: bool
    tax_lines: bool
    discount: bool
    due_date: bool
    extra_labels: bool
    font: str
    paper_mm: int
    photo: bool
    # The harder totals block of invoices (see :mod:`.summary`); receipts keep the defaults.
    summary: str = "stacked"
    after_total: tuple[str, ...] = ()
    false_totals: tuple[str, ...] = ()
    total_twice: bool = False
    shipping: bool = False
    carried: bool = False
    # Other dates printed besides the issue and due dates (see :mod:`.dates`); none by default.
    other_dates: tuple[str, ...] = ()
    # Letterheads that trip an issuer reader (see :mod:`.issuers`); none by default.
    issuer_style: tuple[str, ...] = ()
    # A business letter's layout (DIN 5008 and its kin): the seller's one-line return address
    # over the buyer's window address, the document's numbers beside it, and the seller's
    # address, contacts, bank and tax numbers in columns side by side at the page's foot.
    letter: bool = False
    # Goods at several tax rates (see :mod:`.rates`): one tax row per rate, and with
    # ``rate_sum`` a row of their sum too; one rate by default.
    rates: int = 1
    rate_sum: bool = False
    # Taxes levied side by side on the same base (``Locale.split_taxes``): a row each.
    tax_split: tuple[tuple[str, Decimal], ...] = ()
    # Each item line's tax printed in columns of the item table (see :mod:`.line_taxes`).
    line_taxes: tuple[str, ...] = ()
    # Other numbers printed beside the invoice number (see :mod:`.other_numbers`).
    other_numbers: tuple[str, ...] = ()
    # How the printed PDF is rewritten, as other generators write theirs (see :mod:`.writers`).
    writer: str = ""
    # Letter-spaced type (see :mod:`.spacing`): which text, and by how much (em).
    spaced: str = ""
    spaced_em: float = 0.0
    # The letterhead prints the seller's name only inside its logo image (pixels, no text):
    # a text layer holds it only in the seller's block, return address or footer.
    name_in_logo: bool = False
    # Prices with the tax in (see :mod:`.included`): the total, then the tax it holds, the net.
    tax_included: str = ""
    # A payment slip after the footer (see :mod:`.slips`), on a page of its own when apart.
    slip: str = ""
    slip_apart: bool = False
    # The seller's bank named beside its IBAN (see :mod:`.banks`): how, or "" for not at all.
    bank: str = ""

    @property
    def family(self) -> str:
        """A short name of the layout's structure, for counting distinct layouts."""
        if self.kind == "receipt":
            return f"receipt-{self.paper_mm}mm-{self.font}-{'tax' if self.tax_lines else 'notax'}"
        return "-".join((self.header, self.logo, self.parties, self.table, ",".join(self.columns)))

    @property
    def totals_family(self) -> str:
        """The structure of the totals block, the family a ranker's folds keep out together."""
        if self.kind == "receipt":
            return self.family
        return "-".join(
            (
                self.summary,
                "after" if self.after_total else "last",
                "twice" if self.total_twice else "once",
                "carried" if self.carried else "single",
                "tax" if self.tax_lines else "notax",
            )
        )


#: Where till receipts come from besides Malaysia, unless every locale is asked for.
_RECEIPTS_ABROAD = ("en-GB", "en-US", "de-DE", "fr-FR")


#: Signs that stand before the amount (English-speaking, Malaysian, Indian and Swiss use);
#: most of the euro area puts its sign after it, and codes go either way.
_SIGNS_BEFORE = ("£", "$", "US$", "RM", "₹", "Rs.", "A$", "C$", "Fr.")


def locale_style(locale: Locale, rng: random.Random) -> tuple[CurrencyStyle, str, str]:
    """How a document of ``locale`` prints money, numbers and dates, drawn from ``rng``."""
    mark = rng.choice(locale.marks)
    number_format = rng.choice(locale.number_formats)
    before = mark in _SIGNS_BEFORE or (len(mark) == 3 and rng.random() < 0.5)
    currency = CurrencyStyle(
        code=locale.currency, mark=mark, before=before, space=len(mark) > 1 or rng.random() < 0.5
    )
    date_form = rng.choice(locale.date_forms)
    assert date_form in DATE_FORMATS and number_format in NUMBER_FORMATS
    return currency, number_format, date_form


def choose_layout(
    kind: str, rng: random.Random, *, photos: bool, every_locale: bool = False
) -> Layout:
    """The layout of one ``kind`` document (``invoice`` or ``receipt``), drawn from ``rng``.

    ``every_locale``: receipts not from Malaysia come from any locale (Austrian, Belgian,
    Dutch... addresses, with their four-figure post codes), not only the four of the
    first sets; the draws are the same, so a seed's other choices stay as they were.
    """
    if kind == "receipt":
        # Till receipts: mostly the Malaysian kind the receipt rules know, some from elsewhere.
        abroad = tuple(sorted(set(LOCALES) - {"ms-MY"})) if every_locale else _RECEIPTS_ABROAD
        name = "ms-MY" if rng.random() < 0.6 else rng.choice(abroad)
    else:
        name = rng.choice(sorted(LOCALES))
    locale = LOCALES[name]
    currency, number_format, date_form = locale_style(locale, rng)
    return Layout(
        kind=kind,
        locale=locale,
        header=rng.choice(("left", "right", "centre")),
        logo=rng.choice(("text", "image", "none")),
        parties=rng.choice(("two-column", "stacked", "buyer-first")),
        table=rng.choice(("ruled", "zebra", "borderless", "boxed")),
        columns=rng.choice(_COLUMN_ORDERS),
        number_format=number_format,
        currency=currency,
        date_form=date_form,
        watermark=rng.random() < 0.3,
        stamp=rng.random() < 0.2,
        tax_lines=rng.random() < (0.85 if kind == "invoice" else 0.6),
        discount=rng.random() < 0.25,
        due_date=kind == "invoice" and rng.random() < 0.75,
        extra_labels=rng.random() < 0.3,
        font=rng.choice(RECEIPT_FONTS if kind == "receipt" else INVOICE_FONTS),
        paper_mm=rng.choice((58, 80)),
        photo=photos and (kind == "receipt" or rng.random() < 1 / 3),
    )
