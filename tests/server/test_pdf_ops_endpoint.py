"""POST /api/pdf-ops on a real uvicorn on 127.0.0.1: the file is stored like other PDFs, the
call is charged once, and hostile uploads are 4xx with nothing charged."""

from __future__ import annotations

import io
from collections.abc import Callable

import httpx
import pikepdf
import pytest

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from .._uvicorn import served_app
from ..pdfops._pdfs import b64, page_texts
from ..pdfops.test_pdf_ops import THREE, TWO, hostile_inputs
from .conftest import issue_key

pytestmark = pytest.mark.anyio


async def _used(client: httpx.AsyncClient, key: str) -> dict[str, int]:
    metrics = (await client.get("/api/usage", headers={"X-SVC-Key": key})).json()["metrics"]
    return {name: (m["used"], m["in_flight"]) for name, m in metrics.items()}


async def test_pdf_ops_over_http_stores_the_pdf_charges_one_pdf_and_refuses_hostile_uploads(
    make_settings: Callable[..., Settings],
) -> None:
    app = create_app(make_settings(), browser=FakeBrowser(), mailer=MemoryMailer())
    async with served_app(app) as client:
        key = await issue_key(client, email="ops@example.com")
        headers = {"X-SVC-Key": key}
        before = await _used(client, key)
        for name, content in hostile_inputs().items():
            body = {
                "files": [{"file": b64(THREE)}, {"file": b64(content)}],
                "watermark": {"text": "X"},
            }
            response = await client.post("/api/pdf-ops", json=body, headers=headers)
            assert 400 <= response.status_code < 500, (name, response.text)
            assert response.json()["status"] == response.status_code
        assert await _used(client, key) == before  # refused work is free

        body = {
            "files": [{"file": b64(THREE)}, {"file": b64(TWO)}],
            "watermark": {"text": "DRAFT"},
            "encrypt": {"owner_password": "owner-secret", "user_password": "pw"},
        }
        done = await client.post("/v1/pdf-ops", json=body, headers=headers)
        assert done.status_code == 200, done.text
        answer = done.json()
        assert answer["pages"] == 5 and answer["encrypted"] is True
        assert answer["steps"] == ["merge", "watermark", "encrypt"]
        assert answer["credits_used"] == 1
        stored = await client.get(answer["url"])
        assert stored.status_code == 200
        assert stored.headers["content-type"].startswith("application/pdf")
        with pytest.raises(pikepdf.PasswordError):
            pikepdf.open(io.BytesIO(stored.content))
        texts = page_texts(stored.content, password="pw")
        assert len(texts) == 5 and all("DRAFT" in text for text in texts)
        after = await _used(client, key)
        assert after["pdfs"][0] == before["pdfs"][0] + 1 and after["pdfs"][1] == 0


async def test_a_split_is_answered_as_a_zip_of_the_parts(
    make_settings: Callable[..., Settings],
) -> None:
    app = create_app(make_settings(), browser=FakeBrowser(), mailer=MemoryMailer())
    async with served_app(app) as client:
        key = await issue_key(client, email="ops@example.com")
        body = {"files": [{"file": b64(THREE)}], "split": ["1", "2-3"]}
        done = await client.post("/api/pdf-ops", json=body, headers={"X-SVC-Key": key})
        assert done.status_code == 200, done.text
        answer = done.json()
        assert answer["format"] == "zip"
        assert [part["pages"] for part in answer["parts"]] == [1, 2]
        stored = await client.get(answer["url"])
        assert stored.headers["content-type"].startswith("application/zip")
