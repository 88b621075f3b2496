"""One slot: a browser context with one page, its DevTools sessions, and what it can do.

A slot is made from a new browser context by :func:`open_slot` and knows nothing of pools or
queues; what it does for one render (emulate a device, size its viewport, capture, print)
is here, and the order of those steps is in ``_capture``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
from typing import Any

import attrs
from playwright.async_api import Browser as PlaywrightBrowser
from playwright.async_api import BrowserContext, CDPSession, Page
from playwright.async_api import Error as PlaywrightError
from websockets.exceptions import WebSocketException

from renderkit.browser._cdp import DirectCdp, page_ws_url
from renderkit.browser._egress import EgressDoor
from renderkit.browser._guard import PageGuard
from renderkit.browser._lockdown import LOCKDOWN_SCRIPT
from renderkit.browser._protocol import Capture, PageShot, PdfOptions
from renderkit.core.errors import RenderError
from renderkit.core.netpolicy import UrlPolicy

__all__ = ["CLOSE_TIMEOUT", "DeviceProfile", "Slot", "close_target", "open_slot"]

logger = logging.getLogger("renderkit.browser")

#: Seconds a context (or a direct DevTools connection) gets to close or open.
CLOSE_TIMEOUT = 5.0
#: Seconds a hung page gets to be closed through DevTools before the context is closed.
_KILL_TIMEOUT = 1.0
#: Frames a begin-frame capture asks for before giving up (see ``Slot._draw``).
_DRAW_TRIES = 3


@attrs.frozen(kw_only=True)
class DeviceProfile:
    """The device a screenshot's page is made for: what a spare context is made ready as."""

    width: int
    height: int
    scale: float
    mobile: bool
    user_agent: str | None

    @classmethod
    def of(cls, shot: PageShot) -> DeviceProfile:
        """The device ``shot`` asks for."""
        return cls(
            width=shot.width,
            height=shot.height,
            scale=shot.scale,
            mobile=shot.mobile,
            user_agent=shot.user_agent,
        )


#: The media a page shows until a screenshot asks otherwise: (colour scheme, motion).
_DEFAULT_MEDIA = ("light", "no-preference")


