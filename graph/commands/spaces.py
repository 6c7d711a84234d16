"""Memory spaces: the unit of tenancy. Every other node belongs to exactly one space.

space = await create_space(graph, "alice", "Alice's memory", actor=Actor.operator("cli"))
[s.name for s in await list_spaces(graph)]
['alice']

Spaces stay in named Cypher, not with neomodel like API keys: a space is the root of the temporal
graph, not an administrative record beside it. Creating one ticks the global recorded-time clock
(its `recordedAt` bounds `HISTORY_UNAVAILABLE`; the space's own clock starts there) and writes
its `AuditEvent` in the same transaction; forgetting one closes it (and drops its forget salt) in
the forget's transaction, with the erasure and the tombstone. neomodel cannot write in a
transaction it did not begin, so either would become two transactions. Its writers are this
module, the erase engine (salt, close) and the purge outbox (grants withdrawn);
`tests/test_admin_ownership.py` keeps it so.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, LiteralString

from neo4j import AsyncManagedTransaction
from neo4j.exceptions import ConstraintError

from graph.commands.apikeys import withdraw_forgotten_grants
from graph.domain.actor import SPACE_NAME, Actor
from graph.domain.errors import Conflict, NotFound, ValidationFailed
from graph.domain.timeutil import to_native
from graph.store.clock import TICK
from graph.store.db import Graph, run

LIST_SPACES: LiteralString = """
MATCH (s:Space)
WHERE s.erasedAt IS NULL AND ($names IS NULL OR s.name IN $names)
RETURN s.id AS id, s.name AS name, s.description AS description, s.recordedAt AS recordedAt
ORDER BY s.name
"""

GET_SPACE: LiteralString = """
MATCH (s:Space {name: $name})
WHERE s.erasedAt IS NULL
RETURN s.id AS id, s.name AS name, s.description AS description, s.recordedAt AS recordedAt
"""

# A forgotten space's old name is not free until the keys that granted it have lost the grant
# (see erasure/engine.CLOSE_SPACE): while it is pending this creates nothing and returns no row.
CREATE_SPACE: LiteralString = (
    """
OPTIONAL MATCH (closing:Space {grantsToWithdraw: $name})
WITH count(closing) AS closing
WHERE closing = 0
"""
    + TICK
    + """
CREATE (s:Space {id: $id, name: $name, description: $description, recordedAt: now,
                 clockNow: now})
CREATE (s)-[:HAS_AUDIT]->(:AuditEvent {
  id: $auditId, spaceId: $id, action: 'createSpace', actor: $actor, at: now,
  target: $id, outcome: 'ok'
})
RETURN s.id AS id, s.name AS name, s.description AS description, s.recordedAt AS recordedAt
"""
)


class _GrantsPending(Exception):
    """The name's old grants are still to be withdrawn (a forget's outbox not yet drained)."""


@dataclass(frozen=True)
class Space:
    id: str
    name: str
    description: str
    recorded_at: datetime


def _space(row: dict[str, Any]) -> Space:
    return Space(row["id"], row["name"], row["description"], to_native(row["recordedAt"]))


async def list_spaces(graph: Graph, names: list[str] | None = None) -> list[Space]:
    """All spaces, or those named in `names`, by name."""
    return [_space(row) for row in await graph.read(LIST_SPACES, names=names)]


async def get_space(graph: Graph, name: str) -> Space:
    rows = await graph.read(GET_SPACE, name=name)
    if not rows:
        raise NotFound(f"no space named {name!r}", field="space")
    return _space(rows[0])


async def create_space(graph: Graph, name: str, description: str, *, actor: Actor) -> Space:
    """Create a space; its name is unique, lowercase, 1–63 of `a-z 0-9 _ -`. The actor needs
    a write grant on the name (an operator may create any)."""
    actor.check_write(name)
    if not SPACE_NAME.match(name):
        raise ValidationFailed(
            f"space name {name!r} must be 1–63 characters of a-z, 0-9, '_' or '-', "
            "starting with a letter or digit",
            field="name",
        )
    if len(description) > 2000:
        raise ValidationFailed(
            "space description is longer than 2000 characters", field="description"
        )

    async def work(tx: AsyncManagedTransaction) -> dict[str, Any]:
        rows = await run(
            tx,
            CREATE_SPACE,
            id=str(uuid.uuid4()),
            auditId=str(uuid.uuid4()),
            name=name,
            description=description,
            actor=actor.name,
        )
        if not rows:
            raise _GrantsPending(name)
        return rows[0]

    try:
        try:
            return _space(await graph.write_tx(work))
        except _GrantsPending:
            await withdraw_forgotten_grants(graph)
            return _space(await graph.write_tx(work))
    except _GrantsPending as pending:
        raise Conflict(
            f"the grants of a forgotten space named {name!r} are still being withdrawn",
            field="name",
        ) from pending
    except ConstraintError as failure:
        raise Conflict(f"a space named {name!r} already exists", field="name") from failure
