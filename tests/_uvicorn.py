"""An app served by a real uvicorn on 127.0.0.1, for tests whose requests must run at once.

Litestar's test client runs requests one after another; fairness, in-flight caps and
worker-pool limits need truly concurrent requests.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import anyio
import httpx
import uvicorn
from litestar import Litestar

__all__ = ["served_app"]


@contextlib.asynccontextmanager
async def served_app(app: Litestar, *, timeout: float = 60) -> AsyncIterator[httpx.AsyncClient]:
    """``app`` on uvicorn on an ephemeral 127.0.0.1 port, and a client for it.

    Args:
        app: the app; its lifespan runs (start-up and shutdown).
        timeout: the client's per-request timeout in seconds.
    """
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )
    task = asyncio.create_task(server.serve())
    try:
        with anyio.fail_after(20):
            while not server.started:  # uvicorn offers no started event
                assert not task.done(), "the server did not start"
                await asyncio.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}", timeout=timeout
        ) as client:
            yield client
    finally:
        server.should_exit = True
        await task
