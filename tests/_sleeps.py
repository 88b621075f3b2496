"""A sleep to inject where the code takes one: it records the waits instead of waiting."""

from __future__ import annotations

__all__ = ["Sleeps"]


class Sleeps:
    """An injected sleep that records the waits instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
