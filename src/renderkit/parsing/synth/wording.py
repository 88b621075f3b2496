"""The words printed before values: taken from the parser's lexicons, plus wordings that are
deliberately not in them.

The lexicons (``renderkit/parsing/lexicons/<lang>.toml``) are the source of most label words, so
the factory and the parser cannot drift apart. :data:`EXTRA_LABELS` adds, per language, wordings
absent from the lexicons (a test checks that they stay absent): a share of documents print them,
which measures whether the parser generalises beyond its vocabulary rather than reciting it.
"""

from __future__ import annotations

import functools
import random
import tomllib
from importlib import resources

from renderkit.parsing.lexicons import LANGUAGES, tokens

__all__ = [
    "EXTRA_LABELS",
    "STAMP_WORDS",
    "TITLES",
    "WATERMARK_WORDS",
    "label",
    "lexicon_labels",
    "printed",
]

#: The concepts the factory prints labels for.
CONCEPTS: tuple[str, ...] = (
    "invoice_number", "invoice_date", "due_date", "subtotal", "tax", "total", "discount",
    "vat_id", "iban", "bic", "customer", "seller", "description", "quantity", "unit_price",
    "line_amount", "position",
)  # fmt: skip

# Concepts whose labels must not be shared: a label listed under two of them ("net total" is a
# subtotal and a total in English) would print a truth the document itself contradicts.
_RIVALS: tuple[frozenset[str], ...] = (
    frozenset({"subtotal", "tax", "total", "discount", "amount_due"}),
    frozenset({"line_amount", "unit_price"}),
    frozenset({"invoice_date", "due_date"}),
    frozenset({"invoice_number", "position"}),
)

#: Per language and concept: wordings the lexicons do not hold (kept out of them on purpose).
EXTRA_LABELS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {"invoice_number": ("Invoice code", "Doc. ref. code"),
           "invoice_date": ("Dated", "Date raised"),
           "due_date": ("Settle by", "Payment deadline"),
           "subtotal": ("Goods value", "Sum of items"),
           "total": ("Sum to pay", "Total charge"),
           "tax": ("Levy",)},
    "de": {"invoice_number": ("Rechnungskennung", "Beleg-Code"),
           "invoice_date": ("Ausgestellt am", "Erstellt am"),
           "due_date": ("Begleichen bis", "Zahlungstermin"),
           "subtotal": ("Warensumme", "Positionssumme"),
           "total": ("Endsumme", "Zu begleichen")},
    "fr": {"invoice_number": ("Référence pièce", "Code facture"),
           "invoice_date": ("Établie le", "Datée du"),
           "due_date": ("À régler avant", "Règlement au plus tard"),
           "subtotal": ("Montant des articles",),
           "total": ("Somme à régler", "Montant final")},
    "es": {"invoice_number": ("Código de factura", "Ref. documento"),
           "invoice_date": ("Emitida el", "Expedida el"),
           "due_date": ("Pagar antes del", "Plazo de pago hasta"),
           "subtotal": ("Suma de artículos",),
           "total": ("Importe a abonar", "Suma final")},
    "it": {"invoice_number": ("Codice fattura", "Rif. documento"),
           "invoice_date": ("Emessa il", "Redatta il"),
           "due_date": ("Saldare entro", "Termine di pagamento"),
           "subtotal": ("Somma articoli",),
           "total": ("Somma da versare", "Importo finale")},
    "nl": {"invoice_number": ("Factuurcode", "Documentkenmerk"),
           "invoice_date": ("Opgemaakt op", "Uitgegeven op"),
           "due_date": ("Voldoen voor", "Uiterste betaaldag"),
           "subtotal": ("Som artikelen",),
           "total": ("Te voldoen", "Eindsom")},
    "pt": {"invoice_number": ("Código da fatura", "Ref. documento"),
           "invoice_date": ("Emitida em", "Passada em"),
           "due_date": ("Liquidar até", "Prazo de liquidação"),
           "subtotal": ("Soma dos artigos",),
           "total": ("Montante a liquidar", "Soma final")},
    "ms": {"invoice_number": ("Kod invois", "Rujukan dokumen"),
           "invoice_date": ("Dikeluarkan pada",),
           "due_date": ("Jelaskan sebelum",),
           "subtotal": ("Jumlah barangan",),
           "total": ("Amaun untuk dijelaskan", "Jumlah akhir")},
}  # fmt: skip

