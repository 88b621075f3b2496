from __future__ import annotations

import datetime
import email
import email.policy
import logging
import os
import stat
import sys
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import anyio
import pytest
from aiosmtpd.smtp import AuthResult

from renderkit import ConfigurationError, MissingDependencyError, RenderkitError
from renderkit_server.keys.service import IssuedKey
from renderkit_server.mail import (
    MailDeliveryError,
    Mailer,
    MemoryMailer,
    OutboxMailer,
    SmtpMailer,
    key_email,
)
from tests.server._smtp import SmtpServer, free_port, serve_smtp

SENDER = "renderkit <keys@renderkit.example>"
PASSWORD = "hunter2-very-secret-pw"
ISSUED = IssuedKey(
    key="sk_live_AQID-fake_payload_for_tests.zZ9-mac_value_here",
    key_id="00112233445566778899aabbccddeeff",
    plan="pro",
    email="alice@example.com",
    created=datetime.datetime(2025, 6, 1, 12, 0, tzinfo=datetime.UTC),
)


def _authenticate(
    server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any
) -> AuthResult:
    ok = auth_data.login == b"mailer" and auth_data.password == PASSWORD.encode()
    # handled=False makes aiosmtpd answer "535" itself instead of leaving the client waiting.
    return AuthResult(success=ok, handled=False)


@pytest.fixture
def smtp_server() -> Iterator[SmtpServer]:
    """A real SMTP server on 127.0.0.1 (aiosmtpd, in its own thread); no TLS, no AUTH."""
    with serve_smtp() as server:
        yield server


@pytest.fixture
def smtp_auth_server() -> Iterator[SmtpServer]:
    """Like smtp_server, but offering AUTH over plain text (tests only) and checking it."""
    with serve_smtp(authenticator=_authenticate, auth_require_tls=False) as server:
        yield server


def _all_text(exc: BaseException) -> str:
    """str and repr of an exception and of everything chained to it."""
    parts: list[str] = []
    seen: BaseException | None = exc
    while seen is not None:
        parts += [str(seen), repr(seen)]
        seen = seen.__cause__ or seen.__context__
    return "\n".join(parts)


# --- SMTP -----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_smtp_mailer_delivers_the_key_email(smtp_server: SmtpServer) -> None:
    mailer = SmtpMailer(smtp_server.host, smtp_server.port, sender="keys@renderkit.example")

    with anyio.fail_after(5):
        await mailer.send(key_email(ISSUED, sender=SENDER))
    await mailer.aclose()

    [envelope] = smtp_server.handler.envelopes
    [received] = smtp_server.handler.messages()
    assert envelope.mail_from == "keys@renderkit.example"
    assert envelope.rcpt_tos == ["alice@example.com"]
    assert received["To"] == "alice@example.com"
    assert received["Subject"] == "Your renderkit API key"
    body = received.get_body(preferencelist=("plain",))
    assert body is not None
    assert ISSUED.key in body.get_content()


@pytest.mark.anyio
async def test_smtp_mailer_adds_the_sender_as_from_when_missing(smtp_server: SmtpServer) -> None:
    mailer = SmtpMailer(smtp_server.host, smtp_server.port, sender="keys@renderkit.example")
    message = EmailMessage()
    message["To"] = "bob@example.com"
    message["Subject"] = "hello"
    message.set_content("hi")

    with anyio.fail_after(5):
        await mailer.send(message)

    [received] = smtp_server.handler.messages()
    assert received["From"] == "keys@renderkit.example"


@pytest.mark.anyio
# aiosmtpd itself sets its deprecated Session.login_data on a successful AUTH.
@pytest.mark.filterwarnings("ignore:Session.login_data is deprecated:DeprecationWarning")
async def test_smtp_mailer_logs_in_when_given_credentials(smtp_auth_server: SmtpServer) -> None:
    mailer = SmtpMailer(
        smtp_auth_server.host,
        smtp_auth_server.port,
        username="mailer",
        password=PASSWORD,
        starttls=False,
        sender="keys@renderkit.example",
    )

    with anyio.fail_after(5):
        await mailer.send(key_email(ISSUED, sender=SENDER))

    [received] = smtp_auth_server.handler.messages()
    assert received["To"] == "alice@example.com"


