"""A tiny in-process HTTP server on 127.0.0.1 for tests that need a web origin."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import attrs

Handler = Callable[[BaseHTTPRequestHandler], tuple[int, str, bytes] | None]


@attrs.define
class LocalServer:
    """Routes: path -> (status, content type, body) or a callable returning that (or None
    once it wrote a response itself)."""

    routes: dict[str, tuple[int, str, bytes] | Handler] = attrs.Factory(dict)
    hits: list[str] = attrs.Factory(list)
    port: int = 0
    release: threading.Event = attrs.Factory(threading.Event)
    host: str = "127.0.0.1"
    wrap: Callable[[ssl.SSLContext], None] = attrs.field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"


@contextmanager
def serve(server: LocalServer | None = None) -> Iterator[LocalServer]:
    """Run ``server`` in a thread for the duration of the block."""
    state = server or LocalServer()

    class _Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            state.hits.append(path)
            route = state.routes.get(path)
            if callable(route):
                route = route(self)
                if route is None:
                    return  # the handler wrote its own response (a redirect, say)
            if route is None:
                route = (404, "text/plain", b"not found")
            status, ctype, body = route
            try:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer((state.host, 0), _Handler)
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]

    def wrap(context: ssl.SSLContext) -> None:
        # Serve HTTPS: wrap the listening socket (set before the first request arrives).
        httpd.socket = context.wrap_socket(httpd.socket, server_side=True)

    state.wrap = wrap
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        httpd.shutdown()
        httpd.server_close()
