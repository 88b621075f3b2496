"""pdf-ops ``sign`` on a server: the operator's PKCS#12 file signs (users never send keys),
a server without one refuses ``sign`` with 400 naming it and charges nothing, and the
passphrase is never in a log line, an error body or a start-up error."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from renderkit import ConfigurationError
from renderkit.pdfops import Signer
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.mcp.protocol import LATEST_VERSION
from renderkit_server.mcp.tools import tool_definitions
from renderkit_server.services import build_services, signer
from renderkit_server.settings import Settings

from .._uvicorn import served_app
from ..pdfops._certs import Credentials, make_credentials
from ..pdfops._pdfs import b64, page_texts
from ..pdfops._verify import pades_level, validate
from ..pdfops.test_pdf_ops import THREE
from .conftest import issue_key

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def credentials() -> Credentials:
    return make_credentials(passphrase="operator-only-passphrase-7f3a")


@pytest.fixture
def p12_files(tmp_path: Path, credentials: Credentials) -> dict[str, Path]:
    archive = tmp_path / "signer.p12"
    archive.write_bytes(credentials.p12)
    password = tmp_path / "signer.pass"
    password.write_text(credentials.passphrase + "\n")  # as `echo` writes it
    return {"signing_p12_file": archive, "signing_p12_password_file": password}


async def _pdfs_used(client: httpx.AsyncClient, key: str) -> tuple[int, int]:
    metrics = (await client.get("/api/usage", headers={"X-SVC-Key": key})).json()["metrics"]
    return metrics["pdfs"]["used"], metrics["pdfs"]["in_flight"]


async def test_the_operators_p12_signs_a_pdf_ops_result_charged_as_one_pdf(
    make_settings: Callable[..., Settings],
    p12_files: dict[str, Path],
    credentials: Credentials,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    app = create_app(make_settings(**p12_files), browser=FakeBrowser(), mailer=MemoryMailer())
    async with served_app(app) as client:
        key = await issue_key(client, email="signer@example.com")
        headers = {"X-SVC-Key": key}
        body = {
            "files": [{"file": b64(THREE)}],
            "page_numbers": {},
            "sign": {"reason": "Issued by renderkit", "location": "Berlin"},
        }
        done = await client.post("/api/pdf-ops", json=body, headers=headers)
        assert done.status_code == 200, done.text
        answer = done.json()
        assert answer["steps"] == ["page_numbers", "sign"]
        assert answer["signed"] is True and answer["signature_level"] == "B-B"
        assert answer["credits_used"] == 1
        assert await _pdfs_used(client, key) == (1, 0)
        stored = (await client.get(answer["url"])).content
        assert "Page 2 of 3" in page_texts(stored)[1]
        [checked] = await validate(stored, credentials)
        assert checked.status.bottom_line and checked.status.trusted
        assert pades_level(checked.signature) == "B-B"

        unsigned = await client.post(
            "/api/pdf-ops", json={"files": [{"file": b64(THREE)}]}, headers=headers
        )
        assert unsigned.json()["signed"] is False
        assert "signature_level" not in unsigned.json()
        refused = await client.post(
            "/api/pdf-ops",
            json={"files": [{"file": b64(THREE)}], "sign": {"field_name": "a.b"}},
            headers=headers,
        )
        assert refused.status_code == 400
        assert credentials.passphrase not in refused.text
    assert credentials.passphrase not in caplog.text


async def test_a_server_without_a_signing_certificate_refuses_sign_with_400_and_charges_nothing(
    make_settings: Callable[..., Settings],
) -> None:
    app = create_app(make_settings(), browser=FakeBrowser(), mailer=MemoryMailer())
    async with served_app(app) as client:
        key = await issue_key(client, email="signer@example.com")
        headers = {"X-SVC-Key": key}
        body = {"files": [{"file": b64(THREE)}], "sign": {}}
        refused = await client.post("/api/pdf-ops", json=body, headers=headers)
        assert refused.status_code == 400, refused.text
        problem = refused.json()
        assert [error["field"] for error in problem["fields"]] == ["sign"]
        assert "signing is not enabled" in problem["fields"][0]["message"]
        # A job is validated as the endpoint would: refused at submission, nothing queued.
        job = await client.post(
            "/api/jobs", json={"kind": "pdf-ops", "request": body}, headers=headers
        )
        assert job.status_code == 400, job.text
        assert await _pdfs_used(client, key) == (0, 0)


async def test_a_wrong_passphrase_stops_the_server_without_showing_the_passphrase(
    make_settings: Callable[..., Settings],
    p12_files: dict[str, Path],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = "wrong-passphrase-c0ffee"
    p12_files["signing_p12_password_file"].write_text(wrong)
    settings = make_settings(**p12_files)
    with pytest.raises(ConfigurationError) as caught:
        signer(settings)
    assert "RENDERKIT_SIGNING_P12_FILE" in str(caught.value)
    assert wrong not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    with pytest.raises(ConfigurationError):  # the lifespan's start: before anything starts
        await build_services(settings, browser=FakeBrowser(), mailer=MemoryMailer())
    assert wrong not in caplog.text


async def test_signing_is_configured_from_the_environment_with_the_passphrase_in_a_file(
    p12_files: dict[str, Path], tmp_path: Path
) -> None:
    environ = {
        "RENDERKIT_DATA_DIR": str(tmp_path / "data"),
        "RENDERKIT_SIGNING_P12_FILE": str(p12_files["signing_p12_file"]),
        "RENDERKIT_SIGNING_P12_PASSWORD_FILE": str(p12_files["signing_p12_password_file"]),
        "RENDERKIT_SIGNING_TIMESTAMP_URL": "https://tsa.example/tsr",
    }
    settings = Settings.from_env(environ)
    loaded = signer(settings)
    assert isinstance(loaded, Signer) and loaded.level == "B-T"
    assert "renderkit test signer" in loaded.subject
    assert signer(Settings.from_env({"RENDERKIT_DATA_DIR": str(tmp_path)})) is None


async def test_a_password_file_without_a_p12_file_is_a_configuration_error(
    make_settings: Callable[..., Settings], p12_files: dict[str, Path]
) -> None:
    password_only = {"signing_p12_password_file": p12_files["signing_p12_password_file"]}
    with pytest.raises(ConfigurationError):
        signer(make_settings(**password_only))
    with pytest.raises(ConfigurationError):
        signer(make_settings(signing_p12_file=p12_files["signing_p12_file"].with_name("none")))


async def test_the_edit_pdf_tool_offers_sign_with_its_fields_and_no_key_material() -> None:
    [edit] = [tool for tool in tool_definitions(LATEST_VERSION) if tool["name"] == "edit_pdf"]
    schema = edit["inputSchema"]
    sign = schema["properties"]["sign"]
    found = sign if "properties" in sign else _resolve(schema, sign)
    assert set(found["properties"]) == {"reason", "location", "contact_info", "field_name"}
    assert "sign" in edit["description"]


def _resolve(schema: dict[str, object], node: dict[str, object]) -> dict[str, object]:
    """The object schema behind ``node`` (a ``$ref`` or an ``anyOf`` with null)."""
    for option in node.get("anyOf", [node]):  # type: ignore[attr-defined]
        if "$ref" in option:
            name = option["$ref"].rsplit("/", 1)[-1]
            return schema["$defs"][name]  # type: ignore[index,no-any-return]
        if "properties" in option:
            return option  # type: ignore[no-any-return]
    raise AssertionError(node)


async def test_the_passphrase_is_not_in_the_settings_repr(
    make_settings: Callable[..., Settings], p12_files: dict[str, Path], credentials: Credentials
) -> None:
    settings = make_settings(**p12_files)
    assert credentials.passphrase not in repr(settings)
    loaded = signer(settings)
    assert loaded is not None and credentials.passphrase not in repr(loaded)