@pytest.mark.anyio
async def test_refused_credentials_raise_without_revealing_the_password(
    smtp_auth_server: SmtpServer,
) -> None:
    mailer = SmtpMailer(
        smtp_auth_server.host,
        smtp_auth_server.port,
        username="mailer",
        password=PASSWORD + "-wrong",
        starttls=False,
        sender="keys@renderkit.example",
    )

    with anyio.fail_after(5), pytest.raises(MailDeliveryError) as info:
        await mailer.send(key_email(ISSUED, sender=SENDER))

    assert info.value.reason == "auth"
    assert info.value.code == 535
    assert isinstance(info.value, RenderkitError)
    assert PASSWORD not in _all_text(info.value)
    assert smtp_auth_server.handler.envelopes == []


@pytest.mark.anyio
async def test_credentials_are_never_sent_to_a_server_without_starttls(
    smtp_auth_server: SmtpServer,
) -> None:
    # starttls is left on auto: with credentials that means STARTTLS is required.
    mailer = SmtpMailer(
        smtp_auth_server.host,
        smtp_auth_server.port,
        username="mailer",
        password=PASSWORD,
        sender="keys@renderkit.example",
    )

    with anyio.fail_after(5), pytest.raises(MailDeliveryError) as info:
        await mailer.send(key_email(ISSUED, sender=SENDER))

    assert info.value.reason == "tls"
    assert PASSWORD not in _all_text(info.value)
    assert smtp_auth_server.handler.envelopes == []


@pytest.mark.anyio
async def test_required_starttls_fails_against_a_plain_server(smtp_server: SmtpServer) -> None:
    mailer = SmtpMailer(
        smtp_server.host, smtp_server.port, starttls=True, sender="keys@renderkit.example"
    )

    with anyio.fail_after(5), pytest.raises(MailDeliveryError) as info:
        await mailer.send(key_email(ISSUED, sender=SENDER))

    assert info.value.reason == "tls"


@pytest.mark.anyio
async def test_unreachable_smtp_server_raises_mail_delivery_error_quickly() -> None:
    mailer = SmtpMailer(
        "127.0.0.1",
        free_port(),  # nothing listens there
        username="mailer",
        password=PASSWORD,
        sender="keys@renderkit.example",
        timeout=3,
    )

    with anyio.fail_after(5), pytest.raises(MailDeliveryError) as info:
        await mailer.send(key_email(ISSUED, sender=SENDER))

    assert info.value.reason == "connect"
    assert PASSWORD not in _all_text(info.value)


def test_smtp_mailer_repr_hides_the_password() -> None:
    mailer = SmtpMailer(
        "smtp.example.com", 587, username="mailer", password=PASSWORD, sender="k@example.com"
    )

    assert PASSWORD not in repr(mailer)
    assert PASSWORD not in str(mailer)
    assert PASSWORD not in repr(vars(mailer))
    assert "smtp.example.com" in repr(mailer)


def test_smtp_mailer_with_credentials_requires_starttls_by_default() -> None:
    mailer = SmtpMailer(
        "smtp.example.com", 587, username="mailer", password=PASSWORD, sender="k@example.com"
    )
    implicit_tls = SmtpMailer(
        "smtp.example.com",
        465,
        username="mailer",
        password=PASSWORD,
        use_tls=True,
        sender="k@example.com",
    )

    assert mailer.starttls is True
    assert implicit_tls.starttls is None


def test_smtp_mailer_refuses_contradictory_options() -> None:
    with pytest.raises(ConfigurationError):
        SmtpMailer("h", 465, use_tls=True, starttls=True, sender="k@example.com")
    with pytest.raises(ConfigurationError) as info:
        SmtpMailer("h", 587, password=PASSWORD, sender="k@example.com")
    assert PASSWORD not in str(info.value)
    with pytest.raises(ConfigurationError):
        SmtpMailer("h", 587, username="mailer", sender="k@example.com")


def test_smtp_mailer_without_aiosmtplib_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "aiosmtplib", None)

    with pytest.raises(MissingDependencyError):
        SmtpMailer("h", 25, sender="k@example.com")


