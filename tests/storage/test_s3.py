from __future__ import annotations

import datetime
import hashlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aioboto3
import anyio
import anyio.lowlevel
import httpx
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

import renderkit.storage
from renderkit.core.errors import (
    ConfigurationError,
    InvalidRequestError,
    MissingDependencyError,
    ObjectNotFoundError,
    StorageError,
    StorageUnavailableError,
)
from renderkit.storage.s3 import S3Storage, _map_botocore_errors

from .conftest import S3_CREDENTIALS, S3_REGION

pytestmark = pytest.mark.anyio

_HOUR = datetime.timedelta(hours=1)
_SECRET = "do-not-print-this-secret"
MakeStorage = Callable[..., S3Storage]


class _CountingSession(aioboto3.Session):
    """Counts the clients opened; opening one yields to the event loop, as real I/O would."""

    def __init__(self) -> None:
        super().__init__()
        self.clients_opened = 0

    def client(self, *args: Any, **kwargs: Any) -> Any:
        self.clients_opened += 1
        return _YieldingClientContext(super().client(*args, **kwargs))


class _YieldingClientContext:
    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def __aenter__(self) -> Any:
        # Without this checkpoint, opening a client never suspends against moto, and
        # concurrent first calls could not race.
        await anyio.lowlevel.checkpoint()
        return await self._inner.__aenter__()

    async def __aexit__(self, *exc_info: object) -> Any:
        return await self._inner.__aexit__(*exc_info)


@pytest.fixture
async def make_storage(
    s3_endpoint: str, make_bucket: Callable[[], str]
) -> AsyncIterator[MakeStorage]:
    """Build S3Storage instances on the moto server (a fresh bucket unless given)."""
    created: list[S3Storage] = []

    def make(**overrides: Any) -> S3Storage:
        options: dict[str, Any] = {
            "endpoint_url": s3_endpoint,
            "region": S3_REGION,
            "addressing_style": "path",
            **S3_CREDENTIALS,
            **overrides,
        }
        options.setdefault("bucket", make_bucket())
        storage = S3Storage(**options)
        created.append(storage)
        return storage

    yield make
    for storage in created:
        await storage.aclose()


def _unreachable_storage() -> S3Storage:
    # Port 9 (discard) is closed on test machines: connections are refused at once, and the
    # timeouts bound the test if a firewall drops packets instead.
    return S3Storage(
        bucket="unreachable",
        endpoint_url="http://127.0.0.1:9",
        region=S3_REGION,
        access_key_id="key-id",
        secret_access_key=_SECRET,
        addressing_style="path",
        config=Config(connect_timeout=1, read_timeout=1, retries={"total_max_attempts": 1}),
    )


async def test_presigned_url_downloads_the_object(make_storage: MakeStorage) -> None:
    storage = make_storage()
    await storage.put("a/b.png", b"\x89PNG data", content_type="image/png")

    url = await storage.url_for("a/b.png", expires_in=_HOUR)

    assert "X-Amz-Expires=3600" in url
    async with httpx.AsyncClient() as client:
        response = await client.get(url)
    assert response.status_code == 200
    assert response.content == b"\x89PNG data"
    assert response.headers["content-type"] == "image/png"


async def test_url_for_uses_public_base_url_when_set(make_storage: MakeStorage) -> None:
    storage = make_storage(public_base_url="https://files.example.com", prefix="renders/")

    url = await storage.url_for("a/b.png", expires_in=_HOUR)

    assert url == "https://files.example.com/renders/a/b.png"


async def test_url_for_longer_than_seven_days_raises_invalid_request(
    make_storage: MakeStorage,
) -> None:
    storage = make_storage()

    with pytest.raises(InvalidRequestError) as exc_info:
        await storage.url_for("a.png", expires_in=datetime.timedelta(days=8))

    assert exc_info.value.errors[0].field == "expires_in"


async def test_prefix_is_applied_to_object_keys(make_storage: MakeStorage, s3_client: Any) -> None:
    storage = make_storage(prefix="renders/")

    stored = await storage.put("a/b.png", b"png", content_type="image/png")

    listed = s3_client.list_objects_v2(Bucket=storage._bucket)["Contents"]
    assert [item["Key"] for item in listed] == ["renders/a/b.png"]
    assert stored.key == "a/b.png"
    assert (await storage.head("a/b.png")).key == "a/b.png"
    await storage.delete("a/b.png")
    assert "Contents" not in s3_client.list_objects_v2(Bucket=storage._bucket)


async def test_objects_outside_the_prefix_are_invisible(
    make_storage: MakeStorage, make_bucket: Callable[[], str]
) -> None:
    bucket = make_bucket()
    unprefixed = make_storage(bucket=bucket)
    prefixed = make_storage(bucket=bucket, prefix="renders/")
    await unprefixed.put("a.png", b"png", content_type="image/png")

    with pytest.raises(ObjectNotFoundError):
        await prefixed.get("a.png")


async def test_head_of_an_object_uploaded_by_another_tool_uses_the_service_etag(
    make_storage: MakeStorage, s3_client: Any
) -> None:
    storage = make_storage()
    s3_client.put_object(Bucket=storage._bucket, Key="foreign.bin", Body=b"content")

    head = await storage.head("foreign.bin")

    assert head.etag == hashlib.md5(b"content", usedforsecurity=False).hexdigest()
    assert head.content_type


