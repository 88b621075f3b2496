"""The caller's page controls of a screenshot: emulation, and what is
done to the loaded page (waits, hidden elements, styles, scripts, a click)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from importlib.resources import files
from typing import Any

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from renderkit.browser._protocol import PageShot
from renderkit.core.errors import InvalidRequestError

__all__ = ["after_load", "before_load", "cookie_banner_selectors", "failed_status"]

#: Time kept back from a selector wait for the capture itself, in milliseconds.
_CAPTURE_RESERVE_MS = 2_000


@functools.cache
def cookie_banner_selectors() -> tuple[str, ...]:
    """The packaged list of cookie-consent banner selectors (``blocklists/cookie_banners.txt``)."""
    text = (files("renderkit.browser") / "blocklists" / "cookie_banners.txt").read_text("utf-8")
    lines = (line.strip() for line in text.splitlines())
    return tuple(line for line in lines if line and not line.startswith("!"))


async def before_load(page: Page, cdp: CDPSession, shot: PageShot) -> None:
    """Set what must be in place before navigation: locale and time zone.

    (Headers and cookies are the page guard's: see ``_credentials``.)
    """
    if shot.timezone is not None:
        await cdp.send("Emulation.setTimezoneOverride", {"timezoneId": shot.timezone})
    if shot.locale is not None:
        await cdp.send("Emulation.setLocaleOverride", {"locale": shot.locale})
        await cdp.send(
            "Emulation.setUserAgentOverride",
            {
                "userAgent": shot.user_agent or await page.evaluate("navigator.userAgent"),
                "acceptLanguage": shot.locale,
            },
        )


async def after_load(
    page: Page, cdp: CDPSession, shot: PageShot, remaining_ms: Callable[[], float]
) -> None:
    """Apply the controls to the loaded page, in the order a person would."""
    if shot.wait_for_selector is not None:
        await _wait_for(page, shot.wait_for_selector, remaining_ms)
    hidden = [
        *shot.hide_selectors,
        *(cookie_banner_selectors() if shot.block_cookie_banners else ()),
    ]
    css = "".join(f"{s}{{visibility:hidden!important}}\n" for s in hidden)
    if shot.hide_selectors:
        await _check_selectors(page, "hide_selectors", shot.hide_selectors)
    if css or shot.styles:
        await _add_styles(cdp, css + (shot.styles or ""))
    if shot.scripts:
        reply = await cdp.send(
            "Runtime.evaluate", {"expression": shot.scripts, "awaitPromise": True}
        )
        if "exceptionDetails" in reply:
            detail = reply["exceptionDetails"].get("exception", {}).get("description", "")
            msg = f"the script failed ({str(detail).splitlines()[0][:120] if detail else 'error'})"
            raise InvalidRequestError.single("scripts", msg)
    if shot.click_selector is not None:
        await _click(page, shot.click_selector)


def failed_status(shot: PageShot, status: int | None) -> None:
    """Refuse the capture when the page answered one of ``shot.fail_on_status``."""
    if status is None:
        return
    for entry in shot.fail_on_status:
        low, _, high = str(entry).partition("-")
        if int(low) <= status <= int(high or low):
            msg = f"the page answered HTTP {status}, which fail_on_status refuses"
            raise InvalidRequestError.single("url", msg)


async def _add_styles(cdp: CDPSession, css: str) -> None:
    # A constructed stylesheet is not an inline <style>, so the page's CSP cannot refuse it.
    expression = (
        "(() => { const s = new CSSStyleSheet(); s.replaceSync("
        + json.dumps(css)
        + "); document.adoptedStyleSheets = [...document.adoptedStyleSheets, s]; })()"
    )
    await cdp.send("Runtime.evaluate", {"expression": expression})


async def _check_selectors(page: Page, field: str, selectors: tuple[str, ...]) -> None:
    bad = await page.evaluate(
        """(selectors) => selectors.find(s => {
          try { document.querySelector(s); return false; } catch (e) { return true; }
        }) ?? null""",
        list(selectors),
    )
    if bad is not None:
        raise InvalidRequestError.single(field, f"{str(bad)[:60]!r} is not a valid CSS selector")


async def _wait_for(page: Page, selector: str, remaining_ms: Callable[[], float]) -> None:
    await _check_selectors(page, "wait_for_selector", (selector,))
    timeout = max(1.0, remaining_ms() - _CAPTURE_RESERVE_MS)
    try:
        await page.wait_for_selector(selector, state="visible", timeout=timeout)
    except PlaywrightError as exc:
        msg = f"no visible element matched within {timeout / 1000:.1f} s"
        raise InvalidRequestError.single("wait_for_selector", msg) from exc


async def _click(page: Page, selector: str) -> None:
    await _check_selectors(page, "click_selector", (selector,))
    found: Any = await page.evaluate(
        """(selector) => {
          const el = document.querySelector(selector);
          if (!el) return false;
          el.scrollIntoView({block: 'center'});
          el.click();
          return true;
        }""",
        selector,
    )
    if not found:
        raise InvalidRequestError.single("click_selector", "matched no element on the page")
