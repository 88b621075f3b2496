"""Synthetic invoices, receipts and contracts whose truth is known: for training, tests and
evaluation only (contracts: :mod:`.contracts`, ``--kind contract``).

The parser never imports this package. ``scripts/synth_docs.py`` drives it::

    python scripts/synth_docs.py --kind invoice --count 100 --seed 1 --out /tmp/synth [--photos]

Every document is a seeded function of ``(seed, kind, index)``: the same seed gives the same
documents, HTML and labels. Nothing is taken from the dev set (names, numbers and layouts are
invented here; the dev set is validation only).

What varies, each a seeded choice per document:

- locale (:data:`.layouts.LOCALES`): en-GB, en-US, de-DE, de-AT, fr-FR, fr-BE, es-ES, it-IT,
  nl-NL, pt-PT, ms-MY for invoices; receipts are mostly ms-MY, else en-GB, en-US, de-DE, fr-FR;
- label wordings: from the parser's lexicons in the document's language (:mod:`.wording`), or,
  on 30% of documents, wordings deliberately absent from the lexicons
  (:data:`.wording.EXTRA_LABELS`), which measure generalisation;
- header: issuer block left, right or centred; logo as text (the name's first word large), as a
  generated image (a Pillow-drawn mark with initials) or none;
- parties: seller/buyer side by side, stacked, or buyer first; a buyer block (a decoy for the
  issuer) and an order number (a decoy for the invoice number) on every invoice;
- item tables: ruled, zebra, borderless or boxed, five column orders (with or without line
  numbers);
- number formats ``1,234.56``, ``1.234,56``, ``1 234,56`` (narrow no-break space), ``1234.56``,
  ``1234,56``; currency as a symbol (``€ £ $ RM``) or a code, before or after, spaced or not;
- dates: ISO, ``03/04/2024``, ``03.04.2024``, ``03.04.24``, ``03-04-2024``, ``3 April 2024``
  and ``3. April 2024`` and ``03 Apr 2024`` with month names in the document's language,
  ``April 3, 2024`` and ``04/03/2024`` on US documents;
- totals with tax lines (subtotal, tax at a rate of the country, total) or without (total
  only), with or without a discount line: ``total = subtotal - discount + tax``;
- a harder totals block on invoices (:mod:`.summary`, from a generator of its own): amounts
  below the total (previous balance, deposit, payments, rounding, then a balance due under an
  amount-due label), "total" labels on non-totals (total hours, total quantity, total per page,
  a "Total" column header), the total printed twice (a box near the top), a column-style
  summary (labels above values, the total rightmost), shipping lines (taxed with the goods:
  ``total = subtotal - discount + shipping + tax``) and a carried-forward subtotal after half
  the items (the rest on a second PDF page); the truth's ``amounts`` lists every amount of the
  block with its role, ``total`` being the invoice total;
- a messier receipt header (:mod:`.receipt_header`, from a generator of its own): brand, logo,
  branch, registration or title lines before the name, the name over two lines, the address
  over two to four lines with contact, tax-id and store lines around or inside it;
- letter-spaced type (``--spaced-type``, :mod:`.spacing`): a title, the labels or every line set
  apart, or a title typed with a space between its letters;
- PDFs rewritten as other generators write them (``--pdf-writers``, :mod:`.writers`): turned
  pages, sideways text, a stray ``/Rotate``, fonts without ToUnicode maps;
- watermarks (``COPY``, ``KOPIE``, ``DUPLICATA``...) and rubber stamps (``PAID``, ``BEZAHLT``...);
- identifiers: IBANs and VAT ids with valid checksums, computed (:mod:`.values`);
- fonts: Inter, DejaVu Sans/Serif, Noto Sans/Serif on invoices; receipts are thermal-printer
  slips 58 mm (32 columns) or 80 mm (42 columns) wide in DejaVu Sans Mono or Noto Sans Mono;
- photos (``--photos``): every receipt and a third of the invoices become photos: the page on a
  background, turned up to 4 degrees, warped in perspective, unevenly lit, blurred, JPEG
  quality 35-70 (:mod:`.photo`).

Modules, one job each: :mod:`.names` (invented companies and addresses), :mod:`.values`
(amounts, dates, checksummed ids), :mod:`.wording` (label words), :mod:`.layouts` (the layout
choices), :mod:`.summary` (the harder totals block), :mod:`.documents` (content and truth),
:mod:`.receipt_header` (a receipt's header lines), :mod:`.render` (HTML), :mod:`.photo`,
:mod:`.labels` (manifest, index), :mod:`.score` (the set's scorer), :mod:`.build` (rendering a
set on one browser).
"""

from __future__ import annotations

from renderkit.parsing.synth.build import BuiltSet, build_set, make_documents, render_document
from renderkit.parsing.synth.documents import Decoy, LineItem, SynthDocument, make_document
from renderkit.parsing.synth.layouts import LOCALES, Layout, Locale
from renderkit.parsing.synth.variations import PLAIN, Variations

__all__ = [
    "LOCALES",
    "PLAIN",
    "BuiltSet",
    "Decoy",
    "Layout",
    "LineItem",
    "Locale",
    "SynthDocument",
    "Variations",
    "build_set",
    "make_document",
    "make_documents",
    "render_document",
]
