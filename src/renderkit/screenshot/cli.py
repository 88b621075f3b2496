"""``renderkit screenshot``: capture a web page into a PNG, JPEG, WebP or PDF file."""

from __future__ import annotations

import argparse
from typing import Any

from renderkit.browser import ChromiumPool
from renderkit.browser.cli import add_browser_arguments, browser_config
from renderkit.core.cli import (
    add_output_argument,
    command,
    output_format,
    report,
    write_output,
)
from renderkit.core.converter import structure
from renderkit.screenshot._capture import screenshot
from renderkit.screenshot._models import DEVICES, SCREENSHOT_FORMATS, ScreenshotRequest

__all__ = ["add_screenshot_command", "run_screenshot_command"]


def add_screenshot_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``screenshot`` sub-command to ``parser.add_subparsers()``'s result."""
    parser: argparse.ArgumentParser = subparsers.add_parser("screenshot", help="capture a web page")
    parser.add_argument("url")
    parser.add_argument("--device", default="desktop", choices=list(DEVICES))
    parser.add_argument("--width", type=int, help="viewport width (overrides --device)")
    parser.add_argument("--height", type=int, help="viewport height (overrides --device)")
    parser.add_argument(
        "--format",
        default=None,
        choices=list(SCREENSHOT_FORMATS),
        help="default: from the output file's extension, else png",
    )
    parser.add_argument("--quality", type=int, default=90)
    parser.add_argument("--full-page", action="store_true")
    parser.add_argument("--dark", action="store_true", help="prefers-color-scheme: dark")
    parser.add_argument("--block-ads", action="store_true")
    parser.add_argument("--delay", type=int, default=0, help="milliseconds after load")
    parser.add_argument("--selector", help="capture only this element")
    add_output_argument(parser)
    add_browser_arguments(parser)
    parser.set_defaults(run=run_screenshot_command)
    return parser


@command("screenshot")
async def run_screenshot_command(args: argparse.Namespace) -> int:
    """Run ``renderkit screenshot``; returns the exit status.

    Raises:
        InvalidRequestError: a field is invalid (checked before a browser starts).
        RenderkitError: the page could not be captured.
    """
    request: dict[str, Any] = {
        "url": args.url,
        "device": args.device,
        "format": output_format(args.output, args.format, SCREENSHOT_FORMATS, default="png"),
        "quality": args.quality,
        "full_page": args.full_page,
        "dark_mode": args.dark,
        "block_ads": args.block_ads,
        "delay": args.delay,
    }
    if args.selector:
        request["selector"] = args.selector
    if args.width or args.height:
        device = DEVICES[args.device]
        request["viewport"] = {
            "width": args.width or device.width,
            "height": args.height or device.height,
        }
    validated = structure(request, ScreenshotRequest)
    async with ChromiumPool(browser_config(args)) as pool:
        result = await screenshot(validated, browser=pool)
    write_output(args.output, result.content)
    status = f" HTTP {result.http_status}" if result.http_status else ""
    report(
        f"{args.output}  {result.width}x{result.height} {result.format} "
        f"{result.size_bytes:,} B{status}  {result.source_url}"
    )
    for warning in result.warnings:
        report(f"warning: {warning}")
    return 0
