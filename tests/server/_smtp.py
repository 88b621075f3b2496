"""A real SMTP server for tests: aiosmtpd on 127.0.0.1 in its own thread, collecting mail."""

from __future__ import annotations

import contextlib
import email
import email.policy
import socket
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import attrs
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import Envelope

__all__ = ["CollectingHandler", "SmtpServer", "free_port", "serve_smtp"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class CollectingHandler:
    def __init__(self) -> None:
        self.envelopes: list[Envelope] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Envelope) -> str:
        self.envelopes.append(envelope)
        return "250 OK"

    def messages(self) -> list[EmailMessage]:
        return [
            email.message_from_bytes(e.original_content or b"", policy=email.policy.default)
            for e in self.envelopes
        ]


@attrs.frozen
class SmtpServer:
    host: str
    port: int
    handler: CollectingHandler


@contextlib.contextmanager
def serve_smtp(**options: Any) -> Iterator[SmtpServer]:
    """An SMTP server on 127.0.0.1 (no TLS; ``options`` go to aiosmtpd's Controller)."""
    handler = CollectingHandler()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port(), **options)
    controller.start()
    try:
        yield SmtpServer("127.0.0.1", controller.port, handler)
    finally:
        controller.stop()
