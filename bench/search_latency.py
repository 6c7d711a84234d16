"""How fast claims get their meaning vectors, and how long `search` takes on a generated graph
next to the raw index queries it is built on — measured side by side, in one run.

First the embedding outbox of the space is drained (claims/s of `embed_pending`: model and
writes). Then every sample (the text of a random current claim, or two of its words) runs through
every variant back to back, in an order that rotates per sample:

- `engram`: `Memory.search` — the query embedded, four ranked lists (full text, meaning,
  evidence, entity names), each filtered by the visibility predicate, fused, claims loaded;
- `embed`: embedding the query alone (part of `engram`);
- `raw`: one unfiltered full-text query plus one unfiltered vector query for the same text (the
  space's own vector index, or exact scoring in a small space), no visibility, no fusion, no
  claims loaded (the vector for it is computed outside the timing).

It also reports self-recall: how often the sampled claim is among the hits for its own text.

    python -m bench.search_latency [--space bench] [--samples 300]

Run `python -m bench.generate --claims 100000 --space bench` first. `measure_search` is what
`bench.scale` runs at each size.
"""

from __future__ import annotations

import asyncio
import random
import re
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, LiteralString

import typer
from rich.console import Console
from rich.table import Table

from bench._support import (
    OPERATOR,
    bench_console,
    drain_embeddings,
    open_memory,
    percentile,
    progress_bar,
)
from graph.memory import Memory

DEFAULT_FIRST = 12
"""Search's default page (the issue's top 12)."""

# Claims shown now (search's default view): current, active, valid today, and for a one-value
# key the told fact the key shows today (no told fact of it that ranks above, `toldRank`, holds
# today: ENGRAM.md §2) — the texts to search for are drawn from them (not timed). Written out
# here, as the floors are; it must say what `graph.reads.visibility.holds` says.
CURRENT_TEXTS: LiteralString = """
MATCH (c:Claim)
WHERE c.spaceId = $spaceId AND c.supersededAt IS NULL AND c.erasedAt IS NULL
  AND c.status = 'active' AND c.type <> 'entity' AND c.archivedAt IS NULL
  AND coalesce(c.validFrom, datetime()) <= datetime()
  AND coalesce(c.validTo, datetime() + duration('P1D')) > datetime()
  AND (NOT c.type IN ['pref', 'goal', 'task', 'case', 'pattern', 'fact'] OR NOT EXISTS {
    MATCH (over:Claim {spaceId: $spaceId, key: c.key})
    WHERE over.toldRank > c.toldRank AND over.supersededAt IS NULL AND over.erasedAt IS NULL
      AND coalesce(over.validFrom, datetime()) <= datetime()
      AND coalesce(over.validTo, datetime() + duration('P1D')) > datetime()
  })
RETURN c.id AS id, c.text AS text
"""

# The floor, on the memory's own connection: the two index queries alone, unfiltered.
RAW_TEXT: LiteralString = """
CALL db.index.fulltext.queryNodes('claim_text', $query, {limit: $first})
YIELD node, score
RETURN node.id AS id, score
"""

# The space's own vector index once it has one, else exact scoring of its vectors (as
# `graph.reads.search` chooses), unfiltered.
RAW_VECTOR: LiteralString = """
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
RETURN m.claimId AS id, score
ORDER BY score DESC, id
LIMIT $first
"""

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


async def timed(work: Callable[[], Awaitable[object]]) -> float:
    began = time.perf_counter()
    await work()
    return 1000 * (time.perf_counter() - began)


@dataclass
class SearchTimings:
    times: dict[str, list[float]]
    found: int
    """Claims found among the hits for their own full text."""
    texts: int


def raw_lucene(space_id: str, text: str) -> str:
    """The full-text query of one space for any of the text's words (lower case, so no word
    reads as an operator)."""
    words = " ".join(re.findall(r"[a-z0-9]+", text.lower())) or "nothing"
    return f'spaceId:"{space_id}" AND ({words})'


