"""Where a space's meaning vectors are searched: exactly while the space is small, in a vector
index of its own once it is not. No space's nearest neighbours can crowd out another's.

Neo4j 5.26 cannot filter inside a vector index, so one index for all spaces (as Engram had until
V0014) answers a small space's query with the big space's vectors and filters them after the
fact: beside a space of a million claims, a space of a thousand got back a short meaning list or
none. Instead:

* a space with fewer than `INDEX_FROM` meaning vectors is searched exactly: every one of its
  `Meaning` nodes (found by the `meaning_space` index) is scored with
  `vector.similarity.cosine`, which scores as the vector index does. Measured here, idle: about
  10 ms plus 20 µs per vector;
* once it reaches `INDEX_FROM`, the embedding outbox **promotes** it (`promote_due`): a
  `(:MeaningIndex {spaceId, name, label, state})` node is written under the space's lock, so
  every vector stored after it carries the space's own label (`graph.meaning.embeddings.STORE`);
  the vectors stored before are labelled in batches; a vector index `name` over `label` is
  created. Once Neo4j reports it online (looked at on each pass of the outbox, never waited
  for), `state` becomes `'ready'` and search uses that index (`NEAREST` in `graph.reads.search`).
  Until then the space is searched exactly, so no answer ever misses a vector.

Every step can be repeated: a promotion that failed or was cut off goes on at the outbox's next
pass (every unfinished marker is due), a failed index is dropped and made again, and a failure
is logged without stopping vectors being stored. Two API processes may both try it.

A database from before V0014 had one index for all spaces, dropped by the migration: its big
spaces are searched exactly until a process's first pass of the outbox (`engram serve`'s worker,
or `engram embed`) has given them their own index.

The label and the index name are derived from the space id (`names_for`) and checked before they
are spliced into the one schema statement. A `MeaningIndex` node is derived data like the vectors:
backups leave it out; after a restore the outbox promotes again (the index may still be there:
`IF NOT EXISTS`). Purging a forgotten space drops its index (`drop_index`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
from typing import Any, LiteralString

from neo4j import AsyncManagedTransaction
from neo4j.exceptions import ClientError, Neo4jError

from graph.store.clock import LOCK_SPACES
from graph.store.db import Graph, run

log = logging.getLogger(__name__)

INDEX_FROM = 1000
"""Meaning vectors at which a space gets its own vector index (below it, exact search costs less
than an index lookup with its over-fetch)."""

AWAIT_SECONDS = 30
"""How long one pass waits for a new index to come online (a space is promoted at 1000 vectors,
which take well under a second; a big space from before V0014 is finished on a later pass)."""

_DIGEST = re.compile(r"[0-9a-f]{24}")

# Spaces that are due: every promotion begun and not finished, and among `$spaceIds` (every
# unerased space when it is null) those without one that hold `$indexFrom` vectors. A ready
# space is not counted again.
DUE: LiteralString = """
CALL () {
  MATCH (ix:MeaningIndex)
  WHERE ix.state <> 'ready'
  RETURN ix.spaceId AS spaceId
  UNION
  WITH $spaceIds AS spaceIds WHERE spaceIds IS NOT NULL
  UNWIND spaceIds AS spaceId
  RETURN spaceId
  UNION
  WITH $spaceIds AS spaceIds WHERE spaceIds IS NULL
  MATCH (s:Space)
  WHERE s.erasedAt IS NULL
  RETURN s.id AS spaceId
}
OPTIONAL MATCH (ix:MeaningIndex {spaceId: spaceId})
WITH spaceId, ix
WHERE ix IS NULL OR ix.state <> 'ready'
WITH spaceId, ix, COUNT { (:Meaning {spaceId: spaceId}) } AS vectors
WHERE ix IS NOT NULL OR vectors >= $indexFrom
RETURN spaceId
ORDER BY spaceId
"""

# Runs after LOCK_SPACES on the space: a vector stored after this commits sees the marker. A
# forgotten space is not promoted.
BEGIN_PROMOTION: LiteralString = """
MATCH (s:Space {id: $spaceId})
WHERE s.erasedAt IS NULL
MERGE (ix:MeaningIndex {spaceId: $spaceId})
ON CREATE SET ix.name = $name, ix.label = $label, ix.state = 'filling'
RETURN ix.name AS name, ix.label AS label
"""

# One pass over the space's vectors, committed in batches (an auto-commit statement).
LABEL_STORED: LiteralString = """
MATCH (m:Meaning {spaceId: $spaceId})
WHERE NOT $label IN labels(m)
CALL (m) { SET m:$($label) } IN TRANSACTIONS OF 5000 ROWS
"""

INDEX_STATE: LiteralString = """
SHOW INDEXES YIELD name, state
WHERE name = $name
RETURN state
"""

CREATE_INDEX_TEMPLATE = (
    "CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (m:{label}) ON (m.embedding) "
    "OPTIONS {{indexConfig: {{`vector.dimensions`: {dimensions}, "
    "`vector.similarity_function`: 'cosine'}}}}"
)
"""Filled in by `_create_index` only, with names it has checked (a schema statement takes no
parameters for them)."""

DROP_INDEX: LiteralString = "DROP INDEX $name IF EXISTS"

AWAIT_INDEX: LiteralString = "CALL db.awaitIndex($name, $seconds)"

MARK_READY: LiteralString = """
MATCH (ix:MeaningIndex {spaceId: $spaceId})
SET ix.state = 'ready'
RETURN count(ix) AS marked
"""

DROP_MARKER: LiteralString = """
MATCH (ix:MeaningIndex {spaceId: $spaceId})
DELETE ix
"""


def names_for(space_id: str) -> tuple[str, str]:
    """The vector index name and the node label of a space's own index."""
    digest = hashlib.sha256(space_id.encode()).hexdigest()[:24]
    return f"meaning_in_{digest}", f"MeaningIn_{digest}"


