"""Search: full-text and meaning over claims and their evidence, plus graph proximity, fused.

Four ranked lists, each already filtered by the visibility predicate (so an index that still
holds an erased or superseded node can never surface it):

* claims whose retrieval text matches (Lucene full-text index `claim_text`),
* claims whose meaning vector is near the query's (vector index `claim_meaning`, cosine
  similarity at least `MIN_SIMILARITY`; claims still in the embedding outbox are not in it yet),
* claims citing observations whose content matches (`observation_text`),
* claims about entities whose name or alias matches (graph proximity),

fused by reciprocal rank (k = 60). Query text is escaped, never parsed as Lucene syntax.

The vector index is one for all spaces and Neo4j 5.26 cannot filter inside it, so the nearest
`max(first * 20, 100)` vectors are taken and then filtered: in a database where other spaces
hold most of the near neighbours, the meaning list may come back short (full-text still answers).

    >>> hits = await search(graph, view, "dark mode", embedder, first=12)
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, LiteralString

from graph.domain.errors import ValidationFailed
from graph.domain.model import MemoryType
from graph.domain.read_records import DEFAULT_SEARCH_FIRST, Hit
from graph.meaning.embeddings import Embedder
from graph.reads.visibility import View, visible
from graph.store.db import Graph
from graph.store.rows import claim_record

DEFAULT_FIRST = DEFAULT_SEARCH_FIRST
MAX_FIRST = 50
RRF_K = 60
MIN_SIMILARITY = 0.3
"""Cosine similarity below which a claim is not near the query (unrelated MiniLM pairs score
about 0 to 0.2). Neo4j reports cosine as (1 + cos) / 2."""
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
_SPACE_ID = re.compile(r"^[0-9a-f-]{36}$")

_CLAIM_FILTER: LiteralString = (
    visible("c")
    + """
  AND c.status IN ['active', 'disputed'] AND c.archivedAt IS NULL
  AND ($types IS NULL OR c.type IN $types)
"""
)

# Every ranked list ends alike: the best `first` claim ids, ties broken by id.
_BEST_SCORE: LiteralString = """
RETURN c.id AS id, max(score) AS score
ORDER BY score DESC, id
LIMIT $first
"""

BY_CLAIM_TEXT: LiteralString = (
    """
CALL db.index.fulltext.queryNodes('claim_text', $query, {limit: $candidates})
YIELD node AS c, score
WHERE """
    + _CLAIM_FILTER
    + _BEST_SCORE
)

BY_EVIDENCE_TEXT: LiteralString = (
    """
CALL db.index.fulltext.queryNodes('observation_text', $query, {limit: $candidates})
YIELD node AS o, score
WHERE """
    + visible("o")
    + """
MATCH (c:Claim)-[e:SUPPORTED_BY]->(o)
WHERE """
    + visible("e")
    + " AND "
    + _CLAIM_FILTER
    + _BEST_SCORE
)

BY_ENTITY_NAME: LiteralString = (
    """
CALL db.index.fulltext.queryNodes('claim_text', $query, {limit: $candidates})
YIELD node AS named, score
WHERE named.type = 'entity' AND """
    + visible("named")
    + """
MATCH (c:Claim {subjectId: named.subjectId})
WHERE c.id <> named.id AND """
    + _CLAIM_FILTER
    + _BEST_SCORE
)

BY_MEANING: LiteralString = (
    """
CALL db.index.vector.queryNodes('claim_meaning', $candidates, $vector)
YIELD node AS m, score
WHERE m.spaceId = $spaceId AND score >= $minScore
MATCH (c:Claim)-[:MEANS]->(m)
WHERE """
    + _CLAIM_FILTER
    + _BEST_SCORE
)

CLAIMS_BY_ID: LiteralString = (
    """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
WHERE """
    + visible("c")
    + """
RETURN properties(c) AS claim
"""
)


def escape(query: str) -> str:
    """Plain words for Lucene: syntax characters escaped, and lowercased so that AND, OR and
    NOT are words too, never operators (the analyzer lowercases the index anyway)."""
    return _LUCENE_SPECIAL.sub(r"\\\1", query.lower())


def lucene_query(space_id: str, query: str) -> str:
    """Candidates of one space only: the space id is indexed with the text."""
    if not _SPACE_ID.match(space_id):
        raise ValueError(f"not a space id: {space_id!r}")
    return f'spaceId:"{space_id}" AND ({escape(query)})'


async def search(
    graph: Graph,
    view: View,
    query: str,
    embedder: Embedder,
    *,
    types: list[MemoryType] | None = None,
    first: int = DEFAULT_FIRST,
) -> list[Hit]:
    """The best `first` visible claims for `query`."""
    if not query.strip():
        raise ValidationFailed("a search needs some text", field="query")
    if len(query) > 1000:
        raise ValidationFailed("a search query is at most 1000 characters", field="query")
    if not 1 <= first <= MAX_FIRST:
        raise ValidationFailed(f"first must be between 1 and {MAX_FIRST}", field="first")
    params = {
        **view.params(),
        "query": lucene_query(view.space_id, query),
        "types": [t.value for t in types] if types else None,
        "first": first * 3,
        "candidates": max(first * 20, 100),
        "minScore": (1 + MIN_SIMILARITY) / 2,
    }

    async def by_meaning() -> list[dict[str, Any]]:
        [vector] = await embedder.embed_async([query])
        return await graph.read(BY_MEANING, **params, vector=vector)

    # The lists are independent: they run at once (each in its own session), the query's
    # embedding alongside the full-text lists.
    lists = await asyncio.gather(
        graph.read(BY_CLAIM_TEXT, **params),
        by_meaning(),
        graph.read(BY_EVIDENCE_TEXT, **params),
        graph.read(BY_ENTITY_NAME, **params),
    )
    fused: dict[str, float] = {}
    sources: dict[str, list[str]] = {}
    for source, ranked in zip(("text", "meaning", "evidence", "entity"), lists, strict=True):
        for rank, row in enumerate(ranked, start=1):
            fused[row["id"]] = fused.get(row["id"], 0.0) + 1.0 / (RRF_K + rank)
            sources.setdefault(row["id"], []).append(source)
    best = sorted(fused, key=lambda claim_id: (-fused[claim_id], claim_id))[:first]
    rows = await graph.read(CLAIMS_BY_ID, **view.params(), ids=best)
    claims = {row["claim"]["id"]: claim_record(row["claim"]) for row in rows}
    return [Hit(claims[i], fused[i], tuple(sources[i])) for i in best if i in claims]
