"""How long `related` (2 hops) and `explainRelation` (≤ 3 hops) take on a generated graph, and
what the same traversals cost as minimal raw Cypher — measured side by side, in one run.

Every sample (a start entity, or a pair of entities connected within 3 hops in the view) runs
through every variant back to back, in an order that rotates per sample, samples of all asOf
points shuffled together, so the variants share the machine's conditions:

- `engram`: `Memory.related` / `Memory.explain_relation` on a view (every hop checks the
  visibility predicate; related also names the entities reached, explain loads the claim and
  evidence behind every step);
- `graphql`: the same through the GraphQL HTTP layer in-process (httpx over ASGI, dev mode),
  with entity names, claims and evidence selected — what a client actually waits for;
- `raw`: the one-query floor (`bench.raw_read_queries`): the same traversal as one hand-written
  statement with the same visibility predicate on every hop, and no names, claims or evidence.

    python -m bench.read_latency [--space bench] [--samples 200] [--as-of 2023-07-01 …]

Reads only; run `python -m bench.generate --claims 100000 --space bench` first. `measure_reads`
is what `bench.scale` runs at each size.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, LiteralString

import typer
from rich.console import Console
from rich.table import Table

from bench._support import (
    OPERATOR,
    bench_console,
    counted,
    open_memory,
    percentile,
    progress_bar,
)
from bench.graphql_reads import GQL_EXPLAIN, GQL_RELATED, GraphQLClient, graphql_client
from bench.raw_read_queries import RAW_EXPLAIN, RAW_RELATED
from graph.memory import Memory, View

RELATED_HOPS = 2
RELATED_FIRST = 50
EXPLAIN_HOPS = 3
EXPLAIN_FIRST = 5
PAIR_SEARCH_FIRST = 500
"""Entities `related` may reach (3 hops) when a pair's second entity is picked."""

# Which entities there are, to draw samples from (not timed).
ENTITIES: LiteralString = """
MATCH (e:Entity)
WHERE e.spaceId = $spaceId AND e.erasedAt IS NULL
RETURN e.id AS id
ORDER BY e.key
"""

WARM_RELATIONS: LiteralString = """
MATCH (a:Entity)-[r]->(:Entity)
WHERE a.spaceId = $spaceId AND r.claimId IS NOT NULL
RETURN count(r) AS relations, sum(size(keys(r))) AS properties
"""
"""Touches every relation and its properties once, so the page cache holds them."""


VARIANTS = ("engram", "graphql", "raw")
QUERIES = ("related", "explain")


@dataclass(frozen=True)
class Sample:
    query: str
    as_of: datetime
    ids: tuple[str, ...]
    """The start entity (related) or the two entities (explain)."""


@dataclass(frozen=True)
class Call:
    """What one call returned: how many rows (relations / paths) and Cypher queries it ran."""

    size: int
    queries: int


@dataclass
class Timings:
    """Milliseconds, result sizes and query counts by (query, asOf label, variant)."""

    ms: dict[tuple[str, str, str], list[float]] = field(default_factory=dict)
    sizes: dict[tuple[str, str, str], list[int]] = field(default_factory=dict)
    queries: dict[tuple[str, str, str], list[int]] = field(default_factory=dict)

    def add(self, key: tuple[str, str, str], ms: float, call: Call) -> None:
        for label in (key[1], "all"):
            k = (key[0], label, key[2])
            self.ms.setdefault(k, []).append(ms)
            self.sizes.setdefault(k, []).append(call.size)
            self.queries.setdefault(k, []).append(call.queries)


