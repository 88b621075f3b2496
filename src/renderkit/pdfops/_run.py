""":func:`pdf_ops`: one request's page operations, every ceiling checked before the work.

What is cheap and can fail runs first, on the event loop: the sizes of the base64 fields
(before decoding), the stamp texts' encoding, the stamp image's header. Then the uploads
are opened within their ceilings, before the browser renders the ``render`` inputs, which
are opened next; then qpdf's work. Every qpdf call runs in a worker (a
:class:`~renderkit.core.workers.WorkerPool` when given: the server's PDF pool).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from pathlib import PurePosixPath
from typing import Any, TypeVar, TypeVarTuple

import anyio.to_thread
import attrs
import pikepdf

from renderkit.browser import Browser
from renderkit.core.converter import structure
from renderkit.core.errors import ConfigurationError, InvalidRequestError
from renderkit.core.uploads import decode_file, size_text
from renderkit.core.workers import WorkerPool
from renderkit.pdf import render_pdf
from renderkit.pdfops import _edit, _stamp
from renderkit.pdfops._intake import open_pdf
from renderkit.pdfops._models import PdfOpsLimits, PdfOpsRequest, PdfOpsResult, PdfPart
from renderkit.pdfops._ranges import expand
from renderkit.pdfops._sign import Signer, signed

__all__ = ["check_signer", "pdf_ops"]

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


class _Inputs:
    """The decoded bytes of a request: its PDFs, attachments and stamp image."""

    __slots__ = ("attachments", "image", "pdfs")

    def __init__(
        self, pdfs: list[bytes], attachments: list[bytes], image: _stamp.StampImage | None
    ) -> None:
        self.pdfs, self.attachments, self.image = pdfs, attachments, image


def _estimate(value: str) -> int:
    return len(value) // 4 * 3


def _check_total(request: PdfOpsRequest, limits: PdfOpsLimits) -> None:
    """Refuse a request whose base64 fields together decode past ``max_total_bytes``,
    before any is decoded."""
    fields = [item.file for item in request.files if item.file is not None]
    fields += [item.file for item in request.attachments]
    if request.watermark is not None and request.watermark.image is not None:
        fields.append(request.watermark.image)
    total = sum(_estimate(value) for value in fields)
    if total > limits.max_total_bytes + limits.max_total_bytes // 50 + 1024:
        msg = f"together are larger than the {size_text(limits.max_total_bytes)} limit"
        raise InvalidRequestError.single("files", msg)


def _check_texts(request: PdfOpsRequest) -> None:
    if request.watermark is not None and request.watermark.text is not None:
        _stamp.encoded_text(request.watermark.text, "watermark.text")
    if request.page_numbers is not None:
        _stamp.encoded_text(request.page_numbers.format, "page_numbers.format")


def _decode(request: PdfOpsRequest, limits: PdfOpsLimits) -> _Inputs:
    cap = limits.max_bytes
    attachments = [
        decode_file(item.file, max_bytes=cap, field=f"attachments[{index}].file")
        for index, item in enumerate(request.attachments)
    ]
    image = None
    mark = request.watermark
    if mark is not None and mark.image is not None:
        raw = decode_file(mark.image, max_bytes=cap, field="watermark.image")
        image = _stamp.load_image(raw, max_pixels=limits.max_pixels, field="watermark.image")
    pdfs = [
        decode_file(item.file, max_bytes=cap, field=f"files[{index}].file")
        if item.file is not None
        else b""
        for index, item in enumerate(request.files)
    ]
    return _Inputs(pdfs, attachments, image)


def check_signer(request: PdfOpsRequest, signer: Signer | None) -> None:
    """Refuse a request to ``sign`` when no signer is configured.

    Raises:
        InvalidRequestError: on ``sign``, which names signing as not enabled.
    """
    if request.sign is not None and signer is None:
        msg = "signing is not enabled on this server (no signing certificate is configured)"
        raise InvalidRequestError.single("sign", msg)


async def pdf_ops(
    request: PdfOpsRequest | Mapping[str, Any],
    *,
    browser: Browser | None = None,
    limits: PdfOpsLimits | None = None,
    workers: WorkerPool | None = None,
    signer: Signer | None = None,
) -> PdfOpsResult:
    """Merge, select, rotate, stamp, number, describe, attach, split, encrypt and sign PDFs.

    Args:
        request: a :class:`PdfOpsRequest`, or a JSON-like mapping in its shape.
        browser: renders the inputs given as ``render`` (pdf-gen requests); needed only then.
        limits: the ceilings applied to the inputs (defaults: :class:`PdfOpsLimits`).
        workers: the pool qpdf's work runs in; a worker thread when None.
        signer: signs the results of a request with ``sign``; such a request is refused
            without one.

    Returns:
        The produced PDF (or one per ``split`` range), the steps applied, and the files the
        result embeds.

    Raises:
        InvalidRequestError: a field is invalid, or an input is not a PDF, is corrupt,
            encrypted without its password, or past a ceiling (each names its field, e.g.
            ``files[1].file``); raised before the work it would bound. ``sign`` without a
            ``signer``, before any work.
        ConfigurationError: an input is to be rendered and no browser was given.
        RenderkitError: rendering an input failed (see :func:`renderkit.render_pdf`).
        ProviderUnavailableError: the signer's time-stamp authority did not answer.
        MissingDependencyError: ``sign`` needs pyHanko (``renderkit[sign]``).
        WorkersBusyError: ``workers`` is full.
    """
    req = request if isinstance(request, PdfOpsRequest) else structure(request, PdfOpsRequest)
    check_signer(req, signer)
    limits = limits or PdfOpsLimits()
    _check_total(req, limits)
    _check_texts(req)
    inputs = _decode(req, limits)
    if req.renders and browser is None:
        msg = "pdf_ops needs a browser to render the inputs given as render"
        raise ConfigurationError(msg)
    opened: list[pikepdf.Pdf | None] = [None] * len(req.files)
    try:
        # The uploads pass every ceiling before the browser renders anything.
        await _run(workers, _open_inputs, req, inputs, limits, opened)
        for index, item in enumerate(req.files):
            if item.render is not None:
                assert browser is not None
                pages = limits.max_pages
                rendered = await render_pdf(item.render, browser=browser, max_pages=pages)
                inputs.pdfs[index] = rendered.content
        await _run(workers, _open_inputs, req, inputs, limits, opened)
        ready = [pdf for pdf in opened if pdf is not None]
        return await _run(workers, _produce, req, inputs, ready, limits, signer)
    finally:
        for pdf in opened:
            if pdf is not None:
                pdf.close()


async def _run(workers: WorkerPool | None, fn: Callable[[*Ts], T], *args: *Ts) -> T:
    if workers is not None:
        return await workers.run(fn, *args)
    return await anyio.to_thread.run_sync(fn, *args)


def _open_inputs(
    req: PdfOpsRequest, inputs: _Inputs, limits: PdfOpsLimits, opened: list[pikepdf.Pdf | None]
) -> None:
    """Open every input that has bytes and is not open yet, in ``opened``'s slots."""
    for index, (item, content) in enumerate(zip(req.files, inputs.pdfs, strict=True)):
        if opened[index] is not None or not content:
            continue
        field = f"files[{index}].{'file' if item.file is not None else 'render'}"
        opened[index] = open_pdf(content, password=item.password, field=field, limits=limits)
    total = sum(len(pdf.pages) for pdf in opened if pdf is not None)
    if total > limits.max_pages:
        msg = f"have {total:,} pages together; at most {limits.max_pages:,} are accepted"
        raise InvalidRequestError.single("files", msg)


