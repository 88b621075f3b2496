"""Where a party block ends and what a seller's name can be, as photographed letters and
Austrian partnerships print them: a buyer's block over the seller's after a blank line, a
return address naming an "OG", a label no lexicon holds at the top, a middle dot run into the
name by OCR. Each page is made up here; each test fails without the rule it names."""

from __future__ import annotations

import pytest

from renderkit.parsing.extract.constraints import issuer_refusal
from renderkit.parsing.extract.documents import extract_invoice
from renderkit.parsing.extract.invoice import invoice_fields, invoice_issuer_candidates
from renderkit.parsing.extract.keyvalues import key_values
from renderkit.parsing.extract.parties import legal_names, parties, top_names
from renderkit.parsing.layout.model import Segment, layout_document
from renderkit.parsing.rank.issuer import ISSUER_FEATURES
from renderkit.parsing.rank.switches import DEFAULT_RANKERS

from ._pages import sized_document, sized_words

_TOTALS = [
    (0.05, 0.400, "Beratung", 0.012), (0.80, 0.400, "1.000,00", 0.012),
    (0.60, 0.450, "Nettobetrag", 0.012), (0.80, 0.450, "1.000,00", 0.012),
    (0.60, 0.470, "MwSt 20 %", 0.012), (0.80, 0.470, "200,00", 0.012),
    (0.60, 0.490, "Gesamtbetrag", 0.012), (0.80, 0.490, "1.200,00", 0.012),
]  # fmt: skip

# The buyer's block first, its heading read taller than its lines (a tilted photo's boxes),
# then a blank line and the seller's block in the same type: no label heads it.
BUYER_OVER_SELLER = [
    (0.05, 0.100, "Rechnungsempfänger", 0.020),
    (0.05, 0.122, "Marta Keller", 0.013),
    (0.05, 0.136, "Gartenstrasse 58", 0.013),
    (0.05, 0.150, "3626 Hinterdorf", 0.013),
    (0.05, 0.176, "Kestrel Druck AG", 0.014),
    (0.05, 0.190, "Rue du Lac 224", 0.013),
    (0.05, 0.204, "2837 Seedorf", 0.013),
    (0.05, 0.260, "RECHNUNG", 0.020),
    (0.05, 0.290, "Rechnungsnr: RE014112", 0.012),
    (0.05, 0.305, "Belegdatum: 10.11.2020", 0.012),
    *_TOTALS,
]


def test_a_party_block_ends_at_a_blank_line_whatever_its_headings_height() -> None:
    layouts = layout_document(sized_document(BUYER_OVER_SELLER))
    (buyer,) = [p for p in parties(layouts, key_values(layouts)) if p.role == "customer"]
    assert [s.text for s in buyer.segments] == [
        "Marta Keller",
        "Gartenstrasse 58",
        "3626 Hinterdorf",
    ]
    assert buyer.name == "Marta Keller"


@pytest.mark.parametrize("issuer_ranker", [False, True])
def test_the_seller_under_the_buyers_block_is_the_issuer(issuer_ranker: bool) -> None:
    fields = invoice_fields(sized_document(BUYER_OVER_SELLER), issuer_ranker=issuer_ranker).fields
    assert fields["company"].value == "Kestrel Druck AG"


# An Austrian partnership named only in its return address; the document's fields beside
# it, one under a label no lexicon holds, its date wrapped onto the next line.
PARTNERSHIP = [
    (0.05, 0.110, "Rechnung", 0.022),
    (0.05, 0.150, "Kestrel Holzbau OG · Mühlweg 32 · 2805 Hinterdorf", 0.008),
    (0.60, 0.150, "Rechnungsnummer: 2020/13833", 0.012),
    (0.05, 0.166, "Harbour & Plum GmbH", 0.012),
    (0.60, 0.166, "Rechnungsdatum: 19.02.2020", 0.012),
    (0.05, 0.182, "Quaiweg 111", 0.012),
    (0.60, 0.182, "Datum der Ursprungsrechnung: 15.", 0.012),
    (0.05, 0.198, "1410 Wien", 0.012),
    (0.60, 0.198, "Dezember 2019", 0.012),
    *_TOTALS,
]  # fmt: skip


def test_an_og_is_a_legal_form_but_a_floor_after_an_ordinal_is_not() -> None:
    layouts = layout_document(
        sized_document([(0.05, 0.1, "Kestrel Holzbau OG · Mühlweg 32", 0.012)])
    )
    assert [name for name, _ in legal_names(layouts)] == ["Kestrel Holzbau OG"]
    floor = layout_document(sized_document([(0.05, 0.1, "Mühlgasse 12 / 3. OG", 0.012)]))
    assert legal_names(floor) == []


def test_a_partnership_named_only_in_its_return_address_is_the_issuer() -> None:
    fields = extract_invoice(sized_document(PARTNERSHIP), True, rankers=DEFAULT_RANKERS).fields
    assert fields["company"].value == "Kestrel Holzbau OG"


