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
from datetime import datetime, timedelta
from typing import Any, LiteralString, TypeVar

from neo4j import AsyncManagedTransaction
from neo4j.exceptions import ConstraintError

from graph.domain.actor import Actor
from graph.domain.errors import NotFound, RevisionConflict
from graph.domain.timeutil import to_native, utc_now
from graph.domain.vocabulary import Privacy
from graph.store.clock import TICK, TICK_IN_SPACE, TICK_SPACE
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
    read_with_tick: tuple[ReadWithTick, dict[str, Any]] | None = None
    """A `ReadWithTick` and the row it found in the tick's own statement (None: none run, or
    run on a guess the tick proved wrong; the command then reads for itself)."""

    async def run(self, statement: LiteralString, /, **params: Any) -> list[dict[str, Any]]:
        """Run `statement` in this transaction. It may use the context's own parameters —
        `$now`, `$spaceId`, `$actor`, `$maxPrivacy` (the writer's tier) — beside `params`."""
        scope = {
            "now": self.now,
            "spaceId": self.space_id,
            "actor": self.actor,
            "maxPrivacy": int(self.max_privacy),
        }
        return await run(self.tx, statement, **(scope | params))


@dataclass(frozen=True)
class ReadWithTick:
    """A command's first read, run in its tick's own statement: one round trip instead of two.

    `parts` are `CALL (ticked) { … }` subqueries (`ticked`: the id of the space the tick found,
    taken in so that no part can run before the tick), each binding what `columns` lists;
    `params` gives their parameters for a context guessed from the space's last tick in this
    process (its id and declared rules), `now` this process's. The parts run once the tick
    holds the space, so they see every write committed before it; the tick proves the guess
    when it is the same space, no write was recorded after the guess's `now` (the clock the
    last write left, `before`, is not later: so the guess's view, in valid and recorded time,
    holds all of them), and its own time is within `SKEW` of this process's. Unproven (another
    writer came first, a clock ahead), the command reads for itself."""

    parts: LiteralString
    columns: LiteralString
    params: Callable[[WriteContext], dict[str, Any]]


SKEW = timedelta(seconds=1)
"""How far the tick's time may differ from this process's for a read with the tick to stand
for the view at the tick (valid time is read at this process's `now`)."""


@dataclass(frozen=True)
class Ticked:
    """What a space's last tick in this process found: its id and declared rules."""

    space_id: str
    declared_predicates: tuple[tuple[str, ...], tuple[str, ...]]


async def begin_write(
    tx: AsyncManagedTransaction,
    space: str,
    actor: Actor,
    needs: Callable[[Actor, str], None] = Actor.check_write,
    *,
    reading: ReadWithTick | None = None,
    last: Ticked | None = None,
) -> WriteContext:
    """Check the actor's grant (`needs`: write, unless another), then tick the space's clock
    (serialising its writers); FORBIDDEN without the grant, NOT_FOUND if the space is gone.
    With `reading` and what the space's `last` tick found, the read runs in the tick's statement
    (`ReadWithTick`)."""
    needs(actor, space)
    tier = actor.tier_in(space)
    legal = actor.has_legal(space)
    guess = None
    if reading is not None and last is not None:
        guess = WriteContext(
            tx, utc_now(), last.space_id, space, actor.name, tier, legal, last.declared_predicates
        )
        tick_and_read = TICK_SPACE + _TICKED + reading.parts + _READ_TICKED + reading.columns
        [row] = await run(tx, tick_and_read, space=space, **reading.params(guess))
    else:
        [row] = await run(tx, TICK_IN_SPACE, space=space)
    if row["id"] is None or not row["live"]:
        raise NotFound(f"no space named {space!r}", field="space")
    now = to_native(row["now"])
    proven = (
        guess is not None
        and row["id"] == guess.space_id
        and to_native(row["before"]) <= guess.now
        and abs(now - guess.now) <= SKEW
    )
    return WriteContext(
        tx,
        now,
        row["id"],
        space,
        actor.name,
        tier,
        legal,
        (tuple(row["onePredicates"]), tuple(row["manyPredicates"])),
        (reading, row) if proven and reading is not None else None,
    )


_TICKED: LiteralString = "WITH now, before, id AS ticked, live, onePredicates, manyPredicates\n"
_READ_TICKED: LiteralString = (
    "RETURN now, before, ticked AS id, live, onePredicates, manyPredicates, "
)


async def run_command(
    graph: Graph,
    space: str,
    actor: Actor,
    work: Callable[[WriteContext], Awaitable[T]],
    *,
    needs: Callable[[Actor, str], None] = Actor.check_write,
    reading: ReadWithTick | None = None,
) -> T:
    """Run `work` in one writing transaction of `space` as `actor` (retried on transient
    failures, so `work` must be safe to run again): the grant checked, the clock ticked, the
    space found (and `reading` run with the tick, once this process has ticked the space). A
    uniqueness constraint that fires means a writer outside Engram raced this one (the space's
    clock serialises Engram's own): REVISION_CONFLICT, nothing written."""

    async def transaction(tx: AsyncManagedTransaction) -> T:
        last = graph.ticked.get(space)
        ctx = await begin_write(tx, space, actor, needs, reading=reading, last=last)
        if ctx.declared_predicates is not None:
            graph.ticked[space] = Ticked(ctx.space_id, ctx.declared_predicates)
        return await work(ctx)

    try:
        return await graph.write_tx(transaction)
    except ConstraintError as failure:
        raise RevisionConflict(f"a concurrent write won: {failure.message}") from failure


def new_id() -> str:
    return str(uuid.uuid4())
