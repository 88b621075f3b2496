"""``renderkit image``: render a template or HTML into a PNG, JPEG or WebP file."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from renderkit.browser import ChromiumPool
from renderkit.core.cli import (
    add_browser_arguments,
    add_template_arguments,
    browser_config,
    command,
    template_request,
    write_output,
)
from renderkit.core.converter import structure
from renderkit.image._models import IMAGE_FORMATS, IMAGE_TEMPLATES, ImageRequest
from renderkit.image._render import render_image

__all__ = ["add_image_command", "run_image_command"]


def add_image_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``image`` sub-command to ``parser.add_subparsers()``'s result."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "image", help="render an image from a template or HTML"
    )
    names = sorted({n for t in IMAGE_TEMPLATES for n in (t.name, *t.aliases)})
    add_template_arguments(parser, names)
    parser.add_argument("--format", default="png", choices=list(IMAGE_FORMATS))
    parser.add_argument("--quality", type=int, default=90)
    parser.add_argument("--width", type=int)
    parser.add_argument("--height", type=int)
    parser.add_argument("--scale", type=float, default=2.0)
    parser.add_argument("-o", "--output", type=Path, required=True)
    add_browser_arguments(parser)
    parser.set_defaults(run=run_image_command)
    return parser


@command("image")
async def run_image_command(args: argparse.Namespace) -> int:
    """Run ``renderkit image``; returns the exit status.

    Raises:
        InvalidRequestError: a field is invalid (checked before a browser starts).
        RenderkitError: rendering failed.
    """
    request = template_request(args)
    request.update(format=args.format, quality=args.quality, scale=args.scale)
    for name in ("width", "height"):
        if getattr(args, name) is not None:
            request[name] = getattr(args, name)
    # Validate before paying for a browser launch.
    validated = structure(request, ImageRequest)
    async with ChromiumPool(browser_config(args)) as pool:
        result = await render_image(validated, browser=pool)
    write_output(args.output, result.content)
    print(f"{args.output}  {result.width}x{result.height} {result.format} {result.size_bytes:,} B")
    return 0
