"""SpoolingMailer: what is spooled, what is refused for good, and how a retry pass ends."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest

from renderkit_server.mail import MailDeliveryError, MemoryMailer
from renderkit_server.mailspool import SpoolingMailer

pytestmark = pytest.mark.anyio


class ScriptedMailer(MemoryMailer):
    """Fails with the queued errors first, then delivers."""

    def __init__(self, *errors: MailDeliveryError) -> None:
        super().__init__()
        self.errors = list(errors)

    async def send(self, message: EmailMessage) -> None:
        if self.errors:
            raise self.errors.pop(0)
        await super().send(message)


def message(to: str) -> EmailMessage:
    built = EmailMessage()
    built["To"] = to
    built["Subject"] = "key"
    built.set_content("sk_live_secret")
    return built


def down() -> MailDeliveryError:
    return MailDeliveryError("could not connect to the SMTP server", reason="connect")


def refused() -> MailDeliveryError:
    return MailDeliveryError("refused", reason="refused", code=550)


async def test_a_permanent_refusal_is_raised_and_never_spooled(tmp_path: Path) -> None:
    spool = SpoolingMailer(ScriptedMailer(refused()), tmp_path)
    with pytest.raises(MailDeliveryError):
        await spool.send(message("a@x.io"))
    assert spool.pending() == []


async def test_a_retry_pass_stops_at_the_first_failure_and_keeps_the_order(tmp_path: Path) -> None:
    inner = ScriptedMailer(down(), down(), down())
    spool = SpoolingMailer(inner, tmp_path)
    await spool.send(message("first@x.io"))
    await spool.send(message("second@x.io"))
    assert len(spool.pending()) == 2
    assert await spool.retry_pending() is True  # the server is still down
    assert len(spool.pending()) == 2 and inner.messages == []
    assert await spool.retry_pending() is False
    assert [m["To"] for m in inner.messages] == ["first@x.io", "second@x.io"]
    assert spool.pending() == []


async def test_a_spooled_message_refused_for_good_moves_to_the_failed_spool(tmp_path: Path) -> None:
    inner = ScriptedMailer(down(), refused())
    spool = SpoolingMailer(inner, tmp_path)
    await spool.send(message("gone@x.io"))
    assert await spool.retry_pending() is False
    assert spool.pending() == []
    assert len(list((tmp_path / "failed").glob("*.eml"))) == 1
