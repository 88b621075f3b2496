"""Two replicas sharing Redis, S3 and remote browsers behave as one service (#15).

Real processes on 127.0.0.1 (see conftest.py): a redis-server, a moto S3 server, a Browserless
and a plain remote Chromium, and two ``renderkit serve`` replicas configured to share them.
"""

from __future__ import annotations

import asyncio
import io
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from PIL import Image

from ._fleet import RemoteChromium, Replica
from .conftest import ADMIN, PRO_IMAGES

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

OG_CARD = {"template": "og-card", "data": {"title": "Two replicas, one service"}}


def distinct_card(n: int) -> dict[str, object]:
    """An og-card no other request of the session renders (so never a cache hit)."""
    return {"template": "og-card", "data": {"title": f"Quota {n} {uuid.uuid4().hex[:8]}"}}


async def issue(client: httpx.AsyncClient, replica: Replica, plan: str) -> str:
    """A new key of ``plan``, issued by ``replica`` with the admin token."""
    response = await client.post(
        f"{replica.url}/api/keys/generate",
        json={"email": f"{plan}-{time.monotonic_ns()}@example.com", "plan": plan},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    assert response.status_code in (200, 201), response.text
    key: str = response.json()["key"]
    return key


async def post(
    client: httpx.AsyncClient, replica: Replica, path: str, key: str, body: dict[str, Any]
) -> httpx.Response:
    return await client.post(f"{replica.url}{path}", json=body, headers={"X-SVC-Key": key})


@pytest.fixture
async def client() -> Any:
    async with httpx.AsyncClient(timeout=60) as http:
        yield http


class _SlowImage(BaseHTTPRequestHandler):
    """Answers every GET with a 1x1 PNG after a delay, counting requests held at once."""

    server: _SlowServer

    def do_GET(self) -> None:
        with self.server.lock:
            self.server.active += 1
            self.server.peak = max(self.server.peak, self.server.active)
        try:
            time.sleep(self.server.delay)
            out = io.BytesIO()
            Image.new("RGB", (1, 1), (0, 128, 0)).save(out, "PNG")
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(out.getvalue())))
            self.end_headers()
            self.wfile.write(out.getvalue())
        finally:
            with self.server.lock:
                self.server.active -= 1

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _SlowServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, delay: float) -> None:
        super().__init__(("127.0.0.1", 0), _SlowImage)
        self.delay = delay
        self.lock = threading.Lock()
        self.active = 0
        self.peak = 0

    def page(self) -> dict[str, Any]:
        """A custom-HTML image request whose render lasts about ``delay`` seconds."""
        src = f"http://127.0.0.1:{self.server_address[1]}/slow.png?{time.monotonic_ns()}"
        return {"template": "custom", "html": f'<img src="{src}" width="40" height="40">'}


@pytest.fixture
def slow_server() -> Iterator[_SlowServer]:
    server = _SlowServer(delay=1.5)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def decoded_png(content: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(content))
    image.load()
    assert image.format == "PNG"
    return image


async def test_a_key_issued_by_replica_a_is_accepted_by_replica_b(
    client: httpx.AsyncClient, fleet: list[Replica]
) -> None:
    a, b = fleet
    key = await issue(client, a, "starter")
    response = await post(client, b, "/api/image", key, OG_CARD)
    assert response.status_code == 200, response.text
    assert response.json()["success"] is True


async def test_renders_succeed_on_browserless_and_on_the_plain_remote_chromium(
    client: httpx.AsyncClient, fleet: list[Replica]
) -> None:
    # Each replica spreads renders over Browserless and the plain Chromium (the least busy,
    # then the least recently used): two rounds per replica reach both browsers.
    a, b = fleet
    key = await issue(client, a, "business")
    for replica in (a, b, a, b):
        image = await post(client, replica, "/api/image", key, OG_CARD)
        assert image.status_code == 200, (replica.name, image.text)
        body = image.json()
        png = decoded_png((await client.get(body["url"])).content)
        assert png.size == (body["width"], body["height"])
        pdf = await post(
            client, replica, "/api/pdf-gen", key, {"template": "custom", "html": "<h1>Fleet</h1>"}
        )
        assert pdf.status_code == 200, (replica.name, pdf.text)
        assert pdf.json()["pages"] == 1
        assert (await client.get(pdf.json()["url"])).content.startswith(b"%PDF-")


