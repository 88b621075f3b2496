"""``POST /api/audio`` with ``"stream": true``: the audio file itself, sent while it is spoken.

The request is validated, admitted and reserved exactly as :func:`~renderkit_server.
operations.execute` does it (the same errors, before any byte is sent), then the file goes
out with chunked transfer encoding as :func:`renderkit.synthesize_stream` produces it: a
client plays the first clause while the rest is synthesised. A streamed call is neither
stored (no URL) nor looked up in, or added to, the render cache.

Metering, decided here once:

- the call's reservation is committed once, when the last audio byte has been handed to the
  server and before the response's closing chunk: a stream that completes is charged once;
- a failure before the first byte (the engine refused, a timeout) is answered with the
  usual error envelope and status, and charges nothing;
- a failure part-way (the engine or encoder broke, the speech timeout struck) or a client
  that leaves part-way is never charged: the reservation is released and the connection is
  closed without the closing chunk, so the client sees a truncated transfer rather than a
  file that looks complete.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import anyio
import attrs
from litestar import Litestar, Request, Response
from litestar.response.base import ASGIResponse
from litestar.types import Receive, Scope, Send

from renderkit import (
    AudioRequest,
    InvalidRequestError,
    RenderkitError,
    RenderTimeoutError,
    structure,
)
from renderkit.speech import STREAMABLE_FORMATS, synthesize_stream
from renderkit_server.operations import AUDIO, Production
from renderkit_server.quotas import QuotaTicket, audio_charges

__all__ = ["STREAMABLE", "STREAM_FIELD", "STREAM_PROPERTY", "stream_requested", "streamed_audio"]

logger = logging.getLogger(__name__)

#: The body field asking for the audio itself, streamed, instead of a JSON answer with a URL.
STREAM_FIELD = "stream"

#: The formats a stream can be asked in (a WAV header holds the size, unknown up front).
STREAMABLE = STREAMABLE_FORMATS

#: How the OpenAPI document describes the field.
STREAM_PROPERTY: dict[str, Any] = {
    "type": "boolean",
    "default": False,
    "description": "Answer the audio file itself (chunked, as it is spoken: the first clause "
    "plays while the rest is made) instead of JSON with a URL; mp3, opus, ogg or aac; not "
    "with Idempotency-Key. Charged once, only when the stream completes.",
}


def stream_requested(payload: object) -> bool:
    """Whether the body asks for a stream; removes the field from a JSON object body.

    Raises:
        InvalidRequestError: ``stream`` is not a boolean.
    """
    if not isinstance(payload, dict) or STREAM_FIELD not in payload:
        return False
    value = payload.pop(STREAM_FIELD)
    if not isinstance(value, bool):
        msg = "stream must be true or false"
        raise InvalidRequestError.single(STREAM_FIELD, msg)
    return value


async def streamed_audio(
    payload: Mapping[str, Any], *, production: Production, key_id: str, plan: str
) -> Response[bytes]:
    """Validate, admit and reserve a streamed call; the response that will speak it.

    Raises:
        InvalidRequestError: the payload is invalid, or its format cannot be streamed (wav).
        QuotaExceededError, RateLimitedError, FailedWorkExhaustedError: the key's limits.
    """
    request = structure(payload, AudioRequest)
    AUDIO.admit(request, production.engines)
    if request.format not in STREAMABLE:
        msg = f"{request.format} cannot be streamed; ask for one of {', '.join(STREAMABLE)}"
        raise InvalidRequestError.single("format", msg)
    charges = {AUDIO.metric: 1, **AUDIO.charges(request)}
    await production.failed_work.check(key_id, plan)
    ticket = await production.quotas.reserve(key_id, plan, charges)
    return _StreamedAudio(
        _Call(request=request, production=production, ticket=ticket, key_id=key_id, plan=plan)
    )


@attrs.frozen(kw_only=True)
class _Call:
    """What the response needs to speak one reserved call."""

    request: AudioRequest
    production: Production
    ticket: QuotaTicket
    key_id: str
    plan: str


class _StreamedAudio(Response[bytes]):
    """The handler's answer; Litestar turns it into :class:`_AudioSender` to send."""

    def __init__(self, call: _Call) -> None:
        encoding = call.request.encoding
        headers = {
            **call.ticket.headers(),
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",  # a proxy must not hold the stream back
            "Content-Disposition": f'inline; filename="{call.request.suggested_filename}"',
        }
        super().__init__(b"", headers=headers, media_type=encoding.content_type)
        self.call = call

    def to_asgi_response(
        self,
        app: Litestar | None,
        request: Request[Any, Any, Any],
        *,
        headers: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> ASGIResponse:
        return _AudioSender(
            self.call,
            headers={**(headers or {}), **self.headers},
            media_type=self.call.request.encoding.content_type,
        )


class _AudioSender(ASGIResponse):
    """Speaks the call into the response, chunk by chunk (see the module for metering)."""

    _should_set_content_length = False

    def __init__(self, call: _Call, *, headers: dict[str, str], media_type: str) -> None:
        super().__init__(headers=headers, media_type=media_type, status_code=200)
        self.call = call
        #: True once the status and headers are sent: an error can no longer be answered.
        self.started = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        call = self.call
        production = call.production
        timeout = production.engines.speech_timeout
        try:
            async with call.ticket.kept_alive():
                with anyio.fail_after(timeout):
                    seconds = await self._speak(receive, send)
            if seconds is None:  # the client left part-way
                await call.ticket.release()
                return
            minutes = audio_charges(characters=call.request.characters, seconds=seconds)
            await production.quotas.adjust(call.ticket, "audio_minutes", minutes["audio_minutes"])
            await call.ticket.commit()  # shielded; a later failure cannot undo nor repeat it
        except TimeoutError:
            await call.ticket.release()
            await production.failed_work.spend(call.key_id, call.plan, timeout)
            if not self.started:
                msg = f"speaking took longer than {timeout:g} s; send a shorter script"
                raise RenderTimeoutError(msg, timeout=timeout) from None
            logger.warning("a streamed audio call timed out after %g s; not charged", timeout)
            return
        except RenderkitError:
            await call.ticket.release()
            if not self.started:
                raise  # nothing sent yet: the app's error envelope answers
            logger.warning("a streamed audio call failed part-way; not charged", exc_info=True)
            return  # no closing chunk: the server closes the connection, truncated
        except BaseException:
            await call.ticket.release()
            raise
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _speak(self, receive: Receive, send: Send) -> float | None:
        """Send the audio as it is made; its duration, or None if the client went away.

        A lone error of the engine or the encoder is raised as itself.
        """
        gone = False

        async def watch(scope: anyio.CancelScope) -> None:
            nonlocal gone
            while (await receive())["type"] != "http.disconnect":
                pass
            gone = True
            scope.cancel()

        production = self.call.production
        try:
            async with (
                synthesize_stream(
                    self.call.request,
                    provider=production.engines.speech,
                    workers=production.engines.workers.audio,
                ) as audio,
                anyio.create_task_group() as tasks,
            ):
                tasks.start_soon(watch, tasks.cancel_scope)
                async for piece in audio:
                    if not self.started:
                        await self.start_response(send)
                        self.started = True
                    await send({"type": "http.response.body", "body": piece, "more_body": True})
                tasks.cancel_scope.cancel()  # done: stop watching
        except BaseExceptionGroup as group:
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
        return None if gone else audio.duration_seconds