@pytest.mark.parametrize(
    "text", ["Datum der Ursprungsrechnung: 15.", "Leistungszeitraum: 1. Januar 2019 bis 31."]
)
def test_a_label_and_its_value_is_no_issuer(text: str) -> None:
    assert issuer_refusal(text) is not None


@pytest.mark.parametrize("text", ["Kestrel Druck AG", "Harbour & Plum GmbH", "Smith, Jones & Co"])
def test_a_name_is_not_refused_as_a_label(text: str) -> None:
    assert issuer_refusal(text) is None


def _segment(text: str) -> Segment:
    return Segment(
        words=tuple(sized_words(0.05, 0.05, text, 0.012)), page=1, row=0, text_layer=False
    )


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Kestrel Holzbau KG· Mühlweg 3", "Kestrel Holzbau KG"),
        ("Kestrel Bain S.Coop.·Carrer Major 5", "Kestrel Bain S.Coop."),
        ("KESTREL HARDWARE TRADING·No 5", "KESTREL HARDWARE TRADING"),
        # A Catalan word's middle dot is no separator.
        ("Col·legi Kestrel S.L.", "Col·legi Kestrel S.L."),
    ],
)
def test_a_middle_dot_run_into_the_name_by_ocr_still_separates(text: str, name: str) -> None:
    assert top_names(_segment(text)) == [name]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("KESTREL & PLUM SDN BHD · NO 21, LORONG MAWAR 8", ["KESTREL & PLUM SDN BHD"]),
        ("HARBOUR SUPPLIES LTD. | 4 Quay Street", ["HARBOUR SUPPLIES LTD."]),
        # A name in small letters spells its form as the lexicon does: "GMBH" after it is a
        # word in capitals.
        ("Kestrel-Vermietung GMBH · Hafenweg 12", []),
        # In capitals "EG" is a ground floor, not a cooperative.
        ("HAFENWEG 12 EG · 20457 HAMBURG", []),
    ],
)
def test_a_name_in_capitals_ends_in_its_form_in_capitals(text: str, names: list[str]) -> None:
    layouts = layout_document(sized_document([(0.05, 0.1, text, 0.012)]))
    assert [name for name, _ in legal_names(layouts)] == names


@pytest.mark.parametrize(
    ("text", "name"),
    [
        # OCR read "· 1 High Street" as "-1" and lost the rest.
        ("Kestrel Solutions Ltd. -1", "Kestrel Solutions Ltd."),
        # The logo's word read on the name's line, after the name's form...
        ("KESTREL SDN. BHD. KESTREL", "KESTREL SDN. BHD."),
        # ... or run into the name's first word.
        ("KESTRELKestrel Impianti S.p.A.", "Kestrel Impianti S.p.A."),
        # A separator run into the form, then the address after it.
        ("Casa da Kestrel CRL- Estrada Velha", "Casa da Kestrel CRL"),
        ("Kestrel & Plum ULC-49 Harbour Drive", "Kestrel & Plum ULC"),
        ("Casa de Kestrel S.L.N.E.. Calle Mayor", "Casa de Kestrel S.L.N.E."),
        # The logo repeating the whole name.
        (
            "LOGISTICS OF KESTREL S.E.N.C. LOGISTICS OF KESTREL S.E.N.C",
            "LOGISTICS OF KESTREL S.E.N.C.",
        ),
        # A word after the form that repeats none of the name's stays.
        ("Kestrel GmbH Druckerei", "Kestrel GmbH Druckerei"),
        ("KESTREL GMBH BERLIN", "KESTREL GMBH BERLIN"),
        ("McKESTREL Trading Ltd", "McKESTREL Trading Ltd"),
    ],
)
def test_what_ocr_read_after_a_legal_form_or_into_the_name_is_cut_off(text: str, name: str) -> None:
    assert top_names(_segment(text)) == [name]


def test_a_quebec_company_ends_in_its_french_form() -> None:
    layouts = layout_document(
        sized_document([(0.05, 0.1, "Kestrel Contracting Ltée · 12 rue Principale", 0.012)])
    )
    assert [name for name, _ in legal_names(layouts)] == ["Kestrel Contracting Ltée"]


