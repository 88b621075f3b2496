"""Batch jobs: many renders through one browser, with per-job results or errors.

:func:`render_many` runs image, PDF, screenshot, audio and parse jobs with bounded
concurrency and returns one :class:`JobOutcome` per job, in input order;
:func:`as_completed` yields them as they finish, for progress. ``renderkit batch
jobs.jsonl --out DIR`` (:mod:`renderkit.batch.cli`) drives it from a JSON Lines file.
"""

from __future__ import annotations

from renderkit.batch._jobs import JOB_KINDS, Job, JobRequest, to_job
from renderkit.batch._run import (
    DEFAULT_CONCURRENCY,
    JobOutcome,
    JobResult,
    as_completed,
    render_many,
)

__all__ = [
    "DEFAULT_CONCURRENCY",
    "JOB_KINDS",
    "Job",
    "JobOutcome",
    "JobRequest",
    "JobResult",
    "as_completed",
    "render_many",
    "to_job",
]
