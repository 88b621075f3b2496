"""Failures seen on invoices the rules were never tuned on, each tripped by a synthetic case."""

import datetime
from decimal import Decimal

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.classify import classify
from renderkit.parsing.extract.constraints import period_dates, total_floor, total_refusal
from renderkit.parsing.extract.documents import extract_fields
from renderkit.parsing.extract.invoice import invoice_fields
from renderkit.parsing.extract.values import find_dates
from renderkit.parsing.rank.switches import Rankers

from .test_invoice import _fields, _page

_PORTUGUESE = """FATURA
Oficina Exemplo Lda.
Cliente: Loja Modelo Lda.
N.º: 0042484
Data: 17/01/2022
Artigo Qtd Preço Total
Montagem 8 583,26 4666,08
IVA 23 % 1073,20
Total 5739,28
"""

_MALAY = """INVOIS CUKAI
Syarikat Contoh Sdn. Bhd.
Kepada: Kedai Model Sdn. Bhd.
No.: 0016972
Tarikh: 03/04/2023
Perihal Kuantiti Harga Jumlah
Pemasangan 2 150,00 300,00
Jumlah 300,00
"""


def test_a_portuguese_fatura_is_classified_as_an_invoice() -> None:
    assert classify(_PORTUGUESE)[0] == "invoice"


def test_a_malay_invois_is_classified_as_an_invoice() -> None:
    assert classify(_MALAY)[0] == "invoice"


def test_a_series_prefix_printed_apart_from_the_number_is_part_of_it() -> None:
    inline = _fields([(0.60, 0.05, "Invoice No: INV 20-20658")])
    below = _fields([(0.60, 0.05, "Invoice No."), (0.60, 0.07, "RE 19-48795")])
    assert inline["number"] == "INV 20-20658"
    assert below["number"] == "RE 19-48795"


def test_a_number_mark_before_the_number_is_no_prefix() -> None:
    assert _fields([(0.60, 0.05, "Invoice: NO 4711-A")])["number"] == "4711-A"
    assert _fields([(0.60, 0.05, "Invoice No: Nr 4711-A")])["number"] == "4711-A"


# A totals block whose total label is a wording no lexicon holds, beside a "Total hours" line,
# and a balance after a payment on account under an amount-due label.
_UNKNOWN_TOTAL_LABEL: list[tuple[float, float, str]] = [
    (0.05, 0.05, "Invoice No: A-17"),
    (0.05, 0.30, "Description"), (0.50, 0.30, "Qty"), (0.62, 0.30, "Unit price"),
    (0.80, 0.30, "Amount"),
    (0.05, 0.32, "Consulting"), (0.50, 0.32, "4"), (0.62, 0.32, "250.00"),
    (0.80, 0.32, "1,000.00"),
    (0.05, 0.34, "Design"), (0.50, 0.34, "2"), (0.62, 0.34, "100.00"),
    (0.80, 0.34, "200.00"),
    (0.05, 0.40, "Total hours: 6.00"),
    (0.60, 0.44, "VAT 19 %"), (0.80, 0.44, "228.00"),
    (0.60, 0.46, "Sum to settle"), (0.80, 0.46, "1,428.00"),
    (0.60, 0.48, "Paid on account"), (0.80, 0.48, "-100.00"),
    (0.60, 0.50, "Amount due"), (0.80, 0.50, "1,328.00"),
]  # fmt: skip


def _extracted(cells: list[tuple[float, float, str]], *, ranker: bool) -> dict[str, object]:
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))
    rankers = Rankers(total=ranker)
    found = extract_fields("invoice", document, day_first=True, rankers=rankers).fields
    return {name: f.value for name, f in found.items()}


def test_an_amount_the_arithmetic_names_is_the_total_under_an_unknown_label() -> None:
    for ranker in (False, True):
        values = _extracted(_UNKNOWN_TOTAL_LABEL, ranker=ranker)
        assert values["total"] == "1428.00", ranker
        assert values["subtotal"] == "1200.00", ranker
        assert values["tax"] == "228.00", ranker


def test_an_amount_equal_to_the_subtotal_alone_is_not_an_unlabelled_total() -> None:
    # No tax and no discount printed: an amount equal to the line sum is no evidence.
    cells = [c for c in _UNKNOWN_TOTAL_LABEL[:-4] if not c[2].startswith(("VAT", "228"))]
    cells.append((0.60, 0.50, "Carried forward 1,200.00"))
    assert "total" not in _fields(cells)


def test_a_total_below_a_checked_line_amount_is_refused() -> None:
    # Without the tax line nothing agrees: "Total hours 6.00" was the only total label left.
    cells = [c for c in _UNKNOWN_TOTAL_LABEL[:-4] if not c[2].startswith(("VAT", "228"))]
    assert "total" not in _fields(cells)
    for ranker in (False, True):
        assert "total" not in _extracted(cells, ranker=ranker), ranker
    floor = total_floor([Decimal("1000.00")], Decimal(0))
    assert total_refusal(Decimal("6.00"), floor) is not None
    assert total_refusal(Decimal("-1200.00"), floor) is None
    # An unchecked line (quantity x price != amount) sets no floor.
    assert total_floor([], Decimal(0)) is None
    assert total_refusal(Decimal("6.00"), None) is None


def test_a_discount_lowers_the_least_a_total_can_be_by_its_size_only() -> None:
    # One line of 11.00 less a discount of 1.00: the total 10.00 is below the line.
    floor = total_floor([Decimal("11.00")], Decimal("-1.00"))
    assert floor == Decimal("10.00")
    assert total_refusal(Decimal("10.00"), floor) is None
    assert total_refusal(Decimal("9.99"), floor) is not None


