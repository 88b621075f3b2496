"""The state the server's replicas share, one subpackage per kind.

Each kind is a folder with the same shape: ``base.py`` (the ``Protocol``, whose docstrings
state the edge cases), then one module per backend: ``memory.py`` (one process; the test
fake), ``sqlite.py`` (the processes of one host) and ``redis.py`` (every replica)::

    usage/          monthly usage, billing leases, bursts, abuse     memory sqlite redis
    revocations/    key regenerations, announced to every replica    memory sqlite redis
    url_secrets/    public key id -> URL-signing secret              memory sqlite redis
    render_cache/   cache key -> stored file (+ keys, lookup)        memory sqlite redis
    inflight/       per-key render leases (+ limited browser)        memory        redis
    mcp_sessions/   ended MCP session ids                            memory        redis
    render_locks/   single flight of a signed image's first render   memory sqlite redis
    idempotency/    first answers of keyed POSTs (Idempotency-Key)   memory sqlite redis
    webhook_secrets/  key lineage -> webhook signing secrets         memory sqlite redis
    webhook_outbox/   webhook deliveries, their attempts and retries memory sqlite redis

:mod:`.build` is the one place that chooses backends from the settings (Redis when
``redis_url`` is set, else SQLite in the data directory or memory) and the one place that
makes the Redis client all kinds share; :mod:`._sqlite` is the one SQLite helper. Nothing
here imports ``redis`` unless a Redis URL is configured, so ``renderkit[server]`` runs
without it.

Adding a kind (job state is expected next): a folder with
``base.py`` and its backends, a field on :class:`~.build.SharedState` filled in
:func:`~.build.build_shared_state`, and a contract suite in ``tests/server/state/``
parametrised over every backend.
"""
