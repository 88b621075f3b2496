"""Stage 3 and 4, classify and extract: the document type, then that type's fields.

- :mod:`.classify`: the document type, decided once from keywords.
- Extractors per document type: :mod:`.receipt`, :mod:`.invoice`, :mod:`.contract`.
- The mechanisms they share: :mod:`.keyvalues` (labels and their values), :mod:`.tables`
  (line items), :mod:`.identifiers` (IBANs, VAT ids, legal forms), :mod:`.parties` (seller
  and customer blocks), :mod:`.values` and :mod:`.numbers` (dates, amounts, number formats),
  :mod:`.ocrfix` (repairing OCR slips in names and addresses), :mod:`.found` (a found value).
"""
