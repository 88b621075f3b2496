"""A :class:`~renderkit_server.state.jobs.base.JobStore` on Redis: the job queue every
replica shares, so any replica accepts a job and any worker (on any replica) runs it.

Every state change is one Lua script, so it is atomic across replicas: two workers never
hold valid claims on one job, and a cap is checked and applied in one step. The keys,
under ``renderkit:jobs`` (one Redis, not a Cluster: the scripts touch keys they compute)::

    job:<id>       hash   the job: its fields, plus rank, token and lease_until
    batch:<id>     hash   a batch
    ready          zset   queued job ids by fair-queueing rank (what claim takes from)
    running        zset   claimed job ids by lease end (what claim recovers first)
    owner:<owner>  zset   an owner's job ids by creation time (list, newest first)
    active:<owner> set    an owner's queued and running job ids (the cap)
    ranks          hash   each owner's last rank;  vtime  string  the virtual time
    expiry         zset   "job:<id> <owner>" / "batch:<id>" by expires_at (the sweep;
                          the owner is in the member, so the owner's indexes are cleaned
                          even if Redis dropped the job's key first)

JSON fields (request, result, metadata...) are written by Python and only copied by the
scripts, never decoded there: Lua's cjson cannot tell ``[]`` from ``{}``. Each job and batch
key also expires in Redis a day after its retention, so nothing outlives it for long even
if no replica sweeps. Times come from the store's clock (injected by tests) and are passed
to the scripts, so the replicas' clocks must agree to within the lease (NTP does that).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import redis.asyncio

from renderkit_server.state._redis import redis_errors
from renderkit_server.state.jobs.base import ABANDONED, Batch, BatchView, Claim, Job
from renderkit_server.state.jobs.memory import check_submission

__all__ = ["RedisJobStore"]

_WHAT = "job store"
#: How long after its retention Redis drops a job's key by itself (sweeps are the rule).
_GRACE_SECONDS = 86_400
#: Expired records one sweep script deletes.
_SWEEP_STEP = 500

# A held claim: running, same token, lease not run out. ARGV: prefix, id, token, now.
_HELD = """
local function held(p, id, token, now)
    local job = p .. 'job:' .. id
    local f = redis.call('HMGET', job, 'status', 'token', 'lease_until')
    if f[1] ~= 'running' or f[2] ~= token or tonumber(f[3]) <= now then
        return nil
    end
    return job
end
"""

# KEYS: none (one Redis). ARGV: prefix, owner, now, cap ('' for none), has_batch, batch
# fields..., then per job: id, weight, expire_at, and its field/value pairs (count first).
_SUBMIT = """
local p, owner, now, cap = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local njobs = tonumber(ARGV[5])
local active = p .. 'active:' .. owner
if cap ~= '' then
    local live = 0
    for _, id in ipairs(redis.call('SMEMBERS', active)) do
        local expires = redis.call('HGET', p .. 'job:' .. id, 'expires_at')
        if expires and tonumber(expires) > now then live = live + 1 end
    end
    if live + njobs > tonumber(cap) then return 0 end
end
local vtime = tonumber(redis.call('GET', p .. 'vtime') or '0')
local last = redis.call('HGET', p .. 'ranks', owner)
local i = 6
for _ = 1, njobs do
    local id, weight, expire_at = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
    local nfields = tonumber(ARGV[i + 3])
    local start = vtime
    if last and tonumber(last) > vtime then start = tonumber(last) end
    last = string.format('%.17g', start + 1.0 / weight)
    local job = p .. 'job:' .. id
    local fields = {}
    for k = 1, nfields do fields[k] = ARGV[i + 3 + k] end
    redis.call('HSET', job, 'rank', last, 'token', '', 'lease_until', '0', unpack(fields))
    redis.call('EXPIREAT', job, expire_at)
    local created = redis.call('HGET', job, 'created_at')
    local expires = redis.call('HGET', job, 'expires_at')
    redis.call('ZADD', p .. 'ready', last, id)
    redis.call('ZADD', p .. 'owner:' .. owner, created, id)
    redis.call('SADD', active, id)
    redis.call('ZADD', p .. 'expiry', expires, 'job:' .. id .. ' ' .. owner)
    i = i + 4 + nfields
