"""Cancelling a synthesis (client gone, timeout, shutdown) stops the engine's work promptly.

The worker a call held must be free again within about a second, not once the engine has
said its script: the model calls in progress are aborted, an espeak-ng process is killed.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import anyio
import pytest

from renderkit.core.workers import WorkerPool
from renderkit.speech import KokoroSpeechProvider, LocalSpeechProvider, synthesize
from renderkit.speech._models import AudioRequest

from . import needs_espeak, needs_kokoro

pytestmark = pytest.mark.anyio

# Several minutes of speech: far longer than any test waits.
LONG_SCRIPT = (
    "The weather today is mild, with a light breeze from the west and clear skies by evening. "
    "Please remember to water the garden, feed the cat, and lock the front door. "
) * 25


async def _cancel_midway(pool: WorkerPool, started: anyio.Event, work: object) -> float:
    """Start ``work``, cancel it once it is under way; the seconds cancelling took."""
    assert callable(work)
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(work)
            with anyio.fail_after(60):
                await started.wait()
            assert pool.busy == 1
            begun = time.monotonic()
            scope.cancel()
    return time.monotonic() - begun


@needs_kokoro
async def test_a_cancelled_kokoro_synthesis_frees_its_worker_within_a_second() -> None:
    kokoro = KokoroSpeechProvider(parallel=1)
    pool = WorkerPool(name="audio", max_workers=1, max_queue=0)
    started = anyio.Event()
    request = AudioRequest(script=LONG_SCRIPT, voice_id="af_heart", format="wav")

    async def work() -> None:
        await synthesize(request, provider=kokoro, workers=pool)

    # Wait until the model is mid-sentence so the cancel has a running call to abort.
    async def watch() -> None:
        for _ in range(3000):
            if pool.busy and kokoro._limit.borrowed_tokens:
                break
            await anyio.sleep(0.02)
        await anyio.sleep(1.0)
        started.set()

    short = AudioRequest(script="Hello.", voice_id="af_heart", format="wav")
    try:
        # Warm: the model loaded and PyAV imported, seconds the first call spends in threads
        # no cancellation interrupts (and once per process).
        await synthesize(short, provider=kokoro, workers=pool)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(watch)
            took = await _cancel_midway(pool, started, work)
        assert took < 1.5, f"cancelling took {took:.2f} s"
        assert pool.busy == 0
        assert kokoro._limit.borrowed_tokens == 0
        # The engine is free: a short synthesis starts at once and finishes.
        with anyio.fail_after(30):
            result = await synthesize(short, provider=kokoro, workers=pool)
        assert result.duration_seconds > 0.2
    finally:
        await kokoro.aclose()


@needs_espeak
async def test_a_cancelled_espeak_synthesis_kills_its_process_and_frees_its_worker(
    tmp_path: Path,
) -> None:
    espeak = shutil.which("espeak-ng")
    assert espeak is not None
    pidfile = tmp_path / "pid"
    # espeak-ng itself says 5,000 characters in a fraction of a second: a wrapper that
    # stalls on synthesis (voice listing passes through) stands in for a runaway process.
    wrapper = tmp_path / "espeak-ng-stalling"
    wrapper.write_text(
        "#!/bin/sh\n"
        'case "$1" in --voices*) exec ' + espeak + ' "$@";; esac\n'
        f"echo $$ > {pidfile}\nexec sleep 120\n"
    )
    wrapper.chmod(0o755)
    local = LocalSpeechProvider(str(wrapper), timeout=300)
    pool = WorkerPool(name="audio", max_workers=1, max_queue=0)
    started = anyio.Event()

    async def work() -> None:
        await synthesize(
            AudioRequest(script=LONG_SCRIPT[:4000], voice_id="en-us"), provider=local, workers=pool
        )

    async def watch() -> None:
        for _ in range(3000):
            if pidfile.exists() and pidfile.read_text().strip():
                break
            await anyio.sleep(0.02)
        started.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(watch)
        took = await _cancel_midway(pool, started, work)
    assert took < 1.0, f"cancelling took {took:.2f} s"
    assert pool.busy == 0
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped, not left running