class Runner:
    """Runs one sample through one variant and says what came back."""

    def __init__(self, memory: Memory, views: dict[datetime, View], gql: GraphQLClient) -> None:
        self.memory = memory
        self.views = views
        self.gql = gql

    def call(self, sample: Sample, variant: str) -> Callable[[], Awaitable[Call]]:
        view = self.views[sample.as_of]
        a, b = sample.ids[0], sample.ids[-1]
        return {
            ("related", "engram"): lambda: self.engram_related(view, a),
            ("related", "graphql"): lambda: self.graphql_related(view, a),
            ("related", "raw"): lambda: self.raw_related(view, a),
            ("explain", "engram"): lambda: self.engram_explain(view, a, b),
            ("explain", "graphql"): lambda: self.graphql_explain(view, a, b),
            ("explain", "raw"): lambda: self.raw_explain(view, a, b),
        }[(sample.query, variant)]

    async def engram_related(self, view: View, entity_id: str) -> Call:
        found, queries = await counted(
            self.memory.reads.related(view, entity_id, hops=RELATED_HOPS, first=RELATED_FIRST)
        )
        return Call(len(found.relations), queries)

    async def engram_explain(self, view: View, from_id: str, to_id: str) -> Call:
        found, queries = await counted(
            self.memory.reads.explain_relation(
                view, from_id, to_id, max_hops=EXPLAIN_HOPS, first=EXPLAIN_FIRST
            )
        )
        return Call(len(found.paths), queries)

    async def graphql_related(self, view: View, entity_id: str) -> Call:
        data, queries = await self.gql.query(
            GQL_RELATED,
            {
                "space": view.space,
                "id": entity_id,
                "asOf": view.as_of.isoformat(),
                "hops": RELATED_HOPS,
                "first": RELATED_FIRST,
            },
        )
        return Call(len(data["related"]["relations"]), queries)

    async def graphql_explain(self, view: View, from_id: str, to_id: str) -> Call:
        data, queries = await self.gql.query(
            GQL_EXPLAIN,
            {
                "space": view.space,
                "from": from_id,
                "to": to_id,
                "asOf": view.as_of.isoformat(),
                "hops": EXPLAIN_HOPS,
                "first": EXPLAIN_FIRST,
            },
        )
        return Call(len(data["explainRelation"]["paths"]), queries)

    async def raw_related(self, view: View, entity_id: str) -> Call:
        [row] = await self.memory.graph.read(
            RAW_RELATED,
            **view.params(),
            id=entity_id,
            first=RELATED_FIRST,
            limit=4 * RELATED_FIRST,
        ) or [{"relations": []}]
        relations = {(r["source"], r["target"], r["type"], r["claimId"]) for r in row["relations"]}
        return Call(len(relations), 1)

    async def raw_explain(self, view: View, from_id: str, to_id: str) -> Call:
        rows = await self.memory.graph.read(
            RAW_EXPLAIN, **view.params(), fromId=from_id, toId=to_id, first=EXPLAIN_FIRST
        )
        return Call(len(rows), 1)


def as_of_label(at: datetime) -> str:
    return at.date().isoformat()


async def pick_samples(
    memory: Memory,
    views: dict[datetime, View],
    entities: list[str],
    samples: int,
    rng: random.Random,
) -> tuple[list[Sample], Counter[int]]:
    """`samples` start entities and `samples` connected pairs per asOf point (seeded). A pair's
    second entity is drawn from what `related` reaches in 3 hops in that view, so every pair is
    connected in the view Engram reads; returns the samples and the pairs' hop distances."""
    chosen: list[Sample] = []
    distances: Counter[int] = Counter()
    for at, view in views.items():
        chosen += [
            Sample("related", at, (e,)) for e in rng.sample(entities, min(samples, len(entities)))
        ]
        pairs = tries = 0
        while pairs < samples and tries < 50 * samples:
            tries += 1
            start = rng.choice(entities)
            near = await memory.reads.related(
                view, start, hops=EXPLAIN_HOPS, first=PAIR_SEARCH_FIRST
            )
            reached = sorted(e for e, d in near.distances.items() if d > 0)
            if not reached:
                continue  # an entity with no visible relation at this asOf
            target = rng.choice(reached)
            distances[near.distances[target]] += 1
            chosen.append(Sample("explain", at, (start, target)))
            pairs += 1
    return chosen, distances


async def measure_reads(
    memory: Memory,
    gql: GraphQLClient,
    console: Console,
    *,
    space: str,
    as_of: list[datetime],
    samples: int,
    warm_up: int,
    seed: int,
    rounds: int = 1,
    show_progress: bool = True,
) -> list[Timings]:
    """Every sample through every variant, interleaved (see the module docstring), `rounds`
    times over the same samples in a new order each time; one `Timings` per round."""
    rng = random.Random(seed)
    started = time.perf_counter()
    views = {at: await memory.reads.view(OPERATOR, space, as_of=at) for at in as_of}
    space_id = next(iter(views.values())).space_id
    entities = [row["id"] for row in await memory.graph.read(ENTITIES, spaceId=space_id)]
    console.print(
        f"space {space!r}: {len(entities):,} entities; picking {samples} starts and "
        f"{samples} connected pairs per asOf …"
    )
    samples_list, distances = await pick_samples(memory, views, entities, samples, rng)
    warm = await memory.graph.read(WARM_RELATIONS, spaceId=space_id)
    console.print(
        f"picked in {time.perf_counter() - started:.0f} s; pair distances "
        + ", ".join(f"{d} hop(s): {n}" for d, n in sorted(distances.items()))
        + f"; warmed {warm[0]['relations']:,} relations"
    )
    runner = Runner(memory, views, gql)
    warm_ups = rng.sample(samples_list, min(len(samples_list), warm_up * len(as_of) * 2))
    measured: list[Timings] = []
    with progress_bar(console, disable=not show_progress) as progress:
        task = progress.add_task("warm-up", total=len(warm_ups) + rounds * len(samples_list))
        for sample in warm_ups:
            for variant in VARIANTS:
                await runner.call(sample, variant)()
            progress.advance(task)
        for round_ in range(rounds):
            progress.update(task, description=f"measure {round_ + 1}/{rounds}")
            rng.shuffle(samples_list)
            timings = Timings()
            for index, sample in enumerate(samples_list):
                # Rotate which variant goes first, so none always meets a warmer cache.
                turn = (index + round_) % len(VARIANTS)
                for variant in VARIANTS[turn:] + VARIANTS[:turn]:
                    call = runner.call(sample, variant)
                    began = time.perf_counter()
                    result = await call()
                    ms = 1000 * (time.perf_counter() - began)
                    timings.add((sample.query, as_of_label(sample.as_of), variant), ms, result)
                progress.advance(task)
            measured.append(timings)
    return measured


