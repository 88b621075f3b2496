"""SMTP down: the key is still issued, its e-mail is spooled and arrives once SMTP is back."""

from __future__ import annotations

import email
import email.policy
import itertools
import logging
import socket
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import Envelope
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.settings import Settings

pytestmark = pytest.mark.anyio


async def _until(condition: Callable[[], object], *, timeout: float = 10.0) -> None:
    """Wait, polling, until ``condition()`` is true; fail after ``timeout`` seconds."""
    with anyio.fail_after(timeout):
        for _ in itertools.count():
            if condition():
                return
            await anyio.sleep(0.05)


def _mail_fault_free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class _Collecting:
    def __init__(self) -> None:
        self.envelopes: list[Envelope] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Envelope) -> str:
        self.envelopes.append(envelope)
        return "250 OK"


async def test_a_key_issued_while_smtp_is_down_is_mailed_once_smtp_is_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    port = _mail_fault_free_port()  # nothing listens here yet: connections are refused
    settings = Settings(
        data_dir=tmp_path / "data",
        secret="test-secret-that-is-long-enough",
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_tls=False,
        mail_retry_seconds=0.2,
        mail_retry_max_seconds=0.4,
    )
    spool = settings.data_dir / "mail-spool"
    handler = _Collecting()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    async with AsyncTestClient(create_app(settings, browser=FakeBrowser())) as client:
        response = await client.post("/api/keys/generate", json={"email": "owner@example.com"})
        assert response.status_code == 200, response.text
        key = response.json()["key"]
        spooled = list(spool.glob("*.eml"))
        assert len(spooled) == 1
        assert stat.S_IMODE(spooled[0].stat().st_mode) == 0o600
        assert key in spooled[0].read_text()
        assert not handler.envelopes

        controller.start()
        try:
            await _until(lambda: handler.envelopes and not list(spool.glob("*.eml")))
        finally:
            controller.stop()

    assert len(handler.envelopes) == 1
    envelope = handler.envelopes[0]
    assert envelope.rcpt_tos == ["owner@example.com"]
    raw = envelope.original_content or b""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert key in message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert not list(spool.glob("*.eml"))
    # Our loggers only: the test SMTP server itself logs every DATA line at DEBUG.
    ours = [r for r in caplog.records if r.name.startswith(("renderkit", "litestar", "aiosmtplib"))]
    logged = "\n".join(f"{r.getMessage()} {r.exc_text or ''}" for r in ours)
    assert "kept for retry" in logged and "delivered" in logged
    assert key not in logged


async def test_mail_spooled_by_a_stopped_server_is_sent_by_the_next_start(tmp_path: Path) -> None:
    port = _mail_fault_free_port()
    settings = Settings(
        data_dir=tmp_path / "data",
        secret="test-secret-that-is-long-enough",
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_tls=False,
        mail_retry_seconds=0.2,
    )
    async with AsyncTestClient(create_app(settings, browser=FakeBrowser())) as client:
        response = await client.post("/api/keys/generate", json={"email": "owner@example.com"})
        key = response.json()["key"]
    assert len(list((settings.data_dir / "mail-spool").glob("*.eml"))) == 1

    handler = _Collecting()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        async with AsyncTestClient(create_app(settings, browser=FakeBrowser())):
            await _until(lambda: handler.envelopes)
    finally:
        controller.stop()
    assert key.encode() in (handler.envelopes[0].original_content or b"")
