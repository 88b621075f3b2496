"""The ``renderkit`` command line."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.core.converter import structure
from renderkit.core.errors import InvalidRequestError, MissingDependencyError, RenderkitError
from renderkit.image._models import IMAGE_TEMPLATES, ImageRequest
from renderkit.image._render import render_image
from renderkit.parsing.cli import add_parse_command, run_parse_command
from renderkit.pdf._models import PAGE_SIZES, PDF_TEMPLATES, PdfRequest
from renderkit.pdf._render import render_pdf
from renderkit.screenshot._capture import screenshot
from renderkit.screenshot._models import DEVICES, ScreenshotRequest
from renderkit.speech.cli import add_audio_command, run_audio_command

__all__ = ["main"]

# Sample data for `renderkit demo`: every template, each background theme.
_DEMO = {
    "og-card": {
        "tag": "Release 1.0",
        "title": "Render anything from JSON, in milliseconds",
        "subtitle": "Images, PDFs, screenshots, speech and parsing behind one API.",
        "domain": "renderkit.dev",
        "background": "dark",
    },
    "social-square": {
        "tag": "New",
        "title": "Ship social cards without a designer 🎨",
        "subtitle": "Four templates, three themes, your brand colour.",
        "cta": "Try it free",
        "background": "gradient",
        "brand_color": "#ec4899",
    },
    "twitter-card": {
        "title": "How we render an OG image in 60 ms",
        "subtitle": "Warm pages, DOM swaps and a fast PNG encoder.",
        "domain": "blog.renderkit.dev",
        "background": "light",
    },
    "announcement": {
        "tag": "Webinar",
        "title": "Automating documents at scale",
        "subtitle": "Thursday, 3 December · 17:00 CET",
        "cta": "Register",
        "background": "gradient",
        "brand_color": "#0ea5e9",
    },
}


def _json_arg(value: str) -> Any:
    text = Path(value[1:]).read_text() if value.startswith("@") else value
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        msg = f"not valid JSON: {exc}"
        raise argparse.ArgumentTypeError(msg) from exc


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="renderkit", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def browser_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--chromium", default="/usr/bin/chromium", help="Chromium executable")
        p.add_argument("--cdp-url", help="use a running browser over CDP instead")
        p.add_argument(
            "--allow-private-network",
            action="store_true",
            help="let pages load from private/loopback addresses (development only)",
        )

    image = sub.add_parser("image", help="render an image from a template or HTML")
    names = sorted({n for t in IMAGE_TEMPLATES for n in (t.name, *t.aliases)})
    image.add_argument("--template", required=True, help=", ".join(names))
    image.add_argument("--data", type=_json_arg, default={}, help="JSON object or @file.json")
    image.add_argument("--html", type=Path, help="HTML file for --template custom")
    image.add_argument("--format", default="png", choices=["png", "jpeg", "webp"])
    image.add_argument("--quality", type=int, default=90)
    image.add_argument("--width", type=int)
    image.add_argument("--height", type=int)
    image.add_argument("--scale", type=float, default=2.0)
    image.add_argument("-o", "--output", type=Path, required=True)
    browser_options(image)

    pdf = sub.add_parser("pdf", help="render a PDF from a document template or HTML")
    pdf.add_argument("--template", required=True, help=", ".join(PDF_TEMPLATES))
    pdf.add_argument("--data", type=_json_arg, default={}, help="JSON object or @file.json")
    pdf.add_argument("--html", type=Path, help="HTML file for --template custom")
    pdf.add_argument("--page-size", default="A4", choices=list(PAGE_SIZES))
    pdf.add_argument("--landscape", action="store_true")
    pdf.add_argument("--margin", default="normal", choices=["none", "small", "normal", "large"])
    pdf.add_argument("-o", "--output", type=Path, required=True)
    browser_options(pdf)

    shot = sub.add_parser("screenshot", help="capture a web page")
    shot.add_argument("url")
    shot.add_argument("--device", default="desktop", choices=list(DEVICES))
    shot.add_argument("--width", type=int, help="viewport width (overrides --device)")
    shot.add_argument("--height", type=int, help="viewport height (overrides --device)")
    shot.add_argument(
        "--format",
        default=None,
        choices=["png", "jpeg", "webp", "pdf"],
        help="default: from the output file's extension, else png",
    )
    shot.add_argument("--quality", type=int, default=90)
    shot.add_argument("--full-page", action="store_true")
    shot.add_argument("--dark", action="store_true", help="prefers-color-scheme: dark")
    shot.add_argument("--block-ads", action="store_true")
    shot.add_argument("--delay", type=int, default=0, help="milliseconds after load")
    shot.add_argument("--selector", help="capture only this element")
    shot.add_argument("-o", "--output", type=Path, required=True)
    browser_options(shot)

    add_audio_command(sub)
    add_parse_command(sub)

    demo = sub.add_parser("demo", help="render every template with sample data into a folder")
    demo.add_argument("-o", "--output", type=Path, default=Path("renderkit-demo"))
    browser_options(demo)

    serve = sub.add_parser(
        "serve", help="run the HTTP API (configured by RENDERKIT_* environment variables)"
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--log-level", default="info")

    doctor = sub.add_parser("doctor", help="check Chromium, fonts and system tools")
    doctor.add_argument("--chromium", default="/usr/bin/chromium")
    return parser


def _browser_config(args: argparse.Namespace) -> BrowserConfig:
    return BrowserConfig(
        executable_path=args.chromium,
        cdp_url=args.cdp_url,
        allow_private_network=args.allow_private_network,
        slots=1,
    )


async def _image(args: argparse.Namespace) -> int:
    request: dict[str, Any] = {
        "template": args.template,
        "data": args.data,
        "format": args.format,
        "quality": args.quality,
        "scale": args.scale,
    }
    if args.html is not None:
        request["html"] = args.html.read_text()
    for name in ("width", "height"):
        if getattr(args, name) is not None:
            request[name] = getattr(args, name)
    # Validate before paying for a browser launch.
    validated = structure(request, ImageRequest)
    async with ChromiumPool(_browser_config(args)) as pool:
        result = await render_image(validated, browser=pool)
    result.save(args.output)
    print(f"{args.output}  {result.width}x{result.height} {result.format} {result.size_bytes:,} B")
    return 0


async def _pdf(args: argparse.Namespace) -> int:
    request: dict[str, Any] = {
        "template": args.template,
        "data": args.data,
        "page_size": args.page_size,
        "landscape": args.landscape,
        "margin": args.margin,
    }
    if args.html is not None:
        request["html"] = args.html.read_text()
    validated = structure(request, PdfRequest)
    async with ChromiumPool(_browser_config(args)) as pool:
        result = await render_pdf(validated, browser=pool)
    result.save(args.output)
    orientation = "landscape" if result.landscape else "portrait"
    print(
        f"{args.output}  {result.pages} page(s) {result.page_size} {orientation} "
        f"{result.size_bytes:,} B"
    )
    return 0


async def _screenshot(args: argparse.Namespace) -> int:
    suffix = args.output.suffix.lower().lstrip(".")
    fmt = args.format or {"jpg": "jpeg"}.get(
        suffix, suffix if suffix in ("png", "jpeg", "webp", "pdf") else "png"
    )
    request: dict[str, Any] = {
        "url": args.url,
        "device": args.device,
        "format": fmt,
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
    async with ChromiumPool(_browser_config(args)) as pool:
        result = await screenshot(validated, browser=pool)
    result.save(args.output)
    status = f" HTTP {result.http_status}" if result.http_status else ""
    print(
        f"{args.output}  {result.width}x{result.height} {result.format} "
        f"{result.size_bytes:,} B{status}  {result.source_url}"
    )
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


async def _demo(args: argparse.Namespace) -> int:
    args.output.mkdir(parents=True, exist_ok=True)
    async with ChromiumPool(_browser_config(args)) as pool:
        for name, data in _DEMO.items():
            result = await render_image({"template": name, "data": data}, browser=pool)
            path = result.save(args.output / f"{name}.png")
            print(f"{path}  {result.width}x{result.height} {result.size_bytes:,} B")
    return 0


def _serve(args: argparse.Namespace) -> int:
    try:
        from renderkit_server.main import serve
    except ImportError as exc:
        msg = "the server needs the server extra: pip install 'renderkit[server]'"
        raise MissingDependencyError(msg) from exc
    return serve(host=args.host, port=args.port, workers=args.workers, log_level=args.log_level)


def _doctor(args: argparse.Namespace) -> int:
    from renderkit._doctor import run_checks

    checks = run_checks(chromium=args.chromium)
    for check in checks:
        mark = "ok " if check.ok else ("MISSING" if check.required else "missing")
        print(f"{mark:8} {check.name:15} {check.detail}")
        if check.hint:
            print(f"{'':8} {'':15} fix: {check.hint}")
    return 1 if any(c.required and not c.ok for c in checks) else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for invalid input)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "doctor":
            return _doctor(args)
        if args.command == "serve":
            return _serve(args)
        command = {
            "image": _image,
            "pdf": _pdf,
            "screenshot": _screenshot,
            "audio": run_audio_command,
            "parse": run_parse_command,
            "demo": _demo,
        }[args.command]
        return asyncio.run(command(args))
    except InvalidRequestError as exc:
        print(f"renderkit: invalid request: {exc}", file=sys.stderr)
        return 2
    except RenderkitError as exc:
        print(f"renderkit: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
