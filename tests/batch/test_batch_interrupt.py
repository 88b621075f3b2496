"""`renderkit batch` as a user meets it off a terminal: a first line at once, progress lines,
and on Ctrl-C (SIGINT) a summary, exit 130, whole files only and no Chromium left."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from renderkit.cli import main
from tests.browser._owners import marked_by

from .test_batch_cli import image_job, write_jobs

pytestmark = pytest.mark.browser

JOBS = 16


def _as_if_from_a_terminal() -> None:
    # A shell's background job (how CI and this suite may run) ignores SIGINT, and a child
    # inherits that; a command started from an interactive shell has the default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _lines(stream: object, into: queue.Queue[str | None]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put(line.rstrip("\n"))
    into.put(None)


def test_an_interrupted_batch_reports_keeps_whole_files_and_leaves_no_browser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = write_jobs(tmp_path / "jobs.jsonl", [image_job(f"Card {n}") for n in range(JOBS)])
    out = tmp_path / "out"
    argv = ["batch", str(jobs), "--out", str(out), "--concurrency", "2"]
    env = {**os.environ, "PYTHONPATH": str(Path("src").resolve())}
    started = time.monotonic()
    with subprocess.Popen(
        [sys.executable, "-m", "renderkit.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=_as_if_from_a_terminal,
    ) as process:
        lines: queue.Queue[str | None] = queue.Queue()
        reader = threading.Thread(target=_lines, args=(process.stderr, lines), daemon=True)
        reader.start()
        try:
            first = lines.get(timeout=30)
            # Before Chromium has started, let alone rendered: what an idle log would show.
            assert first == (
                f"renderkit batch: {JOBS} job(s) to run from jobs.jsonl, starting Chromium..."
            )
            first_after = time.monotonic() - started
            progress = lines.get(timeout=120)
            assert progress is not None
            assert re.fullmatch(rf"\[1/{JOBS}\] done twitter-card-card-\d+\.png", progress)
            process.send_signal(signal.SIGINT)
            process.wait(timeout=60)  # stdout holds only the summary: no pipe fills up
            assert process.stdout is not None
            stdout = process.stdout.read()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
            reader.join(timeout=10)
    rest: list[str] = []
    while (line := lines.get_nowait()) is not None:
        rest.append(line)

    assert process.returncode == 130, (stdout, rest)
    assert "renderkit batch (interrupted)" in stdout
    row = re.search(r"│\s*(\d+) │\s*(\d+) │\s*(\d+) │\s*(\d+) │\s*(\d+) │", stdout)
    assert row is not None, stdout
    done, skipped, failed, interrupted, total = map(int, row.groups())
    assert (skipped, failed, total) == (0, 0, JOBS)
    assert done >= 1 and interrupted >= 1 and done + interrupted == JOBS
    assert any("interrupted" in line and "run the same command again" in line for line in rest), (
        rest
    )
    # Every job reported done left its whole file; nothing else (no half-written parts).
    reported = {progress.rsplit(" ", 1)[1]} | {
        line.rsplit(" ", 1)[1] for line in rest if re.match(r"\[\d+/\d+\] done ", line)
    }
    written = {p.name for p in out.iterdir()}
    assert written == reported and len(written) == done
    # The pool was closed on the way out: no browser of this batch outlives it.
    deadline = time.monotonic() + 5
    while (left := marked_by(process.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == []
    print(f"first line after {first_after:.1f} s")  # for the report, with -s

    # Running the same command again does only what the interrupted run left.
    capsys.readouterr()
    assert main(argv) == 0
    again = capsys.readouterr()
    assert f"│ {JOBS - done:>4} │ {done:>7} │      0 │ {JOBS:>5} │" in again.out
    assert len(list(out.iterdir())) == JOBS
