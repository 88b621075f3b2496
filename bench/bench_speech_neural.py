"""Benchmark: Kokoro (neural) beside espeak-ng (formant), and Kokoro's first audio beside a peer.

    python bench/bench_speech_neural.py [--rounds 3] [--engines espeak,kokoro,http,peer]
        [--peer-python PATH] [--record FILE]

Each round runs each engine in a fresh process (so its peak RSS is its own), interleaved so
machine noise hits all alike. In that process: one warm-up (espeak-ng's voice list;
Kokoro's onnxruntime sessions), then the 100- and the 1,000-character text, recording:

- chars/s: characters over the wall time of ``synthesize(..., format="mp3")`` (speaking and
  encoding);
- RTF (real-time factor): that wall time over the audio's duration (below 1 is faster than
  real time);
- first audio: wall time until ``synthesize_stream(..., format="mp3")`` hands over its first
  encoded piece (what a player waits for before it can start);
- CPU: the process's CPU time (all threads) plus its children's (espeak-ng) over the wall;
- peak RSS: the process's maximum resident memory after both texts.

``http``: the same first audio through the server, ``POST /api/audio`` with ``"stream":
true`` on uvicorn on 127.0.0.1 (Kokoro, a fresh API key), to the first body byte.

``peer``: the same model file with another runtime: kokoro-onnx (``create_stream``'s first
chunk, and ``create`` for the whole text) when ``--peer-python`` names a Python that has it
(``pip install kokoro-onnx==0.6.1``; it runs offline on the model and a voice file renderkit
installs), else raw onnxruntime: one session over every core, the text phonemized by
renderkit's own code and spoken sentence by sentence (first audio: the first sentence).

Reports medians over the rounds and the 1-minute load average before and after (other work on
the machine skews every figure: read them together).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _record import add_record_option, record

PARAGRAPH = (
    "The library turns a short script into speech that a listener can follow. This paragraph "
    "is read aloud by each local engine, encoded as an MP3 at 128 kilobits per second, and "
    "timed from the first word to the last frame. Numbers such as 42, dates like the 3rd of "
    "December, and punctuation; all of it shapes the rhythm of the voice. "
)
TEXTS = {
    100: "Please remember to water the garden, feed the cat, and lock the front door before you go.",
    1000: (PARAGRAPH * 4)[:1000].rsplit(" ", 1)[0].ljust(1000, "."),
}
VOICES = {"espeak": "en-us+f3", "kokoro": "af_heart"}
_LANE = "the garden gate was open and the dog ran out into the lane "
#: First audio only ("any text"): a word, a 300-character first sentence without punctuation,
#: and scripts without any (phonemized whole before the first call until 2026-11-27).
FIRST_TEXTS = {
    "short": "Hello there.",
    "300, one clause": (_LANE * 6)[:300].rsplit(" ", 1)[0] + ". " + PARAGRAPH,
    "1,400, no punctuation": (_LANE * 24)[:1400].rsplit(" ", 1)[0],
    "4,900, no punctuation": (_LANE * 83)[:4900].rsplit(" ", 1)[0],
}
#: The server's ceiling for Kokoro at its default 120 s budget (12 characters per CPU-second).
HTTP_MOST_CHARACTERS = 1_440


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


async def _worker(engine: str) -> dict[str, Any]:
    from renderkit.speech import (
        KokoroSpeechProvider,
        LocalSpeechProvider,
        synthesize,
        synthesize_stream,
    )
    from renderkit.speech._models import AudioRequest
    from renderkit.speech._protocol import PcmSink, SpeechAudio, SpeechProvider, Voice

    inner: Any = LocalSpeechProvider() if engine == "espeak" else KokoroSpeechProvider()

    class FirstAudio:
        """The engine, noting when it hands over its first PCM."""

        name = inner.name
        first: float | None = None

        async def stream_pcm(self, request: AudioRequest, sink: PcmSink) -> None:
            async def note(chunk: SpeechAudio) -> None:
                if self.first is None:
                    self.first = time.perf_counter()
                await sink(chunk)

            await inner.stream_pcm(request, note)

        async def synthesize(self, request: AudioRequest) -> SpeechAudio:
            return await inner.synthesize(request)  # type: ignore[no-any-return]

        async def list_voices(self) -> list[Voice]:
            return await inner.list_voices()  # type: ignore[no-any-return]

        async def aclose(self) -> None:
            await inner.aclose()

    provider: SpeechProvider = FirstAudio()
    voice = VOICES[engine]
    # Two sentences: the opening's wide session and the narrow one both warm.
    await synthesize({"script": "Warming up. And again.", "voice_id": voice}, provider=provider)
    out: dict[str, Any] = {}
    for size, text in TEXTS.items():
        request = {"script": text, "voice_id": voice, "format": "mp3"}
        probe = FirstAudio()
        cpu, start = _cpu(), time.perf_counter()
        result = await synthesize(request, provider=probe)
        wall = time.perf_counter() - start
        cpu = _cpu() - cpu
        start = time.perf_counter()
        first: float | None = None
        async with synthesize_stream(request, provider=inner) as audio:
            async for _piece in audio:
                first = first or time.perf_counter() - start
        out[str(size)] = {
            "wall": wall,
            "audio": result.duration_seconds,
            "first": first,
            "first_pcm": (probe.first or start) - start,
            "cpu": cpu,
        }
    for name, text in FIRST_TEXTS.items():
        if engine != "kokoro":
            break
        start = time.perf_counter()
        request = {"script": text, "voice_id": voice, "format": "mp3"}
        async with synthesize_stream(request, provider=inner) as audio:
            async for _piece in audio:
                out[name] = {"first": time.perf_counter() - start}
                break  # leaving the block stops the engine
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    await provider.aclose()
    return out


async def _http_worker() -> dict[str, Any]:
    """First body byte of a streamed /api/audio on uvicorn (Kokoro), per text."""
    import asyncio
    import tempfile

    import httpx
    import uvicorn

    from renderkit.speech import KokoroSpeechProvider
    from renderkit.testing import FakeBrowser
    from renderkit_server.app import create_app
    from renderkit_server.mail import MemoryMailer
    from renderkit_server.settings import Settings

    with tempfile.TemporaryDirectory() as data:
        settings = Settings(data_dir=Path(data), secret="bench-secret-that-is-long-enough")
        app = create_app(
            settings, browser=FakeBrowser(), mailer=MemoryMailer(), speech=KokoroSpeechProvider()
        )
        server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
        )
        task = asyncio.create_task(server.serve())
        while not server.started:  # uvicorn offers no started event
            assert not task.done(), "the server did not start"
            await asyncio.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        out: dict[str, Any] = {}
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=600) as http:
                made = await http.post("/api/keys/generate", json={"email": "bench@example.com"})
                headers = {"X-SVC-Key": made.json()["key"]}

                async def first_byte(text: str, *, whole: bool = True) -> tuple[float, float]:
                    body = {"script": text, "voice_id": "af_heart", "format": "mp3", "stream": True}
                    start = time.perf_counter()
                    first = None
                    async with http.stream("POST", "/api/audio", json=body, headers=headers) as r:
                        r.raise_for_status()
                        async for _chunk in r.aiter_raw():
                            first = first or time.perf_counter() - start
                            if not whole:
                                break  # the client leaves: the server stops the engine
                    return first or 0.0, time.perf_counter() - start

                await first_byte("Warming up. And again.")
                for size, text in TEXTS.items():
                    first, wall = await first_byte(text)
                    out[str(size)] = {"first": first, "wall": wall}
                for name, text in FIRST_TEXTS.items():
                    if len(text) > HTTP_MOST_CHARACTERS:
                        continue  # the server refuses it (400 on script)
                    first, _wall = await first_byte(text, whole=False)
                    out[name] = {"first": first}
        finally:
            server.should_exit = True
            await task
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _onnxruntime_worker() -> dict[str, Any]:
    """Raw onnxruntime on the same model: one session over every core, sentence by sentence."""
    import numpy as np
    import onnxruntime

    from renderkit.core.workers import usable_cpus
    from renderkit.speech._kokoro_text import plan_chunks
    from renderkit.speech.kokoro_assets import KokoroAssets

    assets = KokoroAssets()
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = usable_cpus()
    session = onnxruntime.InferenceSession(str(assets.model), options)
    styles = np.fromfile(assets.voice("af_heart"), dtype="<f4").reshape(-1, 256)

    def speak(text: str) -> tuple[float, float, float]:
        start = time.perf_counter()
        first = None
        samples = 0
        for chunk in plan_chunks(text, executable="espeak-ng", language="en-us"):
            tokens = np.array([[0, *chunk.tokens, 0]], dtype=np.int64)
            style = styles[len(chunk.tokens)][None, :]
            speed = np.array([1.0], dtype=np.float32)
            (audio,) = session.run(None, {"tokens": tokens, "style": style, "speed": speed})
            samples += audio.size
            first = first or time.perf_counter() - start
        return first or 0.0, time.perf_counter() - start, samples / 24_000

    speak("Warming up.")
    out: dict[str, Any] = {"peer": "raw onnxruntime, same model, all cores, per sentence"}
    for size, text in TEXTS.items():
        first, wall, audio = speak(text)
        out[str(size)] = {"first": first, "wall": wall, "audio": audio}
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


_KOKORO_ONNX = """
import asyncio, json, os, resource, sys, tempfile, time
import numpy as np
from kokoro_onnx import Kokoro
model, voice_file, texts = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
voices = os.path.join(tempfile.mkdtemp(), "voices.npz")
np.savez(voices, af_heart=np.fromfile(voice_file, dtype="<f4").reshape(-1, 1, 256))
kokoro = Kokoro(model, voices)
kokoro.create("Warming up.", voice="af_heart")
async def first(text):
    start = time.perf_counter()
    async for _samples, _rate in kokoro.create_stream(text, voice="af_heart"):
        return time.perf_counter() - start
