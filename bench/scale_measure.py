"""What `bench.scale` measures at one size: every bench's own measuring code, each path beside
its floor in the same run, as operations (latencies, ms) and figures (rates, ratios).

In order, with the 1-minute load average at the start and end of each: `reads` (related 2 hops
and explainRelation ≤ 3 hops: domain, GraphQL in-process, raw one-query floor), `search` (top 12
beside the raw index queries, and the small space kept beside), `writes` (`remember` one claim
and batched, beside the same shape written raw, bare claims, bare nodes and bare relationships),
`ingest` (facts by names with evidence texts over HTTP and in-process, beside the raw fact
floor), `vectors` (the embedding outbox end to end beside the model alone), `two spaces`
(writers of one space beside two) and `50 clients` (HTTP against a real `engram serve` beside
50 driver clients running the raw query).

Latencies are medians over rounds of each round's p50/p95; ratios are medians of ratios paired
within a round; a ratio of a path over its floor is named `<path>_vs_raw`.
"""

from __future__ import annotations

import statistics
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from rich.console import Console

from bench._support import Loads, percentile
from bench.concurrent_reads import measure_concurrent, serve_env
from bench.graphql_reads import graphql_client
from bench.ingest import measure_ingest
from bench.read_latency import measure_reads, parse_as_of
from bench.search_latency import measure_search
from bench.small_space_recall import measure_small_space_recall
from bench.two_spaces import measure_two_spaces
from bench.vector_rate import measure_vectors
from bench.write_throughput import measure_writes
from graph.memory import Memory
from graph.runtime import Neo4jTarget, Settings

Ops = dict[str, dict[str, float]]
Figures = dict[str, Any]


@dataclass(frozen=True)
class Plan:
    """How much each bench measures per round at each size."""

    rounds: int = 5
    read_samples: int = 40
    """Start entities and connected pairs per asOf point."""
    as_of: tuple[str, ...] = ("2023-07-01", "2026-07-01")
    search_samples: int = 30
    """Claims whose text (and two of its words) are searched, per round."""
    single: int = 60
    batched: int = 2000
    batch_size: int = 500
    write_entities: int = 1000
    ingest_batched: int = 2000
    """Facts by names per round, `ingest_size` per rememberMany (`bench.ingest`)."""
    ingest_size: int = 500
    ingest_single: int = 60
    vector_claims: int = 4000
    """Claims written, then embedded, per round of `bench.vector_rate`."""
    two_space_claims: int = 160
    two_space_writers: int = 8
    clients: int = 50
    mutation_calls: int = 10
    warm_up: int = 10
    seed: int = 7
    generate_batch: int = 500
    beside_claims: int = 1000
    """The small space kept beside each size's big one (`bench.small_space_recall`)."""
    beside_samples: int = 30


def _p(values: list[float], q: float) -> float:
    return percentile(values, q) if values else float("nan")


def latency(rounds: list[list[float]]) -> dict[str, float]:
    """Medians over rounds of each round's p50 and p95 (ms)."""
    return {
        "p50": statistics.median(_p(ms, 50) for ms in rounds),
        "p95": statistics.median(_p(ms, 95) for ms in rounds),
        "n": sum(len(ms) for ms in rounds),
    }


@dataclass(frozen=True)
class Size:
    """One size's space and where it is, for the benches to measure."""

    memory: Memory
    target: Neo4jTarget
    settings: Settings
    console: Console
    space: str
    plan: Plan
    show_progress: bool

    def serve_env(self) -> dict[str, str]:
        """What an `engram serve` started for a bench needs to find this Neo4j."""
        t = self.target
        return serve_env(t.uri, t.user, t.password, t.database)


async def reads(size: Size) -> tuple[Ops, Figures]:
    plan = size.plan
    ops: Ops = {}
    figures: Figures = {}
    async with graphql_client(size.settings, size.target) as gql:
        timings = await measure_reads(
            size.memory,
            gql,
            size.console,
            space=size.space,
            as_of=[parse_as_of(at) for at in plan.as_of],
            samples=plan.read_samples,
            warm_up=plan.warm_up,
            seed=plan.seed,
            rounds=plan.rounds,
            show_progress=size.show_progress,
        )
    for query in ("related", "explain"):
        for variant, suffix in (("engram", ""), ("graphql", "_graphql"), ("raw", "_raw")):
            ops[query + suffix] = latency([t.ms.get((query, "all", variant), []) for t in timings])
        figures[f"{query}_graphql_vs_raw_p50"] = statistics.median(
            _p(t.ms.get((query, "all", "graphql"), []), 50)
            / _p(t.ms.get((query, "all", "raw"), []), 50)
            for t in timings
        )
    return ops, figures


async def search(size: Size) -> tuple[Ops, Figures]:
    plan, memory = size.plan, size.memory
    searches = [
        await measure_search(
            memory,
            size.console,
            space=size.space,
            samples=plan.search_samples,
            seed=plan.seed + r,
            show_progress=size.show_progress,
        )
        for r in range(plan.rounds)
    ]
    ops = {
        "search": latency([s.times["engram"] for s in searches]),
        "search_raw": latency([s.times["raw"] for s in searches]),
    }
    beside = await measure_small_space_recall(
        memory,
        size.console,
        samples=plan.beside_samples,
        seed=plan.seed,
        claims=plan.beside_claims,
        show_progress=size.show_progress,
    )
    figures = {
        "search_self_recall": sum(s.found for s in searches)
        / max(1, sum(s.texts for s in searches)),
        "beside_meaning_recall": beside.meaning_recall,
        "beside_self_recall": beside.self_recall,
        "beside_vectors": beside.vectors,
        "beside_indexed": beside.indexed,
        "beside_samples": beside.samples,
    }
    return ops, figures


