"""Render a synthetic set: documents to PDFs or receipt images (through renderkit itself, on one
browser), photo variants, and the labels written in the eval set's layout."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import anyio
import anyio.to_thread
import attrs
import pypdfium2
from PIL import Image

from renderkit.browser import Browser, Capture, PdfOptions, Shell
from renderkit.core.pdfium import run_pdfium
from renderkit.core.shell import shell_head
from renderkit.parsing.synth import labels, writers
from renderkit.parsing.synth.contracts import SynthContract, contract_fragment, make_contract
from renderkit.parsing.synth.documents import SynthDocument, make_document
from renderkit.parsing.synth.photo import photograph
from renderkit.parsing.synth.render import invoice_fragment, receipt_lines, receipt_page
from renderkit.parsing.synth.variations import PLAIN, Variations
from renderkit.pdf import PAGE_SIZES

__all__ = ["BuiltSet", "build_set", "make_documents", "render_document"]

KINDS = ("invoice", "receipt", "contract")

#: A synthetic document of any kind.
AnyDocument = SynthDocument | SynthContract

# Documents render on warm pages of these shells, as render_pdf and render_image render their
# own templates. Their custom-HTML path would load each document in a fresh isolated context,
# which is right for HTML from strangers but costs about 0.9 s of browser CPU per document
# against 0.06 s on a warm page; the factory's HTML is its own.
_SHELL = Shell(name="renderkit-synth-invoice", head=shell_head(""))
_RECEIPT_SHELL = Shell(name="renderkit-synth-receipt", head=shell_head(""))

# Pages are rasterised at this scale (72 dpi x 2.2, about 160 dpi) before being photographed.
_RASTER_SCALE = 2.2


@attrs.frozen(kw_only=True)
class BuiltSet:
    """What :func:`build_set` wrote: the source folder and its documents."""

    folder: Path
    documents: tuple[AnyDocument, ...]


def make_documents(
    kind: str, count: int, seed: int, variations: Variations = PLAIN
) -> list[AnyDocument]:
    """The first ``count`` documents of ``kind`` for ``seed`` (no rendering; contracts are
    never photographed and take only ``other_dates`` and ``drafting``, receipts only
    ``photos`` and ``every_locale``)."""
    if kind not in KINDS:
        msg = f"kind must be one of {KINDS}, not {kind!r}"
        raise ValueError(msg)
    if kind == "contract":
        return [
            make_contract(i, seed, other_dates=variations.other_dates, drafting=variations.drafting)
            for i in range(count)
        ]
    return [make_document(kind, i, seed, variations) for i in range(count)]


def _raster(content: bytes) -> Image.Image:
    document = pypdfium2.PdfDocument(content)
    try:
        page = document[0]
        bitmap = page.render(scale=_RASTER_SCALE)
        image: Image.Image = bitmap.to_pil().convert("RGB")
        page.close()
        return image
    finally:
        document.close()


def _photo(image: Image.Image, doc: SynthDocument) -> bytes:
    return photograph(image, random.Random(f"photo:{doc.id}:{doc.number}"))


async def render_document(doc: AnyDocument, browser: Browser) -> tuple[str, str, bytes]:
    """``doc`` rendered: its file extension, MIME type and content.

    Invoices and contracts are PDFs printed by Chromium (a real text layer, contracts on as
    many pages as they need); receipts are PNG slips; documents whose layout says ``photo``
    are JPEG photos of either.
    """
    width, height = PAGE_SIZES["A4"]
    if isinstance(doc, SynthContract):
        pdf = await browser.print_fragment(
            _SHELL, contract_fragment(doc), PdfOptions(paper_width=width, paper_height=height)
        )
        return "pdf", "application/pdf", pdf
    if doc.kind == "invoice":
        pdf = await browser.print_fragment(
            _SHELL, invoice_fragment(doc), PdfOptions(paper_width=width, paper_height=height)
        )
        if not doc.layout.photo:
            if doc.layout.writer:
                pdf = await anyio.to_thread.run_sync(writers.rewrite, pdf, doc.layout.writer)
            return "pdf", "application/pdf", pdf
        image = await run_pdfium(_raster, pdf)
    else:
        page = receipt_page(doc)
        png = await browser.capture_fragment(
            _RECEIPT_SHELL, page.fragment, Capture(width=page.width, height=page.height, scale=2)
        )
        if not doc.layout.photo:
            return "png", "image/png", png
        image = Image.open(io.BytesIO(png))
        image.load()
    jpeg = await anyio.to_thread.run_sync(_photo, image, doc)
    return "jpg", "image/jpeg", jpeg


async def build_set(
    kind: str,
    count: int,
    seed: int,
    root: Path,
    *,
    browser: Browser,
    variations: Variations = PLAIN,
    concurrency: int = 4,
) -> BuiltSet:
    """Render ``count`` documents of ``kind`` under ``root`` with their labels.

    Writes ``root/<source>/{manifest.json,docs/,truth/}``, adds the source to
    ``root/index.json`` and puts the scorer at ``root/score.py`` (see :mod:`.labels`).

    Raises:
        ValueError: ``kind`` is not ``invoice``, ``receipt`` or ``contract``.
        RenderkitError: rendering failed (the browser's errors, unchanged).
    """
    documents = make_documents(kind, count, seed, variations)
    folder = root / labels.SOURCE_DIRS[kind]
    (folder / "docs").mkdir(parents=True, exist_ok=True)
    (folder / "truth").mkdir(exist_ok=True)
    rendered: dict[str, tuple[str, str, bytes]] = {}
    limiter = anyio.CapacityLimiter(concurrency)

    async def one(doc: AnyDocument) -> None:
        async with limiter:
            rendered[doc.id] = await render_document(doc, browser)

    async with anyio.create_task_group() as tg:
        for doc in documents:
            tg.start_soon(one, doc)
    entries = []
    for doc in documents:
        ext, mime, content = rendered[doc.id]
        file = f"docs/{doc.id}.{ext}"
        (folder / file).write_bytes(content)
        truth = doc.truth()
        if isinstance(doc, SynthDocument) and doc.kind == "receipt":
            # The slip's text line by line: the OCR ground truth of a receipt image.
            truth["printed_lines"] = receipt_lines(doc)
        text = json.dumps(truth, indent=1, ensure_ascii=False)
        (folder / "truth" / f"{doc.id}.json").write_text(text + "\n")
        entries.append((doc, file, mime, content))
    manifest = labels.manifest(kind, seed, entries)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False))
    labels.add_to_index(root, kind, count, {mime for _, _, mime, _ in entries})
    labels.write_scorer(root)
    return BuiltSet(folder=folder, documents=tuple(documents))