@attrs.define(kw_only=True, eq=False)
class Slot:
    """A browser context and its one page, as one render uses it."""

    context: BrowserContext
    page: Page
    cdp: CDPSession
    guard: PageGuard
    #: A direct DevTools connection for bulky results (screenshots, PDFs); None falls back
    #: to Playwright's session.
    direct: DirectCdp | None = None
    #: The browser generation the slot was opened on; a slot of an older one is discarded.
    generation: int
    shell: str | None = None
    metrics: tuple[int, int, float] | None = None
    #: The page scale a template page is zoomed in by (see :meth:`frame`); 1 otherwise.
    zoom: float = 1.0
    #: The device the page is emulating (None: none yet, or sized by ``set_metrics`` only).
    profile: DeviceProfile | None = None
    #: The emulated colour scheme and motion preference, once set.
    media: tuple[str, str] | None = None
    #: When the page was last navigated (``time.monotonic``), to ask the egress proxy
    #: what it refused since.
    navigated_at: float = 0.0
    #: The context's own listener on the egress proxy (None without a proxy): what the
    #: proxy refused through it, this page asked for.
    door: EgressDoor | None = None
    inflight: int = 0
    activity: asyncio.Event = attrs.Factory(asyncio.Event)
    #: Set when the page was made with begin-frame control: it draws only the frames it is
    #: asked for, captured by ``HeadlessExperimental.beginFrame`` (see :meth:`_draw`), one
    #: at a time over the browser's pages, which this lock (the browser's) orders.
    frame_lock: asyncio.Lock | None = None

    @property
    def begin_frame(self) -> bool:
        """True for a page under begin-frame control."""
        return self.frame_lock is not None

    def is_open(self) -> bool:
        """False once the page was closed (a crashed renderer, say)."""
        return not self.page.is_closed()

    def track_network(self) -> None:
        """Count the page's requests in flight, waking :attr:`activity` on each change."""

        def started(_: object) -> None:
            self.inflight += 1
            self.activity.set()

        def ended(_: object) -> None:
            self.inflight = max(0, self.inflight - 1)
            self.activity.set()

        self.page.on("request", started)
        self.page.on("requestfinished", ended)
        self.page.on("requestfailed", ended)

    async def prepare(self, profile: DeviceProfile) -> None:
        """Make the page ready as ``profile`` before any screenshot needs it.

        Run while the slot is a spare, so the first DevTools commands of a new context (which
        wait for its renderer) are not paid by the capture that takes it.
        """
        await self.emulate_device(profile)
        await self.emulate_media(*_DEFAULT_MEDIA)

    async def emulate_device(self, profile: DeviceProfile) -> None:
        """Set the viewport, pixel ratio, user agent and touch of ``profile`` (once per slot)."""
        if self.profile == profile:
            return
        await self.set_metrics(profile.width, profile.height, profile.scale, mobile=profile.mobile)
        if profile.user_agent:
            await self.cdp.send("Emulation.setUserAgentOverride", {"userAgent": profile.user_agent})
        if profile.mobile:
            await self.cdp.send(
                "Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5}
            )
        self.profile = profile

    async def emulate_media(self, scheme: str, motion: str) -> None:
        """Emulate ``prefers-color-scheme`` and ``prefers-reduced-motion`` (when changed)."""
        if self.media == (scheme, motion):
            return
        await self.cdp.send(
            "Emulation.setEmulatedMedia",
            {
                "features": [
                    {"name": "prefers-color-scheme", "value": scheme},
                    {"name": "prefers-reduced-motion", "value": motion},
                ]
            },
        )
        self.media = (scheme, motion)

    async def emulate(self, shot: PageShot) -> None:
        """Set the device, colour scheme and motion a screenshot asked for.

        A spare made ready for the same device (:meth:`prepare`) has nothing left to send.
        """
        await self.emulate_device(DeviceProfile.of(shot))
        scheme = "dark" if shot.dark_mode else "light"
        motion = "reduce" if shot.reduced_motion else "no-preference"
        await self.emulate_media(scheme, motion)
        if shot.omit_background:
            # On the capturing session, like the metrics: screenshots follow its emulation.
            await (self.direct or self.cdp).send(
                "Emulation.setDefaultBackgroundColorOverride",
                {"color": {"r": 0, "g": 0, "b": 0, "a": 0}},
            )

    async def set_metrics(
        self, width: int, height: int, scale: float, *, mobile: bool = False
    ) -> bool:
        """Size the viewport; sent only when the size changed (then True)."""
        if self.metrics == (width, height, scale) and not mobile:
            return False
        # Device metrics are per DevTools session and screenshots follow the capturing
        # session's, so they are set on the session that captures.
        await (self.direct or self.cdp).send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile},
        )
        self.metrics = (width, height, scale)
        return True

    async def frame(self, capture: Capture) -> None:
        """Size the viewport of a page that never scrolls (a warm template page) to show
        ``capture`` at its scale.

        At a whole scale above 1 the page is laid out at device scale 1 in a viewport
        ``scale`` times larger and zoomed in by ``scale`` (the page scale, as a pinch would)
        rather than emulating the device scale: the same pixels (every template, background,
        script and scale 2 and 3 compared: byte for byte; images over 8192 pixels wide
        differ by 0.005 levels on average, no pixel visibly), but a capture of a page whose
        emulated device scale is not the screen's is taken by re-emulating the page around
        it, which draws it once more (Chromium's PageHandler::CaptureScreenshot; measured:
        a fifth of a 2x og-card's CPU, issue #30).
        """
        width, height, scale, zoom = _framing(capture, any_zoom=self.begin_frame)
        sent = await self.set_metrics(width, height, scale)
        # Only a zoom that changed is sent, and again after new metrics (which reset it).
        if zoom != self.zoom or (sent and zoom != 1):
            await self._set_zoom(zoom)

    def is_framed_for(self, capture: Capture) -> bool:
        """True when :meth:`frame` has nothing to send for ``capture``: a page framed for
        another scale takes a relayout and a new raster of the whole page to reframe."""
        width, height, scale, zoom = _framing(capture, any_zoom=self.begin_frame)
        return self.metrics == (width, height, scale) and self.zoom == zoom

    async def _set_zoom(self, zoom: float) -> None:
        # On the session that captures, like the metrics.
        await (self.direct or self.cdp).send(
            "Emulation.setPageScaleFactor", {"pageScaleFactor": zoom}
        )
        self.zoom = zoom

    async def print_pdf(self, options: PdfOptions) -> bytes:
        """Print the page to PDF."""
        if self.zoom != 1:
            # A warm page zoomed for an image (see frame) prints as it would unzoomed.
            await self._set_zoom(1.0)
        if options.title is not None:
            # Through the direct connection when there is one: a Playwright evaluate relays
            # through its driver, a round trip of its own (~1 ms idle, 8 ms under load).
            title = json.dumps(options.title)
            if self.direct is not None:
                await self.direct.send(
                    "Runtime.evaluate", {"expression": f"document.title={title}"}
                )
            else:
                await self.page.evaluate("(t) => { document.title = t; }", options.title)
        # Chromium draws header/footer templates inside the margins: make room for them.
        margin = options.margin
        bottom = max(margin, 0.5) if options.footer_template else margin
        top = max(margin, 0.5) if options.header_template else margin
        params: dict[str, Any] = {
            "landscape": options.landscape,
            "printBackground": True,
            "paperWidth": options.paper_width,
            "paperHeight": options.paper_height,
            "marginTop": top,
            "marginBottom": bottom,
            "marginLeft": margin,
            "marginRight": margin,
            "preferCSSPageSize": False,
            "displayHeaderFooter": bool(options.header_template or options.footer_template),
            "headerTemplate": options.header_template or "<span></span>",
            "footerTemplate": options.footer_template or "<span></span>",
            # Always said: left out, Chromium 156 tags every PDF, which costs a tenth of the
            # print step and doubles a plain invoice's file for a tree nobody asked for (and
            # without /Lang or an outline, only half of an accessible file). The pages look
            # the same either way (tests/pdf/test_print_cost.py).
            "generateTaggedPDF": options.tagged,
            **({"generateDocumentOutline": True} if options.tagged else {}),
        }
        if options.max_pages is not None:
            params["pageRanges"] = f"1-{options.max_pages + 1}"
        result = await (self.direct or self.cdp).send("Page.printToPDF", params)
        return base64.b64decode(result["data"])

    async def capture(
        self, capture: Capture, *, x: float = 0, y: float = 0, beyond_viewport: bool = False
    ) -> bytes:
        """Capture the box at (``x``, ``y``) of ``capture``'s size as an image."""
        clip = {"x": x, "y": y, "width": capture.width, "height": capture.height, "scale": 1}
        return await self._screenshot(
            capture, {"clip": clip, "captureBeyondViewport": beyond_viewport}
        )

    async def capture_viewport(self, capture: Capture) -> bytes:
        """Capture the whole viewport of a page that never scrolls, framed by :meth:`frame`
        for ``capture`` (a no-op when it already is).

        The same bytes as :meth:`capture` at (0, 0), but without the clip, for which
        Chromium re-emulates the page around the capture and draws it once more (measured:
        8 ms of CPU and of wall time per 1x og-card, issue #30). A fractional scale keeps
        the clip: its page is still emulated at that device scale, which a capture without
        a clip draws differently.
        """
        await self.frame(capture)
        if self.begin_frame:
            return await self._draw(capture)
        if capture.scale != self.zoom:
            return await self.capture(capture)
        return await self._screenshot(capture, {})

    async def _draw(self, capture: Capture) -> bytes:
        """Draw one frame of a begin-frame page and take its screenshot: the viewport, which
        :meth:`frame` made the card at its scale.

        A frame without damage (the same card again, or the first frame after the shell
        loaded) comes back without a screenshot; then the page is drawn hidden once and shown
        again, so the next frame is a whole new drawing of the current card (bytes are
        never kept from an earlier render).

        A browser's frames are drawn one at a time: the headless shell gives every page's
        frames the same begin-frame source id, and the display compositor counts the frame
        sinks of every page with that id as part of each frame under way, so frames of two
        pages begun at once came back without screenshots, and one begun while another
        page's was still drawing was refused as a bad message that killed the GPU process
        ("Got overlapping IssueExternalBeginFrame"; six such and the browser exits). A pool
        gives each slot a template browser of its own instead (``ChromiumPool``); the lock
        only matters if two renders ever share one.

        Raises:
            RenderError: no frame brought a screenshot.
        """
        assert self.frame_lock is not None  # only called for begin-frame pages
        session = self.direct or self.cdp
        shot: dict[str, Any] = {"format": capture.format, "optimizeForSpeed": True}
        if capture.format != "png":
            shot["quality"] = capture.quality
        async with self.frame_lock:
            for attempt in range(_DRAW_TRIES):
                if attempt == 1:
                    # The first frame after a load: one more frame settles the pipeline.
                    await session.send("HeadlessExperimental.beginFrame", {})
                elif attempt == 2:
                    await self._damage(session)
                reply = await session.send("HeadlessExperimental.beginFrame", {"screenshot": shot})
                data = reply.get("screenshotData")
                if data:
                    return base64.b64decode(data)
        msg = "the browser drew no frame to capture"
        raise RenderError(msg)

    async def _damage(self, session: DirectCdp | CDPSession) -> None:
        """Make the next frame draw the whole viewport anew: the page is drawn hidden for a
        frame, then shown again and drawn once more before the frame that is captured (a
        screenshot taken right after showing it again came back still hidden)."""
        toggle = "document.documentElement.style.visibility = %s"
        await session.send("Runtime.evaluate", {"expression": toggle % "'hidden'"})
        await session.send("HeadlessExperimental.beginFrame", {})
        await session.send("Runtime.evaluate", {"expression": toggle % "''"})
        await session.send("HeadlessExperimental.beginFrame", {})

    async def _screenshot(self, capture: Capture, box: dict[str, Any]) -> bytes:
        params: dict[str, Any] = {
            "format": capture.format,
            **box,
            # Chromium's default zlib level dominates PNG time at 2x; the faster setting costs a
            # few percent of file size.
            "optimizeForSpeed": True,
        }
        if capture.format != "png":
            params["quality"] = capture.quality
        result = await (self.direct or self.cdp).send("Page.captureScreenshot", params)
        return base64.b64decode(result["data"])

    async def close(self, *, timeout: float) -> None:
        """Close the direct connection and the context.

        Raises:
            TimeoutError: the context did not close within ``timeout`` seconds.
            PlaywrightError: the browser refused or is gone.
        """
        if self.direct is not None:
            await self.direct.aclose()
        try:
            async with asyncio.timeout(timeout):
                await self.context.close()
        finally:
            if self.door is not None:
                self.door.close()

    def refused_since(self, moment: float) -> list[str]:
        """Hosts the egress proxy refused to this page's context at or after ``moment``."""
        return self.door.refused_since(moment) if self.door is not None else []