#: Invoice titles per language (all of them lexicon document titles).
TITLES: dict[str, tuple[str, ...]] = {
    "en": ("INVOICE", "Invoice", "Tax Invoice"), "de": ("RECHNUNG", "Rechnung"),
    "fr": ("FACTURE", "Facture"), "es": ("FACTURA", "Factura"), "it": ("FATTURA", "Fattura"),
    "nl": ("FACTUUR", "Factuur"), "pt": ("FATURA", "Fatura"), "ms": ("INVOIS", "INVOIS CUKAI"),
}  # fmt: skip

#: Watermark words per language (printed large and faint across the page).
WATERMARK_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("COPY", "DUPLICATE", "DRAFT", "SAMPLE"), "de": ("KOPIE", "DUPLIKAT", "ENTWURF"),
    "fr": ("COPIE", "DUPLICATA", "BROUILLON"), "es": ("COPIA", "DUPLICADO", "BORRADOR"),
    "it": ("COPIA", "DUPLICATO", "BOZZA"), "nl": ("KOPIE", "DUPLICAAT", "CONCEPT"),
    "pt": ("CÓPIA", "DUPLICADO", "RASCUNHO"), "ms": ("SALINAN", "COPY", "DRAF"),
}  # fmt: skip

#: Stamp words per language (a tilted framed word, as a rubber stamp).
STAMP_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("PAID", "RECEIVED", "APPROVED"), "de": ("BEZAHLT", "ERHALTEN", "GEBUCHT"),
    "fr": ("PAYÉ", "REÇU", "ACQUITTÉ"), "es": ("PAGADO", "RECIBIDO"),
    "it": ("PAGATO", "RICEVUTO"), "nl": ("BETAALD", "ONTVANGEN"), "pt": ("PAGO", "RECEBIDO"),
    "ms": ("DIBAYAR", "PAID"),
}  # fmt: skip

# Acronyms printed in capitals when a lexicon label (stored folded, in lower case) is printed.
_ACRONYMS = frozenset(
    {"iban", "bic", "vat", "gst", "sst", "mwst", "ust", "tva", "iva", "btw", "nif", "nipc",
     "cif", "po", "id", "swift", "hst", "pst", "abn", "ht", "ttc", "pvm", "ep", "gp", "me"}
)  # fmt: skip


def _fold(text: str) -> tuple[str, ...]:
    return tuple(t for t, _, _ in tokens(text))


@functools.cache
def lexicon_labels(language: str) -> dict[str, tuple[str, ...]]:
    """The lexicon's labels per concept that the factory may print (unshared, not bare)."""
    if language not in LANGUAGES:
        msg = f"no lexicon for language {language!r}"
        raise ValueError(msg)
    text = resources.files("renderkit.parsing.lexicons").joinpath(f"{language}.toml").read_text()
    labels: dict[str, list[str]] = tomllib.loads(text)["labels"]
    usable: dict[str, tuple[str, ...]] = {}
    # The amount due is printed only by the harder totals block (the balance left to pay).
    for concept in (*CONCEPTS, "amount_due"):
        rivals = set().union(*(group for group in _RIVALS if concept in group)) - {concept}
        taken = {_fold(w) for other in rivals for w in labels.get(other, ())}
        usable[concept] = tuple(
            w
            for w in labels.get(concept, ())
            if _fold(w) not in taken
            and (len(w) >= 3 or concept == "position")
            and w not in _NATIONAL_TAXES
        )
    return usable


# Taxes only one country levies (Canada's harmonized and provincial ones, India's shares of
# its GST): printed only by that country's pages, through their locale's own tax names.
_NATIONAL_TAXES = frozenset({"hst", "pst", "qst", "igst", "cgst", "sgst", "utgst"})


def printed(word: str) -> str:
    """A lexicon label as a document prints it: first letter up, acronyms in capitals."""
    parts = word.split(" ")
    out = [p.upper() if p in _ACRONYMS else p for p in parts]
    out[0] = out[0][:1].upper() + out[0][1:]
    return " ".join(out)


def label(concept: str, language: str, rng: random.Random, *, extra_share: float) -> str:
    """A label for ``concept``: a lexicon wording, or with ``extra_share`` odds an extra one."""
    extras = EXTRA_LABELS.get(language, {}).get(concept, ())
    if extras and rng.random() < extra_share:
        return rng.choice(extras)
    words = lexicon_labels(language)[concept] or lexicon_labels("en")[concept]
    # The first entries of a lexicon list are its common wordings: favour them.
    return printed(words[min(int(rng.expovariate(0.5)), len(words) - 1)])
