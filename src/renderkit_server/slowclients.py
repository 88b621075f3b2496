"""Deadlines for slow clients: a request's headers, then its body, must arrive in time.

uvicorn bounds only the idle time between two requests (``timeout_keep_alive``, armed once a
response is sent); neither its httptools nor its h11 protocol bounds the time to receive a
request. A client that connects and sends nothing, sends its headers a byte at a time
(slowloris) or stops halfway through a body keeps its connection, a file descriptor and a
parser for as long as it likes: the review held 300 such connections.

:class:`DeadlineProtocol` is uvicorn's httptools protocol with two timers: the headers must be
complete within ``header_timeout`` of connecting (or of the previous response), and the body
within ``body_timeout`` of the headers. A late client's connection is closed. The time the
application takes to answer is not bounded here (renders have their own timeouts).
"""

from __future__ import annotations

import asyncio
from typing import Any

import attrs
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from renderkit_server.settings import Settings

__all__ = ["ClientDeadlines", "DeadlineProtocol"]


@attrs.frozen(kw_only=True)
class ClientDeadlines:
    """How long a client may take to send a request.

    Attributes:
        header_seconds: from connecting, or from the previous response, to the end of the
            headers.
        body_seconds: from the end of the headers to the end of the body.
    """

    header_seconds: float
    body_seconds: float

    @classmethod
    def of(cls, settings: Settings) -> ClientDeadlines:
        """The deadlines ``settings`` configure (``header_timeout``, ``body_timeout``)."""
        return cls(header_seconds=settings.header_timeout, body_seconds=settings.body_timeout)


def _deadlines(config: Config) -> ClientDeadlines:
    # uvicorn builds the protocol from its config alone; the served app carries the settings
    # (create_app puts them in its state), under any middleware uvicorn wrapped it in.
    app: Any = config.loaded_app
    for _ in range(8):
        state: Any = getattr(app, "state", None)
        settings = state.get("settings") if hasattr(state, "get") else None
        if isinstance(settings, Settings):
            return ClientDeadlines.of(settings)
        app = getattr(app, "app", None)
        if app is None:
            break
    return ClientDeadlines.of(Settings())


class DeadlineProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, closing connections whose requests arrive too slowly.

    Serve with ``uvicorn.run(..., http=DeadlineProtocol)``; the deadlines come from the
    served app's settings (:class:`ClientDeadlines`), the defaults when it has none.
    """

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._client_deadlines = _deadlines(config)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self._client_deadlines.header_seconds)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        if self.parser.should_upgrade() and self._should_upgrade():
            self._disarm()  # a WebSocket protocol owns the connection now
        else:
            self._arm(self._client_deadlines.body_seconds)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        if self.cycle is not None and self.cycle.response_complete:
            # Answered before the body was in (a 401, a 413): the next request's turn.
            self._arm(self._client_deadlines.header_seconds)
        else:
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            # The next request's headers; the keep-alive timeout still closes an idle
            # connection sooner, but only until its first byte.
            self._arm(self._client_deadlines.header_seconds)

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()