def _produce(
    req: PdfOpsRequest,
    inputs: _Inputs,
    opened: list[pikepdf.Pdf],
    limits: PdfOpsLimits,
    signer: Signer | None,
) -> PdfOpsResult:
    total = sum(len(pdf.pages) for pdf in opened)
    selected = expand(req.pages, total, field="pages")
    if len(selected) > limits.max_pages:
        msg = f"names {len(selected):,} pages; at most {limits.max_pages:,} are accepted"
        raise InvalidRequestError.single("pages", msg)
    count = len(selected)
    rotated = expand(req.rotate.pages, count, field="rotate.pages") if req.rotate else []
    stamped = expand(req.watermark.pages, count, field="watermark.pages") if req.watermark else []
    splits = [
        expand(text, count, field=f"split[{index}]") for index, text in enumerate(req.split or ())
    ]
    split_pages = sum(len(indexes) for indexes in splits)
    if split_pages > limits.max_pages:  # ranges may overlap: each part is written whole
        msg = f"name {split_pages:,} pages together; at most {limits.max_pages:,} are written"
        raise InvalidRequestError.single("split", msg)
    # Every check has passed: from here on the work is done.
    base = opened[0]
    _edit.merge_into(base, opened[1:])
    _edit.keep_pages(base, selected)
    if req.rotate is not None:
        _edit.rotate_pages(base, rotated, req.rotate.angle)
    if req.watermark is not None:
        if inputs.image is not None:
            _stamp.stamp_image(base, stamped, req.watermark, inputs.image)
        else:
            _stamp.stamp_text(base, stamped, req.watermark)
    if req.page_numbers is not None:
        _stamp.number_pages(base, req.page_numbers)
    if req.metadata is not None:
        _edit.set_metadata(base, req.metadata)
    for attachment, content in zip(req.attachments, inputs.attachments, strict=True):
        _edit.add_attachment(base, attachment, content)
    attached = _edit.attached_files(base)
    stem = PurePosixPath(req.filename or "document.pdf").stem or "document"
    if not splits:
        content = _edit.save(base, encrypt=req.encrypt)
        parts: tuple[PdfPart, ...] = (
            PdfPart(content=content, pages=count, filename=f"{stem}.pdf"),
        )
    else:
        whole = _edit.save(base)
        parts = tuple(
            _split_part(whole, indexes, req, f"{stem}-{number}.pdf")
            for number, indexes in enumerate(splits, start=1)
        )
    if req.sign is not None:
        assert signer is not None  # check_signer refused the request otherwise
        parts = tuple(_sign_part(part, req, signer) for part in parts)
    return PdfOpsResult(
        parts=parts,
        steps=req.steps,
        attachments=attached,
        encrypted=req.encrypt is not None,
        signature_level=signer.level if req.sign is not None and signer is not None else None,
    )


def _sign_part(part: PdfPart, req: PdfOpsRequest, signer: Signer) -> PdfPart:
    """``part`` signed: after every edit and the encryption, as nothing may rewrite it."""
    assert req.sign is not None
    content = signed(
        part.content,
        signer,
        reason=req.sign.reason,
        location=req.sign.location,
        contact_info=req.sign.contact_info,
        field_name=req.sign.field_name,
        password=req.encrypt.owner_password if req.encrypt is not None else None,
    )
    return attrs.evolve(part, content=content)


def _split_part(whole: bytes, indexes: list[int], req: PdfOpsRequest, name: str) -> PdfPart:
    with pikepdf.open(io.BytesIO(whole)) as part:
        _edit.keep_pages(part, indexes)
        content = _edit.save(part, encrypt=req.encrypt)
    return PdfPart(content=content, pages=len(indexes), filename=name)
