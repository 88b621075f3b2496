"""Asynchronous jobs: production calls accepted now, run by workers, read back later.

* :mod:`.submission`: what a job or a batch may hold, validated as the endpoint would;
* :mod:`.service`: :class:`~.service.JobService`, submit, read, list and cancel per lineage;
* :mod:`.worker`: :class:`~.worker.JobWorkers`, the in-process workers running each job
  through :func:`renderkit_server.operations.execute`, and the sweeper;
* :mod:`.views`: the JSON of a job, a batch and their webhook events;
* :mod:`.notify`: :class:`JobNotifier`, the hook webhooks implement, and its events;
* :mod:`.routes`: ``/api/jobs`` and ``/api/batches``; :mod:`.openapi`: their description.

The queue and the records live in :mod:`renderkit_server.state.jobs`.
"""

from __future__ import annotations

from renderkit_server.jobs.notify import EVENT_TYPES, JobEvent, JobNotifier, RecordingNotifier

__all__ = ["EVENT_TYPES", "JobEvent", "JobNotifier", "RecordingNotifier"]
