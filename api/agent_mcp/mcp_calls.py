"""What every MCP tool shares: who calls, how an answer or a refusal goes back, and the
evidence a call gives as text (recorded as an observation first, then cited).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent
from pydantic import AwareDatetime, Field

from api.agent_mcp.mcp_results import dumps
from graph.domain.actor import Actor
from graph.domain.errors import EngramError, ValidationFailed
from graph.domain.model import Privacy, Role
from graph.memory import Memory

Caller = Callable[[Context], Awaitable[tuple[Memory, Actor]]]
"""Who calls and through which memory: the HTTP request's key, or the stdio command's actor."""


def refusal(error: EngramError) -> CallToolResult:
    """An Engram error as a tool error a model reads: `CODE: message (field …)`."""
    field = f" (field {error.field})" if error.field else ""
    text = f"{error.code}: {error.message}{field}"
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


async def answer(work: Awaitable[object]) -> CallToolResult:
    try:
        value = await work
    except EngramError as error:
        return refusal(error)
    return CallToolResult(content=[TextContent(type="text", text=dumps(value))])


async def inline_observation(
    memory: Memory,
    actor: Actor,
    space: str,
    text: str | None,
    episode_id: str | None,
    observed_at: datetime | None,
    role: Role,
    privacy: Privacy,
    idempotency_key: str | None = None,
) -> list[str]:
    """Record `text` (in `episode_id`, or a conversation episode opened for it) and cite it.

    With the call's idempotency key, a replay finds the episode and observation it recorded
    the first time instead of recording them again."""
    if text is None:
        if episode_id is not None or observed_at is not None:
            raise ValidationFailed(
                "episode_id and observed_at go with evidence_text", field="evidence_text"
            )
        return []
    replay = {} if idempotency_key is None else {"idempotency_key": f"{idempotency_key}/episode"}
    if episode_id is None:
        opening = {"title": "mcp", "privacy": privacy, **replay}
        episode_id = (await memory.open_episode(actor, space, opening)).id
    observation: dict[str, Any] = {
        "episode_id": episode_id,
        "content": text,
        "role": role,
        "privacy": privacy,
    }
    if observed_at is not None:
        observation["observed_at"] = observed_at
    if idempotency_key is not None:
        observation["idempotency_key"] = f"{idempotency_key}/evidence"
    recorded = await memory.record_observation(actor, space, observation)
    return [recorded.id]


EvidenceText = Annotated[
    str | None,
    Field(
        description="What was said or seen that supports this, verbatim (e.g. the user's "
        "message). It is recorded as an observation first and cited as evidence."
    ),
]
EpisodeId = Annotated[
    str | None,
    Field(description="Episode to record evidence_text in; default a new conversation episode."),
]
ObservedAt = Annotated[
    AwareDatetime | None,
    Field(description="When evidence_text was said (ISO-8601 with offset); default now."),
]
SpeakerRole = Annotated[
    Role, Field(description="Who said evidence_text: user, assistant, tool, system, document.")
]
