"""``renderkit read``: a web page's main content as Markdown, HTML or text."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from renderkit.browser import ChromiumPool
from renderkit.browser.cli import add_browser_arguments, browser_config
from renderkit.core.cli import (
    STDOUT,
    CommandError,
    add_output_argument,
    command,
    report,
    write_output,
)
from renderkit.core.converter import structure
from renderkit.reading._models import READ_FORMATS, ReadRequest
from renderkit.reading._read import read_page

__all__ = ["add_read_command", "run_read_command"]

#: The format an output file's extension names.
_EXTENSIONS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".txt": "text",
}


def add_read_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``read`` sub-command to ``parser.add_subparsers()``'s result."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "read", help="read a web page's main content as Markdown, HTML or text"
    )
    parser.add_argument("url")
    parser.add_argument(
        "--format",
        default=None,
        choices=list(READ_FORMATS),
        help="default: from the output file's extension (.md, .html, .txt), else markdown",
    )
    parser.add_argument("--wait-for", metavar="SELECTOR", help="wait until this is visible")
    parser.add_argument("--delay", type=int, default=0, help="milliseconds after load")
    parser.add_argument("--block-ads", action="store_true")
    parser.add_argument(
        "--keep-cookie-banners", action="store_true", help="do not remove consent banners"
    )
    add_output_argument(parser, required=False)
    add_browser_arguments(parser)
    parser.set_defaults(run=run_read_command, output=Path(STDOUT))
    return parser


def _format(output: Path, chosen: str | None) -> str:
    """``--format`` if given, else the one ``-o``'s extension names, else Markdown.

    Raises:
        CommandError: the extension names another format than ``--format``, or none of
            the three (``-o page.pdf`` would hand the user Markdown under a PDF's name).
    """
    suffix = "" if str(output) == STDOUT else output.suffix.lower()
    named = _EXTENSIONS.get(suffix)
    if suffix and named is None:
        msg = f"-o {output} names no format this command writes ({', '.join(_EXTENSIONS)})"
        raise CommandError(msg)
    if chosen is not None and named is not None and named != chosen:
        msg = f"--format {chosen} conflicts with -o {output}, which names {named}"
        raise CommandError(msg)
    return chosen or named or "markdown"


@command("read")
async def run_read_command(args: argparse.Namespace) -> int:
    """Run ``renderkit read``; returns the exit status.

    Raises:
        InvalidRequestError: a field is invalid (checked before a browser starts).
        RenderkitError: the page could not be read.
    """
    fmt = _format(Path(args.output), args.format)
    request: dict[str, Any] = {
        "url": args.url,
        "format": fmt,
        "delay": args.delay,
        "block_ads": args.block_ads,
        "block_cookie_banners": not args.keep_cookie_banners,
    }
    if args.wait_for:
        request["wait_for_selector"] = args.wait_for
    validated = structure(request, ReadRequest)
    async with ChromiumPool(browser_config(args)) as pool:
        result = await read_page(validated, browser=pool)
    write_output(args.output, result.content + "\n")
    title = result.metadata.title or "(no title)"
    status = f" HTTP {result.http_status}" if result.http_status else ""
    report(f"{args.output}  {fmt} {len(result.content):,} chars{status}  {title}")
    for warning in result.warnings:
        report(f"warning: {warning}")
    return 0
