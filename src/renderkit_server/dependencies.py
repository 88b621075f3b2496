"""How handlers reach the app's live backends: the typed ``services`` dependency.

Route handlers declare a ``services: NamedDependency[Services]`` parameter and Litestar
injects it (:data:`DEPENDENCIES`, registered by the app); code that is not a handler
parameter (the MCP transport) calls :func:`services_of` with the app state.

``Services`` is imported for type checking only: ``services.py`` imports the mcp package
(for ``McpSessions``), whose transport imports this module. The app resolves the name for
Litestar with ``signature_types``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from litestar.datastructures import State
from litestar.di import Provide

if TYPE_CHECKING:
    from renderkit_server.services import Services

__all__ = ["DEPENDENCIES", "services_of"]


def services_of(state: State) -> Services:
    """The live backends the app's lifespan built.

    Args:
        state: the app state (``request.app.state``; Litestar injects it into dependencies).

    Returns:
        The app's :class:`~renderkit_server.services.Services`.
    """
    services: Services = state.services
    return services


#: Registered on the app: every handler may take ``services: NamedDependency[Services]``.
DEPENDENCIES = {"services": Provide(services_of, sync_to_thread=False)}