end
redis.call('HSET', p .. 'ranks', owner, last)
local nbatch = tonumber(ARGV[i])
if nbatch > 0 then
    local batch = p .. 'batch:' .. ARGV[i + 1]
    local fields = {}
    for k = 1, nbatch do fields[k] = ARGV[i + 2 + k] end
    redis.call('HSET', batch, unpack(fields))
    redis.call('EXPIREAT', batch, ARGV[i + 2])
    local expires = redis.call('HGET', batch, 'expires_at')
    redis.call('ZADD', p .. 'expiry', expires, 'batch:' .. ARGV[i + 1])
end
return 1
"""

# ARGV: prefix, now, lease_until, token, max_attempts, abandoned error JSON.
# Recovers the claims whose lease ran out, then takes the smallest live rank (oldest first
# among equal ranks) and moves the virtual time up to it.
_CLAIM = """
local p, now, lease_until, token = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local max_attempts = tonumber(ARGV[5])
for _, id in ipairs(redis.call('ZRANGEBYSCORE', p .. 'running', '-inf', now)) do
    local job = p .. 'job:' .. id
    redis.call('ZREM', p .. 'running', id)
    local f = redis.call('HMGET', job, 'status', 'attempts', 'rank', 'owner')
    if f[1] == 'running' then
        if tonumber(f[2]) >= max_attempts then
            redis.call('HSET', job, 'status', 'failed', 'finished_at', ARGV[2], 'token', '',
                'error', ARGV[6])
            redis.call('SREM', p .. 'active:' .. f[4], id)
        else
            redis.call('HSET', job, 'status', 'queued', 'token', '')
            redis.call('ZADD', p .. 'ready', f[3], id)
        end
    end
end
while true do
    local head = redis.call('ZRANGE', p .. 'ready', 0, 0, 'WITHSCORES')
    if #head == 0 then return nil end
    local best, best_created = nil, nil
    local tied = redis.call('ZRANGEBYSCORE', p .. 'ready', head[2], head[2], 'LIMIT', 0, 64)
    for _, id in ipairs(tied) do
        local f = redis.call('HMGET', p .. 'job:' .. id, 'status', 'expires_at', 'created_at')
        if f[1] ~= 'queued' or not f[2] or tonumber(f[2]) <= now then
            redis.call('ZREM', p .. 'ready', id)
        else
            local created = tonumber(f[3])
            if best == nil or created < best_created or (created == best_created and id < best) then
                best, best_created = id, created
            end
        end
    end
    if best then
        local job = p .. 'job:' .. best
        redis.call('ZREM', p .. 'ready', best)
        redis.call('ZADD', p .. 'running', lease_until, best)
        if tonumber(head[2]) > tonumber(redis.call('GET', p .. 'vtime') or '0') then
            redis.call('SET', p .. 'vtime', head[2])
        end
        redis.call('HINCRBY', job, 'attempts', 1)
        redis.call('HSET', job, 'status', 'running', 'started_at', ARGV[2], 'token', token,
            'lease_until', lease_until)
        return redis.call('HGETALL', job)
    end
end
"""

# ARGV: prefix, id, token, now, new lease_until.
_HEARTBEAT = (
    _HELD
    + """
local job = held(ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]))
if not job then return 0 end
redis.call('HSET', job, 'lease_until', ARGV[5])
redis.call('ZADD', ARGV[1] .. 'running', ARGV[5], ARGV[2])
return 1
"""
)

# ARGV: prefix, id, token, now, status, result JSON or '', error JSON or ''.
_FINISH = (
    _HELD
    + """
