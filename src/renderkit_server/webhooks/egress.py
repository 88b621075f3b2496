"""Where a webhook may go: the screenshots' network policy, checked twice.

At submit time :func:`check_webhook_url` refuses what can never be delivered (a scheme
other than http(s), credentials in the URL, a host that is or resolves to a private,
loopback or link-local address), naming ``webhook_url``. At delivery time the sender
resolves the host again through the same :class:`~renderkit.core.netpolicy.UrlPolicy` and
connects to the very address it checked (:func:`pinned_request`): a name that resolved to a
public address when the job was submitted and to ``127.0.0.1`` now is refused (DNS
rebinding).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx

from renderkit import BlockedUrlError, InvalidRequestError
from renderkit.core.netpolicy import IPAddress, UrlPolicy

__all__ = ["FIELD", "MAX_URL_CHARS", "check_webhook_url", "pinned_request", "webhook_policy"]

#: The request field a webhook URL comes in, named by every refusal.
FIELD = "webhook_url"
#: The longest webhook URL accepted.
MAX_URL_CHARS = 2048

# Names the operator's switches: the key holder cannot change the policy, only learn why.
_PRIVATE = (
    "private, loopback and link-local addresses are not allowed "
    "(the operator allows them with RENDERKIT_ALLOW_NETWORKS or RENDERKIT_ALLOW_PRIVATE_URLS)"
)


def webhook_policy(*, allow_private: bool, allow_networks: tuple[str, ...]) -> UrlPolicy:
    """The policy of webhook URLs: the browser's, from the same two settings."""
    return UrlPolicy(allow_private=allow_private, allow_networks=allow_networks)


def _refuse(message: str) -> InvalidRequestError:
    return InvalidRequestError.single(FIELD, message)


async def check_webhook_url(url: object, policy: UrlPolicy) -> str:
    """``url`` if webhooks may be delivered to it, for a job's ``webhook_url`` at submit time.

    Args:
        url: what the request sent.
        policy: the server's egress policy (:func:`webhook_policy`).

    Returns:
        The URL, surrounding whitespace removed.

    Raises:
        InvalidRequestError: naming ``webhook_url``: not a string, too long, not http(s),
            with a user name or password, or a host the policy refuses or that does not
            resolve.
    """
    if not isinstance(url, str) or not url.strip():
        raise _refuse("must be an http(s) URL")
    url = url.strip()
    if len(url) > MAX_URL_CHARS:
        msg = f"must be at most {MAX_URL_CHARS} characters"
        raise _refuse(msg)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError:
        raise _refuse("is not a valid URL") from None
    if parts.scheme not in ("http", "https"):
        raise _refuse("must be an http(s) URL")
    if parts.username is not None or parts.password is not None:
        # Credentials would be stored with the job and shown back with its deliveries.
        raise _refuse("must not carry a user name or password (sign with the webhook secret)")
    try:
        await policy.check(url, field=FIELD)
    except BlockedUrlError as exc:
        raise _refuse(_PRIVATE if exc.private else str(exc)) from None
    return url


def pinned_request(
    client: httpx.AsyncClient,
    url: str,
    address: IPAddress,
    *,
    body: bytes,
    headers: dict[str, str],
) -> httpx.Request:
    """A POST of ``body`` to ``url`` that connects to ``address`` (already checked), never to
    a fresh resolution of the host.

    The URL's host becomes the address; the ``Host`` header keeps the name, and for https the
    TLS server name (SNI and the certificate check) stays the name too, so the receiver and
    its certificate see an ordinary request.
    """
    target = httpx.URL(url)
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    return client.build_request(
        "POST",
        target.copy_with(host=str(address)),
        content=body,
        headers={"host": target.netloc.decode("ascii"), **headers},
        extensions=extensions,
    )
