"""E-mail delivery, used to send API keys to their owners.

Backends implement :class:`Mailer`: :class:`SmtpMailer` (needs ``aiosmtplib``),
:class:`OutboxMailer` (writes ``.eml`` files, for development and for operators who relay
mail another way) and :class:`MemoryMailer` (tests). :func:`key_email` builds the message.

Key e-mails contain a live credential, so nothing here logs a message body, and no error
message or ``repr`` contains the SMTP password.
"""

from __future__ import annotations

import contextlib
import datetime
import email.policy
import email.utils
import html
import logging
import os
import secrets
import ssl
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

import anyio.to_thread

from renderkit import ConfigurationError, MissingDependencyError, RenderkitError
from renderkit_server.keys import IssuedKey
from renderkit_server.keys.emails import ENCODED_WORD

__all__ = [
    "MailDeliveryError",
    "MailFailure",
    "Mailer",
    "MemoryMailer",
    "OutboxMailer",
    "SmtpMailer",
    "key_email",
]

logger = logging.getLogger("renderkit_server.mail")

MailFailure = Literal["connect", "timeout", "tls", "auth", "refused", "protocol"]


class MailDeliveryError(RenderkitError):
    """An e-mail could not be delivered.

    Attributes:
        reason: ``connect`` (server unreachable), ``timeout``, ``tls`` (STARTTLS needed but
            unavailable), ``auth`` (credentials refused), ``refused`` (sender, recipient or
            content refused) or ``protocol`` (any other SMTP failure).
        code: the SMTP reply code, when the server sent one.
    """

    def __init__(self, message: str, *, reason: MailFailure, code: int | None = None) -> None:
        super().__init__(message)
        self.reason: MailFailure = reason
        self.code = code


@runtime_checkable
class Mailer(Protocol):
    """Sends e-mail messages."""

    async def send(self, message: EmailMessage) -> None:
        """Deliver ``message`` to the recipients in its To, Cc and Bcc headers.

        Raises:
            MailDeliveryError: the message could not be delivered.
        """
        ...

    async def aclose(self) -> None:
        """Release resources; closing twice is a no-op."""
        ...


