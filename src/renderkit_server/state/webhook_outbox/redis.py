"""The webhook outbox on Redis, shared by every replica.

Keys (under the prefix): ``d:<id>`` the record (:func:`~.base.encode`), ``due`` a sorted
set of pending ids by due time, ``pending:<lineage>`` the set of a lineage's pending ids
(its backlog), ``subject:<lineage>:<subject>`` a sorted set of ids by creation, and
``finished`` a sorted set of finished ids by creation (what :meth:`purge` reads).
"""

from __future__ import annotations

from datetime import datetime, timedelta

import attrs
import redis.asyncio

from renderkit_server.state._redis import redis_errors
from renderkit_server.state.webhook_outbox.base import Delivery, backlog_full, decode, encode

__all__ = ["RedisWebhookOutbox"]

_WHAT = "webhook outbox"

# The duplicate and backlog checks and the write in one step: two replicas adding at once
# cannot both take the last place, nor both write one id. 1: written, 2: the id was there.
_ADD = """
if redis.call('EXISTS', KEYS[3]) == 1 then return 2 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
redis.call('SET', KEYS[3], ARGV[4])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[2])
return 1
"""

# Take the due ids and push them a lease ahead in one step: no two callers get one id.
_CLAIM = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], ARGV[2], id) end
return ids
"""


class RedisWebhookOutbox:
    """Deliveries on Redis, shared by every replica.

    Args:
        client: the Redis client; left open by :meth:`aclose` (its owner closes it).
        prefix: namespace of the keys.
    """

    def __init__(self, client: redis.asyncio.Redis, *, prefix: str = "renderkit:webhooks") -> None:
        self._client = client
        self._prefix = prefix
        self._add = client.register_script(_ADD)
        self._claim = client.register_script(_CLAIM)

    def __repr__(self) -> str:
        return f"RedisWebhookOutbox(prefix={self._prefix!r})"

    def _record(self, delivery_id: str) -> str:
        return f"{self._prefix}:d:{delivery_id}"

    def _subject(self, lineage: str, subject: str) -> str:
        return f"{self._prefix}:subject:{lineage}:{subject}"

    async def add(self, delivery: Delivery, *, max_pending: int) -> bool:
        """See :meth:`WebhookOutbox.add`."""
        due = delivery.due or delivery.created
        with redis_errors(_WHAT):
            added = await self._add(
                keys=[
                    f"{self._prefix}:pending:{delivery.lineage}",
                    f"{self._prefix}:due",
                    self._record(delivery.id),
                    self._subject(delivery.lineage, delivery.subject),
                ],
                args=[
                    max_pending,
                    delivery.id,
                    due.timestamp(),
                    encode(delivery),
                    delivery.created.timestamp(),
                ],
            )
        if not added:
            raise backlog_full(max_pending)
        return int(added) == 1

    async def claim(self, now: datetime, *, lease: float, limit: int) -> list[Delivery]:
        """See :meth:`WebhookOutbox.claim`."""
        until = now + timedelta(seconds=lease)
        with redis_errors(_WHAT):
            ids = await self._claim(
                keys=[f"{self._prefix}:due"], args=[now.timestamp(), until.timestamp(), limit]
            )
            if not ids:
                return []
            records = await self._client.mget([self._record(_text(i)) for i in ids])
            claimed = [attrs.evolve(decode(r), due=until) for r in records if r is not None]
            # The record says when the claim runs out too (only the claimer writes it now).
            if claimed:
                await self._client.mset({self._record(d.id): encode(d) for d in claimed})
        return claimed

    async def save(self, delivery: Delivery) -> None:
        """See :meth:`WebhookOutbox.save`."""
        pending = f"{self._prefix}:pending:{delivery.lineage}"
        due = f"{self._prefix}:due"
        with redis_errors(_WHAT):
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.set(self._record(delivery.id), encode(delivery))
                if delivery.status == "pending" and delivery.due is not None:
                    pipe.zadd(due, {delivery.id: delivery.due.timestamp()})
                    pipe.sadd(pending, delivery.id)
                else:
                    pipe.zrem(due, delivery.id)
                    pipe.srem(pending, delivery.id)
                    pipe.zadd(
                        f"{self._prefix}:finished", {delivery.id: delivery.created.timestamp()}
                    )
                await pipe.execute()

    async def get(self, delivery_id: str) -> Delivery | None:
        """See :meth:`WebhookOutbox.get`."""
        with redis_errors(_WHAT):
            record = await self._client.get(self._record(delivery_id))
        return None if record is None else decode(record)

    async def for_subject(self, lineage: str, subject: str) -> list[Delivery]:
        """See :meth:`WebhookOutbox.for_subject`."""
        with redis_errors(_WHAT):
            ids = await self._client.zrange(self._subject(lineage, subject), 0, -1)
            if not ids:
                return []
            records = await self._client.mget([self._record(_text(i)) for i in ids])
        return [decode(r) for r in records if r is not None]

    async def purge(self, before: datetime) -> int:
        """See :meth:`WebhookOutbox.purge`."""
        finished = f"{self._prefix}:finished"
        with redis_errors(_WHAT):
            ids = [
                _text(i)
                for i in await self._client.zrangebyscore(finished, "-inf", before.timestamp())
            ]
            if not ids:
                return 0
            records = await self._client.mget([self._record(i) for i in ids])
            async with self._client.pipeline(transaction=True) as pipe:
                for delivery_id, record in zip(ids, records, strict=True):
                    if record is not None:
                        old = decode(record)
                        pipe.zrem(self._subject(old.lineage, old.subject), delivery_id)
                    pipe.delete(self._record(delivery_id))
                    pipe.zrem(finished, delivery_id)
                await pipe.execute()
        return len(ids)

    async def aclose(self) -> None:
        """The client belongs to its owner."""


def _text(value: object) -> str:
    # redis-py's stubs type members of sorted sets loosely; they are bytes here.
    return value.decode() if isinstance(value, bytes) else str(value)