async def run_bench(console: Console, *, as_of: list[datetime], samples: int, **how: Any) -> None:
    started = time.perf_counter()
    async with open_memory() as memory, graphql_client() as gql:
        [timings] = await measure_reads(memory, gql, console, as_of=as_of, samples=samples, **how)
    report(console, timings, [as_of_label(at) for at in as_of], samples)
    console.print(f"total {time.perf_counter() - started:.0f} s")


def report(console: Console, timings: Timings, labels: list[str], samples: int) -> None:
    table = Table(
        title=(
            f"related ({RELATED_HOPS} hops, first {RELATED_FIRST}) and explainRelation "
            f"(≤ {EXPLAIN_HOPS} hops, first {EXPLAIN_FIRST}): ms, {samples} samples per asOf, "
            "variants interleaved per sample"
        ),
        caption="x raw: percentile / raw percentile over the same samples · rows: relations "
        "(related) or paths (explain) returned · raw: the one-query floor (the same traversal "
        "and visibility predicate in one statement; no names, claims or evidence)",
    )
    headers = ("query", "asOf", "variant", "p50", "p95", "max", "p50 x raw", "p95 x raw")
    for header in (*headers, "queries/call", "rows"):
        table.add_column(header, justify="right")
    for query in QUERIES:
        for label in [*labels, "all"]:
            raw = timings.ms[(query, label, "raw")]
            raw_p50, raw_p95 = percentile(raw, 50), percentile(raw, 95)
            for variant in VARIANTS:
                key = (query, label, variant)
                ms = timings.ms[key]
                p50, p95 = percentile(ms, 50), percentile(ms, 95)
                queries = timings.queries[key]
                spread = f"{statistics.mean(queries):.1f} ({min(queries)}–{max(queries)})"
                table.add_row(
                    query if label == labels[0] and variant == VARIANTS[0] else "",
                    label if variant == VARIANTS[0] else "",
                    variant,
                    f"{p50:.1f}",
                    f"{p95:.1f}",
                    f"{max(ms):.1f}",
                    "" if variant == "raw" else f"{p50 / raw_p50:.2f}x",
                    "" if variant == "raw" else f"{p95 / raw_p95:.2f}x",
                    spread,
                    f"{statistics.mean(timings.sizes[key]):.1f}",
                    end_section=variant == VARIANTS[-1],
                )
    console.print(table)


def parse_as_of(value: str) -> datetime:
    at = datetime.fromisoformat(value)
    return at if at.tzinfo else at.replace(tzinfo=UTC)


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def main(
    space: Annotated[str, typer.Option(help="The generated space to read.")] = "bench",
    samples: Annotated[
        int, typer.Option(min=1, help="Start entities and entity pairs per asOf point.")
    ] = 200,
    as_of: Annotated[
        list[str] | None,
        typer.Option(help="asOf point (ISO date, UTC unless an offset is given; repeatable)."),
    ] = None,
    warm_up: Annotated[
        int, typer.Option(min=0, help="Unmeasured samples per query and asOf first.")
    ] = 20,
    seed: Annotated[int, typer.Option(help="Seed of the samples and their order.")] = 7,
) -> None:
    """Measure p50/p95 of related and explainRelation: Engram, GraphQL and raw Cypher."""
    points = [parse_as_of(v) for v in as_of or ["2020-07-01", "2023-07-01", "2026-07-01"]]
    asyncio.run(
        run_bench(
            bench_console(),
            space=space,
            as_of=points,
            samples=samples,
            warm_up=min(warm_up, samples),
            seed=seed,
        )
    )


if __name__ == "__main__":
    app()
