"""A real webhook receiver on 127.0.0.1: a stdlib HTTP server in a thread, told how to answer.

Each POST takes the next behaviour of its script (the last one repeats): ``ok`` (204),
``fail`` (503 with a long body), ``hang`` (never answers until the receiver stops) or
``redirect`` (302 to another path of the same server). Every request is recorded.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import attrs


@attrs.frozen(kw_only=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class Receiver:
    def __init__(self, script: list[str]) -> None:
        self.script = list(script)
        self.requests: list[Received] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def next_behaviour(self) -> str:
        with self._lock:
            return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    def record(self, received: Received) -> None:
        with self._lock:
            self.requests.append(received)


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            """Quiet."""

        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            receiver.record(
                Received(
                    method=self.command,
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
            )
            behaviour = receiver.next_behaviour() if self.command == "POST" else "ok"
            if behaviour == "hang":
                receiver.stopping.wait(30)
                return
            if behaviour == "redirect":
                self.send_response(302)
                self.send_header("Location", f"http://127.0.0.1:{receiver.port}/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if behaviour == "fail":
                payload = b"busy " * 2000
                self.send_response(503)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
            self.send_response(204)
            self.end_headers()

        do_POST = _answer
        do_GET = _answer

    return Handler


@contextlib.contextmanager
def receiver(*script: str) -> Iterator[Receiver]:
    """A receiver answering per ``script`` on an ephemeral port of 127.0.0.1."""
    state = Receiver(list(script) or ["ok"])
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stopping.set()
        server.shutdown()
        server.server_close()
