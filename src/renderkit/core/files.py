"""Writing a file so that it exists only whole: a temporary file beside it, renamed into place."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

__all__ = ["PART_MARK", "remove_stale_parts", "write_atomically"]

#: In the names of temporary files; :func:`remove_stale_parts` finds a killed run's by it.
PART_MARK = ".rk-part-"


def write_atomically(target: Path, content: bytes) -> None:
    """Write ``content`` to a temporary file beside ``target`` and rename it into place, so
    ``target`` exists only whole (a crash leaves at most a hidden ``.<name>.rk-part-*``).

    Raises:
        OSError: the folder cannot be created or the file written.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(f".{target.name}{PART_MARK}{secrets.token_hex(4)}")
    try:
        with part.open("wb") as file:
            file.write(content)
            file.flush()
            os.fsync(file.fileno())
        os.replace(part, target)
    finally:
        part.unlink(missing_ok=True)


def remove_stale_parts(folder: Path) -> None:
    """Delete the temporary files interrupted writes left anywhere under ``folder``."""
    if not folder.is_dir():
        return
    for part in folder.rglob(f".*{PART_MARK}*"):
        with contextlib.suppress(OSError):
            part.unlink()
