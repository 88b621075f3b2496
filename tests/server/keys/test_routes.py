"""The key routes over HTTP: abuse limits, the client address, and counting only issued keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from litestar.types import ASGIApp, Receive, Scope, Send

from renderkit import ConfigurationError
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from ..conftest import ADMIN

pytestmark = pytest.mark.anyio

Peer = dict[str, str]


def with_peer(app: ASGIApp, peer: Peer) -> ASGIApp:
    """Serve ``app`` as if every connection came from ``peer["host"]`` (mutable)."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope = {**scope, "client": (peer["host"], 40000)}  # type: ignore[typeddict-item]
        await app(scope, receive, send)

    return wrapped


@pytest.fixture
def peer() -> Peer:
    return {"host": "203.0.113.10"}


@pytest.fixture
def open_client(
    make_settings: Callable[..., Settings], mailer: MemoryMailer, peer: Peer
) -> Callable[..., Any]:
    def open_(**overrides: Any) -> AsyncTestClient[Any]:
        app = create_app(make_settings(**overrides), browser=FakeBrowser(), mailer=mailer)
        return AsyncTestClient(with_peer(app, peer))  # type: ignore[arg-type]

    return open_


def assert_rate_limited(response: Any, metric_message: str) -> None:
    assert response.status_code == 429, response.text
    body = response.json()
    assert body["code"] == "RATE_LIMITED" and body["status"] == 429
    assert metric_message in body["error"]
    retry_after = response.headers["retry-after"]
    assert int(retry_after) >= 1
    assert body["retry_at"].endswith("Z")
    # An abuse limit is a window limit: RateLimit says it is spent, X-RateLimit (the monthly
    # quota) is absent.
    assert response.headers["ratelimit"].endswith(f";r=0;t={retry_after}")
    assert "x-ratelimit-limit" not in response.headers


async def generate(client: AsyncTestClient[Any], email: str, **headers: str) -> Any:
    return await client.post("/api/keys/generate", json={"email": email}, headers=headers)


async def test_requests_refused_with_400_use_no_issuance_slot(
    open_client: Callable[..., AsyncTestClient[Any]],
) -> None:
    async with open_client(key_issue_per_hour=2) as client:
        for _ in range(5):
            bad = await generate(client, "not-an-email")
            assert bad.status_code == 400
            gold = await client.post(
                "/api/keys/generate", json={"email": "a@b.io", "plan": 3}, headers={}
            )
            assert gold.status_code in (400, 403)
        codes = [(await generate(client, f"u{i}@x.io")).status_code for i in range(3)]
    assert codes == [200, 200, 429]


async def test_forwarded_for_from_an_untrusted_peer_cannot_rotate_the_issuance_address(
    open_client: Callable[..., AsyncTestClient[Any]],
) -> None:
    async with open_client(key_issue_per_hour=2) as client:
        codes = [
            (
                await client.post(
                    "/api/keys/generate",
                    json={"email": f"u{i}@x.io"},
                    headers={"X-Forwarded-For": f"198.51.100.{i}"},
                )
            ).status_code
            for i in range(3)
        ]
    assert codes == [200, 200, 429]


async def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_issuance_limit(
    open_client: Callable[..., AsyncTestClient[Any]], peer: Peer
) -> None:
    peer["host"] = "10.1.2.3"
    async with open_client(key_issue_per_hour=1, trusted_proxies=("10.0.0.0/8",)) as client:

        async def as_client(address: str, email: str, spoof: str = "6.6.6.6") -> int:
            headers = {"X-Forwarded-For": f"{spoof}, {address}"}
            response = await client.post(
                "/api/keys/generate", json={"email": email}, headers=headers
            )
            return response.status_code

        # The left-most (client-written) entry changes every time and is ignored.
        assert await as_client("198.51.100.1", "a@x.io", spoof="1.1.1.1") == 200
        assert await as_client("198.51.100.1", "b@x.io", spoof="2.2.2.2") == 429
        assert await as_client("198.51.100.2", "c@x.io") == 200


async def test_the_deprecated_trust_forwarded_for_trusts_loopback_and_private_proxies(
    open_client: Callable[..., AsyncTestClient[Any]], peer: Peer
) -> None:
    peer["host"] = "127.0.0.1"
    async with open_client(key_issue_per_hour=1, trust_forwarded_for=True) as client:
        first = await generate(client, "a@x.io", **{"X-Forwarded-For": "198.51.100.1"})
        second = await generate(client, "b@x.io", **{"X-Forwarded-For": "198.51.100.2"})
        again = await generate(client, "c@x.io", **{"X-Forwarded-For": "9.9.9.9, 198.51.100.2"})
    assert (first.status_code, second.status_code, again.status_code) == (200, 200, 429)


