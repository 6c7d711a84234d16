"""A small space beside a big one keeps its whole meaning list: measured, not only tested.

With one vector index for all spaces (Engram until V0014), a query in a small space got back
the big space's nearest vectors, filtered after the fact, and its meaning list came back short
or empty. Each space now has its own vectors (`graph.meaning.space_indexes`). At each size,
`bench.scale` keeps a space of `claims` claims (`bench-scale-beside`) in the same database as
the big one, embedded and promoted as a server would, and measures, for sampled claim texts of
the small space:

- **meaning recall@12**: of the small space's 12 nearest vectors by exact scoring of every one of
  its vectors, the share among the 12 nearest that search's meaning list starts from: the
  space's own vector index (ready once the space holds 1000 vectors), asked for search's first
  reach of `max(12 * 6, 60)` vectors (`graph.reads.search.MEANING_REACH`). A space still scored
  exactly would score 100 % by construction, so the figure counts only when `indexed`;
- **self-recall@12**: how often `Memory.search` in the small space finds the sampled claim
  among its 12 hits for the claim's own text.

    >>> beside = await measure_small_space_recall(memory, console, samples=30, seed=7)
    >>> beside.indexed, beside.meaning_recall
    (True, 1.0)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import LiteralString

from rich.console import Console

from bench._support import OPERATOR, drain_embeddings
from bench.generate import generate
from bench.search_latency import CURRENT_TEXTS, DEFAULT_FIRST, RAW_VECTOR
from graph.memory import Memory

SPACE = "bench-scale-beside"
CLAIMS = 1000
FIRST_REACH = max(DEFAULT_FIRST * 6, 60)
"""How many nearest vectors search's meaning list first takes from a space's own index."""

# Every vector of the space scored: the truth the meaning list is held to.
EXACT_NEAREST: LiteralString = """
MATCH (m:Meaning {spaceId: $spaceId})
RETURN m.claimId AS id, vector.similarity.cosine(m.embedding, $vector) AS score
ORDER BY score DESC, id
LIMIT $first
"""

COUNT_VECTORS: LiteralString = "MATCH (m:Meaning {spaceId: $spaceId}) RETURN count(m) AS n"

INDEX_READY: LiteralString = """
MATCH (ix:MeaningIndex {spaceId: $spaceId, state: 'ready'})
RETURN count(ix) AS n
"""


@dataclass(frozen=True)
class Beside:
    """What the small space's searches found, beside the big space."""

    samples: int
    meaning_recall: float
    """Mean share of the exact 12 nearest that the space's meaning list returned."""
    self_recall: float
    vectors: int
    """Meaning vectors of the small space."""
    indexed: bool
    """Whether its own vector index was ready (else it was scored exactly)."""


async def ensure_space(
    memory: Memory, console: Console, *, claims: int = CLAIMS, show_progress: bool = True
) -> None:
    """The small space, generated once through the commands and embedded (promoted to its own
    vector index when it holds enough vectors, as `engram serve`'s worker would)."""
    if not any(s.name == SPACE for s in await memory.admin.all_spaces()):
        await generate(
            memory, SPACE, claims=claims, batch=500, console=console, show_progress=show_progress
        )
    await drain_embeddings(console, memory, show_progress=show_progress)
    await memory.admin.embed_pending()  # a promotion whose index came online late is finished here


async def measure_small_space_recall(
    memory: Memory,
    console: Console,
    *,
    samples: int,
    seed: int,
    claims: int = CLAIMS,
    show_progress: bool = True,
) -> Beside:
    """The small space's meaning recall and self-recall (see the module docstring)."""
    await ensure_space(memory, console, claims=claims, show_progress=show_progress)
    view = await memory.reads.view(OPERATOR, SPACE)
    graph = memory.graph
    rows = await graph.read(CURRENT_TEXTS, spaceId=view.space_id)
    picked = random.Random(seed).sample(rows, min(samples, len(rows)))
    recalls: list[float] = []
    found = 0
    for row in picked:
        [vector] = await memory.embedder.embed_async([row["text"]])
        params = {"spaceId": view.space_id, "vector": vector, "first": DEFAULT_FIRST}
        exact = {r["id"] for r in await graph.read(EXACT_NEAREST, **params)}
        listed = {r["id"] for r in await graph.read(RAW_VECTOR, **params, nearest=FIRST_REACH)}
        if exact:
            recalls.append(len(exact & listed) / len(exact))
        hits = await memory.reads.search(view, row["text"])
        found += row["id"] in {h.claim.id for h in hits}
    [count] = await graph.read(COUNT_VECTORS, spaceId=view.space_id)
    [ready] = await graph.read(INDEX_READY, spaceId=view.space_id)
    return Beside(
        samples=len(picked),
        meaning_recall=sum(recalls) / len(recalls) if recalls else 0.0,
        self_recall=found / len(picked) if picked else 0.0,
        vectors=int(count["n"]),
        indexed=bool(ready["n"]),
    )
