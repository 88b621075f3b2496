"""An app served by a real uvicorn on 127.0.0.1, for tests whose requests must run at once.

Litestar's test client runs requests one after another; fairness, in-flight caps and
worker-pool limits need truly concurrent requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import httpx
import uvicorn
from litestar import Litestar

__all__ = ["served_app", "served_in_thread"]


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
        await _stopped(task)


async def _stopped(task: asyncio.Task[None], *, within: float = 60) -> None:
    """Wait for the server's task to end; a shutdown that hangs fails with every task's stack.

    A hung lifespan shutdown (a background loop that ignores its cancellation, a wait with
    no timeout) would otherwise stall the whole test run with the event loop idle.
    """
    done, _ = await asyncio.wait({task}, timeout=within)
    if task in done:
        task.result()
        return
    stacks = io.StringIO()
    for other in asyncio.all_tasks():
        if other is not asyncio.current_task():
            other.print_stack(limit=12, file=stacks)
    task.cancel()
    msg = f"the app did not shut down within {within} s; tasks still waiting:\n{stacks.getvalue()}"
    raise AssertionError(msg)


@contextlib.contextmanager
def served_in_thread(app: Litestar, **options: Any) -> Iterator[str]:
    """``app`` on uvicorn in a thread of its own, for synchronous tests; yields its base URL.

    The server's event loop runs apart from the test's, so the test can measure how the
    server answers while it holds sockets open or sends slowly (as clients elsewhere would).

    Args:
        app: the app; its lifespan runs (start-up and shutdown).
        options: more ``uvicorn.Config`` options (timeouts, the protocol class).
    """
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", **options)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:  # uvicorn offers no started event
            assert thread.is_alive(), "the server did not start"
            assert time.monotonic() < deadline, "the server did not start in 20 s"
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
