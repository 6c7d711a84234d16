"""What every writing transaction starts with — the recorded-time tick and its space — and the one
runner every command goes through.

    async def work(ctx: WriteContext) -> Claim: ...
    claim = await run_command(graph, "alice", actor, work)

Every writer ticks its space's clock first (`graph.store.clock`), so the writers of one space
run one after the other: whatever a transaction reads of its space after `begin_write` is the
latest committed state and nobody else writes in that space until it commits. That is what makes
"check, then write" safe without further locks — evidence that is checked unerased stays
unerased until this transaction commits. Writers of other spaces go on meanwhile.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import LiteralString, TypeVar

from neo4j import AsyncManagedTransaction
from neo4j.exceptions import ConstraintError

from graph.domain.actor import Actor
from graph.domain.errors import NotFound, RevisionConflict
from graph.domain.timeutil import to_native
from graph.domain.vocabulary import Privacy
from graph.store.clock import TICK, TICK_IN_SPACE
from graph.store.db import Graph, run

T = TypeVar("T")

TICK_NOW: LiteralString = TICK + "RETURN now"
"""The global tick, for what belongs to no space."""


@dataclass(frozen=True)
class WriteContext:
    """The recorded time of this transaction, its space, and who writes at which tier.

    A writer at tier `max_privacy` never reads, returns, erases, supersedes or learns of
    anything above it: every lookup a command makes filters by it, so what lies above the
    tier answers exactly as if it did not exist."""

    tx: AsyncManagedTransaction
    now: datetime
    space_id: str
    space: str
    actor: str
    """The actor's name, as the audit trail and the rows it writes record it."""
    max_privacy: Privacy
    legal: bool
    """The actor may place and release legal holds here (and learn what a hold is about)."""
    declared_predicates: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    """The space's declared `ONE` and `MANY` predicates, read with the tick (None: not read)."""


async def begin_write(
    tx: AsyncManagedTransaction,
    space: str,
    actor: Actor,
    needs: Callable[[Actor, str], None] = Actor.check_write,
) -> WriteContext:
    """Check the actor's grant (`needs`: write, unless another), then tick the space's clock
    (serialising its writers); FORBIDDEN without the grant, NOT_FOUND if the space is gone."""
    needs(actor, space)
    tier = actor.tier_in(space)
    [row] = await run(tx, TICK_IN_SPACE, space=space)
    if row["id"] is None or not row["live"]:
        raise NotFound(f"no space named {space!r}", field="space")
    return WriteContext(
        tx,
        to_native(row["now"]),
        row["id"],
        space,
        actor.name,
        tier,
        actor.has_legal(space),
        (tuple(row["onePredicates"]), tuple(row["manyPredicates"])),
    )


async def run_command(
    graph: Graph,
    space: str,
    actor: Actor,
    work: Callable[[WriteContext], Awaitable[T]],
    *,
    needs: Callable[[Actor, str], None] = Actor.check_write,
) -> T:
    """Run `work` in one writing transaction of `space` as `actor` (retried on transient
    failures, so `work` must be safe to run again): the grant checked, the clock ticked, the
    space found. A uniqueness constraint that fires means a writer outside Engram raced this
    one (the space's clock serialises Engram's own): REVISION_CONFLICT, nothing written."""

    async def transaction(tx: AsyncManagedTransaction) -> T:
        return await work(await begin_write(tx, space, actor, needs))

    try:
        return await graph.write_tx(transaction)
    except ConstraintError as failure:
        raise RevisionConflict(f"a concurrent write won: {failure.message}") from failure


def new_id() -> str:
    return str(uuid.uuid4())
