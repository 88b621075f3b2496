"""What happens on one page during a render: load, settle, scroll, shoot.

Every step works on a :class:`~renderkit.browser._page.Slot` it is given and within the
time it is given (``remaining_ms``); which slot, and what happens when time runs out, is
decided by the pool (``_slots``, ``_watch``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Response
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from renderkit.browser import _controls as controls
from renderkit.browser._adblock import default_blocklist
from renderkit.browser._credentials import OriginCredentials
from renderkit.browser._egress import BLOCKED_HEADER
from renderkit.browser._guard import NAVIGATES_AWAY
from renderkit.browser._page import Slot
from renderkit.browser._protocol import Capture, PageCapture, PageShot, Shell
from renderkit.core.errors import (
    BlockedUrlError,
    InvalidRequestError,
    NavigationError,
    RenderError,
)
from renderkit.core.media import MAX_PIXELS
from renderkit.core.waits import wait_set

__all__ = [
    "inject",
    "load_document",
    "load_shell",
    "settle",
    "shell_document",
    "shoot",
    "stays_on_page",
]

Remaining = Callable[[], float]
"""Milliseconds left of the render's budget (at least 1)."""

_QUIET_TIMEOUT_MS = 2_000
_QUIET_WINDOW = 0.1


def shell_document(shell: Shell) -> str:
    """The complete document of a warm page: ``shell``'s head and an empty ``#rk-root``."""
    return (
        f'<!doctype html><html><head><meta charset="utf-8">{shell.head}</head>'
        '<body><div id="rk-root"></div></body></html>'
    )


async def load_shell(slot: Slot, shell: Shell) -> None:
    """Make ``slot`` a warm page of ``shell`` (loaded once per slot and shell)."""
    if slot.shell != shell.name:
        await slot.page.set_content(shell_document(shell))
        await slot.page.evaluate(
            "Promise.all([...document.fonts].map(f => f.load())).then(() => true)"
        )
        slot.shell = shell.name
    slot.guard.blocked.clear()


async def inject(
    slot: Slot,
    fragment: str,
    width: int | None,
    height: int | None,
    *,
    image_timeout: float,
    title: str | None = None,
) -> None:
    """Render ``fragment`` into the warm page through its ``window.__rk.render``.

    ``title``, when given, becomes the page's title in the same round trip (a document's
    title, which Chromium prints into the PDF's metadata).

    Raises:
        BlockedUrlError: an image of the fragment goes to a disallowed address.
        InvalidRequestError: an image of the fragment did not load.
        RenderError: the page's renderer script failed.
    """
    args = [fragment, width, height, image_timeout * 1000, title]
    if slot.direct is not None:
        # One round trip straight to the page, skipping Playwright's relay.
        reply = await slot.direct.send(
            "Runtime.evaluate",
            {
                "expression": f"window.__rk.render(...{json.dumps(args)})",
                "awaitPromise": True,
                "returnByValue": True,
            },
        )
        if "exceptionDetails" in reply:
            msg = "the page's renderer script failed"
            raise RenderError(msg)
        outcome = reply["result"]["value"]
    else:
        outcome = await slot.page.evaluate(
            "([html, w, h, t, title]) => window.__rk.render(html, w, h, t, title)", args
        )
    if not outcome["ok"]:
        field = outcome.get("field") or "html"
        if slot.guard.blocked:
            msg = f"{field}: the address is not allowed"
            raise BlockedUrlError(msg, url=slot.guard.blocked[-1], field=field)
        raise InvalidRequestError.single(field, outcome.get("reason", "failed to load"))


async def load_document(slot: Slot, html: str, remaining_ms: Remaining) -> None:
    """Load the caller's complete document, which must stay on its page.

    Raises:
        InvalidRequestError: the document navigated its page away.
    """
    slot.guard.document = True
    await slot.page.set_content(html, wait_until="load", timeout=remaining_ms())
    await slot.page.evaluate("document.fonts.ready.then(() => true)")
    if slot.guard.navigated_to is not None:
        raise InvalidRequestError.single("html", NAVIGATES_AWAY)


@contextlib.contextmanager
def stays_on_page(slot: Slot) -> Iterator[None]:
    """Report a capture that failed because the document began navigating away (a meta
    refresh firing just after load makes Chromium refuse to print) as the caller's mistake."""
    try:
        yield
    except (PlaywrightError, RuntimeError) as exc:
        if slot.guard.navigated_to is None:
            raise
        raise InvalidRequestError.single("html", NAVIGATES_AWAY) from exc


