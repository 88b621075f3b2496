"""Keys without personal data over HTTP: old keys authenticate, regeneration mails the owner."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser
from renderkit_server import signing
from renderkit_server.app import create_app
from renderkit_server.dependencies import services_of
from renderkit_server.keys import KEY_PREFIX, ApiKey, KeySigner
from renderkit_server.keys.tokens import SIGNING_PURPOSE
from renderkit_server.settings import Settings
from tests.server._smtp import SmtpServer, serve_smtp

from .v1keys import sign_v1

pytestmark = pytest.mark.anyio

OWNER = "grace.hopper@navy.example"
LINEAGE = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"


@pytest.fixture
def smtp_server() -> Iterator[SmtpServer]:
    with serve_smtp() as server:
        yield server


@pytest.fixture
def make_app(
    make_settings: Callable[..., Settings], smtp_server: SmtpServer
) -> Callable[..., Litestar]:
    """An app e-mailing keys through the real SMTP server."""

    def make(**overrides: Any) -> Litestar:
        settings = make_settings(
            smtp_host=smtp_server.host, smtp_port=smtp_server.port, smtp_tls=False, **overrides
        )
        return create_app(settings, browser=FakeBrowser())

    return make


def v1_key(settings: Settings, *, plan: str = "starter") -> str:
    """A key in the version 1 layout (with the owner's e-mail) signed by the app's secret."""
    secrets, kid = signing.key_ring(settings.resolved_secret(), SIGNING_PURPOSE)
    claims = ApiKey(key_id=LINEAGE, plan=plan, generation=0, issued_at=1_750_000_000, kid=kid)
    return sign_v1(claims, email=OWNER, kid=kid, secret=secrets[kid])


def payload(key: str) -> bytes:
    text = key.removeprefix(KEY_PREFIX).partition(".")[0]
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


async def test_an_old_key_with_an_email_still_authenticates_over_http(
    make_app: Callable[..., Litestar], make_settings: Callable[..., Settings]
) -> None:
    key = v1_key(make_settings())
    assert OWNER.encode() in payload(key)  # the old layout really carries the address

    async with AsyncTestClient(make_app()) as client:
        usage = await client.get("/api/usage", headers={"Authorization": f"Bearer {key}"})
        image = await client.post(
            "/api/image",
            json={"template": "og-card", "data": {"title": "Hi"}},
            headers={"X-SVC-Key": key},
        )

    assert usage.status_code == 200, usage.text
    assert usage.json()["plan"] == "starter"
    assert image.status_code == 200, image.text


async def test_regenerating_an_old_key_mails_a_key_without_email_to_the_owner(
    make_app: Callable[..., Litestar],
    make_settings: Callable[..., Settings],
    smtp_server: SmtpServer,
) -> None:
    old = v1_key(make_settings())
    async with AsyncTestClient(make_app()) as client:
        response = await client.post("/api/keys/regenerate", json={"key": old})
        new = response.json()["key"]
        assert response.status_code == 200, response.text
        assert response.json()["email"] == OWNER
        assert (await client.get("/api/usage", headers={"X-SVC-Key": new})).status_code == 200
        assert (await client.get("/api/usage", headers={"X-SVC-Key": old})).status_code == 401

    assert payload(new)[0] == 2
    assert OWNER.encode() not in payload(new) and b"hopper" not in payload(new)
    [envelope] = smtp_server.handler.envelopes
    assert envelope.rcpt_tos == [OWNER]
    [message] = smtp_server.handler.messages()
    assert message["To"] == OWNER
    assert new in message.get_body(("plain",)).get_content()  # type: ignore[union-attr]


async def test_a_new_keys_regeneration_is_mailed_to_the_owner_on_record(
    make_app: Callable[..., Litestar], smtp_server: SmtpServer
) -> None:
    async with AsyncTestClient(make_app()) as client:
        issued = (await client.post("/api/keys/generate", json={"email": OWNER})).json()
        assert OWNER.encode() not in payload(issued["key"])
        response = await client.post("/api/keys/regenerate", headers={"X-SVC-Key": issued["key"]})

    assert response.status_code == 200, response.text
    assert response.json()["email"] == OWNER
    assert [e.rcpt_tos for e in smtp_server.handler.envelopes] == [[OWNER], [OWNER]]
    assert response.json()["key"] in smtp_server.handler.messages()[1].as_string()


async def test_the_mailbox_limit_applies_to_regenerations_of_old_and_new_keys(
    make_app: Callable[..., Litestar],
    make_settings: Callable[..., Settings],
    smtp_server: SmtpServer,
) -> None:
    async with AsyncTestClient(make_app(key_mail_per_day=2)) as client:
        first = await client.post("/api/keys/regenerate", json={"key": v1_key(make_settings())})
        second = await client.post("/api/keys/regenerate", json={"key": first.json()["key"]})
        refused = await client.post("/api/keys/regenerate", json={"key": second.json()["key"]})
        still_valid = await client.get("/api/usage", headers={"X-SVC-Key": second.json()["key"]})

    assert (first.status_code, second.status_code) == (200, 200)
    assert payload(second.json()["key"])[0] == 2  # a version 2 key, mailed from the record
    assert refused.status_code == 429 and refused.json()["code"] == "RATE_LIMITED"
    assert "e-mails to this address" in refused.json()["error"]
    assert still_valid.status_code == 200  # the refused call regenerated nothing
    assert len(smtp_server.handler.envelopes) == 2


async def test_a_key_whose_owner_was_erased_regenerates_but_is_mailed_to_no_one(
    make_app: Callable[..., Litestar], smtp_server: SmtpServer
) -> None:
    app = make_app()
    async with AsyncTestClient(app) as client:
        issued = (await client.post("/api/keys/generate", json={"email": OWNER})).json()
        key_id = services_of(app.state).keys.verify(issued["key"]).key_id
        await services_of(app.state).state.key_owners.delete(key_id)

        response = await client.post("/api/keys/regenerate", json={"key": issued["key"]})
        usage = await client.get("/api/usage", headers={"X-SVC-Key": response.json()["key"]})

    assert response.status_code == 200, response.text
    assert response.json()["email"] is None
    assert usage.status_code == 200
    assert len(smtp_server.handler.envelopes) == 1  # the first key's e-mail only


async def test_the_owner_record_survives_a_restart_on_the_default_sqlite_store(
    make_app: Callable[..., Litestar], smtp_server: SmtpServer
) -> None:
    async with AsyncTestClient(make_app()) as client:
        key = (await client.post("/api/keys/generate", json={"email": OWNER})).json()["key"]
    async with AsyncTestClient(make_app()) as restarted:
        response = await restarted.post("/api/keys/regenerate", json={"key": key})

    assert response.json()["email"] == OWNER
    assert [e.rcpt_tos for e in smtp_server.handler.envelopes] == [[OWNER], [OWNER]]


def test_a_signer_never_writes_an_email_into_a_key() -> None:
    signer = KeySigner({"a": b"s" * 32}, "a")
    claims = ApiKey(key_id=LINEAGE, plan="pro", email=OWNER, generation=0, issued_at=1, kid="a")

    assert OWNER.encode() not in payload(signer.sign(claims))
