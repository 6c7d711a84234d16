"""What every writing transaction starts with: the recorded-time tick and its space.

All Engram writers tick the one clock first, so they run one after the other: whatever a
transaction reads after `begin_write` is the latest committed state and nobody else writes until
it commits. That is what makes "check, then write" safe without further locks — evidence that
is checked unerased stays unerased until this transaction commits.
"""

from __future__ import annotations

import uuid
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import LiteralString

from neo4j import AsyncManagedTransaction

from graph.clock import TICK
from graph.db import run
from graph.errors import NotFound
from graph.model import Privacy
from graph.timeutil import to_native

TICK_NOW: LiteralString = TICK + "RETURN now"

TICK_IN_SPACE: LiteralString = (
    TICK
    + """
OPTIONAL MATCH (s:Space {name: $space})
WHERE s.erasedAt IS NULL
RETURN now, s.id AS id
"""
)


writer_tier: ContextVar[Privacy] = ContextVar("engram_writer_tier", default=Privacy.SECRET)
"""The highest privacy tier the current writer may read and write (the API sets it per request
from the key; Python callers and the CLI are trusted with every tier)."""


@dataclass(frozen=True)
class WriteContext:
    """The recorded time of this transaction, its space and who writes, at which tier."""

    tx: AsyncManagedTransaction
    now: datetime
    space_id: str
    space: str
    actor: str
    max_privacy: Privacy = Privacy.SECRET


async def begin_write(tx: AsyncManagedTransaction, space: str, actor: str) -> WriteContext:
    """Tick the clock (serialising writers), then find the space; NOT_FOUND if it is gone."""
    [row] = await run(tx, TICK_IN_SPACE, space=space)
    if row["id"] is None:
        raise NotFound(f"no space named {space!r}", field="space")
    return WriteContext(tx, to_native(row["now"]), row["id"], space, actor, writer_tier.get())


def new_id() -> str:
    return str(uuid.uuid4())
