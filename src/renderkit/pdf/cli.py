"""``renderkit pdf``: render a document template or HTML into a PDF file."""

from __future__ import annotations

import argparse
from typing import Any

from renderkit.browser import ChromiumPool
from renderkit.browser.cli import add_browser_arguments, browser_config
from renderkit.core.cli import (
    add_output_argument,
    add_template_arguments,
    command,
    output_format,
    report,
    template_request,
    write_output,
)
from renderkit.core.converter import structure
from renderkit.pdf._locale import DEFAULT_LOCALE
from renderkit.pdf._models import MARGINS, PAGE_SIZES, PDF_TEMPLATES, PdfRequest
from renderkit.pdf._pdfa import PDF_STANDARDS
from renderkit.pdf._render import render_pdf

__all__ = ["add_pdf_command", "run_pdf_command"]


def add_pdf_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``pdf`` sub-command to ``parser.add_subparsers()``'s result."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "pdf", help="render a PDF from a document template or HTML"
    )
    add_template_arguments(parser, PDF_TEMPLATES)
    parser.add_argument("--page-size", default="A4", choices=list(PAGE_SIZES))
    parser.add_argument("--landscape", action="store_true")
    parser.add_argument("--margin", default="normal", choices=list(MARGINS))
    parser.add_argument(
        "--locale",
        default=DEFAULT_LOCALE,
        help="labels, dates and amounts of templates, e.g. de, de-DE, ar (default: en)",
    )
    parser.add_argument(
        "--pdf-standard", choices=list(PDF_STANDARDS), help="write an archival PDF/A file"
    )
    parser.add_argument(
        "--tagged", action="store_true", help="a tagged PDF with an outline of the headings"
    )
    add_output_argument(parser)
    add_browser_arguments(parser)
    parser.set_defaults(run=run_pdf_command)
    return parser


@command("pdf")
async def run_pdf_command(args: argparse.Namespace) -> int:
    """Run ``renderkit pdf``; returns the exit status.

    Raises:
        InvalidRequestError: a field is invalid (checked before a browser starts).
        RenderkitError: rendering failed.
    """
    # pdf writes only PDF; -o report.png is a mistake worth catching before rendering.
    output_format(args.output, None, ("pdf",), default="pdf")
    request = template_request(args)
    request.update(
        page_size=args.page_size,
        landscape=args.landscape,
        margin=args.margin,
        locale=args.locale,
        pdf_standard=args.pdf_standard,
        tagged=args.tagged,
    )
    validated = structure(request, PdfRequest)
    async with ChromiumPool(browser_config(args)) as pool:
        result = await render_pdf(validated, browser=pool)
    write_output(args.output, result.content)
    orientation = "landscape" if result.landscape else "portrait"
    report(
        f"{args.output}  {result.pages} page(s) {result.page_size} {orientation} "
        f"{result.size_bytes:,} B"
    )
    for warning in result.warnings:
        report(f"warning: {warning}")
    return 0
