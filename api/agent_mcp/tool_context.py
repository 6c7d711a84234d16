"""What every MCP tool shares: who calls, how an answer or a refusal goes back, and the
evidence a call gives as text (recorded as an observation in the write's own transaction).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any, ParamSpec, TypeAlias

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent
from pydantic import Field

from api.agent_mcp.arguments import Instant, RoleArg
from api.agent_mcp.results import dumps
from graph.domain.actor import Actor
from graph.domain.errors import EngramError, ValidationFailed
from graph.domain.vocabulary import Role
from graph.memory import Memory

P = ParamSpec("P")
Work: TypeAlias = Callable[P, Awaitable[Any]]
"""A tool's body: its arguments as the agent gave them, its answer as plain data."""

Caller = Callable[[Context], Awaitable[tuple[Memory, Actor]]]
"""Who calls and through which memory: the HTTP request's key, or the stdio command's actor."""


def refusal(error: EngramError) -> CallToolResult:
    """An Engram error as a tool error a model reads: `CODE: message (field …)`."""
    field = f" (field {error.field})" if error.field else ""
    text = f"{error.code}: {error.message}{field}"
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def tool(server: MCPServer) -> Callable[[Work[P]], Work[P]]:
    """`server.tool` for a function answering plain data: the data goes back as compact JSON
    text, an Engram error as the tool error `refusal` writes. The SDK reads the arguments from
    the function's own signature (`functools.wraps`)."""

    def register(work: Work[P]) -> Work[P]:
        @functools.wraps(work)
        async def answered(*args: P.args, **kwargs: P.kwargs) -> CallToolResult:
            try:
                value = await work(*args, **kwargs)
            except EngramError as error:
                return refusal(error)
            return CallToolResult(content=[TextContent(type="text", text=dumps(value))])

        server.tool(structured_output=False)(answered)
        return work

    return register


def inline_evidence(
    text: str | None, episode_id: str | None, observed_at: datetime | None, role: Role
) -> dict[str, Any] | None:
    """Evidence text as the memory door takes it: recorded in the write's own transaction (in
    `episode_id`, or the caller's session episode of the day)."""
    if text is None:
        if episode_id is not None or observed_at is not None:
            raise ValidationFailed(
                "episode_id and observed_at go with evidence_text", field="evidence_text"
            )
        return None
    inline: dict[str, Any] = {"text": text, "role": role}
    if observed_at is not None:
        inline["observed_at"] = observed_at
    if episode_id is not None:
        inline["episode_id"] = episode_id
    return inline


EvidenceText = Annotated[
    str | None,
    Field(
        description="What was said or seen that supports this, verbatim (e.g. the user's "
        "message). It is recorded as an observation in the same transaction as the write and "
        "cited as evidence; a refused call records nothing."
    ),
]
EpisodeId = Annotated[
    str | None,
    Field(
        description="An open episode to record evidence_text in; default the caller's session "
        "episode of the day (one per key, space, tier and UTC day)."
    ),
]
ObservedAt = Annotated[
    Instant | None,
    Field(
        description="When evidence_text was said (ISO-8601 with offset, or a date); default now."
    ),
]
SpeakerRole = Annotated[
    RoleArg, Field(description="Who said evidence_text: USER, ASSISTANT, TOOL, SYSTEM, DOCUMENT.")
]
