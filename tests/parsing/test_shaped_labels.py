"""Invoice numbers and due dates under labels no lexicon holds, read by their words' kinds.

Every wording here is absent from the lexicons and from the synthetic factory's
``EXTRA_LABELS``: the mechanisms must read labels they were never given.
"""

import tomllib
from importlib import resources

import pytest

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.constraints import number_refusal
from renderkit.parsing.extract.invoice import invoice_fields
from renderkit.parsing.extract.shaped import colon_labels, introduces_due_date, names_document
from renderkit.parsing.lexicons import LANGUAGES, load_lexicon, load_terms, tokens
from renderkit.parsing.synth.wording import EXTRA_LABELS

from .test_invoice import _fields, _page

_ISSUED = (0.05, 0.03, "Invoice date: 01.04.2024")


def _words(label: str) -> tuple[str, ...]:
    return tuple(t for t, _, _ in tokens(label))


@pytest.mark.parametrize(
    ("label", "value"),
    [
        ("Document reference", "AB-40213"),
        ("Número de documento", "2024-0117"),
        ("Riferimento documento", "FT-20931"),
        ("Factuurkenmerk", "2024-5531"),
        ("Rechnungskennziffer", "4471-923"),
    ],
)
def test_a_label_of_document_and_reference_words_names_the_invoice_number(
    label: str, value: str
) -> None:
    assert _fields([(0.60, 0.05, f"{label}: {value}")])["number"] == value


@pytest.mark.parametrize("label", ["Order reference", "Customer code", "Your reference"])
def test_a_reference_label_with_another_fields_word_names_no_invoice_number(label: str) -> None:
    assert "number" not in _fields([(0.60, 0.05, f"{label}: PO-44102")])


def test_a_series_prefix_after_the_values_own_label_is_kept_when_read_below_a_title() -> None:
    # "Belegkennung: RE 20-55120" is the value below the title "RECHNUNG" (a number label);
    # the prefix sits between the value's own label and its number.
    cells = [(0.05, 0.05, "RECHNUNG"), (0.05, 0.07, "Belegkennung: RE 20-55120")]
    assert _fields(cells)["number"] == "RE 20-55120"


def test_a_house_number_after_a_number_mark_is_not_the_invoice_number() -> None:
    # A Malaysian address opens with "No 12,": the invoice number is the labelled one below.
    cells = [
        (0.05, 0.03, "Kedai Contoh Sdn Bhd"),
        (0.05, 0.05, "NO 12, JALAN MERDEKA 3"),
        (0.05, 0.09, "No bil: SP40021"),
    ]
    assert _fields(cells)["number"] == "SP40021"
    assert number_refusal("12", "NO 12, JALAN MERDEKA 3", inline=True) is not None
    assert number_refusal("12", "Invoice No: 12", inline=True) is None


@pytest.mark.parametrize(
    ("label", "value"),
    [
        ("Payable before", "15.04.2024"),
        ("Zahlungsfrist", "15.04.2024"),
        ("Abonar antes de", "15/04/2024"),
        ("Betalen uiterlijk", "15-04-2024"),
        ("Payer avant le", "15/04/2024"),
        ("Bayar selewat-lewatnya", "15/04/2024"),
    ],
)
def test_a_label_of_paying_and_a_deadline_introduces_the_due_date(label: str, value: str) -> None:
    fields = _fields([_ISSUED, (0.05, 0.05, f"{label}: {value}")])
    assert fields["due_date"] == "2024-04-15"


@pytest.mark.parametrize(
    "printed",
    [
        "Delivery by: 15.04.2024",
        "Payment received: 15.04.2024",
        "Paid by: 15.04.2024",
        "Payable until: 01.05.2024 - 31.05.2024",
        "Payable before: see terms, 15.04.2024",
    ],
)
def test_a_deadline_without_paying_a_payment_made_or_a_period_gives_no_due_date(
    printed: str,
) -> None:
    assert "due_date" not in _fields([_ISSUED, (0.05, 0.05, printed)])


def test_a_due_date_read_by_its_labels_shape_is_reported_below_the_confident_band() -> None:
    cells = [_ISSUED, (0.05, 0.05, "Payable before: 15.04.2024")]
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))
    due = invoice_fields(document).fields["due_date"]
    assert due.value == "2024-04-15"
    assert due.confidence < 0.8


def test_colon_labels_are_the_words_after_the_previous_value() -> None:
    labels = colon_labels("Ref: F 25-84511 Issued on: 6 July 2025 Pay before: 4 Sept 2025")
    assert [label.words for label in labels] == [("ref",), ("issued", "on"), ("pay", "before")]
    assert colon_labels("Please quote this document reference in every payment: X1")[:1] == []


def test_the_shape_rules_do_not_recite_the_synthetic_factorys_extra_wordings() -> None:
    # Each language lists the kinds of words, never a whole label of the factory's extras.
    lexicon, terms = load_lexicon(), load_terms()
    vocabulary = (
        terms.document_words
        | terms.reference_words
        | terms.linking_words
        | set(terms.payment_stems)
        | {" ".join(d) for d in terms.deadline_words}
    )
    for language in EXTRA_LABELS:
        for extras in EXTRA_LABELS[language].values():
            for extra in extras:
                assert " ".join(_words(extra)) not in vocabulary, extra
    assert names_document(_words("Document ref"), lexicon, terms)
    assert introduces_due_date(_words("Pay before"), lexicon, terms)


def test_every_lexicon_language_lists_every_kind_of_shape_word() -> None:
    kinds = ("document_words", "reference_words", "linking_words", "payment_stems")
    for language in LANGUAGES:
        text = resources.files("renderkit.parsing.lexicons").joinpath(f"{language}.toml")
        terms = tomllib.loads(text.read_text())["terms"]
        for kind in (*kinds, "deadline_words"):
            assert terms.get(kind), (language, kind)


_PARTIES = [
    (0.05, 0.02, "FATTURA"),
    (0.05, 0.05, "Fornitore"), (0.55, 0.05, "Cliente"),
    (0.05, 0.07, "Alfa Servizi S.p.A."), (0.55, 0.07, "Beta Commercio S.r.l."),
    (0.05, 0.09, "Via Roma, 10"), (0.55, 0.09, "Corso Italia, 5"),
]  # fmt: skip


def test_a_number_on_a_row_of_labelled_fields_under_the_parties_is_the_invoices() -> None:
    # The row runs across both parties' columns, so the seller's block takes it in.
    row = [
        (0.05, 0.11, "Numero: FT 21-74446"),
        (0.35, 0.11, "Data fattura: 15/03/2021"),
        (0.65, 0.11, "Ordine n.: PO-17069"),
    ]
    assert _fields([*_PARTIES, *row])["number"] == "FT 21-74446"


def test_a_number_on_a_row_of_its_own_inside_a_partys_block_is_that_partys() -> None:
    assert "number" not in _fields([*_PARTIES, (0.05, 0.11, "Numero: 4471-22")])