def _create_index(space_id: str, dimensions: int) -> LiteralString:
    """The schema statement for the space's own index; its names are the space's, checked."""
    name, label = names_for(space_id)
    if not _DIGEST.fullmatch(name.removeprefix("meaning_in_")):
        raise ValueError(f"not a meaning index name: {name!r}")
    statement = CREATE_INDEX_TEMPLATE.format(name=name, label=label, dimensions=int(dimensions))
    return statement  # its names are checked above, the dimension is an int


async def promote_due(
    graph: Graph,
    space_ids: list[str] | None,
    *,
    dimensions: int,
    index_from: int = INDEX_FROM,
) -> list[str]:
    """Move every due space among `space_ids` (every space when None) on towards its own
    vector index of `dimensions`; the spaces whose index is ready now. A space whose promotion
    fails is logged and tried again on a later call: it never stops vectors being stored."""
    rows = await graph.read(DUE, spaceIds=space_ids, indexFrom=index_from)
    ready = []
    for row in rows:
        try:
            if await _promote(graph, row["spaceId"], dimensions):
                ready.append(row["spaceId"])
        except Neo4jError:
            log.exception("promoting space %s to its own vector index failed", row["spaceId"])
    return ready


async def _promote(graph: Graph, space_id: str, dimensions: int) -> bool:
    """One step of promotion, resumable at any point: the marker, the labels, the index;
    ready once Neo4j reports the index online (a failed index is dropped and made again)."""
    name, label = names_for(space_id)

    async def begin(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
        await run(tx, LOCK_SPACES, spaceIds=[space_id])
        return await run(tx, BEGIN_PROMOTION, spaceId=space_id, name=name, label=label)

    if not await graph.write_tx(begin):
        return False  # forgotten meanwhile
    async with graph.driver.session(database=graph.database) as session:
        await (await session.run(LABEL_STORED, spaceId=space_id, label=label)).consume()
    states = [row["state"] for row in await graph.read(INDEX_STATE, name=name)]
    if states == ["FAILED"]:
        await graph.write(DROP_INDEX, name=name)
        states = []
    if not states:
        try:
            await graph.write(_create_index(space_id, dimensions))
        except ClientError as failure:  # another process created it meanwhile
            if failure.code != "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists":
                raise
        with contextlib.suppress(Neo4jError):  # not online within the wait: a later pass
            await graph.read(AWAIT_INDEX, name=name, seconds=AWAIT_SECONDS)
        states = [row["state"] for row in await graph.read(INDEX_STATE, name=name)]
    if states != ["ONLINE"]:
        return False  # still populating: a later call finishes it
    [row] = await graph.write(MARK_READY, spaceId=space_id)
    if not row["marked"]:  # the space was purged meanwhile: its index goes too
        await graph.write(DROP_INDEX, name=name)
        return False
    return True


async def drop_index(graph: Graph, space_id: str) -> None:
    """Forget the vector index of a space that is gone (its vectors went with it): the index
    first, then its marker, so a retry after a failure still finds what to drop."""
    name, _ = names_for(space_id)
    await graph.write(DROP_INDEX, name=name)
    await graph.write(DROP_MARKER, spaceId=space_id)
