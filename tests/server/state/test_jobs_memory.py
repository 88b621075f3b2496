"""The JobStore contract on the in-memory backend."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from renderkit_server.state.jobs import JobStore, MemoryJobStore
from tests.server.state.jobs_contract import FakeClock, JobStoreContract


class TestMemoryJobStore(JobStoreContract):
    @pytest.fixture
    def make_store(self) -> Callable[[FakeClock], JobStore]:
        return lambda clock: MemoryJobStore(clock=clock)
