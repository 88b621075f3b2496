"""renderkit: turn JSON requests into images, PDFs, screenshots, speech and structured data.

The library is a set of async functions that take a request (an attrs model or a plain
JSON-like dict) and the backends they need, and return frozen results::

    import asyncio

    from renderkit import render_image
    from renderkit.browser import ChromiumPool

    async def main() -> None:
        async with ChromiumPool() as browser:
            result = await render_image({"template": "og-card", "data": {"title": "Hi"}},
                                        browser=browser)
            result.save("card.png")

    asyncio.run(main())  # in Jupyter, await the body of main() directly

Each capability is a package (:mod:`renderkit.image`, :mod:`renderkit.pdf`,
:mod:`renderkit.screenshot`, :mod:`renderkit.reading`, :mod:`renderkit.speech`,
:mod:`renderkit.parsing`) whose public names are re-exported here; :func:`render_many`
(:mod:`renderkit.batch`) runs many of them through one browser. :class:`Client` and
:class:`AsyncClient` run the same five functions on a renderkit server instead
(:mod:`renderkit.client`).

Nothing happens at import time and no environment variable is read: configuration is passed
in (the one exception: :class:`Client` falls back to ``RENDERKIT_BASE_URL`` and
``RENDERKIT_API_KEY`` when constructed without them). Blocking wrappers live in
:mod:`renderkit.sync`.
"""

from __future__ import annotations

from renderkit.batch import JobOutcome, render_many
from renderkit.client import AsyncClient, Client
from renderkit.core.converter import structure, unstructure
from renderkit.core.errors import (
    ApiError,
    AuthenticationError,
    BlockedUrlError,
    BrowserBusyError,
    BrowserUnavailableError,
    ConfigurationError,
    FieldError,
    InvalidRequestError,
    JobCancelledError,
    JobTimeoutError,
    MissingDependencyError,
    NavigationError,
    ObjectNotFoundError,
    ProviderError,
    ProviderUnavailableError,
    RateLimitError,
    RenderError,
    RenderkitError,
    RenderTimeoutError,
    ServerUnreachableError,
    StorageError,
    StorageFullError,
    StorageUnavailableError,
    TenantBusyError,
    WebhookVerificationError,
    WorkersBusyError,
)
from renderkit.core.netpolicy import UrlPolicy
from renderkit.core.workers import WorkerPool
from renderkit.image import (
    IMAGE_TEMPLATES,
    ImageData,
    ImageRequest,
    ImageResult,
    render_image,
    sign_image_url,
)
from renderkit.parsing import ParseRequest, ParseResult, parse
from renderkit.pdf import (
    PAGE_SIZES,
    PDF_TEMPLATE_FIELDS,
    PDF_TEMPLATES,
    PdfRequest,
    PdfResult,
    render_pdf,
)
from renderkit.reading import PageMetadata, ReadRequest, ReadResult, read_page
from renderkit.screenshot import DEVICES, ScreenshotRequest, ScreenshotResult, screenshot
from renderkit.speech import (
    AUDIO_FORMATS,
    AUDIO_MODELS,
    AudioRequest,
    AudioResult,
    AudioStream,
    synthesize,
    synthesize_stream,
)

__version__ = "1.0.0"

__all__ = [
    "AUDIO_FORMATS",
    "AUDIO_MODELS",
    "DEVICES",
    "IMAGE_TEMPLATES",
    "PAGE_SIZES",
    "PDF_TEMPLATES",
    "PDF_TEMPLATE_FIELDS",
    "ApiError",
    "AsyncClient",
    "AudioRequest",
    "AudioResult",
    "AudioStream",
    "AuthenticationError",
    "BlockedUrlError",
    "BrowserBusyError",
    "BrowserUnavailableError",
    "Client",
    "ConfigurationError",
    "FieldError",
    "ImageData",
    "ImageRequest",
    "ImageResult",
    "InvalidRequestError",
    "JobCancelledError",
    "JobOutcome",
    "JobTimeoutError",
    "MissingDependencyError",
    "NavigationError",
    "ObjectNotFoundError",
    "PageMetadata",
    "ParseRequest",
    "ParseResult",
    "PdfRequest",
    "PdfResult",
    "ProviderError",
    "ProviderUnavailableError",
    "RateLimitError",
    "ReadRequest",
    "ReadResult",
    "RenderError",
    "RenderTimeoutError",
    "RenderkitError",
    "ScreenshotRequest",
    "ScreenshotResult",
    "ServerUnreachableError",
    "StorageError",
    "StorageFullError",
    "StorageUnavailableError",
    "TenantBusyError",
    "UrlPolicy",
    "WebhookVerificationError",
    "WorkerPool",
    "WorkersBusyError",
    "__version__",
    "parse",
    "read_page",
    "render_image",
    "render_many",
    "render_pdf",
    "screenshot",
    "sign_image_url",
    "structure",
    "synthesize",
    "synthesize_stream",
    "unstructure",
]
