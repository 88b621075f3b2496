"""``renderkit pdf-ops``: merge, select, rotate, stamp, number, describe, attach, split and
encrypt PDF files, the same request :func:`~renderkit.pdfops.pdf_ops` takes."""

from __future__ import annotations

import argparse
import base64
import mimetypes
from pathlib import Path
from typing import Any

from renderkit.core.cli import add_output_argument, command, read_bytes, report, write_output
from renderkit.pdfops._models import PERMISSIONS, POSITIONS
from renderkit.pdfops._run import pdf_ops

__all__ = ["add_pdf_ops_command", "run_pdf_ops_command"]


def add_pdf_ops_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``pdf-ops`` sub-command to ``parser.add_subparsers()``'s result."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "pdf-ops",
        help="merge, split, rotate, watermark, number, describe, attach or encrypt PDFs",
        description="Steps run in this order: merge the inputs, --pages, --rotate, "
        "--watermark, --page-numbers, metadata, --attach, --split, encryption. "
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
    return request


@command("pdf-ops")
async def run_pdf_ops_command(args: argparse.Namespace) -> int:
    """Run ``renderkit pdf-ops``; returns the exit status.

    Raises:
        InvalidRequestError: an option or an input is invalid (before any work).
    """
    result = await pdf_ops(build_request(args))
    write_output(args.output, result.content)
    parts = f"{len(result.parts)} PDFs in a ZIP" if len(result.parts) > 1 else "1 PDF"
    steps = ", ".join(result.steps) or "copied"
    report(f"{args.output}  {parts}, {result.pages} page(s) ({steps})")
    for item in result.attachments:
        report(f"attachment: {item.filename} {item.mime_type} {item.size:,} B")
    return 0
