"""Profile what one fresh browser context costs Chromium, over raw DevTools (issue #30).

    python bench/profile_context.py [--rounds 20] [--variants "baseline,headless shell"]
    python bench/profile_context.py --variants baseline --trace serial

No Playwright and no pool: one WebSocket to the browser speaks CDP directly, so what is left
is Chromium's own work. Every round of a variant makes a context as the pool does
(``Target.createBrowserContext`` with the context's own proxy listener, its "door", or none:
the browser-wide ``--proxy-server`` only), opens a page in it, sizes it to 1280x800,
navigates to a small page on 127.0.0.1, captures it and disposes of the context. Phases are
timed one by one ("serial"); "spare" runs the same steps the way the pool does, the next
context made while the current one captures and the dispose left in the background, and
times each capture from taking the spare to the screenshot; "warm" is one page reused
(navigate + screenshot), the peer of bench_screenshot.py.

Every variant is its own browser (the pool's flags plus the variant's), all running at once
and visited round by round (A B A B), so machine noise hits each alike. CPU per Chromium
process type is read from ``/proc/<pid>/stat`` of the browser's process group (user +
system, with children reaped: a renderer that exited is counted through its zygote).
Medians of wall time and mean CPU per round, with the load average; the browser process's
CPU is also split by thread (``main`` is its UI thread). ``--trace serial|warm`` instead
records a Chromium trace of the first variant's rounds and prints the browser UI thread's
self time per trace event (with the task's posting function or the keyed service's name):
where that thread's milliseconds go.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import contextlib
import itertools
import json
import os
import shutil
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import attrs

sys.path.insert(0, str(Path(__file__).parents[1]))

from bench_screenshot import PAGE
from tests._server import serve
from websockets.asyncio.client import ClientConnection, connect

from renderkit.browser._egress import EgressDoor, EgressProxy
from renderkit.browser._process import (
    _DISABLED_FEATURES,
    UNLIMITED_FRAMES,
    ChromiumProcess,
    launch_chromium,
)
from renderkit.core.netpolicy import UrlPolicy

_TICK = os.sysconf("SC_CLK_TCK")

#: Playwright's default switches (chromiumSwitches.js) that the pool does not pass already.
PLAYWRIGHT_SWITCHES = (
    "--disable-field-trial-config",
    "--disable-back-forward-cache",
    "--disable-client-side-phishing-detection",
    "--disable-component-extensions-with-background-pages",
    "--disable-hang-monitor",
    "--disable-ipc-flooding-protection",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--password-store=basic",
    "--use-mock-keychain",
    "--no-service-autorun",
    "--disable-search-engine-choice-screen",
)
#: Features Playwright turns off that the pool does not (the pool's own list is in _process).
PLAYWRIGHT_FEATURES = (
    "DestroyProfileOnBrowserClose",
    "DialMediaRouteProvider",
    "GlobalMediaControls",
    "HttpsUpgrades",
    "LensOverlay",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AutoDeElevate",
    "RenderDocument",
)

#: Per-profile services beyond Playwright's list.
MORE_FEATURES = (
    "CertificateTransparencyComponentUpdater",
    "PrivacySandboxSettings4",
    "InterestFeedContentSuggestions",
    "OptimizationGuideModelDownloading",
    "OptimizationHintsFetching",
    "OptimizationTargetPrediction",
    "AutofillServerCommunication",
    "BackForwardCache",
    "Prerender2",
    "NetworkPrediction",
    "SafeBrowsing",
    "CalculateNativeWinOcclusion",
    "HeavyAdIntervention",
    "ReadAnythingOmniboxChip",
    "SidePanelPinning",
)


@attrs.frozen(kw_only=True)
class Variant:
    """One browser to compare: the pool's flags plus these."""

    flags: tuple[str, ...] = ()
    #: Features turned off on top of the pool's list (Chromium keeps one --disable-features).
    features: tuple[str, ...] = ()
    #: Each context gets its own proxy listener, as the pool's do (else the browser's only).
    door: bool = True
    #: Keep Chromium's 60 Hz frame clock (the pool turns it off by default).
    frame_limit: bool = False
    executable: str = "chromium"


