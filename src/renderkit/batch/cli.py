"""``renderkit batch jobs.jsonl --out DIR``: render a JSON Lines file of jobs into a folder.

Each line is one job, ``{"kind": "image", "request": {...}, "output": "cards/a.png"}``:
``kind`` is image, pdf, screenshot, audio or parse; ``request`` is the request as the HTTP API
takes it; ``output`` (optional) is a path under ``--out``, defaulting to the request's readable
name (``og-card-hello-world.png``, ``invoice-INV-0042.pdf``; ``-2``, ``-3``... when two jobs
would share one). Parse jobs write their result as JSON. Blank lines are ignored.

The run is resumable: a job whose output file exists is skipped, and files are written to a
temporary name and renamed into place, so an interrupted batch leaves only whole files and
running it again does the rest. Every line is checked first; an invalid line (not UTF-8, not
JSON, nested too deep, an unusable output name) is reported with its number and the others
still run. Files stay inside ``--out``: an output that passes through a symbolic link there is
refused, and writes never follow one. Exit status: 0 when every job is done or skipped,
1 when any failed, 2 when the jobs file cannot be read, 130 when interrupted (Ctrl-C stops
scheduling, cancels the running jobs and still prints the summary and the failures).

With ``--server URL`` (and ``--key``, default ``RENDERKIT_API_KEY``) the jobs run on that
renderkit server instead, as its jobs (``POST /api/jobs``): all submitted as fast as the key's
plan queues them, polled, and their files downloaded into the same layout; the summary and
exit status are the same, and Ctrl-C cancels the submitted jobs still running on the server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import json
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

import attrs

from renderkit.batch._jobs import Job, job_error, to_job
from renderkit.batch._remote import as_completed_on_server
from renderkit.batch._report import (
    Failure,
    Progress,
    print_failures,
    print_summary,
    print_warnings,
)
from renderkit.batch._run import DEFAULT_CONCURRENCY, JobOutcome, as_completed
from renderkit.browser import ChromiumPool
from renderkit.browser.cli import add_browser_arguments, browser_config
from renderkit.client import AsyncClient
from renderkit.core.cli import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    command,
    read_bytes,
)
from renderkit.core.converter import unstructure
from renderkit.core.errors import BlockedUrlError, InvalidRequestError, RenderkitError
from renderkit.core.files import first_link, remove_stale_parts, write_inside
from renderkit.core.media import format_of_path, same_format
from renderkit.parsing import ParseResult

__all__ = ["add_batch_command", "run_batch_command"]

_FORMAT_KINDS = frozenset({"image", "screenshot", "audio"})
# The help text: the module docstring's content as plain text (no reST markup in a terminal).
_DESCRIPTION = """\
Render a JSON Lines file of jobs into a folder, concurrently through one browser.

Each line is one job: {"kind": "image", "request": {...}, "output": "cards/a.png"}
  kind     image, pdf, screenshot, audio or parse
  request  the request, as the HTTP API takes it
  output   optional path under --out; default: the request's readable name
           (og-card-hello-world.png, invoice-INV-0042.pdf), -2, -3... when shared

Jobs whose output file exists are skipped, so running the same command again
finishes an interrupted batch. With --server the jobs run on a renderkit server
as its jobs, and their files are downloaded into the same layout.
"""
_EPILOG = """\
exit status:
  0    every job done or skipped
  1    a job failed (an invalid line included)
  2    unusable arguments, or the jobs file cannot be read
  130  interrupted (Ctrl-C)"""
_BROWSER_KINDS = frozenset({"image", "pdf", "screenshot"})
# Failures a second attempt cannot fix: --retry-failed leaves them alone.
_PERMANENT = (InvalidRequestError, BlockedUrlError)
#: The longest file or folder name (in UTF-8 bytes) common file systems take: NAME_MAX.
_NAME_MAX = 255
#: Deepest nesting of arrays and objects in a line, as the server accepts in a body.
_MAX_DEPTH = 64


def add_batch_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``batch`` sub-command to ``parser.add_subparsers()``'s result."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "batch",
        help="render a JSON Lines file of image, pdf, screenshot, audio and parse jobs",
        description=_DESCRIPTION,
        epilog=_EPILOG,
    )
    parser.add_argument("jobs", type=Path, help="JSON Lines file, one job per line")
    parser.add_argument("--out", type=Path, required=True, help="folder the files go into")
    parser.add_argument(
        "--concurrency",
        type=_positive_int,
        default=DEFAULT_CONCURRENCY,
        help=f"jobs in flight at once (default {DEFAULT_CONCURRENCY})",
    )
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="run each failed job once more at the end (not invalid or blocked ones)",
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        help="run the jobs on this renderkit server, as its jobs, instead of a local browser",
    )
    parser.add_argument(
        "--key",
        help="the server's API key with --server (default: the RENDERKIT_API_KEY variable)",
    )
    add_browser_arguments(parser)
    parser.set_defaults(run=run_batch_command)
    return parser


def _positive_int(value: str) -> int:
    """An ``argparse`` type: an integer of at least 1."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        msg = f"must be a whole number of at least 1, not {value!r}"
        raise argparse.ArgumentTypeError(msg)
    return number


