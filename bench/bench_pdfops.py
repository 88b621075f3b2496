"""Benchmark: merge + text watermark + AES-256 encryption of a 30-page PDF, renderkit vs pypdf.

    python bench/bench_pdfops.py [--rounds 15] [--only merge|sign] [--record bench/results.toml]

renderkit: ``pdf_ops`` on two uploads (20 + 10 pages of text, base64 as the API receives
them) with ``watermark`` and ``encrypt``: the base64 decoding, the stream-ceiling scan, the
page and object counts, qpdf's merge, one overlay per page and the AES-256 save. The peer
is the same with pypdf (the library renderkit already ships for reading): ``PdfWriter``
appending both files, ``merge_page`` of a one-page stamp onto each page (the stamp PDF is
made once, outside the timing: pypdf cannot draw text) and ``compress_content_streams``
(needed for the stamp to survive encryption), ``encrypt(algorithm="AES-256")``
and ``write``. Both run interleaved round by round; medians are reported, and both results
are checked (30 pages, encrypted, the watermark on every page).

Second case, signing: a 30-line invoice rendered once by Chromium (outside the timing) is
signed PAdES B-B with a throwaway EC P-256 key made here: ``pdf_ops`` with ``sign`` (the
base64 upload, its checks, qpdf's copy and then pyHanko's incremental signature), against
pyHanko's ``sign_pdf`` called directly on the same bytes (the floor: the signature alone).
Each result is validated once with pyHanko's validator.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import os
import statistics
import time
from pathlib import Path

import pikepdf
import pypdfium2
from _record import add_record_option, record
from pypdf import PdfReader, PdfWriter

from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.pdf import render_pdf
from renderkit.pdfops import Signer, pdf_ops

INVOICE = {
    "template": "invoice",
    "data": {
        "company_name": "Northwind Studio",
        "client_name": "Contoso Ltd",
        "invoice_number": "INV-0042",
        "line_items": [
            {"description": f"Design work, item {n}", "quantity": 1 + n % 3, "unit_price": 40 + n}
            for n in range(30)
        ],
    },
}

WORDS = "Renderkit merges, stamps and encrypts PDFs with qpdf under the hood. " * 8


def text_pdf(pages: int, label: str) -> bytes:
    pdf = pikepdf.new()
    font = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica
        )
    )
    for number in range(1, pages + 1):
        lines = [f"{label} page {number}"] + [WORDS[i : i + 90] for i in range(0, 400, 90)] * 8
        ops = "BT /F1 10 Tf 12 TL 56 780 Td " + " ".join(f"({line}) Tj T*" for line in lines)
        page = pdf.add_blank_page(page_size=(595, 842))
        page.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font))
        page.Contents = pdf.make_stream((ops + " ET").encode())
    out = io.BytesIO()
    pdf.save(out, compress_streams=True)
    return out.getvalue()


def stamp_pdf() -> bytes:
    pdf = pikepdf.new()
    font = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica
        )
    )
    page = pdf.add_blank_page(page_size=(595, 842))
    page.Resources = pikepdf.Dictionary(
        Font=pikepdf.Dictionary(Fs=font),
        ExtGState=pikepdf.Dictionary(Gs=pikepdf.Dictionary(ca=0.3, CA=0.3)),
    )
    page.Contents = pdf.make_stream(
        b"q /Gs gs 0.5 g BT /Fs 48 Tf 0.7071 0.7071 -0.7071 0.7071 200 300 Tm (CONFIDENTIAL) Tj"
        b" ET Q"
    )
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def with_pypdf(first: bytes, second: bytes, stamp: bytes) -> bytes:
    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(first)))
    writer.append(PdfReader(io.BytesIO(second)))
    mark = PdfReader(io.BytesIO(stamp)).pages[0]
    for page in writer.pages:
        page.merge_page(mark)
        # Without this, pypdf 7.1.1 writes the merged (decoded) content unreadable under
        # AES-256: pdfium and pypdf itself no longer find the stamp (checked by check()).
        page.compress_content_streams()
    writer.encrypt(user_password="u", owner_password="o", algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


async def with_renderkit(first: bytes, second: bytes) -> bytes:
    result = await pdf_ops(
        {
            "files": [
                {"file": base64.b64encode(first).decode()},
                {"file": base64.b64encode(second).decode()},
            ],
            "watermark": {"text": "CONFIDENTIAL"},
            "encrypt": {"owner_password": "o", "user_password": "u"},
        }
    )
    return result.content


def check(content: bytes) -> None:
    document = pypdfium2.PdfDocument(content, password="u")
    try:
        texts = [page.get_textpage().get_text_range() for page in document]
    finally:
        document.close()
    assert len(texts) == 30 and all("CONFIDENTIAL" in text for text in texts)
    with pikepdf.open(io.BytesIO(content), password="u") as pdf:
        assert pdf.is_encrypted and pdf.encryption.bits == 256


def signing_material() -> tuple[bytes, bytes]:
    """A self-signed EC P-256 certificate and key as PKCS#12 (passphrase ``bench``), and
    the certificate as DER (the trust root of the check)."""
    from datetime import UTC, datetime, timedelta

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import pkcs12
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "bench signer")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(hours=1))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(
            x509.KeyUsage(True, True, False, False, False, False, False, False, False), True
        )
        .sign(key, hashes.SHA256())
    )
    encryption = serialization.BestAvailableEncryption(b"bench")
    p12 = pkcs12.serialize_key_and_certificates(b"bench", key, cert, None, encryption)
    return p12, cert.public_bytes(serialization.Encoding.DER)


def with_pyhanko(pdf: bytes, p12: bytes) -> bytes:
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers

    signer = signers.SimpleSigner.load_pkcs12_data(p12, other_certs=[], passphrase=b"bench")
    meta = signers.PdfSignatureMetadata(
        field_name="Signature1", subfilter=fields.SigSeedSubFilter.PADES, md_algorithm="sha256"
    )
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    return bytes(signers.sign_pdf(writer, meta, signer=signer).getvalue())


def check_signed(content: bytes, root_der: bytes) -> None:
    from asn1crypto import x509 as asn1_x509
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko_certvalidator import ValidationContext

    root = asn1_x509.Certificate.load(root_der)
    signature = PdfFileReader(io.BytesIO(content)).embedded_signatures[0]
    status = validate_pdf_signature(signature, ValidationContext(trust_roots=[root]))
    assert status.bottom_line, status.pretty_print_details()


async def bench_signing(rounds: int, record_to: Path | None) -> None:
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        invoice = (await render_pdf(INVOICE, browser=pool)).content
    p12, root = signing_material()
    signer = Signer.from_pkcs12(p12, "bench")
    request = {"files": [{"file": base64.b64encode(invoice).decode()}], "sign": {}}

    async def ours_once() -> bytes:
        return (await pdf_ops(request, signer=signer)).content

    await asyncio.to_thread(check_signed, await ours_once(), root)
    await asyncio.to_thread(check_signed, await asyncio.to_thread(with_pyhanko, invoice, p12), root)
    ours, peer = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        await ours_once()
        ours.append(time.perf_counter() - started)
        started = time.perf_counter()
        await asyncio.to_thread(with_pyhanko, invoice, p12)
        peer.append(time.perf_counter() - started)
    ours_ms, peer_ms = statistics.median(ours) * 1000, statistics.median(peer) * 1000
    print(f"invoice: {len(invoice):,} bytes, 30 lines")
    print(f"renderkit pdf_ops sign (PAdES B-B): median {ours_ms:.1f} ms over {rounds} rounds")
    print(f"pyHanko sign_pdf alone:            median {peer_ms:.1f} ms")
    record(
        record_to,
        benchmark="bench_pdfops.py",
        case="sign a rendered 30-line invoice, PAdES B-B (EC P-256)",
        unit="ms",
        renderkit=ours_ms,
        peer="pyHanko sign_pdf on the same bytes (the signature alone)",
        peer_median=peer_ms,
        notes=f"{rounds} rounds, interleaved; pdf_ops includes intake checks and qpdf's copy",
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--only", choices=["merge", "sign"], help="run one case (default: both)")
    add_record_option(parser)
    args = parser.parse_args()
    if args.only != "merge":
        await bench_signing(args.rounds, args.record)
    if args.only == "sign":
        return
    first, second, stamp = text_pdf(20, "First"), text_pdf(10, "Second"), stamp_pdf()
    check(await with_renderkit(first, second))
    check(with_pypdf(first, second, stamp))
    ours, peer = [], []
    for _ in range(args.rounds):
        started = time.perf_counter()
        await with_renderkit(first, second)
        ours.append(time.perf_counter() - started)
        started = time.perf_counter()
        with_pypdf(first, second, stamp)
        peer.append(time.perf_counter() - started)
    ours_ms, peer_ms = statistics.median(ours) * 1000, statistics.median(peer) * 1000
    print(f"inputs: {len(first):,} + {len(second):,} bytes, 30 pages")
    print(f"renderkit pdf_ops (pikepdf/qpdf): median {ours_ms:.1f} ms over {args.rounds} rounds")
    print(f"pypdf {__import__('pypdf').__version__}:                  median {peer_ms:.1f} ms")
    print(
        f"ratio pypdf / renderkit: {peer_ms / ours_ms:.2f}x; load average {os.getloadavg()[0]:.2f}"
    )
    record(
        args.record,
        benchmark="bench_pdfops.py",
        case="merge 20+10 text pages, text watermark on each, AES-256 encrypt",
        unit="ms",
        renderkit=ours_ms,
        peer="pypdf (merge_page of a prepared stamp, encrypt AES-256)",
        peer_median=peer_ms,
        notes=f"{args.rounds} rounds, interleaved",
    )


if __name__ == "__main__":
    asyncio.run(main())