VARIANTS: dict[str, Variant] = {
    "baseline": Variant(),
    "no door (browser-wide proxy)": Variant(door=False),
    "playwright switches": Variant(flags=PLAYWRIGHT_SWITCHES),
    "playwright features": Variant(features=PLAYWRIGHT_FEATURES),
    "everything": Variant(
        flags=PLAYWRIGHT_SWITCHES, features=(*PLAYWRIGHT_FEATURES, *MORE_FEATURES)
    ),
    "field-trial-config": Variant(flags=("--disable-field-trial-config",)),
    "reduced motion": Variant(flags=("--force-prefers-reduced-motion",)),
    "kiosk": Variant(flags=("--kiosk",)),
    "small window": Variant(flags=("--window-size=320,240",)),
    "CDPScreenshotNewSurface": Variant(flags=("--enable-features=CDPScreenshotNewSurface",)),
    "frame rate limit": Variant(frame_limit=True),
    # The old headless mode, Debian's chromium-headless-shell (the binary Playwright runs for
    # headless Chromium): a context there has no browser window, tab strip or toolbar. The
    # binary itself: Debian's /usr/bin wrapper does not exec it.
    "headless shell": Variant(executable="/usr/lib/chromium/chromium-headless-shell"),
}


class Cdp:
    """CDP over the browser's WebSocket, flattened sessions, with event waits."""

    def __init__(self, connection: ClientConnection) -> None:
        self._connection = connection
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._waiters: dict[tuple[str, str], list[asyncio.Future[None]]] = collections.defaultdict(
            list
        )
        self.listeners: dict[str, Callable[[dict[str, Any]], None]] = {}
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        message_id = next(self._ids)
        future = asyncio.get_running_loop().create_future()
        self._pending[message_id] = future
        message: dict[str, Any] = {"id": message_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        await self._connection.send(json.dumps(message))
        return await future

    def event(self, session: str, method: str) -> asyncio.Future[None]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters[(session, method)].append(future)
        return future

    async def _read(self) -> None:
        async for raw in self._connection:
            message = json.loads(raw)
            if "id" in message:
                future = self._pending.pop(message["id"])
                if "error" in message:
                    future.set_exception(RuntimeError(message["error"]["message"]))
                else:
                    future.set_result(message["result"])
                continue
            listener = self.listeners.get(message["method"])
            if listener is not None:
                listener(message["params"])
            for waiter in self._waiters.pop((message.get("sessionId", ""), message["method"]), []):
                if not waiter.done():
                    waiter.set_result(None)

    async def aclose(self) -> None:
        await self._connection.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader


class Browser:
    """One variant's Chromium, its DevTools connection and its proxy doors."""

    def __init__(self, name: str, process: ChromiumProcess, cdp: Cdp, proxy: EgressProxy) -> None:
        self.name = name
        self.process = process
        self.cdp = cdp
        self.proxy = proxy
        self.doors = VARIANTS[name].door
        self.phases: dict[str, list[float]] = collections.defaultdict(list)
        self.cpu: dict[str, dict[str, float]] = collections.defaultdict(
            lambda: collections.defaultdict(float)
        )

    async def open(self) -> tuple[str, str, EgressDoor | None]:
        door = await self.proxy.door() if self.doors else None
        params: dict[str, Any] = {"disposeOnDetach": False}
        if door is not None:
            params |= {"proxyServer": door.url, "proxyBypassList": "<-loopback>"}
        context = (await self.cdp.send("Target.createBrowserContext", params))["browserContextId"]
        target = await self.cdp.send(
            "Target.createTarget", {"url": "about:blank", "browserContextId": context}
        )
        attached = await self.cdp.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
        )
        session = attached["sessionId"]
        await self.cdp.send("Page.enable", session=session)
        await self.cdp.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        return context, session, door

    async def capture(self, session: str, url: str) -> bytes:
        loaded = self.cdp.event(session, "Page.loadEventFired")
        await self.cdp.send("Page.navigate", {"url": url}, session=session)
        await loaded
        shot = await self.cdp.send(
            "Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True}, session=session
        )
        return base64.b64decode(shot["data"])

    async def dispose(self, context: str, door: EgressDoor | None) -> None:
        await self.cdp.send("Target.disposeBrowserContext", {"browserContextId": context})
        if door is not None:
            door.close()


async def timed(into: list[float], action: Awaitable[Any]) -> Any:
    started = time.perf_counter()
    result = await action
    into.append(time.perf_counter() - started)
    return result


async def serial(browser: Browser, url: str) -> None:
    phases = browser.phases
    context, session, door = await timed(phases["serial: open (context+page+size)"], browser.open())
    await timed(phases["serial: navigate + screenshot"], browser.capture(session, url))
    await timed(phases["serial: dispose"], browser.dispose(context, door))


async def warm(browser: Browser, url: str, session: str) -> None:
    await timed(browser.phases["warm: navigate + screenshot"], browser.capture(session, url))


