from __future__ import annotations

import asyncio

import pytest

from renderkit import BrowserBusyError, TenantBusyError
from renderkit.browser._fair import FairScheduler, Lease, Tenant

pytestmark = pytest.mark.anyio

A = Tenant(key="a", max_inflight=1)
B = Tenant(key="b", max_inflight=1)
C = Tenant(key="c", max_inflight=2)


async def _queue(scheduler: FairScheduler, tenant: Tenant, order: list[str]) -> Lease:
    lease = await scheduler.acquire(tenant, timeout=5)
    order.append(tenant.key)
    return lease


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_waiting_renders_are_served_round_robin_across_tenants_not_fifo() -> None:
    scheduler = FairScheduler(slots=1, max_queue=10, tenant_queue=10)
    first = await scheduler.acquire(Tenant(key="x"), timeout=1)
    order: list[str] = []
    greedy = Tenant(key="greedy")
    tasks = [asyncio.create_task(_queue(scheduler, greedy, order)) for _ in range(3)]
    await _settle()
    tasks.append(asyncio.create_task(_queue(scheduler, Tenant(key="polite"), order)))
    await _settle()
    first.release()
    for _ in range(4):
        await _settle()
        lease = next(t for t in tasks if t.done() and not getattr(t, "_seen", False))
        lease._seen = True  # type: ignore[attr-defined]
        lease.result().release()
    assert order == ["greedy", "polite", "greedy", "greedy"]


async def test_a_tenant_at_its_inflight_cap_waits_while_others_use_free_slots() -> None:
    scheduler = FairScheduler(slots=3, max_queue=10, tenant_queue=10)
    held = await scheduler.acquire(A, timeout=1)
    waiting = asyncio.create_task(scheduler.acquire(A, timeout=5))
    await _settle()
    assert not waiting.done()
    other = await asyncio.wait_for(scheduler.acquire(B, timeout=5), 1)
    assert scheduler.held(A) == 1 and scheduler.held(B) == 1
    held.release()
    second = await asyncio.wait_for(waiting, 1)
    second.release()
    other.release()
    assert scheduler.busy == 0


async def test_a_lease_retained_by_a_background_close_counts_until_released() -> None:
    scheduler = FairScheduler(slots=2, max_queue=10, tenant_queue=10)
    lease = await scheduler.acquire(A, timeout=1)
    lease.retain()  # e.g. the close of a timed-out page
    lease.release()  # the render answered
    assert scheduler.held(A) == 1
    waiting = asyncio.create_task(scheduler.acquire(A, timeout=5))
    await _settle()
    assert not waiting.done()
    lease.release()  # the page is really closed
    (await asyncio.wait_for(waiting, 1)).release()
    assert scheduler.busy == 0


async def test_a_tenant_over_its_own_queue_allowance_gets_tenant_busy() -> None:
    scheduler = FairScheduler(slots=1, max_queue=10, tenant_queue=1)
    held = await scheduler.acquire(A, timeout=1)
    waiting = asyncio.create_task(scheduler.acquire(A, timeout=5))
    await _settle()
    with pytest.raises(TenantBusyError):
        await scheduler.acquire(A, timeout=5)
    # Another tenant still queues: the pool is not full, A's share of it is.
    other = asyncio.create_task(scheduler.acquire(B, timeout=5))
    await _settle()
    held.release()
    (await asyncio.wait_for(waiting, 1)).release()
    (await asyncio.wait_for(other, 1)).release()


async def test_a_full_global_queue_gives_browser_busy() -> None:
    scheduler = FairScheduler(slots=1, max_queue=1, tenant_queue=5)
    held = await scheduler.acquire(A, timeout=1)
    waiting = asyncio.create_task(scheduler.acquire(B, timeout=5))
    await _settle()
    with pytest.raises(BrowserBusyError) as caught:
        await scheduler.acquire(C, timeout=5)
    assert not isinstance(caught.value, TenantBusyError)
    held.release()
    (await asyncio.wait_for(waiting, 1)).release()


async def test_queue_wait_is_bounded_and_the_timed_out_waiter_leaves_the_queue() -> None:
    scheduler = FairScheduler(slots=1, max_queue=5, tenant_queue=5)
    held = await scheduler.acquire(A, timeout=1)
    with pytest.raises(BrowserBusyError) as caught:
        await scheduler.acquire(B, timeout=0.2)
    assert caught.value.retry_after >= 1
    assert scheduler.waiting == 0
    held.release()
    assert scheduler.busy == 0


async def test_a_cancelled_waiter_neither_holds_nor_leaks_a_slot() -> None:
    scheduler = FairScheduler(slots=1, max_queue=5, tenant_queue=5)
    held = await scheduler.acquire(A, timeout=1)
    waiting = asyncio.create_task(scheduler.acquire(B, timeout=5))
    await _settle()
    held.release()  # grants B's waiter...
    waiting.cancel()  # ...which is cancelled before it resumes
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert scheduler.busy == 0
    (await asyncio.wait_for(scheduler.acquire(C, timeout=1), 1)).release()


async def test_uncapped_tenant_uses_every_slot() -> None:
    scheduler = FairScheduler(slots=3, max_queue=5, tenant_queue=5)
    anyone = Tenant(key="")
    leases = [await asyncio.wait_for(scheduler.acquire(anyone, timeout=1), 1) for _ in range(3)]
    assert scheduler.busy == 3
    for lease in leases:
        lease.release()


def test_a_pool_reports_its_slots_and_a_remote_endpoint_without_its_path_or_token() -> None:
    from renderkit.browser import BrowserConfig, ChromiumPool

    local = ChromiumPool(BrowserConfig(slots=3)).stats()
    (member,) = local.members
    assert (member.endpoint, member.healthy, member.slots, member.busy, member.queued) == (
        "local",
        True,
        3,
        0,
        0,
    )
    remote = ChromiumPool(BrowserConfig(cdp_url="ws://10.0.0.5:3000/chromium?token=s3cret"))
    (member,) = remote.stats().members
    assert member.endpoint == "ws://10.0.0.5:3000"
    assert member.healthy is False  # not connected yet
