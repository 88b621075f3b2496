"""The request guard on every page: what a page may fetch, and that a document stays put.

An intercepted page routes all its requests and WebSockets through its :class:`PageGuard`.
The network policy (private addresses) applies to everything; ad blocking applies
when a screenshot asked for it; and a caller's document may not navigate its own page away.
The egress proxy (``_egress``) enforces the same policy below Chromium, for redirects and
DNS; interception is what a remote browser, which cannot reach that proxy, still gets.

Interception costs every request two extra hops (Chromium to Playwright's driver to Python
and back). So a screenshot's page on a browser behind the proxy is not intercepted unless
the capture needs it (ads to block, credentials to send): the guard only *watches* it,
noting from the page's own events the navigations the proxy refused.
"""

from __future__ import annotations

import collections
import contextlib
import logging

import attrs
from playwright.async_api import BrowserContext, Page, Request, Response, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError

from renderkit.browser._adblock import Blocklist
from renderkit.browser._credentials import OriginCredentials
from renderkit.browser._egress import BLOCKED_HEADER
from renderkit.core.errors import BlockedUrlError
from renderkit.core.netpolicy import UrlPolicy

__all__ = ["NAVIGATES_AWAY", "PageGuard"]

logger = logging.getLogger("renderkit.browser")

#: Failed navigations of a watched page kept for judging (the newest): a page looping
#: through navigations must not buy itself a policy check, a DNS lookup, for each.
_FAILED_KEPT = 16

#: Milliseconds a request carrying a screenshot's credentials may take (the render's own
#: deadline, shorter, normally ends it first).
_CREDENTIALED_TIMEOUT_MS = 60_000

NAVIGATES_AWAY = (
    "the document navigates away from itself (a meta refresh or a script setting "
    "location); send content that stays on its page"
)
"""Why a document that navigated its own page was refused (the ``html`` field's error)."""


@attrs.define(kw_only=True, eq=False)
class PageGuard:
    """Guards one page's requests, and records what it refused."""

    policy: UrlPolicy
    page: Page
    #: Requests refused by the network policy, in order.
    blocked: list[str] = attrs.Factory(list)
    #: Set per screenshot: block ad/tracker hosts as seen from this page host.
    adblock: Blocklist | None = None
    page_host: str | None = None
    ads_blocked: int = 0
    #: Set while the page shows a caller's document, which must stay on its page.
    document: bool = False
    #: Where the document tried to navigate its page to (the navigation was refused).
    navigated_to: str | None = None
    #: The last navigation of the page itself that the network policy refused: the page
    #: then shows Chromium's error page, not the page asked for.
    navigation_blocked: str | None = None
    #: Set per screenshot: headers and cookies for requests to the requested origin only.
    credentials: OriginCredentials | None = None
    #: The page's own navigations that failed while it was only watched (:meth:`watch`).
    failed_navigations: collections.deque[str] = attrs.Factory(
        lambda: collections.deque(maxlen=_FAILED_KEPT)
    )
    #: True once every request of the page goes through :meth:`route`.
    intercepting: bool = False

    async def install(self, context: BrowserContext) -> None:
        """Route every request and WebSocket of ``context`` through this guard (once)."""
        if self.intercepting:
            return
        self.intercepting = True
        # Plain functions, not bound methods: Playwright caches a wrapper on a bound
        # method's instance, which a slotted attrs class has no room for.
        await context.route("**/*", lambda route: self.route(route))
        await context.route_web_socket("**/*", lambda ws: self.websocket(ws))

    def watch(self) -> None:
        """Note the page's own navigations, for a page that is not intercepted.

        Its requests go through the egress proxy: a refused plain-HTTP one gets the
        proxy's 403 (marked with its header), a refused HTTPS tunnel fails. Failures are
        judged by :meth:`refused_navigation`, after the fact, as :meth:`route` would have.
        """

        def responded(response: Response) -> None:
            if BLOCKED_HEADER in response.headers and self._is_own_navigation(response.request):
                self.navigation_blocked = response.url

        def failed(request: Request) -> None:
            if self._is_own_navigation(request):
                self.failed_navigations.append(request.url)

        self.page.on("response", responded)
        self.page.on("requestfailed", failed)

    async def refused_navigation(self) -> str | None:
        """The last navigation of the page itself that the network policy refused, if any.

        A watched page's failed navigations count when the policy refuses them: Chromium
        fails some (an unsafe port, say) before the proxy sees them, as it would a refusal.
        """
        if self.navigation_blocked is not None:
            return self.navigation_blocked
        for url in reversed(self.failed_navigations):
            try:
                await self.policy.check(url)
            except BlockedUrlError:
                return url
        return None

    def forget_navigations(self) -> None:
        """Start a new capture: no navigation of the page refused yet."""
        self.navigation_blocked = None
        self.failed_navigations.clear()

    def _is_own_navigation(self, request: Request) -> bool:
        return request.is_navigation_request() and request.frame == self.page.main_frame

    async def route(self, route: Route) -> None:
        """Let one request through, or abort it."""
        request = route.request
        url = request.url
        if (
            self.document
            and request.is_navigation_request()
            and request.frame == self.page.main_frame
        ):
            # A document that navigates its own page (meta refresh, a script setting
            # location) would be rendered as some other page; refuse it, visibly. Noted
            # before any await, so the flag is set by the time the load event is seen.
            self.navigated_to = url
            await route.abort("blockedbyclient")
            return
        if self.adblock is not None and self.adblock.blocks(url, page_host=self.page_host):
            self.ads_blocked += 1
            await route.abort("blockedbyclient")
            return
        try:
            await self.policy.check(url)
        except BlockedUrlError:
            self.blocked.append(url)
            if self._is_own_navigation(request):
                self.navigation_blocked = url
            logger.info("blocked request to a disallowed address")
            await route.abort("blockedbyclient")
            return
        credentials = self.credentials
        if credentials is not None and credentials.applies_to(url):
            try:
                await credentials.send(route, timeout_ms=_CREDENTIALED_TIMEOUT_MS)
            except PlaywrightError:
                # Unreachable, or the page went away meanwhile: fail the request as the
                # browser would have (an abort of a finished route is moot).
                with contextlib.suppress(PlaywrightError):
                    await route.abort("failed")
            return
        await route.continue_()

    async def websocket(self, ws: WebSocketRoute) -> None:
        """Connect one WebSocket to its server, or close it."""
        # WebSockets bypass ordinary request interception; the same policy applies.
        try:
            await self.policy.check(ws.url.replace("ws", "http", 1))
        except BlockedUrlError:
            self.blocked.append(ws.url)
            await ws.close()
            return
        ws.connect_to_server()
