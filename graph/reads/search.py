"""Search: full-text and meaning over claims and their evidence, plus graph proximity, fused.

Four ranked lists, each already filtered by the visibility predicate (so an index that still
holds an erased or superseded node can never surface it; with `include_history`, by `begun()`,
which admits ended and superseded revisions but never erased ones, ones above the reader's tier
or ones recorded after `knownAt`):

* claims whose retrieval text matches (Lucene full-text index `claim_text`),
* claims whose meaning vector is near the query's (cosine similarity at least `MIN_SIMILARITY`;
  exactly in a small space, from the space's own vector index in a big one; claims still in the
  embedding outbox have no vector yet),
* claims citing observations whose content matches (`observation_text`),
* claims about entities whose name or alias matches, as subject or object (graph proximity),

fused by reciprocal rank (k = 60). The full-text lists ask for the query's words without stop
words, possessives also bare, escaped, never parsed as Lucene syntax (`search_words`). The
full-text indexes are updated just after each commit; a full-text list first waits until they
hold every committed write (`graph.store.text_indexes`), so a search finds what was remembered
before it.

No other space's vectors can crowd a space's meaning list: a space is searched exactly or in its
own index. From its own index the nearest `max(first * 6, 60)` vectors are taken and then
filtered (by visibility, tier, type, status); when fewer than `first` pass, it asks again for
five times as many, up to 3000 (`MEANING_REACH`).

    hits = await search(graph, view, "dark mode", embedder, first=12)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, LiteralString, TypedDict

from graph.domain.errors import ValidationFailed, check_between
from graph.domain.read_records import DEFAULT_SEARCH_FIRST, Hit
from graph.domain.vocabulary import MemoryType, RevisionState
from graph.meaning.embeddings import Embedder
from graph.reads.search_words import lucene_names_query, lucene_query
from graph.reads.shown_claims import SHOWN_CLAIM_PROJECTION
from graph.reads.visibility import View, begun, holds, visible
from graph.store.db import Graph
from graph.store.rows import CLAIM_PROJECTION, claim_record
from graph.store.text_indexes import AWAIT_TEXT_INDEXES

DEFAULT_FIRST = DEFAULT_SEARCH_FIRST
MAX_FIRST = 50
RRF_K = 60
MIN_SIMILARITY = 0.3
"""Cosine similarity below which a claim is not near the query (unrelated MiniLM pairs score
about 0 to 0.2). Neo4j reports cosine as (1 + cos) / 2."""


def _claim_filter(seen: Callable[[str], LiteralString]) -> LiteralString:
    return (
        seen("c")
        + """
  AND c.status IN ['active', 'disputed'] AND c.archivedAt IS NULL
  AND ($types IS NULL OR c.type IN $types)
"""
    )


def _words(index: LiteralString, query: LiteralString, node: LiteralString) -> LiteralString:
    """The start of a words list: the `$candidates` best hits of the full-text `index` for
    `query` (the index first holding every committed write), then each hit as `node` with its
    `score`, to be filtered by what follows (`WHERE …`, then `_WORDS_RANKED`)."""
    return (
        AWAIT_TEXT_INDEXES
        + "CALL db.index.fulltext.queryNodes('"
        + index
        + "', "
        + query
        + """, {limit: $candidates})
YIELD node, score
WITH collect([node, score]) AS hits
OPTIONAL CALL (hits) {
  UNWIND hits AS hit
  WITH hit[0] AS """
        + node
        + """, hit[1] AS score
  WHERE """
    )


# A words list ends like the meaning list: the best `first` claim ids (ties broken by id), each
# row saying whether the index gave all the hits asked for (`cut`: more may pass beyond them).
_WORDS_RANKED: LiteralString = """
  RETURN c.id AS id, max(score) AS score
  ORDER BY score DESC, id
  LIMIT $first
}
RETURN id, score, size(hits) = $candidates AS cut
ORDER BY score DESC, id
"""


# The space's meaning vectors nearest to `$vector`, as `m, score`: from the space's own vector index
# once it is ready, else all of them, scored exactly (`graph.meaning.space_indexes`). The exact
# branch seeks the space's vectors by a value that is null when the index is ready: a filter on
# `ix IS NULL` alone was planned after the seek, so every search of a big space read all its
# vectors' index entries (101,766 rows at 100k claims) before throwing them away.
NEAREST: LiteralString = """
OPTIONAL MATCH (ix:MeaningIndex {spaceId: $spaceId, state: 'ready'})
CALL (ix) {
  WITH ix WHERE ix IS NOT NULL
  CALL db.index.vector.queryNodes(ix.name, $nearest, $vector)
  YIELD node AS m, score
  RETURN m, score
  UNION
  MATCH (m:Meaning {spaceId: CASE WHEN ix IS NULL THEN $spaceId END})
  RETURN m, vector.similarity.cosine(m.embedding, $vector) AS score
}
"""

# The meaning list says how far it reached: `cut` when the space's own index gave all the
# `$nearest` vectors asked for and even the farthest was near enough (so more that pass the
# filter may lie beyond them); false when every vector of the space was scored. A list that came
# back short and cut is asked again, further (`search`). With no claim passing, it is one row
# with a null id.
_MEANING_NEAR: LiteralString = """
WITH ix IS NOT NULL AS indexed, collect([m, score]) AS near, count(*) AS reached,
     min(score) AS farthest
