"""One delivery attempt: sign, resolve and check the address, POST, and record what happened.

Nothing the receiver does can hold the sender longer than ``timeout`` (the whole attempt,
resolution to the last byte read, not each socket operation), make it follow a redirect, or
make it read more than :data:`_READ_LIMIT` bytes of the answer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from datetime import datetime

import httpx

from renderkit import BlockedUrlError
from renderkit.core.netpolicy import IPAddress, UrlPolicy
from renderkit_server.state.webhook_outbox import Attempt, Delivery
from renderkit_server.webhooks.egress import FIELD, pinned_request
from renderkit_server.webhooks.signing import signature_headers

__all__ = ["EXCERPT_CHARS", "USER_AGENT", "new_client", "send"]

#: The longest excerpt of a receiver's answer kept with an attempt.
EXCERPT_CHARS = 200
#: The most of a receiver's answer read (the excerpt is cut from it).
_READ_LIMIT = 1024
USER_AGENT = "renderkit-webhooks/1"


def new_client(transport: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    """The client deliveries are sent with.

    No redirects (a 3xx is a failed attempt: following one would reach an address nobody
    checked), no proxy or certificate settings from the environment (a proxy would resolve
    the name itself), and no kept-alive connections: a connection is opened to a checked
    address under one TLS server name, and must not serve another host sharing the address.
    """
    return httpx.AsyncClient(
        follow_redirects=False,
        trust_env=False,
        limits=httpx.Limits(max_keepalive_connections=0),
        transport=transport,
    )


async def send(
    client: httpx.AsyncClient,
    delivery: Delivery,
    keys: Sequence[bytes],
    *,
    policy: UrlPolicy,
    timeout: float,
    at: datetime,
) -> Attempt:
    """Try ``delivery`` once, signed with ``keys``, starting at ``at``; never raises for
    anything the network or the receiver does.

    Args:
        client: from :func:`new_client`.
        delivery: what to send.
        keys: the lineage's signing secrets, current first.
        policy: the egress policy the resolved address must pass.
        timeout: seconds for the whole attempt.
        at: now (aware UTC): the ``webhook-timestamp`` and the attempt's time.
    """
    body = delivery.body.encode()
    headers = {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        # The excerpt is read raw: a compressed answer could inflate far past the limit.
        "accept-encoding": "identity",
        **signature_headers(keys, delivery.id, int(at.timestamp()), body),
    }
    started = time.perf_counter()
    status: int | None = None
    excerpt = ""
    error: str | None = None
    try:
        async with asyncio.timeout(timeout):
            addresses = await policy.resolve(delivery.url, field=FIELD)
            response = await _post(client, delivery.url, addresses, body, headers, timeout)
            try:
                status = response.status_code
                excerpt = await _excerpt(response)
            finally:
                await response.aclose()
    except BlockedUrlError:
        error = "blocked_url"
    except (TimeoutError, httpx.TimeoutException):
        error = "timeout"
    except httpx.HTTPError as exc:
        # The class only: messages can quote addresses the key holder did not choose.
        error = type(exc).__name__
    except (httpx.InvalidURL, ValueError):
        error = "invalid_url"  # written without check_webhook_url, and not a URL
    if error is None and status is not None and not 200 <= status < 300:
        error = "redirect" if 300 <= status < 400 else "http_status"
    return Attempt(
        at=at,
        seconds=round(time.perf_counter() - started, 4),
        status=status,
        error=error,
        excerpt=excerpt,
    )


async def _post(
    client: httpx.AsyncClient,
    url: str,
    addresses: Sequence[IPAddress],
    body: bytes,
    headers: dict[str, str],
    timeout: float,
) -> httpx.Response:
    # Each checked address in turn until one accepts the connection (a name can have an
    # IPv6 address the receiver does not listen on); never one that was not checked.
    for address in addresses[:-1]:
        try:
            return await _send(client, url, address, body, headers, timeout)
        except httpx.ConnectError:
            continue
    return await _send(client, url, addresses[-1], body, headers, timeout)


async def _send(
    client: httpx.AsyncClient,
    url: str,
    address: IPAddress,
    body: bytes,
    headers: dict[str, str],
    timeout: float,
) -> httpx.Response:
    request = pinned_request(client, url, address, body=body, headers=headers)
    request.extensions["timeout"] = httpx.Timeout(timeout).as_dict()
    return await client.send(request, stream=True)


async def _excerpt(response: httpx.Response) -> str:
    read = bytearray()
    async for chunk in response.aiter_raw():
        read += chunk
        if len(read) >= _READ_LIMIT:
            break
    text = bytes(read[:_READ_LIMIT]).decode("utf-8", errors="replace")
    return text[:EXCERPT_CHARS]
