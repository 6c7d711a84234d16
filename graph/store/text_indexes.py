"""The full-text indexes (`claim_text`, `observation_text`) are eventually consistent: Neo4j
applies a commit's changes to them just after the commit, so Lucene's work does not lengthen
every write (migrations/V0013). Whoever needs them to hold every committed write waits first:
each search query begins with `AWAIT_TEXT_INDEXES`, and forget, retention and restore call
`text_indexes_caught_up` before they return, so after them not even a raw index lookup finds
what they erased. A wait with nothing pending returns at once."""

from __future__ import annotations

from typing import LiteralString

from graph.store.db import Graph

AWAIT_TEXT_INDEXES: LiteralString = (
    "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()\n"
)
"""A void procedure call: a query may begin with it."""

AWAIT_INDEXES_ONLINE: LiteralString = "CALL db.awaitIndexes(3600)"
"""Every index online (after a migration that rebuilt one), for up to an hour."""


async def text_indexes_caught_up(graph: Graph) -> None:
    """Return once the full-text indexes hold every write committed so far."""
    await graph.read(AWAIT_TEXT_INDEXES)
