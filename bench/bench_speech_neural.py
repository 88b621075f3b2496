"""Benchmark: Kokoro (neural) beside espeak-ng (formant), 100 and 1,000 characters to MP3.

    python bench/bench_speech_neural.py [--rounds 3] [--engines espeak,kokoro] [--record FILE]

Each round runs each engine in a fresh process (so its peak RSS is its own), interleaved so
machine noise hits both alike. In that process: one warm-up synthesis (espeak-ng's voice list;
Kokoro's onnxruntime session), then ``synthesize(..., format="mp3")`` of the 100- and the
1,000-character text, recording:

- chars/s: characters over the wall time of the whole call (speaking and encoding);
- RTF (real-time factor): that wall time over the audio's duration (below 1 is faster than
  real time);
- first audio: wall time until the engine hands over its first PCM (what a streaming
  consumer waits for);
- CPU: the process's CPU time (all threads) plus its children's (espeak-ng) over the wall;
- peak RSS: the process's maximum resident memory after both texts.

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


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


async def _worker(engine: str) -> dict[str, Any]:
    from renderkit.speech import KokoroSpeechProvider, LocalSpeechProvider, synthesize
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
    await synthesize({"script": "Warming up.", "voice_id": voice}, provider=provider)
    out: dict[str, Any] = {}
    for size, text in TEXTS.items():
        probe = FirstAudio()
        cpu, start = _cpu(), time.perf_counter()
        result = await synthesize(
            {"script": text, "voice_id": voice, "format": "mp3"}, provider=probe
        )
        wall = time.perf_counter() - start
        out[str(size)] = {
            "wall": wall,
            "audio": result.duration_seconds,
            "first": (probe.first or start) - start,
            "cpu": _cpu() - cpu,
        }
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    await provider.aclose()
    return out


def _round(engine: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--worker", engine],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main(rounds: int, engines: list[str], record_to: Path | None) -> None:
    load_before = os.getloadavg()[0]
    runs: dict[str, list[dict[str, Any]]] = {engine: [] for engine in engines}
    for number in range(rounds):
        for engine in engines:
            runs[engine].append(_round(engine))
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
    for engine, results in runs.items():
        rss = statistics.median(r["rss_mb"] for r in results)
        for size in TEXTS:
            rows = [r[str(size)] for r in results]
            wall = statistics.median(r["wall"] for r in rows)
            audio = statistics.median(r["audio"] for r in rows)
            rtf = statistics.median(r["wall"] / r["audio"] for r in rows)
            first = statistics.median(r["first"] for r in rows)
            cpu = statistics.median(r["cpu"] for r in rows)
            walls[engine, size] = wall
            print(
                f"{engine:8} {size:>5} {audio:>8.1f} {wall:>7.2f} {size / wall:>8.0f} "
                f"{rtf:>6.2f} {first:>13.2f} {cpu:>6.2f} {rss:>11.0f}"
            )
            if engine == "kokoro":
                record(
                    record_to,
                    benchmark="bench_speech_neural.py",
                    case=f"speech, {size:,} characters to MP3 with Kokoro",
                    unit="s",
                    renderkit=wall,
                    peer="espeak-ng, same text" if ("espeak", size) in walls else None,
                    peer_median=walls.get(("espeak", size)),
                    notes=f"{rounds} rounds; {audio:.1f} s of audio, RTF {rtf:.2f}, first audio "
                    f"{first:.2f} s, CPU {cpu:.1f} s, peak RSS {rss:.0f} MB; load average "
                    f"{load_before:.1f} before",
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--engines", default="espeak,kokoro")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    add_record_option(parser)
    args = parser.parse_args()
    if args.worker:
        import anyio

        print(json.dumps(anyio.run(_worker, args.worker)))
    else:
        main(args.rounds, args.engines.split(","), args.record)