local p, id = ARGV[1], ARGV[2]
local job = held(p, id, ARGV[3], tonumber(ARGV[4]))
if not job then return nil end
redis.call('HSET', job, 'status', ARGV[5], 'finished_at', ARGV[4], 'token', '',
    'result', ARGV[6], 'error', ARGV[7])
redis.call('ZREM', p .. 'running', id)
redis.call('SREM', p .. 'active:' .. redis.call('HGET', job, 'owner'), id)
return redis.call('HGETALL', job)
"""
)

# ARGV: prefix, id, token, now. Back to the queue at the job's own rank: it is next.
_REQUEUE = (
    _HELD
    + """
local p, id = ARGV[1], ARGV[2]
local job = held(p, id, ARGV[3], tonumber(ARGV[4]))
if not job then return 0 end
redis.call('HSET', job, 'status', 'queued', 'token', '')
redis.call('ZREM', p .. 'running', id)
redis.call('ZADD', p .. 'ready', redis.call('HGET', job, 'rank'), id)
return 1
"""
)

# ARGV: prefix, now, owner, ids... Cancels the live queued or running ones of owner.
_CANCEL = """
local p, now, owner = ARGV[1], tonumber(ARGV[2]), ARGV[3]
for i = 4, #ARGV do
    local id = ARGV[i]
    local job = p .. 'job:' .. id
    local f = redis.call('HMGET', job, 'status', 'owner', 'expires_at')
    if (f[1] == 'queued' or f[1] == 'running') and f[2] == owner and tonumber(f[3]) > now then
        redis.call('HSET', job, 'status', 'cancelled', 'finished_at', ARGV[2], 'token', '')
        redis.call('ZREM', p .. 'ready', id)
        redis.call('ZREM', p .. 'running', id)
        redis.call('SREM', p .. 'active:' .. owner, id)
    end
end
return 1
"""

# ARGV: prefix, batch id, now. 1 to the one call that completes the batch.
_COMPLETE_BATCH = """
local p, now = ARGV[1], tonumber(ARGV[3])
local batch = p .. 'batch:' .. ARGV[2]
local f = redis.call('HMGET', batch, 'completed_at', 'expires_at', 'job_ids')
if not f[2] or f[1] ~= '' or tonumber(f[2]) <= now then return 0 end
for id in string.gmatch(f[3], '[^,]+') do
    local status = redis.call('HGET', p .. 'job:' .. id, 'status')
    if status == 'queued' or status == 'running' then return 0 end
end
redis.call('HSET', batch, 'completed_at', ARGV[3])
return 1
"""

# ARGV: prefix, now, limit. Deletes at most limit expired records and their index entries;
# returns {records looked at, jobs deleted}.
_SWEEP = """
local p, now = ARGV[1], tonumber(ARGV[2])
local members = redis.call('ZRANGEBYSCORE', p .. 'expiry', '-inf', now, 'LIMIT', 0, ARGV[3])
local deleted = 0
for _, member in ipairs(members) do
    redis.call('ZREM', p .. 'expiry', member)
    local id, owner = string.match(member, '^job:([^ ]+) (.*)$')
    if id then
        redis.call('ZREM', p .. 'owner:' .. owner, id)
        redis.call('SREM', p .. 'active:' .. owner, id)
        redis.call('ZREM', p .. 'ready', id)
        redis.call('ZREM', p .. 'running', id)
        deleted = deleted + redis.call('DEL', p .. 'job:' .. id)
    else
        redis.call('DEL', p .. 'batch:' .. string.sub(member, 7))
    end
