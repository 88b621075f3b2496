"""The ``renderkit`` command line: each capability's sub-command, plus demo, doctor and serve.

The capability commands live beside their capability (``renderkit.image.cli`` and so on);
what they share, exit statuses included, is :mod:`renderkit.core.cli`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from renderkit.batch.cli import add_batch_command
from renderkit.browser import DEFAULT_CHROMIUM
from renderkit.core.cli import EPILOG, HelpFormatter, run_parser
from renderkit.core.errors import MissingDependencyError
from renderkit.demo import add_demo_command
from renderkit.image.cli import add_image_command, add_sign_url_command
from renderkit.parsing.cli import add_parse_command
from renderkit.pdf.cli import add_pdf_command
from renderkit.pdfops.cli import add_pdf_ops_command
from renderkit.reading.cli import add_read_command
from renderkit.screenshot.cli import add_screenshot_command
from renderkit.speech.cli import add_audio_command, add_speech_command

__all__ = ["main"]

# Plain text: argparse prints it as is, so no reStructuredText markup.
_DESCRIPTION = """Render images, PDFs, screenshots and speech, read web pages, and parse
documents, from the command line. Each command has its own --help."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="renderkit",
        description=_DESCRIPTION,
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_image_command(sub)
    add_sign_url_command(sub)
    add_pdf_command(sub)
    add_pdf_ops_command(sub)
    add_screenshot_command(sub)
    add_read_command(sub)
    add_audio_command(sub)
    add_speech_command(sub)
    add_parse_command(sub)
    add_batch_command(sub)
    add_demo_command(sub)

    serve = sub.add_parser(
        "serve", help="run the HTTP API (configured by RENDERKIT_* environment variables)"
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(run=_serve)

    usage = sub.add_parser("usage", help="the server's usage ledger, for the operator")
    usage_sub = usage.add_subparsers(dest="usage_command", required=True, metavar="COMMAND")
    export = usage_sub.add_parser(
        "export",
        help="every key's committed usage in one month (configured by RENDERKIT_* variables)",
    )
    export.add_argument("--month", required=True, help="the month, YYYY-MM")
    export.add_argument("--format", choices=("csv", "json"), default="json")
    export.set_defaults(run=_usage_export)

    doctor = sub.add_parser("doctor", help="check Chromium, fonts and system tools")
    doctor.add_argument("--chromium", default=DEFAULT_CHROMIUM)
    doctor.add_argument("--kokoro-dir", type=Path, help="default: ~/.cache/renderkit/kokoro")
    doctor.set_defaults(run=_doctor)
    for command in sub.choices.values():
        command.epilog = command.epilog or EPILOG  # a command with its own statuses keeps them
        command.formatter_class = HelpFormatter
    return parser


def _version() -> str:
    try:
        return metadata.version("renderkit")
    except metadata.PackageNotFoundError:
        # Run from a source tree that was never installed.
        return "(not installed)"


def _serve(args: argparse.Namespace) -> int:
    try:
        from renderkit_server.main import serve
    except ImportError as exc:
        msg = "the server needs the server extra: pip install 'renderkit[server]'"
        raise MissingDependencyError(msg) from exc
    return serve(host=args.host, port=args.port, workers=args.workers, log_level=args.log_level)


async def _usage_export(args: argparse.Namespace) -> int:
    try:
        from renderkit_server.usage.cli import export_usage
    except ImportError as exc:
        msg = "the usage ledger needs the server extra: pip install 'renderkit[server]'"
        raise MissingDependencyError(msg) from exc
    print(await export_usage(month=args.month, fmt=args.format), end="")
    return 0


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
    """Run the command line; returns the exit status (see :mod:`renderkit.core.cli`)."""
    return run_parser(_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
