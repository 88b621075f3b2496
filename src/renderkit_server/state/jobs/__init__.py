"""The job queue and job records (asynchronous jobs, see :mod:`renderkit_server.jobs`).

* :mod:`.base`: :class:`JobStore`, the protocol (its docstring is the contract: lifecycle,
  tenancy, fairness, leases, retention), and the records :class:`Job`, :class:`Batch`,
  :class:`Claim`;
* :mod:`.memory`: :class:`MemoryJobStore`, one process (the test fake);
* :mod:`.sqlite`: :class:`SqliteJobStore`, the embedded default: the processes of one host;
* :mod:`.redis`: :class:`RedisJobStore`, every replica sharing one Redis (imported only by
  :mod:`renderkit_server.state.build`, under the ``redis`` extra).

Every backend runs the contract in ``tests/server/state/jobs_contract.py``.
"""

from __future__ import annotations

from renderkit_server.state.jobs.base import (
    ABANDONED,
    ACTIVE,
    JOB_STATUSES,
    TERMINAL,
    Batch,
    BatchView,
    Claim,
    Job,
    JobStatus,
    JobStore,
)
from renderkit_server.state.jobs.memory import MemoryJobStore

__all__ = [
    "ABANDONED",
    "ACTIVE",
    "JOB_STATUSES",
    "TERMINAL",
    "Batch",
    "BatchView",
    "Claim",
    "Job",
    "JobStatus",
    "JobStore",
    "MemoryJobStore",
]