async def writes(size: Size) -> tuple[Ops, Figures]:
    plan = size.plan
    found = await measure_writes(
        size.memory,
        size.console,
        single=plan.single,
        batched=plan.batched,
        sizes=[plan.batch_size],
        repeats=plan.rounds,
        entities=plan.write_entities,
        seed=plan.seed,
        show_progress=size.show_progress,
    )
    ops = {
        "remember_single": latency(found.single_ms["engram"]),
        "remember_single_raw": latency(found.single_ms["raw"]),
    }
    batch = plan.batch_size
    figures = {
        "batched_per_s": found.median("engram", batch),
        "raw_same_shape_per_s": found.median("raw", batch),
        "raw_bare_per_s": found.median("bare claim", batch),
        "bare_nodes_per_s": found.median("bare nodes", batch),
        "bare_relationships_per_s": found.median("bare relationships", batch),
        "batched_vs_raw": found.paired_ratio(("engram", batch), ("raw", batch)),
        "raw_same_shape_vs_bare": found.paired_ratio(("raw", batch), ("bare claim", batch)),
        "single_vs_raw_p50": found.single_p50_ratio(),
    }
    return ops, figures


async def ingest(size: Size) -> tuple[Ops, Figures]:
    plan = size.plan
    found = await measure_ingest(
        size.memory,
        size.console,
        rounds=plan.rounds,
        batched=plan.ingest_batched,
        size=plan.ingest_size,
        single=plan.ingest_single,
        env=size.serve_env(),
    )
    ops = {
        "remember_http_single": latency(found.ms["http single"]),
        "remember_names_single": latency(found.ms["engine single"]),
        "remember_raw_fact_single": latency(found.ms["raw single"]),
    }
    figures = {
        "names_http_per_s": found.median("http batched"),
        "names_engine_per_s": found.median("engine batched"),
        "raw_facts_per_s": found.median("raw facts"),
        "raw_evidence_per_s": found.median("raw evidence"),
        "names_http_vs_raw": found.paired("http batched", "raw facts"),
        "names_engine_vs_raw": found.paired("engine batched", "raw facts"),
        "single_http_vs_raw": found.paired("http single", "raw single"),
        "single_engine_vs_raw": found.paired("engine single", "raw single"),
    }
    return ops, figures


async def vectors(size: Size) -> tuple[Ops, Figures]:
    found = await measure_vectors(
        size.memory,
        size.console,
        claims=size.plan.vector_claims,
        rounds=size.plan.rounds,
        entities=size.plan.write_entities,
        seed=size.plan.seed,
    )
    figures = {
        "vectors_per_s": found.median,
        "vectors_model_per_s": found.model_median,
        "vectors_vs_model": found.vs_model,
        "vectors_per_round": statistics.median(found.stored),
    }
    return {}, figures


async def two_spaces(size: Size) -> tuple[Ops, Figures]:
    plan = size.plan
    one, two = await measure_two_spaces(
        size.memory,
        size.console,
        claims=plan.two_space_claims,
        writers=plan.two_space_writers,
        rounds=plan.rounds,
    )
    figures = {
        "one_space_per_s": statistics.median(one),
        "two_spaces_per_s": statistics.median(two),
        "two_vs_one": statistics.median(t / o for t, o in zip(two, one, strict=True)),
    }
    return {}, figures


async def clients(size: Size) -> tuple[Ops, Figures]:
    plan = size.plan
    crowd = await measure_concurrent(
        size.memory,
        size.serve_env(),
        space=size.space,
        clients=plan.clients,
        calls=plan.mutation_calls,
        seed=plan.seed,
    )
    ops = {
        "related_clients": {"p50": _p(crowd.ms, 50), "p95": _p(crowd.ms, 95), "n": len(crowd.ms)},
        "related_clients_raw": {
            "p50": _p(crowd.raw_ms, 50),
            "p95": _p(crowd.raw_ms, 95),
            "n": len(crowd.raw_ms),
        },
    }
    figures = {
        "clients_per_s": crowd.per_s,
        "clients_raw_per_s": crowd.raw_per_s,
        "clients_vs_raw": crowd.per_s / crowd.raw_per_s,
        "clients": crowd.clients,
        "refused": crowd.refused,
        "rss_before_mb": crowd.rss_before_mb,
        "rss_peak_mb": crowd.rss_peak_mb,
    }
    return ops, figures


STEPS: tuple[tuple[str, Callable[[Size], Awaitable[tuple[Ops, Figures]]]], ...] = (
    ("reads", reads),
    ("search", search),
    ("writes", writes),
    ("ingest", ingest),
    ("vectors", vectors),
    ("two spaces", two_spaces),
    ("50 clients", clients),
)
"""Each measurement, named as the load averages name it."""


async def measure_size(
    memory: Memory,
    target: Neo4jTarget,
    settings: Settings,
    console: Console,
    space: str,
    plan: Plan,
    *,
    show_progress: bool,
) -> dict[str, Any]:
    """Every bench at one size: latencies (ms) by operation, the other figures, the loads."""
    size = Size(memory, target, settings, console, space, plan, show_progress)
    loads = Loads()
    ops: Ops = {}
    figures: Figures = {}
    for name, step in STEPS:
        console.print(f"[bold]{name}[/bold] …")
        loads.start(name)
        measured_ops, measured_figures = await step(size)
        loads.end(name)
        ops |= measured_ops
        figures |= measured_figures
    return {"ops": ops, "figures": figures, "load": loads.seen}
