"""Benchmark: 1,000 characters to MP3 with the local provider vs the shell pipeline.

    python bench/bench_audio.py [--rounds 15] [--record bench/results.toml]

renderkit: ``synthesize(..., provider=LocalSpeechProvider())`` (espeak-ng subprocess
streaming PCM; PyAV resampling 22.05 -> 44.1 kHz, then LAME 128 kbps in parallel parts, one
encoder thread per CPU, started while espeak-ng still speaks; then the parts' frames joined
and the duration read back). The peer is what one would write in a shell: ``espeak-ng -w tmp.wav`` then
``lame -b 128 --resample 44.1`` or ``ffmpeg ... -b:a 128k -ar 44100``, whichever is
installed; with neither, ``espeak-ng -w tmp.wav`` alone, the floor any pipeline pays.
Both run interleaved round by round so machine noise hits both alike. Reports medians,
the ratio, and the 1-minute load average (other work on the machine skews everything).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from _record import add_record_option, record

from renderkit.speech import LocalSpeechProvider, synthesize

PARAGRAPH = (
    "Renderkit turns JSON requests into images, documents and speech. This paragraph is read "
    "aloud by the offline engine, encoded as an MP3 at 128 kilobits per second, and measured "
    "so the response can report its true duration. Numbers such as 42, dates like the 3rd of "
    "December, and punctuation; all of it shapes the rhythm of the voice. "
)
TEXT = (PARAGRAPH * 5)[:1000].rsplit(" ", 1)[0].ljust(1000, ".")


def _peer_command(wav: Path, mp3: Path) -> tuple[str, list[list[str]]]:
    speak = ["espeak-ng", "-v", "en-us+f3", "-w", str(wav), TEXT]
    if shutil.which("lame"):
        encode = [
            "lame",
            "--silent",
            "-b",
            "128",
            "--resample",
            "44.1",
            "-m",
            "m",
            str(wav),
            str(mp3),
        ]
        return "espeak-ng -w + lame", [speak, encode]
    if shutil.which("ffmpeg"):
        encode = [
            "ffmpeg", "-loglevel", "error", "-y", "-i", str(wav),
            "-ar", "44100", "-ac", "1", "-b:a", "128k", str(mp3),
        ]  # fmt: skip
        return "espeak-ng -w + ffmpeg", [speak, encode]
    return "espeak-ng -w (floor: no lame/ffmpeg installed)", [speak]


def _peer(commands: list[list[str]]) -> float:
    start = time.perf_counter()
    for command in commands:
        subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


async def main(rounds: int, record_to: Path | None) -> None:
    provider = LocalSpeechProvider()
    request = {"script": TEXT, "format": "mp3"}
    result = await synthesize(request, provider=provider)  # warm-up: voice list, imports
    print(f"text: {len(TEXT)} characters -> {result.duration_seconds:.1f} s of audio")
    ours: list[float] = []
    ours_cpu: list[float] = []
    peer: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        label, commands = _peer_command(Path(tmp) / "tmp.wav", Path(tmp) / "out.mp3")
        _peer(commands)
        for _ in range(rounds):
            cpu = time.process_time()
            start = time.perf_counter()
            await synthesize(request, provider=provider)
            ours.append(time.perf_counter() - start)
            ours_cpu.append(time.process_time() - cpu)
            peer.append(_peer(commands))
    ours_median, peer_median = statistics.median(ours), statistics.median(peer)
    print(
        f"rounds: {rounds}, load average (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )
    print(f"renderkit synthesize -> mp3       median {ours_median:.3f} s  (min {min(ours):.3f} s)")
    print(f"  of which in-process CPU (encode) median {statistics.median(ours_cpu):.3f} s")
    print(f"{label:33} median {peer_median:.3f} s  (min {min(peer):.3f} s)")
    print(f"ratio renderkit / peer: {ours_median / peer_median:.2f}")
    record(
        record_to,
        benchmark="bench_audio.py",
        case=f"speech, {len(TEXT):,} characters ({result.duration_seconds:.0f} s) to MP3, "
        "local provider",
        unit="s",
        renderkit=ours_median,
        peer=label,
        peer_median=peer_median,
        notes=f"{rounds} rounds; CPU in the Python process {statistics.median(ours_cpu):.3f} s",
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    add_record_option(parser)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.record))
