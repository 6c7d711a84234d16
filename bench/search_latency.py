"""How fast claims get their meaning vectors, and how long `search` takes on a generated graph
next to the raw index queries it is built on — measured side by side, in one run.

First the embedding outbox of the space is drained (claims/s of `embed_pending`: model and
writes). Then every sample (the text of a random current claim, or two of its words) runs through
every variant back to back, in an order that rotates per sample:

- `engram`: `graph.reads.search.search` — the query embedded, four ranked lists (full text, meaning,
  evidence, entity names), each filtered by the visibility predicate, fused, claims loaded;
- `embed`: embedding the query alone (part of `engram`);
- `raw`: one unfiltered full-text query plus one unfiltered vector query for the same text, no
  visibility, no fusion, no claims loaded (the vector for it is computed outside the timing).

It also reports self-recall: how often the sampled claim is among the hits for its own text.

    python -m bench.search_latency [--space bench] [--samples 300]

Run `python -m bench.generate --claims 100000 --space bench` first.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Annotated, LiteralString

import typer
from rich.console import Console
from rich.table import Table

from bench._support import (
    bench_console,
    drain_embeddings,
    open_graph,
    percentile,
    progress_bar,
)
from graph.meaning.embeddings import Embedder
from graph.reads.search import DEFAULT_FIRST, lucene_query, search
from graph.reads.visibility import View

# Claims visible now (search's default view): current, active, valid today.
CURRENT_TEXTS: LiteralString = """
MATCH (c:Claim)
WHERE c.spaceId = $spaceId AND c.supersededAt IS NULL AND c.erasedAt IS NULL
  AND c.status = 'active' AND c.type <> 'entity' AND c.archivedAt IS NULL
  AND coalesce(c.validFrom, datetime()) <= datetime()
  AND coalesce(c.validTo, datetime() + duration('P1D')) > datetime()
RETURN c.id AS id, c.text AS text
"""

RAW_TEXT: LiteralString = """
CALL db.index.fulltext.queryNodes('claim_text', $query, {limit: $first})
YIELD node, score
RETURN node.id AS id, score
"""

RAW_VECTOR: LiteralString = """
CALL db.index.vector.queryNodes('claim_meaning', $first, $vector)
YIELD node, score
RETURN node.claimId AS id, score
"""

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


async def timed(work: Callable[[], Awaitable[object]]) -> float:
    began = time.perf_counter()
    await work()
    return 1000 * (time.perf_counter() - began)


async def run_bench(console: Console, *, space: str, samples: int, seed: int) -> None:
    embedder = Embedder(threads=2)
    async with open_graph() as graph:
        await drain_embeddings(console, graph, embedder)
        view = await View.open(graph, space)
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
            await search(graph, view, text, embedder)
        with progress_bar(console) as bar:
            task = bar.add_task("search samples", total=len(queries))
            for index, (claim_id, text) in enumerate(queries):
                vector = (await embedder.embed_async([text]))[0]
                lucene = lucene_query(view.space_id, text)
                hits: list[str] = []

                async def engram(text: str = text, hits: list[str] = hits) -> None:
                    found_now = await search(graph, view, text, embedder)
                    hits.extend(h.claim.id for h in found_now)

                async def embed(text: str = text) -> None:
                    await embedder.embed_async([text])

                async def raw(lucene: str = lucene, vector: list[float] = vector) -> None:
                    await graph.read(RAW_TEXT, query=lucene, first=DEFAULT_FIRST)
                    await graph.read(RAW_VECTOR, vector=vector, first=DEFAULT_FIRST)

                variants = [("engram", engram), ("embed", embed), ("raw", raw)]
                shift = index % len(variants)
                for name, work in variants[shift:] + variants[:shift]:
                    times[name].append(await timed(work))
                if index % 2 == 0 and claim_id in hits:
                    found += 1
                bar.advance(task)
    report(console, times, found, len(queries) // 2)


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
