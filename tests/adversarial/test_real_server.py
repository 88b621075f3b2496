"""The adversarial suite: hostile documents and bodies against a real ``renderkit serve``.

One server process on 127.0.0.1 (free port, temporary data directory, real Chromium) gets
every named hostile document of :mod:`tests.parsing._hostile` and Hypothesis-mutated PDFs
and images (:mod:`tests.parsing._mutations`) at ``/api/parse`` as base64, and the hostile
JSON shapes of :mod:`tests._hostile_json` at several endpoints. Each answer is a 200 or a
4xx (or a documented 503/504) within a time bound; after each case ``/api/health`` answers
200 within 1 s and the RSS of the server and its children stays under a bound.

CI runs it with the test suite at ``RENDERKIT_ADVERSARIAL_EXAMPLES`` (default 30) mutated
documents; ``nox -s adversarial -- --examples 500`` runs more.
"""

from __future__ import annotations

import base64
import os
import time
from collections.abc import Iterator
from pathlib import Path

import attrs
import httpx
import pytest
from hypothesis import HealthCheck, given, settings

from tests._hostile_json import hostile_bodies
from tests.parsing import _hostile
from tests.parsing._hostile import NAMED
from tests.parsing._mutations import mutated
from tests.server._serve_process import ADMIN, Server, descendants

pytestmark = pytest.mark.browser

EXAMPLES = int(os.environ.get("RENDERKIT_ADVERSARIAL_EXAMPLES", "30"))
#: How long one answer may take: far under PARSE_TIMEOUT (120 s), with room for a loaded
#: machine (the library answers each hostile document within 10 s on its own).
ANSWER_SECONDS = 30.0
HEALTH_SECONDS = 1.0
#: RSS of the server and its children (Chromium's processes share pages, so the sum
#: overstates it); measured at 1,190 MB after start (11 processes) and 1,240 MB after the
#: named documents.
RSS_MB = 2_500.0
#: 503 (overloaded, store unavailable) and 504 (timed out) are documented answers.
DOCUMENTED_5XX = (503, 504)
BODIES = hostile_bodies(1024 * 1024)  # a tenth of the body limit: many cases, quickly
BODY_PATHS = ["/api/keys/generate", "/api/mcp", "/api/image", "/v1/pdf-gen", "/api/parse"]


@attrs.frozen
class Served:
    """The running server, a client for it and a vip key (no quota gets in the way)."""

    server: Server
    client: httpx.Client
    key: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = Server(tmp_path_factory.mktemp("adversarial") / "data", None)
    server.start()
    try:
        assert server.proc is not None
        assert descendants(server.proc.pid), "the server started no Chromium"
        with httpx.Client(base_url=server.base, timeout=ANSWER_SECONDS * 2) as client:
            response = client.post(
                "/api/keys/generate",
                json={"email": "adversary@example.com", "plan": "vip"},
                headers={"Authorization": f"Bearer {ADMIN}"},
            )
            assert response.status_code == 200, response.text
            yield Served(server, client, response.json()["key"])
    finally:
        server.stop()


def rss_mb(pid: int) -> float:
    """VmRSS of ``pid`` and every process below it, in MB (processes that end are skipped)."""
    total = 0
    for one in [pid, *descendants(pid)]:
        try:
            status = Path(f"/proc/{one}/status").read_text()
        except OSError:
            continue
        rows = [line for line in status.splitlines() if line.startswith("VmRSS:")]
        total += int(rows[0].split()[1]) if rows else 0  # kernel threads have no VmRSS
    return total / 1024


def _send(served: Served, path: str, body: bytes) -> int:
    """POST ``body``; assert the answer's status and time, then the server's health and RSS."""
    proc = served.server.proc
    assert proc is not None
    headers = {"X-SVC-Key": served.key, "Content-Type": "application/json"}
    headers["Accept"] = "application/json, text/event-stream"
    started = time.monotonic()
    response = served.client.post(path, content=body, headers=headers)
    seconds = time.monotonic() - started
    status = response.status_code
    assert status == 200 or 400 <= status < 500 or status in DOCUMENTED_5XX, response.text[:500]
    assert seconds < ANSWER_SECONDS, f"{path} answered in {seconds:.1f} s"
    started = time.monotonic()
    health = served.client.get("/api/health", timeout=HEALTH_SECONDS)
    assert health.status_code == 200, health.text[:500]
    assert time.monotonic() - started < HEALTH_SECONDS
    assert proc.poll() is None, "the server exited"
    rss = rss_mb(proc.pid)
    assert rss < RSS_MB, f"server and children at {rss:.0f} MB after {path}"
    return status


def _parse_body(content: bytes, mime_type: str) -> bytes:
    return b'{"file": "%s", "mimeType": "%s"}' % (base64.b64encode(content), mime_type.encode())


@pytest.mark.parametrize("name", NAMED)
def test_a_hostile_document_is_refused_or_read_by_a_real_server_which_stays_healthy(
    served: Served, name: str
) -> None:
    expression, mime_type = NAMED[name]
    content = eval(expression, vars(_hostile))
    assert _send(served, "/api/parse", _parse_body(content, mime_type)) in (200, 400)


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(document=mutated())
def test_a_mutated_pdf_or_image_gets_a_bounded_answer_from_a_real_server(
    served: Served, document: tuple[bytes, str]
) -> None:
    _send(served, "/api/parse", _parse_body(*document))


@pytest.mark.parametrize("path", BODY_PATHS)
@pytest.mark.parametrize("shape", list(BODIES))
def test_a_hostile_json_body_is_refused_by_a_real_server_which_stays_healthy(
    served: Served, shape: str, path: str
) -> None:
    assert 400 <= _send(served, path, BODIES[shape]) < 500
