"""A screenshot's headers and cookies, held to the one origin the caller named.

The caller's headers and cookies may be credentials, so they go only to requests whose
origin (scheme, host, port) is exactly the requested URL's: not to subresources, frames or
navigations elsewhere, and not past a redirect. Two browser mechanisms are avoided on
purpose. The cookie jar is per host, not per origin (a cookie for ``127.0.0.1:8001`` is
also sent to ``127.0.0.1:8002``), so cookies travel as a per-request ``Cookie`` header.
And a request continued with extra headers keeps them on every redirect it follows
(Playwright re-applies the override to the redirected request), so a matching request is
instead fetched here without following redirects and its response handed to the page: a
redirect is then a new request of the page's own, which carries nothing of the caller's.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import attrs
from playwright.async_api import Route

__all__ = ["OriginCredentials", "origin_of"]

Origin = tuple[str, str, int | None]

_DEFAULT_PORTS = {"http": 80, "https": 443}
# Framing headers belong to the browser's connection, not to the refetched request.
_NOT_FORWARDED = frozenset({"host", "connection", "content-length", "transfer-encoding"})


def origin_of(url: str) -> Origin:
    """``url``'s origin: scheme, lower-case host and port (the scheme's default if none)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return (scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme))


@attrs.frozen(kw_only=True)
class OriginCredentials:
    """Headers and cookies for requests to one origin only."""

    origin: Origin
    headers: tuple[tuple[str, str], ...] = ()
    cookies: tuple[tuple[str, str], ...] = ()

    @classmethod
    def for_url(
        cls,
        url: str,
        *,
        headers: tuple[tuple[str, str], ...],
        cookies: tuple[tuple[str, str], ...],
    ) -> OriginCredentials | None:
        """The credentials for ``url``'s origin; None when there are none to send."""
        if not headers and not cookies:
            return None
        return cls(origin=origin_of(url), headers=headers, cookies=cookies)

    def applies_to(self, url: str) -> bool:
        """True when ``url`` is on exactly this origin."""
        return origin_of(url) == self.origin

    async def send(self, route: Route, *, timeout_ms: float) -> None:
        """Fetch ``route``'s request with the credentials added, redirects not followed,
        and answer the page with the response (a redirect included, which the page then
        follows as a request of its own, without them)."""
        request = route.request
        headers = {
            name: value
            for name, value in (await request.all_headers()).items()
            if name not in _NOT_FORWARDED and not name.startswith(":")
        }
        headers.update((name.lower(), value) for name, value in self.headers)
        if self.cookies:
            given = "; ".join(f"{name}={value}" for name, value in self.cookies)
            headers["cookie"] = f"{headers['cookie']}; {given}" if "cookie" in headers else given
        response = await route.fetch(headers=headers, max_redirects=0, timeout=timeout_ms)
        await route.fulfill(response=response)