@attrs.define
class _Tally:
    done: int = 0
    skipped: int = 0
    failures: list[Failure] = attrs.field(factory=list)
    #: Warnings of the jobs written (kept per line, like failures).
    warnings: list[Failure] = attrs.field(factory=list)


@command("batch")
async def run_batch_command(args: argparse.Namespace) -> int:
    """Run ``renderkit batch``; returns the exit status.

    Raises:
        CommandError: the jobs file cannot be read (exit 2).
    """
    started = time.perf_counter()
    content = read_bytes(args.jobs, what="jobs file")
    out: Path = args.out
    tally = _Tally()
    pending: list[tuple[Job, PurePosixPath]] = []
    taken: set[PurePosixPath] = set()
    for line, value in _lines(content):
        try:
            job, relative = _check_job(line, value, taken)
            exists = _existing_output(out, relative, f"line {line}")
        except InvalidRequestError as exc:
            tally.failures.append(Failure(line=line, message=_describe(exc, f"line {line}")))
            continue
        if exists:
            tally.skipped += 1
        else:
            pending.append((job, relative))
    remove_stale_parts(out)  # what a killed run left behind
    total = len(pending) + tally.skipped + len(tally.failures)
    progress = Progress(total=total)
    needs_browser = args.server is None and any(job.kind in _BROWSER_KINDS for job, _ in pending)
    with _cancel_on_interrupt() as interrupt:
        try:
            await _run_pending(args, pending, tally, progress, needs_browser=needs_browser)
        except asyncio.CancelledError:
            if not interrupt.received:
                raise
            # Ctrl-C: the running jobs are cancelled and Chromium closed by now; files
            # already written stay, so running the command again does the rest.
            _uncancel()
    elapsed = time.perf_counter() - started
    unfinished = total - tally.done - tally.skipped - len(tally.failures)
    print_summary(
        done=tally.done,
        skipped=tally.skipped,
        failed=len(tally.failures),
        interrupted=unfinished if interrupt.received else None,
        seconds=elapsed,
    )
    print_warnings(sorted(tally.warnings, key=lambda w: w.line))
    print_failures(sorted(tally.failures, key=lambda f: f.line))
    if interrupt.received:
        print(
            f"renderkit batch: interrupted; {unfinished} job(s) not finished: run the same "
            "command again to do them",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    return EXIT_FAILED if tally.failures else 0


async def _run_pending(
    args: argparse.Namespace,
    pending: list[tuple[Job, PurePosixPath]],
    tally: _Tally,
    progress: Progress,
    *,
    needs_browser: bool,
) -> None:
    """Run the pending jobs (and, with ``--retry-failed``, the failed ones once more)."""
    async with contextlib.AsyncExitStack() as stack:
        browser = None
        client = None
        if args.server is not None:
            client = await stack.enter_async_context(AsyncClient(args.server, args.key))
        if needs_browser:
            # One pool for the whole batch, as wide as the batch runs; it launches Chromium
            # on the first render.
            config = attrs.evolve(browser_config(args), slots=min(args.concurrency, 8))
            browser = ChromiumPool(config)
            stack.push_async_callback(browser.aclose)
        with progress:
            # Said at once: a cold Chromium takes seconds before the first job finishes, and
            # off a terminal nothing else would show that the command is working.
            progress.note(_start_line(args, len(pending), tally, browser=needs_browser))
            retry = await _render(args, browser, client, pending, tally, progress)
            if args.retry_failed and retry:
                progress.note(f"retrying {len(retry)} failed job(s)")
                progress.extend(len(retry))
                again = {job.line for job, _ in retry}
                tally.failures = [f for f in tally.failures if f.line not in again]
                await _render(args, browser, client, retry, tally, progress)


def _start_line(args: argparse.Namespace, pending: int, tally: _Tally, *, browser: bool) -> str:
    """``renderkit batch: 50 jobs from jobs.jsonl (2 already done), starting Chromium...``"""
    jobs: Path = args.jobs
    others = [
        f"{count} {what}"
        for count, what in ((tally.skipped, "already done"), (len(tally.failures), "invalid"))
        if count
    ]
    line = f"renderkit batch: {pending} job(s) to run from {jobs.name}"
    if others:
        line += f" ({', '.join(others)})"
    if args.server is not None:
        return line + f" on {args.server}"
    return line + (", starting Chromium..." if browser and pending else "")


@attrs.define
class _Interrupt:
    received: bool = False


@contextlib.contextmanager
def _cancel_on_interrupt() -> Iterator[_Interrupt]:
    """Turn the first Ctrl-C (SIGINT) into a cancellation of the running task, noted in the
    flag yielded, so the command can stop its jobs and still report; a second Ctrl-C gets
    the handler that was there before (asyncio.run's: cancel again, then KeyboardInterrupt).

    Without a way to catch it (not the main thread), Ctrl-C keeps its usual effect; when it
    is ignored (a background job of a non-interactive shell), it stays ignored.
    """
    interrupt = _Interrupt()
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:
        yield interrupt
        return

    def restore() -> None:
        loop.remove_signal_handler(signal.SIGINT)
        # None: a handler not installed from Python, which cannot be put back; the default.
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)

    def on_interrupt() -> None:
        interrupt.received = True
        restore()
        if task is not None:
            task.cancel()

    try:
        loop.add_signal_handler(signal.SIGINT, on_interrupt)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, not Unix
        yield interrupt
        return
    try:
        yield interrupt
    finally:
        if not interrupt.received:
            restore()


