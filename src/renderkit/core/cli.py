"""What every ``renderkit`` sub-command shares: arguments, reading and writing files, exits.

Each capability has a ``cli`` module with ``add_<name>_command(subparsers)``, which adds its
sub-command and sets ``run`` to its ``run_<name>_command(args)``; :mod:`renderkit.cli` only
assembles them and calls :func:`run_command`. Exit statuses are the same everywhere:

- 0: done;
- 2 (:data:`EXIT_USAGE`): the input is unusable: bad arguments, an unreadable file, or a
  request the library refused as invalid (:class:`InvalidRequestError`);
- 1 (:data:`EXIT_FAILED`): the work failed (a :class:`RenderkitError`, an unwritable output).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any

from renderkit.browser import BrowserConfig
from renderkit.core.errors import InvalidRequestError, RenderkitError

__all__ = [
    "EXIT_FAILED",
    "EXIT_USAGE",
    "CommandError",
    "add_browser_arguments",
    "add_template_arguments",
    "browser_config",
    "command",
    "json_argument",
    "read_bytes",
    "read_json",
    "read_text",
    "run_command",
    "template_request",
    "write_output",
]

EXIT_FAILED = 1
EXIT_USAGE = 2

Runner = Callable[[argparse.Namespace], Awaitable[int]]
"""An async ``run_<name>_command(args)`` returning the exit status."""


class CommandError(Exception):
    """A problem the user can fix on the command line: reported in one line, no traceback."""

    def __init__(self, message: str, *, status: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.status = status


def command(name: str) -> Callable[[Runner], Runner]:
    """Decorate ``run_<name>_command``: a :class:`CommandError` it raises is printed as
    ``renderkit <name>: <message>`` and becomes its exit status (library errors propagate to
    :func:`run_command`)."""

    def decorate(run: Runner) -> Runner:
        @functools.wraps(run)
        async def reporting(args: argparse.Namespace) -> int:
            try:
                return await run(args)
            except CommandError as exc:
                print(f"renderkit {name}: {exc}", file=sys.stderr)
                return exc.status

        return reporting

    return decorate


def run_command(
    run: Callable[[argparse.Namespace], int | Coroutine[Any, Any, int]], args: argparse.Namespace
) -> int:
    """Run a parsed sub-command (``args.run``), async or not, and return its exit status.

    Library errors end here: an invalid request exits 2, any other renderkit error 1.
    """
    try:
        outcome = run(args)
        return outcome if isinstance(outcome, int) else asyncio.run(outcome)
    except InvalidRequestError as exc:
        print(f"renderkit: invalid request: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except RenderkitError as exc:
        print(f"renderkit: {exc}", file=sys.stderr)
        return EXIT_FAILED


# --------------------------------------------------------------------------------------------
# Files


def read_bytes(path: Path, *, what: str) -> bytes:
    """The bytes of an input file.

    Raises:
        CommandError: the file cannot be read (exit 2).
    """
    try:
        return path.read_bytes()
    except OSError as exc:
        msg = f"cannot read {what} {path}: {exc.strerror or exc}"
        raise CommandError(msg) from exc


def read_text(path: Path, *, what: str) -> str:
    """The UTF-8 text of an input file.

    Raises:
        CommandError: the file cannot be read or is not UTF-8 (exit 2).
    """
    content = read_bytes(path, what=what)
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as exc:
        msg = f"cannot read {what} {path}: not UTF-8 text"
        raise CommandError(msg) from exc


def read_json(path: Path, *, what: str) -> Any:
    """The JSON value in an input file.

    Raises:
        CommandError: the file cannot be read or is not JSON (exit 2).
    """
    try:
        return json.loads(read_text(path, what=what))
    except json.JSONDecodeError as exc:
        msg = f"{what} {path} is not valid JSON: {exc}"
        raise CommandError(msg) from exc


def write_output(path: Path, content: bytes | str) -> None:
    """Write the command's result to ``-o``.

    Raises:
        CommandError: the file cannot be written (exit 1: the work itself was done).
    """
    try:
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(content)
    except OSError as exc:
        msg = f"cannot write {path}: {exc.strerror or exc}"
        raise CommandError(msg, status=EXIT_FAILED) from exc


# --------------------------------------------------------------------------------------------
# Arguments


def json_argument(value: str) -> Any:
    """An ``argparse`` type: inline JSON, or ``@file.json`` for the contents of a file."""
    try:
        if value.startswith("@"):
            return read_json(Path(value[1:]), what="data file")
        return json.loads(value)
    except json.JSONDecodeError as exc:
        msg = f"not valid JSON: {exc}"
        raise argparse.ArgumentTypeError(msg) from exc
    except CommandError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def add_browser_arguments(parser: argparse.ArgumentParser) -> None:
    """``--chromium``, ``--cdp-url`` and ``--allow-private-network``, for commands that render."""
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="Chromium executable")
    parser.add_argument("--cdp-url", help="use a running browser over CDP instead")
    parser.add_argument(
        "--allow-private-network",
        action="store_true",
        help="let pages load from private/loopback addresses (development only)",
    )


def browser_config(args: argparse.Namespace) -> BrowserConfig:
    """The one-slot browser a command renders with, from :func:`add_browser_arguments`."""
    return BrowserConfig(
        executable_path=args.chromium,
        cdp_url=args.cdp_url,
        allow_private_network=args.allow_private_network,
        slots=1,
    )


def add_template_arguments(parser: argparse.ArgumentParser, templates: Iterable[str]) -> None:
    """``--template``, ``--data`` and ``--html``, for the commands that render a template."""
    parser.add_argument("--template", required=True, help=", ".join(templates))
    parser.add_argument("--data", type=json_argument, default={}, help="JSON object or @file.json")
    parser.add_argument("--html", type=Path, help="HTML file for --template custom")


def template_request(args: argparse.Namespace) -> dict[str, Any]:
    """The request fields of :func:`add_template_arguments` (``html`` read from its file).

    Raises:
        CommandError: the ``--html`` file cannot be read.
    """
    request: dict[str, Any] = {"template": args.template, "data": args.data}
    if args.html is not None:
        request["html"] = read_text(args.html, what="--html")
    return request
