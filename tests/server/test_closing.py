"""Shutdown closes every backend, whatever one of them does."""

from __future__ import annotations

import logging

import pytest

from renderkit_server.closing import close_each


class _Backend:
    def __init__(self, name: str, closed: list[str], *, fails: bool = False) -> None:
        self.name, self.closed, self.fails = name, closed, fails

    async def aclose(self) -> None:
        self.closed.append(self.name)
        if self.fails:
            msg = "boom"
            raise RuntimeError(msg)


@pytest.mark.anyio
async def test_a_failing_backend_is_logged_and_the_ones_after_it_still_close(
    caplog: pytest.LogCaptureFixture,
) -> None:
    closed: list[str] = []
    with caplog.at_level(logging.WARNING, logger="renderkit_server"):
        await close_each(
            _Backend("first", closed),
            None,
            _Backend("broken", closed, fails=True),
            _Backend("last", closed),
        )
    assert closed == ["first", "broken", "last"]
    assert [record.getMessage() for record in caplog.records] == ["error closing _Backend"]