end
return {#members, deleted}
"""

# ARGV: prefix, now. Queued live jobs by kind, as a flat kind/count list.
_DEPTH = """
local p, now = ARGV[1], tonumber(ARGV[2])
local counts = {}
for _, id in ipairs(redis.call('ZRANGE', p .. 'ready', 0, -1)) do
    local f = redis.call('HMGET', p .. 'job:' .. id, 'status', 'expires_at', 'kind')
    if f[1] == 'queued' and f[2] and tonumber(f[2]) > now then
        counts[f[3]] = (counts[f[3]] or 0) + 1
    end
end
local out = {}
for kind, n in pairs(counts) do
    out[#out + 1] = kind
    out[#out + 1] = n
end
return out
"""


def _num(value: float | None) -> str:
    # repr keeps every digit of a float, so a time reads back equal to what was written.
    return "" if value is None else repr(float(value))


def _json(value: Mapping[str, Any] | None) -> str:
    return "" if value is None else json.dumps(value, separators=(",", ":"))


def _job_fields(job: Job) -> list[str]:
    return [
        "id", job.id,
        "owner", job.owner,
        "plan", job.plan,
        "kind", job.kind,
        "request", _json(job.request),
        "status", job.status,
        "created_at", _num(job.created_at),
        "expires_at", _num(job.expires_at),
        "started_at", _num(job.started_at),
        "finished_at", _num(job.finished_at),
        "attempts", str(job.attempts),
        "weight", str(job.weight),
        "result", _json(job.result),
        "error", _json(job.error),
        "webhook_url", job.webhook_url or "",
        "metadata", _json(job.metadata),
        "batch_id", job.batch_id or "",
        "base_url", job.base_url or "",
    ]  # fmt: skip


def _str(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _text(raw: Mapping[Any, Any]) -> dict[str, str]:
    return {_str(k): _str(v) for k, v in raw.items()}


def _pairs(flat: Sequence[bytes]) -> dict[str, str]:
    return {_str(flat[i]): _str(flat[i + 1]) for i in range(0, len(flat), 2)}


def _opt_num(text: str) -> float | None:
    return float(text) if text else None


def _opt_json(text: str) -> Any:
    return json.loads(text) if text else None


def _job(f: Mapping[str, str]) -> Job:
    return Job(
        id=f["id"],
        owner=f["owner"],
        plan=f["plan"],
        kind=f["kind"],
        request=json.loads(f["request"]),
        status=f["status"],  # type: ignore[arg-type]  # written only from JobStatus values
        created_at=float(f["created_at"]),
        expires_at=float(f["expires_at"]),
        started_at=_opt_num(f["started_at"]),
        finished_at=_opt_num(f["finished_at"]),
        attempts=int(f["attempts"]),
        weight=int(f["weight"]),
        result=_opt_json(f["result"]),
        error=_opt_json(f["error"]),
        webhook_url=f["webhook_url"] or None,
        metadata=_opt_json(f["metadata"]),
        batch_id=f["batch_id"] or None,
        base_url=f["base_url"] or None,
    )


class RedisJobStore:
    """Jobs as Redis hashes; the queue, leases and fairness as sorted sets changed by scripts.

    Args:
        client: the Redis client; left open by :meth:`aclose` (its owner closes it).
        prefix: namespace of every key.
        clock: returns Unix seconds; injected by tests to move time.
    """

    def __init__(
        self,
        client: redis.asyncio.Redis,
        *,
        prefix: str = "renderkit:jobs",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._client = client
        self._p = prefix + ":"
        self._clock = clock
        self._submit = client.register_script(_SUBMIT)
        self._claim = client.register_script(_CLAIM)
        self._heartbeat = client.register_script(_HEARTBEAT)
        self._finish = client.register_script(_FINISH)
        self._requeue = client.register_script(_REQUEUE)
        self._cancel = client.register_script(_CANCEL)
        self._complete = client.register_script(_COMPLETE_BATCH)
        self._sweep = client.register_script(_SWEEP)
        self._depth = client.register_script(_DEPTH)

    def __repr__(self) -> str:
        return f"RedisJobStore(prefix={self._p[:-1]!r})"

    async def submit(
        self, jobs: Sequence[Job], *, cap: int | None = None, batch: Batch | None = None
    ) -> bool:
        """See :meth:`JobStore.submit`."""
        owner = check_submission(jobs)
        args: list[str] = [self._p, owner, _num(self._clock()), "" if cap is None else str(cap)]
        args.append(str(len(jobs)))
        for job in jobs:
            fields = _job_fields(job)
            expire_at = str(self._expire_at(job.expires_at))
            args += [job.id, str(job.weight), expire_at, str(len(fields)), *fields]
        if batch is None:
            args.append("0")
        else:
            fields = [
                "id", batch.id,
                "owner", batch.owner,
                "created_at", _num(batch.created_at),
                "expires_at", _num(batch.expires_at),
                # Job ids are hex, so a comma never occurs in one.
                "job_ids", ",".join(batch.job_ids),
                "webhook_url", batch.webhook_url or "",
                "metadata", _json(batch.metadata),
                "completed_at", _num(batch.completed_at),
            ]  # fmt: skip
            args += [str(len(fields)), batch.id, str(self._expire_at(batch.expires_at)), *fields]
        with redis_errors(_WHAT):
            return bool(await self._submit(args=args))

    async def get(self, job_id: str, *, owner: str) -> Job | None:
        """See :meth:`JobStore.get`."""
        with redis_errors(_WHAT):
            raw = await self._client.hgetall(self._p + "job:" + job_id)
        return self._visible(_text(raw), owner)

    async def list(self, owner: str, *, limit: int, before: str | None = None) -> list[Job]:
        """See :meth:`JobStore.list`."""
        index = self._p + "owner:" + owner
        count = max(limit, 1)
        with redis_errors(_WHAT):
            if before is None:
                start = 0
            else:
                if await self.get(before, owner=owner) is None:
                    return []
                rank: Any = await self._client.zrevrank(index, before)
                if rank is None:
                    return []
                start = int(rank) + 1
            jobs: list[Job] = []
            # Expired jobs not yet swept are skipped, so read pages until one is full.
            while len(jobs) < count:
                ids: list[Any] = await self._client.zrevrange(index, start, start + count - 1)
                if not ids:
                    break
                start += len(ids)
                async with self._client.pipeline(transaction=False) as pipe:
                    for job_id in ids:
                        pipe.hgetall(self._p + "job:" + _str(job_id))
                    rows = await pipe.execute()
                for row in rows:
                    job = self._visible(_text(row), owner)
                    if job is not None and len(jobs) < count:
                        jobs.append(job)
        return jobs

    async def claim(
        self, worker: str, lease_seconds: float, *, max_attempts: int = 3
    ) -> Claim | None:
        """See :meth:`JobStore.claim`; ``worker`` is not stored."""
        now = self._clock()
        token = uuid.uuid4().hex
        args = [
            self._p,
            _num(now),
            _num(now + lease_seconds),
            token,
            str(max_attempts),
            _json(ABANDONED),
        ]
        with redis_errors(_WHAT):
            flat = await self._claim(args=args)
        if not flat:
            return None
        return Claim(job=_job(_pairs(flat)), token=token)

    async def heartbeat(self, claim: Claim, lease_seconds: float) -> bool:
        """See :meth:`JobStore.heartbeat`."""
        now = self._clock()
        args = [self._p, claim.job.id, claim.token, _num(now), _num(now + lease_seconds)]
        with redis_errors(_WHAT):
            return bool(await self._heartbeat(args=args))

    async def finish(
        self,
        claim: Claim,
        *,
        status: Literal["succeeded", "failed"],
        result: Mapping[str, Any] | None = None,
        error: Mapping[str, Any] | None = None,
    ) -> Job | None:
        """See :meth:`JobStore.finish`."""
        args = [
            self._p,
            claim.job.id,
            claim.token,
            _num(self._clock()),
            status,
            _json(result),
            _json(error),
        ]
        with redis_errors(_WHAT):
            flat = await self._finish(args=args)
        return _job(_pairs(flat)) if flat else None

    async def requeue(self, claim: Claim) -> bool:
        """See :meth:`JobStore.requeue`."""
        args = [self._p, claim.job.id, claim.token, _num(self._clock())]
        with redis_errors(_WHAT):
            return bool(await self._requeue(args=args))

    async def cancel(self, job_id: str, *, owner: str) -> Job | None:
        """See :meth:`JobStore.cancel`."""
        with redis_errors(_WHAT):
            await self._cancel(args=[self._p, _num(self._clock()), owner, job_id])
        return await self.get(job_id, owner=owner)

    async def get_batch(self, batch_id: str, *, owner: str) -> BatchView | None:
        """See :meth:`JobStore.get_batch`."""
        with redis_errors(_WHAT):
            f = _text(await self._client.hgetall(self._p + "batch:" + batch_id))
            if not f or f["owner"] != owner or float(f["expires_at"]) <= self._clock():
                return None
            batch = Batch(
                id=f["id"],
                owner=f["owner"],
                created_at=float(f["created_at"]),
                expires_at=float(f["expires_at"]),
                job_ids=tuple(f["job_ids"].split(",")) if f["job_ids"] else (),
                webhook_url=f["webhook_url"] or None,
                metadata=_opt_json(f["metadata"]),
                completed_at=_opt_num(f["completed_at"]),
            )
            async with self._client.pipeline(transaction=False) as pipe:
                for job_id in batch.job_ids:
                    pipe.hgetall(self._p + "job:" + job_id)
                rows = await pipe.execute()
        jobs = tuple(_job(t) for t in map(_text, rows) if t)
        return BatchView(batch=batch, jobs=jobs)

    async def cancel_batch(self, batch_id: str, *, owner: str) -> BatchView | None:
        """See :meth:`JobStore.cancel_batch`."""
        view = await self.get_batch(batch_id, owner=owner)
        if view is None:
            return None
        ids = [job.id for job in view.jobs]
        with redis_errors(_WHAT):
            await self._cancel(args=[self._p, _num(self._clock()), owner, *ids])
        return await self.get_batch(batch_id, owner=owner)

    async def complete_batch(self, batch_id: str) -> Batch | None:
        """See :meth:`JobStore.complete_batch`."""
        with redis_errors(_WHAT):
            done = await self._complete(args=[self._p, batch_id, _num(self._clock())])
            if not done:
                return None
            owner = await self._client.hget(self._p + "batch:" + batch_id, "owner")
        if owner is None:
            return None
        view = await self.get_batch(batch_id, owner=_str(owner))
        return None if view is None else view.batch

    async def depth(self) -> dict[str, int]:
        """See :meth:`JobStore.depth`. Reads every queued job: a metrics scrape, not a hot path."""
        with redis_errors(_WHAT):
            flat = await self._depth(args=[self._p, _num(self._clock())])
        return {flat[i].decode(): int(flat[i + 1]) for i in range(0, len(flat), 2)}

    async def sweep(self) -> int:
        """See :meth:`JobStore.sweep`; a few hundred records per script, so a day's worth
        expiring at once never holds Redis for long."""
        now, deleted = _num(self._clock()), 0
        with redis_errors(_WHAT):
            while True:
                seen, gone = await self._sweep(args=[self._p, now, str(_SWEEP_STEP)])
                deleted += int(gone)
                if int(seen) < _SWEEP_STEP:
                    return deleted

    async def aclose(self) -> None:
        """Nothing of its own to release: the client belongs to whoever made it."""

    def _visible(self, fields: Mapping[str, str], owner: str) -> Job | None:
        if not fields or fields.get("owner") != owner:
            return None
        if float(fields["expires_at"]) <= self._clock():
            return None
        return _job(fields)

    @staticmethod
    def _expire_at(expires_at: float) -> int:
        return int(expires_at) + _GRACE_SECONDS
