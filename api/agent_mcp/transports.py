"""Engram as an MCP server (the official `mcp` SDK): streamable HTTP at `/mcp` beside /graphql,
and stdio for a local host (`engram mcp`).

    endpoint = http_endpoint(settings)          # Route("/mcp", endpoint); its lifespan:
    async with endpoint.running(): ...          #   the SDK's session manager
    await serve_stdio(memory, actor, api_key)   # the key checked again on every call

Over HTTP the server is stateless and answers JSON (no long-lived SSE stream), so every call is
one POST that passes the app's timeout, body cap and API-key check like any /graphql request,
and runs as that key's actor; over stdio every call runs as the operator or as the key the
command was started with, checked again on every call. Either way the tools are those of
`tools`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import metadata
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import ValidationError
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from api.agent_mcp.tool_context import Caller, refusal
from api.agent_mcp.tools import register_tools
from graph.domain.actor import Actor
from graph.domain.errors import Forbidden, ValidationFailed
from graph.domain.inputs import plain
from graph.memory import Memory
from graph.runtime import Settings

INSTRUCTIONS = """\
Engram is long-term memory with evidence. Every fact is a claim: what is claimed, when it was \
true (valid time), when Engram learned it (recorded time) and why (evidence quotes). Start with \
`context` for what to keep in mind, `recall` to search, `related`/`explain_relation` to walk \
the graph of entities. `remember` with the user's words as evidence_text; `correct` instead of \
re-remembering a changed fact; `forget` only when asked to erase. Errors start with a code: \
NOT_FOUND, VALIDATION, FORBIDDEN, REVISION_CONFLICT, GATE_REFUSED, LEGAL_HOLD, …"""


class EngramMCP(MCPServer[Any]):
    """The SDK's server, with arguments that fail a tool's schema refused as `VALIDATION: …`
    naming the field, like every other Engram error (the SDK's own text names the tool)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as failure:
            invalid = failure.__cause__
            if isinstance(failure, UnexpectedToolError) or not isinstance(invalid, ValidationError):
                raise
            first = invalid.errors()[0]
            field = "".join(
                f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"]
            ).lstrip(".")
            more = invalid.error_count() - 1
            message = f"{field or 'arguments'}: {plain(first)}" + (
                f" (and {more} more)" if more else ""
            )
            return refusal(ValidationFailed(message, field=field or None))


def build_server(caller: Caller) -> EngramMCP:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    server = EngramMCP("engram", instructions=INSTRUCTIONS, version=metadata.version("engramdb"))
    # The SDK's constructor configures the root logger (logging.basicConfig with its own
    # handler), which would print every line of Engram's log twice; Engram configures its own.
    root.handlers[:] = handlers
    root.setLevel(level)
    register_tools(server, caller)
    return server


async def _request_caller(ctx: Context) -> tuple[Memory, Actor]:
    """The memory of the app and the actor the API-key check put on this request."""
    request = ctx.request_context.request
    if not isinstance(request, Request):  # pragma: no cover - the HTTP transport always sets it
        raise RuntimeError("an MCP call over HTTP without its request")
    memory: Memory = request.app.state.memory
    principal: Actor = request.scope["state"]["principal"]
    return memory, principal


class HttpEndpoint:
    """The ASGI endpoint of `/mcp`: the SDK's streamable HTTP transport, stateless, JSON."""

    def __init__(self, settings: Settings) -> None:
        self.server = build_server(_request_caller)
        local = settings.host in ("127.0.0.1", "localhost", "::1")
        # Builds the SDK's session manager (the Starlette app it returns is not used: /mcp is a
        # route of Engram's app, behind its middleware).
        self.server.streamable_http_app(
            json_response=True,
            stateless_http=True,
            # As the SDK sets it for a loopback host: refuse DNS-rebound Host/Origin headers.
            transport_security=TransportSecuritySettings(
                enable_dns_rebinding_protection=local,
                allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
                allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
            ),
            max_request_body_size=settings.max_body_bytes,
        )
        self.sessions: StreamableHTTPSessionManager = self.server.session_manager

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The session manager running, in a task of its own: its anyio task group must be
        left by the task that entered it, and a lifespan may end in another task (as in
        pytest-asyncio's fixtures)."""
        started, stop = asyncio.Event(), asyncio.Event()

        async def run() -> None:
            async with self.sessions.run():
                started.set()
                await stop.wait()

        task = asyncio.create_task(run(), name="engram-mcp-sessions")
        waiting = asyncio.create_task(started.wait())
        await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        if task.done():
            task.result()  # it failed to start: raise why
        try:
            yield
        finally:
            stop.set()
            await task

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.sessions.handle_request(scope, receive, send)


def stdio_caller(memory: Memory, actor: Actor, api_key: str | None = None) -> Caller:
    """Every call as `actor`, or, with `api_key`, as that key is now: it is checked again on
    every call (one read), so a revocation or a withdrawn grant made by any process holds at
    once — the stdio session keeps no copy of a key's grants."""

    async def caller(ctx: Context) -> tuple[Memory, Actor]:
        if api_key is None:
            return memory, actor
        current = await memory.admin.authenticate(api_key)
        if current is None:
            raise Forbidden("this API key was revoked (or is no longer known)")
        return memory, current

    return caller


async def serve_stdio(memory: Memory, actor: Actor, api_key: str | None = None) -> None:
    """Serve MCP on stdin/stdout until the host closes it (see `stdio_caller`)."""
    await build_server(stdio_caller(memory, actor, api_key)).run_stdio_async()
