"""Server configuration: environment variables (prefix ``RENDERKIT_``) and an optional TOML file.

The library reads no environment; only this module does, and only when
:meth:`Settings.from_env` is called (by ``create_app`` or ``renderkit serve``), so tests pass
a plain dict.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from renderkit import ConfigurationError
from renderkit.browser import DEFAULT_CHROMIUM
from renderkit.parsing import OCR_ENGINES, ParseLimits
from renderkit_server.clientaddr import TrustedProxies

__all__ = ["ENV_VARIABLES", "Settings"]


def _bool(value: str, name: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off", ""):
        return False
    msg = f"{name} must be true or false"
    raise ConfigurationError(msg)


def _int(value: str, name: str) -> int:
    try:
        return int(value)
    except ValueError:
        msg = f"{name} must be an integer"
        raise ConfigurationError(msg) from None


def _float(value: str, name: str) -> float:
    try:
        return float(value)
    except ValueError:
        msg = f"{name} must be a number"
        raise ConfigurationError(msg) from None


def _user(value: str, _name: str) -> str | int:
    value = value.strip()
    return int(value) if value.isdigit() else value


def _list(value: str, _name: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in value.split(",") if item.strip())


def _floats(value: str, name: str) -> tuple[float, ...]:
    return tuple(_float(item, name) for item in _list(value, name))


def _schedule(_inst: object, _attribute: object, value: tuple[float, ...]) -> None:
    if not value or any(step < 0 for step in value):
        msg = "webhook_retry_schedule needs at least one step, none negative"
        raise ValueError(msg)


def _networks(_inst: object, _attribute: object, value: tuple[str, ...]) -> None:
    # Checked at startup: a typo must stop the server, not fail every render later.
    for network in value:
        ipaddress.ip_network(network, strict=False)  # ValueError names the bad range


# The parse ceilings' defaults are the library's own, written once in ParseLimits.
_PARSE_LIMITS = ParseLimits()

# env suffix -> (attribute, parser); RENDERKIT_<SUFFIX>
_ENV: dict[str, tuple[str, Any]] = {
    "DATA_DIR": ("data_dir", lambda v, n: Path(v)),
    "SECRET": ("secret", lambda v, n: v),
    "ADMIN_TOKEN": ("admin_token", lambda v, n: v),
    "ALLOW_PRIVATE_URLS": ("allow_private_urls", _bool),
    "ALLOW_NETWORKS": ("allow_networks", _list),
    "PUBLIC_URL": ("public_url", lambda v, n: v.rstrip("/")),
    "FILES_PUBLIC_URL": ("files_public_url", lambda v, n: v.rstrip("/")),
    "URL_TTL_SECONDS": ("url_ttl_seconds", _int),
    "CACHE_TTL_SECONDS": ("cache_ttl_seconds", _int),
    "CACHE_SHARE_TEMPLATES": ("cache_share_templates", _bool),
    "IDEMPOTENCY_TTL_SECONDS": ("idempotency_ttl_seconds", _int),
    "IDEMPOTENCY_MAX_KEYS": ("idempotency_max_keys", _int),
    "IDEMPOTENCY_MAX_ANSWER_BYTES": ("idempotency_max_answer_bytes", _int),
    "MAX_BODY_BYTES": ("max_body_bytes", _int),
    "HEADER_TIMEOUT": ("header_timeout", _float),
    "BODY_TIMEOUT": ("body_timeout", _float),
    "CORS_ORIGINS": ("cors_origins", _list),
    "STORAGE": ("storage", lambda v, n: v),
    "S3_BUCKET": ("s3_bucket", lambda v, n: v),
    "S3_ENDPOINT_URL": ("s3_endpoint_url", lambda v, n: v),
    "S3_REGION": ("s3_region", lambda v, n: v),
    "S3_ACCESS_KEY_ID": ("s3_access_key_id", lambda v, n: v),
    "S3_SECRET_ACCESS_KEY": ("s3_secret_access_key", lambda v, n: v),
    "S3_PUBLIC_URL": ("s3_public_url", lambda v, n: v.rstrip("/")),
    "REDIS_URL": ("redis_url", lambda v, n: v),
    "CHROMIUM": ("chromium", lambda v, n: v),
    "BROWSER_CDP_URL": ("browser_cdp_url", lambda v, n: v),
    "BROWSER_CDP_URLS": ("browser_cdp_urls", _list),
    "BROWSER_SLOTS": ("browser_slots", _int),
    "BROWSER_MAX_QUEUE": ("browser_max_queue", _int),
    "BROWSER_TENANT_QUEUE": ("browser_tenant_queue", _int),
    "BROWSER_QUEUE_TIMEOUT": ("browser_queue_timeout", _float),
    "BROWSER_USER": ("browser_user", _user),
    "BROWSER_SPLIT": ("browser_split", _bool),
    "BROWSER_BEGIN_FRAME": ("browser_begin_frame", _bool),
    "RENDER_TIMEOUT": ("render_timeout", _float),
    "PDF_MAX_PAGES": ("pdf_max_pages", _int),
    "DOCUMENT_TIMEOUT": ("document_timeout", _float),
    "SCREENSHOT_TIMEOUT": ("screenshot_timeout", _float),
    "SMTP_HOST": ("smtp_host", lambda v, n: v),
    "SMTP_PORT": ("smtp_port", _int),
    "SMTP_USERNAME": ("smtp_username", lambda v, n: v),
    "SMTP_PASSWORD": ("smtp_password", lambda v, n: v),
    "SMTP_SENDER": ("smtp_sender", lambda v, n: v),
    "SMTP_TLS": ("smtp_tls", _bool),
    "KEY_ISSUE_PER_HOUR": ("key_issue_per_hour", _int),
    "TRUST_FORWARDED_FOR": ("trust_forwarded_for", _bool),
    "TRUSTED_PROXIES": ("trusted_proxies", _list),
    "KEY_REGENERATE_PER_HOUR": ("key_regenerate_per_hour", _int),
    "KEY_REGENERATE_PER_ADDRESS_PER_HOUR": ("key_regenerate_per_address_per_hour", _int),
    "KEY_MAIL_PER_HOUR": ("key_mail_per_hour", _int),
    "KEY_MAIL_PER_DAY": ("key_mail_per_day", _int),
    "MAIL_RETRY_SECONDS": ("mail_retry_seconds", _float),
    "MAIL_RETRY_MAX_SECONDS": ("mail_retry_max_seconds", _float),
    "CONFIG": ("config_file", lambda v, n: Path(v)),
    "SIGNING_P12_FILE": ("signing_p12_file", lambda v, n: Path(v)),
    "SIGNING_P12_PASSWORD_FILE": ("signing_p12_password_file", lambda v, n: Path(v)),
    "SIGNING_TIMESTAMP_URL": ("signing_timestamp_url", lambda v, n: v),
    "SPEECH_PROVIDER": ("speech_provider", lambda v, n: v),
    "ELEVENLABS_API_KEY": ("elevenlabs_api_key", lambda v, n: v),
    "ESPEAK": ("espeak", lambda v, n: v),
    "SPEECH_ENGINE": ("speech_engine", lambda v, n: v),
    "KOKORO_DIR": ("kokoro_dir", lambda v, n: Path(v)),
    "KOKORO_MODEL": ("kokoro_model", lambda v, n: Path(v)),
    "KOKORO_THREADS": ("kokoro_threads", _int),
    "KOKORO_PARALLEL": ("kokoro_parallel", _int),
    "SPEECH_TIMEOUT": ("speech_timeout", _float),
    "SHUTDOWN_TIMEOUT": ("shutdown_timeout", _float),
    "PARSE_EXTRACTOR": ("parse_extractor", lambda v, n: v),
    "LLM_API_KEY": ("llm_api_key", lambda v, n: v),
    "LLM_MODEL": ("llm_model", lambda v, n: v),
    "LLM_BASE_URL": ("llm_base_url", lambda v, n: v.rstrip("/")),
    "LLM_SEND_IMAGES": ("llm_send_images", _bool),
    "PARSE_ARBITER": ("parse_arbiter", lambda v, n: None if v.lower() in ("off", "none") else v),
    "PARSE_ARBITER_MODEL": ("parse_arbiter_model", lambda v, n: v),
    "PARSE_ARBITER_BASE_URL": ("parse_arbiter_base_url", lambda v, n: v.rstrip("/")),
    "PARSE_ARBITER_API_KEY": ("parse_arbiter_api_key", lambda v, n: v),
    "PARSE_ARBITER_TIMEOUT": ("parse_arbiter_timeout", _float),
    "PARSE_ARBITER_THRESHOLD": ("parse_arbiter_threshold", _float),
    "PARSE_ARBITER_CONSTRAINED": ("parse_arbiter_constrained", _bool),
    "PARSE_MAX_BYTES": ("parse_max_bytes", _int),
    "PARSE_MAX_PAGES": ("parse_max_pages", _int),
    "PARSE_MAX_PIXELS": ("parse_max_pixels", _int),
    "PARSE_MAX_OCR_PIXELS": ("parse_max_ocr_pixels", _int),
    "PARSE_MAX_EMBEDDED_BYTES": ("parse_max_embedded_bytes", _int),
    "PARSE_MAX_INFLATED_BYTES": ("parse_max_inflated_bytes", _int),
    "PARSE_TIMEOUT": ("parse_timeout", _float),
    "PARSE_OCR": ("parse_ocr", lambda v, n: v),
    "MCP_ALLOWED_HOSTS": ("mcp_allowed_hosts", _list),
    "WORKERS": ("workers", _int),
    "WORKERS_QUEUE": ("workers_queue", _int),
    "METRICS_TOKEN": ("metrics_token", lambda v, n: v),
    "BILLING_LEASE_SECONDS": ("billing_lease_seconds", _float),
    "JOBS_WORKERS": ("jobs_workers", _int),
    "JOBS_RETENTION_SECONDS": ("jobs_retention_seconds", _int),
    "JOBS_LEASE_SECONDS": ("jobs_lease_seconds", _float),
    "JOBS_BROWSER_SHARE": ("jobs_browser_share", _int),
    "WEBHOOK_TIMEOUT": ("webhook_timeout", _float),
    "WEBHOOK_RETRY_SCHEDULE": ("webhook_retry_schedule", _floats),
    "WEBHOOK_MAX_AGE_SECONDS": ("webhook_max_age_seconds", _float),
    "WEBHOOK_MAX_PENDING": ("webhook_max_pending", _int),
    "WEBHOOK_MAX_PAYLOAD_BYTES": ("webhook_max_payload_bytes", _int),
    "WEBHOOK_POLL_SECONDS": ("webhook_poll_seconds", _float),
    "WEBHOOK_SECRET_GRACE_SECONDS": ("webhook_secret_grace_seconds", _float),
    "WEBHOOK_RETENTION_SECONDS": ("webhook_retention_seconds", _float),
}

#: The environment variable of each setting that has one, by setting name
#: (``plans`` has none: it is a TOML table).
ENV_VARIABLES: Mapping[str, str] = {
    attr: f"RENDERKIT_{suffix}" for suffix, (attr, _) in _ENV.items()
}

#: Settings whose values are secrets: never logged, never shown by the diagnostic view.
SECRET_FIELDS = frozenset(
    {
        "secret",
        "admin_token",
        "s3_secret_access_key",
        "smtp_password",
        "redis_url",
        "elevenlabs_api_key",
        "llm_api_key",
        "parse_arbiter_api_key",
        # Browser services take their token in the endpoint URL.
        "browser_cdp_url",
        "browser_cdp_urls",
        "metrics_token",
    }
)


@attrs.frozen(kw_only=True)
class Settings:
    """Everything the server needs to know, with embedded defaults that need nothing running.

    Attributes:
        data_dir: local files, the SQLite database, the generated secret and the mail outbox.
        secret: key-signing secret; generated once and kept in ``data_dir`` when unset.
        admin_token: bearer token for operator calls (paid-plan keys, diagnostics).
        allow_private_urls: let the browser reach private addresses (development only).
        browser_cdp_url: one remote browser's DevTools endpoint (``ws://``, ``wss://`` or
            ``http://host:port``) instead of a local Chromium.
        browser_cdp_urls: several remote browsers, a fleet: renders go to the least busy
            healthy one; one that dies is taken out and probed back. ``browser_cdp_url``, if
            also set, is one more member. Tokens in these URLs are never logged or shown.
        browser_slots: browser renders running at once (about one per core), per
            endpoint in a fleet.
        browser_max_queue: renders waiting for a slot over all keys (503 beyond).
        browser_tenant_queue: renders one key may have waiting besides its plan's
            ``browser_inflight`` running ones (429 TOO_MANY_IN_FLIGHT beyond).
        browser_queue_timeout: seconds a render may wait for a slot (503 OVERLOADED with
            Retry-After beyond).
        render_timeout: seconds a template render (image or PDF) may take once started.
        document_timeout: seconds a custom-HTML image or PDF may take once started.
        screenshot_timeout: seconds a screenshot may take once started, plus its delay.
        allow_networks: CIDR ranges the browser may reach although they are private (an
            operator's internal host, or one loopback address for tests), e.g. ``10.1.2.3/32``.
        public_url: external base URL of this server, for absolute file URLs.
        files_public_url: base URL under which stored files are publicly served (a CDN);
            when set, file URLs are permanent instead of signed and expiring.
        url_ttl_seconds: lifetime of signed file URLs (24 h).
        cache_ttl_seconds: how long identical image, PDF and audio requests are answered
            from the render cache, free (24 h; 0 disables the cache). Each key lineage
            (a key and its regenerations) has its own entries.
        cache_share_templates: let every key be answered from one another's renders of a
            named image or PDF template (not custom HTML, screenshots, audio or parses):
            identical template requests then render once for all keys, but a key can tell
            (``X-Cache: HIT``) that another key rendered the same template with the same
            data. Off by default.
        idempotency_ttl_seconds: how long the first answer to a POST with an
            ``Idempotency-Key`` is replayed to its retries (24 h).
        idempotency_max_keys: ``Idempotency-Key`` entries one key lineage keeps at once;
            past it the oldest are forgotten (a retry of one of those runs again).
        idempotency_max_answer_bytes: largest answer kept for replay; a larger one is not
            kept, and a retry of its request runs (and is charged) again.
        max_body_bytes: largest accepted request body (413 beyond).
        header_timeout: seconds a client has to send a request's headers, from connecting
            or from the previous response; the connection is closed beyond (a client sending
            them a byte at a time would otherwise hold it for ever). Applies under
            ``renderkit serve``.
        body_timeout: seconds a client has to send a request's body once its headers are in;
            the connection is closed beyond. The default allows a 10 MB body at about
            1.4 Mbit/s. Applies under ``renderkit serve``.
        pdf_max_pages: most pages a PDF (or PDF screenshot) may have; longer documents are
            refused with 400 and cost nothing, and printing stops one page past the cap.
        cors_origins: origins allowed by CORS (none by default).
        storage: ``local`` or ``s3``.
        redis_url: use Redis for the state replicas share: usage and quotas, key
            revocations, ended MCP sessions, per-key in-flight leases; SQLite and this
            process otherwise.
        browser_user: the account (name or uid) a local Chromium runs as when the server
            runs as root, with Chromium's sandbox on; ``root`` keeps root and turns the
            sandbox off (logged as a warning).
        browser_split: the local pool runs two Chromiums, one for template pages and one
            for screenshots and custom HTML (``BrowserConfig.split_browsers``); false keeps
            one, which saves a browser's memory.
        browser_begin_frame: the split pool's template browsers draw only the frames they
            capture, one browser per slot (``BrowserConfig.begin_frame_capture``, default
            on): faster and cheaper cards, alone and concurrent; false saves a browser per
            slot beyond the first (memory).
        plans: per-plan limit overrides from the TOML config file (``[plans.starter]``...).
        speech_provider: ``local`` (espeak-ng, default) or ``elevenlabs``.
        elevenlabs_api_key: the ElevenLabs key, with speech_provider ``elevenlabs``.
        espeak: the espeak-ng executable for the local speech provider.
        speech_engine: the default local engine, ``espeak`` (default) or ``kokoro`` (the
            neural voice: ``renderkit[neural-speech]`` plus ``renderkit speech
            install-kokoro``); it speaks the premade voice ids. Kokoro voice ids
            (``af_heart``...) use Kokoro whenever it is installed, espeak-ng ids espeak-ng.
        signing_p12_file: the operator's signing certificate, key and chain as a PKCS#12
            file: pdf-ops ``sign`` signs with it (PAdES); unset, ``sign`` is refused (400).
            Read once at startup; a file that does not open stops the server.
        signing_p12_password_file: a file holding the PKCS#12 passphrase (one line; the
            passphrase itself is never a setting, so it is never in the environment).
        signing_timestamp_url: an RFC 3161 time-stamp authority: signatures become PAdES
            B-T instead of B-B.
        kokoro_dir: the Kokoro cache install-kokoro wrote (default
            ``~/.cache/renderkit/kokoro``).
        kokoro_model: an operator's own Kokoro v1.0 ONNX file instead of the cache's.
        kokoro_threads: onnxruntime threads of a Kokoro call running alone (default: the
            CPUs, at most 4; 1 on a machine busy with other work, and to save ~280 MB).
        kokoro_parallel: Kokoro calls (sentences) running at once over every request;
            unset: the CPUs, at most 4. Memory grows little with it: the model is shared.
        speech_timeout: seconds one synthesis may take (504 beyond, the engine stopped); a
            script longer than the engine says in that time is refused up front (400 on
            ``script``; see :mod:`renderkit.speech.budget`).
        shutdown_timeout: seconds a graceful shutdown (SIGTERM) waits for requests in
            progress before cancelling them.
        parse_extractor: ``local`` (offline rules, default), ``openai`` (any OpenAI-compatible
            chat-completions endpoint: OpenAI, vLLM, llama.cpp, Ollama...) or ``anthropic``.
        llm_api_key: the model provider's key (a self-hosted OpenAI-compatible server that
            needs none may leave it unset).
        llm_model: the model name, e.g. ``gpt-4o-mini`` or ``claude-sonnet-4-5``.
        llm_base_url: the provider's base URL (default: the provider's public API).
        llm_send_images: also send page images (vision models).
        parse_arbiter: a language model asked to choose between the candidates of a name
            (the seller of a receipt or invoice) the local extractor's rules are unsure of:
            ``openai`` (any OpenAI-compatible server: llama.cpp's llama-server, Ollama, vLLM,
            OpenAI) or ``anthropic``; unset or ``off`` (default): never asked, nothing sent.
            Only with parse_extractor ``local``. The top rows of each such document go to
            it (docs/parsing.md, "Language-model arbiter").
        parse_arbiter_model: the arbiter's model name (required with parse_arbiter).
        parse_arbiter_base_url: the arbiter's base URL, e.g. ``http://127.0.0.1:8080/v1``
            (default: the provider's public API).
        parse_arbiter_api_key: the arbiter provider's key (a local server that needs none
            may leave it unset when parse_arbiter_base_url is set).
        parse_arbiter_timeout: seconds the arbiter may take per document, retries included
            (default 5; less than parse_timeout); past it the rules' choice stays.
        parse_arbiter_threshold: names whose confidence is at or above it are not asked
            about (default 0.8).
        parse_arbiter_constrained: constrain the OpenAI-compatible answer to the offered
            numbers with an integer-enum JSON Schema (default true: llama-server, Ollama,
            vLLM); false for OpenAI's hosted API, which takes only object schemas.
        parse_max_bytes: largest document to parse; its base64 must also fit max_body_bytes.
        parse_max_pages: most PDF pages per parse.
        parse_max_pixels, parse_max_ocr_pixels, parse_max_embedded_bytes,
            parse_max_inflated_bytes: the parse cost ceilings, as
            :class:`~renderkit.parsing.ParseLimits` ``max_pixels`` (an image or page),
            ``max_ocr_pixels`` (all of a PDF's OCR pages), ``max_embedded_bytes``
            (attachments decoded) and ``max_inflated_bytes`` (other PDF streams decoded);
            the defaults are ParseLimits' (docs/security.md).
        parse_timeout: seconds one parse may take (OCR and extraction together).
        parse_ocr: the OCR engine, ``rapidocr`` or ``tesseract``; unset: RapidOCR when the
            ``ocr`` extra's rapidocr and onnxruntime are installed, else Tesseract.
        key_issue_per_hour: self-service keys one client address may obtain per hour.
        trust_forwarded_for: deprecated alias: trust loopback and private ranges as proxies
            (adds :data:`~renderkit_server.clientaddr.PRIVATE_NETWORKS` to trusted_proxies).
        trusted_proxies: CIDRs of reverse proxies whose ``X-Forwarded-For`` is believed;
            the client is the right-most untrusted hop. Empty: the TCP peer is the client.
        key_regenerate_per_hour: regenerations per key lineage per hour.
        key_regenerate_per_address_per_hour: regenerations per client address per hour.
        key_mail_per_hour: key e-mails (generate and regenerate) per recipient per hour.
        key_mail_per_day: key e-mails per recipient per day (UTC).
        mail_retry_seconds: first delay before retrying e-mails that could not be sent;
            doubled after each failed pass.
        mail_retry_max_seconds: the longest delay between retries.
        mcp_allowed_hosts: Host names (``name`` or ``name:port``; ``*`` for any) the MCP
            endpoint answers besides loopback and the host of public_url; browsers' Origins
            must be one of them (or in cors_origins). Guards against DNS rebinding.
        workers: CPU-heavy jobs run at once in each worker pool (``ocr`` pages, ``audio``
            encodings, ``pdf`` reading for parse); unset: the CPUs the process may use.
        workers_queue: jobs waiting per pool beyond which calls are refused with 503
            OVERLOADED and Retry-After; unset: 4 x workers.
        metrics_token: when set, ``GET /metrics`` needs ``Authorization: Bearer <token>``;
            unset, it is open (restrict it at the proxy, or set this).
        billing_lease_seconds: how long the charges of a running call are held before they
            must be renewed (a running call renews them every third of this). A call is
            charged only when it completes; if the server dies mid-call, its held charges
            stop counting against the quota after at most this long.
        jobs_workers: asynchronous jobs this replica runs at once (0: it only accepts them,
            other replicas sharing the queue run them).
        jobs_retention_seconds: how long a job, its batch and its result stay readable
            after submission (7 days); then they read as missing and are deleted. The
            files of a result follow ``url_ttl_seconds`` like any other.
        jobs_lease_seconds: how long a worker holds a job without renewing it (every third
            of this); a job whose worker died runs again on another after at most this.
        jobs_browser_share: percent of ``browser_slots`` this replica's job workers may use
            at once for browser work (rounded down, at least one), so queued jobs never
            take every slot from synchronous calls.
        webhook_timeout: seconds for one webhook attempt, from resolving the receiver's
            host to reading its answer.
        webhook_retry_schedule: seconds before each webhook attempt, counted from the
            previous one (the first from the event); each wait is drawn between 0 and its
            step (full jitter); after the last step a delivery gives up.
        webhook_max_age_seconds: no webhook attempt is made this long after its event.
        webhook_max_pending: webhook deliveries one key lineage may have pending.
        webhook_max_payload_bytes: the largest webhook body.
        webhook_poll_seconds: seconds between looks at the webhook outbox for retries
            that came due.
        webhook_secret_grace_seconds: how long a rotated-out webhook secret keeps signing
            beside the new one.
        webhook_retention_seconds: how long finished webhook deliveries and their attempts
            are kept.
    """

    data_dir: Path = Path("data")
    secret: str | None = attrs.field(default=None, repr=False)
    admin_token: str | None = attrs.field(default=None, repr=False)
    allow_private_urls: bool = False
    allow_networks: tuple[str, ...] = attrs.field(default=(), validator=_networks)
    public_url: str | None = None
    files_public_url: str | None = None
    url_ttl_seconds: int = 24 * 3600
    cache_ttl_seconds: int = attrs.field(default=24 * 3600, validator=attrs.validators.ge(0))
    cache_share_templates: bool = False
    idempotency_ttl_seconds: int = attrs.field(default=24 * 3600, validator=attrs.validators.gt(0))
    idempotency_max_keys: int = attrs.field(default=10_000, validator=attrs.validators.ge(1))
    idempotency_max_answer_bytes: int = attrs.field(
        default=1024 * 1024, validator=attrs.validators.ge(0)
    )
    max_body_bytes: int = 10 * 1024 * 1024
    header_timeout: float = attrs.field(default=10.0, validator=attrs.validators.gt(0))
    body_timeout: float = attrs.field(default=60.0, validator=attrs.validators.gt(0))
    cors_origins: tuple[str, ...] = ()
    storage: str = attrs.field(default="local", validator=attrs.validators.in_(("local", "s3")))
    s3_bucket: str | None = None
    s3_endpoint_url: str | None = None
    s3_region: str | None = None
    s3_access_key_id: str | None = attrs.field(default=None, repr=False)
    s3_secret_access_key: str | None = attrs.field(default=None, repr=False)
    s3_public_url: str | None = None
    redis_url: str | None = attrs.field(default=None, repr=False)
    chromium: str = DEFAULT_CHROMIUM
    browser_cdp_url: str | None = attrs.field(default=None, repr=False)
    browser_cdp_urls: tuple[str, ...] = attrs.field(default=(), repr=False)
    browser_slots: int = 2
    browser_max_queue: int = 32
    browser_tenant_queue: int = 4
    browser_queue_timeout: float = 10.0
    browser_user: str | int = "nobody"
    browser_split: bool = True
    browser_begin_frame: bool = True
    render_timeout: float = 20.0
    pdf_max_pages: int = 500
    document_timeout: float = 10.0
    screenshot_timeout: float = 12.0
    smtp_host: str | None = None
    smtp_port: int = 587
    smtp_username: str | None = None
    smtp_password: str | None = attrs.field(default=None, repr=False)
    smtp_sender: str = "renderkit <no-reply@localhost>"
    smtp_tls: bool | None = None
    key_issue_per_hour: int = 5
    trust_forwarded_for: bool = False
    trusted_proxies: tuple[str, ...] = attrs.field(
        default=(), validator=lambda _s, _a, value: TrustedProxies(value)
    )
    key_regenerate_per_hour: int = attrs.field(default=5, validator=attrs.validators.ge(0))
    key_regenerate_per_address_per_hour: int = attrs.field(
        default=20, validator=attrs.validators.ge(0)
    )
    key_mail_per_hour: int = attrs.field(default=5, validator=attrs.validators.ge(0))
    key_mail_per_day: int = attrs.field(default=20, validator=attrs.validators.ge(0))
    mail_retry_seconds: float = attrs.field(default=30.0, validator=attrs.validators.gt(0))
    mail_retry_max_seconds: float = attrs.field(default=1800.0, validator=attrs.validators.gt(0))
    config_file: Path | None = None
    signing_p12_file: Path | None = None
    signing_p12_password_file: Path | None = None
    signing_timestamp_url: str | None = None
    plans: Mapping[str, Any] = attrs.field(factory=dict)
    speech_provider: str = attrs.field(
        default="local", validator=attrs.validators.in_(("local", "elevenlabs"))
    )
    elevenlabs_api_key: str | None = attrs.field(default=None, repr=False)
    espeak: str = "espeak-ng"
    speech_engine: str = attrs.field(
        default="espeak", validator=attrs.validators.in_(("espeak", "kokoro"))
    )
    kokoro_dir: Path | None = None
    kokoro_model: Path | None = None
    kokoro_threads: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.ge(1))
    )
    kokoro_parallel: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.ge(1))
    )
    # 120 s x Kokoro's throughput figure: 1,440 characters, about 1.5 minutes of speech.
    speech_timeout: float = attrs.field(default=120.0, validator=attrs.validators.gt(0))
    shutdown_timeout: float = attrs.field(default=30.0, validator=attrs.validators.gt(0))
    parse_extractor: str = attrs.field(
        default="local", validator=attrs.validators.in_(("local", "openai", "anthropic"))
    )
    llm_api_key: str | None = attrs.field(default=None, repr=False)
    llm_model: str | None = None
    llm_base_url: str | None = None
    llm_send_images: bool = False
    parse_arbiter: str | None = attrs.field(
        default=None,
        validator=attrs.validators.optional(attrs.validators.in_(("openai", "anthropic"))),
    )
    parse_arbiter_model: str | None = None
    parse_arbiter_base_url: str | None = None
    parse_arbiter_api_key: str | None = attrs.field(default=None, repr=False)
    parse_arbiter_timeout: float = attrs.field(default=5.0, validator=attrs.validators.gt(0))
    parse_arbiter_threshold: float = attrs.field(
        default=0.8, validator=[attrs.validators.ge(0), attrs.validators.le(1)]
    )
    parse_arbiter_constrained: bool = True
    # 7 MB of file is ~9.4 MB of base64: it fits the default 10 MB body limit.
    parse_max_bytes: int = attrs.field(default=7_000_000, validator=attrs.validators.ge(1))
    parse_max_pages: int = attrs.field(default=50, validator=attrs.validators.ge(1))
    parse_max_pixels: int = attrs.field(
        default=_PARSE_LIMITS.max_pixels, validator=attrs.validators.ge(1)
    )
    parse_max_ocr_pixels: int = attrs.field(
        default=_PARSE_LIMITS.max_ocr_pixels, validator=attrs.validators.ge(1)
    )
    parse_max_embedded_bytes: int = attrs.field(
        default=_PARSE_LIMITS.max_embedded_bytes, validator=attrs.validators.ge(1)
    )
    parse_max_inflated_bytes: int = attrs.field(
        default=_PARSE_LIMITS.max_inflated_bytes, validator=attrs.validators.ge(1)
    )
    parse_timeout: float = attrs.field(default=120.0, validator=attrs.validators.gt(0))
    parse_ocr: str | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.in_(OCR_ENGINES))
    )
    mcp_allowed_hosts: tuple[str, ...] = ()
    workers: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.ge(1))
    )
    workers_queue: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.ge(0))
    )
    metrics_token: str | None = attrs.field(default=None, repr=False)
    billing_lease_seconds: float = attrs.field(default=120.0, validator=attrs.validators.gt(0))
    jobs_workers: int = attrs.field(default=2, validator=attrs.validators.ge(0))
    jobs_retention_seconds: int = attrs.field(
        default=7 * 24 * 3600, validator=attrs.validators.gt(0)
    )
    jobs_lease_seconds: float = attrs.field(default=30.0, validator=attrs.validators.gt(0))
    jobs_browser_share: int = attrs.field(default=50, validator=attrs.validators.in_(range(1, 101)))
    webhook_timeout: float = attrs.field(default=10.0, validator=attrs.validators.gt(0))
    # Standard Webhooks' suggested schedule: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h.
    webhook_retry_schedule: tuple[float, ...] = attrs.field(
        default=(0.0, 5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0), validator=_schedule
    )
    webhook_max_age_seconds: float = attrs.field(
        default=24 * 3600.0, validator=attrs.validators.gt(0)
    )
    webhook_max_pending: int = attrs.field(default=1000, validator=attrs.validators.ge(1))
    webhook_max_payload_bytes: int = attrs.field(
        default=64 * 1024, validator=attrs.validators.ge(1024)
    )
    webhook_poll_seconds: float = attrs.field(default=1.0, validator=attrs.validators.gt(0))
    webhook_secret_grace_seconds: float = attrs.field(
        default=24 * 3600.0, validator=attrs.validators.ge(0)
    )
    webhook_retention_seconds: float = attrs.field(
        default=7 * 24 * 3600.0, validator=attrs.validators.gt(0)
    )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Read ``RENDERKIT_*`` variables (and the TOML file named by ``RENDERKIT_CONFIG``).

        The TOML file may hold the same settings in lower case (``data_dir = "..."``) and a
        ``[plans.<name>]`` table per plan; environment variables win over the file, and
        ``overrides`` win over both.

        Raises:
            ConfigurationError: a value cannot be parsed, or the file cannot be read.
        """
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for suffix, (attr, parse) in _ENV.items():
            name = f"RENDERKIT_{suffix}"
            if name in environ and environ[name] != "":
                values[attr] = parse(environ[name], name)
        config_file = overrides.get("config_file", values.get("config_file"))
        file_values = _read_toml(config_file) if config_file else {}
        merged = {**file_values, **values, **overrides}
        try:
            return cls(**merged)
        except (TypeError, ValueError) as exc:
            msg = f"invalid setting: {exc}"
            raise ConfigurationError(msg) from None

    def resolved_secret(self) -> str:
        """The signing secret: configured, or generated once and persisted in data_dir."""
        if self.secret:
            return self.secret
        path = self.data_dir / "secret.key"
        if path.exists():
            return path.read_text().strip()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        value = secrets.token_urlsafe(48)
        # Create with 0600 atomically so the secret is never world-readable, even briefly.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process won the race: use its secret
            return path.read_text().strip()
        with os.fdopen(fd, "w") as handle:
            handle.write(value)
        return value

    def environment_report(self, environ: Mapping[str, str]) -> dict[str, dict[str, Any]]:
        """Which RENDERKIT_* variables are set, with lengths only (never values)."""
        report = {}
        for suffix in _ENV:
            name = f"RENDERKIT_{suffix}"
            value = environ.get(name, "")
            report[name] = {"set": bool(value), "length": len(value)}
        return report


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        msg = f"cannot read the config file: {exc.__class__.__name__}"
        raise ConfigurationError(msg) from None
    fields = {f.name for f in attrs.fields(Settings)}
    unknown = sorted(set(data) - fields)
    if unknown:
        msg = f"unknown settings in the config file: {', '.join(unknown)}"
        raise ConfigurationError(msg)
    for name in ("data_dir", "signing_p12_file", "signing_p12_password_file"):
        if name in data:
            data[name] = Path(data[name])
    for name in (
        "cors_origins",
        "mcp_allowed_hosts",
        "trusted_proxies",
        "allow_networks",
        "browser_cdp_urls",
        "webhook_retry_schedule",
    ):
        if name in data:
            data[name] = tuple(data[name])
    return data
