"""``renderkit image``: render a template or HTML into a PNG, JPEG or WebP file; and
``renderkit sign-url``: a signed render-by-URL image link for a renderkit server."""

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
from renderkit.core.errors import InvalidRequestError
from renderkit.image._models import IMAGE_FORMATS, IMAGE_TEMPLATES, ImageRequest
from renderkit.image._render import render_image
from renderkit.image.signed_url import sign_image_url

__all__ = ["add_image_command", "add_sign_url_command", "run_image_command"]


def add_image_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``image`` sub-command to ``parser.add_subparsers()``'s result."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "image", help="render an image from a template or HTML"
    )
    names = sorted({n for t in IMAGE_TEMPLATES for n in (t.name, *t.aliases)})
    add_template_arguments(parser, names)
    parser.add_argument(
        "--format",
        choices=list(IMAGE_FORMATS),
        help="default: from the output file's extension (.png .jpg .jpeg .webp), else png",
    )
    parser.add_argument("--quality", type=int, default=90)
    parser.add_argument("--width", type=int)
    parser.add_argument("--height", type=int)
    parser.add_argument("--scale", type=float, default=2.0)
    add_output_argument(parser)
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
    image_format = output_format(args.output, args.format, IMAGE_FORMATS, default="png")
    request.update(format=image_format, quality=args.quality, scale=args.scale)
    for name in ("width", "height"):
        if getattr(args, name) is not None:
            request[name] = getattr(args, name)
    # Validate before paying for a browser launch.
    validated = structure(request, ImageRequest)
    async with ChromiumPool(browser_config(args)) as pool:
        result = await render_image(validated, browser=pool)
    write_output(args.output, result.content)
    report(f"{args.output}  {result.width}x{result.height} {result.format} {result.size_bytes:,} B")
    for warning in result.warnings:
        report(f"warning: {warning}")
    return 0


def add_sign_url_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``sign-url`` sub-command to ``parser.add_subparsers()``'s result."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "sign-url", help="print a signed image URL for <meta property=og:image> (no request made)"
    )
    parser.add_argument("--base", required=True, help="the server, e.g. https://render.example")
    parser.add_argument("--key", required=True, help="your API key (it is not put in the URL)")
    parser.add_argument("--template", required=True)
    parser.add_argument("--format", default="png", choices=list(IMAGE_FORMATS))
    parser.add_argument("--expires", type=int, help="unix time after which the URL is refused")
    parser.add_argument("--width", type=int)
    parser.add_argument("--height", type=int)
    parser.add_argument("--scale", type=float)
    parser.add_argument("fields", nargs="*", metavar="NAME=VALUE", help="template data fields")
    parser.set_defaults(run=run_sign_url_command)
    return parser


def run_sign_url_command(args: argparse.Namespace) -> int:
    """Run ``renderkit sign-url``: print the URL; returns the exit status.

    Raises:
        InvalidRequestError: a field is not NAME=VALUE, or the key or format is invalid.
    """
    data: dict[str, str] = {}
    for field in args.fields:
        name, sep, value = field.partition("=")
        if not sep or not name:
            msg = f"expected NAME=VALUE, got {field[:60]!r}"
            raise InvalidRequestError.single("fields", msg)
        data[name] = value
    print(
        sign_image_url(
            args.base,
            args.key,
            args.template,
            data,
            format=args.format,
            expires=args.expires,
            width=args.width,
            height=args.height,
            scale=args.scale,
        )
    )
    return 0