# --- outbox and memory ----------------------------------------------------------------------


@pytest.mark.anyio
async def test_outbox_writes_a_parseable_eml_and_logs_without_the_key(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    outbox = tmp_path / "outbox"
    mailer = OutboxMailer(outbox)

    with caplog.at_level(logging.INFO, logger="renderkit_server.mail"):
        await mailer.send(key_email(ISSUED, sender=SENDER, regenerated=True))
    await mailer.aclose()

    [path] = outbox.iterdir()
    assert path.suffix == ".eml"
    parsed = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert parsed["To"] == "alice@example.com"
    assert parsed["Subject"] == "Your new renderkit API key"
    plain = parsed.get_body(preferencelist=("plain",))
    assert plain is not None
    assert ISSUED.key in plain.get_content()
    assert b"\r\n" in path.read_bytes()
    assert ISSUED.key.encode() in path.read_bytes()  # unfolded, so it can be copied as is

    [record] = [r for r in caplog.records if r.name == "renderkit_server.mail"]
    assert "alice@example.com" in record.getMessage()
    assert ISSUED.key not in record.getMessage()
    assert ISSUED.key not in caplog.text


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
@pytest.mark.anyio
async def test_outbox_files_are_readable_by_the_owner_only(tmp_path: Path) -> None:
    mailer = OutboxMailer(tmp_path / "outbox")

    await mailer.send(key_email(ISSUED, sender=SENDER))
    await mailer.send(key_email(ISSUED, sender=SENDER))

    paths = sorted((tmp_path / "outbox").iterdir())
    assert len(paths) == 2
    assert all(p.suffix == ".eml" for p in paths)  # no temporary file left behind
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in paths)


@pytest.mark.anyio
async def test_outbox_that_cannot_be_written_raises_mail_delivery_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    mailer = OutboxMailer(blocker / "outbox")

    with pytest.raises(MailDeliveryError) as info:
        await mailer.send(key_email(ISSUED, sender=SENDER))

    assert str(tmp_path) not in str(info.value)


@pytest.mark.anyio
async def test_memory_mailer_keeps_sent_messages() -> None:
    mailer = MemoryMailer()
    message = key_email(ISSUED, sender=SENDER)

    await mailer.send(message)
    await mailer.aclose()

    assert mailer.messages == [message]
    assert mailer.closed


def test_every_mailer_satisfies_the_protocol(tmp_path: Path) -> None:
    for mailer in (
        MemoryMailer(),
        OutboxMailer(tmp_path),
        SmtpMailer("h", 25, sender="k@example.com"),
    ):
        assert isinstance(mailer, Mailer)


# --- the key e-mail -------------------------------------------------------------------------


def test_key_email_has_the_key_in_text_and_html() -> None:
    message = key_email(ISSUED, sender=SENDER, service_name="Acme Render")

    assert message["From"] == SENDER
    assert message["To"] == "alice@example.com"
    assert message["Subject"] == "Your Acme Render API key"
    assert message["Message-ID"].endswith("@renderkit.example>")
    plain = message.get_body(preferencelist=("plain",))
    rich = message.get_body(preferencelist=("html",))
    assert plain is not None
    assert rich is not None
    assert ISSUED.key in plain.get_content()
    assert ISSUED.key in rich.get_content()
    assert "pro" in plain.get_content()


def test_regenerated_key_email_differs_from_a_new_key_email() -> None:
    new = key_email(ISSUED, sender=SENDER)
    regenerated = key_email(ISSUED, sender=SENDER, regenerated=True)

    assert new["Subject"] != regenerated["Subject"]
    new_body = new.get_body(preferencelist=("plain",))
    regenerated_body = regenerated.get_body(preferencelist=("plain",))
    assert new_body is not None
    assert regenerated_body is not None
    assert len(regenerated_body.get_content()) > len(new_body.get_content())


def test_key_email_escapes_html() -> None:
    message = key_email(ISSUED, sender=SENDER, service_name="<b>Acme</b>")

    rich = message.get_body(preferencelist=("html",))
    assert rich is not None
    assert "<b>Acme</b>" not in rich.get_content()
    assert "&lt;b&gt;Acme&lt;/b&gt;" in rich.get_content()
