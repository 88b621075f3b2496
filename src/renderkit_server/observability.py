"""Request ids and structured access logs, as a pure ASGI middleware (cheap per request)."""

from __future__ import annotations

import json
import logging
import re
import secrets
import time
from typing import Any

from litestar.enums import ScopeType
from litestar.middleware import MiddlewareProtocol
from litestar.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["JsonFormatter", "RequestIdMiddleware"]

access_logger = logging.getLogger("renderkit_server.access")
_SAFE_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")


class RequestIdMiddleware(MiddlewareProtocol):
    """Tags every request with an id (the client's ``X-Request-Id`` if sane), echoes it in
    the response, and logs one structured line per request.

    Args:
        app: the next ASGI application.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI connection; only HTTP requests are tagged and logged."""
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        request_id = b""
        for name, value in scope["headers"]:
            if name == b"x-request-id" and _SAFE_ID.fullmatch(value):
                request_id = value
                break
        if not request_id:
            request_id = secrets.token_hex(8).encode()
        scope.setdefault("state", {})["request_id"] = request_id.decode()
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", request_id)]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if access_logger.isEnabledFor(logging.INFO):
                access_logger.info(
                    "request",
                    extra={
                        "request_id": request_id.decode(),
                        "method": scope["method"],
                        "path": scope["path"],
                        "status": status,
                        "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                        "key": scope["state"].get("key_fingerprint"),
                    },
                )


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message and any extra fields."""

    _STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None)))

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in self._STANDARD and key not in ("message", "asctime"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)
