"""Running the server: ``renderkit serve`` and ``python -m renderkit_server``."""

from __future__ import annotations

import logging
import math
import signal
import sys
from typing import Any

import uvicorn
from litestar import Litestar

from renderkit_server.app import create_app
from renderkit_server.observability import JsonFormatter
from renderkit_server.settings import Settings
from renderkit_server.slowclients import DeadlineProtocol

__all__ = ["SERVER_OPTIONS", "app_factory", "serve"]

#: uvicorn options of every ``serve``, besides the address, the worker count and the
#: graceful shutdown's bound (``shutdown_timeout`` of the settings).
SERVER_OPTIONS: dict[str, Any] = {
    "log_config": None,
    "access_log": False,  # our middleware logs one structured line per request
    "server_header": False,
    # The client address is the TCP peer; X-Forwarded-For is read only from the proxies in
    # RENDERKIT_TRUSTED_PROXIES (renderkit_server.clientaddr). uvicorn's own handling would
    # trust 127.0.0.1 and hand the app whatever the client wrote in the header.
    "proxy_headers": False,
    "forwarded_allow_ips": "",
    # Closes connections whose request headers or body arrive too slowly (header_timeout,
    # body_timeout); uvicorn alone bounds only the idle time between requests.
    "http": DeadlineProtocol,
}


def _configure_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def app_factory() -> Litestar:
    """Build the app from the environment (uvicorn's ``--factory`` entry point)."""
    return create_app(Settings.from_env())


def serve(*, host: str, port: int, workers: int = 1, log_level: str = "info") -> int:
    """Serve until SIGINT/SIGTERM; in-flight requests finish before the browser closes.

    Requests still running ``shutdown_timeout`` seconds after the signal are cancelled
    (uvicorn cancels their tasks): a synthesis stops its engine at once, so the process
    exits within that bound and the few seconds closing the engines takes.
    """
    _configure_logging(log_level)
    settings = Settings.from_env()  # fail fast on bad configuration, before binding
    logging.getLogger("renderkit_server").info(
        "starting", extra={"host": host, "port": port, "data_dir": str(settings.data_dir)}
    )
    # uvicorn re-raises the SIGTERM it handled once shutdown is complete; a no-op handler
    # turns that into a clean exit status 0 after the graceful shutdown.
    signal.signal(signal.SIGTERM, lambda *_: None)
    uvicorn.run(
        "renderkit_server.main:app_factory",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        timeout_graceful_shutdown=math.ceil(settings.shutdown_timeout),
        **SERVER_OPTIONS,
    )
    return 0


if __name__ == "__main__":
    sys.exit(serve(host="127.0.0.1", port=8000))
