"""How long `related` (2 hops) and `explainRelation` (≤ 3 hops) take on a generated graph, and
what the same traversals cost as minimal raw Cypher — measured side by side, in one run.

Why side by side: latency on a shared machine drifts, so a number measured yesterday says little.
Every sample (a start entity, or a pair of entities connected within 3 hops in the view) runs
through every variant back to back, in an order that rotates per sample, and samples of all
asOf points are shuffled together, so the variants share the machine's conditions:

- `engram`: `graph.reads.traverse.related` / `explain_relation` on a `View` (every hop checks the
  visibility predicate; explain also loads the claim and evidence behind every step);
- `graphql`: the same through the GraphQL HTTP layer in-process (httpx over ASGI, dev mode),
  with entity names, claims and evidence selected — what a client actually waits for;
- `raw`: the minimal equivalent Cypher: relationships that carry a claim, no visibility
  predicate, no evidence, one query.

    python -m bench.read_latency [--space bench] [--samples 200] [--as-of 2023-07-01 …]

Reads only; run `python -m bench.generate --claims 100000 --space bench` first.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, LiteralString

import httpx
import typer
from rich.console import Console
from rich.table import Table

from api.app import create_app
from bench._support import (
    SCAN_OPERATORS,
    bench_console,
    open_graph,
    percentile,
    progress_bar,
    query_plan,
)
from graph.reads import traverse
from graph.reads.visibility import View, visible
from graph.store.db import Graph, query_count, resolve_target
from graph.store.settings import get_settings

RELATED_HOPS = 2
RELATED_FIRST = 50
EXPLAIN_HOPS = 3
EXPLAIN_FIRST = 5
PAIR_SEARCH_FIRST = 500
"""Entities `related` may reach (3 hops) when a pair's second entity is picked."""

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


def _two_hops(
    predicate_a: LiteralString, predicate_1: LiteralString, predicate_2: LiteralString
) -> LiteralString:
    return (
        """
MATCH (a:Entity {id: $id})
WHERE """
        + predicate_a
        + """
MATCH (a)-[r1]-(b:Entity)
WHERE r1.claimId IS NOT NULL"""
        + predicate_1
        + """
WITH b, collect({source: startNode(r1).id, target: endNode(r1).id, type: type(r1),
                 props: properties(r1)}) AS via
LIMIT $first
OPTIONAL MATCH (b)-[r2]-(c:Entity)
WHERE r2.claimId IS NOT NULL"""
        + predicate_2
        + """
RETURN b.id AS near, via,
       collect({source: startNode(r2).id, target: endNode(r2).id, type: type(r2),
                props: properties(r2)})[..$limit] AS next
"""
    )


# The same traversals without Engram, one query each: relations that carry a claim, no
# visibility predicate, no evidence, under Engram's bounds (`first` entities reached at hop 1).
RAW_RELATED: LiteralString = _two_hops("true", "", "")

RAW_EXPLAIN: LiteralString = """
MATCH (a:Entity {id: $fromId})
MATCH (b:Entity {id: $toId})
MATCH p = allShortestPaths((a)-[rels*1..3]-(b))
WHERE all(r IN rels WHERE r.claimId IS NOT NULL)
RETURN [x IN nodes(p) | x.id] AS nodes,
       [r IN rels | {type: type(r), props: properties(r)}] AS steps
LIMIT $first
"""

# One query each with Engram's visibility predicate on every hop and entity (Engram's own path
# query for explain), still without evidence and round trips: splits Engram/raw into the
# predicate's cost (visible/raw) and the rest (engram/visible).
VISIBLE_RELATED: LiteralString = _two_hops(
    visible("a"),
    " AND " + visible("r1") + " AND " + visible("b"),
    " AND " + visible("r2") + " AND " + visible("c"),
)
VISIBLE_EXPLAIN: LiteralString = traverse.EXPLAIN[3]

