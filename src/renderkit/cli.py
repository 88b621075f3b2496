"""The ``renderkit`` command line: each capability's sub-command, plus demo, doctor and serve.

The capability commands live beside their capability (``renderkit.image.cli`` and so on);
what they share, exit statuses included, is :mod:`renderkit.core.cli`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from renderkit.browser import ChromiumPool
from renderkit.core.cli import add_browser_arguments, browser_config, run_command
from renderkit.core.errors import MissingDependencyError
from renderkit.image import render_image
from renderkit.image.cli import add_image_command, add_sign_url_command
from renderkit.parsing.cli import add_parse_command
from renderkit.pdf.cli import add_pdf_command
from renderkit.screenshot.cli import add_screenshot_command
from renderkit.speech.cli import add_audio_command, add_speech_command

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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="renderkit", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    add_image_command(sub)
    add_sign_url_command(sub)
    add_pdf_command(sub)
    add_screenshot_command(sub)
    add_audio_command(sub)
    add_speech_command(sub)
    add_parse_command(sub)

    demo = sub.add_parser("demo", help="render every template with sample data into a folder")
    demo.add_argument("-o", "--output", type=Path, default=Path("renderkit-demo"))
    add_browser_arguments(demo)
    demo.set_defaults(run=_demo)

    serve = sub.add_parser(
        "serve", help="run the HTTP API (configured by RENDERKIT_* environment variables)"
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(run=_serve)

    doctor = sub.add_parser("doctor", help="check Chromium, fonts and system tools")
    doctor.add_argument("--chromium", default="/usr/bin/chromium")
    doctor.add_argument("--kokoro-dir", type=Path, help="default: ~/.cache/renderkit/kokoro")
    doctor.set_defaults(run=_doctor)
    return parser


async def _demo(args: argparse.Namespace) -> int:
    args.output.mkdir(parents=True, exist_ok=True)
    async with ChromiumPool(browser_config(args)) as pool:
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

    checks = run_checks(chromium=args.chromium, kokoro_dir=args.kokoro_dir)
    for check in checks:
        mark = "ok " if check.ok else ("MISSING" if check.required else "missing")
        print(f"{mark:8} {check.name:15} {check.detail}")
        if check.hint:
            print(f"{'':8} {'':15} fix: {check.hint}")
    return 1 if any(c.required and not c.ok for c in checks) else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for invalid input, 1 for a failure)."""
    args = _parser().parse_args(argv)
    return run_command(args.run, args)


if __name__ == "__main__":
    sys.exit(main())
