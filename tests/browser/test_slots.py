"""The slot pool on in-memory pages: which page a render gets and where it goes after."""

from __future__ import annotations

import asyncio
import itertools

import attrs
import pytest

from renderkit import InvalidRequestError, RenderError
from renderkit.browser._fair import ANONYMOUS
from renderkit.browser._slots import SlotPool
from renderkit.browser._tasks import TaskSet

pytestmark = pytest.mark.anyio

_ids = itertools.count(1)


@attrs.define(eq=False)
class FakePage:
    generation: int
    id: int = attrs.Factory(lambda: next(_ids))
    open: bool = True

    def is_open(self) -> bool:
        return self.open


@attrs.define(eq=False)
class FakeSource:
    """Opens numbered pages on the current generation and records how each was closed."""

    generation: int = 1
    closed: bool = False
    opened: list[FakePage] = attrs.Factory(list)
    closes: list[tuple[int, bool]] = attrs.Factory(list)
    dropped: list[int] = attrs.Factory(list)
    #: While cleared, closing a page blocks (a hung renderer).
    closable: asyncio.Event = attrs.Factory(asyncio.Event)

    def __attrs_post_init__(self) -> None:
        self.closable.set()

    async def open_slot(self) -> FakePage:
        page = FakePage(generation=self.generation)
        self.opened.append(page)
        return page

    async def close_slot(self, slot: FakePage, *, hung: bool) -> None:
        await self.closable.wait()
        slot.open = False
        self.closes.append((slot.id, hung))

    async def drop_slot(self, slot: FakePage) -> None:
        slot.open = False
        self.dropped.append(slot.id)


def _pool(source: FakeSource, tasks: TaskSet, *, spares: int = 0) -> SlotPool[FakePage]:
    return SlotPool(source, tasks, slots=1, max_queue=4, tenant_queue=4, spare_contexts=spares)


async def test_a_warm_page_is_kept_after_a_good_render_and_reused() -> None:
    source, tasks = FakeSource(), TaskSet()
    pool = _pool(source, tasks)
    lease = await pool.acquire(ANONYMOUS, timeout=1)
    async with pool.warm(lease) as first:
        pass
    async with pool.warm(lease) as second:
        pass
    lease.release()
    assert second is first
    assert len(source.opened) == 1
    assert source.closes == []


async def test_a_callers_mistake_keeps_the_warm_page() -> None:
    source, tasks = FakeSource(), TaskSet()
    pool = _pool(source, tasks)
    lease = await pool.acquire(ANONYMOUS, timeout=1)
    with pytest.raises(InvalidRequestError):
        async with pool.warm(lease):
            raise InvalidRequestError.single("data.logo_url", "did not load")
    async with pool.warm(lease) as again:
        pass
    assert again is source.opened[0]


async def test_a_failed_render_costs_its_page_and_holds_the_slot_until_it_is_closed() -> None:
    source, tasks = FakeSource(), TaskSet()
    pool = _pool(source, tasks)
    source.closable.clear()  # the page's renderer hangs on close
    lease = await pool.acquire(ANONYMOUS, timeout=1)
    with pytest.raises(RenderError):
        async with pool.warm(lease) as page:
            raise RenderError("the browser failed to render the page")
    lease.release()
    await asyncio.sleep(0)
    assert pool.scheduler.busy == 1  # the render returned, but its page is not gone yet
    source.closable.set()
    await tasks.drain()
    assert source.closes == [(page.id, True)]
    assert pool.scheduler.busy == 0


async def test_pages_of_an_older_browser_or_closed_are_never_handed_out() -> None:
    source, tasks = FakeSource(), TaskSet()
    pool = _pool(source, tasks)
    lease = await pool.acquire(ANONYMOUS, timeout=1)
    async with pool.warm(lease) as stale:
        pass
    source.generation = 2  # the browser was replaced
    async with pool.warm(lease) as current:
        pass
    current.open = False  # its renderer crashed while idle
    async with pool.warm(lease) as newest:
        pass
    await tasks.drain()
    assert [stale.generation, current.generation, newest.generation] == [1, 2, 2]
    assert newest is not current
    assert sorted(source.closes) == [(stale.id, False), (current.id, False)]


async def test_fresh_pages_serve_one_render_each_and_spares_are_kept_ready() -> None:
    source, tasks = FakeSource(), TaskSet()
    pool = _pool(source, tasks, spares=2)
    lease = await pool.acquire(ANONYMOUS, timeout=1)
    async with pool.fresh(lease) as first:
        pass
    await tasks.drain()
    await asyncio.sleep(0)  # let the spares open
    assert source.closes == [(first.id, False)]
    async with pool.fresh(lease) as second:
        pass
    await tasks.drain()
    assert second is not first
    assert second in source.opened[1:3]  # a spare made after the first render
    assert len(source.opened) == 4  # the first, two spares, and one more spare


async def test_dropping_closes_idle_and_spare_pages() -> None:
    source, tasks = FakeSource(), TaskSet()
    pool = _pool(source, tasks, spares=1)
    lease = await pool.acquire(ANONYMOUS, timeout=1)
    async with pool.warm(lease) as warm:
        pass
    async with pool.fresh(lease):
        pass
    await asyncio.sleep(0)
    spare = source.opened[-1]
    await pool.drop()
    assert sorted(source.dropped) == sorted([warm.id, spare.id])
    source.generation = 2
    async with pool.warm(lease) as after:
        pass
    assert after not in (warm, spare)


async def test_a_warm_render_takes_the_idle_page_it_prefers_else_the_last_used() -> None:
    source, tasks = FakeSource(), TaskSet()
    pool = SlotPool(source, tasks, slots=2, max_queue=4, tenant_queue=4, spare_contexts=0)
    first, second = (
        await pool.acquire(ANONYMOUS, timeout=1),
        await pool.acquire(ANONYMOUS, timeout=1),
    )
    async with pool.warm(first) as a, pool.warm(second) as b:
        pass
    # Both idle now, a the most recently used (it was returned last).
    async with pool.warm(first, lambda page: page is a) as taken:
        assert taken is a
    async with pool.warm(first, lambda page: False) as taken:
        assert taken is a  # nothing preferred: the most recently used, as without prefer
    async with pool.warm(first, lambda page: page is b) as taken:
        assert taken is b
    first.release()
    second.release()
    assert len(source.opened) == 2


async def test_a_warm_render_opens_a_page_it_prefers_only_while_pages_are_fewer_than_slots() -> (
    None
):
    source, tasks = FakeSource(), TaskSet()
    pool = SlotPool(source, tasks, slots=2, max_queue=4, tenant_queue=4, spare_contexts=0)
    lease = await pool.acquire(ANONYMOUS, timeout=1)
    async with pool.warm(lease) as first:
        pass
    async with pool.warm(lease, lambda page: page is not first) as second:
        assert second is not first  # one idle page, not preferred, and a slot left: a new one
    async with pool.warm(lease, lambda page: False) as third:
        assert third is second  # two pages for two slots: the most recently used
    lease.release()
    assert len(source.opened) == 2

    single = SlotPool(FakeSource(), tasks, slots=1, max_queue=4, tenant_queue=4, spare_contexts=0)
    lease = await single.acquire(ANONYMOUS, timeout=1)
    async with single.warm(lease) as only:
        pass
    async with single.warm(lease, lambda page: False) as again:
        assert again is only
    lease.release()