def test_a_tax_rate_cut_from_its_percent_sign_is_not_the_tax() -> None:
    values = _fields(
        [
            (0.05, 0.05, "Invoice No: A-17"),
            (0.50, 0.40, "Net amount"), (0.80, 0.40, "1,200.00"),
            (0.50, 0.42, "Sales tax 6"), (0.62, 0.42, "%"),
            (0.50, 0.44, "Total"), (0.80, 0.44, "1,272.00"),
        ]
    )  # fmt: skip
    assert values.get("tax") != "6"
    assert values["total"] == "1272.00"
    # Where the totals are whole numbers too, a whole tax stays.
    whole = _fields(
        [
            (0.05, 0.05, "Invoice No: A-17"),
            (0.50, 0.40, "Net amount"), (0.80, 0.40, "1200"),
            (0.50, 0.42, "Sales tax"), (0.80, 0.42, "72"),
            (0.50, 0.44, "Total"), (0.80, 0.44, "1272"),
        ]
    )  # fmt: skip
    assert whole["tax"] == "72"


def test_a_date_that_opens_or_closes_a_period_is_not_the_issue_date() -> None:
    assert period_dates("From 17.12.2018 to 06.01.2019 we are closed") == {
        datetime.date(2018, 12, 17),
        datetime.date(2019, 1, 6),
    }
    assert period_dates("01.10.2018 - 31.10.2018") == {
        datetime.date(2018, 10, 1),
        datetime.date(2018, 10, 31),
    }
    assert period_dates("Date: 01.10.2018 Due date: 31.10.2018") == set()
    # "Vom" ("dated") can introduce the issue date; here it opens the office's holidays.
    cells = [
        (0.05, 0.05, "Rechnung Nr. 4711 vom 31.10.2018"),
        (0.05, 0.60, "Vom 17.12.2018 bis 06.01.2019 ist das Büro geschlossen."),
    ]
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))
    for ranker in (False, True):
        found = invoice_fields(document, date_ranker=ranker).fields
        assert found["date"].value == "2018-10-31", ranker


def test_month_names_of_every_lexicon_language_make_dates() -> None:
    cases = {
        "Fällig am: 4. Januar 2021": datetime.date(2021, 1, 4),
        "Date d'échéance : 20 mars 2019": datetime.date(2019, 3, 20),
        "Vencimiento: 5 de diciembre de 2023": datetime.date(2023, 12, 5),
        "Scadenza pagamento: 9 dicembre 2023": datetime.date(2023, 12, 9),
        "Uiterste betaaldatum: 22 maart 2022": datetime.date(2022, 3, 22),
        "Data de vencimento: 19 agosto 2026": datetime.date(2026, 8, 19),
        "Tarikh akhir: 02 Mac 2019": datetime.date(2019, 3, 2),
    }
    for text, date in cases.items():
        assert [d for d, _, _ in find_dates(text)] == [date], text


def test_a_short_month_word_without_a_four_digit_year_is_no_date() -> None:
    # "Set" (Italian and Portuguese for September) is also an item; 12,50 is a price.
    assert find_dates("3 Set 12,50") == []
    assert find_dates("4 Set di cavi 40 687,27") == []


def test_an_identifier_after_a_label_naming_the_document_is_its_number() -> None:
    # Wordings no lexicon holds: the label's shape (a title word, a colon) says what it is.
    assert _fields([(0.60, 0.05, "Invoice code: MK46286")])["number"] == "MK46286"
    assert _fields([(0.60, 0.05, "Código de factura: PF96547")])["number"] == "PF96547"


def test_a_label_naming_the_document_and_a_date_amount_or_short_value_gives_no_number() -> None:
    assert "number" not in _fields([(0.60, 0.05, "Invoice date: 12.03.2024")])
    assert "number" not in _fields([(0.60, 0.05, "Invoice total: 1,234.56")])
    assert "number" not in _fields([(0.60, 0.05, "Invoice code: A1")])


# An issue date and a due date under wordings no lexicon holds, side by side on one line:
# "Date" reaches both, "Payment deadline" says which is the due date.
_DEADLINE_BESIDE_ISSUE_DATE: list[tuple[float, float, str]] = [
    (0.05, 0.05, "Grundwerk Trading LLC"),
    (0.05, 0.08, "219 Harbour Road"),
    (0.05, 0.14, "Invoice"),
    (0.05, 0.20, "Doc. ref. code: INV 20-22999"), (0.32, 0.20, "Date raised: 2020-10-06"),
    (0.56, 0.20, "Payment deadline: 2020-12-05"),
    (0.05, 0.30, "Description"), (0.60, 0.30, "Amount"),
    (0.05, 0.32, "Consulting hours"), (0.60, 0.32, "6,484.55"),
    (0.05, 0.40, "Total"), (0.60, 0.40, "6,484.55"),
]  # fmt: skip


def test_a_date_its_own_words_call_the_deadline_is_not_the_issue_date() -> None:
    for ranker in (False, True):
        document = Document(
            mime_type="application/pdf", content=b"", pages=(_page(_DEADLINE_BESIDE_ISSUE_DATE),)
        )
        rankers = Rankers(date=ranker)
        found = extract_fields("invoice", document, day_first=True, rankers=rankers).fields
        assert found["date"].value == "2020-10-06", ranker
        assert found["due_date"].value == "2020-12-05", ranker
