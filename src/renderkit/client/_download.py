"""Downloading a result's file from its signed URL, with the client's retries, blocking.

``content`` is a property, read synchronously, so the lazy download is a blocking request.
It applies the same :class:`~renderkit.core.retry.RetryPolicy` rules as
:func:`~renderkit.core.retry.send_with_retries` (which is async), waiting with ``time.sleep``.
The URL carries its own signature: no API key is sent.
"""

from __future__ import annotations

import time

import httpx

from renderkit.client._errors import error_from_response
from renderkit.core.errors import ServerUnreachableError
from renderkit.core.filenames import filename_from_disposition
from renderkit.core.retry import RetryPolicy, is_retryable_status, parse_retry_after

__all__ = ["download_blocking", "downloaded"]


def downloaded(response: httpx.Response) -> tuple[bytes, str | None]:
    """A file response's bytes and the file name the server gave them."""
    disposition = response.headers.get("content-disposition")
    return response.content, filename_from_disposition(disposition)


def download_blocking(url: str, *, retry: RetryPolicy, timeout: float) -> tuple[bytes, str | None]:
    """The file at ``url`` and the name its ``Content-Disposition`` gives it, if any.

    Raises:
        RenderkitError: the server's answer, mapped like any other error, once the retries
            are used up.
        ServerUnreachableError: the network failed on every attempt.
    """
    with httpx.Client(timeout=timeout) as http:
        attempt = 0
        while True:
            try:
                response = http.get(url)
            except retry.retry_on as exc:
                if attempt >= retry.max_retries:
                    msg = f"cannot reach {url}: {exc or type(exc).__name__}"
                    raise ServerUnreachableError(msg, provider="renderkit-server") from exc
                time.sleep(retry.delay(attempt))
            else:
                if attempt >= retry.max_retries or not is_retryable_status(response.status_code):
                    if response.is_error:
                        raise error_from_response(response)
                    return downloaded(response)
                wait = retry.delay(attempt, parse_retry_after(response.headers.get("retry-after")))
                time.sleep(wait)
            attempt += 1