OPTIONAL CALL (near) {
  UNWIND near AS pair
  WITH pair[0] AS m, pair[1] AS score
  WHERE score >= $minScore
  MATCH (c:Claim)-[:MEANS]->(m)
  WHERE """
_MEANING_RANKED: LiteralString = """
  RETURN c.id AS id, max(score) AS score
  ORDER BY score DESC, id
  LIMIT $first
}
RETURN id, score, indexed AND reached = $nearest AND farthest >= $minScore AS cut
ORDER BY score DESC, id
"""
WORDS_REACH = (5, 60, 5, 1500)
"""How many full-text hits a words list takes before filtering: `max(first * 5, 60)`, five
times as many while fewer than `first` pass and the index had more, up to 1500. Filtering is
most of such a list's time (the visibility predicate and the told fact shown, per hit): at 100k
claims, 240 hits took the evidence list 29 ms p50, 60 hits 17 ms."""

NAMES_REACH = (20, 100, 1, 0)
"""The entity-name list's reach, `max(first * 20, 100)` hits, never widened: its hits are every
claim the name's words are in, few of them entity claims, so it would widen on most queries (at
100k claims search's p95 went 60 → 130 ms when it did)."""

MEANING_REACH = (6, 60, 5, 3000)
"""The meaning list's first reach into a space's own index, `max(first * 6, 60)` vectors, and
how it widens (five times as far each time, up to 3000) while fewer than `first` claims pass and
the list is cut. Measured at 100k claims (one space, alone, p50): the index's nearest 12 / 72 /
360 vectors in 20 / 24 / 74 ms."""


@dataclass(frozen=True)
class RankedLists:
    """The four ranked lists and the fetch of the winners, under one reading of visibility."""

    by_claim_text: LiteralString
    by_evidence_text: LiteralString
    by_entity_name: LiteralString
    by_meaning: LiteralString
    claims_by_id: LiteralString


def _ranked_lists(*, history: bool) -> RankedLists:
    """The lists of a current search — claims shown in the view (`holds`), through evidence
    and names visible in it — or of a search with history (every row `begun()`)."""
    seen: Callable[[str], LiteralString] = begun if history else visible
    shown_claim: Callable[[str], LiteralString] = begun if history else holds
    claim_filter = _claim_filter(shown_claim)
    return RankedLists(
        by_claim_text=_words("claim_text", "$query", "c") + claim_filter + _WORDS_RANKED,
        by_evidence_text=_words("observation_text", "$query", "o")
        + seen("o")
        + """
  MATCH (c:Claim)-[e:SUPPORTED_BY]->(o)
  WHERE """
        + seen("e")
        + " AND "
        + claim_filter
        + _WORDS_RANKED,
        # Claims about a named entity, as its subject or as its object.
        by_entity_name=_words("claim_text", "$names", "named")
        + "named.type = 'entity' AND "
        + shown_claim("named")
        + """
  CALL (named) {
    MATCH (c:Claim {subjectId: named.subjectId}) RETURN c
    UNION
    MATCH (c:Claim {objectId: named.subjectId}) RETURN c
  }
  WITH c, named, score
  WHERE c.id <> named.id AND """
        + claim_filter
        + _WORDS_RANKED,
        by_meaning=NEAREST + _MEANING_NEAR + claim_filter + _MEANING_RANKED,
        claims_by_id=(
            """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
WHERE """
            + shown_claim("c")
            + (
                "RETURN " + CLAIM_PROJECTION + " AS claim, " + holds("c") + " AS shown\n"
                if history
                else SHOWN_CLAIM_PROJECTION + " AS claim, true AS shown\n"
            )
        ),
    )


