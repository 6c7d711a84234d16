"""`engram mcp`: Engram's MCP tools over stdio, for a host on this machine (Claude Desktop, an
IDE, an agent framework) that starts the command itself.

    engram mcp                         # as the operator: every space, every tier
    ENGRAM_API_KEY=egk_… engram mcp    # as that key: its spaces, its tier, its write grant

Without a key it acts as the person at the machine, like every other `engram` command; with one
it is exactly that key's actor, as over HTTP. Stdout carries the protocol only; messages go to
stderr.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from graph.domain.actor import Actor
from graph.domain.errors import SetupError


def mcp_command(
    api_key: Annotated[
        str | None,
        typer.Option(
            "--api-key",
            envvar="ENGRAM_API_KEY",
            help="Act as this API key (default: as the operator, with every grant).",
        ),
    ] = None,
) -> None:
    """Serve MCP over stdio (tools: remember, recall, context, related, explain_relation,
    history, changes, correct, forget; resource engram://{space}/context)."""

    from api.agent_mcp.transports import serve_stdio
    from graph.memory import Memory

    async def main() -> None:
        async with await Memory.open() as memory:
            actor = Actor.operator("cli:engram mcp")
            if api_key is not None:
                found = await memory.admin.authenticate(api_key)
                if found is None:
                    raise SetupError("the API key is malformed, unknown or revoked")
                actor = found
            await serve_stdio(memory, actor, api_key)

    asyncio.run(main())


COMMANDS = {"mcp": mcp_command}
