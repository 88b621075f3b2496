"""A Chromium whose start-up is slowed on purpose, like one on a loaded machine."""

from __future__ import annotations

import contextlib
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ..conftest import CHROMIUM

__all__ = ["slow_chromium"]


@contextlib.contextmanager
def slow_chromium(delay: float) -> Iterator[str]:
    """The path of a wrapper that sleeps ``delay`` seconds, then execs Debian's Chromium."""
    folder = Path(tempfile.mkdtemp(prefix="rk-test-"))
    folder.chmod(0o755)  # the browser account must reach it
    script = folder / "chromium"
    script.write_text(f'#!/bin/sh\nsleep {delay}\nexec {CHROMIUM} "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    try:
        yield str(script)
    finally:
        script.unlink()
        folder.rmdir()