GQL_RELATED = """
query Related($space: String!, $id: ID!, $asOf: DateTime!, $hops: Int!, $first: Int!) {
  related(space: $space, entity: {id: $id}, hops: $hops, first: $first, asOf: $asOf) {
    truncated
    nodes { distance entity { id key name } }
    relations { type claimId claimKey validFrom validTo confidence }
  }
}
"""

GQL_EXPLAIN = """
query Explain($space: String!, $from: ID!, $to: ID!, $asOf: DateTime!, $hops: Int!,
              $first: Int!) {
  explainRelation(space: $space, from: {id: $from}, to: {id: $to}, maxHops: $hops,
                  first: $first, asOf: $asOf) {
    reason
    paths {
      length
      steps {
        direction
        from { key name }
        to { key name }
        relation { type validFrom validTo }
        claim { key text confidence }
        evidence { kind text observedAt }
      }
    }
  }
}
"""

VARIANTS = ("engram", "graphql", "visible", "raw")
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


class GraphQLClient:
    """Engram's GraphQL app in this process (dev mode: no API key), its lifespan running."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def query(self, query: str, variables: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """The `data` of the answer and the Cypher queries the server ran for it."""
        response = await self.client.post("/graphql", json={"query": query, "variables": variables})
        body: dict[str, Any] = response.json()
        if body.get("errors"):
            raise RuntimeError(f"GraphQL errors: {body['errors']}")
        return body["data"], int(body.get("extensions", {}).get("queries", 0))


@asynccontextmanager
async def graphql_client() -> AsyncIterator[GraphQLClient]:
    settings = get_settings().model_copy(update={"dev": True})
    app = create_app(settings, resolve_target(settings), migrate_on_start=False)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://engram.bench") as client:
            yield GraphQLClient(client)


class Runner:
    """Runs one sample through one variant and says what came back."""

    def __init__(self, graph: Graph, views: dict[datetime, View], gql: GraphQLClient) -> None:
        self.graph = graph
        self.views = views
        self.gql = gql

    def call(self, sample: Sample, variant: str) -> Callable[[], Awaitable[Call]]:
        view = self.views[sample.as_of]
        a, b = sample.ids[0], sample.ids[-1]
        return {
            ("related", "engram"): lambda: self.engram_related(view, a),
            ("related", "graphql"): lambda: self.graphql_related(view, a),
            ("related", "visible"): lambda: self.cypher_related(a, view),
            ("related", "raw"): lambda: self.cypher_related(a, None),
            ("explain", "engram"): lambda: self.engram_explain(view, a, b),
            ("explain", "graphql"): lambda: self.graphql_explain(view, a, b),
            ("explain", "visible"): lambda: self.cypher_explain(a, b, view),
            ("explain", "raw"): lambda: self.cypher_explain(a, b, None),
        }[(sample.query, variant)]

    async def engram_related(self, view: View, entity_id: str) -> Call:
        counter = [0]
        token = query_count.set(counter)
        try:
            found = await traverse.related(
                self.graph, view, entity_id, hops=RELATED_HOPS, first=RELATED_FIRST
            )
        finally:
            query_count.reset(token)
        return Call(len(found.relations), counter[0])

    async def engram_explain(self, view: View, from_id: str, to_id: str) -> Call:
        counter = [0]
        token = query_count.set(counter)
        try:
            found = await traverse.explain_relation(
                self.graph, view, from_id, to_id, max_hops=EXPLAIN_HOPS, first=EXPLAIN_FIRST
            )
        finally:
            query_count.reset(token)
        return Call(len(found.paths), counter[0])

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

    async def cypher_related(self, entity_id: str, view: View | None) -> Call:
        """One query; with the visibility predicate when a view is given."""
        if view is None:
            rows = await self.graph.read(
                RAW_RELATED, id=entity_id, first=RELATED_FIRST, limit=4 * RELATED_FIRST
            )
        else:
            rows = await self.graph.read(
                VISIBLE_RELATED,
                **view.params(),
                id=entity_id,
                first=RELATED_FIRST,
                limit=4 * RELATED_FIRST,
            )
        relations = {
            (r["source"], r["target"], r["type"])
            for row in rows
            for r in [*row["via"], *row["next"]]
            if r["type"] is not None
        }
        return Call(len(relations), 1)

    async def cypher_explain(self, from_id: str, to_id: str, view: View | None) -> Call:
        if view is None:
            rows = await self.graph.read(
                RAW_EXPLAIN, fromId=from_id, toId=to_id, first=EXPLAIN_FIRST
            )
        else:
            rows = await self.graph.read(
                VISIBLE_EXPLAIN, **view.params(), fromId=from_id, toId=to_id, first=EXPLAIN_FIRST
            )
        return Call(len(rows), 1)


def as_of_label(at: datetime) -> str:
    return at.date().isoformat()


async def pick_samples(
    graph: Graph,
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
        chosen += [Sample("related", at, (e,)) for e in rng.sample(entities, samples)]
        pairs = 0
        while pairs < samples:
            start = rng.choice(entities)
            near = await traverse.related(
                graph, view, start, hops=EXPLAIN_HOPS, first=PAIR_SEARCH_FIRST
            )
            reached = sorted(e for e, d in near.distances.items() if d > 0)
            if not reached:
                continue  # an entity with no visible relation at this asOf
            target = rng.choice(reached)
            distances[near.distances[target]] += 1
            chosen.append(Sample("explain", at, (start, target)))
            pairs += 1
    return chosen, distances


async def run_bench(
    console: Console,
    *,
    space: str,
    as_of: list[datetime],
    samples: int,
    warm_up: int,
    seed: int,
    plans: bool,
) -> None:
    rng = random.Random(seed)
    timings = Timings()
    started = time.perf_counter()
    async with open_graph() as graph, graphql_client() as gql:
        views = {at: await View.open(graph, space, as_of=at, known_at=None) for at in as_of}
        space_id = next(iter(views.values())).space_id
        entities = [row["id"] for row in await graph.read(ENTITIES, spaceId=space_id)]
        claims = await graph.read(
            "MATCH (c:Claim) WHERE c.spaceId = $spaceId RETURN count(c) AS n", spaceId=space_id
        )
        console.print(
            f"space {space!r}: {claims[0]['n']:,} claim revisions, {len(entities):,} entities; "
            f"picking {samples} starts and {samples} connected pairs per asOf …"
        )
        samples_list, distances = await pick_samples(graph, views, entities, samples, rng)
        warm = await graph.read(WARM_RELATIONS, spaceId=space_id)
        console.print(
            f"picked in {time.perf_counter() - started:.0f} s; pair distances "
            + ", ".join(f"{d} hop(s): {n}" for d, n in sorted(distances.items()))
            + f"; warmed {warm[0]['relations']:,} relations"
        )
        runner = Runner(graph, views, gql)
        warm_ups = rng.sample(samples_list, min(len(samples_list), warm_up * len(as_of) * 2))
        rng.shuffle(samples_list)
        with progress_bar(console) as progress:
            task = progress.add_task("warm-up", total=len(warm_ups) + len(samples_list))
            for sample in warm_ups:
                for variant in VARIANTS:
                    await runner.call(sample, variant)()
                progress.advance(task)
            progress.update(task, description="measure")
            for index, sample in enumerate(samples_list):
                # Rotate which variant goes first, so none always meets a warmer cache.
                turn = index % len(VARIANTS)
                order = VARIANTS[turn:] + VARIANTS[:turn]
                for variant in order:
                    call = runner.call(sample, variant)
                    began = time.perf_counter()
                    result = await call()
                    ms = 1000 * (time.perf_counter() - began)
                    timings.add((sample.query, as_of_label(sample.as_of), variant), ms, result)
                progress.advance(task)
        if plans:
            await print_plans(console, graph, views[as_of[-1]], samples_list)
    report(console, timings, [as_of_label(at) for at in as_of], samples)
    console.print(f"total {time.perf_counter() - started:.0f} s")


async def print_plans(console: Console, graph: Graph, view: View, samples: list[Sample]) -> None:
    """The operators of each traversal query's plan (EXPLAIN), flagging full scans."""
    pair = next(s for s in samples if s.query == "explain")
    start = next(s for s in samples if s.query == "related")
    cases: list[tuple[str, LiteralString, dict[str, Any]]] = [
        (
            "related hop (Engram)",
            traverse.HOP_BOTH,
            {**view.params(), "frontier": list(start.ids), "types": [], "limit": 201},
        ),
        (
            "explain (Engram)",
            traverse.EXPLAIN[EXPLAIN_HOPS],
            {**view.params(), "fromId": pair.ids[0], "toId": pair.ids[1], "first": EXPLAIN_FIRST},
        ),
        (
            "related (raw)",
            RAW_RELATED,
            {"id": start.ids[0], "first": RELATED_FIRST, "limit": 4 * RELATED_FIRST},
        ),
        (
            "related (visible)",
            VISIBLE_RELATED,
            {**view.params(), "id": start.ids[0], "first": RELATED_FIRST, "limit": 200},
        ),
        (
            "explain (raw)",
            RAW_EXPLAIN,
            {"fromId": pair.ids[0], "toId": pair.ids[1], "first": EXPLAIN_FIRST},
        ),
    ]
    table = Table(title="plans (PROFILE of one sample; full scans in red)")
    for header in ("query", "operators (root first)", "db hits"):
        table.add_column(header)
    for name, query, params in cases:
        steps = await query_plan(graph, query, params, profile=True)
        names = [
            f"[red]{s.operator}[/red]" if s.operator in SCAN_OPERATORS else s.operator
            for s in steps
        ]
        hits = sum(s.db_hits or 0 for s in steps)
        table.add_row(name, " ← ".join(names), f"{hits:,}")
    console.print(table)


