"""Failures seen on invoices the rules were never tuned on, each tripped by a synthetic case."""

from renderkit.parsing.extract.classify import classify

from .test_invoice import _fields

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
