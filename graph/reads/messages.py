"""Recall of what was said: the messages (observations) themselves, not the claims drawn from
them — "what did the user say about the trip last week".

With a `query`, two ranked lists fused by reciprocal rank (k = 60), as `search` fuses claims:

* messages whose words match (the full-text index `observation_text`, the query shaped as
  `search_words` shapes it),
* messages a claim near the query in meaning rests on (the claims' meaning vectors: a message
  is found by meaning through what was drawn from it).

Without one, the messages of the window newest first. Either way only messages the view shows
(its space and tier, recorded by `knownAt`, never forgotten), narrowed to those observed in
`[from, to)`, said by `role`, in `episode`.

    hits = await messages(graph, view, embedder, query="trip", start=last_week)
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any, LiteralString

from graph.domain.errors import ValidationFailed, check_between
from graph.domain.read_records import MessageHit
from graph.domain.vocabulary import Role
from graph.meaning.embeddings import Embedder
from graph.reads.search import MIN_SIMILARITY, NEAREST, RRF_K
from graph.reads.search_words import lucene_query
from graph.reads.visibility import View, holds, visible
from graph.store.db import Graph
from graph.store.rows import observation_record
from graph.store.text_indexes import AWAIT_TEXT_INDEXES

MAX_MESSAGES = 100

_WANTED: LiteralString = (
    visible("o")
    + """
  AND ($from IS NULL OR o.observedAt >= $from) AND ($to IS NULL OR o.observedAt < $to)
  AND ($role IS NULL OR o.role = $role) AND ($episode IS NULL OR o.episodeId = $episode)
"""
)

BY_WORDS: LiteralString = (
    AWAIT_TEXT_INDEXES
    + """
CALL db.index.fulltext.queryNodes('observation_text', $query, {limit: $candidates})
YIELD node AS o, score
WHERE """
    + _WANTED
    + """
RETURN o.id AS id, score
ORDER BY score DESC, id
LIMIT $first
"""
)

BY_MEANING: LiteralString = (
    NEAREST
    + """
WITH m, score WHERE score >= $minScore
MATCH (c:Claim)-[:MEANS]->(m)
WHERE """
    + holds("c")
    + """
MATCH (c)-[e:SUPPORTED_BY]->(o:Observation)
WHERE """
    + visible("e")
    + " AND "
    + _WANTED
    + """
RETURN o.id AS id, max(score) AS score
ORDER BY score DESC, id
LIMIT $first
"""
)

IN_WINDOW: LiteralString = (
    """
MATCH (o:Observation {spaceId: $spaceId})
WHERE """
    + _WANTED
    + """
RETURN o.id AS id, 0.0 AS score
ORDER BY o.observedAt DESC, o.id DESC
LIMIT $first
"""
)

MESSAGES_BY_ID: LiteralString = """
UNWIND $ids AS id
MATCH (o:Observation {id: id})
RETURN properties(o) AS observation
"""


async def messages(
    graph: Graph,
    view: View,
    embedder: Embedder,
    *,
    query: str | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
    role: Role | None = None,
    episode_id: str | None = None,
    first: int = 20,
) -> list[MessageHit]:
    """The best `first` messages for `query` (or the newest, without one) in the view."""
    check_between("first", first, MAX_MESSAGES)
    if query is not None and (not query.strip() or len(query) > 1000):
        raise ValidationFailed("a query is 1–1000 characters of text", field="query")
    for instant, name in ((start, "from"), (end, "to")):
        if instant is not None and instant.utcoffset() is None:
            raise ValidationFailed(f"{name} needs a UTC offset", field=name)
    if start is not None and end is not None and end <= start:
        raise ValidationFailed("`to` comes after `from`", field="to")
    params: dict[str, Any] = {
        **view.params(),
        "from": start,
        "to": end,
        "role": role.value if role is not None else None,
        "episode": episode_id,
        "first": first * 3,
    }
    ranked: list[tuple[str, float, tuple[str, ...]]]
    if query is None:
        rows = await graph.read(IN_WINDOW, **params | {"first": first})
        ranked = [(row["id"], 0.0, ("time",)) for row in rows]
    else:
        ranked = await _fused(graph, view, embedder, query, params, first)
    found = await graph.read(MESSAGES_BY_ID, ids=[i for i, _, _ in ranked])
    by_id = {row["observation"]["id"]: observation_record(row["observation"]) for row in found}
    return [MessageHit(by_id[i], score, sources) for i, score, sources in ranked if i in by_id]


async def _fused(
    graph: Graph,
    view: View,
    embedder: Embedder,
    query: str,
    params: dict[str, Any],
    first: int,
) -> list[tuple[str, float, tuple[str, ...]]]:
    async def by_meaning() -> list[dict[str, Any]]:
        [vector] = await embedder.embed_async([query])
        return await graph.read(
            BY_MEANING,
            **params,
            vector=vector,
            nearest=max(first * 6, 60),
            minScore=(1 + MIN_SIMILARITY) / 2,
        )

    words, meaning = await asyncio.gather(
        graph.read(
            BY_WORDS,
            **params,
            query=lucene_query(view.space_id, query),
            candidates=max(first * 20, 100),
        ),
        by_meaning(),
    )
    fused: dict[str, float] = {}
    sources: dict[str, list[str]] = {}
    for source, rows in (("words", words), ("meaning", meaning)):
        for rank, row in enumerate(rows, start=1):
            fused[row["id"]] = fused.get(row["id"], 0.0) + 1.0 / (RRF_K + rank)
            sources.setdefault(row["id"], []).append(source)
    best = sorted(fused, key=lambda i: (-fused[i], i))[:first]
    return [(i, fused[i], tuple(sources[i])) for i in best]
