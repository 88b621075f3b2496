"""``renderkit pdf-ops``: merge, select, rotate, stamp, number, describe, attach, split,
encrypt and sign PDF files, the same request :func:`~renderkit.pdfops.pdf_ops` takes (the
signer from a local ``.p12`` file)."""

from __future__ import annotations

import argparse
import base64
import mimetypes
from pathlib import Path
from typing import Any

from renderkit.core.cli import (
    CommandError,
    add_output_argument,
    command,
    read_bytes,
    report,
    write_output,
)
from renderkit.core.errors import ConfigurationError
from renderkit.pdfops._models import PERMISSIONS, POSITIONS
from renderkit.pdfops._run import pdf_ops
from renderkit.pdfops._sign import Signer

__all__ = ["add_pdf_ops_command", "run_pdf_ops_command"]


def add_pdf_ops_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``pdf-ops`` sub-command to ``parser.add_subparsers()``'s result."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "pdf-ops",
        help="merge, split, rotate, watermark, number, describe, attach, encrypt or sign PDFs",
        description="Steps run in this order: merge the inputs, --pages, --rotate, "
        "--watermark, --page-numbers, metadata, --attach, --split, encryption, and last "
        "--sign (a PAdES signature; nothing may rewrite the file after it). "
        "A --split writes a ZIP of the parts.",
    )
    parser.add_argument("inputs", nargs="+", type=Path, metavar="PDF", help="input PDFs")
    parser.add_argument("--password", help="opens encrypted inputs")
    parser.add_argument("--pages", help="keep these pages, in this order (e.g. 1-3,5,8-)")
    parser.add_argument("--rotate", type=int, choices=[90, 180, 270], help="turn clockwise")
    parser.add_argument("--rotate-pages", help="the pages --rotate turns (default: all)")
    parser.add_argument("--watermark", metavar="TEXT", help="stamp this text on every page")
    parser.add_argument("--watermark-image", type=Path, metavar="PNG", help="or this image")
    parser.add_argument("--opacity", type=float, default=0.3)
    parser.add_argument("--angle", type=float, default=45.0)
    parser.add_argument("--position", default="center", choices=list(POSITIONS))
    parser.add_argument(
        "--page-numbers",
        nargs="?",
        const="Page {n} of {total}",
        metavar="FORMAT",
        help="print page numbers ({n}, {total}; default 'Page {n} of {total}')",
    )
    for name in ("title", "author", "subject", "language"):
        parser.add_argument(f"--{name}")
    parser.add_argument("--keywords", help="comma-separated")
    parser.add_argument("--attach", type=Path, action="append", default=[], metavar="FILE")
    parser.add_argument("--split", action="append", metavar="RANGE", help="one PDF per range")
    parser.add_argument("--owner-password", help="encrypt with AES-256")
    parser.add_argument("--user-password", default="", help="needed to open the result")
    parser.add_argument(
        "--allow",
        action="append",
        choices=list(PERMISSIONS),
        help="what readers may do without the owner password (repeat; default: print)",
    )
    parser.add_argument(
        "--sign-p12",
        type=Path,
        metavar="P12",
        help="sign each result with this PKCS#12 key and certificate (PAdES B-B; needs "
        "renderkit[sign])",
    )
    parser.add_argument(
        "--sign-passphrase-file",
        type=Path,
        metavar="FILE",
        help="the file holding the --sign-p12 passphrase (one line; kept off the command "
        "line, where other users could read it)",
    )
    parser.add_argument("--sign-reason", help="why it is signed (shown by readers)")
    parser.add_argument("--sign-location", help="where it is signed")
    parser.add_argument(
        "--sign-timestamp-url",
        metavar="URL",
        help="an RFC 3161 time-stamp authority: the signature becomes PAdES B-T",
    )
    add_output_argument(parser)
    parser.set_defaults(run=run_pdf_ops_command)
    return parser


def _b64(path: Path, what: str) -> str:
    return base64.b64encode(read_bytes(path, what=what)).decode()


def build_request(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`~renderkit.pdfops.PdfOpsRequest` the options describe, as a dict."""
    request: dict[str, Any] = {
        "files": [
            {"file": _b64(path, "PDF"), **({"password": args.password} if args.password else {})}
            for path in args.inputs
        ]
    }
    if args.pages:
        request["pages"] = args.pages
    if args.rotate:
        request["rotate"] = {"angle": args.rotate, "pages": args.rotate_pages}
    if args.watermark or args.watermark_image:
        mark: dict[str, Any] = {
            "opacity": args.opacity,
            "angle": args.angle,
            "position": args.position,
        }
        if args.watermark_image:
            mark["image"] = _b64(args.watermark_image, "--watermark-image")
        else:
            mark["text"] = args.watermark
        request["watermark"] = mark
    if args.page_numbers:
        request["page_numbers"] = {"format": args.page_numbers}
    metadata = {
        name: getattr(args, name)
        for name in ("title", "author", "subject", "language")
        if getattr(args, name)
    }
    if args.keywords:
        metadata["keywords"] = [word.strip() for word in args.keywords.split(",") if word.strip()]
    if metadata:
        request["metadata"] = metadata
    request["attachments"] = [
        {
            "filename": path.name,
            "file": _b64(path, "--attach"),
            "mime_type": mimetypes.guess_type(path.name)[0] or "application/octet-stream",
        }
        for path in args.attach
    ]
    if args.split:
        request["split"] = args.split
    if args.owner_password:
        request["encrypt"] = {
            "owner_password": args.owner_password,
            "user_password": args.user_password,
            "permissions": args.allow or ["print"],
        }
    if args.sign_p12:
        sign = {"reason": args.sign_reason, "location": args.sign_location}
        request["sign"] = {name: value for name, value in sign.items() if value}
    return request


def load_signer(args: argparse.Namespace) -> Signer | None:
    """The signer of ``--sign-p12`` (None without it).

    Raises:
        CommandError: a file cannot be read, or the archive does not open with the
            passphrase (which no message shows).
    """
    if args.sign_p12 is None:
        if args.sign_passphrase_file is not None or args.sign_timestamp_url:
            msg = "--sign-passphrase-file and --sign-timestamp-url need --sign-p12"
            raise CommandError(msg)
        return None
    archive = read_bytes(args.sign_p12, what="--sign-p12")
    passphrase = None
    if args.sign_passphrase_file is not None:
        raw = read_bytes(args.sign_passphrase_file, what="--sign-passphrase-file")
        passphrase = Signer.passphrase_line(raw)
    try:
        return Signer.from_pkcs12(archive, passphrase, timestamp_url=args.sign_timestamp_url)
    except ConfigurationError:
        msg = (
            "--sign-p12 does not open with the passphrase of --sign-passphrase-file "
            "(or is not a PKCS#12 file)"
        )
        raise CommandError(msg) from None


@command("pdf-ops")
async def run_pdf_ops_command(args: argparse.Namespace) -> int:
    """Run ``renderkit pdf-ops``; returns the exit status.

    Raises:
        InvalidRequestError: an option or an input is invalid (before any work).
    """
    signer = load_signer(args)
    result = await pdf_ops(build_request(args), signer=signer)
    write_output(args.output, result.content)
    parts = f"{len(result.parts)} PDFs in a ZIP" if len(result.parts) > 1 else "1 PDF"
    steps = ", ".join(result.steps) or "copied"
    report(f"{args.output}  {parts}, {result.pages} page(s) ({steps})")
    for item in result.attachments:
        report(f"attachment: {item.filename} {item.mime_type} {item.size:,} B")
    if signer is not None:
        report(f"signed (PAdES {result.signature_level}) as {signer.subject}")
    return 0
