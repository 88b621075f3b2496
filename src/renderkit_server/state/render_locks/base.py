"""The :class:`RenderLocks` protocol."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["POLL_SECONDS", "RenderLocks"]

#: How often a backend without notifications looks again whether a lock was freed.
POLL_SECONDS = 0.05


@runtime_checkable
class RenderLocks(Protocol):
    """Named locks held by one caller at a time, each for a bounded time.

    A lock whose holder died frees itself when its time is up, so a crash never blocks a
    name for longer than the ``seconds`` it was taken for. Backend failures raise
    :class:`renderkit.StorageUnavailableError`.
    """

    async def acquire(self, name: str, seconds: float) -> str | None:
        """Take ``name`` for at most ``seconds`` unless another caller holds it.

        Returns:
            A token to :meth:`release` it with, or ``None`` when it is held.
        """
        ...

    async def release(self, name: str, token: str) -> None:
        """Free ``name`` if ``token`` still holds it; a no-op otherwise (it expired and
        may be someone else's now)."""
        ...

    async def wait(self, name: str, timeout: float) -> None:
        """Return once ``name`` is free (released or expired), or after ``timeout`` seconds."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