def report(console: Console, timings: Timings, labels: list[str], samples: int) -> None:
    table = Table(
        title=(
            f"related ({RELATED_HOPS} hops, first {RELATED_FIRST}) and explainRelation "
            f"(≤ {EXPLAIN_HOPS} hops, first {EXPLAIN_FIRST}): ms, {samples} samples per asOf, "
            "variants interleaved per sample"
        ),
        caption=(
            "x raw: percentile / raw percentile over the same samples · visible: one query with "
            "the visibility predicate (explain: Engram's own path query), no evidence · "
            "rows: relations (related) or paths (explain) returned · "
            "raw: one Cypher query, relations with a claimId, no visibility, no evidence"
        ),
    )
    for header in ("query", "asOf", "variant", "p50", "p95", "max", "p50 x raw", "p95 x raw"):
        table.add_column(header, justify="right")
    table.add_column("queries/call", justify="right")
    table.add_column("rows", justify="right")
    for query in QUERIES:
        for label in [*labels, "all"]:
            raw = timings.ms[(query, label, "raw")]
            raw_p50, raw_p95 = percentile(raw, 50), percentile(raw, 95)
            for variant in VARIANTS:
                key = (query, label, variant)
                ms = timings.ms[key]
                p50, p95 = percentile(ms, 50), percentile(ms, 95)
                queries = timings.queries[key]
                spread = (
                    f"{statistics.mean(queries):.1f}"
                    if min(queries) == max(queries)
                    else f"{statistics.mean(queries):.1f} ({min(queries)}–{max(queries)})"
                )
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
    plans: Annotated[bool, typer.Option(help="PROFILE one sample of each query.")] = True,
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
            plans=plans,
        )
    )


if __name__ == "__main__":
    app()
