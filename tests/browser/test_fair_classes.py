"""Weighted fair queuing over plan classes: shares, weights and queue places, without Chromium."""

from __future__ import annotations

import asyncio
import collections

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from renderkit import BrowserBusyError, TenantBusyError
from renderkit.browser import TenantClass
from renderkit.browser._fair import FairScheduler, Lease, Tenant

STARTER = TenantClass(name="starter", weight=1, slot_share=0.34, queue_share=0.25)
PRO = TenantClass(name="pro", weight=4)


def _starter(key: str, cap: int | None = 1) -> Tenant:
    return Tenant(key=key, max_inflight=cap, group=STARTER)


def _pro(key: str, cap: int | None = 2) -> Tenant:
    return Tenant(key=key, max_inflight=cap, group=PRO)


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


@pytest.mark.anyio
async def test_a_class_holds_no_more_than_its_share_of_slots_even_when_the_pool_is_idle() -> None:
    scheduler = FairScheduler(slots=3, max_queue=10, tenant_queue=10)
    first = await scheduler.acquire(_starter("s1"), timeout=1)
    # A second starter key: a third of three slots is one, and the class holds it.
    waiting = asyncio.create_task(scheduler.acquire(_starter("s2"), timeout=5))
    await _settle()
    assert not waiting.done()
    assert scheduler.busy == 1 and scheduler.class_held(STARTER) == 1
    # A paying request finds one of the idle slots at once.
    pro = await asyncio.wait_for(scheduler.acquire(_pro("p"), timeout=5), 0.5)
    first.release()
    (await asyncio.wait_for(waiting, 1)).release()
    pro.release()
    assert scheduler.busy == 0


def test_a_class_share_rounds_down_but_never_below_one_slot() -> None:
    assert [STARTER.slot_cap(n) for n in (1, 2, 3, 6, 9)] == [1, 1, 1, 2, 3]
    assert [STARTER.queue_cap(n) for n in (0, 4, 64)] == [1, 1, 16]
    with pytest.raises(ValueError, match="slot_share"):
        TenantClass(name="x", slot_share=0)


@pytest.mark.anyio
async def test_waiting_classes_are_served_in_proportion_to_their_weights() -> None:
    scheduler = FairScheduler(slots=1, max_queue=100, tenant_queue=100)
    starter = TenantClass(name="starter", weight=1)
    held = await scheduler.acquire(Tenant(key="x"), timeout=1)
    order: list[str] = []

    async def render(tenant: Tenant) -> None:
        lease = await scheduler.acquire(tenant, timeout=10)
        order.append(tenant.group.name)
        await asyncio.sleep(0)
        lease.release()

    # The free class queues first and with more renders; weight, not arrival, decides.
    tasks = [asyncio.create_task(render(Tenant(key=f"s{i % 3}", group=starter))) for i in range(12)]
    await _settle()
    tasks += [asyncio.create_task(render(_pro("p", cap=None))) for _ in range(12)]
    await _settle()
    held.release()
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert collections.Counter(order[:10]) == {"pro": 8, "starter": 2}, order
    assert sorted(order) == ["pro"] * 12 + ["starter"] * 12


@pytest.mark.anyio
async def test_the_keys_of_one_class_are_served_round_robin() -> None:
    scheduler = FairScheduler(slots=1, max_queue=100, tenant_queue=100)
    starter = TenantClass(name="starter")
    held = await scheduler.acquire(Tenant(key="x"), timeout=1)
    order: list[str] = []

    async def render(key: str) -> None:
        lease = await scheduler.acquire(Tenant(key=key, group=starter), timeout=10)
        order.append(key)
        await asyncio.sleep(0)
        lease.release()

    tasks = [asyncio.create_task(render(key)) for key in ("a", "a", "a", "b", "b", "c")]
    await _settle()
    held.release()
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert order == ["a", "b", "c", "a", "b", "a"]


@pytest.mark.anyio
async def test_one_class_filling_its_queue_share_leaves_the_queue_open_to_others() -> None:
    scheduler = FairScheduler(slots=1, max_queue=8, tenant_queue=8)
    held = await scheduler.acquire(_starter("s0"), timeout=1)
    # A quarter of eight places: two starter renders wait, whichever keys they come from.
    waiting = [asyncio.create_task(scheduler.acquire(_starter(f"s{i}"), timeout=5)) for i in (1, 2)]
    await _settle()
    with pytest.raises(BrowserBusyError) as caught:
        await scheduler.acquire(_starter("s3"), timeout=5)
    assert not isinstance(caught.value, TenantBusyError)
    pro = asyncio.create_task(scheduler.acquire(_pro("p"), timeout=5))
    await _settle()
    assert scheduler.class_waiting(PRO) == 1 and scheduler.class_waiting(STARTER) == 2
    held.release()
    # The pro render is served first: the starter class is at its share of one slot anyway.
    (await asyncio.wait_for(pro, 1)).release()
    for task in waiting:
        (await asyncio.wait_for(task, 1)).release()
    assert scheduler.busy == 0 and scheduler.waiting == 0