async def test_regenerate_is_limited_per_key_and_the_refused_call_changes_nothing(
    open_client: Callable[..., AsyncTestClient[Any]], mailer: MemoryMailer
) -> None:
    async with open_client(key_regenerate_per_hour=3) as client:
        key = (await generate(client, "owner@x.io")).json()["key"]
        for _ in range(3):
            response = await client.post("/api/keys/regenerate", json={"key": key})
            assert response.status_code == 200, response.text
            key = response.json()["key"]
        sent = len(mailer.messages)
        refused = await client.post("/api/keys/regenerate", json={"key": key})
        assert_rate_limited(refused, "regenerated too often")
        assert len(mailer.messages) == sent
        # The key refused a rotation still works, and is still the one to rotate.
        image = {"template": "og-card", "data": {"title": "still works"}}
        used = await client.post("/api/image", json=image, headers={"X-SVC-Key": key})
        assert used.status_code == 200, used.text
        invalid = await client.post("/api/keys/regenerate", json={"key": key + "x"})
        assert invalid.status_code == 401


async def test_regenerate_is_limited_per_client_address_across_keys(
    open_client: Callable[..., AsyncTestClient[Any]],
) -> None:
    async with open_client(key_regenerate_per_address_per_hour=2) as client:
        keys = [(await generate(client, f"o{i}@x.io")).json()["key"] for i in range(3)]
        codes = []
        for key in keys:
            response = await client.post("/api/keys/regenerate", headers={"X-SVC-Key": key})
            codes.append(response.status_code)
        assert codes == [200, 200, 429]
        assert_rate_limited(
            await client.post("/api/keys/regenerate", headers={"X-SVC-Key": keys[2]}),
            "from this client",
        )


async def test_an_invalid_key_is_401_and_uses_no_regeneration_slot(
    open_client: Callable[..., AsyncTestClient[Any]],
) -> None:
    async with open_client(key_regenerate_per_address_per_hour=1) as client:
        for _ in range(3):
            bad = await client.post("/api/keys/regenerate", json={"key": "sk_live_nope.nope"})
            assert bad.status_code == 401
        key = (await generate(client, "o@x.io")).json()["key"]
        ok = await client.post("/api/keys/regenerate", json={"key": key})
    assert ok.status_code == 200


async def test_one_mailbox_gets_a_bounded_number_of_key_emails_from_many_addresses(
    open_client: Callable[..., AsyncTestClient[Any]], mailer: MemoryMailer, peer: Peer
) -> None:
    async with open_client(key_mail_per_hour=2) as client:
        codes = []
        for i, spelling in enumerate(["victim@x.io", "Victim@X.io", "victim+1@x.io"]):
            peer["host"] = f"203.0.113.{i + 1}"  # a new address each time: no issuance limit
            codes.append((await generate(client, spelling)).status_code)
        assert codes == [200, 200, 429]
        peer["host"] = "203.0.113.50"
        assert_rate_limited(await generate(client, "victim@x.io"), "e-mails to this address")
        assert (await generate(client, "someone-else@x.io")).status_code == 200
    assert [m["To"] for m in mailer.messages] == [
        "victim@x.io",
        "Victim@x.io",
        "someone-else@x.io",
    ]


async def test_regenerate_counts_against_the_owners_mailbox(
    open_client: Callable[..., AsyncTestClient[Any]],
) -> None:
    async with open_client(key_mail_per_day=2) as client:
        key = (await generate(client, "owner@x.io")).json()["key"]
        key = (await client.post("/api/keys/regenerate", json={"key": key})).json()["key"]
        refused = await client.post("/api/keys/regenerate", json={"key": key})
        assert_rate_limited(refused, "e-mails to this address")


async def test_the_admin_token_bypasses_issuance_and_mail_limits(
    open_client: Callable[..., AsyncTestClient[Any]],
) -> None:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    async with open_client(key_issue_per_hour=1, key_mail_per_hour=1) as client:
        codes = [(await generate(client, "same@x.io", **admin)).status_code for _ in range(3)]
    assert codes == [200, 200, 200]


def test_an_invalid_trusted_proxy_setting_is_refused_when_settings_are_read() -> None:
    with pytest.raises(ConfigurationError):
        Settings.from_env({"RENDERKIT_TRUSTED_PROXIES": "10.0.0.0/8, not-a-network"})
    parsed = Settings.from_env({"RENDERKIT_TRUSTED_PROXIES": "10.0.0.0/8, 2001:db8::/32"})
    assert parsed.trusted_proxies == ("10.0.0.0/8", "2001:db8::/32")