async def measure_search(
    memory: Memory,
    console: Console,
    *,
    space: str,
    samples: int,
    seed: int,
    show_progress: bool = True,
) -> SearchTimings:
    """Every sample through every variant, interleaved (see the module docstring)."""
    view = await memory.reads.view(OPERATOR, space)
    graph, embedder = memory.graph, memory.embedder
    rows = await graph.read(CURRENT_TEXTS, spaceId=view.space_id)
    rng = random.Random(seed)
    picked = rng.sample(rows, min(samples, len(rows)))
    queries: list[tuple[str, str]] = []
    for row in picked:
        words = [w for w in row["text"].split() if w.isalpha()]
        short = " ".join(rng.sample(words, min(2, len(words)))) or row["text"]
        queries += [(row["id"], row["text"]), (row["id"], short)]
    times: dict[str, list[float]] = {"engram": [], "embed": [], "raw": []}
    found = 0
    for _, text in queries[:20]:  # warm-up, unmeasured
        await memory.reads.search(view, text)
    with progress_bar(console, disable=not show_progress) as bar:
        task = bar.add_task("search samples", total=len(queries))
        for index, (claim_id, text) in enumerate(queries):
            vector = (await embedder.embed_async([text]))[0]
            lucene = raw_lucene(view.space_id, text)
            hits: list[str] = []

            async def engram(text: str = text, hits: list[str] = hits) -> None:
                found_now = await memory.reads.search(view, text)
                hits.extend(h.claim.id for h in found_now)

            async def embed(text: str = text) -> None:
                await embedder.embed_async([text])

            async def raw(lucene: str = lucene, vector: list[float] = vector) -> None:
                await graph.read(RAW_TEXT, query=lucene, first=DEFAULT_FIRST)
                await graph.read(
                    RAW_VECTOR,
                    vector=vector,
                    first=DEFAULT_FIRST,
                    nearest=DEFAULT_FIRST,
                    spaceId=view.space_id,
                )

            variants = [("engram", engram), ("embed", embed), ("raw", raw)]
            shift = index % len(variants)
            for name, work in variants[shift:] + variants[:shift]:
                times[name].append(await timed(work))
            if index % 2 == 0 and claim_id in hits:
                found += 1
            bar.advance(task)
    return SearchTimings(times, found, len(queries) // 2)


async def run_bench(console: Console, *, space: str, samples: int, seed: int) -> None:
    async with open_memory() as memory:
        await drain_embeddings(console, memory)
        measured = await measure_search(memory, console, space=space, samples=samples, seed=seed)
    report(console, measured.times, measured.found, measured.texts)


def report(console: Console, times: dict[str, list[float]], found: int, texts: int) -> None:
    table = Table(title=f"search, {len(times['engram'])} samples (ms)")
    for column in ("variant", "p50", "p95", "mean", "p50 / raw", "p95 / raw"):
        table.add_column(column, justify="right")
    raw50, raw95 = percentile(times["raw"], 50), percentile(times["raw"], 95)
    for name, values in times.items():
        p50, p95 = percentile(values, 50), percentile(values, 95)
        table.add_row(
            name,
            f"{p50:.1f}",
            f"{p95:.1f}",
            f"{statistics.fmean(values):.1f}",
            f"{p50 / raw50:.2f}x",
            f"{p95 / raw95:.2f}x",
        )
    console.print(table)
    console.print(f"self-recall@{DEFAULT_FIRST}: {found}/{texts} claims found by their own text")


@app.command()
def main(
    space: Annotated[str, typer.Option(help="The generated space to search.")] = "bench",
    samples: Annotated[int, typer.Option(min=1, help="Claims whose texts are searched.")] = 300,
    seed: Annotated[int, typer.Option(help="Seed of the samples.")] = 7,
) -> None:
    """Drain the embedding outbox, then measure p50/p95 of search against raw index queries."""
    asyncio.run(run_bench(bench_console(), space=space, samples=samples, seed=seed))


if __name__ == "__main__":
    app()
