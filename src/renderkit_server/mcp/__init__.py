"""The MCP endpoint: renderkit's production operations as tools for agents.

* :mod:`.transport`: the ``/api/mcp`` handlers (Streamable HTTP on Litestar), routing each
  message to its method;
* :mod:`.hosts`: DNS-rebinding protection, the Host and Origin headers answered;
* :mod:`.streaming`: JSON or Server-Sent Events answers, with progress and keep-alives;
* :mod:`.protocol`: JSON-RPC messages, the handshake revisions and their negotiation;
* :mod:`.modern`: the stateless 2026-07-28 revision's per-request envelope;
* :mod:`.sessions`: signed session ids carrying the negotiated revision;
* :mod:`.tools`: the tool definitions, generated from the operations, and their results.
"""

from __future__ import annotations

from renderkit_server.mcp.sessions import McpSessions
from renderkit_server.mcp.transport import mcp_delete, mcp_get, mcp_post

__all__ = ["McpSessions", "mcp_delete", "mcp_get", "mcp_post"]
