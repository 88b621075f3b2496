"""What every ``renderkit`` sub-command shares: arguments, reading and writing files, exits.

Each capability has a ``cli`` module with ``add_<name>_command(subparsers)``, which adds its
sub-command and sets ``run`` to its ``run_<name>_command(args)``; :mod:`renderkit.cli` only
assembles them and calls :func:`run_command`. Exit statuses are the same everywhere:

- 0: done;
- 2 (:data:`EXIT_USAGE`): the input is unusable: bad arguments, an unreadable file, or a
  request the library refused as invalid (:class:`InvalidRequestError`);
- 1 (:data:`EXIT_FAILED`): the work failed (a :class:`RenderkitError`, an unwritable output);
- 130 (:data:`EXIT_INTERRUPTED`): interrupted with Ctrl-C (no traceback);
- 141 (:data:`EXIT_BROKEN_PIPE`): standard output was closed early (``renderkit ... | head``),
  as a shell reports a program ended by SIGPIPE.

``-o -`` writes the result to standard output; lines saying what was written go to standard
error, so standard output carries only the result.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import sys
from collections.abc import Awaitable, Callable, Collection, Coroutine, Iterable, Sequence
from pathlib import Path
from typing import Any

from renderkit.core.errors import BlockedUrlError, InvalidRequestError, RenderkitError
from renderkit.core.media import format_of_path, same_format

__all__ = [
    "EPILOG",
    "EXIT_BROKEN_PIPE",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "STDOUT",
    "CommandError",
    "HelpFormatter",
    "add_output_argument",
    "add_template_arguments",
    "command",
    "json_argument",
    "output_format",
    "output_path",
    "read_bytes",
    "read_json",
    "read_text",
    "report",
    "run_command",
    "run_parser",
    "template_request",
    "write_output",
]

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

#: The ``-o`` value that means standard output.
STDOUT = "-"

#: The exit statuses, for the end of every ``--help``.
EPILOG = """\
exit status:
  0    done
  1    the work failed (rendering, synthesis, an unwritable output)
  2    unusable input: bad arguments, an unreadable file, an invalid request
  130  interrupted (Ctrl-C)
  141  standard output was closed early (e.g. piped into head)"""

Runner = Callable[[argparse.Namespace], Awaitable[int]]
"""An async ``run_<name>_command(args)`` returning the exit status."""


class HelpFormatter(argparse.HelpFormatter):
    """Wraps one-line help texts; keeps texts written on several lines (the exit-status
    epilog, a usage with two forms) as they are written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


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

    Library errors end here: an invalid request exits 2, any other renderkit error 1. A URL
    refused only for being private exits 2 and names ``--allow-private-network``.
    """
    try:
        outcome = run(args)
        return outcome if isinstance(outcome, int) else asyncio.run(outcome)
    except InvalidRequestError as exc:
        print(f"renderkit: invalid request: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BlockedUrlError as exc:
        if exc.private and not getattr(args, "allow_private_network", True):
            print(
                f"renderkit: {exc.url}: private and loopback addresses are refused; "
                "pass --allow-private-network to allow them (development only)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        print(f"renderkit: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except RenderkitError as exc:
        print(f"renderkit: {exc}", file=sys.stderr)
        return EXIT_FAILED


def run_parser(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen sub-command: the whole of ``renderkit``'s ``main``.

    A :class:`CommandError` raised while parsing (an ``@file`` or ``-o`` directory that is not
    there) is one line on stderr, not argparse's usage. A closed standard output ends the
    command quietly with :data:`EXIT_BROKEN_PIPE`; Ctrl-C with :data:`EXIT_INTERRUPTED`.
    """
    try:
        try:
            args = parser.parse_args(argv)
        except CommandError as exc:
            print(f"renderkit: {exc}", file=sys.stderr)
            return exc.status
        status = run_command(args.run, args)
        # Flush here so a closed pipe is noticed inside the try, not at interpreter exit.
        sys.stdout.flush()
    except KeyboardInterrupt:
        print("renderkit: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # What the Python docs recommend (library/signal.html, "Note on SIGPIPE"): point
        # stdout at devnull so the interpreter's final flush does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return status


# --------------------------------------------------------------------------------------------
# Files


def read_bytes(path: Path, *, what: str) -> bytes:
    """The bytes of an input file; ``what`` names it in errors (``--data``, ``--html``).

    Raises:
        CommandError: the file cannot be read (exit 2), e.g. ``--data: no such file: x.json``.
    """
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        msg = f"{what}: no such file: {path}"
        raise CommandError(msg) from exc
    except IsADirectoryError as exc:
        msg = f"{what}: {path} is a directory, not a file"
        raise CommandError(msg) from exc
    except OSError as exc:
        msg = f"{what}: cannot read {path}: {exc.strerror or exc}"
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
        msg = f"{what}: {path} is not UTF-8 text"
        raise CommandError(msg) from exc


def read_json(path: Path, *, what: str) -> Any:
    """The JSON value in an input file.

    Raises:
        CommandError: the file cannot be read or is not JSON (exit 2).
    """
    try:
        return json.loads(read_text(path, what=what))
    except json.JSONDecodeError as exc:
        msg = f"{what}: {path} is not valid JSON: {exc}"
        raise CommandError(msg) from exc


def output_path(value: str) -> Path:
    """An ``argparse`` type for ``-o``: a file in a directory that exists, or ``-`` for stdout.

    Checked while parsing, so a mistyped directory is reported before any work is done.

    Raises:
        CommandError: the directory is not there (exit 2).
    """
    path = Path(value)
    if value == STDOUT:
        return path
    parent = path.parent
    if not parent.exists():
        msg = f"-o: no such directory: {parent}"
        raise CommandError(msg)
    if not parent.is_dir():
        msg = f"-o: {parent} is not a directory"
        raise CommandError(msg)
    if path.is_dir():
        msg = f"-o: {path} is a directory; name a file"
        raise CommandError(msg)
    return path


def add_output_argument(
    parser: argparse.ArgumentParser, *, required: bool = True, what: str = "file to write"
) -> None:
    """``-o/--output``: a file, or ``-`` for standard output."""
    parser.add_argument(
        "-o",
        "--output",
        type=output_path,
        required=required,
        metavar="FILE",
        help=f"{what}, or - for standard output",
    )


def output_format(
    output: Path, chosen: str | None, formats: Collection[str], *, default: str
) -> str:
    """The format to write: ``--format`` if given, else the one ``-o``'s extension names.

    ``-o card.jpg`` means JPEG; ``-o card`` (no extension) or ``-o -`` leaves ``default``.

    Raises:
        CommandError: the extension names another format than ``--format``, a format the
            command cannot write, or no format at all (``-o card.gif``: writing PNG bytes
            under that name would hand the user a file nothing opens) (exit 2).
    """
    named = None if str(output) == STDOUT else format_of_path(output)
    if chosen is not None:
        if named is not None and not same_format(named, chosen):
            msg = f"--format {chosen} conflicts with -o {output}, which names {named}"
            raise CommandError(msg)
        return chosen
    if named is None:
        if str(output) != STDOUT and output.suffix:
            msg = f"-o {output} names no format; this command writes {', '.join(formats)}"
            raise CommandError(msg)
        return default
    if named not in formats:
        msg = f"-o {output} names {named}; this command writes {', '.join(formats)}"
        raise CommandError(msg)
    return named


def write_output(path: Path, content: bytes | str) -> None:
    """Write the command's result to ``-o`` (``-`` is standard output, as bytes).

    Raises:
        CommandError: the file cannot be written (exit 1: the work itself was done).
    """
    if str(path) == STDOUT:
        data = content.encode("utf-8") if isinstance(content, str) else content
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(content)
    except OSError as exc:
        msg = f"-o: cannot write {path}: {exc.strerror or exc}"
        raise CommandError(msg, status=EXIT_FAILED) from exc


def report(line: str) -> None:
    """Say what a command wrote, on stderr: stdout may be carrying the result (``-o -``)."""
    print(line, file=sys.stderr)


# --------------------------------------------------------------------------------------------
# Arguments


def json_argument(value: str) -> Any:
    """An ``argparse`` type: inline JSON, or ``@file.json`` for the contents of a file.

    Raises:
        argparse.ArgumentTypeError: inline JSON is malformed (argparse prints the usage).
        CommandError: the ``@`` file cannot be read or is not JSON (one line, exit 2).
    """
    if value.startswith("@"):
        # CommandError is not a ValueError, so argparse lets it through to run_parser.
        return read_json(Path(value[1:]), what="--data")
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        msg = f"not valid JSON: {exc}"
        raise argparse.ArgumentTypeError(msg) from exc


def add_template_arguments(parser: argparse.ArgumentParser, templates: Iterable[str]) -> None:
    """``--template``, ``--data``, ``--html`` and ``--strict``, for the commands that render a
    template."""
    parser.add_argument("--template", required=True, help=", ".join(templates))
    parser.add_argument("--data", type=json_argument, default={}, help="JSON object or @file.json")
    parser.add_argument("--html", type=Path, help="HTML file for --template custom")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="refuse a --data field the template does not display (default: warn on stderr)",
    )


def template_request(args: argparse.Namespace) -> dict[str, Any]:
    """The request fields of :func:`add_template_arguments` (``html`` read from its file).

    Raises:
        CommandError: the ``--html`` file cannot be read.
    """
    request: dict[str, Any] = {"template": args.template, "data": args.data}
    if args.strict:
        request["strict"] = True
    if args.html is not None:
        request["html"] = read_text(args.html, what="--html")
    return request