# A trade name with no legal form: the logo's word in big type, the name in the return
# address (with its house number and post code) and at the foot of the page.
TRADE_LETTER = [
    (0.40, 0.040, "KESTREL", 0.030),
    (0.05, 0.110, "INVOIS", 0.022),
    (0.05, 0.150, "KESTREL TRADING · NO 124, LORONG MAWAR 7 · 20393", 0.008),
    (0.60, 0.152, "Kod invois: 0068049", 0.012),
    (0.05, 0.170, "HARBOUR MINI MARKET", 0.012),
    (0.60, 0.170, "Tarikh: 17-06-2025", 0.012),
    (0.05, 0.186, "NO 211, JALAN MERANTI 8", 0.012),
    (0.05, 0.202, "80971 JOHOR BAHRU, JOHOR", 0.012),
    (0.05, 0.300, "Penyelenggaraan", 0.012), (0.80, 0.300, "1000.00", 0.012),
    (0.60, 0.400, "Jumlah kecil", 0.012), (0.80, 0.400, "1000.00", 0.012),
    (0.60, 0.420, "SST 8 %", 0.012), (0.80, 0.420, "80.00", 0.012),
    (0.60, 0.440, "Jumlah", 0.012), (0.80, 0.440, "1080.00", 0.012),
    (0.05, 0.900, "KESTREL TRADING", 0.009),
    (0.05, 0.912, "NO 124, LORONG MAWAR 7", 0.009),
]  # fmt: skip


def test_a_trade_name_in_the_return_address_is_the_issuer_not_the_logos_word() -> None:
    # The learned ranker's candidate; the rules' fixed order still takes the first top text.
    fields = invoice_fields(sized_document(TRADE_LETTER), issuer_ranker=True).fields
    assert fields["company"].value == "KESTREL TRADING"


# A photographed letter: OCR lost the dots of the form in the return address, and read its
# middle dot as a dash run into the form; the footer prints the name in full.
DOTS_LOST = [
    (0.40, 0.040, "KESTREL", 0.030),
    (0.05, 0.110, "Fatura", 0.022),
    (0.05, 0.150, "Kestrel SA- Rua Velha, 189- 8002-248 Faro", 0.009),
    (0.60, 0.152, "Número da fatura: FT053629", 0.012),
    (0.05, 0.170, "Harbour Distribuição S.A.", 0.012),
    (0.05, 0.186, "Avenida Central 12", 0.012),
    (0.05, 0.202, "1000-001 Lisboa", 0.012),
    (0.60, 0.170, "Data: 17-06-2025", 0.012),
    *_TOTALS,
    (0.05, 0.900, "Kestrel S.A.", 0.009),
    (0.05, 0.912, "Rua Velha, 189", 0.009),
]  # fmt: skip


def test_a_name_whose_form_lost_its_dots_is_the_same_candidate_spelt_as_printed_in_full() -> None:
    fields = invoice_fields(sized_document(DOTS_LOST), issuer_ranker=True).fields
    assert fields["company"].value == "Kestrel S.A."


# Two letterheads: a name with small words in it, and one whose form is in small letters.
SMALL_WORDS = [
    (0.05, 0.040, "INVOICE", 0.022),
    (0.05, 0.110, "The kestrel works Pvt. Limited", 0.014),
    (0.60, 0.112, "Invoice code: INV-2020-87879", 0.012),
    (0.05, 0.130, "Harbour Tisch e.K.", 0.014),
    (0.60, 0.130, "Dated: 15/05/2020", 0.012),
    *_TOTALS,
]  # fmt: skip


def test_a_names_small_words_are_its_own_counted_over_all_its_words_form_and_all() -> None:
    # A form in small letters ("e.K.") is no small word; the share is over every word, form
    # included, as the ranker learned it: over the words before the form alone, "The kestrel
    # works" would weigh two small words in three, and names like it lost to the buyer.
    candidates, features = invoice_issuer_candidates(sized_document(SMALL_WORDS))
    at = ISSUER_FEATURES.index("lower_share")
    share = {c.value: f[at] for c, f in zip(candidates, features, strict=True)}
    assert share["The kestrel works Pvt. Limited"] == pytest.approx(2 / 5)
    assert share["Harbour Tisch e.K."] == 0.0


# A slogan over the name in the same type; the return address prints the name alone.
SLOGAN_OVER_NAME = [
    (0.05, 0.040, "Ihr Handwerk mit Herz", 0.024),
    (0.05, 0.068, "Kestrel & Plum GmbH", 0.022),
    (0.05, 0.110, "RECHNUNG", 0.022),
    (0.05, 0.150, "Kestrel & Plum GmbH · Hafenweg 12 · 20457 Hamburg", 0.009),
    (0.60, 0.152, "Rechnungsnr.: RE002365", 0.012),
    (0.05, 0.170, "Harbour Druck AG", 0.012),
    (0.05, 0.186, "Seestrasse 4", 0.012),
    (0.05, 0.202, "8001 Zürich", 0.012),
    *_TOTALS,
]  # fmt: skip


def test_a_line_above_a_name_that_the_page_prints_alone_elsewhere_is_no_part_of_it() -> None:
    candidates, _ = invoice_issuer_candidates(sized_document(SLOGAN_OVER_NAME))
    values = [c.value for c in candidates]
    assert "Kestrel & Plum GmbH" in values
    assert "Ihr Handwerk mit Herz Kestrel & Plum GmbH" not in values
