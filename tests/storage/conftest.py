from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer

from renderkit.storage import LocalStorage, MemoryStorage, Storage

S3_CREDENTIALS = {"access_key_id": "testing-key-id", "secret_access_key": "testing-secret"}
S3_REGION = "us-east-1"


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """URL of a moto S3 server running in a thread for the whole session."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture(scope="session")
def s3_client(s3_endpoint: str) -> Any:
    """A synchronous boto3 client on the moto server, to set up and inspect buckets."""
    return boto3.client(
        "s3",
        endpoint_url=s3_endpoint,
        region_name=S3_REGION,
        aws_access_key_id=S3_CREDENTIALS["access_key_id"],
        aws_secret_access_key=S3_CREDENTIALS["secret_access_key"],
    )


@pytest.fixture
def make_bucket(s3_client: Any) -> Callable[[], str]:
    """Return a function creating a fresh, uniquely named bucket on the moto server."""

    def make() -> str:
        name = f"test-{uuid.uuid4().hex}"
        s3_client.create_bucket(Bucket=name)
        return name

    return make


@pytest.fixture(params=["memory", "local", "s3"])
async def storage(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Storage]:
    """A fresh, empty backend of each kind; S3 gets its own bucket on the moto server."""
    backend: Storage
    if request.param == "memory":
        backend = MemoryStorage()
    elif request.param == "local":
        backend = LocalStorage(tmp_path / "store")
    else:
        from renderkit.storage.s3 import S3Storage

        endpoint = request.getfixturevalue("s3_endpoint")
        bucket = request.getfixturevalue("make_bucket")()
        backend = S3Storage(
            bucket=bucket,
            endpoint_url=endpoint,
            region=S3_REGION,
            addressing_style="path",
            **S3_CREDENTIALS,
        )
    yield backend
    await backend.aclose()
