"""Key e-mails that survive a mail outage: a durable spool and a retry loop.

:class:`SpoolingMailer` wraps the configured :class:`~renderkit_server.mail.Mailer`. When a
message cannot be delivered for a reason that may pass (SMTP server down or slow, TLS or
credentials failing, a 4xx reply), it is written to a spool directory as an ``.eml`` file
(0600 in a 0700 directory, written atomically: a key e-mail holds a live credential) and
:meth:`SpoolingMailer.run`, started by the app lifespan, retries the spool with an
exponential backoff. A message the server refuses for good (a 5xx reply to the sender,
recipient or content) is not spooled: it could never be delivered.

Several processes may share the spool (uvicorn workers on one data directory): each file is
locked while it is being delivered, so one message is sent by one process. Nothing here
logs a message body; logs name the recipient and the failure reason only.
"""

from __future__ import annotations

import email
import email.policy
import fcntl
import functools
import logging
import os
from email.message import EmailMessage
from pathlib import Path
from typing import NoReturn

import anyio
import anyio.to_thread

from renderkit_server.mail import MailDeliveryError, Mailer, OutboxMailer

__all__ = ["SpoolingMailer"]

logger = logging.getLogger("renderkit_server.mail")

_FAILED = "failed"


def _permanent(exc: MailDeliveryError) -> bool:
    """A 5xx refusal of sender, recipient or content: retrying cannot help."""
    return exc.reason == "refused" and exc.code is not None and 500 <= exc.code < 600


class _Claim:
    """An exclusive lock on one spooled file, or nothing if another process holds it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> bytes | None:
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:  # delivered by another process meanwhile
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # The holder before us may have delivered and unlinked it after we opened it.
            if os.fstat(fd).st_ino != os.stat(self.path).st_ino:
                raise FileNotFoundError(self.path)
        except OSError:
            os.close(fd)
            return None
        self._fd = fd
        with os.fdopen(os.dup(fd), "rb") as file:
            return file.read()

    def release(self, *, delete: bool = False, move_to: Path | None = None) -> None:
        if delete:
            self.path.unlink(missing_ok=True)
        elif move_to is not None:
            move_to.mkdir(mode=0o700, exist_ok=True)
            os.replace(self.path, move_to / self.path.name)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class SpoolingMailer:
    """Delivers through ``mailer``; keeps what it cannot deliver yet and retries it.

    Args:
        mailer: the real delivery (SMTP, outbox...); closed by :meth:`aclose`.
        directory: the spool; created on first use. Messages that fail for good on a
            retry move to its ``failed/`` subdirectory for the operator.
        retry_seconds: delay before the first retry pass, and after a pass that delivered
            everything.
        retry_max_seconds: the longest delay; each pass that fails doubles the delay.
    """

    def __init__(
        self,
        mailer: Mailer,
        directory: str | os.PathLike[str],
        *,
        retry_seconds: float = 30.0,
        retry_max_seconds: float = 1800.0,
    ) -> None:
        self.mailer = mailer
        self.directory = Path(directory)
        self._spool = OutboxMailer(self.directory)
        self._retry_seconds = retry_seconds
        self._retry_max_seconds = max(retry_max_seconds, retry_seconds)

    def __repr__(self) -> str:
        return f"SpoolingMailer({self.mailer!r}, {str(self.directory)!r})"

    async def send(self, message: EmailMessage) -> None:
        """Deliver ``message`` now, or spool it for retry when delivery may succeed later.

        Raises:
            MailDeliveryError: the message was refused for good, or it could be neither
                delivered nor written to the spool.
        """
        try:
            await self.mailer.send(message)
        except MailDeliveryError as exc:
            if _permanent(exc):
                raise
            await self._spool.send(message)
            logger.warning("e-mail to %s kept for retry: %s (%s)", message["To"], exc, exc.reason)

    def pending(self) -> list[Path]:
        """The spooled messages, oldest first."""
        try:
            return sorted(self.directory.glob("*.eml"))
        except OSError:
            return []

    async def retry_pending(self) -> bool:
        """Try to deliver every spooled message once, oldest first.

        A pass stops at the first message that fails for a passing reason: the server is
        still unavailable, so the rest would fail too.

        Returns:
            True when messages are still waiting because delivery failed.
        """
        for path in await anyio.to_thread.run_sync(self.pending):
            claim = _Claim(path)
            data = await anyio.to_thread.run_sync(claim.acquire)
            if data is None:
                continue
            try:
                message = email.message_from_bytes(data, policy=email.policy.default)
                assert isinstance(message, EmailMessage)  # what policy.default builds
                await self.mailer.send(message)
            except MailDeliveryError as exc:
                if not _permanent(exc):
                    await anyio.to_thread.run_sync(claim.release)
                    return True
                logger.warning(
                    "e-mail to %s refused for good (%s); moved to the failed spool",
                    message["To"],
                    exc.code,
                )
                failed = functools.partial(claim.release, move_to=self.directory / _FAILED)
                await anyio.to_thread.run_sync(failed)
                continue
            except BaseException:
                await anyio.to_thread.run_sync(claim.release)
                raise
            # Logged as soon as the server took it, before the spool file goes: a shutdown
            # that cancels this pass while the file is deleted still leaves the record.
            logger.info("spooled e-mail to %s delivered", message["To"])
            await anyio.to_thread.run_sync(functools.partial(claim.release, delete=True))
        return False

    async def run(self) -> NoReturn:
        """Retry the spool until cancelled, backing off while delivery keeps failing."""
        delay = self._retry_seconds
        while True:
            await anyio.sleep(delay)
            try:
                failing = await self.retry_pending()
            except OSError:
                logger.warning("could not read the mail spool", exc_info=True)
                failing = True
            delay = min(delay * 2, self._retry_max_seconds) if failing else self._retry_seconds

    async def aclose(self) -> None:
        """Close the wrapped mailer; spooled messages stay for the next start."""
        await self.mailer.aclose()
