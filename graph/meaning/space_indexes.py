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
  created and awaited; then `state` becomes `'ready'` and search uses that index (`NEAREST` in
  `graph.reads.search`). Until then it keeps searching exactly, so no answer is ever missing a
  vector.

The label and the index name are derived from the space id (`names_for`) and checked before they
are spliced into the one schema statement. A `MeaningIndex` node is derived data like the vectors:
backups leave it out; after a restore the outbox promotes again (the index may still be there:
`IF NOT EXISTS`). Promotion is idempotent, so two API processes may both try it.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, LiteralString

from neo4j import AsyncManagedTransaction
from neo4j.exceptions import ClientError

from graph.store.clock import LOCK_SPACES
from graph.store.db import Graph, run

INDEX_FROM = 1000
"""Meaning vectors at which a space gets its own vector index (below it, exact search costs less
than an index lookup with its over-fetch)."""

LABEL_BATCH = 5000
AWAIT_SECONDS = 600

_NAME = re.compile(r"[0-9a-f]{24}")

# Spaces among `$spaceIds` (all spaces with vectors when it is null) that are due: promotion
# begun but not finished, or not begun and `$indexFrom` vectors reached. A ready space is not
# counted.
DUE: LiteralString = """
CALL () {
  WITH $spaceIds AS spaceIds WHERE spaceIds IS NOT NULL
  UNWIND spaceIds AS spaceId
  RETURN DISTINCT spaceId
  UNION
  WITH $spaceIds AS spaceIds WHERE spaceIds IS NULL
  MATCH (m:Meaning)
  RETURN DISTINCT m.spaceId AS spaceId
}
OPTIONAL MATCH (ix:MeaningIndex {spaceId: spaceId})
WITH spaceId, ix
WHERE ix IS NULL OR ix.state <> 'ready'
WITH spaceId, ix, COUNT { (:Meaning {spaceId: spaceId}) } AS vectors
WHERE ix IS NOT NULL OR vectors >= $indexFrom
RETURN spaceId
ORDER BY spaceId
"""

# Runs after LOCK_SPACES on the space: a vector stored after this commits sees the marker.
BEGIN: LiteralString = """
MERGE (ix:MeaningIndex {spaceId: $spaceId})
ON CREATE SET ix.name = $name, ix.label = $label, ix.state = 'filling'
RETURN ix.name AS name, ix.label AS label, ix.state AS state
"""

LABEL_STORED: LiteralString = """
MATCH (m:Meaning {spaceId: $spaceId})
WHERE NOT $label IN labels(m)
WITH m LIMIT $batch
SET m:$($label)
RETURN count(m) AS labelled
"""

AWAIT: LiteralString = "CALL db.awaitIndex($name, $seconds)"

READY: LiteralString = """
MATCH (ix:MeaningIndex {spaceId: $spaceId})
SET ix.state = 'ready'
"""

DROP_MARKERS: LiteralString = """
UNWIND $spaceIds AS spaceId
MATCH (ix:MeaningIndex {spaceId: spaceId})
WITH ix, ix.name AS name
DELETE ix
RETURN name
"""


def names_for(space_id: str) -> tuple[str, str]:
    """The vector index name and the node label of a space's own index."""
    digest = hashlib.sha256(space_id.encode()).hexdigest()[:24]
    return f"meaning_in_{digest}", f"MeaningIn_{digest}"


def _create_index(name: str, label: str, dimensions: int) -> LiteralString:
    """The schema statement; both names are checked, as they are spliced in."""
    digest = name.removeprefix("meaning_in_")
    if not (_NAME.fullmatch(digest) and label == f"MeaningIn_{digest}"):
        raise ValueError(f"not a meaning index name: {name!r} on {label!r}")
    return (  # checked above: hex digits only
        f"CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (m:{label}) ON (m.embedding) "
        f"OPTIONS {{indexConfig: {{`vector.dimensions`: {int(dimensions)}, "
        "`vector.similarity_function`: 'cosine'}}"
    )


def _drop_index(name: str) -> LiteralString:
    if not (name.startswith("meaning_in_") and _NAME.fullmatch(name.removeprefix("meaning_in_"))):
        raise ValueError(f"not a meaning index name: {name!r}")
    return f"DROP INDEX {name} IF EXISTS"  # checked above


async def promote_due(
    graph: Graph,
    space_ids: list[str] | None,
    *,
    dimensions: int,
    index_from: int = INDEX_FROM,
) -> list[str]:
    """Give every due space among `space_ids` (all spaces when None) its own vector index of
    `dimensions`; the spaces promoted."""
    rows = await graph.read(DUE, spaceIds=space_ids, indexFrom=index_from)
    for row in rows:
        await _promote(graph, row["spaceId"], dimensions)
    return [row["spaceId"] for row in rows]


async def _promote(graph: Graph, space_id: str, dimensions: int) -> None:
    name, label = names_for(space_id)

    async def begin(tx: AsyncManagedTransaction) -> dict[str, Any]:
        await run(tx, LOCK_SPACES, spaceIds=[space_id])
        [row] = await run(tx, BEGIN, spaceId=space_id, name=name, label=label)
        return row

    marker = await graph.write_tx(begin)
    name, label = marker["name"], marker["label"]
    while True:
        [row] = await graph.write(LABEL_STORED, spaceId=space_id, label=label, batch=LABEL_BATCH)
        if row["labelled"] < LABEL_BATCH:
            break
    try:
        await graph.write(_create_index(name, label, dimensions))
    except ClientError as failure:  # another process created it between check and create
        if failure.code != "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists":
            raise
    await graph.write(AWAIT, name=name, seconds=AWAIT_SECONDS)
    await graph.write(READY, spaceId=space_id)


async def drop_indexes(graph: Graph, space_ids: list[str]) -> None:
    """Forget the vector indexes of spaces that are gone (their vectors went with them)."""
    for row in await graph.write(DROP_MARKERS, spaceIds=space_ids):
        await graph.write(_drop_index(row["name"]))
