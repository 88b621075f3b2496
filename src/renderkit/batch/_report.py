"""What ``renderkit batch`` shows: a progress bar on stderr, the summary, the failures and
the warnings.

On a terminal the progress is a rich bar; otherwise (a log, a pipe, CI) it is one plain line
per finished job, which reads well in a file and has no control codes.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

import attrs
from rich import progress as rich_progress
from rich.console import Console
from rich.table import Table

__all__ = ["Failure", "Progress", "print_failures", "print_summary", "print_warnings"]


@attrs.frozen(kw_only=True)
class Failure:
    """A job that did not produce its file: its line and what went wrong."""

    line: int
    message: str


class Progress:
    """Counts finished jobs out of ``total`` on ``stream`` (stderr unless given)."""

    def __init__(self, *, total: int, stream: TextIO | None = None) -> None:
        self._stream = stream or sys.stderr
        self._total = total
        self._count = 0
        self._bar: rich_progress.Progress | None = None
        self._task: rich_progress.TaskID | None = None
        if self._stream.isatty():
            self._bar = rich_progress.Progress(
                rich_progress.TextColumn("[progress.description]{task.description}"),
                rich_progress.BarColumn(),
                rich_progress.MofNCompleteColumn(),
                rich_progress.TimeElapsedColumn(),
                console=Console(file=self._stream),
                transient=False,
            )
            self._task = self._bar.add_task("rendering", total=total)

    def __enter__(self) -> Progress:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def advance(self, count: int, what: str | None = None) -> None:
        """Mark ``count`` more jobs finished; ``what`` names the last one."""
        if count <= 0:
            return
        self._count += count
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, advance=count, description=what or "rendering")
        elif what is not None:
            print(f"[{self._count}/{self._total}] {what}", file=self._stream, flush=True)

    def extend(self, count: int) -> None:
        """Expect ``count`` more jobs (a second attempt of failed ones)."""
        self._total += count
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, total=self._total)

    def note(self, message: str) -> None:
        """Print a line between progress updates."""
        if self._bar is not None:
            self._bar.console.print(message)
        else:
            print(message, file=self._stream, flush=True)


def print_summary(
    *,
    done: int,
    skipped: int,
    failed: int,
    seconds: float,
    interrupted: int | None = None,
    stream: TextIO | None = None,
) -> None:
    """The table of done, skipped and failed jobs and the time taken, on stdout; an
    interrupted run (``interrupted`` given) also counts the jobs it did not finish."""
    counts = {"done": done, "skipped": skipped, "failed": failed}
    if interrupted is not None:
        counts["interrupted"] = interrupted
    table = Table(title="renderkit batch" + (" (interrupted)" if interrupted is not None else ""))
    for column in (*counts, "total", "time"):
        table.add_column(column, justify="right")
    table.add_row(
        *(str(count) for count in counts.values()), str(sum(counts.values())), f"{seconds:.1f} s"
    )
    Console(file=stream or sys.stdout).print(table)


def print_failures(failures: Sequence[Failure], *, stream: TextIO | None = None) -> None:
    """One ``line <n>: <message>`` per failed job, on stderr (nothing when none failed)."""
    _print_by_line(failures, "job(s) failed", stream)


def print_warnings(warnings: Sequence[Failure], *, stream: TextIO | None = None) -> None:
    """One ``line <n>: <warning>`` per warning of a job that was written (a ``data`` field
    its template does not display), on stderr (nothing when there are none)."""
    _print_by_line(warnings, "warning(s)", stream)


def _print_by_line(items: Sequence[Failure], what: str, stream: TextIO | None) -> None:
    if not items:
        return
    out = stream or sys.stderr
    print(f"{len(items)} {what}:", file=out)
    for item in items:
        print(f"  line {item.line}: {item.message}", file=out)