class Spare:
    """The pool's way: a spare made ready ahead, replaced while the capture runs."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.next: asyncio.Task[tuple[str, str, EgressDoor | None]] | None = None
        self.closing: set[asyncio.Task[None]] = set()

    async def round(self, url: str) -> None:
        browser = self.browser
        started = time.perf_counter()
        if self.next is None:
            self.next = asyncio.create_task(browser.open())
        context, session, door = await self.next
        self.next = asyncio.create_task(browser.open())
        await browser.capture(session, url)
        browser.phases["spare: take + capture (pool-like)"].append(time.perf_counter() - started)
        task = asyncio.create_task(browser.dispose(context, door))
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)

    async def settle(self) -> None:
        if self.closing:
            await asyncio.wait(self.closing)


def _group(pgid: int) -> dict[int, str]:
    """Every process of Chromium's process group, by pid, with its type."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            # Chromium rewrites its helpers' titles into one space-separated string.
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").split()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[2]) != pgid:
            continue
        kind = "browser"
        for arg in cmdline:
            if arg.startswith(b"--type="):
                kind = arg[7:].decode()
            if arg.startswith(b"--utility-sub-type="):
                kind = "network" if b"Network" in arg else "utility"
        if not cmdline:  # a helper that exited, not yet reaped: a renderer in practice
            found[int(entry)] = "renderer"
            continue
        if "chrom" not in cmdline[0].decode(errors="replace"):
            continue  # the warden
        found[int(entry)] = "renderer" if kind in ("zygote", "renderer") else kind
    return found


def cpu_by_type(pgid: int) -> dict[str, float]:
    """CPU seconds so far per process type (a zygote's reaped children count as renderer)."""
    totals: dict[str, float] = collections.defaultdict(float)
    for pid, kind in _group(pgid).items():
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            totals[kind] += sum(int(x) for x in fields[11:15]) / _TICK
        if kind == "browser":
            # The browser's threads by name: its UI thread is one core at most.
            tids: list[str] = []
            with contextlib.suppress(OSError):
                tids = os.listdir(f"/proc/{pid}/task")
            for tid in tids:
                with contextlib.suppress(OSError):
                    stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
                    name = stat.split("(", 1)[1].rsplit(")", 1)[0]
                    name = "main" if tid == str(pid) else name.rstrip("0123456789")
                    fields = stat.rsplit(")", 1)[1].split()
                    totals[f"  {name}"] += sum(int(x) for x in fields[11:13]) / _TICK
    return totals


async def measured(browser: Browser, mode: str, action: Callable[[], Awaitable[None]]) -> None:
    before = cpu_by_type(browser.process.pid)
    await action()
    after = cpu_by_type(browser.process.pid)
    for kind in after.keys() | before.keys():
        browser.cpu[mode][kind] += after.get(kind, 0) - before.get(kind, 0)


async def start(name: str, policy: UrlPolicy) -> Browser:
    proxy = EgressProxy(policy)
    await proxy.start()
    variant = VARIANTS[name]
    extra = [*variant.flags, *(() if variant.frame_limit else (UNLIMITED_FRAMES,))]
    extra += [f"--proxy-server={proxy.url}", "--proxy-bypass-list=<-loopback>"]
    if variant.features:
        # Chromium keeps the last --disable-features only: the pool's list plus the variant's.
        extra.append(f"--disable-features={','.join([*_DISABLED_FEATURES, *variant.features])}")
    process = await launch_chromium(variant.executable, extra_args=extra)
    connection = await connect(process.ws_url, max_size=None, compression=None, ping_interval=None)
    return Browser(name, process, Cdp(connection), proxy)


#: What a trace records: top-level tasks and what runs inside them on the browser's threads.
TRACE_CATEGORIES = ["toplevel", "mojom", "navigation", "browser", "content", "ipc", "gpu"]


