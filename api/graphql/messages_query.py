"""The `messages` query: recall of what was said — the messages (observations) themselves, by
words and meaning, in an observed-at window, by role or episode, as the key's tier sees them.

    { messages(space: "alice", query: "trip", from: "2026-11-24", to: "2026-12-01", role: USER)
      { score sources observation { content observedAt episodeId } } }

Without `query`, the window's messages newest first. Forgotten messages are never found.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from api.graphql.types import EngramInfo, Observation
from graph.domain.vocabulary import Role


@strawberry.type(description="A message `messages` recalled, with how it was found.")
class MessageHit:
    observation: Observation
    score: float = strawberry.field(
        description="Reciprocal-rank fusion score (higher is better); 0 without a query."
    )
    sources: list[str] = strawberry.field(
        description="The lists that found it: words, meaning (through a claim drawn from it), "
        "or time (a window without a query)."
    )


async def recall_messages(
    info: EngramInfo,
    space: str,
    query: str | None = None,
    from_: Annotated[datetime | None, strawberry.argument(name="from")] = None,
    to: datetime | None = None,
    role: Role | None = None,
    episode: strawberry.ID | None = None,
    as_of: datetime | None = None,
    known_at: datetime | None = None,
    first: int = 20,
) -> list[MessageHit] | None:
    view = await info.context.view(space, as_of, known_at)
    hits = await info.context.memory.reads.messages(
        view,
        query=query,
        start=from_,
        end=to,
        role=role,
        episode_id=str(episode) if episode is not None else None,
        first=first,
    )
    return [
        MessageHit(
            observation=Observation.of(h.observation), score=h.score, sources=list(h.sources)
        )
        for h in hits
    ]


messages_field = strawberry.field(
    resolver=recall_messages,
    description="What was said: messages matching `query` by words or by the meaning of claims "
    "drawn from them, observed in [from, to), by role and episode; newest first without a "
    "query. 1–100 (`first`).",
)
