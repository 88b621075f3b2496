"""A storage backend for S3 and S3-compatible services (Cloudflare R2, MinIO)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import datetime
import hashlib
from collections.abc import Iterator
from typing import Any, Literal

from renderkit.core.errors import (
    ConfigurationError,
    InvalidRequestError,
    MissingDependencyError,
    ObjectNotFoundError,
    StorageError,
    StorageUnavailableError,
)
from renderkit.core.filenames import content_disposition, filename_from_disposition
from renderkit.storage._protocol import (
    StoredObject,
    _check_expires_in,
    _check_public_base_url,
    _expires_in_error,
    check_key,
)

try:
    import aioboto3
    import botocore.exceptions
    from botocore.config import Config
except ImportError as exc:  # pragma: no cover - exercised in a test with aioboto3 hidden
    msg = "S3 storage needs the s3 extra: pip install 'renderkit[s3]'"
    raise MissingDependencyError(msg) from exc

__all__ = ["S3Storage"]

AddressingStyle = Literal["path", "virtual", "auto"]

# SigV4 presigned URLs cannot be valid for longer than this.
_MAX_EXPIRES_IN = datetime.timedelta(days=7)
_NOT_FOUND_CODES = frozenset({"NoSuchKey", "NotFound", "404"})
_UNAVAILABLE_CODES = frozenset(
    {
        "AccessDenied",
        "AllAccessDisabled",
        "ExpiredToken",
        "InvalidAccessKeyId",
        "InvalidToken",
        "NoSuchBucket",
        "RequestTimeTooSkewed",
        "ServiceUnavailable",
        "SignatureDoesNotMatch",
        "SlowDown",
        "TokenRefreshRequired",
    }
)
_CONNECTION_ERRORS = (
    botocore.exceptions.EndpointConnectionError,
    botocore.exceptions.ConnectTimeoutError,
    botocore.exceptions.ReadTimeoutError,
    botocore.exceptions.ConnectionError,
    botocore.exceptions.HTTPClientError,
)
_CREDENTIAL_ERRORS = (
    botocore.exceptions.NoCredentialsError,
    botocore.exceptions.PartialCredentialsError,
)


class S3Storage:
    """Stores objects in an S3 bucket through one long-lived aioboto3 client.

    The client is opened on first use and closed by :meth:`aclose`; a later call opens a
    new one. Credentials come from ``access_key_id``/``secret_access_key`` when given, else
    from boto's usual chain (environment, profile, instance role) at first use. The
    ``etag`` of an object is the MD5 of its content, sent as ``Content-MD5`` on upload and
    kept in the object's user metadata, so it stays an MD5 where the service's own ETag is
    not (SSE-KMS, multipart copies).

    Examples:
        AWS: ``S3Storage(bucket="renders", region="eu-west-1")``.
        Cloudflare R2: ``S3Storage(bucket="renders", region="auto",
        endpoint_url="https://<account>.r2.cloudflarestorage.com", access_key_id=...,
        secret_access_key=...)``. MinIO: add ``addressing_style="path"``.

    Args:
        bucket: name of an existing bucket.
        endpoint_url: the service's endpoint for R2, MinIO and the like; ``None`` for AWS.
        region: signing region (``auto`` for R2).
        access_key_id: access key; give it together with ``secret_access_key``.
        secret_access_key: secret key; never shown by ``repr`` nor in error messages.
        public_base_url: URL publishing the bucket root (R2 custom domain, CDN); when set,
            :meth:`url_for` returns ``public_base_url + prefix + key`` instead of signing.
        prefix: prepended verbatim to every key in the bucket, e.g. ``renders/``.
            :class:`StoredObject.key` stays the caller's key.
        session: an ``aioboto3.Session`` to share; a new one by default.
        addressing_style: ``path`` (MinIO, most emulators), ``virtual`` or ``auto``.
        config: a ``botocore.config.Config`` for timeouts, retries or checksums; signature
            version defaults to ``s3v4``.

    Raises:
        ConfigurationError: an argument is invalid (empty bucket, one key without the other,
            unknown addressing style, malformed URL or prefix).
    """

    def __init__(
        self,
        *,
        bucket: str,
        endpoint_url: str | None = None,
        region: str | None = None,
        access_key_id: str | None = None,
        secret_access_key: str | None = None,
        public_base_url: str | None = None,
        prefix: str = "",
        session: aioboto3.Session | None = None,
        addressing_style: AddressingStyle = "auto",
        config: Config | None = None,
    ) -> None:
        if not bucket:
            msg = "bucket must not be empty"
            raise ConfigurationError(msg)
        if (access_key_id is None) != (secret_access_key is None):
            msg = "access_key_id and secret_access_key must be given together"
            raise ConfigurationError(msg)
        if addressing_style not in {"path", "virtual", "auto"}:
            msg = "addressing_style must be 'path', 'virtual' or 'auto'"
            raise ConfigurationError(msg)
        if endpoint_url is not None and not endpoint_url.startswith(("http://", "https://")):
            msg = "endpoint_url must be an http(s) URL"
            raise ConfigurationError(msg)
        if prefix:
            try:
                check_key(prefix.rstrip("/"))
            except InvalidRequestError:
                msg = "prefix must be a valid key, optionally ending with '/'"
                raise ConfigurationError(msg) from None
        self._bucket = bucket
        self._endpoint_url = endpoint_url
        self._region = region
        self._access_key_id = access_key_id
        self._secret_access_key = secret_access_key
        self._public_base_url = (
            None if public_base_url is None else _check_public_base_url(public_base_url)
        )
        self._prefix = prefix
        self._session = session
        self._config = _client_config(config, addressing_style)
        self._client: Any = None
        self._exit_stack: contextlib.AsyncExitStack | None = None
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return (
            f"S3Storage(bucket={self._bucket!r}, endpoint_url={self._endpoint_url!r}, "
            f"region={self._region!r}, prefix={self._prefix!r}, "
            f"public_base_url={self._public_base_url!r})"
        )

    async def put(
        self, key: str, data: bytes, *, content_type: str, filename: str | None = None
    ) -> StoredObject:
        """Upload ``data`` under ``key`` with one ``PutObject``, replacing any object.

        S3 makes the new version visible only once the upload completed. ``filename`` is
        stored as the object's ``Content-Disposition``, so S3 (and a CDN in front of it)
        serves downloads under that name too.

        Raises:
            InvalidRequestError: the key is invalid.
            StorageUnavailableError: the endpoint is unreachable, the credentials are
                refused or missing, or the bucket does not exist.
            StorageError: S3 rejected the request for another reason.
        """
        check_key(key)
        content = bytes(data)
        digest = hashlib.md5(content, usedforsecurity=False)
        client = await self._get_client()
        extra = {} if filename is None else {"ContentDisposition": content_disposition(filename)}
        with _map_botocore_errors(key):
            await client.put_object(
                Bucket=self._bucket,
                Key=self._prefix + key,
                Body=content,
                ContentType=content_type,
                ContentMD5=base64.b64encode(digest.digest()).decode(),
                Metadata={"md5": digest.hexdigest()},
                **extra,
            )
        return StoredObject(
            key=key,
            size=len(content),
            content_type=content_type,
            etag=digest.hexdigest(),
            # PutObject does not return LastModified; head() reports the server's clock.
            created_at=datetime.datetime.now(datetime.UTC),
            filename=filename,
        )

    async def get(self, key: str) -> bytes:
        """Download the content of ``key``.

        Raises:
            InvalidRequestError: the key is invalid.
            ObjectNotFoundError: no object is stored under ``key``.
            StorageUnavailableError: the endpoint is unreachable or refused the request.
        """
        check_key(key)
        client = await self._get_client()
        with _map_botocore_errors(key):
            response = await client.get_object(Bucket=self._bucket, Key=self._prefix + key)
            async with response["Body"] as body:
                data: bytes = await body.read()
                return data

    async def head(self, key: str) -> StoredObject:
        """Return the metadata of ``key`` with a ``HeadObject`` request.

        ``created_at`` is the object's ``Last-Modified``, to the second.

        Raises:
            InvalidRequestError: the key is invalid.
            ObjectNotFoundError: no object is stored under ``key``. A missing bucket also
                lands here, since S3 answers ``HEAD`` with a bare 404 for both.
            StorageUnavailableError: the endpoint is unreachable or refused the request.
        """
        check_key(key)
        client = await self._get_client()
        with _map_botocore_errors(key):
            response = await client.head_object(Bucket=self._bucket, Key=self._prefix + key)
        etag = response.get("Metadata", {}).get("md5") or response["ETag"].strip('"')
        return StoredObject(
            key=key,
            size=response["ContentLength"],
            content_type=response.get("ContentType") or "application/octet-stream",
            etag=etag,
            created_at=response["LastModified"].astimezone(datetime.UTC),
            filename=filename_from_disposition(response.get("ContentDisposition")),
        )

    async def delete(self, key: str) -> None:
        """Delete ``key``; S3 already treats a missing key as success.

        Raises:
            InvalidRequestError: the key is invalid.
            StorageUnavailableError: the endpoint is unreachable or refused the request.
        """
        check_key(key)
        client = await self._get_client()
        with _map_botocore_errors(key):
            await client.delete_object(Bucket=self._bucket, Key=self._prefix + key)

    async def url_for(self, key: str, *, expires_in: datetime.timedelta) -> str:
        """Return the public URL of ``key`` if configured, else a presigned GET URL.

        Signing is local: it makes no request and does not check that the object exists.
        The signed URL carries credentials for the one object; treat it as a secret until
        it expires.

        Raises:
            InvalidRequestError: the key is invalid, or ``expires_in`` is not positive or is
                longer than 7 days.
            StorageUnavailableError: no credentials are available to sign with.
        """
        check_key(key)
        _check_expires_in(expires_in)
        if expires_in > _MAX_EXPIRES_IN:
            msg = "must be at most 7 days for S3 presigned URLs"
            raise _expires_in_error(msg)
        if self._public_base_url is not None:
            return self._public_base_url + self._prefix + key
        client = await self._get_client()
        with _map_botocore_errors(key):
            url: str = await client.generate_presigned_url(
                "get_object",
                Params={"Bucket": self._bucket, "Key": self._prefix + key},
                ExpiresIn=max(1, int(expires_in.total_seconds())),
            )
        return url

    async def aclose(self) -> None:
        """Close the client if one is open; calling it again is a no-op."""
        async with self._lock:
            stack, self._exit_stack, self._client = self._exit_stack, None, None
            if stack is not None:
                await stack.aclose()

    async def _get_client(self) -> Any:
        if self._client is not None:
            return self._client
        async with self._lock:
            if self._client is None:
                session = self._session or aioboto3.Session()
                stack = contextlib.AsyncExitStack()
                with _map_botocore_errors(None):
                    self._client = await stack.enter_async_context(
                        session.client(
                            "s3",
                            endpoint_url=self._endpoint_url,
                            region_name=self._region,
                            aws_access_key_id=self._access_key_id,
                            aws_secret_access_key=self._secret_access_key,
                            config=self._config,
                        )
                    )
                self._exit_stack = stack
            return self._client


def _client_config(config: Config | None, addressing_style: AddressingStyle) -> Config:
    # Merge into the caller's config so an aiobotocore AioConfig keeps its type; only the
    # explicit addressing_style argument overrides what the caller set.
    base = config or Config()
    overrides = Config(
        signature_version=base.signature_version or "s3v4",
        s3={**(base.s3 or {}), "addressing_style": addressing_style},
    )
    return base.merge(overrides)


@contextlib.contextmanager
def _map_botocore_errors(key: str | None) -> Iterator[None]:
    # Messages name only the S3 error code: botocore's own text can contain the endpoint,
    # and presigned or credential material must never reach a public message.
    try:
        yield
    except botocore.exceptions.ClientError as exc:
        error = exc.response.get("Error", {})
        code = str(error.get("Code", "Unknown"))
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if key is not None and code in _NOT_FOUND_CODES:
            msg = "no object is stored under this key"
            raise ObjectNotFoundError(msg, key=key) from exc
        if code == "NoSuchBucket":
            msg = "the S3 bucket does not exist"
            raise StorageUnavailableError(msg) from exc
        if code in _UNAVAILABLE_CODES or status in {401, 403} or (status or 0) >= 500:
            msg = f"S3 storage refused or failed the request ({code})"
            raise StorageUnavailableError(msg) from exc
        msg = f"S3 storage rejected the request ({code})"
        raise StorageError(msg) from exc
    except _CREDENTIAL_ERRORS as exc:
        msg = "no usable S3 credentials are configured"
        raise StorageUnavailableError(msg) from exc
    except _CONNECTION_ERRORS as exc:
        msg = "could not reach the S3 endpoint"
        raise StorageUnavailableError(msg) from exc
    except botocore.exceptions.BotoCoreError as exc:
        msg = f"S3 storage failed ({type(exc).__name__})"
        raise StorageError(msg) from exc
