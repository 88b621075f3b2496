"""Stopping a request's work when its client goes away.

Neither uvicorn nor Litestar cancels a handler whose client disconnected: the ASGI server
only answers the app's next ``receive()`` with ``http.disconnect``. A production call that
nobody will read (a minute of speech, a PDF) would run to its end, holding a worker and a
browser slot, and charge the key. :func:`until_disconnected` runs the work beside a watcher
of ``receive()`` and cancels the work when the client goes.

The work runs as an asyncio task of its own, cancelled once (plain asyncio cancellation, not
an anyio cancel scope): its failure path can still await, so
:func:`renderkit_server.operations.execute` releases the reservation as for any failure.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

from litestar.types import Receive

from renderkit_server.errors import HttpProblem

__all__ = ["CLIENT_CLOSED_REQUEST", "until_disconnected"]

T = TypeVar("T")

#: The status logged (never sent: nobody is listening) for work stopped by a disconnect.
CLIENT_CLOSED_REQUEST = 499


async def _disconnected(receive: Receive) -> None:
    """Return once the client has gone (the request body has been read already)."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def until_disconnected(receive: Receive, work: Coroutine[Any, Any, T]) -> T:
    """Await ``work``, cancelling it if the client disconnects first.

    Call it once the request body is read: further messages are the disconnect only.
    Cancelling the caller cancels ``work`` as well and waits for it to unwind.

    Raises:
        HttpProblem: 499 ``CLIENT_CLOSED_REQUEST``, the client went away and ``work`` was
            cancelled.
    """
    job = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait({job, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
        if not job.done():
            job.cancel()
            # Wait for the work to unwind (its refund, the engine stopping); a second
            # cancellation of the caller does not interrupt that.
            await asyncio.shield(asyncio.wait({job}))
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    if job.cancelled():
        msg = "the client closed the connection; the work was stopped and nothing charged"
        raise HttpProblem(CLIENT_CLOSED_REQUEST, "CLIENT_CLOSED_REQUEST", msg)
    return job.result()