async def trace(browser: Browser, url: str, rounds: int, mode: str) -> None:
    """Self time per trace event name on the browser's UI thread, per round of ``mode``."""
    events: list[dict[str, Any]] = []
    done = asyncio.get_running_loop().create_future()
    browser.cdp.listeners["Tracing.dataCollected"] = lambda p: events.extend(p["value"])
    browser.cdp.listeners["Tracing.tracingComplete"] = lambda p: done.set_result(None)
    warm_session = (await browser.open())[1]
    await browser.cdp.send(
        "Tracing.start",
        {"traceConfig": {"includedCategories": TRACE_CATEGORIES}, "transferMode": "ReportEvents"},
    )
    for _ in range(rounds):
        if mode == "warm":
            await warm(browser, url, warm_session)
        else:
            await serial(browser, url)
    await browser.cdp.send("Tracing.end")
    await done
    pid = browser.process.pid
    main_tid = next(
        e["tid"]
        for e in events
        if e.get("ph") == "M"
        and e.get("name") == "thread_name"
        and e["pid"] == pid
        and e["args"]["name"] == "CrBrowserMain"
    )
    spans = sorted(
        (e for e in events if e.get("ph") == "X" and e["pid"] == pid and e["tid"] == main_tid),
        key=lambda e: (e["ts"], -e.get("dur", 0)),
    )
    own: dict[str, float] = collections.defaultdict(float)
    stack: list[tuple[float, str]] = []  # (end, key) of the open spans

    def key(e: dict[str, Any]) -> str:
        args = e.get("args", {})
        where = (
            args.get("src_func")
            or args.get("service_name")
            or args.get("chrome_mojo_event_info", {}).get("mojo_interface_tag", "")
        )
        return f"{e['name']} {where}".strip()

    for e in spans:
        end = e["ts"] + e.get("dur", 0)
        while stack and stack[-1][0] <= e["ts"]:
            stack.pop()
        if stack:
            own[stack[-1][1]] -= e.get("dur", 0)
        own[key(e)] += e.get("dur", 0)
        stack.append((end, key(e)))
    total = sum(own.values())
    print(f"== trace of {rounds} {mode} rounds: the browser UI thread's self time per round")
    print(f"   all tasks {total / rounds / 1000:.1f} ms")
    for name, micros in sorted(own.items(), key=lambda kv: -kv[1])[:40]:
        print(f"   {micros / rounds / 1000:6.2f} ms  {name[:110]}")


async def main(rounds: int, names: list[str], traced: str | None = None) -> None:
    policy = UrlPolicy(allow_networks=("127.0.0.0/8",))
    with serve() as site:
        site.routes["/"] = (200, "text/html", PAGE)
        url = site.url("/")
        missing = [n for n in names if shutil.which(VARIANTS[n].executable) is None]
        for name in missing:
            print(f"skipped {name}: {VARIANTS[name].executable} is not installed")
        browsers = [await start(name, policy) for name in names if name not in missing]
        if traced is not None:
            try:
                for _ in range(3):
                    await serial(browsers[0], url)
                await trace(browsers[0], url, rounds, traced)
            finally:
                await browsers[0].cdp.aclose()
                await browsers[0].process.kill()
                await browsers[0].proxy.aclose()
            return
        try:
            spares = {b.name: Spare(b) for b in browsers}
            warm_sessions = {b.name: (await b.open())[1] for b in browsers}
            for browser in browsers:  # warm every path
                for _ in range(3):
                    await serial(browser, url)
                    await warm(browser, url, warm_sessions[browser.name])
                    await spares[browser.name].round(url)
                browser.phases.clear()
            for _ in range(rounds):
                for browser in browsers:
                    await measured(browser, "serial", lambda b=browser: serial(b, url))
                    await spares[browser.name].settle()
                    await measured(
                        browser,
                        "spare",
                        lambda b=browser: spares[b.name].round(url),
                    )
                    await spares[browser.name].settle()
                    await measured(
                        browser, "warm", lambda b=browser: warm(b, url, warm_sessions[b.name])
                    )
        finally:
            for browser in browsers:
                await browser.cdp.aclose()
                await browser.process.kill()
                await browser.proxy.aclose()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    for browser in browsers:
        print(f"== {browser.name}")
        for phase, values in browser.phases.items():
            print(f"   {phase:<40} {statistics.median(values) * 1000:7.1f} ms")
        for mode, kinds in browser.cpu.items():
            shown = sorted((k, v) for k, v in kinds.items() if v / rounds >= 0.002)
            parts = "  ".join(f"{k.strip()} {v / rounds * 1000:.0f}" for k, v in shown)
            total = sum(v for k, v in kinds.items() if not k.startswith(" ")) / rounds * 1000
            print(f"   cpu/round {mode:<7} total {total:5.0f} ms:  {parts}")
    print(f"load average {load} on {os.cpu_count()} cores, {rounds} rounds")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument(
        "--variants",
        default="baseline,no door (browser-wide proxy),everything,headless shell",
        help=f"comma-separated, of: {', '.join(VARIANTS)}",
    )
    parser.add_argument(
        "--trace",
        choices=("serial", "warm"),
        help="trace the first variant's browser UI thread instead",
    )
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.variants.split(","), args.trace))