def _uncancel() -> None:
    """Withdraw the cancellation Ctrl-C asked for, once it has been handled."""
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()


async def _render(
    args: argparse.Namespace,
    browser: ChromiumPool | None,
    client: AsyncClient | None,
    pending: list[tuple[Job, PurePosixPath]],
    tally: _Tally,
    progress: Progress,
) -> list[tuple[Job, PurePosixPath]]:
    """Run ``pending`` (here, or on the server when there is a ``client``), writing each
    file as it comes; returns the jobs worth retrying."""
    retry: list[tuple[Job, PurePosixPath]] = []
    jobs = [job for job, _ in pending]
    outcomes = (
        as_completed(jobs, browser=browser, concurrency=args.concurrency)
        if client is None
        else as_completed_on_server(jobs, client)
    )
    async for outcome in outcomes:
        job, relative = pending[outcome.index]
        message = _finish(outcome, args.out, relative)
        if message is None:
            tally.done += 1
            assert job.line is not None  # every job of a file has its line
            for warning in getattr(outcome.result, "warnings", ()):
                # Screenshots warn too (an error status, blocked requests): kept alike.
                tally.warnings.append(Failure(line=job.line, message=warning))
            progress.advance(1, f"done {relative.name}")
        else:
            assert job.line is not None  # every job of a file has its line
            tally.failures.append(Failure(line=job.line, message=message))
            progress.advance(1, f"failed line {job.line}")
            if not isinstance(outcome.error, _PERMANENT):
                retry.append((job, relative))
    return retry


def _finish(outcome: JobOutcome, out: Path, relative: PurePosixPath) -> str | None:
    """Write the outcome's file; returns the failure message, or None when written."""
    if outcome.error is not None:
        return _describe(outcome.error)
    result = outcome.result
    content = (
        json.dumps(unstructure(result), ensure_ascii=False, indent=2).encode()
        if isinstance(result, ParseResult)
        else getattr(result, "content", b"")
    )
    try:
        write_inside(out, relative, content)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            return f"cannot write {relative}: it passes through a symbolic link or a file"
        return f"cannot write {relative}: {exc.strerror or exc}"
    return None


def _describe(error: RenderkitError, where: str | None = None) -> str:
    """The one-line message for a failed job; fields are named within the job
    (``request.data.title``), since the line number is printed beside them."""
    if isinstance(error, InvalidRequestError):
        problems = (
            e.message if e.field == where else f"{e.field.removeprefix(f'{where}.')}: {e.message}"
            for e in error.errors
        )
        return "invalid job: " + "; ".join(problems)
    return f"{type(error).__name__}: {error}"


def _lines(content: bytes) -> Iterator[tuple[int, Any]]:
    """``(line number, parsed JSON or an InvalidRequestError)`` for every non-blank line.

    Lines end at a line feed only (JSON Lines): a JSON string may hold U+2028 and other
    characters ``str.splitlines`` would cut at.
    """
    for number, raw in enumerate(content.split(b"\n"), start=1):
        if not raw.strip():
            continue
        yield number, _parse_line(raw, f"line {number}")