out = {"peer": "kokoro-onnx"}
for size, text in texts.items():
    f = asyncio.run(first(text))
    start = time.perf_counter()
    samples, rate = kokoro.create(text, voice="af_heart")
    out[size] = {"first": f, "wall": time.perf_counter() - start, "audio": len(samples) / rate}
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def _round(engine: str, peer_python: str | None) -> dict[str, Any]:
    if engine == "peer" and peer_python:
        from renderkit.speech.kokoro_assets import KokoroAssets

        assets = KokoroAssets()
        texts = json.dumps({str(size): text for size, text in TEXTS.items()})
        command = [
            peer_python, "-c", _KOKORO_ONNX, str(assets.model), str(assets.voice("af_heart")),
            texts,
        ]  # fmt: skip
    else:
        command = [sys.executable, __file__, "--worker", engine]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _median(rows: list[dict[str, Any]], field: str) -> float:
    return statistics.median(r[field] for r in rows)


def main(rounds: int, engines: list[str], peer_python: str | None, record_to: Path | None) -> None:
    load_before = os.getloadavg()[0]
    runs: dict[str, list[dict[str, Any]]] = {engine: [] for engine in engines}
    for number in range(rounds):
        for engine in engines:
            runs[engine].append(_round(engine, peer_python))
            print(f"round {number + 1}/{rounds} {engine} done", file=sys.stderr, flush=True)
    load_after = os.getloadavg()[0]
    print(
        f"{rounds} rounds, medians; {os.cpu_count()} CPUs; "
        f"load average {load_before:.1f} before, {load_after:.1f} after"
    )
    print(
        f"{'engine':8} {'chars':>5} {'audio s':>8} {'wall s':>7} {'chars/s':>8} {'RTF':>6} "
        f"{'first audio s':>13} {'CPU s':>6} {'peak RSS MB':>11}"
    )
    walls: dict[tuple[str, int], float] = {}
    firsts: dict[tuple[str, int | str], float] = {}
    for engine, results in runs.items():
        rss = statistics.median(r["rss_mb"] for r in results)
        for size in TEXTS:
            rows = [r[str(size)] for r in results]
            wall = _median(rows, "wall")
            first = _median(rows, "first")
            walls[engine, size], firsts[engine, size] = wall, first
            audio = _median(rows, "audio") if "audio" in rows[0] else 0.0
            rtf = f"{wall / audio:>6.2f}" if audio else f"{'-':>6}"
            cpu = f"{_median(rows, 'cpu'):>6.2f}" if "cpu" in rows[0] else f"{'-':>6}"
            print(
                f"{engine:8} {size:>5} {audio:>8.1f} {wall:>7.2f} {size / wall:>8.0f} "
                f"{rtf} {first:>13.2f} {cpu} {rss:>11.0f}"
            )
    print(f"first audio only (library, HTTP; texts of {', '.join(FIRST_TEXTS)} characters):")
    for name in FIRST_TEXTS:
        for engine in ("kokoro", "http"):
            if engine in runs and name in runs[engine][0]:
                first = _median([r[name] for r in runs[engine]], "first")
                firsts[engine, name] = first
                print(f"  {name:22} {engine:6} {first:6.2f} s")
    if "peer" in runs:
        print(f"peer: {runs['peer'][0]['peer']}")
    for size in TEXTS:
        for engine in ("kokoro", "http"):
            if (engine, size) in firsts and ("peer", size) in firsts:
                print(
                    f"first audio, {size} chars: {engine} {firsts[engine, size]:.2f} s vs peer "
                    f"{firsts['peer', size]:.2f} s (ratio {firsts['peer', size] / firsts[engine, size]:.2f})"
                )
    notes = f"{rounds} rounds; load average {load_before:.1f} before, {load_after:.1f} after"
    for name in FIRST_TEXTS:
        for engine, how in (
            ("kokoro", "synthesize_stream, mp3"),
            ("http", "streamed POST /api/audio"),
        ):
            if (engine, name) in firsts:
                record(
                    record_to,
                    benchmark="bench_speech_neural.py",
                    case=f"speech with Kokoro, text {name!r}: first audio ({how})",
                    unit="s",
                    renderkit=firsts[engine, name],
                    notes=notes,
                )
    for size in TEXTS:
        if ("kokoro", size) not in walls:
            continue
        peer = runs["peer"][0]["peer"] if "peer" in runs else None
        record(
            record_to,
            benchmark="bench_speech_neural.py",
            case=f"speech, {size:,} characters with Kokoro: first audio (synthesize_stream, mp3)",
            unit="s",
            renderkit=firsts["kokoro", size],
            peer=f"{peer}, first chunk" if peer else None,
            peer_median=firsts.get(("peer", size)),
            notes=notes,
        )
        if ("http", size) in firsts:
            record(
                record_to,
                benchmark="bench_speech_neural.py",
                case=f"speech, {size:,} characters with Kokoro: first byte of a streamed "
                "POST /api/audio",
                unit="s",
                renderkit=firsts["http", size],
                peer=f"{peer}, first chunk" if peer else None,
                peer_median=firsts.get(("peer", size)),
                notes=notes,
            )
        record(
            record_to,
            benchmark="bench_speech_neural.py",
            case=f"speech, {size:,} characters to MP3 with Kokoro",
            unit="s",
            renderkit=walls["kokoro", size],
            peer=f"{peer}, whole text (no encoding)" if peer else None,
            peer_median=walls.get(("peer", size)),
            notes=notes,
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--engines", default="espeak,kokoro,http,peer")
    parser.add_argument("--peer-python", help="a Python with kokoro-onnx installed")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    add_record_option(parser)
    args = parser.parse_args()
    if args.worker == "http":
        import anyio

        print(json.dumps(anyio.run(_http_worker)))
    elif args.worker == "peer":
        print(json.dumps(_onnxruntime_worker()))
    elif args.worker:
        import anyio

        print(json.dumps(anyio.run(_worker, args.worker)))
    else:
        main(args.rounds, args.engines.split(","), args.peer_python, args.record)
