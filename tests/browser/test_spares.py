"""Spare pages per device profile, on in-memory pages: bounded, used once, closed off the
render's path."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Hashable

import attrs
import pytest

from renderkit.browser._fair import ANONYMOUS
from renderkit.browser._slots import SPARE_PROFILES, SlotPool
from renderkit.browser._tasks import TaskSet

pytestmark = pytest.mark.anyio

_ids = itertools.count(1)


@attrs.define(eq=False)
class Page:
    generation: int
    profile: Hashable | None
    id: int = attrs.Factory(lambda: next(_ids))
    open: bool = True
    renders: int = 0

    def is_open(self) -> bool:
        return self.open


@attrs.define(eq=False)
class Source:
    """Opens pages made for a profile; closing blocks while ``closable`` is cleared."""

    generation: int = 1
    closed: bool = False
    opened: list[Page] = attrs.Factory(list)
    closed_pages: list[Page] = attrs.Factory(list)
    closable: asyncio.Event = attrs.Factory(asyncio.Event)

    def __attrs_post_init__(self) -> None:
        self.closable.set()

    async def open_slot(self, profile: Hashable | None = None) -> Page:
        await asyncio.sleep(0)  # a context takes a moment to open
        page = Page(generation=self.generation, profile=profile)
        self.opened.append(page)
        return page

    async def close_slot(self, slot: Page, *, hung: bool) -> None:
        await self.closable.wait()
        slot.open = False
        self.closed_pages.append(slot)

    async def drop_slot(self, slot: Page) -> None:
        slot.open = False
        self.closed_pages.append(slot)

    def alive(self) -> list[Page]:
        return [page for page in self.opened if page.open]


def _pool(source: Source, tasks: TaskSet, *, slots: int = 2, spares: int = 2) -> SlotPool[Page]:
    return SlotPool(source, tasks, slots=slots, max_queue=8, tenant_queue=8, spare_contexts=spares)


async def _settle(tasks: TaskSet) -> None:
    for _ in range(5):
        await asyncio.sleep(0)
    await tasks.drain()


async def test_a_render_gets_a_spare_made_for_its_profile_and_used_by_no_other_render() -> None:
    source, tasks = Source(), TaskSet()
    pool = _pool(source, tasks)
    used: list[Page] = []
    ready: list[bool] = []
    for profile in ["desktop", "mobile", "desktop", "mobile", "desktop", None]:
        opened_before = list(source.opened)
        lease = await pool.acquire(ANONYMOUS, timeout=1)
        async with pool.fresh(lease, profile) as page:
            page.renders += 1
            used.append(page)
        lease.release()
        ready.append(page in opened_before)
        await _settle(tasks)
        assert page.profile == profile
    # A profile's first render opens its page; later ones take a spare opened beforehand.
    assert ready == [False, False, True, True, True, False]
    assert all(page.renders == 1 for page in used)
    assert len({page.id for page in used}) == len(used)


async def test_spares_never_exceed_their_bound_and_evicted_ones_are_closed() -> None:
    source, tasks = Source(), TaskSet()
    spares = 2
    pool = _pool(source, tasks, spares=spares)
    for profile in ["a", "b", "c", "d", "e", "a"]:
        lease = await pool.acquire(ANONYMOUS, timeout=1)
        async with pool.fresh(lease, profile):
            pass
        lease.release()
        await _settle(tasks)
        assert pool.spare_count <= spares * SPARE_PROFILES
        # Nothing open but the spares: every used and evicted page was closed.
        assert len(source.alive()) == pool.spare_count
    kept = {page.profile for page in source.alive()}
    assert kept == {"d", "e", "a"}  # the profiles used last
    await pool.drop()
    assert source.alive() == []


async def test_concurrent_renders_of_one_profile_never_share_a_page() -> None:
    source, tasks = Source(), TaskSet()
    pool = _pool(source, tasks, slots=4, spares=2)
    seen: list[Page] = []

    async def render() -> None:
        lease = await pool.acquire(ANONYMOUS, timeout=1)
        try:
            async with pool.fresh(lease, "desktop") as page:
                seen.append(page)
                await asyncio.sleep(0.01)
        finally:
            lease.release()

    for _ in range(3):
        await asyncio.gather(*(render() for _ in range(4)))
    await _settle(tasks)
    assert len({page.id for page in seen}) == 12


async def test_a_healthy_close_frees_the_slot_at_once_but_closes_stay_bounded() -> None:
    source, tasks = Source(), TaskSet()
    pool = _pool(source, tasks, slots=1, spares=1)
    source.closable.clear()  # closes hang until set
    lease = await pool.acquire(ANONYMOUS, timeout=1)
    async with pool.fresh(lease, "desktop"):
        pass
    lease.release()
    await asyncio.sleep(0)
    assert pool.scheduler.busy == 0  # the next render need not wait for the close
    lease = await pool.acquire(ANONYMOUS, timeout=1)
    async with pool.fresh(lease, "desktop"):
        pass
    lease.release()
    await asyncio.sleep(0)
    assert pool.scheduler.busy == 1  # one close per slot at most runs unheld
    source.closable.set()
    await _settle(tasks)
    assert pool.scheduler.busy == 0


async def test_draining_waits_for_closes_started_by_closes() -> None:
    tasks = TaskSet()
    finished: list[str] = []

    async def inner() -> None:
        await asyncio.sleep(0.01)
        finished.append("inner")

    async def outer() -> None:
        await asyncio.sleep(0)
        tasks.spawn(inner())
        finished.append("outer")

    tasks.spawn(outer())
    await tasks.drain()
    assert finished == ["outer", "inner"]
