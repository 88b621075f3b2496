"""A client for a renderkit server with the library's signatures, results and errors::

    from renderkit import Client

    with Client("https://render.example.com", key) as client:
        card = client.render_image({"template": "og-card", "data": {"title": "Hi"}})
        print(card.url)          # the signed file URL, no download
        card.save("card.png")    # downloads the file on first use of content

:class:`AsyncClient` is the async twin. Requests are the library's request models or plain
mappings; results are the library's result types (``RemoteImageResult`` is an
``ImageResult``); errors are the library's exceptions, plus
:class:`~renderkit.core.errors.ApiError` / :class:`~renderkit.core.errors.RateLimitError`
for what only a server refuses (keys, quotas).

Long work runs as a server job: ``job = client.submit("pdf", request)`` answers at once and
``job.result()`` waits for the same :class:`~renderkit.PdfResult`; :func:`verify_webhook`
checks the signature of the webhook the server sends when it finished.
"""

from __future__ import annotations

from renderkit.client._async import DEFAULT_RETRY, AsyncClient
from renderkit.client._jobs import AsyncBatch, AsyncJob, JobResult
from renderkit.client._results import (
    RemoteAudioResult,
    RemoteImageResult,
    RemotePdfResult,
    RemoteScreenshotResult,
)
from renderkit.client._sync import Client
from renderkit.client._sync_jobs import Batch, Job
from renderkit.client._webhooks import verify_webhook

__all__ = [
    "DEFAULT_RETRY",
    "AsyncBatch",
    "AsyncClient",
    "AsyncJob",
    "Batch",
    "Client",
    "Job",
    "JobResult",
    "RemoteAudioResult",
    "RemoteImageResult",
    "RemotePdfResult",
    "RemoteScreenshotResult",
    "verify_webhook",
]