class _Secret:
    """Holds a password so that it never shows up in a repr or a traceback's locals."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "'********'"


class SmtpMailer:
    """Sends each message over a new SMTP connection (aiosmtplib).

    Args:
        host: SMTP server name or address.
        port: SMTP port, e.g. 587 (submission with STARTTLS), 465 (TLS) or 25.
        username: login, if the server needs authentication.
        password: password for ``username``.
        starttls: True to require STARTTLS, False to never use it, None (auto) to use it
            when the server offers it. Auto *requires* it when credentials are set, so a
            password never crosses the network in clear text; pass False to allow that
            (a local relay, tests).
        use_tls: connect with implicit TLS (port 465); excludes ``starttls``.
        sender: envelope sender, also used as the From header when a message has none.
        timeout: seconds allowed for each network operation.

    Raises:
        MissingDependencyError: aiosmtplib is not installed.
        ConfigurationError: contradictory TLS options or a password without a username.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        username: str | None = None,
        password: str | None = None,
        starttls: bool | None = None,
        use_tls: bool = False,
        sender: str,
        timeout: float = 10,
    ) -> None:
        try:
            # Imported here, not at module level: the other mailers work without it.
            import aiosmtplib
        except ImportError as exc:
            msg = "SMTP delivery needs aiosmtplib: pip install 'renderkit[server]'"
            raise MissingDependencyError(msg) from exc
        if use_tls and starttls:
            msg = "use_tls and starttls are exclusive: implicit TLS needs no STARTTLS"
            raise ConfigurationError(msg)
        if (username is None) != (password is None):
            msg = "SMTP username and password must be given together"
            raise ConfigurationError(msg)
        if starttls is None and username is not None and not use_tls:
            starttls = True
        self._smtp = aiosmtplib
        self.host = host
        self.port = port
        self.username = username
        self._password = None if password is None else _Secret(password)
        self.starttls = starttls
        self.use_tls = use_tls
        self.sender = sender
        self.timeout = timeout

    def __repr__(self) -> str:
        return (
            f"SmtpMailer(host={self.host!r}, port={self.port!r}, username={self.username!r}, "
            f"starttls={self.starttls!r}, use_tls={self.use_tls!r}, sender={self.sender!r})"
        )

    async def send(self, message: EmailMessage) -> None:
        """See :meth:`Mailer.send`; a From header is added when missing."""
        if message["From"] is None:
            message["From"] = self.sender
        # TLS negotiation is done here rather than by aiosmtplib's automatic mode so that a
        # server without STARTTLS is a clear "tls" failure before any password is sent.
        client = self._smtp.SMTP(
            hostname=self.host,
            port=self.port,
            use_tls=self.use_tls,
            start_tls=False,
            timeout=self.timeout,
        )
        with self._map_errors():
            async with client:
                if not self.use_tls and self.starttls is not False:
                    await client.ehlo()
                    if client.supports_extension("starttls"):
                        await client.starttls()
                    elif self.starttls:
                        msg = "the SMTP server does not offer STARTTLS"
                        raise MailDeliveryError(msg, reason="tls")
                if self.username is not None and self._password is not None:
                    await client.login(self.username, self._password.value)
                await client.send_message(message, sender=self.sender)

    async def aclose(self) -> None:
        """Nothing to release: each message uses its own connection."""

    @contextlib.contextmanager
    def _map_errors(self) -> Iterator[None]:
        smtp = self._smtp
        # Most specific first. Messages are fixed strings: the server's reply stays on the
        # chained exception, so nothing it echoes (or any credential) reaches a client.
        mapping: tuple[tuple[type[BaseException], MailFailure, str], ...] = (
            (smtp.SMTPAuthenticationError, "auth", "the SMTP server refused the credentials"),
            (smtp.SMTPTimeoutError, "timeout", "the SMTP server did not answer in time"),
            (smtp.SMTPConnectError, "connect", "could not connect to the SMTP server"),
            (smtp.SMTPServerDisconnected, "connect", "the SMTP server closed the connection"),
            (smtp.SMTPRecipientsRefused, "refused", "the SMTP server refused the recipients"),
            (smtp.SMTPRecipientRefused, "refused", "the SMTP server refused the recipient"),
            (smtp.SMTPSenderRefused, "refused", "the SMTP server refused the sender"),
            (smtp.SMTPDataError, "refused", "the SMTP server refused the message"),
            (
                smtp.SMTPNotSupported,
                "protocol",
                "the SMTP server does not support a needed command",
            ),
            (TimeoutError, "timeout", "the SMTP server did not answer in time"),
            (ssl.SSLError, "tls", "TLS negotiation with the SMTP server failed"),
            (OSError, "connect", "could not connect to the SMTP server"),
        )
        try:
            yield
        except (smtp.SMTPException, OSError) as exc:
            reason: MailFailure = "protocol"
            msg = "e-mail delivery over SMTP failed"
            for exc_type, candidate, text in mapping:
                if isinstance(exc, exc_type):
                    reason, msg = candidate, text
                    break
            code = getattr(exc, "code", None)
            code = code if isinstance(code, int) else None
            raise MailDeliveryError(msg, reason=reason, code=code) from exc


