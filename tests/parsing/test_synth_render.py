"""The synthetic factory through a real Chromium: the text layer holds every label as printed,
receipts come out at their paper's width, contracts parse back, and a written set is scored by
the eval harness."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import attrs
import pypdfium2
import pytest
from PIL import Image

from renderkit.browser import ChromiumPool
from renderkit.parsing import ParseRequest, parse
from renderkit.parsing.synth import Variations, make_document, make_documents, render_document
from renderkit.parsing.synth.contracts import SynthContract

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

ROOT = Path(__file__).parents[2]


def _text_layer(pdf: bytes) -> str:
    # Every page: an invoice with a carried-forward subtotal continues on a second page.
    document = pypdfium2.PdfDocument(pdf)
    try:
        texts = []
        for page in document:
            texts.append(str(page.get_textpage().get_text_range()))
            page.close()
        return "\n".join(texts)
    finally:
        document.close()


def _squeeze(text: str) -> str:
    return "".join(text.split())


async def test_every_printed_label_is_in_the_pdf_text_layer(pool: ChromiumPool) -> None:
    docs = make_documents("invoice", 12, 21)
    for doc in docs:
        ext, mime, content = await render_document(doc, pool)
        assert (ext, mime) == ("pdf", "application/pdf")
        text = _squeeze(_text_layer(content))
        for field, printed in doc.printed.items():
            assert _squeeze(printed) in text, (doc.id, field, printed)
        assert _squeeze(doc.issuer.name) in text


async def test_a_receipt_is_a_slip_of_its_paper_width_and_a_photo_a_bounded_jpeg(
    pool: ChromiumPool,
) -> None:
    plain = make_documents("receipt", 4, 22)
    photos = make_documents("receipt", 2, 22, Variations(photos=True))
    for doc in plain:
        ext, mime, content = await render_document(doc, pool)
        image = Image.open(io.BytesIO(content))
        assert (ext, mime, image.format) == ("png", "image/png", "PNG")
        assert image.width == {58: 440, 80: 604}[doc.layout.paper_mm]
    for doc in photos:
        ext, mime, content = await render_document(doc, pool)
        image = Image.open(io.BytesIO(content))
        assert (ext, mime, image.format) == ("jpg", "image/jpeg", "JPEG")
        assert max(image.size) <= 1800


async def test_a_summary_in_columns_prints_its_labels_readable_under_a_banded_item_table(
    pool: ChromiumPool,
) -> None:
    # A zebra item table heads its columns in white on the accent colour; the summary's own
    # column labels below must not inherit that band in grey ink, which no reader can read.
    doc = make_document(
        "invoice",
        3,
        88,
        adjust=lambda layout: attrs.evolve(layout, table="zebra", summary="columns", photo=False),
    )
    label = doc.summary_rows()[0]["label"]
    _, _, content = await render_document(doc, pool)
    pdf = pypdfium2.PdfDocument(content)
    try:
        page = pdf[0]
        text = page.get_textpage()
        index, count = text.search(label).get_next()
        boxes = [text.get_charbox(i) for i in range(index, index + count)]
        scale, height = 2.0, page.get_height()
        image = page.render(scale=scale).to_pil().convert("L")
    finally:
        pdf.close()
    left, right = min(b[0] for b in boxes), max(b[2] for b in boxes)
    bottom, top = min(b[1] for b in boxes), max(b[3] for b in boxes)
    crop = image.crop(
        (int(left * scale), int((height - top) * scale), int(right * scale) + 1,
         int((height - bottom) * scale) + 1)
    )  # fmt: skip
    ink, paper = crop.getextrema()
    # Grey ink (#555) on white paper: a wide gap; on the dark band the two came within ~40.
    assert paper - ink > 120, (ink, paper)


def test_a_written_set_is_scored_by_the_eval_harness(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = tmp_path / "set"
    for kind in ("invoice", "receipt"):
        subprocess.run(
            [sys.executable, str(ROOT / "scripts/synth_docs.py"), "--kind", kind,
             "--count", "6" if kind == "invoice" else "2", "--seed", "3", "--out", str(out)],
            check=True, env=env, capture_output=True, timeout=300,
        )  # fmt: skip
    index = json.loads((out / "index.json").read_text())
    assert [s["dir"] for s in index["sources"]] == ["synth-invoices", "synth-receipts"]
    truth = json.loads((out / "synth-invoices/truth/synth-invoice-0000.json").read_text())
    assert truth["lines"] and truth["decoys"] and truth["expected"]["total"]
    slip = json.loads((out / "synth-receipts/truth/synth-receipt-0000.json").read_text())
    assert slip["expected"]["company"].split()[0] in slip["printed_lines"][0]
    figures_path = tmp_path / "figures.json"
    report = subprocess.run(
        [sys.executable, str(ROOT / "scripts/eval_parse.py"), str(out),
         "--json", str(figures_path)],
        check=True, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert "synth-invoices (6 documents)" in report.stdout
    figures = json.loads(figures_path.read_text())
    invoices = figures["sources"]["synth-invoices"]
    assert set(invoices["fields"]) >= {"issuer", "invoice_number", "date", "total"}
    for field in invoices["fields"].values():
        assert 0.0 <= field["f1"] <= 1.0
    assert invoices["micro"]["tp"] + invoices["micro"]["fn"] >= 6 * 5
    assert figures["sources"]["synth-receipts"]["documents"] == 2
    assert sum(f["documents"] for f in invoices["folds"]["folds"]) == 6
    assert "== folds: 5 per source" in report.stdout
    assert figures["calibration"]["target"]["overall"]["min_confidence"] == 0.8


async def test_a_rendered_contract_prints_its_parties_and_term_and_parses_back(
    pool: ChromiumPool,
) -> None:
    contracts = make_documents("contract", 6, 23, Variations(photos=True))
    right = 0
    for contract in contracts:
        assert isinstance(contract, SynthContract)
        ext, mime, content = await render_document(contract, pool)
        assert (ext, mime) == ("pdf", "application/pdf")
        text = _squeeze(_text_layer(content))
        for party in contract.parties:
            assert _squeeze(party.name) in text, (contract.id, party.name)
        assert contract.term_text is not None and _squeeze(contract.term_text) in text
        result = await parse(ParseRequest.from_bytes(content, "application/pdf"))
        assert result.document_type == "contract", contract.id
        term = contract.expected.get("term")
        # The ranked term is the truth or nothing, never a decoy duration.
        assert result.data.get("term") in (term, None), contract.id
        right += term is not None and result.data.get("term") == term
    assert right >= 1