@pytest.mark.anyio
async def test_a_class_that_was_idle_earns_no_credit_to_starve_the_others() -> None:
    scheduler = FairScheduler(slots=1, max_queue=100, tenant_queue=100)
    light = TenantClass(name="light", weight=1)
    heavy = TenantClass(name="heavy", weight=1)
    order: list[str] = []

    async def render(tenant: Tenant) -> None:
        lease = await scheduler.acquire(tenant, timeout=10)
        order.append(tenant.group.name)
        await asyncio.sleep(0)
        lease.release()

    # "heavy" is served alone for a while; then "light" arrives with as many renders.
    held = await scheduler.acquire(Tenant(key="x"), timeout=1)
    first = [asyncio.create_task(render(Tenant(key="h", group=heavy))) for _ in range(6)]
    await _settle()
    held.release()
    await asyncio.wait_for(asyncio.gather(*first), 5)
    held = await scheduler.acquire(Tenant(key="x"), timeout=1)
    tasks = [asyncio.create_task(render(Tenant(key="h", group=heavy))) for _ in range(4)]
    tasks += [asyncio.create_task(render(Tenant(key="l", group=light))) for _ in range(4)]
    await _settle()
    held.release()
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    # Equal weights alternate from the moment both wait, whatever heavy got before.
    assert order[6:] in (["heavy", "light"] * 4, ["light", "heavy"] * 4), order


# The exhaustive check: random arrivals, releases and cancellations over two classes.
_TENANTS = (_starter("s1"), _starter("s2"), _starter("s3", cap=None), _pro("p1"), _pro("p2", None))
_STEP = st.one_of(
    st.tuples(st.just("acquire"), st.integers(0, len(_TENANTS) - 1)),
    st.tuples(st.just("release"), st.integers(0, 20)),
    st.tuples(st.just("cancel"), st.integers(0, 20)),
    st.tuples(st.just("resize"), st.integers(1, 6)),
)


async def _check_run(slots: int, max_queue: int, steps: list[tuple[str, int]]) -> None:
    scheduler = FairScheduler(slots=slots, max_queue=max_queue, tenant_queue=3)
    pending: list[tuple[Tenant, asyncio.Task[Lease]]] = []
    leases: list[Lease] = []

    def check() -> None:
        nonlocal pending
        granted: set[str] = set()
        for tenant, task in pending:
            if task.done() and not task.cancelled() and task.exception() is None:
                leases.append(task.result())
                granted.add(tenant.group.name)
        pending = [(t, task) for t, task in pending if not task.done()]
        held = collections.Counter(lease.tenant.group.name for lease in leases)
        assert scheduler.busy == len(leases)
        waiting_classes = {t.group.name for t, _ in pending}
        for group in (STARTER, PRO):
            assert scheduler.class_held(group) == held[group.name]
            cap = group.slot_cap(scheduler.slots)
            # A class never takes a slot beyond its share (it may be over it only because
            # the pool shrank under leases it had), so never while another class waits.
            if group.name in granted:
                assert held[group.name] <= cap, (group.name, held, scheduler.slots)
            if waiting_classes - {group.name} and scheduler.busy <= scheduler.slots:
                assert held[group.name] <= cap or not granted, (group.name, held)
        for tenant in _TENANTS:
            if tenant.max_inflight is not None:
                assert scheduler.held(tenant) <= tenant.max_inflight
        # Work conserving: no slot stays idle while a waiter could take it.
        if scheduler.busy < scheduler.slots:
            for tenant, _ in pending:
                assert held[tenant.group.name] >= tenant.group.slot_cap(scheduler.slots) or (
                    tenant.max_inflight is not None
                    and scheduler.held(tenant) >= tenant.max_inflight
                ), (tenant, scheduler.busy, scheduler.slots, held)
        assert scheduler.waiting == len(pending)

    for action, arg in steps:
        if action == "acquire":
            tenant = _TENANTS[arg]
            task = asyncio.create_task(scheduler.acquire(tenant, timeout=60))
            pending.append((tenant, task))
        elif action == "release" and leases:
            leases.pop(arg % len(leases)).release()
        elif action == "cancel" and pending:
            pending[arg % len(pending)][1].cancel()
        elif action == "resize":
            scheduler.resize(arg)
        await _settle()
        # Refusals (queue share, tenant queue) are answers, not waiters.
        for tenant, task in list(pending):
            if task.done() and not task.cancelled() and task.exception() is not None:
                assert isinstance(task.exception(), BrowserBusyError)
                pending.remove((tenant, task))
        check()
    scheduler.fail_waiting(lambda: BrowserBusyError("end", retry_after=1))
    await _settle()
    for _, task in pending:
        assert task.done()
    for lease in leases:
        lease.release()
    assert scheduler.busy == 0


@settings(max_examples=300, deadline=None)
@given(
    slots=st.integers(1, 6),
    max_queue=st.integers(1, 12),
    steps=st.lists(_STEP, max_size=40),
)
def test_no_class_exceeds_its_share_while_another_waits_and_no_slot_idles_needlessly(
    slots: int, max_queue: int, steps: list[tuple[str, int]]
) -> None:
    asyncio.run(_check_run(slots, max_queue, steps))
