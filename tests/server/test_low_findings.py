"""Finding 9's small holes, each refused as a 400 naming its field before any work is done.

IPv6 spellings that embed 127.0.0.1 passed the URL check (the egress proxy stopped them with a
502); ``right/UTC`` failed the capture with a 500; a ``$ref`` cycle deeper than the schema's
root was accepted; and an RFC 2047 encoded word in an e-mail address was decoded into the
``To`` header of the key e-mail.
"""

from __future__ import annotations

import base64
import datetime
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from renderkit.core.schemarefs import ref_cycle
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.keys import IssuedKey
from renderkit_server.mail import MailDeliveryError, MemoryMailer, key_email
from renderkit_server.settings import Settings
from tests.parsing._documents import text_pdf

from .conftest import issue_key

pytestmark = pytest.mark.anyio

_DOCUMENT = base64.b64encode(text_pdf([["INVOICE", "Invoice number: INV-1"]])).decode()


@pytest.fixture
async def client(make_settings: Callable[..., Settings]) -> AsyncIterator[AsyncTestClient]:
    app = create_app(make_settings(), browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as test_client:
        yield test_client


@pytest.fixture
async def strict_client(
    make_settings: Callable[..., Settings], tmp_path: Any
) -> AsyncIterator[AsyncTestClient]:
    """The app with its real Chromium pool and private addresses refused (the URL check
    runs before Chromium is launched)."""
    settings = make_settings(allow_private_urls=False, chromium=str(tmp_path / "no-chromium"))
    async with AsyncTestClient(create_app(settings, mailer=MemoryMailer())) as test_client:
        yield test_client


def _field_of(body: dict[str, Any]) -> str | None:
    if "field" in body:
        return str(body["field"])
    fields = body.get("fields") or []
    return str(fields[0]["field"]) if fields else None


@pytest.mark.parametrize(
    "host",
    [
        "[::ffff:0:127.0.0.1]",  # IPv4-translated (the finding)
        "[::ffff:127.0.0.1]",  # IPv4-mapped
        "[64:ff9b::7f00:1]",  # NAT64 well-known prefix
        "[64:ff9b:1::7f00:1]",  # NAT64 local-use prefix
        "[::127.0.0.1]",  # IPv4-compatible
        "[::ffff:0:a9fe:a9fe]",  # translated cloud metadata
        "[2002:7f00:1::]",  # 6to4
    ],
)
async def test_an_ipv6_spelling_of_a_private_ipv4_address_is_a_400_naming_url(
    strict_client: AsyncTestClient, host: str
) -> None:
    key = await issue_key(strict_client)
    response = await strict_client.post(
        "/api/screenshot", json={"url": f"http://{host}/"}, headers={"X-SVC-Key": key}
    )
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "BLOCKED_URL"
    assert _field_of(response.json()) == "url"


@pytest.mark.parametrize(
    "timezone", ["right/UTC", "posix/Europe/Paris", "localtime", "Factory", "Europe/Nowhere"]
)
async def test_an_unusable_timezone_is_a_400_naming_timezone(
    client: AsyncTestClient, timezone: str
) -> None:
    key = await issue_key(client)
    response = await client.post(
        "/api/screenshot",
        json={"url": "https://example.com/", "timezone": timezone},
        headers={"X-SVC-Key": key},
    )
    assert response.status_code == 400, response.text
    assert _field_of(response.json()) == "timezone"


async def test_a_usual_timezone_is_accepted(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    response = await client.post(
        "/api/screenshot",
        json={"url": "https://example.com/", "timezone": "Europe/Paris"},
        headers={"X-SVC-Key": key},
    )
    assert response.status_code == 200, response.text


CYCLES = {
    "a property referring to itself": {
        "type": "object",
        "properties": {"total": {"$ref": "#/properties/total"}},
    },
    "two definitions referring to each other": {
        "type": "object",
        "properties": {"total": {"$ref": "#/$defs/a"}},
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}},
    },
    "an unused definition looping through not": {
        "type": "object",
        "properties": {"total": {"type": "number"}},
        "$defs": {"loop": {"not": {"$ref": "#/$defs/loop"}}},
    },
}


@pytest.mark.parametrize("name", list(CYCLES))
async def test_a_ref_cycle_in_a_parse_schema_is_a_400_naming_schema(
    client: AsyncTestClient, name: str
) -> None:
    key = await issue_key(client)
    response = await client.post(
        "/api/parse",
        json={"file": _DOCUMENT, "mimeType": "application/pdf", "schema": CYCLES[name]},
        headers={"X-SVC-Key": key},
    )
    assert response.status_code == 400, response.text
    assert _field_of(response.json()) == "schema"
    assert "$ref cycle" in response.json()["error"]


def test_a_recursive_schema_that_descends_into_the_value_is_no_cycle() -> None:
    tree = {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/node"}},
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
            }
        },
    }
    assert ref_cycle(tree) is None
    assert ref_cycle({"properties": {"a": {"$ref": "#"}}}) is None
    assert ref_cycle({"$ref": "#"}) == "#"


@pytest.mark.parametrize(
    "email",
    [
        "=?utf-8?q?evil=40attacker.example=2C_?=@example.com",
        "a=?utf-8?b?ZXZpbEBhdHRhY2tlci5leGFtcGxl?=@example.com",
    ],
)
async def test_an_encoded_word_in_an_email_address_is_a_400_naming_email(
    client: AsyncTestClient, email: str
) -> None:
    response = await client.post("/api/keys/generate", json={"email": email})
    assert response.status_code == 400, response.text
    assert _field_of(response.json()) == "email"


def test_a_key_email_is_never_built_for_an_address_with_an_encoded_word() -> None:
    issued = IssuedKey(
        key="rk_test",
        key_id="id",
        email="=?utf-8?q?evil=40attacker.example=2C_?=@example.com",
        plan="starter",
        created=datetime.datetime.now(datetime.UTC),
    )
    with pytest.raises(MailDeliveryError) as raised:
        key_email(issued, sender="keys@example.com")
    assert raised.value.reason == "refused"