class OutboxMailer:
    """Writes each message as an RFC 5322 ``.eml`` file instead of sending it.

    Files are written atomically (a temporary file then a rename) with mode 0600, because key
    e-mails hold live credentials; the directory is created with mode 0700 on first use. One
    INFO line per message goes to the ``renderkit_server.mail`` logger with the recipient and
    subject, never the body.

    Args:
        directory: where to write the files.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def __repr__(self) -> str:
        return f"OutboxMailer({str(self.directory)!r})"

    async def send(self, message: EmailMessage) -> None:
        """See :meth:`Mailer.send`.

        Raises:
            MailDeliveryError: the file could not be written (reason ``refused``).
        """
        data = message.as_bytes(policy=email.policy.SMTP)  # CRLF line ends, as RFC 5322 says
        try:
            path = await anyio.to_thread.run_sync(self._write, data)
        except OSError as exc:
            msg = "could not write the e-mail to the outbox"
            raise MailDeliveryError(msg, reason="refused") from exc
        logger.info(
            "e-mail to %s with subject %r written to %s",
            message["To"],
            message["Subject"],
            path.name,
        )

    async def aclose(self) -> None:
        """Nothing to release."""

    def _write(self, data: bytes) -> Path:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%fZ")
        name = f"{stamp}-{secrets.token_hex(4)}.eml"
        target = self.directory / name
        # The leading dot and the suffix keep readers that glob "*.eml" off half-written files.
        tmp = self.directory / f".{name}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return target


class MemoryMailer:
    """Keeps sent messages in :attr:`messages`; a test double."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.closed = False

    async def send(self, message: EmailMessage) -> None:
        """Append ``message`` to :attr:`messages`."""
        self.messages.append(message)

    async def aclose(self) -> None:
        """Mark the mailer closed; messages stay readable."""
        self.closed = True


def key_email(
    issued: IssuedKey,
    *,
    sender: str,
    service_name: str = "renderkit",
    regenerated: bool = False,
) -> EmailMessage:
    """Build the e-mail that gives a user their API key.

    The message has a plain-text body and a simple HTML alternative.

    Args:
        issued: the key just issued or regenerated.
        sender: From address.
        service_name: product name used in the subject and text.
        regenerated: say that the previous key stopped working.

    Returns:
        A message addressed to ``issued.email``, ready for :meth:`Mailer.send`.

    Raises:
        MailDeliveryError: no address is on record for the key, or the address holds an
            RFC 2047 encoded word (a key issued before the address check refused them),
            which the ``To`` header would decode.
    """
    if issued.email is None:
        msg = "no e-mail address is on record for the key"
        raise MailDeliveryError(msg, reason="refused")
    if ENCODED_WORD in issued.email:
        msg = "the address holds an encoded word; it is not written into a header"
        raise MailDeliveryError(msg, reason="refused")
    adjective = "new " if regenerated else ""
    subject = f"Your {adjective}{service_name} API key"
    created = issued.created.strftime("%Y-%m-%d %H:%M UTC")
    paragraphs = [
        f"Here is your {adjective}{service_name} API key for the {issued.plan} plan:",
        issued.key,
        "This e-mail and the response to your request are the only places the key is shown; "
        "it cannot be retrieved later. Keep it secret: anyone holding it can use your plan.",
        f"Send it in the header 'Authorization: Bearer <key>' or 'X-SVC-Key: <key>'. "
        f"Issued {created}.",
    ]
    if regenerated:
        paragraphs.append(
            "Your previous key stopped working when this one was issued. "
            "Replace it wherever you use it."
        )
    paragraphs.append("If you did not ask for this key, you can ignore this e-mail.")

    message = EmailMessage()
    message["From"] = sender
    message["To"] = issued.email
    message["Subject"] = subject
    message["Date"] = email.utils.format_datetime(datetime.datetime.now(datetime.UTC))
    message["Message-ID"] = email.utils.make_msgid(domain=_domain_of(sender))
    message["Auto-Submitted"] = "auto-generated"  # RFC 3834: no out-of-office replies
    text = "\n\n".join(paragraphs) + "\n"
    # 7bit keeps the key on one unbroken line in the raw message (quoted-printable would
    # fold it with "=" soft breaks); keys are far below RFC 5322's 998-character line limit.
    message.set_content(text, cte="7bit" if text.isascii() else None)
    body: list[str] = []
    for index, paragraph in enumerate(paragraphs):
        if index == 1:
            body.append(f"<p><code>{html.escape(paragraph)}</code></p>")
        else:
            body.append(f"<p>{html.escape(paragraph)}</p>")
    message.add_alternative(
        "<!doctype html>\n<html><body>\n" + "\n".join(body) + "\n</body></html>\n",
        subtype="html",
    )
    return message


def _domain_of(address: str) -> str | None:
    _, addr = email.utils.parseaddr(address)
    domain = addr.rpartition("@")[2]
    return domain or None
