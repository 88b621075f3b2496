"""How handlers reach the app's live backends: one Litestar dependency per backend.

A handler names what it uses as parameters (``keys: NamedDependency[KeyService]``,
``production: NamedDependency[Production]``...) and Litestar injects it from the
:class:`~renderkit_server.services.Services` the app's lifespan built
(:data:`DEPENDENCIES`, registered by the app). Nothing but these providers, the builder
and the lifespan sees the whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar.datastructures import State
from litestar.di import Provide

from renderkit_server.services import Services

__all__ = ["DEPENDENCIES", "services_of"]


def services_of(state: State) -> Services:
    """The live backends the app's lifespan built.

    Args:
        state: the app state (``request.app.state``).
    """
    services: Services = state.services
    return services


def _provide(part: Callable[[Services], object]) -> Provide:
    """A provider of one part of the services (the handler's parameter names its type)."""

    def provider(state: State) -> Any:
        return part(services_of(state))

    return Provide(provider, sync_to_thread=False)


#: Registered on the app: what a handler may take, by parameter name.
DEPENDENCIES: dict[str, Provide] = {
    "settings": _provide(lambda s: s.settings),
    "engines": _provide(lambda s: s.engines),
    "storage": _provide(lambda s: s.storage),
    "usage": _provide(lambda s: s.state.usage),
    "quotas": _provide(lambda s: s.quotas),
    "keys": _provide(lambda s: s.keys),
    "url_secrets": _provide(lambda s: s.url_secrets),
    "mailer": _provide(lambda s: s.mailer),
    "trusted_proxies": _provide(lambda s: s.trusted_proxies),
    "urls": _provide(lambda s: s.urls),
    "mcp_sessions": _provide(lambda s: s.mcp_sessions),
    "storage_probe": _provide(lambda s: s.storage_probe),
    "host": _provide(lambda s: s.host),
    "production": _provide(lambda s: s.production),
    "idempotency": _provide(lambda s: s.idempotency),
    "render_locks": _provide(lambda s: s.state.render_locks),
    "jobs": _provide(lambda s: s.jobs),
    "webhooks": _provide(lambda s: s.webhooks),
}
