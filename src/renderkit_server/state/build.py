"""Choosing every shared-state backend from the settings, in one place.

With ``redis_url`` every kind lives on Redis behind one client (one connection pool);
otherwise on SQLite files in the data directory, or in memory where one process is all
there is (in-flight leases, ended MCP sessions). The Redis modules are imported here only
when a Redis URL is configured.
"""

from __future__ import annotations

import attrs

from renderkit_server.closing import AsyncCloseable, close_each
from renderkit_server.settings import Settings
from renderkit_server.state.idempotency import IdempotencyStore, SqliteIdempotencyStore
from renderkit_server.state.inflight import InflightLimiter, LocalInflightLimiter
from renderkit_server.state.jobs import JobStore
from renderkit_server.state.jobs.sqlite import SqliteJobStore
from renderkit_server.state.key_owners import KeyOwnerStore, SqliteKeyOwnerStore
from renderkit_server.state.mcp_sessions import EndedSessions, MemoryEndedSessions
from renderkit_server.state.render_cache import RenderCache, SqliteRenderCache
from renderkit_server.state.render_locks import RenderLocks, SqliteRenderLocks
from renderkit_server.state.revocations import RevocationStore, SqliteRevocationStore
from renderkit_server.state.url_secrets import SqliteUrlSecretStore, UrlSecretStore
from renderkit_server.state.usage import SqliteUsageStore, UsageStore
from renderkit_server.state.webhook_outbox import SqliteWebhookOutbox, WebhookOutbox
from renderkit_server.state.webhook_secrets import SqliteWebhookSecretStore, WebhookSecretStore

__all__ = ["SharedState", "build_shared_state"]


@attrs.frozen(kw_only=True)
class SharedState:
    """Every kind of shared state of one app, and the client they may share.

    Attributes:
        usage: quota and abuse-limit counters.
        revocations: key regenerations.
        key_owners: each key lineage's owner e-mail (keys carry none).
        url_secrets: URL-signing secrets by public key id.
        render_cache: the render cache's index.
        inflight: per-key render leases over every replica.
        ended_sessions: ended MCP session ids.
        render_locks: single-flight locks (a signed image rendered once however many
            first views arrive together).
        idempotency: the first answers of keyed POSTs (``Idempotency-Key``).
        jobs: the asynchronous jobs' queue and records.
        webhook_secrets: each key lineage's webhook signing secrets.
        webhook_outbox: webhook deliveries, pending and done, with their attempts.
        client: the Redis client every Redis backend uses (None without Redis).
    """

    usage: UsageStore
    revocations: RevocationStore
    key_owners: KeyOwnerStore
    url_secrets: UrlSecretStore
    render_cache: RenderCache
    inflight: InflightLimiter
    ended_sessions: EndedSessions
    render_locks: RenderLocks
    idempotency: IdempotencyStore
    jobs: JobStore
    webhook_secrets: WebhookSecretStore
    webhook_outbox: WebhookOutbox
    client: AsyncCloseable | None = None

    async def aclose(self) -> None:
        """Close every store, then the client they share; one failing does not stop the rest."""
        await close_each(
            self.usage,
            self.revocations,
            self.key_owners,
            self.url_secrets,
            self.render_cache,
            self.inflight,
            self.render_locks,
            self.idempotency,
            self.jobs,
            self.webhook_secrets,
            self.webhook_outbox,
            self.client,
        )


def build_shared_state(
    settings: Settings,
    *,
    usage: UsageStore | None = None,
    render_cache: RenderCache | None = None,
) -> SharedState:
    """The backends the settings describe; nothing connects until first used.

    Args:
        settings: ``redis_url`` chooses Redis; ``data_dir`` (which must exist) holds the
            SQLite files otherwise.
        usage: the usage store to use instead of the configured one.
        render_cache: the render cache's index to use instead of the configured one.

    Raises:
        ConfigurationError: ``redis_url`` is malformed.
        MissingDependencyError: ``redis_url`` is set but the ``redis`` package is missing.
    """
    if settings.redis_url:
        return _on_redis(settings.redis_url, settings, usage, render_cache)
    data = settings.data_dir
    return SharedState(
        usage=usage or SqliteUsageStore(data / "usage.sqlite3"),
        revocations=SqliteRevocationStore(data / "keys.sqlite3"),
        key_owners=SqliteKeyOwnerStore(data / "key-owners.sqlite3"),
        url_secrets=SqliteUrlSecretStore(data / "url-secrets.sqlite3"),
        render_cache=render_cache or SqliteRenderCache(data / "cache.sqlite3"),
        inflight=LocalInflightLimiter(),
        ended_sessions=MemoryEndedSessions(),
        # SQLite, not memory: the workers of one host must agree on who renders.
        render_locks=SqliteRenderLocks(data / "locks.sqlite3"),
        idempotency=SqliteIdempotencyStore(
            data / "idempotency.sqlite3", max_per_lineage=settings.idempotency_max_keys
        ),
        jobs=SqliteJobStore(data / "jobs.sqlite3"),
        webhook_secrets=SqliteWebhookSecretStore(data / "webhook-secrets.sqlite3"),
        # SQLite, not memory: a scheduled retry must survive a restart.
        webhook_outbox=SqliteWebhookOutbox(data / "webhooks.sqlite3"),
    )


def _on_redis(
    url: str, settings: Settings, usage: UsageStore | None, render_cache: RenderCache | None
) -> SharedState:
    # Imported here: they need the optional redis package, which only Redis users install.
    from renderkit_server.state._redis import connect
    from renderkit_server.state.idempotency.redis import RedisIdempotencyStore
    from renderkit_server.state.inflight.redis import RedisInflightLimiter
    from renderkit_server.state.jobs.redis import RedisJobStore
    from renderkit_server.state.key_owners.redis import RedisKeyOwnerStore
    from renderkit_server.state.mcp_sessions.redis import RedisEndedSessions
    from renderkit_server.state.render_cache.redis import RedisRenderCache
    from renderkit_server.state.render_locks.redis import RedisRenderLocks
    from renderkit_server.state.revocations.redis import RedisRevocationStore
    from renderkit_server.state.url_secrets.redis import RedisUrlSecretStore
    from renderkit_server.state.usage.redis import RedisUsageStore
    from renderkit_server.state.webhook_outbox.redis import RedisWebhookOutbox
    from renderkit_server.state.webhook_secrets.redis import RedisWebhookSecretStore

    client = connect(url)
    return SharedState(
        usage=usage or RedisUsageStore(client),
        revocations=RedisRevocationStore(client),
        key_owners=RedisKeyOwnerStore(client),
        url_secrets=RedisUrlSecretStore(client),
        render_cache=render_cache or RedisRenderCache(client),
        inflight=RedisInflightLimiter(client, queue_timeout=settings.browser_queue_timeout),
        ended_sessions=RedisEndedSessions(client),
        render_locks=RedisRenderLocks(client),
        idempotency=RedisIdempotencyStore(client, max_per_lineage=settings.idempotency_max_keys),
        jobs=RedisJobStore(client),
        webhook_secrets=RedisWebhookSecretStore(client),
        webhook_outbox=RedisWebhookOutbox(client),
        client=client,
    )
