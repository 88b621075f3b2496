"""Remote Chromium browsers on 127.0.0.1, as a browser fleet's members run them."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from ..conftest import CHROMIUM


class RemoteChromium:
    """``chromium --remote-debugging-port`` in its own process group, killable and restartable.

    It is reached through a TCP relay on a fixed port, as a browser service (Browserless, a
    container) keeps its address across restarts: Chromium's own DevTools listener cannot
    rebind its port while the killed browser's connections sit in TIME_WAIT (60 s here).
    """

    def __init__(self, *, relay: bool = True) -> None:
        #: Without the relay the browser is reached directly (and cannot be restarted on
        #: its port): for callers whose event loop cannot serve the relay.
        self.relay = relay
        self.port = 0
        self.chromium_port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._profile: str | None = None
        self._relay: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _relay_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            if self.process is None:
                raise ConnectionRefusedError
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.chromium_port)
        except OSError:
            writer.close()
            return
        self._links.update((writer, up_writer))

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except OSError:
                pass
            finally:
                sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._links.difference_update((writer, up_writer))

    async def start(self) -> None:
        """Start the browser; the relay keeps the port it had."""
        if self.relay and self._relay is None:
            self._relay = await asyncio.start_server(self._relay_connection, "127.0.0.1", 0)
            self.port = self._relay.sockets[0].getsockname()[1]
        self._profile = tempfile.mkdtemp(prefix="rk-fleet-")
        self.process = subprocess.Popen(
            [
                CHROMIUM,
                "--headless=new",
                # The tests run as root, where Chromium refuses to start with its sandbox.
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--no-first-run",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                f"--user-data-dir={self._profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        port_file = Path(self._profile) / "DevToolsActivePort"
        async with asyncio.timeout(30):
            # Polled: Chromium writes the file when it listens, with nothing to wait on.
            while not (port_file.exists() and len(port_file.read_text().split()) >= 2):  # noqa: ASYNC110
                await asyncio.sleep(0.05)
        self.chromium_port = int(port_file.read_text().split()[0])
        if not self.relay:
            self.port = self.chromium_port

    def kill(self) -> None:
        """SIGKILL the browser and its helpers at once, as a crash or an OOM kill would."""
        for link in self._links:
            link.close()  # the relay passes the dead browser's connections on as closed
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            self.process = None
        if self._profile is not None:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None

    async def stop(self) -> None:
        """Kill the browser and close the relay."""
        self.kill()
        if self._relay is not None:
            self._relay.close()
            await self._relay.wait_closed()
            self._relay = None

    async def pages(self) -> int:
        """Page targets open in the browser (the fleet's warm slots among them)."""
        async with httpx.AsyncClient() as client:
            targets = (await client.get(f"{self.url}/json/list")).json()
        return sum(1 for target in targets if target["type"] == "page")


@asynccontextmanager
async def remote_browsers(count: int, *, relay: bool = True) -> AsyncIterator[list[RemoteChromium]]:
    browsers = [RemoteChromium(relay=relay) for _ in range(count)]
    try:
        await asyncio.gather(*(browser.start() for browser in browsers))
        yield browsers
    finally:
        for browser in browsers:
            await browser.stop()