async def shoot(slot: Slot, shot: PageShot, remaining_ms: Remaining) -> PageCapture:
    """Load ``shot.url``, apply the caller's controls and capture it (see ``capture_url``)."""
    guard = slot.guard
    guard.page_host = urlsplit(shot.url).hostname
    guard.forget_navigations()
    guard.adblock = default_blocklist() if shot.block_ads else None
    guard.credentials = OriginCredentials.for_url(
        shot.url, headers=shot.headers, cookies=shot.cookies
    )
    if guard.adblock is not None or guard.credentials is not None:
        # Only interception can block an ad or send credentials: a page that was only
        # watched (see ``open_slot``) is intercepted from now on, for this one capture.
        await guard.install(slot.context)
    await slot.emulate(shot)
    await controls.before_load(slot.page, slot.cdp, shot)
    response = await _navigate(slot, shot.url, remaining_ms, wait_until=shot.wait_until)
    try:
        capture = await _after_navigation(slot, shot, response, remaining_ms)
    except (PlaywrightError, RuntimeError) as exc:
        # A capture that failed because the page navigated itself (a script setting
        # location) to a disallowed address is that refusal, the caller's 400, not a 500.
        await _refuse_blocked_navigation(slot, exc)
        raise
    await _refuse_blocked_navigation(slot, None)
    return capture


async def _refuse_blocked_navigation(slot: Slot, cause: BaseException | None) -> None:
    url = await slot.guard.refused_navigation()
    if url is not None:
        msg = "url: the page navigated itself to an address that is not allowed"
        raise BlockedUrlError(msg, url=url, field="url") from cause


async def _after_navigation(
    slot: Slot,
    shot: PageShot,
    response: Response | None,
    remaining_ms: Remaining,
) -> PageCapture:
    controls.failed_status(shot, response.status if response is not None else None)
    await settle(slot, remaining_ms, loaded=shot.wait_until == "load")
    await controls.after_load(slot.page, slot.cdp, shot, remaining_ms)
    if shot.scroll_page and not shot.full_page:
        await _scroll_through(slot, remaining_ms)
    if shot.delay_ms:
        # The caller asked for this wait (animations, late scripts); it is bounded by
        # the request model and by the render budget around us.
        await asyncio.sleep(shot.delay_ms / 1000)
    truncated = False
    if shot.pdf is not None:
        await slot.page.emulate_media(media="print")
        content = await slot.print_pdf(shot.pdf)
    elif shot.format == "html":
        content = await _serialize_dom(slot, shot.max_html_chars)
    elif shot.selector is not None:
        content = await _capture_element(slot, shot)
    elif shot.full_page:
        await _scroll_through(slot, remaining_ms)
        content, truncated = await _capture_full_page(slot, shot)
    else:
        content = await slot.capture(_capture_of(shot, shot.width, shot.height))
    refused = slot.refused_since(slot.navigated_at)
    return PageCapture(
        content=content,
        final_url=slot.page.url,
        status=response.status if response is not None else None,
        blocked=(*slot.guard.blocked, *refused),
        truncated=truncated,
    )


async def settle(slot: Slot, remaining_ms: Remaining, *, loaded: bool = False) -> None:
    """Wait until no request has been in flight for a short quiet window, within bounds.

    Playwright's "networkidle" waits a fixed 500 ms even on a finished page; tracking the
    requests ourselves ends the wait after 100 ms of quiet, or after 2 s whatever happens.
    ``loaded``: the page just fired its load event; a page that then has nothing in flight
    and nothing that could start a request later (no script, frame or media, see
    ``_STATIC_PAGE``) needs no window at all.
    """
    if loaded and slot.inflight == 0 and await _is_static(slot):
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + min(_QUIET_TIMEOUT_MS, remaining_ms()) / 1000
    while (left := deadline - loop.time()) > 0:
        slot.activity.clear()
        window = _QUIET_WINDOW if slot.inflight == 0 else left
        if not await wait_set(slot.activity, min(window, left)) and slot.inflight == 0:
            return


# True when nothing in the loaded document can fetch anything more without the page being
# scrolled or clicked: no script (an inline handler counts), no frame, plugin or media
# element, no meta refresh. Images, styles and fonts of the first layout were all fetched
# before the load event. Open shadow roots (declarative ones need no script to exist) are
# searched too; a closed one is out of a page script's sight, so a page hiding a script in
# a closed declarative root is captured without the quiet window, as if it had none.
_STATIC_PAGE = """(() => {
  const live = 'script, iframe, frame, object, embed, video, audio, meta[http-equiv="refresh" i]';
  const roots = [document];
  while (roots.length) {
    const root = roots.pop();
    if (root.querySelector(live)) return false;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = walker.nextNode(); el; el = walker.nextNode()) {
      if (el.shadowRoot) roots.push(el.shadowRoot);
      for (const name of el.getAttributeNames()) {
        if (name.startsWith('on')) return false;
      }
    }
  }
  return true;
})()"""


async def _is_static(slot: Slot) -> bool:
    if slot.direct is not None:
        reply = await slot.direct.send(
            "Runtime.evaluate", {"expression": _STATIC_PAGE, "returnByValue": True}
        )
        return reply.get("result", {}).get("value") is True
    return bool(await slot.page.evaluate(_STATIC_PAGE))