CURRENT_LISTS = _ranked_lists(history=False)
HISTORY_LISTS = _ranked_lists(history=True)
BY_CLAIM_TEXT = CURRENT_LISTS.by_claim_text
BY_EVIDENCE_TEXT = CURRENT_LISTS.by_evidence_text
BY_ENTITY_NAME = CURRENT_LISTS.by_entity_name
BY_MEANING = CURRENT_LISTS.by_meaning
CLAIMS_BY_ID = CURRENT_LISTS.claims_by_id


class SearchOptions(TypedDict, total=False):
    """What a search may be told besides its text (all optional, defaults below)."""

    types: list[MemoryType] | None
    first: int
    include_history: bool


async def search(
    graph: Graph,
    view: View,
    query: str,
    embedder: Embedder,
    *,
    types: list[MemoryType] | None = None,
    first: int = DEFAULT_FIRST,
    include_history: bool = False,
) -> list[Hit]:
    """The best `first` visible claims for `query`; with `include_history`, ended and
    superseded revisions rank beside them, each hit saying which it is."""
    if not query.strip():
        raise ValidationFailed("a search needs some text", field="query")
    if len(query) > 1000:
        raise ValidationFailed("a search query is at most 1000 characters", field="query")
    check_between("first", first, MAX_FIRST)
    params = {
        **view.params(),
        "query": lucene_query(view.space_id, query),
        "names": lucene_names_query(view.space_id, query),
        "types": [t.value for t in types] if types else None,
        "first": first * 3,
        "minScore": (1 + MIN_SIMILARITY) / 2,
    }

    async def by_words(
        query: LiteralString, reach: tuple[int, int, int, int] = WORDS_REACH
    ) -> list[dict[str, Any]]:
        per_first, least, widen, most = reach
        candidates = max(first * per_first, least)
        while True:
            rows = await graph.read(query, **params, candidates=candidates)
            ranked = [row for row in rows if row["id"] is not None]
            cut = bool(rows) and rows[0]["cut"]
            if len(ranked) >= first or not cut or candidates >= most:
                return ranked
            candidates = min(candidates * widen, most)

    async def by_meaning() -> list[dict[str, Any]]:
        [vector] = await embedder.embed_async([query])
        per_first, least, widen, most = MEANING_REACH
        nearest = max(first * per_first, least)
        while True:
            rows = await graph.read(lists.by_meaning, **params, vector=vector, nearest=nearest)
            ranked = [row for row in rows if row["id"] is not None]
            cut = bool(rows) and rows[0]["cut"]
            if len(ranked) >= first or not cut or nearest >= most:
                return ranked
            nearest = min(nearest * widen, most)

    # The lists are independent: they run at once (each in its own session), the query's
    # embedding alongside the full-text lists.
    lists = HISTORY_LISTS if include_history else CURRENT_LISTS
    ranked_lists = await asyncio.gather(
        by_words(lists.by_claim_text),
        by_meaning(),
        by_words(lists.by_evidence_text),
        by_words(lists.by_entity_name, NAMES_REACH) if params["names"] else _none(),
    )
    fused: dict[str, float] = {}
    sources: dict[str, list[str]] = {}
    for source, ranked in zip(("text", "meaning", "evidence", "entity"), ranked_lists, strict=True):
        for rank, row in enumerate(ranked, start=1):
            fused[row["id"]] = fused.get(row["id"], 0.0) + 1.0 / (RRF_K + rank)
            sources.setdefault(row["id"], []).append(source)
    best = sorted(fused, key=lambda claim_id: (-fused[claim_id], claim_id))[:first]
    rows = await graph.read(lists.claims_by_id, **view.params(), ids=best)
    claims = {
        row["claim"]["id"]: claim_record(row["claim"], known_at=view.known_at) for row in rows
    }
    shown = {row["claim"]["id"] for row in rows if row["shown"]}
    hits = [
        Hit(claims[i], fused[i], tuple(sources[i]), view.state_of(claims[i], i in shown))
        for i in best
        if i in claims
    ]
    return current_first(hits)


async def _none() -> list[dict[str, Any]]:
    return []


def current_first(hits: list[Hit]) -> list[Hit]:
    """`hits` with the `CURRENT` revision of each key in the best place any hit of its key has
    (the others of the key after it, in their order): history never outranks what holds."""
    places: dict[str, list[int]] = {}
    for place, hit in enumerate(hits):
        places.setdefault(hit.claim.key, []).append(place)
    ordered = list(hits)
    for key_places in places.values():
        of_key = [hits[p] for p in key_places]
        of_key.sort(key=lambda hit: hit.state is not RevisionState.CURRENT)
        for place, hit in zip(key_places, of_key, strict=True):
            ordered[place] = hit
    return ordered
