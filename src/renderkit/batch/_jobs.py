"""What one batch job is: a kind, a validated request, and where its file goes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from renderkit.core.converter import structure
from renderkit.core.errors import InvalidRequestError
from renderkit.image import ImageRequest
from renderkit.parsing import ParseRequest
from renderkit.pdf import PdfRequest
from renderkit.screenshot import ScreenshotRequest
from renderkit.speech import AudioRequest

__all__ = ["JOB_KINDS", "Job", "JobRequest", "job_error", "to_job"]

JobRequest = ImageRequest | PdfRequest | ScreenshotRequest | AudioRequest | ParseRequest

#: Job kind -> the request model it takes.
JOB_KINDS: Mapping[str, type[JobRequest]] = {
    "image": ImageRequest,
    "pdf": PdfRequest,
    "screenshot": ScreenshotRequest,
    "audio": AudioRequest,
    "parse": ParseRequest,
}
_KIND_OF: Mapping[type, str] = {model: kind for kind, model in JOB_KINDS.items()}
_JOB_FIELDS = frozenset({"kind", "request", "output"})


@attrs.frozen(kw_only=True)
class Job:
    """One validated job.

    Attributes:
        kind: ``image``, ``pdf``, ``screenshot``, ``audio`` or ``parse``.
        request: the validated request model for that kind.
        output: where the caller wants the file (the batch command's relative path), if said.
        line: the job's line in a JSON Lines file, when it came from one (errors name it).
    """

    kind: str
    request: JobRequest
    output: str | None = None
    line: int | None = None

    @property
    def label(self) -> str:
        """How errors name the job: ``line 7`` from a file, else its kind."""
        return f"line {self.line}" if self.line is not None else self.kind

    @property
    def suggested_filename(self) -> str:
        """The readable default name of the job's file (``invoice-INV-0042.pdf``)."""
        if isinstance(self.request, ParseRequest):
            return "parse.json"
        return self.request.suggested_filename


def to_job(
    value: Job | JobRequest | Mapping[str, Any],
    *,
    where: str,
    line: int | None = None,
    adjust: Callable[[str, dict[str, Any], str | None], None] | None = None,
) -> Job:
    """Validate one job given as a :class:`Job`, a request model, or a mapping
    ``{"kind": "image", "request": {...}, "output": "cards/a.png"}``.

    Args:
        value: the job.
        where: the prefix of every field an error names (``jobs[3]``, ``line 7``).
        line: the job's line in a file, kept on the job.
        adjust: called as ``adjust(kind, request_dict, output)`` before the request is
            validated, to fill defaults (the command infers ``format`` from ``output``).

    Raises:
        InvalidRequestError: naming ``<where>.kind``, ``<where>.request.<field>``...
    """
    if isinstance(value, Job):
        return value if line is None else attrs.evolve(value, line=line)
    model_kind = _KIND_OF.get(type(value))
    if model_kind is not None:
        return Job(kind=model_kind, request=value, line=line)  # type: ignore[arg-type]
    if not isinstance(value, Mapping):
        msg = "must be an object with kind and request, or a request model"
        raise InvalidRequestError.single(where, msg)
    unknown = sorted(set(value) - _JOB_FIELDS)
    if unknown:
        msg = "is not a job field (a job has kind, request and output)"
        raise job_error(where, unknown[0], msg)
    kind = value.get("kind")
    if not isinstance(kind, str) or kind not in JOB_KINDS:
        msg = f"must be one of {', '.join(JOB_KINDS)}"
        raise job_error(where, "kind", msg, missing=kind is None)
    output = value.get("output")
    if output is not None and (not isinstance(output, str) or not output):
        raise job_error(where, "output", "must be a non-empty string")
    request = value.get("request")
    if not isinstance(request, Mapping):
        msg = "must be an object: the request, as the HTTP API takes it"
        raise job_error(where, "request", msg, missing=request is None)
    body = dict(request)
    if adjust is not None:
        adjust(kind, body, output)
    try:
        model = structure(body, JOB_KINDS[kind])
    except InvalidRequestError as exc:
        raise _prefixed(exc, f"{where}.request") from None
    return Job(kind=kind, request=model, output=output, line=line)


def job_error(
    where: str, field: str, message: str, *, missing: bool = False
) -> InvalidRequestError:
    """The error for one field of a job: ``<where>.<field>: <message>``."""
    return InvalidRequestError.single(f"{where}.{field}", message, missing=missing)


def _prefixed(exc: InvalidRequestError, prefix: str) -> InvalidRequestError:
    return InvalidRequestError(
        attrs.evolve(error, field=f"{prefix}.{error.field}") for error in exc.errors
    )