def _framing(capture: Capture, *, any_zoom: bool = False) -> tuple[int, int, float, float]:
    """The viewport (CSS size, device scale) and page zoom that show ``capture``.

    ``any_zoom``: a fractional scale is zoomed too (a begin-frame page, whose screenshots
    are taken at device scale 1 whatever the emulated one).
    """
    scale = float(capture.scale)
    zoom = scale if scale > 1 and (any_zoom or scale.is_integer()) else 1.0
    return round(capture.width * zoom), round(capture.height * zoom), scale / zoom, zoom


async def open_slot(
    context: BrowserContext,
    *,
    generation: int,
    endpoint: str | None,
    policy: UrlPolicy,
    profile: DeviceProfile | None = None,
    door: EgressDoor | None = None,
    frames: CDPSession | None = None,
    frame_lock: asyncio.Lock | None = None,
) -> Slot:
    """The page of a new ``context``, locked down and guarded.

    ``frames``: a browser-level session of a browser under begin-frame control; the page is
    then made through it with ``enableBeginFrameControl`` (Playwright adopts it as the
    context's page) and captured by ``HeadlessExperimental.beginFrame``, one frame at a time
    over the browser's pages under ``frame_lock`` (the browser's).

    ``endpoint``, the browser's DevTools URL, opens a direct connection to the page for
    bulky results; None leaves them to Playwright's session. ``profile``: the device the
    page is made ready as (see :meth:`Slot.prepare`), for a screenshot.

    ``door``: the context's listener on the egress proxy, through which every byte of it
    goes (None: a browser without a proxy). A screenshot's
    page is then only watched (:meth:`PageGuard.watch`): the proxy enforces the policy,
    and interception, two extra hops per request, is installed by the captures that need
    it. Without a proxy (a remote browser), and for pages showing the caller's documents
    or templates (a document must not navigate away; a template's refused image names its
    field), every request is intercepted.

    Raises:
        PlaywrightError: the browser failed to create the page.
    """
    # Before the first page exists, so no document ever sees WebRTC (remote mode too).
    await context.add_init_script(LOCKDOWN_SCRIPT)
    page = await (context.new_page() if frames is None else _begin_frame_page(context, frames))
    cdp = await context.new_cdp_session(page)
    guard = PageGuard(policy=policy, page=page)
    slot = Slot(
        context=context,
        page=page,
        cdp=cdp,
        guard=guard,
        generation=generation,
        door=door,
        frame_lock=(frame_lock or asyncio.Lock()) if frames is not None else None,
    )
    if endpoint is not None:
        slot.direct = await _open_direct(cdp, endpoint)
    try:
        slot.track_network()
        if door is not None and profile is not None:
            guard.watch()
        else:
            await guard.install(context)
        if profile is not None:
            await slot.prepare(profile)
    except BaseException:
        # Half made (or its opening cancelled, as a spare's is when the pool closes): the
        # caller closes the context but never sees the slot, so its socket is closed here.
        if slot.direct is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await slot.direct.aclose()
        raise
    return slot