async def _navigate(
    slot: Slot,
    url: str,
    remaining_ms: Remaining,
    *,
    wait_until: str = "load",
) -> Response | None:
    started = time.monotonic()
    msg = "url: the page (or a redirect) goes to an address that is not allowed"
    try:
        response = await slot.page.goto(
            url,
            wait_until=wait_until,  # type: ignore[arg-type]  # checked by the request model
            timeout=remaining_ms(),
        )
    except PlaywrightError as exc:
        refused = slot.refused_since(started)
        blocked = slot.guard.blocked
        if blocked or refused:
            raise BlockedUrlError(msg, url=(blocked or refused)[0], field="url") from exc
        if isinstance(exc, PlaywrightTimeoutError):
            raise
        reason = (exc.message or "").split("\n")[0].split(" at ")[0]
        msg = f"url: the page could not be loaded ({reason[:120]})"
        raise NavigationError(msg, url=url) from exc
    if response is not None and BLOCKED_HEADER in response.headers:
        raise BlockedUrlError(msg, url=response.url, field="url")
    slot.navigated_at = started
    return response


async def _scroll_through(slot: Slot, remaining_ms: Remaining) -> None:
    """Scroll to the bottom in viewport steps so lazy-loaded content loads, then back up."""
    with contextlib.suppress(PlaywrightError):
        await slot.page.evaluate(
            """async (maxSteps) => {
              const step = Math.max(200, window.innerHeight * 0.9);
              for (let i = 0; i < maxSteps; i++) {
                const before = window.scrollY;
                window.scrollBy(0, step);
                await new Promise(r => requestAnimationFrame(() => setTimeout(r, 60)));
                if (window.scrollY === before) break;
              }
              window.scrollTo(0, 0);
              await new Promise(r => requestAnimationFrame(r));
            }""",
            40,
        )
        await settle(slot, remaining_ms)


async def _serialize_dom(slot: Slot, max_chars: int | None) -> bytes:
    """The rendered DOM as UTF-8 HTML, without what the reader does not see.

    Elements the page does not show (``display: none``, ``visibility: hidden``: collapsed
    menus, closed dialogs, and what ``hide_selectors`` and ``block_cookie_banners`` hid) are
    removed first, so an extractor never mistakes them for content. The size is measured in
    the page: an oversized document is refused there and never crosses CDP.
    """
    html = await slot.page.evaluate(
        """(max) => {
          const root = document.documentElement;
          if (!root) return '';
          if (document.body) {
            const unseen = [];
            const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT);
            for (let el = walk.nextNode(); el; el = walk.nextNode()) {
              const style = getComputedStyle(el);
              if (style.display === 'none' || style.visibility === 'hidden') unseen.push(el);
            }
            unseen.forEach(el => el.remove());
          }
          const html = root.outerHTML;
          return max !== null && html.length > max ? null : html;
        }""",
        max_chars,
    )
    if html is None:
        msg = f"the page's DOM is larger than {max_chars:,} characters"
        raise InvalidRequestError.single("url", msg)
    return str(html).encode("utf-8", "replace")


async def _capture_element(slot: Slot, shot: PageShot) -> bytes:
    box = await slot.page.evaluate(
        """(selector) => {
          let el;
          try { el = document.querySelector(selector); } catch (e) { return {error: 'syntax'}; }
          if (!el) return {error: 'none'};
          el.scrollIntoView({block: 'center'});
          const r = el.getBoundingClientRect();
          return {x: r.left + window.scrollX, y: r.top + window.scrollY,
                  width: r.width, height: r.height};
        }""",
        shot.selector,
    )
    if box.get("error") == "syntax":
        raise InvalidRequestError.single("selector", "is not a valid CSS selector")
    if box.get("error") == "none":
        raise InvalidRequestError.single("selector", "matched no element on the page")
    if box["width"] < 1 or box["height"] < 1:
        raise InvalidRequestError.single("selector", "matched an element with no size")
    capture = _capture_of(shot, math.ceil(box["width"]), math.ceil(box["height"]))
    return await slot.capture(capture, x=box["x"], y=box["y"], beyond_viewport=True)


async def _capture_full_page(slot: Slot, shot: PageShot) -> tuple[bytes, bool]:
    metrics = await slot.cdp.send("Page.getLayoutMetrics")
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    width = max(shot.width, math.ceil(size["width"]))
    height = max(shot.height, math.ceil(size["height"]))
    # Bound the bitmap: Chromium's surface limit and memory per capture.
    limit = int(min(16_384 / shot.scale, MAX_PIXELS / (width * shot.scale**2)))
    truncated = height > limit
    capture = _capture_of(shot, width, min(height, limit))
    return await slot.capture(capture, beyond_viewport=True), truncated


def _capture_of(shot: PageShot, width: int, height: int) -> Capture:
    return Capture(
        width=width, height=height, scale=shot.scale, format=shot.format, quality=shot.quality
    )
