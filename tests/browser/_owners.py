"""Finding the Chromium processes a given process launched (by their owner marker)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from renderkit.browser._warden import OWNER_VARIABLE


def _living() -> Iterator[tuple[Path, list[str]]]:
    """Each live (not zombie) process's ``/proc`` entry and its stat fields after the command
    (state, ppid, pgrp, ...)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            yield entry, fields


def marked_by(owner: int) -> list[int]:
    """Live (not zombie) processes whose owner marker names ``owner``."""
    found = []
    prefix = f"{OWNER_VARIABLE}={owner}:".encode()
    for entry, _ in _living():
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if any(item.startswith(prefix) for item in environ.split(b"\0")):
            found.append(int(entry.name))
    return found


def command_line(pid: int) -> list[str]:
    """The arguments process ``pid`` was started with (a browser's flags)."""
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def in_group(group: int) -> list[int]:
    """Live (not zombie) processes of process group ``group``: a Chromium and its helpers.

    Helpers cannot be found by the owner marker: a zygote rewrites its command line over the
    memory its environment was in, and its children inherit that.
    """
    return [int(entry.name) for entry, fields in _living() if int(fields[2]) == group]