async def test_a_file_made_by_replica_a_downloads_straight_from_s3(
    client: httpx.AsyncClient, fleet: list[Replica], s3_bucket: tuple[str, str]
) -> None:
    a, _b = fleet
    endpoint, bucket = s3_bucket
    key = await issue(client, a, "starter")
    made = await post(client, a, "/api/image", key, OG_CARD)
    assert made.status_code == 200, made.text
    url = made.json()["url"]
    # A presigned URL of the shared bucket: any replica's files are one storage's files.
    assert url.startswith(f"{endpoint}/{bucket}/"), url
    download = await client.get(url)
    assert download.status_code == 200
    assert decoded_png(download.content).size == (made.json()["width"], made.json()["height"])


async def test_a_quota_of_n_is_spent_exactly_n_times_over_both_replicas_under_concurrency(
    client: httpx.AsyncClient, fleet: list[Replica]
) -> None:
    a, b = fleet
    key = await issue(client, b, "pro")  # pro: PRO_IMAGES images a month here, any in flight
    # Sixteen different images: identical ones would be free hits of the render cache.
    calls = [post(client, (a, b)[i % 2], "/api/image", key, distinct_card(i)) for i in range(16)]
    responses = await asyncio.gather(*calls)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] * PRO_IMAGES + [429] * (16 - PRO_IMAGES), statuses
    refused = [r.json() for r in responses if r.status_code == 429]
    assert {body["code"] for body in refused} == {"QUOTA_EXCEEDED"}
    after = await post(client, a, "/api/image", key, distinct_card(16))
    assert after.status_code == 429  # spent: no replica has a local allowance left


async def test_a_key_regenerated_on_replica_a_is_refused_by_replica_b_at_once(
    client: httpx.AsyncClient, fleet: list[Replica]
) -> None:
    a, b = fleet
    old = await issue(client, a, "starter")
    rotated = await client.post(f"{a.url}/api/keys/regenerate", json={"key": old})
    assert rotated.status_code == 200, rotated.text
    new = rotated.json()["key"]
    stale = await post(client, b, "/api/image", old, OG_CARD)
    assert stale.status_code == 401, stale.text
    assert (await post(client, b, "/api/image", new, OG_CARD)).status_code == 200


async def test_a_keys_in_flight_cap_holds_over_both_replicas(
    client: httpx.AsyncClient, fleet: list[Replica], slow_server: _SlowServer
) -> None:
    a, b = fleet
    key = await issue(client, a, "starter")  # starter: one browser render at once
    calls = [post(client, r, "/api/image", key, slow_server.page()) for r in (a, b, a, b)]
    responses = await asyncio.gather(*calls)
    assert all(r.status_code in (200, 429) for r in responses), [r.text for r in responses]
    assert any(r.status_code == 200 for r in responses)
    # The slow image is fetched once per render: never two renders of the key at once.
    assert slow_server.peak == 1


async def test_metrics_of_each_replica_show_the_traffic_it_served(
    client: httpx.AsyncClient, fleet: list[Replica]
) -> None:
    key = await issue(client, fleet[0], "business")
    for replica in fleet:
        assert (await post(client, replica, "/api/image", key, OG_CARD)).status_code == 200
    for replica in fleet:
        metrics = await client.get(f"{replica.url}/metrics")
        assert metrics.status_code == 200, replica.name
        assert metrics.headers["content-type"].startswith("text/plain")
        samples = [
            line
            for line in metrics.text.splitlines()
            if not line.startswith("#") and "image" in line and "200" in line
        ]
        assert samples, f"no request sample for /api/image on replica {replica.name}"
        assert any(float(line.rsplit(" ", 1)[1]) >= 1 for line in samples)


# Last in the module: it kills the plain Chromium (and starts it again on the same port).
async def test_killing_one_browser_fails_only_its_renders_with_a_retriable_503(
    client: httpx.AsyncClient,
    fleet: list[Replica],
    chromium: RemoteChromium,
    slow_server: _SlowServer,
) -> None:
    a, b = fleet
    key = await issue(client, a, "business")
    try:
        calls = [
            asyncio.ensure_future(post(client, r, "/api/image", key, slow_server.page()))
            for r in (a, b, a, b)
        ]
        await asyncio.sleep(0.7)  # the renders are fetching the slow image
        chromium.kill()
        responses = await asyncio.gather(*calls)
        for response in responses:
            assert response.status_code in (200, 503), response.text
            if response.status_code == 503:
                assert response.json()["code"] == "RENDERER_UNAVAILABLE"
                assert int(response.headers["retry-after"]) >= 1
        # Every replica keeps rendering on the browser that is left.
        for n, replica in enumerate((a, b, a, b)):
            after = await post(client, replica, "/api/image", key, distinct_card(100 + n))
            assert after.status_code == 200, (replica.name, after.text)
    finally:
        chromium.kill()
        chromium.start()
