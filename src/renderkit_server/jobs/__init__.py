"""Asynchronous jobs: production calls accepted now, run by workers, read back later.

* :mod:`.notify`: :class:`JobNotifier`, the hook webhooks implement, and its events;

The queue and the records live in :mod:`renderkit_server.state.jobs`.
"""

from __future__ import annotations

from renderkit_server.jobs.notify import EVENT_TYPES, JobEvent, JobNotifier, RecordingNotifier

__all__ = ["EVENT_TYPES", "JobEvent", "JobNotifier", "RecordingNotifier"]