@pytest.mark.parametrize("operation", ["put", "get", "head", "delete"])
async def test_unreachable_endpoint_raises_storage_unavailable_quickly(operation: str) -> None:
    storage = _unreachable_storage()
    calls = {
        "put": lambda: storage.put("a.png", b"png", content_type="image/png"),
        "get": lambda: storage.get("a.png"),
        "head": lambda: storage.head("a.png"),
        "delete": lambda: storage.delete("a.png"),
    }
    try:
        with anyio.fail_after(5), pytest.raises(StorageUnavailableError) as exc_info:
            await calls[operation]()
    finally:
        await storage.aclose()

    assert _SECRET not in str(exc_info.value)


async def test_missing_bucket_raises_storage_unavailable(make_storage: MakeStorage) -> None:
    storage = make_storage(bucket="no-such-bucket-for-renderkit")

    with pytest.raises(StorageUnavailableError):
        await storage.put("a.png", b"png", content_type="image/png")
    with pytest.raises(StorageUnavailableError):
        await storage.get("a.png")


async def test_one_client_is_opened_and_reused_across_calls(make_storage: MakeStorage) -> None:
    session = _CountingSession()
    storage = make_storage(session=session)

    await storage.put("a.png", b"png", content_type="image/png")
    await storage.get("a.png")
    await storage.head("a.png")

    assert session.clients_opened == 1


async def test_concurrent_first_calls_open_a_single_client(make_storage: MakeStorage) -> None:
    session = _CountingSession()
    storage = make_storage(session=session)

    async with anyio.create_task_group() as tg:
        for i in range(10):
            tg.start_soon(storage.delete, f"k{i}")

    assert session.clients_opened == 1


async def test_storage_reopens_a_client_after_aclose(make_storage: MakeStorage) -> None:
    session = _CountingSession()
    storage = make_storage(session=session)
    await storage.put("a.png", b"png", content_type="image/png")

    await storage.aclose()

    assert await storage.get("a.png") == b"png"
    assert session.clients_opened == 2


def test_repr_hides_the_secret_key() -> None:
    storage = S3Storage(bucket="b", access_key_id="key-id", secret_access_key=_SECRET)

    assert _SECRET not in repr(storage)
    assert "key-id" not in repr(storage)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bucket": ""},
        {"bucket": "b", "access_key_id": "only-the-id"},
        {"bucket": "b", "secret_access_key": "only-the-secret"},
        {"bucket": "b", "addressing_style": "sideways"},
        {"bucket": "b", "endpoint_url": "localhost:9000"},
        {"bucket": "b", "public_base_url": "files.example.com"},
        {"bucket": "b", "prefix": "../up/"},
        {"bucket": "b", "prefix": "/abs/"},
    ],
)
def test_invalid_configuration_raises_configuration_error(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        S3Storage(**kwargs)


def _client_error(code: str, status: int) -> ClientError:
    response: Any = {
        "Error": {"Code": code, "Message": "details"},
        "ResponseMetadata": {"HTTPStatusCode": status},
    }
    return ClientError(response, "GetObject")


@pytest.mark.parametrize(
    ("code", "status", "expected"),
    [
        ("NoSuchKey", 404, ObjectNotFoundError),
        ("404", 404, ObjectNotFoundError),
        ("NoSuchBucket", 404, StorageUnavailableError),
        ("AccessDenied", 403, StorageUnavailableError),
        ("InvalidAccessKeyId", 403, StorageUnavailableError),
        ("SignatureDoesNotMatch", 403, StorageUnavailableError),
        ("ExpiredToken", 400, StorageUnavailableError),
        ("InternalError", 500, StorageUnavailableError),
        ("SlowDown", 503, StorageUnavailableError),
        ("InvalidArgument", 400, StorageError),
    ],
)
def test_client_errors_map_to_storage_errors(
    code: str, status: int, expected: type[StorageError]
) -> None:
    error = _client_error(code, status)

    with pytest.raises(StorageError) as exc_info, _map_botocore_errors("a.png"):
        raise error

    assert type(exc_info.value) is expected
    assert isinstance(exc_info.value.__cause__, ClientError)


def test_not_found_error_carries_the_key() -> None:
    error = _client_error("NoSuchKey", 404)

    with pytest.raises(ObjectNotFoundError) as exc_info, _map_botocore_errors("a/b.png"):
        raise error

    assert exc_info.value.key == "a/b.png"


def test_importing_renderkit_storage_does_not_import_aioboto3() -> None:
    src = Path(renderkit.storage.__file__).parents[2]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")]),
    }
    code = "import sys, renderkit.storage; sys.exit('aioboto3' in sys.modules)"

    result = subprocess.run([sys.executable, "-c", code], env=env, check=False)

    assert result.returncode == 0


def test_s3_module_without_aioboto3_raises_missing_dependency(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "aioboto3", None)
    monkeypatch.delitem(sys.modules, "renderkit.storage.s3")

    with pytest.raises(MissingDependencyError):
        renderkit.storage.__getattr__("S3Storage")