def _parse_line(raw: bytes, where: str) -> Any:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        msg = f"not UTF-8 text (byte {exc.start + 1})"
        return InvalidRequestError.single(where, msg)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return InvalidRequestError.single(where, f"not valid JSON: {exc.msg}")
    except RecursionError:  # the decoder recurses per level: thousands of levels end here
        value = None
        depth = _MAX_DEPTH + 1
    else:
        depth = _depth(value)
    if depth > _MAX_DEPTH:
        msg = f"nests arrays and objects deeper than {_MAX_DEPTH} levels"
        return InvalidRequestError.single(where, msg)
    return value


def _depth(value: Any) -> int:
    """The nesting of arrays and objects in a decoded value, walked without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, dict | list):
            continue
        deepest = max(deepest, depth)
        if depth <= _MAX_DEPTH:  # past the cap the exact figure does not matter
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _check_job(line: int, value: Any, taken: set[PurePosixPath]) -> tuple[Job, PurePosixPath]:
    """Validate one line's job and choose its output path under ``--out``.

    Raises:
        InvalidRequestError: naming ``line <n>`` or ``line <n>.<field>``.
    """
    where = f"line {line}"
    if isinstance(value, InvalidRequestError):
        raise value
    job = to_job(value, where=where, line=line, adjust=_format_from_output)
    if job.output is None:
        relative = _unique(PurePosixPath(job.suggested_filename), taken)
    else:
        relative = _relative_output(job.output, where)
        _check_extension(job, relative, where)
        if relative in taken:
            raise job_error(where, "output", "is another job's output too")
    _check_names(relative, where)
    taken.add(relative)
    return job, relative


def _check_names(relative: PurePosixPath, where: str) -> None:
    """Refuse names no file system takes, so the line fails rather than the run."""
    for name in relative.parts:
        if "\x00" in name:
            raise job_error(where, "output", "must not contain a NUL character")
        try:
            size = len(name.encode("utf-8"))
        except UnicodeEncodeError:  # a lone surrogate, which JSON's \u escapes can spell
            raise job_error(where, "output", "must be valid Unicode text") from None
        if size > _NAME_MAX:
            msg = f"has a name of {size} bytes; file systems take at most {_NAME_MAX}"
            raise job_error(where, "output", msg)


def _existing_output(out: Path, relative: PurePosixPath, where: str) -> bool:
    """Whether the job's file is there already (it is skipped), checked without following
    links: a link below ``--out`` could lead the file out of it.

    Raises:
        InvalidRequestError: a part of the path is a symbolic link or cannot be checked.
    """
    link = first_link(out, relative)
    if link is not None:
        msg = f"passes through {link}, a symbolic link: outputs stay inside --out"
        raise job_error(where, "output", msg)
    try:
        return (out / relative).exists()
    except OSError as exc:  # a path too long in all, a file where a folder should be
        raise job_error(where, "output", f"cannot be checked: {exc.strerror}") from None


def _format_from_output(kind: str, request: dict[str, Any], output: str | None) -> None:
    # cards/a.jpg means JPEG when the request does not say: the name is the user's intent.
    if output is not None and kind in _FORMAT_KINDS and "format" not in request:
        fmt = format_of_path(output)
        if fmt is not None:
            request["format"] = fmt


def _check_extension(job: Job, relative: PurePosixPath, where: str) -> None:
    wanted = format_of_path(relative)
    produced = "json" if job.kind == "parse" else getattr(job.request, "format", None)
    if wanted is not None and produced is not None and not same_format(wanted, produced):
        msg = f"{relative.name} names a {wanted} file but the request makes {produced}"
        raise job_error(where, "output", msg)


def _relative_output(output: str, where: str) -> PurePosixPath:
    path = PurePosixPath(output)
    if path.is_absolute() or ".." in path.parts or output.endswith("/") or "\\" in output:
        msg = "must be a file path inside --out (no leading /, no ..)"
        raise job_error(where, "output", msg)
    return path


def _unique(path: PurePosixPath, taken: set[PurePosixPath]) -> PurePosixPath:
    """``path``, or ``<stem>-2<suffix>``, ``-3``... when an earlier job has it (the numbering
    follows the file's order, so a resumed run picks the same names)."""
    candidate, number = path, 1
    while candidate in taken:
        number += 1
        candidate = path.with_name(f"{path.stem}-{number}{path.suffix}")
    return candidate
