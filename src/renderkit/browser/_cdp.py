"""A minimal direct CDP connection to one page target, for bulky results.

Playwright relays CDP through its driver process and re-encodes every message as JSON on
the way, which costs ~40 ms for a 1 MB screenshot. Screenshots and PDFs are fetched over
this second connection straight to Chromium instead (Chromium accepts several DevTools
clients per target); everything else still goes through Playwright.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect

from renderkit.core.waits import cancel_and_wait

__all__ = ["DirectCdp", "page_ws_url"]


def page_ws_url(browser_endpoint: str, target_id: str) -> str:
    """The DevTools WebSocket URL of a page, from the browser's endpoint (ws:// or http://)."""
    parts = urlsplit(browser_endpoint)
    scheme = "wss" if parts.scheme in ("wss", "https") else "ws"
    return f"{scheme}://{parts.netloc}/devtools/page/{target_id}"


class DirectCdp:
    """Request/response CDP over one WebSocket; events are ignored."""

    def __init__(self, connection: ClientConnection) -> None:
        self._connection = connection
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, url: str) -> DirectCdp:
        """Connect to a page's DevTools endpoint."""
        connection = await connect(url, max_size=None, compression=None, ping_interval=None)
        return cls(connection)

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Call ``method`` and return its result.

        Raises:
            RuntimeError: Chromium answered with an error, or the connection closed.
        """
        self._next_id += 1
        message_id = self._next_id
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[message_id] = future
        try:
            await self._connection.send(
                json.dumps({"id": message_id, "method": method, "params": params or {}})
            )
            return await future
        finally:
            self._pending.pop(message_id, None)
            if future.done() and not future.cancelled():
                # Failed by a closing connection while the request was still being sent:
                # the caller got the send's own error; this one is not left unretrieved.
                future.exception()

    async def _read(self) -> None:
        try:
            async for raw in self._connection:
                message = json.loads(raw)
                future = self._pending.get(message.get("id", -1))
                if future is None or future.done():
                    continue
                if "error" in message:
                    error = message["error"].get("message", "CDP error")
                    future.set_exception(RuntimeError(f"{error}"))
                else:
                    future.set_result(message.get("result", {}))
        except Exception:  # the connection died: fail every waiting call
            pass
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(RuntimeError("the DevTools connection closed"))

    async def aclose(self) -> None:
        """Close the connection."""
        with contextlib.suppress(Exception):
            await self._connection.close()
        await cancel_and_wait(self._reader)
