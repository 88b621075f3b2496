"""The synthetic document factory, without a browser: determinism, true labels, variety.

The factory (``renderkit.parsing.synth``) is what the learned ranker trains on and what the
synthetic validation set is made of, so its labels must be true by construction and its
documents varied; these tests check both on the content and HTML it produces.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import random
import tomllib
from decimal import Decimal
from importlib import resources
from pathlib import Path

import attrs
import pytest
from babel.dates import get_month_names
from PIL import Image, ImageChops

from renderkit.parsing.extract.identifiers import valid_iban, valid_vat_id
from renderkit.parsing.lexicons import LANGUAGES, tokens
from renderkit.parsing.synth import Layout, SynthDocument, Variations, make_document, make_documents
from renderkit.parsing.synth import labels as synth_labels
from renderkit.parsing.synth.photo import MAX_SIDE, photograph
from renderkit.parsing.synth.render import invoice_html, receipt_lines, receipt_page
from renderkit.parsing.synth.values import vat_is_valid
from renderkit.parsing.synth.wording import EXTRA_LABELS, lexicon_labels

from .test_eval_floor import _harness


def _both(count: int, seed: int) -> list[SynthDocument]:
    return [
        *make_documents("invoice", count, seed, Variations(photos=True)),
        *make_documents("receipt", count, seed, Variations(photos=True)),
    ]


def _html(doc: SynthDocument) -> str:
    return invoice_html(doc) if doc.kind == "invoice" else receipt_page(doc).html


def test_the_same_seed_gives_the_same_labels_and_the_same_html() -> None:
    first, again = _both(20, seed=11), _both(20, seed=11)
    assert [d.truth() for d in first] == [d.truth() for d in again]
    assert [_html(d) for d in first] == [_html(d) for d in again]


def test_another_seed_gives_other_documents() -> None:
    one, other = _both(10, seed=1), _both(10, seed=2)
    assert [d.expected for d in one] != [d.expected for d in other]
    assert len({d.expected["total"] for d in one} & {d.expected["total"] for d in other}) < 5


def test_a_document_does_not_depend_on_how_many_are_made() -> None:
    few = make_documents("invoice", 3, 5)
    many = make_documents("invoice", 30, 5)
    assert [d.truth() for d in few] == [d.truth() for d in many[:3]]


@pytest.mark.parametrize("kind", ["invoice", "receipt"])
def test_totals_are_subtotal_minus_discount_plus_shipping_plus_tax_and_lines_add_up(
    kind: str,
) -> None:
    for doc in make_documents(kind, 60, 3):
        assert doc.subtotal == sum(li.amount for li in doc.lines)
        for li in doc.lines:
            assert abs(li.amount - li.quantity * li.unit_price) <= Decimal("0.005")
        assert doc.total == doc.subtotal - doc.discount + doc.shipping + doc.tax
        assert (doc.shipping > 0) == doc.layout.shipping
        if doc.layout.tax_lines:
            expected_tax = (doc.subtotal - doc.discount + doc.shipping) * doc.tax_rate / 100
            assert abs(doc.tax - expected_tax) <= Decimal("0.005")
        else:
            assert doc.tax == 0
        if kind == "invoice" and doc.layout.tax_lines:
            got = Decimal(doc.expected["subtotal"]) + Decimal(doc.expected["tax"])
            assert got - doc.discount + doc.shipping == Decimal(doc.expected["total"])


def test_ibans_and_vat_ids_carry_valid_checksums() -> None:
    docs = make_documents("invoice", 120, 4)
    ibans = [d.iban for d in docs if d.iban]
    vats = [d.vat_id for d in docs if d.vat_id]
    assert len({i[:2] for i in ibans}) >= 6 and len({v[:2] for v in vats}) >= 6
    for iban in ibans:
        assert valid_iban(iban), iban  # the parser's own mod-97 and length check
    for vat in vats:
        assert valid_vat_id(vat), vat  # the parser's per-country format
        assert vat_is_valid(vat), vat


def test_a_changed_check_digit_fails_the_checks() -> None:
    docs = make_documents("invoice", 120, 4)
    for value, check in [(d.iban, valid_iban) for d in docs if d.iban] + [
        (d.vat_id, vat_is_valid) for d in docs if d.vat_id
    ]:
        assert value is not None
        # The check digit (the last digit; a Dutch id's ends "B01", its branch), moved by one.
        i = 10 if value.startswith("NL") else max(k for k, c in enumerate(value) if c.isdigit())
        wrong = value[:i] + str((int(value[i]) + 1) % 10) + value[i + 1 :]
        assert not check(wrong), (value, wrong)


_NUMERIC_DATES = {
    "iso": "%Y-%m-%d",
    "dmy-slash": "%d/%m/%Y",
    "dmy-dot": "%d.%m.%Y",
    "dmy-dot-short": "%d.%m.%y",
    "dmy-dash": "%d-%m-%Y",
    "mdy-slash": "%m/%d/%Y",
}


def test_the_date_labels_are_the_iso_form_of_the_printed_dates() -> None:
    forms = set()
    for doc in _both(80, seed=6):
        form, language = doc.layout.date_form, doc.layout.locale.language
        forms.add(form)
        pairs = [(doc.printed["date"], doc.expected["date"])]
        if "due_date" in doc.expected:
            pairs.append((doc.printed["due_date"], doc.expected["due_date"]))
        for printed, label in pairs:
            day = dt.date.fromisoformat(label)
            if form in _NUMERIC_DATES:
                assert dt.datetime.strptime(printed, _NUMERIC_DATES[form]).date() == day
                continue
            month_language = "en" if form == "month-d-y" else language
            width = "abbreviated" if form == "d-mon-y" else "wide"
            month = get_month_names(width, locale=month_language)[day.month].rstrip(".")
            assert month in printed and str(day.year) in printed
            assert str(day.day) in printed.replace(month, " ")
    assert len(forms) >= 7


def test_every_label_is_printed_in_the_html() -> None:
    for doc in _both(40, seed=8):
        page = _html(doc)
        text = "\n".join(receipt_lines(doc)) if doc.kind == "receipt" else page
        for field, value in doc.printed.items():
            if field in ("address", "company"):
                # A receipt prints its name and address over several lines.
                assert all(line in text for line in value.split("\n")), (doc.id, field)
            else:
                assert value in text or value.replace("&", "&amp;") in text, (doc.id, field)


def test_over_fifty_documents_vary_in_layout_language_and_number_format() -> None:
    invoices = make_documents("invoice", 50, 9)
    receipts = make_documents("receipt", 50, 9, Variations(photos=True))
    assert len({d.layout.family for d in invoices}) >= 40
    assert len({d.layout.locale.language for d in invoices}) >= 7
    assert len({d.layout.number_format for d in invoices}) >= 4
    assert len({d.layout.date_form for d in invoices}) >= 7
    assert len({d.layout.currency.mark for d in invoices}) >= 5
    assert len({d.layout.header for d in invoices}) == 3
    assert len({d.layout.table for d in invoices}) == 4
    assert len({d.layout.logo for d in invoices}) == 3
    for flag in ("watermark", "stamp", "tax_lines", "discount", "extra_labels", "due_date"):
        assert 0 < sum(getattr(d.layout, flag) for d in invoices) < 50, flag
    assert len({d.layout.family for d in receipts}) >= 6
    assert {d.layout.paper_mm for d in receipts} == {58, 80}
    assert all(d.layout.photo for d in receipts)


def test_extra_wordings_are_absent_from_the_lexicons_and_lexicon_wordings_are_used() -> None:
    for language in LANGUAGES:
        text = resources.files("renderkit.parsing.lexicons").joinpath(f"{language}.toml")
        lexicon = tomllib.loads(text.read_text())["labels"]
        known = {tuple(t for t, _, _ in tokens(w)) for words in lexicon.values() for w in words}
        for extras in EXTRA_LABELS[language].values():
            for extra in extras:
                assert tuple(t for t, _, _ in tokens(extra)) not in known, (language, extra)
    docs = make_documents("invoice", 60, 10)
    from_lexicon = [d for d in docs if not d.layout.extra_labels]
    assert from_lexicon
    for doc in from_lexicon:
        language = doc.layout.locale.language
        text = resources.files("renderkit.parsing.lexicons").joinpath(f"{language}.toml")
        lexicon = tomllib.loads(text.read_text())["labels"]
        folded = {tuple(t for t, _, _ in tokens(w)) for w in lexicon["total"]}
        assert tuple(t for t, _, _ in tokens(doc.labels["total"])) in folded


def test_decoys_cover_every_role_and_never_equal_a_label() -> None:
    roles: set[str] = set()
    for doc in _both(60, seed=12):
        roles |= {d.role for d in doc.decoys}
        values = {str(v).casefold() for v in doc.expected.values()}
        for decoy in doc.decoys:
            if decoy.role != "quantity":
                assert decoy.text.casefold() not in values, (doc.id, decoy)
    assert roles >= {
        "watermark", "stamp", "title", "table_header", "buyer", "year", "quantity",
        "line_number", "phone", "postcode", "order_number", "tax_rate", "cash", "change",
    }  # fmt: skip


def test_receipt_lines_fit_the_paper_and_the_slip_is_tall_enough() -> None:
    for doc in make_documents("receipt", 60, 13):
        columns = 32 if doc.layout.paper_mm == 58 else 42
        lines = receipt_lines(doc)
        assert max(len(line) for line in lines) <= columns, doc.id
        page = receipt_page(doc)
        assert page.height >= 15 * len(lines) * 0.5


def test_a_photo_changes_pixels_but_stays_within_bounds() -> None:
    page = Image.new("RGB", (1240, 1754), "white")
    for y in range(100, 1600, 40):
        page.paste((20, 20, 20), (100, y, 900, y + 12))
    content = photograph(page, random.Random(1))
    photo = Image.open(io.BytesIO(content))
    assert photo.format == "JPEG"
    assert max(photo.size) <= MAX_SIDE
    resized = page.resize(photo.size)
    difference = ImageChops.difference(resized, photo.convert("RGB")).getbbox()
    assert difference is not None
    assert photograph(page, random.Random(1)) == content
    assert photograph(page, random.Random(2)) != content


def test_the_written_scorer_gives_gold_full_marks_and_counts_a_wrong_total(
    tmp_path: Path,
) -> None:
    docs = make_documents("invoice", 8, 14)
    entries = [(d, f"docs/{d.id}.pdf", "application/pdf", d.id.encode()) for d in docs]
    folder = tmp_path / synth_labels.SOURCE_DIRS["invoice"]
    folder.mkdir()
    manifest = synth_labels.manifest("invoice", 14, entries)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    synth_labels.add_to_index(tmp_path, "invoice", len(docs), {"application/pdf"})
    synth_labels.write_scorer(tmp_path)
    scorer = _harness().load_scorer(tmp_path)
    gold = {d.id: dict(d.expected) for d in docs}
    counts = scorer.score_source(folder.name, gold, None, [])
    assert sum(c[1] + c[2] for c in counts.values()) == 0
    assert sum(c[0] for c in counts.values()) == sum(len(d.expected) for d in docs)
    printed = {
        d.id: {**d.expected, "total": d.printed["total"], "date": d.expected["date"]} for d in docs
    }
    assert scorer.score_source(folder.name, printed, None, [])["total"][0] == len(docs)
    wrong = {**gold, docs[0].id: {**gold[docs[0].id], "total": "0.01"}}
    assert scorer.score_source(folder.name, wrong, None, [])["total"][:3] == [7, 1, 1]
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["sources"] == [
        {"dir": "synth-invoices", "documents": 8, "mime": "application/pdf"}
    ]


def test_a_layout_can_be_adjusted_to_build_a_document_that_trips_one_rule() -> None:
    def watermarked(layout: Layout) -> Layout:
        return attrs.evolve(layout, watermark=True, parties="two-column")

    plain = make_documents("invoice", 6, 15)
    adjusted = [make_document("invoice", i, 15, adjust=watermarked) for i in range(6)]
    for doc in adjusted:
        word = doc.extras["watermark"]
        assert any(d.role == "watermark" and d.text == word for d in doc.decoys)
        assert word in invoice_html(doc) and doc.labels["seller"] in invoice_html(doc)
    assert [d.issuer for d in adjusted] == [d.issuer for d in plain]


def test_amounts_below_the_total_leave_a_balance_and_the_truth_names_the_invoice_total() -> None:
    docs = make_documents("invoice", 80, 16)
    with_after = [d for d in docs if d.layout.after_total]
    assert 10 < len(with_after) < 80
    for doc in docs:
        rows = doc.truth()["amounts"]
        assert [r["value"] for r in rows if r["role"] == "total"] == [doc.expected["total"]]
        roles = [r["role"] for r in rows]
        if not doc.layout.after_total:
            assert roles[-1] == "total" and doc.after == ()
            continue
        # The total is not the last amount: the balance due closes the block, under an
        # amount-due label, and equals the total plus what is printed between them.
        assert roles[-1] == "balance_due" and roles.index("total") < len(roles) - 1
        added = sum((v for r, v in doc.after if r != "balance_due"), Decimal(0))
        assert doc.after[-1][1] == doc.total + added != doc.total
        page = _html(doc)
        for role, value in doc.after:
            assert doc.amount(value) in page, (doc.id, role)


def test_total_labels_on_non_totals_a_repeated_total_and_carried_subtotals_are_printed() -> None:
    docs = make_documents("invoice", 80, 17)
    seen: set[str] = set()
    for doc in docs:
        layout, page, words = doc.layout, _html(doc), doc.words
        seen |= set(layout.false_totals)
        for key in ("hours", "quantity", "per_page", "carried"):
            if key in doc.extras:
                assert words[key] in page and doc.extras[key] in page, (doc.id, key)
        if "column" in layout.false_totals:
            assert f">{words['column']}</th>" in page
        # A total printed twice appears twice; otherwise once.
        assert page.count(doc.printed["total"]) >= (2 if layout.total_twice else 1)
        if "carried" in doc.extras:
            assert ("break-after:page" in page) != layout.photo
    assert seen == {"hours", "quantity", "per_page", "column"}
    for flag in ("total_twice", "shipping", "carried"):
        assert 0 < sum(getattr(d.layout, flag) for d in docs) < 80, flag
    assert {d.layout.summary for d in docs} == {"stacked", "columns"}
    assert len({d.layout.totals_family for d in docs}) >= 8


def _folded(text: str) -> str:
    # The eval's text comparison: upper case, every run of other characters one space.
    return " ".join("".join(c if c.isalnum() else " " for c in text.upper()).split())


def test_receipt_headers_vary_and_their_name_and_address_lines_join_to_the_labels() -> None:
    cues: set[str] = set()
    for doc in make_documents("receipt", 120, 14):
        cues |= set(doc.extras["header_cues"].split())
        header = doc.extras["header"].split("\n")
        name_lines = doc.printed["company"].split("\n")
        address_lines = doc.printed["address"].split("\n")
        assert _folded(" ".join(name_lines)) == _folded(doc.expected["company"]), doc.id
        address = " ".join(address_lines)
        if "address_label" in doc.extras["header_cues"]:
            # The label before the first line is no part of the address.
            address = address.split(":", 1)[1]
        assert _folded(address) == _folded(doc.expected["address"]), doc.id
        # The name's lines are consecutive; the address's lines keep their order.
        at = header.index(name_lines[0])
        assert header[at : at + len(name_lines)] == name_lines, doc.id
        positions = [header.index(line) for line in address_lines]
        assert positions == sorted(positions), doc.id
        decoys = {d.text for d in doc.decoys if d.role == "header"}
        assert not decoys & {*name_lines, *address_lines}, doc.id
    assert cues >= {
        "brand", "logo", "branch_first", "registration_first", "title_first", "noise", "split_name",
        "street_split", "postcode_alone", "state_alone", "fax", "email", "tax_id",
        "contact_inside", "store", "title_after", "address_label",
    }  # fmt: skip


def test_adding_the_receipt_header_left_the_other_choices_of_a_seed_as_they_were() -> None:
    # Receipt 1 of the validation seed, as the factory made it before the header block had a
    # generator of its own: the same seller, address, date and total.
    doc = make_document("receipt", 1, 9001, Variations(photos=True))
    assert doc.expected == {
        "company": "BENFOUN SDN BHD",
        "address": "NO 103, LORONG LERT 10 78477 JONPERMAI, KEDAH",
        "date": "2020-01-06",
        "total": "403.42",
    }
    assert doc == make_document("receipt", 1, 9001, Variations(photos=True))


def test_a_tax_only_one_country_levies_is_printed_only_by_that_countrys_pages() -> None:
    national = {"hst", "pst", "qst", "igst", "cgst", "sgst", "utgst"}
    # The lexicon's wordings any page may draw hold none (en.toml lists them, to read them).
    for language in LANGUAGES:
        assert not national & set(lexicon_labels(language)["tax"]), language
    docs = make_documents("invoice", 300, 21, Variations(far_locales=True))
    printed: dict[str, set[str]] = {}
    for doc in docs:
        words = {w for w, _, _ in tokens(_html(doc))} & national
        printed.setdefault(doc.layout.locale.country, set()).update(words)
    assert printed["CA"] & {"hst", "qst"}
    assert printed["IN"] & {"igst", "cgst"}
    assert not any(words for country, words in printed.items() if country not in ("CA", "IN"))