async def _begin_frame_page(context: BrowserContext, frames: CDPSession) -> Page:
    """A page of ``context`` made with begin-frame control, as Playwright's page of it.

    Playwright makes its pages without it and keeps its context's DevTools id to itself,
    so a first page tells the id (``Target.getTargetInfo``) and is closed once the page
    made through ``frames`` was adopted (its init scripts, the lockdown, run in it too).
    """
    first = await context.new_page()
    try:
        session = await context.new_cdp_session(first)
        info = (await session.send("Target.getTargetInfo"))["targetInfo"]
        async with context.expect_page() as adopted:
            await frames.send(
                "Target.createTarget",
                {
                    "url": "about:blank",
                    "browserContextId": info["browserContextId"],
                    "enableBeginFrameControl": True,
                },
            )
        return await adopted.value
    finally:
        await first.close()


async def _open_direct(cdp: CDPSession, endpoint: str) -> DirectCdp | None:
    try:
        info = await cdp.send("Target.getTargetInfo")
        url = page_ws_url(endpoint, info["targetInfo"]["targetId"])
        async with asyncio.timeout(CLOSE_TIMEOUT):
            return await DirectCdp.open(url)
    except (OSError, TimeoutError, PlaywrightError, WebSocketException, KeyError):
        logger.info("no direct DevTools connection; results go through Playwright")
        return None


async def close_target(slot: Slot, browser: PlaywrightBrowser) -> None:
    """Close a page from the browser side: prompt even while its script loops forever.

    A context close waits on the page's renderer; past ``CLOSE_TIMEOUT`` that would
    restart the whole browser and fail every tenant's renders.
    """
    with contextlib.suppress(TimeoutError, PlaywrightError, KeyError):
        async with asyncio.timeout(_KILL_TIMEOUT):
            info = await slot.cdp.send("Target.getTargetInfo")
            target_id = info["targetInfo"]["targetId"]
            session = await browser.new_browser_cdp_session()
            try:
                await session.send("Target.closeTarget", {"targetId": target_id})
            finally:
                await session.detach()
