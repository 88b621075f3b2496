"""Writing a file so that it exists only whole: a temporary file beside it, renamed into place.

:func:`write_inside` also keeps the file inside a folder whose contents someone else may have
arranged (a batch's ``--out``): it never follows a symbolic link below that folder.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path, PurePosixPath

__all__ = ["PART_MARK", "first_link", "remove_stale_parts", "write_atomically", "write_inside"]

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


def first_link(folder: Path, relative: PurePosixPath) -> PurePosixPath | None:
    """The first part of ``relative`` below ``folder`` that is a symbolic link, if any.

    Args:
        folder: the folder; links above it and the folder itself are not checked.
        relative: a relative path with no ``..``.

    Returns:
        The leading parts of ``relative`` up to the link (``cards`` for ``cards/a.png``), or
        None when no existing part is a link.
    """
    for depth in range(1, len(relative.parts) + 1):
        leading = PurePosixPath(*relative.parts[:depth])
        if (folder / leading).is_symlink():
            return leading
    return None


def write_inside(folder: Path, relative: PurePosixPath, content: bytes) -> None:
    """Write ``content`` to ``folder / relative`` as :func:`write_atomically` does, without
    following any symbolic link below ``folder``.

    Each folder on the way is created if missing and opened with ``O_NOFOLLOW`` relative to
    the one before (no path is looked up twice, so a link swapped in meanwhile is refused
    too); the file is renamed into place, which replaces a link of its name rather than
    writing where it points.

    Args:
        folder: the folder the file must stay in (created if missing).
        relative: the file's path in it: relative, without ``.``, ``..`` or empty parts.

    Raises:
        ValueError: ``relative`` is absolute or has ``.``, ``..`` or empty parts.
        OSError: a part of the way is a symbolic link (``ELOOP``) or not a folder
            (``ENOTDIR``), or the file cannot be written.
    """
    parts = relative.parts
    if not parts or relative.is_absolute() or any(part in ("", ".", "..") for part in parts):
        msg = "the path must be relative, without . or .. parts"
        raise ValueError(msg)
    folder.mkdir(parents=True, exist_ok=True)
    directory = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in parts[:-1]:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, dir_fd=directory)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
            os.close(directory)
            directory = inner
        _write_in(directory, parts[-1], content)
    finally:
        os.close(directory)


def _write_in(directory: int, name: str, content: bytes) -> None:
    part = f".{name}{PART_MARK}{secrets.token_hex(4)}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    try:
        with os.fdopen(os.open(part, flags, 0o666, dir_fd=directory), "wb") as file:
            file.write(content)
            file.flush()
            os.fsync(file.fileno())
        os.replace(part, name, src_dir_fd=directory, dst_dir_fd=directory)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(part, dir_fd=directory)


def remove_stale_parts(folder: Path) -> None:
    """Delete the temporary files interrupted writes left anywhere under ``folder``."""
    if not folder.is_dir():
        return
    for part in folder.rglob(f".*{PART_MARK}*"):
        with contextlib.suppress(OSError):
            part.unlink()
